"""The base class of the random maps ``x -> f(W x)``: random Fourier features, sign
features for the angular kernel and random projections share their parameters, their
validation, the draw of the random matrix ``W`` and the fit / transform bookkeeping."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from kernelkit._dask import is_dask_array
from kernelkit._memory import empty_output
from kernelkit._validation import check_int, check_n_jobs, check_random_state, validate_X
from kernelkit.features._coupling import Directions
from kernelkit.features.matrices import COUPLINGS, check_projections_finite, resolve_coupling

__all__ = ["RandomMap"]


class RandomMap(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base class of the random maps ``x -> f(W x)`` with coupled random rows ``W``.

    It holds the parameters every random map has, validates them, draws ``W``, keeps the
    fit bookkeeping (``n_features_in_``, ``feature_names_in_``, the output names
    ``<classname>0``, ``<classname>1``, ...) and runs ``transform``: validation, the
    output's memory check and the overflow check. A map adds only what is its own: its
    extra parameters, what it draws besides ``W`` and its non-linearity ``f``.

    Parameters
    ----------
    n_components : int, default=100
        Output width (the number of columns of ``transform``'s result).
    coupling : {"iid", "orthogonal", "hadamard"}, default="iid"
        The joint law of the rows of ``W`` (:data:`kernelkit.features.COUPLINGS`):
        independent Gaussian rows, Haar-orthogonal rows in blocks of ``d`` (Rowland
        (2018) Def. 7.1), or rows of stacked Hadamard–Rademacher products (§7.6). The
        literature's names ``"orf"`` and ``"sorf"`` are accepted for ``"orthogonal"``
        and ``"hadamard"``.
    n_blocks : int, default=3
        Number of ``S D`` factors of the Hadamard–Rademacher products.
    random_state : int, RandomState or None, default=None
        Seeds the random draws of ``fit``; the same value gives the same map.
    n_jobs : int or None, default=None
        Threads over blocks of rows in ``transform`` (``None``: as many as BLAS uses,
        ``-1``: all CPUs).

    Attributes
    ----------
    n_components_ : int
        The output width.
    coupling_ : str
        The coupling used (aliases resolved).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame given to ``fit`` (only then).
    n_parameter_bytes_ : int
        Bytes of the stored random parameters.

    Notes
    -----
    A subclass that adds parameters declares them all in its ``__init__`` (scikit-learn
    reads the signature), stores the shared ones with ``_set_shared_params`` and its own as
    they are; it fills in these hooks:

    * ``_fit_random(X, matrix, rng)`` (required): store the random matrix drawn by
      ``_make_random_matrix``, draw anything else, set ``n_parameter_bytes_``;
    * ``_transform(X)`` (required): the features of validated, C-contiguous ``X``;
    * ``_check_params()``: extend the validation of the constructor arguments;
    * ``_make_random_matrix(n_rows, X, rng)``: by default the coupled directions, with
      ``to_dense()``, ``project_blocks(X, consume, n_jobs)`` (streamed ``X W^T``),
      ``rescale(rows, columns)``, ``gain()`` and ``n_parameter_bytes``;
      :class:`RandomProjection` draws its matrices from
      :func:`kernelkit.features.matrices.sample_matrix` instead;
    * ``_n_random_rows(n_components)``: rows of ``W`` for the output width (by default
      equal; random Fourier features draw one frequency per cosine-sine pair);
    * ``_gain()``: a bound on ``|w . x| / max|x|`` for the overflow check of ``transform``
      (``None``: no check);
    * ``_validate(X, reset)``: extra checks of the input (the angular map refuses zero
      rows).

    A dask array needs nothing more: ``fit`` validates its first row only and hands the
    hooks that row repeated ``n_samples`` times (a read-only view, no copy), which gives
    them the shape and dtype they need (``n_components="auto"`` of
    :class:`RandomProjection` reads ``n_samples``); ``transform`` runs the array path on
    every row block, the fitted map shipped to the workers once.

    Examples
    --------
    A new map needs only its non-linearity. Sign features again (they estimate the
    angular kernel, as :class:`AngularFeatures`):

    >>> import numpy as np
    >>> from kernelkit.features import AngularFeatures, RandomMap
    >>> class SignFeatures(RandomMap):
    ...     def _fit_random(self, X, directions, rng):
    ...         self.W_ = directions.to_dense()
    ...         self.n_parameter_bytes_ = self.W_.nbytes
    ...
    ...     def _transform(self, X):
    ...         return np.sign(X @ self.W_.T) / np.sqrt(self.n_components_)
    >>> X = np.random.RandomState(0).randn(3, 5)
    >>> Z = SignFeatures(8, coupling="orf", random_state=0).fit_transform(X)
    >>> Z.shape
    (3, 8)
    >>> ref = AngularFeatures(8, coupling="orthogonal", random_state=0).fit_transform(X)
    >>> bool(np.allclose(Z, ref))
    True
    >>> SignFeatures(8).fit(X).get_feature_names_out()[:2].tolist()
    ['signfeatures0', 'signfeatures1']

    It transforms a dask array too, block by block of rows (see :meth:`transform`).
    """

    #: The couplings this map accepts (their aliases too).
    _couplings: tuple[str, ...] = COUPLINGS
    #: Appended to the message of an overflow in ``transform``.
    _overflow_advice = ""

    def __init__(
        self,
        n_components: Any = 100,
        *,
        coupling: str = "iid",
        n_blocks: int = 3,
        random_state: Any = None,
        n_jobs: int | None = None,
    ):
        self._set_shared_params(n_components, coupling, n_blocks, random_state, n_jobs)

    def _set_shared_params(
        self, n_components: Any, coupling: str, n_blocks: int, random_state: Any, n_jobs: Any
    ) -> None:
        """Store the shared constructor arguments unchanged (the subclasses' ``__init__``
        call this, then store their own)."""
        self.n_components = n_components
        self.coupling = coupling
        self.n_blocks = n_blocks
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ validation
    def _check_params(self) -> None:
        """Check the constructor arguments (subclasses extend this)."""
        self._check_n_components()
        resolve_coupling(self.coupling, self._couplings)
        check_int(self.n_blocks, "n_blocks", minimum=1)
        check_n_jobs(self.n_jobs)

    def _check_n_components(self) -> None:
        check_int(self.n_components, "n_components", minimum=1)

    def _validate(self, X: Any, *, reset: bool) -> np.ndarray:
        """``X`` as a dense, finite, C-contiguous float array (float32 kept)."""
        return validate_X(self, X, reset=reset, order="C")

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any = None) -> RandomMap:
        """Draw the random matrix for inputs with ``X.shape[1]`` features.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
            A dask array (chunked along rows only) is not loaded: the map needs only its
            shape and dtype, so only its first row is computed and validated (the other
            rows are validated block by block when they are transformed).
        y : ignored
            Not used, present for scikit-learn API consistency.

        Returns
        -------
        self : object
            The fitted map.
        """
        self._check_params()
        X = self._validate_dask_head(X) if is_dask_array(X) else self._validate(X, reset=True)
        rng = check_random_state(self.random_state)
        width = self._fitted_n_components(X)
        self.coupling_ = resolve_coupling(self.coupling, self._couplings)
        matrix = self._make_random_matrix(self._n_random_rows(width), X, rng)
        self._fit_random(X, matrix, rng)
        self.n_components_ = width
        return self

    def _validate_dask_head(self, X: Any) -> np.ndarray:
        """The first row of the dask array ``X``, computed and validated as ``fit``
        validates an array, repeated ``X.shape[0]`` times without copying (a read-only
        view): the hooks see the shape and dtype of the whole of ``X``."""
        from kernelkit._dask import check_row_chunked

        check_row_chunked(X)
        if X.shape[0] == 0:
            raise ValueError(f"X is empty (shape {X.shape}); at least one sample is required")
        head = self._validate(np.asarray(X[:1].compute()), reset=True)
        return np.broadcast_to(head, (int(X.shape[0]), head.shape[1]))

    def _fitted_n_components(self, X: np.ndarray) -> int:
        """The output width for the training data ``X``."""
        return int(self.n_components)

    def _n_random_rows(self, n_components: int) -> int:
        """Rows of the random matrix for an output of width ``n_components``."""
        return n_components

    def _make_random_matrix(self, n_rows: int, X: np.ndarray, rng: np.random.RandomState) -> Any:
        """``n_rows`` random directions in ``R^d`` coupled by ``coupling_``; a request that
        cannot fit in memory is refused before anything is drawn."""
        d = X.shape[1]
        request = (
            f"{type(self).__name__}(n_components={self.n_components}, "
            f"coupling={self.coupling_!r}) on {d} features"
        )
        return Directions(self.coupling_, n_rows, d, rng, n_blocks=self.n_blocks, request=request)

    def _fit_random(self, X: np.ndarray, matrix: Any, rng: np.random.RandomState) -> None:
        raise NotImplementedError  # pragma: no cover

    @property
    def _n_features_out(self) -> int:  # for ClassNamePrefixFeaturesOutMixin
        return int(self.n_components_)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    # ------------------------------------------------------------------ transform
    def transform(self, X: Any) -> Any:
        """The features of ``X``, shape ``(n_samples, n_components_)``; float32 input
        gives float32 features.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
            A dask array must be chunked along rows only; its blocks are transformed
            independently, with the same checks as an array.

        Returns
        -------
        ndarray or dask array of shape (n_samples, n_components)
            A dask array for a dask array (same row chunks, one column chunk), computed
            when it is asked for; the fitted parameters enter its task graph once (one
            key every block depends on), not once per block.

        Examples
        --------
        >>> import dask.array as da
        >>> import numpy as np
        >>> from kernelkit.features import AngularFeatures
        >>> X = np.random.RandomState(0).randn(3, 5)
        >>> features = AngularFeatures(8, coupling="orf", random_state=0).fit(X)
        >>> Zd = features.transform(da.from_array(X, chunks=(2, 5)))
        >>> Zd.chunks
        ((2, 1), (8,))
        >>> bool(np.allclose(Zd.compute(), features.transform(X)))
        True
        """
        check_is_fitted(self, "n_components_")
        if is_dask_array(X):
            return self._transform_dask(X)
        X = self._validate(X, reset=False)
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is checked next
            out = self._transform(X)
        gain = self._gain()
        if gain is not None:
            request = f"{type(self).__name__}.transform"
            check_projections_finite(X, gain, out, request, self._overflow_advice)
        return out

    def _transform_dask(self, X: Any) -> Any:
        """``transform`` of every row block of the dask array ``X``, lazily. One row of
        ones of ``X``'s dtype goes through ``transform`` first: it refuses now what the
        array path refuses (a wrong number of features, a complex dtype) and gives the
        output dtype."""
        from kernelkit._dask import check_row_chunked, map_row_blocks, shipping_copy

        check_row_chunked(X)
        probe = self.transform(np.ones((1, X.shape[1]), dtype=X.dtype))
        return map_row_blocks(
            _transform_block,
            X,
            shipping_copy(self),
            n_columns=self.n_components_,
            dtype=probe.dtype,
            what=f"{type(self).__name__}.transform of a dask array",
        )

    def _empty_output(self, X: np.ndarray) -> np.ndarray:
        """The uninitialised ``(n_samples, n_components_)`` result, refused up front if it
        cannot fit in memory."""
        shape = (X.shape[0], self.n_components_)
        return empty_output(shape, X.dtype, f"{type(self).__name__}.transform")

    def _transform(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover

    def _gain(self) -> float | None:
        return None


def _transform_block(X: np.ndarray, transformer: RandomMap) -> np.ndarray:
    """One row block of a dask array through the array path of ``transform``."""
    return transformer.transform(X)
