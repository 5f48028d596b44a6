"""The scikit-optimize examples of docs/coming_from/scikit_optimize.rst run unchanged but
for the import: by kernelkit with ``skopt`` replaced by ``kernelkit.optimize``, and by
scikit-optimize itself where it is installed (so they are its examples, not ours)."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "coming_from" / "scikit_optimize.rst"
_BLOCK = re.compile(
    r"\.\. code-block:: python\n    :caption: scikit-optimize\n\n((?:    .*\n|\n)+)"
)


def _examples() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    blocks = [re.sub(r"(?m)^    ", "", b).strip() + "\n" for b in _BLOCK.findall(text)]
    assert len(blocks) == 4, "the page's scikit-optimize examples moved: update this test"
    return blocks


def _run(code: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run ``code`` as the module ``name`` (so that its functions can be pickled, as a
    checkpoint of scikit-optimize pickles the objective)."""
    module = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, module)
    exec(compile(code, f"<{name}>", "exec"), module.__dict__)


def _to_kernelkit(code: str) -> str:
    """The import changed: ``skopt`` and its submodules become ``kernelkit.optimize``."""
    return re.sub(r"from skopt(\.\w+)? import", "from kernelkit.optimize import", code)


@pytest.mark.parametrize("index", range(4))
def test_example_runs_with_the_import_changed(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    code = _examples()[index]
    assert "skopt" in code
    changed = _to_kernelkit(code)
    assert "skopt" not in changed
    _run(changed, f"skopt_page_kernelkit_{index}", monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("index", range(4))
def test_example_is_scikit_optimize_code(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("skopt")
    pytest.importorskip("matplotlib")
    _run(_examples()[index], f"skopt_page_skopt_{index}", monkeypatch)
