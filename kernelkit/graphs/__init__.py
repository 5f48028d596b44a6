"""Graph kernels: Weisfeiler–Lehman, vertex / edge histograms, shortest paths.

Graphs in are ``networkx.Graph`` objects (node attribute ``label``) or scipy sparse
adjacency matrices (optionally paired with a labels array); see
:mod:`kernelkit.graphs._convert`. Labels are asked for by name (``node_label``,
``edge_label``): every node must carry the named label, and degrees are used only with
``node_label=None``. Labels are any hashable values, compared as Python compares them
(``1 == 1.0 == True``, ``2**53 + 1 != 2**53``), with all NaNs one label
(:mod:`kernelkit.graphs._labels`). Each concern lives in its own module, separately
tested:

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
``cli``                 ``kernelkit graph-classify`` (``register``, found by
                        :mod:`kernelkit.cli`)
======================  ================================================================

The names below are imported on first use (PEP 562), so that the command line can import
:mod:`kernelkit.graphs.cli` without loading networkx, SciPy and scikit-learn for every
command.
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "classify": [
            "GraphCVResult",
            "ParameterSelection",
            "cross_validate_graphs",
            "graph_grams",
            "select_parameters",
        ],
        "features": ["EdgeHistogram", "VertexHistogram", "WeisfeilerLehman", "wl_kernel"],
        "normalize": ["normalize_gram", "normalize_rows"],
        "shortest_path": ["ShortestPath"],
        "sparse_gram": ["gram"],
        "wl": ["wl_colours", "wl_distinguishable"],
    },
)
