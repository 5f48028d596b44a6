"""The shared argument checks: what they accept, and the errors that name the argument."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse

from kernelkit._validation import (
    check_array,
    check_bool,
    check_fraction,
    check_noise_bounds,
    check_nonnegative_number,
    check_positive_scalar,
    check_random_state,
)


@pytest.mark.parametrize("value", [True, False, np.True_, np.bool_(False)])
def test_check_bool_accepts_python_and_numpy_bools(value) -> None:
    out = check_bool(value, "flag")
    assert type(out) is bool and out == bool(value)


@pytest.mark.parametrize("value", [1, 0, "yes", None, 1.0])
def test_check_bool_names_the_argument(value) -> None:
    with pytest.raises(TypeError, match=f"flag must be a bool, got {type(value).__name__}"):
        check_bool(value, "flag")


@pytest.mark.parametrize("value", [3, 0.5, np.float32(2.0), np.array(1.5)])
def test_check_positive_scalar_returns_a_float(value) -> None:
    out = check_positive_scalar(value, "noise")
    assert type(out) is float and out == float(value)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ([1.0, 2.0], ValueError, r"noise must be a positive scalar, got \[1.0, 2.0\]"),
        (np.ones(1), ValueError, "noise must be a positive scalar"),
        (0.0, ValueError, "noise must be > 0"),
        (-1, ValueError, "noise must be > 0"),
        (np.nan, ValueError, "noise must be finite"),
        (np.inf, ValueError, "noise must be finite"),
        ("a", TypeError, "noise must be a number"),
        (True, TypeError, "noise must be a number, got bool"),
        (None, TypeError, "noise must be a number, got NoneType"),
        ("1.5", TypeError, "noise must be a number, got str"),
    ],
)
def test_check_positive_scalar_names_the_argument(value, error, message) -> None:
    with pytest.raises(error, match=message):
        check_positive_scalar(value, "noise")


@pytest.mark.parametrize("value", ["fixed", (1e-8, 1.0), [0.5, 0.5], np.array([1e-3, 10.0])])
def test_check_noise_bounds_passes_valid_bounds_through(value) -> None:
    assert check_noise_bounds(value) is value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("tiny", "noise_bounds must be 'fixed' or a pair"),
        ((1.0,), "noise_bounds must be 'fixed' or a pair"),
        ((1.0, 2.0, 3.0), "noise_bounds must be 'fixed' or a pair"),
        (None, "noise_bounds must be 'fixed' or a pair"),
        ((1.0, 0.1), r"noise_bounds must satisfy 0 < low <= high < inf"),
        ((0.0, 1.0), r"noise_bounds must satisfy 0 < low <= high < inf"),
        ((1e-3, np.inf), r"noise_bounds must satisfy 0 < low <= high < inf"),
    ],
)
def test_check_noise_bounds_names_the_argument(value, message) -> None:
    with pytest.raises(ValueError, match=message):
        check_noise_bounds(value)


@pytest.mark.parametrize("value", [0, 0.0, 2, 0.05, np.float32(1.5)])
def test_check_nonnegative_number_returns_a_float(value) -> None:
    out = check_nonnegative_number(value, "xi")
    assert type(out) is float and out == float(value)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (True, TypeError, "xi must be a number, got bool"),
        ("0.1", TypeError, "xi must be a number, got str"),
        ([0.1], TypeError, "xi must be a number, got list"),
        (-0.5, ValueError, r"xi must be finite and >= 0, got -0.5"),
        (np.inf, ValueError, "xi must be finite and >= 0"),
        (np.nan, ValueError, "xi must be finite and >= 0"),
    ],
)
def test_check_nonnegative_number_names_the_argument(value, error, message) -> None:
    with pytest.raises(error, match=message):
        check_nonnegative_number(value, "xi")


# ---------------------------------------------------------------------- check_array


def test_check_array_accepts_an_object_array_of_numbers() -> None:
    # what a pandas object column gives
    X = np.array([[1, 2.5], [np.float32(3), 4]], dtype=object)
    out = check_array(X)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [[1.0, 2.5], [3.0, 4.0]])


@pytest.mark.parametrize("bad", ["a", None, True, [1]])
def test_check_array_names_a_non_number_in_an_object_array(bad) -> None:
    X = np.array([[1.0, bad]], dtype=object)
    with pytest.raises(
        TypeError,
        match=f"X must be an array of numbers, got an element of type {type(bad).__name__}",
    ):
        check_array(X)


def test_check_array_rejects_sparse_input_with_advice() -> None:
    with pytest.raises(TypeError, match=r"X is a scipy sparse matrix.*X.toarray\(\)"):
        check_array(scipy.sparse.eye(3, format="csr"))


# ---------------------------------------------------------------------- random_state


@pytest.mark.parametrize("seed", [-1, 2**32, 2**40, np.int64(-5)])
def test_check_random_state_names_the_range_of_seeds(seed) -> None:
    with pytest.raises(
        ValueError, match=rf"random_state must be an integer in \[0, 2\*\*32 - 1\], got {int(seed)}"
    ):
        check_random_state(seed)


@pytest.mark.parametrize("seed", [0, 2**32 - 1, np.uint32(7)])
def test_check_random_state_accepts_the_ends_of_the_range(seed) -> None:
    a = check_random_state(seed).random_sample(3)
    np.testing.assert_array_equal(a, np.random.RandomState(int(seed)).random_sample(3))


@pytest.mark.parametrize("seed", [1.5, "0", [1]])
def test_check_random_state_rejects_other_types(seed) -> None:
    with pytest.raises(TypeError, match="random_state must be None, an int or a numpy"):
        check_random_state(seed)


# ---------------------------------------------------------------------- check_fraction


@pytest.mark.parametrize("value", [0.5, 1e-300, np.float32(0.25), 1 - 1e-16])
def test_check_fraction_returns_a_float(value) -> None:
    out = check_fraction(value, "eps")
    assert type(out) is float and out == float(value)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (0, ValueError, r"eps must be in \(0, 1\), got 0"),
        (1.0, ValueError, r"eps must be in \(0, 1\), got 1.0"),
        (np.nan, ValueError, r"eps must be in \(0, 1\)"),
        ("0.5", TypeError, r"eps must be a number in \(0, 1\), got str"),
        (True, TypeError, r"eps must be a number in \(0, 1\), got bool"),
        (None, TypeError, r"eps must be a number in \(0, 1\), got NoneType"),
    ],
)
def test_check_fraction_names_the_argument(value, error, message) -> None:
    with pytest.raises(error, match=message):
        check_fraction(value, "eps")
