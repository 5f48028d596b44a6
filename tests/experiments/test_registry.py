"""The experiment registry and runner."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kernelkit import experiments
from kernelkit.experiments import register, run_experiment


@pytest.fixture(autouse=True)
def _restore_registry():
    experiments.names()  # load the real experiments first
    saved = dict(experiments._REGISTRY)
    yield
    experiments._REGISTRY.clear()
    experiments._REGISTRY.update(saved)


def test_names_are_sorted_and_include_krr_wine():
    names = experiments.names()
    assert names == sorted(names)
    assert "krr-wine" in names


def test_unknown_name_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown experiment 'nope'.*krr-wine"):
        experiments.get("nope")


def test_run_experiment_writes_json_with_numpy_values(tmp_path):
    @register("_test-numpy", title="t", source="s")
    def run(quick, out, random_state):
        return {"headline": "ok", "arr": np.arange(3), "x": np.float64(1.5), "bad": float("nan")}

    res = run_experiment("_test-numpy", quick=True, out=tmp_path, random_state=3)
    data = json.loads((tmp_path / "_test-numpy" / "results.json").read_text())
    assert data["results"]["arr"] == [0, 1, 2]
    assert data["results"]["x"] == 1.5
    assert data["results"]["bad"] == "nan"
    assert data["meta"]["random_state"] == 3
    assert res.headline == "ok"


def test_experiment_must_return_headline(tmp_path):
    @register("_test-nohead", title="t", source="s")
    def run(quick, out, random_state):
        return {"x": 1}

    with pytest.raises(TypeError, match="headline"):
        run_experiment("_test-nohead", quick=True, out=tmp_path)


def test_double_registration_rejected():
    @register("_test-dup", title="t", source="s")
    def a(quick, out, random_state):
        return {"headline": ""}

    with pytest.raises(ValueError, match="registered twice"):

        @register("_test-dup", title="t", source="s")
        def b(quick, out, random_state):
            return {"headline": ""}
