"""Isotropic kernels as radial profiles: ``k(x, y) = variance * phi(|x - y| / lengthscale)``.

The error theory of :mod:`kernelkit.features.theory` needs, for each supported kernel, the
normalised profile ``phi``, the charm function (Rowland (2018) Def. 7.7) and the law
``rho_K`` of ``|w|`` for ``w`` drawn from the normalised spectral measure (Def. 7.6). This
module turns a kernel object or a name into a :class:`RadialSpec` that provides them.

Spectral measures (Rowland (2018) Table 7.1, with the Matérn exponent corrected to
``-nu - d/2``; at unit lengthscale):

* Gaussian: ``w ~ N(0, I)``, so ``|w| ~ chi_d``;
* Matérn-``nu``: ``w = g / sqrt(V)`` with ``g ~ N(0, I)`` and ``V ~ chi2_{2 nu} / (2 nu)``
  (a multivariate t with ``2 nu`` degrees of freedom), so ``|w|^2 / (2 nu)`` is
  beta-prime(``d/2``, ``nu``); Laplace is ``nu = 1/2``;
* sinc ``sin r / r``: uniform on the unit sphere for ``d = 3`` (§7.5.3), and its
  projections to ``d = 2`` (``|w| = sqrt(1 - U^2)``) and ``d = 1`` (``|w| = U``),
  ``U ~ Unif[0, 1]``; the kernel is not positive definite for ``d > 3``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from kernelkit._special import DEBYE_MIN_ORDER, log_kv
from kernelkit._validation import check_random_state
from kernelkit.kernels import RBF, Matern, Sinc, resolve_kernel

__all__ = ["PointMass", "RadialSpec", "radial_spec"]


@dataclass(frozen=True)
class RadialSpec:
    """An isotropic kernel ``variance * phi(r / lengthscale)`` of a supported family.

    ``family`` is ``"gaussian"``, ``"matern"`` (smoothness ``nu``) or ``"sinc"``.
    """

    family: str
    lengthscale: float = 1.0
    variance: float = 1.0
    nu: float = math.inf

    # ------------------------------------------------------------------ profile
    def phi(self, r: np.ndarray) -> np.ndarray:
        """Normalised profile ``phi(r / lengthscale)`` (``phi(0) = 1``)."""
        t = np.asarray(r, dtype=np.float64) / self.lengthscale
        if self.family == "gaussian":
            return np.exp(-0.5 * t * t)
        if self.family == "sinc":
            return np.sinc(t / np.pi)  # numpy's sinc is sin(pi x) / (pi x)
        flat = t.reshape(-1, 1)  # the Matérn class evaluates the Bessel form robustly
        out = Matern(lengthscale=1.0, nu=self.nu)(np.zeros((1, 1)), flat)[0]
        return out.reshape(t.shape)

    def charm(self, r: np.ndarray) -> np.ndarray:
        """Normalised charm ``t^2 (phi^2)''(t) - t (phi^2)'(t)`` at ``t = r / lengthscale``.

        The operator ``t^2 D^2 - t D`` commutes with rescaling ``t``, so the charm of the
        kernel at ``r`` is this function of ``r / lengthscale`` (times ``variance^2``).
        Finite for every finite ``r``: 0 in the limit ``t -> inf`` (the sinc kernel's charm,
        ``~2 cos(2t)``, has no limit; beyond the float range it is 0, its mean).
        """
        with np.errstate(over="ignore"):
            t = np.asarray(r, dtype=np.float64) / self.lengthscale
        if self.family == "gaussian":
            t = np.minimum(t, 1e3)  # 4 t^4 exp(-t^2) underflows to 0 long before
            return 4.0 * t**4 * np.exp(-t * t)
        if self.family == "sinc":
            return _charm_sinc(t)
        with np.errstate(over="ignore"):
            u = math.sqrt(2.0 * self.nu) * t
        return _charm_matern(u, self.nu)

    # ------------------------------------------------------------------ spectral law
    def fourier_norm(self, d: int) -> Any:
        """The law ``rho_K`` of ``|w|``, a frozen scipy distribution (or :class:`PointMass`)."""
        scale = 1.0 / self.lengthscale
        if self.family == "gaussian":
            return stats.chi(d, scale=scale)
        if self.family == "matern":
            return matern_fourier_norm(d, self.nu, scale=scale)
        if d == 3:
            return PointMass(scale)
        if d == 2:
            return sinc2_fourier_norm(scale=scale)
        return stats.uniform(0.0, scale)


def radial_spec(kernel: Any, name: str = "kernel") -> RadialSpec:
    """A :class:`RadialSpec` from an isotropic RBF, Matern, Laplace or Sinc kernel, or its name
    (resolved by :func:`kernelkit.kernels.resolve_kernel`)."""
    kernel = resolve_kernel(kernel, name=name, types=(RBF, Matern, Sinc))
    if np.ndim(kernel.lengthscale) != 0:
        raise ValueError(
            f"{name} must be isotropic (a scalar lengthscale); got a lengthscale of shape "
            f"{np.shape(kernel.lengthscale)}"
        )
    ls, var = float(kernel.lengthscale), float(kernel.variance)
    if isinstance(kernel, Sinc):
        return RadialSpec("sinc", ls, var)
    if isinstance(kernel, Matern) and not math.isinf(float(kernel.nu)):
        return RadialSpec("matern", ls, var, float(kernel.nu))
    return RadialSpec("gaussian", ls, var)


# ---------------------------------------------------------------------- charm functions
def _charm_sinc(t: np.ndarray) -> np.ndarray:
    """Charm of ``sin t / t``: ``2 cos 2t - 5 sin(2t) / t + 8 (sin t / t)^2`` (expanding
    ``t^2 (f^2)'' - t (f^2)'``, with no power of ``t`` to overflow), and its Taylor series
    ``16t^4/45 - 8t^6/105 + 32t^8/4725`` near 0; 0 at ``t = inf``."""
    t = np.asarray(t, dtype=np.float64)
    out = np.zeros_like(t)
    small = t < 0.1
    ts = t[small] ** 2
    out[small] = ts * ts * (16.0 / 45.0 - ts * (8.0 / 105.0 - ts * 32.0 / 4725.0))
    mid = ~small & np.isfinite(t)
    tb = t[mid]
    s, c = np.sin(tb), np.cos(tb)  # cos 2t = c^2 - s^2, sin 2t = 2 s c (2t may overflow)
    f = s / tb
    out[mid] = 2.0 * (c - s) * (c + s) - 10.0 * c * f + 8.0 * f * f
    return out


def _log_kv(order: float, u: np.ndarray) -> np.ndarray:
    """``log K_order(u)`` for ``u > 0`` through ``kve``, and the Debye expansion where ``kve``
    overflows for orders ``>= 50``; NaN where neither applies (tiny ``u``, small order)."""
    order = abs(order)
    out = log_kv(order, u)
    if order < DEBYE_MIN_ORDER:
        out[~np.isfinite(out)] = np.nan
    return out


def _charm_matern(u: np.ndarray, nu: float) -> np.ndarray:
    """Charm of ``h(u) = 2^(1-nu)/Gamma(nu) u^nu K_nu(u)`` in its own variable ``u``.

    With ``h' = -c u^nu K_(nu-1)`` and ``h'' = c (u^nu K_(nu-2) - u^(nu-1) K_(nu-1))``
    (``d/du [u^nu K_nu] = -u^nu K_(nu-1)`` and ``K_mu' = -K_(mu-1) - (mu/u) K_mu``), the
    ``K_nu K_(nu-1) / u`` terms cancel and ``Psi = 2 c^2 u^(2 nu + 2) (K_(nu-1)^2 +
    K_nu K_(nu-2))``. The charm is invariant under rescaling ``u``, so this is also the
    charm in ``t = u / sqrt(2 nu)``. Where ``K`` overflows (``u`` far below 1) the series
    ``Psi = u^4 / 2 (1/(nu-1)^2 + 1/((nu-1)(nu-2))) + O(u^6)`` is used (``nu > 2``;
    for smaller ``nu`` that happens only where ``Psi`` underflows to 0).
    """
    out = np.zeros_like(u)
    pos = u > 0
    up = u[pos]
    log_c = (1.0 - nu) * math.log(2.0) - special.gammaln(nu)
    l0, l1, l2 = _log_kv(nu, up), _log_kv(nu - 1.0, up), _log_kv(nu - 2.0, up)
    with np.errstate(invalid="ignore", over="ignore"):
        log_bracket = np.logaddexp(2.0 * l1, l0 + l2)
        val = 2.0 * np.exp(2.0 * log_c + (2.0 * nu + 2.0) * np.log(up) + log_bracket)
    bad = ~np.isfinite(val)
    if np.any(bad):
        coef = 0.5 * (1.0 / (nu - 1.0) ** 2 + 1.0 / ((nu - 1.0) * (nu - 2.0))) if nu > 2 else 0.0
        # near 0 the series; at u = inf (t beyond the float range) the limit 0
        val[bad] = np.where(up[bad] < 1.0, coef * np.minimum(up[bad], 1.0) ** 4, 0.0)
    out[pos] = val
    return out


# ---------------------------------------------------------------------- Fourier-norm laws
class _MaternNormGen(stats.rv_continuous):
    """``|w|`` for the Matérn-``nu`` spectral measure in ``d`` dimensions (unit lengthscale):
    density ``2 r^(d-1) (1 + r^2 / (2 nu))^(-nu - d/2) / ((2 nu)^(d/2) B(d/2, nu))``."""

    def _argcheck(self, d: Any, nu: Any) -> Any:
        return (d > 0) & (nu > 0)

    def _logpdf(self, r: Any, d: Any, nu: Any) -> Any:
        return (
            math.log(2.0)
            + (d - 1.0) * np.log(r)
            - (nu + 0.5 * d) * np.log1p(r * r / (2.0 * nu))
            - 0.5 * d * np.log(2.0 * nu)
            - special.betaln(0.5 * d, nu)
        )

    def _pdf(self, r: Any, d: Any, nu: Any) -> Any:
        return np.exp(self._logpdf(r, d, nu))

    def _cdf(self, r: Any, d: Any, nu: Any) -> Any:
        b = r * r / (2.0 * nu)
        return special.betainc(0.5 * d, nu, b / (1.0 + b))

    def _ppf(self, q: Any, d: Any, nu: Any) -> Any:
        x = special.betaincinv(0.5 * d, nu, q)
        return np.sqrt(2.0 * nu * x / (1.0 - x))

    def _rvs(self, d: Any, nu: Any, size: Any = None, random_state: Any = None) -> Any:
        g = random_state.chisquare(d, size=size)
        v = random_state.chisquare(2.0 * nu, size=size) / (2.0 * nu)
        return np.sqrt(g / v)


_matern_norm = _MaternNormGen(a=0.0, name="matern_fourier_norm", shapes="d, nu")


def matern_fourier_norm(d: int, nu: float, scale: float = 1.0) -> Any:
    """Frozen law of ``|w|`` for the Matérn-``nu`` kernel in ``d`` dimensions."""
    return _matern_norm(float(d), float(nu), scale=scale)


class _Sinc2NormGen(stats.rv_continuous):
    """``|w| = sqrt(1 - U^2)``: the uniform measure on the unit sphere of R^3 projected to a
    plane; density ``r / sqrt(1 - r^2)`` on ``[0, 1)``."""

    def _pdf(self, r: Any) -> Any:
        return r / np.sqrt(1.0 - r * r)

    def _cdf(self, r: Any) -> Any:
        return 1.0 - np.sqrt(1.0 - r * r)

    def _ppf(self, q: Any) -> Any:
        return np.sqrt(1.0 - (1.0 - q) ** 2)


_sinc2_norm = _Sinc2NormGen(a=0.0, b=1.0, name="sinc2_fourier_norm")


def sinc2_fourier_norm(scale: float = 1.0) -> Any:
    """Frozen law of ``|w|`` for the sinc kernel in two dimensions."""
    return _sinc2_norm(scale=scale)


class PointMass:
    """The law of a constant ``value`` with a scipy.stats-like interface.

    ``rho_K`` of the sinc kernel in three dimensions (uniform on a sphere, Rowland (2018)
    §7.5.3): every frequency has norm ``1 / lengthscale``. There is no density.

    Parameters
    ----------
    value : float
        The constant.
    """

    def __init__(self, value: float):
        self.value = float(value)

    def __repr__(self) -> str:
        return f"PointMass({self.value!r})"

    def rvs(self, size: Any = None, random_state: Any = None) -> Any:
        """Samples of the law: copies of ``value``.

        Parameters
        ----------
        size : int or tuple of int, optional
            The shape of the output; ``None`` gives a scalar.
        random_state : int, RandomState instance or None, default=None
            Checked as scipy.stats does, but not needed: the law has no randomness.

        Returns
        -------
        float or ndarray of shape ``size``
            ``value``, or an array filled with it.
        """
        check_random_state(random_state)
        if size is None:
            return self.value
        return np.full(size, self.value)

    def cdf(self, r: Any) -> Any:
        """The cumulative distribution function.

        Parameters
        ----------
        r : float or array-like
            Where to evaluate it.

        Returns
        -------
        ndarray of float, the shape of ``r``
            1 where ``r >= value``, 0 elsewhere.
        """
        return np.where(np.asarray(r, dtype=float) >= self.value, 1.0, 0.0)

    def ppf(self, q: Any) -> Any:
        """The quantile function: ``value`` at every level.

        Parameters
        ----------
        q : float or array-like
            Levels in [0, 1].

        Returns
        -------
        float or ndarray of float, the shape of ``q``
            ``value`` (a scalar for a scalar ``q``).
        """
        return np.full(np.shape(q), self.value) if np.ndim(q) else self.value

    def mean(self) -> float:
        """The mean.

        Returns
        -------
        float
            ``value``.
        """
        return self.value

    def var(self) -> float:
        """The variance.

        Returns
        -------
        float
            0.
        """
        return 0.0

    def std(self) -> float:
        """The standard deviation.

        Returns
        -------
        float
            0.
        """
        return 0.0

    def moment(self, order: int) -> float:
        """The non-central moment of order ``order``.

        Parameters
        ----------
        order : int
            The order of the moment.

        Returns
        -------
        float
            ``value ** order``.
        """
        return self.value**order

    def support(self) -> tuple[float, float]:
        """The support of the law.

        Returns
        -------
        tuple of float
            ``(value, value)``.
        """
        return (self.value, self.value)
