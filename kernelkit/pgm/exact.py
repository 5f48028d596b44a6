"""Exact inference in discrete graphical models: variable elimination and a junction tree.

The exact inference problems of Rowland (2018, Defs. 1.1-1.3) on a
:class:`~kernelkit.pgm.model.DiscreteModel` with score ``s(x) = sum_E theta_E(x_E)``:

* the log partition function ``log Z = log sum_x exp(s(x))`` (:func:`exact_log_partition`);
* the marginals ``p(x_i) = sum_{x : x_i} exp(s(x)) / Z`` (:func:`exact_marginals`);
* a MAP assignment ``argmax_x s(x)`` (Def. 1.2) and its score (:func:`exact_map`).

All three run **variable elimination** in the log domain (sum-product with ``logsumexp``,
max-product with ``max`` and back-tracking of the ``argmax``) along a greedy **min-fill**
ordering (:func:`elimination_order`; the model's own variable order replaces it when that
induces smaller tables, as the row-by-row sweep of a grid does). Each step adds the
tables of the factors that touch the eliminated variable, broadcast into one table over
the union of their scopes (the *clique*), and reduces the variable's axis; the result (a
*message* over the clique minus the variable, the *separator*) joins the pool of factors.
No table over all variables is ever built: time and memory grow with the largest clique
table, ``prod(cardinalities[clique])``, i.e. exponentially in the induced width of the
ordering (16 + 1 variables for a 16 x 16 grid). Before any table is allocated, the peak
memory of the plan is estimated and :func:`kernelkit._memory.check_memory` refuses a model
that could never fit, naming the clique size (use approximate inference there). ``log Z``
keeps only the messages in flight; MAP also keeps one ``argmax`` table (small integers)
per separator; marginals keep every message (the separators' tables, summed).

Marginals use the **junction tree** that the elimination defines (Lauritzen and
Spiegelhalter 1988, recalled in Rowland's Sec. 1.3.3 with the treewidth, Def. 1.10;
Shafer-Shenoy calibration): the upward pass is the elimination itself, whose messages are kept; a
downward pass then sends each clique's belief, less the message it received from a child,
back to that child. Every clique ends with its exact belief and each variable's marginal
is read off the clique where it was eliminated. This costs about twice one elimination,
for all marginals at once, where re-running the elimination with each variable last would
cost ``n_variables`` eliminations. Every factor table and every message of this pass is
shifted to a maximum of 0 (the shifts add up into ``log Z``): the marginals need their
values only up to a constant, and so shifted they keep every difference of order 1 near
the top however large the log-potentials (``[[a, a], [a, -a]]`` has ``p(x_0 = 0) = 2/3``
for any ``a``, where ``a + log 2`` and ``a + log 3`` are both ``a`` in float64 from about
``a = 1e16``).

``log Z`` of a **layered pairwise model** (factors of at most two variables; the model's own
order splits into blocks joined only by a matching between consecutive blocks: a grid or
cylinder built row by row, a ladder, a chain) is computed by **transfer matrices**
(``kernelkit.pgm._transfer``): the same row-by-row sum, one pair of small matrix products
per block instead of one table operation per variable (an 8 x 8 grid in about 0.1 ms; a
16 x 16 grid in about 30 ms with arrays of half the largest clique table). Otherwise,
``log Z`` of a model whose largest clique table has at most ``2**12`` entries is
eliminated in the **linear domain** instead, where one ``np.einsum`` per
step multiplies the bucket and sums out the variable: every factor table is exponentiated
after subtracting its maximum and every message is divided by its maximum, the logs of the
maxima adding up to ``log Z``, so nothing overflows. Should a product's maximum fall below
``1e-250`` (strong frustration or hard constraints, where underflowed entries could
matter), the call starts again in the log domain; both agree to ``1e-12`` relative
(tested up to potentials of scale 50).

``-inf`` entries (hard constraints) are handled throughout; a model in which every
assignment is forbidden has ``log Z = -inf``, and its marginals and MAP are an error.

**Magnitude.** Every sum formed above (a clique table, a message, a score) adds at most
one entry per factor, so while every finite ``|entry|`` stays below ``2**1000 /
n_factors`` nothing can overflow, differences included. Beyond that (log-potentials near
``1e308``) the tables are scaled by a power of two ``2**-k`` first (exact; rounding
commutes with it), the elimination runs in the log domain on the scaled tables (``max``
commutes with the scale; each ``exp`` of a difference to a maximum is taken in true
units, clipped at ``-2048`` where it is 0 anyway), and the result is scaled back: the
same value as the unscaled arithmetic would give, without overflow. A ``log Z`` or MAP
score that no float64 can hold (beyond about ``+-1.8e308``) is a ``ValueError``, never an
``inf``, nor a ``-inf`` that would pass for "every assignment forbidden".

**Size.** The orderings work on neighbour bitsets (Python integers, one bit per variable
up to the farthest neighbour); large models get them from the factor scopes, not from a
dense ``n x n`` matrix, and a model whose bitsets could not fit in memory (a chain of
``10**6`` variables: about 190 GiB) is refused before they are built.

The ``brute_force_*`` functions enumerate all assignments (at most ``2**22``): they are the
reference implementations for tests on small models.

Examples
--------
>>> import networkx as nx
>>> from kernelkit.pgm import ising
>>> m = ising(nx.grid_2d_graph(3, 3), fields=0.1, couplings=0.5, spins="pm1")
>>> bool(abs(exact_log_partition(m) - brute_force_log_partition(m)) < 1e-12)
True
>>> r = exact_map(m)
>>> r.assignment.tolist(), round(r.score, 6)
([1, 1, 1, 1, 1, 1, 1, 1, 1], 6.9)
"""

from __future__ import annotations

import heapq
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit import _memory
from kernelkit.pgm._guards import InfeasibleModelError, beyond_range_error, sum_scale_exponent
from kernelkit.pgm._transfer import transfer_log_partition, transfer_plan
from kernelkit.pgm.model import DiscreteModel, Factor, _check_model

__all__ = [
    "BRUTE_FORCE_LIMIT",
    "EliminationOrder",
    "MAPResult",
    "Marginals",
    "brute_force_log_partition",
    "brute_force_map",
    "brute_force_marginals",
    "elimination_order",
    "exact_log_partition",
    "exact_map",
    "exact_marginals",
]

#: The most assignments the ``brute_force_*`` references enumerate.
BRUTE_FORCE_LIMIT = 2**22
_CHUNK = 2**15  # assignments scored at a time by the brute-force references


@dataclass(frozen=True)
class EliminationOrder:
    """A variable elimination ordering and the sizes it induces.

    Attributes
    ----------
    order : ndarray of int, shape (n_variables,)
        The variable indices in the order they are eliminated.
    heuristic : {"min-fill", "natural"}
        Where the ordering comes from: greedy min-fill, or the model's own variable order
        when that induces smaller tables (see :func:`elimination_order`).
    max_clique_size : int
        The most variables in one clique (the union of the scopes combined at one step,
        the eliminated variable included); 0 for a model without variables.
    induced_width : int
        ``max_clique_size - 1``, the treewidth-like size of the ordering (an upper bound
        on the treewidth of the model's interaction graph).
    max_table_size : int
        The most entries of one clique table, ``prod(cardinalities[clique])``.
    total_table_size : int
        The entries of all clique tables together (the work of one elimination).
    """

    order: np.ndarray
    heuristic: str
    max_clique_size: int
    induced_width: int
    max_table_size: int
    total_table_size: int


@dataclass(frozen=True)
class Marginals:
    """Exact single-variable marginals.

    Attributes
    ----------
    marginals : list of ndarray
        ``marginals[i][k] = p(x_i = k)``, one array of length ``cardinalities[i]`` per
        variable, each summing to 1.
    log_partition : float
        ``log Z``.
    """

    marginals: list[np.ndarray]
    log_partition: float


@dataclass(frozen=True)
class MAPResult:
    """A maximum a posteriori (highest score) assignment.

    Attributes
    ----------
    assignment : ndarray of int, shape (n_variables,)
        One value per variable, achieving the highest score.
    score : float
        Its score ``sum_E theta_E(x_E)`` (``model.score(assignment)``).
    """

    assignment: np.ndarray
    score: float


# -- the ordering ----------------------------------------------------------------------------


def elimination_order(model: DiscreteModel) -> EliminationOrder:
    """A greedy min-fill elimination ordering and the clique sizes it induces.

    At each step the variable whose elimination adds the fewest edges between its
    neighbours in the interaction graph (the *fill*) is eliminated; ties go to the
    smallest clique table, then to the smallest variable index, so the ordering is
    deterministic. Greedy min-fill is not optimal on every graph (on an ``L x L`` grid
    it reaches a width of about ``1.4 L`` where the treewidth is ``L``), so the model's
    own variable order is also tried, and kept when its largest clique table (then its
    total work) is smaller: for grids built row by row that is the width-``L``
    sweep.

    Parameters
    ----------
    model : DiscreteModel
        The model (only its cardinalities and factor scopes are used).

    Returns
    -------
    EliminationOrder
        The ordering, where it comes from, its largest clique (``max_clique_size``,
        ``induced_width``) and the entries of its clique tables.

    Raises
    ------
    TypeError
        If ``model`` is not a DiscreteModel.
    ValueError
        If the interaction graph's neighbour bitsets could not fit in memory (the
        message gives the estimate): use approximate inference.

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm import ising
    >>> e = elimination_order(ising(nx.grid_2d_graph(4, 4)))
    >>> e.order.shape, e.heuristic, e.induced_width, e.max_table_size
    ((16,), 'min-fill', 4, 32)
    >>> e = elimination_order(ising(nx.grid_2d_graph(16, 16)))
    >>> e.heuristic, e.induced_width, e.max_table_size
    ('natural', 16, 131072)
    """
    _check_model(model)
    return _choose_order(model, limit=None)[0]


def _bits(x: int) -> list[int]:
    """The indices of the set bits of ``x``, ascending."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


#: Models of at most this many variables get their neighbour bitsets from a dense boolean
#: matrix (``n**2`` bytes, at most 4 MiB: the fastest way); larger ones row by row from the
#: factor scopes, in memory proportional to the bitsets themselves (a dense matrix for
#: ``10**6`` variables would take 931 GiB).
_DENSE_ADJACENCY = 2048


def _edges(model: DiscreteModel) -> tuple[np.ndarray, np.ndarray]:
    """The interaction graph's edges ``(u[e], v[e])``, each in both directions (repeated
    when several factors share it), from the stacked scopes with no loop over factors."""
    us: list[np.ndarray] = []
    vs: list[np.ndarray] = []
    for g in model.groups():
        s = g.scopes
        for a in range(s.shape[1]):
            for b in range(s.shape[1]):
                if a != b:
                    us.append(s[:, a])
                    vs.append(s[:, b])
    if not us:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(us), np.concatenate(vs)


def _adjacency(n: int, u: np.ndarray, v: np.ndarray) -> list[int]:
    """Neighbour bitsets of ``n`` vertices: bit ``v[e]`` of row ``u[e]`` for every edge."""
    if n <= _DENSE_ADJACENCY:
        A = np.zeros((n, n), dtype=bool)
        A[u, v] = True
        return _bitsets(A)
    rows = [0] * n
    if u.size == 0:
        return rows
    at = np.lexsort((v, u))
    u, v = u[at], v[at]
    starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
    ends = np.r_[starts[1:], u.size]
    one = np.uint8(1)
    for r, a, b in zip(u[starts].tolist(), starts.tolist(), ends.tolist(), strict=True):
        p = v[a:b]  # ascending
        buf = np.zeros(int(p[-1]) // 8 + 1, dtype=np.uint8)
        np.bitwise_or.at(buf, p >> 3, np.left_shift(one, (p & 7).astype(np.uint8)))
        rows[r] = int.from_bytes(buf.tobytes(), "little")
    return rows


def _bitset_bytes(n: int, u: np.ndarray, v: np.ndarray) -> int:
    """About the bytes of :func:`_adjacency` ``(n, u, v)`` built row by row: a list of
    ``n`` Python ints, each as long as its highest bit (30 bits per 4 bytes, plus a
    28-byte header)."""
    if u.size == 0:
        return 8 * n
    hi = np.full(n, -1, dtype=np.int64)
    np.maximum.at(hi, u, v)
    hi = hi[hi >= 0]
    return 8 * n + 28 * int(hi.size) + 4 * int(((hi + 30) // 30).sum())


def _check_bitset_memory(model: DiscreteModel, n_bytes: int) -> None:
    """Refuse a model whose ordering's neighbour bitsets could never fit in memory."""
    _memory.check_memory(
        n_bytes,
        f"elimination ordering of {model!r}: the interaction graph's neighbour bitsets "
        "(one bit per variable up to each variable's farthest neighbour, in the natural "
        "and the min-fill order)",
        "the model has too many variables for exact inference: use approximate inference "
        "(loopy belief propagation, mean field or Gibbs sampling) instead",
    )


def _bitsets(A: np.ndarray) -> list[int]:
    """The rows of a boolean matrix as integers (bit ``j`` of row ``i`` is ``A[i, j]``)."""
    n = A.shape[0]
    if n == 0:
        return []
    rows = np.packbits(A, axis=1, bitorder="little")
    w = rows.shape[1]
    raw = rows.tobytes()
    return [int.from_bytes(raw[v * w : (v + 1) * w], "little") for v in range(n)]


def _min_fill(
    adj: list[int], cards: list[int], limit: int | None, beat: tuple[int, int] | None = None
) -> list[int]:
    """Greedy min-fill ordering on neighbour bitsets (``adj`` is consumed). With a
    ``limit`` (table entries), stop right after choosing a variable whose clique table
    exceeds it. With ``beat = (max_table, total)`` (another ordering's), also stop once
    the ordering can no longer be better: its largest table so far equals ``max_table``
    and its work so far exceeds ``total``.

    The keys ``(fill, clique table entries, index)`` are kept up to date incrementally:
    eliminating ``v`` first joins its neighbours pairwise (a fill edge ``ab`` adds to the
    fill of ``a`` the neighbours of ``a`` that ``b`` lacks, and the other way round, and
    removes one from each common neighbour of ``a`` and ``b``), then removes ``v`` (each
    neighbour ``u`` loses the pairs of ``v`` with its neighbours outside ``v``'s, i.e.
    ``deg(u) - deg(v)`` of them once ``u`` has lost ``v``).
    """
    n = len(adj)
    fill = [0] * n
    size = [0] * n
    for u in range(n):
        nb = adj[u]
        f, t = 0, cards[u]
        for a in _bits(nb):
            f += (nb & ~adj[a]).bit_count() - 1  # ``a`` itself is not in adj[a]
            t *= cards[a]
        fill[u], size[u] = f // 2, t
    heap = [(fill[u], size[u], u) for u in range(n)]
    heapq.heapify(heap)
    alive = [True] * n  # (a list: an n-bit integer costs O(n) per update)
    order: list[int] = []
    big, work = 0, 0
    while heap:
        f, t, v = heapq.heappop(heap)
        if not alive[v] or f != fill[v] or t != size[v]:
            continue  # a stale entry
        order.append(v)
        if limit is not None and t > limit:
            break
        big, work = max(big, t), work + t
        if beat is not None and big >= beat[0] and work > beat[1]:
            break
        alive[v] = False
        nb = adj[v]
        if not nb:  # no neighbours: nothing changes
            continue
        vb = 1 << v
        nbl = _bits(nb)
        changed = nb
        for a in nbl:
            miss = ((nb & ~adj[a]) >> (a + 1)) << (a + 1)  # fill edges ab, b > a
            while miss:
                low = miss & -miss
                miss ^= low
                b = low.bit_length() - 1
                aa, ab = adj[a], adj[b]
                fill[a] += (aa & ~ab).bit_count()
                fill[b] += (ab & ~aa).bit_count()
                common = aa & ab & ~vb
                changed |= common
                while common:
                    low = common & -common
                    common ^= low
                    fill[low.bit_length() - 1] -= 1
                adj[a], adj[b] = aa | (1 << b), ab | (1 << a)
                size[a] *= cards[b]
                size[b] *= cards[a]
        d = len(nbl)
        for u in nbl:
            au = adj[u] & ~vb
            adj[u] = au
            fill[u] -= au.bit_count() + 1 - d
            size[u] //= cards[v]
        adj[v] = 0
        while changed:
            low = changed & -changed
            changed ^= low
            u = low.bit_length() - 1
            if alive[u]:
                heapq.heappush(heap, (fill[u], size[u], u))
    return order


@dataclass
class _Symbolic:
    """The elimination along one ordering, in positions ``0 .. n-1`` of the ordering."""

    max_clique: int
    max_table: int
    total: int
    ok: bool  # every clique table within the limit
    peak: int  # bytes of the log Z elimination: messages in flight + clique + 2 separators
    separators: list[int]  # bitset of the positions in each step's separator (ascending)


def _cost(rows: list[int], cp: list[int], limit: int | None) -> _Symbolic:
    """Largest clique (variables), largest and total table entries of eliminating along
    an ordering, given the neighbour bitsets ``rows`` relabelled to positions in it and the
    cardinalities ``cp`` in its order; stops once a table exceeds ``limit``.

    Symbolic elimination on the elimination tree: the separator of step ``i`` is the set
    of its later neighbours in the filled graph; it is passed on, less itself, to its
    earliest member (the step that consumes the message), so each step costs a few bitset
    operations.
    """
    n = len(rows)
    uniform = cp[0] if cp and min(cp) == max(cp) else 0
    release = [0] * (n + 1)  # message bytes consumed at each step
    seps = [(r >> (i + 1)) << (i + 1) for i, r in enumerate(rows)]  # the later neighbours
    max_clique = max_table = total = live = peak = 0
    for i in range(n):
        s = seps[i]
        k = s.bit_count()
        if uniform:
            sep = uniform**k
        else:
            sep = 1
            for u in _bits(s):
                sep *= cp[u]
        size = cp[i] * sep
        max_clique, max_table = max(max_clique, k + 1), max(max_table, size)
        total += size
        if limit is not None and size > limit:
            return _Symbolic(max_clique, max_table, total, False, peak, seps)
        live -= release[i]
        peak = max(peak, live + 8 * size + 16 * sep)
        live += 8 * sep
        if s:
            low = s & -s
            p = low.bit_length() - 1
            seps[p] |= s ^ low
            release[p] += 8 * sep
    return _Symbolic(max_clique, max_table, total, True, peak, seps)


class _Remembered:
    """The values made for the last ``size`` keys asked for (least recently used out;
    ``None`` values too), safe across threads; the values must be read-only."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        """The value remembered for ``key``, else ``make()`` (remembered)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


#: The last orderings chosen, by (limit, cardinalities, scopes), and the last transfer
#: plans, by (cardinalities, scopes): both depend on the factor graph only, and models of
#: one graph (runs of an experiment, a tilted copy per potential, repeated queries) are
#: common.
_ORDERS_SIZE = 32
_ORDERS = _Remembered(_ORDERS_SIZE)
_TRANSFER_PLANS = _Remembered(_ORDERS_SIZE)


def _structure_key(model: DiscreteModel) -> tuple[Any, ...]:
    """What identifies a model's factor graph: its cardinalities and factor scopes."""
    return (
        model.cardinalities.tobytes(),
        tuple((g.scopes.shape, g.scopes.tobytes()) for g in model.groups()),
    )


def _choose_order(
    model: DiscreteModel, limit: int | None, key: tuple[Any, ...] | None = None
) -> tuple[EliminationOrder, list[int], _Symbolic]:
    """The better (smaller largest table, then total) of the natural order and min-fill,
    the ordering as a list, and its symbolic elimination (``.ok``: within ``limit``);
    remembered for the last ``_ORDERS_SIZE`` factor graphs (the results are read-only).
    ``key``: the model's :func:`_structure_key`, when the caller has it."""

    def make() -> tuple[EliminationOrder, list[int], _Symbolic]:
        res = _compute_order(model, limit)
        res[0].order.flags.writeable = False
        return res

    return _ORDERS.get((limit, *(key or _structure_key(model))), make)


def _compute_order(
    model: DiscreteModel, limit: int | None
) -> tuple[EliminationOrder, list[int], _Symbolic]:
    """:func:`_choose_order` without the memory.

    Min-fill is abandoned as soon as it picks a table larger than the natural order's
    largest one (it could only lose then).

    The interaction graph is held as neighbour bitsets (Python integers), built without
    a dense ``n x n`` matrix for large models; their memory is estimated, and a model
    whose bitsets could never fit is refused, before they are built.
    """
    cards = [int(c) for c in model.cardinalities]
    n = model.n_variables
    u, v = _edges(model)
    big = n > _DENSE_ADJACENCY
    if big:  # the natural order's bitsets, min-fill's copy of them and their separators
        natural_bytes = _bitset_bytes(n, u, v)
        _check_bitset_memory(model, 3 * natural_bytes)
    base = _adjacency(n, u, v)
    natural = list(range(n))
    nat = _cost(base, cards, limit)
    if nat.ok:
        min_fill = _min_fill(base, cards, nat.max_table, (nat.max_table, nat.total))
    else:
        min_fill = _min_fill(base, cards, limit)
    del base  # (consumed by _min_fill)
    best = ("natural", natural, nat)
    if len(min_fill) == n or not nat.ok:
        # A partial ordering stopped at a table over the limit: its cliques so far do not
        # depend on how the remaining variables would follow.
        rest = sorted(set(natural).difference(min_fill)) if len(min_fill) < n else []
        full = min_fill + rest
        if full == natural:
            mf = nat  # the same ordering: the same cliques
        else:
            pos = np.empty(n, dtype=np.int64)
            pos[full] = np.arange(n)
            if big:  # the natural order's separators, and these bitsets and separators
                _check_bitset_memory(model, natural_bytes + 2 * _bitset_bytes(n, pos[u], pos[v]))
            mf = _cost(_adjacency(n, pos[u], pos[v]), [cards[w] for w in full], limit)
        if (not mf.ok, mf.max_table, mf.total) <= (not nat.ok, nat.max_table, nat.total):
            best = ("min-fill", min_fill, mf)  # ties go to min-fill
    name, order, sym = best
    clique = sym.max_clique
    return (
        EliminationOrder(
            np.array(order, dtype=np.int64),
            name,
            clique,
            max(clique - 1, 0),
            sym.max_table,
            sym.total,
        ),
        order,
        sym,
    )


# -- the elimination plan --------------------------------------------------------------------


@dataclass
class _Step:
    var: int
    clique: tuple[int, ...]  # sorted by elimination position: ``var`` first
    shape: tuple[int, ...]
    inputs: list[tuple[int, tuple[int, ...], tuple[int, ...]]]  # (item, perm, broadcast shape)


@dataclass
class _Plan:
    steps: list[_Step]
    n_factors: int
    roots: list[int]  # items left with an empty scope at the end (their sum is the result)
    parent: dict[int, int]  # message item -> the step that consumed it


def _plan(model: DiscreteModel, mode: str) -> _Plan:
    """The symbolic elimination along :func:`elimination_order`, after the memory check."""
    chosen, _, sym = _choose_order(model, limit=_memory.memory_limit() // 8)
    ok = sym.ok
    if not ok:  # stopped at a clique table that alone exceeds the memory
        _check_plan_memory(model, chosen, 8 * chosen.max_table_size, mode, partial=True)
    order = [int(v) for v in chosen.order]
    cards = [int(c) for c in model.cardinalities]
    pos = {v: i for i, v in enumerate(order)}
    n_factors = len(model.factors)
    scopes: dict[int, tuple[int, ...]] = {k: f.scope for k, f in enumerate(model.factors)}
    touching: list[set[int]] = [set() for _ in range(model.n_variables)]
    for k, f in enumerate(model.factors):
        for v in f.scope:
            touching[v].add(k)
    steps: list[_Step] = []
    parent: dict[int, int] = {}
    live_bytes = stored_bytes = peak = 0
    for i, v in enumerate(order):
        items = sorted(touching[v])
        clique = tuple(sorted({v}.union(*(scopes[k] for k in items)), key=pos.__getitem__))
        shape = tuple(cards[u] for u in clique)
        where = {u: j for j, u in enumerate(clique)}
        inputs = []
        for k in items:
            sc = scopes[k]
            at = [where[u] for u in sc]
            perm = tuple(sorted(range(len(at)), key=at.__getitem__))
            bshape = [1] * len(clique)
            for u in sc:
                bshape[where[u]] = cards[u]
            inputs.append((k, perm, tuple(bshape)))
            for u in sc:
                touching[u].discard(k)
            if k >= n_factors:
                parent[k] = i
                live_bytes -= 8 * math.prod(cards[u] for u in sc)
        sep = clique[1:]
        sep_bytes = 8 * math.prod(cards[u] for u in sep)
        clique_bytes = 8 * math.prod(shape)
        # live messages + the clique table + max / sum (or argmax) over the separator
        peak = max(peak, live_bytes + stored_bytes + clique_bytes + 2 * sep_bytes)
        if mode == "marginals":  # every message is kept, the downward pass adds one per step
            stored_bytes += 2 * sep_bytes
            peak = max(peak, stored_bytes + 2 * clique_bytes)
        elif mode == "map":  # the argmax tables (small integers) are kept for back-tracking
            stored_bytes += sep_bytes // 8 * np.min_scalar_type(cards[v] - 1).itemsize
            live_bytes += sep_bytes
        else:
            live_bytes += sep_bytes
        item = n_factors + i
        scopes[item] = sep
        for u in sep:
            touching[u].add(item)
        steps.append(_Step(v, clique, shape, inputs))
    _check_plan_memory(model, chosen, peak, mode)
    roots = sorted(k for k, sc in scopes.items() if not sc and k not in parent)
    return _Plan(steps, n_factors, roots, parent)


def _check_plan_memory(
    model: DiscreteModel, chosen: EliminationOrder, peak: int, mode: str, partial: bool = False
) -> None:
    """Raise (through :func:`kernelkit._memory.check_memory`) if ``peak`` bytes exceed the
    memory, naming the ordering's largest clique."""
    if peak <= _memory.memory_limit():  # (the message below costs more than the check)
        return
    what = {"log_partition": "log Z", "marginals": "marginals", "map": "MAP"}[mode]
    least = "at least " if partial else ""  # the orderings were abandoned at that clique
    _memory.check_memory(
        peak,
        f"exact inference ({what}) on {model!r} by variable elimination: its best ordering "
        f"({chosen.heuristic}) has a clique of {least}{chosen.max_clique_size} "
        f"variable{'' if chosen.max_clique_size == 1 else 's'} "
        f"(induced width {least}{chosen.induced_width}, a table of {least}"
        f"{chosen.max_table_size} entries, {_memory.format_bytes(8 * chosen.max_table_size)})",
        "the model's treewidth is too large for exact inference: use approximate inference "
        "(loopy belief propagation, mean field or Gibbs sampling) instead",
    )


def _expand(table: np.ndarray, perm: tuple[int, ...], bshape: tuple[int, ...]) -> np.ndarray:
    """A factor table as a broadcastable view over a clique."""
    if perm != tuple(range(len(perm))):
        table = table.transpose(perm)
    return table.reshape(bshape)


def _factor_tables(model: DiscreteModel) -> list[np.ndarray]:
    """The factors' tables, by factor index (the first items of a plan)."""
    return [f.table for f in model.factors]


def _shifted_factor_tables(model: DiscreteModel) -> tuple[list[np.ndarray], float]:
    """Each factor's table less its maximum, and the sum of the maxima (``-inf`` when a
    table is all ``-inf``: every assignment is forbidden; the tables are then unusable).

    Sums of shifted tables keep every ``O(1)`` difference near their top however large
    the log-potentials: ``[[a, a], [a, -a]]`` with ``a = 1e20`` has three top assignments
    (``p(x_0 = 0) = 2/3``), which ``a + log 2`` and ``a + log 3``, both ``a`` in float64,
    no longer tell apart."""
    tables: list[np.ndarray] = [np.empty(0)] * len(model.factors)
    offset = 0.0
    for g in model.groups():
        t = g.tables
        mx = t.reshape(len(t), -1).max(axis=1)
        if mx.min() == -np.inf:
            return tables, -np.inf
        offset += float(mx.sum())
        shifted = t - mx.reshape((-1,) + (1,) * (t.ndim - 1))
        for j, k in enumerate(g.index.tolist()):
            tables[k] = shifted[j]
    return tables, offset


def _shift_to_top(msg: np.ndarray) -> tuple[np.ndarray, float]:
    """A message less its maximum (in place) and that maximum (0 when it is ``-inf``)."""
    top = float(msg.max())
    if top == -np.inf:
        return msg, 0.0
    msg -= top
    return msg, top


def _combine(
    step: _Step, tables: dict[int, np.ndarray], factors: list[np.ndarray], extra: Any = None
) -> np.ndarray:
    """The sum of a step's input tables over its clique (read-only: may be a view);
    ``factors``: the factor tables by index, ``tables``: the messages by item.

    The small inputs are added first, over the union of their own axes, so that the
    clique-sized table is written once: ``largest + (sum of the others)``.
    """
    n_factors = len(factors)
    views = [
        _expand(factors[k] if k < n_factors else tables[k], perm, bshape)
        for k, perm, bshape in step.inputs
    ]
    if extra is not None:
        views.append(extra)
    if not views:
        return np.zeros(step.shape)
    views.sort(key=lambda t: t.size, reverse=True)
    size = math.prod(step.shape)
    large = [t for t in views[1:] if 16 * t.size > size]
    small = [t for t in views[1:] if 16 * t.size <= size]
    out = views[0]
    for t in large:
        out = _add_in_layout(out, t)
    if small:
        rest = small[0]
        if len(small) > 1:
            rest = np.zeros([max(t.shape[j] for t in small) for j in range(len(step.shape))])
            for t in small:
                rest += t
        out = _add_in_layout(out, rest)
    if out.shape != step.shape:
        out = np.broadcast_to(out, step.shape)
    return out


def _add_in_layout(big: np.ndarray, rest: np.ndarray, op: Any = np.add) -> np.ndarray:
    """``op(big, rest)`` (broadcast; default ``+``), computed in the memory layout of ``big``.

    Broadcasting a small table against a many-axis one is slow in C order when the
    innermost axes are ones the big table lacks (inner loops of length 2). Here the axes
    ``big`` lacks come first and its own axes follow in its memory order, so the inner
    loops run over its contiguous data; the result is that array, transposed back (a
    view with the clique's axis order).
    """
    covered = [j for j in range(big.ndim) if big.shape[j] != 1]
    layout = [j for j in range(big.ndim) if big.shape[j] == 1]
    layout += sorted(covered, key=lambda j: -big.strides[j])
    if big.size < 4096 or layout == list(range(big.ndim)):
        return op(big, rest)
    inverse = [0] * len(layout)
    for q, j in enumerate(layout):
        inverse[j] = q
    return op(big.transpose(layout), rest.transpose(layout)).transpose(inverse)


def _logsumexp_first(acc: np.ndarray) -> np.ndarray:
    """``log sum exp`` over axis 0 (not modifying ``acc``); all ``-inf`` gives ``-inf``.

    Works on the slices ``acc[k]``: ``m = max_k acc[k]``, then ``m + log sum_k exp(acc[k] -
    m)``; for two values ``m + log1p(exp(min - m))``, one ``exp`` per separator entry.
    """
    n = acc.shape[0]
    if n == 1:
        return np.array(acc[0])
    if acc.ndim == 1:  # keep the slices arrays (ufuncs on 0-d arrays give scalars)
        return _logsumexp_first(acc[:, None]).reshape(())
    m = np.maximum(acc[0], acc[1])
    for k in range(2, n):
        np.maximum(m, acc[k], out=m)
    empty = np.isneginf(m) if m.min() == -np.inf else None  # hard constraints
    if empty is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            return _logsumexp_slices(acc, m, empty)
    return _logsumexp_slices(acc, m, None)


def _logsumexp_slices(acc: np.ndarray, m: np.ndarray, empty: np.ndarray | None) -> np.ndarray:
    n = acc.shape[0]
    if n == 2:
        s = np.minimum(acc[0], acc[1])
        s -= m
        np.exp(s, out=s)
        np.log1p(s, out=s)
        if empty is not None:
            s[empty] = 0.0  # then m = -inf there: the result is -inf
    else:
        if empty is not None:  # shift the all -inf entries by 0 instead
            m = np.where(empty, 0.0, m)
        s = np.zeros(m.shape)
        for k in range(n):
            t = acc[k] - m
            np.exp(t, out=t)
            s += t
        np.log(s, out=s)
    s += m
    return s


def _max_first(acc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``max`` and ``argmax`` (the first maximiser, as a small integer type) over axis 0,
    on the slices ``acc[k]``."""
    if acc.ndim == 1:
        best, arg = _max_first(acc[:, None])
        return best.reshape(()), arg.reshape(())
    best = np.array(acc[0])
    arg = np.zeros(best.shape, dtype=np.min_scalar_type(acc.shape[0] - 1))
    for k in range(1, acc.shape[0]):
        better = acc[k] > best
        arg[better] = k
        np.maximum(best, acc[k], out=best)
    return best, arg


def _logsumexp_axes(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``log sum exp`` over ``axes``, one axis at a time (:func:`_logsumexp_first` on each:
    elementwise work on slices, in the array's memory layout, for any strides)."""
    for a in sorted(axes, reverse=True):
        x = _logsumexp_first(np.moveaxis(x, a, 0))
    return x


def _logsumexp(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    """``log sum exp`` over ``axis`` (non-destructive); all ``-inf`` gives ``-inf``."""
    if not axis:
        return x
    m = x.max(axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.exp(x - m).sum(axis=axis, keepdims=True)) + m
    return out.reshape([d for j, d in enumerate(x.shape) if j not in axis])


def _root_total(plan: _Plan, tables: dict[int, np.ndarray], factors: list[np.ndarray]) -> float:
    total = 0.0
    for k in plan.roots:
        t = factors[k] if k < plan.n_factors else tables[k]
        total += float(t)
    return total


def _upward(
    model: DiscreteModel,
    plan: _Plan,
    keep: bool,
    exponent: int = 0,
    shifted: tuple[list[np.ndarray], float] | None = None,
) -> tuple[float, dict[int, np.ndarray]]:
    """Sum-product elimination; returns ``log Z`` and the messages (all of them if
    ``keep``, else only the scalar ones). With an ``exponent``, ``model`` is scaled by
    ``2**-exponent`` (:func:`_scaled`) and so are ``log Z`` and the messages. With
    ``shifted`` (:func:`_shifted_factor_tables` of the model), the elimination runs on
    the shifted tables and every message is shifted to a maximum of 0 (its values are
    then exact up to a constant, as marginals need); the shifts add up into ``log Z``."""
    tables: dict[int, np.ndarray] = {}
    factors, offset = shifted if shifted is not None else (_factor_tables(model), 0.0)
    for i, step in enumerate(plan.steps):
        acc = _combine(step, tables, factors)
        if not keep:
            for k, _, _ in step.inputs:
                tables.pop(k, None)
        if exponent:
            msg = _logsumexp_scaled(acc, (0,), exponent)
        else:
            msg = _logsumexp_first(acc)
        if shifted is not None and msg.ndim:
            msg, top = _shift_to_top(msg)
            offset += top
        tables[plan.n_factors + i] = msg
    return _root_total(plan, tables, factors) + offset, tables


# -- log-potentials near 1e308 ---------------------------------------------------------------
#
# Sums of one entry per factor (clique tables, messages, scores) stay below 2**1000 when
# every |entry| is below ``_guards.sum_limit(n_factors)``, and then the arithmetic above
# cannot overflow (differences of two such sums included). Otherwise the tables are scaled
# by ``2**-exponent`` (``_guards.sum_scale_exponent``; exact, and rounding commutes with
# it), max-product runs unchanged, and sum-product takes the ``exp`` of each difference to
# a maximum in true units: at most 0 there, and 0 in float64 below -2048, so clipping it
# at -2048 first keeps ``difference * 2**exponent`` finite and changes nothing.

_EXP_FLOOR = 2048.0  # exp(-x) is 0 in float64 for x beyond about 745
_FLOAT_MAX = float(np.finfo(np.float64).max)


def _scaled(model: DiscreteModel, exponent: int) -> DiscreteModel:
    """The model with every table times ``2**-exponent`` (exact, barring the underflow of
    entries below ``2**(exponent - 1074)``): the same factor graph, hence the same
    (remembered) ordering."""
    with np.errstate(under="ignore"):
        factors = [Factor(f.scope, np.ldexp(f.table, -exponent)) for f in model.factors]
    return DiscreteModel(model.cardinalities.tolist(), factors)


def _exp_scaled(d: np.ndarray, exponent: int) -> np.ndarray:
    """``exp(d * 2**exponent)`` for ``d <= 0`` (a difference to a maximum, in units of
    ``2**exponent``), with ``d * 2**exponent`` clipped at ``-2048`` (its ``exp`` is 0
    either way) so that it cannot overflow."""
    d = np.maximum(d, -math.ldexp(_EXP_FLOOR, -exponent))
    return np.exp(np.ldexp(d, exponent))


def _logsumexp_scaled(x: np.ndarray, axes: tuple[int, ...], exponent: int) -> np.ndarray:
    """:func:`_logsumexp` over ``axes`` (non-negative) of ``x * 2**exponent``, returned in
    units of ``2**exponent`` as ``x`` is; all ``-inf`` gives ``-inf``. ``x - max`` must
    not overflow (entries below ``2**1022`` in magnitude)."""
    if not axes:
        return x
    m = x.max(axis=axes, keepdims=True)
    empty = np.isneginf(m)
    m = np.where(empty, 0.0, m)
    s = _exp_scaled(x - m, exponent).sum(axis=axes, keepdims=True)
    s[empty] = 1.0
    out = m + np.ldexp(np.log(s), -exponent)
    out[empty] = -np.inf
    return out.reshape([d for j, d in enumerate(x.shape) if j not in axes])


def _unscaled(value: float, exponent: int, what: str) -> float:
    """``value * 2**exponent``; a ValueError naming ``what`` when that is beyond the
    float64 range (``-inf``, every assignment forbidden, stays ``-inf``)."""
    if not exponent or not math.isfinite(value):
        return value
    try:
        return math.ldexp(value, exponent)
    except OverflowError:
        raise beyond_range_error(what) from None


# -- log Z in the linear domain --------------------------------------------------------------

_LABELS = 52  # np.einsum's axis labels
_MAX_OPERANDS = 32


def _product(items: list[tuple[np.ndarray, list[int]]]) -> tuple[np.ndarray, list[int]]:
    """The product of tables over the union of their axes' positions (ascending)."""
    union = sorted(set().union(*(ps for _, ps in items)))
    where = {p: j for j, p in enumerate(union)}
    operands: list[Any] = []
    for table, ps in items:
        operands += (table, [where[p] for p in ps])
    return np.einsum(*operands, list(range(len(union)))), union


#: Largest clique table for the linear-domain path: beyond it np.einsum's multi-operand
#: loop is slower than the log-domain elimination and allocates more than the clique.
_LINEAR_MAX_TABLE = 2**12
_TINY = 1e-250  # a product's maximum below this (inputs scaled to 1): use the log domain


def _linear_log_partition(model: DiscreteModel, order: list[int], sym: _Symbolic) -> float | None:
    """``log Z`` by sum-product elimination in the linear domain, with rescaling.

    Each factor table is exponentiated after subtracting its maximum (the maxima add up
    in ``log_scale``), so entries lie in ``[0, 1]`` and ``-inf`` becomes an exact zero.
    Each step multiplies the tables of its bucket and sums out its variable in one
    ``np.einsum`` (which never builds the clique table); the message is divided by its
    maximum, whose log joins ``log_scale``: nothing overflows. What underflows (entries
    below ``1e-308`` of their table's maximum) adds at most ``1e-308`` per clique entry
    to a step's sum; that is negligible as long as the product's maximum stays far above
    it. When a product's maximum falls below ``1e-250`` (tables whose large entries are
    forbidden or tiny in the others: strong frustration, hard constraints, or an
    infeasible model), return ``None``: the caller then eliminates in the log domain.
    """
    n = len(order)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    cp = [int(model.cardinalities[v]) for v in order]
    log_scale = 0.0
    # bucket i: (table, positions of its axes) of the factors first eliminated at step i
    buckets: list[list[tuple[np.ndarray, list[int]]]] = [[] for _ in range(n)]
    for g in model.groups():
        t, k = g.tables, g.arity
        mx = t.reshape(len(t), -1).max(axis=1)
        if mx.min() == -np.inf:
            return -np.inf
        log_scale += float(mx.sum())
        if k == 0:
            continue
        lin = np.exp(t - mx.reshape((-1,) + (1,) * k))
        P = pos[g.scopes]
        for table, ps, first in zip(lin, P.tolist(), P.min(axis=1).tolist(), strict=True):
            buckets[first].append((table, ps))
    seps = sym.separators
    log = math.log
    for i in range(n):
        items = buckets[i]
        while len(items) > _MAX_OPERANDS:  # np.einsum takes at most 64 operands
            items = [_product(items[:_MAX_OPERANDS]), *items[_MAX_OPERANDS:]]
        if not items:  # a variable in no factor: it multiplies Z by its cardinality
            log_scale += log(cp[i])
            continue
        sep = _bits(seps[i])
        if sep and sep[-1] - i >= _LABELS:  # relabel the clique's positions compactly
            where = {p: j for j, p in enumerate([i, *sep])}
            operands: list[Any] = []
            for table, ps in items:
                operands += (table, [where[p] for p in ps])
            out = np.einsum(*operands, list(range(1, len(sep) + 1)))
        else:
            operands = []
            for table, ps in items:
                operands += (table, [p - i for p in ps])
            out = np.einsum(*operands, [p - i for p in sep])
        m = float(out.max())
        if m < _TINY:
            return None
        log_scale += log(m)
        if sep:
            out *= 1.0 / m
            buckets[sep[0]].append((out, sep))
    return log_scale


# -- public exact inference ------------------------------------------------------------------


def exact_log_partition(model: DiscreteModel) -> float:
    """The log partition function ``log Z`` by variable elimination.

    ``log Z = log sum_x exp(sum_E theta_E(x_E))`` (Rowland 2018, Def. 1.1), computed by
    sum-product variable elimination along a min-fill ordering: by transfer matrices
    when the model is a layered pairwise model (a grid built row by row), else in the
    linear domain with rescaled tables when the largest clique table has at most
    ``2**12`` entries, both falling back to the log domain when precision is at risk, and
    in the log domain otherwise (see the module docstring); memory is bounded by the
    largest clique table (plus the messages in flight).

    Parameters
    ----------
    model : DiscreteModel
        The model; ``-inf`` entries (hard constraints) are allowed.

    Returns
    -------
    float
        ``log Z``; ``-inf`` when every assignment is forbidden by ``-inf`` entries.

    Raises
    ------
    ValueError
        If the largest intermediate table of the ordering could not fit in memory (the
        message names its clique size): use approximate inference. If ``log Z`` is
        beyond the float64 range (log-potentials near ``1e308`` adding up past it).

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm import ising
    >>> m = ising(nx.grid_2d_graph(10, 10), fields=0.1, couplings=0.3, spins="pm1")
    >>> round(exact_log_partition(m), 6)
    80.300478
    """
    _check_model(model)
    key = _structure_key(model)
    chosen, order, sym = _choose_order(model, limit=_memory.memory_limit() // 8, key=key)
    if not sym.ok:  # stopped at a clique table that alone exceeds the memory
        _check_plan_memory(model, chosen, 8 * chosen.max_table_size, "log_partition", True)
    _check_plan_memory(model, chosen, sym.peak, "log_partition")
    plan = _TRANSFER_PLANS.get(key, lambda: transfer_plan(model, chosen.max_table_size))
    log_z = None if plan is None else transfer_log_partition(model, plan)
    if log_z is not None:
        return log_z
    exponent = sum_scale_exponent(model)
    if exponent:  # entries whose sums could overflow: the log domain, scaled
        scaled = _scaled(model, exponent)
        log_z, _ = _upward(scaled, _plan(scaled, "log_partition"), False, exponent)
        return _unscaled(log_z, exponent, "exact_log_partition: log Z")
    if chosen.max_table_size <= _LINEAR_MAX_TABLE:
        log_z = _linear_log_partition(model, order, sym)
    if log_z is None:  # large cliques, or precision at risk in the linear domain
        log_z, _ = _upward(model, _plan(model, "log_partition"), keep=False)
    return log_z


def exact_marginals(model: DiscreteModel) -> Marginals:
    """All single-variable marginals and ``log Z``, by a junction-tree pass.

    The upward pass is sum-product variable elimination (as :func:`exact_log_partition`)
    keeping its messages; the downward pass (Shafer-Shenoy) gives every clique of the
    elimination its exact belief, from which each variable's marginal is read. Cost:
    about two eliminations for all the marginals.

    Parameters
    ----------
    model : DiscreteModel
        The model; ``-inf`` entries (hard constraints) are allowed.

    Returns
    -------
    Marginals
        ``marginals`` (one array per variable, summing to 1) and ``log_partition``.

    Raises
    ------
    ValueError
        If every assignment is forbidden (``log Z = -inf``), if the elimination could
        not fit in memory, or if ``log Z`` is beyond the float64 range.

    Examples
    --------
    >>> from kernelkit.pgm import DiscreteModel
    >>> m = DiscreteModel([2, 2], [((0, 1), [[0.0, 0.0], [0.0, float("-inf")]])])
    >>> r = exact_marginals(m)
    >>> [p.round(4).tolist() for p in r.marginals], round(r.log_partition, 6)
    ([[0.6667, 0.3333], [0.6667, 0.3333]], 1.098612)
    """
    _check_model(model)
    exponent = sum_scale_exponent(model)
    work = _scaled(model, exponent) if exponent else model  # (see _scaled)

    def lse(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        if exponent:
            return _logsumexp_scaled(x, axes, exponent)
        return _logsumexp_axes(x, axes)

    shifted = _shifted_factor_tables(work)  # (see _shifted_factor_tables)
    _check_feasible(shifted[1], "marginals")
    factors = shifted[0]
    plan = _plan(work, "marginals")
    log_z, tables = _upward(work, plan, keep=True, exponent=exponent, shifted=shifted)
    _check_feasible(log_z, "marginals")
    log_z = _unscaled(log_z, exponent, "exact_marginals: log Z")
    marginals: list[np.ndarray] = [np.empty(0)] * model.n_variables
    down: dict[int, np.ndarray] = {}  # step -> message from its parent, over its separator
    for i in range(len(plan.steps) - 1, -1, -1):
        step = plan.steps[i]
        d = down.pop(i, None)
        belief = _combine(step, tables, factors, None if d is None else d[None, ...])
        p = lse(belief, tuple(range(1, belief.ndim)))
        if exponent:
            p = _exp_scaled(p - _logsumexp_scaled(p, (0,), exponent), exponent)
        else:
            p = np.exp(p - _logsumexp(p, (0,)))
        marginals[step.var] = p / p.sum()
        for k, perm, bshape in step.inputs:
            if k < plan.n_factors:
                continue
            # The child's separator is a subset of this clique, in the same (elimination)
            # order; this clique's variable (axis 0) is not in it. Shafer-Shenoy: the
            # belief less the child's own message, summed down to the separator. Where that
            # message is -inf so is the belief, and the child's belief is -inf there anyway.
            m = tables[k]
            m = np.where(np.isneginf(m), 0.0, m)
            axes = tuple(j for j, b in enumerate(bshape) if b == 1)
            msg = lse(_add_in_layout(belief, _expand(m, perm, bshape), np.subtract), axes)
            msg, _ = _shift_to_top(msg)
            down[k - plan.n_factors] = msg.reshape(plan.steps[k - plan.n_factors].shape[1:])
    return Marginals(marginals, log_z)


def exact_map(model: DiscreteModel) -> MAPResult:
    """A highest-score (MAP, Rowland 2018, Def. 1.2) assignment by max-product elimination.

    Max-product elimination along a min-fill ordering keeps, for each eliminated
    variable, the ``argmax`` table over its separator; back-tracking in reverse order
    reads off a maximising assignment (ties go to the smallest value).

    Parameters
    ----------
    model : DiscreteModel
        The model; ``-inf`` entries (hard constraints) are allowed.

    Returns
    -------
    MAPResult
        ``assignment`` and ``score``.

    Raises
    ------
    ValueError
        If every assignment is forbidden, if the elimination could not fit in memory, or
        if the highest score is beyond the float64 range.

    Examples
    --------
    >>> from kernelkit.pgm import DiscreteModel
    >>> m = DiscreteModel([2, 3], [((0,), [0.0, 1.0]), ((0, 1), [[0, 0, 2], [0, 0.5, 0]])])
    >>> r = exact_map(m)
    >>> r.assignment.tolist(), r.score
    ([0, 2], 2.0)
    """
    _check_model(model)
    exponent = sum_scale_exponent(model)
    work = _scaled(model, exponent) if exponent else model  # max commutes with the scale
    plan = _plan(work, "map")
    factors = _factor_tables(work)
    tables: dict[int, np.ndarray] = {}
    argmax: list[np.ndarray] = []
    for i, step in enumerate(plan.steps):
        acc = _combine(step, tables, factors)
        for k, _, _ in step.inputs:
            tables.pop(k, None)
        message, arg = _max_first(acc)
        argmax.append(arg)
        tables[plan.n_factors + i] = message
    best = _root_total(plan, tables, factors)
    _check_feasible(best, "MAP assignment")
    _unscaled(best, exponent, "exact_map: the MAP score")
    x = np.zeros(model.n_variables, dtype=np.int64)
    for i in range(len(plan.steps) - 1, -1, -1):
        step = plan.steps[i]
        x[step.var] = argmax[i][tuple(x[list(step.clique[1:])])]
    x.flags.writeable = False
    return MAPResult(x, float(model.score(x)))


# -- brute-force references ------------------------------------------------------------------


def brute_force_log_partition(model: DiscreteModel) -> float:
    """``log Z`` by enumerating every assignment (a reference for small models).

    Parameters
    ----------
    model : DiscreteModel
        At most :data:`BRUTE_FORCE_LIMIT` (``2**22``) assignments.

    Returns
    -------
    float
        ``log Z``; ``-inf`` when every assignment is forbidden by ``-inf`` entries.

    Raises
    ------
    ValueError
        If the model has more than :data:`BRUTE_FORCE_LIMIT` assignments, or if its
        highest score is beyond the float64 range.

    Examples
    --------
    >>> from kernelkit.pgm import DiscreteModel
    >>> m = DiscreteModel([2, 2], [((0, 1), [[0.0, 0.0], [0.0, 1.0]])])
    >>> bool(abs(brute_force_log_partition(m) - np.log(3 + np.e)) < 1e-12)
    True
    """
    return _brute_force_log_z(_all_scores(model, "brute_force_log_partition"))[0]


def brute_force_marginals(model: DiscreteModel) -> Marginals:
    """Single-variable marginals by enumerating every assignment (a reference).

    Parameters
    ----------
    model : DiscreteModel
        At most :data:`BRUTE_FORCE_LIMIT` assignments.

    Returns
    -------
    Marginals
        ``marginals`` (one array per variable, summing to 1) and ``log_partition``.

    Raises
    ------
    ValueError
        If every assignment is forbidden.

    Examples
    --------
    >>> from kernelkit.pgm import DiscreteModel
    >>> m = DiscreteModel([2], [((0,), [0.0, np.log(3.0)])])
    >>> brute_force_marginals(m).marginals[0].round(12).tolist()
    [0.25, 0.75]
    """
    scores = _all_scores(model, "brute_force_marginals")
    n = model.n_variables
    log_z, half = _brute_force_log_z(scores)
    _check_feasible(log_z, "marginals")
    # exp(score - highest score), not exp(score - log Z): log Z absorbs the log of the
    # number of top assignments when the scores are large (1e20 + log 3 == 1e20)
    weights = _exp_scaled(half - half.max(), 1)
    marginals = []
    for i in range(n):
        p = weights.sum(axis=tuple(j for j in range(n) if j != i))
        marginals.append(p / p.sum())
    return Marginals(marginals, log_z)


def brute_force_map(model: DiscreteModel) -> MAPResult:
    """A MAP assignment by enumerating every assignment (a reference; ties go to the
    first assignment in lexicographic order).

    Parameters
    ----------
    model : DiscreteModel
        At most :data:`BRUTE_FORCE_LIMIT` assignments.

    Returns
    -------
    MAPResult
        ``assignment`` (the first maximiser in lexicographic order) and ``score``.

    Raises
    ------
    ValueError
        If every assignment is forbidden.

    Examples
    --------
    >>> from kernelkit.pgm import DiscreteModel
    >>> m = DiscreteModel([2, 3], [((0,), [0.0, 1.0]), ((0, 1), [[0, 0, 2], [0, 0.5, 0]])])
    >>> r = brute_force_map(m)
    >>> r.assignment.tolist(), r.score
    ([0, 2], 2.0)
    """
    scores = _all_scores(model, "brute_force_map")
    k = int(np.argmax(scores))
    _check_feasible(float(scores.flat[k]), "MAP assignment")
    x = np.array(np.unravel_index(k, scores.shape), dtype=np.int64).reshape(model.n_variables)
    x.flags.writeable = False
    return MAPResult(x, float(scores.flat[k]))


def _brute_force_log_z(scores: np.ndarray) -> tuple[float, np.ndarray]:
    """``log Z`` from every assignment's score, and the scores halved.

    Halved (exactly), the scores' differences, up to ``2 * 1.8e308``, cannot overflow;
    ``log Z`` is at most the largest score plus ``log(2**22)``, which doubles back to a
    float64."""
    half = np.ldexp(scores, -1)
    return math.ldexp(float(_logsumexp_scaled(half.ravel(), (0,), 1)), 1), half


def _all_scores(model: DiscreteModel, caller: str) -> np.ndarray:
    """The score of every assignment, as a table with one axis per variable.

    Log-potentials whose sums could overflow are scored scaled by a power of two (see
    :func:`_scaled`): a highest score beyond the float64 range is an error (below
    ``-1.8e308`` it is not a ``-inf`` that would pass for a forbidden assignment); lower
    scores below the range have probability 0 and become ``-inf``.
    """
    _check_model(model)
    shape = tuple(int(c) for c in model.cardinalities)
    total = 1
    for c in shape:  # (stops early: the product of 10**6 cardinalities is slow to form)
        total *= c
        if total > BRUTE_FORCE_LIMIT:
            if len(shape) <= 1000:
                count = str(math.prod(shape))
            else:  # (str() refuses integers of more than 4300 digits)
                count = f"about 10**{int(sum(math.log10(c) for c in shape))}"
            raise ValueError(
                f"brute-force enumeration of {model!r} would score {count} assignments, "
                f"more than {BRUTE_FORCE_LIMIT} (2**22): use exact_log_partition, "
                "exact_marginals or exact_map (variable elimination) instead"
            )
    exponent = sum_scale_exponent(model)
    scorer = _scaled(model, exponent) if exponent else model
    if not shape:
        out = np.asarray(scorer.score(np.zeros((1, 0), dtype=np.int64)), dtype=np.float64)
    else:
        out = np.empty(total)
        dtype = np.min_scalar_type(max(shape))
        for start in range(0, total, _CHUNK):  # chunks of assignments, vectorised within
            idx = np.arange(start, min(start + _CHUNK, total))
            X = np.stack(np.unravel_index(idx, shape), axis=1).astype(dtype)
            out[idx] = scorer.score(X)
    if exponent:
        limit = math.ldexp(_FLOAT_MAX, -exponent)  # the float64 range, scaled
        top = float(out.max())
        if top > limit or -np.inf < top < -limit:
            raise beyond_range_error(f"{caller}: the highest score")
        # below the range yet below the highest score by far more than 2048: probability 0
        out = np.ldexp(np.where(out < -limit, -np.inf, out), exponent)
    return out.reshape(shape)


def _check_feasible(value: float, what: str) -> None:
    if value == -np.inf:
        raise InfeasibleModelError(
            f"the model has no {what}: every assignment is forbidden by its -inf entries "
            "(log Z = -inf)"
        )
