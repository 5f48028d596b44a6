"""Loopy BP that is right or says so: determinism (zeros in the tables), runaway and
contradicting messages, max-product decoding under hard constraints, and the residual
and automatic schedules."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

import kernelkit.pgm.belief_propagation as bp_module
from kernelkit.pgm.belief_propagation import double_loop, loopy_bp
from kernelkit.pgm.exact import (
    brute_force_log_partition,
    brute_force_map,
    brute_force_marginals,
    exact_log_partition,
)
from kernelkit.pgm.model import DiscreteModel, ising

NEG = -np.inf
TINY = float(np.log(1e-300))  # a near-deterministic entry (-690.8)
SUBNORMAL = float(np.log(5e-324))  # the smallest positive float64 (-744.4)


def sane_bound(model):
    """A bound on |log Z_Bethe| for any beliefs: the largest finite |entry| per factor,
    plus log|X_f| per factor, plus d_v log K_v per variable."""
    total = 0.0
    degree = np.zeros(model.n_variables)
    for f in model.factors:
        t = f.table[np.isfinite(f.table)]
        total += float(np.abs(t).max(initial=0.0)) + float(np.log(max(f.table.size, 1)))
        degree[list(f.scope)] += 1
    return total + float(np.sum(degree * np.log(model.cardinalities)))


def assert_sane(model, r):
    """Never a runaway number: a converged result has a finite log Z within the bound;
    any result has a log Z that is NaN (said) or within it."""
    if r.log_partition is not None:
        if r.converged:
            assert np.isfinite(r.log_partition), r.reason
        if np.isfinite(r.log_partition):
            assert abs(r.log_partition) <= sane_bound(model)
        else:
            assert np.isnan(r.log_partition) and not r.converged and r.reason
    assert (r.reason == "") == r.converged
    for p in r.marginals:
        assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0)


# -- hand-made near-deterministic and deterministic tables ------------------------------------


def mendel_table(zero):
    """P(child | mother, father) over genotypes AA, Aa, aa (Mendelian inheritance):
    log-probabilities, the impossible entries ``zero`` (``-inf`` or a tiny log)."""
    pa = np.array([1.0, 0.5, 0.0])  # P(transmit A) per genotype
    T = np.zeros((3, 3, 3))
    for mo, fa in itertools.product(range(3), range(3)):
        a, b = pa[mo], pa[fa]
        T[mo, fa] = [a * b, a * (1 - b) + (1 - a) * b, (1 - a) * (1 - b)]
    with np.errstate(divide="ignore"):
        L = np.log(T)
    return np.where(T > 0, L, zero)


def pedigree(zero, *, loop=False, evidence=(2, 0, None, 1, None, 2, None)):
    """Founders 0, 1, 2, 6; 3 child of (0, 1); 4 child of (3, 2); 5 child of (3, 4) when
    ``loop`` (an inbred mating: a loop), else of (3, 6) (a tree). Soft genotype evidence
    (error 1e-3) on the individuals given in ``evidence``."""
    prior = np.log([0.25, 0.5, 0.25])
    T = mendel_table(zero)
    factors = [((v,), prior) for v in (0, 1, 2, 6)]
    factors += [((0, 1, 3), T), ((3, 2, 4), T), (((3, 4, 5) if loop else (3, 6, 5)), T)]
    for v, g in enumerate(evidence):
        if g is not None:
            e = np.full(3, np.log(1e-3))
            e[g] = 0.0
            factors.append(((v,), e))
    return DiscreteModel([3] * 7, factors)


def csp(seed, zero, *, n=7, m=6, tree=False):
    """A random 3-SAT-like model: 3-ary clause factors forbidding one joint value (set
    to ``zero``), unary fields; on a tree of clauses when ``tree``."""
    rng = np.random.default_rng(seed)
    factors = [((v,), rng.uniform(-1, 1, 2)) for v in range(n)]
    if tree:  # clauses chained through one shared variable each: a factor tree
        scopes = [(0, 1, 2), (2, 3, 4), (4, 5, 6)]
    else:
        scopes = [tuple(rng.choice(n, 3, replace=False).tolist()) for _ in range(m)]
    for sc in scopes:
        t = rng.uniform(-0.5, 0.5, (2, 2, 2))
        t[tuple(rng.integers(0, 2, 3))] = zero
        factors.append((sc, t))
    return DiscreteModel([2] * n, factors)


def tiny_tables(zero):
    """Pairwise tables on a path, with near-zero or zero entries, and a unary ``zero``."""
    T = np.array([[0.0, zero, 0.3], [zero, 0.0, zero], [-0.2, 0.1, 0.0]])
    return DiscreteModel(
        [3, 3, 3, 2],
        [
            ((0, 1), T),
            ((1, 2), T.T),
            ((2, 3), [[0.0, zero], [zero, 0.5], [0.2, 0.0]]),
            ((0,), [zero, 0.0, 0.4]),
        ],
    )


TREES = {
    "pedigree": lambda z: pedigree(z),
    "csp": lambda z: csp(0, z, tree=True),
    "tables": tiny_tables,
}


@pytest.mark.parametrize(
    "zero", [NEG, TINY, SUBNORMAL, -1e4], ids=["0", "1e-300", "5e-324", "e^-1e4"]
)
@pytest.mark.parametrize("name", sorted(TREES))
@pytest.mark.parametrize("schedule", ["auto", "parallel", "sequential", "residual"])
def test_near_deterministic_trees_are_exact(name, zero, schedule):
    m = TREES[name](zero)
    r = loopy_bp(m, schedule=schedule, tol=1e-12)
    assert r.converged and r.reason == ""
    assert np.isfinite(r.log_partition)
    assert r.log_partition == pytest.approx(brute_force_log_partition(m), abs=1e-9)
    for a, b in zip(r.marginals, brute_force_marginals(m).marginals, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-10)
    mp = loopy_bp(m, mode="max", schedule=schedule, tol=1e-12)
    assert mp.converged and mp.score == pytest.approx(brute_force_map(m).score, abs=1e-9)


@pytest.mark.parametrize("zero", [NEG, TINY, SUBNORMAL], ids=["0", "1e-300", "5e-324"])
@pytest.mark.parametrize("seed", range(8))
def test_near_deterministic_loopy_models_are_never_absurd(seed, zero):
    for m in (csp(seed, zero), pedigree(zero, loop=True)):
        for schedule in ("auto", "parallel", "sequential"):
            r = loopy_bp(m, schedule=schedule)
            assert_sane(m, r)
            mp = loopy_bp(m, mode="max", schedule=schedule)
            assert np.isfinite(mp.score) or not mp.converged


def test_the_bethe_log_z_counts_zero_beliefs_as_zero():
    # an entry of belief 0 adds 0 * log 0 = 0 and 0 * -inf = 0 (was NaN-prone); a
    # forbidden value with every other entry of the table tied: log Z = log(#allowed)
    eq = np.where(np.eye(3) > 0, 0.0, NEG)
    m = DiscreteModel([3, 3, 3], [((0, 1), eq), ((1, 2), eq), ((0,), [NEG, 0.0, 0.0])])
    r = loopy_bp(m)
    assert r.converged and r.log_partition == pytest.approx(np.log(2), abs=1e-12)
    assert r.marginals[2].tolist() == [0.0, 0.5, 0.5]


# -- runaway and contradicting messages ------------------------------------------------------


def parity_model(fields, checks):
    """Binary variables with fields, and 3-variable parity checks (hard: x_a + x_b + x_c
    = parity mod 2), as in circuit and LDPC-code models; ``fields`` a string of numbers,
    ``checks`` of "a b c parity" separated by semicolons."""
    h = [float(a) for a in fields.split()]
    factors = [((v,), [0.0, hv]) for v, hv in enumerate(h)]
    for check in checks.split(";"):
        *scope, parity = (int(a) for a in check.split())
        scope = tuple(scope)
        t = np.full((2, 2, 2), NEG)
        for x in itertools.product((0, 1), repeat=3):
            if sum(x) % 2 == parity:
                t[x] = 0.0
        factors.append((scope, t))
    return DiscreteModel([2] * len(h), factors)


# Feasible models (a planted solution) on which the messages run away around loops of
# parity checks. Before: flooding reported log Z = -6.1e229 (A) and -3.9e255 (B);
# the sequential schedule let finite messages overflow into -inf and raised "every
# assignment is forbidden" on A and C.
RUNAWAY = {
    "A": (
        "-0.06 -1.74 -1.98 1.32 1.93 1.14 -0.74 0.82 -0.8 0.96 -0.88 1.13 1.95 1.94 "
        "1.53 1.65 0.83 0.22 1.69 -1.64",
        "10 14 7 1; 2 8 15 1; 1 19 8 0; 2 17 19 1; 0 3 7 1; 1 11 14 1; 16 14 13 0; "
        "11 0 3 1; 5 19 16 1; 19 12 13 0; 4 13 11 0; 0 1 4 1; 10 5 14 1; 19 4 11 1; "
        "6 5 19 0; 1 0 7 0; 18 2 5 1; 10 15 0 0; 17 10 1 0; 11 0 10 0; 7 0 10 0; "
        "8 5 12 1; 14 9 12 1; 0 13 12 0",
    ),
    "B": (
        "0.09 0.87 0.63 -0.99 0.71 -0.93 0.46 -0.65 0.73 0.08 -0.4 -0.15 -0.94 -0.75 0.34",
        "14 7 9 0; 9 5 6 1; 12 5 10 0; 10 14 9 1; 1 8 10 0; 4 6 13 1; 14 11 1 1; "
        "3 13 8 1; 13 7 5 1; 3 12 4 1; 8 1 0 0; 4 11 5 1; 1 11 0 1; 7 12 2 0; "
        "9 10 3 0; 14 5 7 1; 8 1 14 0; 13 9 11 1; 5 12 0 0; 8 6 11 1",
    ),
    "C": (
        "0.99 -1.75 0.59 0.94 -0.4 0.03 -1.09 0.6 1.89 -0.81 -0.15 1.57 0.21 -0.31 "
        "0.67 -1.88 -1.38 1.49 -1.37 -1.88",
        "15 17 2 0; 17 18 15 0; 4 6 12 0; 2 16 18 1; 16 3 5 0; 16 2 3 0; 13 2 5 1; "
        "12 13 15 0; 10 1 16 0; 4 0 13 1; 14 15 18 0; 7 3 18 0; 15 14 8 1; 8 19 17 1; "
        "16 19 0 0; 11 13 14 0; 1 6 16 0; 0 17 2 1; 1 18 13 1; 7 11 8 0; 9 1 7 1; "
        "4 9 5 0; 4 13 19 0; 17 9 13 0",
    ),
}


@pytest.mark.parametrize("name", sorted(RUNAWAY))
@pytest.mark.parametrize("schedule", ["auto", "parallel", "sequential", "residual"])
@pytest.mark.parametrize("damping", [0.0, 0.5])
def test_runaway_messages_are_detected_not_reported(name, schedule, damping):
    m = parity_model(*RUNAWAY[name])
    assert np.isfinite(exact_log_partition(m))  # feasible: no error may say otherwise
    r = loopy_bp(m, schedule=schedule, damping=damping)
    assert_sane(m, r)
    if not r.converged:
        assert r.reason.startswith(("did not converge", "the messages contradict"))
    mp = loopy_bp(m, mode="max", schedule=schedule, damping=damping)
    assert np.isfinite(mp.score)  # the decoding searches: the planted solution exists
    assert mp.converged or mp.reason


def test_runaway_flooding_says_why():
    m = parity_model(*RUNAWAY["A"])
    r = loopy_bp(m, schedule="parallel")
    assert not r.converged
    assert "grow without bound" in r.reason
    assert abs(r.log_partition) < 100  # was -6.1e229


def test_contradicting_messages_are_not_an_answer():
    # the sequential schedule on C: the messages settle where every value of some
    # variable is ruled out by one of them (before: "every assignment is forbidden")
    m = parity_model(*RUNAWAY["C"])
    r = loopy_bp(m, schedule="sequential")
    assert not r.converged and r.reason.startswith("the messages contradict")
    assert np.isfinite(r.log_partition)


def test_messages_floor_only_with_hard_zeros():
    msgs = bp_module._Messages(parity_model(*RUNAWAY["B"]), "sum")
    assert msgs.floor is not None and msgs.floor < 1e300
    assert msgs.contradiction is not None and msgs.contradiction < 1e3
    finite = ising(nx.cycle_graph(4), fields=0.3, couplings=2.0)
    assert bp_module._Messages(finite, "sum").floor is None


def test_a_non_finite_bethe_free_energy_is_not_an_answer(monkeypatch):
    monkeypatch.setattr(bp_module, "finite_sum", lambda parts, what: float("inf"))
    r = loopy_bp(ising(nx.path_graph(3), fields=0.2, couplings=0.5))
    assert not r.converged and np.isnan(r.log_partition)
    assert r.reason == "the Bethe free energy is not finite"


def test_infeasible_by_arc_consistency_still_raises():
    # unchanged: the messages' zeros are arc consistency's, so an emptied domain proves
    # that every assignment is forbidden
    m = DiscreteModel([2, 2], [((0, 1), [[0.0, NEG], [NEG, NEG]]), ((0,), [NEG, 0.0])])
    for mode in ("sum", "max"):
        with pytest.raises(ValueError, match="every assignment is forbidden"):
            loopy_bp(m, mode=mode)


# -- max-product decoding ----------------------------------------------------------------------


def constraint_chain(n, kinds, *, cycle=False):
    """Binary variables joined by equality ("eq") or inequality ("ne") constraints with
    all-zero (tied) potentials; on a cycle when ``cycle``."""
    eq = np.array([[0.0, NEG], [NEG, 0.0]])
    ne = np.array([[NEG, 0.0], [0.0, NEG]])
    pairs = [(i, i + 1) for i in range(n - 1)] + ([(n - 1, 0)] if cycle else [])
    tabs = [eq if kinds[k % len(kinds)] == "eq" else ne for k in range(len(pairs))]
    return DiscreteModel([2] * n, list(zip(pairs, tabs, strict=True)))


@pytest.mark.parametrize(
    ("n", "kinds", "cycle"),
    [
        (3, ["ne"], False),
        (6, ["eq", "ne"], False),
        (6, ["ne"], True),
        (6, ["eq", "ne", "ne"], True),
    ],
)
def test_tied_max_marginals_decode_to_a_feasible_assignment(n, kinds, cycle):
    m = constraint_chain(n, kinds, cycle=cycle)
    assert brute_force_map(m).score == 0.0
    old = loopy_bp(m, mode="max", decode="argmax")  # all ties: every variable takes 0
    assert old.assignment.tolist() == [0] * n and old.score == NEG
    assert not old.converged and "score -inf" in old.reason  # not an answer either
    for schedule in ("auto", "parallel", "sequential", "residual"):
        r = loopy_bp(m, mode="max", schedule=schedule)
        assert r.converged and r.score == 0.0


def test_parity_chain_with_a_three_way_check():
    # x0 ^ x1 ^ x2 = 1 and x2 == x3, all tied: each per-variable argmax is 0
    xor = np.full((2, 2, 2), NEG)
    for x in itertools.product((0, 1), repeat=3):
        if sum(x) % 2 == 1:
            xor[x] = 0.0
    m = DiscreteModel([2] * 4, [((0, 1, 2), xor), ((2, 3), [[0.0, NEG], [NEG, 0.0]])])
    assert loopy_bp(m, mode="max", decode="argmax").score == NEG
    r = loopy_bp(m, mode="max")
    assert r.converged and r.score == 0.0 and r.assignment.tolist() == [0, 0, 1, 1]


def random_hard_model(seed, *, n=7, tied=False):
    """Mixed cardinalities, pairwise and 3-ary factors with about 30 % zeros; with
    ``tied`` every finite entry is 0 (a constraint satisfaction problem)."""
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 4, n).tolist()
    factors = [] if tied else [((v,), rng.normal(scale=0.3, size=cards[v])) for v in range(n)]
    for _ in range(9):
        k = int(rng.integers(2, 4))
        scope = tuple(rng.choice(n, k, replace=False).tolist())
        shape = [cards[v] for v in scope]
        t = np.zeros(shape) if tied else rng.normal(scale=0.5, size=shape)
        t[rng.random(shape) < 0.3] = NEG
        factors.append((scope, t))
    return DiscreteModel(cards, factors)


@pytest.mark.parametrize("tied", [False, True])
def test_decoded_score_is_finite_whenever_a_feasible_assignment_exists(tied):
    checked = old_failures = 0
    for seed in range(40):
        m = random_hard_model(seed, tied=tied)
        try:
            ref = brute_force_map(m)
        except ValueError:  # infeasible: loopy_bp must say so too (or not converge)
            continue
        try:
            r = loopy_bp(m, mode="max", max_iter=200)
        except ValueError as err:  # only where the messages prove infeasibility
            raise AssertionError(f"seed {seed}: feasible, but {err}") from None
        checked += 1
        assert np.isfinite(r.score), (seed, r.reason)
        assert r.score <= ref.score + 1e-9
        assert r.converged or r.reason
        old = loopy_bp(m, mode="max", schedule="parallel", decode="argmax", max_iter=200)
        old_failures += old.score == NEG
        assert r.score >= old.score  # the argmax is scored too
    assert checked >= 15 and old_failures >= 3  # the test can fail


def test_max_product_never_says_converged_with_score_minus_inf():
    # an odd cycle of inequalities: arc consistent (every value supported), infeasible
    m = constraint_chain(3, ["ne"], cycle=True)
    r = loopy_bp(m, mode="max")
    assert not r.converged and r.score == NEG
    assert "score -inf" in r.reason


@pytest.mark.parametrize("seed", range(6))
def test_sequential_decoding_is_a_map_on_trees_even_with_ties(seed):
    rng = np.random.default_rng(seed)
    T = nx.random_labeled_tree(8, seed=seed)
    cards = rng.integers(2, 4, 8).tolist()
    factors = []
    for a, b in T.edges:
        t = rng.integers(0, 2, (cards[a], cards[b])).astype(float)  # many ties
        t[rng.random(t.shape) < 0.25] = NEG
        t[0, 0] = 0.0  # keep every row and column alive somewhere
        factors.append(((a, b), t))
    m = DiscreteModel(cards, factors)
    try:
        ref = brute_force_map(m)
    except ValueError:
        pytest.skip("infeasible draw")
    r = loopy_bp(m, mode="max", tol=1e-12)
    assert r.converged and r.score == ref.score


def test_decode_order_starts_at_the_most_decided_variable_and_is_breadth_first():
    fg = bp_module._FactorGraph(ising(nx.path_graph(5), couplings=1.0))
    logb = np.array([[0.0, -0.1], [0.0, -0.2], [0.0, -5.0], [0.0, -0.3], [0.0, -0.4]])
    order = bp_module._decode_order(fg, logb).tolist()
    assert order[0] == 2 and sorted(order[1:3]) == [1, 3] and sorted(order[3:]) == [0, 4]
    # several components: each from its own most decided variable
    two = DiscreteModel([2] * 4, [((0, 1), np.zeros((2, 2))), ((2, 3), np.zeros((2, 2)))])
    logb = np.array([[0.0, -1.0], [0.0, -3.0], [0.0, -2.0], [0.0, -0.5]])
    order = bp_module._decode_order(bp_module._FactorGraph(two), logb).tolist()
    assert order == [1, 2, 0, 3]


# -- residual and automatic schedules ----------------------------------------------------------


def mixed_loopy(seed, forbid):
    rng = np.random.default_rng(seed)
    cards = [2, 2, 3, 2, 2, 3]
    factors = [((v,), rng.normal(size=cards[v])) for v in range(6)]
    for a, b in [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (3, 4), (4, 5), (5, 3)]:
        t = rng.normal(scale=0.6, size=(cards[a], cards[b]))
        if forbid:
            t[0, -1] = NEG
        factors.append(((a, b), t))
    factors.append(((1, 4, 5), rng.normal(scale=0.5, size=(2, 2, 3))))
    return DiscreteModel(cards, factors)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("forbid", [False, True])
@pytest.mark.parametrize("mode", ["sum", "max"])
def test_residual_and_auto_reach_the_flooding_fixed_point(seed, forbid, mode):
    m = mixed_loopy(seed, forbid)
    flood = loopy_bp(m, mode=mode, schedule="parallel", tol=1e-12)
    assert flood.converged
    for kwargs in (
        {"schedule": "residual"},
        {"schedule": "residual", "damping": 0.5},
        {"schedule": "auto"},
    ):
        r = loopy_bp(m, mode=mode, tol=1e-12, **kwargs)
        assert r.converged and r.schedule_used == kwargs["schedule"].replace("auto", "parallel")
        for a, b in zip(r.marginals, flood.marginals, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-9)
        if mode == "sum":
            assert r.log_partition == pytest.approx(flood.log_partition, abs=1e-9)
        else:
            np.testing.assert_array_equal(r.assignment, flood.assignment)


def test_auto_is_flooding_while_flooding_converges():
    m = mixed_loopy(1, True)
    for max_iter in (3, 1000):
        a = loopy_bp(m, max_iter=max_iter)
        b = loopy_bp(m, schedule="parallel", max_iter=max_iter)
        assert (a.n_iter, a.converged, a.schedule_used, a.damping_used) == (
            b.n_iter,
            b.converged,
            "parallel",
            0.0,
        )
        assert a.log_partition == b.log_partition
        for x, y in zip(a.factor_marginals, b.factor_marginals, strict=True):
            np.testing.assert_array_equal(x, y)


def strong_grid(seed, L=6, C=2.0):
    rng = np.random.default_rng(seed)
    G = nx.grid_2d_graph(L, L)
    return ising(
        G,
        fields=rng.uniform(-1, 1, L * L),
        couplings=rng.uniform(-C, C, G.number_of_edges()),
        spins="pm1",
    )


def test_auto_converges_where_flooding_oscillates():
    # 6 x 6 grids, couplings U(-2, 2): count the wins, and check that auto's fixed
    # points are fixed points (factor beliefs consistent with the variable beliefs)
    flood_ok = auto_ok = 0
    for seed in range(8):
        m = strong_grid(seed)
        flood = loopy_bp(m, schedule="parallel")
        auto = loopy_bp(m)
        flood_ok += flood.converged
        auto_ok += auto.converged
        if not flood.converged:
            assert "did not converge in 1000 iterations" in flood.reason
        if auto.converged:
            assert auto.reason == ""
            for f, bf in zip(m.factors, auto.factor_marginals, strict=True):
                if f.arity == 2:
                    np.testing.assert_allclose(
                        bf.sum(axis=1), auto.marginals[f.scope[0]], atol=1e-7
                    )
                    np.testing.assert_allclose(
                        bf.sum(axis=0), auto.marginals[f.scope[1]], atol=1e-7
                    )
        else:
            assert "then the sequential schedule with damping 0.5" in auto.reason
    assert auto_ok > flood_ok


def test_stall_detection():
    w = bp_module._STALL_WINDOW
    assert not bp_module._stalled([1.0] * (3 * w - 1))  # too few
    assert bp_module._stalled([1.0, 0.5] * (2 * w))  # a 2-cycle
    assert not bp_module._stalled([0.9**k for k in range(3 * w)])  # shrinking
    assert bp_module._stalled([0.1] * (2 * w) + [float("nan")] * w)


def test_residual_on_trees_and_reporting():
    m = pedigree(NEG)
    r = loopy_bp(m, schedule="residual", tol=1e-12)
    assert r.converged and r.schedule_used == "residual" and r.damping_used == 0.0
    r = loopy_bp(m, schedule="residual", max_iter=1)
    assert not r.converged and r.reason.startswith("did not converge in 1 iterations")
    d = double_loop(m, max_iter=1)
    assert not d.converged and d.reason == "did not converge in 1 outer iterations"
    assert (d.schedule_used, d.damping_used) == (None, None)
    assert double_loop(m).reason == ""


@pytest.mark.parametrize("decode", ["seq", None, "Argmax"])
def test_bad_decode(decode):
    with pytest.raises(ValueError, match="decode must be one of 'sequential', 'argmax'"):
        loopy_bp(pedigree(NEG), mode="max", decode=decode)
