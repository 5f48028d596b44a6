"""Figures of Bayesian optimisation: the seed's per-step view and convergence curves.

All figures are made with :func:`kernelkit.plotting.new_figure`; save them with
:func:`kernelkit.plotting.save_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kernelkit._memory import check_memory
from kernelkit._validation import check_array, check_int
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
    gp, s = opt.step_surrogate(step)
    if show_objective is None:
        show_objective = isinstance(opt.objective, TestFunction)
    lo, hi = opt.bounds_[0]
    u = np.linspace(0.0, 1.0, n_grid)[:, None]
    x = lo + u[:, 0] * (hi - lo)
    sign = 1.0 if opt.maximize else -1.0  # y = sign * g
    pn = posterior(gp, u, normalized=True)  # the acquisition's scale
    acq = s.acquisition(pn.mean, pn.std, s.best)
    scale = float(gp.y_train_std_)  # back to the scale of g, as posterior() does
    mean = sign * (pn.mean * scale + float(gp.y_train_mean_))
    std = pn.std * scale

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
    top.fill_between(x, mean - std, mean + std, color=COLORS[0], alpha=0.25, label="μ ± σ")
    Xd = np.asarray(opt._X[: s.n_data])[:, 0]
    yd = np.asarray(opt._y[: s.n_data], dtype=float)
    ok = np.isfinite(yd)
    top.plot(Xd[ok], yd[ok], "o", color=COLORS[3], ms=4, label=f"evaluated ({ok.sum()})")
    x_next = lo + s.x_next[0] * (hi - lo)
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
    results: Any, ax: Any = None, *, minimum: float | None = None, labels: Any = None
) -> Any:
    """Best value so far (or simple regret, when ``minimum`` is known) per evaluation.

    Parameters
    ----------
    results : OptimizationResult or list of OptimizationResult
        One run, or several drawn on the same axes.
    ax : matplotlib Axes, optional
        Draw into these axes instead of a new figure.
    minimum : float, optional
        The known optimum: plot the simple regret ``|best so far - minimum|`` on a log
        scale instead of the best value.
    labels : list of str, optional
        A legend label per result.

    Returns
    -------
    matplotlib Figure
        The figure drawn into.

    Raises
    ------
    ValueError
        No result, ``labels`` not one per result, or a ``minimum`` that is not finite.
    """
    res_list = results if isinstance(results, (list, tuple)) else [results]
    if not res_list:
        raise ValueError("results is empty; pass an OptimizationResult or a list of them")
    if labels is not None and len(labels) != len(res_list):
        raise ValueError(
            f"labels must give one label per result ({len(res_list)}), got {len(labels)}"
        )
    regrets = [] if minimum is None else [res.regret(minimum) for res in res_list]
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    for k, res in enumerate(res_list):
        n = np.arange(1, res.n_calls + 1)
        label = labels[k] if labels is not None else None
        if minimum is None:
            ax.plot(n, res.best_so_far, "-", drawstyle="steps-post", label=label)
        else:
            ax.semilogy(n, np.maximum(regrets[k], 1e-16), "-", drawstyle="steps-post", label=label)
    ax.axvline(res_list[0].n_initial + 0.5, color="gray", lw=0.8, ls="--")
    ax.set(
        xlabel="evaluations",
        ylabel="best value so far" if minimum is None else "simple regret",
        title="convergence",
    )
    if labels is not None:
        ax.legend()
    return fig


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
