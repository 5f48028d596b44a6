"""The catalogue of kernels the property tests run over (a helper, not a test module).

Each case builds a kernel from a :class:`Draw`, a source of hyperparameters that is either
a hypothesis ``data`` object (so hypothesis explores and shrinks the hyperparameters) or a
seeded NumPy generator. Ranges are kept where the kernels are numerically sane.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from kernelkit.kernels import (
    RBF,
    Angular,
    Constant,
    Laplace,
    Linear,
    Matern,
    Polynomial,
    RationalQuadratic,
    Sinc,
    White,
    compose,
    exp,
    poly,
)
from kernelkit.kernels.base import Kernel


class Draw:
    """Hyperparameter values from hypothesis (``data``) or from a seeded generator."""

    def __init__(self, data: Any = None, rng: np.random.Generator | None = None):
        self.data = data
        self.rng = rng

    def logu(self, lo: float, hi: float) -> float:
        """Log-uniform on ``[lo, hi]``."""
        a, b = np.log10(lo), np.log10(hi)
        if self.data is not None:
            e = self.data.draw(st.floats(a, b, allow_nan=False))
        else:
            e = self.rng.uniform(a, b)
        return float(10.0**e)

    def vec(self, lo: float, hi: float, d: int) -> np.ndarray:
        return np.array([self.logu(lo, hi) for _ in range(d)])

    def integer(self, lo: int, hi: int) -> int:
        if self.data is not None:
            return self.data.draw(st.integers(lo, hi))
        return int(self.rng.integers(lo, hi + 1))


def _phi(X: np.ndarray) -> np.ndarray:
    """A fixed nonlinear feature map for :func:`compose` (keeps the dtype)."""
    return np.hstack([np.sin(X), X * X])


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Draw, int], Kernel]
    max_d: int = 5
    #: profile not differentiable at coincident inputs (|x - y| or an arccos): a rounding
    #: error e in a squared distance moves k by ~sqrt(e), not ~e
    rough: bool = False

    def __repr__(self) -> str:  # pytest ids
        return self.name


LS = (0.2, 5.0)
VAR = (0.2, 5.0)

VECTOR_CASES: list[Case] = [
    Case("rbf", lambda p, d: RBF(p.logu(*LS), p.logu(*VAR))),
    Case("rbf_ard", lambda p, d: RBF(p.vec(*LS, d), p.logu(*VAR))),
    Case("matern_1/2", lambda p, d: Matern(p.logu(*LS), p.logu(*VAR), nu=0.5), rough=True),
    Case("matern_3/2_ard", lambda p, d: Matern(p.vec(*LS, d), p.logu(*VAR), nu=1.5)),
    Case("matern_5/2", lambda p, d: Matern(p.logu(*LS), p.logu(*VAR), nu=2.5)),
    Case("matern_0.7", lambda p, d: Matern(p.logu(*LS), p.logu(*VAR), nu=0.7), rough=True),
    Case("matern_3.3_ard", lambda p, d: Matern(p.vec(*LS, d), p.logu(*VAR), nu=3.3)),
    Case("matern_120.5", lambda p, d: Matern(p.logu(*LS), p.logu(*VAR), nu=120.5)),
    Case("matern_inf", lambda p, d: Matern(p.logu(*LS), p.logu(*VAR), nu=np.inf)),
    Case("laplace", lambda p, d: Laplace(p.logu(*LS), p.logu(*VAR)), rough=True),
    Case("laplace_ard", lambda p, d: Laplace(p.vec(*LS, d), p.logu(*VAR)), rough=True),
    Case("rq", lambda p, d: RationalQuadratic(p.logu(*LS), p.logu(*VAR), p.logu(0.1, 10.0))),
    Case(
        "rq_ard",
        lambda p, d: RationalQuadratic(p.vec(*LS, d), p.logu(*VAR), p.logu(0.1, 10.0)),
    ),
    Case("sinc", lambda p, d: Sinc(p.logu(*LS), p.logu(*VAR)), max_d=3),
    Case("sinc_ard", lambda p, d: Sinc(p.vec(*LS, d), p.logu(*VAR)), max_d=3),
    Case("constant", lambda p, d: Constant(p.logu(0.1, 10.0))),
    Case("white", lambda p, d: White(p.logu(0.01, 10.0))),
    Case("linear", lambda p, d: Linear(p.logu(*VAR))),
    Case(
        "polynomial",
        lambda p, d: Polynomial(p.integer(1, 4), p.logu(0.1, 2.0), p.logu(0.1, 3.0)),
    ),
    Case("polynomial_homogeneous", lambda p, d: Polynomial(p.integer(1, 4), p.logu(0.1, 2.0), 0)),
    Case("angular", lambda p, d: Angular(), rough=True),
    # ---- algebra
    Case("sum", lambda p, d: RBF(p.logu(*LS), p.logu(*VAR)) + Linear(p.logu(*VAR))),
    Case("sum_white", lambda p, d: Matern(p.logu(*LS), nu=1.5) + White(p.logu(0.01, 1.0))),
    Case("sum_number", lambda p, d: RationalQuadratic(p.logu(*LS)) + p.logu(0.1, 3.0)),
    Case(
        "product",
        lambda p, d: RBF(p.vec(*LS, d), p.logu(*VAR)) * Polynomial(2, p.logu(0.1, 1.0), 1.0),
    ),
    Case("product_constant", lambda p, d: Constant(p.logu(*VAR)) * Matern(p.logu(*LS), nu=1.5)),
    Case("scaled", lambda p, d: p.logu(0.1, 10.0) * RationalQuadratic(p.logu(*LS), shape=2.0)),
    Case("power", lambda p, d: Matern(p.logu(*LS), p.logu(*VAR), nu=2.5) ** 3),
    Case("poly", lambda p, d: poly(Linear(p.logu(0.1, 1.0)), [1.0, 2.0, 3.0])),
    Case("exp", lambda p, d: exp(RBF(p.logu(*LS), p.logu(0.1, 2.0)))),
    Case("compose", lambda p, d: compose(RBF(p.logu(*LS), p.logu(*VAR)), _phi)),
    Case("compose_ard", lambda p, d: compose(Laplace(p.vec(*LS, 2 * d)), _phi), rough=True),
    Case(
        "nested",
        lambda p, d: (
            (RBF(p.logu(*LS)) * Linear(p.logu(0.1, 1.0)) + Constant(p.logu(0.1, 2.0))) ** 2
        ),
    ),
    Case("angular_sum", lambda p, d: Angular() + 0.5 * Sinc(p.logu(*LS)), max_d=3, rough=True),
]


def vector_cases(*, with_hyperparameters: bool = False) -> list[Case]:
    """The vector cases, optionally only those whose kernel has a non-empty ``theta``."""
    if not with_hyperparameters:
        return VECTOR_CASES
    rng = np.random.default_rng(0)
    return [c for c in VECTOR_CASES if c.build(Draw(rng=rng), 2).n_dims > 0]


def example_kernels() -> list[tuple[str, Kernel]]:
    """One seeded instance of every case (d = 3), for parameter and repr tests."""
    rng = np.random.default_rng(1)
    return [(c.name, c.build(Draw(rng=rng), 3)) for c in VECTOR_CASES]
