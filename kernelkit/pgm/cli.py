"""``kernelkit pgm infer`` and ``kernelkit pgm solve``: inference on a model file in the UAI
format.

:func:`register` adds the ``pgm`` command with its subcommands; :mod:`kernelkit.cli` finds
it as it finds every ``kernelkit/<area>/cli.py``. NumPy, SciPy and networkx are imported by
the handlers only.

Both read the model (:func:`kernelkit.pgm.read_uai`; a malformed file is reported with its
line) and condition it on evidence: ``--evid FILE``, or ``MODEL.evid`` when it sits beside
the model (announced on the terminal; ``--evid none`` ignores it).

``kernelkit pgm solve MODEL.uai --task PR|MAR|MAP|MMAP [--time-limit S] [--memory-limit
GB]`` answers one UAI competition task (:func:`kernelkit.pgm.solve`): exact when the
model's width fits the memory limit, else the best anytime answer with its bounds; it
writes the UAI 2014 result file (``MODEL.TASK`` here, or ``--out``).

``kernelkit pgm infer MODEL.uai --method exact|bp|lp [--task ...] [--reroot auto]``
optionally reroots the model (:func:`kernelkit.pgm.auto_reroot`, binary models; Rowland
2018, §2.5) and runs

* ``exact``: variable elimination (:mod:`kernelkit.pgm.exact`): ``log Z``, marginals, MAP;
* ``bp``: loopy belief propagation (:func:`kernelkit.pgm.loopy_bp`): the Bethe ``log Z``
  and beliefs (sum-product), a MAP estimate (max-product);
* ``lp``: an LP relaxation for MAP with HiGHS (:func:`kernelkit.pgm.lp_relaxation`, level
  ``--level``): its value (an upper bound on the MAP score), whether it is integral, and
  the assignment (rounded from the pseudomarginals when it is not).

Results are mapped back to the original model (Props. 2.5, 2.7) and printed; ``--out``
also writes them in the UAI 2014 result format (``PR`` with ``log10 Z``, ``MAR``,
``MAP``, one block per task computed), and ``--write-model`` writes the (rerooted,
conditioned) model that was solved.
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
SOLVE_TASKS = ("PR", "MAR", "MAP", "MMAP")
BP_SCHEDULES = ("auto", "parallel", "sequential", "residual")


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
    q.add_argument(
        "--schedule",
        choices=BP_SCHEDULES,
        default="auto",
        help="bp: message schedule (default auto: flooding, then damped sequential, then "
        "residual when it oscillates)",
    )
    q.add_argument("--damping", type=float, default=0.0, help="bp: damping in [0, 1) (default 0)")
    q.add_argument("--max-iter", type=int, default=1000, help="bp: iterations (default 1000)")
    q.add_argument("--tol", type=float, default=1e-8, help="bp: tolerance (default 1e-8)")
    q.add_argument(
        "--show", type=int, default=20, help="marginals printed (default 20; all go to --out)"
    )
    q.add_argument(
        "--evid",
        default=None,
        help="an evidence file (default: MODEL.evid when it exists, announced; 'none' for none)",
    )
    q.add_argument("--out", default=None, help="write the results (UAI result format) here")
    q.add_argument("--write-model", default=None, help="write the model that was solved (UAI)")
    q.set_defaults(handler=_cmd_infer)

    r = sub.add_parser(
        "solve",
        help="a UAI competition task (PR, MAR, MAP, MMAP): exact, or anytime with bounds",
        description="Solve a UAI competition task on a model file, with evidence, and write "
        "the answer in the UAI result format. Exact when the model's induced width fits the "
        "memory limit; otherwise the best anytime answer with certified bounds.",
    )
    r.add_argument("model", metavar="MODEL", help="a .uai model file (.uai.gz too)")
    r.add_argument("--task", type=str.upper, choices=SOLVE_TASKS, required=True, help="the task")
    r.add_argument(
        "--evid",
        default=None,
        help="an evidence file (default: MODEL.evid when it exists, announced; 'none' for none)",
    )
    r.add_argument(
        "--query",
        default=None,
        help="MMAP: a query file (q v1 .. vq; default: MODEL.query when it exists)",
    )
    r.add_argument("--time-limit", type=float, default=None, help="seconds for the anytime methods")
    r.add_argument(
        "--memory-limit",
        type=float,
        default=None,
        help="GiB the inference may use (default: what the machine and the process allow)",
    )
    r.add_argument("--seed", type=int, default=0, help="random seed of the sampling (default 0)")
    r.add_argument(
        "--out",
        default=None,
        help="the answer file (default: the model's file name plus .TASK, here)",
    )
    r.set_defaults(handler=_cmd_solve)


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
    from kernelkit.pgm.uai_answers import apply_evidence

    conditioned = apply_evidence(model, _evidence(args, model))
    t0 = time.perf_counter()
    rerooting = None
    work = conditioned.model
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
    # back to every variable of the file (observed ones at their evidence)
    if assignment is not None:
        assignment = conditioned.to_original_assignment(assignment)
    if marginals is not None:
        marginals = conditioned.to_original_marginals(marginals)
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

        options = dict(
            schedule=args.schedule, damping=args.damping, max_iter=args.max_iter, tol=args.tol
        )
        if tasks & {"logz", "marginals"}:
            res = loopy_bp(work, **options)
            usable = res.log_partition is not None and math.isfinite(res.log_partition)
            _report_bp(res, usable)
            log_z = res.log_partition if "logz" in tasks and usable else None
            if "marginals" in tasks and usable:
                # the factor beliefs carry the joints with the root, for the mapping back
                marginals = {"variables": res.marginals, "factors": res.factor_marginals}
        if "map" in tasks:
            res = loopy_bp(work, mode="max", **options)
            usable = res.score is not None and res.score > -math.inf
            _report_bp(res, usable)
            assignment = res.assignment if usable else None
    else:
        from kernelkit.pgm import lp_relaxation

        res = lp_relaxation(work, args.level, r=args.r, s=args.s)
        print(
            f"LP {args.level}: value {res.value:.10g}, "
            f"{'integral' if res.is_integral else 'fractional'} ({res.message})"
        )
        assignment = res.assignment
        if not res.is_integral:
            # not tight: the LP value still bounds the MAP score from above; round the
            # pseudomarginals for an assignment (a lower bound when feasible)
            import numpy as np

            assignment = np.array([int(np.argmax(m)) for m in res.pseudomarginals])
            score = float(work.score(assignment))
            print(
                f"the {args.level} relaxation is not tight on this model: its value "
                f"{res.value:.10g} is an upper bound on the MAP score; the rounded "
                f"pseudomarginals score {score:.10g} (gap {res.value - score:.4g}); a "
                "tighter --level, --reroot auto or 'kernelkit pgm solve --task MAP' may close it"
            )
            if score == -math.inf:
                print("the rounded assignment is forbidden by a hard constraint: none written")
                assignment = None
    return log_z, marginals, assignment


def _report_bp(res: Any, usable: bool) -> None:
    """Say how BP ended: the schedule it settled on, and why it failed when it did."""
    how = f"schedule {res.schedule_used}" + (
        f", damping {res.damping_used:g}" if res.damping_used else ""
    )
    if res.converged:
        print(f"BP converged in {res.n_iter} iterations ({how})")
    elif usable:
        print(f"warning: BP did not converge ({res.reason}; {how}): its numbers are estimates")
    else:
        print(f"warning: BP failed ({res.reason}; {how}): no answer from it")


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
    """The UAI 2014 result blocks, one per task computed: ``PR`` (log10 Z), ``MAR``,
    ``MAP``; with one task, a result file :func:`kernelkit.pgm.read_answer` reads."""
    from kernelkit.pgm.uai_answers import UAIAnswer, _solution

    answers = []
    if log_z is not None:
        answers.append(UAIAnswer("PR", log10_partition=log_z / math.log(10.0)))
    if marginals is not None:
        answers.append(UAIAnswer("MAR", marginals=marginals))
    if assignment is not None:
        answers.append(UAIAnswer("MAP", assignment=assignment))
    with open(path, "w") as fh:
        fh.write("".join(f"{a.task}\n{_solution(a)}\n" for a in answers))


def _evidence(args: argparse.Namespace, model: Any) -> dict[int, int]:
    """The evidence of ``--evid``, or of ``MODEL.evid`` found beside it (announced)."""
    from kernelkit.pgm.uai_answers import read_evidence

    path = args.evid
    if path is None:
        path = _beside(args.model, ".evid")
        if path is not None:
            print(f"evidence: {path} (found beside the model; --evid none to ignore it)")
    elif path.lower() == "none":
        path = None
    else:
        print(f"evidence: {path}")
    evidence = {} if path is None else read_evidence(path, model)
    if path is not None:
        print(f"  {len(evidence)} observed variable{'' if len(evidence) == 1 else 's'}")
    return evidence


def _beside(model_path: str, suffix: str) -> str | None:
    """``MODEL.suffix`` (``model.uai.evid``; for ``model.uai.gz`` also ``model.uai.evid``)
    when that file exists."""
    import os

    candidates = [model_path + suffix]
    if model_path.endswith(".gz"):
        candidates.append(model_path[:-3] + suffix)
    for path in candidates:
        if os.path.isfile(path):
            return path
    return None


def _cmd_solve(args: argparse.Namespace) -> int:
    import os

    for name, value in (("--time-limit", args.time_limit), ("--memory-limit", args.memory_limit)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise UsageError(f"{name} must be a positive number, got {value}")

    from kernelkit._progress import format_seconds
    from kernelkit.pgm import read_uai, solve
    from kernelkit.pgm.uai_answers import read_query, write_answer

    model = read_uai(args.model)
    print(f"{args.model}: {model}")
    evidence = _evidence(args, model)
    query = None
    if args.task == "MMAP":
        query_path = args.query or _beside(args.model, ".query")
        if query_path is None:
            raise UsageError("--task MMAP needs --query FILE (or MODEL.query beside the model)")
        query = read_query(query_path, model)
        print(f"query: {query_path} ({len(query)} variables)")
    elif args.query is not None:
        raise UsageError(f"--query is for --task MMAP only, not --task {args.task}")

    memory = None if args.memory_limit is None else args.memory_limit * 2**30
    sol = solve(
        model,
        args.task,
        evidence=evidence,
        query=query,
        time_limit=args.time_limit,
        memory_limit=memory,
        random_state=args.seed,
    )
    ln10 = math.log(10.0)
    print(f"method: {sol.method} ({'exact' if sol.exact else 'not exact'})")
    if sol.message:
        print(sol.message)
    if args.task == "PR" and sol.log_partition is not None:
        print(f"log10 Z = {sol.log_partition / ln10:.10g}")
    if args.task in ("MAP", "MMAP") and sol.score is not None:
        print(f"score (log10) = {sol.score / ln10:.10g}")
    if not sol.exact and args.task != "MAR":
        conf = (
            ""
            if sol.confidence == 1.0
            else f"; the lower bound holds with probability {sol.confidence:g}"
        )
        print(
            f"bounds (log10): [{sol.lower / ln10:.10g}, {sol.upper / ln10:.10g}], "
            f"gap {sol.log10_gap:.4g}{conf}"
        )
    print(f"time: {format_seconds(sol.seconds)}")
    has_answer = {
        "PR": sol.log_partition is not None,
        "MAR": sol.marginals is not None,
        "MAP": sol.assignment is not None,
        "MMAP": sol.assignment is not None,
    }[args.task]
    if not has_answer:
        print(f"no {args.task} answer: nothing written")
        return 1
    out = args.out or os.path.basename(args.model).removesuffix(".gz") + "." + args.task
    write_answer(out, sol.answer())
    print(f"answer written to {out}")
    return 0
