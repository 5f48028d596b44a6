"""The Bayesian optimisation experiments (quick versions): structure, figures, numbers."""

from __future__ import annotations

import numpy as np

from kernelkit.experiments import names, run_experiment


def test_bo_experiments_are_registered():
    assert {"bo-1d", "bo-regret"} <= set(names())


def test_bo_1d_quick(tmp_path):
    res = run_experiment("bo-1d", quick=True, out=tmp_path, random_state=0).results
    folder = tmp_path / "bo-1d"
    for name in res["figures"]:
        assert (folder / name).stat().st_size > 1000
    assert (folder / "results.json").exists()
    med = res["median_final_regret"]
    assert len(med) == 6  # PI, EI, EI decaying; Matérn 1/2, 3/2, inf
    assert all(0 <= v < 1.5 for v in med.values())  # regret is bounded by the function range
    table = next(iter(res["tables"].values()))
    assert len(table["rows"]) == 6


def test_bo_regret_quick(tmp_path):
    res = run_experiment("bo-regret", quick=True, out=tmp_path, random_state=0).results
    assert (tmp_path / "bo-regret" / "bo_regret.png").exists()
    med = res["median_final_regret"]["branin"]
    # refitting the hyperparameters at every step beats keeping the initial-design fit
    assert med["refit every step"] < med["fit on initial design only"]
    assert med["refit every step"] < 1e-2
    curves = res["regret_curves_median"]["branin"]
    assert np.all(np.diff(curves["refit every step"]) <= 0)  # best-so-far regret
