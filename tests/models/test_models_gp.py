"""GaussianProcessRegressor: Algorithm 2 against direct linear algebra and scikit-learn,
analytic gradients against finite differences, fitting, sampling, normalisation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
from sklearn.gaussian_process.kernels import Matern as SkMatern

from kernelkit.kernels import (
    RBF,
    Intersection,
    Linear,
    Matern,
    Precomputed,
    RationalQuadratic,
)
from kernelkit.models import (
    GaussianProcessRegressor,
    KernelRidge,
    NoiseAtBoundWarning,
    NumericalWarning,
)


def _data(n: int = 30, d: int = 2, seed: int = 0, n_test: int = 7):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, d))
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, -1] + 0.1 * rng.standard_normal(n)
    Xt = rng.uniform(-2.5, 2.5, size=(n_test, d))
    return X, y, Xt


# ----------------------------------------------------------------------------- Algorithm 2
@pytest.mark.parametrize(
    "k", [RBF(lengthscale=[0.8, 1.7], variance=1.3), Matern(0.9, 2.0, nu=1.5)], ids=repr
)
def test_fixed_hyperparameters_equal_direct_linear_algebra(k) -> None:
    X, y, Xt = _data()
    noise = 0.05
    gp = GaussianProcessRegressor(k, noise=noise, optimizer=None).fit(X, y)
    Ky = k(X) + noise * np.eye(len(X))
    Ks = k(Xt, X)
    mean = Ks @ np.linalg.solve(Ky, y)
    cov = k(Xt) - Ks @ np.linalg.inv(Ky) @ Ks.T
    _, logdet = np.linalg.slogdet(Ky)
    lml = -0.5 * y @ np.linalg.solve(Ky, y) - 0.5 * logdet - 0.5 * len(y) * math.log(2 * math.pi)

    m, c = gp.predict(Xt, return_cov=True)
    np.testing.assert_allclose(m, mean, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(c, cov, rtol=1e-8, atol=1e-10)
    m2, s = gp.predict(Xt, return_std=True)
    np.testing.assert_allclose(m2, mean, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(s, np.sqrt(np.clip(np.diag(cov), 0, None)), rtol=1e-8, atol=1e-9)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(lml, rel=1e-10)
    assert gp.log_marginal_likelihood() == gp.log_marginal_likelihood_value_
    assert gp.log_marginal_likelihood(gp.theta_) == pytest.approx(lml, rel=1e-10)
    # the Cholesky factor and alpha of Algorithm 2
    np.testing.assert_allclose(gp.L_ @ gp.L_.T, Ky, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gp.alpha_, np.linalg.solve(Ky, y), rtol=1e-8, atol=1e-10)
    # predicting observations adds the noise variance
    _, s_noisy = gp.predict(Xt, return_std=True, include_noise=True)
    np.testing.assert_allclose(s_noisy**2, s**2 + noise, rtol=1e-10)
    _, c_noisy = gp.predict(Xt, return_cov=True, include_noise=True)
    np.testing.assert_allclose(c_noisy, c + noise * np.eye(len(Xt)), rtol=1e-10, atol=1e-12)


SK_CASES = [
    (RBF(lengthscale=[0.8, 1.7], variance=1.3), ConstantKernel(1.3) * SkRBF([0.8, 1.7])),
    (Matern(lengthscale=0.9, variance=2.0, nu=2.5), ConstantKernel(2.0) * SkMatern(0.9, nu=2.5)),
]


@pytest.mark.parametrize("normalize_y", [False, True])
@pytest.mark.parametrize(("ours_k", "sk_k"), SK_CASES, ids=["rbf-ard", "matern52"])
def test_equals_sklearn_at_fixed_hyperparameters(ours_k, sk_k, normalize_y) -> None:
    """scikit-learn with ``alpha = noise`` (not WhiteKernel, which would enter k(X*, X*))."""
    X, y, Xt = _data()
    y = 3.0 * y + 2.0
    noise = 0.02
    ours = GaussianProcessRegressor(
        ours_k, noise=noise, optimizer=None, normalize_y=normalize_y
    ).fit(X, y)
    ref = SkGPR(sk_k, alpha=noise, optimizer=None, normalize_y=normalize_y).fit(X, y)
    m, s = ours.predict(Xt, return_std=True)
    rm, rs = ref.predict(Xt, return_std=True)
    np.testing.assert_allclose(m, rm, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(s, rs, rtol=1e-8, atol=1e-8)
    _, c = ours.predict(Xt, return_cov=True)
    _, rc = ref.predict(Xt, return_cov=True)
    np.testing.assert_allclose(c, rc, rtol=1e-8, atol=1e-8)
    assert ours.log_marginal_likelihood_value_ == pytest.approx(
        ref.log_marginal_likelihood_value_, rel=1e-10, abs=1e-8
    )


def test_mean_equals_kernel_ridge_with_alpha_equal_to_noise() -> None:
    X, y, Xt = _data()
    k = RBF(lengthscale=0.7)
    gp = GaussianProcessRegressor(k, noise=0.1, optimizer=None).fit(X, y)
    krr = KernelRidge(k, alpha=0.1).fit(X, y)
    np.testing.assert_allclose(gp.predict(Xt), krr.predict(Xt), rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------- gradients
GRAD_KERNELS = [
    RBF(lengthscale=[0.7, 1.4, 2.0], variance=1.5),
    Matern(lengthscale=[0.9, 1.1, 0.6], variance=0.8, nu=2.5),
    RBF(lengthscale=0.8) + Linear(variance=0.3),
    RBF(lengthscale=1.2) * RationalQuadratic(lengthscale=2.0, shape=1.5),
]


@pytest.mark.parametrize("fixed_noise", [False, True])
@pytest.mark.parametrize("k", GRAD_KERNELS, ids=repr)
def test_gradient_equals_central_finite_differences(k, fixed_noise) -> None:
    X, y, _ = _data(n=25, d=3, seed=3)
    gp = GaussianProcessRegressor(
        k, noise=0.05, noise_bounds="fixed" if fixed_noise else (1e-8, 1e5), optimizer=None
    ).fit(X, y)
    rng = np.random.default_rng(1)
    theta = gp.theta_ + 0.2 * rng.standard_normal(gp.theta_.size)
    lml, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
    assert lml == pytest.approx(gp.log_marginal_likelihood(theta), rel=1e-12)
    h = 1e-5
    fd = np.array(
        [
            (gp.log_marginal_likelihood(theta + e) - gp.log_marginal_likelihood(theta - e))
            / (2 * h)
            for e in h * np.eye(theta.size)
        ]
    )
    assert grad.shape == theta.shape == (len(gp.theta_names_),)
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(fd).max()))


def test_theta_layout_and_names() -> None:
    X, y, _ = _data()
    gp = GaussianProcessRegressor(RBF(lengthscale=[1.0, 2.0]), noise=0.3, optimizer=None)
    gp.fit(X, y)
    assert gp.theta_names_ == ["lengthscale[0]", "lengthscale[1]", "variance", "noise"]
    np.testing.assert_allclose(gp.theta_, np.log([1.0, 2.0, 1.0, 0.3]))
    fixed = GaussianProcessRegressor(RBF(), noise=0.3, noise_bounds="fixed").fit(X, y)
    assert fixed.theta_names_ == ["lengthscale", "variance"]
    assert fixed.noise_ == 0.3
    # refitting with another fixed noise uses it, in the fit and in the likelihood
    fixed.set_params(noise=0.5, optimizer=None).fit(X, y)
    ref = GaussianProcessRegressor(RBF(), noise=0.5, optimizer=None).fit(X, y)
    assert fixed.noise_ == 0.5
    assert fixed.log_marginal_likelihood(fixed.theta_) == pytest.approx(
        ref.log_marginal_likelihood_value_, rel=1e-12
    )


# ----------------------------------------------------------------------------- fitting
def test_fit_improves_on_the_start_and_matches_sklearn() -> None:
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(100, 3))
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.standard_normal(100)
    bounds = (1e-5, 1e5)
    k0 = RBF(lengthscale=np.ones(3))
    ours = GaussianProcessRegressor(k0, noise=1e-2, noise_bounds=bounds).fit(X, y)
    start = GaussianProcessRegressor(k0, noise=1e-2, optimizer=None).fit(X, y)
    assert ours.log_marginal_likelihood_value_ > start.log_marginal_likelihood_value_ + 1.0
    sk_kernel = ConstantKernel(1.0, bounds) * SkRBF(np.ones(3), bounds) + WhiteKernel(1e-2, bounds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # lengthscales at their bound
        ref = SkGPR(sk_kernel).fit(X, y)
    assert ours.log_marginal_likelihood_value_ >= ref.log_marginal_likelihood_value_ - 1e-3
    # the fitted state is consistent with Algorithm 2 at theta_
    assert ours.log_marginal_likelihood(ours.theta_) == pytest.approx(
        ours.log_marginal_likelihood_value_, rel=1e-10
    )
    np.testing.assert_allclose(ours.kernel_.theta, ours.theta_[:-1])
    assert ours.noise_ == pytest.approx(math.exp(ours.theta_[-1]))
    assert ours.optimizer_result_.success
    # the user's kernel object is not modified
    np.testing.assert_array_equal(k0.lengthscale, np.ones(3))


def test_n_restarts_is_reproducible_and_never_worse(monkeypatch) -> None:
    import kernelkit.models.gp as gp_module

    starts = []
    minimize = gp_module.minimize_bounded

    def recording(fun, x0, bounds, **kwargs):
        starts.append(np.array(x0))
        return minimize(fun, x0, bounds, **kwargs)

    monkeypatch.setattr(gp_module, "minimize_bounded", recording)
    X, y, _ = _data(n=40)
    # fixed noise: the ordinary (not profiled) parametrisation, starts laid out as theta_
    kw = dict(kernel=RBF(lengthscale=[1.0, 1.0]), noise=0.1, noise_bounds="fixed")
    single = GaussianProcessRegressor(**kw).fit(X, y)
    a = GaussianProcessRegressor(**kw, n_restarts=3, random_state=7).fit(X, y)
    b = GaussianProcessRegressor(**kw, n_restarts=3, random_state=7).fit(X, y)
    GaussianProcessRegressor(**kw, n_restarts=3, random_state=8).fit(X, y)
    assert len(starts) == 1 + 3 * 4
    first, sa, sb, sc = starts[0], starts[1:5], starts[5:9], starts[9:13]
    np.testing.assert_array_equal(sa[0], first)  # the kernel's own start comes first
    np.testing.assert_array_equal(np.array(sa), np.array(sb))  # same seed, same restarts
    assert not np.allclose(np.array(sa[1:]), np.array(sc[1:]))
    bounds = a.kernel_.bounds
    assert np.all((np.array(sa) >= bounds[:, 0]) & (np.array(sa) <= bounds[:, 1]))
    np.testing.assert_array_equal(a.theta_, b.theta_)
    assert a.log_marginal_likelihood_value_ >= single.log_marginal_likelihood_value_ - 1e-8


def test_optimizer_none_keeps_the_hyperparameters() -> None:
    X, y, _ = _data()
    gp = GaussianProcessRegressor(RBF(0.5, 2.0), noise=0.2, optimizer=None).fit(X, y)
    assert gp.kernel_.lengthscale == 0.5 and gp.kernel_.variance == 2.0 and gp.noise_ == 0.2
    assert gp.optimizer_result_ is None


def test_cholesky_failures_inside_the_optimiser_do_not_crash_it(monkeypatch) -> None:
    # Noise-free targets on duplicated inputs: the likelihood grows without bound as the
    # noise shrinks, so the optimiser drives it down until K + noise I no longer factorises.
    import kernelkit.models.gp as gp_module

    failures = []
    original = gp_module._lml

    def counting(*args, **kwargs):
        out = original(*args, **kwargs)
        if out[0] == -np.inf:
            failures.append(args[3])  # the noise at which the factorisation failed
        return out

    monkeypatch.setattr(gp_module, "_lml", counting)
    rng = np.random.default_rng(2)
    X = np.repeat(rng.uniform(-1, 1, size=(15, 1)), 2, axis=0)
    y = np.sin(3 * X[:, 0])
    with warnings.catch_warnings():  # the lengthscale may end at a bound: not the point here
        warnings.simplefilter("ignore", ConvergenceWarning)
        gp = GaussianProcessRegressor(RBF(), noise=1e-2, noise_bounds=(1e-300, 1.0)).fit(X, y)
    assert failures, "the optimiser never met a failed factorisation; the test is moot"
    # the search backed off from those points: it ended at a finite optimum, above its start
    assert np.isfinite(gp.log_marginal_likelihood_value_)
    start = np.append(RBF().theta, math.log(1e-2))
    assert gp.log_marginal_likelihood_value_ > gp.log_marginal_likelihood(start)
    bad = np.append(gp.kernel_.theta, math.log(1e-300))
    assert gp.log_marginal_likelihood(bad) == -np.inf
    value, grad = gp.log_marginal_likelihood(bad, eval_gradient=True)
    assert value == -np.inf and np.all(grad == 0)


@given(st.floats(-12.0, 5.0), st.floats(-12.0, 3.0))
@settings(max_examples=60, deadline=None)
def test_a_numerically_singular_gram_matrix_never_has_a_finite_likelihood(log_v, log_ls) -> None:
    # duplicated inputs and noise far below round-off: K + noise I is singular whatever
    # the variance and lengthscale, whether or not LAPACK's pivot happens to round to 0
    X = np.repeat(np.linspace(-1, 1, 6)[:, None], 2, axis=0)
    gp = GaussianProcessRegressor(RBF(), noise=1e-2, optimizer=None).fit(X, np.sin(3 * X[:, 0]))
    theta = np.array([log_ls, log_v, math.log(1e-300)])
    assert gp.log_marginal_likelihood(theta) == -np.inf
    value, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
    assert value == -np.inf and np.all(grad == 0)


def test_infeasible_start_keeps_the_start_and_jitters() -> None:
    X = np.repeat(np.linspace(-1, 1, 10)[:, None], 2, axis=0)
    gp = GaussianProcessRegressor(RBF(), noise=1e-300, noise_bounds=(1e-300, 1.0))
    with (
        pytest.warns(ConvergenceWarning, match="not finite at the starting.*not numerically pos"),
        pytest.warns(NumericalWarning, match="jitter"),
    ):
        gp.fit(X, np.sin(3 * X[:, 0]))
    assert gp.noise_ == 1e-300 and gp.jitter_ > 0


def test_final_factorisation_jitters_with_a_warning_or_raises_with_advice() -> None:
    X = np.array([[0.0], [0.0], [1.0]])
    y = np.array([0.1, 0.1, 0.5])
    gp = GaussianProcessRegressor(RBF(), noise=1e-300, noise_bounds="fixed", optimizer=None)
    with pytest.warns(NumericalWarning, match="K \\+ noise\\*I"):
        gp.fit(X, y)
    assert gp.jitter_ > 0
    indefinite = Precomputed(np.array([[1.0, 2.0], [2.0, 1.0]]))
    gp = GaussianProcessRegressor(indefinite, noise=1e-3, optimizer=None)
    with pytest.raises(np.linalg.LinAlgError, match=r"[Ii]ncrease the noise"):
        gp.fit(np.array([0, 1]), np.array([1.0, -1.0]))


def test_kernel_on_sets_fits_the_noise() -> None:
    sets = [{1, 2}, {2, 3}, {3, 4}, {1, 4}, {5}, {5, 6}]
    y = np.array([1.0, 1.2, 0.9, 1.1, -1.0, -0.8])
    gp = GaussianProcessRegressor(Intersection(), noise=0.5).fit(sets, y)
    assert gp.theta_names_ == ["noise"]
    mean, std = gp.predict([{1, 2, 3}, {6}], return_std=True)
    assert mean[0] > 0.5 > mean[1] and np.all(std > 0)


# ----------------------------------------------------------------------------- prediction
def test_predict_before_fit_is_the_prior() -> None:
    _, _, Xt = _data()
    k = RBF(lengthscale=0.5, variance=2.5)
    gp = GaussianProcessRegressor(k, noise=0.1)
    mean, std = gp.predict(Xt, return_std=True)
    np.testing.assert_array_equal(mean, np.zeros(len(Xt)))
    np.testing.assert_allclose(std, np.sqrt(2.5))
    _, cov = gp.predict(Xt, return_cov=True, include_noise=True)
    np.testing.assert_allclose(cov, k(Xt) + 0.1 * np.eye(len(Xt)))
    samples = gp.sample_y(Xt, n_samples=3, random_state=0)
    assert samples.shape == (len(Xt), 3)
    assert not hasattr(gp, "kernel_")


def test_sample_y_matches_predictive_mean_and_covariance() -> None:
    """Monte Carlo check with N = 20000 seeded draws: each sample mean within 5 standard
    errors sqrt(S_ii / N) of the predictive mean, each sample covariance within 5 standard
    errors sqrt((S_ii S_jj + S_ij^2) / N) of the predictive covariance (Gaussian theory)."""
    X, y, _ = _data(n=20)
    Xt = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, -1.0], [3.0, 3.0]])  # near, close, far
    gp = GaussianProcessRegressor(RBF(lengthscale=0.8), noise=0.05, optimizer=None).fit(X, y)
    mean, cov = gp.predict(Xt, return_cov=True)
    N = 20_000
    S = gp.sample_y(Xt, n_samples=N, random_state=0)
    assert S.shape == (4, N)
    se_mean = np.sqrt(np.diag(cov) / N)
    assert np.all(np.abs(S.mean(axis=1) - mean) <= 5 * se_mean + 1e-12)
    d = np.diag(cov)
    se_cov = np.sqrt((np.outer(d, d) + cov**2) / N)
    assert np.all(np.abs(np.cov(S) - cov) <= 5 * se_cov + 1e-12)
    np.testing.assert_array_equal(S[:, :5], gp.sample_y(Xt, n_samples=N, random_state=0)[:, :5])


def test_sample_y_on_a_singular_posterior_covariance() -> None:
    X, y, _ = _data(n=20)
    gp = GaussianProcessRegressor(RBF(lengthscale=2.0), noise=1e-6, optimizer=None).fit(X, y)
    Xt = np.vstack([X[:5], X[:5]])  # duplicated test points: singular covariance
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # jitter here is routine and silent
        S = gp.sample_y(Xt, n_samples=4, random_state=1)
    np.testing.assert_allclose(S[:5], S[5:], atol=1e-3)


def test_normalize_y_is_equivariant_under_affine_targets() -> None:
    X, y, Xt = _data(n=40)
    kw = dict(kernel=RBF(lengthscale=[1.0, 1.0]), noise=0.1, normalize_y=True)
    a = GaussianProcessRegressor(**kw).fit(X, y)
    b = GaussianProcessRegressor(**kw).fit(X, 1000.0 * y + 5000.0)
    np.testing.assert_allclose(a.theta_, b.theta_, rtol=1e-6, atol=1e-6)
    ma, sa = a.predict(Xt, return_std=True, include_noise=True)
    mb, sb = b.predict(Xt, return_std=True, include_noise=True)
    np.testing.assert_allclose(mb, 1000.0 * ma + 5000.0, rtol=1e-6)
    np.testing.assert_allclose(sb, 1000.0 * sa, rtol=1e-6)
    _, ca = a.predict(Xt, return_cov=True)
    _, cb = b.predict(Xt, return_cov=True)
    np.testing.assert_allclose(cb, 1e6 * ca, rtol=1e-5, atol=1e-6 * np.abs(cb).max())
    assert b.y_train_mean_ == pytest.approx(np.mean(1000.0 * y + 5000.0))
    np.testing.assert_array_equal(b.y_train_, 1000.0 * y + 5000.0)  # kept as given
    # without normalisation the same scaled problem is much harder to fit from the start
    assert np.abs(b.predict(X) - (1000.0 * y + 5000.0)).mean() < 100.0


def test_log_predictive_density() -> None:
    X, y, Xt = _data()
    yt = np.sin(2 * Xt[:, 0]) + 0.3 * Xt[:, -1]
    gp = GaussianProcessRegressor(RBF(), noise=0.05, optimizer=None, normalize_y=True)
    gp.fit(X, y)
    mean, std = gp.predict(Xt, return_std=True, include_noise=True)
    expected = -0.5 * np.log(2 * np.pi * std**2) - 0.5 * (yt - mean) ** 2 / std**2
    per_point = gp.log_predictive_density(Xt, yt, average=False)
    np.testing.assert_allclose(per_point, expected, rtol=1e-12)
    assert gp.log_predictive_density(Xt, yt) == pytest.approx(expected.mean(), rel=1e-12)
    # noise is included: the predictive variance is at least the noise variance
    assert np.all(std**2 >= 0.05 * gp.y_train_std_**2 * (1 - 1e-12))


def test_estimator_api() -> None:
    gp = GaussianProcessRegressor(RBF(lengthscale=0.5), noise=0.3, n_restarts=2)
    params = gp.get_params()
    assert params["noise"] == 0.3 and params["kernel__lengthscale"] == 0.5
    copy = clone(gp)
    assert copy.kernel is not gp.kernel and copy.get_params()["n_restarts"] == 2
    X, y, _ = _data()
    assert GaussianProcessRegressor(RBF()).fit(X, y).score(X, y) > 0.9


def test_profiled_variance_reaches_the_same_optimum_in_fewer_evaluations() -> None:
    """Profiling the signal variance out (stationary kernel, variance and noise fitted)
    maximises the same likelihood as the plain search over all hyperparameters."""
    from kernelkit.kernels import Constant

    X, y, _ = _data(n=120)
    profiled = GaussianProcessRegressor(RBF(lengthscale=[1.0, 1.0]), noise=0.1).fit(X, y)
    # the same model as a product with a learnable constant: not profiled
    plain_kernel = RBF(lengthscale=[1.0, 1.0], variance_bounds="fixed") * Constant(1.0)
    plain = GaussianProcessRegressor(plain_kernel, noise=0.1).fit(X, y)
    assert profiled.log_marginal_likelihood_value_ >= plain.log_marginal_likelihood_value_ - 1e-7
    np.testing.assert_allclose(profiled.kernel_.variance, plain.kernel_.k2.value, rtol=1e-3)
    np.testing.assert_allclose(profiled.noise_, plain.noise_, rtol=1e-3)
    # theta_ is the full vector, and the stored value is the likelihood there
    assert profiled.theta_names_ == ["lengthscale[0]", "lengthscale[1]", "variance", "noise"]
    np.testing.assert_allclose(
        profiled.log_marginal_likelihood(profiled.theta_),
        profiled.log_marginal_likelihood_value_,
        rtol=1e-12,
    )
    _lml, grad = profiled.log_marginal_likelihood(profiled.theta_, eval_gradient=True)
    assert np.max(np.abs(grad)) < 1e-3  # a stationary point of the full likelihood


@pytest.mark.filterwarnings("ignore:the fitted lengthscale:sklearn.exceptions.ConvergenceWarning")
def test_profiled_optimum_outside_the_variance_bounds_is_clipped() -> None:
    X, y, _ = _data(n=60)
    with pytest.warns(ConvergenceWarning, match=r"fitted variance is at its upper bound 0\.01"):
        gp = GaussianProcessRegressor(
            RBF(lengthscale=[1.0, 1.0], variance_bounds=(1e-3, 1e-2)), noise=0.1
        ).fit(10.0 * X, 10.0 * y)
    assert 1e-3 <= gp.kernel_.variance <= 1e-2 * (1 + 1e-9)


def test_profiled_search_with_only_variance_and_noise_free() -> None:
    """A fixed lengthscale leaves a one-dimensional profiled search over noise/variance."""
    from kernelkit.kernels import Constant

    X, y, _ = _data(n=80)
    gp = GaussianProcessRegressor(RBF(0.7, lengthscale_bounds="fixed"), noise=0.1).fit(X, y)
    assert gp.theta_names_ == ["variance", "noise"]
    plain = GaussianProcessRegressor(
        RBF(0.7, lengthscale_bounds="fixed", variance_bounds="fixed") * Constant(1.0), noise=0.1
    ).fit(X, y)
    assert gp.log_marginal_likelihood_value_ >= plain.log_marginal_likelihood_value_ - 1e-7
    np.testing.assert_allclose(gp.kernel_.variance, plain.kernel_.k2.value, rtol=1e-3)


@pytest.mark.filterwarnings("ignore:the fitted lengthscale:sklearn.exceptions.ConvergenceWarning")
def test_noise_at_its_lower_bound_warns_about_duplicates() -> None:
    # Noisy targets, every record present twice: the likelihood is unbounded as noise -> 0.
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, size=(20, 1))
    X = np.vstack([x, x])
    y = np.tile(np.sin(2 * x[:, 0]) + 0.3 * rng.standard_normal(20), 2)
    with pytest.warns(NoiseAtBoundWarning, match="at its lower bound 1e-06.*duplicate records"):
        gp = GaussianProcessRegressor(RBF(), noise=0.1, noise_bounds=(1e-6, 10.0)).fit(X, y)
    assert gp.noise_ == pytest.approx(1e-6)
    assert issubclass(NoiseAtBoundWarning, ConvergenceWarning)  # filters on either catch it
    # The same records once each: the noise is estimated (near 0.3^2) and nothing is said.
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        single = GaussianProcessRegressor(RBF(), noise=0.1, noise_bounds=(1e-6, 10.0)).fit(
            x, y[:20]
        )
    assert 0.01 < single.noise_ < 0.5
