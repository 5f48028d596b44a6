"""Random-feature GP and ridge in the primal: exact agreement with the dual models when the
features reproduce the kernel, KL properties, and errors on bad input."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import FunctionTransformer

import kernelkit.models.random_features as rfmod
from kernelkit.features import AngularFeatures, RandomFourierFeatures
from kernelkit.kernels import RBF, Angular, Laplace, Linear, Matern, Polynomial
from kernelkit.models import (
    GaussianProcessRegressor,
    KernelRidge,
    RandomFeatureGP,
    RandomFeatureRidge,
)
from kernelkit.models.random_features import gaussian_kl

rng = np.random.RandomState(0)
X = rng.standard_normal((30, 3))
Y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.standard_normal(30)
XT = rng.standard_normal((8, 3))
NOISE = 0.05


def identity(Z):
    return np.asarray(Z, dtype=float)


def quadratic_features(Z):
    """Explicit map of ``(<x, y> + 1)^2``: ``[1, sqrt(2) x, vec(x x^T)]``."""
    Z = np.asarray(Z, dtype=float)
    outer = np.einsum("ni,nj->nij", Z, Z).reshape(Z.shape[0], -1)
    return np.hstack([np.ones((Z.shape[0], 1)), np.sqrt(2.0) * Z, outer])


EXACT_PAIRS = [
    (identity, Linear(variance=1.0)),
    (FunctionTransformer(quadratic_features), Polynomial(degree=2, gamma=1.0, coef0=1.0)),
]


def _exact(kernel, normalize_y=False):
    gp = GaussianProcessRegressor(
        kernel, noise=NOISE, noise_bounds="fixed", optimizer=None, normalize_y=normalize_y
    )
    return gp.fit(X, Y)


@pytest.mark.parametrize(("fmap", "kernel"), EXACT_PAIRS, ids=["linear", "quadratic"])
@pytest.mark.parametrize("normalize_y", [False, True])
def test_primal_gp_equals_exact_gp_for_exact_features(fmap, kernel, normalize_y):
    exact = _exact(kernel, normalize_y)
    rf = RandomFeatureGP(fmap, noise=NOISE, normalize_y=normalize_y).fit(X, Y)
    for include_noise in (False, True):
        m1, c1 = rf.predict(XT, return_cov=True, include_noise=include_noise)
        m2, c2 = exact.predict(XT, return_cov=True, include_noise=include_noise)
        np.testing.assert_allclose(m1, m2, atol=1e-8)
        np.testing.assert_allclose(c1, c2, atol=1e-8)
        _, s1 = rf.predict(XT, return_std=True, include_noise=include_noise)
        _, s2 = exact.predict(XT, return_std=True, include_noise=include_noise)
        np.testing.assert_allclose(s1, s2, atol=1e-8)
    assert rf.log_marginal_likelihood_value_ == pytest.approx(
        exact.log_marginal_likelihood_value_, abs=1e-8
    )
    assert rf.kl_to(exact, XT) == pytest.approx(0.0, abs=1e-8)
    assert rf.kl_to(exact, XT, direction="exact_approx", joint=False) == pytest.approx(
        0.0, abs=1e-8
    )


def test_ridge_equals_kernel_ridge_primal_and_dual():
    for fmap, kernel in EXACT_PAIRS:
        ours = RandomFeatureRidge(fmap, alpha=0.3).fit(X, Y).predict(XT)
        primal = KernelRidge(alpha=0.3, feature_map=fmap).fit(X, Y).predict(XT)
        dual = KernelRidge(kernel, alpha=0.3).fit(X, Y).predict(XT)
        np.testing.assert_allclose(ours, primal, atol=1e-10)
        np.testing.assert_allclose(ours, dual, atol=1e-8)
    # random features: same fitted map, same predictions; GP mean = ridge with alpha = noise
    rff = RandomFourierFeatures(40, random_state=3)
    ours = RandomFeatureRidge(rff, alpha=NOISE).fit(X, Y).predict(XT)
    theirs = KernelRidge(alpha=NOISE, feature_map=rff).fit(X, Y).predict(XT)
    gp = RandomFeatureGP(rff, noise=NOISE).fit(X, Y).predict(XT)
    np.testing.assert_allclose(ours, theirs, atol=1e-10)
    np.testing.assert_allclose(ours, gp, atol=1e-10)


def test_ridge_multi_output():
    Y2 = np.column_stack([Y, -Y])
    pred = RandomFeatureRidge(identity, alpha=0.1).fit(X, Y2).predict(XT)
    assert pred.shape == (8, 2)
    np.testing.assert_allclose(pred[:, 0], -pred[:, 1])


@pytest.mark.parametrize(
    "kernel",
    [
        RBF(lengthscale=2.0, variance=3.0),
        Matern(lengthscale=1.5, nu=2.5),
        Matern(lengthscale=1.5, nu=np.inf),
        Laplace(lengthscale=0.7),
        RBF(lengthscale=[1.0, 2.0, 3.0]),  # ARD
    ],
    ids=repr,
)
def test_the_kernel_object_goes_to_the_feature_map_unchanged(kernel):
    rf = RandomFeatureGP(kernel=kernel, n_components=14, random_state=0).fit(X, Y)
    fm = rf.feature_map_
    assert isinstance(fm, RandomFourierFeatures)
    assert fm.kernel is kernel and fm.n_components == 14  # no unpacking of nu / lengthscale
    assert rf.n_features_out_ == 14  # n_components is the output width, odd ones too
    assert RandomFeatureRidge(kernel=kernel, n_components=7).fit(X, Y).n_features_out_ == 7
    # and the features estimate that kernel: Phi Phi^T -> K as the width grows
    wide = RandomFeatureGP(kernel=kernel, n_components=20000, random_state=0).fit(X, Y)
    Phi = wide.feature_map_.transform(X)
    K = kernel(X)
    assert np.mean(np.abs(Phi @ Phi.T - K)) < 0.03 * kernel.variance


def test_angular_kernels_get_angular_features_of_the_asked_width():
    rf = RandomFeatureGP(kernel=Angular(), n_components=9, coupling="orthogonal").fit(X, Y)
    assert isinstance(rf.feature_map_, AngularFeatures)
    assert rf.n_features_out_ == 9
    by_name = RandomFeatureRidge(kernel="angular", n_components=9, random_state=0).fit(X, Y)
    assert isinstance(by_name.feature_map_, AngularFeatures)


def test_estimator_conventions_and_reproducibility():
    est = RandomFeatureGP(kernel="matern", n_components=20, coupling="hadamard", random_state=4)
    assert clone(est).get_params() == est.get_params()
    with pytest.warns(UserWarning, match="hadamard"):  # d = 3: Hadamard directions biased
        a = clone(est).fit(X, Y).predict(XT)
    with pytest.warns(UserWarning, match="hadamard"):
        b = clone(est).fit(X, Y).predict(XT)
    np.testing.assert_array_equal(a, b)
    # a given feature map is cloned, not fitted in place
    rff = RandomFourierFeatures(10, random_state=0)
    RandomFeatureGP(rff).fit(X, Y)
    assert not hasattr(rff, "n_features_in_")


def _kl(m, seed, exact, coupling="iid"):
    rf = RandomFeatureGP(
        kernel=exact.kernel_, n_components=m, coupling=coupling, noise=NOISE, random_state=seed
    )
    return rf.fit(X, Y).kl_to(exact, XT)


def test_kl_nonnegative_and_decreasing_in_features():
    exact = _exact(RBF(lengthscale=1.5))
    means = []
    for m in (10, 40, 160, 640):
        kls = np.array([_kl(m, seed, exact) for seed in range(6)])
        assert np.all(kls >= 0)
        means.append(kls.mean())
    assert np.all(np.diff(means) < 0), means
    assert means[-1] < 0.1 * means[0]


def test_gaussian_kl_closed_forms():
    S0 = np.array([[2.0, 0.3], [0.3, 1.0]])
    assert gaussian_kl([1.0, 2.0], S0, [1.0, 2.0], S0) == pytest.approx(0.0, abs=1e-12)
    # KL(N(0, a I) || N(0, b I)) in k dimensions = k/2 (a/b - 1 - log(a/b))
    k, a, b = 5, 0.5, 2.0
    expected = 0.5 * k * (a / b - 1 - np.log(a / b))
    assert gaussian_kl(np.zeros(k), a * np.eye(k), np.zeros(k), b * np.eye(k)) == pytest.approx(
        expected
    )
    # asymmetric in general, both non-negative
    S1 = np.array([[1.0, -0.2], [-0.2, 0.5]])
    kl01 = gaussian_kl([0.0, 0.0], S0, [1.0, -1.0], S1)
    kl10 = gaussian_kl([1.0, -1.0], S1, [0.0, 0.0], S0)
    assert kl01 > 0 and kl10 > 0 and kl01 != pytest.approx(kl10)


def test_kl_directions_and_marginal():
    exact = _exact(RBF(lengthscale=1.5))
    rf = RandomFeatureGP(kernel=exact.kernel_, n_components=30, noise=NOISE, random_state=1)
    rf.fit(X, Y)
    fwd = rf.kl_to(exact, XT)
    rev = rf.kl_to(exact, XT, direction="exact_approx")
    mu_a, cov_a = rf.predict(XT, return_cov=True, include_noise=True)
    mu_e, cov_e = exact.predict(XT, return_cov=True, include_noise=True)
    assert fwd == pytest.approx(gaussian_kl(mu_a, cov_a, mu_e, cov_e))
    assert rev == pytest.approx(gaussian_kl(mu_e, cov_e, mu_a, cov_a))
    marg = rf.kl_to(exact, XT, joint=False)
    expected = sum(
        gaussian_kl([mu_a[i]], [[cov_a[i, i]]], [mu_e[i]], [[cov_e[i, i]]]) for i in range(8)
    )
    assert marg == pytest.approx(expected)


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize("cls", [RandomFeatureGP, RandomFeatureRidge])
def test_bad_n_components(cls):
    with pytest.raises(ValueError, match="n_components must be >= 1"):
        cls(n_components=0).fit(X, Y)
    with pytest.raises(TypeError, match="n_components must be an integer"):
        cls(n_components=2.5).fit(X, Y)


@pytest.mark.parametrize("cls", [RandomFeatureGP, RandomFeatureRidge])
def test_predict_before_fit_and_feature_mismatch(cls):
    est = cls(n_components=10, random_state=0)
    with pytest.raises(NotFittedError):
        est.predict(XT)
    est.fit(X, Y)
    with pytest.raises(ValueError, match=f"X has 2 features, but {cls.__name__} is expecting 3"):
        est.predict(XT[:, :2])
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[30, 29\]"):
        cls(n_components=10).fit(X, Y[:-1])


def test_bad_parameters():
    with pytest.raises(ValueError, match="noise must be > 0"):
        RandomFeatureGP(noise=0.0).fit(X, Y)
    with pytest.raises(ValueError, match="alpha must be > 0"):
        RandomFeatureRidge(alpha=-1.0).fit(X, Y)
    with pytest.raises(ValueError, match="coupling must be one of"):
        RandomFeatureGP(coupling="random").fit(X, Y)
    with pytest.raises(ValueError, match=r"kernel must be a Kernel object or one of 'rbf'"):
        RandomFeatureGP(kernel="poly").fit(X, Y)
    with pytest.raises(ValueError, match=r"one of 'rbf'.*got 'linear'"):  # a name, no features
        RandomFeatureGP(kernel="linear").fit(X, Y)
    with pytest.raises(TypeError, match="kernel must be a RBF, Matern, Angular kernel object"):
        RandomFeatureGP(kernel=RBF() + RBF()).fit(X, Y)
    with pytest.raises(TypeError, match="feature_map must be None, callable"):
        RandomFeatureGP(feature_map=3).fit(X, Y)
    with pytest.raises(TypeError, match="normalize_y must be a bool"):
        RandomFeatureGP(normalize_y="yes").fit(X, Y)
    with pytest.raises(ValueError, match="return_std and return_cov"):
        RandomFeatureGP(n_components=6).fit(X, Y).predict(XT, return_std=True, return_cov=True)
    with pytest.raises(ValueError, match=r"feature_map\(X\) has 29 rows"):
        RandomFeatureGP(lambda Z: Z[:-1]).fit(X, Y)


def test_kl_to_errors():
    rf = RandomFeatureGP(n_components=10, noise=NOISE, random_state=0)
    exact = _exact(RBF())
    with pytest.raises(NotFittedError):
        rf.kl_to(exact, XT)
    rf.fit(X, Y)
    with pytest.raises(NotFittedError, match="exact_gp is not fitted"):
        rf.kl_to(GaussianProcessRegressor(RBF()), XT)
    with pytest.raises(TypeError, match="exact_gp must be a fitted GP"):
        rf.kl_to(object(), XT)
    other = GaussianProcessRegressor(RBF(), optimizer=None).fit(X[:, :2], Y)
    with pytest.raises(ValueError, match="exact_gp was fitted on 2 features"):
        rf.kl_to(other, XT[:, :2])
    with pytest.raises(ValueError, match="X_test has 2 features, but 3 were expected"):
        rf.kl_to(exact, XT[:, :2])
    with pytest.raises(ValueError, match="direction must be one of"):
        rf.kl_to(exact, XT, direction="forward")
    with pytest.raises(ValueError, match="shapes do not match"):
        gaussian_kl([0.0], [[1.0]], [0.0, 1.0], np.eye(2))


def test_docstring_examples(run_doctests):
    result = run_doctests(rfmod)  # without Dask, the docstrings that need it are left out
    assert result.attempted > 0
    assert result.failed == 0
