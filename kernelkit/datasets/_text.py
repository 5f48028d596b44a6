"""Vectorised parsing of numeric text files with errors that name the file and line.

The fast path never loops over lines in Python: the bytes are classified with a lookup
table, token starts are found with NumPy and the numbers are converted by
``np.fromstring``. Only when something is wrong is the offending line located and quoted.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple, NoReturn

import numpy as np

__all__ = ["IntTokens", "float_table", "int_table", "int_tokens"]

_SEPARATORS = b" \t,\r\n"
_MAX_DIGITS = 18  # every 18-digit integer fits in int64

_IS_SEP = np.zeros(256, dtype=bool)
_IS_SEP[list(_SEPARATORS)] = True
_IS_DIGIT = np.zeros(256, dtype=bool)
_IS_DIGIT[list(b"0123456789")] = True
_IS_SIGN = np.zeros(256, dtype=bool)
_IS_SIGN[list(b"+-")] = True
_IS_BLANK = np.zeros(256, dtype=bool)
_IS_BLANK[list(b" \t\r")] = True


class IntTokens(NamedTuple):
    """Integer tokens of a text and the line each one came from.

    Attributes
    ----------
    values : ndarray of int64
        All tokens in file order.
    counts : ndarray of int64
        Number of tokens on each line (blank trailing lines are not counted as lines).
    starts : ndarray of int64
        Index in ``values`` of the first token of each line.
    """

    values: np.ndarray
    counts: np.ndarray
    starts: np.ndarray


def _line_text(data: bytes, line: int) -> str:
    """Return line ``line`` (1-based) of ``data`` for an error message."""
    text = data.split(b"\n")[line - 1].decode("ascii", errors="replace").strip()
    return text if len(text) <= 60 else text[:57] + "..."


def _fromstring(data: bytes, dtype: type) -> np.ndarray | None:
    """``np.fromstring`` on whitespace-separated numbers; ``None`` if it stops early."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return np.fromstring(data, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            return None


def int_tokens(data: bytes, source: str) -> IntTokens:
    """Split ``data`` into integer tokens separated by whitespace or commas.

    Parameters
    ----------
    data : bytes
        File contents. ``\\r\\n`` line ends and trailing blank lines are accepted.
    source : str
        File name used in error messages.

    Raises
    ------
    ValueError
        If the text is empty or a token is not an integer; the message names ``source``
        and the 1-based line number.
    """
    data = data.rstrip()
    if not data:
        raise ValueError(f"{source} is empty")
    buf = np.frombuffer(data, dtype=np.uint8)
    is_sep = _IS_SEP[buf]
    newlines = np.flatnonzero(buf == ord("\n"))
    n_lines = len(newlines) + 1

    def fail(position: int, reason: str) -> NoReturn:
        line = int(np.searchsorted(newlines, position)) + 1
        raise ValueError(f"{source}, line {line}: {reason} in {_line_text(data, line)!r}")

    bad = ~(is_sep | _IS_DIGIT[buf] | _IS_SIGN[buf])
    if bad.any():
        fail(int(np.argmax(bad)), "non-integer value")
    boundary = np.concatenate(([True], is_sep, [True]))
    token_start = np.flatnonzero(boundary[:-2] & ~is_sep)
    token_end = np.flatnonzero(~is_sep & boundary[2:])
    signs = np.flatnonzero(_IS_SIGN[buf])
    if len(signs):
        misplaced = ~boundary[signs] | ~_IS_DIGIT[buf[np.minimum(signs + 1, len(buf) - 1)]]
        misplaced |= signs + 1 >= len(buf)
        if misplaced.any():
            fail(int(signs[np.argmax(misplaced)]), "non-integer value")
    too_long = token_end - token_start + 1 > _MAX_DIGITS
    if too_long.any():
        fail(int(token_start[np.argmax(too_long)]), "integer too large")
    stray = _stray_comma(buf)
    if stray is not None:
        fail(stray, "missing value next to a comma")
    if len(token_start):
        values = _fromstring(data.replace(b",", b" "), np.int64)
        if values is None or len(values) != len(token_start):  # pragma: no cover
            raise ValueError(f"{source}: could not parse the integers")
    else:
        values = np.zeros(0, dtype=np.int64)
    counts = np.bincount(np.searchsorted(newlines, token_start), minlength=n_lines)
    starts = np.cumsum(counts) - counts
    return IntTokens(values, counts, starts)


def _stray_comma(buf: np.ndarray) -> int | None:
    """Position of the first comma without a number on both sides on its line, if any."""
    kept = np.flatnonzero(~_IS_BLANK[buf])
    squeezed = buf[kept]  # digits, signs, commas and newlines only
    commas = np.flatnonzero(squeezed == ord(","))
    if not len(commas):
        return None
    before = np.zeros(len(commas), dtype=bool)
    before[commas > 0] = _IS_DIGIT[squeezed[commas[commas > 0] - 1]]
    after = np.zeros(len(commas), dtype=bool)
    inside = commas + 1 < len(squeezed)
    after[inside] = (_IS_DIGIT | _IS_SIGN)[squeezed[commas[inside] + 1]]
    bad = ~(before & after)
    return int(kept[commas[np.argmax(bad)]]) if bad.any() else None


def int_table(data: bytes, source: str, ncols: int) -> np.ndarray:
    """Parse a file with exactly ``ncols`` integers per line into an ``(n, ncols)`` array.

    Raises
    ------
    ValueError
        Naming ``source`` and the first line with the wrong number of values, or with a
        non-integer value.
    """
    tokens = int_tokens(data, source)
    wrong = tokens.counts != ncols
    if wrong.any():
        line = int(np.argmax(wrong)) + 1
        found = int(tokens.counts[line - 1])
        plural = "integer" if ncols == 1 else "integers"
        raise ValueError(
            f"{source}, line {line}: expected {ncols} {plural}, found {found} values "
            f"in {_line_text(data.rstrip(), line)!r}"
        )
    return tokens.values.reshape(-1, ncols)


def float_table(
    text: str, source: str, ncols: int, *, delimiter: str | None = None, first_line: int = 1
) -> np.ndarray:
    """Parse rows of ``ncols`` numbers into a float64 ``(n, ncols)`` array.

    Parameters
    ----------
    text : str
        The rows (a header, if any, already removed).
    source : str
        File name used in error messages.
    ncols : int
        Required number of values on each line.
    delimiter : str, optional
        Column separator; whitespace when ``None``.
    first_line : int
        File line number of the first line of ``text`` (for error messages).
    """
    text = text.rstrip()
    if not text.strip():
        raise ValueError(f"{source} has no data rows")
    lines = text.splitlines()
    for offset, line in enumerate(lines):
        fields = line.split(delimiter)
        if len(fields) != ncols:
            raise ValueError(
                f"{source}, line {first_line + offset}: expected {ncols} values, "
                f"found {len(fields)} in {line.strip()[:60]!r}"
            )
    flat = text if delimiter is None else text.replace(delimiter, " ")
    values = _fromstring(flat.encode("ascii", errors="replace"), np.float64)
    if values is not None and len(values) == len(lines) * ncols:
        return values.reshape(-1, ncols)
    for offset, line in enumerate(lines):  # error path only: find the offending value
        for field in line.split(delimiter):
            try:
                float(field)
            except ValueError:
                raise ValueError(
                    f"{source}, line {first_line + offset}: {field.strip()!r} is not a number"
                ) from None
    raise ValueError(f"{source}: could not parse the numbers")  # pragma: no cover
