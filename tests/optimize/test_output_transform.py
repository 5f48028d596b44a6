"""Monotone output transforms of the Bayesian optimiser (kernelkit.optimize.output_transform)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from kernelkit.optimize import BayesianOptimizer
from kernelkit.optimize.output_transform import OutputTransform, fit_output_transform

FINITE = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(2, 30), elements=FINITE), st.sampled_from(["power", "rank"]))
# one value among ties: the ML exponent runs off (to about +-13.4) unless clipped
@example(np.r_[263.0, np.zeros(29)], "power")
@example(np.r_[0.0, np.ones(24)], "power")
def test_the_maps_are_increasing_and_invert_on_the_data(g, method):
    t = fit_output_transform(g, method)
    z = t.transform(g)
    assert np.all(np.isfinite(z))
    order = np.argsort(g, kind="stable")
    assert np.all(np.diff(z[order]) >= 0)  # order kept (ties stay ties)
    if t.method != "none":
        spread = float(np.ptp(g))
        np.testing.assert_allclose(t.inverse(z), g, rtol=1e-9, atol=1e-9 * spread)


def test_rank_gives_the_normal_scores_with_ties_sharing_their_mean_rank():
    g = np.array([3.0, -1.0, 3.0, 10.0])
    z = fit_output_transform(g, "rank").transform(g)
    ranks = np.array([2.5, 1.0, 2.5, 4.0])
    np.testing.assert_allclose(z, scipy.stats.norm.ppf((ranks - 0.5) / 4))
    # between and beyond the data: the lines through the knots
    t = fit_output_transform(g, "rank")
    mid = t.transform(np.array([6.5]))[0]
    np.testing.assert_allclose(mid, (z[0] + z[3]) / 2)
    assert t.transform(np.array([20.0]))[0] > z[3]


@pytest.mark.parametrize("lmbda", [-1.5, 0.0, 0.7, 1.0, 2.0, 3.2])
def test_the_power_maps_inverse_and_jacobian_are_right(lmbda):
    t = OutputTransform("power", location=0.5, scale=2.0, lmbda=lmbda)
    g = np.linspace(-6.0, 7.0, 41)
    np.testing.assert_allclose(t.inverse(t.transform(g)), g, rtol=1e-10, atol=1e-10)
    # log Jacobian against central differences of the map
    h = 1e-6
    slope = (t.transform(g + h) - t.transform(g - h)) / (2 * h)
    np.testing.assert_allclose(t.log_jacobian(g), np.log(slope).sum(), rtol=1e-6)


def test_the_power_exponent_pulls_in_a_long_tail_and_leaves_normal_values_alone():
    rng = np.random.default_rng(0)
    assert fit_output_transform(np.exp(3 * rng.standard_normal(200)), "power").lmbda < 0.5
    assert abs(fit_output_transform(rng.standard_normal(200), "power").lmbda - 1) < 0.3


@pytest.mark.parametrize("g", [[1e-300, 2e-300, 5e-300], [1e300, -1e300, 1e299], [7.0, 7.0]])
def test_any_magnitude_gives_a_finite_map(g):
    g = np.array(g)
    t = fit_output_transform(g, "power")
    assert np.all(np.isfinite(t.transform(g)))
    if np.unique(g).size < 2:
        assert t.method == "none"  # nothing to estimate an exponent from


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="method must be one of"):
        fit_output_transform(np.array([1.0, 2.0]), "log")
    with pytest.raises(ValueError, match="finite values"):
        fit_output_transform(np.array([1.0, np.nan]), "power")
    with pytest.raises(ValueError, match="rank transform has no Jacobian"):
        fit_output_transform(np.array([1.0, 2.0]), "rank").log_jacobian(np.array([1.0]))
    with pytest.raises(ValueError, match="output_transform"):
        BayesianOptimizer(None, [(0.0, 1.0)], output_transform="log")


def _evidence(opt):
    """The optimiser's last surrogate's log likelihood of the values g themselves."""
    gp, t = opt.gp_, opt.output_transform_
    g = t.inverse(gp.y_train_)
    return (
        gp.log_marginal_likelihood_value_
        - g.size * math.log(float(gp.y_train_std_))
        + t.log_jacobian(g)
        - (t.method == "power")
    )


def _told(mode, f, n=14, seed=0):
    opt = BayesianOptimizer(
        None, [(0.0, 1.0)], n_initial=n, output_transform=mode, random_state=seed
    )
    for x in opt.ask(n):
        opt.tell(x, f(x[0]))
    opt.ask()  # fits the surrogate
    return opt


def test_auto_keeps_the_map_that_explains_the_values_better():
    # a spike of 1e5 among values near 0: transformed; a straight line: left alone
    def spiky(x):
        return (x - 0.3) ** 2 + (1e5 if x > 0.85 else 0.0)

    for f, method in [(spiky, "power"), (lambda x: 2.0 * x - 1.0, "none")]:
        auto = _told("auto", f)
        assert auto.output_transform_.method == method
        # and its choice has the larger likelihood of the two optimisers fitted apart
        none, power = _told("none", f), _told("power", f)
        assert _evidence(auto) >= min(_evidence(none), _evidence(power)) - 1e-6
        assert max(_evidence(none), _evidence(power)) - _evidence(auto) < 1.0


def test_auto_keeps_the_values_with_fewer_than_five_distinct_ones():
    opt = _told("auto", lambda x: float(x > 0.5) * 1e6, n=8)
    assert opt.output_transform_.method == "none"


def test_the_models_predict_the_objective_through_the_inverse_map():
    def spiky(x):
        return (x - 0.3) ** 2 + (1e5 if x > 0.85 else 0.0)

    opt = _told("power", spiky)
    res = opt.result()
    model = res.models[-1]
    Z = np.linspace(0, 1, 7)[:, None]
    z_mean, z_std = opt.gp_.predict(Z, return_std=True)
    t = opt.output_transform_
    mean, std = model.predict(Z, return_std=True)
    np.testing.assert_allclose(mean, -t.inverse(z_mean))  # minimised: the GP modelled -f
    np.testing.assert_allclose(std, (t.inverse(z_mean + z_std) - t.inverse(z_mean - z_std)) / 2)
    # at the evaluated points the model reproduces the values (nearly noise-free fit)
    np.testing.assert_allclose(model.predict(res.X[:4]), res.y[:4], rtol=1e-3, atol=1e-3)
