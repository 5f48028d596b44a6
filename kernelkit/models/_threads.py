"""BLAS thread counts for the repeated O(n^3) LAPACK calls of a hyperparameter fit.

NumPy and SciPy wheels each bundle their own OpenBLAS, and an idle OpenBLAS pool
busy-waits for a while after each call, so two multi-threaded pools steal each other's
cores: the n = 2000 benchmark fit (``benchmarks/gp_fit.py``, 2 cores) took 14 s with both
pools at 2 threads and 7.4 s with every pool held to one thread except around the LAPACK
calls. The other products in the objective are thin (``n x d`` by ``d x n`` in the kernel)
and lose nothing on one thread.

:class:`LapackThreads` therefore holds every BLAS pool to one thread for the duration of a
fit, and gives the Cholesky factorisation and the inverse from the factor the caller's
thread count when the matrix has at least ``MIN_THREADED_SIZE`` rows. The policy is fixed,
so the same fit on the same machine gives the same numbers, bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController

from kernelkit._threads import MIN_THREADED_SIZE, blas_controller, blas_threads

__all__ = ["MIN_THREADED_SIZE", "LapackThreads"]


class LapackThreads:
    """Context manager: one BLAS thread inside it, except in :meth:`lapack` blocks.

    A ``LapackThreads`` that was never entered changes nothing. A caller who already
    limited BLAS to one thread (threadpoolctl) is respected. All counts are restored on exit.
    """

    def __init__(self, size: int = MIN_THREADED_SIZE):
        self.size = size
        self._stack = ExitStack()
        self._controller: ThreadpoolController | None = None
        self._threads = 1

    def __enter__(self) -> LapackThreads:
        controller = blas_controller()
        n_threads = blas_threads()
        if n_threads > 1:
            self._stack.enter_context(controller.limit(limits=1, user_api="blas"))
            if self.size >= MIN_THREADED_SIZE:
                self._controller = controller
                self._threads = n_threads
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()
        self._controller = None
        self._threads = 1

    @property
    def lapack_threads(self) -> int:
        """BLAS threads used inside :meth:`lapack` blocks."""
        return self._threads

    @contextmanager
    def lapack(self) -> Iterator[None]:
        """Run the enclosed LAPACK call with the caller's thread count (large matrices)."""
        if self._controller is None:
            yield
            return
        with self._controller.limit(limits=self._threads, user_api="blas"):
            yield
