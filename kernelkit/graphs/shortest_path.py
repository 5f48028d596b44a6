"""Shortest-path kernel: histograms of (label u, label v, shortest-path length) triplets.

For every ordered pair of distinct nodes ``u != v`` joined by a path, the triplet
``(l(u), l(v), d(u, v))`` is counted, with ``d`` the number of edges on a shortest path
(Borgwardt & Kriegel, "Shortest-path kernels on graphs", ICDM 2005, with the delta kernel
on labelled paths, as GraKeL's ``ShortestPath(with_labels=True)``). The kernel is the inner
product of the triplet histograms. Distances come from
``scipy.sparse.csgraph.shortest_path`` (breadth-first search), one graph at a time:
``O(n^2)`` memory per graph of ``n`` nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import shortest_path

from ._base import GraphFeatures, label_name, node_raw_labels
from ._convert import GraphBatch
from ._labels import combine_codes, fit_codes, split_key, transform_codes
from .histograms import code_histogram
from .wl import initial_colours

__all__ = ["PathTriplets", "ShortestPath", "path_triplets"]


@dataclass(frozen=True)
class PathTriplets:
    """The ordered pairs of distinct, connected nodes of a graph batch and their distances.

    Attributes
    ----------
    u, v : ndarray of int64
        Global node ids, ``u != v``, grouped by graph.
    distance : ndarray of int64
        Number of edges on a shortest ``u``–``v`` path.
    """

    u: np.ndarray
    v: np.ndarray
    distance: np.ndarray


def path_triplets(batch: GraphBatch) -> PathTriplets:
    """All ordered pairs of distinct, connected nodes of ``batch`` and their distances.

    Parameters
    ----------
    batch : GraphBatch
        The disjoint union of the graphs (from ``kernelkit.graphs._convert.graph_batch``).

    Returns
    -------
    PathTriplets
        One entry per ordered pair ``(u, v)``, ``u != v``, joined by a path, graph by graph;
        empty arrays when no graph has such a pair.
    """
    us, vs, ds = [], [], []
    for g in range(batch.n_graphs):
        n = int(batch.sizes[g])
        if n < 2:
            continue
        D = shortest_path(batch.graph_adjacency(g), directed=False, unweighted=True)
        np.fill_diagonal(D, np.inf)
        u, v = np.nonzero(np.isfinite(D))
        off = int(batch.node_offsets[g])
        us.append(u + off)
        vs.append(v + off)
        ds.append(D[u, v].astype(np.int64))
    if not us:
        empty = np.empty(0, np.int64)
        return PathTriplets(empty, empty, empty)
    return PathTriplets(np.concatenate(us), np.concatenate(vs), np.concatenate(ds))


class ShortestPath(GraphFeatures):
    """Shortest-path kernel with node labels, as features (sparse triplet histograms).

    Parameters
    ----------
    normalize : bool, default=True
        Cosine normalisation of the rows.
    node_label : str or None, default="label"
        Node attribute (every node must have it); ``None`` uses the degree (as in the
        WL kernel).

    Attributes
    ----------
    uses_labels_ : bool
    node_vocabulary_ : Vocabulary
    max_distance_ : int
        The largest finite distance seen in ``fit`` (longer paths are unseen triplets).
    vocabulary_ : Vocabulary
        Of triplet keys.
    n_features_out_ : int

    Examples
    --------
    >>> import networkx as nx
    >>> sp = ShortestPath(normalize=False, node_label=None)
    >>> sp.fit_transform([nx.path_graph(3)]).toarray().tolist()  # degrees as labels
    [[2.0, 2.0, 2.0]]
    >>> sp.get_feature_names_out().tolist()
    ['path_degree=(1, 1, 2)', 'path_degree=(1, 2, 1)', 'path_degree=(2, 1, 1)']
    """

    def _counts(
        self, batch: GraphBatch, node_codes: np.ndarray, *, fit: bool
    ) -> tuple[sparse.csr_matrix, np.ndarray]:
        """Histograms of the ``(code u, code v, distance)`` keys; ``fit`` learns their codes."""
        paths = path_triplets(batch)
        if fit:
            self.max_distance_ = int(paths.distance.max()) if len(paths.distance) else 0
        k = len(self.node_vocabulary_)
        keys = combine_codes(
            [node_codes[paths.u], node_codes[paths.v], paths.distance],
            [k, k, self.max_distance_ + 1],
        )
        if fit:
            self.vocabulary_, codes = fit_codes(keys)
        else:
            codes = transform_codes(self.vocabulary_, keys)
        owner = batch.graph_of_node[paths.u]
        return code_histogram(codes, owner, batch.n_graphs, len(self.vocabulary_))

    def _fit_counts(self, batch: GraphBatch) -> tuple[sparse.csr_matrix, np.ndarray]:
        self.uses_labels_ = self.node_label is not None
        self.node_vocabulary_, node_codes = fit_codes(initial_colours(batch))
        return self._counts(batch, node_codes, fit=True)

    def _transform_counts(self, batch: GraphBatch) -> tuple[sparse.csr_matrix, np.ndarray]:
        raw = node_raw_labels(batch, self.uses_labels_)
        return self._counts(batch, transform_codes(self.node_vocabulary_, raw), fit=False)

    def _feature_names(self) -> list[str]:
        """``path_<node_label>=(<label u>, <label v>, <distance>)``."""
        nodes = [label_name(v) for v in self.node_vocabulary_.values.tolist()]
        sizes = [len(nodes), len(nodes), self.max_distance_ + 1]
        prefix = f"path_{self._label_prefix()}="
        names = []
        for key in self.vocabulary_.values.tolist():
            a, b, d = split_key(key, sizes)
            names.append(f"{prefix}({nodes[a]}, {nodes[b]}, {d})")
        return names
