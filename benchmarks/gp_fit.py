"""GP hyperparameter fitting: kernelkit vs scikit-learn, same data, same process.

Both maximise the log marginal likelihood of an ARD RBF kernel plus Gaussian noise with
L-BFGS-B from the same starting point (unit variance, unit lengthscales, noise 1e-2)
within the same bounds (1e-5, 1e5) on every hyperparameter, with no restarts:

* kernelkit: ``GaussianProcessRegressor(RBF(ones(d)), noise=1e-2, noise_bounds=(1e-5, 1e5))``
* scikit-learn: ``GaussianProcessRegressor(C(1.0) * RBF(ones(d)) + WhiteKernel(1e-2))``
  (its default ``alpha=1e-10`` jitter left in place).

Runs alternate (ours, peer, ours, ...) after a small warm-up fit of each, and the median
time per library is reported with kernelkit's number of likelihood evaluations and the
average number of cores other processes kept busy meanwhile (Linux; on a shared machine
multi-threaded BLAS slows down several times when cores are taken, so read the ratio with
that column). The last line is ``RESULT gp_fit ratio=<peer_s / ours_s at the largest n>
ours_s=.. peer_s=.. lml_ours=.. lml_peer=..``.

Usage: ``python benchmarks/gp_fit.py [--quick] [--repeats R]``.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, result_line

from kernelkit.kernels import RBF
from kernelkit.models import GaussianProcessRegressor

D = 5
BOUNDS = (1e-5, 1e5)


def _cpu_snapshot() -> tuple[float, float] | None:
    """(busy CPU-seconds of the whole machine, CPU-seconds of this process); Linux only."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(v) for v in f.readline().split()[1:9]]
    except OSError:
        return None
    busy = (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")
    t = os.times()
    return busy, t.user + t.system


def other_load(start: tuple[float, float] | None, wall: float) -> str:
    """Average number of cores other processes kept busy since ``start``."""
    end = _cpu_snapshot()
    if start is None or end is None or wall <= 0:
        return "n/a"
    return f"{max(0.0, (end[0] - start[0]) - (end[1] - start[1])) / wall:.2f}"


def make_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """5-D inputs, a target that depends on the first three features, noise sd 0.1."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(0.0, 1.0, size=(n, D))
    y = np.sin(3.0 * X[:, 0]) + X[:, 1] ** 2 - 0.5 * np.cos(2.0 * X[:, 2])
    return X, y + 0.1 * rng.randn(n)


def fit_ours(X: np.ndarray, y: np.ndarray) -> tuple[float, float, int]:
    gp = GaussianProcessRegressor(RBF(lengthscale=np.ones(D)), noise=1e-2, noise_bounds=BOUNDS)
    t0 = time.perf_counter()
    gp.fit(X, y)
    elapsed = time.perf_counter() - t0
    return elapsed, gp.log_marginal_likelihood_value_, int(gp.optimizer_result_.nfev)


def fit_peer(X: np.ndarray, y: np.ndarray) -> tuple[float, float, int]:
    kernel = ConstantKernel(1.0, BOUNDS) * SkRBF(np.ones(D), BOUNDS) + WhiteKernel(1e-2, BOUNDS)
    gp = SkGPR(kernel)
    t0 = time.perf_counter()
    gp.fit(X, y)
    elapsed = time.perf_counter() - t0
    return elapsed, gp.log_marginal_likelihood_value_, -1


def main() -> None:
    p = parser(__doc__.splitlines()[0])  # --quick: n = 500 only
    p.add_argument(
        "--peer-repeats-large",
        type=int,
        default=1,
        help="repeats of scikit-learn at n >= 2000 (it takes ~30 s per fit)",
    )
    args = p.parse_args()
    sizes = [500] if args.quick else [500, 2000]
    print(f"GP fit, d={D}, ARD RBF + noise, L-BFGS-B from the same start, no restarts")
    print(f"cores: {os.cpu_count()}; 'other' = cores kept busy by other processes meanwhile")
    print(
        f"{'n':>6} {'ours_s':>9} {'peer_s':>9} {'ratio':>7} {'lml_ours':>15} "
        f"{'lml_peer':>15} {'evals':>6} {'other':>6}"
    )
    with warnings.catch_warnings():  # warm-up: imports, thread pools, code paths
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit_ours(*make_data(100))
        fit_peer(*make_data(100))
    row = None
    for n in sizes:
        X, y = make_data(n)
        r_ours = args.repeats
        r_peer = args.peer_repeats_large if n >= 2000 else args.repeats
        ours: list[tuple[float, float, int]] = []
        peer: list[tuple[float, float, int]] = []
        start, t0 = _cpu_snapshot(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for i in range(max(r_ours, r_peer)):  # alternate the two libraries
                if i < r_ours:
                    ours.append(fit_ours(X, y))
                if i < r_peer:
                    peer.append(fit_peer(X, y))
        load = other_load(start, time.perf_counter() - t0)
        t_ours = float(np.median([r[0] for r in ours]))
        t_peer = float(np.median([r[0] for r in peer]))
        lml_ours, lml_peer = ours[0][1], peer[0][1]
        row = (t_peer / t_ours, t_ours, t_peer, lml_ours, lml_peer)
        print(
            f"{n:>6} {t_ours:>9.3f} {t_peer:>9.3f} {t_peer / t_ours:>7.2f} "
            f"{lml_ours:>15.6f} {lml_peer:>15.6f} {ours[0][2]:>6} {load:>6}"
        )
    assert row is not None
    ratio, t_ours, t_peer, lml_ours, lml_peer = row
    # the likelihoods as text, so that they keep their six decimals
    print(
        result_line(
            "gp_fit", ratio, t_ours, t_peer, lml_ours=f"{lml_ours:.6f}", lml_peer=f"{lml_peer:.6f}"
        )
    )


if __name__ == "__main__":
    main()
