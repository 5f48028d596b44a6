"""Small tabular regression and classification benchmarks (UCI, DELVE)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import _files
from ._text import float_table

__all__ = ["UCI_DATASETS", "Table", "load_uci"]

_BOSTON_COLUMNS = "CRIM ZN INDUS CHAS NOX RM AGE DIS RAD TAX PTRATIO B LSTAT MEDV".split()
_MACHINE_COLUMNS = "vendor model MYCT MMIN MMAX CACH CHMIN CHMAX PRP ERP".split()
_MACHINE_FEATURES = slice(2, 8)
_MACHINE_TARGET = 8


@dataclass(frozen=True)
class Table:
    """A tabular dataset: what :func:`load_uci` returns.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        The feature columns.
    y : ndarray of float64, shape (n_samples,)
        The target column.
    feature_names : list of str
        The name of each column of ``X``, as in the source files.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]


def load_uci(name: str) -> Table:
    """Load a small tabular benchmark as float64 arrays.

    ========== ============ ========== ================================================
    name       X            target     source
    ========== ============ ========== ================================================
    boston     506 x 13     MEDV       UCI Housing (Harrison & Rubinfeld 1978)
    wine       1599 x 11    quality    UCI Wine Quality, red (Cortez et al. 2009)
    insurance  5822 x 85    CARAVAN    UCI Insurance Company Benchmark (COIL 2000), train
    cpu        209 x 6      PRP        UCI Computer Hardware (Ein-Dor & Feldmesser 1987)
    cpu_act    8192 x 21    usr        DELVE Computer Activity (Torgo's collection)
    cpu_small  8192 x 12    usr        DELVE Computer Activity, small (Torgo)
    ========== ============ ========== ================================================

    Parameters
    ----------
    name : str
        One of the names above (case-insensitive).

    Returns
    -------
    Table
        ``X`` (float64, shape ``(n_samples, n_features)``), ``y`` (float64, shape
        ``(n_samples,)``) and ``feature_names`` (the column names of ``X``).

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        If ``name`` is not one of the names above.

    Notes
    -----
    ``boston`` contains a race-based column ``B``; scikit-learn removed the dataset for
    that reason, so use it only as a numerical benchmark. For ``cpu`` the vendor and model
    names and the article's own estimate ERP are dropped, leaving the six numeric machine
    characteristics. ``insurance`` is the COIL 2000 training file (348 positives); it may
    be used for non-commercial research and education only. Full provenance:
    ``provenance(name)``.

    Examples
    --------
    >>> from kernelkit.datasets import load_uci
    >>> boston = load_uci("boston")
    >>> boston.X.shape, round(float(boston.y.mean()), 4), boston.feature_names[-1]
    ((506, 13), 22.5328, 'LSTAT')
    """
    if not isinstance(name, str):
        raise TypeError(
            f"name must be a str, one of {', '.join(_LOADERS)}; got {type(name).__name__}"
        )
    loader = _LOADERS.get(name.lower())
    if loader is None:
        raise ValueError(f"unknown UCI dataset {name!r}; choose one of {', '.join(_LOADERS)}")
    return loader()


def _split_target(table: np.ndarray, names: list[str]) -> Table:
    """The last column of ``table`` is the target, the others the features ``names[:-1]``."""
    return Table(table[:, :-1].copy(), table[:, -1].copy(), list(names[:-1]))


def _read_text(relpath: str) -> str:
    return _files.data_path(relpath).read_text(encoding="latin-1")


def _boston() -> Table:
    rel = "boston_housing/housing.data"
    table = float_table(_read_text(rel), rel, len(_BOSTON_COLUMNS))
    return _split_target(table, _BOSTON_COLUMNS)


def _wine() -> Table:
    rel = "wine_quality_red/winequality-red.csv"
    header, _, body = _read_text(rel).partition("\n")
    names = [h.strip().strip('"') for h in header.split(";")]
    table = float_table(body, rel, len(names), delimiter=";", first_line=2)
    return _split_target(table, names)


def _insurance() -> Table:
    rel = "coil2000/ticdata2000.txt"
    table = float_table(_read_text(rel), rel, 86, delimiter="\t")
    return _split_target(table, _insurance_names())


def _insurance_names() -> list[str]:
    """Read the 86 column names (MOSTYPE ... CARAVAN) from the COIL data dictionary."""
    rel = "coil2000/TicDataDescr.txt"
    text = _read_text(rel).split("DATADICTIONARY", 1)[-1]
    names: list[str] = []
    for number, name in re.findall(r"^(\d+) ([A-Z][A-Z0-9]+) ", text, flags=re.MULTILINE):
        if int(number) == len(names) + 1:
            names.append(name)
    if len(names) != 86:
        raise ValueError(f"{rel}: found {len(names)} of the 86 column names")
    return names


def _cpu() -> Table:
    rel = "computer_hardware/machine.data"
    rows = [line.split(",") for line in _read_text(rel).splitlines() if line.strip()]
    for lineno, row in enumerate(rows, 1):
        if len(row) != len(_MACHINE_COLUMNS):
            raise ValueError(f"{rel}, line {lineno}: expected 10 fields, found {len(row)}")
    numeric = [row[_MACHINE_FEATURES] + [row[_MACHINE_TARGET]] for row in rows]
    try:
        table = np.array(numeric, dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"{rel}: non-numeric value in a numeric column ({exc})") from None
    names = _MACHINE_COLUMNS[_MACHINE_FEATURES] + [_MACHINE_COLUMNS[_MACHINE_TARGET]]
    return _split_target(table, names)


def _arff_loader(rel: str) -> Callable[[], Table]:
    def load() -> Table:
        names, table = read_numeric_arff(_read_text(rel), rel)
        return _split_target(table, names)

    return load


_ATTRIBUTE = re.compile(r"@attribute\s+('[^']*'|\"[^\"]*\"|\S+)\s+(\S+)", re.IGNORECASE)


def read_numeric_arff(text: str, source: str) -> tuple[list[str], np.ndarray]:
    """Parse a dense ARFF file whose attributes are all numeric.

    Parameters
    ----------
    text : str
        Contents of the file: ``%`` comments, ``@relation``, ``@attribute <name>
        numeric|real|integer`` lines, then ``@data`` and comma-separated rows.
    source : str
        File name for error messages.

    Returns
    -------
    names : list of str
        Attribute names in order.
    table : ndarray of float64, shape (n_rows, n_attributes)
    """
    names: list[str] = []
    lines = text.splitlines()
    for lineno, line in enumerate(lines, 1):
        stripped = line.strip()
        lowered = stripped.lower()
        if not stripped or stripped.startswith("%") or lowered.startswith("@relation"):
            continue
        if lowered.startswith("@attribute"):
            match = _ATTRIBUTE.match(stripped)
            if match is None or match[2].lower() not in ("numeric", "real", "integer"):
                raise ValueError(f"{source}, line {lineno}: only numeric attributes are supported")
            names.append(match[1].strip("'\""))
        elif lowered.startswith("@data"):
            if not names:
                raise ValueError(f"{source}, line {lineno}: @data before any @attribute")
            body = "\n".join(lines[lineno:])
            return names, float_table(
                body, source, len(names), delimiter=",", first_line=lineno + 1
            )
        else:
            raise ValueError(f"{source}, line {lineno}: unexpected header line {stripped[:40]!r}")
    raise ValueError(f"{source}: no @data section")


_LOADERS: dict[str, Callable[[], Table]] = {
    "boston": _boston,
    "wine": _wine,
    "insurance": _insurance,
    "cpu": _cpu,
    "cpu_act": _arff_loader("cpu_act/cpu_act.arff"),
    "cpu_small": _arff_loader("cpu_small/cpu_small.arff"),
}
UCI_DATASETS = tuple(_LOADERS)
