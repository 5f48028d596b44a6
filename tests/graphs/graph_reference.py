"""Slow, obviously correct reference implementations of the graph kernels (for tests only).

Dict-based, one graph and one node at a time, straight from the definitions: Algorithm 1
of the assignment with a shared signature dictionary per iteration, and plain counting for
the vertex / edge histograms and shortest-path triplets.
"""

from __future__ import annotations

from collections import Counter

import networkx as nx
import numpy as np
from hypothesis import strategies as st

LABEL = "label"


def node_label_of(graphs: list[nx.Graph]) -> str | None:
    """The ``node_label`` to pass for ``graphs``: ``"label"`` when labelled, else ``None``
    (degrees are used only when asked for)."""
    return LABEL if any(LABEL in d for G in graphs for _, d in G.nodes(data=True)) else None


def edge_label_of(graphs: list[nx.Graph]) -> str | None:
    """The ``edge_label`` to pass for ``graphs``: ``"label"`` when edges are labelled."""
    return LABEL if any(LABEL in d for G in graphs for *_, d in G.edges(data=True)) else None


def initial_colours(graphs: list[nx.Graph]) -> list[dict]:
    """Node labels, or the number of neighbours when no node of any graph has a label."""
    labelled = any(LABEL in d for G in graphs for _, d in G.nodes(data=True))
    return [
        {v: (G.nodes[v][LABEL] if labelled else len(set(G.neighbors(v)))) for v in G}
        for G in graphs
    ]


def wl_counts(graphs: list[nx.Graph], h: int) -> list[Counter]:
    """Per graph, counts of ``(iteration, colour)`` for iterations ``0..h``."""
    colours = initial_colours(graphs)
    counts = [Counter((0, c) for c in col.values()) for col in colours]
    for it in range(1, h + 1):
        table: dict = {}  # one injective f per iteration, shared by all graphs
        new = []
        for G, col in zip(graphs, colours, strict=True):
            nxt = {}
            for v in G:
                signature = (col[v], tuple(sorted(col[u] for u in G.neighbors(v))))
                if signature not in table:
                    table[signature] = len(table)
                nxt[v] = table[signature]
            new.append(nxt)
        colours = new
        for cnt, col in zip(counts, colours, strict=True):
            cnt.update((it, c) for c in col.values())
    return counts


def counter_gram(counts: list[Counter], keep=lambda key: True) -> np.ndarray:
    n = len(counts)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            K[i, j] = sum(c * counts[j].get(k, 0) for k, c in counts[i].items() if keep(k))
    return K


def wl_gram(graphs: list[nx.Graph], h: int, variant: str = "subtree") -> np.ndarray:
    counts = wl_counts(graphs, h)
    if variant == "final":
        return counter_gram(counts, keep=lambda key: key[0] == h)
    return counter_gram(counts)


def normalized(K: np.ndarray) -> np.ndarray:
    d = np.sqrt(np.diag(K))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = K / np.outer(d, d)
    return np.nan_to_num(out, nan=0.0, posinf=0.0)


def vertex_counts(graphs: list[nx.Graph]) -> list[Counter]:
    return [Counter(col.values()) for col in initial_colours(graphs)]


def edge_counts(graphs: list[nx.Graph]) -> list[Counter]:
    edge_labelled = any(LABEL in d for G in graphs for *_, d in G.edges(data=True))
    colours = initial_colours(graphs)
    out = []
    for G, col in zip(graphs, colours, strict=True):
        if edge_labelled:
            out.append(Counter(d[LABEL] for *_, d in G.edges(data=True)))
        else:
            out.append(Counter(tuple(sorted((col[u], col[v]))) for u, v in G.edges()))
    return out


def shortest_path_counts(graphs: list[nx.Graph]) -> list[Counter]:
    colours = initial_colours(graphs)
    out = []
    for G, col in zip(graphs, colours, strict=True):
        cnt: Counter = Counter()
        for u, lengths in nx.all_pairs_shortest_path_length(G):
            for v, d in lengths.items():
                if u != v:
                    cnt[(col[u], col[v], d)] += 1
        out.append(cnt)
    return out


@st.composite
def small_graph(draw, labelled: bool = True, max_nodes: int = 7, alphabet: int = 3):
    """A random small undirected graph, possibly with self-loops and isolated nodes."""
    n = draw(st.integers(0, max_nodes))
    G = nx.Graph()
    G.add_nodes_from(range(n))
    pairs = [(u, v) for u in range(n) for v in range(u, n)]
    present = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    loops = draw(st.booleans())
    G.add_edges_from(
        p for p, keep in zip(pairs, present, strict=True) if keep and (loops or p[0] != p[1])
    )
    if labelled:
        for v in range(n):
            G.nodes[v][LABEL] = draw(st.integers(0, alphabet - 1))
    return G


@st.composite
def graph_lists(draw, labelled: bool | None = None, min_size: int = 1, max_size: int = 5):
    lab = draw(st.booleans()) if labelled is None else labelled
    return draw(st.lists(small_graph(labelled=lab), min_size=min_size, max_size=max_size))
