"""GP learning curves with the globally normalised random walk kernel: simulation,
eigenvalue approximation and cavity method (Urry & Sollich 2013, Fig. 3).

The random walk kernel (eq. 2) with ``p = 10``, ``a = 2``, normalised globally (mean prior
variance 1), on three ensembles (one panel each): random 3-regular graphs, Erdos-Renyi
graphs with mean degree 3 and power-law generalised random graphs (exponent 2.5, cutoff
2); noise ``sigma^2 in {1e-1, 1e-2, 1e-3, 1e-4}``; ``nu = N / V`` log-spaced on
``[1e-2, 10]``. Three learning curves per ensemble and noise level:

* **simulation** (:func:`kernelkit.learning_curves.simulate`): the exact Bayes error
  (eq. 12) averaged over graphs of ``V`` vertices and data sets, with its standard error;
* **eigenvalue approximation** (eq. 18, :func:`kernelkit.learning_curves.
  eigenvalue_approximation`) on the numerically computed spectrum of each simulated
  graph's kernel, averaged over those same graphs;
* **cavity method** (Sec. 4.1, population dynamics, eqs. 35 and 38:
  :func:`kernelkit.learning_curves.cavity`) for the ensemble's degree law, the limit of
  large graphs.

The paper's findings (Secs. 3.4 and 4.1): the cavity predictions are "mostly visually
indistinguishable" from the simulations "along the whole length of the curve"; the
eigenvalue approximation is accurate only for small and large ``nu`` and improves as the
noise grows. We measure, per ensemble and noise, the largest relative deviation of each
theory from the simulation and the fraction of points where the cavity lies within
``3 SE + 5 %`` of it (:func:`kernelkit.experiments._urry.within_tolerance`, with the
standard errors of simulation and cavity combined in quadrature).

The full run also computes the spec's verified reference points (random 3-regular
graphs, ``p = 5``, ``sigma^2 = 0.01``, global normalisation) with the same sizes, beside
the spec's numbers. The quick run (the tour) uses two noise levels, smaller graphs, a
small cavity population and five cavity points (the simulation runs on a finer grid).

The runs and comparisons shared with Fig. 5 (``simulate_recording``, ``compare``,
``cavity_curve``, ``spec_reference_table``, ...) are in :mod:`kernelkit.experiments._urry`.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.experiments._urry import (
    MOSTLY,
    A,
    P,
    Plan,
    cavity_curve,
    compare,
    curve_dict,
    curves_table,
    deviation_row,
    ensemble,
    finding,
    findings_table,
    noise_label,
    plan,
    plot_curves,
    relative_deviation,
    simulate_recording,
    spec_reference_table,
    walk_kernel,
)
from kernelkit.graphs import SingularKernelWarning, random_walk_diagonal
from kernelkit.learning_curves import (
    eigenvalue_approximation,
)
from kernelkit.plotting import COLORS, new_figure, save_figure

#: The three panels of Fig. 3 (left to right).
ENSEMBLES = ("regular", "er", "power-law")
#: ``nu`` range where the eigenvalue approximation is expected to fail (Sec. 3.4: it is
#: accurate only for small and large ``nu``).
INTERMEDIATE = (0.1, 3.0)


# -- computing the curves ----------------------------------------------------------------


def eigen_curve(kernels: list[np.ndarray], noise: float, nus: np.ndarray) -> np.ndarray:
    """Eq. 18 on each kernel's numerically computed spectrum, averaged over the kernels."""
    return np.mean([eigenvalue_approximation(C, noise, nus) for C in kernels], axis=0)


def kernels_of(graphs: list[Any], normalize: str) -> list[np.ndarray]:
    """The random walk kernel matrices (``a = 2``, ``p = 10``) of ``graphs``."""
    with warnings.catch_warnings():
        # a = 2 makes the kernel singular on bipartite components (the tree components of
        # sparse graphs); harmless for eq. 18, where a zero eigenvalue adds 0 to g(h)
        warnings.simplefilter("ignore", SingularKernelWarning)
        return [walk_kernel(normalize)(G) for G in graphs]


def mean_prior_variance(graphs: list[Any]) -> float:
    """``mean(diag(C_hat))`` of the unnormalised kernel over ``graphs``: the global
    normaliser ``kappa`` of finite graphs, beside the cavity's (Sec. 4.1)."""
    with warnings.catch_warnings():
        # only the diagonal is used; the kernel's singularity (a = 2) does not matter
        warnings.simplefilter("ignore", SingularKernelWarning)
        return float(np.mean([random_walk_diagonal(G, A, P).mean() for G in graphs]))


def _run_ensemble(key: str, pl: Plan, random_states: list[int]) -> dict[str, Any]:
    ens = ensemble(key)
    sizes, stride = pl.sizes, pl.cavity_stride
    cav_nus = pl.cavity_nus
    shared = slice(None, None, stride)
    mid = (cav_nus >= INTERMEDIATE[0]) & (cav_nus <= INTERMEDIATE[1])
    per_noise: dict[str, Any] = {}
    kernels: list[np.ndarray] = []
    for k, noise in enumerate(pl.noises):
        curve, graphs = simulate_recording(
            ens, walk_kernel("global"), noise, sizes, random_states[0]
        )
        if not kernels:  # the same graphs for every noise level (same seed)
            kernels = kernels_of(graphs, "global")
        eig = eigen_curve(kernels, noise, sizes.nus)
        cav = cavity_curve(ens, "global", noise, cav_nus, sizes, random_states[1 + k])
        cmp = compare(curve, cav, stride)
        eig_rel = relative_deviation(eig[shared], curve.epsilon[shared])
        per_noise[noise_label(noise)] = {
            "noise": noise,
            "simulation": curve_dict(curve),
            "eigenvalue_approximation": eig,
            "cavity": curve_dict(cav),
            "cavity_vs_simulation": cmp,
            "eigen_relative_deviation": eig_rel,
            "eigen_max_relative_deviation": float(eig_rel.max()),
            "cavity_mean_deviation_intermediate": float(cmp["relative_deviation"][mid].mean()),
            "eigen_mean_deviation_intermediate": float(eig_rel[mid].mean()),
            "eigen_mean_deviation_ends": float(eig_rel[~mid].mean()),
        }
    return {
        "label": ens.label,
        "kappa_cavity": per_noise[noise_label(pl.noises[0])]["cavity"]["kappa"],
        "kappa_graphs": mean_prior_variance(graphs),
        "noises": per_noise,
    }


# -- findings, tables, figure ------------------------------------------------------------


def intermediate_medians(results: dict[str, Any]) -> tuple[float, float, int]:
    """Median relative deviation from the simulation of the cavity and of eq. 18 over all
    (ensemble, noise, ``nu``) points with ``nu`` in ``INTERMEDIATE``, and their number.

    Medians, because the simulated error under global normalisation is heavy-tailed over
    graphs at intermediate ``nu`` and small noise: it is then dominated by rare small
    components (an isolated edge has prior variance about 7 against a mean of 1) that
    have not yet seen an example, so a mean over few graphs can be far from its limit.
    """
    cav, eig = [], []
    for e in results.values():
        for r in e["noises"].values():
            nus = np.asarray(r["cavity"]["nus"])
            mid = (nus >= INTERMEDIATE[0]) & (nus <= INTERMEDIATE[1])
            cav.append(np.asarray(r["cavity_vs_simulation"]["relative_deviation"])[mid])
            eig.append(np.asarray(r["eigen_relative_deviation"])[mid])
    c, g = np.concatenate(cav), np.concatenate(eig)
    return float(np.median(c)), float(np.median(g)), int(c.size)


def _findings(results: dict[str, Any], noises: tuple[float, ...]) -> list[dict[str, Any]]:
    cases = [(key, r) for key, e in results.items() for r in e["noises"].values()]
    within = np.concatenate([r["cavity_vs_simulation"]["within_tolerance"] for _, r in cases])
    lo, hi = INTERMEDIATE
    cav_med, eig_med, n_mid = intermediate_medians(results)
    ends = [
        r["eigen_mean_deviation_ends"] < r["eigen_mean_deviation_intermediate"] for _, r in cases
    ]
    by_noise = sorted(noises)
    improves = []
    for e in results.values():
        dev = [e["noises"][noise_label(s)]["eigen_mean_deviation_intermediate"] for s in by_noise]
        improves.append(bool(np.all(np.diff(dev) < 0)))
    return [
        finding(
            'cavity predictions "mostly visually indistinguishable" from the simulation, '
            '"accurate along the whole length of the curve" (Fig. 3 caption, Sec. 4.1)',
            f"at least {MOSTLY:.0%} of the points within 3 SE + 5 %",
            within,
            "points",
            needed=MOSTLY,
        ),
        finding(
            '"the cavity predictions greatly outperform the eigenvalue approximation" (Sec. 4.1)',
            f"median relative deviation over the {n_mid} points with {lo:g} <= nu <= {hi:g} "
            "(all ensembles and noise levels): cavity below half of eq. 18's",
            [cav_med < 0.5 * eig_med],
            f"(medians: cavity {cav_med:.3f}, eigenvalue {eig_med:.3f})",
        ),
        finding(
            "the eigenvalue approximation is accurate for small and large nu (Sec. 3.4)",
            f"its mean relative deviation at nu < {lo:g} or nu > {hi:g} below that in between",
            ends,
            "(ensemble, noise) cases",
        ),
        finding(
            "its accuracy improves as the noise level grows (Sec. 3.4)",
            f"its mean relative deviation at {lo:g} <= nu <= {hi:g} falls as sigma^2 grows",
            improves,
            "ensembles",
        ),
    ]


def _figure(results: dict[str, Any], out: Path) -> str:
    fig, axes = new_figure(1, len(results), width=4.3, height=3.6)
    for ax, e in zip(np.atleast_1d(axes).ravel(), results.values(), strict=True):
        for k, (label, r) in enumerate(e["noises"].items()):
            c = COLORS[k % len(COLORS)]
            sim, cav = r["simulation"], r["cavity"]
            plot_curves(
                ax,
                np.asarray(sim["nus"]),
                [
                    (f"sigma^2 = {label}", np.asarray(sim["epsilon"]), sim["stderr"], "-"),
                    ("_eigen", np.asarray(r["eigenvalue_approximation"]), None, ":"),
                ],
                color=c,
            )
            plot_curves(
                ax,
                np.asarray(cav["nus"]),
                [("_cavity", np.asarray(cav["epsilon"]), None, "--")],
                color=c,
            )
        ax.set_title(e["label"])
        ax.legend(fontsize=7)
    fig.suptitle(
        f"Global normalisation, p = {P}, a = {A:g}: simulation (solid, ± SE), "
        "eigenvalue approximation (dotted), cavity (dashed)"
    )
    return save_figure(fig, out / "urry_fig3.png")


#: The spec's verified points: 3-regular, p = 5, a = 2, sigma^2 = 0.01, global.
SPEC_REFERENCE = {
    0.1: (0.7345, 0.7333, 0.0019),
    0.5: (0.1990, 0.2083, 0.0047),
    1.0: (0.0467, 0.0462, 0.0009),
    2.0: (0.00786, 0.00760, 0.00013),
}
SPEC_KAPPA = 0.16435


@register(
    "urry-fig3",
    title="GP learning curves on random graphs, global normalisation: simulation, "
    "eigenvalue approximation, cavity",
    source="Urry & Sollich (2013) Fig. 3",
)
def run(quick: bool, out: Path, random_state: int) -> dict:
    pl = plan(quick)
    n_noise = len(pl.noises)
    s = seeds(random_state, len(ENSEMBLES) * (1 + n_noise) + 2)
    results = {
        key: _run_ensemble(key, pl, s[i * (1 + n_noise) : (i + 1) * (1 + n_noise)])
        for i, key in enumerate(ENSEMBLES)
    }
    findings = _findings(results, pl.noises)
    cases = [(e["label"], r) for e in results.values() for r in e["noises"].values()]
    within = np.concatenate([r["cavity_vs_simulation"]["within_tolerance"] for _, r in cases])
    cav_max = max(r["cavity_vs_simulation"]["max_relative_deviation"] for _, r in cases)
    eig_max = max(r["eigen_max_relative_deviation"] for _, r in cases)
    cav_med, eig_med, _ = intermediate_medians(results)
    b = pl.sizes
    only = f" (quick run: noise levels {', '.join(map(noise_label, pl.noises))} only)"
    sizes_note = (
        f"V = {b.n_vertices}, {b.n_graphs} graphs x {b.n_datasets} data sets, cavity "
        f"population {b.population}, {b.sweeps} sweeps, {pl.cavity_nus.size} cavity points"
        + (only if quick else "")
    )
    tables: dict[str, Any] = {
        f"Deviation from simulation at the cavity's nu points ({sizes_note})": {
            "columns": [
                "ensemble",
                "noise",
                "cavity: max rel. dev.",
                "eigenvalue: max rel. dev.",
                f"cavity: mean rel. dev., {INTERMEDIATE[0]:g} <= nu <= {INTERMEDIATE[1]:g}",
                "eigenvalue: mean rel. dev., same nu",
                "cavity within 3 SE + 5 %",
            ],
            "rows": [
                deviation_row(e["label"], r["noise"], r)
                for e in results.values()
                for r in e["noises"].values()
            ],
        },
        "Learning curves at the cavity's nu points": curves_table(
            results,
            {
                "simulation": "simulation",
                "eigenvalue_approximation": "eigenvalue approx.",
                "cavity": "cavity",
            },
            pl.cavity_stride,
        ),
        "Global normaliser kappa = mean prior variance of the unnormalised kernel": {
            "columns": ["ensemble", "cavity (V -> infinity)", "simulated graphs"],
            "rows": [
                [e["label"], f"{e['kappa_cavity']:.5f}", f"{e['kappa_graphs']:.5f}"]
                for e in results.values()
            ],
        },
        "Paper's findings checked on these numbers": findings_table(findings),
    }
    extra: dict[str, Any] = {}
    if not quick:
        table, raw = spec_reference_table(
            "regular", "global", 5, 1e-2, SPEC_REFERENCE, b, (s[-2], s[-1])
        )
        table["columns"].insert(1, "kappa (spec / ours)")
        for row in table["rows"]:
            row.insert(1, f"{SPEC_KAPPA} / {raw['cavity']['kappa']:.5f}")
        tables["spec reference: 3-regular, p = 5, a = 2, noise 0.01, global"] = table
        extra["spec_reference"] = raw
    headline = (
        f"global, p = {P}: cavity within 3 SE + 5 % of simulation at {within.sum()}/"
        f"{within.size} points (max rel. dev. {cav_max:.2f}); eigenvalue approx. max rel. "
        f"dev. {eig_max:.2f}; median rel. dev. at {INTERMEDIATE[0]:g} <= nu <= "
        f"{INTERMEDIATE[1]:g}: cavity {cav_med:.3f}, eigenvalue approx. {eig_med:.3f}"
    )
    return {
        "headline": headline,
        "figures": [_figure(results, out)],
        "tables": tables,
        "results": results,
        "findings": findings,
        "fraction_within": float(within.mean()),
        "cavity_max_relative_deviation": cav_max,
        "eigen_max_relative_deviation": eig_max,
        "median_deviation_intermediate": {"cavity": cav_med, "eigenvalue": eig_med},
        "settings": {
            "a": A,
            "p": P,
            "normalize": "global",
            "noises": pl.noises,
            "n_vertices": b.n_vertices,
            "n_graphs": b.n_graphs,
            "n_datasets": b.n_datasets,
            "population": b.population,
            "sweeps": b.sweeps,
            "simulation_nus": b.nus,
            "cavity_nus": pl.cavity_nus,
            "eigenvalue_approximation": "eq. 18 on each simulated graph's kernel spectrum, "
            "averaged over the simulated graphs",
        },
        **extra,
    }
