"""GraphGP: GP regression on the vertices of a graph (Urry & Sollich 2013 eqs. 9-10)."""

from __future__ import annotations

import functools
import pickle

import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone

from kernelkit.graphs import GraphGP, random_walk_kernel


@pytest.fixture(scope="module")
def graph():
    return nx.random_regular_graph(3, 40, seed=1)


def test_posterior_matches_the_closed_form_with_repeated_vertices(graph):
    kernel = functools.partial(random_walk_kernel, a=4.0, p=6, normalize="local")
    C = kernel(graph)
    rng = np.random.default_rng(0)
    X = np.array([0, 3, 3, 7, 12, 12, 12, 30])
    y = rng.normal(size=len(X))
    noise = 0.1
    gp = GraphGP(graph, kernel, noise=noise, noise_bounds="fixed").fit(X, y)
    mean, std = gp.predict(return_std=True)
    K = C[np.ix_(X, X)] + noise * np.eye(len(X))
    np.testing.assert_allclose(mean, C[:, X] @ np.linalg.solve(K, y), atol=1e-10)
    cov = C - C[:, X] @ np.linalg.solve(K, C[X, :])
    np.testing.assert_allclose(std**2, np.diag(cov), atol=1e-10)
    # eq. 10 with example counts: (C^-1 + diag(gamma)/noise)^-1
    gamma = np.bincount(X, minlength=40)
    posterior = np.linalg.inv(np.linalg.inv(C) + np.diag(gamma / noise))
    np.testing.assert_allclose(gp.posterior_variance(), np.diag(posterior), atol=1e-9)


def test_noise_is_fitted_by_maximum_marginal_likelihood(graph):
    C = random_walk_kernel(graph, 4.0, 6, normalize="global")
    rng = np.random.default_rng(3)
    f = np.linalg.cholesky(C + 1e-12 * np.eye(40)) @ rng.normal(size=40)
    X = rng.integers(0, 40, size=400)
    y = f[X] + np.sqrt(0.05) * rng.normal(size=400)
    gp = GraphGP(graph, C, noise=1.0).fit(X, y)
    assert 0.03 < gp.noise_ < 0.08
    for other in (0.5 * gp.noise_, 2.0 * gp.noise_):
        fixed = GraphGP(graph, C, noise=other, noise_bounds="fixed").fit(X, y)
        assert fixed.log_marginal_likelihood_value_ < gp.log_marginal_likelihood_value_


def test_default_kernel_node_labels_clone_and_pickle():
    G = nx.relabel_nodes(nx.path_graph(6), {i: f"v{i}" for i in range(6)})  # bipartite
    gp = GraphGP(G, noise_bounds="fixed").fit(["v0", "v5"], [1.0, -1.0])
    mean = gp.predict(["v0", "v1", "v5"])
    assert mean[0] > 0 and mean[1] > 0 and mean[2] < 0  # neighbours follow the data
    again = pickle.loads(pickle.dumps(gp))
    np.testing.assert_array_equal(again.predict(), gp.predict())
    assert nx.utils.graphs_equal(clone(gp).get_params()["graph"], G)


@pytest.mark.parametrize(
    ("kwargs", "fit_args", "error", "match"),
    [
        ({}, (["nope"], [1.0]), ValueError, "not a vertex"),
        ({}, ([0, 1], [1.0]), ValueError, "y has 1"),
        ({"kernel": np.eye(3)}, ([0], [1.0]), ValueError, r"\(40, 40\)"),
        ({"noise": -1.0}, ([0], [1.0]), ValueError, "noise"),
        ({}, ([], []), ValueError, "non-empty"),
    ],
)
def test_bad_input(graph, kwargs, fit_args, error, match):
    with pytest.raises(error, match=match):
        GraphGP(graph, **kwargs).fit(*fit_args)


def test_missing_graph_and_bad_graph():
    with pytest.raises(ValueError, match="graph is required"):
        GraphGP().fit([0], [1.0])
    G = nx.Graph([(0, 0), (0, 1)])  # a self-loop
    with pytest.raises(ValueError, match="self-loop"):
        GraphGP(G).fit([0], [1.0])
