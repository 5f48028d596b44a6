"""The random walk kernel on the infinite d-regular tree (Urry & Sollich 2013, eqs. 4, 5,
47-48): recursion against quadrature, against the limit, against a dense kernel on a
large finite tree, and against closed forms."""

from __future__ import annotations

import math
import warnings

import networkx as nx
import numpy as np
import pytest

from kernelkit.graphs.trees import regular_tree_kernel

L_MAX = 14


def limit(d: int, l_max: int = L_MAX) -> np.ndarray:
    """Eq. 5, written out independently of the module."""
    return np.array([(1 + l * (d - 2) / d) / (d - 1) ** (l / 2) for l in range(l_max + 1)])


def naive_recursion(d: int, a: float, p: int, l_max: int) -> np.ndarray:
    """Eq. 4 with a Python loop over l on the full, untruncated range ``0..l_max + p + 1``
    (no value is ever cut off), unnormalised until the end."""
    n = l_max + p + 2
    c = [1.0] + [0.0] * (n - 1)
    for _ in range(p):
        new = [0.0] * n
        new[0] = (1 - 1 / a) * c[0] + c[1] / a
        for l in range(1, n - 1):
            new[l] = c[l - 1] / (a * d) + (1 - 1 / a) * c[l] + (d - 1) * c[l + 1] / (a * d)
        c = [v / new[0] for v in new]  # gamma_p, so that nothing overflows
    return np.array(c[: l_max + 1])


def d_regular_ball(d: int, depth: int) -> nx.Graph:
    """The ball of radius ``depth`` of the d-regular tree: a root with ``d`` children,
    every other vertex above the last level with ``d - 1`` children. (networkx's
    ``balanced_tree(d - 1, depth)`` gives the root only ``d - 1`` children.)"""
    G = nx.Graph()
    G.add_node(0)
    level, next_id = [0], 1
    for depth_now in range(depth):
        new_level = []
        for v in level:
            for _ in range(d if depth_now == 0 else d - 1):
                G.add_edge(v, next_id)
                new_level.append(next_id)
                next_id += 1
        level = new_level
    return G


# -- recursion against quadrature -----------------------------------------------------


@pytest.mark.parametrize("d", [2, 3, 4, 5, 12])
def test_recursion_matches_quadrature(d):
    for a in (1.1, 2.0, 4.5):
        for p in (0, 1, 2, 3, 4, 5, 10, 37, 100, 500):
            R = regular_tree_kernel(d, a, p, L_MAX, method="recursion")
            Q = regular_tree_kernel(d, a, p, L_MAX, method="quadrature")
            np.testing.assert_allclose(Q, R, rtol=1e-10, atol=1e-12, err_msg=f"{d=} {a=} {p=}")


def test_quadrature_matches_recursion_for_long_profiles():
    # many distances (l_max >> p and l_max ~ p) need more nodes than the p-dependent part
    for d, a, p, l_max in [(3, 2.0, 20, 200), (4, 1.5, 150, 150), (2, 3.0, 60, 80)]:
        R = regular_tree_kernel(d, a, p, l_max)
        Q = regular_tree_kernel(d, a, p, l_max, method="quadrature")
        np.testing.assert_allclose(Q, R, rtol=1e-10, atol=1e-13)


def test_recursion_matches_untruncated_naive_recursion():
    for d, a, p, l_max in [(3, 2.0, 40, 14), (4, 1.3, 25, 3), (2, 2.0, 31, 0), (5, 6.0, 7, 20)]:
        np.testing.assert_allclose(
            regular_tree_kernel(d, a, p, l_max), naive_recursion(d, a, p, l_max), rtol=1e-13
        )


@pytest.mark.parametrize("p", [0, 3, 101, 1000])
def test_recursion_does_not_depend_on_l_max(p):
    # the truncated work array keeps l <= l_max exact: the same floating-point operations
    # as on a longer array, so the common part agrees bit for bit
    short = regular_tree_kernel(3, 2.0, p, 5)
    long = regular_tree_kernel(3, 2.0, p, 300)
    np.testing.assert_array_equal(short, long[:6])


# -- values and structure ----------------------------------------------------------------


def test_spec_values_fig1():
    # Urry & Sollich (2013) Fig. 1, checked in the spec: C_1 = 0.790 (p = 10), 0.919 (p = 100)
    for method in ("recursion", "quadrature"):
        assert round(float(regular_tree_kernel(3, 2.0, 10, 1, method=method)[1]), 3) == 0.790
        assert round(float(regular_tree_kernel(3, 2.0, 100, 1, method=method)[1]), 3) == 0.919
    assert regular_tree_kernel(3, 2.0, np.inf, 1)[1] == pytest.approx(2 * math.sqrt(2) / 3)
    assert round(2 * math.sqrt(2) / 3, 4) == 0.9428


@pytest.mark.parametrize("method", ["recursion", "quadrature"])
def test_normalised_shape_and_dtype(method):
    for d, a, p, l_max in [(3, 2.0, 0, 0), (3, 2.0, 7, 14), (6, 1.2, 50, 3), (2, 9.0, 4, 9)]:
        C = regular_tree_kernel(d, a, p, l_max, method=method)
        assert C.shape == (l_max + 1,)
        assert C.dtype == np.float64
        assert C[0] == 1.0
        assert np.isfinite(C).all()


@pytest.mark.parametrize("p", [0, 1, 2, 3, 4, 5, 9])
def test_zero_beyond_distance_p(p):
    for d, a in [(2, 2.0), (3, 2.0), (4, 1.5), (7, 3.0)]:
        R = regular_tree_kernel(d, a, p, 12)
        assert np.all(R[p + 1 :] == 0.0)  # exactly: the walk cannot get further
        assert np.all(R[: p + 1] > 0.0)  # every coefficient is positive for a > 1
        Q = regular_tree_kernel(d, a, p, 12, method="quadrature")
        assert np.abs(Q[p + 1 :]).max(initial=0.0) < 1e-14
    np.testing.assert_array_equal(regular_tree_kernel(3, 2.0, 0, 4), [1, 0, 0, 0, 0])


def test_one_step_by_hand():
    # C_hat_{0,1} = 1 - 1/a, C_hat_{1,1} = 1/(a d); two steps: 4/17 and 1/68 at d=4, a=3
    d, a = 5, 4.0
    C = regular_tree_kernel(d, a, 1, 3)
    np.testing.assert_allclose(C, [1, (1 / (a * d)) / (1 - 1 / a), 0, 0], rtol=1e-15)
    np.testing.assert_allclose(regular_tree_kernel(4, 3.0, 2, 2), [1, 4 / 17, 1 / 68])


@pytest.mark.parametrize("method", ["recursion", "quadrature"])
def test_chain_closed_form(method):
    # d = 2, a = 2: 1 - lambda/2 = cos^2(x/2), so C_hat_{l,p} = binom(2p, p + l) / 4^p and
    # C_{l,p} = binom(2p, p + l) / binom(2p, p)
    for p in (1, 2, 5, 30, 200):
        expected = [math.comb(2 * p, p + l) / math.comb(2 * p, p) for l in range(L_MAX + 1)]
        C = regular_tree_kernel(2, 2.0, p, L_MAX, method=method)
        np.testing.assert_allclose(C, expected, rtol=1e-11, atol=1e-15)


# -- against the dense random walk kernel on a finite tree -------------------------------


@pytest.mark.parametrize(("d", "p_max"), [(2, 5), (3, 5), (4, 4), (5, 3)])
def test_matches_dense_kernel_on_finite_tree(d, p_max):
    """The root's row of ``(I - L/a)^p`` on the ball of radius ``p + 1`` of the tree.

    A walk of ``p`` steps from the root only visits vertices within distance ``p``, and
    those all have degree ``d`` when the ball has radius ``p + 1`` (only the leaves, at
    distance ``p + 1``, have degree 1), so the root's row is exactly the infinite tree's.
    Entries beyond distance ``p`` are 0 on both sides."""
    for a in (1.5, 2.0, 3.0):
        for p in range(p_max + 1):
            G = d_regular_ball(d, p + 1)
            A = nx.to_numpy_array(G, nodelist=sorted(G))
            deg = A.sum(axis=1)
            L = np.eye(len(A)) - A / np.sqrt(np.outer(deg, deg))
            K = np.linalg.matrix_power(np.eye(len(A)) - L / a, p)
            dist = nx.single_source_shortest_path_length(G, 0)
            row = K[0] / K[0, 0]
            l_max = p + 1
            C = regular_tree_kernel(d, a, p, l_max)
            for l in range(l_max + 1):
                at_l = row[[v for v, lv in dist.items() if lv == l]]
                np.testing.assert_allclose(at_l, C[l], rtol=1e-12, atol=1e-15)


# -- the limit p -> infinity (eq. 5) -----------------------------------------------------


@pytest.mark.parametrize("d", [2, 3, 4, 7])
def test_limit_is_eq5_for_every_method(d):
    for method in ("recursion", "quadrature"):
        for p in (np.inf, float("inf")):
            np.testing.assert_allclose(
                regular_tree_kernel(d, 2.0, p, L_MAX, method=method), limit(d), rtol=1e-14
            )


@pytest.mark.parametrize("d", [2, 3, 4, 7])
@pytest.mark.parametrize("a", [1.2, 2.0, 5.0])
def test_limit_is_fixed_point_of_eq4(d, a):
    # one step of eq. 4 maps C_{.,inf} to gamma C_{.,inf}, gamma = 1 - lambda_-/a
    C = limit(d, 40)
    gamma = 1 - 1 / a + 2 * math.sqrt(d - 1) / (a * d)
    step = np.empty(39)
    step[0] = (1 - 1 / a) * C[0] + C[1] / a
    step[1:] = C[0:38] / (a * d) + (1 - 1 / a) * C[1:39] + (d - 1) * C[2:40] / (a * d)
    np.testing.assert_allclose(step, gamma * C[:39], rtol=1e-13)


def test_recursion_converges_to_eq5():
    # C_{l,p} = C_{l,inf} (1 - K_l / p + o(1/p)): at d = 3, a = 2, p = 5000 the largest
    # deviation over l <= 14 is about 4.8e-3 (at large l, K_l ~ l^2 d a / (4 sqrt(d - 1)))
    # and the nearest-neighbour value is within 6e-4 of 2 sqrt(2)/3
    C = regular_tree_kernel(3, 2.0, 5000, L_MAX)
    dev = np.abs(C - limit(3))
    assert dev.max() < 5e-3
    assert dev[1] < 1e-3
    # the approach is monotone in p
    C1 = [regular_tree_kernel(3, 2.0, p, 1)[1] for p in (1, 10, 100, 1000, 5000)]
    assert np.all(np.diff(C1) > 0) and C1[-1] < limit(3, 1)[1]


@pytest.mark.parametrize("d", [3, 4])
def test_convergence_to_eq5_is_order_one_over_p(d):
    # p * (C_{l,inf} - C_{l,p}) settles to a constant: ten times the steps, a tenth of
    # the deviation (to within 5%)
    dev = {
        p: p * (limit(d) - regular_tree_kernel(d, 2.0, p, L_MAX, method="quadrature"))
        for p in (5_000, 50_000)
    }
    assert np.all(dev[5_000][1:] > 0)
    np.testing.assert_allclose(dev[5_000][1:], dev[50_000][1:], rtol=0.05)


def test_large_p_is_stable():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, underflow or invalid-value warnings
        for d, a, p in [(3, 2.0, 500), (3, 1.05, 501), (20, 2.0, 3000), (2, 2.0, 2000)]:
            for method in ("recursion", "quadrature"):
                C = regular_tree_kernel(d, a, p, L_MAX, method=method)
                assert np.isfinite(C).all() and C[0] == 1.0
                assert np.all((C[1:] > 0) & (C[1:] < 1)) and np.all(np.diff(C) < 0)
        # where (1 - lambda_-/a)^p underflows: 0.97^(10^9)
        for d in (2, 3, 5):
            C = regular_tree_kernel(d, 2.0, 10**9, L_MAX, method="quadrature")
            np.testing.assert_allclose(C, limit(d), atol=1e-5)


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"d": 1}, ValueError, "d must be >= 2"),
        ({"d": 0}, ValueError, "d must be >= 2"),
        ({"d": 3.0}, TypeError, "d must be an integer"),
        ({"d": True}, TypeError, "d must be an integer"),
        ({"a": 1.0}, ValueError, "a must be"),
        ({"a": 0.5}, ValueError, "a must be"),
        ({"a": np.inf}, ValueError, "a must be"),
        ({"a": np.nan}, ValueError, "a must be"),
        ({"a": "2"}, TypeError, "a must be"),
        ({"p": -1}, ValueError, "p must be >= 0"),
        ({"p": 2.5}, TypeError, "p must be a non-negative integer or numpy.inf"),
        ({"p": 10.0}, TypeError, "p must be a non-negative integer or numpy.inf"),
        ({"p": -np.inf}, TypeError, "p must be a non-negative integer or numpy.inf"),
        ({"p": np.nan}, TypeError, "p must be a non-negative integer or numpy.inf"),
        ({"p": None}, TypeError, "p must be a non-negative integer or numpy.inf"),
        ({"p": True}, TypeError, "p must be a non-negative integer or numpy.inf"),
        ({"l_max": -1}, ValueError, "l_max must be >= 0"),
        ({"l_max": 2.0}, TypeError, "l_max must be an integer"),
        ({"method": "limit"}, ValueError, "method must be one of"),
        ({"method": "exact"}, ValueError, "method must be one of"),
    ],
)
def test_bad_input(kwargs, error, match):
    args = {"d": 3, "a": 2.0, "p": 5, "l_max": 4} | kwargs
    with pytest.raises(error, match=match):
        regular_tree_kernel(**args)


def test_numpy_integers_accepted():
    C = regular_tree_kernel(np.int64(3), np.float32(2.0), np.int32(10), np.int16(3))
    np.testing.assert_allclose(C, regular_tree_kernel(3, 2.0, 10, 3), rtol=1e-15)
