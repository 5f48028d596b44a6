"""Bayesian optimisation: kernelkit vs scikit-optimize and bayesian-optimization.

Same objective, same budget, same seeds, one process, the three libraries alternating seed
by seed:

* **Branin**, 30 evaluations of which 5 initial, 10 seeds;
* **Hartmann-6**, 60 evaluations of which 10 initial, 10 seeds.

Contenders (defaults unless stated):

* kernelkit: ``BayesianOptimizer(f, f.bounds, n_initial=n0, random_state=seed).run(n_calls=n)``
  (EI searched as log-EI, ARD Matérn 5/2, hyperparameters refitted each step, a greedy
  posterior-mean step every fifth model-based step);
* scikit-optimize: ``gp_minimize(f, bounds, n_calls=n, n_initial_points=n0,
  random_state=seed)`` (its GP-hedge portfolio of EI, PI and LCB);
* bayesian-optimization (v3 API, maximising ``-f``):
  ``BayesianOptimization(f=-f, pbounds=..., random_state=seed).maximize(init_points=n0,
  n_iter=n - n0)``.

The quality measure is the simple regret ``min_i f(x_i) - f*`` after the budget (median
over seeds); the time is the total over the seeds. The last line is
``RESULT bayesopt ratio=<skopt_s / ours_s on Branin> ...`` with the Branin figures and,
as ``h6_*`` keys, the Hartmann-6 ones (also on the ``RESULT bayesopt_hartmann6`` line
before it).

Usage: ``python benchmarks/bayesopt.py [--quick] [--seeds N]``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, result_line

from kernelkit.optimize import BayesianOptimizer, get_function


def run_kernelkit(f, n: int, n0: int, seed: int) -> float:
    res = BayesianOptimizer(f, f.bounds, n_initial=n0, random_state=seed).run(n_calls=n)
    return float(res.y_best)


def run_skopt(f, n: int, n0: int, seed: int) -> float:
    from skopt import gp_minimize

    res = gp_minimize(
        lambda x: float(f(np.asarray(x, dtype=float))),
        [tuple(map(float, b)) for b in f.bounds],
        n_calls=n,
        n_initial_points=n0,
        random_state=seed,
    )
    return float(res.fun)


def run_bayes_opt(f, n: int, n0: int, seed: int) -> float:
    from bayes_opt import BayesianOptimization

    names = [f"x{i}" for i in range(f.dim)]

    def neg(**kw: float) -> float:
        return -float(f(np.array([kw[k] for k in names])))

    opt = BayesianOptimization(
        f=neg,
        pbounds={k: tuple(map(float, b)) for k, b in zip(names, f.bounds, strict=True)},
        random_state=seed,
        verbose=0,
    )
    opt.maximize(init_points=n0, n_iter=n - n0)
    return -float(opt.max["target"])


CONTENDERS = {"kernelkit": run_kernelkit, "skopt": run_skopt, "bayes_opt": run_bayes_opt}


def compare(name: str, n: int, n0: int, seeds: list[int]) -> dict[str, dict[str, float]]:
    f = get_function(name)
    regret: dict[str, list[float]] = {k: [] for k in CONTENDERS}
    seconds: dict[str, float] = dict.fromkeys(CONTENDERS, 0.0)
    print(f"\n{name}: {n} evaluations ({n0} initial), seeds {seeds}")
    print(f"{'seed':>4s}  " + "  ".join(f"{k:>22s}" for k in CONTENDERS))
    for seed in seeds:
        cells = []
        for label, fn in CONTENDERS.items():
            t0 = time.perf_counter()
            y = fn(f, n, n0, seed)
            dt = time.perf_counter() - t0
            seconds[label] += dt
            regret[label].append(y - f.minimum)
            cells.append(f"{y - f.minimum:10.2e} ({dt:6.2f} s)")
        print(f"{seed:4d}  " + "  ".join(f"{c:>22s}" for c in cells), flush=True)
    out = {}
    for label in CONTENDERS:
        r = np.asarray(regret[label])
        out[label] = {
            "median": float(np.median(r)),
            "q1": float(np.percentile(r, 25)),
            "q3": float(np.percentile(r, 75)),
            "seconds": seconds[label],
        }
        print(
            f"{label:>10s}: median regret {out[label]['median']:.3g} "
            f"(IQR {out[label]['q1']:.2g}..{out[label]['q3']:.2g}), "
            f"{seconds[label]:.1f} s for {len(seeds)} runs"
        )
    return out


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--seeds", type=int, default=None, help="number of seeds (default 10)")
    args = p.parse_args()
    n_seeds = args.seeds or (3 if args.quick else 10)
    seeds = list(range(n_seeds))
    warnings.filterwarnings("ignore")  # the peers warn about repeated points and fit limits
    branin = compare("branin", 30, 5, seeds)
    h6 = compare("hartmann6", 60, 10, seeds if not args.quick else seeds[:2])
    h_ours, h_sk, h_bo = h6["kernelkit"], h6["skopt"], h6["bayes_opt"]
    print(_result("bayesopt_hartmann6", h6, len(seeds) if not args.quick else 2))
    print(
        _result(
            "bayesopt",
            branin,
            len(seeds),
            h6_regret_ours=h_ours["median"],
            h6_regret_skopt=h_sk["median"],
            h6_regret_bayesopt=h_bo["median"],
            h6_ours_s=h_ours["seconds"],
            h6_skopt_s=h_sk["seconds"],
        )
    )


def _result(name: str, res: dict[str, dict[str, float]], n_seeds: int, **extra: float) -> str:
    """The RESULT line of one problem: time ratio against scikit-optimize, all regrets."""
    ours, sk, bo = res["kernelkit"], res["skopt"], res["bayes_opt"]
    return result_line(
        name,
        sk["seconds"] / ours["seconds"],
        ours["seconds"],
        sk["seconds"],
        regret_ours=ours["median"],
        regret_skopt=sk["median"],
        regret_bayesopt=bo["median"],
        bayesopt_s=bo["seconds"],
        seeds=n_seeds,
        **extra,
    )


if __name__ == "__main__":
    main()
