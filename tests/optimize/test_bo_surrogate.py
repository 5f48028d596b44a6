"""Hyperparameter fitting of the BO surrogate: MLE agrees with the regressor, MAP prior."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import Matern
from kernelkit.models import GaussianProcessRegressor
from kernelkit.optimize import BayesianOptimizer, default_kernel, get_function
from kernelkit.optimize.surrogate import fit_map


def _data(seed=0, n=12):
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, 2))
    y = np.sin(5 * X[:, 0]) + 0.05 * X[:, 1]  # the second input is nearly irrelevant
    return X, y


@pytest.mark.filterwarnings("ignore::kernelkit.models.NoiseAtBoundWarning")
@pytest.mark.filterwarnings("ignore:the fitted lengthscale:sklearn.exceptions.ConvergenceWarning")
# noise-free data: the noise at its floor, the nearly irrelevant input's lengthscale at its bound
def test_maximum_likelihood_matches_the_regressor():
    X, y = _data()
    kw = dict(noise=1e-4, noise_bounds=(1e-8, 1.0), normalize_y=True)
    ours = fit_map(
        default_kernel(2), X, y, lengthscale_prior=None, n_restarts=3, random_state=0, **kw
    )
    ref = GaussianProcessRegressor(default_kernel(2), n_restarts=3, random_state=0, **kw)
    ref.fit(X, y)
    assert ours.log_marginal_likelihood_value_ >= ref.log_marginal_likelihood_value_ - 1e-6
    assert ours.log_marginal_likelihood() == pytest.approx(ours.log_marginal_likelihood_value_)


def test_gamma_prior_pulls_lengthscales_in():
    X, y = _data()
    kw = dict(noise=1e-4, noise_bounds=(1e-8, 1.0), n_restarts=2, random_state=0)
    mle = fit_map(default_kernel(2), X, y, lengthscale_prior=None, **kw)
    gamma = fit_map(default_kernel(2), X, y, lengthscale_prior=(3.0, 6.0), **kw)
    assert mle.kernel_.lengthscale[1] > 2.0  # MLE calls the second input irrelevant
    assert gamma.kernel_.lengthscale[1] < mle.kernel_.lengthscale[1] / 2
    # MAP trades likelihood for prior mass
    assert gamma.log_marginal_likelihood_value_ <= mle.log_marginal_likelihood_value_


def test_fixed_noise_is_kept():
    X, y = _data()
    gp = fit_map(Matern(lengthscale=0.5), X, y, noise=1e-3, noise_bounds="fixed", random_state=0)
    assert gp.noise_ == 1e-3


def test_optimizer_with_a_lengthscale_prior_runs():
    f = get_function("branin")
    res = BayesianOptimizer(f, n_initial=5, lengthscale_prior=(3.0, 6.0), random_state=0).run(8)
    assert res.n_evaluations == 8 and np.isfinite(res.y_best)


@pytest.mark.parametrize("prior", [(0.0, 1.0), (3.0, -1.0), "gamma", (1.0,)])
def test_bad_lengthscale_prior(prior):
    with pytest.raises(ValueError, match="lengthscale_prior"):
        BayesianOptimizer(get_function("branin"), lengthscale_prior=prior)
