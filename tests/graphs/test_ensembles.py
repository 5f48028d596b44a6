"""Degree distributions and random graph ensembles (Urry & Sollich 2013; Britton et al. 2006)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from scipy import integrate, special, stats

from kernelkit.graphs.ensembles import (
    DEFAULT_TAIL_TOL,
    DegreeDistribution,
    _even_degree_sequence,
    _weighted_pair_edges,
    configuration_graph,
    erdos_renyi_graph,
    generalized_random_graph,
    random_regular_graph,
)


def degrees_of(G: nx.Graph) -> np.ndarray:
    return np.array([G.degree(v) for v in range(G.number_of_nodes())])


def edge_set(G: nx.Graph) -> set[tuple[int, int]]:
    return {(min(u, v), max(u, v)) for u, v in G.edges()}


def mixed_poisson_by_quadrature(k: int, alpha: float, lambda_m: float) -> float:
    """∫ Poisson(k; λ) α λ_m^α / λ^{α+1} dλ over λ >= λ_m, by adaptive quadrature."""

    def integrand(lam: float) -> float:
        log_poisson = k * math.log(lam) - lam - special.gammaln(k + 1)
        return math.exp(log_poisson) * alpha * lambda_m**alpha * lam ** (-alpha - 1)

    split = lambda_m + k + 10 * math.sqrt(k + 1) + 10  # past the Poisson peak at λ ≈ k
    head = integrate.quad(integrand, lambda_m, split, epsabs=0, epsrel=1e-13, limit=500)[0]
    tail = integrate.quad(integrand, split, np.inf, epsabs=0, epsrel=1e-13, limit=500)[0]
    return head + tail


def chi_square_pvalue(samples: np.ndarray, pmf: np.ndarray) -> float:
    """Chi-square goodness of fit, pooling degrees whose expected count is below 5."""
    n = samples.shape[0]
    counts = np.bincount(samples, minlength=pmf.shape[0])[: pmf.shape[0]]
    expected = n * pmf
    keep = expected >= 5
    obs = np.append(counts[keep], n - counts[keep].sum())
    exp = np.append(expected[keep], n - expected[keep].sum())
    if exp[-1] < 5:  # fold a tiny pooled cell into the last kept one
        obs = np.append(obs[:-2], obs[-2:].sum())
        exp = np.append(exp[:-2], exp[-2:].sum())
    return float(stats.chisquare(obs, exp).pvalue)


# ------------------------------------------------------------------ DegreeDistribution
def test_from_pmf_keeps_the_pmf_read_only_and_unrenormalised():
    raw = [0.2, 0.3 + 5e-10, 0.0, 0.5]
    p = DegreeDistribution.from_pmf(raw)
    np.testing.assert_array_equal(p.pmf, raw)  # stored as given: not renormalised
    assert p.k_max == 3 and p.tail_mass == 0.0
    np.testing.assert_array_equal(p.support, [0, 1, 3])
    assert p.mean == pytest.approx(0.3 + 1.5)
    assert p.moment(0) == pytest.approx(1.0)
    assert p.moment(2) == pytest.approx(0.3 + 4.5)
    with pytest.raises(ValueError):
        p.pmf[0] = 0.5
    np.testing.assert_allclose(p.edge_biased_pmf, [0, 0.3 / 1.8, 0, 1.5 / 1.8], rtol=1e-8)
    assert p.edge_biased_pmf.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError):
        p.edge_biased_pmf[0] = 1.0
    assert "k_max=3" in repr(p)


def test_regular_law():
    p = DegreeDistribution.regular(3)
    np.testing.assert_array_equal(p.pmf, [0, 0, 0, 1])
    assert p.mean == 3.0 and p.moment(2) == 9.0
    np.testing.assert_array_equal(p.sample(10, random_state=0), np.full(10, 3))
    np.testing.assert_array_equal(p.sample_edge_biased(10, random_state=0), np.full(10, 3))
    np.testing.assert_array_equal(DegreeDistribution.regular(0).pmf, [1.0])


@pytest.mark.parametrize("mean", [0.5, 3.0, 40.0])
def test_poisson_law_matches_scipy_and_truncates_minimally(mean):
    p = DegreeDistribution.poisson(mean)
    assert math.fsum(p.pmf) == pytest.approx(1.0, abs=1e-15)
    assert p.mean == pytest.approx(mean, rel=1e-10)
    assert p.moment(2) - p.mean**2 == pytest.approx(mean, rel=1e-9)  # variance
    np.testing.assert_allclose(p.pmf, stats.poisson.pmf(np.arange(p.k_max + 1), mean), rtol=1e-11)
    assert p.tail_mass == pytest.approx(stats.poisson.sf(p.k_max, mean))
    assert p.tail_mass <= DEFAULT_TAIL_TOL < stats.poisson.sf(p.k_max - 1, mean)
    coarse = DegreeDistribution.poisson(mean, tail_tol=1e-4)
    assert coarse.k_max < p.k_max and coarse.tail_mass <= 1e-4


def test_poisson_with_mean_zero_is_all_isolated():
    p = DegreeDistribution.poisson(0.0)
    np.testing.assert_array_equal(p.pmf, [1.0])
    assert p.mean == 0.0
    with pytest.raises(ValueError, match="mean 0"):
        p.sample_edge_biased(3, random_state=0)
    with pytest.raises(ValueError, match="mean 0"):
        p.edge_biased_pmf  # noqa: B018


@pytest.mark.parametrize(
    ("alpha", "lambda_m"),
    [
        (2.5, 2.0),
        (2.5, 0.5),
        (2.5, 0.99),
        (2.5, 10.0),
        (1.5, 2.0),
        (3.0, 2.0),
        (3.0, 0.3),
        (6.7, 4.0),
        (7.3, 40.0),
    ],
)
def test_pareto_mixed_poisson_matches_quadrature(alpha, lambda_m):
    p = DegreeDistribution.pareto_mixed_poisson(alpha, lambda_m, tail_tol=1e-9)
    for k in (0, 1, 2, 3, 4, 6, 10, 30, 100):  # k < α uses the recurrence, k = α (3.0) E_1
        if k > p.k_max:
            continue
        exact = mixed_poisson_by_quadrature(k, alpha, lambda_m)
        renormalised = exact / (1.0 - p.tail_mass)
        assert p.pmf[k] == pytest.approx(renormalised, rel=1e-8, abs=1e-14), k


@pytest.mark.parametrize(("alpha", "lambda_m"), [(7.3, 4.0), (4.5, 0.5)])
def test_pareto_mixed_poisson_tail_mass_is_what_the_pmf_leaves(alpha, lambda_m):
    p = DegreeDistribution.pareto_mixed_poisson(alpha, lambda_m, tail_tol=1e-5)
    kept = math.fsum(mixed_poisson_by_quadrature(k, alpha, lambda_m) for k in range(p.k_max + 1))
    assert p.tail_mass == pytest.approx(1.0 - kept, rel=1e-6)
    assert p.tail_mass <= 1e-5 < p.tail_mass + mixed_poisson_by_quadrature(p.k_max, alpha, lambda_m)


def test_pareto_mixed_poisson_with_a_large_cutoff_stays_finite():
    p = DegreeDistribution.pareto_mixed_poisson(10.5, 800.0, tail_tol=1e-9)
    assert np.all(np.isfinite(p.pmf))
    assert p.mean == pytest.approx(10.5 * 800.0 / 9.5, rel=1e-8)


def test_pareto_mixed_poisson_of_the_paper():
    alpha, lambda_m = 2.5, 2.0  # Urry & Sollich (2013), Fig. 2 (right)
    p = DegreeDistribution.pareto_mixed_poisson(alpha, lambda_m)
    assert math.fsum(p.pmf) == pytest.approx(1.0, abs=1e-15)
    # the truncation: the smallest k_max that drops at most 1e-12
    assert p.tail_mass <= DEFAULT_TAIL_TOL < p.tail_mass + p.pmf[-1] * (1 - p.tail_mass)
    assert 1e5 < p.k_max < 2e5  # ≈ λ_m tail_tol^{-1/α}
    # the dropped mass agrees with ∫ P(Poisson(λ) > k_max) p(λ) dλ
    density = lambda lam: alpha * lambda_m**alpha * lam ** (-alpha - 1)  # noqa: E731
    tail = sum(
        integrate.quad(lambda lam: stats.poisson.sf(p.k_max, lam) * density(lam), a, b)[0]
        for a, b in [(lambda_m, p.k_max / 2), (p.k_max / 2, 2 * p.k_max), (2 * p.k_max, np.inf)]
    )
    assert p.tail_mass == pytest.approx(tail, rel=1e-6)
    # the mean α λ_m / (α - 1), short of it by the dropped tail ~ α λ_m^α k_max^{1-α} / (α - 1)
    true_mean = alpha * lambda_m / (alpha - 1)
    dropped = alpha * lambda_m**alpha * p.k_max ** (1 - alpha) / (alpha - 1)
    assert 0 < true_mean - p.mean < 2 * dropped < 1e-6
    # heavy tail: p(d) ~ α λ_m^α d^{-α-1}
    d = 10_000
    assert p.pmf[d] == pytest.approx(alpha * lambda_m**alpha * d ** (-alpha - 1), rel=2e-3)


def test_pareto_mixed_poisson_refuses_an_enormous_truncation():
    with pytest.raises(ValueError, match="tail_tol"):
        DegreeDistribution.pareto_mixed_poisson(1.05, 2.0)
    p = DegreeDistribution.pareto_mixed_poisson(1.05, 2.0, tail_tol=1e-3)
    assert p.tail_mass <= 1e-3


def test_sampling_frequencies_match_the_pmf_and_the_edge_biased_law():
    p = DegreeDistribution.pareto_mixed_poisson(2.5, 2.0)
    n = 200_000
    assert chi_square_pvalue(p.sample(n, random_state=1), p.pmf) > 1e-3
    edge = p.sample_edge_biased(n, random_state=2)
    q = np.arange(p.k_max + 1) * p.pmf / p.mean
    assert chi_square_pvalue(edge, q) > 1e-3
    # the test can fail: edge-biased draws do not follow p(d), nor plain draws q(d)
    assert chi_square_pvalue(edge, p.pmf) < 1e-10
    assert chi_square_pvalue(p.sample(n, random_state=3), q) < 1e-10
    # a Monte Carlo check of the edge bias on a small law: P(2) = 2 * 0.5 / 1.5
    small = DegreeDistribution.from_pmf([0.2, 0.3, 0.5])
    draws = small.sample_edge_biased(100_000, random_state=0)
    assert draws.min() >= 1  # degree-0 vertices are never at the end of an edge
    assert np.mean(draws == 2) == pytest.approx(1.0 / 1.3, abs=5 * math.sqrt(0.18 / 1e5))


def test_sampling_is_seeded_and_shaped():
    p = DegreeDistribution.poisson(3.0)
    a = p.sample((4, 5), random_state=7)
    assert a.shape == (4, 5) and a.dtype == np.int64
    np.testing.assert_array_equal(a, p.sample((4, 5), random_state=7))
    assert not np.array_equal(a, p.sample((4, 5), random_state=8))
    rng = np.random.RandomState(0)
    first, second = p.sample(50, rng), p.sample(50, rng)
    assert not np.array_equal(first, second)  # a RandomState is advanced, not reseeded
    assert p.sample(3, random_state=np.random.default_rng(0)).shape == (3,)
    assert p.sample(0, random_state=0).shape == (0,)


@pytest.mark.parametrize(
    ("pmf", "error", "match"),
    [
        ([0.5, 0.4], ValueError, "sum 0.9"),
        ([0.5, 0.5, 1e-8], ValueError, "must sum to 1"),
        ([1.2, -0.2], ValueError, "non-negative"),
        ([0.5, np.nan, 0.5], ValueError, "NaN"),
        ([[0.5, 0.5]], ValueError, "1-dimensional"),
        ([], ValueError, "empty"),
        (["a", "b"], TypeError, "numbers"),
        (None, TypeError, "pmf"),
    ],
)
def test_from_pmf_rejects_bad_input(pmf, error, match):
    with pytest.raises(error, match=match):
        DegreeDistribution.from_pmf(pmf)


def test_constructors_reject_bad_input():
    with pytest.raises(ValueError, match="tail_mass"):
        DegreeDistribution([1.0], tail_mass=1.0)
    with pytest.raises(ValueError, match="tail_mass"):
        DegreeDistribution([1.0], tail_mass=-0.1)
    with pytest.raises(ValueError, match="d must be >= 0"):
        DegreeDistribution.regular(-1)
    with pytest.raises(TypeError, match="d must be an integer"):
        DegreeDistribution.regular(2.5)
    with pytest.raises(ValueError, match="mean"):
        DegreeDistribution.poisson(-1.0)
    with pytest.raises(ValueError, match="mean"):
        DegreeDistribution.poisson(np.inf)
    with pytest.raises(TypeError, match="mean"):
        DegreeDistribution.poisson("3")
    for tol in (0.0, 1.0, -1e-3):
        with pytest.raises(ValueError, match="tail_tol"):
            DegreeDistribution.poisson(3.0, tail_tol=tol)
    with pytest.raises(ValueError, match="exponent must be > 1"):
        DegreeDistribution.pareto_mixed_poisson(1.0, 2.0)
    with pytest.raises(ValueError, match="exponent"):
        DegreeDistribution.pareto_mixed_poisson(-2.5, 2.0)
    with pytest.raises(ValueError, match="lambda_m"):
        DegreeDistribution.pareto_mixed_poisson(2.5, 0.0)
    with pytest.raises(ValueError, match="lambda_m"):
        DegreeDistribution.pareto_mixed_poisson(2.5, np.nan)
    p = DegreeDistribution.poisson(3.0)
    with pytest.raises(ValueError, match="size"):
        p.sample(-1, random_state=0)
    with pytest.raises(TypeError, match="size"):
        p.sample(2.5, random_state=0)
    with pytest.raises(TypeError, match="random_state"):
        p.sample(3, random_state="zero")
    with pytest.raises(ValueError, match="order"):
        p.moment(-1)


# ------------------------------------------------------------------ random regular
def test_random_regular_graph():
    G = random_regular_graph(3, 500, random_state=0)
    assert type(G) is nx.Graph and sorted(G.nodes()) == list(range(500))
    assert set(degrees_of(G)) == {3} and nx.number_of_selfloops(G) == 0
    assert edge_set(G) == edge_set(random_regular_graph(3, 500, random_state=0))
    assert edge_set(G) != edge_set(random_regular_graph(3, 500, random_state=1))
    assert random_regular_graph(0, 4, random_state=0).number_of_edges() == 0
    assert random_regular_graph(0, 1, random_state=0).number_of_nodes() == 1


@pytest.mark.parametrize(
    ("d", "n", "error", "match"),
    [
        (3, 7, ValueError, "must be even"),
        (5, 5, ValueError, "d must be < n_vertices"),
        (-1, 5, ValueError, "d must be >= 0"),
        (2.0, 5, TypeError, "d must be an integer"),
        (True, 4, TypeError, "d must be an integer"),
        (2, 0, ValueError, "n_vertices must be >= 1"),
        (2, 10.0, TypeError, "n_vertices"),
    ],
)
def test_random_regular_graph_rejects_bad_input(d, n, error, match):
    with pytest.raises(error, match=match):
        random_regular_graph(d, n, random_state=0)


# ------------------------------------------------------------------ Erdős–Rényi
def test_erdos_renyi_graph_mean_degree_and_seeding():
    V, lam = 2000, 3.0
    G = erdos_renyi_graph(V, lam, random_state=0)
    assert sorted(G.nodes()) == list(range(V)) and nx.number_of_selfloops(G) == 0
    se = math.sqrt(2 * lam / V)  # sd of 2E/V for E ~ Binomial(V(V-1)/2, λ/(V-1))
    assert degrees_of(G).mean() == pytest.approx(lam, abs=5 * se)
    assert edge_set(G) == edge_set(erdos_renyi_graph(V, lam, random_state=0))
    assert edge_set(G) != edge_set(erdos_renyi_graph(V, lam, random_state=1))
    assert erdos_renyi_graph(1, 0.0, random_state=0).number_of_nodes() == 1
    assert erdos_renyi_graph(5, 4.0, random_state=0).number_of_edges() == 10  # complete
    assert erdos_renyi_graph(5, 0, random_state=0).number_of_edges() == 0


@pytest.mark.parametrize(
    ("n", "mean_degree", "error", "match"),
    [
        (10, 9.5, ValueError, "mean_degree must be <= n_vertices - 1 = 9"),
        (1, 0.5, ValueError, "mean_degree must be <= n_vertices - 1 = 0"),
        (10, -1.0, ValueError, "mean_degree"),
        (10, np.nan, ValueError, "mean_degree"),
        (10, "3", TypeError, "mean_degree"),
        (0, 1.0, ValueError, "n_vertices"),
        (10.5, 1.0, TypeError, "n_vertices"),
    ],
)
def test_erdos_renyi_graph_rejects_bad_input(n, mean_degree, error, match):
    with pytest.raises(error, match=match):
        erdos_renyi_graph(n, mean_degree, random_state=0)


# ------------------------------------------------------------------ generalised random graph
def test_pair_sampler_probabilities_and_block_independence():
    weights = np.array([2.0, 3.0, 7.5, 2.2, 20.0])
    total = weights.sum()
    n_reps = 4000
    counts = np.zeros((5, 5))
    rng = np.random.RandomState(0)
    for _ in range(n_reps):
        rows, cols = _weighted_pair_edges(weights, rng, block_pairs=3)
        assert np.all(rows < cols)
        counts[rows, cols] += 1
    iu = np.triu_indices(5, k=1)
    prod = np.outer(weights, weights)[iu]
    prob = prod / (total + prod)  # Britton et al. (2006)
    freq = counts[iu] / n_reps
    np.testing.assert_array_less(np.abs(freq - prob), 5 * np.sqrt(prob * (1 - prob) / n_reps))
    # the random stream does not depend on the block size
    big = np.random.RandomState(5).uniform(2, 9, size=300)
    one = _weighted_pair_edges(big, np.random.RandomState(1), block_pairs=1)
    many = _weighted_pair_edges(big, np.random.RandomState(1), block_pairs=5000)
    whole = _weighted_pair_edges(big, np.random.RandomState(1), block_pairs=10**9)
    for other in (many, whole):
        np.testing.assert_array_equal(one[0], other[0])
        np.testing.assert_array_equal(one[1], other[1])
    assert [a.size for a in _weighted_pair_edges(np.ones(1), rng)] == [0, 0]


def test_generalized_random_graph_edge_count_given_the_weights():
    V = 2000
    G = generalized_random_graph(V, 2.5, 2.0, random_state=3)
    assert sorted(G.nodes()) == list(range(V)) and nx.number_of_selfloops(G) == 0
    w = np.array([G.nodes[v]["weight"] for v in range(V)])
    assert w.min() >= 2.0
    prod = np.outer(w, w)
    prob = prod / (w.sum() + prod)
    np.fill_diagonal(prob, 0.0)
    expected = prob.sum() / 2
    sd = math.sqrt((prob * (1 - prob)).sum() / 2)
    assert G.number_of_edges() == pytest.approx(expected, abs=5 * sd)
    # each degree is a sum of independent Bernoulli(p_ij): mean m_i, variance v_i; the
    # standardised squares average to 1 (they would not if degrees ignored the weights)
    deg = degrees_of(G)
    m, v = prob.sum(axis=1), (prob * (1 - prob)).sum(axis=1)
    assert np.mean((deg - m) ** 2 / v) == pytest.approx(1.0, abs=0.15)
    assert np.mean((deg - deg.mean()) ** 2 / v) > 1.3
    # Pareto weights: P(w > t) = (λ_m / t)^α
    assert stats.kstest(w, stats.pareto(b=2.5, scale=2.0).cdf).pvalue > 1e-3


def test_generalized_random_graph_degrees_are_pareto_mixed_poisson():
    V, alpha, lambda_m = 5000, 2.5, 2.0
    G = generalized_random_graph(V, alpha, lambda_m, random_state=0)
    deg = degrees_of(G)
    # mean α λ_m / (α - 1); Var(D) = E[w] + Var(w) ≈ 12.2, sd of the mean ≈ 0.05
    assert deg.mean() == pytest.approx(alpha * lambda_m / (alpha - 1), abs=0.3)
    pmf = DegreeDistribution.pareto_mixed_poisson(alpha, lambda_m).pmf
    hist = np.bincount(deg, minlength=pmf.shape[0])[: pmf.shape[0]] / V

    def total_variation(p: np.ndarray) -> float:
        return 0.5 * float(np.abs(hist - p[: hist.shape[0]]).sum())

    assert total_variation(pmf) < 0.04  # observed ≈ 0.02 over seeds
    # the bound can fail: Poisson degrees with the same mean are far off
    poisson = stats.poisson.pmf(np.arange(pmf.shape[0]), alpha * lambda_m / (alpha - 1))
    assert total_variation(poisson) > 0.08


def test_generalized_random_graph_is_seeded():
    G = generalized_random_graph(300, 2.5, 2.0, random_state=4)
    H = generalized_random_graph(300, 2.5, 2.0, random_state=4)
    assert edge_set(G) == edge_set(H)
    assert dict(G.nodes(data="weight")) == dict(H.nodes(data="weight"))
    assert edge_set(G) != edge_set(generalized_random_graph(300, 2.5, 2.0, random_state=5))
    assert generalized_random_graph(1, 2.5, 2.0, random_state=0).number_of_nodes() == 1


@pytest.mark.parametrize(
    ("n", "exponent", "lambda_m", "error", "match"),
    [
        (100, 1.0, 2.0, ValueError, "exponent must be > 1"),
        (100, 0.0, 2.0, ValueError, "exponent"),
        (100, np.inf, 2.0, ValueError, "exponent"),
        (100, 2.5, 0.0, ValueError, "lambda_m"),
        (100, 2.5, -1.0, ValueError, "lambda_m"),
        (100, 2.5, "2", TypeError, "lambda_m"),
        (0, 2.5, 2.0, ValueError, "n_vertices"),
        (100.0, 2.5, 2.0, TypeError, "n_vertices"),
    ],
)
def test_generalized_random_graph_rejects_bad_input(n, exponent, lambda_m, error, match):
    with pytest.raises(error, match=match):
        generalized_random_graph(n, exponent, lambda_m, random_state=0)


# ------------------------------------------------------------------ configuration model
def test_configuration_graph_from_a_sequence_is_simple_with_smaller_degrees():
    seq = np.random.RandomState(0).randint(0, 8, size=300)
    seq[0] += seq.sum() % 2
    G = configuration_graph(seq, random_state=0)
    assert type(G) is nx.Graph and sorted(G.nodes()) == list(range(300))
    assert nx.number_of_selfloops(G) == 0
    deg = degrees_of(G)
    assert np.all(deg <= seq)
    assert np.mean(deg == seq) > 0.8  # only a few stubs lost to loops and multi-edges
    assert edge_set(G) == edge_set(configuration_graph(seq.tolist(), 300, random_state=0))
    assert edge_set(G) != edge_set(configuration_graph(seq, random_state=1))
    # a sequence given as whole floats is fine
    assert configuration_graph([1.0, 1.0], random_state=0).number_of_edges() == 1


def test_configuration_graph_from_a_distribution():
    p = DegreeDistribution.poisson(3.0)
    G = configuration_graph(p, 2000, random_state=0)
    assert sorted(G.nodes()) == list(range(2000)) and nx.number_of_selfloops(G) == 0
    deg = degrees_of(G)
    assert deg.max() <= p.k_max
    assert deg.mean() == pytest.approx(3.0, abs=0.25)
    assert edge_set(G) == edge_set(configuration_graph(p, 2000, random_state=0))
    R = configuration_graph(DegreeDistribution.regular(3), 1000, random_state=0)
    assert np.mean(degrees_of(R) == 3) > 0.98 and degrees_of(R).max() == 3


def test_odd_degree_sums_are_fixed_by_redrawing_one_vertex():
    p = DegreeDistribution.from_pmf([0.0, 0.3, 0.3, 0.4])
    n_fixed = 0
    for seed in range(40):
        plain = p.sample(25, np.random.RandomState(seed))
        seq = _even_degree_sequence(p, 25, np.random.RandomState(seed))
        assert seq.sum() % 2 == 0
        changed = np.flatnonzero(seq != plain)
        if plain.sum() % 2:
            n_fixed += 1
            assert changed.size == 1 and (seq - plain)[changed[0]] % 2 == 1
            assert p.pmf[seq[changed[0]]] > 0
        else:
            assert changed.size == 0
    assert n_fixed > 5
    with pytest.raises(ValueError, match="every degree of this distribution is odd"):
        configuration_graph(DegreeDistribution.regular(3), 7, random_state=0)
    assert configuration_graph(DegreeDistribution.regular(2), 7, random_state=0).number_of_nodes()


@pytest.mark.parametrize(
    ("degrees", "n", "error", "match"),
    [
        ([0.2, 0.3, 0.5], None, ValueError, "from_pmf"),
        ([1, -1, 2], None, ValueError, "non-negative integers"),
        ([1, 1, 1], None, ValueError, "even sum, got 3"),
        ([1, 1], 3, ValueError, "does not match"),
        ([[1, 1]], None, ValueError, "1-D"),
        ([], None, ValueError, "1-D"),
        ([True, True], None, TypeError, "degrees"),
        ("12", None, TypeError, "degrees"),
        (None, None, TypeError, "degrees"),
        (DegreeDistribution.regular(2), None, ValueError, "n_vertices is required"),
        (DegreeDistribution.regular(2), 0, ValueError, "n_vertices must be >= 1"),
    ],
)
def test_configuration_graph_rejects_bad_input(degrees, n, error, match):
    with pytest.raises(error, match=match):
        configuration_graph(degrees, n, random_state=0)
