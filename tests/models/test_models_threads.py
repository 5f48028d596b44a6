"""LapackThreads: BLAS threads of the GP objective's LAPACK calls, chosen by timing them."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_info, threadpool_limits

from kernelkit.kernels import RBF
from kernelkit.models import GaussianProcessRegressor
from kernelkit.models._threads import LapackThreads


class _FakeController:
    def limit(self, limits=None, user_api=None):
        return nullcontext()


def _chooser(probe_every: int) -> LapackThreads:
    """A chooser between 1 and 2 threads; the test supplies the timings."""
    t = LapackThreads(size=2000, probe_every=probe_every)
    t._controller = _FakeController()
    t._choices = (1, 2)
    t._next_probe = 2 + probe_every
    return t


def _run(t: LapackThreads, seconds: dict[int, float], n: int) -> list[int]:
    used = []
    for _ in range(n):
        threads = t._choose()
        t._record(threads, seconds[threads], timed=True)
        used.append(threads)
    return used


def test_idle_machine_settles_on_all_threads_and_re_tries_ever_more_rarely() -> None:
    t = _chooser(probe_every=4)
    used = _run(t, {1: 0.06, 2: 0.035}, 30)
    # one thread first, then both; re-tries of one thread after 4, 8, 16 evaluations
    assert [i for i, c in enumerate(used) if c == 1] == [0, 6, 14]
    assert t._best == 2


def test_loaded_machine_settles_on_one_thread() -> None:
    t = _chooser(probe_every=4)
    used = _run(t, {1: 0.06, 2: 1.5}, 30)
    assert [i for i, c in enumerate(used) if c == 2] == [1, 6, 14]
    assert t._best == 1


def test_a_slowdown_of_the_count_in_use_switches_at_once() -> None:
    t = _chooser(probe_every=100)
    _run(t, {1: 0.06, 2: 0.035}, 5)
    assert t._best == 2
    used = _run(t, {1: 0.06, 2: 1.5}, 3)  # another process takes a core
    assert used == [2, 2, 1]  # two slow calls move the median past the other's time


def test_a_winning_re_try_switches() -> None:
    t = _chooser(probe_every=4)
    _run(t, {1: 0.06, 2: 1.5}, 5)  # loaded
    assert t._best == 1
    used = _run(t, {1: 0.06, 2: 0.035}, 4)  # the load went away; re-try at call 6
    assert used[1] == 2 and used[2:] == [2, 2] and t._best == 2


def test_untimed_calls_follow_the_decision() -> None:
    t = _chooser(probe_every=4)
    _run(t, {1: 0.06, 2: 0.035}, 3)
    with t.lapack():
        pass
    assert t.records[-1][0] == 2 and t.records[-1][2] is False


def _blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_one_thread_outside_lapack_and_counts_restored() -> None:
    A = np.random.default_rng(0).standard_normal((50, 50))
    K = A @ A.T + 50 * np.eye(50)
    with threadpool_limits(2, user_api="blas"):
        before = _blas_threads()
        with LapackThreads(size=1000) as t:
            assert set(_blas_threads()) == {1}
            for expected in (1, 2):  # the first two timed calls try one, then two threads
                with t.lapack(timed=True):
                    assert set(_blas_threads()) == {expected}
                    scipy.linalg.cholesky(K)
            assert set(_blas_threads()) == {1}
        assert _blas_threads() == before


def test_a_caller_limit_of_one_thread_is_respected() -> None:
    with threadpool_limits(1, user_api="blas"), LapackThreads(size=5000) as t:
        with t.lapack(timed=True):
            assert set(_blas_threads()) == {1}
        assert t.records == []  # nothing to choose between


def test_small_matrices_always_get_one_thread() -> None:
    with threadpool_limits(2, user_api="blas"):
        before = _blas_threads()
        with LapackThreads(size=999) as t:
            for _ in range(3):
                with t.lapack(timed=True):
                    assert set(_blas_threads()) == {1}
        assert _blas_threads() == before


def test_fit_restores_thread_counts_and_small_fits_are_bitwise_reproducible() -> None:
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 2))
    y = np.sin(4 * X[:, 0]) + 0.1 * rng.standard_normal(300)
    before = _blas_threads()
    fits = [GaussianProcessRegressor(RBF(lengthscale=[1.0, 1.0])).fit(X, y) for _ in range(2)]
    assert _blas_threads() == before
    np.testing.assert_array_equal(fits[0].theta_, fits[1].theta_)
