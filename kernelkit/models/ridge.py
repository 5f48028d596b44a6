"""Kernel ridge regression, in the dual (any kernel) or the primal (explicit features)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import check_array, check_positive_scalar
from kernelkit.models._common import (
    PRECOMPUTED,
    apply_feature_map,
    check_fit_input,
    check_objects,
    check_predict_input,
    check_targets,
    n_objects,
    primal_solve,
    resolve_kernel,
)
from kernelkit.models._linalg import cholesky_jitter

__all__ = ["KernelRidge"]


class KernelRidge(RegressorMixin, BaseEstimator):
    """Kernel ridge regression: ``alpha = (K + alpha I)^-1 y``, ``f(x) = k(x, X) alpha``.

    The dual solution of ``min_w sum_i (y_i - w . phi(x_i))^2 + alpha |w|^2`` (lecture
    notes §"Kernel ridge regression"; Rowland (2018) eq. 5.4), solved by one Cholesky
    factorisation of ``K + alpha I``. The regularisation convention is scikit-learn's,
    so ``alpha`` means the same as in :class:`sklearn.kernel_ridge.KernelRidge`; there
    is no intercept.

    With ``feature_map`` the same problem is solved in the primal,
    ``w = (Phi^T Phi + alpha I)^-1 Phi^T y`` (Rowland (2018) eq. 5.5), in
    ``O(n m^2)`` time for ``m`` features instead of ``O(n^3)`` — the point of random
    features.

    Parameters
    ----------
    kernel : Kernel or "precomputed", default=None
        The kernel; ``None`` means ``RBF()``. With ``"precomputed"``, ``X`` in ``fit`` is
        the training Gram matrix and in ``predict`` the matrix ``K(X_test, X_train)``.
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
        Number of input features, for kernels on vectors.

    See Also
    --------
    GaussianProcessRegressor : the same mean with ``alpha`` = noise variance, plus
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
        """Solve for the dual (or, with ``feature_map``, primal) coefficients."""
        alpha = self._check_alpha()
        if self.feature_map is not None:
            return self._fit_primal(X, y, alpha)
        for attr in ("coef_", "feature_map_"):
            self.__dict__.pop(attr, None)
        kernel = resolve_kernel(self.kernel)
        X = check_fit_input(X, kernel)
        y = check_targets(y, n_objects(X))
        if kernel == PRECOMPUTED:
            K = np.array(X, dtype=np.float64)
        else:
            K = kernel(X)
        K[np.diag_indices_from(K)] += alpha
        L = cholesky_jitter(K, name="K + alpha*I")
        self.dual_coef_ = scipy.linalg.cho_solve((L, True), y, check_finite=False)
        self.kernel_ = kernel
        self.X_fit_ = X
        if kernel != PRECOMPUTED and kernel.requires_vector_input:
            self.n_features_in_ = X.shape[1]
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
        for attr in ("dual_coef_", "X_fit_", "kernel_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        X = check_array(X, "X") if isinstance(X, np.ndarray) else check_objects(X)
        if hasattr(fm, "fit_transform"):
            fm = clone(fm, safe=False)
        Phi = apply_feature_map(fm, X, fit=True)
        y = check_targets(y, n_objects(X))
        self.coef_ = primal_solve(Phi, y, alpha, "Phi^T Phi + alpha*I")[0]
        self.feature_map_ = fm
        return self

    # ------------------------------------------------------------------ prediction
    def predict(self, X: Any) -> np.ndarray:
        """Predictions ``K(X, X_fit) dual_coef_`` (or ``Phi(X) coef_`` in primal mode).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
        """
        if hasattr(self, "coef_"):
            if isinstance(X, np.ndarray):
                X = check_array(X, "X")
            else:
                check_objects(X)
            Phi = apply_feature_map(self.feature_map_, X, fit=False)
            if Phi.shape[1] != self.coef_.shape[0]:
                raise ValueError(
                    f"feature_map(X) has {Phi.shape[1]} features, but {self.coef_.shape[0]} "
                    "were seen in fit"
                )
            return Phi @ self.coef_
        check_is_fitted(self, "dual_coef_")
        kernel = self.kernel_
        n_train = n_objects(self.X_fit_)
        X = check_predict_input(X, kernel, n_train, getattr(self, "n_features_in_", None))
        Kt = X if kernel == PRECOMPUTED else kernel(X, self.X_fit_)
        return Kt @ self.dual_coef_
