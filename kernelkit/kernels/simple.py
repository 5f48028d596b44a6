"""Non-stationary and degenerate vector kernels: white noise, dot products, angular.

(The constant kernel lives in :mod:`kernelkit.kernels.base`, which builds it for ``k + c``.)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from kernelkit.kernels.base import Hyperparameter, Kernel, _Level
from kernelkit.kernels.parameters import parameter

__all__ = ["White", "Linear", "Polynomial", "Angular"]


class White(_Level):
    """White-noise kernel: ``noise`` on the diagonal of ``k(X)``, 0 elsewhere.

    As in scikit-learn, ``k(X, Y)`` with a separate ``Y`` is all zeros: the noise belongs
    to observations, not to the latent function. Inputs are checked as for
    :class:`~kernelkit.kernels.Constant`.

    Parameters
    ----------
    noise : float, default=1.0
        The noise variance (the name of a GP's noise variance everywhere in kernelkit).
    noise_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
        Bounds on ``noise`` when hyperparameters are fitted; ``"fixed"`` excludes it from
        ``theta``.
    noise_prior : Prior or None, default=None
        A prior on ``noise``; see :meth:`~kernelkit.kernels.Kernel.log_prior`.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import White
    >>> White(noise=0.5)(np.zeros((2, 1)))
    array([[0.5, 0. ],
           [0. , 0.5]])
    """

    noise: float = parameter(1.0, fitted=True)

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        if Y is X:
            return float(self.noise) * np.eye(len(X))
        return np.zeros((len(X), len(Y)))

    def _pattern_dot(self, W: np.ndarray) -> float:
        return float(np.trace(W))

    def _pattern_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> float:
        return self._pattern_dot(W) if Y is X else 0.0  # k(X, Y) = 0 for a separate Y


def _dot_bound(X: np.ndarray, Y: np.ndarray) -> float:
    """An upper bound on ``|<x, y>|``: ``d max|x_k| max|y_k|`` (``O((n + m) d)``)."""
    return float(X.shape[1]) * float(np.max(np.abs(X))) * float(np.max(np.abs(Y)))


class Linear(Kernel):
    """Linear kernel ``variance * <x, y>``.

    Its values grow with the inputs: where they exceed the float64 range (inputs near
    1e160) the kernel raises a ValueError naming the inputs instead of returning ``inf``.

    Parameters
    ----------
    variance : float, default=1.0
        The scale of the dot product.
    variance_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
        Bounds on ``variance`` when hyperparameters are fitted; ``"fixed"`` excludes it
        from ``theta``.
    variance_prior : Prior or None, default=None
        A prior on ``variance``; see :meth:`~kernelkit.kernels.Kernel.log_prior`.
    """

    variance: float = parameter(1.0, fitted=True)

    def _bound(self, X: Any, Y: Any) -> float:
        return float(self.variance) * _dot_bound(X, Y)

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        K = X @ Y.T
        K *= self.variance
        return K

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return float(self.variance) * np.einsum("ij,ij->i", X, X)

    def _gradient(self, X: np.ndarray) -> np.ndarray:
        if self.n_dims == 0:
            return np.zeros((len(X), len(X), 0))
        return self._gram(X, X)[:, :, None]

    def _gradient_dot(self, X: np.ndarray, W: np.ndarray) -> np.ndarray:
        if self.n_dims == 0:
            return np.empty(0)
        return np.array([np.vdot(W, self._gram(X, X))])

    def _gradient_dot_cross(self, X: np.ndarray, Y: np.ndarray, W: np.ndarray) -> np.ndarray:
        if self.n_dims == 0:
            return np.empty(0)
        # sum_ij W_ij variance <x_i, y_j> = variance sum_ik x_ik (W Y)_ik: no (n, m) matrix
        return np.array([float(self.variance) * np.vdot(X, W @ Y)])

    def _input_gradient(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        return np.broadcast_to(float(self.variance) * Y[None, :, :], (len(X), *Y.shape)).copy()


class Polynomial(Kernel):
    """Polynomial kernel ``(gamma <x, y> + coef0) ** degree`` (scikit-learn's convention).

    ``gamma`` and ``coef0`` are hyperparameters; ``coef0 = 0`` (the homogeneous kernel)
    is held fixed, since 0 has no logarithm. Values beyond the float64 range raise a
    ValueError naming the inputs, as for :class:`Linear`.

    Parameters
    ----------
    degree : int, default=2
        The degree, ``>= 1``; a structural choice, not a fitted hyperparameter.
    gamma : float, default=1.0
        The scale of the dot product.
    coef0 : float, default=1.0
        The offset, ``>= 0``.
    gamma_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
        Bounds on ``gamma`` when hyperparameters are fitted; ``"fixed"`` excludes it from
        ``theta``.
    gamma_prior : Prior or None, default=None
        A prior on ``gamma``; see :meth:`~kernelkit.kernels.Kernel.log_prior`.
    coef0_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
        As ``gamma_bounds``, for ``coef0`` (ignored while ``coef0 = 0``).
    coef0_prior : Prior or None, default=None
        As ``gamma_prior``, for ``coef0``.
    """

    degree: int = parameter(2)
    gamma: float = parameter(1.0, fitted=True)
    coef0: float = parameter(1.0, fitted=True)

    def _check_params(self) -> None:
        if (
            isinstance(self.degree, bool)
            or not isinstance(self.degree, (int, np.integer))
            or self.degree < 1
        ):
            raise ValueError(f"degree must be an integer >= 1, got {self.degree!r}")
        c = self.coef0
        if isinstance(c, bool) or not isinstance(c, numbers.Real):
            raise TypeError(f"coef0 must be a number, got {type(c).__name__}")
        if not (np.isfinite(c) and c >= 0):
            raise ValueError(f"coef0 must be >= 0 (and finite), got {c!r}")
        super()._check_params()

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        """The fitted hyperparameters, ``gamma`` and ``coef0`` (not ``coef0 = 0``)."""
        # coef0 = 0 (the homogeneous kernel) has no logarithm: it stays fixed
        return [hp for hp in super().hyperparameters if hp.name != "coef0" or self.coef0 > 0]

    def _bound(self, X: Any, Y: Any) -> float:
        base = float(self.gamma) * _dot_bound(X, Y) + float(self.coef0)
        return float(np.float64(base) ** int(self.degree))

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        base = X @ Y.T
        base *= self.gamma
        base += self.coef0
        return base**self.degree

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return (self.gamma * np.einsum("ij,ij->i", X, X) + self.coef0) ** self.degree

    def _gradient(self, X: np.ndarray) -> np.ndarray:
        dot = X @ X.T
        base = self.gamma * dot + self.coef0
        dbase = self.degree * base ** (self.degree - 1)
        parts = []
        free = {hp.name for hp in self.free_hyperparameters}
        if "gamma" in free:
            parts.append(dbase * self.gamma * dot)
        if "coef0" in free:
            parts.append(dbase * self.coef0)
        if not parts:
            return np.zeros((len(X), len(X), 0))
        return np.stack(parts, axis=2)

    def _gradient_dot_cross(self, X: np.ndarray, Y: np.ndarray, W: np.ndarray) -> np.ndarray:
        free = {hp.name for hp in self.free_hyperparameters}
        if not free:
            return np.empty(0)
        dot = X @ Y.T
        # dK/d log gamma = q' gamma <x, y>, dK/d log coef0 = q' coef0, q' = degree base^(d-1)
        Wq = (self.gamma * dot + self.coef0) ** (self.degree - 1)
        Wq *= self.degree
        Wq *= W
        parts = []
        if "gamma" in free:
            parts.append(float(self.gamma) * np.vdot(Wq, dot))
        if "coef0" in free:
            parts.append(float(self.coef0) * float(Wq.sum()))
        return np.array(parts)

    def _input_gradient(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        base = self.gamma * (X @ Y.T) + self.coef0
        dbase = self.degree * base ** (self.degree - 1) * self.gamma
        return dbase[:, :, None] * Y[None, :, :]


class Angular(Kernel):
    """Angular kernel ``1 - (2 / pi) * angle(x, y)`` (Rowland 2018, eqs. 5.10-5.11).

    Equal to ``E[sign(w.x) sign(w.y)]`` for Gaussian ``w``; estimated by the sign random
    features of Def 7.3. Undefined at the zero vector, which is rejected. Values lie in
    ``[-1, 1]``, with 1 on the diagonal.
    """

    def _check_input(self, X: Any, name: str = "X") -> Any:
        X = super()._check_input(X, name)
        if np.any(np.max(np.abs(X), axis=1) == 0):
            raise ValueError(f"{name} contains a zero vector; the angular kernel needs x != 0")
        return X

    def _bound(self, X: Any, Y: Any) -> float:
        return 1.0

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        Xn = _unit_rows(X)
        Yn = Xn if Y is X else _unit_rows(Y)
        C = np.clip(Xn @ Yn.T, -1.0, 1.0)
        if Y is X:
            np.fill_diagonal(C, 1.0)
        return 1.0 - (2.0 / np.pi) * np.arccos(C)

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.ones(X.shape[0], dtype=X.dtype)


def _unit_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit norm; scaled by their largest entry first, so that a norm of
    inputs near 1e200 (or 1e-200) neither overflows nor underflows."""
    U = X / np.max(np.abs(X), axis=1, keepdims=True)
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    return U
