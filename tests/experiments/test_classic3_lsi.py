"""The "classic3-lsi" experiment (Vempala 1997 §4.4): one quick run, properties checked."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kernelkit.experiments import names, run_experiment
from kernelkit.experiments.classic3_lsi import QUICK, TARGET_L, purity


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("classic3-lsi")
    res = run_experiment("classic3-lsi", quick=True, out=out, random_state=0)
    return out / "classic3-lsi", res.results


def test_registered_figure_json(quick):
    folder, res = quick
    assert "classic3-lsi" in names()
    assert res["figures"] == ["classic3_lsi.png"]
    assert (folder / "classic3_lsi.png").stat().st_size > 10_000
    data = json.loads((folder / "results.json").read_text())
    assert data["meta"]["quick"] is True


def test_plain_lsi_clusters_classic3(quick):
    _, res = quick
    assert res["plain"]["purity"] > 0.95
    assert res["plain"]["ari"] > 0.85
    assert res["settings"]["shape"][1] == 3891


def test_projection_improves_with_l_and_target_reported_honestly(quick):
    _, res = quick
    rows = res["projected"]
    assert [r["l"] for r in rows] == QUICK["dims"]
    p = [r["purity"] for r in rows]
    assert p == sorted(p)  # larger l, better clustering
    assert all(1 / 3 <= v <= 1 for v in p)
    t = res["target"]
    at = next(r for r in rows if r["l"] == TARGET_L)
    assert np.isclose(t["purity_ratio"], at["purity"] / res["plain"]["purity"])
    assert t["purity_met"] == (t["purity_ratio"] >= 0.95)
    assert ("not met" in res["headline"]) == (not t["purity_met"])


def test_purity():
    y = np.array(["a", "a", "b", "b", "c", "c"])
    assert purity(y, np.array([0, 0, 1, 1, 2, 2])) == 1.0
    assert purity(y, np.array([5, 5, 5, 5, 5, 5])) == pytest.approx(1 / 3)
    assert purity(y, np.array([0, 0, 0, 1, 1, 1])) == pytest.approx(4 / 6)
