"""GaussianProcessRegressor(solver="cg"): the matrix-free GP agrees with the Cholesky GP,
its stochastic gradient is the gradient of its estimator, and it never forms n x n."""

from __future__ import annotations

import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from kernelkit.kernels import RBF, Matern, RationalQuadratic
from kernelkit.linalg import KernelOperator, mbcg
from kernelkit.linalg.preconditioners import PivotedCholesky
from kernelkit.models import GaussianProcessRegressor
from kernelkit.models._gp_krylov import krylov_likelihood


def _data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, d))
    y = np.sin(X).sum(1) + 0.1 * rng.standard_normal(n)
    return X, y


def _pair(kernel, X, y, **cg):
    dense = GaussianProcessRegressor(kernel, noise=0.05, optimizer=None, solver="cholesky")
    it = GaussianProcessRegressor(kernel, noise=0.05, optimizer=None, solver="cg", **cg)
    return dense.fit(X, y), it.fit(X, y)


@pytest.mark.parametrize(
    "kernel",
    [
        RBF(lengthscale=np.array([0.8, 1.3, 2.0])),
        Matern(nu=1.5, lengthscale=1.0, variance=2.0),
        RationalQuadratic(lengthscale=0.7, shape=2.0),
    ],
    ids=["rbf-ard", "matern32", "rq"],
)
@pytest.mark.parametrize("preconditioner", [None, "pivoted_cholesky", "nystrom", "random_features"])
def test_fixed_hyperparameters_agree_with_cholesky(kernel, preconditioner) -> None:
    if preconditioner == "random_features" and isinstance(kernel, RationalQuadratic):
        pytest.skip("no random features for the rational quadratic kernel")
    X, y = _data(250, 3)
    Xt = _data(100, 3, seed=1)[0]
    dense, it = _pair(kernel, X, y, tol=1e-8, preconditioner=preconditioner, random_state=0)
    m0, s0 = dense.predict(Xt, return_std=True)
    m1, s1 = it.predict(Xt, return_std=True)
    assert np.max(np.abs(m1 - m0)) < 1e-6 * np.std(y)
    np.testing.assert_allclose(s1**2, s0**2, rtol=0.01, atol=1e-6 * np.var(y))
    # the stochastic LML with 16 probes, within a few of its standard errors
    exact = dense.log_marginal_likelihood_value_
    assert abs(it.log_marginal_likelihood_value_ - exact) < 5 * it.logdet_standard_error_ + 1e-6
    assert it.converged_ and it.cg_result_.converged and np.all(it.cg_result_.tol == 1e-8)
    assert 0.0 <= it.love_.complement <= 1.0 and it.love_.error <= 0.005
    assert it.n_kernel_passes_ > 0


def test_covariance_agrees_with_cholesky() -> None:
    X, y = _data(300, 2)
    Xt = _data(20, 2, seed=3)[0]
    dense, it = _pair(RBF(lengthscale=0.9), X, y, tol=1e-10)
    c0 = dense.predict(Xt, return_cov=True)[1]
    c1 = it.predict(Xt, return_cov=True)[1]
    np.testing.assert_allclose(c1, c0, atol=0.01 * np.max(np.diag(c0)))


def test_gradient_is_the_gradient_of_the_estimator_with_exact_probes() -> None:
    """With n probes (exact) and tight solves, the stochastic LML is the LML, and its
    gradient matches central finite differences of the same estimator."""
    X, y = _data(60, 2)
    n = len(X)
    W = np.sqrt(n) * np.eye(n)
    kernel = Matern(nu=2.5, lengthscale=np.array([0.7, 1.4]), variance=1.3)

    def value(theta: np.ndarray) -> tuple[float, np.ndarray]:
        k = kernel.clone()
        k.theta = theta[:-1]
        op = KernelOperator(k, X, float(np.exp(theta[-1])))
        est = krylov_likelihood(
            op, y, W, None, fit_noise=True, eval_gradient=True, tol=1e-12, max_iter=500
        )
        return est.value, est.gradient

    theta = np.append(kernel.theta, np.log(0.05))
    v, g = value(theta)
    dense = GaussianProcessRegressor(kernel, noise=0.05, optimizer=None, solver="cholesky")
    dense.fit(X, y)
    assert v == pytest.approx(dense.log_marginal_likelihood_value_, rel=1e-9)
    h = 1e-5
    fd = [(value(theta + h * e)[0] - value(theta - h * e)[0]) / (2 * h) for e in np.eye(theta.size)]
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6)


def test_stochastic_gradient_is_unbiased() -> None:
    """Seeded Monte Carlo over 60 probe sets of 8: the mean gradient is within 4 standard
    errors of the exact gradient, entry by entry, with and without a preconditioner."""
    X, y = _data(150, 2)
    kernel = RBF(lengthscale=np.array([0.8, 1.2]))
    theta = np.append(kernel.theta, np.log(0.05))
    dense = GaussianProcessRegressor(kernel, noise=0.05, optimizer=None, solver="cholesky")
    exact = dense.fit(X, y).log_marginal_likelihood(theta, eval_gradient=True)[1]
    for precond in (None, PivotedCholesky(rank=20)):
        grads = []
        for seed in range(60):
            W = np.random.default_rng(seed).choice([-1.0, 1.0], size=(150, 8))
            op = KernelOperator(kernel, X, 0.05)
            M = None if precond is None else clone(precond).fit(kernel, X, 0.05)
            est = krylov_likelihood(
                op, y, W, M, fit_noise=True, eval_gradient=True, tol=1e-10, max_iter=500
            )
            grads.append(est.gradient)
        G = np.array(grads)
        se = G.std(axis=0, ddof=1) / np.sqrt(len(G))
        assert np.all(np.abs(G.mean(axis=0) - exact) < 4 * se + 1e-8)


def test_fit_reaches_the_cholesky_optimum() -> None:
    X, y = _data(200, 3, seed=4)
    kw = dict(kernel=RBF(lengthscale=np.ones(3)), normalize_y=True, random_state=0)
    dense = GaussianProcessRegressor(solver="cholesky", **kw).fit(X, y)
    it = GaussianProcessRegressor(solver="cg", n_probes=32, tol=1e-6, **kw).fit(X, y)
    # the CG fit's hyperparameters, scored by the exact likelihood
    at_cg = dense.log_marginal_likelihood(it.theta_)
    best = dense.log_marginal_likelihood_value_
    assert at_cg > best - 1e-2 * abs(best) - 1.0
    Xt = _data(100, 3, seed=5)[0]
    assert np.sqrt(np.mean((it.predict(Xt) - dense.predict(Xt)) ** 2)) < 0.05 * np.std(y)


def test_pretraining_on_a_subset_then_refining() -> None:
    X, y = _data(400, 2, seed=6)
    kw = dict(kernel=RBF(lengthscale=np.ones(2)), solver="cg", tol=1e-5, random_state=1)
    # refine_steps=0: the hyperparameters of the Cholesky fit on the subset, as they are,
    # with no likelihood evaluation besides the final solve's
    gp0 = GaussianProcessRegressor(pretrain_size=150, refine_steps=0, **kw).fit(X, y)
    np.testing.assert_array_equal(gp0.theta_, gp0.pretrain_theta_)
    assert gp0.optimizer_result_.nfev == 0 and not gp0.optimizer_result_.success
    assert gp0.optimizer_result_.fun == -gp0.log_marginal_likelihood_value_
    # the subset's hyperparameters are already near the full data's optimum
    dense = GaussianProcessRegressor(RBF(lengthscale=np.ones(2)), solver="cholesky").fit(X, y)
    at_pretrained = dense.log_marginal_likelihood(gp0.pretrain_theta_)
    assert at_pretrained > dense.log_marginal_likelihood(np.zeros(4)) + 10.0
    # two full-data steps from there: never below the start (same probes: one objective)
    gp2 = GaussianProcessRegressor(pretrain_size=150, refine_steps=2, **kw).fit(X, y)
    np.testing.assert_array_equal(gp2.pretrain_theta_, gp0.pretrain_theta_)
    assert gp2.optimizer_result_.nit <= 2
    assert gp2.optimizer_result_.fun <= gp2.optimizer_result_.fun0
    assert gp2.log_marginal_likelihood_value_ >= gp0.log_marginal_likelihood_value_ - 1e-6
    # pretrain_size >= n: an ordinary fit
    full = GaussianProcessRegressor(pretrain_size=400, **kw).fit(X, y)
    assert full.pretrain_theta_ is None


def test_auto_solver_switches_on_n() -> None:
    X, y = _data(50, 2)
    gp = GaussianProcessRegressor(optimizer=None).fit(X, y)
    assert gp.solver_ == "cholesky"
    gp = GaussianProcessRegressor(optimizer=None, solver="cg").fit(X, y)
    assert gp.solver_ == "cg"


def test_clone_pickle_and_repeatability() -> None:
    X, y = _data(80, 2)
    gp = GaussianProcessRegressor(RBF(), solver="cg", random_state=3, tol=1e-3).fit(X, y)
    again = clone(gp).fit(X, y)
    np.testing.assert_array_equal(gp.theta_, again.theta_)
    back = pickle.loads(pickle.dumps(gp))
    np.testing.assert_array_equal(back.predict(X[:5]), gp.predict(X[:5]))


def test_cg_not_converging_warns() -> None:
    X, y = _data(200, 2)
    gp = GaussianProcessRegressor(
        RBF(lengthscale=3.0),
        noise=1e-6,
        optimizer=None,
        solver="cg",
        preconditioner=None,
        max_iter=3,
    )
    with pytest.warns(ConvergenceWarning, match="relative residual"):
        gp.fit(X, y)
    assert not gp.cg_result_.converged


def test_kernels_on_objects_are_refused_with_cg() -> None:
    from kernelkit.kernels import Precomputed

    gp = GaussianProcessRegressor(Precomputed(np.eye(3)), solver="cg")
    with pytest.raises(TypeError, match="solver='cg'"):
        gp.fit(np.arange(3)[:, None], np.ones(3))


@pytest.mark.parametrize(
    "param, value, match",
    [
        ("solver", "lu", "solver"),
        ("preconditioner", "jacobi", "preconditioner"),
        ("n_probes", 0, "n_probes"),
        ("tol", 0.0, "tol"),
        ("max_iter", 0, "max_iter"),
    ],
)
def test_bad_parameters(param: str, value, match: str) -> None:
    X, y = _data(20, 1)
    with pytest.raises((ValueError, TypeError), match=match):
        GaussianProcessRegressor(**{param: value}).fit(X, y)


def test_memory_stays_bounded() -> None:
    """A pass over K at n = 20000 holds blocks, never n x n: tracemalloc's peak is below
    5 % of n^2 * 8 bytes (3.2 GB)."""
    n = 20_000
    X, y = _data(n, 3)
    op = KernelOperator(RBF(), X, 0.1)
    M = PivotedCholesky(rank=50).fit(RBF(), X, 0.1)
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            mbcg(op.matmat, np.column_stack([y, np.ones(n)]), preconditioner=M, max_iter=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.05 * n * n * 8


@pytest.mark.slow
def test_fit_and_predict_at_n_20000_stay_bounded() -> None:
    """What a CG fit holds is vectors of length n, never an n x n matrix: the preconditioner's
    factor (rank), the final solve's 7 (probes + 33) and the LOVE basis (up to
    LOVE_BLOCK max_iter), besides the blocks of K in flight (512 x 512, two or so per thread) and
    prediction's blocks of test points. The issue's target: below 5 % of n^2 * 8 bytes at
    n = 20000, here with rank 100 and max_iter 6 (the defaults take rank up to 1000 and a
    basis up to 1 GiB: more memory for fewer passes, still O(n)). Measured: 151 MB (it was
    268 MB with 2048 x 2048 blocks, the basis copied as it grew, and the preconditioner's
    eigenvectors held beside its factor)."""
    n = 20_000
    X, y = _data(n, 3)
    gp = GaussianProcessRegressor(
        RBF(lengthscale=np.ones(3)),
        noise=0.01,
        optimizer=None,
        solver="cg",
        preconditioner=PivotedCholesky(rank=100),
        tol=1e-3,
        max_iter=6,
        random_state=0,
    )
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # the capped variance cache
            gp.fit(X, y)
            gp.predict(X[:1000], return_std=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    vectors = 100 + 7 * (gp.n_probes + 33) + gp.love_.Q.shape[1]
    assert peak < 0.05 * n * n * 8
    assert peak < 1.5 * 8 * n * vectors  # the accounting above, with room for blocks


def test_pathwise_samples_have_the_posterior_moments() -> None:
    """Seeded Monte Carlo: 4000 pathwise samples at 5 points have the predictive mean
    (within 4 standard errors plus the random-feature prior's bias, 2 % of the prior sd)
    and variance (within 15 %: sampling error ~4.5 % plus the 2048-feature prior's)."""
    X, y = _data(200, 2)
    gp = GaussianProcessRegressor(
        RBF(lengthscale=0.8), noise=0.05, optimizer=None, solver="cg", tol=1e-8
    ).fit(X, y)
    Xs = _data(5, 2, seed=7)[0]
    mean, std = gp.predict(Xs, return_std=True)
    S = gp.sample_y(Xs, n_samples=4000, random_state=0)
    assert S.shape == (5, 4000)
    se = std / np.sqrt(4000)
    assert np.all(np.abs(S.mean(axis=1) - mean) < 4 * se + 0.02)
    np.testing.assert_allclose(S.var(axis=1), std**2, rtol=0.15)
    again = gp.sample_y(Xs, n_samples=3, random_state=1)
    np.testing.assert_array_equal(again, gp.sample_y(Xs, n_samples=3, random_state=1))


def test_love_check_reference_has_no_cancellation() -> None:
    """The check's reference ``noise - noise^2 (K_y^-1)_ii``, solved by CG to 1e-4, equals
    the Cholesky variance at training inputs to 1e-3, on a smooth problem where the
    posterior is tight (variance ~1e-3 of the prior)."""
    from kernelkit.linalg.preconditioners import PivotedCholesky as PC
    from kernelkit.models._gp_krylov import LOVE_CHECK_TOL, love_check_rows, unit_columns

    X, _ = _data(600, 2)
    kernel, noise = RBF(lengthscale=np.full(2, 2.0)), 1e-3
    op = KernelOperator(kernel, X, noise)
    idx, rows = love_check_rows(op, 0)
    M = PC(rank=50).fit(kernel, X, noise)
    u = mbcg(op.matmat, unit_columns(len(X), idx), preconditioner=M, tol=LOVE_CHECK_TOL)
    ref = noise - noise**2 * u.solution[idx, np.arange(idx.size)]
    K = kernel(X) + noise * np.eye(len(X))
    exact = kernel.diag(X[idx]) - np.einsum("ij,ji->i", rows, np.linalg.solve(K, rows.T))
    assert np.max(exact / kernel.diag(X[idx])) < 1e-2  # tight: where cancellation bites
    np.testing.assert_allclose(ref, exact, rtol=1e-3)


def test_log_marginal_likelihood_at_theta_reuses_the_fits_preconditioner() -> None:
    """With a random preconditioner (random features), the recomputed stochastic LML at
    theta_ is the fit's own value: the same probes and the same preconditioner seed (a
    different seed gives a different estimate, so this can fail)."""
    X, y = _data(300, 2)
    gp = GaussianProcessRegressor(
        RBF(lengthscale=0.8),
        noise=0.05,
        optimizer=None,
        solver="cg",
        preconditioner="random_features",
        tol=1e-10,
        random_state=3,
    ).fit(X, y)
    value, grad = gp.log_marginal_likelihood(gp.theta_, eval_gradient=True)
    assert value == pytest.approx(gp.log_marginal_likelihood_value_, rel=1e-8)
    assert np.isfinite(grad).all()
