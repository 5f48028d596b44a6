"""What every command-line module shares: the error of a command used wrongly, and tables.

The ``kernelkit`` command (:mod:`kernelkit.cli`) and each area's subcommands
(``kernelkit/<area>/cli.py``) import these from here, the ground floor, so that no area
reaches up into :mod:`kernelkit.cli`; it re-exports them. Standard library only: an area's
``register`` stays cheap.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["UsageError", "print_table"]


class UsageError(Exception):
    """A command used wrongly: reported in one line with exit status 2.

    For the subcommands of every area: ``from kernelkit._commands import UsageError``, and
    raise it for flags out of range or that do not apply.
    """


def print_table(
    rows: Sequence[Sequence[object]], header: Sequence[str], *, align: str = "left"
) -> None:
    """Print aligned columns under a header and a rule (for the area commands).

    Parameters
    ----------
    rows : sequence of sequences
        The cells, one sequence per row, as many as ``header``; a cell with line breaks
        spans several lines of its row.
    header : sequence of str
        Column titles.
    align : {"left", "right"}, default="left"
        Alignment of every column (``"right"`` for columns of numbers).

    Examples
    --------
    >>> print_table([["0.1", "0.93"], ["1", "0.05"]], ["nu", "epsilon"], align="right")
     nu  epsilon
    ---  -------
    0.1     0.93
      1     0.05
    """
    if align not in ("left", "right"):
        raise ValueError(f"align must be 'left' or 'right', got {align!r}")
    cells = [[str(c).split("\n") for c in header]] + [[str(c).split("\n") for c in r] for r in rows]
    widths = [max(len(line) for r in cells for line in r[i]) for i in range(len(header))]
    for k, row in enumerate(cells):
        for j in range(max(len(c) for c in row)):
            parts = [c[j] if j < len(c) else "" for c in row]
            just = [
                p.ljust(w) if align == "left" else p.rjust(w)
                for p, w in zip(parts, widths, strict=True)
            ]
            print("  ".join(just).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))
