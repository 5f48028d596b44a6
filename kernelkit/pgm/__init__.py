"""Discrete graphical models (Rowland 2018, Part I): models, inference, LP relaxations.

``model``
    ``DiscreteModel`` (variables with finite domains, log-potential factors of
    any arity), ``Factor``, ``FactorGroup``, ``ising``
``exact``
    ``exact_log_partition``, ``exact_marginals``, ``exact_map`` (variable
    elimination / junction tree, min-fill ordering), ``elimination_order``,
    brute-force references for small models
``belief_propagation``
    ``loopy_bp`` (sum- and max-product, log domain, damping, vectorised
    per factor group), ``double_loop`` (HAK double-loop on the Bethe free energy,
    convergent; ``double_loop_batch`` for many models of one factor graph),
    ``BeliefPropagationResult``
``variational``
    ``mean_field`` (naive mean field, a lower bound on log Z), ``MeanFieldResult``
``sampling``
    ``gibbs_sample`` (the library's Gibbs sampler; Ising fast path),
    ``GibbsResult``
``uai``
    ``read_uai``, ``write_uai``: the UAI competition file format (line-numbered
    ``UAIFormatError`` for malformed files; gzip, a byte order mark and comment lines read)
``uai_answers``
    ``read_evidence``, ``read_query``, ``apply_evidence`` (``ConditionedModel``), and the
    competition's result files: ``UAIAnswer``, ``write_answer``, ``read_answer``
``bounds``
    ``log_partition_bounds`` (weighted mini-bucket upper bound, mean-field and
    importance-sampling lower bounds: ``LogPartitionBounds``), ``map_bounds``
    (mini-bucket and LP upper bounds, decoded assignments: ``MAPBounds``)
``tasks``
    ``solve``: a UAI task (``PR``, ``MAR``, ``MAP``, ``MMAP``) with evidence, exact when
    the width fits, else anytime with bounds (``Solution``); ``InfeasibleModelError``
    for a model whose every assignment is forbidden
``parametrization``
    binary models in the even (pure-potential) and moment bases
    (Props. 2.10-2.11): ``to_even_basis``, ``from_even_basis``, ``to_moment_basis``,
    ``from_moment_basis``, ``BasisExpansion``; ``random_model`` and the scopes of the
    thesis's families (``complete_hypergraph_scopes``, ``toroidal_grid_scopes``)
``transforms``
    ``clamp``, ``flip``, ``uproot``, ``reroot`` (Defs. 1.16, 2.1, 2.2, 2.6) with
    maps back to the original model (``Rerooting``); heuristics ``reroot_scores``
    (eqs. 2.17-2.20) and ``auto_reroot``
``almost_balanced``
    exact MAP for almost balanced models (Ch. 3): ``almost_balanced_map``
    (clamp s, two L2 LPs), ``almost_balanced_lp_map`` (L3s, Thm 3.2(i)),
    ``random_almost_balanced_model``, ``AlmostBalancedMAP``
``relaxations``
    ``lp_relaxation``: LP relaxations for MAP with HiGHS (local polytope L2,
    triplet L3 and L3s, Sherali-Adams L_r), ``LPRelaxationResult``, ``LPSolverError``
``signings``
    signed graphs, resigning, ``signing_orbits`` (§4.4.2), ``find_gap`` /
    ``certify_tightness`` (L_r tightness per signing, §4.4), the graphs K5, O6, M8, Y5
``balance``
    attractive / repulsive edges, ``is_balanced``, ``frustrated_cycle``,
    ``balancing_flip``, ``almost_balanced_vertex`` (Def. 1.12, Def. 3.1)

The names below are imported on first use (PEP 562).
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "model": ["DiscreteModel", "Factor", "FactorGroup", "ising"],
        "uai": ["UAIFormatError", "read_uai", "write_uai"],
        "uai_answers": [
            "ConditionedModel",
            "UAIAnswer",
            "apply_evidence",
            "read_answer",
            "read_evidence",
            "read_query",
            "write_answer",
        ],
        "tasks": ["Solution", "solve"],
        "bounds": ["LogPartitionBounds", "MAPBounds", "log_partition_bounds", "map_bounds"],
        "_guards": ["InfeasibleModelError"],
        "belief_propagation": [
            "BeliefPropagationResult",
            "double_loop",
            "double_loop_batch",
            "loopy_bp",
        ],
        "variational": ["MeanFieldResult", "mean_field"],
        "sampling": ["GibbsResult", "gibbs_sample"],
        "exact": [
            "EliminationOrder",
            "MAPResult",
            "Marginals",
            "brute_force_log_partition",
            "brute_force_map",
            "brute_force_marginals",
            "elimination_order",
            "exact_log_partition",
            "exact_map",
            "exact_marginals",
        ],
        "parametrization": [
            "BasisExpansion",
            "THESIS_SCALES",
            "complete_hypergraph_scopes",
            "from_even_basis",
            "from_moment_basis",
            "random_model",
            "to_even_basis",
            "to_moment_basis",
            "toroidal_grid_scopes",
        ],
        "transforms": [
            "HEURISTICS",
            "Rerooting",
            "auto_reroot",
            "clamp",
            "flip",
            "reroot",
            "reroot_scores",
            "uproot",
        ],
        "relaxations": ["LEVELS", "LPRelaxationResult", "LPSolverError", "lp_relaxation"],
        "almost_balanced": [
            "AlmostBalancedMAP",
            "almost_balanced_lp_map",
            "almost_balanced_map",
            "random_almost_balanced_model",
        ],
        "signings": [
            "GapSearchResult",
            "SignedGraph",
            "SigningOrbits",
            "TightnessCertificate",
            "certify_tightness",
            "find_gap",
            "forbidden_minor_graphs",
            "octahedron_graph",
            "odd_complete_graph",
            "pentagonal_prism_graph",
            "relaxation_gap",
            "signing_orbits",
            "wagner_graph",
        ],
        "balance": [
            "almost_balanced_vertex",
            "attractive_edges",
            "balancing_flip",
            "edge_weights",
            "frustrated_cycle",
            "is_balanced",
            "repulsive_edges",
        ],
    },
)
