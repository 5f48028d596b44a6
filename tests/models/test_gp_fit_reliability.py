"""The GP's hyperparameter search never stops at its start unnoticed (issue 28 §1).

The search is :func:`kernelkit._lbfgs.minimize_bounded` (tested on its own in
``tests/test_lbfgs.py``); these tests hold the estimator to its promise: the fitted log
marginal likelihood is never below the start's, a search that could not reach a
stationary point says so, and constant or extreme targets are fitted, not skipped.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from kernelkit.kernels import RBF, Matern, RationalQuadratic
from kernelkit.models import GaussianProcessRegressor


def _sines(n: int, d: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, d))
    return X, np.sin(X).sum(1) + 0.1 * rng.standard_normal(n)


def _start(gp: GaussianProcessRegressor) -> np.ndarray:
    """The search's start laid out as ``theta_``: the given hyperparameters, clipped."""
    kernel = gp.kernel if gp.kernel is not None else RBF()
    theta, bounds = kernel.theta, kernel.bounds
    if gp.theta_names_[-1:] == ["noise"]:
        theta = np.append(theta, math.log(gp.noise))
        bounds = np.vstack([bounds, np.log(gp.noise_bounds)])
    return np.clip(theta, bounds[:, 0], bounds[:, 1])


def _sklearn_lml(X: np.ndarray, y: np.ndarray, d: int, noise: float, noise_bounds) -> float:
    """scikit-learn's fitted LML for C * RBF(ARD) + White, from kernelkit's start."""
    from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
    from sklearn.gaussian_process.kernels import RBF as SkRBF
    from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel

    kernel = ConstantKernel(1.0, (1e-5, 1e5)) * SkRBF(np.ones(d), (1e-5, 1e5)) + WhiteKernel(
        noise, noise_bounds
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sk = SkGPR(kernel, alpha=0.0).fit(X, y)
    return float(sk.log_marginal_likelihood_value_)


def test_a_first_step_into_an_infeasible_corner_does_not_end_the_search() -> None:
    # On main this fit returned its start with success=True, nit=1 and no warning: the
    # first L-BFGS-B step went to the corner of the box (lengthscales 1e5, noise/variance
    # at its floor), where K + noise*I is singular, and SciPy handed back the start.
    X, y = _sines(200, 3)
    gp = GaussianProcessRegressor(RBF(lengthscale=np.ones(3)), noise=1.0, noise_bounds=(1e-12, 1e5))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # a clean, stationary optimum
        gp.fit(X, y)
    res = gp.optimizer_result_
    assert res.success and res.nit > 3
    start = gp.log_marginal_likelihood(_start(gp))
    assert gp.log_marginal_likelihood_value_ > start + 100.0
    assert not np.allclose(gp.kernel_.lengthscale, 1.0)
    # and as good as scikit-learn's fit of the same model from the same start
    ours = gp.log_marginal_likelihood_value_
    theirs = _sklearn_lml(X, y, 3, 1.0, (1e-12, 1e5))
    assert ours >= theirs - 1e-6 * abs(theirs)


@pytest.mark.slow
def test_the_issue_snippet_fits_as_well_as_scikit_learn() -> None:
    # issue 28 §1: n = 2000, d = 5, the default noise and noise bounds
    X, y = _sines(2000, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        gp = GaussianProcessRegressor(RBF(lengthscale=np.ones(5))).fit(X, y)
    assert gp.optimizer_result_.success
    assert not np.allclose(gp.kernel_.lengthscale, 1.0)
    theirs = _sklearn_lml(X, y, 5, 1e-2, (1e-8, 1e5))
    assert gp.log_marginal_likelihood_value_ >= theirs - 1e-6 * abs(theirs)


def test_a_search_that_stops_short_warns_saying_what_happened(monkeypatch) -> None:
    # an objective whose gradient is wrong: the search cannot reach a stationary point,
    # and the warning says where it stopped, not that it converged
    import kernelkit.models.gp as gp_module

    original = gp_module._log_posterior

    def wrong_gradient(*args, **kwargs):
        value, grad = original(*args, **kwargs)
        return value, np.full_like(grad, -50.0) if np.isfinite(value) else grad

    monkeypatch.setattr(gp_module, "_log_posterior", wrong_gradient)
    X, y = _sines(40, 2)
    with pytest.warns(ConvergenceWarning, match="did not reach a stationary point.*gradient"):
        gp = GaussianProcessRegressor(RBF(lengthscale=[1.0, 1.0])).fit(X, y)
    assert not gp.optimizer_result_.success


@pytest.mark.parametrize("normalize_y, value", [(True, 5.0), (True, 0.0), (False, 0.0)])
def test_constant_targets_are_fitted_with_a_warning_that_says_why(normalize_y, value) -> None:
    # a CV fold or a flat region of a BO objective: the search runs (no longer skipped)
    # and the warning names the real cause, not a failed factorisation
    X, _ = _sines(30, 2)
    y = np.full(30, value)
    gp = GaussianProcessRegressor(RBF(lengthscale=[1.0, 1.0]), normalize_y=normalize_y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gp.fit(X, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert any("targets are" in m and "without bound" in m for m in messages), messages
    assert not any("positive definite" in m for m in messages), messages
    assert gp.optimizer_result_ is not None and np.isfinite(gp.optimizer_result_.fun)
    assert gp.log_marginal_likelihood_value_ > gp.log_marginal_likelihood(_start(gp))
    mean, std = gp.predict(X[:5], return_std=True)
    np.testing.assert_allclose(mean, value, atol=1e-6)
    assert np.all(np.isfinite(std))


@pytest.mark.parametrize("scale", [1e-150, 1e-20, 1e20, 1e150, 1e300])
def test_normalised_targets_of_any_magnitude_give_the_same_fit(scale) -> None:
    # normalize_y: the fit of c * y is that of y, mapped back (the standardised targets
    # differ only by rounding)
    X, y = _sines(60, 2)
    kw = dict(kernel=RBF(lengthscale=[1.0, 1.0]), normalize_y=True)
    ref = GaussianProcessRegressor(**kw).fit(X, y)
    gp = GaussianProcessRegressor(**kw).fit(X, scale * y)
    np.testing.assert_allclose(gp.kernel_.theta, ref.kernel_.theta, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gp.noise_, ref.noise_, rtol=1e-3)
    mean, std = gp.predict(X[:7], return_std=True)
    mean_ref, std_ref = ref.predict(X[:7], return_std=True)
    np.testing.assert_allclose(mean / scale, mean_ref, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(std / scale, std_ref, rtol=1e-3)


@pytest.mark.parametrize("scale", [1e-150, 1e-60, 1e60, 1e154])
def test_raw_targets_of_any_magnitude_are_fitted_not_skipped(scale) -> None:
    # without normalize_y the signal variance must reach the targets' scale: the profile
    # search fits the lengthscales scale-free, and the variance ends at the bound that
    # stops it (with a warning naming it), never at the start with a false
    # "not positive definite"
    X, y = _sines(60, 2)
    gp = GaussianProcessRegressor(RBF(lengthscale=[1.0, 1.0]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gp.fit(X, scale * y)
    messages = [str(w.message) for w in caught]
    assert any("variance is at its" in m for m in messages), messages
    assert not any("positive definite" in m for m in messages), messages
    assert gp.log_marginal_likelihood_value_ >= gp.log_marginal_likelihood(_start(gp))
    assert np.isfinite(gp.log_marginal_likelihood_value_)
    assert not np.allclose(gp.kernel_.lengthscale, 1.0)  # fitted, not the start
    mean = gp.predict(X[:7])
    assert np.all(np.isfinite(mean))
    if scale > 1:
        # the variance at its upper bound is still far below the targets' scale, so the
        # fit follows them (for tiny targets the likelihood is all log-determinant, and
        # the ML fit at the variance's floor is smooth: no such check)
        assert np.corrcoef(mean / scale, y[:7])[0, 1] > 0.9


@pytest.mark.parametrize(
    "scale, variance_bounds", [(1e300, (1e-5, 1.0)), (1e160, (1e-5, 1e5)), (1e300, "fixed")]
)
def test_targets_beyond_what_the_bounded_variance_can_model_raise_a_clear_error(
    scale, variance_bounds
) -> None:
    # y^T (K + noise I)^-1 y is beyond float64 for every variance the bounds allow
    X, y = _sines(20, 1)
    gp = GaussianProcessRegressor(RBF(variance_bounds=variance_bounds))
    with (
        pytest.raises(ValueError, match=r"y is too large.*normalize_y=True"),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", ConvergenceWarning)
        gp.fit(X, scale * y)


_KERNELS = {
    "rbf": lambda d: RBF(lengthscale=np.ones(d)),
    "matern32": lambda d: Matern(lengthscale=np.ones(d), nu=1.5),
    "rq": lambda d: RationalQuadratic(lengthscale=1.0),
}


def _check_never_below_the_start(
    seed: int, n: int, d: int, log_scale: float, normalize_y: bool, kernel: str, noise: float
) -> None:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, d))
    f = np.sin(X @ rng.standard_normal(d)) + rng.standard_normal() * X[:, 0]
    y = 10.0**log_scale * (f + 0.1 * rng.standard_normal(n))
    gp = GaussianProcessRegressor(_KERNELS[kernel](d), noise=noise, normalize_y=normalize_y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # bounds reached: fine here
        gp.fit(X, y)
    lml = gp.log_marginal_likelihood_value_
    start = gp.log_marginal_likelihood(_start(gp))
    assert np.isfinite(lml)
    assert lml >= start - 1e-9 * max(1.0, abs(lml))
    assert np.all(np.isfinite(gp.predict(X[:3])))


@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 60),
    d=st.integers(1, 4),
    log_scale=st.floats(-150.0, 150.0),
    normalize_y=st.booleans(),
    kernel=st.sampled_from(sorted(_KERNELS)),
    noise=st.sampled_from([1e-6, 1e-2, 1.0, 100.0]),
)
@settings(max_examples=40, deadline=None, derandomize=True)
def test_the_fitted_lml_is_never_below_the_start(
    seed, n, d, log_scale, normalize_y, kernel, noise
) -> None:
    _check_never_below_the_start(seed, n, d, log_scale, normalize_y, kernel, noise)


@pytest.mark.slow
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.sampled_from([500, 2000]),
    d=st.integers(1, 6),
    log_scale=st.floats(-150.0, 150.0),
    normalize_y=st.booleans(),
    kernel=st.sampled_from(sorted(_KERNELS)),
    noise=st.sampled_from([1e-6, 1e-2, 1.0]),
)
@settings(max_examples=6, deadline=None, derandomize=True)
def test_the_fitted_lml_is_never_below_the_start_at_realistic_sizes(
    seed, n, d, log_scale, normalize_y, kernel, noise
) -> None:
    _check_never_below_the_start(seed, n, d, log_scale, normalize_y, kernel, noise)


def test_the_bayesian_optimisers_surrogate_gets_the_same_guarantee() -> None:
    # the BO surrogate is this GP: told the data of the infeasible-corner case, its fit
    # moves away from its start (the surrogate's own bounds and noise)
    from kernelkit.optimize import BayesianOptimizer

    X, y = _sines(200, 3)
    opt = BayesianOptimizer(
        None,
        np.tile([-3.0, 3.0], (3, 1)),
        n_initial=1,
        noise=1.0,
        noise_bounds=(1e-12, 1e5),
        random_state=0,
    )
    for x, v in zip(X, y, strict=True):
        opt.tell(x, v)
    opt.ask(2)  # the design's one point, then one chosen by the surrogate
    gp = opt.gp_
    assert gp is not None and gp.optimizer_result_.success
    assert gp.log_marginal_likelihood_value_ > gp.log_marginal_likelihood(_start(gp)) + 10.0
