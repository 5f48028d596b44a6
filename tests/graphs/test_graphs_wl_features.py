"""The WeisfeilerLehman transformer and wl_kernel: against a dict-based reference, against
GraKeL, and the fit / transform contract."""

from __future__ import annotations

import doctest

import networkx as nx
import numpy as np
import pytest
from graph_reference import graph_lists, node_label_of, normalized, wl_gram
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

import kernelkit.graphs.features
from kernelkit.datasets import load_tu
from kernelkit.graphs import VertexHistogram, WeisfeilerLehman, gram, wl_kernel


@pytest.fixture(scope="module")
def mutag():
    return load_tu("MUTAG")


def test_docstring_examples():
    result = doctest.testmod(kernelkit.graphs.features, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=60, deadline=None)
@given(graph_lists(), st.integers(0, 4), st.sampled_from(["subtree", "final"]))
def test_gram_equals_reference(graphs, h, variant):
    nl = node_label_of(graphs)
    K = wl_kernel(graphs, h, variant=variant, normalize=False, node_label=nl)
    expected = wl_gram(graphs, h, variant)
    np.testing.assert_allclose(K, expected, atol=1e-12)
    Kn = wl_kernel(graphs, h, variant=variant, normalize=True, node_label=nl)
    np.testing.assert_allclose(Kn, normalized(expected), atol=1e-12)


def test_gram_equals_grakel_on_mutag(mutag):
    grakel = pytest.importorskip("grakel")
    from grakel.kernels import VertexHistogram as GVH
    from grakel.kernels import WeisfeilerLehman as GWL

    graphs, _ = mutag
    gk_input = list(grakel.graph_from_networkx(graphs, node_labels_tag="label"))
    for h in (1, 3, 5):
        # GraKeL's n_iter = h also means iterations 0..h (it keeps h + 1 histograms)
        expected = GWL(n_iter=h, base_graph_kernel=GVH, normalize=True).fit_transform(gk_input)
        np.testing.assert_allclose(wl_kernel(graphs, h), expected, atol=1e-10)
    raw = GWL(n_iter=2, base_graph_kernel=GVH).fit_transform(gk_input)
    np.testing.assert_allclose(wl_kernel(graphs, 2, normalize=False), raw, atol=1e-10)


def test_transform_equals_grakel_on_held_out_mutag(mutag):
    grakel = pytest.importorskip("grakel")
    from grakel.kernels import VertexHistogram as GVH
    from grakel.kernels import WeisfeilerLehman as GWL

    graphs, _ = mutag
    train, test = graphs[:120], graphs[120:]
    gk = GWL(n_iter=3, base_graph_kernel=GVH, normalize=True)
    gk.fit(list(grakel.graph_from_networkx(train, node_labels_tag="label")))
    expected = gk.transform(list(grakel.graph_from_networkx(test, node_labels_tag="label")))
    wl = WeisfeilerLehman(3)
    F = wl.fit_transform(train)
    np.testing.assert_allclose(gram(wl.transform(test), F), expected, atol=1e-10)


def test_transform_of_fit_graphs_equals_fit_transform(mutag):
    graphs, _ = mutag
    for variant in ("subtree", "final"):
        for normalize in (True, False):
            wl = WeisfeilerLehman(4, variant=variant, normalize=normalize)
            A = wl.fit_transform(graphs)
            B = wl.transform(graphs)
            assert A.shape == B.shape == (len(graphs), wl.n_features_out_)
            assert abs(A - B).max() < 1e-14
            C = WeisfeilerLehman(4, variant=variant, normalize=normalize).fit(graphs)
            assert abs(C.transform(graphs) - A).max() < 1e-14


def test_transform_matches_joint_fit_and_ignores_unseen(mutag):
    """k(test, train) by fit/transform equals the cross block of a joint fit, normalised
    by each test graph's full self-similarity (unseen colours included)."""
    graphs, _ = mutag
    train, test = graphs[:100], graphs[100:]
    for normalize in (False, True):
        joint = wl_kernel(train + test, 3, normalize=normalize)
        wl = WeisfeilerLehman(3, normalize=normalize)
        F = wl.fit_transform(train)
        T = wl.transform(test)
        np.testing.assert_allclose(gram(T, F), joint[100:, :100], atol=1e-12)


def test_unseen_label_contributes_nothing():
    a = nx.path_graph(3)
    nx.set_node_attributes(a, "C", "label")
    wl = WeisfeilerLehman(2, normalize=False).fit([a])
    b = nx.path_graph(3)
    nx.set_node_attributes(b, "N", "label")  # a label never seen in fit
    assert wl.transform([b]).nnz == 0
    c = nx.path_graph(3)
    nx.set_node_attributes(c, {0: "C", 1: "C", 2: "N"}, "label")
    # iteration 0: the two "C" nodes; iteration 1: node 0 = (C, {C}) is a fitted end, node 1
    # = (C, {C, N}) is new; iteration 2: every signature holds a new colour
    Xc = wl.transform([c]).toarray()[0]
    assert wl.n_colours_.tolist() == [1, 2, 2]
    assert Xc.tolist() == [2.0, 1.0, 0.0, 0.0, 0.0]
    # normalised: divided by the full norm sqrt(k(c, c)), unseen colours included
    wln = WeisfeilerLehman(2, normalize=True).fit([a])
    full = np.sqrt(wl_kernel([c], 2, normalize=False)[0, 0])
    assert full > np.sqrt(5.0)
    assert wln.transform([c]).toarray()[0].sum() == pytest.approx(3.0 / full)


def test_h_zero_is_the_label_histogram(mutag):
    graphs, _ = mutag
    X = WeisfeilerLehman(0, normalize=False).fit_transform(graphs).toarray()
    labels = sorted({d["label"] for G in graphs for _, d in G.nodes(data=True)})
    expected = np.array(
        [[sum(d["label"] == lab for _, d in G.nodes(data=True)) for lab in labels] for G in graphs]
    )
    np.testing.assert_array_equal(X, expected)
    np.testing.assert_array_equal(
        X, VertexHistogram(normalize=False).fit_transform(graphs).toarray()
    )


def test_subtree_is_hstack_of_per_iteration_final_histograms(mutag):
    graphs, _ = mutag
    h = 4
    sub = WeisfeilerLehman(h, normalize=False)
    X = sub.fit_transform(graphs)
    off = sub.feature_offsets_
    assert off[-1] == X.shape[1] and len(off) == h + 2
    for i in range(h + 1):
        final = WeisfeilerLehman(i, variant="final", normalize=False).fit_transform(graphs)
        assert abs(X[:, off[i] : off[i + 1]] - final).max() == 0
    # so the subtree kernel is the sum of the final-iteration kernels
    total = sum(wl_kernel(graphs, i, variant="final", normalize=False) for i in range(h + 1))
    np.testing.assert_allclose(wl_kernel(graphs, h, normalize=False), total)
    # and the features for smaller h are a column prefix
    small = WeisfeilerLehman(2, normalize=False).fit_transform(graphs)
    assert abs(X[:, : off[3]] - small).max() == 0


def test_isomorphic_graphs_identical_features(mutag):
    graphs, _ = mutag
    rng = np.random.RandomState(0)
    perms = []
    for G in graphs[:30]:
        p = rng.permutation(G.number_of_nodes())
        perms.append(nx.relabel_nodes(G, {v: int(p[v]) for v in G}))
    X = WeisfeilerLehman(5).fit_transform(graphs[:30] + perms).toarray()
    np.testing.assert_array_equal(X[:30], X[30:])


def test_sparse_adjacency_input_equals_networkx(mutag):
    graphs, _ = mutag
    mats = []
    for G in graphs[:40]:
        A = nx.to_scipy_sparse_array(G, nodelist=sorted(G), format="csr")
        labels = np.array([G.nodes[v]["label"] for v in sorted(G)])
        mats.append((A, labels))
    np.testing.assert_allclose(wl_kernel(mats, 3), wl_kernel(graphs[:40], 3), atol=1e-14)
    # unlabelled adjacency matrices start from the degree when asked (node_label=None)
    plain = [sparse.csr_matrix(A) for A, _ in mats]
    ref = wl_kernel(graphs[:40], 3, node_label=None)
    np.testing.assert_allclose(wl_kernel(plain, 3, node_label=None), ref, atol=1e-14)
    dense = [A.toarray() for A in plain]
    np.testing.assert_allclose(wl_kernel(dense, 3, node_label=None), ref, atol=1e-14)
    # and so do labelled pairs: node_label=None ignores labels everywhere
    np.testing.assert_allclose(wl_kernel(mats, 3, node_label=None), ref, atol=1e-14)


def test_arbitrary_node_names_and_string_labels():
    a = nx.Graph([("x", "y"), ("y", "z")])
    nx.set_node_attributes(a, {"x": "C", "y": "O", "z": "C"}, "label")
    b = nx.relabel_nodes(a, {"x": 0, "y": 1, "z": 2})
    K = wl_kernel([a, b], 3, normalize=False)
    assert K[0, 0] == K[0, 1] == K[1, 1]


def test_mixed_label_types_are_not_conflated():
    a = nx.path_graph(2)
    nx.set_node_attributes(a, {0: 1, 1: "1"}, "label")  # the int 1 and the string "1"
    X = WeisfeilerLehman(0, normalize=False).fit_transform([a]).toarray()
    assert X.tolist() == [[1.0, 1.0]]


def test_graph_without_nodes_gets_zero_features():
    graphs = [nx.path_graph(3), nx.empty_graph(0), nx.cycle_graph(4)]
    for G in (graphs[0], graphs[2]):
        nx.set_node_attributes(G, "C", "label")
    for node_label in ("label", None):
        X = WeisfeilerLehman(2, node_label=node_label).fit_transform(graphs)
        assert X[1].nnz == 0
        K = wl_kernel(graphs, 2, node_label=node_label)
        assert np.all(K[1] == 0) and np.all(K[:, 1] == 0)
        assert K[0, 0] == pytest.approx(1.0)


def test_only_empty_graphs():
    K = wl_kernel([nx.empty_graph(0), nx.empty_graph(0)], 2)  # no node needs a label
    assert K.shape == (2, 2) and np.all(K == 0)


def test_all_unlabelled_uses_degree(mutag):
    graphs = [nx.Graph(G.edges()) for G in mutag[0][:20]]  # no labels at all
    for G, orig in zip(graphs, mutag[0][:20], strict=True):
        G.add_nodes_from(orig.nodes())
    np.testing.assert_allclose(
        wl_kernel(graphs, 3, node_label=None),
        wl_kernel(mutag[0][:20], 3, node_label=None),
        atol=1e-14,
    )


def test_get_set_params_follow_sklearn():
    wl = WeisfeilerLehman(4, variant="final")
    assert wl.get_params() == {
        "n_iter": 4,
        "variant": "final",
        "normalize": True,
        "base": "histogram",
        "node_label": "label",
    }
    wl.set_params(n_iter=2)
    assert wl.n_iter == 2 and not hasattr(wl, "n_features_out_")
