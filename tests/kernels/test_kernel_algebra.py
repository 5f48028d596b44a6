"""The closure algebra (Bishop eqs. 6.13-6.22, the assignment's Lemma 1) against the
elementwise formulas, and its refusals of operations that break positive definiteness."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import (
    RBF,
    Constant,
    Intersection,
    Linear,
    Matern,
    Polynomial,
    RationalQuadratic,
    White,
    compose,
    exp,
    poly,
)
from kernelkit.kernels.base import Composed, ExponentialOf, PolynomialOf, Product, Scaled, Sum


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    return rng.standard_normal((11, 3)), rng.standard_normal((6, 3))


@pytest.fixture
def k1():
    return RBF([0.7, 1.1, 2.0], 1.3)


@pytest.fixture
def k2():
    return Polynomial(2, 0.5, 1.0)


def _both(k, X, Y):
    return k(X), k(X, Y), k.diag(X)


def test_sum(data, k1, k2) -> None:
    X, Y = data
    k = k1 + k2
    assert isinstance(k, Sum)
    for got, a, b in zip(_both(k, X, Y), _both(k1, X, Y), _both(k2, X, Y), strict=True):
        np.testing.assert_allclose(got, a + b, rtol=1e-14)


def test_product(data, k1, k2) -> None:
    X, Y = data
    k = k1 * k2
    assert isinstance(k, Product)
    for got, a, b in zip(_both(k, X, Y), _both(k1, X, Y), _both(k2, X, Y), strict=True):
        np.testing.assert_allclose(got, a * b, rtol=1e-14)


@pytest.mark.parametrize("c", [0.0, 0.25, 3, np.float32(2.0), np.int64(4)])
def test_scaling_both_sides(data, k1, c) -> None:
    X, Y = data
    for k in (c * k1, k1 * c):
        assert isinstance(k, Scaled)
        for got, a in zip(_both(k, X, Y), _both(k1, X, Y), strict=True):
            np.testing.assert_allclose(got, float(c) * a, rtol=1e-14)


def test_power(data, k1) -> None:
    X, Y = data
    k = k1**3
    assert isinstance(k, PolynomialOf)
    for got, a in zip(_both(k, X, Y), _both(k1, X, Y), strict=True):
        np.testing.assert_allclose(got, a**3, rtol=1e-13)
    np.testing.assert_allclose((k1**0)(X, Y), np.ones((11, 6)))
    np.testing.assert_allclose((k1 ** np.int64(2))(X), k1(X) ** 2, rtol=1e-14)


def test_poly(data, k2) -> None:
    X, Y = data
    k = poly(k2, [1, 2, 3])
    for got, K in zip(_both(k, X, Y), _both(k2, X, Y), strict=True):
        np.testing.assert_allclose(got, 1 + 2 * K + 3 * K**2, rtol=1e-13)
    np.testing.assert_allclose(poly(k2, [2.5])(X, Y), np.full((11, 6), 2.5))


def test_exp(data, k1) -> None:
    X, Y = data
    k = exp(k1)
    assert isinstance(k, ExponentialOf)
    for got, K in zip(_both(k, X, Y), _both(k1, X, Y), strict=True):
        np.testing.assert_allclose(got, np.exp(K), rtol=1e-14)


def test_compose(data) -> None:
    X, Y = data
    A = np.random.default_rng(0).standard_normal((3, 5))

    def phi(Z):
        return np.tanh(Z @ A)

    inner = Matern([0.5, 1, 1.5, 2, 2.5], 1.1, nu=1.5)
    k = compose(inner, phi)
    assert isinstance(k, Composed)
    np.testing.assert_allclose(k(X), inner(phi(X)), rtol=1e-14)
    np.testing.assert_allclose(k(X, Y), inner(phi(X), phi(Y)), rtol=1e-14)
    np.testing.assert_allclose(k.diag(X), inner.diag(phi(X)), rtol=1e-14)
    np.testing.assert_allclose(k.gradient(X), inner.gradient(phi(X)), rtol=1e-14)
    np.testing.assert_array_equal(k.theta, inner.theta)


def test_compose_on_objects() -> None:
    """phi turns a list of strings into vectors, so a vector kernel works on strings."""
    words = ["kernel", "kernels", "graph", "grape", "a"]

    def phi(ws):
        return np.array([[len(w), w.count("e"), w.count("a")] for w in ws], dtype=float)

    k = compose(RBF(2.0), phi)
    np.testing.assert_allclose(k(words), RBF(2.0)(phi(words)), rtol=1e-14)
    np.testing.assert_allclose(k(words[:2], words[2:]), RBF(2.0)(phi(words[:2]), phi(words[2:])))
    np.testing.assert_allclose(k.diag(words), np.ones(5))


def test_adding_zero_returns_the_kernel(k1) -> None:
    assert (k1 + 0) is k1
    assert (0 + k1) is k1
    assert (k1 + 0.0) is k1
    total = sum([k1, Linear()])  # sum() starts from 0
    assert isinstance(total, Sum) and total.k1 is k1


def test_adding_a_number_adds_a_fixed_constant(data, k1) -> None:
    X, Y = data
    for k in (k1 + 2.5, 2.5 + k1):
        np.testing.assert_allclose(k(X, Y), k1(X, Y) + 2.5, rtol=1e-14)
        # the constant is fixed: theta is the original kernel's
        np.testing.assert_array_equal(k.theta, k1.theta)


def test_composites_of_non_vector_kernels() -> None:
    sets = [{1, 2}, {2, 3, 4}, set()]
    base = Intersection()(sets)
    np.testing.assert_allclose((Intersection() + 1.0)(sets), base + 1.0)
    np.testing.assert_allclose((2.0 * Intersection())(sets), 2.0 * base)
    np.testing.assert_allclose((Intersection() * Constant(3.0))(sets), 3.0 * base)
    np.testing.assert_allclose((Intersection() + White(0.5))(sets), base + 0.5 * np.eye(3))
    np.testing.assert_allclose(exp(Intersection())(sets), np.exp(base))


def test_composite_gradients_by_chain_rule(data) -> None:
    """Product/poly/exp gradients are the child's times the outer derivative."""
    X, _ = data
    a, b = RBF(0.8, 1.2), Linear(0.3)
    Ga, Gb = a.gradient(X), b.gradient(X)
    Ka, Kb = a(X), b(X)
    np.testing.assert_allclose(
        (a * b).gradient(X),
        np.concatenate([Ga * Kb[..., None], Gb * Ka[..., None]], axis=2),
        rtol=1e-13,
    )
    np.testing.assert_allclose(
        poly(a, [1, 2, 3]).gradient(X), Ga * (2 + 6 * Ka)[..., None], rtol=1e-13
    )
    np.testing.assert_allclose(exp(a).gradient(X), Ga * np.exp(Ka)[..., None], rtol=1e-13)
    np.testing.assert_allclose((a + b).gradient(X), np.concatenate([Ga, Gb], axis=2))
    np.testing.assert_allclose((2.0 * a).gradient(X), 2.0 * Ga)


@pytest.mark.parametrize(
    "make",
    [
        lambda k: k * -1,
        lambda k: -0.5 * k,
        lambda k: k + (-2),
        lambda k: -1.0 + k,
        lambda k: k * np.float64("nan"),
        lambda k: k * np.inf,
        lambda k: k + np.float32(-1),
    ],
)
def test_negative_or_nonfinite_constants_are_rejected(k1, make) -> None:
    with pytest.raises(ValueError, match=r"c >= 0"):
        make(k1)


@pytest.mark.parametrize("n", [2.5, -1, True, 2.0, "2"])
def test_bad_powers_are_rejected(k1, n) -> None:
    with pytest.raises(ValueError, match=r"integer n >= 0"):
        k1**n


@pytest.mark.parametrize("coefs", [[1.0, -0.5], [], [[1.0, 2.0]], [1.0, np.nan]])
def test_bad_poly_coefficients_are_rejected(k1, coefs) -> None:
    with pytest.raises(ValueError, match="coefs"):
        poly(k1, coefs)


def test_constructors_check_their_arguments(k1) -> None:
    with pytest.raises(TypeError, match="expected a Kernel"):
        Sum(k1, 3.0)
    with pytest.raises(TypeError, match="expected a Kernel"):
        Product("rbf", k1)
    with pytest.raises(ValueError, match="scale"):
        Scaled(k1, -1.0)
    with pytest.raises(TypeError, match="phi must be callable"):
        compose(k1, "not callable")


def test_kernel_plus_unrelated_object_is_a_type_error(k1) -> None:
    with pytest.raises(TypeError):
        k1 + "a"
    with pytest.raises(TypeError):
        k1 * [1.0]


def test_stationarity_flags() -> None:
    assert (RBF() + RationalQuadratic()).is_stationary
    assert (RBF() * Constant()).is_stationary
    assert not (RBF() + Linear()).is_stationary
    assert exp(RBF()).is_stationary and (2.0 * RBF()).is_stationary
    assert not Polynomial().is_stationary
