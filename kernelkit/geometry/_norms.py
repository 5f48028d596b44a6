"""Row norms of the geometry area at any magnitude of the entries.

``np.linalg.norm`` squares the entries: rows with entries above ~1e154 overflow to ``inf``
and rows with entries below ~1e-154 underflow to 0 (a non-zero row taken for the origin).
These helpers divide such rows by their largest entry first.
"""

from __future__ import annotations

import numpy as np

#: Below this a row norm may have lost its squares to underflow (entries < 1e-154).
_SMALL_NORM = 1e-150


def _rescaled(Z: np.ndarray) -> np.ndarray:
    """Rows of ``Z`` whose norms ``np.linalg.norm`` cannot take directly: those that
    overflow (entries above ~1e154: the squares pass 1.8e308) and non-zero ones that
    underflow (entries below ~1e-154: the squares vanish). A mask over the rows."""
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(Z, axis=1)
    return ~np.isfinite(norms) | ((norms < _SMALL_NORM) & np.any(Z != 0, axis=1))


def row_norms(Z: np.ndarray) -> np.ndarray:
    """Euclidean norms of the rows of ``Z`` at any magnitude: a row whose squares would
    overflow or underflow is divided by its largest entry first (``inf`` only where the
    norm itself is beyond float64)."""
    redo = _rescaled(Z)
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(Z, axis=1)
        if redo.any():
            top = np.max(np.abs(Z[redo]), axis=1)
            norms[redo] = top * np.linalg.norm(Z[redo] / top[:, None], axis=1)
    return norms


def unit_rows(Z: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), at any magnitude of the entries."""
    redo = _rescaled(Z)
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(Z, axis=1, keepdims=True)
    out = Z / np.where(norms > 0, norms, 1.0)
    if redo.any():  # divide by the largest entry first: then the squares are in range
        Y = Z[redo] / np.max(np.abs(Z[redo]), axis=1, keepdims=True)
        out[redo] = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    return out
