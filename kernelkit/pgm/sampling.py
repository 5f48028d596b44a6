"""Gibbs sampling from a :class:`~kernelkit.pgm.model.DiscreteModel`.

Each step redraws one variable from its conditional given all the others,
``p(x_v | x_{-v}) ∝ exp(sum_{f ∋ v} theta_f(x_v, x_{f \\ v}))``. A *sweep* updates every
variable once, a colour class of the interaction graph at a time: variables that share no
factor are conditionally independent given the rest, so redrawing a class at once is the
same as redrawing its variables one after another (a systematic-scan Gibbs sampler; on a
grid, the checkerboard schedule). For binary pairwise models the conditional is the lecture
notes' ``z_s = 1`` with probability ``sigma(beta_s + sum_t beta_st z_t)``,
computed with a sparse coupling matrix.

Examples
--------
>>> import networkx as nx
>>> from kernelkit.pgm.model import ising
>>> m = ising(nx.path_graph(3), fields=0.5, couplings=1.0)
>>> r = gibbs_sample(m, 2000, burn_in=100, random_state=0)
>>> r.samples.shape, r.samples.dtype
((2000, 3), dtype('int64'))
>>> bool(abs(r.marginals[0][1] - 0.7934) < 0.05)  # exact p(x_0 = 1) = 0.7934
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._validation import check_int, check_random_state
from kernelkit.pgm.belief_propagation import (
    _interaction_colouring,
    _ising_parameters,
    _normalise_rows,
)
from kernelkit.pgm.model import DiscreteModel, _check_model

__all__ = ["GibbsResult", "gibbs_sample"]


@dataclass(frozen=True, eq=False)
class GibbsResult:
    """The result of :func:`gibbs_sample`.

    Attributes
    ----------
    samples : ndarray of int64, shape (n_samples, n_variables)
        The recorded states of the chain, in order.
    marginals : list of ndarray
        One array per variable: the fraction of samples taking each value.
    """

    samples: np.ndarray
    marginals: list[np.ndarray]


def gibbs_sample(
    model: DiscreteModel,
    n_samples: int,
    *,
    burn_in: int = 100,
    thin: int = 1,
    random_state: Any = None,
    initial: Any = None,
) -> GibbsResult:
    """Draw samples from ``p(x) ∝ exp(score(x))`` by systematic-scan Gibbs sampling.

    Parameters
    ----------
    model : DiscreteModel
        The model; ``-inf`` entries (hard constraints) are allowed.
    n_samples : int >= 1
        The number of samples recorded.
    burn_in : int >= 0, default=100
        Sweeps discarded before the first sample.
    thin : int >= 1, default=1
        Sweeps between recorded samples (one sample is recorded after every ``thin``
        sweeps).
    random_state : None, int, RandomState or Generator
        The same value gives the same samples.
    initial : array-like of int, shape (n_variables,), optional
        The starting state; default uniformly random. With hard constraints (``-inf``
        entries) start from a feasible state: a variable whose every value is forbidden
        given the others is redrawn uniformly. (Hard constraints that tie variables
        together, such as ``x_1 != x_2`` on binary variables, make single-site Gibbs
        sampling non-ergodic: the chain cannot leave the start's component.)

    Returns
    -------
    GibbsResult
        ``samples`` and the estimated ``marginals``.

    Raises
    ------
    ValueError
        ``n_samples < 1``, ``burn_in < 0``, ``thin < 1``, ``initial`` of the wrong shape or
        outside the domains.
    TypeError
        Non-integer counts; a bad ``random_state``.

    Examples
    --------
    >>> from kernelkit.pgm.model import DiscreteModel
    >>> m = DiscreteModel([3], [((0,), [0.0, 0.0, -np.inf])])
    >>> r = gibbs_sample(m, 5, burn_in=0, random_state=1)
    >>> sorted(set(r.samples[:, 0].tolist())) <= [0, 1]
    True
    """
    return _gibbs(
        model,
        n_samples,
        burn_in=burn_in,
        thin=thin,
        random_state=random_state,
        initial=initial,
        fast=True,
    )


def _gibbs(
    model: Any,
    n_samples: Any,
    *,
    burn_in: Any,
    thin: Any,
    random_state: Any,
    initial: Any,
    fast: bool,
) -> GibbsResult:
    """:func:`gibbs_sample`; ``fast=False`` forces the general path (for tests: both paths
    use the same random numbers, so they give the same samples)."""
    model = _check_model(model)
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    burn_in = check_int(burn_in, "burn_in", minimum=0)
    thin = check_int(thin, "thin", minimum=1)
    rng = check_random_state(random_state)
    n = model.n_variables
    cards = model.cardinalities
    K = int(cards.max(initial=1))
    valid = np.arange(K)[None, :] < cards[:, None]
    if initial is None:
        x = np.minimum((rng.random_sample(n) * cards).astype(np.int64), cards - 1)
    else:
        x = _check_initial(initial, cards)
    classes = _interaction_colouring(model)
    samples = np.empty((n_samples, n), dtype=np.int64)
    n_sweeps = burn_in + n_samples * thin

    ising = _ising_parameters(model) if fast else None
    if ising is not None:
        h, J = ising
        blocks = [(cl, h[cl], J[cl]) for cl in classes]
        z = x.astype(np.float64)
        for t in range(1, n_sweeps + 1):
            for cl, hc, Jc in blocks:
                u = rng.random_sample(cl.size)
                logit = hc + Jc @ z
                p0 = np.exp(-np.logaddexp(0.0, logit))  # P(z = 0) = sigma(-logit)
                z[cl] = u > p0
            if t > burn_in and (t - burn_in) % thin == 0:
                samples[(t - burn_in) // thin - 1] = z
    else:
        groups = model.groups()
        in_class = np.zeros(n, dtype=np.int64)
        for c, cl in enumerate(classes):
            in_class[cl] = c
        # per class, per group and scope position: the factors whose variable there is in it
        plan = [
            [
                [np.flatnonzero(in_class[g.scopes[:, p]] == c) for p in range(g.arity)]
                for g in groups
            ]
            for c in range(len(classes))
        ]
        for t in range(1, n_sweeps + 1):
            for c, cl in enumerate(classes):
                u = rng.random_sample(cl.size)
                logits = np.zeros(n * K)
                for g, rows_p in zip(groups, plan[c], strict=True):
                    for p, rows in enumerate(rows_p):
                        if rows.size == 0:
                            continue
                        sc = g.scopes[rows]
                        index: list[Any] = [rows]
                        for q in range(g.arity):
                            index.append(slice(None) if q == p else x[sc[:, q]])
                        vals = g.tables[tuple(index)]  # (len(rows), c_p)
                        idx = sc[:, p][:, None] * K + np.arange(vals.shape[1])[None, :]
                        logits += np.bincount(idx.ravel(), weights=vals.ravel(), minlength=n * K)
                L = np.where(valid, logits.reshape(n, K), -np.inf)[cl]
                stuck = np.all(np.isneginf(L), axis=1)
                L = np.where(stuck[:, None] & valid[cl], 0.0, L)
                cdf = np.cumsum(np.exp(_normalise_rows(L, "sum")), axis=1)
                new = (u[:, None] > cdf[:, :-1]).sum(axis=1)
                x[cl] = np.minimum(new, cards[cl] - 1)
            if t > burn_in and (t - burn_in) % thin == 0:
                samples[(t - burn_in) // thin - 1] = x
    counts = (
        np.bincount((np.arange(n)[None, :] * K + samples).ravel(), minlength=n * K).reshape(n, K)
        / n_samples
    )
    marginals = [counts[v, : cards[v]] for v in range(n)]
    return GibbsResult(samples, marginals)


def _check_initial(initial: Any, cards: np.ndarray) -> np.ndarray:
    arr = np.asarray(initial)
    if arr.shape != cards.shape:
        raise ValueError(f"initial must have shape ({cards.shape[0]},), got {arr.shape}")
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
        if not (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr))):
            raise TypeError(f"initial must be integer values, got dtype {arr.dtype}")
    x = arr.astype(np.int64)
    if np.any((x < 0) | (x >= cards)):
        v = int(np.flatnonzero((x < 0) | (x >= cards))[0])
        raise ValueError(
            f"initial[{v}] = {x[v]} is outside the domain 0..{cards[v] - 1} of variable {v}"
        )
    return x.copy()
