"""Exact MAP inference for almost balanced binary pairwise models (Rowland 2018, Ch. 3).

A binary pairwise model is *almost balanced* (Def. 3.1) when deleting one vertex ``s``
(a *distinguished vertex*) leaves a balanced model (Def. 1.12: no cycle with an odd number
of repulsive edges). Two exact MAP algorithms follow:

* **clamping** (§3.2, after Thm 3.2): clamping ``X_s`` to 0 and to 1 (Def. 2.1) gives two
  balanced models over ``V \\ {s}``, on which the local polytope ``L_2`` is tight
  (Thm 1.14); solve both LPs and keep the better assignment —
  :func:`almost_balanced_map`;
* **one LP over** ``L_3^s`` (eq. 3.2: LOC on every pair, TRI only on the triples through
  ``s``), which is tight for every almost balanced model with distinguished vertex ``s``
  (Thm 3.2(i)) — :func:`almost_balanced_lp_map`, a thin wrapper around
  ``lp_relaxation(model, "L3s", s=s)`` that finds (or checks) ``s`` first.

Plain ``L_2`` is in general *not* tight on these models: the frustrated triangle (every
triangle is almost balanced) already has a gap.

:func:`random_almost_balanced_model` draws random almost balanced models (a random graph,
a balanced signing of the edges away from ``s``, arbitrary signs on ``s``'s edges).

Examples
--------
The frustrated triangle: ``L_2`` is loose, clamping and ``L_3^s`` are exact.

>>> import networkx as nx
>>> from kernelkit.pgm.model import ising
>>> from kernelkit.pgm.relaxations import lp_relaxation
>>> m = ising(nx.cycle_graph(3), fields=[1.0, 1.1, 1.2], couplings=-2.0)
>>> res = almost_balanced_map(m)
>>> res.assignment.tolist(), round(res.score, 6), res.vertex
([0, 0, 1], 1.2, 1)
>>> round(lp_relaxation(m, "L2").value, 6), round(almost_balanced_lp_map(m).value, 6)
(1.65, 1.2)
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._validation import check_int, check_nonnegative_number, check_random_state
from kernelkit.pgm.balance import (
    _weights,
    almost_balanced_vertex,
    balancing_flip,
    frustrated_cycle,
    is_balanced,
)
from kernelkit.pgm.model import DiscreteModel, _check_model, _variable_index
from kernelkit.pgm.relaxations import LPRelaxationResult, LPSolverError, lp_relaxation
from kernelkit.pgm.transforms import clamp

__all__ = [
    "AlmostBalancedMAP",
    "almost_balanced_lp_map",
    "almost_balanced_map",
    "random_almost_balanced_model",
]

#: Relative tolerance for "the rounded score equals the LP optimum" (HiGHS's feasibility
#: and optimality tolerances are 1e-7).
_TOL = 1e-6


@dataclass(frozen=True, eq=False)
class AlmostBalancedMAP:
    """A MAP assignment of an almost balanced model by clamping (see :func:`almost_balanced_map`).

    Attributes
    ----------
    assignment : ndarray of int, shape (n_variables,)
        A MAP assignment over the model's variables (in index order).
    score : float
        Its score, ``model.score(assignment)``: the MAP score.
    vertex : int
        The index of the distinguished vertex ``s`` that was clamped (Def. 3.1).
    clamped_scores : tuple of float
        ``(MAP score with X_s = 0, MAP score with X_s = 1)``; ``-inf`` when the hard
        constraints forbid every assignment with that value. ``score`` is their maximum.
    integral : tuple of bool
        For each clamped problem, whether HiGHS returned an integral ``L_2`` optimum; when
        not (ties between optima), the assignment came from threshold rounding of the
        fractional optimum (see :func:`almost_balanced_map`).
    n_lp_variables : int
        LP variables of the two ``L_2`` problems together.
    n_constraints : int
        Constraint rows of the two ``L_2`` problems together.
    """

    assignment: np.ndarray
    score: float
    vertex: int
    clamped_scores: tuple[float, float]
    integral: tuple[bool, bool]
    n_lp_variables: int
    n_constraints: int


def _check_binary_pairwise(model: Any) -> DiscreteModel:
    _check_model(model)
    if not model.is_binary:
        raise ValueError(
            "model must be binary (every cardinality 2) for almost balanced MAP, got "
            f"cardinalities {sorted(set(model.cardinalities.tolist()))}"
        )
    arity = max((f.arity for f in model.factors), default=0)
    if arity > 2:
        raise ValueError(
            "model must be pairwise (factor arities <= 2) for almost balanced MAP, got a "
            f"factor of arity {arity}"
        )
    if model.n_variables == 0:
        raise ValueError("model has no variables")
    return model


def _distinguished_vertex(model: DiscreteModel, s: Hashable | None) -> int:
    """``s`` as an index, checked to be a distinguished vertex; found when None."""
    if not _has_signed_edge(model):  # no attractive or repulsive edge: balanced
        return 0 if s is None else _variable_index(model, s, "s")
    if s is None:
        found = almost_balanced_vertex(model)
        if found is None:
            cycle = frustrated_cycle(model)
            raise ValueError(
                "model is not almost balanced (Def. 3.1): no single vertex lies on every "
                f"frustrated cycle; e.g. the cycle {cycle} (variable indices) is frustrated "
                "and deleting any one of its vertices leaves another frustrated cycle"
            )
        return int(found)
    index = _variable_index(model, s, "s")
    rest_model = clamp(model, model.variables[index], 0)
    if _has_signed_edge(rest_model) and not is_balanced(rest_model):
        rest = frustrated_cycle(rest_model)
        keep = [v for v in range(model.n_variables) if v != index]
        cycle = [keep[v] for v in rest] if rest is not None else None
        raise ValueError(
            f"s={s!r} is not a distinguished vertex: deleting it leaves the frustrated "
            f"cycle {cycle} (variable indices)"
        )
    return index


def _has_signed_edge(model: DiscreteModel) -> bool:
    """Whether some pairwise factor is attractive or repulsive (Def. 1.12)."""
    return bool(np.any(_weights(model)[1] != 0))


def _balanced_map(model: DiscreteModel) -> tuple[np.ndarray | None, float, bool, int, int]:
    """MAP of a balanced binary pairwise model with the ``L_2`` LP (Thm 1.14).

    Returns ``(assignment, score, integral, n_lp_variables, n_constraints)``;
    ``(None, -inf, True, ...)`` when the hard constraints make it infeasible.
    """
    if model.n_variables == 0:
        return np.zeros(0, dtype=np.int64), float(model.score(np.zeros(0, np.int64))), True, 0, 0
    try:
        res = lp_relaxation(model, "L2")
    except LPSolverError as err:
        if err.status == 2:  # infeasible: every assignment is forbidden
            return None, -np.inf, True, 0, 0
        raise
    if res.is_integral:
        assert res.assignment is not None
        x = res.assignment
    else:
        x = _threshold_round(model, res)
    score = float(model.score(x))
    if not np.isclose(score, res.value, rtol=_TOL, atol=_TOL):
        raise RuntimeError(
            f"the L2 optimum {res.value!r} of a balanced model is not attained by an integral "
            f"assignment (best rounding scores {score!r}); Thm 1.14 says L2 is tight here, so "
            "HiGHS's solution is inaccurate (status "
            f"{res.status}: {res.message})"
        )
    return x, score, res.is_integral, res.n_lp_variables, res.n_constraints


def _threshold_round(model: DiscreteModel, res: LPRelaxationResult) -> np.ndarray:
    """The best threshold rounding of a fractional ``L_2`` optimum of a balanced model.

    After the balancing flip every edge is attractive and an optimal ``mu_ij`` couples
    ``q_i, q_j`` monotonically (``q_ij = min(q_i, q_j)``), so the LP value is the average
    over ``t ~ Unif(0, 1)`` of the score of ``x_i = 1[q_i > t]``: every threshold is a MAP
    assignment (when the LP is tight). All distinct level sets are scored at once.
    """
    q = np.array([p[1] for p in res.pseudomarginals])
    flipped = np.zeros(model.n_variables, dtype=bool)
    if _has_signed_edge(model):
        flipped[balancing_flip(model)] = True
    qf = np.where(flipped, 1.0 - q, q)
    levels = np.unique(np.concatenate([[0.0], qf[qf < 1.0]]))
    X = (qf[None, :] > levels[:, None]).astype(np.int64)
    X = np.where(flipped[None, :], 1 - X, X)
    return np.asarray(X[int(np.argmax(model.score(X)))])


def almost_balanced_map(model: DiscreteModel) -> AlmostBalancedMAP:
    """Exact MAP of an almost balanced binary pairwise model by clamping (§3.2).

    Finds a distinguished vertex ``s`` (Def. 3.1,
    :func:`~kernelkit.pgm.balance.almost_balanced_vertex`), clamps ``X_s`` to 0 and to 1
    (Def. 2.1: both clamped models are balanced), solves each with the local polytope
    ``L_2`` (tight on balanced models, Thm 1.14) and keeps the better assignment.

    Parameters
    ----------
    model : DiscreteModel
        Binary, pairwise (factor arities <= 2), almost balanced. ``-inf`` entries are
        allowed; a clamped problem whose hard constraints forbid everything scores
        ``-inf``.

    Returns
    -------
    AlmostBalancedMAP
        The MAP assignment and score, the clamped vertex and both clamped optima.

    Raises
    ------
    TypeError
        ``model`` is not a :class:`~kernelkit.pgm.model.DiscreteModel`.
    ValueError
        A non-binary or non-pairwise model, a model without variables, or a model that is
        not almost balanced (the message names a frustrated cycle); every assignment
        forbidden.
    RuntimeError
        HiGHS's ``L_2`` optimum of a clamped (balanced) problem is not attained by any
        threshold rounding (a numerical failure of the solver, never a silent wrong
        answer).

    Notes
    -----
    HiGHS returns a vertex of ``L_2``; when the optimum is not unique the vertex may be
    fractional although the relaxation is tight. Then the assignment is the best
    threshold rounding ``x_i = 1[q_i > t]`` in the balancing flip's coordinates (every
    ``t`` gives a MAP assignment of an attractive model), and it is checked to score the
    LP optimum.

    Examples
    --------
    >>> m = random_almost_balanced_model(8, random_state=0)
    >>> res = almost_balanced_map(m)
    >>> from kernelkit.pgm.exact import brute_force_map
    >>> bool(np.isclose(res.score, brute_force_map(m).score))
    True
    >>> res.score == max(res.clamped_scores)
    True
    """
    model = _check_binary_pairwise(model)
    s = _distinguished_vertex(model, None)
    name = model.variables[s]
    results = [_balanced_map(clamp(model, name, value)) for value in (0, 1)]
    scores = (results[0][1], results[1][1])
    best = int(np.argmax(scores))
    x_rest = results[best][0]
    if x_rest is None:
        raise ValueError(
            "the model has no MAP assignment: every assignment is forbidden by its -inf "
            "entries (log Z = -inf)"
        )
    x = np.insert(np.asarray(x_rest, dtype=np.int64), s, best)
    x.flags.writeable = False
    return AlmostBalancedMAP(
        assignment=x,
        score=float(model.score(x)),
        vertex=s,
        clamped_scores=(float(scores[0]), float(scores[1])),
        integral=(results[0][2], results[1][2]),
        n_lp_variables=results[0][3] + results[1][3],
        n_constraints=results[0][4] + results[1][4],
    )


def almost_balanced_lp_map(model: DiscreteModel, s: Hashable | None = None) -> LPRelaxationResult:
    """The ``L_3^s`` LP relaxation at a distinguished vertex: exact MAP (Thm 3.2(i)).

    ``lp_relaxation(model, "L3s", s=s)`` with ``s`` found (or checked) first.

    Parameters
    ----------
    model : DiscreteModel
        Binary, pairwise, almost balanced.
    s : hashable, optional
        A distinguished vertex (a variable name, or an index when it is not a name);
        default: :func:`~kernelkit.pgm.balance.almost_balanced_vertex`.

    Returns
    -------
    LPRelaxationResult
        ``level == "L3s"``; ``value`` is the MAP score (Thm 3.2(i): ``L_3^s`` is tight),
        and ``assignment`` a MAP assignment when HiGHS's optimum ``is_integral`` (a
        fractional optimum can occur only with ties; :func:`almost_balanced_map` then
        gives an assignment).

    Raises
    ------
    ValueError
        As :func:`almost_balanced_map`; ``s`` not a variable, or not a distinguished vertex
        (the message names the frustrated cycle left after deleting it).
    LPSolverError
        HiGHS fails (e.g. infeasible hard constraints).

    Examples
    --------
    >>> m = random_almost_balanced_model(8, random_state=1)
    >>> lp = almost_balanced_lp_map(m)
    >>> bool(np.isclose(lp.value, almost_balanced_map(m).score)), lp.level, lp.is_integral
    (True, 'L3s', True)
    """
    model = _check_binary_pairwise(model)
    index = _distinguished_vertex(model, s)
    return lp_relaxation(model, "L3s", s=model.variables[index])


def random_almost_balanced_model(
    n_variables: int,
    *,
    edge_probability: float = 0.5,
    field_scale: float = 1.0,
    coupling_scale: float = 2.0,
    vertex: int | None = None,
    random_state: Any = None,
) -> DiscreteModel:
    """A random almost balanced binary pairwise model (Def. 3.1).

    1. An Erdős–Rényi graph ``G(n, p)`` on ``0 .. n-1``;
    2. the distinguished vertex ``s`` (``vertex``, or uniform at random) and a uniform random
       2-colouring ``c`` of the other vertices: an edge ``ij`` away from ``s`` is attractive
       when ``c_i = c_j`` and repulsive otherwise (a balanced signing: the colouring is a
       balancing flip), an edge at ``s`` gets a uniform random sign;
    3. spins ``sigma = 2x - 1`` with score ``sum_i h_i sigma_i + sum_ij J_ij sigma_i
       sigma_j``, ``h_i ~ Unif[-field_scale, field_scale]`` and ``|J_ij| ~ Unif[0,
       coupling_scale]`` with the edge's sign (``J_ij > 0`` attractive).

    Deleting ``s`` leaves a balanced model, so the model is almost balanced (it may happen to
    be balanced, e.g. when ``s`` has at most one neighbour);
    :func:`~kernelkit.pgm.balance.almost_balanced_vertex` may find another distinguished
    vertex. Strong couplings against weak fields make ``L_2`` loose more often.

    Parameters
    ----------
    n_variables : int
        ``>= 1``.
    edge_probability : float, default=0.5
        ``p`` in ``[0, 1]``.
    field_scale, coupling_scale : float, default=1.0, 2.0
        ``>= 0``.
    vertex : int, optional
        The index of ``s``; default uniform at random.
    random_state : None, int or RandomState
        Seed of the graph, the signs, the colouring and the potentials.

    Returns
    -------
    DiscreteModel
        One unary factor per variable, then one pairwise factor per edge ``(i, j)``,
        ``i < j``, in lexicographic order; variables named ``0 .. n-1``.

    Examples
    --------
    >>> from kernelkit.pgm.balance import almost_balanced_vertex, is_balanced
    >>> m = random_almost_balanced_model(10, vertex=4, random_state=0)
    >>> m.n_variables, almost_balanced_vertex(m) is not None
    (10, True)
    >>> from kernelkit.pgm.transforms import clamp
    >>> is_balanced(clamp(m, 4, 0))
    True
    """
    n = check_int(n_variables, "n_variables", minimum=1)
    p = check_nonnegative_number(edge_probability, "edge_probability")
    if p > 1:
        raise ValueError(f"edge_probability must be in [0, 1], got {edge_probability!r}")
    h_scale = check_nonnegative_number(field_scale, "field_scale")
    j_scale = check_nonnegative_number(coupling_scale, "coupling_scale")
    rs = check_random_state(random_state)
    if vertex is None:
        s = int(rs.randint(n))
    else:
        s = check_int(vertex, "vertex", minimum=0)
        if s >= n:
            raise ValueError(f"vertex must be an index 0..{n - 1}, got {vertex}")
    iu, ju = np.triu_indices(n, k=1)
    present = rs.uniform(size=iu.shape[0]) < p
    i, j = iu[present], ju[present]
    colour = rs.randint(2, size=n)
    at_s = (i == s) | (j == s)
    sign = np.where(colour[i] == colour[j], 1.0, -1.0)
    sign = np.where(at_s, rs.choice([-1.0, 1.0], size=i.shape[0]), sign)
    J = sign * rs.uniform(0.0, j_scale, size=i.shape[0])
    h = rs.uniform(-h_scale, h_scale, size=n)
    unary = h[:, None] * np.array([-1.0, 1.0])
    pair = J[:, None, None] * np.array([[1.0, -1.0], [-1.0, 1.0]])
    factors: list[tuple[tuple[int, ...], np.ndarray]] = [((v,), unary[v]) for v in range(n)]
    factors += [((a, b), t) for a, b, t in zip(i.tolist(), j.tolist(), pair, strict=True)]
    return DiscreteModel([2] * n, factors)
