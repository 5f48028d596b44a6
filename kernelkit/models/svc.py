"""Kernel support vector classification on any kernelkit kernel, through libsvm."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import (
    check_bool,
    check_in,
    check_int,
    check_positive,
    check_positive_scalar,
    check_random_state,
)
from kernelkit.kernels import Kernel
from kernelkit.models._common import (
    is_precomputed,
    n_objects,
    resolve_estimator_kernel,
    take,
    validate_test_input,
    validate_training_data,
)

__all__ = ["KernelSVC"]


class KernelSVC(ClassifierMixin, BaseEstimator):
    """Support vector classifier for any kernelkit kernel (libsvm underneath).

    The Gram matrix is computed by the kernel and handed to scikit-learn's libsvm
    :class:`~sklearn.svm.SVC` with ``kernel="precomputed"``; no solver is re-implemented.
    Kernels on objects (sets, graphs) take lists of objects as ``X``: the training
    objects are kept, and at prediction time only the columns of ``K(X_test, X_train)``
    that belong to support vectors are evaluated.

    Multiclass problems are decomposed either one-vs-rest — one binary SVC per class on
    the same Gram matrix, predicting the class with the largest decision value (the
    assignment's "ten one-vs-rest classifiers") — or one-vs-one, libsvm's native scheme
    with majority voting. Binary problems use a single SVC either way.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default=None
        ``None`` means ``RBF()``; a name (``"rbf"``, ``"matern52"``, ...) is resolved by
        :func:`kernelkit.kernels.resolve_kernel`. With ``"precomputed"``, ``X`` is the
        training Gram matrix in ``fit`` and ``K(X_test, X_train)`` of shape
        ``(n_test, n_train)`` afterwards.
    C : float, default=1.0
        Soft-margin penalty ``> 0``.
    multiclass : {"ovr", "ovo"}, default="ovr"
        Decomposition of multiclass problems.
    class_weight : dict, "balanced" or None, default=None
        Per-class multipliers of ``C``. With ``"ovr"``, ``"balanced"`` balances each
        class against the rest, and a dict weights each sample by the weight of its
        class (missing classes get 1).
    tol : float, default=1e-3
        Stopping tolerance of libsvm.
    max_iter : int, default=-1
        Iteration limit of libsvm; -1 means none.
    probability : bool, default=False
        Also fit Platt scaling, so that :meth:`predict_proba` is available: a sigmoid of
        the decision values, fitted on out-of-fold decision values of a stratified 5-fold
        cross-validation (fewer folds when a class has fewer than 5 samples; Platt 1999):
        scikit-learn's ``CalibratedClassifierCV(method="sigmoid", ensemble=False)``, which
        replaces ``SVC(probability=True)`` (deprecated in scikit-learn 1.9). Multiclass
        problems calibrate each class's one-vs-rest decision value and normalise the rows,
        so they need ``multiclass="ovr"``. Costs five more fits; ``predict_proba``'s argmax
        can disagree with ``predict``, as in scikit-learn.
    random_state : int, RandomState or None, default=None
        Seeds the folds of the calibration for ``probability=True`` (unused otherwise).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of sklearn.svm.SVC
        One fitted SVC (binary or "ovo"), or one per class ("ovr").
    support_ : ndarray
        Indices of the support vectors: those of the single SVC in libsvm's order
        (matching ``dual_coef_``), or, for "ovr", the sorted union over the classes.
    n_support_, dual_coef_, intercept_ : ndarray
        Those of the single SVC (binary or "ovo" only).
    X_fit_ : array or list
        Training inputs (not kept for ``"precomputed"``).
    shape_fit_ : tuple
        ``(n_train,)``; the number of columns predict expects for "precomputed".
    calibrated_ : sklearn.calibration.CalibratedClassifierCV
        The Platt scaling (``probability=True`` only).
    n_iter_ : ndarray of int
        libsvm iterations of each binary problem ("ovo": one per pair of classes,
        "ovr": one per class).
    n_features_in_ : int
        Number of input features for array input (``n_train`` for "precomputed").
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame with string column names.

    Examples
    --------
    >>> from kernelkit.kernels import Intersection
    >>> from kernelkit.models import KernelSVC
    >>> X = [{1, 2}, {1, 2, 3}, {1, 3}, {7, 8}, {8, 9}, {7, 9}]
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> clf = KernelSVC(Intersection(), C=10.0).fit(X, y)
    >>> clf.predict([{2, 3}, {7, 8, 9}]).tolist()
    [0, 1]
    """

    def __init__(
        self,
        kernel: Any = None,
        *,
        C: float = 1.0,
        multiclass: str = "ovr",
        class_weight: Any = None,
        tol: float = 1e-3,
        max_iter: int = -1,
        probability: bool = False,
        random_state: Any = None,
    ):
        self.kernel = kernel
        self.C = C
        self.multiclass = multiclass
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.probability = probability
        self.random_state = random_state

    def _check_params(self) -> None:
        check_positive_scalar(self.C, "C")
        check_positive(self.tol, "tol")
        check_in(self.multiclass, "multiclass", ("ovr", "ovo"))
        check_int(self.max_iter, "max_iter", minimum=-1)
        if self.max_iter == 0:
            raise ValueError("max_iter must be -1 (no limit) or >= 1, got 0")
        check_bool(self.probability, "probability")
        check_random_state(self.random_state)
        cw = self.class_weight
        if not (cw is None or isinstance(cw, dict) or (isinstance(cw, str) and cw == "balanced")):
            raise ValueError(f"class_weight must be None, 'balanced' or a dict; got {cw!r}")
        if isinstance(cw, dict):
            for label, w in cw.items():
                if not isinstance(w, numbers.Real) or isinstance(w, bool) or not float(w) >= 0:
                    raise ValueError(f"class_weight[{label!r}] must be a number >= 0, got {w!r}")

    def _svc(self, class_weight: Any) -> SVC:
        return SVC(
            kernel="precomputed",
            C=float(self.C),
            class_weight=class_weight,
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            decision_function_shape="ovo",
        )

    def fit(self, X: Any, y: Any) -> KernelSVC:
        """Compute the training Gram matrix and fit the SVC(s).

        Parameters
        ----------
        X : array of shape (n_samples, n_features), list of objects, or Gram matrix
            Training inputs of the kind ``kernel`` takes.
        y : array of shape (n_samples,)
            Class labels (numbers or strings); a column vector is raveled with a
            ``DataConversionWarning``.

        Returns
        -------
        self : KernelSVC
            The fitted estimator.
        """
        self._check_params()
        kernel = resolve_estimator_kernel(self.kernel)
        X, y = validate_training_data(self, X, y, kernel, multi_output=False, y_numeric=False)
        check_classification_targets(y)
        n = n_objects(X)
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(
                f"y has one class ({classes[0]!r}); a classifier needs at least 2 classes"
            )
        if self.probability and classes.size > 2 and self.multiclass == "ovo":
            raise ValueError(
                "probability=True calibrates one decision value per class, which needs "
                'multiclass="ovr" for more than two classes'
            )
        K = kernel(X) if isinstance(kernel, Kernel) else X  # else precomputed
        if not np.isfinite(K).all():
            raise ValueError("the kernel matrix contains NaN or infinity")

        for attr in ("n_support_", "dual_coef_", "intercept_", "X_fit_"):
            self.__dict__.pop(attr, None)
        if classes.size == 2 or self.multiclass == "ovo":
            svc = self._svc(self.class_weight).fit(K, y)
            self.estimators_ = [svc]
            self.n_support_ = svc.n_support_
            self.dual_coef_ = svc.dual_coef_
            self.intercept_ = svc.intercept_
        else:
            sample_weight = None
            cw = self.class_weight
            if isinstance(cw, dict):
                sample_weight = np.array([float(cw.get(label, 1.0)) for label in y])
                cw = None
            self.estimators_ = [
                self._svc(cw).fit(K, (y == c).astype(int), sample_weight=sample_weight)
                for c in classes
            ]
        self.classes_ = classes
        self.kernel_ = kernel
        # training samples whose kernel columns the decision functions need
        self._support_union = np.unique(np.concatenate([e.support_ for e in self.estimators_]))
        if len(self.estimators_) == 1:
            self.support_ = self.estimators_[0].support_  # libsvm's order, as dual_coef_
        else:
            self.support_ = self._support_union
        self.shape_fit_ = (n,)
        self.n_iter_ = np.concatenate([np.atleast_1d(e.n_iter_) for e in self.estimators_])
        if not is_precomputed(kernel):
            self.X_fit_ = X
        self.__dict__.pop("calibrated_", None)
        if self.probability:
            self.calibrated_ = self._platt(X, y)
        return self

    def _platt(self, X: Any, y: np.ndarray) -> CalibratedClassifierCV:
        """Sigmoid calibration on out-of-fold decision values (see ``probability``)."""
        smallest = int(np.unique(y, return_counts=True)[1].min())
        if smallest < 2:
            raise ValueError(
                "probability=True needs at least 2 samples of every class (Platt scaling is "
                "fitted on out-of-fold decision values)"
            )
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        folds = StratifiedKFold(n_splits=min(5, smallest), shuffle=True, random_state=seed)
        base = clone(self).set_params(probability=False)
        return CalibratedClassifierCV(base, method="sigmoid", cv=folds, ensemble=False).fit(X, y)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        return tags

    def _test_gram(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        kernel = self.kernel_
        n_train = self.shape_fit_[0]
        X = validate_test_input(self, X, kernel, n_train)
        if not isinstance(kernel, Kernel):  # precomputed
            return X
        # Only support-vector columns enter the decision function; the rest stay 0.
        Kt = np.zeros((n_objects(X), n_train))
        sv = self._support_union
        Kt[:, sv] = kernel(X, take(self.X_fit_, sv))
        return Kt

    def decision_function(self, X: Any) -> np.ndarray:
        """Decision values.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), list of objects, or Gram matrix
            Test inputs of the kind seen in ``fit`` (for ``"precomputed"``, the matrix
            ``K(X_test, X_train)``).

        Returns
        -------
        ndarray
            Shape ``(n_samples,)`` for binary problems (positive means
            ``classes_[1]``), ``(n_samples, n_classes)`` for "ovr", and
            ``(n_samples, n_classes * (n_classes - 1) / 2)`` pairwise values for "ovo"
            (libsvm's order, as ``SVC(decision_function_shape="ovo")``).
        """
        Kt = self._test_gram(X)
        if len(self.estimators_) == 1:
            return self.estimators_[0].decision_function(Kt)
        return np.column_stack([e.decision_function(Kt) for e in self.estimators_])

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels (largest decision value for "ovr", votes for "ovo").

        Parameters
        ----------
        X : array of shape (n_samples, n_features), list of objects, or Gram matrix
            Test inputs of the kind seen in ``fit`` (for ``"precomputed"``, the matrix
            ``K(X_test, X_train)``).

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        Kt = self._test_gram(X)
        if len(self.estimators_) == 1:
            return self.estimators_[0].predict(Kt)
        dec = np.column_stack([e.decision_function(Kt) for e in self.estimators_])
        return self.classes_[np.argmax(dec, axis=1)]

    def _check_proba(self) -> bool:
        if not self.probability:
            raise AttributeError(
                "predict_proba is not available when probability=False; "
                "fit with KernelSVC(..., probability=True)"
            )
        return True

    @available_if(_check_proba)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities from Platt scaling (see ``probability``).

        Parameters
        ----------
        X : array of shape (n_samples, n_features), list of objects, or Gram matrix
            Test inputs of the kind seen in ``fit`` (for ``"precomputed"``, the matrix
            ``K(X_test, X_train)``).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; rows sum to 1.
        """
        check_is_fitted(self, "calibrated_")
        return self.calibrated_.predict_proba(X)

    @available_if(_check_proba)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), list of objects, or Gram matrix
            Test inputs of the kind seen in ``fit`` (for ``"precomputed"``, the matrix
            ``K(X_test, X_train)``).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
