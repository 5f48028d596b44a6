"""Guards shared by the approximate inference routines of ``kernelkit.pgm``.

* :func:`feasible_domains`: the values of each variable that the hard constraints (``-inf``
  entries) leave possible, by generalised arc consistency; a model whose constraints
  leave some variable no value forbids every assignment, and the routines say so with the
  exact methods' error (``the model has no marginals: every assignment is forbidden by
  its -inf entries ...``).
* :func:`check_per_variable_memory`: the message-passing, mean-field and Gibbs routines
  keep arrays of shape ``(n_variables, largest cardinality)``; a request that could never
  fit in memory is refused before anything is allocated (:mod:`kernelkit._memory`).
* :func:`power_of_two_scale`: a power of two that brings the largest finite table entry
  near 1, so that sums of many entries of magnitude up to ``1e308`` cannot overflow
  (multiplying by a power of two is exact, barring underflow).
* :func:`sum_scale_exponent` / :func:`sum_limit`: the exact methods add one entry per
  factor (and differences of such sums); a power of two ``2**-k`` that keeps every such
  sum below ``2**1000`` when entries near ``1e308`` would overflow it, else ``k = 0``;
  :func:`beyond_range_error` is their error for a result (``log Z``, a MAP score) that no
  float64 can hold.

Arc consistency (Mackworth 1977, "Consistency in networks of relations") removes a value
of ``X_v`` when some factor on ``v`` allows no joint value that uses it with the values
still possible for its other variables. Removed values have probability 0 under ``p``
(every assignment using one is forbidden), so pruning never changes a feasible model's
distribution; an emptied domain proves that every assignment is forbidden. Factors on the
same set of variables are intersected first (``x_0 == x_1`` and ``x_0 != x_1`` forbid
everything together, though each alone allows every value). Arc consistency is not
complete: a model it leaves with every domain non-empty may still forbid everything
(deciding that is NP-hard); the callers then detect it in their own computation where
they can.
"""

from __future__ import annotations

import math

import numpy as np

from kernelkit import _memory
from kernelkit.pgm.model import DiscreteModel

__all__ = [
    "SUM_HEADROOM",
    "InfeasibleModelError",
    "beyond_range_error",
    "check_per_variable_memory",
    "feasible_domains",
    "finite_sum",
    "forbidden_error",
    "power_of_two_scale",
    "scale_exponent",
    "sum_limit",
    "sum_scale_exponent",
]


class InfeasibleModelError(ValueError):
    """A model whose ``-inf`` entries forbid every assignment (``log Z = -inf``): it has
    no marginals, MAP assignment or samples. A ``ValueError``; :func:`kernelkit.pgm.solve`
    catches this class to answer ``PR = -inf`` as the UAI format asks."""


def forbidden_error(model: DiscreteModel, what: str, detail: str) -> ValueError:
    """The error of a model whose ``-inf`` entries forbid every assignment, in the words of
    :mod:`kernelkit.pgm.exact` (``what``: "marginals", "MAP assignment", "samples")."""
    return InfeasibleModelError(
        f"the model has no {what}: every assignment is forbidden by its -inf entries "
        f"(log Z = -inf; {detail})"
    )


def feasible_domains(model: DiscreteModel, what: str) -> np.ndarray | None:
    """The values left possible by the hard constraints, or a ValueError when none is.

    Parameters
    ----------
    model : DiscreteModel
        The model.
    what : str
        What the caller computes, for the error message ("marginals", ...).

    Returns
    -------
    ndarray of bool, shape (n_variables, max cardinality), or None
        ``D[v, x]``: whether ``X_v = x`` survives arc consistency (False on the padding
        beyond a variable's cardinality); None when the model has no ``-inf`` entry (then
        every value is possible).

    Raises
    ------
    ValueError
        When arc consistency leaves some variable no value: the model forbids every
        assignment.
    """
    constraints = _merged_constraints(model)
    if constraints is None:
        return None
    n = model.n_variables
    K = int(model.cardinalities.max(initial=1))
    D = np.arange(K)[None, :] < model.cardinalities[:, None]
    for scopes, allowed in constraints:  # a factor that allows nothing at all
        dead = ~allowed.reshape(allowed.shape[0], -1).any(axis=1)
        if dead.any():
            names = [model.variables[v] for v in scopes[int(np.flatnonzero(dead)[0])]]
            detail = (
                f"together, the factors on the variables {names} allow no joint value"
                if names
                else "a factor with no variables is -inf"
            )
            raise forbidden_error(model, what, detail)
    # AC-3 by fronts: revise only the factors on a variable whose domain just shrank
    incidence = [_incidence(scopes, n) for scopes, _ in constraints]
    front = np.arange(n)
    while front.size:
        touched = np.zeros(n, dtype=bool)
        for (scopes, allowed), inc in zip(constraints, incidence, strict=True):
            k = scopes.shape[1]
            rows = _rows_of(inc, front)
            if k == 0 or rows.size == 0:
                continue
            sc = scopes[rows]
            live = allowed[rows]
            for p in range(k):  # joint values whose every variable keeps its value
                shape = [rows.size] + [1] * k
                shape[p + 1] = allowed.shape[p + 1]
                live = live & D[sc[:, p], : allowed.shape[p + 1]].reshape(shape)
            for p in range(k):
                axes = tuple(a for a in range(1, k + 1) if a != p + 1)
                supported = live.any(axis=axes) if axes else live  # (rows, c_p)
                r, x = np.nonzero(~supported)
                v = sc[r, p]
                hit = D[v, x]
                if hit.any():
                    D[v[hit], x[hit]] = False
                    touched[v[hit]] = True
        front = np.flatnonzero(touched)
        empty = front[~D[front].any(axis=1)]
        if empty.size:
            raise forbidden_error(
                model, what, f"they leave variable {model.variables[int(empty[0])]!r} no value"
            )
    return D


def _incidence(scopes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``scopes`` on each variable, CSR-style: ``rows[ptr[v]:ptr[v + 1]]``."""
    m, k = scopes.shape
    var = scopes.ravel()
    order = np.argsort(var, kind="stable")
    rows = np.repeat(np.arange(m), k)[order]
    return rows, np.searchsorted(var[order], np.arange(n + 1))


def _rows_of(incidence: tuple[np.ndarray, np.ndarray], variables: np.ndarray) -> np.ndarray:
    """The distinct rows on any of ``variables``."""
    rows, ptr = incidence
    starts, lens = ptr[variables], ptr[variables + 1] - ptr[variables]
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    at = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(total)
    return np.unique(rows[at])


def _merged_constraints(model: DiscreteModel) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """The factors with ``-inf`` entries as ``(scopes, allowed)`` pairs: ``scopes`` sorted
    rows ``(m, k)``, ``allowed`` boolean tables ``(m, *shape)`` with axes in sorted-scope
    order, one row per distinct variable set (the factors on one set intersected); None
    when no table has a ``-inf`` entry."""
    buckets: dict[tuple[int, ...], tuple[list[np.ndarray], list[np.ndarray]]] = {}
    for g in model.groups():
        k = g.arity
        flat = g.tables.reshape(g.tables.shape[0], -1)
        rows = np.flatnonzero(np.isneginf(flat).any(axis=1))
        if rows.size == 0:
            continue
        if k == 0:  # a constant -inf factor: nothing is allowed
            buckets.setdefault((), ([], []))
            buckets[()][0].append(np.zeros((rows.size, 0), dtype=np.int64))
            buckets[()][1].append(np.zeros((rows.size,), dtype=bool))
            continue
        scopes = g.scopes[rows]
        perm = np.argsort(scopes, axis=1, kind="stable")
        codes = np.unique(perm, axis=0)
        for code in codes:  # the rows whose scope sorts by this permutation
            sel = np.flatnonzero(np.all(perm == code, axis=1))
            allowed = ~np.isneginf(g.tables[rows[sel]])
            allowed = allowed.transpose(0, *(1 + code))
            key = allowed.shape[1:]
            lists = buckets.setdefault(key, ([], []))
            lists[0].append(scopes[sel][:, code])
            lists[1].append(allowed)
    if not buckets:
        return None
    out = []
    for key, (scope_list, allowed_list) in buckets.items():
        scopes = np.concatenate(scope_list)
        allowed = np.concatenate(allowed_list)
        if len(key) == 0:
            out.append((scopes[:1], allowed[:1]))
            continue
        uniq, inverse = np.unique(scopes, axis=0, return_inverse=True)
        merged = np.ones((uniq.shape[0], *key), dtype=bool)
        np.logical_and.at(merged, inverse.ravel(), allowed)
        out.append((uniq, merged))
    return out


def check_per_variable_memory(model: DiscreteModel, request: str, n_arrays: int) -> None:
    """Refuse a model whose ``(n_variables, max cardinality)`` float arrays (``n_arrays``
    of them) could never fit in memory, naming ``request`` (the calling function)."""
    n = model.n_variables
    K = int(model.cardinalities.max(initial=1))
    _memory.check_memory(
        8 * n_arrays * n * K,
        f"{request}(model) with {n} variables of up to {K} values (arrays of shape ({n}, {K}))",
        "this routine keeps per-variable arrays as long as the largest domain; split "
        "variables with huge domains",
    )


def power_of_two_scale(model: DiscreteModel, threshold: float = 2.0**900) -> float:
    """``2**-e`` with the largest finite ``|table entry|`` times it in ``[0.5, 1)``, when
    that entry exceeds ``threshold`` (sums of such entries could overflow); else 1.0 (the
    arithmetic is then unchanged)."""
    return math.ldexp(1.0, scale_exponent(model, threshold))


def scale_exponent(model: DiscreteModel, threshold: float, small: float = 0.0) -> int:
    """``-e`` with ``2**-e`` times the largest finite ``|table entry|`` in ``[0.5, 1)``, when
    that entry exceeds ``threshold`` or is positive and below ``small``; else 0. (Scale
    with ``np.ldexp(table, exponent)``: exact, and for subnormal entries ``2**exponent``
    itself would overflow.)"""
    largest = 0.0
    for g in model.groups():
        t = g.tables
        finite = np.abs(t[np.isfinite(t)])
        if finite.size:
            largest = max(largest, float(finite.max()))
    if not (largest > threshold or 0.0 < largest < small):
        return 0
    return -math.frexp(largest)[1]


def finite_sum(parts: list[tuple[float, np.ndarray]], what: str) -> float:
    """``sum_k sign_k * parts_k.sum()`` for ``(sign, array)`` pairs, in that order, as the
    plain running sum would give it; when a partial sum overflows (terms near ``1e308``
    that cancel), the sum of the terms scaled by ``2**-64``, scaled back. ``-inf`` terms
    (hard constraints) give ``-inf``.

    Raises
    ------
    ValueError
        When the sum itself is beyond the float64 range (``what`` names it).
    """
    total = 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        for sign, arr in parts:
            total += sign * float(np.sum(arr))
        if np.isfinite(total):
            return total
        if any(np.isneginf(sign * np.asarray(arr)).any() for sign, arr in parts):
            return -np.inf
        scaled = 0.0
        for sign, arr in parts:
            scaled += sign * float(np.sum(np.asarray(arr) * 2.0**-64))
        total = scaled * 2.0**64
    if not np.isfinite(total):
        raise ValueError(
            f"{what} is beyond the float64 range (about 1.8e308): the log-potentials of "
            "model are too large in magnitude; scale them down"
        )
    return total


def beyond_range_error(what: str) -> ValueError:
    """The error of a result beyond the float64 range, in the words of :func:`finite_sum`
    (``what`` names it: ``"exact_log_partition: log Z"``)."""
    return ValueError(
        f"{what} is beyond the float64 range (about 1.8e308): the log-potentials of "
        "model are too large in magnitude; scale them down"
    )


#: Sums of log-potentials below ``2**SUM_HEADROOM`` in magnitude leave room (a factor
#: ``2**23``) for their differences and for the logs of state counts added to them.
SUM_HEADROOM = 1000


def sum_limit(n_factors: int) -> float:
    """The magnitude below which every finite table entry must lie for sums of one entry
    per factor (``n_factors`` of them) to stay below ``2**SUM_HEADROOM``:
    ``2**(SUM_HEADROOM - n_factors.bit_length())``."""
    return math.ldexp(1.0, SUM_HEADROOM - max(int(n_factors), 1).bit_length())


def sum_scale_exponent(model: DiscreteModel) -> int:
    """The least ``k >= 0`` such that, scaled by ``2**-k``, every finite table entry lies
    below :func:`sum_limit` of the model's number of factors: 0 (no scaling) unless some
    ``|entry|`` reaches about ``2**1000 / n_factors``. Scaled so, any sum of one entry per
    factor, and any difference of two such sums, is a finite float64 (``np.ldexp(table,
    -k)`` scales exactly, barring the underflow of entries below ``2**(k - 1074)``)."""
    largest = 0.0
    for g in model.groups():
        t = g.tables
        lo, hi = float(t.min()), float(t.max())
        if lo == -math.inf:  # hard constraints: the finite entries only
            finite = t[np.isfinite(t)]
            if finite.size == 0:
                continue
            lo, hi = float(finite.min()), float(finite.max())
        largest = max(largest, hi, -lo)
    bits = max(len(model.factors), 1).bit_length()
    if largest < math.ldexp(1.0, SUM_HEADROOM - bits):
        return 0
    return math.frexp(largest)[1] + bits - SUM_HEADROOM
