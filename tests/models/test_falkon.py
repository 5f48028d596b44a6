"""FALKON (Rudi, Carratino & Rosasco 2017): the Nyström system it solves, its equivalence
with exact kernel ridge when every point is a centre, the logistic loss's Newton steps,
classification on real data, and scikit-learn compatibility."""

from __future__ import annotations

import doctest
import itertools
import pickle
import time
import warnings
from typing import Any

import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kernelkit.models.falkon as falkon
from kernelkit.datasets import load_mnist, load_uci
from kernelkit.kernels import RBF, Intersection, Laplace, Matern
from kernelkit.models import FalkonClassifier, FalkonRegressor, KernelRidge, KernelSVC
from kernelkit.models.falkon import default_n_centres

rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, size=(300, 2))
Y = np.column_stack([np.sin(2 * X[:, 0]), np.cos(X[:, 1])]) + 0.05 * rng.standard_normal((300, 2))
X_TEST = rng.uniform(-2, 2, size=(50, 2))


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


# ---------------------------------------------------------------------- the system


@pytest.mark.parametrize("kernel", [RBF(0.5), Matern(1.0, nu=1.5), Laplace(2.0)], ids=str)
@pytest.mark.parametrize("lam", [1e-5, 1e-3])
def test_all_points_as_centres_is_kernel_ridge_with_alpha_times_n(kernel, lam) -> None:
    # (1/n) sum (y - f)^2 / 2 + (lam / 2) |f|^2 over f = K a: K (K + lam n I) a = K y,
    # i.e. KernelRidge (min |y - K a|^2 + alpha_KRR a^T K a) with alpha_KRR = lam * n
    n = len(X)
    model = FalkonRegressor(kernel, alpha=lam, n_centres=n, tol=1e-10, random_state=0).fit(X, Y)
    exact = KernelRidge(kernel, alpha=lam * n).fit(X, Y)
    assert model.n_centres_ == n
    np.testing.assert_array_equal(model.centre_indices_, np.arange(n))
    # round-off through the near-singular K_MM's factor T: about 1e-8 at cond(K) ~ 1e8
    assert _relative(model.predict(X_TEST), exact.predict(X_TEST)) < 1e-6
    assert _relative(model.predict(X), exact.predict(X)) < 1e-6
    assert model.n_iter_ <= 3  # the preconditioner is exact when every point is a centre


def test_all_points_as_centres_gives_kernel_ridges_dual_coefficients() -> None:
    # on a well-conditioned K the coefficients themselves agree (the jitter M eps of
    # Rudi et al.'s Alg. 1 on K_MM is far below its smallest eigenvalue)
    n, lam = len(X), 1e-3
    model = FalkonRegressor(RBF(0.1), alpha=lam, n_centres=n, tol=1e-12).fit(X, Y)
    exact = KernelRidge(RBF(0.1), alpha=lam * n).fit(X, Y)
    assert _relative(model.dual_coef_, exact.dual_coef_) < 1e-8


def test_n_centres_beyond_n_is_clipped_to_n() -> None:
    model = FalkonRegressor(RBF(), n_centres=10**6, random_state=0).fit(X[:40], Y[:40, 0])
    assert model.n_centres_ == 40 and model.centres_.shape == (40, 2)


def test_the_coefficients_solve_the_nystrom_normal_equations() -> None:
    # Rudi et al. (2017) eq. 8: (K_nM^T K_nM + lam n K_MM) a = K_nM^T y, for M < n
    n, lam = len(X), 1e-4
    model = FalkonRegressor(RBF(0.7), alpha=lam, n_centres=40, tol=1e-12, random_state=3)
    model.fit(X, Y)
    C = model.centres_
    Knm, Kmm = RBF(0.7)(X, C), RBF(0.7)(C)
    H = Knm.T @ Knm + lam * n * Kmm
    reference = scipy.linalg.solve(H, Knm.T @ Y, assume_a="pos")
    np.testing.assert_allclose(Knm @ model.dual_coef_, Knm @ reference, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(C, X[model.centre_indices_])


def test_error_decreases_as_the_number_of_centres_grows() -> None:
    r = np.random.default_rng(5)
    Xs = r.uniform(-3, 3, size=(1500, 2))
    ys = np.sin(2 * Xs[:, 0]) * np.cos(Xs[:, 1]) + 0.1 * r.standard_normal(1500)
    grid = r.uniform(-3, 3, size=(400, 2))
    lam = 1e-5
    exact = KernelRidge(RBF(0.6), alpha=lam * len(Xs)).fit(Xs, ys).predict(grid)
    errors = []
    for m in [10, 40, 160, 640]:
        err = [
            np.sqrt(
                np.mean(
                    (
                        FalkonRegressor(RBF(0.6), alpha=lam, n_centres=m, random_state=s)
                        .fit(Xs, ys)
                        .predict(grid)
                        - exact
                    )
                    ** 2
                )
            )
            for s in range(3)
        ]
        errors.append(float(np.mean(err)))
    assert all(a > b for a, b in itertools.pairwise(errors)), errors
    assert errors[-1] < 0.02 * errors[0]


def test_multi_output_columns_are_solved_in_one_batched_solve() -> None:
    both = FalkonRegressor(RBF(), alpha=1e-4, n_centres=60, random_state=1).fit(X, Y)
    for j in range(2):
        one = FalkonRegressor(RBF(), alpha=1e-4, n_centres=60, random_state=1).fit(X, Y[:, j])
        assert one.predict(X_TEST).shape == (50,)
        assert _relative(both.predict(X_TEST)[:, j], one.predict(X_TEST)) < 1e-4
    assert both.dual_coef_.shape == (60, 2) and both.predict(X_TEST).shape == (50, 2)
    assert both.converged_ and both.n_iter_ < 200


def test_blocks_of_rows_and_the_cache_give_the_same_model(monkeypatch) -> None:
    params: dict[str, Any] = {"alpha": 1e-4, "n_centres": 50, "tol": 1e-10, "random_state": 0}
    cached = FalkonRegressor(RBF(), **params).fit(X, Y)
    monkeypatch.setattr(falkon, "_CACHE_BYTES", 0)  # K_nM recomputed in every iteration
    monkeypatch.setattr(falkon, "_BLOCK_BYTES", 8 * 50 * 13)  # 13 rows per block
    blocks = FalkonRegressor(RBF(), **params).fit(X, Y)
    assert _relative(blocks.predict(X_TEST), cached.predict(X_TEST)) < 1e-8
    assert abs(blocks.n_iter_ - cached.n_iter_) <= 1


def test_non_convergence_warns_and_is_reported() -> None:
    with pytest.warns(ConvergenceWarning, match="preconditioned FALKON system"):
        model = FalkonRegressor(RBF(0.3), alpha=1e-9, n_centres=100, max_iter=2).fit(X, Y)
    assert model.converged_ is False and model.n_iter_ == 2


# ---------------------------------------------------------------------- centres


def test_default_number_of_centres() -> None:
    assert default_n_centres(1) == 1
    assert default_n_centres(100) == 100  # every point below 100 samples
    assert default_n_centres(40_000) == 2120  # ceil(sqrt(n) log n)
    assert default_n_centres(10**8) == falkon.MAX_DEFAULT_CENTRES
    model = FalkonRegressor().fit(X, Y[:, 0])
    assert model.n_centres_ == default_n_centres(300) == 100


def test_leverage_centres_favour_isolated_points() -> None:
    r = np.random.default_rng(2)
    cluster = 0.05 * r.standard_normal((2000, 2))
    isolated = np.column_stack([np.linspace(-10, 10, 20), np.full(20, 5.0)])
    Xc = np.vstack([cluster, isolated])
    yc = np.zeros(len(Xc))
    counts = {}
    for centres in ["uniform", "leverage"]:
        model = FalkonRegressor(
            RBF(0.5), alpha=1e-4, n_centres=40, centres=centres, random_state=0
        ).fit(Xc, yc)
        counts[centres] = int(np.sum(model.centre_indices_ >= 2000))
        assert len(np.unique(model.centre_indices_)) == 40
    assert counts["uniform"] <= 3 and counts["leverage"] >= 15, counts


@pytest.mark.parametrize("centres", ["uniform", "leverage"])
def test_random_state_makes_fits_reproducible(centres) -> None:
    def fit(seed):
        return FalkonRegressor(n_centres=30, centres=centres, random_state=seed).fit(X, Y)

    a, b, c = fit(7), fit(7), fit(8)
    np.testing.assert_array_equal(a.centre_indices_, b.centre_indices_)
    np.testing.assert_array_equal(a.predict(X_TEST), b.predict(X_TEST))
    assert not np.array_equal(a.centre_indices_, c.centre_indices_)
    state = np.random.RandomState(3)
    d = FalkonRegressor(n_centres=30, centres=centres, random_state=state).fit(X, Y)
    assert len(np.unique(d.centre_indices_)) == 30


# ---------------------------------------------------------------------- classification


def test_squared_loss_classifier_is_the_regressor_on_plus_minus_one_targets() -> None:
    labels = np.digitize(X[:, 0], [-0.7, 0.7])  # three classes
    clf = FalkonClassifier(RBF(), alpha=1e-4, n_centres=50, random_state=0).fit(X, labels)
    targets = np.where(labels[:, None] == np.arange(3), 1.0, -1.0)
    reg = FalkonRegressor(RBF(), alpha=1e-4, n_centres=50, random_state=0).fit(X, targets)
    np.testing.assert_allclose(clf.decision_function(X_TEST), reg.predict(X_TEST), rtol=1e-10)
    np.testing.assert_array_equal(clf.predict(X_TEST), np.argmax(reg.predict(X_TEST), axis=1))
    assert clf.dual_coef_.shape == (50, 3)
    binary = FalkonClassifier(RBF(), alpha=1e-4, n_centres=50, random_state=0)
    binary.fit(X, np.where(labels == 2, "b", "a"))
    assert binary.decision_function(X_TEST).shape == (50,)
    reg1 = FalkonRegressor(RBF(), alpha=1e-4, n_centres=50, random_state=0)
    reg1.fit(X, np.where(labels == 2, 1.0, -1.0))
    np.testing.assert_allclose(binary.decision_function(X_TEST), reg1.predict(X_TEST), rtol=1e-10)
    assert not hasattr(clf, "predict_proba")


def test_logistic_loss_equals_logistic_regression_on_nystrom_features() -> None:
    # f = K_nM a = Phi w with Phi = K_nM T^-1, w = T a and |f|^2 = a^T K_MM a = |w|^2, so
    # (1/n) sum log(1 + exp(-y f)) + (lam / 2) |f|^2 is LogisticRegression(C = 1 / (lam n))
    r = np.random.default_rng(4)
    Xl = r.standard_normal((400, 2))
    yl = (Xl[:, 0] ** 2 + Xl[:, 1] + 0.3 * r.standard_normal(400) > 0.8).astype(int)
    lam = 1e-3
    clf = FalkonClassifier(
        RBF(), loss="logistic", alpha=lam, n_centres=30, tol=1e-10, random_state=0
    ).fit(Xl, yl)
    assert clf.converged_
    C = clf.centres_
    T = scipy.linalg.cholesky(RBF()(C) + 30 * np.finfo(float).eps * np.eye(30))
    Phi = scipy.linalg.solve_triangular(T, RBF()(Xl, C).T, trans="T").T
    ref = LogisticRegression(
        C=1.0 / (lam * len(Xl)), fit_intercept=False, tol=1e-12, max_iter=10_000
    ).fit(Phi, yl)
    Phi_test = scipy.linalg.solve_triangular(T, RBF()(X_TEST, C).T, trans="T").T
    np.testing.assert_allclose(
        clf.decision_function(X_TEST), ref.decision_function(Phi_test), rtol=1e-4, atol=1e-5
    )
    np.testing.assert_allclose(clf.predict_proba(X_TEST), ref.predict_proba(Phi_test), atol=1e-5)
    # the penalties decrease by factors of 10 from the kernel variance to alpha
    np.testing.assert_allclose(clf.penalties_, [1.0, 0.1, 0.01, 1e-3])
    assert clf.n_newton_steps_.shape == (1,) and clf.n_newton_steps_[0] >= 4


def test_logistic_probabilities() -> None:
    labels = np.digitize(X[:, 0], [-0.7, 0.7])
    clf = FalkonClassifier(loss="logistic", alpha=1e-4, n_centres=50, random_state=0)
    clf.fit(X, labels)
    proba = clf.predict_proba(X_TEST)
    assert proba.shape == (50, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argmax(proba, axis=1), clf.predict(X_TEST))
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X_TEST)), proba)
    assert clf.n_newton_steps_.shape == (3,)
    assert np.mean(clf.predict(X) == labels) > 0.95
    binary = FalkonClassifier(loss="logistic", alpha=1e-4, n_centres=50, random_state=0)
    binary.fit(X, labels == 2)
    p = binary.predict_proba(X_TEST)
    np.testing.assert_allclose(p[:, 1], 1 / (1 + np.exp(-binary.decision_function(X_TEST))))


def test_logistic_non_convergence_warns() -> None:
    labels = (np.sin(3 * X[:, 0]) > 0).astype(int)
    with pytest.warns(ConvergenceWarning, match="Newton's method did not reach"):
        clf = FalkonClassifier(
            RBF(0.2), loss="logistic", alpha=1e-9, n_centres=100, max_iter=1, random_state=0
        ).fit(X, labels)
    assert clf.converged_ is False


@pytest.fixture(scope="module")
def mnist_subset() -> tuple[np.ndarray, ...]:
    images, labels = load_mnist()
    Xm = images.reshape(len(images), -1).astype(float) / 255.0
    idx = np.random.default_rng(0).permutation(len(Xm))
    return Xm[idx[:2000]], labels[idx[:2000]], Xm[idx[2000:3000]], labels[idx[2000:3000]]


def test_mnist_digits_as_well_as_a_kernel_svm(mnist_subset) -> None:
    Xtr, ytr, Xte, yte = mnist_subset
    kernel = RBF(lengthscale=5.0)
    svc = np.mean(KernelSVC(kernel, C=10.0).fit(Xtr, ytr).predict(Xte) == yte)
    for loss in ["squared", "logistic"]:
        clf = FalkonClassifier(kernel, loss=loss, random_state=0).fit(Xtr, ytr)
        accuracy = np.mean(clf.predict(Xte) == yte)
        # 340 centres against the SVM's 2000 training points (0.926, 0.933 vs 0.951)
        assert accuracy > svc - 0.04 and accuracy > 0.9, (loss, accuracy, svc)
        assert clf.converged_


def test_wine_quality_as_well_as_logistic_regression_and_a_kernel_svm() -> None:
    table = load_uci("wine")
    Xw, yw = table.X, (table.y >= 6).astype(int)
    Xtr, Xte, ytr, yte = train_test_split(Xw, yw, test_size=0.3, random_state=0, stratify=yw)
    kernel = RBF(lengthscale=3.0)

    def accuracy(est) -> float:
        return float(make_pipeline(StandardScaler(), est).fit(Xtr, ytr).score(Xte, yte))

    references = [accuracy(LogisticRegression()), accuracy(KernelSVC(kernel))]
    for loss in ["squared", "logistic"]:
        ours = accuracy(FalkonClassifier(kernel, loss=loss, alpha=1e-4, random_state=0))
        assert ours > min(references) - 0.02 and ours > 0.74, (loss, ours, references)


# ---------------------------------------------------------------------- scikit-learn


def test_pipeline_grid_search_clone_and_pickle() -> None:
    pipe = make_pipeline(StandardScaler(), FalkonRegressor(n_centres=50, random_state=0))
    search = GridSearchCV(pipe, {"falkonregressor__alpha": [1e-6, 1e-3, 1e-1]}, cv=3)
    search.fit(X, Y[:, 0])
    assert search.best_params_["falkonregressor__alpha"] in (1e-6, 1e-3)
    model = FalkonClassifier(loss="logistic", n_centres=40, random_state=0)
    twin = clone(model)
    assert twin.get_params() == model.get_params() and not hasattr(twin, "dual_coef_")
    labels = (X[:, 0] > 0).astype(int)
    model.fit(X, labels)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict_proba(X_TEST), model.predict_proba(X_TEST))


def test_fit_stores_only_trailing_underscore_state_and_leaves_params_alone() -> None:
    model = FalkonRegressor(alpha=1e-3, n_centres=None)
    params = model.get_params()
    model.fit(X, Y[:, 0])
    assert model.get_params() == params
    for attr in [
        "centres_",
        "centre_indices_",
        "n_centres_",
        "kernel_",
        "dual_coef_",
        "n_iter_",
        "converged_",
        "n_features_in_",
    ]:
        assert hasattr(model, attr)


def test_the_module_docstring_examples_run() -> None:
    result = doctest.testmod(falkon, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize("model", [FalkonRegressor, FalkonClassifier])
@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"alpha": 0.0}, ValueError, "alpha must be > 0"),
        ({"alpha": -1e-3}, ValueError, "alpha must be > 0"),
        ({"alpha": [1e-3, 1e-2]}, ValueError, "alpha must be a positive scalar"),
        ({"alpha": "small"}, TypeError, "alpha must be a number"),
        ({"n_centres": 0}, ValueError, "n_centres must be >= 1"),
        ({"n_centres": -5}, ValueError, "n_centres must be >= 1"),
        ({"n_centres": 2.5}, TypeError, "n_centres must be an integer"),
        ({"centres": "kmeans"}, ValueError, "centres must be one of"),
        ({"tol": 0.0}, ValueError, r"tol must be in \(0, 1\)"),
        ({"max_iter": 0}, ValueError, "max_iter must be >= 1"),
        ({"random_state": "seed"}, TypeError, "random_state must be"),
        ({"kernel": "precomputed"}, ValueError, "precomputed"),
        ({"kernel": Intersection()}, TypeError, "needs a kernel on vectors"),
    ],
)
def test_bad_parameters_are_named(model, params, error, match) -> None:
    y = (X[:30, 0] > 0).astype(int)
    with pytest.raises(error, match=match):
        model(**params).fit(X[:30], y)


def test_unknown_loss_and_bad_targets() -> None:
    with pytest.raises(ValueError, match="loss must be one of 'squared', 'logistic'"):
        FalkonClassifier(loss="hinge").fit(X[:30], X[:30, 0] > 0)
    with pytest.raises(ValueError, match="a classifier needs at least 2 classes"):
        FalkonClassifier().fit(X[:30], np.zeros(30))
    with pytest.raises(ValueError, match="Unknown label type"):
        FalkonClassifier().fit(X[:30], X[:30, 0])
    with pytest.raises(ValueError, match=r"y has 29 rows|inconsistent numbers of samples"):
        FalkonRegressor().fit(X[:30], Y[:29])


def test_prediction_input_is_checked() -> None:
    with pytest.raises(NotFittedError):
        FalkonRegressor().predict(X_TEST)
    model = FalkonRegressor(n_centres=20, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="X has 3 features"):
        model.predict(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="NaN"):
        model.predict(np.full((2, 2), np.nan))
    squared = FalkonClassifier(n_centres=20, random_state=0).fit(X, X[:, 0] > 0)
    with pytest.raises(AttributeError, match="predict_proba"):
        squared.predict_proba(X_TEST)


def test_too_many_centres_for_the_machine_are_refused(monkeypatch) -> None:
    import kernelkit._memory as memory

    monkeypatch.setattr(memory, "memory_limit", lambda: 3 * 8 * 100 * 100)
    with pytest.raises(ValueError, match=r"with 300 centres.*would need about.*n_centres"):
        FalkonRegressor(n_centres=300).fit(X, Y)


# ---------------------------------------------------------------------- scale


@pytest.mark.slow
def test_forty_thousand_samples_in_nine_dimensions() -> None:
    r = np.random.default_rng(0)
    Xs = r.standard_normal((50_000, 9))
    ys = np.sin(Xs[:, 0]) + 0.5 * Xs[:, 1] * Xs[:, 2] + 0.3 * np.cos(2 * Xs[:, 3])
    ys += 0.1 * r.standard_normal(50_000)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = FalkonRegressor(RBF(lengthscale=2.0), random_state=0).fit(Xs[:40_000], ys[:40_000])
    pred = model.predict(Xs[40_000:])
    elapsed = time.perf_counter() - start
    rmse = float(np.sqrt(np.mean((pred - ys[40_000:]) ** 2)))
    assert model.n_centres_ == 2120 and model.converged_
    assert rmse < 0.17, rmse  # the noise is 0.1
    assert elapsed < 120, elapsed
