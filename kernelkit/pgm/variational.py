"""Naive mean field for a :class:`~kernelkit.pgm.model.DiscreteModel`.

Approximate ``p(x) = exp(score(x)) / Z`` by a product ``q(x) = prod_v q_v(x_v)`` maximising
the evidence lower bound

``L(q) = E_q[score(X)] + sum_v H(q_v) <= log Z``

by coordinate ascent: ``q_v(x_v) ∝ exp(E_{q_{-v}}[sum_{f ∋ v} theta_f(x_v, X_{f \\ v})])``.
Variables that share no factor are updated together (a colour class of the interaction
graph), which is the same as updating them one after another, so every update increases
``L``. For a binary pairwise model (an Ising model in ``{0, 1}`` variables with fields
``beta_s`` and couplings ``beta_st``) the update is the lecture notes' ``mu_s <-
sigma(beta_s + sum_t beta_st mu_t)``, computed with a sparse coupling matrix.

Examples
--------
>>> import networkx as nx
>>> from kernelkit.pgm.model import ising
>>> m = ising(nx.cycle_graph(4), fields=0.3, couplings=0.5)
>>> r = mean_field(m)
>>> r.converged, round(float(r.marginals[0][1]), 4)  # exact: 0.7332
(True, 0.7386)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit

from kernelkit._validation import check_int
from kernelkit.pgm._guards import (
    check_per_variable_memory,
    feasible_domains,
    finite_sum,
    power_of_two_scale,
)
from kernelkit.pgm.belief_propagation import (
    _check_tol,
    _FactorGraph,
    _interaction_colouring,
    _ising_parameters,
    _normalise_rows,
)
from kernelkit.pgm.model import DiscreteModel, _check_model

__all__ = ["MeanFieldResult", "mean_field"]


@dataclass(frozen=True, eq=False)
class MeanFieldResult:
    """The result of :func:`mean_field`.

    Attributes
    ----------
    marginals : list of ndarray
        ``q_v``, one array per variable (summing to 1).
    lower_bound : float
        ``E_q[score] + sum_v H(q_v)``, a lower bound on ``log Z``; finite (a ``q`` that
        puts mass on a forbidden joint value, of bound ``-inf``, raises a ValueError).
    converged : bool
        Whether the largest change of a ``q_v(x)`` in the last sweep was below ``tol``.
    n_iter : int
        The number of sweeps (each updates every variable once).
    """

    marginals: list[np.ndarray]
    lower_bound: float
    converged: bool
    n_iter: int


def _contract(tables: np.ndarray, q: list[np.ndarray], keep: int | None) -> np.ndarray:
    """``E[theta_f(X)]`` under product weights ``q[i]`` (shape ``(n, c_i)``) over every scope
    position except ``keep``; zero weights contribute 0 even against ``-inf`` entries."""
    B = tables
    for i in reversed(range(len(q))):
        if i == keep:
            continue
        shape = [q[i].shape[0]] + [1] * (B.ndim - 1)
        shape[i + 1] = q[i].shape[1]
        w = q[i].reshape(shape)
        with np.errstate(invalid="ignore"):
            B = np.where(w > 0, B * w, 0.0).sum(axis=i + 1)
    return B


def _lower_bound(fg: _FactorGraph, probs: np.ndarray) -> float:
    """``E_q[score] + sum_v H(q_v)`` for ``(n, K)`` marginals (zero padding); a sum of
    expectations near ``1e308`` that cancel is added up without overflow."""
    terms = []
    for g in fg.groups:
        q = [probs[g.scopes[:, i], : g.tables.shape[i + 1]] for i in range(g.arity)]
        terms.append((1.0, _contract(g.tables, q, None)))
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(probs > 0, probs * np.log(probs), 0.0).sum()
    terms.append((1.0, np.array(ent)))
    return finite_sum(terms, "mean_field: the lower bound E_q[score] + H(q)")


def mean_field(
    model: DiscreteModel,
    *,
    max_iter: int = 1000,
    tol: float = 1e-8,
    initial: Any = None,
) -> MeanFieldResult:
    """Naive mean field: the product distribution maximising the evidence lower bound.

    Parameters
    ----------
    model : DiscreteModel
        The model; ``-inf`` entries (hard constraints) are allowed.
    max_iter : int >= 0, default=1000
        Sweeps of coordinate ascent.
    tol : float >= 0, default=1e-8
        Stop when no ``q_v(x)`` changes by more than ``tol`` in a sweep.
    initial : sequence of array-like, optional
        Starting marginals, one per variable (nonnegative, normalised here); default
        uniform. (For a model symmetric under flipping all spins the uniform start is a
        fixed point; pass an asymmetric start to break the symmetry.) With hard
        constraints (``-inf`` entries), values that arc consistency rules out (they have
        probability 0) are first removed from the start (a start left with no value on
        a variable becomes uniform on its remaining values). While ``q`` puts mass on
        forbidden joint values, a variable all of whose values have expected score
        ``-inf`` moves to the value that meets the least forbidden mass (ties: the
        highest expected finite score, then the smallest value): the limit, as the
        penalty ``M`` of a forbidden value grows, of the update with ``-inf`` replaced
        by ``-M``; once the support of ``q`` avoids every forbidden joint value it does
        so ever after, and each update increases the bound.

    Returns
    -------
    MeanFieldResult
        ``marginals``, ``lower_bound`` (``<= log Z``), ``converged``, ``n_iter``.

    Raises
    ------
    ValueError
        ``max_iter < 0``, ``tol < 0``, ``initial`` of the wrong shapes or not a
        distribution; a model whose ``-inf`` entries forbid every assignment (found by arc
        consistency), or for which the sweeps end at a ``q`` that still puts mass on
        forbidden joint values (no product distribution was found that avoids them:
        every one does when the model forbids every assignment); a model whose
        per-variable arrays could never fit in memory.

    Examples
    --------
    Without pairwise factors mean field is exact:

    >>> from kernelkit.pgm.model import DiscreteModel
    >>> m = DiscreteModel([2, 3], [((0,), [0.0, 1.0]), ((1,), [0.0, 0.0, 1.0])])
    >>> r = mean_field(m)
    >>> round(r.lower_bound, 6) == round(float(np.log(1 + np.e) + np.log(2 + np.e)), 6)
    True
    """
    model = _check_model(model)
    max_iter = check_int(max_iter, "max_iter", minimum=0)
    tol = _check_tol(tol)
    check_per_variable_memory(model, "mean_field", 6)
    domains = feasible_domains(model, "marginals")  # None without -inf entries
    fg = _FactorGraph(model)
    n = fg.n
    allowed = fg.valid if domains is None else domains
    uniform = allowed / allowed.sum(axis=1, keepdims=True)
    probs = uniform
    if initial is not None:
        probs = _check_initial(initial, fg)
        if domains is not None:  # drop the values of probability 0
            probs = np.where(domains, probs, 0.0)
            mass = probs.sum(axis=1, keepdims=True)
            probs = np.where(mass > 0, probs / np.where(mass > 0, mass, 1.0), uniform)
    scale = power_of_two_scale(model)

    ising = _ising_parameters(model)
    classes = _interaction_colouring(model)
    converged = False
    n_iter = 0
    if ising is not None:
        h, J = ising
        blocks = [(cl, J[cl]) for cl in classes]
        mu = probs[:, 1].copy()
        for n_iter in range(1, max_iter + 1):  # noqa: B007
            old = mu.copy()
            for cl, Jc in blocks:
                mu[cl] = expit(h[cl] + Jc @ mu)
            if np.max(np.abs(mu - old), initial=0.0) <= tol:
                converged = True
                break
        probs = np.stack([1.0 - mu, mu], axis=1)
    else:
        for n_iter in range(1, max_iter + 1):  # noqa: B007
            old = probs.copy()
            for cl in classes:
                L = _expected_scores(fg, probs, scale)[cl]
                stuck = np.flatnonzero(np.all(np.isneginf(L), axis=1))
                new = np.exp(_normalise_rows(L, "sum"))
                if stuck.size:  # every value meets forbidden mass: the least of it wins
                    new[stuck] = _least_forbidden(fg, probs, allowed, cl[stuck], scale, tol)
                probs[cl] = new
            if np.max(np.abs(probs - old), initial=0.0) <= tol:
                converged = True
                break
    marginals = [probs[v, : fg.cards[v]] for v in range(n)]
    bound = _lower_bound(fg, probs)
    if bound == -np.inf:
        how = "converged to" if converged else f"ended, after {n_iter} sweeps, at"
        raise ValueError(
            f"mean_field found no assignment of positive probability: its sweeps {how} "
            "marginals that put mass on assignments forbidden by the -inf entries (lower "
            "bound -inf). The model may forbid every assignment (exact_log_partition(model) "
            "== -inf tells on small models); if not, pass initial= marginals whose support "
            "avoids the forbidden values, or more max_iter"
        )
    return MeanFieldResult(marginals, bound, converged, n_iter)


def _expected_scores(fg: _FactorGraph, probs: np.ndarray, scale: float) -> np.ndarray:
    """``(n, K)``: ``E_{q_{-v}}[sum_{f ∋ v} theta_f(x_v, X_{f \\ v})]`` for every variable
    and value (``-inf`` where ``q`` meets a forbidden joint value; padding ``-inf``). With
    ``scale < 1`` (log-potentials near ``1e308``, whose sums could overflow) each row is
    computed in units of ``1 / scale`` and shifted to a maximum of 0 (the update is
    invariant to the shift), then scaled back: only entries that are more than ``1.8e308``
    below the row's top reach ``-inf``, of probability 0 either way."""
    n, K = fg.n, fg.K
    logits = np.zeros(n * K)
    for g in fg.groups:
        q = [probs[g.scopes[:, i], : g.tables.shape[i + 1]] for i in range(g.arity)]
        for p in range(g.arity):
            e = _contract(g.tables, q, p)
            if scale != 1.0:
                e = e * scale
            idx = g.scopes[:, p][:, None] * K + np.arange(e.shape[1])[None, :]
            logits += np.bincount(idx.ravel(), weights=e.ravel(), minlength=n * K)
    L = np.where(fg.valid, logits.reshape(n, K), -np.inf)
    if scale != 1.0:
        top = L.max(axis=1, initial=-np.inf)
        with np.errstate(over="ignore"):
            L = (L - np.where(np.isfinite(top), top, 0.0)[:, None]) / scale
    return L


def _least_forbidden(
    fg: _FactorGraph,
    probs: np.ndarray,
    allowed: np.ndarray,
    rows: np.ndarray,
    scale: float,
    tol: float,
) -> np.ndarray:
    """New ``q_v`` ``(len(rows), K)`` for the variables ``rows``, every value of which meets
    forbidden mass under ``q`` (``allowed``: the values arc consistency leaves): the limit
    of the update with ``-inf`` replaced by ``-M``, ``M -> inf``: ``q_v ∝ exp(E[finite
    part])`` on the values whose factors put the least ``q``-mass on forbidden joint values.
    Where that leaves ``q_v`` as it was (a symmetric start, as ``x_0 == x_1`` from uniform
    marginals), a point mass on the first of those values with the highest expected finite
    score breaks the tie."""
    n, K = fg.n, fg.K
    mass = np.zeros(n * K)
    finite = np.zeros(n * K)
    for g in fg.groups:
        q = [probs[g.scopes[:, i], : g.tables.shape[i + 1]] for i in range(g.arity)]
        forbidden = np.isneginf(g.tables)
        allowed_tables = np.where(forbidden, 0.0, g.tables) * scale
        for p in range(g.arity):
            idx = (g.scopes[:, p][:, None] * K + np.arange(g.tables.shape[p + 1])[None, :]).ravel()
            m = _contract(forbidden.astype(np.float64), q, p)
            mass += np.bincount(idx, weights=m.ravel(), minlength=n * K)
            e = _contract(allowed_tables, q, p)
            finite += np.bincount(idx, weights=e.ravel(), minlength=n * K)
    valid = allowed[rows]
    mass = np.where(valid, mass.reshape(n, K)[rows], np.inf)
    finite = np.where(valid, finite.reshape(n, K)[rows], -np.inf)
    least = mass == mass.min(axis=1, keepdims=True)
    logits = np.where(least, finite, -np.inf)
    if scale != 1.0:
        top = logits.max(axis=1, keepdims=True)
        with np.errstate(over="ignore"):
            logits = (logits - top) / scale
    out = np.exp(_normalise_rows(logits, "sum"))
    same = np.max(np.abs(out - probs[rows]), axis=1) <= tol
    if same.any():
        choice = np.argmax(logits[same], axis=1)
        out[same] = 0.0
        out[np.flatnonzero(same), choice] = 1.0
    return out


def _check_initial(initial: Any, fg: _FactorGraph) -> np.ndarray:
    try:
        items = list(initial)
    except TypeError:
        raise TypeError(
            f"initial must be a sequence of arrays, one per variable, got {type(initial).__name__}"
        ) from None
    if len(items) != fg.n:
        raise ValueError(f"initial must have one array per variable ({fg.n}), got {len(items)}")
    probs = np.zeros((fg.n, fg.K))
    for v, a in enumerate(items):
        arr = np.asarray(a, dtype=np.float64)
        if arr.shape != (fg.cards[v],):
            raise ValueError(f"initial[{v}] must have shape ({fg.cards[v]},), got {arr.shape}")
        if not (np.all(np.isfinite(arr)) and np.all(arr >= 0) and arr.sum() > 0):
            raise ValueError(f"initial[{v}] must be nonnegative, finite and not all zero")
        probs[v, : fg.cards[v]] = arr / arr.sum()
    return probs
