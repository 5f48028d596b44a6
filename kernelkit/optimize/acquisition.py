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

Every value is continuous in ``sigma`` down to ``sigma = 0``, where it is the limit
``sigma -> 0+`` for the margin ``d = mu - f(x+) - xi``: the improvement is then certain,
``I = max{0, d}``, so ``EI = max{0, d}``, ``PI = 1, 1/2, 0`` for ``d > 0, d = 0, d < 0``,
``log EI = log max{0, d}`` (``-inf`` for ``d <= 0``), ``log PI = log PI`` and
``UCB = mu``. (The seed's eq. 2.16 sets ``EI = 0`` at ``sigma = 0``; the two agree where
the seed uses it, at an evaluated point of a noiseless GP, whose mean is at most the
incumbent, ``d <= 0``.) Tiny ``sigma`` (``1e-300``) gives the same values, without
overflow warnings.

Every acquisition gives its gradient with respect to ``x`` from the moments' gradients
(see :func:`~kernelkit.optimize.surrogate.posterior`) by the chain rule, using
``dEI/dmu = Phi(Z)``, ``dEI/dsigma = phi(Z)`` and ``dZ = (dmu - Z dsigma) / sigma``.
At ``sigma = 0`` it is the limit where there is one (EI everywhere, log EI for ``d > 0``,
PI and log PI for ``d != 0``) and 0 elsewhere (PI and log PI at ``d = 0``, where they
jump, and wherever the value is ``-inf``).

Inputs follow one rule: ``mean``, ``std``, ``best`` (and the gradients) must be finite,
``std >= 0``; a NaN or an infinity is a ``ValueError`` that names the argument, and so is
a margin ``mu - f(x+) - xi`` beyond the float64 range (finite terms of opposite signs
near ``1.8e308``), which no acquisition value could be computed from.
"""

from __future__ import annotations

import copy
import math
from typing import Any, Self

import numpy as np
from scipy import special

from kernelkit._validation import check_array, check_nonnegative_number
from kernelkit.optimize.surrogate import _check_fitted, posterior

__all__ = [
    "Acquisition",
    "ProbabilityOfImprovement",
    "ExpectedImprovement",
    "ImprovementAcquisition",
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

    Parameters
    ----------
    z : float or array-like
        The standardised margin ``Z``: real numbers, ``-inf`` and ``+inf`` included
        (their limits, ``-inf`` and ``+inf``); not NaN.

    Returns
    -------
    ndarray of float64, the shape of ``z``
        ``log h(z)``, finite for every finite ``z``.

    Raises
    ------
    ValueError
        ``z`` contains NaN.
    TypeError
        ``z`` is not a number or an array of numbers.

    Examples
    --------
    >>> round(float(log_h(0.0)), 6)  # log phi(0)
    -0.918939
    >>> float(log_h(-np.inf)), float(log_h(np.inf))  # the limits
    (-inf, inf)
    """
    # checked here, once: the acquisitions call the unchecked _log_h on arrays they built
    z = check_array(z, "z", ndim=None, dtype=np.float64, allow_empty=True, finite=False)
    if np.isnan(z).any():
        raise ValueError(
            "z contains NaN; log_h is defined for real z, with the limits -inf at -inf and "
            "+inf at +inf"
        )
    # (-z/2) z overflows only where the true value is beyond the float range: -inf (or a
    # vanishing exp) is then the correctly rounded result, not a failure worth a warning
    with np.errstate(over="ignore"):
        return _log_h(z)


def _log_h(z: np.ndarray) -> np.ndarray:
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


def _far_left(z: np.ndarray, log_ratio: np.ndarray) -> np.ndarray:
    """``log_ratio`` with ``log|z|`` where ``z <= -1/sqrt(eps)``.

    There ``phi(z) / Phi(z)`` and ``Phi(z) / h(z)`` both equal ``|z| (1 + O(1/z^2))``
    (Mills' ratio), while the difference of two logarithms near ``-z^2/2`` that gives them
    elsewhere has lost every digit (the gradients of log PI and log EI far below the
    incumbent at small ``sigma``).
    """
    far = z <= -_SQRT_EPS_INV
    if far.any():
        log_ratio = log_ratio.copy()
        log_ratio[far] = np.log(-z[far])
    return log_ratio


def _log_phi(z: np.ndarray) -> np.ndarray:
    return -0.5 * z * z - _LOG_SQRT_2PI


def _quiet() -> np.errstate:
    """No floating-point warnings inside the acquisitions.

    Their limits at ``sigma = 0`` and their values at tiny ``sigma`` are reached through
    infinite intermediates on purpose (``Z = d / sigma``, ``exp(-Z^2 / 2)``, ``log 0``),
    and every NaN that could follow is replaced by the limit before returning, so the
    warnings would only be noise.
    """
    return np.errstate(all="ignore")


def noisy_incumbent(gp: Any, *, normalized: bool = False, among: Any = None) -> tuple[float, int]:
    """The incumbent of assignment eq. 2.17: the best posterior mean at a sampled point.

    With noisy observations the best *observed* value is biased upwards; the seed uses
    ``max_i E[f(x_i) | D]`` over the training inputs instead.

    Parameters
    ----------
    gp : GaussianProcessRegressor
        A fitted regressor.
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

    Raises
    ------
    sklearn.exceptions.NotFittedError
        (a ``ValueError``) if ``gp`` has not been fitted.
    """
    _check_fitted(gp, "noisy_incumbent")
    mean = posterior(gp, gp.X_train_, normalized=normalized).mean
    n = mean.shape[0]
    if among is None:
        candidates = np.arange(n)
    else:
        mask = np.asarray(among)
        if mask.dtype != bool:
            raise TypeError(f"among must be a boolean mask, got dtype {mask.dtype}")
        if mask.shape != (n,):
            raise ValueError(
                f"among must have shape ({n},), one flag per training point, got {mask.shape}"
            )
        candidates = np.flatnonzero(mask)
    if candidates.size == 0:
        raise ValueError("among selects no training point")
    i = int(candidates[np.argmax(mean[candidates])])
    return float(mean[i]), i


def _finite(value: Any, name: str) -> np.ndarray:
    """``value`` as a float64 array of its own shape with finite entries, or a clear error."""
    if type(value) is np.ndarray and value.dtype == np.float64 and np.isfinite(value).all():
        return value  # the search's own arrays: no second look
    return check_array(value, name, ndim=None, dtype=np.float64, allow_empty=True)


def _moments(mean: Any, std: Any, best: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """The one input rule of every acquisition: finite ``mean``, ``std >= 0``, ``best``."""
    mean = _finite(mean, "mean")
    std = _finite(std, "std")
    if mean.shape != std.shape:
        raise ValueError(f"mean and std must have the same shape, got {mean.shape} and {std.shape}")
    if np.any(std < 0):
        raise ValueError(f"std must be >= 0, got {float(np.min(std))!r}")
    if np.ndim(best) != 0:
        raise ValueError(f"best (the incumbent value) must be a number, got shape {np.shape(best)}")
    return mean, std, float(_finite(best, "best"))


class Acquisition:
    """Base class: a score to maximise from posterior moments (maximisation convention).

    Subclasses implement ``_value(mean, std, best)`` and
    ``_value_and_gradient(mean, std, best, mean_grad, std_grad)``.
    """

    name = ""

    def __call__(self, mean: Any, std: Any, best: float) -> np.ndarray:
        """Acquisition values from the posterior mean, standard deviation and incumbent."""
        mean, std, best = _moments(mean, std, best)
        with _quiet():  # as vectors: the masked assignments need them
            return self._value(mean.reshape(-1), std.reshape(-1), best).reshape(mean.shape)

    def value_and_gradient(
        self, mean: Any, std: Any, best: float, mean_grad: Any, std_grad: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """Values ``(m,)`` and x-gradients ``(m, d)`` from the moments and their gradients.

        Parameters
        ----------
        mean : array-like of shape (m,)
            Posterior means ``mu(x)``, finite.
        std : array-like of shape (m,)
            Posterior standard deviations ``sigma(x) >= 0``, finite.
        best : float
            The incumbent value ``f(x+)``.
        mean_grad : array-like of shape (m, d)
            ``dmu/dx`` at each point.
        std_grad : array-like of shape (m, d)
            ``dsigma/dx`` at each point.

        Returns
        -------
        values : ndarray of shape (m,)
            The acquisition at each point.
        gradients : ndarray of shape (m, d)
            Its gradient with respect to ``x`` (the limit, or 0, where ``sigma = 0``).

        Raises
        ------
        ValueError
            A NaN or infinity, a negative ``std``, inconsistent shapes, or a margin
            ``mean - best - xi`` beyond the float64 range.
        """
        mean, std, best = _moments(mean, std, best)
        mean_grad = _finite(mean_grad, "mean_grad")
        std_grad = _finite(std_grad, "std_grad")
        if (
            mean_grad.ndim != 2
            or mean_grad.shape != std_grad.shape
            or mean_grad.shape[:1] != mean.shape
        ):
            raise ValueError(
                f"mean_grad and std_grad must have shape ({mean.shape[0]}, d), got "
                f"{mean_grad.shape} and {std_grad.shape}"
            )
        with _quiet():
            return self._value_and_gradient(mean, std, best, mean_grad, std_grad)

    def evaluate(
        self, gp: Any, X: Any, *, best: float | None = None, return_gradient: bool = False
    ) -> Any:
        """The acquisition of a fitted GP (which models the quantity to *maximise*).

        Parameters
        ----------
        gp : GaussianProcessRegressor
            A fitted regressor on vector inputs.
        X : array-like of shape (m, d)
            The points to score.
        best : float or None, default=None
            The incumbent value ``f(x+)``; ``None``: the noisy incumbent of eq. 2.17
            (:func:`noisy_incumbent`).
        return_gradient : bool, default=False
            Also return the gradients with respect to ``x``.

        Returns
        -------
        values : ndarray of shape (m,)
            The acquisition at each row of ``X``.
        gradients : ndarray of shape (m, d)
            Its x-gradients; only with ``return_gradient=True``.
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

        Returns
        -------
        Acquisition
            ``self`` here; the logarithm for PI and EI.
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


class ImprovementAcquisition(Acquisition):
    """Base class of the acquisitions of the improvement ``I(x) = max{0, f(x) - f(x+) - xi}``
    (eq. 2.10): PI, EI and their logarithms, which take the margin ``xi`` (and ``xi``
    schedules in :class:`~kernelkit.optimize.BayesianOptimizer`).

    Parameters
    ----------
    xi : float or None, default=None
        The margin ``xi >= 0``; ``None``: the class's ``default_xi``.
    """

    default_xi = 0.0

    def __init__(self, xi: float | None = None):
        xi = self.default_xi if xi is None else xi
        self.xi: float = check_nonnegative_number(xi, "xi")

    def with_xi(self, xi: float) -> Self:
        """A copy with another ``xi`` (used by the schedules).

        Parameters
        ----------
        xi : float
            The new margin, ``>= 0``.

        Returns
        -------
        ImprovementAcquisition
            A copy of ``self``, of the same class, with ``xi`` replaced.
        """
        new = copy.copy(self)
        new.__init__(xi)  # type: ignore[misc]
        return new

    def _z(self, mean: np.ndarray, std: np.ndarray, best: float) -> tuple[np.ndarray, np.ndarray]:
        """The margin ``d = mu - f(x+) - xi`` and ``Z = d / sigma`` (eq. 2.16).

        Where ``sigma = 0`` (or ``d / sigma`` overflows), ``Z`` is its limit: ``+inf`` for
        ``d > 0``, ``-inf`` for ``d < 0`` and 0 for ``d = 0``.
        """
        d = mean - best - self.xi
        if not np.isfinite(d).all():  # finite terms whose difference overflows
            i = int(np.flatnonzero(~np.isfinite(d))[0])
            raise ValueError(
                f"mean - best - xi overflows float64 (mean {mean[i]:.3g}, best {best:.3g}, "
                f"xi {self.xi:.3g}); rescale mean, std, best and xi together"
            )
        z = d / std
        zero = std == 0
        if zero.any():
            z[zero] = np.where(d[zero] > 0, np.inf, np.where(d[zero] < 0, -np.inf, 0.0))
        return d, z

    @staticmethod
    def _dz(
        z: np.ndarray, std: np.ndarray, mean_grad: np.ndarray, std_grad: np.ndarray
    ) -> np.ndarray:
        """``dZ/dx = (dmu - Z dsigma) / sigma``; not finite where ``sigma = 0`` or tiny."""
        return (mean_grad - z[:, None] * std_grad) / std[:, None]

    @staticmethod
    def _by_parts(
        log_c: np.ndarray, z: np.ndarray, mean_grad: np.ndarray, std_grad: np.ndarray
    ) -> np.ndarray:
        """The chain rule ``r(Z) dZ`` as ``c (dmu - Z dsigma)``, ``log c = log r(Z) - log sigma``.

        For ``sigma`` so small that ``dZ`` overflows: 0 where ``r(Z)`` vanishes (or the
        bracket does), ``+-inf`` only where the slope itself is beyond the float range.
        """
        c = np.exp(log_c)[:, None]
        a = mean_grad - z[:, None] * std_grad
        return np.where((c == 0) | (a == 0), 0.0, c * a)


class ProbabilityOfImprovement(ImprovementAcquisition):
    """``PI(x) = P(I(x) > 0) = Phi(Z)`` (assignment eq. 2.11).

    At ``sigma = 0`` the limit: 1, 1/2 or 0 as ``mu - f(x+) - xi`` is ``> 0``, ``= 0`` or
    ``< 0``.

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
        return special.ndtr(self._z(mean, std, best)[1])

    def _value_and_gradient(self, mean, std, best, mean_grad, std_grad):  # type: ignore[no-untyped-def]
        _, z = self._z(mean, std, best)
        log_phi = _log_phi(z)
        grad = np.exp(log_phi)[:, None] * self._dz(z, std, mean_grad, std_grad)
        redo = ~np.isfinite(grad).all(axis=1)  # sigma = 0, or so small that dZ overflows
        if redo.any():
            redo &= std > 0
            log_c = log_phi[redo] - np.log(std[redo])
            grad[redo] = self._by_parts(log_c, z[redo], mean_grad[redo], std_grad[redo])
        grad[std == 0] = 0.0  # the limit, or (d = 0, a jump) no slope to follow
        return special.ndtr(z), grad

    def for_search(self) -> Acquisition:
        """The acquisition maximised in the search: log PI, the same maximiser.

        Returns
        -------
        LogProbabilityOfImprovement
            With this ``xi``.
        """
        return LogProbabilityOfImprovement(self.xi)


class LogProbabilityOfImprovement(ImprovementAcquisition):
    """``log PI(x) = log Phi(Z)`` via ``scipy.special.log_ndtr``.

    At ``sigma = 0`` the log of PI's limit: 0, ``log 1/2`` or ``-inf``.

    Parameters
    ----------
    xi : float, default=0.2
        Required improvement over the incumbent (as for PI).
    """

    name = "logpi"
    default_xi = 0.2

    def _value(self, mean: np.ndarray, std: np.ndarray, best: float) -> np.ndarray:
        return special.log_ndtr(self._z(mean, std, best)[1])

    def _value_and_gradient(self, mean, std, best, mean_grad, std_grad):  # type: ignore[no-untyped-def]
        _, z = self._z(mean, std, best)
        log_pi = special.log_ndtr(z)
        log_ratio = _far_left(z, _log_phi(z) - log_pi)  # log(phi / Phi)
        grad = np.exp(log_ratio)[:, None] * self._dz(z, std, mean_grad, std_grad)
        flat = (std == 0) | np.isneginf(log_pi)  # the limit, or no slope to follow
        redo = ~np.isfinite(grad).all(axis=1) & ~flat  # sigma so small that dZ overflows
        if redo.any():
            log_c = log_ratio[redo] - np.log(std[redo])
            grad[redo] = self._by_parts(log_c, z[redo], mean_grad[redo], std_grad[redo])
        grad[flat] = 0.0
        return log_pi, grad


class ExpectedImprovement(ImprovementAcquisition):
    """``EI(x) = E[I(x)]`` (assignment eqs. 2.15-2.16); ``max{0, mu - f(x+) - xi}`` at
    ``sigma = 0`` (the limit; the seed's eq. 2.16 writes 0, the same at evaluated points).

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
    >>> float(ei([1.0], [0.0], best=0.5)[0])  # sigma = 0: the improvement is certain
    0.5
    """

    name = "ei"
    default_xi = 0.05

    def _value(self, mean: np.ndarray, std: np.ndarray, best: float) -> np.ndarray:
        d, z = self._z(mean, std, best)
        # at Z = +-inf (sigma = 0): d * 1 + 0 = d, or d * 0 + 0 = 0, the limits
        ei = d * special.ndtr(z) + std * np.exp(_log_phi(z))
        return np.maximum(ei, 0.0)

    def _value_and_gradient(self, mean, std, best, mean_grad, std_grad):  # type: ignore[no-untyped-def]
        d, z = self._z(mean, std, best)
        cdf, pdf = special.ndtr(z), np.exp(_log_phi(z))
        value = np.maximum(d * cdf + std * pdf, 0.0)
        grad = cdf[:, None] * mean_grad + pdf[:, None] * std_grad  # dEI/dmu, dEI/dsigma
        return value, grad

    def for_search(self) -> Acquisition:
        """The acquisition maximised in the search: log EI, the same maximiser.

        Returns
        -------
        LogExpectedImprovement
            With this ``xi``.
        """
        return LogExpectedImprovement(self.xi)


class LogExpectedImprovement(ImprovementAcquisition):
    """``log EI(x) = log sigma + log h(Z)``, ``h(z) = phi(z) + z Phi(z)``; see :func:`log_h`.

    Finite and increasing in ``mu`` for every finite ``Z``, where EI itself underflows
    to 0 for ``Z < -38`` or so; ``log max{0, mu - f(x+) - xi}`` at ``sigma = 0`` (the
    limit, ``-inf`` unless the improvement is certain). The gradient is
    ``d log EI = dsigma / sigma + (Phi(Z) / h(Z)) dZ``.

    Parameters
    ----------
    xi : float, default=0.05
        Exploration margin (as for EI).
    """

    name = "logei"
    default_xi = 0.05

    def _value(self, mean: np.ndarray, std: np.ndarray, best: float) -> np.ndarray:
        return self._log_ei(*self._z(mean, std, best), std)[0]

    @staticmethod
    def _log_ei(d: np.ndarray, z: np.ndarray, std: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``log EI`` and ``log h(Z)``.

        ``log max{0, d}`` where ``Z`` is infinite (the limit) and where ``Z > 1/sqrt(eps)``:
        there ``EI = d`` to double precision, and ``log sigma + log Z`` would lose digits
        to cancellation as ``sigma -> 0``.
        """
        lh = _log_h(z)
        value = np.log(std) + lh
        limit = (z > _SQRT_EPS_INV) | np.isneginf(z)  # Z = +inf or huge, or Z = -inf
        if limit.any():
            value[limit] = np.log(np.maximum(d[limit], 0.0))
        return value, lh

    def _value_and_gradient(self, mean, std, best, mean_grad, std_grad):  # type: ignore[no-untyped-def]
        d, z = self._z(mean, std, best)
        value, lh = self._log_ei(d, z, std)
        log_cdf = special.log_ndtr(z)
        ratio = np.exp(_far_left(z, log_cdf - lh))  # Phi(z) / h(z)
        grad = ratio[:, None] * self._dz(z, std, mean_grad, std_grad)
        grad += std_grad / std[:, None]
        # sigma = 0 or tiny, or far above the incumbent (Z > 1/sqrt(eps)), where the two
        # terms above cancel to a relative error of eps Z
        flat = np.isneginf(value)  # no slope to follow
        redo = (~np.isfinite(grad).all(axis=1) | (z > _SQRT_EPS_INV)) & ~flat
        if redo.any():
            # d log EI = dEI / EI = (Phi dmu + phi dsigma) / EI with the larger of Phi and
            # phi taken out: a bounded bracket times a scale that is +-inf only where the
            # slope itself is beyond the float range
            lc, lp = log_cdf[redo], _log_phi(z[redo])
            top = np.maximum(lc, lp)
            bracket = (
                np.exp(lc - top)[:, None] * mean_grad[redo]
                + np.exp(lp - top)[:, None] * std_grad[redo]
            )
            scale = np.exp(top - value[redo])[:, None]
            grad[redo] = np.where(bracket == 0, 0.0, scale * bracket)
        grad[flat] = 0.0
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
        return mean + math.sqrt(self.beta) * std  # mu at sigma = 0

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
    """Names accepted by :func:`get_acquisition`.

    Returns
    -------
    list of str
        ``["ei", "pi", "logei", "logpi", "ucb"]``.
    """
    return list(_NAMES)


def get_acquisition(acquisition: Any) -> Acquisition:
    """An :class:`Acquisition` from a name (``"ei"``, ``"pi"``, ``"logei"``, ``"logpi"``,
    ``"ucb"``, case-insensitive, with default parameters) or an instance (returned as is).

    Parameters
    ----------
    acquisition : str or Acquisition
        A name of :func:`acquisition_names` (``-`` and ``_`` ignored) or an instance.

    Returns
    -------
    Acquisition
        A new instance with default parameters for a name; ``acquisition`` itself
        otherwise.

    Raises
    ------
    ValueError
        An unknown name.
    TypeError
        Neither a string nor an :class:`Acquisition`.

    Examples
    --------
    >>> get_acquisition("EI")
    ExpectedImprovement(xi=0.05)
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
