"""Nested cross-validation: the test fold never reaches the choice of n_iter and C."""

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


def test_graph_grams_equal_wl_kernel_for_every_n_iter(mutag):
    graphs, _ = mutag
    for kernel, variant in (("wl", "subtree"), ("wl-final", "final")):
        for normalize in (True, False):
            grams = grams_of(graphs, kernel, n_iter_values=[0, 2, 3], normalize=normalize)
            assert sorted(grams) == [0, 2, 3]
            for n_iter, K in grams.items():
                expected = wl_kernel(graphs, n_iter=n_iter, variant=variant, normalize=normalize)
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
    choice = classify.select_parameters(mutag_grams, y, train, [0.1, 1.0, 10.0], random_state=5)
    # poison everything the test fold owns: labels flipped, kernel rows / columns NaN
    y_bad = y.copy()
    y_bad[test] = -y_bad[test]
    poisoned = {}
    for n_iter, K in mutag_grams.items():
        P = K.copy()
        P[test, :] = np.nan
        P[:, test] = np.nan
        poisoned[n_iter] = P
    again = classify.select_parameters(poisoned, y_bad, train, [0.1, 1.0, 10.0], random_state=5)
    assert again == choice


def test_cv_accuracy_on_mutag_is_sensible(mutag, mutag_grams):
    _, y = mutag
    res = cross_validate_graphs(
        mutag_grams, y, C_values=[1.0, 10.0, 100.0], n_folds=5, show_progress=False
    )
    assert res.accuracies.shape == (5,)
    assert 0.75 < res.mean <= 1.0  # published WL subtree figures: 85-90 %
    assert all(c.n_iter in mutag_grams and c.C in (1.0, 10.0, 100.0) for c in res.chosen)
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
    with pytest.raises(ValueError, match="n_iter_values is empty"):
        grams_of(mutag[0], "wl", [])


def _tiny_grams(y):
    F = np.random.RandomState(0).rand(len(y), 3)
    return {None: F @ F.T}


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        # before: scikit-learn's text about n_splits, or a warning and folds without a class
        ({"n_folds": 13}, ValueError, r"n_folds=13 is more than the number of graphs \(12\)"),
        (
            {"n_folds": 5},
            ValueError,
            r"n_folds=5 is more than the smallest class \(4 graphs of class 2\); stratified "
            r"folds need every class in every test fold: use n_folds <= 4",
        ),
        (
            {"n_folds": 2, "inner_folds": 3},
            ValueError,
            r"inner_folds=3 is more than the smallest class in the training graphs of outer "
            r"fold 1 \(6 graphs, 2 classes\): 2 graphs of class 2; use inner_folds <= 2",
        ),
        (
            {"n_folds": 2, "validation_size": 0.01},
            ValueError,
            r"validation_size=0.01 puts 1 of the training graphs of outer fold 1 \(6 graphs, 2 "
            r"classes\) in the validation split, fewer than the 2 classes .*use "
            r"validation_size >= 0.333",
        ),
        (
            {"n_folds": 2, "validation_size": 0.99},
            ValueError,
            r"validation_size=0.99 leaves 0 of the training graphs of outer fold 1 .* to train "
            r"on, fewer than the 2 classes .*use validation_size <= 0.667",
        ),
        ({"validation_size": "0.2"}, TypeError, r"validation_size must be a number in \(0, 1\)"),
        ({"validation_size": True}, TypeError, "validation_size must be a number"),
        ({"C_values": 5.0}, TypeError, "C_values must be a sequence of numbers > 0, got float"),
        ({"C_values": []}, ValueError, "C_values is empty"),
        ({"C_values": [1.0, 0.0]}, ValueError, r"C_values\[1\] must be > 0"),
        ({"C_values": [np.nan]}, ValueError, r"C_values\[0\] must be finite"),
        ({"show_progress": "no"}, TypeError, "show_progress must be a bool"),
        ({"n_folds": 2.0}, TypeError, "n_folds must be an integer"),
    ],
)
def test_cv_arguments_are_checked_up_front(kwargs, error, message):
    y = np.array([1] * 8 + [2] * 4)
    with pytest.raises(error, match=message):
        cross_validate_graphs(_tiny_grams(y), y, **{"show_progress": False, **kwargs})


def test_cv_single_class_bad_y_and_nan_gram():
    y = np.ones(6)
    with pytest.raises(ValueError, match=r"y has a single class \(1.0\)"):
        cross_validate_graphs(_tiny_grams(y), y, n_folds=2, show_progress=False)
    y = np.array([0, 1] * 3)
    with pytest.raises(ValueError, match=r"y must be 1-D"):
        cross_validate_graphs(_tiny_grams(y), y[:, None], n_folds=2)
    grams = _tiny_grams(y)
    grams[None][0, 1] = np.nan
    with pytest.raises(ValueError, match=r"grams\[None\] contains NaN or infinity"):
        cross_validate_graphs(grams, y, n_folds=2)


def test_graph_grams_bad_arguments(mutag):
    graphs = mutag[0][:10]
    # before: "'NoneType' object is not iterable"
    with pytest.raises(TypeError, match=r"n_iter_values must be an iterable of integers >= 0"):
        grams_of(graphs, "wl", None)
    with pytest.raises(TypeError, match=r"n_iter_values must be an iterable"):
        grams_of(graphs, "wl", 3)
    with pytest.raises(ValueError, match=r"n_iter_values entries must be >= 0, got -1"):
        grams_of(graphs, "wl", [1, -1])
    with pytest.raises(TypeError, match=r"n_iter_values entries must be an integer, got float"):
        grams_of(graphs, "wl", [1.5])
    # n_iter_values for a kernel without a depth: refused, not ignored
    with pytest.raises(ValueError, match=r"n_iter_values applies to the WL kernels .* 'vertex'"):
        grams_of(graphs, "vertex", n_iter_values=[1, 2])
    with pytest.raises(TypeError, match="graphs must be a list of graphs"):
        grams_of(None)
    with pytest.raises(TypeError, match="normalize must be a bool"):
        grams_of(graphs, "vertex", normalize=1)
    with pytest.raises(ValueError, match="kernel must be one of"):
        grams_of(graphs, None)


def test_graph_grams_edge_kernel_labels(mutag):
    graphs = mutag[0][:20]
    by_bond = grams_of(graphs, "edge")[None]  # MUTAG edges carry bond types
    by_pairs = grams_of(graphs, "edge", edge_label=None)[None]
    assert by_bond.shape == by_pairs.shape == (20, 20)
    assert not np.allclose(by_bond, by_pairs)
    with pytest.raises(ValueError, match="no edge of any graph in graphs has a 'bnd'"):
        grams_of(graphs, "edge", edge_label="bnd")


def test_select_parameters_returns_a_frozen_selection(mutag, mutag_grams):
    import dataclasses

    _, y = mutag
    train = np.arange(0, len(y), 2)
    C_values = [0.1, 1.0, 10.0]
    choice = classify.select_parameters(mutag_grams, y, train, C_values, random_state=3)
    assert isinstance(choice, classify.ParameterSelection)
    assert [f.name for f in dataclasses.fields(choice)] == [
        "n_iter",
        "C",
        "validation_accuracy",
        "scores",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        choice.C = 5.0  # type: ignore[misc]
    # the choice is the first best of the grid, in (n_iter, C) order
    assert sorted(choice.scores) == sorted(mutag_grams)
    flat = [
        (s, n, C)
        for n in sorted(choice.scores)
        for C, s in zip(C_values, choice.scores[n], strict=True)
    ]
    best = max(s for s, _, _ in flat)
    first = next((n, C) for s, n, C in flat if s == best)
    assert (choice.n_iter, choice.C, choice.validation_accuracy) == (*first, best)
    # random_state seeds the validation split: an int or a RandomState seeded alike agree
    same = classify.select_parameters(
        mutag_grams, y, train, C_values, random_state=np.random.RandomState(3)
    )
    assert same == choice
    with pytest.raises(TypeError, match="seed"):
        classify.select_parameters(mutag_grams, y, train, C_values, seed=3)
    with pytest.raises(ValueError, match="grams must be a non-empty dict"):
        classify.select_parameters({}, y, train, C_values)


def test_cv_result_is_frozen_and_holds_the_selections(mutag, mutag_grams):
    import dataclasses

    _, y = mutag
    res = cross_validate_graphs(
        mutag_grams, y, C_values=[1.0, 10.0], n_folds=3, show_progress=False, random_state=2
    )
    assert all(isinstance(c, classify.ParameterSelection) for c in res.chosen)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.accuracies = np.zeros(3)  # type: ignore[misc]
    # each fold's test accuracy is that of the chosen (n_iter, C), refitted on the fold
    for acc, choice, (train, test) in zip(res.accuracies, res.chosen, res.folds, strict=True):
        K = mutag_grams[choice.n_iter]
        svc = classify.KernelSVC(kernel="precomputed", C=choice.C)
        pred = svc.fit(K[np.ix_(train, train)], y[train]).predict(K[np.ix_(test, train)])
        assert acc == np.mean(pred == y[test])


def test_depth_arguments_are_named_n_iter():
    import inspect

    params = inspect.signature(grams_of).parameters
    assert "n_iter_values" in params and "h_values" not in params
    assert "random_state" in inspect.signature(classify.select_parameters).parameters
    assert classify.DEFAULT_N_ITER_VALUES == range(7)
    assert not hasattr(classify, "DEFAULT_H")
