"""Non-stationary and degenerate vector kernels: constant, white noise, dot products, angular."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from kernelkit.kernels.base import Hyperparameter, Kernel

__all__ = ["Constant", "White", "Linear", "Polynomial", "Angular"]

_DEFAULT_BOUNDS = (1e-5, 1e5)


def _numeric_like(x: Any) -> bool:
    """A real number, or a list / tuple / array of numeric-like items (a vector, nested)."""
    if isinstance(x, numbers.Real):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "biuf" or (x.dtype == object and all(map(_numeric_like, x.flat)))
    return isinstance(x, (list, tuple)) and all(_numeric_like(e) for e in x)


def _check_objects(X: Any, name: str) -> Any:
    """The inputs of a kernel that takes any objects (only their number matters).

    Numbers are still numbers: an array (or nested list) of numbers must be rectangular and
    finite, as for any vector kernel. A list whose items are not all numeric (sets, graphs,
    strings, ...) is a list of objects and is accepted as it is; a bare string is not a list.
    """
    if isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
        raise TypeError(
            f"{name} must be an array of numbers or a list of objects, got {type(X).__name__}"
        )
    if len(X) == 0:
        raise ValueError(f"{name} is empty; at least one object is required")
    if isinstance(X, (list, tuple, np.ndarray)) and not _numeric_like(X):
        return X  # a list of objects
    if not isinstance(X, (list, tuple, np.ndarray)) and not hasattr(X, "__array__"):
        return X  # some other container of objects
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        if isinstance(X, (list, tuple)):
            lengths = sorted({len(x) if isinstance(x, (list, tuple, np.ndarray)) else 1 for x in X})
            raise ValueError(
                f"{name} is a ragged nested list of numbers (rows of lengths "
                f"{', '.join(map(str, lengths))}); vectors must all have the same length"
            ) from None
        return X  # an array-like of objects (a pandas column of sets, say)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    return X


class Constant(Kernel):
    """``k(x, y) = value`` for all inputs: a learnable bias (offset) term.

    Accepts any inputs (vectors or lists of objects); only their number matters. Numeric
    input is still checked: it must be finite and rectangular (not a ragged nested list).
    """

    requires_vector_input = False
    _any_objects = True
    _scalar_params: tuple[str, ...] = ("value",)

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

    def _check_input(self, X: Any, name: str = "X") -> Any:
        return _check_objects(X, name)

    def _bound(self, X: Any, Y: Any) -> float:
        return float(self.value)

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
    to observations, not to the latent function. Inputs are checked as for
    :class:`Constant`.
    """

    requires_vector_input = False
    _any_objects = True
    _scalar_params: tuple[str, ...] = ("noise_level",)

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

    def _check_input(self, X: Any, name: str = "X") -> Any:
        return _check_objects(X, name)

    def _bound(self, X: Any, Y: Any) -> float:
        return float(self.noise_level)

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


def _dot_bound(X: np.ndarray, Y: np.ndarray) -> float:
    """An upper bound on ``|<x, y>|``: ``d max|x_k| max|y_k|`` (``O((n + m) d)``)."""
    return float(X.shape[1]) * float(np.max(np.abs(X))) * float(np.max(np.abs(Y)))


class Linear(Kernel):
    """Linear kernel ``variance * <x, y>``.

    Its values grow with the inputs: where they exceed the float64 range (inputs near
    1e160) the kernel raises a ValueError naming the inputs instead of returning ``inf``.
    """

    _scalar_params: tuple[str, ...] = ("variance",)

    def __init__(self, variance: float = 1.0, *, variance_bounds: Any = _DEFAULT_BOUNDS):
        self.variance = variance
        self.variance_bounds = variance_bounds
        self._check_params()

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        return [Hyperparameter("variance", self.variance_bounds)]

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

    def _input_gradient(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        return np.broadcast_to(float(self.variance) * Y[None, :, :], (len(X), *Y.shape)).copy()


class Polynomial(Kernel):
    """Polynomial kernel ``(gamma <x, y> + coef0) ** degree`` (scikit-learn's convention).

    ``gamma`` and ``coef0`` are hyperparameters; ``coef0 = 0`` (the homogeneous kernel)
    is held fixed, since 0 has no logarithm. Values beyond the float64 range raise a
    ValueError naming the inputs, as for :class:`Linear`.
    """

    _scalar_params: tuple[str, ...] = ("gamma", "coef0")

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
        c = self.coef0
        if isinstance(c, bool) or not isinstance(c, numbers.Real):
            raise TypeError(f"coef0 must be a number, got {type(c).__name__}")
        if not (np.isfinite(c) and c >= 0):
            raise ValueError(f"coef0 must be >= 0 (and finite), got {c!r}")
        super()._check_params()

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        hps = [Hyperparameter("gamma", self.gamma_bounds)]
        if self.coef0 > 0:
            hps.append(Hyperparameter("coef0", self.coef0_bounds))
        return hps

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
