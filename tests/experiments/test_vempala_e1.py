"""The "vempala-e1" experiment (Vempala 1997 §2.4, efficiency): one quick run, properties."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kernelkit.experiments import names, run_experiment
from kernelkit.experiments.vempala_e1 import OUTLIER_FRACTION, QUICK, make_data
from kernelkit.geometry.perceptrons import Perceptron


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("vempala-e1")
    res = run_experiment("vempala-e1", quick=True, out=out, random_state=0)
    return out / "vempala-e1", res.results


def test_registered_figure_json(quick):
    folder, res = quick
    assert "vempala-e1" in names()
    assert res["figures"] == ["vempala_e1.png"]
    assert (folder / "vempala_e1.png").stat().st_size > 5_000
    data = json.loads((folder / "results.json").read_text())
    assert data["meta"]["quick"] is True


def test_data_separable_with_planted_outliers():
    X, y, is_out = make_data(200, 3)
    assert is_out.sum() == round(OUTLIER_FRACTION * 200)
    assert Perceptron(max_iter=10**5, random_state=0).fit(X, y).converged_


def test_runs_and_summary(quick):
    _, res = quick
    runs = res["runs"]
    assert len(runs) == len(QUICK["sizes"]) * QUICK["n_seeds"]
    for r in runs:
        assert r["all"] > 0 and r["removed"] > 0
        assert r["outliers_removed"] <= r["n_outliers"] <= r["n_removed"] + r["n_outliers"]
    for n in QUICK["sizes"]:
        at = [r for r in runs if r["n"] == n]
        assert np.isclose(res["summary"][str(n)]["all"][0], np.mean([r["all"] for r in at]))
    # the planted far-away outliers are found
    assert sum(r["outliers_removed"] for r in runs) >= 0.9 * sum(r["n_outliers"] for r in runs)
    # fewer updates after removal on average (thesis: ~50%)
    ratios = [r["removed"] / r["all"] for r in runs]
    assert np.mean(ratios) < 1.0
    assert "thesis: ~50%" in res["headline"]
