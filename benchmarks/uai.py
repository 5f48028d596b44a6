"""UAI-competition tasks on generated competition-style models (issue 31).

The models are those of ``benchmarks/uai_models.py``: binary grids (width = side),
pedigree-like linkage networks with Mendelian determinism and phenotype evidence, random
constraint networks with forbidden tuples, and the bnlearn networks as pgmpy's
``UAIWriter`` writes them, with forward-sampled evidence. References are our exact engine
where the induced width fits. Four sections:

1. **Exact** (``kernelkit.pgm.solve``, tasks ``PR`` and ``MAR``, ``memory_limit`` 4 GiB as
   in the competition): width, largest domain, time, whether exact ran; for the bnlearn
   networks pgmpy's ``VariableElimination`` on the same network computes five marginals
   given the evidence (its time, and the largest difference from ours, beside our time
   for all marginals).
2. **Bounds on log Z** (``kernelkit.pgm.bounds.log_partition_bounds`` with a time limit):
   lower, upper and the gap in ``log10``. Where exact runs, with the i-bound fixed at half
   the induced width (so that the bounds are not exact), and whether the true value lies
   between them (the target: on every grid of width <= 20). Models beyond exact: anytime
   (the largest i-bound the time allows), their gap only.
3. **Loopy BP under determinism** (``loopy_bp``, automatic schedule): on every model with
   zeros, whether it returned a finite ``log Z`` or said ``converged=False``; never an
   overflowed number. Its error against exact where exact runs.
4. **MAP** (``kernelkit.pgm.bounds.map_bounds``: mini-bucket and LP upper bounds, best
   decoded assignment): on every model where exact MAP runs, whether the exact MAP score
   lies within ``[lower, upper]``.

Usage: ``python benchmarks/uai.py [--quick] [--time-limit S] [--sections 1,2,3,4]``.
The last line is ``RESULT uai ratio=<pgmpy's time for five marginals / ours for all of them,
bnlearn networks, median> ...``.
"""

from __future__ import annotations

import logging
import math
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import uai_models as um
from _common import parser, result_line

from kernelkit._memory import MemoryLimitError, memory_cap
from kernelkit.pgm import elimination_order, loopy_bp, solve
from kernelkit.pgm.bounds import log_partition_bounds, map_bounds
from kernelkit.pgm.exact import exact_log_partition, exact_map

LN10 = math.log(10.0)
GIB = 2**30


def cases(quick: bool) -> list[um.Case]:
    out: list[um.Case] = []
    sides = (6, 10) if quick else (10, 15, 20, 30)
    for L in sides:
        for C in (0.5, 2.0):
            out.append(um.grid(L, C, 0))
    for n in (30,) if quick else (60, 120, 200, 400):
        out.append(um.pedigree(n, 0))
    csps = [(20, 3, 30, 0.3)] if quick else [(40, 3, 60, 0.3), (60, 3, 90, 0.3), (100, 4, 150, 0.2)]
    for n, d, c, t in csps:
        out.append(um.csp(n, d, c, t, 0))
    for name in ("alarm", "child") if quick else um.BNLEARN:
        out.append(um.bnlearn(name, 0))
    return out


def _width(case: um.Case) -> tuple[int, int, int]:
    work = case.conditioned
    e = elimination_order(work)
    return e.induced_width, int(work.cardinalities.max(initial=1)), e.max_table_size


def _exact_pr(case: um.Case) -> float | None:
    work = case.conditioned
    try:
        with memory_cap(4 * GIB):
            return float(exact_log_partition(work))
    except MemoryLimitError:
        return None


def _pgmpy_mar(case: um.Case, ours: list[np.ndarray]) -> tuple[float, float, float] | None:
    """pgmpy on the same network: ``VariableElimination`` marginals of the first five
    unobserved variables given the evidence. Returns pgmpy's time, the time of our ``MAR``
    (every variable), and the largest difference."""
    if case.family != "bnlearn":
        return None
    try:
        from pgmpy.inference import VariableElimination
    except ImportError:
        return None
    net = um.load_network(case.name.rsplit("-s", 1)[0])
    names = sorted(net.nodes())
    states = {v: net.get_cpds(v).state_names[v] for v in names}
    evidence = {names[v]: states[names[v]][x] for v, x in case.evidence.items()}
    queried = [v for v in range(case.model.n_variables) if v not in case.evidence][:5]
    t0 = time.perf_counter()
    infer = VariableElimination(net)
    got = [infer.query([names[v]], evidence=evidence, show_progress=False) for v in queried]
    peer_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    solve(case.model, "MAR", evidence=case.evidence)
    ours_s = time.perf_counter() - t0
    diff = 0.0
    for q, v in zip(got, queried, strict=True):
        order = [q.state_names[names[v]].index(s) for s in states[names[v]]]
        p = np.asarray(q.values)[order]
        diff = max(diff, float(np.abs(p / p.sum() - ours[v]).max()))
    return peer_s, ours_s, diff


def section_exact(all_cases: list[um.Case], table: dict[str, dict[str, Any]]) -> list[float]:
    print("\n1. exact PR and MAR under 4 GiB (solve)")
    print(
        f"{'model':32s} {'n':>5s} {'ev':>4s} {'width':>5s} {'dom':>3s} "
        f"{'PR s':>7s} {'MAR s':>7s} {'exact':>5s} {'log10 Z':>12s} {'pgmpy s':>8s} "
        f"{'pgmpy diff':>10s}"
    )
    ratios = []
    for c in all_cases:
        width, dom, _ = _width(c)
        t0 = time.perf_counter()
        pr = solve(c.model, "PR", evidence=c.evidence, memory_limit=4 * GIB, time_limit=20)
        t_pr = time.perf_counter() - t0
        t_mar = float("nan")
        peer_s = peer_diff = ""
        if pr.exact:
            t0 = time.perf_counter()
            mar = solve(c.model, "MAR", evidence=c.evidence, memory_limit=4 * GIB, time_limit=20)
            t_mar = time.perf_counter() - t0
            peer = _pgmpy_mar(c, mar.marginals) if mar.marginals is not None else None
            if peer is not None:
                peer_s = f"{peer[0]:.3f}"
                peer_diff = f"{peer[2]:.1e}"
                ratios.append(peer[0] / peer[1])
        table[c.name] = dict(width=width, dom=dom, exact=pr.exact, log_z=pr.log_partition)
        print(
            f"{c.name:32s} {c.model.n_variables:5d} {len(c.evidence):4d} {width:5d} {dom:3d} "
            f"{t_pr:7.3f} {t_mar:7.3f} {pr.exact!s:>5s} {pr.log_partition / LN10:12.5f} "
            f"{peer_s:>8s} {peer_diff:>10s}"
        )
    return ratios


def section_bounds(
    all_cases: list[um.Case], table: dict[str, dict[str, Any]], limit: float
) -> tuple[int, int]:
    print(f"\n2. bounds on log Z (log_partition_bounds, time_limit={limit:g} s, 95 % confidence)")
    print(
        f"{'model':32s} {'width':>5s} {'i':>3s} {'lower':>11s} {'upper':>11s} {'gap10':>8s} "
        f"{'exact':>11s} {'inside':>6s} {'lower from':>22s} {'s':>6s}"
    )
    inside = checked = 0
    for c in all_cases:
        info = table[c.name]
        work = c.conditioned
        truth = info["log_z"] if info["exact"] else None
        t0 = time.perf_counter()
        # where exact runs, a fixed i-bound of half the width (else the check is trivial:
        # the anytime mode would reach the width and be exact); else anytime
        i_bound = max(1, info["width"] // 2) if truth is not None else None
        b = log_partition_bounds(
            work, i_bound=i_bound, time_limit=limit, random_state=0, memory_limit=GIB
        )
        dt = time.perf_counter() - t0
        ok = ""
        if truth is not None:
            good = (
                b.lower - 1e-9 * max(1, abs(truth)) <= truth <= b.upper + 1e-9 * max(1, abs(truth))
            )
            ok = "yes" if good else "NO"
            if c.family == "grid" and info["width"] <= 20:
                checked += 1
                inside += good
        exact_s = f"{truth / LN10:11.4f}" if truth is not None else "-"
        print(
            f"{c.name:32s} {info['width']:5d} {b.i_bound:3d} {b.lower / LN10:11.4f} "
            f"{b.upper / LN10:11.4f} {b.log10_gap:8.3f} {exact_s:>11s} {ok:>6s} "
            f"{b.lower_method[:22]:>22s} {dt:6.1f}"
        )
    return inside, checked


def section_bp(all_cases: list[um.Case], table: dict[str, dict[str, Any]]) -> tuple[int, int]:
    print("\n3. loopy BP (automatic schedule) on the models with determinism")
    print(
        f"{'model':32s} {'converged':>9s} {'iters':>6s} {'schedule':>22s} {'log10 Z':>12s} "
        f"{'error10':>9s} {'reason':s}"
    )
    good = total = 0
    for c in all_cases:
        work = c.conditioned
        if not any(np.isneginf(f.table).any() for f in work.factors):
            continue
        total += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = loopy_bp(work)
        finite = r.log_partition is not None and math.isfinite(r.log_partition)
        ok = (r.converged and finite) or not r.converged
        if r.converged and r.log_partition is not None and abs(r.log_partition) > 1e6:
            ok = False  # an overflowed number reported as an answer
        good += ok
        truth = table[c.name]["log_z"] if table[c.name]["exact"] else None
        err = ""
        if finite and truth is not None and math.isfinite(truth):
            err = f"{abs(r.log_partition - truth) / LN10:9.2e}"
        lz = f"{r.log_partition / LN10:12.4f}" if finite else "-"
        sched = f"{r.schedule_used}" + (f" d={r.damping_used:g}" if r.damping_used else "")
        print(
            f"{c.name:32s} {r.converged!s:>9s} {r.n_iter:6d} {sched[:22]:>22s} {lz:>12s} "
            f"{err:>9s} {getattr(r, 'reason', '')}"
        )
    return good, total


def section_map(all_cases: list[um.Case], limit: float) -> tuple[int, int]:
    print(f"\n4. MAP: bounds (map_bounds, time_limit={limit:g} s) against exact MAP")
    print(
        f"{'model':32s} {'lower':>11s} {'exact':>11s} {'upper':>11s} {'gap10':>8s} {'inside':>6s} "
        f"{'upper from':>24s}"
    )
    inside = checked = 0
    for c in all_cases:
        work = c.conditioned
        try:
            with memory_cap(4 * GIB):
                truth = float(exact_map(work).score)
        except MemoryLimitError:
            truth = None
        except ValueError:  # every assignment forbidden
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = map_bounds(work, time_limit=limit, memory_limit=GIB)
        ok = ""
        if truth is not None:
            tol = 1e-9 * max(1.0, abs(truth))
            good = b.lower - tol <= truth <= b.upper + tol
            ok = "yes" if good else "NO"
            checked += 1
            inside += good
        ex = f"{truth / LN10:11.4f}" if truth is not None else "-"
        gap = (b.upper - b.lower) / LN10
        print(
            f"{c.name:32s} {b.lower / LN10:11.4f} {ex:>11s} {b.upper / LN10:11.4f} {gap:8.3f} "
            f"{ok:>6s} {b.upper_method[:24]:>24s}"
        )
    return inside, checked


def main(argv: list[str] | None = None) -> None:
    p = parser(__doc__.splitlines()[0], repeats=1)
    p.add_argument("--time-limit", type=float, default=20.0, help="seconds per bound (default 20)")
    p.add_argument("--sections", default="1,2,3,4", help="which sections (default all)")
    args = p.parse_args(argv)
    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=FutureWarning)
    sections = {int(s) for s in args.sections.split(",")}
    t0 = time.perf_counter()
    all_cases = cases(args.quick)
    print(f"uai: {len(all_cases)} models generated in {time.perf_counter() - t0:.1f} s")
    table: dict[str, dict[str, Any]] = {}
    ratios = section_exact(all_cases, table)  # always: the references of the others
    quality: dict[str, Any] = {}
    if 2 in sections:
        inside, checked = section_bounds(all_cases, table, args.time_limit)
        quality["bounds_inside"] = f"{inside}/{checked}"
    if 3 in sections:
        good, total = section_bp(all_cases, table)
        quality["bp_ok"] = f"{good}/{total}"
    if 4 in sections:
        inside, checked = section_map(all_cases, args.time_limit)
        quality["map_inside"] = f"{inside}/{checked}"
    ratio = statistics.median(ratios) if ratios else float("nan")
    print(result_line("uai", ratio, float("nan"), float("nan"), **quality))


if __name__ == "__main__":
    main()
