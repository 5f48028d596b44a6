"""The "almost-balanced" experiment (Rowland 2018, Ch. 3): one quick run, properties checked."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kernelkit.experiments import names, run_experiment
from kernelkit.experiments.almost_balanced import QUICK


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("almost-balanced")
    res = run_experiment("almost-balanced", quick=True, out=out, random_state=0)
    return out / "almost-balanced", res.results


def test_registered():
    assert "almost-balanced" in names()


def test_figure_and_json(quick):
    folder, res = quick
    assert res["figures"] == ["almost_balanced.png"]
    assert (folder / "almost_balanced.png").stat().st_size > 10_000
    data = json.loads((folder / "results.json").read_text())
    assert data["meta"]["name"] == "almost-balanced" and data["meta"]["quick"] is True


def test_exact_methods_agree_on_every_model(quick):
    _, res = quick
    rows = res["models"]
    assert len(rows) == len(QUICK["sizes"]) * QUICK["n_models"]
    assert sorted({r["n"] for r in rows}) == QUICK["sizes"]
    for r in rows:
        assert r["reference"] == "brute force"  # quick sizes are all enumerated
        for method in ("L3s LP", "clamping", "brute force", "L3"):
            assert r[method]["agrees"], (r["n"], r["seed"], method)
            assert abs(r[method]["gap"]) < 1e-6 * (1 + abs(r["exact"]))
        assert r["L3s LP"]["integral"]
        # L2 is an upper bound (eq. 1.11), never below the MAP score
        assert r["L2"]["gap"] > -1e-6


def test_l2_is_loose_on_some_models_and_tight_on_balanced_ones(quick):
    _, res = quick
    rows = res["models"]
    gaps = np.array([r["L2"]["gap"] for r in rows])
    assert (gaps > 1e-3).sum() >= 5
    for r in rows:
        if r["balanced"]:
            assert r["L2"]["agrees"]  # Thm 1.14
    t = res["totals"]
    assert t["L2"] == sum(r["L2"]["agrees"] for r in rows) < t["models"]
    assert t["L3s LP"] == t["clamping"] == t["L3"] == t["models"]
    assert np.isclose(t["L2_max_gap"], gaps.max())


def test_lp_sizes(quick):
    """L3s: n + C(n, 2) variables and 3 C(n, 2) + 4 C(n - 1, 2) rows; L3: 4 C(n, 3) TRI rows."""
    _, res = quick
    for r in res["models"]:
        n = r["n"]
        pairs = n * (n - 1) // 2
        assert r["L3s LP"]["n_lp_variables"] == r["L3"]["n_lp_variables"] == n + pairs
        assert r["L3s LP"]["n_constraints"] == 3 * pairs + 4 * (n - 1) * (n - 2) // 2
        assert r["L3"]["n_constraints"] == 3 * pairs + 4 * n * (n - 1) * (n - 2) // 6


def test_tables_and_headline(quick):
    _, res = quick
    tables = res["tables"]
    agree = tables["Exact MAP: agreement with the exact score (counts of models)"]
    assert [row[0] for row in agree["rows"]] == [str(n) for n in QUICK["sizes"]]
    col = agree["columns"].index("L3s = MAP")
    assert all(row[col] == f"{QUICK['n_models']}/{QUICK['n_models']}" for row in agree["rows"])
    thesis = tables["Thesis statements checked on these models (Ch. 3 has no numerical experiment)"]
    assert thesis["rows"][0][2] == f"{res['totals']['models']}/{res['totals']['models']}"
    times = tables["Mean time per model (ms)"]
    assert times["columns"][1:] == ["L3s LP", "clamping", "brute force", "L2", "L3"]
    n_models = res["totals"]["models"]
    assert f"L3s LP = MAP on {n_models}/{n_models}" in res["headline"]
