"""RBF Gram matrix: kernelkit vs scikit-learn's ``rbf_kernel`` and the dense-product ceiling.

n x n Gram matrix of n points in d dimensions (default n = 20000, d = 50). The ceiling is
one dense matrix product ``X @ X.T`` of the same shape, which any distance-based kernel
needs; the target is to match scikit-learn (ratio >= 1) and stay within 2x of the ceiling.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel

sys.path.insert(0, str(Path(__file__).parent))
from _common import alternate, parser, peak_rss_mb, result_line

from kernelkit.kernels import RBF


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--d", type=int, default=50)
    args = p.parse_args()
    n = 4000 if args.quick else args.n
    X = np.random.RandomState(0).randn(n, args.d)
    ls = np.sqrt(args.d)
    k = RBF(lengthscale=ls)
    times, out = alternate(
        {
            "kernelkit": lambda: k(X),
            "sklearn": lambda: rbf_kernel(X, gamma=1.0 / (2 * ls**2)),
            "matmul": lambda: X @ X.T,
        },
        args.repeats,
    )
    err = float(np.max(np.abs(out["kernelkit"] - out["sklearn"])))
    for name, t in times.items():
        print(f"{name:10s} {t:8.3f} s")
    print(f"max |K_kernelkit - K_sklearn| = {err:.2e}; peak RSS {peak_rss_mb():.0f} MB")
    print(f"kernelkit / matmul ceiling = {times['kernelkit'] / times['matmul']:.2f}x")
    print(
        result_line(
            "gram",
            times["sklearn"] / times["kernelkit"],
            times["kernelkit"],
            times["sklearn"],
            n=n,
            d=args.d,
            vs_ceiling=times["kernelkit"] / times["matmul"],
            max_abs_diff=err,
        )
    )


if __name__ == "__main__":
    main()
