"""BayesianOptimizer on mixed spaces (integers, log-uniform reals, categories), with known
input constraints and black-box outcome constraints, and qNEI batches (issue 30)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import LinearConstraint

from kernelkit.optimize import BayesianOptimizer, Categorical, Integer, Real, Space
from kernelkit.optimize.mixed_search import maximize_on_space, snap

SPACE = Space(
    [
        Integer(0, 20, name="n"),
        Real(1e-3, 1e1, "log-uniform", name="lr"),
        Categorical(["a", "b", "c"], name="kind"),
    ]
)
OFFSET = {"a": 1.0, "b": 0.0, "c": 2.0}


def mixed(x: list) -> float:
    n, lr, kind = x
    return (n - 13) ** 2 / 20 + (math.log10(lr) + 1) ** 2 + OFFSET[kind]


def _valid(space: Space, x: list) -> bool:
    return x in space and all(
        type(v) is int for v, d in zip(x, space.dimensions, strict=True) if isinstance(d, Integer)
    )


def test_mixed_space_finds_the_optimum_with_valid_distinct_points() -> None:
    res = BayesianOptimizer(mixed, SPACE, random_state=0).run(25)
    assert all(_valid(SPACE, x) for x in res.x_iters)
    assert len({tuple(x) for x in res.x_iters}) == 25  # never proposed twice
    assert res.x[0] == 13 and res.x[2] == "b"
    assert res.fun < 0.05
    assert res.X.dtype == object and type(res.X[0, 0]) is int


def test_acquisition_points_lie_on_the_grid() -> None:
    """Every point the acquisition chose is a snapped point of the cube: the surrogate
    scored it where the point of the space is, not between integers or categories."""
    opt = BayesianOptimizer(mixed, SPACE, random_state=3)
    opt.run(12)
    steps = opt.acquisition_steps
    assert steps
    for i in steps:
        u = opt.step_surrogate(i)[1].x_next
        snapped = snap(SPACE, u[None])[0]
        # the integer and one-hot columns exactly; the log-uniform real (column 1) has no
        # grid, and its log / exp round trip may move it by an ulp
        np.testing.assert_array_equal(np.delete(u, 1), np.delete(snapped, 1))
        np.testing.assert_allclose(u[1], snapped[1], rtol=1e-12)


@pytest.mark.parametrize("acquisition", ["ei", "qlognei", "qnei"])
def test_batches_are_distinct_points_of_the_space(acquisition: str) -> None:
    opt = BayesianOptimizer(mixed, SPACE, acquisition=acquisition, random_state=1)
    res = opt.run(20, batch_size=5)
    assert len({tuple(x) for x in res.x_iters}) == 20
    assert all(_valid(SPACE, x) for x in res.x_iters)
    assert res.n_rounds == 4


def test_small_finite_space_is_not_proposed_twice() -> None:
    """Six points in all: the first six evaluations are all of them."""
    space = Space([Integer(0, 2), Categorical(["x", "y"])])
    res = BayesianOptimizer(lambda x: x[0] + (x[1] == "y"), space, n_initial=2, random_state=0).run(
        6
    )
    assert sorted(map(tuple, res.x_iters)) == [(i, c) for i in range(3) for c in "xy"]


def test_ask_tell_with_a_space_takes_and_gives_lists() -> None:
    opt = BayesianOptimizer(None, SPACE, n_initial=2, random_state=0)
    for _ in range(4):
        x = opt.ask()
        assert isinstance(x, list) and _valid(SPACE, x)
        opt.tell(x, mixed(x))
    batch = opt.ask(3)
    assert len(batch) == 3 and all(_valid(SPACE, x) for x in batch)
    for x in batch:
        opt.tell(x, mixed(x))
    assert opt.result().n_calls == 7
    assert set(opt.result().source[4:]) <= {"acquisition", "greedy"}


def test_tell_checks_points_against_the_space() -> None:
    opt = BayesianOptimizer(None, SPACE)
    with pytest.raises(ValueError, match=r"dimension 'n'\) must be an integer in \[0, 20\]"):
        opt.tell([25, 0.1, "a"], 1.0)
    with pytest.raises(ValueError, match="dimension 'kind'"):
        opt.tell([3, 0.1, "z"], 1.0)
    with pytest.raises(TypeError, match="x must be a point of the space"):
        opt.tell(3.0, 1.0)


def test_dict_space_names_and_box_stays_a_box() -> None:
    opt = BayesianOptimizer(None, {"C": Real(1e-2, 1e2, "log-uniform"), "k": Integer(1, 5)})
    assert opt.space_.dimension_names == ["C", "k"]
    assert opt.bounds_ is None
    box = BayesianOptimizer(None, [(0, 1), (2, 5)])  # plain pairs: a box of reals
    assert box.bounds_.tolist() == [[0.0, 1.0], [2.0, 5.0]]
    assert isinstance(box.ask(), np.ndarray)


def test_log_uniform_real_space_keeps_float_points() -> None:
    space = Space([Real(1e-4, 1e0, "log-uniform")])
    res = BayesianOptimizer(
        lambda x: (math.log10(x[0]) + 2) ** 2, space, n_initial=4, random_state=0
    ).run(12)
    assert res.X.dtype == np.float64
    assert abs(math.log10(res.x[0]) + 2) < 0.1
    assert all(1e-4 <= x[0] <= 1.0 for x in res.x_iters)


def test_input_constraints_linear_and_predicate_hold_at_every_point() -> None:
    def f(x: np.ndarray) -> float:
        return float((x[0] - 0.3) ** 2 + (x[1] - 0.8) ** 2)

    linear = LinearConstraint([[1.0, 1.0]], -np.inf, 1.0)
    res = BayesianOptimizer(
        f, [(0.0, 1.0), (0.0, 1.0)], input_constraints=linear, random_state=0
    ).run(20)
    assert np.all(res.X.sum(axis=1) <= 1.0 + 1e-9)
    # the constrained minimum is the projection (0.25, 0.75), value 0.005
    assert res.fun == pytest.approx(0.005, abs=2e-3)

    def disc(x: list) -> bool:
        return (x[0] - 10) ** 2 <= 16  # n in 6..14

    res = BayesianOptimizer(mixed, SPACE, input_constraints=disc, random_state=0).run(15)
    assert all(6 <= x[0] <= 14 for x in res.x_iters)


def test_input_constraints_errors() -> None:
    with pytest.raises(TypeError, match="input_constraints"):
        BayesianOptimizer(None, [(0.0, 1.0)], input_constraints=3)
    with pytest.raises(ValueError, match="2 columns; the space has 1"):
        BayesianOptimizer(
            None, [(0.0, 1.0)], input_constraints=LinearConstraint([[1.0, 1.0]], 0, 1)
        )
    with pytest.raises(TypeError, match="categorical"):
        BayesianOptimizer(None, SPACE, input_constraints=LinearConstraint([[1.0, 1.0, 1.0]], 0, 1))
    opt = BayesianOptimizer(
        lambda x: 0.0, [(0.0, 1.0)], input_constraints=lambda x: False, n_initial=2
    )
    with pytest.raises(ValueError, match="too small to sample, or empty"):
        opt.ask()


def test_outcome_constraint_finds_the_feasible_optimum() -> None:
    """min (x - 0.3)^2 + (y - 0.8)^2 subject to x + y <= 0.9: the optimum (0.2, 0.7), 0.02,
    on the boundary, where the unconstrained optimum is infeasible."""

    def h(x: np.ndarray) -> tuple[float, list[float]]:
        return float((x[0] - 0.3) ** 2 + (x[1] - 0.8) ** 2), [float(x[0] + x[1] - 0.9)]

    res = BayesianOptimizer(
        h, [(0.0, 1.0), (0.0, 1.0)], n_outcome_constraints=1, random_state=0
    ).run(25)
    assert res.constraint_values.shape == (25, 1)
    assert res.fun == pytest.approx(0.02, abs=3e-3)
    assert sum(res.x) <= 0.9 + 1e-12
    # the unconstrained best of the evaluations is infeasible: x_best is not it
    assert res.fun >= float(np.nanmin(res.y))


def test_outcome_constraint_bad_returns_are_failures_and_errors() -> None:
    def bad(x: np.ndarray) -> float:
        return 1.0  # not a pair

    opt = BayesianOptimizer(bad, [(0.0, 1.0)], n_outcome_constraints=1, n_initial=2)
    with pytest.raises(RuntimeError, match="must return a pair"):
        opt.run(2)
    assert opt.result().n_failed == 2
    with pytest.raises(ValueError, match="not 'ucb'"):
        BayesianOptimizer(None, [(0.0, 1.0)], n_outcome_constraints=1, acquisition="ucb")
    with pytest.raises(ValueError, match="outcome constraints"):
        BayesianOptimizer(None, [(0.0, 1.0)], n_outcome_constraints=1, acquisition="qnei")
    opt = BayesianOptimizer(None, [(0.0, 1.0)], n_outcome_constraints=2)
    with pytest.raises(TypeError, match="y must be a pair"):
        opt.tell([0.5], 1.0)
    with pytest.raises(ValueError, match="expected n_outcome_constraints=2"):
        opt.tell([0.5], (1.0, [0.0]))
    opt.tell([0.5], (1.0, [0.5, -1.0]))  # infeasible: no best point yet
    with pytest.raises(ValueError, match="no evaluation so far met every outcome constraint"):
        _ = opt.result().x_best


def test_same_seed_same_trajectory_on_a_mixed_space() -> None:
    a = BayesianOptimizer(mixed, SPACE, random_state=7).run(10)
    b = BayesianOptimizer(mixed, SPACE, random_state=7).run(10)
    assert a.x_iters == b.x_iters


def test_maximize_on_space_respects_allowed_and_returns_snapped_points() -> None:
    space = Space([Integer(0, 10), Categorical(["p", "q"]), Real(0.0, 1.0)])
    target = space.transform([[4, "q", 0.6]])[0]

    def value(Z: np.ndarray) -> np.ndarray:
        return -np.sum((Z - target) ** 2, axis=1)

    def allowed(Z: np.ndarray) -> np.ndarray:  # forbid the optimum's integer
        return np.array([p[0] != 4 for p in space.inverse_transform(Z)])

    z, v = maximize_on_space(value, None, space, allowed=allowed, n_candidates=128, random_state=0)
    x = space.inverse_transform(z[None])[0]
    assert x[0] in (3, 5) and x[1] == "q" and abs(x[2] - 0.6) < 1e-4
    np.testing.assert_array_equal(z, snap(space, z[None])[0])
    z, v = maximize_on_space(value, None, space, allowed=lambda Z: np.zeros(len(Z), bool))
    assert v == -np.inf


def test_constrained_ei_never_proposes_a_known_infeasible_point() -> None:
    """Every point after the design differs from each point already found infeasible."""

    def h(x: np.ndarray) -> tuple[float, list[float]]:
        return float(x[0] + x[1]), [float(0.5 - x[0] * x[1])]  # feasible: x0 x1 >= 0.5

    opt = BayesianOptimizer(h, [(0.0, 1.0), (0.0, 1.0)], n_outcome_constraints=1, n_initial=4)
    res = opt.run(16)
    bad: list[np.ndarray] = []
    for x, c in zip(res.X, res.constraint_values, strict=True):
        assert all(np.max(np.abs(x - b)) > 1e-9 for b in bad)
        if c[0] > 0:
            bad.append(x)
    assert res.feasible.any() and np.prod(res.x) >= 0.5


def test_input_predicate_that_raises_is_named() -> None:
    def broken(x: list) -> bool:
        raise KeyError("nope")

    opt = BayesianOptimizer(mixed, SPACE, input_constraints=[broken], n_initial=2)
    with pytest.raises(ValueError, match=r"input constraint 0 \(broken\) raised"):
        opt.ask()
