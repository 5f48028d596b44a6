"""Dot-product, angular, constant and white-noise kernels against direct formulas."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel

from kernelkit.kernels import Angular, Constant, Linear, Polynomial, White


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    degree=st.integers(1, 5),
    gamma=st.floats(0.01, 3.0),
    coef0=st.one_of(st.just(0.0), st.floats(0.01, 3.0)),
    seed=st.integers(0, 2**32 - 1),
)
def test_polynomial_equals_sklearn(degree, gamma, coef0, seed) -> None:
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((8, 3)), rng.standard_normal((5, 3))
    k = Polynomial(degree, gamma, coef0)
    scale = max(1.0, float(np.abs(k(X)).max()))
    ref = polynomial_kernel(X, Y, degree=degree, gamma=gamma, coef0=coef0)
    np.testing.assert_allclose(k(X, Y), ref, rtol=1e-11, atol=1e-13 * scale)
    np.testing.assert_allclose(
        k.diag(X),
        np.diag(polynomial_kernel(X, degree=degree, gamma=gamma, coef0=coef0)),
        rtol=1e-11,
        atol=1e-13 * scale,
    )
    # the homogeneous kernel (coef0 = 0) has no coef0 hyperparameter: log 0 does not exist
    assert k.theta_names == (["gamma"] if coef0 == 0 else ["gamma", "coef0"])


def test_linear_equals_sklearn() -> None:
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((8, 3)), rng.standard_normal((5, 3))
    np.testing.assert_allclose(Linear(2.5)(X, Y), 2.5 * linear_kernel(X, Y), rtol=1e-13)


def _angular_direct(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    cos = (X @ Y.T) / np.outer(np.linalg.norm(X, axis=1), np.linalg.norm(Y, axis=1))
    return 1.0 - (2.0 / np.pi) * np.arccos(np.clip(cos, -1.0, 1.0))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    n=st.integers(1, 10),
    m=st.integers(1, 10),
    d=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_angular_equals_arccos_formula(n, m, d, seed) -> None:
    """Rowland (2018) eqs. 5.10-5.11: 1 - (2 / pi) * angle(x, y)."""
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((n, d)), rng.standard_normal((m, d))
    k = Angular()
    np.testing.assert_allclose(k(X, Y), _angular_direct(X, Y), rtol=1e-12, atol=1e-12)
    K = k(X)
    np.testing.assert_allclose(np.diag(K), 1.0)
    # invariant to positive rescaling of each input, odd under sign flip
    scales = rng.uniform(0.1, 10.0, (n, 1))
    np.testing.assert_allclose(k(scales * X, Y), k(X, Y), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(k(-X, Y), -k(X, Y), rtol=1e-10, atol=1e-10)


def test_angular_equals_monte_carlo_sign_features() -> None:
    """E[sign(w.x) sign(w.y)] for w ~ N(0, I) equals the angular kernel (Rowland Def 7.3).

    Each entry of the estimate is a mean of m i.i.d. +-1 variables with variance
    1 - K^2, so it lies within 5 standard errors of K (the failure probability over the
    60 entries is below 1e-4; the draw is seeded).
    """
    rng = np.random.default_rng(12345)
    X, Y = rng.standard_normal((6, 4)), rng.standard_normal((10, 4))
    X[1] = -X[0]  # include the exact extremes K = -1 and (below) K = 1
    Y[0] = 3.0 * X[2]
    m = 200_000
    W = rng.standard_normal((m, 4))
    K_mc = (np.sign(X @ W.T) @ np.sign(Y @ W.T).T) / m
    K = Angular()(X, Y)
    se = np.sqrt(np.maximum(1.0 - K**2, 0.0) / m)
    assert np.all(np.abs(K_mc - K) <= 5.0 * se + 1e-12)
    # arccos near 1 loses half the digits: K(x, 3x) = 1 only to ~1e-8
    assert np.isclose(K[2, 0], 1.0, atol=1e-7)
    assert np.isclose(Angular()(X[:2])[0, 1], -1.0, atol=1e-7)


def test_constant_and_white() -> None:
    X = np.random.default_rng(0).standard_normal((4, 2))
    Y = np.random.default_rng(1).standard_normal((3, 2))
    np.testing.assert_array_equal(Constant(2.5)(X, Y), np.full((4, 3), 2.5))
    np.testing.assert_array_equal(Constant(2.5).diag(X), np.full(4, 2.5))
    np.testing.assert_array_equal(White(0.3)(X), 0.3 * np.eye(4))
    np.testing.assert_array_equal(White(0.3)(X, Y), np.zeros((4, 3)))
    np.testing.assert_array_equal(White(0.3).diag(X), np.full(4, 0.3))
    # both accept lists of arbitrary objects: only the count matters
    objs = ["a", {1, 2}, None]
    np.testing.assert_array_equal(Constant(1.5)(objs), np.full((3, 3), 1.5))
    np.testing.assert_array_equal(White(0.5)(objs), 0.5 * np.eye(3))
