"""The shared argument checks: what they accept, and the errors that name the argument."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit._validation import (
    check_bool,
    check_noise_bounds,
    check_nonnegative_number,
    check_positive_scalar,
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
