"""Geometric tools (Vempala 1997): outlier removal, perceptrons, half-spaces, LSI, lattice points.

``outliers``
    ``remove_outliers`` by iterative whitening with an exact certificate
    (Ch. 2, Thm 2), ``OutlierRemovalResult``
``perceptrons``
    ``Perceptron`` (§2.3.2) and ``ModifiedPerceptron`` (§2.3.3, Thm 5),
    scikit-learn classifiers
``halfspaces``
    ``NoisyHalfspaceLearner`` (§2.3.4, Thm 3: outlier removal, whitening,
    modified perceptron, thick hyperplanes boosted into a decision list),
    ``HalfspaceStage``
``intersections``
    ``HalfspaceIntersectionClassifier``: intersections of a few half-spaces
    (Ch. 3: dual cone, relevant subspace, grid, greedy set cover)
``latent_semantic``
    ``lsi`` (rank-k LSI of a terms x documents matrix, Ch. 4),
    ``random_projection_lsi`` (§4.4), ``project_terms``
``corpus``
    ``generate_corpus`` (the §4.2 corpus model; pure and ε-separable),
    ``SyntheticCorpus``
``polytopes``
    ``Polytope`` {x : Ax <= b} with emptiness / boundedness checks, builders
    for contingency tables, s-t flows, b-matchings and simplices,
    ``enumerate_lattice_points`` (exact, small cases)
``lattice``
    ``hit_and_run``, ``randomised_rounding``, ``enlarge_polytope``,
    ``estimate_volume`` (multiphase Monte Carlo), ``sample_lattice_points``,
    ``count_lattice_points``
    (Ch. 5, Thms 13-15) and their results

The names below are imported on first use (PEP 562).
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "outliers": ["OutlierRemovalResult", "remove_outliers"],
        "perceptrons": ["ModifiedPerceptron", "Perceptron"],
        "halfspaces": ["HalfspaceStage", "NoisyHalfspaceLearner"],
        "intersections": ["HalfspaceIntersectionClassifier"],
        "latent_semantic": ["lsi", "project_terms", "random_projection_lsi"],
        "corpus": ["SyntheticCorpus", "generate_corpus"],
        "polytopes": [
            "Polytope",
            "b_matching_polytope",
            "complete_contingency_table",
            "contingency_table_polytope",
            "enumerate_lattice_points",
            "flow_polytope",
            "simplex_polytope",
        ],
        "lattice": [
            "LatticeCount",
            "LatticeSample",
            "VolumeEstimate",
            "count_lattice_points",
            "enlarge_polytope",
            "estimate_volume",
            "hit_and_run",
            "randomised_rounding",
            "sample_lattice_points",
        ],
    },
)
