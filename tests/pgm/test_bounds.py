"""Bounds on log Z and on the MAP score (weighted mini-buckets, mean field, importance
sampling, LP) against brute-force enumeration."""

from __future__ import annotations

import doctest
import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelkit.pgm.bounds as bounds_module
from kernelkit.pgm import _mini_bucket as mb
from kernelkit.pgm.bounds import LogPartitionBounds, MAPBounds, log_partition_bounds, map_bounds
from kernelkit.pgm.exact import (
    brute_force_log_partition,
    brute_force_map,
    elimination_order,
    exact_log_partition,
    exact_map,
)
from kernelkit.pgm.model import DiscreteModel, ising
from kernelkit.pgm.parametrization import complete_hypergraph_scopes, random_model
from kernelkit.pgm.variational import mean_field

TOL = 1e-9  # rounding of the bounds (they are computed in float64)


def test_doctests():
    assert doctest.testmod(bounds_module).failed == 0


def mixed_model(seed, n=7, forbid=0.0, scale=1.5, max_card=4):
    """Non-binary domains, unary to 4-ary factors; with ``forbid > 0`` about that share of
    the entries of the higher-order tables is -inf (hard constraints)."""
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, max_card + 1, size=n).tolist()
    factors = [((v,), rng.normal(size=cards[v])) for v in range(n)]
    for _ in range(n + 2):
        k = int(rng.integers(2, 5))
        scope = tuple(rng.choice(n, size=k, replace=False).tolist())
        table = rng.normal(scale=scale, size=[cards[v] for v in scope])
        if forbid:
            table[rng.random(table.shape) < forbid] = -np.inf
        factors.append((scope, table))
    return DiscreteModel(cards, factors)


def grid(seed, side=4, fields=1.0, couplings=2.0):
    rng = np.random.default_rng(seed)
    G = nx.grid_2d_graph(side, side)
    return ising(
        G,
        fields=rng.uniform(-fields, fields, G.number_of_nodes()),
        couplings=rng.uniform(-couplings, couplings, G.number_of_edges()),
        spins="pm1",
    )


MODELS = {
    "mixed": lambda s: mixed_model(s),
    "mixed-hard": lambda s: mixed_model(s, forbid=0.3),
    "binary-hypergraph": lambda s: random_model(
        complete_hypergraph_scopes(7), {1: 1.0, 2: 1.0, 3: 1.0, 4: 0.5}, random_state=s
    ),
    "grid": lambda s: grid(s),
}


# -- log Z ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(MODELS))
@pytest.mark.parametrize("i_bound", [1, 2, 3])
def test_log_partition_bounds_hold(kind, i_bound):
    for seed in range(6):
        m = MODELS[kind](seed)
        log_z = brute_force_log_partition(m)
        b = log_partition_bounds(m, i_bound=i_bound, n_samples=200, random_state=seed)
        assert isinstance(b, LogPartitionBounds)
        assert b.upper >= log_z - TOL, (kind, seed)
        assert b.lower <= log_z + TOL, (kind, seed, b)
        assert b.lower <= b.upper
        if b.mean_field_bound is not None:
            assert not math.isnan(b.mean_field_bound)
            assert b.mean_field_bound <= log_z + TOL
        if log_z == -math.inf:
            assert b.lower == -math.inf
        assert b.gap == pytest.approx(b.upper - b.lower) or b.gap == 0.0
        assert b.log10_gap == pytest.approx(b.gap / math.log(10))


@pytest.mark.parametrize("kind", list(MODELS))
def test_exact_when_i_bound_reaches_the_induced_width(kind):
    for seed in range(4):
        m = MODELS[kind](seed)
        width = elimination_order(m).induced_width
        log_z = brute_force_log_partition(m)
        for i_bound in (width, width + 3):
            b = log_partition_bounds(m, i_bound=max(i_bound, 1))
            assert b.exact and b.lower_method == "exact" and b.confidence == 1.0
            assert b.i_bound == max(width, 1)
            if log_z == -math.inf:
                assert b.lower == b.upper == -math.inf
            else:
                assert b.upper == pytest.approx(log_z, abs=1e-10)
                assert b.lower == b.upper and b.gap == 0.0
        r = map_bounds(m, i_bound=max(width, 1), use_lp=False)
        if log_z == -math.inf:
            assert r.lower == r.upper == -math.inf and r.assignment is None
        else:
            best = brute_force_map(m).score
            assert r.exact and r.upper == pytest.approx(best, abs=1e-10)
            assert r.lower == pytest.approx(best, abs=1e-10)


def test_default_i_bound_is_exact_on_small_models():
    m = grid(3, side=6)
    b = log_partition_bounds(m)
    assert b.exact and b.upper == pytest.approx(exact_log_partition(m), abs=1e-9)
    assert b.i_bound == elimination_order(m).induced_width


def test_more_passes_never_loosen_the_upper_bound():
    m = grid(0, side=7)
    plain = log_partition_bounds(m, i_bound=2, n_iter=0, n_samples=10).upper
    one = log_partition_bounds(m, i_bound=2, n_iter=1, n_samples=10).upper
    many = log_partition_bounds(m, i_bound=2, n_iter=10, n_samples=10).upper
    log_z = exact_log_partition(m)
    assert log_z <= many <= one
    assert log_z <= plain
    assert many < plain  # tuning the weights and shifts helps on a strong grid


@pytest.mark.parametrize("kind", ["mixed", "mixed-hard", "grid"])
@pytest.mark.parametrize("n_iter", [0, 1, 4])
def test_the_proposal_is_a_distribution_with_weights_below_the_bound(kind, n_iter):
    """Liu, Fisher & Ihler (2015): q sums to 1, is positive wherever the model is, and
    every importance weight exp(score(x)) / q(x) is at most exp(upper bound)."""
    for seed in range(3):
        m = MODELS[kind](seed)
        if m.n_variables > 10:
            m = grid(seed, side=3)
        order = elimination_order(m).order
        plan = mb.make_plan(m, order, 1)
        res = mb.run(m, plan, "sum", n_iter)
        X = np.array(list(itertools.product(*[range(c) for c in m.cardinalities])))
        log_q = mb.log_proposal(plan, res, X)
        assert np.exp(log_q).sum() == pytest.approx(1.0, abs=1e-10)
        score = m.score(X)
        allowed = np.isfinite(score)
        assert np.all(np.isfinite(log_q[allowed]))
        log_w = score[allowed] - log_q[allowed]
        assert np.all(log_w <= res.bound + 1e-9)
        # sampled values and their log q agree with the evaluation
        S, lq = mb.sample(plan, res, 500, np.random.RandomState(seed))
        np.testing.assert_allclose(lq, mb.log_proposal(plan, res, S), atol=1e-12)
        # and the sample frequencies follow q
        codes = np.ravel_multi_index(S.T, tuple(m.cardinalities))
        freq = np.bincount(codes, minlength=X.shape[0]) / 500
        assert np.abs(freq - np.exp(log_q)).max() < 0.08


def test_sampling_bound_fails_at_most_delta_of_the_time():
    """Markov's inequality: P(log Z_hat + log delta > log Z) <= delta. Over 50 seeds with
    delta = 0.3 the failures are Binomial(50, p <= 0.3): more than 25 of them has
    probability below 1e-4 (the Monte Carlo tolerance)."""
    m = grid(11, side=5, couplings=3.0)
    log_z = exact_log_partition(m)
    fails = 0
    estimates = []
    for seed in range(50):
        b = log_partition_bounds(m, i_bound=1, n_samples=20, confidence=0.7, random_state=seed)
        assert b.sampling_inequality == "markov"
        assert b.sampling_bound == pytest.approx(b.estimate + math.log(0.3))
        fails += b.sampling_bound > log_z
        estimates.append(b.estimate)
    assert fails <= 25
    # the estimates scatter around log Z (not a bound: some above, most near)
    assert min(estimates) < log_z + 1.0 and max(estimates) > log_z - 5.0


def test_empirical_bernstein_when_the_proposal_is_close():
    """Weights in [0, U] with U / Z small: the Bernstein bound (chosen from the pilot)
    loses far less than Markov's log(1 / delta) = 3 nats; over 50 seeds with delta = 0.3
    it fails at most 25 times (Binomial(50, p <= 0.3): more has probability < 1e-4)."""
    m = grid(7, side=5, couplings=1.0)
    log_z = exact_log_partition(m)
    b = log_partition_bounds(m, i_bound=3, n_samples=2000, random_state=0)
    assert b.sampling_inequality == "empirical_bernstein"
    assert log_z - 0.5 < b.sampling_bound <= log_z <= b.upper
    fails = 0
    for seed in range(50):
        b = log_partition_bounds(m, i_bound=3, n_samples=200, confidence=0.7, random_state=seed)
        assert b.sampling_inequality == "empirical_bernstein"
        fails += b.sampling_bound > log_z
    assert fails <= 25


def test_seeded_sampling_bound_holds_and_reports_its_confidence():
    m = grid(5, side=6, couplings=0.5)
    log_z = exact_log_partition(m)
    b = log_partition_bounds(m, i_bound=2, n_samples=2000, confidence=0.99, random_state=0)
    assert b.sampling_bound <= log_z
    assert b.n_samples == 2000
    if b.lower_method == "importance_sampling":
        assert b.confidence == 0.99 and b.lower == b.sampling_bound
    else:
        assert b.lower_method == "mean_field" and b.confidence == 1.0
        assert b.lower == b.mean_field_bound
    # the same seed gives the same samples
    again = log_partition_bounds(m, i_bound=2, n_samples=2000, confidence=0.99, random_state=0)
    assert again.estimate == b.estimate


def test_sampling_beats_mean_field_when_the_proposal_is_good():
    """Six disjoint ferromagnetic 4-cycles without fields: mean field stays at its
    symmetric fixed point (24 log 2) while log Z is near 52; the proposal at i_bound = 1
    is good enough that log Z_hat + log(0.05) beats it."""
    G = nx.disjoint_union_all([nx.cycle_graph(4) for _ in range(6)])
    m = ising(G, fields=0.0, couplings=2.0, spins="pm1")
    b = log_partition_bounds(m, i_bound=1, n_samples=2000, random_state=0)
    log_z = exact_log_partition(m)
    assert b.lower <= log_z <= b.upper
    assert b.lower_method == "importance_sampling" and b.confidence == 0.95
    assert b.lower == b.sampling_bound > b.mean_field_bound
    assert b.mean_field_bound == pytest.approx(24 * math.log(2))
    assert log_z - b.lower < 3.5


# -- MAP --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(MODELS))
@pytest.mark.parametrize("i_bound", [1, 2, 3])
@pytest.mark.parametrize("use_lp", [True, False])
def test_map_bounds_hold(kind, i_bound, use_lp):
    for seed in range(5):
        m = MODELS[kind](seed)
        log_z = brute_force_log_partition(m)
        r = map_bounds(m, i_bound=i_bound, use_lp=use_lp, random_state=seed)
        assert isinstance(r, MAPBounds)
        if log_z == -math.inf:
            assert r.lower == -math.inf and r.assignment is None
            assert r.lower_method == "none"
            continue
        best = brute_force_map(m).score
        assert r.upper >= best - TOL
        assert r.lower <= best + TOL
        if r.assignment is None:
            assert r.lower == -math.inf and r.lower_method == "none"
        else:
            assert r.lower == m.score(r.assignment) > -math.inf
        assert r.exact == (r.lower == r.upper)


def test_map_candidates_are_seeded_and_feasible_more_often():
    """On a tightly constrained model the greedy decoding alone hits a dead end here; the
    random candidates find a feasible assignment, and a seed fixes them."""
    rng = np.random.default_rng(15)
    factors = [((v,), rng.normal(size=3)) for v in range(12)]
    for _ in range(22):
        scope = tuple(rng.choice(12, size=2, replace=False).tolist())
        table = rng.normal(size=(3, 3))
        table[rng.random((3, 3)) < 0.4] = -np.inf
        factors.append((scope, table))
    m = DiscreteModel([3] * 12, factors)
    best = brute_force_map(m).score
    r = map_bounds(m, i_bound=2, use_lp=False, random_state=0)
    again = map_bounds(m, i_bound=2, use_lp=False, random_state=0)
    assert r.lower == again.lower and r.upper == again.upper
    assert r.lower <= best <= r.upper
    assert r.lower > -math.inf and r.lower == m.score(r.assignment)
    plan = mb.make_plan(m, elimination_order(m).order, 2)
    greedy = mb.decode(plan, mb.run(m, plan, "max", 1))
    assert m.score(greedy[0]) == -math.inf


def test_map_moment_matching_keeps_a_valid_and_tighter_bound():
    tighter = 0
    for seed in range(6):
        m = grid(seed, side=6)
        best = exact_map(m).score
        plain = map_bounds(m, i_bound=2, use_lp=False, moment_matching=False)
        matched = map_bounds(m, i_bound=2, use_lp=False)
        assert plain.upper >= best - TOL and matched.upper >= best - TOL
        tighter += matched.upper < plain.upper
    assert tighter >= 4


def test_lp_tightens_the_map_bound_on_an_attractive_grid():
    """L2 is tight on attractive (ferromagnetic) models, a small i-bound is not: the LP
    gives the upper bound (the MAP score, up to the solver slack) and, rounded, the MAP
    assignment."""
    rng = np.random.default_rng(0)
    for _ in range(3):
        m = ising(nx.grid_2d_graph(6, 6), fields=rng.normal(size=36), couplings=1.0, spins="pm1")
        best = exact_map(m).score
        mbe = map_bounds(m, i_bound=1, use_lp=False)
        assert mbe.upper > best + 0.1
        r = map_bounds(m, i_bound=1)
        assert r.upper_method == "lp_relaxation"
        assert best <= r.upper < best + 1e-4
        assert r.lower == pytest.approx(best, abs=1e-9)


# -- hard constraints, infeasible models ------------------------------------------------------


def all_different_triangle():
    """Three binary variables pairwise different: every assignment is forbidden, but arc
    consistency cannot tell (each value has a support)."""
    neq = [[-np.inf, 0.0], [0.0, -np.inf]]
    return DiscreteModel([2, 2, 2], [((0, 1), neq), ((1, 2), neq), ((0, 2), neq)])


def test_an_infeasible_model_gets_minus_inf_bounds():
    # found by arc consistency
    m = DiscreteModel([2, 2], [((0,), [0.0, -np.inf]), ((0, 1), [[-np.inf, -np.inf], [0, 0]])])
    b = log_partition_bounds(m)
    assert b.lower == b.upper == -math.inf and b.exact and b.gap == 0.0
    assert b.upper_method == "arc_consistency"
    r = map_bounds(m)
    assert r.lower == r.upper == -math.inf and r.assignment is None and r.gap == 0.0
    # found by the elimination (i_bound at the width)
    m = all_different_triangle()
    b = log_partition_bounds(m, i_bound=2)
    assert b.lower == b.upper == -math.inf and b.exact
    r = map_bounds(m, i_bound=2)
    assert r.lower == r.upper == -math.inf and r.assignment is None
    # not found with a small i-bound: the lower bounds are -inf, never a forbidden x
    b = log_partition_bounds(m, i_bound=1, random_state=0)
    assert b.lower == -math.inf and b.lower_method == "none" and b.upper >= -math.inf
    r = map_bounds(m, i_bound=1)
    assert r.lower == -math.inf and r.assignment is None and r.lower_method == "none"


def test_a_constant_minus_inf_factor():
    m = DiscreteModel([2, 3], [((), -np.inf), ((0, 1), np.zeros((2, 3)))])
    assert log_partition_bounds(m).upper == -math.inf
    assert map_bounds(m).upper == -math.inf


def test_mean_field_handles_determinism():
    for seed in range(10):
        m = mixed_model(seed, forbid=0.3)
        log_z = brute_force_log_partition(m)
        if log_z == -math.inf:
            continue
        try:
            bound = mean_field(m).lower_bound
        except ValueError:  # no product distribution avoiding the forbidden values found
            continue
        assert not math.isnan(bound) and bound <= log_z + TOL


# -- edge cases -------------------------------------------------------------------------------


def test_isolated_variables_and_constants():
    m = DiscreteModel(
        [3, 2, 4, 2],
        [((), 0.7), ((0, 1), [[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]]), ((1, 3), np.eye(2))],
    )
    log_z = brute_force_log_partition(m)
    b = log_partition_bounds(m, i_bound=1, random_state=0)
    assert b.exact and b.upper == pytest.approx(log_z, abs=1e-12)
    r = map_bounds(m, i_bound=1)
    assert r.exact and r.lower == pytest.approx(brute_force_map(m).score)


def test_a_model_without_variables():
    m = DiscreteModel([], [((), 1.5)])
    assert log_partition_bounds(m).upper == pytest.approx(1.5)
    r = map_bounds(m)
    assert r.lower == r.upper == pytest.approx(1.5) and r.assignment.shape == (0,)


def test_a_factor_wider_than_the_i_bound():
    rng = np.random.default_rng(0)
    m = DiscreteModel(
        [2, 3, 2, 2, 2],
        [((0, 1, 2, 3), rng.normal(size=(2, 3, 2, 2))), ((3, 4), rng.normal(size=(2, 2)))]
        + [
            ((i, (i + 1) % 5), rng.normal(size=(m_, n_)))
            for i, (m_, n_) in enumerate([(2, 3), (3, 2), (2, 2), (2, 2), (2, 2)])
        ],
    )
    log_z = brute_force_log_partition(m)
    b = log_partition_bounds(m, i_bound=1, random_state=0)
    assert b.lower <= log_z <= b.upper
    r = map_bounds(m, i_bound=1)
    assert r.lower <= brute_force_map(m).score <= r.upper


# -- memory and time --------------------------------------------------------------------------


def test_memory_limit_chooses_the_largest_fitting_i_bound():
    m = grid(0, side=8)
    order = elimination_order(m).order
    limit = mb.make_plan(m, order, 4).peak_bytes
    b = log_partition_bounds(m, memory_limit=limit, n_samples=10, random_state=0)
    assert 1 <= b.i_bound and mb.make_plan(m, order, b.i_bound).peak_bytes <= limit
    assert mb.make_plan(m, order, b.i_bound + 1).peak_bytes > limit or b.exact
    with pytest.raises(ValueError, match="memory_limit"):
        log_partition_bounds(m, i_bound=8, memory_limit=limit)
    with pytest.raises(ValueError, match="memory_limit"):
        map_bounds(m, memory_limit=100)


def test_time_limit_is_anytime():
    m = grid(2, side=10)
    log_z = exact_log_partition(m)
    b = log_partition_bounds(m, time_limit=1.0, random_state=0)
    assert b.lower <= log_z + TOL and log_z <= b.upper + TOL
    assert b.time < 10.0 and (b.exact or b.n_samples >= 1000)
    capped = log_partition_bounds(m, i_bound=3, time_limit=0.5, random_state=0)
    assert capped.i_bound <= 3 and capped.lower <= log_z <= capped.upper
    assert capped.n_samples >= 1000 and capped.time < 5.0
    r = map_bounds(m, time_limit=1.0, random_state=0)
    best = exact_map(m).score
    assert r.lower <= best + TOL and best <= r.upper + TOL


# -- random models (hypothesis) ---------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    forbid=st.sampled_from([0.0, 0.2]),
    i_bound=st.integers(1, 3),
)
def test_random_models(seed, forbid, i_bound):
    m = mixed_model(seed, n=6, forbid=forbid, max_card=3)
    log_z = brute_force_log_partition(m)
    b = log_partition_bounds(m, i_bound=i_bound, n_samples=100, random_state=seed)
    assert b.upper >= log_z - TOL
    if b.lower_method != "importance_sampling":  # deterministic: must hold
        assert b.lower <= log_z + TOL
    r = map_bounds(m, i_bound=i_bound, random_state=seed)
    if log_z == -math.inf:
        assert r.assignment is None and r.lower == -math.inf
    else:
        best = brute_force_map(m).score
        assert r.lower <= best + TOL <= r.upper + 2 * TOL
        if r.assignment is not None:
            assert r.lower == m.score(r.assignment)


# -- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"i_bound": 0}, "i_bound"),
        ({"i_bound": -2}, "i_bound"),
        ({"n_samples": 0}, "n_samples"),
        ({"time_limit": 0.0}, "time_limit"),
        ({"time_limit": -1.0}, "time_limit"),
        ({"memory_limit": 0}, "memory_limit"),
        ({"confidence": 0.0}, "confidence"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": 1.5}, "confidence"),
        ({"n_iter": -1}, "n_iter"),
    ],
)
def test_log_partition_bounds_bad_input(kwargs, name):
    m = grid(0, side=3)
    with pytest.raises(ValueError, match=name):
        log_partition_bounds(m, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"i_bound": 0}, "i_bound"),
        ({"time_limit": 0}, "time_limit"),
        ({"memory_limit": -5}, "memory_limit"),
    ],
)
def test_map_bounds_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        map_bounds(grid(0, side=3), **kwargs)


def test_bad_types():
    with pytest.raises(TypeError, match="model"):
        log_partition_bounds("not a model")
    with pytest.raises(TypeError, match="i_bound"):
        map_bounds(grid(0, side=3), i_bound=2.5)
    with pytest.raises(TypeError, match="use_lp"):
        map_bounds(grid(0, side=3), use_lp="yes")


def test_huge_log_potentials_are_refused():
    m = DiscreteModel([2, 2], [((0, 1), [[1e307, 0.0], [0.0, -1e307]])])
    with pytest.raises(ValueError, match="overflow"):
        log_partition_bounds(m)
    with pytest.raises(ValueError, match="overflow"):
        map_bounds(m)
