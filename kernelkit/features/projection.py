"""Johnson–Lindenstrauss random projections: Gaussian (JLT), orthogonal (OJLT with
``G_ort`` or Hadamard–Rademacher matrices), the complex S-Hybrid variant, sparse and
fast (FJLT) ones (Rowland (2018) §5.2–5.3, Ch. 6; Vempala (1997) Lemma 8)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from kernelkit._validation import check_fraction, check_in, check_int
from kernelkit.features.base import RandomMap
from kernelkit.features.matrices import (
    PROJECTION_COUPLINGS,
    SUBSAMPLING,
    _apply,
    _density,
    matrix_gain,
    sample_matrix,
)
from kernelkit.features.walsh_hadamard import next_power_of_two

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

    An ``eps`` so small that the bound exceeds the float range (about ``1e308``
    dimensions, e.g. ``eps=1e-300``) is an error, not an overflow.

    Parameters
    ----------
    n_samples : int
        Number ``n`` of points, at least 1.
    eps : float in (0, 1)
        The distortion allowed.

    Returns
    -------
    int
        The dimension ``m``.

    Raises
    ------
    ValueError
        If ``eps`` is so small that the bound exceeds the float range.

    Examples
    --------
    >>> jl_min_dim(1000, 0.1)
    5527
    >>> from sklearn.random_projection import johnson_lindenstrauss_min_dim
    >>> int(johnson_lindenstrauss_min_dim(1000, eps=0.1))
    5920
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    eps = check_fraction(eps, "eps")
    bound = 8.0 * math.log(n) / eps / eps  # not / eps**2: that underflows to 0 first
    if not math.isfinite(bound):
        log10 = math.log10(8.0 * math.log(n)) - 2.0 * math.log10(eps)
        raise ValueError(
            f"eps={eps!r} is too small: the bound 8 log(n_samples) / eps**2 for "
            f"n_samples={n} is about 10**{log10:.0f} dimensions, beyond the float range; "
            "use a larger eps"
        )
    return math.floor(bound) + 1


def jl_failure_bound(n_samples: int, n_components: int, eps: float) -> float:
    """Union bound on the probability that a Gaussian JLT ``x -> G x / sqrt(m)`` moves
    some pairwise squared distance of ``n_samples`` points by more than a factor
    ``1 ± eps``: ``min(1, C(n, 2) P(|chi2_m / m - 1| > eps))``.

    Exact per pair: by rotation invariance ``|G z|² / |z|²`` is ``chi2_m`` for any
    ``z != 0`` (Vempala (1997) Lemma 8 bounds the same tail for a random subspace).

    At ``m = jl_min_dim(n, eps)`` the bound is about 0.1–0.4 for the usual ``n`` and
    ``eps`` (the random map works with probability at least 0.6–0.9).

    Parameters
    ----------
    n_samples : int
        Number ``n`` of points, at least 1.
    n_components : int
        The target dimension ``m``, at least 1.
    eps : float in (0, 1)
        The distortion allowed.

    Returns
    -------
    float
        The bound, in [0, 1].

    Examples
    --------
    >>> round(jl_failure_bound(100, jl_min_dim(100, 0.5), 0.5), 2)
    0.39
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    m = check_int(n_components, "n_components", minimum=1)
    eps = check_fraction(eps, "eps")
    if m >= 2**1000:  # beyond the float range: the chi2 tail is 0 to any precision
        return 0.0
    mf = float(m)  # exact below 2^53; SciPy takes no Python int beyond int64
    tail = stats.chi2.sf(mf * (1.0 + eps), mf) + stats.chi2.cdf(mf * (1.0 - eps), mf)
    if n < 2**50:
        return float(min(1.0, n * (n - 1) / 2 * tail))
    if tail == 0.0:
        return 0.0
    # C(n, 2) beyond the float range: the product in logs
    log_bound = math.log(n) + math.log(n - 1) - math.log(2.0) + math.log(tail)
    return math.exp(min(log_bound, 0.0))


class RandomProjection(RandomMap):
    """Random linear map ``f: R^d -> R^m`` with ``E <f(x), f(y)> = <x, y>``.

    ========== ======================================== ==============================
    coupling   map                                      reference
    ========== ======================================== ==============================
    iid        ``G x / sqrt(m)``, ``G`` i.i.d. N(0, 1)  JLT (§5.3.1), Vempala Lemma 8
    orthogonal ``G_ort x / sqrt(m)``                    OJLT (§6.3, Defs. 6.1, 7.1)
    hadamard   ``sqrt(D/m) P S D_k ... S D_1 x``        OJLT (§6.3, Defs. 6.2–6.4)
    hybrid     as hadamard, ``D_k`` on ``{±1, ±i}``     S-Hybrid (§6.3.5, eq. 6.11)
    sparse     ``A x / sqrt(m)``, sparse unit-variance  Achlioptas; Li et al.
    fjlt       ``P H D x / sqrt(m)``                    FJLT (§5.3.1)
    ========== ======================================== ==============================

    ``D`` is ``d`` padded to a power of two (inputs are zero-padded). ``hybrid`` returns
    complex features whose inner-product estimate is ``Re <conj(f(x)), f(y)>`` (eq.
    6.11; half the MSE of ``hadamard``, Thm 6.9); :meth:`estimate_inner` applies the
    right estimator for every coupling, so use it rather than ``f(X) @ f(Y).T``.

    Parameters
    ----------
    n_components : int or "auto", default=100
        Target dimension ``m``. ``m > d`` stacks independent blocks for ``orthogonal``,
        ``hadamard`` and ``hybrid``. ``"auto"``: ``m = jl_min_dim(n_samples, eps)`` for
        the data given to ``fit`` (as scikit-learn's ``GaussianRandomProjection``), an
        error if that exceeds the number of features (a projection would not reduce the
        dimension).
    eps : float in (0, 1), default=0.1
        Distortion allowed by the Johnson–Lindenstrauss bound (``n_components="auto"``
        only).
    coupling : str, default="iid"
        One of :data:`kernelkit.features.PROJECTION_COUPLINGS` (the table above);
        ``"orf"`` and ``"sorf"`` are accepted for ``"orthogonal"`` and ``"hadamard"``.
    n_blocks : int, default=3
        ``k``, the number of ``S D`` factors (``hadamard``, ``hybrid``).
    subsampling : {"without_replacement", "with_replacement", "first"}
        Row selection of ``P`` for ``hadamard``/``hybrid`` (Def. 6.4).
    density : "auto", "achlioptas", "li" or float, default="auto"
        ``sparse``: fraction of non-zeros, ``"auto"`` = ``"li"`` = ``1/sqrt(d)``,
        ``"achlioptas"`` = 1/3. ``fjlt``: the density ``q`` of ``P``, ``"auto"`` =
        ``min(log(n_samples)**2 / D, 1)`` from the data given to ``fit``. A float must be
        at least ``1/d`` (``1/D`` for ``fjlt``): below that most rows of the matrix are
        empty and most outputs exactly 0, so it is refused.
    random_state : int, RandomState or None, default=None
        Seeds the random draws of ``fit``; the same value gives the same map.
    n_jobs : int or None, default=None
        Threads over blocks of rows for the structured and sparse couplings (``None``: as
        many as BLAS uses, ``-1``: all CPUs); dense couplings use BLAS.

    Attributes
    ----------
    n_components_ : int
        The target dimension ``m`` (from :func:`jl_min_dim` for ``"auto"``).
    coupling_ : str
        The coupling used (aliases resolved).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame given to ``fit`` (only then).
    matrix_ : ndarray, scipy.sparse matrix, HadamardRademacher or FJLT
        The unscaled random matrix (:mod:`kernelkit.features.matrices`).
    scale_ : float
        ``f(x) = scale_ * matrix_ x``.
    n_parameter_bytes_ : int

    See Also
    --------
    RandomMap : The base class (shared parameters, fit and transform plumbing).
    sklearn.random_projection.GaussianRandomProjection : The ``iid`` coupling.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.RandomState(0).randn(50, 256)
    >>> proj = RandomProjection(128, coupling="hadamard", random_state=0).fit(X)
    >>> proj.transform(X).shape
    (50, 128)
    >>> G = proj.estimate_inner(X[:3], X[:3])
    >>> G.shape
    (3, 3)
    >>> RandomProjection("auto", eps=0.5, random_state=0).fit(X).n_components_
    126
    """

    _couplings = PROJECTION_COUPLINGS

    def __init__(
        self,
        n_components: int | str = 100,
        *,
        eps: float = 0.1,
        coupling: str = "iid",
        n_blocks: int = 3,
        subsampling: str = "without_replacement",
        density: Any = "auto",
        random_state: Any = None,
        n_jobs: int | None = None,
    ):
        self.eps = eps
        self.subsampling = subsampling
        self.density = density
        self._set_shared_params(n_components, coupling, n_blocks, random_state, n_jobs)

    def _check_n_components(self) -> None:
        if isinstance(self.n_components, str):
            check_in(self.n_components, "n_components", ("auto",))
        else:
            super()._check_n_components()

    def _check_params(self) -> None:
        super()._check_params()
        check_fraction(self.eps, "eps")
        check_in(self.subsampling, "subsampling", SUBSAMPLING)

    def _fitted_n_components(self, X: np.ndarray) -> int:
        if isinstance(self.n_components, str):  # "auto"
            return _auto_components(X.shape[0], X.shape[1], float(self.eps))
        return int(self.n_components)

    def _make_random_matrix(self, n_rows: int, X: np.ndarray, rng: np.random.RandomState) -> Any:
        """The unscaled matrix of ``coupling_`` (``fjlt`` also uses ``X.shape[0]`` for its
        density)."""
        n, d = X.shape
        coupling = self.coupling_
        options: dict[str, Any] = {}
        if coupling in ("hadamard", "hybrid"):
            options = {"n_blocks": self.n_blocks, "subsampling": self.subsampling}
        elif coupling == "sparse":
            options = {"density": self.density}
        elif coupling == "fjlt":
            if isinstance(self.density, str) and self.density == "auto":
                options = {"n_points": n}
            else:  # checked here, so that the message names density (fjlt_matrix's q)
                options = {"q": _density(self.density, next_power_of_two(d))}
        elif self.density != "auto":
            raise ValueError(
                f"density applies to coupling='sparse' or 'fjlt' only, got coupling={coupling!r}"
            )
        return sample_matrix(coupling, n_rows, d, rng, **options)

    def _fit_random(self, X: np.ndarray, A: Any, rng: np.random.RandomState) -> None:
        m = A.shape[0]
        if self.coupling_ in ("hadamard", "hybrid"):
            self.scale_ = math.sqrt(A.d_pad / m)  # rows have unit norm (Rowland §6.3)
        else:
            self.scale_ = 1.0 / math.sqrt(m)  # unit-variance entries
        self.n_parameter_bytes_ = _nbytes(A)
        self.matrix_ = A

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        # "hybrid" maps real input to complex features (eq. 6.11): it preserves no dtype
        if self.coupling == "hybrid":
            tags.transformer_tags.preserves_dtype = []
        return tags

    def _transform(self, X: np.ndarray) -> np.ndarray:
        """``f(X)``; complex (complex128, or complex64 from float32) for ``hybrid``."""
        F = _apply(self.matrix_, X, self.n_jobs, "RandomProjection.transform")
        F *= self.scale_
        return F

    def _gain(self) -> float:
        return matrix_gain(self.matrix_) * max(self.scale_, 1.0)

    @staticmethod
    def inner(FX: Any, FY: Any) -> np.ndarray:
        """Inner-product estimates from features: ``Re(conj(FX) @ FY.T)`` (the real part
        of the Hermitian product, eq. 6.11; the ordinary product for real features).

        Parameters
        ----------
        FX : array-like of shape (n, m)
            Features from :meth:`transform`.
        FY : array-like of shape (k, m)
            Features from :meth:`transform` of the same fitted projection.

        Returns
        -------
        ndarray of shape (n, k)
            The estimates of the inner products (real).

        Raises
        ------
        ValueError
            If ``FX`` or ``FY`` is not 2-D, or their numbers of columns differ.
        """
        FX, FY = _check_features(FX, "FX"), _check_features(FY, "FY")
        if FX.shape[1] != FY.shape[1]:
            raise ValueError(
                f"FX has shape {FX.shape} and FY has shape {FY.shape}: both need the same "
                "number of columns (n_components, from one fitted projection)"
            )
        if np.iscomplexobj(FX) or np.iscomplexobj(FY):
            return (np.conj(FX) @ FY.T).real
        return FX @ FY.T

    def estimate_inner(self, X: Any, Y: Any = None) -> np.ndarray:
        """Unbiased estimates of ``X @ Y.T`` (``Y = X`` if omitted) from the projections.

        Parameters
        ----------
        X : array-like of shape (n_samples_X, n_features)
            Input rows.
        Y : array-like of shape (n_samples_Y, n_features), optional
            Input rows; ``None`` means ``X``.

        Returns
        -------
        ndarray of shape (n_samples_X, n_samples_Y)
            The estimates, by :meth:`inner` on the projections.
        """
        FX = self.transform(X)
        FY = FX if Y is None else self.transform(Y)
        return self.inner(FX, FY)


def _auto_components(n_samples: int, n_features: int, eps: float) -> int:
    """``jl_min_dim(n_samples, eps)``, refused when it is not below ``n_features``."""
    m = jl_min_dim(n_samples, eps)
    if m > n_features:
        raise ValueError(
            f"n_components='auto' with eps={eps} and n_samples={n_samples} gives "
            f"n_components={m} (jl_min_dim), more than the {n_features} features of X: "
            "a projection would not reduce the dimension; use a larger eps or an integer "
            "n_components"
        )
    return m


def _check_features(F: Any, name: str) -> np.ndarray:
    F = np.asarray(F)
    if not (np.issubdtype(F.dtype, np.number) or F.dtype == bool):
        raise TypeError(f"{name} must be an array of numbers, got dtype {F.dtype}")
    if F.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of features (n_samples, n_components), got shape {F.shape}"
        )
    return F


def _nbytes(A: Any) -> int:
    """Bytes of the random parameters of a matrix of :mod:`kernelkit.features.matrices`."""
    if hasattr(A, "n_parameter_bytes"):
        return int(A.n_parameter_bytes)
    if hasattr(A, "indptr"):
        return int(A.data.nbytes + A.indices.nbytes + A.indptr.nbytes)
    return int(A.nbytes)
