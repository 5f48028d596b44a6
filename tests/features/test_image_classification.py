"""The MNIST Fisher-vector pipeline as functions: the stratified split, Fisher vectors and
linear SVMs on descriptor sets, and the choice of K, f and C on a validation split.

Synthetic descriptor sets (one Gaussian blob per class) check the bookkeeping against
brute force; a few hundred real MNIST digits with dense SIFT check that the pipeline
learns digits and that a mixture fitted on one digit prefers that digit.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

from kernelkit.datasets import load_mnist
from kernelkit.features import FisherVectorEncoder, SIFTDescriptors, extract_descriptors
from kernelkit.features.image_classification import (
    SMALL_SIZE,
    FisherClassification,
    FisherParameterSelection,
    classify_fisher_vectors,
    select_fisher_parameters,
    split_images,
)
from kernelkit.kernels import DiagonalGaussianMixture


def make_sets(counts, *, width=4, spread=3.0, sizes=(10, 25), random_state=0):
    """Descriptor sets: ``counts[label]`` sets per label, the descriptors of the j-th label
    drawn from ``N(spread e_j, I)`` (``e_j`` the j-th unit vector, j modulo ``width``), a
    random number of them in ``[sizes[0], sizes[1])`` per set (a constant with equal
    bounds). Returns ``(sets, labels)`` with the labels interleaved."""
    rng = np.random.default_rng(random_state)
    sets, y = [], []
    labels = list(counts)
    for i in range(max(counts.values())):
        for j, label in enumerate(labels):
            if i >= counts[label]:
                continue
            centre = np.zeros(width)
            centre[j % width] = spread
            n = sizes[0] if sizes[0] == sizes[1] else int(rng.integers(*sizes))
            sets.append(rng.normal(centre, 1.0, size=(n, width)))
            y.append(label)
    return sets, np.array(y)


def without_timings(result):
    """The fields of a result dataclass, ``timings`` left out (they vary from run to run)."""
    return {
        f.name: getattr(result, f.name) for f in dataclasses.fields(result) if f.name != "timings"
    }


def assert_same_result(a, b):
    fa, fb = without_timings(a), without_timings(b)
    assert fa.keys() == fb.keys()
    for name in fa:
        if isinstance(fa[name], np.ndarray):
            np.testing.assert_array_equal(fa[name], fb[name], err_msg=name)
        else:
            assert fa[name] == fb[name], name


@pytest.fixture(scope="module")
def mnist_labels():
    return load_mnist()[1]


# ------------------------------------------------------------------ split_images
def test_split_sizes_full_and_small(mnist_labels):
    assert SMALL_SIZE == 2000
    train, test = split_images(mnist_labels)
    assert (len(train), len(test)) == (8000, 2000)
    train, test = split_images(mnist_labels, small=True)
    assert (len(train), len(test)) == (1600, 400)


def test_small_keeps_every_label_when_there_are_fewer_than_small_size():
    labels = np.repeat([0, 1], 50)
    train, test = split_images(labels, small=True)
    assert (len(train), len(test)) == (80, 20)
    np.testing.assert_array_equal(np.sort(np.concatenate([train, test])), np.arange(100))


def test_small_on_synthetic_labels_above_small_size():
    labels = np.repeat([3, 1, 2, 0], [2000, 1500, 1000, 500])
    train, test = split_images(labels, small=True, random_state=4)
    assert (len(train), len(test)) == (1600, 400)


def class_counts(labels, index, classes):
    return np.array([np.count_nonzero(labels[index] == c) for c in classes])


@pytest.mark.parametrize("test_size", [0.2, 0.35])
def test_split_is_stratified_within_one_image(mnist_labels, test_size):
    classes, totals = np.unique(mnist_labels, return_counts=True)
    train, test = split_images(mnist_labels, test_size=test_size, random_state=1)
    assert np.all(np.abs(class_counts(mnist_labels, test, classes) - test_size * totals) <= 1)
    train_exact = (1 - test_size) * totals
    assert np.all(np.abs(class_counts(mnist_labels, train, classes) - train_exact) <= 1)


def test_small_split_is_stratified_within_one_image_at_each_draw(mnist_labels):
    classes, totals = np.unique(mnist_labels, return_counts=True)
    train, test = split_images(mnist_labels, small=True, random_state=2)
    kept = class_counts(mnist_labels, np.concatenate([train, test]), classes)
    assert kept.sum() == SMALL_SIZE
    assert np.all(np.abs(kept - SMALL_SIZE * totals / totals.sum()) <= 1)
    assert np.all(np.abs(class_counts(mnist_labels, test, classes) - 0.2 * kept) <= 1)


def test_split_on_string_labels_is_stratified():
    labels = np.repeat(["cat", "dog", "emu"], [50, 30, 20])
    train, test = split_images(labels, test_size=0.3, random_state=0)
    np.testing.assert_array_equal(class_counts(labels, test, ["cat", "dog", "emu"]), [15, 9, 6])
    np.testing.assert_array_equal(class_counts(labels, train, ["cat", "dog", "emu"]), [35, 21, 14])


@pytest.mark.parametrize("small", [False, True])
def test_split_indices_are_disjoint_sorted_and_in_range(mnist_labels, small):
    train, test = split_images(mnist_labels, small=small, random_state=3)
    for index in (train, test):
        assert np.issubdtype(index.dtype, np.integer)
        assert np.all(np.diff(index) > 0)  # sorted, no repeats
        assert index.min() >= 0 and index.max() < len(mnist_labels)
    assert np.intersect1d(train, test).size == 0
    if not small:
        np.testing.assert_array_equal(np.union1d(train, test), np.arange(len(mnist_labels)))


@pytest.mark.parametrize("small", [False, True])
def test_split_depends_on_the_seed_only(mnist_labels, small):
    a = split_images(mnist_labels, small=small, random_state=5)
    b = split_images(mnist_labels, small=small, random_state=5)
    c = split_images(mnist_labels, small=small, random_state=6)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[1], c[1])


@pytest.mark.parametrize(
    "labels", [np.zeros((10, 2), dtype=int), np.array([], dtype=int), np.array(3)], ids=repr
)
def test_bad_labels_are_named(labels):
    with pytest.raises(ValueError, match="labels must be a non-empty 1-D array"):
        split_images(labels)


@pytest.mark.parametrize(
    ("test_size", "error"),
    [(0, ValueError), (0.0, ValueError), (1, ValueError), (1.5, ValueError),
     (-0.2, ValueError), (float("nan"), ValueError), ("0.2", TypeError), (True, TypeError)],
)  # fmt: skip
def test_bad_test_size_is_named(test_size, error):
    with pytest.raises(error, match="test_size"):
        split_images(np.repeat([0, 1], 20), test_size=test_size)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"random_state": -1}, ValueError, "random_state"),
        ({"random_state": 1.5}, TypeError, "random_state"),
        ({"random_state": None}, TypeError, "random_state"),
        ({"small": 1}, TypeError, "small"),
    ],
)
def test_bad_seed_and_small_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        split_images(np.repeat([0, 1], 20), **kwargs)


# ------------------------------------------------------------------ classify_fisher_vectors
TRAIN_COUNTS = {"zebra": 12, "ant": 10, "moose": 8}
TEST_COUNTS = {"zebra": 5, "ant": 3, "moose": 7}


@pytest.fixture(scope="module")
def separable():
    train_sets, y_train = make_sets(TRAIN_COUNTS, random_state=0)
    test_sets, y_test = make_sets(TEST_COUNTS, random_state=1)
    return train_sets, y_train, test_sets, y_test


def test_separable_sets_are_classified_perfectly(separable):
    # K=2 < 3 classes on purpose: with one well-fitted component per class (K=3 here), each
    # set's vector is zero-mean noise in its own component's block (the Fisher vector is a
    # deviation from the model, and without the weight block it does not say which
    # component the set fell in), which a linear SVM cannot separate
    result = classify_fisher_vectors(*separable, n_components=2, pca_components=2, C=0.5)
    assert isinstance(result, FisherClassification)
    assert result.accuracy == 1.0
    # the classes sorted, confusion rows and columns in that order
    np.testing.assert_array_equal(result.classes, ["ant", "moose", "zebra"])
    expected = np.diag([TEST_COUNTS[c] for c in ("ant", "moose", "zebra")])
    np.testing.assert_array_equal(result.confusion, expected)
    assert result.confusion.sum() == result.n_test == sum(TEST_COUNTS.values())
    assert result.n_train == sum(TRAIN_COUNTS.values())
    assert (result.n_components, result.pca_components, result.C) == (2, 2, 0.5)
    assert result.power_normalize is True
    assert result.vector_length == 2 * 2 * 2
    assert set(result.timings) == {"gmm", "encode", "train", "predict"}
    assert all(t >= 0 for t in result.timings.values())
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.accuracy = 0.5  # type: ignore[misc]


@pytest.mark.parametrize(("K", "f"), [(1, None), (2, 2), (4, None)])
def test_vector_length_is_2_K_f(separable, K, f):
    result = classify_fisher_vectors(*separable, n_components=K, pca_components=f)
    width = separable[0][0].shape[1]
    assert result.vector_length == 2 * K * (width if f is None else f)
    assert result.n_components == K and result.pca_components == f


def test_without_power_normalisation(separable):
    result = classify_fisher_vectors(
        *separable, n_components=2, pca_components=None, power_normalize=False
    )
    assert result.power_normalize is False
    assert result.accuracy == 1.0


@pytest.mark.parametrize("power_normalize", [True, False])
def test_agrees_with_the_encoder_and_a_linear_svm_by_hand(power_normalize):
    # overlapping blobs, so that some test sets are misclassified and the confusion matrix
    # says something
    counts = {0: 15, 1: 15, 2: 15}
    train_sets, y_train = make_sets(counts, spread=0.4, sizes=(3, 8), random_state=2)
    test_sets, y_test = make_sets(counts, spread=0.4, sizes=(3, 8), random_state=3)
    kwargs = {"n_components": 2, "pca_components": 3, "power_normalize": power_normalize}
    result = classify_fisher_vectors(
        train_sets, y_train, test_sets, y_test, C=2.0, random_state=7, **kwargs
    )
    encoder = FisherVectorEncoder(**kwargs, random_state=7).fit(train_sets)
    svm = LinearSVC(C=2.0, random_state=7).fit(encoder.transform(train_sets), y_train)
    predicted = svm.predict(encoder.transform(test_sets))
    assert result.accuracy == np.mean(predicted == y_test)
    assert 0.4 < result.accuracy < 1.0  # the data are hard enough for this test to mean much
    confusion = np.zeros((3, 3), dtype=int)
    np.add.at(confusion, (y_test, predicted), 1)
    np.testing.assert_array_equal(result.confusion, confusion)


def test_max_gmm_sets_fits_the_mixture_on_a_subset():
    # 30 training sets of 10 descriptors each: K=25 fits on all 300 descriptors but not
    # on the 20 descriptors of 2 sets
    counts = {0: 15, 1: 15}
    train_sets, y_train = make_sets(counts, sizes=(10, 10), random_state=0)
    test_sets, y_test = make_sets(counts, sizes=(10, 10), random_state=1)
    args = (train_sets, y_train, test_sets, y_test)
    result = classify_fisher_vectors(*args, n_components=25, pca_components=None)
    assert result.n_components == 25
    with pytest.raises(ValueError, match=r"n_components=25 .* descriptors in X \(20\)"):
        classify_fisher_vectors(*args, n_components=25, pca_components=None, max_gmm_sets=2)
    # a subset as large as the training sets is all of them
    full = classify_fisher_vectors(*args, n_components=3, pca_components=2)
    assert_same_result(
        classify_fisher_vectors(*args, n_components=3, pca_components=2, max_gmm_sets=30), full
    )
    assert_same_result(
        classify_fisher_vectors(*args, n_components=3, pca_components=2, max_gmm_sets=500), full
    )


def test_max_gmm_sets_subset_is_seeded():
    counts = {0: 15, 1: 15}
    train_sets, y_train = make_sets(counts, spread=0.5, random_state=0)
    test_sets, y_test = make_sets(counts, spread=0.5, random_state=1)
    args = (train_sets, y_train, test_sets, y_test)
    kwargs = {"n_components": 2, "pca_components": 2, "max_gmm_sets": 6}
    a = classify_fisher_vectors(*args, random_state=3, **kwargs)
    assert_same_result(classify_fisher_vectors(*args, random_state=3, **kwargs), a)


def test_same_random_state_gives_the_same_result(separable):
    kwargs = {"n_components": 3, "pca_components": 2, "random_state": 11}
    a = classify_fisher_vectors(*separable, **kwargs)
    b = classify_fisher_vectors(*separable, **kwargs)
    assert_same_result(a, b)


@pytest.mark.parametrize(
    ("which", "y", "match"),
    [
        ("train", "short", r"y_train must be 1-D with one class per set of train_sets \(30\)"),
        ("train", "long", "y_train"),
        ("train", "2d", "y_train"),
        ("test", "short", r"y_test must be 1-D with one class per set of test_sets \(15\)"),
        ("test", "long", "y_test"),
        ("test", "2d", "y_test"),
    ],
)
def test_labels_that_do_not_match_the_sets_are_named(separable, which, y, match):
    train_sets, y_train, test_sets, y_test = separable
    labels = y_train if which == "train" else y_test
    bad = {"short": labels[:-1], "long": np.append(labels, labels[0]), "2d": labels[:, None]}[y]
    if which == "train":
        args = (train_sets, bad, test_sets, y_test)
    else:
        args = (train_sets, y_train, test_sets, bad)
    with pytest.raises(ValueError, match=match):
        classify_fisher_vectors(*args, n_components=1, pca_components=None)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"C": 0}, ValueError, "C"),
        ({"C": float("inf")}, ValueError, "C"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"power_normalize": "yes"}, TypeError, "power_normalize"),
        ({"max_gmm_sets": 0}, ValueError, "max_gmm_sets"),
        ({"max_gmm_sets": 2.5}, TypeError, "max_gmm_sets"),
        ({"n_components": 0}, ValueError, "n_components"),
        ({"pca_components": 9}, ValueError, "pca_components"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
    ],
)
def test_bad_settings_are_named(separable, kwargs, error, match):
    with pytest.raises(error, match=match):
        classify_fisher_vectors(*separable, **{"n_components": 1, "pca_components": None, **kwargs})


# ------------------------------------------------------------------ real MNIST digits
@pytest.fixture(scope="module")
def mnist_sift():
    """Dense SIFT of 300 training and 100 test MNIST digits, both stratified."""
    images, labels = load_mnist()
    _, subset = split_images(labels, test_size=0.04, random_state=0)  # 400 digits
    train, test = split_images(labels[subset], test_size=0.25, random_state=0)
    train, test = subset[train], subset[test]
    sets = extract_descriptors(images[np.concatenate([train, test])], SIFTDescriptors())
    return sets[: len(train)], labels[train], sets[len(train) :], labels[test]


def test_mnist_sift_fisher_vectors_learn_the_digits(mnist_sift):
    train_sets, y_train, test_sets, y_test = mnist_sift
    assert (len(train_sets), len(test_sets)) == (300, 100)
    assert np.bincount(y_train).min() >= 25 and np.bincount(y_test).min() >= 8
    result = classify_fisher_vectors(*mnist_sift, n_components=8, pca_components=16)
    assert result.vector_length == 2 * 8 * 16
    assert result.accuracy >= 0.8  # chance: 0.1; measured 0.93
    assert np.trace(result.confusion) == round(100 * result.accuracy)


@pytest.fixture(scope="module")
def mnist_zeros_and_ones():
    images, labels = load_mnist()
    return {d: extract_descriptors(images[np.flatnonzero(labels == d)[:60]]) for d in (0, 1)}


@pytest.mark.parametrize(("digit", "other"), [(0, 1), (1, 0)])
def test_a_mixture_fitted_on_one_digit_gives_that_digit_the_larger_likelihood(
    mnist_zeros_and_ones, digit, other
):
    # the issue: "a GMM fitted on one class's descriptors gives that class the larger
    # likelihood", on held-out digits, per descriptor
    own, rival = mnist_zeros_and_ones[digit], mnist_zeros_and_ones[other]
    encoder = FisherVectorEncoder(8, pca_components=16, random_state=0).fit(own[:40])
    model = DiagonalGaussianMixture(encoder.gmm_)

    def mean_log_likelihood(sets):
        reduced = [encoder.pca_.transform(x) for x in sets]
        return np.mean(model.log_likelihood(reduced) / [len(x) for x in sets])

    held_out, rival_ll = mean_log_likelihood(own[40:]), mean_log_likelihood(rival[40:])
    assert held_out > rival_ll + 1.0  # measured: about 7-9 nats per descriptor apart


# ------------------------------------------------------------------ select_fisher_parameters
GRID = {"n_components_values": (1, 2), "pca_components_values": (None,), "C_values": (0.01, 1)}


@pytest.fixture(scope="module")
def overlapping():
    counts = {0: 20, 1: 20, 2: 20}
    train_sets, y_train = make_sets(counts, spread=0.8, sizes=(4, 12), random_state=5)
    test_sets, y_test = make_sets({0: 6, 1: 6, 2: 6}, spread=0.8, sizes=(4, 12), random_state=6)
    return train_sets, y_train, test_sets, y_test


@pytest.fixture(scope="module")
def selection(overlapping):
    return select_fisher_parameters(*overlapping, **GRID, max_gmm_sets=None, random_state=1)


def test_selection_returns_the_first_best_of_its_scores(selection):
    assert isinstance(selection, FisherParameterSelection)
    assert selection.C_values == (0.01, 1.0)
    assert set(selection.scores) == {(1, None), (2, None)}
    assert all(len(row) == 2 for row in selection.scores.values())
    best = max(max(row) for row in selection.scores.values())
    assert selection.validation_accuracy == best
    # ties go to the earlier grid values: the first maximiser in grid order
    first = next(
        (k, f, c)
        for (k, f), row in selection.scores.items()
        for c, acc in zip(selection.C_values, row, strict=True)
        if acc == best
    )
    assert (selection.n_components, selection.pca_components, selection.C) == first
    i = selection.C_values.index(selection.C)
    assert selection.scores[(selection.n_components, selection.pca_components)][i] == best
    # the scores differ, so that the choice is a choice
    assert len({acc for row in selection.scores.values() for acc in row}) > 1


def test_selection_scores_are_validation_accuracies_by_hand(overlapping, selection):
    train_sets, y_train, _, _ = overlapping
    fit, val = train_test_split(
        np.arange(len(y_train)), test_size=0.2, stratify=y_train, random_state=1
    )
    for k in (1, 2):
        encoder = FisherVectorEncoder(k, random_state=1).fit([train_sets[i] for i in fit])
        V_fit = encoder.transform([train_sets[i] for i in fit])
        V_val = encoder.transform([train_sets[i] for i in val])
        for c, acc in zip((0.01, 1.0), selection.scores[(k, None)], strict=True):
            svm = LinearSVC(C=c, random_state=1).fit(V_fit, y_train[fit])
            assert acc == np.mean(svm.predict(V_val) == y_train[val])


def test_selection_refits_the_choice_on_all_training_sets(overlapping, selection):
    expected = classify_fisher_vectors(
        *overlapping,
        n_components=selection.n_components,
        pca_components=selection.pca_components,
        C=selection.C,
        random_state=1,
    )
    assert_same_result(selection.test, expected)


def test_the_test_sets_play_no_part_in_the_choice(overlapping, selection):
    train_sets, y_train, test_sets, y_test = overlapping
    flipped = (y_test + 1) % 3
    other = select_fisher_parameters(
        train_sets, y_train, test_sets, flipped, **GRID, max_gmm_sets=None, random_state=1
    )
    assert (other.n_components, other.pca_components, other.C) == (
        selection.n_components,
        selection.pca_components,
        selection.C,
    )
    assert other.validation_accuracy == selection.validation_accuracy
    assert other.scores == selection.scores
    assert other.test.accuracy != selection.test.accuracy
    # other test sets altogether: the same choice again
    fresh_sets, fresh_y = make_sets({0: 4, 1: 4, 2: 4}, spread=5.0, random_state=9)
    again = select_fisher_parameters(
        train_sets, y_train, fresh_sets, fresh_y, **GRID, max_gmm_sets=None, random_state=1
    )
    assert again.scores == selection.scores and again.C == selection.C


def test_selection_is_seeded(overlapping, selection):
    again = select_fisher_parameters(*overlapping, **GRID, max_gmm_sets=None, random_state=1)
    assert again.scores == selection.scores
    assert_same_result(again.test, selection.test)


def test_selection_with_max_gmm_sets(overlapping):
    result = select_fisher_parameters(*overlapping, **GRID, max_gmm_sets=10, random_state=0)
    assert result.validation_accuracy == max(max(row) for row in result.scores.values())
    with pytest.raises(ValueError, match="max_gmm_sets"):
        select_fisher_parameters(*overlapping, **GRID, max_gmm_sets=0)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_components_values": ()}, ValueError, "must be non-empty"),
        ({"pca_components_values": ()}, ValueError, "must be non-empty"),
        ({"C_values": ()}, ValueError, "must be non-empty"),
        ({"n_components_values": (1, 0)}, ValueError, "n_components_values"),
        ({"n_components_values": (1.5,)}, TypeError, "n_components_values"),
        ({"pca_components_values": (0,)}, ValueError, "pca_components_values"),
        ({"C_values": (1.0, -1.0)}, ValueError, "C_values"),
        ({"validation_size": 1.0}, ValueError, "validation_size"),
        ({"random_state": -3}, ValueError, "random_state"),
    ],
)
def test_bad_grids_are_named(overlapping, kwargs, error, match):
    with pytest.raises(error, match=match):
        select_fisher_parameters(*overlapping, **{**GRID, **kwargs})


def test_selection_names_test_labels_that_do_not_match(overlapping):
    train_sets, y_train, test_sets, y_test = overlapping
    with pytest.raises(ValueError, match="y_test"):
        select_fisher_parameters(train_sets, y_train, test_sets, y_test[:-1], **GRID)


@pytest.mark.parametrize(
    "change",
    ["short", "long"],
)
def test_selection_names_training_labels_that_do_not_match(overlapping, change):
    train_sets, y_train, test_sets, y_test = overlapping
    bad = y_train[:-3] if change == "short" else np.append(y_train, y_train[:3])
    with pytest.raises(ValueError, match="y_train"):
        select_fisher_parameters(train_sets, bad, test_sets, y_test, **GRID)
