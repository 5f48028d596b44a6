"""Callbacks: stoppers on real runs, checkpoints, dump / load round trips, bad input."""

from __future__ import annotations

import gzip
import time
from typing import Any

import numpy as np
import pytest

from kernelkit.models import GaussianProcessRegressor
from kernelkit.optimize import BayesianOptimizer, Categorical, Integer, Real, Space, get_function
from kernelkit.optimize import callbacks as cb_module
from kernelkit.optimize.bayesopt import OptimizationResult
from kernelkit.optimize.callbacks import (
    CheckpointSaver,
    DeadlineStopper,
    DeltaXStopper,
    DeltaYStopper,
    EarlyStopper,
    check_callback,
    dump,
    load,
    point_distance,
    run_callbacks,
)
from kernelkit.optimize.surrogate import ObjectiveModel

BRANIN = get_function("branin")


def _loop(opt: BayesianOptimizer, callbacks: Any, n_calls: int) -> int:
    """The optimiser loop as ``run(callback=...)`` will run it: one evaluation, then the
    callbacks; the number of evaluations made."""
    for k in range(1, n_calls + 1):
        opt.run(1)
        if run_callbacks(callbacks, opt.result()):
            return k
    return n_calls


@pytest.fixture(scope="module")
def branin_result() -> OptimizationResult:
    return BayesianOptimizer(BRANIN, random_state=0).run(8)


# ------------------------------------------------------------------ the loop's helpers
def test_check_callback_accepts_none_one_or_a_list():
    def f(res: Any) -> None:
        return None

    assert check_callback(None) == []
    assert check_callback(f) == [f]
    given = [f, print]
    got = check_callback(given)
    assert got == given and got is not given
    assert check_callback((f,)) == [f]
    with pytest.raises(TypeError, match="callback must be None, a callable or a list"):
        check_callback("stop")
    with pytest.raises(TypeError, match=r"callback\[1\] must be callable, got int 3"):
        check_callback([f, 3])


def test_run_callbacks_calls_every_callback_and_ors_their_answers(branin_result):
    calls: list[str] = []

    def stopper(res: Any) -> np.bool_:
        calls.append("stop")
        return np.bool_(True)

    def recorder(res: Any) -> None:
        calls.append("record")

    assert run_callbacks([stopper, recorder], branin_result) is True
    assert calls == ["stop", "record"]  # the recorder still ran after the stop
    assert run_callbacks([recorder, lambda res: None, lambda res: False], branin_result) is False
    assert run_callbacks(None, branin_result) is False
    assert run_callbacks(stopper, branin_result) is True
    with pytest.raises(TypeError, match="callback must be"):
        run_callbacks(42, branin_result)


# ------------------------------------------------------------------ DeltaYStopper
def test_delta_y_stopper_stops_a_real_run_exactly_when_the_best_values_meet():
    delta, n_best = 1.0, 3
    stopper = DeltaYStopper(delta, n_best=n_best)
    seen: list[bool] = []

    def expected(res: OptimizationResult) -> None:
        s = np.sort(res.func_vals)
        seen.append(bool(s.size >= n_best and s[n_best - 1] - s[0] < delta))
        assert stopper(res) == seen[-1]

    opt = BayesianOptimizer(BRANIN, random_state=0)
    n = _loop(opt, [expected, stopper], 20)
    assert seen[-1] and not any(seen[:-1])  # stopped at the first step the rule held
    assert n_best < n < 20  # not trivially at once, nor never
    assert opt.result().n_calls == n


def test_delta_y_stopper_maximises_and_ignores_failures():
    opt = BayesianOptimizer(None, [(0.0, 1.0)], maximize=True)
    stopper = DeltaYStopper(0.5, n_best=2)
    for x, y in [(0.1, 10.0), (0.2, 1.0), (0.3, 1.2), (0.4, None)]:
        opt.tell([x], y)
    assert not stopper(opt.result())  # the best two are 10 and 1.2 (nan ignored)
    opt.tell([0.5], 9.7)
    assert stopper(opt.result())  # 10 and 9.7
    few = BayesianOptimizer(None, [(0.0, 1.0)])
    few.tell([0.1], 1.0)
    few.tell([0.2], None)
    assert not stopper(few.result())  # one successful value: too few to decide


def test_delta_y_stopper_is_strict_as_scikit_optimize():
    opt = BayesianOptimizer(None, [(0.0, 1.0)])
    opt.tell([0.1], 1.0)
    opt.tell([0.2], 1.5)
    assert not DeltaYStopper(0.5, n_best=2)(opt.result())
    assert DeltaYStopper(0.5000001, n_best=2)(opt.result())


# ------------------------------------------------------------------ DeltaXStopper
def test_delta_x_stopper_on_a_real_run_uses_the_l1_distance_of_the_last_two_points():
    stopper = DeltaXStopper(0.5)
    decisions: list[tuple[bool, bool]] = []

    def check(res: OptimizationResult) -> None:
        X = res.X
        want = X.shape[0] >= 2 and float(np.abs(X[-1] - X[-2]).sum()) < 0.5
        decisions.append((stopper(res), want))

    opt = BayesianOptimizer(BRANIN, random_state=0)
    _loop(opt, check, 12)
    assert [got for got, _ in decisions] == [want for _, want in decisions]
    assert decisions[0] == (False, False)  # one point: no decision


def test_delta_x_stopper_counts_a_changed_category_as_one():
    space = Space([Real(0.0, 10.0), Integer(1, 9), Categorical(["a", "b"])])
    assert point_distance(space, [1.0, 2, "a"], [1.5, 4, "a"]) == 2.5
    assert point_distance(space, [1.0, 2, "a"], [1.0, 2, "b"]) == 1.0
    X = np.empty((2, 3), dtype=object)
    X[:] = [(1.0, 2, "a"), (1.0, 2, "b")]
    res = _mixed_result(space, X, np.array([1.0, 2.0]))
    assert not DeltaXStopper(1.0)(res)
    assert DeltaXStopper(1.01)(res)


def _mixed_result(space: Space, X: np.ndarray, y: np.ndarray) -> OptimizationResult:
    n = len(y)
    gp = GaussianProcessRegressor(noise=1e-4).fit(space.transform(X.tolist()), y)
    nan = np.full(n, np.nan)
    return OptimizationResult(
        X=X,
        y=y,
        errors=[None] * n,
        acquisition=nan,
        xi=nan,
        time=nan,
        source=["told"] * n,
        rounds=np.full(n, -1),
        n_initial=n,
        space=space,
        models=[ObjectiveModel(gp, 1.0)],
    )


# ------------------------------------------------------------------ DeadlineStopper
class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


def test_deadline_stopper_follows_scikit_optimizes_rule_on_a_fake_clock(monkeypatch, branin_result):
    clock = _Clock()
    monkeypatch.setattr(cb_module, "time", clock)
    stopper = DeadlineStopper(5.0)  # the clock starts here
    answers = []
    for _ in range(6):
        clock.now += 1.0  # every iteration takes one second
        answers.append(stopper(branin_result))
    # after k iterations 5 - k seconds are left; stop once that is <= the longest (1 s)
    assert answers == [False, False, False, True, True, True]
    assert stopper.iter_time == [1.0] * 6


def test_deadline_stopper_stops_a_sleeping_objective_before_the_budget():
    def slow(x: np.ndarray) -> float:
        time.sleep(0.05)
        return float(BRANIN(x))

    opt = BayesianOptimizer(slow, BRANIN.bounds, n_initial=3, random_state=0)
    stopper = DeadlineStopper(0.4)
    n = _loop(opt, stopper, 30)
    t = np.asarray(stopper.iter_time)
    assert t.size == n < 30
    assert np.all(t >= 0.05)  # each interval holds one evaluation
    for k in range(n):  # the rule, step by step: go on while the time left > the longest step
        assert (0.4 - t[: k + 1].sum() <= t[: k + 1].max()) == (k == n - 1)


# ------------------------------------------------------------------ dump / load
def test_dump_load_round_trip_keeps_history_space_and_models(tmp_path, branin_result):
    res = branin_result
    for name, kwargs in [("r.pkl", {}), ("r.pkl.gz", {}), ("r.joblib", {"compress": 3})]:
        path = tmp_path / name
        dump(res, path, **kwargs)
        back = load(str(path))
        assert back.x_iters == res.x_iters
        np.testing.assert_array_equal(back.func_vals, res.func_vals)
        assert back.x == res.x and back.fun == res.fun
        assert back.space == res.space
        assert len(back.models) == len(res.models) >= 1
        Z = res.space.transform(res.space.rvs(5, random_state=0))
        for m_back, m in zip(back.models, res.models, strict=True):
            np.testing.assert_array_equal(m_back.predict(Z), m.predict(Z))
        assert repr(back._optimizer.objective) == "Branin()"  # stored with the optimiser
    with open(tmp_path / "r.pkl.gz", "rb") as fh:
        assert fh.read(2) == b"\x1f\x8b"  # gzip, chosen by the extension
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.joblib", "r.pkl", "r.pkl.gz"]


def test_store_objective_false_drops_it_and_leaves_the_result_intact(tmp_path):
    opt = BayesianOptimizer(lambda x: float(BRANIN(x)), BRANIN.bounds, random_state=0)
    res = opt.run(6)
    path = tmp_path / "r.pkl"
    with pytest.raises(TypeError, match=r"could not be pickled.*store_objective=False"):
        dump(res, path)
    assert list(tmp_path.iterdir()) == []  # no file, and no partial file left behind
    dump(res, path, store_objective=False)
    back = load(path)
    assert back._optimizer.objective is None
    assert back.x_iters == res.x_iters and back.fun == res.fun
    assert res._optimizer is opt and callable(opt.objective)  # the caller's objects intact
    assert opt.run(1).n_calls == 7  # and the run goes on


def test_dump_and_load_without_joblib(tmp_path, monkeypatch, branin_result):
    monkeypatch.setattr(cb_module, "_joblib", lambda: None)
    for name in ["r.pkl", "r.pkl.gz"]:
        dump(branin_result, tmp_path / name)
        assert load(tmp_path / name).x_iters == branin_result.x_iters
    assert gzip.open(tmp_path / "r.pkl.gz").read(1)  # really gzip
    with pytest.raises(TypeError, match="unexpected keyword argument 'compress'"):
        dump(branin_result, tmp_path / "r.pkl", compress=3)


def test_dump_and_load_name_bad_arguments(tmp_path, branin_result):
    with pytest.raises(TypeError, match=r"result must be an OptimizationResult \(.*got dict"):
        dump({"x": 1}, tmp_path / "r.pkl")
    with pytest.raises(TypeError, match=r"filename must be a path .*got int"):
        dump(branin_result, 3)
    with pytest.raises(ValueError, match="filename must name a file"):
        dump(branin_result, "")
    with pytest.raises(TypeError, match="store_objective must be a bool"):
        dump(branin_result, tmp_path / "r.pkl", store_objective="no")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'level'.*compress"):
        dump(branin_result, tmp_path / "r.pkl", level=3)
    with pytest.raises(FileNotFoundError, match=r"filename .*missing.pkl"):
        load(tmp_path / "missing.pkl")
    import joblib

    joblib.dump([1, 2], tmp_path / "list.pkl")
    with pytest.raises(TypeError, match="holds a list, not an OptimizationResult"):
        load(tmp_path / "list.pkl")


# ------------------------------------------------------------------ CheckpointSaver
def test_checkpoint_saver_writes_the_result_after_every_call(tmp_path):
    path = tmp_path / "checkpoint.pkl"
    saver = CheckpointSaver(path, store_objective=False)
    assert saver.load() == {}  # nothing stored yet
    counts: list[int] = []

    def read_back(res: OptimizationResult) -> None:
        back = load(path)
        assert back.x_iters == res.x_iters
        counts.append(back.n_calls)

    opt = BayesianOptimizer(lambda x: float(BRANIN(x)), BRANIN.bounds, random_state=0)
    assert _loop(opt, [saver, read_back], 6) == 6  # the saver never stops the run
    assert counts == [1, 2, 3, 4, 5, 6]
    assert saver(opt.result()) is None
    assert str(path) in repr(saver)
    # scikit-optimize's resume arguments: x0, y0 and the last surrogate's kernel
    resume = saver.load()
    res = opt.result()
    assert resume["x0"] == res.x_iters
    np.testing.assert_array_equal(resume["y0"], res.func_vals)
    assert repr(resume["base_estimator"]) == repr(res.models[-1].gp.kernel_)


def test_callbacks_name_bad_arguments():
    with pytest.raises(ValueError, match=r"delta must be > 0, got 0"):
        DeltaYStopper(0)
    with pytest.raises(ValueError, match=r"delta must be > 0"):
        DeltaYStopper(-0.1)
    with pytest.raises(TypeError, match="delta must be a number, got str"):
        DeltaYStopper("0.1")
    with pytest.raises(ValueError, match="n_best must be >= 2, got 1"):
        DeltaYStopper(0.1, n_best=1)
    with pytest.raises(TypeError, match="n_best must be an integer, got float"):
        DeltaYStopper(0.1, n_best=2.5)
    with pytest.raises(ValueError, match="delta must be > 0"):
        DeltaXStopper(0.0)
    with pytest.raises(ValueError, match="delta must be finite"):
        DeltaXStopper(float("inf"))
    with pytest.raises(ValueError, match="total_time must be > 0, got 0"):
        DeadlineStopper(0)
    with pytest.raises(ValueError, match="total_time must be > 0"):
        DeadlineStopper(-5.0)
    with pytest.raises(TypeError, match="total_time must be a number, got NoneType"):
        DeadlineStopper(None)
    with pytest.raises(TypeError, match=r"checkpoint_path must be a path .*got list"):
        CheckpointSaver(["a.pkl"])
    with pytest.raises(ValueError, match="checkpoint_path must name a file"):
        CheckpointSaver("")


def test_early_stopper_subclasses_fill_in_the_criterion(branin_result):
    class AfterFive(EarlyStopper):
        def _criterion(self, result: Any) -> bool:
            return result.n_calls >= 5

    assert AfterFive()(branin_result) is True
    with pytest.raises(NotImplementedError, match="EarlyStopper must define _criterion"):
        EarlyStopper()(branin_result)
