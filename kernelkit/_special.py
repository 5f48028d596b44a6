"""Special functions shared by kernels and feature maps: ``log K_nu`` without overflow.

The Matérn kernel (its Bessel form) and the Matérn spectral theory of the random-feature
error (Rowland (2018) §7.5) both need the logarithm of the modified Bessel function of the
second kind at orders where ``K_nu`` itself overflows float64.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["DEBYE_MIN_ORDER", "log_kv", "log_kv_debye"]


#: From this order on, K_order(z) can overflow float64 where the Matérn kernel is far from
#: its z -> 0 limit (e.g. nu = 200 for r < 0.2), so there log K comes from the Debye
#: expansion, whose error is below 1e-10 here.
DEBYE_MIN_ORDER = 50.0


def log_kv(order: float, z: np.ndarray) -> np.ndarray:
    """``log K_order(z)`` through ``kve``, and the Debye expansion where that overflows
    (orders ``>= DEBYE_MIN_ORDER``, ``z > 0``); non-finite where neither gives a value."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        out = np.log(special.kve(order, z)) - z
    if order >= DEBYE_MIN_ORDER:  # K_order overflows well away from z = 0
        bad = ~np.isfinite(out) & (z > 0) & np.isfinite(z)
        out[bad] = log_kv_debye(order, z[bad])
    return out


def log_kv_debye(nu: float, z: np.ndarray) -> np.ndarray:
    """``log K_nu(z)`` by the uniform asymptotic (Debye) expansion for large ``nu``.

    Abramowitz & Stegun 9.7.8 with the polynomials u_1..u_4 of 9.3.9-9.3.10.
    """
    z = np.asarray(z, dtype=np.float64)
    t = z / nu
    s = np.hypot(1.0, t)  # sqrt(1 + t^2) without overflow for huge z
    p = 1.0 / s
    p2 = p * p
    eta = s + np.log(t / (1.0 + s))
    u1 = p * (3.0 - 5.0 * p2) / 24.0
    u2 = p2 * (81.0 - 462.0 * p2 + 385.0 * p2**2) / 1152.0
    u3 = p * p2 * (30375.0 - 369603.0 * p2 + 765765.0 * p2**2 - 425425.0 * p2**3) / 414720.0
    u4 = (
        p2**2
        * (
            4465125.0
            - 94121676.0 * p2
            + 349922430.0 * p2**2
            - 446185740.0 * p2**3
            + 185910725.0 * p2**4
        )
        / 39813120.0
    )
    series = 1.0 - u1 / nu + u2 / nu**2 - u3 / nu**3 + u4 / nu**4
    return 0.5 * np.log(np.pi / (2.0 * nu)) - nu * eta - 0.5 * np.log(s) + np.log(series)
