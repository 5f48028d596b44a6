"""The shared thread helpers: ordered parallel maps, no nested parallelism, and block
products whose sums do not depend on the thread count."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from kernelkit._threads import map_in_threads, run_in_threads
from kernelkit.kernels import RBF
from kernelkit.kernels.blockwise import symmetric_block_product
from kernelkit.linalg import KernelOperator


def test_map_in_threads_yields_in_order_and_bounds_what_waits() -> None:
    started: list[int] = []
    lock = threading.Lock()

    def work(i: int) -> int:
        with lock:
            started.append(i)
        return i * i

    it = map_in_threads(work, list(range(100)), 2)
    first = next(it)
    # the caller has taken one result: at most 2 * workers tasks were submitted
    assert first == 0 and len(started) <= 4
    assert [first, *it] == [i * i for i in range(100)]


def test_nested_calls_run_on_the_worker_thread() -> None:
    inner_threads: list[set[int]] = []

    def inner(_: int) -> int:
        return threading.get_ident()

    def outer(_: int) -> None:
        idents = {threading.get_ident()}
        run_in_threads(lambda i: idents.add(threading.get_ident()), [1, 2, 3], 4)
        idents |= set(map_in_threads(inner, [1, 2, 3], 4))
        inner_threads.append(idents)

    run_in_threads(outer, [0, 1, 2, 3], 2)
    assert len(inner_threads) == 4
    assert all(len(s) == 1 for s in inner_threads)


def test_map_in_threads_propagates_the_first_exception() -> None:
    def work(i: int) -> int:
        if i == 5:
            raise ValueError("five")
        return i

    with pytest.raises(ValueError, match="five"):
        list(map_in_threads(work, list(range(20)), 2))


def test_block_products_are_the_same_bits_on_one_thread_or_two() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((700, 3))
    V = rng.standard_normal((700, 5))
    kernel = RBF(lengthscale=[0.5, 1.0, 2.0])
    with threadpool_limits(2):
        two = symmetric_block_product(kernel, X, V, 128)
        op = KernelOperator(kernel, X, 0.1, block_size=128)
        g_two = op.gradient_dot(V[:, :2], V[:, 2:4])
        c_two = op.cross(X[:300], V)
    with threadpool_limits(1):
        one = symmetric_block_product(kernel, X, V, 128)
        g_one = op.gradient_dot(V[:, :2], V[:, 2:4])
        c_one = op.cross(X[:300], V)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(g_one, g_two)
    np.testing.assert_array_equal(c_one, c_two)
    np.testing.assert_allclose(two, kernel(X) @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c_two, kernel(X[:300], X) @ V, rtol=1e-12, atol=1e-12)
