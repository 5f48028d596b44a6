"""Urry & Sollich (2013) Figs. 1, 2 and 4: quick runs (one per module) and the helpers."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from kernelkit.experiments import run_experiment
from kernelkit.experiments.urry_fig1 import _edge_correlations
from kernelkit.experiments.urry_fig4 import _crossing
from kernelkit.graphs import normalized_adjacency, random_walk_kernel


def _quick(tmp_path_factory, name):
    out = tmp_path_factory.mktemp(name)
    return out / name, run_experiment(name, quick=True, out=out, random_state=0).results


@pytest.fixture(scope="module")
def fig1(tmp_path_factory):
    return _quick(tmp_path_factory, "urry-fig1")


@pytest.fixture(scope="module")
def fig2(tmp_path_factory):
    return _quick(tmp_path_factory, "urry-fig2")


@pytest.fixture(scope="module")
def fig4(tmp_path_factory):
    return _quick(tmp_path_factory, "urry-fig4")


def _figures_exist(folder, res):
    assert res["figures"]
    for name in res["figures"]:
        assert (folder / name).stat().st_size > 10_000
    assert (folder / "results.json").exists()
    assert res["headline"] and res["tables"]


# ---------------------------------------------------------------------- Fig. 1
def test_fig1_tree_recursion_matches_quadrature_and_spec(fig1):
    folder, res = fig1
    _figures_exist(folder, res)
    tree = res["tree"]
    assert tree["max_recursion_vs_quadrature"] < 1e-12
    assert all(v < 1e-12 for v in tree["recursion_vs_quadrature"].values())
    # the spec's verified values (a = 2) and eq. 5 at l = 1
    assert round(tree["C1"]["10"], 3) == 0.790
    assert round(tree["C1"]["100"], 3) == 0.919
    assert tree["C1_inf"] == pytest.approx(2 * math.sqrt(2) / 3, abs=1e-15)
    # every profile starts at 1 and decays with the distance; p = 1 reaches one step only
    for profile in tree["C"]:
        assert profile[0] == 1.0
        assert np.all(np.diff(profile) <= 0)
    assert tree["C"][0][2:] == [0.0] * 13


def test_fig1_graph_correlations_follow_the_tree_then_go_to_one(fig1):
    _, res = fig1
    assert res["threshold"] == pytest.approx(math.log(500) / math.log(2))
    for a in (2, 4):
        g = res["graphs"][f"a={a}"]
        assert g["p_over_a"][0] == pytest.approx(1.0)
        assert g["p_over_a"][-1] == pytest.approx(1000.0)
        K, C = np.asarray(g["K"]), np.asarray(g["C1_tree"])
        assert abs(K[0] - C[0]) < 5e-3  # p/a = 1: the graph looks like the tree
        assert g["max_gap_below_threshold"] < 0.01
        assert g["max_gap_above_threshold"] > 0.05  # cycles matter beyond eq. 7
        assert K[-1] > 1 - 1e-9  # fully correlated on the finite graph
        assert C[-1] == pytest.approx(2 * math.sqrt(2) / 3, abs=5e-3)
        assert np.all(np.diff(C) > 0)
        assert g["eigendecomposition_vs_random_walk_kernel"] < 1e-12
        assert g["coincide_below_threshold"] and g["graph_to_one_tree_to_eq5"]


def test_fig1_edge_correlations_match_the_dense_kernel():
    G = nx.petersen_graph()
    N = normalized_adjacency(G)
    mu, U = np.linalg.eigh(N.toarray())
    upper = N.tocoo()
    keep = upper.row < upper.col
    rows, cols = upper.row[keep], upper.col[keep]
    ps = np.array([0, 1, 3, 10, 40])
    for a in (2.0, 3.0):
        ours = _edge_correlations(mu, U, rows, cols, a, ps)
        for k, p in enumerate(ps):
            C = random_walk_kernel(G, a, int(p))
            direct = C[rows, cols] / np.sqrt(C[rows, rows] * C[cols, cols])
            np.testing.assert_allclose(ours[:, k], direct, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------- Fig. 2
def test_fig2_global_normalisation_and_spikes(fig2):
    folder, res = fig2
    _figures_exist(folder, res)
    for key in ("er", "power-law"):
        r = res["results"][key]
        assert r["mean_C"] == pytest.approx(1.0, abs=1e-12)
        kappa = r["kappa"]
        # the text's formulas, summed here independently (a = 2, p = 10)
        iso = 0.5**10 / kappa
        two = sum(math.comb(10, q) * 0.5**10 for q in range(0, 11, 2)) / kappa
        spikes = r["spikes"]
        assert spikes["isolated"]["exact"] == pytest.approx(iso, rel=1e-13)
        assert spikes["two_vertex"]["exact"] == pytest.approx(two, rel=1e-13)
        edges = np.asarray(r["histogram"]["edges"])
        counts = np.asarray(r["histogram"]["counts"])
        assert counts.sum() == r["n_vertices"]
        assert np.asarray(r["histogram"]["cavity_counts"]).sum() == r["population"]
        for s in spikes.values():
            assert s["n_vertices"] > 0
            assert s["max_relative_deviation"] < 1e-12  # those vertices sit on the formula
            lo, hi = s["bin"]
            assert lo <= s["exact"] < hi
            b = int(np.flatnonzero(np.isclose(edges, lo))[0])
            assert counts[b] == s["bin_count"] >= s["n_vertices"]
            assert s["bin_is_local_peak"]
        # C_hat_ii <= 1 for a >= 2; on these graphs the largest is a two-vertex component
        assert spikes["two_vertex"]["exact"] <= r["max_C"] <= r["max_C_bound"]
        assert r["max_is_two_vertex_spike"]


def test_fig2_isolated_fraction_and_cavity_agree_with_the_graph(fig2):
    _, res = fig2
    for key in ("er", "power-law"):
        r = res["results"][key]
        iso = r["spikes"]["isolated"]
        se = math.sqrt(iso["fraction_large_graph_limit"] / r["n_vertices"])
        assert abs(iso["fraction"] - iso["fraction_large_graph_limit"]) < 5 * se
        assert r["kappa_cavity"] == pytest.approx(r["kappa"], rel=0.05)
        assert r["cavity"]["mean"] == pytest.approx(1.0, rel=0.05)
        assert r["cavity"]["quantiles"]["0.5"] == pytest.approx(
            r["graph"]["quantiles"]["0.5"], rel=0.05
        )
        assert r["ks_C_hat"] < 0.1
    er = res["results"]["er"]["spikes"]["isolated"]
    assert er["fraction_large_graph_limit"] == pytest.approx(math.exp(-3.0), rel=1e-9)


# ---------------------------------------------------------------------- Fig. 4
def test_fig4_eigenvalue_approximation_approaches_the_master_curve(fig4):
    folder, res = fig4
    _figures_exist(folder, res)
    e = res["eigen"]
    initial, tail = np.asarray(e["max_distance_initial"]), np.asarray(e["max_distance_tail"])
    assert np.all(np.diff(initial) < 0) and np.all(np.diff(tail) < 0)
    assert np.all(initial < tail)  # slower collapse in the tail
    assert e["exponent_initial"] < e["exponent_tail"] < 0
    assert np.all(np.diff(e["within_5pc_up_to_x"]) >= 0)
    local = np.asarray(e["crossings"]["0.5"]["local_exponent"])
    assert np.all(np.diff(local) > 0) and abs(local[-1] - 1.5) < 0.1
    master = np.asarray(e["master"])
    assert master[0] == pytest.approx(1.0, abs=1e-3) and np.all(np.diff(master) < 0)


def test_fig4_simulations_follow_the_eigenvalue_approximation(fig4):
    _, res = fig4
    s = res["simulation"]
    eps, eig = np.asarray(s["epsilon"]), np.asarray(s["eigenvalue_approximation"])
    assert eps.shape == (4, len(s["x"]))
    assert np.all(eps <= 1.0) and np.all(eps[:, -1] < 0.01)
    assert np.all(np.asarray(s["stderr"]) >= 0)
    # both ends of the curves: the eigenvalue approximation is accurate there (Sec. 3.4)
    np.testing.assert_allclose(eps[:, 0], eig[:, 0], rtol=0.03)
    np.testing.assert_allclose(eps[:, -1], eig[:, -1], rtol=0.03)
    half = s["crossings"]["0.5"]
    assert abs(half["exponent"] - s["eigen_crossings"]["0.5"]["exponent"]) < 0.15
    assert np.all(np.diff(s["max_log_distance_to_master"]) < 0)
    # at fixed nu p^(3/2) a larger p is closer to the master curve (below it)
    assert np.all(np.diff(eps[:, -1]) > 0)


def test_crossing_interpolates_in_log_log():
    x = np.logspace(-1, 2, 7)
    eps = 1.0 / x  # a power law is interpolated exactly
    assert _crossing(x, eps, 0.05) == pytest.approx(20.0, rel=1e-12)
    assert math.isnan(_crossing(x, eps, 1e-3))
    assert math.isnan(_crossing(x, eps, 100.0))
