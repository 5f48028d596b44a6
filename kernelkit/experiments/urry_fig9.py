"""Variance across vertices of the local posterior variance, local vs global kernels (Fig. 9).

Urry & Sollich (2013), Sec. 5, Fig. 9: how much the local Bayes error varies from vertex
to vertex, against ``nu = N / V``, for matched GP regression with the random walk kernel
(eq. 2, ``a = 2``, ``p = 10``), ``sigma^2 = 0.1``, locally (stars) and globally
(circles) normalised, on Erdos-Renyi graphs with mean degree 3 (left) and power-law
generalised random graphs with exponent 2.5 and cutoff 2 (right).

* **simulation** (:func:`kernelkit.learning_curves.simulate`, ``V = 500``, 10 graphs x
  10 data sets): the variance over the vertices of the posterior variances
  (``LearningCurve.vertex_errors``) of each graph and data set, averaged; its standard
  error is that of the per-graph means. Both normalisations use the same graphs and
  example counts.
* **cavity** (:func:`kernelkit.learning_curves.cavity`, population 2000): the variance
  of the population's posterior variance samples (``CavityResult.posterior_variances``),
  the large-graph prediction. Its samples are heavy-tailed under global normalisation
  (rare vertices with a large prior variance, Fig. 2), so this estimate is noisy.

The paper's text: with local normalisation the variance is "low for small nu, increasing
to a peak at nu ~ 0.2 and finally decreasing again"; with global normalisation it "is
largest at nu = 0 and decays from there". The grid is ``nu = 0`` (drawn on the linear
part of a symmetric-log axis) and log-spaced values on ``[1e-2, 10]``. We report the
``nu`` of the local peak (the grid's maximum, refined by a parabola through it and its
neighbours in ``log nu``) and whether the global curve is largest at ``nu = 0``: its
maximum there, or above it by less than two standard errors of the difference (paired
over graphs; the curve is flat to within the noise of the data sets for ``nu << 0.1``).

Quick run: ``V = 200``, 4 graphs x 4 data sets, population 300, 8 sweeps, 9 log-spaced
``nu``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.experiments._urry import A, P, RunSizes, ensemble, run_sizes, walk_kernel
from kernelkit.learning_curves import LearningCurve, cavity, simulate
from kernelkit.plotting import COLORS, new_figure, save_figure

NOISE = 0.1
ENSEMBLES = ("er", "power-law")
NORMALIZATIONS = {"local": "*", "global": "o"}  # the paper's markers
#: The text's local peak.
PAPER_PEAK = 0.2
N_SE = 2.0


def sizes(quick: bool) -> RunSizes:
    """``V = 500``, 10 x 10, population 2000, 16 sweeps, ``nu = 0`` and 16 log-spaced
    values (full) or ``V = 200``, 4 x 4, population 300, 8 sweeps, ``0`` and 9 (quick)."""
    b = run_sizes(quick)
    if quick:
        return dataclasses.replace(
            b, n_vertices=200, population=300, sweeps=8, nus=_grid(np.logspace(-2, 1, 9))
        )
    return dataclasses.replace(b, nus=_grid(b.nus))


def _grid(nus: np.ndarray) -> np.ndarray:
    return np.concatenate([[0.0], nus])


def vertex_variance(curve: LearningCurve) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The variance over vertices of the posterior variances, per graph and data set,
    averaged: ``(mean, stderr, per_graph)``, ``stderr`` from the per-graph means
    ``per_graph`` of shape ``(n_graphs, n_nus)``.

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([[[[0.0, 2.0]], [[1.0, 1.0]]]])  # 1 graph, 2 data sets, 1 nu, V = 2
    >>> curve = LearningCurve(np.array([1.0]), np.ones(1), np.zeros(1), v.mean(axis=3), v,
    ...                       0.1, True, 1, 2)
    >>> mean, stderr, per_graph = vertex_variance(curve)
    >>> mean.tolist(), per_graph.tolist()
    ([0.5], [[0.5]])
    """
    per_graph = curve.vertex_errors.var(axis=3).mean(axis=1)
    n = per_graph.shape[0]
    se = (
        per_graph.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.full(per_graph.shape[1], np.nan)
    )
    return per_graph.mean(axis=0), se, per_graph


def peak_nu(nus: np.ndarray, values: np.ndarray) -> tuple[float, float]:
    """The ``nu`` of the largest value on the grid, and refined by the vertex of the
    parabola through it and its two neighbours in ``log nu`` (the grid value at an end
    of the grid or where the parabola opens upwards). ``nu = 0`` is skipped.

    Examples
    --------
    >>> import numpy as np
    >>> nus = np.array([0.0, 0.01, 0.1, 1.0, 10.0])
    >>> grid, refined = peak_nu(nus, -np.log10(np.maximum(nus, 1e-9) / 0.2) ** 2)
    >>> grid, round(refined, 3)
    (0.1, 0.2)
    """
    pos = nus > 0
    grid, y = nus[pos], np.asarray(values)[pos]
    x = np.log(grid)
    k = int(np.argmax(y))
    if 0 < k < y.size - 1:
        c2, c1, _ = np.polyfit(x[k - 1 : k + 2], y[k - 1 : k + 2], 2)
        if c2 < 0:
            return float(grid[k]), float(np.exp(-c1 / (2.0 * c2)))
    return float(grid[k]), float(grid[k])


def largest_at_start(values: np.ndarray, per_graph: np.ndarray) -> dict[str, Any]:
    """Whether a curve is largest at its first ``nu``: its maximum there, or above it by
    less than ``N_SE`` standard errors of the paired (per-graph) difference.

    Examples
    --------
    >>> import numpy as np
    >>> per_graph = np.array([[1.0, 0.9, 0.2], [0.8, 0.7, 0.1]])
    >>> largest_at_start(per_graph.mean(axis=0), per_graph)["largest_at_start"]
    True
    """
    k = int(np.argmax(values))
    diff = per_graph[:, k] - per_graph[:, 0]
    n = diff.size
    se = float(diff.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    excess = float(values[k] - values[0])
    return {
        "largest_at_start": bool(k == 0 or excess <= N_SE * se),
        "argmax_index": k,
        "excess_over_start": excess,
        "excess_stderr": se,
        "max_over_start": float(values[k] / values[0]) if values[0] > 0 else float("inf"),
    }


def _panel(key: str, b: RunSizes, sim_seed: int, cav_seed: int) -> dict[str, Any]:
    ens = ensemble(key)
    out: dict[str, Any] = {}
    for norm in NORMALIZATIONS:
        curve = simulate(
            ens.sampler(b.n_vertices),
            walk_kernel(norm),
            NOISE,
            b.nus,
            n_graphs=b.n_graphs,
            n_datasets=b.n_datasets,
            random_state=sim_seed,
        )
        cav = cavity(
            ens.degrees,
            A,
            P,
            NOISE,
            b.nus,
            normalize=norm,
            population=b.population,
            sweeps=b.sweeps,
            random_state=cav_seed,
        )
        mean, se, per_graph = vertex_variance(curve)
        cav_var = cav.posterior_variances.var(axis=1)
        grid_peak, refined_peak = peak_nu(b.nus, mean)
        out[norm] = {
            "simulation": mean,
            "simulation_stderr": se,
            "cavity": cav_var,
            "epsilon_simulation": curve.epsilon,
            "epsilon_cavity": cav.epsilon,
            "peak_nu_grid": grid_peak,
            "peak_nu": refined_peak,
            "peak_nu_cavity": peak_nu(b.nus, cav_var)[1],
            "rises_then_falls": bool(
                mean[1:].argmax() not in (0, mean.size - 2)
                and mean.max() > 2.0 * max(mean[1], mean[-1])
            ),
            **largest_at_start(mean, per_graph),
            "cavity_largest_at_start": bool(np.argmax(cav_var) == 0),
        }
    return out


def _figure(results: dict, nus: np.ndarray, out: Path) -> str:
    fig, axes = new_figure(1, len(ENSEMBLES), width=4.8, height=3.6)
    for ax, key in zip(axes[0], ENSEMBLES, strict=True):
        for i, (norm, marker) in enumerate(NORMALIZATIONS.items()):
            r = results[key][norm]
            color = COLORS[i]
            ax.errorbar(
                nus,
                r["simulation"],
                yerr=r["simulation_stderr"],
                color=color,
                marker=marker,
                ms=7 if marker == "*" else 4.5,
                capsize=2,
                label=f"{norm}: simulation",
            )
            ax.plot(nus, r["cavity"], color=color, ls="--", lw=1.0, label=f"{norm}: cavity")
        ax.axvline(PAPER_PEAK, color="0.5", lw=0.8, ls=":", label="nu = 0.2 (paper's peak)")
        ax.set_xscale("symlog", linthresh=1e-2, linscale=0.4)
        ax.set_xlim(0.0, nus.max() * 1.2)
        ax.set(
            xlabel="nu = N / V (nu = 0 at the left edge)",
            ylabel="variance over vertices of the posterior variance",
            title=ensemble(key).label,
        )
        ax.legend(fontsize=7)
    fig.suptitle(
        f"Error variance, matched, random walk kernel a = {A:g}, p = {P}, sigma^2 = {NOISE:g}: "
        "local (stars) vs global (circles)",
        fontsize=9,
    )
    return save_figure(fig, out / "urry_fig9.png")


@register(
    "urry-fig9",
    title="Variance of the local posterior variance across vertices: local vs global kernels",
    source="Urry & Sollich (2013) Fig. 9 (Sec. 5)",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    b = sizes(quick)
    ss = seeds(random_state, 2 * len(ENSEMBLES))
    results = {key: _panel(key, b, ss[2 * i], ss[2 * i + 1]) for i, key in enumerate(ENSEMBLES)}

    rows = []
    for key in ENSEMBLES:
        loc, glo = results[key]["local"], results[key]["global"]
        label = ensemble(key).label
        rows.append(
            [
                label,
                "local: nu of the peak",
                f"{loc['peak_nu']:.3g} (grid {loc['peak_nu_grid']:.3g})",
                f"{loc['peak_nu_cavity']:.3g}",
                f"~{PAPER_PEAK:g}",
            ]
        )
        rows.append(
            [
                label,
                "local: rises, then falls",
                "yes" if loc["rises_then_falls"] else "no",
                "",
                "yes ('low for small nu, increasing to a peak ... decreasing again')",
            ]
        )
        rows.append(
            [
                label,
                "global: largest at nu = 0",
                f"{'yes' if glo['largest_at_start'] else 'no'} (max at nu = "
                f"{b.nus[glo['argmax_index']]:.3g}: x{glo['max_over_start']:.3f}, "
                f"+{glo['excess_over_start']:.2g} ± {glo['excess_stderr']:.2g})",
                "yes" if glo["cavity_largest_at_start"] else "no",
                "yes ('largest at nu = 0 and decays from there')",
            ]
        )
        rows.append(
            [
                label,
                "global: variance at nu = 0 / local peak",
                f"{glo['simulation'][0]:.3g} / {loc['simulation'].max():.3g}",
                f"{glo['cavity'][0]:.3g} / {loc['cavity'].max():.3g}",
                "",
            ]
        )
    curve_rows = [
        [f"{nu:.3g}"]
        + [
            f"{results[key][norm]['simulation'][k]:.3g} ± "
            f"{results[key][norm]['simulation_stderr'][k]:.1g} "
            f"({results[key][norm]['cavity'][k]:.3g})"
            for key in ENSEMBLES
            for norm in NORMALIZATIONS
        ]
        for k, nu in enumerate(b.nus)
    ]
    headline = (
        "error variance peak, local normalisation: "
        + ", ".join(f"{key} nu = {results[key]['local']['peak_nu']:.2g}" for key in ENSEMBLES)
        + f" (paper ~{PAPER_PEAK:g}); global largest at nu = 0: "
        + ", ".join(
            f"{key} yes"
            if results[key]["global"]["largest_at_start"]
            else f"{key} no (x{results[key]['global']['max_over_start']:.3f} at nu = "
            f"{b.nus[results[key]['global']['argmax_index']]:.2g})"
            for key in ENSEMBLES
        )
        + " (paper: yes)"
    )
    return {
        "headline": headline,
        "figures": [_figure(results, b.nus, out)],
        "tables": {
            "Fig. 9 findings: simulation, cavity and the paper's text": {
                "columns": ["ensemble", "finding", "simulation", "cavity", "paper"],
                "rows": rows,
            },
            "Variance over vertices of the posterior variance: simulation ± SE (cavity)": {
                "columns": ["nu"]
                + [f"{key}, {norm}" for key in ENSEMBLES for norm in NORMALIZATIONS],
                "rows": curve_rows,
            },
        },
        "results": results,
        "nus": b.nus,
        "noise": NOISE,
        "sizes": {
            "n_vertices": b.n_vertices,
            "n_graphs": b.n_graphs,
            "n_datasets": b.n_datasets,
            "population": b.population,
            "sweeps": b.sweeps,
        },
    }
