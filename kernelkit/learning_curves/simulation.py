"""Numerically exact GP learning curves on random graphs, by simulation.

GP regression on the ``V`` vertices of a graph with prior covariance ``C`` (a kernel on
vertices) and Gaussian noise of variance ``sigma2 = noise``. ``N = nu V`` inputs drawn
uniformly from the vertices put ``gamma_i ~ Poisson(nu)`` examples on vertex ``i``,
independently (Urry & Sollich 2013, Sec. 3). With ``G = diag(gamma)`` the posterior
covariance is ``(C^{-1} + G / sigma2)^{-1}`` (eq. 10); only the ``m`` vertices ``J`` with
``gamma_i > 0`` enter, through the ``m x m`` matrix ``B = C_JJ + sigma2 G_J^{-1}``
(the ``gamma_j`` examples on vertex ``j`` act as one observation with noise
``sigma2 / gamma_j``)::

    Sigma = C - C_{:,J} B^{-1} C_{J,:}

which needs no inverse of ``C`` (singular for ``a = 2`` on a bipartite component) and is
exact for any ``gamma``. On ``J`` itself ``C_JJ = B - N`` (``N = sigma2 G_J^{-1}``)
gives ``Sigma_ii = N_i - N_i^2 (B^{-1})_ii`` (where ``N_i > C_ii``, a noise-dominated
vertex, that difference cancels, and ``C_ii - ||L^{-1} C_{J,i}||^2`` is used instead),
so per data set the work is one Cholesky
factor of ``B`` and its inverse (``2 m^3 / 3`` flops) for the vertices with examples and
one triangular solve with the ``m x (V - m)`` block ``C_{J,K}`` for the others: never
the ``N x N`` matrix of a per-example implementation (``N = nu V`` can be far larger
than ``V``). The kernel matrix is computed once per graph and reused for every ``nu``
and data set; an eigendecomposition of ``C`` would not help, since ``G`` changes with
every data set and does not commute with ``C``.

**Matched case** (teacher prior = student prior, true noise = assumed noise): the
generalisation error is the Bayes error ``epsilon``, the posterior variance averaged over
vertices, data sets and graphs (eq. 12).

**Mismatch** (Sec. 5, Figs. 7-8): the teacher draws ``f ~ N(0, C_T)`` and adds noise of
variance ``sigma2``; the student predicts with the posterior mean of its own prior
``C_S`` (same ``sigma2``), ``f_hat = A y_bar`` with ``A = C_S{:,J} B_S^{-1}`` and
``y_bar_J`` the per-vertex means of the data. Averaged over teacher and noise, the error
at vertex ``i`` is::

    E[(f_i - f_hat_i)^2] = C_T,ii - 2 (A C_T,{J,:})_ii + (A (C_T,JJ + sigma2 G_J^{-1}) A^T)_ii

which is the posterior variance when ``C_T = C_S``.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import LinAlgError
from scipy.linalg.blas import dtrsm
from scipy.linalg.lapack import dpotrf, dtrtri

from kernelkit._memory import check_memory
from kernelkit._threads import blas_threads_for, one_blas_thread, resolve_n_jobs, run_in_threads
from kernelkit._validation import (
    check_int,
    check_n_jobs,
    check_positive_scalar,
    check_random_state,
)
from kernelkit.distributed import map_tasks
from kernelkit.graphs import SingularKernelWarning

__all__ = ["LearningCurve", "simulate"]

#: Largest number of examples per vertex: NumPy draws Poisson counts as 64-bit integers
#: (up to about 9.2e18).
_MAX_NU = 1e18


@dataclass(frozen=True)
class LearningCurve:
    """A simulated learning curve (see :func:`simulate`).

    Attributes
    ----------
    nus : ndarray of shape (n_nus,)
        Examples per vertex, ``nu = N / V``, in the order asked for.
    epsilon : ndarray of shape (n_nus,)
        The generalisation error averaged over vertices, data sets and graphs; in the
        matched case the Bayes error (Urry & Sollich 2013, eq. 12).
    stderr : ndarray of shape (n_nus,)
        Standard error of ``epsilon``: of the ``n_graphs`` per-graph means when
        ``n_graphs >= 2`` (graphs are the independent units), else of the
        ``n_datasets`` per-data-set errors on the one graph; NaN when both are 1.
    errors : ndarray of shape (n_graphs, n_datasets, n_nus)
        The error of each data set (averaged over vertices).
    vertex_errors : ndarray of shape (n_graphs, n_datasets, n_nus, V)
        The error at each vertex for each data set: the posterior variance in the
        matched case (for histograms of local posterior variances, Fig. 6, and their
        variance across vertices, Fig. 9).
    noise : float
        The noise variance ``sigma2`` (of the teacher and of the student).
    matched : bool
        Whether teacher and student share one kernel.
    n_graphs, n_datasets : int
        Graphs drawn, data sets per graph and ``nu``.
    """

    nus: np.ndarray
    epsilon: np.ndarray
    stderr: np.ndarray
    errors: np.ndarray
    vertex_errors: np.ndarray
    noise: float
    matched: bool
    n_graphs: int
    n_datasets: int


def simulate(
    ensemble: Callable[..., Any],
    kernel: Callable[[Any], np.ndarray] | tuple[Callable[[Any], np.ndarray], ...],
    noise: Any,
    nus: Any,
    *,
    n_graphs: int = 10,
    n_datasets: int = 10,
    random_state: Any = None,
    n_jobs: int | None = None,
    client: Any = None,
) -> LearningCurve:
    """Learning curves of GP regression on random graphs by exact simulation.

    For each of ``n_graphs`` graphs drawn from ``ensemble``, the kernel matrix is
    computed once; for each ``nu`` and each of ``n_datasets`` data sets the example
    counts ``gamma_i ~ Poisson(nu)`` are drawn independently per vertex and the error at
    every vertex is computed exactly (Urry & Sollich 2013, eqs. 10-12; see the module
    docstring for the formulas). Cost per data set: ``2 m^3 / 3 + m^2 (V - m)`` flops
    with ``m`` the number of vertices holding examples (``m^3 / 3 + 4 m^2 V`` with
    mismatch).

    Parameters
    ----------
    ensemble : callable
        ``ensemble(random_state=seed) -> graph``, called once per graph with an integer
        seed, e.g. ``functools.partial(random_regular_graph, 3, 500)``
        (:mod:`kernelkit.graphs.ensembles`). For one fixed graph ``G`` use
        ``lambda random_state: G`` (with ``n_graphs=1``).
    kernel : callable or (callable, callable)
        ``kernel(graph) -> ndarray (V, V)``, the prior covariance on the vertices (same
        ``V`` for every graph), e.g. ``functools.partial(random_walk_kernel, a=2.0,
        p=10, normalize="global")``: the matched case. A pair ``(student, teacher)`` of
        such callables gives the mismatched case (eg. a globally normalised student
        learning from a locally normalised teacher, Figs. 7-8).
    noise : float
        The noise variance ``sigma2 > 0``, of the data and assumed by the student.
    nus : float or array-like of shape (n_nus,)
        Examples per vertex, ``nu = N / V >= 0``.
    n_graphs : int, default=10
        Graphs drawn from the ensemble, ``>= 1``.
    n_datasets : int, default=10
        Data sets per graph and ``nu``, ``>= 1``.
    random_state : None, int, RandomState or Generator
        Seeds the graphs and the example counts (reproducible for an int).
    n_jobs : int or None, default=None
        Threads over the data sets of a graph, each on one BLAS thread; ``None``: as
        many as BLAS uses, ``-1``: all CPUs. The result does not depend on it. With a
        client, the threads of each task, resolved on its worker (Dask's workers run
        BLAS on one thread, so ``None`` means one).
    client : None or dask.distributed.Client, default=None
        ``None``: the graphs are simulated here, one after the other. A client
        (:func:`kernelkit.distributed.dask_client`): one task per graph on its workers
        (:func:`kernelkit.distributed.map_tasks`), ``ensemble`` and ``kernel`` sent to
        them pickled. Each graph, and its example counts, is drawn from its own seed
        taken from ``random_state``, so the result is the same with and without a
        client (to the last bit of rounding, which can differ where another process
        lays out its arrays differently).

    Returns
    -------
    LearningCurve
        The mean error and its standard error at each ``nu``, with the error of every data
        set and vertex.

    Raises
    ------
    ValueError
        ``noise <= 0``, a negative, non-finite or above ``1e18`` ``nu``, ``n_graphs < 1``
        or ``n_datasets < 1``; a kernel matrix that is not square, symmetric, finite and
        positive semi-definite, or whose size changes between graphs; errors to keep
        that would need more memory than the machine has.
    TypeError
        ``ensemble`` or a kernel not callable; ``n_graphs``/``n_datasets`` not integers.

    See Also
    --------
    kernelkit.learning_curves.eigenvalue_approximation : Urry & Sollich (2013) eq. 18 on
        a graph's spectrum.

    Examples
    --------
    Globally normalised random walk kernel on random 3-regular graphs (Fig. 3, left,
    with small sizes): ``epsilon(0) = 1`` and the error falls with ``nu``.

    >>> import functools
    >>> from kernelkit.graphs import random_regular_graph, random_walk_kernel
    >>> ensemble = functools.partial(random_regular_graph, 3, 60)
    >>> kernel = functools.partial(random_walk_kernel, a=2.0, p=5, normalize="global")
    >>> curve = simulate(ensemble, kernel, noise=0.1, nus=[0.0, 1.0, 10.0],
    ...                  n_graphs=3, n_datasets=4, random_state=0)
    >>> curve.epsilon.round(3).tolist()
    [1.0, 0.118, 0.007]
    >>> curve.vertex_errors.shape
    (3, 4, 3, 60)

    A globally normalised student learning from a locally normalised teacher:

    >>> local = functools.partial(random_walk_kernel, a=2.0, p=5, normalize="local")
    >>> mismatch = simulate(ensemble, (kernel, local), noise=0.1, nus=[1.0],
    ...                     n_graphs=3, n_datasets=4, random_state=0)
    >>> mismatch.matched
    False
    """
    student, teacher = _check_kernels(kernel)
    if not callable(ensemble):
        raise TypeError(
            "ensemble must be a callable random_state -> graph (e.g. "
            "functools.partial(random_regular_graph, 3, 500)), got "
            f"{type(ensemble).__name__}; for one fixed graph G pass lambda random_state: G"
        )
    noise = check_positive_scalar(noise, "noise")
    nus = _check_nus(nus)
    if nus.max() > _MAX_NU:
        raise ValueError(
            f"nus must be at most {_MAX_NU:g} for the simulation (the example counts are "
            f"drawn as 64-bit integers), got {float(nus.max())!r}"
        )
    n_graphs = check_int(n_graphs, "n_graphs", minimum=1)
    n_datasets = check_int(n_datasets, "n_datasets", minimum=1)
    n_jobs = check_n_jobs(n_jobs)
    # the seeds, and the errors of at least one vertex per graph, data set and nu (twice:
    # per graph, then stacked); the exact size is checked once V is known
    check_memory(
        16 * n_graphs + 16 * n_graphs * n_datasets * nus.size,
        f"simulate(n_graphs={n_graphs}, n_datasets={n_datasets}, {nus.size} nus)",
        "use fewer graphs, data sets or values of nu",
    )
    rng = check_random_state(random_state)
    seeds = rng.randint(0, 2**32 - 1, size=(n_graphs, 2), dtype=np.int64)
    matched = teacher is None
    # One task per graph, seeded by its own pair of seeds: the result does not depend on
    # where (this process, any worker) or in which order the graphs are simulated.
    per_graph = map_tasks(
        functools.partial(
            _simulate_graph,
            ensemble=ensemble,
            student=student,
            teacher=teacher,
            noise=noise,
            nus=nus,
            n_graphs=n_graphs,
            n_datasets=n_datasets,
            n_jobs=n_jobs,
        ),
        [(int(graph_seed), int(data_seed)) for graph_seed, data_seed in seeds],
        client=client,
        desc="simulate",
    )
    n_vertices = per_graph[0].shape[-1]
    for errors_g in per_graph[1:]:
        if errors_g.shape[-1] != n_vertices:
            raise ValueError(
                "every graph of the ensemble must have the same number of vertices, got "
                f"{n_vertices} and then {errors_g.shape[-1]}"
            )
    vertex_errors = np.stack(per_graph)
    del per_graph
    errors = vertex_errors.mean(axis=3)
    return LearningCurve(
        nus=nus,
        epsilon=errors.mean(axis=(0, 1)),
        stderr=_standard_error(errors),
        errors=errors,
        vertex_errors=vertex_errors,
        noise=noise,
        matched=matched,
        n_graphs=n_graphs,
        n_datasets=n_datasets,
    )


# -- one graph ---------------------------------------------------------------------------


def _simulate_graph(
    seeds: tuple[int, int],
    *,
    ensemble: Callable[..., Any],
    student: Callable[[Any], Any],
    teacher: Callable[[Any], Any] | None,
    noise: float,
    nus: np.ndarray,
    n_graphs: int,
    n_datasets: int,
    n_jobs: int | None,
) -> np.ndarray:
    """The errors ``(n_datasets, n_nus, V)`` at every vertex of the graph drawn with
    ``seeds[0]``, for the example counts drawn with ``seeds[1]``: one task of
    :func:`simulate`."""
    graph_seed, data_seed = seeds
    matched = teacher is None
    graph = ensemble(random_state=graph_seed)
    with warnings.catch_warnings():
        # a singular prior (a = 2 on bipartite components: every tree component of an
        # Erdos-Renyi graph) is harmless here: noise > 0 makes C_JJ + noise / gamma
        # positive definite
        warnings.simplefilter("ignore", SingularKernelWarning)
        C_s = _kernel_matrix(student(graph), "the kernel" if matched else "the student kernel")
        C_t = C_s if teacher is None else _kernel_matrix(teacher(graph), "the teacher kernel")
    if C_t.shape != C_s.shape:
        raise ValueError(
            f"the student and teacher kernels must have one shape, got {C_s.shape} and {C_t.shape}"
        )
    n_vertices = C_s.shape[0]
    shape = (n_graphs, n_datasets, nus.size, n_vertices)
    check_memory(  # the errors of every graph, then stacked into one array
        2 * 8 * math.prod(shape),
        f"simulate: per-vertex errors of shape {shape}",
        "use fewer graphs, data sets or values of nu",
    )
    data_rng = np.random.RandomState(data_seed)
    gammas = data_rng.poisson(nus[None, :, None], size=(n_datasets, nus.size, n_vertices))
    out = np.empty((n_datasets, nus.size, n_vertices))

    def work(item: tuple[int, int]) -> None:
        s, k = item
        if matched:
            out[s, k] = _posterior_variance(C_s, gammas[s, k], noise)
        else:
            out[s, k] = _mismatch_error(C_s, C_t, gammas[s, k], noise)

    n_threads = resolve_n_jobs(n_jobs)
    items = [(s, k) for s in range(n_datasets) for k in range(nus.size)]
    # Small factorisations run on one BLAS thread each (kernelkit._threads).
    with one_blas_thread() if n_threads > 1 else blas_threads_for(n_vertices):
        run_in_threads(work, items, n_threads)
    return out


# -- one data set ------------------------------------------------------------------------


def _cholesky(C: np.ndarray, J: np.ndarray, gamma: np.ndarray, noise: float) -> np.ndarray:
    """Lower Cholesky factor (Fortran order) of ``C_JJ + noise diag(1 / gamma_J)``."""
    B = C[np.ix_(J, J)]
    B[np.diag_indices_from(B)] += noise / gamma[J]
    # B is symmetric, so its transpose is the same matrix in Fortran order (no copy).
    L, info = dpotrf(B.T, lower=1, clean=1, overwrite_a=1)
    if info != 0:
        raise ValueError(
            "the kernel matrix is not positive semi-definite (Cholesky factorisation of "
            "C_JJ + noise / gamma failed); a random walk kernel needs a >= 2"
        )
    return L


def _solve_right(L: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``X L^{-T}`` for a Fortran-ordered ``X`` (a view of rows of ``C``: no copy)."""
    return dtrsm(1.0, L, X, side=1, lower=1, trans_a=1)


def _posterior_variance(C: np.ndarray, gamma: np.ndarray, noise: float) -> np.ndarray:
    """``diag(C - C_{:,J} B^{-1} C_{J,:})``, ``B = C_JJ + N``, ``N = noise / gamma_J`` (eq. 10).

    On ``J`` itself ``C_JJ = B - N`` gives ``Sigma_ii = N_i - N_i^2 (B^{-1})_ii``: the
    diagonal of ``B^{-1}`` from the inverse Cholesky factor (``m^3 / 3`` flops) instead
    of a triangular solve with all ``V`` columns (``m^2 V``); only the ``V - m``
    vertices without examples need the solve.
    """
    J = np.flatnonzero(gamma)
    var = np.diag(C).copy()
    if J.size == 0:
        return var
    L = _cholesky(C, J, gamma, noise)
    L_inv, info = dtrtri(L, lower=1)
    if info != 0:  # pragma: no cover - a Cholesky factor has a positive diagonal
        raise LinAlgError("triangular inverse of the Cholesky factor failed")
    n = noise / gamma[J]
    # n (1 - n (B^-1)_ii), n (B^-1)_ii <= 1: no n^2 to overflow
    var[J] = n * (1.0 - n * np.einsum("ij,ij->j", L_inv, L_inv))
    noisy = n > np.diag(C)[J]
    if noisy.any():
        # where the noise dominates, Sigma_ii is close to C_ii and N - N B^-1 N cancels
        # (to nothing at noise = 1e300): C_ii - ||L^-1 C_{J,i}||^2 has no cancellation
        I = J[noisy]
        Y = _solve_right(L, C[np.ix_(J, I)].T)  # (|I|, m): C_{I,J} L^{-T}
        var[I] = np.diag(C)[I] - np.einsum("ij,ij->i", Y, Y)
    K = np.flatnonzero(gamma == 0)
    if K.size:
        Y = _solve_right(L, C[np.ix_(J, K)].T)  # (V - m, m): C_{K,J} L^{-T}
        var[K] -= np.einsum("ij,ij->i", Y, Y)
    # Posterior variances lie in [0, C_ii]; only rounding can push one below 0.
    return np.maximum(var, 0.0)


def _mismatch_error(
    C_s: np.ndarray, C_t: np.ndarray, gamma: np.ndarray, noise: float
) -> np.ndarray:
    """Per-vertex ``E[(f_i - f_hat_i)^2]``, teacher ``C_t``, student ``C_s``."""
    J = np.flatnonzero(gamma)
    diag = np.diag(C_t).copy()
    if J.size == 0:
        return diag
    L = _cholesky(C_s, J, gamma, noise)
    Y_s = _solve_right(L, C_s[J].T)  # A = Y_s L^{-1}
    Y_t = _solve_right(L, C_t[J].T)  # (L^{-1} C_T,{J,:})^T
    K_t = C_t[np.ix_(J, J)]
    K_t[np.diag_indices_from(K_t)] += noise / gamma[J]
    # R = L^{-1} K_t L^{-T}: K_t symmetric, so (K_t L^{-T})^T L^{-T} = R.
    R = _solve_right(L, np.asfortranarray(_solve_right(L, K_t.T).T))
    cross = np.einsum("ij,ij->i", Y_s, Y_t)
    spread = np.einsum("ij,ij->i", Y_s @ R, Y_s)
    return diag - 2.0 * cross + spread


def _standard_error(errors: np.ndarray) -> np.ndarray:
    n_graphs, n_datasets, n_nus = errors.shape
    if n_graphs >= 2:
        means = errors.mean(axis=1)
        return means.std(axis=0, ddof=1) / math.sqrt(n_graphs)
    if n_datasets >= 2:
        return errors[0].std(axis=0, ddof=1) / math.sqrt(n_datasets)
    return np.full(n_nus, np.nan)


# -- validation --------------------------------------------------------------------------


def _check_kernels(kernel: Any) -> tuple[Callable[[Any], Any], Callable[[Any], Any] | None]:
    if isinstance(kernel, tuple):
        if len(kernel) != 2 or not all(callable(k) for k in kernel):
            raise TypeError(
                "kernel must be a callable graph -> (V, V) matrix or a pair (student, "
                f"teacher) of such callables, got a tuple of length {len(kernel)}"
            )
        return kernel[0], kernel[1]
    if not callable(kernel):
        raise TypeError(
            "kernel must be a callable graph -> (V, V) matrix (e.g. functools.partial("
            "random_walk_kernel, a=2.0, p=10, normalize='global')) or a pair (student, "
            f"teacher) of such callables, got {type(kernel).__name__}"
        )
    return kernel, None


def _check_nus(nus: Any) -> np.ndarray:
    """``nus`` (a number or a 1-D array of numbers of examples per vertex, each finite and
    >= 0) as a read-only float array; shared by the simulation, the eigenvalue
    approximation and the cavity method."""
    if isinstance(nus, (str, bytes)) or nus is None:
        raise TypeError(f"nus must be a number or an array of numbers, got {type(nus).__name__}")
    arr = np.asarray(nus)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"nus must be real numbers, got dtype {arr.dtype}")
    arr = np.atleast_1d(arr.astype(np.float64))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"nus must be a non-empty 1-D array, got shape {np.shape(nus)}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"nus must be finite and >= 0 (examples per vertex), got {nus!r}")
    arr.flags.writeable = False
    return arr


def _kernel_matrix(C: Any, what: str) -> np.ndarray:
    C = np.asarray(C, dtype=np.float64)
    if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] == 0:
        raise ValueError(f"{what} must return a square (V, V) matrix, got shape {C.shape}")
    if not np.all(np.isfinite(C)):
        raise ValueError(f"{what} returned a matrix with non-finite entries")
    scale = float(np.abs(C).max())
    if not np.allclose(C, C.T, rtol=0.0, atol=1e-10 * scale):
        raise ValueError(f"{what} returned a matrix that is not symmetric")
    return np.ascontiguousarray(C)
