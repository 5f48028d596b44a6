"""``kernelkit pgm infer``: inference on a model file in the UAI format.

:func:`register` adds the ``pgm`` command with its ``infer`` subcommand; :mod:`kernelkit.cli`
finds it as it finds every ``kernelkit/<area>/cli.py``. NumPy, SciPy and networkx are
imported by the handler only.

``kernelkit pgm infer MODEL.uai --method exact|bp|lp [--task ...] [--reroot auto]`` reads
the model (:func:`kernelkit.pgm.read_uai`; a malformed file is reported with its line),
optionally reroots it (:func:`kernelkit.pgm.auto_reroot`, binary models; Rowland 2018,
§2.5) and runs

* ``exact``: variable elimination (:mod:`kernelkit.pgm.exact`): ``log Z``, marginals, MAP;
* ``bp``: loopy belief propagation (:func:`kernelkit.pgm.loopy_bp`): the Bethe ``log Z``
  and beliefs (sum-product), a MAP estimate (max-product);
* ``lp``: an LP relaxation for MAP with HiGHS (:func:`kernelkit.pgm.lp_relaxation`, level
  ``--level``): its value, whether it is integral, and the assignment when it is.

Results are mapped back to the original model (Props. 2.5, 2.7) and printed; ``--out``
also writes them in the UAI competition's result format (``PR`` with ``log10 Z``, ``MAR``,
``MPE``), and ``--write-model`` writes the (rerooted) model that was solved.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

from kernelkit._commands import UsageError, print_table

__all__ = ["register"]

METHODS = ("exact", "bp", "lp")
TASKS = ("all", "logz", "marginals", "map")
LEVELS = ("L2", "L3", "L3s", "SA")
REROOT = ("none", "auto")
HEURISTICS = ("K", "G", "maxtW", "K6", "G6")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``pgm`` command (subcommand ``infer``) to ``subparsers``."""
    p = subparsers.add_parser(
        "pgm",
        help="discrete graphical models: inference on a UAI model file",
        description="Discrete graphical models (Rowland 2018, Part I).",
    )
    sub = p.add_subparsers(dest="pgm_command", metavar="COMMAND", required=True)
    q = sub.add_parser(
        "infer",
        help="log Z, marginals and MAP of a model in the UAI format",
        description="Read a MARKOV or BAYES model in the UAI format, optionally reroot it, "
        "and compute log Z, marginals and / or a MAP assignment.",
    )
    q.add_argument("model", metavar="MODEL", help="a .uai model file")
    q.add_argument("--method", choices=METHODS, default="exact", help="default exact")
    q.add_argument(
        "--task",
        choices=TASKS,
        default="all",
        help="what to compute (default all that the method gives: lp gives MAP only)",
    )
    q.add_argument(
        "--reroot",
        choices=REROOT,
        default="none",
        help="auto: reroot at the vertex the heuristic picks (binary models; default none)",
    )
    q.add_argument(
        "--heuristic", choices=HEURISTICS, default="K", help="rerooting heuristic (default K)"
    )
    q.add_argument("--level", choices=LEVELS, default="L2", help="lp: the relaxation (default L2)")
    q.add_argument("--r", type=int, default=None, help="lp --level SA: the order r")
    q.add_argument("--s", type=int, default=None, help="lp --level L3s: the vertex s")
    q.add_argument("--damping", type=float, default=0.0, help="bp: damping in [0, 1) (default 0)")
    q.add_argument("--max-iter", type=int, default=1000, help="bp: iterations (default 1000)")
    q.add_argument("--tol", type=float, default=1e-8, help="bp: tolerance (default 1e-8)")
    q.add_argument(
        "--show", type=int, default=20, help="marginals printed (default 20; all go to --out)"
    )
    q.add_argument("--out", default=None, help="write the results (UAI result format) here")
    q.add_argument("--write-model", default=None, help="write the model that was solved (UAI)")
    q.set_defaults(handler=_cmd_infer)


def _cmd_infer(args: argparse.Namespace) -> int:

    if args.method == "lp" and args.task in ("logz", "marginals"):
        raise UsageError(f"--method lp gives a MAP assignment only, not --task {args.task}")
    if args.level == "SA" and args.r is None:
        raise UsageError("--level SA needs --r (the order of the Sherali-Adams relaxation)")
    if args.show < 0:
        raise UsageError(f"--show must be >= 0, got {args.show}")

    from kernelkit._progress import format_seconds
    from kernelkit.pgm import auto_reroot, read_uai, write_uai

    model = read_uai(args.model)
    print(f"{args.model}: {model}")
    t0 = time.perf_counter()
    rerooting = None
    work = model
    if args.reroot == "auto":
        if not model.is_binary:
            raise UsageError("--reroot auto needs a binary model (every cardinality 2)")
        rerooting = auto_reroot(model, args.heuristic)
        work = rerooting.model
        where = (
            "kept the original model (the root scores best)"
            if rerooting.kind == "original"
            else f"rerooted at variable {rerooting.vertex}"
        )
        print(f"reroot ({args.heuristic} heuristic): {where}")
    if args.write_model:
        write_uai(work, args.write_model)
        print(f"model written to {args.write_model}")

    tasks = {"logz", "marginals", "map"} if args.task == "all" else {args.task}
    if args.method == "lp":
        tasks = {"map"}
    log_z, marginals, assignment = _solve(args, work, tasks)

    # back to the original model (Props. 2.5, 2.7)
    if rerooting is not None:
        if log_z is not None:
            log_z = rerooting.to_original_log_partition(log_z)
        if assignment is not None:
            assignment = rerooting.to_original_assignment(assignment)
        if marginals is not None:
            marginals = _original_marginals(rerooting, marginals)
    elif marginals is not None:
        marginals = list(marginals["variables"])
    elapsed = time.perf_counter() - t0

    if log_z is not None:
        print(f"log Z = {log_z:.10g}")
    if assignment is not None:
        print(f"MAP score = {float(model.score(assignment)):.10g}")
        print("MAP assignment: " + " ".join(str(int(v)) for v in assignment))
    if marginals is not None and args.show:
        rows = [
            [str(model.variables[i]), " ".join(f"{p:.6f}" for p in m)]
            for i, m in enumerate(marginals[: args.show])
        ]
        print_table(rows, ["variable", "marginal"])
        if len(marginals) > args.show:
            print(f"... {len(marginals) - args.show} more (all in --out)")
    print(f"time: {format_seconds(elapsed)}")
    if args.out:
        _write_results(args.out, log_z, marginals, assignment)
        print(f"results written to {args.out}")
    return 0


def _solve(args: argparse.Namespace, work: Any, tasks: set[str]) -> tuple[Any, Any, Any]:
    """``(log Z, marginals or per-factor beliefs, assignment)`` of ``work``."""

    log_z = marginals = assignment = None
    if args.method == "exact":
        from kernelkit.pgm import exact_log_partition, exact_map, exact_marginals

        if "marginals" in tasks:
            res = exact_marginals(work)
            log_z = res.log_partition
            marginals = {"variables": res.marginals, "factors": None}
        elif "logz" in tasks:
            log_z = exact_log_partition(work)
        if "map" in tasks:
            assignment = exact_map(work).assignment
    elif args.method == "bp":
        from kernelkit.pgm import loopy_bp

        if tasks & {"logz", "marginals"}:
            res = loopy_bp(work, damping=args.damping, max_iter=args.max_iter, tol=args.tol)
            if not res.converged:
                print(f"warning: BP did not converge in {res.n_iter} iterations")
            log_z = res.log_partition if "logz" in tasks else None
            if "marginals" in tasks:
                # the factor beliefs carry the joints with the root, for the mapping back
                marginals = {"variables": res.marginals, "factors": res.factor_marginals}
        if "map" in tasks:
            res = loopy_bp(
                work, mode="max", damping=args.damping, max_iter=args.max_iter, tol=args.tol
            )
            assignment = res.assignment
    else:
        from kernelkit.pgm import lp_relaxation

        res = lp_relaxation(work, args.level, r=args.r, s=args.s)
        print(
            f"LP {args.level}: value {res.value:.10g}, "
            f"{'integral' if res.is_integral else 'fractional'} ({res.message})"
        )
        if not res.is_integral:
            raise UsageError(
                f"the {args.level} relaxation is not tight on this model (fractional optimum, "
                f"value {res.value:.10g}); try a tighter --level, or --reroot auto"
            )
        assignment = res.assignment
    return log_z, marginals, assignment


def _original_marginals(rerooting: Any, marginals: dict) -> list:
    """Per-variable marginals of the original model from the rerooted one's: each variable
    needs its joint with the root (eqs. 2.6, 2.10-2.11), computed exactly by clamping the
    root (exact) or read from a factor belief whose scope holds both (BP)."""
    import numpy as np

    from kernelkit.pgm import clamp, exact_marginals

    if rerooting.kind == "original":
        return [np.asarray(m) for m in marginals["variables"]]
    if marginals["factors"] is None:  # exact: the joints with the root, by clamping it
        work, root = rerooting.model, rerooting.root
        p_root = np.asarray(marginals["variables"][root], dtype=np.float64)
        pairs = np.empty((work.n_variables, 2, 2))  # pairs[v, a, b] = p(x_root=a, x_v=b)
        pairs[root] = np.diag(p_root)
        for a in (0, 1):  # the root is the last variable: the others keep their indices
            pairs[:root, a] = 0.0
            if p_root[a] > 0:
                sub = exact_marginals(clamp(work, work.variables[root], a)).marginals
                pairs[:root, a] = p_root[a] * np.asarray(sub)
        return list(rerooting.to_original_marginals(pairs))
    try:
        return list(rerooting.marginals_from_beliefs(marginals["variables"], marginals["factors"]))
    except ValueError as exc:
        raise UsageError(f"{exc}; use --method exact or --reroot none for marginals") from None


def _write_results(path: str, log_z: Any, marginals: Any, assignment: Any) -> None:
    """The UAI competition's result blocks: PR (log10 Z), MAR, MPE."""
    lines = []
    if log_z is not None:
        lines += ["PR", f"{log_z / math.log(10.0):.12g}"]
    if marginals is not None:
        parts = [str(len(marginals))]
        for m in marginals:
            parts += [str(len(m)), *(f"{p:.12g}" for p in m)]
        lines += ["MAR", " ".join(parts)]
    if assignment is not None:
        lines += ["MPE", " ".join([str(len(assignment)), *(str(int(v)) for v in assignment)])]
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
