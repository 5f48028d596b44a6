"""Johnson–Lindenstrauss random projections: Gaussian (JLT), orthogonal (OJLT with
``G_ort`` or Hadamard–Rademacher matrices), the complex S-Hybrid variant, sparse and
fast (FJLT) ones (Rowland (2018) §5.2–5.3, Ch. 6; Vempala (1997) Lemma 8)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import (
    check_in,
    check_int,
    check_random_state,
)
from kernelkit.features._coupling import check_input, check_n_jobs
from kernelkit.features.matrices import KINDS, SUBSAMPLING, apply_matrix, sample_matrix

__all__ = ["RandomProjection", "jl_failure_bound", "jl_min_dim"]


def jl_min_dim(n_samples: int, eps: float) -> int:
    """Smallest ``m`` with ``m > 8 log(n_samples) / eps**2`` (Rowland (2018) Thm 5.4).

    Thm 5.4 is an existence statement: some linear map to ``m`` dimensions keeps every
    pairwise squared distance of ``n_samples`` points within a factor ``1 ± eps``. For
    the probability that a *random* Gaussian JLT of that size does so, see
    :func:`jl_failure_bound`. scikit-learn's ``johnson_lindenstrauss_min_dim`` uses the
    Dasgupta–Gupta bound ``m >= 4 log(n) / (eps²/2 - eps³/3) = 8 log(n) / (eps² (1 -
    2 eps / 3))``, larger by the factor ``1 / (1 - 2 eps / 3)`` (7% at eps = 0.1), which
    makes the union bound over pairs give success probability at least ``1/n``.

    Examples
    --------
    >>> jl_min_dim(1000, 0.1)
    5527
    >>> from sklearn.random_projection import johnson_lindenstrauss_min_dim
    >>> int(johnson_lindenstrauss_min_dim(1000, eps=0.1))
    5920
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    eps = _check_eps(eps)
    return math.floor(8.0 * math.log(n) / eps**2) + 1


def jl_failure_bound(n_samples: int, n_components: int, eps: float) -> float:
    """Union bound on the probability that a Gaussian JLT ``x -> G x / sqrt(m)`` moves
    some pairwise squared distance of ``n_samples`` points by more than a factor
    ``1 ± eps``: ``min(1, C(n, 2) P(|chi2_m / m - 1| > eps))``.

    Exact per pair: by rotation invariance ``|G z|² / |z|²`` is ``chi2_m`` for any
    ``z != 0`` (Vempala (1997) Lemma 8 bounds the same tail for a random subspace).

    At ``m = jl_min_dim(n, eps)`` the bound is about 0.1–0.4 for the usual ``n`` and
    ``eps`` (the random map works with probability at least 0.6–0.9):

    Examples
    --------
    >>> round(jl_failure_bound(100, jl_min_dim(100, 0.5), 0.5), 2)
    0.39
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    m = check_int(n_components, "n_components", minimum=1)
    eps = _check_eps(eps)
    tail = stats.chi2.sf(m * (1.0 + eps), m) + stats.chi2.cdf(m * (1.0 - eps), m)
    return float(min(1.0, n * (n - 1) / 2 * tail))


def _check_eps(eps: Any) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating)):
        raise TypeError(f"eps must be a number in (0, 1), got {eps!r}")
    if not 0.0 < float(eps) < 1.0:
        raise ValueError(f"eps must be in (0, 1), got {eps!r}")
    return float(eps)


class RandomProjection(TransformerMixin, BaseEstimator):
    """Random linear map ``f: R^d -> R^m`` with ``E <f(x), f(y)> = <x, y>``.

    ========== ======================================== ==============================
    kind       map                                      reference
    ========== ======================================== ==============================
    gaussian   ``G x / sqrt(m)``, ``G`` i.i.d. N(0, 1)  JLT (§5.3.1), Vempala Lemma 8
    orthogonal ``G_ort x / sqrt(m)``                    OJLT (§6.3, Defs. 6.1, 7.1)
    hadamard   ``sqrt(D/m) P S D_k ... S D_1 x``        OJLT (§6.3, Defs. 6.2–6.4)
    hybrid     as hadamard, ``D_k`` on ``{±1, ±i}``     S-Hybrid (§6.3.5, eq. 6.11)
    sparse     ``A x / sqrt(m)``, sparse unit-variance  Achlioptas; Li et al.
    fjlt       ``P H D x / sqrt(m)``                    FJLT (§5.3.1)
    ========== ======================================== ==============================

    ``D`` is ``d`` padded to a power of two (inputs are zero-padded). ``hybrid`` returns
    complex features whose inner-product estimate is ``Re <conj(f(x)), f(y)>`` (eq.
    6.11; half the MSE of ``hadamard``, Thm 6.9); :meth:`estimate_inner` applies the
    right estimator for every kind, so use it rather than ``f(X) @ f(Y).T``.

    Parameters
    ----------
    n_components : int
        Target dimension ``m`` (see :func:`jl_min_dim`). ``m > d`` stacks independent
        blocks for ``orthogonal``, ``hadamard`` and ``hybrid``.
    kind : str, default="gaussian"
    n_blocks : int, default=3
        ``k``, the number of ``S D`` factors (``hadamard``, ``hybrid``).
    subsampling : {"without_replacement", "with_replacement", "first"}
        Row selection of ``P`` for ``hadamard``/``hybrid`` (Def. 6.4).
    density : "auto", "achlioptas", "li" or float, default="auto"
        ``sparse``: fraction of non-zeros, ``"auto"`` = ``"li"`` = ``1/sqrt(d)``,
        ``"achlioptas"`` = 1/3. ``fjlt``: the density ``q`` of ``P``, ``"auto"`` =
        ``min(log(n_samples)**2 / D, 1)`` from the data given to ``fit``.
    random_state : int, RandomState or None
    n_jobs : int or None, default=None
        Threads over blocks of rows for the structured and sparse kinds (``None``: as
        many as BLAS uses, ``-1``: all CPUs); dense kinds use BLAS.

    Attributes
    ----------
    n_features_in_ : int
    matrix_ : ndarray, scipy.sparse matrix, HadamardRademacher or FJLT
        The unscaled random matrix (:mod:`kernelkit.features.matrices`).
    scale_ : float
        ``f(x) = scale_ * matrix_ x``.
    n_parameter_bytes_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.RandomState(0).randn(50, 256)
    >>> proj = RandomProjection(128, kind="hadamard", random_state=0).fit(X)
    >>> proj.transform(X).shape
    (50, 128)
    >>> G = proj.estimate_inner(X[:3], X[:3])
    >>> G.shape
    (3, 3)
    """

    def __init__(
        self,
        n_components: int = 100,
        *,
        kind: str = "gaussian",
        n_blocks: int = 3,
        subsampling: str = "without_replacement",
        density: Any = "auto",
        random_state: Any = None,
        n_jobs: int | None = None,
    ):
        self.n_components = n_components
        self.kind = kind
        self.n_blocks = n_blocks
        self.subsampling = subsampling
        self.density = density
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X: Any, y: Any = None) -> RandomProjection:
        """Draw the projection for ``X.shape[1]`` features (``fjlt`` also uses
        ``X.shape[0]`` for its density)."""
        m = check_int(self.n_components, "n_components", minimum=1)
        check_in(self.kind, "kind", KINDS)
        check_int(self.n_blocks, "n_blocks", minimum=1)
        check_in(self.subsampling, "subsampling", SUBSAMPLING)
        check_n_jobs(self.n_jobs)
        X = check_input(X, "X")
        n, d = X.shape
        rng = check_random_state(self.random_state)
        kind = self.kind
        options: dict[str, Any] = {}
        if kind in ("hadamard", "hybrid"):
            options = {"n_blocks": self.n_blocks, "subsampling": self.subsampling}
        elif kind == "sparse":
            options = {"density": self.density}
        elif kind == "fjlt":
            options = {"n_points": n} if self.density == "auto" else {"q": self.density}
        elif self.density != "auto":
            raise ValueError(f"density applies to kind='sparse' or 'fjlt' only, got kind={kind!r}")
        A = sample_matrix(kind, m, d, rng, **options)
        if kind in ("hadamard", "hybrid"):
            self.scale_ = math.sqrt(A.d_pad / m)  # rows have unit norm (Rowland §6.3)
            self.n_parameter_bytes_ = A.n_parameter_bytes
        else:
            self.scale_ = 1.0 / math.sqrt(m)  # unit-variance entries
            self.n_parameter_bytes_ = _nbytes(A)
        self.matrix_ = A
        self.n_features_in_ = d
        return self

    def transform(self, X: Any) -> np.ndarray:
        """``f(X)``, shape ``(n_samples, n_components)``; complex for ``kind="hybrid"``."""
        check_is_fitted(self, "matrix_")
        X = check_input(X, "X", n_features=self.n_features_in_)
        F = apply_matrix(self.matrix_, X, n_jobs=self.n_jobs)
        F *= self.scale_
        return F

    @staticmethod
    def inner(FX: np.ndarray, FY: np.ndarray) -> np.ndarray:
        """Inner-product estimates from features: ``Re(conj(FX) @ FY.T)`` (the real part
        of the Hermitian product, eq. 6.11; the ordinary product for real features)."""
        if np.iscomplexobj(FX) or np.iscomplexobj(FY):
            return (np.conj(FX) @ np.asarray(FY).T).real
        return FX @ FY.T

    def estimate_inner(self, X: Any, Y: Any = None) -> np.ndarray:
        """Unbiased estimates of ``X @ Y.T`` (``Y = X`` if omitted) from the projections."""
        FX = self.transform(X)
        FY = FX if Y is None else self.transform(Y)
        return self.inner(FX, FY)


def _nbytes(A: Any) -> int:
    if hasattr(A, "n_parameter_bytes"):
        return int(A.n_parameter_bytes)
    if hasattr(A, "indptr"):
        return int(A.data.nbytes + A.indices.nbytes + A.indptr.nbytes)
    return int(A.nbytes)
