"""The Sphinx site: the API reference lists every public object, and the site builds.

The public objects are those of ``tests/test_docstrings.py`` (the ``__all__`` of every
public module; their classes and functions). ``docs/_scripts/api_lists.py`` writes
``docs/api/index.rst`` from the same enumeration; these tests check that the committed page
names each of them exactly once, and that ``python -m sphinx -W`` builds the site (numpydoc,
autosummary and sphinx-gallery included) without a warning and without loading anything
from the internet.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from test_docstrings import public_objects

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API_INDEX = DOCS / "api" / "index.rst"


def _needs_docs() -> None:
    if not (DOCS / "conf.py").exists():  # an installed copy of the tests without the repo
        pytest.skip("docs/ not available")


def _api_lists() -> ModuleType:
    spec = importlib.util.spec_from_file_location("api_lists", DOCS / "_scripts" / "api_lists.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def _resolve(path: str) -> Any:
    """The object at dotted ``path``: the longest importable module, then attributes."""
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(path)


def _listed_in_api_index() -> list[str]:
    """The full names in the ``autosummary`` tables of ``docs/api/index.rst``."""
    names, module, in_table = [], None, False
    for line in API_INDEX.read_text().splitlines():
        directive = re.match(r"\.\. (automodule|currentmodule|module):: (\S+)", line)
        if directive:
            module, in_table = directive.group(2), False
        elif line.startswith(".. autosummary::"):
            in_table = True
        elif in_table and re.match(r"   [A-Za-z_][\w.]*$", line):
            name = line.strip()
            names.append(name if name.startswith("kernelkit.") else f"{module}.{name}")
        elif in_table and line and not line.startswith("   "):
            in_table = False
    return names


def test_api_reference_lists_every_public_object() -> None:
    _needs_docs()
    public = {
        id(obj): path
        for path, obj in public_objects().items()
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and "." not in obj.__qualname__
    }
    listed = _listed_in_api_index()
    listed_ids = [id(_resolve(name)) for name in listed]
    missing = sorted(path for key, path in public.items() if key not in listed_ids)
    assert not missing, (
        "docs/api/index.rst misses public objects (run python docs/_scripts/api_lists.py):\n  "
        + "\n  ".join(missing)
    )
    extra = sorted(name for name, key in zip(listed, listed_ids, strict=True) if key not in public)
    assert not extra, "docs/api/index.rst lists objects that are not public:\n  " + "\n  ".join(
        extra
    )
    twice = sorted(
        {name for name, key in zip(listed, listed_ids, strict=True) if listed_ids.count(key) > 1}
    )
    assert not twice, "docs/api/index.rst lists objects twice:\n  " + "\n  ".join(twice)


def test_api_reference_is_up_to_date() -> None:
    _needs_docs()
    assert API_INDEX.read_text() == _api_lists().render(), (
        "docs/api/index.rst is out of date: run python docs/_scripts/api_lists.py"
    )


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path]:
    """``(exit status, output, html folder)`` of ``sphinx -W --keep-going`` on a copy of
    ``docs/`` and ``examples/`` (autosummary and sphinx-gallery write into their source
    folder: the copy keeps the repository clean)."""
    _needs_docs()
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
    shutil.copytree(DOCS, root / "docs", ignore=ignore)
    shutil.copytree(ROOT / "examples", root / "examples", ignore=ignore)
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


def test_site_builds_without_warnings(built_site: tuple[int, str, Path]) -> None:
    status, output, html = built_site
    assert status == 0, f"sphinx -W failed ({status}):\n{output[-20000:]}"
    for page in (
        "index.html",
        "user_guide/scaling_out.html",
        "api/index.html",
        "api/generated/kernelkit.models.GaussianProcessRegressor.html",
        "api/generated/kernelkit.kernels.RBF.html",
        "auto_examples/index.html",
        "auto_examples/plot_gp_regression.html",
    ):
        assert (html / page).is_file(), page
    example = (html / "auto_examples" / "plot_gp_regression.html").read_text()
    assert "sphx_glr_plot_gp_regression_001.png" in example  # the figure was drawn


def test_site_loads_nothing_from_the_internet(built_site: tuple[int, str, Path]) -> None:
    _, _, html = built_site
    remote = re.compile(
        r"<(?:script|img|iframe)[^>]*\ssrc=\"(?:https?:)?//|"
        r"<link[^>]*rel=\"(?:stylesheet|preload)\"[^>]*href=\"(?:https?:)?//"
    )
    pages = sorted(html.rglob("*.html"))
    assert pages
    loading = [str(p.relative_to(html)) for p in pages if remote.search(p.read_text())]
    assert not loading, f"pages that load scripts or styles from the internet: {loading}"
