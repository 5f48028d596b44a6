"""The UAI model file format (PASCAL / UAI inference competitions).

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

Tokens are separated by any whitespace, so entries may span lines. The entries are
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

import io
import math
import os
from pathlib import Path
from typing import IO

import numpy as np

from kernelkit.pgm.model import DiscreteModel, _check_model

__all__ = ["UAIFormatError", "read_uai", "write_uai"]

_KINDS = ("MARKOV", "BAYES")


class UAIFormatError(ValueError):
    """A malformed UAI file: the message names the line and what was expected."""


class _Tokens:
    """Whitespace-separated tokens with their line numbers."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self._items: list[tuple[str, int]] = [
            (tok, n) for n, line in enumerate(text.splitlines(), start=1) for tok in line.split()
        ]
        self._pos = 0
        self._last_line = text.count("\n") + 1

    def _error(self, line: int, message: str) -> UAIFormatError:
        return UAIFormatError(f"{self.source}, line {line}: {message}")

    def next(self, what: str) -> tuple[str, int]:
        if self._pos >= len(self._items):
            raise self._error(self._last_line, f"the file ends where {what} was expected")
        item = self._items[self._pos]
        self._pos += 1
        return item

    def integer(self, what: str, minimum: int) -> int:
        tok, line = self.next(what)
        try:
            value = int(tok)
        except ValueError:
            raise self._error(line, f"expected {what} (an integer), got {tok!r}") from None
        if value < minimum:
            raise self._error(line, f"expected {what} >= {minimum}, got {value}")
        return value

    def numbers(self, count: int, what: str) -> tuple[np.ndarray, int]:
        """``count`` non-negative finite numbers (one factor's table) and the first line."""
        if self._pos + count > len(self._items):
            line = self._items[self._pos][1] if self._pos < len(self._items) else self._last_line
            raise self._error(
                line,
                f"{what}: expected {count} entries, the file has only "
                f"{len(self._items) - self._pos} tokens left",
            )
        chunk = self._items[self._pos : self._pos + count]
        self._pos += count
        values = np.empty(count)
        for j, (tok, line) in enumerate(chunk):
            try:
                values[j] = float(tok)
            except ValueError:
                raise self._error(line, f"{what}: expected a number, got {tok!r}") from None
        bad = ~np.isfinite(values) | (values < 0)
        if bad.any():
            tok, line = chunk[int(np.flatnonzero(bad)[0])]
            raise self._error(
                line, f"{what}: entries must be finite and >= 0 (potentials), got {tok}"
            )
        return values, chunk[0][1]

    def rest(self) -> tuple[str, int] | None:
        return self._items[self._pos] if self._pos < len(self._items) else None


def read_uai(source: str | os.PathLike[str] | IO[str]) -> DiscreteModel:
    """Read a ``MARKOV`` or ``BAYES`` model in the UAI format.

    Parameters
    ----------
    source : path or text file object
        The file to read (a path, or an open text file read to its end).

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
        cardinalities, a negative or non-numeric entry, missing or extra tokens.
    TypeError
        ``source`` is neither a path nor a text file object (``None``, a number, bytes,
        a file opened in binary mode).
    """
    if isinstance(source, (str, os.PathLike)):
        name = str(source)
        text = Path(source).read_text()
    elif callable(getattr(source, "read", None)):
        name = getattr(source, "name", "<stream>")
        text = source.read()
        if not isinstance(text, str):
            raise TypeError(
                f"source must be a text file object (open it in text mode), but read() "
                f"gave {type(text).__name__}"
            )
    else:
        raise TypeError(
            f"source must be a path (str or os.PathLike) or a text file object, got "
            f"{type(source).__name__}"
        )
    tokens = _Tokens(text, str(name))
    kind, line = tokens.next("the network type (MARKOV or BAYES)")
    if kind.upper() not in _KINDS:
        raise tokens._error(line, f"expected MARKOV or BAYES, got {kind!r}")
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
                raise tokens._error(
                    line, f"factor {k}: expected a variable index, got {tok!r}"
                ) from None
            if not 0 <= v < n:
                raise tokens._error(line, f"factor {k}: variable {v} is not in 0..{n - 1}")
            if v in scope:
                raise tokens._error(line, f"factor {k}: variable {v} appears twice in the scope")
            scope.append(v)
        scopes.append(tuple(scope))
    factors = []
    for k, fscope in enumerate(scopes):
        shape = tuple(cards[v] for v in fscope)
        expected = math.prod(shape)  # a Python int: no wrap-around for huge domains
        count = tokens.integer(f"the number of entries of factor {k}", 0)
        if count != expected:
            _, line = tokens._items[tokens._pos - 1]
            raise tokens._error(
                line,
                f"factor {k} has scope {fscope} with cardinalities {shape}, so "
                f"{expected} entries, but the file says {count}",
            )
        values, _ = tokens.numbers(count, f"factor {k}")
        with np.errstate(divide="ignore"):
            factors.append((fscope, np.log(values).reshape(shape)))
    extra = tokens.rest()
    if extra is not None:
        raise tokens._error(extra[1], f"unexpected token {extra[0]!r} after the last factor")
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
