"""Clamping, flipping, uprooting and rerooting against brute-force enumeration (Ch. 1-2)."""

import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.special import logsumexp

from kernelkit.pgm.model import DiscreteModel, ising
from kernelkit.pgm.parametrization import (
    from_even_basis,
    random_model,
    to_even_basis,
)
from kernelkit.pgm.transforms import (
    HEURISTICS,
    auto_reroot,
    clamp,
    flip,
    reroot,
    reroot_scores,
    uproot,
)


def all_assignments(n):
    return np.array(list(itertools.product([0, 1], repeat=n)), dtype=np.int64)


def brute(model):
    """log Z, the distribution over all assignments, and the assignments."""
    X = all_assignments(model.n_variables)
    s = model.score(X)
    log_z = logsumexp(s)
    return log_z, np.exp(s - log_z), X


def higher_order_model(seed):
    rng = np.random.default_rng(seed)
    scopes = [(0,), (1,), (0, 1), (1, 2), (0, 2, 3), (1, 2, 3, 4), (4,), (3, 4)]
    return DiscreteModel([2] * 5, [(s, rng.normal(scale=1.5, size=(2,) * len(s))) for s in scopes])


MODELS = [higher_order_model(0), higher_order_model(1)]


@pytest.mark.parametrize("method", ["even", "table"])
@pytest.mark.parametrize("model", MODELS)
def test_uproot_scores_partition_function_and_marginals(model, method):
    r = uproot(model, method=method)
    plus = r.model
    n = model.n_variables
    assert plus.n_variables == n + 1 and r.root == n and r.kind == "uprooted"
    X = all_assignments(n)
    zeros, ones = np.zeros((len(X), 1), int), np.ones((len(X), 1), int)
    # Prop. 2.3: score(x) = score+(x, 0) = score+(x_bar, 1)
    np.testing.assert_allclose(plus.score(np.hstack([X, zeros])), model.score(X), atol=1e-10)
    np.testing.assert_allclose(plus.score(np.hstack([1 - X, ones])), model.score(X), atol=1e-10)
    log_z, p, _ = brute(model)
    log_zp, pp, Xp = brute(plus)
    assert log_zp == pytest.approx(log_z + np.log(2))  # Z+ = 2 Z
    assert r.to_original_log_partition(log_zp) == pytest.approx(log_z)
    # eq. 2.6: p(x_U) = 2 p+(x_U, x_0 = 0), on singletons via the (root, v) pairs
    pairs = np.array(
        [
            [[pp[(Xp[:, n] == a) & (Xp[:, v] == b)].sum() for b in (0, 1)] for a in (0, 1)]
            for v in range(n + 1)
        ]
    )
    single = np.array([[p[X[:, v] == b].sum() for b in (0, 1)] for v in range(n)])
    np.testing.assert_allclose(r.to_original_marginals(pairs), single, atol=1e-12)
    np.testing.assert_allclose(2 * pairs[:n, 0, :], single, atol=1e-12)
    # a joint marginal over U = {0, 2} with the root
    table = np.array(
        [
            [
                [pp[(Xp[:, 0] == a) & (Xp[:, 2] == b) & (Xp[:, n] == c)].sum() for c in (0, 1)]
                for b in (0, 1)
            ]
            for a in (0, 1)
        ]
    )
    scope, joint = r.to_original_marginal((0, 2, n), table)
    assert scope == (0, 2)
    expected = np.array(
        [[p[(X[:, 0] == a) & (X[:, 2] == b)].sum() for b in (0, 1)] for a in (0, 1)]
    )
    np.testing.assert_allclose(joint, expected, atol=1e-12)
    # MAP: both preimages map back to a MAP of M
    best = Xp[np.argmax(plus.score(Xp))]
    mapped = r.to_original_assignment(best)
    assert model.score(mapped) == pytest.approx(model.score(X).max())
    assert np.array_equal(r.to_original_assignment(r.from_original_assignment(X)), X)


@pytest.mark.parametrize("method", ["even", "table"])
@pytest.mark.parametrize("model", MODELS)
def test_reroot_at_every_vertex(model, method):
    n = model.n_variables
    log_z, p, X = brute(model)
    single = np.array([[p[X[:, v] == b].sum() for b in (0, 1)] for v in range(n)])
    for i in range(n):
        r = reroot(model, i, method=method)
        mi = r.model
        assert r.kind == "rerooted" and r.vertex == i and r.root == n - 1
        assert mi.variables == [v for v in range(n + 1) if v != i]
        log_zi, pi, Xi = brute(mi)
        assert log_zi == pytest.approx(log_z)  # Prop. 2.7: Z_i = Z
        assert r.to_original_log_partition(log_zi) == pytest.approx(log_z)
        # the score-preserving bijection
        Y = r.from_original_assignment(X)
        np.testing.assert_allclose(mi.score(Y), model.score(X), atol=1e-10)
        assert np.array_equal(r.to_original_assignment(Y), X)
        # marginals (eqs. 2.10, 2.11)
        root = r.root
        pairs = np.array(
            [
                [[pi[(Xi[:, root] == a) & (Xi[:, v] == b)].sum() for b in (0, 1)] for a in (0, 1)]
                for v in range(n)
            ]
        )
        np.testing.assert_allclose(r.to_original_marginals(pairs), single, atol=1e-12)
        # MAP
        best = Xi[np.argmax(mi.score(Xi))]
        assert model.score(r.to_original_assignment(best)) == pytest.approx(model.score(X).max())


def test_reroot_marginal_with_the_clamped_variable():
    model = MODELS[0]
    _, p, X = brute(model)
    r = reroot(model, 2)
    _, pi, Xi = brute(r.model)
    root = r.root
    # p_i over (variable 0 of M_i = original 0, root)
    table = np.array(
        [[pi[(Xi[:, 0] == a) & (Xi[:, root] == c)].sum() for c in (0, 1)] for a in (0, 1)]
    )
    scope, joint = r.to_original_marginal((0, root), table)
    assert scope == (0, 2)
    expected = np.array(
        [[p[(X[:, 0] == a) & (X[:, 2] == b)].sum() for b in (0, 1)] for a in (0, 1)]
    )
    np.testing.assert_allclose(joint, expected, atol=1e-12)


def test_lemma_2_12_uprooting_even_potentials():
    for k in (1, 2, 3, 4):
        m = from_even_basis({tuple(range(k)): 1.3}, k)
        plus = uproot(m, method="table").model
        b = to_even_basis(plus)
        expected = tuple(range(k)) if k % 2 == 0 else (*range(k), k)
        assert b.coefficients == pytest.approx({expected: 1.3})
        assert b.constant == pytest.approx(0.0, abs=1e-12)
        # the even method builds the same scopes directly
        assert [f.scope for f in uproot(m).model.factors] == [expected]


def test_even_uproot_keeps_even_arities():
    m = random_model([(0, 1, 2, 3), (1, 2), (0, 2, 3)], {2: 2.0, 3: 1.0, 4: 2.0}, random_state=0)
    arities = sorted(f.arity for f in uproot(m).model.factors)
    assert arities == [2, 4, 4]
    assert sorted(f.arity for f in uproot(m, method="table").model.factors) == [3, 4, 5]


def test_clamp():
    rng = np.random.default_rng(3)
    m = DiscreteModel(
        [2, 3, 2],
        [
            ((0, 1), rng.normal(size=(2, 3))),
            ((1,), rng.normal(size=3)),
            ((2, 1), rng.normal(size=(2, 3))),
        ],
    )
    c = clamp(m, 1, 2)
    assert c.variables == [0, 2]
    X = all_assignments(2)
    full = np.insert(X, 1, 2, axis=1)
    np.testing.assert_allclose(c.score(X), m.score(full))
    # clamping the only variable keeps the constant
    one = clamp(DiscreteModel([2], [((0,), [1.0, 4.0])]), 0, 1)
    assert one.n_variables == 0 and float(one.score(np.zeros(0, int))) == 4.0
    with pytest.raises(ValueError, match="variable"):
        clamp(m, 7, 0)
    with pytest.raises(ValueError, match="domain"):
        clamp(m, 0, 2)
    with pytest.raises(TypeError, match="value"):
        clamp(m, 0, 0.5)


def test_clamp_named_model():
    m = ising(nx.path_graph(["a", "b", "c"]), fields=1.0, couplings=2.0)
    c = clamp(m, "b", 1)
    assert c.variables == ["a", "c"]
    np.testing.assert_allclose(c.score([[1, 1], [0, 0]]), m.score([[1, 1, 1], [0, 1, 0]]))


def test_flip_preserves_z_and_maps_scores():
    m = MODELS[1]
    A = [0, 3]
    f = flip(m, A)
    X = all_assignments(m.n_variables)
    Xbar = X.copy()
    Xbar[:, A] = 1 - Xbar[:, A]
    np.testing.assert_allclose(f.score(X), m.score(Xbar))
    assert brute(f)[0] == pytest.approx(brute(m)[0])
    pairs = zip(flip(f, A).factors, m.factors, strict=True)
    assert all(np.array_equal(g.table, h.table) for g, h in pairs)
    with pytest.raises(ValueError, match="binary"):
        flip(DiscreteModel([3], []), [0])
    with pytest.raises(ValueError, match="variable"):
        flip(m, [9])


def test_named_model_reroot():
    m = ising(nx.cycle_graph(["a", "b", "c"]), fields=0.3, couplings=[1.0, -2.0, 0.5])
    r = reroot(m, "b")
    assert r.model.variables == ["a", "c", "root"]
    assert brute(r.model)[0] == pytest.approx(brute(m)[0])
    with pytest.raises(ValueError, match="variable"):
        reroot(m, "z")


def test_heuristic_scores_by_hand():
    # M: a 1-potential on 0 (coef 1), 2-potentials (0,1) coef 2 and (1,2) coef -4,
    # a 3-potential (0,1,2) coef 0.5 (a 4-potential with the root in M+), a 4-potential 0..3
    m = from_even_basis(
        {(0,): 1.0, (0, 1): 2.0, (1, 2): -4.0, (0, 1, 2): 0.5, (0, 1, 2, 3): -1.0}, 4
    )
    t = np.tanh
    s = reroot_scores(m, "K")
    p2 = {(0, 1): 2.0, (1, 2): -4.0, (0, 4): 1.0}
    p4 = {(0, 1, 2, 4): 0.5, (0, 1, 2, 3): -1.0}
    expected = np.zeros(5)
    for u, a in p2.items():
        expected[list(u)] += t(abs(0.051 * a))
    for u, a in p4.items():
        expected[list(u)] += 0.091 * t(abs(1.482 * a))
    np.testing.assert_allclose(s, expected)
    g6 = np.zeros(5)
    for u, a in p4.items():
        g6[list(u)] += abs(a)
    np.testing.assert_allclose(reroot_scores(m, "G6"), g6)
    w = np.zeros(5)
    for u, a in p2.items():  # maxtW: tanh|W/4| with W = 2a
        w[list(u)] += t(abs(2 * a / 4))
    np.testing.assert_allclose(reroot_scores(m, "maxtW"), w)
    assert set(HEURISTICS) == {"maxtW", "K", "G", "K6", "G6"}
    with pytest.raises(ValueError, match="heuristic"):
        reroot_scores(m, "best")


def test_auto_reroot():
    m = from_even_basis({(0, 1): 2.0, (1, 2): -4.0, (0,): 1.0}, 3)
    r = auto_reroot(m, "maxtW")
    assert r.kind == "rerooted" and r.vertex == 1
    assert brute(r.model)[0] == pytest.approx(brute(m)[0])
    # strong 1-potentials only: the root wins, nothing changes
    u = from_even_basis({(0,): 5.0, (1,): 5.0, (0, 1): 0.1}, 2)
    r0 = auto_reroot(u, "K")
    assert r0.kind == "original" and r0.model is u
    x = all_assignments(2)
    assert np.array_equal(r0.to_original_assignment(x), x)
    assert r0.to_original_log_partition(1.5) == 1.5


def test_binary_only():
    m3 = DiscreteModel([3, 2], [((0, 1), np.zeros((3, 2)))])
    for fn in (uproot, lambda m: reroot(m, 0), reroot_scores, auto_reroot):
        with pytest.raises(ValueError, match="binary"):
            fn(m3)
    with pytest.raises(ValueError, match="method"):
        uproot(MODELS[0], method="fast")
    with pytest.raises(ValueError, match="-inf"):
        uproot(DiscreteModel([2], [((0,), [0.0, -np.inf])]))
    # the table method takes hard constraints
    hard = DiscreteModel([2, 2], [((0, 1), [[0.0, -np.inf], [1.0, 2.0]])])
    r = reroot(hard, 0, method="table")
    assert brute(r.model)[0] == pytest.approx(brute(hard)[0])


def test_marginals_from_exact_factor_beliefs_are_exact():
    """Factor beliefs of the rerooted model computed exactly (by enumeration) map back to
    the original's marginals exactly."""
    from kernelkit.pgm.exact import brute_force_marginals

    rng = np.random.RandomState(7)
    G = nx.cycle_graph(5)
    m = ising(G, fields=rng.normal(size=5), couplings=rng.normal(scale=2.0, size=5))
    for vertex in (None, 2):
        r = uproot(m) if vertex is None else reroot(m, vertex)
        w = r.model
        X = np.array(list(itertools.product([0, 1], repeat=w.n_variables)))
        p = np.exp(w.score(X) - np.logaddexp.reduce(w.score(X)))
        beliefs = []
        for f in w.factors:
            b = np.zeros((2,) * len(f.scope))
            np.add.at(b, tuple(X[:, list(f.scope)].T), p)
            beliefs.append(b)
        single = [np.bincount(X[:, v], weights=p, minlength=2) for v in range(w.n_variables)]
        np.testing.assert_allclose(
            r.marginals_from_beliefs(single, beliefs),
            brute_force_marginals(m).marginals,
            atol=1e-12,
        )
    with pytest.raises(ValueError, match="one belief per factor"):
        r.marginals_from_beliefs(single, beliefs[:-1])


def test_variables_by_name_or_by_index_and_a_clear_error_otherwise():
    m = ising(nx.path_graph(["a", "b", "c"]), 0.1, 0.5)
    assert clamp(m, "b", 1).variables == clamp(m, 1, 1).variables == ["a", "c"]
    for bad in ("z", 3, -1, True, np.array([1, 2])):
        with pytest.raises(
            ValueError, match=r"variable must be a variable name or an index 0\.\.2"
        ):
            clamp(m, bad, 0)
