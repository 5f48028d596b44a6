"""kernelkit.structure.ising: L1-logistic neighbourhood selection on Gibbs samples."""

from __future__ import annotations

import doctest

import networkx as nx
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import kernelkit.structure.ising as ising_module
from kernelkit.pgm.model import ising
from kernelkit.pgm.sampling import gibbs_sample
from kernelkit.structure.ising import IsingSelectionResult, ising_neighbourhood_selection


def test_doctests():
    assert doctest.testmod(ising_module).failed == 0


def _edges(G):
    return {frozenset(e) for e in G.edges}


@pytest.fixture(scope="module")
def easy():
    """A 3-regular graph on 10 nodes, +-0.5 couplings (pm1), 4000 Gibbs samples."""
    G = nx.random_regular_graph(3, 10, seed=1)
    signs = np.random.RandomState(0).choice([-1.0, 1.0], G.number_of_edges())
    model = ising(G, fields=0.0, couplings=0.5 * signs, spins="pm1")
    Z = gibbs_sample(model, 4000, burn_in=200, thin=2, random_state=0).samples
    return G, 0.5 * signs, Z


def _random_binary(n=300, p=5, seed=0):
    rng = np.random.RandomState(seed)
    Z = rng.randint(0, 2, (n, p))
    Z[:, 1] = np.where(rng.random_sample(n) < 0.85, Z[:, 0], 1 - Z[:, 0])
    return Z


def test_coefficients_equal_scikit_learn():
    Z = _random_binary()
    res = ising_neighbourhood_selection(Z, C=0.1, random_state=3)
    seeds = np.random.RandomState(3).randint(0, 2**31 - 1, size=5)
    for s in range(5):
        rest = np.arange(5) != s
        ref = LogisticRegression(
            C=0.1, l1_ratio=1.0, solver="liblinear", max_iter=1000, random_state=int(seeds[s])
        ).fit(Z[:, rest], Z[:, s])
        np.testing.assert_allclose(res.coefficients[s, rest], ref.coef_[0], atol=1e-12)
        assert res.intercepts[s] == pytest.approx(ref.intercept_[0], abs=1e-12)
    assert np.all(np.diag(res.coefficients) == 0)
    assert isinstance(res, IsingSelectionResult) and res.converged


def test_pm1_coefficients_are_half_the_logistic_ones():
    Z = _random_binary(seed=1)
    S = 2 * Z - 1
    kw = {"spins": "pm1", "solver": "saga", "tol": 1e-8, "random_state": 0}
    res = ising_neighbourhood_selection(S, C=0.1, **kw)
    rest = np.arange(1, 5)
    ref = LogisticRegression(C=0.1, l1_ratio=1.0, solver="saga", tol=1e-8, max_iter=1000)
    ref.fit(S[:, rest], Z[:, 0])
    # saga's coordinate order is random and it stops at tol 1e-8: the two fits agree to
    # about 1e-8 absolute, not bit for bit (a factor of 2 would differ by 0.38 here)
    np.testing.assert_allclose(res.coefficients[0, rest], ref.coef_[0] / 2, rtol=1e-5, atol=1e-6)
    # pgm's coding of a pm1 model (0 for -1) gives the same numbers
    same = ising_neighbourhood_selection(Z, C=0.1, **kw)
    np.testing.assert_array_equal(same.coefficients, res.coefficients)


def test_recovers_easy_instance_and_estimates_couplings(easy):
    G, J, Z = easy
    n, p = Z.shape
    lam = np.sqrt(np.log(p) / n)
    for rule in ("and", "or"):
        for c in (1.5, 2.0, 3.0):  # a window of penalties, not one lucky value
            res = ising_neighbourhood_selection(
                Z, C=1 / (c * n * lam), rule=rule, spins="pm1", random_state=0
            )
            assert _edges(res.graph) == _edges(G)
    # weakly penalised, the coefficients estimate the couplings J_st
    fit = ising_neighbourhood_selection(Z, C=10.0, spins="pm1", random_state=0)
    for (u, v), j in zip(G.edges, J, strict=True):
        assert fit.coefficients[u, v] == pytest.approx(j, abs=0.15)
        assert fit.coefficients[v, u] == pytest.approx(j, abs=0.15)
    assert np.all(np.abs(fit.intercepts) < 0.15)  # no fields


def test_01_model_coefficients_estimate_its_couplings():
    """In the {0, 1} model the logit of z_s is h_s + sum_t J_st z_t (the lecture notes)."""
    G = nx.path_graph(4)
    model = ising(G, fields=[-1.0, 0.5, -0.5, 0.0], couplings=[1.5, -1.0, 1.0])
    Z = gibbs_sample(model, 20_000, burn_in=100, random_state=2).samples
    fit = ising_neighbourhood_selection(Z, C=10.0, solver="saga", random_state=0)
    expected = nx.to_numpy_array(G, nodelist=range(4)) * 0
    for (u, v), j in zip(G.edges, [1.5, -1.0, 1.0], strict=True):
        expected[u, v] = expected[v, u] = j
    np.testing.assert_allclose(fit.coefficients, expected, atol=0.15)
    np.testing.assert_allclose(fit.intercepts, [-1.0, 0.5, -0.5, 0.0], atol=0.15)


def test_and_or_rules():
    Z = _random_binary(p=6, seed=4)
    a = ising_neighbourhood_selection(Z, C=0.5, rule="and", random_state=0)
    o = ising_neighbourhood_selection(Z, C=0.5, rule="or", random_state=0)
    S = a.coefficients != 0
    assert np.array_equal(a.adjacency, S & S.T) and np.array_equal(o.adjacency, S | S.T)
    assert _edges(a.graph) <= _edges(o.graph)


def test_same_seed_same_numbers_and_n_jobs():
    Z = _random_binary(p=6, seed=5)
    for solver in ("liblinear", "saga"):
        a = ising_neighbourhood_selection(Z, C=0.3, solver=solver, random_state=11)
        b = ising_neighbourhood_selection(Z, C=0.3, solver=solver, random_state=11, n_jobs=2)
        np.testing.assert_array_equal(a.coefficients, b.coefficients)
        np.testing.assert_array_equal(a.intercepts, b.intercepts)


def test_constant_node_gets_no_edges():
    Z = _random_binary()
    Z[:, 3] = 1
    Z[:, 4] = 0
    for rule in ("and", "or"):
        res = ising_neighbourhood_selection(Z, C=1.0, rule=rule, random_state=0)
        assert res.constant.tolist() == [False, False, False, True, True]
        assert res.graph.degree(3) == res.graph.degree(4) == 0
        assert np.all(res.coefficients[:, 3:] == 0) and np.all(res.coefficients[3:] == 0)
        assert np.isnan(res.intercepts[3:]).all() and np.isfinite(res.intercepts[:3]).all()
        assert res.n_iter[3] == 0 and res.graph.has_edge(0, 1)


def test_all_but_one_node_constant():
    Z = np.zeros((10, 3))
    Z[:4, 0] = 1
    res = ising_neighbourhood_selection(Z, C=1.0)
    assert res.graph.number_of_edges() == 0
    assert res.intercepts[0] == pytest.approx(np.log(0.4 / 0.6))
    assert res.constant.tolist() == [False, True, True]


# ---------------------------------------------------------------- bad input


def test_non_binary_data():
    Z = _random_binary().astype(float)
    Z[7, 2] = 2.0
    with pytest.raises(ValueError, match=r"column 2 has the value 2 in row 7"):
        ising_neighbourhood_selection(Z, C=1.0)
    Z[7, 2] = 0.5
    with pytest.raises(ValueError, match="binary Ising data"):
        ising_neighbourhood_selection(Z, C=1.0, spins="pm1")
    S = 2.0 * _random_binary() - 1
    with pytest.raises(ValueError, match="pass spins='pm1'"):
        ising_neighbourhood_selection(S, C=1.0)  # +-1 data, "01" model
    S[0, 0] = 0.0  # {-1, 0, 1}: neither coding
    with pytest.raises(ValueError, match=r"\{-1, \+1\} or \{0, 1\}"):
        ising_neighbourhood_selection(S, C=1.0, spins="pm1")
    gaussian = np.random.RandomState(0).standard_normal((20, 3))
    with pytest.raises(ValueError, match="binary Ising data"):
        ising_neighbourhood_selection(gaussian, C=1.0)


def test_bad_C_rule_spins_solver():
    Z = _random_binary()
    for C in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError, match="C must"):
            ising_neighbourhood_selection(Z, C=C)
    with pytest.raises(TypeError, match="C"):
        ising_neighbourhood_selection(Z, C="1")
    with pytest.raises(ValueError, match="rule"):
        ising_neighbourhood_selection(Z, C=1.0, rule="both")
    with pytest.raises(ValueError, match="spins"):
        ising_neighbourhood_selection(Z, C=1.0, spins="+-1")
    with pytest.raises(ValueError, match="solver"):
        ising_neighbourhood_selection(Z, C=1.0, solver="lbfgs")
    with pytest.raises(ValueError, match="max_iter"):
        ising_neighbourhood_selection(Z, C=1.0, max_iter=0)


def test_bad_shapes():
    with pytest.raises(ValueError, match="at least 2"):
        ising_neighbourhood_selection(np.ones((1, 3)), C=1.0)
    with pytest.raises(ValueError, match="at least 2 columns"):
        ising_neighbourhood_selection(np.ones((5, 1)), C=1.0)
    with pytest.raises(TypeError, match="Z"):
        ising_neighbourhood_selection([["a", "b"]], C=1.0)
