"""Bad input to the kernel machines found by the issue 28 audit: sizes beyond the machine
refused up front, magnitudes that overflow refused with the cause, a kernel passed where
a feature map goes."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.models import (
    GaussianProcessRegressor,
    KernelRidge,
    KernelSVC,
    RandomFeatureGP,
    RandomFeatureRidge,
)
from kernelkit.models.random_features import gaussian_kl

_BIG = 10**6  # an n x n float64 matrix of 7.3 TiB


@pytest.mark.parametrize(
    "make",
    [
        # solver="auto" runs matrix-free CG beyond 10000 samples: no n x n matrix to refuse
        lambda: GaussianProcessRegressor(RBF(), solver="cholesky"),
        lambda: KernelRidge(RBF(), solver="cholesky"),
        KernelSVC,
    ],
)
def test_a_gram_matrix_beyond_the_machine_is_refused_before_it_is_formed(make) -> None:
    X = np.zeros((_BIG, 1))
    y = np.arange(_BIG) % 2
    with pytest.raises(ValueError, match=r"fit on 1000000 samples.*would need about .* TiB"):
        make().fit(X, y)


def test_a_cg_fit_beyond_the_machine_is_refused_before_it_starts() -> None:
    """The matrix-free GP holds O(n (probes + rank + max_iter)) floats: at 10^7 samples
    and max_iter=1000, about 100 GiB."""
    X = np.zeros((10**7, 1), dtype=np.float32)
    y = np.zeros(10**7, dtype=np.float32)
    with pytest.raises(ValueError, match=r"solver='cg'\).fit on 10000000 samples.*max_iter"):
        GaussianProcessRegressor(RBF(), solver="cg").fit(X, y)


def test_a_kernel_on_objects_is_refused_too() -> None:
    from kernelkit.kernels import Intersection

    sets = [[1, 2]] * 100_000  # two 100k x 100k matrices: 149 GiB
    with pytest.raises(ValueError, match="would need about"):
        KernelRidge(Intersection()).fit(sets, np.zeros(len(sets)))


def test_predictions_beyond_the_machine_are_refused() -> None:
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((30, 2)), rng.standard_normal(30)
    gp = GaussianProcessRegressor(RBF(), optimizer=None).fit(X, y)
    X_big = np.zeros((_BIG, 2))
    with pytest.raises(ValueError, match=r"predict\(return_cov=True\).*would need about"):
        gp.predict(X_big, return_cov=True)
    with pytest.raises(ValueError, match=r"sample_y.*would need about"):
        gp.sample_y(X[:5], n_samples=10**12)
    with pytest.raises(ValueError, match=r"prior covariance.*would need about"):
        GaussianProcessRegressor(RBF()).predict(X_big, return_cov=True)
    # the mean and the standard deviation stay linear in the test points
    assert gp.predict(np.zeros((1000, 2))).shape == (1000,)


def test_random_feature_gp_refuses_targets_whose_likelihood_overflows() -> None:
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((40, 3)), rng.standard_normal(40)
    with pytest.raises(ValueError, match=r"y is too large.*normalize_y=True"):
        RandomFeatureGP(kernel=RBF(), random_state=0).fit(X, 1e300 * y)
    # normalize_y fits them, and predicts on their scale
    gp = RandomFeatureGP(kernel=RBF(), normalize_y=True, random_state=0).fit(X, 1e300 * y)
    mean, std = gp.predict(X[:5], return_std=True)
    assert np.all(np.isfinite(mean)) and np.all(np.isfinite(std))
    ref = RandomFeatureGP(kernel=RBF(), normalize_y=True, random_state=0).fit(X, y)
    np.testing.assert_allclose(mean / 1e300, ref.predict(X[:5]), rtol=1e-8)


@pytest.mark.parametrize("model", [RandomFeatureRidge, RandomFeatureGP])
def test_a_kernel_given_as_the_feature_map_is_refused(model) -> None:
    # RandomFeatureRidge(RBF()) put the kernel in the feature_map slot, where it was used
    # as a callable: its Gram matrix became the "features"
    X, y = np.random.default_rng(0).standard_normal((20, 2)), np.zeros(20)
    with pytest.raises(TypeError, match=r"feature_map got a kernel.*kernel=RBF"):
        model(RBF()).fit(X, y)


def test_gaussian_kl_beyond_float64_is_an_error_not_inf() -> None:
    with pytest.raises(ValueError, match="beyond float64"):
        gaussian_kl(np.zeros(2), 1e300 * np.eye(2), np.zeros(2), 1e-300 * np.eye(2))
    assert np.isfinite(gaussian_kl(np.zeros(2), 1e100 * np.eye(2), np.zeros(2), np.eye(2)))
