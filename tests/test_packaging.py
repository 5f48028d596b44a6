"""Packaging: what kernelkit imports is what pyproject declares; matplotlib is optional."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import kernelkit
from kernelkit import plotting

ROOT = Path(kernelkit.__file__).resolve().parent
PYPROJECT = ROOT.parent / "pyproject.toml"
#: import name -> distribution name, where they differ
DISTRIBUTIONS = {"sklearn": "scikit-learn", "cv2": "opencv-python-headless"}


def _project() -> dict:
    return tomllib.loads(PYPROJECT.read_text())["project"]


def _requirement_names(reqs: list[str]) -> set[str]:
    names = set()
    for r in reqs:
        name = r.split(";")[0]
        for sep in "<>=!~[ ":
            name = name.split(sep)[0]
        names.add(name.strip().lower())
    return names


def _third_party_imports() -> dict[str, set[str]]:
    """Top-level names of every absolute import in the package -> the files importing them."""
    found: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "kernelkit" and top not in sys.stdlib_module_names:
                    found.setdefault(top, set()).add(path.name)
    return found


@pytest.mark.skipif(not PYPROJECT.exists(), reason="needs the source tree")
def test_every_third_party_import_is_declared() -> None:
    project = _project()
    runtime = _requirement_names(project["dependencies"])
    optional = _requirement_names(project["optional-dependencies"]["plot"])
    optional |= _requirement_names(project["optional-dependencies"]["dask"])
    for top, files in _third_party_imports().items():
        dist = DISTRIBUTIONS.get(top, top).lower()
        assert dist in runtime | optional, f"{dist} is imported by {sorted(files)} but not declared"
    assert "threadpoolctl" in runtime  # imported directly, not only through scikit-learn
    assert "matplotlib" not in runtime and "matplotlib" in optional


@pytest.mark.skipif(not PYPROJECT.exists(), reason="needs the source tree")
def test_license_is_a_pep_639_expression() -> None:
    project = _project()
    assert project["license"] == "BSD-3-Clause"
    assert not any(c.startswith("License ::") for c in project["classifiers"])  # PEP 639


def test_the_library_imports_without_touching_matplotlib() -> None:
    code = (
        "import sys\n"
        "import kernelkit.models, kernelkit.kernels, kernelkit.features, kernelkit.graphs\n"
        "import kernelkit.optimize, kernelkit.datasets, kernelkit.experiments, kernelkit.cli\n"
        "import kernelkit.plotting\n"
        "print('matplotlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_plotting_without_matplotlib_says_how_to_install_it(monkeypatch) -> None:
    plotting.pyplot.cache_clear()
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    try:
        with pytest.raises(ImportError, match=r"pip install 'kernelkit\[plot\]'"):
            plotting.new_figure()
    finally:
        plotting.pyplot.cache_clear()
