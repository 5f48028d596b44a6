"""Blocked BLAS squared distances (``_blocks``) and the median heuristic."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist, pdist

from kernelkit.kernels import RBF, Matern, _blocks, median_heuristic


def _check_against_cdist(X: np.ndarray, Y: np.ndarray) -> None:
    D = _blocks.map_sq_dist(X, Y)
    ref = cdist(X, Y, "sqeuclidean")
    np.testing.assert_allclose(D, ref, rtol=1e-10, atol=1e-12 * ref.max())
    assert D.min() >= 0.0


@pytest.fixture(params=["default", "tiny_blocks", "tiny_blocks_threads"])
def block_mode(request, monkeypatch):
    """Run with the library's constants, with 3-row blocks, and with 3-row blocks spread
    over 4 threads (the thresholds are read when map_sq_dist runs)."""
    if request.param != "default":
        monkeypatch.setattr(_blocks, "_TILE", 7)
    if request.param == "tiny_blocks_threads":
        monkeypatch.setattr(_blocks, "_THREAD_MIN_ELEMENTS", 1)
        monkeypatch.setattr(_blocks, "_n_workers", lambda: 4)
    return request.param


@pytest.mark.parametrize("shape", [(1, 1, 1), (5, 37, 2), (37, 37, 4), (101, 37, 3), (64, 9, 7)])
def test_map_sq_dist_equals_cdist(block_mode, shape) -> None:
    n, m, d = shape
    rng = np.random.default_rng(n * 1000 + m)
    X, Y = rng.standard_normal((n, d)), 2.0 + rng.standard_normal((m, d))
    _check_against_cdist(X, Y)
    D = _blocks.map_sq_dist(X, X)
    np.testing.assert_allclose(D, cdist(X, X, "sqeuclidean"), rtol=1e-10, atol=1e-12 * D.max())
    assert np.all(np.diag(D) == 0.0)


def test_default_thresholds_are_crossed() -> None:
    """Sizes past one block (2^18 elements) and past the threading threshold (2^22)."""
    rng = np.random.default_rng(5)
    X, Y = rng.standard_normal((2100, 3)), rng.standard_normal((2050, 3))
    assert X.shape[0] * Y.shape[0] > _blocks._THREAD_MIN_ELEMENTS
    _check_against_cdist(X, Y)
    D = _blocks.map_sq_dist(X, X)
    assert np.all(np.diag(D) == 0.0)
    i = rng.integers(0, 2100, 200)
    j = rng.integers(0, 2100, 200)
    np.testing.assert_allclose(D[i, j], ((X[i] - X[j]) ** 2).sum(1), rtol=1e-10, atol=1e-12)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    n=st.integers(1, 40),
    m=st.integers(1, 40),
    d=st.integers(1, 6),
    offset=st.sampled_from([0.0, 10.0, 1e3, 1e6]),
    seed=st.integers(0, 2**32 - 1),
)
def test_map_sq_dist_zero_diagonal_and_cdist(n, m, d, offset, seed) -> None:
    rng = np.random.default_rng(seed)
    X = offset + rng.standard_normal((n, d))
    Y = offset + rng.standard_normal((m, d))
    # the data are centred first, so being far from the origin costs only the rounding of
    # x - shift (~eps * offset per coordinate), not eps * offset^2
    D = _blocks.map_sq_dist(X, Y)
    ref = cdist(X, Y, "sqeuclidean")
    atol = 64 * np.finfo(float).eps * d * (1.0 + offset)
    np.testing.assert_allclose(D, ref, rtol=1e-10, atol=atol)
    DX = _blocks.map_sq_dist(X, X)
    assert np.all(np.diag(DX) == 0.0)  # exactly, whatever the round-off elsewhere
    assert DX.min() >= 0.0


def test_rbf_on_timestamps_equals_sklearn() -> None:
    """Unix times (~1.7e9 s) with a one-minute lengthscale: |z|^2 ~ 1e15, so the plain
    expansion gave errors of 0.1 in k before the inputs were centred."""
    from sklearn.gaussian_process.kernels import RBF as SkRBF

    t = 1.7e9 + 3600.0 * np.random.default_rng(0).standard_normal((150, 1))
    np.testing.assert_allclose(RBF(60.0)(t), SkRBF(60.0)(t), rtol=0, atol=1e-8)
    np.testing.assert_allclose(RBF(60.0)(t[:50], t[50:]), SkRBF(60.0)(t[:50], t[50:]), atol=1e-8)


def test_map_sq_dist_applies_fn_in_blocks(monkeypatch) -> None:
    monkeypatch.setattr(_blocks, "_TILE", 5)
    monkeypatch.setattr(_blocks, "_THREAD_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_blocks, "_n_workers", lambda: 3)
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((33, 2)), rng.standard_normal((20, 2))
    ref = np.exp(-cdist(X, Y, "sqeuclidean"))
    calls = []

    def in_place(D):
        calls.append(D.shape)
        D *= -1.0
        return np.exp(D, out=D)

    np.testing.assert_allclose(_blocks.map_sq_dist(X, Y, in_place), ref, rtol=1e-12)
    # 5 x 5 tiles: 7 row blocks x 4 column blocks, the last row block 3 rows high
    assert len(calls) == 28 and all(c[0] <= 5 and c[1] <= 5 for c in calls)
    assert sum(c[0] * c[1] for c in calls) == 33 * 20
    # a function that returns a new array is copied back
    np.testing.assert_allclose(_blocks.map_sq_dist(X, Y, lambda D: np.exp(-D)), ref, rtol=1e-12)
    out = np.empty((33, 20))
    res = _blocks.map_sq_dist(X, Y, lambda D: np.exp(-D), out=out)
    assert res is out
    np.testing.assert_allclose(out, ref, rtol=1e-12)


def test_map_sq_dist_dtypes_and_empty() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 3)).astype(np.float32)
    D = _blocks.map_sq_dist(X, X)
    assert D.dtype == np.float32
    np.testing.assert_allclose(D, cdist(X, X, "sqeuclidean"), rtol=1e-5, atol=1e-5)
    assert _blocks.map_sq_dist(X, X.astype(np.float64)).dtype == np.float64
    assert _blocks.map_sq_dist(X[:0], X).shape == (0, 5)
    np.testing.assert_allclose(_blocks.sq_dist(X), _blocks.map_sq_dist(X, X))


def test_symmetric_case_computes_upper_tiles_only(monkeypatch) -> None:
    monkeypatch.setattr(_blocks, "_TILE", 4)
    X = np.random.default_rng(1).standard_normal((10, 3))
    calls = []

    def record(D):
        calls.append(D.shape)
        return D

    D = _blocks.map_sq_dist(X, X, record)
    assert len(calls) == 6  # 3 x 3 tile grid, upper triangle with the diagonal
    np.testing.assert_array_equal(D, D.T)
    np.testing.assert_allclose(D, cdist(X, X, "sqeuclidean"), rtol=1e-10, atol=1e-12)


def test_kernels_unchanged_by_blocking(monkeypatch) -> None:
    rng = np.random.default_rng(3)
    X = rng.standard_normal((57, 3))
    ref = [(k, k(X)) for k in (RBF([0.5, 1.0, 2.0]), Matern(1.2, nu=0.7))]  # unhashable
    monkeypatch.setattr(_blocks, "_TILE", 6)
    monkeypatch.setattr(_blocks, "_THREAD_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_blocks, "_n_workers", lambda: 4)
    for k, K in ref:
        np.testing.assert_allclose(k(X), K, rtol=1e-13, atol=1e-15)


# --------------------------------------------------------------------------- median heuristic
@settings(max_examples=40, deadline=None, derandomize=True)
@given(n=st.integers(2, 40), d=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_median_heuristic_equals_pdist_median(n, d, seed) -> None:
    X = np.random.default_rng(seed).standard_normal((n, d))
    np.testing.assert_allclose(median_heuristic(X), np.median(pdist(X)), rtol=1e-10)


def test_median_heuristic_even_number_of_pairs() -> None:
    """4 points, 6 distances 1, 2, 3, 7, 9, 10: the median is 5 (not sqrt(29))."""
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    assert median_heuristic(X) == pytest.approx(5.0, rel=1e-12)
    assert median_heuristic(np.array([[0.0], [1.0], [3.0]])) == pytest.approx(2.0)


def test_median_heuristic_subsampling_is_reproducible() -> None:
    X = np.random.default_rng(0).standard_normal((300, 2))
    a = median_heuristic(X, max_samples=40, random_state=7)
    assert a == median_heuristic(X, max_samples=40, random_state=7)
    assert a == median_heuristic(X, max_samples=40, random_state=np.random.RandomState(7))
    rows = np.random.RandomState(7).choice(300, 40, replace=False)
    np.testing.assert_allclose(a, np.median(pdist(X[rows])), rtol=1e-10)
    others = {median_heuristic(X, max_samples=40, random_state=s) for s in range(5)}
    assert len(others) > 1
    # no subsampling at or below max_samples
    np.testing.assert_allclose(median_heuristic(X, max_samples=300), np.median(pdist(X)))


def test_median_heuristic_errors() -> None:
    with pytest.raises(ValueError, match="at least two rows"):
        median_heuristic(np.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"only 1 distinct rows among the 4 rows of X"):
        median_heuristic(np.ones((4, 2)))
    with pytest.raises(ValueError, match="max_samples must be >= 2"):
        median_heuristic(np.eye(3), max_samples=1)
    with pytest.raises(TypeError, match="max_samples must be an integer"):
        median_heuristic(np.eye(3), max_samples=2.5)
    with pytest.raises(ValueError, match="X contains NaN"):
        median_heuristic(np.array([[0.0], [np.nan]]))


# --------------------------------------------------------------------------- far-flung inputs
def test_map_sq_dist_overflow_is_inf_never_nan(block_mode) -> None:
    """Rows near 1e200: |x|^2 overflowed in the expansion (inf - inf = NaN). Squared
    distances beyond the float range are now +inf exactly, the rest exact."""
    X = np.array([[1e200, 0.0], [1e200, 1.0], [-1e200, 0.0], [0.0, 0.0], [3.0, 4.0]])
    D = _blocks.map_sq_dist(X, X)
    assert not np.any(np.isnan(D))
    assert D[0, 1] == 1.0 and D[3, 4] == 25.0 and np.all(np.diag(D) == 0.0)
    assert np.isinf(D[0, 2]) and np.isinf(D[0, 3]) and np.isinf(D[2, 4])
    np.testing.assert_array_equal(D, D.T)
    np.testing.assert_array_equal(_blocks.map_sq_dist(X[:2], X[3:]), D[:2, 3:])


@pytest.mark.parametrize("offset", [0.0, 1e8])
def test_map_sq_dist_switches_to_differences_where_the_expansion_loses_digits(offset) -> None:
    """Data spread over 1e6 (scaled) units: the expansion's round-off eps * 1e12 ~ 1e-4 would
    swamp the distance 1e-3 of a close pair; differences keep it exact."""
    rng = np.random.default_rng(0)
    X = offset + 1e6 * rng.standard_normal((30, 2))
    X[1] = X[0] + [1e-3, 0.0]
    assert _blocks.expansion(X, X) is None
    D = _blocks.map_sq_dist(X, X)
    np.testing.assert_allclose(D, cdist(X, X, "sqeuclidean"), rtol=1e-13, atol=0)
    np.testing.assert_allclose(D[0, 1], (X[1, 0] - X[0, 0]) ** 2, rtol=1e-12)
    # per-feature scales, including ones whose reciprocal overflows
    s = np.array([1e-300, 1e300])
    Ds = _blocks.map_sq_dist(X[:5], X[:5], scale=s)
    assert np.all(np.isinf(Ds[~np.eye(5, dtype=bool)])) and np.all(np.diag(Ds) == 0.0)


def test_exact_near_recomputes_entries_within_round_off() -> None:
    rng = np.random.default_rng(1)
    X = 1e3 + rng.standard_normal((20, 3))
    X[1] = X[0] + 1e-9
    X[2] = X[0]
    D = _blocks.map_sq_dist(X, X, exact_near=True)
    assert D[0, 2] == 0.0
    # ~3e-18, where the expansion's round-off is ~1e-13 (the shift costs ~eps / 1e-9)
    np.testing.assert_allclose(D[0, 1], ((X[1] - X[0]) ** 2).sum(), rtol=1e-5)
    np.testing.assert_allclose(D, cdist(X, X, "sqeuclidean"), rtol=1e-9, atol=1e-12)
