"""Tests of the cavity / belief propagation learning curves (Urry & Sollich 2013, Sec. 4)."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest
from scipy import stats

from kernelkit.graphs.ensembles import DegreeDistribution
from kernelkit.graphs.vertex_kernels import (
    SingularKernelWarning,
    random_walk_coefficients,
    random_walk_kernel,
)
from kernelkit.learning_curves.cavity_method import (
    CavityResult,
    GraphCavityResult,
    cavity,
    cavity_on_graph,
)


def exact_posterior_variances(C: np.ndarray, counts: np.ndarray, noise: float) -> np.ndarray:
    """``diag(C - C_:S (C_SS + noise diag(1/gamma_S))^{-1} C_S:)``: the posterior
    variances with ``gamma_i`` examples of noise ``noise`` at vertex ``i`` (= ``diag((C^{-1}
    + diag(gamma) / noise)^{-1})``, also for a singular ``C``)."""
    s = counts > 0
    if not s.any():
        return np.diag(C).copy()
    K = C[np.ix_(s, s)] + np.diag(noise / counts[s])
    return np.diag(C) - np.einsum("ij,ji->i", C[:, s], np.linalg.solve(K, C[s]))


def dense_kernel(G, a, p, normalize):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularKernelWarning)
        return random_walk_kernel(G, a, p, normalize=normalize)


# -- one graph: exact on trees -------------------------------------------------------------


@pytest.mark.parametrize("normalize", ["none", "global", "local"])
@pytest.mark.parametrize(("a", "p"), [(2.0, 4), (3.0, 7), (2.5, 1), (4.0, 0)])
@pytest.mark.parametrize("seed", [0, 1])
def test_exact_on_random_trees(normalize, a, p, seed):
    G = nx.random_labeled_tree(40, seed=seed)
    counts = np.random.RandomState(seed).poisson(0.7, 40)
    r = cavity_on_graph(G, a, p, 0.1, counts, normalize=normalize)
    C = dense_kernel(G, a, p, normalize)
    assert isinstance(r, GraphCavityResult)
    assert r.converged
    np.testing.assert_allclose(
        r.posterior_variances, exact_posterior_variances(C, counts, 0.1), rtol=1e-10, atol=0
    )
    np.testing.assert_allclose(r.prior_variances, np.diag(C), rtol=1e-10, atol=0)
    C_hat = dense_kernel(G, a, p, "none")
    expected_kappa = {
        "none": np.ones(40),
        "global": np.full(40, np.diag(C_hat).mean()),
        "local": np.diag(C_hat),
    }[normalize]
    np.testing.assert_allclose(r.kappa, expected_kappa, rtol=1e-10)


@pytest.mark.parametrize("normalize", ["none", "global", "local"])
def test_exact_on_forest_with_isolated_vertices(normalize):
    G = nx.disjoint_union_all(
        [nx.random_labeled_tree(15, seed=3), nx.path_graph(2), nx.empty_graph(3)]
    )
    V = G.number_of_nodes()
    counts = np.random.RandomState(5).poisson(1.0, V)
    counts[-3:] = [0, 1, 4]  # isolated vertices with and without data
    r = cavity_on_graph(G, 3.0, 5, 0.05, counts, normalize=normalize)
    C = dense_kernel(G, 3.0, 5, normalize)
    np.testing.assert_allclose(
        r.posterior_variances, exact_posterior_variances(C, counts, 0.05), rtol=1e-10, atol=0
    )
    c0 = random_walk_coefficients(3.0, 5)[0]
    prior_iso = 1.0 if normalize == "local" else c0 / r.kappa[-1]
    np.testing.assert_allclose(r.prior_variances[-3:], prior_iso, rtol=1e-12)
    np.testing.assert_allclose(
        r.posterior_variances[-3:], 1.0 / (counts[-3:] / 0.05 + 1.0 / prior_iso), rtol=1e-12
    )


def test_no_data_gives_the_prior():
    G = nx.random_labeled_tree(25, seed=2)
    r = cavity_on_graph(G, 2.0, 6, 0.1, np.zeros(25, dtype=int), normalize="global")
    np.testing.assert_allclose(r.posterior_variances, r.prior_variances, rtol=1e-14)
    assert r.n_iter == 0 and r.converged
    assert r.prior_variances.mean() == pytest.approx(1.0, rel=1e-12)


def test_zero_noise_on_a_tree():
    G = nx.random_labeled_tree(30, seed=4)
    counts = np.random.RandomState(4).poisson(0.3, 30)
    r = cavity_on_graph(G, 3.0, 3, 0.0, counts, normalize="local")
    C = dense_kernel(G, 3.0, 3, "local")
    expected = exact_posterior_variances(C, counts, 0.0)
    assert np.all(r.posterior_variances[counts > 0] == 0.0)
    np.testing.assert_allclose(r.posterior_variances, expected, rtol=1e-9, atol=1e-12)


def test_counts_may_be_whole_floats_and_the_order_of_vertices_is_kept():
    G = nx.relabel_nodes(nx.random_labeled_tree(12, seed=7), {i: 11 - i for i in range(12)})
    counts = np.arange(12) % 3
    r1 = cavity_on_graph(G, 2.0, 3, 0.2, counts.astype(float))
    C = dense_kernel(G, 2.0, 3, "none")
    np.testing.assert_allclose(
        r1.posterior_variances, exact_posterior_variances(C, counts, 0.2), rtol=1e-10
    )


def test_sparse_matrix_input_and_threads_agree():
    G = nx.random_labeled_tree(300, seed=8)
    counts = np.random.RandomState(8).poisson(0.5, 300)
    A = nx.to_scipy_sparse_array(G, format="csr")
    r1 = cavity_on_graph(G, 2.0, 4, 0.1, counts, normalize="local", n_jobs=1)
    r2 = cavity_on_graph(A, 2.0, 4, 0.1, counts, normalize="local", n_jobs=2)
    np.testing.assert_allclose(r1.posterior_variances, r2.posterior_variances, rtol=1e-13)


def test_loopy_graph_is_a_close_approximation_with_the_exact_global_kappa():
    # cycles of a random 3-regular graph are long compared with p = 2, so BP is close
    G = nx.random_regular_graph(3, 200, seed=1)
    counts = np.random.RandomState(1).poisson(0.5, 200)
    r = cavity_on_graph(G, 2.0, 2, 0.1, counts, normalize="global")
    C = dense_kernel(G, 2.0, 2, "global")
    assert r.converged
    np.testing.assert_allclose(r.kappa, np.diag(dense_kernel(G, 2.0, 2, "none")).mean())
    exact = exact_posterior_variances(C, counts, 0.1)
    assert abs(r.posterior_variances.mean() / exact.mean() - 1) < 0.02
    np.testing.assert_allclose(r.posterior_variances, exact, rtol=0.15)


def test_max_iter_reached_is_reported():
    G = nx.path_graph(30)
    r = cavity_on_graph(G, 2.0, 3, 0.1, np.ones(30, dtype=int), max_iter=3)
    assert not r.converged and r.n_iter == 3


# -- one graph: bad input ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"a": 1.0}, ValueError, "a must"),
        ({"a": 0.5}, ValueError, "a must"),
        ({"a": "2"}, TypeError, "a must"),
        ({"p": -1}, ValueError, "p must"),
        ({"p": 2.5}, TypeError, "p must"),
        ({"noise": -0.1}, ValueError, "noise must"),
        ({"noise": np.nan}, ValueError, "noise must"),
        ({"noise": "x"}, TypeError, "noise must"),
        ({"counts": [1, 0, 2]}, ValueError, "counts must have shape"),
        ({"counts": [1, 0, -1, 0, 0]}, ValueError, "counts must be >= 0"),
        ({"counts": [1, 0.5, 0, 0, 0]}, ValueError, "counts must be whole"),
        ({"counts": [True, False, True, False, True]}, TypeError, "counts must"),
        ({"counts": None}, TypeError, "counts must"),
        ({"normalize": "row"}, ValueError, "normalize must be one of"),
        ({"max_iter": 0}, ValueError, "max_iter must"),
        ({"tol": -1.0}, ValueError, "tol must"),
        ({"n_jobs": 0}, ValueError, "n_jobs must"),
    ],
)
def test_graph_bad_input(kwargs, error, match):
    args = {"a": 2.0, "p": 3, "noise": 0.1, "counts": [1, 0, 2, 0, 0]}
    args.update(kwargs)
    extra = {k: args.pop(k) for k in ("normalize", "max_iter", "tol", "n_jobs") if k in args}
    with pytest.raises(error, match=match):
        cavity_on_graph(
            nx.path_graph(5), args["a"], args["p"], args["noise"], args["counts"], **extra
        )


def test_weighted_graph_is_refused():
    A = np.array([[0.0, 2.0], [2.0, 0.0]])
    with pytest.raises(ValueError, match="G must be unweighted"):
        cavity_on_graph(A, 2.0, 2, 0.1, [0, 1])


# -- population dynamics -------------------------------------------------------------------

REGULAR3 = DegreeDistribution.regular(3)
ER3 = DegreeDistribution.poisson(3.0)


def within(value, sim, se_sim, rel=0.05):
    """The spec's tolerance: |ours - sim| <= 3 SE_sim + rel * sim."""
    return abs(value - sim) <= 3 * se_sim + rel * sim


def test_population_global_regular_small():
    r = cavity(REGULAR3, 2.0, 5, 0.01, [0.0, 1.0], population=300, sweeps=10, random_state=0)
    assert isinstance(r, CavityResult)
    assert r.kappa == pytest.approx(0.16435, rel=1e-3)
    # every vertex of the 3-regular tree is alike: the prior population is deterministic
    assert r.epsilon[0] == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(r.prior_variances, 1.0, rtol=1e-10)
    # spec: simulation 0.0462 +- 0.0009 at nu = 1; a population of 300 gets 10 %
    assert within(r.epsilon[1], 0.0462, 0.0009, rel=0.10)
    assert r.epsilon_trace.shape == (2, 10)
    # the samples of the 5 sweeps of the averaging window, 300 per sweep
    assert r.posterior_variances.shape == (2, 5 * 300)
    assert r.prior_variances.shape == (5 * 300,)
    assert r.n_iter.tolist() == [10, 10] and r.converged.dtype == bool
    assert np.all(r.stderr >= 0)


def test_population_local_er_small():
    r = cavity(
        ER3, 2.0, 10, 0.01, [1.0], normalize="local", population=300, sweeps=10, random_state=1
    )
    # spec: simulation 0.0379 +- 0.0022 at nu = 1; a population of 300 gets 15 %
    assert within(r.epsilon[0], 0.0379, 0.0022, rel=0.15)
    np.testing.assert_array_equal(r.prior_variances, 1.0)


@pytest.mark.parametrize("normalize", ["global", "local"])
def test_epsilon_at_zero_is_one_and_decreasing(normalize):
    nus = [0.0, 0.1, 0.3, 1.0, 3.0]
    r = cavity(ER3, 2.0, 4, 0.1, nus, normalize=normalize, population=400, sweeps=8, random_state=2)
    if normalize == "local":
        # without data the two populations coincide: exactly 1
        assert r.epsilon[0] == pytest.approx(1.0, abs=1e-12)
    else:
        assert r.epsilon[0] == pytest.approx(1.0, abs=0.03)
    assert np.all(np.diff(r.epsilon) < 0)


def test_none_normalisation_epsilon_at_zero_is_kappa():
    r = cavity(
        REGULAR3, 2.0, 5, 0.01, [0.0], normalize="none", population=100, sweeps=4, random_state=0
    )
    assert r.epsilon[0] == pytest.approx(r.kappa, rel=1e-12)


@pytest.mark.parametrize("normalize", ["global", "local"])
def test_large_nu_limit(normalize):
    # nu epsilon / sigma^2 -> 1: a vertex with gamma examples has variance ~ sigma^2 / gamma
    # and E[nu / gamma] = 1 + 1/nu + ...; the prior's correction is O(sigma^2 |C^-1| / nu),
    # small for a = 3 (the eigenvalues of C are at least 3^-p)
    noise = 0.01
    r = cavity(
        ER3,
        3.0,
        4,
        noise,
        [100.0, 1000.0],
        normalize=normalize,
        population=200,
        sweeps=4,
        random_state=3,
    )
    ratio = r.nus * r.epsilon / noise
    assert ratio[0] == pytest.approx(1.0, abs=0.02)
    assert ratio[1] == pytest.approx(1.0, abs=0.002)


def test_isolated_vertices_only():
    dist = DegreeDistribution.from_pmf([1.0])
    nus, noise = np.array([0.0, 0.5, 2.0]), 0.1
    gammas = np.arange(60)
    for normalize in ("global", "local"):
        r = cavity(
            dist, 2.0, 3, noise, nus, normalize=normalize, population=50, sweeps=2, random_state=0
        )
        expected = [stats.poisson.pmf(gammas, nu) @ (1 / (gammas / noise + 1)) for nu in nus]
        np.testing.assert_allclose(r.epsilon, expected, rtol=1e-12)
    r = cavity(dist, 2.0, 3, noise, [0.0], normalize="none", population=50, sweeps=2)
    assert r.epsilon[0] == pytest.approx(0.5**3)


@pytest.mark.parametrize("normalize", ["local", "global"])
def test_threads_do_not_change_the_result(normalize):
    # batches of 150 members: above the size at which the work is split over threads
    kw = dict(normalize=normalize, population=600, sweeps=4, random_state=5)
    r1 = cavity(ER3, 2.0, 3, 0.1, [0.5], n_jobs=1, **kw)
    r2 = cavity(ER3, 2.0, 3, 0.1, [0.5], n_jobs=2, **kw)
    np.testing.assert_allclose(r1.epsilon_trace, r2.epsilon_trace, rtol=1e-12)
    np.testing.assert_allclose(r1.posterior_variances, r2.posterior_variances, rtol=1e-12)


def test_population_agrees_with_bp_on_a_large_tree_like_graph():
    # ensemble prediction vs belief propagation on one large random 3-regular graph
    G = nx.random_regular_graph(3, 2000, seed=0)
    counts = np.random.RandomState(0).poisson(0.5, 2000)
    bp = cavity_on_graph(G, 2.0, 3, 0.1, counts, normalize="global")
    r = cavity(REGULAR3, 2.0, 3, 0.1, [0.5], population=500, sweeps=8, random_state=0)
    assert r.epsilon[0] == pytest.approx(bp.posterior_variances.mean(), rel=0.05)


# -- population dynamics: bad input --------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"degree_distribution": [0, 0, 0, 1]}, TypeError, "degree_distribution must"),
        ({"degree_distribution": 3}, TypeError, "degree_distribution must"),
        ({"a": 1.0}, ValueError, "a must"),
        ({"p": -2}, ValueError, "p must"),
        ({"p": 3.0}, TypeError, "p must"),
        ({"noise": -1e-3}, ValueError, "noise must"),
        ({"nus": [0.5, -0.1]}, ValueError, "nus must"),
        ({"nus": -1.0}, ValueError, "nus must"),
        ({"nus": [np.inf]}, ValueError, "nus must"),
        ({"nus": []}, ValueError, "nus must"),
        ({"nus": "1"}, TypeError, "nus must"),
        ({"normalize": "Global"}, ValueError, "normalize must be one of"),
        ({"population": 1}, ValueError, "population must"),
        ({"sweeps": 1}, ValueError, "sweeps must"),
        ({"random_state": "x"}, TypeError, "random_state"),
    ],
)
def test_population_bad_input(kwargs, error, match):
    args = {"degree_distribution": REGULAR3, "a": 2.0, "p": 3, "noise": 0.1, "nus": [0.5]}
    extra = {"population": 10, "sweeps": 2}
    for key, value in kwargs.items():
        (args if key in args else extra)[key] = value
    with pytest.raises(error, match=match):
        cavity(*args.values(), **extra)


# -- the spec's reference numbers (population 2000) ----------------------------------------


@pytest.mark.slow
def test_reference_global_regular():
    # spec: 3-regular, p = 5, a = 2, sigma^2 = 0.01, global (kappa = 0.16435)
    sims = {
        0.1: (0.7333, 0.0019),
        0.5: (0.2083, 0.0047),
        1.0: (0.0462, 0.0009),
        2.0: (0.00760, 0.00013),
    }
    papers = {0.1: 0.7345, 0.5: 0.1990, 1.0: 0.0467, 2.0: 0.00786}
    r = cavity(REGULAR3, 2.0, 5, 0.01, list(sims), population=2000, sweeps=20, random_state=0)
    assert r.kappa == pytest.approx(0.16435, rel=1e-3)
    for k, nu in enumerate(sims):
        sim, se = sims[nu]
        assert within(r.epsilon[k], sim, se), (nu, r.epsilon[k], sim)
        assert r.epsilon[k] == pytest.approx(papers[nu], rel=0.06)


@pytest.mark.slow
def test_reference_local_er():
    # spec: ER mean degree 3, p = 10, a = 2, sigma^2 = 0.01, local
    sims = {0.3: (0.2621, 0.0059), 1.0: (0.0379, 0.0022), 3.0: (0.00451, 0.00073)}
    papers = {0.3: 0.2536, 1.0: 0.0389, 3.0: 0.00509}
    r = cavity(
        ER3,
        2.0,
        10,
        0.01,
        list(sims),
        normalize="local",
        population=2000,
        sweeps=20,
        random_state=0,
    )
    for k, nu in enumerate(sims):
        sim, se = sims[nu]
        assert within(r.epsilon[k], sim, se), (nu, r.epsilon[k], sim)
        assert r.epsilon[k] == pytest.approx(papers[nu], rel=0.08)
