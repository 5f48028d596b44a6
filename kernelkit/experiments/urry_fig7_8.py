"""Mismatched learning curves: global student / local teacher and vice versa (Figs. 7-8).

Urry & Sollich (2013), Sec. 5, Figs. 7-8 and Appendix B. A GP student with the random
walk kernel (eq. 2, ``a = 2``, ``p = 10``) under one normalisation learns from a teacher
GP with the other (same ``a``, ``p`` and noise ``sigma^2``):

* Fig. 7: globally normalised student, locally normalised teacher;
* Fig. 8: locally normalised student, globally normalised teacher;

each on Erdos-Renyi graphs with mean degree 3 (left) and power-law generalised random
graphs with exponent 2.5 and cutoff 2 (right), ``V = 500``, ``sigma^2 in {1e-1, 1e-2,
1e-3, 1e-4}``. The paper has no theory for mismatch; the curves are simulations
(:func:`kernelkit.learning_curves.simulate` with ``kernel=(student, teacher)``; the
error at a vertex is the teacher- and noise-averaged squared deviation of the student's
posterior mean). The text: the mismatched curves show "an increase in error as nu
approaches unity", a maximum in the learning curve, caused by "dangling edges" (chains
of degree-2 vertices ending in a vertex of degree 1; Appendix B). The matched curves of
the student's kernel (same graphs, data and noise) are drawn in light lines for
contrast.

The ``nu`` grid: 13 log-spaced points on ``[1e-2, 10]`` plus 4 midpoints in
``[0.24, 1.33]`` around the maximum. For each curve we report whether it is
**non-monotonic**: its largest rise ``epsilon(nu_max) - epsilon(nu_dip)`` over a lower
value at a smaller ``nu`` exceeds both 5 % of ``epsilon(nu_dip)`` and two standard
errors of the difference (paired over the graphs, which all ``nu`` share), with
``nu_max`` the maximum after the dip; and the height of that maximum relative to the
start ``epsilon(0.01)`` and to the dip.

Every curve of one ensemble uses the same graphs and example counts (one seed per
ensemble): mismatched and matched curves and noise levels differ only by the kernels.

Quick run: ``V = 200``, 10 graphs x 4 data sets (many graphs: the mismatched errors are
heavy-tailed and vary from graph to graph), 12 log-spaced ``nu`` on ``[1e-2, 10]`` and
only the two extreme noise levels, ``1e-1`` and ``1e-4``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.experiments._urry import (
    NOISES,
    A,
    P,
    RunSizes,
    ensemble,
    noise_label,
    run_sizes,
    walk_kernel,
)
from kernelkit.learning_curves import LearningCurve, simulate
from kernelkit.plotting import COLORS, new_figure, save_figure

#: figure -> (student normalisation, teacher normalisation)
FIGURES = {"Fig. 7": ("global", "local"), "Fig. 8": ("local", "global")}
ENSEMBLES = ("er", "power-law")
#: A rise counts when above this fraction of the dip and two paired standard errors.
MIN_RISE = 0.05
N_SE = 2.0
PAPER = (
    "'an increase in error as nu approaches unity': a maximum in the learning curve, "
    "caused by dangling edges (Sec. 5, App. B)"
)


def sizes(quick: bool) -> tuple[RunSizes, tuple[float, ...]]:
    """The run's sizes and noise levels: the paper's (``V = 500``, 10 x 10, four noise
    levels; full) or ``V = 200``, 10 x 4, noise ``1e-1`` and ``1e-4`` (quick)."""
    b = run_sizes(quick)
    if quick:
        return (
            dataclasses.replace(
                b, n_vertices=200, n_graphs=10, n_datasets=4, nus=np.logspace(-2, 1, 12)
            ),
            (NOISES[0], NOISES[-1]),
        )
    nus = np.unique(np.concatenate([np.logspace(-2, 1, 13), np.logspace(-0.625, 0.125, 4)]))
    return dataclasses.replace(b, nus=nus), NOISES


def rise(curve: LearningCurve) -> dict[str, Any]:
    """The largest rise of a learning curve over its running minimum.

    ``k`` maximises ``epsilon[k] - min(epsilon[:k])``; the dip is that minimum and the
    maximum is the largest ``epsilon`` after the dip. Its standard error is that of the
    per-graph difference (graphs are shared by all ``nu``). ``non_monotonic``: the rise
    exceeds ``MIN_RISE`` times the dip and ``N_SE`` standard errors.

    Examples
    --------
    >>> import numpy as np
    >>> eps = np.array([0.9, 0.5, 0.7, 0.1])
    >>> errors = np.stack([eps - 0.01, eps + 0.01])[:, None, :]   # 2 graphs, 1 data set
    >>> curve = LearningCurve(np.array([0.01, 0.1, 1.0, 10.0]), eps, np.zeros(4), errors,
    ...                       errors[..., None], 0.1, False, 2, 1)
    >>> r = rise(curve)
    >>> r["non_monotonic"], r["nu_max"], r["nu_dip"], round(r["max_over_dip"], 2)
    (True, 1.0, 0.1, 1.4)
    """
    eps = curve.epsilon
    running_min = np.minimum.accumulate(eps)
    gain = np.zeros_like(eps)
    gain[1:] = eps[1:] - running_min[:-1]
    k = int(np.argmax(gain))
    dip = int(np.argmin(eps[: max(k, 1)]))
    top = dip + int(np.argmax(eps[dip:]))
    per_graph = curve.errors.mean(axis=1)  # (n_graphs, n_nus)
    diff = per_graph[:, top] - per_graph[:, dip]
    se = float(diff.std(ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else 0.0
    size = float(eps[top] - eps[dip])
    return {
        "non_monotonic": bool(size > MIN_RISE * eps[dip] and size > N_SE * se),
        "nu_dip": float(curve.nus[dip]),
        "nu_max": float(curve.nus[top]),
        "epsilon_dip": float(eps[dip]),
        "epsilon_max": float(eps[top]),
        "rise": size,
        "rise_stderr": se,
        "max_over_dip": float(eps[top] / eps[dip]),
        "max_over_start": float(eps[top] / eps[0]),
        "interior": bool(0 < top < eps.size - 1),
    }


def _panel_curves(
    key: str, student: str, teacher: str, b: RunSizes, noises: tuple[float, ...], seed: int
) -> dict[str, dict[str, Any]]:
    sampler = ensemble(key).sampler(b.n_vertices)
    out: dict[str, dict[str, Any]] = {}
    for noise in noises:
        curves = {}
        for name, kernel in (
            ("mismatched", (walk_kernel(student), walk_kernel(teacher))),
            ("matched", walk_kernel(student)),
        ):
            curves[name] = simulate(
                sampler,
                kernel,
                noise,
                b.nus,
                n_graphs=b.n_graphs,
                n_datasets=b.n_datasets,
                random_state=seed,
            )
        out[noise_label(noise)] = {
            "noise": noise,
            "mismatched": _curve_record(curves["mismatched"]),
            "matched": _curve_record(curves["matched"]),
        }
    return out


def _curve_record(curve: LearningCurve) -> dict[str, Any]:
    return {"epsilon": curve.epsilon, "stderr": curve.stderr, **rise(curve)}


def _figure(results: dict, nus: np.ndarray, out: Path) -> str:
    fig, axes = new_figure(len(FIGURES), len(ENSEMBLES), width=4.6, height=3.6)
    for row, (fig_name, (student, teacher)) in enumerate(FIGURES.items()):
        for col, key in enumerate(ENSEMBLES):
            ax = axes[row, col]
            for i, (label, r) in enumerate(results[fig_name][key].items()):
                color = COLORS[i % len(COLORS)]
                mis, mat = r["mismatched"], r["matched"]
                ax.plot(nus, mat["epsilon"], color=color, alpha=0.35, lw=1.0, ls="--")
                ax.errorbar(
                    nus,
                    mis["epsilon"],
                    yerr=mis["stderr"],
                    color=color,
                    marker="o",
                    ms=2.5,
                    capsize=2,
                    label=f"sigma^2 = {label}",
                )
                if mis["non_monotonic"]:
                    ax.plot(mis["nu_max"], mis["epsilon_max"], "kv", ms=6, mfc="none")
            ax.plot([], [], color="0.5", alpha=0.5, ls="--", label="matched (light)")
            # the matched curves at low noise fall far below; keep the mismatched in view
            lowest = min(
                float(np.min(r["mismatched"]["epsilon"])) for r in results[fig_name][key].values()
            )
            ax.set_ylim(bottom=0.5 * lowest)
            ax.set(
                xscale="log",
                yscale="log",
                xlabel="nu = N / V",
                ylabel="epsilon",
                title=f"{fig_name}: {student} student / {teacher} teacher, {ensemble(key).label}",
            )
            ax.title.set_fontsize(7.5)
            ax.legend(fontsize=6.5)
    fig.suptitle(
        f"Mismatched learning curves (simulation), random walk kernel a = {A:g}, p = {P}; "
        "triangles: the maximum",
        fontsize=9,
    )
    return save_figure(fig, out / "urry_fig7_8.png")


@register(
    "urry-fig7-8",
    title="Mismatched learning curves, global/local student and teacher: the maximum",
    source="Urry & Sollich (2013) Figs. 7-8 (Sec. 5, App. B)",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    b, noises = sizes(quick)
    ens_seeds = dict(zip(ENSEMBLES, seeds(random_state, len(ENSEMBLES)), strict=True))
    results: dict[str, dict[str, dict[str, Any]]] = {
        fig_name: {
            key: _panel_curves(key, student, teacher, b, noises, ens_seeds[key])
            for key in ENSEMBLES
        }
        for fig_name, (student, teacher) in FIGURES.items()
    }

    rows, panel_rows = [], []
    n_bumps = n_curves = n_matched_monotone = 0
    for fig_name, (student, teacher) in FIGURES.items():
        for key in ENSEMBLES:
            found = []
            for label, r in results[fig_name][key].items():
                mis, mat = r["mismatched"], r["matched"]
                n_curves += 1
                n_bumps += mis["non_monotonic"]
                n_matched_monotone += not mat["non_monotonic"]
                if mis["non_monotonic"]:
                    found.append(f"{label}: nu = {mis['nu_max']:.3g}")
                shape = (
                    [
                        f"{mis['nu_dip']:.3g}",
                        f"{mis['nu_max']:.3g}",
                        f"{mis['epsilon_max']:.3g}",
                        f"{mis['rise']:.3g} ± {mis['rise_stderr']:.2g}",
                        f"{mis['max_over_dip']:.2f}",
                        f"{mis['max_over_start']:.2f}",
                    ]
                    if mis["rise"] > 0
                    else ["-"] * 6  # the curve never rises
                )
                rows.append(
                    [
                        fig_name,
                        ensemble(key).label,
                        label,
                        "yes" if mis["non_monotonic"] else "no",
                        *shape,
                        "no" if mat["non_monotonic"] else "yes",
                    ]
                )
            panel_rows.append(
                [
                    fig_name,
                    f"{student} student / {teacher} teacher",
                    ensemble(key).label,
                    "; ".join(found) if found else "none",
                    PAPER,
                ]
            )

    lowest = noise_label(noises[-1])
    at_lowest = "; ".join(
        f"{fig_name} {key}: nu = {results[fig_name][key][lowest]['mismatched']['nu_max']:.2g} "
        f"(x{results[fig_name][key][lowest]['mismatched']['max_over_dip']:.2f} over the dip)"
        for fig_name in FIGURES
        for key in ENSEMBLES
        if results[fig_name][key][lowest]["mismatched"]["non_monotonic"]
    )
    headline = (
        f"mismatched curves with a maximum: {n_bumps}/{n_curves} (matched curves monotone: "
        f"{n_matched_monotone}/{n_curves}); maxima at sigma^2 = {lowest}: "
        f"{at_lowest or 'none'} (paper: as nu approaches 1)"
    )
    return {
        "headline": headline,
        "figures": [_figure(results, b.nus, out)],
        "tables": {
            "The maximum per panel (paper: text of Sec. 5)": {
                "columns": ["figure", "student / teacher", "ensemble", "maxima found", "paper"],
                "rows": panel_rows,
            },
            "Mismatched curves per noise level": {
                "columns": [
                    "figure",
                    "ensemble",
                    "sigma^2",
                    "non-monotonic",
                    "nu of dip",
                    "nu of max",
                    "epsilon at max",
                    "rise ± SE",
                    "max / dip",
                    "max / start",
                    "matched monotone",
                ],
                "rows": rows,
            },
        },
        "results": results,
        "student_teacher": {k: {"student": s, "teacher": t} for k, (s, t) in FIGURES.items()},
        "nus": b.nus,
        "noises": list(noises),
        "n_non_monotonic": n_bumps,
        "n_curves": n_curves,
        "n_matched_monotone": n_matched_monotone,
        "sizes": {
            "n_vertices": b.n_vertices,
            "n_graphs": b.n_graphs,
            "n_datasets": b.n_datasets,
        },
        "quick_noises_note": "quick run: only sigma^2 = 1e-1 and 1e-4" if quick else "",
    }
