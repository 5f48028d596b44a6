"""Build lists of networkx graphs from flat node / edge arrays (shared by the readers)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import networkx as nx
import numpy as np

__all__ = ["build_graphs"]


def build_graphs(
    name: str,
    graph_of_node: np.ndarray,
    n_graphs: int,
    u: np.ndarray,
    v: np.ndarray,
    node_labels: np.ndarray | None,
    edge_labels: np.ndarray | None,
) -> list[nx.Graph]:
    """Group nodes and edges by graph with NumPy, then build one networkx graph each.

    Parameters
    ----------
    name : str
        Graph ``g`` (0-based) is named ``f"{name}_{g + 1}"``.
    graph_of_node : ndarray of int, shape (n_nodes,)
        0-based graph index of every node (global node ids are positions in this array).
    n_graphs : int
        Number of graphs; every index in ``range(n_graphs)`` must own at least one node.
    u, v : ndarray of int, shape (n_pairs,)
        0-based global endpoints; both must lie in the same graph. Reversed and repeated
        pairs give one undirected edge (the first occurrence's label is kept).
    node_labels, edge_labels : ndarray of int, optional
        Values for the ``label`` attribute of every node / every pair.

    Returns
    -------
    list of networkx.Graph
        Nodes ``0..n_g-1`` in the order of their global ids.
    """
    n_nodes = len(graph_of_node)
    node_order = np.argsort(graph_of_node, kind="stable")
    sizes = np.bincount(graph_of_node, minlength=n_graphs)
    node_offsets = np.concatenate(([0], np.cumsum(sizes)))
    local = np.empty(n_nodes, dtype=np.int64)
    local[node_order] = np.arange(n_nodes) - node_offsets[graph_of_node[node_order]]

    # One undirected edge per unordered pair, at its first occurrence, grouped by graph.
    key = np.minimum(u, v) * n_nodes + np.maximum(u, v)
    first = np.sort(np.unique(key, return_index=True)[1])
    first = first[np.argsort(graph_of_node[u[first]], kind="stable")]
    edge_offsets = np.concatenate(
        ([0], np.cumsum(np.bincount(graph_of_node[u[first]], minlength=n_graphs)))
    )
    eu, ev = local[u[first]].tolist(), local[v[first]].tolist()
    node_offsets, edge_offsets = node_offsets.tolist(), edge_offsets.tolist()
    nlab = None if node_labels is None else node_labels[node_order].tolist()
    elab = None if edge_labels is None else edge_labels[first].tolist()

    graphs = []
    with _gc_paused():
        for g in range(n_graphs):
            a, b = node_offsets[g], node_offsets[g + 1]
            c, d = edge_offsets[g], edge_offsets[g + 1]
            graph = nx.Graph(name=f"{name}_{g + 1}")
            if nlab is None:
                graph.add_nodes_from(range(b - a))
            else:
                attrs = ({"label": x} for x in nlab[a:b])
                graph.add_nodes_from(zip(range(b - a), attrs, strict=True))
            if elab is None:
                graph.add_edges_from(zip(eu[c:d], ev[c:d], strict=True))
            else:
                labels = ({"label": x} for x in elab[c:d])
                graph.add_edges_from(zip(eu[c:d], ev[c:d], labels, strict=True))
            graphs.append(graph)
    return graphs


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while creating many small dicts.

    Creating ~10^5 attribute dicts otherwise triggers repeated collections that cost about
    as much as building the graphs; the collector runs again as usual afterwards.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
