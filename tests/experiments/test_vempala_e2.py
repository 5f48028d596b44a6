"""The "vempala-e2" experiment (Vempala 1997 §2.4, quality, breast cancer): properties."""

from __future__ import annotations

import json

import pytest
from sklearn.datasets import load_breast_cancer

from kernelkit.experiments import names, run_experiment
from kernelkit.experiments.vempala_e2 import QUICK
from kernelkit.geometry.outliers import remove_outliers


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("vempala-e2")
    res = run_experiment("vempala-e2", quick=True, out=out, random_state=0)
    return out / "vempala-e2", res.results


def test_registered_figure_json(quick):
    folder, res = quick
    assert "vempala-e2" in names()
    assert res["figures"] == ["vempala_e2.png"]
    data = json.loads((folder / "results.json").read_text())
    assert data["meta"]["name"] == "vempala-e2"


def test_outlier_removal_numbers(quick):
    _, res = quick
    X, _ = load_breast_cancer(return_X_y=True)
    assert res["beta"] == 5 * X.shape[1]
    again = remove_outliers(X, res["beta"])
    assert again.kept.size == res["kept"] and res["certificate"] <= res["beta"]
    # bisection lands near the thesis's 364 survivors, with beta >= n
    assert res["beta_364"] >= X.shape[1] and abs(res["kept_364"] - 364) <= 40
    kept = [k for _, k in res["sweep"]]
    assert kept == sorted(kept)  # more points kept for larger beta


def test_accuracies(quick):
    _, res = quick
    for v in res["whole"].values():
        for acc in v.values():
            assert 0.6 < acc <= 1.0
    assert len(res["held_out"]["before"]) == QUICK["n_splits"]
    rows = res["tables"]["Whole set (train on survivors, test on all 569)"]["rows"]
    assert rows[0] == ["thesis (β = 5, 364 left)", "79%", "91%", "364"]


def test_last_iterate_after_fixed_budget(quick):
    _, res = quick
    fixed = res["fixed_budget"]
    for key in ("before", "after", "after_364"):
        assert len(fixed[key]) == QUICK["n_fixed_seeds"]
        assert all(0.3 < a <= 1.0 for a in fixed[key])
    import numpy as np

    rows = res["tables"]["Whole set (train on survivors, test on all 569)"]["rows"]
    last = [r for r in rows if r[0].startswith("ours, last iterate")]
    assert len(last) == 2 and last[0][1] == f"{100 * np.mean(fixed['before']):.1f}% ± " + (
        f"{100 * np.std(fixed['before'], ddof=1) / np.sqrt(len(fixed['before'])):.1f}%"
    )
