"""Kernels refuse results beyond the machine's memory up front, and their products and base
class fail with the cause (issue 28 audit)."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import RBF, Matern, Stationary, kernel_operator


def test_a_gram_matrix_beyond_the_machine_is_refused_before_it_is_formed() -> None:
    X = np.zeros((10**6, 2))  # a 10^6 x 10^6 Gram matrix: 7.28 TiB
    with pytest.raises(ValueError, match=r"Gram matrix of RBF.*would need about .*kernel_operator"):
        RBF()(X)
    with pytest.raises(ValueError, match="would need about"):
        Matern(nu=2.5)(X, X)
    with pytest.raises(ValueError, match=r"gradient tensor.*would need about"):
        RBF().gradient(np.zeros((10**5, 2)))
    with pytest.raises(ValueError, match="would need about"):
        RBF().gram_and_gradient(X)
    with pytest.raises(ValueError, match=r"input gradients.*would need about"):
        RBF().input_gradient(X, X)
    # what fits is computed as before, and diag never forms the matrix
    assert RBF()(X[:3]).shape == (3, 3)
    np.testing.assert_array_equal(RBF().diag(X), np.ones(10**6))


def test_kernel_operator_refuses_non_finite_and_overflowing_vectors() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 2))
    op = kernel_operator(RBF(), X)
    v = rng.standard_normal(50)
    np.testing.assert_allclose(op @ v, RBF()(X) @ v, rtol=1e-12)
    with pytest.raises(ValueError, match="overflows float64"):
        op @ np.full(50, 1e307)
    with pytest.raises(ValueError, match="NaN or inf"):
        op @ np.full(50, np.nan)


def test_the_stationary_base_class_says_what_it_lacks() -> None:
    with pytest.raises(NotImplementedError, match="Stationary is the base class of RBF"):
        Stationary()(np.zeros((2, 1)))
