"""Attractive, repulsive, balanced and almost balanced binary pairwise models.

Rowland (2018), Def. 1.12: a pairwise potential is *attractive* when ``theta(1, 1) +
theta(0, 0) > theta(1, 0) + theta(0, 1)`` and *repulsive* when ``<``; a cycle is
*frustrated* when it has an odd number of repulsive edges; a model is *balanced* when it
has none. Balanced models are exactly the flippings of attractive ones (§1.4.1), and a
model is *almost balanced* (Def. 3.1) when deleting one vertex leaves it balanced.

The signed weight of an edge is ``w_ij = theta(1, 1) + theta(0, 0) - theta(1, 0) -
theta(0, 1)`` summed over the factors on ``{i, j}`` (the weight is linear in the tables);
edges with ``w_ij = 0`` carry no sign and are ignored. Balance is decided with a spanning
forest (``scipy.sparse.csgraph``) and the parity of repulsive edges on its paths: an edge
whose sign disagrees with that parity closes a frustrated cycle.

Variables are reported by index (``0 .. n-1``).

Examples
--------
>>> import networkx as nx
>>> from kernelkit.pgm.model import ising
>>> m = ising(nx.cycle_graph(3), couplings={(0, 1): 1.0, (1, 2): 1.0, (0, 2): -1.0})
>>> is_balanced(m), sorted(frustrated_cycle(m))
(False, [0, 1, 2])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from kernelkit.pgm._guards import power_of_two_scale
from kernelkit.pgm.model import DiscreteModel, _check_model

__all__ = [
    "almost_balanced_vertex",
    "attractive_edges",
    "balancing_flip",
    "edge_weights",
    "frustrated_cycle",
    "is_balanced",
    "repulsive_edges",
]


def _check_pairwise(model: Any) -> DiscreteModel:
    _check_model(model, binary=True)
    arities = {f.arity for f in model.factors}
    if arities - {0, 1, 2}:
        raise ValueError(f"model must be pairwise (factor arities <= 2), got arities {arities}")
    return model


def edge_weights(model: DiscreteModel) -> tuple[np.ndarray, np.ndarray]:
    """The signed weight of every edge of a binary pairwise model.

    Parameters
    ----------
    model : DiscreteModel
        Binary, pairwise (factor arities <= 2).

    Returns
    -------
    edges : ndarray of int, shape (m, 2)
        The distinct pairs ``i < j`` carrying a pairwise factor, sorted.
    weights : ndarray, shape (m,)
        ``w_ij = theta(1, 1) + theta(0, 0) - theta(1, 0) - theta(0, 1)`` summed over the
        factors on ``{i, j}``: ``> 0`` attractive, ``< 0`` repulsive (Def. 1.12); may be
        ``+-inf`` with hard constraints.

    Raises
    ------
    ValueError
        A non-binary or non-pairwise model; an edge whose weight is undefined
        (``inf - inf`` from ``-inf`` entries on both sides); a weight of finite entries
        beyond the float64 range (entries near ``1e308``; the signs, all that balance
        needs, are still decided by :func:`is_balanced` and the others).

    Examples
    --------
    >>> from kernelkit.pgm.model import DiscreteModel
    >>> m = DiscreteModel([2, 2], [((1, 0), [[0.0, 2.0], [0.0, 0.0]])])
    >>> edge_weights(m)
    (array([[0, 1]]), array([-2.]))
    """
    model = _check_pairwise(model)
    edges, w, overflow = _weights(model)
    if overflow.any():
        i, j = edges[np.flatnonzero(overflow)[0]]
        raise ValueError(
            f"the weight of the edge ({i}, {j}) is beyond the float64 range (entries near "
            "1e308): only its sign is known (attractive_edges, repulsive_edges and "
            "is_balanced use it)"
        )
    return edges, w


def _weights(model: DiscreteModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted edges, their weights and where a weight of finite entries overflowed
    (entries near ``1e308``: there the weight is ``+-inf`` with the sign of the exact
    weight, from the entries scaled by a power of two)."""
    edges, total = _edge_sums(model, 1.0)
    overflow = ~np.isfinite(total)
    if overflow.any():
        _, scaled = _edge_sums(model, power_of_two_scale(model, threshold=0.0))
        overflow &= np.isfinite(scaled)  # -inf entries give +-inf at any scale
        total = np.where(overflow, np.sign(scaled) * np.inf, total)
        total = np.where(np.isnan(total), scaled, total)
    if np.isnan(total).any():
        i, j = edges[np.flatnonzero(np.isnan(total))[0]]
        raise ValueError(
            f"the edge ({i}, {j}) is neither attractive nor repulsive: its weight is "
            "undefined (-inf entries on both sides of eq. 1.13)"
        )
    return edges, total, overflow


def _edge_sums(model: DiscreteModel, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The sorted edges and ``scale`` times their weights (overflow and ``inf - inf``
    silenced: ``+-inf`` and NaN)."""
    edges_list, w_list = [], []
    for g in model.groups():
        if g.arity != 2:
            continue
        t = g.tables * scale if scale != 1.0 else g.tables
        with np.errstate(invalid="ignore", over="ignore"):
            w = t[:, 1, 1] + t[:, 0, 0] - t[:, 1, 0] - t[:, 0, 1]
        edges_list.append(np.sort(g.scopes, axis=1))
        w_list.append(w)
    if not edges_list:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0)
    edges = np.concatenate(edges_list)
    w = np.concatenate(w_list)
    uniq, inv = np.unique(edges, axis=0, return_inverse=True)
    total = np.zeros(uniq.shape[0])
    with np.errstate(invalid="ignore", over="ignore"):
        np.add.at(total, inv.ravel(), w)
    return uniq.astype(np.int64), total


def attractive_edges(model: DiscreteModel) -> list[tuple[int, int]]:
    """The edges ``(i, j)``, ``i < j``, with an attractive potential (eq. 1.13).

    Parameters
    ----------
    model : DiscreteModel
        Binary, pairwise (factor arities <= 2).

    Returns
    -------
    list of (int, int)
        The pairs with ``w_ij > 0`` (see :func:`edge_weights`), sorted.

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> attractive_edges(ising(nx.path_graph(3), couplings=[1.0, -1.0]))
    [(0, 1)]
    """
    edges, w, _ = _weights(_check_pairwise(model))
    return [(int(i), int(j)) for i, j in edges[w > 0]]


def repulsive_edges(model: DiscreteModel) -> list[tuple[int, int]]:
    """The edges ``(i, j)``, ``i < j``, with a repulsive potential (eq. 1.14).

    Parameters
    ----------
    model : DiscreteModel
        Binary, pairwise (factor arities <= 2).

    Returns
    -------
    list of (int, int)
        The pairs with ``w_ij < 0`` (see :func:`edge_weights`), sorted.

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> repulsive_edges(ising(nx.path_graph(3), couplings=[1.0, -1.0]))
    [(1, 2)]
    """
    edges, w, _ = _weights(_check_pairwise(model))
    return [(int(i), int(j)) for i, j in edges[w < 0]]


def _signed(model: DiscreteModel) -> tuple[np.ndarray, np.ndarray]:
    edges, w, _ = _weights(model)
    nz = w != 0
    return edges[nz], (w[nz] < 0).astype(np.int64)


def _parity(
    n: int, edges: np.ndarray, repulsive: np.ndarray, removed: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Colours from a spanning forest and the edges that disagree with them.

    Returns ``colour`` (parity of repulsive edges on the forest path to the component's
    root), ``predecessors`` (in the forest, -9999 at roots) and the indices of violating
    edges. A vertex ``removed`` is left out (its edges ignored).
    """
    if removed is not None:
        keep = (edges[:, 0] != removed) & (edges[:, 1] != removed)
        edges, repulsive = edges[keep], repulsive[keep]
        idx = np.flatnonzero(keep)
    else:
        idx = np.arange(edges.shape[0])
    ones = np.ones(edges.shape[0])
    G = sp.coo_matrix((ones, (edges[:, 0], edges[:, 1])), shape=(n, n)).tocsr()
    forest = csgraph.minimum_spanning_tree(G).tocoo()
    # forest edges weighted 2 (attractive) or 1 (repulsive): path length = parity mod 2
    fi = np.minimum(forest.row, forest.col)
    fj = np.maximum(forest.row, forest.col)
    weight = sp.coo_matrix((2.0 - repulsive, (edges[:, 0], edges[:, 1])), shape=(n, n)).tocsr()
    fw = np.asarray(weight[fi, fj]).ravel() if fi.size else np.zeros(0)
    F = sp.coo_matrix((fw, (fi, fj)), shape=(n, n)).tocsr()
    _, labels = csgraph.connected_components(G, directed=False)
    _, roots = np.unique(labels, return_index=True)
    dist, pred = csgraph.dijkstra(
        F, directed=False, indices=roots, min_only=True, return_predecessors=True
    )[:2]
    colour = np.round(dist).astype(np.int64) % 2
    bad = (colour[edges[:, 0]] ^ colour[edges[:, 1]]) != repulsive
    return colour, pred, idx[np.flatnonzero(bad)]


def is_balanced(model: DiscreteModel) -> bool:
    """Whether a binary pairwise model has no frustrated cycle (Def. 1.12).

    Parameters
    ----------
    model : DiscreteModel
        Binary, pairwise (factor arities <= 2).

    Returns
    -------
    bool
        ``True`` when every cycle has an even number of repulsive edges (edges of weight
        0 ignored).

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> is_balanced(ising(nx.cycle_graph(4), couplings=[1.0, -1.0, 1.0, -1.0]))
    True
    """
    model = _check_pairwise(model)
    edges, rep = _signed(model)
    return _parity(model.n_variables, edges, rep)[2].size == 0


def frustrated_cycle(model: DiscreteModel) -> list[int] | None:
    """One frustrated cycle (an odd number of repulsive edges), or None when balanced.

    Parameters
    ----------
    model : DiscreteModel
        Binary, pairwise (factor arities <= 2).

    Returns
    -------
    list of int or None
        The cycle's vertices in order (the edge from the last back to the first closes it).

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> m = ising(nx.cycle_graph(4), couplings=[1.0, 1.0, 1.0, -1.0])
    >>> sorted(frustrated_cycle(m))
    [0, 1, 2, 3]
    """
    model = _check_pairwise(model)
    edges, rep = _signed(model)
    return _cycle(model.n_variables, edges, rep, None)


def _cycle(n: int, edges: np.ndarray, rep: np.ndarray, removed: int | None) -> list[int] | None:
    _, pred, bad = _parity(n, edges, rep, removed)
    if bad.size == 0:
        return None
    u, w = (int(v) for v in edges[bad[0]])
    up_u = [u]
    while pred[up_u[-1]] >= 0:
        up_u.append(int(pred[up_u[-1]]))
    on_u = {v: k for k, v in enumerate(up_u)}
    up_w = [w]
    while up_w[-1] not in on_u:
        up_w.append(int(pred[up_w[-1]]))
    lca = up_w[-1]
    return up_u[: on_u[lca] + 1] + up_w[-2::-1]


def balancing_flip(model: DiscreteModel) -> list[int]:
    """The variables whose flip (Def. 1.16) makes every edge attractive.

    Parameters
    ----------
    model : DiscreteModel
        Binary, pairwise (factor arities <= 2), balanced.

    Returns
    -------
    list of int
        Sorted indices: in each connected component, the vertices whose forest path to the
        component's first vertex has an odd number of repulsive edges.

    Raises
    ------
    ValueError
        The model is not balanced (the message names a frustrated cycle).

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> balancing_flip(ising(nx.path_graph(3), couplings=[-1.0, 1.0]))
    [1, 2]
    """
    model = _check_pairwise(model)
    edges, rep = _signed(model)
    colour, _, bad = _parity(model.n_variables, edges, rep)
    if bad.size:
        cycle = _cycle(model.n_variables, edges, rep, None)
        raise ValueError(f"model is not balanced: the cycle {cycle} is frustrated")
    return np.flatnonzero(colour).tolist()


def almost_balanced_vertex(model: DiscreteModel) -> int | None:
    """A vertex ``s`` whose deletion leaves a balanced model (Def. 3.1), or None.

    Only the vertices of one frustrated cycle can work (every frustrated cycle must pass
    through ``s``), so at most that cycle's length of balance checks are made.

    Parameters
    ----------
    model : DiscreteModel
        Binary, pairwise (factor arities <= 2).

    Returns
    -------
    int or None
        The index of ``s``, or None when no vertex works. For a balanced model, 0 (any
        vertex works; None when the model has no variable).

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> G = nx.complete_graph(4)
    >>> m = ising(G, couplings={(0, 1): 1.0, (0, 2): 1.0, (1, 2): -1.0, (0, 3): 1.0,
    ...                         (1, 3): 1.0, (2, 3): 1.0})
    >>> almost_balanced_vertex(m) in (1, 2)
    True
    """
    model = _check_pairwise(model)
    n = model.n_variables
    edges, rep = _signed(model)
    cycle = _cycle(n, edges, rep, None)
    if cycle is None:
        return 0 if n else None
    for s in cycle:
        if _parity(n, edges, rep, s)[2].size == 0:
            return int(s)
    return None
