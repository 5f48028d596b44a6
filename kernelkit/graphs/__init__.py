"""Graph kernels: Weisfeiler–Lehman, vertex / edge histograms, shortest paths; kernels on
the vertices of a graph (random walk, diffusion, Laplacian polynomials); random graph
ensembles.

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
``adjacency``           one graph's adjacency, degrees and Laplacians (checked: symmetric,
                        non-negative, no self-loops)
``vertex_kernels``      random walk (Urry & Sollich eqs. 2-3), diffusion (eq. 1) and
                        Laplacian-polynomial kernels on vertices: dense, operator, diagonal
``trees``               ``regular_tree_kernel``: the random walk kernel on the infinite
                        d-regular tree (eqs. 4, 5, 47-48)
``gp``                  ``GraphGP``: GP regression on the vertices of a graph
``ensembles``           random graph ensembles (regular, Erdős–Rényi, Britton et al.
                        generalised random graph, configuration model), ``DegreeDistribution``
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
        "adjacency": [
            "adjacency_matrix",
            "degrees",
            "laplacian",
            "normalized_adjacency",
            "normalized_laplacian",
        ],
        "vertex_kernels": [
            "MAX_DENSE_VERTICES",
            "NotPSDWarning",
            "SingularKernelWarning",
            "diffusion_diagonal",
            "diffusion_kernel",
            "diffusion_operator",
            "laplacian_polynomial",
            "laplacian_polynomial_operator",
            "random_walk_coefficients",
            "random_walk_diagonal",
            "random_walk_kernel",
            "random_walk_operator",
        ],
        "trees": ["regular_tree_kernel"],
        "gp": ["GraphGP"],
        "ensembles": [
            "DegreeDistribution",
            "configuration_graph",
            "erdos_renyi_graph",
            "generalized_random_graph",
            "random_regular_graph",
        ],
    },
)
