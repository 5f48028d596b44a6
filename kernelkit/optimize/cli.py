"""The ``kernelkit bayesopt`` subcommand: Bayesian optimisation of a test function.

``kernelkit bayesopt --function branin --n-calls 30 --acquisition ei [--initial 5]
[--seed 0] [--out DIR] [--xi X] [--no-refit] [--batch-size Q [--batch-strategy S]
[--lie L]] [--scheduler ADDRESS | --n-workers N]`` runs :class:`BayesianOptimizer` with
a progress bar for ``--n-calls`` evaluations in all, as ``BayesianOptimizer.run(n_calls)``
counts them (the initial design first, then the model-guided ones), prints how many of
each ran, the best point, its value and the regret, and writes the
convergence figure (any dimension) and, for 1-D functions, the seed's per-step figure
for a selection of steps into ``--out``.

With ``--batch-size Q`` the evaluations run in rounds of ``Q`` points chosen together
(``run(n_calls, batch_size=Q)``), on a Dask cluster with ``--scheduler`` (a running one)
or ``--n-workers`` (a local one started for the run), in this process otherwise.

:func:`register` adds the subcommand; :mod:`kernelkit.cli` finds it (as it finds every
``kernelkit/<area>/cli.py``) when it builds the ``kernelkit`` parser.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from kernelkit._commands import UsageError

__all__ = ["ACQUISITIONS", "BATCH_STRATEGIES", "DEFAULT_OUT", "LIES", "register"]

DEFAULT_OUT = "kernelkit-bayesopt"
#: At most this many per-step figures for a 1-D run (evenly spaced, the last included).
_MAX_STEP_FIGURES = 12
#: Spelled out so that building the parser does not import SciPy and scikit-learn for every
#: ``kernelkit`` command (a test checks it against ``acquisition_names()``).
ACQUISITIONS = ("ei", "pi", "logei", "logpi", "ucb")
#: ``batch_strategy`` and ``lie`` of :class:`BayesianOptimizer`, spelled out for the same
#: reason (a test checks them against the optimiser's).
BATCH_STRATEGIES = ("kriging_believer", "constant_liar")
LIES = ("min", "mean", "max")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``bayesopt`` subcommand (and its handler) to ``subparsers``."""
    from kernelkit.distributed.options import add_cluster_arguments
    from kernelkit.optimize.functions import function_names  # NumPy only

    p = subparsers.add_parser(
        "bayesopt",
        help="Bayesian optimisation of a test function (GP surrogate, EI / PI / UCB)",
        description="Minimise a test function with known minimum by Bayesian optimisation "
        "and write the convergence plot (and, in 1-D, the per-step figures).",
    )
    p.add_argument(
        "--function", default="branin", help=f"test function: {', '.join(function_names())}"
    )
    p.add_argument(
        "--n-calls",
        type=int,
        default=30,
        help="objective evaluations in total, the initial design included (default 30; "
        "more than the initial design size for any model-guided step)",
    )
    p.add_argument("--acquisition", default="ei", help=f"{', '.join(ACQUISITIONS)} (default ei)")
    p.add_argument(
        "--initial", type=int, default=None, help="initial design size (default max(5, d + 1))"
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument(
        "--xi",
        type=float,
        default=None,
        help="exploration margin of EI / PI, in standard deviations of the observed values "
        "(default 0)",
    )
    p.add_argument(
        "--no-refit",
        action="store_true",
        help="fit the GP hyperparameters on the initial design only",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=1,
        metavar="Q",
        help="evaluations per round, chosen together and run concurrently (default 1: sequential)",
    )
    p.add_argument(
        "--batch-strategy",
        choices=BATCH_STRATEGIES,
        default="kriging_believer",
        help="how a batch is chosen: fantasy values from the posterior mean (kriging "
        "believer, the default) or a constant lie (constant liar)",
    )
    p.add_argument(
        "--lie",
        choices=LIES,
        default="min",
        help="the constant liar's value: min, mean or max of the observed values (default min)",
    )
    add_cluster_arguments(p)
    p.set_defaults(handler=_cmd_bayesopt)


def _evaluations(source: list[str]) -> str:
    """``"30 evaluations (5 initial design, 25 model-guided)"`` from a run's sources."""
    n_design = source.count("initial")
    n_model = source.count("acquisition") + source.count("greedy")
    n_random = source.count("random")  # drawn at random while nothing had succeeded
    parts = [f"{n_design} initial design", f"{n_model} model-guided"]
    if n_random:
        parts.append(f"{n_random} random")
    return f"{len(source)} evaluations ({', '.join(parts)})"


def _check_args(args: argparse.Namespace) -> None:
    """Refuse flags out of range and unknown test functions or acquisitions."""
    from kernelkit.optimize import get_acquisition, get_function

    if args.n_calls < 1:
        raise UsageError(
            f"--n-calls must be >= 1 (evaluations in total, the initial design included), "
            f"got {args.n_calls}"
        )
    if args.initial is not None and args.initial < 1:
        raise UsageError(f"--initial must be >= 1, got {args.initial}")
    if args.batch_size < 1:
        raise UsageError(
            f"--batch-size must be >= 1 (evaluations per round), got {args.batch_size}"
        )
    try:
        get_function(args.function)
        get_acquisition(args.acquisition)
    except ValueError as exc:  # the message names the value and the accepted ones
        raise UsageError(str(exc)) from None


def _cmd_bayesopt(args: argparse.Namespace) -> int:
    from kernelkit.distributed.options import cluster_from_args
    from kernelkit.optimize import BayesianOptimizer, get_function
    from kernelkit.plotting import save_figure

    _check_args(args)
    f = get_function(args.function)
    opt = BayesianOptimizer(
        f,
        f.bounds,
        acquisition=args.acquisition,
        xi=args.xi,
        n_initial=args.initial,
        refit_hyperparameters=not args.no_refit,
        batch_strategy=args.batch_strategy,
        lie=args.lie,
        random_state=args.seed,
    )
    with cluster_from_args(args) as client:
        res = opt.run(args.n_calls, batch_size=args.batch_size, client=client, progress_bar=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    point = ", ".join(f"{v:.6g}" for v in res.x_best)
    rounds = ""
    if args.batch_size > 1:
        strategy = args.batch_strategy.replace("_", " ")
        if args.batch_strategy == "constant_liar":
            strategy += f" ({args.lie})"
        rounds = f" in {res.n_rounds} rounds of up to {args.batch_size} ({strategy})"
    print(
        f"{f.name}: {_evaluations(res.source)}{rounds}, acquisition {args.acquisition}, "
        f"seed {args.seed}"
    )
    if res.n_calls <= opt.n_initial:
        print(
            f"note: the initial design has {opt.n_initial} points, so no evaluation was "
            f"guided by the model; pass --n-calls > {opt.n_initial} (or a smaller --initial)"
        )
    print(f"best x = [{point}]")
    print(
        f"best f = {res.y_best:.10g}   (minimum {f.minimum:.10g}, "
        f"regret {res.y_best - f.minimum:.3e})"
    )
    if res.n_failed:
        print(f"{res.n_failed} evaluation(s) failed")
    files = [save_figure(res.plot_convergence(minimum=f.minimum), out / "convergence.png")]
    steps = opt.acquisition_steps
    if f.dim == 1 and steps:
        idx = np.unique(np.linspace(0, len(steps) - 1, _MAX_STEP_FIGURES).round().astype(int))
        for i in idx:
            files.append(save_figure(opt.plot(steps[i]), out / f"step_{steps[i]:03d}.png"))
    print(f"figures: {', '.join(str(out / name) for name in files)}")
    return 0
