"""Kernels on the vertices of one graph: random walk, diffusion, Laplacian polynomials.

With ``N = D^{-1/2} A D^{-1/2}`` and the normalised Laplacian ``L = I - N``
(:mod:`kernelkit.graphs.adjacency`), Urry & Sollich (2013) define

* the **random walk kernel** (eq. 2) ``C = (I - L/a)^p = ((1 - 1/a) I + N/a)^p`` with
  ``a >= 2`` and ``p`` a non-negative integer, whose binomial expansion (eq. 3) is
  ``C = sum_q c_q N^q`` with ``c_q = binom(p, q) (1 - 1/a)^(p-q) a^(-q)``: a lazy walk
  of ``p`` steps that moves with probability ``1/a``;
* the **diffusion kernel** (eq. 1) ``C = exp(-sigma2 L / 2)``, the limit ``a, p -> inf``
  with ``p/a = sigma2/2``; here the binomial weights become Poisson weights,
  ``C = sum_k Poisson(k; sigma2/2) N^k``.

The lecture notes add **polynomial filters** ``P_w(L) = sum_i w_i L^i`` of a Laplacian,
localised (entry ``(u, v)`` of ``L^i`` is zero beyond graph distance ``i``) and
permutation-equivariant.

Each kernel comes three ways, all computed from products with ``N`` (or ``L``), never
from an eigendecomposition: sparse products, except for a dense kernel of a dense graph,
where BLAS products are faster. The cost does not grow with ``sigma2`` or ``p`` without
bound: the dense kernels switch to repeated squaring (``log2`` of ``sigma2`` or ``p``
dense products) where that is cheaper, and every kernel equals its exact limit, the
projector onto the null space of ``L`` (the class ``_Limit``), once ``sigma2`` or ``p`` is
so large that the remainder is below float precision (a bound from the graph's size,
volume and smallest weight); the operators and diagonals, which apply the series term by
term, fall back to the dense kernel beyond ``2^17`` terms, or refuse (``ValueError``
naming the parameter and the range that works) on graphs too large for it:

=====================  =======================================  ============================
dense ``(V, V)``       ``random_walk_kernel``,                  up to
                       ``diffusion_kernel``,                    :data:`MAX_DENSE_VERTICES`
                       ``laplacian_polynomial``
``LinearOperator``     ``random_walk_operator``,                ``C @ v`` for large graphs
                       ``diffusion_operator``,
                       ``laplacian_polynomial_operator``
prior variances        ``random_walk_diagonal``,                ``diag(C)`` exactly, in
                       ``diffusion_diagonal``                   blocks of unit vectors
=====================  =======================================  ============================

Every entry of the random walk and diffusion kernels is a sum of non-negative terms, so
the products give each entry of the random walk kernel to a few ulps of its own size
(entries between vertices more than ``p`` edges apart are exactly zero), and each entry
of the diffusion kernel to that plus the truncated tail of its series (below
``2^-70``).

**Normalisation** (Sec. 2.2): ``normalize="none"`` gives ``C_hat``; ``"global"`` divides
by ``kappa``, the mean of ``diag(C_hat)`` (mean prior variance 1); ``"local"`` gives
``C_hat_ij / sqrt(C_hat_ii C_hat_jj)`` (every prior variance 1). An isolated vertex has
``C_hat_ii = (1 - 1/a)^p`` (``exp(-sigma2/2)`` for diffusion) and, under local
normalisation, prior variance 1 and no correlation with anything, even where
``C_hat_ii`` underflows to 0.

**Definiteness**: the eigenvalues of the random walk kernel are ``(1 - lambda/a)^p``
over the eigenvalues ``lambda`` in ``[0, 2]`` of ``L``. For ``a >= 2`` it is positive
semi-definite; for ``1 < a < 2`` and odd ``p`` an eigenvalue is negative as soon as
``L`` has one above ``a`` (always, when a component with an edge is bipartite, for then
``lambda = 2``): :class:`NotPSDWarning`. At ``a = 2`` (and ``p >= 1``) a bipartite
component makes the kernel singular (eigenvalue ``(1 - 2/2)^p = 0``):
:class:`SingularKernelWarning`.

Examples
--------
>>> import networkx as nx
>>> G = nx.cycle_graph(5)
>>> C = random_walk_kernel(G, a=2.0, p=4, normalize="local")
>>> C[0].round(4).tolist()
[1.0, 0.8143, 0.5143, 0.5143, 0.8143]
>>> K = random_walk_operator(G, a=2.0, p=4, normalize="local")
>>> bool(np.allclose(K @ np.eye(5), C))
True
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from kernelkit._memory import check_memory
from kernelkit._validation import check_in, check_int, check_nonnegative_number
from kernelkit.graphs.adjacency import (
    _bipartite_vertices,
    _degrees,
    _identity_minus,
    _isolated,
    _lazy_walk,
    _normalized_adjacency,
    adjacency_matrix,
)

__all__ = [
    "MAX_DENSE_VERTICES",
    "NotPSDWarning",
    "SingularKernelWarning",
    "diffusion_diagonal",
    "diffusion_kernel",
    "diffusion_operator",
    "laplacian_polynomial",
    "laplacian_polynomial_operator",
    "random_walk_coefficients",
    "random_walk_diagonal",
    "random_walk_kernel",
    "random_walk_operator",
]

#: Largest number of vertices for a dense ``(V, V)`` kernel (3.2 GB of float64 at the
#: limit); beyond it use the ``*_operator`` and ``*_diagonal`` functions.
MAX_DENSE_VERTICES = 20_000

#: A sparse-times-dense product costs about this many times a dense (BLAS) one per
#: multiply-add; a walk matrix denser than ``1 / _SPARSE_COST_RATIO`` is made dense for
#: the dense kernels.
_SPARSE_COST_RATIO = 40

#: Most sparse products per column that the operators and diagonals spend on a series
#: (``p`` for the random walk, about ``sigma2 / 2 + 12 sqrt(sigma2 / 2) + 40`` for the
#: diffusion kernel); beyond it they use the dense kernel or its exact limit.
_MAX_SERIES_TERMS = 2**17
#: Largest ``t = sigma2 / 2`` whose Poisson series stays within :data:`_MAX_SERIES_TERMS`.
_MAX_SERIES_TIME = (math.sqrt(_MAX_SERIES_TERMS - 6) - 6.0) ** 2
#: Largest ``t = sigma2 / 2`` for which the dense diffusion kernel always uses the series;
#: beyond it, scaling and squaring where that costs less.
_SERIES_TIME = 16.0

_NORMALIZATIONS = ("none", "global", "local")
_LAPLACIANS = ("combinatorial", "normalized")


class NotPSDWarning(UserWarning):
    """A random walk kernel with ``1 < a < 2`` and odd ``p`` that has negative
    eigenvalues on this graph (Urry & Sollich 2013 require ``a >= 2``, eq. 2)."""


class SingularKernelWarning(UserWarning):
    """A note: a random walk kernel with ``a = 2`` on a graph with a bipartite component
    (a single edge, a tree) is singular, for the eigenvalue ``lambda = 2`` of the
    normalised Laplacian gives the kernel eigenvalue 0. Harmless with observation noise;
    silence it with ``warnings.simplefilter("ignore", SingularKernelWarning)``."""


# -- random walk kernel ------------------------------------------------------------------


def random_walk_coefficients(a: Any, p: Any) -> np.ndarray:
    """The weights ``c_q`` of the binomial form of the random walk kernel.

    ``c_q = binom(p, q) (1 - 1/a)^(p-q) a^(-q)`` for ``q = 0..p`` (Urry & Sollich 2013,
    eq. 3): the law of the number of moves of a lazy walk of ``p`` steps that moves with
    probability ``1/a``, ``q ~ Binomial(p, 1/a)``. Computed by ratios outward from the
    mode and normalised to sum 1, so that no term overflows and each is accurate to
    about ``p`` ulps (terms below the smallest float are 0).

    Parameters
    ----------
    a : float
        ``a > 1``.
    p : int
        ``p >= 0``.

    Returns
    -------
    ndarray of shape (p + 1,)
        ``c_0, ..., c_p``: non-negative, summing to 1.

    Examples
    --------
    >>> random_walk_coefficients(2.0, 3).tolist()
    [0.125, 0.375, 0.375, 0.125]
    >>> float(random_walk_coefficients(4.0, 1000).sum())
    1.0
    """
    a, p = _check_a(a), _check_p(p)
    check_memory(  # the weights, the ratios and their products
        24 * (p + 1), f"random_walk_coefficients(a={a!r}, p={p}): {p + 1} weights"
    )
    mode = min(p, math.floor((p + 1) / a))
    r = 1.0 / (a - 1.0)  # (1/a) / (1 - 1/a)
    c = np.empty(p + 1)
    c[mode] = 1.0
    q = np.arange(mode, p, dtype=np.float64)  # c[q + 1] / c[q] = (p - q) / (q + 1) * r
    c[mode + 1 :] = np.cumprod((p - q) / (q + 1.0) * r)
    q = np.arange(mode, 0, -1, dtype=np.float64)  # c[q - 1] / c[q] = q / ((p - q + 1) r)
    c[:mode][::-1] = np.cumprod(q / ((p - q + 1.0) * r))
    return c / math.fsum(c)


def random_walk_kernel(
    G: Any,
    a: Any = 2.0,
    p: Any = 10,
    *,
    normalize: str = "none",
    weight: str | None = None,
) -> np.ndarray:
    """The random walk kernel ``C = (I - L/a)^p`` as a dense matrix (Urry & Sollich 2013,
    eqs. 2-3).

    Computed as ``p`` sparse-times-dense products with the lazy walk matrix
    ``(1 - 1/a) I + D^{-1/2} A D^{-1/2} / a`` (``O(p V nnz(A))``), or, where that costs
    more (a dense graph, a large ``p``), by repeated squaring, ``O(V^3 log p)``, keeping
    the stationary vector ``D^{1/2} 1`` exact so that rounding does not grow with ``p``;
    then symmetrised. Beyond a ``p`` from which the kernel equals its limit to float
    precision (``u u^T`` per component, ``u = sqrt(d / vol)``), that limit: the cost
    never grows faster than ``log p``.

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray
        An undirected graph without self-loops (see
        :func:`kernelkit.graphs.adjacency.adjacency_matrix`), at most
        :data:`MAX_DENSE_VERTICES` vertices.
    a : float, default=2.0
        ``a > 1``; ``a >= 2`` for a positive semi-definite kernel. ``p / a`` is the
        kernel's range in steps.
    p : int, default=10
        The number of lazy walk steps, ``p >= 0`` (``p = 0``: the identity).
    normalize : {"none", "global", "local"}, default="none"
        ``"none"``: ``C_hat``; ``"global"``: ``C_hat / mean(diag(C_hat))``;
        ``"local"``: ``C_hat_ij / sqrt(C_hat_ii C_hat_jj)`` (unit diagonal).
    weight : str or None, default=None
        Edge attribute of a networkx graph holding the weights (``None``: unweighted).

    Returns
    -------
    ndarray of shape (V, V)
        Symmetric, vertices in the order of ``list(G.nodes)`` (or of the matrix rows).

    Raises
    ------
    ValueError
        ``a <= 1``, ``p < 0``, an unknown ``normalize``, more than
        :data:`MAX_DENSE_VERTICES` vertices, or a bad graph.
    TypeError
        ``a`` not a real number, ``p`` not an integer.

    Warns
    -----
    NotPSDWarning
        ``1 < a < 2``, odd ``p``, and an eigenvalue of ``L`` above ``a``.
    SingularKernelWarning
        ``a = 2``, ``p >= 1`` and a bipartite component with an edge.

    See Also
    --------
    random_walk_operator : ``C @ v`` without the dense matrix.
    random_walk_diagonal : The prior variances ``diag(C_hat)`` of a large graph.

    Examples
    --------
    An isolated vertex has ``C_ii = (1 - 1/a)^p``; a single edge has
    ``C_ii = (1 + (1 - 2/a)^p) / 2`` (Sec. 2.2):

    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1)])
    >>> G.add_node(2)
    >>> random_walk_kernel(G, a=3.0, p=2).round(4).tolist()
    [[0.5556, 0.4444, 0.0], [0.4444, 0.5556, 0.0], [0.0, 0.0, 0.4444]]
    """
    a, p = _check_a(a), _check_p(p)
    normalize = check_in(normalize, "normalize", _NORMALIZATIONS)
    A = adjacency_matrix(G, weight=weight)
    _check_dense_size(A, "random_walk_kernel", "random_walk_operator")
    N = _normalized_adjacency(A)
    _warn_random_walk(A, N, a, p)
    C = _random_walk_dense(A, _lazy_walk(N, a), a, p)
    return _normalize_dense(_symmetrize(C), normalize, _isolated(A))


def _random_walk_dense(A: sparse.csr_matrix, M: sparse.csr_matrix, a: float, p: int) -> np.ndarray:
    """``M^p`` as a dense matrix: ``p`` sparse products where they cost less than
    repeated squaring (``2 log2(p)`` dense products), else repeated squaring with the
    stationary vector kept exact (:func:`_power`), and the exact limit (:class:`_Limit`)
    once ``p`` is so large that the kernel equals it to float precision: the cost never
    grows faster than ``log p``."""
    V = M.shape[0]
    if p == 0:
        return np.eye(V)
    if not _is_dense(M) and p * _SPARSE_COST_RATIO * M.nnz <= 2 * p.bit_length() * V * V:
        C = M.toarray()
        for _ in range(p - 1):
            C = M @ C
        return np.asarray(C)
    limit = _Limit.of(A)
    if math.log(p) >= limit.log_walk_steps(a):
        return limit.dense(_isolated_walk_variance(a, p))
    return _power(M.toarray(), p, limit.u)


def random_walk_diagonal(
    G: Any,
    a: Any = 2.0,
    p: Any = 10,
    *,
    weight: str | None = None,
    block_size: int | None = None,
) -> np.ndarray:
    """The prior variances ``diag(C_hat)`` of the unnormalised random walk kernel,
    exactly, without the dense matrix (Urry & Sollich 2013, eqs. 2-3).

    ``C_hat_ii = (M^k e_i) . (M^(p-k) e_i)`` with ``k = floor(p/2)`` and the symmetric
    ``M = I - L/a``: ``ceil(p/2)`` sparse products per block of
    ``block_size`` unit vectors, ``O(p V nnz(A) / 2)`` time and ``O(V block_size)``
    memory in all. The globally normalised variances are ``d / d.mean()``; the locally
    normalised ones are 1.

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray
        An undirected graph without self-loops, as for :func:`random_walk_kernel` (any
        number of vertices).
    a : float, default=2.0
        ``a > 1``; ``a >= 2`` for a positive semi-definite kernel.
    p : int, default=10
        The number of lazy walk steps, ``p >= 0``.
    weight : str or None, default=None
        Edge attribute of a networkx graph holding the weights (``None``: unweighted).
    block_size : int or None, default=None
        Unit vectors per block; ``None`` picks about 32 MB per block.

    Returns
    -------
    ndarray of shape (V,)
        ``C_hat_ii`` for every vertex, in the order of the kernel's rows.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.petersen_graph()
    >>> d = random_walk_diagonal(G, a=2.0, p=5)
    >>> bool(np.allclose(d, np.diag(random_walk_kernel(G, a=2.0, p=5))))
    True
    """
    a, p = _check_a(a), _check_p(p)
    block_size = _check_block_size(block_size)
    A = adjacency_matrix(G, weight=weight)
    N = _normalized_adjacency(A)
    _warn_random_walk(A, N, a, p)
    M = _lazy_walk(N, a)
    if p <= _MAX_SERIES_TERMS:
        return _random_walk_diagonal(M, p, block_size)
    dense = _long_walk(A, M, a, p, "random_walk_diagonal")
    return dense if dense.ndim == 1 else np.diag(dense).copy()


def random_walk_operator(
    G: Any,
    a: Any = 2.0,
    p: Any = 10,
    *,
    normalize: str = "none",
    weight: str | None = None,
    block_size: int | None = None,
) -> LinearOperator:
    """The random walk kernel as a symmetric ``LinearOperator`` for large graphs
    (Urry & Sollich 2013, eqs. 2-3).

    ``C @ v`` (and ``C @ X`` for a 2-D ``X``) is ``p`` sparse products with the lazy
    walk matrix ``(1 - 1/a) I + D^{-1/2} A D^{-1/2} / a``, which is eq. 3's binomial
    sum evaluated step by step: ``O(p nnz(A))`` per column, never a dense power.
    ``"global"`` and ``"local"`` normalisation need ``diag(C_hat)``, computed exactly
    once here by :func:`random_walk_diagonal` (``O(p V nnz(A) / 2)``). For ``p`` beyond
    ``2^17``: the kernel's exact limit when ``p`` is that large, else the dense kernel
    (at most :data:`MAX_DENSE_VERTICES` vertices; beyond, a ``ValueError`` naming ``p``
    and the values that work).

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray
        An undirected graph without self-loops, as for :func:`random_walk_kernel` (any
        number of vertices).
    a : float, default=2.0
        ``a > 1``; ``a >= 2`` for a positive semi-definite kernel.
    p : int, default=10
        The number of lazy walk steps, ``p >= 0``.
    normalize : {"none", "global", "local"}, default="none"
        As for :func:`random_walk_kernel`.
    weight : str or None, default=None
        Edge attribute of a networkx graph holding the weights (``None``: unweighted).
    block_size : int or None, default=None
        As for :func:`random_walk_diagonal` (used by the normalisations only).

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (V, V), float64
        ``v -> C v`` (and ``X -> C X``) for the kernel normalised as ``normalize`` asks.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.random_regular_graph(3, 50, seed=0)
    >>> K = random_walk_operator(G, a=2.0, p=10, normalize="global")
    >>> v = np.ones(50)
    >>> bool(np.allclose(K @ v, random_walk_kernel(G, 2.0, 10, normalize="global") @ v))
    True
    """
    a, p = _check_a(a), _check_p(p)
    normalize = check_in(normalize, "normalize", _NORMALIZATIONS)
    block_size = _check_block_size(block_size)
    A = adjacency_matrix(G, weight=weight)
    N = _normalized_adjacency(A)
    _warn_random_walk(A, N, a, p)
    M = _lazy_walk(N, a)
    if p > _MAX_SERIES_TERMS:
        return _dense_or_limit_operator(
            A, _long_walk(A, M, a, p, "random_walk_operator", diagonal=False), normalize
        )

    def apply(X: np.ndarray) -> np.ndarray:
        return _apply_power(M, p, X)

    diagonal = None
    if normalize != "none":
        diagonal = _random_walk_diagonal(M, p, block_size)
    return _operator(apply, normalize, diagonal, _isolated(A))


def _long_walk(
    A: sparse.csr_matrix,
    M: sparse.csr_matrix,
    a: float,
    p: int,
    request: str,
    *,
    diagonal: bool = True,
) -> Any:
    """For ``p`` beyond :data:`_MAX_SERIES_TERMS` sparse products per column: the exact
    limit (its diagonal when ``diagonal``, else the :class:`_Limit` with the isolated
    vertices' variance), or the dense kernel by repeated squaring on a graph small
    enough for it, or a ``ValueError`` naming ``p``."""
    limit = _Limit.of(A)
    log_steps = limit.log_walk_steps(a)
    if math.log(p) >= log_steps:
        iso = _isolated_walk_variance(a, p)
        return limit.diagonal(iso) if diagonal else (limit, iso)
    works = f"p <= {_MAX_SERIES_TERMS} or p >= {_from_log(log_steps)}"
    _check_long_range(A, request, "p", p, works)
    return _power(M.toarray(), p, limit.u)


def _random_walk_diagonal(M: sparse.csr_matrix, p: int, block_size: int | None) -> np.ndarray:
    k = p // 2

    def pair(E: np.ndarray) -> np.ndarray:
        Y = _apply_power(M, k, E)
        Z = M @ Y if p % 2 else Y
        return np.einsum("ij,ij->j", Y, Z)

    return _diagonal_by_blocks(pair, M.shape[0], block_size)


def _warn_random_walk(A: sparse.csr_matrix, N: sparse.csr_matrix, a: float, p: int) -> None:
    """The warnings of the random walk kernel (stack level: the public function's caller)."""
    if p == 0 or a > 2:
        return
    bipartite = _bipartite_vertices(A)
    if a == 2 and bipartite.any():
        v = int(np.flatnonzero(bipartite)[0])
        warnings.warn(
            f"the random walk kernel with a=2 is singular on this graph: a bipartite "
            f"component (vertex {v} is in one) gives the normalised Laplacian the "
            "eigenvalue 2 and the kernel the eigenvalue (1 - 2/a)^p = 0; use a > 2 for a "
            "positive definite kernel",
            SingularKernelWarning,
            stacklevel=3,
        )
    if a < 2 and p % 2:
        top = 2.0 if bipartite.any() else _largest_laplacian_eigenvalue(N)
        if top > a:
            warnings.warn(
                f"the random walk kernel with a={a:g} < 2 and odd p={p} is not positive "
                f"semi-definite on this graph: the normalised Laplacian has the eigenvalue "
                f"{top:.6g} > a, giving the kernel the eigenvalue "
                f"{_signed_power(1 - top / a, p):.3g} (Urry & Sollich 2013 take a >= 2)",
                NotPSDWarning,
                stacklevel=3,
            )


def _signed_power(x: float, p: int) -> float:
    """``x^p`` for ``|x| <= 1`` and any integer ``p >= 0`` (0 where it underflows)."""
    if p < 2**53:
        return x**p
    sign = -1.0 if x < 0 and p % 2 else 1.0
    if abs(x) == 1.0:
        return sign
    rate = -math.log(abs(x)) if x != 0.0 else math.inf
    return 0.0 if p > 800.0 / rate else sign * math.exp(-p * rate)


def _largest_laplacian_eigenvalue(N: sparse.csr_matrix) -> float:
    """``1 - min eig(N)``; 2.0 (the bound) when ARPACK does not converge."""
    V = N.shape[0]
    if N.nnz == 0:
        return 1.0
    if V <= 500:
        return float(1.0 - np.linalg.eigvalsh(N.toarray())[0])
    v0 = np.random.RandomState(0).uniform(0.5, 1.5, V)
    try:
        low = eigsh(N, k=1, which="SA", tol=1e-10, v0=v0, return_eigenvectors=False)
    except ArpackNoConvergence:
        return 2.0
    return float(1.0 - low[0])


# -- diffusion kernel --------------------------------------------------------------------


def diffusion_kernel(
    G: Any,
    sigma2: Any = 1.0,
    *,
    normalize: str = "none",
    weight: str | None = None,
) -> np.ndarray:
    """The diffusion kernel ``C = exp(-sigma2 L / 2)`` as a dense matrix (Urry & Sollich
    2013, eq. 1; Kondor & Lafferty 2002), ``L`` the normalised Laplacian.

    Computed as ``exp(-t) exp(t N)`` with ``t = sigma2 / 2``: the Poisson-weighted series
    ``sum_k Poisson(k; t) N^k`` by Horner's rule, truncated where the Poisson tail is
    below ``2^-70`` (about ``t + 12 sqrt(t) + 40`` terms at most), with sparse products
    (``O(K V nnz(A))`` for ``K`` terms). All terms are non-negative, so there is no
    cancellation; the result agrees with ``scipy.linalg.expm`` to rounding. For
    ``t > 16``, where it costs less, by scaling and squaring: the series at ``t / 2^s``,
    then ``s`` squarings of that non-negative matrix, with the stationary vector
    ``D^{1/2} 1`` kept exact. From a ``t`` at which ``exp(-t lambda_2)`` is below float
    precision (bounded from the graph: ``lambda_2 >= w_min / ((n_c - 1) vol)`` per
    component, Chung 1997 Lemma 1.9), the kernel is its limit, ``u u^T`` per component
    with ``u = sqrt(d / vol)`` (``exp(-t)`` at an isolated vertex). The cost therefore
    never grows faster than ``log sigma2``: ``sigma2 = 1e300`` costs no more than
    ``1e6``.

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray
        An undirected graph without self-loops, as for :func:`random_walk_kernel` (at
        most :data:`MAX_DENSE_VERTICES` vertices).
    sigma2 : float, default=1.0
        ``sigma^2 >= 0``, the squared diffusion lengthscale (0 gives the identity).
    normalize : {"none", "global", "local"}, default="none"
        As for :func:`random_walk_kernel`.
    weight : str or None, default=None
        Edge attribute of a networkx graph holding the weights (``None``: unweighted).

    Returns
    -------
    ndarray of shape (V, V)
        Symmetric positive semi-definite.

    Examples
    --------
    >>> import networkx as nx
    >>> from scipy.linalg import expm
    >>> from kernelkit.graphs.adjacency import normalized_laplacian
    >>> G = nx.path_graph(4)
    >>> C = diffusion_kernel(G, sigma2=2.0)
    >>> bool(np.allclose(C, expm(-normalized_laplacian(G).toarray())))
    True
    """
    t = check_nonnegative_number(sigma2, "sigma2") / 2.0
    normalize = check_in(normalize, "normalize", _NORMALIZATIONS)
    A = adjacency_matrix(G, weight=weight)
    _check_dense_size(A, "diffusion_kernel", "diffusion_operator")
    C = _diffusion_dense(A, _normalized_adjacency(A), t)
    return _normalize_dense(_symmetrize(C), normalize, _isolated(A))


def _diffusion_dense(A: sparse.csr_matrix, N: sparse.csr_matrix, t: float) -> np.ndarray:
    """``exp(-t L)`` as a dense matrix, at a cost that does not grow with ``t``: the
    Poisson series for ``t <= _SERIES_TIME``; beyond, scaling and squaring, ``exp(-t L) =
    exp(-h L)^(2^s)`` with ``h = t / 2^s`` (the series at ``h``, then ``s`` squarings of
    a non-negative matrix with its stationary vector kept exact: :func:`_power`); and the
    exact limit once ``exp(-t lambda_2)`` is below ``2^-60`` of every entry of it
    (:class:`_Limit`)."""
    if t <= _SERIES_TIME:
        return _series_identity(N, _poisson_weights(t))
    limit = _Limit.of(A)
    if math.log(t) >= limit.log_diffusion_time():
        return limit.dense(math.exp(-t))
    s = _squarings(t, N)
    M = _symmetrize(_series_identity(N, _poisson_weights(math.ldexp(t, -s))))
    return _power(M, 1 << s, limit.u) if s else M


def diffusion_diagonal(
    G: Any,
    sigma2: Any = 1.0,
    *,
    weight: str | None = None,
    block_size: int | None = None,
) -> np.ndarray:
    """The prior variances ``diag(exp(-sigma2 L / 2))`` exactly, without the dense matrix.

    ``C_ii = ||exp(-sigma2 L / 4) e_i||^2``, the half-time series applied to blocks of
    unit vectors (see :func:`diffusion_kernel` and :func:`random_walk_diagonal`). Where
    the series would need more than ``2^17`` terms: the diagonal of the kernel's limit
    when ``sigma2`` is that large, else of the dense kernel (at most
    :data:`MAX_DENSE_VERTICES` vertices; beyond, ``ValueError`` naming ``sigma2``).

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray
        An undirected graph without self-loops, as for :func:`random_walk_kernel` (any
        number of vertices).
    sigma2 : float, default=1.0
        ``sigma^2 >= 0``, the squared diffusion lengthscale (0 gives the identity).
    weight : str or None, default=None
        Edge attribute of a networkx graph holding the weights (``None``: unweighted).
    block_size : int or None, default=None
        Unit vectors per block; ``None`` picks about 32 MB per block.

    Returns
    -------
    ndarray of shape (V,)
        The unnormalised prior variances ``C_ii``, in the order of the kernel's rows.

    Examples
    --------
    >>> import networkx as nx
    >>> diffusion_diagonal(nx.empty_graph(2), sigma2=2.0).round(6).tolist()
    [0.367879, 0.367879]
    """
    t = check_nonnegative_number(sigma2, "sigma2") / 2.0
    block_size = _check_block_size(block_size)
    A = adjacency_matrix(G, weight=weight)
    N = _normalized_adjacency(A)
    if _poisson_length(t / 2.0) <= _MAX_SERIES_TERMS:
        return _diffusion_diagonal(N, t, block_size)
    dense = _long_diffusion(A, N, t, sigma2, "diffusion_diagonal")
    return dense if dense.ndim == 1 else np.diag(dense).copy()


def diffusion_operator(
    G: Any,
    sigma2: Any = 1.0,
    *,
    normalize: str = "none",
    weight: str | None = None,
    block_size: int | None = None,
) -> LinearOperator:
    """The diffusion kernel ``exp(-sigma2 L / 2)`` as a symmetric ``LinearOperator``
    (Urry & Sollich 2013, eq. 1).

    ``C @ v`` is the truncated Poisson series of :func:`diffusion_kernel` applied to
    ``v``: about ``t + 12 sqrt(t) + 40`` sparse products at most (``t = sigma2 / 2``),
    the same cost as ``scipy.sparse.linalg.expm_multiply``. ``"global"`` and ``"local"``
    normalisation compute ``diag(C_hat)`` once by :func:`diffusion_diagonal`. Where the
    series would need more than ``2^17`` terms: the kernel's exact limit when
    ``sigma2`` is that large (``O(V)`` per product), else the dense kernel (at most
    :data:`MAX_DENSE_VERTICES` vertices; beyond, a ``ValueError`` naming ``sigma2`` and
    the values that work).

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray
        An undirected graph without self-loops, as for :func:`random_walk_kernel` (any
        number of vertices).
    sigma2 : float, default=1.0
        ``sigma^2 >= 0``, the squared diffusion lengthscale (0 gives the identity).
    normalize : {"none", "global", "local"}, default="none"
        As for :func:`random_walk_kernel`.
    weight : str or None, default=None
        Edge attribute of a networkx graph holding the weights (``None``: unweighted).
    block_size : int or None, default=None
        As for :func:`diffusion_diagonal` (used by the normalisations only).

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (V, V), float64
        ``v -> C v`` (and ``X -> C X``) for the kernel normalised as ``normalize`` asks.

    Examples
    --------
    >>> import networkx as nx
    >>> from scipy.sparse.linalg import expm_multiply
    >>> from kernelkit.graphs.adjacency import normalized_laplacian
    >>> G = nx.random_regular_graph(3, 100, seed=1)
    >>> v = np.arange(100.0)
    >>> ref = expm_multiply(-1.5 * normalized_laplacian(G), v)
    >>> bool(np.allclose(diffusion_operator(G, sigma2=3.0) @ v, ref))
    True
    """
    t = check_nonnegative_number(sigma2, "sigma2") / 2.0
    normalize = check_in(normalize, "normalize", _NORMALIZATIONS)
    block_size = _check_block_size(block_size)
    A = adjacency_matrix(G, weight=weight)
    N = _normalized_adjacency(A)
    if _poisson_length(t) > _MAX_SERIES_TERMS:
        return _dense_or_limit_operator(
            A, _long_diffusion(A, N, t, sigma2, "diffusion_operator", diagonal=False), normalize
        )
    w = _poisson_weights(t)

    def apply(X: np.ndarray) -> np.ndarray:
        return _apply_series(N, w, X)

    diagonal = None
    if normalize != "none":
        diagonal = _diffusion_diagonal(N, t, block_size)
    return _operator(apply, normalize, diagonal, _isolated(A))


def _diffusion_diagonal(N: sparse.csr_matrix, t: float, block_size: int | None) -> np.ndarray:
    w = _poisson_weights(t / 2.0)

    def pair(E: np.ndarray) -> np.ndarray:
        Y = _apply_series(N, w, E)
        return np.einsum("ij,ij->j", Y, Y)

    return _diagonal_by_blocks(pair, N.shape[0], block_size)


def _long_diffusion(
    A: sparse.csr_matrix,
    N: sparse.csr_matrix,
    t: float,
    sigma2: Any,
    request: str,
    *,
    diagonal: bool = True,
) -> Any:
    """As :func:`_long_walk`, for the diffusion kernel ``exp(-t L)``, ``t = sigma2 / 2``."""
    limit = _Limit.of(A)
    log_time = limit.log_diffusion_time()
    if math.log(t) >= log_time:
        iso = math.exp(-t)
        return limit.diagonal(iso) if diagonal else (limit, iso)
    works = (
        f"sigma2 <= {2.0 * _MAX_SERIES_TIME:.6g} or sigma2 >= {_from_log(log_time + math.log(2.0))}"
    )
    _check_long_range(A, request, "sigma2", sigma2, works)
    return _diffusion_dense(A, N, t)


def _poisson_length(t: float) -> int:
    """How many terms :func:`_poisson_weights` keeps at most, without computing them."""
    return math.ceil(t + 12.0 * math.sqrt(t) + 40.0) + 1


def _poisson_weights(t: float) -> np.ndarray:
    """``Poisson(k; t)`` for ``k = 0..K``, normalised over the kept terms, the tail past
    ``K`` (each term below ``2^-70``) dropped: ratios outward from the mode, so that
    nothing overflows for large ``t``."""
    if t == 0:
        return np.ones(1)
    K = math.ceil(t + 12.0 * math.sqrt(t) + 40.0)
    mode = math.floor(t)
    w = np.empty(K + 1)
    w[mode] = 1.0
    w[mode + 1 :] = np.cumprod(t / np.arange(mode + 1, K + 1, dtype=np.float64))
    w[:mode][::-1] = np.cumprod(np.arange(mode, 0, -1, dtype=np.float64) / t)
    w /= math.fsum(w)
    keep = np.flatnonzero(w[mode:] >= 2.0**-70)
    return w[: mode + int(keep[-1]) + 1]


# -- Laplacian polynomials ---------------------------------------------------------------


def laplacian_polynomial(
    G: Any,
    coefficients: Any,
    *,
    laplacian: str = "combinatorial",
    weight: str | None = None,
) -> np.ndarray:
    """The polynomial filter ``P_w(L) = sum_i w_i L^i`` as a dense matrix.

    ``L`` is the combinatorial Laplacian ``D - A`` (the lecture notes' filters) or the
    normalised one ``I - D^{-1/2} A D^{-1/2}``; ``w_0`` multiplies the identity.
    Evaluated by Horner's rule with ``n`` sparse products for degree ``n``. The filter
    is localised (entry ``(u, v)`` is 0 when ``u`` and ``v`` are more than ``n`` edges
    apart) and permutation-equivariant; it is a kernel (positive semi-definite) when the
    polynomial is non-negative on the spectrum of ``L``.

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray
        An undirected graph without self-loops, as for :func:`random_walk_kernel` (at
        most :data:`MAX_DENSE_VERTICES` vertices).
    coefficients : array-like of shape (n + 1,)
        ``w_0, ..., w_n``, finite.
    laplacian : {"combinatorial", "normalized"}, default="combinatorial"
        Which Laplacian.
    weight : str or None, default=None
        Edge attribute of a networkx graph holding the weights (``None``: unweighted).

    Returns
    -------
    ndarray of shape (V, V)
        Symmetric; vertices in the order of ``list(G.nodes)`` (or of the matrix rows).

    Raises
    ------
    OverflowError
        An entry of ``P_w(L)`` itself is beyond the float64 range (the terms are summed
        in a Laplacian scaled by a power of two, so a finite value is never lost to an
        overflowing ``L^i`` or ``w_i L^i`` on the way).

    Examples
    --------
    >>> import networkx as nx
    >>> P = laplacian_polynomial(nx.path_graph(3), [1.0, -0.5])  # I - L / 2
    >>> P.tolist()
    [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.5]]
    """
    w = _check_coefficients(coefficients)
    laplacian = check_in(laplacian, "laplacian", _LAPLACIANS)
    A = adjacency_matrix(G, weight=weight)
    _check_dense_size(A, "laplacian_polynomial", "laplacian_polynomial_operator")
    T, k = _scaled_laplacian(A, laplacian)
    c, K = _scaled_coefficients(w, k, T.nnz == 0)
    C = _symmetrize(_series_identity(T, c))
    return _scale_back(C, K, "laplacian_polynomial(G, coefficients)")


def laplacian_polynomial_operator(
    G: Any,
    coefficients: Any,
    *,
    laplacian: str = "combinatorial",
    weight: str | None = None,
) -> LinearOperator:
    """The polynomial filter ``sum_i w_i L^i`` as a symmetric ``LinearOperator``:
    ``n`` sparse products per column for degree ``n`` (Horner's rule).

    Parameters
    ----------
    G : networkx.Graph, scipy sparse matrix or ndarray
        An undirected graph without self-loops, as for :func:`random_walk_kernel` (any
        number of vertices).
    coefficients : array-like of shape (n + 1,)
        ``w_0, ..., w_n``, finite.
    laplacian : {"combinatorial", "normalized"}, default="combinatorial"
        Which Laplacian.
    weight : str or None, default=None
        Edge attribute of a networkx graph holding the weights (``None``: unweighted).

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (V, V), float64
        ``v -> P_w(L) v`` (and ``X -> P_w(L) X``); a product beyond the float64 range
        raises ``OverflowError``, as :func:`laplacian_polynomial` does.

    Examples
    --------
    >>> import networkx as nx
    >>> P = laplacian_polynomial_operator(nx.path_graph(3), [0.0, 1.0])  # L itself
    >>> (P @ np.array([1.0, 1.0, 1.0])).tolist()
    [0.0, 0.0, 0.0]
    """
    w = _check_coefficients(coefficients)
    laplacian = check_in(laplacian, "laplacian", _LAPLACIANS)
    A = adjacency_matrix(G, weight=weight)
    T, k = _scaled_laplacian(A, laplacian)
    c, K = _scaled_coefficients(w, k, T.nnz == 0)

    def apply(X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        top = float(np.max(np.abs(X))) if X.size else 0.0
        if not math.isfinite(top):  # NaN or infinity in X: they propagate, as in any product
            with np.errstate(over="ignore", invalid="ignore"):
                return np.ldexp(_apply_series(T, c, X), K)
        shift = math.frexp(top)[1]  # X = 2^shift X' with max|X'| in [1/2, 1)
        Y = _apply_series(T, c, np.ldexp(X, -shift))
        return _scale_back(Y, K + shift, "laplacian_polynomial_operator(G, coefficients) @ X")

    return _operator(apply, "none", None, _isolated(A))


def _scaled_laplacian(A: sparse.csr_matrix, kind: str) -> tuple[sparse.csr_matrix, int]:
    """``(T, k)`` with the Laplacian ``L = 2^k T`` and ``||T||_2 <= 1``, ``T`` computed
    exactly (a power of two times ``L``, from the weights scaled first, so that a degree
    beyond the float range does not overflow): the normalised Laplacian's spectrum lies
    in ``[0, 2]``, the combinatorial one's in ``[0, 2 max(d)]`` (Gershgorin)."""
    if kind == "normalized":
        T = _identity_minus(_normalized_adjacency(A))
        T.data *= 0.5
        return T, 1
    if A.nnz == 0:
        return sparse.csr_matrix(A.shape, dtype=np.float64), 0
    e_w = math.frexp(float(A.data.max()))[1]
    B = A.copy()
    B.data = np.ldexp(B.data, -e_w)  # weights in (0, 1], degrees at most V
    d = _degrees(B)
    e_d = math.frexp(2.0 * float(d.max()))[1]
    T = sparse.csr_matrix(sparse.diags(d, format="csr") - B)
    T.data = np.ldexp(T.data, -e_d)
    return T, e_w + e_d


def _scaled_coefficients(w: np.ndarray, k: int, zero: bool) -> tuple[np.ndarray, int]:
    """``(c, K)`` with ``sum_i w_i L^i = 2^K sum_i c_i T^i`` for ``L = 2^k T``:
    ``c_i = w_i 2^(i k - K)``, the largest ``|c_i|`` in ``[1/2, 1)``, so that every
    partial sum of Horner's rule in ``T`` is at most ``n + 1`` in norm and nothing
    overflows whatever the sizes of ``w`` and ``L``. Terms that underflow to 0 are below
    ``2^-1074`` relative to the largest (``||T||_2 >= 1/4`` on a graph with an edge, so
    they are also below the rounding of Horner's rule). Scaling by powers of two is
    exact: in the float range the result is bit for bit that of Horner's rule in ``L``.
    ``zero``: ``T = 0`` (an edgeless graph's combinatorial Laplacian), only ``w_0``
    counts."""
    if zero:
        w = w[:1]
    nonzero = np.flatnonzero(w)
    if nonzero.size == 0:
        return np.zeros(1), 0
    K = max(math.frexp(float(w[i]))[1] + int(i) * k for i in nonzero)
    c = np.array([math.ldexp(float(wi), i * k - K) for i, wi in enumerate(w)])
    return c, K


def _scale_back(C: np.ndarray, K: int, request: str) -> np.ndarray:
    """``2^K C`` in place, or ``OverflowError`` when an entry is beyond the float range."""
    if K > 0 and C.size:
        top = float(np.max(np.abs(C)))
        if top > math.ldexp(float(np.finfo(np.float64).max), -K):
            log10 = math.log10(top) + K * math.log10(2.0)
            raise OverflowError(
                f"{request}: the polynomial's value has an entry of about "
                f"{10 ** (log10 % 1):.3g}e+{math.floor(log10)}, beyond the float64 range "
                "(1.8e+308); scale the coefficients down (w_i multiplies the i-th power "
                "of the Laplacian, whose norm here is up to 2^k with k = "
                "ceil(log2(2 max degree)) for the combinatorial one)"
            )
    if K:
        np.ldexp(C, max(K, -2200), out=C)  # below 2^-2200 every entry is 0 anyway
    return C


def _check_coefficients(coefficients: Any) -> np.ndarray:
    if isinstance(coefficients, (str, bytes)) or coefficients is None:
        raise TypeError(
            f"coefficients must be a 1-D array of numbers, got {type(coefficients).__name__}"
        )
    try:
        w = np.asarray(coefficients)
    except (TypeError, ValueError):
        raise TypeError("coefficients must be a 1-D array of numbers") from None
    if w.dtype == object or not (np.issubdtype(w.dtype, np.number) or w.dtype == bool):
        raise TypeError(f"coefficients must be a 1-D array of numbers, got dtype {w.dtype}")
    if np.iscomplexobj(w):
        raise TypeError("coefficients must be real, got a complex array")
    if w.ndim != 1 or w.size == 0:
        raise ValueError(
            f"coefficients must be a non-empty 1-D array (w_0, ..., w_n), got shape {w.shape}"
        )
    w = w.astype(np.float64)
    if not np.isfinite(w).all():
        raise ValueError("coefficients must be finite")
    return w


# -- shared machinery --------------------------------------------------------------------


def _check_a(a: Any) -> float:
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, numbers.Real):
        raise TypeError(f"a must be a real number > 1, got {type(a).__name__}")
    a = float(a)
    if not (math.isfinite(a) and a > 1.0):
        raise ValueError(
            f"a must be a finite number > 1 (a >= 2 for a positive semi-definite random "
            f"walk kernel, Urry & Sollich 2013 eq. 2), got {a!r}"
        )
    return a


def _check_p(p: Any) -> int:
    return check_int(p, "p", minimum=0)


def _check_block_size(block_size: Any) -> int | None:
    if block_size is None:
        return None
    return check_int(block_size, "block_size", minimum=1)


def _check_dense_size(A: sparse.csr_matrix, request: str, operator: str) -> int:
    V = int(A.shape[0])
    if V > MAX_DENSE_VERTICES:
        raise ValueError(
            f"G has {V} vertices; {request} builds a dense (V, V) matrix and is limited to "
            f"MAX_DENSE_VERTICES = {MAX_DENSE_VERTICES}; use {operator}(G, ...) for "
            "matrix-vector products (and the *_diagonal functions for prior variances)"
        )
    check_memory(
        3 * 8 * V * V,
        f"{request} on a graph with {V} vertices",
        f"use {operator}(G, ...) for matrix-vector products",
    )
    return V


def _is_dense(T: sparse.csr_matrix) -> bool:
    """Whether dense (BLAS) products beat sparse ones for this matrix."""
    V = T.shape[0]
    return T.nnz * _SPARSE_COST_RATIO > V * V


def _apply_power(M: sparse.csr_matrix, p: int, X: np.ndarray) -> np.ndarray:
    """``M^p X`` by ``p`` sparse products (Urry & Sollich 2013 eq. 3, step by step); a
    new array, never ``X`` itself."""
    if p == 0:
        return np.array(X, dtype=np.float64)
    for _ in range(p):
        X = M @ X
    return np.asarray(X, dtype=np.float64)


def _apply_series(T: Any, w: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``sum_k w_k T^k X`` by Horner's rule."""
    X = np.asarray(X, dtype=np.float64)
    Y = w[-1] * X
    for c in w[-2::-1]:
        Y = T @ Y
        if c:
            Y += c * X
    return Y


def _series_identity(T: sparse.csr_matrix, w: np.ndarray) -> np.ndarray:
    """``sum_k w_k T^k`` as a dense matrix (Horner from the identity)."""
    V = T.shape[0]
    op = T.toarray() if _is_dense(T) else T
    C = np.zeros((V, V))
    C.flat[:: V + 1] = w[-1]
    for c in w[-2::-1]:
        C = op @ C
        C.flat[:: V + 1] += c
    return np.asarray(C)


def _isolated_walk_variance(a: float, p: int) -> float:
    """``(1 - 1/a)^p``, an isolated vertex's prior variance (0 where it underflows)."""
    rate = -math.log1p(-1.0 / a)
    return 0.0 if p > 800.0 / rate else math.exp(-p * rate)


@dataclass(frozen=True)
class _Limit:
    """The limit of the random walk and diffusion kernels for large ``p`` or ``sigma2``.

    On a component ``c`` with an edge the normalised Laplacian has the eigenvalue 0 once,
    with eigenvector ``u_i = sqrt(d_i / vol(c))`` (``vol(c)`` the sum of its degrees);
    every other eigenvalue is at least ``gap_c = w_min / ((n_c - 1) vol(c))``, ``w_min``
    the smallest edge weight and ``n_c - 1`` a bound on the diameter (Chung 1997,
    Lemma 1.9, whose proof carries over to weights: a path of at most ``n_c - 1`` edges,
    each of weight ``>= w_min``, joins a vertex where ``|f|`` is largest to one where
    ``f`` changes sign). So ``exp(-t L)`` and ``(I - L/a)^p`` tend to the projector
    ``u u^T`` on each component, with a remainder at most ``exp(-t gap)`` (resp.
    ``rho^p``, ``rho = max(1 - gap/a, |1 - 2/a|)``) in every entry (the remainder
    ``R`` is symmetric with ``|R_ij| <= ||R||_2``); an isolated vertex has ``C_ii =
    exp(-t)`` (resp. ``(1 - 1/a)^p``) and nothing else. Once the remainder is below
    ``e^-42 < 2^-60`` of the smallest entry ``d_min / vol(c)`` of the projector, the
    projector *is* the kernel to float precision. Thresholds are kept in logs, so that
    no weight, however small or large, makes them under- or overflow.
    """

    u: np.ndarray  # (V,) sqrt(d_i / vol(c)); 0 at an isolated vertex
    labels: np.ndarray  # (V,) connected component of each vertex
    isolated: np.ndarray  # (V,) bool
    log_gaps: np.ndarray  # per component with an edge: log of the bound on its gap
    logs: np.ndarray  # per component with an edge: 42 + log(vol(c) / d_min(c))

    @classmethod
    def of(cls, A: sparse.csr_matrix) -> _Limit:
        V = A.shape[0]
        isolated = _isolated(A)
        n_comp, labels = connected_components(A, directed=False)
        if A.nnz == 0:
            empty = np.zeros(0)
            return cls(np.zeros(V), labels, isolated, empty, empty)
        B = A.copy()  # as in _normalized_adjacency: scaled (exactly) if a degree could
        top = float(B.data.max())  # overflow, or if all weights are tiny
        if top * V > 2.0**1000 or top < 2.0**-500:
            B.data = np.ldexp(B.data, -math.frexp(top)[1])
        d = _degrees(B)
        vol = np.bincount(labels, weights=d, minlength=n_comp)
        size = np.bincount(labels, minlength=n_comp)
        w_min = np.full(n_comp, np.inf)
        rows = np.repeat(np.arange(V), np.diff(B.indptr))
        np.minimum.at(w_min, labels[rows], B.data)
        d_min = np.full(n_comp, np.inf)
        np.minimum.at(d_min, labels[~isolated], d[~isolated])
        edged = np.isfinite(w_min)  # the components with an edge
        with np.errstate(invalid="ignore", divide="ignore"):
            # a weight below 2^-1074 of the largest is 0 here, its gap bound -inf: then
            # the limit is never taken (the product path decides, with the same zero)
            log_gaps = np.log(w_min[edged]) - np.log(size[edged] - 1.0) - np.log(vol[edged])
            logs = 42.0 + (np.log(vol[edged]) - np.log(d_min[edged]))
            u = np.sqrt(d / vol[labels])
        u[isolated] = 0.0
        return cls(u, labels, isolated, log_gaps, logs)

    def log_diffusion_time(self) -> float:
        """``log t`` from which ``exp(-t L)`` equals the limit to float precision."""
        if self.logs.size == 0:
            return -math.inf
        return float(np.max(np.log(self.logs) - self.log_gaps))

    def log_walk_steps(self, a: float) -> float:
        """``log p`` from which ``(I - L/a)^p`` equals the limit to float precision."""
        if self.logs.size == 0:
            return -math.inf
        log_x = self.log_gaps - math.log(a)  # x = gap / a <= 1/2
        x = np.exp(log_x)  # 0 where it underflows: there -log(1 - x) / x = 1
        ratio = np.ones_like(x)
        big = x > 1e-8
        ratio[big] = -np.log1p(-x[big]) / x[big]
        log_rate = log_x + np.log(ratio)  # log(-log(1 - gap / a))
        if a != 2.0:  # the eigenvalue 1 - 2/a of a bipartite component
            other = -math.log1p(-2.0 / a) if a > 2.0 else -math.log1p(-2.0 * (a - 1.0) / a)
            log_rate = np.minimum(log_rate, math.log(other))
        return float(np.max(np.log(self.logs) - log_rate))

    def dense(self, isolated_value: float) -> np.ndarray:
        """The limit as a dense matrix: ``u u^T`` within components, ``isolated_value``
        on the diagonal at isolated vertices."""
        C = np.outer(self.u, self.u)
        C *= self.labels[:, None] == self.labels[None, :]
        C[self.isolated, self.isolated] = isolated_value
        return C

    def diagonal(self, isolated_value: float) -> np.ndarray:
        """The diagonal of :meth:`dense`."""
        d = self.u * self.u
        d[self.isolated] = isolated_value
        return d

    def apply(self, X: np.ndarray, isolated_value: float) -> np.ndarray:
        """:meth:`dense` times ``X`` (1-D or 2-D): ``u (u . x)`` per component."""
        X = np.asarray(X, dtype=np.float64)
        V = self.u.shape[0]
        S = sparse.csr_matrix((self.u, (self.labels, np.arange(V))))
        X2 = X.reshape(V, -1)
        Y = np.asarray(S.T @ (S @ X2))
        Y[self.isolated] = isolated_value * X2[self.isolated]
        return Y.reshape(X.shape)


def _from_log(x: float) -> str:
    """``exp(x)`` as text, also beyond the float range."""
    if x < 700.0:
        return f"{math.exp(x):.3g}"
    return f"1e{x / math.log(10.0):.0f}"


def _squarings(t: float, N: sparse.csr_matrix) -> int:
    """How many squarings ``s`` make ``exp(-t L) = exp(-(t / 2^s) L)^(2^s)`` cheapest: the
    Poisson series at ``t / 2^s`` costs a (sparse or dense) product per term, a squaring
    one dense product."""
    V = N.shape[0]
    dense = float(V) ** 3
    per_term = dense if _is_dense(N) else float(_SPARSE_COST_RATIO) * N.nnz * V
    best, best_cost = 0, _poisson_length(t) * per_term
    for s in range(1, max(1, math.ceil(math.log2(t))) + 2):
        cost = _poisson_length(math.ldexp(t, -s)) * per_term + s * dense
        if cost < best_cost:
            best, best_cost = s, cost
    return best


def _power(M: np.ndarray, p: int, u: np.ndarray) -> np.ndarray:
    """``M^p`` for a symmetric, entrywise non-negative ``M`` with ``M u = u`` (``u >= 0``,
    0 at isolated vertices), by repeated squaring: ``2 log2(p)`` dense products of
    non-negative matrices (no cancellation). After each product the computed matrix is
    rescaled symmetrically, ``P_ij / sqrt(r_i r_j)`` with ``r = (P u) / u``, which puts
    the eigenvalue 1 back at 1 to first order: without it the rounding of that
    eigenvalue, ``1 + delta``, would grow to ``(1 + delta)^p``, an error of ``p``
    ulps."""
    on = u > 0
    R: np.ndarray | None = None
    P = M
    while True:
        if p & 1:
            R = P.copy() if R is None else _keep_stationary(R @ P, u, on)
        p >>= 1
        if not p:
            break
        P = _keep_stationary(P @ P, u, on)
    assert R is not None
    return R


def _keep_stationary(P: np.ndarray, u: np.ndarray, on: np.ndarray) -> np.ndarray:
    """``P_ij / sqrt(r_i r_j)``, ``r = (P u) / u`` where ``u > 0`` (1 elsewhere)."""
    r = np.ones(P.shape[0])
    r[on] = (P[on] @ u) / u[on]
    f = 1.0 / np.sqrt(r)
    P *= f[:, None]
    P *= f[None, :]
    return P


def _check_long_range(
    A: sparse.csr_matrix, request: str, name: str, value: Any, works: str
) -> None:
    """The dense fallback of an operator or diagonal whose series would be too long:
    only for graphs within :data:`MAX_DENSE_VERTICES` (and the memory)."""
    V = int(A.shape[0])
    if V > MAX_DENSE_VERTICES:
        raise ValueError(
            f"{name}={value!r} is too large for {request} on a graph with {V} vertices: "
            f"it would need more than {_MAX_SERIES_TERMS} sparse products per column, and "
            f"the graph has more than MAX_DENSE_VERTICES = {MAX_DENSE_VERTICES} vertices "
            f"for the dense route; use {works} (beyond the upper value the kernel equals "
            "its limit, the projector onto the null space of the normalised Laplacian)"
        )
    check_memory(3 * 8 * V * V, f"{request} with {name}={value!r} on {V} vertices (dense)")


def _dense_or_limit_operator(A: sparse.csr_matrix, kernel: Any, normalize: str) -> LinearOperator:
    """The operator of a dense kernel matrix, or of ``(limit, isolated_value)``."""
    isolated = _isolated(A)
    if isinstance(kernel, tuple):
        limit, iso = kernel

        def apply(X: np.ndarray) -> np.ndarray:
            return limit.apply(X, iso)

        diagonal = limit.diagonal(iso)
    else:
        C = _symmetrize(kernel)

        def apply(X: np.ndarray) -> np.ndarray:
            return np.asarray(C @ np.asarray(X, dtype=np.float64))

        diagonal = np.diag(C).copy()
    return _operator(apply, normalize, diagonal if normalize != "none" else None, isolated)


def _symmetrize(C: np.ndarray) -> np.ndarray:
    C += C.T  # NumPy buffers the overlapping transpose
    C *= 0.5
    return C


def _normalize_dense(C: np.ndarray, normalize: str, isolated: np.ndarray) -> np.ndarray:
    """Global or local normalisation (Urry & Sollich 2013, Sec. 2.2), in place."""
    if normalize == "none":
        return C
    diagonal = np.diag(C).copy()
    if normalize == "global":
        kappa = diagonal.mean()
        if kappa > 0:
            C /= kappa
            return C
        # every C_hat_ii underflowed: only an edgeless graph; its normalised kernel is I
    s = _local_scale(diagonal, isolated)
    C *= s[:, None]
    C *= s[None, :]
    np.fill_diagonal(C, 1.0)
    return C


def _local_scale(diagonal: np.ndarray, isolated: np.ndarray) -> np.ndarray:
    """``1 / sqrt(C_hat_ii)``, and 0 at isolated vertices (set to variance 1 apart)."""
    s = np.zeros_like(diagonal)
    np.divide(1.0, np.sqrt(diagonal), out=s, where=(diagonal > 0) & ~isolated)
    return s


def _diagonal_by_blocks(
    pair: Callable[[np.ndarray], np.ndarray], V: int, block_size: int | None
) -> np.ndarray:
    """``pair(E)`` over blocks ``E`` of unit vectors: the diagonal, block by block."""
    b = block_size if block_size is not None else max(1, min(V, 2**22 // V))
    out = np.empty(V)
    for start in range(0, V, b):
        idx = np.arange(start, min(start + b, V))
        E = np.zeros((V, len(idx)))
        E[idx, np.arange(len(idx))] = 1.0
        out[idx] = pair(E)
    return out


def _operator(
    apply: Callable[[np.ndarray], np.ndarray],
    normalize: str,
    diagonal: np.ndarray | None,
    isolated: np.ndarray,
) -> LinearOperator:
    """A symmetric float64 ``LinearOperator`` from ``apply`` (the unnormalised kernel
    times a vector or a matrix), normalised with ``diagonal`` as :func:`_normalize_dense`."""
    V = len(isolated)
    f = apply
    if diagonal is not None:
        kappa = diagonal.mean()
        if normalize == "global" and kappa > 0:

            def f(X: np.ndarray) -> np.ndarray:
                return apply(X) / kappa

        else:
            s, iso = _local_scale(diagonal, isolated), isolated.astype(np.float64)

            def f(X: np.ndarray) -> np.ndarray:
                X = np.asarray(X, dtype=np.float64)
                s_ = s if X.ndim == 1 else s[:, None]
                i_ = iso if X.ndim == 1 else iso[:, None]
                return s_ * apply(s_ * X) + i_ * X

    return LinearOperator(
        (V, V), matvec=f, rmatvec=f, matmat=f, rmatmat=f, dtype=np.dtype(np.float64)
    )
