"""kernelkit.structure: inputs of extreme magnitude, degenerate shapes, sizes beyond memory.

The house rule: finite input of any magnitude gives a finite, correct result or a clear
error naming the argument. The graphical lasso and the parallel lasso do not standardise,
so their graphs depend on the scale of ``X`` at a fixed ``alpha``; what they keep is
equivariance: ``X -> c X`` with ``alpha -> c**2 alpha`` gives the same graph (the
precision divided by ``c**2``, the same lasso coefficients). Named after the area (not
``test_bad_input.py``): the test folders are not packages, and two test modules of one
name in different folders cannot be collected in one run.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from kernelkit.structure import (
    graphical_lasso,
    neighbourhood_selection,
    random_gaussian_graphical_model,
    sample_gaussian_graphical,
)


@pytest.fixture(scope="module")
def easy():
    """A 2-regular graph on 8 vertices, partial correlations +-0.3, many samples."""
    model = random_gaussian_graphical_model(8, 2, edge_weight=0.3, random_state=3)
    X = sample_gaussian_graphical(model.precision, 3000, random_state=4)
    return model, X


def _edges(G):
    return {frozenset(e) for e in G.edges}


def _independent(n=50, p=4, seed=0):
    return np.random.RandomState(seed).standard_normal((n, p))


# ---------------------------------------------------------------- graphical lasso


@pytest.mark.parametrize("scale", [1e100, 1e-100, 1e-7, 2.0**-300])
def test_graphical_lasso_is_scale_equivariant(easy, scale):
    """X * c at penalty alpha * c**2: the graph of X at alpha, precision / c**2 (the
    substitution Omega = Omega' / c**2 in the objective). At 1e100 scikit-learn's solver
    overflowed; at 1e-7 and below every column was taken for a constant one."""
    model, X = easy
    ref = graphical_lasso(X, alpha=0.15)
    res = graphical_lasso(X * scale, alpha=0.15 * scale**2)
    assert _edges(res.graph) == _edges(ref.graph) == _edges(model.graph)
    assert res.converged and res.alpha == 0.15 * scale**2
    # equal to the solver's tolerance (scikit-learn's solver is not exactly equivariant)
    np.testing.assert_allclose(res.precision * scale**2, ref.precision, rtol=0, atol=5e-3)
    np.testing.assert_allclose(res.covariance / scale**2, ref.covariance, rtol=0, atol=5e-3)


def test_graphical_lasso_of_huge_data_at_a_unit_penalty_is_the_inverse_covariance():
    """At X * 1e150 a penalty of 0.1 is negligible (0.1 / 1e300 on the unit scale): the
    estimate is the inverse empirical covariance, every edge present. It raised
    FloatingPointError from scikit-learn's solver."""
    X = _independent()
    res = graphical_lasso(X * 1e150, alpha=0.1)
    mle = np.linalg.inv(np.cov(X.T, bias=True))
    np.testing.assert_allclose(res.precision * 1e300, mle, rtol=0, atol=1e-4)  # tol=1e-4
    assert res.graph.number_of_edges() == 6 and res.converged
    assert np.all(np.isfinite(res.covariance))


@pytest.mark.parametrize("scale", [1e200, 1e-200, 1e300])
def test_graphical_lasso_refuses_a_precision_beyond_float64(scale):
    """The precision of X * 1e200 is of order 1e-400: not a float64. It was an
    OverflowError (errno 34) from the constant-column check."""
    with pytest.raises(ValueError, match=r"X's scale .* outside the float64 range; rescale X"):
        graphical_lasso(_independent() * scale, alpha=0.1)


@pytest.mark.parametrize("mode", ["cd", "lars"])
def test_graphical_lasso_with_a_huge_penalty_converges_to_the_diagonal(mode):
    """alpha = 1e300: the diagonal solution diag(1 / S_jj). It was reported as not
    converged (duality gap 1e284, round-off times the penalty) with "cd", and overflowed
    (a RuntimeWarning) with "lars"."""
    X = _independent()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning or RuntimeWarning either
        res = graphical_lasso(X, alpha=1e300, mode=mode)
    S = np.cov(X.T, bias=True)
    np.testing.assert_allclose(res.precision, np.diag(1.0 / np.diag(S)), rtol=1e-12, atol=0)
    assert res.converged and res.graph.number_of_edges() == 0 and res.alpha == 1e300


def test_graphical_lasso_with_a_negligible_penalty_on_singular_covariance_names_alpha():
    """n_samples < p: the unpenalised precision does not exist; at alpha = 1e-300 it was
    scikit-learn's FloatingPointError, at X * 1e200 (alpha negligible) it would be a
    meaningless inverse."""
    X = _independent(n=3, p=6)
    with warnings.catch_warnings(), pytest.raises(ValueError, match=r"alpha=1e-300 .*increase"):
        warnings.simplefilter("ignore")  # scikit-learn's ConvergenceWarning before it fails
        graphical_lasso(X, alpha=1e-300)
    with pytest.raises(ValueError, match=r"alpha=0.1 is negligible .* singular"):
        graphical_lasso(X * 1e200, alpha=0.1)


def test_constant_column_test_is_scale_free():
    """A column of tiny values is not a constant one (it was, below 1e-6); a constant
    column is refused at any magnitude."""
    X = _independent()
    X[:, 1] *= 1e-7
    res = graphical_lasso(X, alpha=1e-15)
    assert res.precision[1, 1] > 1e13  # 1 / variance of column 1
    for scale in (1e-250, 1.0, 1e250):
        Y = _independent() * scale
        Y[:, 2] = 3.0 * scale
        with pytest.raises(ValueError, match=r"constant column\(s\) \[2\]"):
            graphical_lasso(Y, alpha=0.1)


def test_columns_of_incompatible_scales_are_named():
    """Column 1 is 1e-300 of the others: its variance is no float64 beside theirs."""
    X = _independent()
    X[:, 1] *= 1e-300
    with pytest.raises(ValueError, match=r"column\(s\) \[1\] are so small .* standardise"):
        graphical_lasso(X, alpha=0.1)


def test_graphical_lasso_cv_is_scale_equivariant(easy):
    _, X = easy
    ref = graphical_lasso(X, alpha="cv", cv=3)
    res = graphical_lasso(X * 1e-100, alpha="cv", cv=3)
    assert res.alpha == pytest.approx(ref.alpha * 1e-200, rel=1e-6)
    assert _edges(res.graph) == _edges(ref.graph)
    grid = graphical_lasso(X * 1e100, alpha="cv", cv=3, alphas=[0.1e200, 0.15e200])
    assert grid.alpha in (0.1e200, 0.15e200)


def test_graphical_lasso_bad_alphas():
    with pytest.raises(ValueError, match="alphas must be > 0"):
        graphical_lasso(_independent(), alpha="cv", alphas=[0.1, -1.0])
    with pytest.raises(ValueError, match="alphas must be >= 1"):
        graphical_lasso(_independent(), alpha="cv", alphas=0)


# ---------------------------------------------------------------- neighbourhood selection


def test_neighbourhood_selection_of_huge_data_is_least_squares():
    """X * 1e200 at alpha 0.1: the penalty is negligible, each regression is least
    squares. Forming the Gram matrix overflowed (a RuntimeWarning, then NaN)."""
    X = _independent()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's ConvergenceWarning at alpha ~ 0
        res = neighbourhood_selection(X * 1e200, alpha=0.1)
    A = np.column_stack([X[:, 1:], np.ones(len(X))])
    ols = np.linalg.lstsq(A, X[:, 0], rcond=None)[0]
    np.testing.assert_allclose(res.coefficients[0, 1:], ols[:3], rtol=0, atol=1e-5)
    assert res.intercepts[0] == pytest.approx(ols[3] * 1e200, rel=1e-4)
    assert res.graph.number_of_edges() == 6
    assert np.isfinite(res.intercepts).all()


@pytest.mark.parametrize("scale", [2.0**300, 2.0**-300, 1e-150])
def test_neighbourhood_selection_is_scale_equivariant(easy, scale):
    model, X = easy
    ref = neighbourhood_selection(X, alpha=0.15)
    res = neighbourhood_selection(X * scale, alpha=0.15 * scale**2)
    assert _edges(res.graph) == _edges(ref.graph) == _edges(model.graph)
    np.testing.assert_allclose(res.coefficients, ref.coefficients, rtol=0, atol=1e-8)
    np.testing.assert_allclose(res.intercepts / scale, ref.intercepts, rtol=0, atol=1e-8)


def test_neighbourhood_selection_with_a_huge_penalty_is_quiet():
    """alpha = 1e300: every coefficient 0, intercepts the means, no overflow warning."""
    X = _independent()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = neighbourhood_selection(X, alpha=1e300)
    assert np.all(res.coefficients == 0) and res.converged
    np.testing.assert_allclose(res.intercepts, X.mean(axis=0), rtol=1e-14)


def test_neighbourhood_selection_of_tiny_data():
    res = neighbourhood_selection(_independent() * 1e-300, alpha=0.1)
    assert res.graph.number_of_edges() == 0
    np.testing.assert_allclose(res.intercepts, _independent().mean(axis=0) * 1e-300)


# ---------------------------------------------------------------- sampling


def test_asymmetry_of_huge_precision_is_measured_without_overflow():
    """P - P^T overflowed (a RuntimeWarning) for entries near 1.8e308."""
    P = np.array([[1e308, -1e308], [1e308, 1e308]])
    with pytest.raises(ValueError, match=r"precision must be symmetric; max \|P - P\^T\| / max"):
        sample_gaussian_graphical(P, 2)


def test_samples_of_a_scaled_precision_are_scaled():
    P = np.array([[2.0, -1.0], [-1.0, 2.0]])
    for c in (1e300, 1e-300):
        X = sample_gaussian_graphical(P * c, 4, random_state=0)
        np.testing.assert_allclose(X * np.sqrt(c), sample_gaussian_graphical(P, 4, random_state=0))


def test_sampling_beyond_memory_is_refused_up_front():
    with pytest.raises(ValueError, match=r"n_samples=10000000000000\) .* more than this machine"):
        sample_gaussian_graphical(np.eye(2), 10**13)
    with pytest.raises(ValueError, match=r"n_vertices=10000000\).* more than this machine"):
        random_gaussian_graphical_model(10**7, 2)


def test_empty_precision_is_named():
    with pytest.raises(ValueError, match=r"precision must be a non-empty square matrix"):
        sample_gaussian_graphical(np.zeros((0, 0)), 3)
    with pytest.raises(TypeError, match="precision must be an array of numbers"):
        sample_gaussian_graphical(None, 3)
