"""read_tu on small hand-written TU folders: round trips, tolerated quirks, clear errors."""

import re

import networkx as nx
import numpy as np
import pytest

from kernelkit.datasets import read_tu

# Two graphs: a labelled triangle (nodes 1-3) and a path 4-5, plus a self-loop on node 5.
VALID = {
    "A": "1, 2\n2, 1\n2, 3\n3, 2\n1, 3\n3, 1\n4, 5\n5, 4\n5, 5\n",
    "graph_indicator": "1\n1\n1\n2\n2\n",
    "graph_labels": "1\n-1\n",
    "node_labels": "0\n1\n2\n3\n4\n",
    "edge_labels": "7\n7\n8\n8\n9\n9\n5\n5\n6\n",
}


def write_tu(directory, name="DS", **overrides):
    """Write the VALID dataset (with per-file overrides; None drops a file)."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {**VALID, **overrides}
    for role, text in files.items():
        if text is not None:
            (directory / f"{name}_{role}.txt").write_bytes(text.encode())
    return directory


def expected_graphs(node_labels=True, edge_labels=True):
    g1, g2 = nx.Graph(name="DS_1"), nx.Graph(name="DS_2")
    for graph, labels in ((g1, [0, 1, 2]), (g2, [3, 4])):
        for i, lab in enumerate(labels):
            graph.add_node(i, **({"label": lab} if node_labels else {}))
    for graph, edges in ((g1, [(0, 1, 7), (1, 2, 8), (0, 2, 9)]), (g2, [(0, 1, 5), (1, 1, 6)])):
        for u, v, lab in edges:
            graph.add_edge(u, v, **({"label": lab} if edge_labels else {}))
    return [g1, g2]


def assert_graphs(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert nx.utils.graphs_equal(a, b), (a.nodes(data=True), a.edges(data=True))


def error(tmp_path, exc=ValueError, **overrides):
    folder = write_tu(tmp_path / "ds", **overrides)
    with pytest.raises(exc) as info:
        read_tu(folder)
    return str(info.value)


def assert_names(message, role, line=None):
    assert f"DS_{role}.txt" in message, message
    if line is not None:
        assert re.search(rf"\bline {line}\b", message), message


# ---------------------------------------------------------------- valid input


def test_round_trip(tmp_path):
    graphs, y = read_tu(write_tu(tmp_path))
    assert_graphs(graphs, expected_graphs())
    assert y.tolist() == [1, -1] and y.dtype.kind == "i"
    assert all(type(d["label"]) is int for g in graphs for d in g.nodes.values())


def test_round_trip_of_random_graphs(tmp_path):
    rng = np.random.default_rng(0)
    graphs = [
        nx.gnp_random_graph(int(rng.integers(1, 12)), 0.3, seed=int(s))
        for s in rng.integers(0, 10**6, size=25)
    ]
    lines_a, indicator, labels, offset = [], [], [], 0
    for g, graph in enumerate(graphs):
        for u, v in graph.edges:
            a, b = u + offset + 1, v + offset + 1
            lines_a += [f"{a}, {b}", f"{b}, {a}"]
        indicator += [str(g + 1)] * graph.number_of_nodes()
        labels += [str(n % 3) for n in graph.nodes]
        offset += graph.number_of_nodes()
    if not lines_a:  # pragma: no cover - the seed gives edges
        pytest.skip("no edges drawn")
    folder = tmp_path / "rand"
    folder.mkdir()
    (folder / "R_A.txt").write_text("\n".join(lines_a) + "\n")
    (folder / "R_graph_indicator.txt").write_text("\n".join(indicator) + "\n")
    (folder / "R_graph_labels.txt").write_text("\n".join(str(g % 2) for g in range(25)) + "\n")
    (folder / "R_node_labels.txt").write_text("\n".join(labels) + "\n")
    got, y = read_tu(folder)
    assert y.tolist() == [g % 2 for g in range(25)]
    for a, b in zip(got, graphs, strict=True):
        assert sorted(a.nodes) == sorted(b.nodes)
        assert {frozenset(e) for e in a.edges} == {frozenset(e) for e in b.edges}
        assert all(a.nodes[n]["label"] == n % 3 for n in a.nodes)


def test_crlf_trailing_whitespace_and_blank_last_lines(tmp_path):
    crlf = {role: text.replace("\n", " \r\n") + "\r\n\r\n" for role, text in VALID.items()}
    graphs, y = read_tu(write_tu(tmp_path, **crlf))
    assert_graphs(graphs, expected_graphs())
    assert y.tolist() == [1, -1]
    no_newline = {role: text.rstrip("\n") for role, text in VALID.items()}
    graphs, _ = read_tu(write_tu(tmp_path / "b", **no_newline))
    assert_graphs(graphs, expected_graphs())


def test_whitespace_separated_pairs_and_duplicates(tmp_path):
    a = VALID["A"].replace(", ", " ") + "1 2\n"  # a repeated pair gives one edge
    graphs, _ = read_tu(write_tu(tmp_path, A=a, edge_labels=VALID["edge_labels"] + "3\n"))
    assert_graphs(graphs, expected_graphs())  # first occurrence's label kept


def test_without_optional_label_files(tmp_path):
    graphs, _ = read_tu(write_tu(tmp_path, node_labels=None, edge_labels=None))
    assert_graphs(graphs, expected_graphs(node_labels=False, edge_labels=False))
    assert all("label" not in d for g in graphs for d in g.nodes.values())


def test_explicit_name_and_unsorted_indicator(tmp_path):
    # Nodes of graph 2 listed first: nodes keep their file order within each graph.
    folder = write_tu(
        tmp_path,
        name="X",
        A="3, 4\n4, 3\n1, 2\n",
        graph_indicator="2\n2\n1\n1\n",
        graph_labels="0\n1\n",
        node_labels="10\n11\n12\n13\n",
        edge_labels=None,
    )
    graphs, y = read_tu(folder, name="X")
    assert y.tolist() == [0, 1]
    assert [dict(g.nodes(data="label")) for g in graphs] == [{0: 12, 1: 13}, {0: 10, 1: 11}]
    assert [sorted(g.edges) for g in graphs] == [[(0, 1)], [(0, 1)]]
    assert graphs[0].graph["name"] == "X_1"


# ---------------------------------------------------------------- files and names


def test_missing_required_files(tmp_path):
    for role in ("graph_indicator", "graph_labels"):
        msg = error(tmp_path / role, FileNotFoundError, **{role: None})
        assert_names(msg, role)


def test_missing_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        read_tu(tmp_path / "nowhere")


def test_name_cannot_be_inferred(tmp_path):
    with pytest.raises(ValueError, match="found none"):
        read_tu(tmp_path)
    write_tu(tmp_path, name="ONE")
    write_tu(tmp_path, name="TWO")
    with pytest.raises(ValueError, match="ONE, TWO"):
        read_tu(tmp_path)
    graphs, _ = read_tu(tmp_path, name="TWO")
    assert len(graphs) == 2


def test_explicit_name_missing_a_file(tmp_path):
    write_tu(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"OTHER_A\.txt"):
        read_tu(tmp_path, name="OTHER")


@pytest.mark.parametrize(
    "role", ["A", "graph_indicator", "graph_labels", "node_labels", "edge_labels"]
)
def test_empty_files(tmp_path, role):
    msg = error(tmp_path, **{role: " \n\n"})
    assert_names(msg, role)
    assert "empty" in msg


# ---------------------------------------------------------------- malformed lines


@pytest.mark.parametrize(
    ("line_text", "line"),
    [("1, 2, 3", 2), ("1", 2), ("", 2), ("4, 5, 1, 2", 9)],
)
def test_a_wrong_column_count(tmp_path, line_text, line):
    lines = VALID["A"].splitlines()
    lines[line - 1] = line_text
    msg = error(tmp_path, A="\n".join(lines) + "\n")
    assert_names(msg, "A", line)
    assert "expected 2 integers" in msg


@pytest.mark.parametrize(
    ("role", "line", "value"),
    [
        ("A", 3, "2, x"),
        ("A", 4, "3.0, 2"),
        ("A", 1, "-, 2"),
        ("A", 5, "1-2, 3"),
        ("graph_indicator", 2, "one"),
        ("graph_labels", 2, "1.5"),
        ("node_labels", 4, "C"),
        ("edge_labels", 6, "9e0"),
        ("A", 2, "99999999999999999999, 1"),
    ],
)
def test_non_integer_values(tmp_path, role, line, value):
    lines = VALID[role].splitlines()
    lines[line - 1] = value
    msg = error(tmp_path, **{role: "\n".join(lines) + "\n"})
    assert_names(msg, role, line)


def test_label_file_with_two_columns(tmp_path):
    msg = error(tmp_path, node_labels="0\n1\n2, 2\n3\n4\n")
    assert_names(msg, "node_labels", 3)


@pytest.mark.parametrize(("value", "line"), [("0, 1", 1), ("6, 5", 8), ("5, -1", 9)])
def test_node_ids_out_of_range(tmp_path, value, line):
    lines = VALID["A"].splitlines()
    lines[line - 1] = value
    msg = error(tmp_path, A="\n".join(lines) + "\n")
    assert_names(msg, "A", line)
    assert "outside 1..5" in msg and "DS_graph_indicator.txt" in msg


def test_edge_between_graphs(tmp_path):
    msg = error(tmp_path, A=VALID["A"].replace("1, 3\n", "3, 4\n"))
    assert_names(msg, "A", 5)
    assert "joins graph 1 and graph 2" in msg


def test_graph_id_beyond_number_of_labels(tmp_path):
    msg = error(tmp_path, graph_indicator="1\n1\n1\n2\n3\n")
    assert_names(msg, "graph_indicator", 5)
    assert "DS_graph_labels.txt" in msg


def test_graph_id_zero(tmp_path):
    msg = error(tmp_path, graph_indicator="0\n1\n1\n2\n2\n")
    assert_names(msg, "graph_indicator", 1)


def test_graph_ids_not_contiguous(tmp_path):
    # Three labels, but graph 2 has no nodes (ids 1 and 3 used).
    msg = error(tmp_path, graph_indicator="1\n1\n1\n3\n3\n", graph_labels="1\n-1\n1\n")
    assert_names(msg, "graph_indicator")
    assert "contiguous" in msg and "graph 2" in msg


def test_more_graph_labels_than_graphs(tmp_path):
    msg = error(tmp_path, graph_labels="1\n-1\n1\n")
    assert "contiguous 1..3" in msg and "graph 3 has no nodes" in msg


@pytest.mark.parametrize(
    ("text", "line"), [("7\n7\n8\n", None), (VALID["edge_labels"] + "1\n", 10)]
)
def test_edge_label_count_mismatch(tmp_path, text, line):
    msg = error(tmp_path, edge_labels=text)
    assert_names(msg, "edge_labels", line)
    assert "DS_A.txt" in msg


@pytest.mark.parametrize(("text", "line"), [("0\n1\n2\n3\n", None), ("0\n1\n2\n3\n4\n5\n", 6)])
def test_node_label_count_mismatch(tmp_path, text, line):
    msg = error(tmp_path, node_labels=text)
    assert_names(msg, "node_labels", line)
    assert "DS_graph_indicator.txt" in msg


def test_errors_are_never_bare_numpy_errors(tmp_path):
    bad_inputs = [
        {"A": "1,\n"},
        {"A": ",\n"},
        {"A": "+\n"},
        {"A": "1, 2\n\n2, 1\n"},
        {"graph_indicator": "\x00\n"},
        {"graph_labels": "\u00e9\n-1\n"},
        {"A": "1,,2\n"},
    ]
    for i, override in enumerate(bad_inputs):
        role = next(iter(override))
        msg = error(tmp_path / str(i), **override)
        assert_names(msg, role), override
        assert "line" in msg


@pytest.mark.parametrize("bad", [None, 3, ["a"]])
def test_directory_must_be_a_path(bad):
    # before: "expected str, bytes or os.PathLike object, not NoneType" from pathlib
    with pytest.raises(TypeError, match=r"directory must be a path \(str or os.PathLike\)"):
        read_tu(bad)


def test_name_must_be_a_string(tmp_path):
    write_tu(tmp_path)
    with pytest.raises(TypeError, match=r"name must be a str \(the DS of DS_A.txt\) or None"):
        read_tu(tmp_path, 5)


def test_labels_only_where_the_files_give_them_and_kernels_say_so(tmp_path):
    # without DS_node_labels.txt the nodes carry no label: a WL kernel asks for degrees
    from kernelkit.graphs import WeisfeilerLehman

    graphs, _ = read_tu(write_tu(tmp_path, node_labels=None))
    with pytest.raises(ValueError, match="pass node_label=None"):
        WeisfeilerLehman().fit(graphs)
    assert WeisfeilerLehman(node_label=None).fit_transform(graphs).shape[0] == 2
