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

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
from sklearn.exceptions import NotFittedError

from kernelkit._validation import check_array
from kernelkit.kernels import Kernel, Matern
from kernelkit.optimize.output_transform import OutputTransform

__all__ = ["ObjectiveModel", "Posterior", "posterior", "default_kernel"]


@dataclass(frozen=True)
class Posterior:
    """Posterior moments of ``f`` at ``m`` points, as :func:`posterior` returns them.

    Attributes
    ----------
    mean : ndarray of shape (m,)
        Posterior mean ``mu(x)``.
    std : ndarray of shape (m,)
        Posterior standard deviation ``sigma(x)`` of the latent ``f`` (no noise).
    mean_grad : ndarray of shape (m, d) or None
        ``dmu/dx``; ``None`` unless the gradients were asked for.
    std_grad : ndarray of shape (m, d) or None
        ``dsigma/dx``; ``None`` unless the gradients were asked for.
    """

    mean: np.ndarray
    std: np.ndarray
    mean_grad: np.ndarray | None = None
    std_grad: np.ndarray | None = None


def default_kernel(n_dims: int, nu: float = 2.5) -> Kernel:
    """ARD Matérn kernel for inputs scaled to the unit cube ``[0, 1]^d``.

    Lengthscales start at 0.5 and are bounded to ``[1e-2, 1e1]`` (from a hundredth of
    the box to ten boxes: shorter ones cannot be resolved by a few dozen points, longer
    ones are indistinguishable from a linear trend); the signal variance, on the
    normalised scale, to ``[1e-2, 1e4]``.

    Parameters
    ----------
    n_dims : int
        The input dimension ``d`` (one lengthscale each).
    nu : float, default=2.5
        The Matérn smoothness.

    Returns
    -------
    Matern
        The kernel, with variance 1.
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
        The points, with the GP's number of features.
    return_gradient : bool, default=False
        Also return ``dmu/dx`` and ``dsigma/dx`` (shape ``(m, d)`` each), computed
        analytically from ``gp.kernel_.input_gradient``.
    normalized : bool, default=False
        Return moments on the GP's internal (normalised) scale instead of the scale of
        ``y``; no difference unless ``normalize_y=True``.

    Returns
    -------
    Posterior
        ``mean``, ``std`` (of the latent ``f``, without observation noise, as
        :meth:`GaussianProcessRegressor.predict` gives it), and ``mean_grad`` /
        ``std_grad`` with ``return_gradient``.
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


class ObjectiveModel:
    """A fitted surrogate read on the objective's own scale and sign.

    :class:`~kernelkit.optimize.BayesianOptimizer` always models the maximised ``g``
    (``-f`` when minimising); this view predicts ``f`` itself, at points of the search
    space's cube (``space.transform(points)``), as scikit-optimize's ``res.models`` do.

    When the GP modelled a monotone transform ``T(sign * f)`` (the optimiser's
    ``output_transform``), the mean is mapped back, ``sign * T^-1(mu)``: the posterior
    *median* of ``f``, which a monotone map carries over exactly, and the standard
    deviation is half the width of the mapped ``mu +- sigma`` interval (the posterior
    standard deviation itself where ``T`` is affine).

    Parameters
    ----------
    gp : GaussianProcessRegressor
        Fitted on the cube, modelling ``T(sign * f)``.
    sign : {1.0, -1.0}
        ``-1`` when the optimiser minimised (it modelled ``-f``).
    output_transform : OutputTransform, optional
        ``T``; the identity by default.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import GaussianProcessRegressor
    >>> Z = np.linspace(0, 1, 8)[:, None]
    >>> gp = GaussianProcessRegressor(noise=1e-6).fit(Z, -np.sin(4 * Z[:, 0]))
    >>> model = ObjectiveModel(gp, -1.0)  # gp modelled -f
    >>> mean, std = model.predict([[0.5]], return_std=True)
    >>> bool(abs(mean[0] - np.sin(2.0)) < 1e-3), std.shape
    (True, (1,))
    """

    def __init__(self, gp: Any, sign: float, output_transform: Any = None) -> None:
        _check_fitted(gp, "ObjectiveModel")
        if sign not in (1.0, -1.0):
            raise ValueError(f"sign must be 1.0 or -1.0, got {sign!r}")
        if output_transform is None:
            output_transform = OutputTransform("none")
        if not isinstance(output_transform, OutputTransform):
            raise TypeError(
                "output_transform must be an OutputTransform or None, got "
                f"{type(output_transform).__name__}"
            )
        self.gp = gp
        self.sign = float(sign)
        self.output_transform = output_transform

    def predict(self, X: Any, return_std: bool = False) -> Any:
        """The posterior mean of ``f`` at ``X`` (points of the cube), and its standard
        deviation with ``return_std``.

        Parameters
        ----------
        X : array-like of shape (m, transformed_n_dims)
            Points of the surrogate's cube.
        return_std : bool, default=False
            Also return the latent standard deviation.

        Returns
        -------
        mean : ndarray of shape (m,)
            The posterior mean of the objective.
        std : ndarray of shape (m,)
            Its standard deviation, only with ``return_std``.
        """
        t = self.output_transform
        if return_std:
            mean, std = self.gp.predict(X, return_std=True)
            if t.method == "none":
                return self.sign * mean, std
            lo, hi = t.inverse(mean - std), t.inverse(mean + std)
            return self.sign * t.inverse(mean), (hi - lo) / 2.0
        mean = self.gp.predict(X)
        return self.sign * (mean if t.method == "none" else t.inverse(mean))

    def __repr__(self) -> str:
        return f"ObjectiveModel({self.gp!r}, sign={self.sign:g})"
