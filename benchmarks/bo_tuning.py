"""Hyperparameter tuning of scikit-learn models: kernelkit against scikit-optimize and Optuna.

The six tasks of :mod:`kernelkit.experiments.bo_tuning` (SVC on red wine, a random forest
on COIL 2000, histogram gradient boosting and kernel ridge on cpu_act, an MLP on MNIST,
and the forest under the known constraint ``n_estimators * max_depth <= 400``), each the
minimisation of minus a 5-fold CV score, deterministic given its point. Same budget
(40 evaluations), same initial random points where the method has the notion (10), same
seeds, one process, the methods alternating seed by seed:

* ``random``: uniform random search, ``space.rvs`` (the constraint by rejection: points
  are redrawn until feasible);
* ``kernelkit``: ``kernelkit.optimize.gp_minimize(f, space, n_calls=n,
  n_initial_points=n0, random_state=seed)``, the constraint as ``input_constraints``;
* ``skopt``: ``skopt.gp_minimize`` with the same arguments (its GP-hedge default), the
  constraint as ``space_constraint``;
* ``optuna-tpe``: ``optuna.samplers.TPESampler(seed=seed, n_startup_trials=n0)``;
* ``optuna-gp``: ``optuna.samplers.GPSampler(seed=seed, n_startup_trials=n0)`` (needs
  PyTorch).

Optuna has no known-input-constraint support. On the constrained task an infeasible
trial is not evaluated: it uses one evaluation of the budget, never counts as a best
value, and the sampler is told the penalty value 0 (the worst ROC AUC; feasible values
are below it) together with the constraint's margin ``n_estimators * max_depth - 400``
through the sampler's ``constraints_func`` (Optuna's outcome-constraint support), so that
both samplers learn to stay feasible.

Per task and seed the best value after each evaluation, the optimiser's time (wall time
minus objective time, measured around each objective call) and the total time are
recorded. The figure of merit is the normalised score: on each task 0 is random search's
median final best over the seeds and 1 the best value any method reached there in any
seed; the table shows its mean over the seeds per task and method, the mean over the
tasks, the median optimiser time before the last evaluation and per evaluation, and the
total time. A peer that is not installed is reported as not run.

The last line is ``RESULT bo_tuning ratio=<skopt's / kernelkit's optimiser time per
evaluation> ours_s=<kernelkit's total> peer_s=<skopt's total> score_<method>=<mean
normalised score> overhead_<method>=<optimiser seconds per evaluation> ...``.

Usage: ``python benchmarks/bo_tuning.py [--quick] [--seeds N] [--n-calls N]
[--n-initial-points N] [--tasks a,b] [--methods a,b] [--json PATH]`` (``--json``: every
run's best-so-far curve, values and times).
"""

from __future__ import annotations

import json
import logging
import sys
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import result_line

from kernelkit.experiments.bo_tuning import (
    METHODS,
    TASK_NAMES,
    Budget,
    Method,
    Trace,
    TuningTask,
    compare,
    make_task,
    score_table,
    summarise,
)
from kernelkit.optimize import Categorical, Integer


# ------------------------------------------------------------------ scikit-optimize
def run_skopt(
    task: TuningTask, objective: Budget, n_calls: int, n_initial_points: int, random_state: int
) -> None:
    from skopt import gp_minimize
    from skopt.space import Categorical as SkCategorical
    from skopt.space import Integer as SkInteger
    from skopt.space import Real as SkReal

    dims: list[Any] = []
    for d in task.space:
        if isinstance(d, Categorical):
            dims.append(SkCategorical(list(d.categories), name=d.name))
        elif isinstance(d, Integer):
            dims.append(SkInteger(d.low, d.high, prior=d.prior, name=d.name))
        else:
            dims.append(SkReal(d.low, d.high, prior=d.prior, name=d.name))
    gp_minimize(
        objective,
        dims,
        n_calls=n_calls,
        n_initial_points=n_initial_points,
        random_state=random_state,
        space_constraint=task.constraint,
    )


# ------------------------------------------------------------------ Optuna
def _optuna(sampler_name: str) -> Method:
    def run(
        task: TuningTask, objective: Budget, n_calls: int, n_initial_points: int, random_state: int
    ) -> None:
        import optuna

        optuna.logging.set_verbosity(logging.WARNING)
        margin = task.constraint_margin
        constraints = None
        if margin is not None:

            def constraints(trial: Any) -> list[float]:
                return [trial.user_attrs["margin"]]

        sampler_class = {"tpe": optuna.samplers.TPESampler, "gp": optuna.samplers.GPSampler}
        sampler = sampler_class[sampler_name](
            seed=random_state, n_startup_trials=n_initial_points, constraints_func=constraints
        )

        def trial_objective(trial: Any) -> float:
            x = [_suggest(trial, d) for d in task.space]
            if margin is not None:
                trial.set_user_attr("margin", margin(x))
            return objective(x)

        study = optuna.create_study(sampler=sampler)
        study.optimize(trial_objective, n_trials=n_calls)

    return run


def _suggest(trial: Any, d: Any) -> Any:
    if isinstance(d, Categorical):
        return trial.suggest_categorical(d.name, list(d.categories))
    log = d.prior == "log-uniform"
    if isinstance(d, Integer):
        return trial.suggest_int(d.name, d.low, d.high, log=log)
    return trial.suggest_float(d.name, d.low, d.high, log=log)


PEERS: dict[str, Method] = {
    "skopt": run_skopt,
    "optuna-tpe": _optuna("tpe"),
    "optuna-gp": _optuna("gp"),
}
ALL_METHODS: dict[str, Method] = {**METHODS, **PEERS}


def missing(method: str) -> str | None:
    """Why ``method`` cannot run here (a peer not installed), or ``None``."""
    needs = {"skopt": ["skopt"], "optuna-tpe": ["optuna"], "optuna-gp": ["optuna", "torch"]}
    for module in needs.get(method, []):
        try:
            __import__(module)
        except ImportError as exc:
            return f"{module} is not installed ({exc})"
    return None


# ------------------------------------------------------------------ the report
def _print_run(task: str, method: str, seed: int, tr: Trace) -> None:
    extra = f", {tr.n_infeasible} infeasible" if tr.n_infeasible else ""
    print(
        f"  {task:30s} seed {seed:3d} {method:11s} best {tr.best[-1]: .4f}  "
        f"total {tr.total_seconds:7.2f} s, optimiser {tr.overhead_total:6.2f} s{extra}",
        flush=True,
    )


def _print_table(table: dict[str, Any]) -> None:
    widths = [
        max(len(str(r[i])) for r in [table["columns"], *table["rows"]])
        for i in range(len(table["columns"]))
    ]
    for row in [table["columns"], *table["rows"]]:
        print("  ".join(f"{c!s:>{w}s}" for c, w in zip(row, widths, strict=True)))


def _write_json(path: Path, traces: dict[str, dict[str, list[Trace]]]) -> None:
    runs = {
        task: {
            m: {
                "best": [t.best.tolist() for t in ts],
                "values": [t.values.tolist() for t in ts],
                "objective_seconds": [t.objective_seconds.tolist() for t in ts],
                "overhead_seconds": [t.overhead_seconds.tolist() for t in ts],
                "total_seconds": [t.total_seconds for t in ts],
            }
            for m, ts in by_method.items()
        }
        for task, by_method in traces.items()
    }
    path.write_text(json.dumps(runs).replace("Infinity", '"inf"').replace("NaN", '"nan"'))


def main(argv: list[str] | None = None) -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="2 seeds, 12 calls, 200-row data")
    p.add_argument("--seeds", type=int, default=None, help="seeds 0..N-1 (default 10)")
    p.add_argument("--n-calls", type=int, default=None, help="evaluations per run (default 40)")
    p.add_argument(
        "--n-initial-points",
        type=int,
        default=None,
        help="initial random points (default min(10, n_calls // 2))",
    )
    p.add_argument("--tasks", default=",".join(TASK_NAMES), help="comma-separated task names")
    p.add_argument(
        "--methods",
        default=",".join(ALL_METHODS),
        help="comma-separated: " + ", ".join(ALL_METHODS),
    )
    p.add_argument("--json", default=None, help="write every run's curves and times here")
    args = p.parse_args(argv)
    n_seeds = args.seeds or (2 if args.quick else 10)
    n_calls = args.n_calls or (12 if args.quick else 40)
    n0 = args.n_initial_points if args.n_initial_points is not None else min(10, n_calls // 2)
    task_names = [t for t in args.tasks.split(",") if t]
    wanted = [m for m in args.methods.split(",") if m]
    for m in wanted:
        if m not in ALL_METHODS:
            p.error(f"unknown method {m!r}; choose from {', '.join(ALL_METHODS)}")
    if "random" not in wanted:
        p.error("the normalised score needs 'random' among --methods")
    not_run = {m: why for m in wanted if (why := missing(m)) is not None}
    methods: dict[str, Method] = {m: ALL_METHODS[m] for m in wanted if m not in not_run}

    warnings.filterwarnings("ignore")  # repeated points (skopt), experimental samplers (optuna)
    t0 = time.perf_counter()
    tasks = [make_task(name, quick=args.quick) for name in task_names]
    print(
        f"bo_tuning: {len(tasks)} tasks, {n_seeds} seeds, {n_calls} evaluations "
        f"({n0} initial), methods {', '.join(methods)}"
    )
    for task in tasks:
        print(f"  {task.name}: {task.description}, {task.n_samples} rows, {task.score}")
    for m, why in not_run.items():
        print(f"  {m}: not run: {why}")
    traces = compare(tasks, methods, list(range(n_seeds)), n_calls, n0, on_trace=_print_run)
    summary = summarise(traces, reference="random")
    if args.json:
        _write_json(Path(args.json), traces)
    seconds = time.perf_counter() - t0
    print(f"\nmean normalised score (0 = random's median, 1 = best found), {seconds:.0f} s in all:")
    _print_table(score_table(summary))
    for m, why in not_run.items():
        print(f"{m}: not run: {why}")

    ours = summary.overhead_mean.get("kernelkit", float("nan"))
    peer = summary.overhead_mean.get("skopt", float("nan"))
    quality: dict[str, Any] = {}
    for m in methods:
        key = m.replace("-", "_")
        quality[f"score_{key}"] = summary.mean_score[m]
        quality[f"overhead_{key}"] = summary.overhead_mean[m]
    quality.update({f"{m.replace('-', '_')}": "not_run" for m in not_run})
    print(
        result_line(
            "bo_tuning",
            peer / ours,
            summary.seconds.get("kernelkit", float("nan")),
            summary.seconds.get("skopt", float("nan")),
            **quality,
            tasks=len(tasks),
            seeds=n_seeds,
            n_calls=n_calls,
        )
    )


if __name__ == "__main__":
    main()
