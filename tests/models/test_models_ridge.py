"""KernelRidge against scikit-learn, primal against dual, multi-output, sets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.kernel_approximation import RBFSampler
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.model_selection import GridSearchCV, cross_val_score

from kernelkit.kernels import RBF, Intersection, Linear, Matern
from kernelkit.models import KernelRidge


def _data(n: int = 40, d: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.standard_normal(n)
    Xt = rng.uniform(-2, 2, size=(15, d))
    return X, y, Xt


@pytest.mark.parametrize("alpha", [1e-3, 0.1, 10.0])
def test_equals_sklearn_on_the_same_gram(alpha) -> None:
    X, y, Xt = _data()
    k = Matern(lengthscale=[0.7, 1.3, 2.0], nu=1.5)
    ours = KernelRidge(k, alpha=alpha).fit(X, y)
    ref = SkKernelRidge(kernel="precomputed", alpha=alpha).fit(k(X), y)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(k(Xt, X)), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-8, atol=1e-8)
    # and our own "precomputed" mode is the same computation
    pre = KernelRidge("precomputed", alpha=alpha).fit(k(X), y)
    np.testing.assert_allclose(pre.predict(k(Xt, X)), ours.predict(Xt), rtol=1e-12)


@pytest.mark.parametrize("lengthscale", [0.3, 1.0, 4.0])
def test_equals_sklearn_rbf(lengthscale) -> None:
    X, y, Xt = _data()
    ours = KernelRidge(RBF(lengthscale=lengthscale), alpha=0.05).fit(X, y)
    ref = SkKernelRidge(kernel="rbf", gamma=1.0 / (2 * lengthscale**2), alpha=0.05).fit(X, y)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=1e-8, atol=1e-8)


def test_multi_output_equals_column_by_column_and_sklearn() -> None:
    X, y, Xt = _data()
    Y = np.column_stack([y, np.cos(X[:, 2]), -2 * y])
    model = KernelRidge(RBF(), alpha=0.1).fit(X, Y)
    pred = model.predict(Xt)
    assert pred.shape == (15, 3)
    for j in range(3):
        single = KernelRidge(RBF(), alpha=0.1).fit(X, Y[:, j]).predict(Xt)
        np.testing.assert_allclose(pred[:, j], single, rtol=1e-10, atol=1e-12)
    ref = SkKernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, Y).predict(Xt)
    np.testing.assert_allclose(pred, ref, rtol=1e-8, atol=1e-8)


def test_primal_feature_map_on_sets_equals_the_dual_on_the_features() -> None:
    # A list of objects (here sets) goes through the feature map as it is.
    sets = [{1, 2}, {3}, {4, 5, 6}, {1}, {2, 9}, {7}]
    y = np.array([1.0, 2.0, 3.0, 1.5, 0.5, 2.5])

    def phi(S):
        return np.array([[len(s), sum(s), min(s)] for s in S], dtype=float)

    primal = KernelRidge(feature_map=phi, alpha=0.2).fit(sets, y)
    dual = KernelRidge(Linear(), alpha=0.2).fit(phi(sets), y)
    test = [{2}, {7, 8}]
    np.testing.assert_allclose(primal.predict(test), dual.predict(phi(test)), rtol=1e-9)
    with pytest.raises(ValueError, match=r"feature_map\(X\) has 5 rows, but X has 6 samples"):
        KernelRidge(feature_map=lambda S: phi(S)[:5], alpha=0.2).fit(sets, y)


def test_primal_feature_map_equals_dual_linear_kernel_on_the_features() -> None:
    X, y, Xt = _data()
    W = np.random.default_rng(1).standard_normal((3, 25))

    def phi(A):
        return np.cos(np.asarray(A) @ W)

    primal = KernelRidge(feature_map=phi, alpha=0.3).fit(X, y)
    dual = KernelRidge(Linear(), alpha=0.3).fit(phi(X), y)
    assert primal.coef_.shape == (25,)
    assert not hasattr(primal, "dual_coef_")
    np.testing.assert_allclose(primal.predict(Xt), dual.predict(phi(Xt)), rtol=1e-8, atol=1e-10)
    # w = Phi^T dual_coef (the representer theorem links the two solutions)
    np.testing.assert_allclose(primal.coef_, phi(X).T @ dual.dual_coef_, rtol=1e-7, atol=1e-10)


def test_primal_with_a_transformer_fits_a_copy() -> None:
    X, y, Xt = _data()
    sampler = RBFSampler(gamma=0.5, n_components=50, random_state=0)
    model = KernelRidge(feature_map=sampler, alpha=0.1).fit(X, y)
    assert not hasattr(sampler, "random_weights_")  # the user's object is left unfitted
    Phi = RBFSampler(gamma=0.5, n_components=50, random_state=0).fit(X)
    dual = KernelRidge(Linear(), alpha=0.1).fit(Phi.transform(X), y)
    np.testing.assert_allclose(
        model.predict(Xt), dual.predict(Phi.transform(Xt)), rtol=1e-8, atol=1e-10
    )


def test_primal_multi_output() -> None:
    X, y, Xt = _data()
    Y = np.column_stack([y, 2 * y + 1])
    model = KernelRidge(feature_map=lambda A: np.hstack([A, A**2]), alpha=1.0).fit(X, Y)
    assert model.predict(Xt).shape == (15, 2)


def test_refit_switches_between_primal_and_dual() -> None:
    X, y, Xt = _data()
    model = KernelRidge(feature_map=lambda A: A, alpha=1.0).fit(X, y)
    model.set_params(feature_map=None, kernel=Linear()).fit(X, y)
    assert not hasattr(model, "coef_")
    np.testing.assert_allclose(
        model.predict(Xt), KernelRidge(feature_map=lambda A: A, alpha=1.0).fit(X, y).predict(Xt)
    )


SETS = [{1, 2, 3}, {2, 3}, {4, 5}, {1, 5, 6}, {3, 6}, {2, 4, 6}, {1}, {5, 6, 7}]
SET_Y = np.array([1.0, 0.8, -0.5, 0.2, 0.4, 0.0, 0.9, -0.7])


def test_list_of_sets_with_intersection_kernel() -> None:
    k = Intersection()
    test_sets = [{1, 2}, {5, 7}, {9}]
    model = KernelRidge(k, alpha=0.5).fit(SETS, SET_Y)
    assert model.X_fit_ is SETS  # kept as given, not forced into an array
    ref = SkKernelRidge(kernel="precomputed", alpha=0.5).fit(k(SETS), SET_Y)
    np.testing.assert_allclose(
        model.predict(test_sets), ref.predict(k(test_sets, SETS)), rtol=1e-10
    )
    # k(A, B) = 2^|A ∩ B| by hand for one entry
    assert k([{1, 2}], [{1, 2, 3}])[0, 0] == 4.0


def test_sklearn_model_selection_works_on_sets_and_vectors() -> None:
    scores = cross_val_score(KernelRidge(Intersection(), alpha=1.0), SETS, SET_Y, cv=2)
    assert np.all(np.isfinite(scores))
    X, y, _ = _data()
    search = GridSearchCV(KernelRidge(RBF()), {"alpha": [0.01, 0.1, 1.0]}, cv=3).fit(X, y)
    assert search.best_params_["alpha"] in (0.01, 0.1, 1.0)


def test_estimator_api() -> None:
    model = KernelRidge(RBF(lengthscale=2.0), alpha=0.5)
    params = model.get_params()
    assert params["alpha"] == 0.5 and params["kernel__lengthscale"] == 2.0
    copy = clone(model)
    assert copy.kernel is not model.kernel and copy.kernel.lengthscale == 2.0
    X, y, _ = _data()
    assert model.fit(X, y).score(X, y) > 0.8  # R^2 of a smooth fit on training data
    assert model.n_features_in_ == 3


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 15),
    alpha=st.floats(1e-4, 1e3),
    lengthscale=st.floats(0.1, 10.0),
    seed=st.integers(0, 2**31 - 1),
)
def test_training_residual_is_alpha_times_dual_coef(n, alpha, lengthscale, seed) -> None:
    """(K + alpha I) c = y  <=>  y - K c = alpha c: the defining equation of the dual."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, 2))
    y = rng.standard_normal(n)
    model = KernelRidge(RBF(lengthscale=lengthscale), alpha=alpha).fit(X, y)
    scale = max(1.0, float(np.abs(y).max()))
    np.testing.assert_allclose(
        y - model.predict(X), alpha * model.dual_coef_, atol=1e-8 * scale, rtol=1e-6
    )
