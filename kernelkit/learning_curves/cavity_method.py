"""The cavity / belief propagation prediction of GP learning curves on graphs.

Urry & Sollich (2013), Section 4. The GP prior with the random walk kernel
``C = K^{-1/2} (sum_q c_q N^q) K^{-1/2}`` (eq. 3; ``N = D^{-1/2} A D^{-1/2}``, ``K`` the
diagonal normalisation) becomes, after a Fourier transform and ``2p`` auxiliary
variables per vertex, a Gaussian graphical model with nearest-neighbour interactions
(eqs. 27-29). Its cavity messages are zero-mean Gaussians whose ``(2p+1) x (2p+1)``
covariance matrices obey (eq. 32)

    ``V_j^(i) = (O_j - sum_{k in N(j) \\ i} X V_k^(j) X)^{-1}``.

This module uses the **real-arithmetic form** of eqs. 32-33: with
``S = diag(I_{p+1}, i I_p)`` every matrix is real, ``O'`` has ``+1`` where ``O`` has
``-i``, ``X' = -B`` with ``B`` the 0/1 pattern of ``X``, and

    ``V' = (O' - sum_k B V'_k B)^{-1}``,

indices ``(h^0, ..., h^p, hat h^1, ..., hat h^p)``; ``O'_j = d_j [(0,0): c_0 +
kappa_j / (gamma_j / sigma^2); (0,q), (q,0): c_q / 2; (q, p+q), (p+q, q): 1]``. The data
term is singular for ``gamma_j = 0``, so ``O' - sum B V' B = M + [d kappa / (gamma /
sigma^2)] e_0 e_0^T`` is inverted by Woodbury's identity (eq. 34):

    ``V' = M^{-1} - M^{-1} e_0 e_0^T M^{-1} / ((gamma / sigma^2) / (d kappa) + (M^{-1})_00)``.

The posterior variance at a vertex (the integrand of eq. 38) is
``1 / (gamma / sigma^2 + d kappa (M_d^{-1})_00)``, ``M_d`` built from all ``d``
incoming messages; an isolated vertex has prior variance ``c_0 / kappa`` (end of Sec.
4.1).

Two entry points:

* :func:`cavity_on_graph` iterates the messages on one graph with given example counts
  ``gamma_i``: belief propagation, exact on trees (and forests), approximate on graphs
  with cycles.
* :func:`cavity` solves the large-graph limit for a degree distribution by **population
  dynamics** (eq. 35 for global normalisation, eqs. 43-45 for local normalisation),
  ``gamma ~ Poisson(nu)``: the learning curve ``epsilon(nu)``.

Every update is vectorised: all messages of one sweep (one graph) or one batch of
population members (ensemble) are inverted at once as a stack of small matrices.

Examples
--------
>>> import networkx as nx
>>> G = nx.path_graph(4)
>>> r = cavity_on_graph(G, 3.0, 2, 0.1, [1, 0, 0, 2])
>>> r.posterior_variances.round(4).tolist()
[0.0833, 0.3604, 0.3456, 0.0455]
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse, stats
from scipy.sparse.csgraph import connected_components

from kernelkit._memory import check_memory
from kernelkit._threads import resolve_n_jobs
from kernelkit._validation import (
    check_in,
    check_int,
    check_n_jobs,
    check_nonnegative_number,
    check_random_state,
)
from kernelkit.graphs.adjacency import adjacency_matrix
from kernelkit.graphs.ensembles import DegreeDistribution
from kernelkit.graphs.vertex_kernels import random_walk_coefficients, random_walk_diagonal
from kernelkit.learning_curves.simulation import _check_nus

__all__ = ["CavityResult", "GraphCavityResult", "cavity", "cavity_on_graph"]

#: Largest number of examples per vertex of :func:`cavity`: its closed-form average
#: over ``gamma ~ Poisson(nu)`` takes about ``20 sqrt(nu)`` terms per sampled vertex.
_MAX_NU = 1e10

_GRAPH_NORMALIZATIONS = ("none", "global", "local")
_ENSEMBLE_NORMALIZATIONS = ("none", "global", "local")
#: Population members overwritten per stacked inverse: a sweep is this many batches.
_BATCHES_PER_SWEEP = 4
#: Fewest matrices per thread in a batch of updates (below it threads cost more than
#: they save).
_MIN_CHUNK = 64


# -- results -----------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphCavityResult:
    """Belief propagation on one graph (:func:`cavity_on_graph`).

    Attributes
    ----------
    posterior_variances : ndarray of shape (V,)
        The posterior variance at each vertex given the example counts (exact on a
        forest).
    prior_variances : ndarray of shape (V,)
        The prior variances ``diag(C)`` of the normalised kernel, from the same message
        passing without data (exact on a forest; 1 under ``"local"``).
    kappa : ndarray of shape (V,)
        The normaliser of each vertex, ``C = K^{-1/2} C_hat K^{-1/2}``: all ones for
        ``"none"``, all ``mean(diag(C_hat))`` for ``"global"``, ``C_hat_ii`` for
        ``"local"``.
    converged : bool
        Whether both message passes (without and with data) reached ``tol``.
    n_iter : int
        Sweeps of the message pass with data.
    """

    posterior_variances: np.ndarray
    prior_variances: np.ndarray
    kappa: np.ndarray
    converged: bool
    n_iter: int


@dataclass(frozen=True)
class CavityResult:
    """A cavity learning curve from population dynamics (:func:`cavity`).

    Attributes
    ----------
    nus : ndarray of shape (n_nus,)
        Examples per vertex, in the order given.
    epsilon : ndarray of shape (n_nus,)
        The predicted Bayes error (eq. 38 global, eq. 45 local): the mean of the
        per-sweep estimates over the last ``sweeps // 2`` sweeps. A sweep's estimate
        averages ``population`` sampled vertices, each vertex's error averaged over
        ``gamma ~ Poisson(nu)`` in closed form, and weights the isolated vertices by
        ``p(0)`` exactly (a Rao-Blackwellised estimate: no noise from the draws of
        ``gamma`` or of the number of isolated vertices).
    stderr : ndarray of shape (n_nus,)
        Standard error of ``epsilon`` from the spread of the per-sweep estimates over
        those sweeps (``std(ddof=1) / sqrt(n)``). Successive sweeps share most of the
        population, and under ``"global"`` the estimate of ``kappa`` is shared by all
        ``nu``, so this can understate the spread between independent runs: for
        Erdos-Renyi graphs with mean degree 3, ``p = 10``, ``population=2000``, runs
        with different seeds spread by 0.4 to about 3 times this value at ``nu`` from
        0.01 to 5. The spread comes from the finite population itself (four times more
        sampled vertices per sweep do not reduce it): for a firm error bar, compare runs
        with different ``random_state`` or a larger ``population``. The bias of a
        finite population is not included.
    posterior_variances : ndarray of shape (n_nus, (sweeps // 2) * population)
        Samples of the local posterior variance (vertices drawn with degree
        ``d ~ p(d)`` and ``gamma ~ Poisson(nu)``; Sec. 4.2): the ``population`` vertices
        sampled after each sweep of the averaging window, one block per sweep (for
        histograms, Fig. 6, and their variance, Fig. 9). Blocks of successive sweeps
        share most of the population, so they are not independent.
    prior_variances : ndarray of shape ((sweeps // 2) * population,)
        Samples of the prior variance ``C_ii`` of the normalised kernel (the same for
        every ``nu``), from the last ``sweeps // 2`` sweeps without data:
        ``C_hat_ii / kappa`` for ``"global"``, ``C_hat_ii`` for ``"none"``, exactly 1
        for ``"local"`` (Fig. 2).
    kappa : float
        The mean prior variance of the unnormalised kernel, ``<C_hat_ii>`` (the global
        normaliser, eq. 35 run at ``kappa = 1, nu = 0``), whatever ``normalize``.
    epsilon_trace : ndarray of shape (n_nus, sweeps)
        The estimate of ``epsilon`` after each sweep.
    n_iter : ndarray of int, shape (n_nus,)
        Sweeps run per ``nu``.
    converged : ndarray of bool, shape (n_nus,)
        Whether the two halves of the averaging window agree (stationarity):
        ``|mean_1 - mean_2| <= 5 sqrt(se_1^2 + se_2^2) + 0.02 epsilon`` (a heuristic:
        successive sweeps are correlated, so the standard errors are optimistic).
    normalize : str
        The normalisation.
    """

    nus: np.ndarray
    epsilon: np.ndarray
    stderr: np.ndarray
    posterior_variances: np.ndarray
    prior_variances: np.ndarray
    kappa: float
    epsilon_trace: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray
    normalize: str


# -- the message algebra -----------------------------------------------------------------


class _Messages:
    """The fixed matrices of the real-arithmetic cavity update for given ``a, p``.

    ``base`` is ``O' / d`` without the data term. Messages are stored as ``B V B``, the
    only form in which they enter an update: a permutation of the entries of ``V``
    (index ``q - 1`` pairs with ``p + q``; index ``p``, ``h^p``, has no partner, so
    row and column ``p`` are zero).
    """

    def __init__(
        self, c: np.ndarray, pool: ThreadPoolExecutor | None = None, workers: int = 1
    ) -> None:
        p = c.shape[0] - 1
        n = 2 * p + 1
        q = np.arange(1, p + 1)
        base = np.zeros((n, n))
        base[0, 0] = c[0]
        base[0, q] = base[q, 0] = c[1:] / 2.0
        base[q, p + q] = base[p + q, q] = 1.0  # "-i" of eq. 33 in real form
        perm = np.arange(n)
        perm[q - 1] = p + q
        perm[p + q] = q - 1
        self.n, self.p = n, p
        self.c0 = float(c[0])
        self.base = base
        self._rows, self._cols = np.nonzero(base)
        self._vals = base[self._rows, self._cols]
        self._perm = perm
        self._take = (perm[:, None] * n + perm[None, :]).ravel()
        self._e0 = np.zeros((1, n, 1))
        self._e0[0, 0, 0] = 1.0
        self._pool = pool
        self._workers = workers

    def matrix(self, d: np.ndarray, SB: np.ndarray) -> np.ndarray:
        """``M = d base - B S B`` (eq. 34 without the data term) from ``SB = B S B``."""
        M = np.negative(SB)
        M[:, self._rows, self._cols] += d[:, None] * self._vals
        return M

    def message(self, M: np.ndarray, precision: np.ndarray, d_kappa: np.ndarray) -> np.ndarray:
        """``B V B`` with ``V = (M + [d kappa / g] e0 e0^T)^{-1}`` by Woodbury (eq. 34),
        ``g = gamma / sigma^2``."""
        m, n, p = M.shape[0], self.n, self.p
        Minv = np.linalg.inv(M)
        u = Minv[:, self._perm, 0]
        u[:, p] = 0.0
        denom = precision / d_kappa + Minv[:, 0, 0]
        W = Minv.reshape(m, n * n)[:, self._take].reshape(m, n, n)
        W[:, p, :] = 0.0
        W[:, :, p] = 0.0
        W -= u[:, :, None] * (u / denom[:, None])[:, None, :]
        return W

    def inverse_00(self, M: np.ndarray) -> np.ndarray:
        """``(M^{-1})_00`` for a stack of matrices."""

        e0 = np.broadcast_to(self._e0, (M.shape[0], self.n, 1))
        return np.linalg.solve(M, e0)[:, 0, 0]

    def parallel(self, work: Callable[[int, int], None], m: int) -> None:
        """``work(lo, hi)`` for consecutive chunks of ``range(m)`` on the pool's threads
        (one chunk per thread; NumPy's LAPACK loops, ufuncs and SciPy's sparse products
        release the GIL). ``work`` writes its results into arrays it shares with the
        caller; every random draw is made before, so the result does not depend on the
        number of threads."""
        if self._pool is None or m < 2 * _MIN_CHUNK:
            work(0, m)
            return
        chunks = min(self._workers, m // _MIN_CHUNK)
        bounds = np.linspace(0, m, chunks + 1).astype(int)
        futures = [self._pool.submit(work, lo, hi) for lo, hi in itertools.pairwise(bounds)]
        for fut in futures:
            fut.result()


@contextmanager
def _thread_pool(workers: int) -> Iterator[ThreadPoolExecutor | None]:
    """A pool of ``workers`` threads for :meth:`_Messages.parallel` (``None`` for one)."""
    if workers <= 1:
        yield None
        return
    with ThreadPoolExecutor(workers) as pool:
        yield pool


def _precision(gamma: Any, noise: float) -> np.ndarray:
    """``gamma / sigma^2`` (``inf`` where ``gamma > 0`` and ``sigma^2 = 0``)."""
    gamma = np.asarray(gamma, dtype=np.float64)
    if noise > 0:
        return gamma / noise
    return np.where(gamma > 0, np.inf, 0.0)


# -- one graph ---------------------------------------------------------------------------


def cavity_on_graph(
    G: Any,
    a: Any,
    p: Any,
    noise: Any,
    counts: Any,
    *,
    normalize: str = "none",
    max_iter: int = 1000,
    tol: float = 1e-12,
    n_jobs: int | None = None,
) -> GraphCavityResult:
    """Posterior variances of GP regression on one graph by belief propagation.

    The cavity update (Urry & Sollich 2013, eq. 32) in real arithmetic, with the
    Woodbury form (eq. 34) for vertices without data, iterated in parallel sweeps over
    all directed edges until the largest change of a message entry is at most ``tol``
    times the largest entry. Vertex ``i`` holds ``counts[i]`` examples, each with noise
    variance ``noise``; its posterior variance is
    ``1 / (gamma_i / sigma^2 + d_i kappa_i (M_i^{-1})_00)`` (eq. 38's integrand),
    ``1 / (gamma_i / sigma^2 + kappa_i / c_0)`` for an isolated vertex.

    On a forest the messages are exact after as many sweeps as the longest path has
    edges, and so are the variances: they equal ``diag((C^{-1} + diag(gamma) /
    sigma^2)^{-1})`` of the dense kernel. On a graph with cycles belief propagation is
    an approximation (good when cycles are long compared with ``p``).

    Normalisers: ``"global"`` divides by ``kappa = mean(diag(C_hat))``, ``"local"`` by
    ``sqrt(C_hat_ii C_hat_jj)`` (Sec. 2.2). ``C_hat_ii`` comes from a first message
    pass with ``kappa = 1`` and no data (Sec. 4.3), exact on a forest. Under
    ``"global"`` on a graph with cycles ``kappa`` is instead computed exactly by
    :func:`kernelkit.graphs.vertex_kernels.random_walk_diagonal` (``O(p V nnz(A))``),
    so that it is the normaliser of the dense kernel; under ``"local"`` the per-vertex
    ``C_hat_ii`` of the first pass are used, as in the paper, so that the predicted
    prior variance is exactly 1 at every vertex.

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray
        An unweighted undirected graph without self-loops (see
        :func:`kernelkit.graphs.adjacency.adjacency_matrix`).
    a : float
        ``a > 1`` (``a >= 2`` for a positive semi-definite kernel).
    p : int
        ``p >= 0``, the number of random walk steps.
    noise : float
        The noise variance ``sigma^2 >= 0`` of each example.
    counts : array-like of int, shape (V,)
        ``gamma_i >= 0``, the number of examples at each vertex.
    normalize : {"none", "global", "local"}, default="none"
        The kernel normalisation.
    max_iter : int, default=1000
        Largest number of sweeps per message pass.
    tol : float, default=1e-12
        Relative change of the messages at which a pass stops.
    n_jobs : int or None, default=None
        Threads sharing each sweep's message updates (``None``: the BLAS thread count;
        ``-1``: all CPUs).

    Returns
    -------
    GraphCavityResult
        ``posterior_variances``, ``prior_variances``, ``kappa``, ``converged``,
        ``n_iter``.

    Raises
    ------
    ValueError
        ``a <= 1``, ``p < 0``, ``noise < 0``, ``counts`` of the wrong length, negative
        or not whole numbers, an unknown ``normalize``, a weighted graph, or a bad graph;
        messages of ``(2p + 1)^2`` entries per directed edge that would need more memory
        than the machine has.
    TypeError
        ``a`` or ``noise`` not a real number, ``p`` or ``max_iter`` not an integer.

    Examples
    --------
    On a tree the prediction is exact (Urry & Sollich 2013, Sec. 4):

    >>> import networkx as nx
    >>> import numpy as np
    >>> from kernelkit.graphs.vertex_kernels import random_walk_kernel
    >>> G = nx.random_labeled_tree(30, seed=1)
    >>> counts = np.random.RandomState(0).poisson(0.5, 30)
    >>> r = cavity_on_graph(G, 3.0, 4, 0.1, counts, normalize="local")
    >>> C = random_walk_kernel(G, 3.0, 4, normalize="local")
    >>> s = counts > 0
    >>> K = C[np.ix_(s, s)] + np.diag(0.1 / counts[s])
    >>> exact = np.diag(C) - np.einsum("ij,ji->i", C[:, s], np.linalg.solve(K, C[s]))
    >>> bool(np.allclose(r.posterior_variances, exact, rtol=1e-10, atol=0))
    True
    >>> r.converged, bool(np.allclose(r.prior_variances, 1.0))
    (True, True)
    """
    c = random_walk_coefficients(a, p)
    noise = check_nonnegative_number(noise, "noise")
    normalize = check_in(normalize, "normalize", _GRAPH_NORMALIZATIONS)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_nonnegative_number(tol, "tol")
    workers = resolve_n_jobs(check_n_jobs(n_jobs))
    A = adjacency_matrix(G)
    if A.nnz and not np.all(A.data == 1.0):
        raise ValueError("G must be unweighted (every edge weight 1) for the cavity method")
    n_vertices = A.shape[0]
    gamma = _check_counts(counts, n_vertices)
    n2 = (2 * (len(c) - 1) + 1) ** 2
    check_memory(
        8 * n2 * (8 * A.nnz + 3 * n_vertices + 2),
        f"cavity_on_graph(p={len(c) - 1}) on a graph with {n_vertices} vertices and "
        f"{A.nnz // 2} edges: eight stacks of a (2p + 1)^2 message per directed edge",
        "use a smaller p (or graph)",
    )
    with _thread_pool(workers) as pool:
        ops = _Messages(c, pool, workers)
        return _graph_cavity(A, a, p, ops, noise, gamma, normalize, max_iter, tol)


def _graph_cavity(
    A: sparse.csr_matrix,
    a: float,
    p: int,
    ops: _Messages,
    noise: float,
    gamma: np.ndarray,
    normalize: str,
    max_iter: int,
    tol: float,
) -> GraphCavityResult:
    n_vertices = A.shape[0]
    indptr = A.indptr.astype(np.int64)
    deg = np.diff(indptr)
    src = np.repeat(np.arange(n_vertices, dtype=np.int64), deg)
    dst = A.indices.astype(np.int64)
    key = src * n_vertices + dst  # sorted: CSR with sorted indices
    rev = np.searchsorted(key, dst * n_vertices + src)  # the reverse of each edge
    graph = _Graph(deg, src, rev, indptr)

    zero = np.zeros(n_vertices)
    ones = np.ones(n_vertices)
    W0, conv0, _ = _propagate(ops, graph, zero, ones, None, max_iter, tol)
    prior_hat = _graph_variances(ops, graph, W0, zero, ones)  # C_hat_ii (kappa = 1)
    if normalize == "none":
        kappa = ones
    elif normalize == "local":
        kappa = prior_hat
    else:
        is_forest = src.shape[0] // 2 == n_vertices - connected_components(A)[0]
        mean = prior_hat.mean() if is_forest else random_walk_diagonal(A, a, p).mean()
        kappa = np.full(n_vertices, mean)
    prior = prior_hat / kappa
    if normalize == "local":
        prior = np.ones(n_vertices)

    g = _precision(gamma, noise)
    if np.any(gamma > 0):
        # gamma = 0 messages do not depend on kappa: the first pass is a warm start
        W, conv1, n_iter = _propagate(ops, graph, g, kappa, W0, max_iter, tol)
    else:
        W, conv1, n_iter = W0, conv0, 0
    post = _graph_variances(ops, graph, W, g, kappa)
    return GraphCavityResult(
        posterior_variances=post,
        prior_variances=prior,
        kappa=kappa,
        converged=bool(conv0 and conv1),
        n_iter=int(n_iter),
    )


@dataclass(frozen=True)
class _Graph:
    deg: np.ndarray  # (V,) degrees
    src: np.ndarray  # (E,) source vertex of each directed edge, sorted
    rev: np.ndarray  # (E,) index of the reverse edge
    indptr: np.ndarray  # (V + 1,) CSR row pointer: edges out of (and into) each vertex


def _incoming(graph: _Graph, W: np.ndarray) -> np.ndarray:
    """``S_j = sum_{k in N(j)} V_{k -> j}`` per vertex (zero at isolated vertices): the
    sparse matrix with the reverse edges of each vertex's row times the messages."""
    n_vertices, n_edges = graph.deg.shape[0], graph.src.shape[0]
    select = sparse.csr_matrix(
        (np.ones(n_edges), graph.rev, graph.indptr), shape=(n_vertices, n_edges)
    )
    S = select @ W.reshape(n_edges, -1)
    return np.asarray(S).reshape(n_vertices, *W.shape[1:])


def _propagate(
    ops: _Messages,
    graph: _Graph,
    g: np.ndarray,
    kappa: np.ndarray,
    W: np.ndarray | None,
    max_iter: int,
    tol: float,
) -> tuple[np.ndarray, bool, int]:
    """Parallel sweeps of eqs. 32/34 over all directed edges (Jacobi schedule)."""
    src, rev = graph.src, graph.rev
    n_edges = src.shape[0]
    if W is None:
        W = np.zeros((n_edges, ops.n, ops.n))
    if n_edges == 0:
        return W, True, 0
    d = graph.deg[src].astype(np.float64)
    g_e, dk_e = g[src], d * kappa[src]
    for it in range(1, max_iter + 1):
        S = _incoming(graph, W)[src] - W[rev]  # messages into j from all but i
        new = np.empty_like(W)

        def work(lo: int, hi: int, S: np.ndarray = S, new: np.ndarray = new) -> None:
            M = ops.matrix(d[lo:hi], S[lo:hi])
            new[lo:hi] = ops.message(M, g_e[lo:hi], dk_e[lo:hi])

        ops.parallel(work, n_edges)
        change = np.max(np.abs(new - W))
        scale = max(1.0, float(np.max(np.abs(new))))
        W = new
        if change <= tol * scale:
            return W, True, it
    return W, False, max_iter


def _graph_variances(
    ops: _Messages, graph: _Graph, W: np.ndarray, g: np.ndarray, kappa: np.ndarray
) -> np.ndarray:
    """Eq. 38's integrand at every vertex; ``1 / (g + kappa / c_0)`` when isolated."""
    deg = graph.deg
    has = deg > 0
    out = 1.0 / (g + kappa / ops.c0)
    if has.any():
        d = deg[has].astype(np.float64)
        S = _incoming(graph, W)[has]
        x = np.empty(d.shape[0])

        def work(lo: int, hi: int) -> None:
            x[lo:hi] = ops.inverse_00(ops.matrix(d[lo:hi], S[lo:hi]))

        ops.parallel(work, d.shape[0])
        out[has] = 1.0 / (g[has] + d * kappa[has] * x)
    return out


# -- the graph ensemble: population dynamics ---------------------------------------------


def cavity(
    degree_distribution: Any,
    a: Any,
    p: Any,
    noise: Any,
    nus: Any,
    *,
    normalize: str = "global",
    population: int = 2000,
    sweeps: int = 16,
    random_state: Any = None,
    n_jobs: int | None = None,
) -> CavityResult:
    """The cavity learning curve ``epsilon(nu)`` of a random graph ensemble.

    Population dynamics for the large-graph limit (Urry & Sollich 2013, Sec. 4): a
    population of ``population`` cavity covariance matrices stands for their
    distribution ``W(V)`` over the edges. A sweep overwrites every member once, in
    ``4`` batches (a random permutation cut in four), each batch one stacked inverse:
    a new member is the update (eq. 32 in real form, Woodbury eq. 34) at a vertex with
    degree ``d`` from the edge-biased law ``d p(d) / mean(d)``, ``gamma ~ Poisson(nu)``
    examples and ``d - 1`` incoming messages drawn from the current population (eq.
    35). After each sweep ``population`` vertices are sampled (``d ~ p(d)``, ``d``
    incoming messages) for the local posterior variances (eq. 38 global, eq. 45 local);
    the sweep's estimate of ``epsilon`` averages them over ``gamma`` in closed form
    (see :class:`CavityResult`), and ``epsilon`` is the mean of the estimates of the
    last ``sweeps // 2`` sweeps.

    * ``"global"``: ``kappa`` is the ``epsilon`` of a first run with ``kappa = 1`` and
      ``nu = 0`` (the mean prior variance of the unnormalised kernel, Sec. 4.1). That
      run has ``sweeps + p`` sweeps (messages without data need ``p + 1`` levels of the
      tree). Its population is also the fixed point at ``nu = 0`` for any ``kappa``
      and warm-starts the first ``nu``; each later ``nu`` starts from the previous
      population.
    * ``"local"``: the population holds pairs ``(V_loc, V)`` (eq. 43). ``V`` evolves as
      without data at ``kappa = 1``; ``V_loc`` with the data and the vertex's own
      normaliser ``kappa = 1 / (d (M_d^{-1})_00)`` (eq. 44), ``M_d`` from the ``d - 1``
      incoming ``V`` and one "counterflow" ``V`` drawn from the population. Error
      (eq. 45): ``1 / (gamma / sigma^2 + (M_loc^{-1})_00 / (M_d^{-1})_00)``.
    * ``"none"``: ``kappa = 1``.

    Isolated vertices (``d = 0``) have prior variance ``c_0 / kappa`` (``1`` under
    ``"local"``) and posterior variance ``1 / (gamma / sigma^2 + 1 / prior)``.

    Parameters
    ----------
    degree_distribution : DegreeDistribution
        The ensemble's degree law ``p(d)``
        (:class:`kernelkit.graphs.ensembles.DegreeDistribution`).
    a : float
        ``a > 1``.
    p : int
        ``p >= 0``.
    noise : float
        The noise variance ``sigma^2 >= 0``.
    nus : float or array-like of shape (n_nus,)
        Examples per vertex, ``nu >= 0``, in the order to run them (increasing order
        makes the warm starts closest).
    normalize : {"global", "local", "none"}, default="global"
        The kernel normalisation.
    population : int, default=2000
        Number of population members (``>= 2``) and of vertex samples per sweep.
    sweeps : int, default=16
        Sweeps per ``nu`` (``>= 2``); the last ``sweeps // 2`` are averaged.
    random_state : None, int, RandomState or Generator
        Source of randomness.
    n_jobs : int or None, default=None
        Threads sharing each batch's updates and samples (``None``: the BLAS thread
        count; ``-1``: all CPUs). The result does not depend on it.

    Returns
    -------
    CavityResult
        ``epsilon``, ``stderr``, ``posterior_variances``, ``prior_variances``,
        ``kappa``, ``epsilon_trace``, ``n_iter``, ``converged``.

    Raises
    ------
    TypeError
        ``degree_distribution`` not a ``DegreeDistribution``; ``a``, ``noise`` or a
        ``nu`` not a real number; ``p``, ``population`` or ``sweeps`` not an integer.
    ValueError
        ``a <= 1``, ``p < 0``, ``noise < 0``, a ``nu < 0``, above ``1e10`` or not
        finite, an unknown ``normalize``, ``population < 2`` or ``sweeps < 2``; a
        population of ``(2p + 1)^2`` matrices that would need more memory than the
        machine has (the message says how much).

    Examples
    --------
    Random 3-regular graphs, ``p = 5``, ``a = 2``, ``sigma^2 = 0.01`` (Urry & Sollich
    2013, Fig. 3; eqs. 35 and 38): the normaliser is the mean prior variance of the
    3-regular tree, and ``epsilon(0) = 1``:

    >>> from kernelkit.graphs.ensembles import DegreeDistribution
    >>> r = cavity(DegreeDistribution.regular(3), 2.0, 5, 0.01, [0.0, 1.0],
    ...            population=300, sweeps=10, random_state=0)
    >>> round(r.kappa, 5), float(r.epsilon[0])
    (0.16435, 1.0)
    >>> bool(0.04 < r.epsilon[1] < 0.055)
    True
    """
    if not isinstance(degree_distribution, DegreeDistribution):
        raise TypeError(
            "degree_distribution must be a kernelkit.graphs.ensembles.DegreeDistribution "
            f"(e.g. DegreeDistribution.poisson(3.0)), got {type(degree_distribution).__name__}"
        )
    c = random_walk_coefficients(a, p)
    p = len(c) - 1
    noise = check_nonnegative_number(noise, "noise")
    nus_arr = _check_nus(nus)
    if nus_arr.max() > _MAX_NU:
        raise ValueError(
            f"nus must be at most {_MAX_NU:g} for the cavity method (each sweep averages "
            "every sampled vertex's error over gamma ~ Poisson(nu) in closed form, about "
            f"20 sqrt(nu) terms), got {float(nus_arr.max())!r}"
        )
    normalize = check_in(normalize, "normalize", _ENSEMBLE_NORMALIZATIONS)
    population = check_int(population, "population", minimum=2)
    sweeps = check_int(sweeps, "sweeps", minimum=2)
    check_memory(
        _population_bytes(degree_distribution, p, population, sweeps, nus_arr, normalize),
        f"cavity(p={p}, population={population}, sweeps={sweeps}, {nus_arr.size} nus, "
        f"normalize={normalize!r})",
        "use a smaller population (or p)",
    )
    rng = check_random_state(random_state)
    workers = resolve_n_jobs(check_n_jobs(n_jobs))
    with _thread_pool(workers) as pool:
        pop = _Population(degree_distribution, _Messages(c, pool, workers), population, rng)
        return _population_dynamics(pop, noise, nus_arr, normalize, sweeps)


def _population_bytes(
    dist: DegreeDistribution,
    p: int,
    population: int,
    sweeps: int,
    nus: np.ndarray,
    normalize: str,
) -> int:
    """Peak memory of :func:`cavity`, in bytes (Python ints: exact for any size).

    The population of ``(2p + 1)^2`` matrices (two under ``"local"``); a batch of a
    quarter of it held five (ten, local) times over by the update (sums, ``M``, its
    inverse, the new messages), or all of it three times over by the vertex samples;
    the recorded samples; the selection matrices (an index and a weight per drawn
    neighbour); the closed-form average over ``gamma`` (a row per sampled vertex).
    """
    n2 = (2 * p + 1) ** 2
    members = (2 if normalize == "local" else 1) * population * n2
    batch = (10 if normalize == "local" else 5) * -(-population // _BATCHES_PER_SWEEP) * n2
    work = max(batch, 3 * population * n2)
    window = sweeps // 2
    samples = (nus.size + 1) * window * population + nus.size * sweeps
    mean = dist.mean
    neighbours = math.ceil(population * (dist.moment(2) / mean if mean > 0 else 0.0))
    table = max(_poisson_table_length(float(nu)) for nu in nus.tolist())
    return 8 * (members + work + samples + 2 * table * population) + 24 * neighbours + 16 * n2


def _population_dynamics(
    pop: _Population, noise: float, nus_arr: np.ndarray, normalize: str, sweeps: int
) -> CavityResult:
    population, p = pop.size, pop.ops.p
    # the unnormalised prior (kappa = 1, nu = 0): C_hat_ii samples and kappa
    V0 = np.zeros((population, pop.ops.n, pop.ops.n))
    n_prior = sweeps + p
    window = sweeps // 2
    # samples are kept from the sweeps of the averaging window, one block per sweep
    prior_hat = np.empty((window, population))
    prior_means = np.empty(n_prior)
    for s in range(n_prior):
        pop.sweep_global(V0, 0.0, noise, 1.0)
        samples, prior_means[s] = pop.sample_global(V0, 0.0, noise, 1.0)
        if s >= n_prior - window:
            prior_hat[s - (n_prior - window)] = samples
    kappa_hat = float(prior_means[-window:].mean())

    n_nus = nus_arr.shape[0]
    eps = np.empty(n_nus)
    se = np.empty(n_nus)
    trace = np.empty((n_nus, sweeps))
    post = np.empty((n_nus, window, population))
    conv = np.empty(n_nus, dtype=bool)
    first = sweeps - window  # the first sweep of the window
    if normalize == "local":
        prior = np.ones(window * population)
        Vloc, Vpri = V0.copy(), V0  # at nu = 0 the two members of a pair agree
        for k, nu in enumerate(nus_arr):
            for s in range(sweeps):
                pop.sweep_local(Vloc, Vpri, nu, noise)
                samples, trace[k, s] = pop.sample_local(Vloc, Vpri, nu, noise)
                if s >= first:
                    post[k, s - first] = samples
    else:
        kappa = kappa_hat if normalize == "global" else 1.0
        prior = prior_hat.ravel() / kappa
        V = V0
        for k, nu in enumerate(nus_arr):
            for s in range(sweeps):
                pop.sweep_global(V, nu, noise, kappa)
                samples, trace[k, s] = pop.sample_global(V, nu, noise, kappa)
                if s >= first:
                    post[k, s - first] = samples
    for k in range(n_nus):
        eps[k], se[k], conv[k] = _summarise(trace[k, -window:])
    return CavityResult(
        nus=nus_arr,
        epsilon=eps,
        stderr=se,
        posterior_variances=post.reshape(n_nus, window * population),
        prior_variances=prior,
        kappa=kappa_hat,
        epsilon_trace=trace,
        n_iter=np.full(n_nus, sweeps, dtype=np.int64),
        converged=conv,
        normalize=normalize,
    )


def _summarise(window: np.ndarray) -> tuple[float, float, bool]:
    """Mean, standard error of the mean and the stationarity check of a window."""
    n = window.shape[0]
    mean = float(window.mean())
    se = float(window.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    half = n // 2
    if half < 1 or n - half < 2:
        return mean, se, True
    first, second = window[:half], window[half:]
    se1 = first.std(ddof=1) / math.sqrt(half) if half > 1 else se
    se2 = second.std(ddof=1) / math.sqrt(n - half)
    ok = abs(first.mean() - second.mean()) <= 5.0 * math.hypot(se1, se2) + 0.02 * abs(mean)
    return mean, se, bool(ok)


class _Population:
    """Batched population-dynamics updates (eqs. 35, 38, 43-45)."""

    def __init__(
        self, dist: DegreeDistribution, ops: _Messages, size: int, rng: np.random.RandomState
    ) -> None:
        self.dist = dist
        self.ops = ops
        self.size = size
        self.rng = rng
        self.has_edges = dist.mean > 0

    def _batches(self) -> list[np.ndarray]:
        order = self.rng.permutation(self.size)
        return [b for b in np.array_split(order, _BATCHES_PER_SWEEP) if b.size]

    def _selection(self, counts: np.ndarray) -> sparse.csr_matrix:
        """A 0/1 matrix whose row ``k`` picks ``counts[k]`` random members: times the
        flattened population it gives their sums."""
        indptr = np.concatenate(([0], np.cumsum(counts)))
        idx = self.rng.randint(0, self.size, size=int(indptr[-1]))
        return sparse.csr_matrix(
            (np.ones(idx.shape[0]), idx, indptr), shape=(counts.shape[0], self.size)
        )

    def _sum(self, select: sparse.csr_matrix, P: np.ndarray, lo: int, hi: int) -> np.ndarray:
        """Rows ``lo:hi`` of ``select`` times the population ``P``: the sums of the picked
        members, shape ``(hi - lo, n, n)``."""
        S = select[lo:hi] @ P.reshape(self.size, -1)
        return np.asarray(S).reshape(hi - lo, self.ops.n, self.ops.n)

    def sweep_global(self, V: np.ndarray, nu: float, noise: float, kappa: float) -> None:
        if not self.has_edges:
            return
        ops = self.ops
        for batch in self._batches():
            m = batch.shape[0]
            d = self.dist.sample_edge_biased(m, self.rng)
            g = _precision(self.rng.poisson(nu, m), noise)
            select = self._selection(d - 1)
            df = d.astype(np.float64)
            new = np.empty((m, ops.n, ops.n))
            work = functools.partial(self._update_global, V, df, g, kappa, select, new)
            ops.parallel(work, m)
            V[batch] = new

    def _update_global(
        self,
        V: np.ndarray,
        df: np.ndarray,
        g: np.ndarray,
        kappa: float,
        select: sparse.csr_matrix,
        new: np.ndarray,
        lo: int,
        hi: int,
    ) -> None:
        """New members ``lo:hi`` of a batch (eqs. 32, 34): ``new[lo:hi]``."""
        M = self.ops.matrix(df[lo:hi], self._sum(select, V, lo, hi))
        new[lo:hi] = self.ops.message(M, g[lo:hi], df[lo:hi] * kappa)

    def sample_global(
        self, V: np.ndarray, nu: float, noise: float, kappa: float
    ) -> tuple[np.ndarray, float]:
        """Posterior variance samples (eq. 38's integrand) and this sweep's estimate of
        eq. 38."""
        ops = self.ops
        d = self.dist.sample(self.size, self.rng)
        has = d > 0
        prec = np.full(self.size, kappa / ops.c0)  # isolated: prior variance c_0 / kappa
        if has.any():
            select = self._selection(d[has])
            df = d[has].astype(np.float64)
            x = np.empty(df.shape[0])

            def work(lo: int, hi: int) -> None:
                x[lo:hi] = ops.inverse_00(ops.matrix(df[lo:hi], self._sum(select, V, lo, hi)))

            ops.parallel(work, df.shape[0])
            prec[has] = df * kappa * x
        return self._finish(prec, has, kappa / ops.c0, nu, noise)

    def _finish(
        self, prec: np.ndarray, has: np.ndarray, iso_prec: float, nu: float, noise: float
    ) -> tuple[np.ndarray, float]:
        """Samples ``1 / (gamma / sigma^2 + prec)`` with ``gamma ~ Poisson(nu)``, and the
        estimate ``p(0) E_gamma[1 / (g + iso_prec)] + (1 - p(0)) mean_{d >= 1}
        E_gamma[1 / (g + prec)]``: the error of the sampled vertices averaged over
        ``gamma`` in closed form (Rao-Blackwellised), so that neither the draws of
        ``gamma`` nor the number of isolated vertices drawn add noise to it."""
        samples = 1.0 / (_precision(self.rng.poisson(nu, self.size), noise) + prec)
        gammas, weights = _poisson_table(nu)
        g = _precision(gammas, noise)
        p0 = float(self.dist.pmf[0])
        estimate = p0 * float(weights @ (1.0 / (g + iso_prec))) if p0 > 0 else 0.0
        if has.any() and p0 < 1:
            per = (1.0 / (g[None, :] + prec[has][:, None])) @ weights
            estimate += (1.0 - p0) * float(per.mean())
        return samples, estimate

    def sweep_local(self, Vloc: np.ndarray, Vpri: np.ndarray, nu: float, noise: float) -> None:
        if not self.has_edges:
            return
        ops = self.ops
        for batch in self._batches():
            m = batch.shape[0]
            d = self.dist.sample_edge_biased(m, self.rng)
            g = _precision(self.rng.poisson(nu, m), noise)
            select = self._selection(d - 1)
            counterflow = np.asarray(self.rng.randint(0, self.size, size=m))
            df = d.astype(np.float64)
            new_loc = np.empty((m, ops.n, ops.n))
            new_pri = np.empty((m, ops.n, ops.n))

            work = functools.partial(
                self._update_local, Vloc, Vpri, df, g, select, counterflow, new_loc, new_pri
            )
            ops.parallel(work, m)
            Vpri[batch] = new_pri
            Vloc[batch] = new_loc

    def _update_local(
        self,
        Vloc: np.ndarray,
        Vpri: np.ndarray,
        df: np.ndarray,
        g: np.ndarray,
        select: sparse.csr_matrix,
        counterflow: np.ndarray,
        new_loc: np.ndarray,
        new_pri: np.ndarray,
        lo: int,
        hi: int,
    ) -> None:
        """New pairs ``lo:hi`` of a batch (eqs. 43-44)."""
        ops, d = self.ops, df[lo:hi]
        M_pri = ops.matrix(d, self._sum(select, Vpri, lo, hi))
        x = ops.inverse_00(M_pri - Vpri[counterflow[lo:hi]])  # eq. 44: d kappa = 1 / x
        M_loc = ops.matrix(d, self._sum(select, Vloc, lo, hi))
        new_loc[lo:hi] = ops.message(M_loc, g[lo:hi], 1.0 / x)
        new_pri[lo:hi] = ops.message(M_pri, np.zeros(hi - lo), d)

    def sample_local(
        self, Vloc: np.ndarray, Vpri: np.ndarray, nu: float, noise: float
    ) -> tuple[np.ndarray, float]:
        """Posterior variance samples (eq. 45's integrand) and this sweep's estimate of
        eq. 45."""
        ops = self.ops
        d = self.dist.sample(self.size, self.rng)
        has = d > 0
        prec = np.ones(self.size)  # isolated: prior variance 1
        if has.any():
            select = self._selection(d[has])
            df = d[has].astype(np.float64)
            ratio = np.empty(df.shape[0])

            def work(lo: int, hi: int) -> None:
                x_loc = ops.inverse_00(ops.matrix(df[lo:hi], self._sum(select, Vloc, lo, hi)))
                x_pri = ops.inverse_00(ops.matrix(df[lo:hi], self._sum(select, Vpri, lo, hi)))
                ratio[lo:hi] = x_loc / x_pri  # eq. 45

            ops.parallel(work, df.shape[0])
            prec[has] = ratio
        return self._finish(prec, has, 1.0, nu, noise)


def _poisson_table_length(nu: float) -> int:
    """How many ``gamma`` :func:`_poisson_table` evaluates at most."""
    if nu == 0:
        return 1
    return (
        math.ceil(nu + 14.0 * math.sqrt(nu) + 40.0)
        - max(0, math.floor(nu - 14.0 * math.sqrt(nu) - 40.0))
        + 1
    )


def _poisson_table(nu: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``gamma`` with ``Poisson(gamma; nu) >= 1e-17`` of the largest and their
    weights, renormalised: the ``gamma`` within ``14 sqrt(nu) + 40`` of ``nu`` (beyond,
    every weight is far below that), so ``O(sqrt(nu))`` of them."""
    if nu == 0:
        return np.zeros(1), np.ones(1)
    lo = max(0, math.floor(nu - 14.0 * math.sqrt(nu) - 40.0))
    K = math.ceil(nu + 14.0 * math.sqrt(nu) + 40.0)
    gammas = np.arange(lo, K + 1, dtype=np.float64)
    weights = stats.poisson.pmf(gammas, nu)
    keep = weights >= 1e-17 * weights.max()
    gammas, weights = gammas[keep], weights[keep]
    return gammas, weights / weights.sum()


# -- checks ------------------------------------------------------------------------------


def _check_counts(counts: Any, n_vertices: int) -> np.ndarray:
    if isinstance(counts, (str, bytes)) or counts is None:
        raise TypeError(f"counts must be an array of integers, got {type(counts).__name__}")
    arr = np.asarray(counts)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"counts must be an array of integers, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.shape[0] != n_vertices:
        raise ValueError(
            f"counts must have shape ({n_vertices},) (one count per vertex of G), "
            f"got shape {arr.shape}"
        )
    f = arr.astype(np.float64)
    if not np.all(np.isfinite(f)) or np.any(f != np.round(f)):
        raise ValueError("counts must be whole numbers (examples per vertex)")
    if np.any(f < 0):
        i = int(np.flatnonzero(f < 0)[0])
        raise ValueError(f"counts must be >= 0, got counts[{i}] = {arr[i]!r}")
    return f
