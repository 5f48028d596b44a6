"""Polytopes, their LP checks, builders and exact lattice enumeration (Vempala 1997 Ch. 5)."""

from __future__ import annotations

import itertools
from math import comb

import networkx as nx
import numpy as np
import pytest

from kernelkit.geometry.polytopes import (
    Polytope,
    b_matching_polytope,
    complete_contingency_table,
    contingency_table_polytope,
    enumerate_lattice_points,
    flow_polytope,
    simplex_polytope,
)


def _as_set(points):
    return {tuple(int(v) for v in p) for p in np.asarray(points)}


def _brute(P, lo, hi):
    """Every integer point of the box [lo, hi] that satisfies Ax <= b."""
    ranges = [range(a, b + 1) for a, b in zip(lo, hi, strict=True)]
    grid = np.array(list(itertools.product(*ranges)))
    return _as_set(grid[P.contains(grid)])


# ---------------------------------------------------------------- validation and LP checks


def test_shapes_and_finiteness_are_checked():
    with pytest.raises(ValueError, match="b must have one entry per row of A"):
        Polytope(np.eye(2), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="A must be 2-dimensional"):
        Polytope([1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="b must be 1-dimensional"):
        Polytope(np.eye(2), [[1.0], [2.0]])
    with pytest.raises(ValueError, match="A contains NaN"):
        Polytope([[np.nan, 0.0]], [1.0])
    with pytest.raises(ValueError, match="b contains NaN or infinity"):
        Polytope(np.eye(2), [1.0, np.inf])
    with pytest.raises(TypeError, match="A must be an array of numbers"):
        Polytope("A", [1.0])
    with pytest.raises(ValueError, match="offset and basis must be given together"):
        Polytope(np.eye(2), [1.0, 1.0], offset=[0.0, 0.0])
    with pytest.raises(ValueError, match="basis must have shape"):
        Polytope(np.eye(2), [1.0, 1.0], offset=[0.0], basis=np.ones((1, 3)))


def test_empty_polytope_gives_a_clear_error():
    P = Polytope([[1.0], [-1.0]], [0.0, -1.0])  # x <= 0 and x >= 1
    assert P.is_empty()
    assert P.is_bounded()
    for call in (P.bounding_box, P.chebyshev_ball, P.check, lambda: enumerate_lattice_points(P)):
        with pytest.raises(ValueError, match="is empty"):
            call()


def test_unbounded_polytope_gives_a_clear_error():
    P = Polytope([[-1.0, 0.0], [0.0, -1.0]], [0.0, 0.0])  # the positive quadrant
    assert not P.is_empty()
    assert not P.is_bounded()
    for call in (P.bounding_box, P.chebyshev_ball, lambda: enumerate_lattice_points(P)):
        with pytest.raises(ValueError, match="unbounded"):
            call()


def test_bounding_box_chebyshev_ball_and_contains():
    P = simplex_polytope(2, 4.0)
    lo, hi = P.bounding_box()
    np.testing.assert_allclose(lo, [0, 0], atol=1e-9)
    np.testing.assert_allclose(hi, [4, 4], atol=1e-9)
    centre, radius = P.chebyshev_ball()
    # inradius of the right isosceles triangle with legs 4: 4 / (2 + sqrt 2)
    assert radius == pytest.approx(4 / (2 + np.sqrt(2)))
    np.testing.assert_allclose(centre, [radius, radius], atol=1e-9)
    assert P.contains(P.interior_point())
    assert P.contains([[0, 0], [4, 0], [2, 2], [2.5, 2]]).tolist() == [True, True, True, False]
    with pytest.raises(ValueError, match="X must have 2 columns"):
        P.contains([[1.0, 2.0, 3.0]])


def test_flat_polytope_has_no_interior_point():
    P = Polytope([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]], [0.0, 0.0, 1.0, 0.0])
    assert P.chebyshev_ball()[1] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="empty interior"):
        P.interior_point()


# ---------------------------------------------------------------- builders


@pytest.mark.parametrize(("n", "b"), [(1, 5), (2, 3), (3, 4), (4, 2), (2, 0)])
def test_simplex_count_is_binomial(n, b):
    # ⚠ Vempala §5.4 writes C(b+n-1, n-1), the count of sum(x) = b
    assert len(enumerate_lattice_points(simplex_polytope(n, b))) == comb(b + n, n)


@pytest.mark.parametrize(
    ("rows", "cols"), [([2, 3], [1, 4]), ([3, 2, 1], [2, 2, 2]), ([2, 2, 3], [1, 3, 1, 2])]
)
def test_contingency_tables_match_brute_force(rows, cols):
    P = contingency_table_polytope(rows, cols)
    p, q = len(rows), len(cols)
    assert P.n_dims == (p - 1) * (q - 1)

    def compositions(total, parts):  # every row with the given sum
        return [c for c in itertools.product(range(total + 1), repeat=parts) if sum(c) == total]

    brute = set()
    for table in itertools.product(*[compositions(r, q) for r in rows]):
        t = np.array(table)
        if (t.sum(axis=0) == cols).all():
            brute.add(tuple(t[:-1, :-1].ravel()))
    points = enumerate_lattice_points(P)
    assert _as_set(points) == brute
    tables = complete_contingency_table(points, rows, cols)
    assert (tables >= 0).all()
    np.testing.assert_array_equal(tables.sum(axis=2), np.tile(rows, (len(points), 1)))
    np.testing.assert_array_equal(tables.sum(axis=1), np.tile(cols, (len(points), 1)))


def test_contingency_bad_margins():
    with pytest.raises(ValueError, match="equal totals"):
        contingency_table_polytope([1, 2], [1, 1])
    with pytest.raises(ValueError, match="non-negative integers"):
        contingency_table_polytope([1.5, 1.5], [1, 2])
    with pytest.raises(ValueError, match="non-negative integers"):
        contingency_table_polytope([-1, 3], [1, 1])
    with pytest.raises(ValueError, match="at least 2 entries"):
        contingency_table_polytope([3], [1, 2])
    with pytest.raises(TypeError, match="non-negative integers"):
        contingency_table_polytope(["a", "b"], [1, 2])


def _brute_flows(G, s, t, value):
    edges = list(G.edges)
    caps = [G.edges[e]["capacity"] for e in edges]
    found = set()
    for x in itertools.product(*[range(c + 1) for c in caps]):
        net = dict.fromkeys(G.nodes, 0)
        for (u, v), f in zip(edges, x, strict=True):
            net[u] += f
            net[v] -= f
        want = {v: 0 for v in G.nodes}
        want[s], want[t] = value, -value
        if net == want:
            found.add(x)
    return found


def test_flow_polytope_matches_brute_force():
    G = nx.DiGraph()
    for u, v, c in [
        ("s", "a", 2),
        ("s", "b", 2),
        ("a", "b", 1),
        ("b", "a", 1),  # antiparallel pair
        ("a", "t", 2),
        ("b", "t", 3),
        ("c", "d", 1),  # a separate component with a cycle (a circulation)
        ("d", "c", 1),
    ]:
        G.add_edge(u, v, capacity=c)
    for value in (0, 1, 3):
        P = flow_polytope(G, "s", "t", value)
        assert P.n_dims == G.number_of_edges() - G.number_of_nodes() + 2  # two components
        flows = P.lift(enumerate_lattice_points(P))
        assert _as_set(np.round(flows)) == _brute_flows(G, "s", "t", value)


def test_flow_polytope_bad_input():
    G = nx.DiGraph()
    G.add_edge("s", "t", capacity=1)
    G.add_edge("t", "s", capacity=1)
    with pytest.raises(ValueError, match="source 'x' is not a node"):
        flow_polytope(G, "x", "t", 1)
    with pytest.raises(ValueError, match="source and sink must be different"):
        flow_polytope(G, "s", "s", 1)
    with pytest.raises(ValueError, match="value must be a number >= 0"):
        flow_polytope(G, "s", "t", -1)
    with pytest.raises(TypeError, match=r"networkx\.DiGraph"):
        flow_polytope(nx.Graph(G), "s", "t", 1)
    H = G.copy()
    H.add_edge("t", "u")
    with pytest.raises(ValueError, match="needs a finite capacity"):
        flow_polytope(H, "s", "t", 1)
    K = nx.DiGraph()
    K.add_edge("s", "a", capacity=1)
    K.add_edge("a", "t", capacity=1)
    with pytest.raises(ValueError, match="no cycle"):
        flow_polytope(K, "s", "t", 1)
    Q = nx.DiGraph()
    Q.add_edges_from([("s", "a"), ("a", "s"), ("t", "b"), ("b", "t")], capacity=1)
    with pytest.raises(ValueError, match="different components"):
        flow_polytope(Q, "s", "t", 1)
    # a value beyond the maximum flow: an empty polytope, a clear error when used
    with pytest.raises(ValueError, match="is empty"):
        enumerate_lattice_points(flow_polytope(G, "s", "t", 2))


def test_b_matching_matches_brute_force():
    G = nx.cycle_graph(4)
    G.add_edge(0, 2)
    b = {0: 2, 1: 1, 2: 3, 3: 2}
    P = b_matching_polytope(G, b)
    edges = list(G.edges)
    brute = set()
    for x in itertools.product(range(4), repeat=len(edges)):
        load = dict.fromkeys(G.nodes, 0)
        for (u, v), w in zip(edges, x, strict=True):
            load[u] += w
            load[v] += w
        if all(load[v] <= b[v] for v in G.nodes):
            brute.add(x)
    assert _as_set(enumerate_lattice_points(P)) == brute
    assert _as_set(enumerate_lattice_points(b_matching_polytope(G, [2, 1, 3, 2]))) == brute


def test_b_matching_bad_input():
    with pytest.raises(TypeError, match="undirected"):
        b_matching_polytope(nx.DiGraph([(0, 1)]), [1, 1])
    with pytest.raises(ValueError, match="one value per node"):
        b_matching_polytope(nx.path_graph(3), [1, 1])
    with pytest.raises(ValueError, match="no value for nodes"):
        b_matching_polytope(nx.path_graph(3), {0: 1})
    with pytest.raises(ValueError, match=">= 0"):
        b_matching_polytope(nx.path_graph(3), [1, -1, 1])
    G = nx.path_graph(2)
    G.add_edge(0, 0)
    with pytest.raises(ValueError, match="self-loops"):
        b_matching_polytope(G, [1, 1])
    with pytest.raises(ValueError, match="no edges"):
        b_matching_polytope(nx.empty_graph(2), [1, 1])


# ---------------------------------------------------------------- enumeration


@pytest.mark.parametrize("seed", range(5))
def test_enumeration_matches_brute_force_on_random_polytopes(seed):
    rng = np.random.RandomState(seed)
    A = np.vstack([rng.normal(size=(5, 3)), np.eye(3), -np.eye(3)])
    b = np.r_[rng.uniform(1, 4, size=5), rng.uniform(2, 4, size=3), rng.uniform(2, 4, size=3)]
    P = Polytope(A, b)
    lo, hi = P.bounding_box()
    pts = enumerate_lattice_points(P)
    assert _as_set(pts) == _brute(P, np.floor(lo).astype(int), np.ceil(hi).astype(int))
    assert len(pts) == len(_as_set(pts))  # no duplicates
    assert P.contains(pts).all()


def test_enumeration_refuses_a_huge_box():
    with pytest.raises(ValueError, match=r"max_points=1000.*too large"):
        enumerate_lattice_points(simplex_polytope(4, 30), max_points=1000)
    with pytest.raises(TypeError, match="polytope must be a Polytope"):
        enumerate_lattice_points(np.eye(2))
