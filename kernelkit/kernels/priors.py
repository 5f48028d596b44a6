"""Priors on kernel hyperparameters, as log-densities of their logarithms.

A kernel keeps each hyperparameter ``v > 0`` through ``theta = log v``, the variable the
optimisers move (see :class:`~kernelkit.kernels.Kernel`). A prior is stated on the value
``v`` (a Gamma distribution on a lengthscale, say, as in GPyTorch's
``lengthscale_prior=GammaPrior(3.0, 6.0)``), but its density is taken for ``theta``:
by the change of variables ``v = exp(theta)``,

    p_theta(theta) = p_v(exp(theta)) * exp(theta),

so ``log p_theta(theta) = log p_v(v) + theta``. Adding it to a log marginal likelihood in
``theta`` gives the maximum a posteriori (MAP) objective in the same variable, and the
gradient with respect to ``theta`` is exact.

Every prior is a frozen dataclass (compared, hashed, copied and pickled by value) whose
:meth:`Prior.log_density` acts elementwise on arrays, so one prior serves an ARD vector of
lengthscales.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

__all__ = ["Prior", "GammaPrior", "LogNormalPrior"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _real(value: Any, name: str, *, positive: bool) -> float:
    """A finite real number (``> 0`` when ``positive``), or a TypeError / ValueError naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    x = float(value)
    if not math.isfinite(x) or (positive and x <= 0):
        need = "finite and > 0" if positive else "finite"
        raise ValueError(f"{name} must be {need}, got {value!r}")
    return x


@dataclass(frozen=True)
class Prior:
    """Base class of the priors on a log-hyperparameter ``theta = log v``.

    A subclass is a frozen dataclass that checks its fields in ``__post_init__`` and
    implements ``_log_density(theta)`` on a float array of finite values, returning the
    log-density of ``theta`` and its derivative, both elementwise (the same shape as
    ``theta``), normalising constants included.

    Examples
    --------
    A prior of one's own: a Laplace (double-exponential) density on ``theta``.

    >>> from dataclasses import dataclass
    >>> import numpy as np
    >>> from kernelkit.kernels import Prior
    >>> @dataclass(frozen=True)
    ... class LaplaceOnLog(Prior):
    ...     loc: float = 0.0
    ...     scale: float = 1.0
    ...
    ...     def _log_density(self, theta):
    ...         z = (theta - self.loc) / self.scale
    ...         return -np.abs(z) - np.log(2.0 * self.scale), -np.sign(z) / self.scale
    >>> value, grad = LaplaceOnLog(scale=0.5).log_density(np.log(2.0))
    >>> round(float(value), 6), float(grad)
    (-1.386294, -2.0)
    """

    def log_density(self, theta: Any) -> tuple[np.ndarray, np.ndarray]:
        """``log p(theta)`` and ``d log p(theta) / d theta``, elementwise.

        Parameters
        ----------
        theta : float or array-like
            Logarithms of hyperparameter values; finite.

        Returns
        -------
        value, gradient : ndarray
            Both of the shape of ``theta`` (0-d for a scalar).
        """
        try:
            t = np.asarray(theta, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"theta must be a number or an array of numbers, got {type(theta).__name__}"
            ) from None
        if not np.all(np.isfinite(t)):
            raise ValueError(f"theta must be finite, got {theta!r}")
        value, grad = self._log_density(t)
        return np.asarray(value, dtype=np.float64), np.asarray(grad, dtype=np.float64)

    def _log_density(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError(f"{type(self).__name__} must implement _log_density")


@dataclass(frozen=True)
class GammaPrior(Prior):
    """A Gamma prior on the value ``v = exp(theta)``: ``v ~ Gamma(concentration, rate)``.

    The density of ``v`` is ``b^a / Gamma(a) v^(a-1) exp(-b v)`` (``a`` the concentration,
    ``b`` the rate, mean ``a / b``), so that of ``theta = log v`` is

        log p(theta) = a theta - b exp(theta) + a log b - log Gamma(a),

    with derivative ``a - b exp(theta)`` (maximal at ``v = a / b``). The parametrisation is
    GPyTorch's and ``scipy.stats.gamma(a, scale=1 / b)``'s.

    Parameters
    ----------
    concentration : float
        The shape ``a > 0``.
    rate : float
        The inverse scale ``b > 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import GammaPrior
    >>> prior = GammaPrior(concentration=3.0, rate=6.0)
    >>> value, grad = prior.log_density(np.log([0.25, 0.5]))
    >>> grad  # zero at the mode a / b = 0.5 of the density of theta
    array([1.5, 0. ])
    """

    concentration: float
    rate: float

    def __post_init__(self) -> None:
        _real(self.concentration, "concentration", positive=True)
        _real(self.rate, "rate", positive=True)

    def _log_density(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = float(self.concentration), float(self.rate)
        with np.errstate(over="ignore"):
            bv = b * np.exp(theta)  # +inf for theta near 709: log p = -inf, its limit
        const = a * math.log(b) - float(special.gammaln(a))
        return a * theta - bv + const, a - bv


@dataclass(frozen=True)
class LogNormalPrior(Prior):
    """A log-normal prior on the value: ``theta = log v ~ Normal(loc, scale^2)``.

    The density of ``theta`` is the normal one,

        log p(theta) = -(theta - loc)^2 / (2 scale^2) - log scale - log(2 pi) / 2,

    with derivative ``-(theta - loc) / scale^2``; the median of ``v`` is ``exp(loc)``. As
    ``scipy.stats.lognorm(s=scale, scale=exp(loc))`` for ``v``.

    Parameters
    ----------
    loc : float
        Mean of ``log v``.
    scale : float
        Standard deviation of ``log v``, ``> 0``.

    Examples
    --------
    >>> from kernelkit.kernels import LogNormalPrior
    >>> value, grad = LogNormalPrior(loc=0.0, scale=1.0).log_density(1.0)
    >>> round(float(value), 6), float(grad)
    (-1.418939, -1.0)
    """

    loc: float = 0.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        _real(self.loc, "loc", positive=False)
        _real(self.scale, "scale", positive=True)

    def _log_density(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = float(self.scale)
        z = (theta - float(self.loc)) / s
        return -0.5 * z * z - math.log(s) - _LOG_SQRT_2PI, -z / s
