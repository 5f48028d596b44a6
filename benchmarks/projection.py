"""Johnson–Lindenstrauss projections: kernelkit vs scikit-learn's random projections.

n = 10000 points in d = 4096 dimensions projected to m = 512. kernelkit's couplings ``iid``
(Gaussian), ``orthogonal`` (G_ort), ``hadamard`` (OJLT with k = 3 Hadamard–Rademacher
blocks), ``hybrid`` (complex), ``sparse`` (density 1/sqrt(d)) and ``fjlt`` against scikit-learn's
``GaussianRandomProjection`` and ``SparseRandomProjection`` (density 1/sqrt(d)). Timed:
``transform`` (the matrices are drawn once, before). Quality: relative error of the
pairwise squared distances of 300 sampled points, ``|f(x)-f(y)|^2 / |x-y|^2 - 1``
(RMS and max over the 44850 pairs; for ``hybrid`` via ``estimate_inner``). The headline
``ratio`` is scikit-learn's Gaussian projection over kernelkit's ``hadamard``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.random_projection import GaussianRandomProjection, SparseRandomProjection

sys.path.insert(0, str(Path(__file__).parent))
from _common import alternate, parser, peak_rss_mb, result_line

from kernelkit.features import PROJECTION_COUPLINGS, RandomProjection


def distortion(F: np.ndarray, X: np.ndarray, idx: np.ndarray) -> tuple[float, float]:
    iu = np.triu_indices(idx.size, k=1)

    def sq(G: np.ndarray) -> np.ndarray:
        g = np.diag(G)
        return (g[:, None] + g[None, :] - 2 * G)[iu]

    Xs, Fs = X[idx], F[idx]
    est = sq(RandomProjection.inner(Fs, Fs))
    rel = est / sq(Xs @ Xs.T) - 1.0
    return float(np.sqrt(np.mean(rel**2))), float(np.max(np.abs(rel)))


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--n", type=int, default=10000)
    p.add_argument("--d", type=int, default=4096)
    p.add_argument("--n-components", type=int, default=512, help="output width m")
    args = p.parse_args()
    n, d, m = (2000, 1024, 128) if args.quick else (args.n, args.d, args.n_components)
    rng = np.random.RandomState(12345)
    X = rng.randn(n, d) * (1.0 + rng.rand(d))  # unequal coordinate scales
    ours = {
        coupling: RandomProjection(m, coupling=coupling, random_state=0).fit(X)
        for coupling in PROJECTION_COUPLINGS
    }
    peers = {
        "sk_gaussian": GaussianRandomProjection(m, random_state=0).fit(X),
        "sk_sparse": SparseRandomProjection(m, density="auto", random_state=0).fit(X),
    }
    contenders = {k: (lambda e=e: e.transform(X)) for k, e in {**ours, **peers}.items()}
    times, out = alternate(contenders, args.repeats)
    idx = np.random.RandomState(1).choice(n, 300, replace=False)
    print(f"n={n} d={d} n_components={m}")
    print(
        f"{'':12s} {'time s':>8s} {'vs sk_gauss':>11s} {'param bytes':>12s} "
        f"{'RMS rel err':>11s} {'max rel err':>11s}"
    )
    nbytes = {k: e.n_parameter_bytes_ for k, e in ours.items()}
    nbytes["sk_gaussian"] = peers["sk_gaussian"].components_.nbytes
    C = peers["sk_sparse"].components_
    nbytes["sk_sparse"] = C.data.nbytes + C.indices.nbytes + C.indptr.nbytes
    errs = {}
    for k in contenders:
        F = out[k].toarray() if hasattr(out[k], "toarray") else out[k]
        errs[k] = distortion(F, X, idx)
        print(
            f"{k:12s} {times[k]:8.3f} {times['sk_gaussian'] / times[k]:11.2f} "
            f"{nbytes[k]:12d} {errs[k][0]:11.4f} {errs[k][1]:11.4f}"
        )
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    print(
        result_line(
            "projection",
            times["sk_gaussian"] / times["hadamard"],
            times["hadamard"],
            times["sk_gaussian"],
            ratio_vs_sk_sparse=times["sk_sparse"] / times["hadamard"],
            ratio_sparse_vs_sk_sparse=times["sk_sparse"] / times["sparse"],
            ratio_iid_vs_sk_gaussian=times["sk_gaussian"] / times["iid"],
            rms_err_ours=errs["hadamard"][0],
            rms_err_sk_gaussian=errs["sk_gaussian"][0],
            rms_err_sk_sparse=errs["sk_sparse"][0],
            n=n,
            d=d,
            n_components=m,
        )
    )


if __name__ == "__main__":
    main()
