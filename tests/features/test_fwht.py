"""Fast Walsh–Hadamard transform: equals the dense Hadamard product, in every mode."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.linalg import hadamard

from kernelkit.features import fwht, next_power_of_two, pad_to_power_of_two
from kernelkit.features._trig import sincos
from kernelkit.features.walsh_hadamard import hadamard_matrix

SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
TOL = {np.float64: 1e-12, np.float32: 2e-5}


@functools.cache
def _dense(d: int) -> np.ndarray:
    return hadamard(d).astype(np.float64)


def _reference(X: np.ndarray, normalized: bool) -> np.ndarray:
    d = X.shape[-1]
    Y = X.astype(np.float64) @ _dense(d)
    return Y / np.sqrt(d) if normalized else Y


@pytest.mark.parametrize("d", SIZES)
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fwht_equals_dense_hadamard_2d(d, normalized, dtype) -> None:
    X = np.random.default_rng(d).standard_normal((37, d)).astype(dtype)
    Y = fwht(X, normalized=normalized)
    assert Y.dtype == dtype and Y.shape == X.shape
    ref = _reference(X, normalized)
    scale = np.abs(ref).max()
    np.testing.assert_allclose(Y, ref, atol=TOL[dtype] * scale, rtol=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [4096, 16384])
def test_fwht_large_by_sylvester_recursion(d, dtype) -> None:
    # x @ H_2n = [(a + b) @ H_n, (a - b) @ H_n] for x = [a, b] (Rowland (2018) eq. 6.2)
    X = np.random.default_rng(d).standard_normal((5, d)).astype(dtype)
    a, b = X[:, : d // 2], X[:, d // 2 :]
    expected = np.hstack([fwht(a + b, normalized=False), fwht(a - b, normalized=False)])
    np.testing.assert_allclose(
        fwht(X, normalized=False), expected, atol=TOL[dtype] * np.abs(expected).max(), rtol=0
    )


@pytest.mark.parametrize("d", [1, 8, 64, 512])
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fwht_in_place_and_1d(d, normalized, dtype) -> None:
    x = np.random.default_rng(1).standard_normal(d).astype(dtype)
    ref = _reference(x[None, :], normalized)[0]
    y = fwht(x, normalized=normalized)
    assert y.shape == (d,)
    np.testing.assert_allclose(y, ref, atol=TOL[dtype] * max(1, np.abs(ref).max()), rtol=0)
    X = np.random.default_rng(2).standard_normal((5, d)).astype(dtype)
    ref2 = _reference(X, normalized)
    out = fwht(X, normalized=normalized, inplace=True)
    assert out is X
    np.testing.assert_allclose(X, ref2, atol=TOL[dtype] * max(1, np.abs(ref2).max()), rtol=0)
    x_copy = x.copy()
    assert fwht(x, normalized=normalized, inplace=True) is x
    np.testing.assert_allclose(x, fwht(x_copy, normalized=normalized), rtol=0, atol=0)


@pytest.mark.parametrize("d", [2, 16, 1024])
def test_normalised_fwht_is_its_own_inverse(d) -> None:
    X = np.random.default_rng(3).standard_normal((9, d))
    np.testing.assert_allclose(fwht(fwht(X)), X, atol=1e-12)
    # unnormalised: H H = d I
    np.testing.assert_allclose(fwht(fwht(X, normalized=False), normalized=False), d * X, atol=1e-9)


def test_fwht_is_orthonormal_and_preserves_norms() -> None:
    X = np.random.default_rng(4).standard_normal((20, 256))
    np.testing.assert_allclose(
        np.linalg.norm(fwht(X), axis=1), np.linalg.norm(X, axis=1), rtol=1e-12
    )


def test_fwht_complex_int_and_noncontiguous_input() -> None:
    rng = np.random.default_rng(5)
    Z = rng.standard_normal((4, 64)) + 1j * rng.standard_normal((4, 64))
    H = _dense(64) / 8.0
    np.testing.assert_allclose(fwht(Z), Z @ H, atol=1e-12)
    Z64 = Z.astype(np.complex64)
    assert fwht(Z64).dtype == np.complex64
    Zc = Z.copy()
    fwht(Zc, inplace=True)
    np.testing.assert_allclose(Zc, Z @ H, atol=1e-12)
    Xi = np.arange(16).reshape(2, 8)
    np.testing.assert_allclose(fwht(Xi, normalized=False), Xi @ hadamard(8))
    Xf = np.asfortranarray(rng.standard_normal((6, 32)))
    np.testing.assert_allclose(fwht(Xf), Xf @ hadamard(32) / np.sqrt(32), atol=1e-12)
    Xs = rng.standard_normal((6, 64))[:, ::2]
    np.testing.assert_allclose(fwht(Xs), Xs @ hadamard(32) / np.sqrt(32), atol=1e-12)


def test_fwht_threads_and_many_blocks_agree() -> None:
    X = np.random.default_rng(6).standard_normal((3000, 128))
    np.testing.assert_array_equal(fwht(X, n_jobs=2), fwht(X, n_jobs=1))
    np.testing.assert_allclose(fwht(X), X @ hadamard(128) / np.sqrt(128), atol=1e-12)
    assert fwht(np.empty((0, 8))).shape == (0, 8)


@pytest.mark.parametrize("d", [0, 3, 6, 1000])
def test_fwht_rejects_non_power_of_two_and_points_at_padding(d) -> None:
    with pytest.raises(ValueError, match="pad_to_power_of_two"):
        fwht(np.ones((2, d)))


def test_fwht_bad_input() -> None:
    with pytest.raises(ValueError, match="1- or 2-dimensional"):
        fwht(np.ones((2, 2, 4)))
    with pytest.raises(TypeError, match="x must be an array of numbers"):
        fwht("abcd")
    with pytest.raises(TypeError, match="inplace=True"):
        fwht([1.0, 2.0], inplace=True)
    with pytest.raises(TypeError, match="inplace=True"):
        fwht(np.arange(4), inplace=True)


def test_pad_to_power_of_two() -> None:
    X = np.arange(10.0).reshape(2, 5)
    P = pad_to_power_of_two(X)
    assert P.shape == (2, 8)
    np.testing.assert_array_equal(P[:, :5], X)
    np.testing.assert_array_equal(P[:, 5:], 0)
    Y = np.ones((3, 16))
    assert pad_to_power_of_two(Y) is Y
    assert pad_to_power_of_two(np.ones(3)).shape == (4,)
    assert [next_power_of_two(d) for d in (1, 2, 3, 5, 1024, 1025)] == [1, 2, 4, 8, 1024, 2048]
    with pytest.raises(ValueError, match="length 0"):
        pad_to_power_of_two(np.ones((2, 0)))
    # padding keeps inner products, so transform(pad(x)) has the norm of x
    x = np.random.default_rng(7).standard_normal((4, 100))
    np.testing.assert_allclose(
        np.linalg.norm(fwht(pad_to_power_of_two(x)), axis=1), np.linalg.norm(x, axis=1)
    )


def test_next_power_of_two_takes_numpy_integers_and_names_bad_sizes() -> None:
    assert next_power_of_two(np.int64(5)) == 8
    assert next_power_of_two(np.uint8(16)) == 16
    assert type(next_power_of_two(np.int32(3))) is int
    with pytest.raises(TypeError, match="d must be an integer, got float"):
        next_power_of_two(2.5)
    with pytest.raises(TypeError, match="d must be an integer, got str"):
        next_power_of_two("8")
    with pytest.raises(TypeError, match="d must be an integer, got bool"):
        next_power_of_two(True)
    with pytest.raises(ValueError, match="d must be >= 1, got 0"):
        next_power_of_two(0)


def test_hadamard_matrix_matches_scipy() -> None:
    for d in (1, 2, 16):
        np.testing.assert_array_equal(hadamard_matrix(d, normalized=False), hadamard(d))
    with pytest.raises(ValueError, match="power of two"):
        hadamard_matrix(12)


def test_sincos_matches_numpy() -> None:
    rng = np.random.default_rng(8)
    x = np.concatenate(
        [
            rng.standard_normal(50_000) * 30,
            rng.uniform(-1e5, 1e5, 50_000),
            np.arange(-200, 200) * (np.pi / 4),
            [0.0, -0.0, 1e-300, 2.5],
        ]
    ).reshape(-1, 4)
    s, c = np.empty_like(x), np.empty_like(x)
    sincos(x, s, c, {}, 0.5)
    np.testing.assert_allclose(s, 0.5 * np.sin(x), rtol=0, atol=2e-16)
    np.testing.assert_allclose(c, 0.5 * np.cos(x), rtol=0, atol=2e-16)
    big = np.array([[3e6, -7e7]])
    sincos(big, s[:1, :2], c[:1, :2])  # falls back to NumPy beyond the reduction range
    np.testing.assert_allclose(s[:1, :2], np.sin(big), atol=1e-15)
    x32 = x.astype(np.float32)
    s32, c32 = np.empty_like(x32), np.empty_like(x32)
    sincos(x32, s32, c32)
    np.testing.assert_allclose(c32, np.cos(x32), atol=1e-6)
