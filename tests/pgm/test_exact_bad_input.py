"""Issue 28, the exact methods (``kernelkit.pgm.exact`` and its transfer-matrix path):
finite input of any magnitude gives a finite, correct result or a clear error naming
the argument; no hang, no deep exception, no silent NaN or inf; sizes beyond the machine
are refused up front.

* log-potentials near ``1e308``: the same values as enumeration, and no RuntimeWarning
  (overflow in a difference, in a partial sum of a clique table, in the transfer path);
  marginals that keep the count of tied top assignments at any magnitude (both exact and
  enumeration normalised by a log Z that had absorbed it);
* ``log Z`` or a MAP score beyond the float64 range: a ValueError, not ``inf`` (nor a
  ``-inf`` that passes for "every assignment is forbidden");
* the elimination orderings without a dense ``n x n`` matrix, their memory estimated and
  refused up front, the orderings themselves unchanged;
* the audit: the wording of the errors, brute-force enumeration of huge models, models
  without variables, variables with one value, huge cardinalities.

The expected values come from enumeration (``brute_force_*``) or by hand.
"""

from __future__ import annotations

import math
import tracemalloc
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import networkx as nx
import numpy as np
import pytest

import kernelkit._memory
import kernelkit.pgm._transfer as transfer
import kernelkit.pgm.exact as exact_module
from kernelkit.pgm import DiscreteModel, ising
from kernelkit.pgm.exact import (
    brute_force_log_partition,
    brute_force_map,
    brute_force_marginals,
    elimination_order,
    exact_log_partition,
    exact_map,
    exact_marginals,
)

A = 1e308
NEG = -np.inf


@contextmanager
def no_runtime_warning() -> Iterator[None]:
    """Every RuntimeWarning is an error (whatever module numpy attributes it to)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


def pm1_grid(rows, cols, couplings, fields=0.0):
    """An Ising grid built row by row (a layered model: the transfer-matrix path)."""
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(rows, cols))
    return ising(G, fields=fields, couplings=couplings, spins="pm1")


# -- item 1: log-potentials near 1e308 ---------------------------------------------------------


def huge_models():
    rng = np.random.default_rng(28)
    signs = rng.choice([-1.0, 1.0], size=12)
    return {
        # the audit's example: exact values, but overflow warnings in every exact method
        "pair": DiscreteModel([2, 2], [((0, 1), [[A, -A], [-A, A]])]),
        # three top assignments: p(x_0 = 0) = p(x_1 = 0) = 2/3
        "three-tops": DiscreteModel([2, 2], [((0, 1), [[A, A], [A, -A]])]),
        # a partial sum of the clique table (A + A) overflowed before the -A came
        "cancelling": DiscreteModel([2], [((0,), [A, 0.0])] * 2 + [((0,), [-A, 0.0])]),
        "hard-constraints": DiscreteModel(
            [2, 2, 3],
            [
                ((0, 1), [[A, NEG], [A, -A]]),
                ((1, 2), [[-A, 0.0, NEG], [NEG, -A, 0.0]]),
                ((2,), [0.0, A / 2, -A / 2]),
            ],
        ),
        "arity-3": DiscreteModel(
            [2, 3, 2],
            [
                ((0, 1, 2), np.where(np.indices((2, 3, 2)).sum(axis=0) % 2 == 0, A / 4, -A)),
                ((2, 0), [[A / 2, -A / 2], [0.0, A / 2]]),
            ],
        ),
        # layered (a row-by-row grid): the transfer-matrix path used to take it; |score|
        # <= 12 * A / 8; flip symmetry: every marginal is uniform
        "grid": pm1_grid(3, 3, signs * (A / 8)),
        # the same with a field that breaks the symmetry: point masses
        "grid-field": pm1_grid(3, 3, signs * (A / 16), fields=np.r_[A / 16, np.zeros(8)]),
        # one variable with one value, a constant factor, a free variable
        "degenerate": DiscreteModel(
            [1, 2, 3, 2], [((), -A / 2), ((0, 1), [[A, -A]]), ((1,), [-A, A / 2])]
        ),
    }


@pytest.mark.parametrize("name", sorted(huge_models()))
def test_log_potentials_near_1e308_match_enumeration_without_warnings(name):
    m = huge_models()[name]
    with no_runtime_warning():
        ref_z = brute_force_log_partition(m)
        ref = brute_force_marginals(m)
        ref_map = brute_force_map(m)
        log_z = exact_log_partition(m)
        r = exact_marginals(m)
        x = exact_map(m)
    assert np.isfinite(ref_z) and abs(ref_z) > 1e306
    assert log_z == pytest.approx(ref_z, rel=1e-14)
    assert r.log_partition == pytest.approx(ref_z, rel=1e-14)
    assert ref.log_partition == pytest.approx(ref_z, rel=1e-15)
    for p, q in zip(r.marginals, ref.marginals, strict=True):
        np.testing.assert_allclose(p, q, atol=1e-12)
    assert x.score == pytest.approx(ref_map.score, rel=1e-14)
    assert x.score == m.score(x.assignment)  # (exact_map's score is model.score's)


@pytest.mark.parametrize("a", [1e20, 1e300, A])
def test_marginals_of_huge_ties_count_the_top_assignments(a):
    # three top assignments: p(x_0 = 0) = 2/3; normalised by log Z = a + log 3, which is
    # a in float64 (as a + log 2 is), the marginals came out uniform, enumeration's too
    m = DiscreteModel([2, 2], [((0, 1), [[a, a], [a, -a]])])
    with no_runtime_warning():
        for r in (exact_marginals(m), brute_force_marginals(m)):
            for p in r.marginals:
                np.testing.assert_allclose(p, [2 / 3, 1 / 3], atol=1e-12)
            assert r.log_partition == a  # + log 3, below float64's spacing there
        g = exact_marginals(huge_models()["grid"])
    for p in g.marginals:
        np.testing.assert_allclose(p, [0.5, 0.5], atol=1e-12)


@pytest.mark.parametrize("big", [1e298, 1e307, A])
def test_the_transfer_path_leaves_huge_grids_to_the_scaled_elimination(big):
    # one coupling ``big`` in a grid of 0.5s, 21 factors: below 2**1000 / 32 (about
    # 6.7e299) the transfer matrices are exact as they are; beyond, they hand the model
    # back (at 1e308 their differences overflowed: a RuntimeWarning)
    couplings = np.full(12, 0.5)
    couplings[4] = big
    m = pm1_grid(3, 3, couplings)
    with no_runtime_warning():
        plan = transfer.transfer_plan(m, 10**9)
        got = transfer.transfer_log_partition(m, plan)
        log_z = exact_log_partition(m)
        ref = brute_force_log_partition(m)
    assert (got is None) == (big > 1e299)
    assert log_z == pytest.approx(ref, rel=1e-14)
    if got is not None:
        assert got == pytest.approx(ref, rel=1e-14)


def test_large_but_safe_magnitudes_keep_the_unscaled_paths():
    # entries of 1e298 on 9 factors: below 2**1000 / 9, nothing is scaled; the linear and
    # transfer paths give the enumeration's values
    m = DiscreteModel([2, 3], [((0, 1), [[1e298, -1e298, 0.0], [0.0, 1e298, 1e298]])] * 9)
    with no_runtime_warning():
        assert exact_log_partition(m) == pytest.approx(brute_force_log_partition(m), rel=1e-14)
    chain = DiscreteModel([2, 2, 2], [((0, 1), [[1e298, 0.0], [0.0, 1e298]]), ((1, 2), np.eye(2))])
    plan = transfer.transfer_plan(chain, 10**9)
    with no_runtime_warning():
        assert transfer.transfer_log_partition(chain, plan) == pytest.approx(1e298, rel=1e-14)


# -- item 2: log Z beyond float64 ----------------------------------------------------------------


def test_log_z_beyond_float64_is_a_clear_error():
    # scores up to 3e308: log Z was a silent inf
    m = DiscreteModel([2] * 3, [((i,), [0.0, A]) for i in range(3)])
    with no_runtime_warning():
        with pytest.raises(ValueError, match="exact_log_partition: log Z is beyond the float64"):
            exact_log_partition(m)
        with pytest.raises(ValueError, match="exact_marginals: log Z is beyond the float64"):
            exact_marginals(m)
        with pytest.raises(ValueError, match="exact_map: the MAP score is beyond the float64"):
            exact_map(m)
        with pytest.raises(ValueError, match="brute_force_map: the highest score is beyond"):
            brute_force_map(m)
    # a grid whose fields add up past float64 (the transfer-matrix path's model)
    grid = pm1_grid(3, 3, 0.0, fields=A)
    with pytest.raises(ValueError, match="log Z is beyond the float64 range"):
        exact_log_partition(grid)
    # a model without variables: its constants are log Z
    const = DiscreteModel([], [((), A), ((), A)])
    with pytest.raises(ValueError, match="log Z is beyond the float64 range"):
        exact_log_partition(const)


def test_log_z_below_float64_is_not_called_forbidden():
    # every score is -2e308: log Z is no float64, but no assignment is forbidden (log Z
    # was -inf, marginals and MAP said "every assignment is forbidden")
    m = DiscreteModel([2, 3], [((0,), [-A, -A])] * 2 + [((0, 1), np.arange(6.0).reshape(2, 3))])
    for f in (exact_log_partition, exact_marginals):
        with pytest.raises(ValueError, match="log Z is beyond the float64 range"):
            f(m)
    with pytest.raises(ValueError, match="exact_map: the MAP score is beyond"):
        exact_map(m)
    for f in (brute_force_log_partition, brute_force_marginals, brute_force_map):
        with pytest.raises(ValueError, match="the highest score is beyond the float64 range"):
            f(m)
    # a score below the range that is not the highest has probability 0, as -inf would
    low = DiscreteModel([2], [((0,), [-A, 0.0])] * 2)
    for f in (exact_log_partition, brute_force_log_partition):
        assert f(low) == 0.0
    for f in (exact_marginals, brute_force_marginals):
        np.testing.assert_array_equal(f(low).marginals[0], [0.0, 1.0])
    assert exact_map(low).score == brute_force_map(low).score == 0.0


# -- item 3: orderings without a dense n x n matrix ----------------------------------------------


def far_pairs_model(n, n_pairs):
    """``n`` variables, pairs ``(i, n - 1 - i)`` joined by ``[[0, 1], [1, 0]]``, the rest
    free: ``log Z = n_pairs * log(2 + 2e) + (n - 2 n_pairs) log 2``."""
    T = [[0.0, 1.0], [1.0, 0.0]]
    return DiscreteModel(np.full(n, 2), [((i, n - 1 - i), T) for i in range(n_pairs)])


def test_orderings_of_many_variables_do_not_build_a_dense_matrix():
    # 12000 variables: the dense boolean matrix alone was 144 MB (10**6 variables: 931 GiB,
    # a MemoryError); the neighbour bitsets of this model take a few kB, the whole call
    # about 3 MiB
    m = far_pairs_model(12000, 20)
    exact_module._ORDERS.clear()
    tracemalloc.start()
    try:
        e = elimination_order(m)
        log_z = exact_log_partition(m)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
    assert e.induced_width == 1 and e.max_table_size == 4
    assert log_z == pytest.approx(20 * math.log(2 + 2 * math.e) + 11960 * math.log(2), rel=1e-12)


@pytest.mark.slow
def test_a_million_variables():
    m = far_pairs_model(10**6, 3)
    assert elimination_order(m).max_clique_size == 2
    ref = 3 * math.log(2 + 2 * math.e) + (10**6 - 6) * math.log(2)
    assert exact_log_partition(m) == pytest.approx(ref, rel=1e-10)


def test_bitsets_beyond_the_machine_are_refused_up_front(monkeypatch):
    # a chain of 3000 variables: row i of the bitsets holds bit i + 1 (about 0.7 MB in
    # all, three copies at the peak); with a 1 MiB machine that is refused, with the
    # estimate, before anything is built (exact_* then never reach their own check)
    m = ising(nx.path_graph(3000), fields=0.1, couplings=0.2)
    exact_module._ORDERS.clear()
    monkeypatch.setattr(kernelkit._memory, "memory_limit", lambda: 2**20)
    for f in (elimination_order, exact_log_partition, exact_marginals, exact_map):
        with pytest.raises(
            ValueError, match=r"neighbour bitsets .* would need about 2\.\d+ MiB of memory"
        ):
            f(m)
    monkeypatch.setattr(kernelkit._memory, "memory_limit", lambda: 2**30)
    assert elimination_order(m).induced_width == 1


def test_orderings_are_the_same_from_the_dense_and_the_row_by_row_bitsets(monkeypatch):
    rng = np.random.default_rng(3)
    models = [ising(nx.grid_2d_graph(5, 7)), ising(nx.random_regular_graph(3, 30, seed=1))]
    for _ in range(20):
        n = int(rng.integers(1, 25))
        card = rng.choice([1, 2, 3], size=n)
        factors = []
        for _ in range(int(rng.integers(0, 2 * n + 1))):
            scope = tuple(int(v) for v in rng.choice(n, size=min(n, int(rng.integers(0, 4)))))
            scope = tuple(dict.fromkeys(scope))
            factors.append((scope, rng.normal(size=tuple(card[list(scope)]))))
        models.append(DiscreteModel(card, factors))
    for m in models:
        for limit in (None, 2**6):
            dense = exact_module._compute_order(m, limit)
            monkeypatch.setattr(exact_module, "_DENSE_ADJACENCY", 0)
            rows = exact_module._compute_order(m, limit)
            monkeypatch.undo()
            assert dense[0].order.tolist() == rows[0].order.tolist()
            assert dense[0].heuristic == rows[0].heuristic
            assert (dense[2].max_table, dense[2].total, dense[2].peak, dense[2].ok) == (
                rows[2].max_table,
                rows[2].total,
                rows[2].peak,
                rows[2].ok,
            )
            assert dense[2].separators == rows[2].separators


# -- item 4 and the audit: wording, enumeration, degenerate models -------------------------------


def test_the_map_error_reads_as_english():
    m = DiscreteModel([2, 2], [((0, 1), [[0.0, NEG], [NEG, 0.0]]), ((1, 0), [[NEG, 0], [0, NEG]])])
    for f in (exact_map, brute_force_map):
        with pytest.raises(ValueError, match="the model has no MAP assignment: every") as info:
            f(m)
        assert "no a " not in str(info.value)


def test_brute_force_of_many_variables_says_how_many_assignments():
    # 2**20000 has 6021 digits: formatting it raised Python's "Exceeds the limit (4300
    # digits) for integer string conversion" instead of the refusal
    m = DiscreteModel([2] * 20000, [])
    for f in (brute_force_log_partition, brute_force_marginals, brute_force_map):
        with pytest.raises(ValueError, match=r"would score about 10\*\*6020 assignments"):
            f(m)
    with pytest.raises(ValueError, match=r"would score 8388608 assignments, more than 4194304"):
        brute_force_log_partition(DiscreteModel([2] * 23, []))


def test_a_clique_of_one_variable_is_named_in_the_singular():
    # a free variable with 2**62 values: its table alone is beyond any machine
    m = DiscreteModel([2**62, 2], [((1,), [0.0, 1.0])])
    for f in (exact_log_partition, exact_marginals, exact_map):
        with pytest.raises(ValueError, match=r"clique of (at least )?1 variable \(induced"):
            f(m)


@pytest.mark.parametrize(
    "cards", [[2**40, 2**40], [2**62], [3, 2**45, 2]], ids=["2x2**40", "2**62", "2**45"]
)
def test_huge_cardinalities_are_refused_before_allocation(cards):
    m = DiscreteModel(cards, [])
    e = elimination_order(m)  # describing the ordering is fine
    assert e.max_table_size == max(cards)
    for f in (exact_log_partition, exact_marginals, exact_map):
        with pytest.raises(ValueError, match=r"memory.*approximate inference"):
            f(m)
    with pytest.raises(ValueError, match=r"brute-force enumeration .* more than 4194304"):
        brute_force_marginals(m)


def test_models_without_variables_and_variables_with_one_value():
    for m, log_z in (
        (DiscreteModel([], []), 0.0),
        (DiscreteModel([], [((), -A), ((), A / 2)]), -A / 2),
        (DiscreteModel([1, 1], [((0, 1), [[A]]), ((1,), [-A / 2])]), A / 2),
    ):
        with no_runtime_warning():
            assert exact_log_partition(m) == brute_force_log_partition(m) == log_z
            r = exact_marginals(m)
            assert r.log_partition == log_z and all(p.tolist() == [1.0] for p in r.marginals)
            x = exact_map(m)
            assert x.score == log_z and x.assignment.tolist() == [0] * m.n_variables


@pytest.mark.parametrize("bad", [None, 3, "model", [[0.0, 1.0]], np.zeros(2)])
def test_wrong_types_name_the_model(bad):
    for f in (
        exact_log_partition,
        exact_marginals,
        exact_map,
        elimination_order,
        brute_force_log_partition,
        brute_force_marginals,
        brute_force_map,
    ):
        with pytest.raises(TypeError, match="model must be a DiscreteModel"):
            f(bad)
