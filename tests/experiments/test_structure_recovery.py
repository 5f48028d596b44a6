"""The "structure-recovery" experiment: one quick run, properties checked."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kernelkit.experiments import names, run_experiment
from kernelkit.experiments.structure_recovery import (
    DEGREE,
    METHODS,
    QUICK,
    population_false_edges,
    sample_size,
    threshold,
)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("structure-recovery")
    res = run_experiment("structure-recovery", quick=True, out=out, random_state=0)
    return out / "structure-recovery", res.results


def test_registered():
    assert "structure-recovery" in names()


def test_figure_and_json(quick):
    folder, res = quick
    assert res["figures"] == ["structure_recovery.png"]
    assert (folder / "structure_recovery.png").stat().st_size > 10_000
    data = json.loads((folder / "results.json").read_text())
    assert data["meta"]["name"] == "structure-recovery" and data["meta"]["quick"] is True
    assert data["results"]["settings"]["penalty_constants"].keys() == set(METHODS)


def test_grid_and_sample_sizes(quick):
    _, res = quick
    pts = res["points"]
    assert [(r["p"], r["scaled_n"]) for r in pts] == [
        (p, t) for p in QUICK["p_values"] for t in QUICK["scaled_n"]
    ]
    for r in pts:
        assert r["n"] == int(np.ceil(r["scaled_n"] * DEGREE * np.log(r["p"])))
        for m in METHODS:
            prob = r[m]["probability"]
            assert prob * QUICK["n_trials"] == pytest.approx(round(prob * QUICK["n_trials"]))


def test_recovery_grows_with_n(quick):
    """Few samples: no method recovers the graph; many: every method mostly does."""
    _, res = quick
    for m in METHODS:
        for p in QUICK["p_values"]:
            prob = res["summary"][m][str(p)]["probability"]
            assert prob[0] == 0.0, (m, p)
            assert prob[-1] >= 0.6, (m, p)
            assert prob[-1] > prob[0]
    # missed edges shrink as n grows (averaged over the trials)
    for p in QUICK["p_values"]:
        at = [r for r in res["points"] if r["p"] == p]
        for m in METHODS:
            missed = [r[m]["mean_missed_edges"] for r in at]
            assert missed[-1] < missed[0]
            assert missed[0] > 0.5 * DEGREE * p / 2 * 0.5  # most edges missed at first


def test_parallel_lasso_needs_fewest_samples(quick):
    """The notes' ordering at the lower end: parallel lasso (d log p) recovers from a
    smaller rescaled n than the graphical lasso (d^2 log p)."""
    _, res = quick
    for p in QUICK["p_values"]:
        pl = res["summary"]["parallel lasso"][str(p)]["probability"]
        gl = res["summary"]["graphical lasso"][str(p)]["probability"]
        assert sum(pl) > sum(gl)


def test_tables_and_headline(quick):
    _, res = quick
    table = res["tables"]["Probability of exact recovery"]
    assert table["columns"][3:] == list(METHODS)
    assert len(table["rows"]) == len(QUICK["p_values"]) * len(QUICK["scaled_n"])
    assert "50% exact recovery" in res["headline"]


def test_helpers():
    assert sample_size(1.0, 16, 3) == int(np.ceil(3 * np.log(16)))
    assert threshold([1, 2, 4, 8], [0.0, 0.6, 0.4, 1.0], 0.5) == 8.0
    assert threshold([1, 2, 4], [0.0, 0.6, 0.9], 0.5) == 2.0
    assert threshold([1, 2], [0.0, 0.1], 0.5) is None


def test_population_false_edges_is_the_graphical_lasso_on_the_true_covariance():
    """``sqrt(p) L^T`` has the true covariance as its (uncentred) empirical covariance, so the
    count equals scikit-learn's graphical lasso run on the covariance matrix itself."""
    import warnings

    from sklearn.covariance import graphical_lasso as sk_graphical_lasso

    from kernelkit.structure.sampling import random_gaussian_graphical_model

    for seed, alpha in ((0, 0.1), (1, 0.05), (2, 0.6)):
        model = random_gaussian_graphical_model(
            16, DEGREE, random_state=np.random.RandomState(seed)
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, prec = sk_graphical_lasso(np.linalg.inv(model.precision), alpha=alpha, tol=1e-10)
        est = np.abs(prec) > 1e-8
        truth = model.precision != 0
        np.fill_diagonal(est, False)
        expected = int(np.sum(est & ~truth)) // 2
        assert population_false_edges(16, alpha, seed) == expected


def test_population_table_and_convergence_counts(quick):
    _, res = quick
    assert set(res["population"]) == {str(p) for p in QUICK["p_values"]}
    for v in res["population"].values():
        assert 0 <= v["instances_with_false_edges"] <= v["n_instances"] == QUICK["n_trials"]
    for r in res["points"]:
        assert 0 <= r["graphical lasso"]["not_converged"] <= QUICK["n_trials"]
