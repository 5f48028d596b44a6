"""Closed-form error theory (kernelkit.features.theory) against Monte Carlo and closed forms.

The samplers here are small dense reference implementations written for these tests
(Gaussian matrices, ``G_ort`` by QR with sign fix and chi_d row norms, Hadamard–Rademacher
products with ``scipy.linalg.hadamard``, the S-Hybrid with a last diagonal on {±1, ±i}),
independent of kernelkit's own samplers. Each closed form must lie within 3 standard errors
of the Monte Carlo mean of the squared error (seeded, so the outcome is fixed).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, special
from scipy.linalg import hadamard

from kernelkit.features import theory as th
from kernelkit.features._radial import radial_spec
from kernelkit.features.theory._quadrature import orthogonal_pair_cos
from kernelkit.features.theory.fourier import _bessel_mean
from kernelkit.features.theory.inner_products import _mse_orthogonal_inner_as_printed
from kernelkit.kernels import RBF, Laplace, Matern, Sinc

TRIALS = 20_000


# ---------------------------------------------------------------------- reference samplers
def haar(rng, n, d):
    """``n`` Haar-distributed ``d x d`` orthogonal matrices (QR with the sign fix)."""
    Q, R = np.linalg.qr(rng.standard_normal((n, d, d)))
    return Q * np.sign(np.diagonal(R, axis1=1, axis2=2))[:, None, :]


def blocks(m, size):
    q, r = divmod(m, size)
    return [size] * q + ([r] if r else [])


def orthogonal_directions(rng, n, m, d):
    """Unit rows, independent Haar blocks of ``d`` stacked to ``m`` rows (Def. 7.1)."""
    return np.concatenate([haar(rng, n, d)[:, :mb, :] for mb in blocks(m, d)], axis=1)


def gaussian_orthogonal(rng, n, m, d):
    """``G_ort``: Haar rows times independent chi_d norms (Def. 6.1)."""
    return orthogonal_directions(rng, n, m, d) * np.sqrt(rng.chisquare(d, (n, m, 1)))


def hadamard_estimates(rng, x, y, m, k, subsampling, hybrid=False, n=TRIALS):
    """``(D/m) Re <P S D_k..S D_1 x, P S D_k..S D_1 y>``, stacked blocks for ``m > D``."""
    D = x.shape[0]
    S = hadamard(D) / math.sqrt(D)
    total = np.zeros(n)
    for mb in blocks(m, D):
        Z = np.broadcast_to(np.stack([x, y]), (n, 2, D)).astype(complex)
        for b in range(k):
            if hybrid and b == k - 1:
                diag = np.array([1, -1, 1j, -1j])[rng.integers(0, 4, (n, 1, D))]
            else:
                diag = rng.choice([-1.0, 1.0], size=(n, 1, D))
            Z = (Z * diag) @ S.T
        if subsampling == "without_replacement":
            rows = np.argsort(rng.random((n, D)), axis=1)[:, :mb]
        elif subsampling == "with_replacement":
            rows = rng.integers(0, D, (n, mb))
        else:
            rows = np.broadcast_to(np.arange(mb), (n, mb))
        zx = np.take_along_axis(Z[:, 0], rows, axis=1)
        zy = np.take_along_axis(Z[:, 1], rows, axis=1)
        total += np.real(np.sum(np.conj(zx) * zy, axis=1))
    return D / m * total


def mc(sq_err):
    """Monte Carlo mean of the squared errors and its standard error."""
    return float(np.mean(sq_err)), float(np.std(sq_err) / math.sqrt(sq_err.size))


def assert_mc(value, sq_err, nsig=3.0):
    mean, se = mc(sq_err)
    assert abs(value - mean) <= nsig * se, f"formula {value:.6g} vs MC {mean:.6g} ± {se:.2g}"


def pair(rng, d):
    x = rng.standard_normal(d)
    y = 0.6 * x + rng.standard_normal(d)
    x[0] *= 3.0  # uneven coordinates, so sum x_i^2 y_i^2 matters (Thm 6.7)
    return x, y


# ---------------------------------------------------------------------- Chapter 6
@pytest.mark.parametrize("m", [4, 12])
def test_lemma_6_5_iid_inner(m):
    rng = np.random.default_rng(1)
    x, y = pair(rng, 8)
    G = rng.standard_normal((TRIALS, m, 8))
    est = np.einsum("nij,j,nik,k->n", G, x, G, y) / m
    assert_mc(th.mse_iid_inner(x, y, m), (est - x @ y) ** 2)


@pytest.mark.parametrize(
    ("d", "m", "parallel"), [(8, 4, False), (8, 4, True), (3, 3, False), (8, 12, False)]
)
def test_thm_6_6_corrected(d, m, parallel):
    rng = np.random.default_rng(2)
    x, y = pair(rng, d)
    if parallel:
        y = 0.5 * x
    G = gaussian_orthogonal(rng, TRIALS, m, d)
    est = np.einsum("nij,j,nik,k->n", G, x, G, y) / m
    assert_mc(th.mse_orthogonal_inner(x, y, m), (est - x @ y) ** 2)


def test_thm_6_6_as_printed_is_rejected():
    # y parallel to x maximises the gap (4/(d+2)) (m-1)/(m(d-1)) <x,y>^2 between the two
    rng = np.random.default_rng(3)
    x = rng.standard_normal(8)
    G = gaussian_orthogonal(rng, TRIALS, 4, 8)
    est = np.einsum("nij,j,nik,k->n", G, x, G, x) / 4
    mean, se = mc((est - x @ x) ** 2)
    printed = _mse_orthogonal_inner_as_printed(x, x, 4)
    assert abs(th.mse_orthogonal_inner(x, x, 4) - mean) <= 3 * se
    assert abs(printed - mean) > 6 * se


def test_thm_6_6_gap_between_printed_and_corrected():
    # corrected - printed = (m-1)/(m(d-1)) 4/(d+2) <x,y>^2
    x, y = np.ones(8) / 2, np.ones(8) / 2
    gap = th.mse_orthogonal_inner(x, y, 4) - _mse_orthogonal_inner_as_printed(x, y, 4)
    assert gap == pytest.approx(3 / (4 * 7) * 4 / 10 * (x @ y) ** 2)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_thm_6_7_without_replacement(k):
    rng = np.random.default_rng(10 + k)
    x, y = pair(rng, 8)
    est = hadamard_estimates(rng, x, y, 4, k, "without_replacement")
    assert_mc(th.mse_hadamard_inner(x, y, 4, k), (est - x @ y) ** 2)


@pytest.mark.parametrize(("k", "m"), [(1, 4), (3, 4), (2, 12)])
def test_thm_6_11_with_replacement(k, m):
    rng = np.random.default_rng(20 + k)
    x, y = pair(rng, 8)
    est = hadamard_estimates(rng, x, y, m, k, "with_replacement")
    value = th.mse_hadamard_inner(x, y, m, k, subsampling="with_replacement")
    assert_mc(value, (est - x @ y) ** 2)
    if m == 4:  # Thm 6.11's factor (d-1)/(d-m)
        assert value == pytest.approx(th.mse_hadamard_inner(x, y, 4, k) * 7 / 4)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_first_rows_exact(k):
    rng = np.random.default_rng(30 + k)
    x, y = pair(rng, 8)
    est = hadamard_estimates(rng, x, y, 3, k, "first")
    assert_mc(th.mse_hadamard_inner(x, y, 3, k, subsampling="first"), (est - x @ y) ** 2)


@pytest.mark.parametrize(
    ("k", "subsampling"),
    [(1, "without_replacement"), (3, "without_replacement"), (2, "first"), (2, "with_replacement")],
)
def test_thm_6_9_hybrid_halves(k, subsampling):
    rng = np.random.default_rng(40 + k)
    x, y = pair(rng, 8)
    est = hadamard_estimates(rng, x, y, 4, k, subsampling, hybrid=True)
    value = th.mse_hadamard_inner(x, y, 4, k, subsampling=subsampling, hybrid=True)
    assert value == pytest.approx(th.mse_hadamard_inner(x, y, 4, k, subsampling=subsampling) / 2)
    assert_mc(value, (est - x @ y) ** 2)


def test_hadamard_padding_and_stacking():
    rng = np.random.default_rng(50)
    x, y = pair(rng, 6)  # padded to D = 8
    xp, yp = np.pad(x, (0, 2)), np.pad(y, (0, 2))
    for m in (5, 11):  # 11 = one full block (exact) + 3 rows
        est = hadamard_estimates(rng, xp, yp, m, 2, "without_replacement")
        assert_mc(th.mse_hadamard_inner(x, y, m, 2), (est - x @ y) ** 2)
    assert th.mse_hadamard_inner(x, y, 16, 2) == 0.0
    assert th.mse_hadamard_inner(x, y, 11, 2) == pytest.approx(
        (3 / 11) ** 2 * th.mse_hadamard_inner(x, y, 3, 2)
    )


def test_hadamard_beats_iid_cor_6_8():
    rng = np.random.default_rng(51)
    for _ in range(20):
        x, y = pair(rng, 16)
        for k in (1, 2, 3):
            assert th.mse_hadamard_inner(x, y, 5, k) < th.mse_iid_inner(x, y, 5)


# ---------------------------------------------------------------------- angular kernel
def sign_estimates(rng, theta, m, d, orthogonal):
    x = np.zeros(d)
    x[0] = 1.0
    y = np.zeros(d)
    y[0] = math.cos(theta)
    if d > 1:
        y[1] = math.sin(theta)
    if orthogonal:
        W = orthogonal_directions(rng, TRIALS, m, d)
    else:
        W = rng.standard_normal((TRIALS, m, d))
    return np.mean(np.sign(W @ x) * np.sign(W @ y), axis=1)


@pytest.mark.parametrize("theta", [np.pi / 6, np.pi / 2, 2 * np.pi / 3])
def test_lemma_7_4_angular_iid(theta):
    rng = np.random.default_rng(60)
    est = sign_estimates(rng, theta, 4, 8, False)
    assert_mc(th.mse_angular_iid(theta, 4), (est - (1 - 2 * theta / np.pi)) ** 2)


@pytest.mark.parametrize(
    ("theta", "m", "d"),
    [
        (np.pi / 6, 4, 8),
        (np.pi / 2, 4, 8),
        (5 * np.pi / 6, 4, 8),
        (np.pi / 3, 3, 3),
        (2 * np.pi / 3, 2, 2),
        (np.pi / 4, 12, 8),
    ],
)
def test_angular_orthogonal_exact_and_below_iid(theta, m, d):
    rng = np.random.default_rng(61)
    est = sign_estimates(rng, theta, m, d, True)
    value = th.mse_angular_orthogonal(theta, m, d)
    assert_mc(value, (est - (1 - 2 * theta / np.pi)) ** 2)
    assert value < th.mse_angular_iid(theta, m)  # Thm 7.5


def test_angular_orthogonal_limits():
    thetas = np.linspace(0, np.pi, 9)
    v = th.mse_angular_orthogonal(thetas, 4, 5)
    assert v[0] == 0.0 and v[-1] == pytest.approx(0.0, abs=1e-15)
    assert np.allclose(v, v[::-1])  # theta -> pi - theta (eq. 7.46)
    assert th.mse_angular_orthogonal(1.0, 1, 5) == th.mse_angular_iid(1.0, 1)


# ---------------------------------------------------------------------- charm (Def 7.7)
CHARM_KERNELS = [
    RBF(lengthscale=1.7, variance=2.0),
    Laplace(lengthscale=0.8),
    Matern(lengthscale=1.3, nu=1.5),
    Matern(lengthscale=1.0, nu=2.5, variance=0.5),
    Matern(lengthscale=2.0, nu=3.7),
    Matern(lengthscale=0.3, nu=60.0),  # K_nu overflows: Debye expansion
    Sinc(lengthscale=0.9),
]


@pytest.mark.parametrize("kernel", CHARM_KERNELS, ids=lambda k: type(k).__name__)
def test_charm_matches_finite_differences(kernel):
    z = np.array([0.05, 0.3, 1.0, 2.2, 4.0])
    h = 1e-2 * min(1.0, float(kernel.lengthscale))
    pts = z[:, None] + h * np.arange(-2, 3)[None, :]
    f = kernel(np.zeros((1, 1)), pts.reshape(-1, 1))[0].reshape(pts.shape) ** 2
    d1 = (f[:, 0] - 8 * f[:, 1] + 8 * f[:, 3] - f[:, 4]) / (12 * h)
    d2 = (-f[:, 0] + 16 * f[:, 1] - 30 * f[:, 2] + 16 * f[:, 3] - f[:, 4]) / (12 * h * h)
    fd = z * z * d2 - z * d1
    assert np.allclose(th.charm(kernel, z), fd, rtol=1e-5, atol=1e-8)


def test_charm_closed_forms():
    z = np.linspace(0, 5, 11)
    assert np.allclose(th.charm("gaussian", z), 4 * z**4 * np.exp(-(z**2)))
    assert np.allclose(th.charm("laplace", z), (4 * z**2 + 2 * z) * np.exp(-2 * z))
    u = math.sqrt(3) * z
    assert np.allclose(th.charm("matern32", z), (4 * u**4 + 2 * u**3) * np.exp(-2 * u))
    assert np.all(th.charm("matern52", z) >= 0)  # Thm 7.11
    assert np.any(th.charm("sinc", np.linspace(0.1, 8, 50)) < 0)  # not completely monotone
    # tiny distances, where K_nu overflows: the u^4 series (nu > 2), finite and positive
    tiny = th.charm(Matern(nu=40.0), np.array([1e-9, 1e-6]))
    u = np.sqrt(80.0) * np.array([1e-9, 1e-6])
    assert np.allclose(tiny, 0.5 * (1 / 39**2 + 1 / (39 * 38)) * u**4, rtol=1e-6)


@pytest.mark.parametrize("z", [0.5, 1.0, 2.0])
def test_thm_7_9_asymptotics(z):
    gaps = []
    for d in (8, 32, 128, 512):
        exact = th.mse_difference_orf_iid("gaussian", z, 4, d)
        approx = th.mse_difference_orf_iid_asymptotic("gaussian", z, 4, d)
        gaps.append(abs(exact / approx - 1))
    assert all(a > b for a, b in itertools.pairwise(gaps))
    assert gaps[-1] < 0.01


# ---------------------------------------------------------------------- random Fourier features
def matern_scale(rng, nu, size):
    return np.ones(size) if math.isinf(nu) else np.sqrt(2 * nu / rng.chisquare(2 * nu, size))


def rff_squared_errors(rng, kernel, z, m, d, orthogonal, features="cos_sin"):
    spec = radial_spec(kernel)
    zvec = rng.standard_normal(d)
    zvec *= z / np.linalg.norm(zvec)
    x = rng.standard_normal(d)
    y = x + zvec
    if orthogonal:
        norms = np.sqrt(rng.chisquare(d, (TRIALS, m))) * matern_scale(rng, spec.nu, (TRIALS, m))
        W = orthogonal_directions(rng, TRIALS, m, d) * norms[..., None]
    else:
        W = rng.standard_normal((TRIALS, m, d)) * matern_scale(rng, spec.nu, (TRIALS, m, 1))
    W /= spec.lengthscale
    v = spec.variance
    if features == "cos_sin":
        est = v * np.mean(np.cos(W @ zvec), axis=1)
    else:
        b = rng.uniform(0, 2 * np.pi, (TRIALS, m))
        est = v * 2 * np.mean(np.cos(W @ x + b) * np.cos(W @ y + b), axis=1)
    truth = kernel(x[None], y[None])[0, 0]
    return (est - truth) ** 2


RFF_CASES = [
    (RBF(lengthscale=1.3, variance=1.5), 1.0, 4),
    (RBF(), 2.0, 8),
    (Matern(nu=2.5, lengthscale=0.8), 1.2, 4),
    (Matern(nu=2.5), 2.5, 8),
    (Laplace(lengthscale=1.5), 1.5, 6),
]


@pytest.mark.parametrize(("kernel", "z", "d"), RFF_CASES)
def test_rff_mse_iid_and_orthogonal_vs_mc(kernel, z, d):
    rng = np.random.default_rng(70 + d)
    m = 4
    assert_mc(th.mse_rff_iid(kernel, z, m), rff_squared_errors(rng, kernel, z, m, d, False))
    assert_mc(
        th.mse_rff_orthogonal(kernel, z, m, d), rff_squared_errors(rng, kernel, z, m, d, True)
    )


def test_rff_cos_bias_and_stacking_vs_mc():
    rng = np.random.default_rng(80)
    k = Matern(nu=1.5)
    for orth, fn in ((False, th.mse_rff_iid), (True, th.mse_rff_orthogonal)):
        args = (k, 1.0, 10, 4) if orth else (k, 1.0, 10)
        sq = rff_squared_errors(rng, k, 1.0, 10, 4, orth, features="cos_bias")
        assert_mc(fn(*args, features="cos_bias"), sq)
    sq = rff_squared_errors(rng, RBF(), 1.0, 10, 4, True)  # blocks of 4, 4, 2
    assert_mc(th.mse_rff_orthogonal("rbf", 1.0, 10, 4), sq)


@pytest.mark.parametrize("kernel", ["gaussian", "matern52", "laplace", "matern32"])
@pytest.mark.parametrize("d", [2, 3, 5])
def test_bessel_mean_is_the_kernel(kernel, d):
    spec = radial_spec(kernel)
    z = np.array([0.0, 0.1, 0.7, 1.5, 3.0, 6.0])
    assert np.allclose(_bessel_mean(kernel, z, d), spec.phi(z), rtol=0, atol=1e-13)


def g_bessel(a, d):
    nu = d / 2 - 1
    a = np.maximum(a, 1e-300)
    return special.gamma(d / 2) * special.jv(nu, a) / (a / 2) ** nu


@pytest.mark.parametrize(
    ("kernel", "d"),
    [
        ("gaussian", 4),
        ("matern52", 3),
        ("matern32", 5),
        ("laplace", 3),
        ("sinc", 2),
        ("sinc", 1),
        (Matern(nu=2.5, lengthscale=2.0), 4),
    ],
)
def test_fourier_norm_density_reproduces_kernel(kernel, d):
    """E[g(R |z|)] = phi(|z|) by 1-D quadrature over the quantile function of rho_K."""
    rho = th.fourier_norm_density(kernel, d)
    spec = radial_spec(kernel)
    for z in (0.5, 1.5):
        # quantiles above 1 - 1e-9 carry |g| <= 1 times mass 1e-9: negligible
        val = integrate.quad(lambda q, z=z: g_bessel(rho.ppf(q) * z, d), 0, 1 - 1e-9, limit=1000)[0]
        assert val == pytest.approx(spec.phi(z), abs=2e-6)
    if hasattr(rho, "pdf"):
        lo, hi = rho.support()
        assert integrate.quad(rho.pdf, lo, hi, limit=200)[0] == pytest.approx(1.0, abs=1e-7)


def test_fourier_norm_density_laws():
    assert th.fourier_norm_density(RBF(lengthscale=2.0), 4).mean() == pytest.approx(
        math.sqrt(2) * special.gamma(2.5) / special.gamma(2) / 2
    )
    rho = th.fourier_norm_density(Sinc(lengthscale=0.5), 3)
    assert isinstance(rho, th.PointMass) and rho.rvs(3, random_state=0).tolist() == [2.0] * 3
    rng = np.random.default_rng(0)
    r = th.fourier_norm_density("matern52", 3).rvs(size=200_000, random_state=1)
    t = rng.standard_normal((200_000, 3)) * matern_scale(rng, 2.5, (200_000, 1))
    # same law as the norm of a multivariate t with 5 degrees of freedom
    assert np.quantile(r, [0.25, 0.5, 0.9]) == pytest.approx(
        np.quantile(np.linalg.norm(t, axis=1), [0.25, 0.5, 0.9]), rel=0.02
    )


@pytest.mark.parametrize(("kernel", "d"), [("matern52", 4), ("laplace", 3), ("sinc", 2)])
def test_prop_7_15_pair_expectation_vs_mc(kernel, d):
    """E[g(sqrt(R1^2 + R2^2) z)] from the spectral law's sampler vs the quadrature."""
    spec = radial_spec(kernel)
    rho = th.fourier_norm_density(kernel, d)
    n = 400_000
    r1, r2 = rho.rvs(size=n, random_state=5), rho.rvs(size=n, random_state=6)
    for z in (0.8, 2.0):
        sample = g_bessel(np.sqrt(r1**2 + r2**2) * z, d)
        mean, se = sample.mean(), sample.std() / math.sqrt(n)
        assert abs(orthogonal_pair_cos(spec, np.asarray(z), d) - mean) <= 3 * se


@pytest.mark.parametrize("nu", [0.5, 1.0, 2.5, 7.0])
def test_matern_quadrature_self_convergence(nu):
    spec = radial_spec(Matern(nu=nu))
    z = np.array([0.05, 0.3, 1.0, 2.5, 6.0])
    for d in (2, 3, 6):
        coarse = orthogonal_pair_cos(spec, z, d)
        fine = orthogonal_pair_cos(spec, z, d, refine=2)
        assert np.allclose(coarse, fine, rtol=0, atol=1e-12)


def test_matern_quadrature_tends_to_gaussian():
    z = np.array([0.3, 1.0, 2.5])
    gauss = orthogonal_pair_cos(radial_spec("rbf"), z, 5)
    matern = orthogonal_pair_cos(radial_spec(Matern(nu=1e6)), z, 5)
    assert np.allclose(matern, gauss, rtol=0, atol=1e-5)


def test_matern_quadrature_refuses_high_dimensions():
    with pytest.raises(NotImplementedError, match="d <= 128"):
        th.mse_difference_orf_iid("matern52", 1.0, 4, 200)
    assert np.isfinite(th.mse_difference_orf_iid("matern52", 1.0, 4, 128))


# ---------------------------------------------------------------------- counterexamples
def test_sinc_eq_7_21_and_sign_change():
    z = np.array([0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    closed = 2 / 3 * (np.sin(np.sqrt(2) * z) / (np.sqrt(2) * z) - np.sin(z) ** 2 / z**2)
    assert np.allclose(th.mse_difference_orf_iid("sinc", z, 3, 3), closed, atol=1e-15)
    assert np.all(closed[:5] < 0) and closed[5] > 0  # ORF worse at |z| = 5
    # the same through a Sinc object with a lengthscale, and vs Monte Carlo at z = 5
    k = Sinc(lengthscale=0.5)
    assert th.mse_difference_orf_iid(k, 2.5, 3, 3) == pytest.approx(closed[5])
    rng = np.random.default_rng(90)
    zvec = np.array([2.5, 0.0, 0.0])
    for orth, value in (
        (False, th.mse_rff_iid(k, 2.5, 3)),
        (True, th.mse_rff_orthogonal(k, 2.5, 3, 3)),
    ):
        if orth:
            W = orthogonal_directions(rng, TRIALS, 3, 3)
        else:
            W = rng.standard_normal((TRIALS, 3, 3))
            W /= np.linalg.norm(W, axis=2, keepdims=True)
        est = np.mean(np.cos(W @ zvec / 0.5), axis=1)
        assert_mc(value, (est - np.sin(5.0) / 5.0) ** 2)


def test_sinc_d2_vs_mc():
    rng = np.random.default_rng(91)
    z, m, d = 3.0, 2, 2
    r = np.sqrt(1 - rng.random((TRIALS, m)) ** 2)
    W = orthogonal_directions(rng, TRIALS, m, d) * r[..., None]
    est = np.mean(np.cos(W @ np.array([z, 0.0])), axis=1)
    assert_mc(th.mse_rff_orthogonal("sinc", z, m, d), (est - np.sin(z) / z) ** 2)


def test_gaussian_d4_orf_slightly_worse_beyond_three():
    worse = th.mse_difference_orf_iid("gaussian", np.array([3.25, 3.5, 3.75]), 4, 4)
    better = th.mse_difference_orf_iid("gaussian", np.array([0.5, 1.0, 2.0, 2.5]), 4, 4)
    assert np.all(worse > 0) and np.all(better < 0)
    assert worse.max() < 0.05 * -better.min()  # "small relative to the gains"
    # closed form for d = 4: T = exp(-x) (1 - x + x^2/6), x = z^2/2
    x = np.array([3.25, 3.5, 3.75]) ** 2 / 2
    assert np.allclose(worse, 0.75 * (np.exp(-x) * (1 - x + x * x / 6) - np.exp(-2 * x)))
