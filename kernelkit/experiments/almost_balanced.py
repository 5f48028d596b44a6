"""Exact MAP on almost balanced models: ``L_3^s`` vs clamping vs brute force vs ``L_2``, ``L_3``.

Rowland (2018) Ch. 3. A binary pairwise model is almost balanced (Def. 3.1) when deleting
one vertex ``s`` leaves it balanced. Thm 3.2(i): the LP over ``L_3^s`` (LOC on every pair,
TRI on the triples through ``s``, eq. 3.2) is tight for such models; §3.2: MAP is also
found by clamping ``X_s`` to 0 and 1 and solving the two balanced problems with ``L_2``
(tight on balanced models, Thm 1.14). Plain ``L_2`` has no such guarantee, and ``L_3 ⊆
L_3^s`` (eq. 3.2) is tight whenever ``L_3^s`` is, at a cubic instead of quadratic number
of constraints.

On random almost balanced models
(:func:`~kernelkit.pgm.almost_balanced.random_almost_balanced_model`: Erdős–Rényi graph
with edge probability 1/2, a balanced signing away from a random ``s``, random signs at
``s``, spins ``±1`` with fields ``Unif[-1, 1]`` and coupling magnitudes ``Unif[0, 2]``) of
several sizes, each model is solved by

(a) the ``L_3^s`` LP at the vertex found by
    :func:`~kernelkit.pgm.balance.almost_balanced_vertex`;
(b) clamping (:func:`~kernelkit.pgm.almost_balanced.almost_balanced_map`, two ``L_2`` LPs);
(c) brute-force enumeration (:func:`~kernelkit.pgm.exact.brute_force_map`, up to ``n = 20``);
(d) plain ``L_2``; (e) ``L_3`` (TRI on every triple).

The exact MAP score is the brute-force one where it runs, else the clamping one (then
checked against ``L_3^s`` and ``L_3``, two independent exact methods). A method *agrees*
(a relaxation is *tight*) when its value is within ``1e-6 (1 + |MAP|)`` of the exact score.
Ch. 3 of the thesis has no numerical experiment: its statements (Thms 1.14 and 3.2,
eq. 3.2) are the "thesis" column, checked on every model.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._progress import progress
from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.pgm.almost_balanced import almost_balanced_map, random_almost_balanced_model
from kernelkit.pgm.balance import almost_balanced_vertex, is_balanced
from kernelkit.pgm.exact import brute_force_map
from kernelkit.pgm.relaxations import lp_relaxation
from kernelkit.plotting import COLORS, new_figure, save_figure

#: Method labels, in table and figure order.
METHODS = ("L3s LP", "clamping", "brute force", "L2", "L3")
#: Largest ``n`` enumerated by brute force (``2**20`` assignments).
BRUTE_FORCE_MAX = 20
#: Sizes and models per size.
QUICK: dict[str, Any] = {"sizes": [8, 10, 12], "n_models": 10}
FULL: dict[str, Any] = {"sizes": [8, 12, 16, 20, 30, 40], "n_models": 20}
TOL = 1e-6


def _timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def _one_model(n: int, seed: int) -> dict[str, Any]:
    """Every method on one random almost balanced model."""
    m = random_almost_balanced_model(n, random_state=seed)
    s = almost_balanced_vertex(m)
    assert s is not None  # the generator plants a distinguished vertex
    row: dict[str, Any] = {"n": n, "seed": seed, "balanced": is_balanced(m), "s": int(s)}
    l3s, t = _timed(lp_relaxation, m, "L3s", s=s)
    row["L3s LP"] = _lp_row(l3s, t)
    clamped, t = _timed(almost_balanced_map, m)
    row["clamping"] = {
        "value": clamped.score,
        "time": t,
        "integral": all(clamped.integral),
        "n_lp_variables": clamped.n_lp_variables,
        "n_constraints": clamped.n_constraints,
    }
    if n <= BRUTE_FORCE_MAX:
        bf, t = _timed(brute_force_map, m)
        row["brute force"] = {"value": bf.score, "time": t, "integral": True}
        row["exact"], row["reference"] = bf.score, "brute force"
    else:
        row["exact"], row["reference"] = clamped.score, "clamping"
    for level in ("L2", "L3"):
        res, t = _timed(lp_relaxation, m, level)
        row[level] = _lp_row(res, t)
    for method in METHODS:
        if method in row:
            r = row[method]
            r["gap"] = float(r["value"] - row["exact"])
            r["agrees"] = bool(abs(r["gap"]) <= TOL * (1.0 + abs(row["exact"])))
    return row


def _lp_row(res: Any, t: float) -> dict[str, Any]:
    return {
        "value": res.value,
        "time": t,
        "integral": res.is_integral,
        "n_lp_variables": res.n_lp_variables,
        "n_constraints": res.n_constraints,
    }


def _count(rows: list[dict], method: str, key: str) -> int:
    return sum(bool(r[method][key]) for r in rows if method in r)


def _summary(rows: list[dict], sizes: list[int]) -> dict[str, Any]:
    """Per size and per method: agreement counts, gaps, sizes and times."""
    out: dict[str, Any] = {}
    for n in sizes:
        at = [r for r in rows if r["n"] == n]
        frustrated = [r for r in at if not r["balanced"]]
        per: dict[str, Any] = {
            "n_models": len(at),
            "n_balanced": sum(r["balanced"] for r in at),
            "reference": at[0]["reference"],
        }
        for method in METHODS:
            have = [r for r in at if method in r]
            if not have:
                continue
            gaps = np.array([r[method]["gap"] for r in have])
            per[method] = {
                "agrees": _count(have, method, "agrees"),
                "integral": _count(have, method, "integral"),
                "n_checked": len(have),
                "agrees_on_frustrated": _count(frustrated, method, "agrees"),
                "mean_gap": float(gaps.mean()),
                "max_gap": float(gaps.max()),
                "mean_time": float(np.mean([r[method]["time"] for r in have])),
                "mean_lp_variables": float(
                    np.mean([r[method].get("n_lp_variables", 0) for r in have])
                ),
                "mean_constraints": float(
                    np.mean([r[method].get("n_constraints", 0) for r in have])
                ),
            }
        per["n_frustrated"] = len(frustrated)
        out[str(n)] = per
    return out


def _tables(summary: dict[str, Any], totals: dict[str, Any]) -> dict[str, Any]:
    agree_rows, size_rows, time_rows = [], [], []
    for n, per in summary.items():
        k = per["n_models"]

        def frac(method: str, key: str = "agrees", per: dict = per) -> str:
            if method not in per:
                return "—"
            return f"{per[method][key]}/{per[method]['n_checked']}"

        agree_rows.append(
            [
                n,
                k,
                per["n_frustrated"],
                per["reference"],
                frac("L3s LP"),
                frac("L3s LP", "integral"),
                frac("clamping"),
                frac("brute force"),
                frac("L2"),
                f"{per['L2']['agrees_on_frustrated']}/{per['n_frustrated']}",
                f"{per['L2']['mean_gap']:.3g}",
                f"{per['L2']['max_gap']:.3g}",
                frac("L3"),
            ]
        )
        size_rows.append(
            [n]
            + [
                f"{per[m]['mean_lp_variables']:.0f} / {per[m]['mean_constraints']:.0f}"
                for m in ("L2", "clamping", "L3s LP", "L3")
            ]
        )
        time_rows.append(
            [n] + [f"{1e3 * per[m]['mean_time']:.1f}" if m in per else "—" for m in METHODS]
        )
    thesis_rows = [
        [
            "L3s tight on almost balanced models (Thm 3.2(i))",
            "every model",
            f"{totals['L3s LP']}/{totals['models']}",
        ],
        [
            "clamping + L2 exact (§3.2, Thm 1.14 on the clamped models)",
            "every model",
            f"{totals['clamping']}/{totals['models']}",
        ],
        [
            "L3 ⊆ L3s ⊆ L2 (eq. 3.2), so L3 tight too",
            "every model",
            f"{totals['L3']}/{totals['models']}",
        ],
        [
            "L2 tight on balanced models (Thm 1.14)",
            "every balanced model",
            f"{totals['L2_balanced']}/{totals['balanced']}",
        ],
        [
            "L2 tight on the frustrated (not balanced) ones",
            "no guarantee",
            f"{totals['L2_frustrated']}/{totals['frustrated']}",
        ],
    ]
    return {
        "Exact MAP: agreement with the exact score (counts of models)": {
            "columns": [
                "n",
                "models",
                "not balanced",
                "exact reference",
                "L3s = MAP",
                "L3s integral",
                "clamping = MAP",
                "brute force (checked)",
                "L2 tight",
                "L2 tight (not balanced)",
                "L2 mean gap",
                "L2 max gap",
                "L3 tight",
            ],
            "rows": agree_rows,
        },
        "LP sizes (mean LP variables / constraints; clamping: both LPs)": {
            "columns": ["n", "L2", "clamping (2 x L2)", "L3s", "L3"],
            "rows": size_rows,
        },
        "Mean time per model (ms)": {"columns": ["n", *METHODS], "rows": time_rows},
        "Thesis statements checked on these models (Ch. 3 has no numerical experiment)": {
            "columns": ["statement", "thesis", "ours"],
            "rows": thesis_rows,
        },
    }


def _figure(rows: list[dict], summary: dict[str, Any], out: Path) -> str:
    fig, axes = new_figure(1, 2, width=4.6, height=3.4)
    ax_t, ax_g = axes[0, 0], axes[0, 1]
    sizes = [int(n) for n in summary]
    for colour, method in zip(COLORS, METHODS, strict=False):
        ns = [n for n in sizes if method in summary[str(n)]]
        ax_t.plot(
            ns,
            [1e3 * summary[str(n)][method]["mean_time"] for n in ns],
            "o-",
            color=colour,
            label=method,
        )
    ax_t.set_yscale("log")
    ax_t.set_xlabel("number of variables n")
    ax_t.set_ylabel("mean time per model (ms)")
    ax_t.set_title("Exact MAP on almost balanced models")
    ax_t.legend()
    rng = np.random.RandomState(0)
    for colour, method in zip(COLORS[3:5], ("L2", "L3"), strict=True):
        n = np.array([r["n"] for r in rows], dtype=float)
        gap = np.array([r[method]["gap"] for r in rows])
        offset = -0.25 if method == "L2" else 0.25
        ax_g.scatter(
            n + offset + rng.uniform(-0.15, 0.15, size=n.shape),
            np.maximum(gap, 0.0),
            s=12,
            alpha=0.6,
            color=colour,
            label=f"{method} gap",
        )
    l3s = np.array([r["L3s LP"]["gap"] for r in rows])
    ax_g.scatter(
        [r["n"] for r in rows], np.maximum(l3s, 0.0), marker="x", color=COLORS[0], label="L3s gap"
    )
    ax_g.set_xlabel("number of variables n")
    ax_g.set_ylabel("LP value − MAP score")
    ax_g.set_title("Relaxation gaps (L3s: 0, Thm 3.2(i))")
    ax_g.legend()
    return save_figure(fig, out / "almost_balanced.png")


@register(
    "almost-balanced",
    title="Exact MAP on almost balanced models: L3s LP vs clamping vs brute force (L2, L3)",
    source="Rowland (2018) Ch. 3: Def. 3.1, Thm 3.2, §3.2",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    settings = QUICK if quick else FULL
    sizes, n_models = settings["sizes"], settings["n_models"]
    model_seeds = seeds(int(random_state), len(sizes) * n_models)
    jobs = [
        (n, model_seeds[i * n_models + k]) for i, n in enumerate(sizes) for k in range(n_models)
    ]
    rows = [_one_model(n, seed) for n, seed in progress(jobs, desc="almost-balanced")]
    summary = _summary(rows, sizes)
    balanced = [r for r in rows if r["balanced"]]
    frustrated = [r for r in rows if not r["balanced"]]
    totals = {
        "models": len(rows),
        "balanced": len(balanced),
        "frustrated": len(frustrated),
        "L3s LP": sum(r["L3s LP"]["agrees"] for r in rows),
        "clamping": sum(r["clamping"]["agrees"] for r in rows),
        "brute force checked": sum("brute force" in r for r in rows),
        "L3": sum(r["L3"]["agrees"] for r in rows),
        "L2": sum(r["L2"]["agrees"] for r in rows),
        "L2_balanced": sum(r["L2"]["agrees"] for r in balanced),
        "L2_frustrated": sum(r["L2"]["agrees"] for r in frustrated),
        "L2_max_gap": float(max(r["L2"]["gap"] for r in rows)),
    }
    headline = (
        f"{totals['models']} random almost balanced models, n = {sizes[0]}..{sizes[-1]}: "
        f"L3s LP = MAP on {totals['L3s LP']}/{totals['models']} (Thm 3.2(i)), clamping on "
        f"{totals['clamping']}/{totals['models']}; plain L2 tight on only "
        f"{totals['L2_frustrated']}/{totals['frustrated']} of the not-balanced ones "
        f"(max gap {totals['L2_max_gap']:.3g})"
    )
    return {
        "headline": headline,
        "figures": [_figure(rows, summary, out)],
        "tables": _tables(summary, totals),
        "totals": totals,
        "summary": summary,
        "models": rows,
        "settings": {
            **settings,
            "brute_force_max": BRUTE_FORCE_MAX,
            "tolerance": f"{TOL} (1 + |MAP|)",
            "generator": "random_almost_balanced_model(n, edge_probability=0.5, "
            "field_scale=1.0, coupling_scale=2.0)",
        },
    }
