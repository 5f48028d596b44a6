"""Low-rank-plus-noise preconditioners: the Woodbury algebra against dense references,
the three factors against the kernel matrix, the random-feature width rule against the
error theory, conditioning, reproducibility, bad input and memory."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from sklearn.exceptions import NotFittedError

import kernelkit.linalg.preconditioners as preconditioners
from kernelkit import _memory
from kernelkit.features.theory import mse_rff_iid, mse_rff_orthogonal
from kernelkit.kernels import (
    RBF,
    Angular,
    Constant,
    Laplace,
    Linear,
    Matern,
    RationalQuadratic,
    Sinc,
)
from kernelkit.linalg.preconditioners import (
    Nystrom,
    PivotedCholesky,
    Preconditioner,
    RandomFeaturePreconditioner,
)

NOISE = 1e-2


def _X(n: int, d: int = 2, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, d))


def _dense(pre: Preconditioner) -> np.ndarray:
    L = pre.factor_
    return L @ L.T + pre.noise_ * np.eye(L.shape[0])


ALL = [
    pytest.param(lambda: PivotedCholesky(rank=40), id="pivoted"),
    pytest.param(lambda: Nystrom(rank=40, random_state=0), id="nystrom-uniform"),
    pytest.param(lambda: Nystrom(rank=40, centres="leverage", random_state=0), id="nystrom-lev"),
    pytest.param(lambda: RandomFeaturePreconditioner(random_state=0), id="rff-auto"),
    pytest.param(lambda: RandomFeaturePreconditioner(64, coupling="iid", random_state=0), id="iid"),
    pytest.param(
        lambda: RandomFeaturePreconditioner(64, coupling="hadamard", random_state=0),
        id="sorf",
        marks=pytest.mark.filterwarnings("ignore:coupling='hadamard' with 2 input features"),
    ),
]


# ---------------------------------------------------------------------- Woodbury algebra
@pytest.mark.parametrize("make", ALL)
@pytest.mark.parametrize("kernel", [RBF(1.3, variance=2.0), Matern([0.8, 2.0], nu=1.5)])
def test_solve_matmat_logdet_match_the_dense_matrix(make, kernel) -> None:
    X = _X(200)
    pre = make().fit(kernel, X, NOISE)
    P = _dense(pre)
    B = np.random.default_rng(1).standard_normal((200, 3))
    np.testing.assert_allclose(pre.solve(B), np.linalg.solve(P, B), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(pre.solve(B[:, 0]), np.linalg.solve(P, B[:, 0]), rtol=1e-9)
    np.testing.assert_allclose(pre.matmat(B), P @ B, rtol=1e-12, atol=1e-12)
    assert pre.solve(B[:, 0]).shape == (200,)
    sign, logdet = np.linalg.slogdet(P)
    assert sign == 1
    assert pre.logdet() == pytest.approx(logdet, rel=1e-12, abs=1e-9)
    # as a SciPy operator (the M of scipy.sparse.linalg.cg)
    np.testing.assert_allclose(pre.as_operator() @ B, pre.solve(B))
    np.testing.assert_allclose(pre.as_operator(inverse=False) @ B[:, 0], P @ B[:, 0])


def _refined_solution(L: np.ndarray, noise: float, B: np.ndarray) -> np.ndarray:
    """The solution of ``(L L^T + noise I) x = B`` by iterative refinement with residuals
    in extended precision (``np.longdouble``) of the exact operator: accurate to about
    eps in float64 for ``cond(P) eps < 1``."""
    P = L @ L.T + noise * np.eye(L.shape[0])
    lu = scipy.linalg.lu_factor(P)
    x = scipy.linalg.lu_solve(lu, B)
    Ll, Bl, nl = L.astype(np.longdouble), B.astype(np.longdouble), np.longdouble(noise)
    for _ in range(4):
        xl = x.astype(np.longdouble)
        r = (Bl - Ll @ (Ll.T @ xl) - nl * xl).astype(np.float64)
        x = x + scipy.linalg.lu_solve(lu, r)
    return x


@pytest.mark.parametrize(
    "make",
    [
        lambda: PivotedCholesky(rank=100, tol=0.0),
        lambda: Nystrom(rank=150, random_state=0),  # rank-deficient K_mm: eigenvalues dropped
        lambda: RandomFeaturePreconditioner(200, random_state=0),  # numerically rank-deficient
    ],
)
def test_solve_is_accurate_for_a_tiny_noise(make) -> None:
    # noise = 1e-8 * variance: cond(P) ~ 1e10. A backward-stable dense solve of the rounded
    # P is only good to ~cond * eps ~ 1e-6; the QR-based Woodbury form stays near eps for
    # generic right-hand sides (the normal-equations form L^T L + noise I loses ~4 digits
    # on the random-feature factor)
    kernel = RBF(1.0, variance=2.0)
    noise = 1e-8 * 2.0
    X = _X(300, seed=1)
    pre = make().fit(kernel, X, noise)
    P = _dense(pre)
    assert np.linalg.cond(P) > 1e9
    B = np.random.default_rng(2).standard_normal((300, 3))
    ref = _refined_solution(pre.factor_, noise, B)
    err = np.linalg.norm(pre.solve(B) - ref) / np.linalg.norm(ref)
    assert err < 1e-10
    # against NumPy's dense solve, to its own accuracy (cond * eps, normwise)
    dense = np.linalg.solve(P, B)
    assert np.linalg.norm(pre.solve(B) - dense) / np.linalg.norm(dense) < 1e-5
    # the residual is tiny relative to |P| |x| (backward stability)
    x = pre.solve(B)
    res = np.linalg.norm(P @ x - B) / (np.linalg.norm(P, 2) * np.linalg.norm(x))
    assert res < 1e-12
    assert pre.logdet() == pytest.approx(np.linalg.slogdet(P)[1], rel=1e-8)


def test_a_factor_wider_than_n_solves_with_P_itself() -> None:
    # 300 random features on 40 points: R^T R = P (40 x 40), no 300 x 300 triangle
    X = _X(40, d=3)
    pre = RandomFeaturePreconditioner(300, random_state=0).fit(RBF(), X, 1e-3)
    assert pre.factor_.shape == (40, 300) and pre.triangular_.shape == (40, 40)
    P = _dense(pre)
    B = np.random.default_rng(1).standard_normal((40, 2))
    np.testing.assert_allclose(pre.solve(B), np.linalg.solve(P, B), rtol=1e-9)
    np.testing.assert_allclose(pre.triangular_.T @ pre.triangular_, P, rtol=1e-12, atol=1e-12)
    assert pre.logdet() == pytest.approx(np.linalg.slogdet(P)[1], rel=1e-12)


def test_from_factor_and_an_empty_factor() -> None:
    L = np.random.default_rng(0).standard_normal((30, 4))
    pre = Preconditioner.from_factor(L, 0.5)
    assert pre.rank_ == 4 and pre.noise_ == 0.5
    np.testing.assert_allclose(pre.solve(np.ones(30)), np.linalg.solve(_dense(pre), np.ones(30)))
    # a zero kernel leaves nothing to pivot on: P = noise I
    zero = PivotedCholesky(rank=5).fit(0.0 * RBF(), _X(20), 0.25)
    assert zero.factor_.shape == (20, 0) and zero.rank_ == 0
    np.testing.assert_allclose(zero.solve(np.ones(20)), 4.0 * np.ones(20))
    assert zero.logdet() == pytest.approx(20 * np.log(0.25))
    empty = Preconditioner.from_factor(np.zeros((10, 0)), 2.0)
    np.testing.assert_allclose(empty.matmat(np.ones(10)), 2.0 * np.ones(10))


# ---------------------------------------------------------------------- the factors
def test_pivoted_cholesky_at_full_rank_reproduces_K() -> None:
    X = _X(60)
    kernel = RBF(0.3)  # short lengthscale: K is well conditioned, all 60 pivots are taken
    pre = PivotedCholesky(rank=60, tol=0.0).fit(kernel, X, NOISE)
    K = kernel(X)
    assert pre.rank_ == 60
    np.testing.assert_allclose(pre.factor_ @ pre.factor_.T, K, atol=1e-12)
    assert sorted(pre.pivots_) == list(range(60))
    # lower triangular in pivot order
    np.testing.assert_array_equal(np.triu(pre.factor_[pre.pivots_], 1), 0.0)
    # a smooth kernel is numerically low-rank: the factorisation stops at round-off, exact
    smooth = PivotedCholesky(rank=200, tol=0.0).fit(RBF(3.0), X, NOISE)
    assert smooth.rank_ < 60
    np.testing.assert_allclose(smooth.factor_ @ smooth.factor_.T, RBF(3.0)(X), atol=1e-12)


def test_pivoted_cholesky_residual_trace_decreases_with_rank() -> None:
    X = _X(150)
    kernel = Matern(0.7, nu=2.5)
    K = kernel(X)
    traces = []
    for rank in range(1, 41, 3):
        pre = PivotedCholesky(rank=rank, tol=0.0).fit(kernel, X, NOISE)
        assert pre.rank_ == rank
        trace = np.trace(K - pre.factor_ @ pre.factor_.T)
        assert pre.residual_trace_ == pytest.approx(trace, rel=1e-9, abs=1e-12)
        traces.append(trace)
    assert np.all(np.diff(traces) < 0)
    # greedy: each factor is the first columns of the next
    big = PivotedCholesky(rank=40, tol=0.0).fit(kernel, X, NOISE)
    small = PivotedCholesky(rank=10, tol=0.0).fit(kernel, X, NOISE)
    np.testing.assert_allclose(big.factor_[:, :10], small.factor_)


def test_pivoted_cholesky_stops_at_tol() -> None:
    X = _X(300)
    K = RBF()(X)
    pre = PivotedCholesky(rank=300, tol=1e-3).fit(RBF(), X, NOISE)
    assert pre.rank_ < 300
    assert pre.residual_trace_ <= 1e-3 * np.trace(K)
    one_less = PivotedCholesky(rank=pre.rank_ - 1, tol=0.0).fit(RBF(), X, NOISE)
    assert one_less.residual_trace_ > 1e-3 * np.trace(K)  # the first rank that meets it


def test_pivoted_cholesky_equals_nystrom_on_its_pivots() -> None:
    X = _X(100)
    pre = PivotedCholesky(rank=15).fit(RBF(), X, NOISE)
    K = RBF()(X)
    p = pre.pivots_
    approx = K[:, p] @ np.linalg.solve(K[np.ix_(p, p)], K[p])
    np.testing.assert_allclose(pre.factor_ @ pre.factor_.T, approx, atol=1e-9)


@pytest.mark.parametrize("centres", ["uniform", "leverage"])
def test_nystrom_with_all_centres_equals_K(centres) -> None:
    X = _X(80)
    kernel = RBF(0.5)
    pre = Nystrom(rank=500, centres=centres, random_state=0).fit(kernel, X, NOISE)  # clipped
    np.testing.assert_array_equal(pre.centre_indices_, np.arange(80))
    np.testing.assert_allclose(pre.factor_ @ pre.factor_.T, kernel(X), atol=1e-10)


def test_nystrom_factor_is_the_nystrom_approximation() -> None:
    X = _X(120)
    pre = Nystrom(rank=20, random_state=3).fit(RBF(), X, NOISE)
    c = pre.centre_indices_
    assert len(np.unique(c)) == 20
    K = RBF()(X)
    approx = K[:, c] @ np.linalg.solve(K[np.ix_(c, c)], K[c])
    np.testing.assert_allclose(pre.factor_ @ pre.factor_.T, approx, atol=1e-8)


def test_nystrom_drops_duplicate_centres() -> None:
    X = np.repeat(_X(10), 3, axis=0)  # every point three times
    pre = Nystrom(rank=30).fit(RBF(), X, NOISE)
    assert pre.rank_ == 10  # K_mm has rank 10
    np.testing.assert_allclose(pre.factor_ @ pre.factor_.T, RBF()(X), atol=1e-10)


def test_leverage_scores_with_all_points_are_exact() -> None:
    X = _X(60)
    K = RBF(0.8)(X)
    exact = np.diag(K @ np.linalg.inv(K + NOISE * np.eye(60)))
    approx = preconditioners._ridge_leverage_scores(RBF(0.8), X, NOISE, np.arange(60))
    np.testing.assert_allclose(approx, exact, rtol=1e-6, atol=1e-8)


def test_leverage_sampling_favours_isolated_points() -> None:
    rng = np.random.default_rng(0)
    X = np.vstack([0.05 * rng.standard_normal((280, 2)), 5 + 3 * rng.standard_normal((20, 2))])
    counts = np.zeros(300)
    for seed in range(20):
        pre = Nystrom(rank=30, centres="leverage", random_state=seed).fit(RBF(), X, NOISE)
        counts[pre.centre_indices_] += 1
        assert pre.leverage_scores_[280:].mean() > 10 * pre.leverage_scores_[:280].mean()
    # uniform centres would put 10% of the draws on the 20 isolated points
    assert counts[280:].sum() / counts.sum() > 0.3


def test_random_features_follow_the_kernel_hyperparameters() -> None:
    X = _X(40, d=3)
    for kernel in [
        2.0 * RBF(1.5),
        Constant(3.0) * Matern(1.2, nu=1.5),
        Laplace([0.5, 1.0, 2.0], variance=0.7),
        0.5 * (4.0 * RBF([1.0, 2.0, 3.0])),
    ]:
        pre = RandomFeaturePreconditioner(20000, random_state=0).fit(kernel, X, NOISE)
        assert np.abs(pre.factor_ @ pre.factor_.T - kernel(X)).max() < 0.1 * kernel(X).max()
        np.testing.assert_allclose(pre.feature_map_.transform(X), pre.factor_)


@pytest.mark.parametrize("coupling", ["iid", "orthogonal"])
def test_random_feature_error_follows_the_theory(coupling) -> None:
    # Monte Carlo over 300 seeds: the mean squared error of Phi Phi^T against K, pooled
    # over all pairs of 10 points, is within 15% of the closed-form MSE (Rowland 2018
    # Props. 7.15, 7.17), for D = 8, 32 and 128 columns: the 1/D rate and its constant
    X = _X(10, d=4, seed=5)
    kernel = RBF(1.5)
    K = kernel(X)
    iu = np.triu_indices(10, 1)
    z = np.linalg.norm(X[iu[0]] - X[iu[1]], axis=1)
    emp = {}
    for width in (8, 32, 128):
        sq = np.zeros(z.shape)
        for seed in range(300):
            pre = RandomFeaturePreconditioner(width, coupling=coupling, random_state=seed)
            L = pre.fit(kernel, X, NOISE).factor_
            sq += ((L @ L.T - K)[iu]) ** 2
        emp[width] = sq / 300
        m = width // 2
        if coupling == "iid":
            theory = mse_rff_iid(kernel, z, m)
        else:
            theory = mse_rff_orthogonal(kernel, z, m, d=4)
        assert emp[width].sum() / theory.sum() == pytest.approx(1.0, abs=0.15)
    # the rate: four times the width, a quarter of the error
    assert emp[8].sum() / emp[32].sum() == pytest.approx(4.0, rel=0.2)
    assert emp[32].sum() / emp[128].sum() == pytest.approx(4.0, rel=0.2)


def test_the_width_rule_meets_its_target() -> None:
    X = _X(400, d=9, seed=3)
    kernel = RBF(4.0)  # about the median distance of 9-D standard normal data
    for coupling, block in [("iid", 1), ("orthogonal", 9), ("hadamard", 16)]:
        pre = RandomFeaturePreconditioner(coupling=coupling, random_state=0)
        pre.fit(kernel, X, NOISE)
        assert pre.rank_ % (2 * block) == 0
        assert pre.predicted_mse_ <= 0.05**2
        assert 0.8 < pre.distance_ < 1.3  # the median distance in lengthscales
        # the smallest whole number of blocks meeting the target
        m = pre.rank_ // 2 - block
        if m > 0:
            unit = RBF()
            mse = (
                mse_rff_iid(unit, pre.distance_, m)
                if coupling == "iid"
                else mse_rff_orthogonal(unit, pre.distance_, m, d=9)
            )
            assert mse > 0.05**2
    tight = RandomFeaturePreconditioner(tol=0.01, random_state=0).fit(kernel, X, NOISE)
    assert tight.rank_ > pre.rank_
    capped = RandomFeaturePreconditioner(tol=1e-3, max_components=300, random_state=0)
    assert capped.fit(kernel, X, NOISE).rank_ <= 300
    assert capped.predicted_mse_ > 1e-3**2


# ---------------------------------------------------------------------- conditioning
@pytest.mark.parametrize(
    "make",
    [
        lambda: PivotedCholesky(rank=60),
        lambda: Nystrom(rank=60, random_state=0),
        lambda: Nystrom(rank=60, centres="leverage", random_state=0),
        lambda: RandomFeaturePreconditioner(random_state=0),
    ],
)
def test_preconditioning_reduces_the_condition_number(make) -> None:
    X = np.random.default_rng(0).uniform(-2, 2, size=(500, 2))
    kernel = RBF(1.0)
    K_hat = kernel(X) + NOISE * np.eye(500)
    pre = make().fit(kernel, X, NOISE)
    # eigenvalues of P^{-1/2} K_hat P^{-1/2}: the generalised problem K_hat v = lambda P v
    ev = scipy.linalg.eigh(K_hat, _dense(pre), eigvals_only=True)
    ev0 = np.linalg.eigvalsh(K_hat)
    cond, cond0 = ev[-1] / ev[0], ev0[-1] / ev0[0]
    assert cond0 > 1e4
    assert cond < cond0 / 50


# ---------------------------------------------------------------------- sampling
def test_samples_have_covariance_P() -> None:
    X = _X(6)
    pre = Nystrom(rank=3, random_state=0).fit(RBF(), X, 0.3)
    S = pre.sample(200_000, random_state=0)
    assert S.shape == (6, 200_000)
    cov = S @ S.T / S.shape[1]
    P = _dense(pre)
    # each entry has standard deviation sqrt((P_ii P_jj + P_ij^2) / N) <= 0.0045 max P_ii;
    # five of them
    np.testing.assert_allclose(cov, P, atol=5 * np.sqrt(2 / 200_000) * P.diagonal().max())
    np.testing.assert_allclose(S.mean(axis=1), 0.0, atol=0.02)
    np.testing.assert_array_equal(pre.sample(3, random_state=1), pre.sample(3, random_state=1))


# ---------------------------------------------------------------------- reproducibility
@pytest.mark.parametrize(
    "make",
    [
        lambda seed: Nystrom(rank=20, random_state=seed),
        lambda seed: Nystrom(rank=20, centres="leverage", random_state=seed),
        lambda seed: RandomFeaturePreconditioner(random_state=seed),
        lambda seed: RandomFeaturePreconditioner(32, coupling="hadamard", random_state=seed),
    ],
)
@pytest.mark.filterwarnings("ignore:coupling='hadamard' with 2 input features")
def test_random_state_makes_fits_reproducible(make) -> None:
    X = _X(700)  # beyond the 500 rows of the median-distance subsample
    a = make(7).fit(RBF(), X, NOISE)
    b = make(7).fit(RBF(), X, NOISE)
    c = make(8).fit(RBF(), X, NOISE)
    np.testing.assert_array_equal(a.factor_, b.factor_)
    assert a.factor_.shape != c.factor_.shape or not np.array_equal(a.factor_, c.factor_)
    rs = make(np.random.RandomState(7)).fit(RBF(), X, NOISE)
    np.testing.assert_array_equal(rs.factor_, a.factor_)


def test_pivoted_cholesky_is_deterministic_and_keeps_its_arguments() -> None:
    X = _X(100)
    pre = PivotedCholesky(rank=10, tol=0.0)
    np.testing.assert_array_equal(
        pre.fit(RBF(), X, NOISE).factor_, pre.fit(RBF(), X, NOISE).factor_
    )
    assert pre.get_params() == {"rank": 10, "tol": 0.0}
    assert repr(Nystrom(rank=5)) == "Nystrom(rank=5)"


def test_float32_and_named_kernels() -> None:
    X = _X(50).astype(np.float32)
    pre = PivotedCholesky(rank=10).fit("matern32", X, NOISE)
    assert pre.factor_.dtype == np.float64
    ref = PivotedCholesky(rank=10).fit(Matern(nu=1.5), X.astype(np.float64), NOISE)
    np.testing.assert_allclose(pre.factor_, ref.factor_, atol=1e-12)


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("noise", [0.0, -1.0, np.nan, np.inf])
def test_noise_must_be_positive(noise) -> None:
    for pre in (PivotedCholesky(5), Nystrom(5), RandomFeaturePreconditioner(8)):
        with pytest.raises(ValueError, match=r"noise must be finite and > 0.*Woodbury"):
            pre.fit(RBF(), _X(20), noise)
    with pytest.raises(ValueError, match="noise must be finite and > 0"):
        Preconditioner.from_factor(np.ones((5, 2)), noise)


@pytest.mark.parametrize("noise", ["0.1", None, True, np.array([0.1, 0.2])])
def test_noise_must_be_a_number(noise) -> None:
    with pytest.raises(TypeError, match="noise must be a number"):
        PivotedCholesky(5).fit(RBF(), _X(20), noise)


@pytest.mark.parametrize(
    "pre, exc, match",
    [
        (PivotedCholesky(rank=0), ValueError, "rank must be >= 1"),
        (PivotedCholesky(rank=2.5), TypeError, "rank must be an integer"),
        (PivotedCholesky(tol=-1.0), ValueError, "tol must be finite and >= 0"),
        (Nystrom(rank=0), ValueError, "rank must be >= 1"),
        (Nystrom(centres="kmeans"), ValueError, "centres must be one of 'uniform', 'leverage'"),
        (RandomFeaturePreconditioner(0), ValueError, "n_components must be >= 1"),
        (RandomFeaturePreconditioner(coupling="gaussian"), ValueError, "coupling must be one of"),
        (RandomFeaturePreconditioner(tol=0.0), ValueError, "tol must be > 0"),
        (RandomFeaturePreconditioner(max_components=1), ValueError, "max_components must be"),
        (Nystrom(random_state="x"), TypeError, "random_state"),
    ],
)
def test_bad_parameters(pre, exc, match) -> None:
    with pytest.raises(exc, match=match):
        pre.fit(RBF(), _X(20), NOISE)


def test_rank_beyond_n_is_clipped() -> None:
    X = _X(15)
    assert PivotedCholesky(rank=100, tol=0.0).fit(RBF(0.2), X, NOISE).rank_ == 15
    assert Nystrom(rank=100).fit(RBF(0.2), X, NOISE).factor_.shape == (15, 15)


def test_bad_inputs() -> None:
    X = _X(20)
    X[3, 1] = np.nan
    for pre in (PivotedCholesky(5), Nystrom(5), RandomFeaturePreconditioner(8)):
        with pytest.raises(ValueError, match="X contains NaN or infinity"):
            pre.fit(RBF(), X, NOISE)
    with pytest.raises(ValueError, match="X must be 2-dimensional"):
        PivotedCholesky(5).fit(RBF(), np.ones(5), NOISE)
    with pytest.raises(ValueError, match="lengthscale has 3 entries but X has 2 features"):
        PivotedCholesky(5).fit(RBF([1.0, 1.0, 1.0]), _X(20), NOISE)
    with pytest.raises(ValueError, match="lengthscale has 3 entries but X has 2 features"):
        RandomFeaturePreconditioner(8).fit(RBF([1.0, 1.0, 1.0]), _X(20), NOISE)
    with pytest.raises(ValueError, match="kernel must be a Kernel object or one of"):
        PivotedCholesky(5).fit("no-such-kernel", _X(20), NOISE)


@pytest.mark.parametrize(
    "kernel", [RationalQuadratic(), Sinc(), Linear(), Angular(), RBF() + RBF(), RBF() * Matern()]
)
def test_random_features_refuse_other_kernels(kernel) -> None:
    with pytest.raises(TypeError, match=r"RBF, Matern or Laplace.*Use PivotedCholesky or Nystrom"):
        RandomFeaturePreconditioner().fit(kernel, _X(20), NOISE)
    PivotedCholesky(5).fit(kernel, _X(20), NOISE)  # which take any kernel on vectors
    Nystrom(5, random_state=0).fit(kernel, _X(20), NOISE)


def test_solve_and_sample_check_their_arguments() -> None:
    pre = PivotedCholesky(5).fit(RBF(), _X(20), NOISE)
    with pytest.raises(ValueError, match=r"B must have shape \(20,\) or \(20, r\)"):
        pre.solve(np.ones(19))
    with pytest.raises(ValueError, match=r"B must have shape"):
        pre.matmat(np.ones((20, 2, 2)))
    with pytest.raises(ValueError, match="B contains NaN"):
        pre.solve(np.full(20, np.nan))
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        pre.sample(0)
    with pytest.raises(NotFittedError):
        PivotedCholesky().solve(np.ones(3))
    with pytest.raises(NotImplementedError, match="base class"):
        Preconditioner().fit(RBF(), _X(5), NOISE)


# ---------------------------------------------------------------------- memory
@pytest.mark.parametrize("make", ALL)
def test_memory_is_linear_in_n(make) -> None:
    n = 300
    pre = make().fit(RBF(), _X(n), NOISE)
    k = pre.rank_
    assert pre.factor_.shape == (n, k) and k < n
    held = [v for name, v in vars(pre).items() if isinstance(v, np.ndarray) and name != "factor_"]
    assert all(a.size <= k * k or a.size <= 2 * n for a in held)  # nothing n x n
    assert pre.triangular_.shape == (k, k)
    assert pre.nbytes >= pre.factor_.nbytes
    assert pre.nbytes <= 8 * (n * k + k * k + 2 * n) + 8 * 64 * 2 * k  # + random parameters


def test_memory_guard_refuses_a_factor_beyond_the_machine(monkeypatch) -> None:
    monkeypatch.setattr(_memory, "memory_limit", lambda: 100_000)
    X = _X(300)
    msg = r"PivotedCholesky\(rank=100\): a factor of shape \(300, 100\).*would need about"
    with pytest.raises(ValueError, match=msg):
        PivotedCholesky(rank=100).fit(RBF(), X, NOISE)
    with pytest.raises(ValueError, match=r"Nystrom\(rank=100\).*ask for a smaller rank"):
        Nystrom(rank=100).fit(RBF(), X, NOISE)
    with pytest.raises(ValueError, match=r"RandomFeaturePreconditioner\(n_components=100\)"):
        RandomFeaturePreconditioner(100).fit(RBF(), X, NOISE)
    PivotedCholesky(rank=10).fit(RBF(), X, NOISE)  # 24 KB fits


def test_docstring_examples(run_doctests) -> None:
    result = run_doctests(preconditioners)
    assert result.attempted > 10 and result.failed == 0
