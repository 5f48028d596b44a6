"""Prior variances of the globally normalised random walk kernel on one large graph (Urry
& Sollich 2013, Fig. 2).

The random walk kernel (eq. 2) with ``a = 2``, ``p = 10``, normalised globally (``C =
C_hat / kappa``, ``kappa`` the mean of ``C_hat_ii``, Sec. 2.2), on ONE graph with ``V =
10000`` vertices of each of two ensembles: Erdos-Renyi with mean degree 3 (left) and the
power-law generalised random graph of Britton et al. (exponent 2.5, cutoff 2; right).
The prior variances ``C_hat_ii`` are computed exactly without the dense ``V x V``
matrix (:func:`kernelkit.graphs.random_walk_diagonal`). Top row: their histogram, with
the cavity prediction for the large-graph limit overlaid
(:func:`kernelkit.learning_curves.cavity` at ``nu = 0``, ``normalize="global"``: its
``prior_variances`` are samples from the population, Sec. 4.2); bottom row: the tail on
linear-log axes (the paper's inset).

The text explains two spikes: isolated vertices have ``C_hat_ii = (1 - 1/a)^p`` (the
``q = 0`` term of eq. 3), and the two vertices of a single-edge component ``C_hat_ii =
sum_{q even} binom(p, q) a^-q (1 - 1/a)^(p-q)`` (the walker is home after every even
number of steps), each divided by ``kappa``. We compute both exactly, find them in the
histogram, and count the vertices on them (the fractions expected for large graphs are
``p(0)`` and ``p(1) q(1)``, ``q`` the edge-biased degree law). The text's other numbers,
the spike "around 6.8" and ``max_i C_ii`` about 15 (ER) and 40 (power law) on the
paper's instances, are shown beside ours with the bound ``max_i C_ii <= 1 / kappa`` (for
``a >= 2`` the lazy walk matrix has eigenvalues in ``[0, 1]``, so ``C_hat_ii <= 1``).
The histogram and the cavity samples are compared by their means, standard deviations,
quantiles and two-sample Kolmogorov-Smirnov distances (of ``C_ii``, and of ``C_hat_ii``,
where the two ``kappa`` do not shift the atoms apart).

Sizes: the full run has ``V = 10000`` (the paper's) and a cavity population of 20000
(ten times the learning-curve population, for a smooth overlay); the quick run (the
tour) ``V = 2000`` and a population of 2000. Both run the cavity's prior stage for
``4 + p`` sweeps (its default design: messages without data need ``p + 1`` levels).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
from scipy import stats
from scipy.sparse.csgraph import connected_components

from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.experiments._urry import A, P, ensemble
from kernelkit.graphs import (
    SingularKernelWarning,
    adjacency_matrix,
    random_walk_coefficients,
    random_walk_diagonal,
)
from kernelkit.learning_curves import cavity
from kernelkit.plotting import COLORS, new_figure, save_figure

#: The two panels of Fig. 2 (left, right).
ENSEMBLES = ("er", "power-law")
#: The text's numbers: the two-vertex spike (ER) and ``max_i C_ii`` per ensemble.
PAPER_TWO_VERTEX_SPIKE = {"er": 6.8}
PAPER_MAX = {"er": 15.0, "power-law": 40.0}
#: Histogram bin width (in units of the mean prior variance); the tail panel's, wider.
BIN_WIDTH = 0.05
TAIL_BIN_WIDTH = 0.25
#: Quantiles compared between the graph and the cavity samples.
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
#: Noise of the cavity run: at ``nu = 0`` it does not enter the prior variances.
CAVITY_NOISE = 0.1
CAVITY_SWEEPS = 4


def _sizes(quick: bool) -> tuple[int, int]:
    """Vertices of the graph and the cavity population."""
    return (2000, 2000) if quick else (10000, 20000)


def _spikes(kappa: float) -> dict[str, float]:
    """The exact globally normalised prior variances of isolated vertices and of the
    vertices of single-edge components (Sec. 3.2)."""
    c = random_walk_coefficients(A, P)  # c_q of eq. 3; c_0 = (1 - 1/a)^p
    return {"isolated": float(c[0]) / kappa, "two_vertex": float(c[::2].sum()) / kappa}


def _graph_variances(key: str, n_vertices: int, random_state: int) -> dict:
    G = ensemble(key).sampler(n_vertices)(random_state=random_state)
    adjacency = adjacency_matrix(G)
    with warnings.catch_warnings():
        # a = 2 makes the kernel singular on bipartite components (single edges); that
        # is a statement about its eigenvalues and leaves the diagonal exact.
        warnings.simplefilter("ignore", SingularKernelWarning)
        c_hat = random_walk_diagonal(adjacency, A, P)
    kappa = float(c_hat.mean())
    _, labels = connected_components(adjacency, directed=False)
    size = np.bincount(labels)[labels]  # the size of each vertex's component
    return {
        "C_hat": c_hat,
        "C": c_hat / kappa,
        "kappa": kappa,
        "isolated": size == 1,
        "two_vertex": size == 2,
    }


def _cavity_variances(key: str, population: int, random_state: int) -> dict:
    r = cavity(
        ensemble(key).degrees,
        A,
        P,
        CAVITY_NOISE,
        [0.0],
        normalize="global",
        population=population,
        sweeps=CAVITY_SWEEPS,
        random_state=random_state,
    )
    return {"C": r.prior_variances, "C_hat": r.prior_variances * r.kappa, "kappa": r.kappa}


def _histogram(
    values: np.ndarray, top: float, width: float = BIN_WIDTH
) -> tuple[np.ndarray, np.ndarray]:
    edges = np.arange(0.0, top + width, width)
    counts, _ = np.histogram(values, bins=edges)
    return edges, counts


def _is_peak(counts: np.ndarray, b: int) -> bool:
    """Whether bin ``b`` holds more than each of its neighbours."""
    lo, hi = max(b - 1, 0), min(b + 2, counts.shape[0])
    return bool(counts[b] > np.delete(counts[lo:hi], b - lo).max(initial=0))


def _summary(x: np.ndarray) -> dict:
    return {
        "mean": float(x.mean()),
        "std": float(x.std()),
        "quantiles": dict(zip(QUANTILES, np.quantile(x, QUANTILES).tolist(), strict=True)),
        "max": float(x.max()),
    }


def _analyse(key: str, graph: dict, cav: dict) -> dict:
    C, n = graph["C"], graph["C"].shape[0]
    degrees = ensemble(key).degrees
    exact = _spikes(graph["kappa"])
    top = max(float(C.max()), float(cav["C"].max())) + BIN_WIDTH
    edges, counts = _histogram(C, top)
    _, cavity_counts = _histogram(cav["C"], top)
    tail_edges, tail_counts = _histogram(C, top, TAIL_BIN_WIDTH)
    _, tail_cavity_counts = _histogram(cav["C"], top, TAIL_BIN_WIDTH)
    spikes = {}
    for name, mask, expected in (
        ("isolated", graph["isolated"], float(degrees.pmf[0])),
        ("two_vertex", graph["two_vertex"], float(degrees.pmf[1] * degrees.edge_biased_pmf[1])),
    ):
        position = exact[name]
        on = C[mask]
        b = min(int(np.searchsorted(edges, position, side="right")) - 1, counts.shape[0] - 1)
        spikes[name] = {
            "exact": position,
            "cavity_exact": _spikes(cav["kappa"])[name],
            "n_vertices": int(mask.sum()),
            "fraction": float(mask.mean()),
            "fraction_large_graph_limit": expected,
            "max_relative_deviation": (
                float(np.max(np.abs(on - position)) / position) if on.size else 0.0
            ),
            "bin": [float(edges[b]), float(edges[b + 1])],
            "bin_count": int(counts[b]),
            "bin_count_cavity": int(cavity_counts[b]),
            "bin_is_local_peak": _is_peak(counts, b),
        }
    top_vertex = int(np.argmax(C))
    return {
        "n_vertices": n,
        "kappa": graph["kappa"],
        "kappa_cavity": cav["kappa"],
        "mean_C": float(C.mean()),
        "max_C": float(C.max()),
        "max_C_bound": 1.0 / graph["kappa"],
        "max_is_two_vertex_spike": bool(
            abs(C[top_vertex] - exact["two_vertex"]) <= 1e-9 * exact["two_vertex"]
        ),
        "spikes": spikes,
        "graph": _summary(C),
        "cavity": _summary(cav["C"]),
        "ks_C": float(stats.ks_2samp(C, cav["C"]).statistic),
        "ks_C_hat": float(stats.ks_2samp(graph["C_hat"], cav["C_hat"]).statistic),
        "population": int(cav["C"].shape[0]),
        "histogram": {"edges": edges, "counts": counts, "cavity_counts": cavity_counts},
        "tail_histogram": {
            "edges": tail_edges,
            "counts": tail_counts,
            "cavity_counts": tail_cavity_counts,
        },
    }


# -- figure and tables -------------------------------------------------------------------


def _figure(res: dict, out: Path) -> str:
    fig, axes = new_figure(2, len(ENSEMBLES), width=4.8, height=3.0)
    for col, key in enumerate(ENSEMBLES):
        r = res[key]
        n, pop = r["n_vertices"], r["population"]
        for row, (h, width) in enumerate(
            ((r["histogram"], BIN_WIDTH), (r["tail_histogram"], TAIL_BIN_WIDTH))
        ):
            ax = axes[row, col]
            edges = np.asarray(h["edges"])
            density = np.asarray(h["counts"]) / (n * width)
            cavity_density = np.asarray(h["cavity_counts"]) / (pop * width)
            ax.stairs(density, edges, fill=True, color="0.7", label=f"one graph, V = {n}")
            ax.stairs(
                cavity_density, edges, color="black", lw=0.9, label=f"cavity (population {pop})"
            )
            for k, (name, s) in enumerate(r["spikes"].items()):
                ax.axvline(
                    s["exact"],
                    color=COLORS[3 + k],
                    ls=":",
                    lw=1.2,
                    label=f"{name.replace('_', '-')} spike {s['exact']:.3g} (exact)",
                )
            ax.set_ylabel("density")
            if row == 1:
                ax.set(
                    yscale="log",
                    xlim=(1.0, edges[-1]),
                    xlabel=f"C_ii >= 1 (tail, linear-log, bins of {width:g})",
                )
            else:
                ax.set(
                    xlim=(0.0, edges[-1]),
                    title=ensemble(key).label,
                    xlabel=f"prior variance C_ii (global normalisation, bins of {width:g})",
                )
                ax.legend(fontsize=6)
    fig.suptitle(
        f"Urry & Sollich (2013) Fig. 2: prior variances, random walk kernel a = {A:g}, p = {P}"
    )
    return save_figure(fig, out / "urry_fig2.png")


def _tables(res: dict) -> dict:
    text_rows = []
    spike_rows = []
    compare_rows = []
    for key in ENSEMBLES:
        r, label = res[key], ensemble(key).label
        paper_two = PAPER_TWO_VERTEX_SPIKE.get(key)
        text_rows += [
            [
                label,
                "two-vertex spike (C_ii)",
                f"{r['spikes']['two_vertex']['exact']:.3f}",
                "–" if paper_two is None else f"around {paper_two:g}",
            ],
            [
                label,
                "isolated-vertex spike (C_ii)",
                f"{r['spikes']['isolated']['exact']:.4f}",
                "near 0",
            ],
            [
                label,
                "max_i C_ii (bound 1/kappa)",
                f"{r['max_C']:.2f} (<= {r['max_C_bound']:.2f})",
                f"about {PAPER_MAX[key]:g}",
            ],
            [label, "mean C_ii", f"{r['mean_C']:.12f}", "1 (by construction)"],
        ]
        for name, s in r["spikes"].items():
            spike_rows.append(
                [
                    label,
                    name.replace("_", "-"),
                    f"{s['exact']:.4f}",
                    f"{s['cavity_exact']:.4f}",
                    f"{s['max_relative_deviation']:.1e}",
                    f"[{s['bin'][0]:.2f}, {s['bin'][1]:.2f}): {s['bin_count']}"
                    + (" (a peak)" if s["bin_is_local_peak"] else ""),
                    f"{s['n_vertices']} ({s['fraction']:.4f})",
                    f"{s['fraction_large_graph_limit']:.4f}",
                ]
            )
        g, c = r["graph"], r["cavity"]
        compare_rows.append(
            [label, "graph", f"{r['kappa']:.5f}", f"{g['mean']:.3f}", f"{g['std']:.3f}"]
            + [f"{v:.3f}" for v in g["quantiles"].values()]
            + [f"{g['max']:.2f}", "–", "–"]
        )
        compare_rows.append(
            [label, "cavity", f"{r['kappa_cavity']:.5f}", f"{c['mean']:.3f}", f"{c['std']:.3f}"]
            + [f"{v:.3f}" for v in c["quantiles"].values()]
            + [f"{c['max']:.2f}", f"{r['ks_C']:.3f}", f"{r['ks_C_hat']:.3f}"]
        )
    return {
        "Numbers stated in the text beside ours": {
            "columns": ["ensemble", "quantity", "ours", "paper"],
            "rows": text_rows,
        },
        "Spikes: exact positions, where they fall, how many vertices": {
            "columns": [
                "ensemble",
                "spike",
                "exact C_ii (graph kappa)",
                "exact C_ii (cavity kappa)",
                "max rel. deviation of those vertices",
                "histogram bin: count",
                "vertices (fraction)",
                "fraction, V -> inf",
            ],
            "rows": spike_rows,
        },
        "Graph vs cavity prediction": {
            "columns": ["ensemble", "source", "kappa", "mean", "std"]
            + [f"q{round(100 * q)}" for q in QUANTILES]
            + ["max", "KS distance C_ii", "KS distance C_hat_ii"],
            "rows": compare_rows,
        },
    }


@register(
    "urry-fig2",
    title="Prior variances of the globally normalised random walk kernel: graph vs cavity",
    source="Urry & Sollich (2013) Fig. 2, Secs. 3.2 and 4.2",
)
def run(quick: bool, out: Path, random_state: int) -> dict:
    n_vertices, population = _sizes(quick)
    res = {}
    for key, (graph_seed, cavity_seed) in zip(
        ENSEMBLES, np.reshape(seeds(random_state, 2 * len(ENSEMBLES)), (-1, 2)), strict=True
    ):
        graph = _graph_variances(key, n_vertices, int(graph_seed))
        cav = _cavity_variances(key, population, int(cavity_seed))
        res[key] = _analyse(key, graph, cav)
    er, pl = res["er"], res["power-law"]
    headline = (
        f"V = {n_vertices}, a = {A:g}, p = {P}: two-vertex spike at C_ii = "
        f"{er['spikes']['two_vertex']['exact']:.2f} (ER; text: around 6.8), isolated at "
        f"{er['spikes']['isolated']['exact']:.4f}; max C_ii = {er['max_C']:.2f} (ER) / "
        f"{pl['max_C']:.2f} (power law) (text: about 15 / 40, bound 1/kappa = "
        f"{er['max_C_bound']:.1f} / {pl['max_C_bound']:.1f}); KS distance to the cavity "
        f"(C_hat_ii): {er['ks_C_hat']:.3f} / {pl['ks_C_hat']:.3f}"
    )
    return {
        "headline": headline,
        "figures": [_figure(res, out)],
        "tables": _tables(res),
        "results": res,
        "a": A,
        "p": P,
        "n_vertices": n_vertices,
        "population": population,
        "bin_width": BIN_WIDTH,
    }
