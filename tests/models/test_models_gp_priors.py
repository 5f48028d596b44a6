"""GaussianProcessRegressor with priors on the kernel's hyperparameters: the fit is the
maximum a posteriori estimate (closed form, brute-force grid, stationarity), the prior's
gradient in the objective agrees with finite differences, and without priors nothing
changes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kernelkit.kernels import RBF, GammaPrior, LogNormalPrior, Matern
from kernelkit.models import GaussianProcessRegressor
from kernelkit.models.gp import _log_posterior


def _data(n: int = 20, d: int = 1, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 3, size=(n, d))
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y


def test_map_variance_equals_the_closed_form() -> None:
    # Inputs 100 lengthscales apart: K = v I exactly, so with a negligible fixed noise
    # log p(y | v) = -S / (2 v) - n/2 log v + const, S = sum y^2. With a Gamma(a, b) prior
    # on v, the density of theta = log v adds a theta - b v; the derivative in theta,
    # S / (2 v) - n / 2 + a - b v, vanishes at the positive root of
    # b v^2 - (a - n/2) v - S/2 = 0.
    n, a, b = 6, 4.0, 2.0
    X = 100.0 * np.arange(n, dtype=float)[:, None]
    y = np.array([1.3, -0.4, 2.1, 0.7, -1.8, 0.2])
    S = float(y @ y)
    v_map = ((a - n / 2) + math.sqrt((a - n / 2) ** 2 + 2 * b * S)) / (2 * b)
    v_mle = S / n
    kernel = RBF(
        lengthscale=1.0,
        variance=1.0,
        lengthscale_bounds="fixed",
        variance_prior=GammaPrior(a, b),
    )
    gp = GaussianProcessRegressor(kernel, noise=1e-12, noise_bounds="fixed").fit(X, y)
    assert gp.kernel_.variance == pytest.approx(v_map, rel=1e-6)
    assert abs(v_map - v_mle) > 0.1  # the prior moved the optimum
    # without the prior: the maximum likelihood estimate S / n
    plain = RBF(lengthscale=1.0, lengthscale_bounds="fixed")
    mle = GaussianProcessRegressor(plain, noise=1e-12, noise_bounds="fixed").fit(X, y)
    assert mle.kernel_.variance == pytest.approx(v_mle, rel=1e-6)
    # the attributes: the likelihood stays the likelihood, the prior is reported apart
    expected_prior = GammaPrior(a, b).log_density(math.log(v_map))[0]
    assert gp.log_prior_value_ == pytest.approx(float(expected_prior), rel=1e-6)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        -0.5 * S / v_map - 0.5 * n * math.log(v_map) - 0.5 * n * math.log(2 * math.pi), rel=1e-6
    )
    assert mle.log_prior_value_ == 0.0


def test_map_lengthscale_agrees_with_a_brute_force_grid() -> None:
    X, y = _data()
    prior = GammaPrior(20.0, 10.0)  # mode of theta's density at lengthscale 2
    kernel = RBF(lengthscale=1.0, variance=1.0, variance_bounds="fixed", lengthscale_prior=prior)
    gp = GaussianProcessRegressor(kernel, noise=0.01, noise_bounds="fixed").fit(X, y)
    grid = np.linspace(math.log(0.05), math.log(5.0), 4001)
    lml = np.array([gp.log_marginal_likelihood(np.array([t])) for t in grid])
    log_prior = prior.log_density(grid)[0]
    t_map = grid[np.argmax(lml + log_prior)]
    t_mle = grid[np.argmax(lml)]
    step = grid[1] - grid[0]
    assert gp.theta_[0] == pytest.approx(t_map, abs=2 * step)
    assert abs(t_map - t_mle) > 20 * step  # and that is not the maximum likelihood
    mle = GaussianProcessRegressor(
        RBF(lengthscale=1.0, variance_bounds="fixed"), noise=0.01, noise_bounds="fixed"
    ).fit(X, y)
    assert mle.theta_[0] == pytest.approx(t_mle, abs=2 * step)


@pytest.mark.parametrize("n_restarts", [0, 2])
def test_profiled_map_fit_is_a_stationary_point_of_the_log_posterior(n_restarts) -> None:
    # variance and noise free for a stationary kernel: the profiled search, which stays
    # exact with priors on the lengthscales only
    X, y = _data(n=25, d=2, seed=1)
    kernel = Matern(lengthscale=[0.5, 0.5], nu=2.5, lengthscale_prior=GammaPrior(3.0, 6.0))
    gp = GaussianProcessRegressor(kernel, n_restarts=n_restarts, random_state=0).fit(X, y)
    lml, grad = gp.log_marginal_likelihood(gp.theta_, eval_gradient=True)
    _, prior_grad = gp.kernel_.log_prior()
    grad[: gp.kernel_.n_dims] += prior_grad
    assert np.max(np.abs(grad)) < 1e-3 * max(1.0, abs(lml))
    # the same optimum as the ordinary search over [theta, log noise]: a prior on the
    # variance turns profiling off, and a flat prior in theta changes nothing
    flat = LogNormalPrior(0.0, 1e6)
    ordinary = GaussianProcessRegressor(
        kernel.clone().set_params(variance_prior=flat), n_restarts=n_restarts, random_state=0
    ).fit(X, y)
    np.testing.assert_allclose(ordinary.theta_, gp.theta_, atol=1e-3)


KERNELS_WITH_PRIORS = [
    RBF(lengthscale=[0.7, 1.4], variance=1.5, lengthscale_prior=GammaPrior(3.0, 6.0)),
    Matern(
        lengthscale=[0.9, 0.6],
        variance=0.8,
        nu=1.5,
        lengthscale_prior=LogNormalPrior(0.0, 0.5),
        variance_prior=GammaPrior(2.0, 1.0),
    ),
    RBF(lengthscale=0.8, lengthscale_prior=GammaPrior(2.0, 2.0))
    * Matern(lengthscale=1.2, nu=2.5, variance_bounds="fixed"),
]


@pytest.mark.parametrize("profile", [False, True])
@pytest.mark.parametrize("kernel", KERNELS_WITH_PRIORS, ids=repr)
def test_prior_gradient_in_the_objective_equals_finite_differences(kernel, profile) -> None:
    X, y = _data(n=15, d=2, seed=2)
    work = kernel.clone()
    theta0 = np.append(work.theta, math.log(0.05))

    def value_and_grad(theta: np.ndarray) -> tuple[float, np.ndarray]:
        work.theta = theta[:-1]
        return _log_posterior(
            work, X, y, math.exp(theta[-1]), True, profile=profile, priors=work.has_priors
        )

    value, grad = value_and_grad(theta0)
    work.theta = theta0[:-1]
    assert work.log_prior()[0] != 0.0  # the prior is in there
    h = 1e-6
    fd = np.array(
        [
            (value_and_grad(theta0 + h * e)[0] - value_and_grad(theta0 - h * e)[0]) / (2 * h)
            for e in np.eye(theta0.size)
        ]
    )
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)
    # the objective is the likelihood plus the prior, nothing else
    work.theta = theta0[:-1]
    plain = work.clone().set_params(**_no_priors(work))
    likelihood = _log_posterior(plain, X, y, 0.05, True, profile=profile, priors=False)[0]
    assert value == pytest.approx(likelihood + work.log_prior()[0], rel=1e-12)


def _no_priors(kernel) -> dict:
    params = kernel.get_params(deep=True)
    return {k: None for k, v in params.items() if k.endswith("_prior") and v is not None}


def test_priors_leave_log_marginal_likelihood_the_likelihood() -> None:
    X, y = _data(n=15, d=2, seed=3)
    with_prior = GaussianProcessRegressor(KERNELS_WITH_PRIORS[0], optimizer=None).fit(X, y)
    plain_kernel = KERNELS_WITH_PRIORS[0].clone().set_params(lengthscale_prior=None)
    plain = GaussianProcessRegressor(plain_kernel, optimizer=None).fit(X, y)
    theta = with_prior.theta_ + 0.1
    assert with_prior.log_marginal_likelihood(theta) == plain.log_marginal_likelihood(theta)
    np.testing.assert_array_equal(
        with_prior.log_marginal_likelihood(theta, eval_gradient=True)[1],
        plain.log_marginal_likelihood(theta, eval_gradient=True)[1],
    )
    assert with_prior.log_prior_value_ == with_prior.kernel_.log_prior()[0] < 0
    assert plain.log_prior_value_ == 0.0
