"""Fisher vectors of sets of local descriptors under a diagonal Gaussian mixture
(assignment eqs. 1.13–1.14; Perronnin et al. 2010; Sánchez et al. 2013)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.mixture import GaussianMixture
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import check_array, check_bool, check_int

__all__ = ["EmptyDescriptorSetWarning", "FisherVectorEncoder"]

#: Elements of the padded ``(sets, T_max, max(K, f))`` work arrays of one group of sets.
_CHUNK_ELEMENTS = 2**22


class EmptyDescriptorSetWarning(UserWarning):
    """Some descriptor sets passed to :meth:`FisherVectorEncoder.transform` were empty;
    their Fisher vectors are zero."""


class FisherVectorEncoder(TransformerMixin, BaseEstimator):
    """Fisher vectors of sets of descriptors: one fixed-length vector per set.

    ``X`` is a sequence of descriptor arrays, one ``(n_i, D)`` array per image or
    document (``n_i`` may differ, and may be 0). :meth:`fit` reduces the stacked
    descriptors to ``pca_components`` dimensions (optional) and fits a diagonal
    Gaussian mixture with ``n_components`` components; :meth:`transform` maps each set
    to the gradient of its log-likelihood with respect to the mixture's parameters,
    normalised by the diagonal Fisher information (eqs. 1.13–1.14).

    Parameters
    ----------
    n_components : int, default=16
        ``K``, the number of Gaussian components (not the output width, which is
        ``vector_length_``). Ignored when ``gmm`` is given: then ``K`` is that mixture's.
    pca_components : int or None, default=None
        ``f``, the descriptor dimension after PCA (at most ``D``); ``None``: no PCA,
        ``f = D``.
    power_normalize : bool, default=True
        Apply the signed square root ``sign(z) sqrt(|z|)`` to every entry.
    l2_normalize : bool, default=True
        Then divide each vector by its Euclidean norm (a zero vector stays zero).
    include_weights : bool, default=False
        Prepend the ``K`` gradients with respect to the mixture weights.
    gmm : GaussianMixture or FrozenEstimator, default=None
        A fitted ``sklearn.mixture.GaussianMixture(covariance_type="diag")`` of dimension
        ``f``, used as is instead of fitting one. :func:`sklearn.base.clone` turns an
        estimator parameter into an unfitted copy; to keep the fitted mixture through
        ``clone`` (grid searches, pipelines), pass ``FrozenEstimator(gmm)``.
    random_state : int, RandomState instance or None, default=None
        Seeds the mixture's initialisation (and a randomised PCA solver).

    Attributes
    ----------
    gmm_ : GaussianMixture
        The diagonal mixture (the one passed as ``gmm``, unwrapped and not copied, or the
        one fitted here).
    pca_ : PCA or None
        The fitted PCA, or ``None`` without ``pca_components``.
    n_descriptor_features_ : int
        ``D``, the width of the descriptors seen in :meth:`fit`.
    vector_length_ : int
        The output width: ``2 K f``, or ``K + 2 K f`` with ``include_weights=True``.

    Notes
    -----
    For a set ``X = {x_1, ..., x_T}``, posteriors ``gamma_t(i)`` (``gmm_.predict_proba``),
    weights ``pi_i``, means ``mu_i`` and standard deviations ``sigma_i`` (the square roots
    of the diagonal variances), eqs. 1.13–1.14 of the assignment give, coordinate-wise,

    .. math::

        G_{\\mu_i} = \\frac{1}{\\sqrt{T \\pi_i}} \\sum_t \\gamma_t(i)
            \\frac{x_t - \\mu_i}{\\sigma_i}, \\qquad
        G_{\\sigma_i} = \\frac{1}{\\sqrt{2 T \\pi_i}} \\sum_t \\gamma_t(i)
            \\Big[\\frac{(x_t - \\mu_i)^2}{\\sigma_i^2} - 1\\Big].

    With ``include_weights=True`` the weight block of Sánchez et al. (2013) (eq. 16,
    the soft-max parametrisation of Perronnin et al. 2010) comes first,
    ``G_{alpha_i} = (1 / sqrt(T pi_i)) sum_t (gamma_t(i) - pi_i)``. The order is
    weights, means, variances, each ``K``-major (component, then coordinate); the
    names from :meth:`get_feature_names_out` are ``fv_w{i}``, ``fv_mu{i}_{j}`` and
    ``fv_sigma{i}_{j}``.

    The "improved" Fisher vector of Perronnin, Sánchez and Mensink (2010) then applies
    the signed square root (``power_normalize``) and L2 normalisation
    (``l2_normalize``). A set with no descriptors has a zero vector and transform
    warns once (:class:`EmptyDescriptorSetWarning`) with the number of such sets.

    scikit-image's ``skimage.feature.fisher_vector`` (``improved=False``) computes the
    same three blocks in the same order with two convention differences: it scales by
    ``1/T`` where eqs. 1.13–1.14 scale by ``1/sqrt(T)``, and its variance block has the
    opposite sign. Hence, with ``include_weights=True``, no PCA, both normalisations
    off and the same mixture, ``ours = sqrt(T) * skimage`` on the weight and mean
    blocks and ``ours = -sqrt(T) * skimage`` on the variance block; after power and L2
    normalisation only the sign of the variance block differs.

    All descriptors of all sets go through one posterior computation; the per-set sums
    are batched matrix products over groups of sets of similar size (padded to the
    group's largest set, bounded in memory), with no loop over the sets.

    References: F. Perronnin, J. Sánchez, T. Mensink, "Improving the Fisher kernel for
    large-scale image classification", ECCV 2010; J. Sánchez, F. Perronnin, T. Mensink,
    J. Verbeek, "Image classification with the Fisher vector: theory and practice",
    IJCV 105 (2013).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.features.fisher import FisherVectorEncoder
    >>> rng = np.random.default_rng(0)
    >>> sets = [rng.normal(size=(n, 5)) for n in (30, 12, 50, 25)]
    >>> enc = FisherVectorEncoder(3, pca_components=4, random_state=0).fit(sets)
    >>> V = enc.transform(sets)
    >>> V.shape, enc.vector_length_
    ((4, 24), 24)
    >>> np.allclose(np.linalg.norm(V, axis=1), 1.0)
    True
    >>> enc.get_feature_names_out()[:2].tolist()
    ['fv_mu0_0', 'fv_mu0_1']
    """

    def __init__(
        self,
        n_components: int = 16,
        *,
        pca_components: int | None = None,
        power_normalize: bool = True,
        l2_normalize: bool = True,
        include_weights: bool = False,
        gmm: Any = None,
        random_state: Any = None,
    ) -> None:
        self.n_components = n_components
        self.pca_components = pca_components
        self.power_normalize = power_normalize
        self.l2_normalize = l2_normalize
        self.include_weights = include_weights
        self.gmm = gmm
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    def fit(self, X: Sequence[Any], y: Any = None) -> FisherVectorEncoder:
        """Fit the PCA (optional) and the diagonal mixture on all descriptors of ``X``.

        Parameters
        ----------
        X : sequence of array-like of shape (n_i, D)
            One descriptor array per set; sets may be empty, but not all of them.
        y : ignored
        """
        check_bool(self.power_normalize, "power_normalize")
        check_bool(self.l2_normalize, "l2_normalize")
        include_weights = check_bool(self.include_weights, "include_weights")
        Z, lengths, width = _stack_descriptors(X)
        n_descriptors = Z.shape[0]
        if n_descriptors == 0:
            raise ValueError(
                f"X holds no descriptors ({len(lengths)} empty sets); at least one is needed to fit"
            )
        pca = None
        if self.pca_components is not None:
            f = check_int(self.pca_components, "pca_components", minimum=1)
            if f > width:
                raise ValueError(
                    f"pca_components={f} must be <= the descriptor width D={width} of X"
                )
            if f > n_descriptors:
                raise ValueError(
                    f"pca_components={f} must be <= the number of descriptors in X "
                    f"({n_descriptors})"
                )
            pca = PCA(n_components=f, random_state=self.random_state).fit(Z)
            Z = pca.transform(Z)
        f = Z.shape[1]
        if self.gmm is None:
            k = check_int(self.n_components, "n_components", minimum=1)
            if k > n_descriptors:
                raise ValueError(
                    f"n_components={k} is larger than the number of descriptors in X "
                    f"({n_descriptors}); use fewer components or more descriptors"
                )
            gmm = GaussianMixture(
                n_components=k, covariance_type="diag", random_state=self.random_state
            ).fit(Z)
        else:
            gmm = _check_gmm(self.gmm, f)
        self.gmm_ = gmm
        self.pca_ = pca
        self.n_descriptor_features_ = width
        k = gmm.means_.shape[0]
        self.vector_length_ = 2 * k * f + (k if include_weights else 0)
        return self

    # ------------------------------------------------------------------ transform
    def transform(self, X: Sequence[Any]) -> np.ndarray:
        """Fisher vectors of the sets of ``X``, shape ``(len(X), vector_length_)``.

        Parameters
        ----------
        X : sequence of array-like of shape (n_i, D)
            One descriptor array per set, ``D`` as in :meth:`fit`; an empty set gives a
            zero vector (and one :class:`EmptyDescriptorSetWarning` for all of them).
        """
        check_is_fitted(self, "gmm_")
        Z, lengths, _ = _stack_descriptors(X, self.n_descriptor_features_)
        if self.pca_ is not None and Z.shape[0]:
            Z = self.pca_.transform(Z)
        gmm = self.gmm_
        weights = np.asarray(gmm.weights_, dtype=np.float64)
        means = np.asarray(gmm.means_, dtype=np.float64)
        sigmas = np.sqrt(np.asarray(gmm.covariances_, dtype=np.float64))
        n_sets, (k, f) = len(lengths), means.shape
        if Z.shape[0]:
            gamma = gmm.predict_proba(Z)  # one posterior computation for every set
            s0, s_mu, s_sigma = _posterior_sums(Z, gamma, lengths, means, sigmas)
        else:
            s0, s_mu, s_sigma = np.zeros((n_sets, k)), *np.zeros((2, n_sets, k, f))
        T = lengths.astype(np.float64)
        empty = lengths == 0
        scale = 1.0 / np.sqrt(np.where(empty, 1.0, T)[:, None] * weights)  # 1/sqrt(T pi_i)
        blocks = [
            (s_mu * scale[:, :, None]).reshape(n_sets, k * f),  # eq. 1.13
            (s_sigma * (scale / np.sqrt(2.0))[:, :, None]).reshape(n_sets, k * f),  # eq. 1.14
        ]
        if check_bool(self.include_weights, "include_weights"):
            # Sánchez et al. (2013) eq. 16: (1/sqrt(T pi_i)) sum_t (gamma_t(i) - pi_i)
            blocks.insert(0, (s0 - T[:, None] * weights) * scale)
        V = np.hstack(blocks)
        V[empty] = 0.0
        if check_bool(self.power_normalize, "power_normalize"):
            V = np.sign(V) * np.sqrt(np.abs(V))
        if check_bool(self.l2_normalize, "l2_normalize"):
            norms = np.linalg.norm(V, axis=1, keepdims=True)
            V /= np.where(norms > 0.0, norms, 1.0)
        n_empty = int(empty.sum())
        if n_empty:
            warnings.warn(
                f"{n_empty} of the {n_sets} descriptor sets in X are empty; "
                "their Fisher vectors are zero",
                EmptyDescriptorSetWarning,
                stacklevel=2,
            )
        return V

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Output names: ``fv_w{i}`` (with ``include_weights``), ``fv_mu{i}_{j}``,
        ``fv_sigma{i}_{j}`` for component ``i`` and (PCA) coordinate ``j``."""
        check_is_fitted(self, "gmm_")
        k, f = self.gmm_.means_.shape
        names = [f"fv_w{i}" for i in range(k)] if self.include_weights else []
        for block in ("mu", "sigma"):
            names += [f"fv_{block}{i}_{j}" for i in range(k) for j in range(f)]
        return np.asarray(names, dtype=object)


# ---------------------------------------------------------------------- helpers
def _stack_descriptors(X: Any, width: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """All descriptors of ``X`` stacked in set order (float64), the set sizes and ``D``.

    ``width`` is the required ``D`` (from ``fit``); otherwise the first non-empty set's.
    An empty set may be given as ``(0, D)``, ``(0, 0)`` or ``(0,)``.
    """
    if X is None or isinstance(X, (str, bytes, dict)):
        raise TypeError(f"X must be a sequence of descriptor arrays, got {type(X).__name__}")
    if isinstance(X, np.ndarray) and X.dtype != object and X.ndim != 3:
        raise ValueError(
            f"X must be a sequence of 2-D descriptor arrays (one per set), got one "
            f"{X.ndim}-D array of shape {X.shape}; wrap a single set as [X]"
        )
    try:
        sets = list(X)
    except TypeError:
        raise TypeError(
            f"X must be a sequence of descriptor arrays, got {type(X).__name__}"
        ) from None
    if not sets:
        raise ValueError("X is empty; at least one descriptor set is required")
    arrays: list[np.ndarray | None] = []
    seen = "the descriptors seen in fit"
    for i, item in enumerate(sets):
        name = f"X[{i}]"
        if isinstance(item, (str, bytes)) or item is None:
            raise TypeError(f"{name} must be an array of numbers, got {type(item).__name__}")
        if np.ndim(item) in (1, 2) and np.size(item) == 0 and np.shape(item)[0] == 0:
            shape = np.shape(item)
            if len(shape) == 2 and shape[1] not in (0, width or shape[1]):
                raise ValueError(
                    f"{name} is an empty set of width {shape[1]}, but the descriptors "
                    f"have width {width}"
                )
            arrays.append(None)  # an empty set
            continue
        arr = check_array(item, name)
        if width is None:
            width, seen = arr.shape[1], name
        elif arr.shape[1] != width:
            raise ValueError(
                f"{name} has descriptors of width {arr.shape[1]}, but {seen} has width "
                f"{width}; all descriptor arrays must have the same width"
            )
        arrays.append(arr)
    lengths = np.array([0 if a is None else a.shape[0] for a in arrays], dtype=np.intp)
    full = [a for a in arrays if a is not None]
    if width is None:  # every set is empty
        return np.zeros((0, 0)), lengths, 0
    Z = np.concatenate(full).astype(np.float64, copy=False) if full else np.zeros((0, width))
    return Z, lengths, width


def _check_gmm(gmm: Any, width: int) -> GaussianMixture:
    """The fitted diagonal ``GaussianMixture`` of dimension ``width`` in ``gmm``."""
    inner = gmm.estimator if isinstance(gmm, FrozenEstimator) else gmm
    if not isinstance(inner, GaussianMixture):
        raise TypeError(
            "gmm must be a fitted sklearn.mixture.GaussianMixture (or a FrozenEstimator "
            f"of one), got {type(inner).__name__}"
        )
    if inner.covariance_type != "diag":
        raise ValueError(f"gmm must have covariance_type='diag', got {inner.covariance_type!r}")
    try:
        check_is_fitted(inner, ("means_", "covariances_", "weights_"))
    except NotFittedError:
        raise ValueError("gmm is not fitted; fit it first, or pass gmm=None") from None
    if inner.means_.shape[1] != width:
        raise ValueError(
            f"gmm has dimension {inner.means_.shape[1]}, but the descriptors (after PCA) "
            f"have width {width}"
        )
    return inner


def _posterior_sums(
    Z: np.ndarray,
    gamma: np.ndarray,
    lengths: np.ndarray,
    means: np.ndarray,
    sigmas: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-set sums ``sum_t gamma_t(i)``, ``sum_t gamma_t(i) u_ti`` and
    ``sum_t gamma_t(i) (u_ti**2 - 1)`` with ``u_ti = (x_t - mu_i) / sigma_i``.

    The rows of ``Z`` are the sets' descriptors in order. The sets, sorted by size, go
    in groups padded to the group's largest set (at most ``_CHUNK_ELEMENTS`` elements a
    work array); one batched matrix product per group gives the moments
    ``sum_t gamma_t x_t`` and ``sum_t gamma_t x_t**2`` of all its sets, from which the
    centred sums follow. The data are centred first, which keeps the expansion
    ``(x - mu)**2 = x**2 - 2 mu x + mu**2`` free of cancellation from a common offset.
    """
    n_sets = len(lengths)
    k, f = means.shape
    center = Z.mean(axis=0)
    Z = Z - center
    means = means - center
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    order = np.argsort(lengths, kind="stable")
    order = order[lengths[order] > 0]
    sorted_lengths = lengths[order]
    s0 = np.zeros((n_sets, k))
    s1 = np.zeros((n_sets, k, f))
    s2 = np.zeros((n_sets, k, f))
    budget = max(1, _CHUNK_ELEMENTS // max(k, f))
    start = 0
    while start < len(order):
        # the largest group whose padded size (sets x longest set) fits the budget
        cost = np.arange(1, len(order) - start + 1) * sorted_lengths[start:]
        stop = start + max(1, int(np.searchsorted(cost, budget, side="right")))
        group = order[start:stop]
        steps = np.arange(sorted_lengths[stop - 1])
        present = steps < lengths[group][:, None]  # (sets, T_max)
        rows = np.where(present, offsets[group][:, None] + steps, 0)
        G = gamma[rows] * present[:, :, None]  # (sets, T_max, K), padding weighs 0
        X = Z[rows]  # (sets, T_max, f)
        Gt = G.transpose(0, 2, 1)
        s0[group] = G.sum(axis=1)
        s1[group] = Gt @ X
        s2[group] = Gt @ (X * X)
        start = stop
    var = sigmas**2
    s0_ = s0[:, :, None]
    s_mu = (s1 - means * s0_) / sigmas
    s_sigma = (s2 - 2.0 * means * s1 + means**2 * s0_) / var - s0_
    return s0, s_mu, s_sigma
