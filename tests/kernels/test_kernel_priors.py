"""Priors on hyperparameters: densities, gradients, composite kernels, parameters."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone as sk_clone

from kernelkit.kernels import (
    RBF,
    Constant,
    GammaPrior,
    Laplace,
    Linear,
    LogNormalPrior,
    Matern,
    Polynomial,
    Prior,
    RationalQuadratic,
    Sinc,
    White,
    compose,
    exp,
    poly,
)

THETA = np.linspace(-4.0, 3.0, 15)
PRIORS = [
    GammaPrior(3.0, 6.0),
    GammaPrior(0.5, 0.1),
    GammaPrior(concentration=20.0, rate=2.0),
    LogNormalPrior(0.0, 1.0),
    LogNormalPrior(loc=-1.5, scale=0.3),
]


def _fd(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central finite differences of a scalar function of a vector."""
    out = np.empty(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


# --------------------------------------------------------------------------- densities
@pytest.mark.parametrize("a,b", [(3.0, 6.0), (0.5, 0.1), (20.0, 2.0), (1.0, 1.0)])
def test_gamma_density_is_scipy_with_the_change_of_variables(a, b) -> None:
    v = np.exp(THETA)
    expected = stats.gamma(a, scale=1.0 / b).logpdf(v) + THETA  # p(theta) = p(v) * v
    value, grad = GammaPrior(a, b).log_density(THETA)
    np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grad, a - b * v, rtol=1e-12)


@pytest.mark.parametrize("loc,scale", [(0.0, 1.0), (-1.5, 0.3), (2.0, 4.0)])
def test_lognormal_density_is_scipy_with_the_change_of_variables(loc, scale) -> None:
    v = np.exp(THETA)
    expected = stats.lognorm(s=scale, scale=np.exp(loc)).logpdf(v) + THETA
    value, grad = LogNormalPrior(loc, scale).log_density(THETA)
    np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(value, stats.norm(loc, scale).logpdf(THETA), rtol=1e-12)
    np.testing.assert_allclose(grad, -(THETA - loc) / scale**2, rtol=1e-12)


@pytest.mark.parametrize("prior", PRIORS, ids=repr)
def test_density_integrates_to_one_and_gradient_matches_differences(prior) -> None:
    t = np.linspace(-40.0, 12.0, 400001)
    value = prior.log_density(t)[0]
    assert np.trapezoid(np.exp(value), t) == pytest.approx(1.0, rel=1e-6)
    x = np.linspace(-3.0, 2.0, 11)
    grad = prior.log_density(x)[1]
    fd = np.array([_fd(lambda z: float(prior.log_density(z[0])[0]), np.array([xi]))[0] for xi in x])
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("prior", PRIORS, ids=repr)
def test_density_is_elementwise(prior) -> None:
    T = THETA.reshape(3, 5)
    value, grad = prior.log_density(T)
    assert value.shape == grad.shape == (3, 5)
    for i, t in np.ndenumerate(T):
        v, g = prior.log_density(t)
        assert v.shape == g.shape == ()
        assert float(v) == pytest.approx(value[i], rel=1e-15)
        assert float(g) == pytest.approx(grad[i], rel=1e-15)


def test_gamma_density_far_out_is_minus_infinity_not_nan() -> None:
    value, grad = GammaPrior(2.0, 1.0).log_density(np.array([709.0, 800.0]))
    assert not np.isnan(value).any() and not np.isnan(grad).any()
    assert value[0] < -1e307 and value[1] == -np.inf and grad[1] == -np.inf


def test_priors_are_values() -> None:
    assert GammaPrior(3.0, 6.0) == GammaPrior(concentration=3.0, rate=6.0)
    assert GammaPrior(3.0, 6.0) != GammaPrior(3.0, 5.0)
    assert GammaPrior(1.0, 1.0) != LogNormalPrior(1.0, 1.0)
    assert hash(GammaPrior(3.0, 6.0)) == hash(GammaPrior(3.0, 6.0))
    assert repr(GammaPrior(3.0, 6.0)) == "GammaPrior(concentration=3.0, rate=6.0)"
    assert repr(LogNormalPrior()) == "LogNormalPrior(loc=0.0, scale=1.0)"
    p = LogNormalPrior(0.5, 2.0)
    assert pickle.loads(pickle.dumps(p)) == p
    with pytest.raises(AttributeError):
        p.scale = 3.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: GammaPrior(0.0, 1.0), ValueError, "concentration"),
        (lambda: GammaPrior(-1.0, 1.0), ValueError, "concentration"),
        (lambda: GammaPrior(1.0, 0.0), ValueError, "rate"),
        (lambda: GammaPrior(1.0, np.inf), ValueError, "rate"),
        (lambda: GammaPrior(np.nan, 1.0), ValueError, "concentration"),
        (lambda: GammaPrior("2", 1.0), TypeError, "concentration"),
        (lambda: GammaPrior(True, 1.0), TypeError, "concentration"),
        (lambda: GammaPrior(1.0, [1.0, 2.0]), TypeError, "rate"),
        (lambda: LogNormalPrior(0.0, 0.0), ValueError, "scale"),
        (lambda: LogNormalPrior(0.0, -2.0), ValueError, "scale"),
        (lambda: LogNormalPrior(np.inf, 1.0), ValueError, "loc"),
        (lambda: LogNormalPrior(None, 1.0), TypeError, "loc"),
        (lambda: GammaPrior(1.0, 1.0).log_density(np.nan), ValueError, "theta"),
        (lambda: GammaPrior(1.0, 1.0).log_density("a"), TypeError, "theta"),
        (lambda: LogNormalPrior().log_density([0.0, np.inf]), ValueError, "theta"),
        (lambda: Prior().log_density(0.0), NotImplementedError, "_log_density"),
    ],
)
def test_bad_priors_are_rejected(make, error, match) -> None:
    with pytest.raises(error, match=match):
        make()


# --------------------------------------------------------------------------- kernels
def _value(k, t) -> float:
    return k.log_prior(t)[0]


KERNELS_WITH_PRIORS = [
    RBF(0.7, 1.3, lengthscale_prior=GammaPrior(3.0, 6.0)),
    RBF([0.5, 1.0, 2.0], 1.3, lengthscale_prior=GammaPrior(2.0, 1.0)),
    Matern(0.8, 2.0, nu=1.5, variance_prior=LogNormalPrior(0.0, 0.5)),
    Laplace(1.2, lengthscale_prior=LogNormalPrior(1.0, 2.0), variance_prior=GammaPrior(2, 2)),
    RationalQuadratic(0.9, 1.4, 2.0, shape_prior=GammaPrior(2.0, 0.5)),
    Sinc(0.9, variance_prior=GammaPrior(1.5, 1.0)),
    Constant(2.0, value_prior=GammaPrior(2.0, 1.0)),
    White(0.1, noise_prior=LogNormalPrior(-2.0, 1.0)),
    Linear(0.5, variance_prior=GammaPrior(1.0, 2.0)),
    Polynomial(2, 0.5, 1.5, gamma_prior=GammaPrior(2.0, 2.0), coef0_prior=LogNormalPrior()),
    RBF(0.7, lengthscale_prior=GammaPrior(3.0, 6.0))
    + White(0.1, noise_prior=LogNormalPrior(-2.0, 1.0)),
    Constant(2.0, value_prior=GammaPrior(2.0, 1.0)) * Matern([0.5, 2.0], nu=2.5)
    + 0.5 * RationalQuadratic(shape_prior=GammaPrior(2.0, 0.5)),
    poly(Linear(0.5, variance_prior=GammaPrior(1.0, 2.0)), [1.0, 2.0]),
    exp(RBF(0.7, 0.3, variance_prior=LogNormalPrior(-1.0, 0.5))),
    compose(Laplace([0.5, 2.0], lengthscale_prior=GammaPrior(2.0, 1.0)), np.sin),
    RBF(0.7, lengthscale_prior=GammaPrior(3.0, 6.0)) ** 2,
]


@pytest.mark.parametrize("k", KERNELS_WITH_PRIORS, ids=repr)
def test_log_prior_gradient_matches_finite_differences(k) -> None:
    assert k.has_priors
    theta = k.theta + np.random.default_rng(0).normal(0.0, 0.3, k.n_dims)
    value, grad = k.log_prior(theta)
    assert isinstance(value, float) and np.isfinite(value)
    assert grad.shape == (k.n_dims,)
    np.testing.assert_allclose(grad, _fd(lambda t: _value(k, t), theta), rtol=1e-6, atol=1e-7)
    # at the kernel's own theta by default
    v0 = k.log_prior()[0]
    k2 = k.with_theta(theta)
    v1, g1 = k2.log_prior()
    assert v1 == pytest.approx(value, rel=1e-12)
    np.testing.assert_allclose(g1, grad, rtol=1e-12, atol=1e-14)
    assert v0 == k.log_prior(k.theta)[0]


def test_log_prior_is_the_sum_over_hyperparameters() -> None:
    g, ln = GammaPrior(3.0, 6.0), LogNormalPrior(0.2, 0.7)
    k = RationalQuadratic([0.5, 1.0, 2.0], 1.4, 2.0, lengthscale_prior=g, shape_prior=ln)
    t = k.theta
    value, grad = k.log_prior()
    gv, gg = g.log_density(t[:3])  # the ARD lengthscale: elementwise, summed
    lv, lg = ln.log_density(t[4])
    assert value == pytest.approx(gv.sum() + float(lv), rel=1e-14)
    np.testing.assert_allclose(grad, [*gg, 0.0, float(lg)], rtol=1e-14)
    assert k.theta_names[3] == "variance" and grad[3] == 0.0


def test_composite_kernels_sum_their_parts_in_theta_order() -> None:
    a = RBF([0.5, 2.0], lengthscale_prior=GammaPrior(2.0, 1.0))
    b = White(0.1, noise_prior=LogNormalPrior(-2.0, 1.0))
    c = Matern(1.0, variance_prior=GammaPrior(2.0, 2.0))
    parts = [a, b, c]
    for k in (a + b * c, (a * b) + 3.0 * c, poly(a + b, [0, 1]) * exp(c), a + b + c):
        value, grad = k.log_prior()
        assert value == pytest.approx(sum(p.log_prior()[0] for p in parts), rel=1e-14)
        np.testing.assert_array_equal(grad, np.concatenate([p.log_prior()[1] for p in parts]))
    # a number added to a kernel is a fixed constant: no prior, no theta
    k = a + 2.0
    assert k.log_prior()[0] == a.log_prior()[0] and k.n_dims == a.n_dims


def test_fixed_hyperparameters_are_excluded() -> None:
    prior = GammaPrior(2.0, 1.0)
    k = RBF(0.5, 2.0, lengthscale_prior=prior, lengthscale_bounds="fixed", variance_prior=prior)
    assert k.theta_names == ["variance"]
    value, grad = k.log_prior()
    assert value == pytest.approx(float(prior.log_density(np.log(2.0))[0]), rel=1e-14)
    assert grad.shape == (1,)
    only_fixed = RBF(0.5, lengthscale_prior=prior, lengthscale_bounds="fixed")
    assert not only_fixed.has_priors
    assert only_fixed.log_prior()[0] == 0.0
    # coef0 = 0 is no hyperparameter of the homogeneous polynomial kernel
    p = Polynomial(2, 1.0, 0.0, coef0_prior=prior)
    assert not p.has_priors and p.n_dims == 1


def test_kernels_without_priors() -> None:
    for k in (RBF(), RBF() + White(), Polynomial(), RBF(lengthscale_bounds="fixed") * 2.0):
        assert not k.has_priors
        value, grad = k.log_prior()
        assert value == 0.0 and grad.shape == (k.n_dims,) and not grad.any()


def test_log_prior_checks_theta() -> None:
    k = RBF(lengthscale_prior=GammaPrior(2.0, 1.0))
    with pytest.raises(ValueError, match="theta has length 3, expected 2"):
        k.log_prior([0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="theta"):
        k.log_prior([np.nan, 0.0])


@pytest.mark.parametrize("k", KERNELS_WITH_PRIORS[:12], ids=repr)
def test_pickle_clone_and_params_keep_priors(k) -> None:
    for copy in (pickle.loads(pickle.dumps(k)), k.clone(), sk_clone(k)):
        assert copy == k and copy is not k
        assert copy.log_prior()[0] == k.log_prior()[0]
        np.testing.assert_array_equal(copy.log_prior()[1], k.log_prior()[1])
    params = k.get_params(deep=True)
    priors = {key: v for key, v in params.items() if key.endswith("_prior") and v is not None}
    assert priors
    assert all(isinstance(v, Prior) for v in priors.values())


def test_priors_in_parameters_and_repr() -> None:
    k = Matern(1.0, nu=1.5, lengthscale_prior=GammaPrior(3.0, 6.0))
    assert k.get_params()["lengthscale_prior"] == GammaPrior(3.0, 6.0)
    assert k.get_params()["variance_prior"] is None
    assert repr(k) == (
        "Matern(lengthscale=1, variance=1, nu=1.5, "
        "lengthscale_prior=GammaPrior(concentration=3.0, rate=6.0))"
    )
    assert k != Matern(1.0, nu=1.5)
    assert k == Matern(1.0, nu=1.5, lengthscale_prior=GammaPrior(3.0, 6.0))
    s = RBF() + k
    s.set_params(k2__lengthscale_prior=None, k1__variance_prior=LogNormalPrior(1.0))
    assert s.get_params()["k2__lengthscale_prior"] is None
    assert s.log_prior()[1][1] != 0.0 and s.log_prior()[1][2] == 0.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: RBF(lengthscale_prior="gamma"),
        lambda: RBF(variance_prior=stats.gamma(2.0)),
        lambda: White(noise_prior=1.0),
        lambda: RationalQuadratic(shape_prior=GammaPrior),  # the class, not an instance
        lambda: RBF().set_params(lengthscale_prior=(2.0, 1.0)),
    ],
)
def test_kernels_reject_what_is_not_a_prior(make) -> None:
    with pytest.raises(TypeError, match=r"_prior must be None or a Prior"):
        make()
