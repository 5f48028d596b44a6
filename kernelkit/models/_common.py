"""Input handling shared by the kernel estimators (resolving ``kernel``, checking ``X`` and
``y``, applying a feature map) and the primal ridge solve.

A kernel estimator sees three kinds of input, decided by its ``kernel`` argument:

* a kernel on vectors (``requires_vector_input``): ``X`` is a 2-D numeric array;
* a kernel on objects (sets, graphs, ...): ``X`` is a list of objects, kept as given;
* the string ``"precomputed"``: ``X`` is a Gram matrix, square in ``fit`` and of shape
  ``(n_test, n_train)`` at prediction time (scikit-learn's convention).
"""

from __future__ import annotations

from typing import Any, Final, Literal

import numpy as np
import scipy.linalg

from kernelkit._validation import check_array
from kernelkit.kernels import RBF, Kernel
from kernelkit.models._linalg import cholesky_jitter

PRECOMPUTED: Final = "precomputed"


def resolve_kernel(kernel: Any) -> Kernel | Literal["precomputed"]:
    """``None`` -> ``RBF()``; a :class:`Kernel` or ``"precomputed"`` as is; else TypeError."""
    if kernel is None:
        return RBF()
    if isinstance(kernel, str):
        if kernel == PRECOMPUTED:
            return PRECOMPUTED
        raise ValueError(f"kernel must be a Kernel object or 'precomputed', got {kernel!r}")
    if not isinstance(kernel, Kernel):
        raise TypeError(
            f"kernel must be a kernelkit Kernel object or 'precomputed', "
            f"got {type(kernel).__name__}"
        )
    return kernel


def n_objects(X: Any) -> int:
    return X.shape[0] if isinstance(X, np.ndarray) else len(X)


def check_fit_input(X: Any, kernel: Kernel | str, name: str = "X") -> Any:
    """Validate training inputs for ``kernel``; returns the array / the list of objects."""
    if kernel == PRECOMPUTED:
        X = check_array(X, name, dtype=np.float64)
        if X.shape[0] != X.shape[1]:
            raise ValueError(
                f"with kernel='precomputed', {name} must be a square Gram matrix, "
                f"got shape {X.shape}"
            )
        return X
    assert isinstance(kernel, Kernel)
    if kernel.requires_vector_input:
        return check_array(X, name)
    return check_objects(X, name)


def check_objects(X: Any, name: str = "X") -> Any:
    """A non-empty sized collection of objects (list of sets, graphs, ...)."""
    if X is None or isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
        raise TypeError(f"{name} must be a list of objects, got {type(X).__name__}")
    if len(X) == 0:
        raise ValueError(f"{name} is empty; at least one sample is required")
    return X


def check_predict_input(
    X: Any, kernel: Kernel | str, n_train: int, n_features: int | None, name: str = "X"
) -> Any:
    """Validate test inputs against what ``fit`` saw."""
    if kernel == PRECOMPUTED:
        X = check_array(X, name, dtype=np.float64)
        if X.shape[1] != n_train:
            raise ValueError(
                f"with kernel='precomputed', {name} must have shape (n_test, n_train) = "
                f"(?, {n_train}), got {X.shape}"
            )
        return X
    assert isinstance(kernel, Kernel)
    if kernel.requires_vector_input:
        return check_array(X, name, n_features=n_features)
    return check_objects(X, name)


def take(X: Any, idx: np.ndarray) -> Any:
    """Rows ``idx`` of an array, or the corresponding items of a list of objects."""
    if isinstance(X, np.ndarray):
        return X[idx]
    return [X[i] for i in idx]


def apply_feature_map(fm: Any, X: Any, fit: bool) -> np.ndarray:
    """``Phi = fm(X)`` as a finite float64 array (fitting ``fm`` first when ``fit``)."""
    if fit and hasattr(fm, "fit_transform"):
        Phi = fm.fit_transform(X)
    elif hasattr(fm, "transform"):
        Phi = fm.transform(X)
    else:
        Phi = fm(X)
    if hasattr(Phi, "toarray"):  # scipy sparse features
        Phi = Phi.toarray()
    Phi = check_array(Phi, "feature_map(X)", dtype=np.float64)
    n = n_objects(X)
    if Phi.shape[0] != n:
        raise ValueError(f"feature_map(X) has {Phi.shape[0]} rows, but X has {n} samples")
    return Phi


def check_targets(y: Any, n_samples: int) -> np.ndarray:
    """A finite 1-D or 2-D (multi-output) float target with ``n_samples`` rows."""
    ndim = np.ndim(y)
    if ndim not in (1, 2):
        raise ValueError(f"y must be 1-D or 2-D (n_samples, n_targets), got {ndim} dimensions")
    y = check_array(y, "y", ndim=ndim, dtype=np.float64)
    if y.shape[0] != n_samples:
        raise ValueError(f"y has length {y.shape[0]}, but X has {n_samples} samples")
    return y


def primal_solve(
    Phi: np.ndarray, Y: np.ndarray, reg: float, name: str
) -> tuple[np.ndarray, np.ndarray, float]:
    """Weights ``W = (Phi^T Phi + reg I)^-1 Phi^T Y`` (Rowland (2018) eq. 5.5, ``O(n p^2)``),
    with the Cholesky factor of ``Phi^T Phi + reg I`` (called ``name`` in warnings) and
    the jitter it needed."""
    A = Phi.T @ Phi
    A[np.diag_indices_from(A)] += reg
    L, jitter = cholesky_jitter(A, name=name, return_jitter=True)
    return scipy.linalg.cho_solve((L, True), Phi.T @ Y, check_finite=False), L, jitter
