"""Exact MAP for almost balanced models (Rowland 2018, Ch. 3): clamping, L3s, generator."""

from __future__ import annotations

import dataclasses

import networkx as nx
import numpy as np
import pytest

from kernelkit.pgm.almost_balanced import (
    AlmostBalancedMAP,
    _threshold_round,
    almost_balanced_lp_map,
    almost_balanced_map,
    random_almost_balanced_model,
)
from kernelkit.pgm.balance import almost_balanced_vertex, is_balanced
from kernelkit.pgm.exact import brute_force_map
from kernelkit.pgm.model import DiscreteModel, ising
from kernelkit.pgm.relaxations import lp_relaxation
from kernelkit.pgm.transforms import clamp

TOL = 1e-7

CASES = [(n, seed) for n in (3, 5, 8, 10, 12) for seed in range(4)]


def _frustrated_triangles_at_s() -> DiscreteModel:
    """Two odd (all repulsive) triangles 0-1-2 and 0-3-4 sharing the vertex s = 0.

    Every frustrated cycle passes through 0, so the model is almost balanced with the
    unique distinguished vertex 0. L2 is loose: with no fields each odd triangle has MAP
    score 1 (two edges disagree, +1 each; one agrees, -1) but the L2 point q_i = 1/2 with
    every edge disagreeing scores 3."""
    G = nx.Graph([(0, 1), (1, 2), (0, 2), (0, 3), (3, 4), (0, 4)])
    return ising(G, fields=0.0, couplings=-1.0, spins="pm1")


@pytest.fixture(scope="module")
def random_models():
    return [random_almost_balanced_model(n, random_state=seed) for n, seed in CASES]


def test_clamping_equals_brute_force(random_models):
    for m in random_models:
        res = almost_balanced_map(m)
        bf = brute_force_map(m)
        assert isinstance(res, AlmostBalancedMAP)
        assert res.score == pytest.approx(bf.score, abs=TOL)
        assert res.score == pytest.approx(float(m.score(res.assignment)), abs=1e-12)
        assert res.assignment.shape == (m.n_variables,)
        assert res.score == pytest.approx(max(res.clamped_scores), abs=1e-12)
        # each clamped score is the best score with X_s fixed, by enumeration
        for value in (0, 1):
            sub = clamp(m, res.vertex, value)
            assert res.clamped_scores[value] == pytest.approx(brute_force_map(sub).score, abs=TOL)
        assert res.assignment[res.vertex] == int(np.argmax(res.clamped_scores))
        assert res.n_lp_variables > 0 and res.n_constraints > 0


def test_l3s_is_tight_and_integral(random_models):
    """Thm 3.2(i): L3s at a distinguished vertex is tight."""
    for m in random_models:
        lp = almost_balanced_lp_map(m)
        s = lp.s
        assert lp.level == "L3s" and s is not None
        bf = brute_force_map(m)
        assert lp.value == pytest.approx(bf.score, abs=1e-6)
        assert lp.is_integral
        assert float(m.score(lp.assignment)) == pytest.approx(bf.score, abs=1e-6)
        # the same as calling lp_relaxation directly
        assert lp_relaxation(m, "L3s", s=s).value == pytest.approx(lp.value, abs=1e-9)


def test_l3s_at_any_distinguished_vertex():
    """Every vertex of the frustrated triangle is distinguished: L3s is tight at each."""
    m = ising(nx.cycle_graph(3), fields=[1.0, 1.1, 1.2], couplings=-2.0)
    for s in range(3):
        assert almost_balanced_lp_map(m, s=s).value == pytest.approx(1.2, abs=1e-7)


def test_l2_is_not_tight_on_frustrated_triangles_at_s():
    m = _frustrated_triangles_at_s()
    assert not is_balanced(m) and almost_balanced_vertex(m) == 0
    exact = brute_force_map(m).score
    assert exact == pytest.approx(2.0)
    l2 = lp_relaxation(m, "L2")
    assert l2.value == pytest.approx(6.0, abs=1e-7)  # a real gap, not solver noise
    assert not l2.is_integral
    assert almost_balanced_map(m).score == pytest.approx(exact, abs=TOL)
    assert almost_balanced_lp_map(m).value == pytest.approx(exact, abs=1e-7)


def test_l2_not_tight_on_some_random_models(random_models):
    gaps = [lp_relaxation(m, "L2").value - brute_force_map(m).score for m in random_models]
    assert max(gaps) > 1e-3
    assert min(gaps) > -1e-6  # an upper bound always


def test_balanced_model_keeps_working():
    m = ising(nx.grid_2d_graph(3, 3), fields=np.linspace(-1, 1, 9), couplings=1.0, spins="pm1")
    assert is_balanced(m)
    assert almost_balanced_map(m).score == pytest.approx(brute_force_map(m).score, abs=TOL)


def test_named_variables_and_hard_constraints():
    G = nx.cycle_graph(["a", "b", "c"])
    m = ising(G, fields={"a": 1.0, "b": 1.1, "c": 1.2}, couplings=-2.0)
    res = almost_balanced_map(m)
    assert res.score == pytest.approx(1.2)
    assert almost_balanced_lp_map(m, s="b").s == 1
    # forbid X_c = 1: the best is then x = (0, 1, 0) or (1, 0, 0) with score 1.1
    hard = DiscreteModel.from_factors(
        {"a": 2, "b": 2, "c": 2},
        [(f_scope, f.table) for f_scope, f in zip(_names(m), m.factors, strict=True)]
        + [(("c",), [0.0, -np.inf])],
    )
    assert almost_balanced_map(hard).score == pytest.approx(brute_force_map(hard).score)


def _names(m):
    return [tuple(m.variables[v] for v in f.scope) for f in m.factors]


def test_one_clamp_infeasible():
    m = DiscreteModel([2, 2], [((0,), [-np.inf, 0.0]), ((0, 1), [[0.0, 1.0], [2.0, 0.0]])])
    res = almost_balanced_map(m)
    assert res.score == pytest.approx(brute_force_map(m).score)
    assert res.assignment.tolist() == [1, 0]


def test_threshold_rounding_of_a_fractional_optimum():
    """A tied optimum (ferromagnetic, no fields) with q = 1/2 everywhere rounds to MAP."""
    m = ising(nx.cycle_graph(4), fields=0.0, couplings=1.0, spins="pm1")
    res = lp_relaxation(m, "L2")
    half = tuple(np.array([0.5, 0.5]) for _ in range(4))
    frac = dataclasses.replace(res, pseudomarginals=half, is_integral=False, assignment=None)
    x = _threshold_round(m, frac)
    assert float(m.score(x)) == pytest.approx(brute_force_map(m).score)


def test_edge_cases():
    """One variable; no coupled pair at all (balanced, any vertex distinguished)."""
    single = ising(nx.empty_graph(1), fields=0.5)
    assert almost_balanced_map(single).assignment.tolist() == [1]
    free = ising(nx.cycle_graph(3), couplings=0.0, fields=[0.0, 1.0, -1.0])
    assert almost_balanced_map(free).score == pytest.approx(1.0)
    assert almost_balanced_lp_map(free).value == pytest.approx(1.0)
    empty = random_almost_balanced_model(4, edge_probability=0.0, random_state=0)
    assert almost_balanced_map(empty).score == pytest.approx(brute_force_map(empty).score)


def test_not_almost_balanced_names_a_cycle():
    # two disjoint frustrated triangles: no single vertex is on both
    G = nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(3))
    m = ising(G, couplings=-1.0)
    with pytest.raises(ValueError, match=r"not almost balanced.*cycle \["):
        almost_balanced_map(m)
    with pytest.raises(ValueError, match="not almost balanced"):
        almost_balanced_lp_map(m)


def test_wrong_distinguished_vertex():
    m = _frustrated_triangles_at_s()
    with pytest.raises(ValueError, match=r"s=3 is not a distinguished vertex.*cycle"):
        almost_balanced_lp_map(m, s=3)
    with pytest.raises(ValueError, match="s must be a variable"):
        almost_balanced_lp_map(m, s=7)


def test_bad_models():
    with pytest.raises(TypeError, match="DiscreteModel"):
        almost_balanced_map("model")
    ternary = DiscreteModel([2, 3], [((0, 1), np.zeros((2, 3)))])
    with pytest.raises(ValueError, match="binary"):
        almost_balanced_map(ternary)
    with pytest.raises(ValueError, match="binary"):
        almost_balanced_lp_map(ternary)
    triple = DiscreteModel([2, 2, 2], [((0, 1, 2), np.zeros((2, 2, 2)))])
    with pytest.raises(ValueError, match="pairwise"):
        almost_balanced_map(triple)
    with pytest.raises(ValueError, match="no variables"):
        almost_balanced_map(DiscreteModel([], []))


# -- the generator -------------------------------------------------------------------------


def test_generator_is_almost_balanced_at_the_planted_vertex():
    for seed in range(10):
        m = random_almost_balanced_model(9, vertex=seed % 9, random_state=seed)
        assert m.is_binary and max(f.arity for f in m.factors) == 2
        assert is_balanced(clamp(m, seed % 9, 0))
        assert almost_balanced_vertex(m) is not None


def test_generator_is_reproducible_and_varied():
    a = random_almost_balanced_model(7, random_state=3)
    b = random_almost_balanced_model(7, random_state=3)
    X = np.array(np.unravel_index(np.arange(2**7), (2,) * 7)).T
    np.testing.assert_array_equal(a.score(X), b.score(X))
    c = random_almost_balanced_model(7, random_state=4)
    assert not np.allclose(a.score(X), c.score(X))
    # across seeds, most models are not balanced (frustrated cycles through s)
    frustrated = [
        not is_balanced(random_almost_balanced_model(10, random_state=s)) for s in range(20)
    ]
    assert sum(frustrated) >= 10


def test_generator_parameters():
    empty = random_almost_balanced_model(5, edge_probability=0.0, random_state=0)
    assert [f.arity for f in empty.factors] == [1] * 5
    full = random_almost_balanced_model(5, edge_probability=1.0, random_state=0)
    assert sum(f.arity == 2 for f in full.factors) == 10
    no_fields = random_almost_balanced_model(4, field_scale=0.0, random_state=0)
    assert all(np.all(f.table == 0) for f in no_fields.factors if f.arity == 1)
    with pytest.raises(ValueError, match="edge_probability"):
        random_almost_balanced_model(5, edge_probability=1.5)
    with pytest.raises(ValueError, match="n_variables"):
        random_almost_balanced_model(0)
    with pytest.raises(TypeError, match="n_variables"):
        random_almost_balanced_model(2.5)
    with pytest.raises(ValueError, match="vertex"):
        random_almost_balanced_model(5, vertex=5)
    with pytest.raises(ValueError, match="coupling_scale"):
        random_almost_balanced_model(5, coupling_scale=-1.0)
