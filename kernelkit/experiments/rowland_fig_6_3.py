"""Random projections for inner products on the insurance data: JLT vs orthogonal JLTs.

Rowland (2018) §6.5, Figs. 6.3–6.4 and App. 6.B. The linear kernel ``<x, y>`` on the UCI
Insurance Company (COIL 2000) training data, 5822 x 85, features standardised (the
thesis does not state its preprocessing; standardising centres the inner products, which
otherwise are all large and positive), estimated from ``m``-dimensional projections:

* pointwise: MSE of the estimate of ``<x, y>`` for random pairs of rows (the thesis uses
  one pair; we average the MSE over several, and the theory over the same pairs), with
  the closed forms of :mod:`kernelkit.features.theory` overlaid: Lemma 6.5 (JLT),
  Thm. 6.6 as corrected (``G_ort``), Thm. 6.7 (Hadamard–Rademacher, ``k`` blocks),
  Thm. 6.11 (with replacement), Thm. 6.9 (hybrid: half), and an exact computation for the
  "first m rows" policy, for which the thesis has no formula;
* Gram matrix: normalised Frobenius error ``|K - K^|_F / |K|_F`` of the linear-kernel
  Gram matrix (a random subset of rows in quick mode, all rows in the full run),
  computed in ``O(n d m)`` without forming ``n x n`` matrices.

The four panels are the thesis's four comparisons: (a) JLT vs ``G_ort`` vs HR (k = 3);
(b) HR with k = 1..4 blocks; (c) row subsampling with / without replacement / first m
rows; (d) HR vs the S-Hybrid variant (last diagonal on ``{±1, ±i}``, equivalent to
``Unif(S^1)`` by Thm. 6.10).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._progress import progress
from kernelkit._validation import check_random_state
from kernelkit.datasets import load_uci
from kernelkit.experiments import register
from kernelkit.experiments._random_features import (
    finding,
    findings_table,
    fmt,
    gram_error_linear,
    max_abs_z,
    mc_mse,
    plot_mse_and_gram,
    random_pairs,
    real_features,
    standardise,
    yes_no,
)
from kernelkit.features import RandomProjection, theory
from kernelkit.features.walsh_hadamard import next_power_of_two
from kernelkit.plotting import COLORS, new_figure, save_figure

#: name -> RandomProjection options
CONFIGS: dict[str, dict[str, Any]] = {
    "JLT": {"coupling": "iid"},
    "G_ort": {"coupling": "orthogonal"},
    **{f"HR k={k}": {"coupling": "hadamard", "n_blocks": k} for k in (1, 2, 3, 4)},
    "HR with repl.": {"coupling": "hadamard", "n_blocks": 3, "subsampling": "with_replacement"},
    "HR first rows": {"coupling": "hadamard", "n_blocks": 3, "subsampling": "first"},
    "Hybrid": {"coupling": "hybrid", "n_blocks": 3},
}
PANELS = {
    "(a) JLT vs orthogonal": ["JLT", "G_ort", "HR k=3"],
    "(b) HR, k blocks": ["HR k=1", "HR k=2", "HR k=3", "HR k=4"],
    "(c) HR row subsampling": ["HR with repl.", "HR k=3", "HR first rows"],
    "(d) HR vs S-Hybrid": ["HR k=3", "Hybrid"],
}
# "competitive" / "little effect": ratios within this factor of 1
COMPETITIVE = 1.25


def _theory(cfg: dict, x: np.ndarray, y: np.ndarray, m: int) -> float:
    """Closed-form MSE of one configuration at one pair (Rowland (2018) §6.3)."""
    coupling = cfg["coupling"]
    if coupling == "iid":
        return theory.mse_iid_inner(x, y, m)  # Lemma 6.5
    if coupling == "orthogonal":
        return theory.mse_orthogonal_inner(x, y, m)  # Thm 6.6, corrected
    return theory.mse_hadamard_inner(  # Thms 6.7, 6.9, 6.11
        x,
        y,
        m,
        cfg["n_blocks"],
        subsampling=cfg.get("subsampling", "without_replacement"),
        hybrid=coupling == "hybrid",
    )


def _pointwise(
    cfg: dict, A: np.ndarray, B: np.ndarray, m: int, n_trials: int, rng: np.random.RandomState
) -> tuple[float, float]:
    """Simulated MSE (and its Monte Carlo SE) of the inner products ``<A_i, B_i>``."""
    exact = np.einsum("ij,ij->i", A, B)
    AB = np.vstack([A, B])
    p = A.shape[0]
    sq = np.empty((n_trials, p))
    for t in range(n_trials):
        proj = RandomProjection(m, random_state=rng, n_jobs=1, **cfg).fit(AB)
        F = proj.transform(AB)
        est = np.sum(np.conj(F[:p]) * F[p:], axis=1).real  # eq. 6.11 (real F: <., .>)
        sq[t] = (est - exact) ** 2
    return mc_mse(sq)


def _gram(
    cfg: dict, X: np.ndarray, norm2: float, m: int, n_trials: int, rng: np.random.RandomState
) -> list:
    """Normalised Gram errors of ``n_trials`` projections; ``norm2 = |X X^T|_F^2``."""
    errs = []
    for _ in range(n_trials):
        proj = RandomProjection(m, random_state=rng, n_jobs=1, **cfg).fit(X)
        errs.append(gram_error_linear(X, real_features(proj.transform(X)), norm2))
    return errs


def _settings(quick: bool, d: int) -> dict:
    fracs = (
        (0.1, 0.25, 0.5, 0.75, 1.0)
        if quick
        else (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    )
    return {
        "m": sorted({max(2, round(f * d)) for f in fracs} | {d // 2}),
        "n_pairs": 4 if quick else 10,
        "n_trials": 300 if quick else 3000,
        "gram_rows": 1000 if quick else None,  # None: all rows
        "gram_trials": 2 if quick else 10,
    }


def _simulate(X: np.ndarray, s: dict, rng: np.random.RandomState) -> dict:
    i, j = random_pairs(X.shape[0], s["n_pairs"], rng)
    A, B = X[i], X[j]
    rows = X if s["gram_rows"] is None else X[rng.choice(X.shape[0], s["gram_rows"], replace=False)]
    norm2 = float(np.sum((rows.T @ rows) ** 2))  # |X X^T|_F^2 = |X^T X|_F^2, once for all jobs
    res: dict[str, dict[str, list]] = {}
    jobs = [(name, m) for name in CONFIGS for m in s["m"]]
    for name, m in progress(jobs, desc="rowland-fig-6.3"):
        cfg = CONFIGS[name]
        r = res.setdefault(name, {k: [] for k in ("mse", "mse_se", "theory", "gram", "gram_se")})
        mse, se = _pointwise(cfg, A, B, m, s["n_trials"], rng)
        th = float(np.mean([_theory(cfg, a, b, m) for a, b in zip(A, B, strict=True)]))
        gram, gram_se = mc_mse(
            np.asarray(_gram(cfg, rows, norm2, m, s["gram_trials"], rng))[:, None]
        )
        r["mse"].append(mse)
        r["mse_se"].append(se)
        r["theory"].append(th)
        r["gram"].append(gram)
        r["gram_se"].append(gram_se)
    return res


def _ratio(res: dict, a: str, b: str, key: str = "mse") -> np.ndarray:
    return np.asarray(res[a][key]) / np.asarray(res[b][key])


def _findings(res: dict, ms: list[int], d: int) -> dict:
    """The thesis's qualitative findings (§6.5), checked on our simulated numbers.

    Orderings are checked at ``m >= d/4``: below that the differences (e.g. the
    ``(m-1)/(d-1)`` factor of Thm. 6.6) are within the Monte Carlo noise."""
    big = np.asarray(ms) >= d / 4
    where = "m >= d/4"
    out = {}
    for key, what in (("mse", "pointwise MSE"), ("gram", "Gram error")):
        r_ort, r_hr = _ratio(res, "G_ort", "JLT", key)[big], _ratio(res, "HR k=3", "JLT", key)[big]
        out[f"orthogonal beats iid ({what})"] = finding(
            "G_ort and HR(k=3) below JLT",
            r_ort,
            (r_ort < 1) & (r_hr < 1),
            where,
        )
        r = _ratio(res, "HR k=3", "G_ort", key)[big]
        out[f"HR competitive with G_ort ({what})"] = finding(
            f"HR(k=3)/G_ort within a factor {COMPETITIVE}",
            r,
            np.abs(np.log(r)) < np.log(COMPETITIVE),
            where,
        )
        out[f"HR competitive with G_ort ({what})"]["note"] = (
            f"HR works in the zero-padded dimension D = {next_power_of_two(d)}: m rows of it keep "
            "a fraction (D-m)/(D-1) of the i.i.d. error (Thm 6.7), while G_ort couples m "
            f"of d = {d} directions (Thm 6.6), so G_ort pulls ahead as m -> d"
        )
        ks = np.array([res[f"HR k={k}"][key] for k in (1, 2, 3, 4)])[:, big]
        spread = ks.max(axis=0) / ks.min(axis=0)
        out[f"k has little effect ({what})"] = finding(
            f"max/min over k = 1..4 below {COMPETITIVE}", spread, spread < COMPETITIVE, where
        )
        r = _ratio(res, "HR with repl.", "HR k=3", key)[big]
        out[f"with replacement worse ({what})"] = finding(
            "with / without replacement above 1", r, r > 1, where
        )
        r = _ratio(res, "HR first rows", "HR k=3", key)[big]
        out[f"first m rows competitive ({what})"] = finding(
            f"first rows / uniform within a factor {COMPETITIVE}",
            r,
            np.abs(np.log(r)) < np.log(COMPETITIVE),
            where,
        )
        r = _ratio(res, "Hybrid", "HR k=3", key)
        out[f"hybrid consistently better ({what})"] = finding(
            "Hybrid / HR below 1 at every m", r, r < 1, "m"
        )
    return out


def _figure(res: dict, ms: list[int], d: int, out: Path) -> str:
    fig, axes = new_figure(2, 4, width=3.4, height=2.9)
    ms_a = np.asarray(ms)
    for col, (title, names) in enumerate(PANELS.items()):
        for c, name in enumerate(names):
            plot_mse_and_gram(
                axes[0, col], axes[1, col], ms_a, res[name], color=COLORS[c], label=name
            )
        axes[0, col].set(title=title, yscale="log", ylabel="pointwise MSE of <x, y>")
        axes[1, col].set(xlabel=f"m (d = {d})", yscale="log", ylabel="|K - K^|_F / |K|_F")
        axes[0, col].legend(fontsize=6)
        axes[1, col].legend(fontsize=6)
    fig.suptitle(
        "Insurance (COIL 2000, standardised): random projections for inner products "
        "(markers ± 2 SE: simulation; dashed: closed forms)"
    )
    return save_figure(fig, out / "rowland_fig_6_3.png")


def _tables(res: dict, ms: list[int]) -> dict:
    cols = ["projection"] + [f"m={m}" for m in ms]
    pw = [
        [name] + [f"{fmt(r['mse'][k])} ({fmt(r['theory'][k])})" for k in range(len(ms))]
        for name, r in res.items()
    ]
    gr = [[name] + [fmt(r["gram"][k]) for k in range(len(ms))] for name, r in res.items()]
    return {
        "Pointwise MSE of <x, y>: simulated (closed form)": {"columns": cols, "rows": pw},
        "Gram matrix: normalised Frobenius error": {"columns": cols, "rows": gr},
    }


@register(
    "rowland-fig-6.3",
    title="Random projections on insurance data: JLT, G_ort, Hadamard–Rademacher, hybrid",
    source="Rowland (2018) Fig. 6.3 / App. 6.B",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    rng = check_random_state(random_state)
    X = standardise(load_uci("insurance").X)
    n, d = X.shape
    s = _settings(quick, d)
    res = _simulate(X, s, rng)
    ms = s["m"]
    k = ms.index(d // 2)
    findings = _findings(res, ms, d)

    def at(name: str, key: str = "mse") -> float:
        return res[name][key][k]

    headline = (
        f"insurance, m = d/2 = {ms[k]}: MSE ratio G_ort/JLT = {at('G_ort') / at('JLT'):.2f}, "
        f"HR(k=3)/JLT = {at('HR k=3') / at('JLT'):.2f}; hybrid/HR = "
        f"{at('Hybrid') / at('HR k=3'):.2f}; Gram error G_ort/JLT = "
        f"{at('G_ort', 'gram') / at('JLT', 'gram'):.2f}; thesis findings reproduced: "
        f"{sum(f['reproduced'] for f in findings.values())}/{len(findings)}"
    )
    return {
        "headline": headline,
        "figures": [_figure(res, ms, d, out)],
        "tables": {
            **_tables(res, ms),
            "Thesis findings (§6.5) checked on these numbers": findings_table(findings),
        },
        "findings": {
            name: {**f, "reproduced": yes_no(f["reproduced"])} for name, f in findings.items()
        },
        "results": res,
        "m": ms,
        "d": d,
        "n_rows": n,
        "settings": s,
        "theory_max_abs_z": max_abs_z(res.values()),
        "preprocessing": "features standardised (zero mean, unit variance) over all 5822 rows",
    }
