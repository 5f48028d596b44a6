"""Attractive / repulsive edges, balance, frustrated cycles, almost balanced vertices."""

import itertools

import networkx as nx
import numpy as np
import pytest

from kernelkit.pgm.balance import (
    almost_balanced_vertex,
    attractive_edges,
    balancing_flip,
    edge_weights,
    frustrated_cycle,
    is_balanced,
    repulsive_edges,
)
from kernelkit.pgm.model import DiscreteModel, ising
from kernelkit.pgm.transforms import flip


def signed_model(G, signs, rng):
    """A binary pairwise model on G whose edge weights have the given signs, with random
    non-Ising tables (so the weight is not a single entry)."""
    factors = [((v,), rng.normal(size=2)) for v in G.nodes]
    for (u, v), s in zip(G.edges, signs, strict=True):
        t = rng.normal(size=(2, 2))
        w = t[1, 1] + t[0, 0] - t[1, 0] - t[0, 1]
        t[1, 1] += s * (abs(w) + 0.5) - w  # now the weight is s * (|w| + 0.5)
        factors.append(((u, v), t))
    return DiscreteModel([2] * G.number_of_nodes(), factors)


def brute_balanced(model):
    """Balanced iff some flipping makes every edge attractive (§1.4.1), by enumeration."""
    n = model.n_variables
    for A in itertools.product([0, 1], repeat=n):
        _, w = edge_weights(flip(model, [v for v in range(n) if A[v]]))
        if np.all(w[w != 0] > 0):
            return True
    return False


def test_edge_weights_and_signs():
    m = DiscreteModel(
        [2, 2, 2],
        [
            ((0, 1), [[1.0, 0.0], [0.0, 1.0]]),
            ((1, 0), [[0.0, 0.5], [0.0, 0.0]]),
            ((2, 1), [[0.0, 1.0], [1.0, 0.0]]),
        ],
    )
    edges, w = edge_weights(m)
    assert edges.tolist() == [[0, 1], [1, 2]]
    np.testing.assert_allclose(w, [1.5, -2.0])
    assert attractive_edges(m) == [(0, 1)] and repulsive_edges(m) == [(1, 2)]


def test_attractive_and_flipped_attractive_models_are_balanced():
    rng = np.random.default_rng(0)
    G = nx.grid_2d_graph(3, 4)
    G = nx.convert_node_labels_to_integers(G)
    m = signed_model(G, [1] * G.number_of_edges(), rng)
    assert is_balanced(m) and frustrated_cycle(m) is None and balancing_flip(m) == []
    for seed in range(5):
        A = np.flatnonzero(np.random.default_rng(seed).random(m.n_variables) < 0.5).tolist()
        f = flip(m, A)
        assert is_balanced(f)
        B = balancing_flip(f)
        assert all(w > 0 for w in edge_weights(flip(f, B))[1])


def test_frustrated_triangle():
    m = ising(nx.cycle_graph(3), couplings=[1.0, 1.0, -1.0])
    assert not is_balanced(m)
    assert sorted(frustrated_cycle(m)) == [0, 1, 2]
    with pytest.raises(ValueError, match="not balanced"):
        balancing_flip(m)


@pytest.mark.parametrize("seed", range(8))
def test_against_enumeration(seed):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(7, 0.45, seed=seed)
    signs = rng.choice([-1, 1], size=G.number_of_edges(), p=[0.25, 0.75])
    m = signed_model(G, signs, rng)
    balanced = is_balanced(m)
    assert balanced == brute_balanced(m)
    cycle = frustrated_cycle(m)
    if balanced:
        assert cycle is None
    else:  # a simple cycle of edges with an odd number of repulsive ones
        assert len(set(cycle)) == len(cycle) >= 3
        rep = set(repulsive_edges(m))
        att = set(attractive_edges(m))
        closed = list(zip(cycle, cycle[1:] + cycle[:1], strict=True))
        keys = [tuple(sorted(e)) for e in closed]
        assert all(k in rep or k in att for k in keys)
        assert sum(k in rep for k in keys) % 2 == 1
    s = almost_balanced_vertex(m)
    expected = [v for v in range(7) if brute_balanced_without(m, v)]
    if balanced:
        assert s == 0
    elif expected:
        assert s in expected
    else:
        assert s is None


def brute_balanced_without(model, s):
    keep = [f for f in model.factors if s not in f.scope]
    return brute_balanced(DiscreteModel([2] * model.n_variables, keep))


def test_almost_balanced_vertex_on_a_balanced_model_plus_one_vertex():
    rng = np.random.default_rng(4)
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3))
    signs = [1] * G.number_of_edges()
    base = flip(signed_model(G, signs, rng), [0, 4, 5])
    assert is_balanced(base)
    # a new vertex 9 joined to 0 and 1 attractively and to 3 repulsively
    extra = [
        ((9, 0), [[1.0, 0.0], [0.0, 1.0]]),
        ((9, 1), [[1.0, 0.0], [0.0, 1.0]]),
        ((9, 3), [[0.0, 1.0], [1.0, 0.0]]),
        ((9, 8), [[0.0, 2.0], [2.0, 0.0]]),
    ]
    m = DiscreteModel([2] * 10, [(f.scope, f.table) for f in base.factors] + extra)
    assert not is_balanced(m)
    s = almost_balanced_vertex(m)
    assert s is not None and brute_balanced_without(m, s)


def test_not_almost_balanced():
    # two vertex-disjoint frustrated triangles
    G = nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(3))
    m = ising(G, couplings=[1.0, 1.0, -1.0, 1.0, 1.0, -1.0])
    assert almost_balanced_vertex(m) is None


def test_zero_weight_edges_are_ignored_and_hard_constraints():
    # edges (0, 1) attractive, (0, 2) repulsive, (1, 2) neither: no frustrated cycle
    m = ising(nx.cycle_graph(3), couplings=[1.0, -1.0, 0.0])
    assert edge_weights(m)[1].tolist() == [1.0, -1.0, 0.0]
    assert is_balanced(m) and frustrated_cycle(m) is None
    hard = DiscreteModel([2, 2], [((0, 1), [[0.0, -np.inf], [-np.inf, 0.0]])])
    assert attractive_edges(hard) == [(0, 1)]
    bad = DiscreteModel([2, 2], [((0, 1), [[-np.inf, 0.0], [-np.inf, 0.0]])])
    with pytest.raises(ValueError, match="undefined"):
        edge_weights(bad)


def test_bad_input():
    with pytest.raises(ValueError, match="binary"):
        is_balanced(DiscreteModel([3, 2], [((0, 1), np.zeros((3, 2)))]))
    with pytest.raises(ValueError, match="pairwise"):
        is_balanced(DiscreteModel([2, 2, 2], [((0, 1, 2), np.zeros((2, 2, 2)))]))
    with pytest.raises(TypeError, match="DiscreteModel"):
        frustrated_cycle(nx.cycle_graph(3))


def test_a_model_without_coupled_pairs_is_balanced():
    m = ising(nx.path_graph(3), fields=0.5, couplings=0.0)
    assert is_balanced(m)
    assert frustrated_cycle(m) is None
    assert almost_balanced_vertex(m) is not None
