"""Random Fourier features for stationary kernels: i.i.d., orthogonal (ORF) and
Hadamard-structured (SORF) frequencies (Rowland (2018) §5.1, Ch. 7)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from kernelkit._memory import empty_output
from kernelkit._validation import (
    check_in,
    check_int,
    check_n_jobs,
    check_positive,
    check_positive_scalar,
    check_random_state,
    validate_X,
)
from kernelkit.features._coupling import (
    COUPLINGS,
    Directions,
)
from kernelkit.features._structured import chi_norms
from kernelkit.features._trig import sincos
from kernelkit.features.matrices import check_projections_finite
from kernelkit.kernels import median_heuristic

__all__ = ["FOURIER_KERNELS", "RandomFourierFeatures", "fourier_norm_scales"]

#: Kernels with a Fourier (Bochner) form that this module samples.
FOURIER_KERNELS = ("rbf", "gaussian", "matern", "laplace")
FEATURES = ("cos_sin", "cos_bias")


def _nu_for(kernel: str, nu: Any) -> float:
    """The Matérn smoothness of ``kernel`` (``inf`` for the Gaussian kernel)."""
    if kernel in ("rbf", "gaussian"):
        return math.inf
    if kernel == "laplace":
        return 0.5
    if isinstance(nu, bool) or not isinstance(nu, numbers.Real):
        raise TypeError(f"nu must be a number, got {type(nu).__name__}")
    if not float(nu) > 0:
        raise ValueError(f"nu must be > 0 for the Matérn kernel (or inf for RBF), got {nu!r}")
    return float(nu)


def fourier_norm_scales(nu: float, size: int, rng: np.random.RandomState) -> np.ndarray:
    """Scale-mixture factors ``s``: a Matérn-``nu`` frequency is ``s g`` with ``g`` standard
    Gaussian and ``s = sqrt(2 nu / chi2_{2 nu})`` (a multivariate t with ``2 nu`` degrees of
    freedom; Rowland (2018) Table 7.1, whose exponent should read ``-nu - d/2``); ``s = 1``
    for the Gaussian kernel (``nu = inf``); the Laplace kernel is ``nu = 1/2`` (Cauchy)."""
    if math.isinf(nu):
        return np.ones(size)
    return np.sqrt(2.0 * nu / rng.chisquare(2.0 * nu, size=size))


class RandomFourierFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Random Fourier features ``z(x)`` with ``<z(x), z(y)>`` an unbiased estimate of
    ``k(x, y)`` for the Gaussian, Matérn and Laplace kernels.

    With ``m = n_components`` frequencies ``w_i`` drawn from the kernel's normalised
    spectral measure (Bochner; Rowland (2018) Example 5.2, eq. 7.2),

    * ``features="cos_sin"``: ``z(x) = sqrt(variance / m) [cos(W x), sin(W x)]``, **2m
      columns** (all cosines, then all sines), so ``<z(x), z(y)> = variance (1/m)
      sum_i cos(w_i . (x - y))`` (Prop. 7.17);
    * ``features="cos_bias"``: ``z(x) = sqrt(2 variance / m) cos(W x + b)`` with
      ``b ~ U[0, 2 pi)``, **m columns** (Rahimi and Recht's form, scikit-learn's
      ``RBFSampler``; unbiased, with a larger variance).

    Parameters
    ----------
    n_components : int, default=100
        Number ``m`` of random frequencies (see above for the output width).
    kernel : {"rbf", "matern", "laplace"}, default="rbf"
        ``"gaussian"`` is an alias of ``"rbf"``. ``k(x, y) = variance * phi(|x - y| /
        lengthscale)`` as in :mod:`kernelkit.kernels` (``RBF``, ``Matern(nu)``,
        ``Laplace``).
    nu : float, default=2.5
        Matérn smoothness (``kernel="matern"`` only; ``inf`` gives the RBF kernel).
    lengthscale : float, array of shape (n_features,) or "median", default=1.0
        ``"median"``: :func:`kernelkit.kernels.median_heuristic` on the data given to
        ``fit`` (the median trick of §7.6). An array gives one lengthscale per feature.
    variance : float, default=1.0
        ``k(x, x)``.
    coupling : {"iid", "orthogonal", "hadamard"}, default="iid"
        How the frequencies are coupled:

        * ``"iid"``: independent Gaussian rows times the kernel's scale mixture;
        * ``"orthogonal"`` (ORF, Def. 7.6): Haar-orthogonal directions (independent
          blocks of ``d``, Def. 7.1) with independent norms from ``rho_K``, the law of
          ``|w|`` under the spectral measure: ``chi_d / lengthscale`` for the Gaussian
          kernel, ``chi_d s / lengthscale`` with ``s`` as in
          :func:`fourier_norm_scales` for Matérn/Laplace;
        * ``"hadamard"`` (SORF, §7.6): the directions are the unit rows of stacked
          Hadamard–Rademacher matrices ``S D_3 S D_2 S D_1`` (``n_blocks`` factors) on
          the input zero-padded to ``D = 2**ceil(log2 d)``, with norms from ``rho_K`` in
          ``D`` dimensions. (Equivalently: ``sqrt(D)`` times the rows, which have the
          Gaussian-norm scale, each rescaled by an independent ``rho_K`` draw over
          ``sqrt(D)``; Yu et al. (2016) use the fixed norm ``sqrt(D)``.) Only the signs
          and the ``m`` norms are stored, ``O(m)`` numbers, and ``transform`` runs
          through the fast Walsh–Hadamard transform in ``O(m log d)`` per sample.
          Unlike the other two couplings SORF is *not* exactly unbiased: Hadamard
          directions are not uniform on the sphere; the bias shrinks as ``d`` grows.

    n_blocks : int, default=3
        Number of ``S D`` factors for ``coupling="hadamard"``.
    features : {"cos_sin", "cos_bias"}, default="cos_sin"
    random_state : int, RandomState or None
    n_jobs : int or None, default=None
        Threads over blocks of rows in ``transform``; ``None`` uses as many as BLAS
        would (``threadpoolctl``), ``-1`` all CPUs.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame given to ``fit`` (only then).
    n_features_out_ : int
        Output width: ``2 n_components`` (``"cos_sin"``) or ``n_components``;
        :meth:`get_feature_names_out` names the columns ``randomfourierfeatures0``, ...
        (for ``"cos_sin"`` the cosines come first, then the sines).
    lengthscale_ : float or ndarray
        The lengthscale used (the median heuristic's value for ``"median"``).
    frequencies_ : ndarray of shape (n_components, n_features_in_) or None
        ``W`` for the dense couplings (``None`` for ``"hadamard"``).
    matrix_ : HadamardRademacher or None
        The structured directions (``"hadamard"`` only).
    norms_ : ndarray of shape (n_components,) or None
        Frequency norms for ``"hadamard"`` (lengthscale included).
    offsets_ : ndarray of shape (n_components,) or None
        Phases ``b`` for ``features="cos_bias"``.
    features_, variance_ : str, float
        ``features`` and ``variance`` as fitted (``transform`` uses these).
    directions_ : object
        The sampled directions and scales (internal; use :meth:`get_frequencies`).
    n_parameter_bytes_ : int
        Bytes of the stored random parameters (the benchmark's memory figure).

    See Also
    --------
    AngularFeatures : sign features for the angular kernel.
    sklearn.kernel_approximation.RBFSampler : i.i.d. ``cos_bias`` features, RBF only.

    Notes
    -----
    Rowland (2018) Defs. 7.1 and 7.6, Table 7.1, §7.6; Yu et al. (2016) for ORF/SORF;
    Rahimi and Recht (2007).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> X = np.random.RandomState(0).randn(5, 3)
    >>> rff = RandomFourierFeatures(n_components=20000, coupling="orthogonal",
    ...                             random_state=0).fit(X)
    >>> Z = rff.transform(X)
    >>> Z.shape
    (5, 40000)
    >>> bool(np.abs(Z @ Z.T - RBF()(X)).max() < 0.03)
    True
    """

    def __init__(
        self,
        n_components: int = 100,
        *,
        kernel: str = "rbf",
        nu: float = 2.5,
        lengthscale: Any = 1.0,
        variance: float = 1.0,
        coupling: str = "iid",
        n_blocks: int = 3,
        features: str = "cos_sin",
        random_state: Any = None,
        n_jobs: int | None = None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.nu = nu
        self.lengthscale = lengthscale
        self.variance = variance
        self.coupling = coupling
        self.n_blocks = n_blocks
        self.features = features
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ fitting
    def _check_params(self) -> tuple[int, float]:
        m = check_int(self.n_components, "n_components", minimum=1)
        if not isinstance(self.kernel, str):
            raise TypeError(
                f"kernel must be one of {FOURIER_KERNELS} (a name), got "
                f"{type(self.kernel).__name__}"
            )
        if self.kernel not in FOURIER_KERNELS:
            raise ValueError(
                f"kernel must be one of {', '.join(map(repr, FOURIER_KERNELS))} (kernels "
                f"with a Fourier form for random Fourier features); got {self.kernel!r}"
            )
        nu = _nu_for(self.kernel, self.nu)
        check_positive_scalar(self.variance, "variance")
        check_in(self.coupling, "coupling", COUPLINGS)
        check_int(self.n_blocks, "n_blocks", minimum=1)
        check_in(self.features, "features", FEATURES)
        check_n_jobs(self.n_jobs)
        return m, nu

    def _lengthscale(self, X: np.ndarray, rng: np.random.RandomState) -> Any:
        ls = self.lengthscale
        if isinstance(ls, str):
            check_in(ls, "lengthscale", ("median",))
            if X.shape[0] < 2:
                raise ValueError(
                    "lengthscale='median' needs at least two samples (a distance), got "
                    f"n_samples={X.shape[0]}"
                )
            return median_heuristic(X, random_state=rng)
        check_positive(ls, "lengthscale")
        if np.ndim(ls) == 0:
            return float(ls)
        ls = np.asarray(ls, dtype=np.float64)
        if ls.ndim != 1 or ls.shape[0] != X.shape[1]:
            raise ValueError(
                f"lengthscale must be a scalar or have one entry per feature "
                f"({X.shape[1]}), got shape {ls.shape}"
            )
        return ls

    def fit(self, X: Any, y: Any = None) -> RandomFourierFeatures:
        """Draw the frequencies for inputs with ``X.shape[1]`` features (and, with
        ``lengthscale="median"``, set the lengthscale from ``X``)."""
        m, nu = self._check_params()
        X = validate_X(self, X, reset=True, order="C")
        rng = check_random_state(self.random_state)
        d = X.shape[1]
        ls = self._lengthscale(X, rng)
        dirs = Directions(
            self.coupling, m, d, rng, n_blocks=self.n_blocks, owner=type(self).__name__
        )
        s = fourier_norm_scales(nu, m, rng)
        if self.coupling != "iid":  # unit directions: norms |w| ~ rho_K (Def. 7.6)
            s = s * chi_norms(rng, dirs.dim, m)
        with np.errstate(over="ignore"):  # checked right after
            if np.ndim(ls) == 0:
                dirs.rescale(s / ls, None)
            else:
                dirs.rescale(s, 1.0 / ls)
        if not np.isfinite(dirs.gain()):
            raise ValueError(
                f"lengthscale={ls!r} is so small that the random frequencies (about "
                "1 / lengthscale) overflow float64; rescale X and use a larger lengthscale"
            )
        self.offsets_ = (
            rng.uniform(0.0, 2.0 * np.pi, size=m) if self.features == "cos_bias" else None
        )
        self.features_ = self.features
        self.variance_ = float(self.variance)
        self.lengthscale_ = ls
        self.directions_ = dirs
        self.frequencies_ = dirs.W
        self.matrix_ = dirs.matrix
        self.norms_ = dirs.scales
        extra = 0 if self.offsets_ is None else self.offsets_.nbytes
        self.n_parameter_bytes_ = dirs.n_parameter_bytes + extra
        return self

    def get_frequencies(self) -> np.ndarray:
        """The dense ``(n_components, n_features_in_)`` frequency matrix ``W`` (formed
        explicitly even for ``coupling="hadamard"``: for tests and analysis)."""
        check_is_fitted(self, "directions_")
        return self.directions_.to_dense()

    @property
    def n_features_out_(self) -> int:
        check_is_fitted(self, "directions_")
        m = self.directions_.m
        return 2 * m if self.features_ == "cos_sin" else m

    @property
    def _n_features_out(self) -> int:  # for ClassNamePrefixFeaturesOutMixin
        return self.n_features_out_

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    # ------------------------------------------------------------------ transform
    def transform(self, X: Any) -> np.ndarray:
        """The features: ``(n_samples, 2 n_components)`` for ``"cos_sin"``,
        ``(n_samples, n_components)`` for ``"cos_bias"``; float32 input stays float32."""
        check_is_fitted(self, "directions_")
        X = validate_X(self, X, reset=False, order="C")
        m = self.directions_.m
        dtype = X.dtype
        width = self.n_features_out_
        out = empty_output((X.shape[0], width), dtype, "RandomFourierFeatures.transform")
        if self.features_ == "cos_sin":
            scale = math.sqrt(self.variance_ / m)

            def consume(s: int, e: int, c0: int, c1: int, th: np.ndarray, sc: dict) -> None:
                sincos(th, out[s:e, m + c0 : m + c1], out[s:e, c0:c1], sc, scale)

        else:
            scale = math.sqrt(2.0 * self.variance_ / m)
            assert self.offsets_ is not None  # drawn in fit for "cos_bias"
            offsets = self.offsets_.astype(dtype)

            def consume(s: int, e: int, c0: int, c1: int, th: np.ndarray, sc: dict) -> None:
                th += offsets[c0:c1]
                sincos(th, th, out[s:e, c0:c1], sc, scale)  # the sines are discarded

        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is checked next
            self.directions_.project_blocks(X, consume, self.n_jobs)
        check_projections_finite(
            X,
            self.directions_.gain(),
            out,
            "RandomFourierFeatures.transform",
            ", or use a longer lengthscale",
        )
        return out
