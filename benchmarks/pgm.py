"""Discrete graphical models (issue 15): exact log Z against pgmpy, loopy BP, LP relaxations.

One function per section; ``main`` runs them and prints one RESULT line.

**Loopy BP** (:func:`bp_section`; no peer: pgmpy's belief propagation is exact, on a
junction tree). ``kernelkit.pgm.loopy_bp(model, schedule="parallel", tol=1e-8)``
(sum-product, flooding schedule, no damping) on a 100 x 100 Ising grid with
``spins="01"``, fields and couplings uniform on ``[-0.5, 0.5]`` (seeded), against the
issue's target of 2 s; also ``spins="pm1"`` (four times the effective coupling). Medians
of ``--repeats``.

**LP relaxations** (:func:`lp_section`; no peer). ``kernelkit.pgm.lp_relaxation`` with
HiGHS: ``"L2"`` on a 30 x 30 Ising grid (``pm1`` spins, fields ``N(0, 0.5^2)``,
couplings ``N(0, 1)``: mixed signs, so the relaxation is not tight) against the target
of 5 s, and ``"L3"`` on a 6 x 6 grid against 30 s, model construction not timed.

**Exact inference** (:func:`exact_section`). Ising models on ``L x L`` grids with
``spins="pm1"``, fields and couplings drawn from ``N(0, 0.5^2)`` (``RandomState``-free
``default_rng(L)``, so each ``L`` has its own fixed model).

* kernelkit: ``kernelkit.pgm.exact.exact_log_partition(model)``. The grids are built row
  by row, so the model is *layered* (rows joined by a matching) and ``log Z`` comes from
  transfer matrices: per row, two matrix products with Kronecker products of the
  inter-row pairs, in the linear domain with rescaling (``kernelkit.pgm._transfer``). Its
  plan is made on the first call on a factor graph and remembered (the warm-up call
  pays it; the first-call time is printed too). Models that are not layered go through
  variable elimination along :func:`~kernelkit.pgm.exact.elimination_order`.
* pgmpy 1.1.2: a ``DiscreteMarkovNetwork`` with one ``DiscreteFactor`` per node and edge
  (``exp`` of our log tables), and ``VariableElimination(net).query([x0])``, whose
  unnormalised result sums to ``Z``. Two of its code paths:

  - its default, ``elimination_order="greedy"``: one ``opt_einsum`` contraction of all the
    factor tables (linear domain), the fast path and the fair peer; timed for every ``L``
    (4..8, and 10 and 16 next to ours);
  - the classic variable elimination, ``elimination_order="MinFill"``. For a Markov network
    pgmpy 1.1.2 ignores the heuristic's name and eliminates in set order
    (``ExactInference._get_elimination_order``, "Step 2"), so its tables blow up with the
    grid: one untimed-by-``alternate`` run per ``L`` up to ``--classic-max`` (default 7;
    ``L = 8`` took 163 s in one run here, and its order changes with the hash seed).

Both sides get the same model; construction (ours and pgmpy's network) is not timed,
``VariableElimination(net)`` is. Every pgmpy value is compared with ours; the script aborts
if one differs by ``1e-9`` or more (except where pgmpy overflows, below). For 16 x 16 the
peak memory of ``exact_log_partition`` is measured with ``tracemalloc`` in a separate,
untimed run and set next to the largest clique table (``8 * max_table_size`` bytes).
A last check, untimed: 16 x 16 with couplings ``N(0, 2^2)``, where ``log Z`` is beyond
``log(float max) ~ 709``: pgmpy's linear-domain contraction overflows, ours does not.

Runs alternate (ours, pgmpy, ...) after a warm-up; medians of ``--repeats``. The last line
is ``RESULT pgm ratio=<pgmpy_s / ours_s at 8x8> ours_s=.. peer_s=.. ...``.

Usage: ``python benchmarks/pgm.py [--quick] [--repeats R] [--classic-max L]``.
"""

from __future__ import annotations

import math
import os
import sys
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import alternate, parser, peak_rss_mb, result_line

from kernelkit.pgm import DiscreteModel, ising
from kernelkit.pgm.exact import elimination_order, exact_log_partition

TOL = 1e-9  # largest accepted |ours - pgmpy| of log Z


def ising_grid(L: int, scale: float = 0.5) -> DiscreteModel:
    """An L x L Ising grid (pm1 spins), fields and couplings ~ N(0, scale^2), seeded by L."""
    rng = np.random.default_rng(L)
    G = nx.grid_2d_graph(L, L)
    return ising(
        G,
        fields=rng.normal(scale=scale, size=L * L),
        couplings=rng.normal(scale=scale, size=G.number_of_edges()),
        spins="pm1",
    )


def pgmpy_network(model: DiscreteModel) -> tuple[Any, list[str]]:
    """The same model as a pgmpy DiscreteMarkovNetwork (potentials exp(table))."""
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import DiscreteMarkovNetwork

    names = [f"x{i}" for i in range(model.n_variables)]
    net = DiscreteMarkovNetwork()
    net.add_nodes_from(names)
    net.add_edges_from(
        (names[f.scope[0]], names[f.scope[1]]) for f in model.factors if f.arity == 2
    )
    with np.errstate(over="ignore"):
        net.add_factors(
            *[
                DiscreteFactor(
                    [names[v] for v in f.scope],
                    [int(model.cardinalities[v]) for v in f.scope],
                    np.exp(f.table),
                )
                for f in model.factors
            ]
        )
    return net, names


def pgmpy_log_z(net: Any, names: list[str], elimination_order: str = "greedy") -> float:
    """log Z from pgmpy's VariableElimination (the unnormalised marginal of x0, summed)."""
    from pgmpy.inference import VariableElimination

    phi = VariableElimination(net).query(
        [names[0]], elimination_order=elimination_order, show_progress=False
    )
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return float(np.log(np.sum(phi.values)))


def exact_section(args: Any) -> dict[str, Any]:
    """Exact log Z on Ising grids: kernelkit vs pgmpy; returns the RESULT fields."""
    sizes = [4, 5, 6] if args.quick else [4, 5, 6, 7, 8]
    big = [10] if args.quick else [10, 16]
    print("exact log Z, L x L Ising grids, pm1 spins, fields and couplings ~ N(0, 0.5^2)")
    print(
        f"{'L':>3} {'width':>5} {'ours_ms':>9} {'pgmpy_ms':>9} {'ratio':>7} "
        f"{'classic_s':>10} {'classic_ratio':>13} {'max_abs_diff':>12} (median of {args.repeats})"
    )
    rows: dict[int, dict[str, Any]] = {}
    worst_diff = 0.0
    for L in sizes + big:
        model = ising_grid(L)
        net, names = pgmpy_network(model)
        width = elimination_order(model).induced_width

        def ours(model: DiscreteModel = model) -> float:
            return exact_log_partition(model)

        def peer(net: Any = net, names: list[str] = names) -> float:
            return pgmpy_log_z(net, names)

        t0 = time.perf_counter()
        ours()  # warm-up; the first call on this factor graph (plans made and remembered)
        first = time.perf_counter() - t0
        peer()
        times, out = alternate({"ours": ours, "pgmpy": peer}, args.repeats)
        diff = abs(out["ours"] - out["pgmpy"])
        row = {
            "width": width,
            "ours": times["ours"],
            "pgmpy": times["pgmpy"],
            "log_z": out["ours"],
            "first": first,
        }
        if L <= args.classic_max:
            t0 = time.perf_counter()
            classic = pgmpy_log_z(net, names, "MinFill")
            row["classic"] = time.perf_counter() - t0
            diff = max(diff, abs(out["ours"] - classic))
        if not diff < TOL:
            raise SystemExit(f"error: L={L}: |ours - pgmpy| = {diff:.3e} is not below {TOL:g}")
        worst_diff = max(worst_diff, diff)
        rows[L] = row
        c = row.get("classic")
        print(
            f"{L:>3} {width:>5} {1e3 * row['ours']:>9.3f} {1e3 * row['pgmpy']:>9.3f} "
            f"{row['pgmpy'] / row['ours']:>7.2f} "
            + (f"{c:>10.3f} {c / row['ours']:>13.0f}" if c is not None else f"{'-':>10} {'-':>13}")
            + f" {diff:>12.2e}"
        )

    # Peak memory of the largest grid (untimed; tracemalloc sees NumPy's allocations).
    L_big = big[-1]
    model = ising_grid(L_big)
    order = elimination_order(model)
    tracemalloc.start()
    exact_log_partition(model)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    clique_bytes = 8 * order.max_table_size
    print(
        f"{L_big}x{L_big}: {order.heuristic} ordering, largest clique {order.max_clique_size} "
        f"variables ({order.max_table_size} entries, {clique_bytes / 2**20:.2f} MiB); "
        f"peak traced memory of exact_log_partition {peak / 2**20:.2f} MiB "
        f"({peak / clique_bytes:.1f}x the largest clique table); "
        f"a table over all {model.n_variables} variables would be 2^{model.n_variables} entries"
    )

    # Strong couplings: log Z beyond the float64 range of Z itself.
    strong = ising_grid(L_big, scale=2.0)
    ours_strong = exact_log_partition(strong)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        peer_strong = pgmpy_log_z(*pgmpy_network(strong))
    overflow = not math.isfinite(peer_strong)
    print(
        f"{L_big}x{L_big}, couplings ~ N(0, 2^2): ours log Z = {ours_strong:.6f}, "
        f"pgmpy log Z = {peer_strong} ({'overflows' if overflow else 'finite'})"
    )

    ref = 8 if 8 in rows else sizes[-1]
    print(
        f"{ref}x{ref}: first call on the factor graph (ordering and transfer plan made) "
        f"{1e3 * rows[ref]['first']:.2f} ms, {rows[ref]['pgmpy'] / rows[ref]['first']:.1f}x "
        "faster than pgmpy's median"
    )
    classic_L = max((L for L in rows if "classic" in rows[L]), default=None)
    fields: dict[str, Any] = {
        "ratio": rows[ref]["pgmpy"] / rows[ref]["ours"],
        "ours_s": rows[ref]["ours"],
        "peer_s": rows[ref]["pgmpy"],
        "exact_L": ref,
        "ours_first_call_s": round(rows[ref]["first"], 5),
        "max_abs_diff": worst_diff,
    }
    if classic_L is not None:
        fields[f"classic_ratio_{classic_L}x{classic_L}"] = (
            rows[classic_L]["classic"] / rows[classic_L]["ours"]
        )
    for L in big:
        fields[f"ours_{L}x{L}_s"] = round(rows[L]["ours"], 4)
        fields[f"pgmpy_{L}x{L}_s"] = round(rows[L]["pgmpy"], 4)
    fields[f"width_{L_big}x{L_big}"] = rows[L_big]["width"]
    fields[f"peak_mb_{L_big}x{L_big}"] = round(peak / 2**20, 2)
    fields[f"clique_mb_{L_big}x{L_big}"] = round(clique_bytes / 2**20, 2)
    fields["pgmpy_overflows_strong"] = overflow
    return fields


def uniform_grid(L: int, low: float, high: float, spins: str) -> DiscreteModel:
    """An L x L Ising grid, fields and couplings uniform on [low, high], seeded by L."""
    rng = np.random.default_rng(1000 + L)
    G = nx.grid_2d_graph(L, L)
    return ising(
        G,
        fields=rng.uniform(low, high, size=L * L),
        couplings=rng.uniform(low, high, size=G.number_of_edges()),
        spins=spins,
    )


def bp_section(args: Any) -> dict[str, Any]:
    """Loopy BP on a 100 x 100 grid against the 2 s target."""
    from kernelkit.pgm import loopy_bp

    L = 30 if args.quick else 100
    out: dict[str, Any] = {}
    for spins in ("01", "pm1"):
        model = uniform_grid(L, -0.5, 0.5, spins)
        loopy_bp(model, schedule="parallel", max_iter=3)  # warm-up
        med, last = alternate(
            {"bp": lambda m=model: loopy_bp(m, schedule="parallel", tol=1e-8, max_iter=1000)},
            args.repeats,
        )
        t, res = med["bp"], last["bp"]
        print(
            f"loopy BP {L}x{L} ({spins}): {t:.3f} s (median of {args.repeats}), "
            f"{res.n_iter} iterations, converged={res.converged}, log Z (Bethe) "
            f"{res.log_partition:.6f}"
        )
        out[f"bp_{L}x{L}_{spins}_s"] = round(t, 4)
        out[f"bp_{L}x{L}_{spins}_converged"] = res.converged
    return out


def lp_section(args: Any) -> dict[str, Any]:
    """L2 on a 30 x 30 grid (target 5 s) and L3 on a 6 x 6 grid (target 30 s)."""
    from kernelkit.pgm import lp_relaxation

    out: dict[str, Any] = {}
    for level, L in (("L2", 10 if args.quick else 30), ("L3", 4 if args.quick else 6)):
        rng = np.random.default_rng(2000 + L)
        G = nx.grid_2d_graph(L, L)
        model = ising(
            G,
            fields=rng.normal(scale=0.5, size=L * L),
            couplings=rng.normal(size=G.number_of_edges()),
            spins="pm1",
        )
        n_runs = max(1, min(args.repeats, 3))
        med, last = alternate({"lp": lambda m=model, lv=level: lp_relaxation(m, lv)}, n_runs)
        t, res = med["lp"], last["lp"]
        print(
            f"LP {level} {L}x{L}: {t:.3f} s (median of {n_runs}), value {res.value:.6f}, "
            f"integral={res.is_integral}, {res.n_lp_variables} LP variables, "
            f"{res.n_constraints} constraints"
        )
        out[f"lp_{level}_{L}x{L}_s"] = round(t, 4)
    return out


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeats=5)
    p.add_argument(
        "--classic-max",
        type=int,
        default=7,
        help="largest L for pgmpy's classic elimination (slow: minutes at L = 8)",
    )
    args = p.parse_args()
    load = os.getloadavg()[0]
    print(f"load average at the start: {load:.2f} on {os.cpu_count()} cores")
    exact = exact_section(args)
    exact.update(bp_section(args))
    exact.update(lp_section(args))
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    ratio, ours_s, peer_s = exact.pop("ratio"), exact.pop("ours_s"), exact.pop("peer_s")
    print(result_line("pgm", ratio, ours_s, peer_s, peer="pgmpy-1.1.2", **exact))


if __name__ == "__main__":
    main()
