"""Acquisition functions of Bayesian optimisation and their gradients (assignment §2).

All acquisitions follow the seed's convention: they score points for **maximising** the
surrogate, given the posterior mean ``mu(x)``, standard deviation ``sigma(x)`` and the
incumbent value ``f(x+)``. (:class:`~kernelkit.optimize.BayesianOptimizer` minimises by
default and feeds them the negated objective.) With the improvement
``I(x) = max{0, f(x) - f(x+) - xi}`` (eq. 2.10) and ``Z = (mu - f(x+) - xi) / sigma``:

* :class:`ProbabilityOfImprovement`: ``PI = P(I > 0) = Phi(Z)`` (eq. 2.11);
* :class:`ExpectedImprovement`: ``EI = E[I] = (mu - f(x+) - xi) Phi(Z) + sigma phi(Z)``
  (eqs. 2.15-2.16);
* :class:`LogExpectedImprovement`: ``log EI``, evaluated without underflow far from the
  incumbent (Ament et al. 2023), the same maximiser as EI;
* :class:`LogProbabilityOfImprovement`: ``log PI = log Phi(Z)`` by ``log_ndtr``;
* :class:`UpperConfidenceBound`: ``mu + sqrt(beta) sigma`` (Srinivas et al. 2010).

Where ``sigma = 0`` the seed sets ``Z = 0`` and ``EI = 0`` (eq. 2.16); PI is 0 there too
(a point whose value is known teaches nothing), and the logarithms are ``-inf``.

Every acquisition gives its gradient with respect to ``x`` from the moments' gradients
(see :func:`~kernelkit.optimize.surrogate.posterior`) by the chain rule, using
``dEI/dmu = Phi(Z)``, ``dEI/dsigma = phi(Z)`` and ``dZ = (dmu - Z dsigma) / sigma``.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
from scipy import special

from kernelkit._validation import check_nonnegative_number
from kernelkit.optimize.surrogate import posterior

__all__ = [
    "Acquisition",
    "ProbabilityOfImprovement",
    "ExpectedImprovement",
    "LogExpectedImprovement",
    "LogProbabilityOfImprovement",
    "UpperConfidenceBound",
    "get_acquisition",
    "acquisition_names",
    "noisy_incumbent",
    "log_h",
]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_SQRT_PI_OVER_2 = 0.5 * math.log(math.pi / 2.0)
_SQRT_EPS_INV = 1.0 / math.sqrt(np.finfo(float).eps)


def _log1mexp(a: np.ndarray) -> np.ndarray:
    """``log(1 - exp(a))`` for ``a < 0``, accurate at both ends (Mächler 2012)."""
    out = np.empty_like(a)
    near = a > -math.log(2.0)
    out[near] = np.log(-np.expm1(a[near]))
    out[~near] = np.log1p(-np.exp(a[~near]))
    return out


def log_h(z: Any) -> np.ndarray:
    """``log(phi(z) + z Phi(z))``, the log of EI for unit ``sigma``, for any finite ``z``.

    Three regimes (Ament et al. 2023, "Unexpected improvements to expected improvement",
    eq. 9): direct evaluation for ``z > -1``; for ``-1/sqrt(eps) < z <= -1``,
    ``phi(z) + z Phi(z) = phi(z) (1 - |z| erfcx(-z/sqrt 2) sqrt(pi/2))`` with the bracket
    through ``log1mexp``, because ``Phi(z) / phi(z) = erfcx(-z/sqrt 2) sqrt(pi/2)``;
    below that, the asymptote ``log phi(z) - 2 log|z|``.
    """
    z = np.asarray(z, dtype=float)
    out = np.empty_like(z)
    hi = z > -1.0
    zh = z[hi]
    out[hi] = np.log(np.exp(-0.5 * zh * zh - _LOG_SQRT_2PI) + zh * special.ndtr(zh))
    mid = ~hi & (z > -_SQRT_EPS_INV)
    zm = z[mid]
    out[mid] = (
        -0.5 * zm * zm
        - _LOG_SQRT_2PI
        + _log1mexp(np.log(special.erfcx(-zm / math.sqrt(2.0)) * np.abs(zm)) + _LOG_SQRT_PI_OVER_2)
    )
    lo = ~hi & ~mid
    zl = z[lo]
    out[lo] = -0.5 * zl * zl - _LOG_SQRT_2PI - 2.0 * np.log(np.abs(zl))
    return out


def _log_phi(z: np.ndarray) -> np.ndarray:
    return -0.5 * z * z - _LOG_SQRT_2PI


def noisy_incumbent(gp: Any, *, normalized: bool = False, among: Any = None) -> tuple[float, int]:
    """The incumbent of assignment eq. 2.17: the best posterior mean at a sampled point.

    With noisy observations the best *observed* value is biased upwards; the seed uses
    ``max_i E[f(x_i) | D]`` over the training inputs instead.

    Parameters
    ----------
    gp : fitted GaussianProcessRegressor
    normalized : bool, default=False
        Return the value on the GP's normalised target scale.
    among : bool array of shape (n_train,), optional
        Only these training points may be the incumbent (e.g. those whose evaluation
        succeeded); all of them by default.

    Returns
    -------
    value : float
        ``max_i mu(x_i)`` (on the normalised scale if ``normalized``).
    index : int
        The training point that attains it.
    """
    mean = posterior(gp, gp.X_train_, normalized=normalized).mean
    candidates = np.arange(mean.shape[0]) if among is None else np.flatnonzero(among)
    if candidates.size == 0:
        raise ValueError("among selects no training point")
    i = int(candidates[np.argmax(mean[candidates])])
    return float(mean[i]), i


def _moments(mean: Any, std: Any, best: Any) -> tuple[np.ndarray, np.ndarray, float]:
    mean = np.asarray(mean, dtype=float)
    std = np.asarray(std, dtype=float)
    if mean.shape != std.shape:
        raise ValueError(f"mean and std must have the same shape, got {mean.shape} and {std.shape}")
    if np.any(std < 0) or np.isnan(std).any():
        raise ValueError("std must be >= 0")
    best = float(best)
    if not math.isfinite(best):
        raise ValueError(f"best (the incumbent value) must be finite, got {best!r}")
    return mean, std, best


class Acquisition:
    """Base class: a score to maximise from posterior moments (maximisation convention).

    Subclasses implement ``_value(mean, std, best)`` and
    ``_value_and_gradient(mean, std, best, mean_grad, std_grad)``.
    """

    name = ""

    def __call__(self, mean: Any, std: Any, best: float) -> np.ndarray:
        """Acquisition values from the posterior mean, standard deviation and incumbent."""
        mean, std, best = _moments(mean, std, best)
        return self._value(mean, std, best)

    def value_and_gradient(
        self, mean: Any, std: Any, best: float, mean_grad: Any, std_grad: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """Values ``(m,)`` and x-gradients ``(m, d)`` from the moments and their gradients."""
        mean, std, best = _moments(mean, std, best)
        mean_grad = np.asarray(mean_grad, dtype=float)
        std_grad = np.asarray(std_grad, dtype=float)
        if mean_grad.shape != std_grad.shape or mean_grad.shape[:1] != mean.shape:
            raise ValueError(
                f"mean_grad and std_grad must have shape ({mean.shape[0]}, d), got "
                f"{mean_grad.shape} and {std_grad.shape}"
            )
        return self._value_and_gradient(mean, std, best, mean_grad, std_grad)

    def evaluate(
        self, gp: Any, X: Any, *, best: float | None = None, return_gradient: bool = False
    ) -> Any:
        """The acquisition of a fitted GP (which models the quantity to *maximise*).

        ``best`` defaults to the noisy incumbent of eq. 2.17 (:func:`noisy_incumbent`).
        Returns the values, or ``(values, gradients)`` with ``return_gradient``.
        """
        if best is None:
            best = noisy_incumbent(gp)[0]
        post = posterior(gp, X, return_gradient=return_gradient)
        if not return_gradient:
            return self(post.mean, post.std, best)
        return self.value_and_gradient(post.mean, post.std, best, post.mean_grad, post.std_grad)

    def for_search(self) -> Acquisition:
        """The acquisition maximised in the search: the same maximiser, better numerics.

        EI and PI underflow to exactly 0 far from the incumbent, which leaves gradient
        methods without a slope; their logarithms do not (``log`` is increasing, so the
        maximiser is unchanged).
        """
        return self

    def _value(self, mean: np.ndarray, std: np.ndarray, best: float) -> np.ndarray:
        raise NotImplementedError

    def _value_and_gradient(
        self,
        mean: np.ndarray,
        std: np.ndarray,
        best: float,
        mean_grad: np.ndarray,
        std_grad: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class _ImprovementBased(Acquisition):
    """Acquisitions of the improvement ``I(x) = max{0, f(x) - f(x+) - xi}`` (eq. 2.10)."""

    default_xi = 0.0

    def __init__(self, xi: float | None = None):
        xi = self.default_xi if xi is None else xi
        self.xi: float = check_nonnegative_number(xi, "xi")

    def with_xi(self, xi: float) -> _ImprovementBased:
        """A copy with another ``xi`` (used by the schedules)."""
        new = copy.copy(self)
        new.__init__(xi)  # type: ignore[misc]
        return new

    def _z(self, mean: np.ndarray, std: np.ndarray, best: float) -> tuple[np.ndarray, np.ndarray]:
        """``Z`` of eq. 2.16 (0 where ``sigma = 0``) and the mask ``sigma > 0``."""
        pos = std > 0
        z = np.zeros_like(mean)
        z[pos] = (mean[pos] - best - self.xi) / std[pos]
        return z, pos

    @staticmethod
    def _dz(
        z: np.ndarray,
        std: np.ndarray,
        pos: np.ndarray,
        mean_grad: np.ndarray,
        std_grad: np.ndarray,
    ) -> np.ndarray:
        """``dZ/dx = (dmu - Z dsigma) / sigma`` (0 where ``sigma = 0``)."""
        dz = np.zeros_like(mean_grad)
        dz[pos] = (mean_grad[pos] - z[pos, None] * std_grad[pos]) / std[pos, None]
        return dz


class ProbabilityOfImprovement(_ImprovementBased):
    """``PI(x) = P(I(x) > 0) = Phi(Z)`` (assignment eq. 2.11); 0 where ``sigma = 0``.

    Parameters
    ----------
    xi : float, default=0.2
        Required improvement over the incumbent (the seed's default for PI).

    Examples
    --------
    >>> pi = ProbabilityOfImprovement(xi=0.0)
    >>> [round(float(v), 4) for v in pi([0.0, 1.0], [1.0, 1.0], best=0.0)]
    [0.5, 0.8413]
    """

    name = "pi"
    default_xi = 0.2

    def _value(self, mean: np.ndarray, std: np.ndarray, best: float) -> np.ndarray:
        z, pos = self._z(mean, std, best)
        return np.where(pos, special.ndtr(z), 0.0)

    def _value_and_gradient(self, mean, std, best, mean_grad, std_grad):  # type: ignore[no-untyped-def]
        z, pos = self._z(mean, std, best)
        value = np.where(pos, special.ndtr(z), 0.0)
        grad = np.exp(_log_phi(z))[:, None] * self._dz(z, std, pos, mean_grad, std_grad)
        return value, grad

    def for_search(self) -> Acquisition:
        return LogProbabilityOfImprovement(self.xi)


class LogProbabilityOfImprovement(_ImprovementBased):
    """``log PI(x) = log Phi(Z)`` via ``scipy.special.log_ndtr``; ``-inf`` where sigma = 0."""

    name = "logpi"
    default_xi = 0.2

    def _value(self, mean: np.ndarray, std: np.ndarray, best: float) -> np.ndarray:
        z, pos = self._z(mean, std, best)
        return np.where(pos, special.log_ndtr(z), -np.inf)

    def _value_and_gradient(self, mean, std, best, mean_grad, std_grad):  # type: ignore[no-untyped-def]
        z, pos = self._z(mean, std, best)
        log_pi = special.log_ndtr(z)
        ratio = np.exp(_log_phi(z) - log_pi)  # phi / Phi, finite for every finite z
        grad = ratio[:, None] * self._dz(z, std, pos, mean_grad, std_grad)
        return np.where(pos, log_pi, -np.inf), grad


class ExpectedImprovement(_ImprovementBased):
    """``EI(x) = E[I(x)]`` (assignment eqs. 2.15-2.16); 0 where ``sigma = 0``.

    ``(mu - f(x+) - xi) Phi(Z) + sigma phi(Z)``; round-off can make the two terms cancel
    to a tiny negative number far below the incumbent, so the value is clipped at 0.

    Parameters
    ----------
    xi : float, default=0.05
        Exploration margin (the seed's default for EI).

    Examples
    --------
    >>> ei = ExpectedImprovement(xi=0.0)
    >>> round(float(ei([0.0], [1.0], best=0.0)[0]), 6)  # phi(0) = 1/sqrt(2 pi)
    0.398942
    """

    name = "ei"
    default_xi = 0.05

    def _value(self, mean: np.ndarray, std: np.ndarray, best: float) -> np.ndarray:
        z, pos = self._z(mean, std, best)
        ei = (mean - best - self.xi) * special.ndtr(z) + std * np.exp(_log_phi(z))
        return np.where(pos, np.maximum(ei, 0.0), 0.0)

    def _value_and_gradient(self, mean, std, best, mean_grad, std_grad):  # type: ignore[no-untyped-def]
        z, pos = self._z(mean, std, best)
        cdf, pdf = special.ndtr(z), np.exp(_log_phi(z))
        ei = (mean - best - self.xi) * cdf + std * pdf
        value = np.where(pos, np.maximum(ei, 0.0), 0.0)
        grad = cdf[:, None] * mean_grad + pdf[:, None] * std_grad  # dEI/dmu, dEI/dsigma
        grad[~pos] = 0.0
        return value, grad

    def for_search(self) -> Acquisition:
        return LogExpectedImprovement(self.xi)


class LogExpectedImprovement(_ImprovementBased):
    """``log EI(x) = log sigma + log h(Z)``, ``h(z) = phi(z) + z Phi(z)``; see :func:`log_h`.

    Finite and increasing in ``mu`` for every finite ``Z``, where EI itself underflows
    to 0 for ``Z < -38`` or so; ``-inf`` where ``sigma = 0``. The gradient is
    ``d log EI = dsigma / sigma + (Phi(Z) / h(Z)) dZ``.

    Parameters
    ----------
    xi : float, default=0.05
    """

    name = "logei"
    default_xi = 0.05

    def _value(self, mean: np.ndarray, std: np.ndarray, best: float) -> np.ndarray:
        z, pos = self._z(mean, std, best)
        out = np.full_like(mean, -np.inf)
        out[pos] = np.log(std[pos]) + log_h(z[pos])
        return out

    def _value_and_gradient(self, mean, std, best, mean_grad, std_grad):  # type: ignore[no-untyped-def]
        z, pos = self._z(mean, std, best)
        lh = log_h(z)
        value = np.full_like(mean, -np.inf)
        value[pos] = np.log(std[pos]) + lh[pos]
        ratio = np.exp(special.log_ndtr(z) - lh)  # Phi(z) / h(z)
        grad = ratio[:, None] * self._dz(z, std, pos, mean_grad, std_grad)
        grad[pos] += std_grad[pos] / std[pos, None]
        return value, grad


class UpperConfidenceBound(Acquisition):
    """``UCB(x) = mu(x) + sqrt(beta) sigma(x)`` (GP-UCB, Srinivas et al. 2010).

    Parameters
    ----------
    beta : float, default=4.0
        Exploration weight (``sqrt(beta) = 2`` standard deviations by default).
    """

    name = "ucb"

    def __init__(self, beta: float = 4.0):
        self.beta: float = check_nonnegative_number(beta, "beta")

    def _value(self, mean: np.ndarray, std: np.ndarray, best: float) -> np.ndarray:
        return mean + math.sqrt(self.beta) * std

    def _value_and_gradient(self, mean, std, best, mean_grad, std_grad):  # type: ignore[no-untyped-def]
        s = math.sqrt(self.beta)
        return mean + s * std, mean_grad + s * std_grad


_NAMES: dict[str, type[Acquisition]] = {
    "ei": ExpectedImprovement,
    "pi": ProbabilityOfImprovement,
    "logei": LogExpectedImprovement,
    "logpi": LogProbabilityOfImprovement,
    "ucb": UpperConfidenceBound,
}


def acquisition_names() -> list[str]:
    """Names accepted by :func:`get_acquisition`."""
    return list(_NAMES)


def get_acquisition(acquisition: Any) -> Acquisition:
    """An :class:`Acquisition` from a name (``"ei"``, ``"pi"``, ``"logei"``, ``"logpi"``,
    ``"ucb"``, case-insensitive, with default parameters) or an instance (returned as is).
    """
    if isinstance(acquisition, Acquisition):
        return acquisition
    if isinstance(acquisition, str):
        key = acquisition.lower().replace("-", "").replace("_", "")
        if key in _NAMES:
            return _NAMES[key]()
        raise ValueError(
            f"unknown acquisition {acquisition!r}; available: {', '.join(_NAMES)} "
            "(or an Acquisition instance)"
        )
    raise TypeError(
        f"acquisition must be a name or an Acquisition instance, got {type(acquisition).__name__}"
    )
