"""Finite input gives finite features or a clear error (issue: kernel values, features and
predictions finite for finite inputs and parameters)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelkit.features import AngularFeatures, RandomFourierFeatures, RandomProjection
from kernelkit.features.matrices import PROJECTION_COUPLINGS, apply_matrix, gaussian_matrix
from kernelkit.kernels import RBF, median_heuristic

magnitudes = st.sampled_from([1e-300, 1e-100, 1.0, 1e100, 1e200, 1e300, 1e307])


def _data(seed: int, scale: float, n: int = 6, d: int = 5) -> np.ndarray:
    return scale * np.random.default_rng(seed).standard_normal((n, d))


@given(magnitudes, st.sampled_from([1e-300, 1e-5, 1.0, 1e5, 1e300]), st.integers(0, 3))
@settings(max_examples=60, deadline=None)
def test_fourier_features_are_finite_or_say_what_overflows(scale, lengthscale, seed) -> None:
    X = _data(seed, scale)
    rff = RandomFourierFeatures(20, kernel=RBF(lengthscale), random_state=seed)
    try:
        Z = rff.fit_transform(X)
    except ValueError as exc:
        assert "overflow float64" in str(exc)
        return
    assert np.isfinite(Z).all()


def _huge(d: int) -> np.ndarray:
    """Entries of +-1e308: finite, but sums of a few of them are not."""
    return 1e308 * np.sign(_data(0, 1.0, n=4, d=d))


def test_fourier_features_of_huge_inputs_name_the_overflow() -> None:
    X = _huge(16)
    with pytest.raises(ValueError, match=r"X has entries up to 1e\+308 in absolute value"):
        RandomFourierFeatures(20, random_state=0).fit(X).transform(X)
    rff = RandomFourierFeatures(20, kernel=RBF(median_heuristic(X / 1e8)), random_state=0)
    assert np.isfinite(rff.fit_transform(X / 1e8)).all()  # the frequencies scaled down


def test_a_lengthscale_whose_frequencies_overflow_is_refused_at_fit() -> None:
    with pytest.raises(ValueError, match=r"lengthscale=1e-308 is so small that .* overflow"):
        RandomFourierFeatures(20, kernel=RBF(1e-308), random_state=0).fit(_data(0, 1.0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "hadamard"])
def test_angular_features_do_not_depend_on_the_scale_of_a_row(dtype, coupling) -> None:
    # sign(W x) = sign(W (c x)) for c > 0: huge and tiny rows give the features of x itself
    X = _data(1, 1.0, n=4, d=16).astype(dtype)
    big, small = np.finfo(dtype).max / 4, np.finfo(dtype).tiny * 4
    scaled = np.vstack([X[:2] * dtype(big / 8), X[2:] * dtype(small * 8)]).astype(dtype)
    af = AngularFeatures(64, coupling=coupling, random_state=0).fit(X)
    expected = af.transform(X)
    assert np.isfinite(af.transform(scaled)).all()
    np.testing.assert_array_equal(af.transform(scaled), expected)


@given(magnitudes, st.sampled_from(PROJECTION_COUPLINGS), st.integers(0, 3))
@settings(max_examples=60, deadline=None)
def test_projections_are_finite_or_say_what_overflows(scale, coupling, seed) -> None:
    X = _data(seed, scale, d=16)
    proj = RandomProjection(8, coupling=coupling, random_state=seed)
    try:
        F = proj.fit_transform(X)
    except ValueError as exc:
        assert "overflow float64" in str(exc)
        return
    assert np.isfinite(F).all()


def test_projection_of_huge_inputs_names_the_overflow() -> None:
    X = _huge(16)
    with pytest.raises(ValueError, match=r"RandomProjection.transform: X has entries up to"):
        RandomProjection(8, random_state=0).fit_transform(X)
    with pytest.raises(ValueError, match=r"apply_matrix: X has entries up to"):
        apply_matrix(gaussian_matrix(8, 16, random_state=0), X)
