"""Loopy BP on UAI-style Ising grids: how often each schedule converges, and how fast.

The grids of the UAI competitions' "Grids" family: binary ``L x L`` Ising models in
``+-1`` spins, fields ``~ U(-1, 1)`` and couplings ``~ U(-C, C)`` (log-space magnitudes),
``--n-models`` seeded models per ``C`` in ``{0.5, 1, 2}``. Each model is solved by
:func:`kernelkit.pgm.loopy_bp` (sum-product, ``max_iter=1000`` unless ``--max-iter``,
``tol=1e-8``) with

* ``flooding``: ``schedule="parallel"``, no damping (the default before ``"auto"``);
* ``sequential``: ``schedule="sequential"``, no damping;
* ``sequential d=0.5``: ``schedule="sequential", damping=0.5``;
* ``auto``: ``schedule="auto"`` (the default now: flooding, then the damped sequential
  schedule, then damped residual BP).

Printed per ``C`` and method: the fraction of models on which BP converged, the median
wall time and the median number of iterations; for ``auto``, the schedules it ended on,
and the largest difference of its marginals from flooding's where both converged (the
same fixed point). One run, seeded; the timings are of this machine.

Usage: ``python benchmarks/bp_grids.py [--quick] [--n-models 20] [--size 10]
[--max-iter 1000]``.
"""

from __future__ import annotations

import collections
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from uai_models import ising_grid

from kernelkit.pgm import loopy_bp

METHODS: dict[str, dict[str, Any]] = {
    "flooding": {"schedule": "parallel"},
    "sequential": {"schedule": "sequential"},
    "sequential d=0.5": {"schedule": "sequential", "damping": 0.5},
    "auto": {"schedule": "auto"},
}


def grid(L: int, C: float, seed: int) -> Any:
    """A UAI-style Ising grid: fields U(-1, 1), couplings U(-C, C), +-1 spins."""
    return ising_grid(L, C, np.random.default_rng(seed))


def main() -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="4 models of 6 x 6, for a smoke run")
    p.add_argument("--n-models", type=int, default=20, help="models per coupling scale")
    p.add_argument("--size", type=int, default=10, help="the grid's side L")
    p.add_argument("--max-iter", type=int, default=1000, help="loopy_bp's max_iter")
    args = p.parse_args()
    n_models, L = (4, 6) if args.quick else (args.n_models, args.size)
    max_iter = args.max_iter
    print(f"{L} x {L} Ising grids, {n_models} per C, max_iter={max_iter}, tol=1e-8")
    header = f"{'C':>4} {'method':<17} {'converged':>9} {'median s':>9} {'median iter':>11}"
    print(header)
    print("-" * len(header))
    for C in (0.5, 1.0, 2.0):
        models = [grid(L, C, seed) for seed in range(n_models)]
        results: dict[str, list[Any]] = {}
        for name, kwargs in METHODS.items():
            runs, seconds = [], []
            for m in models:
                t0 = time.perf_counter()
                runs.append(loopy_bp(m, max_iter=max_iter, tol=1e-8, **kwargs))
                seconds.append(time.perf_counter() - t0)
            results[name] = runs
            rate = np.mean([r.converged for r in runs])
            its = statistics.median(r.n_iter for r in runs)
            print(f"{C:>4g} {name:<17} {rate:>9.2f} {statistics.median(seconds):>9.3f} {its:>11g}")
        ended = collections.Counter(
            r.schedule_used for r in results["auto"] if r.converged and r.schedule_used
        )
        gaps = [
            max(np.abs(a - b).max() for a, b in zip(x.marginals, y.marginals, strict=True))
            for x, y in zip(results["auto"], results["flooding"], strict=True)
            if x.converged and y.converged
        ]
        same = f"{max(gaps):.1e}" if gaps else "n/a"
        print(
            f"     auto converged on: {dict(ended)}; largest marginal difference from "
            f"flooding where both converged: {same}"
        )


if __name__ == "__main__":
    main()
