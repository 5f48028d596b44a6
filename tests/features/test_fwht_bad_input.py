"""fwht on extreme and bad input (issue 28 §3 item 12): finite input of any magnitude
gives the finite transform or a clear error; NaN / infinity and a bad ``n_jobs`` are
refused as the random maps refuse them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import hadamard

from kernelkit.features import RandomFourierFeatures, fwht


def _reference(X: np.ndarray, normalized: bool) -> np.ndarray:
    """``X @ H`` by a dense product with SciPy's Hadamard matrix (for inputs of moderate
    size: callers scale by a power of two first)."""
    d = X.shape[-1]
    H = hadamard(d).astype(np.float64)
    Y = X @ H
    return Y / np.sqrt(d) if normalized else Y


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("inplace", [False, True])
def test_fwht_refuses_nan_and_infinity(bad, inplace) -> None:
    x = np.array([[1.0, 2.0, bad, 4.0], [1.0, 0.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="x contains NaN or infinity"):
        fwht(x, inplace=inplace)
    z = np.array([1.0 + 1.0j, complex(0.0, bad)])
    with pytest.raises(ValueError, match="x contains NaN or infinity"):
        fwht(z)


@pytest.mark.parametrize("n_jobs", [0, -2, -10])
def test_fwht_refuses_n_jobs_as_the_random_maps_do(n_jobs) -> None:
    x = np.ones((3, 8))
    with pytest.raises(ValueError, match="n_jobs") as ours:
        fwht(x, n_jobs=n_jobs)
    with pytest.raises(ValueError, match="n_jobs") as theirs:
        RandomFourierFeatures(n_components=4, n_jobs=n_jobs, random_state=0).fit(x)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("n_jobs", [1.5, "2", True])
def test_fwht_n_jobs_must_be_an_integer(n_jobs) -> None:
    with pytest.raises(TypeError, match="n_jobs"):
        fwht(np.ones(4), n_jobs=n_jobs)


@pytest.mark.parametrize("n_jobs", [None, -1, 1, 2])
def test_fwht_accepts_the_valid_n_jobs(n_jobs) -> None:
    X = np.random.default_rng(0).standard_normal((40, 64))
    np.testing.assert_allclose(fwht(X, n_jobs=n_jobs), _reference(X, True), atol=1e-12)


@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fwht_whose_true_result_overflows_raises_naming_x(normalized, dtype) -> None:
    big = np.finfo(dtype).max * 0.75
    x = np.full(4, big, dtype=dtype)  # the first entry is 4 big (2 big normalised)
    original = x.copy()
    with pytest.raises(OverflowError, match=r"transform of x .* beyond the largest"):
        fwht(x, normalized=normalized)
    with pytest.raises(OverflowError, match="transform of x"):
        fwht(x, normalized=normalized, inplace=True)
    np.testing.assert_array_equal(x, original)  # left unchanged by the failed call
    with pytest.raises(OverflowError, match="transform of x"):
        fwht(
            x.astype(np.complex128 if dtype == np.float64 else np.complex64) * 1j,
            normalized=normalized,
        )


@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("d", [2, 16, 64, 1024])
def test_fwht_of_huge_input_is_finite_and_equals_the_scaled_transform(normalized, d) -> None:
    # inputs near the top of the float64 range whose transform still fits: computed on
    # a scaled copy, it must equal 2**1000 times the transform of x / 2**1000
    rng = np.random.default_rng(d)
    growth = d if not normalized else np.sqrt(d)
    X = rng.uniform(-1.0, 1.0, (5, d)) * (np.finfo(np.float64).max / growth / 1.01)
    Y = fwht(X, normalized=normalized)
    assert np.isfinite(Y).all()
    ref = np.ldexp(_reference(np.ldexp(X, -1000), normalized), 1000)
    np.testing.assert_allclose(Y, ref, rtol=0, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("d", [64, 1024])
def test_fwht_of_subnormal_input_loses_no_bits_inside(d) -> None:
    # normalised, the 1 / sqrt(d) folded into the first stage pushed tiny inputs deep
    # into the subnormal range; computed on a scaled copy, only the final rounding of
    # each (subnormal) output entry remains
    rng = np.random.default_rng(1)
    X = rng.uniform(-1.0, 1.0, (3, d)) * 1e-318
    ref = np.ldexp(_reference(np.ldexp(X, 1100), True), -1100)
    Y = fwht(X)
    np.testing.assert_allclose(Y, ref, rtol=0, atol=2.0 * 2.0**-1074)
    np.testing.assert_allclose(fwht(Y), X, rtol=0, atol=4.0 * 2.0**-1074)


@pytest.mark.parametrize("shape", [(0, 8), (3, 0)])
def test_fwht_zero_size_input(shape) -> None:
    if shape[-1] == 0:
        with pytest.raises(ValueError, match="power of two"):
            fwht(np.zeros(shape))
    else:
        assert fwht(np.zeros(shape)).shape == shape


def test_fwht_refuses_none() -> None:
    with pytest.raises(TypeError, match="x must be an array of numbers"):
        fwht(None)
