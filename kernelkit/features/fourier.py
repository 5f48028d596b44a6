"""Random Fourier features for stationary kernels: i.i.d., orthogonal (ORF) and
Hadamard-structured (SORF) frequencies (Rowland (2018) §5.1, Ch. 7)."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import check_in
from kernelkit.features._structured import chi_norms
from kernelkit.features._trig import sincos
from kernelkit.features.base import RandomMap
from kernelkit.kernels import RBF, Matern, resolve_kernel

__all__ = ["FEATURES", "RandomFourierFeatures"]

#: The two forms of the features (see :class:`RandomFourierFeatures`).
FEATURES = ("cos_sin", "cos_bias")


def _scale_mixture(nu: float, size: int, rng: np.random.RandomState) -> np.ndarray:
    """Scale-mixture factors ``s``: a Matérn-``nu`` frequency is ``s g`` with ``g`` standard
    Gaussian and ``s = sqrt(2 nu / chi2_{2 nu})`` (a multivariate t with ``2 nu`` degrees of
    freedom; Rowland (2018) Table 7.1, whose exponent should read ``-nu - d/2``); ``s = 1``
    for the Gaussian kernel (``nu = inf``); the Laplace kernel is ``nu = 1/2`` (Cauchy)."""
    if math.isinf(nu):
        return np.ones(size)
    return np.sqrt(2.0 * nu / rng.chisquare(2.0 * nu, size=size))


class RandomFourierFeatures(RandomMap):
    """Random Fourier features ``z(x)`` with ``<z(x), z(y)>`` an unbiased estimate of
    ``k(x, y)`` for the Gaussian (RBF), Matérn and Laplace kernels.

    With frequencies ``w_i`` drawn from the kernel's normalised spectral measure (Bochner;
    Rowland (2018) Example 5.2, eq. 7.2) and ``n = n_components`` output columns, each
    scaled by ``sqrt(2 variance / n)``:

    * ``features="cos_sin"``, even ``n = 2m``: ``z(x) = sqrt(variance / m) [cos(W x),
      sin(W x)]`` with ``m`` frequencies (all cosines, then all sines), so ``<z(x), z(y)>
      = variance (1/m) sum_i cos(w_i . (x - y))`` (Prop. 7.17); an odd ``n = 2m + 1``
      adds a frequency ``w_{m+1}`` and a last, random-phase column ``sqrt(2 variance / n)
      cos(w_{m+1} . x + b)`` with ``b ~ U[0, 2 pi)`` (Notes: odd widths);
    * ``features="cos_bias"``: ``z(x) = sqrt(2 variance / m) cos(W x + b)`` with
      ``b ~ U[0, 2 pi)`` and ``m = n`` (Rahimi and Recht's form, scikit-learn's
      ``RBFSampler``; unbiased, with a larger variance).

    Parameters
    ----------
    n_components : int, default=100
        Output width, as ``n_components`` of scikit-learn's ``RBFSampler``. For
        ``features="cos_sin"`` each frequency gives a cosine and a sine column:
        ``ceil(n_components / 2)`` frequencies, the last of them giving a single
        random-phase column when the width is odd.
    kernel : RBF, Matern or Laplace kernel, or a name, default="rbf"
        The kernel ``k(x, y) = variance * phi(|(x - y) / lengthscale|)`` to estimate
        (:mod:`kernelkit.kernels`); its ``lengthscale`` (a scalar, or one per feature),
        ``variance`` and ``nu`` are used. A name (``"rbf"``, ``"matern32"``,
        ``"matern52"``, ``"laplace"``, ...) is resolved by
        :func:`kernelkit.kernels.resolve_kernel` (unit lengthscale and variance). For the
        median heuristic of §7.6, pass ``RBF(median_heuristic(X))``
        (:func:`kernelkit.kernels.median_heuristic`).
    coupling : {"iid", "orthogonal", "hadamard"}, default="iid"
        How the frequencies are coupled (``"orf"`` and ``"sorf"`` are accepted for the
        last two):

        * ``"iid"``: independent Gaussian rows times the kernel's scale mixture;
        * ``"orthogonal"`` (ORF, Def. 7.6): Haar-orthogonal directions (independent
          blocks of ``d``, Def. 7.1) with independent norms from ``rho_K``, the law of
          ``|w|`` under the spectral measure: ``chi_d / lengthscale`` for the Gaussian
          kernel, ``chi_d s / lengthscale`` for Matérn/Laplace with ``s`` the scale
          mixture ``sqrt(2 nu / chi2_{2 nu})`` (Table 7.1);
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
        Paired cosine and sine columns, or random-phase cosines (see above).
    random_state : int, RandomState or None, default=None
        Seeds the random draws of ``fit``; the same value gives the same map.
    n_jobs : int or None, default=None
        Threads over blocks of rows in ``transform``; ``None`` uses as many as BLAS
        would (``threadpoolctl``), ``-1`` all CPUs.

    Attributes
    ----------
    n_components_ : int
        The output width; :meth:`get_feature_names_out` names the columns
        ``randomfourierfeatures0``, ... (for ``"cos_sin"`` the cosines come first, then
        the sines).
    n_frequencies_ : int
        The number of random frequencies: ``ceil(n_components / 2)`` for ``"cos_sin"``,
        ``n_components`` for ``"cos_bias"``.
    coupling_ : str
        The coupling used (aliases resolved).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame given to ``fit`` (only then).
    kernel_ : RBF or Matern
        A copy of the kernel whose features these are (``kernel`` resolved, as fitted).
    lengthscale_ : float or ndarray of shape (n_features,)
    variance_ : float
        The kernel's lengthscale and variance, as fitted (``transform`` uses these).
    features_ : str
        ``features`` as fitted.
    frequencies_ : ndarray of shape (n_frequencies, n_features) or None
        ``W`` for the dense couplings (``None`` for ``"hadamard"``).
    matrix_ : HadamardRademacher or None
        The structured directions (``"hadamard"`` only).
    norms_ : ndarray of shape (n_frequencies,) or None
        Frequency norms for ``"hadamard"`` (lengthscale included).
    offsets_ : ndarray of shape (n_frequencies,) or (1,), or None
        Phases ``b``: one per frequency for ``features="cos_bias"``; for ``"cos_sin"``
        with an odd width the one phase of the last frequency (shape ``(1,)``), ``None``
        for an even width.
    directions_ : object
        The sampled directions and scales (internal; use :meth:`get_frequencies`).
    n_parameter_bytes_ : int
        Bytes of the stored random parameters (the benchmark's memory figure).

    See Also
    --------
    AngularFeatures : Sign features for the angular kernel.
    RandomMap : The base class (shared parameters, fit and transform plumbing).
    sklearn.kernel_approximation.RBFSampler : I.i.d. ``cos_bias`` features, RBF only.

    Notes
    -----
    Rowland (2018) Defs. 7.1 and 7.6, Table 7.1, §7.6; Yu et al. (2016) for ORF/SORF;
    Rahimi and Recht (2007).

    **Odd widths** (``features="cos_sin"``, ``n = 2m + 1``). ``m + 1`` frequencies are
    drawn, coupled together (the last is the next row of the same coupled directions:
    for ``"orthogonal"`` it is orthogonal to the rows of its block). The first ``m`` give
    the ``2m`` cosine and sine columns as for an even width, the last one the column
    ``sqrt(2 variance / n) cos(w_{m+1} . x + b)``, with the phase ``b ~ U[0, 2 pi)``
    (``offsets_``) drawn from ``random_state`` after everything else. Every frequency
    ``w`` has ``E cos(w . (x - y)) = k(x, y) / variance``. A pair of columns contributes
    ``(2/n) variance cos(w_i . (x - y))`` to ``<z(x), z(y)>``, the last column ``(2/n)
    variance cos(w . x + b) cos(w . y + b) = (1/n) variance [cos(w . (x - y)) + cos(w .
    (x + y) + 2b)]``, whose mean over ``b`` is ``(1/n) variance cos(w . (x - y))``; so
    ``E <z(x), z(y)> = (2m + 1)/n k(x, y) = k(x, y)``: the estimate stays unbiased (for
    the couplings whose even widths are), and an even width is exactly the form above.
    Unlike an even width, ``<z(x), z(x)> = variance (2m + 2 cos^2(w_{m+1} . x + b)) / n``
    is not exactly ``variance``. ``n_components=1`` is the one random-phase column of
    ``RBFSampler(n_components=1)``. An even width draws what it always drew; the first
    ``2m`` columns of width ``2m + 1`` need not equal the features of width ``2m`` with
    the same ``random_state`` (``m + 1`` coupled rows are drawn).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, Matern
    >>> X = np.random.RandomState(0).randn(5, 3)
    >>> rff = RandomFourierFeatures(n_components=40000, coupling="orthogonal",
    ...                             random_state=0).fit(X)
    >>> Z = rff.transform(X)
    >>> Z.shape, rff.n_frequencies_
    ((5, 40000), 20000)
    >>> bool(np.abs(Z @ Z.T - RBF()(X)).max() < 0.03)
    True

    A kernel object brings its hyperparameters, one lengthscale per feature included:

    >>> k = Matern(lengthscale=[0.5, 1.0, 2.0], variance=2.0, nu=1.5)
    >>> Z = RandomFourierFeatures(40000, kernel=k, random_state=0).fit_transform(X)
    >>> bool(np.abs(Z @ Z.T - k(X)).max() < 0.1)
    True

    An odd width ends with one random-phase column (Notes):

    >>> rff = RandomFourierFeatures(5, random_state=0).fit(X)
    >>> rff.transform(X).shape, rff.n_frequencies_, rff.offsets_.shape
    ((5, 5), 3, (1,))
    """

    _overflow_advice = ", or use a longer lengthscale"

    def __init__(
        self,
        n_components: int = 100,
        *,
        kernel: Any = "rbf",
        coupling: str = "iid",
        n_blocks: int = 3,
        features: str = "cos_sin",
        random_state: Any = None,
        n_jobs: int | None = None,
    ):
        self._set_shared_params(n_components, coupling, n_blocks, random_state, n_jobs)
        self.kernel = kernel
        self.features = features

    # ------------------------------------------------------------------ fitting
    def _check_params(self) -> None:
        super()._check_params()
        check_in(self.features, "features", FEATURES)
        self._resolved_kernel()

    def _resolved_kernel(self) -> RBF | Matern:
        kernel = resolve_kernel(self.kernel, name="kernel", types=(RBF, Matern))
        assert isinstance(kernel, (RBF, Matern))
        return kernel

    def _n_random_rows(self, n_components: int) -> int:
        # cos/sin pairs, and for an odd width one more frequency (its random-phase column)
        return (n_components + 1) // 2 if self.features == "cos_sin" else n_components

    def _fit_random(self, X: np.ndarray, dirs: Any, rng: np.random.RandomState) -> None:
        """Scale the drawn directions into frequencies (and draw the phases)."""
        kernel = self._resolved_kernel()
        ls = _lengthscale(kernel, X.shape[1])
        nu = float(kernel.nu) if isinstance(kernel, Matern) else math.inf
        m = dirs.m
        s = _scale_mixture(nu, m, rng)
        if self.coupling_ != "iid":  # unit directions: norms |w| ~ rho_K (Def. 7.6)
            s = s * chi_norms(rng, dirs.dim, m)
        with np.errstate(over="ignore"):  # checked right after
            if np.ndim(ls) == 0:
                dirs.rescale(s / ls, None)
            else:
                dirs.rescale(s, 1.0 / ls)
        if not np.isfinite(dirs.gain()):
            raise ValueError(
                f"the kernel's lengthscale={ls!r} is so small that the random frequencies "
                "(about 1 / lengthscale) overflow float64; rescale X and use a larger "
                "lengthscale"
            )
        # the phases, drawn last: one per frequency for "cos_bias", one for the last
        # frequency of an odd "cos_sin" width (an even width draws nothing more)
        n_phases = m if self.features == "cos_bias" else 2 * m - self._fitted_n_components(X)
        self.offsets_ = rng.uniform(0.0, 2.0 * np.pi, size=n_phases) if n_phases else None
        self.features_ = self.features
        self.kernel_ = copy.deepcopy(kernel)  # as fitted, whatever happens to `kernel` later
        self.variance_ = float(kernel.variance)
        self.lengthscale_ = ls
        self.n_frequencies_ = m
        self.directions_ = dirs
        self.frequencies_ = dirs.W
        self.matrix_ = dirs.matrix
        self.norms_ = dirs.scales
        extra = 0 if self.offsets_ is None else self.offsets_.nbytes
        self.n_parameter_bytes_ = dirs.n_parameter_bytes + extra

    def get_frequencies(self) -> np.ndarray:
        """The dense ``(n_frequencies_, n_features_in_)`` frequency matrix ``W`` (formed
        explicitly even for ``coupling="hadamard"``: for tests and analysis).

        Returns
        -------
        ndarray of float64, shape (n_frequencies, n_features)
            The frequencies, one per row (a copy).
        """
        check_is_fitted(self, "directions_")
        return self.directions_.to_dense()

    # ------------------------------------------------------------------ transform
    def _transform(self, X: np.ndarray) -> np.ndarray:
        out = self._empty_output(X)
        scale = math.sqrt(2.0 * self.variance_ / self.n_components_)  # every column's
        if self.features_ == "cos_sin":
            p = self.n_components_ // 2  # cos/sin pairs: frequencies 0..p-1
            phase = None if self.offsets_ is None else self.offsets_.astype(X.dtype)

            def consume(s: int, e: int, c0: int, c1: int, th: np.ndarray, sc: dict) -> None:
                if c1 > p:  # the block holds the last frequency of an odd width (p = c1 - 1)
                    assert phase is not None  # drawn in fit for an odd width
                    last = th[:, -1] + phase
                    np.cos(last, out=last)
                    last *= scale
                    out[s:e, 2 * p] = last  # the random-phase column comes last
                    if c0 == p:
                        return
                    th = np.ascontiguousarray(th[:, :-1])  # sincos takes C-contiguous input
                    c1 = p
                sincos(th, out[s:e, p + c0 : p + c1], out[s:e, c0:c1], sc, scale)

        else:
            assert self.offsets_ is not None  # drawn in fit for "cos_bias"
            offsets = self.offsets_.astype(X.dtype)

            def consume(s: int, e: int, c0: int, c1: int, th: np.ndarray, sc: dict) -> None:
                th += offsets[c0:c1]
                sincos(th, th, out[s:e, c0:c1], sc, scale)  # the sines are discarded

        self.directions_.project_blocks(X, consume, self.n_jobs)
        return out

    def _gain(self) -> float:
        return float(self.directions_.gain())


def _lengthscale(kernel: RBF | Matern, n_features: int) -> float | np.ndarray:
    """The kernel's lengthscale: a float, or a float64 array with one entry per feature."""
    ls = kernel.lengthscale
    if np.ndim(ls) == 0:
        return float(ls)
    ls = np.asarray(ls, dtype=np.float64)
    if ls.shape != (n_features,):
        raise ValueError(
            f"the kernel's lengthscale must be a scalar or have one entry per feature "
            f"({n_features}), got shape {ls.shape}"
        )
    return ls
