"""The models inside scikit-learn's machinery (model selection on precomputed kernels,
DataFrames, column targets) and the behaviour the issue asked for: Platt probabilities,
the dual solve of the random-feature models, their posterior samples, finite GP
predictions on huge targets, and a GP fit that does not collapse onto a bound."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats
from sklearn.calibration import CalibratedClassifierCV
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.svm import SVC

from kernelkit.datasets import load_tu
from kernelkit.graphs import wl_kernel
from kernelkit.kernels import RBF, Intersection
from kernelkit.models import (
    GaussianProcessRegressor,
    KernelRidge,
    KernelSVC,
    RandomFeatureGP,
    RandomFeatureRidge,
)

rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, size=(30, 3))
Y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(30)


@pytest.fixture(scope="module")
def mutag_gram() -> tuple[np.ndarray, np.ndarray]:
    graphs, y = load_tu("MUTAG")
    return wl_kernel(graphs, 3), y


# ---------------------------------------------------------------------- precomputed


def test_cross_val_score_on_a_wl_gram_matrix_matches_scikit_learn(mutag_gram) -> None:
    # the pairwise tag makes cross-validation slice rows *and* columns of K
    K, y = mutag_gram
    ours = cross_val_score(KernelSVC("precomputed", C=10.0), K, y, cv=5)
    theirs = cross_val_score(SVC(kernel="precomputed", C=10.0), K, y, cv=5)
    np.testing.assert_array_equal(ours, theirs)
    assert ours.mean() > 0.75


def test_grid_search_over_a_precomputed_svc(mutag_gram) -> None:
    K, y = mutag_gram
    search = GridSearchCV(KernelSVC("precomputed"), {"C": [0.1, 1.0, 10.0]}, cv=3).fit(K, y)
    reference = GridSearchCV(SVC(kernel="precomputed"), {"C": [0.1, 1.0, 10.0]}, cv=3).fit(K, y)
    assert search.best_params_ == reference.best_params_
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"]
    )
    np.testing.assert_array_equal(search.predict(K[:10]), reference.predict(K[:10]))


def test_precomputed_kernel_ridge_cross_validates_as_scikit_learn() -> None:
    K = RBF(lengthscale=1.5)(X)
    ours = cross_val_score(KernelRidge("precomputed", alpha=0.1), K, Y, cv=5)
    theirs = cross_val_score(SkKernelRidge(kernel="precomputed", alpha=0.1), K, Y, cv=5)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)


def test_an_asymmetric_precomputed_gram_matrix_is_refused() -> None:
    K = RBF()(X)
    K[0, 1] += 0.1
    for est, y in [(KernelRidge("precomputed"), Y), (KernelSVC("precomputed"), Y > 0)]:
        with pytest.raises(ValueError, match="precomputed Gram matrix X must be symmetric"):
            est.fit(K, y)


# ---------------------------------------------------------------------- inputs


def test_a_column_target_is_raveled_with_a_warning_by_single_output_models() -> None:
    for est in [GaussianProcessRegressor(optimizer=None), RandomFeatureGP(random_state=0)]:
        with pytest.warns(DataConversionWarning, match="column-vector y"):
            est.fit(X, Y[:, None])
        assert est.predict(X).shape == (30,)
        np.testing.assert_allclose(
            est.predict(X), type(est)(**est.get_params()).fit(X, Y).predict(X)
        )


def test_multi_output_models_keep_a_column_target() -> None:
    for est in [KernelRidge(alpha=0.1), RandomFeatureRidge(random_state=0)]:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DataConversionWarning)
            est.fit(X, Y[:, None])
        assert est.predict(X).shape == (30, 1)


def test_dataframe_input_records_feature_names() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    for est in [KernelRidge(), GaussianProcessRegressor(optimizer=None), RandomFeatureGP()]:
        est.fit(df, Y)
        assert list(est.feature_names_in_) == ["a", "b", "c"]
        with pytest.warns(UserWarning, match="X does not have valid feature names"):
            np.testing.assert_allclose(est.predict(df), est.predict(X))
        with pytest.raises(ValueError, match="feature names"):
            est.predict(df.rename(columns={"a": "z"}))


def test_object_columns_of_numbers_are_accepted() -> None:
    ours = KernelRidge().fit(X.astype(object), Y).predict(X.astype(object))
    np.testing.assert_allclose(ours, KernelRidge().fit(X, Y).predict(X))


def test_sparse_input_is_refused_with_advice() -> None:
    import scipy.sparse

    for est in [KernelRidge(), KernelSVC(), GaussianProcessRegressor(), RandomFeatureGP()]:
        y = Y > 0 if isinstance(est, KernelSVC) else Y
        with pytest.raises(TypeError, match=r"Sparse data was passed.*toarray"):
            est.fit(scipy.sparse.csr_matrix(X), y)


# ---------------------------------------------------------------------- probabilities


def test_platt_probabilities_equal_scikit_learns_calibrated_svc() -> None:
    K = RBF()(X)
    y = (Y > 0).astype(int)
    clf = KernelSVC("precomputed", probability=True, random_state=3).fit(K, y)
    seed = np.random.RandomState(3).randint(np.iinfo(np.int32).max)
    ref = CalibratedClassifierCV(
        SVC(kernel="precomputed"),
        method="sigmoid",
        cv=StratifiedKFold(5, shuffle=True, random_state=seed),
        ensemble=False,
    ).fit(K, y)
    P = clf.predict_proba(K[:7])
    np.testing.assert_allclose(P, ref.predict_proba(K[:7]), rtol=1e-10)
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(K[:7])), P)


def test_multiclass_probabilities_on_sets() -> None:
    sets = [{1, 2}, {1, 2, 3}, {1, 3}, {2, 3}, {7, 8}, {8, 9}, {7, 9}, {7, 8, 9}]
    sets += [{20, 21}, {21, 22}, {20, 22}, {20, 21, 22}]
    y = np.repeat(["a", "b", "c"], 4)
    clf = KernelSVC(Intersection(), C=10.0, probability=True, random_state=0).fit(sets, y)
    P = clf.predict_proba([{1, 2, 3}, {7, 9}, {20, 21, 22}])
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert list(clf.classes_[P.argmax(axis=1)]) == ["a", "b", "c"]


def test_predict_proba_only_with_probability() -> None:
    clf = KernelSVC().fit(X, Y > 0)
    assert not hasattr(clf, "predict_proba")
    with pytest.raises(AttributeError, match="has no attribute 'predict_proba'") as err:
        clf.predict_proba(X)
    assert "probability=True" in str(err.value.__cause__)
    with pytest.raises(ValueError, match='needs multiclass="ovr"'):
        KernelSVC(multiclass="ovo", probability=True).fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="at least 2 samples of every class"):
        KernelSVC(probability=True).fit(X, np.r_[np.zeros(29), 1])
    with pytest.raises(TypeError, match="probability must be a bool"):
        KernelSVC(probability="yes").fit(X, Y > 0)


# ---------------------------------------------------------------------- random features


class _Fixed:
    """A feature map with known features."""

    def __init__(self, p: int) -> None:
        self.W = np.random.default_rng(p).standard_normal((3, p))

    def transform(self, A):
        return np.tanh(np.asarray(A) @ self.W)


@pytest.mark.parametrize(("n", "p", "solver"), [(10, 40, "dual"), (30, 8, "primal")])
def test_random_feature_gp_posterior_equals_the_brute_force_formulas(n, p, solver) -> None:
    fm, noise = _Fixed(p), 0.05
    gp = RandomFeatureGP(fm, noise=noise).fit(X[:n], Y[:n])
    assert gp.solver_ == solver
    Phi, Ps = fm.transform(X[:n]), fm.transform(X[n - 5 :])
    A = Phi.T @ Phi + noise * np.eye(p)  # Rowland (2018) eq. 5.5, formed directly
    mean = Ps @ np.linalg.solve(A, Phi.T @ Y[:n])
    cov = noise * Ps @ np.linalg.solve(A, Ps.T)
    m, c = gp.predict(X[n - 5 :], return_cov=True)
    np.testing.assert_allclose(m, mean, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(c, cov, rtol=1e-7, atol=1e-10)
    lml = scipy.stats.multivariate_normal(np.zeros(n), Phi @ Phi.T + noise * np.eye(n)).logpdf(
        Y[:n]
    )
    assert gp.log_marginal_likelihood_value_ == pytest.approx(lml, rel=1e-9)
    ridge = RandomFeatureRidge(fm, alpha=noise).fit(X[:n], Y[:n])
    np.testing.assert_allclose(ridge.predict(X[n - 5 :]), mean, rtol=1e-8, atol=1e-10)


def test_many_features_on_few_samples_solve_the_small_system() -> None:
    # 10000 features (5000 frequencies) on 20 samples: a 20 x 20 system, not 10000 x 10000
    Xs, ys = X[:20], Y[:20]
    for est in [
        RandomFeatureRidge(n_components=10000, random_state=0),
        RandomFeatureGP(n_components=10000, random_state=0),
    ]:
        est.fit(Xs, ys)
        assert est.solver_ == "dual" and est.L_.shape == (20, 20)
        assert est.n_features_out_ == 10000 and np.isfinite(est.predict(Xs)).all()


def test_random_feature_gp_samples_have_the_predictive_moments() -> None:
    gp = RandomFeatureGP(n_components=100, noise=0.1, random_state=0).fit(X, Y)
    Xt = X[:4] + 0.3
    draws = gp.sample_y(Xt, n_samples=20000, random_state=1)
    assert draws.shape == (4, 20000)
    np.testing.assert_array_equal(
        gp.sample_y(Xt, 3, random_state=1), gp.sample_y(Xt, 3, random_state=1)
    )
    mean, cov = gp.predict(Xt, return_cov=True)
    se = np.sqrt(np.diag(cov) / 20000)
    assert np.all(np.abs(draws.mean(axis=1) - mean) < 5 * se + 1e-12)
    np.testing.assert_allclose(np.cov(draws), cov, atol=0.05 * np.abs(cov).max())


# ---------------------------------------------------------------------- the GP fit


def test_normalized_gp_on_huge_targets_predicts_finite_values() -> None:
    y = 5e154 * rng.standard_normal(30)  # squares overflow float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gp = GaussianProcessRegressor(normalize_y=True).fit(X, y)
    mean, std = gp.predict(X, return_std=True)
    assert np.isfinite(mean).all() and np.isfinite(std).all()
    assert np.isfinite(gp.y_train_std_) and gp.y_train_std_ > 1e154


def test_gp_does_not_explain_constant_inputs_as_pure_noise() -> None:
    # every input equal: the best model is a constant signal of variance ~3.5 plus noise
    # 2.5 (LML -10.43); pure noise (signal variance at its bound) has LML -11.57
    gp = GaussianProcessRegressor().fit(np.zeros((5, 2)), np.arange(5.0))
    assert gp.log_marginal_likelihood_value_ == pytest.approx(-10.4251, abs=1e-3)
    assert gp.kernel_.variance == pytest.approx(3.5, rel=1e-3)
    assert gp.predict(np.zeros((1, 2)))[0] == pytest.approx(10 * 3.5 / (5 * 3.5 + 2.5), rel=1e-3)


def test_every_hyperparameter_at_a_bound_is_named_in_a_warning() -> None:
    Xl = np.linspace(0, 1, 15)[:, None]
    kernel = RBF(lengthscale=0.5, lengthscale_bounds=(1e-2, 0.05))
    with pytest.warns(ConvergenceWarning, match=r"fitted lengthscale is at its upper bound 0\.05"):
        GaussianProcessRegressor(kernel).fit(Xl, np.sin(Xl[:, 0]))


@pytest.mark.parametrize("cls", [RandomFeatureRidge, RandomFeatureGP])
def test_a_request_far_beyond_the_machine_is_refused_up_front(cls, monkeypatch) -> None:
    from kernelkit import _memory

    monkeypatch.setattr(_memory, "memory_limit", lambda: 2**30)  # a 1 GiB machine
    # 10**9 features on 20 x 3 data: 160 GB of features
    expected = (
        rf"{cls.__name__}\(n_components=1000000000\) on 20 x 3 data \(1000000000 features, "
        r"a 20 x 20 linear system\) would need about 1\d\d GiB"
    )
    with pytest.raises(ValueError, match=expected):
        cls(n_components=10**9).fit(X[:20], Y[:20])
    cls(n_components=10000).fit(X[:20], Y[:20])  # 10000 features, a 20 x 20 system: fine
