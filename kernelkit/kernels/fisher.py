"""The Fisher kernel ``k(x, x') = g(x)^T F^{-1} g(x')`` of a generative model, and the
diagonal Gaussian mixture of descriptor sets behind Fisher vectors (assignment eqs.
1.5–1.7 and 1.11–1.14; Jaakkola & Haussler 1999; Perronnin & Dance 2007)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import linalg
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.mixture import GaussianMixture
from sklearn.utils.validation import check_is_fitted

from kernelkit._descriptor_sets import (
    check_finite_chunk,
    check_sets,
    chunk_bounds,
    segment_sums,
    stack_sets,
)
from kernelkit._threads import one_blas_thread, resolve_n_jobs, run_in_threads
from kernelkit._validation import check_array, check_bool, check_n_jobs
from kernelkit.kernels.base import Kernel
from kernelkit.kernels.parameters import parameter

__all__ = ["DiagonalGaussianMixture", "FisherKernel", "FisherModel", "fisher_vectors"]

#: Descriptors per run of sets in :meth:`DiagonalGaussianMixture.fisher_vectors`: work
#: arrays of about ``_CHUNK_ROWS x (2 f + 1)`` stay in cache.
_CHUNK_ROWS = 1024


class FisherModel:
    """Base class of the generative models a :class:`FisherKernel` works with.

    A model says what one sample is (a vector, a set of descriptors, a sequence, ...)
    and provides

    * ``score(X)``: the Fisher scores ``g(x) = grad_theta log p(x | theta)`` of the
      samples in ``X``, an array of shape ``(len(X), n_parameters)``;
    * ``fisher_information()``: ``F = E[g(x) g(x)^T]`` for one unit of data, either its
      diagonal (shape ``(n_parameters,)``) or the full ``(n_parameters, n_parameters)``
      matrix (symmetric positive definite);
    * ``sample_size(X)`` (optional; 1 for every sample here): the number of i.i.d. units
      each sample is made of. A set of ``T`` i.i.d. descriptors carries ``T`` times the
      information of one descriptor, so its Fisher vector is
      ``(T F)^{-1/2} g(x)``, as in eqs. 1.13–1.14.

    Any object with these methods works; subclassing this class is optional.
    """

    def score(self, X: Any) -> np.ndarray:
        """Fisher scores of the samples of ``X``, shape ``(len(X), n_parameters)``.

        Parameters
        ----------
        X : sequence
            The samples, as the model defines them.

        Returns
        -------
        ndarray of shape (len(X), n_parameters)
            The scores ``g(x) = grad_theta log p(x | theta)``, one row per sample.
        """
        raise NotImplementedError

    def fisher_information(self) -> np.ndarray:
        """The Fisher information of one unit of data: its diagonal or the full matrix.

        Returns
        -------
        ndarray of shape (n_parameters,) or (n_parameters, n_parameters)
            The positive diagonal, or the symmetric positive definite matrix.
        """
        raise NotImplementedError

    def sample_size(self, X: Any) -> np.ndarray:
        """The number of i.i.d. units in each sample of ``X`` (here 1 each).

        Parameters
        ----------
        X : sequence
            The samples.

        Returns
        -------
        ndarray of shape (len(X),)
            The sizes, all 1.
        """
        return np.ones(len(X))


def fisher_vectors(
    scores: Any, information: Any, sample_size: Any = None, *, name: str = "model"
) -> np.ndarray:
    """Fisher vectors ``(n F)^{-1/2} g`` of samples with scores ``g`` (one per row).

    ``G(x) = L^{-1} g(x) / sqrt(n_x)`` with ``F = L L^T`` (the Cholesky factor; for a
    diagonal ``F``, ``L = diag(sqrt(F))``), so ``G(x)^T G(x') = g(x)^T F^{-1} g(x')`` for
    samples of one unit each (the assignment's ``G_theta = F^{-1/2} g_theta``, Sec. 1.1).
    A sample of size 0 gets a zero vector.

    Parameters
    ----------
    scores : array of shape (n_samples, n_parameters)
        The Fisher scores ``g``.
    information : array of shape (n_parameters,) or (n_parameters, n_parameters)
        The Fisher information of one unit: positive diagonal, or symmetric positive
        definite matrix.
    sample_size : array of shape (n_samples,), optional
        Units per sample (non-negative); 1 each when omitted.
    name : str, default="model"
        Named in error messages.

    Returns
    -------
    ndarray of shape (n_samples, n_parameters)
        The Fisher vectors, one per row.

    Raises
    ------
    ValueError
        If ``information`` does not match the scores, is not positive (definite) or not
        symmetric, or ``sample_size`` has the wrong shape or negative entries.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels.fisher import fisher_vectors
    >>> fisher_vectors(np.array([[2.0, 3.0]]), np.array([4.0, 9.0]))
    array([[1., 1.]])
    """
    g = check_array(scores, f"{name}.score(X)", dtype=np.float64)
    F = np.asarray(information, dtype=np.float64) if np.ndim(information) in (1, 2) else None
    if F is None:
        raise ValueError(
            f"{name}.fisher_information() must be 1-D (a diagonal) or 2-D, got "
            f"{np.ndim(information)}-D"
        )
    F = check_array(F, f"{name}.fisher_information()", ndim=F.ndim, dtype=np.float64)
    p = g.shape[1]
    if F.ndim == 1:
        if F.shape[0] != p:
            raise ValueError(
                f"{name}.fisher_information() has {F.shape[0]} entries but the scores have "
                f"{p} parameters"
            )
        if not np.all(F > 0.0):
            raise ValueError(f"{name}.fisher_information() must be positive on the diagonal")
        G = g / np.sqrt(F)
    else:
        if F.shape != (p, p):
            raise ValueError(
                f"{name}.fisher_information() has shape {F.shape}, expected ({p}, {p}) for "
                f"scores with {p} parameters"
            )
        scale = max(1.0, float(np.abs(F).max()))
        if not np.allclose(F, F.T, rtol=1e-10, atol=1e-12 * scale):
            raise ValueError(f"{name}.fisher_information() must be symmetric")
        try:
            L = linalg.cholesky(F, lower=True)
        except linalg.LinAlgError:
            raise ValueError(
                f"{name}.fisher_information() is not positive definite, so F^-1 does not "
                "exist; remove redundant parameters (e.g. one mixture weight)"
            ) from None
        G = linalg.solve_triangular(L, g.T, lower=True).T
    if sample_size is None:
        return G
    n = check_array(sample_size, f"{name}.sample_size(X)", ndim=1, allow_empty=True)
    if n.shape != (g.shape[0],) or np.any(n < 0):
        raise ValueError(
            f"{name}.sample_size(X) must give one non-negative size per sample "
            f"({g.shape[0]}), got shape {n.shape}"
        )
    return G / np.sqrt(np.where(n > 0, n, 1.0))[:, None] * (n > 0)[:, None]


class FisherKernel(Kernel):
    """Fisher kernel ``k(x, x') = g(x)^T F^{-1} g(x')`` of a generative model.

    ``g(x) = grad_theta log p(x | theta)`` is the Fisher score and ``F`` the Fisher
    information (assignment eqs. 1.5–1.7). The kernel is the inner product of the Fisher
    vectors ``G(x) = F^{-1/2} g(x)`` (:meth:`fisher_vectors`); for samples made of several
    i.i.d. units (``model.sample_size``), ``G(x) = (n_x F)^{-1/2} g(x)``, the
    normalisation of eqs. 1.13–1.14, which makes the kernel comparable across sets of
    different sizes.

    Parameters
    ----------
    model : FisherModel or object with ``score`` and ``fisher_information``
        The generative model (see :class:`FisherModel`); what a sample is — a vector, a
        set of descriptors — is the model's choice, and the kernel takes a list of
        samples. :class:`DiagonalGaussianMixture` is the ready-made model of descriptor
        sets.

    See Also
    --------
    kernelkit.features.FisherVectorEncoder : The same vectors, with PCA and the power and
        L2 normalisations, as a scikit-learn transformer.

    Notes
    -----
    The kernel is invariant under an invertible linear change of parameters
    ``theta' = A theta``: then ``g' = A^{-T} g`` and ``F' = A^{-T} F A^{-1}``.

    T. Jaakkola, D. Haussler, "Exploiting generative models in discriminative
    classifiers", NIPS 1999.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.mixture import GaussianMixture
    >>> from kernelkit.kernels import DiagonalGaussianMixture, FisherKernel
    >>> rng = np.random.default_rng(0)
    >>> sets = [rng.normal(size=(n, 2)) for n in (20, 35, 50)]
    >>> gmm = GaussianMixture(3, covariance_type="diag", random_state=0)
    >>> gmm = gmm.fit(np.vstack(sets))
    >>> k = FisherKernel(DiagonalGaussianMixture(gmm))
    >>> K = k(sets)
    >>> K.shape, bool(np.allclose(K, K.T)), bool(np.allclose(np.diag(K), k.diag(sets)))
    ((3, 3), True, True)
    """

    requires_vector_input = False

    model: Any = parameter()

    def _check_params(self) -> None:
        super()._check_params()
        for method in ("score", "fisher_information"):
            if not callable(getattr(self.model, method, None)):
                raise TypeError(
                    f"model must have a {method}() method (see kernelkit.kernels.FisherModel), "
                    f"got {type(self.model).__name__}"
                )

    def fisher_vectors(self, X: Any) -> np.ndarray:
        """``G(x) = (n_x F)^{-1/2} g(x)`` for each sample of ``X``, one per row.

        Parameters
        ----------
        X : list of objects
            The samples, as ``model`` defines them.

        Returns
        -------
        ndarray of shape (len(X), n_parameters)
            The Fisher vectors, whose inner products are the kernel's values.
        """
        X = self._check_input(X, "X")
        return self._vectors(X)

    def _vectors(self, X: Any) -> np.ndarray:
        model = self.model
        scores = np.asarray(model.score(X), dtype=np.float64)
        if scores.ndim != 2 or scores.shape[0] != len(X):
            raise ValueError(
                f"model.score(X) must return one row per sample ({len(X)}), got an array of "
                f"shape {scores.shape}"
            )
        size = getattr(model, "sample_size", None)
        n = None if size is None else size(X)
        return fisher_vectors(scores, model.fisher_information(), n)

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        GX = self._vectors(X)
        GY = GX if Y is X else self._vectors(Y)
        return GX @ GY.T

    def _diag(self, X: Any) -> np.ndarray:
        G = self._vectors(X)
        return np.einsum("ij,ij->i", G, G)


class DiagonalGaussianMixture(FisherModel):
    """A fitted diagonal Gaussian mixture as a generative model of descriptor sets.

    A sample is a set ``X = {x_1, ..., x_T}`` of descriptors (an ``(T, f)`` array), drawn
    i.i.d. from the mixture ``sum_i pi_i N(mu_i, diag(sigma_i^2))``, so
    ``log p(X) = sum_t log p(x_t)`` (assignment eq. 1.10). The parameters ``theta`` are
    the means and standard deviations (the assignment's choice, Sec. 1.1) and, with
    ``include_weights=True``, first the soft-max weights ``alpha`` with
    ``pi_i = exp(alpha_i) / sum_j exp(alpha_j)`` (Sánchez et al. 2013).

    Parameters
    ----------
    gmm : GaussianMixture or FrozenEstimator
        A fitted ``sklearn.mixture.GaussianMixture(covariance_type="diag")``.
    include_weights : bool, default=False
        Include the ``K`` weight parameters ``alpha``.

    Attributes
    ----------
    n_components : int
        ``K``.
    n_features : int
        ``f``, the descriptor width.
    n_parameters : int
        ``2 K f``, plus ``K`` with the weights.

    Notes
    -----
    With posteriors ``gamma_t(i)``, the scores of a set are (coordinate-wise)

    .. math::

        g_{\\alpha_i} = \\sum_t (\\gamma_t(i) - \\pi_i), \\quad
        g_{\\mu_i} = \\sum_t \\gamma_t(i) \\frac{x_t - \\mu_i}{\\sigma_i^2}, \\quad
        g_{\\sigma_i} = \\sum_t \\gamma_t(i) \\Big[\\frac{(x_t - \\mu_i)^2}{\\sigma_i^3}
            - \\frac{1}{\\sigma_i}\\Big],

    and the Fisher information of one descriptor is taken diagonal, ``F_alpha = pi_i``,
    ``F_mu = pi_i / sigma_i^2``, ``F_sigma = 2 pi_i / sigma_i^2`` (Perronnin & Dance
    2007, the assignment's eq. 1.12; Sánchez et al. 2013 eqs. 15–17: exact when the
    posteriors are hard, an approximation otherwise). A set of ``T`` descriptors has
    ``T`` times this information, and :func:`fisher_vectors` of these scores are eqs.
    1.13–1.14 (and Sánchez et al.'s weight block).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.mixture import GaussianMixture
    >>> from kernelkit.kernels import DiagonalGaussianMixture
    >>> rng = np.random.default_rng(0)
    >>> gmm = GaussianMixture(2, covariance_type="diag", random_state=0)
    >>> model = DiagonalGaussianMixture(gmm.fit(rng.normal(size=(100, 3))))
    >>> model.score([rng.normal(size=(10, 3)), np.zeros((0, 3))]).shape
    (2, 12)
    """

    def __init__(self, gmm: Any, *, include_weights: bool = False) -> None:
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
            raise ValueError("gmm is not fitted; fit it first") from None
        self.gmm = inner
        self.include_weights = check_bool(include_weights, "include_weights")
        self.n_components, self.n_features = inner.means_.shape
        k, f = self.n_components, self.n_features
        self.n_parameters = 2 * k * f + (k if self.include_weights else 0)

    def __repr__(self) -> str:
        return (
            f"DiagonalGaussianMixture(K={self.n_components}, f={self.n_features}, "
            f"include_weights={self.include_weights})"
        )

    def __eq__(self, other: object) -> bool:
        """The same mixture parameters (by value) and the same ``include_weights``."""
        if not isinstance(other, DiagonalGaussianMixture):
            return NotImplemented
        a, b = self.gmm, other.gmm
        return self.include_weights == other.include_weights and all(
            np.array_equal(getattr(a, n), getattr(b, n))
            for n in ("weights_", "means_", "covariances_")
        )

    def __hash__(self) -> int:
        return hash((self.n_components, self.n_features, self.include_weights))

    def _check(self, X: Sequence[Any]) -> tuple[list[np.ndarray], np.ndarray]:
        sets, lengths, _ = check_sets(X, self.n_features, seen="the mixture")
        return sets, lengths

    def score(self, X: Sequence[Any], *, n_jobs: int | None = None) -> np.ndarray:
        """Fisher scores of the descriptor sets of ``X`` (one ``(T_i, f)`` array each),
        shape ``(len(X), n_parameters)``, in the order weights, means, standard
        deviations, each component-major. An empty set scores 0.

        Parameters
        ----------
        X : sequence of arrays of shape (T_i, f)
            The descriptor sets.
        n_jobs : int or None, default=None
            Threads sharing the runs of sets, as in :meth:`fisher_vectors`.

        Returns
        -------
        ndarray of shape (len(X), n_parameters)
            The scores, one row per set.
        """
        sets, lengths = self._check(X)
        return self._encode(sets, lengths, fisher=False, n_jobs=n_jobs)

    def fisher_vectors(
        self,
        X: Sequence[Any],
        *,
        pca: Any = None,
        power_normalize: bool = False,
        l2_normalize: bool = False,
        n_jobs: int | None = None,
    ) -> np.ndarray:
        """Fisher vectors ``(T F)^{-1/2} g(X)`` of the descriptor sets of ``X`` (eqs.
        1.13–1.14), optionally normalised, shape ``(len(X), n_parameters)``.

        Parameters
        ----------
        X : sequence of arrays of shape (T_i, D)
            The descriptor sets; ``D = f`` without ``pca``.
        pca : sklearn.decomposition.PCA, optional
            A fitted PCA from ``D`` to ``f`` dimensions applied to the descriptors first.
        power_normalize, l2_normalize : bool, default=False
            Signed square root of every entry, then division by the Euclidean norm.
        n_jobs : int or None, default=None
            Threads sharing the runs of sets: ``None``, as many as BLAS would use (1
            inside ``threadpoolctl.threadpool_limits(1)``); ``-1``, one per CPU. Each
            thread runs its matrix products on one BLAS thread; the result does not
            depend on ``n_jobs``.

        Returns
        -------
        ndarray of shape (len(X), n_parameters)
            Zero rows for empty sets.
        """
        width = self.n_features if pca is None else int(pca.components_.shape[1])
        sets, lengths, _ = check_sets(
            X, width, seen="the PCA" if pca is not None else "the mixture"
        )
        return self._encode(
            sets,
            lengths,
            fisher=True,
            pca=pca,
            power_normalize=check_bool(power_normalize, "power_normalize"),
            l2_normalize=check_bool(l2_normalize, "l2_normalize"),
            n_jobs=n_jobs,
        )

    def _encode(
        self,
        sets: list[np.ndarray],
        lengths: np.ndarray,
        *,
        fisher: bool,
        pca: Any = None,
        power_normalize: bool = False,
        l2_normalize: bool = False,
        n_jobs: int | None = None,
    ) -> np.ndarray:
        """Scores (``fisher=False``) or Fisher vectors of the checked sets, chunk by chunk.

        The sets go in runs of about ``_CHUNK_ROWS`` descriptors. For a run, one matrix
        product gives every descriptor's log-posterior terms from ``[x - c, (x - c)^2]``
        (``c`` the mixture's mean, which removes a common offset), and one batched product
        of the posteriors with ``[x - c, (x - c)^2, 1]``, padded to the run's largest set,
        gives each set's sums ``sum_t gamma_t(i) (x_t - c)``, ``sum_t gamma_t(i)
        (x_t - c)^2`` and ``sum_t gamma_t(i)``. The blocks follow from these sums and are
        written, normalised, straight into the output: no array larger than a run's
        work arrays besides the result.
        """
        gmm = self.gmm
        k, f = self.n_components, self.n_features
        weights = np.asarray(gmm.weights_, dtype=np.float64)
        var = np.asarray(gmm.covariances_, dtype=np.float64)
        sigma, prec = np.sqrt(var), 1.0 / var
        centre = weights @ np.asarray(gmm.means_, dtype=np.float64)
        mu = gmm.means_ - centre  # means around the mixture's mean
        # log pi_i N(x; mu_i, sigma_i^2) up to a constant, as [y, y^2] @ W + c0, y = x - c
        W = np.vstack([(mu * prec).T, (-0.5 * prec).T])
        c0 = np.log(weights) - 0.5 * (mu**2 * prec).sum(axis=1) - np.log(sigma).sum(axis=1)
        # the blocks as combinations of the sums s1, s2, s0 (see the class Notes); for
        # Fisher vectors, each column times 1 / sqrt(F) of its parameter
        scale_w = 1.0 / np.sqrt(weights) if fisher else np.ones(k)
        scale_mu = sigma / np.sqrt(weights)[:, None] if fisher else np.ones((k, f))
        scale_sigma = scale_mu / np.sqrt(2.0) if fisher else np.ones((k, f))
        mean_1, mean_0 = prec * scale_mu, mu * prec * scale_mu
        var_2 = prec / sigma * scale_sigma
        var_1 = 2.0 * mu * prec / sigma * scale_sigma
        var_0 = (mu**2 * prec - 1.0) / sigma * scale_sigma
        if pca is not None:
            pca_mean = np.asarray(pca.mean_, dtype=np.float64)
            pca_map = np.asarray(pca.components_, dtype=np.float64).T
            if getattr(pca, "whiten", False):
                pca_map = pca_map / np.sqrt(pca.explained_variance_)
        n, offset = len(lengths), k if self.include_weights else 0
        out = np.empty((n, self.n_parameters))

        def work(bounds: tuple[int, int]) -> None:
            start, stop = bounds
            T = lengths[start:stop]
            o = out[start:stop]
            if not T.any():
                o[:] = 0.0
                return
            Z = np.concatenate(sets[start:stop])
            check_finite_chunk(Z, T, start)
            if pca is not None:
                Z = (Z - pca_mean) @ pca_map
            m, t_max = stop - start, int(T.max())
            steps = np.arange(t_max)
            present = steps < T[:, None]  # (m, t_max)
            starts = np.concatenate(([0], np.cumsum(T)[:-1]))
            rows = np.where(present, starts[:, None] + steps, 0).ravel()
            Y = np.empty((m * t_max, 2 * f + 1))
            np.subtract(Z[rows], centre, out=Y[:, :f])
            np.square(Y[:, :f], out=Y[:, f : 2 * f])
            Y[:, 2 * f] = 1.0
            L = Y[:, : 2 * f] @ W
            L += c0
            L -= L.max(axis=1, keepdims=True)
            np.exp(L, out=L)
            L *= (present.ravel() / L.sum(axis=1))[:, None]  # posteriors; padding weighs 0
            S = L.reshape(m, t_max, k).transpose(0, 2, 1) @ Y.reshape(m, t_max, 2 * f + 1)
            s1, s2, s0 = S[:, :, :f], S[:, :, f : 2 * f], S[:, :, 2 * f :]
            Tf = T.astype(np.float64)
            if self.include_weights:
                o[:, :k] = (s0[:, :, 0] - Tf[:, None] * weights) * scale_w
            om = o[:, offset : offset + k * f].reshape(m, k, f)
            np.multiply(s1, mean_1, out=om)
            om -= s0 * mean_0
            ov = o[:, offset + k * f :].reshape(m, k, f)
            np.multiply(s2, var_2, out=ov)
            ov -= s1 * var_1
            ov += s0 * var_0
            if fisher:
                o *= np.divide(1.0, np.sqrt(Tf), out=np.zeros(m), where=T > 0)[:, None]
            if power_normalize:
                a = np.abs(o)
                norms2 = a.sum(axis=1)  # after the signed square root, |v|^2 = sum |z|
                np.sqrt(a, out=a)
                np.copysign(a, o, out=o)
            elif l2_normalize:
                norms2 = np.einsum("ij,ij->i", o, o)
            if l2_normalize:
                o *= np.divide(1.0, np.sqrt(norms2), out=np.zeros(m), where=norms2 > 0)[:, None]

        chunks = list(chunk_bounds(lengths, _CHUNK_ROWS))
        with one_blas_thread():  # thin products: the threads share out the runs of sets
            run_in_threads(work, chunks, resolve_n_jobs(check_n_jobs(n_jobs)))
        return out

    def fisher_information(self) -> np.ndarray:
        """The diagonal Fisher information of one descriptor (see Notes).

        Returns
        -------
        ndarray of shape (n_parameters,)
            The diagonal, in the order of :meth:`score`.
        """
        gmm = self.gmm
        weights = np.asarray(gmm.weights_, dtype=np.float64)
        precision = 1.0 / np.asarray(gmm.covariances_, dtype=np.float64)  # 1 / sigma^2
        mu = (weights[:, None] * precision).ravel()
        blocks = [mu, 2.0 * mu]
        if self.include_weights:
            blocks.insert(0, weights)
        return np.concatenate(blocks)

    def sample_size(self, X: Sequence[Any]) -> np.ndarray:
        """The number of descriptors in each set of ``X``.

        Parameters
        ----------
        X : sequence of arrays of shape (T_i, f)
            The descriptor sets.

        Returns
        -------
        ndarray of float64, shape (len(X),)
            The sizes ``T_i``.
        """
        return self._check(X)[1].astype(np.float64)

    def log_likelihood(self, X: Sequence[Any]) -> np.ndarray:
        """``log p(X_i) = sum_t log p(x_t)`` for each set of ``X`` (0 for an empty set).

        Parameters
        ----------
        X : sequence of arrays of shape (T_i, f)
            The descriptor sets.

        Returns
        -------
        ndarray of shape (len(X),)
            The log-likelihood of each set.
        """
        Z, lengths, _ = stack_sets(X, self.n_features, seen="the mixture")
        if not Z.shape[0]:
            return np.zeros(len(lengths))
        return segment_sums(self.gmm.score_samples(Z), lengths)
