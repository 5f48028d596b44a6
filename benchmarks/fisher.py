"""Fisher vectors of many descriptor sets: kernelkit vs scikit-image, same mixture, same process.

N = 10000 synthetic sets (``--quick``: 1000) of about 100 descriptors of width D = 64, the
set sizes drawn from Poisson(100) and clipped to at least 1, the descriptors from a random
64-component diagonal Gaussian mixture whose means lie close together (so that the
posteriors of a fitted mixture are soft, not one-hot; the mean largest posterior is
printed), all from a seeded ``numpy.random.Generator``. One
``sklearn.mixture.GaussianMixture(n_components=64, covariance_type="diag", random_state=0)``
is fitted on 20000 of the descriptors (not timed; on one BLAS thread) and goes to both sides:

* kernelkit: ``FisherVectorEncoder(64, include_weights=True, gmm=FrozenEstimator(gmm),
  power_normalize=True, l2_normalize=True).fit_transform(sets)``, timed as a whole (``fit``
  with a given mixture only checks it and the sets), with the default ``n_jobs`` (as many
  threads as BLAS uses) and with ``n_jobs=1``;
* scikit-image: ``np.stack([fisher_vector(s, gmm, improved=True) for s in sets])``, one
  call per set, as its API takes one set at a time.

Both give the "improved" Fisher vector (weights, means, variances; signed square root, then
L2 normalisation). scikit-image's variance block has the opposite sign (see the Notes of
``kernelkit.features.FisherVectorEncoder``), so our columns ``K + K*D`` onward are negated
before the comparison; the script aborts if the largest absolute difference is 1e-8 or more.

The sets are float64 arrays built before timing. Runs alternate (ours, peer, ours, ...) after
a warm-up of each on 50 sets; the median time per library is reported, with the load average
before the timed runs (other processes slow both sides on this shared 2-core machine). Our
time is also split into the posteriors (``gmm.predict_proba`` on all stacked descriptors)
and the rest (stacking, per-set sums, normalisation), each timed once more on its own. The
last line is ``RESULT fisher ratio=<peer_s / ours_s> ours_s=.. peer_s=.. max_abs_diff=..``.

Usage: ``python benchmarks/fisher.py [--quick] [--repeats R]``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
from skimage.feature import fisher_vector
from sklearn.frozen import FrozenEstimator
from sklearn.mixture import GaussianMixture
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from _common import alternate, parser, peak_rss_mb, result_line

from kernelkit.features import FisherVectorEncoder

D = 64  # descriptor width
K = 64  # mixture components, of the data and of the fitted mixture
MEAN_T = 100  # the mean set size
N_FIT = 20000  # descriptors the mixture is fitted on
TOL = 1e-8  # largest accepted |ours - skimage| after the sign flip of the variance block


def make_sets(n_sets: int, seed: int = 0) -> list[np.ndarray]:
    """``n_sets`` float64 arrays of shape (T_i, D), T_i ~ Poisson(100) clipped to >= 1.

    The descriptors come from a K-component diagonal mixture with means of scale 0.1
    around an offset of 1 and standard deviations in [0.5, 1.5]: the components overlap,
    so a fitted mixture gives soft posteriors.
    """
    rng = np.random.default_rng(seed)
    means = 1.0 + rng.normal(scale=0.1, size=(K, D))
    sds = rng.uniform(0.5, 1.5, size=(K, D))
    weights = rng.dirichlet(np.full(K, 5.0))
    lengths = np.maximum(rng.poisson(MEAN_T, size=n_sets), 1)
    labels = rng.choice(K, size=int(lengths.sum()), p=weights)
    Z = means[labels] + sds[labels] * rng.standard_normal((labels.size, D))
    return np.split(Z, np.cumsum(lengths)[:-1])


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    args = p.parse_args()
    n_sets = 1000 if args.quick else 10000
    sets = make_sets(n_sets)
    lengths = np.array([len(s) for s in sets])
    Z = np.concatenate(sets)
    sample = np.random.default_rng(1).choice(Z.shape[0], size=min(N_FIT, Z.shape[0]), replace=False)
    t0 = time.perf_counter()
    with threadpool_limits(1):  # untimed; two BLAS threads on a busy 2-core machine take 10x longer
        gmm = GaussianMixture(n_components=K, covariance_type="diag", random_state=0)
        gmm.fit(Z[sample])
    fit_s = time.perf_counter() - t0
    top = gmm.predict_proba(Z[sample]).max(axis=1)
    print(
        f"{n_sets} sets, T mean {lengths.mean():.1f} (min {lengths.min()}, max {lengths.max()}), "
        f"D={D}, K={K}; {Z.shape[0]} descriptors"
    )
    print(
        f"GaussianMixture fitted on {sample.size} descriptors in {fit_s:.1f} s (untimed), "
        f"{gmm.n_iter_} EM iterations; mean largest posterior {top.mean():.3f} "
        f"(median {np.median(top):.3f})"
    )

    def ours(data: list[np.ndarray] = sets, n_jobs: int | None = None) -> np.ndarray:
        enc = FisherVectorEncoder(
            K,
            include_weights=True,
            gmm=FrozenEstimator(gmm),
            power_normalize=True,
            l2_normalize=True,
            n_jobs=n_jobs,
        )
        return enc.fit_transform(data)

    def ours_one_thread(data: list[np.ndarray] = sets) -> np.ndarray:
        return ours(data, n_jobs=1)

    def peer(data: list[np.ndarray] = sets) -> np.ndarray:
        return np.stack([fisher_vector(s, gmm, improved=True) for s in data])

    ours(sets[:50])  # warm-up: imports, code paths, thread pools
    peer(sets[:50])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    times, out = alternate(
        {"kernelkit": ours, "kernelkit n_jobs=1": ours_one_thread, "skimage": peer}, args.repeats
    )
    ref = out.pop("skimage")
    err = 0.0
    for V in out.values():
        V[:, K + K * D :] *= -1.0  # scikit-image's variance block has the opposite sign
        err = max(err, float(np.max(np.abs(V - ref))))
    del V, ref, out
    if not err < TOL:
        raise SystemExit(f"error: max |ours - skimage| = {err:.3e} is not below {TOL:g}")

    t_ours, t_peer = times["kernelkit"], times["skimage"]
    print(f"load average before the timed runs: {load:.2f} on {os.cpu_count()} cores")
    print(
        f"{'N':>6} {'T mean':>7} {'D':>4} {'K':>4} {'ours_s':>9} {'peer_s':>9} {'ratio':>7} "
        f"(median of {args.repeats})"
    )
    print(
        f"{n_sets:>6} {lengths.mean():>7.1f} {D:>4} {K:>4} {t_ours:>9.3f} {t_peer:>9.3f} "
        f"{t_peer / t_ours:>7.2f}"
    )
    t_one = times["kernelkit n_jobs=1"]
    print(f"kernelkit with n_jobs=1 (one thread): {t_one:.3f} s, ratio {t_peer / t_one:.2f}")
    print(f"max |ours - skimage| (variance block sign-flipped) = {err:.2e}")
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    print(
        result_line(
            "fisher",
            t_peer / t_ours,
            t_ours,
            t_peer,
            ratio_one_thread=round(t_peer / t_one, 2),
            max_abs_diff=err,
            n_sets=n_sets,
        )
    )


if __name__ == "__main__":
    main()
