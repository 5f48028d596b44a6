"""Figures of Bayesian optimisation: the seed's per-step view and convergence curves.

All figures are made with :func:`kernelkit.plotting.new_figure`; save them with
:func:`kernelkit.plotting.save_figure`.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from kernelkit._memory import check_memory
from kernelkit._validation import check_array, check_in, check_int
from kernelkit.optimize.functions import TestFunction
from kernelkit.optimize.surrogate import posterior
from kernelkit.plotting import COLORS, new_figure

__all__ = ["plot_step", "plot_convergence", "plot_regret_bands"]


def plot_step(
    opt: Any,
    step: int,
    *,
    show_objective: bool | None = None,
    n_grid: int = 400,
    axes: Any = None,
) -> Any:
    """The assignment's Figure 3 for evaluation ``step`` of a 1-D optimiser.

    Top: the objective (if ``show_objective``; by default only for test functions, which
    are cheap on a grid), the surrogate mean ``mu`` (dashed) with the ``mu ± sigma``
    band, the points evaluated before ``step`` and the next point. Bottom: the
    acquisition ``u(x | D)`` that chose it (on the GP's normalised scale), its maximiser
    marked.

    Parameters
    ----------
    opt : BayesianOptimizer
        A one-dimensional optimiser.
    step : int
        Index of an evaluation chosen by the acquisition (see ``opt.acquisition_steps``).
    show_objective : bool, optional
        Draw the objective on the grid; default: only for a
        :class:`~kernelkit.optimize.functions.TestFunction`.
    n_grid : int, default=400
        Grid points over the interval.
    axes : pair of Axes, optional
        Draw into these (top, bottom) instead of a new figure.

    Returns
    -------
    matplotlib Figure
        The figure drawn into (that of ``axes`` when given).

    Raises
    ------
    ValueError
        ``opt`` is not one-dimensional, ``step`` was not chosen by the acquisition, or
        ``n_grid < 2``.
    """
    n_grid = check_int(n_grid, "n_grid", minimum=2)
    check_memory(16 * 8 * n_grid, f"plot_step(n_grid={n_grid})", "lower n_grid")
    if opt.n_dims != 1:
        raise ValueError(
            f"plot(step) draws 1-D problems, this one has {opt.n_dims} dimensions; "
            "use plot_convergence() for any dimension"
        )
    if opt.bounds_ is None:
        raise ValueError(
            "plot(step) draws a real interval; this space's dimension is an integer or "
            "categorical one: use plot_objective() or plot_evaluations()"
        )
    gp, s = opt.step_surrogate(step)
    if show_objective is None:
        show_objective = isinstance(opt.objective, TestFunction)
    u = np.linspace(0.0, 1.0, n_grid)[:, None]

    def to_x(unit: np.ndarray) -> np.ndarray:  # the cube to the interval (log or not)
        return np.asarray(opt.space_.inverse_transform(unit[:, None]), dtype=float)[:, 0]

    x = to_x(u[:, 0])
    sign = 1.0 if opt.maximize else -1.0  # y = sign * g
    pn = posterior(gp, u, normalized=True)  # the acquisition's scale
    acq = s.acquisition(pn.mean, pn.std, s.best)
    scale = float(gp.y_train_std_)  # back to the scale of g, as posterior() does
    z, dz = pn.mean * scale + float(gp.y_train_mean_), pn.std * scale
    # through the inverse output transform: the median and the mapped +- sigma band
    back = s.output_transform.inverse
    mean = sign * back(z)
    band = np.sort(sign * np.stack([back(z - dz), back(z + dz)]), axis=0)

    if axes is None:
        fig, ax = new_figure(
            2, 1, width=6.0, height=2.2, sharex=True, gridspec_kw={"height_ratios": [2, 1]}
        )
        top, bottom = ax[0, 0], ax[1, 0]
    else:
        top, bottom = axes
        fig = top.figure
    if show_objective and opt.objective is not None:
        fx = np.array([float(opt.objective(np.array([xi]))) for xi in x])
        top.plot(x, fx, color="k", lw=1.0, label="objective f")
    top.plot(x, mean, "--", color=COLORS[0], label="surrogate mean μ")
    top.fill_between(x, band[0], band[1], color=COLORS[0], alpha=0.25, label="μ ± σ")
    Xd = np.asarray(opt._X[: s.n_data])[:, 0]
    yd = np.asarray(opt._y[: s.n_data], dtype=float)
    ok = np.isfinite(yd)
    top.plot(Xd[ok], yd[ok], "o", color=COLORS[3], ms=4, label=f"evaluated ({ok.sum()})")
    x_next = float(to_x(s.x_next[:1])[0])
    for a in (top, bottom):
        a.axvline(x_next, color=COLORS[2], lw=1.0, ls=":")
    if step < len(opt._y) and np.isfinite(opt._y[step]):
        top.plot([x_next], [opt._y[step]], "*", color=COLORS[2], ms=9, label="next point")
    top.set(ylabel="f(x)", title=f"step {step}: {s.n_data} evaluations")
    top.legend(loc="best")
    if s.greedy:
        label = "posterior mean (greedy step)"
    else:
        xi = getattr(s.acquisition, "xi", None)
        label = type(s.acquisition).__name__ + (f" (ξ = {xi:.3g})" if xi is not None else "")
    bottom.plot(x, acq, color=COLORS[1], label=label)
    i = int(np.argmin(np.abs(x - x_next)))
    bottom.plot([x_next], [acq[i]], "v", color=COLORS[2], ms=7, label="argmax u")
    bottom.set(xlabel="x", ylabel="u(x | D)")
    bottom.legend(loc="best")
    return fig


def plot_convergence(
    *results: Any,
    ax: Any = None,
    minimum: float | None = None,
    labels: Any = None,
    true_minimum: float | None = None,
    yscale: str | None = None,
) -> Any:
    """Best value so far (or simple regret, when ``minimum`` is known) per evaluation.

    Takes kernelkit's call forms and scikit-optimize's (``skopt.plots.plot_convergence``):
    each positional argument is one trace,

    - an :class:`~kernelkit.optimize.OptimizationResult`: its curve;
    - a list (or tuple) of results, several runs of one method: each run drawn faintly
      and their mean boldly (runs of different lengths are averaged over those that
      reached each evaluation, with a warning);
    - a pair ``(label, result)`` or ``(label, [result, ...])``: the same, named in the
      legend.

    So ``plot_convergence(res)``, ``plot_convergence(res1, res2)`` and
    ``plot_convergence(("EI", runs_ei), ("PI", runs_pi), true_minimum=0.398)`` all work.
    With ``labels``, a single list ``plot_convergence([res1, res2], labels=[...])`` is
    kernelkit's older form: one labelled curve per result (not their mean).

    Parameters
    ----------
    *results : OptimizationResult, list of them, or (str, either) pairs
        The traces, as above.
    ax : matplotlib Axes, optional
        Draw into these axes instead of a new figure (also accepted as the last
        positional argument, kernelkit's older form ``plot_convergence(res, ax)``).
    minimum : float, optional
        The known optimum: plot the simple regret ``|best so far - minimum|`` on a log
        scale instead of the best value.
    labels : list of str, optional
        A legend label per trace.
    true_minimum : float, optional
        The known optimum, drawn as a dashed horizontal line over the best values
        (scikit-optimize's argument; drawn also when it is 0). Use ``minimum`` instead
        to plot the regret.
    yscale : str, optional
        The scale of the y-axis: ``"linear"``, ``"log"``, ``"symlog"`` or ``"logit"``.

    Returns
    -------
    matplotlib Figure
        The figure drawn into (scikit-optimize returns the axes: they are
        ``fig.axes[0]``, or the ``ax`` passed).

    Raises
    ------
    ValueError
        No result, an empty list, ``labels`` not one per trace or given with labelled
        pairs, both ``minimum`` and ``true_minimum``, an optimum that is not finite, or
        an unknown ``yscale``.
    TypeError
        A trace that is not a result, a list of results or a ``(label, ...)`` pair.

    Examples
    --------
    >>> from kernelkit.optimize import BayesianOptimizer, get_function
    >>> f = get_function("forrester")
    >>> runs = [BayesianOptimizer(f, random_state=s).run(6) for s in range(2)]
    >>> fig = plot_convergence(("EI", runs), runs[0], true_minimum=f.minimum, yscale="symlog")
    >>> ax = fig.axes[0]
    >>> len(ax.get_lines())  # two faint runs, their mean, one run, the true minimum, n_initial
    6
    """
    args = list(results)
    if args and _is_axes(args[-1]):
        if ax is not None:
            raise TypeError("plot_convergence got ax both as a positional and a keyword argument")
        ax = args.pop()
    if labels is not None and len(args) == 1 and _is_run_list(args[0]):
        args = list(args[0])  # the older form: one curve per result
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not args[0]:
        args = []  # plot_convergence([]): nothing to draw, said as before
    traces = [_trace(arg, k) for k, arg in enumerate(args)]
    if not traces:
        raise ValueError("results is empty; pass an OptimizationResult or a list of them")
    if labels is not None:
        if len(labels) != len(traces):
            raise ValueError(
                f"labels must give one label per result ({len(traces)}), got {len(labels)}"
            )
        if any(label is not None for label, _, _ in traces):
            raise ValueError("give labels either in (label, result) pairs or as labels, not both")
        traces = [
            (str(lab), runs, group) for lab, (_, runs, group) in zip(labels, traces, strict=True)
        ]
    if minimum is not None and true_minimum is not None:
        raise ValueError(
            "give minimum (plot the regret) or true_minimum (mark it over the best values), "
            "not both"
        )
    if true_minimum is not None:
        true_minimum = _finite(true_minimum, "true_minimum")
    if yscale is not None:
        check_in(yscale, "yscale", _YSCALES)
    curves = [
        [run.best_so_far if minimum is None else run.regret(minimum) for run in runs]
        for _, runs, _ in traces
    ]
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    plot = ax.plot if minimum is None else ax.semilogy
    for k, ((label, _, group), ys) in enumerate(zip(traces, curves, strict=True)):
        color = COLORS[k % len(COLORS)]
        if minimum is not None:
            ys = [np.maximum(y, 1e-16) for y in ys]
        if not group:
            n = np.arange(1, ys[0].size + 1)
            plot(n, ys[0], "-", color=color, drawstyle="steps-post", label=label)
            continue
        for y in ys:
            plot(
                np.arange(1, y.size + 1),
                y,
                "-",
                color=color,
                alpha=0.3,
                lw=0.8,
                drawstyle="steps-post",
            )
        width = max(y.size for y in ys)
        if any(y.size != width for y in ys):
            warnings.warn(
                f"results[{k}]: the runs have different numbers of evaluations "
                f"({sorted({y.size for y in ys})}); the mean after n evaluations averages "
                "the runs that reached n",
                UserWarning,
                stacklevel=2,
            )
        padded = np.full((len(ys), width), np.nan)
        for i, y in enumerate(ys):
            padded[i, : y.size] = y
        with warnings.catch_warnings():  # a column of failures only: nan, as intended
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(padded, axis=0)
        n = np.arange(1, width + 1)
        mean_label = label if label is None else f"{label} (mean of {len(ys)})"
        plot(n, mean, "-", color=color, lw=2.0, drawstyle="steps-post", label=mean_label)
    if true_minimum is not None:
        ax.axhline(true_minimum, color="r", lw=1.0, ls="--", label="true minimum")
    ax.axvline(traces[0][1][0].n_initial + 0.5, color="gray", lw=0.8, ls="--")
    if yscale is not None:
        ax.set_yscale(yscale)
    ax.set(
        xlabel="evaluations",
        ylabel="best value so far" if minimum is None else "simple regret",
        title="convergence",
    )
    if true_minimum is not None or any(label is not None for label, _, _ in traces):
        ax.legend()
    return fig


_YSCALES = ("linear", "log", "symlog", "logit")


def _is_axes(obj: Any) -> bool:
    """Whether ``obj`` is a matplotlib Axes (without importing matplotlib for a result)."""
    return hasattr(obj, "get_lines") and hasattr(obj, "figure")


def _is_run_list(obj: Any) -> bool:
    return isinstance(obj, (list, tuple)) and not _is_labelled(obj)


def _is_result(obj: Any) -> bool:
    """Whether ``obj`` reads as an :class:`~kernelkit.optimize.OptimizationResult` (by
    what the curves use: this module sits below the optimiser and does not import it)."""
    return all(hasattr(obj, name) for name in ("best_so_far", "y", "maximize", "n_calls"))


def _is_labelled(obj: Any) -> bool:
    return isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str)


def _trace(arg: Any, k: int) -> tuple[str | None, list[Any], bool]:
    """``(label, runs, group)`` of the ``k``-th positional argument: ``group`` whether it
    was a list of runs (drawn with their mean) rather than one result."""
    label = None
    where = f"results[{k}]"
    if _is_labelled(arg):
        label, arg = arg
        where = f"results[{k}][1]"
    if _is_result(arg):
        return label, [arg], False
    if isinstance(arg, (list, tuple)):
        if not arg:
            raise ValueError(f"{where} is an empty list; pass at least one OptimizationResult")
        for i, run in enumerate(arg):
            if not _is_result(run):
                raise TypeError(
                    f"{where}[{i}] must be an OptimizationResult, got {type(run).__name__}"
                )
        return label, list(arg), True
    raise TypeError(
        f"{where} must be an OptimizationResult, a list of them, or a (label, result) "
        f"pair; got {type(arg).__name__}"
    )


def _finite(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    if not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def plot_regret_bands(
    curves: Mapping[str, Any], ax: Any = None, *, title: str = "", n_initial: int | None = None
) -> Any:
    """Median simple regret with the inter-quartile band, one curve per method.

    Parameters
    ----------
    curves : mapping of str to array-like of shape (n_seeds, n_calls)
        Per method, the simple regret of each seed after each evaluation.
    ax : matplotlib Axes, optional
        Draw into these axes instead of a new figure.
    title : str, default=""
        The axes' title.
    n_initial : int, optional
        Size of the initial design, marked by a vertical line.

    Returns
    -------
    matplotlib Figure
        The figure drawn into.

    Raises
    ------
    ValueError
        No curve, or a curve that is not a non-empty 2-D array of regrets.
    """
    if not curves:
        raise ValueError("curves is empty; pass one (n_seeds, n_calls) array per method")
    arrays = {}
    for label, R in curves.items():
        R = check_array(R, f"curves[{label!r}]", dtype=np.float64, finite=False)
        if np.isnan(R).all():
            raise ValueError(f"curves[{label!r}] holds only NaN: no regret to draw")
        arrays[label] = R
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    for k, (label, R) in enumerate(arrays.items()):
        R = np.maximum(R, 1e-12)
        n = np.arange(1, R.shape[1] + 1)
        q1, med, q3 = np.percentile(R, [25, 50, 75], axis=0)
        c = COLORS[k % len(COLORS)]
        ax.semilogy(n, med, color=c, label=f"{label} (median)")
        ax.fill_between(n, q1, q3, color=c, alpha=0.2)
    if n_initial is not None:
        ax.axvline(n_initial + 0.5, color="gray", lw=0.8, ls="--")
    ax.set(xlabel="evaluations", ylabel="simple regret", title=title)
    ax.legend()
    return fig
