"""Naive mean field against brute-force enumeration."""

from __future__ import annotations

import doctest
import itertools

import networkx as nx
import numpy as np
import pytest

import kernelkit.pgm.variational as mf_module
from kernelkit.pgm.belief_propagation import _ising_parameters
from kernelkit.pgm.exact import brute_force_log_partition, brute_force_marginals
from kernelkit.pgm.model import DiscreteModel, ising
from kernelkit.pgm.variational import MeanFieldResult, mean_field


def test_doctests():
    assert doctest.testmod(mf_module).failed == 0


def random_model(seed, n=6, scale=1.0):
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 4, size=n).tolist()
    factors = [((v,), rng.normal(size=cards[v])) for v in range(n)]
    for _ in range(6):
        k = int(rng.integers(2, 4))
        scope = tuple(rng.choice(n, size=k, replace=False).tolist())
        factors.append((scope, rng.normal(scale=scale, size=[cards[v] for v in scope])))
    return DiscreteModel(cards, factors)


def random_ising(seed, scale=1.0):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(7, 0.5, seed=seed)
    return ising(
        G,
        fields=rng.normal(size=G.number_of_nodes()),
        couplings=rng.normal(scale=scale, size=G.number_of_edges()),
    )


def test_exact_without_interactions():
    m = DiscreteModel(
        [2, 3, 4],
        [
            ((0,), [0.3, -1.0]),
            ((1,), [0.0, -np.inf, 2.0]),
            ((2,), [1.0, 2.0, 3.0, 4.0]),
            ((2,), [0.5, 0.0, 0.0, -1.0]),
        ],
    )
    r = mean_field(m)
    assert isinstance(r, MeanFieldResult) and r.converged
    assert r.lower_bound == pytest.approx(brute_force_log_partition(m), abs=1e-12)
    for a, b in zip(r.marginals, brute_force_marginals(m).marginals, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("kind", ["general", "ising"])
def test_lower_bound(seed, kind):
    m = random_model(seed) if kind == "general" else random_ising(seed)
    r = mean_field(m)
    assert r.converged
    assert r.lower_bound <= brute_force_log_partition(m) + 1e-12
    # the bound is E_q[score] + H(q), computed here by enumeration over q
    X = np.array(list(itertools.product(*[range(c) for c in m.cardinalities])))
    q = np.prod([r.marginals[v][X[:, v]] for v in range(m.n_variables)], axis=0)
    direct = float(q @ m.score(X) - q @ np.log(q))
    assert r.lower_bound == pytest.approx(direct, abs=1e-9)
    # a fixed point of the coordinate update
    again = mean_field(m, initial=r.marginals, max_iter=1)
    for a, b in zip(again.marginals, r.marginals, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_bound_increases_with_sweeps(seed):
    m = random_model(seed, scale=2.0)
    bounds = [mean_field(m, max_iter=t).lower_bound for t in range(0, 8)]
    assert all(b >= a - 1e-10 for a, b in itertools.pairwise(bounds))


def test_ising_fast_path_matches_general_path():
    # a zero triple factor changes nothing in the distribution but forces the general path
    m = random_ising(1, scale=0.3)
    assert _ising_parameters(m) is not None
    extra = DiscreteModel(m.cardinalities, [*m.factors, ((0, 1, 2), np.zeros((2, 2, 2)))])
    assert _ising_parameters(extra) is None
    a, b = mean_field(m, tol=1e-12), mean_field(extra, tol=1e-12)
    assert a.lower_bound == pytest.approx(b.lower_bound, abs=1e-9)
    for p, q in zip(a.marginals, b.marginals, strict=True):
        np.testing.assert_allclose(p, q, atol=1e-8)


def test_ising_parameters_reproduce_the_score():
    m = ising(
        nx.cycle_graph(4),
        fields=[0.1, -0.2, 0.3, 0.0],
        couplings=[1.0, -0.5, 2.0, 0.3],
        spins="pm1",
    )
    h, J = _ising_parameters(m)
    X = np.array(list(itertools.product([0, 1], repeat=4)))
    s = X @ h + 0.5 * np.einsum("ni,ij,nj->n", X, J.toarray(), X)
    diff = m.score(X) - s
    np.testing.assert_allclose(diff, diff[0], atol=1e-12)


def test_weak_couplings_close_to_exact():
    rng = np.random.default_rng(0)
    G = nx.grid_2d_graph(3, 3)
    m = ising(G, fields=rng.uniform(-1, 1, 9), couplings=rng.uniform(-0.1, 0.1, 12))
    r = mean_field(m)
    err = max(
        np.abs(a - b).max()
        for a, b in zip(r.marginals, brute_force_marginals(m).marginals, strict=True)
    )
    assert err < 0.01


def test_bad_input():
    m = random_model(0)
    with pytest.raises(ValueError, match="max_iter"):
        mean_field(m, max_iter=-1)
    with pytest.raises(ValueError, match="tol"):
        mean_field(m, tol=-1.0)
    with pytest.raises(TypeError, match="model"):
        mean_field("model")
    with pytest.raises(ValueError, match="initial"):
        mean_field(m, initial=[np.ones(2)])
    with pytest.raises(ValueError, match=r"initial\[0\]"):
        mean_field(m, initial=[np.ones(7)] * m.n_variables)
    with pytest.raises(ValueError, match=r"initial\[0\]"):
        mean_field(m, initial=[-np.ones(c) for c in m.cardinalities])
    with pytest.raises(TypeError, match="initial"):
        mean_field(m, initial=3)
