"""Tests of kernelkit.learning_curves.simulation (Urry & Sollich 2013, eqs. 10-12)."""

from __future__ import annotations

import doctest
import functools

import networkx as nx
import numpy as np
import pytest

import kernelkit.learning_curves.simulation as simulation
from kernelkit.graphs import (
    erdos_renyi_graph,
    random_regular_graph,
    random_walk_kernel,
)
from kernelkit.learning_curves import LearningCurve, simulate
from kernelkit.learning_curves.simulation import _mismatch_error, _posterior_variance

pytestmark = pytest.mark.filterwarnings("ignore::kernelkit.graphs.SingularKernelWarning")


def regular(n: int = 60):
    return functools.partial(random_regular_graph, 3, n)


def rw(normalize: str = "global", a: float = 2.0, p: int = 5):
    return functools.partial(random_walk_kernel, a=a, p=p, normalize=normalize)


def naive_posterior_variance(C, gamma, noise):
    """Brute force: one row per example, dense inverse of the N x N matrix (eq. 10)."""
    x = np.repeat(np.arange(C.shape[0]), gamma)
    if x.size == 0:
        return np.diag(C).copy()
    K = C[np.ix_(x, x)] + noise * np.eye(x.size)
    k = C[:, x]
    return np.diag(C) - np.einsum("ij,jk,ik->i", k, np.linalg.inv(K), k)


def naive_mismatch(C_s, C_t, gamma, noise):
    """Brute force mismatch error per vertex: f_hat = k_s K_s^{-1} y, y = f_x + noise."""
    x = np.repeat(np.arange(C_s.shape[0]), gamma)
    A = C_s[:, x] @ np.linalg.inv(C_s[np.ix_(x, x)] + noise * np.eye(x.size))
    cov_y = C_t[np.ix_(x, x)] + noise * np.eye(x.size)
    return (
        np.diag(C_t)
        - 2 * np.einsum("ij,ji->i", A, C_t[x, :])
        + np.einsum("ij,jk,ik->i", A, cov_y, A)
    )


def test_doctests():
    result = doctest.testmod(simulation, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("normalize", ["global", "local"])
def test_no_data_gives_mean_prior_variance_one(normalize):
    curve = simulate(regular(), rw(normalize), 0.1, [0.0], n_graphs=2, n_datasets=2)
    assert isinstance(curve, LearningCurve)
    np.testing.assert_allclose(curve.epsilon, [1.0], rtol=1e-12)
    assert curve.matched


@pytest.mark.parametrize("normalize", ["global", "local"])
def test_decreasing_in_nu(normalize):
    nus = [0.0, 0.1, 0.3, 1.0, 3.0, 10.0]
    curve = simulate(
        functools.partial(erdos_renyi_graph, 60, 3.0),
        rw(normalize),
        0.01,
        nus,
        n_graphs=3,
        n_datasets=5,
        random_state=1,
    )
    assert np.all(np.diff(curve.epsilon) < 0)
    assert np.all(curve.vertex_errors >= 0)


@pytest.mark.parametrize("noise", [1e-4, 0.1, 2.0])
@pytest.mark.parametrize("nu", [0.05, 0.7, 4.0])
def test_agrees_with_brute_force(noise, nu):
    rng = np.random.RandomState(0)
    # a tree: bipartite, so C is singular at a = 2
    G = nx.balanced_tree(3, 3)  # 40 vertices
    C = random_walk_kernel(G, a=2.0, p=4, normalize="global")
    assert np.linalg.eigvalsh(C).min() < 1e-12
    for _ in range(3):
        gamma = rng.poisson(nu, 40)
        np.testing.assert_allclose(
            _posterior_variance(C, gamma, noise),
            naive_posterior_variance(C, gamma, noise),
            rtol=0,
            atol=1e-10,
        )


def test_simulate_matches_brute_force_end_to_end():
    G = random_regular_graph(3, 30, random_state=5)
    kernel = rw("local", p=3)
    nus = np.array([0.2, 1.5])
    curve = simulate(
        lambda random_state: G, kernel, 0.05, nus, n_graphs=1, n_datasets=3, random_state=7
    )
    # replay the random stream of simulate
    rng = np.random.RandomState(7)
    seeds = rng.randint(0, 2**32 - 1, size=(1, 2), dtype=np.int64)
    gammas = np.random.RandomState(int(seeds[0, 1])).poisson(nus[None, :, None], size=(3, 2, 30))
    C = kernel(G)
    for s in range(3):
        for k in range(2):
            np.testing.assert_allclose(
                curve.vertex_errors[0, s, k],
                naive_posterior_variance(C, gammas[s, k], 0.05),
                atol=1e-10,
            )
    np.testing.assert_allclose(curve.epsilon, curve.vertex_errors.mean(axis=(0, 1, 3)))


def test_one_example_initial_decay():
    """eps(0) - eps(1 example at i) = (1/V) sum_j C_ij^2 / (C_ii + sigma2) (Sec. 3.4.1)."""
    G = erdos_renyi_graph(50, 3.0, random_state=2)
    C = random_walk_kernel(G, a=2.0, p=6, normalize="global")
    noise = 0.03
    eps0 = np.diag(C).mean()
    for i in range(50):
        gamma = np.zeros(50, dtype=np.int64)
        gamma[i] = 1
        decay = eps0 - _posterior_variance(C, gamma, noise).mean()
        assert decay == pytest.approx(
            (C[i] ** 2).sum() / (C[i, i] + noise) / 50, rel=1e-12, abs=1e-15
        )


def test_seeded_reproducibility():
    a = simulate(regular(), rw(), 0.1, [0.5, 2.0], n_graphs=2, n_datasets=3, random_state=11)
    b = simulate(regular(), rw(), 0.1, [0.5, 2.0], n_graphs=2, n_datasets=3, random_state=11)
    c = simulate(regular(), rw(), 0.1, [0.5, 2.0], n_graphs=2, n_datasets=3, random_state=12)
    np.testing.assert_array_equal(a.vertex_errors, b.vertex_errors)
    assert not np.array_equal(a.errors, c.errors)


def test_n_jobs_does_not_change_result():
    a = simulate(
        regular(), rw(), 0.1, [0.5, 2.0], n_graphs=2, n_datasets=3, random_state=4, n_jobs=1
    )
    b = simulate(
        regular(), rw(), 0.1, [0.5, 2.0], n_graphs=2, n_datasets=3, random_state=4, n_jobs=2
    )
    np.testing.assert_array_equal(a.vertex_errors, b.vertex_errors)


def test_standard_error_shrinks_with_more_datasets():
    G = erdos_renyi_graph(60, 3.0, random_state=0)
    fixed = lambda random_state: G  # noqa: E731
    few = simulate(fixed, rw(), 0.01, [0.3, 1.0], n_graphs=1, n_datasets=8, random_state=0)
    many = simulate(fixed, rw(), 0.01, [0.3, 1.0], n_graphs=1, n_datasets=128, random_state=0)
    assert np.all(many.stderr < 0.6 * few.stderr)
    one = simulate(fixed, rw(), 0.01, [0.3], n_graphs=1, n_datasets=1, random_state=0)
    assert np.isnan(one.stderr).all()
    graphs = simulate(regular(), rw(), 0.01, [0.3], n_graphs=4, n_datasets=2, random_state=0)
    means = graphs.errors.mean(axis=1)[:, 0]
    assert graphs.stderr[0] == pytest.approx(means.std(ddof=1) / 2)


def test_large_nu_limit():
    """Large nu: nu eps / sigma2 -> 1 (a well-conditioned kernel, a = 4, p = 2)."""
    noise = 0.01
    curve = simulate(
        regular(),
        rw("local", a=4.0, p=2),
        noise,
        [1e2, 1e4],
        n_graphs=1,
        n_datasets=2,
        random_state=0,
    )
    ratio = curve.nus * curve.epsilon / noise
    assert abs(ratio[1] - 1) < 2e-3
    assert abs(ratio[1] - 1) < abs(ratio[0] - 1)


def test_mismatch_reduces_to_matched():
    G = erdos_renyi_graph(40, 3.0, random_state=1)
    C = random_walk_kernel(G, 2.0, 5, normalize="global")
    gamma = np.random.RandomState(0).poisson(0.8, 40)
    np.testing.assert_allclose(
        _mismatch_error(C, C, gamma, 0.01), _posterior_variance(C, gamma, 0.01), atol=1e-12
    )
    a = simulate(regular(), rw(), 0.1, [0.0, 0.5, 2.0], n_graphs=2, n_datasets=2, random_state=3)
    b = simulate(
        regular(), (rw(), rw()), 0.1, [0.0, 0.5, 2.0], n_graphs=2, n_datasets=2, random_state=3
    )
    assert not b.matched
    np.testing.assert_allclose(a.vertex_errors, b.vertex_errors, atol=1e-12)


@pytest.mark.parametrize("noise", [1e-4, 0.1])
def test_mismatch_agrees_with_brute_force(noise):
    G = erdos_renyi_graph(40, 3.0, random_state=4)
    C_s = random_walk_kernel(G, 2.0, 5, normalize="global")
    C_t = random_walk_kernel(G, 2.0, 5, normalize="local")
    rng = np.random.RandomState(1)
    for nu in [0.3, 2.0]:
        gamma = rng.poisson(nu, 40)
        np.testing.assert_allclose(
            _mismatch_error(C_s, C_t, gamma, noise),
            naive_mismatch(C_s, C_t, gamma, noise),
            atol=1e-10,
        )
        # both orders of teacher and student
        np.testing.assert_allclose(
            _mismatch_error(C_t, C_s, gamma, noise),
            naive_mismatch(C_t, C_s, gamma, noise),
            atol=1e-10,
        )


def test_mismatch_global_student_local_teacher():
    ens = functools.partial(erdos_renyi_graph, 80, 3.0)
    curve = simulate(
        ens, (rw("global"), rw("local")), 1e-3, [0.0, 1.0], n_graphs=2, n_datasets=3, random_state=0
    )
    np.testing.assert_allclose(curve.epsilon[0], 1.0)  # the teacher's mean prior variance
    assert curve.epsilon[1] < 1.0


def test_bad_input():
    ens, ker = regular(), rw()
    with pytest.raises(ValueError, match="noise"):
        simulate(ens, ker, -0.1, [1.0])
    with pytest.raises(ValueError, match="noise"):
        simulate(ens, ker, 0.0, [1.0])
    with pytest.raises(ValueError, match="nus"):
        simulate(ens, ker, 0.1, [1.0, -0.5])
    with pytest.raises(ValueError, match="nus"):
        simulate(ens, ker, 0.1, [])
    with pytest.raises(ValueError, match="n_graphs"):
        simulate(ens, ker, 0.1, [1.0], n_graphs=0)
    with pytest.raises(ValueError, match="n_datasets"):
        simulate(ens, ker, 0.1, [1.0], n_datasets=0)
    with pytest.raises(TypeError, match="n_datasets"):
        simulate(ens, ker, 0.1, [1.0], n_datasets=2.5)
    with pytest.raises(TypeError, match="ensemble"):
        simulate(nx.cycle_graph(5), ker, 0.1, [1.0])
    with pytest.raises(TypeError, match="kernel"):
        simulate(ens, "random_walk", 0.1, [1.0])
    with pytest.raises(TypeError, match="kernel"):
        simulate(ens, (ker, ker, ker), 0.1, [1.0])
    with pytest.raises(ValueError, match="square"):
        simulate(ens, lambda G: np.ones((3, 4)), 0.1, [1.0], n_graphs=1)
    with pytest.raises(ValueError, match="symmetric"):
        simulate(ens, lambda G: np.triu(np.ones((60, 60))), 0.1, [1.0], n_graphs=1)
    with pytest.raises(ValueError, match="positive semi-definite"):
        simulate(ens, lambda G: -np.eye(60), 0.1, [5.0], n_graphs=1)
    sizes = iter([10, 12])
    with pytest.raises(ValueError, match="same number of vertices"):
        simulate(lambda random_state: nx.cycle_graph(next(sizes)), rw(), 0.1, [1.0], n_graphs=2)


def test_singular_prior_on_tree_components_does_not_warn():
    """At a = 2 every tree component of an Erdos-Renyi graph makes the kernel singular;
    with noise > 0 the posterior is regular, so simulate keeps the warning to itself."""
    import warnings

    from kernelkit.graphs import SingularKernelWarning

    ens = functools.partial(erdos_renyi_graph, 300, 3.0)
    with pytest.warns(SingularKernelWarning):
        random_walk_kernel(ens(random_state=0), a=2.0, p=10, normalize="global")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularKernelWarning)
        curve = simulate(
            ens, rw("global", p=10), 1e-2, [0.5], n_graphs=2, n_datasets=2, random_state=0
        )
    assert np.all(np.isfinite(curve.epsilon))
