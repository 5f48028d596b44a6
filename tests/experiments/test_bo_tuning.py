"""The hyperparameter-tuning comparison (bo-tuning): its score, its tasks, its quick run."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kernelkit.experiments import names, run_experiment
from kernelkit.experiments.bo_tuning import (
    TASK_NAMES,
    Budget,
    Trace,
    TuningTask,
    forest_constraint,
    make_task,
    normalised_score,
    random_search,
    run_method,
    score_scale,
    summarise,
)
from kernelkit.optimize import Categorical, Integer, Space


def test_normalised_score_is_zero_at_random_median_and_one_at_best():
    final = {"random": [-0.8, -0.7, -0.9], "kernelkit": [-0.95, -0.85, -1.0]}
    zero, one = score_scale(final, reference="random")
    assert (zero, one) == (-0.8, -1.0)
    assert normalised_score(final["random"], zero, one) == pytest.approx([0.0, -0.5, 0.5])
    assert normalised_score(final["kernelkit"], zero, one) == pytest.approx([0.75, 0.25, 1.0])
    # random search's median already is the best value: every score is 0
    assert normalised_score([-1.0, -0.5], -1.0, -1.0).tolist() == [0.0, 0.0]


def _trace(best: list[float]) -> Trace:
    n = len(best)
    return Trace(np.array(best), np.array(best), np.full(n, 0.1), np.full(n, 0.01), 0.11 * n)


def test_summarise_scores_and_curves_on_hand_made_runs():
    traces = {
        "a": {
            "random": [_trace([-1.0, -2.0]), _trace([0.0, -1.0]), _trace([0.0, -3.0])],
            "bo": [_trace([-1.0, -4.0]), _trace([-1.0, -3.0]), _trace([-2.0, -2.0])],
        }
    }
    s = summarise(traces, reference="random")
    assert s.scale["a"] == (-2.0, -4.0)  # median of (-2, -1, -3); best -4
    assert s.scores["a"]["random"] == pytest.approx([0.0, -0.5, 0.5])
    assert s.scores["a"]["bo"] == pytest.approx([1.0, 0.5, 0.0])
    assert s.mean_score == pytest.approx({"random": 0.0, "bo": 0.5})
    # the mean normalised best-so-far after each evaluation
    assert s.curves["a"]["bo"] == pytest.approx([(-1 - 1 + 0) / 6, 0.5])
    assert s.overhead_mean["bo"] == pytest.approx(0.01)
    assert s.seconds["bo"] == pytest.approx(3 * 0.22)


def _corners(space: Space) -> list[list]:
    """The lower and upper corners, and the lower corner with each other category."""
    low = [d.bounds[0] for d in space]
    points = [low, [d.bounds[-1] for d in space]]
    for j, d in enumerate(space):
        if isinstance(d, Categorical):
            points += [[*low[:j], c, *low[j + 1 :]] for c in d.categories[1:]]
    return points


@pytest.mark.parametrize("name", TASK_NAMES)
def test_objective_is_finite_at_the_bounds_and_deterministic(name):
    task = make_task(name, quick=True)
    again = make_task(name, quick=True)
    for x in _corners(task.space):
        value = task.objective(x)
        assert math.isfinite(value), (name, x)
        assert task.objective(x) == value
        assert again.objective(x) == value  # the data, the folds and the model seeds are fixed
    x = task.space.rvs(1, random_state=0)[0]
    assert task.objective([np.asarray(v)[()] for v in x]) == task.objective(x)  # NumPy scalars


def test_unknown_task_is_refused():
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        make_task("nope")


def test_forest_constraint():
    assert forest_constraint([40, 10, 1, "gini"])
    assert not forest_constraint([41, 10, 1, "gini"])


def _toy_task(constraint=None) -> TuningTask:
    def objective(x):
        if constraint is not None and not constraint(x):
            raise AssertionError("an infeasible point was evaluated")
        return float((x[0] - 3) ** 2 + (x[1] == "b"))

    space = Space([Integer(0, 9, name="k"), Categorical(["a", "b"], name="c")])
    return TuningTask("toy", "toy", space, objective, constraint, None, "none", 0)


def test_budget_skips_infeasible_points():
    budget = Budget(_toy_task(lambda x: x[0] <= 5), penalty=7.0)
    assert budget([2, "a"]) == 1.0
    assert budget([8, "a"]) == 7.0
    assert budget.values[0] == 1.0 and math.isnan(budget.values[1])
    assert len(budget.starts) == len(budget.ends) == 2


def test_random_search_rejects_infeasible_points():
    task = _toy_task(lambda x: x[0] <= 2)
    trace = run_method(random_search, task, 15, 0, random_state=0)
    assert trace.n_infeasible == 0 and len(trace.values) == 15
    assert np.all(np.diff(trace.best) <= 0) and trace.best[-1] == 1.0  # k = 2, c = "a"
    assert trace.total_seconds >= trace.objective_seconds.sum()
    assert trace.overhead_total >= 0


def test_bo_tuning_quick(tmp_path):
    assert "bo-tuning" in names()
    res = run_experiment("bo-tuning", quick=True, out=tmp_path, random_state=0).results
    folder = tmp_path / "bo-tuning"
    assert (folder / "bo_tuning.png").stat().st_size > 1000
    assert set(res["scores"]) == set(TASK_NAMES)
    n_calls = res["n_calls"]
    for task, by_method in res["scores"].items():
        assert set(by_method) == {"random", "kernelkit"}
        # random search's median is 0 (the mean of two seeds' scores), the best run is 1
        assert np.mean(by_method["random"]) == pytest.approx(0.0, abs=1e-12)
        best = max(max(v) for v in by_method.values())
        zero, one = res["scale"][task]
        assert best == pytest.approx(1.0) or zero == one
        for curve in res["curves"][task].values():
            assert len(curve) == n_calls and np.all(np.diff(curve) >= -1e-12)
        # kernelkit and random search never ask for an infeasible point
        assert res["n_infeasible"][task] == {"random": 0, "kernelkit": 0}
    assert res["overhead_mean_seconds"]["kernelkit"] > res["overhead_mean_seconds"]["random"]
    table = next(iter(res["tables"].values()))
    assert table["columns"] == ["task", "random", "kernelkit"]
    assert len(table["rows"]) == len(TASK_NAMES) + 4
