"""Helpers shared by experiments: splits, standardisation, error measures."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from sklearn.model_selection import train_test_split


class Split(NamedTuple):
    """A standardised train/test split; ``y * y_std + y_mean`` restores target units."""

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    y_mean: float
    y_std: float


def standardised_split(
    X: np.ndarray, y: np.ndarray, *, test_size: float = 0.2, random_state: Any = 0
) -> Split:
    """Random train/test split; X and y standardised with the *training* mean and std."""
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=test_size, random_state=random_state)
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    sd[sd == 0] = 1.0
    ym, ys = float(ytr.mean()), float(ytr.std())
    return Split((Xtr - mu) / sd, (Xte - mu) / sd, (ytr - ym) / ys, (yte - ym) / ys, ym, ys)


def rmse(y: np.ndarray, pred: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(y) - np.asarray(pred)) ** 2)))


def seeds(random_state: int, n: int) -> list[int]:
    """``n`` integer seeds derived from the experiment's seed (for repeated splits)."""
    rng = np.random.RandomState(random_state)
    return [int(s) for s in rng.randint(0, 2**31 - 1, size=n)]


def median_iqr(values: Any) -> list[str]:
    """Table cells for a spread of results: the median, and the inter-quartile range."""
    q25, q75 = np.percentile(values, [25, 75])
    return [f"{np.median(values):.2e}", f"{q25:.1e} .. {q75:.1e}"]
