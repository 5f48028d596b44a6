"""``kernelkit graph-classify``: nested cross-validation of a graph kernel SVM.

:func:`register` adds the subcommand; :mod:`kernelkit.cli` finds it (as it finds every
``kernelkit/<area>/cli.py``) when it builds the ``kernelkit`` parser. ``--scheduler
ADDRESS`` (a running Dask cluster) or ``--n-workers N`` (a local one) run the
cross-validation grid as Dask tasks, one per (outer fold, ``n_iter``), with the same
result (:mod:`kernelkit.distributed`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._commands import UsageError
from kernelkit.distributed.options import add_cluster_arguments

__all__ = ["KERNELS", "register"]

#: Spelled out so that building the parser does not import networkx, SciPy and
#: scikit-learn for every ``kernelkit`` command (a test checks it against ``classify``).
KERNELS = ("wl", "wl-final", "vertex", "edge", "shortest-path")
#: The kernels with a depth (``--n-iter``), and its default.
WL_KERNELS = ("wl", "wl-final")
DEFAULT_N_ITER = 6


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``graph-classify`` subcommand (and its handler) to ``subparsers``."""
    p = subparsers.add_parser(
        "graph-classify",
        help="graph classification with a graph kernel SVM (nested cross-validation)",
        description="Stratified k-fold cross-validation of a C-SVM (libsvm) on a graph kernel. "
        "Inside each training fold, n_iter (WL kernels) and C are chosen on a validation split of "
        "that fold only; the test fold is used once. Prints mean ± std test accuracy. Node "
        "(edge) labels are used when the dataset has them; otherwise the output says that "
        "node degrees (endpoint label pairs) are used instead.",
    )
    p.add_argument(
        "--dataset",
        default="MUTAG",
        help="packaged TU dataset (MUTAG, NCI1, NCI109) or a TU-format folder (default MUTAG)",
    )
    p.add_argument("--kernel", choices=KERNELS, default="wl", help="graph kernel (default wl)")
    p.add_argument(
        "--n-iter",
        type=int,
        default=None,
        metavar="N_ITER",
        help=f"WL kernels only: the largest depth searched, n_iter in 0..N_ITER "
        f"(default {DEFAULT_N_ITER})",
    )
    p.add_argument("--folds", type=int, default=10, help="outer CV folds (default 10)")
    p.add_argument(
        "--inner-folds",
        type=int,
        default=1,
        help="1: one stratified 20%% validation split per training fold (default); "
        "k >= 2: inner k-fold CV",
    )
    p.add_argument(
        "--C",
        type=float,
        nargs="+",
        default=None,
        metavar="C",
        help="SVM C values searched (default 1e-3 1e-2 ... 1e3)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed of the folds (default 0)")
    add_cluster_arguments(p)
    p.set_defaults(handler=_cmd_graph_classify)


def _load(dataset: str) -> tuple[list, np.ndarray, str]:
    from kernelkit.datasets import load_tu, read_tu
    from kernelkit.datasets.tu import TU_DATASETS

    if dataset.upper() in TU_DATASETS:
        graphs, y = load_tu(dataset)
        return graphs, y, dataset.upper()
    path = Path(dataset)
    if path.is_dir():
        graphs, y = read_tu(path)
        return graphs, y, path.name
    raise ValueError(
        f"--dataset {dataset!r} is neither a packaged TU dataset "
        f"({', '.join(TU_DATASETS)}) nor a folder"
    )


def _check_args(args: argparse.Namespace) -> tuple[float, ...]:
    """Refuse flags out of range or that do not apply to the kernel; return the C grid."""

    from .classify import DEFAULT_C

    if args.n_iter is not None and args.kernel not in WL_KERNELS:
        raise UsageError(
            f"--n-iter applies to the WL kernels ({', '.join(WL_KERNELS)}) only; "
            f"the {args.kernel} kernel has no iterations: leave the flag out"
        )
    if args.n_iter is not None and args.n_iter < 0:
        raise UsageError(f"--n-iter must be >= 0, got {args.n_iter}")
    if args.folds < 2:
        raise UsageError(f"--folds must be >= 2, got {args.folds}")
    if args.inner_folds < 1:
        raise UsageError(f"--inner-folds must be >= 1, got {args.inner_folds}")
    C_values = tuple(args.C) if args.C else DEFAULT_C
    if any(not (np.isfinite(c) and c > 0) for c in C_values):
        raise UsageError(f"--C values must be finite and > 0, got {list(C_values)}")
    return C_values


def _cmd_graph_classify(args: argparse.Namespace) -> int:
    from kernelkit.distributed import cluster_from_args

    C_values = _check_args(args)
    # the cluster first: an unreachable scheduler is reported before any work is done
    with cluster_from_args(args) as client:
        return _classify(args, C_values, client)


def _classify(args: argparse.Namespace, C_values: tuple[float, ...], client: Any) -> int:
    """Load, compute the Gram matrices, cross-validate (on ``client``'s cluster, if any)
    and print the folds and the accuracy."""
    from kernelkit._progress import format_seconds

    from .classify import cross_validate_graphs, graph_grams

    t0 = time.perf_counter()
    graphs, y, name = _load(args.dataset)
    t_load = time.perf_counter() - t0
    classes, counts = np.unique(y, return_counts=True)
    if counts.min() < args.folds:
        raise UsageError(
            f"--folds {args.folds} is more than the smallest class of {name} "
            f"({counts.min()} graphs)"
        )
    # labels when the dataset has them, said in the output either way (never silently)
    node_label = "label" if any("label" in d for G in graphs for d in G._node.values()) else None
    used = ["node labels" if node_label else "node degrees (the dataset has no node labels)"]
    kwargs: dict = {"node_label": node_label}
    if args.kernel == "edge":
        has_edge_labels = any("label" in d for G in graphs for *_, d in G.edges(data=True))
        kwargs["edge_label"] = "label" if has_edge_labels else None
        used.append(
            "edge types: edge labels"
            if has_edge_labels
            else "edge types: pairs of endpoint labels (the dataset has no edge labels)"
        )
    wl = args.kernel in WL_KERNELS
    n_iter = DEFAULT_N_ITER if args.n_iter is None else args.n_iter
    if wl:
        kwargs["n_iter_values"] = range(n_iter + 1)

    t1 = time.perf_counter()
    grams = graph_grams(graphs, args.kernel, **kwargs)
    t_kernel = time.perf_counter() - t1
    t2 = time.perf_counter()
    res = cross_validate_graphs(
        grams,
        y,
        C_values=C_values,
        n_folds=args.folds,
        inner_folds=args.inner_folds,
        random_state=args.seed,
        client=client,
    )
    t_cv = time.perf_counter() - t2

    print(
        f"{name}: {len(graphs)} graphs, {len(classes)} classes; kernel {args.kernel} "
        f"({'; '.join(used)})"
    )
    grid = f"n_iter in 0..{n_iter}, " if wl else ""
    cs = ", ".join(f"{c:g}" for c in C_values)
    how = (
        "a stratified 20% validation split"
        if args.inner_folds == 1
        else f"inner stratified {args.inner_folds}-fold CV"
    )
    print(f"selection by {how} of each training fold: {grid}C in {{{cs}}}")
    for k, (acc, ch) in enumerate(zip(res.accuracies, res.chosen, strict=True)):
        depth = "" if ch.n_iter is None else f"n_iter={ch.n_iter} "
        print(
            f"  fold {k + 1:2d}: test accuracy {100 * acc:5.1f} %  ({depth}C={ch.C:g}, "
            f"validation {100 * ch.validation_accuracy:.1f} %)"
        )
    what = f"kernel matrices (n_iter = 0..{n_iter})" if wl else "kernel matrix"
    print(
        f"accuracy {100 * res.mean:.1f} ± {100 * res.std:.1f} % over {args.folds} folds "
        f"(loading {format_seconds(t_load)}, {what} {format_seconds(t_kernel)}, "
        f"nested CV {format_seconds(t_cv)})"
    )
    return 0
