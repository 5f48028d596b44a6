"""solver="cg" against solver="cholesky" on the differential grid of the GP (the packaged
tables and synthetic data with 1 to 13 features, every kernel of ``GP_KERNELS``).

At the hyperparameters of the Cholesky fit, the matrix-free GP with exact probes
(``n_probes >= n``) must give the same log marginal likelihood (1e-6 relative: CG to
1e-10, and SLQ exact with ``n`` probes) and gradient (1e-5 relative, or
``max(1e-8, 1e-14 cond(K_y))`` of the two terms whose difference each component is:
rounding in either solver), the same predictive means (1e-6 of ``std(y)``) and variances
(1 %, through the LOVE cache); with 16 probes, the likelihood within 5 standard errors of
its estimate. The slow grid does the same at n = 2000.

Where the Cholesky fit drove the noise below ``1e-6`` of the signal variance (insurance:
85 binary features on 100 rows, noise at its lower bound 1e-8), ``K + noise I`` has a
condition number beyond ``1e8`` and CG's residual of 1e-10 no longer bounds the error of
the solution to 1e-6: there the likelihood and the means are compared to 1e-3 and the
gradient is not compared.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from differential_data import (
    GP_KERNELS,
    NOISE,
    NOISE_BOUNDS,
    UCI_REGRESSION,
    Regression,
    kernelkit_kernel,
    synthetic_regression,
    uci_regression,
)
from sklearn.exceptions import ConvergenceWarning

from kernelkit.models import GaussianProcessRegressor

FAST_N = 100


@functools.cache
def _data(source: str, n: int, d: int = 0) -> Regression:
    if source == "synthetic":
        return synthetic_regression(n, d, random_state=d)
    return uci_regression(source, n, random_state=0)


@functools.cache
def _dense(source: str, n: int, d: int, kernel: str) -> GaussianProcessRegressor:
    data = _data(source, n, d)
    gp = GaussianProcessRegressor(
        kernelkit_kernel(kernel, data.X.shape[1]),
        noise=NOISE,
        noise_bounds=NOISE_BOUNDS,
        normalize_y=True,
        solver="cholesky",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return gp.fit(data.X, data.y)


def _grid(sources, kernels=tuple(GP_KERNELS)):
    return [
        pytest.param(s, n, d, k, id=f"{s}-d{d}-n{n}-{k}" if s == "synthetic" else f"{s}-n{n}-{k}")
        for s, n, d in sources
        for k in kernels
    ]


FAST = [(name, FAST_N, 0) for name in UCI_REGRESSION] + [
    ("synthetic", FAST_N, d) for d in range(1, 14)
]
SLOW = [("cpu_act", 2000, 0), ("wine", 1500, 0), ("synthetic", 2000, 5), ("synthetic", 2000, 13)]


def _compare(source: str, n: int, d: int, kernel: str) -> None:
    data = _data(source, n, d)
    dense = _dense(source, n, d, kernel)
    kw = dict(noise=dense.noise_, normalize_y=True, optimizer=None, solver="cg", tol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # LOVE at its cap on rough data
        exact = GaussianProcessRegressor(dense.kernel_, n_probes=n, **kw).fit(data.X, data.y)
        sampled = GaussianProcessRegressor(dense.kernel_, random_state=0, **kw).fit(data.X, data.y)
    theta = dense.theta_
    ill = dense.noise_ < 1e-6 * float(np.mean(dense.kernel_.diag(data.X)))
    rel = 1e-3 if ill else 1e-6
    lml0, grad0 = dense.log_marginal_likelihood(theta, eval_gradient=True)
    lml1, grad1 = exact.log_marginal_likelihood(theta, eval_gradient=True)
    assert lml1 == pytest.approx(lml0, rel=rel, abs=rel)
    if not ill:
        # each component is a difference of two terms, 0.5 alpha^T dK alpha and 0.5
        # tr(K_y^-1 dK), equal at the optimum: CG's error is relative to the terms, not to
        # the (near zero) difference
        alpha = dense.alpha_
        terms = 0.5 * np.abs(dense.kernel_.gradient_dot(data.X, np.outer(alpha, alpha)))
        if grad0.size > terms.size:  # the noise's term
            terms = np.append(terms, 0.5 * dense.noise_ * float(alpha @ alpha))
        # and both solvers lose ~eps * cond(K_y) of them to rounding; trace(K) / noise
        # bounds the condition number
        cond = 1.0 + float(np.sum(dense.kernel_.diag(data.X))) / dense.noise_
        atol = 1e-6 * max(1.0, float(np.abs(grad0).max())) + max(1e-8, 1e-14 * cond) * terms
        off = np.abs(grad1 - grad0) - (atol + 1e-5 * np.abs(grad0))
        assert np.all(off <= 0), (grad1, grad0, atol)
    se = sampled.logdet_standard_error_
    assert abs(sampled.log_marginal_likelihood_value_ - lml0) <= 5 * se + rel * abs(lml0)
    X = data.X[: min(200, n)]
    m0, s0 = dense.predict(X, return_std=True)
    m1, s1 = sampled.predict(X, return_std=True)
    assert np.max(np.abs(m1 - m0)) <= rel * np.std(data.y)
    if sampled.love_.error <= 0.005 and not ill:  # else it warned, saying by how much
        np.testing.assert_allclose(s1**2, s0**2, rtol=0.02, atol=1e-10 * np.var(data.y))


@pytest.mark.parametrize(("source", "n", "d", "kernel"), _grid(FAST))
def test_cg_agrees_with_cholesky(source, n, d, kernel) -> None:
    _compare(source, n, d, kernel)


@pytest.mark.slow
@pytest.mark.parametrize(("source", "n", "d", "kernel"), _grid(SLOW, ("rbf-ard", "matern52-ard")))
def test_cg_agrees_with_cholesky_slow(source, n, d, kernel) -> None:
    _compare(source, n, d, kernel)
