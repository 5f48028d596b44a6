"""Colour refinement (Algorithm 1): exactness of the injective relabelling, WL as an
isomorphism test, and invariance under node permutations."""

from __future__ import annotations

import doctest
import itertools

import networkx as nx
import numpy as np
import pytest
from graph_reference import graph_lists, node_label_of, wl_counts
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelkit.graphs.wl
from kernelkit.graphs import wl_colours, wl_distinguishable
from kernelkit.graphs.wl import _row_ids_lexsort, row_ids


def test_docstring_examples():
    result = doctest.testmod(kernelkit.graphs.wl, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(0, 5),
    st.integers(1, 6),
    st.integers(0, 2**31 - 1),
)
def test_row_ids_exact_and_both_paths_agree(n, w, top, seed):
    block = np.random.RandomState(seed).randint(0, top, size=(n, w)).astype(np.int64)
    ids, first = row_ids(block)
    # equal ids exactly for equal rows
    same_row = (block[:, None, :] == block[None, :, :]).all(axis=2)
    assert np.array_equal(same_row, ids[:, None] == ids[None, :])
    # ids in lexicographic order of the rows, first holds one representative per id
    reps = block[first]
    assert np.array_equal(block[first[ids]], block)
    assert all(tuple(a) < tuple(b) for a, b in itertools.pairwise(reps))
    if w:
        ids2, first2 = _row_ids_lexsort(block)
        assert np.array_equal(ids, ids2) and np.array_equal(block[first], block[first2])


def test_row_ids_large_values_use_lexsort_path_exactly():
    # values too large to pack into one int64 key: rows differing only in the last column
    big = np.int64(2**40)
    block = np.array([[big, 1, 2], [big, 1, 3], [big, 1, 2], [0, big, big]], dtype=np.int64)
    ids, _ = row_ids(block)
    assert ids.tolist() == [1, 2, 1, 0]


@settings(max_examples=40, deadline=None)
@given(graph_lists(), st.integers(0, 4))
def test_colours_partition_matches_reference(graphs, h):
    """Two nodes (in any graphs) share a colour exactly when the reference says so."""
    ours = wl_colours(graphs, h, node_label=node_label_of(graphs))
    ref = wl_counts(graphs, h)  # per graph Counter of (iteration, colour)
    for g, G in enumerate(graphs):
        assert ours[g].shape == (h + 1, G.number_of_nodes())
    # histograms per iteration agree up to a renaming of colours shared across graphs
    for it in range(h + 1):
        ours_sig = [sorted(np.unique(o[it], return_counts=True)[1].tolist()) for o in ours]
        ref_sig = [sorted(c for (i, _), c in r.items() if i == it) for r in ref]
        assert ours_sig == ref_sig
    # same colour <=> same reference colour (over the union)
    flat_ours = [np.concatenate([o[it] for o in ours]) for it in range(h + 1)]
    flat_ref = _reference_colours(graphs, h)
    for it in range(h + 1):
        a, b = flat_ours[it], flat_ref[it]
        assert np.array_equal(a[:, None] == a[None, :], b[:, None] == b[None, :])


def _reference_colours(graphs, h):
    from graph_reference import initial_colours

    cols = initial_colours(graphs)
    out = []
    for it in range(h + 1):
        names: dict = {}
        out.append(np.array([names.setdefault(c[v], len(names)) for c in cols for v in c]))
        if it == h:
            break
        table: dict = {}
        cols = [
            {
                v: table.setdefault((c[v], tuple(sorted(c[u] for u in G.neighbors(v)))), len(table))
                for v in G
            }
            for G, c in zip(graphs, cols, strict=True)
        ]
    return out


@settings(max_examples=40, deadline=None)
@given(graph_lists(max_size=3), st.integers(0, 2**31 - 1), st.integers(0, 4))
def test_isomorphic_graphs_get_identical_colour_histograms(graphs, seed, h):
    rng = np.random.RandomState(seed)
    permuted = []
    for G in graphs:
        perm = rng.permutation(G.number_of_nodes())
        H = nx.relabel_nodes(G, {v: int(perm[v]) for v in G})
        # rebuild with a shuffled insertion order so node order differs too
        H2 = nx.Graph()
        H2.add_nodes_from(sorted(H.nodes(data=True), key=lambda x: rng.rand()))
        H2.add_edges_from(H.edges())
        permuted.append(H2)
    nl = node_label_of(graphs)
    cols = wl_colours(graphs + permuted, h, node_label=nl)
    k = len(graphs)
    for g in range(k):
        for it in range(h + 1):
            assert np.array_equal(np.sort(cols[g][it]), np.sort(cols[k + g][it]))
        assert not wl_distinguishable(graphs[g], permuted[g], node_label=nl)


def test_six_cycle_vs_two_triangles_not_distinguished():
    two_triangles = nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(3))
    assert not wl_distinguishable(nx.cycle_graph(6), two_triangles, node_label=None)
    for h in range(5):
        assert not wl_distinguishable(nx.cycle_graph(6), two_triangles, h, node_label=None)


def test_path_vs_star_distinguished():
    path, star = nx.path_graph(4), nx.star_graph(3)
    assert wl_distinguishable(path, star, 0, node_label=None)  # degree histograms differ
    assert wl_distinguishable(path, star, node_label=None)


def test_distinguished_only_after_some_iterations():
    # same degree sequence (all 2 and 1s) but different structure: path of 6 vs path 3 + 3?
    # P6 vs C3 + P3: degrees [1,2,2,2,2,1] vs [2,2,2,1,2,1]; equal at h = 0, apart at h = 1
    a = nx.path_graph(6)
    b = nx.disjoint_union(nx.cycle_graph(3), nx.path_graph(3))
    assert not wl_distinguishable(a, b, 0, node_label=None)
    assert wl_distinguishable(a, b, 1, node_label=None)


def test_labels_matter():
    a, b = nx.path_graph(3), nx.path_graph(3)
    nx.set_node_attributes(a, {0: "C", 1: "O", 2: "C"}, "label")
    nx.set_node_attributes(b, {0: "O", 1: "C", 2: "C"}, "label")
    assert not wl_distinguishable(a, b, 0)  # same label multiset
    assert wl_distinguishable(a, b, 1)
    assert not wl_distinguishable(a, b, 1, node_label=None)  # structure only


def test_stable_refinement_stops():
    out = wl_colours([nx.path_graph(7)], None, node_label=None)
    # P7 splits by distance to the ends: 4 classes after 3 iterations, then stable
    assert len(np.unique(out[0][-1])) == 4
    assert out[0].shape[0] - 1 <= 5


def test_n_iter_zero_is_the_labels():
    G = nx.path_graph(4)
    nx.set_node_attributes(G, {0: 5, 1: 7, 2: 5, 3: 9}, "label")
    (c,) = wl_colours([G], 0)
    assert c.shape == (1, 4)
    assert c[0].tolist() == [0, 1, 0, 2]


@pytest.mark.parametrize("bad", [-1, -5])
def test_negative_n_iter_rejected(bad):
    with pytest.raises(ValueError, match="n_iter must be >= 0"):
        wl_colours([nx.path_graph(3)], bad)
    with pytest.raises(ValueError, match="n_iter must be >= 0"):
        wl_distinguishable(nx.path_graph(3), nx.path_graph(3), n_iter=bad)


@pytest.mark.parametrize("bad", [1.5, 2.0, "3", True])
def test_non_integer_n_iter_rejected(bad):
    with pytest.raises(TypeError, match="n_iter must be an integer"):
        wl_colours([nx.path_graph(3)], n_iter=bad)


def test_depth_is_named_n_iter():
    # the glossary: the WL depth is n_iter in every function (no h)
    import inspect

    from kernelkit.graphs import wl_kernel

    for fn in (wl_colours, wl_distinguishable, wl_kernel):
        params = inspect.signature(fn).parameters
        assert "n_iter" in params and "h" not in params, fn.__name__
    path = nx.path_graph(5)
    by_name = wl_colours([path], n_iter=2, node_label=None)[0]
    assert by_name.shape == (3, 5)
    np.testing.assert_array_equal(by_name, wl_colours([path], 2, node_label=None)[0])
    p6, c3_p3 = nx.path_graph(6), nx.disjoint_union(nx.cycle_graph(3), nx.path_graph(3))
    assert not wl_distinguishable(p6, c3_p3, n_iter=0, node_label=None)
    assert wl_distinguishable(p6, c3_p3, n_iter=1, node_label=None)
