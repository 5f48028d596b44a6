"""Image classification with Fisher vectors and a linear SVM: the assignment's MNIST
pipeline (Q1.3–1.4): local descriptors -> Fisher vectors (eqs. 1.13–1.14, with power and
L2 normalisation) -> ten one-vs-rest linear SVMs (scikit-learn ``LinearSVC``).

Descriptors are extracted once (:func:`~kernelkit.features.extract_descriptors`); the
functions here take the descriptor sets, so one extraction serves every parameter
setting. Parameters are chosen on a validation split carved from the training part
(:func:`select_fisher_parameters`); the test split is scored once.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.metrics import confusion_matrix
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

from kernelkit._validation import (
    check_bool,
    check_fraction,
    check_int,
    check_positive_scalar,
    check_seed,
)
from kernelkit.features.fisher import FisherVectorEncoder

__all__ = [
    "SMALL_SIZE",
    "FisherClassification",
    "FisherParameterSelection",
    "classify_fisher_vectors",
    "select_fisher_parameters",
    "split_images",
]

#: Images kept by ``--small`` runs (stratified): 1600 for training, 400 for testing.
SMALL_SIZE = 2000


@dataclass(frozen=True)
class FisherClassification:
    """The outcome of :func:`classify_fisher_vectors`.

    Attributes
    ----------
    accuracy : float
        Test accuracy (fraction of test sets classified correctly).
    confusion : ndarray of shape (n_classes, n_classes)
        ``confusion[i, j]``: test sets of class ``classes[i]`` predicted as ``classes[j]``.
    classes : ndarray
        The class labels, in the order of ``confusion``.
    n_components : int
        ``K``, the mixture components used.
    pca_components : int or None
        ``f``, the descriptor dimension after PCA (``None``: no PCA).
    power_normalize : bool
        Whether the signed square root was applied.
    C : float
        The SVMs' regularisation constant.
    n_train, n_test : int
        Number of training and test sets.
    vector_length : int
        Length of the Fisher vectors (``2 K f``).
    timings : dict
        Seconds spent in each stage: ``"gmm"`` (PCA and mixture fit), ``"encode"``
        (Fisher vectors of the training and test sets), ``"train"`` (the SVMs) and
        ``"predict"``.
    """

    accuracy: float
    confusion: np.ndarray
    classes: np.ndarray
    n_components: int
    pca_components: int | None
    power_normalize: bool
    C: float
    n_train: int
    n_test: int
    vector_length: int
    timings: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class FisherParameterSelection:
    """The outcome of :func:`select_fisher_parameters`.

    Attributes
    ----------
    n_components : int
        The chosen ``K``.
    pca_components : int or None
        The chosen ``f`` (``None``: no PCA).
    C : float
        The chosen SVM ``C``.
    validation_accuracy : float
        The validation accuracy of the chosen triple (the best of ``scores``).
    scores : dict
        ``{(n_components, pca_components): [validation accuracy for each C of C_values]}``.
    C_values : tuple of float
        The ``C`` grid, in the order of the lists of ``scores``.
    test : FisherClassification
        The chosen triple refitted on the whole training part and scored once on the test
        sets.
    """

    n_components: int
    pca_components: int | None
    C: float
    validation_accuracy: float
    scores: dict[tuple[int, int | None], list[float]]
    C_values: tuple[float, ...]
    test: FisherClassification


def split_images(
    labels: Any, *, small: bool = False, test_size: float = 0.2, random_state: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Stratified, seeded train/test indices into ``labels``.

    Parameters
    ----------
    labels : array-like of shape (n,)
        Class of each image.
    small : bool, default=False
        Keep a stratified subset of :data:`SMALL_SIZE` images first (the ``--small`` run).
    test_size : float, default=0.2
        Fraction of the (kept) images in the test split.
    random_state : int, default=0
        Seed of both draws.

    Returns
    -------
    train, test : ndarray of int
        Indices into ``labels``, each sorted.

    Examples
    --------
    >>> from kernelkit.datasets import load_mnist
    >>> from kernelkit.features.image_classification import split_images
    >>> _, labels = load_mnist()
    >>> train, test = split_images(labels, small=True)
    >>> len(train), len(test)
    (1600, 400)
    """
    y = np.asarray(labels)
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"labels must be a non-empty 1-D array, got shape {y.shape}")
    test_size = check_fraction(test_size, "test_size")
    seed = check_seed(random_state)
    index = np.arange(len(y))
    if check_bool(small, "small") and len(y) > SMALL_SIZE:
        index, _ = train_test_split(index, train_size=SMALL_SIZE, stratify=y, random_state=seed)
    train, test = train_test_split(index, test_size=test_size, stratify=y[index], random_state=seed)
    return np.sort(train), np.sort(test)


def classify_fisher_vectors(
    train_sets: Sequence[Any],
    y_train: Any,
    test_sets: Sequence[Any],
    y_test: Any,
    *,
    n_components: int = 16,
    pca_components: int | None = 16,
    power_normalize: bool = True,
    C: float = 1.0,
    max_gmm_sets: int | None = None,
    random_state: int = 0,
    n_jobs: int | None = None,
) -> FisherClassification:
    """Fisher vectors of descriptor sets, then ten one-vs-rest linear SVMs.

    The PCA and the diagonal mixture are fitted on the training sets only (on
    ``max_gmm_sets`` of them, drawn at random, when given); the same encoder maps the
    test sets. ``LinearSVC(C=C)`` (one-vs-rest, squared hinge) learns on the training
    vectors.

    Parameters
    ----------
    train_sets : sequence of arrays of shape (n_i, D)
        Training descriptor sets (from :func:`~kernelkit.features.extract_descriptors`).
    y_train : array-like of shape (len(train_sets),)
        Their classes.
    test_sets : sequence of arrays of shape (n_i, D)
        Test descriptor sets.
    y_test : array-like of shape (len(test_sets),)
        Their classes.
    n_components : int, default=16
        ``K``, the mixture components.
    pca_components : int or None, default=16
        ``f``, the descriptor dimension after PCA (``None``: no PCA).
    power_normalize : bool, default=True
        Signed square root before L2 normalisation (Perronnin et al. 2010).
    C : float, default=1.0
        The SVMs' regularisation constant.
    max_gmm_sets : int or None, default=None
        Fit the PCA and the mixture on this many training sets only (all when ``None``).
    random_state : int, default=0
        Seeds the mixture, the subset and the SVMs.
    n_jobs : int or None, default=None
        Threads for the Fisher vectors (see :class:`FisherVectorEncoder`).

    Returns
    -------
    FisherClassification
        The test accuracy and confusion matrix, the settings used and the timings.

    Raises
    ------
    ValueError
        If ``y_train`` or ``y_test`` is not 1-D with one class per set.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.features.image_classification import classify_fisher_vectors
    >>> rng = np.random.default_rng(0)
    >>> sets = [rng.normal(loc=c, size=(30, 4)) for c in (0.0, 1.0) * 20]
    >>> y = np.array([0, 1] * 20)
    >>> result = classify_fisher_vectors(sets[:30], y[:30], sets[30:], y[30:],
    ...                                  n_components=2, pca_components=None)
    >>> result.accuracy, result.confusion.tolist()
    (1.0, [[5, 0], [0, 5]])
    """
    y_train, y_test = _check_labels(train_sets, y_train, test_sets, y_test)
    C = check_positive_scalar(C, "C")
    seed = check_seed(random_state)
    power_normalize = check_bool(power_normalize, "power_normalize")
    fit_sets = _subset(train_sets, max_gmm_sets, seed)
    timings: dict[str, float] = {}
    t = time.perf_counter()
    encoder = FisherVectorEncoder(
        n_components,
        pca_components=pca_components,
        power_normalize=power_normalize,
        random_state=seed,
        n_jobs=n_jobs,
    ).fit(fit_sets)
    timings["gmm"] = time.perf_counter() - t
    t = time.perf_counter()
    V_train, V_test = encoder.transform(train_sets), encoder.transform(test_sets)
    timings["encode"] = time.perf_counter() - t
    t = time.perf_counter()
    svm = LinearSVC(C=C, random_state=seed).fit(V_train, y_train)
    timings["train"] = time.perf_counter() - t
    t = time.perf_counter()
    predicted = svm.predict(V_test)
    timings["predict"] = time.perf_counter() - t
    classes = np.unique(np.concatenate([y_train, y_test]))
    return FisherClassification(
        accuracy=float(np.mean(predicted == y_test)),
        confusion=confusion_matrix(y_test, predicted, labels=classes),
        classes=classes,
        n_components=int(encoder.gmm_.means_.shape[0]),
        pca_components=pca_components,
        power_normalize=power_normalize,
        C=C,
        n_train=len(train_sets),
        n_test=len(test_sets),
        vector_length=int(encoder.vector_length_),
        timings=timings,
    )


def select_fisher_parameters(
    train_sets: Sequence[Any],
    y_train: Any,
    test_sets: Sequence[Any],
    y_test: Any,
    *,
    n_components_values: Sequence[int] = (16, 32, 64),
    pca_components_values: Sequence[int | None] = (32, 64),
    C_values: Sequence[float] = (0.1, 1.0, 10.0),
    validation_size: float = 0.2,
    max_gmm_sets: int | None = 2000,
    random_state: int = 0,
    n_jobs: int | None = None,
) -> FisherParameterSelection:
    """Choose ``K``, ``f`` and ``C`` on a validation split of the training sets, then
    refit on all training sets and score the test sets once.

    The validation split is stratified and seeded, carved from ``train_sets``; the test
    sets play no part in the choice. For each ``(K, f)`` one encoder is fitted on the
    validation-training sets and every ``C`` reuses its vectors. Ties go to the
    setting met first in grid order.

    Parameters
    ----------
    train_sets : sequence of arrays of shape (n_i, D)
        Training descriptor sets, as in :func:`classify_fisher_vectors`.
    y_train : array-like of shape (len(train_sets),)
        Their classes.
    test_sets : sequence of arrays of shape (n_i, D)
        Test descriptor sets, scored once with the chosen setting.
    y_test : array-like of shape (len(test_sets),)
        Their classes.
    n_components_values, pca_components_values, C_values : sequences
        The grid.
    validation_size : float, default=0.2
        Fraction of the training sets held out for validation.
    max_gmm_sets : int or None, default=2000
        Sets used to fit each PCA and mixture (see :func:`classify_fisher_vectors`).
    random_state : int, default=0
        Seeds the split, the mixtures and the SVMs.
    n_jobs : int or None, default=None
        Threads for the Fisher vectors.

    Returns
    -------
    FisherParameterSelection
        The chosen setting, the validation scores of the grid and the test outcome.

    Raises
    ------
    ValueError
        If a grid is empty, or ``y_train`` or ``y_test`` is not 1-D with one class per
        set.
    """
    y_train, y_test = _check_labels(train_sets, y_train, test_sets, y_test)
    seed = check_seed(random_state)
    validation_size = check_fraction(validation_size, "validation_size")
    Ks = [check_int(k, "n_components_values", minimum=1) for k in n_components_values]
    fs = [
        None if f is None else check_int(f, "pca_components_values", minimum=1)
        for f in pca_components_values
    ]
    Cs = tuple(check_positive_scalar(c, "C_values") for c in C_values)
    if not (Ks and fs and Cs):
        raise ValueError(
            "n_components_values, pca_components_values and C_values must be non-empty"
        )
    fit, val = train_test_split(
        np.arange(len(y_train)), test_size=validation_size, stratify=y_train, random_state=seed
    )
    fit_sets = [train_sets[i] for i in fit]
    val_sets = [train_sets[i] for i in val]
    scores: dict[tuple[int, int | None], list[float]] = {}
    best: tuple[float, int, int | None, float] | None = None
    for k in Ks:
        for f in fs:
            encoder = FisherVectorEncoder(k, pca_components=f, random_state=seed, n_jobs=n_jobs)
            encoder.fit(_subset(fit_sets, max_gmm_sets, seed))
            V_fit, V_val = encoder.transform(fit_sets), encoder.transform(val_sets)
            row = []
            for c in Cs:
                svm = LinearSVC(C=c, random_state=seed).fit(V_fit, y_train[fit])
                acc = float(np.mean(svm.predict(V_val) == y_train[val]))
                row.append(acc)
                if best is None or acc > best[0]:
                    best = (acc, k, f, c)
            scores[(k, f)] = row
    assert best is not None
    acc, k, f, c = best
    test = classify_fisher_vectors(
        train_sets,
        y_train,
        test_sets,
        y_test,
        n_components=k,
        pca_components=f,
        C=c,
        max_gmm_sets=max_gmm_sets,
        random_state=seed,
        n_jobs=n_jobs,
    )
    return FisherParameterSelection(
        n_components=k,
        pca_components=f,
        C=c,
        validation_accuracy=acc,
        scores=scores,
        C_values=Cs,
        test=test,
    )


def _subset(sets: Sequence[Any], size: int | None, seed: int) -> Sequence[Any]:
    """``size`` of ``sets`` drawn at random (in their order), or all of them."""
    if size is None:
        return sets
    size = check_int(size, "max_gmm_sets", minimum=1)
    if size >= len(sets):
        return sets
    pick = np.sort(np.random.default_rng(seed).choice(len(sets), size, replace=False))
    return [sets[i] for i in pick]


def _check_labels(
    train_sets: Sequence[Any], y_train: Any, test_sets: Sequence[Any], y_test: Any
) -> tuple[np.ndarray, np.ndarray]:
    """``y_train`` and ``y_test`` as arrays, each 1-D with one class per set."""
    out = []
    for name, sets, y in (("train", train_sets, y_train), ("test", test_sets, y_test)):
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != len(sets):
            raise ValueError(
                f"y_{name} must be 1-D with one class per set of {name}_sets "
                f"({len(sets)}), got shape {y.shape}"
            )
        out.append(y)
    return out[0], out[1]
