"""Krylov methods on a symmetric positive definite operator ``A`` (``K + noise I``), known
only through products ``A @ V``: batched preconditioned conjugate gradients (mBCG), the
Lanczos tridiagonals they imply, stochastic Lanczos quadrature for ``log det A``, and
Lanczos with full reorthogonalisation for a low-rank cache of ``A^-1`` (LOVE).

Gardner, Pleiss, Bindel, Weinberger & Wilson (2018), "GPyTorch: blackbox matrix-matrix
Gaussian process inference with GPU acceleration" (NeurIPS), Algorithm 2 (mBCG) and §4
(preconditioning); Ubaru, Chen & Saad (2017) for stochastic Lanczos quadrature; Pleiss,
Gardner, Weinberger & Wilson (2018), "Constant-time predictive distributions for Gaussian
processes" (ICML) for LOVE.

Every solve runs all its right-hand sides together, so that one pass over the kernel
matrix (the expensive part: ``O(n^2 d)`` kernel evaluations) serves all of them; a column
stops being updated once it has converged. The ``k`` CG coefficients of a column give the
``k x k`` Lanczos tridiagonal of the (preconditioned) operator started at that column
(Saad (2003) §6.7.3), which is what the log-determinant needs.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from kernelkit._validation import check_int, check_random_state

__all__ = [
    "CGResult",
    "LanczosResult",
    "LogdetEstimate",
    "NotPositiveDefiniteError",
    "lanczos",
    "lanczos_quadrature",
    "mbcg",
    "probe_vectors",
    "slq_logdet",
]

MatMat = Callable[[np.ndarray], np.ndarray]


class NotPositiveDefiniteError(np.linalg.LinAlgError, ValueError):
    """The operator is not positive definite: a CG curvature ``p^T A p`` or a Lanczos
    eigenvalue came out ``<= 0`` (a callable that is not a kernel, or a noise too small
    for round-off)."""


@dataclass(frozen=True)
class CGResult:
    """What :func:`mbcg` computed, and how well.

    Attributes
    ----------
    solution : ndarray of shape (n,) or (n, r)
        ``A^-1 B`` (the shape of ``B``).
    n_iter : int
        Iterations run, each one batched product with ``A`` (over the columns still
        running).
    n_iter_each : ndarray of int, shape (r,)
        Iterations each column took to converge (``n_iter`` for those that did not).
    residual_norms : ndarray of shape (r,)
        ``|b - A x| / |b|`` of each column at the end (by the CG recurrence; 0 for a
        zero column).
    converged : bool
        Whether every column reached ``residual_norms <= tol``.
    tol : float or ndarray of shape (r,)
        The relative residual asked for (of each column, when they differ).
    max_iter : int
        The iteration limit.
    alphas, betas : list of ndarray
        Column ``c``'s CG step sizes ``alpha_j`` and ``beta_j`` (``n_iter_each[c]`` each):
        the coefficients of its Lanczos tridiagonal (:meth:`tridiagonal`).
    initial_norms : ndarray of shape (r,)
        ``b^T M^-1 b`` for each column (``M`` the preconditioner, ``I`` without one): the
        squared norm of the start of the preconditioned Lanczos process.
    """

    solution: np.ndarray
    n_iter: int
    n_iter_each: np.ndarray
    residual_norms: np.ndarray
    converged: bool
    tol: float | np.ndarray
    max_iter: int
    alphas: list[np.ndarray]
    betas: list[np.ndarray]
    initial_norms: np.ndarray

    def tridiagonal(self, column: int) -> tuple[np.ndarray, np.ndarray]:
        """The Lanczos tridiagonal of column ``column``: its diagonal ``(k,)`` and
        off-diagonal ``(k - 1,)``.

        ``T_00 = 1/alpha_0``, ``T_jj = 1/alpha_j + beta_{j-1}/alpha_{j-1}`` and
        ``T_{j,j+1} = sqrt(beta_j)/alpha_j`` (Saad (2003) eq. 6.103).

        Parameters
        ----------
        column : int
            The right-hand side.

        Returns
        -------
        diagonal : ndarray of shape (k,)
            ``T_jj``.
        off_diagonal : ndarray of shape (k - 1,)
            ``T_{j,j+1}``.
        """
        a, b = self.alphas[column], self.betas[column]
        k = a.size
        diag = 1.0 / a
        diag[1:] += b[: k - 1] / a[: k - 1]
        off = np.sqrt(b[: k - 1]) / a[: k - 1]
        return diag, off


@dataclass(frozen=True)
class LogdetEstimate:
    """A stochastic Lanczos quadrature estimate of ``log det A``.

    Attributes
    ----------
    value : float
        The estimate (``log det M`` plus the estimate of ``tr log(M^-1/2 A M^-1/2)``
        with a preconditioner ``M``).
    standard_error : float
        The standard error of ``value`` over the probes (0 for the exact probes used when
        ``n_probes >= n``).
    n_probes : int
        Probe vectors used.
    terms : ndarray of shape (n_probes,)
        Each probe's quadrature ``z^T M^-1 z  e_1^T log(T) e_1``.
    cg : CGResult
        The solve that produced the tridiagonals.
    """

    value: float
    standard_error: float
    n_probes: int
    terms: np.ndarray
    cg: CGResult


@dataclass(frozen=True)
class LanczosResult:
    """``k`` steps of (block) Lanczos on ``A`` from a start ``b``: ``A Q ~ Q T``.

    Attributes
    ----------
    basis : ndarray of shape (n, m)
        Orthonormal ``Q`` (fully reorthogonalised): ``m = k`` for a vector start, up to
        ``k s`` for a block of ``s`` columns.
    projection : ndarray of shape (m, m)
        ``T = Q^T A Q`` (tridiagonal for a vector start, block tridiagonal for a block).
    diagonal, off_diagonal : ndarray of shape (m,) and (m - 1,)
        The diagonal and first off-diagonal of ``T``: its tridiagonal for a vector start.
    n_iter : int
        ``k``, the (block) products with ``A`` made (fewer than asked when the Krylov
        space became invariant).
    next_direction : ndarray of shape (n, s') or None
        The orthonormal block (orthogonal to ``Q``) where the next step would go
        (``None`` once the space is invariant); :func:`lanczos` takes the result back as
        ``previous`` to continue.
    storage : ndarray of shape (n, capacity) or None
        The array ``basis`` is the first columns of, when :func:`lanczos` was given a
        ``capacity`` (continuations fill it in place); ``None`` otherwise.
    """

    basis: np.ndarray
    projection: np.ndarray
    n_iter: int
    next_direction: np.ndarray | None = None
    storage: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def diagonal(self) -> np.ndarray:
        """The diagonal of ``T``.

        Returns
        -------
        ndarray of shape (m,)
            ``T_jj``.
        """
        return np.diag(self.projection).copy()

    @property
    def off_diagonal(self) -> np.ndarray:
        """The first off-diagonal of ``T`` (the Lanczos ``beta_j`` for a vector start).

        Returns
        -------
        ndarray of shape (m - 1,)
            ``T_{j,j+1}``.
        """
        return np.diag(self.projection, 1).copy()


def _as_solve(preconditioner: Any) -> Callable[[np.ndarray], np.ndarray] | None:
    if preconditioner is None:
        return None
    solve = getattr(preconditioner, "solve", None)
    if callable(solve):
        return solve  # type: ignore[no-any-return]
    if callable(preconditioner):
        return preconditioner  # type: ignore[no-any-return]
    raise TypeError(
        "preconditioner must have a solve(B) method (kernelkit.linalg.preconditioners) or "
        f"be a callable B -> M^-1 B, got {type(preconditioner).__name__}"
    )


def mbcg(
    matmat: MatMat,
    B: Any,
    *,
    preconditioner: Any = None,
    tol: float | Any = 1e-4,
    max_iter: int = 1000,
    min_iter: int = 0,
    warn: bool = True,
    name: str = "A",
) -> CGResult:
    """Solve ``A X = B`` for every column of ``B`` at once by preconditioned conjugate
    gradients (mBCG, Gardner et al. (2018) Algorithm 2).

    Each iteration makes one product of ``A`` with the columns still running. A column
    stops when its relative residual ``|b - A x| / |b|`` is at most ``tol`` (and at least
    ``min_iter`` iterations ran, so that its Lanczos tridiagonal has that many steps).

    Parameters
    ----------
    matmat : callable
        ``V -> A @ V`` for ``V`` of shape ``(n, k)``; ``A`` symmetric positive definite.
    B : array-like of shape (n,) or (n, r)
        Right-hand sides.
    preconditioner : object with ``solve`` or callable, optional
        ``M^-1`` applied to an ``(n, k)`` array, ``M`` symmetric positive definite (e.g.
        a fitted preconditioner of :mod:`kernelkit.linalg.preconditioners`).
    tol : float or array-like of shape (r,), default=1e-4
        Relative residual to reach, in ``(0, 1)``; one per column lets columns that
        need different accuracy share the products (each stops at its own).
    max_iter : int, default=1000
        Most iterations.
    min_iter : int, default=0
        Fewest iterations for a column (more Lanczos steps for the log determinant).
    warn : bool, default=True
        Warn (``ConvergenceWarning``, with the residual) when a column does not reach
        ``tol`` within ``max_iter``.
    name : str, default="A"
        The operator's name in warnings and errors.

    Returns
    -------
    CGResult
        The solution, iterations, residuals and the Lanczos coefficients.

    Raises
    ------
    NotPositiveDefiniteError
        If a curvature ``p^T A p`` (or ``r^T M^-1 r``) comes out ``<= 0`` or not finite:
        ``A`` (or ``M``) is not positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import mbcg
    >>> A = np.array([[4.0, 1.0], [1.0, 3.0]])
    >>> res = mbcg(lambda V: A @ V, np.array([[1.0, 0.0], [2.0, 1.0]]), tol=1e-12)
    >>> bool(np.allclose(A @ res.solution, [[1.0, 0.0], [2.0, 1.0]]))
    True
    >>> res.n_iter, res.converged
    (2, True)
    """
    tols = np.asarray(tol, dtype=np.float64)
    if tols.ndim > 1 or not np.all((tols > 0.0) & (tols < 1.0)):
        raise ValueError(f"tol must be in (0, 1) (a number, or one per column), got {tol!r}")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    min_iter = check_int(min_iter, "min_iter", minimum=0)
    Minv = _as_solve(preconditioner)
    B = np.asarray(B, dtype=np.float64)
    vector = B.ndim == 1
    B2 = B[:, None] if vector else B
    if B2.ndim != 2:
        raise ValueError(f"B must be a vector or a matrix, got shape {B.shape}")
    if not np.isfinite(B2).all():
        raise ValueError("B contains NaN or infinity")
    n, r = B2.shape
    if tols.ndim == 1 and tols.size != r:
        raise ValueError(f"tol has {tols.size} entries for {r} right-hand sides")
    tol_each = np.broadcast_to(tols, (r,))
    X = np.zeros_like(B2)
    bnorm = np.linalg.norm(B2, axis=0)
    R = B2.copy()
    Z = R if Minv is None else np.asarray(Minv(R), dtype=np.float64).reshape(n, r)
    P = Z.copy()
    rz = np.einsum("ij,ij->j", R, Z)
    _check_curvature(rz[bnorm > 0], f"the preconditioner of {name}")
    rz0 = rz.copy()
    rel = np.where(bnorm > 0, 1.0, 0.0)
    alphas: list[list[float]] = [[] for _ in range(r)]
    betas: list[list[float]] = [[] for _ in range(r)]
    n_each = np.zeros(r, dtype=int)
    active = np.flatnonzero(bnorm > 0)
    it = 0
    while active.size and it < max_iter:
        it += 1
        Pa = P[:, active]
        AP = np.asarray(matmat(Pa), dtype=np.float64).reshape(n, active.size)
        pAp = np.einsum("ij,ij->j", Pa, AP)
        _check_curvature(pAp, name)
        alpha = rz[active] / pAp
        X[:, active] += alpha * Pa
        R[:, active] -= alpha * AP
        Ra = R[:, active]
        Za = Ra if Minv is None else np.asarray(Minv(Ra), dtype=np.float64).reshape(Ra.shape)
        rz_new = np.einsum("ij,ij->j", Ra, Za)
        beta = rz_new / rz[active]
        P[:, active] = Za + beta * Pa
        rz[active] = rz_new
        rel[active] = np.linalg.norm(Ra, axis=0) / bnorm[active]
        for c, a, b in zip(active, alpha, beta, strict=True):
            alphas[c].append(float(a))
            betas[c].append(float(b))
        n_each[active] = it
        done = (rel[active] <= tol_each[active]) & (it >= min_iter)
        _check_curvature(rz_new + (rz_new == 0), f"the preconditioner of {name}")
        done |= rz_new == 0  # an exact solution (residual 0): nothing left to do
        active = active[~done]
    short = rel > tol_each
    converged = not bool(np.any(short))
    if not converged and warn:
        worst = float(np.max(rel))
        asked = f"{float(tols):.3g}" if tols.ndim == 0 else f"{float(np.min(tols)):.3g} or more"
        warnings.warn(
            f"conjugate gradients on {name} did not reach the relative residual {asked} "
            f"within max_iter={max_iter} iterations: {int(np.sum(short))} of {r} "
            f"right-hand sides stopped at a residual up to {worst:.3g}. Raise max_iter, "
            "use a (stronger) preconditioner, or a larger noise",
            ConvergenceWarning,
            stacklevel=2,
        )
    return CGResult(
        solution=X[:, 0] if vector else X,
        n_iter=it,
        n_iter_each=n_each,
        residual_norms=rel,
        converged=converged,
        tol=float(tols) if tols.ndim == 0 else tols.copy(),
        max_iter=max_iter,
        alphas=[np.asarray(a) for a in alphas],
        betas=[np.asarray(b) for b in betas],
        initial_norms=rz0,
    )


def _check_curvature(values: np.ndarray, name: str) -> None:
    if not np.all(values > 0):  # False for NaN
        bad = values[~(values > 0)]
        raise NotPositiveDefiniteError(
            f"{name} is not positive definite: conjugate gradients met a curvature "
            f"{float(bad[0]):.3g} <= 0 (a kernel must be positive semi-definite and the "
            "noise positive; check the kernel, or raise the noise)"
        )


def lanczos_quadrature(
    result: CGResult, columns: Any = None, f: Callable[[np.ndarray], np.ndarray] = np.log
) -> np.ndarray:
    """``b^T M^-1 b  e_1^T f(T) e_1`` for each column ``b`` of a CG solve: the Gauss
    quadrature of ``b^T M^-1/2 f(M^-1/2 A M^-1/2) M^-1/2 b`` from its Lanczos tridiagonal
    ``T`` (Ubaru, Chen & Saad (2017) eq. 3.3).

    Parameters
    ----------
    result : CGResult
        From :func:`mbcg`.
    columns : array-like of int, optional
        The columns (all by default).
    f : callable, default=numpy.log
        Applied to the eigenvalues of ``T`` (the Ritz values).

    Returns
    -------
    ndarray of shape (len(columns),)
        The quadrature of each column.

    Raises
    ------
    NotPositiveDefiniteError
        If a Ritz value is ``<= 0``: the operator is not positive definite.
    """
    cols = range(len(result.alphas)) if columns is None else np.asarray(columns, dtype=int)
    out = np.empty(len(cols))
    for i, c in enumerate(cols):
        if result.alphas[c].size == 0:  # a zero column
            out[i] = 0.0
            continue
        diag, off = result.tridiagonal(int(c))
        theta, S = scipy.linalg.eigh_tridiagonal(diag, off)
        if not np.all(theta > 0):
            raise NotPositiveDefiniteError(
                f"the operator is not positive definite: its Lanczos tridiagonal has the "
                f"eigenvalue {float(theta.min()):.3g} <= 0 (a kernel must be positive "
                "semi-definite and the noise positive)"
            )
        out[i] = result.initial_norms[c] * float(S[0] ** 2 @ f(theta))
    return out


def probe_vectors(
    n: int, n_probes: int, *, preconditioner: Any = None, random_state: Any = None
) -> np.ndarray:
    """Probe vectors ``z`` with ``E[z z^T] = M`` (``I`` without a preconditioner ``M``).

    Rademacher vectors ``w`` (entries ``+-1``), mapped through ``M^1/2`` when there is a
    preconditioner (which must have ``sqrt_matmat``). With ``n_probes >= n`` the probes
    are exact instead: the ``n`` columns of ``sqrt(n) M^1/2``, for which the average of
    ``z^T F z`` over the probes is ``tr(M^1/2 F M^1/2)`` exactly.

    Parameters
    ----------
    n : int
        Dimension.
    n_probes : int
        Number of probes (``n`` of them when ``n_probes >= n``).
    preconditioner : object with ``sqrt_matmat``, optional
        ``M`` (``None``: the identity).
    random_state : int, Generator, RandomState or None
        Seeds the Rademacher entries.

    Returns
    -------
    ndarray of shape (n, min(n_probes, n))
        The probes, one per column.
    """
    n = check_int(n, "n", minimum=1)
    n_probes = check_int(n_probes, "n_probes", minimum=1)
    if n_probes >= n:
        W = math.sqrt(n) * np.eye(n)
    else:
        rng = check_random_state(random_state)
        W = rng.choice(np.array([-1.0, 1.0]), size=(n, n_probes))
    if preconditioner is None:
        return W
    sqrt_matmat = getattr(preconditioner, "sqrt_matmat", None)
    if not callable(sqrt_matmat):
        raise TypeError(
            "probes with a preconditioner need its square root: the preconditioner must "
            f"have a sqrt_matmat(B) method, got {type(preconditioner).__name__}"
        )
    return np.asarray(sqrt_matmat(W), dtype=np.float64)


def slq_logdet(
    matmat: MatMat,
    n: int,
    *,
    preconditioner: Any = None,
    n_probes: int = 16,
    tol: float = 1e-3,
    max_iter: int = 1000,
    min_iter: int = 10,
    random_state: Any = None,
    name: str = "A",
) -> LogdetEstimate:
    """``log det A`` by stochastic Lanczos quadrature with Rademacher probes.

    ``log det A = log det M + tr log(M^-1/2 A M^-1/2)`` and the trace is estimated by
    Hutchinson's estimator ``mean_i w_i^T log(...) w_i`` over Rademacher ``w_i``, each
    quadratic form by Lanczos quadrature from the CG tridiagonal of ``A x = M^1/2 w_i``
    (Ubaru, Chen & Saad (2017); Gardner et al. (2018) §4). Unbiased up to the quadrature
    error, which vanishes as the Lanczos steps reach ``n``; exact (to round-off) when
    ``n_probes >= n`` and the solves run to convergence.

    Parameters
    ----------
    matmat : callable
        ``V -> A @ V``.
    n : int
        The order of ``A``.
    preconditioner : fitted preconditioner, optional
        Needs ``solve``, ``sqrt_matmat`` and ``logdet``.
    n_probes : int, default=16
        Probe vectors (``n`` or more: the exact probes of :func:`probe_vectors`).
    tol : float, default=1e-3
        CG relative residual for the probe solves.
    max_iter, min_iter : int
        CG iteration limits (``min_iter`` Lanczos steps at least).
    random_state : int, Generator, RandomState or None
        Seeds the probes.
    name : str, default="A"
        The operator's name in warnings and errors.

    Returns
    -------
    LogdetEstimate
        The estimate, its standard error and the solve.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import slq_logdet
    >>> rng = np.random.default_rng(0)
    >>> G = rng.standard_normal((50, 50))
    >>> A = G @ G.T / 50 + np.eye(50)
    >>> est = slq_logdet(lambda V: A @ V, 50, n_probes=50, tol=1e-10)
    >>> bool(abs(est.value - np.linalg.slogdet(A)[1]) < 1e-8)
    True
    """
    Z = probe_vectors(n, n_probes, preconditioner=preconditioner, random_state=random_state)
    res = mbcg(
        matmat,
        Z,
        preconditioner=preconditioner,
        tol=tol,
        max_iter=max_iter,
        min_iter=min(min_iter, n),
        name=name,
    )
    terms = lanczos_quadrature(res)
    t = terms.size
    value = float(np.mean(terms))
    se = 0.0 if t >= n else float(np.std(terms, ddof=1) / math.sqrt(t)) if t > 1 else math.inf
    if preconditioner is not None:
        value += float(preconditioner.logdet())
    return LogdetEstimate(value, se, t, terms, res)


def _orthonormal_block(
    W: np.ndarray, floor: float, *, overwrite: bool = False
) -> np.ndarray | None:
    """An orthonormal basis of the columns of ``W`` (QR with column pivoting), without
    the directions whose weight is at most ``floor`` (``None`` when none is left);
    ``overwrite`` lets the factorisation use ``W``'s memory."""
    Qw, Rw, _ = scipy.linalg.qr(
        W, mode="economic", pivoting=True, check_finite=False, overwrite_a=overwrite
    )
    keep = int(np.sum(np.abs(np.diag(Rw)) > floor))
    return Qw[:, :keep] if keep else None


def lanczos(
    matmat: MatMat,
    b: Any,
    n_iter: int,
    *,
    tol: float = 1e-8,
    previous: LanczosResult | None = None,
    capacity: int | None = None,
) -> LanczosResult:
    """``n_iter`` steps of Lanczos with full reorthogonalisation from ``b``: a vector, or
    a block of ``s`` columns (block Lanczos: each step one product with ``s`` columns).

    ``Q`` spans the Krylov space ``K_k(A, b)`` and ``T = Q^T A Q``, computed from the
    products themselves (tridiagonal for a vector, block tridiagonal for a block); the
    loop stops early when the space becomes invariant (new directions smaller than
    ``tol`` times the operator's scale are dropped). Full reorthogonalisation (two
    passes of Gram-Schmidt) keeps ``Q`` orthonormal to round-off, at ``O(n m^2)`` work
    for ``m`` basis vectors.

    Parameters
    ----------
    matmat : callable
        ``V -> A @ V``, ``A`` symmetric.
    b : array-like of shape (n,) or (n, s)
        The start (non-zero); ignored when continuing ``previous``.
    n_iter : int
        Steps ``k`` in all (including those of ``previous``).
    tol : float, default=1e-8
        The invariance threshold, relative to the largest diagonal entry of ``T``: a new
        direction whose norm after reorthogonalisation is below it is dropped, since
        normalising what is mostly round-off would break the orthogonality of ``Q`` (at
        about ``sqrt(eps)``, a direction kept is orthogonal to ``~sqrt(eps)``).
    previous : LanczosResult, optional
        A run to continue, from its ``next_direction``, without repeating its products.
    capacity : int, optional
        Columns to allocate for the basis (at most ``n``), when a run is to be continued
        step by step: the basis is then the first columns of one array
        (:attr:`LanczosResult.storage`), which continuations fill in place while it has
        room, so the basis is never copied (without it, each continuation copies the
        basis into a larger array, and a run stopped early copies it to its size).

    Returns
    -------
    LanczosResult
        The basis, ``T`` and where the next step would go.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg import lanczos
    >>> A = np.diag(np.arange(1.0, 11.0))
    >>> first = lanczos(lambda V: A @ V, np.ones(10), 4)
    >>> both = lanczos(lambda V: A @ V, None, 10, previous=first)
    >>> both.n_iter, bool(np.allclose(np.linalg.eigvalsh(both.projection), np.arange(1.0, 11.0)))
    (10, True)
    >>> start = np.random.default_rng(0).standard_normal((10, 2))  # a block of two
    >>> block = lanczos(lambda V: A @ V, start, 3)
    >>> block.basis.shape, bool(np.allclose(block.basis.T @ A @ block.basis, block.projection))
    ((10, 6), True)
    >>> one = lanczos(lambda V: A @ V, np.ones(10), 1, capacity=10)
    >>> two = lanczos(lambda V: A @ V, None, 2, previous=one)  # one more step, in place
    >>> bool(np.shares_memory(one.basis, two.basis)), two.basis.shape
    (True, (10, 2))
    """
    if previous is None:
        B = np.asarray(b, dtype=np.float64)
        B = B[:, None] if B.ndim == 1 else B
        if B.ndim != 2 or not np.isfinite(B).all():
            raise ValueError("b must be a finite vector or matrix")
        if not np.any(B):
            raise ValueError("b must not be zero")
        n = B.shape[0]
        T = np.zeros((0, 0))
        m = 0
        done = 0
        nxt = _orthonormal_block(B, 1e-12 * float(np.max(np.linalg.norm(B, axis=0))))
        Q = np.empty((n, 0))
        scale = 0.0
        storage = None
    else:
        Q, T, done = previous.basis, previous.projection, previous.n_iter
        nxt = previous.next_direction
        n, m = Q.shape
        scale = float(np.max(np.abs(np.diag(T)), initial=0.0))
        storage = previous.storage
        if nxt is None:
            return previous
    k = check_int(n_iter, "n_iter", minimum=1)
    if k <= done:
        return previous  # type: ignore[return-value]
    assert nxt is not None
    width = nxt.shape[1]
    cap = min(n, m + width * (k - done))
    if capacity is not None:
        capacity = min(n, max(cap, check_int(capacity, "capacity", minimum=1)))
    if storage is not None and storage.shape[1] >= cap:
        basis = storage  # the first m columns are Q already
    elif capacity is not None or storage is not None:
        # column-major: the columns not yet written are pages never touched, which the
        # system does not back with memory
        storage = basis = np.empty((n, max(cap, capacity or 0)), order="F")
        basis[:, :m] = Q
    else:
        basis = np.empty((n, cap))
        basis[:, :m] = Q
    proj = np.zeros((cap, cap))
    proj[:m, :m] = T
    steps = done
    while steps < k and nxt is not None:
        s = min(nxt.shape[1], cap - m)
        block = nxt[:, :s]
        basis[:, m : m + s] = block
        W = np.asarray(matmat(block), dtype=np.float64).reshape(n, s)
        steps += 1
        Qm = basis[:, : m + s]
        H = Qm.T @ W  # column block of T: Q^T A q
        proj[: m + s, m : m + s] = H
        proj[m : m + s, :m] = H[:m].T
        proj[m : m + s, m : m + s] = 0.5 * (H[m:] + H[m:].T)
        scale = max(scale, float(np.max(np.abs(np.diag(H[m:])))))
        m += s
        if m >= n:  # the whole space
            nxt = None
            break
        W -= Qm @ H
        W -= Qm @ (Qm.T @ W)  # the second pass: orthogonal to round-off
        nxt = _orthonormal_block(W, tol * max(scale, 1e-300), overwrite=True)
        del W  # overwritten: not kept alive through the next product
    if storage is not None:
        return LanczosResult(storage[:, :m], proj[:m, :m].copy(), steps, nxt, storage)
    if m < cap:  # stopped early: do not keep the unused columns alive
        basis, proj = basis[:, :m].copy(), proj[:m, :m].copy()
    return LanczosResult(basis, proj, steps, nxt)
