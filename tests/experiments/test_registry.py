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


@pytest.mark.parametrize(
    ("seed", "error", "match"),
    [
        (None, TypeError, "random_state must be an integer seed, got NoneType"),
        (np.random.RandomState(0), TypeError, "got RandomState"),
        (1.5, TypeError, "got float"),
        (True, TypeError, "got bool"),
        (-1, ValueError, r"\[0, 2\*\*32 - 1\], got -1"),
        (2**32, ValueError, r"got 4294967296"),
    ],
)
def test_run_experiment_needs_an_integer_seed(tmp_path, seed, error, match):
    """No experiment silently replaces a non-integer random_state by a fixed seed."""
    calls = []

    @register("_test-seed", title="t", source="s")
    def run(quick, out, random_state):
        calls.append(random_state)
        return {"headline": ""}

    with pytest.raises(error, match=match):
        run_experiment("_test-seed", quick=True, out=tmp_path, random_state=seed)
    assert calls == []


def test_run_experiment_passes_numpy_integers_as_int(tmp_path):
    seen = []

    @register("_test-npint", title="t", source="s")
    def run(quick, out, random_state):
        seen.append(random_state)
        return {"headline": ""}

    run_experiment("_test-npint", quick=True, out=tmp_path, random_state=np.int64(5))
    assert seen == [5] and type(seen[0]) is int
