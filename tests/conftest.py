"""Fixtures shared by the test suite."""

from __future__ import annotations

import doctest
import importlib.util
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

#: Whether Dask (the optional ``dask`` extra) is installed.
HAVE_DASK = importlib.util.find_spec("dask") is not None


class _Runner(doctest.DocTestRunner):
    """A doctest runner that notes when an example failed for want of Dask."""

    needs_dask = False

    def report_unexpected_exception(self, out: Any, test: Any, example: Any, exc_info: Any):
        exc = exc_info[1]
        if not HAVE_DASK and isinstance(exc, ImportError) and "dask" in str(exc).lower():
            self.needs_dask = True
        return super().report_unexpected_exception(out, test, example, exc_info)


@pytest.fixture
def run_doctests() -> Callable[[ModuleType], doctest.TestResults]:
    """``run(module)``: the Examples of ``module`` as doctests (``NORMALIZE_WHITESPACE``).

    Without Dask, a docstring whose examples fail because Dask is missing is left out (the
    library and its tests run without the ``dask`` extra; those examples run where it is
    installed): it counts neither as attempted nor as failed."""

    def run(module: ModuleType) -> doctest.TestResults:
        failed = attempted = 0
        for test in doctest.DocTestFinder().find(module):
            runner = _Runner(optionflags=doctest.NORMALIZE_WHITESPACE)
            report: list[str] = []
            result = runner.run(test, out=report.append)
            if runner.needs_dask:
                continue
            print("".join(report), end="")  # the failures, shown by pytest when a test fails
            failed += result.failed
            attempted += result.attempted
        return doctest.TestResults(failed, attempted)

    return run
