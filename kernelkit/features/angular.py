"""Sign random features for the angular kernel (Rowland (2018) §7.3)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from kernelkit.features.base import RandomMap

__all__ = ["AngularFeatures"]


def _check_no_zero_rows(X: np.ndarray) -> None:
    """The rule of :class:`kernelkit.kernels.Angular`: the angle to 0 is undefined."""
    if X.shape[0] and not X.any(axis=1).all():
        raise ValueError("X contains a zero vector; the angular kernel needs x != 0")


def _rows_near_unit_scale(X: np.ndarray) -> np.ndarray:
    """``X`` with every row whose largest ``|entry|`` is far from 1 multiplied by a power of
    two that brings it near 1. The scaling is exact and positive, so the signs of ``W x``
    are those of the original row, and ``W x`` can neither overflow nor underflow."""
    lim = 2.0 ** (np.finfo(X.dtype).maxexp // 2)
    top = np.max(np.abs(X), axis=1)
    far = (top > lim) | (top < 1.0 / lim)
    if not far.any():
        return X
    X = X.copy()
    _, exponent = np.frexp(top[far])
    X[far] = np.ldexp(X[far], -exponent[:, None]).astype(X.dtype, copy=False)
    return X


class AngularFeatures(RandomMap):
    """``z(x) = sign(W x) / sqrt(m)``, so that ``<z(x), z(y)>`` estimates the angular
    kernel ``1 - (2/pi) angle(x, y)`` (:class:`kernelkit.kernels.Angular`).

    Each term ``sign(w . x) sign(w . y)`` has expectation ``1 - 2 theta / pi`` for any
    rotation-invariant ``w`` (eqs. 5.10–5.11), so only the directions of the rows of ``W``
    matter: i.i.d. Gaussian rows (eq. 7.8; MSE ``4 theta (pi - theta) / (m pi^2)``,
    Lemma 7.4), Haar-orthogonal rows (Def. 7.3; strictly smaller MSE, Thm 7.5), or rows
    of stacked Hadamard–Rademacher matrices (the structured variant of §7.6; inputs
    zero-padded to a power of two; not exactly unbiased, as the directions are not
    uniform on the sphere).

    The angular kernel is undefined at ``x = 0``: ``fit`` and ``transform`` reject a zero
    row with the error of :class:`kernelkit.kernels.Angular`.

    It has the parameters of its base class :class:`RandomMap` and nothing more.

    Parameters
    ----------
    n_components : int, default=100
        Number ``m`` of features (random directions).
    coupling : {"iid", "orthogonal", "hadamard"}, default="iid"
        ``"orf"`` and ``"sorf"`` are accepted for the last two.
    n_blocks : int, default=3
        ``S D`` factors for ``coupling="hadamard"``.
    random_state : int, RandomState or None, default=None
        Seeds the random draws of ``fit``; the same value gives the same map.
    n_jobs : int or None, default=None
        Threads for ``transform`` (``None``: as many as BLAS uses).

    Attributes
    ----------
    directions_ : object
        The sampled directions (dense ``W`` or Hadamard–Rademacher signs).
    n_components_, coupling_, n_features_in_, feature_names_in_, n_parameter_bytes_
        As in :class:`RandomMap` (``coupling_``: the coupling used, aliases resolved).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Angular
    >>> X = np.random.RandomState(0).randn(4, 6)
    >>> Z = AngularFeatures(20000, coupling="orthogonal", random_state=0).fit_transform(X)
    >>> bool(np.abs(Z @ Z.T - Angular()(X)).max() < 0.03)
    True
    """

    def _validate(self, X: Any, *, reset: bool) -> np.ndarray:
        X = super()._validate(X, reset=reset)
        _check_no_zero_rows(X)
        return X

    def _fit_random(self, X: np.ndarray, dirs: Any, rng: np.random.RandomState) -> None:
        self.directions_ = dirs
        self.n_parameter_bytes_ = dirs.n_parameter_bytes

    def _transform(self, X: np.ndarray) -> np.ndarray:
        """``sign(X W^T) / sqrt(m)``; a zero row (where the angular kernel is undefined)
        is refused by ``_validate``."""
        X = _rows_near_unit_scale(X)  # sign(W x) is invariant to a positive scale of x
        out = self._empty_output(X)
        scale = 1.0 / math.sqrt(self.n_components_)

        def consume(s: int, e: int, c0: int, c1: int, th: np.ndarray, sc: dict) -> None:
            block = out[s:e, c0:c1]
            np.sign(th, out=block)
            block *= scale

        self.directions_.project_blocks(X, consume, self.n_jobs)
        return out

    def get_directions(self) -> np.ndarray:
        """The dense ``(n_components, n_features_in_)`` matrix ``W`` (for tests).

        Returns
        -------
        ndarray of float64, shape (n_components, n_features)
            A copy of the directions, formed even for ``coupling="hadamard"``.
        """
        check_is_fitted(self, "directions_")
        return self.directions_.to_dense()
