"""kernelkit.optimize: no best point before a told value, NaN refused, extremes named.

The house rule: finite input of any magnitude gives a finite, correct result or a clear
error naming the argument; NaN is refused where it is no value (``log_h``, the test
functions), never passed on.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import kernelkit.optimize.acquisition as acquisition_module
from kernelkit.optimize import (
    BayesianOptimizer,
    ExpectedImprovement,
    LogExpectedImprovement,
    LogProbabilityOfImprovement,
    ProbabilityOfImprovement,
    function_names,
    get_function,
    log_h,
    maximize_acquisition,
    sobol_points,
)
from kernelkit.optimize.plots import plot_convergence, plot_regret_bands, plot_step
from kernelkit.optimize.search import _SOBOL_MAX_DIMS

# ---------------------------------------------------------------- result before any tell


def test_no_best_point_before_any_tell():
    """x_best was [nan] and y_best nan; now the history is there and the best point
    raises scikit-learn's NotFittedError (a ValueError) saying why."""
    opt = BayesianOptimizer(None, [(0.0, 1.0), (-1.0, 1.0)])
    res = opt.result()
    assert res.n_calls == 0 and res.X.shape == (0, 2)
    for name in ("x_best", "y_best"):
        with pytest.raises(NotFittedError, match="no point has been told yet"):
            getattr(res, name)
    assert not hasattr(res, "x_best")  # NotFittedError is an AttributeError too
    with pytest.raises(ValueError, match="no point has been told yet"):  # and a ValueError
        res.x_best  # noqa: B018


def test_no_best_point_while_every_evaluation_failed():
    opt = BayesianOptimizer(None, [(0.0, 1.0)])
    opt.tell([0.5], None, error="timeout")
    opt.tell([0.25], float("nan"))
    res = opt.result()
    assert res.n_failed == 2
    with pytest.raises(NotFittedError, match=r"all 2 evaluations failed \(first error: timeout\)"):
        res.y_best  # noqa: B018
    opt.tell([0.75], 3.0)
    res = opt.result()
    assert res.y_best == 3.0 and res.x_best.tolist() == [0.75]


def test_best_point_follows_maximize():
    opt = BayesianOptimizer(None, [(0.0, 1.0)], maximize=True)
    for x, y in ((0.1, 1.0), (0.2, 5.0), (0.3, float("inf")), (0.4, 2.0)):
        opt.tell([x], y)
    res = opt.result()
    assert res.y_best == 5.0 and res.x_best.tolist() == [0.2]
    res.x_best[0] = 9.0  # a copy
    assert opt.result().x_best.tolist() == [0.2]


def test_regret_refuses_a_non_finite_or_missing_optimum():
    opt = BayesianOptimizer(None, [(0.0, 1.0)])
    opt.tell([0.5], 1.0)
    res = opt.result()
    assert res.regret(0.5).tolist() == [0.5]
    with pytest.raises(ValueError, match="optimum must be a finite number, got nan"):
        res.regret(float("nan"))
    with pytest.raises(TypeError, match="optimum must be a real number, got NoneType"):
        res.regret(None)
    with pytest.raises(ValueError, match="optimum must be a finite number"):
        plot_convergence(res, minimum=math.inf)


def test_tell_names_a_point_that_is_not_numbers():
    opt = BayesianOptimizer(None, [(0.0, 1.0)])
    with pytest.raises(TypeError, match=r"x must be a point with 1 coordinate\(s\), got NoneType"):
        opt.tell(None, 1.0)
    with pytest.raises(TypeError, match=r"x must be a point with 1 coordinate\(s\), got str"):
        opt.tell("0.5", 1.0)
    with pytest.raises(TypeError, match="x must be an array of numbers"):
        opt.tell([{0.5}], 1.0)
    assert opt.result().n_calls == 0


# ---------------------------------------------------------------- log_h


@pytest.mark.parametrize("z", [math.nan, [0.0, math.nan], np.array([[1.0], [np.nan]])])
def test_log_h_refuses_nan(z):
    with pytest.raises(ValueError, match="z contains NaN"):
        log_h(z)


def test_log_h_refuses_non_numbers():
    with pytest.raises(TypeError, match="z must be an array of numbers, got NoneType"):
        log_h(None)
    with pytest.raises(TypeError, match="z must be an array of numbers, got str"):
        log_h("0.5")


def test_log_h_infinite_limits_and_finite_values():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = log_h([-np.inf, -1e300, -3.0, 0.0, 2.0, 1e300, np.inf])
    assert out[0] == -np.inf and out[-1] == np.inf
    assert np.isfinite(out[2:5]).all() and out[1] == -np.inf  # -z^2/2 beyond the range
    z = np.array([-3.0, 0.0, 2.0])
    phi = np.exp(-0.5 * z**2) / math.sqrt(2 * math.pi)
    cdf = 0.5 * np.array([math.erfc(-v / math.sqrt(2)) for v in z])
    np.testing.assert_allclose(out[2:5], np.log(phi + z * cdf), rtol=1e-12)
    assert log_h(np.empty(0)).shape == (0,)


def test_acquisitions_do_not_go_through_the_checked_log_h(monkeypatch):
    """The search evaluates log EI thousands of times on arrays it built: the NaN check
    belongs to the public log_h only, not to that loop."""

    def refuse(z):
        raise AssertionError("the public log_h was called inside an acquisition")

    monkeypatch.setattr(acquisition_module, "log_h", refuse)
    acq = LogExpectedImprovement(0.0)
    v = acq([0.0, -5.0], [1.0, 0.5], best=0.0)
    np.testing.assert_allclose(v[0], math.log(1 / math.sqrt(2 * math.pi)), rtol=1e-14)
    acq.value_and_gradient([0.0], [1.0], 0.0, [[1.0]], [[0.0]])


@pytest.mark.parametrize(
    "acq",
    [
        ExpectedImprovement(0.0),
        LogExpectedImprovement(0.0),
        ProbabilityOfImprovement(0.0),
        LogProbabilityOfImprovement(0.0),
    ],
    ids=lambda a: a.name,
)
def test_margin_beyond_float64_is_named(acq):
    """mean - best overflows: EI came out NaN (-inf * 0), log EI inf."""
    with pytest.raises(ValueError, match="mean - best - xi overflows float64"):
        acq([-1e308, 0.0], [1e300, 1.0], 1e308)
    with pytest.raises(ValueError, match="mean - best - xi overflows float64"):
        acq.value_and_gradient([1e308], [1.0], -1e308, [[1.0]], [[0.0]])
    with pytest.raises(ValueError, match="mean - best - xi overflows float64"):
        acq.with_xi(1e308)([1.0], [1.0], 1e308)
    assert np.isfinite(acq([1e-300, -1e-300], [1e-300, 1e-310], -1e-300)).all()


# ---------------------------------------------------------------- test functions


@pytest.mark.parametrize("name", function_names())
def test_functions_refuse_nan_and_infinite_points(name):
    f = get_function(name)
    x = f.minimizers[0].copy()
    for bad in (np.nan, np.inf, -np.inf):
        x[0] = bad
        with pytest.raises(ValueError, match=r"X must be finite: point 0 is \["):
            f(x)
        with pytest.raises(ValueError, match=r"X must be finite: point 1 is \["):
            f(np.vstack([f.minimizers[0], x]))
    with pytest.raises(TypeError, match="X must be an array of numbers, got NoneType"):
        f(None)
    assert f(np.empty((0, f.dim))).shape == (0,)
    assert f(f.minimizers[0]) == pytest.approx(f.minimum, abs=1e-6)


@pytest.mark.parametrize("name", ["forrester", "gramacy-lee", "branin", "six-hump-camel"])
def test_functions_whose_value_overflows_far_out_say_so(name):
    f = get_function(name)
    with pytest.raises(ValueError, match=f"{name} overflows float64 at X"):
        f(np.full(f.dim, 1e300))


def test_functions_with_a_finite_limit_far_out_return_it():
    """exp(-huge) is 0: Hartmann is 0 far out, Ackley 20 + e - exp(mean cos(2 pi x))."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert get_function("hartmann3")(np.full(3, 1e300)) == 0.0
        v = get_function("ackley5")(np.full(5, 1e300))
    assert 20.0 + math.e - math.e <= v <= 20.0 + math.e - 1.0 / math.e


def test_regret_of_a_test_function_refuses_nan():
    f = get_function("branin")
    assert float(f.regret(f.minimum + 1.0)) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="y contains NaN, which is no value of branin"):
        f.regret([1.0, np.nan])


def test_ackley_of_too_many_dimensions_is_refused_up_front():
    with pytest.raises(ValueError, match=r"Ackley\(dim=10000000000\).*more than this machine"):
        get_function("ackley5").__class__(10**10)


# ---------------------------------------------------------------- search and optimiser


def _quadratic(X):
    return -np.sum((X - 0.3) ** 2, axis=1)


def test_search_checks_what_value_returns():
    with pytest.raises(TypeError, match="value must be callable"):
        maximize_acquisition(None, None, [(0.0, 1.0)])
    with pytest.raises(ValueError, match=r"value must return one number per row of X"):
        maximize_acquisition(lambda X: np.zeros(3), None, [(0.0, 1.0)], n_candidates=16)
    with pytest.raises(ValueError, match="value returned NaN at every one of the 16 candidates"):
        maximize_acquisition(lambda X: np.full(len(X), np.nan), None, [(0, 1)], n_candidates=16)
    x, v = maximize_acquisition(
        lambda X: np.where(X[:, 0] < 0.5, np.nan, _quadratic(X)),
        None,
        [(0.0, 1.0)],
        n_candidates=64,
        random_state=0,
    )
    assert x[0] >= 0.5 and np.isfinite(v)  # NaN ranks last


def test_search_and_optimiser_refuse_a_box_wider_than_float64():
    wide = [(-1e308, 1e308)]
    with pytest.raises(ValueError, match=r"bounds of dimension 0, .* wider than the float64"):
        maximize_acquisition(_quadratic, None, wide, n_candidates=8)
    with pytest.raises(ValueError, match=r"bounds of dimension 0, .* wider than the float64"):
        BayesianOptimizer(None, wide)


def test_tiny_box_is_searched():
    x, _ = maximize_acquisition(
        lambda X: -np.abs(X[:, 0] - 5e-301),
        None,
        [(0.0, 1e-300)],
        n_candidates=64,
        random_state=0,
    )
    assert 0.0 <= x[0] <= 1e-300


def test_sizes_beyond_memory_are_refused_up_front():
    with pytest.raises(ValueError, match=r"sobol_points\(n=1000000000000, .* more than this"):
        sobol_points(10**12, 2)
    with pytest.raises(ValueError, match=r"maximize_acquisition\(n_candidates=1000000000000\)"):
        maximize_acquisition(_quadratic, None, [(0.0, 1.0)], n_candidates=10**12)
    with pytest.raises(ValueError, match=r"BayesianOptimizer\(n_candidates=1000000000000\)"):
        BayesianOptimizer(None, [(0.0, 1.0)], n_candidates=10**12)
    with pytest.raises(ValueError, match=r"BayesianOptimizer\(n_initial=1000000000000\)"):
        BayesianOptimizer(None, [(0.0, 1.0)], n_initial=10**12)


def test_more_dimensions_than_the_search_covers_is_named():
    msg = f"the Sobol points of the search cover at most {_SOBOL_MAX_DIMS}"
    with pytest.raises(ValueError, match=msg):
        BayesianOptimizer(None, [(0.0, 1.0)] * (_SOBOL_MAX_DIMS + 1))


def test_optimiser_on_a_tiny_box_and_tiny_values():
    f = get_function("forrester")
    res = BayesianOptimizer(
        lambda x: 1e-300 * f(x * 1e300), [(0.0, 1e-300)], n_initial=3, random_state=0
    ).run(5)
    assert np.isfinite(res.y).all() and 0.0 <= res.x_best[0] <= 1e-300


# ---------------------------------------------------------------- plots


def test_plots_name_empty_and_mismatched_input():
    opt = BayesianOptimizer(None, [(0.0, 1.0)])
    opt.tell([0.5], 1.0)
    res = opt.result()
    with pytest.raises(ValueError, match="results is empty"):
        plot_convergence([])
    with pytest.raises(ValueError, match=r"labels must give one label per result \(1\), got 2"):
        plot_convergence([res], labels=["a", "b"])
    with pytest.raises(ValueError, match="curves is empty"):
        plot_regret_bands({})
    with pytest.raises(ValueError, match=r"curves\['ei'\] must be 2-dimensional"):
        plot_regret_bands({"ei": [0.1, 0.01]})
    with pytest.raises(ValueError, match=r"curves\['ei'\] holds only NaN"):
        plot_regret_bands({"ei": [[np.nan, np.nan]]})
    with pytest.raises(ValueError, match="n_grid must be >= 2, got 1"):
        plot_step(opt, 0, n_grid=1)
    with pytest.raises(ValueError, match=r"plot_step\(n_grid=10000000000000\).*more than"):
        plot_step(opt, 0, n_grid=10**13)
