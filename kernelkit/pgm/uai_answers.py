"""UAI evidence and result files, and models conditioned on evidence.

The formats are those of the *UAI 2014 Inference Competition* pages "Evidence Format" and
"Result file Format" (the model files, read by :func:`~kernelkit.pgm.uai.read_uai`, follow
the page "Model Format" of the same competition). Every reader shares the tokeniser of
:func:`~kernelkit.pgm.uai.read_uai`: paths to gzip-compressed files, a UTF-8 byte order
mark and comment lines (first token ``c``, or starting with ``#``) are accepted, and a
malformed file raises a :class:`~kernelkit.pgm.uai.UAIFormatError` naming the file, the
line and what was expected there.

* :func:`read_evidence` reads an evidence file (``.evid``): ``k v1 x1 ... vk xk``, the
  observed variables by index with their values. The format of the 2008–2012 competitions,
  a count of evidence samples first (``S k v1 x1 ...``), is read when it holds one sample.
* :func:`apply_evidence` conditions a model on evidence, clamping each observed variable
  (:func:`~kernelkit.pgm.transforms.clamp`): the log partition function of the result is
  ``log sum_{x consistent with e} exp(score(x))``, the UAI task ``PR`` with evidence
  (``log P(e)`` for a Bayesian network). Its :class:`ConditionedModel` maps assignments and
  marginals of the free variables back to all of the model's variables.
* :func:`read_query` reads the query file of the marginal MAP task (``.query``): the
  number of query variables, then their indices.
* :class:`UAIAnswer`, :func:`write_answer` and :func:`read_answer`: the solution of one
  task, ``PR`` (``log10`` of the partition function), ``MAR`` (single-variable marginals),
  ``MAP`` (an assignment of every variable; ``MPE`` in the files of other years) or
  ``MMAP`` (values of the query variables). Anytime solvers append solutions, each after a
  line ``-BEGIN-``; a reader takes the last one.

Examples
--------
>>> import io
>>> from kernelkit.pgm import DiscreteModel
>>> from kernelkit.pgm.exact import exact_log_partition
>>> m = DiscreteModel([2, 3], [((0, 1), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])])
>>> evidence = read_evidence(io.StringIO("1 1 2\\n"), m)
>>> evidence
{1: 2}
>>> c = apply_evidence(m, evidence)  # the model of variable 0 alone, with x_1 = 2
>>> c.free.tolist(), c.model.n_variables
([0], 1)
>>> bool(np.isclose(exact_log_partition(c.model), np.logaddexp(3.0, 6.0)))
True
>>> out = io.StringIO()
>>> write_answer(out, UAIAnswer("MAP", assignment=c.to_original_assignment([1])))
>>> print(out.getvalue(), end="")
MAP
2 1 2
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from kernelkit.pgm.model import DiscreteModel, _check_model
from kernelkit.pgm.transforms import clamp
from kernelkit.pgm.uai import (
    _GZIP_MAGIC,
    UAIFormatError,
    _is_comment,
    _read_text,
    _Tokens,
)

__all__ = [
    "TASKS",
    "ConditionedModel",
    "UAIAnswer",
    "apply_evidence",
    "read_answer",
    "read_evidence",
    "read_query",
    "write_answer",
]

#: The tasks of a UAI result file (``MPE`` is read, and accepted, as ``MAP``).
TASKS = ("PR", "MAR", "MAP", "MMAP")
#: The field of :class:`UAIAnswer` that holds each task's solution.
_FIELDS = {"PR": "log10_partition", "MAR": "marginals", "MAP": "assignment", "MMAP": "query"}
_ALIASES = {"MPE": "MAP"}
#: The line that starts each further solution of a result file.
_BEGIN = "-BEGIN-"
#: Marginals written must each sum to 1 within this.
_SUM_TOL = 1e-6
_INTEGER = re.compile(r"[+-]?[0-9]+")


# -- evidence --------------------------------------------------------------------------------


def _integers(tokens: _Tokens, items: list[tuple[str, int]]) -> list[int]:
    """The tokens of an evidence file as integers, else an error naming the line."""
    values = []
    for tok, line in items:
        if not _INTEGER.fullmatch(tok):
            raise tokens.error(
                line,
                f"expected an integer (evidence files hold counts, variable indices and "
                f"values), got {tok!r}",
            )
        values.append(int(tok))
    return values


def _old_format_samples(values: list[int]) -> int | None:
    """The number of samples if ``values`` is an evidence file of the 2008–2012 format
    (``S``, then per sample ``k`` and ``k`` pairs), else None."""
    n_samples, pos = values[0], 1
    if n_samples < 1:
        return None
    for _ in range(n_samples):
        if pos >= len(values) or values[pos] < 0:
            return None
        pos += 1 + 2 * values[pos]
    return n_samples if pos == len(values) else None


def read_evidence(source: str | os.PathLike[str] | IO[str], model: DiscreteModel) -> dict[int, int]:
    """Read a UAI evidence file (``.evid``) and check it against ``model``.

    Parameters
    ----------
    source : path or text file object
        The file: ``k v1 x1 ... vk xk`` (UAI 2014: the number of observed variables, then
        each one's index and value), or ``1 k v1 x1 ... vk xk`` (the 2008–2012 format with
        one evidence sample). A path may name a gzip-compressed file; comment lines and a
        byte order mark are skipped. An empty file is no evidence.
    model : DiscreteModel
        The model the evidence is for (from :func:`~kernelkit.pgm.uai.read_uai`):
        variables are its indices ``0 .. n-1``.

    Returns
    -------
    dict of int to int
        ``{variable index: observed value}``, in the order of the file; empty for ``k = 0``.

    Raises
    ------
    UAIFormatError
        Naming the file and, where there is one, the line: a token that is not an integer;
        a token count that fits neither format (the first token ``k`` asks for
        ``1 + 2k`` tokens); a file of the 2008–2012 format with more than one evidence
        sample (kernelkit conditions on one at a time); a variable not in ``0 .. n-1``; a
        value outside the variable's domain; a variable given twice with different values.
        The file is the wrong kind (not UTF-8 text, a corrupt gzip file).
    TypeError
        ``model`` is not a DiscreteModel; ``source`` is neither a path nor a text file.

    Examples
    --------
    >>> import io
    >>> from kernelkit.pgm import DiscreteModel
    >>> m = DiscreteModel([2, 2, 3], [])
    >>> read_evidence(io.StringIO("2 1 0 2 1"), m)  # UAI 2014
    {1: 0, 2: 1}
    >>> read_evidence(io.StringIO("1\\n2 1 0 2 1"), m)  # 2008-2012, one sample
    {1: 0, 2: 1}
    """
    model = _check_model(model)
    text, name = _read_text(source)
    tokens = _Tokens(text, name)
    items = tokens.remaining()
    if not items:
        return {}
    values = _integers(tokens, items)
    first, count = values[0], len(values)
    if first >= 0 and count == 1 + 2 * first:  # UAI 2014: k, then k pairs
        start = 1
    else:
        n_samples = _old_format_samples(values)
        if n_samples is None:
            wanted = f"so {1 + 2 * first} tokens" if first >= 0 else "but k must be >= 0"
            raise tokens.error(
                items[0][1],
                f"the evidence has {count} tokens and fits neither the UAI 2014 format "
                f"(k, then k variable-value pairs: the first token says k = {first}, "
                f"{wanted}) nor the 2008-2012 format (a sample count, then per sample k "
                f"and k pairs): the evidence file does not match its model, or is cut short",
            )
        if n_samples > 1:
            raise UAIFormatError(
                f"{name}: the file holds {n_samples} evidence samples (the 2008-2012 "
                "format); kernelkit conditions on one evidence set at a time: write each "
                "sample to its own file as 'k v1 x1 ... vk xk'"
            )
        start = 2
    n = model.n_variables
    evidence: dict[int, int] = {}
    for j in range(start, count, 2):
        v, x = values[j], values[j + 1]
        v_line, x_line = items[j][1], items[j + 1][1]
        if not 0 <= v < n:
            domain = f"in 0..{n - 1}" if n else "a variable of the model (it has none)"
            raise tokens.error(
                v_line,
                f"variable {v} is not {domain}: the evidence file does not match its "
                f"model ({n} variables)",
            )
        card = int(model.cardinalities[v])
        if not 0 <= x < card:
            raise tokens.error(
                x_line,
                f"value {x} of variable {v} is outside its domain 0..{card - 1} "
                f"(cardinality {card}): the evidence file does not match its model",
            )
        if evidence.get(v, x) != x:
            raise tokens.error(
                v_line, f"variable {v} is observed twice, with values {evidence[v]} and {x}"
            )
        evidence[v] = x
    return evidence


def read_query(source: str | os.PathLike[str] | IO[str], model: DiscreteModel) -> list[int]:
    """Read a UAI query file (``.query``): the variables of the marginal MAP task.

    The file holds the number ``q`` of query variables, then their ``q`` indices.

    Parameters
    ----------
    source : path or text file object
        The file (gzip, comment lines and a byte order mark accepted, as for evidence).
    model : DiscreteModel
        The model whose variables ``0 .. n-1`` the file names.

    Returns
    -------
    list of int
        The query variables, in the order of the file.

    Raises
    ------
    UAIFormatError
        Naming the file and the line: a token that is not an integer, a count that does not
        match the number of indices, a variable not in ``0 .. n-1`` or named twice, an
        empty file.
    TypeError
        ``model`` is not a DiscreteModel; ``source`` is neither a path nor a text file.

    Examples
    --------
    >>> import io
    >>> from kernelkit.pgm import DiscreteModel
    >>> read_query(io.StringIO("2 0 2"), DiscreteModel([2, 2, 3], []))
    [0, 2]
    """
    model = _check_model(model)
    text, name = _read_text(source)
    tokens = _Tokens(text, name)
    items = tokens.remaining()
    if not items:
        raise UAIFormatError(f"{name}: the query file is empty (expected q, then q variables)")
    values = _integers(tokens, items)
    if values[0] < 0 or len(values) != 1 + values[0]:
        raise tokens.error(
            items[0][1],
            f"the query file says q = {values[0]} variables but holds {len(values) - 1} "
            "indices: the query file does not match its model, or is cut short",
        )
    n = model.n_variables
    query = values[1:]
    for j, v in enumerate(query, start=1):
        if not 0 <= v < n:
            raise tokens.error(
                items[j][1],
                f"variable {v} is not in 0..{n - 1}: the query file does not match "
                f"its model ({n} variables)",
            )
        if query.index(v) != j - 1:
            raise tokens.error(items[j][1], f"variable {v} is named twice in the query")
    return query


@dataclass(frozen=True, eq=False)
class ConditionedModel:
    """A model conditioned on evidence (see :func:`apply_evidence`), and the maps back.

    Attributes
    ----------
    model : DiscreteModel
        The free variables of ``original``, in order, with their names (for a model
        read from a UAI file, their indices in it). Its score is that of ``original`` with
        the observed variables at their values, so its log partition function is ``log
        sum_{x consistent with the evidence} exp(score(x))`` (``-inf`` when the evidence
        forbids every assignment).
    original : DiscreteModel
        The model before conditioning.
    observed : dict of int to int
        ``{index in original: value}`` of the observed variables, by index.
    free : ndarray of int
        The indices in ``original`` of the variables of ``model``, in order: variable
        ``j`` of ``model`` is variable ``free[j]`` of ``original``.
    """

    model: DiscreteModel
    original: DiscreteModel
    observed: dict[int, int]
    free: np.ndarray

    def _values(self) -> tuple[np.ndarray, np.ndarray]:
        idx = np.fromiter(self.observed.keys(), dtype=np.int64, count=len(self.observed))
        vals = np.fromiter(self.observed.values(), dtype=np.int64, count=len(self.observed))
        return idx, vals

    def to_original_assignment(self, x: Any) -> np.ndarray:
        """Assignments of ``original``: ``x`` on the free variables, the evidence on the
        observed ones (maps a MAP assignment of ``model`` to the UAI ``MAP`` answer).

        Parameters
        ----------
        x : array-like of int, shape (model.n_variables,) or (m, model.n_variables)
            One or ``m`` assignments of ``model``.

        Returns
        -------
        ndarray of int, shape (n,) or (m, n)
            The same assignments of ``original`` (``n = original.n_variables``).

        Raises
        ------
        TypeError
            ``x`` does not hold integers.
        ValueError
            ``x`` has the wrong shape or a value outside a variable's domain.
        """
        X, single = _assignments(x, self.model, "x")
        out = np.empty((X.shape[0], self.original.n_variables), dtype=np.int64)
        out[:, self.free] = X
        idx, vals = self._values()
        out[:, idx] = vals
        return out[0] if single else out

    def from_original_assignment(self, x: Any) -> np.ndarray:
        """The free variables' values in assignments of ``original`` that agree with the
        evidence: ``model.score(from_original_assignment(x)) == original.score(x)``.

        Parameters
        ----------
        x : array-like of int, shape (n,) or (m, n)
            One or ``m`` assignments of ``original`` (``n = original.n_variables``).

        Returns
        -------
        ndarray of int, shape (model.n_variables,) or (m, model.n_variables)
            The same assignments of ``model``.

        Raises
        ------
        TypeError
            ``x`` does not hold integers.
        ValueError
            ``x`` has the wrong shape, a value outside a variable's domain, or disagrees
            with the evidence.
        """
        X, single = _assignments(x, self.original, "x")
        idx, vals = self._values()
        bad = np.argwhere(X[:, idx] != vals)
        if bad.size:
            row, k = (int(b) for b in bad[0])
            where = f"x[{row}, {idx[k]}]" if not single else f"x[{idx[k]}]"
            raise ValueError(
                f"{where} = {X[row, idx[k]]} disagrees with the evidence "
                f"(variable {idx[k]} is observed at {vals[k]})"
            )
        out = X[:, self.free]
        return out[0] if single else out

    def to_original_marginals(self, marginals: Sequence[Any]) -> list[np.ndarray]:
        """Marginals of every variable of ``original`` from those of ``model``: an observed
        variable's marginal puts probability 1 on its value (the UAI ``MAR`` answer).

        Parameters
        ----------
        marginals : sequence of array-like
            One marginal per variable of ``model`` (``exact_marginals(model).marginals``,
            or the beliefs of an approximate method), each of its cardinality's length.

        Returns
        -------
        list of ndarray
            One float64 array per variable of ``original``.

        Raises
        ------
        TypeError
            ``marginals`` is not a sequence.
        ValueError
            Not one marginal per variable of ``model``, or a marginal of the wrong length.
        """
        if isinstance(marginals, (str, bytes)) or not isinstance(marginals, Sequence):
            raise TypeError(
                f"marginals must be a sequence of arrays, got {type(marginals).__name__}"
            )
        if len(marginals) != self.model.n_variables:
            raise ValueError(
                f"marginals must hold one array per free variable ({self.model.n_variables}),"
                f" got {len(marginals)}"
            )
        out: list[np.ndarray] = [np.empty(0)] * self.original.n_variables
        for j, (i, p) in enumerate(zip(self.free.tolist(), marginals, strict=True)):
            arr = np.asarray(p, dtype=np.float64)
            card = int(self.original.cardinalities[i])
            if arr.shape != (card,):
                raise ValueError(
                    f"marginals[{j}] (variable {i}) must have shape ({card},), got {arr.shape}"
                )
            out[i] = arr.copy()
        for i, value in self.observed.items():
            out[i] = np.zeros(int(self.original.cardinalities[i]))
            out[i][value] = 1.0
        return out


def _assignments(x: Any, model: DiscreteModel, name: str) -> tuple[np.ndarray, bool]:
    """``x`` as an (m, n) int64 array of values inside ``model``'s domains, and whether it
    was one assignment."""
    X = np.asarray(x)
    if X.dtype == bool or not np.issubdtype(X.dtype, np.integer):
        if not (np.issubdtype(X.dtype, np.floating) and np.all(X == np.round(X))):
            raise TypeError(f"{name} must be an array of integers, got dtype {X.dtype}")
    single = X.ndim == 1
    X = np.atleast_2d(X)
    n = model.n_variables
    if X.ndim != 2 or X.shape[1] != n:
        raise ValueError(f"{name} must have shape ({n},) or (m, {n}), got {np.shape(x)}")
    X = X.astype(np.int64)
    bad = np.argwhere((X < 0) | (X >= model.cardinalities))
    if bad.size:
        row, i = (int(b) for b in bad[0])
        raise ValueError(
            f"{name}[{i if single else f'{row}, {i}'}] = {X[row, i]} is outside the domain "
            f"0..{model.cardinalities[i] - 1} of its variable"
        )
    return X, single


def _check_evidence(model: DiscreteModel, evidence: Any) -> dict[int, int]:
    """``evidence`` as ``{index: value}`` checked against ``model``, else an error naming
    ``evidence``."""
    if not isinstance(evidence, Mapping):
        raise TypeError(
            "evidence must be a mapping {variable index: value} (as read_evidence returns), "
            f"got {type(evidence).__name__}"
        )
    n = model.n_variables
    out: dict[int, int] = {}
    for v, x in evidence.items():
        for what, item in (("variable index", v), ("value", x)):
            if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
                raise TypeError(
                    f"evidence must map variable indices to values, both integers; got the "
                    f"{what} {item!r}"
                )
        if not 0 <= v < n:
            raise ValueError(f"evidence: variable {v} is not an index of model (0..{n - 1})")
        card = int(model.cardinalities[v])
        if not 0 <= x < card:
            raise ValueError(
                f"evidence: value {x} of variable {v} is outside its domain 0..{card - 1}"
            )
        out[int(v)] = int(x)
    return out


def apply_evidence(model: DiscreteModel, evidence: Mapping[int, int]) -> ConditionedModel:
    """The model conditioned on evidence: every observed variable clamped at its value.

    Parameters
    ----------
    model : DiscreteModel
        The model (for a UAI file, from :func:`~kernelkit.pgm.uai.read_uai`).
    evidence : mapping of int to int
        ``{variable index: value}`` (from :func:`read_evidence`); indices are positions
        ``0 .. n-1`` in ``model``, whatever its variables' names.

    Returns
    -------
    ConditionedModel
        ``model``: the free variables, whose score is that of ``model`` with the evidence
        filled in (the model of :func:`~kernelkit.pgm.transforms.clamp` applied to each
        observed variable, built in one pass over the factors), so its
        log partition function is the UAI ``PR`` with evidence, ``log sum_{x consistent
        with e} exp(score(x))`` (``log P(e)`` for a Bayesian network); ``-inf``, with no
        error, when the evidence forbids every assignment. ``free`` and ``observed`` place
        its variables in ``model``; its methods map assignments and marginals back.

    Raises
    ------
    TypeError
        ``model`` is not a DiscreteModel; ``evidence`` is not a mapping of integers.
    ValueError
        A variable index not in ``0 .. n-1``, or a value outside its variable's domain.

    See Also
    --------
    kernelkit.pgm.transforms.clamp : One variable at a time.

    Examples
    --------
    >>> from kernelkit.pgm import DiscreteModel
    >>> from kernelkit.pgm.exact import exact_marginals
    >>> m = DiscreteModel([2, 2, 2], [((0, 1), [[0, 1], [1, 0]]), ((1, 2), [[2, 0], [0, 2]])])
    >>> c = apply_evidence(m, {1: 0})
    >>> c.free.tolist(), c.model.variables
    ([0, 2], [0, 2])
    >>> [p.round(3).tolist() for p in c.to_original_marginals(exact_marginals(c.model).marginals)]
    [[0.269, 0.731], [1.0, 0.0], [0.881, 0.119]]
    """
    model = _check_model(model)
    observed = _check_evidence(model, evidence)
    free = np.array([i for i in range(model.n_variables) if i not in observed], dtype=np.int64)
    free.flags.writeable = False
    conditioned = _clamp_all(model, observed, free) if observed else model
    return ConditionedModel(conditioned, model, observed, free)


class _Evidence:
    """The name of the one variable that stands for all the observed ones in
    :func:`_clamp_all` (distinct from every name of the model)."""

    def __repr__(self) -> str:
        return "<evidence>"


def _clamp_all(model: DiscreteModel, observed: dict[int, int], free: np.ndarray) -> DiscreteModel:
    """``model`` with every observed variable clamped, in one pass over the factors rather
    than one per variable (which costs ``O(k n_factors)`` for ``k`` observations).

    Each table is indexed at the observed values (what :func:`clamp` does one variable at
    a time); the factors left with no free variable keep one axis, of length 1, for a
    variable ``e`` standing for the evidence, and ``clamp(., e, 0)`` then removes ``e``,
    folding those constants as it does (into another factor; ``-inf`` when the evidence is
    impossible). The result is the model of clamping the variables one by one.
    """
    value = np.full(model.n_variables, -1, dtype=np.int64)
    for i, x in observed.items():
        value[i] = x
    evidence = _Evidence()
    names = [model.variables[i] for i in free.tolist()] + [evidence]
    factors = []
    for f in model.factors:
        if not any(value[v] >= 0 for v in f.scope):
            factors.append((tuple(model.variables[v] for v in f.scope), f.table))
            continue
        index = tuple(int(value[v]) if value[v] >= 0 else slice(None) for v in f.scope)
        scope = tuple(model.variables[v] for v in f.scope if value[v] < 0)
        table = f.table[index]
        factors.append((scope, table) if scope else ((evidence,), table.reshape(1)))
    cards = [int(model.cardinalities[i]) for i in free.tolist()] + [1]
    return clamp(DiscreteModel(cards, factors, variables=names), evidence, 0)


# -- result files ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class UAIAnswer:
    """The solution of one UAI inference task (a result file's content).

    Only the field of ``task`` is set; the others are None. Built by hand (checked here;
    :func:`write_answer` also checks that marginals sum to 1) or by :func:`read_answer`.

    Attributes
    ----------
    task : str
        ``"PR"``, ``"MAR"``, ``"MAP"`` or ``"MMAP"`` (``"MPE"`` is taken as ``"MAP"``).
    log10_partition : float or None
        PR: ``log10 Z`` (``log Z / log(10)``; with evidence, ``log10 P(e)`` for a
        Bayesian network); ``-inf`` when every assignment is forbidden.
    marginals : list of ndarray or None
        MAR: one array of probabilities per variable of the model, in order.
    assignment : ndarray of int or None
        MAP: one value per variable of the model, in order.
    query : dict of int to int or None
        MMAP: ``{query variable index: value}``.

    Raises
    ------
    ValueError
        An unknown task; the task's field missing or another one set; a NaN or ``+inf``
        ``log10_partition``; a marginal that is not a non-empty 1-d array of finite
        non-negative numbers; a negative value in ``assignment`` or ``query``.
    TypeError
        A value of the wrong type (``assignment`` or ``query`` not integers).

    Examples
    --------
    >>> a = UAIAnswer("MAR", marginals=[[0.25, 0.75], [1.0, 0.0, 0.0]])
    >>> a.task, a.marginals[0].tolist(), a.assignment is None
    ('MAR', [0.25, 0.75], True)
    """

    task: str
    log10_partition: float | None = None
    marginals: list[np.ndarray] | None = None
    assignment: np.ndarray | None = None
    query: dict[int, int] | None = None

    def __post_init__(self) -> None:
        task = self.task.upper() if isinstance(self.task, str) else self.task
        task = _ALIASES.get(task, task)
        if task not in TASKS:
            raise ValueError(
                f"task must be one of {', '.join(map(repr, TASKS))} (or 'MPE' for 'MAP'), "
                f"got {self.task!r}"
            )
        object.__setattr__(self, "task", task)
        wanted = _FIELDS[task]
        for name in _FIELDS.values():
            given = getattr(self, name) is not None
            if name == wanted and not given:
                raise ValueError(f"a {task} answer needs {name}")
            if name != wanted and given:
                raise ValueError(f"a {task} answer holds {wanted} only, but {name} is given")
        value = getattr(self, wanted)
        check = {
            "PR": _check_log10_partition,
            "MAR": _check_marginals,
            "MAP": _check_assignment,
            "MMAP": _check_query,
        }[task]
        object.__setattr__(self, wanted, check(value))


def _check_log10_partition(value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"log10_partition must be a number, got {type(value).__name__}")
    value = float(value)
    if math.isnan(value) or value == math.inf:
        raise ValueError(f"log10_partition must be finite or -inf, got {value!r}")
    return value


def _check_marginals(value: Any) -> list[np.ndarray]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"marginals must be a sequence of arrays, got {type(value).__name__}")
    out = []
    for j, p in enumerate(value):
        try:
            arr = np.array(p, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"marginals[{j}] must be an array of numbers") from None
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"marginals[{j}] must be a non-empty 1-d array, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(
                f"marginals[{j}] must hold finite probabilities >= 0, got {arr.tolist()}"
            )
        arr.flags.writeable = False
        out.append(arr)
    return out


def _check_assignment(value: Any) -> np.ndarray:
    arr = np.array(value)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if not (
            np.issubdtype(arr.dtype, np.floating)
            and np.all(np.isfinite(arr))
            and np.all(arr == np.round(arr))
        ):
            raise TypeError(f"assignment must be an array of integers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(
            f"assignment must be a 1-d array (one value per variable), got {arr.shape}"
        )
    arr = arr.astype(np.int64)
    if np.any(arr < 0):
        j = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"assignment[{j}] = {arr[j]} is negative (values are 0 .. k-1)")
    arr.flags.writeable = False
    return arr


def _check_query(value: Any) -> dict[int, int]:
    if not isinstance(value, Mapping):
        raise TypeError(
            f"query must be a mapping {{variable index: value}}, got {type(value).__name__}"
        )
    out = {}
    for v, x in value.items():
        for what, item in (("variable index", v), ("value", x)):
            if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
                raise TypeError(f"query must map integers to integers; got the {what} {item!r}")
            if item < 0:
                raise ValueError(f"query: the {what} {item} is negative")
        out[int(v)] = int(x)
    return out


def _solution(answer: UAIAnswer) -> str:
    """The solution line of ``answer`` (numbers with enough digits to round-trip)."""
    if answer.task == "PR":
        assert answer.log10_partition is not None
        return repr(answer.log10_partition)  # '-inf' for -inf
    if answer.task == "MAR":
        assert answer.marginals is not None
        parts = [str(len(answer.marginals))]
        for p in answer.marginals:
            parts += [str(p.size), *(repr(float(v)) for v in p)]
        return " ".join(parts)
    if answer.task == "MAP":
        assert answer.assignment is not None
        return " ".join([str(answer.assignment.size), *map(str, answer.assignment.tolist())])
    assert answer.query is not None
    parts = [str(len(answer.query))]
    for v, x in answer.query.items():
        parts += [str(v), str(x)]
    return " ".join(parts)


def _file_task(path: Path) -> str | None:
    """The task named on the first line of the result file at ``path``; None when the file
    is missing or holds no token. Reads only up to the first token."""
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        return None
    with fh:
        if fh.read(2) == _GZIP_MAGIC:
            raise ValueError(
                f"{path}: cannot append to a gzip-compressed result file; decompress it first"
            )
        fh.seek(0)
        for number, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError:
                raise UAIFormatError(
                    f"{path}, line {number}: expected UTF-8 text (a UAI result file)"
                ) from None
            toks = line.split()
            if toks and not _is_comment(toks):
                task = toks[0].upper()
                return _ALIASES.get(task, task)
    return None


def write_answer(
    target: str | os.PathLike[str] | IO[str], answer: UAIAnswer, *, append: bool = False
) -> None:
    """Write ``answer`` in the UAI result format (a first line with the task, then the
    solution on one line).

    Parameters
    ----------
    target : path or text file object
        Where to write: a path (overwritten, or appended to) or an open text file.
    answer : UAIAnswer
        The solution. Numbers are written with enough digits to read back the same
        float64 (``-inf`` as ``-inf``).
    append : bool, default False
        Add ``answer`` as a further solution: a line ``-BEGIN-``, then the solution (what
        anytime solvers do; readers take the last solution). A path that is missing or
        empty gets a new file; an existing file must hold the same task. On a file
        object, ``-BEGIN-`` and the solution are written where it stands.

    Raises
    ------
    TypeError
        ``answer`` is not a UAIAnswer; ``target`` is neither a path nor a text file object.
    ValueError
        ``answer.marginals[j]`` does not sum to 1 within 1e-6; with ``append``, the file
        holds another task or is gzip-compressed.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> write_answer(out, UAIAnswer("PR", log10_partition=-0.2008))
    >>> write_answer(out, UAIAnswer("PR", log10_partition=-0.25), append=True)
    >>> print(out.getvalue(), end="")
    PR
    -0.2008
    -BEGIN-
    -0.25
    >>> read_answer(io.StringIO(out.getvalue())).log10_partition
    -0.25
    """
    if not isinstance(answer, UAIAnswer):
        raise TypeError(f"answer must be a UAIAnswer, got {type(answer).__name__}")
    for j, p in enumerate(answer.marginals or []):
        total = math.fsum(p.tolist())
        if abs(total - 1.0) > _SUM_TOL:
            raise ValueError(
                f"answer.marginals[{j}] sums to {total!r}, not to 1 (within {_SUM_TOL:g})"
            )
    solution = _solution(answer) + "\n"
    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        task = _file_task(path) if append else None
        if task is None:
            path.write_text(f"{answer.task}\n{solution}", encoding="utf-8")
            return
        if task != answer.task:
            raise ValueError(f"{path} holds {task} solutions: cannot append a {answer.task} answer")
        with path.open("rb") as fh:
            fh.seek(-1, os.SEEK_END)
            newline = "" if fh.read(1) == b"\n" else "\n"
        with path.open("a", encoding="utf-8") as out:
            out.write(f"{newline}{_BEGIN}\n{solution}")
        return
    if not callable(getattr(target, "write", None)):
        raise TypeError(
            f"target must be a path (str or os.PathLike) or a text file object, got "
            f"{type(target).__name__}"
        )
    text = f"{_BEGIN}\n{solution}" if append else f"{answer.task}\n{solution}"
    try:
        target.write(text)
    except TypeError:
        raise TypeError("target must be a text file object (open it in text mode)") from None


def _parse_solution(tokens: _Tokens, task: str) -> UAIAnswer:
    """One solution of ``task`` from ``tokens`` (all of them)."""
    if task == "PR":
        tok, line = tokens.next("log10 of the partition function")
        try:
            value = float(tok)
        except ValueError:
            raise tokens.error(
                line, f"expected log10 of the partition function, got {tok!r}"
            ) from None
        if math.isnan(value) or value == math.inf:
            raise tokens.error(
                line, f"log10 of the partition function must be finite or -inf, got {tok}"
            )
        answer = UAIAnswer(task, log10_partition=value)
    elif task == "MAR":
        n = tokens.integer("the number of variables", 0)
        marginals = []
        for i in range(n):
            card = tokens.integer(f"the cardinality of variable {i}", 1)
            p, _ = tokens.numbers(card, f"the marginal of variable {i}", "probabilities")
            marginals.append(p)
        answer = UAIAnswer(task, marginals=marginals)
    elif task == "MAP":
        n = tokens.integer("the number of variables", 0)
        x = [tokens.integer(f"the value of variable {i}", 0) for i in range(n)]
        answer = UAIAnswer(task, assignment=np.array(x, dtype=np.int64))
    else:
        q = tokens.integer("the number of query variables", 0)
        query: dict[int, int] = {}
        for k in range(q):
            line = (tokens.rest() or ("", tokens.last_line))[1]
            v = tokens.integer(f"query variable {k}", 0)
            if v in query:
                raise tokens.error(line, f"query variable {v} appears twice")
            query[v] = tokens.integer(f"the value of query variable {v}", 0)
        answer = UAIAnswer(task, query=query)
    extra = tokens.rest()
    if extra is not None:
        raise tokens.error(
            extra[1],
            f"unexpected token {extra[0]!r} after the {task} solution (a result file holds "
            f"one task; further solutions start with a line {_BEGIN})",
        )
    return answer


def read_answer(source: str | os.PathLike[str] | IO[str]) -> UAIAnswer:
    """Read a UAI result file: its task, and its last solution.

    Parameters
    ----------
    source : path or text file object
        The file: a first line ``PR``, ``MAR``, ``MAP`` (or ``MPE``) or ``MMAP``, then
        solutions, each after the first one after a line ``-BEGIN-`` (a ``-BEGIN-``
        before the first is allowed, and an empty last one, left by a solver stopped
        while writing, is passed over). A path may name a gzip-compressed file; comment
        lines and a byte order mark are skipped.

    Returns
    -------
    UAIAnswer
        The task (``MAP`` for ``MPE``) and the file's last solution.

    Raises
    ------
    UAIFormatError
        Naming the file and the line: an unknown task; no solution; a malformed last
        solution (a non-numeric token, a count that does not match the tokens that
        follow, a negative probability or value, a query variable given twice, tokens
        after the solution).
    TypeError
        ``source`` is neither a path nor a text file object.

    Examples
    --------
    >>> import io
    >>> text = "MPE\\n3 0 1 0\\n-BEGIN-\\n3 1 1 0\\n"
    >>> a = read_answer(io.StringIO(text))
    >>> a.task, a.assignment.tolist()
    ('MAP', [1, 1, 0])
    >>> read_answer(io.StringIO("MMAP\\n3 2 0 3 1 4 0\\n")).query
    {2: 0, 3: 1, 4: 0}
    """
    text, name = _read_text(source)
    tokens = _Tokens(text, name)
    head, line = tokens.next("the task (PR, MAR, MAP, MPE or MMAP)")
    task = _ALIASES.get(head.upper(), head.upper())
    if task not in TASKS:
        raise tokens.error(line, f"expected the task (PR, MAR, MAP, MPE or MMAP), got {head!r}")
    blocks: list[list[tuple[str, int]]] = [[]]
    for tok, tok_line in tokens.remaining():
        if tok == _BEGIN:
            blocks.append([])
        else:
            blocks[-1].append((tok, tok_line))
    solutions = [block for block in blocks if block]
    if not solutions:
        raise tokens.error(tokens.last_line, f"the file holds no {task} solution")
    items = solutions[-1]
    return _parse_solution(_Tokens.of(items, name, items[-1][1], "the solution"), task)
