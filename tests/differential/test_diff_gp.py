"""GaussianProcessRegressor against scikit-learn's, on the packaged tables and synthetic data.

Both libraries get the same kernel family (ARD RBF, ARD Matérn 3/2 and 5/2, isotropic
rational quadratic: scikit-learn's has one lengthscale only) written as kernelkit's
``variance * k + noise`` and scikit-learn's ``ConstantKernel * k + WhiteKernel``
(``alpha=0``, so that nothing else is added to the diagonal), with the same starting values
(unit variance and lengthscales, shape 1, noise 1e-2) and bounds (kernelkit's defaults,
``differential_data.sklearn_kernel``).

* ``test_lml_equals_sklearn_at_the_same_hyperparameters``: the two log marginal likelihoods
  and their gradients at the start and at seeded points around it agree to 1e-8 relative;
  this checks the parametrisation map too.
* ``test_fit_reaches_sklearn_lml``: L-BFGS-B from that start, no restarts, on both sides;
  ours must end at least as high: ``lml_ours >= lml_sklearn - 1e-6 |lml_sklearn|``. Each
  case prints one ``GPFIT`` line (``pytest -rA`` shows them) with both values, the start's
  value, our likelihood at scikit-learn's optimum and our evaluation count.

The fast grid subsamples 100 rows of each table (inputs standardised on them; insurance
fits with its isotropic kernel only, see ``FIT_SOURCES_ISOTROPIC``) and has
synthetic data with 1 to 13 features (every kernel for d = 1, 2, 5, 13; the ARD RBF kernel
for the others); the slow grid (``-m slow``) fits n = 2000 and 5000, and n = 500 for
d = 1 .. 13.
"""

from __future__ import annotations

import functools
import math
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
    sklearn_kernel,
    synthetic_regression,
    theta_to_sklearn,
    uci_regression,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR

from kernelkit.models import GaussianProcessRegressor

FAST_N = 100
LML_RTOL = 1e-8
FIT_RTOL = 1e-6


@functools.cache
def _data(source: str, n: int | None, d: int = 0) -> Regression:
    """``source`` is a table name of ``load_uci`` or ``"synthetic"`` (with ``d`` features)."""
    if source == "synthetic":
        return synthetic_regression(n or 0, d, random_state=d)
    return uci_regression(source, n, random_state=0)


def _case_id(source: str, n: int | None, d: int, kernel: str, normalize_y: bool) -> str:
    name = f"{source}-d{d}" if source == "synthetic" else source
    return f"{name}-n{n or 'all'}-{kernel}-{'norm' if normalize_y else 'raw'}"


def _grid(sources: list[tuple[str, int | None, int]], kernels=tuple(GP_KERNELS)):
    return [
        pytest.param(s, n, d, k, norm, id=_case_id(s, n, d, k, norm))
        for s, n, d in sources
        for k in kernels
        for norm in (False, True)
    ]


def _pair(data: Regression, kernel: str, normalize_y: bool, optimizer: str | None):
    """Our GP and scikit-learn's with the same start and bounds (not yet fitted)."""
    k = kernelkit_kernel(kernel, data.X.shape[1])
    ours = GaussianProcessRegressor(
        k, noise=NOISE, noise_bounds=NOISE_BOUNDS, normalize_y=normalize_y, optimizer=optimizer
    )
    ref = SkGPR(
        sklearn_kernel(k, NOISE, NOISE_BOUNDS),
        alpha=0.0,
        normalize_y=normalize_y,
        optimizer="fmin_l_bfgs_b" if optimizer else None,
    )
    theta0 = np.append(k.theta, math.log(NOISE))
    return ours, ref, theta0


# ------------------------------------------------------------------ the same function
LML_SOURCES = [(name, FAST_N, 0) for name in UCI_REGRESSION] + [
    ("synthetic", FAST_N, d) for d in range(1, 14)
]


@pytest.mark.parametrize(("source", "n", "d", "kernel", "normalize_y"), _grid(LML_SOURCES))
def test_lml_equals_sklearn_at_the_same_hyperparameters(source, n, d, kernel, normalize_y):
    data = _data(source, n, d)
    ours, ref, theta0 = _pair(data, kernel, normalize_y, optimizer=None)
    ours.fit(data.X, data.y)
    ref.fit(data.X, data.y)
    perm = theta_to_sklearn(ours.theta_names_, ref.kernel_)
    np.testing.assert_allclose(ours.theta_, theta0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(ref.kernel_.theta, theta0[perm], rtol=0, atol=1e-15)
    rng = np.random.default_rng(len(theta0))
    points = [theta0] + [theta0 + 0.5 * rng.standard_normal(theta0.size) for _ in range(3)]
    for theta in points:
        lml, grad = ours.log_marginal_likelihood(theta, eval_gradient=True)
        ref_lml, ref_grad = ref.log_marginal_likelihood(theta[perm], eval_gradient=True)
        assert lml == pytest.approx(ref_lml, rel=LML_RTOL, abs=1e-10), theta
        scale = max(1.0, float(np.abs(ref_grad).max()))
        np.testing.assert_allclose(grad[perm], ref_grad, rtol=1e-6, atol=1e-8 * scale)


# ------------------------------------------------------------------ the fitted optimum
def _compare_fit(data: Regression, kernel: str, normalize_y: bool, label: str) -> None:
    ours, ref, theta0 = _pair(data, kernel, normalize_y, optimizer="lbfgs")
    with warnings.catch_warnings():
        # hyperparameters at a bound, L-BFGS-B stopping on its limits: reported, not errors
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours.fit(data.X, data.y)
        ref.fit(data.X, data.y)
    perm = theta_to_sklearn(ours.theta_names_, ref.kernel_)
    theta_ref = np.empty_like(theta0)
    theta_ref[perm] = ref.kernel_.theta
    lml_ours = ours.log_marginal_likelihood_value_
    lml_ref = ref.log_marginal_likelihood_value_
    lml_start = ours.log_marginal_likelihood(theta0)
    ours_at_ref = ours.log_marginal_likelihood(theta_ref)
    nfev = ours.optimizer_result_.nfev if ours.optimizer_result_ is not None else 0
    moved = float(np.abs(ours.theta_ - theta0).max())
    print(
        f"GPFIT {label} n={data.X.shape[0]} d={data.X.shape[1]} ours={lml_ours:.8f} "
        f"sklearn={lml_ref:.8f} margin={lml_ours - lml_ref:+.3e} "
        f"rel={(lml_ours - lml_ref) / abs(lml_ref):+.2e} start={lml_start:.6f} "
        f"ours_at_sklearn_theta={ours_at_ref:.8f} nfev={nfev} max_theta_move={moved:.3g}"
    )
    assert lml_ours >= lml_ref - FIT_RTOL * abs(lml_ref), (
        f"{label}: kernelkit's fitted log marginal likelihood {lml_ours:.8f} is below "
        f"scikit-learn's {lml_ref:.8f} from the same start (start {lml_start:.6f}, "
        f"kernelkit's value at scikit-learn's optimum {ours_at_ref:.8f})"
    )


FIT_SOURCES = [(name, FAST_N, 0) for name in UCI_REGRESSION if name != "insurance"] + [
    ("synthetic", FAST_N, d) for d in (1, 2, 5, 13)
]
#: every other input dimension from 1 to 13, with the ARD RBF kernel only
FIT_SOURCES_RBF = [("synthetic", FAST_N, d) for d in range(1, 14) if d not in (1, 2, 5, 13)]
#: insurance's 65 features, 100 rows: with ARD (67 hyperparameters) the fitted optimum of
#: either library moves by up to 50 nats when X is perturbed by 1e-12 (relative): both
#: searches follow one path until rounding differences of 1e-11 in the gradient grow, after
#: some 35 evaluations, into different local maxima, so comparing them would compare
#: rounding. Its isotropic kernel's fit is stable and compared; the ARD kernels' likelihoods
#: are compared above at the same hyperparameters.
FIT_SOURCES_ISOTROPIC = [("insurance", FAST_N, 0)]


@pytest.mark.parametrize(
    ("source", "n", "d", "kernel", "normalize_y"),
    _grid(FIT_SOURCES)
    + _grid(FIT_SOURCES_RBF, kernels=("rbf-ard",))
    + _grid(FIT_SOURCES_ISOTROPIC, kernels=("rq",)),
)
def test_fit_reaches_sklearn_lml(source, n, d, kernel, normalize_y):
    label = _case_id(source, n, d, kernel, normalize_y)
    _compare_fit(_data(source, n, d), kernel, normalize_y, label)


# ------------------------------------------------------------------ realistic sizes
SLOW_CASES = [
    # the reported bug: the search can end where it started (issue 28)
    ("synthetic", 2000, 5, "rbf-ard", False),
    ("synthetic", 2000, 5, "rbf-ard", True),
    ("synthetic", 2000, 13, "matern52-ard", True),
    ("boston", None, 0, "matern32-ard", True),
    ("wine", None, 0, "rbf-ard", True),
    ("cpu_act", 2000, 0, "rbf-ard", True),
    ("cpu_act", 2000, 0, "matern52-ard", False),
    ("insurance", 2000, 0, "rq", True),
    # n = 5000: scikit-learn's ARD gradient is an (n, n, d) array, so small d here
    ("synthetic", 5000, 5, "rbf-ard", False),
    ("cpu_act", 5000, 0, "rq", True),
] + [("synthetic", 500, d, "rbf-ard", True) for d in range(1, 14)]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "n", "d", "kernel", "normalize_y"),
    [pytest.param(*case, id=_case_id(*case)) for case in SLOW_CASES],
)
def test_fit_reaches_sklearn_lml_at_realistic_sizes(source, n, d, kernel, normalize_y):
    label = _case_id(source, n, d, kernel, normalize_y)
    _compare_fit(_data(source, n, d), kernel, normalize_y, label)
