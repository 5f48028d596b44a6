"""``kernelkit fisher-mnist``: the assignment's Fisher-vector pipeline on MNIST.

:func:`register` adds the subcommand; :mod:`kernelkit.cli` finds it (as it finds every
``kernelkit/<area>/cli.py``) when it builds the ``kernelkit`` parser. Heavy imports wait
for the handler.
"""

from __future__ import annotations

import argparse
import time

from kernelkit._commands import UsageError

__all__ = ["register"]

#: Width of a SIFT descriptor, the largest ``-f``.
SIFT_WIDTH = 128


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``fisher-mnist`` subcommand (and its handler) to ``subparsers``."""
    p = subparsers.add_parser(
        "fisher-mnist",
        help="MNIST digits with SIFT Fisher vectors and linear SVMs (assignment Q1.3-1.4)",
        description="SIFT descriptors (OpenCV) of the packaged MNIST test set (10000 digits), "
        "split 80/20 (stratified, seeded); PCA to f dimensions and a diagonal GMM with K "
        "components fitted on the training images only; Fisher vectors (eqs. 1.13-1.14) "
        "with power and L2 normalisation; ten one-vs-rest linear SVMs (scikit-learn "
        "LinearSVC). Prints the timing of each stage and a line 'accuracy NN.N%'.",
    )
    p.add_argument(
        "-k", "--n-components", type=int, default=16, help="GMM components K (default 16)"
    )
    p.add_argument(
        "-f",
        "--pca-components",
        type=int,
        default=16,
        help=f"descriptor dimension after PCA, 1..{SIFT_WIDTH}; 0: no PCA (default 16)",
    )
    p.add_argument(
        "--small",
        action="store_true",
        help="2000 of the 10000 images (1600 train, 400 test), for a quick run",
    )
    p.add_argument("--C", type=float, default=1.0, help="SVM regularisation C (default 1)")
    p.add_argument(
        "--keypoints",
        choices=("dense", "detect"),
        default="dense",
        help="SIFT on a dense grid (default) or at detected keypoints with a grid fallback",
    )
    p.add_argument(
        "--no-power-normalize",
        action="store_true",
        help="leave out the signed square root (L2 normalisation stays)",
    )
    p.add_argument(
        "--max-gmm-sets",
        type=int,
        default=None,
        help="fit the PCA and the GMM on this many training images only (default: all)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the split and the GMM (default 0)")
    p.add_argument(
        "--n-jobs",
        type=int,
        default=None,
        help="threads for the Fisher vectors (default: as many as BLAS uses)",
    )
    p.set_defaults(handler=_cmd_fisher_mnist)


def _check_args(args: argparse.Namespace) -> None:

    if args.n_components < 1:
        raise UsageError(f"-k/--n-components must be >= 1, got {args.n_components}")
    if not 0 <= args.pca_components <= SIFT_WIDTH:
        raise UsageError(
            f"-f/--pca-components must be in 0..{SIFT_WIDTH} (SIFT descriptors have "
            f"{SIFT_WIDTH} dimensions; 0: no PCA), got {args.pca_components}"
        )
    if not args.C > 0 or args.C == float("inf"):
        raise UsageError(f"--C must be finite and > 0, got {args.C}")
    if args.max_gmm_sets is not None and args.max_gmm_sets < 1:
        raise UsageError(f"--max-gmm-sets must be >= 1, got {args.max_gmm_sets}")
    if args.n_jobs is not None and (args.n_jobs == 0 or args.n_jobs < -1):
        raise UsageError(f"--n-jobs must be -1 or a positive integer, got {args.n_jobs}")
    if not 0 <= args.seed < 2**32:
        raise UsageError(f"--seed must be in 0..2**32 - 1, got {args.seed}")


def _cmd_fisher_mnist(args: argparse.Namespace) -> int:
    from kernelkit._progress import format_seconds

    _check_args(args)
    import numpy as np

    from kernelkit.datasets import load_mnist
    from kernelkit.features.descriptors import SIFTDescriptors, extract_descriptors
    from kernelkit.features.image_classification import classify_fisher_vectors, split_images

    t0 = time.perf_counter()
    images, labels = load_mnist()
    train, test = split_images(labels, small=args.small, random_state=args.seed)
    t_load = time.perf_counter() - t0
    print(
        f"fisher-mnist: {len(train)} training and {len(test)} test images "
        f"({'--small subset of ' if args.small else ''}the MNIST test set, stratified, "
        f"seed {args.seed})"
    )
    print(f"  load and split      {format_seconds(t_load):>8}")
    descriptor = SIFTDescriptors(keypoints=args.keypoints)
    t0 = time.perf_counter()
    used = np.concatenate([train, test])
    sets = extract_descriptors(images[used], descriptor, progress=True)
    t_desc = time.perf_counter() - t0
    by_index = dict(zip(used.tolist(), sets, strict=True))
    sizes = np.array([len(s) for s in sets])
    print(
        f"  descriptors         {format_seconds(t_desc):>8}   {args.keypoints} SIFT, "
        f"{sizes.mean():.1f} per image (min {sizes.min()}), D={SIFT_WIDTH}"
    )
    f = args.pca_components or None
    try:
        result = classify_fisher_vectors(
            [by_index[i] for i in train.tolist()],
            labels[train],
            [by_index[i] for i in test.tolist()],
            labels[test],
            n_components=args.n_components,
            pca_components=f,
            power_normalize=not args.no_power_normalize,
            C=args.C,
            max_gmm_sets=args.max_gmm_sets,
            random_state=args.seed,
            n_jobs=args.n_jobs,
        )
    except ValueError as exc:  # e.g. K larger than the number of descriptors
        raise UsageError(str(exc)) from None
    t = result.timings
    dims = f"K={result.n_components}, f={f or SIFT_WIDTH}"
    print(f"  PCA + GMM fit       {format_seconds(t['gmm']):>8}   {dims}")
    print(
        f"  Fisher vectors      {format_seconds(t['encode']):>8}   length {result.vector_length}, "
        f"power normalisation {'off' if args.no_power_normalize else 'on'}, L2"
    )
    print(
        f"  train 10 SVMs       {format_seconds(t['train']):>8}   one-vs-rest LinearSVC, "
        f"C={args.C:g}"
    )
    print(f"  predict             {format_seconds(t['predict']):>8}")
    print(f"accuracy {100 * result.accuracy:.1f}%")
    return 0
