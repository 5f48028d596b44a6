"""Kernel values are finite for every finite input (issue 11, §3).

Hypothesis draws inputs anywhere in ``|x| <= 1e200`` (subnormals, exact duplicates and
mixtures of scales included) and lengthscales from 1e-300 to 1e300. For every kernel the
Gram matrix, its diagonal, the hyperparameter gradients and the input gradients must be
finite, symmetric, positive semi-definite on small sets and in the kernel's range; where
no float64 value exists (a dot product of inputs near 1e200), a ValueError that names the
inputs. The named regressions below each returned NaN (or a wrong number) before.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

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
    median_heuristic,
)

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
BIG = 1e200


def _inputs(data, max_d: int, max_n: int = 6, label: str = "X") -> np.ndarray:
    n = data.draw(st.integers(1, max_n), label=f"n {label}")
    d = data.draw(st.integers(1, max_d), label="d")
    return _matrix(data, n, d, label)


def _matrix(data, n: int, d: int, label: str) -> np.ndarray:
    elements = st.floats(-BIG, BIG, allow_nan=False, allow_infinity=False)
    return data.draw(arrays(np.float64, (n, d), elements=elements), label=label)


def _loguniform(data, lo: float, hi: float, label: str) -> float:
    return float(10.0 ** data.draw(st.floats(lo, hi), label=label))


def _assert_psd(K: np.ndarray, tol: float = 1e-7) -> None:
    lam = np.linalg.eigvalsh(K)
    assert lam.min() >= -tol * max(lam.max(), 0.0), (lam.min(), lam.max())


# --------------------------------------------------------------------------- stationary
#: (name, constructor from (lengthscale, variance), max_d); lengthscale may be an array
STATIONARY = [
    ("rbf", lambda ls, v: RBF(ls, v), 4),
    ("laplace", lambda ls, v: Laplace(ls, v), 4),
    ("matern_1/2", lambda ls, v: Matern(ls, v, nu=0.5), 4),
    ("matern_3/2", lambda ls, v: Matern(ls, v, nu=1.5), 4),
    ("matern_5/2", lambda ls, v: Matern(ls, v, nu=2.5), 4),
    ("matern_0.3", lambda ls, v: Matern(ls, v, nu=0.3), 4),
    ("matern_0.7", lambda ls, v: Matern(ls, v, nu=0.7), 4),
    ("matern_3.3", lambda ls, v: Matern(ls, v, nu=3.3), 4),
    ("matern_120.5", lambda ls, v: Matern(ls, v, nu=120.5), 4),
    ("matern_inf", lambda ls, v: Matern(ls, v, nu=np.inf), 4),
    ("rq", lambda ls, v: RationalQuadratic(ls, v, shape=1.0), 4),
    ("rq_heavy", lambda ls, v: RationalQuadratic(ls, v, shape=0.1), 4),
    ("rq_light", lambda ls, v: RationalQuadratic(ls, v, shape=1e4), 4),
    ("sinc", lambda ls, v: Sinc(ls, v), 3),
]
IDS = [name for name, _, _ in STATIONARY]


def _stationary(data, make, d: int):
    ard = data.draw(st.booleans(), label="ard")
    if ard:
        ls = np.array([_loguniform(data, -300, 300, "lengthscale") for _ in range(d)])
    else:
        ls = _loguniform(data, -300, 300, "lengthscale")
    v = _loguniform(data, -100, 100, "variance")
    return make(ls, v), float(np.min(ls)), v


@pytest.mark.parametrize(("name", "make", "max_d"), STATIONARY, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_stationary_values_finite_symmetric_psd_in_range(name, make, max_d, data) -> None:
    X = _inputs(data, max_d)
    k, _, v = _stationary(data, make, X.shape[1])
    K = k(X)
    assert np.all(np.isfinite(K))
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_allclose(np.diag(K), v, rtol=1e-12)  # k(x, x) = variance
    assert np.all(np.abs(K) <= v * (1.0 + 1e-12))
    np.testing.assert_array_equal(k.diag(X), np.full(X.shape[0], v))
    _assert_psd(K / v)
    Y = _matrix(data, data.draw(st.integers(1, 5), label="m"), X.shape[1], "Y")
    KXY = k(X, Y)
    assert KXY.shape == (X.shape[0], Y.shape[0]) and np.all(np.isfinite(KXY))
    assert np.all(np.abs(KXY) <= v * (1.0 + 1e-12))
    np.testing.assert_allclose(KXY, k(Y, X).T, rtol=0, atol=1e-6 * v)


@pytest.mark.parametrize(("name", "make", "max_d"), STATIONARY, ids=IDS)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=st.data())
def test_stationary_gradients_finite(name, make, max_d, data) -> None:
    X = _inputs(data, max_d, max_n=5)
    k, ls_min, v = _stationary(data, make, X.shape[1])
    n = X.shape[0]
    G = k.gradient(X)
    assert G.shape == (n, n, k.n_dims) and np.all(np.isfinite(G))
    W = np.random.default_rng(0).standard_normal((n, n))
    gd = k.gradient_dot(X, W)
    assert np.all(np.isfinite(gd))
    # the contraction (BLAS expansion or differences) agrees with the full tensor
    np.testing.assert_allclose(
        gd, np.einsum("ij,ijp->p", W, G), rtol=1e-6, atol=1e-7 * v * np.abs(W).sum()
    )
    K, contract = k.gram_and_gradient(X)
    assert np.all(np.isfinite(K)) and np.all(np.isfinite(contract(W)))
    # d k / d x is at most ~variance / lengthscale (unbounded only for Matérn nu < 1/2 at
    # nearly coincident inputs): beyond the float range it is a clear error, never inf
    Y = _matrix(data, data.draw(st.integers(1, 4), label="m"), X.shape[1], "Y")
    if v / ls_min < 1e300 and name != "matern_0.3":
        IG = k.input_gradient(X, Y)
        assert IG.shape == (n, Y.shape[0], X.shape[1]) and np.all(np.isfinite(IG))
    else:
        try:
            assert np.all(np.isfinite(k.input_gradient(X, Y)))
        except ValueError as exc:
            assert "input gradients" in str(exc) and "overflow float64" in str(exc)


COMPOSITES = [
    # (name, constructor, the largest |k| for a variance v)
    ("sum", lambda ls, v: RBF(ls, v) + Laplace(ls, v), lambda v: 2.0 * v),
    ("product", lambda ls, v: Matern(ls, v, nu=1.5) * RationalQuadratic(ls, 1.0), lambda v: v),
    ("scaled_power", lambda ls, v: (3.0 * Sinc(ls, v)) ** 2, lambda v: 9.0 * v * v),
    (
        "sum_white_constant",
        lambda ls, v: Matern(ls, v, nu=0.7) + White(v) + Constant(v),
        lambda v: 3.0 * v,
    ),
]


@pytest.mark.parametrize(("name", "make", "bound"), COMPOSITES, ids=[n for n, _, _ in COMPOSITES])
@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=st.data())
def test_composite_values_and_gradients_finite(name, make, bound, data) -> None:
    X = _inputs(data, 3, max_n=5)
    ls = _loguniform(data, -300, 300, "lengthscale")
    v = _loguniform(data, -50, 50, "variance")
    k = make(ls, v)
    K = k(X)
    assert np.all(np.isfinite(K)) and np.all(np.abs(K) <= bound(v) * (1.0 + 1e-12))
    np.testing.assert_array_equal(K, K.T)
    _assert_psd(K / bound(v))
    n = X.shape[0]
    assert np.all(np.isfinite(k.gradient(X)))
    assert np.all(np.isfinite(k.gradient_dot(X, np.ones((n, n)))))


# --------------------------------------------------------------------------- the others
@SETTINGS
@given(data=st.data())
def test_angular_in_range_psd_and_unit_diagonal(data) -> None:
    X = _inputs(data, 4)
    if np.any(np.max(np.abs(X), axis=1) == 0):
        with pytest.raises(ValueError, match="zero vector"):
            Angular()(X)
        return
    K = Angular()(X)
    assert np.all(np.isfinite(K)) and np.all(np.abs(K) <= 1.0)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    _assert_psd(K)
    # invariant under positive rescaling of the rows, whatever their size (by a power of
    # 2 that keeps the inputs exact)
    c = 2.0 ** data.draw(st.integers(-300, 300), label="scale")
    if np.array_equal((X * c) / c, X):
        np.testing.assert_allclose(Angular()(X * c), K, rtol=0, atol=1e-12)


DOT = [
    ("linear", lambda v: Linear(v)),
    ("polynomial", lambda v: Polynomial(3, v, 1.0)),
    ("polynomial_homogeneous", lambda v: Polynomial(2, v, 0.0)),
]


@pytest.mark.parametrize(("name", "make"), DOT, ids=[n for n, _ in DOT])
@SETTINGS
@given(data=st.data())
def test_dot_product_kernels_finite_or_a_clear_overflow_error(name, make, data) -> None:
    # scale the inputs so that both representable and overflowing values come up
    e = data.draw(st.integers(-200, 200), label="exponent")
    X = _inputs(data, 4) * 1e-200 * 10.0**e
    k = make(_loguniform(data, -5, 5, "gamma"))
    try:
        K = k(X)
    except ValueError as exc:
        assert "overflow float64" in str(exc) and "|X| up to" in str(exc)
        return
    assert np.all(np.isfinite(K))
    np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=0)
    np.testing.assert_allclose(k.diag(X), np.diag(K), rtol=1e-12, atol=0)
    _assert_psd(K, tol=1e-10)
    for out in (k.gradient(X), k.gradient_dot(X, np.ones((len(X),) * 2))):
        assert np.all(np.isfinite(out))


@SETTINGS
@given(data=st.data())
def test_constant_and_white_values(data) -> None:
    X = _inputs(data, 4)
    c, w = _loguniform(data, -100, 100, "value"), _loguniform(data, -100, 100, "noise")
    np.testing.assert_array_equal(Constant(c)(X), np.full((len(X), len(X)), c))
    np.testing.assert_array_equal(White(w)(X), w * np.eye(len(X)))
    np.testing.assert_array_equal(White(w)(X, X.copy()), np.zeros((len(X), len(X))))


# --------------------------------------------------------------------------- regressions
def _no_warnings(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn()


@pytest.mark.parametrize(
    "k",
    [
        RBF(),
        Laplace(),
        Matern(nu=1.5),
        Matern(nu=2.5),
        Matern(nu=0.7),
        RationalQuadratic(),
        Sinc(),
    ],
    ids=repr,
)
def test_far_apart_and_coincident_points_far_from_the_origin(k) -> None:
    """The mean shift of the distance code overflowed (|x|^2 of rows near 1e200), Matérn
    3/2, 5/2 and sinc gave inf * 0 at distances near 1e300, and Matérn nu = 0.7 returned
    1 (its r -> 0 limit) for points 1e200 apart."""
    X = np.array([[1e200], [1e200], [-1e200], [0.0], [1.0], [1.7e308], [-1.7e308]])
    K = _no_warnings(lambda: k(X))
    f1 = float(k(np.array([[0.0]]), np.array([[1.0]]))[0, 0])
    expected = np.eye(7)
    expected[0, 1] = expected[1, 0] = 1.0
    expected[3, 4] = expected[4, 3] = f1
    np.testing.assert_allclose(K, expected, rtol=1e-12, atol=1e-150)
    for G in (k.gradient(X), k.gradient_dot(X, np.ones((7, 7))), k.input_gradient(X, X)):
        assert np.all(np.isfinite(G))


@pytest.mark.parametrize("cls", [RBF, Laplace, Matern, RationalQuadratic, Sinc])
def test_tiny_and_huge_lengthscales(cls) -> None:
    """``RBF(lengthscale=1e-300)`` on inputs near 1e10: x / l overflowed to inf, and two
    equal inputs gave inf - inf = NaN."""
    X = np.array([[1e10], [1e10], [0.0]])
    K = _no_warnings(lambda: cls(lengthscale=1e-300)(X))
    # (sinc: |sin r / r| <= 1e-150 is taken for its limit 0 beyond r = 1e150)
    np.testing.assert_allclose(K, [[1, 1, 0], [1, 1, 0], [0, 0, 1]], rtol=0, atol=1e-150)
    # and a lengthscale of 1e300 sees every pair at distance ~0
    np.testing.assert_allclose(cls(lengthscale=1e300)(X * 1e100), np.ones((3, 3)), rtol=1e-12)
    # ARD: one huge, one tiny lengthscale
    X2 = np.array([[1e10, 5.0], [1e10, -5.0], [0.0, 5.0]])
    K2 = cls(lengthscale=[1e-300, 1e300])(X2)
    np.testing.assert_allclose(K2, [[1, 1, 0], [1, 1, 0], [0, 0, 1]], rtol=1e-12, atol=1e-150)


def test_float32_inputs_with_extreme_lengthscales() -> None:
    """A float32 lengthscale of 1e-300 was 0 (division by zero), one of 1e40 was inf."""
    X = np.array([[1.0], [1.0], [2.0]], dtype=np.float32)
    np.testing.assert_array_equal(RBF(1e-300)(X), [[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    np.testing.assert_array_equal(RBF(1e40)(X), np.ones((3, 3)))
    assert RBF(1e-300)(X).dtype == np.float32
    # a variance beyond float32 gives float64 values rather than inf
    assert np.all(np.isfinite(RBF(1.0, 1e300)(X)))


def test_angular_far_from_and_near_the_origin() -> None:
    """The row norms overflowed (|x|^2 for x near 1e200), so every angle came out as 90°."""
    X = np.array([[1e200, -1e200], [0.0, 1.0], [-3e199, 2.0], [1e-200, -1e-200]])
    K = _no_warnings(lambda: Angular()(X))
    expected = np.array(
        [
            [1.0, -0.5, -0.5, 1.0],
            [-0.5, 1.0, 0.0, -0.5],
            [-0.5, 0.0, 1.0, -0.5],
            [1.0, -0.5, -0.5, 1.0],
        ]
    )
    np.testing.assert_allclose(K, expected, atol=1e-12)


@pytest.mark.parametrize(
    "k", [Linear(), Polynomial(2), RBF() + Linear(), RBF() * Polynomial(3)], ids=repr
)
def test_dot_products_beyond_the_float_range_are_an_error(k) -> None:
    """They were inf (and NaN inside sums and products) with only a RuntimeWarning."""
    X = np.array([[1e200, 1.0], [3e110, -2.0]])
    with pytest.raises(ValueError, match=r"overflow float64 .*\|X\| up to 1e\+200.*rescale X"):
        _no_warnings(lambda: k(X))
    with pytest.raises(ValueError, match=r"\|X\| up to 3e\+110.*\|Y\| up to 1e\+200.*X and Y"):
        _no_warnings(lambda: k(X[1:], X))
    # representable values stay exact
    Z = np.array([[1e100, 1.0], [3.0, -2.0]])
    np.testing.assert_allclose(Linear()(Z), Z @ Z.T, rtol=1e-15)


def test_exp_of_a_large_kernel_is_an_error() -> None:
    from kernelkit.kernels import exp

    X = np.array([[30.0], [1.0]])
    with pytest.raises(ValueError, match=r"kernel values of exp\(Linear"):
        _no_warnings(lambda: exp(Linear())(X))
    np.testing.assert_allclose(exp(Linear())(X / 10.0), np.exp(X @ X.T / 100.0))


def test_ard_gradient_far_from_the_origin() -> None:
    """The ARD contraction expanded (z_i - z_j)^2 without centring: on Unix times with a
    one-minute lengthscale its gradient in the lengthscales was off by ~1e2 (-2 for 0.012)."""
    rng = np.random.default_rng(0)
    t = 3600.0 * rng.standard_normal((40, 2))
    W = rng.standard_normal((40, 40))
    W += W.T
    for k in (RBF([60.0, 80.0]), Matern([60.0, 80.0], nu=2.5), Laplace([60.0, 80.0])):
        ref = k.gradient_dot(t, W)
        np.testing.assert_allclose(k.gradient_dot(t + 1.7e9, W), ref, rtol=1e-5, atol=1e-8)
        np.testing.assert_allclose(
            np.einsum("ij,ijp->p", W, k.gradient(t + 1.7e9)), ref, rtol=1e-5, atol=1e-8
        )


@pytest.mark.parametrize("k", [Laplace([0.5, 2.0]), Matern([0.5, 2.0], nu=0.7)], ids=repr)
def test_rough_kernels_at_nearly_coincident_points(k) -> None:
    """``exp(-r)`` moves by ~sqrt(error) of a squared distance; pairs within the round-off
    of the expansion are computed from their differences, for values and gradients."""
    rng = np.random.default_rng(1)
    X = 1e3 + rng.standard_normal((12, 2))
    X[1] = X[0] + 1e-9
    X[2] = X[0]
    K = k(X)
    direct = k(X[:3] - X[0])  # the same pairs near the origin: no cancellation
    np.testing.assert_allclose(K[:3, :3], direct, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(K[0, 2], K[0, 0])
    W = rng.standard_normal((12, 12))
    np.testing.assert_allclose(
        k.gradient_dot(X, W), k.gradient_dot(X - 1e3, W), rtol=1e-9, atol=1e-12
    )


# --------------------------------------------------------------------------- median heuristic
@pytest.mark.parametrize("scale", [1e300, 1e-300, 1e-320, 1e150, 1e-160])
def test_median_heuristic_at_any_scale(scale) -> None:
    """``X * 1e300`` gave a NaN or inf median (squared distances overflow)."""
    X = np.random.default_rng(0).standard_normal((30, 3))
    ref = median_heuristic(X)
    got = _no_warnings(lambda: median_heuristic(X * scale))
    rtol = 1e-12 if scale >= 1e-300 else 1e-2  # subnormal inputs keep fewer digits
    np.testing.assert_allclose(got, ref * scale, rtol=rtol)


def test_median_heuristic_overflow_is_an_error() -> None:
    X = np.array([[-1.7e308], [1.7e308], [-1.6e308], [1.6e308]])
    with pytest.raises(ValueError, match=r"median distance .* overflows float64"):
        median_heuristic(X)


def test_random_fourier_features_median_lengthscale_at_any_scale() -> None:
    """Random Fourier features with the median-heuristic lengthscale on ``X * 1e300``
    (once all NaN) equal those on ``X``."""
    from kernelkit.features import RandomFourierFeatures

    def rff_median(X: np.ndarray) -> RandomFourierFeatures:
        return RandomFourierFeatures(kernel=RBF(median_heuristic(X)), random_state=0)

    X = np.random.default_rng(0).standard_normal((25, 3))
    ref = rff_median(X).fit_transform(X)
    for scale in (1e300, 1e-300):
        rff = rff_median(X * scale)
        Z = _no_warnings(lambda s=scale, r=rff: r.fit_transform(X * s))
        assert np.all(np.isfinite(Z))
        np.testing.assert_allclose(Z, ref, rtol=1e-6, atol=1e-8)
