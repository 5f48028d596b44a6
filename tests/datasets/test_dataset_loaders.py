"""Shapes, counts and contents of the packaged datasets, checked against the provenance
README and against independent, naive parsing of the same files."""

import csv
from collections import Counter
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import kernelkit.datasets as kd
from kernelkit.datasets import (
    catalog,
    load_classic3,
    load_dataset,
    load_exp,
    load_mnist,
    load_tu,
    load_uci,
    provenance,
    read_tu,
)

DATA = Path(kd.__file__).parent / "data"


@pytest.fixture(scope="module")
def mutag():
    return load_tu("MUTAG")


@pytest.fixture(scope="module")
def exp():
    return load_exp()


def _totals(graphs):
    return sum(g.number_of_nodes() for g in graphs), sum(g.number_of_edges() for g in graphs)


# ---------------------------------------------------------------- TU graphs


def test_mutag_counts_and_labels(mutag):
    graphs, y = mutag
    assert len(graphs) == 188
    assert y.dtype.kind == "i"
    assert Counter(y.tolist()) == {1: 125, -1: 63}
    assert _totals(graphs) == (3371, 7442 // 2)
    assert all(isinstance(g, nx.Graph) and not g.is_directed() for g in graphs)
    assert all(list(g.nodes) == list(range(g.number_of_nodes())) for g in graphs)
    assert all(isinstance(d["label"], int) for g in graphs for _, d in g.nodes(data=True))
    edge_labels = [d["label"] for g in graphs for *_, d in g.edges(data=True)]
    assert len(edge_labels) == 3721 and set(edge_labels) <= {0, 1, 2, 3}
    assert graphs[0].graph["name"] == "MUTAG_1"
    assert graphs[-1].graph["name"] == "MUTAG_188"


def test_mutag_matches_naive_parse(mutag):
    graphs, y = mutag
    folder = DATA / "tu" / "MUTAG"

    def column(suffix):
        return [int(x) for x in (folder / f"MUTAG_{suffix}.txt").read_text().split()]

    indicator, node_labels = column("graph_indicator"), column("node_labels")
    edge_labels = column("edge_labels")
    pairs = [
        tuple(int(t) for t in line.split(","))
        for line in (folder / "MUTAG_A.txt").read_text().splitlines()
        if line.strip()
    ]
    expected = [nx.Graph(name=f"MUTAG_{g + 1}") for g in range(max(indicator))]
    first_node = {}
    for node, g in enumerate(indicator, 1):
        first_node.setdefault(g, node)
        expected[g - 1].add_node(node - first_node[g], label=node_labels[node - 1])
    for (a, b), lab in zip(pairs, edge_labels, strict=True):
        g = indicator[a - 1]
        expected[g - 1].add_edge(a - first_node[g], b - first_node[g], label=lab)
    assert len(graphs) == len(expected)
    for got, want in zip(graphs, expected, strict=True):
        assert nx.utils.graphs_equal(got, want)
    assert y.tolist() == column("graph_labels")


@pytest.mark.parametrize(
    ("name", "n_graphs", "counts", "n_nodes", "n_directed"),
    [
        ("NCI1", 4110, {1: 2057, 0: 2053}, 122747, 265506),
        ("nci109", 4127, {1: 2079, 0: 2048}, 122494, 265208),
    ],
)
def test_nci(name, n_graphs, counts, n_nodes, n_directed):
    graphs, y = load_tu(name)
    assert len(graphs) == n_graphs
    assert Counter(y.tolist()) == counts
    assert _totals(graphs) == (n_nodes, n_directed // 2)
    assert all("label" in d for d in graphs[0].nodes.values())
    assert all(d == {} for *_, d in graphs[0].edges(data=True))  # no edge labels


def test_read_tu_on_packaged_folder_equals_load_tu(mutag):
    graphs, y = read_tu(DATA / "tu" / "MUTAG")
    np.testing.assert_array_equal(y, mutag[1])
    assert all(nx.utils.graphs_equal(a, b) for a, b in zip(graphs, mutag[0], strict=True))


def test_load_tu_unknown_name():
    with pytest.raises(ValueError, match="MUTAG, NCI1, NCI109"):
        load_tu("PROTEINS")
    with pytest.raises(TypeError, match="name must be a str, one of MUTAG, NCI1, NCI109; got"):
        load_tu(None)


# ---------------------------------------------------------------- EXP


def test_exp(exp):
    graphs, y = exp
    assert len(graphs) == 1200
    assert Counter(y.tolist()) == {0: 600, 1: 600}
    assert _totals(graphs) == (58442, 72530)
    sizes = [g.number_of_nodes() for g in graphs]
    assert min(sizes) == 33 and max(sizes) == 73
    assert {d["label"] for g in graphs for d in g.nodes.values()} == {0, 1}
    # Pairs (2k, 2k+1): same size, labels (SAT, UNSAT) = (1, 0).
    assert sizes[0::2] == sizes[1::2]
    assert y[0::2].tolist() == [1] * 600 and y[1::2].tolist() == [0] * 600


def test_exp_pairs_are_1wl_indistinguishable(exp):
    graphs, _ = exp
    for k in range(0, 40, 2):
        h = [
            nx.weisfeiler_lehman_graph_hash(graphs[k + i], node_attr="label", iterations=5)
            for i in (0, 1)
        ]
        assert h[0] == h[1]


def test_exp_matches_naive_parse(exp):
    graphs, y = exp
    lines = (DATA / "exp" / "GRAPHSAT.txt").read_text().splitlines()
    pos = 1
    for k in range(int(lines[0])):
        n, label = map(int, lines[pos].split())
        pos += 1
        want = nx.Graph(name=f"EXP_{k + 1}")
        for i in range(n):
            node_label, _, *nbrs = map(int, lines[pos + i].split())
            want.add_node(i, label=node_label)
            want.add_edges_from((i, j) for j in nbrs)
        pos += n
        assert y[k] == label
        assert nx.utils.graphs_equal(graphs[k], want)


# ---------------------------------------------------------------- MNIST


def test_mnist():
    images, labels = load_mnist()
    assert images.shape == (10000, 28, 28) and images.dtype == np.uint8
    assert labels.shape == (10000,)
    assert np.bincount(labels).tolist() == [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    assert images.min() == 0 and images.max() == 255
    assert images.flags.writeable
    assert labels[:5].tolist() == [7, 2, 1, 0, 4]  # the well-known first test digits


# ---------------------------------------------------------------- tables


def _table(name):
    table = load_uci(name)
    return table.X, table.y, table.feature_names


def test_load_uci_returns_a_frozen_table():
    import dataclasses

    table = load_uci("cpu")
    assert isinstance(table, kd.Table) and dataclasses.is_dataclass(table)
    assert [f.name for f in dataclasses.fields(table)] == ["X", "y", "feature_names"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        table.X = None
    assert len(table.feature_names) == table.X.shape[1] and len(table.y) == len(table.X)
    # one return type: no flag, no tuple to unpack
    with pytest.raises(TypeError, match="return_feature_names"):
        load_uci("cpu", return_feature_names=True)
    with pytest.raises(TypeError):
        _, _ = load_uci("cpu")


def test_boston():
    X, y, names = _table("boston")
    assert X.shape == (506, 13) and y.shape == (506,)
    assert X.dtype == y.dtype == np.float64
    assert y.mean() == pytest.approx(22.5328, abs=1e-4)
    assert (y.min(), y.max()) == (5.0, 50.0)
    assert names[0] == "CRIM" and names[-1] == "LSTAT" and len(names) == 13
    raw = np.loadtxt(DATA / "boston_housing" / "housing.data")
    np.testing.assert_array_equal(np.c_[X, y], raw)


def test_wine():
    X, y, names = _table("WINE")
    assert X.shape == (1599, 11)
    assert Counter(y.astype(int).tolist()) == {3: 10, 4: 53, 5: 681, 6: 638, 7: 199, 8: 18}
    assert names[0] == "fixed acidity" and names[-1] == "alcohol"
    with open(DATA / "wine_quality_red" / "winequality-red.csv", newline="") as fh:
        rows = list(csv.reader(fh, delimiter=";"))
    np.testing.assert_array_equal(np.c_[X, y], np.array(rows[1:], dtype=float))


def test_insurance():
    X, y, names = _table("insurance")
    assert X.shape == (5822, 85)
    assert int(y.sum()) == 348 and set(np.unique(y)) == {0.0, 1.0}
    assert names[0] == "MOSTYPE" and names[-1] == "ABYSTAND" and len(names) == 85


def test_cpu():
    X, y, names = _table("cpu")
    assert X.shape == (209, 6) and y.shape == (209,)
    assert names == ["MYCT", "MMIN", "MMAX", "CACH", "CHMIN", "CHMAX"]
    with open(DATA / "computer_hardware" / "machine.data", newline="") as fh:
        rows = list(csv.reader(fh))
    np.testing.assert_array_equal(X, np.array([r[2:8] for r in rows], dtype=float))
    np.testing.assert_array_equal(y, np.array([r[8] for r in rows], dtype=float))


def test_cpu_act_and_cpu_small():
    Xa, ya, names_a = _table("cpu_act")
    Xs, ys, names_s = _table("cpu_small")
    assert Xa.shape == (8192, 21) and Xs.shape == (8192, 12)
    assert names_a[0] == "lread" and "class" not in names_a and "class" not in names_s
    # cpu_small is cpu_act without the paging columns (README cross-check).
    keep = [*range(9), 18, 19, 20]
    assert [names_a[i] for i in keep] == names_s
    np.testing.assert_array_equal(Xa[:, keep], Xs)
    np.testing.assert_array_equal(ya, ys)
    assert 0 <= ya.min() and ya.max() <= 100


def test_load_uci_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match="boston, wine, insurance, cpu, cpu_act, cpu_small"):
        load_uci("iris")


# ---------------------------------------------------------------- Classic3


def test_classic3():
    corpus = load_classic3()
    docs, labels = corpus.documents, corpus.labels
    assert 3891 <= len(docs) <= 3893 and len(labels) == len(docs)
    counts = Counter(labels.tolist())
    assert counts["MED"] == 1033 and counts["CISI"] == 1460
    assert 1398 <= counts["CRAN"] <= 1400
    assert labels.dtype.kind == "U"
    assert all(isinstance(d, str) and d.strip() for d in docs)
    assert docs[0].startswith("correlation between maternal and fetal plasma levels")
    assert docs[1033].startswith("18 Editions of the Dewey Decimal Classifications\n")
    assert "Comaromi" not in docs[1033]  # author field (.A) excluded


def test_classic3_empty_cranfield_records_and_ids():
    corpus = load_classic3(drop_empty=False)
    docs, labels, ids = corpus.documents, corpus.labels, corpus.ids
    assert len(docs) == 3893
    empty = [(labels[i], int(ids[i])) for i, d in enumerate(docs) if not d]
    assert empty == [("CRAN", 471), ("CRAN", 995)]
    for name, n in (("MED", 1033), ("CISI", 1460), ("CRAN", 1400)):
        assert ids[labels == name].tolist() == list(range(1, n + 1))
    kept = load_classic3()
    assert len(kept.documents) == 3891 and 471 not in kept.ids[kept.labels == "CRAN"]
    assert len(kept.ids) == len(kept.labels) == 3891 and kept.ids.dtype == np.int64


def test_load_classic3_returns_a_frozen_corpus():
    import dataclasses

    corpus = load_classic3()
    assert isinstance(corpus, kd.Corpus)
    assert [f.name for f in dataclasses.fields(corpus)] == ["documents", "labels", "ids"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        corpus.labels = None
    with pytest.raises(TypeError, match="return_ids"):
        load_classic3(return_ids=True)


@pytest.mark.parametrize("kwargs", [{"drop_empty": "no"}, {"drop_empty": 0}])
def test_classic3_booleans_are_checked(kwargs):
    # before: drop_empty='no' is truthy and dropped the empty records
    (name,) = kwargs
    with pytest.raises(TypeError, match=f"{name} must be a bool, got"):
        load_classic3(**kwargs)
    assert len(load_classic3(drop_empty=np.bool_(False)).documents) == 3893


# ---------------------------------------------------------------- catalog


def _shape_string(name, data):
    if name == "mnist":
        return " x ".join(map(str, data[0].shape))
    if name in ("MUTAG", "NCI1", "NCI109", "EXP"):
        nodes, edges = _totals(data[0])
        return f"{len(data[0])} graphs, {nodes} nodes, {edges} edges"
    if name == "classic3":
        return f"{len(data.documents)} documents"
    if isinstance(data, kd.RegressionSplit):  # training and test rows together
        return f"{len(data.X_train) + len(data.X_test)} x {data.X_train.shape[1]}"
    return f"{data.X.shape[0]} x {data.X.shape[1]}"


def test_catalog_shapes_agree_with_loaders():
    entries = catalog()
    assert [e.name for e in entries] == [
        "mnist",
        "MUTAG",
        "NCI1",
        "NCI109",
        "EXP",
        "boston",
        "wine",
        "insurance",
        "cpu",
        "cpu_act",
        "cpu_small",
        "pol",
        "elevators",
        "bike",
        "protein",
        "keggdirected",
        "classic3",
    ]
    import dataclasses

    for entry in entries:
        assert dataclasses.is_dataclass(entry) and not isinstance(entry, tuple)
        assert entry.kind and entry.source
        assert entry.shape == _shape_string(entry.name, load_dataset(entry.name)), entry.name


def test_provenance():
    text = provenance("mutag")
    assert "soumavaghosh/graph2vec" in text  # provenance section
    assert "The MUTAG dataset consists of 188 chemical compounds" in text  # upstream README
    assert "NCI1 dataset" not in text
    assert "Abboud" in provenance("EXP")
    assert "Harrison" in provenance("boston") and "CLEANED" in provenance("boston")
    assert "Sun Sparcstation" in provenance("cpu_small")
    assert "MED.ALL" in provenance("classic3")
    for entry in catalog():
        assert "sha256" in provenance(entry.name)


def test_provenance_file_mentions_no_local_path():
    text = (DATA / "PROVENANCE.md").read_text(encoding="utf-8")
    for marker in ("/work/", "/home/", "/tmp/", "/root/", "C:\\"):
        assert marker not in text


@pytest.mark.parametrize("func", [provenance, load_dataset])
def test_unknown_catalog_name(func):
    with pytest.raises(ValueError, match="mnist, MUTAG, NCI1"):
        func("cifar10")


def test_public_api():
    assert sorted(kd.__all__) == sorted(
        [
            "UCI_REGRESSION_DATASETS",
            "Corpus",
            "DatasetInfo",
            "RegressionSplit",
            "Table",
            "catalog",
            "load_classic3",
            "load_dataset",
            "load_exp",
            "load_mnist",
            "load_tu",
            "load_uci",
            "load_uci_regression",
            "provenance",
            "read_tu",
        ]
    )
    for name in kd.__all__:
        assert getattr(kd, name).__doc__


@pytest.mark.parametrize(
    "module", ["catalog", "classic3", "exp", "mnist", "tu", "uci", "uci_regression"]
)
def test_docstring_examples(module):
    import doctest
    import importlib

    mod = importlib.import_module(f"kernelkit.datasets.{module}")
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
