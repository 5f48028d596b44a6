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
    b = graph_batch([G, nx.empty_graph(2), nx.path_graph(2)], node_label=None)
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
    with pytest.raises(
        ValueError,
        match=r"graphs\[1\] has no node labels \(no node with a 'label' attribute\) while "
        r"graphs\[0\] has",
    ):
        WeisfeilerLehman().fit([labelled_path(3), nx.path_graph(3)])


def test_degrees_only_when_asked_for():
    graphs = [nx.path_graph(4), nx.star_graph(3)]
    wl = WeisfeilerLehman(2, normalize=False, node_label=None)
    X = wl.fit_transform(graphs)
    assert not wl.uses_labels_
    # node_label=None ignores labels, even on labelled graphs
    explicit = WeisfeilerLehman(2, normalize=False, node_label=None)
    np.testing.assert_array_equal(
        X.toarray(), explicit.fit_transform([labelled_path(4), nx.star_graph(3)]).toarray()
    )
    assert wl.vocabulary_.values.tolist() == [1, 2, 3]  # the degrees


@pytest.mark.parametrize("make", TRANSFORMERS)
def test_unlabelled_graphs_with_a_label_name_are_an_error(make):
    # before: silently the degrees; now only node_label=None gives degrees
    with pytest.raises(ValueError, match=r"no node of any graph in graphs has a 'label' attr"):
        make(**({"edge_label": None} if make is EdgeHistogram else {})).fit([nx.path_graph(3)])


@pytest.mark.parametrize("make", [WeisfeilerLehman, VertexHistogram, ShortestPath])
def test_misspelt_node_label_is_an_error_naming_the_attributes_present(make):
    graphs = [labelled_path(3), labelled_path(2)]
    with pytest.raises(
        ValueError,
        match=r"no node of any graph in graphs has a 'lable' attribute \(node attributes "
        r"present: 'label'\); check the spelling of node_label, or pass node_label=None",
    ):
        make(node_label="lable").fit(graphs)
    with pytest.raises(ValueError, match="'lable'"):
        wl_kernel(graphs, 2, node_label="lable")
    with pytest.raises(ValueError, match="'lable'"):
        wl_colours(graphs, 2, node_label="lable")


def test_misspelt_edge_label_is_an_error():
    G = labelled_path(3)
    nx.set_edge_attributes(G, 1, "bond")
    with pytest.raises(
        ValueError,
        match=r"no edge of any graph in graphs has a 'bnd' attribute \(edge attributes "
        r"present: 'bond'\); check the spelling of edge_label, or pass edge_label=None",
    ):
        EdgeHistogram(edge_label="bnd").fit([G])
    # the default edge_label='label' on graphs without edge labels: an error too
    with pytest.raises(ValueError, match="no edge of any graph in graphs has a 'label'"):
        EdgeHistogram().fit([G])
    # edge_label=None types edges by their endpoints (node labels, here all "C")
    assert EdgeHistogram(edge_label=None, normalize=False).fit_transform(
        [G]
    ).toarray().tolist() == [[2.0]]
    # the node label is not read when edges are typed by their own labels
    plain = nx.path_graph(3)
    nx.set_edge_attributes(plain, 1, "bond")
    assert EdgeHistogram(edge_label="bond", normalize=False).fit_transform([plain]).nnz == 1


def test_bare_adjacency_matrix_with_a_label_name_is_an_error():
    A = sparse.csr_matrix(np.array([[0, 1], [1, 0]]))
    with pytest.raises(
        ValueError,
        match=r"graphs\[1\] is an adjacency matrix without node labels, but "
        r"node_label='label' asks for labels; pass an \(adjacency, labels\) pair, or pass "
        r"node_label=None",
    ):
        WeisfeilerLehman().fit([(A, ["a", "b"]), A])
    with pytest.raises(ValueError, match=r"graphs\[0\] is an adjacency matrix without node"):
        wl_kernel([A], 1)
    with pytest.raises(ValueError, match=r"adjacency matrix, which carries no edge labels"):
        EdgeHistogram().fit([(A, ["a", "b"])])
    # node_label=None: degrees for every graph, the labels of pairs ignored
    X = WeisfeilerLehman(1, normalize=False, node_label=None).fit_transform([(A, ["a", "b"]), A])
    assert X.toarray().tolist() == [[2.0, 2.0], [2.0, 2.0]]
    # matrices without nodes need no labels
    empty = sparse.csr_matrix((0, 0))
    assert WeisfeilerLehman(1).fit_transform([(A, ["a", "b"]), empty])[1].nnz == 0


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
def test_negative_n_iter(bad):
    with pytest.raises(ValueError, match="n_iter must be >= 0"):
        WeisfeilerLehman(bad).fit([nx.path_graph(3)])
    with pytest.raises(ValueError, match="n_iter must be >= 0"):
        wl_kernel([nx.path_graph(3)], n_iter=bad, node_label=None)


@pytest.mark.parametrize("bad", [2.5, 3.0, "3", None, True])
def test_non_integer_n_iter(bad):
    with pytest.raises(TypeError, match="n_iter must be an integer"):
        WeisfeilerLehman(bad).fit([nx.path_graph(3)])
    with pytest.raises(TypeError, match="n_iter must be an integer"):
        wl_kernel([nx.path_graph(3)], n_iter=bad, node_label=None)


def test_unknown_variant_and_base():
    with pytest.raises(ValueError, match="variant must be one of 'subtree', 'final'"):
        WeisfeilerLehman(2, variant="last").fit([nx.path_graph(3)])
    with pytest.raises(ValueError, match="base must be one of 'histogram'"):
        WeisfeilerLehman(2, base="shortest-path").fit([nx.path_graph(3)])
    with pytest.raises(TypeError, match="normalize must be a bool, got str"):
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
    with pytest.raises(ValueError, match="no node of any graph in graphs has a 'label'"):
        t.transform([nx.path_graph(3)])
    t.set_params(node_label=None)  # changed after fit: refused, not silently degrees
    with pytest.raises(ValueError, match="fitted on labelled nodes"):
        t.transform([labelled_path(3)])
    t.set_params(node_label="label")
    # graphs without nodes need no labels
    assert t.transform([nx.empty_graph(0)]).nnz == 0


def test_fitted_on_degrees_transform_uses_degrees():
    wl = WeisfeilerLehman(1, normalize=False, node_label=None).fit([nx.path_graph(3)])
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
