"""Tests of kernelkit.learning_curves.eigen (Urry & Sollich 2013, eqs. 18-26)."""

from __future__ import annotations

import doctest
import functools
import math

import networkx as nx
import numpy as np
import pytest
from scipy.integrate import quad

import kernelkit.learning_curves.eigen as eigen
from kernelkit.graphs import normalized_laplacian, random_regular_graph, random_walk_kernel
from kernelkit.learning_curves import (
    eigenvalue_approximation,
    kesten_mckay_density,
    master_curve,
    master_integral,
    regular_tree_approximation,
    simulate,
)
from kernelkit.learning_curves.eigen import _kesten_mckay_quadrature

pytestmark = pytest.mark.filterwarnings("ignore::kernelkit.graphs.SingularKernelWarning")


def test_doctests():
    result = doctest.testmod(eigen, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# -- Kesten-McKay (eq. 20) ---------------------------------------------------------------


@pytest.mark.parametrize("d", [3, 4, 7])
def test_kesten_mckay_integrates_to_one(d):
    r = 2 * math.sqrt(d - 1) / d
    total = quad(lambda x: float(kesten_mckay_density(x, d)), 1 - r, 1 + r, limit=200)[0]
    assert total == pytest.approx(1.0, abs=1e-9)
    lam, w = _kesten_mckay_quadrature(d)
    assert w.sum() == pytest.approx(1.0, abs=1e-13)
    # moments of the normalised adjacency 1 - lambda on the tree: 0, 1/d, 0, (2d^2 - d)/d^4
    x = 1 - lam
    np.testing.assert_allclose(
        [w @ x, w @ x**2, w @ x**3, w @ x**4], [0, 1 / d, 0, (2 * d * d - d) / d**4], atol=1e-13
    )
    assert kesten_mckay_density(1 + r + 1e-3, d) == 0.0
    assert kesten_mckay_density(1 - r - 1e-3, d) == 0.0


def test_kesten_mckay_matches_a_large_random_regular_graph():
    """Loosely: moments of the spectrum of one random 3-regular graph with V = 1000."""
    G = random_regular_graph(3, 1000, random_state=0)
    lam_graph = np.linalg.eigvalsh(normalized_laplacian(G).toarray())
    lam, w = _kesten_mckay_quadrature(3)
    for k in range(1, 7):
        assert np.mean((1 - lam_graph) ** k) == pytest.approx(w @ (1 - lam) ** k, abs=5e-3)
    # and the histogram, away from the edges
    hist, edges = np.histogram(lam_graph, bins=10, range=(0.2, 1.8), density=False)
    centres = (edges[:-1] + edges[1:]) / 2
    expected = kesten_mckay_density(centres, 3) * (edges[1] - edges[0]) * 1000
    np.testing.assert_allclose(hist, expected, rtol=0.25)


# -- eq. 18 on a graph -------------------------------------------------------------------


@pytest.mark.parametrize("normalize", ["global", "local"])
def test_graph_approximation_starts_at_mean_prior_variance(normalize):
    G = nx.erdos_renyi_graph(80, 3 / 79, seed=1)
    C = random_walk_kernel(G, 2.0, 10, normalize=normalize)
    eps = eigenvalue_approximation(C, 0.01, [0.0, 1e-3, 0.01, 0.1, 1.0, 10.0, 100.0])
    assert eps[0] == pytest.approx(1.0, rel=1e-12)
    assert np.all(np.diff(eps) < 0)
    raw = random_walk_kernel(G, 2.0, 10)
    assert eigenvalue_approximation(raw, 0.01, [0.0])[0] == pytest.approx(np.trace(raw) / 80)


def test_graph_approximation_solves_eq_18():
    G = random_regular_graph(3, 60, random_state=3)
    C = random_walk_kernel(G, 2.0, 5, normalize="global")
    lam = np.linalg.eigvalsh(C / 60)
    for nu in [0.05, 0.5, 5.0]:
        (eps,) = eigenvalue_approximation(C, 0.1, [nu])
        g = np.sum(1 / (1 / lam + nu * 60 / (eps + 0.1)))  # eq. 18 with N = nu V
        assert eps == pytest.approx(g, rel=1e-12)


def test_graph_approximation_large_nu():
    """nu eps / sigma2 -> 1 for a positive definite kernel."""
    G = random_regular_graph(3, 50, random_state=0)
    C = random_walk_kernel(G, 4.0, 2, normalize="local")
    noise = 0.01
    eps = eigenvalue_approximation(C, noise, [1e3, 1e5])
    ratio = np.array([1e3, 1e5]) * eps / noise
    assert abs(ratio[1] - 1) < 1e-4 and abs(ratio[1] - 1) < abs(ratio[0] - 1)


def test_graph_approximation_near_simulation():
    """An approximation: within 15% of the exact curve at sigma2 = 0.1 (Fig. 3, left)."""
    G = random_regular_graph(3, 150, random_state=4)
    kernel = functools.partial(random_walk_kernel, a=2.0, p=10, normalize="global")
    nus = [0.1, 1.0, 10.0]
    curve = simulate(
        lambda random_state: G, kernel, 0.1, nus, n_graphs=1, n_datasets=20, random_state=0
    )
    approx = eigenvalue_approximation(kernel(G), 0.1, nus)
    np.testing.assert_allclose(approx, curve.epsilon, rtol=0.15)


def test_graph_approximation_bad_input():
    with pytest.raises(ValueError, match="square"):
        eigenvalue_approximation(np.ones((2, 3)), 0.1, [1.0])
    with pytest.raises(ValueError, match="symmetric"):
        eigenvalue_approximation(np.triu(np.ones((3, 3))), 0.1, [1.0])
    with pytest.raises(ValueError, match="noise"):
        eigenvalue_approximation(np.eye(3), -1.0, [1.0])
    with pytest.raises(ValueError, match="nus"):
        eigenvalue_approximation(np.eye(3), 0.1, [-1.0])


# -- eqs. 20-21 on the tree spectrum -----------------------------------------------------


def test_tree_approximation_properties():
    nus = np.logspace(-3, 3, 13)
    eps = regular_tree_approximation(3, 2.0, 10, 0.01, np.concatenate([[0.0], nus]))
    assert eps[0] == pytest.approx(1.0, rel=1e-13)
    assert np.all(np.diff(eps) < 0)
    big = regular_tree_approximation(3, 4.0, 2, 0.01, [1e6])
    assert 1e6 * big[0] / 0.01 == pytest.approx(1.0, abs=1e-4)


def test_tree_approximation_close_to_large_graph():
    """The tree spectrum is the large-V limit of the graph spectrum (McKay 1981)."""
    G = random_regular_graph(3, 600, random_state=1)
    C = random_walk_kernel(G, 2.0, 5, normalize="global")
    nus = [0.1, 1.0, 10.0]
    np.testing.assert_allclose(
        regular_tree_approximation(3, 2.0, 5, 0.1, nus),
        eigenvalue_approximation(C, 0.1, nus),
        rtol=0.02,
    )


def test_tree_approximation_agrees_with_adaptive_quadrature():
    d, a, p, noise, nu = 3, 2.0, 200, 0.1, 0.01
    r = 2 * math.sqrt(d - 1) / d
    kappa = quad(
        lambda x: float(kesten_mckay_density(x, d)) * (1 - x / a) ** p,
        1 - r,
        1 + r,
        points=[1 - r + 1e-3],
        limit=400,
        epsabs=0,
    )[0]
    (eps,) = regular_tree_approximation(d, a, p, noise, [nu])
    t = nu / (eps + noise)
    g = quad(
        lambda x: float(kesten_mckay_density(x, d)) / (kappa * (1 - x / a) ** -p + t),
        1 - r,
        1 + r,
        points=[1 - r + 1e-3, 1 - r + 1e-2],
        limit=400,
        epsabs=0,
    )[0]
    assert eps == pytest.approx(g, rel=1e-8)


def test_tree_approximation_huge_p_is_finite():
    eps = regular_tree_approximation(3, 2.0, 100_000, 0.1, [1e-6, 1e-4])
    assert np.all(np.isfinite(eps)) and np.all((eps > 0) & (eps < 1))


def test_tree_approximation_bad_input():
    with pytest.raises(ValueError, match="d"):
        regular_tree_approximation(2, 2.0, 10, 0.1, [1.0])
    with pytest.raises(ValueError, match="a must be >= 2"):
        regular_tree_approximation(3, 1.5, 10, 0.1, [1.0])
    with pytest.raises(ValueError, match="p"):
        regular_tree_approximation(3, 2.0, -1, 0.1, [1.0])
    with pytest.raises(TypeError, match="p"):
        regular_tree_approximation(3, 2.0, 1.5, 0.1, [1.0])


# -- master curve (eqs. 22-26) -----------------------------------------------------------


def test_master_integral():
    assert float(master_integral(0.0)) == pytest.approx(math.sqrt(math.pi) / 2, rel=1e-14)
    for z in [1e-3, 0.5, 1.0, 30.0, 1e4]:
        ref = quad(
            lambda y, z=z: math.sqrt(y) / (math.exp(y) + z) if y < 700 else 0.0,
            0,
            np.inf,
            epsabs=0,
            epsrel=1e-13,
            limit=400,
        )[0]
        assert float(master_integral(z)) == pytest.approx(ref, rel=1e-12)
    # Sommerfeld expansion for large z: (2/3) x^{3/2} (1 + pi^2 / (8 x^2)) / z, x = log z
    x = 60.0
    z = math.exp(x)
    assert float(master_integral(z)) == pytest.approx(
        (2 / 3) * x**1.5 * (1 + math.pi**2 / (8 * x * x)) / z, rel=1e-5
    )
    assert master_integral(np.array([[0.0, 1.0]])).shape == (1, 2)
    with pytest.raises(ValueError, match="z"):
        master_integral(-1.0)


def test_master_curve_properties():
    eps = master_curve([0.0, 1e-4, 1e-3, 1e-2, 0.1, 1.0], 0.1, p=100)
    assert eps[0] == 1.0 and np.all(np.diff(eps) < 0)
    # collapse: depends on nu p^{3/2} only
    x = np.array([0.1, 3.0, 100.0])
    np.testing.assert_allclose(
        master_curve(x / 50**1.5, 0.1, p=50), master_curve(x / 1000**1.5, 0.1, p=1000), rtol=1e-12
    )


def test_tree_curves_approach_master_curve_for_large_p():
    """Fig. 4 (left): the eigenvalue curves approach the master curve as p grows."""
    x = np.array([0.1, 1.0, 10.0, 100.0])  # nu p^{3/2}
    gaps = []
    for p in [20, 100, 500]:
        tree = regular_tree_approximation(3, 2.0, p, 0.1, x / p**1.5)
        gaps.append(np.max(np.abs(tree - master_curve(x / p**1.5, 0.1, p=p))))
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[2] < 0.05
