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
    assert sobol_points(np.int64(1), np.int32(2)).shape == (1, 2)  # NumPy integers are sizes


@pytest.mark.parametrize(
    "n, n_dims, err, match",
    [
        (0, 2, ValueError, "n must be >= 1, got 0"),  # was an empty array
        (-3, 2, ValueError, "n must be >= 1, got -3"),
        (5, 0, ValueError, "n_dims must be >= 1, got 0"),  # was an array of shape (5, 0)
        (5, -1, ValueError, "n_dims must be >= 1"),  # was SciPy's "d must be a non-negative"
        (2.5, 2, TypeError, "n must be an integer, got float"),  # was "slice indices must be"
        (5, 2.0, TypeError, "n_dims must be an integer, got float"),
        (4, 21202, ValueError, "n_dims must be <= 21201"),
    ],
)
def test_sobol_points_bad_sizes(n, n_dims, err, match):
    with pytest.raises(err, match=match):
        sobol_points(n, n_dims, random_state=0)


@pytest.mark.parametrize(
    "bounds, match",
    [
        ([0, 1], r"bounds must have shape \(d, 2\).*\[\(0, 1\)\]"),
        ([[0.0, 1.0], [np.nan, 1.0]], "bounds must be finite"),  # was a NaN answer
        ([[0.0, np.inf]], "bounds must be finite"),  # was x = [inf]
        ([[1.0, 0.0]], "low < high.*dimension 0 has low=1 >= high=0"),  # was SciPy's text
        ([[0.0, 1.0], [2.0, 2.0]], "dimension 1 has low=2 >= high=2"),
        (np.zeros((0, 2)), r"shape \(d, 2\).*got shape \(0, 2\)"),  # was a NumPy reduction error
        ([[0.0, 1.0, 2.0]], r"shape \(d, 2\)"),
        ("0 1", "bounds must be a sequence"),
    ],
)
def test_bad_bounds(bounds, match):
    with pytest.raises((ValueError, TypeError), match=match):
        maximize_acquisition(_bumps, _bumps_vg, bounds, random_state=0)


@pytest.mark.parametrize(
    "kw, err, match",
    [
        ({"n_candidates": 0}, ValueError, "n_candidates must be >= 1, got 0"),
        ({"n_candidates": 2.0}, TypeError, "n_candidates must be an integer"),
        ({"n_starts": -1}, ValueError, "n_starts must be >= 0, got -1"),
        ({"max_iter": 0}, ValueError, "max_iter must be >= 1, got 0"),
        ({"extra": [[0.5, 0.5, 0.5]]}, ValueError, "extra has 3 .*2"),
        ({"extra": [["a", "b"]]}, TypeError, "extra must be"),
    ],
)
def test_bad_sizes_and_extra(kw, err, match):
    with pytest.raises(err, match=match):
        maximize_acquisition(_bumps, _bumps_vg, [[0, 1], [0, 1]], random_state=0, **kw)


def test_one_candidate_and_no_local_run():
    x, v = maximize_acquisition(
        _bumps, None, [[0, 1], [0, 1]], n_candidates=1, n_starts=0, random_state=0
    )
    assert x.shape == (2,) and np.all((x >= 0) & (x <= 1)) and v == _bumps(x[None])[0]
    x, _ = maximize_acquisition(
        _bumps, _bumps_vg, [[0, 1], [0, 1]], n_candidates=1, extra=[0.79, 0.21], random_state=0
    )
    np.testing.assert_allclose(x, [0.8, 0.2], atol=1e-5)  # one point as a 1-D extra
