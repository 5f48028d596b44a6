"""Histograms of codes per graph: the feature vectors phi(G) of eq. 1.16 of the assignment.

``phi(G)[c]`` counts the items (nodes, edges, node pairs) of graph ``G`` with code ``c``.
Codes ``>= n_known`` (values unseen in ``fit``) have no column, but still count in the
returned squared norms, so that cosine normalisation uses the true ``k(G, G)``.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

__all__ = ["code_histogram"]


def code_histogram(
    codes: np.ndarray, owner: np.ndarray, n_graphs: int, n_known: int
) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Count codes per graph.

    Parameters
    ----------
    codes : ndarray of int64, shape (n_items,)
        Non-negative code of every item.
    owner : ndarray of int64, shape (n_items,)
        Graph index of every item.
    n_graphs : int
        Number of rows: graphs ``0..n_graphs-1``.
    n_known : int
        Number of columns: codes ``0..n_known-1``.

    Returns
    -------
    counts : scipy.sparse.csr_matrix of float64, shape (n_graphs, n_known)
        ``counts[g, c]``: the number of items of graph ``g`` with code ``c``.
    sq_norms : ndarray of float64, shape (n_graphs,)
        ``sum_c count(G, c)^2`` over all codes, unseen ones included.

    Examples
    --------
    >>> H, sq = code_histogram(np.array([0, 0, 1, 5]), np.array([0, 0, 0, 1]), 2, 2)
    >>> H.toarray().tolist(), sq.tolist()
    ([[2.0, 1.0], [0.0, 0.0]], [5.0, 1.0])
    """
    if len(codes) == 0:
        return sparse.csr_matrix((n_graphs, n_known)), np.zeros(n_graphs)
    width = int(codes.max()) + 1
    uniq, counts = np.unique(owner * width + codes, return_counts=True)
    g, c = np.divmod(uniq, width)
    counts = counts.astype(np.float64)
    sq_norms = np.bincount(g, weights=counts**2, minlength=n_graphs)
    keep = c < n_known
    indptr = np.zeros(n_graphs + 1, dtype=np.int64)
    np.cumsum(np.bincount(g[keep], minlength=n_graphs), out=indptr[1:])
    H = sparse.csr_matrix((counts[keep], c[keep], indptr), shape=(n_graphs, n_known))
    return H, sq_norms
