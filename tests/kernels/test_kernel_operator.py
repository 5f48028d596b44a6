"""``K + noise I`` as a LinearOperator by row blocks (no Dask needed)."""

from __future__ import annotations

import doctest
import sys

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.linalg import LinearOperator, cg, eigsh

from kernelkit.kernels import RBF, Intersection, Linear, Matern, White, kernel_operator

RNG = np.random.default_rng(1)
X = RNG.standard_normal((37, 2))
KERNEL = RBF(0.9) + 0.5 * Matern(nu=1.5) * Linear() + White(0.05)


@pytest.mark.parametrize("block_size", [1, 5, 37, 100, None])
def test_matvec_and_matmat_equal_dense_products(block_size):
    K = KERNEL(X)
    A = kernel_operator(KERNEL, X, noise=0.3, block_size=block_size)
    assert isinstance(A, LinearOperator) and A.shape == (37, 37) and A.dtype == np.float64
    v, V = RNG.standard_normal(37), RNG.standard_normal((37, 3))
    dense = K + 0.3 * np.eye(37)
    np.testing.assert_allclose(A @ v, dense @ v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(A.matvec(v[:, None]), (dense @ v)[:, None], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(A @ V, dense @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(A.rmatvec(v), dense @ v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(A.T @ V, dense @ V, rtol=1e-12, atol=1e-12)


def test_cg_solves_the_regularised_system():
    y = RNG.standard_normal(37)
    A = kernel_operator(RBF(0.6), X, noise=0.1, block_size=8)
    a, info = cg(A, y, rtol=1e-12, maxiter=1000)
    assert info == 0
    exact = scipy.linalg.solve(RBF(0.6)(X) + 0.1 * np.eye(37), y, assume_a="pos")
    np.testing.assert_allclose(a, exact, rtol=1e-7, atol=1e-7 * np.abs(exact).max())


def test_top_eigenvalues_by_lanczos():
    A = kernel_operator("rbf", X, block_size=10)
    top = np.sort(eigsh(A, k=4, which="LA", return_eigenvectors=False))
    np.testing.assert_allclose(top, np.linalg.eigvalsh(RBF()(X))[-4:], rtol=1e-9)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    n=st.integers(1, 25),
    d=st.integers(1, 3),
    block_size=st.integers(1, 30),
    k=st.integers(1, 3),
    noise=st.floats(0.0, 2.0),
)
def test_products_match_dense_for_any_shape_and_block_size(n, d, block_size, k, noise):
    rng = np.random.default_rng(n * 100 + d * 10 + block_size)
    Xs, V = rng.standard_normal((n, d)), rng.standard_normal((n, k))
    A = kernel_operator(KERNEL, Xs, noise=noise, block_size=block_size)
    np.testing.assert_allclose(A @ V, (KERNEL(Xs) + noise * np.eye(n)) @ V, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"noise": -1.0}, ValueError, r"noise must be finite and >= 0, got -1.0"),
        ({"noise": np.nan}, ValueError, r"noise must be finite and >= 0"),
        ({"noise": "0.1"}, TypeError, r"noise must be a number, got str"),
        ({"block_size": 0}, ValueError, r"block_size must be >= 1, got 0"),
        ({"block_size": 2.0}, TypeError, r"block_size must be an integer, got float"),
    ],
)
def test_bad_arguments_are_refused(kwargs, error, message):
    with pytest.raises(error, match=message):
        kernel_operator(RBF(), X, **kwargs)


def test_bad_inputs_and_kernels_are_refused():
    with pytest.raises(TypeError, match=r"kernel_operator needs a kernel on vectors"):
        kernel_operator(Intersection(), X)
    with pytest.raises(ValueError, match=r"X must be 2-dimensional"):
        kernel_operator(RBF(), X[:, 0])
    with pytest.raises(ValueError, match=r"X contains NaN"):
        kernel_operator(RBF(), np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match=r"lengthscale"):  # ARD size, checked up front
        kernel_operator(RBF(lengthscale=np.ones(3)), X)
    with pytest.raises(ValueError, match=r"unknown kernel|not a kernel name|'nope'"):
        kernel_operator("nope", X)


def test_oversized_block_is_refused(monkeypatch):
    import kernelkit._memory as memory

    monkeypatch.setattr(memory, "memory_limit", lambda: 1000)
    with pytest.raises(
        ValueError, match=r"kernel_operator: a block of shape \(37, 37\).*block_size"
    ):
        kernel_operator(RBF(), X, block_size=37)


def test_kernel_operator_docstring_examples():
    import kernelkit.kernels.blockwise as blockwise

    finder = doctest.DocTestFinder()
    (test,) = [t for t in finder.find(blockwise) if t.name.endswith(".kernel_operator")]
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_gram_without_dask_says_how_to_get_it(monkeypatch):
    from kernelkit.kernels import gram

    for name in ("dask", "dask.array"):
        monkeypatch.setitem(sys.modules, name, None)  # makes `import dask.array` fail
    with pytest.raises(ImportError, match=r"kernelkit.kernels.gram needs Dask.*kernelkit\[dask\]"):
        gram(RBF(), X)
    np.testing.assert_allclose(kernel_operator(RBF(), X) @ np.ones(37), RBF()(X).sum(axis=1))
