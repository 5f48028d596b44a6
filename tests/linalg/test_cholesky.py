"""cholesky_jitter: plain factorisation, jitter escalation with a warning, clear failures."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelkit.kernels import RBF
from kernelkit.linalg.cholesky import cholesky_or_none
from kernelkit.models import JitteredCholesky, NumericalWarning, cholesky_jitter, jittered_cholesky

ADVICE = "noise.*alpha.*duplicate inputs.*rescale.*positive semi-definite"


def _factor_and_jitter(K: np.ndarray) -> tuple[np.ndarray, float]:
    chol = jittered_cholesky(K)
    assert isinstance(chol, JitteredCholesky)
    np.testing.assert_array_equal(chol.factor, cholesky_jitter(K, warn=False))  # the same factor
    return chol.factor, chol.jitter


def test_positive_definite_needs_no_jitter() -> None:
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 6))
    K = A @ A.T + 6 * np.eye(6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumericalWarning
        L, jitter = _factor_and_jitter(K)
    assert jitter == 0.0
    np.testing.assert_allclose(L, np.tril(L))
    np.testing.assert_allclose(L @ L.T, K, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(L, np.linalg.cholesky(K), rtol=1e-12, atol=1e-12)


def test_singular_psd_from_duplicate_points_gets_jitter_and_a_warning() -> None:
    X = np.array([[0.0], [0.0], [1.0], [1.0], [2.5]])  # duplicated inputs
    K = RBF(lengthscale=1.0)(X) + 1e-300 * np.eye(5)  # "noise" far below round-off
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(K)  # the plain factorisation really fails
    with pytest.warns(NumericalWarning, match=r"added jitter [0-9.e-]+ .*mean diagonal"):
        L, jitter = _factor_and_jitter(K)
    assert 1e-10 <= jitter <= 1e-4  # between the first and the last jitter tried
    np.testing.assert_allclose(L @ L.T, K + jitter * np.eye(5), atol=1e-12)


def test_jitter_warning_names_the_matrix_and_can_be_silenced() -> None:
    K = np.ones((3, 3))
    with pytest.warns(NumericalWarning, match="Gram"):
        cholesky_jitter(K, name="Gram")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cholesky_jitter(K, warn=False)


def test_jitter_scale_sets_the_first_jitter() -> None:
    jitter = jittered_cholesky(np.ones((3, 3)), warn=False, jitter_scale=5.0).jitter
    assert jitter == pytest.approx(5e-10)


@pytest.mark.parametrize(
    "K",
    [np.diag([1.0, -1.0]), np.diag([2.0, -1.0]), np.array([[1.0, 2.0], [2.0, 1.0]])],
    ids=["zero-mean-diagonal", "negative-eigenvalue", "indefinite"],
)
def test_indefinite_matrix_raises_with_advice(K) -> None:
    with pytest.raises(np.linalg.LinAlgError, match=ADVICE):
        cholesky_jitter(K)


def test_max_tries_zero_means_no_jitter() -> None:
    with pytest.raises(np.linalg.LinAlgError, match="jitter"):
        cholesky_jitter(np.ones((3, 3)), max_tries=0)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_matrix_is_a_value_error(bad) -> None:
    K = np.eye(3)
    K[0, 1] = K[1, 0] = bad
    with pytest.raises(ValueError, match="K contains NaN or infinity"):
        cholesky_jitter(K)


@pytest.mark.parametrize("K", [np.ones((2, 3)), np.ones(3), np.empty((0, 0))])
def test_non_square_or_empty_is_a_value_error(K) -> None:
    with pytest.raises(ValueError, match="K"):
        cholesky_jitter(K)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="max_tries"):
        cholesky_jitter(np.eye(2), max_tries=-1)
    with pytest.raises(ValueError, match="jitter_scale"):
        cholesky_jitter(np.eye(2), jitter_scale=0.0)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 12),
    rank=st.integers(1, 12),
    scale=st.floats(1e-3, 1e3),
    seed=st.integers(0, 2**31 - 1),
)
def test_low_rank_psd_always_factorises(n, rank, scale, seed) -> None:
    """Any PSD matrix (here of rank <= n) factorises, with at most 1e-4 relative jitter."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, min(rank, n)))
    K = scale * (A @ A.T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumericalWarning)
        L, jitter = _factor_and_jitter(K)
    mean_diag = np.mean(np.diag(K))
    assert jitter <= 1e-4 * mean_diag
    np.testing.assert_allclose(L @ L.T, K + jitter * np.eye(n), atol=1e-9 * mean_diag * n)


# ---------------------------------------------------------------------- singularity


@given(st.floats(1e-6, 1e6), st.integers(2, 6))
@settings(max_examples=200, deadline=None)
def test_an_exactly_singular_matrix_is_never_factorised(v, n) -> None:
    # Rows 0 and 1 are equal: v - (sqrt(v))^2 is 0, or +-1 ulp of v after rounding, so
    # LAPACK alone "succeeds" for some v. The pivot test must reject all of them.
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, 3))
    A[1] = A[0]
    K = v * (A @ A.T + np.eye(n))
    K[0, 1] = K[1, 0] = K[0, 0] = K[1, 1] = v * (A[0] @ A[0])  # rows 0 and 1 identical
    assert cholesky_or_none(K) is None
    assert cholesky_or_none(K.T, lower=False) is None


def test_cholesky_or_none_factorises_a_positive_definite_matrix() -> None:
    rng = np.random.default_rng(0)
    A = rng.standard_normal((5, 5))
    K = A @ A.T + 0.1 * np.eye(5)
    L = cholesky_or_none(K)
    U = cholesky_or_none(K, lower=False)
    assert L is not None and U is not None
    np.testing.assert_allclose(L, np.linalg.cholesky(K), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(U, L.T, rtol=1e-12, atol=1e-12)
    Kc = K.copy()
    L2 = cholesky_or_none(Kc, overwrite_a=True)
    np.testing.assert_allclose(L2, L, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_cholesky_or_none_gives_none_for_non_finite_input(bad) -> None:
    K = np.eye(3)
    K[2, 2] = bad
    assert cholesky_or_none(K) is None


def test_a_small_but_real_pivot_is_kept() -> None:
    # noise 1e-10 on duplicated rows: the pivot 1e-10 is far above rounding (n eps ~ 1e-15)
    K = np.ones((3, 3)) + 1e-10 * np.eye(3)
    L = cholesky_or_none(K)
    assert L is not None
    # the conditional variance of the third row given the first two: e + e / (2 + e)
    assert L[2, 2] ** 2 == pytest.approx(1e-10 + 1e-10 / (2 + 1e-10), rel=1e-4)


@pytest.mark.parametrize("name", ["K", "Gram"])
def test_cholesky_jitter_rejects_an_asymmetric_matrix(name) -> None:
    K = np.array([[2.0, 1.0], [0.0, 2.0]])
    with pytest.raises(
        ValueError, match=rf"{name} must be symmetric, but max\|{name} - {name}\^T\| = 1"
    ):
        cholesky_jitter(K, name=name)


def test_cholesky_jitter_accepts_round_off_asymmetry() -> None:
    K = np.array([[2.0, 1.0], [1.0 + 1e-15, 2.0]])
    np.testing.assert_allclose(cholesky_jitter(K) @ cholesky_jitter(K).T, K, atol=1e-12)


def test_jittered_cholesky_is_a_frozen_result() -> None:
    import dataclasses

    chol = jittered_cholesky(np.array([[4.0, 2.0], [2.0, 3.0]]))
    assert chol.jitter == 0.0
    np.testing.assert_array_equal(chol.factor, cholesky_jitter(np.array([[4.0, 2.0], [2.0, 3.0]])))
    with pytest.raises(dataclasses.FrozenInstanceError):
        chol.jitter = 1.0  # type: ignore[misc]
    # the factor alone from cholesky_jitter: no flag-dependent tuple any more
    with pytest.raises(TypeError, match="return_jitter"):
        cholesky_jitter(np.eye(2), return_jitter=True)  # type: ignore[call-arg]
