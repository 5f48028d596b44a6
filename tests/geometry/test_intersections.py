"""HalfspaceIntersectionClassifier (Vempala 1997 Ch. 3): accuracy, subspace, consistency, checks."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.geometry.intersections import HalfspaceIntersectionClassifier, _lattice_ball


def ball(rng, m, n):
    """Uniform points in the unit ball of R^n."""
    g = rng.randn(m, n)
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    return g * rng.rand(m, 1) ** (1.0 / n)


def problem(seed, n, k, m=1200, m_test=2000, offsets=None):
    """l = k half-spaces with normals in a random k-dim subspace of R^n (positives inside)."""
    rng = np.random.RandomState(seed)
    Q = np.linalg.qr(rng.randn(n, k))[0]  # (n, k) true relevant subspace
    if k == 2:
        a = 2 * np.pi * rng.rand()
        G = np.c_[np.cos([a, a + np.pi / 2]), np.sin([a, a + np.pi / 2])]
    else:  # three normals 35 degrees from a common axis: a wide triangular cone inside
        ang = np.array([0.0, 2 * np.pi / 3, 4 * np.pi / 3])
        G = np.c_[
            np.cos(np.radians(35)) * np.ones(3),
            np.sin(np.radians(35)) * np.c_[np.cos(ang), np.sin(ang)],
        ]
        G = G @ np.linalg.qr(rng.randn(3, 3))[0]
    W = G @ Q.T
    b = np.zeros(k) if offsets is None else np.asarray(offsets)
    X, Xt = ball(rng, m, n), ball(rng, m_test, n)

    def label(Z):
        return (Z @ W.T <= b).all(axis=1).astype(int)

    return X, label(X), Xt, label(Xt), Q


@pytest.mark.parametrize(
    "seed, n, k, m, step",
    [(0, 5, 2, 1200, 0.1), (1, 8, 2, 1200, 0.1), (2, 6, 3, 1500, 0.25)],
)
def test_learns_intersection_and_subspace(seed, n, k, m, step):
    X, y, Xt, yt, Q = problem(seed, n, k, m=m)
    clf = HalfspaceIntersectionClassifier(k, grid_step=step, random_state=0).fit(X, y)
    assert clf.score(Xt, yt) >= 0.95  # 2000 test points
    assert clf.score(X, y) >= 0.95
    # never rejects a training positive: every chosen half-space contains them all
    assert (clf.predict(X[y == 1]) == 1).all()
    assert (clf.decision_function(X[y == 1]) >= 0).all()
    # the estimated relevant subspace: its largest principal angle to the true one is
    # of the order of the enclosure angle of Lemma 4 at this sample size (0.15-0.65 rad
    # over seeds 0-7 of these settings), far below a random k-dim subspace's (~1.2-1.5)
    angles = scipy.linalg.subspace_angles(Q, clf.subspace_.T)
    assert angles.max() <= 0.75
    assert np.allclose(clf.subspace_ @ clf.subspace_.T, np.eye(k), atol=1e-10)
    assert clf.widths_.shape == (n - k,)
    assert 1 <= clf.normals_.shape[0]
    assert np.allclose(np.linalg.norm(clf.normals_, axis=1), 1.0)
    # the learned normals (lifted into D_C) lie much closer to the true subspace:
    # distance of each unit normal from it, at most 0.18 over seeds 0-7
    resid = clf.normals_ - (clf.normals_ @ Q) @ Q.T
    assert np.linalg.norm(resid, axis=1).max() <= 0.3


def test_decision_function_is_min_margin():
    X, y, Xt, _, _ = problem(3, 5, 2, m=600)
    clf = HalfspaceIntersectionClassifier(random_state=0).fit(X, y)
    brute = np.array(
        [min(b - w @ x for w, b in zip(clf.normals_, clf.offsets_, strict=True)) for x in Xt[:50]]
    )
    np.testing.assert_allclose(clf.decision_function(Xt[:50]), brute, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(Xt), (clf.decision_function(Xt) >= 0).astype(int))


def test_pos_label_swaps_sign():
    X, y, Xt, _, _ = problem(4, 5, 2, m=600)
    labels = np.array(["in", "out"])[1 - y]  # classes_ = ['in', 'out']; inside is 'in'
    a = HalfspaceIntersectionClassifier(pos_label="in", random_state=0).fit(X, labels)
    b = HalfspaceIntersectionClassifier(random_state=0).fit(X, y)
    assert a.pos_label_ == "in"
    np.testing.assert_allclose(a.decision_function(Xt), -b.decision_function(Xt))
    np.testing.assert_array_equal(a.predict(Xt) == "in", b.predict(Xt) == 1)


def test_non_homogeneous_lift():
    X, y, Xt, yt, _ = problem(5, 4, 2, m=1500, offsets=[0.3, 0.2])
    clf = HalfspaceIntersectionClassifier(fit_intercept=True, grid_step=0.15, random_state=0)
    clf.fit(X, y)
    assert clf.subspace_.shape == (3, 5)  # lifted space: normals and e_{n+1}
    assert clf.score(Xt, yt) >= 0.95
    assert (clf.predict(X[y == 1]) == 1).all()
    assert np.any(np.abs(clf.offsets_) > 0.05)


def test_same_seed_same_model():
    X, y, _, _, _ = problem(6, 6, 2, m=500)
    a = HalfspaceIntersectionClassifier(random_state=3).fit(X, y)
    b = HalfspaceIntersectionClassifier(random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.normals_, b.normals_)
    np.testing.assert_array_equal(a.subspace_, b.subspace_)


def test_lattice_ball_brute_force():
    for step, dim in [(0.5, 2), (0.3, 3), (1.0, 4), (0.25, 1)]:
        R = int(np.floor(1 / step))
        box = np.stack(np.meshgrid(*[np.arange(-R, R + 1)] * dim, indexing="ij"), -1)
        box = box.reshape(-1, dim)
        brute = box[(step * box) ** 2 @ np.ones(dim) <= 1 + 1e-12]
        got = _lattice_ball(step, dim)
        assert {tuple(p) for p in got} == {tuple(p) for p in brute}
        assert len(got) == len(brute)


def test_pipeline_gridsearch_clone_pickle():
    X, y, _, _, _ = problem(7, 5, 2, m=300)
    pipe = make_pipeline(FunctionTransformer(), HalfspaceIntersectionClassifier(random_state=0))
    gs = GridSearchCV(pipe, {"halfspaceintersectionclassifier__grid_step": [0.2, 0.3]}, cv=2)
    gs.fit(X, y)
    clf = clone(gs.best_estimator_).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"grid_step": 0.01, "subspace_dim": 4}, ValueError, "grid_step"),
        ({"grid_step": 0.0}, ValueError, "grid_step"),
        ({"grid_step": "a"}, TypeError, "grid_step"),
        ({"n_halfspaces": 0}, ValueError, "n_halfspaces"),
        ({"subspace_dim": 9}, ValueError, "subspace_dim"),
        ({"tol": 1.0}, ValueError, "tol"),
        ({"n_directions": 0}, ValueError, "n_directions"),
        ({"fit_intercept": 1}, TypeError, "fit_intercept"),
        ({"pos_label": 7}, ValueError, "pos_label"),
    ],
)
def test_bad_parameters(kwargs, err, match):
    X, y, _, _, _ = problem(0, 5, 2, m=100)
    with pytest.raises(err, match=match):
        HalfspaceIntersectionClassifier(**kwargs).fit(X, y)


def test_grid_too_large_names_size_and_parameter():
    X, y, _, _, _ = problem(0, 6, 2, m=100)
    clf = HalfspaceIntersectionClassifier(subspace_dim=5, grid_step=0.02, max_candidates=1000)
    with pytest.raises(ValueError, match=r"points .* max_candidates = 1000; increase grid_step"):
        clf.fit(X, y)


def test_bad_input():
    X, y, _, _, _ = problem(0, 5, 2, m=100)
    clf = HalfspaceIntersectionClassifier()
    with pytest.raises(ValueError, match="2 classes"):
        clf.fit(X, np.arange(100) % 3)
    with pytest.raises(ValueError, match="2 classes"):
        clf.fit(X, np.zeros(100))
    with pytest.raises(ValueError, match="2D"):
        clf.fit(X[:, 0], y)


_HOMOGENEOUS = (
    "homogeneous half-spaces (cones with their apex at the origin) cannot fit the check's "
    "two blobs to 83% training accuracy: no intersection of half-spaces through the "
    "origin separates them; the same estimator with fit_intercept=True passes it"
)


def _expected_failed_checks(estimator):
    if estimator.fit_intercept:
        return {}
    return {"check_classifiers_train": _HOMOGENEOUS}


@parametrize_with_checks(
    [
        HalfspaceIntersectionClassifier(grid_step=0.2, random_state=0),
        HalfspaceIntersectionClassifier(fit_intercept=True, grid_step=0.2, random_state=0),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
