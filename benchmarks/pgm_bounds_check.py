"""Check the log Z bounds of :mod:`kernelkit.pgm.bounds` against exact log Z on grids.

Not a test: a report. Ising models on ``L x L`` grids (``L`` in 10, 15) with ``spins="pm1"``,
fields uniform on ``[-1, 1]`` and couplings uniform on ``[-2, 2]`` (strong, mixed signs;
``default_rng(seed)``), ``log Z`` exact by :func:`kernelkit.pgm.exact.exact_log_partition`
(transfer matrices along the rows). For each ``i_bound`` in 4, 8, 12 the bounds of
:func:`~kernelkit.pgm.bounds.log_partition_bounds` (``n_samples=1000``, default
``n_iter=10``) are printed as gaps to the exact value in log10 units (orders of magnitude
of ``Z``), with the lower bound's method and the time, and every bound is checked:
``lower <= log Z <= upper`` (the sampling lower bound with its stated confidence). A last
row per model (``i`` marked ``*``) is the anytime mode, ``time_limit=--time-limit``
seconds, with the i-bound it reached. The i-bound printed is the one used (at most the
induced width, where the bounds are exact). Also :func:`~kernelkit.pgm.bounds.map_bounds`
against :func:`~kernelkit.pgm.exact.exact_map`: the gaps of its upper and lower bounds in
score units (natural log).

Run: ``python benchmarks/pgm_bounds_check.py [--seeds 2] [--quick]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from uai_models import ising_grid

from kernelkit.pgm.bounds import log_partition_bounds, map_bounds
from kernelkit.pgm.exact import elimination_order, exact_log_partition, exact_map
from kernelkit.pgm.model import DiscreteModel

LN10 = math.log(10.0)


def grid_model(side: int, seed: int) -> DiscreteModel:
    return ising_grid(side, 2.0, np.random.default_rng(seed))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=2, help="models per grid size")
    p.add_argument("--quick", action="store_true", help="10 x 10 only, one seed")
    p.add_argument(
        "--time-limit", type=float, default=2.0, help="seconds of the anytime row (i = *)"
    )
    args = p.parse_args()
    sides = (10,) if args.quick else (10, 15)
    seeds = 1 if args.quick else args.seeds
    violations = 0
    print(
        f"{'grid':>7} {'seed':>4} {'i':>3} {'upper-logZ':>11} {'logZ-lower':>11} "
        f"{'gap':>8} {'lower from':>20} {'conf':>5} {'time s':>7} | "
        f"{'MAP ub-opt':>10} {'opt-lb':>8} {'MAP s':>6}"
    )
    print(
        f"{'':>7} {'':>4} {'':>3} {'(log10)':>11} {'(log10)':>11} {'(log10)':>8} "
        f"{'':>20} {'':>5} {'':>7} | {'(score)':>10} {'(score)':>8}"
    )
    for side in sides:
        for seed in range(seeds):
            m = grid_model(side, seed)
            t0 = time.perf_counter()
            log_z = exact_log_partition(m)
            t_exact = time.perf_counter() - t0
            best = exact_map(m).score
            width = elimination_order(m).induced_width
            print(
                f"# {side}x{side} seed {seed}: log Z = {log_z:.6f} (exact, {t_exact:.3f} s), "
                f"MAP = {best:.6f}, induced width {width}"
            )
            for i_bound in (4, 8, 12, None):
                if i_bound is None:  # anytime: raise the i-bound while time remains
                    kw: dict = {"time_limit": args.time_limit}
                else:
                    kw = {"i_bound": i_bound}
                b = log_partition_bounds(m, n_samples=1000, random_state=seed, **kw)
                r = map_bounds(m, random_state=seed, **kw)
                ok = b.lower <= log_z + 1e-9 and log_z <= b.upper + 1e-9
                ok = ok and r.lower <= best + 1e-9 and best <= r.upper + 1e-9
                violations += not ok
                label = f"{b.i_bound:>3}" if i_bound is not None else f"{b.i_bound:>2}*"
                print(
                    f"{side:>4}^2 {seed:>4} {label} {(b.upper - log_z) / LN10:>11.4f} "
                    f"{(log_z - b.lower) / LN10:>11.4f} {b.log10_gap:>8.4f} "
                    f"{b.lower_method:>20} {b.confidence:>5.2f} {b.time:>7.2f} | "
                    f"{r.upper - best:>10.4f} {best - r.lower:>8.4f} {r.time:>6.2f}"
                    + ("" if ok else "  VIOLATED")
                )
    print(f"RESULT pgm_bounds_check violations={violations}")


if __name__ == "__main__":
    main()
