"""Learning-curve entry points on extreme and bad input (issue 28 §3 items 6 and 11):
finite input of any magnitude gives a finite, correct result or a clear error naming the
argument."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kernelkit.graphs.ensembles import DegreeDistribution
from kernelkit.learning_curves import (
    cavity,
    cavity_on_graph,
    eigenvalue_approximation,
    kesten_mckay_density,
    master_curve,
    regular_tree_approximation,
)


def _identity_kernel_error(scale: float, noise: float, nu: float) -> float:
    """eq. 18 for ``C = scale I``: ``e (1 + nu / (e + s2)) = 1`` in units of ``scale``,
    ``e^2 + b e - s2 = 0`` with ``b = s2 + nu - 1``; its positive root, without
    cancellation, times ``scale``."""
    s2 = noise / scale
    b = s2 + nu - 1.0
    root = math.hypot(b, 2.0 * math.sqrt(s2))  # sqrt(b^2 + 4 s2), no overflow
    e = 2.0 * s2 / (b + root) if b > 0 else (root - b) / 2.0
    return e * scale


# -- item 11: the fixed point of eq. 18 for any noise --------------------------------------


@pytest.mark.parametrize("noise", [1e-300, 1e-200, 1e-30, 0.1, 1e30, 1e300])
@pytest.mark.parametrize("nu", [0.5, 1.0, 2.0, 1e10])
def test_eigenvalue_approximation_matches_the_closed_form_for_any_noise(noise, nu):
    got = eigenvalue_approximation(np.eye(3), noise, [nu])
    assert got[0] == pytest.approx(_identity_kernel_error(1.0, noise, nu), rel=1e-9, abs=0)


@pytest.mark.parametrize(("scale", "noise"), [(1e300, 0.1), (1e-300, 0.1), (1e-300, 1e-300)])
@pytest.mark.parametrize("nu", [0.5, 1.0, 3.0])
def test_eigenvalue_approximation_for_any_kernel_scale(scale, noise, nu):
    got = eigenvalue_approximation(scale * np.eye(4), noise, [nu])
    assert got[0] == pytest.approx(_identity_kernel_error(scale, noise, nu), rel=1e-9, abs=0)


@pytest.mark.parametrize("noise", [1e-300, 1e-100, 1e300, 1e100])
@pytest.mark.parametrize("nu", [0.5, 1.0, 2.0])
def test_regular_tree_approximation_tiny_and_huge_noise_is_finite(noise, nu):
    eps = regular_tree_approximation(3, 2.0, 10, noise, [nu])
    assert np.isfinite(eps).all() and 0.0 <= eps[0] <= 1.0


def test_regular_tree_approximation_small_noise_limits():
    """As noise -> 0 the error tends to the noise-free fixed point: positive for nu < 1,
    like sqrt(noise) for nu = 1 and like noise / (nu - 1) for nu > 1."""
    e = lambda noise, nu: float(regular_tree_approximation(3, 2.0, 10, noise, [nu])[0])  # noqa: E731
    assert (
        e(1e-300, 0.5) == pytest.approx(e(1e-200, 0.5), rel=1e-12, abs=0) and e(1e-300, 0.5) > 1e-3
    )
    assert e(1e-300, 1.0) / e(1e-280, 1.0) == pytest.approx(1e-10, rel=1e-6, abs=0)
    assert e(1e-300, 3.0) / e(1e-280, 3.0) == pytest.approx(1e-20, rel=1e-9, abs=0)
    assert e(1e-300, 3.0) == pytest.approx(0.5e-300, rel=1e-6, abs=0)  # noise / (nu - 1)


def test_regular_tree_approximation_huge_noise_limit():
    """As noise -> inf nothing is learnt: 1 - epsilon falls like nu m2 / noise."""
    gap = lambda noise: 1.0 - float(regular_tree_approximation(3, 2.0, 10, noise, [1.0])[0])  # noqa: E731
    assert gap(1e6) / gap(1e8) == pytest.approx(100.0, rel=1e-4, abs=0)
    assert regular_tree_approximation(3, 2.0, 10, 1e300, [1.0, 1e300])[0] == 1.0


@pytest.mark.parametrize("p", [10**12, 10**20, 10**40, 10**400])
def test_regular_tree_approximation_huge_p_tends_to_the_master_curve(p):
    nus = [1.0, 1e-9, 1e3]
    tree = regular_tree_approximation(3, 2.0, p, 0.1, nus)
    master = master_curve(nus, 0.1, p=p)
    assert np.isfinite(tree).all()
    np.testing.assert_allclose(tree, master, rtol=1e-8, atol=0)


@pytest.mark.parametrize(
    "kwargs", [{"p": 10**400}, {"d": 10**300, "p": 10}, {"a": 1e300, "p": 10}, {"p": 10**40}]
)
def test_master_curve_extreme_parameters_are_finite(kwargs):
    eps = master_curve([0.0, 1e-300, 1.0, 1e300], 0.1, **kwargs)
    assert np.isfinite(eps).all() and eps[0] == 1.0 and np.all((eps >= 0) & (eps <= 1))
    assert np.all(np.diff(eps) <= 0)  # more data, less error


def test_kesten_mckay_density_huge_degree_and_eigenvalues():
    assert kesten_mckay_density([1e300, -1e300, 3.0], 3).tolist() == [0.0, 0.0, 0.0]
    d = 10**300  # R = 2 sqrt(d - 1) / d: the density at lambda = 1 is R d / (2 pi)
    assert kesten_mckay_density([1.0], d)[0] == pytest.approx(
        1.0 / math.pi * 1e150, rel=1e-12, abs=0
    )


# -- item 6: size guards of the simulation entry points ------------------------------------

BEYOND = r"would need about [\d.e+]+ [KMGTPE]iB of memory, more than this machine has"


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"population": 10**12}, "population=1000000000000"),
        ({"p": 10**6, "population": 10}, "p=1000000"),
        ({"population": 10**9, "normalize": "local"}, "normalize='local'"),
    ],
)
def test_cavity_beyond_memory_is_refused_up_front(kwargs, name):
    args = {"a": 2.0, "p": 5, "noise": 0.1, "nus": [1.0], **kwargs}
    with pytest.raises(ValueError, match=BEYOND) as info:
        cavity(DegreeDistribution.regular(3), **args)
    assert name in str(info.value)


def test_cavity_on_graph_beyond_memory_is_refused_up_front():
    import networkx as nx

    with pytest.raises(ValueError, match=BEYOND) as info:
        cavity_on_graph(nx.cycle_graph(4), 2.0, 10**6, 0.1, [1, 1, 1, 1], normalize="global")
    assert "cavity_on_graph(p=1000000)" in str(info.value)


@pytest.mark.parametrize("normalize", ["global", "local"])
def test_the_cavity_memory_estimate_is_an_honest_upper_bound(monkeypatch, normalize):
    import tracemalloc

    import kernelkit.learning_curves.cavity_method as cm

    asked = []
    monkeypatch.setattr(cm, "check_memory", lambda n, *args: asked.append(n))
    tracemalloc.start()
    cavity(DegreeDistribution.poisson(3.0), 2.0, 8, 0.1, [0.5, 4.0], normalize=normalize,
           population=1500, sweeps=4, random_state=0, n_jobs=1)  # fmt: skip
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= asked[0] <= 3 * peak


@pytest.mark.parametrize("nu", [1e11, 1e300])
def test_cavity_refuses_nus_beyond_its_closed_form_average(nu):
    with pytest.raises(ValueError, match="nus must be at most 1e\\+10"):
        cavity(DegreeDistribution.regular(3), 2.0, 3, 0.1, [1.0, nu], population=10)


def test_cavity_with_many_examples_per_vertex():
    # nu = 1e8: the average over gamma ~ Poisson(nu) takes a window of O(sqrt(nu)) terms
    # around nu, not all 1e8 of them; every vertex then holds about 1e8 examples and the
    # error is about noise / nu
    r = cavity(DegreeDistribution.regular(3), 2.0, 3, 0.1, [1e8], population=20, sweeps=2,
               random_state=0)  # fmt: skip
    assert r.epsilon[0] == pytest.approx(0.1 / 1e8, rel=1e-3, abs=0)


def _path_kernel(G):
    from kernelkit.graphs import random_walk_kernel

    return random_walk_kernel(G, 3.0, 2)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_graphs": 10**9, "n_datasets": 10**9}, ValueError, BEYOND),
        ({"nus": [1.0, 1e300]}, ValueError, "nus must be at most 1e\\+18"),
        ({"nus": [1e19]}, ValueError, "nus must be at most 1e\\+18"),
    ],
)
def test_simulate_refuses_sizes_beyond_the_machine(kwargs, error, match):
    import networkx as nx

    from kernelkit.learning_curves import simulate

    args = {"nus": [1.0], "n_graphs": 1, "n_datasets": 2, "random_state": 0, **kwargs}
    with pytest.raises(error, match=match):
        simulate(lambda random_state: nx.path_graph(3), _path_kernel, 0.1, **args)


@pytest.mark.parametrize("noise", [1e8, 1e20, 1e300])
def test_simulate_with_huge_noise_learns_next_to_nothing(noise):
    """Sigma = C - C_J (C_JJ + N)^-1 C_J: for a huge noise the error is the prior
    variance less about C^2 / noise; the old N - N^2 (B^-1)_ii cancelled to rounding
    noise of order noise * 1e-16 (or overflowed)."""
    import networkx as nx

    from kernelkit.learning_curves import simulate

    G = nx.path_graph(5)
    C = _path_kernel(G)
    curve = simulate(lambda random_state: G, _path_kernel, noise, [2.0], n_graphs=1,
                     n_datasets=3, random_state=0)  # fmt: skip
    # C_iJ (C_JJ + N)^-1 C_Ji <= C_iJ N^-1 C_Ji = sum_j gamma_j C_ij^2 / noise, and every
    # gamma_j ~ Poisson(2) here is far below 30
    bound = 30.0 * np.diag(C @ C) / noise
    for s in range(3):
        gap = np.diag(C) - curve.vertex_errors[0, s, 0]
        assert np.all(gap >= 0) and np.all(gap <= bound)


@pytest.mark.parametrize("kernel", [None, "C"])
def test_eigenvalue_approximation_refuses_a_kernel_that_is_not_an_array(kernel):
    with pytest.raises(TypeError, match="kernel must be a \\(V, V\\) array"):
        eigenvalue_approximation(kernel, 0.1, [1.0])
