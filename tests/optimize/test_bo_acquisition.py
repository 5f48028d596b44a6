"""Acquisitions: Monte Carlo agreement, sigma = 0, log-EI, gradients, incumbent, errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

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


# ---------------------------------------------------------------- sigma = 0
def test_zero_sigma_gives_zero_without_nan():
    mean, std = np.array([1.0, -1.0, 0.0]), np.zeros(3)
    grads = np.ones((3, 2))
    for acq in (ExpectedImprovement(0.05), ProbabilityOfImprovement(0.2)):
        v = acq(mean, std, 0.0)
        assert np.array_equal(v, np.zeros(3))
        v, g = acq.value_and_gradient(mean, std, 0.0, grads, grads)
        assert np.array_equal(v, np.zeros(3)) and np.all(np.isfinite(g))
    for acq in (LogExpectedImprovement(0.05), LogProbabilityOfImprovement(0.2)):
        v, g = acq.value_and_gradient(mean, std, 0.0, grads, grads)
        assert np.all(v == -np.inf) and np.all(np.isfinite(g))


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
