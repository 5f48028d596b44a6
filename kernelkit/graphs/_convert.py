"""Parsing: a list of graphs -> one disjoint-union CSR adjacency plus label arrays.

Every graph kernel in this package works on a :class:`GraphBatch`, the disjoint union of
the input graphs with global node ids ``node_offsets[g] .. node_offsets[g + 1] - 1`` for
graph ``g``. Building it is the only place that walks Python objects; refinement, counting
and kernels then run vectorised over all nodes of all graphs at once.

Accepted graphs (they may be mixed in one list):

* ``networkx.Graph`` -- node attribute ``label`` (name configurable) and, for the edge
  histogram, edge attribute ``label``;
* a scipy sparse (or dense NumPy) square adjacency matrix -- its nonzero pattern is the
  edge set, values are ignored; no labels;
* a pair ``(adjacency, labels)`` -- ``labels`` has one entry per row of ``adjacency``.

Graphs must be undirected: a directed networkx graph or a non-symmetric matrix raises
``ValueError`` (convert with ``G.to_undirected()`` or ``A + A.T`` first). Multigraphs are
rejected too (``networkx.Graph(G)`` collapses parallel edges). A self-loop makes a node
its own neighbour (once). Graphs with no nodes are allowed and get zero features.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from operator import methodcaller
from typing import Any

import networkx as nx
import numpy as np
from scipy import sparse

__all__ = ["GraphBatch", "graph_batch"]

_MISSING = object()


@dataclass(frozen=True)
class GraphBatch:
    """The disjoint union of a list of undirected graphs.

    Attributes
    ----------
    node_offsets : ndarray of int64, shape (n_graphs + 1,)
        Graph ``g`` owns global nodes ``node_offsets[g]:node_offsets[g + 1]``.
    indptr, indices : ndarray of int64
        Symmetric CSR adjacency of the union (each undirected edge stored both ways, a
        self-loop once); row ``v`` lists the neighbours ``N(v)``.
    labels : ndarray or None
        Raw node labels (numeric, string or object array), or ``None`` when no node of any
        graph carries one (then kernels start from the degree, Algorithm 1 line 2).
    edges : ndarray of int64, shape (n_edges, 2)
        Each undirected edge once (``u <= v``), as global node ids.
    edge_labels : ndarray or None
        Raw edge labels aligned with ``edges`` (only gathered when asked for), or ``None``.
    """

    node_offsets: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    labels: np.ndarray | None
    edges: np.ndarray
    edge_labels: np.ndarray | None

    @property
    def n_graphs(self) -> int:
        return len(self.node_offsets) - 1

    @property
    def n_nodes(self) -> int:
        return int(self.node_offsets[-1])

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.node_offsets)

    @property
    def graph_of_node(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_graphs, dtype=np.int64), self.sizes)

    @property
    def degrees(self) -> np.ndarray:
        """``|N(v)|`` for every node (a self-loop counts once)."""
        return np.diff(self.indptr)

    def graph_adjacency(self, g: int) -> sparse.csr_matrix:
        """The CSR adjacency of graph ``g`` alone (local node ids)."""
        a, b = int(self.node_offsets[g]), int(self.node_offsets[g + 1])
        lo, hi = int(self.indptr[a]), int(self.indptr[b])
        return sparse.csr_matrix(
            (np.ones(hi - lo), self.indices[lo:hi] - a, self.indptr[a : b + 1] - lo),
            shape=(b - a, b - a),
        )


def graph_batch(
    graphs: Any,
    *,
    node_label: str | None = "label",
    edge_label: str | None = None,
    name: str = "graphs",
) -> GraphBatch:
    """Parse a list of graphs into one :class:`GraphBatch`.

    Parameters
    ----------
    graphs : sequence
        networkx graphs, sparse / dense adjacency matrices, or ``(adjacency, labels)`` pairs.
    node_label : str or None, default="label"
        Node attribute holding the label of a networkx graph; ``None`` ignores labels.
    edge_label : str or None, default=None
        Edge attribute to gather into ``edge_labels`` (networkx graphs only).
    name : str
        Argument name used in error messages.

    Returns
    -------
    GraphBatch

    Raises
    ------
    ValueError
        Empty list; a directed graph or non-symmetric matrix; a multigraph; labels on some
        nodes but not on others (the message names the graph index and the node); edge
        labels on some edges only; a labels array of the wrong length.
    TypeError
        An item that is not a graph.

    Examples
    --------
    >>> import networkx as nx
    >>> b = graph_batch([nx.path_graph(3), nx.empty_graph(0), nx.cycle_graph(4)])
    >>> b.node_offsets.tolist(), b.degrees.tolist()
    ([0, 3, 3, 7], [1, 2, 1, 2, 2, 2, 2])
    """
    if (
        graphs is None
        or isinstance(graphs, (str, bytes, nx.Graph))
        or not hasattr(graphs, "__len__")
    ):
        raise TypeError(
            f"{name} must be a list of graphs (networkx graphs or sparse adjacency matrices), "
            f"got {type(graphs).__name__}"
        )
    if len(graphs) == 0:
        raise ValueError(f"{name} is empty; at least one graph is required")

    sizes = np.zeros(len(graphs), dtype=np.int64)
    nnz = np.zeros(len(graphs), dtype=np.int64)
    row_lengths: list[int] = []  # |N(v)| of every node, graph after graph
    neighbours: list[int] = []  # local neighbour ids, row after row
    label_parts: list[Any] = []  # per graph: list/array of labels, or None (none present)
    elabel_parts: list[Any] = []
    edge_parts: list[np.ndarray] = []  # only for edge labels (edge order matters there)
    offset = 0
    for i, G in enumerate(graphs):
        if isinstance(G, nx.Graph):
            n, lengths, nbrs, g_labels = _from_networkx(G, i, name, node_label)
            if edge_label is not None:
                edges, elabels = _networkx_edges(G, i, name, edge_label)
                edge_parts.append(edges + offset)
                elabel_parts.append(elabels)
        else:
            n, lengths, nbrs, g_labels = _from_matrix(G, i, name)
            if edge_label is not None:
                edge_parts.append(_upper_edges(lengths, nbrs) + offset)
                elabel_parts.append(None)
        sizes[i] = n
        nnz[i] = len(nbrs)
        offset += n
        row_lengths.extend(lengths)
        neighbours.extend(nbrs)
        label_parts.append(g_labels)

    node_offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    indptr = np.zeros(int(node_offsets[-1]) + 1, dtype=np.int64)
    np.cumsum(np.asarray(row_lengths, dtype=np.int64), out=indptr[1:])
    indices = np.asarray(neighbours, dtype=np.int64).reshape(-1)
    indices += np.repeat(node_offsets[:-1], nnz)  # local -> global ids
    labels = _merge_labels(label_parts, sizes, name, "node")
    edge_labels = None
    if edge_label is not None:
        edges = np.concatenate(edge_parts) if edge_parts else np.empty((0, 2), np.int64)
        edge_sizes = np.array([len(e) for e in edge_parts], dtype=np.int64)
        edge_labels = _merge_labels(elabel_parts, edge_sizes, name, "edge")
    else:
        edges = _upper_edges(np.diff(indptr), indices)
    return GraphBatch(node_offsets, indptr, indices, labels, edges, edge_labels)


def _upper_edges(lengths: Any, nbrs: Any) -> np.ndarray:
    """Each undirected edge once, ``(u, v)`` with ``u <= v``, from CSR rows."""
    lengths = np.asarray(lengths, dtype=np.int64)
    rows = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    cols = np.asarray(nbrs, dtype=np.int64).reshape(-1)
    keep = rows <= cols
    return np.column_stack((rows[keep], cols[keep]))


def _from_networkx(
    G: nx.Graph, i: int, name: str, node_label: str | None
) -> tuple[int, list[int], list[int], list | None]:
    """Node count, CSR row lengths, local neighbour ids, and labels of one networkx graph."""
    if G.is_directed():
        raise ValueError(
            f"{name}[{i}] is a directed graph; the WL and histogram kernels here are "
            "defined on undirected graphs (convert with G.to_undirected())"
        )
    if G.is_multigraph():
        raise ValueError(
            f"{name}[{i}] is a multigraph; collapse parallel edges with networkx.Graph(G)"
        )
    adj = G._adj  # the graph's own dict of neighbour dicts (what G.adj views)
    n = len(adj)
    lengths = list(map(len, adj.values()))
    nbrs = list(chain.from_iterable(adj.values()))
    if list(adj) != list(range(n)):  # nodes other than 0..n-1 in order: re-index
        index = {v: k for k, v in enumerate(adj)}
        nbrs = [index[v] for v in nbrs]
    labels = None
    if node_label is not None and n:
        labels = list(map(methodcaller("get", node_label, _MISSING), G._node.values()))
        if _MISSING in labels:
            if all(lab is _MISSING for lab in labels):
                labels = None
            else:
                k = next(k for k, lab in enumerate(labels) if lab is _MISSING)
                raise ValueError(
                    f"{name}[{i}]: node {list(adj)[k]!r} has no {node_label!r} attribute "
                    f"while other nodes do; label every node, or none (then the degree is "
                    f"used, Algorithm 1)"
                )
    return n, lengths, nbrs, labels


def _networkx_edges(G: nx.Graph, i: int, name: str, edge_label: str) -> tuple[np.ndarray, Any]:
    """Each edge once as local ids, with its labels (``None`` when no edge has one)."""
    index = {v: k for k, v in enumerate(G)}
    data = list(G.edges(data=edge_label, default=_MISSING))
    edges = np.array([(index[u], index[v]) for u, v, _ in data], dtype=np.int64).reshape(-1, 2)
    elabels = [lab for *_, lab in data]
    if not elabels or all(lab is _MISSING for lab in elabels):
        return edges, None
    if any(lab is _MISSING for lab in elabels):
        k = next(k for k, lab in enumerate(elabels) if lab is _MISSING)
        u, v, _ = data[k]
        raise ValueError(
            f"{name}[{i}]: edge ({u!r}, {v!r}) has no {edge_label!r} attribute while "
            f"other edges do; label every edge, or none"
        )
    return edges, elabels


def _from_matrix(G: Any, i: int, name: str) -> tuple[int, list[int], list[int], Any]:
    """Node count, CSR row lengths, local neighbour ids and labels of an adjacency matrix."""
    labels = None
    if isinstance(G, tuple) and len(G) == 2:
        G, labels = G
    if sparse.issparse(G) or (isinstance(G, np.ndarray) and G.ndim == 2):
        A = sparse.csr_matrix(G)
    else:
        raise TypeError(
            f"{name}[{i}] must be a networkx.Graph, a square sparse adjacency matrix or an "
            f"(adjacency, labels) pair, got {type(G).__name__}"
        )
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{name}[{i}]: adjacency matrix must be square, got shape {A.shape}")
    A.eliminate_zeros()
    A.sum_duplicates()
    A.data[:] = 1
    if (A != A.T).nnz:
        raise ValueError(
            f"{name}[{i}]: adjacency matrix is not symmetric (a directed graph); the WL and "
            "histogram kernels here are defined on undirected graphs (use A + A.T)"
        )
    n = A.shape[0]
    if labels is not None:
        labels = np.asarray(labels)
        if labels.ndim != 1 or len(labels) != n:
            raise ValueError(
                f"{name}[{i}]: labels must be 1-D with one entry per node ({n}), "
                f"got shape {labels.shape}"
            )
        if n == 0:
            labels = None
    return n, np.diff(A.indptr).tolist(), A.indices.tolist(), labels


def _merge_labels(parts: list[Any], sizes: np.ndarray, name: str, kind: str) -> np.ndarray | None:
    """Concatenate per-graph labels; ``None`` when no item has any, error when mixed."""
    has = [p is not None for p in parts]
    if not any(has):
        return None
    for i, (p, size) in enumerate(zip(parts, sizes, strict=True)):
        if p is None and size > 0:
            j = next(k for k, q in enumerate(parts) if q is not None)
            fallback = " (nodes then start from their degree)" if kind == "node" else ""
            raise ValueError(
                f"{name}[{i}] has no {kind} labels while {name}[{j}] has; label every "
                f"{kind} of every graph, or none{fallback}"
            )
    flat: list[Any] = []
    for p in parts:
        if p is not None:
            flat.extend(p.tolist() if isinstance(p, np.ndarray) else p)
    return _as_label_array(flat)


def _as_label_array(values: list[Any]) -> np.ndarray:
    """A NumPy array of labels: numeric or string dtype when uniform, else object."""
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):
        arr = None
    mixed_str = (
        arr is not None and arr.dtype.kind == "U" and not all(isinstance(x, str) for x in values)
    )  # np.asarray([1, "1"]) would silently make the two labels equal
    if arr is None or arr.ndim != 1 or arr.dtype.kind not in "biufU" or mixed_str:
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    return arr
