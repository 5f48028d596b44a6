"""Vertex-histogram, edge-histogram and shortest-path kernels against brute force."""

from __future__ import annotations

import doctest
import functools

import networkx as nx
import numpy as np
import pytest
from graph_reference import (
    counter_gram,
    edge_counts,
    edge_label_of,
    graph_lists,
    node_label_of,
    normalized,
    shortest_path_counts,
    small_graph,
    vertex_counts,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelkit.graphs.shortest_path
from kernelkit.datasets import load_tu
from kernelkit.graphs import EdgeHistogram, ShortestPath, VertexHistogram, gram


def _gram(transformer, graphs):
    return gram(transformer.fit_transform(graphs))


def test_docstring_examples():
    result = doctest.testmod(
        kernelkit.graphs.shortest_path, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=50, deadline=None)
@given(graph_lists())
def test_vertex_histogram_brute_force(graphs):
    expected = counter_gram(vertex_counts(graphs))
    nl = node_label_of(graphs)
    np.testing.assert_allclose(
        _gram(VertexHistogram(normalize=False, node_label=nl), graphs), expected
    )
    np.testing.assert_allclose(
        _gram(VertexHistogram(node_label=nl), graphs), normalized(expected), atol=1e-12
    )


@st.composite
def edge_labelled_lists(draw):
    graphs = draw(st.lists(small_graph(labelled=True), min_size=1, max_size=4))
    if draw(st.booleans()):
        for G in graphs:
            for u, v in G.edges():
                G.edges[u, v]["label"] = draw(st.integers(0, 2))
    return graphs


@settings(max_examples=50, deadline=None)
@given(edge_labelled_lists())
def test_edge_histogram_brute_force(graphs):
    expected = counter_gram(edge_counts(graphs))
    labels = {"node_label": node_label_of(graphs), "edge_label": edge_label_of(graphs)}
    np.testing.assert_allclose(_gram(EdgeHistogram(normalize=False, **labels), graphs), expected)
    np.testing.assert_allclose(
        _gram(EdgeHistogram(**labels), graphs), normalized(expected), atol=1e-12
    )


@settings(max_examples=50, deadline=None)
@given(graph_lists())
def test_shortest_path_brute_force(graphs):
    expected = counter_gram(shortest_path_counts(graphs))
    nl = node_label_of(graphs)
    np.testing.assert_allclose(
        _gram(ShortestPath(normalize=False, node_label=nl), graphs), expected
    )
    np.testing.assert_allclose(
        _gram(ShortestPath(node_label=nl), graphs), normalized(expected), atol=1e-12
    )


@settings(max_examples=30, deadline=None)
@given(graph_lists(labelled=True, min_size=2), st.sampled_from(["vertex", "edge", "sp"]))
def test_transform_matches_joint_fit(graphs, kind):
    """k(test, train) from fit/transform equals the cross block of a joint fit (unseen values
    count in the test graph's own norm only)."""
    make = {"vertex": VertexHistogram, "edge": EdgeHistogram, "sp": ShortestPath}[kind]
    k = len(graphs) // 2
    train, test = graphs[:k] or graphs[:1], graphs[k:]
    if kind == "edge":  # these lists have no edge labels: edges typed by their endpoints
        make = functools.partial(EdgeHistogram, edge_label=None)
    for normalize in (False, True):
        joint = _gram(make(normalize=normalize), train + test)
        t = make(normalize=normalize)
        F = t.fit_transform(train)
        np.testing.assert_allclose(
            gram(t.transform(test), F), joint[len(train) :, : len(train)], atol=1e-12
        )
        np.testing.assert_allclose(gram(t.transform(train), F), gram(F), atol=1e-12)


def test_shortest_path_equals_grakel_on_mutag():
    grakel = pytest.importorskip("grakel")
    from grakel.kernels import ShortestPath as GSP

    graphs, _ = load_tu("MUTAG")
    graphs = graphs[:60]
    gk_input = list(grakel.graph_from_networkx(graphs, node_labels_tag="label"))
    expected = GSP(normalize=True, with_labels=True).fit_transform(gk_input)
    np.testing.assert_allclose(_gram(ShortestPath(), graphs), expected, atol=1e-10)


def test_edge_histogram_uses_edge_labels_on_mutag():
    graphs, _ = load_tu("MUTAG")
    X = EdgeHistogram(normalize=False).fit_transform(graphs)
    bond_types = {d["label"] for G in graphs for *_, d in G.edges(data=True)}
    assert X.shape[1] == len(bond_types)
    assert X.sum(axis=1).A1.tolist() == [G.number_of_edges() for G in graphs]
    # without edge labels: types are unordered pairs of endpoint labels
    Y = EdgeHistogram(normalize=False, edge_label=None).fit_transform(graphs)
    assert Y.shape[1] > X.shape[1]
    assert Y.sum(axis=1).A1.tolist() == [G.number_of_edges() for G in graphs]


def test_shortest_path_unseen_distance_ignored():
    sp = ShortestPath(normalize=False, node_label=None).fit([nx.path_graph(3)])
    assert sp.get_feature_names_out().tolist() == [
        "path_degree=(1, 1, 2)",
        "path_degree=(1, 2, 1)",
        "path_degree=(2, 1, 1)",
    ]
    assert sp.max_distance_ == 2
    # P5 has pairs at distance 3 and 4 and degree-2 ends of paths never seen: only known
    # triplets (1, 2, 1), (2, 1, 1), (1, 1, 2) count
    X = sp.transform([nx.path_graph(5)]).toarray()
    assert X.sum() == 4.0  # (1,2,1) x2 and (2,1,1) x2; no pair of ends at distance 2


def test_edge_labels_on_some_edges_only_rejected():
    G = nx.path_graph(3)
    G.edges[0, 1]["label"] = 1
    with pytest.raises(ValueError, match=r"graphs\[0\]: edge \(1, 2\) has no 'label'"):
        EdgeHistogram().fit([G])


def test_edge_fitted_with_labels_transform_without_rejected():
    G = nx.path_graph(3)
    nx.set_edge_attributes(G, 1, "label")
    t = EdgeHistogram().fit([G])
    with pytest.raises(ValueError, match="no edge of any graph in graphs has a 'label'"):
        t.transform([nx.path_graph(3)])
    t.set_params(edge_label=None)  # changed after fit: refused
    H = nx.path_graph(3)
    nx.set_node_attributes(H, "C", "label")
    with pytest.raises(ValueError, match="labelled edges"):
        t.transform([H])


def test_path_triplets_is_a_frozen_record_matching_networkx():
    import dataclasses

    from kernelkit.graphs._convert import graph_batch
    from kernelkit.graphs.shortest_path import PathTriplets, path_triplets

    graphs = [nx.path_graph(4), nx.empty_graph(1), nx.cycle_graph(5)]
    paths = path_triplets(graph_batch(graphs, node_label=None))
    assert isinstance(paths, PathTriplets)
    assert [f.name for f in dataclasses.fields(paths)] == ["u", "v", "distance"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        paths.u = None
    offsets = np.cumsum([0] + [G.number_of_nodes() for G in graphs])
    expected = {
        (int(offsets[g] + a), int(offsets[g] + b), d)
        for g, G in enumerate(graphs)
        for a, lengths in nx.all_pairs_shortest_path_length(G)
        for b, d in lengths.items()
        if a != b
    }
    got = set(zip(paths.u.tolist(), paths.v.tolist(), paths.distance.tolist(), strict=True))
    assert got == expected and len(paths.u) == len(expected)
    empty = path_triplets(graph_batch([nx.empty_graph(1)], node_label=None))
    assert len(empty.u) == len(empty.v) == len(empty.distance) == 0


@pytest.mark.parametrize("cls", [VertexHistogram, ShortestPath, EdgeHistogram])
def test_constructor_parameters_from_the_base_class(cls):
    # VertexHistogram and ShortestPath take GraphFeatures' constructor as it is; the
    # others extend it: scikit-learn sees every parameter either way
    params = cls(normalize=False, node_label=None).get_params()
    assert params["normalize"] is False and params["node_label"] is None
    expected = {"normalize", "node_label"} | ({"edge_label"} if cls is EdgeHistogram else set())
    assert set(params) == expected
    with pytest.raises(TypeError):
        cls(False)  # keyword-only
