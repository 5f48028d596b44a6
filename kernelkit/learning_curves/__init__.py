"""GP learning curves on random graphs (Urry & Sollich 2013).

The learning curve of GP regression on the vertices of a graph is the generalisation
error ``epsilon`` as a function of ``nu = N / V``, the number of examples per vertex
(inputs uniform over the vertices, so vertex ``i`` holds ``gamma_i ~ Poisson(nu)``
examples). In the matched case (teacher = student prior, true noise = assumed noise) it
is the Bayes error, the posterior variance averaged over vertices, data sets and graphs
(eq. 12).

=================  ================================================================
``simulation``     ``simulate``: numerically exact learning curves by sampling graphs
                   and data sets (matched, or teacher/student mismatch), with
                   standard errors and per-vertex errors (``LearningCurve``)
``eigen``          the eigenvalue approximation (eq. 18) on a graph's spectrum
                   (``eigenvalue_approximation``) and on the large-``V`` regular-tree
                   spectrum (eqs. 20-21: ``kesten_mckay_density``,
                   ``regular_tree_approximation``); the large-``p`` master curve
                   (eqs. 22-26: ``master_curve``, ``master_integral``)
``cavity_method``  the cavity method (Sec. 4): belief propagation on one graph
                   (``cavity_on_graph``, exact on trees) and population dynamics
                   over an ensemble (``cavity``)
=================  ================================================================

The names below are imported on first use (PEP 562).
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "simulation": ["LearningCurve", "simulate"],
        "eigen": [
            "eigenvalue_approximation",
            "kesten_mckay_density",
            "master_curve",
            "master_integral",
            "regular_tree_approximation",
        ],
        "cavity_method": ["CavityResult", "GraphCavityResult", "cavity", "cavity_on_graph"],
    },
)
