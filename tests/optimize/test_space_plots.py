"""scikit-optimize's plots: partial dependence against brute force, the figures of
plot_evaluations / plot_objective, plot_convergence's call forms, bad input."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from kernelkit.models import GaussianProcessRegressor
from kernelkit.optimize import BayesianOptimizer, Categorical, Integer, Real, Space, get_function
from kernelkit.optimize import space_plots as sp_module
from kernelkit.optimize.bayesopt import OptimizationResult
from kernelkit.optimize.plots import plot_convergence
from kernelkit.optimize.space_plots import (
    dimension_grid,
    partial_dependence_1d,
    partial_dependence_2d,
    plot_evaluations,
    plot_objective,
)
from kernelkit.optimize.surrogate import ObjectiveModel
from kernelkit.plotting import new_figure, pyplot

BRANIN = get_function("branin")
KERNELS = ["rbf", "linear", "poly"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    pyplot().close("all")


def _mixed_space() -> Space:
    return Space(
        [
            Real(1e-3, 1e1, "log-uniform", name="C"),
            Integer(1, 6, name="depth"),
            Categorical(KERNELS, name="kernel"),
            Real(-1.0, 1.0, name="shift"),
        ]
    )


def _objective(p: list[Any]) -> float:
    return np.log10(p[0]) ** 2 + 0.3 * (p[1] - 3) ** 2 + KERNELS.index(p[2]) + p[3]


def _result(
    space: Space,
    points: list[list[Any]],
    objective: Any = _objective,
    offset: float = 0.0,
    **kw: Any,
) -> OptimizationResult:
    """An OptimizationResult over ``space`` with a real GP fitted to ``objective`` at
    ``points``."""
    n = len(points)
    y = np.array([objective(p) for p in points]) + offset
    X = np.empty((n, space.n_dims), dtype=object)
    X[:] = [tuple(p) for p in points]
    gp = GaussianProcessRegressor(noise=1e-4).fit(space.transform(points), y)
    nan = np.full(n, np.nan)
    fields: dict[str, Any] = dict(
        X=X,
        y=y,
        errors=[None] * n,
        acquisition=nan,
        xi=nan,
        time=nan,
        source=["told"] * n,
        rounds=np.full(n, -1),
        n_initial=5,
        space=space,
        models=[ObjectiveModel(gp, 1.0)],
    )
    fields.update(kw)
    return OptimizationResult(**fields)


@pytest.fixture(scope="module")
def mixed() -> OptimizationResult:
    space = _mixed_space()
    return _result(space, space.rvs(14, random_state=0))


@pytest.fixture(scope="module")
def branin() -> OptimizationResult:
    return BayesianOptimizer(BRANIN, random_state=0).run(10)


# ------------------------------------------------------------------ grids
def test_dimension_grid_per_kind_of_dimension():
    values, pos = dimension_grid(Real(-1.0, 3.0), 5)
    assert values == [-1.0, 0.0, 1.0, 2.0, 3.0] and pos.tolist() == values
    values, _ = dimension_grid(Real(1e-2, 1e2, "log-uniform"), 5)
    assert values == pytest.approx([1e-2, 1e-1, 1.0, 1e1, 1e2], rel=1e-12)
    assert values[0] == 1e-2 and values[-1] == 1e2  # the ends exactly
    assert dimension_grid(Integer(2, 5), 40)[0] == [2, 3, 4, 5]
    values, _ = dimension_grid(Integer(0, 1000), 11)
    assert values == list(range(0, 1001, 100))
    values, _ = dimension_grid(Integer(1, 1000, "log-uniform"), 4)
    assert values == [1, 10, 100, 1000]
    values, pos = dimension_grid(Categorical(KERNELS), 40)
    assert values == KERNELS and pos.tolist() == [0.0, 1.0, 2.0]
    values, pos = dimension_grid(Categorical(list("abcde")), 3)
    assert values == ["a", "c", "e"] and pos.tolist() == [0.0, 2.0, 4.0]


# ------------------------------------------------------------------ partial dependence
def _brute_1d(space: Space, model: Any, i: int, points: list[list[Any]], v: Any) -> float:
    """The average prediction over ``points`` with dimension ``i`` set to ``v``, one
    point at a time through the whole space's transform."""
    preds = []
    for p in points:
        q = list(p)
        q[i] = v
        preds.append(float(model.predict(space.transform([q]))[0]))
    return float(np.mean(preds))


@pytest.mark.parametrize("i", [0, 1, 2, 3], ids=["log-real", "integer", "categorical", "real"])
def test_partial_dependence_1d_equals_brute_force(mixed, i):
    space, model = mixed.space, mixed.models[-1]
    points = space.rvs(15, random_state=1)
    pd = partial_dependence_1d(space, model, i, space.transform(points), n_points=5)
    assert pd.dimension == i
    assert len(pd.grid) == pd.positions.size == pd.mean.size
    want = [_brute_1d(space, model, i, points, v) for v in pd.grid]
    np.testing.assert_allclose(pd.mean, want, rtol=1e-10, atol=1e-12)
    xi, yi = pd  # scikit-optimize's unpacking
    assert xi is pd.positions and yi is pd.mean
    if i == 2:
        assert pd.grid == KERNELS and pd.positions.tolist() == [0, 1, 2]


@pytest.mark.parametrize("i, j", [(2, 0), (1, 3), (0, 1)])
def test_partial_dependence_2d_equals_brute_force(mixed, i, j):
    space, model = mixed.space, mixed.models[-1]
    points = space.rvs(6, random_state=2)
    pd = partial_dependence_2d(space, model, i, j, space.transform(points), n_points=4)
    assert pd.dimensions == (i, j)
    assert pd.mean.shape == (len(pd.grid_i), len(pd.grid_j))
    for a, u in enumerate(pd.grid_i):
        for b, v in enumerate(pd.grid_j):
            preds = []
            for p in points:
                q = list(p)
                q[i], q[j] = u, v
                preds.append(float(model.predict(space.transform([q]))[0]))
            assert pd.mean[a, b] == pytest.approx(np.mean(preds), rel=1e-10, abs=1e-12)
    xi, yi, zi = pd  # scikit-optimize's unpacking: j along x, i along y
    assert xi is pd.positions_j and yi is pd.positions_i and zi is pd.mean


class _Additive:
    """``m(z) = sum_k c_k z_k``: its partial dependence is known in closed form."""

    def __init__(self, c: np.ndarray) -> None:
        self.c = c

    def predict(self, Z: Any) -> np.ndarray:
        return np.asarray(Z) @ self.c


def test_partial_dependence_of_an_additive_model_in_closed_form(monkeypatch):
    space = Space([Real(0.0, 2.0), Integer(0, 4), Categorical(["a", "b", "c"])])
    c = np.array([1.0, -2.0, 0.5, 3.0, -1.0])
    Z = space.transform(space.rvs(40, random_state=3))
    mean_z = Z.mean(axis=0)
    pd = partial_dependence_1d(space, _Additive(c), 1, Z, n_points=40)
    z1 = np.array([0.1, 0.3, 0.5, 0.7, 0.9])  # integer j owns the cell [j - 1/2, j + 1/2)
    others = mean_z @ c - mean_z[1] * c[1]
    np.testing.assert_allclose(pd.mean, others + c[1] * z1, rtol=1e-12)
    pd2 = partial_dependence_2d(space, _Additive(c), 0, 2, Z, n_points=3)
    rest = mean_z[1] * c[1]
    want = rest + np.add.outer(np.array([0.0, 0.5, 1.0]) * c[0], c[2:])
    np.testing.assert_allclose(pd2.mean, want, rtol=1e-12)
    # predicted in several chunks: the same numbers
    monkeypatch.setattr(sp_module, "_CHUNK_ROWS", 50)
    np.testing.assert_allclose(
        partial_dependence_2d(space, _Additive(c), 0, 2, Z, n_points=3).mean, pd2.mean
    )


def test_partial_dependence_names_bad_arguments(mixed):
    space, model = mixed.space, mixed.models[-1]
    Z = space.transform(space.rvs(3, random_state=0))
    with pytest.raises(ValueError, match=r"i must be a dimension index in \[0, 3\], got 4"):
        partial_dependence_1d(space, model, 4, Z)
    with pytest.raises(TypeError, match="i must be an integer"):
        partial_dependence_1d(space, model, "C", Z)
    with pytest.raises(ValueError, match="samples"):
        partial_dependence_1d(space, model, 0, Z[:, :3])
    with pytest.raises(TypeError, match=r"space must be a kernelkit.optimize.Space"):
        partial_dependence_1d([(0.0, 1.0)], model, 0, Z)
    with pytest.raises(TypeError, match="model must have a predict"):
        partial_dependence_1d(space, object(), 0, Z)
    with pytest.raises(ValueError, match="n_points must be >= 1"):
        partial_dependence_1d(space, model, 0, Z, n_points=0)
    with pytest.raises(ValueError, match="i and j must be two different dimensions"):
        partial_dependence_2d(space, model, 1, 1, Z)
    with pytest.raises(ValueError, match=r"j must be a dimension index"):
        partial_dependence_2d(space, model, 1, -1 + 5, Z)


# ------------------------------------------------------------------ plot_evaluations
def test_plot_evaluations_draws_the_lower_triangle(branin, mixed):
    fig = plot_evaluations(branin, bins=5)
    assert len(fig.axes) == 4 and sum(ax.axison for ax in fig.axes) == 3
    axes = np.array(fig.axes).reshape(2, 2)
    x_iters = np.asarray(branin.x_iters)
    first, star = axes[1, 0].collections
    np.testing.assert_allclose(first.get_offsets(), x_iters)  # x0 along x, x1 along y
    np.testing.assert_allclose(star.get_offsets(), [branin.x])
    assert sum(p.get_height() for p in axes[0, 0].patches) == branin.n_calls

    fig = plot_evaluations(mixed)
    assert len(fig.axes) == 16 and sum(ax.axison for ax in fig.axes) == 10
    axes = np.array(fig.axes).reshape(4, 4)
    assert axes[0, 0].get_xscale() == "log" and axes[3, 0].get_xscale() == "log"
    assert axes[2, 0].get_ylabel() == "kernel"
    assert [t.get_text() for t in axes[3, 2].get_xticklabels()] == KERNELS
    # one bar per category and per integer, with every point counted
    heights = [p.get_height() for p in axes[2, 2].patches]
    kernels = [p[2] for p in mixed.x_iters]
    assert heights == [kernels.count(k) for k in KERNELS]
    depth_heights = [p.get_height() for p in axes[1, 1].patches]
    assert depth_heights == [[p[1] for p in mixed.x_iters].count(d) for d in range(1, 7)]


def test_plot_evaluations_plot_dims_labels_and_ax(mixed):
    fig = plot_evaluations(mixed, plot_dims=["kernel", 0], dimensions=["k", "c"])
    assert len(fig.axes) == 4
    axes = np.array(fig.axes).reshape(2, 2)
    assert axes[1, 0].get_ylabel() == "c" and axes[1, 0].get_xlabel() == "k"
    fig, host = new_figure()
    assert plot_evaluations(mixed, plot_dims=[1, 2, 3], ax=host) is fig
    assert len(fig.axes) == 1 + 9  # the host axes, hidden, and the matrix inside it
    assert not host.axison


def test_plot_evaluations_names_bad_arguments(mixed):
    with pytest.raises(TypeError, match="result must be an OptimizationResult"):
        plot_evaluations({"x": 1})
    with pytest.raises(ValueError, match="bins must be >= 1"):
        plot_evaluations(mixed, bins=0)
    with pytest.raises(ValueError, match=r"plot_dims\[1\] = 'gamma' is not a dimension"):
        plot_evaluations(mixed, plot_dims=["C", "gamma"])
    with pytest.raises(ValueError, match=r"plot_dims\[0\] = 7 is not a dimension index"):
        plot_evaluations(mixed, plot_dims=[7])
    with pytest.raises(ValueError, match="plot_dims names a dimension twice"):
        plot_evaluations(mixed, plot_dims=[0, "C"])
    with pytest.raises(TypeError, match="plot_dims must be a list"):
        plot_evaluations(mixed, plot_dims="C")
    with pytest.raises(
        ValueError, match=r"dimensions must give one label per plotted dimension \(4\), got 1"
    ):
        plot_evaluations(mixed, dimensions=["a"])
    with pytest.raises(ValueError, match="size must be > 0"):
        plot_evaluations(mixed, size=0)


# ------------------------------------------------------------------ plot_objective
def test_plot_objective_draws_the_partial_dependence(mixed):
    space, model = mixed.space, mixed.models[-1]
    fig = plot_objective(mixed, n_points=6, n_samples=20, random_state=0)
    assert len(fig.axes) == 16 and sum(ax.axison for ax in fig.axes) == 10
    axes = np.array(fig.axes).reshape(4, 4)
    samples = space.transform(space.rvs(20, random_state=0))  # the plot's samples
    for k in range(4):
        line = axes[k, k].get_lines()[0]
        pd = partial_dependence_1d(space, model, k, samples, n_points=6)
        np.testing.assert_allclose(line.get_ydata(), pd.mean)
        np.testing.assert_allclose(line.get_xdata(), pd.positions)
    marker = axes[1, 1].get_lines()[1]  # the dashed line at the best point
    assert marker.get_xdata()[0] == mixed.x[1]
    points, star = axes[3, 2].collections[-2:]
    assert star.get_offsets()[0].tolist() == [KERNELS.index(mixed.x[2]), mixed.x[3]]
    assert points.get_offsets().shape == (mixed.n_calls, 2)


def test_plot_objective_box_result_and_other_references(branin):
    fig = plot_objective(branin, n_points=5, n_samples=10, random_state=0, show_points=False)
    assert len(fig.axes) == 4 and sum(ax.axison for ax in fig.axes) == 3
    # sample_source="result": the curves are slices of the surrogate through result.x
    fig = plot_objective(branin, n_points=5, sample_source="result", plot_dims=["x1"])
    assert len(fig.axes) == 1
    line = fig.axes[0].get_lines()[0]
    space, model = branin.space, branin.models[-1]
    pts = [[branin.x[0], v] for v in line.get_xdata()]
    np.testing.assert_allclose(line.get_ydata(), model.predict(space.transform(pts)))
    # minimum="expected_minimum": the surrogate's best point, no worse than result.x
    fig = plot_objective(
        branin,
        n_points=5,
        n_samples=10,
        minimum="expected_minimum",
        n_minimum_search=3,
        random_state=0,
    )
    x_star = [
        float(fig.axes[0].get_lines()[1].get_xdata()[0]),
        float(fig.axes[3].get_lines()[1].get_xdata()[0]),
    ]
    at = model.predict(space.transform([x_star, branin.x]))
    assert at[0] <= at[1] + 1e-9
    fig = plot_objective(branin, n_points=5, n_samples=10, minimum=[0.0, 5.0])
    assert fig.axes[0].get_lines()[1].get_xdata()[0] == 0.0


def test_plot_objective_random_minimum_on_a_mixed_space(mixed):
    fig = plot_objective(
        mixed,
        n_points=4,
        n_samples=5,
        plot_dims=[1, 2],
        minimum="expected_minimum_random",
        n_minimum_search=50,
        random_state=0,
    )
    axes = np.array(fig.axes).reshape(2, 2)
    depth = axes[0, 0].get_lines()[1].get_xdata()[0]
    assert depth in range(1, 7)
    # the best of the same 50 random points (the search draws first from the seed)
    space, model = mixed.space, mixed.models[-1]
    pts = space.rvs(50, random_state=0)
    best = pts[int(np.argmin(model.predict(space.transform(pts))))]
    assert depth == best[1]


def test_plot_objective_names_bad_arguments(mixed, branin):
    kw: dict[str, Any] = {"n_points": 3, "n_samples": 3}
    with pytest.raises(ValueError, match="zscale must be one of 'linear', 'log'; got 'cubic'"):
        plot_objective(mixed, zscale="cubic", **kw)
    with pytest.raises(ValueError, match="minimum must be one of 'result', 'expected_minimum'"):
        plot_objective(mixed, minimum="best", **kw)
    with pytest.raises(ValueError, match="sample_source must be one of 'result'"):
        plot_objective(mixed, sample_source="everything", **kw)
    with pytest.raises(TypeError, match=r"sample_source must be one of .* or a point"):
        plot_objective(mixed, sample_source=3, **kw)
    with pytest.raises(ValueError, match=r"minimum, a point of the space: .*dimension 'depth'"):
        plot_objective(mixed, minimum=[1.0, 9, "rbf", 0.0], **kw)
    with pytest.raises(ValueError, match="n_points must be >= 2"):
        plot_objective(mixed, n_points=1)
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        plot_objective(mixed, n_samples=0)
    negative = _result(mixed.space, mixed.x_iters, offset=-100.0)
    with pytest.raises(ValueError, match="zscale='log' needs a positive partial dependence"):
        plot_objective(negative, zscale="log", plot_dims=[0, 3], **kw)
    shifted = _result(mixed.space, mixed.x_iters, offset=100.0)
    assert len(plot_objective(shifted, zscale="log", plot_dims=[0, 3], **kw).axes) == 4
    with pytest.raises(TypeError, match="show_points must be a bool"):
        plot_objective(mixed, show_points="yes", **kw)
    no_model = _result(mixed.space, mixed.x_iters, models=[])
    with pytest.raises(
        ValueError, match=r"result has no fitted surrogate \(result.models is empty"
    ):
        plot_objective(no_model, **kw)
    space = Space([Real(0.0, 1.0, name="a"), Categorical(["only"], name="fixed")])
    pts = [[0.1, "only"], [0.5, "only"], [0.9, "only"]]
    one_cat = _result(space, pts, objective=lambda p: (p[0] - 0.4) ** 2)
    assert len(plot_objective(one_cat, **kw).axes) == 1  # the constant dimension left out
    with pytest.raises(ValueError, match="dimension 'fixed', which has one category"):
        plot_objective(one_cat, plot_dims=["a", "fixed"], **kw)


# ------------------------------------------------------------------ plot_convergence
@pytest.fixture(scope="module")
def runs() -> list[OptimizationResult]:
    f = get_function("forrester")
    return [BayesianOptimizer(f, random_state=s).run(6) for s in range(3)]


def test_plot_convergence_scikit_optimize_forms(runs):
    one, two, three = runs
    ax = plot_convergence(one).axes[0]
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), one.best_so_far)
    ax = plot_convergence(one, two, three).axes[0]
    assert len(ax.get_lines()) == 3 + 1  # three curves and the end of the initial design
    ax = plot_convergence(("EI", runs), ("one", one), true_minimum=-6.02, yscale="symlog").axes[0]
    lines = ax.get_lines()
    assert len(lines) == 3 + 1 + 1 + 1 + 1  # faint runs, mean, one, true minimum, n_initial
    mean = np.mean([r.best_so_far for r in runs], axis=0)
    np.testing.assert_allclose(lines[3].get_ydata(), mean)
    assert lines[3].get_label() == "EI (mean of 3)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "EI (mean of 3)",
        "one",
        "true minimum",
    ]
    assert ax.get_yscale() == "symlog"
    assert lines[5].get_ydata()[0] == -6.02


def test_plot_convergence_ragged_runs_warn_and_average_what_there_is(runs):
    short = BayesianOptimizer(get_function("forrester"), random_state=5).run(4)
    with pytest.warns(UserWarning, match=r"results\[0\]: the runs have different numbers"):
        fig = plot_convergence([runs[0], short])
    mean = fig.axes[0].get_lines()[2].get_ydata()
    assert mean.size == 6
    np.testing.assert_allclose(mean[4:], runs[0].best_so_far[4:])


def test_plot_convergence_keeps_kernelkits_older_forms(runs):
    fig, ax = new_figure()
    assert plot_convergence(runs[:2], ax=ax, minimum=-6.0207, labels=["a", "b"]) is fig
    assert [line.get_label() for line in ax.get_lines()[:2]] == ["a", "b"]
    assert ax.get_yscale() == "log"  # regret
    np.testing.assert_allclose(
        ax.get_lines()[0].get_ydata(), np.maximum(runs[0].regret(-6.0207), 1e-16)
    )
    fig, ax = new_figure()
    assert plot_convergence(runs[0], ax) is fig  # ax as the second positional argument
    assert runs[0].plot_convergence(minimum=-6.0207).axes[0].get_ylabel() == "simple regret"


def test_plot_convergence_names_bad_arguments(runs):
    for nothing in [(), ([],)]:
        with pytest.raises(ValueError, match="results is empty; pass an OptimizationResult"):
            plot_convergence(*nothing)
    with pytest.raises(ValueError, match=r"results\[1\] is an empty list"):
        plot_convergence(runs[0], [])
    with pytest.raises(TypeError, match=r"results\[1\] must be an OptimizationResult, a list"):
        plot_convergence(runs[0], "run")
    with pytest.raises(TypeError, match=r"results\[0\]\[1\]\[1\] must be an OptimizationResult"):
        plot_convergence(("EI", [runs[0], 3]))
    with pytest.raises(ValueError, match=r"results\[0\]\[1\] is an empty list"):
        plot_convergence(("EI", []))
    with pytest.raises(ValueError, match=r"give minimum .* or true_minimum .*, not both"):
        plot_convergence(runs[0], minimum=0.0, true_minimum=0.0)
    with pytest.raises(ValueError, match="true_minimum must be a finite number"):
        plot_convergence(runs[0], true_minimum=float("nan"))
    with pytest.raises(ValueError, match="yscale must be one of"):
        plot_convergence(runs[0], yscale="loglog")
    with pytest.raises(ValueError, match=r"labels either in .* pairs or as labels, not both"):
        plot_convergence(("a", runs[0]), labels=["b"])
    with pytest.raises(ValueError, match=r"labels must give one label per result \(2\), got 1"):
        plot_convergence(runs[0], runs[1], labels=["b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_convergence(runs)  # equal lengths: no warning
