"""Blocked, BLAS-backed squared distances and elementwise maps over Gram matrices.

Squared Euclidean distances use the expansion ``|x|^2 + |y|^2 - 2 x.y`` so that the
work is one matrix product (BLAS) per block of rows, then clipped at 0 against round-off.
Both inputs are first shifted by the mean of ``X``, so the round-off scales with the spread
of the data rather than with their distance from the origin.
Rows are processed in blocks small enough to stay in cache while the kernel's profile is
applied in place, and the blocks are spread over threads (NumPy releases the GIL; BLAS is
held to one thread per worker so the two kinds of parallelism do not fight).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

__all__ = ["sq_dist", "map_sq_dist"]

#: Elements per block of the output: ~2 MB of float64, which keeps the in-place profile
#: evaluation in cache.
_BLOCK_ELEMENTS = 1 << 18
#: Below this many output elements the work is done in the calling thread.
_THREAD_MIN_ELEMENTS = 1 << 22


def _n_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


def map_sq_dist(
    X: np.ndarray,
    Y: np.ndarray,
    fn: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """``fn(D)`` for the squared-distance matrix ``D[i, j] = |X[i] - Y[j]|^2``, blockwise.

    Parameters
    ----------
    X, Y : ndarray of shape (n, d) and (m, d)
        Inputs with a common floating dtype (float32 stays float32).
    fn : callable, optional
        Applied to each block of ``D`` and may work in place; it returns the block of the
        result. ``None`` returns ``D`` itself.
    out : ndarray of shape (n, m), optional
        Where to write the result.
    """
    same = Y is X
    dtype = np.result_type(X.dtype, Y.dtype, np.float32)
    n, m = X.shape[0], Y.shape[0]
    if out is None:
        out = np.empty((n, m), dtype=dtype)
    if n == 0 or m == 0:
        return out
    # Distances do not change under a common shift. Centring keeps the expansion from losing
    # every digit when the data sit far from the origin (timestamps, float32 inputs).
    shift = np.mean(X, axis=0, dtype=np.float64).astype(dtype)
    X = np.subtract(X, shift, dtype=dtype)
    Y = X if same else np.subtract(Y, shift, dtype=dtype)
    xx = np.einsum("ij,ij->i", X, X)
    yy = np.einsum("ij,ij->i", Y, Y)
    rows = max(1, min(n, _BLOCK_ELEMENTS // max(m, 1)))
    starts = range(0, n, rows)

    def block(i: int) -> None:
        j = min(i + rows, n)
        D = out[i:j]
        np.matmul(X[i:j], Y.T, out=D)
        D *= -2.0
        D += xx[i:j, None]
        D += yy[None, :]
        np.maximum(D, 0.0, out=D)
        if same:  # exact zeros on the diagonal, whatever the round-off
            k = np.arange(j - i)
            D[k, i + k] = 0.0
        if fn is not None:
            res = fn(D)
            if res is not D:
                D[...] = res

    workers = _n_workers()
    if workers == 1 or n * m < _THREAD_MIN_ELEMENTS or len(starts) < 2:
        for i in starts:
            block(i)
    else:
        with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(workers) as ex:
            list(ex.map(block, starts))
    return out


def sq_dist(X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
    """Squared Euclidean distances ``|X[i] - Y[j]|^2``, clipped at 0 (``Y = X`` if omitted)."""
    return map_sq_dist(X, X if Y is None else Y)
