"""Vertex kernels at extreme parameters (issue 28 §3 items 4 and 12): the cost does not
grow with ``sigma2`` or ``p``, the result is the kernel (checked against the symmetric
eigendecomposition of the normalised Laplacian), and a value beyond the float range is a
clear error, never an inf."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import kernelkit.graphs.vertex_kernels as vk
from kernelkit.graphs import (
    adjacency_matrix,
    diffusion_diagonal,
    diffusion_kernel,
    diffusion_operator,
    laplacian,
    laplacian_polynomial,
    laplacian_polynomial_operator,
    normalized_adjacency,
    normalized_laplacian,
    random_walk_coefficients,
    random_walk_diagonal,
    random_walk_kernel,
    random_walk_operator,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore::kernelkit.graphs.vertex_kernels.SingularKernelWarning",
    "ignore::kernelkit.graphs.vertex_kernels.NotPSDWarning",
)

NORMALIZATIONS = ["none", "global", "local"]


def weighted_graph():
    W = np.zeros((6, 6))
    for i, j, w in [(0, 1, 2.0), (1, 2, 0.5), (2, 0, 1.0), (2, 3, 3.0), (4, 5, 0.25)]:
        W[i, j] = W[j, i] = w
    return W


GRAPHS = {
    "4-cycle": nx.cycle_graph(4),
    "path": nx.path_graph(12),
    "mixed": nx.disjoint_union_all([nx.petersen_graph(), nx.path_graph(2), nx.empty_graph(1)]),
    "weighted": weighted_graph(),
    "one vertex": nx.empty_graph(1),
    "edgeless": nx.empty_graph(3),
}


def spectral(G, f):
    """``f(L)`` for the normalised Laplacian by its symmetric eigendecomposition; the
    eigenvalues of the null space (one per component with an edge) set to 0 exactly."""
    L = normalized_laplacian(G).toarray()
    lam, U = np.linalg.eigh(L)
    lam = np.where(np.abs(lam) < 1e-12, 0.0, lam)
    with np.errstate(under="ignore"):
        return (U * f(lam)) @ U.T


def normalized(C, normalize, isolated):
    C = C.copy()
    if normalize == "global":
        kappa = np.diag(C).mean()
        return C / kappa if kappa > 0 else np.eye(len(C))
    if normalize == "local":
        d = np.diag(C).copy()
        s = np.where((d > 0) & ~isolated, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 0.0)
        C = C * s[:, None] * s[None, :]
        np.fill_diagonal(C, 1.0)
    return C


def isolated_of(G):
    return np.diff(adjacency_matrix(G).indptr) == 0


# -- item 4: the diffusion kernel for any sigma2 --------------------------------------------


@pytest.mark.parametrize("name", list(GRAPHS))
@pytest.mark.parametrize("sigma2", [1e6, 1e8, 1e300])
@pytest.mark.parametrize("normalize", NORMALIZATIONS)
def test_diffusion_for_huge_sigma2_is_the_eigendecomposition(name, sigma2, normalize):
    G = GRAPHS[name]
    ref = normalized(
        spectral(G, lambda lam: np.exp(-0.5 * sigma2 * lam)), normalize, isolated_of(G)
    )
    V = len(ref)
    C = diffusion_kernel(G, sigma2, normalize=normalize)
    np.testing.assert_allclose(C, ref, rtol=0, atol=1e-13)
    K = diffusion_operator(G, sigma2, normalize=normalize)
    np.testing.assert_allclose(K @ np.eye(V), ref, rtol=0, atol=1e-13)
    np.testing.assert_allclose(K @ np.ones(V), ref @ np.ones(V), rtol=0, atol=1e-12)
    d_hat = np.diag(spectral(G, lambda lam: np.exp(-0.5 * sigma2 * lam)))
    np.testing.assert_allclose(diffusion_diagonal(G, sigma2), d_hat, rtol=0, atol=1e-13)


@pytest.mark.parametrize("sigma2", [40.0, 300.0, 3e3, 3e4, 3e5])
def test_diffusion_by_scaling_and_squaring_is_the_eigendecomposition(sigma2):
    # between the series (small sigma2) and the exact limit (huge sigma2): a long path,
    # whose spectral gap ~ 1e-3 keeps the kernel away from its limit up to sigma2 ~ 1e5
    G = nx.path_graph(60)
    ref = spectral(G, lambda lam: np.exp(-0.5 * sigma2 * lam))
    C = diffusion_kernel(G, sigma2)
    np.testing.assert_allclose(C, ref, rtol=0, atol=1e-12)
    assert (C >= 0).all()
    np.testing.assert_array_equal(C, C.T)
    np.testing.assert_allclose(diffusion_kernel(G, sigma2, normalize="local").diagonal(), 1.0)


def test_diffusion_for_tiny_sigma2_is_the_identity_to_first_order():
    G = GRAPHS["mixed"]
    L = normalized_laplacian(G).toarray()
    for sigma2 in [1e-300, 1e-30]:
        np.testing.assert_allclose(diffusion_kernel(G, sigma2), np.eye(len(L)) - 0.5 * sigma2 * L,
                                   rtol=0, atol=1e-16)  # fmt: skip


def test_diffusion_operator_on_a_graph_too_large_for_the_dense_route(monkeypatch):
    monkeypatch.setattr(vk, "MAX_DENSE_VERTICES", 10)
    G = nx.path_graph(300)  # gap bound 1 / (299 * 598): no limit yet at sigma2 = 1e6
    with pytest.raises(ValueError, match=r"sigma2=1000000\.0 is too large.*use sigma2 <= "):
        diffusion_operator(G, 1e6)
    with pytest.raises(ValueError, match=r"sigma2=1000000\.0 is too large"):
        diffusion_diagonal(G, 1e6)
    # beyond the stated upper bound the operator is the exact limit, at no cost
    K = diffusion_operator(G, 1e300)
    ref = spectral(G, lambda lam: np.exp(-0.5e300 * lam))
    np.testing.assert_allclose(K @ np.eye(300), ref, rtol=0, atol=1e-13)


def test_diffusion_with_weights_at_the_ends_of_the_float_range():
    W = np.zeros((4, 4))
    W[0, 1] = W[1, 0] = 1e308
    W[0, 2] = W[2, 0] = 1e308  # degree 2e308: beyond the float range
    W[2, 3] = W[3, 2] = 5e307
    C = diffusion_kernel(W, 1.0)
    ref = diffusion_kernel(W / 1e308, 1.0)  # the kernel does not change with the scale
    np.testing.assert_allclose(C, ref, rtol=1e-14, atol=0)
    np.testing.assert_allclose(normalized_adjacency(W).toarray(),
                               normalized_adjacency(W / 1e308).toarray(), rtol=1e-15)  # fmt: skip
    tiny = np.array([[0.0, 1e-320], [1e-320, 0.0]])
    np.testing.assert_allclose(diffusion_kernel(tiny, 2.0), diffusion_kernel(np.sign(tiny), 2.0))


def test_degrees_beyond_the_float_range_are_refused_naming_G():
    W = np.array([[0.0, 1e308, 1e308], [1e308, 0.0, 0.0], [1e308, 0.0, 0.0]])
    from kernelkit.graphs import degrees

    for f in (degrees, laplacian):
        with pytest.raises(ValueError, match="G has a weighted degree beyond the float64"):
            f(W)


# -- the random walk kernel for any p (the same fault) ---------------------------------------


@pytest.mark.parametrize("name", list(GRAPHS))
@pytest.mark.parametrize(
    "p", [10**6, 10**9, 10**100, 10**400], ids=["1e6", "1e9", "1e100", "1e400"]
)
@pytest.mark.parametrize("a", [2.0, 3.0, 1.5])
def test_random_walk_for_huge_p_is_the_eigendecomposition(name, p, a):
    G = GRAPHS[name]

    def f(lam):  # (1 - lam/a)^p for any p: a p of 1e300 stands for anything larger
        base = np.maximum(np.abs(1 - lam / a), 1e-300)
        return np.sign(1 - lam / a) ** (p % 2) * np.exp(float(min(p, 10**300)) * np.log(base))

    with np.errstate(under="ignore"):
        ref = spectral(G, f)
    V = len(ref)
    np.testing.assert_allclose(random_walk_kernel(G, a, p), ref, rtol=0, atol=1e-13)
    for normalize in NORMALIZATIONS:
        K = random_walk_operator(G, a, p, normalize=normalize)
        np.testing.assert_allclose(
            K @ np.eye(V), normalized(ref, normalize, isolated_of(G)), rtol=0, atol=1e-12
        )
    np.testing.assert_allclose(random_walk_diagonal(G, a, p), np.diag(ref), rtol=0, atol=1e-13)


def test_random_walk_warning_for_a_huge_odd_p():
    # a < 2, odd p on a bipartite graph: NotPSDWarning, whose message held (1 - 2/a)^p
    # as a float power of a Python int (an OverflowError beyond 1e308)
    G = nx.cycle_graph(6)
    with pytest.warns(vk.NotPSDWarning, match="not positive semi-definite"):
        C = random_walk_kernel(G, 1.5, 10**400 + 1)
    np.testing.assert_allclose(C, np.full((6, 6), 1 / 6), rtol=0, atol=1e-15)


@pytest.mark.parametrize("p", [200, 5000, 10**5])
def test_random_walk_by_repeated_squaring_is_the_matrix_power(p):
    G = nx.path_graph(80)
    a = 2.5
    f = lambda lam: (1 - lam / a) ** p  # noqa: E731
    ref = spectral(G, f)
    np.testing.assert_allclose(random_walk_kernel(G, a, p), ref, rtol=0, atol=1e-12)


def test_random_walk_operator_on_a_graph_too_large_for_the_dense_route(monkeypatch):
    monkeypatch.setattr(vk, "MAX_DENSE_VERTICES", 10)
    G = nx.path_graph(300)
    with pytest.raises(ValueError, match=r"p=1000000 is too large.*use p <= 131072 or p >= "):
        random_walk_operator(G, 3.0, 10**6)
    with pytest.raises(ValueError, match=r"p=1000000 is too large"):
        random_walk_diagonal(G, 3.0, 10**6)
    K = random_walk_operator(G, 3.0, 10**300)  # the exact limit
    np.testing.assert_allclose(K @ np.eye(300), spectral(G, lambda lam: (lam < 1e-12) * 1.0),
                               rtol=0, atol=1e-13)  # fmt: skip


def test_random_walk_coefficients_beyond_memory_are_refused():
    with pytest.raises(ValueError, match=r"random_walk_coefficients.*would need about"):
        random_walk_coefficients(2.0, 10**14)


# -- item 12: Laplacian polynomials beyond the float range -----------------------------------


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_laplacian_polynomial_whose_value_overflows_raises_naming_coefficients(kind):
    G = nx.cycle_graph(4)
    w = [0.0, 0.0, 0.0, 1e308]  # L^3 has entries above 1 (20 on the diagonal, combinatorial)
    with pytest.raises(OverflowError, match=r"coefficients.*beyond the float64 range"):
        laplacian_polynomial(G, w, laplacian=kind)
    K = laplacian_polynomial_operator(G, w, laplacian=kind)
    with pytest.raises(OverflowError, match=r"coefficients.*beyond the float64 range"):
        K @ np.array([1.0, -1.0, 1.0, -1.0])


def test_laplacian_polynomial_with_a_finite_value_and_huge_intermediate_terms():
    """Horner's rule in L can overflow where the value does not: huge weights (degrees
    2e308) with tiny coefficients, huge coefficients whose terms stay finite; computed in
    a scaled Laplacian, the value is exact to rounding."""
    W = np.zeros((3, 3))
    W[0, 1] = W[1, 0] = W[0, 2] = W[2, 0] = 1e308  # L entries 2e308 overflow
    P = laplacian_polynomial(W, [1.0, 1e-300, 1e-310])
    L1 = np.array([[2.0, -1.0, -1.0], [-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]])  # L / 1e308
    ref = np.eye(3) + 1e8 * L1 + 1e306 * (L1 @ L1)  # w_2 (1e308)^2 = 1e306
    np.testing.assert_allclose(P, ref, rtol=1e-14)
    P = laplacian_polynomial(nx.path_graph(3), [0.0, 1e300, -1e300])  # w1 L + w2 L^2, finite
    L = laplacian(nx.path_graph(3)).toarray()
    np.testing.assert_allclose(P, 1e300 * (L - L @ L), rtol=1e-14)
    v = np.array([1e300, 0.0, -1e300])  # and a huge vector through the operator
    K = laplacian_polynomial_operator(nx.path_graph(3), [0.0, 1e-300])
    np.testing.assert_allclose(K @ v, L @ np.array([1.0, 0.0, -1.0]), rtol=1e-15)


def test_laplacian_polynomial_operator_returns_no_nan_for_an_overflowing_intermediate():
    # L 1 = 0, so P(L) 1 = w_0 1: it was NaN (inf - inf in Horner's rule)
    K = laplacian_polynomial_operator(nx.cycle_graph(4), [2.0, 0.0, 0.0, 1e308])
    np.testing.assert_allclose(K @ np.ones(4), 2.0 * np.ones(4), rtol=1e-15)


def test_laplacian_polynomial_of_an_edgeless_graph_with_huge_coefficients():
    # L = 0: only w_0 counts, however large the others
    np.testing.assert_array_equal(laplacian_polynomial(nx.empty_graph(3), [3.0, 1e308, 1e308]),
                                  3.0 * np.eye(3))  # fmt: skip
