"""Signed graphs, their orbits, and tightness of Sherali-Adams relaxations per signing.

Rowland (2018), Ch. 4. A *signed graph* ``(G, Sigma)`` gives each edge a sign: even
(``+1``, attractive) or odd (``-1``, repulsive). It stands for the class ``M(G, Sigma)`` of
binary pairwise models on ``G`` whose edge potentials have these signs (eq. 4.1). In the
minimal parametrisation of Section 3.3 a model is a potential ``phi = (phi_i, phi_ij)``
with score ``sum_i phi_i x_i + sum_ij phi_ij x_i x_j`` (``x in {0, 1}^n``); the edge is
attractive when ``phi_ij > 0`` and repulsive when ``phi_ij < 0``.

*Resigning* (§4.2.3) a vertex set ``S`` flips the sign of every edge with exactly one end
in ``S``; it is what flipping the variables of ``S`` (Def. 1.16) does to a model's signs.
Two signings are equivalent when a resigning relates them: the class of a signing is
fixed by the parity of every cycle, i.e. by its co-tree signs after resigning the
spanning-tree edges to even. The Sherali-Adams polytopes are symmetric under flippings
and graph automorphisms (Lemma 4.7, eq. 4.8), so tightness is a property of an orbit of
signings under ``Aut(G) ⋉ Z_2^V`` (§4.4.2): :func:`signing_orbits` lists them.

Tightness (§4.4): ``L_r(G)`` is *tight for a signing* when the LP (eq. 1.11) equals the
MAP score for every model in ``M(G, Sigma)``. Two procedures decide it:

* :func:`find_gap` *searches* for a potential with the signing's edge signs whose
  ``L_r`` value exceeds its MAP score (brute force over ``2^n`` assignments). Alternating
  LPs: for a fixed pseudomarginal ``q`` the best potential is an LP (maximise
  ``<phi, q> - t`` subject to ``<phi, x> <= t`` for all ``x``, the signs and a box); for a
  fixed potential the best ``q`` is the ``L_r`` LP. A positive gap is a *certificate* of
  non-tightness (checked again with :func:`relaxation_gap`); finding none proves nothing.
* :func:`certify_tightness` follows the thesis's pipeline (Lemmas 4.8-4.10): for every
  vertex ``z`` of ``M(G)`` enumerate the extreme rays of the cone ``M(G, Sigma) ∩
  N_M(z)`` (sign constraints and normal cone of the marginal polytope at ``z``) and solve
  ``P''_{z, phi} = max_{q in L_r} <phi, q> - <phi, z>`` (eq. 4.14) for each. Flipping
  ``z`` to 0 turns the cones into ``{phi : signs of Sigma^(z), <phi, x> <= 0 for all
  x}``; one cone per signing of the resigning class up to automorphisms is needed. The
  extreme rays come from our own double-description method (floating point, combinatorial
  adjacency test); a closed cone contains the open sign class's models in its interior, and
  the LP gap is continuous in ``phi``, so the closure changes nothing. When every ray has
  a zero gap the signing is *proven* tight (up to floating-point tolerance), otherwise the
  worst ray is a certificate.

Variables and edges are in ``G.nodes`` and ``G.edges`` order.

Examples
--------
The odd triangle (all three edges repulsive) is the forbidden signed minor of ``L_2``
(Fig. 4.6): a search finds a potential with an ``L_2`` gap.

>>> sg = odd_complete_graph(3)
>>> res = find_gap(sg, 2, random_state=0)
>>> res.gap > 0.1, res.r
(True, 2)
>>> lp, mp = relaxation_gap(sg, res.potential, 2)
>>> bool(abs((lp - mp) - res.gap) < 1e-7)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
from networkx.algorithms.approximation import treewidth_min_fill_in
from scipy.optimize import linprog

from kernelkit import _memory
from kernelkit._validation import check_int, check_random_state
from kernelkit.pgm.model import DiscreteModel, ising
from kernelkit.pgm.relaxations import lp_relaxation

__all__ = [
    "GapSearchResult",
    "SignedGraph",
    "SigningOrbits",
    "TightnessCertificate",
    "certify_tightness",
    "find_gap",
    "forbidden_minor_graphs",
    "octahedron_graph",
    "odd_complete_graph",
    "pentagonal_prism_graph",
    "relaxation_gap",
    "signing_orbits",
    "wagner_graph",
]

#: Gaps above this are reported as non-tight (LP values from HiGHS are accurate to ~1e-9).
GAP_TOL = 1e-6


# -- signed graphs ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SignedGraph:
    """A graph with a sign per edge (Rowland 2018, §4.2.3).

    Attributes
    ----------
    graph : networkx.Graph
        Undirected, simple, no self-loops.
    signs : ndarray of int, shape (n_edges,)
        ``+1`` (even, attractive) or ``-1`` (odd, repulsive) per edge, in ``graph.edges``
        order. Read-only.

    Examples
    --------
    >>> import networkx as nx
    >>> sg = SignedGraph.from_signs(nx.cycle_graph(3), [1, 1, -1])
    >>> sg.is_balanced, sg.resign([0]).signs.tolist()
    (False, [-1, -1, -1])
    """

    graph: Any
    signs: np.ndarray

    @classmethod
    def from_signs(cls, graph: Any, signs: Any) -> SignedGraph:
        """A signed graph from a graph and signs (array in ``graph.edges`` order, a mapping
        edge -> sign, or one sign for every edge).

        Parameters
        ----------
        graph : networkx.Graph
            Undirected, simple, no self-loops.
        signs : array-like of shape (n_edges,), dict or int
            ``+1`` / ``-1`` per edge in ``graph.edges`` order, a mapping ``(u, v) -> sign``
            (edges left out are 0, hence rejected), or one sign for every edge.

        Returns
        -------
        SignedGraph
            With ``signs`` as a read-only ``int64`` array.

        Raises
        ------
        TypeError
            ``graph`` is not an undirected simple networkx graph.
        ValueError
            A sign other than ``+1`` / ``-1``; the wrong number of signs; a self-loop; an
            unknown edge in a mapping.
        """
        if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
            raise TypeError(
                f"graph must be an undirected networkx.Graph, got {type(graph).__name__}"
            )
        if any(u == v for u, v in graph.edges):
            raise ValueError("graph must not have self-loops")
        edges = list(graph.edges)
        if isinstance(signs, dict):
            canonical = {frozenset(e): k for k, e in enumerate(edges)}
            arr = np.zeros(len(edges))
            for key, value in signs.items():
                k = canonical.get(frozenset(key)) if isinstance(key, tuple) else None
                if k is None:
                    raise ValueError(f"signs: {key!r} is not an edge of graph")
                arr[k] = value
        else:
            arr = np.asarray(signs, dtype=np.float64)
            if arr.ndim == 0:
                arr = np.full(len(edges), float(arr))
        if arr.shape != (len(edges),):
            raise ValueError(f"signs must have one entry per edge ({len(edges)}), got {arr.shape}")
        if not np.all(np.isin(arr, (-1.0, 1.0))):
            raise ValueError("signs must be +1 (even, attractive) or -1 (odd, repulsive)")
        out = arr.astype(np.int64)
        out.flags.writeable = False
        return cls(graph, out)

    @property
    def edges(self) -> list[tuple[Any, Any]]:
        """The edges, in ``graph.edges`` order."""
        return list(self.graph.edges)

    @property
    def n_vertices(self) -> int:
        """The number of vertices of ``graph``."""
        return int(self.graph.number_of_nodes())

    def edge_index(self) -> np.ndarray:
        """The edges as pairs of vertex indices (``graph.nodes`` order), shape (m, 2).

        Returns
        -------
        ndarray of int64, shape (n_edges, 2)
            Row ``k`` holds the indices of the ends of edge ``k`` (``graph.edges`` order).
        """
        pos = {v: i for i, v in enumerate(self.graph.nodes)}
        return np.array([(pos[u], pos[v]) for u, v in self.graph.edges], dtype=np.int64).reshape(
            -1, 2
        )

    def resign(self, vertices: Any) -> SignedGraph:
        """Flip the sign of every edge with exactly one end in ``vertices`` (§4.2.3).

        Parameters
        ----------
        vertices : iterable
            The set ``S``: nodes of ``graph``.

        Returns
        -------
        SignedGraph
            A new signed graph on the same graph.

        Raises
        ------
        ValueError
            If an element of ``vertices`` is not a node of ``graph``.
        """
        S = set(vertices)
        unknown = S - set(self.graph.nodes)
        if unknown:
            raise ValueError(f"vertices: {sorted(map(repr, unknown))[0]} is not a vertex of graph")
        cut = np.array([(u in S) != (v in S) for u, v in self.graph.edges], dtype=bool)
        return SignedGraph.from_signs(self.graph, np.where(cut, -self.signs, self.signs))

    def class_vector(self) -> np.ndarray:
        """The resigning class: co-tree signs after resigning the tree edges to even.

        A BFS spanning forest (from the first vertex of each component, in ``graph.nodes``
        order) fixes the co-tree edges; two signings are equivalent under resigning iff
        their class vectors are equal (every cycle's parity is the product of the co-tree
        edges it uses).

        Returns
        -------
        ndarray of int, shape (n_cotree_edges,)
            ``+1`` / ``-1`` per co-tree edge, in ``graph.edges`` order.
        """
        pot = _vertex_potentials(self.graph, self.signs)
        E = self.edge_index()
        normal = self.signs * pot[E[:, 0]] * pot[E[:, 1]]
        return normal[~_tree_mask(self.graph)]

    @property
    def is_balanced(self) -> bool:
        """Whether every cycle has an even number of odd edges (Def. 1.12)."""
        return bool(np.all(self.class_vector() == 1))

    def model(self, potential: Any) -> DiscreteModel:
        """The binary pairwise model with minimal potential ``phi`` (unaries, then edges).

        ``score(x) = sum_i phi_i x_i + sum_ij phi_ij x_i x_j`` (:func:`~kernelkit.pgm.ising`
        with ``spins="01"``); the signs are not checked here.

        Parameters
        ----------
        potential : array-like, shape (n_vertices + n_edges,)
            The minimal potential ``phi``, finite: unaries in ``graph.nodes`` order, then
            edges in ``graph.edges`` order.

        Returns
        -------
        DiscreteModel
            A binary pairwise model on the vertices of ``graph``.
        """
        phi = _check_potential(self, potential)
        n = self.n_vertices
        return ising(self.graph, fields=phi[:n], couplings=phi[n:], spins="01")

    def respects(self, potential: Any) -> bool:
        """Whether ``phi``'s edge coefficients have the signs (zero allowed: the closure).

        Parameters
        ----------
        potential : array-like, shape (n_vertices + n_edges,)
            The minimal potential ``phi``, as in :meth:`model`.

        Returns
        -------
        bool
            ``True`` when ``signs * phi_ij >= 0`` on every edge.
        """
        phi = _check_potential(self, potential)
        return bool(np.all(self.signs * phi[self.n_vertices :] >= 0))


def _check_potential(sg: SignedGraph, potential: Any) -> np.ndarray:
    phi = np.asarray(potential, dtype=np.float64)
    d = sg.n_vertices + sg.signs.shape[0]
    if phi.shape != (d,):
        raise ValueError(
            f"potential must have shape ({d},) (one entry per vertex, then per edge), "
            f"got {phi.shape}"
        )
    if not np.all(np.isfinite(phi)):
        raise ValueError("potential must be finite")
    return phi


def _tree_mask(G: Any) -> np.ndarray:
    """Which edges (``G.edges`` order) are in the BFS spanning forest."""
    tree: set[frozenset[Any]] = set()
    seen: set[Any] = set()
    for root in G.nodes:
        if root in seen:
            continue
        seen.add(root)
        for u, v in nx.bfs_edges(G, root):
            seen.add(v)
            tree.add(frozenset((u, v)))
    return np.array([frozenset(e) in tree for e in G.edges], dtype=bool)


def _vertex_potentials(G: Any, signs: np.ndarray) -> np.ndarray:
    """``+-1`` per vertex: the product of the signs on the BFS-forest path from its root."""
    return _potentials_matrix(G, np.asarray(signs)[None, :])[0]


# -- the graphs of Ch. 4 ----------------------------------------------------------------------


def odd_complete_graph(n: int) -> SignedGraph:
    """The odd-``K_n``: every edge of ``K_n`` odd (repulsive), Figs. 4.6-4.8.

    Parameters
    ----------
    n : int
        Number of vertices, ``>= 1``.

    Returns
    -------
    SignedGraph
        ``K_n`` with every sign ``-1``.

    Examples
    --------
    >>> sg = odd_complete_graph(4)
    >>> sg.signs.tolist(), sg.is_balanced
    ([-1, -1, -1, -1, -1, -1], False)
    """
    n = check_int(n, "n", minimum=1)
    _memory.check_memory(
        _BYTES_PER_EDGE * (n * (n - 1) // 2),
        f"odd_complete_graph(n={n}): a networkx graph with {n * (n - 1) // 2} edges",
    )
    return SignedGraph.from_signs(nx.complete_graph(n), -1)


#: Memory of one edge of a networkx graph (two adjacency entries and their attribute
#: dicts), for the up-front check of :func:`odd_complete_graph`.
_BYTES_PER_EDGE = 500


def octahedron_graph() -> Any:
    """The octahedral graph ``O_6`` (``K_{2,2,2}``; automorphism group of order 48).

    Returns
    -------
    networkx.Graph
        6 vertices, 12 edges.
    """
    return nx.octahedral_graph()


def wagner_graph() -> Any:
    """The Wagner graph ``M_8``: the 8-cycle with its four long diagonals (Möbius ladder).

    Returns
    -------
    networkx.Graph
        8 vertices, 12 edges.
    """
    return nx.circulant_graph(8, [1, 4])


def pentagonal_prism_graph() -> Any:
    """The pentagonal prism ``Y_5``: two 5-cycles joined by a perfect matching.

    Returns
    -------
    networkx.Graph
        10 vertices, 15 edges.
    """
    return nx.circular_ladder_graph(5)


def forbidden_minor_graphs() -> dict[str, Any]:
    """``T_4``, the minimal forbidden minors for treewidth ``<= 3`` (Fig. 4.4).

    Returns
    -------
    dict of str to networkx.Graph
        ``K5``, ``O6`` (:func:`octahedron_graph`), ``M8`` (:func:`wagner_graph`) and ``Y5``
        (:func:`pentagonal_prism_graph`).

    Examples
    --------
    >>> {k: (g.number_of_nodes(), g.number_of_edges()) for k, g in
    ...  forbidden_minor_graphs().items()}
    {'K5': (5, 10), 'O6': (6, 12), 'M8': (8, 12), 'Y5': (10, 15)}
    """
    return {
        "K5": nx.complete_graph(5),
        "O6": octahedron_graph(),
        "M8": wagner_graph(),
        "Y5": pentagonal_prism_graph(),
    }


# -- orbits ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SigningOrbits:
    """The signings of a graph up to resigning and automorphisms (§4.4.2).

    Attributes
    ----------
    representatives : tuple of SignedGraph
        One signing per orbit, ordered by the number of odd co-tree edges (descending: the
        first of ``K_n`` is the odd-``K_n`` class), then by class vector.
    sizes : ndarray of int
        The number of resigning classes in each orbit (they sum to ``n_classes``).
    n_classes : int
        The number of resigning classes, ``2^(|E| - |V| + c)`` (``c`` components).
    n_automorphisms : int
        ``|Aut(G)|``.
    """

    representatives: tuple[SignedGraph, ...]
    sizes: np.ndarray
    n_classes: int
    n_automorphisms: int

    def __len__(self) -> int:
        return len(self.representatives)


def automorphisms(G: Any) -> list[dict[Any, Any]]:
    """All automorphisms of ``G`` (networkx's VF2 isomorphism matcher)."""
    matcher = nx.algorithms.isomorphism.GraphMatcher(G, G)
    return list(matcher.isomorphisms_iter())


def _edge_permutations(G: Any) -> np.ndarray:
    """For each automorphism ``sigma``, the edge permutation: row ``a``, entry ``k`` is the
    index of the edge ``sigma(e_k)``."""
    edges = list(G.edges)
    index = {frozenset(e): k for k, e in enumerate(edges)}
    perms = [
        [index[frozenset((sigma[u], sigma[v]))] for u, v in edges] for sigma in automorphisms(G)
    ]
    return np.array(perms, dtype=np.int64).reshape(len(perms), len(edges))


def signing_orbits(G: Any) -> SigningOrbits:
    """The orbits of signings of ``G`` under resigning and ``Aut(G)`` (§4.4.2).

    Every resigning class is enumerated by its co-tree signs (tree edges even); an
    automorphism maps a class to the class of the permuted signing. Orbits are the
    connected components of this action (the thesis's ``Aut(G) ⋉ Z_2^V``).

    Parameters
    ----------
    G : networkx.Graph
        Undirected and simple; at most 20 co-tree edges.

    Returns
    -------
    SigningOrbits
        One representative signing per orbit, the orbit sizes and ``|Aut(G)|``.

    Examples
    --------
    >>> import networkx as nx
    >>> orb = signing_orbits(nx.complete_graph(5))
    >>> len(orb), orb.sizes.tolist(), orb.n_classes
    (7, [1, 10, 15, 15, 10, 12, 1], 64)
    >>> orb.representatives[0].is_balanced, orb.representatives[-1].is_balanced
    (False, True)
    """
    probe = SignedGraph.from_signs(G, 1)
    tree = _tree_mask(G)
    cotree = np.flatnonzero(~tree)
    c = cotree.shape[0]
    if c > 20:
        raise ValueError(f"G has {c} co-tree edges; signing_orbits enumerates at most 2^20 classes")
    m = probe.signs.shape[0]
    codes = np.arange(2**c, dtype=np.int64)
    bits = (codes[:, None] >> np.arange(c)) & 1  # 1 = odd co-tree edge
    signs = np.ones((2**c, m), dtype=np.int64)
    signs[:, cotree] = 1 - 2 * bits
    perms = _edge_permutations(G)
    # the class of the permuted signing sigma(S)(sigma(e)) = S(e): new[:, perm] = signs
    E = probe.edge_index()
    label = -np.ones(2**c, dtype=np.int64)
    weight = 2 ** np.arange(c)
    images = []
    for perm in perms:
        moved = np.empty_like(signs)
        moved[:, perm] = signs
        pot = _potentials_matrix(G, moved)
        normal = moved * pot[:, E[:, 0]] * pot[:, E[:, 1]]
        images.append(((1 - normal[:, cotree]) // 2) @ weight)
    img = np.stack(images)  # (n_aut, 2^c)
    order = np.argsort(-bits.sum(axis=1), kind="stable")
    reps: list[SignedGraph] = []
    sizes: list[int] = []
    for code in order:
        if label[code] >= 0:
            continue
        members = np.unique(img[:, code])
        label[members] = len(reps)
        reps.append(SignedGraph.from_signs(G, signs[code]))
        sizes.append(members.shape[0])
    return SigningOrbits(tuple(reps), np.array(sizes), 2**c, int(perms.shape[0]))


def _potentials_matrix(G: Any, signs: np.ndarray) -> np.ndarray:
    """Vertex potentials for a batch of signings (rows), along the BFS forest."""
    pos = {v: i for i, v in enumerate(G.nodes)}
    index = {frozenset(e): k for k, e in enumerate(G.edges)}
    pot = np.ones((signs.shape[0], len(pos)), dtype=np.int64)
    seen: set[Any] = set()
    for root in G.nodes:
        if root in seen:
            continue
        seen.add(root)
        for u, v in nx.bfs_edges(G, root):
            seen.add(v)
            pot[:, pos[v]] = pot[:, pos[u]] * signs[:, index[frozenset((u, v))]]
    return pot


# -- LP values and brute-force MAP -----------------------------------------------------------


def _assignments(n: int) -> np.ndarray:
    """All ``2^n`` assignments of ``n`` binary variables, shape (2^n, n)."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(np.float64)


def _features(sg: SignedGraph) -> np.ndarray:
    """``(x_i, x_i x_j)`` for every assignment: the vertices of ``M(G)`` (2^n, n + m)."""
    n = sg.n_vertices
    if n > 16:
        raise ValueError(f"brute-force MAP enumerates 2^n assignments; n = {n} > 16")
    X = _assignments(n)
    E = sg.edge_index()
    return np.hstack([X, X[:, E[:, 0]] * X[:, E[:, 1]]])


def _check_r(sg: SignedGraph, r: Any) -> int:
    r = check_int(r, "r", minimum=2)
    if r > sg.n_vertices:
        raise ValueError(f"r must be <= the number of vertices ({sg.n_vertices}), got {r}")
    return r


def _lp(sg: SignedGraph, phi: np.ndarray, r: int) -> tuple[float, np.ndarray]:
    """The ``L_r`` value and the optimal minimal pseudomarginal ``q = (q_i, q_ij)``."""
    n = sg.n_vertices
    res = lp_relaxation(sg.model(phi), "SA", r=r)
    q_v = np.array([p[1] for p in res.pseudomarginals])
    q_e = np.array([res.factor_marginals[n + k][1, 1] for k in range(sg.signs.shape[0])])
    return res.value, np.concatenate([q_v, q_e])


def relaxation_gap(sg: SignedGraph, potential: Any, r: int) -> tuple[float, float]:
    """The Sherali-Adams ``L_r`` value and the exact MAP score of a potential.

    Parameters
    ----------
    sg : SignedGraph
        The graph (its signs are not used: any potential is accepted).
    potential : array-like, shape (n_vertices + n_edges,)
        The minimal potential ``phi`` (unaries in ``graph.nodes`` order, then edges).
    r : int
        The Sherali-Adams level, ``2 <= r <= n_vertices`` (``r = n`` is ``M(G)``).

    Returns
    -------
    lp_value, map_score : float
        ``max_{q in L_r} <phi, q>`` (HiGHS) and ``max_x <phi, (x_i, x_i x_j)>`` (by
        enumeration of the ``2^n`` assignments).

    Examples
    --------
    >>> sg = odd_complete_graph(3)
    >>> lp, mp = relaxation_gap(sg, [1, 1, 1, -2, -2, -2], 2)
    >>> round(lp, 6), mp
    (1.5, 1.0)
    """
    if not isinstance(sg, SignedGraph):
        raise TypeError(f"sg must be a SignedGraph, got {type(sg).__name__}")
    r = _check_r(sg, r)
    phi = _check_potential(sg, potential)
    value, _ = _lp(sg, phi, r)
    return value, float(np.max(_features(sg) @ phi))


# -- search for a gap ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GapSearchResult:
    """The best potential found by :func:`find_gap`.

    Attributes
    ----------
    gap : float
        ``lp_value - map_score`` of ``potential`` (``> GAP_TOL``: a certificate that
        ``L_r`` is not tight for the signing).
    potential : ndarray, shape (n_vertices + n_edges,)
        The potential (in the box ``[-1, 1]``, with the signing's edge signs, zeros
        allowed).
    lp_value, map_score : float
        Its ``L_r`` value and exact MAP score (recomputed).
    r : int
        The Sherali-Adams level.
    n_lps : int
        The number of LPs solved.
    n_restarts : int
        The number of random starts.
    """

    gap: float
    potential: np.ndarray
    lp_value: float
    map_score: float
    r: int
    n_lps: int
    n_restarts: int

    @property
    def tight_found(self) -> bool:
        """Whether no gap above ``GAP_TOL`` was found (not a proof of tightness)."""
        return self.gap <= GAP_TOL


def _best_potential(sg: SignedGraph, F: np.ndarray, q: np.ndarray) -> tuple[float, np.ndarray]:
    """``max_phi <phi, q> - max_x <phi, x>`` over the signing's box: one LP."""
    n, d = sg.n_vertices, F.shape[1]
    lo = np.concatenate([-np.ones(n), np.where(sg.signs > 0, 0.0, -1.0)])
    hi = np.concatenate([np.ones(n), np.where(sg.signs > 0, 1.0, 0.0)])
    c = np.concatenate([-q, [1.0]])  # minimise -(q.phi - t)
    A = np.hstack([F, -np.ones((F.shape[0], 1))])
    res = linprog(
        c,
        A_ub=A,
        b_ub=np.zeros(F.shape[0]),
        bounds=np.column_stack([np.append(lo, -np.inf), np.append(hi, np.inf)]),
        method="highs",
    )
    if res.status != 0:  # pragma: no cover - bounded and feasible by construction
        return 0.0, np.zeros(d)
    return float(-res.fun), np.asarray(res.x[:d])


def _random_potential(sg: SignedGraph, rng: np.random.RandomState) -> np.ndarray:
    """Edges with the signing's signs and magnitudes uniform on ``[0.5, 1]``; unaries
    ``c * u_i``, ``u_i`` uniform on ``[0.5, 1]`` and positive with probability 0.8, ``c``
    log-uniform on ``[0.1, 1]`` times the largest degree (near-symmetric potentials
    have fractional ``L_r`` optima most often)."""
    n, m = sg.n_vertices, sg.signs.shape[0]
    deg = max((d for _, d in sg.graph.degree), default=1)
    c = np.exp(rng.uniform(np.log(0.1), np.log(1.0))) * deg
    sign = np.where(rng.uniform(size=n) < 0.8, 1.0, -1.0)
    return np.concatenate([c * sign * rng.uniform(0.5, 1, n), sg.signs * rng.uniform(0.5, 1, m)])


def find_gap(
    sg: SignedGraph,
    r: int,
    *,
    n_restarts: int = 10,
    max_iter: int = 20,
    random_state: Any = None,
) -> GapSearchResult:
    """Search for a potential respecting a signing with an ``L_r`` gap (a heuristic).

    Alternating maximisation of the bilinear problem (4.12) with ``Pi`` the box
    ``[-1, 1]^d``: from a random potential, solve the ``L_r`` LP for ``q``, then the LP for
    the potential that maximises ``<phi, q> - max_x <phi, x>`` for that ``q`` (the max over
    the ``2^n`` vertices of ``M(G)`` written as constraints), and repeat until the gap
    stops increasing. A gap above ``GAP_TOL`` certifies non-tightness (its LP value and
    MAP score are recomputed from scratch); finding none proves nothing
    (see :func:`certify_tightness`).

    Parameters
    ----------
    sg : SignedGraph
        The signing; at most 16 vertices (the MAP score is found by enumeration).
    r : int
        ``2 <= r <= n_vertices``.
    n_restarts : int, default=10
        Random starting potentials (edges with the signing's signs and magnitudes
        uniform on ``[0.5, 1]``, unaries of random sign and scale).
    max_iter : int, default=20
        Alternations per restart.
    random_state : int, RandomState or None
        Seed of the starting potentials.

    Returns
    -------
    GapSearchResult
        The potential with the largest gap found, with its LP value and MAP score.

    Examples
    --------
    >>> res = find_gap(odd_complete_graph(4), 3, random_state=0)
    >>> res.gap > 0.05, res.tight_found
    (True, False)
    """
    if not isinstance(sg, SignedGraph):
        raise TypeError(f"sg must be a SignedGraph, got {type(sg).__name__}")
    r = _check_r(sg, r)
    n_restarts = check_int(n_restarts, "n_restarts", minimum=1)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    rng = check_random_state(random_state)
    F = _features(sg)
    n, m = sg.n_vertices, sg.signs.shape[0]
    best_gap, best_phi, n_lps = -np.inf, np.zeros(n + m), 0
    for _ in range(n_restarts):
        phi = _random_potential(sg, rng)
        gap = -np.inf
        for _ in range(max_iter):
            _, q = _lp(sg, phi, r)
            new_gap, new_phi = _best_potential(sg, F, q)
            n_lps += 2
            if new_gap <= gap + 1e-9:
                break
            gap, phi = new_gap, new_phi
        if gap > best_gap:
            best_gap, best_phi = gap, phi
    lp_value, map_score = relaxation_gap(sg, best_phi, r)
    n_lps += 1
    return GapSearchResult(
        gap=lp_value - map_score,
        potential=best_phi,
        lp_value=lp_value,
        map_score=map_score,
        r=r,
        n_lps=n_lps,
        n_restarts=n_restarts,
    )


# -- the thesis's pipeline: normal cones and their extreme rays ------------------------------


def _extreme_rays(A: np.ndarray, d: int, *, max_rays: int, tol: float = 1e-9) -> np.ndarray | None:
    """Extreme rays of the pointed cone ``{phi : A phi >= 0}`` by double description.

    The initial simplicial cone is spanned by ``d`` linearly independent rows of ``A``
    (the first ones, greedily); the others are added one at a time, each time the row
    that cuts off the most current rays (cddlib's dynamic "max-cutoff" order: on the
    highly degenerate cones of :func:`certify_tightness` it keeps the intermediate cones
    small; the worst cone of the Wagner graph peaks at ~1,300 rays instead of ~15,000 in
    the order given, 1 s instead of minutes). A new ray combines each
    adjacent pair (combinatorial test: no third ray is tight on every row both are tight
    on), computed in blocks of pairs to bound memory. Rays are scaled to max-norm 1.
    Returns None when more than ``max_rays`` rays appear.

    Raises
    ------
    ValueError
        The rows of ``A`` have rank below ``d`` (the cone is not pointed).
    """
    A = np.asarray(A, dtype=np.float64)
    basis: list[int] = []
    Q = np.zeros((0, d))
    for k in range(A.shape[0]):
        a = A[k] - Q.T @ (Q @ A[k])
        norm = np.linalg.norm(a)
        if norm > 1e-8 * max(1.0, float(np.linalg.norm(A[k]))):
            basis.append(k)
            Q = np.vstack([Q, a / norm])
            if len(basis) == d:
                break
    if len(basis) < d:
        raise ValueError(f"A has rank {len(basis)} < d = {d}: the cone is not pointed")
    R = np.linalg.inv(A[basis]).T  # rows: rays, A[basis] @ R[k] = e_k
    R /= np.abs(R).max(axis=1, keepdims=True)
    Z = np.abs(R @ A[basis].T) <= tol  # tight incidence on the rows inserted so far
    rest = np.setdiff1d(np.arange(A.shape[0]), basis)
    while rest.size:
        V = R @ A[rest].T
        j = int(np.argmax((V < -tol).sum(axis=0)))
        k, v = rest[j], V[:, j]
        rest = np.delete(rest, j)
        pos, neg = np.flatnonzero(v > tol), np.flatnonzero(v < -tol)
        if neg.size == 0:
            Z = np.column_stack([Z, np.abs(v) <= tol])
            continue
        new_rays, new_Z = [], []
        outside = (~Z).astype(np.float32).T  # (rows so far, rays)
        block = max(1, 200_000 // max(neg.size, 1))
        for b in range(0, pos.size, block):
            p = pos[b : b + block]
            P, N = np.repeat(p, neg.size), np.tile(neg, p.size)
            common = Z[P] & Z[N]
            ok = common.sum(axis=1) >= d - 2
            P, N, common = P[ok], N[ok], common[ok]
            if not P.size:
                continue
            # adjacent iff only the pair itself is tight on every row of `common`
            adjacent = ((common.astype(np.float32) @ outside) == 0).sum(axis=1) == 2
            P, N, common = P[adjacent], N[adjacent], common[adjacent]
            rays = v[P, None] * R[N] - v[N, None] * R[P]
            rays /= np.abs(rays).max(axis=1, keepdims=True)
            new_rays.append(rays)
            new_Z.append(common)
        keep = np.ones(R.shape[0], dtype=bool)
        keep[neg] = False
        R = np.vstack([R[keep], *new_rays])
        Z = np.vstack([Z[keep], *new_Z])
        Z = np.column_stack([Z, np.abs(R @ A[k]) <= tol])
        if R.shape[0] > max_rays:
            return None
    return R


def _cone_rows(sg: SignedGraph) -> np.ndarray:
    """The rows ``A`` with ``C_0 = {phi : A phi >= 0}``: the signing's signs, ``-phi_i >=
    0``, and ``-<phi, x_S> >= 0`` for each vertex set ``S`` (``|S| >= 2``) connected by
    even edges (others are implied: odd edges between the parts only lower the score)."""
    n, m = sg.n_vertices, sg.signs.shape[0]
    E = sg.edge_index()
    rows = [np.hstack([np.zeros((m, n)), np.diag(sg.signs.astype(np.float64))])]
    rows.append(np.hstack([-np.eye(n), np.zeros((n, m))]))
    even = nx.Graph()
    even.add_nodes_from(range(n))
    even.add_edges_from(E[sg.signs > 0].tolist())
    F = _features(sg)
    X = F[:, :n].astype(bool)
    size = X.sum(axis=1)
    order = np.argsort(size, kind="stable")
    keep = [
        i
        for i in order
        if size[i] >= 2 and nx.is_connected(even.subgraph(np.flatnonzero(X[i]).tolist()))
    ]
    rows.append(-F[keep])
    return np.vstack(rows)


@dataclass(frozen=True, eq=False)
class TightnessCertificate:
    """The outcome of :func:`certify_tightness` for one signing.

    Attributes
    ----------
    tight : bool or None
        True: every extreme ray of every cone has a zero gap, so ``L_r`` is tight for
        every model with these signs (up to the tolerance ``GAP_TOL``); False: a ray with a
        gap was found (``potential``); None: the enumeration stopped at ``max_rays``
        (undecided).
    max_gap : float
        The largest ``P''`` value (eq. 4.14) over the rays solved.
    potential : ndarray or None
        A potential (for the original signing, i.e. mapped back through the flip) with
        gap ``max_gap``, when ``max_gap > GAP_TOL``.
    r : int
        The Sherali-Adams level.
    n_cones : int
        The cones ``C_0(Sigma^(S))`` examined (resignings up to automorphisms).
    n_rays : int
        Extreme rays enumerated, summed over the cones.
    n_lps : int
        ``L_r`` LPs solved. Rays with no positive entry need none (their value is 0), nor
        rays whose nonzero edges form a graph of treewidth ``<= r - 1`` (``n_skipped``).
    n_skipped : int
        Rays with a positive entry whose edge support has treewidth ``<= r - 1`` (by the
        min-fill-in upper bound): ``L_r`` (every ``r``-subset of vertices) is exact on such a
        graph (junction tree), so their gap is 0 without an LP. On the graphs of ``T_4``
        every proper subgraph qualifies for ``r = 4`` (minimal forbidden minors).
    """

    tight: bool | None
    max_gap: float
    potential: np.ndarray | None
    r: int
    n_cones: int
    n_rays: int
    n_lps: int
    n_skipped: int = 0


def _flip_potential(sg: SignedGraph, phi: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Express ``phi`` (a potential on the model flipped at the vertex mask ``S``) on the
    original variables: ``x_i -> 1 - x_i`` for ``i in S`` (constant dropped)."""
    n = sg.n_vertices
    E = sg.edge_index()
    unary, pair = phi[:n].copy(), phi[n:].copy()
    a, b = S[E[:, 0]], S[E[:, 1]]
    # phi_ij x_i x_j with x_i flipped: phi_ij (1 - x_i) x_j = phi_ij x_j - phi_ij x_i x_j
    out_u = np.where(S, -unary, unary)
    np.add.at(out_u, E[:, 1], np.where(a & ~b, pair, 0.0))
    np.add.at(out_u, E[:, 0], np.where(b & ~a, pair, 0.0))
    both = a & b
    np.add.at(out_u, E[:, 0], np.where(both, -pair, 0.0))
    np.add.at(out_u, E[:, 1], np.where(both, -pair, 0.0))
    out_p = np.where(a ^ b, -pair, pair)
    return np.concatenate([out_u, out_p])


def certify_tightness(
    sg: SignedGraph, r: int, *, max_rays: int = 20_000, stop_at_gap: bool = True
) -> TightnessCertificate:
    """Decide whether ``L_r`` is tight for a signing: the thesis's pipeline (§4.4).

    For every vertex ``z`` of ``M(G)``, flipping the variables set in ``z`` maps the cone
    ``M(G, Sigma) ∩ N_M(z)`` of Lemma 4.9 to ``C_0 = {phi : signs of Sigma^(z), <phi, x>
    <= 0 for all x}``, whose MAP score is 0 (at ``x = 0``). Its extreme rays
    (:func:`_extreme_rays`; the polytope ``Pi`` of Lemma 4.8 only normalises them) are the
    potentials of Lemma 4.10, and ``L_r`` is tight for the signing iff ``max_{q in L_r}
    <phi, q> = 0`` for every one (eq. 4.14). The signings ``Sigma^(z)`` are deduplicated up
    to automorphisms of ``G`` (Lemma 4.7) and ``z`` and its complement give the same cone.
    A ray whose nonzero edges form a graph of treewidth ``<= r - 1`` needs no LP: ``L_r``
    is exact there (junction tree on ``r``-subsets), so its gap is 0 (counted in
    ``n_skipped``; on the graphs of ``T_4`` with ``r = 4`` only rays with every edge
    nonzero are solved). Cost on two cores: the Wagner graph ``M_8`` takes 3-23 s per
    orbit (about half in the double description, half in <= 25 LPs); one orbit of the
    pentagonal prism ``Y_5`` (25 dimensions) takes several minutes.

    Parameters
    ----------
    sg : SignedGraph
        Connected, at most 12 vertices.
    r : int
        ``2 <= r <= n_vertices``.
    max_rays : int, default=20000
        Give up (``tight=None``) when a cone has more rays.
    stop_at_gap : bool, default=True
        Stop at the first ray with a gap (a certificate); else solve every ray.

    Returns
    -------
    TightnessCertificate
        Whether ``L_r`` is tight (or undecided), with the worst gap and its potential.

    Examples
    --------
    >>> cert = certify_tightness(odd_complete_graph(4), 3)
    >>> cert.tight, round(cert.max_gap, 6) > 0
    (False, True)
    >>> certify_tightness(odd_complete_graph(4), 4).tight
    True
    """
    if not isinstance(sg, SignedGraph):
        raise TypeError(f"sg must be a SignedGraph, got {type(sg).__name__}")
    r = _check_r(sg, r)
    max_rays = check_int(max_rays, "max_rays", minimum=1)
    n, m = sg.n_vertices, sg.signs.shape[0]
    if n > 12:
        raise ValueError(f"certify_tightness enumerates 2^n vertex flips; n = {n} > 12")
    if not nx.is_connected(sg.graph):
        raise ValueError("sg.graph must be connected")
    perms = _edge_permutations(sg.graph)
    E = sg.edge_index()
    seen: set[tuple[int, ...]] = set()
    n_cones = n_rays = n_lps = n_skipped = 0
    low_width: dict[bytes, bool] = {}  # edge support -> treewidth <= r - 1
    best_gap, best_phi = 0.0, None
    undecided = False
    for code in range(2 ** (n - 1)):  # flips S not containing the last vertex
        S = ((code >> np.arange(n)) & 1).astype(bool)
        cut = S[E[:, 0]] ^ S[E[:, 1]]
        signs = np.where(cut, -sg.signs, sg.signs)
        moved = np.empty((perms.shape[0], m), dtype=np.int64)
        moved[np.arange(perms.shape[0])[:, None], perms] = signs
        key = min(map(tuple, moved.tolist()))
        if key in seen:
            continue
        seen.add(key)
        n_cones += 1
        flipped = SignedGraph.from_signs(sg.graph, signs)
        rays = _extreme_rays(_cone_rows(flipped), n + m, max_rays=max_rays)
        if rays is None:
            undecided = True
            continue
        n_rays += rays.shape[0]
        for ray in rays[np.any(rays > 1e-9, axis=1)]:
            support = np.abs(ray[n:]) > 1e-9
            if not support.all():
                key_s = support.tobytes()
                if key_s not in low_width:
                    H = nx.Graph(E[support].tolist())
                    low_width[key_s] = treewidth_min_fill_in(H)[0] <= r - 1
                if low_width[key_s]:
                    n_skipped += 1
                    continue
            value, _ = _lp(flipped, ray, r)
            n_lps += 1
            if value > best_gap:
                best_gap, best_phi = value, _flip_potential(sg, ray, S)
            if stop_at_gap and best_gap > GAP_TOL:
                break
        if stop_at_gap and best_gap > GAP_TOL:
            break
    tight: bool | None = True
    if best_gap > GAP_TOL:
        tight = False
    elif undecided:
        tight = None
    return TightnessCertificate(
        tight=tight,
        max_gap=float(best_gap),
        potential=best_phi if best_gap > GAP_TOL else None,
        r=r,
        n_cones=n_cones,
        n_rays=n_rays,
        n_lps=n_lps,
        n_skipped=n_skipped,
    )
