"""Odd output widths of ``RandomFourierFeatures(features="cos_sin")``: ``m`` cosine-sine
pairs and one random-phase column, scaled so that the kernel estimate stays unbiased at
every width (the class's Notes: odd widths)."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF, Laplace, Matern

VARIANCE = 2.0
KERNELS = {
    "rbf": RBF(1.3, variance=VARIANCE),
    "matern": Matern(1.3, variance=VARIANCE, nu=1.5),
    "laplace": Laplace(1.3, variance=VARIANCE),
}
X4 = np.random.default_rng(0).standard_normal((4, 3)) * 0.6
I, J = np.triu_indices(4, k=1)
#: random states of the Monte Carlo: one fit each, i.i.d. replicates of the estimator
N_STATES = 1000
#: 16 features: Hadamard directions are not flagged as biased, and widths 21 and 33 put
#: the last frequency in a stacked block with pairs, and alone in a block of its own
X16 = np.random.default_rng(1).standard_normal((50, 16)) * 0.3


def _within(est: np.ndarray, truth: np.ndarray, k: float = 4.5) -> np.ndarray:
    """Whether the mean of the replicates (rows of ``est``) is within ``k`` standard
    errors (sample std / sqrt(replicates)) of ``truth``: a two-sided z-test at about
    ``p = 7e-6`` per pair of points."""
    se = est.std(axis=0, ddof=1) / np.sqrt(est.shape[0])
    return np.abs(est.mean(axis=0) - truth) < k * se


def _reference(rff: RandomFourierFeatures, X: np.ndarray) -> np.ndarray:
    """The documented features, formed explicitly from the fitted frequencies and phase:
    ``sqrt(2 variance / n) [cos(P), sin(P), cos(p_last + b)]``."""
    n, p = rff.n_components_, rff.n_components_ // 2
    P = X.astype(np.float64) @ rff.get_frequencies().T
    cols = [np.cos(P[:, :p]), np.sin(P[:, :p])]
    if n % 2:
        cols.append(np.cos(P[:, p:] + rff.offsets_))
    return np.sqrt(2.0 * rff.variance_ / n) * np.hstack(cols)


# ---------------------------------------------------------------------------- unbiasedness
@pytest.mark.parametrize(
    ("coupling", "width", "kernel"),
    [
        ("iid", 1, "rbf"),
        ("iid", 3, "laplace"),
        ("orthogonal", 3, "matern"),
        ("orthogonal", 7, "rbf"),
    ],
)
def test_odd_width_kernel_estimate_is_unbiased(coupling, width, kernel) -> None:
    # phi(x) . phi(y) over many random states averages to k(x, y); width 7 on 3 features
    # draws 4 frequencies, two orthogonal blocks
    k = KERNELS[kernel]
    Z = np.stack(
        [
            RandomFourierFeatures(width, kernel=k, coupling=coupling, random_state=r).fit_transform(
                X4
            )
            for r in range(N_STATES)
        ]
    )
    est = np.einsum("rpc,rpc->rp", Z[:, I], Z[:, J])
    truth = k(X4)[I, J]
    assert np.all(_within(est, truth)), (est.mean(axis=0), truth)
    # the test can fail: the same draws with the random-phase column weighted like a pair
    # (twice its weight, E = (2m + 2) / n k, a bias of k / n) are rejected
    Z[:, :, -1] *= np.sqrt(2.0)
    biased = np.einsum("rpc,rpc->rp", Z[:, I], Z[:, J])
    assert not np.all(_within(biased, truth)), (biased.mean(axis=0), truth)


def test_odd_width_diagonal() -> None:
    # pairs give variance (2m / n) exactly, the last column 2 variance cos^2(w . x + b) / n
    rff = RandomFourierFeatures(9, kernel=KERNELS["matern"], random_state=0).fit(X16)
    Z = rff.transform(X16)
    w = rff.get_frequencies()[-1]
    expected = VARIANCE * (8 + 2 * np.cos(X16 @ w + rff.offsets_[0]) ** 2) / 9
    np.testing.assert_allclose(np.sum(Z**2, axis=1), expected, rtol=1e-12)
    even = RandomFourierFeatures(8, kernel=KERNELS["matern"], random_state=0).fit_transform(X16)
    np.testing.assert_allclose(np.sum(even**2, axis=1), VARIANCE, rtol=1e-12)


# ---------------------------------------------------------------------------- the map
@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "hadamard"])
@pytest.mark.parametrize("width", [1, 21, 33])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_odd_width_matches_explicit_formula(coupling, width, dtype) -> None:
    X = X16.astype(dtype)
    rff = RandomFourierFeatures(
        width, kernel=RBF(0.8, variance=1.7), coupling=coupling, random_state=0
    ).fit(X)
    Z = rff.transform(X)
    assert Z.dtype == dtype and Z.shape == (50, width)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(Z, _reference(rff, X), atol=tol)


@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "hadamard"])
@pytest.mark.parametrize("width", [1, 3, 33])
def test_odd_width_fitted_attributes(coupling, width) -> None:
    rff = RandomFourierFeatures(width, coupling=coupling, random_state=0).fit(X16)
    m = (width + 1) // 2
    assert rff.n_components_ == width == len(rff.get_feature_names_out())
    assert rff.n_frequencies_ == m == rff.get_frequencies().shape[0]
    if coupling == "hadamard":
        assert rff.frequencies_ is None and rff.norms_.shape == (m,)
    else:
        assert rff.frequencies_.shape == (m, 16)
    assert rff.offsets_.shape == (1,) and 0.0 <= rff.offsets_[0] < 2 * np.pi
    assert rff.n_parameter_bytes_ == rff.directions_.n_parameter_bytes + 8
    even = RandomFourierFeatures(width + 1, coupling=coupling, random_state=0).fit(X16)
    assert even.offsets_ is None and even.n_parameter_bytes_ == even.directions_.n_parameter_bytes


@pytest.mark.filterwarnings("ignore:coupling='hadamard' with:UserWarning")
@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "hadamard", "orf", "sorf"])
@pytest.mark.parametrize("kernel", ["rbf", "matern32", "laplace"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_width_one_for_every_coupling(coupling, kernel, dtype) -> None:
    # one frequency, one column sqrt(2 variance) cos(w . x + b): RBFSampler(n_components=1)
    X = X4.astype(dtype)
    rff = RandomFourierFeatures(1, kernel=kernel, coupling=coupling, random_state=0).fit(X)
    Z = rff.transform(X)
    assert Z.shape == (4, 1) and Z.dtype == dtype
    assert rff.n_frequencies_ == 1 and rff.offsets_.shape == (1,)
    w = rff.get_frequencies()[0]
    ref = np.sqrt(2.0) * np.cos(X.astype(np.float64) @ w + rff.offsets_[0])
    np.testing.assert_allclose(Z[:, 0], ref, atol=1e-12 if dtype == np.float64 else 1e-5)
    assert np.all(np.isfinite(rff.transform(X[:1])))  # and one sample


@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "hadamard"])
def test_odd_width_row_blocks_and_threads(coupling) -> None:
    # many rows (several blocks of the streamed projections), one thread or two: the same
    X = np.random.default_rng(2).standard_normal((6000, 16)) * 0.3
    a = RandomFourierFeatures(33, coupling=coupling, random_state=4, n_jobs=1).fit(X)
    b = RandomFourierFeatures(33, coupling=coupling, random_state=4, n_jobs=2).fit(X)
    Z = a.transform(X)
    np.testing.assert_array_equal(b.transform(X), Z)
    np.testing.assert_allclose(Z, _reference(a, X), atol=1e-12)


def test_the_phase_is_drawn_after_the_even_draws() -> None:
    # i.i.d. Gaussian frequencies (no scale mixture, no norms drawn): width 2m + 1 draws
    # the m + 1 rows, then the phase, so its pairs are the features of width 2m
    even = RandomFourierFeatures(20, random_state=5).fit(X16)
    odd = RandomFourierFeatures(21, random_state=5).fit(X16)
    np.testing.assert_array_equal(odd.get_frequencies()[:10], even.get_frequencies())
    scale = np.sqrt(20 / 21)  # every column is sqrt(2 variance / n)
    np.testing.assert_allclose(odd.transform(X16)[:, :20], scale * even.transform(X16), rtol=1e-13)
