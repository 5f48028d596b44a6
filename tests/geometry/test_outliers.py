"""remove_outliers (Vempala 1997 Thm 2): certificate, invariances, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.geometry.outliers import remove_outliers


def _data(seed=0, n=300, d=4):
    rng = np.random.RandomState(seed)
    return np.vstack([rng.randn(n, d), 25 * rng.randn(n // 10, d)])


def _brute_ratio(X):
    """max over points of x^T M^+ x with M = X^T X / m, by pseudo-inverse (reference)."""
    M = X.T @ X / X.shape[0]
    return float(np.max(np.einsum("ij,jk,ik->i", X, np.linalg.pinv(M), X)))


@pytest.mark.parametrize("beta", [5.0, 8.0, 20.0])
def test_certificate_holds_and_matches_brute_force(beta):
    X = _data()
    res = remove_outliers(X, beta)
    assert res.certificate <= beta + 1e-9
    assert np.isclose(res.certificate, _brute_ratio(X[res.kept]))
    assert res.kept.size + res.removed.size == X.shape[0]
    assert np.array_equal(np.flatnonzero(res.mask), res.kept)
    Z = (X[res.kept] - res.centre) @ res.whitening
    np.testing.assert_allclose(Z.T @ Z / Z.shape[0], np.eye(res.rank), atol=1e-8)
    # Lemma 2 (ii) in random directions
    w = np.random.RandomState(1).randn(50, X.shape[1])
    proj = X[res.kept] @ w.T
    assert np.all(proj.max(0) ** 2 <= beta * np.mean(proj**2, 0) * (1 + 1e-9))


def test_invariant_under_invertible_linear_maps():
    X = _data(2)
    A = np.random.RandomState(3).randn(4, 4) + 3 * np.eye(4)
    a, b = remove_outliers(X, 8.0), remove_outliers(X @ A.T, 8.0)
    assert a.removed.size > 0
    assert np.array_equal(a.removed, b.removed) and a.n_rounds == b.n_rounds


def test_centred_invariant_under_affine_maps():
    X = _data(4)
    A = np.random.RandomState(5).randn(4, 4) + 3 * np.eye(4)
    a = remove_outliers(X, 8.0, centred=True)
    b = remove_outliers(X @ A.T + 100.0, 8.0, centred=True)
    assert a.removed.size > 0 and np.array_equal(a.removed, b.removed)


def test_nothing_removed_when_within_beta_and_deterministic():
    X = np.random.RandomState(0).randn(100, 3)
    beta = _brute_ratio(X) + 0.1
    res = remove_outliers(X, beta)
    assert res.removed.size == 0 and res.n_rounds == 0
    r1, r2 = remove_outliers(_data(), 6.0), remove_outliers(_data(), 6.0)
    assert np.array_equal(r1.kept, r2.kept) and r1.certificate == r2.certificate


def test_rank_deficient_data_handled_in_span():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(200, 2), 30 * rng.randn(10, 2)]) @ rng.randn(2, 5)  # rank 2 in R^5
    res = remove_outliers(X, 4.0)  # < n_features but >= rank
    assert res.rank == 2 and res.whitening.shape == (5, 2)
    assert res.certificate <= 4.0 + 1e-9


def test_thesis_threshold_removes_more_per_round():
    X = _data(6)
    a = remove_outliers(X, 20.0)
    b = remove_outliers(X, 20.0, threshold=5.0)
    assert b.removed.size >= a.removed.size and b.certificate <= 20.0 + 1e-9


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"beta": 3.0}, ValueError, "rank"),
        ({"beta": -1.0}, ValueError, "beta"),
        ({"beta": "x"}, TypeError, "beta"),
        ({"beta": 10.0, "threshold": 2.0}, ValueError, "threshold"),
        ({"beta": 10.0, "threshold": 11.0}, ValueError, "threshold"),
        ({"beta": 10.0, "centred": 1}, TypeError, "centred"),
    ],
)
def test_bad_input(kwargs, err, match):
    with pytest.raises(err, match=match):
        remove_outliers(_data(), **kwargs)


def test_bad_X():
    with pytest.raises(ValueError):
        remove_outliers([[np.nan, 1.0]], 5.0)


def test_doctests():
    import doctest

    import kernelkit.geometry.outliers as mod

    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
