"""Weisfeiler–Lehman subtree kernel (kernelkit.graphs) against GraKeL on the TU benchmarks.

GraKeL's ``WeisfeilerLehman(n_iter=h, base_graph_kernel=VertexHistogram)`` keeps the
histograms of iterations 0..h, as kernelkit's ``wl_kernel(graphs, h)``; raw Gram matrices
are sums of products of integer counts, so they must be equal exactly, and normalised
ones to 1e-12. Fast: MUTAG (188 graphs) for every h from 0 to 5, atom labels and degree
labels, networkx and sparse-adjacency input, and a held-out transform (h = 0 against
GraKeL's VertexHistogram, since its WL needs h >= 1). Slow: the whole of
NCI1 (4110 graphs) and NCI109 (4127).

``tests/graphs/test_graphs_wl_features.py`` already compares h = 1, 3, 5 (normalised) and
h = 2 (raw) on MUTAG; the cases here complete that grid and add the large sets.
"""

from __future__ import annotations

import functools

import networkx as nx
import numpy as np
import pytest

from kernelkit.datasets import load_tu
from kernelkit.graphs import WeisfeilerLehman, gram, wl_kernel

grakel = pytest.importorskip("grakel")
from grakel.kernels import VertexHistogram as GVH  # noqa: E402
from grakel.kernels import WeisfeilerLehman as GWL  # noqa: E402


@functools.cache
def _graphs(name: str) -> list[nx.Graph]:
    return load_tu(name)[0]


def _grakel_input(graphs: list[nx.Graph], tag: str = "label") -> list:
    return list(grakel.graph_from_networkx(graphs, node_labels_tag=tag))


def _grakel_gram(graphs, n_iter: int, normalize: bool, tag: str = "label") -> np.ndarray:
    """GraKeL's WL Gram matrix; for ``n_iter = 0`` (which GraKeL's WL refuses) its vertex
    histogram kernel, the WL kernel's iteration 0."""
    if n_iter == 0:
        gk = GVH(normalize=normalize)
    else:
        gk = GWL(n_iter=n_iter, base_graph_kernel=GVH, normalize=normalize)
    return gk.fit_transform(_grakel_input(graphs, tag))


def _check(ours: np.ndarray, ref: np.ndarray, normalize: bool, label: str) -> None:
    diff = float(np.max(np.abs(ours - ref)))
    print(f"WL {label}: shape {ours.shape}, max |K_kernelkit - K_grakel| = {diff:.2e}")
    if normalize:
        np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)
    else:
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("normalize", [False, True], ids=["raw", "normalised"])
@pytest.mark.parametrize("n_iter", range(6))
def test_wl_gram_equals_grakel_on_mutag(n_iter, normalize):
    graphs = _graphs("MUTAG")
    ours = wl_kernel(graphs, n_iter, normalize=normalize)
    _check(ours, _grakel_gram(graphs, n_iter, normalize), normalize, f"MUTAG h={n_iter}")


def _with_degree_labels(graphs: list[nx.Graph]) -> list[nx.Graph]:
    out = []
    for G in graphs:
        H = nx.Graph(G)
        nx.set_node_attributes(H, dict(H.degree()), "degree")
        out.append(H)
    return out


@pytest.mark.parametrize("normalize", [False, True], ids=["raw", "normalised"])
def test_degree_labels_equal_grakel_with_degrees_as_labels(normalize):
    """``node_label=None`` starts from the degrees; GraKeL gets them as node labels."""
    graphs = _graphs("MUTAG")
    ours = wl_kernel(graphs, 3, normalize=normalize, node_label=None)
    ref = _grakel_gram(_with_degree_labels(graphs), 3, normalize, tag="degree")
    _check(ours, ref, normalize, "MUTAG h=3 degree labels")


def test_sparse_adjacency_with_labels_equals_grakel():
    graphs = _graphs("MUTAG")
    pairs = []
    for G in graphs:
        nodes = list(G.nodes)
        A = nx.to_scipy_sparse_array(G, nodelist=nodes)
        pairs.append((A, [G.nodes[v]["label"] for v in nodes]))
    ours = wl_kernel(pairs, 4, normalize=False)
    _check(ours, _grakel_gram(graphs, 4, False), False, "MUTAG h=4 (adjacency, labels) input")


@pytest.mark.parametrize("normalize", [False, True], ids=["raw", "normalised"])
def test_held_out_transform_equals_grakel(normalize):
    graphs = _graphs("MUTAG")
    train, test = graphs[::2], graphs[1::2]  # unseen colours appear in the test half
    gk = GWL(n_iter=5, base_graph_kernel=GVH, normalize=normalize)
    gk.fit(_grakel_input(train))
    ref = gk.transform(_grakel_input(test))
    wl = WeisfeilerLehman(5, normalize=normalize)
    F = wl.fit_transform(train)
    _check(gram(wl.transform(test), F), ref, normalize, "MUTAG h=5 held-out transform")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "n_iter", "normalize"),
    [("NCI1", 5, True), ("NCI1", 3, False), ("NCI109", 5, True)],
)
def test_wl_gram_equals_grakel_on_whole_nci(name, n_iter, normalize):
    graphs = _graphs(name)
    ours = wl_kernel(graphs, n_iter, normalize=normalize)
    _check(ours, _grakel_gram(graphs, n_iter, normalize), normalize, f"{name} h={n_iter}")
