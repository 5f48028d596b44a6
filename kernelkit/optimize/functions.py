"""Test functions for Bayesian optimisation, with their known global minima.

Every function is stated as a *minimisation* problem (the convention of
:class:`~kernelkit.optimize.BayesianOptimizer`; the seed's Algorithm 3 maximises, which
is minimisation of ``-f``). Each is a small object with

* ``__call__(X)``: vectorised over the rows of ``X`` (shape ``(n, d)`` gives ``(n,)``;
  a single point of shape ``(d,)`` gives a float),
* ``bounds``: array of shape ``(d, 2)`` with the box ``[low, high]`` per dimension,
* ``minimum``: the global minimum value,
* ``minimizers``: array of shape ``(k, d)``, every global minimiser,
* ``name`` and ``dim``.

The minima were recomputed to full double precision by local optimisation from the
published minimisers (for Hartmann-3 this gives ``-3.86277978733``; the commonly quoted
``-3.86278`` is rounded). Definitions follow the Virtual Library of Simulation
Experiments (Surjanovic & Bingham, sfu.ca/~ssurjano).

Examples
--------
>>> from kernelkit.optimize import get_function
>>> f = get_function("branin")
>>> round(float(f(f.minimizers[0])), 6)
0.397887
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from kernelkit._memory import check_memory

__all__ = [
    "TestFunction",
    "Forrester",
    "GramacyLee",
    "Branin",
    "SixHumpCamel",
    "Hartmann3",
    "Hartmann6",
    "Ackley",
    "get_function",
    "function_names",
]


class TestFunction:
    """Base class: a vectorised objective on a box with a known global minimum."""

    __test__ = False  # not a pytest test class

    name: str = ""
    bounds: np.ndarray
    minimum: float
    minimizers: np.ndarray

    @property
    def dim(self) -> int:
        """The number of coordinates ``d`` of a point."""
        return int(self.bounds.shape[0])

    def _f(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, X: Any) -> Any:
        from kernelkit._validation import check_array  # here: this module is NumPy only

        if X is None or isinstance(X, (str, bytes)):
            raise TypeError(f"X must be an array of numbers, got {type(X).__name__}")
        arr = check_array(X, "X", ndim=None, dtype=np.float64, allow_empty=True, finite=False)
        if arr.ndim not in (1, 2):
            raise ValueError(
                f"{self.name} takes points with {self.dim} coordinates (X of shape "
                f"(n, {self.dim}) or ({self.dim},)), got shape {arr.shape}"
            )
        single = arr.ndim == 1
        if single:
            arr = arr[None, :]
        if arr.shape[1] != self.dim:
            raise ValueError(
                f"{self.name} takes points with {self.dim} coordinates (X of shape "
                f"(n, {self.dim}) or ({self.dim},)), got shape {np.shape(X)}"
            )
        bad = ~np.isfinite(arr).all(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"X must be finite: point {i} is {arr[i].tolist()}; {self.name} is defined "
                "at real points"
            )
        with np.errstate(over="ignore", invalid="ignore"):
            out = self._f(arr)
        bad = ~np.isfinite(out)
        if bad.any():  # finite points so far outside the box that the value overflows
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{self.name} overflows float64 at X = {arr[i].tolist()}, far outside its box "
                f"{self.bounds.tolist()}; its value there is beyond the float64 range"
            )
        return float(out[0]) if single else out

    def regret(self, y: Any) -> Any:
        """Simple regret ``y - minimum`` (``>= 0`` for values of this function).

        Parameters
        ----------
        y : float or array-like
            Values of this function.

        Returns
        -------
        ndarray of float64, the shape of ``y``
            ``y - minimum`` (a 0-d array for a number).

        Raises
        ------
        ValueError
            ``y`` contains NaN (no value of this function).
        """
        from kernelkit._validation import check_array  # here: this module is NumPy only

        y = check_array(y, "y", ndim=None, dtype=np.float64, allow_empty=True, finite=False)
        if np.isnan(y).any():
            raise ValueError(f"y contains NaN, which is no value of {self.name}")
        return y - self.minimum

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Forrester(TestFunction):
    """Forrester et al. (2008): ``(6x - 2)^2 sin(12x - 4)`` on ``[0, 1]``.

    One global minimum ``-6.02074`` at ``x = 0.75725`` and one local minimum near 0.14.
    """

    name = "forrester"
    bounds = np.array([[0.0, 1.0]])
    minimum = -6.020740055767083
    minimizers = np.array([[0.7572487579750627]])

    def _f(self, X: np.ndarray) -> np.ndarray:
        x = X[:, 0]
        return (6.0 * x - 2.0) ** 2 * np.sin(12.0 * x - 4.0)


class GramacyLee(TestFunction):
    """Gramacy & Lee (2012): ``sin(10 pi x) / (2x) + (x - 1)^4`` on ``[0.5, 2.5]``.

    Multi-modal (ten local minima); the global minimum ``-0.86901`` is near the left
    edge, at ``x = 0.54856``.
    """

    name = "gramacy-lee"
    bounds = np.array([[0.5, 2.5]])
    minimum = -0.8690111349894998
    minimizers = np.array([[0.548563444450852]])

    def _f(self, X: np.ndarray) -> np.ndarray:
        x = X[:, 0]
        return np.sin(10.0 * np.pi * x) / (2.0 * x) + (x - 1.0) ** 4


class Branin(TestFunction):
    """Branin-Hoo function on ``[-5, 10] x [0, 15]``; three global minima ``0.397887``."""

    name = "branin"
    bounds = np.array([[-5.0, 10.0], [0.0, 15.0]])
    minimum = 0.39788735772973816
    minimizers = np.array([[-math.pi, 12.275], [math.pi, 2.275], [3.0 * math.pi, 2.475]])

    def _f(self, X: np.ndarray) -> np.ndarray:
        x1, x2 = X[:, 0], X[:, 1]
        b, c, t = 5.1 / (4.0 * math.pi**2), 5.0 / math.pi, 1.0 / (8.0 * math.pi)
        return (x2 - b * x1**2 + c * x1 - 6.0) ** 2 + 10.0 * (1.0 - t) * np.cos(x1) + 10.0


class SixHumpCamel(TestFunction):
    """Six-hump camel on ``[-3, 3] x [-2, 2]``; two global minima ``-1.0316285``."""

    name = "six-hump-camel"
    bounds = np.array([[-3.0, 3.0], [-2.0, 2.0]])
    minimum = -1.0316284534898774
    minimizers = np.array(
        [[0.08984200893527233, -0.712656403019058], [-0.08984200893527233, 0.712656403019058]]
    )

    def _f(self, X: np.ndarray) -> np.ndarray:
        x1, x2 = X[:, 0], X[:, 1]
        return (4.0 - 2.1 * x1**2 + x1**4 / 3.0) * x1**2 + x1 * x2 + (4.0 * x2**2 - 4.0) * x2**2


_HARTMANN_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])


class _Hartmann(TestFunction):
    A: np.ndarray
    P: np.ndarray

    def _f(self, X: np.ndarray) -> np.ndarray:
        diff2 = (X[:, None, :] - self.P[None, :, :]) ** 2  # (n, 4, d)
        return -np.exp(-np.einsum("nid,id->ni", diff2, self.A)) @ _HARTMANN_ALPHA


class Hartmann3(_Hartmann):
    """Hartmann 3-D on ``[0, 1]^3``: four local minima, global ``-3.862780``."""

    name = "hartmann3"
    bounds = np.array([[0.0, 1.0]] * 3)
    minimum = -3.8627797873326593
    minimizers = np.array([[0.11458886, 0.55564889, 0.85254698]])
    A = np.array([[3.0, 10, 30], [0.1, 10, 35], [3.0, 10, 30], [0.1, 10, 35]])
    P = 1e-4 * np.array(
        [[3689, 1170, 2673], [4699, 4387, 7470], [1091, 8732, 5547], [381, 5743, 8828]]
    )


class Hartmann6(_Hartmann):
    """Hartmann 6-D on ``[0, 1]^6``: six local minima, global ``-3.322368``."""

    name = "hartmann6"
    bounds = np.array([[0.0, 1.0]] * 6)
    minimum = -3.322368011415515
    minimizers = np.array(
        [[0.20168951, 0.15001069, 0.47687398, 0.27533243, 0.31165162, 0.65730053]]
    )
    A = np.array(
        [
            [10.0, 3, 17, 3.5, 1.7, 8],
            [0.05, 10, 17, 0.1, 8, 14],
            [3.0, 3.5, 1.7, 10, 17, 8],
            [17.0, 8, 0.05, 10, 0.1, 14],
        ]
    )
    P = 1e-4 * np.array(
        [
            [1312, 1696, 5569, 124, 8283, 5886],
            [2329, 4135, 8307, 3736, 1004, 9991],
            [2348, 1451, 3522, 2883, 3047, 6650],
            [4047, 8828, 8732, 5743, 1091, 381],
        ]
    )


class Ackley(TestFunction):
    """Ackley function on ``[-32.768, 32.768]^d`` (default ``d = 5``); minimum 0 at 0.

    ``-20 exp(-0.2 sqrt(mean(x^2))) - exp(mean(cos(2 pi x))) + 20 + e``: nearly flat
    far out, with a regular lattice of local minima.

    Parameters
    ----------
    dim : int, default=5
        The dimension ``d >= 1``.
    """

    def __init__(self, dim: int = 5):
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise ValueError(f"dim must be a positive integer, got {dim!r}")
        # bounds and minimiser, and the (n, d) temporaries of one evaluation
        check_memory(8 * 8 * dim, f"Ackley(dim={dim})", "ask for fewer dimensions")
        self.name = f"ackley{dim}"
        self.bounds = np.tile([-32.768, 32.768], (dim, 1))
        self.minimum = 0.0
        self.minimizers = np.zeros((1, dim))

    def _f(self, X: np.ndarray) -> np.ndarray:
        r = np.sqrt(np.mean(X**2, axis=1))
        c = np.mean(np.cos(2.0 * math.pi * X), axis=1)
        return -20.0 * np.exp(-0.2 * r) - np.exp(c) + 20.0 + math.e

    def __repr__(self) -> str:
        return f"Ackley(dim={self.dim})"


_REGISTRY: dict[str, Callable[[], TestFunction]] = {
    "forrester": Forrester,
    "gramacy-lee": GramacyLee,
    "branin": Branin,
    "six-hump-camel": SixHumpCamel,
    "hartmann3": Hartmann3,
    "hartmann6": Hartmann6,
    "ackley5": lambda: Ackley(5),
}


def function_names() -> list[str]:
    """Names accepted by :func:`get_function`.

    Returns
    -------
    list of str
        The registered names, ``"forrester"`` to ``"ackley5"``.
    """
    return list(_REGISTRY)


def get_function(name: str) -> TestFunction:
    """A test function by name (case-insensitive; ``_`` and ``-`` are interchangeable).

    Parameters
    ----------
    name : str
        A name of :func:`function_names`.

    Returns
    -------
    TestFunction
        A new instance.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).
    TypeError
        ``name`` is not a string.
    """
    if not isinstance(name, str):
        raise TypeError(f"function name must be a string, got {type(name).__name__}")
    key = name.lower().replace("_", "-")
    if key not in _REGISTRY:
        raise ValueError(
            f"unknown test function {name!r}; available: {', '.join(function_names())}"
        )
    return _REGISTRY[key]()
