"""One name per concept: the glossary of ARCHITECTURE.md, enforced on the public API.

The "Names" table of ARCHITECTURE.md is read here (between the ``glossary:start`` and
``glossary:end`` markers): every back-quoted name in its "not" column is refused as a
parameter of any public function, class or method of kernelkit and as an option of the
``kernelkit`` command, except where the "except" column allows it for a named callable.
The same file checks that no module imports a private name from another subpackage and
that no public signature returns a private type.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import pkgutil
import re
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import kernelkit

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kernelkit"
_TICKED = re.compile(r"`([^`]+)`")
#: The command line's one spelling of ``random_state`` (a "not" name in the API).
CLI_ALLOWED = {"--seed"}


# ------------------------------------------------------------------ the glossary
@dataclass(frozen=True)
class Glossary:
    forbidden: dict[str, str]  # refused name -> the concept's name
    allowed: dict[str, set[str]]  # refused name -> callables (qualified or bare) allowed it


def read_glossary(text: str) -> Glossary:
    """The refused names of the glossary table in ``text`` (ARCHITECTURE.md)."""
    start, end = text.index("<!-- glossary:start -->"), text.index("<!-- glossary:end -->")
    forbidden: dict[str, str] = {}
    allowed: dict[str, set[str]] = {}
    for line in text[start:end].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("concept", "") or set(cells[0]) <= {"-"}:
            continue
        _, name, refused, exceptions = cells
        good = name.replace("`", "")
        for bad in _TICKED.findall(refused):
            if bad.isidentifier():
                forbidden[bad] = good
        ticked = _TICKED.findall(exceptions)
        if ticked:
            allowed.setdefault(ticked[0], set()).update(ticked[1:])
    return Glossary(forbidden, allowed)


GLOSSARY = read_glossary((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"))


# ------------------------------------------------------------------ the public API
def public_modules() -> list[types.ModuleType]:
    """kernelkit and every module of it whose dotted path has no private part."""
    mods = [kernelkit]
    for info in pkgutil.walk_packages(kernelkit.__path__, "kernelkit."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        mods.append(importlib.import_module(info.name))
    return mods


def _public_names(mod: types.ModuleType) -> list[str]:
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [
            n
            for n, v in vars(mod).items()
            if not n.startswith("_") and getattr(v, "__module__", None) == mod.__name__
        ]
    return list(names)


def _ours(obj: Any) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("kernelkit")


def public_callables(mods: list[types.ModuleType]) -> dict[str, Any]:
    """``qualified name -> callable`` for public functions, classes and their methods."""
    found: dict[str, Any] = {}
    for mod in mods:
        for name in _public_names(mod):
            obj = getattr(mod, name, None)
            if inspect.isclass(obj) and _ours(obj):
                found[obj.__qualname__] = obj
                for klass in obj.__mro__:
                    if not _ours(klass):
                        continue
                    for attr, value in vars(klass).items():
                        if attr.startswith("_"):
                            continue
                        func = (
                            value.__func__
                            if isinstance(value, (classmethod, staticmethod))
                            else value
                        )
                        if inspect.isfunction(func):
                            found.setdefault(f"{obj.__qualname__}.{attr}", func)
            elif inspect.isfunction(obj) and _ours(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def _parameters(obj: Any) -> list[str]:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in sig.parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in ("self", "cls")
    ]


def _is_allowed(param: str, qualname: str, glossary: Glossary) -> bool:
    owners = glossary.allowed.get(param, set())
    parts = qualname.split(".")
    return any(o in parts for o in owners)


def naming_violations(callables: dict[str, Any], glossary: Glossary = GLOSSARY) -> list[str]:
    """``"qualname(param): use name"`` for each refused parameter name."""
    bad = []
    for qualname, obj in sorted(callables.items()):
        for param in _parameters(obj):
            if param in glossary.forbidden and not _is_allowed(param, qualname, glossary):
                bad.append(f"{qualname}({param}): use {glossary.forbidden[param]}")
    return bad


_PRIVATE_TYPE = re.compile(r"(?<![\w.])_[A-Z]\w*")


def private_return_types(callables: dict[str, Any]) -> list[str]:
    bad = []
    for qualname, obj in sorted(callables.items()):
        if inspect.isclass(obj):
            continue
        try:
            ann = inspect.signature(obj).return_annotation
        except (TypeError, ValueError):
            continue
        text = ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
        if text is not inspect.Signature.empty and _PRIVATE_TYPE.search(str(text)):
            bad.append(f"{qualname} -> {text}")
    return bad


# ------------------------------------------------------------------ the command line
def cli_options(parser: argparse.ArgumentParser, path: str = "kernelkit") -> dict[str, str]:
    """``option -> subcommand path`` for every option of ``parser`` and its subparsers."""
    found: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(cli_options(sub, f"{path} {name}"))
        for opt in action.option_strings:
            found.setdefault(opt, path)
    return found


def cli_violations(options: dict[str, str], glossary: Glossary = GLOSSARY) -> list[str]:
    refused = {"--" + bad.replace("_", "-"): good for bad, good in glossary.forbidden.items()}
    return [
        f"{where} {opt}: use {refused[opt]}"
        for opt, where in sorted(options.items())
        if opt in refused and opt not in CLI_ALLOWED
    ]


# ------------------------------------------------------------------ private imports
def _area(path: Path, package: Path) -> str | None:
    """The subpackage a module file belongs to (None for top-level modules)."""
    rel = path.relative_to(package).parts
    return rel[0] if len(rel) > 1 else None


def private_imports(package: Path = PACKAGE) -> list[str]:
    """Imports of a private name, or from a private module, of another subpackage."""
    bad = []
    for path in sorted(package.rglob("*.py")):
        area = _area(path, package)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [(node.module, a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [(a.name, "") for a in node.names]
            else:
                continue
            for module, name in targets:
                parts = module.split(".")
                if parts[0] != "kernelkit" or len(parts) < 2:
                    continue
                other = parts[1]
                if other.startswith("_") or other == area:
                    continue  # top-level shared modules, or the module's own subpackage
                if any(p.startswith("_") for p in parts[2:]) or name.startswith("_"):
                    rel = path.relative_to(package.parent)
                    bad.append(f"{rel}:{node.lineno}: {module} import {name}".rstrip())
    return bad


# ------------------------------------------------------------------ tests
@pytest.fixture(scope="module")
def api() -> dict[str, Any]:
    return public_callables(public_modules())


def test_glossary_table_is_read():
    assert GLOSSARY.forbidden["h"].startswith("n_iter")
    assert GLOSSARY.forbidden["seed"].startswith("random_state")
    assert GLOSSARY.forbidden["kind"].startswith("coupling")
    assert "KernelRidge" in GLOSSARY.allowed["alpha"]


def test_the_api_is_walked(api):
    # a sample from every area, so that a broken walk cannot pass vacuously
    for name in ("GaussianProcessRegressor.fit", "RandomFourierFeatures", "WeisfeilerLehman"):
        assert name in api
    assert any(q.endswith("wl_kernel") for q in api)
    assert len(api) > 200


def test_public_parameter_names_follow_the_glossary(api):
    assert naming_violations(api) == []


def test_command_line_options_follow_the_glossary():
    from kernelkit.cli import build_parser

    options = cli_options(build_parser())
    assert "--n-iter" in options and "--seed" in options
    assert cli_violations(options) == []


def test_no_private_types_in_public_returns(api):
    assert private_return_types(api) == []


def test_no_private_import_across_subpackages():
    assert private_imports() == []


# ------------------------------------------------------------------ the checks can fail
def test_a_wrong_name_is_caught():
    """Each checker flags a planted violation (so an empty list above means something)."""

    def wl_depth(graphs: Any, h: int = 3, seed: Any = None) -> Any:
        return graphs

    class Shape:
        def __init__(self, alpha: float = 1.0, kind: str = "iid"):
            self.alpha, self.kind = alpha, kind

    class KernelRidge:  # the exception is by name: alpha is the ridge penalty here
        def __init__(self, alpha: float = 1.0):
            self.alpha = alpha

    found = naming_violations({"wl_depth": wl_depth, "Shape": Shape, "KernelRidge": KernelRidge})
    assert [v.split(": use ")[0] for v in found] == [
        "Shape(alpha)",
        "Shape(kind)",
        "wl_depth(h)",
        "wl_depth(seed)",
    ]
    assert found[2].startswith("wl_depth(h): use n_iter")

    parser = argparse.ArgumentParser(prog="kernelkit")
    sub = parser.add_subparsers()
    p = sub.add_parser("thing")
    p.add_argument("--iterations")
    p.add_argument("--seed")
    found = cli_violations(cli_options(parser))
    assert len(found) == 1 and found[0].startswith("kernelkit thing --iterations: use n_iter")

    def step() -> _Private:  # noqa: F821 - a string annotation under __future__ annotations
        raise NotImplementedError

    assert private_return_types({"step": step}) == ["step -> _Private"]


def test_a_private_import_is_caught(tmp_path):
    pkg = tmp_path / "kernelkit"
    (pkg / "models").mkdir(parents=True)
    (pkg / "features").mkdir()
    (pkg / "models" / "a.py").write_text(
        "from kernelkit.features._coupling import COUPLINGS\n"
        "from kernelkit.features import _helper\n"
        "from kernelkit.models._common import fine\n"
        "from kernelkit._validation import check_int\n"
        "from kernelkit.features import COUPLINGS as OK\n"
    )
    assert private_imports(pkg) == [
        "kernelkit/models/a.py:1: kernelkit.features._coupling import COUPLINGS",
        "kernelkit/models/a.py:2: kernelkit.features import _helper",
    ]
