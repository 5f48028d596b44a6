"""The API reference's lists of public objects, and ``docs/api/index.rst`` written from them.

The public objects are those of ``tests/test_docstrings.py`` (and of the glossary test):
the classes and functions named in the ``__all__`` of every public module of kernelkit (a
module with no private part in its dotted path; the command-line modules ``*.cli`` and the
registered experiments ``kernelkit.experiments.*`` left out). Each is documented once, under
the shortest public path that exports it (``kernelkit.models.GaussianProcessRegressor``, not
``kernelkit.models.gp.GaussianProcessRegressor``), in the section of its area.

``conf.py`` rewrites ``docs/api/index.rst`` from these lists at every build, so a new
public object appears in the reference without editing it; ``python
docs/_scripts/api_lists.py`` does the same by hand, and ``--check`` exits 1 when the file
is out of date (``tests/test_docs.py`` checks it too).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INDEX = Path(__file__).resolve().parents[1] / "api" / "index.rst"

#: The areas of kernelkit in the order of the reference, with a heading each.
AREAS = {
    "kernelkit.datasets": "Datasets",
    "kernelkit.kernels": "Kernels",
    "kernelkit.features": "Feature maps",
    "kernelkit.linalg": "Linear algebra of kernel matrices",
    "kernelkit.models": "Models",
    "kernelkit.optimize": "Bayesian optimisation",
    "kernelkit.graphs": "Graphs",
    "kernelkit.learning_curves": "Learning curves on graphs",
    "kernelkit.pgm": "Discrete graphical models",
    "kernelkit.structure": "Structure learning",
    "kernelkit.geometry": "Geometry",
    "kernelkit.distributed": "Scaling out with Dask",
    "kernelkit.experiments": "Experiments",
    "kernelkit.plotting": "Plotting",
    "kernelkit.report": "The HTML report",
}


def public_modules() -> list[types.ModuleType]:
    """kernelkit's public modules, as ``tests/test_docstrings.py`` enumerates them."""
    import kernelkit

    mods = [kernelkit]
    for info in pkgutil.walk_packages(kernelkit.__path__, "kernelkit."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or parts[-1] == "cli":
            continue
        if len(parts) > 2 and parts[1] == "experiments":
            continue
        mods.append(importlib.import_module(info.name))
    return mods


def _is_public_object(obj: Any) -> bool:
    ours = (getattr(obj, "__module__", None) or "").startswith("kernelkit")
    return ours and (inspect.isclass(obj) or inspect.isfunction(obj))


def documented_names() -> dict[str, Any]:
    """``documented path -> object`` for every public class and function, each once.

    The path is the shortest ``module.name`` of a public module whose ``__all__`` lists
    the object (ties broken alphabetically).
    """
    best: dict[int, tuple[tuple[int, str], str, Any]] = {}
    for mod in public_modules():
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if not _is_public_object(obj):
                continue
            path = f"{mod.__name__}.{name}"
            key = (path.count("."), path)
            if id(obj) not in best or key < best[id(obj)][0]:
                best[id(obj)] = (key, path, obj)
    return {path: obj for _, path, obj in sorted(best.values(), key=lambda t: t[1])}


@dataclass
class Section:
    """One area's objects: those its package exports, then those of its submodules."""

    package: str
    title: str
    names: list[str] = field(default_factory=list)
    submodules: dict[str, list[str]] = field(default_factory=dict)


def sections() -> list[Section]:
    """The reference's sections, one per area of :data:`AREAS`, objects sorted by name."""
    out = {pkg: Section(pkg, title) for pkg, title in AREAS.items()}
    for path in documented_names():
        module, _ = path.rsplit(".", 1)
        area = ".".join(module.split(".")[:2])
        if area not in out:
            raise RuntimeError(f"{path}: area {area} has no section in AREAS ({__file__})")
        section = out[area]
        if module == area:
            section.names.append(path)
        else:
            section.submodules.setdefault(module, []).append(path)
    for section in out.values():
        section.names.sort(key=str.lower)
        for names in section.submodules.values():
            names.sort(key=str.lower)
    return [s for s in out.values() if s.names or s.submodules]


HEADER = """\
.. This file is written by docs/_scripts/api_lists.py (conf.py runs it at every build):
   edit that script, not this file.

.. _api:

API reference
=============

Every public class and function of kernelkit, one page each, grouped by area. An object
is listed under the shortest path that exports it: ``from kernelkit.models import
GaussianProcessRegressor`` is the import to use, not ``kernelkit.models.gp``.

"""


def _table(module: str, names: list[str]) -> list[str]:
    # autosummary wants names relative to the current module (set by automodule)
    lines = ["", ".. autosummary::", "   :toctree: generated/", ""]
    lines += [f"   {name.removeprefix(module + '.')}" for name in names]
    return [*lines, ""]


def render() -> str:
    """The text of ``docs/api/index.rst``."""
    lines = [HEADER]
    for section in sections():
        heading = f"{section.title}: ``{section.package}``"
        lines += ["", heading, "-" * len(heading), "", f".. automodule:: {section.package}"]
        if section.names:
            lines += _table(section.package, section.names)
        for module, names in sorted(section.submodules.items()):
            heading = f"``{module}``"
            lines += ["", heading, "~" * len(heading), "", f".. automodule:: {module}"]
            lines += _table(module, names)
    return "\n".join(lines).rstrip() + "\n"


def write(path: Path = INDEX) -> bool:
    """Write ``path`` if its text differs from :func:`render`; whether it was written."""
    text = render()
    if path.exists() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return True


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        if not INDEX.exists() or INDEX.read_text() != render():
            print(f"{INDEX} is out of date: run python {__file__}", file=sys.stderr)
            return 1
        return 0
    if argv:
        print(f"usage: python {__file__} [--check]", file=sys.stderr)
        return 2
    print(f"{INDEX}: {'written' if write() else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
