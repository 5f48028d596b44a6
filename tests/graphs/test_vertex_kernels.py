"""Random walk, diffusion and Laplacian-polynomial kernels on graph vertices
(Urry & Sollich 2013, eqs. 1-3; the lecture notes' polynomial filters)."""

from __future__ import annotations

import doctest
import warnings
from contextlib import contextmanager
from fractions import Fraction
from math import comb

import networkx as nx
import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse, stats
from scipy.sparse.csgraph import shortest_path
from scipy.sparse.linalg import LinearOperator, expm_multiply

import kernelkit.graphs.vertex_kernels as vk
from kernelkit.graphs.adjacency import (
    adjacency_matrix,
    degrees,
    laplacian,
    normalized_adjacency,
    normalized_laplacian,
)
from kernelkit.graphs.vertex_kernels import (
    NotPSDWarning,
    SingularKernelWarning,
    diffusion_diagonal,
    diffusion_kernel,
    diffusion_operator,
    laplacian_polynomial,
    laplacian_polynomial_operator,
    random_walk_coefficients,
    random_walk_diagonal,
    random_walk_kernel,
    random_walk_operator,
)

NORMALIZATIONS = ["none", "global", "local"]

# a = 2 (the default) is singular on every graph with a bipartite component (a single
# edge, a tree): expected in most tests, checked in its own test
pytestmark = pytest.mark.filterwarnings(
    "ignore::kernelkit.graphs.vertex_kernels.SingularKernelWarning"
)

graphs = st.builds(
    lambda n, prob, seed: nx.gnp_random_graph(n, prob, seed=seed),
    st.integers(1, 12),
    st.floats(0.0, 1.0),
    st.integers(0, 2**31 - 1),
)


def test_docstring_examples():
    result = doctest.testmod(vk, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def mixed_graph(seed=0):
    """A random graph with a giant component, a single edge and an isolated vertex."""
    G = nx.gnp_random_graph(30, 0.1, seed=seed)
    G.add_edge(30, 31)
    G.add_node(32)
    return G


@pytest.fixture(params=["sparse", "dense"])
def product_path(request, monkeypatch):
    """Run a test with sparse products and again with the dense (BLAS) path."""
    monkeypatch.setattr(vk, "_SPARSE_COST_RATIO", 10**9 if request.param == "dense" else 0)
    return request.param


@contextmanager
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def walk_matrix(G, a):
    L = normalized_laplacian(G).toarray()
    return np.eye(len(L)) - L / a


# -- coefficients (eq. 3) ------------------------------------------------------------------


@pytest.mark.parametrize(("a", "p"), [(2, 0), (2, 1), (2, 7), (3.5, 12), (1.25, 9), (100, 20)])
def test_coefficients_exact(a, p):
    a_ = Fraction(a)
    exact = [comb(p, q) * (1 - 1 / a_) ** (p - q) * a_**-q for q in range(p + 1)]
    c = random_walk_coefficients(a, p)
    assert c.shape == (p + 1,)
    np.testing.assert_allclose(c, [float(x) for x in exact], rtol=1e-14, atol=0)
    assert c.sum() == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize(("a", "p"), [(2.0, 1500), (4.0, 5000), (1.01, 300), (1e6, 50)])
def test_coefficients_large_p(a, p):
    c = random_walk_coefficients(a, p)
    ref = stats.binom.pmf(np.arange(p + 1), p, 1 / a)
    assert np.isfinite(c).all() and (c >= 0).all()
    assert c.sum() == pytest.approx(1.0, abs=1e-14)
    big = ref > 1e-250
    np.testing.assert_allclose(c[big], ref[big], rtol=1e-11)


# -- random walk kernel: identities --------------------------------------------------------


def test_equation_3_equals_the_matrix_power(product_path):
    G = mixed_graph()
    N = normalized_adjacency(G).toarray()
    for a, p in [(2.0, 1), (2.0, 10), (3.0, 7), (1.5, 4)]:
        C = random_walk_kernel(G, a, p)
        power = np.linalg.matrix_power(walk_matrix(G, a), p)
        binomial = sum(
            c * np.linalg.matrix_power(N, q) for q, c in enumerate(random_walk_coefficients(a, p))
        )
        np.testing.assert_allclose(C, power, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(C, binomial, rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(C, C.T)


def test_sparse_path_on_a_larger_graph():
    G = nx.random_regular_graph(3, 300, seed=2)
    assert not vk._is_dense(vk._lazy_walk(normalized_adjacency(G), 2.0))
    C = random_walk_kernel(G, 2.5, 9)
    np.testing.assert_allclose(C, np.linalg.matrix_power(walk_matrix(G, 2.5), 9), rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(graphs, st.floats(2.0, 8.0), st.integers(0, 12))
def test_eigenvalues_are_powers_of_the_laplacian_ones(G, a, p):
    C = random_walk_kernel(G, a, p)
    lam = np.linalg.eigvalsh(normalized_laplacian(G).toarray())
    expected = np.sort((1 - lam / a) ** p)
    got = np.linalg.eigvalsh(C)
    np.testing.assert_allclose(got, expected, atol=1e-12)
    assert got.min() >= -1e-12 * max(1.0, got.max())  # PSD for a >= 2


def test_entries_vanish_exactly_beyond_p_steps(product_path):
    G = nx.random_regular_graph(3, 40, seed=3)
    G.add_node(40)
    dist = shortest_path(adjacency_matrix(G), unweighted=True)
    for p in (1, 3, 5):
        C = random_walk_kernel(G, 2.0, p)
        assert (C[dist > p] == 0).all()
        assert (C[dist <= p] > 0).all()


def test_small_components_closed_forms():
    """Isolated vertex (1 - 1/a)^p; a single edge sum over even q of c_q (Sec. 2.2)."""
    G = nx.Graph([(0, 1)])
    G.add_node(2)
    for a, p in [(2.0, 1), (2.0, 10), (3.0, 7), (1.5, 6)]:
        C = random_walk_kernel(G, a, p)
        c = random_walk_coefficients(a, p)
        assert C[2, 2] == pytest.approx((1 - 1 / a) ** p, rel=1e-14)
        assert C[0, 0] == pytest.approx(c[::2].sum(), rel=1e-13)
        assert C[0, 1] == pytest.approx(c[1::2].sum(), rel=1e-13, abs=1e-300)
        assert C[0, 2] == 0 and C[1, 2] == 0


def test_long_walk_limit_on_a_connected_non_bipartite_graph():
    """p -> inf: C_hat -> sqrt(d_i d_j) / sum(d); global -> sqrt(d_i d_j) / mean(d);
    local -> 1 (the fully correlated limit)."""
    G = nx.gnp_random_graph(25, 0.25, seed=4)
    assert nx.is_connected(G) and not nx.is_bipartite(G)
    d = degrees(G)
    root = np.sqrt(np.outer(d, d))
    p = 3000
    np.testing.assert_allclose(random_walk_kernel(G, 2.0, p), root / d.sum(), rtol=1e-9)
    np.testing.assert_allclose(
        random_walk_kernel(G, 2.0, p, normalize="global"), root / d.mean(), rtol=1e-9
    )
    np.testing.assert_allclose(random_walk_kernel(G, 2.0, p, normalize="local"), 1.0, rtol=1e-9)


# -- normalisation -------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(graphs, st.floats(2.0, 6.0), st.integers(0, 10))
def test_normalisation_identities(G, a, p):
    C_hat = random_walk_kernel(G, a, p)
    d = np.diag(C_hat)
    glob = random_walk_kernel(G, a, p, normalize="global")
    loc = random_walk_kernel(G, a, p, normalize="local")
    assert np.diag(glob).mean() == pytest.approx(1.0, rel=1e-13)
    np.testing.assert_allclose(glob, C_hat / d.mean(), rtol=1e-13)
    np.testing.assert_array_equal(np.diag(loc), 1.0)
    np.testing.assert_allclose(loc, C_hat / np.sqrt(np.outer(d, d)), rtol=1e-13, atol=1e-300)


def test_underflowing_isolated_vertices_never_give_nan():
    G = mixed_graph()
    p = 3000  # (1/2)^3000 underflows: C_hat_ii = 0 at the isolated vertex
    C_hat = random_walk_kernel(G, 2.0, p)
    assert C_hat[32, 32] == 0.0
    loc = random_walk_kernel(G, 2.0, p, normalize="local")
    assert np.isfinite(loc).all() and loc[32, 32] == 1.0 and not loc[32, :32].any()
    K = random_walk_operator(G, 2.0, p, normalize="local")
    np.testing.assert_allclose(K @ np.eye(33), loc, rtol=1e-10, atol=1e-12)
    edgeless = nx.empty_graph(4)
    for normalize in ("global", "local"):
        np.testing.assert_array_equal(
            random_walk_kernel(edgeless, 2.0, p, normalize=normalize), np.eye(4)
        )
        K = random_walk_operator(edgeless, 2.0, p, normalize=normalize)
        np.testing.assert_array_equal(K @ np.eye(4), np.eye(4))
    d = diffusion_kernel(G, sigma2=3000.0, normalize="local")
    assert np.isfinite(d).all() and d[32, 32] == 1.0


# -- definiteness warnings -----------------------------------------------------------------


def test_not_psd_warning_for_small_a_and_odd_p():
    G = nx.cycle_graph(6)  # bipartite: lambda_L = 2
    with pytest.warns(NotPSDWarning, match="not positive semi-definite"):
        C = random_walk_kernel(G, 1.5, 3)
    assert np.linalg.eigvalsh(C).min() == pytest.approx((1 - 2 / 1.5) ** 3)
    with pytest.warns(NotPSDWarning):
        random_walk_operator(G, 1.5, 3)
    with no_warnings():
        C = random_walk_kernel(G, 1.5, 4)  # even p: PSD
    assert np.linalg.eigvalsh(C).min() > -1e-12
    K4 = nx.complete_graph(4)  # lambda_L = 4/3 < a = 1.5: still PSD
    with no_warnings():
        C = random_walk_kernel(K4, 1.5, 3)
    assert np.linalg.eigvalsh(C).min() > 0
    with pytest.warns(NotPSDWarning, match="1.33333"):
        C = random_walk_kernel(K4, 1.2, 3)  # 4/3 > 1.2
    assert np.linalg.eigvalsh(C).min() < 0


def test_not_psd_check_on_a_large_non_bipartite_graph():
    G = nx.cycle_graph(601)  # odd: lambda_max = 1 - cos(600 pi / 601) ~ 2 - 3e-5
    with pytest.warns(NotPSDWarning, match="1.9999"):
        random_walk_operator(G, 1.9, 5)
    with no_warnings():
        random_walk_operator(nx.complete_graph(601), 1.9, 5)


def test_singular_warning_at_a_equals_2_on_bipartite_components():
    G = nx.disjoint_union(nx.cycle_graph(5), nx.path_graph(3))
    with pytest.warns(SingularKernelWarning, match="vertex 5"):
        C = random_walk_kernel(G, 2.0, 3)
    assert np.linalg.eigvalsh(C).min() == pytest.approx(0.0, abs=1e-15)
    with no_warnings():
        random_walk_kernel(nx.cycle_graph(5), 2.0, 3)
        random_walk_kernel(G, 2.0, 0)
        random_walk_kernel(G, 2.5, 3)
        random_walk_kernel(nx.empty_graph(3), 2.0, 3)


# -- operators and diagonals ---------------------------------------------------------------


@pytest.mark.parametrize("normalize", NORMALIZATIONS)
@pytest.mark.parametrize(("a", "p"), [(2.0, 10), (3.0, 7), (4.0, 0)])
def test_random_walk_operator_matches_dense(normalize, a, p):
    G = mixed_graph(seed=5)
    V = len(G)
    K = random_walk_operator(G, a, p, normalize=normalize, block_size=7)
    assert isinstance(K, LinearOperator)
    assert K.shape == (V, V) and K.dtype == np.float64
    C = random_walk_kernel(G, a, p, normalize=normalize)
    X = np.random.default_rng(0).normal(size=(V, 3))
    scale = np.abs(C).max()
    np.testing.assert_allclose(K @ np.eye(V), C, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(K @ X, C @ X, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(K.matvec(X[:, 0]), C @ X[:, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(K.rmatvec(X[:, 0]), C @ X[:, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(K.T @ X, C @ X, rtol=1e-12, atol=1e-12 * scale)


@settings(max_examples=20, deadline=None)
@given(graphs, st.floats(2.0, 6.0), st.integers(0, 9), st.sampled_from(NORMALIZATIONS))
def test_random_walk_operator_property(G, a, p, normalize):
    C = random_walk_kernel(G, a, p, normalize=normalize)
    K = random_walk_operator(G, a, p, normalize=normalize, block_size=5)
    np.testing.assert_allclose(K @ np.eye(len(G)), C, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("p", [0, 1, 4, 9])
@pytest.mark.parametrize("block_size", [None, 1, 4])
def test_random_walk_diagonal(p, block_size):
    G = mixed_graph(seed=6)
    d = random_walk_diagonal(G, 2.5, p, block_size=block_size)
    np.testing.assert_allclose(d, np.diag(random_walk_kernel(G, 2.5, p)), rtol=1e-13)


def test_operator_returns_new_arrays():
    K = random_walk_operator(nx.path_graph(3), 2.0, 0)
    v = np.ones(3)
    out = K @ v
    out[0] = 5.0
    assert v[0] == 1.0


# -- diffusion kernel (eq. 1) --------------------------------------------------------------


@pytest.mark.parametrize("sigma2", [0.0, 0.1, 1.0, 6.0, 60.0])
def test_diffusion_kernel_is_the_matrix_exponential(sigma2, product_path):
    G = mixed_graph(seed=7)
    L = normalized_laplacian(G).toarray()
    C = diffusion_kernel(G, sigma2)
    np.testing.assert_allclose(C, scipy.linalg.expm(-0.5 * sigma2 * L), atol=1e-13)
    np.testing.assert_array_equal(C, C.T)
    lam = np.linalg.eigvalsh(L)
    np.testing.assert_allclose(
        np.linalg.eigvalsh(C), np.sort(np.exp(-0.5 * sigma2 * lam)), atol=1e-13
    )
    assert C[32, 32] == pytest.approx(np.exp(-0.5 * sigma2), rel=1e-13)
    assert (C >= 0).all()


def test_diffusion_sigma2_zero_is_identity():
    np.testing.assert_array_equal(diffusion_kernel(nx.path_graph(4), 0.0), np.eye(4))


@pytest.mark.parametrize("normalize", NORMALIZATIONS)
@pytest.mark.parametrize("sigma2", [0.5, 8.0])
def test_diffusion_operator_matches_dense_and_expm_multiply(normalize, sigma2):
    G = mixed_graph(seed=8)
    V = len(G)
    C = diffusion_kernel(G, sigma2, normalize=normalize)
    K = diffusion_operator(G, sigma2, normalize=normalize, block_size=6)
    np.testing.assert_allclose(K @ np.eye(V), C, rtol=1e-12, atol=1e-13)
    d_hat = np.diag(diffusion_kernel(G, sigma2))
    np.testing.assert_allclose(diffusion_diagonal(G, sigma2, block_size=5), d_hat, rtol=1e-12)
    if normalize == "none":
        v = np.random.default_rng(1).normal(size=V)
        ref = expm_multiply(-0.5 * sigma2 * normalized_laplacian(G), v)
        np.testing.assert_allclose(K @ v, ref, atol=1e-13)
    if normalize == "local":
        np.testing.assert_array_equal(np.diag(C), 1.0)
    if normalize == "global":
        assert np.diag(C).mean() == pytest.approx(1.0, rel=1e-13)


def test_random_walk_tends_to_diffusion():
    """a, p -> inf with p/a = sigma2/2 fixed (after eq. 2); the gap closes like 1/a."""
    G = mixed_graph(seed=9)
    D = diffusion_kernel(G, 2.0)
    gaps = [np.abs(random_walk_kernel(G, a, int(a)) - D).max() for a in (100.0, 1000.0)]
    assert gaps[1] < 2e-3 and gaps[1] < gaps[0] / 5


# -- Laplacian polynomials (lecture notes) ------------------------------------------------


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_laplacian_polynomial_equals_the_sum_of_powers(kind, product_path):
    G = mixed_graph(seed=10)
    L = (laplacian(G) if kind == "combinatorial" else normalized_laplacian(G)).toarray()
    w = [0.5, -1.0, 0.25, 0.0, -0.125]
    P = laplacian_polynomial(G, w, laplacian=kind)
    ref = sum(c * np.linalg.matrix_power(L, i) for i, c in enumerate(w))
    np.testing.assert_allclose(P, ref, atol=1e-12 * np.abs(ref).max())
    K = laplacian_polynomial_operator(G, w, laplacian=kind)
    np.testing.assert_allclose(K @ np.eye(len(G)), P, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_array_equal(laplacian_polynomial(G, [3.0]), 3.0 * np.eye(len(G)))


def test_laplacian_polynomial_is_localised():
    G = nx.random_regular_graph(3, 40, seed=11)
    dist = shortest_path(adjacency_matrix(G), unweighted=True)
    for degree in (1, 2, 4):
        P = laplacian_polynomial(G, np.ones(degree + 1))
        assert (P[dist > degree] == 0).all()


@settings(max_examples=20, deadline=None)
@given(graphs, st.integers(0, 2**31 - 1))
def test_permutation_equivariance(G, seed):
    """P C(G) P^T = C(P G P^T) for every kernel."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(G))
    A = adjacency_matrix(G).toarray()
    B = A[np.ix_(perm, perm)]  # vertex k of B is vertex perm[k] of A
    pairs = [
        (lambda M: random_walk_kernel(M, 3.0, 5, normalize="local")),
        (lambda M: diffusion_kernel(M, 2.0, normalize="global")),
        (lambda M: laplacian_polynomial(M, [1.0, 0.5, -0.2])),
    ]
    for f in pairs:
        np.testing.assert_allclose(f(B), f(A)[np.ix_(perm, perm)], rtol=1e-12, atol=1e-14)


def test_weighted_graphs_use_their_weights():
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 2.0), (1, 2, 0.5), (2, 3, 1.0), (3, 0, 4.0)])
    W = nx.to_numpy_array(G)
    np.testing.assert_allclose(
        random_walk_kernel(G, 2.0, 5, weight="weight"), random_walk_kernel(W, 2.0, 5)
    )
    assert not np.allclose(random_walk_kernel(G, 2.0, 5), random_walk_kernel(W, 2.0, 5))
    np.testing.assert_allclose(
        diffusion_kernel(G, 1.0, weight="weight"), diffusion_kernel(sparse.csr_matrix(W), 1.0)
    )


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "error", "match"),
    [
        (1.0, ValueError, "a must be a finite number > 1"),
        (0.5, ValueError, "> 1"),
        (-3, ValueError, "> 1"),
        (float("nan"), ValueError, "> 1"),
        (float("inf"), ValueError, "> 1"),
        (True, TypeError, "a must be a real number"),
        ("2", TypeError, "a must be a real number"),
        (None, TypeError, "a must be a real number"),
    ],
)
def test_bad_a(a, error, match):
    for f in (random_walk_kernel, random_walk_operator, random_walk_diagonal):
        with pytest.raises(error, match=match):
            f(nx.path_graph(3), a, 2)
    with pytest.raises(error, match=match):
        random_walk_coefficients(a, 2)


@pytest.mark.parametrize(
    ("p", "error", "match"),
    [
        (-1, ValueError, "p must be >= 0"),
        (2.5, TypeError, "p must be an integer"),
        (2.0, TypeError, "p must be an integer"),
        (True, TypeError, "p must be an integer"),
        ("3", TypeError, "p must be an integer"),
    ],
)
def test_bad_p(p, error, match):
    for f in (random_walk_kernel, random_walk_operator, random_walk_diagonal):
        with pytest.raises(error, match=match):
            f(nx.path_graph(3), 2.0, p)
    with pytest.raises(error, match=match):
        random_walk_coefficients(2.0, p)


def test_numpy_scalars_are_accepted():
    G = nx.path_graph(4)
    np.testing.assert_array_equal(
        random_walk_kernel(G, np.float32(2.0), np.int64(3)), random_walk_kernel(G, 2, 3)
    )


@pytest.mark.parametrize(
    ("sigma2", "error"), [(-0.1, ValueError), (float("nan"), ValueError), (True, TypeError)]
)
def test_bad_sigma2(sigma2, error):
    for f in (diffusion_kernel, diffusion_operator, diffusion_diagonal):
        with pytest.raises(error, match="sigma2"):
            f(nx.path_graph(3), sigma2)


def test_bad_options():
    G = nx.path_graph(3)
    for f in (random_walk_kernel, random_walk_operator, diffusion_kernel, diffusion_operator):
        with pytest.raises(ValueError, match="normalize must be one of 'none', 'global'"):
            f(G, normalize="cosine")
    for f in (random_walk_operator, random_walk_diagonal, diffusion_operator):
        with pytest.raises(ValueError, match="block_size must be >= 1"):
            f(G, block_size=0)
    with pytest.raises(ValueError, match="laplacian must be one of"):
        laplacian_polynomial(G, [1.0], laplacian="random-walk")


@pytest.mark.parametrize(
    ("coefficients", "error", "match"),
    [
        ([], ValueError, "non-empty 1-D"),
        ([[1.0, 2.0]], ValueError, "non-empty 1-D"),
        (3.0, ValueError, "non-empty 1-D"),
        ([1.0, np.nan], ValueError, "finite"),
        ([1.0, 1j], TypeError, "real"),
        ("12", TypeError, "1-D array of numbers"),
        (["a", "b"], TypeError, "1-D array of numbers"),
        (None, TypeError, "1-D array of numbers"),
    ],
)
def test_bad_coefficients(coefficients, error, match):
    for f in (laplacian_polynomial, laplacian_polynomial_operator):
        with pytest.raises(error, match=match):
            f(nx.path_graph(3), coefficients)


ALL_KERNELS = [
    lambda G: random_walk_kernel(G),
    lambda G: random_walk_operator(G),
    lambda G: random_walk_diagonal(G),
    lambda G: diffusion_kernel(G),
    lambda G: diffusion_operator(G),
    lambda G: diffusion_diagonal(G),
    lambda G: laplacian_polynomial(G, [1.0, 1.0]),
    lambda G: laplacian_polynomial_operator(G, [1.0, 1.0]),
]


@pytest.mark.parametrize("f", ALL_KERNELS)
def test_bad_graphs_are_refused_by_every_kernel(f):
    with pytest.raises(ValueError, match="self-loop at vertex 1"):
        f(nx.Graph([(0, 1), (1, 1)]))
    with pytest.raises(ValueError, match="negative or non-finite"):
        f(np.array([[0.0, -1.0], [-1.0, 0.0]]))
    with pytest.raises(ValueError, match="no vertices"):
        f(nx.Graph())
    with pytest.raises(ValueError, match="directed"):
        f(nx.DiGraph([(0, 1)]))


def test_dense_size_limit(monkeypatch):
    monkeypatch.setattr(vk, "MAX_DENSE_VERTICES", 5)
    G = nx.path_graph(6)
    for f, op in [
        (random_walk_kernel, "random_walk_operator"),
        (diffusion_kernel, "diffusion_operator"),
        (lambda G: laplacian_polynomial(G, [1.0]), "laplacian_polynomial_operator"),
    ]:
        with pytest.raises(ValueError, match=f"6 vertices.*use {op}"):
            f(G)
    random_walk_operator(G)  # operators have no limit


def test_product_path_fixture_switches(product_path):
    M = vk._lazy_walk(normalized_adjacency(nx.path_graph(5)), 2.0)
    assert vk._is_dense(M) == (product_path == "dense")
