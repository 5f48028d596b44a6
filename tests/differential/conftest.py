"""The differential tests' fast grid runs its small problems on one BLAS thread.

Matrices of a few hundred rows gain nothing from a second thread, and on a shared 2-core
machine a busy neighbour makes OpenBLAS's threads wait on each other: an n = 100 likelihood
evaluation took 30 times longer with two threads than with one. Both libraries of a
comparison run under the same limit. Tests marked ``slow`` (realistic sizes) keep the
default thread count.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True)
def _one_blas_thread_for_small_problems(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("slow") is not None:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield
