"""Size guards and extreme parameters of the random graph ensembles (issue 28 §3 item 6):
a request far beyond the machine is refused up front with the library's "would need
about X GiB" message; extreme but feasible parameters give a correct graph."""

from __future__ import annotations

import math
import tracemalloc

import networkx as nx
import numpy as np
import pytest

import kernelkit.graphs.ensembles as ens
from kernelkit.graphs.ensembles import (
    DegreeDistribution,
    configuration_graph,
    erdos_renyi_graph,
    generalized_random_graph,
    random_regular_graph,
)

BEYOND = r"would need about [\d.e+]+ [KMGTPE]iB of memory, more than this machine has"
HUGE = 10**13  # vertices: petabytes as a networkx graph, on any machine


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda: random_regular_graph(3, HUGE), "random_regular_graph"),
        (lambda: random_regular_graph(10**9, 10**9 + 2), "random_regular_graph"),
        (lambda: erdos_renyi_graph(HUGE, 3.0), "erdos_renyi_graph"),
        (lambda: generalized_random_graph(HUGE, 2.5, 2.0), "generalized_random_graph"),
        (lambda: configuration_graph(DegreeDistribution.poisson(3.0), HUGE), "configuration_graph"),
        (lambda: configuration_graph([10**15, 10**15]), "configuration_graph"),
    ],
)
def test_graphs_beyond_memory_are_refused_up_front(make, name):
    with pytest.raises(ValueError, match=BEYOND) as info:
        make()
    assert name in str(info.value)


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda: DegreeDistribution.regular(HUGE), "DegreeDistribution.regular"),
        (lambda: DegreeDistribution.poisson(3.0).sample(HUGE), "sample"),
        (lambda: DegreeDistribution.poisson(3.0).sample((10**7, 10**7)), "sample"),
        (lambda: DegreeDistribution.regular(3).sample_edge_biased(HUGE), "sample_edge_biased"),
    ],
)
def test_degree_laws_beyond_memory_are_refused(make, name):
    with pytest.raises(ValueError, match=BEYOND) as info:
        make()
    assert name in str(info.value)


def test_the_graph_memory_estimate_is_an_honest_upper_bound(monkeypatch):
    """The estimate covers the measured peak of a real generator run, and is not wildly
    above it."""
    asked = []
    real = ens.check_memory

    def spy(n_bytes, request, advice=""):
        asked.append(n_bytes)
        real(n_bytes, request, advice)

    monkeypatch.setattr(ens, "check_memory", spy)
    for make in (
        lambda: random_regular_graph(3, 4000, random_state=0),
        lambda: erdos_renyi_graph(4000, 5.0, random_state=0),
        lambda: configuration_graph(DegreeDistribution.regular(6), 4000, random_state=0),
    ):
        asked.clear()
        tracemalloc.start()
        make()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= max(asked) <= 6 * peak


def test_a_tiny_mean_degree_gives_an_edgeless_graph_not_a_zero_division():
    G = erdos_renyi_graph(10, 1e-300, random_state=0)
    assert G.number_of_nodes() == 10 and G.number_of_edges() == 0


def test_sparse_gnp_has_binomial_edge_counts():
    # the direct sampler used for p < 2^-40: Binomial(n (n - 1) / 2, p) distinct edges
    n, p = 200, 0.01
    counts = []
    for seed in range(40):
        G = ens._sparse_gnp(n, p, np.random.RandomState(seed))
        assert nx.number_of_selfloops(G) == 0 and sorted(G) == list(range(n))
        counts.append(G.number_of_edges())
    mean, sd = n * (n - 1) / 2 * p, math.sqrt(n * (n - 1) / 2 * p * (1 - p))
    assert abs(np.mean(counts) - mean) < 5 * sd / math.sqrt(len(counts))


def test_generalized_random_graph_with_huge_weights_is_complete():
    # lambda_m = 1e300: every w_i w_j / (L + w_i w_j) is 1 to float precision; w_i w_j
    # itself overflows, so the probabilities are computed without it
    G = generalized_random_graph(20, 2.5, 1e300, random_state=0)
    assert G.number_of_edges() == 20 * 19 // 2
    assert all(math.isfinite(w) for _, w in G.nodes(data="weight"))


def test_generalized_random_graph_refuses_weights_beyond_the_float_range():
    with pytest.raises(ValueError, match="lambda_m"):
        generalized_random_graph(5, 1.01, 1e300, random_state=0)


def test_configuration_graph_refuses_degrees_beyond_integers():
    with pytest.raises(ValueError, match="degrees must be below 2\\*\\*53"):
        configuration_graph([1e300, 1e300])


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: DegreeDistribution.poisson(1e12), "mean must be at most MAX_DEGREE"),
        (lambda: DegreeDistribution.poisson(1e300), "mean must be at most MAX_DEGREE"),
        (lambda: DegreeDistribution.pareto_mixed_poisson(2.5, 1e300), "k_max > 10000000"),
        (
            lambda: DegreeDistribution.pareto_mixed_poisson(2.5, 2.0, tail_tol=1e-300),
            "pass a larger tail_tol",
        ),
    ],
)
def test_degree_laws_with_extreme_parameters_are_refused_clearly(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_poisson_law_with_a_tiny_tail_tolerance():
    p = DegreeDistribution.poisson(3.0, tail_tol=1e-300)
    assert p.tail_mass <= 1e-300 and p.mean == pytest.approx(3.0, rel=1e-12, abs=0)
    # k_max is the smallest degree whose tail is below the tolerance
    from scipy import stats

    assert stats.poisson.sf(p.k_max - 1, 3.0) > 1e-300 >= stats.poisson.sf(p.k_max, 3.0)


def test_high_moments_in_logs_or_a_clear_overflow():
    p = DegreeDistribution.poisson(3.0)
    # E[d^200] = sum_d d^200 p(d): k_max^200 overflows, the moment itself does not
    from scipy import stats

    d = np.arange(1, p.k_max + 1)
    ref = np.exp(np.logaddexp.reduce(200 * np.log(d) + np.log(p.pmf[1:])))
    assert p.moment(200) == pytest.approx(ref, rel=1e-12, abs=0)
    assert DegreeDistribution.regular(3).moment(500) == pytest.approx(3.0**500, rel=1e-12, abs=0)
    with pytest.raises(OverflowError, match="moment of order 1000000"):
        p.moment(10**6)
    assert DegreeDistribution.from_pmf([0.5, 0.5]).moment(10**6) == 0.5
    del stats
