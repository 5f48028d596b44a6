"""Deterministic quadrature behind :mod:`kernelkit.features.theory.fourier` and ``.angular``.

The central quantity is ``T(z) = E[cos <w_1 + w_2, z>]`` for an *orthogonal* pair of
frequencies ``w_1 \\perp w_2`` with independent norms from ``rho_K`` (Rowland (2018)
Prop. 7.17: ``E[cos <w_1, z> cos <w_2, z>] = T(z)``). Prop. 7.15 writes it as
``E[g(sqrt(R_1^2 + R_2^2) |z|)]`` with ``g(a) = Gamma(d/2) J_(d/2-1)(a) / (a/2)^(d/2-1)``,
an oscillatory integral with a heavy tail for Matérn kernels. We evaluate it without
oscillatory integrals:

* Gaussian kernels: ``R_1^2 + R_2^2 ~ chi2_(2d)``, and ``E[g(chi_(2d) s)]`` sums to the
  confluent hypergeometric function ``1F1(d; d/2; -s^2/2)`` (term by term from the
  moments of ``chi2_(2d)`` and the series ``g(a) = 0F1(; d/2; -a^2/4)``).
* Gaussian scale mixtures (Matérn, Laplace): ``w = sqrt(lam) g / lengthscale`` with
  ``lam = 1/V``, ``V ~ Gamma(nu, rate nu)``. Conditioning on ``w_1``, the component of
  ``w_2`` along ``z`` is that of an isotropic vector in the ``(d-1)``-dimensional
  complement of ``w_1``, so with ``gamma`` the angle between ``w_1`` and ``z``
  (density ``\\propto sin^(d-2) gamma``)::

      T(z) = E_gamma[ A(|z| cos gamma) C(|z| sin gamma) ],
      A(s) = E_lam[1F1(d/2; 1/2; -lam s^2 / 2)]        (= E[cos(R s)]),
      C(s) = E_lam[1F1(d/2; (d-1)/2; -lam s^2 / 2)]    (= E[g_(d-1)(R s)]),

  Gauss–Legendre in ``gamma`` (after a smoothstep substitution) and the trapezoid rule
  in ``log V`` (exponentially accurate for these analytic integrands; 1e-15 against the
  closed-form Matérn kernel, ~1e-13 between this rule and one twice as fine, for
  ``d <= 128``; beyond, ``scipy.special.hyp1f1`` is unreliable and we refuse).
* sinc (``d <= 3``): a point mass (``d = 3``, closed form) or a smooth 2-D Gauss–Legendre
  rule in ``U`` (``d = 1, 2``).

For the angular kernel the covariance of two orthogonal sign features is a 1-D integral
(:func:`angular_pair_covariance`), derived from the proof of Rowland (2018) Thm. 7.5.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import integrate, optimize, special

from kernelkit.features._radial import RadialSpec

__all__ = [
    "hyp1f1_neg",
    "orthogonal_pair_cos",
    "bessel_mean",
    "angular_pair_covariance",
]


def hyp1f1_neg(a: float, b: float, x: np.ndarray) -> np.ndarray:
    """``1F1(a; b; -x)`` for ``x >= 0``.

    Beyond ``x0 = 1e4 + 20 a^2`` the asymptotic series ``Gamma(b)/Gamma(b-a) x^(-a)
    sum_k (a)_k (a-b+1)_k / (k! x^k)`` (DLMF 13.7.2; the exponentially small part is
    dropped) replaces ``scipy.special.hyp1f1``, which is slow or NaN there.
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    x0 = 1e4 + 20.0 * a * a
    near = x <= x0
    out[near] = special.hyp1f1(a, b, -x[near])
    far = x[~near]
    if far.size:
        term = np.ones_like(far)
        total = np.zeros_like(far)
        for k in range(6):
            total += term
            term = term * (a + k) * (a - b + 1.0 + k) / ((k + 1.0) * far)
        with np.errstate(under="ignore"):
            out[~near] = special.gamma(b) * special.rgamma(b - a) * far ** (-a) * total
    return out


#: Largest dimension for which the Matérn quadrature is validated: beyond it
#: ``scipy.special.hyp1f1(d/2, 1/2, -x)`` loses accuracy (e.g. ``d = 256``, ``x = 1``).
MATERN_MAX_D = 128


@lru_cache(maxsize=64)
def _log_gamma_rule(shape: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Nodes ``V`` and weights for ``E[f(V)]``, ``V ~ Gamma(shape, rate=shape)``.

    Trapezoid rule with step ``h`` in ``y = log V``, where the density is ``\propto
    exp(shape (y - e^y))``, over the range where it exceeds ``e^-40`` of its peak.
    """
    depth = 40.0

    def excess(y: float) -> float:
        return shape * (math.exp(y) - y - 1.0) - depth

    y_lo = optimize.brentq(excess, -depth / shape - 2.0, 0.0)
    y_hi = optimize.brentq(excess, 0.0, math.log(2.0 + 2.0 * depth / shape) + 1.0)
    n = math.ceil((y_hi - y_lo) / h) + 1
    y = np.linspace(y_lo, y_hi, n)
    logw = shape * (y - np.exp(y))
    w = np.exp(logw - logw.max())
    return np.exp(y), w / w.sum()


def _mixing_step(nu: float, d: int = 1) -> float:
    """Step in ``log V``: the density peak has width ``1/sqrt(nu)``, and ``E[cos(R s)]``
    oscillates ``~sqrt(d)`` times across the mixture (steps tuned against ``h/4``)."""
    return min(0.25, 0.5 / math.sqrt(nu), 1.2 / math.sqrt(d))


@lru_cache(maxsize=64)
def _angle_rule(d: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Nodes on ``[0, pi/2]`` for the law ``\propto sin^(d-2) gamma``: Gauss–Legendre after
    ``gamma = (pi/2)(3u^2 - 2u^3)``, which flattens the ``|s|^(2 nu)`` (and ``s^2 log s``)
    non-smoothness of the mixture's characteristic functions at both ends."""
    x, w = special.roots_legendre(n)
    u = 0.5 * (x + 1.0)
    gamma = (np.pi / 2.0) * u * u * (3.0 - 2.0 * u)
    w = w * u * (1.0 - u) * np.sin(gamma) ** (d - 2)
    return gamma, w / w.sum()


def _checked(values: np.ndarray, what: str) -> np.ndarray:
    """Expectations of functions bounded by 1: anything else is a numerical failure."""
    if not np.all(np.abs(values) <= 1.0 + 1e-9):
        raise RuntimeError(f"numerical failure evaluating {what} (1F1 out of range)")
    return values


def _matern_T(s: float, d: int, nu: float, refine: int = 1) -> float:
    """``T`` for the Matérn-``nu`` kernel at scaled distance ``s = |z| / lengthscale``
    (``refine`` multiplies the numbers of nodes, for convergence checks)."""
    v, wv = _log_gamma_rule(nu, _mixing_step(nu, d) / refine)
    lam = 1.0 / v
    gamma, wg = _angle_rule(d, refine * (48 + 6 * math.ceil(math.sqrt(d))))
    x = 0.5 * s * s * lam  # lam s^2 / 2
    A = hyp1f1_neg(0.5 * d, 0.5, np.outer(np.cos(gamma) ** 2, x))
    C = hyp1f1_neg(0.5 * d, 0.5 * (d - 1), np.outer(np.sin(gamma) ** 2, x))
    A = _checked(A, "E[cos(R s)]") @ wv
    C = _checked(C, "E[g_(d-1)(R s)]") @ wv
    return float(wg @ (A * C))


def _sinc_T(s: float, d: int) -> float:
    """``T`` for the sinc kernel at scaled distance ``s``, ``d <= 3``."""
    if d == 3:  # |w_1 + w_2| = sqrt(2) exactly
        return float(np.sinc(math.sqrt(2.0) * s / np.pi))
    n = 48 + math.ceil(2.0 * s)
    u, w = special.roots_legendre(n)
    u, w = 0.5 * (u + 1.0), 0.5 * w
    r2 = u * u if d == 1 else 1.0 - u * u  # |w|^2 for one frequency
    a = np.sqrt(r2[:, None] + r2[None, :]) * s
    g = np.cos(a) if d == 1 else special.j0(a)
    return float(w @ g @ w)


def orthogonal_pair_cos(spec: RadialSpec, z: np.ndarray, d: int, refine: int = 1) -> np.ndarray:
    """``T(|z|) = E[cos <w_1 + w_2, z>]`` for orthogonal ``w_1, w_2`` (``d >= 2``).

    Rowland (2018) Prop. 7.15's ``E[g(sqrt(R_1^2 + R_2^2) |z|)]``, for the normalised
    spectral measure (no ``variance`` factor).
    """
    s = np.asarray(z, dtype=np.float64) / spec.lengthscale
    if spec.family == "gaussian":
        return _checked(hyp1f1_neg(float(d), 0.5 * d, 0.5 * s * s), "1F1(d; d/2; -x)")
    if spec.family == "matern" and d > MATERN_MAX_D:
        raise NotImplementedError(
            f"the orthogonal-feature quadrature for Matérn kernels is validated for "
            f"d <= {MATERN_MAX_D} only (got d={d}); use Monte Carlo, or the Gaussian kernel"
        )
    flat = s.ravel()
    if spec.family == "sinc":
        out = np.array([_sinc_T(si, d) for si in flat])
    else:
        out = np.array([_matern_T(si, d, spec.nu, refine) for si in flat])
    return out.reshape(s.shape)


def bessel_mean(spec: RadialSpec, z: np.ndarray, d: int) -> np.ndarray:
    """``E[g(R |z|)] = E[cos <w, z>]`` through the same representations as
    :func:`orthogonal_pair_cos`; equals the normalised profile ``phi(|z|)`` (a check of
    the mixture quadrature and of the spectral laws)."""
    s = np.asarray(z, dtype=np.float64) / spec.lengthscale
    if spec.family == "gaussian":
        return hyp1f1_neg(0.5 * d, 0.5 * d, 0.5 * s * s)  # = exp(-s^2 / 2)
    if spec.family == "matern":
        v, wv = _log_gamma_rule(spec.nu, _mixing_step(spec.nu))
        return np.exp(-0.5 * np.multiply.outer(s * s, 1.0 / v)) @ wv
    if d == 3:
        return np.sinc(s / np.pi)
    u, w = special.roots_legendre(96)
    u, w = 0.5 * (u + 1.0), 0.5 * w
    r = u if d == 1 else np.sqrt(1.0 - u * u)
    a = np.multiply.outer(s, r)
    return (np.cos(a) if d == 1 else special.j0(a)) @ w


def _angular_J(s: float, d: int) -> float:
    """``J_d(s) = int_0^1 a^(d-2) log(1 - (1 - a^2) s) / (1 - a^2) da`` (``s = sin^2 theta``)."""
    if s == 0.0:
        return 0.0
    if d == 2:  # the series sums to -arcsin(sqrt(s))^2
        return -(math.asin(math.sqrt(s)) ** 2)

    def f(a: float) -> float:
        q = 1.0 - a * a
        if q < 1e-12:
            return -(a ** (d - 2)) * s  # the a -> 1 limit
        return a ** (d - 2) * math.log1p(-q * s) / q

    return integrate.quad(f, 0.0, 1.0, epsabs=1e-14, epsrel=1e-12, limit=200)[0]


def angular_pair_covariance(theta: np.ndarray, d: int) -> np.ndarray:
    """``Cov(S_1, S_2)`` of two orthogonal sign features ``S_i = sign<w_i,x> sign<w_i,y>``.

    Following the proof of Rowland (2018) Prop. 7.16: with ``phi`` the angle between
    ``w_1`` and the ``x``-``y`` plane, ``a = sin phi`` has density ``(d-2) a^(d-3)`` on
    ``[0, 1]``, and eq. 7.45 gives ``P(A_1 \\cap A_2) = (2/pi^2) int_0^theta
    E_a[arctan(a tan v)] dv`` for ``theta <= pi/2``. Integrating by parts in ``a`` (with
    ``d/da int_0^theta arctan(a tan v) dv = -log(cos^2 theta + a^2 sin^2 theta) /
    (2 (1 - a^2))``) and using ``Cov = 4 (P(A_1 \\cap A_2) - (theta/pi)^2)`` (eqs.
    7.33-7.34)::

        Cov = (4 / pi^2) int_0^1 a^(d-2) log(1 - (1 - a^2) sin^2 theta) / (1 - a^2) da,

    which is ``< 0`` for ``theta`` in ``(0, pi)`` (Thm. 7.5), symmetric under
    ``theta -> pi - theta`` (eq. 7.46), and ``-4 theta^2 / pi^2`` for ``d = 2``
    (acute ``theta``).
    """
    th = np.asarray(theta, dtype=np.float64)
    s = np.sin(th) ** 2
    J = np.array([_angular_J(float(si), d) for si in s.ravel()]).reshape(th.shape)
    return 4.0 / np.pi**2 * J
