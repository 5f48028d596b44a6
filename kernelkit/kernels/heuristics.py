"""Data-driven default hyperparameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit._validation import check_array, check_int, check_random_state
from kernelkit.kernels._blocks import sq_dist

__all__ = ["median_heuristic"]


def _pair_distances(X: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``|X[a] - X[b]|`` without overflow or underflow: half-differences (which cannot
    overflow) scaled by their largest entry before the norm. ``inf`` only where the distance
    itself exceeds the float64 range."""
    out = np.empty(a.size)
    step = max(1, (1 << 18) // X.shape[1])
    for p in range(0, a.size, step):
        q = slice(p, p + step)
        H = 0.5 * X[a[q]] - 0.5 * X[b[q]]
        m = np.max(np.abs(H), axis=1)
        with np.errstate(invalid="ignore", over="ignore"):
            U = H / m[:, None]
            norm = np.sqrt(np.einsum("ij,ij->i", U, U))
            out[q] = np.where(m > 0, 2.0 * m * norm, 0.0)
    return out


def median_heuristic(X: Any, *, max_samples: int = 2000, random_state: Any = None) -> float:
    """Median of the pairwise Euclidean distances between distinct rows of ``X``.

    The "median trick" of Rowland (2018) §7.6 for the lengthscale of a Gaussian kernel.
    With more than ``max_samples`` rows a random subsample (from ``random_state``) is used.
    Distances are exact for any finite ``X`` (rows near 1e300 or 1e-300 included).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite data with at least two rows.
    max_samples : int
        Largest number of rows used; more are subsampled.
    random_state : int, RandomState or None
        Seeds the subsample.

    Returns
    -------
    float
        The median distance, finite and > 0.

    Raises
    ------
    ValueError
        When the median is 0 (more than half of the pairs of rows are identical) or
        beyond the float64 range.

    Examples
    --------
    >>> import numpy as np
    >>> median_heuristic(np.array([[0.0], [1.0], [3.0]]))
    2.0
    """
    X = check_array(X, "X")
    max_samples = check_int(max_samples, "max_samples", minimum=2)
    n_rows = X.shape[0]
    if n_rows < 2:
        raise ValueError("X needs at least two rows for the median heuristic")
    if n_rows > max_samples:
        rng = check_random_state(random_state)
        X = X[rng.choice(n_rows, max_samples, replace=False)]
    X = X.astype(np.float64)
    n = X.shape[0]
    D = sq_dist(X, exact_near=True)  # +inf where a squared distance overflows
    iu = np.triu_indices(n, k=1)
    d2 = D[iu]
    dist = np.sqrt(d2)
    # squares that overflow (distances > 1.3e154) or underflow (< 1.5e-154): from the rows
    redo = np.isinf(d2) | (d2 < 1e-300)
    if np.any(redo):
        dist[redo] = _pair_distances(X, iu[0][redo], iu[1][redo])
    # the median of the distances, not sqrt(median of squares): they differ for even counts
    med = float(np.median(dist))
    if med == 0.0:
        distinct = np.unique(X, axis=0).shape[0]
        rows = f"{n} rows sampled from X's {n_rows}" if n < n_rows else f"the {n} rows of X"
        raise ValueError(
            f"the median distance is 0: more than half of the {dist.size} pairwise distances "
            f"are 0 (only {distinct} distinct rows among {rows}); the median heuristic needs "
            f"most pairs of rows to differ"
        )
    if not np.isfinite(med):
        raise ValueError(
            "the median distance between the rows of X overflows float64 (|X| up to "
            f"{float(np.max(np.abs(X))):.3g}); rescale X"
        )
    return med
