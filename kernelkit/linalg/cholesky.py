"""Cholesky factorisation with jitter escalation, shared by every estimator that factorises.

:func:`cholesky_or_none` is the one place that decides whether a symmetric matrix is
numerically positive definite: LAPACK's factorisation must succeed *and* every pivot must
stand above the rounding error of its computation. An exactly singular matrix (duplicated
inputs, no noise) otherwise "succeeds" about half of the time with a pivot of rounding
size, and its log determinant, and any likelihood built on it, comes out finite and
meaningless.

A Gram matrix ``K`` (plus noise) is positive definite in exact arithmetic but can fail
to factorise in floating point when inputs are duplicated, nearly duplicated, or the
lengthscale is large. :func:`cholesky_jitter` then adds a small multiple of the identity,
starting at ``1e-10 * mean(diag(K))`` and multiplying it by 10 per retry, and warns with
:class:`NumericalWarning` naming the jitter it used; :func:`jittered_cholesky` also
returns that jitter (a :class:`JitteredCholesky`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from kernelkit._threads import blas_threads_for
from kernelkit._validation import check_int, check_positive

__all__ = [
    "JitteredCholesky",
    "NumericalWarning",
    "check_symmetric",
    "cholesky_jitter",
    "cholesky_or_none",
    "jittered_cholesky",
]

#: First jitter, relative to the mean of the diagonal.
_JITTER_START = 1e-10
_EPS = float(np.finfo(np.float64).eps)
#: Largest relative asymmetry ``max|K - K^T| / max|K|`` accepted as round-off.
_SYMMETRY_RTOL = 1e-10


class NumericalWarning(UserWarning):
    """A numerical safeguard changed the computation (e.g. jitter added before Cholesky)."""


def _advice(name: str) -> str:
    return (
        f"{name} is not positive definite, even with jitter. Increase the noise / "
        "regularisation (noise or alpha), remove duplicate inputs, rescale the inputs "
        "(e.g. standardise the features or shorten the lengthscale), or check that the "
        "kernel is positive semi-definite."
    )


def cholesky_or_none(
    A: np.ndarray, *, lower: bool = True, overwrite_a: bool = False
) -> np.ndarray | None:
    """Cholesky factor of the symmetric matrix ``A``, or ``None`` if ``A`` is not
    numerically positive definite.

    Numerically positive definite means that LAPACK's factorisation succeeds and that
    every pivot satisfies ``L_ii^2 > (n + 1) eps A_ii``. The pivot ``L_ii^2 = A_ii -
    sum_j<i L_ij^2`` is the part of the variance ``A_ii`` that the earlier rows leave
    unexplained, and the computed factor is exact for ``A + E`` with ``|E_ii| <=
    (n + 1) eps A_ii`` (Higham (2002), Thm 10.3): a smaller pivot cannot be told from 0.

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric; only the triangle named by ``lower`` is read. Non-finite entries give
        ``None``.
    lower : bool, default=True
        Return the lower factor ``L`` (``A = L L^T``), else the upper ``U`` (``A = U^T U``).
    overwrite_a : bool, default=False
        Let LAPACK factorise ``A`` in place.

    Returns
    -------
    ndarray of shape (n, n) or None
        The factor, or ``None`` when ``A`` is not numerically positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[4.0, 2.0], [2.0, 3.0]])
    >>> L = cholesky_or_none(K)
    >>> bool(np.allclose(L @ L.T, K))
    True
    >>> v = 0.3  # an exactly singular matrix: two equal rows
    >>> cholesky_or_none(np.full((2, 2), v)) is None
    True
    """
    diag = np.diagonal(A).copy()  # before LAPACK overwrites it
    try:
        F = scipy.linalg.cholesky(A, lower=lower, overwrite_a=overwrite_a, check_finite=False)
    except (np.linalg.LinAlgError, ValueError):
        return None
    pivots = np.diagonal(F)
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.all(pivots * pivots > ((diag.shape[0] + 1) * _EPS) * diag):
            return None  # a pivot at rounding level, or NaN from non-finite input
    return F


def check_symmetric(K: np.ndarray, name: str = "K") -> np.ndarray:
    """Raise ``ValueError`` unless the square matrix ``K`` is symmetric up to round-off
    (``max|K - K^T| <= 1e-10 max|K|``); return ``K``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The matrix.
    name : str, default="K"
        Its name in the error message.

    Returns
    -------
    ndarray of shape (n, n)
        ``K`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> check_symmetric(np.array([[2.0, 1.0], [1.0, 2.0]])).shape
    (2, 2)
    >>> check_symmetric(np.array([[2.0, 1.0], [0.0, 2.0]]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: K must be symmetric, but max|K - K^T| = 1 (max|K| = 2); ...
    """
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {K.shape}")
    scale = float(np.max(np.abs(K), initial=0.0))
    asym = float(np.max(np.abs(K - K.T), initial=0.0))
    if asym > _SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} must be symmetric, but max|{name} - {name}^T| = {asym:.3g} "
            f"(max|{name}| = {scale:.3g}); a kernel or covariance matrix is symmetric"
        )
    return K


@dataclass(frozen=True)
class JitteredCholesky:
    """A Cholesky factor and the jitter that was added to get it.

    Attributes
    ----------
    factor : ndarray of shape (n, n)
        Lower-triangular ``L`` with ``L L^T = K + jitter * I``.
    jitter : float
        What was added to the diagonal of ``K`` (0.0 when the plain factorisation
        succeeded).
    """

    factor: np.ndarray
    jitter: float


def cholesky_jitter(
    K: Any,
    *,
    max_tries: int = 7,
    name: str = "K",
    warn: bool = True,
    jitter_scale: float | None = None,
) -> np.ndarray:
    """Lower Cholesky factor of ``K``, adding jitter to the diagonal if needed.

    The factor of :func:`jittered_cholesky`, which takes the same arguments and also
    says how much jitter was added.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric matrix; only its lower triangle is read.
    max_tries : int, default=7
        Number of jitter values tried after the plain factorisation failed.
    name : str, default="K"
        Name of the matrix in warnings and errors.
    warn : bool, default=True
        Emit a :class:`NumericalWarning` when jitter was added.
    jitter_scale : float, optional
        Reference scale of the jitter; ``mean(diag(K))`` by default.

    Returns
    -------
    ndarray of shape (n, n)
        Lower-triangular ``L`` with ``L @ L.T = K + jitter * I``.

    Raises
    ------
    ValueError
        If ``K`` is not square, not symmetric (up to round-off) or contains NaN or
        infinity.
    numpy.linalg.LinAlgError
        If no jitter up to the bound makes ``K`` positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import cholesky_jitter
    >>> L = cholesky_jitter(np.array([[4.0, 2.0], [2.0, 3.0]]))
    >>> L
    array([[2.        , 0.        ],
           [1.        , 1.41421356]])
    """
    return jittered_cholesky(
        K, max_tries=max_tries, name=name, warn=warn, jitter_scale=jitter_scale
    ).factor


def jittered_cholesky(
    K: Any,
    *,
    max_tries: int = 7,
    name: str = "K",
    warn: bool = True,
    jitter_scale: float | None = None,
) -> JitteredCholesky:
    """Lower Cholesky factor of ``K`` and the jitter added to the diagonal to get it.

    The plain factorisation ``K = L L^T`` is tried first. If it fails (or leaves a pivot
    at rounding level, see :func:`cholesky_or_none`), jitter
    ``s * 1e-10, s * 1e-9, ...`` (``max_tries`` values, so up to ``s * 1e-4`` with the
    default ``max_tries=7``; ``s = mean(diag(K))``) is added to the diagonal until it
    succeeds. A jitter of at most ``1e-4`` of the average variance changes predictions
    far less than any realistic observation noise, yet covers the round-off of Gram
    matrices with duplicated inputs.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric matrix; only its lower triangle is read.
    max_tries : int, default=7
        Number of jitter values tried after the plain factorisation failed.
    name : str, default="K"
        Name of the matrix in warnings and errors.
    warn : bool, default=True
        Emit a :class:`NumericalWarning` when jitter was added. Switch off only where a
        tiny jitter is routine and harmless (sampling from a posterior covariance).
    jitter_scale : float, optional
        Reference scale ``s`` of the jitter; ``mean(diag(K))`` by default.

    Returns
    -------
    JitteredCholesky
        ``factor``, lower-triangular with ``factor @ factor.T = K + jitter * I``, and
        ``jitter`` (0.0 when none was needed).

    Raises
    ------
    ValueError
        If ``K`` is not square, not symmetric (up to round-off) or contains NaN or
        infinity.
    numpy.linalg.LinAlgError
        If no jitter up to the bound makes ``K`` positive definite; the message says
        what to change.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import jittered_cholesky
    >>> chol = jittered_cholesky(np.ones((2, 2)), warn=False)  # singular: needs jitter
    >>> chol.jitter
    1e-10
    >>> bool(np.allclose(chol.factor @ chol.factor.T, np.ones((2, 2)) + 1e-10 * np.eye(2)))
    True
    """
    check_int(max_tries, "max_tries", minimum=0)
    if jitter_scale is not None:
        check_positive(jitter_scale, "jitter_scale")
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {K.shape}")
    if not np.isfinite(K).all():
        raise ValueError(f"{name} contains NaN or infinity; check the kernel and its inputs")
    if K.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    check_symmetric(K, name)
    scale = float(np.mean(np.diagonal(K))) if jitter_scale is None else float(jitter_scale)
    if not scale > 0:
        raise np.linalg.LinAlgError(
            f"{name} has a non-positive mean diagonal ({scale:.3g}). " + _advice(name)
        )
    with blas_threads_for(K.shape[0]):
        L = cholesky_or_none(K)
        if L is not None:
            return JitteredCholesky(L, 0.0)
        jitter = _JITTER_START * scale
        for _ in range(max_tries):
            Kj = K.copy()
            Kj[np.diag_indices_from(Kj)] += jitter
            L = cholesky_or_none(Kj, overwrite_a=True)
            if L is not None:
                break
            jitter *= 10.0
        else:
            raise np.linalg.LinAlgError(
                f"Cholesky factorisation of {name} failed with jitter up to {jitter / 10:.3g}. "
                + _advice(name)
            )
    if warn:
        warnings.warn(
            f"{name} was not numerically positive definite; added jitter {jitter:.3g} "
            f"({jitter / scale:.0e} x the mean diagonal) before the Cholesky "
            "factorisation",
            NumericalWarning,
            stacklevel=2,
        )
    return JitteredCholesky(L, jitter)
