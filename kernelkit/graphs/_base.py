"""The fit / transform contract shared by the graph feature transformers."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import check_bool

from ._convert import GraphBatch, check_attribute_name, graph_batch
from .normalize import normalize_rows

__all__ = ["GraphFeatures", "label_name"]


def label_name(value: Any) -> str:
    """A label as it appears in a feature name: ``repr`` of its Python value (``'C'``, 3)."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


class GraphFeatures(TransformerMixin, BaseEstimator):
    """Base class: graphs in, one sparse histogram row per graph out.

    ``fit`` learns the vocabularies (labels, colours, triplets) of the training graphs;
    ``transform`` maps new graphs into the same columns, ignoring what was not seen in
    ``fit`` except in each graph's own norm. With ``normalize=True`` every row is divided
    by ``sqrt(k(G, G))`` (see :mod:`kernelkit.graphs.normalize`), so ``X @ Y.T`` is the
    cosine-normalised kernel.

    Subclasses implement ``_fit_counts(batch)`` and ``_transform_counts(batch)``, each
    returning ``(counts, sq_norms)``, and may name their columns in ``_feature_names()``.
    The constructor takes ``normalize`` and ``node_label``; a subclass with more
    parameters stores them after ``super().__init__`` and checks them after
    ``super()._check_params()``.
    """

    def __init__(self, *, normalize: bool = True, node_label: str | None = "label"):
        self.normalize = normalize
        self.node_label = node_label

    def _check_params(self) -> None:
        check_bool(self.normalize, "normalize")
        check_attribute_name(self.node_label, "node_label")

    def _parse_node_label(self) -> str | None:
        """The node attribute to parse (``None``: degrees)."""
        return self.node_label  # type: ignore[no-any-return]

    def _parse(self, graphs: Any) -> GraphBatch:
        # edge labels are parsed only for transformers that have an edge_label parameter
        edge_label = getattr(self, "edge_label", None)
        return graph_batch(graphs, node_label=self._parse_node_label(), edge_label=edge_label)

    def fit(self, graphs: Any, y: Any = None) -> GraphFeatures:
        """Learn the feature vocabulary of ``graphs``.

        Parameters
        ----------
        graphs : list
            Undirected ``networkx.Graph`` objects (node attribute ``node_label``), scipy
            sparse or dense NumPy adjacency matrices, or ``(adjacency, labels)`` pairs.
            With ``node_label=None`` the degree is every node's label (Algorithm 1);
            otherwise every node of every graph must carry a label (a name that no node
            has is an error, not a silent switch to degrees).
        y : ignored

        Returns
        -------
        self
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

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the output columns.

        Parameters
        ----------
        input_features : None
            Graphs have no input features; only ``None`` is accepted (what a
            :class:`~sklearn.pipeline.Pipeline` passes to its first step).

        Returns
        -------
        ndarray of str objects, shape (n_features_out,)
            What each column counts where that is cheap to say (a label, a pair of
            labels, a path triplet, a WL iteration's colour number), else
            ``<classname><i>`` as scikit-learn's ``ClassNamePrefixFeaturesOutMixin``.
        """
        check_is_fitted(self, "n_features_out_")
        if input_features is not None:
            raise ValueError(
                "input_features must be None: graph transformers take graphs, which have "
                f"no input feature names (got {type(input_features).__name__})"
            )
        names = self._feature_names()
        return np.asarray(names, dtype=object)

    def _finish(self, counts: sparse.csr_matrix, sq_norms: np.ndarray) -> sparse.csr_matrix:
        return normalize_rows(counts, sq_norms) if self.normalize else counts.tocsr()

    def _feature_names(self) -> list[str]:
        prefix = type(self).__name__.lower()
        return [f"{prefix}{i}" for i in range(self.n_features_out_)]

    def _label_prefix(self) -> str:
        """What the fitted node codes stand for in feature names: the attribute or degree."""
        return "degree" if not self.uses_labels_ else str(self.node_label)

    # to be provided by subclasses
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
            f"the transformer was fitted on labelled nodes, but {name} were parsed without "
            "labels (node_label was changed after fit?); refit, or transform with the "
            "node_label used in fit"
        )
    return batch.labels
