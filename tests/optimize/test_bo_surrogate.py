"""The BO surrogate is a GaussianProcessRegressor fitted by its own optimiser: maximum
likelihood by default, MAP with ``lengthscale_prior`` (a Prior attached to the kernel)."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import RBF, GammaPrior, Linear, Matern
from kernelkit.models import GaussianProcessRegressor
from kernelkit.optimize import BayesianOptimizer, default_kernel, get_function

BRANIN = get_function("branin")


def _data(seed=0, n=12):
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, 2))
    y = np.sin(5 * X[:, 0]) + 0.05 * X[:, 1]  # the second input is nearly irrelevant
    return X, y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_gamma_prior_pulls_lengthscales_in():
    # what lengthscale_prior is for: maximum likelihood declares the second input
    # irrelevant (a lengthscale far beyond the box), the Gamma(3, 6) prior keeps it in
    X, y = _data()
    kw = dict(noise=1e-4, noise_bounds=(1e-8, 1.0), normalize_y=True, n_restarts=2)
    mle = GaussianProcessRegressor(default_kernel(2), random_state=0, **kw).fit(X, y)
    kernel = default_kernel(2).set_params(lengthscale_prior=GammaPrior(3.0, 6.0))
    gamma = GaussianProcessRegressor(kernel, random_state=0, **kw).fit(X, y)
    assert mle.kernel_.lengthscale[1] > 2.0
    assert gamma.kernel_.lengthscale[1] < mle.kernel_.lengthscale[1] / 2
    # MAP trades likelihood for prior mass
    assert gamma.log_marginal_likelihood_value_ <= mle.log_marginal_likelihood_value_
    assert (
        gamma.log_marginal_likelihood_value_ + gamma.log_prior_value_
        >= mle.log_marginal_likelihood_value_ + gamma.kernel_.log_prior(mle.kernel_.theta)[0]
    )


def _surrogate_args(opt: BayesianOptimizer) -> dict:
    return {k: getattr(opt.gp_, k) for k in ("noise_bounds", "normalize_y", "n_restarts")}


def test_the_surrogate_is_fitted_by_the_regressor_itself():
    opt = BayesianOptimizer(BRANIN, n_initial=5, n_restarts=1, random_state=0)
    opt.run(7)
    gp = opt.gp_
    assert isinstance(gp, GaussianProcessRegressor)
    assert gp.optimizer == "lbfgs" and gp.optimizer_result_ is not None
    assert _surrogate_args(opt) == {
        "noise_bounds": opt.noise_bounds,
        "normalize_y": True,
        "n_restarts": 1,
    }
    assert gp.log_prior_value_ == 0.0  # maximum likelihood by default
    assert isinstance(gp.random_state, int)  # seeded from the optimiser's random_state


def test_lengthscale_prior_is_attached_to_the_kernel():
    prior = GammaPrior(3.0, 6.0)
    opt = BayesianOptimizer(BRANIN, n_initial=5, lengthscale_prior=prior, random_state=0)
    res = opt.run(8)
    assert res.n_calls == 8 and np.isfinite(res.y_best)
    assert opt.gp_.kernel_.lengthscale_prior == prior
    assert opt.gp_.log_prior_value_ == opt.gp_.kernel_.log_prior()[0] != 0.0
    assert opt.lengthscale_prior is prior


def test_lengthscale_prior_reaches_every_lengthscale_of_a_composite_kernel():
    kernel = RBF(lengthscale=[0.5, 0.5]) * Matern(lengthscale=0.3, variance_bounds="fixed")
    prior = GammaPrior(2.0, 4.0)
    opt = BayesianOptimizer(BRANIN, kernel=kernel, lengthscale_prior=prior, random_state=0)
    opt.run(6)
    fitted = opt.gp_.kernel_.get_params(deep=True)
    assert fitted["k1__lengthscale_prior"] == prior and fitted["k2__lengthscale_prior"] == prior
    assert kernel.k1.lengthscale_prior is None  # the user's kernel is left alone


def test_a_prior_needs_a_lengthscale():
    with pytest.raises(ValueError, match="lengthscale_prior needs a kernel with a lengthscale"):
        BayesianOptimizer(BRANIN, kernel=Linear(), lengthscale_prior=GammaPrior(3.0, 6.0))


def test_fixed_noise_is_kept():
    opt = BayesianOptimizer(BRANIN, noise=1e-3, noise_bounds="fixed", random_state=0)
    opt.run(7)
    assert opt.gp_.noise_ == 1e-3


@pytest.mark.parametrize("prior", [(3.0, 6.0), "gamma", 1.0])
def test_bad_lengthscale_prior(prior):
    with pytest.raises(TypeError, match="lengthscale_prior must be None or a kernelkit"):
        BayesianOptimizer(BRANIN, lengthscale_prior=prior)
