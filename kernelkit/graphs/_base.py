"""The fit / transform contract shared by the graph feature transformers."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import check_in

from ._convert import GraphBatch, graph_batch
from .normalize import normalize_rows

__all__ = ["GraphFeatures"]


def _check_attribute_name(value: Any, name: str) -> None:
    """A node or edge attribute name: a str, or None."""
    if value is not None and not isinstance(value, str):
        raise TypeError(
            f"{name} must be an attribute name (str) or None, got {type(value).__name__}"
        )


class GraphFeatures(TransformerMixin, BaseEstimator):
    """Base class: graphs in, one sparse histogram row per graph out.

    ``fit`` learns the vocabularies (labels, colours, triplets) of the training graphs;
    ``transform`` maps new graphs into the same columns, ignoring what was not seen in
    ``fit`` except in each graph's own norm. With ``normalize=True`` every row is divided
    by ``sqrt(k(G, G))`` (see :mod:`kernelkit.graphs.normalize`), so ``X @ Y.T`` is the
    cosine-normalised kernel.

    Subclasses implement ``_check_params``, ``_fit_counts(batch)`` and
    ``_transform_counts(batch)``, each returning ``(counts, sq_norms)``.
    """

    def _check_common(self) -> None:
        check_in(self.normalize, "normalize", (True, False))
        _check_attribute_name(self.node_label, "node_label")

    def _parse(self, graphs: Any) -> GraphBatch:
        # edge labels are parsed only for transformers that have an edge_label parameter
        edge_label = getattr(self, "edge_label", None)
        return graph_batch(graphs, node_label=self.node_label, edge_label=edge_label)

    def fit(self, graphs: Any, y: Any = None) -> GraphFeatures:
        """Learn the feature vocabulary of ``graphs``.

        Parameters
        ----------
        graphs : list
            Undirected ``networkx.Graph`` objects (node attribute ``node_label``), scipy
            sparse or dense NumPy adjacency matrices, or ``(adjacency, labels)`` pairs.
            If no node of any graph carries a label, the degree is the label (Algorithm 1).
        y : ignored
        """
        self.fit_transform(graphs)
        return self

    def fit_transform(self, graphs: Any, y: Any = None) -> sparse.csr_matrix:
        """Fit on ``graphs`` and return their features, shape ``(n_graphs, n_features_out_)``."""
        self._check_params()
        counts, sq_norms = self._fit_counts(self._parse(graphs))
        self.n_features_out_ = counts.shape[1]
        return self._finish(counts, sq_norms)

    def transform(self, graphs: Any) -> sparse.csr_matrix:
        """Features of ``graphs`` in the fitted columns (unseen values ignored)."""
        check_is_fitted(self, "n_features_out_")
        self._check_params()
        counts, sq_norms = self._transform_counts(self._parse(graphs))
        return self._finish(counts, sq_norms)

    def _finish(self, counts: sparse.csr_matrix, sq_norms: np.ndarray) -> sparse.csr_matrix:
        return normalize_rows(counts, sq_norms) if self.normalize else counts.tocsr()

    # to be provided by subclasses
    def _check_params(self) -> None:  # pragma: no cover
        raise NotImplementedError

    def _fit_counts(self, batch: GraphBatch) -> tuple[sparse.csr_matrix, np.ndarray]:
        raise NotImplementedError  # pragma: no cover

    def _transform_counts(self, batch: GraphBatch) -> tuple[sparse.csr_matrix, np.ndarray]:
        raise NotImplementedError  # pragma: no cover


def node_raw_labels(batch: GraphBatch, uses_labels: bool, name: str = "graphs") -> np.ndarray:
    """Raw initial node colours for ``transform``: labels if ``fit`` used them, else degrees."""
    if not uses_labels:
        return batch.degrees
    if batch.labels is None:
        if batch.n_nodes == 0:
            return np.empty(0, dtype=np.int64)
        raise ValueError(
            f"the transformer was fitted on labelled nodes, but no node of {name} has a "
            "label; give every node a label (or fit on unlabelled graphs)"
        )
    return batch.labels
