"""Out-of-core random-feature ridge regression on a Dask cluster (issue 17).

Data: ``n`` synthetic rows of ``d = 20`` features, generated chunk by chunk on the workers
(``dask.array.map_blocks`` with one seed per chunk: the whole ``X`` never exists anywhere),
``y = sin(x_0) + cos(x_1) x_2 + 0.1 eps``. Model: :class:`kernelkit.models.RandomFeatureRidge`
with 1024 SORF features (``coupling="hadamard"``) of an RBF kernel; ``fit`` on dask arrays
is a blockwise tree reduction of ``Phi^T Phi`` and ``Phi^T y`` followed by one
``1024 x 1024`` solve.

Reported, each ``n`` on a fresh 2-worker ``LocalCluster`` (one thread per worker):

* rows per second of the whole fit (generation included);
* the peak resident memory of each worker process over the fit (``VmHWM`` read on the
  worker; a fresh cluster per ``n``, so the peak is this fit's): the target is the same
  peak (within 20 %) for ``n`` and ``4 n``, memory bounded by the chunk, not by ``n``;
* the single-process in-memory fit (numpy ``X``, ``y``; ``Phi`` materialised) on
  ``--n-memory`` rows with the same chunk-free code path, and the cluster's throughput on
  the same rows: the target is the cluster within 1.5x of it (the overhead of Dask).

The issue's sizes are ``n = 20 000 000`` and ``4 n``; ``--n`` sets ``n`` (the flops of
``Phi^T Phi``, ``n p^2``, make the issue's sizes take about an hour on two cores).

Run: ``python benchmarks/out_of_core.py [--n 20000000] [--chunk 100000] [--n-memory 1000000]``
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

D = 20
N_COMPONENTS = 1024
ALPHA = 1e-3
LENGTHSCALE = 2.0


def make_block(block_id: tuple[int, ...], chunk: int, rows: int, seed: int) -> np.ndarray:
    """Rows ``[i chunk, i chunk + rows)`` of ``[X | y]``, from their own seed."""
    rng = np.random.default_rng([seed, block_id[0]])
    X = rng.standard_normal((rows, D))
    y = np.sin(X[:, 0]) + np.cos(X[:, 1]) * X[:, 2] + 0.1 * rng.standard_normal(rows)
    return np.hstack([X, y[:, None]])


def synthetic(n: int, chunk: int, seed: int = 0):
    """Lazy ``X`` (n x d) and ``y`` (n,) as dask arrays, generated per chunk."""
    import dask.array as da

    chunks = (tuple(min(chunk, n - s) for s in range(0, n, chunk)), (D + 1,))

    def block(block_id=None, block_info=None):
        rows = block_info[None]["chunk-shape"][0]
        return make_block(block_id, chunk, rows, seed)

    Xy = da.map_blocks(block, chunks=chunks, dtype=np.float64, meta=np.empty((0, D + 1)))
    return Xy[:, :D], Xy[:, D]


def in_memory(n: int, chunk: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The same rows as :func:`synthetic`, as numpy arrays."""
    blocks = [
        make_block((i,), chunk, min(chunk, n - s), seed) for i, s in enumerate(range(0, n, chunk))
    ]
    Xy = np.vstack(blocks)
    return Xy[:, :D], Xy[:, D]


def model():
    from kernelkit.kernels import RBF
    from kernelkit.models import RandomFeatureRidge

    return RandomFeatureRidge(
        kernel=RBF(lengthscale=LENGTHSCALE),
        n_components=N_COMPONENTS,
        coupling="hadamard",
        alpha=ALPHA,
        random_state=0,
    )


def _peak_rss_mb() -> float:
    """This process's peak resident memory (MiB) since it started its program: ``VmHWM``
    of ``/proc/self/status`` (Linux). Not ``getrusage``'s ``ru_maxrss``, which Linux carries
    over an ``exec`` from the process that forked it: a worker spawned by a client that once
    held gigabytes would report the client's peak."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # not Linux


def on_cluster(n: int, chunk: int) -> dict:
    """Fit on a fresh 2-worker LocalCluster; rows/s and each worker's peak RSS."""
    import dask
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
        dask.config.set(scheduler=client.get),
    ):
        X, y = synthetic(n, chunk)
        base = client.run(_peak_rss_mb)
        t0 = time.perf_counter()
        m = model().fit(X, y)
        seconds = time.perf_counter() - t0
        peak = client.run(_peak_rss_mb)
        # accuracy on a fresh in-memory sample: the fit is real
        Xt, yt = in_memory(20_000, 20_000, seed=99)
        rmse = float(np.sqrt(np.mean((m.predict(Xt) - yt) ** 2)))
    return {
        "n": n,
        "seconds": seconds,
        "rows_per_s": n / seconds,
        "worker_peak_mb": sorted(peak.values()),
        "worker_start_mb": sorted(base.values()),
        "test_rmse": rmse,
    }


def single_process(n: int, chunk: int) -> dict:
    X, y = in_memory(n, chunk)
    t0 = time.perf_counter()
    m = model().fit(X, y)
    seconds = time.perf_counter() - t0
    return {"n": n, "seconds": seconds, "rows_per_s": n / seconds, "coef": m.coef_}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=20_000_000, help="rows of the smaller run")
    p.add_argument("--chunk", type=int, default=100_000, help="rows per chunk")
    p.add_argument("--n-memory", type=int, default=1_000_000, help="rows of the in-memory fit")
    p.add_argument("--quick", action="store_true", help="n = 400 000, n-memory = 200 000")
    args = p.parse_args()
    if args.quick:
        args.n, args.n_memory, args.chunk = 400_000, 200_000, 50_000
    print(f"random-feature ridge, {N_COMPONENTS} SORF features, d = {D}, chunks of {args.chunk}")
    mem = single_process(args.n_memory, args.chunk)
    same = on_cluster(args.n_memory, args.chunk)
    print(
        f"in memory, one process: n = {mem['n']:,} in {mem['seconds']:.1f} s "
        f"({mem['rows_per_s']:,.0f} rows/s)\n"
        f"2-worker cluster, same rows: {same['seconds']:.1f} s ({same['rows_per_s']:,.0f} rows/s)"
        f" -> overhead {mem['rows_per_s'] / same['rows_per_s']:.2f}x (target <= 1.5x)"
    )
    runs = [on_cluster(k * args.n, args.chunk) for k in (1, 4)]
    for r in runs:
        print(
            f"n = {r['n']:>12,}: {r['seconds']:8.1f} s, {r['rows_per_s']:>10,.0f} rows/s, "
            f"worker peak RSS {' / '.join(f'{v:.0f}' for v in r['worker_peak_mb'])} MiB, "
            f"test RMSE {r['test_rmse']:.4f}"
        )
    ratio = max(runs[1]["worker_peak_mb"]) / max(runs[0]["worker_peak_mb"])
    print(f"peak worker memory 4n / n = {ratio:.2f} (target within 1.2)")
    print(
        f"RESULT out_of_core overhead={mem['rows_per_s'] / same['rows_per_s']:.3g} "
        f"memory_ratio={ratio:.3g} rows_per_s_n={runs[0]['rows_per_s']:.4g} "
        f"rows_per_s_4n={runs[1]['rows_per_s']:.4g}"
    )


if __name__ == "__main__":
    main()
