"""Tests of kernelkit.pgm.signings: orbits, resigning, gap search and the exact pipeline."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from kernelkit.pgm.signings import (
    SignedGraph,
    certify_tightness,
    find_gap,
    forbidden_minor_graphs,
    odd_complete_graph,
    relaxation_gap,
    signing_orbits,
)


def _brute_map(sg, phi):
    n = sg.n_vertices
    E = sg.edge_index()
    X = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)
    return float(np.max(X @ phi[:n] + (X[:, E[:, 0]] * X[:, E[:, 1]]) @ phi[n:]))


@pytest.mark.parametrize(("name", "count"), [("K5", 7), ("O6", 14), ("M8", 8), ("Y5", 12)])
def test_orbit_counts_match_thesis(name, count):
    G = forbidden_minor_graphs()[name]
    orb = signing_orbits(G)
    assert len(orb) == count
    c = G.number_of_edges() - G.number_of_nodes() + 1
    assert orb.n_classes == 2**c == int(orb.sizes.sum())


def test_orbit_sizes_burnside_small():
    # K3: balanced and odd; K4: 3 classes of cycle parity up to S4
    assert len(signing_orbits(nx.complete_graph(3))) == 2
    assert len(signing_orbits(nx.complete_graph(4))) == 3


def test_resigning_class_invariant_and_orbit_membership():
    rng = np.random.RandomState(0)
    G = nx.octahedral_graph()
    sg = SignedGraph.from_signs(G, rng.choice([-1, 1], G.number_of_edges()))
    for _ in range(5):
        S = [v for v in G.nodes if rng.rand() < 0.5]
        assert np.array_equal(sg.resign(S).class_vector(), sg.class_vector())
    odd = odd_complete_graph(5)
    first = signing_orbits(nx.complete_graph(5)).representatives[0]
    assert np.array_equal(first.class_vector(), odd.class_vector())
    assert not odd.is_balanced and SignedGraph.from_signs(G, 1).is_balanced


def test_lp_value_invariant_under_resigning():
    """Flipping variables maps potentials and L_r values one to one (Prop. 1.19)."""
    rng = np.random.RandomState(1)
    sg = odd_complete_graph(4)
    n = sg.n_vertices
    phi = np.concatenate([rng.uniform(0.5, 1.5, n), -rng.uniform(0.5, 1, 6)])
    E = sg.edge_index()
    S = np.array([True, False, True, False])
    # flip x_i -> 1 - x_i on S: the same score function up to a constant
    from kernelkit.pgm.signings import _flip_potential

    flipped = _flip_potential(sg, phi, S)
    X = ((np.arange(16)[:, None] >> np.arange(n)) & 1).astype(float)
    Xf = np.where(S, 1 - X, X)
    score = X @ phi[:n] + (X[:, E[:, 0]] * X[:, E[:, 1]]) @ phi[n:]
    score_f = Xf @ flipped[:n] + (Xf[:, E[:, 0]] * Xf[:, E[:, 1]]) @ flipped[n:]
    const = score[0] - score_f[0]
    assert np.allclose(score, score_f + const)
    resigned = sg.resign([0, 2])
    assert resigned.respects(flipped)
    for r in (2, 3):
        lp, mp = relaxation_gap(sg, phi, r)
        lp_f, mp_f = relaxation_gap(resigned, flipped, r)
        assert lp - mp == pytest.approx(lp_f - mp_f, abs=1e-7)


def test_odd_k3_certificate_by_brute_force():
    sg = odd_complete_graph(3)
    cert = certify_tightness(sg, 2)
    assert cert.tight is False
    phi = cert.potential
    assert sg.respects(phi)
    lp, mp = relaxation_gap(sg, phi, 2)
    assert mp == pytest.approx(_brute_map(sg, phi))
    assert lp > mp + 0.1
    # L3 = M on K3
    assert certify_tightness(sg, 3).tight is True


def test_odd_k4_l3_not_tight_l4_tight():
    sg = odd_complete_graph(4)
    res = find_gap(sg, 3, random_state=0)
    assert res.gap > 0.1 and sg.respects(res.potential)
    assert res.map_score == pytest.approx(_brute_map(sg, res.potential))
    assert certify_tightness(sg, 4).tight is True


def test_balanced_tight_for_l2():
    sg = SignedGraph.from_signs(nx.complete_graph(4), 1).resign([1])
    assert sg.is_balanced
    assert certify_tightness(sg, 2).tight is True
    assert find_gap(sg, 2, n_restarts=3, random_state=0).tight_found


def test_odd_k5_l4_not_tight():
    cert = certify_tightness(odd_complete_graph(5), 4)
    assert cert.tight is False and cert.max_gap > 0.1


def test_rays_lie_in_cone():
    from kernelkit.pgm.signings import _cone_rows, _extreme_rays

    sg = SignedGraph.from_signs(nx.complete_graph(4), [1, -1, 1, 1, -1, 1])
    A = _cone_rows(sg)
    d = sg.n_vertices + sg.signs.shape[0]
    R = _extreme_rays(A, d, max_rays=10_000)
    assert np.all(R @ A.T >= -1e-9)
    assert R.shape[0] >= 1
    # each ray is tight on d - 1 independent rows
    for ray in R:
        tight = A[np.abs(A @ ray) <= 1e-9]
        assert np.linalg.matrix_rank(tight) == d - 1


def test_validation():
    with pytest.raises(ValueError, match="signs"):
        SignedGraph.from_signs(nx.path_graph(3), [1, 0])
    with pytest.raises(TypeError, match="graph"):
        SignedGraph.from_signs(nx.DiGraph([(0, 1)]), 1)
    with pytest.raises(ValueError, match="r must be"):
        relaxation_gap(odd_complete_graph(3), np.zeros(6), 4)
    with pytest.raises(ValueError, match="potential"):
        relaxation_gap(odd_complete_graph(3), np.zeros(5), 2)
    with pytest.raises(TypeError, match="sg"):
        find_gap(nx.path_graph(3), 2)


def _normalised_rows(R, d):
    R = np.asarray(R, dtype=float).reshape(-1, d)
    R = R / np.abs(R).max(axis=1, keepdims=True)
    return np.unique(np.round(R, 7), axis=0)


def _brute_force_rays(A, d, tol=1e-9):
    """Every (d-1)-subset of rows of rank d-1: its null vector (either sign) if feasible."""
    from itertools import combinations

    found = []
    for rows in combinations(range(A.shape[0]), d - 1):
        sub = A[list(rows)]
        _, sv, vt = np.linalg.svd(sub)
        if np.sum(sv > 1e-9) != d - 1:
            continue
        for ray in (vt[-1], -vt[-1]):
            if np.all(A @ ray >= -tol):
                found.append(ray)
    return _normalised_rows(np.array(found), d)


@pytest.mark.parametrize("seed", range(6))
def test_extreme_rays_match_brute_force_on_random_cones(seed):
    from kernelkit.pgm.signings import _extreme_rays

    rng = np.random.RandomState(seed)
    d = 4 + seed % 2
    # a pointed cone: the identity rows plus random integer rows (degenerate on purpose)
    A = np.vstack([np.eye(d), rng.randint(-1, 3, size=(6 + seed, d))]).astype(float)
    A = A[rng.permutation(A.shape[0])]
    R = _extreme_rays(A, d, max_rays=10_000)
    assert np.all(R @ A.T >= -1e-9)
    assert R.shape[0] >= 1
    np.testing.assert_allclose(_normalised_rows(R, d), _brute_force_rays(A, d), atol=1e-6)


@pytest.mark.parametrize("signs", [[1, 1, 1], [1, 1, -1], [-1, -1, -1], [1, -1, -1]])
def test_extreme_rays_of_k3_cones_match_brute_force(signs):
    from kernelkit.pgm.signings import _cone_rows, _extreme_rays

    sg = SignedGraph.from_signs(nx.complete_graph(3), signs)
    A = _cone_rows(sg)
    R = _extreme_rays(A, 6, max_rays=10_000)
    np.testing.assert_allclose(_normalised_rows(R, 6), _brute_force_rays(A, 6), atol=1e-6)


def test_extreme_rays_rejects_a_cone_with_a_line():
    from kernelkit.pgm.signings import _extreme_rays

    with pytest.raises(ValueError, match="not pointed"):
        _extreme_rays(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), 3, max_rays=10)


def test_rays_on_a_treewidth_3_support_have_no_l4_gap():
    """The reduction behind ``n_skipped``: a ray of a K5 cone with a zero edge lives on
    K5 minus an edge (treewidth 3), where L4 is exact."""
    from kernelkit.pgm.signings import _cone_rows, _extreme_rays, _lp

    sg = odd_complete_graph(5).resign([0, 1])  # some even edges: rays with positive entries
    R = _extreme_rays(_cone_rows(sg), 15, max_rays=100_000)
    partial = R[np.any(R > 1e-9, axis=1) & np.any(np.abs(R[:, 5:]) <= 1e-9, axis=1)]
    assert partial.shape[0] > 0
    for ray in partial[:: max(1, partial.shape[0] // 8)]:
        value, _ = _lp(sg, ray, 4)
        assert value <= 1e-6 and _brute_map(sg, ray) == pytest.approx(0.0, abs=1e-9)
    cert = certify_tightness(odd_complete_graph(5), 4, stop_at_gap=False)
    assert cert.tight is False and cert.n_skipped > 0
    assert cert.n_lps + cert.n_skipped <= cert.n_rays


def test_wagner_balanced_orbit_certified_tight():
    """M8's last orbit (balanced): exact, every ray needs no LP or has no gap."""
    orb = signing_orbits(forbidden_minor_graphs()["M8"])
    sg = orb.representatives[-1]
    assert sg.is_balanced
    cert = certify_tightness(sg, 4)
    assert cert.tight is True and cert.n_cones == 18 and cert.max_gap <= 1e-6


@pytest.mark.slow
def test_wagner_orbit_with_lps_certified_tight():
    """M8's third orbit solves ~19 L4 LPs on full-support rays (about 20 s): tight (thesis)."""
    sg = signing_orbits(forbidden_minor_graphs()["M8"]).representatives[2]
    cert = certify_tightness(sg, 4)
    assert cert.tight is True and cert.n_lps > 0 and cert.n_skipped > 0
