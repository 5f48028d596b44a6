"""Gaussian process regression with hyperparameters fitted by maximum marginal likelihood,
or by maximum a posteriori when the kernel has priors on them."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable
from typing import Any, Literal, overload

import numpy as np
import scipy.linalg
import scipy.optimize
from scipy.linalg import blas, lapack
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning

from kernelkit._lbfgs import minimize_bounded, projected_gradient
from kernelkit._memory import check_memory, memory_limit
from kernelkit._threads import blas_threads_for
from kernelkit._validation import (
    check_bool,
    check_fraction,
    check_in,
    check_int,
    check_noise_bounds,
    check_positive_scalar,
    check_random_state,
)
from kernelkit.kernels import Kernel, Stationary
from kernelkit.linalg.cholesky import cholesky_or_none, jittered_cholesky
from kernelkit.linalg.krylov import CGResult, mbcg
from kernelkit.linalg.operator import KernelOperator
from kernelkit.linalg.preconditioners import Preconditioner, RandomFeaturePreconditioner
from kernelkit.models._common import (
    check_gram_memory,
    check_prior_input,
    is_precomputed,
    n_objects,
    resolve_estimator_kernel,
    validate_targets,
    validate_test_input,
    validate_training_data,
)
from kernelkit.models._gp_krylov import (
    LOVE_BLOCK,
    LOVE_CHECK_TOL,
    PRECONDITIONERS,
    KrylovLikelihood,
    LoveCache,
    fitted_preconditioner,
    krylov_likelihood,
    love_cache,
    love_check_rows,
    love_max_vectors,
    unit_columns,
)
from kernelkit.models._predictive import GaussianPredictor, Spread, target_scaling
from kernelkit.models._threads import LapackThreads

__all__ = ["GaussianProcessRegressor"]

_LOG_2PI = math.log(2.0 * math.pi)
#: ``solver="auto"`` factorises up to this many samples, and uses conjugate gradients beyond.
_AUTO_CG_N = 10_000
#: L-BFGS-B's relative tolerance on the objective, tighter than SciPy's default (2.2e-9),
#: so that slow progress along flat directions (an irrelevant ARD lengthscale growing) is
#: followed to the optimum rather than stopped early.
_FTOL = 1e-10


def _best_search(
    fun: Any, starts: Iterable[np.ndarray], bounds: np.ndarray, *, bounded_first_step: bool = True
) -> Any:
    """The best of :func:`~kernelkit._lbfgs.minimize_bounded` runs from each of ``starts``
    (finite barrier, restarts while the projected gradient is large, and a bounded first
    step unless ``bounded_first_step`` is False); on a tie, the earliest."""
    runs = (
        minimize_bounded(fun, x0, bounds, ftol=_FTOL, bounded_first_step=bounded_first_step)
        for x0 in starts
    )
    return min(runs, key=lambda res: res.fun)


#: Above this power-of-two scale of the targets, ``c^2`` is kept out of the n x n gradient
#: matrix of an unprofiled likelihood (it would overflow there).
_BIG_SCALE = 2.0**200


def _value(result: Any) -> float:
    """The objective value of an optimiser result (``min`` keeps the first on a tie)."""
    return float(result.fun)


def _power_of_two_scale(y: np.ndarray) -> float:
    """The power of two at or above ``max|y|`` (1.0 for ``y = 0``): dividing by it is exact
    in floating point, and leaves ``y^T K^-1 y`` far from overflow for any finite ``y``."""
    top = float(np.max(np.abs(y), initial=0.0))
    if not (top > 0 and math.isfinite(top)):
        return 1.0
    return math.ldexp(1.0, math.frexp(top)[1])


def _noisy_gram(kernel: Kernel, X: Any, noise: float) -> np.ndarray:
    K = kernel(X)
    K[np.diag_indices_from(K)] += noise
    return K


def _lml(
    kernel: Kernel,
    X: Any,
    y: np.ndarray,
    noise: float,
    fit_noise: bool,
    eval_gradient: bool,
    threads: LapackThreads | None = None,
    profile: bool = False,
) -> tuple[float, np.ndarray]:
    """Log marginal likelihood (Algorithm 2 of the assignment) and its gradient.

    The gradient is with respect to ``[kernel.theta, log noise]`` (the last entry only if
    ``fit_noise``). A matrix that is not numerically positive definite gives ``-inf``
    and a zero gradient, so that an optimiser backs off instead of crashing. ``threads``
    chooses the BLAS threads of the two LAPACK calls (see :mod:`._threads`).

    With ``profile``, the covariance is ``s (K + noise I)`` and the overall scale ``s`` is
    maximised out analytically, ``s* = y^T (K + noise I)^-1 y / n``; the result is the
    profile log likelihood ``-n/2 log s* - sum_i log L_ii - n/2 (1 + log 2 pi)``, whose
    gradient is the ordinary one with ``alpha`` replaced by ``alpha / sqrt(s*)``.
    """
    if threads is None:
        threads = LapackThreads()  # not entered: a no-op
    n = y.shape[0]
    n_theta = kernel.n_dims + int(fit_noise)
    fail = (-np.inf, np.zeros(n_theta))
    if eval_gradient:
        K, contract = kernel.gram_and_gradient(X)
    else:
        K = kernel(X)
    K[np.diag_indices_from(K)] += noise
    # K is symmetric, so K.T (a Fortran-ordered view) can be factorised in place as
    # U^T U; the C-ordered view of U is then the lower factor L, with no n x n copy.
    # Non-finite entries make the factorisation fail (cholesky_or_none checks the pivots).
    with threads.lapack():
        U = cholesky_or_none(K.T, lower=False, overwrite_a=True)
    if U is None:  # not numerically positive definite (see linalg.cholesky.cholesky_or_none)
        return fail
    # Algorithm 2 with L = U^T: alpha = L^T \ (L \ y) (on U, Fortran-ordered: no copy), and
    # log p(y|X) = -1/2 y^T alpha - sum_i log L_ii - n/2 log 2 pi. It is computed for
    # y / c, c a power of two (exact), and scaled back: y^T alpha = c^2 (y/c)^T alpha_c,
    # so that targets of any finite magnitude neither overflow nor underflow; the profile
    # likelihood depends on c only through the additive -n log c.
    c = _power_of_two_scale(y)
    alpha = scipy.linalg.cho_solve((U, False), y / c, check_finite=False)
    quad_c = float((y / c) @ alpha)
    logdet_half = float(np.log(np.diagonal(U)).sum())
    if profile:
        if not quad_c > 0:
            return fail
        lml = -0.5 * n * math.log(quad_c / n) - n * math.log(c) - logdet_half
        lml -= 0.5 * n * (1.0 + _LOG_2PI)
        alpha = alpha / math.sqrt(quad_c / n)  # alpha / sqrt(s*), free of c
        outer = -0.5
    else:
        with np.errstate(over="ignore"):
            lml = -0.5 * (c * quad_c * c) - logdet_half - 0.5 * n * _LOG_2PI
        outer = -0.5  # alpha alpha^T = c^2 alpha_c alpha_c^T: c^2 is applied below
    if not np.isfinite(lml):
        return fail
    if not eval_gradient:
        return lml, np.empty(0)
    # d lml / d theta_p = 1/2 tr((alpha alpha^T - K^-1) dK/dtheta_p) = sum_ij W_ij dK_ij
    # (Rasmussen & Williams eq. 5.9). dpotri overwrites U with the upper triangle of
    # K^-1 in Fortran order, i.e. its lower triangle in C order; the other triangle
    # stays 0. As dK is symmetric, any matrix with the right symmetric part gives the
    # same sums, so K^-1 enters as its lower triangle with the diagonal halved (the
    # off-diagonal entries then count twice, as in the full matrix). The contraction is
    # linear, so the kernel receives -W = tril(K^-1) - diag(K^-1)/2 - 1/2 alpha alpha^T
    # and the sign is flipped afterwards, saving a pass over the n x n matrix.
    with threads.lapack():
        Kinv_f, info = lapack.dpotri(U, lower=0, overwrite_c=1)
    if info != 0:
        return fail
    Kinv_f[np.diag_indices(n)] *= 0.5
    # Without the profile, W is K^-1 - c^2 alpha_c alpha_c^T: it is formed divided by c^2
    # (and the gradient multiplied back) when c^2 would otherwise overflow it
    g_scale = c if not profile and c > _BIG_SCALE else 1.0
    if g_scale != 1.0:
        Kinv_f *= 1.0 / g_scale / g_scale
    elif not profile:
        outer *= c * c
    # -= 1/2 alpha alpha^T in place (a symmetric update, so the memory order is moot)
    W_neg = blas.dger(outer, alpha, alpha, a=Kinv_f, overwrite_a=1).T
    grad = np.empty(n_theta)
    if kernel.n_dims:
        grad[: kernel.n_dims] = contract(W_neg)
        grad[: kernel.n_dims] *= -1.0
    if fit_noise:  # dK_y / d log(noise) = noise * I
        grad[-1] = -noise * float(np.trace(W_neg))
    if g_scale != 1.0:
        with np.errstate(over="ignore"):
            grad = grad * g_scale * g_scale
    if not np.isfinite(grad).all():
        return fail
    return lml, grad


def _log_posterior(
    kernel: Kernel,
    X: Any,
    y: np.ndarray,
    noise: float,
    fit_noise: bool,
    threads: LapackThreads | None = None,
    profile: bool = False,
    *,
    priors: bool,
) -> tuple[float, np.ndarray]:
    """The objective of the hyperparameter fit: :func:`_lml` plus the kernel's log prior.

    ``log p(y | X, theta) + log p(theta)`` and its gradient, with respect to the same
    variables as :func:`_lml`; the noise has no prior. Without priors on the kernel this
    is the log marginal likelihood itself (maximum likelihood); with them, its maximum is
    the maximum a posteriori estimate. ``kernel.log_prior`` is that of the current
    ``kernel.theta`` (GPyTorch's convention: densities of the log-hyperparameters).
    ``priors`` is ``kernel.has_priors``, decided once per search by the caller rather than
    at every evaluation.
    """
    lml, grad = _lml(kernel, X, y, noise, fit_noise, True, threads, profile)
    if not (priors and np.isfinite(lml)):
        return lml, grad
    log_prior, prior_grad = kernel.log_prior()
    if not np.isfinite(log_prior):
        return -np.inf, np.zeros_like(grad)
    grad[: kernel.n_dims] += prior_grad
    return lml + log_prior, grad


class NoiseAtBoundWarning(ConvergenceWarning):
    """The fitted noise variance of a GP ended at the lower end of ``noise_bounds``."""


#: A log-hyperparameter within this distance of a bound is "at the bound" (0.1 % of the
#: value: the profiled search maps back to a few 1e-6 off the bound it ran into).
_AT_BOUND = 1e-3


def _is_signal_variance(name: str) -> bool:
    return name == "variance" or name.endswith("__variance")


def _signal_restart(
    theta: np.ndarray, theta0: np.ndarray, bounds: np.ndarray, names: list[str], y: np.ndarray
) -> np.ndarray | None:
    """A start with every signal variance at the scale of ``y`` (its mean square), if the
    search ended with one of them at its lower bound; else ``None``."""
    idx = [i for i, name in enumerate(names) if _is_signal_variance(name)]
    if not any(theta[i] <= bounds[i, 0] + _AT_BOUND for i in idx):
        return None
    c = _power_of_two_scale(y)
    scale_c = float(np.mean((y / c) ** 2))  # mean(y^2) / c^2: no overflow
    if not scale_c > 0:
        return None
    start = theta0.copy()
    log_scale = math.log(scale_c) + 2.0 * math.log(c)
    start[idx] = np.clip(log_scale, bounds[idx, 0], bounds[idx, 1])
    return start


def _why_not_finite(kernel: Kernel, X: Any, y: np.ndarray, noise: float, priors: bool) -> str:
    """Why the objective of the fit is not finite at these hyperparameters, in words."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        K = _noisy_gram(kernel, X, noise)
    if cholesky_or_none(K, overwrite_a=True) is None:
        return (
            "K + noise*I is not numerically positive definite there; raise noise (or the "
            "lower end of noise_bounds), remove duplicate inputs or standardise the inputs"
        )
    if priors and not np.isfinite(kernel.log_prior()[0]):
        return "the kernel's prior density is 0 there"
    return (
        f"the targets (max |y| = {float(np.max(np.abs(y))):.3g}) are too large for the "
        "kernel's variance there; use normalize_y=True or rescale y"
    )


def _warn_constant_targets(y: np.ndarray, normalize_y: bool) -> None:
    """The ConvergenceWarning of a fit to targets that are identically 0 once centred."""
    what = f"constant (y = {float(y[0]):.6g})" if normalize_y else "all 0"
    warnings.warn(
        f"the targets are {what}: the marginal likelihood then rises without bound as the "
        "signal variance and the noise shrink, so the fit takes them to their lower "
        "bounds, and the data say nothing about the other hyperparameters",
        ConvergenceWarning,
        stacklevel=3,
    )


def _warn_at_bounds(theta: np.ndarray, bounds: np.ndarray, names: list[str]) -> None:
    """One ConvergenceWarning per fitted hyperparameter left at a bound (the noise at its
    lower bound gets a NoiseAtBoundWarning with the usual cause)."""
    for value, (lo, hi), name in zip(theta, bounds, names, strict=True):
        at_lo, at_hi = value <= lo + _AT_BOUND, value >= hi - _AT_BOUND
        if not (at_lo or at_hi) or lo == hi:
            continue
        if name == "noise" and at_lo:
            warnings.warn(
                f"the fitted noise variance is at its lower bound {math.exp(lo):.3g}; the "
                "marginal likelihood would take it lower. Expected for noise-free data; for "
                "noisy data the usual cause is repeated inputs with equal targets "
                "(duplicate records), which make the likelihood grow without bound as the "
                "noise vanishes: remove the duplicates or raise the lower end of noise_bounds",
                NoiseAtBoundWarning,
                stacklevel=3,
            )
            continue
        side, bound = ("lower", lo) if at_lo else ("upper", hi)
        param = name.split("[")[0].rsplit("__", 1)[-1]
        warnings.warn(
            f"the fitted {name} is at its {side} bound {math.exp(bound):.3g}; the marginal "
            f"likelihood would move it further. Widen {param}_bounds"
            + ("" if param == "noise" else " (or noise_bounds)")
            + " if a value beyond it is plausible"
            + (
                "; a signal variance at its lower bound means the data look like pure noise"
                if _is_signal_variance(name) and at_lo
                else ""
            ),
            ConvergenceWarning,
            stacklevel=3,
        )


class GaussianProcessRegressor(GaussianPredictor, RegressorMixin, BaseEstimator):
    """Gaussian process regression, Algorithm 2 of the assignment.

    Observations ``y = f(x) + eps`` with ``f ~ GP(0, k)`` and Gaussian noise of variance
    ``noise``. With ``L = chol(K + noise I)`` and ``alpha = L^T \\ (L \\ y)``, the
    predictive mean is ``k_*^T alpha``, the variance ``k_** - v^T v`` with
    ``v = L \\ k_*`` (assignment eqs. 2.2-2.3), and the log marginal likelihood
    ``-1/2 y^T alpha - sum_i log L_ii - n/2 log 2 pi`` (eq. 2.4).

    ``fit`` maximises the log marginal likelihood over ``[kernel.theta, log noise]``
    with L-BFGS-B and the analytic gradient
    ``1/2 tr((alpha alpha^T - K_y^-1) dK_y/dtheta)``, plus ``kernel.log_prior(theta)``
    and its gradient when the kernel has priors on its hyperparameters (e.g.
    ``Matern(lengthscale_prior=GammaPrior(3.0, 6.0))``: a maximum a posteriori fit,
    GPyTorch's convention; the noise has no prior). The likelihood is evaluated through
    ``kernel.gram_and_gradient`` (which reuses the Gram matrix's distances and profile)
    so that the ``n x n x p`` derivative tensor is never formed.
    One evaluation costs a Cholesky factorisation and an inverse from the factor
    (LAPACK ``dpotri``), both ``O(n^3)``.

    Parameters
    ----------
    kernel : Kernel or str, default=None
        Prior covariance of ``f``; ``None`` means ``RBF()``, a name (``"rbf"``,
        ``"matern52"``, ...) is resolved by :func:`kernelkit.kernels.resolve_kernel`. Its
        hyperparameters are the starting point of the fit (and are used as is when
        ``optimizer=None``); priors on them (``lengthscale_prior=...``) make the fit a
        maximum a posteriori estimate. Kernels
        on objects take lists of objects as ``X``; a precomputed Gram matrix can be
        wrapped in :class:`~kernelkit.kernels.Precomputed` with integer indices as ``X``.
    noise : float, default=1e-2
        Variance of the Gaussian observation noise (on the normalised scale when
        ``normalize_y``), the starting value when it is fitted. ``1e-2`` is 1 % of the
        default kernel's unit variance: small enough not to wash out a clean signal,
        large enough that ``K + noise I`` is well conditioned from the first iteration.
    noise_bounds : (float, float) or "fixed", default=(1e-8, 1e5)
        Bounds of the fitted noise variance; ``"fixed"`` keeps ``noise`` as given.
    normalize_y : bool, default=False
        Standardise ``y`` (subtract its mean, divide by its standard deviation) before
        fitting; predictions, standard deviations and covariances are returned on the
        original scale.
    n_restarts : int, default=0
        Extra optimiser runs from starting points drawn log-uniformly within the
        bounds; the best optimum is kept.
    optimizer : {"lbfgs", None}, default="lbfgs"
        ``None`` keeps the hyperparameters fixed.
    random_state : int, RandomState or None
        Seeds the restart points (and, with ``solver="cg"``, the probe vectors, the
        preconditioner and the pre-training subset).
    solver : {"auto", "cholesky", "cg"}, default="auto"
        How ``K + noise I`` is solved. ``"cholesky"`` factorises it (``O(n^2)`` memory,
        ``O(n^3)`` time per likelihood). ``"cg"`` never forms it: products with ``K`` by
        blocks (:class:`~kernelkit.linalg.KernelOperator`), batched preconditioned
        conjugate gradients, the log determinant by stochastic Lanczos quadrature and
        the gradient's traces by Hutchinson's estimator with ``n_probes`` fixed probes
        (Gardner et al. 2018), predictive variances from a Lanczos (LOVE) cache
        (Pleiss et al. 2018); ``O(n * block)`` memory, ``O(n^2 d)`` time per pass over
        ``K``. ``"auto"`` factorises up to 10 000 samples (when three ``n x n``
        matrices fit in half the memory) and uses ``"cg"`` beyond, for kernels on
        vectors.
    preconditioner : str, None or Preconditioner, default="auto"
        For ``solver="cg"``: ``"pivoted_cholesky"``, ``"nystrom"``, ``"random_features"``
        or a preconditioner of :mod:`kernelkit.linalg.preconditioners` (refitted to
        each hyperparameter value), ``None`` for none. ``"auto"`` is a
        pivoted Cholesky whose rank grows until what it leaves out of ``K`` has a trace
        of ``10 noise`` (a condition number of at most 11 after preconditioning), up to
        1000 columns and 512 MiB.
    n_probes : int, default=16
        For ``solver="cg"``: Rademacher probe vectors of the stochastic log determinant
        and gradient, drawn once per fit (``n`` or more: exact probes).
    tol : float, default=1e-4
        For ``solver="cg"``: relative residual of every CG solve, in ``(0, 1)``.
    max_iter : int, default=1000
        For ``solver="cg"``: most CG iterations of a solve, and most Lanczos steps of
        the variance cache; a solve that stops short warns (``ConvergenceWarning``,
        with its residual).
    pretrain_size : int or None, default=None
        For ``solver="cg"``: fit the hyperparameters first by Cholesky on this many
        random training points, and start the full-data search there (Wang et al.
        2019, §4); ``None`` starts from the kernel's hyperparameters.
    refine_steps : int or None, default=None
        For ``solver="cg"``: at most this many L-BFGS-B iterations on the full data
        (``0``: keep the pre-trained hyperparameters); ``None`` runs to convergence.

    Attributes
    ----------
    kernel_ : Kernel
        Copy of ``kernel`` with the fitted hyperparameters.
    noise_ : float
        Fitted noise variance (normalised scale when ``normalize_y``).
    theta_ : ndarray
        Fitted ``[kernel_.theta, log noise_]`` (without the noise when it is fixed).
    theta_names_ : list of str
        Names of the entries of ``theta_``.
    X_train_ : array or list
        Training inputs.
    n_features_in_ : int
        Number of input features, for kernels on vectors.
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame with string column names.
    y_train_ : ndarray
        Training targets, as given.
    y_train_mean_, y_train_std_ : float
        Normalisation of ``y`` (0 and 1 unless ``normalize_y``).
    L_ : ndarray of shape (n, n)
        Lower Cholesky factor of ``K + noise_ I`` (plus jitter, if any was needed).
    jitter_ : float
        Jitter added to the diagonal before the final factorisation (0.0 if none).
    alpha_ : ndarray of shape (n,)
        ``(K + noise_ I)^-1 y`` for the (normalised) targets.
    log_marginal_likelihood_value_ : float
        Log marginal likelihood at ``theta_`` (of the normalised targets).
    log_prior_value_ : float
        ``kernel_.log_prior()[0]``, the log prior density of the fitted
        log-hyperparameters (0.0 without priors); the fit maximised
        ``log_marginal_likelihood_value_ + log_prior_value_``.
    optimizer_result_ : scipy.optimize.OptimizeResult or None
        Result of the best search (in the profiled parametrisation when the variance
        was profiled out): ``success`` says whether it ended at a stationary point (the
        projected gradient checked, not L-BFGS-B's flag), ``projected_gradient`` is the
        largest entry of that gradient, ``fun0`` the objective at the start, ``n_runs``
        the L-BFGS-B runs it took and ``lbfgs_message`` what the last one said.
    solver_ : str
        The solver used, ``"cholesky"`` or ``"cg"``.
    n_iter_ : int
        Iterations of the final solve for ``alpha_``: CG iterations, or 1 for the
        direct (Cholesky) solve.
    converged_ : bool
        Whether that solve reached ``tol`` (always True for Cholesky).
    cg_result_ : CGResult or None
        The final CG solve (``solver_ == "cg"``): iterations, residuals, tolerance. Its
        columns are ``y``, the ``n_probes`` probes and the 32 rows of ``K`` whose
        variances check the LOVE cache (solved to ``min(tol, 1e-4)``).
    n_kernel_passes_ : int
        Passes over ``K`` the fit made (0 with Cholesky): each ``O(n^2 d)``, the cost
        that dominates a large fit.
    logdet_standard_error_ : float
        Standard error of the stochastic log determinant in
        ``log_marginal_likelihood_value_`` (0.0 with Cholesky).
    love_ : LoveCache or None
        The Lanczos cache of predictive variances (``solver_ == "cg"``); its ``error``
        is the largest relative error of the variances measured at 32 training inputs
        against CG solves.
    probes_ : ndarray of shape (n, n_probes) or None
        The fit's Rademacher probe vectors (``solver_ == "cg"``).
    preconditioner_ : Preconditioner or None
        The preconditioner fitted at the final hyperparameters.
    pretrain_theta_ : ndarray or None
        The hyperparameters pre-trained on the subset (``pretrain_size``).

    See Also
    --------
    KernelRidge : The same predictive mean, without variances or hyperparameter fitting.

    Notes
    -----
    Rasmussen & Williams (2006), Algorithm 2.1 and eq. 5.9; Rowland (2018) eq. 5.4.
    Before ``fit``, ``predict`` and ``sample_y`` use the prior (zero mean, covariance
    ``kernel``), as scikit-learn does.

    The search never trusts L-BFGS-B's ``success`` flag (see :mod:`kernelkit._lbfgs`):
    a trial point where ``K + noise I`` cannot be factorised gets a finite barrier
    value so that the line search backs off, the best point evaluated is kept (never
    worse than the start), and a run that ends where the projected gradient is still
    large is restarted from there with a bounded first step (the objective scaled so
    that no log-hyperparameter moves by more than about 1); if it still is, a
    ``ConvergenceWarning`` says where the search stopped (``optimizer_result_.success``
    is that verdict, and ``optimizer_result_.projected_gradient`` its measure). With a
    profiled variance (below), two searches run from the start, over the profiled and
    the ordinary parametrisation, and the better optimum is kept: they lead to
    different local maxima of an ARD likelihood, neither always the better.
    The likelihood is computed for ``y`` divided by a power of two, so targets of any
    finite magnitude are fitted (targets too large for every variance the bounds allow
    raise a ``ValueError`` saying so); constant targets (identically 0 once centred)
    are fitted with a ``ConvergenceWarning`` saying that their likelihood is unbounded.
    The final factorisation uses jitter with a
    :class:`~kernelkit.models.NumericalWarning`, or raises ``LinAlgError`` with advice.
    If the starting point itself cannot be factorised, the optimiser cannot move and
    the start is kept (with a ``ConvergenceWarning`` saying why). Any fitted hyperparameter at a
    bound gives a ``ConvergenceWarning`` naming it; for the noise at its lower bound, a
    :class:`NoiseAtBoundWarning`: with noisy data it usually means duplicate records
    (equal inputs and targets), for which the likelihood is unbounded. A signal variance
    at its lower bound (the data explained as pure noise) is checked by a second search
    that starts from a variance at the scale of the targets; the better optimum is kept.

    During ``fit`` every BLAS pool runs on one thread except the two LAPACK calls of
    each evaluation, which use all BLAS threads for n >= 1000 (see
    ``kernelkit/models/_threads.py``): NumPy's and SciPy's thread pools would otherwise
    compete for the cores.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.models import GaussianProcessRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(0, 5, size=(30, 1))
    >>> y = np.sin(X[:, 0]) + 0.1 * rng.randn(30)
    >>> gp = GaussianProcessRegressor(RBF(lengthscale=1.0)).fit(X, y)
    >>> mean, std = gp.predict([[2.5]], return_std=True)
    >>> bool(abs(mean[0] - np.sin(2.5)) < 3 * std[0] + 0.1)
    True
    >>> gp.theta_names_
    ['lengthscale', 'variance', 'noise']
    """

    cg_result_: CGResult | None
    love_: LoveCache | None
    probes_: np.ndarray | None

    def __init__(
        self,
        kernel: Any = None,
        *,
        noise: float = 1e-2,
        noise_bounds: Any = (1e-8, 1e5),
        normalize_y: bool = False,
        n_restarts: int = 0,
        optimizer: str | None = "lbfgs",
        random_state: Any = None,
        solver: str = "auto",
        preconditioner: Any = "auto",
        n_probes: int = 16,
        tol: float = 1e-4,
        max_iter: int = 1000,
        pretrain_size: int | None = None,
        refine_steps: int | None = None,
    ):
        self.kernel = kernel
        self.noise = noise
        self.noise_bounds = noise_bounds
        self.normalize_y = normalize_y
        self.n_restarts = n_restarts
        self.optimizer = optimizer
        self.random_state = random_state
        self.solver = solver
        self.preconditioner = preconditioner
        self.n_probes = n_probes
        self.tol = tol
        self.max_iter = max_iter
        self.pretrain_size = pretrain_size
        self.refine_steps = refine_steps

    # ------------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        check_positive_scalar(self.noise, "noise")
        check_noise_bounds(self.noise_bounds)
        check_bool(self.normalize_y, "normalize_y")
        check_int(self.n_restarts, "n_restarts", minimum=0)
        check_in(self.optimizer, "optimizer", ("lbfgs", None))
        check_in(self.solver, "solver", ("auto", "cholesky", "cg"))
        if not (self.preconditioner is None or isinstance(self.preconditioner, Preconditioner)):
            check_in(self.preconditioner, "preconditioner", (*PRECONDITIONERS, None))
        check_int(self.n_probes, "n_probes", minimum=1)
        check_fraction(self.tol, "tol")
        check_int(self.max_iter, "max_iter", minimum=1)
        if self.pretrain_size is not None:
            check_int(self.pretrain_size, "pretrain_size", minimum=2)
        if self.refine_steps is not None:
            check_int(self.refine_steps, "refine_steps", minimum=0)

    def _choose_solver(self, kernel: Kernel, n: int) -> str:
        """``solver``, with ``"auto"`` resolved: Cholesky up to ``_AUTO_CG_N`` samples
        when three ``n x n`` matrices fit in memory (and always for kernels on objects),
        conjugate gradients beyond."""
        vectors = kernel.requires_vector_input
        if self.solver == "cg":
            if not vectors:
                raise TypeError(
                    "solver='cg' needs a kernel on vectors (it multiplies by K block by "
                    f"block); {kernel!r} takes lists of objects: use solver='cholesky'"
                )
            return "cg"
        if self.solver == "cholesky" or not vectors:
            return "cholesky"
        fits = 3 * 8 * n * n <= memory_limit() // 2
        return "cholesky" if n <= _AUTO_CG_N and fits else "cg"

    def _pretrain(
        self, kernel: Kernel, X: np.ndarray, yn: np.ndarray, rng: np.random.RandomState
    ) -> np.ndarray:
        """The hyperparameters fitted by Cholesky on ``pretrain_size`` random training
        points (Wang et al. (2019) §4: pre-training on a subset), in ``theta_``'s layout."""
        assert self.pretrain_size is not None
        idx = np.sort(rng.choice(len(X), int(self.pretrain_size), replace=False))
        sub = GaussianProcessRegressor(
            kernel,
            noise=self.noise,
            noise_bounds=self.noise_bounds,
            n_restarts=self.n_restarts,
            optimizer=self.optimizer,
            random_state=int(rng.randint(2**31 - 1)),
            solver="cholesky",
        )
        return sub.fit(X[idx], yn[idx]).theta_

    def _fit_cg(
        self, kernel: Kernel, X: np.ndarray, y: np.ndarray, yn: np.ndarray, mean: float, std: float
    ) -> GaussianProcessRegressor:
        """``fit`` by conjugate gradients: the stochastic log marginal likelihood (SLQ and
        Hutchinson, fixed probes) maximised by the same bounded L-BFGS-B search, then
        ``alpha`` by a CG solve and the LOVE cache of predictive variances."""
        n = len(X)
        t = min(int(self.n_probes), n)
        # the final solve's seven (n, t + 33) arrays (y, probes, the 32 checks of the
        # variances), a preconditioner factor (at most 512 MiB) and one product with it,
        # the LOVE basis (at most 1 GiB) and a block step's products
        columns = (
            7 * (t + 33)
            + min(1000, 2**26 // n + 1)
            + t
            + 33
            + love_max_vectors(n, int(self.max_iter))
            + 3 * LOVE_BLOCK
        )
        check_memory(
            8 * n * columns,
            f"{type(self).__name__}(solver='cg').fit on {n} samples ({columns} float64 "
            f"vectors of length {n})",
            f"lower max_iter (the basis of the variances has up to {LOVE_BLOCK} max_iter "
            "columns) or "
            "n_probes, or fit on fewer samples",
        )
        fit_noise = self._fit_noise
        rng = check_random_state(self.random_state)
        W = rng.choice(np.array([-1.0, 1.0]), size=(n, t)) if t < n else math.sqrt(n) * np.eye(n)
        seed = int(rng.randint(2**31 - 1))
        self._preconditioner_seed = seed  # log_marginal_likelihood refits the same one
        theta0 = kernel.theta
        bounds = kernel.bounds
        names = kernel.theta_names + (["noise"] if fit_noise else [])
        if fit_noise:
            theta0 = np.append(theta0, math.log(float(self.noise)))
            bounds = np.vstack([bounds, np.log(np.asarray(self.noise_bounds, dtype=float))])
        passes = 0
        work = kernel.clone()
        fixed_noise = None if fit_noise else float(self.noise)
        priors = work.has_priors

        def likelihood(
            op: KernelOperator, M: Any, eval_gradient: bool, **extra: Any
        ) -> KrylovLikelihood:
            # the search's evaluations and the final solve: same probes, same options
            return krylov_likelihood(
                op,
                yn,
                W,
                M,
                fit_noise=fit_noise,
                eval_gradient=eval_gradient,
                tol=self.tol,
                max_iter=self.max_iter,
                **extra,
            )

        def evaluate(theta: np.ndarray, eval_gradient: bool) -> KrylovLikelihood:
            nonlocal passes
            k_theta, noise = self._split(theta, work, fixed_noise)
            work.theta = k_theta
            op = KernelOperator(work, X, noise)
            M = fitted_preconditioner(self.preconditioner, work, X, noise, seed)
            try:
                return likelihood(op, M, eval_gradient)
            finally:
                passes += op.n_passes

        first_gradient: list[np.ndarray] = []

        def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
            value, grad = _objective(theta)
            if not first_gradient:
                first_gradient.append(grad)
            return value, grad

        def _objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    est = evaluate(theta, True)
            except np.linalg.LinAlgError:
                return np.inf, np.zeros(theta.size)
            value, grad = est.value, est.gradient
            if priors:
                log_prior, prior_grad = work.log_prior()
                value += log_prior
                grad = grad.copy()
                grad[: work.n_dims] += prior_grad
            return -value, -grad

        result = None
        self.pretrain_theta_ = None
        if self.optimizer is not None and theta0.size:
            start = np.clip(theta0, bounds[:, 0], bounds[:, 1])
            if not np.any(yn):
                _warn_constant_targets(y, self.normalize_y)
            if self.pretrain_size is not None and self.pretrain_size < n:
                start = self._pretrain(kernel, X, yn, rng)
                self.pretrain_theta_ = start.copy()
            steps = self.refine_steps
            if steps == 0:
                # the pretrained hyperparameters as they are: the final solve below gives
                # their likelihood (no evaluation here, which would cost as much again)
                result = scipy.optimize.OptimizeResult(
                    x=start,
                    fun=-math.inf,
                    jac=None,
                    success=False,
                    nit=0,
                    nfev=0,
                    message="refine_steps=0: the pretrained hyperparameters, not refined",
                )
            else:
                # one run: a stochastic objective has no exact stationary point to
                # restart towards (its value and gradient are different estimators)
                result = minimize_bounded(
                    objective,
                    start,
                    bounds,
                    ftol=_FTOL,
                    max_runs=1,
                    max_iter=15000 if steps is None else steps,
                )
                pg0 = float(np.max(np.abs(projected_gradient(start, first_gradient[0], bounds))))
                # stationary up to the estimator's noise: the projected gradient fell by
                # 10x from the start, or below the exact search's threshold
                result.success = bool(
                    result.projected_gradient <= max(0.1 * pg0, 1e-2 + 1e-6 * abs(result.fun))
                )
                if not result.success:
                    result.message = (
                        f"the search stopped where the projected gradient is "
                        f"{result.projected_gradient:.3g} (it was {pg0:.3g} at the start); "
                        f"the objective went from {-result.fun0:.8g} to {-result.fun:.8g}"
                    )
            if not np.isfinite(result.fun) and result.nfev:
                warnings.warn(
                    "the stochastic log marginal likelihood is not finite at the starting "
                    "hyperparameters (K + noise*I is not positive definite there), so "
                    "they were kept",
                    ConvergenceWarning,
                    stacklevel=3,
                )
            elif not result.success and steps is None:
                warnings.warn(
                    f"the hyperparameter search did not reach a stationary point: {result.message}",
                    ConvergenceWarning,
                    stacklevel=3,
                )
        if result is not None and (np.isfinite(result.fun) or result.nfev == 0):
            theta = result.x
            if np.any(yn):
                _warn_at_bounds(theta, bounds, names)
        else:
            theta = theta0
        k_theta, noise = self._split(theta, kernel, fixed_noise)
        kernel.theta = k_theta
        if result is None or not (np.isfinite(result.fun) or result.nfev == 0):
            noise = float(self.noise)
        # the final solve: the stochastic likelihood at the optimum (same probes) and, in
        # the same products, the reference variances that check the LOVE cache
        op = KernelOperator(kernel, X, noise)
        M = fitted_preconditioner(self.preconditioner, kernel, X, noise, seed)
        idx, rows = love_check_rows(op, seed)
        with warnings.catch_warnings():
            # a check column short of its tolerance is reported by the cache's own error
            warnings.filterwarnings("ignore", "conjugate gradients", ConvergenceWarning)
            est = likelihood(
                op, M, False, extra=unit_columns(n, idx), extra_tol=min(self.tol, LOVE_CHECK_TOL)
            )
        residuals = est.cg.residual_norms[: W.shape[1] + 1]  # y's and the probes'
        if not np.all(residuals <= self.tol):
            warnings.warn(
                f"conjugate gradients on K + noise*I did not reach the relative residual "
                f"{self.tol:.3g} within max_iter={self.max_iter} iterations (residuals up to "
                f"{float(np.max(residuals)):.3g}). Raise max_iter, use a (stronger) "
                "preconditioner, or a larger noise",
                ConvergenceWarning,
                stacklevel=3,
            )
        alpha = est.alpha
        if result is not None and result.nfev == 0:  # the objective, as a search reports it
            result.fun = -est.value - (kernel.log_prior()[0] if kernel.has_priors else 0.0)
        self.love_ = love_cache(
            op,
            yn,
            M,
            tol=self.tol,
            max_iter=int(self.max_iter),
            random_state=seed,
            check=(idx, rows, est.extra),
        )
        passes += op.n_passes

        self._store_fit(kernel, noise, theta, names, fit_noise, X, y, (mean, std), alpha, result)
        self.jitter_ = 0.0
        self.log_marginal_likelihood_value_ = est.value
        self.cg_result_ = est.cg
        self.n_iter_ = int(np.max(est.cg.n_iter_each[: W.shape[1] + 1]))
        self.converged_ = bool(np.all(residuals <= self.tol))
        self.logdet_standard_error_ = est.logdet_standard_error
        self.n_kernel_passes_ = passes
        self.probes_ = W
        self.preconditioner_ = M
        return self

    @property
    def _fit_noise(self) -> bool:
        return not (isinstance(self.noise_bounds, str) and self.noise_bounds == "fixed")

    def _resolve(self) -> Kernel:
        if is_precomputed(self.kernel):
            raise ValueError(
                "GaussianProcessRegressor needs kernel values at test points too; wrap a "
                "precomputed Gram matrix in kernelkit.kernels.Precomputed and pass "
                "integer indices as X"
            )
        kernel = resolve_estimator_kernel(self.kernel, precomputed=False)
        assert isinstance(kernel, Kernel)
        return kernel

    @staticmethod
    def _split(
        theta: np.ndarray, kernel: Kernel, fixed_noise: float | None
    ) -> tuple[np.ndarray, float]:
        """``theta`` -> (kernel theta, noise); ``fixed_noise`` when the noise is not in it."""
        if fixed_noise is None:
            return theta[: kernel.n_dims], float(np.exp(theta[-1]))
        return theta, fixed_noise

    def _y_normalised(self) -> np.ndarray:
        return (self.y_train_ - self.y_train_mean_) / self.y_train_std_

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any) -> GaussianProcessRegressor:
        """Maximise the log marginal likelihood (plus the kernel's log prior, if it has
        priors) and factorise ``K + noise I``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features) or list of objects
            Training inputs of the kind ``kernel`` takes.
        y : array of shape (n_samples,)
            Targets; a column vector ``(n_samples, 1)`` is raveled with a
            ``DataConversionWarning``, as scikit-learn's single-output estimators do.

        Returns
        -------
        self : GaussianProcessRegressor
            The fitted estimator.
        """
        self._check_params()
        kernel = self._resolve().clone()
        X, y = validate_training_data(self, X, y, kernel, multi_output=False, gram_copies=0)
        n = n_objects(X)
        solver = self._choose_solver(kernel, n)
        if solver == "cholesky":
            # K, its factor (dpotri inverts in place) and the gradient's work matrix
            check_gram_memory(self, n, n, copies=3, what=f"fit on {n} samples")
        mean, std = target_scaling(y, self.normalize_y)
        yn = (y - mean) / std
        self.solver_ = solver
        if solver == "cg":
            # BLAS threads only where the products are large: below that, waking the
            # thread pool costs more than the small triangular solves it would share
            with blas_threads_for(n):
                return self._fit_cg(kernel, X, y, yn, mean, std)

        fit_noise = self._fit_noise
        theta0 = kernel.theta
        bounds = kernel.bounds
        names = kernel.theta_names + (["noise"] if fit_noise else [])
        if fit_noise:
            theta0 = np.append(theta0, math.log(float(self.noise)))
            bounds = np.vstack([bounds, np.log(np.asarray(self.noise_bounds, dtype=float))])
        result = None
        if self.optimizer is not None and theta0.size:
            # a start outside the bounds is moved onto them
            start = np.clip(theta0, bounds[:, 0], bounds[:, 1])
            if not np.any(yn):
                _warn_constant_targets(y, self.normalize_y)
            result = self._optimise(kernel, X, yn, start, bounds)
        if result is not None and (np.isfinite(result.fun) or result.nfev == 0):
            theta = result.x
            k_theta, noise = self._split(theta, kernel, None if fit_noise else float(self.noise))
            kernel.theta = k_theta
            if np.any(yn):  # else said by _warn_constant_targets
                _warn_at_bounds(theta, bounds, names)
        else:  # the given hyperparameters, exactly (no round trip through logarithms)
            theta, noise = theta0, float(self.noise)

        chol = jittered_cholesky(_noisy_gram(kernel, X, noise), name="K + noise*I")
        L, self.jitter_ = chol.factor, chol.jitter
        with np.errstate(over="ignore", invalid="ignore"):
            alpha = scipy.linalg.cho_solve((L, True), yn, check_finite=False)
            c = _power_of_two_scale(yn)  # y^T alpha = c (y/c)^T alpha, as in _lml
            lml = -0.5 * c * float((yn / c) @ alpha) - float(np.log(np.diagonal(L)).sum())
        lml -= 0.5 * yn.shape[0] * _LOG_2PI
        if not (np.isfinite(lml) and np.isfinite(alpha).all()):
            raise ValueError(
                f"y is too large for this GP: max |y| = {float(np.max(np.abs(y))):.3g} "
                "against a kernel variance of about "
                f"{float(np.mean(kernel.diag(X))):.3g} at the data (the largest the fit "
                "reached within the bounds), so (K + noise*I)^-1 y or the log marginal "
                "likelihood overflows float64; use normalize_y=True, rescale y, or widen "
                "the kernel's variance bounds"
            )

        self._store_fit(kernel, noise, theta, names, fit_noise, X, y, (mean, std), alpha, result)
        self.L_ = L
        self.log_marginal_likelihood_value_ = lml
        self.cg_result_ = None
        self.n_iter_ = 1  # one direct solve
        self.converged_ = True
        self.n_kernel_passes_ = 0
        self.logdet_standard_error_ = 0.0
        self.love_ = None
        self.probes_ = None
        self.preconditioner_ = None
        self.pretrain_theta_ = None
        return self

    def _store_fit(
        self,
        kernel: Kernel,
        noise: float,
        theta: np.ndarray,
        names: list[str],
        fit_noise: bool,
        X: Any,
        y: np.ndarray,
        scaling: tuple[float, float],
        alpha: np.ndarray,
        result: Any,
    ) -> None:
        """The fitted state both solvers share."""
        self.kernel_ = kernel
        self.noise_ = noise
        self.theta_ = np.asarray(theta, dtype=float).copy()
        self.theta_names_ = names
        self._noise_in_theta = fit_noise
        self.X_train_ = X
        self.y_train_ = y
        self.y_train_mean_, self.y_train_std_ = scaling
        self.alpha_ = alpha
        self.log_prior_value_ = kernel.log_prior()[0]
        self.optimizer_result_ = result

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.requires_fit = False  # before fit, predict and sample_y use the prior
        return tags

    def _profiled_kernel(self, kernel: Kernel) -> Stationary | None:
        """The kernel with unit variance held fixed, if the scale can be profiled out.

        That is the case for a stationary kernel whose ``variance`` and the noise are both
        fitted: ``K_y = variance (K_1 + lambda I)`` with ``lambda = noise / variance``,
        unless the variance has a prior (the other hyperparameters' priors do not depend
        on the scale, so they leave its analytic maximiser as it is).
        """
        if not (self._fit_noise and isinstance(kernel, Stationary)):
            return None
        variance = [hp for hp in kernel.free_hyperparameters if hp.name == "variance"]
        if not variance or variance[0].prior is not None:
            return None
        unit = kernel.clone()
        unit.set_params(variance=1.0, variance_bounds="fixed")
        assert isinstance(unit, Stationary)
        return unit

    def _optimise(
        self, kernel: Kernel, X: Any, y: np.ndarray, theta0: np.ndarray, bounds: np.ndarray
    ) -> scipy.optimize.OptimizeResult:
        """Maximise :func:`_log_posterior` from ``theta0`` (and random restarts).

        Every search is :func:`~kernelkit._lbfgs.minimize_bounded`: L-BFGS-B with a
        finite barrier where ``K + noise I`` cannot be factorised and restarts while the
        projected gradient is large; the result is never worse than ``theta0``, and one
        that is not stationary gives a ``ConvergenceWarning`` saying so.

        One search runs over the ordinary parametrisation ``theta`` from ``theta0`` with
        L-BFGS-B's own first step (scikit-learn's path). When the signal variance and
        the noise are both fitted for a stationary kernel, a second search runs over
        ``[theta without the variance, log(noise / variance)]`` with the variance
        maximised out analytically (the profile likelihood), with a bounded first step;
        the optimum maps back exactly (if it falls outside the variance or noise bounds,
        the ordinary search continues from the clipped point), and the better of the two
        is kept: an ARD likelihood has many local maxima, and the two parametrisations
        lead to different ones. Random restarts (``n_restarts``) run in the profiled
        parametrisation when there is one, with bounded first steps. Targets that are
        identically 0 (constant targets with ``normalize_y``) have no profile likelihood.
        """
        fit_noise = self._fit_noise
        fixed_noise = None if fit_noise else float(self.noise)
        rng = check_random_state(self.random_state)
        unit = self._profiled_kernel(kernel) if np.any(y) else None
        with LapackThreads(size=y.shape[0]) as threads:
            work = kernel.clone()  # theta is set in place on this copy at each evaluation
            priors = work.has_priors

            def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
                k_theta, noise = self._split(theta, work, fixed_noise)
                work.theta = k_theta
                value, grad = _log_posterior(work, X, y, noise, fit_noise, threads, priors=priors)
                return -value, -grad

            # the ordinary parametrisation from the start, with L-BFGS-B's own first step
            # (scikit-learn's path, made safe by the barrier)
            plain = _best_search(objective, [theta0], bounds, bounded_first_step=False)
            random_starts = (
                rng.uniform(bounds[:, 0], bounds[:, 1]) for _ in range(self.n_restarts)
            )
            if unit is None:
                best = plain
                for start in random_starts:
                    best = min(best, _best_search(objective, [start], bounds), key=_value)
            else:
                best = self._optimise_profiled(unit, kernel, X, y, theta0, bounds, rng, threads)
                outside = (best.x < bounds[:, 0]) | (best.x > bounds[:, 1])
                if np.isfinite(best.fun) and np.any(outside):
                    clipped = np.clip(best.x, bounds[:, 0], bounds[:, 1])
                    best = _best_search(objective, [clipped], bounds)
                # an ARD likelihood has many local maxima, and the two parametrisations
                # lead from the same start to different ones, neither's always the
                # better: both searches run, the better is kept (the plain one also
                # guarantees a result no worse than the start)
                best = min(best, plain, key=_value)
            # a signal variance driven to its lower bound explains the data as pure noise:
            # an optimum, or a line search that overshot into the flat tail of the
            # (profile) likelihood; a second search from a variance at the data's scale
            # tells which
            retry = _signal_restart(best.x, theta0, bounds, kernel.theta_names, y)
            if retry is not None:
                again = _best_search(objective, [retry], bounds)
                if again.fun < best.fun:
                    best = again
            if not np.isfinite(best.fun):
                k_theta, noise = self._split(theta0, work, fixed_noise)
                work.theta = k_theta
                why = _why_not_finite(work, X, y, noise, priors)
        if not np.isfinite(best.fun):
            restarts = " and at every restart" if self.n_restarts else ""
            warnings.warn(
                "the log marginal likelihood is not finite at the starting "
                f"hyperparameters{restarts}, so they were kept: {why}",
                ConvergenceWarning,
                stacklevel=3,
            )
        elif not best.success:
            warnings.warn(
                f"the hyperparameter search did not reach a stationary point: {best.message}",
                ConvergenceWarning,
                stacklevel=3,
            )
        return best

    def _optimise_profiled(
        self,
        unit: Stationary,
        kernel: Kernel,
        X: Any,
        y: np.ndarray,
        theta0: np.ndarray,
        bounds: np.ndarray,
        rng: np.random.RandomState,
        threads: LapackThreads,
    ) -> scipy.optimize.OptimizeResult:
        """Profile-likelihood search; the result's ``x`` is the full ``theta``."""
        names = kernel.theta_names
        iv = names.index("variance")  # position of log variance in kernel.theta
        keep = np.array([i for i in range(len(names)) if i != iv], dtype=np.intp)
        log_v_lo, log_v_hi = bounds[iv]
        log_n_lo, log_n_hi = bounds[-1]
        # theta_p = [kernel.theta without log variance, log lambda], lambda = noise / variance
        pbounds = np.vstack([bounds[keep], [log_n_lo - log_v_hi, log_n_hi - log_v_lo]])
        p0 = np.append(theta0[keep], theta0[-1] - theta0[iv])
        p0 = np.clip(p0, pbounds[:, 0], pbounds[:, 1])

        priors = unit.has_priors

        def objective(tp: np.ndarray) -> tuple[float, np.ndarray]:
            unit.theta = tp[:-1]
            value, grad = _log_posterior(
                unit, X, y, math.exp(tp[-1]), True, threads, profile=True, priors=priors
            )
            return -value, -grad

        starts = itertools.chain(
            [p0], (rng.uniform(pbounds[:, 0], pbounds[:, 1]) for _ in range(self.n_restarts))
        )
        best = _best_search(objective, starts, pbounds)
        if not np.isfinite(best.fun):  # nowhere feasible: report the (full) start
            best.x = theta0.copy()
            return best
        # back to the full parametrisation: variance = s*, noise = lambda s*, with
        # s* = y^T (K_1 + lambda I)^-1 y / n computed for y / c (see _lml)
        unit.theta = best.x[:-1]
        lam = math.exp(best.x[-1])
        K = _noisy_gram(unit, X, lam)
        with threads.lapack():
            L = cholesky_or_none(K, overwrite_a=True)
        c = _power_of_two_scale(y)
        s_c = 0.0
        if L is not None:  # it is: the optimum was evaluated on this very matrix
            s_c = float((y / c) @ scipy.linalg.cho_solve((L, True), y / c, check_finite=False))
        if not s_c > 0:
            best.fun, best.x = np.inf, theta0.copy()
            return best
        log_s_star = math.log(s_c / len(y)) + 2.0 * math.log(c)
        full = np.empty(len(names) + 1)
        full[keep] = best.x[:-1]
        full[iv] = log_s_star
        full[-1] = best.x[-1] + log_s_star
        best.x = full
        return best

    # ------------------------------------------------------------------ likelihood
    @overload
    def log_marginal_likelihood(
        self, theta: Any = ..., eval_gradient: Literal[False] = ...
    ) -> float: ...

    @overload
    def log_marginal_likelihood(
        self, theta: Any, eval_gradient: Literal[True]
    ) -> tuple[float, np.ndarray]: ...

    @overload
    def log_marginal_likelihood(
        self, theta: Any = ..., *, eval_gradient: Literal[True]
    ) -> tuple[float, np.ndarray]: ...

    @overload
    def log_marginal_likelihood(
        self, theta: Any = ..., eval_gradient: bool = ...
    ) -> float | tuple[float, np.ndarray]: ...

    def log_marginal_likelihood(
        self, theta: Any = None, eval_gradient: bool = False
    ) -> float | tuple[float, np.ndarray]:
        """Log marginal likelihood of the training data (Algorithm 2 of the assignment).

        The likelihood alone, also for a kernel with priors: the objective of a MAP fit
        adds ``self.kernel_.log_prior(theta[:kernel_.n_dims])``.

        Parameters
        ----------
        theta : array, optional
            Full hyperparameter vector ``[kernel.theta, log noise]``, laid out as
            ``theta_`` (see ``theta_names_``). ``None`` means the fitted ``theta_``.
        eval_gradient : bool, default=False
            Also return the gradient with respect to ``theta``.

        Returns
        -------
        lml : float
            ``-inf`` where ``K + noise I`` is not numerically positive definite. With
            ``solver_ == "cg"``, the stochastic estimate with the fit's probes and
            its preconditioner seed (so at ``theta_`` it is the fit's own value).
        grad : ndarray
            Only when ``eval_gradient``.
        """
        if not hasattr(self, "X_train_"):
            raise ValueError("log_marginal_likelihood needs training data; call fit first")
        if theta is None:
            if not eval_gradient:
                return self.log_marginal_likelihood_value_
            theta = self.theta_
        theta = np.asarray(theta, dtype=float).ravel()
        if theta.shape != self.theta_.shape:
            raise ValueError(
                f"theta has length {theta.shape[0]}, expected {self.theta_.shape[0]} "
                f"({', '.join(self.theta_names_)})"
            )
        kernel = self.kernel_.clone()
        k_theta, noise = self._split(theta, kernel, None if self._noise_in_theta else self.noise_)
        kernel.theta = k_theta
        if self.solver_ == "cg":  # the fit's stochastic estimate, with its probes
            X = self.X_train_
            assert self.probes_ is not None
            with blas_threads_for(len(X)):
                M = fitted_preconditioner(
                    self.preconditioner, kernel, X, noise, self._preconditioner_seed
                )
                est = krylov_likelihood(
                    KernelOperator(kernel, X, noise),
                    self._y_normalised(),
                    self.probes_,
                    M,
                    fit_noise=self._noise_in_theta,
                    eval_gradient=eval_gradient,
                    tol=self.tol,
                    max_iter=self.max_iter,
                )
            return (est.value, est.gradient) if eval_gradient else est.value
        lml, grad = _lml(
            kernel, self.X_train_, self._y_normalised(), noise, self._noise_in_theta, eval_gradient
        )
        return (lml, grad) if eval_gradient else lml

    # ------------------------------------------------------------------ prediction
    def _latent_predictive(
        self, X: Any, what: Spread
    ) -> tuple[np.ndarray, np.ndarray | None, float]:
        """Latent mean and (co)variance at ``X``: the posterior, or the prior before ``fit``."""
        spread = None
        if not hasattr(self, "X_train_"):  # the prior
            self._check_params()
            kernel = self._resolve()
            X = check_prior_input(X, kernel)
            if what == "cov":
                m = n_objects(X)
                check_gram_memory(self, m, m, copies=1, what=f"the prior covariance at {m} points")
                spread = kernel(X)
            elif what == "var":
                spread = kernel.diag(X)
            return np.zeros(n_objects(X)), spread, float(self.noise)
        kernel = self.kernel_
        n_train = n_objects(self.X_train_)
        X = validate_test_input(self, X, kernel, n_train, cross_copies=1 if what == "mean" else 2)
        if what == "cov":
            m = n_objects(X)
            check_gram_memory(self, m, m, copies=1, what=f"predict(return_cov=True) at {m} points")
        if getattr(self, "solver_", "cholesky") == "cg":
            with blas_threads_for(n_train):
                return self._latent_predictive_cg(X, what)
        Ks = kernel(X, self.X_train_)
        mean = Ks @ self.alpha_  # k_*^T alpha
        if what != "mean":
            V = scipy.linalg.solve_triangular(
                self.L_, Ks.T, lower=True, check_finite=False
            )  # v = L \ k_*
            if what == "cov":
                spread = kernel(X)
                spread -= V.T @ V
            else:
                spread = kernel.diag(X) - np.einsum("ij,ij->j", V, V)
        return mean, spread, self.noise_

    def _latent_predictive_cg(
        self, X: np.ndarray, what: Spread
    ) -> tuple[np.ndarray, np.ndarray | None, float]:
        """The posterior at ``X`` for ``solver="cg"``: the mean from ``alpha_``, variances
        from the LOVE cache, by blocks of test points (``O(block n)`` memory)."""
        kernel, Xt, love = self.kernel_, self.X_train_, self.love_
        assert love is not None
        m = len(X)
        # test points per block: the block's rows of K and two (n, rows) products with
        # the cache, a quarter of the vectors the cache holds (at least 16, for BLAS)
        held = love.Q.shape[1] + love.L.shape[1]
        rows = max(1, min(m, max(16, held // 4)))
        mean = np.empty(m)
        var = np.empty(m) if what == "var" else None
        for i in range(0, m, rows):
            si = slice(i, min(i + rows, m))
            Ks = kernel(X[si], Xt)
            mean[si] = Ks @ self.alpha_
            if var is not None:
                var[si] = kernel.diag(X[si]) - love.reduction(Ks)
        if what == "cov":
            Ks = kernel(X, Xt)
            return mean, kernel(X) - love.reduction(Ks, full=True), self.noise_
        return mean, var, self.noise_

    def sample_y(self, X: Any, n_samples: int = 1, random_state: Any = None) -> np.ndarray:
        """Draw functions ``f(X)`` from the posterior (for a GP, the prior before ``fit``).

        With ``solver_ == "cholesky"`` (and before ``fit``), ``mean + L z`` with ``L`` the
        Cholesky factor of the predictive covariance of ``f(X)``, ``z`` standard normal;
        posterior covariances are routinely singular to round-off, so jitter (from
        ``1e-10`` up to ``1e-4`` times the mean prior variance) is added silently when
        needed.

        With ``solver_ == "cg"``, by pathwise conditioning (Wilson et al. 2020,
        "Efficiently sampling functions from Gaussian process posteriors", eq. 6): a prior
        draw ``f`` from 2048 random Fourier features of the kernel
        (:class:`~kernelkit.linalg.RandomFeaturePreconditioner`'s map), moved by
        ``k(X, X_train) K_y^-1 (y - f(X_train) - eps)`` with ``eps ~ N(0, noise I)``: one
        batched CG solve for all samples, no ``m x m`` covariance. The prior part is the
        random-feature approximation of the kernel (RBF and Matérn kernels only).

        Parameters
        ----------
        X : array of shape (m, n_features) or list of objects
            Where to draw.
        n_samples : int, default=1
            How many functions.
        random_state : int, RandomState or None, default=None
            Seeds the draws.

        Returns
        -------
        ndarray of shape (m, n_samples)
            One drawn function per column, on the scale of ``y``.
        """
        if getattr(self, "solver_", "cholesky") != "cg":
            return super().sample_y(X, n_samples, random_state)
        check_int(n_samples, "n_samples", minimum=1)
        kernel, Xt = self.kernel_, self.X_train_
        X = validate_test_input(self, X, kernel, len(Xt), cross_copies=0)
        n, m, s = len(Xt), len(X), int(n_samples)
        check_memory(
            8 * (n + m) * (2048 + 8 * s),
            f"{type(self).__name__}.sample_y({m} points, n_samples={n_samples})",
            "draw fewer samples at a time, or at fewer points",
        )
        rng = check_random_state(random_state)
        with blas_threads_for(n):
            features = RandomFeaturePreconditioner(
                n_components=2048, random_state=int(rng.randint(2**31 - 1))
            ).fit(kernel, Xt, self.noise_)
            W = rng.standard_normal((features.rank_, s))
            prior_train = features.factor_ @ W
            prior_test = np.asarray(features.feature_map_.transform(X), dtype=np.float64) @ W
            eps = math.sqrt(self.noise_) * rng.standard_normal((n, s))
            residual = self._y_normalised()[:, None] - prior_train - eps
            op = KernelOperator(kernel, Xt, self.noise_)
            M = fitted_preconditioner(self.preconditioner, kernel, Xt, self.noise_, rng)
            sol = mbcg(
                op.matmat,
                residual,
                preconditioner=M,
                tol=self.tol,
                max_iter=self.max_iter,
                name="K + noise*I",
            )
            samples = prior_test + op.cross(X, sol.solution)
        return samples * self.y_train_std_ + self.y_train_mean_

    def _prior_variance(self, X: Any) -> np.ndarray:
        """``k(x, x)`` of the (fitted) kernel, on the normalised scale."""
        kernel = self.kernel_ if hasattr(self, "kernel_") else self._resolve()
        return kernel.diag(X)

    def log_predictive_density(self, X: Any, y: Any, *, average: bool = True) -> Any:
        """Log predictive density ``log N(y | mu(x), sigma^2(x) + noise)`` of test data.

        Parameters
        ----------
        X : array of shape (m, d) or list of objects
            Test inputs.
        y : array of shape (m,)
            Test targets.
        average : bool, default=True
            Return the mean over the ``m`` points (a float); otherwise the per-point
            values, an array of shape ``(m,)``.

        Returns
        -------
        float or ndarray of shape (m,)
            The mean log predictive density, or one value per point.
        """
        mean, std = self.predict(X, return_std=True, include_noise=True)
        y = validate_targets(self, y, mean.shape[0], multi_output=False)
        var = std**2
        lpd = -0.5 * (_LOG_2PI + np.log(var) + (y - mean) ** 2 / var)
        return float(lpd.mean()) if average else lpd
