"""Bad input gets a ValueError/TypeError that names the argument (ARCHITECTURE.md)."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import RBF, Intersection, Matern
from kernelkit.models import GaussianProcessRegressor, KernelRidge, KernelSVC

rng = np.random.default_rng(0)
X = rng.standard_normal((12, 3))
Y_REG = rng.standard_normal(12)
Y_CLS = np.array([0, 1, 2] * 4)

ESTIMATORS = [
    (KernelRidge(RBF()), Y_REG),
    (KernelSVC(RBF()), Y_CLS),
    (GaussianProcessRegressor(RBF(), optimizer=None), Y_REG),
]
IDS = ["KernelRidge", "KernelSVC", "GaussianProcessRegressor"]


@pytest.mark.parametrize(("est", "y"), ESTIMATORS, ids=IDS)
def test_mismatched_feature_dimensions_between_fit_and_predict(est, y) -> None:
    est.fit(X, y)
    name = type(est).__name__
    with pytest.raises(ValueError, match=f"X has 2 features, but {name} is expecting 3 features"):
        est.predict(X[:, :2])


@pytest.mark.parametrize(("est", "y"), ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_X(est, y, bad) -> None:
    Xb = X.copy()
    Xb[3, 1] = bad
    what = "NaN" if np.isnan(bad) else "infinity"
    with pytest.raises(ValueError, match=f"Input X contains {what}"):
        est.fit(Xb, y)
    est.fit(X, y)
    with pytest.raises(ValueError, match=f"Input X contains {what}"):
        est.predict(Xb)


@pytest.mark.parametrize(("est", "y"), ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_y(est, y, bad) -> None:
    yb = y.astype(float)
    yb[2] = bad
    what = "NaN" if np.isnan(bad) else "infinity"
    with pytest.raises(ValueError, match=f"Input y contains {what}"):
        est.fit(X, yb)


@pytest.mark.parametrize(("est", "y"), ESTIMATORS, ids=IDS)
def test_y_of_the_wrong_length(est, y) -> None:
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[12, 11\]"):
        est.fit(X, y[:11])


@pytest.mark.parametrize(("est", "y"), ESTIMATORS, ids=IDS)
def test_empty_X(est, y) -> None:
    with pytest.raises(ValueError, match=r"0 sample\(s\) \(shape=\(0, 3\)\) while a minimum of 1"):
        est.fit(np.empty((0, 3)), y[:0])


@pytest.mark.parametrize(("est", "y"), ESTIMATORS, ids=IDS)
def test_one_dimensional_X_gets_a_reshape_hint(est, y) -> None:
    with pytest.raises(ValueError, match="reshape"):
        est.fit(X[:, 0], y)


@pytest.mark.parametrize(
    ("est", "y", "name"),
    [
        (KernelRidge(alpha=0.0), Y_REG, "alpha"),
        (KernelRidge(alpha=-1.0), Y_REG, "alpha"),
        (KernelSVC(C=0.0), Y_CLS, "C"),
        (KernelSVC(C=-2.0), Y_CLS, "C"),
        (KernelSVC(tol=0.0), Y_CLS, "tol"),
        (GaussianProcessRegressor(noise=0.0), Y_REG, "noise"),
        (GaussianProcessRegressor(noise=-0.1), Y_REG, "noise"),
    ],
)
def test_non_positive_hyperparameters(est, y, name) -> None:
    with pytest.raises(ValueError, match=f"{name} must be > 0"):
        est.fit(X, y)


@pytest.mark.parametrize(("est", "y"), ESTIMATORS, ids=IDS)
def test_vector_kernel_given_a_list_of_sets(est, y) -> None:
    sets = [{1, 2}, {3}] * 6
    with pytest.raises(TypeError, match=r"X must be an array of numbers: .*'set'"):
        est.fit(sets, y)


@pytest.mark.parametrize(
    "est",
    [KernelRidge(kernel="nope"), KernelSVC(kernel=RBF), GaussianProcessRegressor(kernel=3)],
)
def test_bad_kernel_argument(est) -> None:
    with pytest.raises((TypeError, ValueError), match="kernel must be a"):
        est.fit(X, Y_CLS)


@pytest.mark.parametrize("cls", [KernelRidge, KernelSVC])
def test_precomputed_is_named_among_the_accepted_kernels(cls) -> None:
    with pytest.raises(ValueError, match=r"'rbf'.*got 'nope' \(or 'precomputed'"):
        cls(kernel="nope").fit(X, Y_CLS)


def test_a_kernel_name_is_the_kernel_with_unit_hyperparameters() -> None:
    # names go through kernelkit.kernels.resolve_kernel, as everywhere in kernelkit
    by_name = KernelRidge(kernel="matern32", alpha=0.1).fit(X, Y_REG)
    by_object = KernelRidge(kernel=Matern(nu=1.5), alpha=0.1).fit(X, Y_REG)
    np.testing.assert_array_equal(by_name.predict(X), by_object.predict(X))
    assert by_name.kernel == "matern32"  # the argument is stored unchanged


def test_set_kernel_given_a_non_collection() -> None:
    with pytest.raises(TypeError, match="X must be a list of objects"):
        KernelRidge(Intersection()).fit(5, [1.0])


def test_precomputed_gram_of_the_wrong_shape() -> None:
    with pytest.raises(ValueError, match="square Gram matrix"):
        KernelRidge("precomputed").fit(X, Y_REG)
    with pytest.raises(ValueError, match="square Gram matrix"):
        KernelSVC("precomputed").fit(X, Y_CLS)
    K = RBF()(X)
    model = KernelRidge("precomputed").fit(K, Y_REG)
    with pytest.raises(ValueError, match=r"\(n_test, n_train\)"):
        model.predict(K[:, :5])
    with pytest.raises(ValueError, match="needs kernel values at test points"):
        GaussianProcessRegressor("precomputed").fit(K, Y_REG)


def test_svc_specific_errors() -> None:
    with pytest.raises(ValueError, match="multiclass must be one of 'ovr', 'ovo'"):
        KernelSVC(multiclass="one-vs-all").fit(X, Y_CLS)
    with pytest.raises(ValueError, match="y has one class"):
        KernelSVC().fit(X, np.zeros(12))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        KernelSVC().fit(X, Y_REG)
    with pytest.raises(ValueError, match="y should be a 1d array, got an array of shape"):
        KernelSVC().fit(X, np.zeros((12, 2)))
    with pytest.raises(ValueError, match="class_weight must be"):
        KernelSVC(class_weight="auto").fit(X, Y_CLS)
    with pytest.raises(ValueError, match=r"class_weight\[1\] must be a number >= 0"):
        KernelSVC(class_weight={1: -1.0}).fit(X, Y_CLS)
    with pytest.raises(ValueError, match="max_iter"):
        KernelSVC(max_iter=0).fit(X, Y_CLS)
    with pytest.raises(TypeError, match="max_iter must be an integer"):
        KernelSVC(max_iter=2.5).fit(X, Y_CLS)


def test_ridge_specific_errors() -> None:
    with pytest.raises(ValueError, match=r"either kernel .* or feature_map"):
        KernelRidge(RBF(), feature_map=lambda A: A).fit(X, Y_REG)
    with pytest.raises(TypeError, match="feature_map must be callable"):
        KernelRidge(feature_map=3).fit(X, Y_REG)
    with pytest.raises(ValueError, match="feature_map\\(X\\) contains NaN"):
        KernelRidge(feature_map=lambda A: A * np.inf).fit(X, Y_REG)
    with pytest.raises(ValueError, match="alpha must be a positive scalar"):
        KernelRidge(alpha=[1.0, 2.0]).fit(X, Y_REG)
    with pytest.raises(ValueError, match="Found array with dim 3"):
        KernelRidge().fit(X, np.zeros((12, 2, 2)))
    with pytest.raises(TypeError, match="y must be an array of numbers: could not convert"):
        KernelRidge().fit(X, ["a"] * 12)
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        KernelRidge().fit(X, None)


def test_gp_specific_errors() -> None:
    gp = GaussianProcessRegressor(RBF(), optimizer=None)
    with pytest.raises(ValueError, match="log_marginal_likelihood needs training data"):
        gp.log_marginal_likelihood()
    gp.fit(X, Y_REG)
    with pytest.raises(ValueError, match="theta has length 2, expected 3"):
        gp.log_marginal_likelihood(np.zeros(2))
    with pytest.raises(ValueError, match="return_std and return_cov"):
        gp.predict(X, return_std=True, return_cov=True)
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        gp.sample_y(X, n_samples=0)
    with pytest.raises(ValueError, match="y has 3 rows, but X has 12 samples"):
        gp.log_predictive_density(X, Y_REG[:3])
    with pytest.raises(ValueError, match="y should be a 1d array, got an array of shape"):
        GaussianProcessRegressor().fit(X, np.zeros((12, 2)))
    for bounds in [(1.0,), (0.0, 1.0), (2.0, 1.0), "free"]:
        with pytest.raises(ValueError, match="noise_bounds must"):
            GaussianProcessRegressor(noise_bounds=bounds).fit(X, Y_REG)
    with pytest.raises(ValueError, match="n_restarts must be >= 0"):
        GaussianProcessRegressor(n_restarts=-1).fit(X, Y_REG)
    with pytest.raises(ValueError, match="optimizer must be one of 'lbfgs', None"):
        GaussianProcessRegressor(optimizer="adam").fit(X, Y_REG)
    with pytest.raises(TypeError, match="normalize_y must be a bool"):
        GaussianProcessRegressor(normalize_y="yes").fit(X, Y_REG)
    with pytest.raises(TypeError, match="random_state"):
        GaussianProcessRegressor(n_restarts=1, random_state="seed").fit(X, Y_REG)


@pytest.mark.parametrize(("est", "y"), ESTIMATORS, ids=IDS)
def test_predict_before_fit(est, y) -> None:
    fresh = type(est)(**est.get_params(deep=False))
    if isinstance(fresh, GaussianProcessRegressor):
        assert fresh.predict(X).shape == (12,)  # the prior, as scikit-learn
    else:
        with pytest.raises(ValueError, match="not fitted"):
            fresh.predict(X)
