"""KernelSVC against libsvm through scikit-learn: one-vs-one, one-vs-rest, binary, sets."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import cross_val_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from kernelkit.kernels import RBF, Intersection, Matern
from kernelkit.models import KernelSVC


def _iris():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X[idx[:100]], y[idx[:100]], X[idx[100:]], y[idx[100:]]


KERNELS = [RBF(lengthscale=1.5), Matern(lengthscale=[1.0, 2.0, 0.5, 1.0], nu=2.5)]


@pytest.mark.parametrize("k", KERNELS, ids=repr)
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_ovo_equals_libsvm(k, C) -> None:
    X, y, Xt, _ = _iris()
    ours = KernelSVC(k, C=C, multiclass="ovo").fit(X, y)
    ref = SVC(kernel="precomputed", C=C, decision_function_shape="ovo").fit(k(X), y)
    Kt = k(Xt, X)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Kt))
    np.testing.assert_allclose(
        ours.decision_function(Xt), ref.decision_function(Kt), rtol=1e-8, atol=1e-10
    )
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)


@pytest.mark.parametrize("k", KERNELS, ids=repr)
def test_ovr_equals_one_vs_rest_classifier(k) -> None:
    X, y, Xt, _ = _iris()
    ours = KernelSVC(k, C=2.0, multiclass="ovr").fit(X, y)
    ref = OneVsRestClassifier(SVC(kernel="precomputed", C=2.0)).fit(k(X), y)
    Kt = k(Xt, X)
    assert len(ours.estimators_) == 3
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Kt))
    dec = ours.decision_function(Xt)
    assert dec.shape == (len(Xt), 3)
    np.testing.assert_allclose(dec, ref.decision_function(Kt), rtol=1e-8, atol=1e-10)
    assert ours.score(Xt, ours.predict(Xt)) == 1.0


@pytest.mark.parametrize("multiclass", ["ovr", "ovo"])
def test_binary_problem_uses_a_single_svc(multiclass) -> None:
    X, y, Xt, _ = _iris()
    yb = np.where(y == 2, "virginica", "other")
    k = RBF(lengthscale=2.0)
    ours = KernelSVC(k, C=1.0, multiclass=multiclass).fit(X, yb)
    ref = SVC(kernel="precomputed", C=1.0).fit(k(X), yb)
    assert len(ours.estimators_) == 1
    Kt = k(Xt, X)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Kt))
    np.testing.assert_allclose(ours.decision_function(Xt), ref.decision_function(Kt), rtol=1e-8)
    assert ours.decision_function(Xt).shape == (len(Xt),)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_)


@pytest.mark.parametrize("class_weight", ["balanced", {0: 1.0, 1: 5.0, 2: 0.5}])
def test_class_weight_is_passed_to_libsvm_for_ovo(class_weight) -> None:
    X, y, Xt, _ = _iris()
    k = RBF()
    ours = KernelSVC(k, multiclass="ovo", class_weight=class_weight).fit(X, y)
    ref = SVC(kernel="precomputed", class_weight=class_weight, decision_function_shape="ovo")
    ref.fit(k(X), y)
    np.testing.assert_allclose(
        ours.decision_function(Xt), ref.decision_function(k(Xt, X)), rtol=1e-8, atol=1e-10
    )


def test_class_weight_dict_for_ovr_weights_samples_by_class() -> None:
    X, y, Xt, _ = _iris()
    k = RBF()
    weights = {0: 1.0, 1: 5.0, 2: 0.5}
    ours = KernelSVC(k, multiclass="ovr", class_weight=weights).fit(X, y)
    sw = np.array([weights[c] for c in y])
    for c, est in zip(ours.classes_, ours.estimators_, strict=True):
        ref = SVC(kernel="precomputed").fit(k(X), (y == c).astype(int), sample_weight=sw)
        np.testing.assert_allclose(est.dual_coef_, ref.dual_coef_, rtol=1e-8)
    balanced = KernelSVC(k, multiclass="ovr", class_weight="balanced").fit(X, y)
    assert balanced.predict(Xt).shape == (len(Xt),)


def test_precomputed_kernel() -> None:
    X, y, Xt, _ = _iris()
    k = RBF()
    ours = KernelSVC("precomputed", multiclass="ovo").fit(k(X), y)
    ref = KernelSVC(k, multiclass="ovo").fit(X, y)
    np.testing.assert_allclose(ours.decision_function(k(Xt, X)), ref.decision_function(Xt))
    assert not hasattr(ours, "X_fit_")


SETS = [
    {1, 2, 3}, {1, 2}, {2, 3, 4}, {1, 3},           # class "a": small numbers
    {10, 11}, {11, 12, 13}, {10, 12}, {12, 13},     # class "b"
    {20, 21, 22}, {21, 23}, {20, 23}, {22, 23, 24},  # class "c"
]  # fmt: skip
SET_LABELS = np.array(["a"] * 4 + ["b"] * 4 + ["c"] * 4)
TEST_SETS = [{2, 4}, {11, 13}, {21, 22}, {3, 12, 20}]


@pytest.mark.parametrize("multiclass", ["ovr", "ovo"])
def test_lists_of_sets_with_the_intersection_kernel(multiclass) -> None:
    k = Intersection()
    clf = KernelSVC(k, C=10.0, multiclass=multiclass).fit(SETS, SET_LABELS)
    assert clf.X_fit_ is SETS
    assert clf.predict(TEST_SETS[:3]).tolist() == ["a", "b", "c"]
    # only support-vector columns of K(test, train) are computed; the result is the same
    ref = KernelSVC("precomputed", C=10.0, multiclass=multiclass).fit(k(SETS), SET_LABELS)
    Kt = k(TEST_SETS, SETS)
    np.testing.assert_allclose(clf.decision_function(TEST_SETS), ref.decision_function(Kt))
    np.testing.assert_array_equal(clf.predict(TEST_SETS), ref.predict(Kt))


def test_sparse_support_columns_match_full_test_gram() -> None:
    X, y, Xt, _ = _iris()
    clf = KernelSVC(RBF(), C=1.0, multiclass="ovr").fit(X, y)
    assert len(clf.support_) < len(X)  # there is something to skip
    full = np.column_stack([e.decision_function(RBF()(Xt, X)) for e in clf.estimators_])
    np.testing.assert_allclose(clf.decision_function(Xt), full, rtol=1e-12)


def test_estimator_api_and_cross_validation_on_sets() -> None:
    clf = KernelSVC(Intersection(), C=10.0)
    assert clf.get_params()["C"] == 10.0
    assert clone(clf).get_params()["multiclass"] == "ovr"
    scores = cross_val_score(clf, SETS, SET_LABELS, cv=2)
    assert scores.mean() >= 0.5
