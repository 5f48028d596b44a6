"""Fisher vectors of sets of local descriptors under a diagonal Gaussian mixture
(assignment eqs. 1.13–1.14; Perronnin et al. 2010; Sánchez et al. 2013)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.mixture import GaussianMixture
from sklearn.utils.validation import check_is_fitted

from kernelkit._descriptor_sets import check_sets, stack_sets
from kernelkit._threads import one_blas_thread
from kernelkit._validation import check_bool, check_int
from kernelkit.kernels.fisher import DiagonalGaussianMixture

__all__ = ["EmptyDescriptorSetWarning", "FisherVectorEncoder"]


class EmptyDescriptorSetWarning(UserWarning):
    """Some descriptor sets passed to :meth:`FisherVectorEncoder.transform` were empty;
    their Fisher vectors are zero."""


#: Largest descriptor magnitude a mixture can be fitted to: EM squares deviations, whose
#: sum over the descriptors must stay below the float64 maximum (1.8e308).
_MAX_DESCRIPTOR = 1e150


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
    n_jobs : int or None, default=None
        Threads sharing the sets in :meth:`transform`: ``None``, as many as BLAS would
        use (as for the random feature maps); ``-1``, one per CPU. The result does not
        depend on it.

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

    See Also
    --------
    kernelkit.kernels.FisherKernel : The Fisher kernel of any generative model; with
        :class:`kernelkit.kernels.DiagonalGaussianMixture` its Gram matrix is ``V V^T`` for
        the vectors ``V`` of this encoder without PCA and normalisations.

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

    The work is :meth:`kernelkit.kernels.DiagonalGaussianMixture.fisher_vectors`: runs
    of whole sets of about a thousand descriptors each, one matrix product for all the
    posteriors of a run and one batched product for all its per-set sums, the blocks and
    normalisations written straight into the result (no loop over sets, no stacked copy
    of all descriptors).

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
        n_jobs: int | None = None,
    ) -> None:
        self.n_components = n_components
        self.pca_components = pca_components
        self.power_normalize = power_normalize
        self.l2_normalize = l2_normalize
        self.include_weights = include_weights
        self.gmm = gmm
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ fit
    def fit(self, X: Sequence[Any], y: Any = None) -> FisherVectorEncoder:
        """Fit the PCA (optional) and the diagonal mixture on all descriptors of ``X``.

        Parameters
        ----------
        X : sequence of array-like of shape (n_i, D)
            One descriptor array per set; sets may be empty, but not all of them.
        y : ignored
            Not used, present for scikit-learn API consistency.

        Returns
        -------
        self : FisherVectorEncoder
            The fitted encoder.

        Raises
        ------
        ValueError
            If ``X`` holds no descriptors, or ``pca_components``, ``n_components`` or
            ``gmm`` do not fit the descriptors.
        """
        check_bool(self.power_normalize, "power_normalize")
        check_bool(self.l2_normalize, "l2_normalize")
        include_weights = check_bool(self.include_weights, "include_weights")
        sets, lengths, width = check_sets(X)
        n_descriptors = int(lengths.sum())
        if n_descriptors == 0:
            raise ValueError(
                f"X holds no descriptors ({len(lengths)} empty sets); at least one is needed to fit"
            )
        # the descriptors are stacked only to fit something (not to check a given mixture)
        fits = self.pca_components is not None or self.gmm is None
        Z = stack_sets(sets, width)[0] if fits else np.zeros((0, width))
        top = float(np.max(np.abs(Z), initial=0.0))
        if top > _MAX_DESCRIPTOR:  # EM's squares (and PCA's) would overflow float64
            raise ValueError(
                f"X holds descriptor values up to {top:.3g}: the Gaussian mixture's "
                f"variances (squares) overflow float64 beyond about {_MAX_DESCRIPTOR:.0e}; "
                "standardise or rescale the descriptors"
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
            )
            # EM's products are thin (n x f by f x K): a second BLAS thread gains nothing and,
            # when other processes hold the cores, made a fit ten times slower (2.7 s vs 0.3 s)
            with one_blas_thread():
                gmm.fit(Z)
        else:
            gmm = DiagonalGaussianMixture(self.gmm).gmm  # checks the mixture
            if gmm.means_.shape[1] != f:
                raise ValueError(
                    f"gmm has dimension {gmm.means_.shape[1]}, but the descriptors (after "
                    f"PCA) have width {f}"
                )
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

        Returns
        -------
        ndarray of shape (len(X), vector_length)
            One Fisher vector per set.
        """
        check_is_fitted(self, "gmm_")
        sets, lengths, _ = check_sets(X, self.n_descriptor_features_)
        include_weights = check_bool(self.include_weights, "include_weights")
        model = DiagonalGaussianMixture(self.gmm_, include_weights=include_weights)
        # eqs. 1.13-1.14: (T F)^{-1/2} g(X) with the diagonal Fisher information
        V = model.fisher_vectors(
            sets,
            pca=self.pca_,
            power_normalize=check_bool(self.power_normalize, "power_normalize"),
            l2_normalize=check_bool(self.l2_normalize, "l2_normalize"),
            n_jobs=self.n_jobs,
        )
        n_sets = len(lengths)
        n_empty = int(np.count_nonzero(lengths == 0))
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
        ``fv_sigma{i}_{j}`` for component ``i`` and (PCA) coordinate ``j``.

        Parameters
        ----------
        input_features : ignored
            Not used, present for scikit-learn API consistency.

        Returns
        -------
        ndarray of object, shape (vector_length,)
            The names, in the order of the columns of :meth:`transform`.
        """
        check_is_fitted(self, "gmm_")
        k, f = self.gmm_.means_.shape
        names = [f"fv_w{i}" for i in range(k)] if self.include_weights else []
        for block in ("mu", "sigma"):
            names += [f"fv_{block}{i}_{j}" for i in range(k) for j in range(f)]
        return np.asarray(names, dtype=object)
