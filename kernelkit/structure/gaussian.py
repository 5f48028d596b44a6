"""Gaussian graphical models: the graph of a precision matrix from data.

For ``X ~ N(mu, Sigma)`` the zeros of the precision ``Omega = Sigma^{-1}`` are the missing
edges of the graph: ``Omega_jk = 0`` exactly when ``X_j`` and ``X_k`` are independent given
the other variables (lecture notes, "Gaussian graphical models"). Two estimators of the
graph:

* :func:`graphical_lasso` minimises ``tr(Omega S) - log det Omega + alpha sum_{j != k}
  |Omega_jk|`` over positive-definite ``Omega`` (``S`` the empirical covariance); it is
  scikit-learn's :class:`~sklearn.covariance.GraphicalLasso` (or
  :class:`~sklearn.covariance.GraphicalLassoCV` with ``alpha="cv"``) underneath, and
  adds the graph;
* :func:`neighbourhood_selection` (parallel lasso, Meinshausen & Bühlmann 2006) regresses
  each ``X_j`` on all the others with scikit-learn's :class:`~sklearn.linear_model.Lasso`
  and joins ``j`` and ``k`` when both regressions (``rule="and"``) or either
  (``rule="or"``) select the other.

The sample sizes they need on a graph of maximum degree ``d`` over ``p`` variables scale as
``d^2 log p`` (graphical lasso) and ``d log p`` (parallel lasso) (lecture notes; the
``structure-recovery`` experiment). Data can be drawn with
:func:`kernelkit.structure.sampling.sample_gaussian_graphical`.

Examples
--------
>>> from kernelkit.structure.sampling import (
...     random_gaussian_graphical_model, sample_gaussian_graphical)
>>> model = random_gaussian_graphical_model(10, 2, random_state=0)
>>> X = sample_gaussian_graphical(model.precision, 2000, random_state=0)
>>> res = graphical_lasso(X, alpha=0.2)
>>> sorted(res.graph.edges) == sorted(model.graph.edges)
True
>>> ns = neighbourhood_selection(X, alpha=0.2, rule="and")
>>> sorted(ns.graph.edges) == sorted(model.graph.edges)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._threads import resolve_n_jobs, run_in_threads
from kernelkit._validation import check_bool, check_in, check_int, check_n_jobs
from kernelkit.structure._support import (
    check_data,
    check_penalty,
    check_rule,
    combine,
    graph_from_adjacency,
)

__all__ = [
    "EDGE_TOL",
    "GraphicalLassoResult",
    "NeighbourhoodSelectionResult",
    "graphical_lasso",
    "neighbourhood_selection",
]

#: An edge of :func:`graphical_lasso`'s graph needs a partial correlation
#: ``|Omega_jk| / sqrt(Omega_jj Omega_kk)`` above this.
EDGE_TOL = 1e-8


@dataclass(frozen=True, eq=False)
class GraphicalLassoResult:
    """The result of :func:`graphical_lasso`.

    Attributes
    ----------
    precision : ndarray of shape (p, p)
        The estimated precision matrix ``Omega`` (scikit-learn's ``precision_``).
    covariance : ndarray of shape (p, p)
        The estimated covariance (scikit-learn's ``covariance_``), the inverse of
        ``precision``.
    graph : networkx.Graph
        Nodes ``0 .. p-1`` (the columns of ``X``); an edge ``(j, k)`` where the partial
        correlation ``|Omega_jk| / sqrt(Omega_jj Omega_kk)`` exceeds :data:`EDGE_TOL`,
        with attributes ``weight`` (``Omega_jk``) and ``partial_correlation``
        (``-Omega_jk / sqrt(Omega_jj Omega_kk)``).
    adjacency : ndarray of bool, shape (p, p)
        The graph as a symmetric boolean matrix (False on the diagonal).
    alpha : float
        The penalty used (the cross-validated one with ``alpha="cv"``).
    n_iter : int
        Iterations of the final fit.
    converged : bool
        Whether the final fit's duality gap fell below ``tol``.
    """

    precision: np.ndarray
    covariance: np.ndarray
    graph: Any
    adjacency: np.ndarray
    alpha: float
    n_iter: int
    converged: bool


@dataclass(frozen=True, eq=False)
class NeighbourhoodSelectionResult:
    """The result of :func:`neighbourhood_selection`.

    Attributes
    ----------
    graph : networkx.Graph
        Nodes ``0 .. p-1``; the edges chosen by ``rule``, with attribute ``weight``
        ``(B_jk + B_kj) / 2``.
    adjacency : ndarray of bool, shape (p, p)
        The graph as a symmetric boolean matrix.
    coefficients : ndarray of shape (p, p)
        ``B``: row ``j`` holds the lasso coefficients of ``X_j`` on the other columns
        (``B_jj = 0``). For Gaussian data ``B_jk`` estimates ``-Omega_jk / Omega_jj``.
    intercepts : ndarray of shape (p,)
        ``b_0`` of each regression, on the original (uncentred) scale.
    alpha : float
        The L1 penalty used.
    rule : {"and", "or"}
    n_iter : ndarray of int, shape (p,)
        Coordinate-descent sweeps of each regression.
    converged : bool
        Whether every regression stopped before ``max_iter`` sweeps (one that needed
        all of them counts as not converged; scikit-learn warns for it).
    """

    graph: Any
    adjacency: np.ndarray
    coefficients: np.ndarray
    intercepts: np.ndarray
    alpha: float
    rule: str
    n_iter: np.ndarray
    converged: bool


def graphical_lasso(
    X: Any,
    alpha: Any,
    *,
    alphas: Any = None,
    cv: Any = None,
    mode: str = "cd",
    tol: float = 1e-4,
    max_iter: int = 100,
    assume_centered: bool = False,
    n_jobs: Any = None,
) -> GraphicalLassoResult:
    """Sparse precision matrix and its graph by the graphical lasso.

    Minimises ``tr(Omega S) - log det Omega + alpha sum_{j != k} |Omega_jk|`` (the lecture
    notes) with scikit-learn's :class:`~sklearn.covariance.GraphicalLasso`; with
    ``alpha="cv"`` the penalty is chosen by :class:`~sklearn.covariance.GraphicalLassoCV`
    (held-out Gaussian log-likelihood). The numbers are scikit-learn's; the value added
    is the graph.

    Parameters
    ----------
    X : array-like of shape (n_samples, p)
        Samples in rows, variables in columns; at least 2 of each, no constant column.
    alpha : float > 0 or "cv"
        The L1 penalty on the off-diagonal entries, as in scikit-learn (theory suggests
        ``alpha`` proportional to ``sqrt(log p / n_samples)`` for standardised data), or
        ``"cv"`` to choose it by cross-validation. One argument keeps one meaning of
        ``alpha`` (the penalty, fixed or chosen); the value used is ``result.alpha``.
    alphas : int or array-like of float > 0, optional
        Only with ``alpha="cv"``: the grid size or the grid (scikit-learn's ``alphas``,
        default 4 with 4 refinements).
    cv : int, cross-validation generator or iterable, optional
        Only with ``alpha="cv"``: the folds (scikit-learn's ``cv``; default 5-fold).
    mode : {"cd", "lars"}, default="cd"
        The inner lasso solver.
    tol : float > 0, default=1e-4
        Stop when the duality gap is below this.
    max_iter : int >= 1, default=100
        The most iterations (scikit-learn's ``max_iter``).
    assume_centered : bool, default=False
        Whether ``X`` has mean zero (no centring).
    n_jobs : int, optional
        Threads for the cross-validation (``alpha="cv"`` only).

    Returns
    -------
    GraphicalLassoResult
        ``precision``, ``covariance``, ``graph``, ``adjacency``, ``alpha``, ``n_iter``,
        ``converged``.

    Raises
    ------
    ValueError
        ``alpha`` not > 0 and not "cv"; ``alphas`` or ``cv`` given with a fixed
        ``alpha``; fewer than 2 samples or variables; a constant column (zero variance:
        its precision would be infinite); a bad ``mode``, ``tol`` or ``max_iter``.
    TypeError
        Non-numeric ``X`` or ``alpha``.

    See Also
    --------
    neighbourhood_selection : The parallel lasso.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.RandomState(0).standard_normal((50, 4))
    >>> res = graphical_lasso(X, alpha=0.3)
    >>> res.precision.shape, res.graph.number_of_nodes(), res.converged
    ((4, 4), 4, True)
    >>> res.graph.number_of_edges()  # independent columns, large penalty
    0
    """
    from sklearn.covariance import GraphicalLasso, GraphicalLassoCV

    X = check_data(X, "X")
    use_cv = isinstance(alpha, str)
    if use_cv:
        check_in(alpha, "alpha", ["cv"])
    else:
        alpha = check_penalty(alpha, "alpha")
        if alphas is not None or cv is not None:
            raise ValueError(
                "alphas and cv are used only with alpha='cv'; with a fixed alpha leave "
                f"them None (got alphas={alphas!r}, cv={cv!r})"
            )
    check_in(mode, "mode", ["cd", "lars"])
    tol = check_penalty(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    assume_centered = check_bool(assume_centered, "assume_centered")
    n_jobs = check_n_jobs(n_jobs)
    variance = (X**2).mean(axis=0) if assume_centered else X.var(axis=0)
    constant = np.flatnonzero(variance <= 1e-12 * max(1.0, float(np.abs(X).max()) ** 2))
    if constant.size:
        raise ValueError(
            f"X has constant column(s) {constant.tolist()} (zero variance): the precision "
            "of a constant variable is infinite; drop those columns"
        )
    common = {"mode": mode, "tol": tol, "max_iter": max_iter, "assume_centered": assume_centered}
    est: Any
    if use_cv:
        est = GraphicalLassoCV(
            alphas=4 if alphas is None else alphas, cv=cv, n_jobs=n_jobs, **common
        )
    else:
        est = GraphicalLasso(alpha=alpha, **common)
    est.fit(X)
    used = float(est.alpha_ if use_cv else alpha)
    precision = est.precision_
    scale = np.sqrt(np.diag(precision))
    partial = -precision / np.outer(scale, scale)
    adjacency = np.abs(partial) > EDGE_TOL
    np.fill_diagonal(adjacency, False)
    graph = graph_from_adjacency(adjacency, weight=precision, partial_correlation=partial)
    costs = est.costs_
    gap = costs[-1][1] if isinstance(costs, list) else costs[1]  # alpha = 0: one pair
    return GraphicalLassoResult(
        precision=precision,
        covariance=est.covariance_,
        graph=graph,
        adjacency=adjacency,
        alpha=used,
        n_iter=int(est.n_iter_),
        converged=bool(abs(gap) < tol),
    )


def neighbourhood_selection(
    X: Any,
    alpha: Any,
    *,
    rule: str = "and",
    tol: float = 1e-4,
    max_iter: int = 1000,
    n_jobs: Any = None,
) -> NeighbourhoodSelectionResult:
    """The graph of a Gaussian graphical model by the parallel lasso (neighbourhood selection).

    Each column ``X_j`` is regressed on the others with scikit-learn's
    :class:`~sklearn.linear_model.Lasso`, minimising ``||X_j - b_0 - X_{-j} b||^2 / (2 n)
    + alpha ||b||_1``; ``j`` and ``k`` are joined when both regressions select the other
    (``rule="and"``) or either does (``"or"``) (Meinshausen & Bühlmann 2006; the
    lecture notes). The fits are scikit-learn's :func:`~sklearn.linear_model.lasso_path` at
    the one penalty (what ``Lasso.fit`` calls), on the centred data, with the Gram
    matrix formed once and shared (scikit-learn's ``precompute``): a sweep of each fit
    costs ``O(p^2)``, not ``O(n p)``, and the per-call input checks are done once.

    Parameters
    ----------
    X : array-like of shape (n_samples, p)
        At least 2 samples and 2 variables. A constant column is allowed: it is
        predicted by its mean and predicts nothing, so it gets no edges.
    alpha : float > 0
        The L1 penalty, as scikit-learn's ``Lasso`` (theory: ``alpha`` proportional to
        ``sigma sqrt(log p / n_samples)``). Columns on different scales are penalised
        differently: standardise them first if that is not wanted.
    rule : {"and", "or"}, default="and"
    tol : float > 0, default=1e-4
        The duality-gap tolerance of scikit-learn's coordinate descent.
    max_iter : int >= 1, default=1000
        Coordinate-descent sweeps per regression.
    n_jobs : int, optional
        Threads over the ``p`` regressions (scikit-learn's coordinate descent releases
        the GIL); None is one thread, -1 all CPUs. The result does not depend on it.

    Returns
    -------
    NeighbourhoodSelectionResult
        ``graph``, ``adjacency``, ``coefficients``, ``intercepts``, ``alpha``, ``rule``,
        ``n_iter``, ``converged``.

    Raises
    ------
    ValueError
        ``alpha`` not > 0; a ``rule`` other than "and" / "or"; fewer than 2 samples or
        variables.
    TypeError
        Non-numeric ``X`` or ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> z = rng.standard_normal((500, 1))
    >>> X = np.hstack([z + 0.3 * rng.standard_normal((500, 2)), rng.standard_normal((500, 1))])
    >>> res = neighbourhood_selection(X, alpha=0.1)
    >>> sorted(res.graph.edges), res.coefficients.shape
    ([(0, 1)], (3, 3))
    """
    from sklearn.linear_model import lasso_path

    X = check_data(X, "X")
    alpha = check_penalty(alpha, "alpha")
    rule = check_rule(rule)
    tol = check_penalty(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    workers = 1 if n_jobs is None else resolve_n_jobs(check_n_jobs(n_jobs))
    p = X.shape[1]
    mean = X.mean(axis=0)
    Xc = X - mean
    gram = Xc.T @ Xc
    coefficients = np.zeros((p, p))
    n_iter = np.zeros(p, dtype=np.int64)

    def fit(j: int) -> None:
        rest = np.arange(p) != j
        design = np.asfortranarray(Xc[:, rest])
        # scikit-learn's Lasso.fit without its per-call checks: X is centred (the
        # intercept is restored below) and its Gram matrix shared
        _, coef, _, iters = lasso_path(
            design,
            Xc[:, j],
            alphas=[alpha],
            precompute=np.ascontiguousarray(gram[np.ix_(rest, rest)]),
            Xy=design.T @ Xc[:, j],
            return_n_iter=True,
            check_input=False,
            tol=tol,
            max_iter=max_iter,
        )
        coefficients[j, rest] = coef[:, 0]
        n_iter[j] = iters[0]

    run_in_threads(fit, list(range(p)), workers)
    intercepts = mean - (coefficients * mean[None, :]).sum(axis=1)
    adjacency = combine(coefficients, rule)
    graph = graph_from_adjacency(adjacency, weight=(coefficients + coefficients.T) / 2)
    return NeighbourhoodSelectionResult(
        graph=graph,
        adjacency=adjacency,
        coefficients=coefficients,
        intercepts=intercepts,
        alpha=alpha,
        rule=rule,
        n_iter=n_iter,
        converged=bool(np.all(n_iter < max_iter)),
    )
