"""Linear-programming relaxations of MAP inference (Rowland 2018, Sections 1.3 and 3.3).

MAP inference maximises the score ``sum_E theta_E(x_E)``. Written over the marginal
polytope ``M(G)`` it is a linear program (eq. 1.8) with exponentially many constraints;
the Sherali-Adams relaxations replace ``M(G)`` by a polytope ``L_r(G) ⊇ M(G)`` described
by local consistency (Def. 1.6) and solve

    max_{mu in L_r(G)} sum_E <theta_E, mu_E>                                    (1.11)

The optimum is an upper bound on the MAP score; the relaxation is *tight* when the two are
equal, and then an integral optimum is a MAP assignment. :func:`lp_relaxation` builds the
LP with sparse constraint matrices (vectorised over factors and clusters) and solves it
with SciPy's HiGHS (``scipy.optimize.linprog(method="highs")``).

Levels
------
``"L2"``
    The local polytope: a pseudomarginal ``mu_i`` per variable and ``mu_E`` per factor
    scope (factors on the same set of variables are merged), normalised, each ``mu_E``
    marginalising to the ``mu_i`` of its variables. For pairwise models this is
    ``L_2(G)`` of Def. 1.6; with higher-arity factors it is the local polytope of the
    factor graph (which can be looser than ``L_r`` for the largest arity ``r``).
``"L3"``
    Binary pairwise models only: the thesis's minimal representation (Section 3.3) with
    ``q_i = P(X_i = 1)`` for every variable and ``q_ij = P(X_i = X_j = 1)`` for *every*
    pair of variables (non-edges too), the local (LOC) inequalities (eq. 3.4) on every
    pair and the triplet (TRI) inequalities (eq. 3.6) on every triple. This is ``L_3`` of
    the complete graph, which Fourier-Motzkin elimination of eq. 3.5 shows equal to the
    Sherali-Adams ``L_3`` (``level="SA", r=3``) over the same pairs.
``"L3s"``
    ``L_3^s(G)`` (eq. 3.2): LOC on every pair, TRI only on the triples containing the
    distinguished vertex ``s``; ``L_3 ⊆ L_3^s ⊆ L_2``.
``"SA"``
    The Sherali-Adams polytope ``L_r`` (Def. 1.6) for any hypergraph model with
    hyperedges of size ``<= r``: a distribution ``mu_U`` on every ``r``-subset ``U`` of
    the variables (the consistent marginalising family), locally consistent, and each
    factor's ``mu_E`` the marginal of the ``mu_U`` with ``U ⊇ E``. Consistency of every
    pair of ``r``-subsets is imposed through their common ``(r - 1)``-subsets (two
    ``r``-subsets are joined by a chain of ``r``-subsets that contain their intersection
    and differ in one variable at a time, so this is equivalent). With ``r`` equal to the
    number of variables this is the marginal polytope ``M(G)`` (Prop. 1.7).

Hard constraints (``-inf`` log-potentials) force the matching pseudomarginal entries to 0
(bounds, or for ``"L3"`` / ``"L3s"`` equalities on the minimal parameters); they never
enter the objective.

Examples
--------
The frustrated triangle (three repulsive edges, the odd-``K_3``): ``L_2`` is not tight,
``L_3`` is.

>>> import networkx as nx
>>> from kernelkit.pgm.model import ising
>>> m = ising(nx.cycle_graph(3), fields=[1.0, 1.1, 1.2], couplings=-2.0)
>>> l2 = lp_relaxation(m, "L2")
>>> round(l2.value, 6), l2.is_integral, l2.assignment
(1.65, False, None)
>>> l3 = lp_relaxation(m, "L3")
>>> round(l3.value, 6), l3.is_integral, l3.assignment.tolist()
(1.2, True, [0, 0, 1])
>>> round(l2.gap(m.score([0, 0, 1])), 6)
0.45
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from itertools import chain, combinations
from math import comb
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from kernelkit._validation import check_in, check_int
from kernelkit.pgm._guards import scale_exponent
from kernelkit.pgm.model import DiscreteModel, _check_model, _variable_index

__all__ = ["LEVELS", "LPRelaxationResult", "LPSolverError", "lp_relaxation"]

#: The accepted values of ``level``.
LEVELS = ("L2", "L3", "L3s", "SA")

#: Largest number of LP variables, and of constraint rows, :func:`lp_relaxation` builds.
MAX_LP_SIZE = 5_000_000

_INTEGRAL_TOL = 1e-7

_INFEASIBLE = (
    "the model has no MAP assignment: every assignment is forbidden by its -inf entries "
    "(log Z = -inf)"
)


class LPSolverError(RuntimeError):
    """HiGHS did not return an optimum (infeasible, unbounded, iteration limit, ...).

    Parameters
    ----------
    status : int
        ``scipy.optimize.linprog``'s status code (1 iteration limit, 2 infeasible,
        3 unbounded, 4 numerical difficulties).
    message : str
        HiGHS's message.
    """

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HiGHS did not solve the LP relaxation (status {status}): {message}")
        self.status = status
        self.message = message


@dataclass(frozen=True, eq=False)
class LPRelaxationResult:
    """The solution of an LP relaxation of MAP (see :func:`lp_relaxation`).

    Attributes
    ----------
    value : float
        The LP optimum ``max_{mu in L} sum_E <theta_E, mu_E>`` (eq. 1.11); an upper bound
        on the MAP score, equal to it when the relaxation is tight.
    level : str
        ``"L2"``, ``"L3"``, ``"L3s"`` or ``"SA"``.
    r : int or None
        The Sherali-Adams level for ``"SA"`` (2 for ``"L2"``, 3 for ``"L3"`` and ``"L3s"``).
    s : int or None
        The index of the distinguished vertex for ``"L3s"``.
    pseudomarginals : tuple of ndarray
        ``mu_i``, one array of shape ``(cardinalities[i],)`` per variable.
    factor_marginals : tuple of ndarray
        ``mu_E`` for each factor of ``model.factors``, in the same order and with the
        shape of the factor's table (axes in scope order); a 0-d array ``1.0`` for a
        factor with an empty scope. ``value`` equals ``sum_k <table_k, factor_marginals[k]>``
        over the finite table entries.
    cluster_marginals : dict
        The joint pseudomarginals the LP holds beyond the variables, keyed by a sorted
        tuple of variable indices, each array with one axis per variable in that order:
        the merged factor scopes of arity >= 2 for ``"L2"``; every pair ``(i, j)``,
        ``i < j``, for ``"L3"`` and ``"L3s"`` (2 x 2 arrays from ``q_i, q_j, q_ij``,
        eq. 3.3); every ``r``-subset for ``"SA"`` (the consistent marginalising family).
    is_integral : bool
        Whether every pseudomarginal of the LP solution is within 1e-7 of 0 or 1.
    assignment : ndarray of int or None
        When integral, the assignment the solution puts all its mass on (a MAP assignment
        whenever the relaxation is tight); else None.
    status : int
        HiGHS's status (0: optimal).
    message : str
        HiGHS's message.
    n_lp_variables : int
        The number of LP variables.
    n_constraints : int
        The number of equality and inequality rows.
    """

    value: float
    level: str
    r: int | None
    s: int | None
    pseudomarginals: tuple[np.ndarray, ...]
    factor_marginals: tuple[np.ndarray, ...]
    cluster_marginals: dict[tuple[int, ...], np.ndarray]
    is_integral: bool
    assignment: np.ndarray | None
    status: int
    message: str
    n_lp_variables: int
    n_constraints: int

    def gap(self, map_score: float) -> float:
        """``value - map_score``: the relaxation's gap to the exact MAP score.

        Parameters
        ----------
        map_score : float
            The exact MAP score (from exact inference or enumeration).

        Returns
        -------
        float
            ``>= 0`` up to solver tolerance; 0 exactly when the relaxation is tight.
        """
        return float(self.value - float(map_score))


def lp_relaxation(
    model: DiscreteModel,
    level: str = "L2",
    *,
    r: int | None = None,
    s: Hashable | None = None,
) -> LPRelaxationResult:
    """Solve an LP relaxation of MAP inference with HiGHS.

    Parameters
    ----------
    model : DiscreteModel
        The model; ``"L3"`` and ``"L3s"`` need a binary model with factors of arity <= 2.
    level : {"L2", "L3", "L3s", "SA"}, default="L2"
        The polytope (see the module docstring): the local polytope, the triplet polytope
        (LOC + TRI, eqs. 3.4-3.6, on all pairs and triples), ``L_3^s`` (TRI on the triples
        through ``s``, eq. 3.2) or the Sherali-Adams ``L_r`` (Def. 1.6).
    r : int, optional
        The Sherali-Adams level, required with ``level="SA"`` (and only then):
        ``max(1, largest factor arity) <= r <= n_variables``.
    s : hashable, optional
        The distinguished vertex, required with ``level="L3s"`` (and only then): a
        variable name, or an index ``0 .. n_variables - 1`` when it is not a name.

    Returns
    -------
    LPRelaxationResult
        The optimal value, the pseudomarginals and, when integral, the MAP assignment.

    Raises
    ------
    ValueError
        An unknown ``level``; ``r`` or ``s`` missing, out of range or given with another
        level; a non-binary or higher-arity model for ``"L3"`` / ``"L3s"``; an LP with more
        than ``MAX_LP_SIZE`` variables or constraints; an optimum beyond the float64 range.
        (A model without variables has the trivial LP, for ``"L2"`` and ``"L3"``: its
        ``value`` is the sum of its constant factors and its ``assignment`` is empty, as
        :func:`~kernelkit.pgm.exact.exact_map` gives.)
    TypeError
        ``model`` is not a :class:`DiscreteModel`; ``r`` is not an integer.
    LPSolverError
        HiGHS reports anything but an optimum (e.g. the hard constraints make the
        relaxation infeasible, status 2: then they forbid every assignment of the model,
        as the message says); the error carries HiGHS's status and message.

    Notes
    -----
    The objective is ``sum_E <theta_E, mu_E>`` (eq. 1.11) with each factor's table placed
    on one cluster containing its scope. For ``"L3"`` / ``"L3s"`` the tables are first
    written in the minimal parametrisation ``const + sum_i phi_i q_i + sum_ij phi_ij q_ij``
    (eq. 3.7). The number of LP variables is ``sum_i k_i + sum_E prod k_E`` for ``"L2"``,
    ``n + n(n-1)/2`` for ``"L3"``, and ``e_r(k) + e_{r-1}(k)`` for ``"SA"`` (``e_j`` the
    elementary symmetric polynomial of the cardinalities: all ``r``- and
    ``(r - 1)``-subsets), with ``4 C(n, 3)`` TRI rows for ``"L3"``.

    Examples
    --------
    An attractive (ferromagnetic) grid: ``L_2`` is tight and the LP returns a MAP
    assignment.

    >>> import networkx as nx
    >>> import numpy as np
    >>> from kernelkit.pgm.model import ising
    >>> G = nx.grid_2d_graph(3, 3)
    >>> h = np.random.RandomState(0).normal(size=9)
    >>> m = ising(G, fields=h, couplings=1.0, spins="pm1")
    >>> res = lp_relaxation(m)
    >>> res.is_integral, bool(np.isclose(res.value, m.score(res.assignment)))
    (True, True)

    The odd-``K_4`` (all six edges repulsive; the score is ``sum_i x_i + sum_ij
    1[x_i != x_j]``) separates ``L_3`` from the marginal polytope, which is ``"SA"`` with
    ``r = 4`` here: the MAP score is 6.

    >>> K4 = nx.complete_graph(4)
    >>> m = ising(K4, fields=4.0, couplings=-2.0)
    >>> round(lp_relaxation(m, "L3").value, 6), round(lp_relaxation(m, "SA", r=4).value, 6)
    (6.666667, 6.0)
    """
    _check_model(model)
    check_in(level, "level", LEVELS)
    if level != "SA" and r is not None:
        raise ValueError(f"r is only used with level='SA', got r={r!r} with level={level!r}")
    if level != "L3s" and s is not None:
        raise ValueError(f"s is only used with level='L3s', got s={s!r} with level={level!r}")
    n = model.n_variables
    s_index = None
    # Log-potentials beyond 1e12 (up to 1e308) or all below 1e-3 (down to 5e-324) are solved
    # in units of a power of two that brings the largest near 1: HiGHS reads costs above
    # 1e20 as infinite and works to absolute tolerances near 1e-7, and the minimal
    # parametrisation of "L3" adds four entries. The optimum is linear in the tables.
    exponent = scale_exponent(model, _LARGE_ENTRY, _SMALL_ENTRY)
    work = model if exponent == 0 else _scaled(model, exponent)
    if n == 0 and level in ("L2", "L3"):
        problem = _trivial(work)
    elif level == "SA":
        if r is None:
            raise ValueError("level='SA' needs the Sherali-Adams level r")
        r = check_int(r, "r", minimum=1)
        max_arity = max((f.arity for f in model.factors), default=0)
        if r < max_arity:
            raise ValueError(
                f"r must be >= the largest factor arity ({max_arity}) for level='SA', got {r}"
            )
        if r > n:
            raise ValueError(f"r must be <= the number of variables ({n}), got {r}")
        problem = _build_sa(work, r)
    elif level == "L2":
        problem = _build_l2(work)
    else:
        _check_binary_pairwise(model, level)
        if level == "L3s":
            if s is None:
                raise ValueError("level='L3s' needs the distinguished vertex s")
            s_index = _variable_index(model, s, "s")
        problem = _build_l3(work, s_index)
    problem.exponent = exponent
    x, status, message = _solve(problem)
    return problem.result(x, status, message, level, r, s_index)


#: Tables with an entry above ``_LARGE_ENTRY``, or all entries below ``_SMALL_ENTRY``, are
#: rescaled before the LP is built (see lp_relaxation).
_LARGE_ENTRY = 1e12
_SMALL_ENTRY = 1e-3


def _scaled(model: DiscreteModel, exponent: int) -> DiscreteModel:
    """``model`` with every table times ``2**exponent`` (exact), by index."""
    factors = [(f.scope, np.ldexp(f.table, exponent)) for f in model.factors]
    return DiscreteModel(model.cardinalities.tolist(), factors)


def _trivial(model: DiscreteModel) -> _Problem:
    """The LP of a model without variables: no LP variables, the constant as its value."""

    def reader(x: np.ndarray) -> tuple[Any, Any, Any]:
        return (), {}, tuple(np.array(1.0) for _ in model.factors)

    empty = np.zeros(0)
    return _Problem(empty, _constant(model), empty, empty, _Rows(), _Rows(), reader)


# -- LP assembly ---------------------------------------------------------------------------------


class _Rows:
    """Sparse constraint rows accumulated as coo index arrays."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.rhs: list[np.ndarray] = []
        self.n = 0

    def add(self, rows: Any, cols: Any, vals: Any, rhs: Any) -> None:
        """Rows numbered ``0 .. len(rhs) - 1`` locally; shifted past the rows so far."""
        rhs = np.asarray(rhs, dtype=np.float64).ravel()
        rows, cols = np.asarray(rows).ravel(), np.asarray(cols).ravel()
        vals = np.broadcast_to(np.asarray(vals, dtype=np.float64), np.shape(rows)).ravel()
        keep = vals != 0
        self.rows.append(rows[keep] + self.n)
        self.cols.append(cols[keep])
        self.vals.append(vals[keep])
        self.rhs.append(rhs)
        self.n += rhs.shape[0]

    def matrix(self, n_cols: int) -> tuple[sp.csr_matrix | None, np.ndarray | None]:
        if self.n == 0:
            return None, None
        A = sp.coo_matrix(
            (np.concatenate(self.vals), (np.concatenate(self.rows), np.concatenate(self.cols))),
            shape=(self.n, n_cols),
        ).tocsr()
        return A, np.concatenate(self.rhs)


@dataclass
class _Problem:
    """An assembled LP (maximise ``theta @ x + const``) and how to read its solution."""

    theta: np.ndarray
    const: float
    lower: np.ndarray
    upper: np.ndarray
    eq: _Rows
    ub: _Rows
    reader: Any  # x -> (pseudomarginals, cluster_marginals, factor_marginals)
    exponent: int = 0  # the tables were multiplied by 2**exponent

    def check_size(self) -> None:
        n_rows = self.eq.n + self.ub.n
        if self.theta.shape[0] > MAX_LP_SIZE or n_rows > MAX_LP_SIZE:
            raise ValueError(
                f"the LP would have {self.theta.shape[0]} variables and {n_rows} "
                f"constraints, above MAX_LP_SIZE = {MAX_LP_SIZE}; use a lower level"
            )

    def result(
        self, x: np.ndarray, status: int, message: str, level: str, r: int | None, s: int | None
    ) -> LPRelaxationResult:
        value = float(self.theta @ x + self.const)
        if self.exponent != 0:
            with np.errstate(over="ignore", under="ignore"):
                value = float(np.ldexp(value, -self.exponent))
            if not np.isfinite(value):
                raise ValueError(
                    "the LP optimum is beyond the float64 range (about 1.8e308): the "
                    "log-potentials of model are too large in magnitude"
                )
        pseudo, clusters, factors = self.reader(x)
        integral = bool(np.all(np.minimum(np.abs(x), np.abs(1.0 - x)) <= _INTEGRAL_TOL))
        assignment = None
        if integral:
            assignment = np.array([int(np.argmax(p)) for p in pseudo], dtype=np.int64)
        level_r = {"L2": 2, "L3": 3, "L3s": 3}.get(level, r)
        return LPRelaxationResult(
            value=value,
            level=level,
            r=level_r,
            s=s,
            pseudomarginals=pseudo,
            factor_marginals=factors,
            cluster_marginals=clusters,
            is_integral=integral,
            assignment=assignment,
            status=status,
            message=message,
            n_lp_variables=int(self.theta.shape[0]),
            n_constraints=self.eq.n + self.ub.n,
        )


def _solve(problem: _Problem) -> tuple[np.ndarray, int, str]:
    n_cols = problem.theta.shape[0]
    if n_cols == 0:  # no variables: nothing to solve
        if problem.const == -np.inf:
            raise LPSolverError(2, _INFEASIBLE)
        return np.zeros(0), 0, "no variables: the LP is its constant"
    A_eq, b_eq = problem.eq.matrix(n_cols)
    A_ub, b_ub = problem.ub.matrix(n_cols)
    res = linprog(
        -problem.theta,
        A_ub=A_ub,
        b_ub=b_ub,
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=np.column_stack([problem.lower, problem.upper]),
        method="highs",
    )
    if res.status != 0 or res.x is None:
        message = str(res.message)
        if res.status == 2:  # without -inf entries every polytope holds each assignment
            message += f" ({_INFEASIBLE})"
        raise LPSolverError(int(res.status), message)
    return np.asarray(res.x, dtype=np.float64), int(res.status), str(res.message)


def _entries(shape: tuple[int, ...]) -> np.ndarray:
    """All joint values of a table of this shape, C order, as rows ``(prod(shape), k)``."""
    return np.indices(shape).reshape(len(shape), -1).T


def _shape_groups(cards: np.ndarray, U: np.ndarray) -> list[tuple[np.ndarray, tuple[int, ...]]]:
    """The rows of ``U`` (clusters) grouped by their cardinalities: ``(rows, shape)`` pairs."""
    if U.shape[0] == 0:
        return []
    shapes, inverse = np.unique(cards[U], axis=0, return_inverse=True)
    inverse = inverse.ravel()
    return [
        (np.flatnonzero(inverse == g), tuple(int(k) for k in shapes[g]))
        for g in range(shapes.shape[0])
    ]


def _offsets(cards: np.ndarray, U: np.ndarray, start: int) -> tuple[np.ndarray, int]:
    """Column offsets of clusters laid out one after the other from ``start``."""
    sizes = np.prod(cards[U], axis=1) if U.shape[1] else np.ones(U.shape[0], dtype=np.int64)
    ends = start + np.cumsum(sizes)
    return ends - sizes, int(ends[-1]) if sizes.size else start


def _add_normalisation(rows: _Rows, off: np.ndarray, size: int) -> None:
    """``sum_x mu_U(x) = 1`` for clusters of one shape."""
    m = off.shape[0]
    rows.add(np.repeat(np.arange(m), size), off[:, None] + np.arange(size), 1.0, np.ones(m))


def _add_marginalisation(
    rows: _Rows,
    off: np.ndarray,
    shape: tuple[int, ...],
    keep: tuple[int, ...],
    sub_off: np.ndarray,
) -> None:
    """``sum_{x_U : x_U[keep] = w} mu_U(x_U) = mu_W(w)`` for clusters ``U`` of one shape,
    ``W`` the variables at positions ``keep`` (a cluster laid out in C order at
    ``sub_off``)."""
    m, size = off.shape[0], int(np.prod(shape))
    sub_shape = tuple(shape[p] for p in keep)
    sub_size = int(np.prod(sub_shape))
    sub_flat = np.ravel_multi_index(tuple(_entries(shape)[:, keep].T), sub_shape)
    base = np.arange(m)[:, None] * sub_size
    plus_rows, plus_cols = base + sub_flat[None, :], off[:, None] + np.arange(size)
    minus_rows, minus_cols = base + np.arange(sub_size), sub_off[:, None] + np.arange(sub_size)
    rows.add(
        np.concatenate([plus_rows.ravel(), minus_rows.ravel()]),
        np.concatenate([plus_cols.ravel(), minus_cols.ravel()]),
        np.concatenate([np.ones(plus_rows.size), -np.ones(minus_rows.size)]),
        np.zeros(m * sub_size),
    )


def _add_objective(
    theta: np.ndarray,
    upper: np.ndarray,
    cards: np.ndarray,
    U: np.ndarray,
    off: np.ndarray,
    scopes: np.ndarray,
    tables: np.ndarray,
) -> None:
    """Add factor tables to the objective of the clusters ``U`` (sorted rows, each
    containing the matching factor scope); ``-inf`` entries set the upper bound 0."""
    nf = scopes.shape[0]
    pos = np.argmax(U[:, :, None] == scopes[:, None, :], axis=1)  # (nf, arity)
    flat_tables = tables.reshape(nf, -1)
    for sel, shape in _shape_groups(cards, U):
        ent = _entries(shape)  # (S, k)
        size = ent.shape[0]
        coords = ent[:, pos[sel]]  # (S, ns, arity)
        flat = np.ravel_multi_index(tuple(np.moveaxis(coords, 2, 0)), tables.shape[1:]).T
        vals = flat_tables[sel[:, None], flat]  # (ns, S)
        cols = off[sel][:, None] + np.arange(size)
        forbidden = np.isneginf(vals)
        np.add.at(theta, cols[~forbidden], vals[~forbidden])
        upper[cols[forbidden]] = 0.0


def _marginal_from(U: tuple[int, ...], arr: np.ndarray, scope: tuple[int, ...]) -> np.ndarray:
    """The marginal on ``scope`` (axes in scope order) of a cluster table on ``U``."""
    positions = [U.index(v) for v in scope]
    other = tuple(a for a in range(len(U)) if a not in positions)
    reduced = arr.sum(axis=other) if other else arr
    return np.ascontiguousarray(np.transpose(reduced, np.argsort(np.argsort(positions))))


def _factor_arrays(model: DiscreteModel) -> list[tuple[np.ndarray, np.ndarray]]:
    """The model's factor groups as ``(scopes, tables)`` pairs."""
    return [(g.scopes, g.tables) for g in model.groups()]


def _constant(model: DiscreteModel) -> float:
    """The sum of the factors with an empty scope."""
    total = 0.0
    for scopes, tables in _factor_arrays(model):
        if scopes.shape[1] == 0:
            total += float(tables.sum())
    return total


# -- L2: the local polytope ----------------------------------------------------------------------


def _build_l2(model: DiscreteModel) -> _Problem:
    cards = model.cardinalities
    n = model.n_variables
    var_end = np.cumsum(cards)
    var_off = var_end - cards
    n_cols = int(var_end[-1])
    # merged sorted scopes of arity >= 2, one cluster each, laid out after the variables
    by_arity: dict[int, list[np.ndarray]] = {}
    for scopes, _ in _factor_arrays(model):
        if scopes.shape[1] >= 2:
            by_arity.setdefault(scopes.shape[1], []).append(np.sort(scopes, axis=1))
    clusters: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for arity, parts in by_arity.items():
        U = np.unique(np.concatenate(parts), axis=0)
        off, n_cols = _offsets(cards, U, n_cols)
        clusters[arity] = (U, off)
    theta, lower, upper = np.zeros(n_cols), np.zeros(n_cols), np.ones(n_cols)
    eq, ub = _Rows(), _Rows()
    eq.add(np.repeat(np.arange(n), cards), np.arange(var_end[-1]), 1.0, np.ones(n))
    for U, off in clusters.values():
        for sel, shape in _shape_groups(cards, U):
            for p in range(len(shape)):
                _add_marginalisation(eq, off[sel], shape, (p,), var_off[U[sel, p]])
    problem = _Problem(theta, _constant(model), lower, upper, eq, ub, None)
    problem.check_size()
    for scopes, tables in _factor_arrays(model):
        arity = scopes.shape[1]
        if arity == 0:
            continue
        if arity == 1:
            U_f, off_f = scopes, var_off[scopes[:, 0]]
        else:
            U, off = clusters[arity]
            sorted_scopes = np.sort(scopes, axis=1)
            idx = _row_index(U, sorted_scopes)
            U_f, off_f = U[idx], off[idx]
        _add_objective(theta, upper, cards, U_f, off_f, scopes, tables)

    def reader(x: np.ndarray) -> tuple[Any, Any, Any]:
        pseudo = tuple(np.split(x[: var_end[-1]], var_end[:-1]))
        out: dict[tuple[int, ...], np.ndarray] = {}
        for U, off in clusters.values():
            for sel, shape in _shape_groups(cards, U):
                size = int(np.prod(shape))
                arrs = x[off[sel][:, None] + np.arange(size)].reshape(len(sel), *shape)
                out.update(zip(map(tuple, U[sel].tolist()), arrs, strict=True))
        return pseudo, out, _factor_marginals(model, pseudo, out)

    problem.reader = reader
    return problem


def _factor_marginals(
    model: DiscreteModel, pseudo: tuple[np.ndarray, ...], out: dict[tuple[int, ...], np.ndarray]
) -> tuple[np.ndarray, ...]:
    """Each factor's pseudomarginal, its axes in the factor's scope order, from the
    variables' (``pseudo``) and the sorted clusters' (``out``) pseudomarginals."""
    factors = []
    for f in model.factors:
        if f.arity == 0:
            factors.append(np.array(1.0))
        elif f.arity == 1:
            factors.append(pseudo[f.scope[0]].copy())
        else:
            key = tuple(sorted(f.scope))
            factors.append(_marginal_from(key, out[key], f.scope))
    return tuple(factors)


def _row_index(U: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each row of ``rows``, the index of the equal row of ``U`` (sorted, unique)."""
    both = np.concatenate([U, rows])
    _, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    # U is sorted and unique, so np.unique maps U's rows to 0..len(U)-1 in order
    return inverse[U.shape[0] :]


# -- SA: Sherali-Adams L_r -----------------------------------------------------------------------


def _elementary_symmetric(values: np.ndarray, r: int) -> int:
    """``e_r(values)`` exactly (Python integers)."""
    e = [1] + [0] * r
    for v in values.tolist():
        for j in range(r, 0, -1):
            e[j] += e[j - 1] * v
    return e[r]


def _subsets(n: int, k: int) -> np.ndarray:
    """All ``k``-subsets of ``0 .. n-1`` as sorted rows, lexicographic order."""
    count = comb(n, k)
    flat = np.fromiter(chain.from_iterable(combinations(range(n), k)), np.int64, count * k)
    return flat.reshape(count, k)


def _colex_rank(U: np.ndarray, binom: np.ndarray) -> np.ndarray:
    """The colexicographic rank of each sorted row: ``sum_i C(U[:, i], i + 1)``."""
    if U.shape[1] == 0:
        return np.zeros(U.shape[0], dtype=np.int64)
    return binom[U, np.arange(1, U.shape[1] + 1)].sum(axis=1)


def _containing(scopes: np.ndarray, n: int, r: int) -> np.ndarray:
    """For each scope row, the sorted ``r``-subset made of it and the smallest other
    variables."""
    nf, arity = scopes.shape
    member = np.zeros((nf, n), dtype=bool)
    member[np.arange(nf)[:, None], scopes] = True
    fill = ~member & (np.cumsum(~member, axis=1) <= r - arity)
    return np.nonzero(member | fill)[1].reshape(nf, r)


def _build_sa(model: DiscreteModel, r: int) -> _Problem:
    cards = model.cardinalities
    n = model.n_variables
    # all r-subsets and (r-1)-subsets; one normalisation row per r-subset and, for each
    # (r-1)-subset W and each of its n - r + 1 supersets, one row per joint value of W
    e_r = _elementary_symmetric(cards, r)
    e_sub = _elementary_symmetric(cards, r - 1) if r > 1 else 0
    n_cols, n_rows = e_r + e_sub, comb(n, r) + (n - r + 1) * e_sub
    if n_cols > MAX_LP_SIZE or n_rows > MAX_LP_SIZE:
        raise ValueError(
            f"the Sherali-Adams LP at r={r} would have {n_cols} variables and {n_rows} "
            f"constraints, above MAX_LP_SIZE = {MAX_LP_SIZE}; use a lower r"
        )
    binom = np.array([[comb(v, i) for i in range(r + 1)] for v in range(n + 1)], dtype=np.int64)
    U = _subsets(n, r)
    off, end = _offsets(cards, U, 0)
    where_U = np.empty(U.shape[0], dtype=np.int64)
    where_U[_colex_rank(U, binom)] = np.arange(U.shape[0])
    eq, ub = _Rows(), _Rows()
    groups = _shape_groups(cards, U)
    for sel, shape in groups:
        _add_normalisation(eq, off[sel], int(np.prod(shape)))
    if r > 1:
        W = _subsets(n, r - 1)
        off_W, end = _offsets(cards, W, end)
        where_W = np.empty(W.shape[0], dtype=np.int64)
        where_W[_colex_rank(W, binom)] = np.arange(W.shape[0])
        for sel, shape in groups:
            for p in range(r):
                keep = tuple(q for q in range(r) if q != p)
                sub = where_W[_colex_rank(U[sel][:, keep], binom)]
                _add_marginalisation(eq, off[sel], shape, keep, off_W[sub])
    theta, lower, upper = np.zeros(end), np.zeros(end), np.ones(end)
    problem = _Problem(theta, _constant(model), lower, upper, eq, ub, None)
    problem.check_size()
    for scopes, tables in _factor_arrays(model):
        if scopes.shape[1] == 0:
            continue
        U_f = _containing(scopes, n, r)
        _add_objective(
            theta, upper, cards, U_f, off[where_U[_colex_rank(U_f, binom)]], scopes, tables
        )

    def reader(x: np.ndarray) -> tuple[Any, Any, Any]:
        out: dict[tuple[int, ...], np.ndarray] = {}
        for sel, shape in groups:
            size = int(np.prod(shape))
            arrs = x[off[sel][:, None] + np.arange(size)].reshape(len(sel), *shape)
            out.update(zip(map(tuple, U[sel].tolist()), arrs, strict=True))

        def marginal(scope: tuple[int, ...]) -> np.ndarray:
            if not scope:
                return np.array(1.0)
            key = tuple(_containing(np.array([scope], dtype=np.int64), n, r)[0].tolist())
            return _marginal_from(key, out[key], scope)

        pseudo = tuple(marginal((v,)) for v in range(n))
        factors = tuple(marginal(f.scope) for f in model.factors)
        return pseudo, out, factors

    problem.reader = reader
    return problem


# -- L3 and L3s: LOC + TRI in the minimal representation (eqs. 3.4-3.6) ------------------------


def _check_binary_pairwise(model: DiscreteModel, level: str) -> None:
    if not model.is_binary:
        raise ValueError(
            f"level={level!r} needs a binary model (every cardinality 2), got cardinalities "
            f"{sorted(set(model.cardinalities.tolist()))}; use level='SA'"
        )
    arity = max((f.arity for f in model.factors), default=0)
    if arity > 2:
        raise ValueError(
            f"level={level!r} needs a pairwise model (factor arity <= 2), got a factor of "
            f"arity {arity}; use level='SA'"
        )


def _build_l3(model: DiscreteModel, s: int | None) -> _Problem:
    n = model.n_variables
    n_pairs = n * (n - 1) // 2
    n_cols = n + n_pairs
    n_triples = comb(n, 3) if s is None else comb(n - 1, 2)
    n_rows = 3 * n_pairs + 4 * n_triples
    if n_rows > MAX_LP_SIZE:
        raise ValueError(
            f"the LP would have {n_rows} constraints, above MAX_LP_SIZE = {MAX_LP_SIZE}"
        )
    pairs = _subsets(n, 2)
    pidx = np.full((n, n), -1, dtype=np.int64)
    pidx[pairs[:, 0], pairs[:, 1]] = pidx[pairs[:, 1], pairs[:, 0]] = n + np.arange(n_pairs)
    theta, lower, upper = np.zeros(n_cols), np.zeros(n_cols), np.ones(n_cols)
    const = _constant(model)
    eq, ub = _Rows(), _Rows()
    for scopes, tables in _factor_arrays(model):
        arity = scopes.shape[1]
        if arity == 0:
            continue
        t = np.where(np.isneginf(tables), 0.0, tables)
        if arity == 1:
            const += float(t[:, 0].sum())
            np.add.at(theta, scopes[:, 0], t[:, 1] - t[:, 0])
            lower[scopes[np.isneginf(tables[:, 0]), 0]] = 1.0  # x_v = 0 forbidden: q_v = 1
            upper[scopes[np.isneginf(tables[:, 1]), 0]] = 0.0  # x_v = 1 forbidden: q_v = 0
            continue
        i, j = scopes[:, 0], scopes[:, 1]
        const += float(t[:, 0, 0].sum())
        np.add.at(theta, i, t[:, 1, 0] - t[:, 0, 0])
        np.add.at(theta, j, t[:, 0, 1] - t[:, 0, 0])
        np.add.at(theta, pidx[i, j], t[:, 1, 1] - t[:, 1, 0] - t[:, 0, 1] + t[:, 0, 0])
        # a forbidden atom (a, b): P(X_i = a, X_j = b) = 0, written in (q_i, q_j, q_ij)
        f, a, b = np.nonzero(np.isneginf(tables))
        if f.size:
            sa, sb = 2 * a - 1, 2 * b - 1
            k = np.arange(f.size)
            eq.add(
                np.concatenate([k, k, k]),
                np.concatenate([i[f], j[f], pidx[i[f], j[f]]]),
                np.concatenate([sa * (1 - b), (1 - a) * sb, sa * sb]),
                -(1 - a) * (1 - b),
            )
    # LOC (eq. 3.4) on every pair; q_ij >= 0 is a bound
    pi, pj, pc = pairs[:, 0], pairs[:, 1], n + np.arange(n_pairs)
    k = np.arange(n_pairs)
    ub.add(
        np.concatenate([k, k]),
        np.concatenate([pc, pi]),
        [1.0] * n_pairs + [-1.0] * n_pairs,
        np.zeros(n_pairs),
    )
    ub.add(
        np.concatenate([k, k]),
        np.concatenate([pc, pj]),
        [1.0] * n_pairs + [-1.0] * n_pairs,
        np.zeros(n_pairs),
    )
    ub.add(
        np.concatenate([k, k, k]),
        np.concatenate([pi, pj, pc]),
        [1.0] * (2 * n_pairs) + [-1.0] * n_pairs,
        np.ones(n_pairs),
    )
    # TRI (eq. 3.6) on every triple, or on the triples through s
    if s is None:
        T = _subsets(n, 3)
    else:
        others = np.delete(np.arange(n), s)
        jk = others[_subsets(n - 1, 2)]
        T = np.column_stack([np.full(jk.shape[0], s), jk])
    if T.shape[0]:
        ti, tj, tk = T[:, 0], T[:, 1], T[:, 2]
        qij, qik, qjk = pidx[ti, tj], pidx[ti, tk], pidx[tj, tk]
        m = T.shape[0]
        k3 = np.tile(np.arange(m), 4)
        one, minus = np.ones(m), -np.ones(m)
        for single, opposite, adj1, adj2 in (
            (ti, qjk, qij, qik),
            (tj, qik, qij, qjk),
            (tk, qij, qik, qjk),
        ):
            # q_single + q_opposite >= q_adj1 + q_adj2
            ub.add(
                k3,
                np.concatenate([single, opposite, adj1, adj2]),
                np.concatenate([minus, minus, one, one]),
                np.zeros(m),
            )
        # q_ij + q_ik + q_jk >= q_i + q_j + q_k - 1
        k6 = np.tile(np.arange(m), 6)
        ub.add(
            k6,
            np.concatenate([ti, tj, tk, qij, qik, qjk]),
            np.concatenate([one, one, one, minus, minus, minus]),
            np.ones(m),
        )
    problem = _Problem(theta, const, lower, upper, eq, ub, None)
    problem.check_size()

    def reader(x: np.ndarray) -> tuple[Any, Any, Any]:
        q = x[:n]
        pseudo = tuple(np.column_stack([1.0 - q, q]))
        qp = x[n:]
        qi, qj = q[pi], q[pj]
        tabs = np.stack([np.stack([1.0 - qi - qj + qp, qj - qp], 1), np.stack([qi - qp, qp], 1)], 1)
        out = dict(zip(map(tuple, pairs.tolist()), tabs, strict=True))
        return pseudo, out, _factor_marginals(model, pseudo, out)

    problem.reader = reader
    return problem
