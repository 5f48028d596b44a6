"""The hybrid dense / sparse Gram product and cosine normalisation."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

import kernelkit.graphs.histograms
import kernelkit.graphs.normalize
import kernelkit.graphs.sparse_gram
from kernelkit.graphs import gram, normalize_gram, normalize_rows
from kernelkit.graphs.histograms import code_histogram


@pytest.mark.parametrize(
    "module",
    [kernelkit.graphs.sparse_gram, kernelkit.graphs.normalize, kernelkit.graphs.histograms],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 30),
    st.integers(0, 30),
    st.integers(1, 40),
    st.floats(0.01, 0.9),
    st.integers(0, 2**31 - 1),
    st.sampled_from([1, 4, 512, 10**9]),
)
def test_gram_equals_dense_product(nx_, ny_, p, density, seed, ratio):
    rng = np.random.RandomState(seed)
    X = sparse.random(nx_, p, density=density, random_state=rng, format="csr")
    X.data = np.round(X.data * 5)
    old = kernelkit.graphs.sparse_gram.DENSE_RATIO
    kernelkit.graphs.sparse_gram.DENSE_RATIO = ratio  # from all-sparse to all-dense splits
    try:
        np.testing.assert_allclose(gram(X), (X @ X.T).toarray(), atol=1e-12)
        if ny_:
            Y = sparse.random(ny_, p, density=density, random_state=rng, format="csr")
            np.testing.assert_allclose(gram(X, Y), (X @ Y.T).toarray(), atol=1e-12)
    finally:
        kernelkit.graphs.sparse_gram.DENSE_RATIO = old


def test_gram_large_counts_stay_exact():
    # beyond 2^24 a float32 product would round; gram must notice and stay in float64
    X = sparse.csr_matrix(np.array([[4097.0, 1.0], [4096.0, 3.0]]))
    kernelkit.graphs.sparse_gram.DENSE_RATIO, old = 10**9, kernelkit.graphs.sparse_gram.DENSE_RATIO
    try:
        K = gram(X)
        assert K.tolist() == (X @ X.T).toarray().tolist()
        assert K[0, 0] == 4097.0**2 + 1.0
        small = sparse.csr_matrix(np.array([[3.0, 1.0], [2.0, 5.0]]))
        assert gram(small).dtype == np.float64
        assert gram(small).tolist() == [[10.0, 11.0], [11.0, 29.0]]
    finally:
        kernelkit.graphs.sparse_gram.DENSE_RATIO = old


def test_gram_column_mismatch():
    with pytest.raises(ValueError, match="same number of columns"):
        gram(sparse.eye(3), sparse.eye(4))


def test_normalize_gram_matches_definition():
    rng = np.random.RandomState(0)
    F = rng.rand(6, 4)
    K = F @ F.T
    N = normalize_gram(K)
    d = np.sqrt(np.diag(K))
    np.testing.assert_allclose(N, K / np.outer(d, d))
    np.testing.assert_allclose(np.diag(N), 1.0)
    # rectangular, with given diagonals
    np.testing.assert_allclose(normalize_gram(K[:2, 2:], np.diag(K)[:2], np.diag(K)[2:]), N[:2, 2:])
    # in place
    K2 = K.copy()
    out = normalize_gram(K2, copy=False)
    assert out is K2
    np.testing.assert_allclose(K2, N)
    # unchanged input by default
    np.testing.assert_allclose(K, F @ F.T)


def test_normalize_zero_self_similarity_gives_zero():
    K = np.array([[4.0, 0.0], [0.0, 0.0]])
    assert normalize_gram(K).tolist() == [[1.0, 0.0], [0.0, 0.0]]
    X = sparse.csr_matrix(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(normalize_rows(X).toarray(), [[0.6, 0.8], [0.0, 0.0]])


def test_normalize_rows_with_external_norms():
    X = sparse.csr_matrix(np.array([[1.0, 1.0]]))
    np.testing.assert_allclose(normalize_rows(X, [8.0]).toarray(), [[0.5**1.5, 0.5**1.5]])


def test_normalize_errors():
    with pytest.raises(ValueError, match="square"):
        normalize_gram(np.ones((2, 3)))
    with pytest.raises(ValueError, match="shapes"):
        normalize_gram(np.ones((2, 2)), np.ones(3))
    with pytest.raises(ValueError, match=">= 0"):
        normalize_gram(np.array([[-1.0]]))
    with pytest.raises(ValueError, match="NaN"):
        normalize_gram(np.array([[np.nan]]))


def test_code_histogram_counts_and_unseen_norms():
    H, sq = code_histogram(np.array([0, 1, 1, 3, 2]), np.array([0, 0, 0, 1, 2]), 4, 2)
    assert H.toarray().tolist() == [[1, 2], [0, 0], [0, 0], [0, 0]]
    assert sq.tolist() == [5.0, 1.0, 1.0, 0.0]
    H, sq = code_histogram(np.empty(0, np.int64), np.empty(0, np.int64), 2, 3)
    assert H.shape == (2, 3) and H.nnz == 0 and sq.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "X, error, message",
    [
        (None, TypeError, "X must be an array of numbers, got NoneType"),  # before: [[0.]]
        ("features", TypeError, "X must be an array of numbers, got str"),
        (np.array([1.0, 2.0]), ValueError, "X must be 2-dimensional"),
        (np.array([["a", "b"]]), TypeError, "X must be an array of numbers"),
        (np.array([[1.0, np.nan]]), ValueError, "X contains NaN or infinity"),
        (sparse.csr_matrix(np.array([[1.0, np.inf]])), ValueError, "X contains NaN or inf"),
        (sparse.csr_matrix(np.array([[1j, 0]])), TypeError, "X must hold real numbers"),
    ],
    ids=["None", "str", "1-D", "strings", "nan", "sparse-inf", "complex"],
)
def test_gram_rejects_what_is_not_a_feature_matrix(X, error, message):
    with pytest.raises(error, match=message):
        gram(X)
    if X is not None:  # Y=None is the symmetric case
        with pytest.raises(error, match=message.replace("X ", "Y ")):
            gram(np.ones((1, 2)), X)


def test_gram_accepts_dense_integer_and_sparse_array_input():
    assert gram(np.array([[1, 2], [0, 1]])).tolist() == [[5.0, 2.0], [2.0, 1.0]]
    assert gram(sparse.csr_array(np.array([[1.0, 2.0]]))).tolist() == [[5.0]]
    assert gram(sparse.csr_matrix((2, 0))).tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_normalize_rejects_nan_norms_and_loose_booleans():
    with pytest.raises(ValueError, match="self-similarities must be finite"):
        normalize_rows(sparse.csr_matrix(np.ones((1, 2))), [np.nan])
    with pytest.raises(ValueError, match="self-similarities must be finite"):
        normalize_gram(np.ones((1, 1)), [np.nan], [1.0])
    with pytest.raises(TypeError, match="copy must be a bool"):
        normalize_gram(np.ones((1, 1)), copy="no")
