"""Gaussian process and ridge regression in the primal, on explicit (random) feature maps.

With features ``Phi`` (``n x p``) whose inner products approximate a kernel,
``Phi Phi^T ~ K``, the model ``y = Phi w + eps``, ``w ~ N(0, I_p)``, ``eps ~ N(0, s2 I)``
is a Gaussian process with covariance ``phi(x)^T phi(x')``. Its posterior is computed in
``O(n p^2)`` from one Cholesky factorisation of ``A = Phi^T Phi + s2 I`` (Rowland (2018)
eq. 5.5) instead of ``O(n^3)`` for the exact GP (eq. 5.4):

* weights ``w | y ~ N(A^-1 Phi^T y, s2 A^-1)``;
* predictive mean ``phi(x*)^T A^-1 Phi^T y`` and covariance ``s2 phi(x*)^T A^-1 phi(x*')``.

:func:`gaussian_kl` and :meth:`RandomFeatureGP.kl_to` measure how far the approximate
predictive distribution is from the exact GP's (Rowland (2018) §7.6.2, Table 7.2).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.exceptions import DataConversionWarning, NotFittedError
from sklearn.utils.validation import check_is_fitted

from kernelkit._dask import is_dask_array
from kernelkit._memory import check_memory
from kernelkit._validation import (
    check_array,
    check_bool,
    check_in,
    check_int,
    check_positive_scalar,
    validate_X,
)
from kernelkit.features import AngularFeatures, RandomFourierFeatures
from kernelkit.kernels import RBF, Angular, Kernel, Matern, resolve_kernel
from kernelkit.linalg.cholesky import cholesky_jitter
from kernelkit.models._common import (
    apply_feature_map,
    ridge_from_statistics,
    ridge_on_features,
    validate_targets,
    validate_training_data,
)
from kernelkit.models._predictive import GaussianPredictor, Spread, target_scaling

__all__ = ["RandomFeatureGP", "RandomFeatureRidge", "gaussian_kl"]

_LOG_2PI = math.log(2.0 * math.pi)
KL_DIRECTIONS = ("approx_exact", "exact_approx")
#: The kernels with a random feature map: random Fourier features for RBF and Matérn
#: (Laplace included), angular features for Angular.
_FEATURE_KERNELS = (RBF, Matern, Angular)


# ---------------------------------------------------------------------- feature maps
def _feature_map_for(kernel: Any, n_components: int, coupling: str, random_state: Any) -> Any:
    """An unfitted random feature map of output width ``n_components`` whose inner products
    estimate ``kernel`` (a kernel object, or a name of :data:`kernelkit.kernels.KERNEL_NAMES`
    with unit lengthscale and variance)."""
    kernel = resolve_kernel(kernel, types=_FEATURE_KERNELS)
    if isinstance(kernel, Angular):
        return AngularFeatures(n_components, coupling=coupling, random_state=random_state)
    return RandomFourierFeatures(
        n_components, kernel=kernel, coupling=coupling, random_state=random_state
    )


def _check_feature_map(fm: Any) -> None:
    if isinstance(fm, Kernel):  # callable, but k(X) is a Gram matrix, not features
        raise TypeError(
            f"feature_map got a kernel, {fm!r}; pass it as kernel={fm!r} (the random "
            "features are built for it) or give a feature map"
        )
    if not (callable(fm) or hasattr(fm, "transform") or hasattr(fm, "fit_transform")):
        raise TypeError(
            "feature_map must be None, callable, or have a transform / fit_transform method; "
            f"got {type(fm).__name__}"
        )


class _RandomFeatureModel(RegressorMixin, BaseEstimator):
    """What the two random-feature regressors share: the feature map's parameters, and
    the fit of the ridge system in its smaller form (primal ``Phi^T Phi + reg I`` or dual
    ``Phi Phi^T + reg I``) with the weights."""

    def __init__(
        self, feature_map: Any, kernel: Any, n_components: int, coupling: str, random_state: Any
    ):
        # called by the subclasses' constructors, which declare the parameters
        self.feature_map = feature_map
        self.kernel = kernel
        self.n_components = n_components
        self.coupling = coupling
        self.random_state = random_state

    def _make_feature_map(self) -> Any:
        if self.feature_map is not None:
            _check_feature_map(self.feature_map)
            fm = self.feature_map
            return clone(fm, safe=False) if hasattr(fm, "fit_transform") else fm
        n_components = check_int(self.n_components, "n_components", minimum=1)
        return _feature_map_for(self.kernel, n_components, self.coupling, self.random_state)

    def _fit_features(self, X: np.ndarray, Y: np.ndarray, reg: float) -> np.ndarray:
        """Fit the feature map on ``X`` and solve ``(Phi^T Phi + reg I) W = Phi^T Y``."""
        fm = self._make_feature_map()
        if self.feature_map is None:
            self._check_size(X)
        Phi = apply_feature_map(fm, X, fit=True)
        sol = ridge_on_features(Phi, Y, reg, "Phi^T Phi + noise*I")
        self.coef_, self.L_, self.jitter_ = sol.coef, sol.L, sol.jitter
        self.solver_ = "dual" if sol.dual else "primal"
        # the dual's predictive variances need the training features
        self.features_fit_ = Phi if sol.dual else None
        self.feature_map_ = fm
        self.n_features_out_ = Phi.shape[1]
        return Phi

    def _fit_dask(self, X: Any, Y: Any, reg: float) -> tuple[int, np.ndarray, np.ndarray]:
        """Fit the feature map on the dask array ``X`` and solve the primal system from
        the sufficient statistics ``Phi^T Phi`` and ``Phi^T Y``, summed over row blocks
        in a tree (:func:`kernelkit._dask.sum_row_blocks`); ``X`` and ``Y`` come from
        :meth:`_validate_dask`. Returns ``(n, Phi^T Y, sum of Y**2 per target)``."""
        from kernelkit._dask import shipping_copy, sum_row_blocks

        fm = self._make_feature_map()
        if self.feature_map is None:
            self._check_size(X, primal=True)
        if hasattr(fm, "fit"):  # a random map computes only X[:1]
            fm.fit(X)
        elif hasattr(fm, "fit_transform"):
            fm.fit_transform(X)
        gram, Phi_Y, Y_Y, n = sum_row_blocks(
            _block_statistics,
            (X, Y),
            shipping_copy(fm),
            what=f"{type(self).__name__}.fit on a dask array",
        )
        # Rowland (2018) eq. 5.5: the p x p primal system, whatever n is
        sol = ridge_from_statistics(gram, Phi_Y, reg, "Phi^T Phi + noise*I")
        self.coef_, self.L_, self.jitter_ = sol.coef, sol.L, sol.jitter
        self.solver_ = "primal"
        self.features_fit_ = None
        self.feature_map_ = fm
        self.n_features_out_ = gram.shape[0]
        return int(n), Phi_Y, Y_Y

    def _validate_dask(self, X: Any, y: Any, *, multi_output: bool) -> tuple[Any, Any]:
        """``fit``'s dask ``X`` and ``y`` (a dask or an in-memory array): ``X`` chunked
        along rows only, its first row validated as an array would be (this sets
        ``n_features_in_``); ``y`` numeric, a column vector raveled with a
        ``DataConversionWarning`` unless ``multi_output``, cut into ``X``'s row chunks
        (an in-memory ``y`` is cut here; a dask ``y`` must come so). Both as float64,
        without empty chunks; the finiteness of every block is checked when it is
        reduced."""
        from kernelkit._dask import check_aligned_rows, check_row_chunked, import_dask

        da = import_dask(f"{type(self).__name__}.fit on a dask array")
        check_row_chunked(X)
        if X.shape[0] == 0:
            raise ValueError(f"X is empty (shape {X.shape}); at least one sample is required")
        validate_X(self, np.asarray(X[:1].compute()), reset=True, dtype=np.float64)
        rows = tuple(c for c in X.chunks[0] if c)  # some dask reductions (std) fail on empty
        if not is_dask_array(y):
            y = validate_targets(self, y, X.shape[0], multi_output=multi_output)
            y = da.from_array(y, chunks=(X.chunks[0], *y.shape[1:]))
        elif not (np.issubdtype(y.dtype, np.number) or y.dtype == bool):
            raise TypeError(f"y must be an array of numbers, got dtype {y.dtype}")
        elif np.issubdtype(y.dtype, np.complexfloating):
            raise TypeError("y must be real-valued, got a complex array")
        elif y.ndim == 2 and y.shape[1] == 1 and not multi_output:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. Please change "
                "the shape of y to (n_samples, ), for example using ravel().",
                DataConversionWarning,
                stacklevel=3,
            )
            y = y[:, 0]
        if y.ndim not in ((1, 2) if multi_output else (1,)):
            expected = "(n_samples,) or (n_samples, n_targets)" if multi_output else "(n_samples,)"
            raise ValueError(f"y must have shape {expected}, got shape {y.shape}")
        check_row_chunked(y, "y", ndim=y.ndim)
        check_aligned_rows(X, y)
        return _cut_rows(X.astype(np.float64), rows), _cut_rows(y.astype(np.float64), rows)

    def _check_size(self, X: Any, *, primal: bool = False) -> None:
        """Refuse up front a fit whose random directions, features and linear system could
        not fit in memory (the estimate is in the message). ``primal``: the fit of a dask
        array, with one row block of features in memory at a time and the ``p x p``
        system."""
        (n, d), p = X.shape, int(self.n_components)
        k = p if primal else min(n, p)
        rows = max(X.chunks[0]) if primal else n
        check_memory(
            8 * (p * d + rows * p + k * k),
            f"{type(self).__name__}(n_components={p}) on {n} x {d} data ({p} features, a "
            f"{k} x {k} linear system)",
            "ask for fewer n_components",
        )

    def _predict_features(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "coef_")
        X = validate_X(self, X, reset=False, dtype=np.float64)
        Phi = apply_feature_map(self.feature_map_, X, fit=False)
        if Phi.shape[1] != self.n_features_out_:
            raise ValueError(
                f"feature_map(X) has {Phi.shape[1]} features, but {self.n_features_out_} "
                "were seen in fit"
            )
        return Phi


class RandomFeatureRidge(_RandomFeatureModel):
    """Ridge regression on an explicit feature map, solved in the primal.

    ``w = (Phi^T Phi + alpha I)^-1 Phi^T y`` and ``f(x) = phi(x)^T w`` (Rowland (2018) eq.
    5.5): kernel ridge regression with the kernel ``phi(x)^T phi(x')``, in ``O(n p^2)``
    for ``p`` features. It equals :class:`~kernelkit.models.KernelRidge` with the same
    ``feature_map`` and ``alpha``; this class adds the random-feature construction from a
    kernel.

    Parameters
    ----------
    feature_map : transformer, callable or None, default=None
        An object with ``fit_transform`` (a clone is fitted in ``fit``), an object with
        only ``transform`` (used as is), or a callable ``X -> Phi``. ``None`` builds random
        features for ``kernel`` (:class:`~kernelkit.features.RandomFourierFeatures` or
        :class:`~kernelkit.features.AngularFeatures`).
    alpha : float, default=1.0
        Ridge regularisation ``> 0`` (scikit-learn's convention, no intercept).
    kernel : Kernel or str, default="rbf"
        With ``feature_map=None``: an ``RBF``, ``Matern`` (``Laplace`` included) or
        ``Angular`` kernel object, handed to the feature map as it is (its lengthscale,
        variance and ``nu`` define the features), or the name of one
        (``"rbf"``, ``"matern52"``, ``"laplace"``, ``"angular"``, ..., resolved by
        :func:`kernelkit.kernels.resolve_kernel` with unit lengthscale and variance).
        Ignored when ``feature_map`` is given.
    n_components : int, default=100
        Output width of the random feature map (``feature_map=None`` only), passed to
        :class:`~kernelkit.features.RandomFourierFeatures` (a cosine and a sine column
        per random frequency) or :class:`~kernelkit.features.AngularFeatures` (one column
        per direction).
    coupling : {"iid", "orthogonal", "hadamard"}, default="iid"
        IID, ORF or SORF features (Rowland (2018) §7.6; ``feature_map=None`` only); the
        names of :data:`kernelkit.features.COUPLINGS`.
    random_state : int, RandomState or None
        Seeds the random features (``feature_map=None`` only).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features_out,) or (n_features_out, n_targets)
    feature_map_ : object
        The fitted feature map.
    L_ : ndarray
        Lower Cholesky factor (plus jitter, if any) of the system solved: ``Phi^T Phi +
        alpha I`` (``solver_ == "primal"``) or, with more features than samples,
        ``Phi Phi^T + alpha I`` (``"dual"``).
    jitter_ : float
    solver_ : {"primal", "dual"}
        The smaller of the two systems, chosen in ``fit``: ``O(n p min(n, p))`` time,
        ``O(min(n, p)^2)`` memory beyond the features. Always ``"primal"`` after a fit
        on a dask array.
    features_fit_ : ndarray of shape (n_samples, n_features_out) or None
        Training features, kept for the dual only.
    n_features_in_, n_features_out_ : int
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    RandomFeatureGP : The same mean, with predictive variances.
    kernelkit.models.KernelRidge : The dual (exact kernel) solution.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-2, 2, size=(200, 2))
    >>> y = np.sin(X[:, 0]) + 0.1 * rng.randn(200)
    >>> model = RandomFeatureRidge(kernel=RBF(lengthscale=1.0), n_components=400,
    ...                            alpha=0.1, random_state=0).fit(X, y)
    >>> bool(np.sqrt(np.mean((model.predict(X) - np.sin(X[:, 0])) ** 2)) < 0.1)
    True

    Dask arrays chunked along rows are fitted blockwise (the same weights) and predicted
    lazily:

    >>> import dask.array as da
    >>> Xd, yd = da.from_array(X, chunks=(50, 2)), da.from_array(y, chunks=50)
    >>> on_blocks = RandomFeatureRidge(kernel=RBF(lengthscale=1.0), n_components=400,
    ...                                alpha=0.1, random_state=0).fit(Xd, yd)
    >>> bool(np.allclose(on_blocks.coef_, model.coef_))
    True
    >>> on_blocks.predict(Xd).chunks
    ((50, 50, 50, 50),)
    """

    def __init__(
        self,
        feature_map: Any = None,
        *,
        alpha: float = 1.0,
        kernel: Any = "rbf",
        n_components: int = 100,
        coupling: str = "iid",
        random_state: Any = None,
    ):
        super().__init__(feature_map, kernel, n_components, coupling, random_state)
        self.alpha = alpha

    def fit(self, X: Any, y: Any) -> RandomFeatureRidge:
        """Fit the feature map and solve for the weights.

        Parameters
        ----------
        X : array or dask array of shape (n_samples, n_features)
            A dask array, chunked along rows only, is never loaded whole: the feature
            map is fitted on its first row (a random map needs only the shape), and
            ``Phi^T Phi`` and ``Phi^T y`` are summed over its row blocks in a tree; the
            ``p x p`` primal system is then solved here (always the primal, whatever
            ``n``). The fitted attributes are NumPy arrays, as for an array.
        y : array or dask array of shape (n_samples,) or (n_samples, n_targets)
            With a dask ``X``, a dask ``y`` must have the row chunks of ``X`` (else a
            ValueError says how to rechunk it); an in-memory ``y`` is cut into them.

        Returns
        -------
        self : RandomFeatureRidge
            The fitted estimator.
        """
        alpha = check_positive_scalar(self.alpha, "alpha")
        if is_dask_array(X):
            self._fit_dask(*self._validate_dask(X, y, multi_output=True), alpha)
            return self
        X, y = validate_training_data(self, X, y, None, multi_output=True)
        self._fit_features(X, y, alpha)
        return self

    def predict(self, X: Any) -> Any:
        """``phi(X) coef_``.

        Parameters
        ----------
        X : array or dask array of shape (n_samples, n_features)
            A dask array must be chunked along rows only.

        Returns
        -------
        ndarray or dask array of shape (n_samples,) or (n_samples, n_targets)
            A dask array (the row chunks of ``X``) for a dask ``X``, computed when asked
            for; the fitted model enters its task graph once.
        """
        if is_dask_array(X):
            return self._predict_dask(X)
        return self._predict_features(X) @ self.coef_

    def _predict_dask(self, X: Any) -> Any:
        """``predict`` of every row block of the dask array ``X``, lazily. One row of
        ones goes through ``predict`` first, so that what the array path refuses (a
        wrong number of features) is refused now."""
        from kernelkit._dask import check_row_chunked, map_row_blocks, shipping_copy

        check_is_fitted(self, "coef_")
        check_row_chunked(X)
        probe = self.predict(np.ones((1, X.shape[1]), dtype=X.dtype))  # refuses what arrays would
        return map_row_blocks(
            _predict_block,
            X,
            shipping_copy(self),
            n_columns=None if probe.ndim == 1 else probe.shape[1],
            dtype=probe.dtype,
            what=f"{type(self).__name__}.predict of a dask array",
        )

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class RandomFeatureGP(GaussianPredictor, _RandomFeatureModel):
    """Gaussian process regression on an explicit (random) feature map, in the primal.

    The Bayesian linear model ``y = phi(x)^T w + eps`` with ``w ~ N(0, I)`` and
    ``eps ~ N(0, noise)``, i.e. a GP with covariance ``phi(x)^T phi(x')``; with random
    Fourier features this approximates the GP with the kernel the features estimate
    (Rowland (2018) §5.1 and §7.6.2). With ``A = Phi^T Phi + noise I`` (Rowland (2018)
    eq. 5.5):

    * posterior weights ``N(A^-1 Phi^T y, noise A^-1)``;
    * predictive mean ``phi(x*)^T A^-1 Phi^T y``, covariance
      ``noise phi(x*)^T A^-1 phi(x*')`` (``+ noise I`` for noisy targets);
    * log marginal likelihood of ``N(0, Phi Phi^T + noise I)`` through the Woodbury and
      determinant identities.

    Fitting costs ``O(n p min(n, p))`` for ``p`` features: with more features than
    samples the ``n x n`` dual system ``Phi Phi^T + noise I`` is solved instead (the same
    posterior, by Woodbury), so memory stays ``O(n p + min(n, p)^2)``. Prediction costs
    ``O(min(n, p) p)`` per point. On dask arrays the fit needs only the sums ``Phi^T
    Phi``, ``Phi^T y`` and ``y^T y`` over blocks of rows (and the mean and standard
    deviation of ``y`` for ``normalize_y``), then solves the ``p x p`` primal system;
    ``predict`` (the mean, or with ``return_std``) maps the blocks.
    The hyperparameters (feature map, ``noise``) are used as given, not fitted; to copy
    them from an exact GP pass its ``kernel_`` and ``noise_``.

    Parameters
    ----------
    feature_map : transformer, callable or None, default=None
        An object with ``fit_transform`` (a clone is fitted in ``fit``), an object with
        only ``transform`` (used as is), or a callable ``X -> Phi``. ``None`` builds random
        features for ``kernel``.
    kernel : Kernel or str, default="rbf"
        With ``feature_map=None``: an ``RBF``, ``Matern`` (``Laplace`` included) or
        ``Angular`` kernel object, handed to the feature map as it is (its lengthscale,
        scalar or ARD, its variance and ``nu`` define the features), e.g. the fitted
        ``kernel_`` of a :class:`~kernelkit.models.GaussianProcessRegressor`; or the name
        of one (``"rbf"``, ``"matern52"``, ``"laplace"``, ``"angular"``, ..., resolved by
        :func:`kernelkit.kernels.resolve_kernel` with unit lengthscale and variance).
        Ignored when ``feature_map`` is given.
    n_components : int, default=100
        The number of features, ``p`` (``feature_map=None`` only), as in
        :class:`RandomFeatureRidge`.
    coupling : {"iid", "orthogonal", "hadamard"}, default="iid"
        IID, ORF (Def. 7.6) or SORF (Hadamard–Rademacher, ``k = 3``, §7.6) features; the
        names of :data:`kernelkit.features.COUPLINGS`.
    noise : float, default=1e-2
        Observation noise variance ``> 0`` (on the normalised scale when
        ``normalize_y``); also the ridge term of ``A``.
    normalize_y : bool, default=False
        Standardise ``y`` before fitting; predictions are returned in the original units.
    random_state : int, RandomState or None
        Seeds the random features (``feature_map=None`` only).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features_out,)
        Posterior mean of the weights (normalised targets).
    L_ : ndarray
        Lower Cholesky factor (plus jitter, if any) of ``Phi^T Phi + noise I``
        (``solver_ == "primal"``) or of ``Phi Phi^T + noise I`` (``"dual"``, when there
        are more features than samples).
    jitter_ : float
    solver_ : {"primal", "dual"}
    features_fit_ : ndarray of shape (n_samples, n_features_out) or None
        Training features, kept for the dual only.
    feature_map_ : object
        The fitted feature map.
    noise_ : float
    y_train_mean_, y_train_std_ : float
        Normalisation of ``y`` (0 and 1 unless ``normalize_y``).
    log_marginal_likelihood_value_ : float
        ``log N(y | 0, Phi Phi^T + noise I)`` of the normalised targets.
    n_features_in_, n_features_out_ : int
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    kernelkit.models.GaussianProcessRegressor : The exact GP (``O(n^3)``).
    RandomFeatureRidge : The predictive mean alone.
    gaussian_kl : The divergence used by :meth:`kl_to`.

    Notes
    -----
    Rowland (2018) eqs. 5.4–5.5 and §7.6.2 (Tables 7.2–7.9: KL divergence to the exact
    predictive distribution and test RMSE of IID / ORF / SORF approximations).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.models import GaussianProcessRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-2, 2, size=(100, 3))
    >>> y = np.sin(X[:, 0]) + 0.1 * rng.randn(100)
    >>> exact = GaussianProcessRegressor(RBF(lengthscale=1.5), noise=0.01,
    ...                                  optimizer=None).fit(X, y)
    >>> kls = [RandomFeatureGP(kernel=exact.kernel_, n_components=m, noise=0.01,
    ...                        coupling="orthogonal", random_state=0)
    ...        .fit(X, y).kl_to(exact, X[:20]) for m in (20, 600)]
    >>> bool(kls[0] > kls[1] > 0)
    True
    """

    def __init__(
        self,
        feature_map: Any = None,
        *,
        kernel: Any = "rbf",
        n_components: int = 100,
        coupling: str = "iid",
        noise: float = 1e-2,
        normalize_y: bool = False,
        random_state: Any = None,
    ):
        super().__init__(feature_map, kernel, n_components, coupling, random_state)
        self.noise = noise
        self.normalize_y = normalize_y

    _blockwise_predict = True  # predict maps a dask array block by block

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any) -> RandomFeatureGP:
        """Fit the feature map and compute the weight posterior.

        Parameters
        ----------
        X : array or dask array of shape (n_samples, n_features)
            A dask array, chunked along rows only, is never loaded whole: the feature
            map is fitted on its first row, the mean and standard deviation of ``y``
            (``normalize_y``) are reduced first, then ``Phi^T Phi``, ``Phi^T y`` and
            ``y^T y`` are summed over its row blocks in a tree and the ``p x p`` primal
            system solved (Rowland (2018) eq. 5.5). The fitted attributes and
            ``log_marginal_likelihood_value_`` are NumPy arrays and floats, as for an
            array.
        y : array or dask array of shape (n_samples,)
            A column vector ``(n_samples, 1)`` is raveled with a ``DataConversionWarning``.
            With a dask ``X``, a dask ``y`` must have the row chunks of ``X`` (else a
            ValueError says how to rechunk it); an in-memory ``y`` is cut into them.

        Returns
        -------
        self : RandomFeatureGP
            The fitted estimator.
        """
        noise = check_positive_scalar(self.noise, "noise")
        check_bool(self.normalize_y, "normalize_y")
        blockwise = is_dask_array(X)
        if blockwise:
            X, y = self._validate_dask(X, y, multi_output=False)
        else:
            X, y = validate_training_data(self, X, y, None, multi_output=False)
        mean, std = target_scaling(y, self.normalize_y)  # dask: computed first
        yn = (y - mean) / std
        if blockwise:
            n, Phi_y, y_y = self._fit_dask(X, yn, noise)
        else:
            Phi = self._fit_features(X, yn, noise)
            with np.errstate(over="ignore"):  # overflow is refused below
                n, Phi_y, y_y = Phi.shape[0], Phi.T @ yn, yn @ yn
        self.noise_ = noise
        self.y_train_mean_, self.y_train_std_ = mean, std
        with np.errstate(over="ignore", invalid="ignore"):
            lml = self._lml(n, float(y_y), Phi_y, yn)
        if not (np.isfinite(lml) and np.isfinite(self.coef_).all()):
            raise ValueError(
                f"y is too large for this model: with |y| up to {float(abs(y).max()):.3g} "
                "the weights or the log marginal likelihood overflow float64; use "
                "normalize_y=True or rescale y"
            )
        self.log_marginal_likelihood_value_ = lml
        return self

    def _lml(self, n: int, y_y: float, Phi_y: np.ndarray, y: Any) -> float:
        """``log N(y | 0, Phi Phi^T + noise I)`` in ``O(p^2)`` given the fitted factor and
        ``n``, ``y^T y`` and ``Phi^T y`` (which a dask fit sums over row blocks).

        Dual (``L = chol(Phi Phi^T + s I)``): the ordinary GP formula (from ``y``
        itself, in memory). Primal (``L = chol(A)``, ``A = Phi^T Phi + s I``), through
        Woodbury: ``y^T (Phi Phi^T + s I)^-1 y = (y^T y - y^T Phi A^-1 Phi^T y) / s``,
        and the determinant lemma: ``log|Phi Phi^T + s I| = log|A| + (n - p) log s``.
        """
        p, noise = self.n_features_out_, self.noise_
        logdet = 2.0 * float(np.log(np.diagonal(self.L_)).sum())
        if self.solver_ == "dual":
            v = scipy.linalg.solve_triangular(self.L_, y, lower=True, check_finite=False)
            quad = float(v @ v)
        else:
            quad = (y_y - float(Phi_y @ self.coef_)) / noise
            logdet += (n - p) * math.log(noise)
        return -0.5 * (quad + logdet + n * _LOG_2PI)

    # ------------------------------------------------------------------ prediction
    def _latent_predictive(
        self, X: Any, what: Spread
    ) -> tuple[np.ndarray, np.ndarray | None, float]:
        """``phi^T coef`` and ``noise phi^T A^-1 phi`` (its diagonal for ``"var"``)."""
        Phi = self._predict_features(X)
        mean = Phi @ self.coef_
        if what == "mean":
            return mean, None, self.noise_
        if self.solver_ == "dual":
            # noise phi^T A^-1 phi' = phi^T phi' - k^T (Phi Phi^T + noise I)^-1 k' with
            # k = Phi_fit phi (Woodbury): the exact GP's formula for the kernel phi^T phi'
            V = scipy.linalg.solve_triangular(
                self.L_, self.features_fit_ @ Phi.T, lower=True, check_finite=False
            )
            if what == "cov":
                return mean, Phi @ Phi.T - V.T @ V, self.noise_
            prior = np.einsum("ij,ij->i", Phi, Phi)
            return mean, prior - np.einsum("ij,ij->j", V, V), self.noise_
        # V = L^-1 phi(X*)^T, so noise V^T V = noise phi^T A^-1 phi
        V = scipy.linalg.solve_triangular(self.L_, Phi.T, lower=True, check_finite=False)
        if what == "cov":
            return mean, self.noise_ * (V.T @ V), self.noise_
        return mean, self.noise_ * np.einsum("ij,ij->j", V, V), self.noise_

    def _prior_variance(self, X: Any) -> np.ndarray:
        """``phi(x)^T phi(x)``, the model's prior variance of ``f(x)`` (normalised scale)."""
        Phi = self._predict_features(X)
        return np.einsum("ij,ij->i", Phi, Phi)

    # ------------------------------------------------------------------ comparison
    def kl_to(
        self,
        exact_gp: Any,
        X_test: Any,
        *,
        direction: str = "approx_exact",
        joint: bool = True,
        include_noise: bool = True,
    ) -> float:
        """KL divergence between this model's and an exact GP's predictive distributions.

        Rowland (2018) §7.6.2 reports the "KL divergence from the approximate predictive
        distribution obtained via random Fourier feature approximations to the true
        predictive distribution obtained by an exactly-trained GP" (Tables 7.2, 7.4,
        7.7: "KL divergence from true posterior"; App. 7.B: "against predictions obtained
        from exact inference"). We read "from P to Q" as ``KL(P || Q)``, so the default is

        ``KL(N(mu~, Sigma~) || N(mu, Sigma))``  (``direction="approx_exact"``),

        with ``N(mu~, Sigma~)`` this model's and ``N(mu, Sigma)`` the exact GP's predictive
        distribution at ``X_test``; ``direction="exact_approx"`` gives ``KL(N(mu, Sigma) ||
        N(mu~, Sigma~))``. The thesis does not say whether the joint or the marginal
        predictive distributions are compared, nor whether the noise is included; the
        defaults compare the **joint** distributions of the **noisy** targets ``y*``
        (without the noise the random-feature covariance has rank at most
        ``n_features_out_`` and the joint KL is infinite once ``n_test`` exceeds it).
        ``joint=False`` sums the univariate KLs of the marginals instead.

        Parameters
        ----------
        exact_gp : fitted GaussianProcessRegressor
            Or any fitted regressor with ``predict(X, return_cov=True, include_noise=...)``
            and ``n_features_in_``.
        X_test : array of shape (n_test, n_features)
            The test inputs the predictive distributions are compared at.
        direction : {"approx_exact", "exact_approx"}, default="approx_exact"
            ``KL(approx || exact)`` or ``KL(exact || approx)`` (see above).
        joint : bool, default=True
            Compare the joint distributions; False sums the KLs of the marginals.
        include_noise : bool, default=True
            Compare the distributions of the noisy targets rather than of ``f``.

        Returns
        -------
        float
            ``>= 0`` (nats).
        """
        check_is_fitted(self, "coef_")
        check_in(direction, "direction", KL_DIRECTIONS)
        _check_exact_gp(exact_gp, self.n_features_in_)
        X_test = check_array(X_test, "X_test", n_features=self.n_features_in_)
        mu_a, cov_a = self.predict(X_test, return_cov=True, include_noise=include_noise)
        mu_e, cov_e = exact_gp.predict(X_test, return_cov=True, include_noise=include_noise)
        p, q = ((mu_a, cov_a), (mu_e, cov_e))
        if direction == "exact_approx":
            p, q = q, p
        if joint:
            return gaussian_kl(p[0], p[1], q[0], q[1])
        return _marginal_kl(p[0], np.diagonal(p[1]), q[0], np.diagonal(q[1]))


def _block_statistics(
    X: np.ndarray, Y: np.ndarray, feature_map: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``Phi^T Phi``, ``Phi^T Y``, the sum of ``Y**2`` per target and the row count of
    one row block, ``Phi = feature_map(X)``; the block checked as an array ``X`` is."""
    X = check_array(X, "X", dtype=np.float64)
    Y = check_array(Y, "y", ndim=Y.ndim, dtype=np.float64)
    Phi = apply_feature_map(feature_map, X, fit=False)
    return Phi.T @ Phi, Phi.T @ Y, np.einsum("i...,i...->...", Y, Y), X.shape[0]


def _cut_rows(A: Any, rows: tuple[int, ...]) -> Any:
    """The dask array ``A`` with the row chunks ``rows`` (its own without the empty ones)."""
    return A if rows == A.chunks[0] else A.rechunk({0: rows})


def _predict_block(X: np.ndarray, model: RandomFeatureRidge) -> np.ndarray:
    """The predictions of one row block (the array path of ``predict``)."""
    return model.predict(X)


def _check_exact_gp(gp: Any, n_features: int) -> None:
    if not hasattr(gp, "predict"):
        raise TypeError(f"exact_gp must be a fitted GP regressor, got {type(gp).__name__}")
    if not (hasattr(gp, "X_train_") or hasattr(gp, "n_features_in_")):
        raise NotFittedError(
            "exact_gp is not fitted; call exact_gp.fit(X_train, y_train) before kl_to"
        )
    d = getattr(gp, "n_features_in_", None)
    if d is not None and d != n_features:
        raise ValueError(
            f"exact_gp was fitted on {d} features, but this model on {n_features}; "
            "they must model the same inputs"
        )


def _marginal_kl(m0: np.ndarray, v0: np.ndarray, m1: np.ndarray, v1: np.ndarray) -> float:
    """``sum_i KL(N(m0_i, v0_i) || N(m1_i, v1_i))``."""
    if np.any(v0 <= 0) or np.any(v1 <= 0):
        raise ValueError("the marginal KL needs positive predictive variances; use include_noise")
    r = v0 / v1
    return float(0.5 * np.sum(r + (m1 - m0) ** 2 / v1 - 1.0 - np.log(r)))


def gaussian_kl(mean0: Any, cov0: Any, mean1: Any, cov1: Any) -> float:
    """``KL(N(mean0, cov0) || N(mean1, cov1))`` via Cholesky factors.

    ``1/2 [tr(S1^-1 S0) + (m1 - m0)^T S1^-1 (m1 - m0) - k + log|S1| - log|S0|]`` with
    ``S1 = L1 L1^T``, ``S0 = L0 L0^T``: ``tr(S1^-1 S0) = |L1^-1 L0|_F^2`` and the
    log-determinants are ``2 sum log diag L``. Covariances that are not numerically
    positive definite get jitter (:func:`~kernelkit.models.cholesky_jitter`, with a
    warning). Clipped at 0 against round-off.

    Parameters
    ----------
    mean0 : array-like of shape (k,)
        Mean of the first Gaussian.
    cov0 : array-like of shape (k, k)
        Covariance of the first Gaussian.
    mean1 : array-like of shape (k,)
        Mean of the second Gaussian.
    cov1 : array-like of shape (k, k)
        Covariance of the second Gaussian.

    Returns
    -------
    float
        The divergence, ``>= 0`` (nats).

    Raises
    ------
    ValueError
        If the shapes do not match.

    Examples
    --------
    >>> round(gaussian_kl([0.0], [[1.0]], [1.0], [[1.0]]), 12)
    0.5
    """
    m0 = check_array(mean0, "mean0", ndim=1, dtype=np.float64)
    m1 = check_array(mean1, "mean1", ndim=1, dtype=np.float64)
    k = m0.shape[0]
    S0 = check_array(cov0, "cov0", dtype=np.float64)
    S1 = check_array(cov1, "cov1", dtype=np.float64)
    if m1.shape[0] != k or S0.shape != (k, k) or S1.shape != (k, k):
        raise ValueError(
            f"shapes do not match: mean0 {m0.shape}, cov0 {S0.shape}, mean1 {m1.shape}, "
            f"cov1 {S1.shape}"
        )
    L0 = cholesky_jitter(S0, name="cov0")
    L1 = cholesky_jitter(S1, name="cov1")
    M = scipy.linalg.solve_triangular(L1, L0, lower=True, check_finite=False)
    r = scipy.linalg.solve_triangular(L1, m1 - m0, lower=True, check_finite=False)
    logdet = 2.0 * (np.log(np.diagonal(L1)).sum() - np.log(np.diagonal(L0)).sum())
    with np.errstate(over="ignore", invalid="ignore"):
        kl = 0.5 * (float(np.sum(M * M)) + float(r @ r) - k + float(logdet))
    if not np.isfinite(kl):
        raise ValueError(
            "the divergence is beyond float64: the two Gaussians are too far apart (their "
            "covariances or means differ by a factor of more than about 1e300)"
        )
    return max(kl, 0.0)
