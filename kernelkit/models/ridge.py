"""Kernel ridge regression, in the dual (any kernel) or the primal (explicit features)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import check_positive_scalar, validate_X
from kernelkit.kernels import Kernel
from kernelkit.linalg.cholesky import cholesky_jitter
from kernelkit.models._common import (
    apply_feature_map,
    check_objects,
    is_precomputed,
    n_objects,
    resolve_estimator_kernel,
    ridge_on_features,
    validate_targets,
    validate_test_input,
    validate_training_data,
)

__all__ = ["KernelRidge"]


class KernelRidge(RegressorMixin, BaseEstimator):
    """Kernel ridge regression: ``alpha = (K + alpha I)^-1 y``, ``f(x) = k(x, X) alpha``.

    The dual solution of ``min_w sum_i (y_i - w . phi(x_i))^2 + alpha |w|^2`` (lecture
    notes §"Kernel ridge regression"; Rowland (2018) eq. 5.4), solved by one Cholesky
    factorisation of ``K + alpha I``. The regularisation convention is scikit-learn's,
    so ``alpha`` means the same as in :class:`sklearn.kernel_ridge.KernelRidge`; there
    is no intercept.

    With ``feature_map`` the same problem is solved for the weights of the explicit
    features, ``w = (Phi^T Phi + alpha I)^-1 Phi^T y`` (Rowland (2018) eq. 5.5), in
    ``O(n m^2)`` time for ``m`` features instead of ``O(n^3)`` — the point of random
    features (with more features than samples, through the ``n x n`` dual system).

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default=None
        The kernel; ``None`` means ``RBF()``, a name (``"rbf"``, ``"matern52"``, ...) is
        resolved by :func:`kernelkit.kernels.resolve_kernel`. With ``"precomputed"``,
        ``X`` in ``fit`` is the training Gram matrix and in ``predict`` the matrix
        ``K(X_test, X_train)``.
        Kernels on objects (``requires_vector_input = False``, e.g.
        :class:`~kernelkit.kernels.Intersection`) take lists of objects as ``X``.
    alpha : float, default=1.0
        Ridge regularisation ``> 0`` (scikit-learn's ``alpha``; the GP noise variance).
    feature_map : callable or transformer, optional
        Switches to the primal solution. Either an object with ``fit_transform`` (a copy
        is fitted in ``fit``, then its ``transform`` is used), an object with
        ``transform`` (used as is), or a callable ``X -> Phi``. ``kernel`` must be left
        at ``None`` then.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        ``(K + alpha I)^-1 y`` (dual mode).
    coef_ : ndarray of shape (n_features_out,) or (n_features_out, n_targets)
        Primal weights ``w`` (primal mode).
    X_fit_ : array or list
        Training inputs (dual mode; the Gram matrix for ``"precomputed"``).
    kernel_ : Kernel or "precomputed"
        The kernel used (dual mode).
    feature_map_ : object
        The fitted feature map (primal mode).
    n_features_in_ : int
        Number of input features, for array input (the number of training samples for
        ``"precomputed"``).
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    GaussianProcessRegressor : The same mean with ``alpha`` = noise variance, plus
        variances and fitted hyperparameters.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.models import KernelRidge
    >>> X = np.linspace(0, 1, 20)[:, None]
    >>> y = np.sin(6 * X[:, 0])
    >>> model = KernelRidge(RBF(lengthscale=0.2), alpha=1e-3).fit(X, y)
    >>> bool(abs(model.predict([[0.5]])[0] - np.sin(3.0)) < 0.01)
    True
    """

    def __init__(self, kernel: Any = None, *, alpha: float = 1.0, feature_map: Any = None):
        self.kernel = kernel
        self.alpha = alpha
        self.feature_map = feature_map

    # ------------------------------------------------------------------ fitting
    def _check_alpha(self) -> float:
        return check_positive_scalar(self.alpha, "alpha")

    def fit(self, X: Any, y: Any) -> KernelRidge:
        """Solve for the dual (or, with ``feature_map``, primal) coefficients.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), list of objects, or Gram matrix
            Training inputs of the kind ``kernel`` takes (see the class docstring).
        y : array of shape (n_samples,) or (n_samples, n_targets)
            Targets; predictions have the same number of dimensions.

        Returns
        -------
        self : KernelRidge
            The fitted estimator.
        """
        alpha = self._check_alpha()
        if self.feature_map is not None:
            return self._fit_primal(X, y, alpha)
        for attr in ("coef_", "feature_map_"):
            self.__dict__.pop(attr, None)
        kernel = resolve_estimator_kernel(self.kernel)
        X, y = validate_training_data(self, X, y, kernel, multi_output=True)
        K = kernel(X) if isinstance(kernel, Kernel) else np.array(X, dtype=np.float64)
        K[np.diag_indices_from(K)] += alpha
        L = cholesky_jitter(K, name="K + alpha*I")
        self.dual_coef_ = scipy.linalg.cho_solve((L, True), y, check_finite=False)
        self.kernel_ = kernel
        self.X_fit_ = X
        return self

    def _fit_primal(self, X: Any, y: Any, alpha: float) -> KernelRidge:
        fm = self.feature_map
        if self.kernel is not None:
            raise ValueError(
                "give either kernel (dual mode) or feature_map (primal mode), not both"
            )
        if not (callable(fm) or hasattr(fm, "transform") or hasattr(fm, "fit_transform")):
            raise TypeError(
                "feature_map must be callable or have a transform / fit_transform method, "
                f"got {type(fm).__name__}"
            )
        for attr in ("dual_coef_", "X_fit_", "kernel_"):
            self.__dict__.pop(attr, None)
        X = self._primal_input(X, reset=True)
        if hasattr(fm, "fit_transform"):
            fm = clone(fm, safe=False)
        Phi = apply_feature_map(fm, X, fit=True)
        y = validate_targets(self, y, n_objects(X), multi_output=True)
        self.coef_ = ridge_on_features(Phi, y, alpha, "Phi^T Phi + alpha*I").coef
        self.feature_map_ = fm
        return self

    def _primal_input(self, X: Any, *, reset: bool) -> Any:
        """Arrays are validated (feature counts, names); anything else is handed to the
        feature map as it is."""
        if isinstance(X, np.ndarray) or hasattr(X, "iloc"):  # an array or a DataFrame
            return validate_X(self, X, reset=reset, dtype=np.float64)
        if reset:
            self.__dict__.pop("n_features_in_", None)
            self.__dict__.pop("feature_names_in_", None)
        return check_objects(X)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        tags.target_tags.multi_output = True
        return tags

    # ------------------------------------------------------------------ prediction
    def predict(self, X: Any) -> np.ndarray:
        """Predictions ``K(X, X_fit) dual_coef_`` (or ``Phi(X) coef_`` in primal mode).

        Parameters
        ----------
        X : array of shape (n_samples, n_features), list of objects, or Gram matrix
            Test inputs of the kind seen in ``fit`` (for ``"precomputed"``, the matrix
            ``K(X_test, X_train)``).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
            The predictions, with the number of dimensions of ``y`` in ``fit``.
        """
        if hasattr(self, "coef_"):
            X = self._primal_input(X, reset=False)
            Phi = apply_feature_map(self.feature_map_, X, fit=False)
            if Phi.shape[1] != self.coef_.shape[0]:
                raise ValueError(
                    f"feature_map(X) has {Phi.shape[1]} features, but {self.coef_.shape[0]} "
                    "were seen in fit"
                )
            return Phi @ self.coef_
        check_is_fitted(self, "dual_coef_")
        kernel = self.kernel_
        X = validate_test_input(self, X, kernel, n_objects(self.X_fit_))
        Kt = kernel(X, self.X_fit_) if isinstance(kernel, Kernel) else X  # else precomputed
        return Kt @ self.dual_coef_
