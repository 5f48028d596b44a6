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

from kernelkit._memory import check_memory
from kernelkit._validation import check_array, check_bounds, check_int, check_random_state

__all__ = ["maximize_acquisition", "sobol_points"]

#: Stand-in for ``-inf`` acquisition values inside L-BFGS-B, which needs finite numbers.
_FLOOR = -1e300
#: Most dimensions SciPy's Sobol direction numbers cover.
_SOBOL_MAX_DIMS = 21201
#: Two points of the unit cube closer than this (max-norm) are the same point.
_DUPLICATE = 1e-8


def _near_rows(Z: np.ndarray, U: np.ndarray) -> np.ndarray:
    """Whether each row of ``Z`` is within ``_DUPLICATE`` (max-norm) of a row of ``U``,
    by blocks of 256 rows (the differences are ``(256, n, d)`` at a time)."""
    if Z.shape[0] == 0 or U.shape[0] == 0:
        return np.zeros(Z.shape[0], dtype=bool)
    out = np.empty(Z.shape[0], dtype=bool)
    for i in range(0, Z.shape[0], 256):
        gaps = np.abs(Z[i : i + 256, None, :] - U[None, :, :]).max(axis=2)
        out[i : i + 256] = gaps.min(axis=1) <= _DUPLICATE
    return out


def sobol_points(n: int, n_dims: int, random_state: Any = None) -> np.ndarray:
    """The first ``n`` points of a scrambled Sobol sequence in ``[0, 1)^d``.

    Drawn as the next power of two and truncated, which keeps SciPy's balance warning
    quiet; the prefix of a Sobol sequence is still well spread.

    Parameters
    ----------
    n : int
        Number of points, at least 1.
    n_dims : int
        Dimension ``d``, from 1 to 21201 (SciPy's direction numbers).
    random_state : int, RandomState or None
        Seeds the scrambling.

    Returns
    -------
    ndarray of shape (n, n_dims)
        The points, in ``[0, 1)^n_dims``.

    Examples
    --------
    >>> sobol_points(5, 2, random_state=0).shape
    (5, 2)
    """
    check_int(n, "n", minimum=1)
    check_int(n_dims, "n_dims", minimum=1)
    if n_dims > _SOBOL_MAX_DIMS:
        raise ValueError(
            f"n_dims must be <= {_SOBOL_MAX_DIMS} (the dimensions SciPy's Sobol sequence "
            f"covers), got {n_dims}"
        )
    m = int(np.ceil(np.log2(max(n, 2))))
    check_memory(8 * 2**m * n_dims, f"sobol_points(n={n}, n_dims={n_dims})", "ask for fewer points")
    rng = check_random_state(random_state)
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
    max_iter: int = 200,
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
        The box: finite ``(low, high)`` pairs with ``low < high`` (see :func:`check_bounds`).
    n_candidates : int, default=2048
        Candidates scored before the local runs (at least 1): half Sobol, half uniform.
    n_starts : int, default=5
        L-BFGS-B runs, from the best distinct candidates (0: the best candidate).
    extra : array of shape (k, d) or (d,), optional
        More candidates (clipped to the box), e.g. around the incumbent.
    max_iter : int, default=200
        Iteration limit of each L-BFGS-B run, at least 1.
    random_state : int, RandomState or None, default=None
        Seeds the candidates.

    Returns
    -------
    x : ndarray of shape (d,)
        The best point found.
    value : float
        The acquisition there.

    Raises
    ------
    ValueError
        Bad ``bounds`` (a width ``high - low`` beyond the float64 range included); a
        ``value`` that does not return one number per candidate, or NaN for every one
        (NaN at some candidates ranks them last); more candidates than memory holds.
    TypeError
        ``value`` (or ``value_and_gradient``) is not callable.
    """
    if not callable(value):
        raise TypeError(f"value must be callable, value(X) -> (m,), got {type(value).__name__}")
    if value_and_gradient is not None and not callable(value_and_gradient):
        raise TypeError(
            f"value_and_gradient must be callable or None, got {type(value_and_gradient).__name__}"
        )
    bounds = check_bounds(bounds)
    check_int(n_candidates, "n_candidates", minimum=1)
    check_int(n_starts, "n_starts", minimum=0)
    check_int(max_iter, "max_iter", minimum=1)
    d = bounds.shape[0]
    with np.errstate(over="ignore"):
        width = bounds[:, 1] - bounds[:, 0]
    if not np.isfinite(width).all():
        i = int(np.flatnonzero(~np.isfinite(width))[0])
        raise ValueError(
            f"bounds of dimension {i}, ({bounds[i, 0]:g}, {bounds[i, 1]:g}), are wider than "
            "the float64 range (high - low overflows); rescale that coordinate"
        )
    check_memory(
        4 * 8 * n_candidates * d,
        f"maximize_acquisition(n_candidates={n_candidates}) in {d} dimensions",
        "lower n_candidates",
    )
    if extra is not None:
        extra = check_array(np.atleast_2d(extra), "extra", n_features=d, allow_empty=True)
    rng = check_random_state(random_state)
    lo, hi = bounds[:, 0], bounds[:, 1]
    n_sobol = n_candidates // 2
    sobol = sobol_points(n_sobol, d, rng) if n_sobol else np.empty((0, d))
    unit = np.vstack([sobol, rng.uniform(size=(n_candidates - n_sobol, d))])
    X = lo + unit * width
    if extra is not None:
        X = np.vstack([np.clip(extra, lo, hi), X])
    values = np.asarray(value(X), dtype=float)
    if values.shape != (X.shape[0],):
        raise ValueError(
            f"value must return one number per row of X, shape ({X.shape[0]},); it "
            f"returned shape {values.shape} for X of shape {X.shape}"
        )
    if np.isnan(values).all():
        raise ValueError(
            f"value returned NaN at every one of the {X.shape[0]} candidates; an "
            "acquisition must be a number (or -inf) somewhere"
        )
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
            options={"maxiter": max_iter},
        )
        x = np.clip(res.x, lo, hi)
        v = float(value(x[None, :])[0])
        if v > v_best:
            x_best, v_best = x, v
    return x_best, v_best
