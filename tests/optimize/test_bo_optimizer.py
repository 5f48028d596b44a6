"""BayesianOptimizer: convergence, reproducibility, ask/tell, failures, bad input, figures."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelkit.kernels import RBF, Matern
from kernelkit.optimize import BayesianOptimizer, ExponentialDecaySchedule, get_function
from kernelkit.plotting import save_figure

FORRESTER = get_function("forrester")


@pytest.mark.parametrize("seed", range(5))
def test_forrester_global_optimum_within_1e_3_in_20_evaluations(seed):
    res = BayesianOptimizer(FORRESTER, FORRESTER.bounds, random_state=seed).run(20)
    assert res.n_calls == 20
    assert res.y_best - FORRESTER.minimum < 1e-3
    assert abs(res.x_best[0] - FORRESTER.minimizers[0, 0]) < 1e-2
    assert res.y_best == pytest.approx(FORRESTER(res.x_best))


def _trajectory(res):
    return np.column_stack([res.X, res.y])


def test_same_seed_same_trajectory_and_other_seed_differs():
    f = get_function("branin")
    a = BayesianOptimizer(f, f.bounds, random_state=3).run(9)
    b = BayesianOptimizer(f, f.bounds, random_state=3).run(9)
    c = BayesianOptimizer(f, f.bounds, random_state=4).run(9)
    assert np.array_equal(_trajectory(a), _trajectory(b))
    assert not np.array_equal(_trajectory(a), _trajectory(c))


def test_ask_tell_gives_the_same_trajectory_as_run():
    f = get_function("six-hump-camel")
    kw = dict(
        n_initial=4, xi=ExponentialDecaySchedule(0.5, 0.0, 5), exploit_every=3, random_state=7
    )
    ran = BayesianOptimizer(f, f.bounds, **kw).run(10)
    opt = BayesianOptimizer(None, f.bounds, **kw)
    for _ in range(10):
        x = opt.ask()
        assert np.array_equal(x, opt.ask())  # asking twice gives the same point
        opt.tell(x, f(x))
    told = opt.result()
    assert np.array_equal(_trajectory(ran), _trajectory(told))
    np.testing.assert_array_equal(ran.xi, told.xi)
    assert ran.source == told.source
    assert ran.source[:4] == ["initial"] * 4 and "greedy" in ran.source
    # run() can continue after ask/tell and vice versa
    opt.objective = f
    assert opt.run(2).n_calls == 12


def test_telling_a_rounded_point_records_it_and_moves_on():
    # a user loop over an integer parameter: evaluate (and tell) the asked point rounded;
    # the asked point used to stay pending, so every ask returned 7.9038 again
    def f(k):
        return (k - 3.0) ** 2

    opt = BayesianOptimizer(None, [(0.0, 10.0)], n_initial=2, random_state=0)
    asked, told = [], []
    for _ in range(8):
        x = opt.ask()
        k = np.round(x)
        asked.append(float(x[0]))
        told.append(float(k[0]))
        opt.tell(k, f(k[0]))
    res = opt.result()
    assert len(set(asked)) == len(asked)  # every ask is a new proposal
    assert res.X[:, 0].tolist() == told  # the told points are what is recorded
    assert res.y.tolist() == [f(k) for k in told]
    assert res.source == ["told"] * 8
    assert np.all(np.isnan(res.acquisition)) and np.all(np.isnan(res.time))
    assert res.y_best == 0.0 and res.x_best[0] == 3.0


def test_telling_another_point_releases_the_asked_one():
    f = get_function("branin")
    opt = BayesianOptimizer(None, f.bounds, n_initial=3, random_state=0)
    x0 = opt.ask()
    opt.tell(f.minimizers[0], f(f.minimizers[0]))  # an evaluation made elsewhere
    x1 = opt.ask()  # the design moves on to its next point
    assert not np.array_equal(x0, x1)
    opt.tell(x1, f(x1))
    res = opt.result()
    assert res.source == ["told", "initial"]
    np.testing.assert_array_equal(res.X, [f.minimizers[0], x1])


def test_history_fields():
    res = BayesianOptimizer(FORRESTER, FORRESTER.bounds, n_initial=3, random_state=0).run(6)
    assert res.X.shape == (6, 1) and res.y.shape == (6,)
    assert np.all(np.isnan(res.acquisition[:3])) and np.all(np.isfinite(res.acquisition[3:]))
    assert np.all(np.isnan(res.xi[:3])) and np.all(res.xi[3:] == 0.0)
    assert np.all(res.time > 0) and res.errors == [None] * 6
    assert np.all(np.diff(res.best_so_far) <= 0)
    assert res.regret(FORRESTER.minimum)[-1] == pytest.approx(res.y_best - FORRESTER.minimum)


def test_maximize_option():
    def neg(x):
        return -FORRESTER(x)

    res = BayesianOptimizer(neg, FORRESTER.bounds, maximize=True, random_state=0).run(15)
    assert res.y_best == pytest.approx(-FORRESTER.minimum, abs=1e-3)
    assert np.all(np.diff(res.best_so_far) >= 0)


def test_refit_false_keeps_the_initial_design_hyperparameters():
    f = get_function("branin")
    opt = BayesianOptimizer(f, f.bounds, n_initial=5, refit_hyperparameters=False, random_state=0)
    opt.run(6)
    theta = opt.gp_.kernel_.theta.copy()
    noise = opt.gp_.noise_
    opt.run(3)
    assert np.array_equal(opt.gp_.kernel_.theta, theta) and opt.gp_.noise_ == noise
    refit = BayesianOptimizer(f, f.bounds, n_initial=5, random_state=0)
    refit.run(6)
    theta = refit.gp_.kernel_.theta.copy()
    refit.run(3)
    assert not np.array_equal(refit.gp_.kernel_.theta, theta)


def test_user_kernel_is_copied_and_used():
    k = Matern(lengthscale=[0.3, 0.3], nu=1.5, lengthscale_bounds=(1e-2, 10.0))
    f = get_function("branin")
    opt = BayesianOptimizer(f, f.bounds, kernel=k, n_initial=5, random_state=0)
    opt.run(6)
    assert opt.gp_.kernel_.nu == 1.5
    assert np.array_equal(k.lengthscale, [0.3, 0.3])  # the caller's kernel is untouched


def test_kernel_without_input_gradients_falls_back_to_finite_differences():
    class NoGradientRBF(RBF):
        def _input_gradient(self, X, Y):
            raise NotImplementedError

    kernel = NoGradientRBF(lengthscale=0.3, lengthscale_bounds=(1e-2, 10.0))
    opt = BayesianOptimizer(FORRESTER, FORRESTER.bounds, kernel=kernel, random_state=0)
    res = opt.run(12)
    assert not opt._analytic_gradient
    assert res.y_best - FORRESTER.minimum < 1e-2


# ---------------------------------------------------------------- failures
def test_failed_evaluations_are_recorded_and_the_run_continues():
    calls = []

    def flaky(x):
        calls.append(x)
        if len(calls) == 2:
            raise RuntimeError("simulator crashed")
        if len(calls) == 4:
            return float("nan")
        return FORRESTER(x)

    res = BayesianOptimizer(flaky, [(0.0, 1.0)], n_initial=3, random_state=0).run(10)
    assert res.n_calls == 10 and res.n_failed == 2
    assert res.errors[1] == "RuntimeError: simulator crashed"
    assert "nan" in res.errors[3]
    assert math.isnan(res.y[1]) and math.isnan(res.y[3])
    assert np.isfinite(res.y_best) and res.y_best == np.nanmin(res.y)


def test_all_evaluations_failing_is_a_clear_error():
    def broken(x):
        raise ValueError("no licence")

    opt = BayesianOptimizer(broken, [(0.0, 1.0)], n_initial=2, random_state=0)
    with pytest.raises(RuntimeError, match=r"all 4 evaluations of the objective failed.*licence"):
        opt.run(4)
    assert opt.result().n_failed == 4


def test_objective_returning_a_non_number_is_a_failure():
    res = BayesianOptimizer(
        lambda x: [1.0, 2.0] if x[0] > 0.5 else float(x[0]),
        [(0.0, 1.0)],
        n_initial=4,
        random_state=0,
    ).run(4)
    failed = [e for e in res.errors if e is not None]
    assert failed and all("must be one real number" in e for e in failed)


@pytest.mark.parametrize(
    "value, match",
    [
        ("1.5", "must be a real number, got str '1.5'"),  # was accepted as 1.5
        (True, "must be a real number, got bool"),
        (1.5 + 0j, "must be a real number, got complex"),
        (np.array(["1.5"]), "must be a real number, got an array of dtype <U3"),
        (None, "must be a real number, got NoneType"),
        (np.array([1.0, 2.0]), r"must be one real number, got an array of shape \(2,\)"),
    ],
)
def test_objective_must_return_a_real_number(value, match):
    res = BayesianOptimizer(lambda x: value, [(0.0, 1.0)], n_initial=2, random_state=0)
    with pytest.raises(RuntimeError, match="all 2 evaluations of the objective failed"):
        res.run(2)
    errors = res.result().errors
    assert all(re.match("the objective's value " + match, e) for e in errors)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_objective_returning_nan_or_infinity_is_a_failure(bad):
    # documented: a non-finite value is a failed evaluation, recorded with its reason
    res = BayesianOptimizer(
        lambda x: bad if x[0] > 0.5 else float(x[0]), [(0.0, 1.0)], n_initial=4, random_state=0
    ).run(4)
    failed = np.flatnonzero(res.X[:, 0] > 0.5)
    assert failed.size and res.n_failed == failed.size
    assert all(res.errors[i] == f"objective returned {bad}" for i in failed)
    assert np.all(np.isnan(res.y[failed])) and np.isfinite(res.y_best)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    value=st.one_of(st.floats(-1e300, 1e300), st.integers(-(2**53), 2**53)),
    wrap=st.sampled_from(
        [
            lambda v: v,
            np.float64,
            np.float32,
            np.asarray,
            lambda v: np.array([v]),
            lambda v: np.array([[v]]),
            lambda v: [v],
            lambda v: np.array(v, dtype=object),
        ]
    ),
)
def test_real_numbers_in_any_wrapping_are_accepted(value, wrap):
    if wrap is np.float32:
        value = float(np.float32(value)) if abs(value) < 3e38 else 1.0  # a float32 value
    opt = BayesianOptimizer(None, [(0.0, 1.0)], random_state=0)
    opt.tell([0.5], wrap(value))
    assert opt.result().y.tolist() == [float(value)] and opt.result().errors == [None]


def test_an_objective_that_changes_its_argument_does_not_change_the_record():
    # the objective gets a copy: the run used to abort with "x is outside bounds"
    def scribble(x):
        value = FORRESTER(x)
        x += 100.0
        return value

    res = BayesianOptimizer(scribble, FORRESTER.bounds, n_initial=3, random_state=0).run(6)
    assert res.n_failed == 0 and np.all((res.X >= 0) & (res.X <= 1))
    assert res.source == ["initial"] * 3 + ["acquisition"] * 3
    np.testing.assert_allclose(res.y, [FORRESTER(x) for x in res.X], rtol=1e-12)


def test_tell_a_failure_by_hand():
    opt = BayesianOptimizer(None, [(0.0, 1.0)], n_initial=2, random_state=0)
    x = opt.ask()
    opt.tell(x, None, error="timeout")
    assert opt.result().errors == ["timeout"]


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "bounds, match",
    [
        ([(1.0, 0.0)], "low < high.*dimension 0 has low=1 >= high=0"),
        ([(0.0, 1.0), (2.0, 2.0)], "dimension 1 has low=2 >= high=2"),
        ([0.0, 1.0], r"shape \(d, 2\).*\[\(0, 1\)\]"),
        ([(0.0, 1.0, 2.0)], r"shape \(d, 2\)"),
        ([], r"shape \(d, 2\)"),
        ([(0.0, np.inf)], "bounds must be finite"),
        ("0 1", "bounds must be a sequence"),
    ],
)
def test_bad_bounds(bounds, match):
    with pytest.raises((ValueError, TypeError), match=match):
        BayesianOptimizer(lambda x: 0.0, bounds)


def test_wrong_number_of_bounds_for_the_objective():
    with pytest.raises(ValueError, match=r"bounds has 1 .* pairs, but the objective takes 2"):
        BayesianOptimizer(get_function("branin"), [(0.0, 1.0)])


def test_bounds_default_to_the_test_function_box():
    f = get_function("branin")
    assert np.array_equal(BayesianOptimizer(f).bounds_, f.bounds)
    with pytest.raises(ValueError, match="bounds are required"):
        BayesianOptimizer(lambda x: 0.0)


def test_negative_n_calls():
    opt = BayesianOptimizer(FORRESTER, FORRESTER.bounds)
    with pytest.raises(ValueError, match="n_calls must be >= 0"):
        opt.run(-1)
    assert opt.run(0).n_calls == 0
    assert opt.run(n_calls=2).n_calls == 2  # the keyword is n_calls (skopt's name)


@pytest.mark.parametrize(
    "kw, err, match",
    [
        ({"acquisition": "expected"}, ValueError, "unknown acquisition 'expected'"),
        ({"acquisition": "ucb", "xi": 0.1}, ValueError, "xi applies to the improvement"),
        ({"xi": -1.0}, ValueError, "xi must be finite and >= 0"),
        ({"n_initial": -1}, ValueError, "n_initial must be >= 0"),
        ({"initial_design": "grid"}, ValueError, "initial_design must be one of"),
        ({"noise": 0.0}, ValueError, "noise must be > 0"),
        ({"kernel": "rbf"}, TypeError, "kernel must be a kernelkit Kernel"),
        ({"kernel": Matern(lengthscale=[1.0, 1.0])}, ValueError, "lengthscale has 2 entries"),
        ({"exploit_every": 0}, ValueError, "exploit_every must be >= 1"),
        ({"noise_bounds": (1.0, 0.1)}, ValueError, "noise_bounds must satisfy 0 < low <= high"),
        ({"noise_bounds": "tiny"}, ValueError, "noise_bounds must be 'fixed' or a pair"),
        ({"maximize": "yes"}, TypeError, "maximize must be a bool"),
    ],
)
def test_bad_parameters(kw, err, match):
    with pytest.raises(err, match=match):
        BayesianOptimizer(FORRESTER, FORRESTER.bounds, **kw)


def test_run_without_objective():
    with pytest.raises(ValueError, match="run needs an objective"):
        BayesianOptimizer(None, [(0.0, 1.0)]).run(3)
    with pytest.raises(TypeError, match="objective must be callable"):
        BayesianOptimizer(3.0, [(0.0, 1.0)])


def test_tell_wrong_dimension_or_outside_bounds():
    opt = BayesianOptimizer(None, [(-5.0, 10.0), (0.0, 15.0)])
    with pytest.raises(ValueError, match=r"x must be a point with 2 coordinate\(s\).*\(3,\)"):
        opt.tell([1.0, 2.0, 3.0], 1.0)
    with pytest.raises(ValueError, match=r"x is outside bounds: coordinate 1 is 16.*\[0, 15\]"):
        opt.tell([1.0, 16.0], 1.0)
    with pytest.raises(ValueError, match="x must be finite"):
        opt.tell([np.nan, 1.0], 1.0)
    with pytest.raises(TypeError, match="y must be a real number, got str 'big'"):
        opt.tell([1.0, 1.0], "big")
    with pytest.raises(TypeError, match=r"y must be a real number, got str '1\.5'"):
        opt.tell([1.0, 1.0], "1.5")  # was recorded as 1.5
    with pytest.raises(ValueError, match=r"y must be one real number, got an array of shape"):
        opt.tell([1.0, 1.0], [1.0, 2.0])
    opt.tell([10.0, 0.0], 3.0)  # on the boundary is fine
    assert opt.result().source == ["told"]


# ---------------------------------------------------------------- figures
def test_step_figure_and_convergence_plot(tmp_path):
    opt = BayesianOptimizer(FORRESTER, FORRESTER.bounds, n_initial=3, random_state=0)
    res = opt.run(6)
    assert opt.acquisition_steps == [3, 4, 5]
    fig = res.plot(4)
    bottom = fig.axes[1]
    assert len(bottom.lines) >= 2  # the acquisition and its maximiser
    assert save_figure(fig, tmp_path / "step.png") == "step.png"
    assert (tmp_path / "step.png").stat().st_size > 1000
    save_figure(res.plot_convergence(minimum=FORRESTER.minimum), tmp_path / "conv.png")
    assert (tmp_path / "conv.png").exists()
    with pytest.raises(ValueError, match=r"step 1 was not chosen by the acquisition.*3..5"):
        opt.plot(1)


def test_step_figure_needs_one_dimension():
    f = get_function("branin")
    opt = BayesianOptimizer(f, f.bounds, n_initial=5, random_state=0)
    res = opt.run(6)
    with pytest.raises(ValueError, match=r"plot\(step\) draws 1-D problems.*plot_convergence"):
        res.plot()
    res.plot_convergence()  # any dimension


# ---------------------------------------------------------------------- result objects
def test_step_surrogate_returns_a_public_frozen_acquisition_step():
    import dataclasses

    from kernelkit.models import GaussianProcessRegressor
    from kernelkit.optimize import AcquisitionStep, OptimizationResult
    from kernelkit.optimize.acquisition import Acquisition

    opt = BayesianOptimizer(FORRESTER, n_initial=3, exploit_every=2, random_state=0)
    res = opt.run(6)
    assert isinstance(res, OptimizationResult)
    for i in opt.acquisition_steps:
        gp, step = opt.step_surrogate(i)
        assert isinstance(gp, GaussianProcessRegressor) and isinstance(step, AcquisitionStep)
        assert step.n_data == i and step.X.shape == (i, 1) and step.g.shape == (i,)
        # g = -f when minimising, through the step's output transform
        np.testing.assert_allclose(step.g, step.output_transform.transform(-res.y[:i]))
        np.testing.assert_allclose(step.output_transform.inverse(step.g), -res.y[:i])
        assert isinstance(step.acquisition, Acquisition) and step.x_next.shape == (1,)
        np.testing.assert_allclose(opt._from_unit(step.x_next), res.X[i])
        assert step.greedy == (res.source[i] == "greedy")
        assert gp.noise_ == step.noise and gp.kernel_.theta.tolist() == step.kernel.theta.tolist()
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.best = 0.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.y_best = 0.0  # type: ignore[misc]


def test_posterior_is_a_frozen_dataclass():
    import dataclasses

    from kernelkit.optimize import Posterior, posterior

    opt = BayesianOptimizer(FORRESTER, n_initial=3, random_state=0)
    opt.run(4)
    X = np.linspace(0, 1, 5)[:, None]
    p = posterior(opt.gp_, X)
    assert isinstance(p, Posterior) and dataclasses.is_dataclass(p)
    assert p.mean.shape == p.std.shape == (5,) and p.mean_grad is None and p.std_grad is None
    g = posterior(opt.gp_, X, return_gradient=True)
    assert g.mean_grad.shape == g.std_grad.shape == (5, 1)
    np.testing.assert_array_equal(g.mean, p.mean)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.mean = X  # type: ignore[misc]
