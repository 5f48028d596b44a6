"""``kernelkit graph-classify``: nested cross-validation of a graph kernel SVM.

Wired into the ``kernelkit`` command through ``kernelkit.cli.COMMANDS``
(``_add_graph_classify``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

__all__ = ["KERNELS", "_add_graph_classify"]

#: Spelled out so that building the parser does not import networkx, SciPy and
#: scikit-learn for every ``kernelkit`` command (a test checks it against ``classify``).
KERNELS = ("wl", "wl-final", "vertex", "edge", "shortest-path")


def _add_graph_classify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "graph-classify",
        help="graph classification with a graph kernel SVM (nested cross-validation)",
        description="Stratified k-fold cross-validation of a C-SVM (libsvm) on a graph kernel. "
        "Inside each training fold, h (WL kernels) and C are chosen on a validation split of "
        "that fold only; the test fold is used once. Prints mean ± std test accuracy.",
    )
    p.add_argument(
        "--dataset",
        default="MUTAG",
        help="packaged TU dataset (MUTAG, NCI1, NCI109) or a TU-format folder (default MUTAG)",
    )
    p.add_argument("--kernel", choices=KERNELS, default="wl", help="graph kernel (default wl)")
    p.add_argument(
        "--iterations",
        type=int,
        default=6,
        metavar="H",
        help="largest WL iteration count searched: h in 0..H (default 6)",
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


def _cmd_graph_classify(args: argparse.Namespace) -> int:
    from .classify import DEFAULT_C, cross_validate_graphs, graph_grams

    if args.iterations < 0:
        raise ValueError(f"--iterations must be >= 0, got {args.iterations}")
    if args.folds < 2:
        raise ValueError(f"--folds must be >= 2, got {args.folds}")
    C_values = tuple(args.C) if args.C else DEFAULT_C
    if any(not c > 0 for c in C_values):
        raise ValueError(f"--C values must be > 0, got {list(C_values)}")
    graphs, y, name = _load(args.dataset)
    counts = np.unique(y, return_counts=True)[1]
    if counts.min() < args.folds:
        raise ValueError(
            f"--folds {args.folds} is more than the smallest class of {name} "
            f"({counts.min()} graphs)"
        )
    t0 = time.perf_counter()
    h_values = range(args.iterations + 1)
    grams = graph_grams(graphs, args.kernel, h_values)
    t_kernel = time.perf_counter() - t0
    res = cross_validate_graphs(
        grams,
        y,
        C_values=C_values,
        n_folds=args.folds,
        inner_folds=args.inner_folds,
        random_state=args.seed,
    )
    t_total = time.perf_counter() - t0
    grid = f"h in 0..{args.iterations}, " if args.kernel.startswith("wl") else ""
    print(f"{name}: {len(graphs)} graphs, {len(counts)} classes; kernel {args.kernel}")
    cs = ", ".join(f"{c:g}" for c in C_values)
    print(f"selection on a validation split of each training fold: {grid}C in {{{cs}}}")
    for k, (acc, ch) in enumerate(zip(res.accuracies, res.chosen, strict=True)):
        h = "" if ch["h"] is None else f"h={ch['h']} "
        print(
            f"  fold {k + 1:2d}: test accuracy {100 * acc:5.1f} %  ({h}C={ch['C']:g}, "
            f"validation {100 * ch['validation_accuracy']:.1f} %)"
        )
    print(
        f"accuracy {100 * res.mean:.1f} ± {100 * res.std:.1f} % over {args.folds} folds "
        f"(kernel {t_kernel:.1f} s, total {t_total:.1f} s)"
    )
    return 0
