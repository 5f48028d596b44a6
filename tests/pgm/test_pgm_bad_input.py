"""Issue 28 §3 (items 5, 7, 10) and the audit of ``kernelkit.pgm`` for the same faults:
finite input of any magnitude gives a finite, correct result or a clear error naming the
argument; no hang, no deep exception, no silent NaN or inf.

* models that forbid every assignment: the approximate methods raise the exact methods'
  ValueError, and feasible models with hard zeros still work;
* log-potentials near ``1e308`` (and tiny ones), models without variables, factors without
  variables, variables with one value;
* wrong types (``None``) for the readers, writers and constructors; sizes beyond the machine.

Expected values come from enumeration by hand where the exact methods themselves warn
(they are not part of this file's fixes).
"""

from __future__ import annotations

import io
import math

import networkx as nx
import numpy as np
import pytest

from kernelkit.pgm import (
    DiscreteModel,
    LPSolverError,
    UAIFormatError,
    almost_balanced_map,
    attractive_edges,
    brute_force_map,
    brute_force_marginals,
    clamp,
    double_loop,
    double_loop_batch,
    edge_weights,
    exact_log_partition,
    exact_map,
    exact_marginals,
    from_even_basis,
    gibbs_sample,
    is_balanced,
    ising,
    loopy_bp,
    lp_relaxation,
    mean_field,
    read_uai,
    repulsive_edges,
    reroot,
    to_even_basis,
    to_moment_basis,
    write_uai,
)

NEG = -np.inf
EQ = [[0.0, NEG], [NEG, 0.0]]  # x_i == x_j
NEQ = [[NEG, 0.0], [0.0, NEG]]  # x_i != x_j

APPROXIMATE = {
    "loopy_bp": loopy_bp,
    "loopy_bp-max": lambda m: loopy_bp(m, mode="max"),
    "loopy_bp-sequential": lambda m: loopy_bp(m, schedule="sequential"),
    "double_loop": double_loop,
    "double_loop_batch": lambda m: double_loop_batch([m])[0],
    "mean_field": mean_field,
    "gibbs_sample": lambda m: gibbs_sample(m, 50, burn_in=10, random_state=0),
}


# -- item 5: every assignment forbidden ---------------------------------------------------------


def forbidden_models():
    rng = np.random.default_rng(0)
    return {
        # test_exact's all-forbidden model: x0 == x1 and x0 != x1 (each allows every value)
        "eq-and-neq": DiscreteModel(
            [2, 2, 3], [((0, 1), EQ), ((1, 0), NEQ), ((2,), rng.normal(size=3))]
        ),
        "all-inf-table": DiscreteModel([2, 2], [((0, 1), np.full((2, 2), NEG))]),
        "unary-forbids-all": DiscreteModel([2, 3], [((1,), [NEG] * 3), ((0, 1), np.zeros((2, 3)))]),
        # arc consistency empties a domain only through a chain of constraints
        "chain": DiscreteModel(
            [2, 2, 2, 2],
            [((0,), [NEG, 0.0]), ((0, 1), EQ), ((1, 2), EQ), ((2, 3), EQ), ((3,), [0.0, NEG])],
        ),
        "constant-inf": DiscreteModel([2], [((), NEG), ((0,), [0.0, 1.0])]),
    }


@pytest.mark.parametrize("method", sorted(APPROXIMATE))
@pytest.mark.parametrize("name", sorted(forbidden_models()))
def test_a_model_that_forbids_everything_raises_like_the_exact_methods(method, name):
    m = forbidden_models()[name]
    assert exact_log_partition(m) == -np.inf
    with pytest.raises(ValueError, match="every assignment is forbidden by its -inf entries"):
        exact_marginals(m)
    with pytest.raises(ValueError, match="every assignment is forbidden by its -inf entries"):
        APPROXIMATE[method](m)


def test_double_loop_batch_names_the_forbidding_model():
    ok = DiscreteModel([2, 2], [((0, 1), [[0.0, 1.0], [1.0, 0.0]])])
    bad = DiscreteModel([2, 2], [((0, 1), np.full((2, 2), NEG))])
    with pytest.raises(ValueError, match=r"models\[1\]: .*every assignment is forbidden"):
        double_loop_batch([ok, bad])


def test_forbidding_found_by_the_methods_own_computation():
    # the odd cycle of x_i != x_j: infeasible, yet every value keeps a support (arc
    # consistency cannot tell); mean field and Gibbs find no assignment of positive
    # probability and say so instead of returning marginals of forbidden assignments
    m = DiscreteModel([2, 2, 2], [((0, 1), NEQ), ((1, 2), NEQ), ((2, 0), NEQ)])
    assert exact_log_partition(m) == -np.inf
    with pytest.raises(ValueError, match="found no assignment of positive probability"):
        mean_field(m, max_iter=50)
    with pytest.raises(ValueError, match="found no assignment of positive probability"):
        gibbs_sample(m, 20, burn_in=5, random_state=0)


def test_lp_relaxation_of_a_forbidding_model_says_so():
    m = forbidden_models()["all-inf-table"]
    with pytest.raises(LPSolverError, match="every assignment is forbidden") as info:
        lp_relaxation(m)
    assert info.value.status == 2
    # a model without variables whose constant is -inf
    with pytest.raises(LPSolverError, match="every assignment is forbidden"):
        lp_relaxation(DiscreteModel([], [((), NEG)]))


def feasible_hard_models():
    xor = np.where(np.indices((2, 2, 2)).sum(axis=0) % 2 == 1, 0.0, NEG)  # odd parity
    return {
        "eq-with-field": DiscreteModel([2, 2], [((0, 1), EQ), ((0,), [0.0, 1.0])]),
        "xor3": DiscreteModel([2, 2, 2], [((0, 1, 2), xor), ((0,), [0.0, 0.3]), ((1,), [0, -0.2])]),
        "chain-eq": DiscreteModel(
            [2] * 5, [((i, i + 1), EQ) for i in range(4)] + [((0,), [0, 0.5]), ((4,), [1.0, 0])]
        ),
        "forced-value": DiscreteModel(
            [3, 3], [((0,), [NEG, 0.0, NEG]), ((0, 1), [[0, 1, 2], [2, NEG, 0], [1, 1, 1]])]
        ),
        "one-state": DiscreteModel([1, 2], [((0, 1), [[NEG, 0.3]])]),
    }


@pytest.mark.parametrize("name", sorted(feasible_hard_models()))
def test_feasible_models_with_hard_zeros_still_work(name):
    m = feasible_hard_models()[name]
    ref = brute_force_marginals(m)
    assert np.isfinite(ref.log_partition)
    # trees (BP is exact there) and small loops: BP and the double loop agree with exact
    for f in (loopy_bp, double_loop):
        r = f(m)
        assert r.log_partition == pytest.approx(ref.log_partition, abs=1e-6)
        for a, b in zip(r.marginals, ref.marginals, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-6)
    r = loopy_bp(m, mode="max")
    assert r.score == pytest.approx(brute_force_map(m).score)
    # mean field: a finite lower bound, marginals on allowed values only
    mf = mean_field(m)
    assert np.isfinite(mf.lower_bound) and mf.lower_bound <= ref.log_partition + 1e-9
    for q, p in zip(mf.marginals, ref.marginals, strict=True):
        assert np.all(q[p == 0] == 0)
    # Gibbs from random starts: never a sample of probability 0
    for seed in range(3):
        g = gibbs_sample(m, 200, burn_in=20, random_state=seed)
        assert np.all(np.isfinite(m.score(g.samples)))


def test_mean_field_with_determinism_finds_a_point_of_positive_probability():
    # from the uniform start every value of x_0 meets forbidden mass (x_1 is uniform): the
    # old update kept q uniform (lower bound -inf); now the bound is finite and tight
    m = DiscreteModel([2, 2], [((0, 1), EQ)])
    r = mean_field(m)
    assert r.converged and r.lower_bound == pytest.approx(0.0)  # a point mass on (a, a)
    assert r.marginals[0].tolist() == r.marginals[1].tolist()


# -- item 7: magnitude ---------------------------------------------------------------------------


def test_mean_field_scores_of_1e308_give_the_exact_marginals():
    # the example: scores +-1e308, exact and BP give 0.5; mean field gave NaN
    m = DiscreteModel([2, 2], [((0, 1), [[1e308, -1e308], [-1e308, 1e308]])])
    r = mean_field(m)
    assert r.converged and np.isfinite(r.lower_bound)
    for p in r.marginals:
        np.testing.assert_array_equal(p, [0.5, 0.5])
    assert r.lower_bound <= 1e308 + math.log(2)  # log Z
    # the same through the Ising parametrisation (its fields and couplings overflow)
    m = ising(nx.path_graph(2), couplings=1e308, spins="pm1")
    for f in (mean_field, loopy_bp, double_loop):
        r = f(m)
        for p in r.marginals:
            np.testing.assert_array_equal(p, [0.5, 0.5])


def test_huge_scores_with_a_unique_top_give_point_masses():
    a = 5e307  # scores stay within float64: at most 1.5e308
    T = [[a, -a], [-a, a]]
    m = DiscreteModel([2, 2, 2], [((0, 1), T), ((1, 2), T), ((0,), [0.0, 1e300])])
    top = np.array([1, 1, 1])  # the only assignment of score 2a + 1e300
    for f in (mean_field, loopy_bp, double_loop, lambda m: loopy_bp(m, mode="max")):
        r = f(m)
        for v, p in enumerate(r.marginals):
            np.testing.assert_array_equal(p, np.eye(2)[top[v]])
    assert np.all(gibbs_sample(m, 50, burn_in=5, random_state=0).samples == top)
    assert loopy_bp(m).log_partition == pytest.approx(2 * a + 1e300, rel=1e-15)
    assert mean_field(m).lower_bound == pytest.approx(2 * a + 1e300, rel=1e-15)


def test_bp_factor_beliefs_stay_normalised_at_huge_magnitude():
    m = DiscreteModel([2, 2], [((0, 1), [[1e308, -1e308], [-1e308, 1e308]])])
    for r in (loopy_bp(m), double_loop(m)):
        b = r.factor_marginals[0]
        assert b.sum() == pytest.approx(1.0)
        np.testing.assert_allclose(b, [[0.5, 0.0], [0.0, 0.5]])
        assert r.log_partition == 1e308  # + log 2, below float64's spacing there


def test_log_z_beyond_float64_is_a_clear_error():
    # the score of (1, 1) is 3e308: log Z is not a float64
    big = [[0.0, 0.0], [0.0, 1e308]]
    m = DiscreteModel([2, 2], [((0,), [0.0, 1e308]), ((1,), [0.0, 1e308]), ((0, 1), big)])
    for f in (loopy_bp, mean_field):
        with pytest.raises(ValueError, match="beyond the float64 range"):
            f(m)
    # +-1e308 couplings on a chain, scores up to 3e308: the double loop's arithmetic
    # overflows to NaN (a RuntimeWarning, then NaN marginals before)
    T = [[1e308, -1e308], [-1e308, 1e308]]
    chain = DiscreteModel([2, 2, 2], [((0, 1), T), ((1, 2), T), ((0,), [0.0, 1e308])])
    with pytest.raises(ValueError, match="too large in magnitude"):
        double_loop(chain)
    with pytest.raises(ValueError, match="beyond the float64 range"):
        m.score([1, 1])


def test_score_adds_huge_entries_without_overflow_or_nan():
    m = DiscreteModel([2], [((0,), [1e308, 0.0]), ((0,), [1e308, 0.0]), ((0,), [-1e308, 0.0])])
    assert m.score([0]) == 1e308  # partial sum 2e308 overflowed before
    m = DiscreteModel([2], [((0,), [1e308, 0.0]), ((0,), [1e308, 0.0]), ((0,), [NEG, 0.0])])
    assert m.score([0]) == -np.inf  # was NaN (inf + -inf)
    m = DiscreteModel([2], [((0,), [1e308, 0.0]), ((0,), [1e308, 0.0])])
    with pytest.raises(ValueError, match="score of x is beyond the float64 range"):
        m.score([0])


def test_tiny_log_potentials():
    for tiny in (1e-300, 5e-324):
        m = DiscreteModel([2, 2], [((0, 1), [[tiny, 0.0], [0.0, tiny]]), ((0,), [0.0, tiny])])
        ref = exact_marginals(m)
        for f in (mean_field, loopy_bp, double_loop):
            for a, b in zip(f(m).marginals, ref.marginals, strict=True):
                np.testing.assert_allclose(a, b, atol=1e-15)


def test_lp_relaxations_of_huge_potentials():
    m = DiscreteModel([2, 2], [((0, 1), [[1e308, -1e308], [-1e308, 1e308]])])
    for level, kw in (("L2", {}), ("L3", {}), ("SA", {"r": 2}), ("L3s", {"s": 0})):
        r = lp_relaxation(m, level, **kw)  # HiGHS failed (costs above 1e20) or L3 overflowed
        assert r.value == 1e308 and r.is_integral
        assert m.score(r.assignment) == 1e308
    assert almost_balanced_map(m).score == 1e308


def test_balance_of_huge_potentials_decides_the_signs():
    m = DiscreteModel(
        [2, 2, 2], [((0, 1), [[1e308, -1e308], [-1e308, 1e308]]), ((1, 2), [[0, 1.0], [1.0, 0]])]
    )
    assert attractive_edges(m) == [(0, 1)] and repulsive_edges(m) == [(1, 2)]
    assert is_balanced(m)
    with pytest.raises(ValueError, match=r"edge \(0, 1\) is beyond the float64 range"):
        edge_weights(m)


def test_basis_expansions_beyond_float64_are_clear_errors():
    m = DiscreteModel([2, 2], [((0, 1), [[1e308, -1e308], [-1e308, 1e308]])])
    for f in (to_even_basis, to_moment_basis, reroot_scores_of):
        with pytest.raises(ValueError, match=r"factors\[0\].*beyond the float64 range"):
            f(m)


def reroot_scores_of(m):
    return reroot(m, 0)


def test_clamp_and_from_even_basis_keep_huge_constants_apart():
    # clamping X_0 leaves the constant 1e308; folded into the first factor it overflowed
    m = DiscreteModel([2, 2], [((0,), [1e308, 0.0]), ((1,), [1e308, 0.0]), ((1,), [-1e308, 0.0])])
    c = clamp(m, 0, 0)
    np.testing.assert_array_equal(c.score([[0], [1]]), [1e308, 1e308])
    m = DiscreteModel([2], [((0,), [1e308, 0.0]), ((0,), [1e308, 0.0])])  # constant 2e308
    with pytest.raises(ValueError, match="constant beyond the float64 range"):
        clamp(m, 0, 0)
    b = from_even_basis({(0, 1): 1e308}, constant=-1e308)
    np.testing.assert_array_equal(b.score([[0, 0], [0, 1]]), [0.0, -1e308])


# -- item 7: models without variables and other degenerate shapes --------------------------------


@pytest.mark.parametrize("constant", [None, 3.0])
def test_a_model_without_variables_is_handled_as_the_exact_methods_do(constant):
    factors = [] if constant is None else [((), constant)]
    m = DiscreteModel([], factors)
    log_z = 0.0 if constant is None else constant
    # the reference: log Z = the constant, no marginals, the empty MAP assignment
    assert exact_log_partition(m) == log_z
    assert exact_marginals(m).marginals == []
    assert exact_map(m).assignment.shape == (0,) and exact_map(m).score == log_z
    for f in (loopy_bp, double_loop, lambda m: loopy_bp(m, schedule="sequential")):
        r = f(m)
        assert r.marginals == [] and r.log_partition == log_z and r.converged
    r = loopy_bp(m, mode="max")
    assert r.assignment.shape == (0,) and r.score == log_z  # the score was 0.0
    r = mean_field(m)  # IndexError before
    assert r.marginals == [] and r.lower_bound == log_z and r.converged
    g = gibbs_sample(m, 4, random_state=0)
    assert g.samples.shape == (4, 0) and g.marginals == []
    for level in ("L2", "L3"):  # "model has no variables" before
        lp = lp_relaxation(m, level)
        assert lp.value == log_z and lp.is_integral and lp.assignment.shape == (0,)
        assert lp.pseudomarginals == () and len(lp.factor_marginals) == len(m.factors)
    # r = 1 > n = 0 and no vertex to distinguish: clear errors, as documented
    with pytest.raises(ValueError, match="number of variables"):
        lp_relaxation(m, "SA", r=1)
    with pytest.raises(ValueError, match="has none"):
        lp_relaxation(m, "L3s", s=0)
    with pytest.raises(ValueError, match="no variables"):
        almost_balanced_map(m)
    with pytest.raises(ValueError, match="has none"):
        clamp(m, 0, 0)


def test_factors_without_variables_in_every_method():
    m = DiscreteModel([2, 3], [((), 5.0), ((0, 1), [[0.0, 1.0, 2.0], [1.0, 0.0, NEG]])])
    ref = brute_force_marginals(m)
    for f in (loopy_bp, double_loop):  # a tree: exact (StopIteration before)
        r = f(m)
        for a, b in zip(r.marginals, ref.marginals, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-6)
    assert double_loop(m).log_partition == pytest.approx(ref.log_partition)
    assert double_loop(m).factor_marginals[0] == 1.0
    x = DiscreteModel([2], [((), 5.0), ((0,), [0.0, 1.0])])  # mean field is exact here
    assert mean_field(x).lower_bound == pytest.approx(5.0 + math.log(1 + math.e))  # IndexError
    assert mean_field(m).lower_bound <= ref.log_partition
    g = gibbs_sample(x, 2000, burn_in=10, random_state=0)  # IndexError before (Ising path)
    assert abs(g.marginals[0][1] - math.e / (1 + math.e)) < 0.05


def test_variables_with_one_value():
    m = DiscreteModel([1, 1, 2], [((0, 1), [[2.0]]), ((1, 2), [[0.0, 1.0]])])
    ref = exact_marginals(m)
    for f in (loopy_bp, double_loop, mean_field):
        r = f(m)
        for a, b in zip(r.marginals, ref.marginals, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-8)
    assert np.all(gibbs_sample(m, 10, random_state=0).samples[:, :2] == 0)


# -- item 10 and the audit: wrong types, readers and writers -------------------------------------


@pytest.mark.parametrize("source", [None, 5, b"MARKOV\n1\n2\n0\n", 2.5])
def test_read_uai_wrong_type_names_source(source):
    with pytest.raises(TypeError, match="source must be a path"):
        read_uai(source)


def test_read_uai_binary_stream_names_source():
    with pytest.raises(TypeError, match="source must be a text file"):
        read_uai(io.BytesIO(b"MARKOV\n1\n2\n0\n"))


@pytest.mark.parametrize("target", [None, 5, 2.5])
def test_write_uai_wrong_type_names_target(target):
    m = DiscreteModel([2], [((0,), [0.0, 1.0])])
    with pytest.raises(TypeError, match="target must be a path"):
        write_uai(m, target)
    with pytest.raises(TypeError, match="target must be a text file"):
        write_uai(m, io.BytesIO())


@pytest.mark.parametrize("theta", [1000.0, -1000.0])
def test_write_uai_refuses_potentials_float64_cannot_hold(theta):
    # exp(1000) overflowed to inf (unreadable); exp(-1000) was written as 0, read back -inf
    m = DiscreteModel([2], [((0,), [0.0, 1.0]), ((0,), [theta, 0.0])])
    with pytest.raises(ValueError, match=r"model.factors\[1\] has the log-potential"):
        write_uai(m, io.StringIO())


def test_uai_round_trip_of_a_model_without_variables():
    out = io.StringIO()
    write_uai(DiscreteModel([], [((), 2.0)]), out)
    back = read_uai(io.StringIO(out.getvalue()))
    assert back.n_variables == 0 and exact_log_partition(back) == pytest.approx(2.0)


def test_read_uai_huge_cardinalities_do_not_wrap_around():
    # 2**32 * 2**32 wrapped to 0 in int64, matching the file's 0 entries
    text = "MARKOV\n2\n4294967296 4294967296\n1\n2 0 1\n0\n"
    with pytest.raises(UAIFormatError, match="18446744073709551616 entries, but the file says 0"):
        read_uai(io.StringIO(text))


def test_model_constructor_wrong_types_name_the_argument():
    with pytest.raises(TypeError, match="cardinalities must be a sequence"):
        DiscreteModel(None, [])
    with pytest.raises(TypeError, match="cardinalities must be a sequence"):
        DiscreteModel.from_factors(None, {})
    with pytest.raises(TypeError, match="factors must be an iterable"):
        DiscreteModel([2], None)
    with pytest.raises(TypeError, match="from_factors takes a mapping"):
        DiscreteModel([2], {(0,): [0.0, 1.0]})
    with pytest.raises(TypeError, match=r"factors\[0\]: the table must be an array"):
        DiscreteModel([2], [((0,), None)])


@pytest.mark.parametrize(
    ("card", "match"),
    [
        (np.inf, "NaN or infinity"),  # a RuntimeWarning from the integer cast before
        (np.nan, "NaN or infinity"),
        (1e20, r"cardinalities\[1\] = 1e\+20 is too large"),  # RuntimeWarning before
        (2**70, r"cardinalities\[1\] = 1180591620717411303424 is outside"),  # "dtype object"
        (-(2**70), r"cardinalities\[1\] = -1180591620717411303424 is outside"),
    ],
)
def test_cardinalities_out_of_range_are_clear_errors(card, match):
    with pytest.raises((TypeError, ValueError), match=match):
        DiscreteModel([2, card], [])


def test_per_variable_arrays_beyond_the_machine_are_refused():
    # one variable with 2**62 values: (n, K) arrays could never be allocated
    m = DiscreteModel([2**62, 2, 2], [((1, 2), [[0.0, 1.0], [1.0, 0.0]])])
    for f in (loopy_bp, double_loop, mean_field, lambda m: gibbs_sample(m, 3)):
        with pytest.raises(ValueError, match="memory"):
            f(m)


# -- the audit: sizes beyond the machine, more wrong types, more magnitudes ----------------------


def test_sizes_beyond_the_machine_are_refused_before_allocation():
    from kernelkit.pgm import (
        complete_hypergraph_scopes,
        odd_complete_graph,
        random_model,
        toroidal_grid_scopes,
    )

    huge = [
        lambda: odd_complete_graph(10**6),  # built K_n: 5e11 networkx edges, killed
        lambda: complete_hypergraph_scopes(10**4),  # 4e14 tuples
        lambda: toroidal_grid_scopes(10**5),  # 8e10 tuples
        lambda: from_even_basis({}, 10**12),  # [2] * 10**12
        lambda: random_model([(0, 1)], {2: 1.0}, n_variables=10**12),
        lambda: DiscreteModel(np.broadcast_to(np.int64(2), (10**11,)), []),
        lambda: gibbs_sample(ising(nx.path_graph(2000)), 10**9),  # samples (1e9, 2000)
    ]
    for make in huge:
        with pytest.raises(ValueError, match="memory"):
            make()


def test_more_wrong_types_name_the_argument():
    from kernelkit.pgm import random_model, uproot

    with pytest.raises(TypeError, match="hyperedges must be a sequence"):
        random_model(None, {2: 1.0})
    r = uproot(ising(nx.path_graph(2)))
    with pytest.raises(TypeError, match="log_z must be a number"):
        r.to_original_log_partition(None)
    with pytest.raises(TypeError, match="scope must be a sequence"):
        r.to_original_marginal(None, None)
    with pytest.raises(TypeError, match="marginals must be a sequence"):
        r.marginals_from_beliefs(None, None)


def test_signing_orbits_of_a_graph_without_edges():
    from kernelkit.pgm import signing_orbits

    for G in (nx.Graph(), nx.empty_graph(3)):  # "cannot reshape array of size 0" before
        orbits = signing_orbits(G)
        assert len(orbits) == 1 and orbits.n_classes == 1


@pytest.mark.parametrize("scale", [5e-324, 1e-300, 1e-10])
def test_lp_relaxations_of_tiny_potentials_are_upper_bounds(scale):
    # HiGHS's tolerances (about 1e-7) made it return a non-optimal vertex: LP < MAP
    from kernelkit.pgm import odd_complete_graph, relaxation_gap

    phi = np.random.default_rng(0).uniform(-1, 1, 10) * scale
    lp, map_score = relaxation_gap(odd_complete_graph(4), phi, 3)
    assert lp >= map_score and lp == pytest.approx(map_score, rel=1e-9)


def test_beliefs_that_overflow_are_not_called_forbidden():
    # no -inf entry, but both scores are -2e308: the sums of messages overflow
    m = DiscreteModel([2], [((0,), [0.0, -1e308])] * 2 + [((0,), [-1e308, 0.0])] * 2)
    for f in (loopy_bp, double_loop):
        with pytest.raises(ValueError, match="too large in magnitude"):
            f(m)
    # Gibbs works in scaled units: both values have the same conditional probability
    g = gibbs_sample(m, 4000, burn_in=0, random_state=0)
    assert abs(g.marginals[0][0] - 0.5) < 0.05
