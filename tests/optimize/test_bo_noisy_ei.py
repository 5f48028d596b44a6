"""qNEI / qLogNEI by quasi-Monte Carlo and greedy batches (kernelkit.optimize.noisy_ei).

Tolerances: a Monte Carlo comparison allows 5 standard errors. The improvement
``max(0, g(x) - c)`` is 1-Lipschitz in ``g(x)``, so its standard deviation is at most the
posterior standard deviation ``sigma(x)``: ``5 sigma / sqrt(N)`` bounds the error of a
plain Monte Carlo average of ``N`` draws, and the scrambled Sobol estimate does far better
(measured: about 1e-3 of that bound for ``q = 1``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from kernelkit.kernels import Matern
from kernelkit.models import GaussianProcessRegressor
from kernelkit.optimize import BayesianOptimizer, ExpectedImprovement, get_function, sobol_points
from kernelkit.optimize.noisy_ei import (
    NoisyBatch,
    QNoisyExpectedImprovement,
    q_noisy_expected_improvement,
    suggest_noisy_batch,
)


def _objective(X):
    return np.sin(5.0 * X[:, 0]) + X[:, 1] ** 2


def _gp(*, n=12, noise=1e-10, seed=0, noisy=False):
    """A GP on ``[0, 1]^2`` with fixed hyperparameters (tiny noise: noise-free data)."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, 2))
    y = _objective(X) + (0.1 * rng.randn(n) if noisy else 0.0)
    gp = GaussianProcessRegressor(
        Matern(lengthscale=0.4),
        noise=noise,
        noise_bounds="fixed",
        normalize_y=True,
        optimizer=None,
    )
    return gp.fit(X, y), X, y, rng


def _mc_improvements(gp, X_batch, X_baseline, *, maximize, n_draws, seed):
    """Plain Monte Carlo draws of ``max(0, max_j g(x_j) - max_i g(b_i))`` from the joint
    posterior of ``gp.predict(..., return_cov=True)`` (an independent path)."""
    q = X_batch.shape[0]
    mean, cov = gp.predict(np.vstack([X_batch, X_baseline]), return_cov=True)
    draws = np.random.default_rng(seed).multivariate_normal(mean, cov, n_draws, method="eigh")
    g = draws if maximize else -draws
    return np.maximum(g[:, :q].max(axis=1) - g[:, q:].max(axis=1), 0.0)


# ------------------------------------------------------------------ correctness
@pytest.mark.parametrize("maximize", [False, True])
def test_q1_without_noise_equals_analytic_ei(maximize):
    gp, X, y, rng = _gp()
    sign = 1.0 if maximize else -1.0
    Xc = rng.uniform(size=(400, 2))
    mean, std = gp.predict(Xc, return_std=True)
    # EI at the best observed value, xi = 0, in the maximisation convention of g = sign f
    ei = ExpectedImprovement(0.0)(sign * mean, std, float(np.max(sign * y)))
    keep = np.argsort(-ei)[:6]  # where the improvement is sizeable
    n = 16384
    acq = QNoisyExpectedImprovement(gp, X, n_samples=n, maximize=maximize, random_state=0)
    values = acq(Xc[keep][:, None, :])
    # 5 standard errors of plain MC; + 1e-4 y_std for the tiny noise of the baseline
    tol = 5.0 * std[keep] / math.sqrt(n) + 1e-4 * gp.y_train_std_
    np.testing.assert_array_less(np.abs(values - ei[keep]), tol)
    # and far closer in fact (measured: at most 1.3e-4 relative over random_state 0..3)
    np.testing.assert_allclose(values, ei[keep], rtol=1e-3)


def test_q3_with_noise_matches_brute_force_monte_carlo():
    gp, X, _, _ = _gp(n=15, noise=0.05, noisy=True)
    X_batch = np.array([[0.94, 0.05], [0.90, 0.20], [0.99, 0.00]])  # near the minimum
    n = 2048
    value = q_noisy_expected_improvement(
        gp, X_batch, X, n_samples=n, prune_baseline=False, random_state=1
    )
    draws = _mc_improvements(gp, X_batch, X, maximize=False, n_draws=200_000, seed=2)
    se = draws.std() * math.sqrt(1.0 / draws.size + 1.0 / n)  # both estimates' errors
    assert value > 10 * se
    assert abs(value - draws.mean()) < 5.0 * se


def test_pruned_baseline_keeps_the_likely_best_and_the_value():
    gp, X, _, _ = _gp(n=15, noise=0.05, noisy=True)
    X_batch = np.array([[0.94, 0.05], [0.80, 0.60]])
    full = QNoisyExpectedImprovement(gp, X, n_samples=1024, prune_baseline=False, random_state=0)
    pruned = QNoisyExpectedImprovement(gp, X, n_samples=1024, random_state=0)
    assert full.baseline_index_.tolist() == list(range(15))
    assert 1 <= pruned.baseline_index_.size < 15
    incumbent = int(np.argmin(gp.predict(X)))  # minimising: the lowest posterior mean
    assert incumbent in pruned.baseline_index_
    draws = _mc_improvements(gp, X_batch, X, maximize=False, n_draws=20_000, seed=3)
    tol = 5.0 * draws.std() * math.sqrt(2.0 / 1024)  # two estimates, one bias of O(1/N)
    assert abs(pruned(X_batch) - full(X_batch)) < tol


# ------------------------------------------------------------------ structure
def test_nonnegative_deterministic_and_vectorised():
    gp, _, _, rng = _gp(n=15, noise=0.05, noisy=True)
    batches = rng.uniform(size=(40, 3, 2))
    acq = QNoisyExpectedImprovement(gp, n_samples=256, random_state=7)
    values = acq(batches)
    assert values.shape == (40,) and np.all(values >= 0.0) and np.any(values > 0.0)
    one_by_one = np.array([acq(b) for b in batches])
    np.testing.assert_allclose(values, one_by_one, rtol=1e-12, atol=1e-15)
    again = QNoisyExpectedImprovement(gp, n_samples=256, random_state=7)(batches)
    np.testing.assert_array_equal(values, again)  # same seed, same numbers
    other = QNoisyExpectedImprovement(gp, n_samples=256, random_state=8)(batches)
    assert not np.array_equal(values, other)
    assert isinstance(acq(batches[0]), float)


@pytest.mark.parametrize("log", [False, True])
def test_adding_a_point_never_lowers_the_value(log):
    gp, _, _, rng = _gp(n=15, noise=0.05, noisy=True)
    acq = QNoisyExpectedImprovement(gp, n_samples=256, log=log, random_state=0)
    for _ in range(5):
        points = rng.uniform(size=(5, 2))
        values = [acq(points[:q]) for q in range(1, 6)]
        # the same samples for the first q points: exact, up to rounding in the products
        slack = 1e-12 * (1.0 + np.abs(values[:-1]))
        assert np.all(np.diff(values) >= -slack), values


def test_order_of_the_batch_changes_the_value_within_the_qmc_error():
    gp, X, _, _ = _gp(n=15, noise=0.05, noisy=True)
    X_batch = np.array([[0.94, 0.05], [0.80, 0.30], [0.99, 0.60]])
    n = 1024
    acq = QNoisyExpectedImprovement(gp, n_samples=n, random_state=0)
    values = [acq(X_batch[list(p)]) for p in itertools.permutations(range(3))]
    draws = _mc_improvements(gp, X_batch, X, maximize=False, n_draws=20_000, seed=4)
    tol = 5.0 * draws.std() * math.sqrt(2.0 / n)  # the difference of two estimates
    assert max(values) - min(values) < tol


# ------------------------------------------------------------------ qLogNEI
def test_log_is_finite_where_qnei_underflows():
    gp, X, y, _ = _gp()
    worst = X[np.argmax(y)]  # minimising: the highest observed value is the worst
    batches = np.stack([[worst], [worst + 1e-3], [[0.5, 0.5]]])
    exact = QNoisyExpectedImprovement(gp, n_samples=256, random_state=0)(batches)
    logs = QNoisyExpectedImprovement(gp, n_samples=256, log=True, random_state=0)(batches)
    assert exact[0] == 0.0 and exact[1] == 0.0  # no sample improves
    assert np.all(np.isfinite(logs))
    assert logs[0] < logs[2]  # still ranks: the worst point below a middling one


def test_exp_log_tends_to_qnei_as_the_temperatures_vanish():
    gp, _, _, rng = _gp(n=15, noise=0.05, noisy=True)
    batches = rng.uniform(size=(20, 3, 2))
    exact = QNoisyExpectedImprovement(gp, n_samples=256, random_state=0)(batches)
    errors = []
    for tau_max, tau_relu in [(1e-1, 1e-2), (1e-2, 1e-6), (1e-6, 1e-9)]:
        log = QNoisyExpectedImprovement(
            gp, n_samples=256, log=True, tau_max=tau_max, tau_relu=tau_relu, random_state=0
        )(batches)
        gap = np.exp(log) - exact
        # the module's bound, same samples: 0 < gap <= s_y (tau_relu (log 2 + 0.1) + tau_max log q)
        bound = gp.y_train_std_ * (tau_relu * (math.log(2.0) + 0.1) + tau_max * math.log(3.0))
        assert np.all(gap >= -1e-12 * exact)
        assert np.all(gap <= bound + 1e-12 * exact)
        errors.append(np.max(gap))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-5 * np.max(exact)


# ------------------------------------------------------------------ greedy batches
def test_greedy_batch_is_distinct_in_the_cube_and_starts_at_the_q1_maximiser():
    gp, _, _, _ = _gp(n=15, noise=0.05, noisy=True)
    candidates = sobol_points(128, 2, random_state=0)
    batch = suggest_noisy_batch(gp, candidates, 4, log=False, n_starts=0, random_state=3)
    assert isinstance(batch, NoisyBatch)
    assert batch.X.shape == (4, 2) and np.all((batch.X >= 0.0) & (batch.X <= 1.0))
    gaps = [np.max(np.abs(a - b)) for a, b in itertools.combinations(batch.X, 2)]
    assert min(gaps) > 1e-8
    q1 = QNoisyExpectedImprovement(gp, n_samples=256, random_state=3)(candidates[:, None, :])
    assert batch.candidate_index[0] == int(np.argmax(q1))
    np.testing.assert_array_equal(batch.X[0], candidates[np.argmax(q1)])
    assert batch.values[0] == pytest.approx(q1.max(), rel=1e-12)
    assert np.all(np.diff(batch.values) >= -1e-12 * batch.values[:-1])
    assert not batch.refined.any()


def test_greedy_batch_never_repeats_a_duplicated_candidate():
    gp, _, _, _ = _gp(n=15, noise=0.05, noisy=True)
    good = np.array([[0.30, 0.10]])
    candidates = np.vstack([np.repeat(good, 5, axis=0), sobol_points(16, 2, random_state=1)])
    batch = suggest_noisy_batch(gp, candidates, 3, n_starts=0, random_state=0)
    gaps = [np.max(np.abs(a - b)) for a, b in itertools.combinations(batch.X, 2)]
    assert min(gaps) > 1e-8


def test_local_refinement_improves_on_the_candidates_and_is_reproducible():
    gp, _, _, _ = _gp(n=15, noise=0.05, noisy=True)
    candidates = sobol_points(32, 2, random_state=2)
    plain = suggest_noisy_batch(gp, candidates, 2, n_starts=0, random_state=0)
    refined = suggest_noisy_batch(gp, candidates, 2, n_starts=2, max_iter=20, random_state=0)
    assert refined.values[0] >= plain.values[0]
    assert np.all((refined.X >= 0.0) & (refined.X <= 1.0))
    assert np.max(np.abs(refined.X[0] - refined.X[1])) > 1e-8
    again = suggest_noisy_batch(gp, candidates, 2, n_starts=2, max_iter=20, random_state=0)
    np.testing.assert_array_equal(refined.X, again.X)


# ------------------------------------------------------------------ bad input
def test_bad_input_gets_errors_naming_the_argument():
    gp, X, _, _ = _gp()
    good = np.array([[0.2, 0.3]])
    cases = [
        (lambda: q_noisy_expected_improvement(gp, np.zeros((2, 3))), ValueError, "X_batch"),
        (lambda: q_noisy_expected_improvement(gp, np.zeros((0, 2))), ValueError, "X_batch"),
        (lambda: q_noisy_expected_improvement(gp, [[np.nan, 0.1]]), ValueError, "X_batch"),
        (lambda: q_noisy_expected_improvement(gp, [[np.inf, 0.1]]), ValueError, "X_batch"),
        (lambda: q_noisy_expected_improvement(gp, [0.1, 0.2]), ValueError, "X_batch"),
        (lambda: q_noisy_expected_improvement(gp, good, X[:, :1]), ValueError, "X_baseline"),
        (lambda: q_noisy_expected_improvement(gp, good, n_samples=0), ValueError, "n_samples"),
        (lambda: q_noisy_expected_improvement(gp, good, tau_max=0.0), ValueError, "tau_max"),
        (lambda: q_noisy_expected_improvement(gp, good, tau_relu=-1.0), ValueError, "tau_relu"),
        (lambda: q_noisy_expected_improvement(gp, good, log="yes"), TypeError, "log"),
        (lambda: suggest_noisy_batch(gp, X, 0), ValueError, "batch_size"),
        (lambda: suggest_noisy_batch(gp, X, -2), ValueError, "batch_size"),
        (lambda: suggest_noisy_batch(gp, X[:, :1], 2), ValueError, "candidates"),
        (lambda: suggest_noisy_batch(gp, X + np.nan, 2), ValueError, "candidates"),
        (lambda: suggest_noisy_batch(gp, X + 2.0, 2), ValueError, "candidates"),
        (lambda: suggest_noisy_batch(gp, np.repeat(good, 3, 0), 2), ValueError, "candidates"),
        (lambda: suggest_noisy_batch(gp, X, 2, n_starts=-1), ValueError, "n_starts"),
    ]
    for call, error, name in cases:
        with pytest.raises(error, match=name):
            call()


def test_an_unfitted_gp_is_refused():
    gp = GaussianProcessRegressor(Matern(lengthscale=0.4))
    with pytest.raises(NotFittedError, match="fitted"):
        q_noisy_expected_improvement(gp, [[0.1, 0.2]])
    with pytest.raises(NotFittedError, match="fitted"):
        suggest_noisy_batch(gp, [[0.1, 0.2]], 1)


def test_sign_convention_matches_the_optimizer_surrogate():
    # BayesianOptimizer minimises f through a GP of g = -f: qNEI of that GP with
    # maximize=True is qNEI of a GP of f (same hyperparameters) with the default
    opt = BayesianOptimizer(get_function("branin"), n_initial=8, random_state=0)
    opt.run(9)  # the ninth point is the model's: gp_ is fitted on the first eight
    gp_g = opt.gp_
    gp_f = GaussianProcessRegressor(
        gp_g.kernel_, noise=gp_g.noise_, noise_bounds="fixed", normalize_y=True, optimizer=None
    ).fit(gp_g.X_train_, -gp_g.y_train_)
    batches = sobol_points(16, 2, random_state=0).reshape(8, 2, 2)
    for log in (False, True):
        on_g = q_noisy_expected_improvement(gp_g, batches, maximize=True, log=log, random_state=0)
        on_f = q_noisy_expected_improvement(gp_f, batches, log=log, random_state=0)
        np.testing.assert_allclose(on_g, on_f, rtol=1e-8, atol=1e-12)
        if not log:
            assert np.any(on_g > 0.1)  # not a comparison of zeros
