"""``kernelkit learning-curve``: GP learning curves on random graphs (Urry & Sollich 2013).

:func:`register` adds the subcommand; :mod:`kernelkit.cli` finds it (as it finds every
``kernelkit/<area>/cli.py``) when it builds the ``kernelkit`` parser. NumPy, SciPy,
networkx and matplotlib are imported by the handler only.

Methods (``--method``, any subset, comma-separated):

* ``simulation``: exact learning curves by sampling graphs and data sets
  (:func:`kernelkit.learning_curves.simulate`, eqs. 10-12), mean ± standard error;
* ``cavity``: population dynamics on the ensemble's degree law
  (:func:`kernelkit.learning_curves.cavity`, Sec. 4);
* ``eigen``: the eigenvalue approximation (eq. 18) on the spectrum of one sampled graph's
  kernel (:func:`kernelkit.learning_curves.eigenvalue_approximation`; it is defined for any
  kernel matrix, so for both normalisations); for random regular graphs with the global
  normalisation also on the large-``V`` regular-tree spectrum (eqs. 20-21,
  :func:`kernelkit.learning_curves.regular_tree_approximation`, ``d >= 3``, ``a >= 2``),
  which assumes ``kappa`` = the mean prior variance (global).

``--scheduler ADDRESS`` (a running Dask cluster) or ``--n-workers N`` (a local one) run the
simulation's graphs as Dask tasks, one per graph, with the same numbers
(:mod:`kernelkit.distributed`).
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

from kernelkit._commands import UsageError, print_table
from kernelkit.distributed.options import add_cluster_arguments

__all__ = ["register"]

GRAPHS = ("regular", "er", "power-law")
METHODS = ("cavity", "simulation", "eigen")
NORMALIZATIONS = ("global", "local")
#: ``--nus`` default: 12 log-spaced values from 0.01 to 10.
DEFAULT_NUS = tuple(10.0 ** (-2.0 + 3.0 * k / 11.0) for k in range(12))


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``learning-curve`` subcommand (and its handler) to ``subparsers``."""
    p = subparsers.add_parser(
        "learning-curve",
        help="GP learning curves on random graphs: cavity, simulation, eigenvalue approximation",
        description="The Bayes error epsilon(nu) of GP regression with the random walk kernel "
        "on the vertices of random graphs (Urry & Sollich 2013), nu = examples per vertex. "
        "Prints one row per nu and one column per method, the time of each method, and "
        "writes a plot (PNG; needs matplotlib).",
    )
    p.add_argument("--graph", choices=GRAPHS, default="regular", help="ensemble (default regular)")
    p.add_argument(
        "--degree",
        type=float,
        default=3.0,
        help="regular: the degree d (an integer >= 1); er: the mean degree (> 0) (default 3)",
    )
    p.add_argument(
        "--exponent", type=float, default=2.5, help="power-law: Pareto exponent > 1 (default 2.5)"
    )
    p.add_argument(
        "--lambda-m",
        type=float,
        default=2.0,
        help="power-law: smallest Poisson mean / weight > 0 (default 2)",
    )
    p.add_argument("--a", type=float, default=2.0, help="random walk kernel a > 1 (default 2)")
    p.add_argument("--p", type=int, default=10, help="random walk kernel steps p >= 0 (default 10)")
    p.add_argument("--noise", type=float, default=0.01, help="noise variance > 0 (default 0.01)")
    p.add_argument(
        "--normalize",
        choices=NORMALIZATIONS,
        default="global",
        help="kernel normalisation (default global)",
    )
    p.add_argument(
        "--nus",
        type=float,
        nargs="+",
        default=None,
        metavar="NU",
        help="examples per vertex, >= 0, run in increasing order "
        "(default 12 log-spaced values from 0.01 to 10)",
    )
    p.add_argument(
        "--method",
        default=",".join(METHODS),
        help=f"comma-separated subset of {','.join(METHODS)} (default all three)",
    )
    p.add_argument(
        "--n-vertices",
        type=int,
        default=500,
        help="simulation and eigen: vertices of a sampled graph, >= 2 (default 500)",
    )
    p.add_argument(
        "--n-graphs", type=int, default=10, help="simulation: graphs sampled (default 10)"
    )
    p.add_argument(
        "--n-datasets",
        type=int,
        default=10,
        help="simulation: data sets per graph and nu (default 10)",
    )
    p.add_argument(
        "--population", type=int, default=2000, help="cavity: population size >= 2 (default 2000)"
    )
    p.add_argument(
        "--out",
        default="learning_curve.png",
        help="plot path (default learning_curve.png)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--n-jobs",
        type=int,
        default=None,
        help="threads (default: as many as BLAS uses; -1: all CPUs)",
    )
    add_cluster_arguments(p)
    p.set_defaults(handler=_cmd_learning_curve)


def _check_args(args: argparse.Namespace) -> tuple[list[str], list[float]]:
    """Refuse flags out of range; return the methods and the sorted ``nu`` values."""

    methods = [m.strip() for m in args.method.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise UsageError(
            f"--method must be a comma-separated subset of {','.join(METHODS)}, got {args.method!r}"
        )
    methods = [m for m in METHODS if m in methods]  # fixed order, no repeats
    if not (math.isfinite(args.a) and args.a > 1):
        raise UsageError(f"--a must be finite and > 1, got {args.a}")
    if args.p < 0:
        raise UsageError(f"--p must be >= 0, got {args.p}")
    if not (math.isfinite(args.noise) and args.noise > 0):
        raise UsageError(f"--noise must be finite and > 0, got {args.noise}")
    nus = sorted(set(DEFAULT_NUS if args.nus is None else args.nus))
    if any(not (math.isfinite(nu) and nu >= 0) for nu in nus):
        raise UsageError(f"--nus must be finite and >= 0, got {args.nus}")
    if args.n_vertices < 2:
        raise UsageError(f"--n-vertices must be >= 2, got {args.n_vertices}")
    sampled = "simulation" in methods or "eigen" in methods
    deg = args.degree
    if args.graph == "regular":
        if not (math.isfinite(deg) and deg == int(deg) and deg >= 1):
            raise UsageError(f"--degree must be an integer >= 1 for --graph regular, got {deg:g}")
        if sampled and deg >= args.n_vertices:
            raise UsageError(
                f"--degree must be < --n-vertices = {args.n_vertices} for --graph regular, "
                f"got {deg:g}"
            )
        if sampled and (int(deg) * args.n_vertices) % 2:
            raise UsageError(
                f"--degree {deg:g} times --n-vertices {args.n_vertices} must be even "
                "for --graph regular"
            )
    elif args.graph == "er":
        if not (math.isfinite(deg) and deg > 0):
            raise UsageError(f"--degree (the mean degree) must be > 0 for --graph er, got {deg:g}")
        if sampled and deg > args.n_vertices - 1:
            raise UsageError(
                f"--degree must be <= --n-vertices - 1 = {args.n_vertices - 1} for --graph er, "
                f"got {deg:g}"
            )
    else:
        if not (math.isfinite(args.exponent) and args.exponent > 1):
            raise UsageError(f"--exponent must be finite and > 1, got {args.exponent}")
        if not (math.isfinite(args.lambda_m) and args.lambda_m > 0):
            raise UsageError(f"--lambda-m must be finite and > 0, got {args.lambda_m}")
    if args.n_graphs < 1:
        raise UsageError(f"--n-graphs must be >= 1, got {args.n_graphs}")
    if args.n_datasets < 1:
        raise UsageError(f"--n-datasets must be >= 1, got {args.n_datasets}")
    if args.population < 2:
        raise UsageError(f"--population must be >= 2, got {args.population}")
    if args.n_jobs is not None and (args.n_jobs == 0 or args.n_jobs < -1):
        raise UsageError(f"--n-jobs must be -1 or a positive integer, got {args.n_jobs}")
    if not 0 <= args.seed < 2**32:
        raise UsageError(f"--seed must be in 0..2**32 - 1, got {args.seed}")
    if "simulation" not in methods and (args.scheduler is not None or args.n_workers is not None):
        raise UsageError(
            "--scheduler and --n-workers apply to --method simulation only (its graphs run "
            "as Dask tasks); leave them out"
        )
    return methods, nus


def _ensemble(args: argparse.Namespace) -> tuple[Any, Any, str]:
    """``(ensemble(random_state=) -> graph, degree law, description)`` of the flags."""
    import functools

    from kernelkit.graphs import (
        DegreeDistribution,
        erdos_renyi_graph,
        generalized_random_graph,
        random_regular_graph,
    )

    n = args.n_vertices
    if args.graph == "regular":
        d = int(args.degree)
        return (
            functools.partial(random_regular_graph, d, n),
            DegreeDistribution.regular(d),
            f"random {d}-regular graphs",
        )
    if args.graph == "er":
        return (
            functools.partial(erdos_renyi_graph, n, args.degree),
            DegreeDistribution.poisson(args.degree),
            f"Erdos-Renyi graphs, mean degree {args.degree:g}",
        )
    return (
        functools.partial(generalized_random_graph, n, args.exponent, args.lambda_m),
        DegreeDistribution.pareto_mixed_poisson(args.exponent, args.lambda_m),
        f"power-law generalised random graphs, exponent {args.exponent:g}, "
        f"lambda_m {args.lambda_m:g}",
    )


def _cmd_learning_curve(args: argparse.Namespace) -> int:
    from kernelkit.distributed import cluster_from_args

    methods, nus = _check_args(args)
    # the cluster first: its misuse and an unreachable scheduler are reported before any
    # work is done; only the simulation's graphs run on it
    with cluster_from_args(args) as client:
        return _learning_curve(args, methods, nus, client)


def _learning_curve(
    args: argparse.Namespace, methods: list[str], nus: list[float], client: Any
) -> int:
    """Run the methods (the simulation on ``client``'s cluster, if any), print the table
    and write the plot."""
    import functools
    import warnings

    import numpy as np

    from kernelkit._progress import format_seconds, progress
    from kernelkit.graphs import SingularKernelWarning, random_walk_kernel
    from kernelkit.learning_curves import (
        cavity,
        eigenvalue_approximation,
        regular_tree_approximation,
        simulate,
    )

    ensemble, degrees, what = _ensemble(args)
    kernel = functools.partial(random_walk_kernel, a=args.a, p=args.p, normalize=args.normalize)
    print(
        f"learning curve: {what}; random walk kernel a={args.a:g}, p={args.p}, "
        f"{args.normalize} normalisation; noise {args.noise:g}"
    )
    tree = (
        args.graph == "regular"
        and args.normalize == "global"
        and int(args.degree) >= 3
        and args.a >= 2
    )
    columns: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
    timings: list[str] = []
    notes: list[str] = []
    for method in progress(methods, desc="learning curve"):
        t0 = time.perf_counter()
        if method == "simulation":
            curve = simulate(
                ensemble,
                kernel,
                args.noise,
                nus,
                n_graphs=args.n_graphs,
                n_datasets=args.n_datasets,
                random_state=args.seed,
                n_jobs=args.n_jobs,
                client=client,
            )
            name = "simulation"
            columns[name] = (curve.epsilon, curve.stderr)
            notes.append(
                f"{name}: {args.n_graphs} graphs x {args.n_datasets} data sets, "
                f"V={args.n_vertices} (mean ± standard error)"
            )
        elif method == "cavity":
            res = cavity(
                degrees,
                args.a,
                args.p,
                args.noise,
                nus,
                normalize=args.normalize,
                population=args.population,
                random_state=args.seed,
                n_jobs=args.n_jobs,
            )
            name = "cavity"
            columns[name] = (res.epsilon, None)
            notes.append(f"{name}: population dynamics, population {args.population}")
        else:
            G = ensemble(random_state=args.seed)
            name = "eigen (graph)"
            with warnings.catch_warnings():
                # a zero eigenvalue (a = 2 on a bipartite component) just adds nothing to
                # eq. 18's sum; the noise keeps the fixed point regular
                warnings.simplefilter("ignore", SingularKernelWarning)
                C = kernel(G)
            columns[name] = (eigenvalue_approximation(C, args.noise, nus), None)
            notes.append(
                f"{name}: eq. 18 on the kernel spectrum of one sampled graph, V={args.n_vertices}"
            )
            if tree:
                d = int(args.degree)
                columns["eigen (tree)"] = (
                    regular_tree_approximation(d, args.a, args.p, args.noise, nus),
                    None,
                )
                notes.append("eigen (tree): eqs. 18, 20-21 on the large-V regular-tree spectrum")
        timings.append(f"{method} {format_seconds(time.perf_counter() - t0)}")

    header = ["nu", *columns]
    rows = []
    for k, nu in enumerate(nus):
        row = [f"{nu:.4g}"]
        for eps, err in columns.values():
            row.append(f"{eps[k]:.4e}" + ("" if err is None else f" ± {err[k]:.1e}"))
        rows.append(row)
    print_table(rows, header, align="right")
    for note in notes:
        print(f"  {note}")
    print(f"time: {', '.join(timings)}")
    _plot(columns, nus, args, what)
    return 0


def _plot(columns: dict, nus: list[float], args: argparse.Namespace, what: str) -> None:
    """Write the plot to ``args.out``, or say in one line why not (no matplotlib)."""
    from kernelkit.plotting import new_figure, pyplot, save_figure

    try:
        pyplot()
    except ImportError:
        print("no plot: matplotlib is not installed (pip install 'kernelkit[plot]')")
        return
    fig, ax = new_figure(width=5.0, height=3.6)
    for name, (eps, err) in columns.items():
        if err is None:
            ax.plot(nus, eps, marker=".", label=name)
        else:
            ax.errorbar(nus, eps, yerr=err, marker="o", ms=3, capsize=2, label=name)
    if min(nus) > 0:
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nu (examples per vertex)")
    ax.set_ylabel("Bayes error epsilon")
    ax.set_title(
        f"{what}\na={args.a:g}, p={args.p}, noise {args.noise:g}, {args.normalize}", fontsize=8
    )
    ax.legend()
    save_figure(fig, args.out)
    print(f"plot written to {args.out}")
