"""kernelkit._lbfgs: bound-constrained L-BFGS-B that cannot stop at its start unnoticed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelkit._lbfgs import minimize_bounded, projected_gradient


def _bowl_with_a_hole(scale: float, centre: np.ndarray, radius: float):
    """``scale * |x - centre|^2``, +inf where ``|x| > radius`` (the corner of the box)."""

    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        if float(np.max(np.abs(x))) > radius:
            return math.inf, np.zeros_like(x)
        r = x - centre
        return scale * float(r @ r), 2.0 * scale * r

    return fun


def test_a_large_gradient_and_an_infeasible_corner_do_not_stop_the_search() -> None:
    # The mechanism of the GP fit that returned its start: every variable bounded, a
    # gradient of several hundred (the first unit-Hessian step goes to the box's corner)
    # and +inf there. The minimum lies inside the feasible region.
    centre = np.array([1.0, 1.2, 0.8, 1.1])
    fun = _bowl_with_a_hole(400.0, centre, radius=3.0)
    bounds = np.tile([-11.5, 11.5], (4, 1))
    res = minimize_bounded(fun, np.zeros(4), bounds)
    assert res.success, res.message
    np.testing.assert_allclose(res.x, centre, atol=1e-4)
    assert res.fun < 1e-6 < res.fun0
    assert res.projected_gradient <= 1e-2


def test_a_minimum_beyond_the_infeasible_region_is_approached_from_inside() -> None:
    # the unconstrained minimum (5) lies where the objective is +inf: the search must end
    # near the edge of the feasible region (|x| <= 3), never in it or at the start
    fun = _bowl_with_a_hole(100.0, np.array([5.0]), radius=3.0)
    res = minimize_bounded(fun, np.array([0.0]), np.array([[-10.0, 10.0]]))
    assert 2.9 < res.x[0] <= 3.0
    assert math.isfinite(res.fun) and res.fun < res.fun0


def test_a_start_where_the_objective_is_not_finite_is_reported() -> None:
    fun = _bowl_with_a_hole(1.0, np.zeros(2), radius=1.0)
    res = minimize_bounded(fun, np.array([2.0, 0.0]), np.tile([-5.0, 5.0], (2, 1)))
    assert res.fun == math.inf and not res.success
    assert "not finite at the start" in res.message
    np.testing.assert_array_equal(res.x, [2.0, 0.0])


def test_nan_values_count_as_infeasible() -> None:
    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        if x[0] > 1.0:
            return math.nan, np.full(1, math.nan)
        return float((x[0] - 2.0) ** 2), np.array([2.0 * (x[0] - 2.0)])

    res = minimize_bounded(fun, np.array([-3.0]), np.array([[-5.0, 5.0]]))
    assert 0.9 < res.x[0] <= 1.0 and math.isfinite(res.fun)


def test_a_search_that_cannot_reach_a_stationary_point_says_so() -> None:
    # a wrong gradient (a constant, of the wrong sign) : the line searches fail, the
    # objective cannot be decreased along -g, and the end point is not stationary
    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        return float((x[0] - 3.0) ** 2), np.array([50.0])

    res = minimize_bounded(fun, np.array([0.0]), np.array([[-10.0, 10.0]]))
    assert not res.success
    assert "projected gradient is still" in res.message
    assert res.fun <= res.fun0  # never worse than the start


def test_an_active_bound_does_not_count_against_stationarity() -> None:
    # minimum beyond the upper bound: the end point sits on it with a nonzero gradient
    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        return float((x[0] - 4.0) ** 2 + (x[1] + 1.0) ** 2), np.array(
            [2.0 * (x[0] - 4.0), 2.0 * (x[1] + 1.0)]
        )

    bounds = np.array([[-2.0, 2.0], [-2.0, 2.0]])
    res = minimize_bounded(fun, np.zeros(2), bounds)
    assert res.success
    np.testing.assert_allclose(res.x, [2.0, -1.0], atol=1e-6)
    assert res.jac[0] == pytest.approx(-4.0, abs=1e-5)


def test_projected_gradient_zeroes_only_components_pushing_outwards() -> None:
    bounds = np.array([[0.0, 1.0]] * 4)
    x = np.array([0.0, 0.0, 1.0, 1.0])
    g = np.array([1.0, -1.0, -1.0, 1.0])
    np.testing.assert_array_equal(projected_gradient(x, g, bounds), [0.0, -1.0, 0.0, 1.0])


@given(
    seed=st.integers(0, 2**31 - 1),
    dims=st.integers(1, 5),
    log_scale=st.floats(-3.0, 4.0),
    radius=st.floats(0.5, 8.0),
)
@settings(max_examples=60, deadline=None, derandomize=True)
def test_never_worse_than_the_start(seed: int, dims: int, log_scale: float, radius: float) -> None:
    # random ill-scaled quadratics with an infeasible outside: the result is finite, at
    # most the start's value, within the bounds and inside the feasible region
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((dims, dims))
    H = 10.0**log_scale * (A @ A.T + 0.1 * np.eye(dims))
    centre = rng.uniform(-10, 10, dims)

    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        if float(np.max(np.abs(x))) > radius:
            return math.inf, np.zeros(dims)
        r = x - centre
        return 0.5 * float(r @ H @ r), H @ r

    x0 = rng.uniform(-radius, radius, dims) * 0.5
    bounds = np.tile([-11.5, 11.5], (dims, 1))
    res = minimize_bounded(fun, x0, bounds)
    assert math.isfinite(res.fun) and res.fun <= res.fun0
    assert float(np.max(np.abs(res.x))) <= radius
    assert fun(res.x)[0] == res.fun


def test_a_small_gradient_at_the_start_still_gets_a_search() -> None:
    # a gentle slope: the gradient (1e-3) is below the stationarity tolerance, but the
    # objective still falls by 1 across the box; the first run always goes
    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        return -1e-3 * float(x[0]), np.array([-1e-3])

    res = minimize_bounded(fun, np.array([0.0]), np.array([[0.0, 1000.0]]))
    assert res.x[0] == pytest.approx(1000.0) and res.success
