"""Parsing: a list of graphs -> one disjoint-union CSR adjacency plus label arrays.

Every graph kernel in this package works on a :class:`GraphBatch`, the disjoint union of
the input graphs with global node ids ``node_offsets[g] .. node_offsets[g + 1] - 1`` for
graph ``g``. Building it is the only place that walks Python objects; refinement, counting
and kernels then run vectorised over all nodes of all graphs at once.

Accepted graphs (they may be mixed in one list):

* ``networkx.Graph`` -- node attribute ``label`` (name configurable) and, for the edge
  histogram, edge attribute ``label``;
* a scipy sparse (or dense NumPy) square adjacency matrix -- its nonzero pattern is the
  edge set, values are ignored; it carries no labels;
* a pair ``(adjacency, labels)`` -- ``labels`` has one entry per row of ``adjacency``.

Labels are asked for by name and never dropped silently: with ``node_label="label"``
every node of every graph must have a label (the networkx attribute, or an entry of the
``labels`` of a pair); a name that no node carries, a bare adjacency matrix, or a graph
without labels beside labelled ones is a ``ValueError``. Node degrees are the labels only
when asked for, with ``node_label=None`` (then labels are ignored everywhere, pairs
included). Edge labels follow the same rule with ``edge_label``. A label is any hashable
value; labels are compared as Python compares them, with all NaNs one label (see
:mod:`kernelkit.graphs._labels`).

Graphs must be undirected: a directed networkx graph or a non-symmetric matrix raises
``ValueError`` (convert with ``G.to_undirected()`` or ``A + A.T`` first). Multigraphs are
rejected too (``networkx.Graph(G)`` collapses parallel edges). A self-loop makes a node
its own neighbour (once). Graphs with no nodes are allowed and get zero features.
"""

from __future__ import annotations

import reprlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain, repeat
from operator import is_, methodcaller
from typing import Any

import networkx as nx
import numpy as np
from scipy import sparse

__all__ = ["GraphBatch", "check_attribute_name", "graph_batch"]

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


def check_attribute_name(value: Any, name: str) -> None:
    """A node or edge attribute name: a str, or None."""
    if value is not None and not isinstance(value, str):
        raise TypeError(
            f"{name} must be an attribute name (str) or None, got {type(value).__name__}"
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
        Node attribute holding the label of a networkx graph (pairs give their labels
        instead); every node of every graph must then have a label. ``None`` ignores
        labels (kernels start from the degree).
    edge_label : str or None, default=None
        Edge attribute to gather into ``edge_labels`` (networkx graphs only); every edge
        of every graph must then have one.
    name : str
        Argument name used in error messages.

    Returns
    -------
    GraphBatch

    Raises
    ------
    ValueError
        Empty list; a directed graph or non-symmetric matrix; a multigraph; a label name
        that no node (edge) has; labels on some nodes but not on others, or in some
        graphs only (the message names the graph index and the node); a bare adjacency
        matrix while labels are asked for; a labels array of the wrong length.
    TypeError
        An item that is not a graph; an unhashable label (the message names the graph,
        the node and the label); an attribute name that is not a str.

    Examples
    --------
    >>> import networkx as nx
    >>> b = graph_batch([nx.path_graph(3), nx.empty_graph(0), nx.cycle_graph(4)],
    ...                 node_label=None)
    >>> b.node_offsets.tolist(), b.degrees.tolist()
    ([0, 3, 3, 7], [1, 2, 1, 2, 2, 2, 2])
    """
    check_attribute_name(node_label, "node_label")
    check_attribute_name(edge_label, "edge_label")
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
            n, lengths, nbrs, g_labels = _from_matrix(G, i, name, node_label is not None)
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
    labels = None
    if node_label is not None:
        labels = _merge_labels(label_parts, sizes, graphs, name, "node", node_label)
    edge_labels = None
    if edge_label is not None:
        edges = np.concatenate(edge_parts) if edge_parts else np.empty((0, 2), np.int64)
        edge_sizes = np.array([len(e) for e in edge_parts], dtype=np.int64)
        edge_labels = _merge_labels(elabel_parts, edge_sizes, graphs, name, "edge", edge_label)
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
        if _maybe_missing(labels) and any(map(is_, labels, repeat(_MISSING))):
            if all(map(is_, labels, repeat(_MISSING))):
                labels = None
            else:
                k = next(k for k, lab in enumerate(labels) if lab is _MISSING)
                raise ValueError(
                    f"{name}[{i}]: node {list(adj)[k]!r} has no {node_label!r} attribute "
                    f"while other nodes do; label every node, or pass node_label=None to "
                    f"start every graph from node degrees"
                )
    return n, lengths, nbrs, labels


def _maybe_missing(labels: list[Any]) -> bool:
    """A fast test that no label is ``_MISSING`` (``True``: look again, by identity)."""
    try:
        return _MISSING in labels
    except (ValueError, TypeError):  # a label whose == has no truth value (an array)
        return True


def _networkx_edges(G: nx.Graph, i: int, name: str, edge_label: str) -> tuple[np.ndarray, Any]:
    """Each edge once as local ids, with its labels (``None`` when no edge has one)."""
    index = {v: k for k, v in enumerate(G)}
    data = list(G.edges(data=edge_label, default=_MISSING))
    edges = np.array([(index[u], index[v]) for u, v, _ in data], dtype=np.int64).reshape(-1, 2)
    elabels = [lab for *_, lab in data]
    if not elabels or all(map(is_, elabels, repeat(_MISSING))):
        return edges, None
    if any(map(is_, elabels, repeat(_MISSING))):
        k = next(k for k, lab in enumerate(elabels) if lab is _MISSING)
        u, v, _ = data[k]
        raise ValueError(
            f"{name}[{i}]: edge ({u!r}, {v!r}) has no {edge_label!r} attribute while "
            f"other edges do; label every edge, or pass edge_label=None to type edges by "
            f"their endpoints"
        )
    return edges, elabels


def _from_matrix(
    G: Any, i: int, name: str, use_labels: bool
) -> tuple[int, list[int], list[int], Any]:
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
        labels = _pair_labels(labels, n, i, name)
        if n == 0 or not use_labels:
            labels = None
    return n, np.diff(A.indptr).tolist(), A.indices.tolist(), labels


def _pair_labels(labels: Any, n: int, i: int, name: str) -> Any:
    """The labels of an ``(adjacency, labels)`` pair: a 1-D array or a sequence of n."""
    if isinstance(labels, np.ndarray):
        ok = labels.ndim == 1 and len(labels) == n
        shape = labels.shape
    elif isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
        ok, shape = False, None
    else:
        labels = list(labels)
        ok, shape = len(labels) == n, (len(labels),)
    if not ok:
        got = f"shape {shape}" if shape is not None else type(labels).__name__
        raise ValueError(
            f"{name}[{i}]: labels must be 1-D with one entry per node ({n}), got {got}"
        )
    return labels


def _merge_labels(
    parts: list[Any], sizes: np.ndarray, graphs: Any, name: str, kind: str, attr: str
) -> np.ndarray | None:
    """Concatenate per-graph labels; ``None`` when no graph has an item; else every item of
    every graph must have a label (a clear error names the first graph without)."""
    for i, (p, size) in enumerate(zip(parts, sizes, strict=True)):
        if p is None and size > 0:
            raise ValueError(_missing_labels_message(parts, i, graphs, name, kind, attr))
    flat: list[Any] = []
    for p in parts:
        if p is not None:
            flat.extend(p.tolist() if isinstance(p, np.ndarray) else p)
    if not flat:
        return None
    return _as_label_array(flat, lambda k: _describe_item(k, sizes, graphs, name, kind))


def _missing_labels_message(
    parts: list[Any], i: int, graphs: Any, name: str, kind: str, attr: str
) -> str:
    if kind == "node":
        hint = "pass node_label=None to start every graph from node degrees"
    else:
        hint = "pass edge_label=None to type edges by the labels of their endpoints"
    if not isinstance(graphs[i], nx.Graph):
        if kind == "node":
            return (
                f"{name}[{i}] is an adjacency matrix without node labels, but "
                f"node_label={attr!r} asks for labels; pass an (adjacency, labels) pair, "
                f"or {hint}"
            )
        return (
            f"{name}[{i}] is an adjacency matrix, which carries no edge labels, but "
            f"edge_label={attr!r} asks for them; {hint}"
        )
    labelled = [j for j, p in enumerate(parts) if p is not None]
    if not labelled:
        found = _attribute_names(graphs, kind)
        present = (
            f"{kind} attributes present: {', '.join(map(repr, found))}"
            if found
            else f"the {kind}s carry no attributes"
        )
        return (
            f"no {kind} of any graph in {name} has a {attr!r} attribute ({present}); "
            f"check the spelling of {kind}_label, or {hint}"
        )
    return (
        f"{name}[{i}] has no {kind} labels (no {kind} with a {attr!r} attribute) while "
        f"{name}[{labelled[0]}] has; label every {kind} of every graph, or {hint}"
    )


def _attribute_names(graphs: Any, kind: str, limit: int = 100_000) -> list[str]:
    """Attribute names on the nodes (edges) of the networkx graphs (the first ``limit``)."""
    names: set[Any] = set()
    seen = 0
    for G in graphs:
        if not isinstance(G, nx.Graph):
            continue
        items = G._node.values() if kind == "node" else (d for *_, d in G.edges(data=True))
        for d in items:
            names.update(d)
            seen += 1
        if seen >= limit:
            break
    return sorted(map(str, names))[:10]


def _describe_item(k: int, sizes: np.ndarray, graphs: Any, name: str, kind: str) -> str:
    """Which graph and which node (edge) the ``k``-th label of a batch belongs to."""
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    i = int(np.searchsorted(offsets, k, side="right")) - 1
    local = int(k - offsets[i])
    G = graphs[i]
    if isinstance(G, nx.Graph):
        item = list(G)[local] if kind == "node" else tuple(list(G.edges())[local])
    else:
        item = local
    return f"{name}[{i}]: {kind} {item!r}"


def _as_label_array(values: list[Any], describe: Callable[[int], str]) -> np.ndarray:
    """The labels as an array that keeps their identity (see :mod:`._labels`).

    Numeric and string labels give a NumPy array when NumPy holds every value exactly:
    integers in int64 / uint64, floats (with integers that the float type holds exactly),
    strings only. Anything else (mixed types, integers beyond 64 bits or too large for
    the float array they would join, tuples, ...) gives an object array of the values
    themselves, which must be hashable.
    """
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError, OverflowError):  # ragged sequences, huge integers
        arr = None
    if arr is not None and arr.ndim == 1:
        kind = arr.dtype.kind
        if kind in "biu":
            return arr
        if kind == "f" and arr.dtype.itemsize <= 8:
            # integers converted to floats are exact below 2^(mantissa bits + 1); a value
            # at or above it may be a rounded integer (2**53 + 1 -> 2**53): keep objects
            limit = 2.0 ** (np.finfo(arr.dtype).nmant + 1)
            if not (np.abs(arr) >= limit).any():
                return arr
        if kind == "U" and all(issubclass(t, str) for t in set(map(type, values))):
            return arr  # np.asarray([1, "1"]) would make the two labels equal
    _check_hashable(values, describe)
    return np.fromiter(values, dtype=object, count=len(values))  # a tuple stays one label


def _check_hashable(values: list[Any], describe: Callable[[int], str]) -> None:
    try:
        deque(map(hash, values), maxlen=0)
        return
    except TypeError:
        pass
    for k, x in enumerate(values):
        try:
            hash(x)
        except TypeError:
            raise TypeError(
                f"{describe(k)} has the label {reprlib.repr(x)} of type "
                f"{type(x).__name__}, which is not hashable; a label must be hashable (a "
                "number, a string, a tuple of hashables, ...): convert a list or array "
                "label to a tuple"
            ) from None
