"""KernelRidge and KernelSVC against scikit-learn's KernelRidge and SVC on the packaged tables.

scikit-learn computes its own kernel here (``kernel="rbf"``, ``"poly"``, ``"linear"`` with
the matching ``gamma``/``coef0``/``degree``), or gets a Gram matrix from its Gaussian-process
kernels (Matérn) through ``kernel="precomputed"``, so the Gram matrices are computed
independently on the two sides. Compared: predictions, decision values, dual coefficients
(scikit-learn's layout: one row per pair of classes for one-vs-one, signs as libsvm's) and
intercepts.

KernelSVC solves with libsvm like scikit-learn, but from its own Gram matrix, so the two
solvers can take different steps where kernel values differ in the last bits. Both run
with ``tol=1e-8``: each solution is then within ~1e-6 of the unique optimum of the (strictly
convex for these kernels) dual, and the tolerances below are stated against that.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from differential_data import standardise, subsample
from sklearn.gaussian_process.kernels import Matern as SkMatern
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from kernelkit.datasets import load_uci
from kernelkit.kernels import RBF, Linear, Matern, Polynomial
from kernelkit.models import KernelRidge, KernelSVC

N_TRAIN, N_TEST = 300, 100
SVM_TOL = 1e-8


@functools.cache
def _split(name: str, random_state: int = 0):
    """``N_TRAIN + N_TEST`` rows of a table, inputs standardised together, split in two."""
    table = load_uci(name)
    idx = subsample(table.X.shape[0], N_TRAIN + N_TEST, random_state)
    X, y = standardise(table.X[idx]), table.y[idx]
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]


def _kernels(d: int):
    """(id, kernelkit kernel, scikit-learn keyword arguments or a Gram function)."""
    ls = np.sqrt(d)
    return [
        ("rbf", RBF(lengthscale=ls), {"kernel": "rbf", "gamma": 0.5 / ls**2}),
        (
            "poly3",
            Polynomial(degree=3, gamma=1.0 / d, coef0=1.0),
            {"kernel": "poly", "degree": 3, "gamma": 1.0 / d, "coef0": 1.0},
        ),
        ("linear", Linear(), {"kernel": "linear"}),
        ("matern32-precomputed", Matern(lengthscale=ls, nu=1.5), SkMatern(length_scale=ls, nu=1.5)),
    ]


KERNEL_IDS = ["rbf", "poly3", "linear", "matern32-precomputed"]


def _kernel_case(kernel_id: str, d: int):
    return next(case for case in _kernels(d) if case[0] == kernel_id)[1:]


# ----------------------------------------------------------------------------- kernel ridge
@pytest.mark.parametrize("alpha", [1e-2, 1.0])
@pytest.mark.parametrize("kernel_id", KERNEL_IDS)
@pytest.mark.parametrize("name", ["boston", "wine", "cpu_act"])
def test_kernel_ridge_equals_sklearn(name, kernel_id, alpha):
    X, y, Xt, _ = _split(name)
    y = (y - y.mean()) / y.std()
    ours_k, sk = _kernel_case(kernel_id, X.shape[1])
    ours = KernelRidge(ours_k, alpha=alpha).fit(X, y)
    if isinstance(sk, dict):
        ref = SkKernelRidge(alpha=alpha, **sk).fit(X, y)
        ref_pred = ref.predict(Xt)
    else:  # a scikit-learn GP kernel computes the Gram matrices
        ref = SkKernelRidge(alpha=alpha, kernel="precomputed").fit(sk(X), y)
        ref_pred = ref.predict(sk(Xt, X))
    coef_scale = float(np.abs(ref.dual_coef_).max())
    print(
        f"KRR {name} {kernel_id} alpha={alpha}: max |dual_coef diff| "
        f"{np.abs(ours.dual_coef_ - ref.dual_coef_).max():.2e} (scale {coef_scale:.2e}), "
        f"max |prediction diff| {np.abs(ours.predict(Xt) - ref_pred).max():.2e}"
    )
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-7, atol=1e-9 * coef_scale)
    np.testing.assert_allclose(ours.predict(Xt), ref_pred, rtol=1e-7, atol=1e-9)


def test_kernel_ridge_multi_output_and_precomputed_equal_sklearn():
    X, y, Xt, _ = _split("boston")
    Y = np.column_stack([y, np.log(y), y**0.5])
    Y = (Y - Y.mean(axis=0)) / Y.std(axis=0)
    k = RBF(lengthscale=3.0)
    ref = SkKernelRidge(alpha=0.1, kernel="rbf", gamma=0.5 / 9.0).fit(X, Y)
    ours = KernelRidge(k, alpha=0.1).fit(X, Y)
    assert ours.dual_coef_.shape == ref.dual_coef_.shape == (N_TRAIN, 3)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=1e-7, atol=1e-10)
    # precomputed on both sides, from scikit-learn's own Gram matrices
    from sklearn.metrics.pairwise import rbf_kernel

    K, Kt = rbf_kernel(X, gamma=0.5 / 9.0), rbf_kernel(Xt, X, gamma=0.5 / 9.0)
    pre = KernelRidge("precomputed", alpha=0.1).fit(K, Y)
    np.testing.assert_allclose(pre.predict(Kt), ref.predict(Xt), rtol=1e-7, atol=1e-10)


# ----------------------------------------------------------------------------- SVC
def _dense_dual(dual_coef: np.ndarray, support: np.ndarray, n: int) -> np.ndarray:
    """libsvm's dual coefficients as an ``(n_rows, n_train)`` array (0 off the support)."""
    out = np.zeros((dual_coef.shape[0], n))
    out[:, support] = dual_coef
    return out


def _coefficients(dual_coef: np.ndarray, support: np.ndarray, X: np.ndarray, linear: bool):
    """What the optimum determines: the dual coefficients, or for the linear kernel (rank
    ``d < n``: the dual optimum is not unique, the primal weights are) ``dual @ X_sv``."""
    dense = _dense_dual(dual_coef, support, X.shape[0])
    return dense @ X if linear else dense


def _svm_data(name: str):
    """wine: quality grades 3-8 (six classes, two of them with one or two training rows);
    insurance: CARAVAN 0/1 (about 4% positives)."""
    X, y, Xt, yt = _split(name)
    return X, y.astype(int), Xt, yt.astype(int)


def _reference_svc(sk, C: float, X, Xt, y, wrap_ovr: bool, **kw):
    """scikit-learn's classifier and its test decision values (its own Gram matrices)."""
    if isinstance(sk, dict):
        svc = SVC(C=C, tol=SVM_TOL, **sk, **kw)
        train, test = X, Xt
    else:
        svc = SVC(C=C, tol=SVM_TOL, kernel="precomputed", **kw)
        train, test = sk(X), sk(Xt, X)
    ref = OneVsRestClassifier(svc) if wrap_ovr else svc
    ref.fit(train, y)
    return ref, test


def _check_close(what: str, ours: np.ndarray, ref: np.ndarray, atol: float) -> float:
    diff = float(np.abs(ours - ref).max()) if ours.size else 0.0
    assert ours.shape == ref.shape, (what, ours.shape, ref.shape)
    assert diff <= atol, f"{what}: max |difference| {diff:.3e} > {atol:.1e}"
    return diff


def _check_predictions(ours_pred, ref_pred, margin, label):
    """Equal predictions, except where a decision value is within 1e-5 of a tie."""
    differ = ours_pred != ref_pred
    assert not np.any(differ & (margin > 1e-5)), (label, np.flatnonzero(differ))


@pytest.mark.parametrize("C", [0.5, 10.0])
@pytest.mark.parametrize("kernel_id", KERNEL_IDS)
def test_svc_one_vs_one_equals_libsvm_on_wine(kernel_id, C):
    X, y, Xt, _ = _svm_data("wine")
    ours_k, sk = _kernel_case(kernel_id, X.shape[1])
    ours = KernelSVC(ours_k, C=C, multiclass="ovo", tol=SVM_TOL).fit(X, y)
    ref, test = _reference_svc(sk, C, X, Xt, y, wrap_ovr=False, decision_function_shape="ovo")
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    atol = 1e-5 * max(1.0, C)
    linear = kernel_id == "linear"
    d_dual = _check_close(
        "primal weights" if linear else "dual_coef_",
        _coefficients(ours.dual_coef_, ours.support_, X, linear),
        _coefficients(ref.dual_coef_, ref.support_, X, linear),
        atol * (100 if linear else 1),
    )
    d_int = _check_close("intercept_", ours.intercept_, ref.intercept_, atol)
    dec, ref_dec = ours.decision_function(Xt), ref.decision_function(test)
    d_dec = _check_close("decision_function", dec, ref_dec, atol * (1 + np.abs(ref_dec).max()))
    _check_predictions(ours.predict(Xt), ref.predict(test), np.abs(ref_dec).min(axis=1), "ovo")
    print(
        f"SVC-ovo wine {kernel_id} C={C}: classes {ours.classes_.tolist()}, max |diff| "
        f"dual {d_dual:.1e} intercept {d_int:.1e} decision {d_dec:.1e}, "
        f"n_support {ours.n_support_.tolist()} vs {ref.n_support_.tolist()}"
    )


# not the linear kernel: libsvm needs minutes for some of its one-vs-rest problems at this
# tolerance (a rank-11 Gram matrix; the one-vs-one test covers the linear kernel)
@pytest.mark.parametrize("kernel_id", ["rbf", "poly3", "matern32-precomputed"])
def test_svc_one_vs_rest_equals_one_vs_rest_classifier_on_wine(kernel_id):
    X, y, Xt, _ = _svm_data("wine")
    C = 2.0
    ours_k, sk = _kernel_case(kernel_id, X.shape[1])
    ours = KernelSVC(ours_k, C=C, multiclass="ovr", tol=SVM_TOL).fit(X, y)
    ref, test = _reference_svc(sk, C, X, Xt, y, wrap_ovr=True)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    assert len(ours.estimators_) == len(ref.estimators_) == len(ours.classes_)
    atol = 1e-5 * C
    worst = 0.0
    for c, (mine, theirs) in enumerate(zip(ours.estimators_, ref.estimators_, strict=True)):
        worst = max(
            worst,
            _check_close(
                f"class {ours.classes_[c]} dual_coef_",
                _dense_dual(mine.dual_coef_, mine.support_, N_TRAIN),
                _dense_dual(theirs.dual_coef_, theirs.support_, N_TRAIN),
                atol,
            ),
            _check_close(f"class {c} intercept_", mine.intercept_, theirs.intercept_, atol),
        )
    dec, ref_dec = ours.decision_function(Xt), ref.decision_function(test)
    assert dec.shape == (N_TEST, len(ours.classes_))
    d_dec = _check_close("decision_function", dec, ref_dec, atol * (1 + np.abs(ref_dec).max()))
    top2 = np.sort(ref_dec, axis=1)[:, -2:]
    _check_predictions(ours.predict(Xt), ref.predict(test), top2[:, 1] - top2[:, 0], "ovr")
    print(f"SVC-ovr wine {kernel_id}: max |diff| dual/intercept {worst:.1e} decision {d_dec:.1e}")


@pytest.mark.parametrize("class_weight", [None, "balanced"])
@pytest.mark.parametrize("kernel_id", ["rbf", "matern32-precomputed"])
def test_binary_svc_equals_libsvm_on_insurance(kernel_id, class_weight):
    X, y, Xt, _ = _svm_data("insurance")
    C = 1.0
    ours_k, sk = _kernel_case(kernel_id, X.shape[1])
    ours = KernelSVC(ours_k, C=C, class_weight=class_weight, tol=SVM_TOL).fit(X, y)
    ref, test = _reference_svc(sk, C, X, Xt, y, wrap_ovr=False, class_weight=class_weight)
    atol = 1e-5 * C * (1 if class_weight is None else 20)  # balanced weights reach ~8 C
    d_dual = _check_close(
        "dual_coef_",
        _dense_dual(ours.dual_coef_, ours.support_, N_TRAIN),
        _dense_dual(ref.dual_coef_, ref.support_, N_TRAIN),
        atol,
    )
    dec, ref_dec = ours.decision_function(Xt), ref.decision_function(test)
    assert dec.shape == (N_TEST,)  # positive means classes_[1], as scikit-learn
    d_dec = _check_close("decision_function", dec, ref_dec, atol * (1 + np.abs(ref_dec).max()))
    _check_predictions(ours.predict(Xt), ref.predict(test), np.abs(ref_dec), "binary")
    print(
        f"SVC-binary insurance {kernel_id} class_weight={class_weight}: positives "
        f"{int(y.sum())}/{len(y)}, max |diff| dual {d_dual:.1e} decision {d_dec:.1e}"
    )
