"""Properties every vector kernel must have, on inputs drawn by hypothesis.

Positive semi-definiteness (the assignment's Def 1), symmetry, ``diag`` against the Gram
diagonal, ``k(X, Y) = k(Y, X)^T``, float32 against float64, and analytic hyperparameter
gradients against central finite differences in ``theta``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_cases import VECTOR_CASES, Case, Draw, vector_cases

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True)


def _draw_inputs(data, case: Case, max_n: int = 20):
    n = data.draw(st.integers(1, max_n), label="n")
    d = data.draw(st.integers(1, case.max_d), label="d")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    spread = data.draw(st.floats(0.1, 3.0), label="spread")
    rng = np.random.default_rng(seed)
    X = spread * rng.standard_normal((n, d))
    Y = spread * rng.standard_normal((data.draw(st.integers(1, max_n), label="m"), d))
    k = case.build(Draw(data=data), d)
    return k, X, Y


def _assert_psd(K: np.ndarray) -> None:
    lam = np.linalg.eigvalsh(0.5 * (K + K.T))
    assert lam.min() >= -1e-8 * max(np.trace(K), 1e-300), (lam.min(), np.trace(K))


@pytest.mark.parametrize("case", VECTOR_CASES, ids=repr)
@SETTINGS
@given(data=st.data())
def test_gram_is_symmetric_psd_with_matching_diag(case: Case, data) -> None:
    k, X, _ = _draw_inputs(data, case)
    K = k(X)
    n = X.shape[0]
    assert K.shape == (n, n)
    assert np.all(np.isfinite(K))
    scale = max(1.0, float(np.abs(K).max()))
    np.testing.assert_allclose(K, K.T, rtol=0, atol=1e-12 * scale)
    _assert_psd(K)
    dg = k.diag(X)
    assert dg.shape == (n,)
    np.testing.assert_allclose(dg, np.diag(K), rtol=1e-12, atol=1e-13 * scale)


@pytest.mark.parametrize("case", VECTOR_CASES, ids=repr)
@SETTINGS
@given(data=st.data())
def test_cross_gram_transposes_and_float32_agrees(case: Case, data) -> None:
    k, X, Y = _draw_inputs(data, case)
    KXY = k(X, Y)
    assert KXY.shape == (X.shape[0], Y.shape[0])
    scale = max(1.0, float(np.abs(KXY).max()))
    # rounding of a squared distance (~1e-16 |z|^2) moves a rough kernel by its square root
    # at near-duplicates, and k(X, Y), k(Y, X) round differently
    atol_t = 1e-7 if case.rough else 1e-13
    np.testing.assert_allclose(KXY, k(Y, X).T, rtol=1e-12, atol=atol_t * scale)
    # float32 inputs are accepted and agree with float64 to single precision. Squared
    # distances carry a float32 rounding error e ~ 1e-7 |z|^2; smooth profiles move by ~e,
    # but where k is not differentiable at coincident points (Laplace, Matérn nu < 1, the
    # arccos of Angular) a near-duplicate pair moves by ~sqrt(e): up to ~3e-4 was seen.
    X32, Y32 = X.astype(np.float32), Y.astype(np.float32)
    # (Tails such as exp(-s/2) at s ~ 100 are only ~s * 1e-7 accurate relative to
    # themselves, so the absolute tolerance is relative to the kernel's own scale.)
    atol = 2e-3 if case.rough else 1e-5
    KXX = k(X)
    own_scale = max(float(np.abs(KXX).max()), float(np.abs(k(Y)).max()))
    for got, ref in ((k(X32), KXX), (k(X32, Y32), KXY), (k.diag(X32), k.diag(X))):
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=atol * own_scale)


@pytest.mark.parametrize("offset", [1e2, 1e3])
def test_float32_far_from_the_origin(offset) -> None:
    """Distances come from |x|^2 + |y|^2 - 2 x.y; without centring, float32 data 100
    lengthscales from the origin lost all but ~2 digits (errors 3e-3 RBF, 3e-2 Laplace)."""
    from kernelkit.kernels import RBF, Laplace

    X = offset + np.random.default_rng(0).standard_normal((200, 3))
    X32 = X.astype(np.float32)
    # the float32 inputs themselves are only good to ~6e-8 * offset
    tol = 1e-6 + 2e-7 * offset
    for k in (RBF(1.0), Laplace(1.0)):
        np.testing.assert_allclose(k(X32), k(X32.astype(np.float64)), rtol=0, atol=tol)


def test_float32_input_keeps_float32_for_stationary_kernels() -> None:
    from kernelkit.kernels import RBF, Matern

    X = np.random.default_rng(0).standard_normal((7, 3)).astype(np.float32)
    assert RBF()(X).dtype == np.float32
    assert Matern(nu=0.7)(X).dtype == np.float32


# --------------------------------------------------------------------------- gradients
def _fd_gradient(k, X: np.ndarray, h: float = 1e-5) -> np.ndarray:
    theta = k.theta
    cols = []
    for p in range(theta.size):
        e = np.zeros_like(theta)
        e[p] = h
        cols.append((k.with_theta(theta + e)(X) - k.with_theta(theta - e)(X)) / (2 * h))
    return np.stack(cols, axis=2) if cols else np.zeros(X.shape[:1] * 2 + (0,))


@pytest.mark.parametrize("case", vector_cases(with_hyperparameters=True), ids=repr)
@settings(max_examples=12, deadline=None, derandomize=True)
@given(data=st.data())
def test_gradients_match_central_differences(case: Case, data) -> None:
    k, X, _ = _draw_inputs(data, case, max_n=10)
    n = X.shape[0]
    G = k.gradient(X)
    assert G.shape == (n, n, k.n_dims)
    G_fd = _fd_gradient(k, X)
    scale = max(1.0, float(np.abs(k(X)).max()))
    np.testing.assert_allclose(G, G_fd, rtol=1e-5, atol=1e-6 * scale)

    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="W seed"))
    W = rng.standard_normal((n, n))
    W = W + W.T
    gd = k.gradient_dot(X, W)
    assert gd.shape == (k.n_dims,)
    np.testing.assert_allclose(gd, np.einsum("ij,ijp->p", W, G), rtol=1e-9, atol=1e-9 * scale)
    np.testing.assert_allclose(
        gd, np.einsum("ij,ijp->p", W, G_fd), rtol=1e-5, atol=1e-6 * scale * n * n
    )
    # the fused route gives the same Gram matrix and the same contraction
    K, contract = k.gram_and_gradient(X)
    np.testing.assert_allclose(K, k(X), rtol=1e-13, atol=1e-15 * scale)
    np.testing.assert_allclose(contract(W), gd, rtol=1e-10, atol=1e-10 * scale * n)
    # gradient_dot is documented for any W, not only symmetric ones
    V = rng.standard_normal((n, n))
    np.testing.assert_allclose(
        k.gradient_dot(X, V), np.einsum("ij,ijp->p", V, G), rtol=1e-9, atol=1e-9 * scale * n
    )


@pytest.mark.parametrize("case", VECTOR_CASES, ids=repr)
def test_theta_round_trips(case: Case) -> None:
    rng = np.random.default_rng(3)
    k = case.build(Draw(rng=rng), 3)
    theta = k.theta
    assert theta.shape == (k.n_dims,)
    assert len(k.theta_names) == k.n_dims
    assert len(set(k.theta_names)) == k.n_dims
    assert k.bounds.shape == (k.n_dims, 2)
    assert np.all(k.bounds[:, 0] <= k.bounds[:, 1])
    np.testing.assert_allclose(k.with_theta(theta).theta, theta, rtol=1e-14)
    new = theta + rng.uniform(-0.5, 0.5, theta.shape)
    k2 = k.with_theta(new)
    np.testing.assert_allclose(k2.theta, new, rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(k.theta, theta)  # with_theta leaves the original alone
    X = rng.standard_normal((6, 3))
    K2 = k2(X)
    k.theta = new
    np.testing.assert_allclose(k(X), K2, rtol=1e-14)


# --------------------------------------------------------------------------- input gradients
#: kernels whose derivative in x is not provided (a clear NotImplementedError instead)
NO_INPUT_GRADIENT = {"angular", "angular_sum", "compose", "compose_ard"}


@pytest.mark.parametrize("case", VECTOR_CASES, ids=repr)
def test_input_gradient_matches_central_differences(case: Case) -> None:
    rng = np.random.default_rng(11)
    d = min(3, case.max_d)
    k = case.build(Draw(rng=rng), d)
    X, Y = rng.standard_normal((4, d)), rng.standard_normal((6, d))  # no coincident points
    if case.name in NO_INPUT_GRADIENT:
        with pytest.raises(NotImplementedError, match="input gradients"):
            k.input_gradient(X, Y)
        return
    G = k.input_gradient(X, Y)
    assert G.shape == (4, 6, d)
    h = 1e-6
    F = np.stack([(k(X + h * e, Y) - k(X - h * e, Y)) / (2 * h) for e in np.eye(d)], axis=2)
    np.testing.assert_allclose(G, F, rtol=1e-5, atol=1e-7 * max(1.0, np.abs(k(X, Y)).max()))
