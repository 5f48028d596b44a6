"""LP relaxations of MAP (L2, L3, L3s, Sherali-Adams L_r) against brute-force enumeration."""

from __future__ import annotations

import dataclasses
import doctest
import itertools

import networkx as nx
import numpy as np
import pytest

import kernelkit.pgm.relaxations as lp_module
from kernelkit.pgm.model import DiscreteModel, ising
from kernelkit.pgm.relaxations import LPSolverError, lp_relaxation

TOL = 1e-6


def test_doctests():
    result = doctest.testmod(lp_module)
    assert result.attempted > 0 and result.failed == 0


# -- helpers ---------------------------------------------------------------------------------


def brute_force_map(model):
    """The MAP score and one maximiser, by enumerating every assignment."""
    X = np.array(list(itertools.product(*[range(int(c)) for c in model.cardinalities])))
    scores = model.score(X)
    best = int(np.argmax(scores))
    return float(scores[best]), X[best]


def random_ising(G, rng, *, sign=None, spins="pm1"):
    """Random fields and couplings; ``sign`` forces the couplings' signs."""
    J = rng.normal(size=G.number_of_edges())
    if sign is not None:
        J = np.abs(J) * sign
    return ising(G, fields=rng.normal(size=G.number_of_nodes()), couplings=J, spins=spins)


def random_general(rng, n=5, cards=(2, 3), arities=(1, 2, 3), n_factors=8):
    card = rng.choice(cards, size=n)
    factors = []
    for _ in range(n_factors):
        k = int(rng.choice(arities))
        scope = tuple(int(v) for v in rng.choice(n, size=k, replace=False))
        factors.append((scope, rng.normal(size=tuple(card[list(scope)]))))
    return DiscreteModel(card, factors)


def flip(model, v):
    """Relabel the values of variable ``v`` (0 <-> 1 for binary) in every table."""
    factors = [
        (f.scope, np.flip(f.table, axis=f.scope.index(v)) if v in f.scope else f.table)
        for f in model.factors
    ]
    return DiscreteModel(model.cardinalities, factors)


def permute(model, perm):
    """Variable ``i`` becomes variable ``perm[i]``."""
    cards = np.empty_like(model.cardinalities)
    cards[perm] = model.cardinalities
    factors = [(tuple(int(perm[v]) for v in f.scope), f.table) for f in model.factors]
    return DiscreteModel(cards, factors)


def odd_k(n):
    """The odd-K_n with the thesis's potentials: every edge repulsive, score
    ``sum_i x_i + sum_ij 1[x_i != x_j]`` (the uprooted model is K_{n+1} with uniform
    repulsive edges; its rerooting at the added vertex gives these fields)."""
    return ising(nx.complete_graph(n), fields=n, couplings=-2.0)


def assert_tight(model, res):
    score, _ = brute_force_map(model)
    assert res.value == pytest.approx(score, abs=TOL)
    assert res.is_integral
    assert model.score(res.assignment) == pytest.approx(score, abs=TOL)


# -- L2 tightness (Thm 1.8 and the tree case of Thm 1.11) -------------------------------------


@pytest.mark.parametrize(
    "G",
    [nx.path_graph(6), nx.star_graph(5), nx.balanced_tree(2, 2), nx.random_labeled_tree(8, seed=3)],
    ids=["path", "star", "binary-tree", "random-tree"],
)
def test_l2_exact_on_trees(G):
    rng = np.random.RandomState(0)
    for _ in range(3):
        m = random_ising(G, rng)
        assert_tight(m, lp_relaxation(m))


def test_l2_exact_on_non_binary_trees():
    rng = np.random.RandomState(1)
    G = nx.random_labeled_tree(7, seed=1)
    for _ in range(3):
        card = rng.choice([2, 3, 4], size=7)
        factors = [((v,), rng.normal(size=card[v])) for v in range(7)]
        factors += [((u, v), rng.normal(size=(card[u], card[v]))) for u, v in G.edges]
        m = DiscreteModel(card, factors)
        assert_tight(m, lp_relaxation(m, "L2"))


@pytest.mark.parametrize("spins", ["01", "pm1"])
def test_l2_exact_on_attractive_ising(spins):
    rng = np.random.RandomState(2)
    G = nx.grid_2d_graph(3, 3)
    for _ in range(3):
        m = random_ising(G, rng, sign=1.0, spins=spins)
        assert_tight(m, lp_relaxation(m))


def test_l2_exact_on_balanced_models():
    rng = np.random.RandomState(3)
    G = nx.complete_graph(6)
    for _ in range(3):
        colour = rng.permutation([1, -1, *rng.choice([-1, 1], size=4)])
        sign = np.array([colour[u] * colour[v] for u, v in G.edges], dtype=float)
        assert np.any(sign < 0)
        m = random_ising(G, rng, sign=sign)
        assert_tight(m, lp_relaxation(m))


def test_l2_equals_sherali_adams_r2_on_pairwise_models():
    rng = np.random.RandomState(4)
    for _ in range(3):
        m = random_general(rng, n=5, arities=(1, 2))
        assert lp_relaxation(m).value == pytest.approx(lp_relaxation(m, "SA", r=2).value, abs=TOL)


# -- gaps: the frustrated triangle, odd-K3, odd-K4 ---------------------------------------------


def test_frustrated_triangle_l2_gap_and_l3_tight():
    m = ising(nx.cycle_graph(3), fields=[1.0, 1.1, 1.2], couplings=-2.0)
    score, _ = brute_force_map(m)
    l2 = lp_relaxation(m, "L2")
    assert l2.value > score + 0.1
    assert not l2.is_integral and l2.assignment is None
    assert l2.gap(score) == pytest.approx(0.45, abs=TOL)
    assert_tight(m, lp_relaxation(m, "L3"))
    # the L2 optimum is the half-integral point: q_i = 1/2, every edge disagreeing
    for p in l2.pseudomarginals:
        np.testing.assert_allclose(p, [0.5, 0.5], atol=TOL)
    np.testing.assert_allclose(l2.cluster_marginals[(0, 1)], [[0, 0.5], [0.5, 0]], atol=TOL)


def test_odd_k3_is_not_tight_for_l2():
    m = odd_k(3)
    score, _ = brute_force_map(m)
    assert score == pytest.approx(4.0)
    assert lp_relaxation(m, "L2").value == pytest.approx(9.0 / 2.0, abs=TOL)  # q = 1/2
    assert lp_relaxation(m, "L3").value == pytest.approx(score, abs=TOL)


def test_odd_k4_is_not_tight_for_l3_but_for_l4():
    m = odd_k(4)
    score, _ = brute_force_map(m)
    assert score == pytest.approx(6.0)
    l3 = lp_relaxation(m, "L3")
    assert l3.value == pytest.approx(20.0 / 3.0, abs=TOL)
    assert not l3.is_integral
    assert lp_relaxation(m, "L2").value > l3.value + 0.1
    assert lp_relaxation(m, "SA", r=3).value == pytest.approx(l3.value, abs=TOL)
    assert lp_relaxation(m, "SA", r=4).value == pytest.approx(score, abs=TOL)


def test_l3_tight_on_k4_signings_without_odd_k4():
    # a K4 with one repulsive edge is not an odd-K4 after any resigning: L3 is tight
    rng = np.random.RandomState(5)
    G = nx.complete_graph(4)
    sign = np.ones(G.number_of_edges())
    sign[0] = -1.0
    for _ in range(5):
        m = random_ising(G, rng, sign=sign)
        assert lp_relaxation(m, "L3").value == pytest.approx(brute_force_map(m)[0], abs=TOL)


# -- L3, L3s and Sherali-Adams ------------------------------------------------------------------


def test_l3_equals_sherali_adams_r3():
    rng = np.random.RandomState(6)
    G = nx.complete_graph(5)
    for _ in range(3):
        m = random_ising(G, rng)
        l3 = lp_relaxation(m, "L3")
        sa = lp_relaxation(m, "SA", r=3)
        assert l3.value == pytest.approx(sa.value, abs=TOL)


def test_l3s_lies_between_l2_and_l3():
    rng = np.random.RandomState(7)
    G = nx.complete_graph(6)
    for _ in range(4):
        m = random_ising(G, rng, spins="01")
        score, _ = brute_force_map(m)
        l2 = lp_relaxation(m, "L2").value
        l3 = lp_relaxation(m, "L3").value
        for s in range(6):
            l3s = lp_relaxation(m, "L3s", s=s).value
            assert l2 + TOL >= l3s >= l3 - TOL >= score - 2 * TOL


def test_l3s_tight_on_almost_balanced_models():
    # Thm 3.2(i): deleting s leaves a balanced model
    rng = np.random.RandomState(8)
    G = nx.complete_graph(6)
    for s in (0, 3):
        colour = rng.choice([-1, 1], size=6)
        sign = np.array(
            [rng.choice([-1, 1]) if s in (u, v) else colour[u] * colour[v] for u, v in G.edges],
            dtype=float,
        )
        m = random_ising(G, rng, sign=sign)
        res = lp_relaxation(m, "L3s", s=s)
        assert res.s == s
        assert res.value == pytest.approx(brute_force_map(m)[0], abs=TOL)


def test_sherali_adams_at_n_is_the_marginal_polytope():
    rng = np.random.RandomState(9)
    for _ in range(3):
        m = random_general(rng, n=5, cards=(2, 3), arities=(1, 2, 3), n_factors=8)
        res = lp_relaxation(m, "SA", r=5)
        assert_tight(m, res)
        assert len(res.cluster_marginals) == 1
        (table,) = res.cluster_marginals.values()
        assert table.shape == tuple(m.cardinalities)


def test_sherali_adams_levels_decrease_to_the_map():
    rng = np.random.RandomState(10)
    m = random_general(rng, n=5, cards=(2,), arities=(2, 3), n_factors=10)
    values = [lp_relaxation(m, "SA", r=r).value for r in (3, 4, 5)]
    assert values[0] + TOL >= values[1] >= values[2] - TOL
    assert values[2] == pytest.approx(brute_force_map(m)[0], abs=TOL)


def test_sherali_adams_tight_when_treewidth_below_r():
    # Thm 1.11: a cycle has treewidth 2, so L_3 = M
    rng = np.random.RandomState(11)
    for _ in range(3):
        m = random_ising(nx.cycle_graph(6), rng, sign=-1.0)
        assert lp_relaxation(m, "SA", r=3).value == pytest.approx(brute_force_map(m)[0], abs=TOL)


# -- invariances ------------------------------------------------------------------------------


LEVEL_CASES = [("L2", {}), ("L3", {}), ("L3s", {"s": 2}), ("SA", {"r": 3})]


@pytest.mark.parametrize(("level", "kw"), LEVEL_CASES, ids=[c[0] for c in LEVEL_CASES])
def test_value_invariant_under_flipping(level, kw):
    rng = np.random.RandomState(12)
    m = random_ising(nx.complete_graph(5), rng, spins="01")
    base = lp_relaxation(m, level, **kw).value
    for v in (0, 2, 4):
        flipped = flip(m, v)
        assert lp_relaxation(flipped, level, **kw).value == pytest.approx(base, abs=TOL)
    assert brute_force_map(flip(m, 1))[0] == pytest.approx(brute_force_map(m)[0])


@pytest.mark.parametrize(("level", "kw"), LEVEL_CASES, ids=[c[0] for c in LEVEL_CASES])
def test_value_invariant_under_permuting_variables(level, kw):
    rng = np.random.RandomState(13)
    m = random_ising(nx.complete_graph(5), rng, spins="01")
    base = lp_relaxation(m, level, **kw).value
    for _ in range(2):
        perm = rng.permutation(5)
        kw2 = {"s": int(perm[kw["s"]])} if "s" in kw else kw
        assert lp_relaxation(permute(m, perm), level, **kw2).value == pytest.approx(base, abs=TOL)


def test_flip_invariance_on_non_binary_higher_arity_models():
    rng = np.random.RandomState(14)
    m = random_general(rng, n=5)
    for level, kw in (("L2", {}), ("SA", {"r": 3})):
        base = lp_relaxation(m, level, **kw).value
        assert lp_relaxation(flip(m, 1), level, **kw).value == pytest.approx(base, abs=TOL)
        perm = rng.permutation(5)
        assert lp_relaxation(permute(m, perm), level, **kw).value == pytest.approx(base, abs=TOL)


# -- the result's structure -------------------------------------------------------------------


@pytest.mark.parametrize(("level", "kw"), LEVEL_CASES, ids=[c[0] for c in LEVEL_CASES])
def test_factor_marginals_reproduce_the_value_and_are_consistent(level, kw):
    rng = np.random.RandomState(15)
    G = nx.cycle_graph(5)
    m = random_ising(G, rng, sign=-1.0)
    # a duplicate factor with its scope reversed is merged with the first
    extra = ((1, 0), rng.normal(size=(2, 2)))
    m = DiscreteModel(m.cardinalities, [*m.factors, extra, ((), 0.75)])
    res = lp_relaxation(m, level, **kw)
    assert len(res.factor_marginals) == len(m.factors)
    total = 0.0
    for f, mu in zip(m.factors, res.factor_marginals, strict=True):
        assert mu.shape == f.table.shape
        assert mu.sum() == pytest.approx(1.0, abs=TOL)
        total += float(np.sum(f.table * mu))
        for axis, v in enumerate(f.scope):
            others = tuple(a for a in range(f.arity) if a != axis)
            np.testing.assert_allclose(mu.sum(axis=others), res.pseudomarginals[v], atol=TOL)
    assert total == pytest.approx(res.value, abs=TOL)
    for key, table in res.cluster_marginals.items():
        assert list(key) == sorted(key)
        assert table.shape == (2,) * len(key)
    assert res.status == 0 and isinstance(res.message, str)
    assert res.n_lp_variables > 0 and res.n_constraints > 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.value = 0.0


def test_cluster_marginal_keys_per_level():
    m = ising(nx.path_graph(4), fields=0.3, couplings=-1.0)
    assert set(lp_relaxation(m).cluster_marginals) == {(0, 1), (1, 2), (2, 3)}
    assert set(lp_relaxation(m, "L3").cluster_marginals) == set(itertools.combinations(range(4), 2))
    assert set(lp_relaxation(m, "SA", r=3).cluster_marginals) == set(
        itertools.combinations(range(4), 3)
    )
    res = lp_relaxation(m, "L3")
    assert res.r == 3 and lp_relaxation(m).r == 2 and lp_relaxation(m, "SA", r=3).r == 3


def test_constant_factor_shifts_the_value():
    m = ising(nx.path_graph(3), fields=0.5, couplings=1.0)
    shifted = DiscreteModel(m.cardinalities, [*m.factors, ((), 2.5)])
    for level in ("L2", "L3"):
        assert lp_relaxation(shifted, level).value == pytest.approx(
            lp_relaxation(m, level).value + 2.5
        )


def test_named_variables_and_s_by_name_or_index():
    G = nx.grid_2d_graph(2, 3)
    rng = np.random.RandomState(16)
    m = random_ising(G, rng)
    by_name = lp_relaxation(m, "L3s", s=(1, 1))
    by_index = lp_relaxation(m, "L3s", s=m.index((1, 1)))
    assert by_name.s == by_index.s == m.index((1, 1))
    assert by_name.value == pytest.approx(by_index.value)


# -- hard constraints (-inf) ------------------------------------------------------------------


@pytest.mark.parametrize(("level", "kw"), LEVEL_CASES, ids=[c[0] for c in LEVEL_CASES])
def test_neg_inf_entries_are_forbidden(level, kw):
    rng = np.random.RandomState(17)
    m = random_ising(nx.path_graph(5), rng, sign=1.0)
    # forbid x_0 = x_1 = 1 and x_3 = 0; the tree stays tight for L2 and finer
    no11 = np.array([[0.0, 0.0], [0.0, -np.inf]])
    m = DiscreteModel(m.cardinalities, [*m.factors, ((0, 1), no11), ((3,), [-np.inf, 0.0])])
    res = lp_relaxation(m, level, **kw)
    assert_tight(m, res)
    assert np.isfinite(res.value)
    mu01 = res.factor_marginals[-2]
    assert mu01[1, 1] == pytest.approx(0.0, abs=TOL)
    np.testing.assert_allclose(res.pseudomarginals[3], [0.0, 1.0], atol=TOL)


def test_neg_inf_on_a_non_binary_model():
    rng = np.random.RandomState(18)
    m = random_general(rng, n=4, cards=(3,), arities=(2,), n_factors=4)
    forbid = np.zeros((3, 3))
    forbid[np.arange(3), np.arange(3)] = -np.inf  # x_0 != x_2
    m = DiscreteModel(m.cardinalities, [*m.factors, ((0, 2), forbid)])
    res = lp_relaxation(m, "SA", r=4)
    assert_tight(m, res)
    assert res.assignment[0] != res.assignment[2]


@pytest.mark.parametrize("level", ["L2", "L3", "SA"])
def test_infeasible_hard_constraints_raise_with_highs_status(level):
    m = DiscreteModel([2, 2], [((0,), [-np.inf, -np.inf]), ((0, 1), np.zeros((2, 2)))])
    kw = {"r": 2} if level == "SA" else {}
    with pytest.raises(LPSolverError, match="status 2") as info:
        lp_relaxation(m, level, **kw)
    assert info.value.status == 2
    assert "infeasible" in info.value.message.lower()


# -- bad input --------------------------------------------------------------------------------


def test_bad_arguments():
    m = ising(nx.path_graph(3), fields=0.5, couplings=1.0)
    with pytest.raises(ValueError, match="level"):
        lp_relaxation(m, "L4")
    with pytest.raises(ValueError, match="needs the Sherali-Adams level r"):
        lp_relaxation(m, "SA")
    with pytest.raises(ValueError, match="needs the distinguished vertex s"):
        lp_relaxation(m, "L3s")
    with pytest.raises(ValueError, match="r is only used"):
        lp_relaxation(m, "L2", r=2)
    with pytest.raises(ValueError, match="s is only used"):
        lp_relaxation(m, "L3", s=0)
    with pytest.raises(TypeError, match="r must be an integer"):
        lp_relaxation(m, "SA", r=2.5)
    with pytest.raises(ValueError, match="r must be <= the number of variables"):
        lp_relaxation(m, "SA", r=4)
    with pytest.raises(ValueError, match="s must be a variable name or an index"):
        lp_relaxation(m, "L3s", s=7)
    with pytest.raises(ValueError, match="s must be a variable name or an index"):
        lp_relaxation(m, "L3s", s="a")
    with pytest.raises(TypeError, match="model must be a DiscreteModel"):
        lp_relaxation(nx.path_graph(3))
    # issue 28: a model without variables has the trivial LP (was: "no variables" error);
    # tests/pgm/test_bad_input.py checks its value and assignment
    assert lp_relaxation(DiscreteModel([], [])).value == 0.0


def test_r_below_the_largest_arity():
    m = DiscreteModel([2, 2, 2], [((0, 1, 2), np.zeros((2, 2, 2)))])
    with pytest.raises(ValueError, match="largest factor arity"):
        lp_relaxation(m, "SA", r=2)


@pytest.mark.parametrize("level", ["L3", "L3s"])
def test_l3_needs_binary_pairwise_models(level):
    kw = {"s": 0} if level == "L3s" else {}
    ternary = DiscreteModel([2, 3], [((0, 1), np.zeros((2, 3)))])
    with pytest.raises(ValueError, match="needs a binary model"):
        lp_relaxation(ternary, level, **kw)
    triple = DiscreteModel([2, 2, 2], [((0, 1, 2), np.zeros((2, 2, 2)))])
    with pytest.raises(ValueError, match="needs a pairwise model"):
        lp_relaxation(triple, level, **kw)


def test_size_guard_refuses_huge_lps():
    m = DiscreteModel([2] * 40, [((0, 1), np.zeros((2, 2)))])
    with pytest.raises(ValueError, match="MAX_LP_SIZE"):
        lp_relaxation(m, "SA", r=10)
    big = DiscreteModel([2] * 400, [((0, 1), np.zeros((2, 2)))])
    with pytest.raises(ValueError, match="MAX_LP_SIZE"):
        lp_relaxation(big, "L3")
    # L3s has only quadratically many rows
    assert lp_relaxation(DiscreteModel([2] * 30, []), "L3s", s=0).value == 0.0


# -- Rowland (2018) Thms 2.19 and 2.20 -------------------------------------------------------


@pytest.mark.parametrize("n", [5, 6])
@pytest.mark.parametrize("seed", range(2))
def test_l3_optimum_identical_for_every_rerooting(n, seed):
    """Thm 2.19: the L3 (LOC + TRI) optimum is the same for M and for every rerooting M_i,
    on frustrated models where L3 is not tight; L2's is not (it moves by several units)."""
    from kernelkit.pgm.transforms import reroot

    rng = np.random.default_rng(seed)
    G = nx.complete_graph(n)
    m = ising(
        G,
        fields=rng.normal(scale=0.1, size=n),
        couplings=-1.0 + rng.normal(scale=0.1, size=G.number_of_edges()),
        spins="pm1",
    )
    score, _ = brute_force_map(m)
    l3 = lp_relaxation(m, "L3").value
    assert l3 > score + 0.5  # L3 is not tight here
    rerooted = [reroot(m, i).model for i in range(n)]
    for mi in rerooted:
        assert lp_relaxation(mi, "L3").value == pytest.approx(l3, abs=TOL * (1 + abs(l3)))
    l2 = [lp_relaxation(mi, "L2").value for mi in [m, *rerooted]]
    assert max(l2) - min(l2) > 1.0


@pytest.mark.parametrize("r", [2, 4, 6])
def test_theorem_2_20_fixtures(r):
    """Thm 2.20 (r even): on V = {1..r+1} with a potential -1[#ones even] on every r-subset,
    the MAP score is -1 but the Sherali-Adams L_r optimum is 0; L_{r+1} is tight."""
    table = np.zeros((2,) * r)
    table[np.indices(table.shape).sum(axis=0) % 2 == 0] = -1.0
    m = DiscreteModel([2] * (r + 1), [(E, table) for E in itertools.combinations(range(r + 1), r)])
    score, _ = brute_force_map(m)
    assert score == -1.0
    assert lp_relaxation(m, "SA", r=r).value == pytest.approx(0.0, abs=TOL)
    assert lp_relaxation(m, "SA", r=r + 1).value == pytest.approx(-1.0, abs=TOL)
