"""Gaussian graphical models to sample from: random bounded-degree precisions, and samples.

:func:`sample_gaussian_graphical` draws ``x ~ N(0, Omega^{-1})`` from the precision
``Omega`` itself: with the Cholesky factor ``Omega = L L^T``, ``x = L^{-T} z`` for standard
normal ``z`` has covariance ``L^{-T} L^{-1} = Omega^{-1}`` (lecture notes, "sampling by
Cholesky"); one triangular solve, no inverse.

:func:`random_gaussian_graphical_model` builds the test instances of structure learning: a
random ``d``-regular graph (so the maximum degree is ``d``) and a precision with unit
diagonal and ``+-w`` on the edges, ``w d < 1``, so the precision is strictly diagonally
dominant, hence positive definite, and every partial correlation on an edge is ``+-w``.

Examples
--------
>>> model = random_gaussian_graphical_model(8, 3, random_state=0)
>>> X = sample_gaussian_graphical(model.precision, 1000, random_state=0)
>>> X.shape, model.graph.number_of_edges()
((1000, 8), 12)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from kernelkit._memory import check_memory
from kernelkit._validation import (
    check_array,
    check_in,
    check_int,
    check_nonnegative_number,
    check_random_state,
)

__all__ = [
    "GaussianGraphicalModel",
    "random_gaussian_graphical_model",
    "sample_gaussian_graphical",
]


@dataclass(frozen=True, eq=False)
class GaussianGraphicalModel:
    """The result of :func:`random_gaussian_graphical_model`.

    Attributes
    ----------
    graph : networkx.Graph
        The ``degree``-regular graph on ``0 .. n_vertices-1``; edge attribute ``weight``
        is the precision entry.
    precision : ndarray of shape (n_vertices, n_vertices)
        Unit diagonal, ``+-edge_weight`` on the edges, 0 elsewhere.
    degree : int
        The degree ``d`` of every vertex.
    edge_weight : float
        The magnitude ``w`` of the precision on an edge.
    """

    graph: Any
    precision: np.ndarray
    degree: int
    edge_weight: float


def sample_gaussian_graphical(
    precision: Any, n_samples: int, *, random_state: Any = None
) -> np.ndarray:
    """Draw samples of ``N(0, precision^{-1})`` by a Cholesky factor of the precision.

    Parameters
    ----------
    precision : array-like of shape (p, p)
        Symmetric (to a relative ``1e-10``) and positive definite.
    n_samples : int >= 1
        The number of samples drawn.
    random_state : None, int, RandomState or Generator
        The same value gives the same samples.

    Returns
    -------
    ndarray of shape (n_samples, p)
        One sample per row.

    Raises
    ------
    ValueError
        ``precision`` not square, not finite, not symmetric or not positive definite;
        ``n_samples < 1``, or more samples than this machine's memory holds.
    TypeError
        Non-numeric ``precision``; a non-integer ``n_samples``.

    Examples
    --------
    >>> import numpy as np
    >>> omega = np.array([[2.0, -1.0], [-1.0, 2.0]])
    >>> X = sample_gaussian_graphical(omega, 100_000, random_state=0)
    >>> bool(np.allclose(np.cov(X.T) @ omega, np.eye(2), atol=0.02))  # Monte Carlo error
    True
    """
    P = check_array(precision, "precision", dtype=np.float64, allow_empty=True)
    if P.shape[0] != P.shape[1] or P.shape[0] == 0:
        raise ValueError(f"precision must be a non-empty square matrix, got shape {P.shape}")
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    p = P.shape[0]
    # the normal draws, the solve's output and its transposed copy
    check_memory(
        3 * 8 * n_samples * p,
        f"sample_gaussian_graphical(n_samples={n_samples}) of {p} variables",
        "draw fewer samples at a time",
    )
    rng = check_random_state(random_state)
    scale = float(np.abs(P).max())
    relative = float(np.abs(P / scale - P.T / scale).max()) if scale > 0 else 0.0
    if relative > 1e-10:  # relative to max |P|, which no magnitude of P overflows
        raise ValueError(f"precision must be symmetric; max |P - P^T| / max |P| = {relative:.3g}")
    try:
        L = scipy.linalg.cholesky(P, lower=True)
    except np.linalg.LinAlgError:
        eig = float(np.linalg.eigvalsh(P).min())
        raise ValueError(
            f"precision must be positive definite; its smallest eigenvalue is {eig:.3g}"
        ) from None
    z = rng.standard_normal((P.shape[0], n_samples))
    return scipy.linalg.solve_triangular(L, z, lower=True, trans="T").T


def random_gaussian_graphical_model(
    n_vertices: int,
    degree: int,
    *,
    edge_weight: float | None = None,
    signs: str = "random",
    random_state: Any = None,
) -> GaussianGraphicalModel:
    """A random ``degree``-regular graph and a diagonally dominant precision on it.

    Parameters
    ----------
    n_vertices : int >= 1
        ``p``, the number of variables.
    degree : int, 0 <= degree < n_vertices
        ``d``: every vertex has exactly ``d`` neighbours (``networkx.random_regular_graph``),
        so ``n_vertices * degree`` must be even.
    edge_weight : float, optional
        ``w``, the magnitude of the precision on an edge (and of the partial correlation,
        the diagonal being 1); ``0 < w < 1 / degree`` (strict diagonal dominance). Default
        ``1 / (degree + 1)``.
    signs : {"random", "positive", "negative"}, default="random"
        The signs of the edge entries: independent fair coins, all ``+w`` or all ``-w``
        (a negative precision entry is a positive partial correlation).
    random_state : None, int, RandomState or Generator
        Seed of the graph and of the signs.

    Returns
    -------
    GaussianGraphicalModel
        ``graph``, ``precision``, ``degree``, ``edge_weight``.

    Raises
    ------
    ValueError
        ``degree >= n_vertices``, ``n_vertices * degree`` odd, ``edge_weight`` outside
        ``(0, 1 / degree)``, a bad ``signs``; a dense precision beyond this machine's
        memory.

    Examples
    --------
    >>> import numpy as np
    >>> m = random_gaussian_graphical_model(6, 2, edge_weight=0.4, random_state=1)
    >>> sorted(d for _, d in m.graph.degree()), bool(np.all(np.linalg.eigvalsh(m.precision) > 0))
    ([2, 2, 2, 2, 2, 2], True)
    """
    import networkx as nx

    n_vertices = check_int(n_vertices, "n_vertices", minimum=1)
    degree = check_int(degree, "degree", minimum=0)
    check_memory(
        8 * n_vertices**2,
        f"random_gaussian_graphical_model(n_vertices={n_vertices}): a dense precision matrix",
        "ask for fewer vertices",
    )
    if degree >= n_vertices:
        raise ValueError(f"degree must be < n_vertices = {n_vertices}, got {degree}")
    if (n_vertices * degree) % 2:
        raise ValueError(
            f"a {degree}-regular graph on {n_vertices} vertices does not exist "
            "(n_vertices * degree must be even)"
        )
    if edge_weight is None:
        edge_weight = 1.0 / (degree + 1)
    edge_weight = check_nonnegative_number(edge_weight, "edge_weight")
    if not (0.0 < edge_weight and edge_weight * degree < 1.0):
        raise ValueError(
            f"edge_weight must be in (0, 1/degree) = (0, {1.0 / max(degree, 1):.4g}) for a "
            f"diagonally dominant precision, got {edge_weight}"
        )
    check_in(signs, "signs", ["random", "positive", "negative"])
    rng = check_random_state(random_state)
    G = nx.random_regular_graph(degree, n_vertices, seed=int(rng.randint(0, 2**31 - 1)))
    edges = np.array(sorted((min(e), max(e)) for e in G.edges), dtype=np.int64).reshape(-1, 2)
    if signs == "random":
        s = rng.choice([-1.0, 1.0], size=len(edges))
    else:
        s = np.full(len(edges), 1.0 if signs == "positive" else -1.0)
    precision = np.eye(n_vertices)
    precision[edges[:, 0], edges[:, 1]] = s * edge_weight
    precision[edges[:, 1], edges[:, 0]] = s * edge_weight
    graph = nx.Graph()
    graph.add_nodes_from(range(n_vertices))
    graph.add_weighted_edges_from(
        (int(j), int(k), float(w)) for (j, k), w in zip(edges, s * edge_weight, strict=True)
    )
    return GaussianGraphicalModel(graph, precision, degree, edge_weight)
