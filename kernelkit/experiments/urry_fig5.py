"""GP learning curves with the locally normalised random walk kernel: simulation vs
cavity method, isolated vertices, local vs global normalisation (Urry & Sollich 2013,
Fig. 5).

The random walk kernel (eq. 2) with ``p = 10``, ``a = 2``, normalised locally (every
prior variance 1, ``C_ij = C_hat_ij / sqrt(C_hat_ii C_hat_jj)``), on Erdos-Renyi graphs
with mean degree 3 (left) and power-law generalised random graphs (exponent 2.5, cutoff
2; centre); noise ``sigma^2 in {1e-1, 1e-2, 1e-3, 1e-4}``, ``nu`` log-spaced on
``[1e-2, 10]``:

* **simulation vs cavity**: the exact Bayes error by simulation
  (:func:`kernelkit.learning_curves.simulate`, graphs of ``V`` vertices) against the
  cavity prediction for local normalisation (population dynamics, eqs. 43-45:
  :func:`kernelkit.learning_curves.cavity` with ``normalize="local"``); the paper finds
  them "mostly visually indistinguishable". Reported as in ``urry-fig3``: the largest
  relative deviation and the fraction of points within ``3 SE + 5 %`` (standard errors of
  both combined in quadrature).
* **isolated vertices** (left inset): a vertex without neighbours has prior variance 1
  under local normalisation and, with ``gamma`` examples, posterior variance
  ``1 / (gamma / sigma^2 + 1)``; with ``gamma ~ Poisson(nu)`` its contribution to the
  learning curve is exactly

      ``p(0) E[1 / (gamma / sigma^2 + 1)] = p(0) e^(-nu) M(sigma^2, sigma^2 + 1, nu)``

  (``M`` Kummer's confluent hypergeometric function: ``E[sigma^2 / (sigma^2 + gamma)] =
  sigma^2 int_0^1 t^(sigma^2 - 1) E[t^gamma] dt`` with ``E[t^gamma] = e^(-nu (1 - t))``),
  ``p(0)`` from the ensemble's degree law. We compare it with the isolated vertices' part
  of the simulation: the errors ``LearningCurve.vertex_errors`` at the isolated vertices of
  each simulated graph (the graphs are recorded as ``simulate`` draws them), summed and
  divided by ``V``; and with the formula at the graphs' own isolated fraction, which
  removes the graph-to-graph spread of the number of isolated vertices. At large ``nu``
  and small noise the mean is carried by rare draws: at ``nu = 10``, ``sigma^2 = 1e-4``
  the ``gamma = 0`` term ``e^(-10) = 4.5e-5`` is four times the rest, and a few thousand
  isolated-vertex draws rarely contain one, so there the simulated part falls short of
  the exact one by more than its standard error says (the cavity averages over
  ``gamma`` in closed form and has no such gap).
* **local vs global** (right top: Erdos-Renyi, right bottom: power law): simulated
  learning curves for both normalisations on the same graphs and data, at one noise level
  (``OVERLAY_NOISE``; the paper's text and caption do not state which). The paper finds
  "a shoulder around nu = 2" for local normalisation, "due to the proper normalisation of
  isolated vertices to unit prior variance". We locate it on ``0.3 <= nu <= 10`` from
  the log-log slopes between grid points of the simulated curves, in two ways: where the
  local curve is flattest, and where it is flattest relative to the global one (largest
  ``slope_local - slope_global``).

The full run also computes the spec's verified reference points (Erdos-Renyi, ``p =
10``, ``sigma^2 = 0.01``, local normalisation) with the same sizes, beside the spec's
numbers. The quick run (the tour) uses two noise levels, smaller graphs, a small cavity
population and five cavity points (the simulations run on a finer grid).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import hyp1f1

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
    simulate_recording,
    spec_reference_table,
    walk_kernel,
)
from kernelkit.learning_curves import LearningCurve
from kernelkit.plotting import COLORS, new_figure, save_figure

#: Left and centre panels of Fig. 5.
ENSEMBLES = ("er", "power-law")
#: The noise level of the local vs global overlay (right panels); the paper does not
#: state it. The shoulder is plain only at small noise (at sigma^2 = 0.1 the error of the
#: connected part, about sigma^2 / nu, hides it); 1e-3 is in the quick run too.
OVERLAY_NOISE = 1e-3
#: The ``nu`` range searched for the shoulder.
SHOULDER_RANGE = (0.3, 10.0)
#: The paper: "a shoulder around nu = 2"; we accept a location within this range.
SHOULDER_NEAR = (1.0, 4.0)
#: Quick-run cavity: local normalisation costs about twice global per sweep.
QUICK_POPULATION = 250


def isolated_vertex_error(p0: float, noise: float, nus: Any) -> np.ndarray:
    """The isolated vertices' contribution to the locally normalised learning curve,
    ``p0 E[1 / (gamma / sigma^2 + 1)]`` with ``gamma ~ Poisson(nu)`` (Urry & Sollich 2013,
    Sec. 5, Fig. 5 inset), in closed form: ``p0 e^(-nu) M(sigma^2, sigma^2 + 1, nu)``.

    Examples
    --------
    >>> from scipy import stats
    >>> k = np.arange(60)
    >>> series = float(stats.poisson.pmf(k, 2.0) @ (1 / (k / 0.01 + 1)))
    >>> bool(np.isclose(isolated_vertex_error(1.0, 0.01, 2.0), series, rtol=1e-12))
    True
    """
    nus = np.asarray(nus, dtype=float)
    return p0 * np.exp(-nus) * hyp1f1(noise, noise + 1.0, nus)


def isolated_part(curve: LearningCurve, graphs: list[Any]) -> dict[str, Any]:
    """The isolated vertices' part of a simulated learning curve: ``sum_{i isolated}
    error_i / V`` per graph and data set, its mean and standard error over graphs, the
    graphs' isolated fraction, and how far each isolated vertex's error is from
    ``1 / (gamma / sigma^2 + 1)`` with a whole ``gamma`` (0 up to rounding)."""
    n_vertices = curve.vertex_errors.shape[-1]
    iso = np.array([[G.degree(v) == 0 for v in range(n_vertices)] for G in graphs])
    part = np.einsum("gskv,gv->gsk", curve.vertex_errors, iso) / n_vertices
    per_graph = part.mean(axis=1)
    errs = curve.vertex_errors.transpose(0, 3, 1, 2)[iso]  # (n_isolated, n_datasets, n_nus)
    gamma = curve.noise * (1.0 / errs - 1.0)
    return {
        "epsilon": per_graph.mean(axis=0),
        "stderr": per_graph.std(axis=0, ddof=1) / np.sqrt(per_graph.shape[0]),
        "isolated_fraction": float(iso.mean()),
        "max_gamma_offset": float(np.max(np.abs(gamma - np.round(gamma)))) if errs.size else 0.0,
    }


def log_slopes(nus: np.ndarray, epsilon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log-log slopes of a learning curve between consecutive grid points, and their
    (geometric) midpoints."""
    return np.diff(np.log(epsilon)) / np.diff(np.log(nus)), np.sqrt(nus[1:] * nus[:-1])


def shoulder(nus: np.ndarray, local: np.ndarray, global_: np.ndarray) -> dict[str, float]:
    """The shoulder of the local curve on ``SHOULDER_RANGE``: where its log-log slope is
    flattest, and where it is flattest relative to the global curve."""
    s_loc, mid = log_slopes(nus, local)
    s_glo, _ = log_slopes(nus, global_)
    inside = np.flatnonzero((mid >= SHOULDER_RANGE[0]) & (mid <= SHOULDER_RANGE[1]))
    flat = inside[np.argmax(s_loc[inside])]
    rel = inside[np.argmax(s_loc[inside] - s_glo[inside])]
    return {
        "flattest_local_nu": float(mid[flat]),
        "flattest_local_slope": float(s_loc[flat]),
        "nu": float(mid[rel]),
        "local_slope": float(s_loc[rel]),
        "global_slope": float(s_glo[rel]),
        "local_over_global": float(
            np.sqrt(local[rel] * local[rel + 1] / (global_[rel] * global_[rel + 1]))
        ),
    }


def _run_ensemble(key: str, pl: Plan, random_states: list[int]) -> dict[str, Any]:
    ens = ensemble(key)
    sizes, stride = pl.sizes, pl.cavity_stride
    p0 = float(ens.degrees.pmf[0])
    per_noise: dict[str, Any] = {}
    for k, noise in enumerate(pl.noises):
        # the same seed: the same graphs and example counts for both normalisations
        local, graphs = simulate_recording(
            ens, walk_kernel("local"), noise, sizes, random_states[0]
        )
        glob, _ = simulate_recording(ens, walk_kernel("global"), noise, sizes, random_states[0])
        cav = cavity_curve(ens, "local", noise, pl.cavity_nus, sizes, random_states[1 + k])
        part = isolated_part(local, graphs)
        per_noise[noise_label(noise)] = {
            "noise": noise,
            "simulation": curve_dict(local),
            "simulation_global": curve_dict(glob),
            "cavity": curve_dict(cav),
            "cavity_vs_simulation": compare(local, cav, stride),
            "isolated": {
                **part,
                "formula": isolated_vertex_error(p0, noise, sizes.nus),
                "formula_graphs": isolated_vertex_error(
                    part["isolated_fraction"], noise, sizes.nus
                ),
            },
            "shoulder": shoulder(sizes.nus, local.epsilon, glob.epsilon),
        }
    return {"label": ens.label, "p0": p0, "noises": per_noise}


# -- tables and figure -------------------------------------------------------------------


def _isolated_table(results: dict[str, Any], stride: int) -> dict[str, Any]:
    rows = []
    nus = None
    for e in results.values():
        for label, r in e["noises"].items():
            iso = r["isolated"]
            nus = np.asarray(r["simulation"]["nus"])[::stride]
            sim = zip(iso["epsilon"][::stride], iso["stderr"][::stride], strict=True)
            rows += [
                [
                    e["label"],
                    label,
                    f"formula, p(0) = {e['p0']:.4f}",
                    *[f"{x:.3g}" for x in iso["formula"][::stride]],
                ],
                [
                    e["label"],
                    label,
                    f"formula, graphs' fraction {iso['isolated_fraction']:.4f}",
                    *[f"{x:.3g}" for x in iso["formula_graphs"][::stride]],
                ],
                [e["label"], label, "simulation", *[f"{x:.3g} ± {s:.1g}" for x, s in sim]],
            ]
    assert nus is not None
    return {"columns": ["ensemble", "noise", "", *[f"nu={x:.3g}" for x in nus]], "rows": rows}


def _shoulder_table(results: dict[str, Any]) -> dict[str, Any]:
    rows = []
    for e in results.values():
        for label, r in e["noises"].items():
            s = r["shoulder"]
            rows.append(
                [
                    e["label"],
                    label,
                    f"{s['flattest_local_nu']:.2f} (slope {s['flattest_local_slope']:.2f})",
                    f"{s['nu']:.2f}",
                    f"{s['local_slope']:.2f} / {s['global_slope']:.2f}",
                    f"{s['local_over_global']:.2f}",
                ]
            )
    lo, hi = SHOULDER_RANGE
    return {
        "columns": [
            "ensemble",
            "noise",
            f"local curve flattest on [{lo:g}, {hi:g}] at nu",
            "flattest relative to global at nu",
            "there: slope local / global",
            "there: epsilon local / global",
        ],
        "rows": rows,
    }


def _findings(results: dict[str, Any]) -> list[dict[str, Any]]:
    cases = [r for e in results.values() for r in e["noises"].values()]
    within = np.concatenate([r["cavity_vs_simulation"]["within_tolerance"] for r in cases])
    overlay = [e["noises"][noise_label(OVERLAY_NOISE)]["shoulder"] for e in results.values()]
    lo, hi = SHOULDER_NEAR
    dominates = []
    for e in results.values():
        r = e["noises"][noise_label(OVERLAY_NOISE)]
        nus = np.asarray(r["simulation"]["nus"])
        at = int(np.argmin(np.abs(np.log(nus / r["shoulder"]["nu"]))))
        dominates.append(r["isolated"]["epsilon"][at] > 0.5 * r["simulation"]["epsilon"][at])
    return [
        finding(
            'cavity predictions for local normalisation "quantitatively very accurate", '
            '"mostly visually indistinguishable" from the simulation (Sec. 4.3, Fig. 5)',
            f"at least {MOSTLY:.0%} of the points within 3 SE + 5 %",
            within,
            "points",
            needed=MOSTLY,
        ),
        finding(
            'locally normalised curves show "a shoulder around nu = 2" (Sec. 5)',
            f"local curve flattest relative to global at {lo:g} <= nu <= {hi:g} "
            f"(sigma^2 = {OVERLAY_NOISE:g})",
            [lo <= s["nu"] <= hi for s in overlay],
            "ensembles",
        ),
        finding(
            'there "the single vertex error dominates the learning curve" (Sec. 5)',
            "isolated vertices' part above half of the simulated epsilon at the shoulder",
            dominates,
            "ensembles",
        ),
    ]


def _figure(results: dict[str, Any], out: Path) -> str:
    fig, axes = new_figure(2, 3, width=4.3, height=2.6)
    grid = axes[0, 0].get_gridspec()
    for ax in axes[:, :2].ravel():
        ax.remove()
    left, centre = fig.add_subplot(grid[:, 0]), fig.add_subplot(grid[:, 1])
    for ax, e in zip((left, centre), results.values(), strict=True):
        for k, (label, r) in enumerate(e["noises"].items()):
            sim, cav = r["simulation"], r["cavity"]
            c = COLORS[k % len(COLORS)]
            plot_curves(
                ax,
                np.asarray(sim["nus"]),
                [(f"sigma^2 = {label}", np.asarray(sim["epsilon"]), sim["stderr"], "-")],
                color=c,
            )
            plot_curves(
                ax,
                np.asarray(cav["nus"]),
                [("_cavity", np.asarray(cav["epsilon"]), None, "--")],
                color=c,
            )
        ax.set_title(f"local: {e['label']}", fontsize=8)
        ax.legend(fontsize=7, loc="upper right")
    inset = left.inset_axes((0.1, 0.07, 0.42, 0.38))  # the empty lower left
    er = next(iter(results.values()))
    for k, r in enumerate(er["noises"].values()):
        c = COLORS[k % len(COLORS)]
        nus = np.asarray(r["simulation"]["nus"])
        fine = np.logspace(np.log10(nus[0]), np.log10(nus[-1]), 200)
        inset.plot(nus, r["simulation"]["epsilon"], "-", color=c, lw=1)
        inset.plot(fine, isolated_vertex_error(er["p0"], r["noise"], fine), ":", color=c)
        inset.plot(nus, r["isolated"]["epsilon"], "o", color=c, ms=2)
    inset.set(xscale="log", yscale="log", title="isolated vertices", ylim=(1e-7, 1.5))
    inset.title.set_fontsize(7)
    inset.tick_params(labelsize=6)
    for ax, e in zip(axes[:, 2], results.values(), strict=True):
        r = e["noises"][noise_label(OVERLAY_NOISE)]
        nus = np.asarray(r["simulation"]["nus"])
        plot_curves(
            ax,
            nus,
            [
                ("global", np.asarray(r["simulation_global"]["epsilon"]), None, "-"),
                ("local", np.asarray(r["simulation"]["epsilon"]), None, "--"),
            ],
        )
        ax.axvline(r["shoulder"]["nu"], color="grey", lw=0.8, ls=":")
        ax.set_title(f"{e['label']}, sigma^2 = {OVERLAY_NOISE:g}", fontsize=8)
        ax.legend(fontsize=7)
    fig.suptitle(
        f"Local normalisation, p = {P}, a = {A:g}: simulation (solid, ± SE), cavity (dashed); "
        "inset: isolated vertices, exact (dotted) and simulated (dots); right: simulated "
        "global (solid) vs local (dashed), shoulder (dotted line)",
        fontsize=8,
    )
    return save_figure(fig, out / "urry_fig5.png")


#: The spec's verified points: Erdos-Renyi (mean degree 3), p = 10, a = 2, sigma^2 =
#: 0.01, local normalisation: ``{nu: (cavity, simulation, its SE)}``.
SPEC_REFERENCE = {
    0.3: (0.2536, 0.2621, 0.0059),
    1.0: (0.0389, 0.0379, 0.0022),
    3.0: (0.00509, 0.00451, 0.00073),
}


@register(
    "urry-fig5",
    title="GP learning curves on random graphs, local normalisation: simulation vs cavity, "
    "isolated vertices, local vs global",
    source="Urry & Sollich (2013) Fig. 5",
)
def run(quick: bool, out: Path, random_state: int) -> dict:
    pl = plan(quick, population=QUICK_POPULATION)
    n_noise = len(pl.noises)
    s = seeds(random_state, len(ENSEMBLES) * (1 + n_noise) + 2)
    results = {
        key: _run_ensemble(key, pl, s[i * (1 + n_noise) : (i + 1) * (1 + n_noise)])
        for i, key in enumerate(ENSEMBLES)
    }
    findings = _findings(results)
    cases = [r for e in results.values() for r in e["noises"].values()]
    within = np.concatenate([r["cavity_vs_simulation"]["within_tolerance"] for r in cases])
    cav_max = max(r["cavity_vs_simulation"]["max_relative_deviation"] for r in cases)
    b = pl.sizes
    only = f" (quick run: noise levels {', '.join(map(noise_label, pl.noises))} only)"
    sizes_note = (
        f"V = {b.n_vertices}, {b.n_graphs} graphs x {b.n_datasets} data sets, cavity "
        f"population {b.population}, {b.sweeps} sweeps, {pl.cavity_nus.size} cavity points"
        + (only if quick else "")
    )
    tables: dict[str, Any] = {
        f"Cavity vs simulation, local normalisation ({sizes_note})": {
            "columns": [
                "ensemble",
                "noise",
                "cavity: max rel. dev.",
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
                "simulation": "simulation, local",
                "cavity": "cavity, local",
                "simulation_global": "simulation, global",
            },
            pl.cavity_stride,
        ),
        "Isolated vertices' contribution to epsilon (local normalisation)": _isolated_table(
            results, pl.cavity_stride
        ),
        "Shoulder of the local curve (simulated, local vs global)": _shoulder_table(results),
        "Paper's findings checked on these numbers": findings_table(findings),
    }
    extra: dict[str, Any] = {}
    if not quick:
        table, raw = spec_reference_table("er", "local", P, 1e-2, SPEC_REFERENCE, b, (s[-2], s[-1]))
        tables["spec reference: Erdos-Renyi (3), p = 10, a = 2, noise 0.01, local"] = table
        extra["spec_reference"] = raw
    overlay = {
        e["label"]: e["noises"][noise_label(OVERLAY_NOISE)]["shoulder"]["nu"]
        for e in results.values()
    }
    headline = (
        f"local, p = {P}: cavity within 3 SE + 5 % of simulation at {within.sum()}/"
        f"{within.size} points (max rel. dev. {cav_max:.2f}); shoulder (sigma^2 = "
        f"{OVERLAY_NOISE:g}) at nu = "
        + ", ".join(f"{nu:.2g} ({label.split(',')[0]})" for label, nu in overlay.items())
    )
    return {
        "headline": headline,
        "figures": [_figure(results, out)],
        "tables": tables,
        "results": results,
        "findings": findings,
        "fraction_within": float(within.mean()),
        "cavity_max_relative_deviation": cav_max,
        "overlay_noise": OVERLAY_NOISE,
        "settings": {
            "a": A,
            "p": P,
            "normalize": "local",
            "noises": pl.noises,
            "n_vertices": b.n_vertices,
            "n_graphs": b.n_graphs,
            "n_datasets": b.n_datasets,
            "population": b.population,
            "sweeps": b.sweeps,
            "simulation_nus": b.nus,
            "cavity_nus": pl.cavity_nus,
            "isolated_vertices": "vertices of degree 0 in the graphs simulate drew (recorded "
            "by a wrapper around the ensemble's sampler)",
        },
        **extra,
    }
