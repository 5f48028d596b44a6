"""The EXP dataset of 1-WL-indistinguishable SAT / UNSAT graph pairs."""

from __future__ import annotations

import networkx as nx
import numpy as np

from . import _files
from ._graphs import build_graphs
from ._text import int_tokens

__all__ = ["load_exp"]

_EXP_FILE = "exp/GRAPHSAT.txt"


def load_exp() -> tuple[list[nx.Graph], np.ndarray]:
    """Load EXP: 600 pairs of graphs that 1-WL cannot tell apart, one SAT and one UNSAT.

    Each graph encodes a propositional formula: clause nodes (label 0) are joined to the
    literal nodes (label 1) they contain. Graphs ``2k`` and ``2k+1`` form a pair with the
    same number of nodes and opposite labels, and are 1-WL-indistinguishable, so any
    message-passing model limited by 1-WL scores 50 % on EXP.

    Returns
    -------
    graphs : list of networkx.Graph
        1200 undirected graphs (33 to 73 nodes, 58442 nodes and 72530 edges in all) with
        node attribute ``label`` (0 = clause, 1 = literal) and ``graph.graph["name"]``
        equal to ``"EXP_<k>"`` for the k-th graph (1-based).
    y : ndarray of int64, shape (1200,)
        1 for a satisfiable formula, 0 for an unsatisfiable one (600 each).

    Notes
    -----
    Abboud, Ceylan, Grohe & Lukasiewicz, "The Surprising Power of Graph Neural Networks
    with Random Node Initialization", IJCAI 2021. The file ``GRAPHSAT.txt`` comes from the
    authors' repository (``ralphabb/GNN-RNI``) in the text format of Maron et al. (PPGN):
    the number of graphs, then per graph a line ``n_nodes label`` followed by one line
    ``node_label degree neighbour...`` per node, neighbours 0-based within the graph.

    Examples
    --------
    >>> from kernelkit.datasets import load_exp
    >>> graphs, y = load_exp()
    >>> len(graphs), int(y.sum())
    (1200, 600)
    """
    path = _files.data_path(_EXP_FILE)
    return _parse_maron(path.read_bytes(), _EXP_FILE, "EXP")


def _parse_maron(data: bytes, source: str, name: str) -> tuple[list[nx.Graph], np.ndarray]:
    """Parse the PPGN text format (see :func:`load_exp`) into graphs and labels."""
    tok = int_tokens(data, source)
    values, counts, starts = tok.values, tok.counts, tok.starts
    if counts[0] != 1 or values[0] < 1:
        raise ValueError(f"{source}, line 1: expected the number of graphs")
    n_graphs, n_lines = int(values[0]), len(counts)

    # Walk the graph headers only (one step per graph, not per node).
    headers = np.empty(n_graphs, dtype=np.int64)
    line = 1
    for g in range(n_graphs):
        if line >= n_lines or counts[line] != 2:
            raise ValueError(f"{source}, line {line + 1}: expected 'n_nodes label' of graph {g}")
        headers[g] = line
        line += 1 + int(values[starts[line]])
    if line != n_lines:
        raise ValueError(
            f"{source}, line {min(line, n_lines) + 1}: node lines do not match "
            f"the node counts in the graph headers"
        )
    sizes = values[starts[headers]]
    y = values[starts[headers] + 1]

    node_lines = np.ones(n_lines, dtype=bool)
    node_lines[0] = False
    node_lines[headers] = False
    node_lines = np.flatnonzero(node_lines)
    first = starts[node_lines]
    degree = values[first + 1]
    wrong = counts[node_lines] != degree + 2
    if wrong.any() or (sizes < 1).any():
        bad = node_lines[np.argmax(wrong)] if wrong.any() else headers[np.argmax(sizes < 1)]
        raise ValueError(f"{source}, line {bad + 1}: malformed node or header line")

    graph_of_node = np.repeat(np.arange(n_graphs), sizes)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    # Token index of every neighbour: consecutive runs of `degree` after each node's 2 fields.
    run_start = np.cumsum(degree) - degree
    nbr_token = np.repeat(first + 2 - run_start, degree) + np.arange(int(degree.sum()))
    u = np.repeat(np.arange(len(node_lines)), degree)
    nbr = values[nbr_token]
    graph_of_edge = graph_of_node[u]
    out = (nbr < 0) | (nbr >= sizes[graph_of_edge])
    if out.any():
        bad = node_lines[u[np.argmax(out)]]
        raise ValueError(f"{source}, line {bad + 1}: neighbour index out of range")
    v = offsets[graph_of_edge] + nbr
    graphs = build_graphs(name, graph_of_node, n_graphs, u, v, values[first], None)
    return graphs, y
