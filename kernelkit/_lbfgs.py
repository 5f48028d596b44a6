"""Bound-constrained minimisation by L-BFGS-B that cannot stop at its start unnoticed.

SciPy's L-BFGS-B trusts the objective to be finite everywhere in the box and reports
``success`` whenever one of its stopping tests fires. Two things break that for the
objectives of this library (the negative log marginal likelihood of a GP, say), which are
finite only where a matrix is numerically positive definite:

- with every variable bounded, the first iteration steps all the way to the generalised
  Cauchy point along ``-g`` with a unit Hessian, which for a gradient of a few hundred is
  a corner of the box; there the objective is ``+inf``, and SciPy's L-BFGS-B (the C
  rewrite shipped since 1.15) can hand back the start as converged;
- a later trial point of a line search can land where the objective is not finite too.

:func:`minimize_bounded` wraps every run in three safeguards:

1. **a bounded first step**: the objective is divided by the largest entry of the
   projected gradient at the start of each run, so that the first Cauchy step moves no
   coordinate by more than about 1 (a factor ``e`` for a log-hyperparameter); later steps
   are L-BFGS-B's own, scaled by its curvature pairs;
2. **a finite barrier**: a non-finite value at a trial point is replaced by a value above
   the run's starting value, with a gradient pointing back to the best point seen, so the
   line search backs off (an iterate is never accepted there);
3. **a check of the end point**, never of SciPy's ``success`` flag: the best point seen
   is kept (never worse than the start), its projected gradient is measured, and a run
   that ends where it is still large is restarted from there (fresh curvature memory and
   a new bounded first step), up to ``max_runs`` runs in all, for as long as the runs
   improve the objective.

The result says whether the end point is stationary (``success``), and why not
(``message``); callers turn a ``False`` into a ``ConvergenceWarning`` that says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import scipy.optimize

__all__ = ["minimize_bounded", "projected_gradient"]

Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]

#: L-BFGS-B's own tolerance on the projected gradient (SciPy's default), on the objective
#: as given.
_PGTOL = 1e-5


def projected_gradient(x: np.ndarray, grad: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The gradient with the components that push against an active bound set to 0.

    A minimiser at ``x`` is stationary when this is 0: at a lower bound only a negative
    derivative could still decrease the objective (by stepping inside), at an upper bound
    only a positive one.

    Parameters
    ----------
    x : ndarray of shape (p,)
        A point of the box.
    grad : ndarray of shape (p,)
        The objective's gradient at ``x``.
    bounds : ndarray of shape (p, 2)
        Lower and upper bounds.

    Returns
    -------
    ndarray of shape (p,)
        The projected gradient.

    Examples
    --------
    >>> import numpy as np
    >>> projected_gradient(np.array([0.0, 0.5]), np.array([2.0, 3.0]),
    ...                    np.array([[0.0, 1.0], [0.0, 1.0]]))
    array([0., 3.])
    """
    pg = np.array(grad, dtype=float, copy=True)
    pg[(x <= bounds[:, 0]) & (pg > 0)] = 0.0
    pg[(x >= bounds[:, 1]) & (pg < 0)] = 0.0
    return pg


class _Tracked:
    """The objective, with its evaluations counted, the best finite point remembered, the
    last evaluation cached (L-BFGS-B evaluates its start again) and non-finite values
    replaced by a barrier (see the module docstring)."""

    def __init__(self, fun: Objective, p: int):
        self.fun = fun
        self.nfev = 0
        self.x_best = np.full(p, np.nan)
        self.f_best = math.inf
        self.g_best = np.full(p, np.nan)
        self._last: tuple[bytes, float, np.ndarray] | None = None
        # set per run
        self.scale = 1.0
        self.ceiling = math.inf

    def __call__(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        key = x.tobytes()
        if self._last is not None and self._last[0] == key:
            f, g = self._last[1], self._last[2]
        else:
            f, g = self.fun(x)
            f, g = float(f), np.asarray(g, dtype=float)
            self.nfev += 1
            if not (math.isfinite(f) and np.isfinite(g).all()):
                f = math.inf
            elif f < self.f_best:
                self.x_best, self.f_best, self.g_best = x.copy(), f, g.copy()
            self._last = (key, f, g)
        if math.isfinite(f):
            return f / self.scale, g / self.scale
        # the barrier: above every value this run can accept, rising away from the best
        # point, so that the line search's interpolation steps back towards it
        step = x - self.x_best
        dist2 = float(step @ step)
        height = self.ceiling - self.f_best
        grad = 2.0 * height * step / dist2 if dist2 > 0 else np.zeros_like(x)
        return self.ceiling / self.scale, grad / self.scale


def minimize_bounded(
    fun: Objective,
    x0: np.ndarray,
    bounds: np.ndarray,
    *,
    ftol: float = 1e-10,
    gtol: float = 1e-2,
    rtol: float = 1e-6,
    max_runs: int = 4,
    max_iter: int = 15000,
    bounded_first_step: bool = True,
) -> scipy.optimize.OptimizeResult:
    """Minimise ``fun`` over a box by L-BFGS-B runs that cannot stop at the start silently.

    See the module docstring for the safeguards (bounded first step, finite barrier,
    restarts while the projected gradient is large).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)``; ``value`` may be ``+inf`` or NaN where the
        objective cannot be evaluated (treated as ``+inf``).
    x0 : ndarray of shape (p,)
        Start, within ``bounds``.
    bounds : ndarray of shape (p, 2)
        Lower and upper bounds (finite or infinite).
    ftol : float, default=1e-10
        L-BFGS-B's relative tolerance on the objective.
    gtol, rtol : float, default=1e-2, 1e-6
        The end point is stationary when every entry of its projected gradient is at
        most ``gtol + rtol * |value|``. For a log likelihood over log-hyperparameters,
        ``1e-2`` nats per e-fold is far below what the likelihood can tell apart (a
        difference of one nat is already weak evidence), while a search stuck at its
        start typically leaves a gradient of hundreds; ``rtol`` covers the gradients'
        round-off, which grows with the objective (with the number of data points).
    max_runs : int, default=4
        Most L-BFGS-B runs, each from the best point of the previous one.
    max_iter : int, default=15000
        Iteration limit of each run.
    bounded_first_step : bool, default=True
        Scale the objective of the first run so that its first step is bounded; with
        ``False`` the first run takes L-BFGS-B's own steps (the barrier still turns it
        back from points where the objective is not finite). Later runs are always
        scaled.

    Returns
    -------
    scipy.optimize.OptimizeResult
        ``x``, ``fun`` and ``jac`` of the best point evaluated (``fun`` is ``+inf`` if
        the objective was not finite at the start), ``success`` (the projected gradient
        there is small, by the test above, not SciPy's flag), ``message``, ``nit``
        and ``nfev`` over all runs, and ``fun0`` (the value at the start),
        ``projected_gradient`` (its largest entry at ``x``), ``n_runs`` and
        ``lbfgs_message`` (what the last L-BFGS-B run said).

    Examples
    --------
    >>> import numpy as np
    >>> def f(x):  # a bowl, +inf beyond x = 2 (its minimum at 3 is out of reach)
    ...     if x[0] > 2:
    ...         return np.inf, np.zeros(1)
    ...     return 1e3 * (x[0] - 3) ** 2, np.array([2e3 * (x[0] - 3)])
    >>> res = minimize_bounded(f, np.array([0.0]), np.array([[-10.0, 10.0]]))
    >>> bool(res.x[0] > 1.99 and res.fun < 1e3 * 1.01**2)
    True
    """
    x0 = np.asarray(x0, dtype=float)
    bounds = np.asarray(bounds, dtype=float)
    tracked = _Tracked(fun, x0.shape[0])
    f0, _ = tracked(x0)
    result = scipy.optimize.OptimizeResult(
        x=x0.copy(),
        fun=math.inf,
        jac=np.full(x0.shape, np.nan),
        success=False,
        nit=0,
        nfev=tracked.nfev,
        fun0=f0,
        projected_gradient=math.inf,
        n_runs=0,
        lbfgs_message="",
    )
    if not math.isfinite(f0):
        result.message = "the objective is not finite at the start"
        return result

    def largest_pg() -> float:
        pg = projected_gradient(tracked.x_best, tracked.g_best, bounds)
        return float(np.max(np.abs(pg), initial=0.0))

    def stationary() -> bool:
        return largest_pg() <= gtol + rtol * abs(tracked.f_best)

    nit, message = 0, ""
    for run in range(max_runs):
        if run and stationary():  # the first run always goes: a small gradient at the
            break  # start can still lie in a long, gently sloping valley
        f_start = tracked.f_best
        tracked.scale = max(1.0, largest_pg()) if run or bounded_first_step else 1.0
        # a barrier above everything this run can accept (it only ever accepts values
        # below f_start), by a margin that makes the backtracking decisive
        tracked.ceiling = f_start + max(1.0, abs(f_start))
        res = scipy.optimize.minimize(
            tracked,
            tracked.x_best.copy(),
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={
                "ftol": ftol,
                # L-BFGS-B's own test stays strict (SciPy's default on the unscaled
                # objective): a gradient below the verdict's tolerance can still sit in
                # a long flat valley that the search should follow
                "gtol": _PGTOL / tracked.scale,
                "maxiter": max_iter,
            },
        )
        result.n_runs = run + 1
        nit += int(res.nit)
        message = str(res.message)
        if not tracked.f_best < f_start:  # this run found nothing better: stop trying
            break
    tracked.scale = 1.0
    pg = largest_pg()
    result.update(
        x=tracked.x_best.copy(),
        fun=tracked.f_best,
        jac=tracked.g_best.copy(),
        nit=nit,
        nfev=tracked.nfev,
        projected_gradient=pg,
        lbfgs_message=message,
    )
    result.success = stationary()
    if result.success:
        result.message = "the projected gradient is small at the end point"
        if result.n_runs > 1:
            result.message += f" (after {result.n_runs} L-BFGS-B runs)"
    else:
        result.message = (
            f"the search stopped where the projected gradient is still {pg:.3g} after "
            f"{result.n_runs} L-BFGS-B run(s) (the last said: {message}); the objective "
            f"went from {f0:.8g} to {tracked.f_best:.8g}"
        )
    return result
