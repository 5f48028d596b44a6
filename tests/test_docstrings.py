"""Every public docstring passes ``numpydoc.validate``, and every docstring example runs.

The public objects are those of the glossary test: the names in the ``__all__`` of every
public module of kernelkit (a module with no private part in its dotted path), and the
public methods and properties of the classes among them. The numpydoc checks in
:data:`IGNORED` are house style, not omissions; everything else (an undocumented parameter,
a missing Returns section, a missing docstring, ...) fails. The registered experiments
(``kernelkit.experiments.*``: their public function is ``run``, documented by the registry)
and the command-line modules (``*.cli``: documented by ``--help``) are left out.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import types
from typing import Any

import pytest

import kernelkit

numpydoc_validate = pytest.importorskip("numpydoc.validate")

#: numpydoc checks not enforced, and why.
IGNORED = {
    "GL01": "the summary starts on the line of the opening quotes (house style)",
    "GL02": "closing quotes: formatting",
    "SS03": "a summary may end in a formula or a code literal",
    "SS05": "summaries say what is returned ('The Gram matrix ...'), not 'Return ...'",
    "SS06": "a summary may take two lines",
    "ES01": "not every object needs an extended summary",
    "PR09": "parameter descriptions may end in a formula or a code literal",
    "RT02": "a Returns entry may name its value as well as its type",
    "SA01": "See Also where it helps, not everywhere",
    "EX01": "Examples on the main objects; methods and properties need not have them",
}


def _public_modules() -> list[types.ModuleType]:
    mods = [kernelkit]
    for info in pkgutil.walk_packages(kernelkit.__path__, "kernelkit."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or parts[-1] == "cli":
            continue
        if len(parts) > 2 and parts[1] == "experiments":
            continue
        mods.append(importlib.import_module(info.name))
    return mods


def _ours(obj: Any) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("kernelkit")


def public_objects() -> dict[str, Any]:
    """``import path -> object`` for every public class, function, method and property."""
    found: dict[str, Any] = {}
    for mod in _public_modules():
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if not _ours(obj) or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            path = f"{obj.__module__}.{obj.__qualname__}"
            found[path] = obj
            if not inspect.isclass(obj):
                continue
            for attr, value in vars(obj).items():
                if attr.startswith("_"):
                    continue
                func = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
                if inspect.isfunction(func) or isinstance(value, property):
                    found[f"{path}.{attr}"] = value
    return found


PUBLIC = public_objects()
OBJECTS = sorted(PUBLIC)


def _fields_are_attributes(obj: Any) -> bool:
    """Whether ``obj`` is a dataclass whose docstring documents every field under
    Attributes: a result object (``MAPResult``, ``LearningCurve``, ...) that users read and
    never build, whose fields are its constructor's parameters too."""
    from numpydoc.docscrape import NumpyDocString

    if not (inspect.isclass(obj) and dataclasses.is_dataclass(obj)):
        return False
    documented = set()
    for entry in NumpyDocString(inspect.getdoc(obj) or "")["Attributes"]:
        documented.update(name.strip() for name in entry.name.split(","))
    fields = {f.name for f in dataclasses.fields(obj) if f.init and not f.name.startswith("_")}
    return fields <= documented


def numpydoc_errors(path: str, obj: Any = None) -> list[str]:
    """The enforced numpydoc errors of the object at ``path``, as ``"CODE message"``. The
    fields of a result dataclass are documented as its Attributes (not as Parameters)."""
    result = numpydoc_validate.validate(path)
    skip = set(IGNORED)
    if obj is not None and _fields_are_attributes(obj):
        skip.add("PR01")
    return [f"{code} {msg}" for code, msg in result["errors"] if code not in skip]


def test_there_are_public_objects() -> None:
    assert len(OBJECTS) > 300
    assert "kernelkit.models.gp.GaussianProcessRegressor" in OBJECTS


@pytest.mark.parametrize("path", OBJECTS)
def test_numpydoc(path: str) -> None:
    errors = numpydoc_errors(path, PUBLIC[path])
    assert not errors, f"{path}:\n  " + "\n  ".join(errors)


#: Every module of kernelkit, private ones included (their objects are documented too).
MODULES = sorted(
    ["kernelkit"]
    + [
        m.name
        for m in pkgutil.walk_packages(kernelkit.__path__, "kernelkit.")
        if m.name != "kernelkit.__main__"  # runs the command line when imported
    ]
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str, run_doctests: Any) -> None:
    """Every Examples block of every module runs as a doctest (docstrings whose examples
    import Dask are left out where it is not installed)."""
    result = run_doctests(importlib.import_module(name))
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
