"""Constructor parameters, fixed hyperparameters, theta layout, cloning."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_cases import example_kernels

from kernelkit.kernels import (
    RBF,
    Angular,
    Constant,
    Intersection,
    Linear,
    Matern,
    Polynomial,
    Precomputed,
    RationalQuadratic,
    Sinc,
    White,
)

X = np.random.default_rng(0).standard_normal((7, 3))
EXAMPLES = example_kernels()


def _params_equal(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(x, y):
                return False
        elif hasattr(x, "get_params"):
            if type(x) is not type(y) or not _params_equal(x.get_params(), y.get_params()):
                return False
        elif x != y:
            return False
    return True


@pytest.mark.parametrize(("name", "k"), EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_clone_is_independent_and_equal(name, k) -> None:
    c = k.clone()
    assert c is not k and type(c) is type(k)
    assert _params_equal(c.get_params(), k.get_params())
    np.testing.assert_array_equal(c(X), k(X))
    if k.n_dims:
        c.theta = c.theta + 0.3
        assert not np.allclose(c(X), k(X)) or name == "white"
        assert not np.array_equal(c.theta, k.theta)


@pytest.mark.parametrize(("name", "k"), EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_rebuild_from_get_params(name, k) -> None:
    """type(k)(**k.get_params(deep=False)) rebuilds the kernel (scikit-learn's clone rule:
    the constructor only stores its arguments)."""
    params = k.get_params(deep=False)
    rebuilt = type(k)(**params)
    np.testing.assert_array_equal(rebuilt(X), k(X))
    assert _params_equal(rebuilt.get_params(deep=False), params)
    repr(k)  # does not fail


@pytest.mark.parametrize(("name", "k"), EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_set_params_round_trip(name, k) -> None:
    other = k.clone()
    other.theta = other.theta - 0.4
    if k.n_dims:
        assert not _params_equal(other.get_params(), k.get_params())
    leaf = {key: v for key, v in k.get_params(deep=True).items() if not hasattr(v, "get_params")}
    assert other.set_params(**leaf) is other
    assert _params_equal(other.get_params(), k.get_params())
    np.testing.assert_allclose(other(X), k(X), rtol=1e-15)


def test_get_params_deep_names() -> None:
    k = RBF(2.0) * Matern(nu=1.5) + 0.5 * Linear(3.0)
    p = k.get_params(deep=True)
    assert p["k1__k1__lengthscale"] == 2.0
    assert p["k1__k2__nu"] == 1.5
    assert p["k2__scale"] == 0.5
    assert p["k2__kernel__variance"] == 3.0
    assert set(k.get_params(deep=False)) == {"k1", "k2"}
    k.set_params(k1__k2__nu=0.5, k2__kernel__variance=1.0)
    np.testing.assert_allclose(k(X), (RBF(2.0) * Matern(nu=0.5) + 0.5 * Linear(1.0))(X), rtol=1e-15)


def test_theta_names_and_bounds() -> None:
    k = RBF([1.0, 2.0, 3.0], 0.5, lengthscale_bounds=(1e-2, 1e2))
    assert k.theta_names == ["lengthscale[0]", "lengthscale[1]", "lengthscale[2]", "variance"]
    np.testing.assert_allclose(k.theta, np.log([1.0, 2.0, 3.0, 0.5]))
    np.testing.assert_allclose(k.bounds, np.log([[1e-2, 1e2]] * 3 + [[1e-5, 1e5]]))
    s = k + RationalQuadratic(shape=2.0) * White()
    assert s.theta_names == [
        *(f"k1__{n}" for n in k.theta_names),
        "k2__k1__lengthscale",
        "k2__k1__variance",
        "k2__k1__shape",
        "k2__k2__noise",
    ]
    assert s.bounds.shape == (8, 2) and s.theta.shape == (8,)
    for k0 in (Angular(), Intersection(), Precomputed(np.eye(2))):
        assert k0.n_dims == 0 and k0.theta.shape == (0,) and k0.bounds.shape == (0, 2)
        assert k0.theta_names == []


def test_theta_setter_keeps_scalars_scalar_and_vectors_vectors() -> None:
    k = RBF([1.0, 2.0], 1.0)
    k.theta = np.log([3.0, 4.0, 5.0])
    assert isinstance(k.variance, float) and k.variance == pytest.approx(5.0)
    np.testing.assert_allclose(k.lengthscale, [3.0, 4.0])
    p = Polynomial(3, 0.5, 2.0)
    p.theta = np.log([2.0, 0.25])
    assert (p.degree, p.gamma, p.coef0) == (3, pytest.approx(2.0), pytest.approx(0.25))


# --------------------------------------------------------------------------- fixed
FIXED_CASES = [
    (RBF(1.3, 0.7, lengthscale_bounds="fixed"), RBF(1.3, 0.7), ["variance"]),
    (RBF(1.3, 0.7, variance_bounds="fixed"), RBF(1.3, 0.7), ["lengthscale"]),
    (
        RBF([0.5, 1.0, 2.0], 0.7, lengthscale_bounds="fixed"),
        RBF([0.5, 1.0, 2.0], 0.7),
        ["variance"],
    ),
    (Matern(0.8, 1.1, nu=0.7, variance_bounds="fixed"), Matern(0.8, 1.1, nu=0.7), ["lengthscale"]),
    (
        RationalQuadratic(0.9, 1.4, 2.0, shape_bounds="fixed"),
        RationalQuadratic(0.9, 1.4, 2.0),
        ["lengthscale", "variance"],
    ),
    (
        RationalQuadratic(0.9, 1.4, 2.0, variance_bounds="fixed", lengthscale_bounds="fixed"),
        RationalQuadratic(0.9, 1.4, 2.0),
        ["shape"],
    ),
    (
        RationalQuadratic([0.9, 1.0, 2.0], 1.4, 2.0, shape_bounds="fixed", variance_bounds="fixed"),
        RationalQuadratic([0.9, 1.0, 2.0], 1.4, 2.0),
        ["lengthscale[0]", "lengthscale[1]", "lengthscale[2]"],
    ),
    (Sinc(1.2, 1.5, lengthscale_bounds="fixed"), Sinc(1.2, 1.5), ["variance"]),
    (Polynomial(2, 0.5, 1.5, coef0_bounds="fixed"), Polynomial(2, 0.5, 1.5), ["gamma"]),
    (Polynomial(2, 0.5, 1.5, gamma_bounds="fixed"), Polynomial(2, 0.5, 1.5), ["coef0"]),
    (
        RBF(1.0, variance_bounds="fixed") + Constant(2.0, value_bounds="fixed"),
        RBF(1.0) + Constant(2.0),
        ["k1__lengthscale"],
    ),
]


@pytest.mark.parametrize(("fixed", "free", "names"), FIXED_CASES, ids=repr)
def test_fixed_hyperparameters_leave_theta_and_gradients(fixed, free, names) -> None:
    assert fixed.theta_names == names
    assert fixed.theta.shape == fixed.bounds[:, 0].shape == (len(names),)
    np.testing.assert_array_equal(fixed(X), free(X))
    cols = [free.theta_names.index(n) for n in names]
    G = fixed.gradient(X)
    assert G.shape == (7, 7, len(names))
    np.testing.assert_allclose(G, free.gradient(X)[:, :, cols], rtol=1e-13, atol=1e-15)
    W = np.random.default_rng(1).standard_normal((7, 7))
    np.testing.assert_allclose(
        fixed.gradient_dot(X, W), free.gradient_dot(X, W)[cols], rtol=1e-12, atol=1e-14
    )
    # setting theta moves only the free values
    before = fixed.get_params(deep=True)
    fixed2 = fixed.with_theta(fixed.theta + 0.1)
    after = fixed2.get_params(deep=True)
    for key, v in before.items():
        if key.endswith("_bounds") and v == "fixed":
            value_key = key[: -len("_bounds")]
            np.testing.assert_array_equal(after[value_key], before[value_key])


@pytest.mark.parametrize(
    "k",
    [
        RBF(lengthscale_bounds="fixed", variance_bounds="fixed"),
        RationalQuadratic(
            lengthscale_bounds="fixed", variance_bounds="fixed", shape_bounds="fixed"
        ),
        Constant(value_bounds="fixed"),
        White(noise_bounds="fixed"),
        Linear(variance_bounds="fixed"),
        Polynomial(coef0=0.0, gamma_bounds="fixed"),
        Angular(),
        RBF(lengthscale_bounds="fixed", variance_bounds="fixed") * Angular(),
    ],
    ids=repr,
)
def test_everything_fixed_gives_empty_gradients(k) -> None:
    assert k.n_dims == 0 and k.theta.shape == (0,)
    assert k.gradient(X).shape == (7, 7, 0)
    assert k.gradient_dot(X, np.eye(7)).shape == (0,)
    k.theta = np.empty(0)
    assert k.with_theta([]).theta.shape == (0,)


def test_repr() -> None:
    assert repr(RBF(2.0)) == "RBF(lengthscale=2, variance=1)"
    assert "lengthscale_bounds='fixed'" in repr(RBF(lengthscale_bounds="fixed"))
    # bounds given as an array used to make repr raise (ambiguous truth value)
    assert repr(RBF(lengthscale_bounds=np.array([1e-3, 1e3]))) == "RBF(lengthscale=1, variance=1)"
    assert (
        repr(RBF() + 2.0 * Linear()) == "(RBF(lengthscale=1, variance=1) + 2 * Linear(variance=1))"
    )
