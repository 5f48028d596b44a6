"""The glossary page's table, written from the glossary of ``ARCHITECTURE.md``.

``ARCHITECTURE.md`` holds the one list of names (between ``<!-- glossary:start -->`` and
``<!-- glossary:end -->``: a Markdown table with the columns concept | name | not |
except) that ``tests/test_glossary.py`` enforces on the API. This script turns that table
into an RST ``list-table`` in ``docs/glossary_table.rst``, which ``docs/glossary.rst``
includes, so the page can never disagree with the rule the tests apply. Back-quoted
names become ``literals``; the rest of each cell is text.

``conf.py`` runs :func:`write` at every build (the generated file is not committed: it is
in ``.gitignore``, and excluded from the pages Sphinx builds on its own); ``python
docs/_scripts/glossary.py`` writes it by hand. ``tests/test_docs_glossary.py`` checks that
every row of the glossary reaches the table.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "ARCHITECTURE.md"
TABLE = ROOT / "docs" / "glossary_table.rst"
START, END = "<!-- glossary:start -->", "<!-- glossary:end -->"
COLUMNS = ("concept", "name", "not", "except")
HEADINGS = ("Concept", "Name", "Not", "Except")

#: Characters that may stand right before an inline literal (else an escaped space goes there).
_BEFORE = set(" \t\n-:/'\"<([{")
#: Characters that may stand right after one.
_AFTER = set(" \t\n-.,:;!?\\/'\")]}>")
#: Text outside literals that RST would read as markup: emphasis, substitutions, targets.
_MARKUP = re.compile(r"([\\*|`])|(?<=\w)_(?=\W|$)")


@dataclass(frozen=True)
class Row:
    """One row of the glossary table, each cell as written in the Markdown."""

    concept: str
    name: str
    not_: str
    except_: str

    @property
    def cells(self) -> tuple[str, str, str, str]:
        return (self.concept, self.name, self.not_, self.except_)


def split_cells(line: str) -> list[str]:
    """The cells of one Markdown table row; a ``|`` inside back-quotes is not a separator."""
    body = line.strip()
    body = body.removeprefix("|").removesuffix("|")
    cells, current, in_code = [], [], False
    for char in body:
        if char == "`":
            in_code = not in_code
        if char == "|" and not in_code:
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    cells.append("".join(current).strip())
    return cells


def read_rows(text: str) -> list[Row]:
    """The rows of the glossary table in ``text`` (the header and the rule left out).

    Raises ``ValueError`` when the markers are missing, the header is not
    concept | name | not | except, or a row has another number of cells.
    """
    if START not in text or END not in text:
        raise ValueError(f"the glossary markers {START} ... {END} are missing")
    block = text[text.index(START) + len(START) : text.index(END)]
    lines = [line for line in block.splitlines() if line.strip()]
    if not lines or tuple(c.lower() for c in split_cells(lines[0])) != COLUMNS:
        raise ValueError(f"the glossary table must start with the header {' | '.join(COLUMNS)}")
    rows = []
    for line in lines[1:]:
        cells = split_cells(line)
        if all(set(c) <= set("-: ") for c in cells):  # the |---|---| rule
            continue
        if len(cells) != len(COLUMNS):
            raise ValueError(f"a glossary row must have {len(COLUMNS)} cells: {line!r}")
        rows.append(Row(*cells))
    return rows


def _escape(text: str) -> str:
    return _MARKUP.sub(lambda m: "\\" + m.group(0), text)


def to_rst(cell: str) -> str:
    """One Markdown cell as RST inline text: a back-quoted name becomes a literal."""
    parts = cell.split("`")
    if len(parts) % 2 == 0:  # an unmatched back-quote: all text
        return _escape(cell)
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(_escape(part))
            continue
        before = "".join(out)
        if before and before[-1] not in _BEFORE:
            out.append("\\ ")
        out.append(f"``{part}``")
        after = parts[i + 1] if i + 1 < len(parts) else ""
        if after and after[0] not in _AFTER:
            out.append("\\ ")
    return "".join(out)


HEADER = """\
.. This file is written by docs/_scripts/glossary.py from the glossary table of
   ARCHITECTURE.md (conf.py runs it at every build): edit ARCHITECTURE.md, not this file.

"""


def render(rows: list[Row]) -> str:
    """The RST ``list-table`` of ``rows``."""
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 24 30 24 22",
        "",
    ]
    for cells in [HEADINGS, *(row.cells for row in rows)]:
        for j, cell in enumerate(cells):
            bullet = "   * -" if j == 0 else "     -"
            text = to_rst(cell)
            lines.append(f"{bullet} {text}" if text else bullet)
    return HEADER + "\n".join(lines) + "\n"


def write(path: Path = TABLE, source: Path = ARCHITECTURE) -> bool:
    """Write the table of ``source`` to ``path`` if it changed; whether it was written."""
    text = render(read_rows(source.read_text(encoding="utf-8")))
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def main(argv: list[str]) -> int:
    if argv:
        print(f"usage: python {__file__}", file=sys.stderr)
        return 2
    print(f"{TABLE}: {'written' if write() else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
