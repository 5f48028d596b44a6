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
#: Panels of the Kesten-McKay quadrature, halving in width towards ``lambda_-`` (more
#: for large ``p``).
_GRADED_PANELS = 48
#: From this ``p`` on, :func:`regular_tree_approximation` is its large-``p`` limit, the
#: master curve: the relative corrections, of order ``p^(-1/2)``, are below 1e-15.
_MASTER_P = 10**32
#: Absolute tolerance of the root finders: the smallest float, so that a root however
#: close to 0 is found to the relative tolerance (Brent bisects at worst: 3000 steps).
_XTOL = 5e-324


def eigenvalue_approximation(kernel: Any, noise: Any, nus: Any) -> np.ndarray:
    """The eigenvalue approximation (Urry & Sollich 2013, eq. 18) on one graph's kernel.

    Solves ``epsilon = g(N / (epsilon + sigma2))``, ``g(h) = sum_alpha (1/lambda_alpha +
    h)^(-1)``, with ``lambda_alpha`` the eigenvalues of ``C / V`` and ``N = nu V``, for
    each ``nu`` by Brent's method on ``[0, epsilon(0)]`` (to about 1e-14 relative). For
    ``nu >= 1`` the equation is first solved in ``s = epsilon + sigma2`` in a form whose
    terms are all non-negative, so that a noise far below ``epsilon`` (``1e-300``) is
    not lost to rounding; a noise far above (``1e300``) gives ``epsilon(0)``, and the
    scale of ``C`` does not matter (the equation is homogeneous in ``C``, ``sigma2`` and
    ``epsilon``).

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
    if kernel is None or isinstance(kernel, (str, bytes)):
        raise TypeError(f"kernel must be a (V, V) array of numbers, got {type(kernel).__name__}")
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
    radius = _kesten_mckay_radius(d)
    out = np.zeros(lam.shape)
    ok = np.abs(lam - 1.0) < radius  # also keeps (lam - 1)^2 from overflowing
    lk = lam[ok]
    # sqrt(R^2 - (lam - 1)^2) = sqrt((R - |lam - 1|)(R + |lam - 1|)); d / (2 pi) = 1 / (pi R^2
    # (1 - 1/d)) would not overflow either, but d / (2 pi) is finite for any d < 2**1024
    gap = np.abs(lk - 1.0)
    out[ok] = (
        np.sqrt((radius - gap) * (radius + gap)) / (lk * (2.0 - lk)) * (float(d) / (2.0 * math.pi))
    )
    return out


def regular_tree_approximation(d: Any, a: Any, p: Any, noise: Any, nus: Any) -> np.ndarray:
    """The eigenvalue approximation for large random ``d``-regular graphs (Urry & Sollich
    2013, eqs. 18, 20-21).

    ``g(h) = int rho(lambda) [kappa (1 - lambda/a)^(-p) + h/V]^(-1) d lambda`` over the
    Kesten-McKay density ``rho`` (:func:`kesten_mckay_density`), with the global
    normalisation ``kappa = int rho (1 - lambda/a)^p`` (``g(0) = 1``). The integral is a
    Gauss-Legendre quadrature in ``theta`` (``lambda = 1 - R cos theta``, which removes
    the square-root edges of ``rho``) on panels halving in width towards ``lambda_-``,
    where ``(1 - lambda/a)^p`` concentrates for large ``p`` (with further panels down its
    tail, so that each sees it fall by at most ``e^-2``); the kernel eigenvalues are
    computed in logs relative to ``lambda_-``, from ``lambda - lambda_-`` without
    cancellation, so nothing under- or overflows for any ``p``. From ``p = 10**32`` on
    the result is the master curve (:func:`master_curve`), its large-``p`` limit, whose
    relative corrections (of order ``1/p``) are below float precision there. The fixed
    point is found for any ``noise > 0`` and ``nu``, however small or large (see
    :func:`eigenvalue_approximation`).

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
    if p >= _MASTER_P:
        # the master curve is this curve's large-p limit (eqs. 22-26), with relative
        # corrections of order p^(-1/2): below float precision here
        return master_curve(nus, noise, d=d, a=a, p=p)
    lam_minus = 1.0 - _kesten_mckay_radius(d)
    _, delta, weights = _kesten_mckay_nodes(d, p, a)
    # (1 - lambda/a)^p relative to its largest value, at lambda_-, in logs (eq. 22's
    # pitfall): (1 - lambda/a) / (1 - lambda_-/a) = 1 - (lambda - lambda_-) / (a - lambda_-),
    # with lambda - lambda_- computed without cancellation.
    w = np.exp(float(p) * np.log1p(-delta / (a - lam_minus)))
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
    out = np.empty(flat.size)
    for i, zi in enumerate(flat.tolist()):
        out[i] = _master_integral_at(math.log(zi) if zi > 0 else -math.inf)
    return out.reshape(z.shape)


def _master_integral_at(lz: float) -> float:
    """``F(z)`` from ``lz = log z`` (``-inf`` for ``z = 0``; any finite ``lz``, so that
    ``z`` itself may lie beyond the float range)."""
    # The integrand 2 u^2 / (e^{u^2} + z) turns over at u^2 = log z, over a width of
    # about 1 / (2u) in u; 40 panels per unit of u resolve it for any z.
    top = math.sqrt(max(lz, 0.0) + 50.0)
    u, w = _gauss_panels(np.linspace(0.0, top, max(8, math.ceil(40 * top)) + 1))
    with np.errstate(under="ignore"):
        return float(w @ (2.0 * u * u * np.exp(-np.logaddexp(u * u, lz))))


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
    lam_minus = 1.0 - _kesten_mckay_radius(d)
    f0 = math.sqrt(math.pi) / 2.0
    # log c, c = r F(0) ((a - lambda_-) / p)^(3/2), r = (d-1)^(1/4) d^(5/2) / (pi (d-2)^2):
    # in logs, so that no d, a or p over- or underflows it
    log_c = (
        0.25 * math.log(d - 1)
        + 2.5 * math.log(d)
        - math.log(math.pi)
        - 2.0 * math.log(d - 2)
        + math.log(f0)
        + 1.5 * (math.log(a - lam_minus) - math.log(p))
    )
    out = np.empty(nus.size)
    for k, nu in enumerate(nus.tolist()):
        if nu == 0.0:
            out[k] = 1.0
            continue
        log_nu = math.log(nu)

        def excess(eps: float, log_nu: float = log_nu) -> float:
            log_z = log_nu - log_c - math.log(eps + noise)  # z = nu / (c (eps + noise))
            return eps - _master_integral_at(log_z) / f0

        if excess(0.0) >= 0.0:  # F(z) underflows to 0 at epsilon = 0: the root is 0
            out[k] = 0.0
            continue
        out[k] = brentq(excess, 0.0, 1.0, xtol=_XTOL, rtol=1e-14, maxiter=3000)
    return out


# -- helpers -----------------------------------------------------------------------------


def _solve_fixed_point(
    mu: np.ndarray, weights: np.ndarray, noise: float, nus: np.ndarray
) -> np.ndarray:
    """``epsilon = sum_k w_k mu_k / (1 + mu_k nu / (epsilon + noise))`` per ``nu`` (eq. 18).

    The equation is homogeneous: ``(mu, noise, epsilon) -> c (mu, noise, epsilon)``
    leaves it unchanged, so it is solved with ``mu`` and ``noise`` divided by the power
    of two nearest ``epsilon(0) = sum w mu`` (exact), and the root scaled back. With
    ``s = epsilon + noise`` and ``sum w = 1`` it reads ``F(epsilon) = epsilon - g = 0``
    or, equivalently, ``S(s) = sum_k w_k s (s + mu_k (nu - 1)) / (s + mu_k nu) = noise``.
    (``S`` adds ``s (1 - sum w)`` for the rounding of the weights.)
    ``F`` keeps ``noise`` only while it is not below the rounding of ``epsilon``; for
    ``nu >= 1`` every term of ``S`` is non-negative, so ``S`` is accurate whatever the
    ratio of ``noise`` to ``epsilon``. So for ``nu >= 1`` the root is first sought in
    ``s``, and kept where ``epsilon >= noise`` (where ``s - noise`` loses nothing);
    otherwise, and for ``nu < 1``, in ``epsilon``. Brent's method (bracketed, at most
    3000 steps: enough to bisect down to the smallest float) on ``[0, epsilon(0)]``,
    where ``F(0) < 0 <= F(epsilon(0))``; where rounding makes ``F(epsilon(0)) < 0`` (a
    noise so large that the data teach nothing) the root is ``epsilon(0)``.
    """
    out = np.zeros(nus.size)
    eps0 = float(weights @ mu)
    if eps0 == 0.0:
        return out
    shift = math.frexp(eps0)[1]
    mu = np.ldexp(mu, -shift)
    eps0 = math.ldexp(eps0, -shift)
    noise = math.ldexp(noise, -shift)
    with np.errstate(over="ignore", divide="ignore"):
        inv_mu = 1.0 / mu  # inf where mu is 0 or subnormal: such a term of g is 0
    spare = 1.0 - math.fsum(weights.tolist())  # sum w = 1 up to the rounding of w

    def excess(eps: float, nu: float) -> float:  # F: eps - sum w mu / (1 + mu nu / s)
        s = eps + noise
        t = nu / s  # a Python float: inf where it overflows, then the form without it
        if math.isfinite(t):
            return eps - float(weights @ (1.0 / (inv_mu + t)))
        return eps - float(weights @ (s / (s * inv_mu + nu)))  # s tiny: no overflow

    def deficit(s: float, nu: float) -> float:  # S(s) - noise, every term >= 0 for nu >= 1
        with np.errstate(over="ignore", invalid="ignore"):
            ratio = (s + mu * (nu - 1.0)) / (s + mu * nu)
        ratio[np.isnan(ratio)] = 1.0  # inf / inf: mu nu beyond the float range, ratio 1
        return s * (float(weights @ ratio) + spare) - noise

    for k, nu in enumerate(nus.tolist()):
        if nu == 0.0:
            out[k] = eps0
            continue
        if excess(eps0, nu) <= 0.0:
            out[k] = eps0
            continue
        top = noise + eps0
        if nu >= 1.0 and noise < eps0 and deficit(noise, nu) < 0.0 < deficit(top, nu):
            s = brentq(deficit, noise, top, args=(nu,), xtol=_XTOL, rtol=1e-15, maxiter=3000)
            if s - noise >= noise:
                out[k] = s - noise
                continue
        if excess(0.0, nu) >= 0.0:
            continue  # g underflows to 0 at epsilon = 0: the root is 0
        out[k] = brentq(excess, 0.0, eps0, args=(nu,), xtol=_XTOL, rtol=1e-14, maxiter=3000)
    return np.ldexp(out, shift)


def _gauss_panels(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of Gauss-Legendre rules on the panels between ``edges``."""
    x, w = np.polynomial.legendre.leggauss(_NODES_PER_PANEL)
    lo, hi = edges[:-1, None], edges[1:, None]
    half = (hi - lo) / 2.0
    return (lo + half * (x + 1.0)).ravel(), (half * w).ravel()


def _kesten_mckay_radius(d: int) -> float:
    """``R = 2 sqrt(d - 1) / d``, the half-width of the Kesten-McKay support (any ``d``)."""
    return 2.0 * math.sqrt(1.0 / d - 1.0 / d / d) if d < 2**1000 else 2.0 / math.sqrt(d)


def _kesten_mckay_quadrature(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``lambda_k`` and weights ``rho(lambda_k) dlambda`` on ``[lambda_-, lambda_+]``
    (see :func:`_kesten_mckay_nodes`)."""
    lam, _, weights = _kesten_mckay_nodes(d, 0, 2.0)
    return lam, weights


def _kesten_mckay_nodes(d: int, p: int, a: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes ``lambda_k``, ``lambda_k - lambda_-`` and weights ``rho(lambda_k) dlambda``
    on ``[lambda_-, lambda_+]``.

    ``lambda = 1 - R cos(theta)``, ``R = 2 sqrt(d-1) / d``, ``theta in [0, pi]``:
    ``rho dlambda = (d / 2 pi) R^2 sin^2(theta) / (lambda (2 - lambda)) dtheta``, smooth.
    Panels halve in width towards both ends; towards ``lambda_-`` down to a width far
    below ``p^(-1/2)``, the width in ``theta`` over which ``(1 - lambda/a)^p`` falls.
    For ``p > 0`` further panel edges sit where ``(1 - lambda/a)^p`` relative to its
    value at ``lambda_-`` has fallen by ``e^-2, e^-4, ..., e^-760`` (below that, every
    kernel eigenvalue underflows), so that each panel sees it fall by at most ``e^-2``
    however deep in its tail the fixed point of eq. 18 lies. ``lambda - lambda_- =
    2 R sin^2(theta / 2)`` keeps its relative precision for any ``theta`` (``R (1 - cos
    theta)`` would lose it all below ``theta = 1e-8``).
    """
    radius = _kesten_mckay_radius(d)
    # Graded towards lambda_- (where (1 - lambda/a)^p concentrates) and, less, towards
    # lambda_+ (1 / (2 - lambda) has a pole near theta = pi +- 0.35i for d = 3).
    n_low = max(_GRADED_PANELS, math.ceil(0.5 * math.log2(max(p, 1))) + 30)
    low = 0.5 * math.pi * 0.5 ** np.arange(n_low, -1, -1)
    high = math.pi - 0.5 * math.pi * 0.5 ** np.arange(1, 12)
    edges = np.concatenate([[0.0], low, high, [math.pi]])
    if p > 0:
        # (1 - lambda/a)^p / (1 - lambda_-/a)^p = e^-x at lambda - lambda_- = delta(x)
        x = np.arange(2.0, 762.0, 2.0)
        delta = (a - 1.0 + radius) * -np.expm1(-x / float(p))
        delta = delta[delta < 2.0 * radius]
        tail = 2.0 * np.arcsin(np.sqrt(delta / (2.0 * radius)))
        edges = np.unique(np.concatenate([edges, tail]))
    theta, w = _gauss_panels(edges)
    lam = 1.0 - radius * np.cos(theta)
    delta = 2.0 * radius * np.sin(0.5 * theta) ** 2
    # (d / 2 pi) R^2 = 2 (d - 1) / (pi d): no overflow for any d
    scale = 2.0 * (1.0 - 1.0 / d) / math.pi
    weights = w * scale * np.sin(theta) ** 2 / (lam * (2.0 - lam))
    return lam, delta, weights


def _check_degree(d: Any) -> int:
    d = check_int(d, "d", minimum=3)
    return d
