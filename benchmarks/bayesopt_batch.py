"""Batch Bayesian optimisation: wall-clock rounds to a regret, q = 4 against sequential BO.

The target of issue 17: batch BO with ``q = 4`` on Branin reaches the sequential run's
median regret in fewer wall-clock rounds (10 seeds). Same objective, same seeds, same
initial design (4 Sobol points), one process:

* **sequential**: ``BayesianOptimizer(f, n_initial=4, random_state=seed).run(44)``: the
  design and 40 evaluations chosen by the model, one evaluation per round (44 rounds);
* **batch**: ``run(88, batch_size=4)``, the batch chosen by the kriging believer
  (``batch_strategy="kriging_believer"``, the default) or by the constant liar with the
  lie ``"min"`` or ``"max"`` of the observed values (Ginsbourger et al. 2010): 22
  rounds of four evaluations, the design being the first. Its first 11 rounds are the
  whole of a run with the sequential budget, ``run(44, batch_size=4)`` (every round is
  full, so the trajectories agree); the next 11 show how much longer it takes, in
  rounds, where the equal budget falls short.

The target regret is the median over seeds of the sequential runs' final regret
``min_i f(x_i) - f*``. For each contender, the table gives the first round after which
the median regret over seeds is at most ``1e-2``, ``1e-4``, ``1e-6`` and the target
(``-``: not within its rounds), how many runs reached the target within the sequential
budget of evaluations and within all of their rounds, and the median regret after 11
rounds (the equal budget of evaluations for the batch runs) and at the end. A round is
a batch of evaluations made together (by a Dask client in ``run(..., client=...)``):
with expensive evaluations, wall-clock time is rounds times the time of one evaluation.

The last line is ``RESULT bayesopt_batch ratio=<sequential rounds / batch rounds to the
target> ours_s=<batch seconds> peer_s=<sequential seconds> ...`` for the kriging
believer; the seconds are the optimiser's own time over all seeds (the objective costs
nothing here; the batch runs make twice the evaluations).

Usage: ``python benchmarks/bayesopt_batch.py [--quick] [--seeds N] [--batch-size Q]
[--n-calls N] [--batch-n-calls N]``.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, result_line

from kernelkit.optimize import BayesianOptimizer, get_function

#: label -> (whether it runs in batches, constructor keywords)
CONTENDERS = {
    "sequential": (False, {}),
    "kriging believer": (True, {"batch_strategy": "kriging_believer"}),
    "constant liar min": (True, {"batch_strategy": "constant_liar", "lie": "min"}),
    "constant liar max": (True, {"batch_strategy": "constant_liar", "lie": "max"}),
}
LEVELS = (1e-2, 1e-4, 1e-6)


def regret_by_round(res, minimum: float) -> np.ndarray:
    """Simple regret after each round: at the last evaluation of the round."""
    regret = res.regret(minimum)
    last = np.flatnonzero(np.r_[res.rounds[1:] != res.rounds[:-1], True])
    return regret[last]


def rounds_to(curve: np.ndarray, target: float) -> float:
    """The number of rounds after which the regret is at most ``target`` (inf: never)."""
    hit = np.flatnonzero(curve <= target)
    return float(hit[0] + 1) if hit.size else math.inf


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (default 10)")
    p.add_argument("--batch-size", type=int, default=4, help="q of the batch runs (default 4)")
    p.add_argument(
        "--n-calls", type=int, default=None, help="evaluations of a sequential run (default 44)"
    )
    p.add_argument(
        "--batch-n-calls",
        type=int,
        default=None,
        help="evaluations of a batch run (default twice --n-calls)",
    )
    args = p.parse_args()
    n_seeds = args.seeds or (3 if args.quick else 10)
    n_calls = args.n_calls or (16 if args.quick else 44)
    n_batch = args.batch_n_calls or 2 * n_calls
    q, n0 = args.batch_size, 4
    equal = math.ceil(n_calls / q)  # rounds of a batch run with the sequential budget
    f = get_function("branin")
    warnings.filterwarnings("ignore")
    print(
        f"branin: {n_calls} evaluations sequentially, {n_batch} in batches of {q} "
        f"({n0} initial design), seeds 0..{n_seeds - 1}"
    )
    curves: dict[str, list[np.ndarray]] = {k: [] for k in CONTENDERS}
    seconds: dict[str, float] = dict.fromkeys(CONTENDERS, 0.0)
    for seed in range(n_seeds):
        for label, (batch, kw) in CONTENDERS.items():
            t0 = time.perf_counter()
            opt = BayesianOptimizer(f, n_initial=n0, random_state=seed, **kw)
            res = opt.run(n_batch, batch_size=q) if batch else opt.run(n_calls)
            seconds[label] += time.perf_counter() - t0
            curves[label].append(regret_by_round(res, f.minimum))
        finals = "  ".join(
            f"{k} {c[-1][equal - 1 if CONTENDERS[k][0] else -1]:.2e}" for k, c in curves.items()
        )
        print(f"seed {seed}, regret after {n_calls} evaluations:  {finals}", flush=True)

    target = float(np.median([c[-1] for c in curves["sequential"]]))
    print(f"\ntarget: the sequential runs' median final regret, {target:.3g}")
    levels = [*(f"to {v:.0e}" for v in LEVELS), "to target"]
    head = (
        f"{'':>18s} {'rounds':>6s} "
        + " ".join(f"{v:>9s}" for v in levels)
        + f" {'reached':>9s} {f'after {equal} rounds':>15s} {'at the end':>10s} {'time':>7s}"
    )
    print(head)
    print("-" * len(head))
    summary = {}
    for label, cs in curves.items():
        median_curve = np.median(np.vstack(cs), axis=0)  # over seeds, after each round
        to = [rounds_to(median_curve, v) for v in (*LEVELS, target)]
        budget = equal if CONTENDERS[label][0] else n_calls  # rounds of n_calls evaluations
        within = sum(rounds_to(c[:budget], target) < math.inf for c in cs)
        total = sum(rounds_to(c, target) < math.inf for c in cs)
        at_equal = float(median_curve[min(equal, median_curve.size) - 1])
        summary[label] = {"rounds": to[-1], "final": at_equal, "seconds": seconds[label]}
        reached = f"{within}/{total}/{len(cs)}"
        print(
            f"{label:>18s} {median_curve.size:6d} "
            + " ".join(f"{_rounds(r):>9s}" for r in to)
            + f" {reached:>9s} {at_equal:15.3g} {median_curve[-1]:10.3g} "
            f"{seconds[label]:6.1f}s"
        )
    print(
        f"rounds: a run's rounds; to ...: the first round after which the median regret over "
        f"seeds is at most that ('-': not within the run); reached: runs at the "
        f"target within {n_calls} evaluations / within all of their rounds / runs; regrets: "
        f"medians over seeds"
    )
    seq, kb = summary["sequential"], summary["kriging believer"]
    print(
        result_line(
            "bayesopt_batch",
            seq["rounds"] / kb["rounds"],
            kb["seconds"],
            seq["seconds"],
            rounds_sequential=seq["rounds"],
            rounds_kb=kb["rounds"],
            rounds_cl_min=summary["constant liar min"]["rounds"],
            rounds_cl_max=summary["constant liar max"]["rounds"],
            target=target,
            regret_kb_equal_budget=kb["final"],
            regret_cl_min_equal_budget=summary["constant liar min"]["final"],
            regret_sequential_at_equal_rounds=float(
                np.median([c[equal - 1] for c in curves["sequential"]])
            ),
            batch_size=q,
            n_calls=n_calls,
            batch_n_calls=n_batch,
            seeds=n_seeds,
        )
    )


def _rounds(r: float) -> str:
    return "-" if math.isinf(r) else f"{r:g}"


if __name__ == "__main__":
    main()
