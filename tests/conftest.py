"""Fixtures shared by the test suite."""

from __future__ import annotations

import doctest
import importlib.util
from collections.abc import Callable
from types import ModuleType

import pytest

#: Whether Dask (the optional ``dask`` extra) is installed.
HAVE_DASK = importlib.util.find_spec("dask") is not None


@pytest.fixture
def run_doctests() -> Callable[[ModuleType], doctest.TestResults]:
    """``run(module)``: the Examples of ``module`` as doctests (``NORMALIZE_WHITESPACE``).

    Without Dask, a docstring whose examples import it is left out (the library and its
    tests run without the ``dask`` extra; those examples run where it is installed)."""

    def run(module: ModuleType) -> doctest.TestResults:
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        for test in doctest.DocTestFinder().find(module):
            if not HAVE_DASK and any("dask" in e.source for e in test.examples):
                continue
            runner.run(test)
        return runner.summarize(verbose=False)

    return run
