"""Counting lattice points by randomised rounding: estimates vs exact counts (Vempala 1997 Ch. 5).

For contingency tables with given margins (§5.3.1, full-dimensional after eliminating the
equalities) and simplices ``{x >= 0, sum(x) <= b}`` (§5.4, ``C(b + n, n)`` lattice points),
:func:`~kernelkit.geometry.lattice.count_lattice_points` (rounding of hit-and-run points
of the enlarged ``P'``, times a multiphase estimate of ``vol(P')``) is compared with the
exact count of :func:`~kernelkit.geometry.polytopes.enumerate_lattice_points`.

Two studies: (1) one run per case with the table of estimate, stderr, exact count and
relative error (target: ≤ 10 % on every case); (2) a coverage study, many seeds per
case, counting how often the stated uncertainty covers the exact count (target: ≥ 90 %).
We report both ``estimate ± stderr`` (a 1-σ band: ~68 % if the stderr is honest) and the
95 % interval ``estimate ± t_{0.975, 19} stderr`` (what the ≥ 90 % target can mean for
an honest stderr). The thesis has no numerical experiment; its Thm 14 is the statement.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._progress import progress
from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.geometry.lattice import count_lattice_points
from kernelkit.geometry.polytopes import (
    Polytope,
    contingency_table_polytope,
    enumerate_lattice_points,
    simplex_polytope,
)
from kernelkit.plotting import COLORS, new_figure, save_figure

#: (label, kind, arguments): contingency tables (row sums, column sums) and simplices (n, b).
QUICK_CASES: list[tuple[str, str, Any]] = [
    ("table 2x3", "table", ([6, 9], [4, 5, 6])),
    ("table 2x4", "table", ([10, 10], [5, 5, 5, 5])),
    ("table 3x3", "table", ([8, 9, 10], [9, 9, 9])),
    ("simplex n=2 b=10", "simplex", (2, 10)),
    ("simplex n=3 b=8", "simplex", (3, 8)),
    ("simplex n=4 b=12", "simplex", (4, 12)),
]
FULL_CASES: list[tuple[str, str, Any]] = [
    *QUICK_CASES,
    ("table 3x4", "table", ([8, 8, 8], [6, 6, 6, 6])),
    ("table 4x4", "table", ([7, 7, 7, 7], [7, 7, 7, 7])),
    ("simplex n=5 b=12", "simplex", (5, 12)),
    ("simplex n=6 b=15", "simplex", (6, 15)),
]
QUICK: dict[str, Any] = {
    "n_chains": 2000,
    "coverage_cases": ["table 3x3", "simplex n=3 b=8"],
    "n_seeds": 20,
    "coverage_chains": 400,
}
FULL: dict[str, Any] = {
    "n_chains": 4000,
    "coverage_cases": [c[0] for c in FULL_CASES],
    "n_seeds": 50,
    "coverage_chains": 1000,
}
#: Groups of chains in the jackknife (``count_lattice_points``'s default).
N_GROUPS = 20
TARGET_REL_ERROR = 0.10
TARGET_COVERAGE = 0.90


def _polytope(kind: str, args: Any) -> Polytope:
    if kind == "table":
        return contingency_table_polytope(*args)
    return simplex_polytope(*args)


def _one(P: Polytope, exact: int, n_chains: int, seed: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    res = count_lattice_points(P, n_chains=n_chains, n_groups=N_GROUPS, random_state=seed)
    elapsed = time.perf_counter() - t0
    lo, hi = res.confidence_interval(0.95, N_GROUPS)
    return {
        "estimate": res.estimate,
        "stderr": res.stderr,
        "rel_error": res.estimate / exact - 1.0,
        "z": (res.estimate - exact) / res.stderr if res.stderr > 0 else math.inf,
        "covers_1se": bool(abs(res.estimate - exact) <= res.stderr),
        "covers_95": bool(lo <= exact <= hi),
        "acceptance_rate": res.acceptance_rate,
        "volume": res.volume,
        "volume_stderr": res.volume_stderr,
        "n_phases": res.n_phases,
        "n_samples": res.n_samples,
        "time": elapsed,
    }


def _figure(cases: list[dict], coverage: dict[str, Any], out: Path) -> str:
    fig, axes = new_figure(1, 2, width=4.8, height=3.4)
    ax, ax_z = axes[0, 0], axes[0, 1]
    ratio = np.array([c["run"]["estimate"] / c["exact"] for c in cases])
    err = np.array([2 * c["run"]["stderr"] / c["exact"] for c in cases])
    x = np.arange(len(cases))
    ax.errorbar(x, ratio, yerr=err, fmt="o", color=COLORS[0], capsize=3, label="estimate ± 2 se")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhspan(1 - TARGET_REL_ERROR, 1 + TARGET_REL_ERROR, color=COLORS[2], alpha=0.15)
    ax.set_xticks(x, [c["case"] for c in cases], rotation=45, ha="right", fontsize=7)
    ax.set_ylabel("estimate / exact count")
    ax.set_title("Lattice-point counts (band: ±10 %)")
    ax.legend()
    zs = np.concatenate([np.asarray(v["z"]) for v in coverage.values()])
    zs = zs[np.isfinite(zs)]
    ax_z.hist(zs, bins=15, density=True, color=COLORS[1], alpha=0.7, label="(estimate − exact)/se")
    grid = np.linspace(-4, 4, 200)
    ax_z.plot(grid, np.exp(-(grid**2) / 2) / math.sqrt(2 * math.pi), color="k", label="N(0, 1)")
    ax_z.set_xlabel("z")
    ax_z.set_title("Coverage study: standardised errors")
    ax_z.legend()
    return save_figure(fig, out / "lattice_count.png")


@register(
    "lattice-count",
    title="Counting lattice points by randomised rounding vs exact enumeration",
    source="Vempala (1997) Ch. 5: Thms 13-15, Lemma 11, §5.3.1, §5.4",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    settings = QUICK if quick else FULL
    case_list = QUICK_CASES if quick else FULL_CASES
    run_seeds = seeds(int(random_state), len(case_list))
    cases: list[dict[str, Any]] = []
    polytopes: dict[str, tuple[Polytope, int]] = {}
    for (label, kind, args), seed in progress(
        list(zip(case_list, run_seeds, strict=True)), desc="lattice-count"
    ):
        P = _polytope(kind, args)
        t0 = time.perf_counter()
        exact = len(enumerate_lattice_points(P))
        t_exact = time.perf_counter() - t0
        polytopes[label] = (P, exact)
        row = _one(P, exact, settings["n_chains"], seed)
        cases.append(
            {
                "case": label,
                "kind": kind,
                "margins_or_n_b": [list(a) if isinstance(a, list) else a for a in args],
                "n_dims": P.n_dims,
                "exact": exact,
                "exact_time": t_exact,
                "seed": seed,
                "run": row,
            }
        )
    coverage: dict[str, dict[str, Any]] = {}
    cov_seeds = seeds(int(random_state) + 1, settings["n_seeds"])
    for label in settings["coverage_cases"]:
        P, exact = polytopes[label]
        runs = [_one(P, exact, settings["coverage_chains"], s) for s in cov_seeds]
        rel = np.array([r["rel_error"] for r in runs])
        coverage[label] = {
            "n_seeds": len(runs),
            "covers_1se": float(np.mean([r["covers_1se"] for r in runs])),
            "covers_95": float(np.mean([r["covers_95"] for r in runs])),
            "max_abs_rel_error": float(np.abs(rel).max()),
            "mean_rel_error": float(rel.mean()),
            "rms_rel_error": float(np.sqrt(np.mean(rel**2))),
            "mean_rel_stderr": float(np.mean([r["stderr"] for r in runs]) / exact),
            "z": [r["z"] for r in runs],
        }
    max_rel = max(abs(c["run"]["rel_error"]) for c in cases)
    all_runs = sum(v["n_seeds"] for v in coverage.values())
    cover95 = sum(v["covers_95"] * v["n_seeds"] for v in coverage.values()) / all_runs
    cover1 = sum(v["covers_1se"] * v["n_seeds"] for v in coverage.values()) / all_runs
    totals = {
        "cases": len(cases),
        "max_abs_rel_error": max_rel,
        "all_within_target": bool(max_rel <= TARGET_REL_ERROR),
        "coverage_runs": all_runs,
        "coverage_95": cover95,
        "coverage_1se": cover1,
        "coverage_95_meets_target": bool(cover95 >= TARGET_COVERAGE),
    }
    headline = (
        f"{len(cases)} polytopes (contingency tables, simplices): max relative error "
        f"{100 * max_rel:.1f}% (target ≤ 10%); over {all_runs} seeded runs the 95% interval "
        f"(± t·stderr) covers the exact count in {100 * cover95:.0f}% (target ≥ 90%), "
        f"± 1 stderr in {100 * cover1:.0f}% (68% if honest)"
    )
    tables = {
        "Estimates vs exact counts (one run per case)": {
            "columns": [
                "case",
                "n",
                "exact",
                "estimate",
                "stderr",
                "rel. error",
                "95% CI covers",
                "acceptance",
                "vol(P')",
                "phases",
                "time (s)",
            ],
            "rows": [
                [
                    c["case"],
                    c["n_dims"],
                    c["exact"],
                    f"{c['run']['estimate']:.1f}",
                    f"{c['run']['stderr']:.1f}",
                    f"{100 * c['run']['rel_error']:+.2f}%",
                    "yes" if c["run"]["covers_95"] else "no",
                    f"{c['run']['acceptance_rate']:.3f}",
                    f"{c['run']['volume']:.4g}",
                    c["run"]["n_phases"],
                    f"{c['run']['time']:.2f}",
                ]
                for c in cases
            ],
        },
        "Coverage over seeds": {
            "columns": [
                "case",
                "seeds",
                "covers (± stderr)",
                "covers (95% CI)",
                "max |rel. error|",
                "mean rel. error",
                "mean stderr / exact",
            ],
            "rows": [
                [
                    label,
                    v["n_seeds"],
                    f"{100 * v['covers_1se']:.0f}%",
                    f"{100 * v['covers_95']:.0f}%",
                    f"{100 * v['max_abs_rel_error']:.1f}%",
                    f"{100 * v['mean_rel_error']:+.2f}%",
                    f"{100 * v['mean_rel_stderr']:.2f}%",
                ]
                for label, v in coverage.items()
            ],
        },
    }
    return {
        "headline": headline,
        "figures": [_figure(cases, coverage, out)],
        "tables": tables,
        "totals": totals,
        "cases": cases,
        "coverage": coverage,
        "settings": {
            **settings,
            "n_groups": N_GROUPS,
            "count_lattice_points": "c=2.0, r=m, cap=True, n_steps=5, burn_in=3n+5",
            "targets": {"rel_error": TARGET_REL_ERROR, "coverage": TARGET_COVERAGE},
        },
    }
