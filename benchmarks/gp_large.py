"""Exact GPs past 10^4 points on one machine: the matrix-free GP (``solver="cg"``) against the
Cholesky GP where it fits, and the preconditioners against each other.

Modes (``--mode``):

* ``agreement`` — n = 10^4 synthetic points (d = 5, RBF ARD, hyperparameters fixed at those
  of a Cholesky fit on 2000 of them), 2000 test points: the CG GP at ``tol`` (1e-4) against
  the Cholesky GP on the same hyperparameters. Reported: the largest difference of the
  predictive means over ``std(y)``, the largest relative difference of the latent
  variances, and the relative difference of the log marginal likelihood, averaged over
  ``--probe-seeds`` (10) probe sets; times and passes over ``K``.
* ``preconditioners`` — on split 0 of each UCI regression set (inputs and targets
  standardised on the training part, RBF ARD with the hyperparameters of a Cholesky fit on
  2000 training rows): CG iterations to a relative residual of 1e-4 for ``K_y a = y`` with
  a pivoted Cholesky, a uniform Nyström and a random-feature preconditioner of the same
  memory (``n x rank`` floats each: ``rank`` columns), and with none.

Usage: ``python benchmarks/gp_large.py --mode agreement [--n 10000]`` or
``python benchmarks/gp_large.py --mode preconditioners [--rank 100] [--datasets pol,..]``.
The last line is ``RESULT gp_large ...``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, result_line

from kernelkit.datasets import UCI_REGRESSION_DATASETS, load_uci_regression
from kernelkit.kernels import RBF
from kernelkit.linalg import (
    KernelOperator,
    Nystrom,
    PivotedCholesky,
    RandomFeaturePreconditioner,
    mbcg,
)
from kernelkit.models import GaussianProcessRegressor
from kernelkit.models._gp_krylov import krylov_likelihood


def _subset_fit(X: np.ndarray, y: np.ndarray, m: int, seed: int) -> GaussianProcessRegressor:
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(X), min(m, len(X)), replace=False)
    gp = GaussianProcessRegressor(RBF(lengthscale=np.ones(X.shape[1])), solver="cholesky")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return gp.fit(X[idx], y[idx])


def agreement(n: int, probe_seeds: int, tol: float) -> dict[str, float]:
    rng = np.random.default_rng(0)
    d = 5
    X = rng.uniform(-3, 3, (n + 2000, d))
    y = np.sin(X).sum(1) + 0.1 * rng.standard_normal(n + 2000)
    X, Xt, y = X[:n], X[n:], y[:n]
    y = (y - y.mean()) / y.std()
    sub = _subset_fit(X, y, 2000, 1)
    kernel, noise = sub.kernel_, sub.noise_
    print(f"hyperparameters from 2000 points: {kernel!r}, noise {noise:.4g}")
    t0 = time.perf_counter()
    dense = GaussianProcessRegressor(kernel, noise=noise, optimizer=None, solver="cholesky")
    dense.fit(X, y)
    m0, s0 = dense.predict(Xt, return_std=True)
    t_dense = time.perf_counter() - t0
    lml0 = dense.log_marginal_likelihood_value_
    t0 = time.perf_counter()
    it = GaussianProcessRegressor(
        kernel, noise=noise, optimizer=None, solver="cg", tol=tol, random_state=0
    ).fit(X, y)
    m1, s1 = it.predict(Xt, return_std=True)
    t_cg = time.perf_counter() - t0
    passes, iters, love = it.n_kernel_passes_, it.n_iter_, it.love_
    # the stochastic LML with other probe sets (what fit computes, without its LOVE cache)
    lmls = [it.log_marginal_likelihood_value_]
    for seed in range(1, probe_seeds):
        W = np.random.default_rng(seed).choice([-1.0, 1.0], size=(n, it.n_probes))
        est = krylov_likelihood(
            KernelOperator(kernel, X, noise),
            y,
            W,
            it.preconditioner_,
            fit_noise=False,
            eval_gradient=False,
            tol=tol,
            max_iter=1000,
        )
        lmls.append(est.value)
    mean_err = float(np.max(np.abs(m1 - m0)) / np.std(y))
    var_err = float(np.max(np.abs(s1**2 - s0**2) / s0**2))
    lml_err = float(abs(np.mean(lmls) - lml0) / abs(lml0))
    print(
        f"n = {n}, tol = {tol}: Cholesky fit+predict {t_dense:.1f} s; CG {t_cg:.1f} s "
        f"({passes} passes over K, {iters} CG iterations, LOVE {love.n_iter} steps, "
        f"measured variance error {love.error:.2e})"
    )
    print(f"  max |mean difference| / std(y) = {mean_err:.2e}   (target 1e-4)")
    print(f"  max relative variance difference = {var_err:.2e}   (target 1e-2)")
    print(
        f"  LML: Cholesky {lml0:.6f}, CG mean of {probe_seeds} probe sets {np.mean(lmls):.6f} "
        f"(sd {np.std(lmls):.3g}); relative difference {lml_err:.2e}   (target 1e-3)"
    )
    return {
        "mean_err": mean_err,
        "var_err": var_err,
        "lml_err": lml_err,
        "ours_s": t_cg,
        "peer_s": t_dense,
    }


def preconditioners(names: list[str], rank: int) -> dict[str, float]:
    wins = 0
    for name in names:
        data = load_uci_regression(name, split=0, standardize=True)
        X, y = data.X_train, data.y_train
        sub = _subset_fit(X, y, 2000, 0)
        kernel, noise = sub.kernel_, sub.noise_
        op = KernelOperator(kernel, X, noise)
        row = {}
        for label, pre in [
            ("none", None),
            ("pivoted_cholesky", PivotedCholesky(rank=rank)),
            ("nystrom", Nystrom(rank=rank, random_state=0)),
            ("random_features", RandomFeaturePreconditioner(n_components=rank, random_state=0)),
        ]:
            t0 = time.perf_counter()
            M = None if pre is None else pre.fit(kernel, X, noise)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                res = mbcg(op.matmat, y, preconditioner=M, tol=1e-4, max_iter=400)
            row[label] = (res.n_iter, res.converged, time.perf_counter() - t0)
        wins += row["random_features"][0] <= row["pivoted_cholesky"][0]
        cells = "  ".join(f"{k} {v[0]}{'' if v[1] else '+'} ({v[2]:.0f} s)" for k, v in row.items())
        print(f"{name:13s} n={len(X):6d} d={X.shape[1]:2d} noise={noise:.3g}: {cells}", flush=True)
    print(
        f"random features needed no more iterations than pivoted Cholesky on {wins} of "
        f"{len(names)} sets ('+': not converged within 400)"
    )
    return {"rf_wins": wins}


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--mode", choices=("agreement", "preconditioners"), default="agreement")
    p.add_argument("--n", type=int, default=10_000)
    p.add_argument("--probe-seeds", type=int, default=10)
    p.add_argument("--tol", type=float, default=1e-4)
    p.add_argument("--rank", type=int, default=100)
    p.add_argument("--datasets", default=",".join(UCI_REGRESSION_DATASETS))
    args = p.parse_args()
    if args.mode == "agreement":
        n = 2000 if args.quick else args.n
        out = agreement(n, 2 if args.quick else args.probe_seeds, args.tol)
        ours, peer = out.pop("ours_s"), out.pop("peer_s")
        print(result_line("gp_large", peer / ours, ours, peer, mode="agreement", **out))
    else:
        names = args.datasets.split(",")
        out = preconditioners(names[:1] if args.quick else names, args.rank)
        print(f"RESULT gp_large mode=preconditioners rf_wins={out['rf_wins']}")


if __name__ == "__main__":
    main()
