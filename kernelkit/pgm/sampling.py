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

from kernelkit import _memory
from kernelkit._validation import check_int, check_random_state
from kernelkit.pgm._guards import (
    check_per_variable_memory,
    feasible_domains,
    power_of_two_scale,
)
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
        The starting state; default uniformly random (with hard constraints, ``-inf``
        entries, uniformly among the values that arc consistency leaves possible). With
        hard constraints start from a feasible state if you know one: while the state
        is forbidden, a variable whose every value is forbidden given the others is
        redrawn uniformly among its possible values; once the state is allowed it stays
        allowed. (Hard constraints that tie variables together, such as ``x_1 != x_2`` on
        binary variables, make single-site Gibbs sampling non-ergodic: the chain cannot
        leave the start's component.)

    Returns
    -------
    GibbsResult
        ``samples`` and the estimated ``marginals``.

    Raises
    ------
    ValueError
        ``n_samples < 1``, ``burn_in < 0``, ``thin < 1``, ``initial`` of the wrong shape or
        outside the domains; a model whose ``-inf`` entries forbid every assignment
        (found by arc consistency, as the exact methods' error), or a chain still in a
        forbidden state when the first sample is recorded (no assignment of positive
        probability found: never a sample of probability 0); a model whose per-variable
        arrays could never fit in memory.
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
    check_per_variable_memory(model, "gibbs_sample", 4)
    _memory.check_memory(
        8 * n_samples * model.n_variables,
        f"gibbs_sample(n_samples={n_samples}) of {model.n_variables} variables: samples of "
        f"shape ({n_samples}, {model.n_variables})",
        "ask for fewer samples (n_samples), or thin the chain more",
    )
    domains = feasible_domains(model, "assignment to sample")  # None without -inf entries
    n = model.n_variables
    cards = model.cardinalities
    K = int(cards.max(initial=1))
    valid = np.arange(K)[None, :] < cards[:, None] if domains is None else domains
    if initial is None:
        sizes = valid.sum(axis=1)
        k = np.minimum((rng.random_sample(n) * sizes).astype(np.int64), sizes - 1)
        x = k if domains is None else _kth_allowed(valid, k)
    else:
        x = _check_initial(initial, cards)
    scale = power_of_two_scale(model)
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
                        if scale != 1.0:  # log-potentials near 1e308: sums in 1 / scale units
                            vals = vals * scale
                        idx = sc[:, p][:, None] * K + np.arange(vals.shape[1])[None, :]
                        logits += np.bincount(idx.ravel(), weights=vals.ravel(), minlength=n * K)
                L = np.where(valid, logits.reshape(n, K), -np.inf)[cl]
                if scale != 1.0:  # shift each row's top to 0, then back to log units
                    top = L.max(axis=1)
                    with np.errstate(over="ignore"):
                        L = (L - np.where(np.isfinite(top), top, 0.0)[:, None]) / scale
                stuck = np.all(np.isneginf(L), axis=1)
                L = np.where(stuck[:, None] & valid[cl], 0.0, L)
                cdf = np.cumsum(np.exp(_normalise_rows(L, "sum")), axis=1)
                new = (u[:, None] > cdf[:, :-1]).sum(axis=1)
                x[cl] = np.minimum(new, cards[cl] - 1)
            if t > burn_in and (t - burn_in) % thin == 0:
                samples[(t - burn_in) // thin - 1] = x
        # An allowed state stays allowed (a variable's current value has positive
        # probability given the others): the first sample decides for all of them.
        if domains is not None and model.score(samples[0]) == -np.inf:
            raise ValueError(
                "gibbs_sample found no assignment of positive probability: after "
                f"{burn_in + thin} sweeps the chain is still in a state forbidden by the "
                "model's -inf entries, and every sample would have probability 0. The model "
                "may forbid every assignment (exact_log_partition(model) == -inf tells on "
                "small models); if not, start from an allowed state with initial= (hard "
                "constraints can make single-site Gibbs sampling non-ergodic)"
            )
    counts = (
        np.bincount((np.arange(n)[None, :] * K + samples).ravel(), minlength=n * K).reshape(n, K)
        / n_samples
    )
    marginals = [counts[v, : cards[v]] for v in range(n)]
    return GibbsResult(samples, marginals)


def _kth_allowed(allowed: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per row of the boolean ``(n, K)`` array ``allowed``, the index of its ``k``-th True."""
    rank = np.cumsum(allowed, axis=1) - 1  # rank of each True among its row's
    hit = allowed & (rank == k[:, None])
    return np.argmax(hit, axis=1).astype(np.int64)


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
