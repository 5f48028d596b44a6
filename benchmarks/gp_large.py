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
  memory (``n x rank`` floats each: ``rank`` columns), at most ``--max-iter`` iterations.

* ``large`` — ``--n`` (10^5) synthetic points, d = 5 (``sum sin(x_k)`` plus noise of
  standard deviation 0.1, inputs uniform on ``[-3, 3]^5``), 10^4 test points: (1) the
  exact posterior mean and variances with the hyperparameters fixed at those of a Cholesky
  fit on 3000 of the points; (2) a full fit, pre-trained on ``--pretrain`` points and
  refined by ``--refine`` full-data L-BFGS-B steps. Reported: time, passes over ``K``
  (each ``O(n^2 d)``), CG iterations, LOVE steps, test RMSE and peak memory.
* ``gpytorch`` — GPyTorch's exact GP (BBMM: CG, pivoted-Cholesky preconditioner,
  stochastic Lanczos quadrature) on the CPU, in this process, beside ours, on the first
  ``--n`` (20000) training rows of protein's split 0 with the same hyperparameters (a
  Cholesky fit on 2000 rows), the same CG tolerance (``--tol``), probes (16) and
  preconditioner rank (``--rank``): the time of one log-likelihood-and-gradient
  evaluation, and of the predictive mean and variances at the test rows (GPyTorch's
  ``fast_pred_var``, LOVE). GPyTorch computes in float32, its default, and holds ``K``
  in memory; ours computes in float64 by blocks. Needs ``pip install torch==2.13.0
  gpytorch`` (not in the ``bench`` extra: a CPU build of PyTorch is a separate file).
* ``uci`` — split 0 of each UCI regression set, inputs and targets standardised on the
  training part, RBF ARD: the CG GP fitted (hyperparameters pre-trained by Cholesky on
  ``--pretrain`` training rows, then ``--refine`` full-data L-BFGS-B steps), the Cholesky
  GP at the CG GP's hyperparameters where ``n <= 2 * 10^4`` (prediction only), and the
  random-feature GP (``--rf-components`` features) and FALKON (``alpha = noise / n``),
  both at the CG GP's hyperparameters, where available; test RMSE and mean negative log
  predictive density on the standardised targets, wall time and peak memory (each model
  in its own process, ``ru_maxrss``).

Usage: ``python benchmarks/gp_large.py --mode agreement [--n 10000]``,
``python benchmarks/gp_large.py --mode large [--n 100000] [--pretrain 3000] [--refine 0]
[--fixed-only | --full-only]``,
``python benchmarks/gp_large.py --mode preconditioners [--rank 100] [--datasets pol,..]``
``python benchmarks/gp_large.py --mode gpytorch [--n 20000] [--tol 0.01]``
or ``python benchmarks/gp_large.py --mode uci [--datasets protein] [--pretrain 3000]
[--refine 5]``.
The last line is ``RESULT gp_large ...``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, peak_rss_mb, result_line

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


def large(n: int, args: Any) -> None:
    """The n = 10^5 synthetic problem: fixed-hyperparameter prediction, then a full fit."""
    rng = np.random.default_rng(0)
    d, m = 5, 10_000
    X = rng.uniform(-3, 3, (n + m, d))
    y = np.sin(X).sum(1) + 0.1 * rng.standard_normal(n + m)
    X, Xt, y, yt = X[:n], X[n:], y[:n], y[n:]
    t0 = time.perf_counter()
    sub = _subset_fit(X, y, 3000, 1)
    print(
        f"n = {n}, d = {d}; hyperparameters of a Cholesky fit on 3000 points "
        f"({time.perf_counter() - t0:.0f} s): {sub.kernel_!r}, noise {sub.noise_:.4g}",
        flush=True,
    )
    runs = [
        ("fixed hyperparameters", {"kernel": sub.kernel_, "noise": sub.noise_, "optimizer": None}),
        (
            f"full fit (pre-trained on {args.pretrain}, {args.refine} full-data steps)",
            {
                "kernel": RBF(lengthscale=np.ones(d)),
                "pretrain_size": args.pretrain,
                "refine_steps": args.refine,
            },
        ),
    ]
    for label, kwargs in runs[1:] if args.full_only else runs[: 1 if args.fixed_only else 2]:
        t0 = time.perf_counter()
        gp = GaussianProcessRegressor(
            solver="cg", tol=args.tol, max_iter=args.max_iter, random_state=0, **kwargs
        ).fit(X, y)
        t_fit = time.perf_counter() - t0
        mean, std = gp.predict(Xt, return_std=True, include_noise=True)
        total = time.perf_counter() - t0
        rmse = float(np.sqrt(np.mean((mean - yt) ** 2)))
        nll = float(np.mean(0.5 * np.log(2 * np.pi * std**2) + 0.5 * ((yt - mean) / std) ** 2))
        print(
            f"{label}: fit {t_fit:.0f} s, fit + predict (mean and std at {m} points) "
            f"{total:.0f} s; {gp.n_kernel_passes_} passes over K, {gp.n_iter_} CG iterations "
            f"in the final solve, LOVE {gp.love_.n_iter} steps (variance error "
            f"{gp.love_.error:.2e}), preconditioner rank {gp.preconditioner_.rank_}; "
            f"test RMSE {rmse:.4f} (noise sd 0.1), NLL {nll:.3f}; hyperparameters "
            f"{gp.kernel_!r}, noise {gp.noise_:.4g}; peak {peak_rss_mb():.0f} MB",
            flush=True,
        )


def gpytorch_peer(n: int, args: Any) -> None:
    """One LML-and-gradient evaluation and one prediction, GPyTorch's and ours."""
    import gpytorch
    import torch

    data = load_uci_regression("protein", split=0, standardize=True)
    X, y, Xt, yt = data.X_train[:n], data.y_train[:n], data.X_test, data.y_test
    d = X.shape[1]
    sub = _subset_fit(X, y, 2000, 0)
    kernel, noise = sub.kernel_, sub.noise_
    print(f"protein, first {n} training rows; hyperparameters {kernel!r}, noise {noise:.4g}")
    torch.set_num_threads(2)

    class Exact(gpytorch.models.ExactGP):  # the model of GPyTorch's own examples
        def __init__(self, tx: Any, ty: Any, likelihood: Any) -> None:
            super().__init__(tx, ty, likelihood)
            self.mean_module = gpytorch.means.ZeroMean()
            self.covar_module = gpytorch.kernels.ScaleKernel(
                gpytorch.kernels.RBFKernel(ard_num_dims=d)
            )

        def forward(self, x: Any) -> Any:
            return gpytorch.distributions.MultivariateNormal(
                self.mean_module(x), self.covar_module(x)
            )

    tx, ty, ttest = (torch.tensor(a, dtype=torch.float32) for a in (X, y, Xt))
    likelihood = gpytorch.likelihoods.GaussianLikelihood()
    model = Exact(tx, ty, likelihood)
    model.covar_module.base_kernel.lengthscale = torch.tensor(kernel.lengthscale)
    model.covar_module.outputscale = torch.tensor(float(kernel.variance))
    likelihood.noise = torch.tensor(noise)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
    settings = [
        gpytorch.settings.max_cholesky_size(0),  # CG and SLQ, never Cholesky
        gpytorch.settings.cg_tolerance(args.tol),
        gpytorch.settings.eval_cg_tolerance(args.tol),
        gpytorch.settings.max_cg_iterations(args.max_iter),
        gpytorch.settings.num_trace_samples(16),
        gpytorch.settings.max_preconditioner_size(args.rank),
    ]
    import contextlib

    with contextlib.ExitStack() as stack:
        for s in settings:
            stack.enter_context(s)
        model.train()
        likelihood.train()
        t0 = time.perf_counter()
        loss = -mll(model(tx), ty)
        loss.backward()
        t_peer = time.perf_counter() - t0
        model.eval()
        likelihood.eval()
        t0 = time.perf_counter()
        with torch.no_grad(), gpytorch.settings.fast_pred_var():
            pred = likelihood(model(ttest))
            pm, pv = pred.mean.numpy(), pred.variance.numpy()
        t_peer_pred = time.perf_counter() - t0
    peer_lml = -float(loss.detach()) * n
    peer_rmse = float(np.sqrt(np.mean((pm - yt) ** 2)))
    print(
        f"GPyTorch {gpytorch.__version__} (torch {torch.__version__}, 2 threads, float32): "
        f"LML+gradient {t_peer:.1f} s (LML {peer_lml:.1f}); prediction {t_peer_pred:.1f} s, "
        f"test RMSE {peer_rmse:.4f}, mean variance {pv.mean():.4f}",
        flush=True,
    )

    op = KernelOperator(kernel, X, noise)
    W = np.random.default_rng(0).choice([-1.0, 1.0], size=(n, 16))
    t0 = time.perf_counter()
    M = PivotedCholesky(rank=args.rank).fit(kernel, X, noise)
    est = krylov_likelihood(
        op, y, W, M, fit_noise=True, eval_gradient=True, tol=args.tol, max_iter=args.max_iter
    )
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    gp = GaussianProcessRegressor(
        kernel,
        noise=noise,
        optimizer=None,
        solver="cg",
        tol=args.tol,
        max_iter=args.max_iter,
        preconditioner=PivotedCholesky(rank=args.rank),
        random_state=0,
    ).fit(X, y)
    mean, std = gp.predict(Xt, return_std=True, include_noise=True)
    t_ours_pred = time.perf_counter() - t0
    rmse = float(np.sqrt(np.mean((mean - yt) ** 2)))
    print(
        f"kernelkit (float64, blocks): LML+gradient {t_ours:.1f} s (LML {est.value:.1f}, "
        f"{est.cg.n_iter} CG iterations); solve + LOVE + prediction {t_ours_pred:.1f} s "
        f"({gp.love_.n_iter} LOVE steps), test RMSE {rmse:.4f}, mean variance "
        f"{np.mean(std**2):.4f}; peak {peak_rss_mb():.0f} MB",
        flush=True,
    )
    if n <= 20_000:  # the exact answer, for both
        exact = GaussianProcessRegressor(kernel, noise=noise, optimizer=None, solver="cholesky")
        em, es = exact.fit(X, y).predict(Xt, return_std=True, include_noise=True)
        print(
            f"exact (Cholesky): LML {exact.log_marginal_likelihood_value_:.1f}, test RMSE "
            f"{np.sqrt(np.mean((em - yt) ** 2)):.4f}, mean variance {np.mean(es**2):.4f}; "
            f"largest relative variance error: GPyTorch {np.max(np.abs(pv / es**2 - 1)):.3g}, "
            f"kernelkit {np.max(np.abs(std**2 / es**2 - 1)):.3g}"
        )
    print(
        f"ratio GPyTorch / kernelkit: LML+gradient {t_peer / t_ours:.2f}, "
        f"prediction {t_peer_pred / t_ours_pred:.2f}"
    )


def preconditioners(names: list[str], rank: int, max_iter: int) -> dict[str, float]:
    wins = ahead = 0
    for name in names:
        data = load_uci_regression(name, split=0, standardize=True)
        X, y = data.X_train, data.y_train
        sub = _subset_fit(X, y, 2000, 0)
        kernel, noise = sub.kernel_, sub.noise_
        op = KernelOperator(kernel, X, noise)
        row = {}
        for label, pre in [
            ("pivoted_cholesky", PivotedCholesky(rank=rank)),
            ("nystrom", Nystrom(rank=rank, random_state=0)),
            ("random_features", RandomFeaturePreconditioner(n_components=rank, random_state=0)),
        ]:
            t0 = time.perf_counter()
            M = None if pre is None else pre.fit(kernel, X, noise)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                res = mbcg(op.matmat, y, preconditioner=M, tol=1e-4, max_iter=max_iter)
            row[label] = (
                res.n_iter,
                res.converged,
                time.perf_counter() - t0,
                float(res.residual_norms.max()),
            )
        # a win needs the random features to converge: two runs stopped by max_iter tie
        rf, pc = row["random_features"], row["pivoted_cholesky"]
        wins += bool(rf[1] and (rf[0] <= pc[0] or not pc[1]))
        ahead += bool(not rf[1] and not pc[1] and rf[3] < pc[3])
        cells = "  ".join(
            f"{k} {v[0]}{'' if v[1] else f'+ (residual {v[3]:.1e})'} ({v[2]:.0f} s)"
            for k, v in row.items()
        )
        print(f"{name:13s} n={len(X):6d} d={X.shape[1]:2d} noise={noise:.3g}: {cells}", flush=True)
    print(
        f"random features converged in no more iterations than pivoted Cholesky on {wins} "
        f"of {len(names)} sets ('+': not converged within max_iter, with the relative "
        f"residual reached); where neither converged, random features reached the smaller "
        f"residual on {ahead}"
    )
    return {"rf_wins": wins}


def _one(name: str, model: str, args: Any) -> dict[str, Any]:
    """Fit and score one model on split 0 of ``name`` (run in a subprocess)."""
    data = load_uci_regression(name, split=0, standardize=True)
    X, y, Xt, yt = data.X_train, data.y_train, data.X_test, data.y_test
    d = X.shape[1]
    t0 = time.perf_counter()
    info: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if model == "cg":
            gp = GaussianProcessRegressor(
                RBF(lengthscale=np.ones(d)),
                solver="cg",
                tol=args.tol,
                max_iter=args.max_iter,
                pretrain_size=args.pretrain,
                refine_steps=args.refine,
                random_state=0,
            ).fit(X, y)
            info = {
                "passes": gp.n_kernel_passes_,
                "cg_iter": gp.n_iter_,
                "love_steps": gp.love_.n_iter,
                "love_error": gp.love_.error,
                "rank": gp.preconditioner_.rank_,
                "noise": gp.noise_,
                "theta": [round(float(v), 4) for v in gp.theta_],
            }
            Path(args.theta_file).write_text(" ".join(map(repr, gp.theta_.tolist())))
        else:
            theta = np.array([float(v) for v in Path(args.theta_file).read_text().split()])
            kernel = RBF(lengthscale=np.ones(d))
            kernel.theta = theta[:-1]
            noise = float(np.exp(theta[-1]))
            if model == "cholesky":
                gp = GaussianProcessRegressor(
                    kernel, noise=noise, optimizer=None, solver="cholesky"
                ).fit(X, y)
            elif model == "rfgp":
                from kernelkit.models import RandomFeatureGP

                gp = RandomFeatureGP(
                    kernel=kernel, noise=noise, n_components=args.rf_components, random_state=0
                ).fit(X, y)
            else:
                import kernelkit.models as km

                gp = km.FalkonRegressor(kernel, alpha=noise / len(X), random_state=0).fit(X, y)
        if hasattr(gp, "predict") and model != "falkon":
            mean, std = gp.predict(Xt, return_std=True, include_noise=True)
            nll = float(np.mean(0.5 * np.log(2 * np.pi * std**2) + 0.5 * ((yt - mean) / std) ** 2))
        else:
            mean, nll = gp.predict(Xt), float("nan")
    rmse = float(np.sqrt(np.mean((mean - yt) ** 2)))
    return {
        "name": name,
        "model": model,
        "n": len(X),
        "d": d,
        "rmse": rmse,
        "nll": nll,
        "seconds": time.perf_counter() - t0,
        "peak_mb": peak_rss_mb(),
        **info,
    }


def uci(names: list[str], args: Any) -> None:
    import json
    import subprocess
    import tempfile

    import kernelkit.models as km

    for name in names:
        n = len(load_uci_regression(name, split=0).X_train)
        models = ["cg"] + (["cholesky"] if n <= 20_000 else []) + ["rfgp"]
        models += ["falkon"] if hasattr(km, "FalkonRegressor") else []
        with tempfile.TemporaryDirectory() as tmp:
            theta = str(Path(tmp) / "theta.txt")
            for model in models:
                cmd = [sys.executable, __file__, "--one", f"{name}:{model}", "--theta-file", theta]
                for flag in ("tol", "max_iter", "pretrain", "refine", "rf_components"):
                    cmd += [f"--{flag.replace('_', '-')}", str(getattr(args, flag))]
                out = subprocess.run(cmd, capture_output=True, text=True)
                if out.returncode:
                    print(f"{name} {model}: failed\n{out.stderr[-2000:]}", flush=True)
                    continue
                row = json.loads(out.stdout.strip().splitlines()[-1])
                extra = {
                    k: v
                    for k, v in row.items()
                    if k not in {"name", "model", "n", "d", "rmse", "nll", "seconds", "peak_mb"}
                }
                print(
                    f"{name:13s} n={row['n']:6d} {model:9s} RMSE {row['rmse']:.4f} "
                    f"NLL {row['nll']:.4f} {row['seconds']:8.1f} s peak {row['peak_mb']:.0f} MB "
                    f"{extra}",
                    flush=True,
                )


def main() -> None:
    p = parser(__doc__)
    p.add_argument(
        "--mode",
        choices=("agreement", "gpytorch", "large", "preconditioners", "uci"),
        default="agreement",
    )
    p.add_argument("--one", default=None, help=argparse.SUPPRESS)
    p.add_argument("--theta-file", default=None, help=argparse.SUPPRESS)
    p.add_argument("--max-iter", type=int, default=300)
    p.add_argument("--pretrain", type=int, default=3000)
    p.add_argument("--refine", type=int, default=5)
    p.add_argument("--rf-components", type=int, default=2048)
    p.add_argument("--n", type=int, default=None, help="10^4 (agreement) or 10^5 (large)")
    p.add_argument("--probe-seeds", type=int, default=10)
    p.add_argument("--fixed-only", action="store_true", help="large: skip the full fit")
    p.add_argument("--full-only", action="store_true", help="large: only the full fit")
    p.add_argument("--tol", type=float, default=1e-4)
    p.add_argument("--rank", type=int, default=100)
    p.add_argument("--datasets", default=",".join(UCI_REGRESSION_DATASETS))
    args = p.parse_args()
    if args.one:
        import json

        name, model = args.one.split(":")
        print(json.dumps(_one(name, model, args)))
        return
    if args.mode == "uci":
        uci(args.datasets.split(","), args)
        return
    if args.mode == "gpytorch":
        gpytorch_peer(args.n or 20_000, args)
        return
    if args.mode == "large":
        large(args.n or 100_000, args)
        return
    if args.mode == "agreement":
        n = 2000 if args.quick else (args.n or 10_000)
        out = agreement(n, 2 if args.quick else args.probe_seeds, args.tol)
        ours, peer = out.pop("ours_s"), out.pop("peer_s")
        print(result_line("gp_large", peer / ours, ours, peer, mode="agreement", **out))
    else:
        names = args.datasets.split(",")
        out = preconditioners(names[:1] if args.quick else names, args.rank, args.max_iter)
        print(f"RESULT gp_large mode=preconditioners rf_wins={out['rf_wins']}")


if __name__ == "__main__":
    main()
