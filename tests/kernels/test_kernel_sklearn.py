"""Kernels where scikit-learn takes a kernel callable, and equality / cloning (issue 11, §2).

``pairwise_kernels`` (behind ``KernelRidge`` and ``Nystroem``) calls a callable kernel on
pairs of 1-D rows, so ``k(x, y)`` with two vectors is the number ``k(x, y)``; ``SVC`` calls it
on whole matrices. Each must reproduce the kernel's own Gram matrix. Kernels compare equal
when their parameters are equal, so ``k == clone(k)`` for scikit-learn's ``clone`` too.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_cases import example_kernels
from sklearn.base import clone
from sklearn.kernel_approximation import Nystroem
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.svm import SVC

from kernelkit.kernels import (
    RBF,
    Angular,
    Constant,
    Intersection,
    Laplace,
    Linear,
    Matern,
    Polynomial,
    Precomputed,
    RationalQuadratic,
    Sinc,
    White,
    compose,
    exp,
    poly,
)

rng = np.random.default_rng(0)
X = rng.standard_normal((25, 3))
X2 = rng.standard_normal((7, 3))
y = X[:, 0] - 0.5 * X[:, 1] + 0.1 * rng.standard_normal(25)

SKLEARN_KERNELS = [
    RBF(1.3, 0.7),
    RBF([0.5, 1.0, 2.0]),
    Matern(1.1, nu=1.5),
    Matern(0.9, nu=0.7),
    Laplace(2.0),
    RationalQuadratic(1.0, shape=2.0),
    Sinc(2.0),
    Linear(0.5),
    Polynomial(2, 0.3, 1.0),
    Angular(),
    RBF(1.5) + White(0.2),
    RBF(1.5) * Linear() + Constant(0.5),
    2.0 * Matern(nu=2.5),
]


@pytest.mark.parametrize("k", SKLEARN_KERNELS, ids=repr)
def test_pairs_of_rows_give_the_number_k_x_y(k) -> None:
    K = k(X, X2)
    value = k(X[3], X2[5])
    assert isinstance(value, float)
    np.testing.assert_allclose(value, K[3, 5], rtol=1e-12, atol=1e-14)
    # the same row object twice is k(x, x), White noise included, as on the Gram diagonal
    x = X[3]
    np.testing.assert_allclose(k(x, x), k(X)[3, 3], rtol=1e-12)
    # lists of numbers are rows too
    np.testing.assert_allclose(k(X[3].tolist(), list(X2[5])), K[3, 5], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("k", SKLEARN_KERNELS, ids=repr)
def test_pairwise_kernels_equals_the_gram_matrix(k) -> None:
    np.testing.assert_allclose(
        pairwise_kernels(X, metric=k), k(X), rtol=1e-10, atol=1e-12 * np.abs(k(X)).max()
    )
    np.testing.assert_allclose(pairwise_kernels(X, X2, metric=k), k(X, X2), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k", SKLEARN_KERNELS, ids=repr)
def test_sklearn_kernel_ridge(k) -> None:
    """``KernelRidge(kernel=k)`` failed: ``pairwise_kernels`` calls k on 1-D rows."""
    alpha = 0.3
    model = KernelRidge(kernel=k, alpha=alpha).fit(X, y)
    K = k(X)
    dual = np.linalg.solve(K + alpha * np.eye(len(X)), y)
    scale = max(1.0, float(np.abs(dual).max()))
    np.testing.assert_allclose(model.dual_coef_, dual, rtol=1e-8, atol=1e-9 * scale)
    np.testing.assert_allclose(
        model.predict(X2), k(X2, X) @ dual, rtol=1e-8, atol=1e-9 * scale * len(X)
    )


@pytest.mark.parametrize("k", SKLEARN_KERNELS, ids=repr)
def test_sklearn_nystroem(k) -> None:
    """``Nystroem(kernel=k)`` with every training row as a component reproduces the Gram
    matrix (it failed like KernelRidge)."""
    if isinstance(k, (Linear, Polynomial)) or "Linear" in repr(k):
        pytest.skip("low-rank Gram matrix: the Nystroem pseudo-inverse is not exact")
    if "White" in repr(k):
        pytest.skip("white noise is on k(X) only, not on k(X, basis): no feature map has it")
    ny = Nystroem(kernel=k, n_components=len(X), random_state=0).fit(X)
    Z = ny.transform(X)
    np.testing.assert_allclose(Z @ Z.T, k(X), rtol=0, atol=1e-7)
    np.testing.assert_allclose(ny.transform(X2) @ Z.T, k(X2, X), rtol=0, atol=1e-7)


@pytest.mark.parametrize("k", SKLEARN_KERNELS, ids=repr)
def test_sklearn_svc_equals_precomputed_gram(k) -> None:
    labels = (y > np.median(y)).astype(int)
    ours = SVC(kernel=k, C=1.0).fit(X, labels)
    ref = SVC(kernel="precomputed", C=1.0).fit(k(X), labels)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(
        ours.decision_function(X2), ref.decision_function(k(X2, X)), rtol=1e-6, atol=1e-8
    )


def test_one_dimensional_input_alone_is_still_an_error() -> None:
    for k in (RBF(), Linear(), RBF() + Linear()):
        with pytest.raises(ValueError, match=r"X must be 2-dimensional.*reshape"):
            k(X[0])
        with pytest.raises(ValueError, match=r"X must be 2-dimensional.*reshape"):
            k.diag(X[0])
        with pytest.raises(ValueError, match=r"X must be 2-dimensional"):
            k(X[0], X2)  # a row against a matrix
        with pytest.raises(ValueError, match="different numbers of features"):
            k(X[0], X2[0, :2])


# --------------------------------------------------------------------------- equality
EXAMPLES = example_kernels()


@pytest.mark.parametrize(("name", "k"), EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_equal_to_its_clones(name, k) -> None:
    for c in (k.clone(), clone(k)):
        assert c == k and k == c and not (c != k)
        assert hash(c) == hash(k)
        np.testing.assert_array_equal(c(X), k(X))
    if k.n_dims:
        changed = k.with_theta(k.theta + 0.25)
        assert changed != k and k != changed


def test_equality_compares_parameters_by_value() -> None:
    assert RBF(2.0) == RBF(2.0) and RBF(2.0) != RBF(3.0)
    assert RBF(np.array([1.0, 2.0])) == RBF([1.0, 2.0])  # ARD arrays by value
    assert RBF([1.0, 2.0]) != RBF([1.0, 3.0])
    assert RBF([1.0]) != RBF(1.0)  # ARD of one feature is not the isotropic kernel
    assert RBF(2.0) == RBF(np.float64(2.0)) == RBF(2)
    assert RBF(lengthscale_bounds="fixed") != RBF()
    assert RBF(lengthscale_bounds=(1e-5, 1e5)) == RBF(lengthscale_bounds=np.array([1e-5, 1e5]))
    assert Matern(nu=1.5) != Matern(nu=2.5)
    assert Polynomial(2) != Polynomial(3)
    assert Precomputed(np.eye(3)) == Precomputed(np.eye(3).tolist())
    assert Precomputed(np.eye(3)) != Precomputed(2.0 * np.eye(3))
    assert Intersection() == Intersection()


def test_different_types_never_equal() -> None:
    assert RBF() != Matern(nu=np.inf)  # the same function, but not the same kernel
    assert Laplace() != Matern(nu=0.5)
    assert Constant(1.0) != White(1.0)
    assert RBF() + Linear() != Linear() + RBF()
    assert RBF() + Linear() != RBF() * Linear()
    assert RBF() != 1.0 and RBF() != None  # noqa: E711
    assert RBF() != [RBF()]


@pytest.mark.parametrize(
    "make",
    [
        lambda v: RBF(v) + Linear(),
        lambda v: RBF() * Matern(v, nu=1.5),
        lambda v: v * RBF(),
        lambda v: poly(RBF(v), [1.0, 2.0]),
        lambda v: exp(RBF(v)),
        lambda v: compose(RBF(v), np.sin),
        lambda v: RBF(v) ** 2,
        lambda v: RBF() + v,
        lambda v: (RBF([v, 1.0]) * Linear() + Constant(0.5)) ** 2,
    ],
)
def test_composite_kernels_compare_by_value(make) -> None:
    a, b = make(2.0), make(2.0)
    assert a is not b and a == b and hash(a) == hash(b)
    assert a == clone(a) == a.clone()
    assert a != make(3.0)


def test_compose_compares_the_feature_map_by_identity() -> None:
    assert compose(RBF(), np.sin) != compose(RBF(), np.cos)
    assert compose(RBF(), lambda Z: Z) != compose(RBF(), lambda Z: Z)


def test_never_equal_to_the_string_precomputed() -> None:
    """The models test ``kernel == "precomputed"``; a kernel must never pass that test."""
    for k in (RBF(), RBF() + Linear(), Precomputed(np.eye(2)), Intersection()):
        assert (k == "precomputed") is False and (k != "precomputed") is True
        assert ("precomputed" == k) is False
        assert k not in ("precomputed", "rbf")


def test_hash_is_consistent_with_equality_and_survives_changes() -> None:
    """Equal kernels hash alike; a kernel changed after going into a set is still found
    (its hash depends on its type only). scikit-learn's ``pairwise_kernels`` looks the
    callable up in a dict of kernel names, so kernels must be hashable at all."""
    a, b = RBF(2.0), RBF(2.0)
    assert hash(a) == hash(b)
    s = {a}
    assert b in s
    a.set_params(lengthscale=5.0)
    assert a in s and b not in s
    assert len({RBF(1.0), RBF(1.0), RBF(2.0)}) == 2
