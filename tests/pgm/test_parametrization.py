"""Even / moment bases and random models (Rowland 2018, Props. 2.10-2.11, App. 2.B)."""

import itertools

import numpy as np
import pytest

from kernelkit.pgm.model import DiscreteModel
from kernelkit.pgm.parametrization import (
    THESIS_SCALES,
    complete_hypergraph_scopes,
    from_even_basis,
    from_moment_basis,
    random_model,
    to_even_basis,
    to_moment_basis,
    toroidal_grid_scopes,
)


def all_assignments(n):
    return np.array(list(itertools.product([0, 1], repeat=n)), dtype=np.int64)


def random_tables_model(n, scopes, seed):
    rng = np.random.default_rng(seed)
    return DiscreteModel([2] * n, [(s, rng.normal(size=(2,) * len(s))) for s in scopes])


SCOPES = [(0,), (2, 1), (0, 1, 3), (3, 2), (1, 2), (0, 1, 2, 3), (4,), (4, 0)]


@pytest.mark.parametrize("to_basis", [to_even_basis, to_moment_basis])
def test_round_trip_preserves_the_score_exactly(to_basis):
    m = random_tables_model(5, SCOPES, 0)
    b = to_basis(m)
    X = all_assignments(5)
    np.testing.assert_allclose(b.score(X), m.score(X), atol=1e-12)
    np.testing.assert_allclose(b.to_model().score(X), m.score(X), atol=1e-12)
    again = to_basis(b.to_model())
    assert again.coefficients.keys() == b.coefficients.keys()
    np.testing.assert_allclose(list(again.coefficients.values()), list(b.coefficients.values()))
    assert again.constant == pytest.approx(b.constant)


def test_even_basis_by_hand():
    # theta(x) = a 1[x0 + x1 even] + c
    m = DiscreteModel([2, 2], [((0, 1), [[3.0, 1.0], [1.0, 3.0]])])
    b = to_even_basis(m)
    assert b.coefficients == {(0, 1): 2.0}
    assert b.constant == 1.0


def test_even_coefficients_match_the_definition_on_every_assignment():
    coefs = {(0,): 0.5, (1, 2): -1.25, (0, 1, 2): 2.0, (0, 1, 2, 3): 0.75}
    m = from_even_basis(coefs, 4, constant=-0.5)
    X = all_assignments(4)
    expected = -0.5 + sum(a * (X[:, list(u)].sum(axis=1) % 2 == 0) for u, a in coefs.items())
    np.testing.assert_allclose(m.score(X), expected)
    b = to_even_basis(m)
    assert b.constant == pytest.approx(-0.5)
    assert b.coefficients == pytest.approx(coefs)


def test_pure_potentials_have_uniform_sub_marginals():
    # Def. 2.8 / Prop. 2.10: the even potential's proper sub-marginals are uniform
    for k in (2, 3, 4):
        m = from_even_basis({tuple(range(k)): 1.7}, k)
        X = all_assignments(k)
        p = np.exp(m.score(X))
        p /= p.sum()
        for i in range(k):
            assert p[X[:, i] == 1].sum() == pytest.approx(0.5)


def test_moment_basis_by_hand():
    m = from_moment_basis({(0,): 1.0, (0, 1): -2.0}, 2, constant=3.0)
    assert m.score([[0, 0], [1, 0], [0, 1], [1, 1]]).tolist() == [3.0, 4.0, 3.0, 2.0]


def test_basis_expansion_adds_factors_on_the_same_scope():
    m = DiscreteModel([2, 2], [((0, 1), np.eye(2)), ((1, 0), np.eye(2))])
    assert to_even_basis(m).coefficients == {(0, 1): 2.0}


def test_bad_input():
    with pytest.raises(ValueError, match="binary"):
        to_even_basis(DiscreteModel([3], [((0,), [0.0, 1.0, 2.0])]))
    with pytest.raises(ValueError, match="-inf"):
        to_even_basis(DiscreteModel([2], [((0,), [0.0, -np.inf])]))
    with pytest.raises(TypeError, match="DiscreteModel"):
        to_even_basis("model")
    with pytest.raises(ValueError, match="unknown variable"):
        from_even_basis({(0, 3): 1.0}, 2)
    with pytest.raises(ValueError, match="repeats"):
        from_even_basis({(0, 0): 1.0})
    with pytest.raises(ValueError, match="twice"):
        from_even_basis({(0, 1): 1.0, (1, 0): 2.0})
    with pytest.raises(ValueError, match="constant"):
        from_even_basis({(): 1.0})
    with pytest.raises(ValueError, match="finite"):
        from_even_basis({(0,): np.nan})
    with pytest.raises(ValueError, match="tol"):
        to_even_basis(DiscreteModel([2], []), tol=-1.0)


def test_random_model_scales_and_reproducibility():
    scopes = complete_hypergraph_scopes(8)
    assert len(scopes) == 8 + 28 + 56 + 70
    m1 = random_model(scopes, THESIS_SCALES, random_state=3)
    m2 = random_model(scopes, THESIS_SCALES, random_state=3)
    assert [f.scope for f in m1.factors] == [f.scope for f in m2.factors]
    pairs = zip(m1.factors, m2.factors, strict=True)
    assert all(np.array_equal(f.table, g.table) for f, g in pairs)
    b = to_even_basis(m1)
    assert {len(u) for u in b.coefficients} == {2, 4}
    assert max(abs(a) for a in b.coefficients.values()) <= 8.0
    assert b.constant == pytest.approx(0.0, abs=1e-12)
    # changing the 1-potential scale leaves the 2- and 4-coefficients as they were
    m3 = random_model(scopes, {**THESIS_SCALES, 1: 2.0}, random_state=3)
    b3 = to_even_basis(m3)
    assert {u: a for u, a in b3.coefficients.items() if len(u) > 1} == pytest.approx(b.coefficients)
    assert all(abs(a) <= 2.0 for u, a in b3.coefficients.items() if len(u) == 1)


def test_random_model_bad_input():
    with pytest.raises(ValueError, match="scales"):
        random_model([(0, 1)], {2: -1.0})
    with pytest.raises(TypeError, match="scales"):
        random_model([(0, 1)], [8.0])
    with pytest.raises(ValueError, match="hyperedges"):
        random_model([(0, -1)], {2: 1.0})
    with pytest.raises(ValueError, match="n_variables"):
        random_model([(0, 4)], {2: 1.0}, n_variables=3)


def test_toroidal_grid_scopes():
    L = 4
    scopes = toroidal_grid_scopes(L)
    by_size = {k: [s for s in scopes if len(s) == k] for k in (1, 2, 3, 4)}
    assert [len(by_size[k]) for k in (1, 2, 3, 4)] == [L * L, 2 * L * L, 4 * L * L, L * L]
    assert len(set(scopes)) == len(scopes)

    def adjacent(a, b):
        (ra, ca), (rb, cb) = divmod(a, L), divmod(b, L)
        dr, dc = (ra - rb) % L, (ca - cb) % L
        return (dr, dc) in {(0, 1), (0, L - 1), (1, 0), (L - 1, 0)}

    assert all(adjacent(*e) for e in by_size[2])
    for t in by_size[3]:  # an L: one corner adjacent to both others, which are not adjacent
        degrees = sorted(sum(adjacent(a, b) for b in t if b != a) for a in t)
        assert degrees == [1, 1, 2]
    for q in by_size[4]:  # a 4-cycle: every vertex has two neighbours inside
        assert all(sum(adjacent(a, b) for b in q if b != a) == 2 for a in q)
    with pytest.raises(ValueError, match="L"):
        toroidal_grid_scopes(2)
