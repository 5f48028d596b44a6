"""LapackThreads: one BLAS thread during a fit, the caller's count for large LAPACK calls."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from threadpoolctl import threadpool_info, threadpool_limits

from kernelkit.kernels import RBF
from kernelkit.models import GaussianProcessRegressor
from kernelkit.models._threads import MIN_THREADED_SIZE, LapackThreads


def _blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def _spd(n: int = 50) -> np.ndarray:
    A = np.random.default_rng(0).standard_normal((n, n))
    return A @ A.T + n * np.eye(n)


def test_one_thread_outside_lapack_all_inside_and_counts_restored() -> None:
    with threadpool_limits(2, user_api="blas"):
        before = _blas_threads()
        with LapackThreads(size=MIN_THREADED_SIZE) as t:
            assert set(_blas_threads()) == {1}
            with t.lapack():
                assert set(_blas_threads()) == {2}
                scipy.linalg.cholesky(_spd())
            assert set(_blas_threads()) == {1}
        assert _blas_threads() == before


def test_a_caller_limit_of_one_thread_is_respected() -> None:
    with threadpool_limits(1, user_api="blas"), LapackThreads(size=5000) as t:
        with t.lapack():
            assert set(_blas_threads()) == {1}
        assert t.lapack_threads == 1


def test_small_matrices_always_get_one_thread() -> None:
    with threadpool_limits(2, user_api="blas"):
        before = _blas_threads()
        with LapackThreads(size=MIN_THREADED_SIZE - 1) as t:
            with t.lapack():
                assert set(_blas_threads()) == {1}
        assert _blas_threads() == before


def test_not_entered_changes_nothing() -> None:
    before = _blas_threads()
    t = LapackThreads(size=5000)
    with t.lapack():
        assert _blas_threads() == before


@pytest.mark.filterwarnings("ignore:the fitted lengthscale:sklearn.exceptions.ConvergenceWarning")
def test_fit_restores_thread_counts_and_is_bitwise_reproducible() -> None:
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 2))
    y = np.sin(4 * X[:, 0]) + 0.1 * rng.standard_normal(300)
    before = _blas_threads()
    fits = [GaussianProcessRegressor(RBF(lengthscale=[1.0, 1.0])).fit(X, y) for _ in range(2)]
    assert _blas_threads() == before
    np.testing.assert_array_equal(fits[0].theta_, fits[1].theta_)
