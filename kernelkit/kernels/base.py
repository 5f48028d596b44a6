"""Kernel objects: hyperparameters in log space, gradients, and the closure algebra.

A kernel is a callable ``k(X, Y=None) -> ndarray`` of shape ``(len(X), len(Y))`` with
``k.diag(X)``. Hyperparameters are ordinary constructor arguments (``lengthscale``,
``variance``, ...). The free ones are exposed together as ``theta``, the vector of their
logarithms, so that optimisers work on an unconstrained scale and values stay positive
(as in GPyTorch and GPflow). Gradients are taken with respect to ``theta``.

Two gradient routes are offered:

* ``k.gradient(X)`` returns the full tensor ``dK/dtheta`` of shape ``(n, n, p)``;
* ``k.gradient_dot(X, W)`` returns ``sum_ij W_ij dK_ij/dtheta_p`` for each ``p`` without
  forming that tensor. This is what marginal-likelihood fitting needs
  (``d log p / d theta = 1/2 tr((a a^T - K^-1) dK/dtheta)``), and stationary kernels
  compute it with a few matrix products.

Kernels combine by the closure rules of Bishop (2006) eqs. 6.13-6.22, which the assignment
seed lists as its Lemma 1: ``k1 + k2``, ``k1 * k2``, ``c * k`` for a constant ``c >= 0``,
``k ** n`` and ``poly(k, coefs)`` with non-negative coefficients, ``exp(k)``, and
``compose(k, phi)`` for a kernel on a feature map.

Values and gradients are finite for finite inputs and hyperparameters. A kernel knows a
bound on its values (``variance`` for a stationary kernel); where that bound is beyond the
float64 range (dot products of inputs near 1e200, ``exp`` of a large kernel) the result is
checked, and an overflow is a ``ValueError`` that names the inputs, never an ``inf`` or a
NaN. Kernels compare equal when their types and parameters are equal (arrays by value), so
``k == k.clone()``; their hash is that of their type (see ``Kernel.__hash__``).
"""

from __future__ import annotations

import copy
import inspect
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._validation import check_array, check_noise_bounds, check_positive

#: Largest float64; a kernel whose value bound is below it cannot overflow.
_FMAX = float(np.finfo(np.float64).max)

__all__ = [
    "Hyperparameter",
    "Kernel",
    "Sum",
    "Product",
    "Scaled",
    "Polynomial_of",
    "Exponential_of",
    "Composed",
    "poly",
    "exp",
    "compose",
]


@dataclass(frozen=True)
class Hyperparameter:
    """Description of one named hyperparameter of a kernel.

    Parameters
    ----------
    name : str
        Attribute name on the kernel (the constructor argument).
    bounds : tuple of float or "fixed"
        Bounds on the *value* (not its log) used by optimisers; ``"fixed"`` removes the
        hyperparameter from ``theta``.
    n_elements : int
        1 for a scalar, d for an ARD vector.
    """

    name: str
    bounds: tuple[float, float] | str
    n_elements: int = 1

    @property
    def fixed(self) -> bool:
        return isinstance(self.bounds, str) and self.bounds == "fixed"


class Kernel:
    """Base class of every kernelkit kernel.

    Subclasses implement ``_gram(X, Y)`` and ``_diag(X)`` on validated inputs, list their
    hyperparameters in ``hyperparameters`` (a property returning :class:`Hyperparameter`
    objects, in ``theta`` order), and implement ``_gradient_dot(X, W)``, ``_gradient(X)``
    or both (each has a default in terms of the other). Non-vector kernels set
    ``requires_vector_input = False`` and receive the raw list of objects.
    """

    requires_vector_input: bool = True
    #: hyperparameters that must be scalars (the rest may be ARD vectors)
    _scalar_params: tuple[str, ...] = ()
    #: takes whatever the kernels it is combined with take (Constant, White)
    _any_objects: bool = False

    # ------------------------------------------------------------------ comparison
    def __eq__(self, other: object) -> bool:
        """Same type and equal parameters (arrays compared by value, sub-kernels by ``==``)."""
        if not isinstance(other, Kernel):
            return NotImplemented
        if type(self) is not type(other):
            return False
        a, b = self.get_params(deep=False), other.get_params(deep=False)
        return a.keys() == b.keys() and all(_same_param(a[k], b[k]) for k in a)

    def __hash__(self) -> int:
        """The hash of the kernel's type, consistent with ``==`` whatever the parameters.

        Kernels are mutable (``theta``, ``set_params``) and compare by value, so a hash of
        the parameters would change under a kernel stored in a set. scikit-learn's GP
        kernels are unhashable instead, but scikit-learn's ``pairwise_kernels`` (behind
        ``KernelRidge(kernel=k)`` and ``Nystroem(kernel=k)``) looks a callable up in a dict
        of kernel names, which needs a hash; equal kernels share their type, so this one
        keeps ``a == b => hash(a) == hash(b)`` at the price of slow sets of many kernels.
        """
        return hash(type(self))

    # ------------------------------------------------------------------ parameters
    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor arguments as a dict (scikit-learn convention)."""
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if isinstance(value, Kernel):
                    for sub, v in value.get_params(deep=True).items():
                        params[f"{name}__{sub}"] = v
        return params

    def set_params(self, **params: Any) -> Kernel:
        """Set constructor arguments in place; nested ones as ``k1__lengthscale``."""
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            head, sep, tail = key.partition("__")
            # a nested key must go through a sub-kernel; a plain key must be a parameter
            if not (isinstance(valid.get(head), Kernel) if sep else key in valid):
                raise ValueError(
                    f"invalid parameter {key!r} for {type(self).__name__}; "
                    f"valid parameters: {sorted(valid)}"
                )
            if sep:
                nested.setdefault(head, {})[tail] = value
            else:
                setattr(self, key, value)
        for head, sub in nested.items():
            getattr(self, head).set_params(**sub)
        self._check_params()
        return self

    def clone(self) -> Kernel:
        return copy.deepcopy(self)

    def _check_params(self) -> None:
        """Validate hyperparameter values; subclasses extend (called from __init__)."""
        for hp in self.hyperparameters:
            value = getattr(self, hp.name)
            _check_number(value, hp.name)
            check_positive(value, hp.name)
            if hp.name in self._scalar_params and np.ndim(value) != 0:
                raise ValueError(
                    f"{hp.name} must be a scalar, got an array of shape {np.shape(value)}"
                )
            if not hp.fixed:
                check_noise_bounds(hp.bounds, f"{hp.name}_bounds")

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        return []

    @property
    def free_hyperparameters(self) -> list[Hyperparameter]:
        return [hp for hp in self.hyperparameters if not hp.fixed]

    @property
    def n_dims(self) -> int:
        """Length of ``theta``."""
        return sum(self._n_elements(hp) for hp in self.free_hyperparameters)

    def _n_elements(self, hp: Hyperparameter) -> int:
        return int(np.size(getattr(self, hp.name)))

    @property
    def theta(self) -> np.ndarray:
        """Log of the free hyperparameter values, flattened, in declaration order."""
        parts = [
            np.log(np.atleast_1d(np.asarray(getattr(self, hp.name), dtype=float)))
            for hp in self.free_hyperparameters
        ]
        return np.concatenate(parts) if parts else np.empty(0)

    @theta.setter
    def theta(self, theta: np.ndarray) -> None:
        theta = np.asarray(theta, dtype=float).ravel()
        if theta.shape[0] != self.n_dims:
            raise ValueError(f"theta has length {theta.shape[0]}, expected {self.n_dims}")
        if not np.all(np.isfinite(theta)):
            raise ValueError("theta must be finite")
        with np.errstate(over="ignore", under="ignore"):
            values = np.exp(theta)
        i = 0
        for hp in self.free_hyperparameters:  # check all before setting any
            n = self._n_elements(hp)
            if not np.all((values[i : i + n] > 0) & np.isfinite(values[i : i + n])):
                raise ValueError(
                    f"theta[{i}:{i + n}] = {theta[i : i + n]} puts {hp.name} = exp(theta) "
                    "outside the float64 range (|theta| must stay below ~709)"
                )
            i += n
        i = 0
        for hp in self.free_hyperparameters:
            n = self._n_elements(hp)
            value = values[i : i + n].copy()
            old = getattr(self, hp.name)
            setattr(self, hp.name, value if np.ndim(old) > 0 else float(value[0]))
            i += n

    @property
    def bounds(self) -> np.ndarray:
        """Log-space bounds of ``theta``, shape ``(n_dims, 2)``."""
        rows = []
        for hp in self.free_hyperparameters:
            rows += [np.log(hp.bounds)] * self._n_elements(hp)  # type: ignore[arg-type]
        return np.array(rows).reshape(-1, 2)

    @property
    def theta_names(self) -> list[str]:
        """One name per entry of ``theta`` (``lengthscale[2]`` for ARD entries)."""
        names = []
        for hp in self.free_hyperparameters:
            n = self._n_elements(hp)
            value = getattr(self, hp.name)
            if np.ndim(value) == 0:
                names.append(hp.name)
            else:
                names += [f"{hp.name}[{i}]" for i in range(n)]
        return names

    def with_theta(self, theta: np.ndarray) -> Kernel:
        """A copy of this kernel with ``theta`` set."""
        k = self.clone()
        k.theta = theta
        return k

    # ------------------------------------------------------------------ evaluation
    def _check_input(self, X: Any, name: str = "X") -> Any:
        if self.requires_vector_input:
            return check_array(X, name)
        if isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
            raise TypeError(f"{name} must be a list of objects, got {type(X).__name__}")
        if len(X) == 0:
            raise ValueError(f"{name} is empty; at least one object is required")
        return X

    def _check_pair(self, X: Any, Y: Any) -> tuple[Any, Any]:
        X = self._check_input(X, "X")
        Y = X if Y is None else self._check_input(Y, "Y")
        if self.requires_vector_input and X.shape[1] != Y.shape[1]:
            raise ValueError(
                f"X and Y have different numbers of features ({X.shape[1]} and {Y.shape[1]})"
            )
        if self.requires_vector_input:
            self._check_n_features(X.shape[1])
        return X, Y

    def _check_n_features(self, d: int) -> None:
        """Hook for kernels whose hyperparameters fix the input dimension (ARD)."""

    def __call__(self, X: Any, Y: Any = None) -> Any:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` when omitted).

        Two 1-D vectors ``x`` and ``y`` give the number ``k(x, y)``, the convention of
        scikit-learn's kernel callables (``pairwise_kernels`` passes pairs of rows), so a
        kernel works as ``KernelRidge(kernel=k)`` or ``Nystroem(kernel=k)``. A 1-D ``X``
        alone is an error.
        """
        if Y is not None and self.requires_vector_input and _is_row(X) and _is_row(Y):
            x = np.reshape(np.asarray(X), (1, -1))
            K = self(x) if Y is X else self(x, np.reshape(np.asarray(Y), (1, -1)))
            return float(K[0, 0])
        X, Y = self._check_pair(X, Y)
        return self._checked(lambda: self._gram(X, Y), X, Y, "values", always=False)

    def diag(self, X: Any) -> np.ndarray:
        """``k(X[i], X[i])`` for each ``i``, without forming the Gram matrix."""
        X = self._check_pair(X, None)[0]  # same checks as k(X), e.g. ARD size
        return self._checked(lambda: self._diag(X), X, X, "values")

    def gradient(self, X: Any) -> np.ndarray:
        """``dK/dtheta`` on ``X``, shape ``(n, n, n_dims)``."""
        X = self._check_pair(X, None)[0]
        return self._checked(lambda: self._gradient(X), X, X, "gradients")

    def gradient_dot(self, X: Any, W: Any) -> np.ndarray:
        """``sum_ij W_ij dK_ij/dtheta_p`` for each ``p``, shape ``(n_dims,)``."""
        X = self._check_pair(X, None)[0]
        n = len(X)
        W = check_array(W, "W", dtype=np.float64)
        if W.shape != (n, n):
            raise ValueError(f"W must have shape ({n}, {n}), got {W.shape}")
        return self._checked(lambda: self._gradient_dot(X, W), X, X, "gradients")

    # ------------------------------------------------------------------ overflow
    def _bound(self, X: Any, Y: Any) -> float:
        """An upper bound on ``|k(x, y)|`` over the inputs (``inf`` when unknown)."""
        return math.inf

    def _checked(
        self, compute: Callable[[], Any], X: Any, Y: Any, what: str, *, always: bool = True
    ) -> Any:
        """``compute()``, which must come out finite, or a ValueError naming the inputs.

        Overflow is allowed while computing and detected in the result. For the values of a
        kernel bounded below the float64 range (``always=False``), which cannot overflow,
        the O(n m) check is skipped and any floating-point warning is left to surface.
        """
        if not always:
            with np.errstate(over="ignore", invalid="ignore"):
                bounded = self._bound(X, Y) < _FMAX  # False for NaN
            if bounded:
                return compute()
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = compute()
        if not np.all(np.isfinite(out)):
            raise ValueError(self._overflow_message(X, Y, what))
        return out

    def _overflow_message(self, X: Any, Y: Any, what: str) -> str:
        sizes = []
        for name, A in (("X", X), ("Y", Y)) if Y is not X else (("X", X),):
            if isinstance(A, np.ndarray) and A.dtype.kind == "f" and A.size:
                sizes.append(f"|{name}| up to {float(np.max(np.abs(A))):.3g}")
        where = f" ({', '.join(sizes)})" if sizes else ""
        inputs = "X" if Y is X else "X and Y"
        return (
            f"the kernel {what} of {self!r} overflow float64 for these inputs{where}; "
            f"rescale {inputs} (or the hyperparameters)"
        )

    def gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """``k(X)`` and a function ``W -> gradient_dot(X, W)`` that reuses its work.

        Marginal-likelihood fitting needs the Gram matrix first and the contraction with
        a ``W`` that depends on it second; this avoids recomputing distances and
        profiles for the second step. The returned ``K`` may be modified by the caller.
        """
        X = self._check_pair(X, None)[0]
        parts: list[Any] = []

        def gram() -> np.ndarray:
            parts[:] = self._gram_and_gradient(X)
            return parts[0]

        K = self._checked(gram, X, X, "values", always=False)
        contract = parts[1]

        def checked_contract(W: np.ndarray) -> np.ndarray:
            return self._checked(lambda: contract(W), X, X, "gradients")

        return K, checked_contract

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        return self._gram(X, X), lambda W: self._gradient_dot(X, W)

    def input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        """``d k(X[a], Y[b]) / d X[a]``, shape ``(n, m, d)``.

        The derivative with respect to the first argument, as acquisition functions need
        for gradient-based search (``Y`` the training inputs, ``X`` the candidates).
        """
        X, Y = self._check_pair(X, Y)
        return self._checked(lambda: self._input_gradient(X, Y), X, Y, "input gradients")

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not provide input gradients")

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        raise NotImplementedError

    def _diag(self, X: Any) -> np.ndarray:
        n = len(X)
        out = np.empty(n)
        for i in range(n):  # generic fallback; vector kernels override
            out[i] = self._gram(X[i : i + 1], X[i : i + 1])[0, 0]
        return out

    def _gradient(self, X: Any) -> np.ndarray:
        if self.n_dims == 0:
            return np.zeros((len(X), len(X), 0))
        raise NotImplementedError(f"{type(self).__name__} does not provide gradients")

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        G = self._gradient(X)
        return np.einsum("ij,ijp->p", W, G)

    @property
    def is_stationary(self) -> bool:
        return False

    # ------------------------------------------------------------------ algebra
    def __add__(self, other: Any) -> Kernel:
        if isinstance(other, Kernel):
            return Sum(self, other)
        if _is_nonneg_number(other):
            from kernelkit.kernels.simple import Constant

            return Sum(self, Constant(float(other), value_bounds="fixed")) if other else self
        _reject_bad_number(other, "kernel + c")
        return NotImplemented

    __radd__ = __add__

    def __mul__(self, other: Any) -> Kernel:
        if isinstance(other, Kernel):
            return Product(self, other)
        if _is_nonneg_number(other):
            return Scaled(self, float(other))
        _reject_bad_number(other, "c * kernel")
        return NotImplemented

    __rmul__ = __mul__

    def __pow__(self, n: Any) -> Kernel:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"kernel ** n needs an integer n >= 0, got {n!r}")
        coefs = np.zeros(int(n) + 1)
        coefs[-1] = 1.0
        return Polynomial_of(self, coefs)

    def __repr__(self) -> str:
        args = ", ".join(
            f"{k}={_short(v)}"
            for k, v in self.get_params(deep=False).items()
            if not k.endswith("_bounds") or (isinstance(v, str) and v == "fixed")
        )
        return f"{type(self).__name__}({args})"


def _is_row(v: Any) -> bool:
    """A 1-D vector of numbers (an ndarray, or a list or tuple of real numbers)."""
    if isinstance(v, np.ndarray):
        return v.ndim == 1
    return (
        isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(e, numbers.Real) for e in v)
    )


def _same_param(x: Any, y: Any) -> bool:
    """Equality of two constructor arguments: kernels by ``==``, arrays by value."""
    if isinstance(x, Kernel) or isinstance(y, Kernel):
        return isinstance(x, Kernel) and isinstance(y, Kernel) and x == y
    if isinstance(x, (str, bytes)) or isinstance(y, (str, bytes)):
        return type(x) is type(y) and x == y
    if callable(x) or callable(y):  # a feature map: the same function
        return x is y
    if isinstance(x, (np.ndarray, list, tuple)) or isinstance(y, (np.ndarray, list, tuple)):
        try:
            ax, ay = np.asarray(x), np.asarray(y)
        except (TypeError, ValueError):
            return False
        if ax.dtype == object or ay.dtype == object:
            return ax.shape == ay.shape and all(
                _same_param(a, b) for a, b in zip(ax.flat, ay.flat, strict=True)
            )
        return ax.shape == ay.shape and bool(np.array_equal(ax, ay))
    try:
        return bool(x == y)
    except (TypeError, ValueError):
        return False


def _check_number(value: Any, name: str) -> None:
    """A hyperparameter given as a string (``"1.5"``) is a TypeError, not parsed."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a number, got str {value!r}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return  # ragged: check_positive says so
    if arr.dtype.kind in "SU" or (
        arr.dtype == object and any(isinstance(e, (str, bytes)) for e in arr.flat)
    ):
        raise TypeError(f"{name} must be a number (or an array of numbers), got {value!r}")


def _short(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, precision=4, separator=", ")
    if isinstance(v, float):
        return f"{v:.4g}"
    return repr(v)


def _reject_bad_number(x: Any, what: str) -> None:
    """A real number that is negative or not finite would break positive definiteness."""
    if isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool):
        raise ValueError(f"{what} needs a finite constant c >= 0, got {x!r}")


def _is_nonneg_number(x: Any) -> bool:
    return (
        isinstance(x, (int, float, np.integer, np.floating))
        and not isinstance(x, bool)
        and math.isfinite(float(x))
        and float(x) >= 0
    )


class _Combination(Kernel):
    """A kernel built from child kernels; ``theta`` is the children's, concatenated."""

    def _children(self) -> list[Kernel]:
        raise NotImplementedError

    @property
    def requires_vector_input(self) -> bool:  # type: ignore[override]
        return any(k.requires_vector_input for k in self._children())

    @property
    def _any_objects(self) -> bool:  # type: ignore[override]
        return all(k._any_objects for k in self._children())

    def _check_params(self) -> None:
        for k in self._children():
            if not isinstance(k, Kernel):
                raise TypeError(f"expected a Kernel, got {type(k).__name__}")

    @property
    def n_dims(self) -> int:
        return sum(k.n_dims for k in self._children())

    @property
    def theta(self) -> np.ndarray:
        parts = [k.theta for k in self._children()]
        return np.concatenate(parts) if parts else np.empty(0)

    @theta.setter
    def theta(self, theta: np.ndarray) -> None:
        theta = np.asarray(theta, dtype=float).ravel()
        if theta.shape[0] != self.n_dims:
            raise ValueError(f"theta has length {theta.shape[0]}, expected {self.n_dims}")
        i = 0
        for k in self._children():
            k.theta = theta[i : i + k.n_dims]
            i += k.n_dims

    @property
    def bounds(self) -> np.ndarray:
        parts = [k.bounds for k in self._children()]
        return np.vstack(parts) if parts else np.empty((0, 2))

    @property
    def theta_names(self) -> list[str]:
        names = []
        for label, k in zip(self._child_labels(), self._children(), strict=True):
            names += [f"{label}__{n}" for n in k.theta_names]
        return names

    def _child_labels(self) -> list[str]:
        return [n for n in self._param_names() if isinstance(getattr(self, n), Kernel)]

    def _check_input(self, X: Any, name: str = "X") -> Any:
        if self.requires_vector_input:
            X = super()._check_input(X, name)
        children = self._children()
        # a Constant or White takes whatever the kernels beside it take (lists of
        # lists as sets, say), so it checks its input only when nothing else does
        others = any(not k._any_objects for k in children)
        for k in children:  # each child's own checks (zero vectors, index ranges, ...)
            if not (k._any_objects and others):
                k._check_input(X, name)
        return X

    def _check_n_features(self, d: int) -> None:
        for k in self._children():
            if k.requires_vector_input:
                k._check_n_features(d)


class _Binary(_Combination):
    """A combination of two kernels ``k1`` and ``k2``."""

    def __init__(self, k1: Kernel, k2: Kernel):
        self.k1 = k1
        self.k2 = k2
        self._check_params()

    def _children(self) -> list[Kernel]:
        return [self.k1, self.k2]


class Sum(_Binary):
    """``k1(x, y) + k2(x, y)`` (Bishop eq. 6.17)."""

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        K = self.k1._gram(X, Y)
        K += self.k2._gram(X, Y)
        return K

    def _diag(self, X: Any) -> np.ndarray:
        return self.k1._diag(X) + self.k2._diag(X)

    def _gradient(self, X: Any) -> np.ndarray:
        return np.concatenate([self.k1._gradient(X), self.k2._gradient(X)], axis=2)

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return np.concatenate([self.k1._gradient_dot(X, W), self.k2._gradient_dot(X, W)])

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K1, c1 = self.k1._gram_and_gradient(X)
        K2, c2 = self.k2._gram_and_gradient(X)
        return K1 + K2, lambda W: np.concatenate([c1(W), c2(W)])

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        return self.k1._input_gradient(X, Y) + self.k2._input_gradient(X, Y)

    def _bound(self, X: Any, Y: Any) -> float:
        return self.k1._bound(X, Y) + self.k2._bound(X, Y)

    @property
    def is_stationary(self) -> bool:
        return self.k1.is_stationary and self.k2.is_stationary

    def __repr__(self) -> str:
        return f"({self.k1!r} + {self.k2!r})"


class Product(_Binary):
    """``k1(x, y) * k2(x, y)`` (Bishop eq. 6.18)."""

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        K = self.k1._gram(X, Y)
        K *= self.k2._gram(X, Y)
        return K

    def _diag(self, X: Any) -> np.ndarray:
        return self.k1._diag(X) * self.k2._diag(X)

    def _gradient(self, X: Any) -> np.ndarray:
        K1, K2 = self.k1._gram(X, X), self.k2._gram(X, X)
        return np.concatenate(
            [self.k1._gradient(X) * K2[:, :, None], self.k2._gradient(X) * K1[:, :, None]],
            axis=2,
        )

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient(X)[1](W)  # one Gram matrix per child

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        # d(K1 K2) = dK1 K2 + K1 dK2, so contract each child with W weighted by the other.
        K1, c1 = self.k1._gram_and_gradient(X)
        K2, c2 = self.k2._gram_and_gradient(X)
        return K1 * K2, lambda W: np.concatenate([c1(W * K2), c2(W * K1)])

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        K1, K2 = self.k1._gram(X, Y), self.k2._gram(X, Y)
        return (
            self.k1._input_gradient(X, Y) * K2[:, :, None]
            + self.k2._input_gradient(X, Y) * K1[:, :, None]
        )

    def _bound(self, X: Any, Y: Any) -> float:
        return self.k1._bound(X, Y) * self.k2._bound(X, Y)

    @property
    def is_stationary(self) -> bool:
        return self.k1.is_stationary and self.k2.is_stationary

    def __repr__(self) -> str:
        return f"({self.k1!r} * {self.k2!r})"


class Scaled(_Combination):
    """``c * k(x, y)`` for a fixed constant ``c >= 0`` (Bishop eq. 6.13).

    The constant is not a hyperparameter; a learnable amplitude is the ``variance`` of a
    stationary kernel, or a product with :class:`~kernelkit.kernels.Constant`.
    """

    def __init__(self, kernel: Kernel, scale: float):
        self.kernel = kernel
        self.scale = scale
        self._check_params()

    def _check_params(self) -> None:
        super()._check_params()
        check_positive(self.scale, "scale", strict=False)

    def _children(self) -> list[Kernel]:
        return [self.kernel]

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        K = self.kernel._gram(X, Y)
        K *= self.scale
        return K

    def _diag(self, X: Any) -> np.ndarray:
        return self.scale * self.kernel._diag(X)

    def _gradient(self, X: Any) -> np.ndarray:
        return self.scale * self.kernel._gradient(X)

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self.kernel._gradient_dot(X, self.scale * W)

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K, c = self.kernel._gram_and_gradient(X)
        return self.scale * K, lambda W: c(self.scale * W)

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        return self.scale * self.kernel._input_gradient(X, Y)

    def _bound(self, X: Any, Y: Any) -> float:
        return float(self.scale) * self.kernel._bound(X, Y)

    @property
    def is_stationary(self) -> bool:
        return self.kernel.is_stationary

    def __repr__(self) -> str:
        return f"{self.scale:.4g} * {self.kernel!r}"


class Polynomial_of(_Combination):
    """``q(k(x, y)) = sum_i c_i k(x, y)^i`` with ``c_i >= 0`` (Bishop eq. 6.15).

    Built by :func:`poly` or ``k ** n``.
    """

    def __init__(self, kernel: Kernel, coefs: Sequence[float] | np.ndarray):
        self.kernel = kernel
        self.coefs = coefs
        self._check_params()

    def _check_params(self) -> None:
        super()._check_params()
        c = np.asarray(self.coefs, dtype=float)
        if c.ndim != 1 or c.size == 0:
            raise ValueError("coefs must be a non-empty 1-D sequence of numbers")
        check_positive(c, "coefs", strict=False)

    def _children(self) -> list[Kernel]:
        return [self.kernel]

    def _q(self, K: np.ndarray, derivative: bool = False) -> np.ndarray:
        c = np.asarray(self.coefs, dtype=float)
        if derivative:
            c = c[1:] * np.arange(1, c.size)
            if c.size == 0:
                return np.zeros_like(K)
        out = np.full_like(K, c[-1])
        for ci in c[-2::-1]:  # Horner over the (few) coefficients
            out *= K
            out += ci
        return out

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        return self._q(self.kernel._gram(X, Y))

    def _diag(self, X: Any) -> np.ndarray:
        return self._q(self.kernel._diag(X))

    def _gradient(self, X: Any) -> np.ndarray:
        dq = self._q(self.kernel._gram(X, X), derivative=True)
        return self.kernel._gradient(X) * dq[:, :, None]

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient(X)[1](W)

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K, c = self.kernel._gram_and_gradient(X)
        dq = self._q(K, derivative=True)
        return self._q(K), lambda W: c(W * dq)

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        dq = self._q(self.kernel._gram(X, Y), derivative=True)
        return self.kernel._input_gradient(X, Y) * dq[:, :, None]

    def _bound(self, X: Any, Y: Any) -> float:
        b = np.float64(self.kernel._bound(X, Y))
        c = np.asarray(self.coefs, dtype=float)
        return float(np.sum(c * b ** np.arange(c.size)))  # overflows to inf

    @property
    def is_stationary(self) -> bool:
        return self.kernel.is_stationary

    def __repr__(self) -> str:
        return f"poly({self.kernel!r}, {[float(c) for c in self.coefs]})"


class Exponential_of(_Combination):
    """``exp(k(x, y))`` (Bishop eq. 6.16). Built by :func:`exp`."""

    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self._check_params()

    def _children(self) -> list[Kernel]:
        return [self.kernel]

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        return np.exp(self.kernel._gram(X, Y))

    def _diag(self, X: Any) -> np.ndarray:
        return np.exp(self.kernel._diag(X))

    def _gradient(self, X: Any) -> np.ndarray:
        return self.kernel._gradient(X) * self._gram(X, X)[:, :, None]

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient(X)[1](W)

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K, c = self.kernel._gram_and_gradient(X)
        E = np.exp(K)
        return E.copy(), lambda W: c(W * E)

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        return self.kernel._input_gradient(X, Y) * self._gram(X, Y)[:, :, None]

    def _bound(self, X: Any, Y: Any) -> float:
        b = self.kernel._bound(X, Y)
        return math.exp(b) if b < 710.0 else math.inf

    @property
    def is_stationary(self) -> bool:
        return self.kernel.is_stationary

    def __repr__(self) -> str:
        return f"exp({self.kernel!r})"


class Composed(_Combination):
    """``k(phi(x), phi(y))``: a kernel on a feature map (Bishop eq. 6.19).

    ``phi`` maps whatever the user holds (a 2-D array, or a list of objects) to a 2-D
    array that ``kernel`` accepts. Built by :func:`compose`.
    """

    def __init__(self, kernel: Kernel, phi: Callable[[Any], Any]):
        self.kernel = kernel
        self.phi = phi
        self._check_params()

    def _check_params(self) -> None:
        super()._check_params()
        if not callable(self.phi):
            raise TypeError(f"phi must be callable, got {type(self.phi).__name__}")

    def _children(self) -> list[Kernel]:
        return [self.kernel]

    @property
    def requires_vector_input(self) -> bool:  # type: ignore[override]
        return False

    def _map(self, X: Any) -> Any:
        Z = self.kernel._check_input(self.phi(X), "phi(X)")
        if self.kernel.requires_vector_input:
            self.kernel._check_n_features(Z.shape[1])
        return Z

    def _check_input(self, X: Any, name: str = "X") -> Any:
        # X is whatever phi accepts; the inner kernel checks phi(X) in _map
        if X is None or (hasattr(X, "__len__") and len(X) == 0):
            raise ValueError(f"{name} is empty; at least one sample is required")
        return X

    def _check_pair(self, X: Any, Y: Any) -> tuple[Any, Any]:
        X = self._check_input(X, "X")
        return X, (X if Y is None else self._check_input(Y, "Y"))

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        ZX = self._map(X)
        ZY = ZX if Y is X else self._map(Y)
        ZX, ZY = self.kernel._check_pair(ZX, ZY)
        return self.kernel._gram(ZX, ZY)

    def _diag(self, X: Any) -> np.ndarray:
        return self.kernel._diag(self._map(X))

    def _gradient(self, X: Any) -> np.ndarray:
        return self.kernel._gradient(self._map(X))

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self.kernel._gradient_dot(self._map(X), W)

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        return self.kernel._gram_and_gradient(self._map(X))

    def __repr__(self) -> str:
        name = getattr(self.phi, "__name__", type(self.phi).__name__)
        return f"compose({self.kernel!r}, {name})"


def poly(kernel: Kernel, coefs: Sequence[float] | np.ndarray) -> Kernel:
    """``sum_i coefs[i] * k^i`` for non-negative ``coefs`` (Bishop eq. 6.15)."""
    return Polynomial_of(kernel, coefs)


def exp(kernel: Kernel) -> Kernel:
    """``exp(k)`` (Bishop eq. 6.16)."""
    return Exponential_of(kernel)


def compose(kernel: Kernel, phi: Callable[[Any], Any]) -> Kernel:
    """``k(phi(x), phi(y))`` (Bishop eq. 6.19)."""
    return Composed(kernel, phi)
