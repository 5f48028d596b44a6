"""Stationary kernels ``k(x, y) = variance * f(r)`` with ``r = |(x - y) / lengthscale|``.

Each kernel supplies its profile ``f``, ``g(r) = -f'(r) / r`` and ``h(r) = -f'(r)`` as
functions of the squared scaled distance ``s = r^2``. With ``Delta_k = (x_k - y_k) / l_k``,

    dK/d log variance = K,    dK/d log l_k = variance * g(r) * Delta_k^2,

so ``sum_ij W_ij dK_ij / d log l_k`` is ``sum_ij M_ij (z_ik - z_jk)^2`` with
``M = variance * W * g`` and ``z = x / l`` — two row sums and one matrix product, with no
``(n, n, d)`` tensor. On a cross block ``k(X, Y)`` (``gradient_dot(X, W, Y)``) it is
``sum_ij M_ij (z_ik - w_jk)^2`` with ``w = y / l``, the same sums and product.

Every value is finite for finite inputs and hyperparameters. Where the scaled distance is
beyond the float range (``s = +inf``), each profile and derivative takes its limit as
``r -> inf``, which is 0 (for the sinc kernel's derivative, whose oscillation has no limit,
its mean 0).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from kernelkit._special import log_kv
from kernelkit.kernels._blocks import (
    Expansion,
    ard_sums,
    direct_ard_sums,
    expansion,
    map_sq_dist,
    pair_chunks,
)
from kernelkit.kernels.base import Hyperparameter, Kernel
from kernelkit.kernels.parameters import parameter

__all__ = ["Stationary", "RBF", "Matern", "Laplace", "RationalQuadratic", "Sinc"]

#: Beyond this squared distance the exponentially decaying profiles (and their derivatives)
#: are 0 in float64 (``exp(-sqrt(3) * 1000)`` underflows), so ``s`` is clipped there first:
#: a polynomial factor times ``exp(-r)`` must not become ``inf * 0``.
_S_CLIP = 1e6


def _clip(s: np.ndarray) -> np.ndarray:
    return np.minimum(s, _S_CLIP, out=s)


class Stationary(Kernel):
    """Base class: a profile ``f`` of the scaled distance, times ``variance``.

    Parameters
    ----------
    lengthscale : float or array of shape (d,), default=1.0
        A scalar gives an isotropic kernel; a vector gives one lengthscale per input
        dimension (automatic relevance determination, ARD).
    variance : float, default=1.0
        The signal variance ``sigma_f^2 = k(x, x)``.
    lengthscale_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
        Bounds on the lengthscale when hyperparameters are fitted; ``"fixed"`` excludes it
        from ``theta``.
    lengthscale_prior : Prior or None, default=None
        A prior on the lengthscale (one prior for all the entries of an ARD lengthscale);
        see :meth:`~kernelkit.kernels.Kernel.log_prior`.
    variance_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
        As ``lengthscale_bounds``, for the variance.
    variance_prior : Prior or None, default=None
        As ``lengthscale_prior``, for the variance.

    Notes
    -----
    A subclass gives its profile ``_f(s)`` as a function of the squared scaled distance
    ``s = r^2`` and, for gradients, ``_g(s) = -f'(r) / r``; further arguments are declared
    with :func:`~kernelkit.kernels.parameter` (Matérn's ``nu``; the rational quadratic's
    fitted ``shape``, whose gradient ``_extra_gradients`` gives). The example of
    :class:`~kernelkit.kernels.Kernel` declares one.
    """

    lengthscale: Any = parameter(1.0, fitted=True, ard=True)
    variance: float = parameter(1.0, fitted=True)

    #: the profile is not differentiable in ``s`` at 0 (``f ~ 1 - c s^nu``, ``nu <= 1``), so
    #: squared distances within the round-off of 0 are recomputed from differences
    _rough = False

    @property
    def anisotropic(self) -> bool:
        """Whether the lengthscale is a vector (ARD), one entry per input dimension."""
        return np.ndim(self.lengthscale) == 1

    @property
    def is_stationary(self) -> bool:
        """True: the value depends on ``x - y`` only."""
        return True

    def _check_n_features(self, d: int) -> None:
        if self.anisotropic and np.size(self.lengthscale) != d:
            raise ValueError(
                f"lengthscale has {np.size(self.lengthscale)} entries but X has {d} features"
            )

    def _bound(self, X: Any, Y: Any) -> float:
        return float(self.variance)

    # ---- profile, to be provided by subclasses (s = r^2 >= 0, possibly +inf; s may be
    # modified in place). None may return NaN or raise a floating-point warning.
    def _f(self, s: np.ndarray) -> np.ndarray:
        raise NotImplementedError(self._no_profile())

    def _g(self, s: np.ndarray) -> np.ndarray:
        """``-f'(r) / r`` (finite wherever it multiplies a nonzero ``Delta^2``)."""
        raise NotImplementedError(self._no_profile())

    def _no_profile(self) -> str:
        return (
            f"{type(self).__name__} has no profile: Stationary is the base class of RBF, "
            "Matern, Laplace and RationalQuadratic; use one of them, or a subclass that "
            "defines _f (and _g for gradients)"
        )

    def _h(self, s: np.ndarray) -> np.ndarray:
        """``-f'(r) = r g(r)``, 0 at ``s = inf``."""
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.sqrt(s) * self._g(s.copy())
        out[np.isinf(s)] = 0.0
        return out

    def _gs(self, s: np.ndarray) -> np.ndarray:
        """``-r f'(r) = s g(r)``, the derivative of ``f`` in ``-log lengthscale``; 0 at
        ``s = 0`` and at ``s = inf``."""
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.sqrt(s) * self._h(s.copy())
        out[np.isinf(s) | (s == 0)] = 0.0
        return out

    # ---- shared machinery
    def _ls(self) -> np.ndarray:
        return np.asarray(self.lengthscale, dtype=np.float64)

    def _dtype(self, *arrays: np.ndarray) -> Any:
        """float32 output for float32 inputs, unless the variance does not fit in float32."""
        dtype = np.result_type(*(a.dtype for a in arrays), np.float32)
        if dtype == np.float32 and not float(self.variance) <= float(np.finfo(np.float32).max):
            return np.float64
        return dtype

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        v = float(self.variance)
        out = np.empty((X.shape[0], Y.shape[0]), dtype=self._dtype(X, Y))

        def apply(s: np.ndarray) -> np.ndarray:
            res = self._f(s)
            res *= v
            return res

        return map_sq_dist(X, Y, apply, out=out, scale=self._ls(), exact_near=self._rough)

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], float(self.variance), dtype=self._dtype(X))

    def _sq(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        return map_sq_dist(X, X if Y is None else Y, scale=self._ls(), exact_near=self._rough)

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

    def _gradient_dot_cross(self, X: np.ndarray, Y: np.ndarray, W: np.ndarray) -> np.ndarray:
        return self._pair_gram_and_gradient(X, Y, values=False)[1](W)

    def _ard_sums(
        self,
        X: np.ndarray,
        Y: np.ndarray,
        K0: np.ndarray,
        S: np.ndarray | None,
        W: np.ndarray,
        ex: Expansion | None,
    ) -> np.ndarray:
        """``sum_ij W_ij g_ij Delta_ijk^2`` for each feature ``k`` over the pairs of ``X``
        and ``Y`` (``Y is X`` on the square); ``ex`` is ``expansion(X, Y, lengthscale)``."""
        if ex is None:  # far-flung or overflowing inputs: from differences
            assert S is not None
            return direct_ard_sums(X, Y, self._ls(), W * self._gs(S.copy()), S)
        if S is None:  # only when g == f and the profile is smooth
            return ard_sums(ex, K0 * W)
        G = K0 if self._g_is_f else self._g(S.copy())
        if not self._rough:
            return ard_sums(ex, G * W)
        # g is unbounded at 0: pairs within the expansion's round-off of each other would
        # multiply its error by g, so they are summed from their differences instead
        near = S < ex.near
        G[near] = 0.0
        out = ard_sums(ex, G * W)
        a, b = np.nonzero(near)
        live = W[a, b] != 0
        a, b = a[live], b[live]
        for q, diff in pair_chunks(ex.Z, ex.W, a, b):
            s = np.einsum("ij,ij->i", diff, diff)
            w = W[a[q], b[q]] * self._gs(s.copy())
            w = np.divide(w, s, out=np.zeros_like(w), where=s > 0)
            out += w @ (diff * diff)
        return out

    def _gram_and_gradient(
        self, X: np.ndarray
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        return self._pair_gram_and_gradient(X, X)

    def _gram_and_gradient_cross(
        self, X: np.ndarray, Y: np.ndarray
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        return self._pair_gram_and_gradient(X, Y)

    def _pair_gram_and_gradient(
        self, X: np.ndarray, Y: np.ndarray, *, values: bool = True
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """``k(X, Y)`` (``Y is X`` for the square ``k(X)``) and ``W -> sum_ij W_ij
        dk(X_i, Y_j)/dtheta``, sharing the profile and the distances; without ``values``
        the first is the profile ``f`` itself, not a copy scaled by the variance."""
        ls = self._ls()
        K0 = map_sq_dist(X, Y, self._f, scale=ls, exact_near=self._rough)  # the profile f(r)
        v = float(self.variance)
        K = K0 * v if values else K0
        free = {hp.name for hp in self.free_hyperparameters}
        ard = "lengthscale" in free and self.anisotropic
        ex = expansion(X, Y, ls) if ard else None  # once, for every contraction
        # the squared distances themselves are needed only for a free lengthscale (unless
        # g == f, it is ARD and the expansion applies) and for free shape parameters
        needs_s = bool(self._extra_hyperparameters()) or (
            "lengthscale" in free
            and not (ard and self._g_is_f and not self._rough and ex is not None)
        )
        S = self._sq(X, Y) if needs_s else None
        cache: dict[str, np.ndarray] = {}

        def contract(W: np.ndarray) -> np.ndarray:
            out: dict[str, np.ndarray] = {}
            if "lengthscale" in free:
                if self.anisotropic:
                    out["lengthscale"] = v * self._ard_sums(X, Y, K0, S, W, ex)
                else:
                    if "gs" not in cache:
                        assert S is not None
                        if self._g_is_f:  # s g = s f: reuse the profile (0 where s > 1e6)
                            cache["gs"] = K0 * np.minimum(S, _S_CLIP)
                        else:
                            cache["gs"] = self._gs(S.copy())
                    out["lengthscale"] = np.array([v * np.vdot(W, cache["gs"])])
            if "variance" in free:
                out["variance"] = np.array([v * np.vdot(W, K0)])
            extra = zip(self._extra_hyperparameters(), self._extra_gradients(S, K0), strict=True)
            for hp, dK in extra:
                out[hp.name] = np.array([np.vdot(W, dK)])
            if not out:  # every hyperparameter fixed
                return np.empty(0)
            return np.concatenate([out[hp.name] for hp in self.free_hyperparameters])

        return K, contract

    def _differences(self, X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``Delta = (x_a - y_b) / l`` of shape (n, m, d) and ``S = |Delta|^2``, from
        differences (``+-inf`` where they overflow)."""
        with np.errstate(over="ignore"):
            D = X[:, None, :].astype(np.float64) - Y[None, :, :]
            D /= self._ls()
            S = np.einsum("abk,abk->ab", D, D)
        return D, S

    def _input_gradient(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        # dk/dx_k = variance * f'(r) * (Delta_k / r) / l_k = -variance * h(r) * u_k / l_k,
        # with the unit vector u = Delta / r computed after scaling by max |Delta_k|, so that
        # neither a subnormal nor an overflowing difference turns it into 0/0
        D, S = self._differences(X, Y)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            U = D / np.max(np.abs(D), axis=2, keepdims=True)
            U /= np.sqrt(np.einsum("abk,abk->ab", U, U))[:, :, None]
            U[~np.isfinite(U)] = 0.0  # coincident points (no direction), or S = inf (h = 0)
            H = self._h(S)
            H *= -float(self.variance)
            G = H[:, :, None] * U
            G /= self._ls()
        return G

    def _gradient(self, X: np.ndarray) -> np.ndarray:
        S = self._sq(X)
        v = float(self.variance)
        parts = []
        free = {hp.name for hp in self.free_hyperparameters}
        K0 = self._f(S.copy())
        if "lengthscale" in free:
            GS = v * self._gs(S.copy())
            if self.anisotropic:
                # dK/d log l_k = variance * (s g) * Delta_k^2 / s
                D, S2 = self._differences(X, X)
                with np.errstate(over="ignore", invalid="ignore"):
                    D *= D
                    D /= S2[:, :, None]
                D[~np.isfinite(D)] = 0.0  # 0/0 at coincident points; s g = 0 at S = inf
                parts.append(GS[:, :, None] * D)
            else:
                parts.append(GS[:, :, None])
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

    Parameters
    ----------
    lengthscale : float or array of shape (d,), default=1.0
        Isotropic, or one lengthscale per input dimension (ARD).
    variance : float, default=1.0
        The signal variance ``k(x, x)``.
    lengthscale_bounds, lengthscale_prior, variance_bounds, variance_prior : optional
        Bounds (``(low, high)`` or ``"fixed"``) and priors of the fitted hyperparameters,
        as in :class:`Stationary`.

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

    def _h(self, s: np.ndarray) -> np.ndarray:
        s = _clip(s)
        return np.sqrt(s) * np.exp(-0.5 * s)


class Matern(Stationary):
    """Matérn kernel with smoothness ``nu`` (assignment eq. 2.5).

    ``variance * 2^(1-nu) / Gamma(nu) * (sqrt(2 nu) r)^nu K_nu(sqrt(2 nu) r)``. For
    ``nu`` in {1/2, 3/2, 5/2} the closed forms of eq. 2.6 are used; ``nu = inf`` is the
    RBF kernel; any other ``nu > 0`` goes through the modified Bessel function
    ``scipy.special.kv``. Sample paths are m times mean-square differentiable iff
    ``nu > m``.

    Parameters
    ----------
    lengthscale : float or array of shape (d,), default=1.0
        Isotropic, or one lengthscale per input dimension (ARD).
    variance : float, default=1.0
        The signal variance ``k(x, x)``.
    nu : float, default=2.5
        Smoothness; a structural choice, not a fitted hyperparameter.
    lengthscale_bounds, lengthscale_prior, variance_bounds, variance_prior : optional
        Bounds (``(low, high)`` or ``"fixed"``) and priors of the fitted hyperparameters,
        as in :class:`Stationary`.
    """

    nu: float = parameter(2.5)

    def _check_params(self) -> None:
        if isinstance(self.nu, bool) or not isinstance(self.nu, numbers.Real):
            raise TypeError(f"nu must be a number, got {type(self.nu).__name__}")
        if not self.nu > 0:
            raise ValueError(f"nu must be > 0 (or inf for the RBF limit), got {self.nu!r}")
        super()._check_params()

    @property
    def _g_is_f(self) -> bool:  # type: ignore[override]
        return self._form() == "inf"

    @property
    def _rough(self) -> bool:  # type: ignore[override]
        return float(self.nu) <= 1.0

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
        if form == "half":
            r = np.sqrt(s, out=s)
            r *= -1.0
            return np.exp(r, out=r)
        if form == "three_halves":
            r = np.sqrt(_clip(s), out=s)
            r *= math.sqrt(3.0)
            e = np.exp(-r)
            r += 1.0
            r *= e
            return r
        if form == "five_halves":
            r = np.sqrt(_clip(s), out=s)
            r *= math.sqrt(5.0)
            e = np.exp(-r)
            out = r * r
            out /= 3.0
            out += r
            out += 1.0
            out *= e
            return out
        out = self._bessel(np.sqrt(s, out=s), self.nu, scale=1.0)
        # for large nu the logs cancel to ~1e-12 near r = 0; the profile never exceeds 1
        return np.minimum(out, 1.0, out=out)

    def _bessel(
        self, r: np.ndarray, order: float, scale: float, power: float | None = None
    ) -> np.ndarray:
        """``scale * 2^(1-nu)/Gamma(nu) * z^power * K_order(z)``, ``z = sqrt(2 nu) r``, in
        logs (``power`` defaults to ``order``), with its limits at ``z = 0`` and ``inf``."""
        nu = float(self.nu)
        p = order if power is None else power
        z = math.sqrt(2.0 * nu) * r
        logc = (1.0 - nu) * math.log(2.0) - special.gammaln(nu) + math.log(scale)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            logk = log_kv(order, z)
            out = np.exp(logc + p * np.log(z) + logk)
        bad = ~np.isfinite(out) | (z == 0)
        if np.any(bad):
            # K_a(z) ~ 2^(a-1) Gamma(a) z^-a as z -> 0 (a = |order| > 0), and it decays
            # like exp(-z) as z -> inf, where the value is 0
            a = abs(order)
            if order == nu and p == a:  # the profile itself: 1 at r = 0 by normalisation
                lim0 = scale
            elif a > 0 and p == a:
                lim0 = math.exp(logc + (a - 1.0) * math.log(2.0) + special.gammaln(a))
            else:  # 0 for p > a; unbounded for p < a, where it multiplies Delta = 0
                lim0 = 0.0
            out[bad] = np.where(z[bad] > 1.0, 0.0, lim0)
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
            r = np.minimum(r, math.sqrt(_S_CLIP), out=r)
            r *= math.sqrt(5.0)
            out = np.exp(-r)
            r += 1.0
            out *= r
            out *= 5.0 / 3.0
            return out
        # d/dz (z^nu K_nu(z)) = -z^nu K_(nu-1)(z)  =>  g = c * 2 nu * z^(nu-1) K_(nu-1)(z)
        nu = float(self.nu)
        return self._bessel(r, nu - 1.0, scale=2.0 * nu)

    def _h(self, s: np.ndarray) -> np.ndarray:
        form = self._form()
        if form == "half":
            return np.exp(-np.sqrt(s))
        if form == "bessel":  # r g = c sqrt(2 nu) z^nu K_(nu-1)(z)
            nu = float(self.nu)
            return self._bessel(np.sqrt(s), nu - 1.0, scale=math.sqrt(2.0 * nu), power=nu)
        r = np.sqrt(_clip(s))
        with np.errstate(over="ignore"):
            return r * self._g(r * r)

    def _gs(self, s: np.ndarray) -> np.ndarray:
        if self._form() == "bessel":  # s g = c z^(nu+1) K_(nu-1)(z)
            nu = float(self.nu)
            return self._bessel(np.sqrt(s), nu - 1.0, scale=1.0, power=nu + 1.0)
        return super()._gs(s)


class Laplace(Matern):
    """Laplace (exponential) kernel ``variance * exp(-r)``, i.e. Matérn with nu = 1/2.

    Its spectral density is multivariate Cauchy (Rowland 2018, Table 7.1).

    Parameters
    ----------
    lengthscale : float or array of shape (d,), default=1.0
        Isotropic, or one lengthscale per input dimension (ARD).
    variance : float, default=1.0
        The signal variance ``k(x, x)``.
    lengthscale_bounds, lengthscale_prior, variance_bounds, variance_prior : optional
        Bounds (``(low, high)`` or ``"fixed"``) and priors of the fitted hyperparameters,
        as in :class:`Stationary`.
    """

    nu = 0.5  # fixed: not a constructor argument


class RationalQuadratic(Stationary):
    """Rational quadratic kernel ``variance * (1 + r^2 / (2 shape))^(-shape)``.

    A scale mixture of RBF kernels; tends to :class:`RBF` as ``shape -> infinity``.

    Parameters
    ----------
    lengthscale : float or array of shape (d,), default=1.0
        Isotropic, or one lengthscale per input dimension (ARD).
    variance : float, default=1.0
        The signal variance ``k(x, x)``.
    shape : float, default=1.0
        The shape ``> 0`` (scikit-learn's ``alpha``), a fitted hyperparameter like
        ``lengthscale`` and ``variance``.
    lengthscale_bounds, lengthscale_prior, variance_bounds, variance_prior : optional
        Bounds (``(low, high)`` or ``"fixed"``) and priors of the fitted hyperparameters,
        as in :class:`Stationary`.
    shape_bounds, shape_prior : optional
        The same for ``shape``.

    Notes
    -----
    Its tail decays only like ``r^(-2 shape)``. Where ``r^2`` itself is beyond the float64
    range (``r > 1.3e154``) the value is taken as its limit 0, which is within
    ``exp(-709 shape)`` of the true value (below 1e-30 for ``shape >= 0.1``).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RationalQuadratic
    >>> k = RationalQuadratic(lengthscale=1.0, shape=2.0)
    >>> float(k(np.zeros((1, 1)), np.full((1, 1), 2.0))[0, 0])  # (1 + 4 / 4) ** -2
    0.25
    >>> k.theta_names
    ['lengthscale', 'variance', 'shape']
    """

    shape: float = parameter(1.0, fitted=True)

    def _log1p_u(self, s: np.ndarray) -> np.ndarray:
        """``log(1 + s / (2 shape))`` in place; ``inf`` where ``s / (2 shape)`` overflows."""
        with np.errstate(over="ignore"):
            s /= float(self.shape)  # not s / (2 shape): 2 shape may overflow
            s *= 0.5
        return np.log1p(s, out=s)

    def _f(self, s: np.ndarray) -> np.ndarray:
        s = self._log1p_u(s)
        s *= -float(self.shape)
        return np.exp(s, out=s)

    def _g(self, s: np.ndarray) -> np.ndarray:
        s = self._log1p_u(s)
        s *= -(float(self.shape) + 1.0)
        return np.exp(s, out=s)

    def _extra_gradients(self, s: np.ndarray | None, K0: np.ndarray) -> list[np.ndarray]:
        if not self._extra_hyperparameters():  # shape fixed
            return []
        assert s is not None  # squared distances are computed whenever shape is free
        # d log f / d log shape = shape * (u / (1 + u) - log(1 + u)),  u = s / (2 shape);
        # u is clipped to the float range, where K0 = 0 already
        a = float(self.shape)
        with np.errstate(over="ignore"):
            u = np.minimum(s / a * 0.5, np.finfo(np.float64).max)
        return [float(self.variance) * K0 * a * (u / (1.0 + u) - np.log1p(u))]


class Sinc(Stationary):
    """Sinc kernel ``variance * sin(r) / r`` (positive definite for d <= 3 only).

    Rowland (2018) eq. 7.21 uses it (d = 3) as the kernel where orthogonal random
    features can be worse than i.i.d. ones. Inputs with more than three features are
    rejected, since the kernel is not positive definite there.

    Parameters
    ----------
    lengthscale : float or array of shape (d,), default=1.0
        Isotropic, or one lengthscale per input dimension (ARD).
    variance : float, default=1.0
        The signal variance ``k(x, x)``.
    lengthscale_bounds, lengthscale_prior, variance_bounds, variance_prior : optional
        Bounds (``(low, high)`` or ``"fixed"``) and priors of the fitted hyperparameters,
        as in :class:`Stationary`.

    Notes
    -----
    Where ``r^2`` is beyond the float64 range the value is its limit 0; the derivative in
    the lengthscale, ``sin(r)/r - cos(r)``, oscillates without a limit, and there (as in
    practice wherever ``r > 1e16``, where ``cos(r)`` carries no correct digit) it is 0,
    its mean.
    """

    def _check_n_features(self, d: int) -> None:
        if d > 3:
            raise ValueError(
                f"the sinc kernel is positive definite only for inputs of dimension <= 3; "
                f"X has {d} features"
            )
        super()._check_n_features(d)

    def _r(self, s: np.ndarray) -> np.ndarray:
        # sin(r) / r and its derivatives are below 1e-150 (float32: 1e-18) beyond this r,
        # whose square is still finite (and +inf, a distance beyond the range, has no sine)
        r = np.sqrt(s, out=s)
        return np.minimum(r, 1e18 if r.dtype == np.float32 else 1e150, out=r)

    def _f(self, s: np.ndarray) -> np.ndarray:
        r = self._r(s)
        return np.sinc(r / np.pi)  # numpy's sinc is sin(pi x) / (pi x)

    def _g(self, s: np.ndarray) -> np.ndarray:
        # -f'(r)/r = (sin(r)/r - cos r) / r^2, with its Taylor series 1/3 - r^2/30 near 0
        r = self._r(s)
        out = np.empty_like(r)
        small = r < 1e-2
        rs = r[small] ** 2
        out[small] = 1.0 / 3.0 - rs / 30.0 + rs * rs / 840.0
        rb = r[~small]
        out[~small] = (np.sin(rb) / rb - np.cos(rb)) / (rb * rb)
        return out

    def _h(self, s: np.ndarray) -> np.ndarray:
        r = self._r(s)
        out = np.empty_like(r)
        small = r < 1e-2
        rs = r[small]
        out[small] = rs * (1.0 / 3.0 - rs * rs / 30.0)
        rb = r[~small]
        out[~small] = (np.sin(rb) / rb - np.cos(rb)) / rb
        return out

    def _gs(self, s: np.ndarray) -> np.ndarray:
        big = s > 1e32  # r > 1e16: cos(r) has no correct digit left
        out = super()._gs(s)
        out[big] = 0.0
        return out
