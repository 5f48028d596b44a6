"""Exact MSEs of the angular-kernel estimator (Rowland (2018) §7.3).

The angular kernel ``1 - 2 theta / pi`` (eq. 7.5) of two vectors at angle ``theta`` is
estimated by ``<sign(G x), sign(G y)> / m`` with ``m = n_components`` random rows: i.i.d.
Gaussian (Lemma 7.4) or orthogonal (an exact 1-D integral behind Thm. 7.5).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit._validation import check_int, check_positive
from kernelkit.features.theory._common import pair_fraction, scalar_or_array
from kernelkit.features.theory._quadrature import angular_pair_covariance

__all__ = ["mse_angular_iid", "mse_angular_orthogonal"]


def _check_theta(theta: Any) -> np.ndarray:
    check_positive(theta, "theta", strict=False)
    th = np.asarray(theta, dtype=np.float64)
    if np.any(th > np.pi):
        raise ValueError(f"theta must be an angle in [0, pi], got {theta!r}")
    return th


def _iid_mse(th: np.ndarray, m: int) -> np.ndarray:
    # Rowland (2018) Lemma 7.4
    return 4.0 * th * (np.pi - th) / (m * np.pi**2)


def mse_angular_iid(theta: Any, n_components: int) -> Any:
    """MSE of the angular-kernel estimator ``<sign(G x), sign(G y)> / m``, i.i.d. ``G``.

    Rowland (2018) Lemma 7.4: ``MSE = 4 theta (pi - theta) / (m pi^2)`` with ``theta`` the
    angle between ``x`` and ``y`` and ``m = n_components``; the kernel is
    ``1 - 2 theta / pi`` (eq. 7.5).

    Parameters
    ----------
    theta : float or array-like, in ``[0, pi]``
        Angles between ``x`` and ``y``.
    n_components : int
        Number of sign features (rows of ``G``), ``>= 1``.

    Returns
    -------
    float or ndarray (the shape of ``theta``)
        The MSE at each angle.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.features.theory import mse_angular_iid
    >>> mse_angular_iid(np.pi / 2, n_components=1)
    1.0
    """
    th = _check_theta(theta)
    m = check_int(n_components, "n_components", minimum=1)
    return scalar_or_array(_iid_mse(th, m))


def mse_angular_orthogonal(theta: Any, n_components: int, d: int) -> Any:
    """MSE of the orthogonal angular estimator ``<sign(G_ort x), sign(G_ort y)> / m``.

    Rowland (2018) Thm. 7.5 shows it is strictly below :func:`mse_angular_iid` unless
    ``theta`` is 0 or ``pi``, without a formula. Completing the proof of Prop. 7.16
    (integrating eq. 7.45 by parts in ``sin phi``) gives the covariance of two sign
    features of one orthogonal block exactly,

    ``Cov = (4/pi^2) int_0^1 a^(d-2) log(1 - (1 - a^2) sin^2 theta) / (1 - a^2) da``

    (``= -4 theta^2 / pi^2`` for ``d = 2`` and acute ``theta``), so for
    ``m = n_components <= d``

    ``MSE_ort = 4 theta (pi - theta) / (m pi^2) + (m-1)/m Cov``,

    with the block-pair fraction replacing ``(m-1)/m`` when ``m > d`` (Def. 7.1). The
    integral is evaluated by adaptive quadrature to ``1e-12``.

    Parameters
    ----------
    theta : float or array-like, in ``[0, pi]``
        Angles between ``x`` and ``y``.
    n_components : int
        Number of sign features, ``>= 1``.
    d : int
        Input dimension (the orthogonal block size), ``>= 1``.

    Returns
    -------
    float or ndarray (the shape of ``theta``)
        The MSE at each angle.

    Examples
    --------
    Two perpendicular sign features in the plane: error ``q (1 - q)``, ``q = 2 theta/pi``.

    >>> import numpy as np
    >>> from kernelkit.features.theory import mse_angular_orthogonal
    >>> round(mse_angular_orthogonal(np.pi / 4, n_components=2, d=2), 12)
    0.25
    """
    th = _check_theta(theta)
    m = check_int(n_components, "n_components", minimum=1)
    d = check_int(d, "d", minimum=1)
    iid = _iid_mse(th, m)
    frac = pair_fraction(m, d)
    if frac == 0.0:
        return scalar_or_array(iid)
    return scalar_or_array(iid + frac * angular_pair_covariance(th, d))
