"""Adjacency, degree and Laplacian matrices: conversions, identities and bad input."""

from __future__ import annotations

import doctest

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

import kernelkit.graphs.adjacency
from kernelkit.graphs.adjacency import (
    _bipartite_vertices,
    adjacency_matrix,
    degrees,
    laplacian,
    normalized_adjacency,
    normalized_laplacian,
)

graphs = st.builds(
    lambda n, prob, seed: nx.gnp_random_graph(n, prob, seed=seed),
    st.integers(1, 12),
    st.floats(0.0, 1.0),
    st.integers(0, 2**31 - 1),
)


def test_docstring_examples():
    result = doctest.testmod(kernelkit.graphs.adjacency, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def with_isolated():
    G = nx.Graph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    G.add_node("e")
    return G


def test_networkx_and_matrix_inputs_agree():
    G = with_isolated()
    A = adjacency_matrix(G)
    assert isinstance(A, sparse.csr_matrix) and A.dtype == np.float64
    assert A.has_sorted_indices
    dense = nx.to_numpy_array(G, nodelist=list(G))
    np.testing.assert_array_equal(A.toarray(), dense)
    for M in (dense, sparse.csr_array(dense), sparse.coo_matrix(dense), dense.astype(bool)):
        np.testing.assert_array_equal(adjacency_matrix(M).toarray(), dense)


def test_node_order_follows_graph_nodes():
    G = nx.Graph()
    G.add_nodes_from([3, 1, 2])
    G.add_edge(3, 2)
    assert adjacency_matrix(G).toarray().tolist() == [[0, 0, 1], [0, 0, 0], [1, 0, 0]]


def test_edge_weights():
    G = nx.Graph()
    G.add_edge(0, 1, weight=2.0)
    G.add_edge(1, 2)  # no attribute: weight 1, as networkx
    G.add_edge(2, 3, weight=0.0)  # zero weight: no edge
    A = adjacency_matrix(G, weight="weight")
    assert A.toarray().tolist() == [[0, 2, 0, 0], [2, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]]
    assert A.nnz == 4  # the zero-weight edge is not stored
    np.testing.assert_array_equal(degrees(G, weight="weight"), [2, 3, 1, 0])
    np.testing.assert_array_equal(degrees(G), [1, 2, 2, 1])


def test_rounding_asymmetry_is_averaged_away():
    W = np.array([[0.0, 1.0], [1.0 + 1e-14, 0.0]])
    A = adjacency_matrix(W)
    assert A[0, 1] == A[1, 0]


@pytest.mark.parametrize(
    ("G", "error", "match"),
    [
        (nx.DiGraph([(0, 1)]), ValueError, "directed"),
        (nx.MultiGraph([(0, 1), (0, 1)]), ValueError, "multigraph"),
        (nx.Graph([("a", "b"), ("b", "b")]), ValueError, "self-loop at vertex 'b'"),
        (nx.Graph(), ValueError, "no vertices"),
        (np.zeros((0, 0)), ValueError, "no vertices"),
        (np.zeros((2, 3)), ValueError, "square"),
        (np.zeros(3), ValueError, "square"),
        (np.array([[0, 1], [0, 0]]), ValueError, r"not symmetric: A\[0, 1\] = 1"),
        (np.array([[0.0, 1.0], [1.0, 1.0]]), ValueError, "self-loop at vertex 1"),
        (np.array([[0, -1], [-1, 0]]), ValueError, "negative or non-finite"),
        (np.array([[0, np.nan], [np.nan, 0]]), ValueError, "non-finite"),
        (sparse.csr_matrix(np.array([[0, np.inf], [np.inf, 0]])), ValueError, "non-finite"),
        (np.array([[0, 1j], [1j, 0]]), TypeError, "real numbers"),
        (np.array([["a", "b"], ["b", "a"]]), TypeError, "real numbers"),
        ([[0, 1], [1, 0]], TypeError, "networkx.Graph"),
        (None, TypeError, "networkx.Graph"),
    ],
)
def test_bad_graphs(G, error, match):
    with pytest.raises(error, match=match):
        adjacency_matrix(G)


def test_bad_weights():
    G = nx.Graph()
    G.add_edge("u", "v", weight=-2.0)
    with pytest.raises(ValueError, match="'u' and 'v'"):
        adjacency_matrix(G, weight="weight")
    G = nx.Graph()
    G.add_edge("u", "v", weight=float("inf"))
    with pytest.raises(ValueError, match="non-finite"):
        adjacency_matrix(G, weight="weight")
    G.add_edge("u", "v", weight="heavy")
    with pytest.raises(TypeError, match="'weight' of G must hold real numbers"):
        adjacency_matrix(G, weight="weight")
    with pytest.raises(TypeError, match="weight must be an edge attribute name"):
        adjacency_matrix(nx.path_graph(2), weight=1)
    with pytest.raises(ValueError, match="pass weight=None"):
        adjacency_matrix(np.zeros((2, 2)), weight="weight")


def test_every_function_validates():
    for f in (degrees, normalized_adjacency, normalized_laplacian, laplacian):
        with pytest.raises(ValueError, match="self-loop"):
            f(nx.Graph([(0, 0)]))


def test_normalized_adjacency_and_isolated_vertices():
    G = with_isolated()
    N = normalized_adjacency(G)
    A = nx.to_numpy_array(G)
    d = A.sum(1)
    assert (N != N.T).nnz == 0  # exactly symmetric
    dense = N.toarray()
    assert np.isfinite(dense).all()
    assert not dense[4].any() and not dense[:, 4].any()  # 'e' is isolated
    s = np.where(d > 0, 1 / np.sqrt(np.maximum(d, 1)), 0.0)
    np.testing.assert_allclose(dense, s[:, None] * A * s[None, :], rtol=1e-15)
    L = normalized_laplacian(G).toarray()
    np.testing.assert_allclose(L, np.eye(5) - dense, rtol=0, atol=0)
    assert L[4, 4] == 1.0  # the paper's convention (networkx puts 0 here)
    ref = nx.normalized_laplacian_matrix(G).toarray()
    np.testing.assert_allclose(L[:4, :4], ref[:4, :4], atol=1e-15)
    assert ref[4, 4] == 0.0


@settings(max_examples=30, deadline=None)
@given(graphs)
def test_spectra_and_bipartite_components(G):
    N = normalized_adjacency(G).toarray()
    lam = np.linalg.eigvalsh(np.eye(len(N)) - N)
    assert lam.min() > -1e-12 and lam.max() < 2 + 1e-12
    comps = [c for c in nx.connected_components(G) if len(c) > 1]
    # eigenvalue 0 once per component with an edge, 2 once per bipartite one
    assert np.sum(np.abs(lam) < 1e-9) == len(comps)
    n_bipartite = sum(nx.is_bipartite(G.subgraph(c)) for c in comps)
    assert np.sum(np.abs(lam - 2) < 1e-9) == n_bipartite
    expected = np.zeros(len(G), dtype=bool)
    for c in comps:
        if nx.is_bipartite(G.subgraph(c)):
            expected[list(c)] = True
    np.testing.assert_array_equal(_bipartite_vertices(adjacency_matrix(G)), expected)


@settings(max_examples=20, deadline=None)
@given(graphs, st.integers(0, 2**31 - 1))
def test_combinatorial_laplacian_quadratic_form(G, seed):
    rng = np.random.default_rng(seed)
    for u, v in G.edges:
        G[u][v]["weight"] = rng.uniform(0.1, 2.0)
    L = laplacian(G, weight="weight")
    np.testing.assert_allclose(L.toarray(), nx.laplacian_matrix(G).toarray(), atol=1e-12)
    f = rng.normal(size=len(G))
    form = sum(w * (f[u] - f[v]) ** 2 for u, v, w in G.edges(data="weight"))
    assert f @ (L @ f) == pytest.approx(form, abs=1e-10)
