"""Five UCI regression sets of 15,000-49,000 rows, with their ten fixed train / test splits.

The benchmark sets of the scalable-GP literature (pol, elevators, bike, protein,
keggdirected) as prepared by the ``uci_datasets`` package of T. Evans: the same tables and
the same ten 90 % / 10 % splits that its ``Dataset(name).get_split(split)`` gives.
"""

from __future__ import annotations

import gzip
import io
import numbers
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._validation import check_bool

from . import _files
from ._text import float_table, int_table

__all__ = ["UCI_REGRESSION_DATASETS", "RegressionSplit", "load_uci_regression"]

# name -> (n_samples, n_features), as documented by uci_datasets and checked on reading
_SHAPES: dict[str, tuple[int, int]] = {
    "pol": (15000, 26),
    "elevators": (16599, 18),
    "bike": (17379, 17),
    "protein": (45730, 9),
    "keggdirected": (48827, 20),
}
_N_SPLITS = 10
UCI_REGRESSION_DATASETS = tuple(_SHAPES)


@dataclass(frozen=True)
class RegressionSplit:
    """One train / test split of a regression set: what :func:`load_uci_regression` returns.

    Attributes
    ----------
    X_train : ndarray of float64, shape (n_train, n_features)
        Inputs of the training rows (standardised if asked for).
    y_train : ndarray of float64, shape (n_train,)
        Targets of the training rows (standardised if asked for).
    X_test : ndarray of float64, shape (n_test, n_features)
        Inputs of the test rows, mapped with the training part's ``x_mean`` and ``x_std``.
    y_test : ndarray of float64, shape (n_test,)
        Targets of the test rows, mapped with the training part's ``y_mean`` and ``y_std``.
    name : str
        The dataset's name, in lower case.
    split : int
        Which of the ten splits (0 to 9).
    x_mean, x_std : ndarray of float64, shape (n_features,)
        What was subtracted from each input column and what it was then divided by: the
        training rows' mean and standard deviation, or zeros and ones without
        standardisation. A column constant on the training rows has ``x_std`` 1.
    y_mean, y_std : float
        The same for the target: the original test targets are ``y_test * y_std + y_mean``.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    name: str
    split: int
    x_mean: np.ndarray
    x_std: np.ndarray
    y_mean: float
    y_std: float


def load_uci_regression(name: str, *, split: int = 0, standardize: bool = False) -> RegressionSplit:
    """Load one of ten fixed train / test splits of a large UCI regression set.

    ============= ======= ========== ====================================================
    name          n       features   what
    ============= ======= ========== ====================================================
    pol           15000   26         PoleTele (telecommunication)
    elevators     16599   18         Elevators (controlling an F16 aircraft)
    bike          17379   17         Bike sharing, hourly counts
    protein       45730   9          Physicochemical properties of protein tertiary
                                     structure (CASP)
    keggdirected  48827   20         KEGG metabolic pathways as directed networks
    ============= ======= ========== ====================================================

    Parameters
    ----------
    name : str
        One of the names above (case-insensitive); all of them are in
        ``UCI_REGRESSION_DATASETS``.
    split : int, default 0
        Which split, 0 to 9: split ``s`` tests on the rows marked in column ``s`` of the
        packaged test mask (10 % of the rows) and trains on the others. The ten test parts
        are disjoint and together cover every row.
    standardize : bool, default False
        If True, subtract the training rows' mean from every input column and from the
        target and divide by their standard deviation (``ddof=0``), the test rows with
        the same numbers. A column constant on the training rows is only shifted
        (divided by 1), so every value stays finite.

    Returns
    -------
    RegressionSplit
        ``X_train``, ``y_train``, ``X_test``, ``y_test`` (float64, fresh copies),
        ``name``, ``split`` and the ``x_mean``, ``x_std``, ``y_mean``, ``y_std`` used.

    Raises
    ------
    TypeError
        If ``name`` is not a str, ``split`` not an integer or ``standardize`` not a bool.
    ValueError
        If ``name`` is not one of the five names or ``split`` is outside 0 to 9.

    See Also
    --------
    load_uci : Smaller tables (boston, wine, cpu_act, ...) without fixed splits.

    Notes
    -----
    The files are those of the ``uci_datasets`` package (T. Evans, MIT licence), whose
    tables come from the UCI Machine Learning Repository and L. Torgo's regression
    collection (pol, elevators); its splits are those of Yang et al. (2015), "A la carte
    -- learning fast kernels" (AISTATS) and later papers. Wang et al. (2019), "Exact
    Gaussian processes on a million data points" (NeurIPS), Table 1, report exact-GP,
    SGPR and SVGP results on these five sets. The values are as distributed there, not
    the raw UCI files: every column has mean close to 0, and ``bike``'s target is not the
    raw count. ``keggdirected`` has many repeated rows (16341 distinct rows of 48827),
    so most of its test rows also occur among the training rows. Full provenance:
    ``provenance(name)``.

    The parsed table is kept in memory after the first call, so that further splits of
    the same set are cheap; every call returns new arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.datasets import load_uci_regression
    >>> data = load_uci_regression("pol", split=3)
    >>> data.X_train.shape, data.X_test.shape, data.y_test.dtype.name
    ((13500, 26), (1500, 26), 'float64')
    >>> std = load_uci_regression("POL", split=3, standardize=True)
    >>> abs(float(std.y_train.mean())) < 1e-12, round(float(std.y_train.std()), 12)
    (True, 1.0)
    >>> bool(np.allclose(std.y_test * std.y_std + std.y_mean, data.y_test))
    True
    """
    key = _check_name(name)
    split = _check_split(split)
    standardize = check_bool(standardize, "standardize")
    table, test_mask = _load_table(key)
    test = test_mask[:, split]
    train = ~test
    X_train, y_train = table[train, :-1], table[train, -1]
    X_test, y_test = table[test, :-1], table[test, -1]
    n_features = table.shape[1] - 1
    x_mean, x_std = np.zeros(n_features), np.ones(n_features)
    y_mean, y_std = 0.0, 1.0
    if standardize:
        x_mean, x_std = _moments(X_train)
        y_moments = _moments(y_train[:, None])
        y_mean, y_std = float(y_moments[0][0]), float(y_moments[1][0])
        X_train = (X_train - x_mean) / x_std
        X_test = (X_test - x_mean) / x_std
        y_train = (y_train - y_mean) / y_std
        y_test = (y_test - y_mean) / y_std
    return RegressionSplit(
        X_train, y_train, X_test, y_test, key, split, x_mean, x_std, y_mean, y_std
    )


def _check_name(name: Any) -> str:
    names = ", ".join(UCI_REGRESSION_DATASETS)
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, one of {names}; got {type(name).__name__}")
    key = name.lower()
    if key not in _SHAPES:
        raise ValueError(f"unknown UCI regression dataset {name!r}; choose one of {names}")
    return key


def _check_split(split: Any) -> int:
    if isinstance(split, (bool, np.bool_)) or not isinstance(split, numbers.Integral):
        raise TypeError(
            f"split must be an integer from 0 to {_N_SPLITS - 1}, got {type(split).__name__}"
        )
    index = int(split)
    if not 0 <= index < _N_SPLITS:
        raise ValueError(f"split must be an integer from 0 to {_N_SPLITS - 1}, got {index}")
    return index


def _moments(columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation (``ddof=0``) of each column.

    A column whose values are all equal gets that value as mean and 1 as deviation, so it
    maps to exact zeros (``np.std`` of equal values can be a rounding error like 1e-17,
    which would blow the other rows up).
    """
    mean = columns.mean(axis=0)
    std = columns.std(axis=0)
    constant = columns.max(axis=0) == columns.min(axis=0)
    return np.where(constant, columns[0], mean), np.where(constant, 1.0, std)


def _load_table(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The full table and the boolean test mask of ``name``, verified and parsed once."""
    data = _files.data_path(f"uci_regression/{name}/data.csv.gz")
    mask = _files.data_path(f"uci_regression/{name}/test_mask.csv.gz")
    # the files' size and modification time are part of the key: a changed file
    # (verified again by data_path) is parsed again
    return _parse(name, data, mask, _stamp(data), _stamp(mask))


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


@lru_cache(maxsize=2 * len(_SHAPES))
def _parse(
    name: str, data: Path, mask: Path, data_stamp: tuple[int, int], mask_stamp: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Parse ``data.csv.gz`` (inputs, then target) and ``test_mask.csv.gz`` (n x 10 0/1).

    The arrays are cached, so they are returned read-only; callers index them (a copy).
    """
    n_samples, n_features = _SHAPES[name]
    data_rel = f"uci_regression/{name}/data.csv.gz"
    mask_rel = f"uci_regression/{name}/test_mask.csv.gz"
    table = _read_numbers(_gunzip(data, data_rel), data_rel, n_features + 1)
    codes = int_table(_gunzip(mask, mask_rel), mask_rel, _N_SPLITS)
    for rel, rows in ((data_rel, len(table)), (mask_rel, len(codes))):
        if rows != n_samples:
            raise ValueError(f"{rel}: expected {n_samples} rows, found {rows}")
    if not np.isin(codes, (0, 1)).all():
        raise ValueError(f"{mask_rel}: the test mask must hold only 0 and 1")
    test_mask = codes.astype(bool)
    n_test = test_mask.sum(axis=0)
    if (n_test == 0).any() or (n_test == n_samples).any():
        raise ValueError(f"{mask_rel}: every split needs both training and test rows")
    table.setflags(write=False)
    test_mask.setflags(write=False)
    return table, test_mask


def _read_numbers(raw: bytes, relpath: str, n_columns: int) -> np.ndarray:
    """Parse lines of ``n_columns`` comma-separated finite numbers into a float64 table.

    NumPy's C reader does the work (about three times faster than ``float_table`` on
    keggdirected); when it fails, ``float_table`` parses again to name the bad line.
    """
    if not raw.strip():
        raise ValueError(f"{relpath} has no data rows")
    try:
        table = np.loadtxt(io.BytesIO(raw), delimiter=",", comments=None, dtype=np.float64, ndmin=2)
    except ValueError:
        table = float_table(raw.decode("latin-1"), relpath, n_columns, delimiter=",")
    if table.shape[1] != n_columns:
        raise ValueError(f"{relpath}: expected {n_columns} values per line, found {table.shape[1]}")
    finite = np.isfinite(table)
    if not finite.all():
        line = int(np.flatnonzero(~finite.all(axis=1))[0]) + 1
        raise ValueError(f"{relpath}, line {line}: missing or infinite value")
    return table


def _gunzip(path: Path, relpath: str) -> bytes:
    try:
        with gzip.open(path, "rb") as fh:
            return fh.read()
    except (OSError, EOFError) as exc:
        raise ValueError(f"{relpath} is not a readable gzip file: {exc}") from None
