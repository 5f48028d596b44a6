"""Gram matrices ``X @ Y.T`` of sparse histogram features (eq. 1.17 of the assignment).

Histogram columns are very unequal: a few colours (a carbon with two carbon neighbours)
occur in most graphs, most colours in one or two. A column present in ``a`` rows of ``X``
and ``b`` rows of ``Y`` costs ``a * b`` scattered updates in a sparse product, but only
``n_x * n_y`` fast multiply-adds in a dense (BLAS) one. So the frequent columns go through
a dense matrix product and the rest through a sparse one, and the two are added. The
result is exact (the same sums, only grouped differently). Raw histogram counts with small
norms take the dense product in float32, which is exact for them (see
``_exact_in_float32``) and twice as fast.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse

from kernelkit._validation import check_array

__all__ = ["gram"]

#: A column goes dense when a * b >= n_x * n_y / DENSE_RATIO: the measured cost ratio of a
#: scattered sparse update to a BLAS multiply-add is a few hundred on current CPUs.
DENSE_RATIO = 512


def gram(X: Any, Y: Any = None) -> np.ndarray:
    """Dense ``X @ Y.T`` of (sparse) feature rows; ``Y=None`` means ``X`` (symmetric).

    Parameters
    ----------
    X : sparse matrix or array of shape (n_x, p)
        Real, finite features (a 2-D NumPy array or any scipy sparse matrix / array).
    Y : sparse matrix or array of shape (n_y, p), optional
        Second set of feature rows; ``None`` (default) uses ``X``.

    Returns
    -------
    ndarray of float64, shape (n_x, n_y)
        The inner products ``<x_i, y_j>`` of the rows, C-contiguous.

    Raises
    ------
    TypeError
        ``X`` or ``Y`` is not an array of numbers (``None``, a string, objects).
    ValueError
        Not 2-D, NaN or infinity, or different numbers of columns.

    Examples
    --------
    >>> X = sparse.csr_matrix(np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]]))
    >>> gram(X).tolist()
    [[5.0, 2.0], [2.0, 10.0]]
    """
    X = _as_features(X, "X")
    same = Y is None
    Yc = X if same else _as_features(Y, "Y")
    if X.shape[1] != Yc.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of columns, got {X.shape[1]} and {Yc.shape[1]}"
        )
    nx_, ny_ = X.shape[0], Yc.shape[0]
    a, b = np.diff(X.indptr), np.diff(Yc.indptr)
    dense_cols = a.astype(np.float64) * b * DENSE_RATIO >= float(nx_) * ny_
    sparse_cols = np.flatnonzero(~dense_cols & (a > 0) & (b > 0))
    dense_cols = np.flatnonzero(dense_cols)

    with np.errstate(over="ignore", invalid="ignore"):  # checked below, with the culprit
        if len(dense_cols):
            Xd = X[:, dense_cols].toarray()
            Yd = Xd if same else Yc[:, dense_cols].toarray()
            if _exact_in_float32(X, Yc):
                Xd = Xd.astype(np.float32)
                Yd = Xd if same else Yd.astype(np.float32)
            K = np.asarray(Xd @ Yd.T, dtype=np.float64)  # syrk when same
        else:
            K = np.zeros((nx_, ny_))
        if len(sparse_cols):
            Xs = X[:, sparse_cols].tocsr()
            S = (Xs @ (Xs.T if same else Yc[:, sparse_cols].tocsr().T)).tocoo()
            K = np.ascontiguousarray(K)
            # coo of a product has unique (row, col) pairs, so a flat fancy-index add is exact
            K.ravel()[S.row.astype(np.int64) * ny_ + S.col] += S.data
    if not np.isfinite(K).all():
        i, j = (int(v[0]) for v in np.nonzero(~np.isfinite(K)))
        raise OverflowError(
            f"gram: the inner product of row {i} of X and row {j} of "
            f"{'X' if same else 'Y'} is beyond the float64 range (or an inf - inf); "
            "scale the features down"
        )
    return np.ascontiguousarray(K)


def _as_features(X: Any, name: str) -> sparse.csc_matrix:
    """A finite real 2-D feature matrix as float64 CSC, or a clear error."""
    if sparse.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-dimensional, got shape {X.shape}")
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {X.dtype}")
        M = sparse.csc_matrix(X, dtype=np.float64)
        if not np.isfinite(M.data).all():
            raise ValueError(f"{name} contains NaN or infinity")
        return M
    return sparse.csc_matrix(check_array(X, name, dtype=np.float64, allow_empty=True))


def _exact_in_float32(X: sparse.csc_matrix, Y: sparse.csc_matrix) -> bool:
    """Whether a float32 product of ``X`` and ``Y`` is exact: non-negative integer entries
    (histogram counts) whose inner products are all below 2^24.

    Every partial sum of such a product is then an integer no larger than the final inner
    product, which is at most ``max ||x|| max ||y||`` (Cauchy–Schwarz), so float32 holds it
    exactly and the result equals the float64 one bit for bit, at half the cost.
    """
    bound = 1.0
    for M in (X,) if Y is X else (X, Y):  # the symmetric case checks its one matrix once
        d = M.data
        if d.size == 0:
            return False
        if d.min() < 0 or not np.array_equal(d, np.rint(d)):
            return False
        bound *= float(np.sqrt(np.max(np.asarray(M.multiply(M).sum(axis=1)))))
    if Y is X:
        bound *= bound
    return bound < 2.0**24
