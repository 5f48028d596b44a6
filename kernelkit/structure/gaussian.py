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

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._threads import resolve_n_jobs, run_in_threads
from kernelkit._validation import (
    check_array,
    check_bool,
    check_in,
    check_int,
    check_n_jobs,
    check_positive,
)
from kernelkit.structure._support import (
    check_data,
    check_penalty,
    check_rule,
    combine,
    graph_from_adjacency,
    relative_variance,
    tame_scale,
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
        ``X`` is not standardised, so ``alpha`` is in units of ``X`` squared:
        ``graphical_lasso(c X, c**2 alpha)`` has the graph of ``graphical_lasso(X,
        alpha)`` and its precision divided by ``c**2``, at any magnitude of ``X``.
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
        its precision would be infinite); a bad ``mode``, ``tol`` or ``max_iter``; an
        ``X`` whose precision (of order ``1 / max|X|**2``) or covariance is beyond the
        float64 range; a penalty too small for a singular empirical covariance.
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
    from sklearn.covariance import GraphicalLasso, GraphicalLassoCV, empirical_covariance

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
    constant = np.flatnonzero(relative_variance(X, assume_centered=assume_centered) <= 1e-12)
    if constant.size:
        raise ValueError(
            f"X has constant column(s) {constant.tolist()} (zero variance): the precision "
            "of a constant variable is infinite; drop those columns"
        )
    if use_cv and alphas is not None and not isinstance(alphas, numbers.Integral):
        alphas = check_array(alphas, "alphas", ndim=1, dtype=np.float64)
        check_positive(alphas, "alphas")
    elif use_cv and alphas is not None:
        alphas = check_int(alphas, "alphas", minimum=1)
    # The problem is equivariant under X -> c X: with S = c^2 S', Omega' / c^2 solves it
    # for S at penalty alpha when Omega' solves it for S' at alpha / c^2 (substitute
    # Omega = Omega' / c^2 in tr(Omega S) - log det Omega + alpha |Omega|_off). Data of
    # extreme magnitude are fitted as X' = X / c, c = 2**e (exact), with S' below 1.
    Xs, e = tame_scale(X)
    S = empirical_covariance(Xs, assume_centered=assume_centered)
    tiny = np.finfo(np.float64).tiny
    lost = np.flatnonzero(np.diag(S) < tiny)
    if lost.size:
        raise ValueError(
            f"X's column(s) {lost.tolist()} are so small beside its largest entry "
            f"({np.max(np.abs(X)):.3g}) that their variance is below the float64 range in "
            "one covariance matrix; standardise the columns of X"
        )
    common = {"mode": mode, "tol": tol, "max_iter": max_iter, "assume_centered": assume_centered}
    # beyond alpha_max = max |S'_jk| (j != k) the solution is diagonal (Witten, Friedman &
    # Simon 2011): a larger penalty changes nothing but the size of round-off terms
    cap = 2.0 * float(np.max(np.abs(S - np.diag(np.diag(S))))) or 1.0
    est: Any
    if use_cv:
        grid = alphas
        if isinstance(alphas, np.ndarray) and e:
            with np.errstate(over="ignore", under="ignore"):
                grid = np.minimum(np.ldexp(alphas, -2 * e), cap)
        est = GraphicalLassoCV(alphas=4 if grid is None else grid, cv=cv, n_jobs=n_jobs, **common)
    else:
        with np.errstate(over="ignore", under="ignore"):
            alpha_s = min(float(np.ldexp(alpha, -2 * e)), cap)
        if alpha_s < tiny:  # negligible beside S': the unpenalised estimate S'^{-1}
            _check_invertible(S, alpha, alpha_s)
            alpha_s = 0.0
        est = GraphicalLasso(alpha=alpha_s, **common)
    try:
        est.fit(Xs)
    except (FloatingPointError, np.linalg.LinAlgError) as exc:
        raise ValueError(
            f"the graphical lasso failed numerically at alpha={alpha!r} for this X "
            f"({exc}); the penalty is too small for X's scale (largest |entry| "
            f"{np.max(np.abs(X)):.3g}) and its empirical covariance (singular when "
            "n_samples <= p or columns are collinear): increase alpha"
        ) from None
    with np.errstate(over="ignore", under="ignore"):
        used = float(np.ldexp(est.alpha_, 2 * e)) if use_cv else float(alpha)
        precision = np.ldexp(est.precision_, -2 * e)
        covariance = np.ldexp(est.covariance_, 2 * e)
    # partial correlations do not depend on the scale: from the scaled fit
    scale = np.sqrt(np.diag(est.precision_))
    partial = -est.precision_ / np.outer(scale, scale)
    adjacency = np.abs(partial) > EDGE_TOL
    np.fill_diagonal(adjacency, False)
    _check_representable(precision, covariance, adjacency, used, X)
    graph = graph_from_adjacency(adjacency, weight=precision, partial_correlation=partial)
    costs = est.costs_
    gap = costs[-1][1] if isinstance(costs, list) else costs[1]  # alpha = 0: one pair
    return GraphicalLassoResult(
        precision=precision,
        covariance=covariance,
        graph=graph,
        adjacency=adjacency,
        alpha=used,
        n_iter=int(est.n_iter_),
        converged=bool(abs(gap) < tol),
    )


def _check_invertible(S: np.ndarray, alpha: float, relative: float) -> None:
    """With a penalty negligible beside ``S`` the estimate is ``S^{-1}``: refuse a singular
    ``S``, whose penalised precision would be of order ``1 / alpha``, beyond float64.
    ``relative`` is ``alpha`` over the squared scale of X (up to a factor 4)."""
    eig = np.linalg.eigvalsh(S)
    if eig[0] <= S.shape[0] * np.finfo(np.float64).eps * eig[-1]:
        size = f"about {relative:.3g}" if relative else "below 1e-308"
        raise ValueError(
            f"alpha={alpha!r} is negligible beside the covariance of X (alpha / max|X|^2 is "
            f"{size}) and that covariance is singular (n_samples <= p or collinear columns): "
            "the precision would be unbounded; increase alpha (it is in units of X squared) "
            "or rescale X"
        )


def _check_representable(
    precision: np.ndarray, covariance: np.ndarray, adjacency: np.ndarray, alpha: float, X: Any
) -> None:
    """The unscaled estimates must fit in float64: finite, with normal (not underflowed)
    diagonals and edge weights; else a ValueError naming ``X``."""
    tiny = np.finfo(np.float64).tiny
    bad = (
        not (np.isfinite(precision).all() and np.isfinite(covariance).all())
        or not math.isfinite(alpha)
        or np.any(np.abs(np.diag(precision)) < tiny)
        or np.any(np.abs(np.diag(covariance)) < tiny)
        or np.any(np.abs(precision[adjacency]) < tiny)
    )
    if bad:
        top = float(np.max(np.abs(X)))
        raise ValueError(
            f"X's scale (largest |entry| {top:.3g}) puts its precision matrix (of order "
            f"1 / {top:.3g}**2) or its covariance outside the float64 range; rescale X: "
            "graphical_lasso(X / s, alpha / s**2) has the same graph, with the precision "
            "multiplied by s**2"
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
        differently: standardise them first if that is not wanted. ``alpha`` is in units
        of ``X`` squared: ``neighbourhood_selection(c X, c**2 alpha)`` has the
        coefficients of ``neighbourhood_selection(X, alpha)``, at any magnitude of ``X``.
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
    n, p = X.shape
    # Each lasso is equivariant under X -> c X: the coefficients of (c X, alpha c^2) are
    # those of (X, alpha) (the objective is multiplied by c^2). Data of extreme magnitude
    # are fitted as X' = X / c, c = 2**e (exact), so that the Gram matrix cannot overflow.
    Xs, e = tame_scale(X)
    mean = Xs.mean(axis=0)
    Xc = Xs - mean
    gram = Xc.T @ Xc
    with np.errstate(over="ignore", under="ignore"):
        alpha_s = float(np.ldexp(alpha, -2 * e))
    # from alpha_max = max_{j != k} |X_k^T X_j| / n on every coefficient is 0 (the lasso's
    # optimality conditions): a larger penalty changes nothing, and cannot overflow
    cap = 2.0 * float(np.max(np.abs(gram - np.diag(np.diag(gram))))) / n or 1.0
    alpha_s = min(alpha_s, cap)
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
            alphas=[alpha_s],
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
    with np.errstate(over="ignore", under="ignore"):
        intercepts = np.ldexp(mean - (coefficients * mean[None, :]).sum(axis=1), e)
    if not (np.isfinite(coefficients).all() and np.isfinite(intercepts).all()):
        raise ValueError(
            f"X's columns differ in scale beyond the float64 range (largest |entry| "
            f"{np.max(np.abs(X)):.3g}): the regression coefficients or intercepts overflow; "
            "standardise the columns of X"
        )
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
