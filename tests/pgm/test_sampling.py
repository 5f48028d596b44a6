"""The Gibbs sampler: Monte Carlo agreement with exact marginals, seeding, schedules."""

from __future__ import annotations

import doctest

import networkx as nx
import numpy as np
import pytest

import kernelkit.pgm.sampling as sampling_module
from kernelkit.pgm.exact import brute_force_marginals
from kernelkit.pgm.model import DiscreteModel, ising
from kernelkit.pgm.sampling import GibbsResult, _gibbs, gibbs_sample


def test_doctests():
    assert doctest.testmod(sampling_module).failed == 0


def small_ising():
    rng = np.random.default_rng(0)
    G = nx.grid_2d_graph(3, 3)
    return ising(G, fields=rng.uniform(-1, 1, 9), couplings=rng.uniform(-1, 1, 12), spins="pm1")


def small_general():
    rng = np.random.default_rng(1)
    cards = [3, 2, 3, 2, 3]
    factors = [((v,), rng.normal(size=c)) for v, c in enumerate(cards)]
    factors += [
        ((0, 1, 2), rng.normal(size=(3, 2, 3))),
        ((2, 3), rng.normal(size=(3, 2))),
        ((3, 4, 0), rng.normal(size=(2, 3, 3))),
        ((4,), np.array([0.0, -np.inf, 0.5])),
    ]
    return DiscreteModel(cards, factors)


# Tolerance: 5 standard errors with an effective sample size of n / 10 (autocorrelation of
# the chain); with this many comparisons a false failure has probability < 1e-4.
def assert_within_mc_error(result, exact, n):
    n_eff = n / 10
    for est, p in zip(result.marginals, exact.marginals, strict=True):
        se = np.sqrt(p * (1 - p) / n_eff)
        assert np.all(np.abs(est - p) <= 5 * se + 1e-12), (est, p)


def test_ising_marginals_within_monte_carlo_error():
    m = small_ising()
    n = 20000
    r = gibbs_sample(m, n, burn_in=200, random_state=0)
    assert isinstance(r, GibbsResult) and r.samples.shape == (n, 9)
    assert_within_mc_error(r, brute_force_marginals(m), n)


def test_general_marginals_within_monte_carlo_error():
    m = small_general()
    n = 10000
    r = gibbs_sample(m, n, burn_in=200, random_state=0, initial=[0, 0, 0, 0, 0])
    assert_within_mc_error(r, brute_force_marginals(m), n)
    assert not np.any(r.samples[:, 4] == 1)  # forbidden value never drawn
    # pairwise: the joint frequencies of (x_2, x_3) against the exact pair marginal
    X = np.array(np.meshgrid(*[range(c) for c in m.cardinalities], indexing="ij")).reshape(5, -1).T
    s = m.score(X)
    p = np.exp(s - s.max())
    p /= p.sum()
    exact = np.bincount(X[:, 2] * 2 + X[:, 3], weights=p, minlength=6)
    est = np.bincount(r.samples[:, 2] * 2 + r.samples[:, 3], minlength=6) / n
    assert np.all(np.abs(est - exact) <= 5 * np.sqrt(exact * (1 - exact) / (n / 10)))


def test_seeded_reproducibility():
    m = small_general()
    a = gibbs_sample(m, 50, burn_in=5, random_state=3)
    b = gibbs_sample(m, 50, burn_in=5, random_state=np.random.RandomState(3))
    c = gibbs_sample(m, 50, burn_in=5, random_state=4)
    np.testing.assert_array_equal(a.samples, b.samples)
    assert not np.array_equal(a.samples, c.samples)
    f = gibbs_sample(small_ising(), 50, random_state=7)
    np.testing.assert_array_equal(
        f.samples, gibbs_sample(small_ising(), 50, random_state=7).samples
    )


def test_fast_path_equals_general_path():
    # same random numbers, same conditionals: the same chain
    m = small_ising()
    kw = {"burn_in": 10, "thin": 2, "random_state": 5, "initial": None}
    fast = _gibbs(m, 300, fast=True, **kw)
    slow = _gibbs(m, 300, fast=False, **kw)
    np.testing.assert_array_equal(fast.samples, slow.samples)


def test_thin_and_burn_in_select_sweeps():
    m = small_general()
    every = gibbs_sample(m, 40, burn_in=3, thin=1, random_state=2)
    every2 = gibbs_sample(m, 20, burn_in=3, thin=2, random_state=2)
    np.testing.assert_array_equal(every2.samples, every.samples[1::2])
    later = gibbs_sample(m, 38, burn_in=5, random_state=2)
    np.testing.assert_array_equal(later.samples, every.samples[2:])


def test_initial_state_is_used():
    # with a near-deterministic coupling the chain stays in the start's mode
    m = ising(nx.path_graph(2), couplings=50.0, fields=-25.0)
    r = gibbs_sample(m, 20, burn_in=0, random_state=0, initial=[1, 1])
    assert np.all(r.samples == 1)
    np.testing.assert_allclose(r.marginals[0], [0.0, 1.0])


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_samples": 0}, ValueError, "n_samples"),
        ({"n_samples": 2.5}, TypeError, "n_samples"),
        ({"burn_in": -1}, ValueError, "burn_in"),
        ({"thin": 0}, ValueError, "thin"),
        ({"initial": [0, 0]}, ValueError, "initial"),
        ({"initial": [0, 5, 0, 0, 0]}, ValueError, r"initial\[1\]"),
        ({"initial": [0.5, 0, 0, 0, 0]}, TypeError, "initial"),
        ({"random_state": "seed"}, TypeError, "random_state"),
    ],
)
def test_bad_input(kwargs, exc, match):
    args = {"n_samples": 10, **kwargs}
    with pytest.raises(exc, match=match):
        gibbs_sample(small_general(), **args)


def test_bad_model():
    with pytest.raises(TypeError, match="model"):
        gibbs_sample(None, 10)
