"""Parsing graphs into one CSR union, and clear errors for bad input."""

from __future__ import annotations

import doctest

import networkx as nx
import numpy as np
import pytest
from scipy import sparse
from sklearn.exceptions import NotFittedError

import kernelkit.graphs._convert
from kernelkit.graphs import (
    EdgeHistogram,
    ShortestPath,
    VertexHistogram,
    WeisfeilerLehman,
    wl_colours,
    wl_kernel,
)
from kernelkit.graphs._convert import graph_batch
from kernelkit.graphs._labels import combine_codes, fit_codes, transform_codes

TRANSFORMERS = [WeisfeilerLehman, VertexHistogram, EdgeHistogram, ShortestPath]


def labelled_path(n, label="C"):
    G = nx.path_graph(n)
    nx.set_node_attributes(G, label, "label")
    return G


def test_docstring_examples():
    result = doctest.testmod(kernelkit.graphs._convert, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_union_csr_is_symmetric_with_offsets():
    G = nx.Graph([(0, 1), (1, 2), (2, 2)])  # a self-loop counts once in N(2)
    b = graph_batch([G, nx.empty_graph(2), nx.path_graph(2)])
    assert b.node_offsets.tolist() == [0, 3, 5, 7]
    assert b.degrees.tolist() == [1, 2, 2, 0, 0, 1, 1]
    A = sparse.csr_matrix((np.ones(len(b.indices)), b.indices, b.indptr), shape=(7, 7))
    assert (A != A.T).nnz == 0
    assert sorted(map(tuple, b.edges.tolist())) == [(0, 1), (1, 2), (2, 2), (5, 6)]
    assert b.graph_of_node.tolist() == [0, 0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize("make", TRANSFORMERS)
def test_empty_list_rejected(make):
    with pytest.raises(ValueError, match="graphs is empty"):
        make().fit([])


def test_empty_list_rejected_by_functions():
    with pytest.raises(ValueError, match="empty"):
        wl_kernel([], 2)
    with pytest.raises(ValueError, match="empty"):
        wl_colours([], 2)


@pytest.mark.parametrize("bad", [None, "graphs", nx.path_graph(3), 5])
def test_not_a_list_rejected(bad):
    with pytest.raises(TypeError, match="list of graphs"):
        WeisfeilerLehman().fit(bad)


def test_non_graph_item_rejected():
    with pytest.raises(TypeError, match=r"graphs\[1\] must be a networkx.Graph"):
        WeisfeilerLehman().fit([nx.path_graph(3), [1, 2, 3]])


def test_missing_label_on_some_nodes_names_graph_and_node():
    G = labelled_path(4)
    del G.nodes[2]["label"]
    with pytest.raises(ValueError, match=r"graphs\[1\]: node 2 has no 'label' attribute"):
        WeisfeilerLehman().fit([labelled_path(3), G])


def test_labels_in_some_graphs_only_rejected():
    with pytest.raises(ValueError, match=r"graphs\[1\] has no node labels while graphs\[0\]"):
        WeisfeilerLehman().fit([labelled_path(3), nx.path_graph(3)])


def test_no_labels_anywhere_falls_back_to_degree():
    graphs = [nx.path_graph(4), nx.star_graph(3)]
    wl = WeisfeilerLehman(2, normalize=False)
    X = wl.fit_transform(graphs)
    assert not wl.uses_labels_
    # the same as ignoring labels explicitly (node_label=None), even on labelled graphs
    explicit = WeisfeilerLehman(2, normalize=False, node_label=None)
    np.testing.assert_array_equal(
        X.toarray(), explicit.fit_transform([labelled_path(4), nx.star_graph(3)]).toarray()
    )
    assert wl.vocabulary_.values.tolist() == [1, 2, 3]  # the degrees


@pytest.mark.parametrize("make", TRANSFORMERS)
def test_directed_graph_rejected(make):
    with pytest.raises(ValueError, match=r"graphs\[0\] is a directed graph.*to_undirected"):
        make().fit([nx.DiGraph([(0, 1)])])


def test_non_symmetric_matrix_rejected():
    A = sparse.csr_matrix(np.array([[0, 1], [0, 0]]))
    with pytest.raises(ValueError, match="not symmetric"):
        WeisfeilerLehman().fit([A])


def test_non_square_matrix_rejected():
    with pytest.raises(ValueError, match="square"):
        WeisfeilerLehman().fit([sparse.csr_matrix(np.ones((2, 3)))])


def test_labels_of_wrong_length_rejected():
    A = sparse.csr_matrix(np.array([[0, 1], [1, 0]]))
    with pytest.raises(ValueError, match="one entry per node"):
        WeisfeilerLehman().fit([(A, [1, 2, 3])])


def test_multigraph_rejected():
    with pytest.raises(ValueError, match="multigraph"):
        WeisfeilerLehman().fit([nx.MultiGraph([(0, 1), (0, 1)])])


@pytest.mark.parametrize("bad", [-1, -3])
def test_negative_h(bad):
    with pytest.raises(ValueError, match="n_iter must be >= 0"):
        WeisfeilerLehman(bad).fit([nx.path_graph(3)])
    with pytest.raises(ValueError, match="n_iter must be >= 0"):
        wl_kernel([nx.path_graph(3)], bad)


@pytest.mark.parametrize("bad", [2.5, 3.0, "3", None, True])
def test_non_integer_h(bad):
    with pytest.raises(TypeError, match="n_iter must be an integer"):
        WeisfeilerLehman(bad).fit([nx.path_graph(3)])


def test_unknown_variant_and_base():
    with pytest.raises(ValueError, match="variant must be one of 'subtree', 'final'"):
        WeisfeilerLehman(2, variant="last").fit([nx.path_graph(3)])
    with pytest.raises(ValueError, match="base must be one of 'histogram'"):
        WeisfeilerLehman(2, base="shortest-path").fit([nx.path_graph(3)])
    with pytest.raises(ValueError, match="normalize"):
        WeisfeilerLehman(2, normalize="yes").fit([nx.path_graph(3)])
    with pytest.raises(TypeError, match="node_label"):
        WeisfeilerLehman(2, node_label=3).fit([nx.path_graph(3)])


@pytest.mark.parametrize("make", TRANSFORMERS)
def test_transform_before_fit(make):
    with pytest.raises(NotFittedError):
        make().transform([nx.path_graph(3)])


@pytest.mark.parametrize("make", [WeisfeilerLehman, VertexHistogram, ShortestPath])
def test_fitted_with_labels_transform_without(make):
    t = make().fit([labelled_path(3)])
    with pytest.raises(ValueError, match="fitted on labelled nodes"):
        t.transform([nx.path_graph(3)])
    # graphs without nodes need no labels
    assert t.transform([nx.empty_graph(0)]).nnz == 0


def test_fitted_on_degrees_transform_uses_degrees():
    wl = WeisfeilerLehman(1, normalize=False).fit([nx.path_graph(3)])
    np.testing.assert_array_equal(
        wl.transform([labelled_path(3, "X")]).toarray(), wl.transform([nx.path_graph(3)]).toarray()
    )


def test_label_codes_fit_transform():
    vocab, codes = fit_codes(np.array([5, 3, 5, 9]))
    assert codes.tolist() == [1, 0, 1, 2]
    assert transform_codes(vocab, np.array([9, 4, 3, 4, 7])).tolist() == [2, 3, 0, 3, 4]
    assert transform_codes(vocab, np.array(["a", "b", "a"])).tolist() == [3, 4, 3]
    obj = np.empty(3, dtype=object)
    obj[:] = [(1, 2), "x", (1, 2)]
    vocab, codes = fit_codes(obj)
    assert codes.tolist() == [0, 1, 0]
    assert transform_codes(vocab, obj[::-1]).tolist() == [0, 1, 0]


def test_combine_codes_stable_and_injective():
    a, b = np.array([0, 1, 2, 1]), np.array([1, 1, 0, 5])
    keys = combine_codes([a, b], [3, 2])  # (1, 5) holds a fresh code 5 >= 2
    assert keys[:3].tolist() == [1, 3, 4]
    assert keys[3] >= 6
    assert len(set(keys.tolist())) == 4


def test_attribute_names_must_be_strings():
    from kernelkit.graphs import EdgeHistogram

    with pytest.raises(
        TypeError, match=r"node_label must be an attribute name \(str\) or None, got int"
    ):
        WeisfeilerLehman(2, node_label=3).fit([nx.path_graph(3)])
    with pytest.raises(
        TypeError, match=r"edge_label must be an attribute name \(str\) or None, got list"
    ):
        EdgeHistogram(edge_label=["bond"]).fit([nx.path_graph(3)])
