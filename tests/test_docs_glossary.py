"""The glossary page: generated from ARCHITECTURE.md's table, every row of it, as valid RST.

``docs/_scripts/glossary.py`` turns the glossary table of ``ARCHITECTURE.md`` (the one
``tests/test_glossary.py`` enforces) into the ``list-table`` that ``docs/glossary.rst``
includes; ``docs/conf.py`` runs it at every build and the output is not committed. These
tests read the Markdown table independently of the script and check that the rendered
table has one row per glossary row, with its concept and every back-quoted name, that
docutils parses it without a message, and that the build and the page are wired to it.
"""

from __future__ import annotations

import importlib.util
import io
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SCRIPT = DOCS / "_scripts" / "glossary.py"


def _needs_docs() -> None:
    if not SCRIPT.exists():  # an installed copy of the tests without the repository
        pytest.skip("docs/ not available")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_glossary", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def _markdown_rows() -> list[list[str]]:
    """The glossary rows of ARCHITECTURE.md, read plainly (no back-quoted ``|`` there)."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = text[text.index("<!-- glossary:start -->") : text.index("<!-- glossary:end -->")]
    rows = []
    for line in block.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "concept" or set(cells[0]) <= {"-"}:
            continue
        rows.append(cells)
    return rows


def _rendered_rows(rst: str) -> list[str]:
    """The rows of the rendered list-table as text: one string per ``* -`` item."""
    body = rst[rst.index(".. list-table::") :]
    return ["* -" + chunk for chunk in re.split(r"^   \* -", body, flags=re.M)[1:]]


def test_table_lists_every_row_of_the_glossary() -> None:
    _needs_docs()
    rows = _markdown_rows()
    assert len(rows) > 20  # the glossary, not an empty block
    glossary = _script()
    rst = glossary.render(glossary.read_rows(glossary.ARCHITECTURE.read_text(encoding="utf-8")))
    rendered = _rendered_rows(rst)
    assert len(rendered) == len(rows) + 1  # the heading row, then one per glossary row
    for cells, text in zip(rows, rendered[1:], strict=True):
        flat = " ".join(text.replace("\\ ", "").replace("\\", "").split())  # escapes off
        concept = re.sub(r"`([^`]*)`", r"``\1``", cells[0])
        assert " ".join(concept.split()) in flat, (cells[0], text)
        for cell in cells:
            for name in re.findall(r"`([^`]+)`", cell):
                assert f"``{name}``" in text, (name, text)


def test_table_is_valid_rst() -> None:
    _needs_docs()
    docutils_core = pytest.importorskip("docutils.core")
    glossary = _script()
    rst = glossary.render(glossary.read_rows(glossary.ARCHITECTURE.read_text(encoding="utf-8")))
    messages = io.StringIO()
    tree = docutils_core.publish_doctree(
        rst, settings_overrides={"warning_stream": messages, "report_level": 1}
    )
    assert messages.getvalue() == ""
    (table,) = list(tree.findall(lambda node: node.tagname == "table"))
    entries = list(table.findall(lambda node: node.tagname == "row"))
    assert len(entries) == len(_markdown_rows()) + 1
    literals = {node.astext() for node in table.findall(lambda n: n.tagname == "literal")}
    assert {"n_iter", "random_state", "--seed", "noise", "n_restarts_optimizer"} <= literals


def test_markdown_cells_become_rst() -> None:
    _needs_docs()
    glossary = _script()
    assert glossary.to_rst("`a`, `b` (CLI `--c`)") == "``a``, ``b`` (CLI ``--c``)"
    assert glossary.to_rst("x`y`z") == "x\\ ``y``\\ z"  # literals inside a word
    assert glossary.to_rst("lambda_ and *this*") == "lambda\\_ and \\*this\\*"
    assert glossary.split_cells("| a | `x|y` | c | |") == ["a", "`x|y`", "c", ""]
    with pytest.raises(ValueError, match="markers"):
        glossary.read_rows("no table here")
    with pytest.raises(ValueError, match="4 cells"):
        glossary.read_rows(
            "<!-- glossary:start -->\n| concept | name | not | except |\n|---|---|---|---|\n"
            "| a | b |\n<!-- glossary:end -->"
        )


def test_write_is_idempotent(tmp_path: Path) -> None:
    _needs_docs()
    glossary = _script()
    out = tmp_path / "table.rst"
    assert glossary.write(out) is True
    assert glossary.write(out) is False  # unchanged: not rewritten (no needless rebuild)
    assert out.read_text(encoding="utf-8").startswith(".. This file is written by")


def test_build_and_page_use_the_generated_table() -> None:
    _needs_docs()
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert 'glossary.write(HERE / "glossary_table.rst")' in conf
    assert '"glossary_table.rst"' in conf.split("glossary.write", 1)[1]  # excluded as a page
    page = (DOCS / "glossary.rst").read_text(encoding="utf-8")
    assert ".. include:: glossary_table.rst" in page
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "docs/glossary_table.rst" in ignored  # generated, never committed stale
