"""Fixtures shared by the test suite."""

from __future__ import annotations

import doctest
import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

#: Whether Dask (the optional ``dask`` extra) is installed.
HAVE_DASK = importlib.util.find_spec("dask") is not None

ROOT = Path(__file__).resolve().parents[1]


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


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path]:
    """``(exit status, output, html folder)`` of ``sphinx -W --keep-going`` on a copy of
    ``docs/`` and ``examples/``, built once per test run (about a minute).

    Autosummary and sphinx-gallery write into their source folder: the copy keeps the
    repository clean. The copy sits beside the html folder (``html.parent / "docs"``, with
    ``ARCHITECTURE.md``, whose glossary the build reads) and the doctrees in
    ``html / ".doctrees"``, for a second builder (``tests/test_docs_browser.py``'s
    linkcheck) to reuse."""
    if not (ROOT / "docs" / "conf.py").exists():  # an installed copy of the tests
        pytest.skip("docs/ not available")
    for name in (
        "sphinx",
        "numpydoc",
        "sphinx_gallery",
        "pydata_sphinx_theme",
        "sphinx_copybutton",
        "matplotlib",
    ):
        pytest.importorskip(name, reason=f"building the docs needs {name} (the docs extra)")
    root = tmp_path_factory.mktemp("site")
    ignore = shutil.ignore_patterns("_build", "generated", "auto_examples", "__pycache__")
    shutil.copytree(ROOT / "docs", root / "docs", ignore=ignore)
    shutil.copytree(ROOT / "examples", root / "examples", ignore=ignore)
    shutil.copy2(ROOT / "ARCHITECTURE.md", root / "ARCHITECTURE.md")
    html = root / "html"
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        str(root / "docs"),
        str(html),
    ]
    run = subprocess.run(command, capture_output=True, text=True, cwd=root, check=False)
    return run.returncode, run.stdout + run.stderr, html
