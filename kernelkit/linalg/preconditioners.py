"""Low-rank-plus-noise preconditioners for Krylov solves with ``K_hat = K + noise I``.

Each preconditioner approximates ``K_hat`` by ``P = L L^T + noise I`` with a tall factor
``L`` of shape ``(n, k)``, ``k << n``, built without ever forming the ``(n, n)`` matrix ``K``:

* :class:`PivotedCholesky` — greedy pivoted partial Cholesky of ``K`` (Harbrecht, Peters
  and Schneider 2012), GPyTorch's default (Gardner et al. 2018 §4.2): ``k`` rows of ``K``
  and its diagonal;
* :class:`Nystrom` — ``L = K_nm K_mm^{-1/2}`` on ``m`` centres drawn uniformly or by
  approximate ridge leverage scores (Alaoui and Mahoney 2015; Rudi et al. 2018);
* :class:`RandomFeaturePreconditioner` — ``L = Phi(X)``, random Fourier features of the
  kernel (:class:`~kernelkit.features.RandomFourierFeatures`), with a width chosen from the
  closed-form error theory of :mod:`kernelkit.features.theory` (Rowland 2018 §7.4-7.5).

All of them share :class:`Preconditioner`: ``solve`` (``P^{-1} B`` by the Woodbury
identity), ``matmat`` (``P B``), ``logdet`` (the matrix determinant lemma) and ``sample``
(draws from ``N(0, P)``), in ``O(n k)`` memory and ``O(n k r)`` time for ``r`` right-hand
sides after an ``O(n k^2)`` set-up.

Numerics. Woodbury needs ``noise > 0``. It is applied through the upper-triangular ``R``
(``k x k``) with ``R^T R = L^T L + noise I``, computed by a QR factorisation of the stacked
matrix ``[sqrt(noise) I_k; L]`` (block by block of rows, so no copy of ``L`` is made)
rather than by forming ``L^T L``: the triangular solves with ``R`` have condition number
``sqrt(cond(P))``, and ``R`` is exact for a perturbation of ``L`` of relative size ``eps``
(Golub and Van Loan 2013 §5.3), so a noise of ``1e-8`` times the kernel variance, or a
rank-deficient ``L``, still gives ``P^{-1} B`` to the accuracy of a dense backward-stable
solve.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from kernelkit._memory import check_memory, memory_limit
from kernelkit._validation import (
    check_array,
    check_in,
    check_int,
    check_nonnegative_number,
    check_positive_scalar,
    check_random_state,
)
from kernelkit.features.fourier import RandomFourierFeatures
from kernelkit.features.matrices import COUPLINGS, resolve_coupling
from kernelkit.features.theory import mse_rff_iid, mse_rff_orthogonal, recommend_features
from kernelkit.kernels import RBF, Constant, Kernel, Matern, median_heuristic, resolve_kernel
from kernelkit.kernels.base import Product, Scaled
from kernelkit.linalg.cholesky import cholesky_or_none, jittered_cholesky

__all__ = ["Nystrom", "PivotedCholesky", "Preconditioner", "RandomFeaturePreconditioner"]

_EPS = float(np.finfo(np.float64).eps)
#: Bytes of one block of rows (of ``L``, or of kernel values) processed at a time.
_BLOCK_BYTES = 32 * 2**20
#: Rows of ``X`` subsampled for the median distance of :class:`RandomFeaturePreconditioner`.
_MEDIAN_SAMPLES = 500
#: Centre selections of :class:`Nystrom`.
CENTRES = ("uniform", "leverage")


# ---------------------------------------------------------------------- shared helpers
def _block_rows(width: int) -> int:
    """Rows per block so that a ``(rows, width)`` float64 block is about 32 MiB."""
    return max(1, _BLOCK_BYTES // (8 * max(int(width), 1)))


def _check_noise(noise: Any) -> float:
    """``noise`` as a float ``> 0``: the Woodbury form divides by it."""
    if isinstance(noise, bool) or not isinstance(noise, numbers.Real):
        raise TypeError(f"noise must be a number > 0, got {type(noise).__name__}")
    value = float(noise)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(
            f"noise must be finite and > 0, got {noise!r}: the preconditioner P = L L^T + "
            "noise I is inverted by the Woodbury identity, which divides by the noise "
            "(for a noise-free kernel matrix pass a small jitter, e.g. 1e-6 * variance)"
        )
    return value


def _vector_kernel(kernel: Any) -> Kernel:
    """The resolved ``kernel``, or a ``TypeError`` for a kernel on lists of objects."""
    kernel = resolve_kernel(kernel)
    if not (kernel.requires_vector_input or getattr(kernel, "_any_objects", False)):
        raise TypeError(
            f"kernel must be a kernel on vectors (rows of a numeric array), got {kernel!r}, "
            "a kernel on lists of objects"
        )
    return kernel


def _check_factor_memory(n: int, k: int, extra: int, request: str) -> None:
    """Refuse a factor of shape ``(n, k)`` (plus ``extra`` bytes) beyond this machine."""
    check_memory(
        8 * n * k + 8 * min(n, k) ** 2 + extra,
        f"{request}: a factor of shape ({n}, {k}) (float64)",
        "ask for a smaller rank",
    )


def _woodbury_r(L: np.ndarray, noise: float) -> np.ndarray:
    """Upper-triangular ``R`` (``k x k``) with ``R^T R = L^T L + noise I``.

    From a QR factorisation of ``[sqrt(noise) I; L]``, one block of rows of ``L`` at a
    time: ``R <- qr([R; L_block])`` (sequential TSQR), so memory stays ``O(block k)``
    beyond ``L`` and ``L^T L`` is never formed.
    """
    n, k = L.shape
    R = math.sqrt(noise) * np.eye(k)
    if k == 0:
        return R
    rows = max(4 * k, _block_rows(k))
    for start in range(0, n, rows):
        R = cast(np.ndarray, np.linalg.qr(np.vstack([R, L[start : start + rows]]), mode="r"))
    return np.triu(R)


# ---------------------------------------------------------------------- base class
class Preconditioner(BaseEstimator):
    """Base class: ``P = L L^T + noise I`` with a tall factor ``L`` of shape ``(n, k)``.

    A subclass builds ``L`` from a kernel and inputs (its ``_fit_factor(kernel, X,
    noise)``); this class checks the arguments and provides the linear algebra, all in
    ``O(n k)`` memory:

    * :meth:`solve` — ``P^{-1} B = (B - L (L^T L + noise I)^{-1} L^T B) / noise`` (the
      Woodbury identity), through the triangular ``R`` with ``R^T R = L^T L + noise I``
      from a QR factorisation of ``[sqrt(noise) I; L]`` (module Notes: stable for a noise
      far below ``|L|^2``, and for a rank-deficient ``L``);
    * :meth:`matmat` — ``P B = L (L^T B) + noise B``;
    * :meth:`logdet` — ``log det P = (n - k) log(noise) + 2 sum_i log |R_ii|`` (the matrix
      determinant lemma);
    * :meth:`sample` — ``L e_1 + sqrt(noise) e_2`` with standard normal ``e_1, e_2``: draws
      with covariance ``P`` (the probe vectors of stochastic trace estimation, Gardner et
      al. 2018 §4).

    :meth:`from_factor` wraps a given factor. A factor at least as wide as it is tall
    (``k >= n``: random features wider than the data) gains nothing from Woodbury; ``R``
    is then the ``n x n`` triangle with ``R^T R = P``, from a QR factorisation of
    ``[sqrt(noise) I_n; L^T]``, which takes no more memory than ``L``.

    Attributes
    ----------
    factor_ : ndarray of shape (n, k)
        ``L``.
    noise_ : float
        The noise variance ``> 0``.
    rank_ : int
        ``k``, the number of columns of ``L``.
    triangular_ : ndarray of shape (min(n, k), min(n, k))
        Upper-triangular ``R`` with ``R^T R = L^T L + noise I`` (``k < n``), or ``R^T R =
        P`` (``k >= n``).
    n_features_in_ : int
        Number of input features of ``X`` (not set by :meth:`from_factor`).

    See Also
    --------
    PivotedCholesky, Nystrom, RandomFeaturePreconditioner : The factors.

    Notes
    -----
    The Woodbury identity and the matrix determinant lemma: Golub and Van Loan (2013)
    §2.1.4; their use for preconditioning Gaussian-process solves: Gardner et al. (2018),
    *GPyTorch: Blackbox Matrix-Matrix Gaussian Process Inference with GPU Acceleration*,
    §4.2.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg.preconditioners import Preconditioner
    >>> L = np.random.default_rng(0).standard_normal((50, 3))
    >>> pre = Preconditioner.from_factor(L, noise=0.1)
    >>> P = L @ L.T + 0.1 * np.eye(50)
    >>> b = np.ones(50)
    >>> bool(np.allclose(pre.solve(b), np.linalg.solve(P, b)))
    True
    >>> bool(np.isclose(pre.logdet(), np.linalg.slogdet(P)[1]))
    True
    """

    # ------------------------------------------------------------------ fitting
    def _check_params(self) -> None:
        """Check the constructor arguments (subclasses extend this)."""

    def _fit_factor(self, kernel: Kernel, X: np.ndarray, noise: float) -> np.ndarray:
        raise NotImplementedError(
            "Preconditioner is the base class; fit PivotedCholesky, Nystrom or "
            "RandomFeaturePreconditioner, or wrap a factor with Preconditioner.from_factor"
        )

    def fit(self, kernel: Any, X: Any, noise: float) -> Preconditioner:
        """Build the factor ``L`` for ``K = kernel(X)`` and ``P = L L^T + noise I``.

        Parameters
        ----------
        kernel : Kernel or str
            The kernel ``k`` on vectors, without the noise (a name of
            :data:`~kernelkit.kernels.KERNEL_NAMES` is resolved). ``K`` is never formed:
            only its diagonal and some of its rows or columns are evaluated.
        X : array-like of shape (n, d)
            The inputs, finite.
        noise : float
            The noise variance added to the diagonal, ``> 0`` (the Woodbury identity
            divides by it).

        Returns
        -------
        self : Preconditioner
            The fitted preconditioner.
        """
        self._check_params()
        kernel = _vector_kernel(kernel)
        X = check_array(X, "X", dtype=np.float64)
        noise = _check_noise(noise)
        L = self._fit_factor(kernel, X, noise)
        self._set_factor(L, noise)
        self.n_features_in_ = X.shape[1]
        return self

    @classmethod
    def from_factor(cls, factor: Any, noise: float) -> Preconditioner:
        """The preconditioner ``P = factor factor^T + noise I`` for a given factor.

        Parameters
        ----------
        factor : array-like of shape (n, k)
            ``L``, finite (``k = 0`` gives ``P = noise I``).
        noise : float
            The noise variance, ``> 0``.

        Returns
        -------
        Preconditioner
            A fitted :class:`Preconditioner` holding ``factor`` (as float64).
        """
        if np.ndim(factor) == 2 and np.shape(factor)[1] == 0 and np.shape(factor)[0] > 0:
            L = np.zeros(np.shape(factor))  # no columns: P = noise I
        else:
            L = check_array(factor, "factor", dtype=np.float64)
        pre = Preconditioner()
        pre._set_factor(L, _check_noise(noise))
        return pre

    def _set_factor(self, L: np.ndarray, noise: float) -> None:
        if L.ndim != 2:
            raise ValueError(f"the factor must be 2-dimensional, got shape {L.shape}")
        if not np.isfinite(L).all():
            raise ValueError(
                "the factor contains NaN or infinity: the kernel's values overflow or are "
                "not finite on these inputs; rescale X or check the kernel"
            )
        self.factor_ = L
        self.noise_ = float(noise)
        self.rank_ = int(L.shape[1])
        # k < n: R^T R = L^T L + noise I (Woodbury); k >= n (wide random features): R^T R =
        # L L^T + noise I = P itself, n x n, no more memory than L
        self.triangular_ = _woodbury_r(L if self._low_rank else L.T, self.noise_)

    @property
    def _low_rank(self) -> bool:
        return bool(self.factor_.shape[1] < self.factor_.shape[0])

    # ------------------------------------------------------------------ linear algebra
    def _check_rhs(self, B: Any, name: str = "B") -> np.ndarray:
        check_is_fitted(self, "factor_")
        B = check_array(B, name, ndim=None, dtype=np.float64)
        n = self.factor_.shape[0]
        if B.ndim not in (1, 2) or B.shape[0] != n:
            raise ValueError(f"{name} must have shape ({n},) or ({n}, r), got shape {B.shape}")
        return B

    def solve(self, B: Any) -> np.ndarray:
        """``P^{-1} B`` by the Woodbury identity, in ``O(n k r)`` time.

        Parameters
        ----------
        B : array-like of shape (n,) or (n, r)
            Right-hand sides, finite.

        Returns
        -------
        ndarray of shape (n,) or (n, r)
            ``P^{-1} B`` (float64), the shape of ``B``.
        """
        B = self._check_rhs(B)
        L, R = self.factor_, self.triangular_
        if not self._low_rank:  # P = R^T R
            Z = scipy.linalg.solve_triangular(R, B, trans="T", check_finite=False)
            return scipy.linalg.solve_triangular(R, Z, check_finite=False)
        if self.rank_ == 0:
            return B / self.noise_
        # (L^T L + noise I)^{-1} L^T B = R^{-1} R^{-T} L^T B
        Z = scipy.linalg.solve_triangular(R, L.T @ B, trans="T", check_finite=False)
        Z = scipy.linalg.solve_triangular(R, Z, check_finite=False)
        out = B - L @ Z
        out /= self.noise_
        return out

    def matmat(self, B: Any) -> np.ndarray:
        """``P B = L (L^T B) + noise B``, in ``O(n k r)`` time.

        Parameters
        ----------
        B : array-like of shape (n,) or (n, r)
            Vectors to multiply, finite.

        Returns
        -------
        ndarray of shape (n,) or (n, r)
            ``P B`` (float64), the shape of ``B``.
        """
        B = self._check_rhs(B)
        L = self.factor_
        out = L @ (L.T @ B)
        out += self.noise_ * B
        return out

    def logdet(self) -> float:
        """``log det P`` by the matrix determinant lemma: ``(n - k) log(noise) + log det(L^T L
        + noise I)``.

        Returns
        -------
        float
            The log-determinant of ``P`` (finite: ``P`` is positive definite).
        """
        check_is_fitted(self, "factor_")
        n, k = self.factor_.shape
        logdet = 2.0 * float(np.sum(np.log(np.abs(np.diagonal(self.triangular_)))))
        return logdet + max(n - k, 0) * math.log(self.noise_)

    def sample(self, n_samples: int = 1, random_state: Any = None) -> np.ndarray:
        """Gaussian draws with covariance ``P``: ``L e_1 + sqrt(noise) e_2``.

        Parameters
        ----------
        n_samples : int, default=1
            Number of draws, ``>= 1``.
        random_state : int, RandomState, Generator or None, default=None
            Seeds the standard normal ``e_1`` (shape ``(k, n_samples)``, drawn first) and
            ``e_2`` (shape ``(n, n_samples)``).

        Returns
        -------
        ndarray of shape (n, n_samples)
            One draw from ``N(0, P)`` per column.
        """
        check_is_fitted(self, "factor_")
        n_samples = check_int(n_samples, "n_samples", minimum=1)
        n, k = self.factor_.shape
        check_memory(
            8 * (n + k) * n_samples,
            f"{type(self).__name__}.sample(n_samples={n_samples}) on {n} points",
            "draw fewer samples at a time",
        )
        rng = check_random_state(random_state)
        e1 = rng.standard_normal((k, n_samples))
        out = rng.standard_normal((n, n_samples))
        out *= math.sqrt(self.noise_)
        out += self.factor_ @ e1
        return out

    def as_operator(self, *, inverse: bool = True) -> LinearOperator:
        """``P^{-1}`` (or ``P``) as a SciPy ``LinearOperator``, e.g. the ``M`` of
        ``scipy.sparse.linalg.cg``.

        Parameters
        ----------
        inverse : bool, default=True
            The operator ``B -> P^{-1} B`` (:meth:`solve`), else ``B -> P B``
            (:meth:`matmat`).

        Returns
        -------
        scipy.sparse.linalg.LinearOperator of shape (n, n)
            Symmetric, float64.
        """
        check_is_fitted(self, "factor_")
        n = self.factor_.shape[0]
        apply = self.solve if inverse else self.matmat
        return LinearOperator(
            (n, n), matvec=apply, rmatvec=apply, matmat=apply, rmatmat=apply, dtype=np.float64
        )

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays held: the factor ``L``, the ``k x k`` triangle and the
        subclass's own (pivots, centres, frequencies); ``O(n k)``, never ``O(n^2)``."""
        check_is_fitted(self, "factor_")
        total = 0
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                total += value.nbytes
            elif isinstance(value, RandomFourierFeatures):
                total += int(value.n_parameter_bytes_)
        return total


# ---------------------------------------------------------------------- pivoted Cholesky
def pivoted_cholesky(
    diag: np.ndarray, row: Callable[[int], np.ndarray], rank: int, tol: float = 0.0
) -> tuple[np.ndarray, np.ndarray, float]:
    """Greedy pivoted partial Cholesky ``K ~ L L^T`` of a positive semi-definite matrix
    known by its diagonal and its rows (Harbrecht, Peters & Schneider (2012) Alg. 1).

    Each step takes the largest residual variance ``d_p`` as pivot, makes column ``j`` of
    ``L`` from row ``p`` of ``K`` minus what the earlier columns explain, divided by
    ``sqrt(d_p)``, and lowers the residual variances by its square. It stops after ``rank``
    columns, once the residual trace is at most ``tol`` times ``trace(K)``, or once the
    largest residual variance is at the round-off level of ``K``'s entries.

    Parameters
    ----------
    diag : ndarray of shape (n,)
        ``diag(K)``, ``>= 0``.
    row : callable
        ``p -> K[p]``, an ndarray of shape (n,) (a copy that may be modified).
    rank : int
        Most columns.
    tol : float, default=0.0
        Relative residual trace at which to stop.

    Returns
    -------
    factor : ndarray of shape (n, k)
        ``L``, ``k <= rank``; exactly lower-triangular in pivot order.
    pivots : ndarray of int of shape (k,)
        The pivots, in order.
    residual_trace : float
        ``trace(K - L L^T)``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.linalg.preconditioners import pivoted_cholesky
    >>> K = np.array([[4.0, 2.0, 0.0], [2.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    >>> L, pivots, rest = pivoted_cholesky(np.diag(K), lambda p: K[p].copy(), 3)
    >>> bool(np.allclose(L @ L.T, K)), pivots.tolist(), rest
    (True, [0, 1, 2], 0.0)
    """
    if np.any(diag < 0):
        raise ValueError(
            f"the diagonal has negative entries (down to {float(diag.min()):.3g}); the "
            "variances of a kernel matrix are >= 0"
        )
    n = diag.shape[0]
    k_max = min(int(rank), n)
    d = np.array(diag, dtype=np.float64)  # the residual variances diag(K - L L^T)
    trace0 = float(d.sum())
    floor = n * _EPS * float(d.max(initial=0.0))  # round-off level of K's entries
    L = np.zeros((n, k_max), order="F")  # columns contiguous: L[:, :j] needs no copy
    pivots = np.empty(k_max, dtype=np.intp)
    j = 0
    while j < k_max:
        if float(d.sum()) <= tol * trace0:
            break
        p = int(np.argmax(d))
        dp = float(d[p])
        if dp <= floor:
            break
        col = row(p)
        if j:
            col -= L[:, :j] @ L[p, :j].copy()  # a contiguous vector: BLAS gemv
        col /= math.sqrt(dp)  # Harbrecht et al. (2012) Alg. 1
        col[pivots[:j]] = 0.0  # the earlier pivots' residuals are 0 (not round-off)
        L[:, j] = col
        col *= col
        d -= col
        d[p] = 0.0
        np.maximum(d, 0.0, out=d)  # round-off must not make a variance negative
        pivots[j] = p
        j += 1
    factor = L if j == k_max else L[:, :j].copy(order="F")
    return factor, pivots[:j].copy(), float(d.sum())


class PivotedCholesky(Preconditioner):
    """Greedy pivoted partial Cholesky factor of ``K``: ``P = L L^T + noise I``.

    At each of at most ``rank`` steps the pivot is the point with the largest residual
    variance ``d_p = [K - L L^T]_pp``; the new column is ``(k(X, x_p) - L L_p^T) /
    sqrt(d_p)`` and ``d`` drops by its square (Harbrecht, Peters and Schneider 2012, Alg.
    1). Only ``diag(K)`` and the ``rank`` rows ``k(x_p, X)`` are evaluated: ``O(n k)``
    memory and kernel evaluations, ``O(n k^2)`` time. ``trace(K - L L^T) = sum(d)``, the
    error in the trace norm, decreases monotonically with the rank; the factorisation
    stops early once it is at most ``tol * trace(K)``, or once the largest residual
    variance is at the round-off level ``n eps max(diag K)`` (then ``L L^T`` equals ``K`` to
    round-off). GPyTorch's default preconditioner (Gardner et al. 2018 §4.2).

    Parameters
    ----------
    rank : int, default=100
        Largest number of pivots (columns of ``L``), ``>= 1``; more than ``n`` is clipped
        to ``n``.
    tol : float, default=1e-6
        Stop when the residual trace is at most ``tol * trace(K)``, ``>= 0`` (0: only the
        rank and round-off stop it).

    Attributes
    ----------
    factor_ : ndarray of shape (n, ``rank_``)
        ``L``; row ``pivots_[j]`` is zero beyond column ``j`` (lower triangular in pivot
        order).
    noise_ : float
        The noise variance.
    rank_ : int
        Number of pivots taken, ``<= min(rank, n)``.
    pivots_ : ndarray of int of shape (``rank_``,)
        Indices of the pivots into ``X``, in the order taken.
    residual_trace_ : float
        ``trace(K - L L^T)``, the sum of the residual variances.
    n_features_in_ : int
        Number of input features.

    See Also
    --------
    Nystrom : The same form with centres chosen at random.

    Notes
    -----
    H. Harbrecht, M. Peters and R. Schneider (2012), *On the low-rank approximation by the
    pivoted Cholesky decomposition*, Applied Numerical Mathematics 62, 428-440; J. R.
    Gardner, G. Pleiss, D. Bindel, K. Q. Weinberger and A. G. Wilson (2018), *GPyTorch:
    Blackbox Matrix-Matrix Gaussian Process Inference with GPU Acceleration*, NeurIPS,
    §4.2. The pivoted factor of rank ``k`` equals the Nyström factor on the ``k`` pivots.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg.preconditioners import PivotedCholesky
    >>> X = np.random.default_rng(0).standard_normal((200, 2))
    >>> pre = PivotedCholesky(rank=30).fit(RBF(), X, noise=1e-2)
    >>> pre.factor_.shape
    (200, 30)
    >>> K = RBF()(X)
    >>> bool(np.isclose(pre.residual_trace_, np.trace(K - pre.factor_ @ pre.factor_.T)))
    True
    >>> bool(pre.residual_trace_ < 0.01 * np.trace(K))  # 30 pivots: 99% of the trace
    True

    With ``tol`` it stops once the residual trace is below ``tol * trace(K)``:

    >>> PivotedCholesky(rank=200, tol=1e-4).fit(RBF(), X, noise=1e-2).rank_ < 200
    True
    """

    def __init__(self, rank: int = 100, *, tol: float = 1e-6):
        self.rank = rank
        self.tol = tol

    def _check_params(self) -> None:
        check_int(self.rank, "rank", minimum=1)
        check_nonnegative_number(self.tol, "tol")

    def _fit_factor(self, kernel: Kernel, X: np.ndarray, noise: float) -> np.ndarray:
        n = X.shape[0]
        k_max = min(int(self.rank), n)
        tol = float(self.tol)
        _check_factor_memory(n, k_max, 8 * 4 * n, f"PivotedCholesky(rank={self.rank})")
        diag = np.asarray(kernel.diag(X), dtype=np.float64)
        if np.any(diag < 0):
            raise ValueError(
                f"kernel.diag(X) has negative entries (down to {float(diag.min()):.3g}); "
                "a kernel's variances are >= 0"
            )

        def row(p: int) -> np.ndarray:
            r = np.asarray(kernel(X[p : p + 1], X), dtype=np.float64)[0]
            r[p] = diag[p]  # the diagonal of kernel(X) (a White term puts noise only there)
            return r

        L, self.pivots_, self.residual_trace_ = pivoted_cholesky(diag, row, k_max, tol)
        return L


# ---------------------------------------------------------------------- Nystrom
def _nystrom_factor(kernel: Kernel, X: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """``K_nm K_mm^{-1/2}`` through the eigendecomposition of ``K_mm``, dropping the
    eigenvalues at round-off level (below ``m eps lambda_max``, a pseudo-inverse as
    ``numpy.linalg.pinv``); ``K_nm`` is formed one block of rows at a time."""
    C = X[centres]
    lam, U = scipy.linalg.eigh(np.asarray(kernel(C), dtype=np.float64), check_finite=False)
    top = float(lam.max(initial=0.0))
    keep = lam > len(centres) * _EPS * top if top > 0 else np.zeros(lam.shape, bool)
    T = U[:, keep] / np.sqrt(lam[keep])
    n = X.shape[0]
    L = np.empty((n, T.shape[1]))
    rows = _block_rows(len(centres))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        L[start:stop] = np.asarray(kernel(X[start:stop], C), dtype=np.float64) @ T
    return L


def _ridge_leverage_scores(
    kernel: Kernel, X: np.ndarray, noise: float, centres: np.ndarray
) -> np.ndarray:
    """Approximate ridge leverage scores ``l_i = [K (K + noise I)^{-1}]_ii`` from the
    uniform sketch ``J = centres`` (``|J| = m``):

    ``l_i ~ (K_ii - K_iJ (K_JJ + (noise m / n) I)^{-1} K_Ji) / noise``

    (Rudi et al. 2018, Def. 1 / eq. 6, with their ``lambda n`` our ``noise`` and
    ``A = (m / n) I`` for a uniform ``J``): ``sum_j phi_j phi_j^T`` over all ``n`` points is
    replaced by ``n / m`` times its sum over ``J``. Exact for ``J`` = all points; a point far
    from ``J`` gets a large score (about ``K_ii / noise``), so it is likely to be drawn."""
    n, m = X.shape[0], len(centres)
    C = X[centres]
    A = np.asarray(kernel(C), dtype=np.float64)
    A[np.diag_indices_from(A)] += noise * m / n
    chol = cholesky_or_none(A)
    if chol is None:
        chol = jittered_cholesky(A, name="K_JJ + (noise m/n) I", warn=False).factor
    diag = np.asarray(kernel.diag(X), dtype=np.float64)
    q = np.empty(n)
    rows = _block_rows(m)
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        W = scipy.linalg.solve_triangular(
            chol, np.asarray(kernel(C, X[start:stop]), dtype=np.float64), lower=True
        )
        q[start:stop] = np.einsum("ij,ij->j", W, W)
    scores = diag - q
    np.maximum(scores, 0.0, out=scores)
    scores /= noise
    return scores


def select_centres(
    kernel: Kernel,
    X: np.ndarray,
    n_centres: int,
    *,
    centres: str = "uniform",
    noise: float = 1.0,
    random_state: Any = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """``n_centres`` distinct rows of ``X`` for a Nyström approximation (sorted indices).

    Drawn uniformly without replacement, or (``centres="leverage"``) with probabilities
    proportional to approximate ridge leverage scores at ``noise``, computed from a
    uniform sketch of ``n_centres`` rows (Alaoui & Mahoney 2015; Rudi, Calandriello,
    Carratino & Rosasco 2018): points the sketch explains badly are favoured.

    Parameters
    ----------
    kernel : Kernel
        A kernel on vectors.
    X : ndarray of shape (n, d)
        The inputs.
    n_centres : int
        How many, at most ``n``.
    centres : {"uniform", "leverage"}, default="uniform"
        How they are drawn.
    noise : float, default=1.0
        The ridge of the leverage scores (the GP noise, or ``alpha * n`` for FALKON).
    random_state : int, RandomState or None
        Seeds the draws.

    Returns
    -------
    indices : ndarray of int of shape (n_centres,)
        Sorted row numbers.
    scores : ndarray of shape (n,) or None
        The leverage scores used (``None`` for uniform draws).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg.preconditioners import select_centres
    >>> X = np.random.default_rng(0).standard_normal((100, 2))
    >>> idx, _ = select_centres(RBF(), X, 10, centres="leverage", noise=0.1, random_state=0)
    >>> idx.shape, bool(np.all(np.diff(idx) > 0))
    ((10,), True)
    """
    n = X.shape[0]
    m = min(int(n_centres), n)
    rng = check_random_state(random_state)
    if centres == "uniform" or m == n:
        return np.sort(rng.choice(n, m, replace=False)).astype(np.intp), None
    sketch = np.sort(rng.choice(n, m, replace=False))
    scores = _ridge_leverage_scores(kernel, X, noise, sketch)
    p = scores.copy()
    if np.count_nonzero(p) < m:  # too few positive scores for m distinct draws
        p += 1e-12 * float(p.max()) if p.max() > 0 else 1.0
    return np.sort(rng.choice(n, m, replace=False, p=p / p.sum())).astype(np.intp), scores


class Nystrom(Preconditioner):
    """Nyström factor ``L = K_nm K_mm^{-1/2}`` on ``m = rank`` centres: ``P = L L^T + noise
    I`` with ``L L^T = K_nm K_mm^{-1} K_mn``.

    ``K_mm^{-1/2}`` comes from the eigendecomposition of ``K_mm``, dropping eigenvalues
    below ``m eps lambda_max`` (numerically zero: duplicated or nearly duplicated centres),
    so ``rank_`` may be smaller than ``m``. ``K_nm`` is formed one block of rows at a time
    and multiplied into ``L``: ``O(n m)`` memory and kernel evaluations, ``O(n m^2)`` time.

    Centres:

    * ``"uniform"``: ``m`` distinct points drawn uniformly;
    * ``"leverage"``: two passes. A uniform sketch of ``m`` points gives approximate ridge
      leverage scores ``l_i = [K (K + noise I)^{-1}]_ii ~ (K_ii - K_iJ (K_JJ + (noise m /
      n) I)^{-1} K_Ji) / noise`` (Rudi et al. 2018), and ``m`` distinct centres are drawn
      with probabilities proportional to them (Alaoui and Mahoney 2015): points in
      regions the sketch covers badly (isolated points, short lengthscales) are favoured.
      Twice the kernel evaluations of ``"uniform"``.

    Parameters
    ----------
    rank : int, default=100
        Number ``m`` of centres, ``>= 1``; more than ``n`` is clipped to ``n`` (all the
        points: then ``L L^T = K``).
    centres : {"uniform", "leverage"}, default="uniform"
        How the centres are drawn (see above).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the draws of the centres; the same value gives the same factor.

    Attributes
    ----------
    factor_ : ndarray of shape (n, ``rank_``)
        ``L``.
    noise_ : float
        The noise variance.
    rank_ : int
        Number of columns of ``L``: ``m`` minus the eigenvalues of ``K_mm`` dropped.
    centre_indices_ : ndarray of int of shape (m,)
        Indices of the centres into ``X``.
    leverage_scores_ : ndarray of shape (n,) or None
        The approximate ridge leverage scores the centres were drawn from
        (``centres="leverage"``); ``None`` for uniform centres, or when ``rank >= n`` makes
        every point a centre.
    n_features_in_ : int
        Number of input features.

    See Also
    --------
    PivotedCholesky : Greedy, deterministic centres (the same form of factor).

    Notes
    -----
    C. K. I. Williams and M. Seeger (2001), *Using the Nyström method to speed up kernel
    machines*; A. El Alaoui and M. W. Mahoney (2015), *Fast randomized kernel ridge
    regression with statistical guarantees*, NeurIPS (ridge leverage score sampling);
    A. Rudi, D. Calandriello, L. Carratino and L. Rosasco (2018), *On fast leverage score
    sampling and optimal learning*, NeurIPS (the estimator of the scores from a sketch).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg.preconditioners import Nystrom
    >>> X = np.random.default_rng(0).standard_normal((200, 2))
    >>> pre = Nystrom(rank=40, random_state=0).fit(RBF(), X, noise=1e-2)
    >>> pre.factor_.shape, pre.centre_indices_.shape
    ((200, 40), (40,))
    >>> lev = Nystrom(rank=40, centres="leverage", random_state=0).fit(RBF(), X, noise=1e-2)
    >>> lev.leverage_scores_.shape
    (200,)
    """

    def __init__(self, rank: int = 100, *, centres: str = "uniform", random_state: Any = None):
        self.rank = rank
        self.centres = centres
        self.random_state = random_state

    def _check_params(self) -> None:
        check_int(self.rank, "rank", minimum=1)
        check_in(self.centres, "centres", CENTRES)

    def _fit_factor(self, kernel: Kernel, X: np.ndarray, noise: float) -> np.ndarray:
        n = X.shape[0]
        m = min(int(self.rank), n)
        rows = _block_rows(m)
        _check_factor_memory(n, m, 8 * (rows * m + 2 * m * m + 2 * n), f"Nystrom(rank={m})")
        centres, self.leverage_scores_ = select_centres(
            kernel, X, m, centres=self.centres, noise=noise, random_state=self.random_state
        )
        self.centre_indices_ = centres
        return _nystrom_factor(kernel, X, centres)


# ---------------------------------------------------------------------- random features
def _fourier_kernel(kernel: Kernel) -> RBF | Matern:
    """``kernel`` as an RBF or Matern kernel that :class:`RandomFourierFeatures` accepts:
    a constant factor (``c * k``, ``Constant(c) * k``) is folded into the variance."""
    scale = 1.0
    inner: Kernel = kernel
    while True:
        if isinstance(inner, Scaled):
            scale *= float(inner.scale)
            inner = inner.kernel
        elif isinstance(inner, Product) and isinstance(inner.k1, Constant):
            scale *= float(inner.k1.value)
            inner = inner.k2
        elif isinstance(inner, Product) and isinstance(inner.k2, Constant):
            scale *= float(inner.k2.value)
            inner = inner.k1
        else:
            break
    if not isinstance(inner, (RBF, Matern)) or not scale > 0:
        raise TypeError(
            "RandomFeaturePreconditioner needs a kernel with random Fourier features: RBF, "
            "Matern or Laplace (any lengthscale, ARD included, and variance), possibly times "
            f"a positive constant such as 2.0 * RBF(); got {kernel!r}. Use PivotedCholesky "
            "or Nystrom, which take any kernel on vectors"
        )
    out = inner.clone()
    if scale != 1.0:
        out.set_params(variance=float(inner.variance) * scale)
    assert isinstance(out, (RBF, Matern))
    return out


def _block_size(coupling: str, d: int) -> int:
    """Frequencies per independent block: 1 (iid), ``d`` (orthogonal), ``2**ceil(log2 d)``
    (hadamard)."""
    if coupling == "orthogonal":
        return d
    if coupling == "hadamard":
        return 1 << max(0, (d - 1).bit_length())
    return 1


def _unit_kernel(kernel: RBF | Matern) -> RBF | Matern:
    """The isotropic kernel of the same family, unit lengthscale and variance (the
    theory's kernel in the inputs scaled by the lengthscales)."""
    nu = float(kernel.nu) if isinstance(kernel, Matern) else math.inf
    return RBF() if math.isinf(nu) else Matern(nu=nu)


def _predicted_mse(
    unit: RBF | Matern, z: float, n_frequencies: int, d: int, coupling: str
) -> float:
    """Relative MSE (over ``variance^2``) of the kernel estimate at distance ``z`` (in
    lengthscales); ORF's formula stands in for SORF's, which has no closed form."""
    if coupling == "iid":
        return float(mse_rff_iid(unit, z, n_frequencies))
    return float(mse_rff_orthogonal(unit, z, n_frequencies, d))


class RandomFeaturePreconditioner(Preconditioner):
    """Random Fourier feature factor ``L = Phi(X)``: ``P = Phi Phi^T + noise I``.

    ``Phi`` is :class:`~kernelkit.features.RandomFourierFeatures` (paired cosine and sine
    columns) for the kernel, with its lengthscale (one per feature for ARD) and variance;
    a constant factor, as in ``2.0 * RBF()``, is folded into the variance. ``O(n D)``
    memory for ``D = n_components`` columns and no kernel evaluation at all; ``O(n d D)``
    time (``O(n D log d)`` for ``"hadamard"``).

    **Choosing the width** (``n_components=None``). The error of the kernel estimate
    ``<phi(x), phi(y)>`` at the median pairwise distance ``z`` of a subsample of
    500 rows of ``X``, measured in lengthscales, is known in
    closed form (Rowland 2018, Prop. 7.17 for i.i.d. frequencies, Prop. 7.15 for
    orthogonal ones; :func:`~kernelkit.features.theory.recommend_features`). The width is
    twice the smallest number of frequencies ``m`` whose MSE, relative to
    ``variance^2``, is at most ``tol^2`` for every ``m' >= m``, rounded up to whole blocks
    of the coupling (``d`` frequencies for ``"orthogonal"``, ``2**ceil(log2 d)`` for
    ``"hadamard"``, whose MSE is taken to be ORF's: SORF has no closed form, and
    approaches ORF as ``d`` grows, Yu et al. 2016), and capped at ``max_components`` and
    at a factor of a quarter of this machine's memory.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of feature columns ``D`` (``rank_``), ``>= 1``; ``None`` chooses it from the
        error theory (above). An even width is best: each frequency gives a cosine and a
        sine column.
    coupling : {"iid", "orthogonal", "hadamard"}, default="orthogonal"
        The joint law of the frequencies (``"orf"``, ``"sorf"`` accepted), as in
        :class:`~kernelkit.features.RandomFourierFeatures`.
    tol : float, default=0.05
        Target root-mean-square error of the kernel estimate at the median distance,
        relative to the variance, ``> 0`` (used when ``n_components=None``).
    max_components : int, default=4096
        Largest width chosen when ``n_components=None``, ``>= 2``.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the subsample for the median distance and the features.

    Attributes
    ----------
    factor_ : ndarray of shape (n, ``rank_``)
        ``L = Phi(X)``.
    noise_ : float
        The noise variance.
    rank_ : int
        ``D``, the number of feature columns.
    feature_map_ : RandomFourierFeatures
        The fitted feature map (``feature_map_.transform(X_new)`` gives features of new
        points).
    distance_ : float
        The median pairwise distance of the subsample, in lengthscales.
    predicted_mse_ : float
        The theory's MSE of the kernel estimate at ``distance_`` for this width, relative
        to ``variance^2`` (for an odd width, that of ``rank_ // 2`` frequencies).
    n_features_in_ : int
        Number of input features.

    Raises
    ------
    TypeError
        From :meth:`fit`, for a kernel that random Fourier features cannot represent
        (anything but RBF, Matern, Laplace and their constant multiples): use
        :class:`PivotedCholesky` or :class:`Nystrom`.

    See Also
    --------
    kernelkit.features.RandomFourierFeatures : The feature map.
    kernelkit.features.theory.recommend_features : The width rule.

    Notes
    -----
    M. Rowland (2018), *Structure in Machine Learning*, Part II, Props. 7.15 and 7.17; A.
    Rahimi and B. Recht (2007), *Random features for large-scale kernel machines*; F. X.
    Yu, A. T. Suresh, K. Choromanski, D. Holtmann-Rice and S. Kumar (2016), *Orthogonal
    random features*. As a preconditioner the features approximate ``K`` uniformly in
    its entries rather than in its top eigenvectors, so at equal rank they usually reduce
    the condition number less than :class:`PivotedCholesky` or :class:`Nystrom` for smooth
    kernels (Avron et al. 2017, *Faster kernel ridge regression using sketching and
    preconditioning*).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg.preconditioners import RandomFeaturePreconditioner
    >>> X = np.random.default_rng(0).standard_normal((300, 4))
    >>> pre = RandomFeaturePreconditioner(random_state=0).fit(2.0 * RBF(2.0), X, noise=0.1)
    >>> pre.rank_ % 8 == 0  # whole blocks of d = 4 orthogonal frequencies, cos and sin
    True
    >>> bool(pre.predicted_mse_ <= 0.05**2)
    True
    >>> RandomFeaturePreconditioner(64).fit(RBF(), X, noise=0.1).factor_.shape
    (300, 64)
    """

    def __init__(
        self,
        n_components: int | None = None,
        *,
        coupling: str = "orthogonal",
        tol: float = 0.05,
        max_components: int = 4096,
        random_state: Any = None,
    ):
        self.n_components = n_components
        self.coupling = coupling
        self.tol = tol
        self.max_components = max_components
        self.random_state = random_state

    def _check_params(self) -> None:
        if self.n_components is not None:
            check_int(self.n_components, "n_components", minimum=1)
        resolve_coupling(self.coupling, COUPLINGS)
        check_positive_scalar(self.tol, "tol")
        check_int(self.max_components, "max_components", minimum=2)

    def _fit_factor(self, kernel: Kernel, X: np.ndarray, noise: float) -> np.ndarray:
        fk = _fourier_kernel(kernel)
        coupling = resolve_coupling(self.coupling, COUPLINGS)
        rng = check_random_state(self.random_state)
        n, d = X.shape
        ls = np.asarray(fk.lengthscale, dtype=np.float64)
        if ls.ndim == 1 and ls.shape != (d,):
            raise ValueError(
                f"the kernel's lengthscale has {ls.size} entries but X has {d} features"
            )
        z = self._median_distance(X / ls, rng)
        unit = _unit_kernel(fk)
        if self.n_components is None:
            width = self._theory_width(unit, z, d, n, coupling)
        else:
            width = int(self.n_components)
        _check_factor_memory(n, width, 0, f"RandomFeaturePreconditioner(n_components={width})")
        self.distance_ = z
        self.predicted_mse_ = _predicted_mse(unit, z, max(1, width // 2), d, coupling)
        rff = RandomFourierFeatures(width, kernel=fk, coupling=coupling, random_state=rng)
        self.feature_map_ = rff.fit(X)
        return np.asarray(rff.transform(X), dtype=np.float64)

    @staticmethod
    def _median_distance(Xs: np.ndarray, rng: np.random.RandomState) -> float:
        """Median pairwise distance of a subsample of the scaled inputs; one lengthscale
        when it is undefined (a single point, or mostly duplicated points)."""
        if Xs.shape[0] < 2:
            return 1.0
        try:
            return median_heuristic(Xs, max_samples=_MEDIAN_SAMPLES, random_state=rng)
        except ValueError:
            return 1.0

    def _theory_width(self, unit: RBF | Matern, z: float, d: int, n: int, coupling: str) -> int:
        """Twice the number of frequencies of the width rule (class docstring)."""
        rec = recommend_features(unit, d, float(self.tol) ** 2, z=z)
        m = rec.n_frequencies_iid if coupling == "iid" else rec.n_frequencies_orthogonal
        block = _block_size(coupling, d)
        m = -(-m // block) * block
        cap = int(self.max_components) // 2
        budget = memory_limit() // 4 // (8 * n) // 2  # frequencies whose factor fits
        limit = max(1, min(cap, budget))
        if m > limit:
            m = max(limit // block * block, min(block, limit))
        return 2 * m
