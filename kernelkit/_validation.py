"""Input checks shared by every area of kernelkit.

Every public function validates its arguments through these helpers so that bad input
raises a ``ValueError`` or ``TypeError`` that names the offending argument, instead of a
silent NaN or an ``IndexError`` from deep inside NumPy.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state as _sk_check_random_state
from sklearn.utils.validation import validate_data

__all__ = [
    "check_array",
    "check_bool",
    "check_bounds",
    "check_fraction",
    "check_positive",
    "check_positive_scalar",
    "check_in",
    "check_int",
    "check_n_jobs",
    "check_noise_bounds",
    "check_nonnegative_number",
    "check_random_state",
    "check_seed",
    "validate_X",
    "validate_X_y",
]

#: Largest seed NumPy's ``RandomState`` accepts.
_MAX_SEED = 2**32 - 1


def check_array(
    X: Any,
    name: str = "X",
    *,
    ndim: int | None = 2,
    dtype: Any = (np.float64, np.float32),
    allow_empty: bool = False,
    finite: bool = True,
    n_features: int | None = None,
) -> np.ndarray:
    """Return ``X`` as a numeric ndarray with ``ndim`` dimensions, or raise a clear error.

    Parameters
    ----------
    X : array-like
        The input. Lists of numbers are accepted; lists of non-numeric objects are not.
    name : str
        The argument name used in error messages.
    ndim : int or None
        Required number of dimensions (1 or 2), or ``None`` for any (a scalar included).
        A 1-D input with ``ndim=2`` is rejected with a hint to reshape, as scikit-learn
        does.
    dtype : dtype or tuple of dtypes
        Accepted floating dtypes; anything else is converted to the first one.
    allow_empty : bool
        Whether zero rows are acceptable.
    finite : bool
        Reject NaN and infinity.
    n_features : int, optional
        Required number of columns (for ``ndim=2``).
    """
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"{name} must be an array of numbers, got {type(X).__name__}")
    if sp.issparse(X):
        raise TypeError(
            f"{name} is a scipy sparse matrix; sparse input is not supported here, "
            f"pass {name}.toarray()"
        )
    accepted = dtype if isinstance(dtype, tuple) else (dtype,)
    if isinstance(X, np.ndarray) and X.dtype in accepted:
        arr = X
    else:
        try:
            arr = np.asarray(X)
        except (ValueError, TypeError) as exc:  # ragged nested lists
            raise ValueError(f"{name} must be a rectangular array of numbers: {exc}") from None
        if arr.dtype == object:  # numbers held as objects (a pandas object column, ...)
            arr = _numbers_from_objects(arr, name)
        if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise TypeError(
                f"{name} must be an array of numbers, got elements of type "
                f"{type(arr.flat[0]).__name__ if arr.size else arr.dtype}"
            )
        if np.iscomplexobj(arr):
            raise TypeError(f"{name} must be real-valued, got a complex array")
        arr = arr.astype(arr.dtype if arr.dtype in accepted else accepted[0])
    if ndim is not None and arr.ndim != ndim:
        hint = ""
        if ndim == 2 and arr.ndim == 1:
            hint = " (use X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for one sample)"
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}{hint}")
    if not allow_empty and arr.ndim and arr.shape[0] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); at least one sample is required")
    if ndim == 2 and arr.shape[1] == 0 and arr.shape[0] > 0:
        raise ValueError(f"{name} has no features (shape {arr.shape})")
    if finite and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, but {n_features} were expected")
    return arr


def _numbers_from_objects(arr: np.ndarray, name: str) -> np.ndarray:
    """An object array whose elements are all real numbers, as float64; else TypeError."""
    for x in arr.flat:
        if isinstance(x, bool | np.bool_) or not isinstance(x, numbers.Real):
            raise TypeError(
                f"{name} must be an array of numbers, got an element of type {type(x).__name__}"
            )
    return arr.astype(np.float64)


def check_positive(value: Any, name: str, *, strict: bool = True) -> Any:
    """Check that a scalar or array hyperparameter is finite and positive (or >= 0)."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}") from None
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    bad = arr <= 0 if strict else arr < 0
    if np.any(bad):
        rel = "> 0" if strict else ">= 0"
        raise ValueError(f"{name} must be {rel}, got {value!r}")
    return value


def check_positive_scalar(value: Any, name: str) -> float:
    """Check that ``value`` is one finite number ``> 0`` (not an array); return it as float."""
    if np.ndim(value) != 0:
        raise ValueError(f"{name} must be a positive scalar, got {value!r}")
    check_positive(value, name)
    return float(value)


def check_bool(value: Any, name: str) -> bool:
    """Check that ``value`` is a bool (Python or NumPy); return it as a Python bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return bool(value)


def check_fraction(value: Any, name: str) -> float:
    """Check that ``value`` is a real number (not a bool) strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in (0, 1), got {type(value).__name__}")
    if not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return float(value)


def check_nonnegative_number(value: Any, name: str) -> float:
    """Check that ``value`` is a real number (not a bool), finite and ``>= 0``; as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    value = float(value)
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return value


def check_noise_bounds(value: Any, name: str = "noise_bounds") -> Any:
    """Check bounds of a fitted variance: ``"fixed"`` or a pair ``0 < low <= high < inf``."""
    if isinstance(value, str) and value == "fixed":
        return value
    try:
        lo, hi = (float(b) for b in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be 'fixed' or a pair (low, high), got {value!r}") from None
    if not (0 < lo <= hi < np.inf):
        raise ValueError(f"{name} must satisfy 0 < low <= high < inf, got {value!r}")
    return value


def check_int(value: Any, name: str, *, minimum: int | None = None) -> int:
    """Check that ``value`` is an integer (not a bool) at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_in(value: Any, name: str, options: Sequence[Any]) -> Any:
    """Check that ``value`` is one of ``options``."""
    if value not in options:
        opts = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {opts}; got {value!r}")
    return value


def check_seed(value: Any, name: str = "random_state") -> int:
    """An integer seed in ``[0, 2**32 - 1]`` (the range NumPy's ``RandomState`` accepts).

    Examples
    --------
    >>> from kernelkit._validation import check_seed
    >>> check_seed(7)
    7
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer seed, got {type(value).__name__}")
    if not 0 <= int(value) <= _MAX_SEED:
        raise ValueError(f"{name} must be an integer in [0, 2**32 - 1], got {int(value)}")
    return int(value)


def check_random_state(random_state: Any) -> np.random.RandomState:
    """Turn ``None``, an int or a ``RandomState`` into a ``RandomState`` (scikit-learn rules).

    A ``numpy.random.Generator`` is accepted too: it seeds a new ``RandomState`` so that
    code written against either API can be driven from one seed.
    """
    if isinstance(random_state, np.random.Generator):
        return np.random.RandomState(random_state.integers(0, 2**32 - 1))
    if isinstance(random_state, bool):
        raise TypeError("random_state must be None, an int or a RandomState, got bool")
    if isinstance(random_state, numbers.Integral):
        return np.random.RandomState(check_seed(random_state))
    try:
        return _sk_check_random_state(random_state)
    except ValueError:
        raise TypeError(
            "random_state must be None, an int or a numpy RandomState/Generator, "
            f"got {type(random_state).__name__}"
        ) from None


def validate_X(
    estimator: Any, X: Any, *, reset: bool, dtype: Any = (np.float64, np.float32), **kwargs: Any
) -> np.ndarray:
    """scikit-learn's ``validate_data`` for the array input of a kernelkit estimator.

    Sets (``reset=True``, in ``fit``) or checks (``reset=False``) ``n_features_in_`` and
    ``feature_names_in_`` as every scikit-learn estimator does, so DataFrames, feature
    names and the feature-count error behave alike across the two libraries. ``X`` must
    be a dense, finite, real 2-D array (float64 and float32 stay as they are; other
    numbers, object arrays of numbers included, become the first of ``dtype``).
    """
    accepted = list(dtype) if isinstance(dtype, tuple) else dtype
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"X must be an array of numbers, got {type(X).__name__}")
    with _numbers_expected(lambda: "X"):
        return validate_data(estimator, X, reset=reset, dtype=accepted, **kwargs)


def validate_X_y(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    multi_output: bool = False,
    y_numeric: bool = True,
    dtype: Any = np.float64,
) -> tuple[np.ndarray, np.ndarray]:
    """``validate_data(estimator, X, y)`` for ``fit``: X as in :func:`validate_X`; y
    finite with one row per sample. A single-output estimator given y of shape
    ``(n, 1)`` ravels it with a ``DataConversionWarning``, as scikit-learn's do."""
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"X must be an array of numbers, got {type(X).__name__}")
    with _numbers_expected(lambda: "y" if _is_numeric(X) else "X"):
        X, y = validate_data(
            estimator,
            X,
            y,
            reset=True,
            dtype=list(dtype) if isinstance(dtype, tuple) else dtype,
            multi_output=multi_output,
            y_numeric=y_numeric,
        )
        if y_numeric:  # scikit-learn converts object targets only, not strings
            y = y.astype(np.float64, copy=False)
    return X, y


@contextmanager
def _numbers_expected(culprit: Callable[[], str]) -> Iterator[None]:
    """Say which argument (``culprit()``, asked only on failure) had to be numeric when
    NumPy's float conversion fails. Floating-point warnings are silenced: scikit-learn's
    finiteness check first sums ``X``, which overflows for huge finite entries before
    its exact element-wise check decides."""
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            yield
    except (TypeError, ValueError) as exc:
        if "float() argument" in str(exc) or "could not convert" in str(exc):
            raise TypeError(f"{culprit()} must be an array of numbers: {exc}") from exc
        raise


def _is_numeric(X: Any) -> bool:
    try:
        np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def check_n_jobs(n_jobs: Any) -> int | None:
    """``n_jobs`` as scikit-learn reads it: ``None``, ``-1`` (all CPUs) or a positive int."""
    if n_jobs is None:
        return None
    n_jobs = check_int(n_jobs, "n_jobs")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be None, -1 or a positive integer, got {n_jobs}")
    return n_jobs


def check_bounds(bounds: Any, n_dims: int | None = None) -> np.ndarray:
    """``bounds`` as a float array of shape ``(d, 2)``, finite, ``low < high``, or a clear error.

    Parameters
    ----------
    bounds : array-like of shape (d, 2)
        One ``(low, high)`` pair per dimension.
    n_dims : int, optional
        The number of pairs required (the dimension of the objective's points).

    Returns
    -------
    ndarray of shape (d, 2)

    Examples
    --------
    >>> from kernelkit._validation import check_bounds
    >>> check_bounds([(0, 1), (-5, 5)]).shape
    (2, 2)
    """
    if isinstance(bounds, (str, bytes)) or bounds is None:
        raise TypeError(f"bounds must be a sequence of (low, high) pairs, got {bounds!r}")
    try:
        arr = np.asarray(bounds, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"bounds must be a sequence of (low, high) pairs of numbers, got {bounds!r}"
        ) from None
    if arr.ndim == 1 and arr.shape[0] == 2:
        raise ValueError(
            f"bounds must have shape (d, 2), one (low, high) pair per dimension, got shape "
            f"{arr.shape}; for one dimension write [({arr[0]:g}, {arr[1]:g})]"
        )
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] == 0:
        raise ValueError(
            f"bounds must have shape (d, 2), one (low, high) pair per dimension, got shape "
            f"{arr.shape}"
        )
    if not np.isfinite(arr).all():
        raise ValueError("bounds must be finite")
    bad = np.flatnonzero(arr[:, 0] >= arr[:, 1])
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"bounds must have low < high in every dimension; dimension {i} has "
            f"low={arr[i, 0]:g} >= high={arr[i, 1]:g}"
        )
    if n_dims is not None and arr.shape[0] != n_dims:
        raise ValueError(
            f"bounds has {arr.shape[0]} (low, high) pairs, but the objective takes "
            f"{n_dims}-dimensional points"
        )
    return arr
