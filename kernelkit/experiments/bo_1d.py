"""Bayesian optimisation of a multi-modal 1-D function (assignment Q2.5-2.7).

The seed's 1-D study, on the Gramacy & Lee (2012) function (ten local minima, the global
one near the left edge of ``[0.5, 2.5]``; the seed's own notebook function is not part of
the text): PI with its default ``xi = 0.2`` against EI with its default ``xi = 0.05``
against EI with ``xi`` decaying from 1 to 0 (the seed's suggested schedule), and the
Matérn smoothness ``nu`` in {1/2, 3/2, 5/2, inf} with the decaying EI. Every run is the
plain Algorithm 3 (no greedy steps), three initial Sobol points, median final regret over
seeds (quick: 6 seeds, 25 evaluations, lighter hyperparameter and acquisition searches;
full: 20 seeds, 30 evaluations, the optimiser's defaults). The figures are the seed's
Figure 3 at three steps of one run and the median regret curves with quartile bands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from kernelkit.experiments import register
from kernelkit.experiments._common import median_iqr, seeds
from kernelkit.optimize import (
    BayesianOptimizer,
    ExponentialDecaySchedule,
    GramacyLee,
    default_kernel,
)
from kernelkit.optimize.plots import plot_regret_bands, plot_step
from kernelkit.plotting import new_figure, save_figure

N_INITIAL = 3


def _configs(n_steps: int) -> dict[str, dict[str, Any]]:
    decay = ExponentialDecaySchedule(start=1.0, end=0.0, n_steps=n_steps)
    out: dict[str, dict[str, Any]] = {
        "PI, ξ = 0.2 (seed default)": {"acquisition": "pi", "xi": 0.2},
        "EI, ξ = 0.05 (seed default)": {"acquisition": "ei", "xi": 0.05},
        "EI, ξ decaying 1 → 0": {"acquisition": "ei", "xi": decay},
    }
    for nu, name in ((0.5, "1/2"), (1.5, "3/2"), (np.inf, "∞")):
        out[f"EI, ξ decaying, Matérn ν = {name}"] = {
            "acquisition": "ei",
            "xi": decay,
            "kernel": default_kernel(1, nu=nu),
        }
    return out


def _run_one(
    f: GramacyLee, n_eval: int, seed: int, config: dict[str, Any], quick: bool
) -> BayesianOptimizer:
    # quick: warm-started hyperparameter fits only and 512 search candidates (plenty in 1-D)
    opt = BayesianOptimizer(
        f,
        f.bounds,
        n_initial=N_INITIAL,
        exploit_every=None,
        n_restarts=0 if quick else 2,
        n_candidates=512 if quick else 2048,
        random_state=seed,
        **config,
    )
    opt.run(n_eval)
    return opt


@register(
    "bo-1d",
    title="Bayesian optimisation in 1-D: PI vs EI, ξ schedules, Matérn smoothness",
    source="assignment Q2.5-2.7 (Algorithm 3, eqs. 2.11, 2.15-2.17, Figure 3)",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    f = GramacyLee()
    n_eval = 25 if quick else 30
    run_seeds = seeds(random_state, 6 if quick else 20)
    configs = _configs(n_eval - N_INITIAL)
    curves: dict[str, np.ndarray] = {}
    example: BayesianOptimizer | None = None
    for label, config in configs.items():
        rows = []
        for s in run_seeds:
            opt = _run_one(f, n_eval, s, config, quick)
            rows.append(opt.result().regret(f.minimum))
            if example is None and label.startswith("EI, ξ decaying 1"):
                example = opt
        curves[label] = np.asarray(rows)

    final = {k: v[:, -1] for k, v in curves.items()}
    rows = [
        [
            label,
            *median_iqr(r),
            f"{int(np.sum(r < 1e-2))}/{r.size}",
        ]
        for label, r in final.items()
    ]

    figs = []
    assert example is not None
    steps = example.acquisition_steps
    chosen = [steps[0], steps[len(steps) // 2], steps[-1]]
    fig, axes = new_figure(
        2, 3, width=4.0, height=2.3, gridspec_kw={"height_ratios": [2, 1]}, sharex=True
    )
    for j, step in enumerate(chosen):
        plot_step(example, step, axes=(axes[0, j], axes[1, j]))
    figs.append(save_figure(fig, out / "bo_1d_steps.png"))
    acq_curves = {k: curves[k] for k in list(curves)[:3]}
    nu_curves = {k.split(", ")[-1]: curves[k] for k in list(curves)[2:]}
    nu_curves = {("Matérn ν = 5/2" if k.startswith("ξ") else k): v for k, v in nu_curves.items()}
    fig, axes = new_figure(1, 2, width=4.6)
    plot_regret_bands(acq_curves, axes[0, 0], title="acquisition and ξ", n_initial=N_INITIAL)
    plot_regret_bands(
        nu_curves, axes[0, 1], title="Matérn smoothness (EI, ξ decaying)", n_initial=N_INITIAL
    )
    figs.append(save_figure(fig, out / "bo_1d_regret.png"))

    med = {k: float(np.median(v)) for k, v in final.items()}
    keys = list(med)
    return {
        "headline": f"median regret after {n_eval} evaluations ({len(run_seeds)} seeds): "
        f"PI(0.2) {med[keys[0]]:.1e}, EI(0.05) {med[keys[1]]:.1e}, "
        f"EI(ξ decaying) {med[keys[2]]:.1e}; Matérn ν=1/2 {med[keys[3]]:.1e}, "
        f"3/2 {med[keys[4]]:.1e}, ∞ {med[keys[5]]:.1e}",
        "figures": figs,
        "tables": {
            f"final simple regret on Gramacy & Lee after {n_eval} evaluations "
            f"({N_INITIAL} initial), {len(run_seeds)} seeds": {
                "columns": ["method", "median regret", "IQR", "runs with regret < 1e-2"],
                "rows": rows,
            }
        },
        "function": f.name,
        "minimum": f.minimum,
        "n_evaluations": n_eval,
        "seeds": run_seeds,
        "median_final_regret": med,
        "final_regret": final,
        "regret_curves_median": {k: np.median(v, axis=0) for k, v in curves.items()},
    }
