"""Acquisition maximisation by multi-start L-BFGS-B in a box (assignment Q2.6).

``x_t = argmax_x u(x | D)`` is solved as the minimisation of ``-u`` (the seed's hint) in
three stages:

1. score many candidates at once, vectorised: a scrambled Sobol sequence
   (:class:`scipy.stats.qmc.Sobol`), uniform random points, and any extra points the
   caller supplies (the incumbent and small perturbations of it, where the next
   improvement most often lies);
2. start L-BFGS-B, with the analytic gradient, from the best few distinct candidates;
3. keep the best end point (a candidate, if no local run improved on it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.optimize
from scipy.stats import qmc

from kernelkit._validation import check_int, check_random_state

__all__ = ["maximize_acquisition", "sobol_points"]

#: Stand-in for ``-inf`` acquisition values inside L-BFGS-B, which needs finite numbers.
_FLOOR = -1e300


def sobol_points(n: int, n_dims: int, random_state: Any = None) -> np.ndarray:
    """The first ``n`` points of a scrambled Sobol sequence in ``[0, 1)^d``.

    Drawn as the next power of two and truncated, which keeps SciPy's balance warning
    quiet; the prefix of a Sobol sequence is still well spread.
    """
    rng = check_random_state(random_state)
    if n <= 0:
        return np.empty((0, n_dims))
    m = int(np.ceil(np.log2(max(n, 2))))
    sampler = qmc.Sobol(n_dims, scramble=True, seed=rng.randint(2**31 - 1))
    return sampler.random_base2(m)[:n]


def _distinct_best(X: np.ndarray, values: np.ndarray, k: int, tol: float = 1e-6) -> np.ndarray:
    """Indices of the ``k`` best finite values whose points differ by more than ``tol``."""
    order = np.argsort(-values, kind="stable")
    chosen: list[int] = []
    for i in order:
        if not np.isfinite(values[i]):
            break
        if all(np.max(np.abs(X[i] - X[j])) > tol for j in chosen):
            chosen.append(int(i))
            if len(chosen) == k:
                break
    return np.asarray(chosen, dtype=int)


def maximize_acquisition(
    value: Callable[[np.ndarray], np.ndarray],
    value_and_gradient: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None,
    bounds: Any,
    *,
    n_candidates: int = 2048,
    n_starts: int = 5,
    extra: Any = None,
    maxiter: int = 200,
    random_state: Any = None,
) -> tuple[np.ndarray, float]:
    """Maximise an acquisition over a box by candidates + multi-start L-BFGS-B.

    Parameters
    ----------
    value : callable
        ``value(X) -> (m,)`` acquisition values, vectorised over the rows of ``X``.
    value_and_gradient : callable or None
        ``value_and_gradient(X) -> ((m,), (m, d))``; ``None`` lets L-BFGS-B use finite
        differences of ``value`` (for kernels without input gradients).
    bounds : array of shape (d, 2)
        The box.
    n_candidates : int, default=2048
        Candidates scored before the local runs: half Sobol, half uniform.
    n_starts : int, default=5
        L-BFGS-B runs, from the best distinct candidates.
    extra : array of shape (k, d), optional
        More candidates (clipped to the box), e.g. around the incumbent.
    maxiter : int, default=200
        Iteration limit of each L-BFGS-B run.
    random_state : int, RandomState or None

    Returns
    -------
    x : ndarray of shape (d,)
        The best point found.
    value : float
        The acquisition there.
    """
    bounds = np.asarray(bounds, dtype=float)
    if bounds.ndim != 2 or bounds.shape[1] != 2:
        raise ValueError(f"bounds must have shape (d, 2), got {bounds.shape}")
    check_int(n_candidates, "n_candidates", minimum=1)
    check_int(n_starts, "n_starts", minimum=0)
    rng = check_random_state(random_state)
    d = bounds.shape[0]
    lo, hi = bounds[:, 0], bounds[:, 1]
    n_sobol = n_candidates // 2
    unit = np.vstack([sobol_points(n_sobol, d, rng), rng.uniform(size=(n_candidates - n_sobol, d))])
    X = lo + unit * (hi - lo)
    if extra is not None:
        X = np.vstack([np.clip(np.asarray(extra, dtype=float).reshape(-1, d), lo, hi), X])
    values = value(X)
    i_best = int(np.argmax(np.where(np.isnan(values), -np.inf, values)))
    x_best, v_best = X[i_best].copy(), float(values[i_best])

    def negative(x: np.ndarray) -> tuple[float, np.ndarray]:
        v, g = value_and_gradient(x[None, :])  # type: ignore[misc]
        if not np.isfinite(v[0]):
            return -_FLOOR, np.zeros(d)
        return -float(v[0]), -g[0]

    def negative_value(x: np.ndarray) -> float:
        v = float(value(x[None, :])[0])
        return -v if np.isfinite(v) else -_FLOOR

    analytic = value_and_gradient is not None
    for i in _distinct_best(X, values, n_starts):
        res = scipy.optimize.minimize(
            negative if analytic else negative_value,
            X[i],
            jac=analytic,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": maxiter},
        )
        x = np.clip(res.x, lo, hi)
        v = float(value(x[None, :])[0])
        if v > v_best:
            x_best, v_best = x, v
    return x_best, v_best
