"""NoisyHalfspaceLearner (Vempala 1997 §2.3.4): accuracy under random classification noise."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.geometry.halfspaces import NoisyHalfspaceLearner


def noisy(seed, n=1500, d=4, eta=0.1):
    rng = np.random.RandomState(seed)
    w = rng.randn(d)
    X, Xt = rng.randn(n, d), rng.randn(n, d)
    y, yt = (X @ w > 0.2).astype(int), (Xt @ w > 0.2).astype(int)
    flip = rng.rand(n) < eta
    return X, np.where(flip, 1 - y, y), Xt, yt


@pytest.mark.parametrize("seed", range(3))
def test_accuracy_well_above_noise_rate(seed):
    X, yn, Xt, yt = noisy(seed)
    clf = NoisyHalfspaceLearner(noise_rate=0.1, random_state=0).fit(X, yn)
    assert clf.score(Xt, yt) >= 0.93  # labels seen were only 90% right
    assert 1 <= len(clf.stages_) <= clf.max_stages
    s = clf.stages_[0]
    assert 2 * s.n_kept >= s.n_points  # outlier removal keeps at least half
    assert np.isclose(s.sigma, 1 / np.sqrt(2 * s.beta * s.whitening.shape[1]))


def test_decision_list_apply_and_determinism():
    X, yn, Xt, _ = noisy(5)
    a = NoisyHalfspaceLearner(random_state=1).fit(X, yn)
    b = NoisyHalfspaceLearner(random_state=1).fit(X, yn)
    np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))
    which = a.apply(Xt)
    assert which.min() >= -1 and which.max() < len(a.stages_)
    # points with stage k are inside stage k's region
    Z = np.hstack([Xt, np.ones((len(Xt), 1))])
    for k, st in enumerate(a.stages_):
        inside, sign = st.region(Z[which == k])
        assert inside.all()
        np.testing.assert_array_equal(a.predict(Xt[which == k]), a.classes_[(sign > 0).astype(int)])


def test_abstain_default_class():
    X, yn, _, _ = noisy(2, n=200)
    clf = NoisyHalfspaceLearner(max_stages=1, sigma=0.9, random_state=0).fit(X, yn)
    assert clf.default_class_ in clf.classes_
    assert (clf.apply(X) == -1).any()


def test_rank_deficient_input():
    rng = np.random.RandomState(0)
    X = rng.randn(300, 2) @ rng.randn(2, 5)
    y = (X[:, 0] > 0).astype(int)
    clf = NoisyHalfspaceLearner(random_state=0).fit(X, y)
    assert clf.score(X, y) > 0.9


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"noise_rate": 0.5}, ValueError, "noise_rate"),
        ({"sigma": 2.0}, ValueError, "sigma"),
        ({"beta": -1.0}, ValueError, "beta"),
        ({"beta": "x"}, TypeError, "beta"),
        ({"tol": 1.0}, ValueError, "tol"),
        ({"max_stages": 0}, ValueError, "max_stages"),
        ({"min_samples": 1}, ValueError, "min_samples"),
    ],
)
def test_bad_parameters(kwargs, err, match):
    X, yn, _, _ = noisy(0, n=50)
    with pytest.raises(err, match=match):
        NoisyHalfspaceLearner(**kwargs).fit(X, yn)


def test_labels_not_binary():
    X = np.random.RandomState(0).randn(30, 2)
    with pytest.raises(ValueError, match="exactly 2 classes"):
        NoisyHalfspaceLearner().fit(X, np.arange(30) % 3)


def test_doctests():
    import doctest

    import kernelkit.geometry.halfspaces as mod

    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_pipeline_grid_clone_pickle():
    import pickle

    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, yn, Xt, _ = noisy(1, n=300)
    labels = np.array(["a", "b"])[yn]
    pipe = make_pipeline(StandardScaler(), NoisyHalfspaceLearner(random_state=0))
    gs = GridSearchCV(pipe, {"noisyhalfspacelearner__tol": [0.02, 0.1]}, cv=3).fit(X, labels)
    assert set(gs.predict(Xt)) <= {"a", "b"}
    clf = NoisyHalfspaceLearner(random_state=0).fit(X, labels)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf.predict(Xt), again.predict(Xt))
    assert clone(clf).get_params() == clf.get_params()
