"""The UAI model file format (PASCAL / UAI inference competitions).

The format is that of the *UAI 2014 Inference Competition* page "Model Format", with the
comment lines of the *UAI 2016 Inference Evaluation* page "UAI Model Format"; the
evidence and result files of the same competitions are in :mod:`kernelkit.pgm.uai_answers`.

A ``.uai`` file describes a Markov network (``MARKOV``) or a Bayesian network
(``BAYES``) as a list of factors over discrete variables::

    MARKOV
    3              <- number of variables
    2 2 3          <- their cardinalities
    2              <- number of factors
    1 0            <- factor 0: scope size, then the variables
    2 0 2          <- factor 1
                   <- (then, for each factor in order)
    2              <- number of table entries
     0.4 0.6       <- the entries, last scope variable changing fastest
    6
     1 2 3 4 5 6

Tokens are separated by any whitespace, so entries may span lines. A line whose first
non-blank character is ``#`` (pgmpy reads these) or whose first token is ``c`` (the UAI 2016
comments) is a comment. A file may start with a UTF-8 byte order mark and may be
compressed with gzip (recognised by its first two bytes, whatever its name: ``.uai.gz``
files are read as they are). The entries are
potentials ``psi >= 0`` (for ``BAYES``, the conditional probability tables with the child
last in the scope); :func:`read_uai` returns a :class:`~kernelkit.pgm.DiscreteModel` with
log-potentials ``log psi`` (``psi = 0`` becomes ``-inf``, a hard constraint), and
:func:`write_uai` writes ``exp(theta)``. A malformed file raises a :class:`UAIFormatError`
(a ``ValueError``) that names the line and what was expected there.

Examples
--------
>>> import io
>>> text = "MARKOV\\n2\\n2 2\\n1\\n2 0 1\\n4\\n1.0 2.0 3.0 4.0\\n"
>>> m = read_uai(io.StringIO(text))
>>> m.cardinalities.tolist(), m.factors[0].scope
([2, 2], (0, 1))
>>> round(float(m.score([1, 0])), 6)  # log 3
1.098612
>>> out = io.StringIO()
>>> write_uai(m, out)
>>> read_uai(io.StringIO(out.getvalue())).factors[0].table.round(6).tolist()
[[0.0, 0.693147], [1.098612, 1.386294]]
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import zlib
from pathlib import Path
from typing import IO, Any

import numpy as np

from kernelkit.pgm.model import DiscreteModel, _check_model

__all__ = ["UAIFormatError", "read_uai", "write_uai"]

_KINDS = ("MARKOV", "BAYES")


class UAIFormatError(ValueError):
    """A malformed UAI model, evidence or result file: the message names the file, the line
    and what was expected."""


#: The first two bytes of a gzip file (RFC 1952).
_GZIP_MAGIC = b"\x1f\x8b"
#: Line breaks as a text editor counts them (not the rarer ones of ``str.splitlines``).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _decode(data: bytes, name: str) -> str:
    """The text of a file's bytes: gunzipped when they start with the gzip magic bytes,
    decoded as UTF-8 without a leading byte order mark; else a :class:`UAIFormatError`."""
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise UAIFormatError(
                f"{name}: starts like a gzip file (bytes 1f 8b) but cannot be decompressed ({exc})"
            ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UAIFormatError(
            f"{name}, line {line}: expected UTF-8 text or a gzip-compressed file (.gz), but "
            f"byte {data[exc.start]:#04x} at offset {exc.start} is not UTF-8"
        ) from None


def _read_text(source: Any) -> tuple[str, str]:
    """The text of ``source`` (a path, or a text file object read to its end) and the name
    to give it in messages: the one reader of the UAI model, evidence and result files."""
    if isinstance(source, (str, os.PathLike)):
        name = str(source)
        return _decode(Path(source).read_bytes(), name), name
    if callable(getattr(source, "read", None)):
        name = str(getattr(source, "name", "<stream>"))
        text = source.read()
        if not isinstance(text, str):
            raise TypeError(
                f"source must be a text file object (open it in text mode, or pass the "
                f"path to read a gzip file), but read() gave {type(text).__name__}"
            )
        return text.removeprefix("\ufeff"), name
    raise TypeError(
        f"source must be a path (str or os.PathLike) or a text file object, got "
        f"{type(source).__name__}"
    )


def _is_comment(tokens: list[str]) -> bool:
    """Whether a line split into ``tokens`` is a comment: its first token is ``c`` (UAI
    2016) or its first non-blank character is ``#`` (pgmpy)."""
    return bool(tokens) and (tokens[0] == "c" or tokens[0].startswith("#"))


class _Tokens:
    """Whitespace-separated tokens with their line numbers (counted in the file, comment
    lines included); comment lines (see :func:`_is_comment`) are left out."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        lines = _LINE_BREAK.split(text)
        self._items: list[tuple[str, int]] = []
        for n, line in enumerate(lines, start=1):
            toks = line.split()
            if not _is_comment(toks):
                self._items.extend((tok, n) for tok in toks)
        self._pos = 0
        self._last_line = len(lines)
        self._whole = "the file"

    @classmethod
    def of(cls, items: list[tuple[str, int]], source: str, last_line: int, whole: str) -> _Tokens:
        """Tokens already split (``whole``, a part of a file: ``"the solution"``), read
        with the same checks; ``last_line`` is the line where that part ends."""
        tokens = cls("", source)
        tokens._items, tokens._last_line, tokens._whole = list(items), last_line, whole
        return tokens

    @property
    def last_line(self) -> int:
        """The number of the last line (of the file, or of the part of it)."""
        return self._last_line

    def remaining(self) -> list[tuple[str, int]]:
        """The tokens not read yet, with their line numbers (and reads them all)."""
        items = self._items[self._pos :]
        self._pos = len(self._items)
        return items

    def error(self, line: int, message: str) -> UAIFormatError:
        return UAIFormatError(f"{self.source}, line {line}: {message}")

    def next(self, what: str) -> tuple[str, int]:
        if self._pos >= len(self._items):
            raise self.error(self._last_line, f"{self._whole} ends where {what} was expected")
        item = self._items[self._pos]
        self._pos += 1
        return item

    def integer(self, what: str, minimum: int) -> int:
        tok, line = self.next(what)
        try:
            value = int(tok)
        except ValueError:
            raise self.error(line, f"expected {what} (an integer), got {tok!r}") from None
        if value < minimum:
            raise self.error(line, f"expected {what} >= {minimum}, got {value}")
        return value

    def numbers(self, count: int, what: str, kind: str = "potentials") -> tuple[np.ndarray, int]:
        """``count`` non-negative finite numbers (one factor's table, of ``kind``) and the
        first line."""
        if self._pos + count > len(self._items):
            line = self._items[self._pos][1] if self._pos < len(self._items) else self._last_line
            raise self.error(
                line,
                f"{what}: expected {count} entries, {self._whole} has only "
                f"{len(self._items) - self._pos} tokens left",
            )
        chunk = self._items[self._pos : self._pos + count]
        self._pos += count
        values = np.empty(count)
        for j, (tok, line) in enumerate(chunk):
            try:
                values[j] = float(tok)
            except ValueError:
                raise self.error(line, f"{what}: expected a number, got {tok!r}") from None
        bad = ~np.isfinite(values) | (values < 0)
        if bad.any():
            tok, line = chunk[int(np.flatnonzero(bad)[0])]
            raise self.error(line, f"{what}: entries must be finite and >= 0 ({kind}), got {tok}")
        return values, chunk[0][1]

    def rest(self) -> tuple[str, int] | None:
        return self._items[self._pos] if self._pos < len(self._items) else None


def read_uai(source: str | os.PathLike[str] | IO[str]) -> DiscreteModel:
    """Read a ``MARKOV`` or ``BAYES`` model in the UAI format.

    Parameters
    ----------
    source : path or text file object
        The file to read (a path, or an open text file read to its end). A path may name
        a gzip-compressed file (``.uai.gz``; recognised by its content, not its name);
        comment lines and a leading byte order mark are skipped.

    Returns
    -------
    DiscreteModel
        Variables ``0 .. n-1``; one factor per function of the file, with log-potentials
        (zero potentials become ``-inf``).

    Raises
    ------
    UAIFormatError
        A malformed file, with the line number and what was expected: an unknown
        preamble, non-integer or negative counts, a scope naming an unknown or repeated
        variable, a table whose entry count is not the product of its scope's
        cardinalities, a negative or non-numeric entry, missing or extra tokens; a file
        that is neither UTF-8 text nor gzip-compressed, or a corrupt gzip file.
    TypeError
        ``source`` is neither a path nor a text file object (``None``, a number, bytes,
        a file opened in binary mode).
    """
    text, name = _read_text(source)
    tokens = _Tokens(text, name)
    kind, line = tokens.next("the network type (MARKOV or BAYES)")
    if kind.upper() not in _KINDS:
        raise tokens.error(line, f"expected MARKOV or BAYES, got {kind!r}")
    n = tokens.integer("the number of variables", 0)
    cards = [tokens.integer(f"the cardinality of variable {i}", 1) for i in range(n)]
    n_factors = tokens.integer("the number of factors", 0)
    scopes: list[tuple[int, ...]] = []
    for k in range(n_factors):
        size = tokens.integer(f"the scope size of factor {k}", 0)
        scope = []
        for _ in range(size):
            tok, line = tokens.next(f"a variable of factor {k}")
            try:
                v = int(tok)
            except ValueError:
                raise tokens.error(
                    line, f"factor {k}: expected a variable index, got {tok!r}"
                ) from None
            if not 0 <= v < n:
                raise tokens.error(line, f"factor {k}: variable {v} is not in 0..{n - 1}")
            if v in scope:
                raise tokens.error(line, f"factor {k}: variable {v} appears twice in the scope")
            scope.append(v)
        scopes.append(tuple(scope))
    factors = []
    for k, fscope in enumerate(scopes):
        shape = tuple(cards[v] for v in fscope)
        expected = math.prod(shape)  # a Python int: no wrap-around for huge domains
        count = tokens.integer(f"the number of entries of factor {k}", 0)
        if count != expected:
            _, line = tokens._items[tokens._pos - 1]
            raise tokens.error(
                line,
                f"factor {k} has scope {fscope} with cardinalities {shape}, so "
                f"{expected} entries, but the file says {count}",
            )
        values, _ = tokens.numbers(count, f"factor {k}")
        with np.errstate(divide="ignore"):
            factors.append((fscope, np.log(values).reshape(shape)))
    extra = tokens.rest()
    if extra is not None:
        raise tokens.error(extra[1], f"unexpected token {extra[0]!r} after the last factor")
    return DiscreteModel(cards, factors)


def write_uai(model: DiscreteModel, target: str | os.PathLike[str] | IO[str]) -> None:
    """Write ``model`` as a ``MARKOV`` network in the UAI format.

    Variables are written by index (``model.variables`` are not stored); the potentials
    are ``exp(table)`` with 17 significant digits, so a read-back model has the same
    log-potentials to about 1e-15 relative (``-inf`` round-trips through 0; potentials
    below ``2.2e-308``, log-potentials below about ``-708.4``, are subnormal floats with
    fewer significant digits).

    Parameters
    ----------
    model : DiscreteModel
        The model to write.
    target : path or text file object
        Where to write (a path, overwritten, or an open text file).

    Raises
    ------
    TypeError
        ``model`` is not a DiscreteModel; ``target`` is neither a path nor a text file
        object.
    ValueError
        A finite log-potential whose potential ``exp(theta)`` is not a positive float64:
        above about ``709.78`` it overflows, below about ``-745.13`` it would be written as
        0 and read back as ``-inf`` (a hard constraint). Shift that factor's table by a
        constant first (which shifts ``log Z`` by the same constant).
    """
    _check_model(model)
    if not isinstance(target, (str, os.PathLike)):
        if not callable(getattr(target, "write", None)):
            raise TypeError(
                f"target must be a path (str or os.PathLike) or a text file object, got "
                f"{type(target).__name__}"
            )
        if isinstance(target, (io.RawIOBase, io.BufferedIOBase)):
            raise TypeError("target must be a text file object (open it in text mode)")
    potentials = []
    for k, f in enumerate(model.factors):
        finite = np.isfinite(f.table)
        with np.errstate(over="ignore", under="ignore"):
            psi = np.exp(f.table)
        bad = finite & ~((psi > 0) & np.isfinite(psi))
        if bad.any():
            theta = float(f.table[bad][0])
            raise ValueError(
                f"model.factors[{k}] has the log-potential {theta!r}, whose potential "
                f"exp({theta!r}) is {'beyond' if theta > 0 else 'below'} the float64 range: "
                "the UAI format stores potentials; shift the factor's table by a constant "
                "first (log Z shifts by the same constant)"
            )
        potentials.append(psi)
    buf = io.StringIO()
    buf.write("MARKOV\n")
    buf.write(f"{model.n_variables}\n")
    buf.write(" ".join(str(int(c)) for c in model.cardinalities) + "\n")
    buf.write(f"{len(model.factors)}\n")
    for f in model.factors:
        buf.write(" ".join(str(x) for x in (len(f.scope), *f.scope)) + "\n")
    for f, psi in zip(model.factors, potentials, strict=True):
        buf.write(f"\n{f.table.size}\n")
        buf.write(" ".join(f"{v:.17g}" for v in psi.ravel()) + "\n")
    if isinstance(target, (str, os.PathLike)):
        Path(target).write_text(buf.getvalue())
    else:
        target.write(buf.getvalue())
