"""Angles between documents before and after LSI on a synthetic corpus (Vempala 1997 §4.3.3).

A pure, 0.05-separable corpus (:func:`~kernelkit.geometry.corpus.generate_corpus` with its
defaults: 1000 documents of 50–100 terms, 2000 terms, 20 topics with disjoint 100-term
primary sets carrying 0.95 of the mass) is drawn; the angles (radians) between all pairs of
documents are summarised separately for intra-topic pairs (same topic) and inter-topic
pairs, in the original term space (columns of the count matrix), in the rank-20 LSI space
(:func:`~kernelkit.geometry.latent_semantic.lsi`) and, for ``l`` in {100, 200, 400}, after a
random projection to ``l`` dimensions alone
(:func:`~kernelkit.geometry.latent_semantic.project_terms`) and followed by rank-20 LSI
(:func:`~kernelkit.geometry.latent_semantic.random_projection_lsi`, §4.4). Thm 9 predicts
that LSI is ``O(ε)``-skewed: intra-topic angles near 0, inter-topic near π/2. The thesis's
table (one "typical" trial) is printed beside ours; the full run repeats ten trials, as the
thesis did.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._progress import progress
from kernelkit._threads import one_blas_thread
from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.geometry.corpus import generate_corpus
from kernelkit.geometry.latent_semantic import lsi, project_terms, random_projection_lsi
from kernelkit.plotting import COLORS, new_figure, save_figure

#: The LSI rank (the number of topics, as in the thesis).
RANK = 20
#: Projected dimensions of §4.4.
PROJECTION_DIMS = (100, 200, 400)
QUICK: dict[str, Any] = {"n_trials": 1}
FULL: dict[str, Any] = {"n_trials": 10}
STATS = ("min", "max", "mean", "std")
#: Vempala (1997) §4.3.3, the table (radians): intra-topic then inter-topic min/max/mean/std.
THESIS: dict[str, list[float]] = {
    "original": [0.801, 1.39, 1.09, 0.079, 1.49, 1.57, 1.57, 0.00791],
    f"rank-{RANK} LSI": [0.0, 0.312, 0.0177, 0.0374, 0.101, 1.57, 1.55, 0.153],
}


def pair_angles(Y: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Angles (radians) of all pairs ``i < j`` of rows of ``Y``: (intra-topic, inter-topic)."""
    norms = np.linalg.norm(Y, axis=1)
    U = Y / np.where(norms > 0, norms, 1.0)[:, None]
    i, j = np.triu_indices(Y.shape[0], 1)
    angles = np.arccos(np.clip((U @ U.T)[i, j], -1.0, 1.0))
    same = labels[i] == labels[j]
    return angles[same], angles[~same]


def _summary(angles: np.ndarray) -> list[float]:
    return [float(angles.min()), float(angles.max()), float(angles.mean()), float(angles.std())]


def _one_trial(
    seed: int,
) -> tuple[dict[str, list[float]], dict[str, tuple[np.ndarray, np.ndarray]]]:
    corpus = generate_corpus(random_state=seed)
    A, labels = corpus.counts.astype(np.float64), corpus.labels
    spaces = {"original": A.T.toarray(), f"rank-{RANK} LSI": lsi(A, RANK)}
    for n, l in enumerate(PROJECTION_DIMS):
        rp_seed = seed + 1 + n
        spaces[f"projection l={l}"] = project_terms(A, l, random_state=rp_seed).T
        spaces[f"projection l={l} + LSI"] = random_projection_lsi(A, l, RANK, random_state=rp_seed)
    rows, kept = {}, {}
    for name, Y in spaces.items():
        intra, inter = pair_angles(Y, labels)
        rows[name] = _summary(intra) + _summary(inter)
        kept[name] = (intra, inter)
    return rows, kept


def _figure(kept: dict[str, Any], out: Path) -> str:
    names = ["original", f"rank-{RANK} LSI", f"projection l={PROJECTION_DIMS[-1]} + LSI"]
    fig, axes = new_figure(1, len(names), width=3.6, height=3.0)
    bins = np.linspace(0.0, np.pi / 2 + 0.05, 60)
    for ax, name in zip(axes[0], names, strict=True):
        intra, inter = kept[name]
        ax.hist(intra, bins=bins, density=True, alpha=0.6, color=COLORS[0], label="intra-topic")
        ax.hist(inter, bins=bins, density=True, alpha=0.6, color=COLORS[1], label="inter-topic")
        ax.set_title(name)
        ax.set_xlabel("angle between documents (radians)")
    axes[0, 0].set_ylabel("density")
    axes[0, 0].legend()
    return save_figure(fig, out / "vempala_e3.png")


@register(
    "vempala-e3",
    title="LSI angle table on a 0.05-separable synthetic corpus; random projection + LSI",
    source="Vempala (1997) §4.3.3 (table), §4.4 (random projection + LSI), Thm 9",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    settings = QUICK if quick else FULL
    trial_seeds = seeds(int(random_state), settings["n_trials"])
    trials, first_kept = [], None
    for seed in progress(trial_seeds, desc="vempala-e3"):
        with one_blas_thread():  # small dense work: threads only contend (kernelkit._threads)
            rows, kept = _one_trial(seed)
        trials.append(rows)
        if first_kept is None:
            first_kept = kept
    assert first_kept is not None
    spaces = list(trials[0])
    mean = {s: np.mean([t[s] for t in trials], axis=0).tolist() for s in spaces}
    columns = ["space", "source"] + [f"{g} {s}" for g in ("intra", "inter") for s in STATS]
    table_rows = []
    for s in spaces:
        if s in THESIS:
            table_rows.append([s, "thesis"] + [f"{v:.3g}" for v in THESIS[s]])
        table_rows.append([s, "ours (trial 1)"] + [f"{v:.3g}" for v in trials[0][s]])
        if len(trials) > 1:
            table_rows.append([s, f"ours (mean of {len(trials)})"] + [f"{v:.3g}" for v in mean[s]])
    lsi_row, orig_row = trials[0][f"rank-{RANK} LSI"], trials[0]["original"]
    rp_means = [trials[0][f"projection l={l} + LSI"][2] for l in PROJECTION_DIMS]
    headline = (
        f"intra-topic mean angle {orig_row[2]:.3g} rad in the original space -> "
        f"{lsi_row[2]:.3g} in rank-{RANK} LSI (thesis 1.09 -> 0.0177); inter-topic min "
        f"{lsi_row[4]:.3g} (thesis 0.101); random projection + LSI at l = "
        f"{'/'.join(map(str, PROJECTION_DIMS))}: intra mean "
        f"{'/'.join(f'{v:.2f}' for v in rp_means)}"
    )
    return {
        "headline": headline,
        "figures": [_figure(first_kept, out)],
        "tables": {
            "Angles between document pairs (radians)": {"columns": columns, "rows": table_rows}
        },
        "trials": trials,
        "mean": mean,
        "thesis": THESIS,
        "settings": {
            **settings,
            "rank": RANK,
            "projection_dims": list(PROJECTION_DIMS),
            "corpus": "generate_corpus() defaults: 1000 documents, lengths 50..100, 2000 "
            "terms, 20 topics, primary_size=100, epsilon=0.05",
            "projection": "coupling='orthogonal' (column-orthonormal R, sqrt(n/l) scaling)",
        },
    }
