"""The Krylov core: mBCG equals a dense solve, its tridiagonals are Lanczos', SLQ is
unbiased and exact with n probes, Lanczos is orthonormal, and bad operators are refused."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from kernelkit.kernels import RBF, Matern
from kernelkit.linalg import (
    KernelOperator,
    NotPositiveDefiniteError,
    lanczos,
    lanczos_quadrature,
    mbcg,
    probe_vectors,
    slq_logdet,
)


def _spd(n: int, seed: int, cond: float = 100.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (Q * np.geomspace(1.0, 1.0 / cond, n)) @ Q.T


@given(n=st.integers(1, 40), r=st.integers(1, 5), seed=st.integers(0, 2**16))
@settings(max_examples=40, deadline=None)
def test_mbcg_equals_a_dense_solve(n: int, r: int, seed: int) -> None:
    A = _spd(n, seed)
    B = np.random.default_rng(seed + 1).standard_normal((n, r))
    res = mbcg(lambda V: A @ V, B, tol=1e-12, max_iter=10 * n + 10)
    assert res.converged
    np.testing.assert_allclose(res.solution, np.linalg.solve(A, B), rtol=1e-7, atol=1e-9)
    assert np.all(res.residual_norms <= 1e-12)


def test_mbcg_with_a_preconditioner_and_a_vector() -> None:
    A = _spd(60, 0, cond=1e4)
    b = np.random.default_rng(1).standard_normal(60)
    M = np.diag(np.diag(A)) + 0.5 * A  # an SPD preconditioner
    plain = mbcg(lambda V: A @ V, b, tol=1e-10, max_iter=500)
    pre = mbcg(lambda V: A @ V, b, preconditioner=lambda R: np.linalg.solve(M, R), tol=1e-10)
    assert plain.solution.shape == (60,)
    np.testing.assert_allclose(pre.solution, np.linalg.solve(A, b), rtol=1e-7)
    assert pre.n_iter < plain.n_iter


def test_columns_converge_separately_and_zero_columns_are_zero() -> None:
    A = _spd(30, 2)
    V = np.linalg.eigh(A)[1]
    B = np.column_stack([V[:, 0], np.zeros(30), np.random.default_rng(0).standard_normal(30)])
    res = mbcg(lambda X: A @ X, B, tol=1e-10)
    assert res.n_iter_each[0] == 1  # an eigenvector: one step
    assert res.n_iter_each[1] == 0 and np.all(res.solution[:, 1] == 0)
    assert res.n_iter_each[2] > 1


def test_each_column_stops_at_its_own_tolerance() -> None:
    A = _spd(80, 3, cond=1e4)
    B = np.random.default_rng(4).standard_normal((80, 3))
    res = mbcg(lambda X: A @ X, B, tol=[1e-2, 1e-6, 1e-10], max_iter=1000)
    assert res.converged and np.all(res.residual_norms <= [1e-2, 1e-6, 1e-10])
    assert res.n_iter_each[0] < res.n_iter_each[1] < res.n_iter_each[2] == res.n_iter
    # a column alone at its tolerance takes the same steps as in the batch (up to one,
    # where round-off puts a residual at the threshold) to the same solution (to what
    # the tolerance and the condition number 1e4 leave)
    alone = mbcg(lambda X: A @ X, B[:, 1], tol=1e-6, max_iter=1000)
    assert abs(alone.n_iter - res.n_iter_each[1]) <= 1
    np.testing.assert_allclose(res.solution[:, 1], alone.solution, rtol=1e-2)
    exact = np.linalg.solve(A, B)
    assert np.linalg.norm(res.solution[:, 2] - exact[:, 2]) <= 1e-5 * np.linalg.norm(exact[:, 2])
    with pytest.raises(ValueError, match="tol has 2 entries for 3"):
        mbcg(lambda X: A @ X, B, tol=[1e-2, 1e-3])
    with pytest.raises(ValueError, match="tol must be in"):
        mbcg(lambda X: A @ X, B, tol=[1e-2, 1.5, 1e-3])


def test_cg_tridiagonal_is_the_lanczos_tridiagonal() -> None:
    n = 25
    A = _spd(n, 3)
    b = np.random.default_rng(4).standard_normal(n)
    res = mbcg(lambda V: A @ V, b, tol=1e-14, max_iter=8, warn=False)
    diag, off = res.tridiagonal(0)
    lz = lanczos(lambda V: A @ V, b, 8)
    np.testing.assert_allclose(diag, lz.diagonal, rtol=1e-8)
    np.testing.assert_allclose(np.abs(off), np.abs(lz.off_diagonal), rtol=1e-8)


def test_lanczos_basis_is_orthonormal_and_tridiagonalises() -> None:
    A = _spd(80, 5, cond=1e6)
    lz = lanczos(lambda V: A @ V, np.ones(80), 40)
    Q = lz.basis
    np.testing.assert_allclose(Q.T @ Q, np.eye(lz.n_iter), atol=1e-12)
    T = np.diag(lz.diagonal) + np.diag(lz.off_diagonal, 1) + np.diag(lz.off_diagonal, -1)
    np.testing.assert_allclose(Q.T @ A @ Q, T, atol=1e-10)


def test_lanczos_stops_on_an_invariant_space() -> None:
    A = np.diag([1.0, 2.0, 3.0, 4.0])
    lz = lanczos(lambda V: A @ V, np.array([1.0, 1.0, 0.0, 0.0]), 4)
    assert lz.n_iter == 2


@pytest.mark.parametrize("n", [1, 7, 30])
def test_slq_is_exact_with_n_probes_and_n_steps(n: int) -> None:
    A = _spd(n, n, cond=1e3)
    est = slq_logdet(lambda V: A @ V, n, n_probes=n, tol=1e-13, max_iter=4 * n)
    assert est.standard_error == 0.0
    assert est.value == pytest.approx(np.linalg.slogdet(A)[1], abs=1e-8)


def test_slq_is_unbiased() -> None:
    """Seeded Monte Carlo: the mean of 200 independent 4-probe estimates is within 4
    standard errors of log det A (the quadrature is run to convergence)."""
    n = 60
    A = _spd(n, 11, cond=1e3) + 0.1 * np.eye(n)
    exact = np.linalg.slogdet(A)[1]
    values = [
        slq_logdet(lambda V: A @ V, n, n_probes=4, tol=1e-12, random_state=s).value
        for s in range(200)
    ]
    se = np.std(values, ddof=1) / np.sqrt(len(values))
    assert abs(np.mean(values) - exact) < 4 * se
    assert se < 0.05 * abs(exact)


def test_slq_standard_error_is_honest() -> None:
    n = 60
    A = _spd(n, 12, cond=1e3)
    ests = [slq_logdet(lambda V: A @ V, n, n_probes=8, random_state=s) for s in range(100)]
    spread = np.std([e.value for e in ests], ddof=1)
    mean_se = np.mean([e.standard_error for e in ests])
    assert 0.6 < mean_se / spread < 1.6


def test_probes_have_the_preconditioner_covariance() -> None:
    class Diagonal:
        def __init__(self, d: np.ndarray) -> None:
            self.d = d

        def sqrt_matmat(self, B: np.ndarray) -> np.ndarray:
            return np.sqrt(self.d)[:, None] * B

    d = np.array([1.0, 4.0, 9.0])
    Z = probe_vectors(3, 20000, preconditioner=Diagonal(d), random_state=0)
    assert Z.shape == (3, 3)  # n_probes >= n: the exact probes
    np.testing.assert_allclose(Z @ Z.T / 3, np.diag(d))
    Z = probe_vectors(5000, 40, random_state=0)
    assert set(np.unique(Z)) == {-1.0, 1.0}
    np.testing.assert_allclose(Z.T @ Z / 5000, np.eye(40), atol=0.07)


def test_reproducible_probes() -> None:
    a = probe_vectors(100, 5, random_state=3)
    b = probe_vectors(100, 5, random_state=3)
    assert np.array_equal(a, b)


def test_not_reaching_tol_warns_with_the_residual() -> None:
    A = _spd(100, 6, cond=1e8)
    b = np.ones(100)
    with pytest.warns(ConvergenceWarning, match="relative residual"):
        res = mbcg(lambda V: A @ V, b, tol=1e-10, max_iter=5)
    assert not res.converged
    assert res.residual_norms[0] > 1e-10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mbcg(lambda V: A @ V, b, tol=1e-10, max_iter=5, warn=False)


def test_an_indefinite_operator_is_reported() -> None:
    A = np.diag([1.0, -1.0, 2.0])
    with pytest.raises(NotPositiveDefiniteError, match="not positive definite"):
        mbcg(lambda V: A @ V, np.ones(3), tol=1e-10)
    # a "kernel" that is not PSD: detected by the Lanczos tridiagonal's Ritz values
    X = np.linspace(0, 1, 20)[:, None]
    K = np.cos(8 * (X - X.T)) - 0.6  # indefinite
    with pytest.raises(NotPositiveDefiniteError):
        res = mbcg(lambda V: (K + 1e-3 * np.eye(20)) @ V, np.ones((20, 3)), tol=1e-12)
        lanczos_quadrature(res)


@pytest.mark.parametrize("bad", [0.0, 1.0, -1.0, np.nan])
def test_tol_is_checked(bad: float) -> None:
    with pytest.raises(ValueError, match="tol"):
        mbcg(lambda V: V, np.ones(2), tol=bad)


def test_nan_right_hand_side_is_refused() -> None:
    with pytest.raises(ValueError, match="NaN"):
        mbcg(lambda V: V, np.array([1.0, np.nan]))


def test_kernel_operator_products_and_gradient() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 3))
    k = Matern(nu=2.5, lengthscale=np.array([0.5, 1.0, 2.0]), variance=1.5)
    op = KernelOperator(k, X, noise=0.2, block_size=40)
    K = k(X) + 0.2 * np.eye(150)
    V = rng.standard_normal((150, 4))
    np.testing.assert_allclose(op @ V, K @ V, rtol=1e-12, atol=1e-12)
    Xn = rng.standard_normal((33, 3))
    np.testing.assert_allclose(op.cross(Xn, V), k(Xn, X) @ V, atol=1e-12)
    np.testing.assert_allclose(op.diag(), np.diag(K))
    A, B = rng.standard_normal((150, 3)), rng.standard_normal((150, 3))
    np.testing.assert_allclose(
        op.gradient_dot(A, B), k.gradient_dot(X, A @ B.T), rtol=1e-9, atol=1e-9
    )
    assert op.n_passes == 2


def test_kernel_operator_solves_with_cg() -> None:
    rng = np.random.default_rng(1)
    X = rng.uniform(-2, 2, (300, 2))
    op = KernelOperator(RBF(lengthscale=0.7), X, noise=0.05)
    y = rng.standard_normal(300)
    res = mbcg(op.matmat, y, tol=1e-10)
    np.testing.assert_allclose(
        res.solution, np.linalg.solve(RBF(lengthscale=0.7)(X) + 0.05 * np.eye(300), y), rtol=1e-6
    )
    assert op.n_passes == res.n_iter


def test_lanczos_continues_where_it_stopped() -> None:
    A = _spd(60, 9, cond=1e4)
    b = np.random.default_rng(2).standard_normal(60)
    calls = []

    def matmat(V: np.ndarray) -> np.ndarray:
        calls.append(1)
        return A @ V

    whole = lanczos(matmat, b, 30)
    calls.clear()
    part = lanczos(matmat, b, 12)
    rest = lanczos(matmat, None, 30, previous=part)
    assert len(calls) == 30  # no product repeated
    np.testing.assert_allclose(rest.diagonal, whole.diagonal, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(rest.off_diagonal, whole.off_diagonal, rtol=1e-10)
    np.testing.assert_allclose(np.abs(rest.basis.T @ whole.basis), np.eye(30), atol=1e-8)


def test_lanczos_with_capacity_continues_in_place_and_matches_one_run() -> None:
    """Step by step into one preallocated array: the basis is never copied and equals a
    single run's (the same products, in the same order); a bad capacity is named."""
    rng = np.random.default_rng(0)
    G = rng.standard_normal((40, 40))
    A = G @ G.T + 40 * np.eye(40)
    start = rng.standard_normal((40, 3))
    whole = lanczos(lambda V: A @ V, start, 5)
    lz = lanczos(lambda V: A @ V, start, 1, capacity=15)
    for k in range(2, 6):
        nxt = lanczos(lambda V: A @ V, None, k, previous=lz)
        assert np.shares_memory(nxt.basis, lz.basis)
        lz = nxt
    np.testing.assert_allclose(lz.basis, whole.basis, atol=1e-12)
    np.testing.assert_allclose(lz.projection, whole.projection, atol=1e-10)
    with pytest.raises(ValueError, match="capacity"):
        lanczos(lambda V: A @ V, start, 1, capacity=0)
