"""Polytopes ``{x : Ax <= b}``: validation, LP checks, builders and exact lattice enumeration.

Vempala (1997) Ch. 5 counts and samples the lattice points of ``P = {x in R^n : Ax <= b}``.
This module holds the polytope itself (:class:`Polytope`), the LP checks every sampler needs
(emptiness, boundedness, a Chebyshev centre, solved by SciPy's HiGHS ``linprog``), the
builders of §5.3 (contingency tables, integral s–t flows, b-matchings) and of §5.4 (the
simplex), each written as a *full-dimensional* polytope, and an exact enumeration of
``P ∩ Z^n`` for small cases (the reference of tests and experiments).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np
from scipy.optimize import linprog

from kernelkit._validation import check_array, check_int
from kernelkit.geometry._norms import row_norms

__all__ = [
    "Polytope",
    "b_matching_polytope",
    "complete_contingency_table",
    "contingency_table_polytope",
    "enumerate_lattice_points",
    "flow_polytope",
    "simplex_polytope",
]

#: Slack allowed when checking ``Ax <= b`` at a point (relative to ``1 + |b_i|``).
TOL = 1e-9


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr = np.array(arr, dtype=np.float64)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Polytope:
    """The polytope ``P = {x in R^n : A x <= b}`` (Vempala 1997, Ch. 5).

    Parameters
    ----------
    A : array-like of shape (m, n)
        Constraint matrix, finite.
    b : array-like of shape (m,)
        Right-hand side, finite.
    offset, basis : array-like of shapes (d,) and (d, n), optional
        An affine map ``x -> offset + basis @ x`` from ``P`` to the space the polytope came
        from (set by the builders, whose polytopes parametrise a lower-dimensional set, such
        as the tables with given margins, by free coordinates); see :meth:`lift`.

    Notes
    -----
    The constructor checks shapes and finiteness only. Emptiness and boundedness need LPs;
    :meth:`is_empty`, :meth:`is_bounded` answer them, and every method that needs a bounded
    non-empty polytope (:meth:`bounding_box`, :meth:`chebyshev_ball`, the samplers and
    counters) raises a ``ValueError`` saying which of the two failed.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.geometry.polytopes import Polytope
    >>> square = Polytope(np.vstack([np.eye(2), -np.eye(2)]), [2, 2, 0, 0])
    >>> square.n_dims, square.n_constraints
    (2, 4)
    >>> centre, radius = square.chebyshev_ball()
    >>> centre.round(6).tolist(), round(radius, 6)
    ([1.0, 1.0], 1.0)
    >>> square.contains([[1, 1], [3, 0]]).tolist()
    [True, False]
    """

    A: np.ndarray
    b: np.ndarray
    offset: np.ndarray | None = None
    basis: np.ndarray | None = None

    def __post_init__(self) -> None:
        A = check_array(self.A, "A", ndim=2)
        b = check_array(self.b, "b", ndim=1)
        if b.shape[0] != A.shape[0]:
            raise ValueError(
                f"b must have one entry per row of A: A has shape {A.shape}, b has shape {b.shape}"
            )
        object.__setattr__(self, "A", _frozen(A))
        object.__setattr__(self, "b", _frozen(b))
        if (self.offset is None) != (self.basis is None):
            raise ValueError("offset and basis must be given together (or neither)")
        if self.offset is not None:
            offset = check_array(self.offset, "offset", ndim=1)
            basis = check_array(self.basis, "basis", ndim=2)
            if basis.shape != (offset.shape[0], A.shape[1]):
                raise ValueError(
                    f"basis must have shape (len(offset), n) = ({offset.shape[0]}, "
                    f"{A.shape[1]}), got {basis.shape}"
                )
            object.__setattr__(self, "offset", _frozen(offset))
            object.__setattr__(self, "basis", _frozen(basis))

    @property
    def n_dims(self) -> int:
        """Dimension ``n`` of the space."""
        return int(self.A.shape[1])

    @property
    def n_constraints(self) -> int:
        """Number ``m`` of inequalities."""
        return int(self.A.shape[0])

    def contains(self, X: Any, tol: float = TOL) -> np.ndarray:
        """Boolean mask: which rows of ``X`` (shape ``(k, n)`` or ``(n,)``) satisfy ``Ax <= b``.

        A point passes when every ``A_i x - b_i <= tol (1 + |b_i|)``.

        Parameters
        ----------
        X : array-like of shape (k, n) or (n,)
            Points (rows), or one point.
        tol : float, default TOL
            Relative slack, ``1e-9`` by default.

        Returns
        -------
        ndarray of bool of shape (k,), or bool
            Whether each row lies in the polytope; a single ``numpy.bool_`` for one point.
        """
        X = check_array(X, "X", ndim=np.ndim(X) if np.ndim(X) in (1, 2) else 2, allow_empty=True)
        single = X.ndim == 1
        X2 = X[None, :] if single else X
        if X2.shape[1] != self.n_dims:
            raise ValueError(f"X must have {self.n_dims} columns, got shape {X.shape}")
        ok = np.all(X2 @ self.A.T - self.b <= tol * (1.0 + np.abs(self.b)), axis=1)
        return ok[0] if single else ok

    @cached_property
    def _scaled(self) -> tuple[np.ndarray, np.ndarray, float, bool]:
        """``(A', b', s, infeasible)``: ``P = s {x' : A' x' <= b'}`` with unit rows ``A'``
        and ``max |b'|`` near 1, the form the LPs are solved in.

        HiGHS reads numbers from 1e20 on as infinite and works to absolute tolerances
        (1e-7), so ``{x <= 1e300}`` came back unbounded and ``{1e300 x <= 1}`` empty.
        Dividing each row by its norm and ``x`` by a power of two ``s`` (exactly) gives the
        same polytope with entries near 1. A zero row ``0 <= b_i`` is dropped, or makes
        the polytope empty (``infeasible``) when ``b_i < 0``.
        """
        norms = row_norms(self.A)
        zero = norms == 0
        infeasible = bool(np.any(self.b[zero] < 0))
        A = self.A[~zero] / norms[~zero, None]
        with np.errstate(under="ignore"):
            b = self.b[~zero] / norms[~zero]
        top = float(np.max(np.abs(b))) if b.size else 0.0
        e = int(np.frexp(top)[1]) if top > 0 else 0
        with np.errstate(under="ignore"):
            return A, np.ldexp(b, -e), float(np.ldexp(1.0, e)), infeasible

    def _lp(self, c: np.ndarray) -> Any:
        """``min c.x`` over the polytope by HiGHS, in the scaled form; ``res.x`` and
        ``res.fun`` in the original coordinates (``status`` 2: infeasible, 3: unbounded)."""
        A, b, scale, infeasible = self._scaled
        if infeasible:
            return _Infeasible()
        if A.shape[0] == 0:  # no constraint left: all of R^n
            A, b = np.zeros((1, self.n_dims)), np.zeros(1)
        res = linprog(c, A_ub=A, b_ub=b, bounds=(None, None), method="highs")
        if res.status == 0:
            res.x = res.x * scale
            res.fun = res.fun * scale
        return res

    def is_empty(self) -> bool:
        """Whether ``{Ax <= b}`` has no point (one LP).

        Returns
        -------
        bool
            ``True`` when the feasibility LP is infeasible.
        """
        return bool(self._lp(np.zeros(self.n_dims)).status == 2)

    def is_bounded(self) -> bool:
        """Whether the polytope is bounded (``2n`` LPs; an empty one counts as bounded).

        Returns
        -------
        bool
            ``True`` when every coordinate is bounded above and below on the polytope.
        """
        if self.is_empty():
            return True
        return self._box() is not None

    def _box(self) -> tuple[np.ndarray, np.ndarray] | None:
        n = self.n_dims
        lo, hi = np.empty(n), np.empty(n)
        for j in range(n):
            for sign, out in ((1.0, lo), (-1.0, hi)):
                c = np.zeros(n)
                c[j] = sign
                res = self._lp(c)
                if res.status == 3:
                    return None
                if res.status != 0:
                    raise ValueError(f"the LP for the bounding box failed: {res.message}")
                out[j] = sign * res.fun
        return lo, hi

    def check(self) -> None:
        """Raise a ``ValueError`` if the polytope is empty or unbounded."""
        self.bounding_box()

    @cached_property
    def _cached_box(self) -> tuple[np.ndarray, np.ndarray]:
        if self.is_empty():
            raise ValueError(
                "the polytope {x : Ax <= b} is empty (the LP feasibility check failed); "
                "check A and b"
            )
        box = self._box()
        if box is None:
            raise ValueError(
                "the polytope {x : Ax <= b} is unbounded (an LP over it has no finite "
                "optimum); add constraints that bound every coordinate"
            )
        return _frozen(box[0]), _frozen(box[1])

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)``: the smallest axis-parallel box holding the polytope (``2n`` LPs).

        Returns
        -------
        lo, hi : ndarray of shape (n,)
            The least and greatest value of each coordinate on the polytope (read-only,
            computed once).

        Raises
        ------
        ValueError
            For an empty or an unbounded polytope.
        """
        return self._cached_box

    @cached_property
    def _cached_ball(self) -> tuple[np.ndarray, float]:
        self.bounding_box()  # empty / unbounded -> ValueError
        n = self.n_dims
        A, b, scale, _ = self._scaled  # unit rows: |A'_i| = 1
        # max r  s.t.  A'_i x + r <= b'_i,  r >= 0   (the largest inscribed ball)
        A = np.hstack([A, np.ones((A.shape[0], 1))])
        c = np.zeros(n + 1)
        c[-1] = -1.0
        res = linprog(c, A_ub=A, b_ub=b, bounds=[(None, None)] * n + [(0, None)], method="highs")
        if res.status != 0:
            raise ValueError(f"the Chebyshev-centre LP failed: {res.message}")
        return _frozen(res.x[:n] * scale), float(res.x[-1] * scale)

    def chebyshev_ball(self) -> tuple[np.ndarray, float]:
        """Centre and radius of the largest ball inside the polytope (one LP).

        The centre is an interior point whenever the radius is positive; a radius of 0
        means the polytope is not full-dimensional.

        Returns
        -------
        centre : ndarray of shape (n,)
            The Chebyshev centre (read-only).
        radius : float
            The radius of the largest inscribed ball, ``>= 0``.

        Raises
        ------
        ValueError
            For an empty or unbounded polytope.
        """
        return self._cached_ball

    def interior_point(self) -> np.ndarray:
        """A point in the interior: the Chebyshev centre.

        Returns
        -------
        ndarray of shape (n,)
            The centre of :meth:`chebyshev_ball`.

        Raises
        ------
        ValueError
            If the polytope is empty, unbounded or not full-dimensional.
        """
        centre, radius = self.chebyshev_ball()
        if radius <= 0:
            raise ValueError(
                "the polytope has an empty interior (it is not full-dimensional: its "
                "largest inscribed ball has radius 0)"
            )
        return centre

    def lift(self, X: Any) -> np.ndarray:
        """Map points of ``P`` back through ``offset + basis @ x`` (identity without a map).

        Parameters
        ----------
        X : array-like of shape (n,) or (k, n)
            Points of ``P``.

        Returns
        -------
        ndarray of shape (d,) or (k, d)
            The lifted points (a copy of ``X``, with ``d = n``, when there is no map).
        """
        try:
            ndim = np.ndim(X)
        except ValueError:  # ragged nested lists: check_array says what is wrong
            ndim = 2
        X = check_array(X, "X", ndim=ndim if ndim in (1, 2) else 2, allow_empty=True)
        if X.shape[-1] != self.n_dims:
            raise ValueError(f"X must have {self.n_dims} columns, got shape {X.shape}")
        if self.offset is None or self.basis is None:
            return X.copy()
        return self.offset + X @ self.basis.T


class _Infeasible:
    """The answer of an LP over a polytope with a row ``0 <= b_i < 0``: infeasible."""

    status = 2
    message = "a constraint 0 <= b_i with b_i < 0 (a zero row of A) cannot hold"


#: The largest integer below which every integer is a float64: the polytopes hold floats.
_MAX_EXACT = 2**53


def _nonnegative_integers(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {arr.shape}")
    if arr.dtype == object and all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in arr
    ):  # Python integers beyond int64
        big = max(arr, key=abs)
        raise ValueError(f"{name} must hold integers up to 2**53 (exact in float64), got {big}")
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold non-negative integers, got dtype {arr.dtype}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold non-negative integers, got {arr.tolist()}")
    if np.any(arr > _MAX_EXACT):
        raise ValueError(
            f"{name} must hold integers up to 2**53 (exact in float64), got {arr.max():.6g}"
        )
    return arr.astype(np.int64)


def simplex_polytope(n_dims: int, b: float) -> Polytope:
    """The simplex ``{x in R^n : x >= 0, sum(x) <= b}`` (Vempala 1997 §5.4).

    Its volume is ``b^n / n!``; for an integer ``b`` it holds ``C(b + n, n)`` lattice
    points (⚠ the thesis's ``C(b + n - 1, n - 1)`` counts ``sum(x) = b`` instead).

    Parameters
    ----------
    n_dims : int
        Dimension ``n``, at least 1.
    b : float
        The bound on ``sum(x)``, finite and ``>= 0``.

    Returns
    -------
    Polytope
        The ``n + 1`` inequalities ``-x_i <= 0`` and ``sum(x) <= b``.

    Examples
    --------
    >>> from kernelkit.geometry.polytopes import enumerate_lattice_points, simplex_polytope
    >>> len(enumerate_lattice_points(simplex_polytope(3, 4)))  # C(7, 3)
    35
    """
    n = check_int(n_dims, "n_dims", minimum=1)
    if isinstance(b, bool) or not isinstance(b, numbers.Real) or not np.isfinite(b) or b < 0:
        raise ValueError(f"b must be a finite number >= 0, got {b!r}")
    A = np.vstack([-np.eye(n), np.ones((1, n))])
    return Polytope(A, np.r_[np.zeros(n), float(b)])


def contingency_table_polytope(row_sums: Any, col_sums: Any) -> Polytope:
    """Non-negative ``p x q`` tables with the given margins, as a full-dimensional polytope.

    The set of real tables with row sums ``r`` and column sums ``c`` lies in an affine
    subspace of dimension ``(p - 1)(q - 1)``, so it has no volume in ``R^{pq}`` and the
    volume-based counter of Vempala (1997) Ch. 5 cannot work there. As in §5.3.1 (after
    Dyer, Kannan and Mount), the equality constraints are eliminated by keeping the cells
    ``x_ij`` with ``i < p``, ``j < q`` (0-based: all but the last row and column) as free
    coordinates; the last column, last row and corner are then determined,

    ``x_iq = r_i - sum_{j<q} x_ij``,  ``x_pj = c_j - sum_{i<p} x_ij``,
    ``x_pq = c_q - sum_{i<p} r_i + sum_{i<p, j<q} x_ij``,

    and requiring all of them to be ``>= 0`` gives the ``(p - 1)(q - 1) + (p - 1) + (q - 1)
    + 1`` inequalities of the thesis. The map is unimodular (integral free cells give an
    integral table and back), so lattice points of the polytope are exactly the integer
    tables. :meth:`Polytope.lift` (or :func:`complete_contingency_table`) restores the
    full tables, flattened row by row.

    Parameters
    ----------
    row_sums, col_sums : sequences of non-negative integers
        Margins, at least two of each, with equal totals.

    Returns
    -------
    Polytope
        The polytope in the ``(p - 1)(q - 1)`` free cells, with the map to the full tables
        as ``offset`` and ``basis``.

    Examples
    --------
    >>> from kernelkit.geometry.polytopes import (
    ...     contingency_table_polytope, enumerate_lattice_points)
    >>> P = contingency_table_polytope([2, 2], [2, 2])
    >>> P.n_dims
    1
    >>> len(enumerate_lattice_points(P))  # x_11 in {0, 1, 2}
    3
    """
    r = _nonnegative_integers(row_sums, "row_sums")
    c = _nonnegative_integers(col_sums, "col_sums")
    if len(r) < 2 or len(c) < 2:
        raise ValueError(
            f"row_sums and col_sums need at least 2 entries each, got {len(r)} and {len(c)}"
        )
    if r.sum() != c.sum():
        raise ValueError(
            f"row_sums and col_sums must have equal totals, got {r.sum()} and {c.sum()}"
        )
    p, q = len(r), len(c)
    n = (p - 1) * (q - 1)
    # full table (p*q, row-major) = offset + basis @ free
    basis = np.zeros((p * q, n))
    offset = np.zeros(p * q)
    free = np.arange(n).reshape(p - 1, q - 1)
    for i in range(p - 1):
        for j in range(q - 1):
            k = free[i, j]
            basis[i * q + j, k] = 1.0
            basis[i * q + q - 1, k] = -1.0  # last column of row i
            basis[(p - 1) * q + j, k] = -1.0  # last row of column j
            basis[p * q - 1, k] = 1.0  # corner
        offset[i * q + q - 1] = r[i]
    offset[(p - 1) * q : p * q - 1] = c[:-1]
    offset[p * q - 1] = c[-1] - r[:-1].sum()
    # every cell >= 0:  -basis @ x <= offset  (rows of free cells give x >= 0)
    keep = np.any(basis != 0, axis=1)
    return Polytope(-basis[keep], offset[keep], offset=offset, basis=basis)


def complete_contingency_table(free_cells: Any, row_sums: Any, col_sums: Any) -> np.ndarray:
    """Full ``p x q`` table(s) from the free cells of :func:`contingency_table_polytope`.

    ``free_cells`` has shape ``((p-1)(q-1),)`` or ``(k, (p-1)(q-1))``; the result has shape
    ``(p, q)`` or ``(k, p, q)``.

    Parameters
    ----------
    free_cells : array-like of shape ((p-1)(q-1),) or (k, (p-1)(q-1))
        The free cells ``x_ij``, ``i < p``, ``j < q``, row by row.
    row_sums, col_sums : sequences of non-negative integers
        The margins, as in :func:`contingency_table_polytope`.

    Returns
    -------
    ndarray of float64, shape (p, q) or (k, p, q)
        The full table(s).

    Examples
    --------
    >>> from kernelkit.geometry.polytopes import complete_contingency_table
    >>> complete_contingency_table([1], [2, 3], [1, 4]).tolist()
    [[1.0, 1.0], [0.0, 3.0]]
    """
    P = contingency_table_polytope(row_sums, col_sums)
    p, q = len(np.asarray(row_sums)), len(np.asarray(col_sums))
    X = np.asarray(free_cells, dtype=np.float64)
    full = P.lift(X)
    return full.reshape((p, q) if X.ndim == 1 else (X.shape[0], p, q))


def flow_polytope(graph: Any, source: Any, sink: Any, value: float) -> Polytope:
    """Integral ``source``–``sink`` flows of a given value, as a full-dimensional polytope.

    A flow on the directed graph assigns ``0 <= x_e <= capacity_e`` to every edge with
    conservation at every vertex but the terminals, ``value`` leaving ``source`` and
    entering ``sink``. As in Vempala (1997) §5.3.2 the conservation equalities are
    eliminated with a spanning forest ``T`` of the underlying undirected graph: the flows on
    the edges outside ``T`` are the free coordinates and each tree edge carries an integer
    combination of them (plus a particular flow sending ``value`` along the tree path), so
    integral free coordinates give exactly the integral flows. :meth:`Polytope.lift` maps
    back to the flow on every edge, in the order of ``graph.edges``.

    Parameters
    ----------
    graph : networkx.DiGraph
        Every edge needs a finite non-negative ``capacity`` attribute.
    source, sink : nodes of ``graph``
        Distinct terminals.
    value : float
        Flow value, ``>= 0``.

    Returns
    -------
    Polytope
        The polytope in the co-tree flows, with the map to the flow on every edge as
        ``offset`` and ``basis``.

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.geometry.polytopes import enumerate_lattice_points, flow_polytope
    >>> G = nx.DiGraph()
    >>> G.add_edge("s", "a", capacity=2); G.add_edge("a", "t", capacity=2)
    >>> G.add_edge("s", "t", capacity=2)
    >>> P = flow_polytope(G, "s", "t", 2)
    >>> len(enumerate_lattice_points(P))  # 0, 1 or 2 units through a
    3
    """
    if not isinstance(graph, nx.DiGraph) or graph.is_multigraph():
        raise TypeError(f"graph must be a networkx.DiGraph, got {type(graph).__name__}")
    for name, node in (("source", source), ("sink", sink)):
        if node not in graph:
            raise ValueError(f"{name} {node!r} is not a node of graph")
    if source == sink:
        raise ValueError("source and sink must be different nodes")
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
        raise ValueError(f"value must be a number >= 0, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"value must be finite, got {value!r}")
    edges = list(graph.edges)
    caps = []
    for u, v in edges:
        cap = graph.edges[u, v].get("capacity")
        if cap is None or isinstance(cap, bool) or not np.isfinite(cap) or cap < 0:
            raise ValueError(
                f"every edge needs a finite capacity >= 0; edge {(u, v)!r} has capacity {cap!r}"
            )
        caps.append(float(cap))
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    M = np.zeros((len(nodes), len(edges)))  # incidence: +1 at the tail, -1 at the head
    for k, (u, v) in enumerate(edges):
        M[index[u], k] += 1.0
        M[index[v], k] -= 1.0
    d = np.zeros(len(nodes))
    d[index[source]], d[index[sink]] = value, -value
    undirected = graph.to_undirected(as_view=True)
    if value > 0 and not nx.has_path(undirected, source, sink):
        raise ValueError("source and sink are in different components: no flow of value > 0")
    forest = nx.minimum_spanning_tree(undirected)
    tree_pairs = {frozenset(e) for e in forest.edges}
    tree: list[int] = []
    for k, (u, v) in enumerate(edges):  # one directed edge per forest edge
        if frozenset((u, v)) in tree_pairs:
            tree_pairs.discard(frozenset((u, v)))
            tree.append(k)
    tree_set = set(tree)
    cotree = [k for k in range(len(edges)) if k not in tree_set]
    if not cotree:
        raise ValueError(
            "the graph has no cycle: a flow of a given value is unique, there is nothing "
            "to count (its lattice set has at most one point)"
        )
    # conservation is implied at one vertex per component; drop it so the tree block is square
    roots = {index[next(iter(comp))] for comp in nx.weakly_connected_components(graph)}
    rows = [i for i in range(len(nodes)) if i not in roots]
    MT, MC = M[np.ix_(rows, tree)], M[np.ix_(rows, cotree)]
    x_tree0 = np.linalg.solve(MT, d[rows])  # particular flow along the forest
    N_tree = -np.linalg.solve(MT, MC)  # tree flows per unit of co-tree flow (integers)
    N_tree = np.round(N_tree)
    basis = np.zeros((len(edges), len(cotree)))
    offset = np.zeros(len(edges))
    basis[tree] = N_tree
    basis[cotree, np.arange(len(cotree))] = 1.0
    offset[tree] = np.round(x_tree0, 12)
    cap = np.asarray(caps)
    # 0 <= offset + basis z <= cap
    A = np.vstack([basis, -basis])
    b = np.r_[cap - offset, offset]
    return Polytope(A, b, offset=offset, basis=basis)


def b_matching_polytope(graph: Any, b: Any) -> Polytope:
    """The b-matchings of a graph: ``x_e >= 0``, ``x(δ(v)) <= b(v)`` (Vempala §5.3.4).

    Parameters
    ----------
    graph : networkx.Graph
        Undirected, without self-loops. Coordinates follow the order of ``graph.edges``.
    b : dict or sequence
        The bound ``b(v)`` per vertex (a dict keyed by node, or one value per node in the
        order of ``graph.nodes``), each ``>= 0``.

    Returns
    -------
    Polytope
        One coordinate per edge: ``|E|`` non-negativity rows and one degree row per vertex.

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.geometry.polytopes import b_matching_polytope, enumerate_lattice_points
    >>> P = b_matching_polytope(nx.path_graph(3), [1, 1, 1])  # edges 01, 12
    >>> sorted(map(tuple, enumerate_lattice_points(P).astype(int).tolist()))
    [(0, 0), (0, 1), (1, 0)]
    """
    if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
        raise TypeError(f"graph must be an undirected networkx.Graph, got {type(graph).__name__}")
    if graph.number_of_edges() == 0:
        raise ValueError("graph has no edges: there is nothing to count")
    if nx.number_of_selfloops(graph):
        raise ValueError("graph must not have self-loops")
    nodes = list(graph.nodes)
    if isinstance(b, dict):
        missing = [v for v in nodes if v not in b]
        if missing:
            raise ValueError(f"b has no value for nodes {missing[:5]!r}")
        values = np.array([b[v] for v in nodes], dtype=np.float64)
    else:
        values = np.asarray(b, dtype=np.float64)
        if values.shape != (len(nodes),):
            raise ValueError(
                f"b must have one value per node ({len(nodes)}), got shape {values.shape}"
            )
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(f"b must hold finite values >= 0, got {values.tolist()}")
    index = {v: i for i, v in enumerate(nodes)}
    edges = list(graph.edges)
    D = np.zeros((len(nodes), len(edges)))
    for k, (u, v) in enumerate(edges):
        D[index[u], k] = D[index[v], k] = 1.0
    A = np.vstack([-np.eye(len(edges)), D])
    return Polytope(A, np.r_[np.zeros(len(edges)), values])


def enumerate_lattice_points(polytope: Polytope, *, max_points: int = 10**7) -> np.ndarray:
    """All integer points of a bounded polytope, shape ``(count, n)``, in lexicographic order.

    Coordinates are fixed one at a time over the LP bounding box (``2n`` LPs). For each
    partial point the range of the next coordinate comes from the rows of ``Ax <= b`` with
    the coordinates still free relaxed to the box, so dead branches are pruned as early as
    the box allows; the last coordinate's range is exact. Every step is vectorised over the
    partial points.

    Parameters
    ----------
    polytope : Polytope
        Bounded and non-empty (else ``ValueError``).
    max_points : int, default 10**7
        Refuse (``ValueError``, naming the size) when the partial points of one step would
        exceed this many.

    Returns
    -------
    ndarray of float64, shape (count, n)
        The lattice points, as integer-valued floats, in lexicographic order.

    Examples
    --------
    >>> from kernelkit.geometry.polytopes import enumerate_lattice_points, simplex_polytope
    >>> enumerate_lattice_points(simplex_polytope(2, 1)).astype(int).tolist()
    [[0, 0], [0, 1], [1, 0]]
    """
    if not isinstance(polytope, Polytope):
        raise TypeError(f"polytope must be a Polytope, got {type(polytope).__name__}")
    max_points = check_int(max_points, "max_points", minimum=1)
    A, b = polytope.A, polytope.b
    lo_box, hi_box = polytope.bounding_box()
    lo = np.ceil(lo_box - 1e-9 * (1 + np.abs(lo_box)))
    hi = np.floor(hi_box + 1e-9 * (1 + np.abs(hi_box)))
    n = polytope.n_dims
    with np.errstate(over="ignore"):  # a box beyond float64 is reported as inf
        box_size = float(np.prod(np.maximum(hi - lo + 1, 0)))
    slack_tol = TOL * (1.0 + np.abs(b))
    # minimum of A_i,j x_j over the box for each row and column (for the still-free part)
    box_min = np.minimum(A * lo, A * hi)
    tail_min = np.cumsum(box_min[:, ::-1], axis=1)[:, ::-1]  # tail_min[:, j] = sum_{k>=j}
    tail_min = np.hstack([tail_min, np.zeros((A.shape[0], 1))])
    points = np.zeros((1, 0))
    partial = np.zeros((1, A.shape[0]))  # A[:, :k] @ prefix
    for j in range(n):
        rest = b + slack_tol - partial - tail_min[:, j + 1]  # (k, m): bound on A_ij x_j
        a = A[:, j]
        pos, neg, zero = a > 0, a < 0, a == 0
        upper = np.full(len(points), hi[j])
        lower = np.full(len(points), lo[j])
        if pos.any():
            upper = np.minimum(upper, np.floor(np.min(rest[:, pos] / a[pos], axis=1)))
        if neg.any():
            lower = np.maximum(lower, np.ceil(np.max(rest[:, neg] / a[neg], axis=1)))
        if zero.any():
            dead = np.any(rest[:, zero] < 0, axis=1)
            upper[dead] = lower[dead] - 1
        widths = np.maximum(upper - lower + 1, 0)  # floats: may exceed int64
        total = float(widths.sum())
        if total > max_points:
            raise ValueError(
                f"enumeration would hold {total:.6g} partial points after fixing coordinate "
                f"{j + 1} of {n} (bounding box of {box_size:.3g} integer points), more than "
                f"max_points={max_points}; the polytope is too large to enumerate"
            )
        counts = widths.astype(np.int64)
        total = int(counts.sum())
        parent = np.repeat(np.arange(len(points)), counts)
        starts = np.repeat(lower - np.r_[0, np.cumsum(counts)[:-1]], counts)
        values = starts + np.arange(total)
        points = np.hstack([points[parent], values[:, None]])
        partial = partial[parent] + values[:, None] * a[None, :]
    return points
