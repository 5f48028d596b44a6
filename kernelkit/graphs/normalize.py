"""Cosine normalisation of graph kernels: k(G, G') / sqrt(k(G, G) k(G', G')).

Two equivalent routes: on a Gram matrix (:func:`normalize_gram`) or on explicit features,
scaling each row to unit length (:func:`normalize_rows`), after which plain inner products
are the normalised kernel. A graph whose self-similarity is 0 (no nodes) gets 0 against
everything, as in GraKeL.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse

from kernelkit._validation import check_array, check_bool

__all__ = ["normalize_gram", "normalize_rows", "inverse_sqrt"]


def inverse_sqrt(values: Any) -> np.ndarray:
    """``1 / sqrt(values)`` elementwise, with 0 where ``values`` is 0.

    Parameters
    ----------
    values : array-like of float
        Self-similarities ``k(G, G)``: finite and ``>= 0``.

    Returns
    -------
    ndarray of float64, the shape of ``values``
        ``1 / sqrt(values)``, and 0 where ``values`` is 0.

    Raises
    ------
    ValueError
        ``values`` holds NaN, infinity or a negative number.

    Examples
    --------
    >>> inverse_sqrt([4.0, 0.0]).tolist()
    [0.5, 0.0]
    """
    v = np.asarray(values, dtype=np.float64)
    if not np.isfinite(v).all():
        raise ValueError("self-similarities must be finite for cosine normalisation")
    if (v < 0).any():
        raise ValueError("self-similarities must be >= 0 for cosine normalisation")
    out = np.zeros_like(v)
    pos = v > 0
    out[pos] = 1.0 / np.sqrt(v[pos])
    return out


def normalize_gram(
    K: Any, diag_x: Any = None, diag_y: Any = None, *, copy: bool = True
) -> np.ndarray:
    """Cosine-normalise a Gram matrix: ``K[i, j] / sqrt(k(x_i, x_i) k(y_j, y_j))``.

    Parameters
    ----------
    K : array of shape (n, m)
        ``K[i, j] = k(x_i, y_j)``.
    diag_x : array of shape (n,), optional
        ``k(x_i, x_i)``; defaults to ``diag(K)`` (``K`` must then be square).
    diag_y : array of shape (m,), optional
        ``k(y_j, y_j)``; defaults to ``diag_x`` when ``K`` is square and not given.
    copy : bool, default=True
        ``False`` scales a float64 ``K`` in place (no second n x m array).

    Returns
    -------
    ndarray of shape (n, m)
        The normalised Gram matrix; 0 in the row or column of a zero self-similarity.

    Examples
    --------
    >>> normalize_gram(np.array([[4.0, 2.0], [2.0, 1.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    copy = check_bool(copy, "copy")
    K = check_array(K, "K", dtype=np.float64, allow_empty=True)
    if diag_x is None:
        if K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be square when diag_x is not given, got shape {K.shape}")
        diag_x = np.diag(K).copy()
    if diag_y is None:
        if K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be square when diag_y is not given, got shape {K.shape}")
        diag_y = diag_x
    dx, dy = np.asarray(diag_x, dtype=np.float64), np.asarray(diag_y, dtype=np.float64)
    if dx.shape != (K.shape[0],) or dy.shape != (K.shape[1],):
        raise ValueError(
            f"diag_x and diag_y must have shapes ({K.shape[0]},) and ({K.shape[1]},), "
            f"got {dx.shape} and {dy.shape}"
        )
    out = K.copy() if copy else K
    out *= inverse_sqrt(dx)[:, None]
    out *= inverse_sqrt(dy)[None, :]
    return out


def normalize_rows(X: Any, sq_norms: Any = None) -> sparse.csr_matrix:
    """Scale the rows of a (sparse) feature matrix by ``1 / sqrt(sq_norms)``.

    Parameters
    ----------
    X : sparse matrix or array of shape (n, p)
        Feature rows.
    sq_norms : array of shape (n,), optional
        The squared norms to divide by; defaults to those of the rows of ``X``. Transforms
        pass the full self-similarity here, including colours that were not fitted (and
        so have no column), which keeps ``<x, y>`` equal to the normalised kernel.

    Returns
    -------
    scipy.sparse.csr_matrix of float64, shape (n, p)
        The rows of ``X`` scaled by ``1 / sqrt(sq_norms)``; a zero row where the squared
        norm is 0.
    """
    X = sparse.csr_matrix(X, dtype=np.float64)
    if sq_norms is None:
        return _unit_rows(X)
    scale = inverse_sqrt(sq_norms)
    if scale.shape != (X.shape[0],):
        raise ValueError(f"sq_norms must have shape ({X.shape[0]},), got {scale.shape}")
    return sparse.csr_matrix(sparse.diags(scale) @ X)


def _unit_rows(X: sparse.csr_matrix) -> sparse.csr_matrix:
    """The rows of ``X`` divided by their Euclidean norms (zero rows stay zero).

    A row whose largest entry is beyond ``2^500`` or below ``2^-500`` in size is first
    scaled by a power of two (exact; the unit row does not change), so that its squared
    norm neither overflows nor underflows; other rows take the plain path, bit for bit.
    """
    if X.nnz and not np.isfinite(X.data).all():
        raise ValueError("X contains NaN or infinity; cosine normalisation needs finite rows")
    top = np.zeros(X.shape[0])
    if X.nnz:
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        np.maximum.at(top, rows, np.abs(X.data))
    shift = np.zeros(X.shape[0], dtype=np.int64)
    wide = (top > 2.0**500) | ((top > 0) & (top < 2.0**-500))
    if wide.any():
        shift[wide] = np.frexp(top[wide])[1]
    Y = X.copy()
    if wide.any():
        Y.data = np.ldexp(Y.data, -shift[rows])
    sq_norms = np.asarray(Y.multiply(Y).sum(axis=1)).ravel()
    return sparse.csr_matrix(sparse.diags(inverse_sqrt(sq_norms)) @ Y)
