"""BLAS thread control shared by every area.

Multi-threaded BLAS and LAPACK gain little on small problems and lose badly when other
processes hold cores: an 850 x 850 Cholesky factorisation took 0.6 s with two OpenBLAS
threads on a loaded 2-core machine and 0.02 s with one. Small dense work therefore runs
on one BLAS thread (:func:`blas_threads_for`); large work keeps the caller's setting.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

import scipy.linalg  # noqa: F401  (loads SciPy's BLAS before the controller looks for it)
from threadpoolctl import ThreadpoolController

T = TypeVar("T")
R = TypeVar("R")

__all__ = [
    "MIN_THREADED_SIZE",
    "blas_controller",
    "blas_threads",
    "blas_threads_for",
    "map_in_threads",
    "map_on_blas_threads",
    "one_blas_thread",
    "resolve_n_jobs",
    "run_in_threads",
]

#: Matrices with fewer rows than this are factorised on one BLAS thread.
MIN_THREADED_SIZE = 1000


_controller: list[tuple[int, ThreadpoolController]] = []


def blas_controller() -> ThreadpoolController:
    """A controller of the BLAS libraries loaded now (building one costs about a
    millisecond, so it is kept until an import may have loaded another: OpenCV, for one,
    brings its own OpenBLAS)."""
    n_modules = len(sys.modules)
    if not _controller or _controller[0][0] != n_modules:
        _controller[:] = [(n_modules, ThreadpoolController())]
    return _controller[0][1]


def blas_threads() -> int:
    """The largest thread count of the loaded BLAS libraries (1 if none is found)."""
    libs = blas_controller().select(user_api="blas").lib_controllers
    return max((lib.num_threads for lib in libs), default=1)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Every BLAS library limited to one thread inside the block (nothing to do, and
    nothing paid, when they already run on one)."""
    if blas_threads() > 1:
        with blas_controller().limit(limits=1, user_api="blas"):
            yield
    else:
        yield


@contextmanager
def blas_threads_for(n: int) -> Iterator[None]:
    """One BLAS thread for an ``n x n`` problem with ``n < MIN_THREADED_SIZE``."""
    if n < MIN_THREADED_SIZE:
        with one_blas_thread():
            yield
    else:
        yield


def resolve_n_jobs(n_jobs: int | None) -> int:
    """A thread count from a checked ``n_jobs``: ``None`` -> the BLAS thread count (what a
    dense matrix product would use), capped at the CPU count; ``-1`` -> all CPUs; a
    positive integer as is."""
    cpus = os.cpu_count() or 1
    if n_jobs is None:
        return max(1, min(cpus, blas_threads()))
    if n_jobs == -1:
        return cpus
    return int(n_jobs)


#: Set in the threads of :func:`run_in_threads` and :func:`map_in_threads`, whose own calls
#: to either then run in order on that thread: parallel work inside parallel work would
#: only put more threads on the same cores.
_worker = threading.local()


def _in_worker() -> bool:
    return bool(getattr(_worker, "active", False))


def _as_worker(work: Callable[[T], R]) -> Callable[[T], R]:
    def run(item: T) -> R:
        _worker.active = True
        try:
            return work(item)
        finally:
            _worker.active = False

    return run


def run_in_threads(work: Callable[[T], None], items: Sequence[T], workers: int) -> None:
    """``work(item)`` for every item, on ``workers`` threads (in order on the calling
    thread when one is enough, or when called from such a worker thread); the first
    exception propagates."""
    if workers <= 1 or len(items) < 2 or _in_worker():
        for item in items:
            work(item)
        return
    with ThreadPoolExecutor(min(workers, len(items))) as pool:
        list(pool.map(_as_worker(work), items))


def map_in_threads(work: Callable[[T], R], items: Sequence[T], workers: int) -> Iterator[R]:
    """``work(item)`` for each item, computed on ``workers`` threads and yielded in the
    order of ``items``, so that whatever the caller accumulates from them is the same
    sum, to the last bit, on any number of threads. At most ``2 workers`` results wait
    at once (memory stays bounded whatever the number of items); the first exception
    propagates."""
    if workers <= 1 or len(items) < 2 or _in_worker():
        for item in items:
            yield work(item)
        return
    task = _as_worker(work)
    with ThreadPoolExecutor(min(workers, len(items))) as pool:
        pending: deque[Future[R]] = deque()
        try:
            for item in items:
                pending.append(pool.submit(task, item))
                if len(pending) >= 2 * workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def map_on_blas_threads(work: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
    """:func:`map_in_threads` with one worker per BLAS thread (capped at the CPU count),
    each running its item on one BLAS thread: for blocks whose own products are thin, so
    that the threads, not BLAS, share out the cores. Results come in the order of
    ``items``."""
    workers = resolve_n_jobs(None)
    parallel = workers > 1 and len(items) > 1 and not _in_worker()
    with one_blas_thread() if parallel else contextlib.nullcontext():
        yield from map_in_threads(work, items, workers)
