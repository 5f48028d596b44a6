"""scikit-optimize's front door: gp_minimize and Optimizer (issue 30)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kernelkit.optimize import Categorical, Integer, Optimizer, Real, gp_minimize

SPACE = [(-1.0, 1.0), (0, 6), ["a", "b", "c"]]


def f(x: list) -> float:
    return (x[0] - 0.3) ** 2 + (x[1] - 3) ** 2 + (x[2] != "b")


def test_gp_minimize_finds_the_mixed_optimum_and_counts_calls() -> None:
    res = gp_minimize(f, SPACE, n_calls=20, n_initial_points=6, random_state=0)
    assert len(res.x_iters) == 20 and res.func_vals.shape == (20,)
    assert res.x[1:] == [3, "b"] and res.fun < 0.05
    assert res.fun == min(res.func_vals)
    assert res.x_iters[int(np.argmin(res.func_vals))] == res.x
    assert len(res.models) == 14  # one per model-chosen point
    assert res.space.n_dims == 3
    # the models predict the objective itself on the space's cube
    Z = res.space.transform(res.x_iters[:6])
    np.testing.assert_allclose(res.models[-1].predict(Z), res.func_vals[:6], atol=0.05)


def test_x0_without_y0_is_evaluated_first_and_counted() -> None:
    x0 = [[0.3, 3, "b"], [0.0, 0, "a"]]
    res = gp_minimize(f, SPACE, n_calls=8, n_initial_points=3, x0=x0, random_state=0)
    assert res.x_iters[:2] == x0 and len(res.x_iters) == 8
    assert res.fun == pytest.approx(0.0)


def test_x0_with_y0_is_told_and_not_counted() -> None:
    x0 = [[0.3, 3, "b"], [0.0, 0, "a"]]
    res = gp_minimize(
        f, SPACE, n_calls=6, n_initial_points=3, x0=x0, y0=[f(x) for x in x0], random_state=0
    )
    assert len(res.x_iters) == 8 and res.source[:2] == ["told", "told"]
    # a single point and a scalar value
    res = gp_minimize(f, SPACE, n_calls=4, n_initial_points=2, x0=[0.3, 3, "b"], y0=0.0)
    assert len(res.x_iters) == 5


def test_n_calls_and_x0_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match="n_calls=3 is fewer than the 5"):
        gp_minimize(f, SPACE, n_calls=3, n_initial_points=5)
    with pytest.raises(ValueError, match="y0 must hold one value per point"):
        gp_minimize(f, SPACE, n_calls=5, x0=[[0.0, 1, "a"]], y0=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"x0\[0\]"):
        gp_minimize(f, SPACE, n_calls=5, x0=[[0.0, 9, "a"]])
    with pytest.raises(ValueError, match="acq_func"):
        gp_minimize(f, SPACE, acq_func="EIps")
    with pytest.raises(ValueError, match="base_estimator"):
        gp_minimize(f, SPACE, base_estimator="RF")
    with pytest.raises(ValueError, match="initial_point_generator"):
        gp_minimize(f, SPACE, initial_point_generator="grid")
    with pytest.raises(ValueError, match="noise must be"):
        gp_minimize(f, SPACE, noise=-1.0)
    with pytest.raises(TypeError, match="func must be callable"):
        gp_minimize(3, SPACE)


def test_callback_stops_the_run() -> None:
    seen: list[int] = []

    def stop_after_seven(res: object) -> bool:
        seen.append(len(res.x_iters))  # type: ignore[attr-defined]
        return len(res.x_iters) >= 7  # type: ignore[attr-defined]

    res = gp_minimize(f, SPACE, n_calls=20, n_initial_points=4, callback=stop_after_seven)
    assert len(res.x_iters) == 7 and seen == list(range(1, 8))


@pytest.mark.parametrize("acq_func", ["EI", "PI", "LCB", "gp_hedge", "qLogNEI"])
def test_acquisitions_run_and_improve_on_the_design(acq_func: str) -> None:
    res = gp_minimize(f, SPACE, n_calls=14, n_initial_points=5, acq_func=acq_func, random_state=1)
    assert res.fun <= min(res.func_vals[:5])
    assert len({tuple(x) for x in res.x_iters}) == 14


def test_failed_evaluations_are_recorded_not_raised() -> None:
    def flaky(x: list) -> float:
        if x[1] == 0:
            raise RuntimeError("simulation crashed")
        return f(x)

    res = gp_minimize(flaky, SPACE, n_calls=12, n_initial_points=4, random_state=0)
    for x, y, e in zip(res.x_iters, res.func_vals, res.errors, strict=True):
        assert (x[1] == 0) == (e is not None) == math.isnan(y)


def test_optimizer_ask_tell_lists_and_batches() -> None:
    opt = Optimizer(SPACE, n_initial_points=3, random_state=0)
    X = opt.ask(n_points=3)
    res = opt.tell(X, [f(x) for x in X])
    assert len(res.x_iters) == 3 and opt.Xi == X and opt.yi == [f(x) for x in X]
    batch = opt.ask(n_points=4, strategy="cl_max")
    assert len({tuple(x) for x in batch}) == 4
    opt.tell(batch, [f(x) for x in batch])
    res = opt.run(f, n_iter=2)
    assert len(res.x_iters) == 9
    with pytest.raises(ValueError, match="must hold 2 values"):
        opt.tell([[0.0, 1, "a"], [0.1, 2, "b"]], [1.0])
    with pytest.raises(ValueError, match="strategy"):
        opt.ask(2, strategy="kb")


def test_space_constraint_and_model_queue_size() -> None:
    opt = Optimizer(
        [Real(0.0, 1.0), Integer(0, 9), Categorical(["u", "v"])],
        n_initial_points=3,
        space_constraint=lambda x: x[1] % 2 == 0,
        model_queue_size=2,
        random_state=0,
    )
    res = opt.run(lambda x: x[0] + x[1] + (x[2] == "v"), n_iter=8)
    assert all(x[1] % 2 == 0 for x in res.x_iters)
    assert len(res.models) == 2


def test_same_seed_same_run() -> None:
    a = gp_minimize(f, SPACE, n_calls=9, n_initial_points=4, random_state=3)
    b = gp_minimize(f, SPACE, n_calls=9, n_initial_points=4, random_state=3)
    assert a.x_iters == b.x_iters


SKOPT_SCRIPT = """
import numpy as np
from skopt import gp_minimize, Optimizer
from skopt.space import Real, Integer, Categorical

def objective(x):
    lr, depth, kind = x
    return (np.log10(lr) + 2) ** 2 + (depth - 4) ** 2 / 10 + (kind == "gini")

space = [Real(1e-4, 1e0, prior="log-uniform", name="lr"), Integer(1, 8, name="depth"),
         Categorical(["gini", "entropy"], name="kind")]
res = gp_minimize(objective, space, n_calls=15, n_initial_points=5, random_state=0,
                  acq_func="EI", x0=[[1e-2, 4, "entropy"]])
best = (res.x, res.fun, len(res.x_iters), res.func_vals.shape)

opt = Optimizer(space, n_initial_points=3, random_state=0)
for _ in range(5):
    x = opt.ask()
    r = opt.tell(x, objective(x))
pts = opt.ask(n_points=2)
"""


@pytest.mark.parametrize("library", ["kernelkit", "skopt"])
def test_a_scikit_optimize_script_runs_with_the_import_changed(library: str) -> None:
    """The same script, run by scikit-optimize (when installed) and by kernelkit with
    ``skopt`` replaced by ``kernelkit.optimize`` in its imports."""
    script = SKOPT_SCRIPT
    if library == "skopt":
        pytest.importorskip("skopt")
    else:
        script = script.replace("from skopt.space import", "from kernelkit.optimize import")
        script = script.replace("from skopt import", "from kernelkit.optimize import")
    scope: dict = {}
    exec(compile(script, f"<{library} script>", "exec"), scope)
    _, fun, n, shape = scope["best"]
    assert n == 15 and shape == (15,)
    assert fun == pytest.approx(0.0)  # x0 is the optimum
    assert len(scope["pts"]) == 2


def _quadratic(x: list) -> float:  # module level: a checkpoint pickles the objective
    return (x[0] - 0.3) ** 2 + (x[1] - 3) ** 2 + (x[2] != "b")


def test_checkpoint_load_resumes_the_same_trajectory(tmp_path) -> None:
    """A run stopped after 9 calls, saved by CheckpointSaver and loaded, goes on with the
    points an uninterrupted 14-call run makes."""
    from kernelkit.optimize import CheckpointSaver, load

    path = tmp_path / "run.pkl"
    gp_minimize(
        _quadratic,
        SPACE,
        n_calls=9,
        n_initial_points=4,
        random_state=5,
        callback=CheckpointSaver(path),
    )
    resumed = load(path).optimizer.run(5)
    whole = gp_minimize(_quadratic, SPACE, n_calls=14, n_initial_points=4, random_state=5)
    assert resumed.x_iters == whole.x_iters


def test_n_initial_points_zero_starts_from_x0() -> None:
    res = gp_minimize(f, SPACE, n_calls=6, n_initial_points=0, x0=[[0.0, 1, "a"]])
    assert res.x_iters[0] == [0.0, 1, "a"] and len(res.x_iters) == 6
    assert res.source[1] in ("acquisition", "greedy")  # the model from the second point
