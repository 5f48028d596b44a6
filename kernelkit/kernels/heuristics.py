"""Data-driven default hyperparameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit._validation import check_array, check_int, check_random_state
from kernelkit.kernels._blocks import sq_dist

__all__ = ["median_heuristic"]


def median_heuristic(X: Any, *, max_samples: int = 2000, random_state: Any = None) -> float:
    """Median of the pairwise Euclidean distances between distinct rows of ``X``.

    The "median trick" of Rowland (2018) §7.6 for the lengthscale of a Gaussian kernel.
    With more than ``max_samples`` rows a random subsample (from ``random_state``) is used.

    Examples
    --------
    >>> import numpy as np
    >>> median_heuristic(np.array([[0.0], [1.0], [3.0]]))
    2.0
    """
    X = check_array(X, "X")
    max_samples = check_int(max_samples, "max_samples", minimum=2)
    if X.shape[0] < 2:
        raise ValueError("X needs at least two rows for the median heuristic")
    if X.shape[0] > max_samples:
        rng = check_random_state(random_state)
        X = X[rng.choice(X.shape[0], max_samples, replace=False)]
    D = sq_dist(X.astype(np.float64))
    iu = np.triu_indices(X.shape[0], k=1)
    # the median of the distances, not sqrt(median of squares): they differ for even counts
    med = float(np.median(np.sqrt(D[iu])))
    if med == 0.0:
        raise ValueError("all rows of X are identical; the median distance is 0")
    return med
