"""The "rowland-rerooting" experiment (Rowland 2018 §2.5, App. 2.B): one quick run."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from kernelkit.experiments import names, run_experiment
from kernelkit.experiments.rowland_rerooting import (
    METHODS,
    METRICS,
    QUICK,
    approximate_parities,
    evaluate_models,
    exact_parities,
)
from kernelkit.pgm.belief_propagation import loopy_bp
from kernelkit.pgm.parametrization import complete_hypergraph_scopes, random_model
from kernelkit.pgm.transforms import reroot, uproot


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("rowland-rerooting")
    res = run_experiment("rowland-rerooting", quick=True, out=out, random_state=0)
    return out / "rowland-rerooting", res.results


def test_registered():
    assert "rowland-rerooting" in names()


def test_shapes(quick):
    _, res = quick
    n_sweeps = sum(len(v) for v in QUICK["sweeps"].values())
    assert len(res["sweeps"]) == n_sweeps
    shape = (len(QUICK["w_values"]), QUICK["n_runs"])
    for sw in res["sweeps"]:
        assert set(sw["values"]) == set(METHODS)
        for m in METHODS:
            assert set(sw["values"][m]) == set(METRICS)
            for mt in METRICS:
                assert np.shape(sw["values"][m][mt]) == shape
                assert len(sw["summary"][m][mt]["median"]) == shape[0]
        assert len(sw["choices"]) == shape[0] and len(sw["choices"][0]) == shape[1]


def test_errors_nonnegative_and_best_worst_bracket(quick):
    """Errors are >= 0; best / worst are chosen by the log Z error over a pool holding the
    original (the root's rerooting) and every heuristic's choice, so they bracket them."""
    _, res = quick
    for sw in res["sweeps"]:
        v = {m: {mt: np.asarray(sw["values"][m][mt]) for mt in METRICS} for m in METHODS}
        for m in METHODS:
            assert np.all(v[m]["log_z"] >= 0) and np.all(v[m]["marginals"] >= 0)
            assert np.all(v[m]["map"] >= -1e-9)  # exact MAP score is the largest
            assert np.all(v[m]["seconds"] > 0)
        for m in ("original", "K", "G", "maxtW"):
            assert np.all(v["best"]["log_z"] <= v[m]["log_z"] + 1e-12)
            assert np.all(v[m]["log_z"] <= v["worst"]["log_z"] + 1e-12)


def test_counts_and_tables(quick):
    _, res = quick
    for sw in res["sweeps"]:
        c = sw["counts"]
        assert 0 <= c["dl_not_converged"] <= c["solves"]
        assert 0 <= c["map_not_converged"] <= c["solves"]
    table = res["tables"]["Thesis findings (§2.5.3) checked on these runs"]
    assert table["columns"] == ["statement", "numbers used", "holds"]
    assert len(table["rows"]) >= 3 * 2 * 4 + len(res["sweeps"])
    assert all(row[2] in ("yes", "no") for row in table["rows"])
    assert res["findings"] == table["rows"]


def test_figures_and_json(quick):
    folder, res = quick
    assert res["figures"] == [METRICS[m][0] for m in METRICS]
    for f in res["figures"]:
        assert (folder / f).stat().st_size > 10_000
    data = json.loads((folder / "results.json").read_text())
    assert data["meta"]["name"] == "rowland-rerooting"


def test_tree_model_is_exact():
    """On two variables every rerooting is a tree (a pair or less), so the double-loop,
    max-product and the maps back are exact: all errors vanish but the uprooted (a
    triangle) ones."""
    m = random_model([(0,), (1,), (0, 1)], {1: 2.0, 2: 3.0}, random_state=1)
    [res] = evaluate_models([m])
    assert sorted(res["per_vertex"]) == [0, 1, 2]
    for rec in res["per_vertex"].values():
        assert rec["log_z"] < 1e-8 and rec["marginals"] < 1e-8 and rec["map"] == 0.0
        assert rec["dl_converged"] and rec["map_converged"]


def test_parities_brute_force():
    """Exact and (on a tree) approximate ``P(#ones in x_E even)`` against enumeration,
    through every transformation's map back."""
    m = random_model(complete_hypergraph_scopes(4), {1: 1.0, 2: 2.0, 3: 1.0, 4: 2.0}, 3)
    X = np.array(list(itertools.product([0, 1], repeat=4)))
    s = m.score(X)
    p = np.exp(s - s.max())
    p /= p.sum()
    q = np.array([p[X[:, list(f.scope)].sum(axis=1) % 2 == 0].sum() for f in m.factors])
    np.testing.assert_allclose(exact_parities(m), q, atol=1e-12)
    # exact beliefs of the transformed models, by enumeration, mapped back
    for r in (uproot(m), reroot(m, 2)):
        Y = np.array(list(itertools.product([0, 1], repeat=r.model.n_variables)))
        sy = r.model.score(Y)
        py = np.exp(sy - sy.max())
        py /= py.sum()
        beliefs = []
        for f in r.model.factors:
            b = np.zeros((2,) * f.arity)
            np.add.at(b, tuple(Y[:, list(f.scope)].T), py)
            beliefs.append(b)
        np.testing.assert_allclose(approximate_parities(r, beliefs), q, atol=1e-12)
    # loopy BP's beliefs have the right shapes for the map
    r = reroot(m, 0)
    est = approximate_parities(r, loopy_bp(r.model).factor_marginals)
    assert est.shape == q.shape and np.all((est >= 0) & (est <= 1))


def test_two_processes_give_the_same_numbers(tmp_path):
    """Each sweep is seeded on its own: running them on two processes changes nothing."""
    from kernelkit.experiments.rowland_rerooting import run_with

    tiny = {
        **QUICK,
        "sweeps": {"K8": [2, 4], "grid5x5": []},
        "w_values": [2.0],
        "n_runs": 1,
        "max_iter": 5,
        "map_max_iter": 20,
    }
    one = run_with({**tiny, "n_jobs": 1}, tmp_path / "one", 3)
    two = run_with({**tiny, "n_jobs": 2}, tmp_path / "two", 3)
    for a, b in zip(one["sweeps"], two["sweeps"], strict=True):
        assert (a["family"], a["k"]) == (b["family"], b["k"])
        for m in METHODS:
            for mt in ("log_z", "map", "marginals"):
                np.testing.assert_array_equal(a["values"][m][mt], b["values"][m][mt])
