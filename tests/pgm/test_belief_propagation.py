"""Loopy BP and the double-loop (HAK) algorithm against brute-force enumeration."""

from __future__ import annotations

import doctest
import itertools

import networkx as nx
import numpy as np
import pytest

import kernelkit.pgm.belief_propagation as bp_module
from kernelkit.pgm.belief_propagation import (
    BeliefPropagationResult,
    double_loop,
    double_loop_batch,
    loopy_bp,
)
from kernelkit.pgm.exact import (
    brute_force_log_partition,
    brute_force_map,
    brute_force_marginals,
)
from kernelkit.pgm.model import DiscreteModel, ising


def test_doctests():
    assert doctest.testmod(bp_module).failed == 0


def enumerate_factor_marginals(model):
    """Exact factor marginals by enumeration (reference)."""
    X = np.array(list(itertools.product(*[range(c) for c in model.cardinalities])))
    s = model.score(X)
    p = np.exp(s - s.max())
    p /= p.sum()
    out = []
    for f in model.factors:
        shape = f.table.shape
        flat = np.ravel_multi_index(tuple(X[:, v] for v in f.scope), shape)
        out.append(np.bincount(flat, weights=p, minlength=int(np.prod(shape))).reshape(shape))
    return out


def random_tree_model(seed, *, forbid=False, isolated=True):
    """A random factor-graph tree: pairwise and triple factors on a random tree, unary
    factors, mixed cardinalities, optionally some -inf entries and an isolated variable."""
    rng = np.random.default_rng(seed)
    n = 7
    T = nx.random_labeled_tree(n, seed=seed)
    cards = rng.integers(2, 4, size=n + (1 if isolated else 0)).tolist()
    factors = []
    edges = list(T.edges)
    # merge the first two edges sharing a node into a triple factor (still a tree)
    used = set()
    for (a, b), (c, d) in itertools.combinations(edges, 2):
        common = {a, b} & {c, d}
        if common:
            scope = tuple(sorted({a, b, c, d}))
            factors.append((scope, rng.normal(size=[cards[v] for v in scope])))
            used |= {(a, b), (c, d)}
            break
    for e in edges:
        if e not in used:
            factors.append((e, rng.normal(scale=1.5, size=(cards[e[0]], cards[e[1]]))))
    for v in range(n):
        table = rng.normal(size=cards[v])
        if forbid and v % 3 == 0:
            table[rng.integers(cards[v])] = -np.inf
        factors.append(((v,), table))
    return DiscreteModel(cards, factors)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("forbid", [False, True])
def test_bp_exact_on_trees(seed, forbid):
    m = random_tree_model(seed, forbid=forbid)
    ref = brute_force_marginals(m)
    r = loopy_bp(m, tol=1e-12)
    assert isinstance(r, BeliefPropagationResult)
    assert r.converged and r.n_iter <= 20
    assert r.log_partition == pytest.approx(brute_force_log_partition(m), abs=1e-9)
    for a, b in zip(r.marginals, ref.marginals, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-10)
    for a, b in zip(r.factor_marginals, enumerate_factor_marginals(m), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-10)
    if forbid:
        assert any(np.any(p == 0) for p in r.marginals)


@pytest.mark.parametrize("seed", range(6))
def test_max_product_is_map_on_trees(seed):
    m = random_tree_model(seed, forbid=seed % 2 == 1)
    ref = brute_force_map(m)
    r = loopy_bp(m, mode="max", tol=1e-12)
    assert r.converged and r.log_partition is None
    np.testing.assert_array_equal(r.assignment, ref.assignment)
    assert r.score == pytest.approx(ref.score, abs=1e-12)
    # the max-marginal of the MAP value is the largest
    for v, p in enumerate(r.marginals):
        assert p[ref.assignment[v]] == pytest.approx(p.max())


@pytest.mark.parametrize("damping", [0.3, 0.7])
def test_damping_keeps_the_fixed_point(damping):
    m = random_tree_model(3)
    plain = loopy_bp(m, tol=1e-12)
    damped = loopy_bp(m, damping=damping, tol=1e-12)
    assert damped.converged and damped.n_iter > plain.n_iter
    assert damped.log_partition == pytest.approx(plain.log_partition, abs=1e-9)
    for a, b in zip(damped.marginals, plain.marginals, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9)


def weak_grid(seed, scale=0.2):
    rng = np.random.default_rng(seed)
    G = nx.grid_2d_graph(3, 3)
    return ising(
        G,
        fields=rng.uniform(-0.5, 0.5, G.number_of_nodes()),
        couplings=rng.uniform(-scale, scale, G.number_of_edges()),
        spins="pm1",
    )


@pytest.mark.parametrize("seed", range(3))
def test_loopy_bp_close_to_exact_at_weak_couplings(seed):
    m = weak_grid(seed)
    ref = brute_force_marginals(m)
    r = loopy_bp(m)
    assert r.converged
    err = max(np.abs(a - b).max() for a, b in zip(r.marginals, ref.marginals, strict=True))
    assert err < 0.01
    assert r.log_partition == pytest.approx(ref.log_partition, abs=0.02)


@pytest.mark.parametrize("seed", range(3))
def test_double_loop_finds_the_bp_fixed_point(seed):
    m = weak_grid(seed, scale=0.4)
    r = loopy_bp(m, tol=1e-12)
    d = double_loop(m, tol=1e-11)
    assert r.converged and d.converged
    assert d.log_partition == pytest.approx(r.log_partition, abs=1e-7)
    for a, b in zip(d.marginals, r.marginals, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-7)


@pytest.mark.parametrize("seed", range(4))
def test_double_loop_exact_on_trees(seed):
    m = random_tree_model(seed, forbid=seed % 2 == 0)
    d = double_loop(m, tol=1e-11)
    assert d.converged and d.assignment is None
    assert d.log_partition == pytest.approx(brute_force_log_partition(m), abs=1e-7)
    for a, b in zip(d.marginals, brute_force_marginals(m).marginals, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-7)
    for a, b in zip(d.factor_marginals, enumerate_factor_marginals(m), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)


def frustrated_k5():
    # strong frustrated couplings: loopy BP oscillates (checked below)
    rng = np.random.default_rng(2)
    return ising(
        nx.complete_graph(5),
        fields=rng.uniform(-0.5, 0.5, 5),
        couplings=rng.uniform(-3, 3, 10),
        spins="pm1",
    )


def test_double_loop_converges_where_loopy_bp_does_not():
    m = frustrated_k5()
    assert not loopy_bp(m, schedule="parallel", max_iter=500).converged
    d = double_loop(m)
    assert d.converged
    # the beliefs are locally consistent: every factor marginal sums to its variables'
    for f, bf in zip(m.factors, d.factor_marginals, strict=True):
        assert bf.sum() == pytest.approx(1.0)
        for pos, v in enumerate(f.scope):
            other = tuple(i for i in range(len(f.scope)) if i != pos)
            np.testing.assert_allclose(bf.sum(axis=other), d.marginals[v], atol=1e-7)


def test_double_loop_decreases_the_bethe_free_energy():
    # with the inner problem solved, each outer step cannot increase F = -log_partition
    m = frustrated_k5()
    values = [
        double_loop(m, max_iter=t, tol=1e-12, max_inner_iter=5000).log_partition
        for t in range(1, 7)
    ]
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(values))


def test_isolated_variable_and_no_factors():
    m = DiscreteModel([3, 2], [((1,), [0.0, 1.0])])
    for f in (loopy_bp, double_loop):
        r = f(m)
        assert r.log_partition == pytest.approx(np.log(3) + np.log(1 + np.e))
        np.testing.assert_allclose(r.marginals[0], [1 / 3] * 3)
    empty = DiscreteModel([2, 2], [])
    assert loopy_bp(empty).log_partition == pytest.approx(np.log(4))
    assert loopy_bp(empty, mode="max").assignment.tolist() == [0, 0]


def test_max_iter_zero_and_reporting():
    m = random_tree_model(0)
    r = loopy_bp(m, max_iter=0)
    assert r.n_iter == 0 and not r.converged
    r = loopy_bp(m, max_iter=1)
    assert r.n_iter == 1 and not r.converged
    assert double_loop(m, max_iter=0).n_iter == 0


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"damping": 1.0}, ValueError, "damping"),
        ({"damping": -0.1}, ValueError, "damping"),
        ({"damping": "0.5"}, TypeError, "damping"),
        ({"mode": "mean"}, ValueError, "mode"),
        ({"max_iter": -1}, ValueError, "max_iter"),
        ({"max_iter": 1.5}, TypeError, "max_iter"),
        ({"tol": -1e-3}, ValueError, "tol"),
        ({"tol": "small"}, TypeError, "tol"),
    ],
)
def test_loopy_bp_bad_input(kwargs, exc, match):
    m = random_tree_model(0)
    with pytest.raises(exc, match=match):
        loopy_bp(m, **kwargs)


def test_bad_model_and_double_loop_arguments():
    with pytest.raises(TypeError, match="model"):
        loopy_bp(nx.path_graph(3))
    m = random_tree_model(0)
    with pytest.raises(ValueError, match="max_inner_iter"):
        double_loop(m, max_inner_iter=0)
    with pytest.raises(ValueError, match="max_iter"):
        double_loop(m, max_iter=-2)
    with pytest.raises(ValueError, match="tol"):
        double_loop(m, tol=np.inf)


def test_infeasible_model():
    # issue 28: an error, as the exact methods give (was: log Z = -inf, zero marginals)
    m = DiscreteModel([2, 2], [((0, 1), np.full((2, 2), -np.inf))])
    for f in (loopy_bp, double_loop):
        with pytest.raises(ValueError, match="every assignment is forbidden"):
            f(m)


def test_cardinality_one_reversed_scope_and_hard_constraints():
    xor = np.array([[-np.inf, 0.0], [0.0, -np.inf]])
    m = DiscreteModel(
        [1, 2, 2, 3],
        [((0, 1), [[0.3, 0.1]]), ((2, 1), xor), ((3, 2), np.log([[1, 2], [3, 4], [5, 6]]))],
    )
    ref = brute_force_marginals(m)
    for f in (loopy_bp, double_loop):
        r = f(m)
        assert r.log_partition == pytest.approx(ref.log_partition, abs=1e-8)
        for a, b in zip(r.marginals, ref.marginals, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-8)
    r = loopy_bp(m, mode="max")
    assert r.score == pytest.approx(brute_force_map(m).score)


def mixed_loopy_model(seed, *, forbid=False):
    """A loopy model with binary pairwise and 3-ary factors (the finite fast path when
    ``forbid`` is False) and a ternary variable (the general path), seeded tables."""
    rng = np.random.default_rng(seed)
    cards = [2, 2, 2, 2, 2, 3]
    factors = [((v,), rng.normal(size=cards[v])) for v in range(6)]
    for a, b in [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]:
        factors.append(((a, b), rng.normal(scale=0.5, size=(2, 2))))
    factors.append(((1, 3, 4), rng.normal(scale=0.5, size=(2, 2, 2))))
    t = rng.normal(scale=0.5, size=(2, 3))
    if forbid:
        t[0, 2] = -np.inf
    factors.append(((4, 5), t))
    return DiscreteModel(cards, factors)


@pytest.mark.parametrize("forbid", [False, True])
def test_double_loop_fast_and_general_paths_find_the_bp_fixed_point(forbid):
    m = mixed_loopy_model(1, forbid=forbid)
    r = loopy_bp(m, tol=1e-13)
    d = double_loop(m, tol=1e-12)
    assert r.converged and d.converged
    assert d.log_partition == pytest.approx(r.log_partition, abs=1e-8)
    for a, b in zip(d.factor_marginals, r.factor_marginals, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-8)


@pytest.mark.parametrize("forbid", [False, True])
def test_double_loop_batch_equals_one_at_a_time(forbid):
    """Each model of a batch follows its own iterates: the same results and iteration
    counts as alone, also when the models stop at different outer iterations and when
    some hit max_iter."""
    models = [mixed_loopy_model(s, forbid=forbid) for s in range(4)]
    models.append(frustrated_k5_like(models[0]))
    settings = ({"max_iter": 100, "max_inner_iter": 3}, {"max_iter": 7, "max_inner_iter": 2})
    for kwargs in settings:
        batch = double_loop_batch(models, tol=1e-10, **kwargs)
        alone = [double_loop(m, tol=1e-10, **kwargs) for m in models]
        for b, a in zip(batch, alone, strict=True):
            assert (b.n_iter, b.converged) == (a.n_iter, a.converged)
            assert b.n_iter <= kwargs["max_iter"]
            assert b.log_partition == pytest.approx(a.log_partition, abs=1e-10)
            for x, y in zip(b.factor_marginals, a.factor_marginals, strict=True):
                np.testing.assert_allclose(x, y, atol=1e-10)
            for x, y in zip(b.marginals, a.marginals, strict=True):
                np.testing.assert_allclose(x, y, atol=1e-10)
        if kwargs["max_iter"] == 100:  # some stop early, the frustrated one runs on
            assert len({r.n_iter for r in batch}) > 2 and not batch[-1].converged


def frustrated_k5_like(model):
    """``model``'s factor graph with strong, frustrated tables (many outer iterations)."""
    rng = np.random.default_rng(9)
    factors = []
    for f in model.factors:
        t = rng.uniform(-3, 3, size=f.table.shape) if f.arity > 1 else f.table
        factors.append((f.scope, np.where(np.isneginf(f.table), -np.inf, t)))
    return DiscreteModel(model.cardinalities, factors)


def test_double_loop_batch_errors():
    m = mixed_loopy_model(0)
    with pytest.raises(TypeError, match="models must be a sequence"):
        double_loop_batch(m)
    with pytest.raises(ValueError, match="at least one"):
        double_loop_batch([])
    with pytest.raises(TypeError, match=r"models\[1\]"):
        double_loop_batch([m, "x"])
    other = DiscreteModel(m.cardinalities, [(f.scope, f.table) for f in m.factors[:-1]])
    with pytest.raises(ValueError, match=r"one factor graph.*models\[1\]"):
        double_loop_batch([m, other])
    with pytest.raises(ValueError, match="max_inner_iter"):
        double_loop_batch([m], max_inner_iter=0)


# -- the sequential schedule ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("forbid", [False, True])
@pytest.mark.parametrize("schedule", ["parallel", "sequential"])
def test_bp_exact_on_trees_with_both_schedules(seed, forbid, schedule):
    m = random_tree_model(seed, forbid=forbid)
    r = loopy_bp(m, schedule=schedule, tol=1e-12)
    assert r.converged
    assert r.log_partition == pytest.approx(brute_force_log_partition(m), abs=1e-9)
    for a, b in zip(r.marginals, brute_force_marginals(m).marginals, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-10)
    for a, b in zip(r.factor_marginals, enumerate_factor_marginals(m), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-10)
    mp = loopy_bp(m, mode="max", schedule=schedule, tol=1e-12)
    ref = brute_force_map(m)
    assert mp.converged
    np.testing.assert_array_equal(mp.assignment, ref.assignment)
    assert mp.score == pytest.approx(ref.score, abs=1e-12)


def test_factor_colouring_is_proper_and_covers_the_factors():
    for m in [mixed_loopy_model(0), weak_grid(0), frustrated_k5(), random_tree_model(1)]:
        colour = bp_module._factor_colouring(m)
        assert colour.shape == (len(m.factors),)
        for f, c in zip(m.factors, colour.tolist(), strict=True):
            assert (c == -1) == (f.arity == 1)
        for (f, cf), (g, cg) in itertools.combinations(
            zip(m.factors, colour.tolist(), strict=True), 2
        ):
            if cf >= 0 and cf == cg:
                assert not set(f.scope) & set(g.scope)
        used = set(colour[colour >= 0].tolist())
        assert used == set(range(len(used)))


def _normalise(a, mode):
    c = np.max(a) if mode == "max" else np.logaddexp.reduce(a)
    return a - c if np.isfinite(c) else a


def one_at_a_time_bp(model, *, mode, damping, n_sweeps, reverse=False):
    """Reference: sequential BP updating the messages out of ONE factor at a time, in
    colour order (``reverse``: each colour's factors in the reverse order), newest messages
    used at once; returns the normalised variable marginals."""
    colour = bp_module._factor_colouring(model)
    f2v = {}  # (factor, position) -> log-message
    for i, f in enumerate(model.factors):
        for p, v in enumerate(f.scope):
            c = model.cardinalities[v]
            f2v[i, p] = _normalise(f.table, mode) if f.arity == 1 else np.zeros(c)
    by_var = {
        v: [key for key in f2v if model.factors[key[0]].scope[key[1]] == v]
        for v in range(model.n_variables)
    }
    order = []
    for c in range(colour.max() + 1):
        members = np.flatnonzero(colour == c).tolist()
        order += members[::-1] if reverse else members
    for _ in range(n_sweeps):
        for i in order:
            f = model.factors[i]
            k = f.arity
            inc = []
            for p, v in enumerate(f.scope):
                m = sum(
                    (f2v[key] for key in by_var[v] if key != (i, p)),
                    np.zeros(model.cardinalities[v]),
                )
                inc.append(_normalise(m, mode))
            new = {}
            for p in range(k):
                B = f.table.copy()
                for q in range(k):
                    if q != p:
                        shape = [1] * k
                        shape[q] = -1
                        B = B + inc[q].reshape(shape)
                axes = tuple(q for q in range(k) if q != p)
                red = B.max(axis=axes) if mode == "max" else np.logaddexp.reduce(B, axis=axes)
                msg = _normalise(red, mode)
                new[p] = (1 - damping) * msg + damping * f2v[i, p] if damping else msg
            for p in range(k):
                f2v[i, p] = new[p]
    out = []
    for v in range(model.n_variables):
        b = sum((f2v[key] for key in by_var[v]), np.zeros(model.cardinalities[v]))
        out.append(np.exp(_normalise(b, "sum")))
    return out


@pytest.mark.parametrize("mode", ["sum", "max"])
@pytest.mark.parametrize("damping", [0.0, 0.4])
@pytest.mark.parametrize("forbid", [False, True])
def test_sequential_equals_one_factor_at_a_time(mode, damping, forbid):
    """A colour class updated at once == its factors updated one at a time (in any order
    within the class), sweep after sweep; and unlike the parallel schedule."""
    m = mixed_loopy_model(3, forbid=forbid)
    assert len(set(bp_module._factor_colouring(m).tolist()) - {-1}) >= 3
    for n_sweeps in (1, 2, 5):
        r = loopy_bp(
            m, mode=mode, schedule="sequential", damping=damping, max_iter=n_sweeps, tol=0.0
        )
        assert r.n_iter == n_sweeps or r.converged  # max-product can reach its fixed point
        for reverse in (False, True):
            ref = one_at_a_time_bp(
                m, mode=mode, damping=damping, n_sweeps=n_sweeps, reverse=reverse
            )
            for a, b in zip(r.marginals, ref, strict=True):
                np.testing.assert_allclose(a, b, atol=1e-12)
    par = loopy_bp(m, mode=mode, damping=damping, max_iter=1, tol=0.0)  # the test can fail
    r = loopy_bp(m, mode=mode, schedule="sequential", damping=damping, max_iter=1, tol=0.0)
    assert max(np.abs(a - b).max() for a, b in zip(par.marginals, r.marginals, strict=True)) > 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_schedules_share_the_fixed_point(seed):
    m = mixed_loopy_model(seed, forbid=seed == 1)
    for damping in (0.0, 0.5):
        par = loopy_bp(m, tol=1e-12, damping=damping)
        seq = loopy_bp(m, tol=1e-12, damping=damping, schedule="sequential")
        assert par.converged and seq.converged
        assert seq.log_partition == pytest.approx(par.log_partition, abs=1e-9)
        for a, b in zip(seq.factor_marginals, par.factor_marginals, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-9)
    g = weak_grid(seed, scale=0.4)
    par, seq = (loopy_bp(g, mode="max", schedule=s, tol=1e-12) for s in ("parallel", "sequential"))
    assert par.converged and seq.converged
    np.testing.assert_array_equal(seq.assignment, par.assignment)


def test_sequential_edge_cases_and_parallel_default():
    m = DiscreteModel([3, 2], [((1,), [0.0, 1.0])])  # no factor of arity >= 2
    r = loopy_bp(m, schedule="sequential")
    assert r.converged and r.n_iter == 1
    assert r.log_partition == pytest.approx(np.log(3) + np.log(1 + np.e))
    r = loopy_bp(random_tree_model(0), schedule="sequential", max_iter=0)
    assert r.n_iter == 0 and not r.converged
    m = mixed_loopy_model(2)
    a, b = loopy_bp(m, max_iter=7), loopy_bp(m, schedule="parallel", max_iter=7)
    for x, y in zip(a.factor_marginals, b.factor_marginals, strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("schedule", ["flooding", "Sequential", None])
def test_bad_schedule(schedule):
    with pytest.raises(
        ValueError, match=r"schedule must be one of 'auto', 'parallel', 'sequential', 'residual'"
    ):
        loopy_bp(random_tree_model(0), schedule=schedule)
    with pytest.raises(ValueError, match=repr(schedule)):
        loopy_bp(random_tree_model(0), schedule=schedule)
