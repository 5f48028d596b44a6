"""Blocked, BLAS-backed squared distances and elementwise maps over Gram matrices.

Squared Euclidean distances use the expansion ``|x|^2 + |y|^2 - 2 x.y`` so that the
work is one matrix product (BLAS) per tile of the output, then clipped at 0 against round-off.
Both inputs are first shifted by the mean of ``X``, so the round-off scales with the spread
of the data rather than with their distance from the origin.
Tiles are small enough to stay in cache while the kernel's profile is applied in place,
and they are spread over threads (NumPy releases the GIL; BLAS is
held to one thread per worker so the two kinds of parallelism do not fight).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from kernelkit._threads import one_blas_thread

__all__ = ["sq_dist", "map_sq_dist"]

#: Side of the square tiles the output is computed in: a 512 x 512 float64 tile is 2 MB,
#: so the in-place profile evaluation runs in cache right after the matrix product.
_TILE = 512
#: Below this many output elements the work is done in the calling thread.
_THREAD_MIN_ELEMENTS = 1 << 20


def _n_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


def map_sq_dist(
    X: np.ndarray,
    Y: np.ndarray,
    fn: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """``fn(D)`` for the squared-distance matrix ``D[i, j] = |X[i] - Y[j]|^2``, by tiles.

    When ``Y is X``, ``D`` is exactly symmetric with a zero diagonal, and only the tiles on
    and above the diagonal are computed; the others are their transposes (``fn`` must act
    elementwise, which every kernel profile does).

    Parameters
    ----------
    X, Y : ndarray of shape (n, d) and (m, d)
        Inputs with a common floating dtype (float32 stays float32).
    fn : callable, optional
        Applied to each tile of ``D`` and may work in place; it returns the tile of the
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
    yy = xx if same else np.einsum("ij,ij->i", Y, Y)
    Ym2 = -2.0 * Y  # the product then gives -2 x.y directly
    t = _TILE
    tiles = [(i, j) for i in range(0, n, t) for j in range(i if same else 0, m, t)]

    def tile(ij: tuple[int, int]) -> None:
        i, j = ij
        i2, j2 = min(i + t, n), min(j + t, m)
        D = out[i:i2, j:j2]
        np.matmul(X[i:i2], Ym2[j:j2].T, out=D)
        D += xx[i:i2, None]
        D += yy[None, j:j2]
        np.maximum(D, 0.0, out=D)
        if same and i == j:  # exactly symmetric with a zero diagonal, whatever the round-off
            lower = np.tril_indices(i2 - i, -1)
            D[lower] = D.T[lower]
            np.fill_diagonal(D, 0.0)
        if fn is not None:
            res = fn(D)
            if res is not D:
                D[...] = res
        if same and j > i:
            out[j:j2, i:i2] = D.T

    workers = _n_workers()
    with one_blas_thread():  # the products are thin; parallelism comes from the tiles
        if workers == 1 or n * m < _THREAD_MIN_ELEMENTS or len(tiles) < 2:
            for ij in tiles:
                tile(ij)
        else:
            with ThreadPoolExecutor(workers) as ex:
                list(ex.map(tile, tiles))
    return out


def sq_dist(X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
    """Squared Euclidean distances ``|X[i] - Y[j]|^2``, clipped at 0 (``Y = X`` if omitted)."""
    return map_sq_dist(X, X if Y is None else Y)
