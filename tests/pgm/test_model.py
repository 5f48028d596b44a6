"""DiscreteModel, its factors and groups, the Ising constructor."""

from __future__ import annotations

import doctest
import itertools
import pickle

import networkx as nx
import numpy as np
import pytest

import kernelkit.pgm.model as model_module
from kernelkit.pgm import DiscreteModel, Factor, ising


def test_doctests():
    assert doctest.testmod(model_module).failed == 0


def random_model(rng, n=5, cards=(2, 3), arities=(1, 2, 3), n_factors=8):
    card = rng.choice(cards, size=n)
    factors = []
    for _ in range(n_factors):
        k = int(rng.choice(arities))
        scope = tuple(int(v) for v in rng.choice(n, size=k, replace=False))
        factors.append((scope, rng.normal(size=tuple(card[list(scope)]))))
    return DiscreteModel(card, factors), factors


def test_score_is_the_sum_of_table_entries():
    rng = np.random.RandomState(0)
    m, factors = random_model(rng)
    X = np.array(list(itertools.product(*[range(c) for c in m.cardinalities])))
    expected = [sum(t[tuple(x[list(s)])] for s, t in factors) for x in X]
    np.testing.assert_allclose(m.score(X), expected, rtol=1e-12)
    assert m.score(X[3]) == pytest.approx(expected[3])


def test_groups_stack_factors_by_shape_and_cover_all():
    rng = np.random.RandomState(1)
    m, _ = random_model(rng, n_factors=12)
    seen = []
    for g in m.groups():
        assert g.tables.shape[0] == g.scopes.shape[0] == g.index.shape[0]
        for row, k in enumerate(g.index):
            f = m.factors[k]
            assert tuple(g.scopes[row]) == f.scope
            np.testing.assert_array_equal(g.tables[row], f.table)
        seen.extend(g.index.tolist())
    assert sorted(seen) == list(range(len(m.factors)))


def test_minus_inf_is_a_hard_constraint():
    m = DiscreteModel([2, 2], [((0, 1), [[0.0, -np.inf], [-np.inf, 0.0]])])
    assert m.score([[0, 0], [0, 1]]).tolist() == [0.0, -np.inf]


def test_named_variables_and_from_factors():
    m = DiscreteModel.from_factors(
        {"a": 2, "b": 3}, [("a", [0.0, 1.0]), (("b", "a"), np.ones((3, 2)))]
    )
    assert m.variables == ["a", "b"] and m.index("b") == 1
    assert m.factors[1].scope == (1, 0)
    assert m.score([1, 2]) == pytest.approx(2.0)
    with pytest.raises(KeyError, match="no variable named 'c'"):
        m.index("c")


def test_tables_are_read_only_and_copied():
    t = np.zeros((2, 2))
    m = DiscreteModel([2, 2], [((0, 1), t)])
    t[0, 0] = 5.0
    assert m.factors[0].table[0, 0] == 0.0
    with pytest.raises(ValueError):
        m.factors[0].table[0, 0] = 1.0


def test_pickle_round_trip():
    m = ising(nx.cycle_graph(4), fields=0.3, couplings=-1.0)
    m2 = pickle.loads(pickle.dumps(m))
    X = np.array(list(itertools.product([0, 1], repeat=4)))
    np.testing.assert_array_equal(m.score(X), m2.score(X))


@pytest.mark.parametrize("spins", ["01", "pm1"])
def test_ising_score(spins):
    G = nx.Graph([("u", "v"), ("v", "w"), ("w", "u")])
    h = {"u": 0.5, "v": -1.0}
    J = {("v", "u"): 2.0, ("w", "v"): -0.5}  # either orientation; missing edge gets 0
    m = ising(G, fields=h, couplings=J, spins=spins)
    assert m.variables == ["u", "v", "w"]
    hv = np.array([0.5, -1.0, 0.0])
    Jm = np.zeros((3, 3))
    Jm[0, 1] = 2.0
    Jm[1, 2] = -0.5
    for x in itertools.product([0, 1], repeat=3):
        z = np.array(x, dtype=float) if spins == "01" else 2.0 * np.array(x) - 1.0
        assert m.score(list(x)) == pytest.approx(hv @ z + z @ Jm @ z)


def test_ising_arrays_follow_node_and_edge_order():
    G = nx.path_graph(3)
    m = ising(G, fields=[1.0, 2.0, 3.0], couplings=[10.0, 20.0])
    assert m.score([1, 1, 1]) == pytest.approx(36.0)
    assert m.score([0, 1, 1]) == pytest.approx(25.0)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (([0, 2], []), ValueError, r"cardinalities\[0\] = 0"),
        (([2.5], []), TypeError, "integers"),
        (([2, 2], [((0, 2), np.zeros((2, 2)))]), ValueError, "unknown variable 2"),
        (([2, 2], [((0, 0), np.zeros((2, 2)))]), ValueError, "repeats a variable"),
        (([2, 3], [((0, 1), np.zeros((2, 2)))]), ValueError, r"shape \(2, 2\).*\(2, 3\)"),
        (([2], [((0,), [np.nan, 0.0])]), ValueError, "NaN"),
        (([2], [((0,), [np.inf, 0.0])]), ValueError, r"\+inf"),
        (([2], [((0,), ["a", "b"])]), TypeError, "array of numbers"),
        (([2], [3]), TypeError, r"factors\[0\] must be a Factor"),
        (([2, 2], [((True,), [0.0, 1.0])]), ValueError, "unknown variable True"),
    ],
)
def test_bad_models(args, error, match):
    with pytest.raises(error, match=match):
        DiscreteModel(*args)


def test_bad_scores_and_ising_input():
    m = DiscreteModel([2, 3], [((0, 1), np.zeros((2, 3)))])
    with pytest.raises(ValueError, match=r"shape \(2,\) or \(n, 2\)"):
        m.score([0, 1, 1])
    with pytest.raises(ValueError, match=r"outside the domain 0\.\.2"):
        m.score([0, 3])
    with pytest.raises(TypeError, match="integer values"):
        m.score([0.5, 1])
    with pytest.raises(ValueError, match="self-loop"):
        ising(nx.Graph([(0, 0), (0, 1)]))
    with pytest.raises(ValueError, match="spins must be"):
        ising(nx.path_graph(2), spins="+-")
    with pytest.raises(ValueError, match="is not an edge of G"):
        ising(nx.path_graph(3), couplings={(0, 2): 1.0})
    with pytest.raises(ValueError, match="given twice"):
        ising(nx.path_graph(2), couplings={(0, 1): 1.0, (1, 0): 2.0})
    with pytest.raises(ValueError, match=r"fields must have shape \(3,\)"):
        ising(nx.path_graph(3), fields=[1.0, 2.0])
    with pytest.raises(ValueError, match="fields must be finite"):
        ising(nx.path_graph(2), fields=[np.nan, 0.0])
    with pytest.raises(TypeError, match=r"undirected networkx\.Graph"):
        ising(nx.DiGraph([(0, 1)]))


def test_factor_objects_are_accepted():
    f = Factor((0,), np.array([0.0, 1.0]))
    m = DiscreteModel([2], [f])
    assert m.factors[0].arity == 1 and m.is_binary
    assert "n_variables=1" in repr(m)


def test_ising_on_a_grid_with_tuple_node_names():
    G = nx.grid_2d_graph(3, 3)
    m = ising(G, fields=0.1, couplings=0.5)
    assert m.variables == list(G.nodes)
    assert m.score([1] * 9) == pytest.approx(0.9 + 0.5 * 12)
