"""Non-stationary and degenerate vector kernels: constant, white noise, dot products, angular."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit.kernels.base import Hyperparameter, Kernel

__all__ = ["Constant", "White", "Linear", "Polynomial", "Angular"]

_DEFAULT_BOUNDS = (1e-5, 1e5)


class Constant(Kernel):
    """``k(x, y) = value`` for all inputs: a learnable bias (offset) term.

    Accepts any inputs (vectors or lists of objects); only their number matters.
    """

    requires_vector_input = False

    def __init__(self, value: float = 1.0, *, value_bounds: Any = _DEFAULT_BOUNDS):
        self.value = value
        self.value_bounds = value_bounds
        self._check_params()

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        return [Hyperparameter("value", self.value_bounds)]

    @property
    def is_stationary(self) -> bool:
        return True

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        return np.full((len(X), len(Y)), float(self.value))

    def _diag(self, X: Any) -> np.ndarray:
        return np.full(len(X), float(self.value))

    def _gradient(self, X: Any) -> np.ndarray:
        if self.n_dims == 0:
            return np.zeros((len(X), len(X), 0))
        return np.full((len(X), len(X), 1), float(self.value))

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        if self.n_dims == 0:
            return np.empty(0)
        return np.array([float(self.value) * W.sum()])

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        X = np.asarray(X)
        return np.zeros((len(X), len(Y), X.shape[1] if X.ndim == 2 else 1))


class White(Kernel):
    """White-noise kernel: ``noise_level`` on the diagonal of ``k(X)``, 0 elsewhere.

    As in scikit-learn, ``k(X, Y)`` with a separate ``Y`` is all zeros: the noise belongs
    to observations, not to the latent function.
    """

    requires_vector_input = False

    def __init__(self, noise_level: float = 1.0, *, noise_level_bounds: Any = _DEFAULT_BOUNDS):
        self.noise_level = noise_level
        self.noise_level_bounds = noise_level_bounds
        self._check_params()

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        return [Hyperparameter("noise_level", self.noise_level_bounds)]

    @property
    def is_stationary(self) -> bool:
        return True

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        if Y is X:
            return float(self.noise_level) * np.eye(len(X))
        return np.zeros((len(X), len(Y)))

    def _diag(self, X: Any) -> np.ndarray:
        return np.full(len(X), float(self.noise_level))

    def _gradient(self, X: Any) -> np.ndarray:
        if self.n_dims == 0:
            return np.zeros((len(X), len(X), 0))
        return (float(self.noise_level) * np.eye(len(X)))[:, :, None]

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        if self.n_dims == 0:
            return np.empty(0)
        return np.array([float(self.noise_level) * np.trace(W)])

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        # noise belongs to observations: k(x, y) does not vary with a candidate x
        X = np.asarray(X)
        return np.zeros((len(X), len(Y), X.shape[1] if X.ndim == 2 else 1))


class Linear(Kernel):
    """Linear kernel ``variance * <x, y>``."""

    def __init__(self, variance: float = 1.0, *, variance_bounds: Any = _DEFAULT_BOUNDS):
        self.variance = variance
        self.variance_bounds = variance_bounds
        self._check_params()

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        return [Hyperparameter("variance", self.variance_bounds)]

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

    def _input_gradient(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        return np.broadcast_to(float(self.variance) * Y[None, :, :], (len(X), *Y.shape)).copy()


class Polynomial(Kernel):
    """Polynomial kernel ``(gamma <x, y> + coef0) ** degree`` (scikit-learn's convention).

    ``gamma`` and ``coef0`` are hyperparameters; ``coef0 = 0`` (the homogeneous kernel)
    is held fixed, since 0 has no logarithm.
    """

    def __init__(
        self,
        degree: int = 2,
        gamma: float = 1.0,
        coef0: float = 1.0,
        *,
        gamma_bounds: Any = _DEFAULT_BOUNDS,
        coef0_bounds: Any = _DEFAULT_BOUNDS,
    ):
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.gamma_bounds = gamma_bounds
        self.coef0_bounds = coef0_bounds
        self._check_params()

    def _check_params(self) -> None:
        if (
            isinstance(self.degree, bool)
            or not isinstance(self.degree, (int, np.integer))
            or self.degree < 1
        ):
            raise ValueError(f"degree must be an integer >= 1, got {self.degree!r}")
        if not np.isfinite(self.coef0) or self.coef0 < 0:
            raise ValueError(f"coef0 must be >= 0, got {self.coef0!r}")
        super()._check_params()

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        hps = [Hyperparameter("gamma", self.gamma_bounds)]
        if self.coef0 > 0:
            hps.append(Hyperparameter("coef0", self.coef0_bounds))
        return hps

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

    def _input_gradient(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        base = self.gamma * (X @ Y.T) + self.coef0
        dbase = self.degree * base ** (self.degree - 1) * self.gamma
        return dbase[:, :, None] * Y[None, :, :]


class Angular(Kernel):
    """Angular kernel ``1 - (2 / pi) * angle(x, y)`` (Rowland 2018, eqs. 5.10-5.11).

    Equal to ``E[sign(w.x) sign(w.y)]`` for Gaussian ``w``; estimated by the sign random
    features of Def 7.3. Undefined at the zero vector, which is rejected.
    """

    def _check_input(self, X: Any, name: str = "X") -> Any:
        X = super()._check_input(X, name)
        norms = np.linalg.norm(X, axis=1)
        if np.any(norms == 0):
            raise ValueError(f"{name} contains a zero vector; the angular kernel needs x != 0")
        return X

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
        Yn = Xn if Y is X else Y / np.linalg.norm(Y, axis=1, keepdims=True)
        C = np.clip(Xn @ Yn.T, -1.0, 1.0)
        if Y is X:
            np.fill_diagonal(C, 1.0)
        return 1.0 - (2.0 / np.pi) * np.arccos(C)

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.ones(X.shape[0], dtype=X.dtype)
