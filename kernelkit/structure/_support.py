"""Helpers shared by the structure learners: input checks, AND / OR rules, graphs."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit._validation import check_array, check_in, check_positive_scalar

#: The rules that turn two one-sided neighbourhood estimates into an edge.
RULES = ("and", "or")


def check_rule(rule: Any) -> str:
    """``rule`` as one of :data:`RULES`, or a ValueError naming it."""
    if not isinstance(rule, str):
        raise TypeError(f"rule must be 'and' or 'or', got {type(rule).__name__}")
    return str(check_in(rule, "rule", RULES))


def check_penalty(value: Any, name: str) -> float:
    """A finite penalty ``> 0`` (``alpha``, ``C``) as float; a bool, a string or an array
    is a TypeError / ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise TypeError(f"{name} must be a positive number, got {type(value).__name__}")
    return check_positive_scalar(value, name)


def check_data(X: Any, name: str, *, min_samples: int = 2) -> np.ndarray:
    """``X`` as a finite float64 array of shape (n_samples, n_variables) with at least
    ``min_samples`` rows and two columns (a graph on one variable has nothing to learn)."""
    X = check_array(X, name, dtype=np.float64)
    n, p = X.shape
    if n < min_samples:
        raise ValueError(
            f"{name} has {n} sample(s); at least {min_samples} are needed to estimate a graph"
        )
    if p < 2:
        raise ValueError(f"{name} has {p} variable(s); a graph needs at least 2 columns")
    return X


#: Data whose largest magnitude lies in ``[1 / SAFE_SCALE, SAFE_SCALE]`` go to scikit-learn
#: as they are (so the numbers are scikit-learn's own); beyond, its solvers overflow or
#: underflow (squares of covariances), and the data are rescaled first.
SAFE_SCALE = 2.0**100


def tame_scale(X: np.ndarray) -> tuple[np.ndarray, int]:
    """``(X', e)`` with ``X = 2**e X'``: ``X`` itself (``e = 0``) when its largest magnitude
    is within ``[1 / SAFE_SCALE, SAFE_SCALE]`` (or ``X = 0``), else ``X`` scaled so that
    ``max |X'|`` is in ``[1/2, 1)``. Scaling by a power of two is exact: ``X'`` holds the
    same numbers, and its covariances and Gram matrices neither overflow nor underflow."""
    top = float(np.max(np.abs(X))) if X.size else 0.0
    if top == 0.0 or 1.0 / SAFE_SCALE <= top <= SAFE_SCALE:
        return X, 0
    e = int(np.frexp(top)[1])
    with np.errstate(under="ignore"):  # entries below 2**-1074 of the largest one vanish
        return np.ldexp(X, -e), e


def relative_variance(X: np.ndarray, *, assume_centered: bool = False) -> np.ndarray:
    """Each column's variance (its mean square with ``assume_centered``) over its largest
    square: a scale-free number in ``[0, 1]``, 0 for a constant (or all-zero) column. Each
    column is scaled by its own power of two first, so no magnitude of ``X`` overflows."""
    top = np.max(np.abs(X), axis=0)
    e = np.where(top > 0, np.frexp(top)[1], 0)
    Y = np.ldexp(X, -e[None, :])
    spread = (Y**2).mean(axis=0) if assume_centered else Y.var(axis=0)
    peak = np.max(np.abs(Y), axis=0) ** 2
    return np.divide(spread, peak, out=np.zeros_like(spread), where=peak > 0)


def combine(coefficients: np.ndarray, rule: str) -> np.ndarray:
    """The boolean adjacency of a neighbourhood estimate: ``j ~ k`` when the regression of
    ``j`` selects ``k`` and (``"and"``) / or (``"or"``) the regression of ``k`` selects
    ``j`` (Meinshausen & Bühlmann 2006). The diagonal is False."""
    selected = coefficients != 0
    adjacency = selected & selected.T if rule == "and" else selected | selected.T
    np.fill_diagonal(adjacency, False)
    return adjacency


def graph_from_adjacency(adjacency: np.ndarray, **edge_values: np.ndarray) -> Any:
    """A ``networkx.Graph`` on the nodes ``0 .. p-1`` with an edge ``(j, k)``, ``j < k``, for
    every True entry of ``adjacency``; each keyword is an edge attribute read from that
    entry of its (p, p) array."""
    import networkx as nx

    p = adjacency.shape[0]
    G = nx.Graph()
    G.add_nodes_from(range(p))
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    values = {key: arr[rows, cols].tolist() for key, arr in edge_values.items()}
    G.add_edges_from(
        (int(j), int(k), {key: values[key][i] for key in values})
        for i, (j, k) in enumerate(zip(rows, cols, strict=True))
    )
    return G
