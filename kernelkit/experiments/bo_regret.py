"""Simple regret of Bayesian optimisation, with and without hyperparameter refitting (Q2.8).

Branin (2-D, 30 evaluations of which 5 initial) and Hartmann-6 (6-D, 60 evaluations of
which 10 initial), 10 seeds: the median simple regret ``min_{i <= n} f(x_i) - f*`` against
the number of evaluations ``n`` with its inter-quartile band, for
:class:`~kernelkit.optimize.BayesianOptimizer` with its defaults (EI, ARD Matérn 5/2) when
the GP hyperparameters are re-maximised at every step and when they are fitted once on the
initial design and then kept (``refit_hyperparameters=False``), the seed's question 2.8a.
The full version adds Q2.8b on Hartmann-6: Matérn ``nu`` in {3/2, 5/2, inf} with refitting.
The quick version runs Branin only, with 6 seeds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from kernelkit.experiments import register
from kernelkit.experiments._common import median_iqr, seeds
from kernelkit.optimize import BayesianOptimizer, default_kernel, get_function
from kernelkit.optimize.plots import plot_regret_bands
from kernelkit.plotting import new_figure, save_figure


def _curves(name: str, n_eval: int, n_initial: int, run_seeds: list[int], **kw: Any) -> np.ndarray:
    f = get_function(name)
    rows = []
    for s in run_seeds:  # the optimiser works on its own copy of any kernel in kw
        res = BayesianOptimizer(f, f.bounds, n_initial=n_initial, random_state=s, **kw).run(n_eval)
        rows.append(res.regret(f.minimum))
    return np.asarray(rows)


@register(
    "bo-regret",
    title="Bayesian optimisation regret on Branin and Hartmann-6: refitting hyperparameters",
    source="assignment Q2.8 (hyperparameter re-optimisation, Matérn choice)",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    problems = [("branin", 30, 5)] if quick else [("branin", 30, 5), ("hartmann6", 60, 10)]
    run_seeds = seeds(random_state, 6 if quick else 10)
    results: dict[str, dict[str, np.ndarray]] = {}
    for name, n_eval, n0 in problems:
        results[name] = {
            "refit every step": _curves(name, n_eval, n0, run_seeds),
            "fit on initial design only": _curves(
                name, n_eval, n0, run_seeds, refit_hyperparameters=False
            ),
        }
    if not quick:
        for nu, label in ((1.5, "3/2"), (np.inf, "∞")):
            results["hartmann6"][f"Matérn ν = {label}, refit"] = _curves(
                "hartmann6", 60, 10, run_seeds, kernel=default_kernel(6, nu=nu)
            )

    fig, axes = new_figure(1, len(problems), width=4.6)
    axes = np.atleast_2d(axes)
    for j, (name, _, n0) in enumerate(problems):
        plot_regret_bands(results[name], axes[0, j], title=name, n_initial=n0)
    figs = [save_figure(fig, out / "bo_regret.png")]

    rows = []
    medians: dict[str, dict[str, float]] = {}
    for (name, n_eval, _), curves in zip(problems, results.values(), strict=True):
        medians[name] = {}
        for label, R in curves.items():
            final = R[:, -1]
            medians[name][label] = float(np.median(final))
            rows.append([name, label, n_eval, *median_iqr(final)])
    parts = [
        f"{name}: refit {m['refit every step']:.1e} vs initial fit only "
        f"{m['fit on initial design only']:.1e}"
        for name, m in medians.items()
    ]
    return {
        "headline": f"median final regret ({len(run_seeds)} seeds) " + "; ".join(parts),
        "figures": figs,
        "tables": {
            f"final simple regret, {len(run_seeds)} seeds": {
                "columns": ["function", "surrogate", "evaluations", "median regret", "IQR"],
                "rows": rows,
            }
        },
        "seeds": run_seeds,
        "median_final_regret": medians,
        "regret_curves_median": {
            name: {k: np.median(v, axis=0) for k, v in curves.items()}
            for name, curves in results.items()
        },
    }
