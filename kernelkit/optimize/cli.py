"""The ``kernelkit bayesopt`` subcommand: Bayesian optimisation of a test function.

``kernelkit bayesopt --function branin --n-calls 30 --acquisition ei [--initial 5]
[--seed 0] [--out DIR] [--xi X] [--no-refit]`` runs :class:`BayesianOptimizer` with a
progress bar for ``--n-calls`` evaluations in all, as ``BayesianOptimizer.run(n_calls)``
counts them (the initial design first, then the model-guided ones), prints how many of
each ran, the best point, its value and the regret, and writes the
convergence figure (any dimension) and, for 1-D functions, the seed's per-step figure
for a selection of steps into ``--out``.

:func:`register` adds the subcommand; :mod:`kernelkit.cli` finds it (as it finds every
``kernelkit/<area>/cli.py``) when it builds the ``kernelkit`` parser.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

__all__ = ["ACQUISITIONS", "DEFAULT_OUT", "register"]

DEFAULT_OUT = "kernelkit-bayesopt"
#: At most this many per-step figures for a 1-D run (evenly spaced, the last included).
_MAX_STEP_FIGURES = 12
#: Spelled out so that building the parser does not import SciPy and scikit-learn for every
#: ``kernelkit`` command (a test checks it against ``acquisition_names()``).
ACQUISITIONS = ("ei", "pi", "logei", "logpi", "ucb")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``bayesopt`` subcommand (and its handler) to ``subparsers``."""
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
    from kernelkit.cli import UsageError
    from kernelkit.optimize import get_acquisition, get_function

    if args.n_calls < 1:
        raise UsageError(
            f"--n-calls must be >= 1 (evaluations in total, the initial design included), "
            f"got {args.n_calls}"
        )
    if args.initial is not None and args.initial < 1:
        raise UsageError(f"--initial must be >= 1, got {args.initial}")
    try:
        get_function(args.function)
        get_acquisition(args.acquisition)
    except ValueError as exc:  # the message names the value and the accepted ones
        raise UsageError(str(exc)) from None


def _cmd_bayesopt(args: argparse.Namespace) -> int:
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
        random_state=args.seed,
    )
    res = opt.run(args.n_calls, progress_bar=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    point = ", ".join(f"{v:.6g}" for v in res.x_best)
    print(f"{f.name}: {_evaluations(res.source)}, acquisition {args.acquisition}, seed {args.seed}")
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
