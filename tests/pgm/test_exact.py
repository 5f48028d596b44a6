"""Exact inference (variable elimination, junction tree) against brute-force enumeration."""

from __future__ import annotations

import doctest

import networkx as nx
import numpy as np
import pytest

import kernelkit._memory
import kernelkit.pgm.exact as exact_module
from kernelkit.pgm import DiscreteModel, ising
from kernelkit.pgm.exact import (
    MAPResult,
    Marginals,
    brute_force_log_partition,
    brute_force_map,
    brute_force_marginals,
    elimination_order,
    exact_log_partition,
    exact_map,
    exact_marginals,
)


def test_doctests():
    assert doctest.testmod(exact_module).failed == 0


def random_model(rng, n, cards=(2, 3, 4), arities=(1, 2, 3, 4), n_factors=10, p_forbid=0.0):
    """Random hypergraph model of mixed arity and cardinality; -inf entries with
    probability ``p_forbid``."""
    card = rng.choice(cards, size=n)
    factors = []
    for _ in range(n_factors):
        k = int(rng.choice([a for a in arities if a <= n]))
        scope = tuple(int(v) for v in rng.choice(n, size=k, replace=False))
        table = rng.normal(scale=1.5, size=tuple(card[list(scope)]))
        table[rng.random(table.shape) < p_forbid] = -np.inf
        factors.append((scope, table))
    return DiscreteModel(card, factors)


def model_on_graph(rng, G, cards=(2, 3, 4), p_forbid=0.0):
    """Unary and pairwise factors on a graph's nodes and edges (integer nodes 0..n-1)."""
    n = G.number_of_nodes()
    card = rng.choice(cards, size=n)
    factors = [((i,), rng.normal(size=card[i])) for i in range(n)]
    for u, v in G.edges:
        table = rng.normal(scale=2.0, size=(card[u], card[v]))
        table[rng.random(table.shape) < p_forbid] = -np.inf
        factors.append(((u, v), table))
    return DiscreteModel(card, factors)


def check_against_brute_force(m):
    log_z = exact_log_partition(m)
    ref = brute_force_log_partition(m)
    if ref == -np.inf:
        assert log_z == -np.inf
        return
    assert log_z == pytest.approx(ref, abs=1e-10)
    mar, mar_ref = exact_marginals(m), brute_force_marginals(m)
    assert isinstance(mar, Marginals)
    assert mar.log_partition == pytest.approx(ref, abs=1e-10)
    assert len(mar.marginals) == m.n_variables
    for i, (p, q) in enumerate(zip(mar.marginals, mar_ref.marginals, strict=True)):
        assert p.shape == (m.cardinalities[i],)
        assert p.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(p, q, atol=1e-10)
    r, r_ref = exact_map(m), brute_force_map(m)
    assert isinstance(r, MAPResult)
    assert r.assignment.shape == (m.n_variables,)
    assert r.assignment.dtype.kind == "i"
    assert r.score == pytest.approx(r_ref.score, abs=1e-10)
    assert float(m.score(r.assignment)) == r.score  # the assignment achieves the maximum


@pytest.mark.parametrize("seed", range(12))
def test_random_hypergraph_models_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    check_against_brute_force(random_model(rng, n, n_factors=int(rng.integers(1, 12))))


@pytest.mark.parametrize("seed", range(8))
def test_hard_constraints_match_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    m = random_model(rng, 7, n_factors=9, p_forbid=0.3)
    check_against_brute_force(m)


@pytest.mark.parametrize("seed", range(4))
def test_trees_and_cycles(seed):
    rng = np.random.default_rng(200 + seed)
    tree = nx.random_labeled_tree(9, seed=seed)
    for G in (
        tree,
        nx.cycle_graph(8),
        nx.complete_graph(6),
        nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3)),
    ):
        check_against_brute_force(model_on_graph(rng, G, p_forbid=0.15 * (seed % 2)))
    assert elimination_order(model_on_graph(rng, tree)).induced_width == 1


@pytest.mark.parametrize("spins", ["01", "pm1"])
def test_ising_grid_and_frustrated_triangle(spins):
    rng = np.random.default_rng(3)
    G = nx.grid_2d_graph(3, 4)
    m = ising(
        G,
        fields=rng.normal(size=12),
        couplings=rng.normal(scale=2, size=G.number_of_edges()),
        spins=spins,
    )
    check_against_brute_force(m)
    tri = ising(nx.cycle_graph(3), couplings={(0, 1): 1.0, (1, 2): 1.0, (0, 2): -1.0}, spins=spins)
    check_against_brute_force(tri)


def test_cardinality_one_variables_and_unused_variables():
    rng = np.random.default_rng(5)
    m = random_model(rng, 6, cards=(1, 2, 3), n_factors=6)
    check_against_brute_force(m)
    # Variables without factors contribute log(cardinality).
    free = DiscreteModel([2, 3, 4], [((0,), [0.0, 1.0])])
    assert exact_log_partition(free) == pytest.approx(np.log(1 + np.e) + np.log(12))
    np.testing.assert_allclose(exact_marginals(free).marginals[2], np.full(4, 0.25))


def test_zero_arity_factor_is_a_constant():
    m = DiscreteModel([2], [((), 1.5), ((0,), [0.0, 0.0])])
    assert exact_log_partition(m) == pytest.approx(1.5 + np.log(2))
    assert exact_map(m).score == pytest.approx(1.5)
    check_against_brute_force(m)


def test_named_variables_and_shared_scopes():
    m = DiscreteModel.from_factors(
        {"a": 2, "b": 3, "c": 2},
        [(("c", "a"), [[0.0, 1.0], [2.0, -1.0]]), (("a", "c"), [[0.5, 0.0], [0.0, 0.3]]),
         (("b", "c"), np.arange(6.0).reshape(3, 2) / 3)],
    )  # fmt: skip
    check_against_brute_force(m)


def test_elimination_order_is_a_deterministic_permutation():
    rng = np.random.default_rng(0)
    m = random_model(rng, 8, n_factors=10)
    a, b = elimination_order(m), elimination_order(m)
    assert sorted(a.order.tolist()) == list(range(8))
    assert a.order.tolist() == b.order.tolist()
    assert a.induced_width == a.max_clique_size - 1
    assert a.max_table_size <= a.total_table_size
    grid = elimination_order(ising(nx.grid_2d_graph(16, 16)))
    assert grid.induced_width == 16 and grid.max_table_size == 2**17


def test_all_forbidden_model():
    rng = np.random.default_rng(0)
    m = DiscreteModel(
        [2, 2, 3],
        [
            ((0, 1), [[0.0, -np.inf], [-np.inf, 0.0]]),  # x0 == x1
            ((1, 0), [[-np.inf, 0.0], [0.0, -np.inf]]),  # x0 != x1
            ((2,), rng.normal(size=3)),
        ],
    )
    assert exact_log_partition(m) == -np.inf
    assert brute_force_log_partition(m) == -np.inf
    for fn in (exact_marginals, exact_map, brute_force_marginals, brute_force_map):
        with pytest.raises(ValueError, match="every assignment is forbidden"):
            fn(m)


def test_memory_guard_names_the_clique_and_suggests_approximate_inference():
    m = ising(nx.complete_graph(40), fields=0.1, couplings=0.2)
    assert elimination_order(m).induced_width == 39  # describing the ordering is fine
    for fn in (exact_log_partition, exact_marginals, exact_map):
        with pytest.raises(
            ValueError, match=r"40 variables \(induced width (at least )?39.*approximate"
        ):
            fn(m)


def test_memory_guard_counts_the_whole_plan(monkeypatch):
    """A limit below the plan's peak (clique table + messages) refuses before allocating;
    the full ordering is known then, so the sizes are exact."""
    m = ising(nx.grid_2d_graph(10, 10))
    peak_clique = 8 * elimination_order(m).max_table_size  # 2**11 entries
    monkeypatch.setattr(kernelkit._memory, "memory_limit", lambda: peak_clique + 8)
    with pytest.raises(ValueError, match=r"clique of 11 variables \(induced width 10, a table"):
        exact_log_partition(m)
    monkeypatch.setattr(kernelkit._memory, "memory_limit", lambda: 2**30)
    assert np.isfinite(exact_log_partition(m))


def test_brute_force_refuses_too_many_assignments():
    m = DiscreteModel([2] * 23, [])
    with pytest.raises(ValueError, match="2\\*\\*22"):
        brute_force_log_partition(m)
    assert exact_log_partition(m) == pytest.approx(23 * np.log(2))


def test_model_type_is_checked():
    for fn in (exact_log_partition, exact_marginals, exact_map, elimination_order):
        with pytest.raises(TypeError, match="model must be a DiscreteModel"):
            fn([[0.0, 1.0]])


def test_larger_grid_is_consistent():
    """10 x 10 (no brute force): the marginals' log Z and the MAP agree with log Z, the
    MAP beats random assignments, and an Ising model's flip symmetry holds."""
    rng = np.random.default_rng(1)
    G = nx.grid_2d_graph(10, 10)
    m = ising(G, fields=0.0, couplings=rng.normal(size=G.number_of_edges()), spins="pm1")
    log_z = exact_log_partition(m)
    mar = exact_marginals(m)
    assert mar.log_partition == pytest.approx(log_z, abs=1e-10)
    for p in mar.marginals:  # zero fields: every spin is symmetric
        np.testing.assert_allclose(p, [0.5, 0.5], atol=1e-10)
    r = exact_map(m)
    assert r.score >= m.score(rng.integers(0, 2, size=(1000, 100))).max()
    assert float(m.score(1 - r.assignment)) == pytest.approx(r.score)
    assert r.score <= log_z


def test_log_partition_equals_pgmpy():
    pytest.importorskip("pgmpy")
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteMarkovNetwork

    rng = np.random.default_rng(7)
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3))
    m = model_on_graph(rng, G, cards=(2, 3))
    net = DiscreteMarkovNetwork([(f"x{u}", f"x{v}") for u, v in G.edges])
    factors = [
        DiscreteFactor(
            [f"x{v}" for v in f.scope], [int(m.cardinalities[v]) for v in f.scope], np.exp(f.table)
        )
        for f in m.factors
    ]
    net.add_factors(*factors)
    phi = VariableElimination(net).query(["x0"], show_progress=False)
    assert exact_log_partition(m) == pytest.approx(np.log(phi.values.sum()), abs=1e-9)


def strong_model(rng, n, scale, p_forbid, cards=(2, 3, 5)):
    """Random pairwise-and-triple model with potentials ~ N(0, scale^2) and -inf entries."""
    card = rng.choice(cards, size=n)
    factors = [((i,), rng.normal(scale=scale, size=card[i])) for i in range(n)]
    for _ in range(2 * n):
        k = int(rng.choice([2, 3]))
        scope = tuple(int(v) for v in rng.choice(n, size=k, replace=False))
        table = rng.normal(scale=scale, size=tuple(card[list(scope)]))
        table[rng.random(table.shape) < p_forbid] = -np.inf
        factors.append((scope, table))
    return DiscreteModel(card, factors)


@pytest.mark.parametrize("scale", [0.1, 5.0, 20.0, 50.0])
@pytest.mark.parametrize("p_forbid", [0.0, 0.3])
def test_linear_domain_log_z_matches_log_domain_and_brute_force(scale, p_forbid):
    """exact_log_partition (linear domain, rescaled) against the log-domain elimination
    of exact_marginals and against enumeration, with strong potentials (|log Z| in the
    hundreds: exp(log Z) itself would overflow) and hard constraints."""
    rng = np.random.default_rng(int(10 * scale) + int(100 * p_forbid))
    for _ in range(4):
        m = strong_model(rng, 8, scale, p_forbid)
        log_z = exact_log_partition(m)
        ref = brute_force_log_partition(m)
        if ref == -np.inf:
            assert log_z == -np.inf
            continue
        assert log_z == pytest.approx(ref, rel=1e-12, abs=1e-12)
        assert log_z == pytest.approx(exact_marginals(m).log_partition, rel=1e-12, abs=1e-12)


def test_strong_grid_agrees_with_log_domain():
    """8 x 8 Ising grids with fields and couplings ~ N(0, 5^2): potentials that span
    e^{+-100} in one message, far outside what unscaled linear tables could hold."""
    rng = np.random.default_rng(11)
    G = nx.grid_2d_graph(8, 8)
    for spins in ("01", "pm1"):
        m = ising(
            G,
            fields=rng.normal(scale=5, size=64),
            couplings=rng.normal(scale=5, size=G.number_of_edges()),
            spins=spins,
        )
        log_z = exact_log_partition(m)
        assert log_z > 100
        assert log_z == pytest.approx(exact_marginals(m).log_partition, rel=1e-12)


def test_infeasibility_found_inside_the_elimination():
    """x_i == x_{i+1} around a cycle of 3-valued variables, and x_0 != x_{n-1}: every
    factor table allows something, only a message reveals that nothing is allowed."""
    n = 7
    eq = np.where(np.eye(3, dtype=bool), 0.0, -np.inf)
    factors = [((i, i + 1), eq) for i in range(n - 1)]
    factors.append(((0, n - 1), np.where(np.eye(3, dtype=bool), -np.inf, 0.0)))
    m = DiscreteModel([3] * n, factors)
    assert exact_log_partition(m) == -np.inf
    assert brute_force_log_partition(m) == -np.inf
    # one table entirely -inf
    m2 = DiscreteModel([2, 3], [((0, 1), np.full((2, 3), -np.inf)), ((0,), [0.0, 1.0])])
    assert exact_log_partition(m2) == -np.inf


def test_non_binary_cardinalities_match_brute_force():
    rng = np.random.default_rng(21)
    for cards in ((3,), (5,), (3, 4, 5), (1, 6)):
        m = random_model(rng, 7, cards=cards, arities=(1, 2, 3), n_factors=12)
        assert exact_log_partition(m) == pytest.approx(
            brute_force_log_partition(m), rel=1e-12, abs=1e-12
        )


def test_many_factors_on_one_variable_and_far_apart_positions():
    """A bucket with more tables than np.einsum takes at once, and a 60-cycle whose first
    clique spans positions 0..59 (more than einsum's 52 axis labels)."""
    rng = np.random.default_rng(4)
    factors = [((0,), rng.normal(size=2)) for _ in range(70)]
    factors += [((0, 1), rng.normal(size=(2, 3))) for _ in range(40)]
    m = DiscreteModel([2, 3], factors)
    assert exact_log_partition(m) == pytest.approx(brute_force_log_partition(m), rel=1e-12)
    n = 60
    G = nx.cycle_graph(n)
    m = ising(G, fields=rng.normal(size=n), couplings=rng.normal(size=n), spins="pm1")
    assert elimination_order(m).order[0] == 0
    assert exact_log_partition(m) == pytest.approx(exact_marginals(m).log_partition, rel=1e-12)


def test_ordering_matches_a_plain_min_fill():
    """The min-fill ordering, which elimination_order may abandon early against the natural
    order, is the plain greedy one: recompute it with sets and compare the choice."""

    def plain(m):
        adj = [set() for _ in range(m.n_variables)]
        for f in m.factors:
            for v in f.scope:
                adj[v].update(u for u in f.scope if u != v)
        cards = [int(c) for c in m.cardinalities]
        order, alive = [], set(range(m.n_variables))
        while alive:

            def key(u):
                nb = adj[u]
                fill = sum(1 for a in nb for b in nb if a < b and b not in adj[a])
                return fill, cards[u] * int(np.prod([cards[w] for w in nb])), u

            v = min(alive, key=key)
            order.append(v)
            alive.remove(v)
            for u in adj[v]:
                adj[u] |= adj[v] - {u}
                adj[u].discard(v)
        return order

    def sizes(m, order):
        adj = [set() for _ in range(m.n_variables)]
        for f in m.factors:
            for v in f.scope:
                adj[v].update(u for u in f.scope if u != v)
        out = []
        for v in order:
            out.append(int(np.prod([m.cardinalities[w] for w in adj[v] | {v}])))
            for u in adj[v]:
                adj[u] |= adj[v] - {u}
                adj[u].discard(v)
        return max(out), sum(out)

    rng = np.random.default_rng(8)
    models = [random_model(rng, int(rng.integers(2, 14)), n_factors=12) for _ in range(15)]
    models += [ising(nx.grid_2d_graph(L, L)) for L in (3, 4, 5, 8)]
    for m in models:
        mf, nat = plain(m), list(range(m.n_variables))
        a, b = sizes(m, mf), sizes(m, nat)
        e = elimination_order(m)
        want = ("min-fill", mf) if a <= b else ("natural", nat)
        assert (e.heuristic, e.order.tolist()) == want
        assert (e.max_table_size, e.total_table_size) == min(a, b)


def test_orderings_remembered_per_factor_graph_only():
    """The ordering is remembered by factor graph: models of one graph with other tables
    get their own exact values; another graph with the same table shapes its own order."""
    import kernelkit.pgm.exact as ex

    rng = np.random.default_rng(4)
    G = nx.grid_2d_graph(3, 4)
    values = []
    for _ in range(3):
        m = ising(G, fields=rng.normal(size=12), couplings=rng.normal(size=17), spins="pm1")
        values.append(exact_log_partition(m))
        assert values[-1] == pytest.approx(brute_force_log_partition(m), abs=1e-10)
    assert len(set(values)) == 3
    path = ising(nx.path_graph(12), fields=0.3, couplings=0.5)
    order = elimination_order(path)
    assert order.max_clique_size == 2 and not order.order.flags.writeable
    assert elimination_order(path) is order  # remembered
    assert len(ex._ORDERS) <= ex._ORDERS_SIZE
