"""Structure learning: Gaussian graphical models (graphical lasso, neighbourhood selection), Ising.

``gaussian``
    ``graphical_lasso`` (scikit-learn's ``GraphicalLasso`` / ``GraphicalLassoCV``
    with ``alpha="cv"``, plus the graph), ``neighbourhood_selection`` (parallel
    lasso, AND / OR rules), ``GraphicalLassoResult``,
    ``NeighbourhoodSelectionResult``, ``EDGE_TOL``
``ising``
    ``ising_neighbourhood_selection`` (L1 logistic regression per node, data
    from ``kernelkit.pgm.sampling.gibbs_sample``), ``IsingSelectionResult``
``sampling``
    ``sample_gaussian_graphical`` (Cholesky of the precision),
    ``random_gaussian_graphical_model`` (random d-regular graph, diagonally
    dominant precision), ``GaussianGraphicalModel``

The names below are imported on first use (PEP 562).
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "gaussian": [
            "EDGE_TOL",
            "GraphicalLassoResult",
            "NeighbourhoodSelectionResult",
            "graphical_lasso",
            "neighbourhood_selection",
        ],
        "ising": ["IsingSelectionResult", "ising_neighbourhood_selection"],
        "sampling": [
            "GaussianGraphicalModel",
            "random_gaussian_graphical_model",
            "sample_gaussian_graphical",
        ],
    },
)
