"""The charm function is finite for every finite distance (issue 11, §3).

``theory.charm('rbf', 1e100)`` was NaN (``t^4`` overflows while ``exp(-t^2)`` underflows);
the Matérn charm beyond the float range of ``sqrt(2 nu) t`` was ``inf``, the sinc charm
``inf * 0``. The limit as ``t -> inf`` is 0 for the Gaussian and Matérn kernels; the sinc
charm ``~2 cos 2t`` stays in ``[-2, 4]`` (bounded, without a limit).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelkit.features import theory as th
from kernelkit.kernels import RBF, Matern, Sinc

KERNELS = [
    "rbf",
    "laplace",
    "matern32",
    "matern52",
    "sinc",
    Matern(nu=0.7),
    Matern(nu=3.3),
    Matern(nu=120.5),
    RBF(1e-300),
    Matern(1e-300, nu=2.5),
    Sinc(1e-300),
    RBF(1e300, 3.0),
]


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(z=st.floats(0.0, 1.7e308, allow_nan=False, allow_infinity=False))
def test_charm_is_finite(kernel, z) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = th.charm(kernel, z)
        values = th.charm(kernel, np.array([z, 0.0, 1.0]))
    assert np.isfinite(value) and np.all(np.isfinite(values))
    assert values[0] == value
    variance = kernel.variance if isinstance(kernel, (RBF, Matern, Sinc)) else 1.0
    assert -2.0 * variance**2 <= value <= 4.0 * variance**2


@pytest.mark.parametrize("name", ["rbf", "laplace", "matern32", "matern52"])
def test_charm_limit_at_large_distances_is_zero(name) -> None:
    z = np.array([1e10, 1e100, 1e200, 1e300, 1.7e308])
    np.testing.assert_array_equal(th.charm(name, z), 0.0)
    assert th.charm("rbf", 1e100) == 0.0


def test_sinc_charm_closed_form_at_large_distances() -> None:
    """``2 cos 2t - 5 sin(2t)/t + 8 sin^2(t)/t^2`` (no power of t to overflow)."""
    t = np.array([0.3, 2.0, 17.0, 1e3, 1e8])
    expected = 2 * np.cos(2 * t) - 5 * np.sin(2 * t) / t + 8 * (np.sin(t) / t) ** 2
    np.testing.assert_allclose(th.charm("sinc", t), expected, rtol=1e-9, atol=1e-12)
    assert np.isfinite(th.charm("sinc", 1.7e308))
