"""Cholesky factorisation with jitter escalation, shared by every estimator in ``models``.

A Gram matrix ``K`` (plus noise) is positive definite in exact arithmetic but can fail
to factorise in floating point when inputs are duplicated, nearly duplicated, or the
lengthscale is large. :func:`cholesky_jitter` then adds a small multiple of the identity,
starting at ``1e-10 * mean(diag(K))`` and multiplying it by 10 per retry, and warns with
:class:`NumericalWarning` naming the jitter it used.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal, overload

import numpy as np
import scipy.linalg

from kernelkit._threads import blas_threads_for
from kernelkit._validation import check_int, check_positive

__all__ = ["NumericalWarning", "cholesky_jitter"]

#: First jitter, relative to the mean of the diagonal.
_JITTER_START = 1e-10


class NumericalWarning(UserWarning):
    """A numerical safeguard changed the computation (e.g. jitter added before Cholesky)."""


def _advice(name: str) -> str:
    return (
        f"{name} is not positive definite, even with jitter. Increase the noise / "
        "regularisation (noise or alpha), remove duplicate inputs, rescale the inputs "
        "(e.g. standardise the features or shorten the lengthscale), or check that the "
        "kernel is positive semi-definite."
    )


@overload
def cholesky_jitter(
    K: Any,
    *,
    max_tries: int = ...,
    name: str = ...,
    warn: bool = ...,
    jitter_scale: float | None = ...,
    return_jitter: Literal[False] = ...,
) -> np.ndarray: ...


@overload
def cholesky_jitter(
    K: Any,
    *,
    max_tries: int = ...,
    name: str = ...,
    warn: bool = ...,
    jitter_scale: float | None = ...,
    return_jitter: Literal[True],
) -> tuple[np.ndarray, float]: ...


@overload
def cholesky_jitter(
    K: Any,
    *,
    max_tries: int = ...,
    name: str = ...,
    warn: bool = ...,
    jitter_scale: float | None = ...,
    return_jitter: bool,
) -> np.ndarray | tuple[np.ndarray, float]: ...


def cholesky_jitter(
    K: Any,
    *,
    max_tries: int = 7,
    name: str = "K",
    warn: bool = True,
    jitter_scale: float | None = None,
    return_jitter: bool = False,
) -> np.ndarray | tuple[np.ndarray, float]:
    """Lower Cholesky factor of ``K``, adding jitter to the diagonal if needed.

    The plain factorisation ``K = L L^T`` is tried first. If it fails, jitter
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
    return_jitter : bool, default=False
        Also return the jitter that was added (0.0 when none was needed).

    Returns
    -------
    L : ndarray of shape (n, n)
        Lower-triangular factor with ``L L^T = K + jitter * I``.
    jitter : float
        Only when ``return_jitter`` is true.

    Raises
    ------
    ValueError
        If ``K`` is not square or contains NaN or infinity.
    numpy.linalg.LinAlgError
        If no jitter up to the bound makes ``K`` positive definite; the message says
        what to change.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import cholesky_jitter
    >>> L = cholesky_jitter(np.array([[4.0, 2.0], [2.0, 3.0]]))
    >>> L
    array([[2.        , 0.        ],
           [1.        , 1.41421356]])
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
    scale = float(np.mean(np.diagonal(K))) if jitter_scale is None else float(jitter_scale)
    if not scale > 0:
        raise np.linalg.LinAlgError(
            f"{name} has a non-positive mean diagonal ({scale:.3g}). " + _advice(name)
        )
    with blas_threads_for(K.shape[0]):
        try:
            L = scipy.linalg.cholesky(K, lower=True, check_finite=False)
            return (L, 0.0) if return_jitter else L
        except np.linalg.LinAlgError:
            pass
        jitter = _JITTER_START * scale
        for _ in range(max_tries):
            Kj = K.copy()
            Kj[np.diag_indices_from(Kj)] += jitter
            try:
                L = scipy.linalg.cholesky(Kj, lower=True, check_finite=False, overwrite_a=True)
                break
            except np.linalg.LinAlgError:
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
    return (L, jitter) if return_jitter else L
