"""The transfer-matrix path of exact_log_partition (kernelkit.pgm._transfer).

It must give log Z exactly (against enumeration and against the log-domain elimination)
on every layered pairwise model, whatever the layers' cardinalities, matchings, table
orientations, duplicate factors and constants, and hand every other model back to the
elimination (return None) rather than answer wrongly.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelkit.pgm._transfer as transfer
import kernelkit.pgm.exact as exact_module
from kernelkit.pgm import DiscreteModel, ising
from kernelkit.pgm.exact import (
    _plan,
    _upward,
    brute_force_log_partition,
    exact_log_partition,
)

BIG = 10**9  # max_states: no limit from the elimination's tables


def run(m, max_states=BIG):
    """The transfer path alone, planned afresh (the remembered plans are tested below)."""
    plan = transfer.transfer_plan(m, max_states)
    return None if plan is None else transfer.transfer_log_partition(m, plan)


def log_domain(m):
    """log Z by the log-domain elimination (no linear-domain path involved)."""
    return _upward(m, _plan(m, "log_partition"), keep=False)[0]


def layered_model(rng, n_layers, width, cards=(2,), short=0, scale=1.0, shuffle=True):
    """A random layered pairwise model: ``n_layers`` blocks of ``width`` variables (the last
    ``short`` fewer), random pairs inside blocks, a random matching between consecutive
    blocks in which position i of a block meets position j <= i of the next (so the
    bandwidth is ``width``, through the pair (0, width)); tables in either orientation,
    some pairs and unary factors twice, a constant, and some variables without unary
    factors."""
    n = n_layers * width - short
    card = rng.choice(cards, size=n)
    factors = [((), np.array(rng.normal()))]

    def pair(u, v):
        if rng.random() < 0.5:
            u, v = v, u
        factors.append(((u, v), rng.normal(scale=scale, size=(card[u], card[v]))))
        if rng.random() < 0.2:  # the same pair again
            factors.append(((v, u), rng.normal(scale=scale, size=(card[v], card[u]))))

    for i in range(n):
        for _ in range(rng.integers(0, 3)):
            factors.append(((i,), rng.normal(scale=scale, size=card[i])))
    for k in range(n_layers):
        block = [v for v in range(k * width, (k + 1) * width) if v < n]
        for a in block:
            for b in block:
                if a < b and rng.random() < 0.4:
                    pair(a, b)
        nxt = [v for v in range((k + 1) * width, (k + 2) * width) if v < n]
        if not nxt:
            continue
        pair(block[0], nxt[0])
        free = list(range(1, len(nxt)))
        order = rng.permutation(range(1, len(block))) if shuffle else range(1, len(block))
        for i in order:
            choices = [j for j in free if j <= i]
            if choices and rng.random() < 0.8:
                j = int(rng.choice(choices))
                free.remove(j)
                pair(block[i], nxt[j])
    if shuffle:
        order = rng.permutation(len(factors))
        factors = [factors[i] for i in order]
    return DiscreteModel(card, factors)


@pytest.mark.parametrize("seed", range(20))
def test_layered_models_match_enumeration(seed):
    rng = np.random.default_rng(seed)
    width = int(rng.integers(1, 5))
    n_layers = int(rng.integers(2, max(3, 14 // width)))
    m = layered_model(
        rng, n_layers, width, cards=(1, 2, 3) if seed % 2 else (2,), short=int(rng.integers(width))
    )
    got = run(m)
    assert got is not None  # layered: the transfer path answers
    ref = brute_force_log_partition(m)
    assert got == pytest.approx(ref, rel=1e-12, abs=1e-12)
    assert exact_log_partition(m) == pytest.approx(ref, rel=1e-12, abs=1e-12)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    width=st.integers(1, 4),
    n_layers=st.integers(2, 4),
    short=st.integers(0, 3),
    scale=st.sampled_from([0.1, 1.0, 4.0]),
)
def test_layered_models_property(seed, width, n_layers, short, scale):
    """Any layered model (mixed domains, any matching): log Z of enumeration."""
    rng = np.random.default_rng(seed)
    short = min(short, width - 1)
    m = layered_model(rng, n_layers, width, cards=(1, 2, 3), short=short, scale=scale)
    got = run(m)
    assert got is not None
    assert got == pytest.approx(brute_force_log_partition(m), rel=1e-11, abs=1e-11)


@pytest.mark.parametrize(
    "shape, periodic", [((2, 7), False), ((7, 2), False), ((4, 5), False), ((3, 6), (False, True))]
)
@pytest.mark.parametrize("spins", ["01", "pm1"])
def test_grids_and_cylinders(shape, periodic, spins):
    """Grids built row by row, and cylinders closed along the rows, are layered by rows."""
    rng = np.random.default_rng(sum(shape))
    G = nx.grid_2d_graph(*shape, periodic=periodic)
    m = ising(
        G,
        fields=rng.normal(size=G.number_of_nodes()),
        couplings=rng.normal(size=G.number_of_edges()),
        spins=spins,
    )
    got = run(m)
    assert got is not None
    assert got == pytest.approx(brute_force_log_partition(m), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_crossing_matchings_reorder_the_new_layer(seed):
    """Matchings that cross (block position 3 meets position 1 of the next block, 2 meets
    2) and leave positions free on both sides: the new layer's axes come out of A^T psi B
    in another order and are put back before its potentials apply."""
    rng = np.random.default_rng(seed)
    n, w = 12, 4
    card = rng.choice([2, 3], size=n)
    factors = [((i,), rng.normal(size=card[i])) for i in range(n)]
    for k in range(2):
        a, b = k * w, (k + 1) * w
        for u, v in [(a, b), (a + 3, b + 1), (a + 2, b + 2), (a, a + 1), (b + 2, b + 3)]:
            factors.append(((u, v), rng.normal(size=(card[u], card[v]))))
    m = DiscreteModel(card, factors)
    plan = transfer.transfer_plan(m, BIG)
    perms = [s.perm for s in plan.steps]
    assert all(p is not None and p[1] == (0, 2, 1, 3) for p in perms)
    got = run(m)
    assert got == pytest.approx(brute_force_log_partition(m), rel=1e-12)


def test_large_grid_equals_the_log_domain_elimination():
    """12 x 12 (states 4096 per row): log Z of the log-domain elimination to 1e-12."""
    rng = np.random.default_rng(7)
    G = nx.grid_2d_graph(12, 12)
    m = ising(G, fields=rng.normal(size=144), couplings=rng.normal(size=264), spins="pm1")
    got = run(m)
    assert got is not None
    assert got == pytest.approx(log_domain(m), rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_code_paths_for_large_layers(monkeypatch, seed):
    """The paths large layers take (crossing pairs read by broadcasting, Kronecker
    products made one at a time) give the same log Z as the small-layer paths."""
    rng = np.random.default_rng(100 + seed)
    m = layered_model(rng, 4, 3, cards=(2, 3), short=seed % 3)
    small = run(m)
    monkeypatch.setattr(transfer, "_INDEXED_STATES", 0)
    monkeypatch.setattr(transfer, "_BATCH_ENTRIES", 1)
    large = run(m)
    assert small is not None and large is not None
    assert large == pytest.approx(small, rel=1e-13)
    assert large == pytest.approx(brute_force_log_partition(m), rel=1e-12)


def test_models_that_are_not_layered_are_left_to_elimination():
    rng = np.random.default_rng(3)
    n = 6
    unary = [((i,), rng.normal(size=2)) for i in range(n)]
    r = rng.normal(size=(3, 2, 2))
    cases = {
        # bandwidth 3 (blocks 0-2, 3-5): variable 4 meets variables 1 and 2 of block 0
        "two partners": [((0, 3), r[0]), ((1, 4), r[1]), ((4, 2), r[2])],
        "shared partner": [((0, 3), rng.normal(size=(2, 2))), ((1, 3), rng.normal(size=(2, 2)))],
        "three variables": [((0, 1, 2), rng.normal(size=(2, 2, 2))), ((2, 3), np.zeros((2, 2)))],
        "no pairs": [],
        "hard constraint": [((0, 3), np.array([[0.0, -np.inf], [0.5, 0.1]]))],
    }
    for name, pairs in cases.items():
        m = DiscreteModel([2] * n, unary + pairs)
        assert run(m) is None, name
        assert exact_log_partition(m) == pytest.approx(brute_force_log_partition(m), abs=1e-12)
    # layered, but a block has more joint states than the elimination's largest table
    m = DiscreteModel([2] * n, [*unary, ((0, 3), np.zeros((2, 2)))])
    assert run(m, max_states=4) is None
    assert run(m, max_states=8) == pytest.approx(brute_force_log_partition(m), abs=1e-12)


@pytest.mark.parametrize("scale", [30.0, 300.0])
def test_strong_frustration(scale):
    """Frustrated 6 x 6 grids with huge couplings: rows whose sums fall by e^-(2 |J|)
    (rescaled, or at 300 sent back to the log domain): log Z as the log domain's."""
    rng = np.random.default_rng(int(scale))
    G = nx.grid_2d_graph(6, 6)
    m = ising(
        G,
        fields=rng.normal(scale=scale, size=36),
        couplings=rng.normal(scale=scale, size=G.number_of_edges()),
        spins="pm1",
    )
    ref = log_domain(m)
    assert ref > 30 * scale
    got = run(m)
    if scale == 300.0:
        assert got is None  # precision at risk: the caller eliminates in the log domain
    else:
        assert got == pytest.approx(ref, rel=1e-12)
    assert exact_log_partition(m) == pytest.approx(ref, rel=1e-12)


def test_plans_remembered_per_factor_graph():
    rng = np.random.default_rng(5)
    G = nx.grid_2d_graph(3, 4)
    plans = exact_module._TRANSFER_PLANS
    plans.clear()
    values = []
    for _ in range(3):
        m = ising(G, fields=rng.normal(size=12), couplings=rng.normal(size=17))
        values.append(exact_log_partition(m))
        assert values[-1] == pytest.approx(brute_force_log_partition(m), abs=1e-10)
    assert len(plans) == 1 and len(set(values)) == 3
    not_layered = DiscreteModel([2, 2, 2], [((0, 1, 2), rng.normal(size=(2, 2, 2)))])
    exact_log_partition(not_layered)
    exact_log_partition(not_layered)
    assert len(plans) == 2  # its None is remembered too
    for k in range(plans.size + 3):
        exact_log_partition(ising(nx.path_graph(k + 2), fields=0.1, couplings=0.2))
    assert len(plans) == plans.size
