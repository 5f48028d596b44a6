"""FisherVectorEncoder: eqs. 1.13–1.14 against a loop-based implementation, the
normalisations, empty sets, the mixture's sanity, bad input and scikit-learn round trips."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.mixture import GaussianMixture

from kernelkit.features.fisher import EmptyDescriptorSetWarning, FisherVectorEncoder
from kernelkit.kernels import fisher

RAW = {"power_normalize": False, "l2_normalize": False}


def make_sets(seed: int = 0, sizes=(7, 3, 12, 1, 9), width: int = 3) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, width)) * [1.0, 2.0, 0.5][:width] + 0.3 for n in sizes]


def loop_fisher_vector(x: np.ndarray, gmm: GaussianMixture, include_weights: bool) -> np.ndarray:
    """Eqs. 1.13–1.14 (and the Sánchez et al. (2013) weight block), one term at a time."""
    T, f = x.shape
    K = gmm.n_components
    gamma = gmm.predict_proba(x)
    w_block, mu_block, sigma_block = [], [], []
    for i in range(K):
        pi, mu, sigma = gmm.weights_[i], gmm.means_[i], np.sqrt(gmm.covariances_[i])
        g_w, g_mu, g_sigma = 0.0, np.zeros(f), np.zeros(f)
        for t in range(T):
            g_w += gamma[t, i] - pi
            for j in range(f):
                z = (x[t, j] - mu[j]) / sigma[j]
                g_mu[j] += gamma[t, i] * z
                g_sigma[j] += gamma[t, i] * (z * z - 1.0)
        w_block.append(g_w / np.sqrt(T * pi))
        mu_block.extend(g_mu / np.sqrt(T * pi))
        sigma_block.extend(g_sigma / np.sqrt(2.0 * T * pi))
    return np.array((w_block if include_weights else []) + mu_block + sigma_block)


# ------------------------------------------------------------------ the equations
@pytest.mark.parametrize("include_weights", [False, True])
@pytest.mark.parametrize("pca_components", [None, 2])
def test_equals_loop_implementation(include_weights, pca_components):
    sets = make_sets()
    enc = FisherVectorEncoder(
        3, pca_components=pca_components, include_weights=include_weights, random_state=0, **RAW
    ).fit(sets)
    V = enc.transform(sets)
    f = pca_components or 3
    assert V.shape == (len(sets), enc.vector_length_)
    assert enc.vector_length_ == 2 * 3 * f + (3 if include_weights else 0)
    for x, v in zip(sets, V, strict=True):
        x = enc.pca_.transform(x) if pca_components else x
        np.testing.assert_allclose(v, loop_fisher_vector(x, enc.gmm_, include_weights), atol=1e-12)


@pytest.mark.parametrize("elements", [1, 36])
def test_grouped_sums_match_one_group(monkeypatch, elements):
    sets = make_sets(sizes=(5, 0, 4, 11, 2, 6))
    enc = FisherVectorEncoder(2, include_weights=True, random_state=0, **RAW).fit(sets)
    with pytest.warns(EmptyDescriptorSetWarning):
        whole = enc.transform(sets)
    monkeypatch.setattr(fisher, "_CHUNK_ROWS", elements)  # one set a group, or a few
    with pytest.warns(EmptyDescriptorSetWarning):
        chunked = enc.transform(sets)
    np.testing.assert_allclose(chunked, whole, atol=1e-12)


def test_prefitted_gmm_is_used_as_is():
    sets = make_sets()
    gmm = GaussianMixture(2, covariance_type="diag", random_state=1).fit(np.vstack(sets))
    enc = FisherVectorEncoder(gmm=gmm, **RAW).fit(sets[:2])  # n_components ignored
    assert enc.gmm_ is gmm
    assert enc.vector_length_ == 2 * 2 * 3
    np.testing.assert_allclose(enc.transform(sets)[2], loop_fisher_vector(sets[2], gmm, False))


def test_skimage_mapping():
    feature = pytest.importorskip("skimage.feature")
    sets = make_sets()
    enc = FisherVectorEncoder(3, include_weights=True, random_state=0, **RAW).fit(sets)
    K, f = 3, 3
    for x, v in zip(sets, enc.transform(sets), strict=True):
        ref = feature.fisher_vector(x, enc.gmm_) * np.sqrt(len(x))
        ref[K + K * f :] *= -1.0  # its variance block has the opposite sign to eq. 1.14
        np.testing.assert_allclose(v, ref, atol=1e-10)


# ------------------------------------------------------------------ normalisations
def test_power_normalisation_keeps_signs_and_l2_gives_unit_norms():
    sets = make_sets()
    raw = FisherVectorEncoder(3, random_state=0, **RAW).fit_transform(sets)
    power = FisherVectorEncoder(3, random_state=0, l2_normalize=False).fit_transform(sets)
    assert (np.sign(power) == np.sign(raw)).all()
    np.testing.assert_allclose(power**2, np.abs(raw), atol=1e-12)
    both = FisherVectorEncoder(3, random_state=0).fit_transform(sets)
    np.testing.assert_allclose(np.linalg.norm(both, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(both, power / np.linalg.norm(power, axis=1, keepdims=True))


def test_empty_sets_give_zero_vectors_and_one_counted_warning():
    sets = make_sets()
    enc = FisherVectorEncoder(2, include_weights=True, random_state=0).fit(sets)
    X = [sets[0], np.empty((0, 3)), sets[1], np.empty((0,))]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        V = enc.transform(X)
    assert len(caught) == 1 and issubclass(caught[0].category, EmptyDescriptorSetWarning)
    assert "2 of the 4" in str(caught[0].message)
    assert np.isfinite(V).all()
    assert not V[[1, 3]].any() and V[[0, 2]].any()
    with pytest.warns(EmptyDescriptorSetWarning, match="1 of the 1"):
        assert not enc.transform([[]]).any()


def test_gmm_fitted_on_one_class_prefers_that_class():
    rng = np.random.default_rng(3)
    class_a = [rng.normal(0.0, 1.0, size=(20, 4)) for _ in range(6)]
    class_b = [rng.normal(1.5, 0.7, size=(20, 4)) for _ in range(6)]
    enc = FisherVectorEncoder(4, random_state=0).fit(class_a[:3])
    a = np.mean([enc.gmm_.score(x) for x in class_a[3:]])
    b = np.mean([enc.gmm_.score(x) for x in class_b])
    assert a > b


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("X", "error", "match"),
    [
        ([np.array([["a", "b"], ["c", "d"]])], TypeError, r"X\[0\]"),
        ([np.ones((3, 2)), "abc"], TypeError, r"X\[1\]"),
        ([np.ones((3, 2)), np.ones((4, 3))], ValueError, r"X\[1\].*width 3.*X\[0\]"),
        ([np.ones((3, 2)), np.ones(4)], ValueError, r"X\[1\] must be 2-dimensional"),
        ([np.ones((3, 2)), np.array([[1.0, np.nan]])], ValueError, r"X\[1\].*NaN"),
        ([np.ones((3, 2)), np.array([[1.0, np.inf]])], ValueError, r"X\[1\].*infinity"),
        ([], ValueError, "X is empty"),
        ([np.empty((0, 2))], ValueError, "X holds no descriptors"),
        (np.ones((5, 2)), ValueError, r"X must be a sequence.*\[X\]"),
        ("abc", TypeError, "X must be a sequence"),
        (5, TypeError, "X must be a sequence"),
    ],
)
def test_bad_descriptor_sets(X, error, match):
    with pytest.raises(error, match=match):
        FisherVectorEncoder(1).fit(X)


def test_transform_checks_width_against_fit():
    enc = FisherVectorEncoder(2, random_state=0).fit(make_sets())
    with pytest.raises(ValueError, match=r"X\[0\].*width 4.*seen in fit"):
        enc.transform([np.ones((3, 4))])
    with pytest.raises(ValueError, match=r"X\[1\] is an empty set of width 5"):
        enc.transform([np.ones((3, 3)), np.empty((0, 5))])


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"n_components": 40}, ValueError, r"n_components=40 .* descriptors in X \(32\)"),
        ({"n_components": 0}, ValueError, "n_components"),
        ({"n_components": 2.5}, TypeError, "n_components"),
        ({"pca_components": 4}, ValueError, r"pca_components=4 .* D=3"),
        ({"pca_components": 0}, ValueError, "pca_components"),
        ({"power_normalize": "yes"}, TypeError, "power_normalize"),
        ({"include_weights": 1}, TypeError, "include_weights"),
    ],
)
def test_bad_parameters(params, error, match):
    with pytest.raises(error, match=match):
        FisherVectorEncoder(**{"n_components": 2, **params}).fit(make_sets())


def test_bad_gmm():
    sets = make_sets()
    Z = np.vstack(sets)
    full = GaussianMixture(2, covariance_type="full", random_state=0).fit(Z)
    with pytest.raises(ValueError, match="gmm must have covariance_type='diag'"):
        FisherVectorEncoder(gmm=full).fit(sets)
    with pytest.raises(ValueError, match="gmm is not fitted"):
        FisherVectorEncoder(gmm=GaussianMixture(2, covariance_type="diag")).fit(sets)
    with pytest.raises(TypeError, match="gmm must be a fitted"):
        FisherVectorEncoder(gmm="kmeans").fit(sets)
    diag = GaussianMixture(2, covariance_type="diag", random_state=0).fit(Z)
    with pytest.raises(ValueError, match=r"gmm has dimension 3.*width 2"):
        FisherVectorEncoder(gmm=diag, pca_components=2).fit(sets)


# ------------------------------------------------------------------ scikit-learn round trips
def test_clone_pickle_get_params():
    sets = make_sets()
    enc = FisherVectorEncoder(3, pca_components=2, include_weights=True, random_state=5)
    params = enc.get_params()
    assert params["n_components"] == 3 and params["pca_components"] == 2
    copy = clone(enc)
    assert copy.get_params() == params
    V = enc.fit_transform(sets)
    np.testing.assert_array_equal(copy.fit_transform(sets), V)
    restored = pickle.loads(pickle.dumps(enc))
    np.testing.assert_array_equal(restored.transform(sets), V)
    names = enc.get_feature_names_out()
    assert len(names) == enc.vector_length_ == 3 + 2 * 3 * 2
    assert list(names[[0, 3, 4, 9]]) == ["fv_w0", "fv_mu0_0", "fv_mu0_1", "fv_sigma0_0"]


def test_frozen_gmm_survives_clone():
    sets = make_sets()
    gmm = GaussianMixture(2, covariance_type="diag", random_state=0).fit(np.vstack(sets))
    enc = clone(FisherVectorEncoder(gmm=FrozenEstimator(gmm))).fit(sets)
    assert enc.gmm_ is gmm


def test_same_random_state_gives_identical_vectors():
    sets = make_sets()
    a = FisherVectorEncoder(3, pca_components=2, random_state=7).fit_transform(sets)
    b = FisherVectorEncoder(3, pca_components=2, random_state=7).fit_transform(sets)
    np.testing.assert_array_equal(a, b)


def test_invariant_to_descriptor_and_set_order():
    sets = make_sets(sizes=(7, 3, 12, 1, 9, 5))
    enc = FisherVectorEncoder(3, include_weights=True, random_state=0).fit(sets)
    V = enc.transform(sets)
    rng = np.random.default_rng(1)
    shuffled = [x[rng.permutation(len(x))] for x in sets]
    np.testing.assert_allclose(enc.transform(shuffled), V, atol=1e-12)
    order = rng.permutation(len(sets))
    np.testing.assert_allclose(enc.transform([sets[i] for i in order]), V[order], atol=1e-12)


def test_threads_and_float32_give_the_same_vectors(monkeypatch):
    monkeypatch.setattr(fisher, "_CHUNK_ROWS", 50)  # several runs of sets to share out
    sets = make_sets(sizes=tuple(range(1, 40)))
    enc = FisherVectorEncoder(3, include_weights=True, random_state=0).fit(sets)
    one = enc.transform(sets)
    np.testing.assert_array_equal(enc.set_params(n_jobs=2).transform(sets), one)
    single = enc.transform([s.astype(np.float32) for s in sets])
    np.testing.assert_allclose(single, one, atol=1e-6)


def test_nan_in_a_set_is_named():
    sets = make_sets()
    enc = FisherVectorEncoder(2, random_state=0).fit(sets)
    bad = [s.copy() for s in sets]
    bad[2][1, 0] = np.nan
    with pytest.raises(ValueError, match=r"X\[2\] contains NaN"):
        enc.transform(bad)


def test_grid_search_over_a_pipeline_on_lists_of_sets():
    from sklearn.exceptions import NotFittedError
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    rng = np.random.default_rng(0)
    sets = [rng.normal(loc=c, size=(12, 3)) for c in (0.0, 1.5, 3.0) * 8]
    y = np.array([0, 1, 2] * 8)
    with pytest.raises(NotFittedError):
        FisherVectorEncoder().transform(sets)
    with pytest.raises(NotFittedError):
        FisherVectorEncoder().get_feature_names_out()
    search = GridSearchCV(
        make_pipeline(FisherVectorEncoder(random_state=0), LinearSVC()),
        {"fishervectorencoder__n_components": [1, 2], "linearsvc__C": [0.1, 1.0]},
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
    ).fit(sets, y)
    assert search.best_score_ >= 0.9
    assert pickle.loads(pickle.dumps(search)).score(sets, y) == search.score(sets, y)
