"""Nested cross-validation: the test fold never reaches the choice of h and C."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from kernelkit.datasets import load_tu
from kernelkit.graphs import WeisfeilerLehman, classify, cross_validate_graphs, gram, wl_kernel
from kernelkit.graphs import graph_grams as grams_of


def test_docstring_examples():
    result = doctest.testmod(classify, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.fixture(scope="module")
def mutag():
    return load_tu("MUTAG")


@pytest.fixture(scope="module")
def mutag_grams(mutag):
    return grams_of(mutag[0], "wl", range(4))


def test_graph_grams_equal_wl_kernel_for_every_h(mutag):
    graphs, _ = mutag
    for kernel, variant in (("wl", "subtree"), ("wl-final", "final")):
        for normalize in (True, False):
            grams = grams_of(graphs, kernel, [0, 2, 3], normalize=normalize)
            assert sorted(grams) == [0, 2, 3]
            for h, K in grams.items():
                expected = wl_kernel(graphs, h, variant=variant, normalize=normalize)
                np.testing.assert_allclose(K, expected, atol=1e-12)


def test_graph_grams_base_kernels(mutag):
    graphs, _ = mutag
    for kernel in ("vertex", "edge", "shortest-path"):
        grams = grams_of(graphs[:30], kernel)
        assert list(grams) == [None]
        K = grams[None]
        assert K.shape == (30, 30)
        np.testing.assert_allclose(np.diag(K), 1.0)


def test_precomputed_gram_slices_equal_fold_wise_fit_transform(mutag, mutag_grams):
    """Why computing the kernel once on all graphs leaks nothing: the slice equals what
    fitting on the training fold and transforming the test fold gives."""
    graphs, _ = mutag
    rng = np.random.RandomState(0)
    idx = rng.permutation(len(graphs))
    train, test = idx[:150], idx[150:]
    wl = WeisfeilerLehman(3)
    F = wl.fit_transform([graphs[i] for i in train])
    T = wl.transform([graphs[i] for i in test])
    K = mutag_grams[3]
    np.testing.assert_allclose(gram(F), K[np.ix_(train, train)], atol=1e-12)
    np.testing.assert_allclose(gram(T, F), K[np.ix_(test, train)], atol=1e-12)


def test_inner_search_only_sees_training_indices(mutag, mutag_grams, monkeypatch):
    _, y = mutag
    seen = []
    real = classify.select_parameters

    def spy(grams, labels, train_idx, *args, **kwargs):
        seen.append(np.array(train_idx))
        return real(grams, labels, train_idx, *args, **kwargs)

    monkeypatch.setattr(classify, "select_parameters", spy)
    res = cross_validate_graphs(
        mutag_grams, y, C_values=[1.0, 10.0], n_folds=4, show_progress=False
    )
    assert len(seen) == 4
    for train_idx, (train, test) in zip(seen, res.folds, strict=True):
        assert np.array_equal(np.sort(train_idx), np.sort(train))
        assert not set(train_idx.tolist()) & set(test.tolist())
    all_test = np.sort(np.concatenate([t for _, t in res.folds]))
    assert np.array_equal(all_test, np.arange(len(y)))  # a partition: each graph tested once


def test_choice_is_blind_to_test_fold_labels_and_kernel_values(mutag, mutag_grams):
    _, y = mutag
    res = cross_validate_graphs(
        mutag_grams,
        y,
        C_values=[0.1, 1.0, 10.0],
        n_folds=3,
        show_progress=False,
        random_state=1,
    )
    train, test = res.folds[0]
    choice = classify.select_parameters(mutag_grams, y, train, [0.1, 1.0, 10.0], seed=5)
    # poison everything the test fold owns: labels flipped, kernel rows / columns NaN
    y_bad = y.copy()
    y_bad[test] = -y_bad[test]
    poisoned = {}
    for h, K in mutag_grams.items():
        P = K.copy()
        P[test, :] = np.nan
        P[:, test] = np.nan
        poisoned[h] = P
    again = classify.select_parameters(poisoned, y_bad, train, [0.1, 1.0, 10.0], seed=5)
    assert again == choice


def test_cv_accuracy_on_mutag_is_sensible(mutag, mutag_grams):
    _, y = mutag
    res = cross_validate_graphs(
        mutag_grams, y, C_values=[1.0, 10.0, 100.0], n_folds=5, show_progress=False
    )
    assert res.accuracies.shape == (5,)
    assert 0.75 < res.mean <= 1.0  # published WL subtree figures: 85-90 %
    assert all(c["h"] in mutag_grams and c["C"] in (1.0, 10.0, 100.0) for c in res.chosen)
    assert "5-fold" in str(res)


def test_inner_kfold(mutag, mutag_grams):
    _, y = mutag
    res = cross_validate_graphs(
        mutag_grams, y, C_values=[1.0, 10.0], n_folds=3, inner_folds=3, show_progress=False
    )
    assert 0.7 < res.mean <= 1.0


def test_cv_is_reproducible(mutag, mutag_grams):
    _, y = mutag
    kw = dict(C_values=[1.0, 10.0], n_folds=3, show_progress=False, random_state=7)
    a = cross_validate_graphs(mutag_grams, y, **kw)
    b = cross_validate_graphs(mutag_grams, y, **kw)
    assert np.array_equal(a.accuracies, b.accuracies) and a.chosen == b.chosen


def test_cv_bad_input(mutag, mutag_grams):
    _, y = mutag
    with pytest.raises(ValueError, match="non-empty dict"):
        cross_validate_graphs({}, y)
    with pytest.raises(ValueError, match="expected"):
        cross_validate_graphs(mutag_grams, y[:-1])
    with pytest.raises(ValueError, match="n_folds must be >= 2"):
        cross_validate_graphs(mutag_grams, y, n_folds=1)
    with pytest.raises(ValueError, match="validation_size"):
        cross_validate_graphs(mutag_grams, y, validation_size=1.5)
    with pytest.raises(ValueError, match="kernel must be one of"):
        grams_of(mutag[0], "random-walk")
    with pytest.raises(ValueError, match="h_values is empty"):
        grams_of(mutag[0], "wl", [])
