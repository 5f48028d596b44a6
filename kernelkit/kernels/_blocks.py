"""Blocked, BLAS-backed squared distances and elementwise maps over Gram matrices.

Squared Euclidean distances of the scaled inputs ``X / scale`` use the expansion
``|x|^2 + |y|^2 - 2 x.y`` so that the work is one matrix product (BLAS) per tile of the
output, then clipped at 0 against round-off. Both inputs are first shifted by the mean of
``X``, so the round-off scales with the spread of the data rather than with their distance
from the origin. Tiles are small enough to stay in cache while the kernel's profile is
applied in place, and they are spread over threads (NumPy releases the GIL; BLAS is held to
one thread per worker so the two kinds of parallelism do not fight).

The expansion has an absolute error of about ``eps * R^2``, with ``R`` the largest distance
of a (scaled, shifted) input from the mean. When that error would exceed ``sqrt(eps)``, or
when ``R^2`` is not even representable (inputs near 1e200, lengthscales near 1e-300), the
tiles are computed instead from the differences ``(x_k - y_k) / scale_k``, one feature at a
time: exact to a few ulps, and ``+inf`` exactly where the true squared distance exceeds the
float range, so a kernel profile sees the limit it should (``k -> 0`` as ``r -> inf``),
never ``inf - inf``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._threads import one_blas_thread, run_in_threads

__all__ = ["sq_dist", "map_sq_dist", "Expansion", "expansion", "pair_chunks", "ard_sums"]

#: Side of the square tiles the output is computed in: a 512 x 512 float64 tile is 2 MB,
#: so the in-place profile evaluation runs in cache right after the matrix product.
_TILE = 512
#: Below this many output elements the work is done in the calling thread.
_THREAD_MIN_ELEMENTS = 1 << 20
#: Below this many multiply-adds (n m d) the BLAS thread count is left alone: querying
#: and setting it costs more than the product (scikit-learn calls kernels on single pairs).
_SMALL_WORK = 1 << 16
#: Rows x features per chunk when pairs of rows are differenced directly.
_PAIR_CHUNK = 1 << 18


def _n_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


@dataclass(frozen=True)
class Expansion:
    """Shifted, scaled inputs for the BLAS expansion, and its round-off level.

    ``Z = (X / scale) - shift`` and ``W = (Y / scale) - shift`` (``W is Z`` when ``Y is X``),
    ``zz`` and ``ww`` their squared row norms; ``noise`` bounds the absolute error of a
    squared distance computed by the expansion.
    """

    Z: np.ndarray
    W: np.ndarray
    zz: np.ndarray
    ww: np.ndarray
    noise: float

    @property
    def near(self) -> float:
        """Squared distances below this are recomputed from differences for kernels that
        are not differentiable at 0: there the profile moves by ``~sqrt(error)``, and with
        this threshold that is at most ``~sqrt(eps)`` everywhere."""
        return self.noise * self.noise / float(np.finfo(self.Z.dtype).eps)


def _scaled(X: np.ndarray, scale: Any, dtype: Any) -> np.ndarray:
    if scale is None:
        return X.astype(dtype, copy=False)
    # divide in float64 (a float32 lengthscale of 1e-300 would be 0); overflow -> inf is
    # detected by the caller
    return (X / np.asarray(scale, dtype=np.float64)).astype(dtype, copy=False)


def expansion(X: np.ndarray, Y: np.ndarray, scale: Any = None) -> Expansion | None:
    """The data for the BLAS expansion, or ``None`` where it would be inaccurate or
    overflow (then distances must come from differences). ``O((n + m) d)`` work."""
    same = Y is X
    dtype = np.result_type(X.dtype, Y.dtype, np.float32)
    eps = float(np.finfo(dtype).eps)
    with np.errstate(over="ignore", invalid="ignore"):
        Z = _scaled(X, scale, dtype)
        # Distances do not change under a common shift. Centring keeps the expansion from
        # losing every digit when the data sit far from the origin (timestamps, float32).
        shift = np.mean(Z, axis=0, dtype=np.float64).astype(dtype)
        Z = np.subtract(Z, shift, dtype=dtype)
        W = Z if same else np.subtract(_scaled(Y, scale, dtype), shift, dtype=dtype)
        zz = np.einsum("ij,ij->i", Z, Z)
        ww = zz if same else np.einsum("ij,ij->i", W, W)
        big = max(float(zz.max()), float(ww.max()))
    noise = 4.0 * eps * big  # NaN or inf when something overflowed
    if not noise <= np.sqrt(eps):
        return None
    return Expansion(Z, W, zz, ww, noise)


def _direct(
    X: np.ndarray, Y: np.ndarray, scale: Any, rows: slice, cols: slice, out: np.ndarray
) -> None:
    """``out = sum_k ((X[rows, k] - Y[cols, k]) / scale_k)^2`` from differences, in float64;
    ``+inf`` where the sum exceeds the float range (never NaN for finite inputs)."""
    d = X.shape[1]
    s = np.broadcast_to(np.asarray(1.0 if scale is None else scale, dtype=np.float64), (d,))
    acc = np.zeros(out.shape)
    t = np.empty(out.shape)
    with np.errstate(over="ignore"):
        for k in range(d):
            np.subtract.outer(X[rows, k].astype(np.float64), Y[cols, k], out=t)
            t /= s[k]
            t *= t
            acc += t
        out[...] = acc  # a float32 output overflows to inf like the sum


def map_sq_dist(
    X: np.ndarray,
    Y: np.ndarray,
    fn: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    out: np.ndarray | None = None,
    scale: Any = None,
    exact_near: bool = False,
) -> np.ndarray:
    """``fn(D)`` for the squared-distance matrix ``D[i, j] = |(X[i] - Y[j]) / scale|^2``.

    When ``Y is X``, ``D`` is exactly symmetric with a zero diagonal, and only the tiles on
    and above the diagonal are computed; the others are their transposes (``fn`` must act
    elementwise, which every kernel profile does). ``D`` is ``+inf`` exactly where the
    squared distance exceeds the float range.

    Parameters
    ----------
    X, Y : ndarray of shape (n, d) and (m, d)
        Inputs with a common floating dtype (float32 stays float32).
    fn : callable, optional
        Applied to each tile of ``D`` and may work in place; it returns the tile of the
        result. ``None`` returns ``D`` itself. It must accept ``+inf``.
    out : ndarray of shape (n, m), optional
        Where to write the result.
    scale : float or ndarray of shape (d,), optional
        Per-feature scale (the lengthscale); distances are those of ``X / scale``.
    exact_near : bool
        Recompute from differences the entries the expansion leaves within its round-off
        of 0 (for profiles that are not differentiable at 0, such as ``exp(-r)``).
    """
    same = Y is X
    dtype = np.result_type(X.dtype, Y.dtype, np.float32)
    n, m = X.shape[0], Y.shape[0]
    if out is None:
        out = np.empty((n, m), dtype=dtype)
    if n == 0 or m == 0:
        return out
    if n == 1 and m == 1:  # one pair (scikit-learn's kernel callables): from the difference
        with np.errstate(over="ignore"):
            diff = (X[0].astype(np.float64) - Y[0]) / np.asarray(
                1.0 if scale is None else scale, dtype=np.float64
            )
            out[0, 0] = 0.0 if same else diff @ diff
        if fn is not None:
            out[...] = fn(out)
        return out
    ex = expansion(X, Y, scale)
    t = _TILE
    tiles = [(i, j) for i in range(0, n, t) for j in range(i if same else 0, m, t)]

    def tile(ij: tuple[int, int]) -> None:
        i, j = ij
        i2, j2 = min(i + t, n), min(j + t, m)
        D = out[i:i2, j:j2]
        if ex is None:
            _direct(X, Y, scale, slice(i, i2), slice(j, j2), D)
        else:
            np.matmul(ex.Z[i:i2], -2.0 * ex.W[j:j2].T, out=D)  # -2 x.y
            D += ex.zz[i:i2, None]
            D += ex.ww[None, j:j2]
            np.maximum(D, 0.0, out=D)
            if exact_near:
                a, b = np.nonzero(D < ex.near)
                if a.size:
                    D[a, b] = _pair_sq_dist(ex.Z, ex.W, a + i, b + j)
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
    if n * m * X.shape[1] < _SMALL_WORK:  # one small tile: not worth setting BLAS threads
        for ij in tiles:
            tile(ij)
        return out
    with one_blas_thread():  # the products are thin; parallelism comes from the tiles
        run_in_threads(tile, tiles, 1 if n * m < _THREAD_MIN_ELEMENTS else workers)
    return out


def sq_dist(
    X: np.ndarray, Y: np.ndarray | None = None, *, scale: Any = None, exact_near: bool = False
) -> np.ndarray:
    """Squared Euclidean distances ``|(X[i] - Y[j]) / scale|^2`` (``Y = X`` if omitted)."""
    return map_sq_dist(X, X if Y is None else Y, scale=scale, exact_near=exact_near)


def pair_chunks(
    X: np.ndarray, Y: np.ndarray, a: np.ndarray, b: np.ndarray, scale: Any = None
) -> Iterator[tuple[slice, np.ndarray]]:
    """``(positions, (X[a] - Y[b]) / scale)`` for the pairs ``(a[p], b[p])``, in float64
    chunks of bounded size; entries are ``+-inf`` where a scaled difference overflows."""
    d = X.shape[1]
    s = np.asarray(1.0 if scale is None else scale, dtype=np.float64)
    step = max(1, _PAIR_CHUNK // max(d, 1))
    for p in range(0, a.size, step):
        q = slice(p, min(p + step, a.size))
        with np.errstate(over="ignore"):
            diff = X[a[q]].astype(np.float64) - Y[b[q]]
            diff /= s
        yield q, diff


def _pair_sq_dist(X: np.ndarray, Y: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty(a.size)
    for q, diff in pair_chunks(X, Y, a, b):
        with np.errstate(over="ignore"):
            out[q] = np.einsum("ij,ij->i", diff, diff)
    return out


def ard_sums(ex: Expansion, M: np.ndarray) -> np.ndarray:
    """``sum_ij M_ij (z_ik - w_jk)^2`` for each feature ``k``, with ``z`` and ``w`` the
    expansion's two sides (the shifted, scaled ``X`` and ``Y``; ``w is z`` for ``Y is X``)
    and ``M`` of shape ``(n, m)``: two row sums and one matrix product (``O(n m d)`` BLAS).

    ``sum_ij M_ij (z_ik - w_jk)^2 = r.z_k^2 + c.w_k^2 - 2 sum_i z_ik (M w)_ik`` with ``r``
    and ``c`` the row and column sums of ``M``; ``M w`` and ``r`` come from one product.
    Its round-off is about ``ex.noise * sum |M|``, small where ``M`` is bounded.
    """
    Z, V = ex.Z, ex.W
    V1 = np.hstack([V, np.ones((V.shape[0], 1), dtype=V.dtype)])
    MV1 = M @ V1
    col = np.ones(M.shape[0], dtype=M.dtype) @ M
    Z2 = Z * Z
    V2 = Z2 if V is Z else V * V
    return MV1[:, -1] @ Z2 + col @ V2 - 2.0 * np.einsum("ik,ik->k", MV1[:, :-1], Z)


def direct_ard_sums(
    X: np.ndarray, Y: np.ndarray, scale: Any, P: np.ndarray, S: np.ndarray
) -> np.ndarray:
    """``sum_ij P_ij Delta_ijk^2 / S_ij`` for each ``k``, ``Delta = (x_i - y_j) / scale`` and
    ``S = |Delta|^2`` (``P`` and ``S`` of shape ``(n, m)``), from differences
    (``O(n m d)``); a pair with ``P_ij = 0`` (at ``S = 0`` or ``S = inf``, say) contributes
    0."""
    n, d = X.shape
    s = np.broadcast_to(np.asarray(1.0 if scale is None else scale, dtype=np.float64), (d,))
    out = np.zeros(d)
    t = _TILE
    for i in range(0, n, t):
        rows = slice(i, min(i + t, n))
        Pt = P[rows]
        live = Pt != 0
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            w = np.where(live, Pt / S[rows], 0.0)  # P / S, 0 where P = 0
            for k in range(d):
                q = np.subtract.outer(X[rows, k].astype(np.float64), Y[:, k])
                q /= s[k]
                q *= q
                q *= w
                q[~live] = 0.0  # inf * 0 where the difference overflowed but P = 0
                out[k] += q.sum()
    return out
