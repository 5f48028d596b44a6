"""Input handling shared by the kernel estimators (resolving ``kernel``, checking ``X`` and
``y``, applying a feature map) and the primal ridge solve.

A kernel estimator sees three kinds of input, decided by its ``kernel`` argument:

* a kernel on vectors (``requires_vector_input``): ``X`` is a 2-D numeric array;
* a kernel on objects (sets, graphs, ...): ``X`` is a list of objects, kept as given;
* the string ``"precomputed"``: ``X`` is a Gram matrix, square in ``fit`` and of shape
  ``(n_test, n_train)`` at prediction time (scikit-learn's convention).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, cast

import numpy as np
import scipy.linalg
from sklearn.utils import check_array as sk_check_array
from sklearn.utils.validation import column_or_1d

from kernelkit._memory import check_memory
from kernelkit._validation import check_array, validate_X, validate_X_y
from kernelkit.kernels import RBF, Kernel, resolve_kernel
from kernelkit.linalg.cholesky import check_symmetric, jittered_cholesky

PRECOMPUTED: Final = "precomputed"


def resolve_estimator_kernel(
    kernel: Any, *, precomputed: bool = True
) -> Kernel | Literal["precomputed"]:
    """An estimator's ``kernel`` argument: ``None`` -> ``RBF()``; ``"precomputed"`` as it
    is (when the estimator takes Gram matrices); a :class:`Kernel` or a kernel name through
    :func:`kernelkit.kernels.resolve_kernel`."""
    if kernel is None:
        return RBF()
    if precomputed and is_precomputed(kernel):
        return PRECOMPUTED
    try:
        return resolve_kernel(kernel)
    except (TypeError, ValueError) as exc:
        if not precomputed:
            raise
        raise type(exc)(f"{exc} (or 'precomputed' with a Gram matrix as X)") from None


def is_precomputed(kernel: Any) -> bool:
    """Whether ``kernel`` is the string ``"precomputed"`` (never true for a Kernel)."""
    return isinstance(kernel, str) and kernel == PRECOMPUTED


def n_objects(X: Any) -> int:
    return X.shape[0] if isinstance(X, np.ndarray) else len(X)


def takes_arrays(kernel: Kernel | str) -> bool:
    """Whether ``X`` is a numeric array for ``kernel`` (vectors or a Gram matrix), as
    opposed to a list of objects (sets, graphs, ...)."""
    return is_precomputed(kernel) or cast(Kernel, kernel).requires_vector_input


def _forget_array_input(estimator: Any) -> None:
    """Drop ``n_features_in_`` / ``feature_names_in_`` left by an earlier fit on arrays."""
    for attr in ("n_features_in_", "feature_names_in_"):
        estimator.__dict__.pop(attr, None)


def check_gram_memory(
    estimator: Any, n_rows: int, n_cols: int, *, copies: int, what: str, extra: int = 0
) -> None:
    """Refuse up front, with :func:`kernelkit._memory.check_memory`'s "would need about X
    GiB" message, a computation that holds ``copies`` float64 matrices of ``n_rows x
    n_cols`` (plus ``extra`` bytes): a Gram matrix and its factors, say."""
    check_memory(
        copies * 8 * n_rows * n_cols + extra,
        f"{type(estimator).__name__}.{what} ({copies} float64 matrices of {n_rows} x {n_cols})",
        "use fewer samples, or a random-feature model (RandomFeatureGP, RandomFeatureRidge), "
        "which never forms an n x n matrix",
    )


def validate_training_data(
    estimator: Any,
    X: Any,
    y: Any,
    kernel: Kernel | str | None,
    *,
    multi_output: bool,
    y_numeric: bool = True,
    gram_copies: int = 2,
) -> tuple[Any, np.ndarray]:
    """Validate ``fit``'s ``X`` and ``y`` for ``kernel`` (``None``: vectors).

    Arrays go through scikit-learn's ``validate_data`` (setting ``n_features_in_`` and
    ``feature_names_in_``); a precomputed Gram matrix must also be square and symmetric.
    A list of objects is kept as given and ``y`` is checked alone, with the same rules:
    finite, one row per sample, ``(n, 1)`` raveled with a ``DataConversionWarning``
    unless ``multi_output``. For a kernel object, a fit that would hold ``gram_copies``
    ``n x n`` matrices beyond the machine's memory is refused before any is formed.
    """
    if kernel is None or takes_arrays(kernel):
        X, y = validate_X_y(
            estimator, X, y, multi_output=multi_output, y_numeric=y_numeric, dtype=np.float64
        )
        if kernel is not None and is_precomputed(kernel):
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    "with kernel='precomputed', X must be a square Gram matrix, "
                    f"got shape {X.shape}"
                )
            check_symmetric(X, "the precomputed Gram matrix X")
        elif kernel is not None:
            n = X.shape[0]
            check_gram_memory(estimator, n, n, copies=gram_copies, what=f"fit on {n} samples")
        return X, y
    X = check_objects(X)
    _forget_array_input(estimator)
    n = len(X)
    check_gram_memory(estimator, n, n, copies=gram_copies, what=f"fit on {n} samples")
    return X, validate_targets(estimator, y, n, multi_output=multi_output, numeric=y_numeric)


def validate_targets(
    estimator: Any, y: Any, n_samples: int, *, multi_output: bool, numeric: bool = True
) -> np.ndarray:
    """``y`` checked as scikit-learn's ``validate_data`` checks it, for inputs that are not
    arrays (lists of objects), with its length checked against ``n_samples``."""
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None."
        )
    y = sk_check_array(
        y,
        ensure_2d=False,
        dtype="numeric" if numeric else None,
        ensure_all_finite=True,
        input_name="y",
        estimator=estimator,
    )
    if y.ndim == 2 and not multi_output:  # check_array has refused 0-d and 3-d targets
        y = column_or_1d(y, warn=True)
    if numeric:
        y = y.astype(np.float64, copy=False)
    if y.shape[0] != n_samples:
        raise ValueError(f"y has {y.shape[0]} rows, but X has {n_samples} samples")
    return y


def validate_test_input(
    estimator: Any, X: Any, kernel: Kernel | str, n_train: int, *, cross_copies: int = 1
) -> Any:
    """Validate inputs after ``fit``: an array with the fitted feature count (for a
    precomputed kernel, ``K(X_test, X_train)`` with ``n_train`` columns), or a list of
    objects. For a kernel object, a prediction that would hold ``cross_copies`` matrices
    of ``n_test x n_train`` beyond the machine's memory is refused before any is formed."""
    if not takes_arrays(kernel):
        X = check_objects(X)
    else:
        try:
            X = validate_X(estimator, X, reset=False, dtype=np.float64)
        except ValueError as exc:
            if is_precomputed(kernel) and "features as input" in str(exc):
                raise ValueError(
                    f"{exc} With kernel='precomputed', X must be the kernel between the test "
                    f"and the training samples, of shape (n_test, n_train) = (?, {n_train})."
                ) from None
            raise
        if is_precomputed(kernel):
            return X
    m = n_objects(X)
    check_gram_memory(estimator, m, n_train, copies=cross_copies, what=f"prediction at {m} points")
    return X


def check_prior_input(X: Any, kernel: Kernel) -> Any:
    """Inputs of a GP's prior (before ``fit``): checked without touching the estimator."""
    if kernel.requires_vector_input:
        return check_array(X, "X", dtype=np.float64)
    return check_objects(X)


def check_objects(X: Any, name: str = "X") -> Any:
    """A non-empty sized collection of objects (list of sets, graphs, ...)."""
    if X is None or isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
        raise TypeError(f"{name} must be a list of objects, got {type(X).__name__}")
    if len(X) == 0:
        raise ValueError(f"{name} is empty; at least one sample is required")
    return X


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


@dataclass(frozen=True)
class FeatureRidge:
    """Ridge regression on explicit features ``Phi`` (``n x p``), solved in whichever of
    the primal and the dual is the smaller system (Rowland (2018) eqs. 5.4-5.5).

    Attributes
    ----------
    coef : ndarray of shape (p,) or (p, k)
        ``W = (Phi^T Phi + reg I)^-1 Phi^T Y = Phi^T (Phi Phi^T + reg I)^-1 Y``.
    L : ndarray
        Lower Cholesky factor of the system solved: ``Phi^T Phi + reg I`` (``p x p``,
        primal) or ``Phi Phi^T + reg I`` (``n x n``, dual), jitter included.
    jitter : float
        Jitter added to that system's diagonal (0.0 if none).
    dual : bool
        Whether the dual (``n < p``) was solved.
    dual_coef : ndarray or None
        ``(Phi Phi^T + reg I)^-1 Y`` for the dual, else ``None``.
    """

    coef: np.ndarray
    L: np.ndarray
    jitter: float
    dual: bool
    dual_coef: np.ndarray | None


def ridge_on_features(Phi: np.ndarray, Y: np.ndarray, reg: float, name: str) -> FeatureRidge:
    """Solve ``(Phi^T Phi + reg I) W = Phi^T Y`` in ``O(n p min(n, p))``.

    With more features than samples the ``n x n`` dual system ``Phi Phi^T + reg I`` is
    factorised instead of the ``p x p`` primal one (the Woodbury identity), so memory
    and time stay bounded by the smaller of the two. ``name`` is the primal matrix's name
    in warnings (the dual's is derived from it).
    """
    n, p = Phi.shape
    if n < p:
        A = Phi @ Phi.T
        A[np.diag_indices_from(A)] += reg
        chol = jittered_cholesky(A, name=name.replace("Phi^T Phi", "Phi Phi^T"))
        a = scipy.linalg.cho_solve((chol.factor, True), Y, check_finite=False)
        return FeatureRidge(Phi.T @ a, chol.factor, chol.jitter, True, a)
    return ridge_from_statistics(Phi.T @ Phi, Phi.T @ Y, reg, name)


def ridge_from_statistics(
    gram: np.ndarray, Phi_Y: np.ndarray, reg: float, name: str
) -> FeatureRidge:
    """The primal solve of :func:`ridge_on_features` from the sufficient statistics
    ``gram = Phi^T Phi`` (``p x p``, overwritten) and ``Phi_Y = Phi^T Y``: one Cholesky
    factorisation of ``A = Phi^T Phi + reg I`` and ``W = A^-1 Phi^T Y`` (Rowland (2018)
    eq. 5.5). The statistics are sums over the samples, so they may come from blocks
    of rows summed anywhere (a dask reduction); the solve is this one."""
    A = gram
    A[np.diag_indices_from(A)] += reg
    chol = jittered_cholesky(A, name=name)
    coef = scipy.linalg.cho_solve((chol.factor, True), Phi_Y, check_finite=False)
    return FeatureRidge(coef, chol.factor, chol.jitter, False, None)


#: Bytes of kernel values formed at once by :func:`kernel_dot_by_blocks` (about 32 MiB).
PREDICT_BLOCK_BYTES = 32 * 2**20


def kernel_dot_by_blocks(kernel: Kernel, X: Any, Y: Any, coef: np.ndarray) -> np.ndarray:
    """``kernel(X, Y) @ coef`` one block of rows of ``X`` at a time, so that at most about
    :data:`PREDICT_BLOCK_BYTES` of kernel values exist at once (``O(block * len(Y))``
    memory, never ``len(X) x len(Y)``); ``X`` and ``Y`` are arrays or lists of objects."""
    m, n = n_objects(X), n_objects(Y)
    rows = max(1, PREDICT_BLOCK_BYTES // (8 * max(n, 1)))
    out = np.empty((m, *coef.shape[1:]))
    for start in range(0, m, rows):
        stop = min(start + rows, m)
        block = X[start:stop] if isinstance(X, np.ndarray) else take(X, np.arange(start, stop))
        out[start:stop] = np.asarray(kernel(block, Y), dtype=np.float64) @ coef
    return out
