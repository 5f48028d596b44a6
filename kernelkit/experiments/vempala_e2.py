"""Vempala (1997) §2.4 "Quality": the perceptron on breast cancer data, before and after
outlier removal.

The thesis ran the perceptron on the Wisconsin Diagnostic Breast Cancer data (569 × 30,
scikit-learn's ``load_breast_cancer``): the best half-space it found classified 79 % of
the set; after outlier removal with "β = 5" (364 points left) the perceptron trained on
the survivors classified 91 % of the whole set.

Normalisation of β: in :func:`~kernelkit.geometry.outliers.remove_outliers` β bounds
``max_x xᵀM⁻¹x`` (Lemma 2 (ii)), whose mean is the dimension n = 30, so β = 5 is
impossible there. We read the thesis's β per dimension, ``β = 5 n = 150`` (the bound
``max |z|² ≤ β n`` of §2.3.4), and also report the β (found by bisection) that leaves
the thesis's 364 points. Perceptrons (normalised updates, random mistakes, intercept as
a constant coordinate) are run for several update budgets and the best training accuracy
is kept, as "the best half-space we could find"; both the last iterate and the pocket
(fewest training mistakes) are reported. A typical last iterate after a fixed number of
updates (mean over perceptron seeds) is reported too: on these non-separable data the
perceptron cycles, and its last iterate (about 84 % after 5000 updates in the full run)
is the closest reading of the thesis's 79 %. Our full run (seed 0) does not reproduce the
thesis's gain: the best perceptron half-space already classifies about 92 % of the set,
and training on the survivors changes that by less than a point (held out: 91.4 % →
90.8 %). Besides the whole-set protocol of the thesis
(train on the survivors, test on all 569), a held-out protocol removes outliers from a
stratified 70 % training split only and tests on the other 30 %, over several splits.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from kernelkit._progress import progress
from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.geometry.outliers import remove_outliers
from kernelkit.geometry.perceptrons import Perceptron
from kernelkit.plotting import COLORS, new_figure, save_figure

QUICK: dict[str, Any] = {
    "budgets": [300],
    "n_splits": 2,
    "betas": [40, 80, 150, 300],
    "n_bisect": 10,
    "fixed_budget": 2000,
    "n_fixed_seeds": 3,
}
FULL: dict[str, Any] = {
    "budgets": [100, 1000, 5000],
    "n_splits": 20,
    "betas": [31, 40, 50, 60, 70, 80, 100, 150, 200, 300, 600],
    "n_bisect": 30,
    "fixed_budget": 5000,
    "n_fixed_seeds": 20,
}
THESIS: dict[str, Any] = {"before": 0.79, "after": 0.91, "points_left": 364, "beta": 5}


def _best(X: np.ndarray, y: np.ndarray, budgets: list[int], pocket: bool, seed: int) -> Perceptron:
    """The perceptron with the best training accuracy over the update budgets."""
    best, best_acc = None, -1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for b in budgets:
            p = Perceptron(max_iter=b, pocket=pocket, random_state=seed).fit(X, y)
            acc = p.score(X, y)
            if acc > best_acc:
                best, best_acc = p, acc
    assert best is not None
    return best


def _beta_for(X: np.ndarray, target: int, n_bisect: int) -> tuple[float, int]:
    """Bisection (on log β) for the β whose survivors number closest to ``target``."""
    lo, hi = float(X.shape[1]), 1e3
    for _ in range(n_bisect):
        mid = float(np.sqrt(lo * hi))
        if remove_outliers(X, mid).kept.size < target:
            lo = mid
        else:
            hi = mid
    return hi, int(remove_outliers(X, hi).kept.size)


@register(
    "vempala-e2",
    title="Perceptron on breast cancer data before / after outlier removal",
    source="Vempala (1997) §2.4 (Quality), Lemma 2",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    cfg = QUICK if quick else FULL
    X, y = load_breast_cancer(return_X_y=True)
    n = X.shape[1]
    seed = int(random_state)
    beta = 5.0 * n
    res = remove_outliers(X, beta)
    beta_364, left_364 = _beta_for(X, THESIS["points_left"], cfg["n_bisect"])
    res364 = remove_outliers(X, beta_364)
    whole: dict[str, Any] = {}
    for pocket in (False, True):
        key = "pocket" if pocket else "last iterate"
        before = _best(X, y, cfg["budgets"], pocket, seed).score(X, y)
        after = _best(X[res.kept], y[res.kept], cfg["budgets"], pocket, seed).score(X, y)
        after364 = _best(X[res364.kept], y[res364.kept], cfg["budgets"], pocket, seed).score(X, y)
        whole[key] = {"before": before, "after": after, "after_364": after364}
    held: dict[str, list[float]] = {"before": [], "after": []}
    for s in progress(seeds(seed, cfg["n_splits"]), desc="vempala-e2"):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=s)
        kept = remove_outliers(Xtr, beta).kept
        held["before"].append(_best(Xtr, ytr, cfg["budgets"], True, s).score(Xte, yte))
        held["after"].append(_best(Xtr[kept], ytr[kept], cfg["budgets"], True, s).score(Xte, yte))
    sweep = [(b, int(remove_outliers(X, b).kept.size)) for b in cfg["betas"]]

    def mse(v: list[float]) -> tuple[float, float]:
        a = np.asarray(v)
        return float(a.mean()), float(a.std(ddof=1) / np.sqrt(a.size)) if a.size > 1 else 0.0

    # a typical last iterate after a fixed number of updates, over perceptron seeds
    fixed: dict[str, list[float]] = {"before": [], "after": [], "after_364": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for s in seeds(seed + 1, cfg["n_fixed_seeds"]):
            everything = np.arange(X.shape[0])
            for key, kept in (
                ("before", everything),
                ("after", res.kept),
                ("after_364", res364.kept),
            ):
                p = Perceptron(max_iter=cfg["fixed_budget"], pocket=False, random_state=s)
                fixed[key].append(p.fit(X[kept], y[kept]).score(X, y))

    hb, ha = mse(held["before"]), mse(held["after"])
    fig, ax = new_figure()
    ax.plot([b for b, _ in sweep], [k for _, k in sweep], "o-", color=COLORS[0])
    ax.axhline(THESIS["points_left"], color=COLORS[1], ls="--", label="thesis: 364 left")
    ax.axvline(beta, color=COLORS[2], ls=":", label="β = 5n")
    ax.set_xscale("log")
    ax.set_xlabel("β (bound on max xᵀM⁻¹x)")
    ax.set_ylabel("points kept (of 569)")
    ax.set_title("Outlier removal on breast cancer data")
    ax.legend()
    figure = save_figure(fig, out / "vempala_e2.png")
    fb, fa, f364 = mse(fixed["before"]), mse(fixed["after"]), mse(fixed["after_364"])
    rows = [
        ["thesis (β = 5, 364 left)", "79%", "91%", "364"],
    ]
    for key, v in whole.items():
        rows.append(
            [
                f"ours, best over budgets ({key}), β = 5n = {beta:g}",
                f"{v['before']:.1%}",
                f"{v['after']:.1%}",
                str(res.kept.size),
            ]
        )
        rows.append(
            [
                f"ours, best over budgets ({key}), β = {beta_364:.1f}",
                f"{v['before']:.1%}",
                f"{v['after_364']:.1%}",
                str(left_364),
            ]
        )
    budget = cfg["fixed_budget"]
    rows.append(
        [
            f"ours, last iterate after {budget} updates (mean ± SE), β = 5n",
            f"{fb[0]:.1%} ± {fb[1]:.1%}",
            f"{fa[0]:.1%} ± {fa[1]:.1%}",
            str(res.kept.size),
        ]
    )
    rows.append(
        [
            f"ours, last iterate after {budget} updates (mean ± SE), β = {beta_364:.1f}",
            f"{fb[0]:.1%} ± {fb[1]:.1%}",
            f"{f364[0]:.1%} ± {f364[1]:.1%}",
            str(left_364),
        ]
    )
    headline = (
        f"whole set: perceptron {whole['last iterate']['before']:.1%} (last iterate) / "
        f"{whole['pocket']['before']:.1%} (pocket) -> {whole['pocket']['after']:.1%} after "
        f"removal at β = 5n ({res.kept.size} left; thesis 79% -> 91%, 364 left); last "
        f"iterate after {budget} updates {fb[0]:.1%} -> {f364[0]:.1%} ({left_364} left); "
        "held-out: "
        f"{hb[0]:.1%} ± {hb[1]:.1%} -> {ha[0]:.1%} ± {ha[1]:.1%}"
    )
    return {
        "headline": headline,
        "figures": [figure],
        "tables": {
            "Whole set (train on survivors, test on all 569)": {
                "columns": ["run", "before", "after", "points left"],
                "rows": rows,
            },
            "Held-out 30% (removal on the training split only; mean ± SE)": {
                "columns": ["before", "after", "splits"],
                "rows": [
                    [
                        f"{hb[0]:.3f} ± {hb[1]:.3f}",
                        f"{ha[0]:.3f} ± {ha[1]:.3f}",
                        str(cfg["n_splits"]),
                    ]
                ],
            },
            "Points kept against β": {
                "columns": ["β", "kept"],
                "rows": [[f"{b:g}", str(k)] for b, k in sweep],
            },
        },
        "whole": whole,
        "fixed_budget": fixed,
        "held_out": {"before": held["before"], "after": held["after"]},
        "beta": beta,
        "kept": int(res.kept.size),
        "certificate": res.certificate,
        "beta_364": beta_364,
        "kept_364": left_364,
        "sweep": sweep,
        "thesis": THESIS,
        "settings": {**cfg, "normalisation": "beta bounds max x^T M^-1 x (mean = n); 5n"},
    }
