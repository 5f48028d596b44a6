"""Bad input gets a ValueError/TypeError that names the argument (ARCHITECTURE.md)."""

from __future__ import annotations

import numpy as np
import pytest

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
)

X = np.random.default_rng(0).standard_normal((5, 3))
VECTOR_KERNELS = [
    RBF(),
    Matern(nu=0.7),
    Laplace(),
    RationalQuadratic(),
    Sinc(),
    Linear(),
    Polynomial(),
    Angular(),
    RBF() + Linear(),
    RBF() * Matern(),
    2.0 * RBF(),
    RBF() ** 2,
    compose(RBF(), np.negative),
]
IDS = [repr(k) for k in VECTOR_KERNELS]


@pytest.mark.parametrize("k", VECTOR_KERNELS, ids=IDS)
def test_mismatched_feature_dimensions(k) -> None:
    with pytest.raises(ValueError, match="different numbers of features"):
        k(X, X[:, :2])


@pytest.mark.parametrize("k", VECTOR_KERNELS, ids=IDS)
@pytest.mark.parametrize("where", ["X", "Y"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_inputs(k, where, bad) -> None:
    Z = X.copy()
    Z[2, 1] = bad
    args = (Z,) if where == "X" else (X, Z)
    name = "phi\\(X\\)" if k.__class__.__name__ == "Composed" else where
    with pytest.raises(ValueError, match=f"{name} contains NaN or infinity"):
        k(*args)


@pytest.mark.parametrize("k", VECTOR_KERNELS, ids=IDS)
def test_empty_and_one_dimensional_inputs(k) -> None:
    with pytest.raises(ValueError, match="X is empty"):
        k(np.empty((0, 3)))
    if k.__class__.__name__ != "Composed":  # phi decides what its input looks like
        with pytest.raises(ValueError, match=r"X must be 2-dimensional.*reshape"):
            k(np.ones(3))
        with pytest.raises(ValueError, match="X is empty"):
            k.diag(np.empty((0, 3)))


@pytest.mark.parametrize("k", [RBF(), Linear(), RBF() + Linear()], ids=repr)
def test_non_numeric_inputs(k) -> None:
    with pytest.raises(TypeError, match=r"X must be an array of numbers.*set"):
        k([{1, 2}, {3}])
    with pytest.raises(TypeError, match="X must be an array of numbers"):
        k("abc")
    with pytest.raises(TypeError, match="X must be real-valued"):
        k(np.ones((2, 2)) * 1j)
    with pytest.raises(ValueError, match="X must be a rectangular array"):
        k([[1.0, 2.0], [3.0]])


@pytest.mark.parametrize("cls", [RBF, Matern, Laplace, RationalQuadratic, Sinc])
def test_ard_lengthscale_must_match_features(cls) -> None:
    k = cls(lengthscale=[1.0, 2.0])
    msg = "lengthscale has 2 entries but X has 3 features"
    with pytest.raises(ValueError, match=msg):
        k(X)
    with pytest.raises(ValueError, match=msg):
        k.diag(X)
    with pytest.raises(ValueError, match=msg):
        k.gradient(X)
    with pytest.raises(ValueError, match=msg):
        k.gradient_dot(X, np.eye(5))
    with pytest.raises(ValueError, match=msg):
        (k + Linear())(X)
    with pytest.raises(ValueError, match=msg):
        compose(k, lambda Z: Z).gradient(X)
    with pytest.raises(ValueError, match="lengthscale must be a scalar or a 1-D array"):
        cls(lengthscale=np.ones((2, 2)))


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda v: RBF(lengthscale=v), "lengthscale"),
        (lambda v: RBF(lengthscale=[1.0, v]), "lengthscale"),
        (lambda v: Matern(variance=v), "variance"),
        (lambda v: RationalQuadratic(shape=v), "shape"),
        (lambda v: Constant(v), "value"),
        (lambda v: White(v), "noise"),
        (lambda v: Linear(v), "variance"),
        (lambda v: Polynomial(gamma=v), "gamma"),
    ],
)
@pytest.mark.parametrize("value", [0.0, -1.0, np.nan, np.inf])
def test_non_positive_hyperparameters(make, name, value) -> None:
    with pytest.raises(ValueError, match=name):
        make(value)


@pytest.mark.parametrize("nu", [0, -0.5, np.nan, -np.inf])
def test_bad_nu(nu) -> None:
    with pytest.raises(ValueError, match="nu must be > 0"):
        Matern(nu=nu)


@pytest.mark.parametrize("nu", [True, "2.5", None, [2.5]])
def test_nu_must_be_a_number(nu) -> None:
    with pytest.raises(TypeError, match="nu must be a number"):
        Matern(nu=nu)


def test_hyperparameter_types() -> None:
    with pytest.raises(TypeError, match="variance must be a number, got bool"):
        RBF(variance=True)
    with pytest.raises(TypeError, match="lengthscale must be a number"):
        RBF(lengthscale="wide")
    with pytest.raises(ValueError, match="lengthscale must not be empty"):
        RBF(lengthscale=[])
    with pytest.raises(ValueError, match="lengthscale_bounds must satisfy"):
        RBF(lengthscale_bounds=(10.0, 1.0))
    with pytest.raises(ValueError, match="variance_bounds must satisfy"):
        RBF(variance_bounds=(0.0, 1.0))


@pytest.mark.parametrize("degree", [0, -1, 2.5, True, "2"])
def test_polynomial_degree(degree) -> None:
    with pytest.raises(ValueError, match="degree must be an integer >= 1"):
        Polynomial(degree=degree)


@pytest.mark.parametrize("coef0", [-1.0, np.nan, np.inf])
def test_polynomial_coef0(coef0) -> None:
    with pytest.raises(ValueError, match="coef0 must be >= 0"):
        Polynomial(coef0=coef0)


def test_sinc_dimension() -> None:
    X4 = np.ones((3, 4))
    msg = "positive definite only for inputs of dimension <= 3; X has 4 features"
    for k in (Sinc(), Sinc() + RBF(), compose(Sinc(), lambda Z: Z)):
        with pytest.raises(ValueError, match=msg):
            k(X4)
    with pytest.raises(ValueError, match=msg):
        Sinc().gradient(X4)
    Sinc()(np.ones((3, 3)))  # d = 3 is fine


def test_angular_zero_vector() -> None:
    Z = X.copy()
    Z[1] = 0.0
    with pytest.raises(ValueError, match="X contains a zero vector"):
        Angular()(Z)
    with pytest.raises(ValueError, match="Y contains a zero vector"):
        Angular()(X, Z)
    with pytest.raises(ValueError, match="X contains a zero vector"):
        Angular().diag(Z)
    # also inside the algebra (it used to give NaN there)
    with pytest.raises(ValueError, match="X contains a zero vector"):
        (Angular() + RBF())(Z)
    with pytest.raises(ValueError, match="X contains a zero vector"):
        (2.0 * Angular())(Z)


def test_gradient_dot_weight_shape() -> None:
    with pytest.raises(ValueError, match=r"W must have shape \(5, 5\)"):
        RBF().gradient_dot(X, np.eye(4))
    with pytest.raises(ValueError, match="W contains NaN"):
        RBF().gradient_dot(X, np.full((5, 5), np.nan))


def test_set_params_unknown_names() -> None:
    with pytest.raises(ValueError, match="invalid parameter 'length_scale' for RBF"):
        RBF().set_params(length_scale=2.0)
    with pytest.raises(ValueError, match="invalid parameter 'lengthscale__x'"):
        RBF().set_params(lengthscale__x=2.0)
    with pytest.raises(ValueError, match="invalid parameter 'bogus' for RBF"):
        (RBF() + Linear()).set_params(k1__bogus=1.0)
    with pytest.raises(ValueError, match="invalid parameter 'k3__variance'"):
        (RBF() + Linear()).set_params(k3__variance=1.0)
    with pytest.raises(ValueError, match="nu must be > 0"):
        Matern().set_params(nu=-1.0)


@pytest.mark.parametrize("k", [RBF(), RBF([1.0, 2.0]) + White(), Polynomial()], ids=repr)
def test_theta_of_the_wrong_length(k) -> None:
    with pytest.raises(ValueError, match=f"theta has length {k.n_dims + 1}, expected {k.n_dims}"):
        k.theta = np.zeros(k.n_dims + 1)
    with pytest.raises(ValueError, match="theta has length"):
        k.with_theta(np.zeros(max(k.n_dims - 1, 0)))
    with pytest.raises(ValueError, match="theta must be finite"):
        k.theta = np.full(k.n_dims, np.nan)


# --------------------------------------------------------------------------- Constant, White
@pytest.mark.parametrize("k", [Constant(2.0), White(0.5)], ids=repr)
def test_constant_and_white_check_numeric_input(k) -> None:
    """They accepted NaN, a bare string and ragged nested lists (issue 11, §6). The rule:
    numbers must be finite and rectangular, as for any vector kernel; a list whose items are
    not all numbers is a list of objects (sets, graphs, ...) and stays accepted."""
    bad = X.copy()
    bad[1, 2] = np.nan
    for call in (lambda: k(bad), lambda: k(X, bad), lambda: k.diag(bad)):
        with pytest.raises(ValueError, match=r"(X|Y) contains NaN or infinity"):
            call()
    with pytest.raises(ValueError, match="X contains NaN"):
        k([1.0, np.inf])
    with pytest.raises(ValueError, match="X contains NaN"):
        k([[1.0, 2.0], [3.0, float("nan")]])
    for s in ("abc", b"abc"):
        with pytest.raises(TypeError, match="X must be an array of numbers or a list of objects"):
            k(s)
    with pytest.raises(TypeError, match="Y must be an array of numbers or a list of objects"):
        k(X, "abc")
    with pytest.raises(
        ValueError, match=r"X is a ragged nested list of numbers \(rows of lengths 1, 2\)"
    ):
        k([[1.0, 2.0], [3.0]])
    with pytest.raises(ValueError, match="ragged"):
        k([[1.0, 2.0], 3.0])
    with pytest.raises(ValueError, match="X is empty"):
        k([])
    with pytest.raises(TypeError, match="got int"):
        k(5)
    # still accepted: vectors, lists of numbers and lists of any objects
    assert k(X).shape == (5, 5)
    assert k([1.0, 2.0, 3.0]).shape == (3, 3)
    assert k([[1, 2], [3, 4]]).shape == (2, 2)
    assert k([{1, 2}, {3}, "abc", None, [1, [2]]]).shape == (5, 5)
    assert k(np.array([{1}, {2}], dtype=object)).shape == (2, 2)


def test_constant_next_to_a_kernel_on_objects_takes_its_inputs() -> None:
    """Inside a sum with a kernel on sets, lists of lists are sets, not ragged vectors: a
    Constant or White takes whatever the kernels beside it take."""
    from kernelkit.kernels import Intersection

    sets = [[1, 2], [3]]
    K = (Intersection() + Constant(1.0) + White(0.5))(sets)
    np.testing.assert_array_equal(K, [[5.5, 2.0], [2.0, 3.5]])
    with pytest.raises(ValueError, match="ragged"):
        (Constant(1.0) + White(0.5))(sets)  # no kernel on objects here


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda v: Constant(v), "value"),
        (lambda v: White(v), "noise"),
        (lambda v: RBF(variance=v), "variance"),
        (lambda v: RBF(lengthscale=v), "lengthscale"),
        (lambda v: RationalQuadratic(shape=v), "shape"),
        (lambda v: Polynomial(gamma=v), "gamma"),
    ],
)
def test_hyperparameters_given_as_strings_are_refused(make, name) -> None:
    """``Constant("1.5")`` was accepted (NumPy parses the string)."""
    for v in ("1.5", b"2", np.array(["1.0"]), ["1.0", 2.0]):
        with pytest.raises(TypeError, match=f"{name} must be a number"):
            make(v)


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda v: Constant(v), "value"),
        (lambda v: White(v), "noise"),
        (lambda v: RBF(variance=v), "variance"),
        (lambda v: Linear(v), "variance"),
        (lambda v: RationalQuadratic(shape=v), "shape"),
        (lambda v: Polynomial(gamma=v), "gamma"),
    ],
)
def test_scalar_hyperparameters_must_be_scalars(make, name) -> None:
    """``Constant([1.0, 2.0])`` was accepted and failed later inside ``float()``."""
    with pytest.raises(ValueError, match=f"{name} must be a scalar, got an array of shape"):
        make([1.0, 2.0])


def test_constant_white_nan_parameters_and_bounds() -> None:
    for make, name in ((Constant, "value"), (White, "noise")):
        with pytest.raises(ValueError, match=f"{name} must be finite"):
            make(np.nan)
        with pytest.raises(TypeError, match=f"{name} must be a number, got bool"):
            make(True)
        with pytest.raises(ValueError, match=f"{name}_bounds must be 'fixed' or a pair"):
            make(1.0, **{f"{name}_bounds": "fix"})
        with pytest.raises(ValueError, match=f"{name}_bounds must satisfy 0 < low <= high"):
            make(1.0, **{f"{name}_bounds": (1.0, np.nan)})


def test_polynomial_coef0_type() -> None:
    with pytest.raises(TypeError, match="coef0 must be a number, got str"):
        Polynomial(coef0="1")


@pytest.mark.parametrize("t", [800.0, -800.0])
def test_theta_beyond_the_float_range(t) -> None:
    """``exp(800)`` was an infinite variance (and ``exp(-800)`` a zero lengthscale)."""
    k = RBF()
    with pytest.raises(ValueError, match=r"puts lengthscale = exp\(theta\) outside the float64"):
        k.theta = np.array([t, 0.0])
    with pytest.raises(ValueError, match=r"puts variance = exp\(theta\) outside the float64"):
        (Linear() + RBF()).theta = np.array([t, 0.0, 0.0])
