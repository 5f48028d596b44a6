"""Graph labels keep their identity: exact comparison (as Python's ==, all NaNs one label),
any hashable value, and a clear error naming the graph, the node and the label otherwise."""

from __future__ import annotations

import pickle
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from graph_reference import counter_gram
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from kernelkit.graphs import (
    EdgeHistogram,
    ShortestPath,
    VertexHistogram,
    WeisfeilerLehman,
    gram,
    wl_colours,
)
from kernelkit.graphs._labels import NAN_LABEL, fit_codes, label_keys, transform_codes

TRANSFORMERS = [WeisfeilerLehman, VertexHistogram, ShortestPath]


def path(labels, attr="label"):
    """A path whose nodes carry ``labels`` in order."""
    G = nx.path_graph(len(labels))
    nx.set_node_attributes(G, dict(enumerate(labels)), attr)
    return G


def counts(graphs, transformer=None):
    t = transformer or VertexHistogram(normalize=False)
    return t.fit_transform(graphs).toarray()


# ---------------------------------------------------------------- exactness


def test_large_integers_next_to_a_float_stay_apart():
    # before: one float64 array, 2**53 + 1 -> 2**53, and the two merged into one column
    graphs = [path([2**53, 2**53 + 1]), path([0.5])]
    vh = VertexHistogram(normalize=False)
    assert vh.fit_transform(graphs).toarray().tolist() == [[1, 1, 0], [0, 0, 1]]
    assert vh.get_feature_names_out().tolist() == [
        "label=9007199254740992",
        "label=9007199254740993",
        "label=0.5",
    ]
    # and they refine differently: WL keeps them apart in every iteration
    X = WeisfeilerLehman(2, normalize=False).fit_transform(graphs)
    assert gram(X)[0, 0] == 2 + 2 + 2


@pytest.mark.parametrize(
    "labels",
    [[2**63 - 1, 2**63], [-1, 2**63], [2**64 + 5, 2**64 + 6, -(2**70)], [np.uint64(2**63), 1]],
    ids=["int64-max-and-2^63", "negative-and-uint64", "beyond-64-bits", "numpy-uint64"],
)
def test_integers_beyond_int64_keep_their_identity(labels):
    X = counts([path(labels)])
    assert X.tolist() == [[1.0] * len(labels)]


def test_labels_equal_as_python_compares_them():
    # 1, 1.0, True, np.int64(1) and np.float64(1.0) are one label (Python: equal, same hash);
    # the string "1" is another; 2**53 equals the float 2.0**53 exactly
    G = path([1, 1.0, True, np.int64(1), np.float64(1.0), "1", 2**53, 2.0**53])
    vh = VertexHistogram(normalize=False)
    assert sorted(vh.fit_transform([G]).toarray()[0].tolist()) == [1.0, 2.0, 5.0]
    # the same rule in transform: float labels match fitted int labels, exactly
    vh = VertexHistogram(normalize=False).fit([path([1, 2, 3])])
    assert vh.transform([path([1.0, 2.5, 3])]).toarray().tolist() == [[1, 0, 1]]
    assert vh.transform([path([True, 2**53 + 1, 2**63])]).toarray().tolist() == [[1, 0, 0]]
    assert vh.transform([path(["1", 1])]).toarray().tolist() == [[1, 0, 0]]


def test_transform_codes_compare_exactly_across_dtypes():
    vocab, codes = fit_codes(np.array([2**53 + 1, 5], dtype=np.int64))
    assert codes.tolist() == [1, 0]
    # float64(2**53) is not the int 2**53 + 1 (NumPy would compare them in float64)
    assert transform_codes(vocab, np.array([2.0**53, 5.0])).tolist() == [2, 0]
    vocab, _ = fit_codes(np.array([2**63, 1], dtype=np.uint64))
    assert transform_codes(vocab, np.array([-1, 1, 7], dtype=np.int64)).tolist() == [2, 0, 3]
    vocab, _ = fit_codes(np.array(["ab", "c"]))
    assert transform_codes(vocab, np.array(["c", "abc", "ab"])).tolist() == [1, 2, 0]
    obj = np.empty(2, dtype=object)
    obj[:] = [(1, 2), "x"]
    vocab, _ = fit_codes(obj)
    assert transform_codes(vocab, np.array([1.0, 2.0])).tolist() == [2, 3]


def test_numeric_labels_stay_vectorised():
    # the common case: ints or strings become a NumPy array, not a Python object array
    from kernelkit.graphs._convert import graph_batch

    for labels, kind in (([1, 2, 3], "i"), (["C", "O", "N"], "U"), ([0.5, 1.5], "f")):
        batch = graph_batch([path(labels)])
        assert batch.labels is not None and batch.labels.dtype.kind == kind
    # exactness needs objects only when NumPy would round
    assert graph_batch([path([2**53 + 1, 0.5])]).labels.dtype == object


# ---------------------------------------------------------------- NaN


NAN_CASES = {
    "float-nan-objects": [1.0, float("nan"), 2.0, float("nan")],
    "np.nan": [1.0, np.nan, np.nan, 2.0],
    "float32-and-float-nan": [np.float32("nan"), float("nan"), 1.0, 1.0],
    "object-labels": ["a", float("nan"), float("nan"), ("t", 1)],
    "object-np.nan": ["a", np.nan, np.nan, "b"],
}


@pytest.mark.parametrize("labels", list(NAN_CASES.values()), ids=list(NAN_CASES))
@pytest.mark.parametrize("make", TRANSFORMERS, ids=lambda m: m.__name__)
def test_nan_is_one_label_and_transform_agrees_with_fit_transform(labels, make):
    # before: WL fit_transform [[3, 2, 1]], transform [[0, 0, 0]] on the same graph
    graphs = [path(labels), path(labels[::-1])]
    t = make(normalize=False)
    A = t.fit_transform(graphs).toarray()
    np.testing.assert_array_equal(t.transform(graphs).toarray(), A)
    np.testing.assert_array_equal(make(normalize=False).fit(graphs).transform(graphs).toarray(), A)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(t)).transform(graphs).toarray(), A)
    if make is VertexHistogram:  # the two NaNs of each graph share one column
        assert sorted(A[0].tolist(), reverse=True)[0] == 2.0


@pytest.mark.parametrize(
    "labels",
    [np.array([1.0, np.nan, np.nan]), np.array(["a", np.nan, float("nan")], dtype=object)],
    ids=["float-array", "object-array"],
)
def test_nan_in_label_arrays_of_adjacency_pairs(labels):
    A = sparse.csr_matrix(nx.to_scipy_sparse_array(nx.path_graph(3)))
    wl = WeisfeilerLehman(2, normalize=False)
    X = wl.fit_transform([(A, labels)])
    np.testing.assert_array_equal(wl.transform([(A, labels)]).toarray(), X.toarray())
    assert wl.n_colours_[0] == 2


def test_nan_keys_are_one_key_also_after_pickling():
    raw = np.array([float("nan"), 1.0, float("nan")], dtype=object)
    keys = label_keys(raw)
    assert keys[0] is NAN_LABEL and keys[2] is NAN_LABEL
    assert pickle.loads(pickle.dumps(NAN_LABEL)) == NAN_LABEL
    vocab, codes = fit_codes(raw)
    assert codes.tolist() == [0, 1, 0]
    again = pickle.loads(pickle.dumps(vocab))
    assert transform_codes(again, np.array([np.nan, 2.0, 1.0])).tolist() == [0, 2, 1]


# ---------------------------------------------------------------- unhashable


@pytest.mark.parametrize(
    "bad",
    [[1, 2], {"a": 1}, np.array([1, 2]), (1, [2]), {1, 2}],
    ids=["list", "dict", "array", "tuple-with-list", "set"],
)
def test_unhashable_node_label_names_graph_node_and_label(bad):
    G = nx.Graph([("x", "y")])
    nx.set_node_attributes(G, {"x": "C", "y": bad}, "label")
    with pytest.raises(
        TypeError,
        match=r"graphs\[1\]: node 'y' has the label .* of type \w+, which is not hashable; "
        r"a label must be hashable .*convert a list or array label to a tuple",
    ):
        WeisfeilerLehman().fit([path(["C"]), G])


def test_unhashable_labels_of_pairs_and_edges():
    A = sparse.csr_matrix(np.array([[0, 1], [1, 0]]))
    with pytest.raises(TypeError, match=r"graphs\[0\]: node 1 has the label \[2\] of type list"):
        VertexHistogram().fit([(A, [1, [2]])])
    G = path(["C", "C", "C"])
    G.edges[0, 1]["label"] = "single"
    G.edges[1, 2]["label"] = ["double"]
    with pytest.raises(TypeError, match=r"graphs\[0\]: edge \(1, 2\) has the label \['double'\]"):
        EdgeHistogram().fit([G])


def test_tuple_labels_are_fine_also_in_pairs():
    A = sparse.csr_matrix(np.array([[0, 1], [1, 0]]))
    X = VertexHistogram(normalize=False).fit_transform([(A, [(1, 2), (1, 2)])])
    assert X.toarray().tolist() == [[2.0]]
    G = path([(1, 2), (1, 2), ("a",)])
    assert counts([G]).tolist() == [[2.0, 1.0]]


# ---------------------------------------------------------------- property


def _key(x):
    """The reference rule: Python equality, all NaNs one label."""
    return "<nan>" if x != x else x


# small pools, so that equal, nearly equal and NaN labels meet often; numeric-only lists
# take NumPy's vectorised paths, mixed ones the dict of Python values
NUMERIC = st.sampled_from(
    [
        *(0, 1, -1, 2**53, 2**53 + 1, 2**63 - 1, 2**63, -(2**63) - 1, 2**64 - 1),
        *(0.5, 1.0, -0.0, 2.0**53, float("nan"), np.nan, float("inf")),
        *(True, False, np.int64(3), np.float32(0.5), np.uint64(2**63)),
    ]
)
MIXED = st.one_of(NUMERIC, st.sampled_from(["a", "1", "nan", (0, "x"), (0, "y"), 2**64 + 1]))
LABEL_LISTS = st.one_of(
    *(
        st.lists(st.lists(pool, min_size=0, max_size=6), min_size=2, max_size=5)
        for pool in (NUMERIC, MIXED)
    )
)


@settings(max_examples=150, deadline=None)
@given(LABEL_LISTS)
def test_vertex_histogram_equals_python_dict_reference(label_lists):
    graphs = [path(labels) for labels in label_lists]
    reference = [Counter(_key(x) for x in labels) for labels in label_lists]
    expected = counter_gram(reference)
    vh = VertexHistogram(normalize=False)
    np.testing.assert_array_equal(gram(vh.fit_transform(graphs)), expected)
    # fit on the first graphs, transform the rest: the cross block of the joint fit
    k = len(graphs) // 2
    vh.fit(graphs[:k])
    got = gram(vh.transform(graphs[k:]), vh.transform(graphs[:k]))
    np.testing.assert_array_equal(got, expected[k:, :k])


def test_wl_colours_on_exact_labels():
    (c,) = wl_colours([path([2**53, 2**53 + 1, 0.5])], 0)
    assert len(set(c[0].tolist())) == 3
