"""Noisy expected improvement of a batch of ``q`` points (qNEI), by quasi-Monte Carlo.

With noisy observations the best value seen so far is itself uncertain. Letham, Karrer,
Ottoni & Bakshy (2019), "Constrained Bayesian optimization with noisy experiments"
(Bayesian Analysis 14(2), without the constraints), therefore take the expectation of
the improvement of a batch ``X = (x_1, ..., x_q)`` over the *baseline* ``B = (b_1, ...,
b_n)`` (the points already evaluated) under the joint posterior of the latent ``g``:

    qNEI(X) = E[ max{0, max_j g(x_j) - max_i g(b_i)} ],

``g = f`` with ``maximize=True`` and ``g = -f`` by default: like
:class:`~kernelkit.optimize.BayesianOptimizer`, low objective values are rewarded unless
``maximize``. (The optimiser's own surrogate ``gp_`` models ``-f`` already, the quantity it
maximises: pass ``maximize=True`` with it.)

**Estimator.** The joint posterior of ``f`` at ``(B, X)`` (latent, no observation noise)
has mean ``mu`` and a covariance with the block Cholesky factor ``[[L_BB, 0], [A, L_C]]``:
``L_BB`` of the baseline (computed once, jittered if needed), ``A = S_XB L_BB^-T`` and
``L_C`` the factor of the conditional covariance ``S_XX - A A^T`` of the batch (a Cholesky
factorisation that gives a zero column to a point whose conditional variance vanishes,
such as a repeated point). With ``N`` fixed standard normal vectors ``z_s`` the estimate
is the sample average of the improvement of the samples ``g_s = sign * mu + L z_s`` (the
sign on the mean only: a GP of ``-f`` with ``maximize=True`` then gives exactly the
samples of a GP of ``f`` without). The normals are ``scipy.stats.norm.ppf`` of a scrambled
Sobol sequence (:class:`scipy.stats.qmc.Sobol`, randomised by Matoušek's linear matrix
scrambling with a digital shift, one dimension at a time, seeded from ``random_state``),
drawn once per acquisition object: the estimate is a deterministic, piecewise smooth
function of ``X`` ("common random numbers", the sample average approximation of Balandat
et al. 2020, "BoTorch: a framework for efficient Monte-Carlo Bayesian optimization",
NeurIPS), which an optimiser can maximise. The normal of each dimension depends on that
dimension alone, so the samples of ``x_1, ..., x_q`` do not change when a point
``x_{q+1}`` is appended: with the same object, adding a point never lowers the estimate.
Reordering the batch changes the estimate only within its QMC error.

**Log and smoothing.** The estimate is exactly 0 wherever no sample improves, which
leaves an optimiser without a slope. ``log=True`` gives qLogNEI (Ament, Daulton, Eriksson,
Balandat & Bakshy 2023, "Unexpected improvements to expected improvement for Bayesian
optimization", NeurIPS, on qLogEI): the max over the batch is smoothed by a log-sum-exp at
temperature ``tau_max``, the positive part by a fat-tailed softplus at temperature
``tau_relu``, and the average is taken in log space:

    u_s        = tau_max log sum_j exp(d_sj / tau_max),   d_sj = g_s(x_j) - max_i g_s(b_i)
    qLogNEI(X) = log( (1/N) sum_s tau_relu phi(u_s / tau_relu) ) + log s_y,
    phi(z)     = log(1 + e^z) + alpha / (1 + z^2),        alpha = 0.1

(``s_y`` the GP's target scale, ``y_train_std_``; the temperatures are in units of the
standardised targets, the defaults ``tau_max = 1e-2`` and ``tau_relu = 1e-6`` those of
BoTorch's ``qLogNoisyExpectedImprovement``). ``phi`` is increasing, convex and
1-Lipschitz with ``0 < phi(z) - max(0, z) <= log 2 + alpha``, and ``u_s`` exceeds
``max_j d_sj`` by at most ``tau_max log q``; so, with the same samples,

    0 < exp(qLogNEI) - qNEI <= s_y (tau_relu (log 2 + alpha) + tau_max log q),

and qLogNEI tends to ``log qNEI`` as the temperatures go to 0. It is finite for every
finite posterior: far below the incumbent ``log phi(z) ~ log alpha - 2 log|z|`` decays
only logarithmically (the fat tail), where ``log(1 + e^z) ~ z`` alone would fall off
linearly with slope ``1 / tau_relu``.

**Pruning.** With ``prune_baseline`` (the default) only the baseline points that are the
best (largest ``g``) in at least one of the ``N`` posterior samples at the baseline are
kept (the idea of BoTorch's ``prune_inferior_points``): the others were the best in none
of the samples, an estimated probability below ``1/N``, and leaving them out raises the
estimate only by what they would add in such rare draws. It makes a long, noisy history
cheap; ``prune_baseline=False`` keeps every point (the estimator as written above).

**Greedy batches.** :func:`suggest_noisy_batch` chooses ``x_1`` maximising qNEI with
``q = 1`` over the caller's candidates, then ``x_2`` maximising qNEI of ``{x_1, x_2}``
with ``x_1`` fixed, and so on (Wilson, Hutter & Deisenroth 2018, "Maximizing acquisition
functions for Bayesian optimization", NeurIPS: with fixed samples the estimate of
qEI, and so of qNEI, is a monotone submodular function of the set of points, and greedy
selection over the candidates reaches at least ``1 - 1/e`` of the best batch's value,
Nemhauser, Wolsey & Fisher 1978; the smoothed log is maximised greedily the same way,
without that guarantee).

Costs: ``O(n_train^2 n + n^3 + N n^2)`` once per object, then
``O(q (n_train^2 + n_train n + n^2) + N q (n + q))`` per batch, vectorised over batches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
import scipy.optimize
from scipy import special, stats
from scipy.stats import qmc
from threadpoolctl import threadpool_limits

from kernelkit._memory import check_memory
from kernelkit._validation import (
    check_array,
    check_bool,
    check_int,
    check_positive_scalar,
    check_random_state,
)
from kernelkit.linalg.cholesky import jittered_cholesky
from kernelkit.optimize.search import _DUPLICATE, _SOBOL_MAX_DIMS, _distinct_best, _near_rows
from kernelkit.optimize.surrogate import _check_fitted

__all__ = [
    "NoisyBatch",
    "QNoisyExpectedImprovement",
    "TAU_MAX",
    "TAU_RELU",
    "q_noisy_expected_improvement",
    "suggest_noisy_batch",
]

#: Default temperature of the smooth max over the batch (standardised units).
TAU_MAX = 1e-2
#: Default temperature of the smooth positive part (standardised units).
TAU_RELU = 1e-6
#: Weight of the Cauchy-like tail of the fat-tailed softplus (keeps it monotone and convex).
_ALPHA = 0.1
#: Binary digits of the Sobol points (SciPy's default).
_BITS = 30
#: A conditional variance below this fraction of the prior variance is treated as 0.
_ZERO_PIVOT = 1e-12
#: Floats in one block of samples ``(n_samples, batches, q)``, and most points per block.
_BLOCK_FLOATS = 2**21
_BLOCK_POINTS = 1024


# ------------------------------------------------------------------ base samples
def _scrambled_digits(ints: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Matoušek's linear matrix scramble and a digital shift of one Sobol coordinate.

    ``ints`` holds the ``_BITS``-digit integers of the points; digit ``i`` (the most
    significant first) becomes ``sum_{k <= i} M_ik b_k + e_i (mod 2)`` with ``M`` random
    lower triangular with unit diagonal and ``e`` random (Matoušek 1998, "On the
    L2-discrepancy for anchored boxes"; what SciPy's ``scramble=True`` does to all
    dimensions at once).
    """
    M = np.tril(rng.integers(0, 2, size=(_BITS, _BITS)), -1) + np.eye(_BITS, dtype=np.int64)
    shift = int(rng.integers(0, 2**_BITS))
    place = np.arange(_BITS - 1, -1, -1)
    digits = (ints[:, None] >> place) & 1
    scrambled = (digits @ M.T) % 2
    return (scrambled @ (np.int64(1) << place)) ^ shift


class _SobolNormals:
    """Standard normal QMC samples, ``(n_samples, n_dims)``, grown a dimension at a time.

    Column ``j`` depends only on the seed and ``j``: the first columns never change when
    more are asked for.
    """

    def __init__(self, n_samples: int, seed: int):
        self.n_samples = n_samples
        self.seed = seed
        self._Z = np.empty((n_samples, 0))

    def first(self, n_dims: int) -> np.ndarray:
        have = self._Z.shape[1]
        if n_dims > have:
            m = max(1, math.ceil(math.log2(self.n_samples)))
            points = qmc.Sobol(n_dims, scramble=False, bits=_BITS).random_base2(m)
            ints = np.round(points[: self.n_samples, have:] * 2.0**_BITS).astype(np.int64)
            new = np.empty((self.n_samples, n_dims - have))
            for k in range(n_dims - have):
                rng = np.random.default_rng([self.seed, have + k])
                u = (_scrambled_digits(ints[:, k], rng) + 0.5) / 2.0**_BITS
                new[:, k] = stats.norm.ppf(u)
            self._Z = np.hstack([self._Z, new])
        return self._Z[:, :n_dims]


# ------------------------------------------------------------------ numerics
def _semidefinite_cholesky(C: np.ndarray, tol: float) -> np.ndarray:
    """Lower factors ``L`` of a stack ``(m, q, q)`` of PSD matrices, ``L L^T = C``.

    Column by column, vectorised over the stack; a pivot ``<= tol`` (a point determined
    by the earlier ones, to round-off) gets a zero column instead of a failure.
    """
    q = C.shape[1]
    L = np.zeros_like(C)
    for j in range(q):
        pivot = C[:, j, j] - np.einsum("mk,mk->m", L[:, j, :j], L[:, j, :j])
        ok = pivot > tol
        root = np.sqrt(np.where(ok, pivot, 1.0))
        L[:, j, j] = np.where(ok, root, 0.0)
        if j + 1 < q:
            below = C[:, j + 1 :, j] - np.einsum("mik,mk->mi", L[:, j + 1 :, :j], L[:, j, :j])
            L[:, j + 1 :, j] = np.where(ok[:, None], below / root[:, None], 0.0)
    return L


def _log_fatplus(z: np.ndarray) -> np.ndarray:
    """``log(log(1 + e^z) + alpha / (1 + z^2))`` for any finite ``z``, without overflow."""
    log_soft = np.empty_like(z)
    low = z < -30.0  # log(1 + e^z) = e^z (1 + O(e^z)): its log is z to double precision
    log_soft[low] = z[low]
    log_soft[~low] = np.log(np.logaddexp(0.0, z[~low]))
    big = np.abs(z) > 1e8  # log1p(z^2) = 2 log|z| to double precision, z^2 may overflow
    log_tail = np.empty_like(z)
    log_tail[big] = -2.0 * np.log(np.abs(z[big]))
    log_tail[~big] = -np.log1p(z[~big] ** 2)
    return np.logaddexp(log_soft, math.log(_ALPHA) + log_tail)


def _check_gp(gp: Any, caller: str) -> None:
    """A fitted GP on vectors with a Cholesky factor, or a clear error naming ``gp``."""
    if hasattr(gp, "X_train_") and getattr(gp, "solver_", "cholesky") != "cholesky":
        raise ValueError(
            f"{caller} needs gp fitted with solver='cholesky' (it uses the factor L_); this "
            f"gp was fitted with solver={gp.solver_!r}"
        )
    _check_fitted(gp, caller)
    Xt = gp.X_train_
    if not (isinstance(Xt, np.ndarray) and Xt.ndim == 2):
        raise TypeError(f"{caller} needs gp fitted on vectors (an (n, d) array X)")


@dataclass(frozen=True)
class _Baseline:
    X: np.ndarray  # (n, d) the kept baseline points
    V: np.ndarray  # (n_train, n) L^-1 k(X_train, B)
    L: np.ndarray  # (n, n) factor of the posterior covariance at B
    best: np.ndarray  # (n_samples,) max_i g_s(b_i)
    samples: np.ndarray  # (n_samples, n) g_s(b_i)


# ------------------------------------------------------------------ the acquisition
class QNoisyExpectedImprovement:
    """Noisy expected improvement of batches of points (qNEI, qLogNEI), by quasi-Monte Carlo.

    ``E[max{0, max_j g(x_j) - max_i g(b_i)}]`` under the joint posterior of the latent
    ``g`` at the batch and the baseline (Letham et al. 2019), ``g = -f`` (minimising) by
    default; see :mod:`kernelkit.optimize.noisy_ei` for the estimator and the smoothing.
    The GP's state is read once, here: build a new object after refitting it.

    Parameters
    ----------
    gp : GaussianProcessRegressor
        A regressor fitted on vectors with ``solver="cholesky"`` (the default for up to
        10 000 points).
    X_baseline : array-like of shape (n, d), optional
        The points already evaluated, whose best is to be improved upon; the training
        inputs ``gp.X_train_`` by default.
    n_samples : int, default=256
        Quasi-Monte Carlo samples ``N`` (a power of two keeps the Sobol points balanced).
    log : bool, default=False
        Return qLogNEI, the log of the smoothed qNEI (finite where qNEI underflows to 0).
    tau_max : float, default=1e-2
        Temperature of the smooth max over the batch (``log=True`` only), in units of the
        standardised targets.
    tau_relu : float, default=1e-6
        Temperature of the smooth positive part (``log=True`` only), same units.
    prune_baseline : bool, default=True
        Keep only the baseline points that are the best in at least one posterior sample.
    maximize : bool, default=False
        Reward high values of ``f`` (``g = f``) instead of low ones (``g = -f``).
    random_state : int, RandomState or None, default=None
        Seeds the scrambling of the Sobol points, drawn once: the same seed gives the
        same values.

    Attributes
    ----------
    baseline_index_ : ndarray of int
        The rows of ``X_baseline`` kept (all of them without pruning).
    n_features_in_ : int
        The input dimension ``d``.

    See Also
    --------
    q_noisy_expected_improvement : The same value in one call.
    suggest_noisy_batch : Greedy batch selection by this acquisition.
    kernelkit.optimize.ExpectedImprovement : The analytic EI, equal for ``q = 1`` and no
        noise.

    Notes
    -----
    Letham, Karrer, Ottoni & Bakshy (2019), Bayesian Analysis 14(2), 495-519;
    Ament, Daulton, Eriksson, Balandat & Bakshy (2023), NeurIPS 36.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Matern
    >>> from kernelkit.models import GaussianProcessRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(size=(10, 2))
    >>> y = np.sum((X - 0.3) ** 2, axis=1) + 0.05 * rng.randn(10)
    >>> gp = GaussianProcessRegressor(
    ...     Matern(lengthscale=0.5), noise=0.05**2, noise_bounds="fixed", optimizer=None
    ... ).fit(X, y)
    >>> acq = QNoisyExpectedImprovement(gp, random_state=0)
    >>> near, far = acq([[0.3, 0.3], [0.35, 0.3]]), acq([[0.9, 0.9], [1.0, 1.0]])
    >>> bool(near > far >= 0.0)
    True
    >>> acq(np.zeros((5, 2, 2))).shape  # five batches of two points at once
    (5,)
    """

    def __init__(
        self,
        gp: Any,
        X_baseline: Any = None,
        *,
        n_samples: int = 256,
        log: bool = False,
        tau_max: float = TAU_MAX,
        tau_relu: float = TAU_RELU,
        prune_baseline: bool = True,
        maximize: bool = False,
        random_state: Any = None,
    ):
        _check_gp(gp, type(self).__name__)
        self.gp = gp
        self.n_features_in_ = d = int(gp.X_train_.shape[1])
        if X_baseline is None:
            X_baseline = gp.X_train_
        self.X_baseline = check_array(X_baseline, "X_baseline", dtype=np.float64, n_features=d)
        self.n_samples = check_int(n_samples, "n_samples", minimum=1)
        self.log = check_bool(log, "log")
        self.tau_max = check_positive_scalar(tau_max, "tau_max")
        self.tau_relu = check_positive_scalar(tau_relu, "tau_relu")
        self.prune_baseline = check_bool(prune_baseline, "prune_baseline")
        self.maximize = check_bool(maximize, "maximize")
        self.random_state = random_state
        n = self.X_baseline.shape[0]
        if n >= _SOBOL_MAX_DIMS:
            raise ValueError(
                f"X_baseline has {n} points; the Sobol points cover at most "
                f"{_SOBOL_MAX_DIMS} dimensions, one per baseline and batch point"
            )
        check_memory(
            8 * self.n_samples * (3 * n + 64) + 8 * n * (n + gp.X_train_.shape[0]),
            f"{type(self).__name__}(n_samples={self.n_samples}) with {n} baseline points",
            "lower n_samples or pass fewer baseline points",
        )
        # the GP's state now (a refit replaces these attributes, not their contents)
        self._kernel, self._Xt, self._L = gp.kernel_, gp.X_train_, gp.L_
        self._alpha, self._scale = gp.alpha_, float(gp.y_train_std_)
        self._sign = 1.0 if self.maximize else -1.0
        self._tol = _ZERO_PIVOT * float(np.mean(self._kernel.diag(self._Xt)))
        seed = int(check_random_state(random_state).randint(2**31 - 1))
        self._normals = _SobolNormals(self.n_samples, seed)
        self._base = self._baseline(self.X_baseline)
        index = np.arange(n)
        if self.prune_baseline and n > 1:
            index = np.unique(np.argmax(self._base.samples, axis=1))
            if index.size < n:
                self._base = self._baseline(self.X_baseline[index])
        self.baseline_index_ = index

    def _posterior(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Normalised posterior mean at ``X`` and ``V = L^-1 k(X_train, X)``."""
        Ks = self._kernel(X, self._Xt)
        V = scipy.linalg.solve_triangular(self._L, Ks.T, lower=True, check_finite=False)
        return Ks @ self._alpha, V

    def _baseline(self, B: np.ndarray) -> _Baseline:
        mean, V = self._posterior(B)
        S = self._kernel(B) - V.T @ V
        scale = float(np.mean(self._kernel.diag(B)))
        L = jittered_cholesky(
            0.5 * (S + S.T),
            name="the posterior covariance at X_baseline",
            warn=False,
            jitter_scale=scale if scale > 0 else None,
        ).factor
        Z = self._normals.first(B.shape[0])
        samples = self._sign * mean + Z @ L.T  # see _values for the sign
        return _Baseline(B, V, L, samples.max(axis=1), samples)

    def _check_batch(self, X_batch: Any) -> tuple[np.ndarray, bool]:
        """``X_batch`` as ``(m, q, d)`` and whether it was one batch ``(q, d)``."""
        X = check_array(X_batch, "X_batch", ndim=None, dtype=np.float64, allow_empty=True)
        d = self.n_features_in_
        if X.ndim not in (2, 3) or X.shape[-1] != d:
            raise ValueError(
                f"X_batch must have shape (q, {d}) (one batch of q points) or (m, q, {d}) "
                f"(m batches), with the GP's {d} features; got shape {X.shape}"
            )
        if X.shape[-2] < 1:
            raise ValueError(f"X_batch must hold q >= 1 points per batch, got shape {X.shape}")
        n = self._base.X.shape[0]
        if n + X.shape[-2] > _SOBOL_MAX_DIMS:
            raise ValueError(
                f"{n} baseline points and q = {X.shape[-2]} batch points need "
                f"{n + X.shape[-2]} Sobol dimensions, more than the {_SOBOL_MAX_DIMS} SciPy "
                "covers; prune the baseline or use smaller batches"
            )
        return (X[None], True) if X.ndim == 2 else (X, False)

    def __call__(self, X_batch: Any) -> Any:
        """The acquisition of one batch ``(q, d)`` (a float) or of ``m`` batches
        ``(m, q, d)`` (an array ``(m,)``), on the scale of ``y`` (log scale with
        ``log``)."""
        X, single = self._check_batch(X_batch)
        m, q, _ = X.shape
        Z = self._normals.first(self._base.X.shape[0] + q)
        block = max(1, min(_BLOCK_FLOATS // (self.n_samples * q), _BLOCK_POINTS // q))
        out = np.empty(m)
        for start in range(0, m, block):
            out[start : start + block] = self._values(X[start : start + block], Z)
        return float(out[0]) if single else out

    def _values(self, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
        m, q, d = X.shape
        base = self._base
        n = base.X.shape[0]
        Xf = X.reshape(m * q, d)
        mean, V = self._posterior(Xf)
        S_xb = self._kernel(Xf, base.X) - V.T @ base.V  # (mq, n)
        A = scipy.linalg.solve_triangular(base.L, S_xb.T, lower=True, check_finite=False).T
        rows = np.arange(m)
        K = self._kernel(Xf).reshape(m, q, m, q)[rows, :, rows, :]  # k within each batch
        Vr, Ar = V.T.reshape(m, q, -1), A.reshape(m, q, n)
        C = K - Vr @ Vr.transpose(0, 2, 1) - Ar @ Ar.transpose(0, 2, 1)
        L_C = _semidefinite_cholesky(C, self._tol)
        Zb, Zx = Z[:, :n], Z[:, n:]
        # g = sign f: the sign goes on the mean only (z and -z are equally likely), so a GP
        # of -f with maximize=True gives the very samples of a GP of f without it
        g = self._sign * mean.reshape(m, q) + (Zb @ A.T).reshape(-1, m, q)
        g += np.einsum("sj,mij->smi", Zx, L_C)
        margin = g - base.best[:, None, None]  # (n_samples, m, q)
        if not self.log:
            improvement = np.maximum(margin.max(axis=2), 0.0)
            return self._scale * improvement.mean(axis=0)
        u = self.tau_max * special.logsumexp(margin / self.tau_max, axis=2)
        log_improvement = math.log(self.tau_relu) + _log_fatplus(u / self.tau_relu)
        log_mean = special.logsumexp(log_improvement, axis=0) - math.log(self.n_samples)
        return np.asarray(log_mean + math.log(self._scale))

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(n_samples={self.n_samples}, log={self.log}, "
            f"maximize={self.maximize}, n_baseline={self._base.X.shape[0]})"
        )


def q_noisy_expected_improvement(
    gp: Any,
    X_batch: Any,
    X_baseline: Any = None,
    *,
    n_samples: int = 256,
    log: bool = False,
    tau_max: float = TAU_MAX,
    tau_relu: float = TAU_RELU,
    prune_baseline: bool = True,
    maximize: bool = False,
    random_state: Any = None,
) -> Any:
    """Noisy expected improvement (qNEI, or qLogNEI) of a batch, or of several, in one call.

    ``QNoisyExpectedImprovement(gp, X_baseline, ...)(X_batch)``; build the object once
    to score many batches with the same samples.

    Parameters
    ----------
    gp : GaussianProcessRegressor
        A regressor fitted on vectors with ``solver="cholesky"``.
    X_batch : array-like of shape (q, d) or (m, q, d)
        One batch of ``q >= 1`` points, or ``m`` batches.
    X_baseline : array-like of shape (n, d), optional
        The points already evaluated; ``gp.X_train_`` by default.
    n_samples : int, default=256
        Quasi-Monte Carlo samples.
    log : bool, default=False
        Return qLogNEI instead (see :mod:`kernelkit.optimize.noisy_ei`).
    tau_max : float, default=1e-2
        Temperature of the smooth max over the batch (``log`` only).
    tau_relu : float, default=1e-6
        Temperature of the smooth positive part (``log`` only).
    prune_baseline : bool, default=True
        Drop baseline points that are the best in none of the posterior samples.
    maximize : bool, default=False
        Reward high values of ``f`` instead of low ones.
    random_state : int, RandomState or None, default=None
        Seeds the scrambled Sobol points.

    Returns
    -------
    float or ndarray of shape (m,)
        The estimate of qNEI on the scale of ``y`` (its log with ``log``), one value per
        batch.

    Raises
    ------
    ValueError
        ``gp`` not fitted (``NotFittedError``), ``X_batch`` or ``X_baseline`` of the wrong
        shape or not finite, a batch of no points, a parameter out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.models import GaussianProcessRegressor
    >>> X = np.array([[0.1], [0.4], [0.7]])
    >>> gp = GaussianProcessRegressor(RBF(lengthscale=0.3), noise=1e-10, optimizer=None)
    >>> gp = gp.fit(X, [1.0, 0.0, 1.0])
    >>> value = q_noisy_expected_improvement(gp, [[0.45], [0.9]], random_state=0)
    >>> bool(value > 0.0)
    True
    """
    acq = QNoisyExpectedImprovement(
        gp,
        X_baseline,
        n_samples=n_samples,
        log=log,
        tau_max=tau_max,
        tau_relu=tau_relu,
        prune_baseline=prune_baseline,
        maximize=maximize,
        random_state=random_state,
    )
    return acq(X_batch)


# ------------------------------------------------------------------ greedy batches
@dataclass(frozen=True)
class NoisyBatch:
    """A batch chosen greedily by qNEI, as :func:`suggest_noisy_batch` returns it.

    Attributes
    ----------
    X : ndarray of shape (batch_size, d)
        The points, in the unit cube, in the order chosen; no two the same.
    values : ndarray of shape (batch_size,)
        ``values[k]``: the acquisition (qNEI, or qLogNEI with ``log``) of the first
        ``k + 1`` points, non-decreasing.
    candidate_index : ndarray of int, shape (batch_size,)
        The candidate each point is, or (``refined``) the one its local search started
        from.
    refined : ndarray of bool, shape (batch_size,)
        Whether the local search moved the point off the candidates.
    log : bool
        Whether ``values`` are qLogNEI.
    """

    X: np.ndarray
    values: np.ndarray
    candidate_index: np.ndarray
    refined: np.ndarray
    log: bool


def suggest_noisy_batch(
    gp: Any,
    candidates: Any,
    batch_size: int,
    *,
    X_baseline: Any = None,
    n_samples: int = 256,
    log: bool = True,
    n_starts: int = 2,
    max_iter: int = 50,
    tau_max: float = TAU_MAX,
    tau_relu: float = TAU_RELU,
    prune_baseline: bool = True,
    maximize: bool = False,
    random_state: Any = None,
) -> NoisyBatch:
    """``batch_size`` points chosen one at a time, each maximising qNEI with the earlier
    ones fixed (sequential greedy, Wilson et al. 2018).

    Step ``k`` scores every candidate ``c`` by the acquisition of the batch
    ``(x_1, ..., x_{k-1}, c)``, all with the same quasi-Monte Carlo samples, keeps the
    best candidate not already chosen, and, with ``n_starts``, runs L-BFGS-B
    (finite-difference gradients, bounded to the unit cube) from the best few, keeping a
    local optimum that beats the candidate and repeats no chosen point.

    Parameters
    ----------
    gp : GaussianProcessRegressor
        A regressor fitted on vectors in the unit cube (as
        :class:`~kernelkit.optimize.BayesianOptimizer`'s surrogate), ``solver="cholesky"``.
    candidates : array-like of shape (m, d)
        Points of the unit cube ``[0, 1]^d`` to choose from (a Sobol set, say).
    batch_size : int
        Points to choose, ``q >= 1``; ``candidates`` must hold that many distinct points.
    X_baseline : array-like of shape (n, d), optional
        The points already evaluated; ``gp.X_train_`` by default.
    n_samples : int, default=256
        Quasi-Monte Carlo samples.
    log : bool, default=True
        Maximise qLogNEI (the same maximiser up to the smoothing, with a slope where qNEI
        is 0) instead of qNEI.
    n_starts : int, default=2
        Local searches per step, from the best distinct candidates (0: none).
    max_iter : int, default=50
        Iteration limit of each local search.
    tau_max : float, default=1e-2
        Temperature of the smooth max over the batch (``log`` only).
    tau_relu : float, default=1e-6
        Temperature of the smooth positive part (``log`` only).
    prune_baseline : bool, default=True
        Drop baseline points that are the best in none of the posterior samples.
    maximize : bool, default=False
        Reward high values of ``f`` instead of low ones.
    random_state : int, RandomState or None, default=None
        Seeds the scrambled Sobol points: the same seed gives the same batch.

    Returns
    -------
    NoisyBatch
        The points, the acquisition after each step and where each point came from.

    Raises
    ------
    ValueError
        ``batch_size < 1``; ``candidates`` of the wrong width, not finite, outside the
        unit cube, or with fewer than ``batch_size`` distinct points; and the errors of
        :class:`QNoisyExpectedImprovement`.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Matern
    >>> from kernelkit.models import GaussianProcessRegressor
    >>> from kernelkit.optimize import sobol_points
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(size=(8, 2))
    >>> y = np.sum((X - 0.3) ** 2, axis=1) + 0.01 * rng.randn(8)
    >>> gp = GaussianProcessRegressor(
    ...     Matern(lengthscale=0.4), noise=1e-4, noise_bounds="fixed", optimizer=None
    ... ).fit(X, y)
    >>> batch = suggest_noisy_batch(gp, sobol_points(64, 2, 0), 3, n_starts=0, random_state=0)
    >>> batch.X.shape, bool(np.all(np.diff(batch.values) >= 0))
    ((3, 2), True)
    """
    acq = QNoisyExpectedImprovement(
        gp,
        X_baseline,
        n_samples=n_samples,
        log=log,
        tau_max=tau_max,
        tau_relu=tau_relu,
        prune_baseline=prune_baseline,
        maximize=maximize,
        random_state=random_state,
    )
    d = acq.n_features_in_
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    n_starts = check_int(n_starts, "n_starts", minimum=0)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    C = check_array(candidates, "candidates", dtype=np.float64, n_features=d)
    if np.any(C < 0.0) or np.any(C > 1.0):
        raise ValueError(
            "candidates must lie in the unit cube [0, 1]^d (scale them as "
            f"BayesianOptimizer does); got values in [{C.min():g}, {C.max():g}]"
        )
    n_distinct = np.unique(C, axis=0).shape[0]
    if n_distinct < batch_size:
        raise ValueError(
            f"candidates has {n_distinct} distinct points, fewer than batch_size={batch_size}"
        )
    m = C.shape[0]
    chosen = np.empty((0, d))
    values: list[float] = []
    index: list[int] = []
    refined: list[bool] = []
    bounds = [(0.0, 1.0)] * d
    # small matrices: multi-threaded BLAS only adds latency (see BayesianOptimizer)
    with threadpool_limits(limits=1, user_api="blas"):
        for k in range(batch_size):
            free = ~_near_rows(C, chosen)
            if not free.any():
                raise ValueError(
                    f"candidates has no point left that differs (by more than {_DUPLICATE:g}) "
                    f"from the {k} chosen; give at least batch_size={batch_size} distinct ones"
                )
            batches = np.concatenate([np.broadcast_to(chosen, (m, k, d)), C[:, None, :]], axis=1)
            scores = np.where(free, acq(batches), -np.inf)
            i = int(np.argmax(scores))
            x, best, moved = C[i], float(scores[i]), False
            fixed = chosen

            def negative(u: np.ndarray, fixed: np.ndarray = fixed) -> float:
                return -float(acq(np.vstack([fixed, u])))

            starts = _distinct_best(C, scores, n_starts) if n_starts else np.empty(0, int)
            for start in starts:
                res = scipy.optimize.minimize(
                    negative,
                    C[start],
                    method="L-BFGS-B",
                    bounds=bounds,
                    options={"maxiter": max_iter},
                )
                u = np.clip(res.x, 0.0, 1.0)
                value = -negative(u)
                if value > best and not _near_rows(u[None], chosen)[0]:
                    x, best, i, moved = u, value, int(start), True
            chosen = np.vstack([chosen, x])
            values.append(best)
            index.append(i)
            refined.append(moved)
    return NoisyBatch(
        X=chosen,
        values=np.asarray(values),
        candidate_index=np.asarray(index, dtype=int),
        refined=np.asarray(refined, dtype=bool),
        log=acq.log,
    )
