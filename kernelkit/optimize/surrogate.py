"""The GP surrogate of Bayesian optimisation: posterior moments with input gradients.

For a fitted :class:`~kernelkit.models.GaussianProcessRegressor` with training inputs
``X_n``, ``L = chol(K + noise I)`` and ``alpha = K_y^-1 y`` (assignment Algorithm 2),

    mu(x)       = k(x, X_n) alpha                           (eq. 2.8)
    sigma^2(x)  = k(x, x) - v^T v,   v = L^-1 k(X_n, x)      (eq. 2.9)

and, by the chain rule through the kernel's input gradient ``dk(x, x_i)/dx``,

    dmu/dx      = sum_i alpha_i dk(x, x_i)/dx
    dsigma^2/dx = dk(x, x)/dx - 2 sum_i w_i dk(x, x_i)/dx,   w = L^-T v = K_y^-1 k(X_n, x)
    dsigma/dx   = dsigma^2/dx / (2 sigma)                    (0 where sigma = 0)

``dk(x, x)/dx`` vanishes for stationary kernels. With ``normalize_y`` the GP works on
``(y - m) / s``; moments on the original scale are ``m + s mu`` and ``s sigma``, and
their gradients scale by ``s``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import scipy.linalg
import scipy.optimize
from sklearn.exceptions import NotFittedError

from kernelkit._validation import check_array, check_random_state
from kernelkit.kernels import Kernel, Matern
from kernelkit.models import GaussianProcessRegressor

__all__ = ["Posterior", "posterior", "default_kernel", "fit_map"]


class Posterior(NamedTuple):
    """Posterior moments at ``m`` points (gradients ``None`` unless requested)."""

    mean: np.ndarray  # (m,)
    std: np.ndarray  # (m,)
    mean_grad: np.ndarray | None = None  # (m, d)
    std_grad: np.ndarray | None = None  # (m, d)


def default_kernel(n_dims: int, nu: float = 2.5) -> Kernel:
    """ARD Matérn kernel for inputs scaled to the unit cube ``[0, 1]^d``.

    Lengthscales start at 0.5 and are bounded to ``[1e-2, 1e1]`` (from a hundredth of
    the box to ten boxes: shorter ones cannot be resolved by a few dozen points, longer
    ones are indistinguishable from a linear trend); the signal variance, on the
    normalised scale, to ``[1e-2, 1e4]``.
    """
    return Matern(
        lengthscale=np.full(n_dims, 0.5),
        variance=1.0,
        nu=nu,
        lengthscale_bounds=(1e-2, 1e1),
        variance_bounds=(1e-2, 1e4),
    )


def _check_fitted(gp: Any, caller: str) -> None:
    """Raise scikit-learn's ``NotFittedError`` (a ``ValueError``) unless ``gp`` is fitted.

    The training data and weights are asked for by name (cheaply: :func:`posterior` runs
    inside the acquisition search): a GP prior is usable unfitted elsewhere
    (``requires_fit=False``), but it has no data to condition on here.
    """
    if not all(hasattr(gp, name) for name in ("X_train_", "alpha_", "L_")):
        raise NotFittedError(
            f"{caller} needs a fitted GaussianProcessRegressor, but this "
            f"{type(gp).__name__} is not fitted yet; call gp.fit(X, y) first"
        )


def _diag_gradient(kernel: Kernel, X: np.ndarray) -> np.ndarray:
    """``d k(x, x) / dx`` for each row; ``2 dk(x, y)/dx`` at ``y = x`` for symmetric k."""
    if kernel.is_stationary:
        return np.zeros_like(X)
    return np.stack([2.0 * kernel.input_gradient(x[None], x[None])[0, 0] for x in X])


def posterior(
    gp: Any, X: Any, *, return_gradient: bool = False, normalized: bool = False
) -> Posterior:
    """Posterior mean and standard deviation of ``f`` at ``X`` (and their x-gradients).

    Parameters
    ----------
    gp : GaussianProcessRegressor
        A fitted regressor on vector inputs.
    X : array of shape (m, d)
    return_gradient : bool, default=False
        Also return ``dmu/dx`` and ``dsigma/dx`` (shape ``(m, d)`` each), computed
        analytically from ``gp.kernel_.input_gradient``.
    normalized : bool, default=False
        Return moments on the GP's internal (normalised) scale instead of the scale of
        ``y``; no difference unless ``normalize_y=True``.

    Returns
    -------
    Posterior
        ``(mean, std, mean_grad, std_grad)``; ``std`` is that of the latent ``f``
        (without observation noise), as in :meth:`GaussianProcessRegressor.predict`.
    """
    _check_fitted(gp, "posterior")
    kernel: Kernel = gp.kernel_
    Xt = gp.X_train_
    X = check_array(X, "X", n_features=Xt.shape[1])
    Ks = kernel(X, Xt)  # (m, n)
    mean = Ks @ gp.alpha_
    V = scipy.linalg.solve_triangular(gp.L_, Ks.T, lower=True, check_finite=False)  # (n, m)
    var = kernel.diag(X) - np.einsum("ij,ij->j", V, V)
    std = np.sqrt(np.maximum(var, 0.0))
    mean_grad = std_grad = None
    if return_gradient:
        dK = kernel.input_gradient(X, Xt)  # (m, n, d)
        mean_grad = np.einsum("mnd,n->md", dK, gp.alpha_)
        W = scipy.linalg.solve_triangular(gp.L_.T, V, lower=False, check_finite=False)
        var_grad = _diag_gradient(kernel, X) - 2.0 * np.einsum("mnd,nm->md", dK, W)
        pos = std > 0
        std_grad = np.zeros_like(var_grad)
        std_grad[pos] = var_grad[pos] / (2.0 * std[pos, None])
    if not normalized:
        scale, offset = float(gp.y_train_std_), float(gp.y_train_mean_)
        mean = mean * scale + offset
        std = std * scale
        if return_gradient:
            assert mean_grad is not None and std_grad is not None  # computed above
            mean_grad = mean_grad * scale
            std_grad = std_grad * scale
    return Posterior(mean, std, mean_grad, std_grad)


def _lengthscale_mask(names: list[str]) -> np.ndarray:
    return np.array(["lengthscale" in name for name in names], dtype=bool)


def fit_map(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    *,
    noise: float,
    noise_bounds: Any,
    normalize_y: bool = True,
    lengthscale_prior: tuple[float, float] | None = (3.0, 6.0),
    n_restarts: int = 2,
    random_state: Any = None,
) -> GaussianProcessRegressor:
    """GP hyperparameters by maximum a posteriori, starting from ``kernel`` and ``noise``.

    Maximises ``log p(y | X, theta) + sum_k log p(l_k)`` over ``theta = [kernel.theta,
    log noise]`` (no noise with ``noise_bounds="fixed"``) by L-BFGS-B within the kernel's
    and the noise bounds, through
    :meth:`GaussianProcessRegressor.log_marginal_likelihood`, from the given
    values and ``n_restarts`` log-uniform random starts. With ``lengthscale_prior =
    (a, b)`` every lengthscale gets a Gamma(a, b) prior (shape, rate; the default
    Gamma(3, 6), mean 0.5 and mode 1/3 of the unit cube, is BoTorch's classic choice); in
    ``theta = log l`` its log density is ``a theta - b exp(theta)`` up to a constant.
    With few points in several dimensions maximum likelihood often sends a lengthscale to
    its upper bound, declaring a dimension irrelevant, and the search then never looks
    along it; the prior makes that cost evidence. ``None`` gives maximum likelihood.

    Returns a regressor fitted at the optimum (``optimizer=None``, so the values are used
    exactly).
    """
    rng = check_random_state(random_state)
    base = GaussianProcessRegressor(
        kernel, noise=noise, noise_bounds=noise_bounds, normalize_y=normalize_y, optimizer=None
    ).fit(X, y)
    theta0 = base.theta_
    n_k = base.kernel_.n_dims
    fit_noise = theta0.shape[0] > n_k  # noise_bounds is not "fixed"
    bounds = base.kernel_.bounds
    if fit_noise:
        bounds = np.vstack([bounds, np.log(np.asarray(noise_bounds, dtype=float))])
    mask = np.zeros(theta0.shape[0], dtype=bool)
    if lengthscale_prior is not None:
        mask[:n_k] = _lengthscale_mask(base.kernel_.theta_names)
        a, b = (float(v) for v in lengthscale_prior)

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        lml, grad = base.log_marginal_likelihood(theta, eval_gradient=True)
        if not np.isfinite(lml):
            return np.inf, np.zeros_like(theta)
        if mask.any():
            t = theta[mask]
            lml += float(np.sum(a * t - b * np.exp(t)))
            grad = grad.copy()
            grad[mask] += a - b * np.exp(t)
        return -lml, -grad

    starts = [np.clip(theta0, bounds[:, 0], bounds[:, 1])]
    starts += [rng.uniform(bounds[:, 0], bounds[:, 1]) for _ in range(n_restarts)]
    best_theta, best_value = theta0, np.inf
    for start in starts:
        res = scipy.optimize.minimize(objective, start, jac=True, method="L-BFGS-B", bounds=bounds)
        if np.isfinite(res.fun) and res.fun < best_value:
            best_theta, best_value = res.x, float(res.fun)
    return GaussianProcessRegressor(
        base.kernel_.with_theta(best_theta[:n_k]),
        noise=float(np.exp(best_theta[n_k])) if fit_noise else noise,
        noise_bounds=noise_bounds,
        normalize_y=normalize_y,
        optimizer=None,
    ).fit(X, y)
