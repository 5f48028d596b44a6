"""BLAS thread counts for the repeated O(n^3) LAPACK calls of a hyperparameter fit.

Two effects make the default (every BLAS pool with all cores) slow inside a GP fit:

* NumPy and SciPy wheels each bundle their own OpenBLAS. An idle OpenBLAS pool
  busy-waits for a while after each call, so two multi-threaded pools steal each other's
  cores: the n = 2000 benchmark fit (``benchmarks/gp_fit.py``, 2 cores) took 14 s with
  both pools at 2 threads and 7.4 s with every pool held to one thread except around the
  LAPACK calls. The other products in the objective are thin (``n x d`` by ``d x n`` in
  the kernel) and lose nothing on one thread.
* Multi-threaded LAPACK is the fastest on an idle machine, but when other processes keep
  some of the cores busy its threads wait for each other at every synchronisation: with
  one of the 2 cores taken, the same fit took 20 s with 2-thread LAPACK against 11 s with
  one thread, and an n = 500 fit 17 s against 0.7 s.

:class:`LapackThreads` therefore holds every BLAS pool to one thread for the duration of
the fit and picks, around the LAPACK calls, between the caller's thread count and one
thread by timing one call per objective evaluation (the Cholesky factorisation, whose
size is fixed within a fit, so the times are comparable): the first evaluation uses one
thread, the second all; later ones use the faster (the median of the last three timings
of the count in use against the latest timing of the other), and now and then the other
count is re-tried in case the load has changed — after ``probe_every`` evaluations, then
after twice as many each time, because a losing multi-threaded call on a loaded machine
can cost as much as twenty single-threaded ones. The inverse from the factor follows the
decision without being timed. A caller who limited BLAS to one thread (threadpoolctl) is
respected. Matrices smaller than ``MIN_THREADED_SIZE`` always get one thread.

The price, for n >= ``MIN_THREADED_SIZE``, is that the thread count and so the round-off
may differ between two runs of the same fit: likelihoods agree to ~1e-10, hyperparameters
in flat directions of the likelihood (e.g. the lengthscale of an irrelevant input) to
~1e-7. Wrap the fit in ``threadpoolctl.threadpool_limits(1)`` for bitwise reproducibility.
"""

from __future__ import annotations

import statistics
import time
from collections import deque
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController

__all__ = ["LapackThreads"]

#: Below this matrix size LAPACK runs on one thread: multi-threading gains at most ~1.5x
#: there (2 cores, idle), and a fixed count keeps small fits bitwise reproducible.
MIN_THREADED_SIZE = 1000


class LapackThreads:
    """Context manager choosing BLAS threads for the LAPACK calls inside it, by timing.

    Wrap each LAPACK call in ``with threads.lapack(timed=...)``. Timed calls (one per
    objective evaluation, all of the same size) drive the choice and carry the re-tries;
    the others use the count currently judged faster. Outside these calls every BLAS pool
    is held to one thread; all counts are restored on exit. A ``LapackThreads`` that was
    never entered changes nothing.
    """

    def __init__(self, size: int = MIN_THREADED_SIZE, probe_every: int = 16, history: int = 3):
        self.size = size
        self.probe_every = probe_every
        self.history = history
        self._stack = ExitStack()
        self._controller: ThreadpoolController | None = None
        self._choices: tuple[int, ...] = (1,)
        self._times: dict[int, deque[float]] = {}
        self._calls = 0
        self._best = 1
        self._interval = probe_every
        self._next_probe = 0
        #: (threads, seconds, timed) of every call, for inspection and tests
        self.records: list[tuple[int, float, bool]] = []

    def __enter__(self) -> LapackThreads:
        controller = ThreadpoolController()
        libs = controller.select(user_api="blas").lib_controllers
        n_threads = max((lib.num_threads for lib in libs), default=1)
        if n_threads > 1:
            self._stack.enter_context(controller.limit(limits=1, user_api="blas"))
            if self.size >= MIN_THREADED_SIZE:
                self._controller = controller
                self._choices = (1, n_threads)  # one thread first: safe on a loaded machine
                self._next_probe = len(self._choices) + self.probe_every
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()
        self._controller = None

    def _choose(self) -> int:
        calls = self._calls
        self._calls += 1
        if calls < len(self._choices):  # try each count once
            return self._choices[calls]
        current = self._best

        def score(c: int) -> float:
            # the count in use: median of its recent calls (robust to a one-off stall);
            # the other: its latest call, so that a change of load shows at once
            times = self._times[c]
            return statistics.median(times) if c == current else times[-1]

        self._best = min(self._choices, key=score)
        if self._best != current:  # a re-try won, or the count in use slowed down
            self._interval = self.probe_every
        if calls >= self._next_probe:  # re-try the other; each re-try waits twice as long
            self._interval *= 2
            self._next_probe = calls + self._interval
            return next(c for c in self._choices if c != self._best)
        return self._best

    def _record(self, threads: int, elapsed: float, timed: bool) -> None:
        if timed:
            self._times.setdefault(threads, deque(maxlen=self.history)).append(elapsed)
        self.records.append((threads, elapsed, timed))

    @contextmanager
    def lapack(self, *, timed: bool = False) -> Iterator[None]:
        """Run the enclosed LAPACK call with the chosen number of BLAS threads."""
        if self._controller is None:
            yield
            return
        threads = self._choose() if timed else self._best
        with self._controller.limit(limits=threads, user_api="blas"):
            start = time.perf_counter()
            yield
            elapsed = time.perf_counter() - start
        self._record(threads, elapsed, timed)
