"""Graph classification benchmarks in the TU Dortmund text format.

The format (Kersting et al., "Benchmark Data Sets for Graph Kernels", TU Dortmund) is one
folder of comma-separated text files per dataset ``DS``:

* ``DS_A.txt`` -- one directed ``row, col`` pair of 1-based global node ids per line,
* ``DS_graph_indicator.txt`` -- line ``i`` holds the graph id of node ``i``,
* ``DS_graph_labels.txt`` -- line ``g`` holds the class label of graph ``g``,
* ``DS_node_labels.txt`` (optional) -- line ``i`` holds the label of node ``i``,
* ``DS_edge_labels.txt`` (optional) -- line ``j`` holds the label of edge ``j`` of ``DS_A``.
"""

from __future__ import annotations

import os
from pathlib import Path

import networkx as nx
import numpy as np

from kernelkit._memory import check_memory, format_bytes

from . import _files
from ._graphs import build_graphs
from ._text import int_table

__all__ = ["TU_DATASETS", "load_tu", "read_tu"]

TU_DATASETS = ("MUTAG", "NCI1", "NCI109")

_SUFFIXES = {
    "A": "_A.txt",
    "graph_indicator": "_graph_indicator.txt",
    "graph_labels": "_graph_labels.txt",
    "node_labels": "_node_labels.txt",
    "edge_labels": "_edge_labels.txt",
}
_REQUIRED = ("A", "graph_indicator", "graph_labels")
#: Peak bytes of parsing per byte of text (the bytes read, their normalised copies,
#: NumPy's per-byte masks and the int64 tables: about 18 measured on NCI1), a lower
#: bound: a folder whose text needs more than the machine has is refused before reading.
_PARSE_BYTES_PER_TEXT_BYTE = 10
#: Bytes of networkx graphs per node and per row of ``DS_A.txt`` (the node, adjacency and
#: attribute dicts: about 180 measured on NCI1), a lower bound.
_GRAPH_BYTES_PER_ITEM = 150


def load_tu(name: str) -> tuple[list[nx.Graph], np.ndarray]:
    """Load a packaged TU graph classification benchmark.

    Parameters
    ----------
    name : {"MUTAG", "NCI1", "NCI109"}
        Dataset name (case-insensitive).

    Returns
    -------
    graphs : list of networkx.Graph
        One undirected graph per molecule, nodes ``0..n_i-1`` in file order, node attribute
        ``label`` (int, atom type), edge attribute ``label`` (int, bond type) for MUTAG
        only (NCI1 and NCI109 have no edge labels: edge kernels need ``edge_label=None``
        there), and ``graph.graph["name"]`` equal to ``"<NAME>_<graph id>"`` (1-based TU
        graph id).
    y : ndarray of int64, shape (n_graphs,)
        The raw graph labels: 1/-1 for MUTAG (125 / 63), 1/0 for NCI1 and NCI109.

    See Also
    --------
    read_tu : Read a TU folder of your own.

    Notes
    -----
    Data from the TU Dortmund collection (Kersting, Kriege, Morris, Mutzel, Neumann,
    "Benchmark Data Sets for Graph Kernels", 2016). MUTAG: Debnath et al., J. Med. Chem.
    34(2), 1991. NCI1 / NCI109: Wale, Watson & Karypis, Knowl. Inf. Syst. 14(3), 2008.
    The provenance of the packaged copies is given by ``provenance("MUTAG")``.

    Examples
    --------
    >>> from kernelkit.datasets import load_tu
    >>> graphs, y = load_tu("MUTAG")
    >>> len(graphs), graphs[0].number_of_nodes(), int(y[0])
    (188, 17, 1)
    """
    if not isinstance(name, str):
        raise TypeError(
            f"name must be a str, one of {', '.join(TU_DATASETS)}; got {type(name).__name__}"
        )
    canonical = {d.lower(): d for d in TU_DATASETS}.get(name.lower())
    if canonical is None:
        raise ValueError(f"unknown TU dataset {name!r}; choose one of {', '.join(TU_DATASETS)}")
    listed = set(_files.listed_files(f"tu/{canonical}/"))
    paths = {}
    for role, suffix in _SUFFIXES.items():
        rel = f"tu/{canonical}/{canonical}{suffix}"
        if role in _REQUIRED or rel in listed:
            paths[role] = _files.data_path(rel)
    return _parse_tu(canonical, paths)


def read_tu(
    directory: str | os.PathLike, name: str | None = None
) -> tuple[list[nx.Graph], np.ndarray]:
    """Read a graph dataset stored in the TU Dortmund text format.

    Parameters
    ----------
    directory : path-like
        Folder holding ``<name>_A.txt``, ``<name>_graph_indicator.txt``,
        ``<name>_graph_labels.txt`` and optionally ``<name>_node_labels.txt`` and
        ``<name>_edge_labels.txt``. Other files (attributes, README) are ignored.
    name : str, optional
        Dataset prefix ``DS`` of the file names. Inferred from the single ``*_A.txt``
        file in ``directory`` when omitted.

    Returns
    -------
    graphs : list of networkx.Graph
        As in :func:`load_tu`. Nodes carry a ``label`` attribute only when
        ``<name>_node_labels.txt`` exists, and edges only when ``<name>_edge_labels.txt``
        exists (without them, graph kernels need ``node_label=None`` /
        ``edge_label=None``: a label name that no node has is an error there). Duplicate
        and reversed pairs in ``_A.txt`` give one undirected edge (the label of its first
        occurrence is kept); self-loops are kept.
    y : ndarray of int64, shape (n_graphs,)
        Graph labels as written in ``<name>_graph_labels.txt``.

    Raises
    ------
    TypeError
        If ``directory`` is not a path or ``name`` not a str.
    FileNotFoundError
        If ``directory`` or a required file is missing.
    NotADirectoryError
        If ``directory`` is a file.
    ValueError
        If ``directory`` is empty, ``name`` is empty or holds a folder separator, the name
        cannot be inferred, the text or the graphs would need more memory than this
        machine has, or a file is malformed (wrong number of values on a line, non-integer
        values, node ids out of range, an edge joining two graphs, graph ids not ``1..N``,
        files of inconsistent lengths); the message names the file and, where there is
        one, the 1-based line.

    Examples
    --------
    >>> from kernelkit.datasets import read_tu
    >>> graphs, y = read_tu("downloads/PROTEINS")  # doctest: +SKIP
    """
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(
            "directory must be a path (str or os.PathLike) to a TU dataset folder, got "
            f"{type(directory).__name__}"
        )
    if name is not None and not isinstance(name, str):
        raise TypeError(
            f"name must be a str (the DS of DS_A.txt) or None, got {type(name).__name__}"
        )
    if not os.fspath(directory):  # Path("") is the current folder: never what was meant
        raise ValueError("directory must not be empty: give the TU dataset's folder")
    if name is not None and (
        not name.strip() or any(sep in name for sep in ("/", os.sep, os.altsep) if sep)
    ):
        raise ValueError(
            f"name must be the non-empty prefix DS of DS_A.txt in directory (no folder "
            f"separators), got {name!r}"
        )
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(
            f"{directory} is a file, not a folder: give the folder that holds the TU files"
        )
    if not directory.is_dir():
        raise FileNotFoundError(f"TU dataset folder {directory} does not exist")
    if name is None:
        candidates = sorted(p.name[: -len("_A.txt")] for p in directory.glob("*_A.txt"))
        if len(candidates) != 1:
            found = ", ".join(candidates) if candidates else "none"
            raise ValueError(
                f"cannot infer the dataset name in {directory}: expected exactly one "
                f"'<name>_A.txt' file, found {found}; pass name=..."
            )
        name = candidates[0]
    paths = {}
    for role, suffix in _SUFFIXES.items():
        path = directory / f"{name}{suffix}"
        if path.is_file():
            paths[role] = path
        elif role in _REQUIRED:
            raise FileNotFoundError(f"required TU file {path} not found")
    return _parse_tu(name, paths)


def _parse_tu(name: str, paths: dict[str, Path]) -> tuple[list[nx.Graph], np.ndarray]:
    """Parse and check the TU files in ``paths`` (role -> path); build the graphs."""
    src = {role: str(path) for role, path in paths.items()}
    text_bytes = sum(path.stat().st_size for path in paths.values())
    check_memory(
        text_bytes * _PARSE_BYTES_PER_TEXT_BYTE,
        f"reading the TU dataset {name} ({format_bytes(text_bytes)} of text)",
        "read a smaller dataset, or split it into several folders",
    )
    tables = {
        role: int_table(path.read_bytes(), src[role], 2 if role == "A" else 1)
        for role, path in paths.items()
    }
    edges = tables["A"]
    indicator = tables["graph_indicator"].ravel()
    y = tables["graph_labels"].ravel()
    n_nodes, n_graphs = len(indicator), len(y)

    _check_indicator(indicator, n_graphs, src)
    _check_length(tables, "node_labels", n_nodes, src, "graph_indicator")
    _check_length(tables, "edge_labels", len(edges), src, "A")
    bad = (edges < 1) | (edges > n_nodes)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"{src['A']}, line {row + 1}: node id {edges[row, col]} is outside 1..{n_nodes} "
            f"({n_nodes} nodes in {src['graph_indicator']})"
        )
    u, v = edges[:, 0] - 1, edges[:, 1] - 1
    graph_u, graph_v = indicator[u], indicator[v]
    crossing = graph_u != graph_v
    if crossing.any():
        j = int(np.argmax(crossing))
        raise ValueError(
            f"{src['A']}, line {j + 1}: edge ({u[j] + 1}, {v[j] + 1}) joins graph "
            f"{graph_u[j]} and graph {graph_v[j]}"
        )
    check_memory(
        (n_nodes + len(edges)) * _GRAPH_BYTES_PER_ITEM,
        f"building the TU dataset {name} as {n_graphs} networkx graphs of {n_nodes} nodes "
        f"and {len(edges)} node pairs",
        "networkx keeps every node and edge in Python dicts; read a smaller dataset",
    )
    node_labels = tables.get("node_labels")
    edge_labels = tables.get("edge_labels")
    graphs = build_graphs(
        name,
        indicator - 1,
        n_graphs,
        u,
        v,
        None if node_labels is None else node_labels.ravel(),
        None if edge_labels is None else edge_labels.ravel(),
    )
    return graphs, y


def _check_indicator(indicator: np.ndarray, n_graphs: int, src: dict[str, str]) -> None:
    bad = (indicator < 1) | (indicator > n_graphs)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{src['graph_indicator']}, line {i + 1}: graph id {indicator[i]} is outside "
            f"1..{n_graphs} ({n_graphs} labels in {src['graph_labels']})"
        )
    sizes = np.bincount(indicator - 1, minlength=n_graphs)
    if (sizes == 0).any():
        missing = np.flatnonzero(sizes == 0) + 1
        raise ValueError(
            f"{src['graph_indicator']}: graph ids must be contiguous 1..{n_graphs} "
            f"({n_graphs} labels in {src['graph_labels']}), but graph {missing[0]} has no "
            f"nodes ({len(missing)} graph ids missing)"
        )


def _check_length(
    tables: dict[str, np.ndarray], role: str, expected: int, src: dict[str, str], ref: str
) -> None:
    if role in tables and len(tables[role]) != expected:
        found = len(tables[role])
        where = f", line {expected + 1}" if found > expected else ""
        item = "node" if role == "node_labels" else "edge"
        raise ValueError(
            f"{src[role]}{where}: has {found} lines but {src[ref]} has {expected}; "
            f"one label per {item} is required"
        )
