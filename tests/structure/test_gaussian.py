"""kernelkit.structure.gaussian: graphical lasso and neighbourhood selection."""

from __future__ import annotations

import doctest
import warnings

import networkx as nx
import numpy as np
import pytest
from sklearn.covariance import GraphicalLasso, GraphicalLassoCV
from sklearn.linear_model import Lasso

import kernelkit.structure.gaussian as gaussian_module
from kernelkit.structure.gaussian import (
    EDGE_TOL,
    GraphicalLassoResult,
    graphical_lasso,
    neighbourhood_selection,
)
from kernelkit.structure.sampling import (
    random_gaussian_graphical_model,
    sample_gaussian_graphical,
)


def test_doctests():
    assert doctest.testmod(gaussian_module).failed == 0


@pytest.fixture(scope="module")
def easy():
    """A 2-regular graph on 12 vertices with partial correlations +-0.3, many samples."""
    model = random_gaussian_graphical_model(12, 2, edge_weight=0.3, random_state=3)
    X = sample_gaussian_graphical(model.precision, 4000, random_state=4)
    return model, X


def _edges(G):
    return {frozenset(e) for e in G.edges}


def _dependent_data(n=80, p=6, seed=0):
    rng = np.random.RandomState(seed)
    return rng.standard_normal((n, p)) @ rng.standard_normal((p, p))


# ---------------------------------------------------------------- graphical lasso


@pytest.mark.parametrize("alpha", [0.3, 0.6, 1.0])
@pytest.mark.parametrize("mode", ["cd", "lars"])
def test_graphical_lasso_equals_scikit_learn(alpha, mode):
    X = _dependent_data()
    res = graphical_lasso(X, alpha=alpha, mode=mode)
    ref = GraphicalLasso(alpha=alpha, mode=mode).fit(X)
    np.testing.assert_allclose(res.precision, ref.precision_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(res.covariance, ref.covariance_, rtol=0, atol=1e-8)
    assert res.n_iter == ref.n_iter_ and res.alpha == alpha


def test_graphical_lasso_cv_equals_scikit_learn():
    X = _dependent_data(n=120)
    res = graphical_lasso(X, alpha="cv", cv=3, alphas=5)
    ref = GraphicalLassoCV(cv=3, alphas=5).fit(X)
    assert res.alpha == pytest.approx(ref.alpha_, abs=0)
    np.testing.assert_allclose(res.precision, ref.precision_, rtol=0, atol=1e-8)
    assert isinstance(res, GraphicalLassoResult) and res.converged


def test_graph_matches_precision_support_and_weights():
    X = _dependent_data(n=60, p=8, seed=2)
    res = graphical_lasso(X, alpha=0.4)
    P = res.precision
    partial = -P / np.sqrt(np.outer(np.diag(P), np.diag(P)))
    expected = np.abs(partial) > EDGE_TOL
    np.fill_diagonal(expected, False)
    assert np.array_equal(res.adjacency, expected)
    assert np.array_equal(res.adjacency, res.adjacency.T)
    assert set(res.graph.nodes) == set(range(8))
    assert 0 < res.graph.number_of_edges() < 28  # some zeros, some edges
    for j, k, data in res.graph.edges(data=True):
        assert data["weight"] == P[j, k]
        assert data["partial_correlation"] == pytest.approx(partial[j, k])
    A = nx.to_numpy_array(res.graph, nodelist=range(8), weight=None) != 0
    assert np.array_equal(A, res.adjacency)


def test_graphical_lasso_recovers_easy_instance(easy):
    model, X = easy
    for alpha in (0.1, 0.15, 0.2):  # a window of penalties, not one lucky value
        res = graphical_lasso(X, alpha=alpha)
        assert _edges(res.graph) == _edges(model.graph)
        assert res.converged


def test_larger_alpha_gives_sparser_graph():
    X = _dependent_data(n=100, p=8, seed=5)
    S = np.cov(X.T, bias=True)
    top = np.abs(S - np.diag(np.diag(S))).max()
    alphas = (0.05 * top, 0.3 * top, 1.01 * top)
    counts = [graphical_lasso(X, alpha=a, tol=1e-3).graph.number_of_edges() for a in alphas]
    assert counts[0] > counts[1] > counts[2] == 0  # beyond max |S_jk|: diagonal precision


def test_graphical_lasso_handles_more_variables_than_samples():
    """n < p: the empirical covariance is singular, the penalised problem is not."""
    X = np.random.RandomState(0).standard_normal((8, 15))
    res = graphical_lasso(X, alpha=0.5, tol=1e-3)
    assert np.all(np.linalg.eigvalsh(res.precision) > 0)


def test_unconverged_fit_is_reported():
    X = _dependent_data(n=50, p=10, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = graphical_lasso(X, alpha=0.01, max_iter=1, tol=1e-12)
    assert res.n_iter == 1 and not res.converged


# ---------------------------------------------------------------- neighbourhood selection


def _reference_lasso(X, alpha, **kw):
    p = X.shape[1]
    B = np.zeros((p, p))
    b = np.zeros(p)
    for j in range(p):
        rest = np.arange(p) != j
        fit = Lasso(alpha=alpha, **kw).fit(X[:, rest], X[:, j])
        B[j, rest], b[j] = fit.coef_, fit.intercept_
    return B, b


def test_neighbourhood_selection_equals_scikit_learn_lasso():
    X = _dependent_data(n=200, p=7, seed=3)
    res = neighbourhood_selection(X, alpha=0.3)
    # the same path as Lasso(precompute=True): equal to rounding
    B, b = _reference_lasso(X, 0.3, precompute=True)
    np.testing.assert_allclose(res.coefficients, B, rtol=0, atol=1e-10)
    np.testing.assert_allclose(res.intercepts, b, rtol=0, atol=1e-10)
    # and the default Lasso to its tolerance
    tight = neighbourhood_selection(X, alpha=0.3, tol=1e-12, max_iter=100_000)
    B, b = _reference_lasso(X, 0.3, tol=1e-12, max_iter=100_000)
    np.testing.assert_allclose(tight.coefficients, B, rtol=0, atol=1e-8)
    assert np.all(np.diag(res.coefficients) == 0) and res.converged


def test_and_or_rules():
    X = _dependent_data(n=100, p=8, seed=4)
    a = neighbourhood_selection(X, alpha=0.5, rule="and")
    o = neighbourhood_selection(X, alpha=0.5, rule="or")
    np.testing.assert_array_equal(a.coefficients, o.coefficients)
    S = a.coefficients != 0
    assert np.array_equal(a.adjacency, S & S.T)
    assert np.array_equal(o.adjacency, S | S.T)
    assert _edges(a.graph) <= _edges(o.graph)
    for j, k, data in o.graph.edges(data=True):
        assert data["weight"] == pytest.approx((o.coefficients[j, k] + o.coefficients[k, j]) / 2)


def test_neighbourhood_selection_recovers_easy_instance(easy):
    model, X = easy
    for rule in ("and", "or"):
        res = neighbourhood_selection(X, alpha=0.15, rule=rule)
        assert _edges(res.graph) == _edges(model.graph)
    # Gaussian theory: B_jk = -Omega_jk / Omega_jj (here Omega_jj = 1), up to shrinkage
    on = model.precision != 0
    np.fill_diagonal(on, False)
    assert np.all(np.sign(res.coefficients[on]) == -np.sign(model.precision[on]))


def test_n_jobs_does_not_change_the_result():
    X = _dependent_data(n=100, p=9, seed=6)
    one = neighbourhood_selection(X, alpha=0.2)
    two = neighbourhood_selection(X, alpha=0.2, n_jobs=2)
    np.testing.assert_array_equal(one.coefficients, two.coefficients)


def test_constant_column_gets_no_edges():
    X = _dependent_data(n=50, p=5)
    X[:, 2] = 3.0
    res = neighbourhood_selection(X, alpha=0.1)
    assert res.graph.degree(2) == 0
    assert np.all(res.coefficients[2] == 0) and np.all(res.coefficients[:, 2] == 0)
    assert res.intercepts[2] == pytest.approx(3.0)


# ---------------------------------------------------------------- bad input


def test_bad_alpha():
    X = _dependent_data()
    for fn in (graphical_lasso, neighbourhood_selection):
        with pytest.raises(ValueError, match="alpha"):
            fn(X, alpha=0.0)
        with pytest.raises(ValueError, match="alpha"):
            fn(X, alpha=-1.0)
        with pytest.raises(ValueError, match="alpha"):
            fn(X, alpha=np.inf)
        with pytest.raises(TypeError, match="alpha"):
            fn(X, alpha=True)
        with pytest.raises(TypeError, match="alpha"):
            fn(X, alpha=None)
    with pytest.raises(ValueError, match="alpha must be one of 'cv'"):
        graphical_lasso(X, alpha="auto")
    with pytest.raises(TypeError, match="alpha"):
        neighbourhood_selection(X, alpha="cv")


def test_cv_options_need_alpha_cv():
    with pytest.raises(ValueError, match="alphas and cv are used only with alpha='cv'"):
        graphical_lasso(_dependent_data(), alpha=0.1, cv=3)


def test_bad_rule_and_options():
    X = _dependent_data()
    with pytest.raises(ValueError, match="rule"):
        neighbourhood_selection(X, alpha=0.1, rule="xor")
    with pytest.raises(TypeError, match="rule"):
        neighbourhood_selection(X, alpha=0.1, rule=None)
    with pytest.raises(ValueError, match="mode"):
        graphical_lasso(X, alpha=0.1, mode="bcd")
    with pytest.raises(ValueError, match="max_iter"):
        graphical_lasso(X, alpha=0.1, max_iter=0)
    with pytest.raises(ValueError, match="n_jobs"):
        neighbourhood_selection(X, alpha=0.1, n_jobs=0)


def test_bad_data():
    for fn in (graphical_lasso, neighbourhood_selection):
        with pytest.raises(ValueError, match="at least 2"):
            fn(np.ones((1, 4)), alpha=0.1)  # one sample
        with pytest.raises(ValueError, match="at least 2 columns"):
            fn(np.random.RandomState(0).standard_normal((10, 1)), alpha=0.1)
        with pytest.raises(ValueError, match="2-dimensional"):
            fn(np.ones(5), alpha=0.1)
        with pytest.raises(ValueError, match="NaN"):
            fn(np.full((5, 3), np.nan), alpha=0.1)
        with pytest.raises(TypeError, match="X"):
            fn([["a", "b"], ["c", "d"]], alpha=0.1)


def test_graphical_lasso_refuses_constant_column():
    X = _dependent_data()
    X[:, 1] = 2.0
    with pytest.raises(ValueError, match=r"constant column\(s\) \[1\]"):
        graphical_lasso(X, alpha=0.1)
