"""Acquisitions: Monte Carlo agreement, sigma = 0, log-EI, gradients, incumbent, errors."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats
from sklearn.exceptions import NotFittedError

from kernelkit.kernels import RBF, Linear, Matern
from kernelkit.models import GaussianProcessRegressor
from kernelkit.optimize import (
    ExpectedImprovement,
    LogExpectedImprovement,
    LogProbabilityOfImprovement,
    ProbabilityOfImprovement,
    UpperConfidenceBound,
    get_acquisition,
    log_h,
    noisy_incumbent,
    posterior,
)


def _gp(kernel, *, d=2, n=8, normalize_y=True, noise=1e-3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, d))
    y = 3.0 * np.sin(4.0 * X[:, 0]) + X.sum(axis=1) ** 2 + 5.0
    gp = GaussianProcessRegressor(
        kernel, noise=noise, noise_bounds="fixed", normalize_y=normalize_y, optimizer=None
    )
    return gp.fit(X, y), rng


# ---------------------------------------------------------------- Monte Carlo agreement
@pytest.mark.parametrize("xi", [0.0, 0.3])
def test_ei_and_pi_equal_monte_carlo_under_the_posterior(xi):
    gp, rng = _gp(Matern(lengthscale=[0.4, 0.6], nu=2.5), d=2)
    best = noisy_incumbent(gp)[0]
    X = rng.uniform(-0.5, 1.5, size=(400, 2))
    post = posterior(gp, X)
    pi = ProbabilityOfImprovement(xi)(post.mean, post.std, best)
    keep = np.flatnonzero((pi > 0.02) & (pi < 0.98))[:4]  # improvement neither sure nor nil
    assert keep.size == 4
    X, pi = X[keep], pi[keep]
    post = posterior(gp, X)
    ei = ExpectedImprovement(xi)(post.mean, post.std, best)
    n = 200_000
    for i in range(len(X)):
        f = gp.sample_y(X[i : i + 1], n_samples=n, random_state=i)[0]  # posterior draws
        improvement = np.maximum(0.0, f - best - xi)  # eq. 2.10
        se_ei = improvement.std() / np.sqrt(n)
        assert abs(ei[i] - improvement.mean()) < 5 * se_ei + 1e-12
        p = np.mean(improvement > 0)
        se_pi = np.sqrt(max(p * (1 - p), 1e-12) / n)
        assert abs(pi[i] - p) < 5 * se_pi + 1e-6


def test_closed_forms_at_z_zero():
    # Z = 0: PI = 1/2, EI = sigma * phi(0)
    assert ProbabilityOfImprovement(0.0)([1.0], [2.0], 1.0)[0] == pytest.approx(0.5)
    assert ExpectedImprovement(0.0)([1.0], [2.0], 1.0)[0] == pytest.approx(2.0 / np.sqrt(2 * np.pi))


def test_xi_shifts_the_threshold():
    ei0 = ExpectedImprovement(0.0)([0.5], [1.0], 0.0)
    ei1 = ExpectedImprovement(0.5)([0.5], [1.0], 0.0)
    assert ei1[0] == pytest.approx(1.0 / np.sqrt(2 * np.pi))  # Z = 0
    assert ei1[0] < ei0[0]


# ---------------------------------------------------------------- sigma = 0 and its limit
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
TINY = [0.0, 1e-300, 1e-12]
GRAD = np.array([[1.0, -1.0, 0.0]])  # dmu = dsigma: both terms of every chain rule


def _limits(acq, mean, best):
    """The values at sigma -> 0+ for the margin d = mean - best - xi: I = max{0, d} is sure."""
    if isinstance(acq, UpperConfidenceBound):
        return mean
    d = mean - best - acq.xi
    pi = np.where(d > 0, 1.0, np.where(d < 0, 0.0, 0.5))
    with np.errstate(divide="ignore"):
        return {
            "pi": pi,
            "logpi": np.log(pi),
            "ei": np.maximum(d, 0.0),
            "logei": np.log(np.maximum(d, 0.0)),
        }[acq.name]


def test_zero_sigma_gives_the_limits():
    # the example: EI(xi=0) at mean 1, std 0, best 0.5 is max(1 - 0.5, 0) = 0.5
    assert ExpectedImprovement(xi=0.0)(mean=[1.0], std=[0.0], best=0.5)[0] == 0.5
    mean, std = np.array([1.0, -1.0, 0.05]), np.zeros(3)  # d > 0, d < 0, d = 0 at xi = 0.05
    dmu, dsd = np.array([[1.0, 2.0]] * 3), np.ones((3, 2))
    phi0 = 1.0 / np.sqrt(2.0 * np.pi)
    expected = {  # EI: Phi dmu + phi dsigma at Z = inf, -inf, 0
        "ei": ([0.95, 0.0, 0.0], [[1.0, 2.0], [0.0, 0.0], [0.5 + phi0, 1.0 + phi0]]),
        "pi": ([1.0, 0.0, 0.5], np.zeros((3, 2))),
        "logei": ([np.log(0.95), -np.inf, -np.inf], [[1 / 0.95, 2 / 0.95], [0, 0], [0, 0]]),
        "logpi": ([0.0, -np.inf, np.log(0.5)], np.zeros((3, 2))),
    }
    for cls in (ExpectedImprovement, ProbabilityOfImprovement):
        for acq in (cls(0.05), cls(0.05).for_search()):
            value, grad = expected[acq.name]
            np.testing.assert_allclose(acq(mean, std, 0.0), value, rtol=1e-15)
            v, g = acq.value_and_gradient(mean, std, 0.0, dmu, dsd)
            np.testing.assert_allclose(v, value, rtol=1e-15)
            np.testing.assert_allclose(g, grad, rtol=1e-15, atol=0)
    ucb = UpperConfidenceBound(4.0)
    assert np.array_equal(ucb(mean, std, 0.0), mean)


ACQ_ALL = [
    ExpectedImprovement(0.0),
    ExpectedImprovement(0.3),
    ProbabilityOfImprovement(0.2),
    LogExpectedImprovement(0.05),
    LogProbabilityOfImprovement(0.0),
    UpperConfidenceBound(2.0),
]


@pytest.mark.parametrize("acq", ACQ_ALL, ids=repr)
@SETTINGS
@given(mean=st.floats(-1e6, 1e6), best=st.floats(-1e6, 1e6))
def test_values_at_zero_and_tiny_sigma_agree_with_the_limit(acq, mean, best):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow / divide warnings at tiny sigma
        at, grad = {}, {}
        for s in [*TINY, 1e-160]:
            at[s] = float(acq([mean], [s], best)[0])
            v, grad[s] = acq.value_and_gradient([mean], [s], best, GRAD, GRAD)
            assert v[0] == at[s] and not np.isnan(grad[s]).any()
    limit = float(_limits(acq, np.array(mean), best))
    assert at[0.0] == limit
    d = mean - best - getattr(acq, "xi", 0.0)
    for s in TINY:  # gradients: the limits where there are ones
        if acq.name == "ei" and abs(d) > 40 * s:  # Phi dmu + phi dsigma -> dmu or 0
            np.testing.assert_allclose(grad[s], GRAD * (d > 0), atol=1e-12)
        elif acq.name == "logei" and d > 40 * s:  # dEI / EI -> dmu / d
            np.testing.assert_allclose(grad[s], GRAD / d, rtol=1e-7, atol=1e-12 / d)
        elif acq.name in ("pi", "logpi") and (s == 0 or d > 40 * s):
            assert np.all(np.abs(grad[s]) < 1e-30)  # phi(Z) vanishes: 0 in the limit
        elif acq.name == "ucb":
            assert np.array_equal(grad[s], GRAD + np.sqrt(acq.beta) * GRAD)
    for s in TINY[1:]:
        v = at[s]
        if acq.name == "ei":  # 0 <= EI - max(d, 0) = sigma h(-|d| / sigma) <= sigma phi(0)
            assert 0.0 <= v - limit + 1e-15 * abs(d) <= 0.4 * s + 1e-15 * abs(d)
        elif acq.name == "pi":  # |PI - limit| = Phi(-|d| / sigma)
            assert abs(v - limit) <= special.ndtr(-abs(d) / s) + 1e-15
        elif acq.name == "ucb":
            assert v == pytest.approx(limit, rel=1e-15, abs=2 * s)
        elif d > 40 * s:  # improvement certain to double precision: log of the limit
            assert v == pytest.approx(limit, abs=1e-10)
        elif d < -40 * s:  # far below: at most log(sigma phi(0)) resp. log Phi(-40)
            bound = np.log(0.4 * s) if acq.name == "logei" else special.log_ndtr(-40.0)
            assert v <= bound
    if acq.name in ("ei", "logei"):  # never decreasing in sigma: dEI/dsigma = phi(Z) >= 0
        tol = 1e-12 if acq.name == "logei" else 1e-15 * abs(d)  # up to rounding
        assert at[0.0] <= at[1e-300] + tol and at[1e-300] <= at[1e-12] + tol


@pytest.mark.parametrize("acq", ACQ_ALL, ids=repr)
@pytest.mark.parametrize("std", [*TINY, 1e-3, 1.0, 50.0])
@SETTINGS
@given(means=st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=12), best=st.floats(-10, 10))
def test_acquisitions_are_monotone_in_the_mean(acq, std, means, best):
    mean = np.sort(np.asarray(means))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = acq(mean, np.full(mean.shape, std), best)
    assert not np.isnan(v).any()
    for lo, hi in itertools.pairwise(v):  # up to rounding of the closed forms
        assert hi >= lo - 1e-12 * max(abs(lo), 1.0) or lo == -np.inf


@SETTINGS
@given(
    mean=st.floats(-20, 20),
    std=st.floats(1e-3, 1e3),
    best=st.floats(-20, 20),
    xi=st.floats(0, 2),
)
def test_acquisitions_match_the_closed_forms(mean, std, best, xi):
    d = mean - best - xi
    z = d / std
    ei = d * stats.norm.cdf(z) + std * stats.norm.pdf(z)
    m, s = np.array([mean]), np.array([std])
    assert ProbabilityOfImprovement(xi)(m, s, best)[0] == pytest.approx(stats.norm.cdf(z))
    assert LogProbabilityOfImprovement(xi)(m, s, best)[0] == pytest.approx(stats.norm.logcdf(z))
    assert ExpectedImprovement(xi)(m, s, best)[0] == pytest.approx(ei, rel=1e-9, abs=1e-300)
    if ei > 1e-250:
        log_ei = LogExpectedImprovement(xi)(m, s, best)[0]
        assert log_ei == pytest.approx(np.log(ei), rel=1e-8, abs=1e-10)
    beta = 1.0 + xi
    assert UpperConfidenceBound(beta)(m, s, best)[0] == pytest.approx(mean + np.sqrt(beta) * std)


def test_log_acquisition_gradients_far_below_the_incumbent_at_small_sigma():
    # z = -1e9: phi / Phi and Phi / h are |z| (1 + O(1/z^2)); the difference of two logs
    # near -z^2 / 2 = -5e17 that gives them elsewhere has no digits left there
    mean, std, dmu, dsd = np.array([-1.0]), np.array([1e-9]), np.eye(2)[:1], np.eye(2)[1:]
    z = -1e9
    _, g = LogExpectedImprovement(0.0).value_and_gradient(mean, std, 0.0, dmu, dsd)
    # d log EI = (Phi dmu + phi dsigma) / EI = |z| / sigma dmu + (1 + z^2) / sigma dsigma
    np.testing.assert_allclose(g[0], [-z / 1e-9, (1 + z * z) / 1e-9], rtol=1e-6)
    _, g = LogProbabilityOfImprovement(0.0).value_and_gradient(mean, std, 0.0, dmu, dsd)
    # d log PI = (phi / Phi) (dmu - z dsigma) / sigma
    np.testing.assert_allclose(g[0], [-z / 1e-9, z * z / 1e-9], rtol=1e-6)


def test_zero_sigma_at_a_noiseless_training_point():
    X = np.array([[0.1], [0.5], [0.9]])
    gp = GaussianProcessRegressor(
        RBF(lengthscale=0.3), noise=1e-12, noise_bounds="fixed", optimizer=None
    ).fit(X, np.array([0.0, 1.0, 0.5]))
    post = posterior(gp, X)
    assert np.all(post.std < 1e-4)
    ei = ExpectedImprovement(0.05)(post.mean, np.where(post.std < 1e-4, 0.0, post.std), 1.0)
    assert np.array_equal(ei, np.zeros(3))


# ---------------------------------------------------------------- log-EI
def test_log_ei_equals_log_of_ei_where_representable():
    rng = np.random.RandomState(1)
    mean = rng.uniform(-20, 5, size=200)
    std = rng.uniform(0.1, 3.0, size=200)
    ei = ExpectedImprovement(0.1)(mean, std, 0.5)
    log_ei = LogExpectedImprovement(0.1)(mean, std, 0.5)
    ok = ei > 1e-250
    assert ok.sum() > 150
    np.testing.assert_allclose(log_ei[ok], np.log(ei[ok]), rtol=1e-8, atol=1e-10)


def test_log_ei_is_finite_and_monotone_where_ei_underflows():
    mean = -np.logspace(1, 8, 400)  # Z from -10 to -1e8
    ei = ExpectedImprovement(0.0)(mean, np.ones_like(mean), 0.0)
    log_ei = LogExpectedImprovement(0.0)(mean, np.ones_like(mean), 0.0)
    assert np.any(ei == 0.0)  # EI has underflowed ...
    assert np.all(np.isfinite(log_ei))  # ... log-EI has not
    assert np.all(np.diff(log_ei) < 0)  # and still orders the points
    # the asymptote log phi(z) - 2 log|z| for very negative z
    z = -1e5
    assert log_h(np.array([z]))[0] == pytest.approx(
        -0.5 * z * z - 0.5 * np.log(2 * np.pi) - 2 * np.log(-z), rel=1e-12
    )


def test_log_pi_matches_log_ndtr():
    z = np.linspace(-50, 5, 30)
    np.testing.assert_allclose(
        LogProbabilityOfImprovement(0.0)(z, np.ones_like(z), 0.0), special.log_ndtr(z)
    )


# ---------------------------------------------------------------- gradients
def _fd(fun, X, h=1e-6):
    G = np.zeros_like(X)
    for j in range(X.shape[1]):
        E = np.zeros_like(X)
        E[:, j] = h
        G[:, j] = (fun(X + E) - fun(X - E)) / (2 * h)
    return G


KERNELS = {
    "matern52-ard": lambda: Matern(lengthscale=[0.3, 0.5], variance=2.0, nu=2.5),
    "matern32": lambda: Matern(lengthscale=0.4, nu=1.5),
    "rbf": lambda: RBF(lengthscale=[0.35, 0.6]),
    "non-stationary": lambda: Matern(lengthscale=0.5, nu=2.5) + Linear(variance=0.3),
}


@pytest.mark.parametrize("normalize_y", [True, False])
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_posterior_gradients_match_finite_differences(kernel, normalize_y):
    gp, rng = _gp(KERNELS[kernel](), normalize_y=normalize_y)
    X = rng.uniform(0.05, 0.95, size=(5, 2))
    for normalized in (False, True):
        post = posterior(gp, X, return_gradient=True, normalized=normalized)
        mean_fd = _fd(lambda Z, n=normalized: posterior(gp, Z, normalized=n).mean, X)
        std_fd = _fd(lambda Z, n=normalized: posterior(gp, Z, normalized=n).std, X)
        np.testing.assert_allclose(post.mean_grad, mean_fd, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(post.std_grad, std_fd, rtol=1e-5, atol=1e-6)
    # the moments themselves agree with the regressor's predict
    mean, std = gp.predict(X, return_std=True)
    post = posterior(gp, X)
    np.testing.assert_allclose(post.mean, mean, rtol=1e-12)
    np.testing.assert_allclose(post.std, std, rtol=1e-10)


ACQUISITIONS = [
    ExpectedImprovement(0.05),
    ProbabilityOfImprovement(0.2),
    LogExpectedImprovement(0.05),
    LogProbabilityOfImprovement(0.2),
    UpperConfidenceBound(2.0),
]


@pytest.mark.parametrize("normalize_y", [True, False])
@pytest.mark.parametrize("acq", ACQUISITIONS, ids=lambda a: a.name)
def test_acquisition_gradients_match_finite_differences(acq, normalize_y):
    gp, rng = _gp(Matern(lengthscale=[0.3, 0.5], nu=2.5), normalize_y=normalize_y)
    best = noisy_incumbent(gp)[0]
    X = rng.uniform(0.05, 0.95, size=(6, 2))
    value, grad = acq.evaluate(gp, X, best=best, return_gradient=True)
    np.testing.assert_allclose(value, acq.evaluate(gp, X, best=best))
    fd = _fd(lambda Z: acq.evaluate(gp, Z, best=best), X)
    scale = np.max(np.abs(fd)) + 1e-12
    np.testing.assert_allclose(grad, fd, rtol=1e-4, atol=1e-6 * scale)


def test_log_ei_gradient_far_below_the_incumbent():
    # Z around -60: EI is 0 in floating point, log-EI and its gradient are not
    mean, std, best = np.array([-60.0]), np.array([1.0]), 0.0
    dmu, dsd = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    v, g = LogExpectedImprovement(0.0).value_and_gradient(mean, std, best, dmu, dsd)
    h = 1e-5
    up = LogExpectedImprovement(0.0)(mean + h, std, best)
    dn = LogExpectedImprovement(0.0)(mean - h, std, best)
    assert np.isfinite(v[0]) and g[0, 0] == pytest.approx((up - dn)[0] / (2 * h), rel=1e-5)
    up = LogExpectedImprovement(0.0)(mean, std + h, best)
    dn = LogExpectedImprovement(0.0)(mean, std - h, best)
    assert g[0, 1] == pytest.approx((up - dn)[0] / (2 * h), rel=1e-5)


# ---------------------------------------------------------------- incumbent (eq. 2.17)
def test_noisy_incumbent_is_the_best_posterior_mean():
    X = np.linspace(0, 1, 12)[:, None]
    y = np.sin(6 * X[:, 0])
    y[9] += 2.3  # one lucky noisy observation in a low region: the best y, not the best mean
    gp = GaussianProcessRegressor(
        RBF(lengthscale=0.3), noise=1.0, noise_bounds="fixed", optimizer=None
    ).fit(X, y)
    value, i = noisy_incumbent(gp)
    mean = gp.predict(X)
    assert i == int(np.argmax(mean)) and value == pytest.approx(mean.max())
    assert i != int(np.argmax(y))
    _, i_n = noisy_incumbent(gp, normalized=True)
    assert i_n == i
    # restricted to some points (say, the evaluations that succeeded): the best among them
    among = np.ones(len(y), dtype=bool)
    among[i] = False
    value_r, i_r = noisy_incumbent(gp, among=among)
    assert i_r != i and among[i_r] and value_r == pytest.approx(mean[among].max())
    with pytest.raises(ValueError, match="among selects no training point"):
        noisy_incumbent(gp, among=np.zeros(len(y), dtype=bool))


# ---------------------------------------------------------------- errors
def test_unknown_acquisition_name():
    with pytest.raises(ValueError, match=r"unknown acquisition 'foo'.*ei, pi"):
        get_acquisition("foo")
    with pytest.raises(TypeError, match="acquisition must be"):
        get_acquisition(3)
    assert isinstance(get_acquisition("EI"), ExpectedImprovement)


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf")])
def test_bad_xi(bad):
    with pytest.raises(ValueError, match="xi must be finite and >= 0"):
        ExpectedImprovement(bad)


def test_bad_moments():
    with pytest.raises(ValueError, match="std must be >= 0"):
        ExpectedImprovement()([0.0], [-1.0], 0.0)
    with pytest.raises(ValueError, match="same shape"):
        ExpectedImprovement()([0.0, 1.0], [1.0], 0.0)
    with pytest.raises(ValueError, match="best"):
        ExpectedImprovement()([0.0], [1.0], float("nan"))
    with pytest.raises(ValueError, match=r"best .* must be a number, got shape \(2,\)"):
        ExpectedImprovement()([0.0], [1.0], [0.0, 1.0])
    with pytest.raises(TypeError, match="mean"):
        ExpectedImprovement()(["a"], [1.0], 0.0)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("arg", ["mean", "std", "best", "mean_grad", "std_grad"])
@pytest.mark.parametrize("acq", ACQUISITIONS, ids=lambda a: a.name)
def test_one_rule_for_nan_and_infinity(acq, arg, bad):
    # a NaN mean used to pass through while a NaN std raised: now every argument is checked
    kw = {
        "mean": np.array([0.5, 1.0]),
        "std": np.array([1.0, 0.5]),
        "best": 0.2,
        "mean_grad": np.ones((2, 3)),
        "std_grad": np.ones((2, 3)),
    }
    if arg == "best":
        kw[arg] = bad
    else:
        kw[arg] = kw[arg].copy()
        kw[arg].flat[-1] = bad
    pattern = rf"^{arg}\b.*(NaN|finite)"
    with pytest.raises(ValueError, match=pattern):
        acq.value_and_gradient(**kw)
    if arg in ("mean", "std", "best"):
        with pytest.raises(ValueError, match=pattern):
            acq(kw["mean"], kw["std"], kw["best"])


def test_noisy_incumbent_and_posterior_need_a_fitted_gp():
    gp = GaussianProcessRegressor(RBF(lengthscale=0.3))
    with pytest.raises(NotFittedError, match=r"noisy_incumbent needs a fitted .*call gp.fit"):
        noisy_incumbent(gp)
    with pytest.raises(ValueError, match=r"posterior needs a fitted .*call gp.fit"):
        posterior(gp, [[0.5]])
    with pytest.raises(ValueError, match="fitted"):  # through the acquisition's default best
        ExpectedImprovement().evaluate(gp, [[0.5]])


def test_noisy_incumbent_among_must_be_one_flag_per_point():
    gp, _ = _gp(RBF(lengthscale=0.3), n=5)
    with pytest.raises(ValueError, match=r"among must have shape \(5,\)"):
        noisy_incumbent(gp, among=np.ones(4, dtype=bool))
    with pytest.raises(TypeError, match="among must be a boolean mask"):
        noisy_incumbent(gp, among=[0, 1])
