"""Adjacency, degree and Laplacian matrices of one graph, as scipy sparse CSR matrices.

The vertex kernels of :mod:`kernelkit.graphs.vertex_kernels` are functions of these
matrices (Urry & Sollich 2013, Sec. 2): the adjacency matrix ``A`` (symmetric,
non-negative, no self-loops), the degrees ``d_i = sum_j A_ij``, the normalised adjacency
``N = D^{-1/2} A D^{-1/2}``, the normalised Laplacian ``L = I - N`` and the combinatorial
Laplacian ``D - A`` (the lecture notes' Laplacian, for polynomial filters).

A graph is a ``networkx.Graph`` (vertex order ``list(G.nodes)``; ``weight=None`` gives
0/1 entries, ``weight="weight"`` takes that edge attribute, 1 where an edge lacks it, as
networkx does) or a square scipy sparse matrix / NumPy array whose entries are the edge
weights (``weight`` must then be ``None``). Every function here accepts either and
validates it; errors name the argument ``G``.

Isolated vertices (degree 0) get a zero row and column in ``N``, so ``L_ii = 1`` there.
This is the paper's convention (its Sec. 4 replaces ``D`` by ``D + delta I`` and lets
``delta -> 0``), and it makes ``(I - L/a)^p`` give an isolated vertex the prior variance
``(1 - 1/a)^p`` that Sec. 2.2 states. networkx's ``normalized_laplacian_matrix`` puts 0
there instead; the two agree on every vertex with an edge.

Examples
--------
>>> import networkx as nx
>>> G = nx.path_graph(3)
>>> adjacency_matrix(G).toarray().tolist()
[[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
>>> degrees(G).tolist()
[1.0, 2.0, 1.0]
"""

from __future__ import annotations

import math
from typing import Any

import networkx as nx
import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

__all__ = [
    "adjacency_matrix",
    "degrees",
    "laplacian",
    "normalized_adjacency",
    "normalized_laplacian",
]

#: Largest relative asymmetry ``|A_ij - A_ji| / max|A|`` accepted (and then averaged away)
#: in a weight matrix: rounding in a user's weights, not a directed graph.
_SYMMETRY_RTOL = 1e-10


def adjacency_matrix(G: Any, *, weight: str | None = None) -> sparse.csr_matrix:
    """The symmetric, non-negative adjacency matrix of ``G`` as a float64 CSR matrix.

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray of shape (V, V)
        An undirected graph without self-loops and with at least one vertex. A networkx
        graph's vertices are numbered in the order of ``list(G.nodes)``; a matrix's
        entries are the edge weights (0: no edge).
    weight : str or None, default=None
        For a networkx graph: ``None`` gives every edge weight 1; a name takes that edge
        attribute (1 where an edge lacks it, as networkx does). Must be ``None`` for a
        matrix.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (V, V), float64
        Symmetric, non-negative, zero diagonal, no stored zeros, sorted indices.

    Raises
    ------
    TypeError
        ``G`` is not a graph or a numeric matrix (or is complex); ``weight`` is not a
        string; an edge attribute that is not a number.
    ValueError
        A directed graph or a non-symmetric matrix; a multigraph; a self-loop (the
        message names the vertex); a negative, NaN or infinite weight; a graph with no
        vertices; a matrix that is not square; ``weight`` given with a matrix.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph()
    >>> G.add_edge("x", "y", weight=2.5)
    >>> G.add_node("z")
    >>> adjacency_matrix(G, weight="weight").toarray().tolist()
    [[0.0, 2.5, 0.0], [2.5, 0.0, 0.0], [0.0, 0.0, 0.0]]
    >>> import numpy as np
    >>> adjacency_matrix(np.array([[0, 1], [1, 0]])).nnz
    2
    """
    if weight is not None and not isinstance(weight, str):
        raise TypeError(
            f"weight must be an edge attribute name (str) or None, got {type(weight).__name__}"
        )
    if isinstance(G, nx.Graph):
        A, names = _from_networkx(G, weight), list(G)
    elif sparse.issparse(G) or isinstance(G, np.ndarray):
        if weight is not None:
            raise ValueError(
                f"weight={weight!r} names a networkx edge attribute, but G is a matrix "
                "whose entries are already the edge weights; pass weight=None"
            )
        A, names = _from_matrix(G), None
    else:
        raise TypeError(
            "G must be a networkx.Graph, a scipy sparse matrix or a square NumPy array, "
            f"got {type(G).__name__}"
        )
    return _check_weights(A, names)


def degrees(G: Any, *, weight: str | None = None) -> np.ndarray:
    """The (weighted) vertex degrees ``d_i = sum_j A_ij``.

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray of shape (V, V)
        The graph, as for :func:`adjacency_matrix`.
    weight : str or None, default=None
        The edge attribute holding the weights, as for :func:`adjacency_matrix`.

    Returns
    -------
    ndarray of shape (V,), float64
        The row sums of :func:`adjacency_matrix`; 0 for an isolated vertex.

    Examples
    --------
    >>> import networkx as nx
    >>> degrees(nx.star_graph(3)).tolist()
    [3.0, 1.0, 1.0, 1.0]
    """
    return _finite_degrees(adjacency_matrix(G, weight=weight))


def normalized_adjacency(G: Any, *, weight: str | None = None) -> sparse.csr_matrix:
    """``N = D^{-1/2} A D^{-1/2}``, with a zero row and column for an isolated vertex.

    Its eigenvalues lie in ``[-1, 1]``; ``-1`` is one iff a component with an edge is
    bipartite. It is the walk matrix of the binomial form of the random walk kernel
    (Urry & Sollich 2013, eq. 3).

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray of shape (V, V)
        The graph, as for :func:`adjacency_matrix`.
    weight : str or None, default=None
        The edge attribute holding the weights, as for :func:`adjacency_matrix`.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (V, V), float64
        Exactly symmetric (``N_ij`` and ``N_ji`` are the same float).

    Examples
    --------
    >>> import networkx as nx
    >>> N = normalized_adjacency(nx.star_graph(4))
    >>> N.toarray()[0].round(3).tolist()
    [0.0, 0.5, 0.5, 0.5, 0.5]
    """
    return _normalized_adjacency(adjacency_matrix(G, weight=weight))


def normalized_laplacian(G: Any, *, weight: str | None = None) -> sparse.csr_matrix:
    """The normalised Laplacian ``L = I - D^{-1/2} A D^{-1/2}`` (Urry & Sollich 2013, Sec. 2).

    An isolated vertex has ``L_ii = 1`` (a zero row of ``D^{-1/2} A D^{-1/2}``; see the
    module notes), so that ``(I - L/a)^p`` gives it ``(1 - 1/a)^p`` as the paper states.
    The eigenvalues lie in ``[0, 2]``: 0 once per component with an edge, 1 for an
    isolated vertex, 2 once per bipartite component with an edge.

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray of shape (V, V)
        The graph, as for :func:`adjacency_matrix`.
    weight : str or None, default=None
        The edge attribute holding the weights, as for :func:`adjacency_matrix`.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (V, V), float64
        Symmetric, positive semi-definite, with a unit diagonal.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> L = normalized_laplacian(nx.path_graph(2))
    >>> np.linalg.eigvalsh(L.toarray()).round(12).tolist()
    [0.0, 2.0]
    >>> normalized_laplacian(nx.empty_graph(1)).toarray().tolist()
    [[1.0]]
    """
    N = _normalized_adjacency(adjacency_matrix(G, weight=weight))
    return _identity_minus(N)


def laplacian(G: Any, *, weight: str | None = None) -> sparse.csr_matrix:
    """The combinatorial Laplacian ``D - A``: positive semi-definite, with
    ``f^T (D - A) f = sum over edges (u, v) of A_uv (f_u - f_v)^2``.

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray of shape (V, V)
        The graph, as for :func:`adjacency_matrix`.
    weight : str or None, default=None
        The edge attribute holding the weights, as for :func:`adjacency_matrix`.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (V, V), float64
        Symmetric, with the degrees on the diagonal and ``-A_ij`` off it; its rows sum to 0.

    Examples
    --------
    >>> import networkx as nx
    >>> laplacian(nx.path_graph(3)).toarray().tolist()
    [[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]]
    """
    A = adjacency_matrix(G, weight=weight)
    return sparse.csr_matrix(sparse.diags(_finite_degrees(A), format="csr") - A)


# -- helpers on a validated adjacency matrix (used by vertex_kernels) ----------------------


def _degrees(A: sparse.csr_matrix) -> np.ndarray:
    """Row sums of a validated adjacency matrix (``inf`` where one overflows)."""
    with np.errstate(over="ignore"):
        return np.asarray(A.sum(axis=1), dtype=np.float64).reshape(-1)


def _finite_degrees(A: sparse.csr_matrix) -> np.ndarray:
    """:func:`_degrees`, or a ``ValueError`` naming ``G`` where a degree overflows."""
    d = _degrees(A)
    if not np.isfinite(d).all():
        v = int(np.flatnonzero(~np.isfinite(d))[0])
        raise ValueError(
            f"G has a weighted degree beyond the float64 range at vertex {v} (the sum of "
            "its edge weights); scale the weights down (the normalised adjacency and "
            "Laplacian, and the kernels built on them, do not change when all weights are "
            "scaled)"
        )
    return d


def _inverse_sqrt_degrees(A: sparse.csr_matrix) -> np.ndarray:
    """``1 / sqrt(d_i)``, and 0 for an isolated vertex."""
    d = _degrees(A)
    out = np.zeros_like(d)
    np.divide(1.0, np.sqrt(d), out=out, where=d > 0)
    return out


def _normalized_adjacency(A: sparse.csr_matrix) -> sparse.csr_matrix:
    """``D^{-1/2} A D^{-1/2}`` of a validated adjacency matrix, exactly symmetric.

    ``N`` does not change when ``A`` is scaled: where a degree could overflow (largest
    weight times ``V`` above ``2^1000``) or the weights are all tiny (below ``2^-500``),
    ``A`` is first scaled by an even power of two that puts its largest weight in
    ``[1/4, 1)`` (exact, and exact again through the square roots). Where ``s_i s_j``
    would overflow (degrees near the smallest floats), ``(A_ij min(s_i, s_j)) max(s_i,
    s_j)`` is used: symmetric too, and each factor stays in range (``A_ij <= d_i, d_j``).
    """
    N = A.copy()
    if A.nnz == 0:
        return N
    top = float(A.data.max())
    if top * A.shape[0] > 2.0**1000 or top < 2.0**-500:
        shift = math.frexp(top)[1]
        shift += shift % 2
        N.data = np.ldexp(N.data, -shift)
    s = _inverse_sqrt_degrees(N)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    s_i, s_j = s[rows], s[A.indices]
    # s_i * s_j == s_j * s_i exactly, and A is exactly symmetric, so N is too
    with np.errstate(over="ignore"):
        pair = s_i * s_j
    wide = np.isinf(pair)
    if wide.any():
        lo, hi = np.minimum(s_i, s_j)[wide], np.maximum(s_i, s_j)[wide]
        pair[wide] = 1.0
        N.data[wide] = (N.data[wide] * lo) * hi
    N.data *= pair
    return N


def _identity_minus(N: sparse.csr_matrix) -> sparse.csr_matrix:
    """``I - N`` as CSR."""
    return sparse.csr_matrix(sparse.identity(N.shape[0], format="csr") - N)


def _lazy_walk(N: sparse.csr_matrix, a: float) -> sparse.csr_matrix:
    """``(1 - 1/a) I + N / a = I - L / a``, the matrix whose p-th power is Urry & Sollich
    (2013) eq. 2; entrywise non-negative for ``a >= 1``."""
    M = N * (1.0 / a)
    M.setdiag(1.0 - 1.0 / a)  # N has a zero diagonal, so this only adds entries
    return sparse.csr_matrix(M)


def _isolated(A: sparse.csr_matrix) -> np.ndarray:
    """Boolean mask of the vertices without an edge."""
    return np.diff(A.indptr) == 0


def _bipartite_vertices(A: sparse.csr_matrix) -> np.ndarray:
    """Boolean mask of the vertices in a bipartite component with at least one edge.

    Uses the bipartite double cover ``[[0, A], [A, 0]]``: a connected component lifts to
    two components of the cover if it is bipartite and to one otherwise, so vertex ``v``
    is in a bipartite component iff its two copies get different component labels.
    """
    V = A.shape[0]
    cover = sparse.bmat([[None, A], [A, None]], format="csr")
    _, labels = connected_components(cover, directed=False)
    return (labels[:V] != labels[V:]) & ~_isolated(A)


# -- conversion -----------------------------------------------------------------------------


def _from_networkx(G: nx.Graph, weight: str | None) -> sparse.csr_matrix:
    if G.is_directed():
        raise ValueError(
            "G is a directed graph; the vertex kernels are defined on undirected graphs "
            "(convert with G.to_undirected())"
        )
    if G.is_multigraph():
        raise ValueError("G is a multigraph; collapse parallel edges with networkx.Graph(G)")
    if len(G) == 0:
        raise ValueError("G has no vertices; at least one vertex is required")
    loop = next(iter(nx.selfloop_edges(G)), None)
    if loop is not None:
        raise ValueError(
            f"G has a self-loop at vertex {loop[0]!r}; the adjacency matrix of the vertex "
            "kernels has no self-loops (remove them with "
            "G.remove_edges_from(nx.selfloop_edges(G)))"
        )
    try:
        A = nx.to_scipy_sparse_array(G, nodelist=list(G), weight=weight, format="csr")
        A = sparse.csr_matrix(A)
        if not _is_real_dtype(A.dtype):
            raise TypeError
        return sparse.csr_matrix(A, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"the edge attribute {weight!r} of G must hold real numbers (the edge weights)"
        ) from None


def _is_real_dtype(dtype: np.dtype) -> bool:
    return dtype.kind == "b" or (
        np.issubdtype(dtype, np.number) and not np.issubdtype(dtype, np.complexfloating)
    )


def _from_matrix(G: Any) -> sparse.csr_matrix:
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G must be a square (V, V) adjacency matrix, got shape {G.shape}")
    if not _is_real_dtype(G.dtype):
        raise TypeError(f"G must hold real numbers (edge weights), got dtype {G.dtype}")
    if G.shape[0] == 0:
        raise ValueError("G has no vertices; at least one vertex is required")
    A = sparse.csr_matrix(G, dtype=np.float64)
    A.sum_duplicates()
    if not np.isfinite(A.data).all():
        i, j = _entry(A, ~np.isfinite(A.data))
        raise ValueError(f"G has a non-finite weight A[{i}, {j}] = {A[i, j]}")
    diagonal = A.diagonal()
    if np.any(diagonal != 0):
        i = int(np.flatnonzero(diagonal)[0])
        raise ValueError(
            f"G has a self-loop at vertex {i} (A[{i}, {i}] = {diagonal[i]:g}); the adjacency "
            "matrix of the vertex kernels has a zero diagonal (use A.setdiag(0))"
        )
    return A


def _entry(A: sparse.csr_matrix, bad: np.ndarray) -> tuple[int, int]:
    """Row and column of the first stored entry of ``A`` flagged in ``bad``."""
    k = int(np.flatnonzero(bad)[0])
    i = int(np.searchsorted(A.indptr, k, side="right") - 1)
    return i, int(A.indices[k])


def _check_weights(A: sparse.csr_matrix, names: list[Any] | None) -> sparse.csr_matrix:
    """Finite, non-negative and symmetric; stored zeros dropped, indices sorted."""

    def name(i: int) -> str:
        return repr(names[i]) if names is not None else str(i)

    bad = ~np.isfinite(A.data) | (A.data < 0)
    if bad.any():
        i, j = _entry(A, bad)
        raise ValueError(
            f"G has a negative or non-finite edge weight {A[i, j]} between vertices "
            f"{name(i)} and {name(j)}; weights must be finite and >= 0"
        )
    A.eliminate_zeros()
    A.sort_indices()
    diff = abs(A - A.T).tocsr()
    if diff.nnz:
        scale = float(A.data.max()) if A.nnz else 0.0
        if diff.data.max() > _SYMMETRY_RTOL * scale:
            i, j = _entry(diff, diff.data > _SYMMETRY_RTOL * scale)
            raise ValueError(
                f"G is not symmetric: A[{name(i)}, {name(j)}] = {A[i, j]:g} but "
                f"A[{name(j)}, {name(i)}] = {A[j, i]:g} (a directed graph); the vertex "
                "kernels need an undirected graph (use (A + A.T) / 2 or A.maximum(A.T))"
            )
        A = sparse.csr_matrix((A + A.T) * 0.5)
        A.eliminate_zeros()
        A.sort_indices()
    return A
