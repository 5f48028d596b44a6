"""Weisfeiler–Lehman subtree kernel: kernelkit vs GraKeL on NCI1 (4110 graphs).

Both compute the normalised WL subtree kernel over iterations 0..5 with the vertex
histogram as base kernel: kernelkit ``WeisfeilerLehman(n_iter=5)`` and GraKeL
``WeisfeilerLehman(n_iter=5, base_graph_kernel=VertexHistogram, normalize=True)`` (GraKeL
sets ``_n_iter = n_iter + 1`` histograms, i.e. iterations 0..5 too; the Gram matrices are
compared entrywise). GraKeL's input (``grakel.graph_from_networkx``) is built *outside* the
timed region; kernelkit (``wl_kernel(graphs, n_iter=5)``) is timed from the networkx graphs,
parsing included. Both return the dense normalised Gram matrix.

Then the features alone are timed on the dataset repeated 10 times (41100 graphs) to show
that their cost is linear in the number of graphs (the Gram matrix, quadratic, is skipped
there: 41100^2 doubles are 13.5 GB).

``--quick`` runs MUTAG (188 graphs) only.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import alternate, parser, peak_rss_mb, result_line

from kernelkit.datasets import load_tu
from kernelkit.graphs import WeisfeilerLehman, gram, wl_kernel


def main() -> None:
    p = parser(__doc__, repeats=5)  # GraKeL's own time varies about 2x between runs
    p.add_argument("--n-iter", type=int, default=5, help="WL iterations n_iter (default 5)")
    p.add_argument("--scale", type=int, default=10, help="repeat factor for the scaling run")
    args = p.parse_args()
    from grakel import graph_from_networkx
    from grakel.kernels import VertexHistogram
    from grakel.kernels import WeisfeilerLehman as GraKeLWL

    name = "MUTAG" if args.quick else "NCI1"
    graphs, _ = load_tu(name)
    t0 = time.perf_counter()
    grakel_input = list(graph_from_networkx(graphs, node_labels_tag="label"))
    convert_s = time.perf_counter() - t0
    print(f"{name}: {len(graphs)} graphs; GraKeL input conversion {convert_s:.2f} s (untimed)")

    def ours() -> np.ndarray:
        return wl_kernel(graphs, n_iter=args.n_iter)  # normalised, iterations 0..n_iter

    def peer() -> np.ndarray:
        wl = GraKeLWL(n_iter=args.n_iter, base_graph_kernel=VertexHistogram, normalize=True)
        return wl.fit_transform(grakel_input)

    times, out = alternate({"kernelkit": ours, "grakel": peer}, args.repeats)
    K = out.pop("kernelkit")
    err = float(np.max(np.abs(K - out.pop("grakel"))))

    t0 = time.perf_counter()
    X = WeisfeilerLehman(args.n_iter, normalize=False).fit_transform(graphs)
    feat_1 = time.perf_counter() - t0
    t0 = time.perf_counter()
    gram(X)
    gram_1 = time.perf_counter() - t0
    print(f"kernelkit split: features {feat_1:.3f} s + Gram matrix of raw counts {gram_1:.3f} s")
    t0 = time.perf_counter()
    via_rows = gram(WeisfeilerLehman(args.n_iter, normalize=True).fit_transform(graphs))
    rows_s = time.perf_counter() - t0
    rows_err = float(np.max(np.abs(via_rows - K)))
    del via_rows, K
    print(
        f"transformer route (unit-norm rows, then X @ X.T): {rows_s:.3f} s, "
        f"max |difference| {rows_err:.1e}"
    )
    for who, t in times.items():
        print(f"{who:10s} {t:8.3f} s (median of {args.repeats})")
    print(f"max |K_kernelkit - K_grakel| = {err:.2e}")

    scaling = {}
    if not args.quick:
        big = graphs * args.scale
        feats = {}
        for label, data in (("1x", graphs), (f"{args.scale}x", big)):
            runs = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                WeisfeilerLehman(args.n_iter, normalize=True).fit_transform(data)
                runs.append(time.perf_counter() - t0)
            feats[label] = float(np.median(runs))
            print(f"features on {label} {name} ({len(data)} graphs): {feats[label]:.3f} s")
        growth = feats[f"{args.scale}x"] / feats["1x"]
        print(
            f"feature time grows {growth:.1f}x for {args.scale}x the graphs (linear: {args.scale})"
        )
        scaling = {
            "features_1x_s": feats["1x"],
            "features_scaled_s": feats[f"{args.scale}x"],
            "scale_growth": growth,
        }
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    print(
        result_line(
            "wl",
            times["grakel"] / times["kernelkit"],
            times["kernelkit"],
            times["grakel"],
            dataset=name,
            n_iter=args.n_iter,
            max_abs_diff=err,
            **scaling,
        )
    )


if __name__ == "__main__":
    main()
