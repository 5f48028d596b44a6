"""What data ships with kernelkit, where it came from, and one entry point to load it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import _files
from .classic3 import load_classic3
from .exp import load_exp
from .mnist import load_mnist
from .tu import load_tu
from .uci import load_uci
from .uci_regression import load_uci_regression

__all__ = ["DatasetInfo", "catalog", "load_dataset", "provenance"]

_PROVENANCE = "PROVENANCE.md"
_SHORT_TEXT = 4000  # upstream descriptions up to this many characters are quoted in full


@dataclass(frozen=True)
class DatasetInfo:
    """One packaged dataset, as listed by :func:`catalog`.

    Attributes
    ----------
    name : str
        The name to pass to :func:`load_dataset`.
    kind : str
        The kind of task, e.g. ``"regression"`` or ``"graph classification"``.
    shape : str
        The shape of what the loader returns, e.g. ``"506 x 13"``.
    source : str
        Where the data comes from.
    """

    name: str
    kind: str
    shape: str
    source: str


_CATALOG = [
    DatasetInfo(
        "mnist",
        "image classification",
        "10000 x 28 x 28",
        "MNIST test set (LeCun, Cortes & Burges)",
    ),
    DatasetInfo(
        "MUTAG",
        "graph classification",
        "188 graphs, 3371 nodes, 3721 edges",
        "TU Dortmund graph benchmarks (Kersting et al.): MUTAG",
    ),
    DatasetInfo(
        "NCI1",
        "graph classification",
        "4110 graphs, 122747 nodes, 132753 edges",
        "TU Dortmund graph benchmarks (Kersting et al.): NCI1",
    ),
    DatasetInfo(
        "NCI109",
        "graph classification",
        "4127 graphs, 122494 nodes, 132604 edges",
        "TU Dortmund graph benchmarks (Kersting et al.): NCI109",
    ),
    DatasetInfo(
        "EXP",
        "graph classification",
        "1200 graphs, 58442 nodes, 72530 edges",
        "Abboud, Ceylan, Grohe & Lukasiewicz, IJCAI 2021",
    ),
    DatasetInfo("boston", "regression", "506 x 13", "UCI Housing (Harrison & Rubinfeld 1978)"),
    DatasetInfo("wine", "regression", "1599 x 11", "UCI Wine Quality, red (Cortez et al. 2009)"),
    DatasetInfo(
        "insurance", "classification", "5822 x 85", "UCI Insurance Company Benchmark (COIL 2000)"
    ),
    DatasetInfo(
        "cpu", "regression", "209 x 6", "UCI Computer Hardware (Ein-Dor & Feldmesser 1987)"
    ),
    DatasetInfo(
        "cpu_act",
        "regression",
        "8192 x 21",
        "DELVE Computer Activity (Torgo's regression collection)",
    ),
    DatasetInfo(
        "cpu_small",
        "regression",
        "8192 x 12",
        "DELVE Computer Activity, small (Torgo's collection)",
    ),
    DatasetInfo(
        "pol",
        "regression",
        "15000 x 26",
        "PoleTele (Weiss & Indurkhya 1995), via uci_datasets (Evans)",
    ),
    DatasetInfo(
        "elevators",
        "regression",
        "16599 x 18",
        "Elevators (Torgo's regression collection), via uci_datasets (Evans)",
    ),
    DatasetInfo(
        "bike", "regression", "17379 x 17", "UCI Bike Sharing, hourly, via uci_datasets (Evans)"
    ),
    DatasetInfo(
        "protein",
        "regression",
        "45730 x 9",
        "UCI Protein Tertiary Structure (CASP), via uci_datasets (Evans)",
    ),
    DatasetInfo(
        "keggdirected",
        "regression",
        "48827 x 20",
        "UCI KEGG Metabolic Relation Network (Directed), via uci_datasets (Evans)",
    ),
    DatasetInfo(
        "classic3",
        "text clustering",
        "3891 documents",
        "Glasgow IR collections MEDLINE, CISI, Cranfield",
    ),
]

# name -> (loader, positional arguments)
_LOADERS: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = {
    "mnist": (load_mnist, ()),
    "MUTAG": (load_tu, ("MUTAG",)),
    "NCI1": (load_tu, ("NCI1",)),
    "NCI109": (load_tu, ("NCI109",)),
    "EXP": (load_exp, ()),
    "boston": (load_uci, ("boston",)),
    "wine": (load_uci, ("wine",)),
    "insurance": (load_uci, ("insurance",)),
    "cpu": (load_uci, ("cpu",)),
    "cpu_act": (load_uci, ("cpu_act",)),
    "cpu_small": (load_uci, ("cpu_small",)),
    "pol": (load_uci_regression, ("pol",)),
    "elevators": (load_uci_regression, ("elevators",)),
    "bike": (load_uci_regression, ("bike",)),
    "protein": (load_uci_regression, ("protein",)),
    "keggdirected": (load_uci_regression, ("keggdirected",)),
    "classic3": (load_classic3, ()),
}

# name -> (start of its Folder cell in the PROVENANCE.md summary table, start of its
#          "### " section heading, upstream description file or None)
_SOURCES: dict[str, tuple[str, str, str | None]] = {
    "mnist": ("`mnist/`", "mnist/", None),
    "MUTAG": ("`tu/", "tu/", "tu/MUTAG/README.txt"),
    "NCI1": ("`tu/", "tu/", "tu/NCI1/README.txt"),
    "NCI109": ("`tu/", "tu/", "tu/NCI109/README.txt"),
    "EXP": ("`exp/`", "exp/", None),
    "boston": ("`boston_housing/`", "boston_housing/", "boston_housing/housing.names"),
    "wine": ("`wine_quality_red/`", "wine_quality_red/", "wine_quality_red/winequality.names"),
    "insurance": ("`coil2000/`", "coil2000/", "coil2000/TicDataDescr.txt"),
    "cpu": ("`computer_hardware/`", "computer_hardware/", "computer_hardware/machine.names"),
    "cpu_act": ("`cpu_act/`", "cpu_act/", "cpu_act/cpu_act.arff"),
    "cpu_small": ("`cpu_small/`", "cpu_act/", "cpu_small/cpu_small.arff"),
    "pol": ("`uci_regression/", "uci_regression/", None),
    "elevators": ("`uci_regression/", "uci_regression/", None),
    "bike": ("`uci_regression/", "uci_regression/", None),
    "protein": ("`uci_regression/", "uci_regression/", None),
    "keggdirected": ("`uci_regression/", "uci_regression/", None),
    "classic3": ("`classic3/`", "classic3/", None),
}
_CANONICAL = {info.name.lower(): info.name for info in _CATALOG}


def catalog() -> list[DatasetInfo]:
    """List the packaged datasets without loading them.

    Returns
    -------
    list of DatasetInfo
        Records with fields ``name``, ``kind``, ``shape`` and ``source``, e.g.
        ``DatasetInfo(name="boston", kind="regression", shape="506 x 13", source="UCI
        Housing (Harrison & Rubinfeld 1978)")``. ``shape`` describes what the loader
        returns (``X`` for tables, training and test rows together for the regression
        sets with fixed splits, graph / node / edge counts for graph datasets).

    Examples
    --------
    >>> from kernelkit.datasets import catalog
    >>> [d.name for d in catalog()][:3]
    ['mnist', 'MUTAG', 'NCI1']
    """
    return list(_CATALOG)


def _canonical(name: str) -> str:
    if not isinstance(name, str):
        names = ", ".join(info.name for info in _CATALOG)
        raise TypeError(f"name must be a str, one of {names}; got {type(name).__name__}")
    canonical = _CANONICAL.get(name.lower())
    if canonical is None:
        names = ", ".join(info.name for info in _CATALOG)
        raise ValueError(f"unknown dataset {name!r}; choose one of {names}")
    return canonical


def load_dataset(name: str) -> Any:
    """Load a packaged dataset by its catalog name (case-insensitive).

    Parameters
    ----------
    name : str
        A name from :func:`catalog` (case-insensitive).

    Returns
    -------
    object
        What the specific loader returns: ``(images, labels)`` for ``mnist``,
        ``(graphs, y)`` for MUTAG, NCI1, NCI109 and EXP, a :class:`~kernelkit.datasets.Table`
        (``X``, ``y``, ``feature_names``) for the tables, split 0 as a
        :class:`~kernelkit.datasets.RegressionSplit` for pol, elevators, bike, protein and
        keggdirected (:func:`~kernelkit.datasets.load_uci_regression` gives the others) and a
        :class:`~kernelkit.datasets.Corpus` (``documents``, ``labels``, ``ids``) for
        ``classic3``.

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        If ``name`` is not in the catalog.

    Examples
    --------
    >>> from kernelkit.datasets import load_dataset
    >>> load_dataset("cpu").X.shape
    (209, 6)
    """
    loader, args = _LOADERS[_canonical(name)]
    return loader(*args)


def provenance(name: str) -> str:
    """Describe where a packaged dataset comes from and how it was checked.

    Parameters
    ----------
    name : str
        A name from :func:`catalog` (case-insensitive).

    Returns
    -------
    str
        The catalog entry, the dataset's row of the summary table and its section of the
        packaged ``PROVENANCE.md`` (source repository and commit, cleaning, checks, sha256
        of every file), followed by the upstream description (README / ``.names`` file or
        ARFF header) when it is short.

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        If ``name`` is not in the catalog.

    Examples
    --------
    >>> from kernelkit.datasets import provenance
    >>> print(provenance("MUTAG"))  # doctest: +SKIP
    """
    canonical = _canonical(name)
    info = next(i for i in _CATALOG if i.name == canonical)
    loader, args = _LOADERS[canonical]
    call = f"{loader.__name__}({', '.join(repr(a) for a in args)})"
    folder, heading, upstream = _SOURCES[canonical]
    text = _files.package_file(_PROVENANCE).read_text(encoding="utf-8")
    parts = [
        f"{info.name}: {info.kind}, {info.shape}\nSource: {info.source}\n"
        f"Load with: kernelkit.datasets.{call}",
        _summary_row(text, folder),
        _section(text, heading),
    ]
    if upstream is not None:
        parts.append(_upstream(upstream))
    return "\n\n".join(p.strip() for p in parts if p) + "\n"


def _summary_row(text: str, folder: str) -> str:
    """Return the summary-table row whose Folder cell starts with ``folder`` as key: value."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) == len(header) and cells[1].startswith(folder):
            return "\n".join(f"{k}: {v}" for k, v in zip(header, cells, strict=True))
    return ""


def _section(text: str, heading: str) -> str:
    """Return the ``### heading...`` section of PROVENANCE.md."""
    for section in text.split("\n### ")[1:]:
        if section.startswith(heading):
            return "### " + section.split("\n## ")[0]
    return ""


def _upstream(relpath: str) -> str:
    body = _files.data_path(relpath).read_text(encoding="latin-1")
    if relpath.endswith(".arff"):  # the description is the % comment header
        lines = [ln[1:].rstrip() for ln in body.splitlines() if ln.startswith("%")]
        lines = [ln[1:] if ln.startswith(" ") else ln for ln in lines]
        body = "\n".join(lines)
    body = body.strip()
    if len(body) > _SHORT_TEXT:
        return (
            f"Upstream description: data/{relpath} in the kernelkit package "
            f"({len(body)} characters, not shown)."
        )
    return f"Upstream description ({relpath}):\n\n{body}"
