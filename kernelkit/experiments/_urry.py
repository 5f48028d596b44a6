"""Settings and helpers shared by the Urry & Sollich (2013) reproductions (``urry-fig*``).

The paper's settings (Sec. 3-5): the random walk kernel with ``a = 2``, ``p = 10``;
noise levels ``sigma^2 in {1e-1, 1e-2, 1e-3, 1e-4}``; graphs of ``V = 500`` vertices;
three ensembles: random 3-regular graphs, Erdos-Renyi graphs with mean degree 3 and
generalised random graphs (Britton et al. 2006) whose Poisson means follow a shifted
Pareto law with exponent 2.5 and cutoff ``lambda_m = 2``.

A run's sizes (vertices, graphs, data sets, cavity population, ``nu`` grid) come from
:func:`run_sizes`: the paper's in a full run, smaller in the quick one (the tour).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit.graphs import (
    DegreeDistribution,
    erdos_renyi_graph,
    generalized_random_graph,
    random_regular_graph,
    random_walk_kernel,
)
from kernelkit.learning_curves import CavityResult, LearningCurve, cavity, simulate
from kernelkit.plotting import COLORS

#: The random walk kernel's parameters throughout the paper's learning curves.
A = 2.0
P = 10
#: The noise levels of Figs. 3, 5, 7 and 8.
NOISES = (1e-1, 1e-2, 1e-3, 1e-4)
#: Random regular graphs' degree; Erdos-Renyi mean degree; power-law exponent and cutoff.
DEGREE = 3
MEAN_DEGREE = 3.0
EXPONENT = 2.5
LAMBDA_M = 2.0


@dataclass(frozen=True)
class Ensemble:
    """A random graph ensemble of the paper: its sampler and its degree law.

    Attributes
    ----------
    key : str
        ``"regular"``, ``"er"`` or ``"power-law"``.
    label : str
        For legends and tables.
    degrees : DegreeDistribution
        The degree law ``p(d)`` (for the cavity method).
    """

    key: str
    label: str
    degrees: DegreeDistribution

    def sampler(self, n_vertices: int) -> Callable[..., Any]:
        """``sampler(random_state=seed) -> networkx.Graph`` on ``n_vertices`` vertices (the
        ``ensemble`` argument of :func:`kernelkit.learning_curves.simulate`)."""
        if self.key == "regular":
            return functools.partial(random_regular_graph, DEGREE, n_vertices)
        if self.key == "er":
            return functools.partial(erdos_renyi_graph, n_vertices, MEAN_DEGREE)
        return functools.partial(generalized_random_graph, n_vertices, EXPONENT, LAMBDA_M)


def ensemble(key: str) -> Ensemble:
    """The ensemble ``"regular"``, ``"er"`` or ``"power-law"``."""
    if key == "regular":
        return Ensemble(key, f"random {DEGREE}-regular", DegreeDistribution.regular(DEGREE))
    if key == "er":
        return Ensemble(
            key, f"Erdos-Renyi, mean degree {MEAN_DEGREE:g}", DegreeDistribution.poisson(3.0)
        )
    if key == "power-law":
        return Ensemble(
            key,
            f"power law, exponent {EXPONENT:g}, cutoff {LAMBDA_M:g}",
            DegreeDistribution.pareto_mixed_poisson(EXPONENT, LAMBDA_M),
        )
    raise ValueError(f"unknown ensemble {key!r}; expected 'regular', 'er' or 'power-law'")


def walk_kernel(normalize: str, *, a: float = A, p: int = P) -> Callable[[Any], np.ndarray]:
    """``kernel(G) -> C``: the dense random walk kernel (Urry & Sollich 2013, eq. 2) with
    the given normalisation (the ``kernel`` argument of ``simulate``)."""
    return functools.partial(random_walk_kernel, a=a, p=p, normalize=normalize)


@dataclass(frozen=True)
class RunSizes:
    """The sizes of a run (see :func:`run_sizes`).

    Attributes
    ----------
    n_vertices : int
        Vertices of each simulated graph.
    n_graphs, n_datasets : int
        Graphs per simulated curve, and data sets per graph and ``nu``.
    population : int
        Population of the cavity method.
    sweeps : int
        Cavity sweeps per ``nu``.
    nus : ndarray
        The ``nu`` grid of learning curves, log-spaced on ``[1e-2, 1e1]`` (Fig. 3).
    """

    n_vertices: int
    n_graphs: int
    n_datasets: int
    population: int
    sweeps: int
    nus: np.ndarray


def run_sizes(quick: bool) -> RunSizes:
    """The paper's sizes (full run: ``V = 500``, 10 graphs x 10 data sets, population 2000,
    16 ``nu`` values) or a quick run's (``V = 250``, 4 x 4, population 400, 7 values)."""
    if quick:
        return RunSizes(250, 4, 4, 400, 12, np.logspace(-2, 1, 7))
    return RunSizes(500, 10, 10, 2000, 16, np.logspace(-2, 1, 16))


def noise_label(noise: float) -> str:
    """``"1e-02"`` style labels for noise levels."""
    return f"{noise:.0e}"


def plot_curves(
    ax: Any,
    nus: np.ndarray,
    curves: Sequence[tuple[str, np.ndarray, np.ndarray | None, str]],
    *,
    color: str | None = None,
) -> None:
    """Learning curves on log-log axes: ``(label, epsilon, stderr or None, linestyle)``;
    curves with a standard error get error bars."""
    for k, (label, eps, err, style) in enumerate(curves):
        c = color if color is not None else COLORS[k % len(COLORS)]
        if err is None:
            ax.plot(nus, eps, linestyle=style, color=c, label=label)
        else:
            ax.errorbar(
                nus,
                eps,
                yerr=err,
                linestyle=style,
                color=c,
                marker="o",
                ms=2.5,
                capsize=2,
                label=label,
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nu = N / V")
    ax.set_ylabel("epsilon")


def within_tolerance(
    value: np.ndarray, reference: np.ndarray, stderr: np.ndarray, *, relative: float = 0.05
) -> np.ndarray:
    """``|value - reference| <= 3 stderr + relative * |reference|`` elementwise: the spec's
    agreement test of a theory against a simulation with standard error ``stderr``."""
    value, reference, stderr = (np.asarray(x, dtype=float) for x in (value, reference, stderr))
    return np.abs(value - reference) <= 3.0 * stderr + relative * np.abs(reference)


# -- learning curves: running and comparing (Figs. 3 and 5) ----------------------------

#: Noise levels of the quick run (the full run has all four of the paper's).
QUICK_NOISES = (1e-1, 1e-3)

#: A "mostly indistinguishable" cavity: at least this fraction of points within tolerance.
MOSTLY = 0.8


@dataclasses.dataclass(frozen=True)
class Plan:
    """A run's sizes (``sizes``: graphs, data sets, the simulation's ``nu`` grid, the
    cavity's population and sweeps), its noise levels, and the cavity's ``nu`` points:
    every ``cavity_stride``-th point of the simulation's grid."""

    sizes: RunSizes
    noises: tuple[float, ...]
    cavity_stride: int

    @property
    def cavity_nus(self) -> np.ndarray:
        return self.sizes.nus[:: self.cavity_stride]


def plan(quick: bool, *, population: int = 300, sweeps: int = 8) -> Plan:
    """The paper's sizes (:func:`kernelkit.experiments._urry.run_sizes`) for a full run; for
    a quick one ``V = 250``, 4 graphs x 4 data sets, two noise levels, a simulation grid
    of 13 ``nu`` values and a cavity (``population``, ``sweeps``) on every third."""
    if not quick:
        return Plan(run_sizes(False), NOISES, 1)
    quick_sizes = dataclasses.replace(
        run_sizes(True), population=population, sweeps=sweeps, nus=np.logspace(-2, 1, 13)
    )
    return Plan(quick_sizes, QUICK_NOISES, 3)


def simulate_recording(
    ens: Ensemble, kernel: Any, noise: float, sizes: RunSizes, random_state: int
) -> tuple[LearningCurve, list[Any]]:
    """:func:`kernelkit.learning_curves.simulate` on ``ens`` with ``sizes``, and the
    graphs it drew (in order: ``curve.vertex_errors[g]`` belongs to ``graphs[g]``).
    The same ``random_state`` gives the same graphs and example counts for every noise
    level."""
    graphs: list[Any] = []
    sampler = ens.sampler(sizes.n_vertices)

    def recording(random_state: int) -> Any:
        graph = sampler(random_state=random_state)
        graphs.append(graph)
        return graph

    curve = simulate(
        recording,
        kernel,
        noise,
        sizes.nus,
        n_graphs=sizes.n_graphs,
        n_datasets=sizes.n_datasets,
        random_state=random_state,
    )
    return curve, graphs


def cavity_curve(
    ens: Ensemble,
    normalize: str,
    noise: float,
    nus: np.ndarray,
    sizes: RunSizes,
    random_state: int,
    *,
    p: int = P,
) -> CavityResult:
    """:func:`kernelkit.learning_curves.cavity` (population dynamics) for the ensemble's
    degree law with the run's population and sweeps."""
    return cavity(
        ens.degrees,
        A,
        p,
        noise,
        nus,
        normalize=normalize,
        population=sizes.population,
        sweeps=sizes.sweeps,
        random_state=random_state,
    )


def relative_deviation(theory: np.ndarray, sim: np.ndarray) -> np.ndarray:
    """``|theory - sim| / sim`` elementwise."""
    return np.abs(np.asarray(theory) - np.asarray(sim)) / np.asarray(sim)


def compare(curve: LearningCurve, cav: CavityResult, stride: int) -> dict[str, Any]:
    """The cavity against the simulation at the cavity's points (every ``stride``-th of
    the simulation's): relative deviations, and which points lie within
    ``3 SE + 5 %`` with the two standard errors combined in quadrature."""
    sim = curve.epsilon[::stride]
    se = np.hypot(curve.stderr[::stride], cav.stderr)
    ok = within_tolerance(cav.epsilon, sim, se)
    rel = relative_deviation(cav.epsilon, sim)
    return {
        "nus": cav.nus,
        "relative_deviation": rel,
        "max_relative_deviation": float(rel.max()),
        "within_tolerance": ok,
        "fraction_within": float(ok.mean()),
        "combined_stderr": se,
    }


def curve_dict(curve: LearningCurve | CavityResult) -> dict[str, Any]:
    """``nus``, ``epsilon`` and ``stderr`` of a simulated or cavity curve, for the JSON."""
    out = {"nus": curve.nus, "epsilon": curve.epsilon, "stderr": curve.stderr}
    if isinstance(curve, CavityResult):
        out["converged"] = curve.converged
        out["kappa"] = curve.kappa
    return out


def finding(
    claim: str, checked_as: str, ok: Any, where: str, *, needed: float = 1.0
) -> dict[str, Any]:
    """A claim of the paper checked on our numbers: ``ok[i]`` says whether it holds at
    case ``i`` (``where`` names the cases); reproduced when it holds at a fraction
    ``needed`` of them (all by default)."""
    ok = [bool(v) for v in ok]
    return {
        "claim": claim,
        "checked_as": checked_as,
        "holds_at": f"{sum(ok)}/{len(ok)} {where}",
        "reproduced": "yes" if sum(ok) >= needed * len(ok) else "no",
    }


def findings_table(findings: list[dict[str, Any]]) -> dict[str, Any]:
    """The findings as a report table."""
    return {
        "columns": ["paper (text)", "checked as", "holds at", "reproduced"],
        "rows": [[f["claim"], f["checked_as"], f["holds_at"], f["reproduced"]] for f in findings],
    }


def fmt(x: float, se: float | None = None) -> str:
    """``x`` to 3 significant digits, ``± se`` when there is a finite one."""
    if se is None or not np.isfinite(se):
        return f"{x:.3g}"
    return f"{x:.3g} ± {se:.1g}"


def deviation_row(label: str, noise: float, r: dict[str, Any]) -> list[Any]:
    """One row of the deviation table: ensemble, noise, cavity and eigenvalue deviations."""
    c = r["cavity_vs_simulation"]
    row = [label, noise_label(noise), f"{c['max_relative_deviation']:.3f}"]
    if "eigen_max_relative_deviation" in r:
        row += [
            f"{r['eigen_max_relative_deviation']:.3f}",
            f"{r['cavity_mean_deviation_intermediate']:.3f}",
            f"{r['eigen_mean_deviation_intermediate']:.3f}",
        ]
    within = np.asarray(c["within_tolerance"])
    return [*row, f"{within.mean():.2f} ({within.sum()}/{within.size})"]


def curves_table(results: dict[str, Any], methods: dict[str, str], stride: int) -> dict:
    """epsilon of each method (``{result key: row label}``) at the cavity's ``nu`` points,
    ``± SE`` where there is one; curves on the simulation's grid are thinned by
    ``stride``."""
    first = next(iter(results.values()))
    nus = np.asarray(next(iter(first["noises"].values()))["cavity"]["nus"])
    rows = []
    for e in results.values():
        for label, r in e["noises"].items():
            for key, name in methods.items():
                v = r[key]
                eps = np.asarray(v["epsilon"] if isinstance(v, dict) else v)
                se = np.asarray(v["stderr"]) if isinstance(v, dict) else np.full(eps.size, np.nan)
                if eps.size != nus.size:
                    eps, se = eps[::stride], se[::stride]
                cells = [fmt(x, s) for x, s in zip(eps, se, strict=True)]
                rows.append([e["label"], label, name, *cells])
    return {"columns": ["ensemble", "noise", "method", *[f"nu={x:.3g}" for x in nus]], "rows": rows}


def spec_reference_table(
    key: str,
    normalize: str,
    p: int,
    noise: float,
    reference: dict[float, tuple[float, float, float]],
    sizes: RunSizes,
    random_states: tuple[int, int],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Cavity and simulation at the spec's verified points ``{nu: (cavity, simulation,
    its SE)}`` (the project's reading of the paper, "population dynamics vs
    simulation", verified numbers), with
    the run's sizes, beside the spec's numbers."""
    ens = ensemble(key)
    nus = np.array(sorted(reference))
    ref_sizes = dataclasses.replace(sizes, nus=nus)
    curve, _ = simulate_recording(
        ens, walk_kernel(normalize, p=p), noise, ref_sizes, random_states[0]
    )
    cav = cavity_curve(ens, normalize, noise, nus, ref_sizes, random_states[1], p=p)
    cmp = compare(curve, cav, 1)
    rows = []
    for k, nu in enumerate(nus):
        spec_cav, spec_sim, spec_se = reference[float(nu)]
        rows.append(
            [
                f"{nu:g}",
                f"{spec_cav:.4g}",
                fmt(cav.epsilon[k], cav.stderr[k]),
                fmt(spec_sim, spec_se),
                fmt(curve.epsilon[k], curve.stderr[k]),
                "yes" if cmp["within_tolerance"][k] else "no",
            ]
        )
    table = {
        "columns": [
            "nu",
            "cavity (spec)",
            "cavity (ours)",
            "simulation (spec)",
            "simulation (ours)",
            "ours: cavity within 3 SE + 5 %",
        ],
        "rows": rows,
    }
    raw = {
        "settings": f"{ens.label}, p = {p}, a = {A:g}, noise = {noise:g}, {normalize}",
        "simulation": curve_dict(curve),
        "cavity": curve_dict(cav),
        "cavity_vs_simulation": cmp,
    }
    return table, raw
