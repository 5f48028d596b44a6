"""Kernel support vector classification on any kernelkit kernel, through libsvm."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import check_in, check_int, check_positive, check_positive_scalar
from kernelkit.models._common import (
    PRECOMPUTED,
    check_fit_input,
    check_predict_input,
    n_objects,
    resolve_kernel,
    take,
)

__all__ = ["KernelSVC"]


def _check_labels(y: Any, n_samples: int) -> np.ndarray:
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"y must be an array of class labels, got {type(y).__name__}")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-dimensional (one label per sample), got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(f"y has length {y.shape[0]}, but X has {n_samples} samples")
    if np.issubdtype(y.dtype, np.number) and not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinity")
    if type_of_target(y) not in ("binary", "multiclass"):
        raise ValueError(
            f"y must hold class labels; got {type_of_target(y)} values "
            "(use a regressor for continuous targets)"
        )
    return y


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
    kernel : Kernel or "precomputed", default=None
        ``None`` means ``RBF()``. With ``"precomputed"``, ``X`` is the training Gram matrix
        in ``fit`` and ``K(X_test, X_train)`` of shape ``(n_test, n_train)`` afterwards.
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
    ):
        self.kernel = kernel
        self.C = C
        self.multiclass = multiclass
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter

    def _check_params(self) -> None:
        check_positive_scalar(self.C, "C")
        check_positive(self.tol, "tol")
        check_in(self.multiclass, "multiclass", ("ovr", "ovo"))
        check_int(self.max_iter, "max_iter", minimum=-1)
        if self.max_iter == 0:
            raise ValueError("max_iter must be -1 (no limit) or >= 1, got 0")
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
        """Compute the training Gram matrix and fit the SVC(s)."""
        self._check_params()
        kernel = resolve_kernel(self.kernel)
        X = check_fit_input(X, kernel)
        n = n_objects(X)
        y = _check_labels(y, n)
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(
                f"y has a single class ({classes[0]!r}); a classifier needs at least 2 classes"
            )
        K = X if kernel == PRECOMPUTED else kernel(X)
        if not np.isfinite(K).all():
            raise ValueError("the kernel matrix contains NaN or infinity")

        for attr in ("n_support_", "dual_coef_", "intercept_", "X_fit_", "n_features_in_"):
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
        if kernel != PRECOMPUTED:
            self.X_fit_ = X
            if kernel.requires_vector_input:
                self.n_features_in_ = X.shape[1]
        return self

    def _test_gram(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        kernel = self.kernel_
        n_train = self.shape_fit_[0]
        X = check_predict_input(X, kernel, n_train, getattr(self, "n_features_in_", None))
        if kernel == PRECOMPUTED:
            return X
        # Only support-vector columns enter the decision function; the rest stay 0.
        Kt = np.zeros((n_objects(X), n_train))
        sv = self._support_union
        Kt[:, sv] = kernel(X, take(self.X_fit_, sv))
        return Kt

    def decision_function(self, X: Any) -> np.ndarray:
        """Decision values.

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
        """Predicted class labels (largest decision value for "ovr", votes for "ovo")."""
        Kt = self._test_gram(X)
        if len(self.estimators_) == 1:
            return self.estimators_[0].predict(Kt)
        dec = np.column_stack([e.decision_function(Kt) for e in self.estimators_])
        return self.classes_[np.argmax(dec, axis=1)]
