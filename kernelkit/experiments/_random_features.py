"""Helpers shared by the random projection / random feature reproductions of Rowland (2018)
Chs. 6–7: Monte Carlo summaries, bootstrap standard errors, Gram-matrix errors without
forming ``n x n`` estimates, and findings stated from the numbers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from kernelkit._validation import check_random_state


def standardise(X: np.ndarray) -> np.ndarray:
    """Columns with zero mean and unit variance (constant columns are only centred)."""
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    return (X - X.mean(axis=0)) / sd


def random_pairs(n: int, n_pairs: int, rng: np.random.RandomState) -> tuple[np.ndarray, np.ndarray]:
    """``n_pairs`` pairs ``(i, j)`` of distinct row indices, drawn uniformly."""
    i = rng.randint(0, n, size=n_pairs)
    j = (i + rng.randint(1, n, size=n_pairs)) % n  # j != i, uniform over the others
    return i, j


def bootstrap_se(values: Any, n_boot: int = 1000, random_state: Any = 0) -> float:
    """Bootstrap estimate of the standard error of the mean of ``values`` (as the thesis's
    tables report, Rowland (2018) App. 7.B); 0 for fewer than two values."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size < 2:
        return 0.0
    rng = check_random_state(random_state)
    idx = rng.randint(0, v.size, size=(n_boot, v.size))
    return float(v[idx].mean(axis=1).std(ddof=1))


def mc_mse(sq_err: np.ndarray) -> tuple[float, float]:
    """Mean squared error and its Monte Carlo standard error from squared errors of shape
    ``(n_trials, n_pairs)``: the MSE averaged over the pairs, SE across trials."""
    per_trial = sq_err.mean(axis=1)
    se = per_trial.std(ddof=1) / np.sqrt(per_trial.size) if per_trial.size > 1 else 0.0
    return float(per_trial.mean()), float(se)


def real_features(F: np.ndarray) -> np.ndarray:
    """Real features with the same Gram estimate: ``Re(conj(F) F^T) = [Re F, Im F] [..]^T``
    (the S-Hybrid estimator, Rowland (2018) eq. 6.11); real ``F`` is returned as is."""
    if np.iscomplexobj(F):
        return np.hstack([F.real, F.imag])
    return F


def gram_error_linear(X: np.ndarray, F: np.ndarray, gram_norm2: float) -> float:
    """``|X X^T - F F^T|_F / |X X^T|_F`` in ``O(n d m)``, never forming ``n x n`` matrices:
    ``|X X^T - F F^T|_F^2 = |X^T X|_F^2 - 2 |X^T F|_F^2 + |F^T F|_F^2``."""
    sq = gram_norm2 - 2.0 * np.sum((X.T @ F) ** 2) + np.sum((F.T @ F) ** 2)
    return float(np.sqrt(max(sq, 0.0) / gram_norm2))


def gram_error_kernel(K: np.ndarray, Z: np.ndarray, gram_norm2: float) -> float:
    """``|K - Z Z^T|_F / |K|_F = sqrt(|K|^2 - 2 tr(Z^T K Z) + |Z^T Z|^2) / |K|_F``."""
    sq = gram_norm2 - 2.0 * np.sum(Z * (K @ Z)) + np.sum((Z.T @ Z) ** 2)
    return float(np.sqrt(max(sq, 0.0) / gram_norm2))


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def finding(claim: str, ratios: Iterable[float], ok: Iterable[bool], where: str) -> dict:
    """A thesis claim checked on our numbers: ``ok[i]`` says whether it holds at point ``i``."""
    ok = [bool(v) for v in ok]
    return {
        "claim": claim,
        "reproduced": all(ok),
        "holds_at": f"{sum(ok)}/{len(ok)} {where}",
        "ratios": [float(r) for r in ratios],
    }


def findings_table(findings: dict) -> dict:
    """The findings as a report table (finding, claim checked, where it holds, verdict)."""
    return {
        "columns": ["thesis finding", "checked as", "holds at", "reproduced"],
        "rows": [
            [name, f["claim"], f["holds_at"], yes_no(f["reproduced"])]
            for name, f in findings.items()
        ],
    }


def fmt(x: float, digits: int = 3) -> str:
    """A number with ``digits`` significant digits (``nan`` as an en dash)."""
    return "–" if not np.isfinite(x) else f"{x:.{digits}g}"


def plot_mse_and_gram(top: Any, bottom: Any, x: Any, r: dict, *, color: Any, label: str) -> None:
    """One estimator's curves: pointwise MSE ± 2 SE with its closed form (dashed, where every
    value is known) on ``top``; normalised Gram error ± 2 SE on ``bottom``."""
    x = np.asarray(x)
    top.errorbar(
        x,
        r["mse"],
        yerr=2 * np.asarray(r["mse_se"]),
        fmt="o",
        ms=3,
        color=color,
        label=f"{label} (sim.)",
    )
    theory = np.asarray(r["theory"], dtype=float)
    if np.isfinite(theory).all():
        top.plot(x, theory, "--", lw=1, color=color, label=f"{label} (theory)")
    bottom.errorbar(
        x,
        r["gram"],
        yerr=2 * np.asarray(r["gram_se"]),
        fmt="o-",
        ms=3,
        lw=1,
        color=color,
        label=label,
    )


def max_abs_z(curves: Iterable[dict]) -> float:
    """Largest ``|simulated MSE - closed form| / SE`` over the points of ``curves`` (dicts
    with ``mse``, ``mse_se`` and ``theory`` lists) where the closed form is known."""
    z = [
        (r["mse"][i] - r["theory"][i]) / r["mse_se"][i]
        for r in curves
        for i in range(len(r["mse"]))
        if np.isfinite(r["theory"][i]) and r["mse_se"][i] > 0
    ]
    return float(np.max(np.abs(z)))
