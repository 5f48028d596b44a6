"""Simulated GP learning curves on random graphs: kernelkit vs a per-data-set Cholesky peer.

The Bayes error ``epsilon(nu)`` of GP regression on the vertices of random 3-regular
graphs (Urry & Sollich 2013, eqs. 10-12): V = 500 vertices (``--quick``: 200), random
walk kernel ``a = 2, p = 10`` with global normalisation, noise ``sigma^2 = 0.01``, 20
values of ``nu`` log-spaced from 0.01 to 10 (``--quick``: 8), ``--graphs`` graphs and
``--datasets`` data sets per graph and ``nu`` (default 2 and 2: the peer needs about
2 s per data set at V = 500, so the paper's 10 x 10 would take minutes per run).

* kernelkit: ``learning_curves.simulate(ensemble, kernel, noise, nus, n_graphs=,
  n_datasets=, random_state=0)`` with its default ``n_jobs``; it works with the ``m x m``
  block of the vertices that hold examples (``m <= V``).
* peer: what a researcher would write from the textbook (no library computes this): for
  each graph the same kernel matrix ``C``; for each ``nu`` and data set the inputs ``X``
  are the observed vertices with repeats (one row per example, ``N = nu V`` of them),
  ``K = C[X][:, X] + sigma^2 I``, ``L = cho_factor(K)``, and the posterior variance
  ``diag(C) - sum((L^{-1} C[:, X]^T)^2, axis=0)`` (``scipy.linalg.solve_triangular``),
  averaged over the vertices: an ``N x N`` factorisation with ``N`` up to 5000.

Both sides see the same graphs and the same counts: the peer re-derives them exactly as
``simulate`` does (``RandomState(0).randint(0, 2**32 - 1, size=(n_graphs, 2))`` gives each
graph a seed for ``random_regular_graph`` and one for a ``RandomState`` whose
``poisson(nus[None, :, None], size=(n_datasets, n_nus, V))`` are the counts). Both time the
whole job, graph generation and the kernel matrices included (the same calls on both
sides; they are a small part). The per-data-set errors of the two are compared; the script
aborts if the largest absolute difference is 1e-10 or more.

Runs alternate (ours, peer, ...) after a warm-up of each on one graph, one data set and
three values of ``nu``; the median time is reported with the load average before the timed
runs (the machine is shared). The last line is ``RESULT simulation ratio=<peer_s / ours_s>
ours_s=.. peer_s=.. max_abs_diff=..``.

Usage: ``python benchmarks/simulation.py [--quick] [--repeats R] [--graphs G] [--datasets S]``.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import numpy as np
from scipy.linalg import cho_factor, solve_triangular

sys.path.insert(0, str(Path(__file__).parent))
from _common import alternate, parser, peak_rss_mb, result_line

from kernelkit.graphs import random_walk_kernel
from kernelkit.graphs.ensembles import random_regular_graph
from kernelkit.learning_curves import simulate

A, P, NOISE, DEGREE = 2.0, 10, 0.01, 3
SEED = 0
TOL = 1e-10  # largest accepted |ours - peer| of a per-data-set error


def peer_simulate(
    n_vertices: int, nus: np.ndarray, n_graphs: int, n_datasets: int, seed: int
) -> np.ndarray:
    """Per-data-set Bayes errors, shape (n_graphs, n_datasets, n_nus), the textbook way."""
    rng = np.random.RandomState(seed)  # the same streams as simulate(random_state=seed)
    seeds = rng.randint(0, 2**32 - 1, size=(n_graphs, 2), dtype=np.int64)
    errors = np.empty((n_graphs, n_datasets, nus.size))
    for g in range(n_graphs):
        graph = random_regular_graph(DEGREE, n_vertices, random_state=int(seeds[g, 0]))
        C = random_walk_kernel(graph, A, P, normalize="global")
        counts = np.random.RandomState(int(seeds[g, 1])).poisson(
            nus[None, :, None], size=(n_datasets, nus.size, n_vertices)
        )
        prior = np.diag(C)
        for s in range(n_datasets):
            for k in range(nus.size):
                X = np.repeat(np.arange(n_vertices), counts[s, k])  # one entry per example
                if X.size == 0:
                    errors[g, s, k] = prior.mean()
                    continue
                K = C[np.ix_(X, X)]
                K[np.diag_indices_from(K)] += NOISE
                L, _ = cho_factor(K, lower=True, overwrite_a=True, check_finite=False)
                W = solve_triangular(L, C[:, X].T, lower=True, check_finite=False)
                errors[g, s, k] = np.mean(prior - np.sum(W * W, axis=0))
    return errors


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--graphs", type=int, default=2, help="graphs drawn (default 2)")
    p.add_argument("--datasets", type=int, default=2, help="data sets per graph and nu")
    args = p.parse_args()
    n_vertices = 200 if args.quick else 500
    nus = np.logspace(-2, 1, 8 if args.quick else 20)
    n_graphs, n_datasets = args.graphs, args.datasets

    def ours(nus: np.ndarray = nus, n_graphs: int = n_graphs, n_datasets: int = n_datasets):
        ensemble = functools.partial(random_regular_graph, DEGREE, n_vertices)
        kernel = functools.partial(random_walk_kernel, a=A, p=P, normalize="global")
        curve = simulate(
            ensemble,
            kernel,
            NOISE,
            nus,
            n_graphs=n_graphs,
            n_datasets=n_datasets,
            random_state=SEED,
        )
        return curve.errors

    def peer(nus: np.ndarray = nus, n_graphs: int = n_graphs, n_datasets: int = n_datasets):
        return peer_simulate(n_vertices, nus, n_graphs, n_datasets, SEED)

    warm = nus[[0, nus.size // 2, -1]]
    err = float(np.max(np.abs(ours(warm, 1, 1) - peer(warm, 1, 1))))  # warm-up, checked too
    load = os.getloadavg()[0]
    times, out = alternate({"kernelkit": ours, "peer": peer}, args.repeats)
    err = max(err, float(np.max(np.abs(out["kernelkit"] - out["peer"]))))
    if not err < TOL:
        raise SystemExit(f"error: max |ours - peer| = {err:.3e} is not below {TOL:g}")

    eps = out["kernelkit"].mean(axis=(0, 1))
    t_ours, t_peer = times["kernelkit"], times["peer"]
    print(
        f"random {DEGREE}-regular graphs, V={n_vertices}, a={A:g}, p={P}, sigma^2={NOISE:g}, "
        f"global normalisation; {nus.size} nu in [{nus[0]:g}, {nus[-1]:g}], "
        f"{n_graphs} graphs x {n_datasets} data sets; largest N = nu V = "
        f"{int(nus[-1] * n_vertices)}"
    )
    print(
        "epsilon(nu): "
        + ", ".join(f"{n:.3g}: {e:.4g}" for n, e in zip(nus[::4], eps[::4], strict=True))
    )
    print(f"load average before the timed runs: {load:.2f} on {os.cpu_count()} cores")
    print(
        f"{'V':>5} {'n_nu':>5} {'graphs':>6} {'sets':>5} {'ours_s':>9} {'peer_s':>9} "
        f"{'ratio':>7} {'max_abs_diff':>13} (median of {args.repeats})"
    )
    print(
        f"{n_vertices:>5} {nus.size:>5} {n_graphs:>6} {n_datasets:>5} {t_ours:>9.3f} "
        f"{t_peer:>9.3f} {t_peer / t_ours:>7.1f} {err:>13.2e}"
    )
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    print(
        result_line(
            "simulation",
            t_peer / t_ours,
            t_ours,
            t_peer,
            max_abs_diff=err,
            V=n_vertices,
            n_nus=nus.size,
            n_graphs=n_graphs,
            n_datasets=n_datasets,
        )
    )


if __name__ == "__main__":
    main()
