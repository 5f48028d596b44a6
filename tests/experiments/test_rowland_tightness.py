"""The rowland-tightness experiment (quick run)."""

from __future__ import annotations

import json

import pytest

from kernelkit.experiments import run_experiment


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("rt")
    res = run_experiment("rowland-tightness", quick=True, out=out, random_state=0)
    return out / "rowland-tightness", res.results


def test_quick_run(quick):
    folder, results = quick
    assert results["orbit_counts"] == {"K5": 7, "O6": 14, "M8": 8, "Y5": 12}
    verdicts = results["verdicts"]
    k5 = [v for v in verdicts if v["graph"] == "K5"]
    assert all(v["method"] == "exact" for v in k5)
    not_tight = [v for v in verdicts if v["tight"] is False]
    assert [(v["graph"], v["orbit"]) for v in not_tight] == [("K5", 1)]
    assert all(v["tight"] is True for v in k5[1:])
    classical = {c["signed graph"]: c for c in results["classical"]}
    assert classical["odd-K3"]["lp_value"] > classical["odd-K3"]["map"] + 0.1
    assert classical["odd-K4"]["lp_value"] > classical["odd-K4"]["map"] + 0.1
    assert (folder / results["figures"][0]).exists()
    assert json.loads((folder / "results.json").read_text())["meta"]["quick"] is True
