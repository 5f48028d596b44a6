"""Graph kernels: Weisfeiler–Lehman, vertex / edge histograms, shortest paths.

Graphs in are ``networkx.Graph`` objects (node attribute ``label``) or scipy sparse
adjacency matrices (optionally paired with a labels array); see
:mod:`kernelkit.graphs._convert`. Each concern lives in its own module, separately tested:

======================  ================================================================
``wl``                  colour refinement (Algorithm 1): ``wl_colours``,
                        ``wl_distinguishable``, the exact injective relabelling
``features``            transformers ``WeisfeilerLehman``, ``VertexHistogram``,
                        ``EdgeHistogram``; ``wl_kernel``
``shortest_path``       ``ShortestPath`` (labelled shortest-path triplets)
``histograms``          per-graph counting of codes (eq. 1.16)
``sparse_gram``         ``gram``: Gram matrices of sparse features (dense / sparse split)
``normalize``           ``normalize_gram``, ``normalize_rows`` (cosine normalisation)
``classify``            nested cross-validation with a precomputed-kernel SVM
``cli``                 ``kernelkit graph-classify``
======================  ================================================================
"""

from .classify import GraphCVResult, cross_validate_graphs, graph_grams
from .features import EdgeHistogram, VertexHistogram, WeisfeilerLehman, wl_kernel
from .normalize import normalize_gram, normalize_rows
from .shortest_path import ShortestPath
from .sparse_gram import gram
from .wl import wl_colours, wl_distinguishable

__all__ = [
    "EdgeHistogram",
    "GraphCVResult",
    "ShortestPath",
    "VertexHistogram",
    "WeisfeilerLehman",
    "cross_validate_graphs",
    "graph_grams",
    "gram",
    "normalize_gram",
    "normalize_rows",
    "wl_colours",
    "wl_distinguishable",
    "wl_kernel",
]
