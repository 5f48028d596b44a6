"""Lazy package exports (PEP 562): names are imported from their module on first use.

Used by packages whose modules pull in SciPy, scikit-learn or networkx, so that the
``kernelkit`` command can import their ``cli`` modules without loading all of that for
every command.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, list[str]]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for ``package``.

    ``exports`` maps a submodule name to the names it provides (the key ``"."`` lists
    submodules exported as themselves); the first look-up of a name imports the
    submodule and stores the name in the package, so that later look-ups do not come
    back here.
    """
    module_of = {name: module for module, names in exports.items() for name in names}
    names = [name for names in exports.values() for name in names]

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if module == ".":
            value = importlib.import_module(f"{package}.{name}")
        else:
            value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted([*vars(sys.modules[package]), *names])

    return names, __getattr__, __dir__
