"""The matrix-free side of :class:`~kernelkit.models.GaussianProcessRegressor`
(``solver="cg"``): the stochastic log marginal likelihood and its gradient from one batched
CG solve, and the Lanczos (LOVE) cache of predictive variances.

With ``K_y = K + noise I``, preconditioner ``M`` and fixed Rademacher vectors ``w_i``
(probes ``z_i = M^1/2 w_i``, so ``E[z z^T] = M``), one mBCG solve of ``K_y [a, u_1..u_t] =
[y, z_1..z_t]`` gives (Gardner et al. (2018) eqs. 5-6):

* ``log det K_y ~ log det M + mean_i z_i^T M^-1 z_i e_1^T log(T_i) e_1`` (stochastic Lanczos
  quadrature from the CG tridiagonals ``T_i``);
* ``y^T K_y^-1 y = y^T a``;
* ``tr(K_y^-1 dK) ~ mean_i u_i^T dK M^-1 z_i`` (Hutchinson: ``E[M^-1 z z^T K_y^-1] =
  K_y^-1``), so that the gradient of the log likelihood is
  ``sum_ij W_ij dK_ij`` with ``W = 1/2 a a^T - 1/(2t) sum_i u_i (M^-1 z_i)^T``, one pass over
  the blocks of ``K`` (:meth:`~kernelkit.linalg.KernelOperator.gradient_dot`).

The probes are drawn once per fit, so the objective is a deterministic function of the
hyperparameters (common random numbers) that L-BFGS-B can search.

LOVE (Pleiss et al. 2018): Lanczos steps on the preconditioned ``M^-1/2 K_y M^-1/2 ~
Q T Q^T``, plus ``c`` times the identity on the complement of ``Q`` (``c = 1`` where a good
preconditioner leaves the spectrum near 1, ``0`` in Pleiss et al.'s Galerkin bound; here
``c`` is fitted to reference variances), give ``K_y^-1 ~ M^-1/2 (Q T^-1 Q^T + c (I - Q
Q^T)) M^-1/2``, so a predictive
variance ``k_** - k_*^T K_y^-1 k_*`` costs ``O(n (k + rank M))`` per test point (``k`` the
columns of ``Q``): about what its mean costs. Pleiss et al. start from the mean's solve
vector; here the start is a block of it and 31 rows of ``K`` (block Lanczos): each step
is one pass over ``K`` whatever its width, and the rows of ``K`` are the directions a test
point's ``k_*`` takes, so the variances converge in several times fewer passes.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from kernelkit.kernels import Kernel
from kernelkit.kernels.blockwise import add_scaled
from kernelkit.linalg.krylov import CGResult, lanczos, lanczos_quadrature, mbcg
from kernelkit.linalg.operator import KernelOperator
from kernelkit.linalg.preconditioners import (
    Nystrom,
    PivotedCholesky,
    Preconditioner,
    RandomFeaturePreconditioner,
)

_LOG_2PI = math.log(2.0 * math.pi)

#: Names of the preconditioners ``GaussianProcessRegressor(preconditioner=...)`` takes.
PRECONDITIONERS = ("auto", "pivoted_cholesky", "nystrom", "random_features")


@dataclass(frozen=True)
class Spectrum:
    """``M = L L^T + noise I`` (``L``, ``(n, r)``, the preconditioner's own factor, not
    copied) through the eigendecomposition ``L^T L = V diag(lam) V^T``: with ``U = L V
    diag(lam)^-1/2`` orthonormal, ``M^p = U diag((lam + noise)^p - noise^p) U^T + noise^p
    I = L W_p L^T + noise^p I`` with the ``r x r`` ``W_p = V diag(((lam + noise)^p -
    noise^p) / lam) V^T``, so no ``(n, r)`` array besides ``L`` is ever formed."""

    L: np.ndarray
    V: np.ndarray
    lam: np.ndarray
    noise: float

    @classmethod
    def of(cls, M: Preconditioner | None, n: int, noise: float) -> Spectrum:
        """The spectrum of ``M`` from the ``r x r`` eigendecomposition of ``L^T L`` (``O(n
        r^2)``; directions with eigenvalues at round-off are dropped: they change ``M``
        by less than its noise's round-off)."""
        if M is None or M.rank_ == 0:
            return cls(np.zeros((n, 0)), np.zeros((0, 0)), np.zeros(0), noise)
        L = M.factor_
        lam, V = scipy.linalg.eigh(L.T @ L, check_finite=False)
        keep = lam > 1e-12 * max(float(lam[-1]), M.noise_)
        return cls(L, V[:, keep], lam[keep], float(M.noise_))

    def middle(self, p: float) -> np.ndarray:
        """``W_p`` (``r x r``): ``M^p = L W_p L^T + noise^p I``. The differences
        ``(lam + noise)^p - noise^p`` are taken as ``noise^p expm1(p log1p(lam /
        noise))``, exact where ``lam`` is far below the noise."""
        dp = self.noise**p * np.expm1(p * np.log1p(self.lam / self.noise))
        return (self.V * (dp / self.lam)) @ self.V.T

    def power(self, V: np.ndarray, p: float) -> np.ndarray:
        """``M^p V`` (``p = 1/2`` or ``-1/2``)."""
        out = self.noise**p * V
        if self.lam.size:
            out += self.L @ (self.middle(p) @ (self.L.T @ V))
        return out

    def sqrt_matmat(self, V: np.ndarray) -> np.ndarray:
        """``M^1/2 V``."""
        return self.power(V, 0.5)


def make_preconditioner(spec: Any, random_state: Any) -> Preconditioner | None:
    """An unfitted preconditioner for ``spec`` (a name other than ``"auto"``, ``None`` or
    an instance, cloned)."""
    if spec is None:
        return None
    if isinstance(spec, Preconditioner):
        from sklearn.base import clone

        return clone(spec)  # type: ignore[no-any-return]
    if spec == "pivoted_cholesky":
        return PivotedCholesky()
    if spec == "nystrom":
        return Nystrom(random_state=random_state)
    if spec == "random_features":
        return RandomFeaturePreconditioner(random_state=random_state)
    raise ValueError(
        f"preconditioner must be one of {PRECONDITIONERS}, None or a Preconditioner, got {spec!r}"
    )


#: Most memory the ``"auto"`` preconditioner's factor may take.
_AUTO_FACTOR_BYTES = 2**29
#: Largest rank of the ``"auto"`` preconditioner.
_AUTO_MAX_RANK = 1000
#: The ``"auto"`` pivoted Cholesky stops when the trace of what it leaves out of ``K`` is
#: this many times the noise: the preconditioned matrix then has a condition number of at
#: most ``1 + this``.
_AUTO_RESIDUAL = 10.0


def auto_preconditioner(kernel: Kernel, X: np.ndarray, noise: float) -> PivotedCholesky:
    """The pivoted Cholesky that ``preconditioner="auto"`` fits: its rank grows until the
    trace of the residual ``K - L L^T`` is ``10 noise`` (so that ``M^-1 K_y`` has a
    condition number of at most 11, since the residual is positive semi-definite), up to
    1000 columns and 512 MiB."""
    n = len(X)
    trace = float(np.sum(kernel.diag(X)))
    rank = max(1, min(n, _AUTO_MAX_RANK, _AUTO_FACTOR_BYTES // (8 * n)))
    tol = min(0.5, max(_AUTO_RESIDUAL * noise / trace, 1e-14)) if trace > 0 else 1e-6
    return PivotedCholesky(rank=rank, tol=tol)


@dataclass(frozen=True)
class KrylovLikelihood:
    """One evaluation of the stochastic log marginal likelihood.

    Attributes
    ----------
    value : float
        The estimate of ``log p(y)``.
    gradient : ndarray
        Its stochastic gradient in ``[kernel.theta, log noise]`` (the noise when fitted).
    logdet, logdet_standard_error : float
        The SLQ estimate of ``log det K_y`` and its standard error over the probes.
    alpha : ndarray of shape (n,)
        ``K_y^-1 y``.
    cg : CGResult
        The batched solve.
    extra : ndarray of shape (n, e)
        ``K_y^-1`` times the ``extra`` right-hand sides solved in the same batch (``e =
        0`` without them).
    """

    value: float
    gradient: np.ndarray
    logdet: float
    logdet_standard_error: float
    alpha: np.ndarray
    cg: CGResult
    extra: np.ndarray


def krylov_likelihood(
    op: KernelOperator,
    y: np.ndarray,
    W: np.ndarray,
    preconditioner: Preconditioner | None,
    *,
    fit_noise: bool,
    eval_gradient: bool,
    tol: float,
    max_iter: int,
    extra: np.ndarray | None = None,
    extra_tol: float | None = None,
) -> KrylovLikelihood:
    """The stochastic log marginal likelihood of ``y`` under ``op`` (``K + noise I``) with
    the fixed Rademacher vectors ``W`` (``(n, t)``), from one mBCG solve; ``preconditioner``
    is fitted to ``op``'s kernel, inputs and noise (or ``None``). ``extra`` (``(n, e)``)
    are further right-hand sides solved in the same products, to ``extra_tol`` (``tol``
    by default)."""
    n, t = W.shape
    E = np.zeros((n, 0)) if extra is None else np.asarray(extra, dtype=np.float64)
    tols = np.full(1 + t + E.shape[1], float(tol))
    tols[1 + t :] = tol if extra_tol is None else extra_tol
    M = preconditioner
    Z = W if M is None else Spectrum.of(M, n, op.noise).sqrt_matmat(W)
    # solved for y / c, c a power of two at max|y| (exact), so that CG's inner products
    # cannot overflow; alpha = c (K_y^-1 (y / c))
    top = float(np.max(np.abs(y), initial=0.0))
    c = math.ldexp(1.0, math.frexp(top)[1]) if top > 0 else 1.0
    res = mbcg(
        op.matmat,
        np.column_stack([y / c, Z, E]),
        preconditioner=M,
        tol=tols,
        max_iter=max_iter,
        min_iter=min(10, n),
        name="K + noise*I",
    )
    alpha, U = c * res.solution[:, 0], res.solution[:, 1 : 1 + t]
    terms = lanczos_quadrature(res, range(1, t + 1))
    logdet = float(np.mean(terms)) + (0.0 if M is None else float(M.logdet()))
    se = 0.0 if t >= n or t < 2 else float(np.std(terms, ddof=1) / math.sqrt(t))
    value = -0.5 * c * float((y / c) @ alpha) - 0.5 * logdet - 0.5 * n * _LOG_2PI
    grad = np.empty(0)
    if eval_gradient:
        V = Z if M is None else M.solve(Z)
        # W = 1/2 a a^T - 1/(2t) sum_i u_i v_i^T, as A B^T
        A = np.column_stack([0.5 * alpha, (-0.5 / t) * U])
        B = np.column_stack([alpha, V])
        parts = [op.gradient_dot(A, B)]
        if fit_noise:  # dK_y / dlog noise = noise I
            trace = float(np.einsum("ij,ij->", U, V)) / t
            parts.append(np.array([op.noise * 0.5 * (float(alpha @ alpha) - trace)]))
        grad = np.concatenate(parts)
    return KrylovLikelihood(value, grad, logdet, se, alpha, res, res.solution[:, 1 + t :])


@dataclass(frozen=True)
class LoveCache:
    """What a predictive variance needs, for ``K_y^-1 ~ M^-1/2 (Q T^-1 Q^T + c (I - Q Q^T))
    M^-1/2``.

    Attributes
    ----------
    L : ndarray of shape (n, r)
        The preconditioner's factor, ``M = L L^T + noise I`` (the same array, not a copy).
    W : ndarray of shape (r, r)
        ``M^-1/2 = L W L^T + I / sqrt(noise)`` (:meth:`Spectrum.middle`).
    sqrt_noise : float
    Q : ndarray of shape (n, k)
        The block Lanczos basis of ``M^-1/2 K_y M^-1/2``.
    C : ndarray of shape (k, k)
        ``T^-1 - c I``, ``T = Q^T M^-1/2 K_y M^-1/2 Q``.
    complement : float
        ``c`` in ``[0, 1]``: the preconditioned inverse on the complement of ``Q`` taken
        as ``c`` times the identity, ``c`` fitted at half the check points (the error is
        measured at all of them). ``1`` is
        right where the preconditioner is (the preconditioned matrix is near ``I``
        there), ``0`` is the Galerkin lower bound of Pleiss et al. (variances too large).
    n_iter : int
        Block Lanczos steps (products with ``K_y``, one pass over ``K`` each).
    error : float
        The largest relative error of the variances at the check points (``inf`` before
        it was measured).
    """

    L: np.ndarray
    W: np.ndarray
    sqrt_noise: float
    Q: np.ndarray
    C: np.ndarray
    n_iter: int
    error: float
    complement: float = 1.0

    def inv_sqrt(self, V: np.ndarray) -> np.ndarray:
        """``M^-1/2 V``."""
        if not self.W.size:
            return V / self.sqrt_noise
        out = self.L @ (self.W @ (self.L.T @ V))
        add_scaled(out, V, 1.0 / self.sqrt_noise)
        return out

    def reduction(self, Ks: np.ndarray, *, full: bool = False) -> np.ndarray:
        """``k_*^T K_y^-1 k_*`` for each row ``k_*`` of ``Ks`` (``(m, n)``), or with
        ``full`` the matrix ``Ks K_y^-1 Ks^T``."""
        H = self.inv_sqrt(Ks.T)  # M^-1/2 k_*, (n, m)
        G = self.Q.T @ H  # (k, m)
        c = self.complement
        if full:
            return c * (H.T @ H) + G.T @ (self.C @ G)
        return c * np.einsum("ij,ij->j", H, H) + np.einsum("ij,ij->j", G, self.C @ G)


#: Training inputs at which :func:`love_cache` checks its variances.
LOVE_CHECKS = 32
#: Columns of the block Lanczos start of :func:`love_cache`: ``y`` and this many rows of
#: ``K`` less one. Each step is one pass over ``K``, whose kernel evaluations cost about
#: as much as its products with tens of columns on two cores, so a wide block reaches a
#: given number of basis vectors in fewer, barely dearer passes. At n = 10^4, d = 5 (the
#: check met with 620-700 vectors, checked after every step): 13.3 s at width 32, 11.9 s
#: at 48, 11.3 s at 64.
LOVE_BLOCK = 64
#: Basis vectors of :func:`love_cache` before its check may stop it.
_LOVE_MIN_VECTORS = 256
#: Most memory the LOVE basis may take.
_LOVE_BYTES = 2**30


def love_max_vectors(n: int, max_iter: int) -> int:
    """The most basis vectors of :func:`love_cache` for ``n`` training inputs: ``max_iter``
    block steps, at most ``n`` and 1 GiB."""
    return max(1, min(n, LOVE_BLOCK * max_iter, _LOVE_BYTES // (8 * n)))


#: The relative residual of the check's reference solves, ``K_y u = e_i``: a training
#: input's latent variance is ``noise - noise^2 (K_y^-1)_ii`` (:func:`love_check_rows`),
#: and CG's error in ``u_i`` is at most ``tol |u| <= tol / noise``, so this leaves
#: ~1e-4 noise in the variance (measured: 5e-8 of it, where the form ``k_ii - k_i^T
#: K_y^-1 k_i`` solved to the same residual was 30 % off).
LOVE_CHECK_TOL = 1e-4


def love_check_rows(
    op: KernelOperator, random_state: Any, n_check: int = LOVE_CHECKS
) -> tuple[np.ndarray, np.ndarray]:
    """The training inputs (``n_check`` at random) where :func:`love_cache` checks its
    variances, and their rows of ``K`` (``(n_check, n)``).

    The reference variances need ``K_y^-1 e_i`` for the unit vectors of those inputs
    (:func:`unit_columns`): since ``k_i = K e_i = K_y e_i - noise e_i``, the latent variance at
    training input ``i`` is ``k_ii - k_i^T K_y^-1 k_i = noise - noise^2 (K_y^-1)_ii``.
    That form has no cancellation between ``k_ii`` and ``k_i^T K_y^-1 k_i`` (equal to
    many digits where the posterior is tight, so that a CG residual of 1e-4 on ``k_i``
    can leave the difference 30 % off). Solve them to ``LOVE_CHECK_TOL`` in the same
    batch as another solve to share its products, and pass them as ``check``."""
    n = len(op.X)
    rng = np.random.default_rng(random_state)
    idx = np.sort(rng.choice(n, min(n_check, n), replace=False))
    return idx, op.rows(idx)


def unit_columns(n: int, idx: np.ndarray) -> np.ndarray:
    """``[e_i for i in idx]``, ``(n, len(idx))``: the right-hand sides of the check."""
    E = np.zeros((n, idx.size))
    E[idx, np.arange(idx.size)] = 1.0
    return E


def love_cache(
    op: KernelOperator,
    y: np.ndarray,
    preconditioner: Preconditioner | None,
    *,
    tol: float,
    max_iter: int,
    random_state: Any,
    rtol: float = 0.005,
    check: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> LoveCache:
    """Block Lanczos steps on the preconditioned operator, started at ``M^-1/2 [y,
    K[j]^T ...]`` (``y`` and ``LOVE_BLOCK - 1`` rows of ``K`` at random training inputs),
    until the variances at 32 other random training inputs are within ``rtol`` of their
    values by CG: 256 vectors' worth of steps first, then one at a time with the check
    after each (it costs ``O(n m)`` per check point for ``m`` vectors, far less than a
    pass over ``K``), up to ``max_iter`` steps (or ``n`` vectors, or 1 GiB). The basis
    fills one array allocated for the most vectors, column by column (:func:`lanczos`'s
    ``capacity``): it is never copied, and the columns never reached take no memory.

    The preconditioned inverse on the complement of the Krylov space is taken as ``c``
    times the identity, with ``c`` in ``[0, 1]`` fitted (least squares in relative
    variance) at 16 of the check points; the error is measured at all 32, and the result
    keeps it (``error``) and warns when it stays above ``rtol``. ``check`` is
    ``(index, rows, solution)``: :func:`love_check_rows`'s inputs and rows, and ``K_y^-1``
    applied to the inputs' unit vectors (:func:`unit_columns`; ``(n, m)``), when the
    caller solved them already; otherwise they are solved here (``random_state`` picks
    the inputs).
    """
    noise = op.noise
    n = len(op.X)
    spectrum = Spectrum.of(preconditioner, n, noise)
    L, W = spectrum.L, spectrum.middle(-0.5)
    sn = math.sqrt(spectrum.noise)  # M's own noise: base.inv_sqrt is M^-1/2 exactly
    base = LoveCache(L, W, sn, np.zeros((n, 0)), np.zeros((0, 0)), 0, math.inf)

    def matmat(V: np.ndarray) -> np.ndarray:
        return base.inv_sqrt(op.matmat(base.inv_sqrt(V)))

    # the check: exact (to LOVE_CHECK_TOL) variances at a few training inputs
    if check is None:
        idx, Kc = love_check_rows(op, random_state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            solution = mbcg(
                op.matmat,
                unit_columns(n, idx),
                preconditioner=preconditioner,
                tol=min(tol, LOVE_CHECK_TOL),
                max_iter=max_iter,
            ).solution
    else:
        idx, Kc, solution = check
    prior = np.asarray(op.kernel.diag(op.X[idx]), dtype=np.float64)
    # noise - noise^2 (K_y^-1)_ii, clipped at 0 where CG's error exceeds a tiny variance
    exact = np.maximum(noise - noise**2 * solution[idx, np.arange(idx.size)], 0.0)

    # the start: y and the rows of K at LOVE_BLOCK - 1 other random training inputs (the
    # directions a test point's k_* takes), all through M^-1/2
    rng = np.random.default_rng(random_state)
    others = np.setdiff1d(np.arange(n), idx)
    chosen = np.sort(rng.choice(others, min(LOVE_BLOCK - 1, others.size), replace=False))
    block = np.empty((n, 1 + chosen.size))
    block[:, 0] = y
    if chosen.size:
        block[:, 1:] = op.rows(chosen).T
    start = base.inv_sqrt(block)
    del block
    if not np.any(start):
        start = np.ones((n, 1))
    width = start.shape[1]
    first: np.ndarray | None = start  # for the first call only: not kept alive after it
    del start
    cap = max(1, min(max_iter, -(-love_max_vectors(n, max_iter) // width)))
    steps = min(-(-_LOVE_MIN_VECTORS // width), cap)  # small problems are solved whole
    # one array for the whole basis, filled step by step (never copied)
    capacity = min(n, cap * width)
    lz = None
    # c is fitted at the even check points and the error measured at all of them: the
    # odd ones keep the fit honest, the even ones keep the check as wide as before
    fit = slice(0, None, 2)
    floor = 1e-12 * float(np.max(prior, initial=0.0))
    scale = 1.0 / np.maximum(np.abs(exact), floor)
    H = base.inv_sqrt(Kc.T)
    h2 = np.einsum("ij,ij->j", H, H)
    while True:
        lz = lanczos(matmat, first, steps, previous=lz, capacity=capacity)
        first = None
        Tinv = scipy.linalg.inv(lz.projection)
        G = lz.basis.T @ H
        inside = np.einsum("ij,ij->j", G, Tinv @ G)  # the Krylov space's part
        outside = h2 - np.einsum("ij,ij->j", G, G)  # |h|^2 off it
        # least squares in relative variance at the fitting points, within [0, 1]
        a, b = outside[fit] * scale[fit], (prior - exact - inside)[fit] * scale[fit]
        c = float(np.clip(a @ b / (a @ a), 0.0, 1.0)) if a @ a > 0 else 1.0
        approx = prior - inside - c * outside
        error = float(np.max(np.abs(approx - exact) * scale))
        C = Tinv - c * np.eye(lz.basis.shape[1])
        if error <= rtol or steps >= cap or lz.next_direction is None:
            break
        steps += 1  # a check costs O(n m width), far less than the step's pass over K
    if error > rtol:
        warnings.warn(
            f"the Lanczos (LOVE) cache of predictive variances reached {lz.n_iter} block "
            f"steps ({lz.basis.shape[1]} vectors) with variances at {idx.size} training "
            f"inputs still off by up to {error:.2%} of their values; raise max_iter or use "
            "a stronger preconditioner for more accurate return_std",
            ConvergenceWarning,
            stacklevel=3,
        )
    return LoveCache(L, W, sn, lz.basis, C, lz.n_iter, error, c)


def fitted_preconditioner(
    spec: Any, kernel: Kernel, X: np.ndarray, noise: float, random_state: Any
) -> Preconditioner | None:
    """``spec``'s preconditioner fitted to ``kernel(X) + noise I`` (``None`` for none)."""
    M = (
        auto_preconditioner(kernel, X, noise)
        if spec == "auto"
        else make_preconditioner(spec, random_state)
    )
    if M is not None:
        M.fit(kernel, X, noise)
    return M
