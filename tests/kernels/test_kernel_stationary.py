"""Stationary kernels: Matérn closed forms vs the Bessel formula (assignment eqs. 2.5-2.6),
the RBF limit, and agreement with scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special
from sklearn.gaussian_process import kernels as skk
from sklearn.metrics.pairwise import rbf_kernel

from kernelkit.kernels import RBF, Laplace, Matern, RationalQuadratic, Sinc


@pytest.fixture
def XY():
    rng = np.random.default_rng(20240611)
    return rng.standard_normal((23, 3)), rng.standard_normal((17, 3))


# --------------------------------------------------------------------------- Matérn
@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
@pytest.mark.parametrize("lengthscale", [0.7, [0.5, 1.3, 2.0]])
def test_matern_bessel_path_equals_closed_form(XY, nu, lengthscale) -> None:
    """eq. 2.5 with nu a hair off a half-integer takes the Bessel route; it must agree
    with the closed forms of eq. 2.6 (value and hyperparameter gradients)."""
    X, Y = XY
    closed = Matern(lengthscale, 1.7, nu=nu)
    bessel = Matern(lengthscale, 1.7, nu=nu + 1e-12)
    assert closed._form() != "bessel" and bessel._form() == "bessel"
    np.testing.assert_allclose(bessel(X, Y), closed(X, Y), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(bessel(X), closed(X), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(bessel.gradient(X), closed.gradient(X), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
def test_matern_bessel_routine_at_exact_half_integers(nu) -> None:
    """The Bessel routine itself (forced, nu exact) against the closed form profiles."""
    k = Matern(1.0, nu=nu)
    r = np.concatenate([[0.0, 1e-300, 1e-8], np.linspace(1e-3, 30.0, 400)])
    f_bessel = k._bessel(r.copy(), nu, scale=1.0)
    np.testing.assert_allclose(f_bessel, k._f(r * r), rtol=1e-10, atol=1e-300)
    # g = -f'(r) / r through K_(nu-1); at r = 0 the limit (or 0 where g is unbounded)
    g_bessel = k._bessel(r.copy(), nu - 1.0, scale=2.0 * nu)
    g_closed = k._g(r * r)
    mask = r > 1e-100  # (1e-300)**2 underflows to 0 in the closed form's input
    np.testing.assert_allclose(g_bessel[mask], g_closed[mask], rtol=1e-10, atol=1e-300)


def test_matern_closed_forms_by_hand() -> None:
    r = np.linspace(0.0, 4.0, 9)
    x0, x = np.zeros((1, 1)), r[:, None]
    s3, s5 = math.sqrt(3) * r, math.sqrt(5) * r
    expected = {
        0.5: np.exp(-r),
        1.5: (1 + s3) * np.exp(-s3),
        2.5: (1 + s5 + s5**2 / 3) * np.exp(-s5),
        np.inf: np.exp(-(r**2) / 2),
    }
    for nu, f in expected.items():
        np.testing.assert_allclose(Matern(1.0, 2.0, nu=nu)(x0, x)[0], 2.0 * f, rtol=1e-14)


def _log_kv_by_recurrence(nu: float, z: np.ndarray) -> np.ndarray:
    """``log K_nu(z)`` by the (stable) upward recurrence from orders nu mod 1 and +1.

    K_(m+1) = K_(m-1) + (2m / z) K_m, carried as ratios so nothing overflows. Independent
    of the Debye expansion the library uses for large orders.
    """
    n = math.floor(nu)
    mu = nu - n
    lk = np.log(special.kve(mu, z)) - z
    q = special.kve(mu + 1.0, z) / special.kve(mu, z)
    for m in range(n):
        lk = lk + np.log(q)
        q = 1.0 / q + 2.0 * (mu + m + 1.0) / z
    return lk


@pytest.mark.parametrize("nu", [60.25, 120.5, 200.0, 700.0])
def test_matern_large_nu_is_accurate(nu) -> None:
    """K_nu overflows float64 for large nu near r = 0; the kernel must stay accurate there
    (it used to return its r -> 0 limit, 1.0, for all r < 0.2 at nu = 200)."""
    r = np.concatenate([np.geomspace(1e-6, 0.5, 40), np.linspace(0.5, 6.0, 40)])
    z = math.sqrt(2 * nu) * r
    logc = (1 - nu) * math.log(2) - special.gammaln(nu)
    ref = np.exp(logc + nu * np.log(z) + _log_kv_by_recurrence(nu, z))
    got = Matern(1.0, nu=nu)(np.zeros((1, 1)), r[:, None])[0]
    np.testing.assert_allclose(got, ref, rtol=1e-8, atol=1e-14)
    assert np.all(np.diff(got) <= 1e-10)  # non-increasing profile (to round-off)


def test_matern_tends_to_rbf() -> None:
    """Matérn -> RBF as nu -> infinity, with error O(1/nu): at nu = 200 the largest
    difference over r in [0, 6] is about 1.2e-3 (stated tolerance 2e-3)."""
    r = np.linspace(0.0, 6.0, 241)[:, None]
    x0 = np.zeros((1, 1))
    rbf = RBF(1.0)(x0, r)[0]
    err = {nu: np.abs(Matern(1.0, nu=nu)(x0, r)[0] - rbf).max() for nu in (12.5, 50.0, 200.0)}
    assert err[200.0] < 2e-3
    assert err[12.5] > err[50.0] > err[200.0]
    assert 3.0 < err[50.0] / err[200.0] < 5.0  # ~ 4 = 200 / 50
    np.testing.assert_array_equal(Matern(1.0, nu=np.inf)(x0, r), RBF(1.0)(x0, r))


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5, 0.7, 3.3, np.inf])
@pytest.mark.parametrize("lengthscale", [1.3, [0.4, 2.0, 1.1]])
def test_matern_equals_sklearn(XY, nu, lengthscale) -> None:
    X, Y = XY
    sk = skk.Matern(length_scale=lengthscale, nu=nu)
    k = Matern(lengthscale, 2.5, nu=nu)
    np.testing.assert_allclose(k(X, Y), 2.5 * sk(X, Y), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(k(X), 2.5 * sk(X), rtol=1e-9, atol=1e-12)


def test_laplace_is_matern_half() -> None:
    X = np.random.default_rng(1).standard_normal((12, 4))
    for ls in (0.8, [0.5, 1.0, 2.0, 3.0]):
        np.testing.assert_array_equal(Laplace(ls, 1.3)(X), Matern(ls, 1.3, nu=0.5)(X))
    # exp(-|x - y|_2 / l): Euclidean, unlike sklearn's L1 laplacian_kernel
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    np.testing.assert_allclose(Laplace(0.8)(X), np.exp(-D / 0.8), rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------- RBF and friends
@pytest.mark.parametrize("lengthscale", [0.6, [0.3, 1.0, 2.2]])
def test_rbf_equals_sklearn(XY, lengthscale) -> None:
    X, Y = XY
    k = RBF(lengthscale, 0.7)
    np.testing.assert_allclose(
        k(X, Y), 0.7 * skk.RBF(length_scale=lengthscale)(X, Y), rtol=1e-12, atol=1e-15
    )
    ls = np.asarray(lengthscale)
    np.testing.assert_allclose(
        k(X, Y), 0.7 * rbf_kernel(X / ls, Y / ls, gamma=0.5), rtol=1e-12, atol=1e-15
    )


def test_rbf_is_assignment_gaussian() -> None:
    """eq. 1.3: exp(-|x - x'|^2 / (2 sigma^2)) with sigma the lengthscale."""
    X = np.random.default_rng(2).standard_normal((9, 2))
    sigma = 1.7
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.testing.assert_allclose(RBF(sigma)(X), np.exp(-D2 / (2 * sigma**2)), rtol=1e-12)


@pytest.mark.parametrize("shape", [0.3, 1.0, 7.5])
def test_rational_quadratic_equals_sklearn(XY, shape) -> None:
    X, Y = XY
    k = RationalQuadratic(1.4, 1.9, shape)
    sk = skk.RationalQuadratic(length_scale=1.4, alpha=shape)
    np.testing.assert_allclose(k(X, Y), 1.9 * sk(X, Y), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(k(X), 1.9 * sk(X), rtol=1e-12, atol=1e-15)


def test_rational_quadratic_tends_to_rbf(XY) -> None:
    X, _ = XY
    err = np.abs(RationalQuadratic(1.0, shape=1e6)(X) - RBF(1.0)(X)).max()
    assert err < 1e-5


def test_sinc_by_hand() -> None:
    X = np.random.default_rng(3).standard_normal((10, 3))
    r = np.linalg.norm(X[:, None] - X[None], axis=-1) / 0.9
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(r == 0, 1.0, np.sin(r) / r)
    np.testing.assert_allclose(Sinc(0.9, 1.2)(X), 1.2 * expected, rtol=1e-10, atol=1e-12)


def test_sinc_gradient_near_zero_distance() -> None:
    """The series branch of g (r < 1e-2) joins the closed form smoothly."""
    k = Sinc(1.0)
    r = np.array([1e-4, 5e-3, 9.999e-3, 1.0001e-2, 2e-2])
    g = k._g(r * r)
    exact = (np.sin(r) - r * np.cos(r)) / r**3  # cancellation costs ~1e-11 at r = 1e-2
    np.testing.assert_allclose(g[2:], exact[2:], rtol=1e-8)
    np.testing.assert_allclose(g[:2], 1 / 3 - r[:2] ** 2 / 30, rtol=1e-10)
