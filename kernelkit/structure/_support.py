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
