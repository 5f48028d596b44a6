"""The Sphinx site: the API reference lists every public object, and the site builds.

The public objects are those of ``tests/test_docstrings.py`` (the ``__all__`` of every
public module; their classes and functions). ``docs/_scripts/api_lists.py`` writes
``docs/api/index.rst`` from the same enumeration; these tests check that the committed page
names each of them exactly once, and that ``python -m sphinx -W`` builds the site (numpydoc,
autosummary and sphinx-gallery included) without a warning and without loading anything
from the internet. The site is built once per test run, by the ``built_site`` fixture of
``tests/conftest.py`` (``tests/test_docs_browser.py`` reads it too).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
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
        "auto_examples/kernels/plot_gp_regression.html",
    ):
        assert (html / page).is_file(), page
    example = (html / "auto_examples" / "kernels" / "plot_gp_regression.html").read_text()
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


def test_every_experiment_has_a_stored_run_and_a_page(built_site: tuple[int, str, Path]) -> None:
    """``docs/reproductions/results/NAME/results.json`` exists for every registered
    experiment (a new one needs ``python docs/_scripts/reproductions.py --run --missing``),
    names its figures, and the built site has its page with those figures."""
    import json

    from kernelkit.experiments import names

    results = DOCS / "reproductions" / "results"
    missing = [name for name in names() if not (results / name / "results.json").is_file()]
    assert not missing, (
        "no stored run (python docs/_scripts/reproductions.py --run --missing) for: "
        + ", ".join(missing)
    )
    _, _, html = built_site
    for name in names():
        stored = json.loads((results / name / "results.json").read_text())
        assert stored["results"].get("headline"), name
        page = (html / "reproductions" / f"{name}.html").read_text()
        for figure in stored["results"].get("figures") or []:
            assert (results / name / figure).is_file(), f"{name}: {figure}"
            assert Path(figure).name in page, f"{name}: the page lacks {figure}"


def test_user_guide_has_a_chapter_per_area() -> None:
    """One chapter per area of the package, each reachable from the user guide's index."""
    _needs_docs()
    index = (DOCS / "user_guide" / "index.rst").read_text()
    chapters = re.findall(r"^   (\w+)$", index, flags=re.M)
    for chapter in (
        "kernels_and_gps",
        "bayesian_optimisation",
        "random_features",
        "graph_kernels",
        "learning_curves",
        "graphical_models",
        "structure_learning",
        "geometry",
        "scaling_out",
    ):
        assert chapter in chapters, chapter
        assert (DOCS / "user_guide" / f"{chapter}.rst").is_file(), chapter
