"""Perceptron (≤ 1/σ² updates) and ModifiedPerceptron (Thm 5 halting property)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kernelkit.geometry.perceptrons import ModifiedPerceptron, Perceptron


def separable(seed, n=400, d=4, margin=0.05):
    rng = np.random.RandomState(seed)
    w = rng.randn(d + 1)
    w /= np.linalg.norm(w)
    X = rng.randn(3 * n, d)
    Z = np.hstack([X, np.ones((len(X), 1))])
    cos = Z @ w / np.linalg.norm(Z, axis=1)
    ok = np.abs(cos) >= margin
    X, cos = X[ok][:n], cos[ok][:n]
    return X, (cos > 0).astype(int), w, np.abs(cos).min()


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("selection", ["random", "cyclic"])
def test_perceptron_within_novikoff_bound(seed, selection):
    X, y, _, sigma = separable(seed)
    p = Perceptron(selection=selection, max_iter=10**6, random_state=seed).fit(X, y)
    assert p.converged_ and p.score(X, y) == 1.0
    assert 0 < p.n_iter_ <= 1 / sigma**2


def test_perceptron_deterministic_and_warns():
    X, y, _, _ = separable(0)
    a = Perceptron(random_state=3).fit(X, y)
    b = Perceptron(random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    rng = np.random.RandomState(0)
    Xn, yn = rng.randn(100, 2), rng.randint(0, 2, 100)
    with pytest.warns(ConvergenceWarning):
        p = Perceptron(max_iter=20, random_state=0).fit(Xn, yn)
    assert not p.converged_ and p.n_iter_ == 20


@pytest.mark.parametrize("seed", range(4))
def test_modified_perceptron_halting_property(seed):
    X, y, _, _ = separable(seed, margin=0.01)
    sigma = 0.1
    m = ModifiedPerceptron(sigma, random_state=seed).fit(X, y)
    assert m.converged_
    Z = np.hstack([X, np.ones((len(X), 1))])
    w = np.append(m.coef_, m.intercept_)
    cos = Z @ w / np.linalg.norm(Z, axis=1) / np.linalg.norm(w)
    wrong = m.predict(X) != y
    assert np.all(np.abs(cos[wrong]) <= sigma + 1e-12)


def test_modified_perceptron_w_dot_wstar_non_decreasing_and_norm_shrinks():
    X, y, wstar, _ = separable(7, margin=0.01)
    sigma = 0.05
    prev_dot, prev_norm = -np.inf, np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for k in range(0, 30):
            m = ModifiedPerceptron(sigma, n_restarts=0, max_iter=k, random_state=1).fit(X, y)
            w = np.append(m.coef_, m.intercept_)
            dot, norm = w @ wstar, np.linalg.norm(w)
            assert dot >= prev_dot - 1e-12
            if k > 0 and m.n_iter_ == k:
                assert norm**2 <= prev_norm**2 * (1 - sigma**2) + 1e-12
            prev_dot, prev_norm = dot, norm
            if m.converged_:
                break


def test_string_labels_and_pipeline_grid_clone_pickle():
    import pickle

    X, y, _, _ = separable(0)
    labels = np.array(["neg", "pos"])[y]
    pipe = make_pipeline(StandardScaler(), Perceptron(random_state=0))
    gs = GridSearchCV(pipe, {"perceptron__selection": ["random", "cyclic"]}, cv=3).fit(X, labels)
    assert set(gs.predict(X)) <= {"neg", "pos"}
    m = ModifiedPerceptron(0.1, random_state=0).fit(X, labels)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m.predict(X), m2.predict(X))
    assert clone(m).get_params() == m.get_params()


@pytest.mark.parametrize(
    "est, err, match",
    [
        (ModifiedPerceptron(sigma=0.0), ValueError, "sigma"),
        (ModifiedPerceptron(sigma=1.5), ValueError, "sigma"),
        (ModifiedPerceptron(sigma="a"), TypeError, "sigma"),
        (ModifiedPerceptron(n_restarts=-1), ValueError, "n_restarts"),
        (Perceptron(max_iter=-1), ValueError, "max_iter"),
        (Perceptron(selection="best"), ValueError, "selection"),
        (Perceptron(pocket=1), TypeError, "pocket"),
    ],
)
def test_bad_parameters(est, err, match):
    X, y, _, _ = separable(0, n=20)
    with pytest.raises(err, match=match):
        est.fit(X, y)


@pytest.mark.parametrize("cls", [Perceptron, ModifiedPerceptron])
def test_labels_not_binary(cls):
    X = np.random.RandomState(0).randn(30, 2)
    with pytest.raises(ValueError, match="exactly 2 classes"):
        cls().fit(X, np.arange(30) % 3)


def test_doctests():
    import doctest

    import kernelkit.geometry.perceptrons as mod

    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
