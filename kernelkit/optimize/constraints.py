"""Constraints of Bayesian optimisation: known constraints on the inputs, and the
probability that black-box (outcome) constraints hold.

*Input constraints* are known before any evaluation: a
:class:`scipy.optimize.LinearConstraint` ``lb <= A x <= ub`` on a point's values, or a
predicate ``feasible(x) -> bool``. :class:`~kernelkit.optimize.BayesianOptimizer` keeps
every design point and every proposal inside them (:func:`input_feasible`).

*Outcome constraints* ``c_j(x) <= 0`` are computed with the objective. Each is modelled
by a GP, and the acquisition is multiplied by the probability of feasibility
``prod_j P(c_j(x) <= 0) = prod_j Phi(-mu_j(x) / sigma_j(x))`` (Gardner et al. 2014,
"Bayesian optimization with inequality constraints", eq. 4); on the log scale the
acquisition's logarithm plus :func:`log_probability_of_feasibility`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import special
from scipy.optimize import LinearConstraint

from kernelkit.optimize.space import Categorical, Space
from kernelkit.optimize.surrogate import posterior

__all__ = ["check_input_constraints", "input_feasible", "log_probability_of_feasibility"]

#: Slack of a linear constraint's bounds, against rounding of the points' values.
_LINEAR_SLACK = 1e-12


def check_input_constraints(constraints: Any, space: Space) -> list[Any]:
    """``input_constraints`` as a list of linear constraints and predicates.

    Parameters
    ----------
    constraints : LinearConstraint, callable, list of them, or None
        The known constraints.
    space : Space
        The search space they apply to.

    Returns
    -------
    list
        The constraints (empty for ``None``).

    Raises
    ------
    ValueError
        A linear constraint whose ``A`` has another number of columns than the space has
        dimensions.
    TypeError
        A linear constraint on a space with a categorical dimension, or an item that is
        neither a ``LinearConstraint`` nor callable.

    Examples
    --------
    >>> from scipy.optimize import LinearConstraint
    >>> from kernelkit.optimize import Space
    >>> space = Space([(0.0, 1.0), (0.0, 1.0)])
    >>> len(check_input_constraints([LinearConstraint([[1, 1]], 0, 1), lambda x: True], space))
    2
    """
    if constraints is None:
        return []
    items = list(constraints) if isinstance(constraints, (list, tuple)) else [constraints]
    for i, c in enumerate(items):
        if isinstance(c, LinearConstraint):
            A = np.atleast_2d(np.asarray(c.A, dtype=float))
            if A.shape[1] != space.n_dims:
                raise ValueError(
                    f"input_constraints[{i}] is a LinearConstraint with {A.shape[1]} "
                    f"columns; the space has {space.n_dims} dimensions"
                )
            if any(isinstance(d, Categorical) for d in space):
                raise TypeError(
                    f"input_constraints[{i}] is linear, but the space has a categorical "
                    "dimension; write it as a predicate (a function of the point)"
                )
        elif not callable(c):
            raise TypeError(
                "input_constraints must be a scipy.optimize.LinearConstraint, a callable "
                "feasible(x) -> bool, or a list of them; got "
                f"{type(c).__name__} at position {i}"
            )
    return items


def _predicate(c: Callable[[Any], Any], i: int, x: Any) -> bool:
    """``c(x)`` as a bool, or a clear error naming the constraint and the point."""
    try:
        value = c(x.copy() if hasattr(x, "copy") else list(x))
    except Exception as exc:
        raise ValueError(
            f"input constraint {i} ({getattr(c, '__name__', type(c).__name__)}) raised at "
            f"the point {list(x)}: {type(exc).__name__}: {exc}"
        ) from exc
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        raise ValueError(
            f"input constraint {i} returned {value} at the point {list(x)}; a predicate "
            "must return True (feasible) or False"
        )
    return bool(value)


def input_feasible(constraints: Sequence[Any], points: Any) -> np.ndarray:
    """Which points satisfy every input constraint.

    Parameters
    ----------
    constraints : list
        From :func:`check_input_constraints`.
    points : list of points, or ndarray of shape (m, d)
        Points of the space (their values).

    Returns
    -------
    ndarray of bool, shape (m,)
        ``True`` where every constraint holds (linear ones with a slack of ``1e-12``).

    Raises
    ------
    ValueError
        A predicate raised, or returned NaN (the message names it and the point).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.optimize import LinearConstraint
    >>> rule = [LinearConstraint([[1.0, 1.0]], -np.inf, 1.0), lambda x: x[0] >= 0.1]
    >>> input_feasible(rule, np.array([[0.5, 0.4], [0.5, 0.6], [0.0, 0.0]])).tolist()
    [True, False, False]
    """
    m = len(points)
    ok = np.ones(m, dtype=bool)
    for i, c in enumerate(constraints):
        if isinstance(c, LinearConstraint):
            X = np.asarray(points, dtype=float).reshape(m, -1)
            AX = X @ np.atleast_2d(np.asarray(c.A, dtype=float)).T
            ok &= np.all((AX >= c.lb - _LINEAR_SLACK) & (AX <= c.ub + _LINEAR_SLACK), axis=1)
        else:
            ok &= np.array([_predicate(c, i, x) for x in points], dtype=bool)
    return ok


def log_probability_of_feasibility(gps: Sequence[Any], X: np.ndarray) -> np.ndarray:
    """``sum_j log P(c_j(x) <= 0) = sum_j log Phi(-mu_j(x) / sigma_j(x))`` under the
    constraints' GPs (Gardner et al. 2014, eq. 4), by ``scipy.special.log_ndtr`` (no
    underflow far inside the infeasible region).

    Parameters
    ----------
    gps : list of GaussianProcessRegressor
        One fitted GP per constraint, on the cube.
    X : ndarray of shape (m, D)
        Points of the cube.

    Returns
    -------
    ndarray of shape (m,)
        The log probability that every constraint holds (0 with no GP).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import GaussianProcessRegressor
    >>> Z = np.linspace(0, 1, 9)[:, None]
    >>> gp = GaussianProcessRegressor(noise=1e-6).fit(Z, Z[:, 0] - 0.5)  # c(z) = z - 1/2
    >>> np.exp(log_probability_of_feasibility([gp], np.array([[0.1], [0.9]]))).round(3)
    array([1., 0.])
    """
    out = np.zeros(X.shape[0])
    for gp in gps:
        p = posterior(gp, X)
        out += special.log_ndtr(-p.mean / np.maximum(p.std, 1e-12))
    return out
