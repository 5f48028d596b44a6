"""``log Z`` of a layered pairwise model by transfer matrices (the row-by-row sweep of a grid).

A model whose factors have at most two variables is *layered* when its own variable order
splits into consecutive blocks (*layers*) ``V_0, V_1, ...`` such that every pairwise
factor lies inside one layer or joins two consecutive layers, and the pairs joining
``V_k`` to ``V_{k+1}`` form a matching (each variable has at most one partner in the
next layer and one in the previous): an ``L1 x L2`` grid or cylinder built row by row
(layers = rows), a ladder, a chain. The blocks are found from the order's bandwidth
``b = max |u - v|`` over the pairwise scopes: layers of ``b`` variables.

Then ``Z = 1^T D_K P_{K-1} ... D_1 P_0 D_0`` in the classic transfer-matrix form (Kramers
and Wannier 1941; Baxter 1982, Ch. 2): ``psi_0 = D_0`` and ``psi_{k+1} = D_{k+1} * (P_k
psi_k)``, where ``psi_k`` is a vector over the joint states of layer ``k``, ``D_k`` holds
the potentials of the factors inside layer ``k`` and ``P_k`` those of the pairs between
layers ``k`` and ``k + 1``. Because those pairs form a matching, ``P_k`` is a Kronecker
product of one small matrix per pair; splitting each layer into two halves, ``psi_k``
is a matrix over (first-half states, second-half states) and ``P_k psi_k`` is
``A_k^T psi_k B_k`` with ``A_k``, ``B_k`` the Kronecker products over the two halves:
two matrix products of side ``sqrt(|states|)`` per layer, where variable elimination
takes one table operation per variable. ``D_k`` is likewise the outer product of the two
halves' potentials times the few factors that cross the halves.

This is the sum-product elimination of the row-by-row order organised by layers, so it
gives the same ``log Z`` (tests compare it with enumeration and with elimination); its
memory is a few arrays of one layer's states, no more than the elimination's largest
clique table (it is used only then). It runs in the linear domain with rescaling as
``kernelkit.pgm.exact._linear_log_partition`` does: every potential table is
exponentiated after subtracting its maximum (entries in ``[0, 1]``), ``psi_k`` is divided
by its sum whenever that leaves ``[1e-50, 1e50]`` (a step multiplies the sum by at most the
number of states, so nothing overflows), and the logs add up to ``log Z``. An underflowed
entry or product is below ``1e-308``, so it changes a step's sum by at most ``1e-308`` per
term; when a sum falls below ``1e-250`` (strong frustration) the function returns ``None``
and the caller eliminates in the log domain instead. Models with ``-inf`` entries are
left to elimination too, and so are models with entries so large in magnitude (beyond
about ``2**1000 / n_factors``, see ``kernelkit.pgm._guards.sum_limit``) that the sums of
log-potentials could overflow: the elimination scales those by a power of two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kernelkit.pgm._guards import sum_limit
from kernelkit.pgm.model import DiscreteModel

_TINY = 1e-250  # a step's sum below this: precision at risk in the linear domain
_LOW, _HIGH = 1e-50, 1e50  # psi is rescaled when its sum leaves this range
#: Largest layer (joint states) whose crossing pairs are read through a stored index.
_INDEXED_STATES = 2**12


@dataclass
class _Step:
    """How ``psi`` passes from layer ``k`` to layer ``k + 1``: ``A^T psi B``, then an
    optional reordering of the new layer's axes (reshape, axes, rows, columns)."""

    a: tuple[int, int]  # (batch, member) of A in the Kronecker batches
    b: tuple[int, int]
    perm: tuple[tuple[int, ...], tuple[int, ...], int, int] | None


@dataclass
class _Batch:
    """Kronecker products of equal structure, computed together: ``lin[index]`` holds one
    row per product, the factors' entries side by side (``shapes``)."""

    index: np.ndarray  # (n_products, total entries)
    shapes: list[tuple[int, int]]
    fold: np.ndarray | None  # (n_products, columns): the new layer's half, multiplied in


@dataclass
class _Layer:
    """The potentials inside one layer: its halves' vectors and the crossing pairs (as
    slices of the exponentiated log values)."""

    a: slice  # the first half's vector
    b: slice  # the second half's vector
    cross: list[np.ndarray | tuple[slice, tuple[int, int], np.ndarray, np.ndarray]]
    # per crossing pair: lin[index] is its (first half, second half) matrix; or, for large
    # layers, its table's slice, shape and the digits of its variables (broadcast)


@dataclass
class _Plan:
    """What a factor graph's structure fixes; the numbers come from the tables per call."""

    rows: np.ndarray  # bincount rows: log value position of each (row, table entry) pair
    cols: np.ndarray  # flat table entry added there
    n_rows: int
    seg_starts: np.ndarray  # segments of the log values (each exponentiated to max 1)
    seg_sizes: np.ndarray
    const: np.ndarray  # flat entries of arity-0 factors
    layers: list[_Layer]
    steps: list[_Step]
    batches: list[_Batch]
    limit: float = math.inf  # table entries must lie in (-limit, limit): sums cannot overflow


def _flat_tables(model: DiscreteModel) -> np.ndarray:
    """All factor tables, flattened and concatenated in the order of ``model.groups()``."""
    groups = model.groups()
    if len(groups) == 1:
        return groups[0].tables.reshape(-1)
    return np.concatenate([g.tables.reshape(-1) for g in groups])


def transfer_log_partition(model: DiscreteModel, plan: _Plan) -> float | None:
    """``log Z`` by the sweep of ``plan`` (:func:`transfer_plan` of the model's factor
    graph), or ``None`` when the model has ``-inf`` entries, entries of a magnitude whose
    sums could overflow (``plan.limit``), or loses precision in the linear domain."""
    t = _flat_tables(model)
    lo, hi = t.min(), t.max()  # (as cheap as np.isneginf(t).any())
    if lo == -np.inf or -lo >= plan.limit or hi >= plan.limit:
        return None
    logv = np.bincount(plan.rows, weights=t[plan.cols], minlength=plan.n_rows)
    mx = np.maximum.reduceat(logv, plan.seg_starts)
    logv -= np.repeat(mx, plan.seg_sizes)
    lin = np.exp(logv, out=logv)
    log_scale = float(mx.sum()) + float(t[plan.const].sum())
    log = math.log
    reduce = np.add.reduce
    kron: list[np.ndarray | None] = [None] * len(plan.batches)

    def product(at: tuple[int, int]) -> np.ndarray:
        """A step's A or B: batches of several products are kept, single ones are not (a
        large layer's products are made one at a time)."""
        batch = plan.batches[at[0]]
        out = kron[at[0]]
        if out is None:
            out = _batched_kron(lin, batch)
            if len(batch.index) > 1:
                kron[at[0]] = out
        return out[at[1]]

    layer = plan.layers[0]
    psi = np.multiply.outer(lin[layer.a], lin[layer.b])
    _cross(psi, lin, layer)
    for step, layer in zip(plan.steps, plan.layers[1:], strict=True):
        s = float(reduce(psi, axis=None))
        if not _LOW < s < _HIGH:  # rescale (and check the precision)
            if s < _TINY:
                return None
            log_scale += log(s)
            psi *= 1.0 / s
        psi = product(step.a).T @ psi
        psi = psi @ product(step.b)
        if step.perm is not None:  # reorder the new layer's axes, then its potentials
            shape, axes, s1, s2 = step.perm
            psi = psi.reshape(shape).transpose(axes).reshape(s1, s2)
            psi *= lin[layer.a][:, None]
            psi *= lin[layer.b]
        _cross(psi, lin, layer)
    s = float(reduce(psi, axis=None))
    if s < _TINY:
        return None
    return log_scale + log(s)


def _cross(psi: np.ndarray, lin: np.ndarray, layer: _Layer) -> None:
    """Multiply ``psi`` by the potentials of the pairs that cross the layer's halves."""
    for c in layer.cross:
        if isinstance(c, np.ndarray):
            psi *= lin[c]
        else:
            seg, shape, du, dv = c
            psi *= lin[seg].reshape(shape)[du, dv]


def _batched_kron(lin: np.ndarray, batch: _Batch) -> np.ndarray:
    """The Kronecker products of one batch, shape (n_products, rows, columns)."""
    g = lin[batch.index]
    n = len(g)
    if not batch.shapes:
        return np.ones((n, 1, 1))
    r, c = batch.shapes[0]
    out = g[:, : r * c].reshape(n, r, c)
    at = r * c
    for r2, c2 in batch.shapes[1:]:
        m = g[:, at : at + r2 * c2].reshape(n, r2, c2)
        at += r2 * c2
        _, r1, c1 = out.shape
        out = (out[:, :, None, :, None] * m[:, None, :, None, :]).reshape(n, r1 * r2, c1 * c2)
    if batch.fold is not None:
        out *= lin[batch.fold][:, None, :]
    return out


def _digits(shape: tuple[int, ...]) -> np.ndarray:
    """``digits[i, s]``: the value of axis ``i`` in the joint state ``s`` (C order)."""
    if not shape:
        return np.zeros((0, 1), dtype=np.int64)
    return np.indices(shape).reshape(len(shape), -1)


# -- the plan --------------------------------------------------------------------------------


def _states_exceed(cards: list[int], max_states: int) -> bool:
    """Whether ``prod(cards) > max_states``, stopping as soon as it is (the full product
    of a wide layer, say ``2**(10**6)``, takes quadratic time to form)."""
    states = 1
    for c in cards:
        states *= c
        if states > max_states:
            return True
    return False


#: Most entries of one batch of Kronecker products (0.5 MiB): larger ones go one at a time,
#: so the memory stays within a few layer-sized arrays.
_BATCH_ENTRIES = 2**16


def transfer_plan(model: DiscreteModel, max_states: int) -> _Plan | None:
    """The transfer plan of a layered model's factor graph (it depends on the
    cardinalities and scopes only), or ``None`` when the model is not layered with at most
    ``max_states`` joint states per layer."""
    n = model.n_variables
    cards = [int(c) for c in model.cardinalities]
    groups = model.groups()
    if n == 0 or any(g.arity > 2 for g in groups):
        return None
    # the flat offsets of every factor's table, in the order of _flat_tables
    unary: dict[int, list[int]] = {}
    pairs: dict[tuple[int, int], list[tuple[int, bool]]] = {}  # (lo, hi) -> (offset, swapped)
    const: list[int] = []
    off = 0
    for g in groups:
        size = math.prod(g.tables.shape[1:])
        for scope in g.scopes.tolist():
            if len(scope) == 0:
                const.append(off)
            elif len(scope) == 1:
                unary.setdefault(scope[0], []).append(off)
            else:
                u, v = scope
                pairs.setdefault((min(u, v), max(u, v)), []).append((off, u > v))
            off += size
    if not pairs:
        return None
    width = max(v - u for u, v in pairs)  # the bandwidth of the model's own order
    bounds = [(a, min(a + width, n)) for a in range(0, n, width)]
    if any(_states_exceed(cards[a:b], max_states) for a, b in bounds):
        return None
    mids = [a + (b - a + 1) // 2 for a, b in bounds]  # halves a .. mid - 1, mid .. b - 1
    partner_next: dict[int, int] = {}
    partner_prev: dict[int, int] = {}
    for u, v in pairs:
        if u // width != v // width:  # consecutive layers (|u - v| <= width)
            if u in partner_next or v in partner_prev:
                return None  # not a matching
            partner_next[u] = v
            partner_prev[v] = u

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    starts: list[int] = [0]  # where each segment starts, then the end of the last one

    def segment(size: int, entries: list[tuple[np.ndarray, np.ndarray]]) -> slice:
        """A new segment of ``size`` log values; each (positions in it, flat table
        entries) pair adds those entries there."""
        start = starts[-1]
        for r, c in entries:
            rows.append(np.broadcast_to(r, np.shape(c)).reshape(-1) + start)
            cols.append(np.asarray(c).reshape(-1))
        starts.append(start + size)
        return slice(start, start + size)

    def pair_entries(u: int, v: int, du: np.ndarray, dv: np.ndarray) -> list[np.ndarray]:
        """Flat entries of the tables of pair (u, v) at values (du, dv) of (u, v)."""
        out = []
        for o, swapped in pairs[(min(u, v), max(u, v))]:
            if (u > v) == swapped:  # the table's axes are (u, v)
                out.append(o + du * cards[v] + dv)
            else:
                out.append(o + dv * cards[u] + du)
        return out

    def half(lo: int, hi: int) -> slice:
        """The log potentials of the factors inside variables lo .. hi - 1, per joint state."""
        digits = _digits(tuple(cards[lo:hi]))
        here = np.arange(digits.shape[1])
        entries = []
        for i in range(lo, hi):
            entries += [(here, o + digits[i - lo]) for o in unary.get(i, [])]
            for j in range(i + 1, hi):
                if (i, j) in pairs:
                    c = pair_entries(i, j, digits[i - lo], digits[j - lo])
                    entries += [(here, x) for x in c]
        return segment(len(here), entries)

    def matrix(u: int | None, v: int | None) -> tuple[slice, tuple[int, int]]:
        """The segment of pair (u, v)'s potentials as a (card u, card v) matrix; a row
        (column) of ones for a missing u (v)."""
        cu = 1 if u is None else cards[u]
        cv = 1 if v is None else cards[v]
        if u is None or v is None:
            return segment(cu * cv, []), (cu, cv)
        du, dv = np.indices((cu, cv)).reshape(2, -1)
        here = np.arange(cu * cv)
        return segment(cu * cv, [(here, c) for c in pair_entries(u, v, du, dv)]), (cu, cv)

    layers: list[_Layer] = []
    for (a, b), m in zip(bounds, mids, strict=True):
        da, db = _digits(tuple(cards[a:m])), _digits(tuple(cards[m:b]))
        cross = []
        for u in range(a, m):
            for v in range(m, b):
                if (u, v) in pairs:
                    seg, shape = matrix(u, v)
                    du, dv = da[u - a][:, None], db[v - m][None, :]
                    if da.shape[1] * db.shape[1] <= _INDEXED_STATES:
                        cross.append(seg.start + du * shape[1] + dv)
                    else:
                        cross.append((seg, shape, du, dv))
        layers.append(_Layer(half(a, m), half(m, b), cross))

    # each step's A and B as lists of factor matrices, batched by structure
    # (factor shapes, folded) -> (step, side, factor segments, folded half) per product
    products: dict[
        tuple[tuple[tuple[int, int], ...], bool],
        list[tuple[int, int, list[slice], slice | None]],
    ] = {}
    steps: list[_Step] = []
    for k in range(len(bounds) - 1):
        (a, b), m = bounds[k], mids[k]
        (a2, b2), m2 = bounds[k + 1], mids[k + 1]
        factors: tuple[list[tuple[slice, tuple[int, int]]], ...] = ([], [])
        order: tuple[list[int], list[int]] = ([], [])
        for u in range(a, b):
            v = partner_next.get(u)
            factors[u >= m].append(matrix(u, v))  # v None: u is summed out
            if v is not None:
                order[u >= m].append(v)
        for v in range(a2, b2):
            if v not in partner_prev:  # a new axis, free of layer k
                factors[1].append(matrix(None, v))
                order[1].append(v)
        new = order[0] + order[1]
        perm = None
        if new != list(range(a2, b2)) or len(order[0]) != m2 - a2:
            perm = (
                tuple(cards[v] for v in new),
                tuple(int(i) for i in np.argsort(new)),
                math.prod(cards[a2:m2]),
                math.prod(cards[m2:b2]),
            )
        for side in (0, 1):
            # without a reordering, the new layer's half vectors multiply A's and B's columns
            fold = None if perm is not None else (layers[k + 1].a, layers[k + 1].b)[side]
            key = (tuple(shape for _, shape in factors[side]), fold is not None)
            products.setdefault(key, []).append((k, side, [s for s, _ in factors[side]], fold))
        steps.append(_Step((-1, -1), (-1, -1), perm))
    batches: list[_Batch] = []
    for (shapes, folded), members in products.items():
        entries = math.prod(r for r, _ in shapes) * math.prod(c for _, c in shapes)
        per = max(1, _BATCH_ENTRIES // entries)
        for i in range(0, len(members), per):
            chunk = members[i : i + per]
            index = np.zeros((len(chunk), 0), dtype=np.int64)
            if shapes:
                index = np.array(
                    [np.concatenate([np.r_[s] for s in segs]) for *_, segs, _ in chunk],
                    dtype=np.int64,
                )
            fold_index = None
            if folded:
                fold_index = np.array(
                    [np.arange(f.start, f.stop) for *_, f in chunk if f is not None],
                    dtype=np.int64,
                )
            for j, (k, side, *_) in enumerate(chunk):
                if side == 0:
                    steps[k].a = (len(batches), j)
                else:
                    steps[k].b = (len(batches), j)
            batches.append(_Batch(index, list(shapes), fold_index))

    offsets = np.array(starts, dtype=np.int64)
    return _Plan(
        rows=np.concatenate(rows) if rows else np.zeros(0, np.int64),
        cols=np.concatenate(cols) if cols else np.zeros(0, np.int64),
        n_rows=int(offsets[-1]),
        seg_starts=offsets[:-1],
        seg_sizes=np.diff(offsets),
        const=np.array(const, dtype=np.int64),
        layers=layers,
        steps=steps,
        batches=batches,
        limit=sum_limit(len(model.factors)),
    )
