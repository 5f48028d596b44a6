"""Weighted mini-bucket elimination: the machinery behind :mod:`kernelkit.pgm.bounds`.

Variables are eliminated along an ordering (:func:`kernelkit.pgm.exact.elimination_order`);
every function (a factor, or a message of an earlier step) sits in the *bucket* of its
earliest variable. Exact elimination would add up a bucket's functions into one table over
the union of their scopes (the clique). Mini-bucket elimination (Dechter & Rish 2003,
"Mini-buckets: a general scheme for bounded inference") instead splits the bucket of ``v``
into *mini-buckets* of at most ``i_bound + 1`` variables (``v`` and at most ``i_bound``
others; a factor of more variables gets a mini-bucket of its own) and eliminates ``v``
from each separately:

* **max** (MAP): ``max_v sum_r f_r <= sum_r max_v f_r``, an upper bound on the MAP score;
* **sum** (``log Z``; Liu & Ihler 2011, "Bounding the partition function using Hölder's
  inequality"): with weights ``w_r > 0``, ``sum_r w_r = 1``, Hölder's inequality gives
  ``sum_v prod_r F_r <= prod_r (sum_v F_r^(1 / w_r))^(w_r)`` (``F_r = exp f_r``): each
  mini-bucket sends the *power sum* ``w_r log sum_v exp(f_r / w_r)``.

Every later step is monotone in its inputs, so the last (scalar) messages add up to an
upper bound; when no bucket is split the computation is exact elimination. The bound holds
for any weights and for any *cost shifts*: functions of ``v`` added to some mini-buckets
of its bucket and subtracted from others (adding up to zero, so that the bucket's total is
unchanged). Both are tuned to lower the bound (Liu & Ihler 2011, Sec. 5):

* the first pass starts from uniform weights ``w_r = 1 / R`` and *moment matches* each
  split bucket on local beliefs (each mini-bucket's conditional times its own message);
* each later pass differentiates the last one backwards (:func:`_backward`: the
  derivative of the bound by a mini-bucket's table is its *belief*, a distribution over
  the table), shifts each mini-bucket towards agreeing marginals on ``v`` and moves the
  weights along the bound's gradient (the beliefs' conditional entropies); a pass that
  does not lower the bound is dropped and the step halved, so the kept bound only falls.

For MAP, the matching is the max-marginal matching of Flerova, Ihler, Dechter & Otten
(2011). Where one mini-bucket forbids a value of ``v`` outright (``-inf`` for every value
of its other variables), the value is forbidden in the others too: the bucket's total is
``-inf`` there anyway.

The conditionals the sum pass leaves behind, ``q_r(x_v | x_S) = exp((f_r - lambda_r) /
w_r)`` with ``lambda_r`` the mini-bucket's message, make the proposal of Liu, Fisher &
Ihler (2015, "Probabilistic variational bounds for graphical models"), sampled by
ancestral sampling in reverse elimination order: its importance weights ``exp(score(x))
/ q(x)`` are unbiased for ``Z`` and never exceed the mini-bucket bound (by the
arithmetic-geometric mean inequality). Here the conditionals of a bucket are combined by
their normalised weighted geometric mean rather than the paper's mixture ``sum_r w_r
q_r``: the same two guarantees (see :func:`_ancestral`), and no sample is spent on a
value that one mini-bucket forbids (on models with hard constraints the mixture's samples
are mostly infeasible). The max pass leaves its shifted tables, from which an assignment
is decoded greedily in reverse elimination order.

Everything is indexed by *position* in the elimination order: a scope is a sorted tuple of
positions and a table's axes follow it, so the tables of a mini-bucket broadcast into
their union by a reshape, with no transposition.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit import _memory
from kernelkit.pgm.model import DiscreteModel

__all__: list[str] = []


@dataclass(frozen=True)
class MiniBucket:
    """One mini-bucket of a plan: the union of its inputs' scopes (positions, its
    bucket's first), the items it adds up, and the item of the message it sends."""

    scope: tuple[int, ...]
    inputs: tuple[int, ...]
    output: int


@dataclass(frozen=True)
class Plan:
    """The symbolic mini-bucket elimination along an ordering for one i-bound.

    Items ``0 .. n_factors - 1`` are the model's factors, the next ones the messages (one
    per mini-bucket, in the order the mini-buckets are formed).
    """

    order: np.ndarray  # the variable at each position
    cards: tuple[int, ...]  # cardinalities by position
    i_bound: int
    scopes: tuple[tuple[int, ...], ...]  # of every item, in positions
    buckets: tuple[tuple[MiniBucket, ...], ...]  # by position
    n_factors: int
    max_table: int  # entries of the largest mini-bucket table
    total_table: int  # entries of all mini-bucket tables
    split: bool  # whether some bucket has more than one mini-bucket

    @property
    def peak_bytes(self) -> int:
        """About the peak memory of :func:`run`: every mini-bucket table twice (the best
        pass and the current one, kept for sampling or decoding), the derivatives of the
        backward pass, and temporaries of the largest table."""
        return 8 * (3 * self.total_table + 4 * self.max_table)


def make_plan(model: DiscreteModel, order: np.ndarray, i_bound: int) -> Plan:
    """Partition every bucket greedily (first fit, largest scopes first) into mini-buckets
    of at most ``i_bound + 1`` variables (Dechter & Rish 2003, scope-based partitioning)."""
    n = model.n_variables
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    cards = tuple(int(model.cardinalities[v]) for v in order)
    scopes: list[tuple[int, ...]] = []
    waiting: list[list[int]] = [[] for _ in range(n)]
    for k, f in enumerate(model.factors):
        sc = tuple(sorted(int(p) for p in pos[list(f.scope)])) if f.scope else ()
        scopes.append(sc)
        if sc:
            waiting[sc[0]].append(k)
    n_factors = len(scopes)
    buckets: list[tuple[MiniBucket, ...]] = []
    max_table = total = 0
    split = False
    for p in range(n):
        items = sorted(waiting[p], key=lambda k: (-len(scopes[k]), k))
        groups: list[tuple[set[int], list[int]]] = []
        for k in items:
            s = scopes[k]
            for union, members in groups:
                if len(union.union(s)) <= i_bound + 1:
                    union.update(s)
                    members.append(k)
                    break
            else:
                groups.append((set(s), [k]))
        split = split or len(groups) > 1
        minis = []
        for union, members in groups:
            scope = tuple(sorted(union))
            size = math.prod(cards[u] for u in scope)
            max_table = max(max_table, size)
            total += size
            out = len(scopes)
            scopes.append(scope[1:])
            if len(scope) > 1:
                waiting[scope[1]].append(out)
            minis.append(MiniBucket(scope, tuple(members), out))
        buckets.append(tuple(minis))
    return Plan(
        np.asarray(order, dtype=np.int64),
        cards,
        int(i_bound),
        tuple(scopes),
        tuple(buckets),
        n_factors,
        max_table,
        total,
        split,
    )


def fitting_plan(
    model: DiscreteModel,
    order: np.ndarray,
    i_max: int,
    memory_limit: int,
) -> Plan | None:
    """The plan of the largest i-bound in ``1 .. i_max`` whose :attr:`Plan.peak_bytes`
    fit in ``memory_limit`` (a binary search: the tables grow with the i-bound), or None
    when not even ``i_bound = 1`` fits."""
    best = make_plan(model, order, 1)
    if best.peak_bytes > memory_limit:
        return None
    lo, hi = 1, max(i_max, 1)
    top = make_plan(model, order, hi)
    if top.peak_bytes <= memory_limit:
        return top
    while hi - lo > 1:
        mid = (lo + hi) // 2
        plan = make_plan(model, order, mid)
        if plan.peak_bytes <= memory_limit:
            lo, best = mid, plan
        else:
            hi = mid
    return best


def check_plan_memory(plan: Plan, memory_limit: int, request: str) -> None:
    """Refuse a plan whose peak memory exceeds ``memory_limit`` bytes."""
    if plan.peak_bytes > memory_limit:
        raise ValueError(
            f"{request} with i_bound={plan.i_bound} would need about "
            f"{_memory.format_bytes(plan.peak_bytes)} of memory (its largest mini-bucket "
            f"table has {plan.max_table} entries), more than memory_limit "
            f"({_memory.format_bytes(memory_limit)}): pass a smaller i_bound, or "
            "i_bound=None to choose the largest one that fits"
        )


# -- numerics ---------------------------------------------------------------------------------


def _safe(m: np.ndarray) -> np.ndarray:
    """``m`` with its ``-inf`` entries replaced by 0 (a shift that keeps ``-inf`` apart)."""
    return np.where(np.isneginf(m), 0.0, m)


def _logsumexp(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``log sum exp`` over ``axes``; all ``-inf`` gives ``-inf``."""
    if not axes:
        return np.array(x, dtype=np.float64)
    m = x.max(axis=axes, keepdims=True)
    s = np.exp(x - _safe(m)).sum(axis=axes, keepdims=True)
    with np.errstate(divide="ignore"):
        out = np.log(s) + _safe(m)
    return out.reshape([d for j, d in enumerate(x.shape) if j not in axes])


def power_sum(table: np.ndarray, w: float) -> np.ndarray:
    """``w log sum_{x_0} exp(table / w)`` over axis 0 (Liu & Ihler 2011, eq. 6, in logs);
    all ``-inf`` gives ``-inf``."""
    m = table.max(axis=0)
    ms = _safe(m)
    t = table - ms
    if w != 1.0:
        t *= 1.0 / w
    np.exp(t, out=t)
    s = t.sum(axis=0)
    with np.errstate(divide="ignore"):
        return w * np.log(s) + ms


def _match(
    tables: list[np.ndarray],
    weights: list[float],
    shifts: list[np.ndarray],
    beliefs: Callable[[list[np.ndarray]], list[np.ndarray]],
    n_inner: int,
    damping: float,
) -> None:
    """Moment matching of a split bucket (sum), in place: ``n_inner`` times, the shift
    ``w_r (log b - log b_r)``, ``log b = sum_r w_r log b_r``, is added to each table (and
    to its stored shift), where ``b_r(x_v)`` is the marginal on ``v`` of the mini-bucket's
    belief (``beliefs(tables)``); the shifts of one value add up to zero. Values that a
    mini-bucket forbids outright are forbidden in all (:func:`_forbid_dead`); values where
    a belief vanishes otherwise are left alone."""
    for _ in range(n_inner):
        marginals = beliefs(tables)
        ok = np.all(np.stack(marginals) > 0, axis=0)
        if not ok.any():
            return
        with np.errstate(divide="ignore"):
            logs = [np.log(b) for b in marginals]
        mean = np.zeros(ok.shape)
        for w, lb in zip(weights, logs, strict=True):
            mean += w * np.where(ok, lb, 0.0)
        for t, w, lb, s in zip(tables, weights, logs, shifts, strict=True):
            delta = np.where(ok, damping * w * (mean - np.where(ok, lb, 0.0)), 0.0)
            s += delta
            t += delta.reshape((-1,) + (1,) * (t.ndim - 1))


def _forbid_dead(tables: list[np.ndarray]) -> None:
    """Where one mini-bucket forbids a value of ``v`` for every value of its other
    variables, forbid it in all (in place): the bucket's total is ``-inf`` there anyway."""
    dead = np.zeros(tables[0].shape[0], dtype=bool)
    for t in tables:
        dead |= np.all(np.isneginf(t.reshape(t.shape[0], -1)), axis=1)
    if dead.any():
        for t in tables:
            t[dead] = -np.inf


def _conditional(table: np.ndarray, w: float) -> tuple[np.ndarray, np.ndarray]:
    """The power sum ``lambda`` of a table over axis 0 and the conditional ``q(x_v | x_S) =
    exp((table - lambda) / w)`` (0 where ``lambda = -inf``)."""
    msg = power_sum(table, w)
    cond = table - _safe(msg)
    if w != 1.0:
        cond *= 1.0 / w
    np.exp(cond, out=cond)
    return msg, cond


def _local_beliefs(weights: list[float]) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
    """Marginals on ``v`` of the beliefs ``q_r(x_v | x_S) exp(lambda_r(x_S))`` (normalised):
    each mini-bucket as if nothing followed it (the first pass)."""

    def beliefs(tables: list[np.ndarray]) -> list[np.ndarray]:
        out = []
        for t, w in zip(tables, weights, strict=True):
            msg, cond = _conditional(t, w)
            top = float(msg.max()) if msg.size else -np.inf
            g = np.exp(msg - top) if top > -np.inf else np.zeros(msg.shape)
            out.append((cond * g).reshape(t.shape[0], -1).sum(axis=1))
        return out

    return beliefs


def _full_beliefs(
    weights: list[float], upstream: list[np.ndarray | None]
) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
    """Marginals on ``v`` of the beliefs ``q_r(x_v | x_S) G_r(x_S)``, ``G_r`` the derivative
    of the last pass's bound by the mini-bucket's message (:func:`_backward`)."""

    def beliefs(tables: list[np.ndarray]) -> list[np.ndarray]:
        out = []
        for t, w, g in zip(tables, weights, upstream, strict=True):
            _, cond = _conditional(t, w)
            if g is not None:
                cond *= g
            out.append(cond.reshape(t.shape[0], -1).sum(axis=1))
        return out

    return beliefs


@dataclass
class Pass:
    """The result of a mini-bucket pass.

    ``bound``: the upper bound (``log Z`` or the MAP score). ``kept``: per position, the
    mini-buckets as ``(scope, table, weight)``, tables with axes in scope order: the
    conditionals ``q_r(x_v | x_S)`` (linear, summing to 1 over axis 0 where defined, 0
    where the mini-bucket forbids every value) for ``sum``, the shifted tables for
    ``max``. ``seconds``: the time taken.
    """

    bound: float
    kept: list[list[tuple[tuple[int, ...], np.ndarray, float]]]
    seconds: float


def _factor_tables(model: DiscreteModel, plan: Plan) -> tuple[dict[int, np.ndarray], float]:
    """The factors' tables with axes in position order, and the sum of the constant ones."""
    pos = np.empty(len(plan.cards), dtype=np.int64)
    pos[plan.order] = np.arange(len(plan.cards))
    tables: dict[int, np.ndarray] = {}
    constant = 0.0
    for k, f in enumerate(model.factors):
        if not f.scope:
            constant += float(f.table)
            continue
        tables[k] = f.table.transpose(np.argsort(pos[list(f.scope)], kind="stable"))
    return tables, constant


def _assemble(plan: Plan, tables: dict[int, np.ndarray], minib: MiniBucket) -> np.ndarray:
    """The sum of a mini-bucket's inputs over its scope (the inputs are used up)."""
    shape = tuple(plan.cards[u] for u in minib.scope)
    acc = np.zeros(shape)
    where = {u: j for j, u in enumerate(minib.scope)}
    for k in minib.inputs:
        t = tables.pop(k) if k >= plan.n_factors else tables[k]
        bshape = [1] * len(shape)
        for u in plan.scopes[k]:
            bshape[where[u]] = plan.cards[u]
        acc += t.reshape(bshape)
    return acc


@dataclass
class _State:
    """What the passes of :func:`run` carry over: each split mini-bucket's cost shift (a
    vector over its bucket's variable) and weight, by message item."""

    shifts: dict[int, np.ndarray]
    weights: dict[int, float]

    def copy(self) -> _State:
        return _State({k: v.copy() for k, v in self.shifts.items()}, dict(self.weights))


def _entropies(tables: list[np.ndarray], weights: list[float], upstream: list[Any]) -> np.ndarray:
    """``H_r = sum_{x_S} G_r(x_S) H(q_r(. | x_S))``: the derivative of the bound by each
    weight (Liu & Ihler 2011, Sec. 5), ``G_r`` the upstream derivative (None: local)."""
    out = []
    for t, w, g in zip(tables, weights, upstream, strict=True):
        msg, cond = _conditional(t, w)
        with np.errstate(divide="ignore"):
            plogp = np.where(cond > 0, cond * np.log(np.where(cond > 0, cond, 1.0)), 0.0)
        h = -plogp.sum(axis=0)
        if g is None:
            top = float(msg.max()) if msg.size else -np.inf
            g = np.exp(msg - top) if top > -np.inf else np.zeros(msg.shape)
            g = g / max(float(g.sum()), 1e-300)
        out.append(float((g * h).sum()))
    return np.array(out)


def _forward(
    model: DiscreteModel,
    plan: Plan,
    mode: str,
    state: _State,
    upstream: dict[int, np.ndarray] | None,
    match: bool,
    step: float = 1.0,
) -> tuple[float, list[list[tuple[tuple[int, ...], np.ndarray, float]]]]:
    """One elimination along ``plan``: the bound and the kept tables (see :class:`Pass`).
    ``state``: the cost shifts and weights of the split buckets' mini-buckets (updated in
    place when ``match``); ``upstream``: :func:`_backward` of the last pass (the first
    pass matches on local beliefs)."""
    tables, total = _factor_tables(model, plan)
    kept: list[list[tuple[tuple[int, ...], np.ndarray, float]]] = []
    for p, minis in enumerate(plan.buckets):
        if not minis:  # a variable in no function: Z gains a factor of its cardinality
            if mode == "sum":
                total += math.log(plan.cards[p])
            kept.append([])
            continue
        work = [_assemble(plan, tables, m) for m in minis]
        weights = [state.weights.get(m.output, 1.0 / len(minis)) for m in minis]
        if len(minis) > 1:
            vecs = []
            for m, t in zip(minis, work, strict=True):
                s = state.shifts.setdefault(m.output, np.zeros(plan.cards[p]))
                t += s.reshape((-1,) + (1,) * (t.ndim - 1))
                vecs.append(s)
            _forbid_dead(work)
            if match and mode == "max":
                _match_max(work, vecs)
            elif match:
                g = [None if upstream is None else upstream.get(m.output) for m in minis]
                if _WEIGHT_STEP and upstream is not None:
                    H = _entropies(work, weights, g)
                    wv = np.array(weights)
                    logw = np.log(wv) - step * _WEIGHT_STEP * wv * (H - float(wv @ H))
                    wv = np.exp(logw - logw.max())
                    weights = (wv / wv.sum()).tolist()
                    for m, wr in zip(minis, weights, strict=True):
                        state.weights[m.output] = wr
                if upstream is None:
                    beliefs = _local_beliefs(weights)
                else:
                    beliefs = _full_beliefs(weights, g)
                _match(work, weights, vecs, beliefs, _INNER, step * _DAMPING)
        bucket = []
        for m, t, w in zip(minis, work, weights, strict=True):
            if mode == "sum":
                msg, cond = _conditional(t, w)
                bucket.append((m.scope, cond, w))
            else:
                msg = t.max(axis=0)
                bucket.append((m.scope, t, w))
            if msg.ndim:
                tables[m.output] = msg
            else:
                total += float(msg)
        kept.append(bucket)
    return total, kept


#: Step of the weight update (exponentiated gradient on ``log w``) and fraction of the
#: moment-matching shift taken, in the first pass; halved after a pass that did not lower
#: the bound.
_WEIGHT_STEP = 3.0
_DAMPING = 0.5


#: Rounds of moment matching per split bucket and pass.
_INNER = 2


def _backward(
    plan: Plan, kept: list[list[tuple[tuple[int, ...], np.ndarray, float]]]
) -> dict[int, np.ndarray]:
    """``G_k``: the derivative of a sum pass's bound by each message ``k``, by reverse-mode
    differentiation through the power sums (the derivative of ``w log sum_v exp(f / w)``
    by ``f`` is the conditional ``q``): a mini-bucket's belief is ``B_r = q_r G_r`` (a
    distribution over its table), and ``G_k`` of a message it receives is ``B_r`` summed
    down to the message's scope (Liu & Ihler 2011, Sec. 5: the weighted beliefs)."""
    upstream: dict[int, np.ndarray] = {}
    for p in range(len(plan.buckets) - 1, -1, -1):
        for m, (scope, cond, _) in zip(plan.buckets[p], kept[p], strict=True):
            g = upstream.get(m.output)
            belief = cond if g is None else cond * g
            for k in m.inputs:
                if k < plan.n_factors:
                    continue
                keep_axes = set(plan.scopes[k])
                axes = tuple(j for j, u in enumerate(scope) if u not in keep_axes)
                upstream[k] = belief.sum(axis=axes)
    return upstream


def run(model: DiscreteModel, plan: Plan, mode: str, n_iter: int) -> Pass:
    """Mini-bucket elimination along ``plan`` (``mode``: ``"sum"`` or ``"max"``).

    ``n_iter = 0``: no cost shifting. Else, for ``"max"``, one pass with max-marginal
    matching; for ``"sum"``, ``n_iter`` passes with moment matching, the first on local
    beliefs, each later one on the beliefs of the pass before (:func:`_backward`); the
    pass of the lowest bound is kept.
    """
    start = time.perf_counter()
    state = _State({}, {})
    best = _forward(model, plan, mode, state, None, n_iter > 0)
    passes = 1 if mode == "max" or not plan.split else max(n_iter, 1)
    step = 1.0
    for _ in range(passes - 1):
        if best[0] == -np.inf:
            break
        trial = state.copy()
        res = _forward(model, plan, mode, trial, _backward(plan, best[1]), True, step)
        if res[0] < best[0]:
            best, state = res, trial
        else:  # too long a step: back to the best pass, half the step
            step *= 0.5
    return Pass(best[0], best[1], time.perf_counter() - start)


def _match_max(tables: list[np.ndarray], shifts: list[np.ndarray]) -> None:
    """Max-marginal matching of a split bucket, in place: each mini-bucket's max-marginal
    on ``v`` is moved to their mean (the shifts add up to zero; values forbidden by one
    mini-bucket are already forbidden in all)."""
    mus = [t.max(axis=tuple(range(1, t.ndim))) for t in tables]
    ok = np.all(np.isfinite(np.stack(mus)), axis=0)
    mean = np.sum([np.where(ok, mu, 0.0) for mu in mus], axis=0) / len(tables)
    for t, mu, s in zip(tables, mus, shifts, strict=True):
        delta = np.where(ok, mean - np.where(ok, mu, 0.0), 0.0)
        s += delta
        t += delta.reshape((-1,) + (1,) * (t.ndim - 1))


def _rows(table: np.ndarray, scope: tuple[int, ...], X: np.ndarray) -> np.ndarray:
    """``table[:, x_S]`` for every row of ``X`` (positions): shape ``(N, c)``."""
    moved = np.moveaxis(table, 0, -1)
    if len(scope) == 1:
        return np.broadcast_to(moved, (X.shape[0], moved.shape[-1]))
    return moved[tuple(X[:, u] for u in scope[1:])]


def sample(plan: Plan, result: Pass, n_samples: int, rng: Any) -> tuple[np.ndarray, np.ndarray]:
    """Ancestral sampling of the weighted mini-bucket proposal (Liu, Fisher & Ihler 2015):
    ``n_samples`` assignments (variable order) and ``log q`` of each, all at once."""
    return _ancestral(plan, result, n_samples, rng, None)


def log_proposal(plan: Plan, result: Pass, X: np.ndarray) -> np.ndarray:
    """``log q(x)`` of the proposal that :func:`sample` draws from, for the rows of ``X``
    (assignments in variable order)."""
    return _ancestral(plan, result, X.shape[0], None, X)[1]


def _ancestral(
    plan: Plan, result: Pass, n_samples: int, rng: Any, given: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Draw (or, with ``given``, evaluate) the proposal in reverse elimination order:
    ``q(x_v | x_later) ∝ prod_r q_r(x_v | x_S)^(w_r)``, the normalised geometric mean of
    the mini-buckets' conditionals. A mini-bucket that forbids every value of ``v`` given
    its ``x_S`` counts as 1, and where every value is forbidden by some mini-bucket (the
    target is 0 for all of them) ``q`` is uniform.

    Unbiased: where ``exp(score(x)) > 0`` every ``q_r`` is positive (messages bound the
    sums they replace from above, pointwise), so ``q(x) > 0``. Bounded: the normaliser
    ``sum_v prod_r q_r^(w_r) <= sum_v sum_r w_r q_r = 1`` (arithmetic-geometric mean), so
    ``prod_r q_r^(w_r) <= q`` and the weights stay below the bound, as for the mixture
    ``sum_r w_r q_r`` of Liu, Fisher & Ihler (2015), which wastes samples on values that
    one mini-bucket forbids."""
    n = len(plan.cards)
    X = np.zeros((n_samples, n), dtype=np.int64) if given is None else given[:, plan.order]
    log_q = np.zeros(n_samples)
    every = np.arange(n_samples)
    for p in range(n - 1, -1, -1):
        c = plan.cards[p]
        minis = result.kept[p]
        log_g = np.zeros((n_samples, c))  # sum_r w_r log q_r(x_v | x_S)
        Q = np.full((n_samples, c), 1.0 / c)  # where log_g is -inf throughout: uniform
        for scope, cond, w in minis:
            rows = _rows(cond, scope, X)
            mass = rows.sum(axis=1, keepdims=True)
            with np.errstate(divide="ignore"):
                log_g += w * np.log(np.where(mass > 0, rows / np.where(mass > 0, mass, 1.0), 1.0))
        top = log_g.max(axis=1, keepdims=True)
        ok = np.isfinite(top[:, 0])
        Q[ok] = np.exp(log_g[ok] - top[ok])
        Q /= Q.sum(axis=1, keepdims=True)
        if given is None:
            cdf = np.cumsum(Q, axis=1)
            u = rng.random_sample(n_samples) * cdf[:, -1]
            x = (cdf <= u[:, None]).sum(axis=1)
            over = x >= c  # (rounding at the top) the last value of positive probability
            if over.any():
                x[over] = c - 1 - np.argmax(Q[over][:, ::-1] > 0, axis=1)
            X[:, p] = x
        with np.errstate(divide="ignore"):  # (only a given x can have q = 0)
            log_q += np.log(Q[every, X[:, p]])
    out = np.empty_like(X)
    out[:, plan.order] = X
    return out, log_q


def decode(plan: Plan, result: Pass, n_candidates: int = 1, rng: Any = None) -> np.ndarray:
    """Assignments (rows, variable order) from a max pass, in reverse elimination order:
    each variable takes, given the values chosen so far, the value maximising the sum of
    its bucket's (shifted) tables (ties: the smallest value) in the first row, and a value
    drawn with probability ``∝ exp(sum)`` in the others (where every value is ``-inf``:
    uniformly; ``rng`` draws them)."""
    n = len(plan.cards)
    X = np.zeros((n_candidates, n), dtype=np.int64)
    for p in range(n - 1, -1, -1):
        minis = result.kept[p]
        if not minis:
            continue
        c = plan.cards[p]
        S = np.zeros((n_candidates, c))
        for scope, table, _ in minis:
            S += _rows(table, scope, X)
        X[0, p] = int(np.argmax(S[0]))
        if n_candidates > 1:
            top = S[1:].max(axis=1, keepdims=True)
            P = np.exp(S[1:] - np.where(np.isfinite(top), top, 0.0))
            P[~np.isfinite(top[:, 0])] = 1.0
            cdf = np.cumsum(P, axis=1)
            u = rng.random_sample(n_candidates - 1) * cdf[:, -1]
            X[1:, p] = np.minimum((cdf <= u[:, None]).sum(axis=1), c - 1)
    out = np.empty_like(X)
    out[:, plan.order] = X
    return out


# -- local search -----------------------------------------------------------------------------


def _colour_classes(model: DiscreteModel) -> list[np.ndarray]:
    """The variables by colour of a greedy colouring of the interaction graph (variables
    of one class share no factor)."""
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(model.n_variables))
    for g in model.groups():
        s = g.scopes
        for a in range(s.shape[1]):
            for b in range(a + 1, s.shape[1]):
                G.add_edges_from(zip(s[:, a].tolist(), s[:, b].tolist(), strict=True))
    colour = nx.greedy_color(G, strategy="largest_first")
    classes: dict[int, list[int]] = {}
    for v, c in colour.items():
        classes.setdefault(c, []).append(v)
    return [np.array(sorted(vs), dtype=np.int64) for _, vs in sorted(classes.items())]


def _conditional_scores(model: DiscreteModel, x: np.ndarray, members: np.ndarray) -> np.ndarray:
    """``(n, K)``: for the variables with ``members[v]``, the sum of the entries of the
    factors on ``v`` with ``x_v`` set to each value and the others at ``x`` (``-inf`` on
    the padding beyond a cardinality)."""
    n = model.n_variables
    K = int(model.cardinalities.max(initial=1))
    out = np.zeros((n, K))
    for g in model.groups():
        k = g.arity
        vals = x[g.scopes]
        for p in range(k):
            rows = np.flatnonzero(members[g.scopes[:, p]])
            if rows.size == 0:
                continue
            index: list[Any] = [rows]
            index += [slice(None) if j == p else vals[rows, j] for j in range(k)]
            entries = g.tables[tuple(index)]  # (rows, c_p)
            c = entries.shape[1]
            np.add.at(out, (g.scopes[rows, p][:, None], np.arange(c)[None, :]), entries)
    valid = np.arange(K)[None, :] < model.cardinalities[:, None]
    return np.where(valid, out, -np.inf)


def improve(model: DiscreteModel, x: np.ndarray, max_iter: int = 100) -> np.ndarray:
    """Iterated conditional modes from ``x``: each colour class at once, every variable
    moves to the value of highest conditional score when that beats its own (so the
    score never falls), until no variable moves or ``max_iter`` sweeps."""
    x = np.array(x, dtype=np.int64)
    classes = _colour_classes(model)
    for _ in range(max_iter):
        moved = False
        for cl in classes:
            members = np.zeros(model.n_variables, dtype=bool)
            members[cl] = True
            L = _conditional_scores(model, x, members)[cl]
            best = np.argmax(L, axis=1)
            better = L[np.arange(cl.size), best] > L[np.arange(cl.size), x[cl]]
            if better.any():
                x[cl[better]] = best[better]
                moved = True
        if not moved:
            break
    return x
