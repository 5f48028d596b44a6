"""LSI and random projection + LSI (Vempala 1997 Ch. 4)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from kernelkit.geometry.latent_semantic import lsi, project_terms, random_projection_lsi


def _matrix(n=60, m=40, seed=0):
    return np.random.RandomState(seed).poisson(0.7, size=(n, m)).astype(float)


@pytest.mark.parametrize("k", [1, 3, 7])
def test_eckart_young(k):
    """Thm 8: ‖A − A_k‖_F² is the sum of the tail σ_i², and V_k D_k has Gram A_kᵀ A_k."""
    A = _matrix()
    Y = lsi(A, k)
    assert Y.shape == (A.shape[1], k)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    A_k = (U[:, :k] * s[:k]) @ Vt[:k]
    assert np.allclose(Y @ Y.T, A_k.T @ A_k, atol=1e-9)
    # the columns' norms are the singular values, in decreasing order
    assert np.allclose(np.linalg.norm(Y, axis=0), s[:k])
    # projecting A on the span of its top-k left singular vectors gives back Y
    assert np.allclose(np.abs(A.T @ U[:, :k]), np.abs(Y), atol=1e-9)
    tail = np.sum(s[k:] ** 2)
    assert np.isclose(np.linalg.norm(A - A_k) ** 2, tail)
    # and no other rank-k matrix of the same column space does better (a random one)
    C = A_k + 1e-3 * np.random.RandomState(1).standard_normal(A.shape) @ (Vt[:k].T @ Vt[:k])
    assert np.linalg.norm(A - C) ** 2 >= tail


def test_dense_equals_sparse_both_solvers():
    A = _matrix(80, 50)
    for k in (2, 5, 20):  # 5: ARPACK on both; 20: LAPACK (dense) vs ARPACK (sparse)
        assert np.allclose(lsi(A, k), lsi(sp.csr_array(A), k), atol=1e-8)
        assert np.allclose(lsi(A, k), lsi(sp.csc_matrix(A), k), atol=1e-8)
    # k = min(shape): the sparse path falls back to LAPACK
    B = _matrix(30, 6)
    assert np.allclose(lsi(B, 6), lsi(sp.csr_array(B), 6), atol=1e-8)


def test_sign_convention_and_determinism():
    A = _matrix()
    Y = lsi(A, 4)
    top = Y[np.argmax(np.abs(Y), axis=0), np.arange(4)]
    assert (top > 0).all()
    assert np.array_equal(lsi(sp.csr_array(A), 4), lsi(sp.csr_array(A), 4))
    # the LSI of -A is that of A (signs are fixed, not inherited)
    assert np.allclose(lsi(-A, 4), Y, atol=1e-9)


def test_block_corpus_separates_topics():
    """ε = 0 (proof of Thm 9): documents of different blocks are orthogonal in LSI space."""
    rng = np.random.RandomState(0)
    A = sp.block_diag([rng.poisson(1.0, size=(30, 20)) for _ in range(3)]).astype(float)
    Y = lsi(A, 3)
    U = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    G = U @ U.T
    block = np.repeat(np.arange(3), 20)
    same = block[:, None] == block[None, :]
    assert np.allclose(G[~same], 0.0, atol=1e-8)
    assert np.allclose(np.abs(G[same]), 1.0, atol=1e-8)


def test_projection_scaling_monte_carlo():
    """Lemma 8: E‖Rᵀ v‖² = l/n for a unit v, i.e. E‖B v‖² = ‖v‖² after the √(n/l) scaling.

    400 independent projections of a fixed unit vector (n = 200, l = 20): the sample mean of
    ‖B v‖² has standard deviation ≈ sqrt(2/l)/sqrt(400) ≈ 0.016, tolerance 0.08 (5 sd).
    """
    n, l = 200, 20
    v = np.random.RandomState(0).standard_normal((n, 1))
    v /= np.linalg.norm(v)
    for coupling in ("orthogonal", "iid", "sparse"):
        sq = [
            float(np.sum(project_terms(v, l, random_state=s, coupling=coupling) ** 2))
            for s in range(400)
        ]
        assert abs(np.mean(sq) - 1.0) < 0.08, coupling


def test_orthogonal_projection_is_column_orthonormal():
    B = project_terms(np.eye(50), 10, random_state=3)  # = √(n/l) Rᵀ
    R = B.T * np.sqrt(10 / 50)
    assert np.allclose(R.T @ R, np.eye(10), atol=1e-12)


def test_jl_distortion_of_pairwise_distances():
    """Lemma 8 / §4.4: pairwise distances within (1 ± ε) for l = Ω(log m / ε²).

    m = 20 points in n = 1000 dimensions, l = 400: the relative distortion of a distance
    has standard deviation ≈ sqrt(1/(2l)) ≈ 0.035; all 190 pairs within ε = 0.25 (7 sd) for
    a fixed seed, and the median distortion below 0.05.
    """
    rng = np.random.RandomState(0)
    A = rng.standard_normal((1000, 20))
    B = project_terms(A, 400, random_state=1)
    i, j = np.triu_indices(20, 1)
    d0 = np.linalg.norm(A[:, i] - A[:, j], axis=0)
    d1 = np.linalg.norm(B[:, i] - B[:, j], axis=0)
    assert np.all(np.abs(d1 / d0 - 1.0) < 0.25)
    assert np.median(np.abs(d1 / d0 - 1.0)) < 0.05


def test_random_projection_lsi_close_to_lsi():
    """Thms 10–11: with l large the projected LSI keeps the spectrum and the Gram matrix."""
    rng = np.random.RandomState(0)
    # a strong rank-3 signal plus small noise, 500 terms, 60 documents
    A = rng.standard_normal((500, 3)) @ rng.standard_normal((3, 60)) * 3
    A += 0.1 * rng.standard_normal(A.shape)
    Y = lsi(A, 3)
    Z = random_projection_lsi(A, 300, 3, random_state=0)
    assert Z.shape == Y.shape
    rel = np.linalg.norm(Z @ Z.T - Y @ Y.T) / np.linalg.norm(Y @ Y.T)
    assert rel < 0.2
    # Thm 11 (with ε = 0.25): ‖B_k‖₂² ≥ (1 − ε) ‖A_k‖₂²
    assert np.linalg.norm(Z[:, 0]) ** 2 >= 0.75 * np.linalg.norm(Y[:, 0]) ** 2


def test_random_projection_sparse_input_and_seed():
    A = _matrix(200, 30)
    for coupling in ("orthogonal", "iid", "sparse"):
        a = random_projection_lsi(A, 40, 4, random_state=7, coupling=coupling)
        b = random_projection_lsi(sp.csr_array(A), 40, 4, random_state=7, coupling=coupling)
        assert np.allclose(a, b, atol=1e-8)
        assert np.array_equal(a, random_projection_lsi(A, 40, 4, random_state=7, coupling=coupling))
    assert np.array_equal(
        random_projection_lsi(A, 40, 4, random_state=7, coupling="orf"),
        random_projection_lsi(A, 40, 4, random_state=7),
    )
    assert not np.allclose(
        random_projection_lsi(A, 40, 4, random_state=7),
        random_projection_lsi(A, 40, 4, random_state=8),
    )


def test_bad_input():
    A = _matrix(20, 10)
    with pytest.raises(ValueError, match="k=11 is larger than min"):
        lsi(A, 11)
    low_rank = np.outer(np.arange(1.0, 21.0), np.ones(10))  # rank 1
    with pytest.raises(ValueError, match="larger than the rank"):
        lsi(low_rank, 2)
    with pytest.raises(ValueError, match="larger than the rank"):
        lsi(sp.csr_array(low_rank), 2)
    with pytest.raises(ValueError, match="larger than the rank"):
        lsi(np.zeros((5, 4)), 1)
    with pytest.raises(ValueError, match="2-dimensional"):
        lsi(np.ones(5), 1)
    with pytest.raises(ValueError, match="2-dimensional"):
        lsi(np.ones((2, 2, 2)), 1)
    with pytest.raises(ValueError, match="NaN"):
        lsi(np.full((3, 3), np.nan), 1)
    with pytest.raises(ValueError, match="NaN"):
        lsi(sp.csr_array(np.full((3, 3), np.inf)), 1)
    with pytest.raises(TypeError, match="k must be an integer"):
        lsi(A, 2.0)
    with pytest.raises(ValueError, match="k must be >= 1"):
        lsi(A, 0)
    with pytest.raises(TypeError, match="A must"):
        lsi("abc", 1)
    with pytest.raises(ValueError, match="l=3 must be >= k=4"):
        random_projection_lsi(A, 3, 4)
    with pytest.raises(ValueError, match="l=21 is larger than the number of terms"):
        random_projection_lsi(A, 21, 4)
    with pytest.raises(ValueError, match="coupling"):
        random_projection_lsi(A, 5, 2, coupling="hadamard")
    with pytest.raises(TypeError, match="l must be an integer"):
        random_projection_lsi(A, 5.5, 2)
