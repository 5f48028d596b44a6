"""Stationary kernels ``k(x, y) = variance * f(r)`` with ``r = |(x - y) / lengthscale|``.

Each kernel supplies its profile ``f`` and ``g(r) = -f'(r) / r`` as functions of the
squared scaled distance ``s = r^2``. With ``Delta_k = (x_k - y_k) / l_k``,

    dK/d log variance = K,    dK/d log l_k = variance * g(r) * Delta_k^2,

so ``sum_ij W_ij dK_ij / d log l_k`` is ``sum_ij M_ij (z_ik - z_jk)^2`` with
``M = variance * W * g`` and ``z = x / l`` — two row sums and one matrix product, with no
``(n, n, d)`` tensor.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from kernelkit.kernels._blocks import map_sq_dist
from kernelkit.kernels.base import Hyperparameter, Kernel

__all__ = ["Stationary", "RBF", "Matern", "Laplace", "RationalQuadratic", "Sinc"]

_DEFAULT_BOUNDS = (1e-5, 1e5)


class Stationary(Kernel):
    """Base class: a profile ``f`` of the scaled distance, times ``variance``.

    Parameters
    ----------
    lengthscale : float or array of shape (d,)
        A scalar gives an isotropic kernel; a vector gives one lengthscale per input
        dimension (automatic relevance determination, ARD).
    variance : float
        The signal variance ``sigma_f^2 = k(x, x)``.
    lengthscale_bounds, variance_bounds : (float, float) or "fixed"
        Bounds used when hyperparameters are fitted; ``"fixed"`` excludes them from theta.
    """

    def __init__(
        self,
        lengthscale: Any = 1.0,
        variance: float = 1.0,
        *,
        lengthscale_bounds: Any = _DEFAULT_BOUNDS,
        variance_bounds: Any = _DEFAULT_BOUNDS,
    ):
        self.lengthscale = lengthscale
        self.variance = variance
        self.lengthscale_bounds = lengthscale_bounds
        self.variance_bounds = variance_bounds
        self._check_params()

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        return [
            Hyperparameter("lengthscale", self.lengthscale_bounds, int(np.size(self.lengthscale))),
            Hyperparameter("variance", self.variance_bounds),
        ]

    def _check_params(self) -> None:
        if np.ndim(self.lengthscale) > 1:
            raise ValueError("lengthscale must be a scalar or a 1-D array (one per feature)")
        super()._check_params()

    @property
    def anisotropic(self) -> bool:
        return np.ndim(self.lengthscale) == 1

    @property
    def is_stationary(self) -> bool:
        return True

    def _check_n_features(self, d: int) -> None:
        if self.anisotropic and np.size(self.lengthscale) != d:
            raise ValueError(
                f"lengthscale has {np.size(self.lengthscale)} entries but X has {d} features"
            )

    # ---- profile, to be provided by subclasses (s = r^2, may be modified in place)
    def _f(self, s: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _g(self, s: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # ---- shared machinery
    def _scaled(self, X: np.ndarray) -> np.ndarray:
        ls = np.asarray(self.lengthscale, dtype=X.dtype)
        return X / ls

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        Z = self._scaled(X)
        W = Z if Y is X else self._scaled(Y)
        v = self.variance

        def apply(s: np.ndarray) -> np.ndarray:
            out = self._f(s)
            out *= v
            return out

        return map_sq_dist(Z, W, apply)

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], float(self.variance), dtype=X.dtype)

    def _extra_hyperparameters(self) -> list[Hyperparameter]:
        shared = ("lengthscale", "variance")
        return [hp for hp in self.free_hyperparameters if hp.name not in shared]

    def _extra_gradients(self, s: np.ndarray | None, K0: np.ndarray) -> list[np.ndarray]:
        """dK/d log(extra hyperparameter) for subclasses with shape parameters.

        ``s`` (squared distances) is ``None`` only when there is no extra free hyperparameter.
        """
        return []

    #: ``g == f`` (the RBF profile), so the Gram matrix's profile serves the gradient too
    _g_is_f = False

    def _gradient_dot(self, X: np.ndarray, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient(X)[1](W)

    def _gram_and_gradient(
        self, X: np.ndarray
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        Z = self._scaled(X)
        K0 = map_sq_dist(Z, Z, self._f)  # the profile f(r), kept for the contraction
        v = float(self.variance)
        K = K0 * v
        free = {hp.name for hp in self.free_hyperparameters}
        # the squared distances themselves are needed only for a free lengthscale (unless
        # g == f and it is ARD) and for free shape parameters
        needs_s = bool(self._extra_hyperparameters()) or (
            "lengthscale" in free and (not self._g_is_f or not self.anisotropic)
        )
        S = map_sq_dist(Z, Z) if needs_s else None

        def contract(W: np.ndarray) -> np.ndarray:
            out: dict[str, np.ndarray] = {}
            if "lengthscale" in free:
                M = K0 * W if self._g_is_f else self._g(S.copy()) * W  # type: ignore[union-attr]
                if self.anisotropic:
                    # sum_ij M_ij (z_ik - z_jk)^2 = r.Z2 + c.Z2 - 2 sum_i z_ik (M z)_ik with
                    # r, c the row and column sums of M: one product gives M z and r
                    Z1 = np.hstack([Z, np.ones((Z.shape[0], 1), dtype=Z.dtype)])
                    MZ1 = M @ Z1
                    col = np.ones(M.shape[0], dtype=M.dtype) @ M
                    Z2 = Z * Z
                    grad = MZ1[:, -1] @ Z2 + col @ Z2 - 2.0 * np.einsum("ik,ik->k", MZ1[:, :-1], Z)
                    out["lengthscale"] = v * grad
                else:
                    out["lengthscale"] = np.array([v * np.vdot(M, S)])
            if "variance" in free:
                out["variance"] = np.array([v * np.vdot(W, K0)])
            extra = zip(self._extra_hyperparameters(), self._extra_gradients(S, K0), strict=True)
            for hp, dK in extra:
                out[hp.name] = np.array([np.vdot(W, dK)])
            if not out:  # every hyperparameter fixed
                return np.empty(0)
            return np.concatenate([out[hp.name] for hp in self.free_hyperparameters])

        return K, contract

    def _input_gradient(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        # dk/dx = variance * f'(r) dr/dx = -variance * g(r) * (x - y) / l^2
        Z, W = self._scaled(X), self._scaled(Y)
        G = self._g(map_sq_dist(Z, W))
        G *= -float(self.variance)
        ls = np.asarray(self.lengthscale, dtype=X.dtype)
        return G[:, :, None] * ((Z[:, None, :] - W[None, :, :]) / ls)

    def _gradient(self, X: np.ndarray) -> np.ndarray:
        Z = self._scaled(X)
        S = map_sq_dist(Z, Z)
        v = float(self.variance)
        parts = []
        free = {hp.name for hp in self.free_hyperparameters}
        K0 = self._f(S.copy())
        if "lengthscale" in free:
            G = v * self._g(S.copy())
            if self.anisotropic:
                diff2 = (Z[:, None, :] - Z[None, :, :]) ** 2
                parts.append(G[:, :, None] * diff2)
            else:
                parts.append((G * S)[:, :, None])
        if "variance" in free:
            parts.append((v * K0)[:, :, None])
        parts += [dK[:, :, None] for dK in self._extra_gradients(S, K0)]
        if not parts:
            return np.zeros((X.shape[0], X.shape[0], 0))
        return np.concatenate(parts, axis=2)


class RBF(Stationary):
    """Gaussian (squared-exponential) kernel ``variance * exp(-r^2 / 2)``.

    Rowland (2018) §5.1 and the assignment's eq. 1.3 (with ``sigma`` the lengthscale);
    the ``nu -> infinity`` limit of :class:`Matern`.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> k = RBF(lengthscale=2.0)
    >>> float(k(np.array([[0.0]]), np.array([[2.0]]))[0, 0])  # exp(-1/2)
    0.6065306597126334
    """

    _g_is_f = True

    def _f(self, s: np.ndarray) -> np.ndarray:
        s *= -0.5
        return np.exp(s, out=s)

    def _g(self, s: np.ndarray) -> np.ndarray:
        return self._f(s)


class Matern(Stationary):
    """Matérn kernel with smoothness ``nu`` (assignment eq. 2.5).

    ``variance * 2^(1-nu) / Gamma(nu) * (sqrt(2 nu) r)^nu K_nu(sqrt(2 nu) r)``. For
    ``nu`` in {1/2, 3/2, 5/2} the closed forms of eq. 2.6 are used; ``nu = inf`` is the
    RBF kernel; any other ``nu > 0`` goes through the modified Bessel function
    ``scipy.special.kv``. Sample paths are m times mean-square differentiable iff
    ``nu > m``.

    Parameters
    ----------
    nu : float
        Smoothness; a structural choice, not a fitted hyperparameter.
    """

    def __init__(
        self,
        lengthscale: Any = 1.0,
        variance: float = 1.0,
        nu: float = 2.5,
        *,
        lengthscale_bounds: Any = _DEFAULT_BOUNDS,
        variance_bounds: Any = _DEFAULT_BOUNDS,
    ):
        self.nu = nu
        super().__init__(
            lengthscale,
            variance,
            lengthscale_bounds=lengthscale_bounds,
            variance_bounds=variance_bounds,
        )

    def _check_params(self) -> None:
        if isinstance(self.nu, bool) or not isinstance(self.nu, numbers.Real):
            raise TypeError(f"nu must be a number, got {type(self.nu).__name__}")
        if not self.nu > 0:
            raise ValueError(f"nu must be > 0 (or inf for the RBF limit), got {self.nu!r}")
        super()._check_params()

    @property
    def _g_is_f(self) -> bool:  # type: ignore[override]
        return self._form() == "inf"

    def _form(self) -> str:
        nu = float(self.nu)
        for name, val in (("half", 0.5), ("three_halves", 1.5), ("five_halves", 2.5)):
            if nu == val:
                return name
        return "inf" if math.isinf(nu) else "bessel"

    def _f(self, s: np.ndarray) -> np.ndarray:
        form = self._form()
        if form == "inf":
            s *= -0.5
            return np.exp(s, out=s)
        r = np.sqrt(s, out=s)
        if form == "half":
            r *= -1.0
            return np.exp(r, out=r)
        if form == "three_halves":
            r *= math.sqrt(3.0)
            e = np.exp(-r)
            r += 1.0
            r *= e
            return r
        if form == "five_halves":
            r *= math.sqrt(5.0)
            e = np.exp(-r)
            out = r * r
            out /= 3.0
            out += r
            out += 1.0
            out *= e
            return out
        return self._bessel(r, self.nu, scale=1.0)

    def _bessel(self, r: np.ndarray, order: float, scale: float) -> np.ndarray:
        """``scale * 2^(1-nu)/Gamma(nu) * z^order * K_order(z)``, z = sqrt(2 nu) r, in logs."""
        nu = float(self.nu)
        z = math.sqrt(2.0 * nu) * r
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            logc = (1.0 - nu) * math.log(2.0) - special.gammaln(nu) + math.log(scale)
            logk = _log_kv(order, z)
            out = np.exp(logc + order * np.log(z) + logk)
        small = ~np.isfinite(out) | (z == 0)
        if np.any(small):  # the z -> 0 limit
            if order > 0:
                lim = math.exp(logc + (order - 1) * math.log(2.0) + special.gammaln(order))
            else:
                lim = 0.0  # g is unbounded at 0 but multiplies (x_k - y_k)^2 = 0
            out[small] = lim
        return out

    def _g(self, s: np.ndarray) -> np.ndarray:
        form = self._form()
        if form == "inf":
            s *= -0.5
            return np.exp(s, out=s)
        r = np.sqrt(s, out=s)
        if form == "half":
            with np.errstate(divide="ignore"):
                out = np.exp(-r) / r
            out[r == 0] = 0.0  # multiplies (x_k - y_k)^2 = 0
            return out
        if form == "three_halves":
            return 3.0 * np.exp(-math.sqrt(3.0) * r)
        if form == "five_halves":
            r *= math.sqrt(5.0)
            out = np.exp(-r)
            r += 1.0
            out *= r
            out *= 5.0 / 3.0
            return out
        # d/dz (z^nu K_nu(z)) = -z^nu K_{nu-1}(z)  =>  g = c * 2 nu * z^(nu-1) K_(nu-1)(z)
        nu = float(self.nu)
        return self._bessel(r, nu - 1.0, scale=2.0 * nu)


#: From this order on, K_order(z) can overflow float64 where the Matérn kernel is far from
#: its z -> 0 limit (e.g. nu = 200 for r < 0.2), so there log K comes from the Debye
#: expansion, whose error is below 1e-10 here.
_DEBYE_MIN_ORDER = 50.0


def _log_kv(order: float, z: np.ndarray) -> np.ndarray:
    """``log K_order(z)`` through ``kve``, and the Debye expansion where that overflows
    (orders ``>= _DEBYE_MIN_ORDER``, ``z > 0``); non-finite where neither gives a value."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        out = np.log(special.kve(order, z)) - z
    if order >= _DEBYE_MIN_ORDER:  # K_order overflows well away from z = 0
        bad = ~np.isfinite(out) & (z > 0)
        out[bad] = _log_kv_debye(order, z[bad])
    return out


def _log_kv_debye(nu: float, z: np.ndarray) -> np.ndarray:
    """``log K_nu(z)`` by the uniform asymptotic (Debye) expansion for large ``nu``.

    Abramowitz & Stegun 9.7.8 with the polynomials u_1..u_4 of 9.3.9-9.3.10.
    """
    z = np.asarray(z, dtype=np.float64)
    t = z / nu
    s = np.sqrt(1.0 + t * t)
    p2 = 1.0 / (s * s)
    p = np.sqrt(p2)
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


class Laplace(Matern):
    """Laplace (exponential) kernel ``variance * exp(-r)``, i.e. Matérn with nu = 1/2.

    Its spectral density is multivariate Cauchy (Rowland 2018, Table 7.1).
    """

    def __init__(
        self,
        lengthscale: Any = 1.0,
        variance: float = 1.0,
        *,
        lengthscale_bounds: Any = _DEFAULT_BOUNDS,
        variance_bounds: Any = _DEFAULT_BOUNDS,
    ):
        super().__init__(
            lengthscale,
            variance,
            nu=0.5,
            lengthscale_bounds=lengthscale_bounds,
            variance_bounds=variance_bounds,
        )


class RationalQuadratic(Stationary):
    """Rational quadratic kernel ``variance * (1 + r^2 / (2 alpha))^(-alpha)``.

    A scale mixture of RBF kernels; tends to :class:`RBF` as ``alpha -> infinity``.
    """

    def __init__(
        self,
        lengthscale: Any = 1.0,
        variance: float = 1.0,
        alpha: float = 1.0,
        *,
        lengthscale_bounds: Any = _DEFAULT_BOUNDS,
        variance_bounds: Any = _DEFAULT_BOUNDS,
        alpha_bounds: Any = _DEFAULT_BOUNDS,
    ):
        self.alpha = alpha
        self.alpha_bounds = alpha_bounds
        super().__init__(
            lengthscale,
            variance,
            lengthscale_bounds=lengthscale_bounds,
            variance_bounds=variance_bounds,
        )

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        return [*super().hyperparameters, Hyperparameter("alpha", self.alpha_bounds)]

    def _f(self, s: np.ndarray) -> np.ndarray:
        a = float(self.alpha)
        s /= 2.0 * a
        np.log1p(s, out=s)
        s *= -a
        return np.exp(s, out=s)

    def _g(self, s: np.ndarray) -> np.ndarray:
        a = float(self.alpha)
        s /= 2.0 * a
        np.log1p(s, out=s)
        s *= -(a + 1.0)
        return np.exp(s, out=s)

    def _extra_gradients(self, s: np.ndarray | None, K0: np.ndarray) -> list[np.ndarray]:
        if not self._extra_hyperparameters():  # alpha fixed
            return []
        assert s is not None  # squared distances are computed whenever alpha is free
        # d log f / d log alpha = alpha * (u / (1 + u) - log(1 + u)),  u = s / (2 alpha)
        a = float(self.alpha)
        u = s / (2.0 * a)
        return [float(self.variance) * K0 * a * (u / (1.0 + u) - np.log1p(u))]


class Sinc(Stationary):
    """Sinc kernel ``variance * sin(r) / r`` (positive definite for d <= 3 only).

    Rowland (2018) eq. 7.21 uses it (d = 3) as the kernel where orthogonal random
    features can be worse than i.i.d. ones. Inputs with more than three features are
    rejected, since the kernel is not positive definite there.
    """

    def _check_n_features(self, d: int) -> None:
        if d > 3:
            raise ValueError(
                f"the sinc kernel is positive definite only for inputs of dimension <= 3; "
                f"X has {d} features"
            )
        super()._check_n_features(d)

    def _f(self, s: np.ndarray) -> np.ndarray:
        r = np.sqrt(s, out=s)
        return np.sinc(r / np.pi)  # numpy's sinc is sin(pi x) / (pi x)

    def _g(self, s: np.ndarray) -> np.ndarray:
        # -f'(r)/r = (sin r - r cos r) / r^3, with its Taylor series 1/3 - r^2/30 near 0
        r = np.sqrt(s)
        out = np.empty_like(r)
        small = r < 1e-2
        rs = r[small] ** 2
        out[small] = 1.0 / 3.0 - rs / 30.0 + rs * rs / 840.0
        rb = r[~small]
        out[~small] = (np.sin(rb) - rb * np.cos(rb)) / rb**3
        return out
