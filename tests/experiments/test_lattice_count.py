"""The "lattice-count" experiment (Vempala 1997 Ch. 5): one quick run, properties checked."""

from __future__ import annotations

import json
from math import comb

import numpy as np
import pytest

from kernelkit.experiments import names, run_experiment
from kernelkit.experiments.lattice_count import QUICK, QUICK_CASES


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("lattice-count")
    res = run_experiment("lattice-count", quick=True, out=out, random_state=0)
    return out / "lattice-count", res.results


def test_registered():
    assert "lattice-count" in names()


def test_figure_and_json(quick):
    folder, res = quick
    assert res["figures"] == ["lattice_count.png"]
    assert (folder / "lattice_count.png").stat().st_size > 10_000
    data = json.loads((folder / "results.json").read_text())
    assert data["meta"]["name"] == "lattice-count" and data["meta"]["quick"] is True


def test_exact_counts_and_relative_error_target(quick):
    _, res = quick
    cases = res["cases"]
    assert [c["case"] for c in cases] == [c[0] for c in QUICK_CASES]
    for c in cases:
        if c["kind"] == "simplex":
            n, b = c["margins_or_n_b"]
            assert c["exact"] == comb(b + n, n)  # ⚠ not the thesis's C(b+n-1, n-1)
        run = c["run"]
        assert run["rel_error"] == pytest.approx(run["estimate"] / c["exact"] - 1)
        # the target, met on every case of the quick run (seed 0)
        assert abs(run["rel_error"]) <= 0.10, c["case"]
        assert abs(run["z"]) < 4, c["case"]
        assert 0 < run["acceptance_rate"] <= 1
        assert run["estimate"] == pytest.approx(run["acceptance_rate"] * run["volume"])
    # 2x3 table with margins (6, 9), (4, 5, 6): brute force gives 24
    assert cases[0]["exact"] == 24
    assert res["totals"]["all_within_target"]


def test_coverage_study(quick):
    _, res = quick
    cov = res["coverage"]
    assert list(cov) == QUICK["coverage_cases"]
    for v in cov.values():
        assert v["n_seeds"] == QUICK["n_seeds"] == len(v["z"])
        assert 0 <= v["covers_1se"] <= v["covers_95"] <= 1
        z = np.asarray(v["z"])
        assert np.mean(np.abs(z) <= 1) == pytest.approx(v["covers_1se"])
    t = res["totals"]
    assert t["coverage_runs"] == len(cov) * QUICK["n_seeds"]
    assert t["coverage_95"] >= 0.85  # 95 % at seed 0 (target 90 %); 0.85 leaves slack
    assert f"{100 * t['coverage_95']:.0f}%" in res["headline"]


def test_tables(quick):
    _, res = quick
    main = res["tables"]["Estimates vs exact counts (one run per case)"]
    assert len(main["rows"]) == len(QUICK_CASES)
    assert main["columns"][:6] == ["case", "n", "exact", "estimate", "stderr", "rel. error"]
    cov = res["tables"]["Coverage over seeds"]
    assert [r[0] for r in cov["rows"]] == QUICK["coverage_cases"]
