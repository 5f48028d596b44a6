"""Ising structure learning: L1-regularised logistic regression of each node on the others.

In the Ising model ``p(z) ∝ exp(sum_i h_i z_i + sum_{(i,j) in E} J_ij z_i z_j)``, ``z in
{0, 1}^p`` (lecture notes), the conditional law of one node given the rest is logistic,
``P(z_s = 1 | z_{-s}) = sigma(h_s + sum_t J_st z_t)``, so an L1-penalised logistic
regression of ``z_s`` on the other nodes estimates the neighbourhood of ``s``; ``s`` and
``t`` are joined when both regressions select the other (``rule="and"``) or either does
(``"or"``) (Ravikumar, Wainwright & Lafferty 2010). The sample size it needs on a graph of
maximum degree ``d`` over ``p`` nodes scales as ``d^3 log p`` (lecture notes).

Data for it come from the library's Gibbs sampler,
:func:`kernelkit.pgm.sampling.gibbs_sample` on :func:`kernelkit.pgm.model.ising`, whose
samples are in ``{0, 1}`` (with ``spins="pm1"`` the values 0, 1 stand for -1, +1).

Examples
--------
>>> import networkx as nx
>>> from kernelkit.pgm.model import ising
>>> from kernelkit.pgm.sampling import gibbs_sample
>>> G = nx.cycle_graph(6)
>>> model = ising(G, fields=-1.0, couplings=2.0)
>>> Z = gibbs_sample(model, 3000, burn_in=200, random_state=0).samples
>>> res = ising_neighbourhood_selection(Z, C=0.05, rule="and", random_state=0)
>>> sorted(res.graph.edges) == sorted(G.edges)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._threads import resolve_n_jobs, run_in_threads
from kernelkit._validation import check_in, check_int, check_n_jobs, check_random_state
from kernelkit.structure._support import (
    check_data,
    check_penalty,
    check_rule,
    combine,
    graph_from_adjacency,
)

__all__ = ["IsingSelectionResult", "ising_neighbourhood_selection"]


@dataclass(frozen=True, eq=False)
class IsingSelectionResult:
    """The result of :func:`ising_neighbourhood_selection`.

    Attributes
    ----------
    graph : networkx.Graph
        Nodes ``0 .. p-1`` (the columns of ``Z``); the edges chosen by ``rule``, with
        attribute ``weight`` ``(B_st + B_ts) / 2``, an estimate of the coupling ``J_st``.
    adjacency : ndarray of bool, shape (p, p)
        The graph as a symmetric boolean matrix.
    coefficients : ndarray of shape (p, p)
        ``B``: row ``s`` holds the L1-logistic coefficients of node ``s`` on the others
        (``B_ss = 0``), in the parametrisation of :func:`kernelkit.pgm.model.ising` with
        the same ``spins``: they estimate the couplings ``J_st`` (for ``"pm1"`` the
        logistic log-odds are ``2 h_s + 2 sum_t J_st sigma_t``, and half the fitted
        coefficients are reported). Rows and columns of constant nodes are 0.
    intercepts : ndarray of shape (p,)
        Estimates of the fields ``h_s``; NaN for a constant node (its log-odds are
        infinite).
    constant : ndarray of bool, shape (p,)
        The nodes that never vary in ``Z``: no regression is fitted for them, they are
        left out of the others' regressions, and they get no edges.
    C : float
        The inverse penalty used.
    rule : {"and", "or"}
    spins : {"01", "pm1"}
    n_iter : ndarray of int, shape (p,)
        Solver iterations of each regression (0 for a constant node).
    converged : bool
        Whether every regression stopped before ``max_iter`` iterations.
    """

    graph: Any
    adjacency: np.ndarray
    coefficients: np.ndarray
    intercepts: np.ndarray
    constant: np.ndarray
    C: float
    rule: str
    spins: str
    n_iter: np.ndarray
    converged: bool


def ising_neighbourhood_selection(
    Z: Any,
    C: Any,
    *,
    rule: str = "and",
    spins: str = "01",
    solver: str = "liblinear",
    tol: float = 1e-4,
    max_iter: int = 1000,
    random_state: Any = None,
    n_jobs: Any = None,
) -> IsingSelectionResult:
    """The graph of an Ising model by L1 logistic regression of each node on the others.

    For each node ``s`` scikit-learn's :class:`~sklearn.linear_model.LogisticRegression`
    (``l1_ratio=1``: the L1 penalty) minimises ``C sum_i log-loss_i + ||b||_1`` for
    ``z_s`` on ``z_{-s}``; the selected neighbourhoods are combined by ``rule`` (the
    lecture notes, "Ising structure learning").

    Parameters
    ----------
    Z : array-like of shape (n_samples, p)
        Binary samples. With ``spins="01"`` the values are ``{0, 1}``; with
        ``spins="pm1"`` they are ``{-1, +1}``, or ``{0, 1}`` read as
        :func:`kernelkit.pgm.sampling.gibbs_sample` codes the spins of a ``"pm1"`` model
        (0 for -1, 1 for +1), so its samples can be passed as they are. Any other value
        (or a mix such as ``{-1, 0, 1}``) is an error. A constant column (a node that never
        varies) is allowed and gets no edges (see ``IsingSelectionResult.constant``).
    C : float > 0
        The inverse penalty, as scikit-learn's ``C``. Theory's penalty ``lambda`` on the
        mean log-loss (``lambda`` proportional to ``sqrt(log p / n_samples)``) is
        ``C = 1 / (n_samples lambda)``.
    rule : {"and", "or"}, default="and"
    spins : {"01", "pm1"}, default="01"
        The Ising parametrisation (as :func:`kernelkit.pgm.model.ising`): the regressions
        use ``z in {0, 1}`` or ``sigma in {-1, +1}`` as predictors, and the coefficients
        estimate the couplings of that parametrisation. The centred ``"pm1"`` predictors
        usually need fewer samples at the same ``C``.
    solver : {"liblinear", "saga"}, default="liblinear"
        scikit-learn's solvers with an L1 penalty. liblinear penalises the intercept
        too (scikit-learn's ``intercept_scaling=1``); saga does not, and is slower.
    tol : float > 0, default=1e-4
        The stopping tolerance of scikit-learn's solver.
    max_iter : int >= 1, default=1000
        The most solver iterations per regression.
    random_state : None, int, RandomState or Generator
        Seeds the solvers' coordinate orders (one seed per node, drawn up front, so the
        result does not depend on ``n_jobs``); the same value gives the same numbers.
    n_jobs : int, optional
        Threads over the ``p`` regressions with ``solver="saga"``; None is one thread, -1
        all CPUs. liblinear draws its coordinate orders from one process-wide generator
        (C's ``srand``), so that threads would race for it and the numbers would depend
        on timing: its regressions run one after another whatever ``n_jobs``.

    Returns
    -------
    IsingSelectionResult
        ``graph``, ``adjacency``, ``coefficients``, ``intercepts``, ``constant``, ``C``,
        ``rule``, ``spins``, ``n_iter``, ``converged``.

    Raises
    ------
    ValueError
        ``Z`` not binary in the coding ``spins`` names (the message says which value and
        column); fewer than 2 samples or nodes; ``C`` not > 0; a bad ``rule``, ``spins``
        or ``solver``.
    TypeError
        Non-numeric ``Z`` or ``C``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> z0 = rng.randint(0, 2, 400)
    >>> z1 = np.where(rng.random_sample(400) < 0.9, z0, 1 - z0)  # a noisy copy of z0
    >>> Z = np.column_stack([z0, z1, rng.randint(0, 2, 400), np.ones(400)])
    >>> res = ising_neighbourhood_selection(Z, C=0.05, random_state=0)
    >>> sorted(res.graph.edges), res.constant.tolist()
    ([(0, 1)], [False, False, False, True])
    """
    from sklearn.linear_model import LogisticRegression

    check_in(spins, "spins", ["01", "pm1"])
    Z = check_data(Z, "Z")
    C = check_penalty(C, "C")
    rule = check_rule(rule)
    check_in(solver, "solver", ["liblinear", "saga"])
    tol = check_penalty(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    rng = check_random_state(random_state)
    n_jobs = check_n_jobs(n_jobs)
    workers = 1 if n_jobs is None or solver == "liblinear" else resolve_n_jobs(n_jobs)
    Z = _spins_as_signs(Z) if spins == "pm1" else _check_binary(Z, (0.0, 1.0), spins)
    p = Z.shape[1]
    y = Z == 1.0  # the targets: z_s = 1 (sigma_s = +1)
    constant = np.all(y, axis=0) | ~np.any(y, axis=0)
    varying = np.flatnonzero(~constant)
    # pm1: log-odds of sigma_s = +1 are 2 h_s + 2 sum_t J_st sigma_t, so halve the fit
    unit = 0.5 if spins == "pm1" else 1.0
    seeds = rng.randint(0, 2**31 - 1, size=p)
    coefficients = np.zeros((p, p))
    intercepts = np.full(p, np.nan)
    n_iter = np.zeros(p, dtype=np.int64)

    def fit(s: int) -> None:
        rest = varying[varying != s]
        if rest.size == 0:  # nothing varies beside s: the log-odds of its mean
            q = float(y[:, s].mean())
            intercepts[s] = unit * np.log(q / (1.0 - q))
            return
        clf = LogisticRegression(
            C=C,
            l1_ratio=1.0,
            solver=solver,
            tol=tol,
            max_iter=max_iter,
            random_state=int(seeds[s]),
        )
        clf.fit(Z[:, rest], y[:, s])
        coefficients[s, rest] = unit * clf.coef_[0]
        intercepts[s] = unit * clf.intercept_[0]
        n_iter[s] = int(np.max(clf.n_iter_))

    run_in_threads(fit, varying.tolist(), workers)
    adjacency = combine(coefficients, rule)
    graph = graph_from_adjacency(adjacency, weight=(coefficients + coefficients.T) / 2)
    return IsingSelectionResult(
        graph=graph,
        adjacency=adjacency,
        coefficients=coefficients,
        intercepts=intercepts,
        constant=constant,
        C=C,
        rule=rule,
        spins=spins,
        n_iter=n_iter,
        converged=bool(np.all(n_iter < max_iter)),
    )


def _check_binary(Z: np.ndarray, values: tuple[float, float], spins: str) -> np.ndarray:
    """``Z`` itself when every entry is one of ``values``; else a ValueError that names the
    first other value and where it is."""
    bad = (Z != values[0]) & (Z != values[1])
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        accepted = "{0, 1}" if spins == "01" else "{-1, +1} or {0, 1} (0 standing for -1)"
        hint = " (for +-1 data pass spins='pm1')" if spins == "01" and Z[i, j] == -1 else ""
        raise ValueError(
            f"Z must hold binary Ising data in {accepted} (spins={spins!r}); column {j} "
            f"has the value {Z[i, j]:g} in row {i}{hint}"
        )
    return Z


def _spins_as_signs(Z: np.ndarray) -> np.ndarray:
    """``+-1`` spins from ``Z`` in ``{-1, +1}``, or in ``{0, 1}`` read as pgm's coding of
    ``spins="pm1"`` (0 for -1, 1 for +1)."""
    if np.all((Z == 0.0) | (Z == 1.0)):
        return 2.0 * Z - 1.0
    return _check_binary(Z, (-1.0, 1.0), "pm1")
