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

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import shortest_path

from ._base import GraphFeatures, label_name, node_raw_labels
from ._convert import GraphBatch
from ._labels import combine_codes, fit_codes, split_key, transform_codes
from .histograms import code_histogram
from .wl import initial_colours

__all__ = ["ShortestPath", "path_triplets"]


def path_triplets(batch: GraphBatch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All ordered pairs of distinct, connected nodes and their distances.

    Returns
    -------
    u, v : ndarray of int64
        Global node ids, ``u != v``, grouped by graph.
    dist : ndarray of int64
        Number of edges on a shortest ``u``–``v`` path.
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
        return empty, empty, empty
    return np.concatenate(us), np.concatenate(vs), np.concatenate(ds)


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

    def __init__(self, *, normalize: bool = True, node_label: str | None = "label"):
        self.normalize = normalize
        self.node_label = node_label

    def _check_params(self) -> None:
        self._check_common()

    def _keys(self, batch: GraphBatch, node_codes: np.ndarray, triplets: tuple) -> np.ndarray:
        u, v, d = triplets
        k = len(self.node_vocabulary_)
        return combine_codes([node_codes[u], node_codes[v], d], [k, k, self.max_distance_ + 1])

    def _fit_counts(self, batch: GraphBatch) -> tuple[sparse.csr_matrix, np.ndarray]:
        self.uses_labels_ = self.node_label is not None
        self.node_vocabulary_, node_codes = fit_codes(initial_colours(batch))
        triplets = path_triplets(batch)
        self.max_distance_ = int(triplets[2].max()) if len(triplets[2]) else 0
        self.vocabulary_, codes = fit_codes(self._keys(batch, node_codes, triplets))
        owner = batch.graph_of_node[triplets[0]]
        return code_histogram(codes, owner, batch.n_graphs, len(self.vocabulary_))

    def _transform_counts(self, batch: GraphBatch) -> tuple[sparse.csr_matrix, np.ndarray]:
        raw = node_raw_labels(batch, self.uses_labels_)
        triplets = path_triplets(batch)
        keys = self._keys(batch, transform_codes(self.node_vocabulary_, raw), triplets)
        codes = transform_codes(self.vocabulary_, keys)
        owner = batch.graph_of_node[triplets[0]]
        return code_histogram(codes, owner, batch.n_graphs, len(self.vocabulary_))

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
