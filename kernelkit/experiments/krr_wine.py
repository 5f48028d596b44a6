"""Kernel ridge regression with an RBF kernel on the red-wine quality data.

The dual solution alpha = (K + lambda I)^-1 y of the lecture notes (001, kernel ridge
regression), with the lengthscale and lambda chosen by cross-validation on the training
split only, checked against scikit-learn's ``KernelRidge`` on the same split.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold

from kernelkit.datasets import load_uci
from kernelkit.experiments import register
from kernelkit.experiments._common import rmse, seeds, standardised_split
from kernelkit.kernels import RBF, median_heuristic
from kernelkit.models import KernelRidge
from kernelkit.plotting import new_figure, save_figure


def _cv_grid(
    X: np.ndarray,
    y: np.ndarray,
    scales: list[float],
    alphas: list[float],
    n_folds: int,
    random_state: int,
) -> np.ndarray:
    """Cross-validated RMSE for each (lengthscale, alpha) pair, shape (len(scales), len(alphas))."""
    folds = list(KFold(n_folds, shuffle=True, random_state=random_state).split(X))
    err = np.zeros((len(scales), len(alphas)))
    for i, ls in enumerate(scales):
        for j, alpha in enumerate(alphas):
            sq = 0.0
            for tr, va in folds:
                model = KernelRidge(RBF(lengthscale=ls), alpha=alpha).fit(X[tr], y[tr])
                sq += np.sum((model.predict(X[va]) - y[va]) ** 2)
            err[i, j] = np.sqrt(sq / len(y))
    return err


def _one_split(X: np.ndarray, y: np.ndarray, quick: bool, seed: int) -> dict[str, Any]:
    """Choose (lengthscale, lambda) by CV on the training split; errors in quality points."""
    Xtr, Xte, ytr, yte, ym, ys = standardised_split(X, y, random_state=seed)
    med = median_heuristic(Xtr, random_state=seed)
    factors = [0.5, 1.0, 2.0] if quick else [0.25, 0.5, 1.0, 2.0, 4.0]
    alphas = [0.01, 0.1, 1.0] if quick else [1e-3, 1e-2, 0.1, 0.3, 1.0, 3.0]
    scales = [f * med for f in factors]
    cv = _cv_grid(Xtr, ytr, scales, alphas, 3 if quick else 5, seed)
    i, j = np.unravel_index(np.argmin(cv), cv.shape)
    ls, alpha = scales[i], alphas[j]
    ours = KernelRidge(RBF(lengthscale=ls), alpha=alpha).fit(Xtr, ytr).predict(Xte)
    peer = SkKernelRidge(kernel="rbf", gamma=1.0 / (2 * ls**2), alpha=alpha)
    peer = peer.fit(Xtr, ytr).predict(Xte)
    linear = Ridge(alpha=1.0).fit(Xtr, ytr).predict(Xte)

    def units(v: np.ndarray) -> np.ndarray:  # back to quality points
        return v * ys + ym

    y_true = units(yte)
    return {
        "lengthscale": ls,
        "alpha": alpha,
        "median_distance": med,
        "cv_rmse": cv * ys,
        "scales": scales,
        "alphas": alphas,
        "rmse_kernelkit": rmse(y_true, units(ours)),
        "rmse_sklearn": rmse(y_true, units(peer)),
        "rmse_linear_ridge": rmse(y_true, units(linear)),
        "rmse_mean": rmse(y_true, np.full_like(y_true, ym)),
        "max_abs_diff_vs_sklearn": float(np.max(np.abs(ours - peer)) * ys),
        "y_test": y_true,
        "pred": units(ours),
    }


@register(
    "krr-wine",
    title="Kernel ridge regression (RBF) on red-wine quality",
    source="lecture notes: kernel ridge regression in the dual",
)
def run(quick: bool, out: Path, random_state: int) -> dict:
    wine = load_uci("wine")
    X, y = wine.X, wine.y
    runs = [_one_split(X, y, quick, s) for s in seeds(random_state, 1 if quick else 10)]
    keys = ["rmse_kernelkit", "rmse_sklearn", "rmse_linear_ridge", "rmse_mean"]
    summary = {
        k: [float(np.mean([r[k] for r in runs])), float(np.std([r[k] for r in runs]))] for k in keys
    }
    first = runs[0]

    fig, axes = new_figure(1, 2)
    for i, ls in enumerate(first["scales"]):
        axes[0, 0].semilogx(first["alphas"], first["cv_rmse"][i], "o-", label=f"ℓ = {ls:.2f}")
    axes[0, 0].set(
        xlabel="ridge λ",
        ylabel="CV RMSE (quality points)",
        title="cross-validation on the training split",
    )
    axes[0, 0].legend()
    yt, pr = first["y_test"], first["pred"]
    jitter = np.random.RandomState(0).uniform(-0.15, 0.15, yt.shape)
    axes[0, 1].scatter(yt + jitter, pr, s=6, alpha=0.5)
    lims = [yt.min() - 0.5, yt.max() + 0.5]
    axes[0, 1].plot(lims, lims, "k--", lw=0.8)
    axes[0, 1].set(
        xlabel="true quality (jittered)",
        ylabel="predicted quality",
        title=f"test split: RMSE {first['rmse_kernelkit']:.3f}",
    )
    figs = [save_figure(fig, out / "krr_wine.png")]

    rows = [
        [name, f"{summary[k][0]:.4f}", f"{summary[k][1]:.4f}"]
        for name, k in [
            ("kernelkit KernelRidge (RBF)", "rmse_kernelkit"),
            ("scikit-learn KernelRidge (RBF, same λ, ℓ)", "rmse_sklearn"),
            ("linear ridge", "rmse_linear_ridge"),
            ("training mean", "rmse_mean"),
        ]
    ]
    max_diff = max(r["max_abs_diff_vs_sklearn"] for r in runs)
    return {
        "headline": f"test RMSE {summary['rmse_kernelkit'][0]:.3f} quality points "
        f"(scikit-learn {summary['rmse_sklearn'][0]:.3f}, max |Δpred| {max_diff:.1e}; "
        f"linear ridge {summary['rmse_linear_ridge'][0]:.3f})",
        "figures": figs,
        "tables": {
            f"test RMSE (quality points) over {len(runs)} random 80/20 split(s), mean and std": {
                "columns": ["model", "RMSE", "std"],
                "rows": rows,
            }
        },
        "summary": summary,
        "max_abs_diff_vs_sklearn": max_diff,
        "chosen": [{"lengthscale": r["lengthscale"], "alpha": r["alpha"]} for r in runs],
        "n_train": len(y) - len(first["y_test"]),
        "n_test": len(first["y_test"]),
    }
