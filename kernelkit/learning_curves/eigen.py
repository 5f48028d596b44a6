"""The eigenvalue approximation to GP learning curves and its large-``p`` master curve.

Urry & Sollich (2013), Sec. 3.4, following Sollich (1999) and Malzahn & Opper (2005):
with ``lambda_alpha`` the eigenvalues of ``C / V`` (``(1/V) sum_j C_ij phi_j =
lambda phi_i``) the Bayes error after ``N = nu V`` examples is approximately the solution
of (eq. 18)::

    epsilon = g(N / (epsilon + sigma2)),   g(h) = sum_alpha (1/lambda_alpha + h)^(-1)

In terms of the eigenvalues ``mu_alpha = V lambda_alpha`` of ``C`` itself this is
``epsilon = (1/V) sum_alpha mu_alpha / (1 + mu_alpha t)`` with ``t = nu / (epsilon +
sigma2)``: it depends on ``nu`` only. ``g`` grows with ``epsilon``, so the fixed point is
bracketed by ``[0, epsilon(0)]``, ``epsilon(0) = g(0) = tr(C) / V`` the mean prior
variance, and found by Brent's method for each ``nu``.

For large random ``d``-regular graphs the spectrum of the normalised Laplacian tends to
the Kesten-McKay law (eq. 20) and ``g`` becomes an integral over it (eq. 21), with the
globally normalised kernel eigenvalues ``(1 - lambda/a)^p / kappa``,
``kappa = int rho(lambda) (1 - lambda/a)^p d lambda``. For large ``p`` only ``lambda``
near the lower edge ``lambda_-`` contributes, and the curve becomes the master curve
(eqs. 22-26) ``epsilon = F(nu / (c (epsilon + sigma2))) / F(0)``,
``F(z) = int_0^inf y^(1/2) / (e^y + z) dy``, ``c = r F(0) ((a - lambda_-)/p)^(3/2)``:
learning curves for different ``p`` collapse against ``nu p^(3/2)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import brentq

from kernelkit._validation import check_int, check_positive_scalar
from kernelkit.learning_curves.simulation import _check_nus

__all__ = [
    "eigenvalue_approximation",
    "kesten_mckay_density",
    "master_curve",
    "master_integral",
    "regular_tree_approximation",
]

#: Gauss-Legendre nodes per panel of the quadratures.
_NODES_PER_PANEL = 16
#: Panels of the Kesten-McKay quadrature, halving in width towards ``lambda_-``.
_GRADED_PANELS = 48


def eigenvalue_approximation(kernel: Any, noise: Any, nus: Any) -> np.ndarray:
    """The eigenvalue approximation (Urry & Sollich 2013, eq. 18) on one graph's kernel.

    Solves ``epsilon = g(N / (epsilon + sigma2))``, ``g(h) = sum_alpha (1/lambda_alpha +
    h)^(-1)``, with ``lambda_alpha`` the eigenvalues of ``C / V`` and ``N = nu V``, for
    each ``nu`` by Brent's method on ``[0, epsilon(0)]`` (to about 1e-14 relative).

    Parameters
    ----------
    kernel : array-like of shape (V, V)
        The (symmetric, positive semi-definite) kernel matrix ``C`` of one graph, e.g.
        from :func:`kernelkit.graphs.random_walk_kernel`. Eigenvalues below 0 by
        rounding count as 0.
    noise : float
        The noise variance ``sigma2 > 0``.
    nus : float or array-like of shape (n_nus,)
        Examples per vertex ``nu = N / V >= 0``.

    Returns
    -------
    ndarray of shape (n_nus,)
        The approximate Bayes error; ``epsilon(0) = tr(C) / V`` (1 for a normalised
        kernel).

    See Also
    --------
    kernelkit.learning_curves.simulate : The exact learning curve, by simulation.
    regular_tree_approximation : The same on the large-``V`` regular-graph spectrum.

    Examples
    --------
    >>> from kernelkit.graphs import random_regular_graph, random_walk_kernel
    >>> G = random_regular_graph(3, 200, random_state=0)
    >>> C = random_walk_kernel(G, a=2.0, p=10, normalize="global")
    >>> eigenvalue_approximation(C, noise=0.1, nus=[0.0, 1.0, 10.0]).round(4).tolist()
    [1.0, 0.0537, 0.0052]
    """
    noise = check_positive_scalar(noise, "noise")
    nus = _check_nus(nus)
    C = np.asarray(kernel, dtype=np.float64)
    if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] == 0:
        raise ValueError(f"kernel must be a square (V, V) matrix, got shape {C.shape}")
    if not np.all(np.isfinite(C)):
        raise ValueError("kernel must have finite entries")
    if not np.allclose(C, C.T, rtol=0.0, atol=1e-10 * float(np.abs(C).max())):
        raise ValueError("kernel must be symmetric")
    mu = np.maximum(np.linalg.eigvalsh(C), 0.0)
    return _solve_fixed_point(mu, np.full(mu.size, 1.0 / mu.size), noise, nus)


def kesten_mckay_density(eigenvalues: Any, d: Any) -> np.ndarray:
    """The Kesten-McKay density of the normalised Laplacian of the ``d``-regular tree
    (Urry & Sollich 2013, eq. 20).

    ``rho(lambda) = sqrt(4(d-1)/d^2 - (lambda-1)^2) / ((2 pi / d) lambda (2 - lambda))``
    on ``lambda_- <= lambda <= lambda_+``, ``lambda_+- = 1 +- 2 sqrt(d-1) / d``, and 0
    elsewhere: the limit of the spectral density of large random ``d``-regular graphs
    (McKay 1981). It integrates to 1.

    Parameters
    ----------
    eigenvalues : float or array-like
        Eigenvalues ``lambda`` of the normalised Laplacian.
    d : int
        The degree, ``d >= 3``.

    Returns
    -------
    ndarray of the shape of ``eigenvalues``
        ``rho(lambda)``, 0 outside ``(lambda_-, lambda_+)``.

    Examples
    --------
    >>> from scipy.integrate import quad
    >>> lo, hi = 1 - 2 * 2**0.5 / 3, 1 + 2 * 2**0.5 / 3
    >>> round(quad(lambda x: float(kesten_mckay_density(x, 3)), lo, hi)[0], 10)
    1.0
    """
    d = _check_degree(d)
    lam = np.asarray(eigenvalues, dtype=np.float64)
    radius2 = 4.0 * (d - 1) / d**2
    inside = radius2 - (lam - 1.0) ** 2
    out = np.zeros(lam.shape)
    ok = inside > 0
    lk = lam[ok]
    out[ok] = np.sqrt(inside[ok]) / ((2.0 * math.pi / d) * lk * (2.0 - lk))
    return out


def regular_tree_approximation(d: Any, a: Any, p: Any, noise: Any, nus: Any) -> np.ndarray:
    """The eigenvalue approximation for large random ``d``-regular graphs (Urry & Sollich
    2013, eqs. 18, 20-21).

    ``g(h) = int rho(lambda) [kappa (1 - lambda/a)^(-p) + h/V]^(-1) d lambda`` over the
    Kesten-McKay density ``rho`` (:func:`kesten_mckay_density`), with the global
    normalisation ``kappa = int rho (1 - lambda/a)^p`` (``g(0) = 1``). The integral is a
    Gauss-Legendre quadrature in ``theta`` (``lambda = 1 - R cos theta``, which removes
    the square-root edges of ``rho``) on panels halving in width towards ``lambda_-``,
    where ``(1 - lambda/a)^p`` concentrates for large ``p``; the kernel eigenvalues are
    computed in logs relative to ``lambda_-``, so nothing under- or overflows for any
    ``p``.

    Parameters
    ----------
    d : int
        The degree, ``d >= 3``.
    a : float
        The random walk kernel's ``a >= 2`` (eq. 2).
    p : int
        The random walk kernel's ``p >= 0``.
    noise : float
        The noise variance ``sigma2 > 0``.
    nus : float or array-like of shape (n_nus,)
        Examples per vertex ``nu >= 0``.

    Returns
    -------
    ndarray of shape (n_nus,)
        The approximate Bayes error under global normalisation; 1 at ``nu = 0``.

    See Also
    --------
    master_curve : The large-``p`` limit.

    Examples
    --------
    Fig. 4 (left) of the paper: 3-regular graphs, ``a = 2``, ``sigma2 = 0.1``.

    >>> regular_tree_approximation(3, 2.0, 10, 0.1, [0.0, 1.0, 10.0]).round(4).tolist()
    [1.0, 0.0547, 0.0052]
    """
    d = _check_degree(d)
    a = check_positive_scalar(a, "a")
    if a < 2.0:
        raise ValueError(f"a must be >= 2 (a positive semi-definite kernel), got {a!r}")
    p = check_int(p, "p", minimum=0)
    noise = check_positive_scalar(noise, "noise")
    nus = _check_nus(nus)
    lam, weights = _kesten_mckay_quadrature(d)
    lam_minus = 1.0 - 2.0 * math.sqrt(d - 1) / d
    # (1 - lambda/a)^p relative to its largest value, at lambda_-, in logs (eq. 22's pitfall).
    w = np.exp(p * (np.log1p(-lam / a) - math.log1p(-lam_minus / a)))
    mu = w / float(weights @ w)
    return _solve_fixed_point(mu, weights, noise, nus)


def master_integral(z: Any) -> np.ndarray:
    """``F(z) = int_0^inf y^(1/2) / (e^y + z) dy`` of the master curve (Urry & Sollich
    2013, eq. 24), for ``z >= 0``.

    ``F(0) = sqrt(pi) / 2``; ``F(z) = -Gamma(3/2) Li_{3/2}(-z) / z``, about
    ``(2/3) log(z)^(3/2) / z`` for large ``z``. Computed as ``int 2 u^2 / (e^{u^2} + z)
    du`` (``y = u^2``) by Gauss-Legendre panels up to ``u^2 = log z + 50``, with
    ``1 / (e^{u^2} + z) = exp(-logaddexp(u^2, log z))`` (no overflow for any ``z``); about
    1e-14 relative.

    Parameters
    ----------
    z : float or array-like
        ``z >= 0``.

    Returns
    -------
    ndarray of the shape of ``z``
        ``F(z)``, float64.

    Examples
    --------
    >>> round(float(master_integral(0.0)), 12) == round(3.141592653589793**0.5 / 2, 12)
    True
    """
    z = np.asarray(z, dtype=np.float64)
    if not np.all(np.isfinite(z)) or np.any(z < 0):
        raise ValueError(f"z must be finite and >= 0, got {z!r}")
    flat = z.ravel()
    log_z = np.log(np.maximum(flat, np.finfo(float).tiny))
    log_z[flat == 0] = -np.inf
    out = np.empty(flat.size)
    for i, lz in enumerate(log_z):
        # The integrand 2 u^2 / (e^{u^2} + z) turns over at u^2 = log z, over a width
        # of about 1 / (2u) in u; 40 panels per unit of u resolve it for any z.
        top = math.sqrt(max(lz, 0.0) + 50.0)
        u, w = _gauss_panels(np.linspace(0.0, top, max(8, math.ceil(40 * top)) + 1))
        out[i] = w @ (2.0 * u * u * np.exp(-np.logaddexp(u * u, lz)))
    return out.reshape(z.shape)


def master_curve(nus: Any, noise: Any, *, d: Any = 3, a: Any = 2.0, p: Any) -> np.ndarray:
    """The large-``p`` master curve of the eigenvalue approximation on ``d``-regular
    graphs (Urry & Sollich 2013, eqs. 22-26).

    Solves ``epsilon = F(nu / (c (epsilon + sigma2))) / F(0)`` (eq. 26) with
    ``F`` = :func:`master_integral`, ``c = r F(0) ((a - lambda_-) / p)^(3/2)`` (eq. 25),
    ``r = (d-1)^(1/4) d^(5/2) / (pi (d-2)^2)`` and ``lambda_- = 1 - 2 sqrt(d-1) / d``.
    It depends on ``nu`` and ``p`` only through ``nu / c``, proportional to
    ``nu p^(3/2)``: curves for different ``p`` collapse against ``nu p^(3/2)`` (Fig. 4).

    Parameters
    ----------
    nus : float or array-like of shape (n_nus,)
        Examples per vertex ``nu >= 0``.
    noise : float
        The noise variance ``sigma2 > 0``.
    d : int, default=3
        The degree, ``d >= 3``.
    a : float, default=2.0
        The random walk kernel's ``a >= 2``.
    p : int
        The random walk kernel's ``p >= 1``.

    Returns
    -------
    ndarray of shape (n_nus,)
        The Bayes error ``epsilon`` of eq. 26 at each ``nu``; 1 at ``nu = 0``.

    Examples
    --------
    The curve for ``p`` at ``nu`` equals the curve for ``8 p`` at ``nu / 8^(3/2)``:

    >>> e1 = master_curve([1.0], 0.1, p=50)
    >>> e2 = master_curve([1.0 / 8**1.5], 0.1, p=400)
    >>> bool(abs(e1[0] - e2[0]) < 1e-12)
    True
    """
    nus = _check_nus(nus)
    noise = check_positive_scalar(noise, "noise")
    d = _check_degree(d)
    a = check_positive_scalar(a, "a")
    if a < 2.0:
        raise ValueError(f"a must be >= 2 (a positive semi-definite kernel), got {a!r}")
    p = check_int(p, "p", minimum=1)
    lam_minus = 1.0 - 2.0 * math.sqrt(d - 1) / d
    f0 = math.sqrt(math.pi) / 2.0
    r = (d - 1) ** 0.25 * d**2.5 / (math.pi * (d - 2) ** 2)
    c = r * f0 * ((a - lam_minus) / p) ** 1.5
    out = np.empty(nus.size)
    for k, nu in enumerate(nus):
        if nu == 0.0:
            out[k] = 1.0
            continue

        def excess(eps: float, nu: float = float(nu)) -> float:
            return eps - float(master_integral(nu / (c * (eps + noise)))) / f0

        out[k] = brentq(excess, 0.0, 1.0, xtol=1e-300, rtol=1e-14)
    return out


# -- helpers -----------------------------------------------------------------------------


def _solve_fixed_point(
    mu: np.ndarray, weights: np.ndarray, noise: float, nus: np.ndarray
) -> np.ndarray:
    """``epsilon = sum_k w_k mu_k / (1 + mu_k nu / (epsilon + noise))`` per ``nu`` (eq. 18)."""
    eps0 = float(weights @ mu)
    wmu = weights * mu

    def g(t: float) -> float:
        return float(wmu @ (1.0 / (1.0 + mu * t)))

    out = np.empty(nus.size)
    for k, nu in enumerate(nus):
        if nu == 0.0 or eps0 == 0.0:
            out[k] = eps0
            continue

        def excess(eps: float, nu: float = float(nu)) -> float:
            return eps - g(nu / (eps + noise))

        # excess(0) = -g(nu / noise) < 0 <= excess(eps0): g grows with eps.
        out[k] = brentq(excess, 0.0, eps0, xtol=1e-300, rtol=1e-14)
    return out


def _gauss_panels(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of Gauss-Legendre rules on the panels between ``edges``."""
    x, w = np.polynomial.legendre.leggauss(_NODES_PER_PANEL)
    lo, hi = edges[:-1, None], edges[1:, None]
    half = (hi - lo) / 2.0
    return (lo + half * (x + 1.0)).ravel(), (half * w).ravel()


def _kesten_mckay_quadrature(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``lambda_k`` and weights ``rho(lambda_k) dlambda`` on ``[lambda_-, lambda_+]``.

    ``lambda = 1 - R cos(theta)``, ``R = 2 sqrt(d-1) / d``, ``theta in [0, pi]``:
    ``rho dlambda = (d / 2 pi) R^2 sin^2(theta) / (lambda (2 - lambda)) dtheta``, smooth.
    Panels halve in width towards both ends.
    """
    radius = 2.0 * math.sqrt(d - 1) / d
    # Graded towards lambda_- (where (1 - lambda/a)^p concentrates) and, less, towards
    # lambda_+ (1 / (2 - lambda) has a pole near theta = pi +- 0.35i for d = 3).
    low = 0.5 * math.pi * 0.5 ** np.arange(_GRADED_PANELS, -1, -1)
    high = math.pi - 0.5 * math.pi * 0.5 ** np.arange(1, 12)
    edges = np.concatenate([[0.0], low, high, [math.pi]])
    theta, w = _gauss_panels(edges)
    lam = 1.0 - radius * np.cos(theta)
    weights = w * (d / (2.0 * math.pi)) * radius**2 * np.sin(theta) ** 2 / (lam * (2.0 - lam))
    return lam, weights


def _check_degree(d: Any) -> int:
    d = check_int(d, "d", minimum=3)
    return d
