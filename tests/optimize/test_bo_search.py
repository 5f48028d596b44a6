"""Acquisition search: candidates + multi-start L-BFGS-B find the maximum in a box."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.optimize import maximize_acquisition, sobol_points


def _bumps(X):
    """Two Gaussian bumps; the narrow one at (0.8, 0.2) is the higher."""
    a = np.exp(-np.sum((X - [0.3, 0.7]) ** 2, axis=1) / 0.05)
    b = 1.5 * np.exp(-np.sum((X - [0.8, 0.2]) ** 2, axis=1) / 0.002)
    return a + b


def _bumps_vg(X):
    da = -2 * (X - [0.3, 0.7]) / 0.05 * np.exp(-np.sum((X - [0.3, 0.7]) ** 2, 1) / 0.05)[:, None]
    db = (
        -2
        * (X - [0.8, 0.2])
        / 0.002
        * (1.5 * np.exp(-np.sum((X - [0.8, 0.2]) ** 2, 1) / 0.002))[:, None]
    )
    return _bumps(X), da + db


def test_finds_the_global_maximum_to_high_precision():
    x, v = maximize_acquisition(_bumps, _bumps_vg, [[0, 1], [0, 1]], random_state=0)
    np.testing.assert_allclose(x, [0.8, 0.2], atol=1e-5)
    assert v == pytest.approx(_bumps(x[None])[0])
    assert v >= _bumps(np.array([[0.8, 0.2]]))[0] - 1e-12


def test_maximum_on_the_boundary_and_in_a_scaled_box():
    def lin(X):
        return X[:, 0] - 2 * X[:, 1]

    def lin_vg(X):
        return lin(X), np.tile([1.0, -2.0], (len(X), 1))

    x, v = maximize_acquisition(lin, lin_vg, [[-5, 10], [0, 15]], n_candidates=64, random_state=0)
    np.testing.assert_allclose(x, [10, 0])
    assert v == pytest.approx(10.0)


def test_extra_candidates_are_used():
    x, _ = maximize_acquisition(
        _bumps,
        _bumps_vg,
        [[0, 1], [0, 1]],
        n_candidates=1,
        n_starts=1,
        extra=[[0.79, 0.21]],
        random_state=0,
    )
    np.testing.assert_allclose(x, [0.8, 0.2], atol=1e-5)


def test_same_seed_same_answer():
    a = maximize_acquisition(_bumps, _bumps_vg, [[0, 1], [0, 1]], random_state=3)
    b = maximize_acquisition(_bumps, _bumps_vg, [[0, 1], [0, 1]], random_state=3)
    assert np.array_equal(a[0], b[0])


def test_sobol_points():
    U = sobol_points(10, 3, random_state=0)
    assert U.shape == (10, 3) and np.all((U >= 0) & (U < 1))
    assert np.array_equal(U, sobol_points(10, 3, random_state=0))
    assert sobol_points(0, 2).shape == (0, 2)


def test_bad_bounds_shape():
    with pytest.raises(ValueError, match=r"bounds must have shape \(d, 2\)"):
        maximize_acquisition(_bumps, _bumps_vg, [0, 1])
