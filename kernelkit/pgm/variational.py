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
        ``E_q[score] + sum_v H(q_v)``, a lower bound on ``log Z`` (``-inf`` when ``q`` puts
        mass on a forbidden joint value).
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
    """``E_q[score] + sum_v H(q_v)`` for ``(n, K)`` marginals (zero padding)."""
    total = 0.0
    for g in fg.groups:
        q = [probs[g.scopes[:, i], : g.tables.shape[i + 1]] for i in range(g.arity)]
        total += float(_contract(g.tables, q, None).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(probs > 0, probs * np.log(probs), 0.0).sum()
    return total + float(ent)


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
        fixed point; pass an asymmetric start to break the symmetry. With hard
        constraints (``-inf`` entries), start from marginals whose support is feasible:
        a variable all of whose values have expected score ``-inf`` keeps its ``q_v``.)

    Returns
    -------
    MeanFieldResult
        ``marginals``, ``lower_bound`` (``<= log Z``), ``converged``, ``n_iter``.

    Raises
    ------
    ValueError
        ``max_iter < 0``, ``tol < 0``, ``initial`` of the wrong shapes or not a
        distribution.

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
    fg = _FactorGraph(model)
    n, K = fg.n, fg.K
    probs = np.where(fg.valid, 1.0, 0.0) / fg.cards[:, None]
    if initial is not None:
        probs = _check_initial(initial, fg)

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
                logits = np.zeros(n * K)
                for g in fg.groups:
                    q = [probs[g.scopes[:, i], : g.tables.shape[i + 1]] for i in range(g.arity)]
                    for p in range(g.arity):
                        e = _contract(g.tables, q, p)
                        idx = g.scopes[:, p][:, None] * K + np.arange(e.shape[1])[None, :]
                        logits += np.bincount(idx.ravel(), weights=e.ravel(), minlength=n * K)
                L = np.where(fg.valid, logits.reshape(n, K), -np.inf)[cl]
                allneg = np.all(np.isneginf(L), axis=1)  # every value forbidden: keep q_v
                new = np.exp(_normalise_rows(L, "sum"))
                probs[cl] = np.where(allneg[:, None], probs[cl], new)
            if np.max(np.abs(probs - old), initial=0.0) <= tol:
                converged = True
                break
    marginals = [probs[v, : fg.cards[v]] for v in range(n)]
    return MeanFieldResult(marginals, _lower_bound(fg, probs), converged, n_iter)


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
