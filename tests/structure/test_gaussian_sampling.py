"""kernelkit.structure.sampling: Cholesky sampler and random bounded-degree precisions."""

from __future__ import annotations

import doctest

import networkx as nx
import numpy as np
import pytest

import kernelkit.structure.sampling as sampling_module
from kernelkit.structure.sampling import (
    GaussianGraphicalModel,
    random_gaussian_graphical_model,
    sample_gaussian_graphical,
)


def test_doctests():
    assert doctest.testmod(sampling_module).failed == 0


def test_sample_covariance_matches_inverse_precision():
    """Entrywise, the sample covariance is within 5 standard errors of Sigma = Omega^{-1}:
    Var(S_jk) = (Sigma_jk^2 + Sigma_jj Sigma_kk) / n for Gaussian data."""
    model = random_gaussian_graphical_model(10, 3, edge_weight=0.3, random_state=0)
    sigma = np.linalg.inv(model.precision)
    n = 40_000
    X = sample_gaussian_graphical(model.precision, n, random_state=1)
    S = X.T @ X / n  # the mean is known to be 0
    se = np.sqrt((sigma**2 + np.outer(np.diag(sigma), np.diag(sigma))) / n)
    assert np.all(np.abs(S - sigma) < 5 * se)
    assert np.abs(X.mean(axis=0)).max() < 5 * np.sqrt(np.diag(sigma).max() / n)


def test_sample_of_a_diagonal_precision():
    X = sample_gaussian_graphical(np.diag([4.0, 0.25]), 20_000, random_state=0)
    np.testing.assert_allclose(X.std(axis=0), [0.5, 2.0], rtol=0.03)


def test_same_seed_same_numbers():
    P = random_gaussian_graphical_model(8, 2, random_state=5).precision
    a = sample_gaussian_graphical(P, 50, random_state=7)
    b = sample_gaussian_graphical(P, 50, random_state=7)
    c = sample_gaussian_graphical(P, 50, random_state=8)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    m1 = random_gaussian_graphical_model(12, 3, random_state=2)
    m2 = random_gaussian_graphical_model(12, 3, random_state=2)
    np.testing.assert_array_equal(m1.precision, m2.precision)
    assert sorted(m1.graph.edges) == sorted(m2.graph.edges)


@pytest.mark.parametrize(("p", "d"), [(10, 3), (16, 4), (7, 2), (5, 0)])
def test_random_model_is_regular_and_positive_definite(p, d):
    m = random_gaussian_graphical_model(p, d, random_state=p + d)
    assert isinstance(m, GaussianGraphicalModel) and m.degree == d
    assert m.edge_weight == pytest.approx(1 / (d + 1))
    assert all(deg == d for _, deg in m.graph.degree())
    assert set(m.graph.nodes) == set(range(p))
    P = m.precision
    np.testing.assert_array_equal(P, P.T)
    np.testing.assert_array_equal(np.diag(P), np.ones(p))
    A = nx.to_numpy_array(m.graph, nodelist=range(p), weight=None) != 0
    off = P - np.diag(np.diag(P))
    np.testing.assert_array_equal(off != 0, A)
    np.testing.assert_allclose(np.abs(off[A]), m.edge_weight)
    assert np.linalg.eigvalsh(P).min() > 0
    for j, k, w in m.graph.edges(data="weight"):
        assert w == P[j, k]


def test_signs():
    pos = random_gaussian_graphical_model(10, 3, edge_weight=0.2, signs="positive", random_state=0)
    neg = random_gaussian_graphical_model(10, 3, edge_weight=0.2, signs="negative", random_state=0)
    rnd = random_gaussian_graphical_model(40, 3, edge_weight=0.2, random_state=0)
    off = ~np.eye(10, dtype=bool)
    assert np.all(pos.precision[off] >= 0) and np.all(neg.precision[off] <= 0)
    vals = rnd.precision[~np.eye(40, dtype=bool)]
    assert (vals > 0).any() and (vals < 0).any()


# ---------------------------------------------------------------- bad input


def test_not_symmetric_precision():
    with pytest.raises(ValueError, match="precision must be symmetric"):
        sample_gaussian_graphical([[2.0, 0.5], [0.0, 2.0]], 5)


def test_not_positive_definite_precision():
    with pytest.raises(ValueError, match="positive definite; its smallest eigenvalue is -1"):
        sample_gaussian_graphical([[1.0, 2.0], [2.0, 1.0]], 5)
    with pytest.raises(ValueError, match="positive definite"):
        sample_gaussian_graphical(np.zeros((3, 3)), 5)  # singular


def test_bad_precision_shape_and_values():
    with pytest.raises(ValueError, match="square"):
        sample_gaussian_graphical(np.eye(3)[:2], 5)
    with pytest.raises(ValueError, match="2-dimensional"):
        sample_gaussian_graphical(np.ones(3), 5)
    with pytest.raises(ValueError, match="NaN"):
        sample_gaussian_graphical([[np.nan, 0.0], [0.0, 1.0]], 5)
    with pytest.raises(TypeError, match="precision"):
        sample_gaussian_graphical("eye", 5)


def test_bad_n_samples_and_random_state():
    with pytest.raises(ValueError, match="n_samples"):
        sample_gaussian_graphical(np.eye(2), 0)
    with pytest.raises(TypeError, match="n_samples"):
        sample_gaussian_graphical(np.eye(2), 2.5)
    with pytest.raises(TypeError, match="random_state"):
        sample_gaussian_graphical(np.eye(2), 2, random_state="x")


def test_bad_generator_arguments():
    with pytest.raises(ValueError, match="degree must be < n_vertices"):
        random_gaussian_graphical_model(4, 4)
    with pytest.raises(ValueError, match="must be even"):
        random_gaussian_graphical_model(5, 3)
    with pytest.raises(ValueError, match="edge_weight"):
        random_gaussian_graphical_model(10, 3, edge_weight=0.34)  # 3 * 0.34 > 1
    with pytest.raises(ValueError, match="edge_weight"):
        random_gaussian_graphical_model(10, 3, edge_weight=-0.1)
    with pytest.raises(TypeError, match="edge_weight"):
        random_gaussian_graphical_model(10, 3, edge_weight=True)
    with pytest.raises(ValueError, match="signs"):
        random_gaussian_graphical_model(10, 3, signs="mixed")
    with pytest.raises(TypeError, match="n_vertices"):
        random_gaussian_graphical_model(10.0, 3)
    with pytest.raises(ValueError, match="degree"):
        random_gaussian_graphical_model(10, -1)
