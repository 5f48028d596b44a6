"""The dataset loaders and readers on input of the wrong type, degenerate input and input
beyond this machine's memory (issue 28 §3 audit): a TypeError / ValueError / OSError that
names the argument, never a silent read of the wrong thing or a MemoryError from deep
inside."""

from __future__ import annotations

import pytest

from kernelkit import _memory
from kernelkit.datasets import load_dataset, load_uci, provenance, read_tu

TINY = {  # two graphs: a triangle and an edge
    "A": "1, 2\n2, 1\n2, 3\n3, 2\n1, 3\n3, 1\n4, 5\n5, 4\n",
    "graph_indicator": "1\n1\n1\n2\n2\n",
    "graph_labels": "1\n-1\n",
}


def write_tu(directory, name="DS"):
    directory.mkdir(parents=True, exist_ok=True)
    for role, text in TINY.items():
        (directory / f"{name}_{role}.txt").write_text(text)
    return directory


@pytest.mark.parametrize("loader", [load_uci, load_dataset, provenance])
@pytest.mark.parametrize("bad", [None, 5, ["boston"], b"boston"])
def test_a_name_that_is_not_a_string_is_a_type_error(loader, bad):
    # before: ValueError "unknown UCI dataset None" (str(None) looked up as a name)
    with pytest.raises(TypeError, match=r"name must be a str"):
        loader(bad)


def test_names_are_still_found_in_any_case():
    assert load_uci("CPU").X.shape == (209, 6)
    assert load_dataset("Cpu").X.shape == (209, 6)


def test_an_empty_directory_string_is_not_the_current_folder(tmp_path, monkeypatch):
    # before: read_tu("") read the current working directory (Path("") is ".")
    monkeypatch.chdir(write_tu(tmp_path))
    with pytest.raises(ValueError, match=r"directory must not be empty"):
        read_tu("")


def test_a_file_given_as_the_directory(tmp_path):
    folder = write_tu(tmp_path / "ds")
    # before: FileNotFoundError "TU dataset folder .../DS_A.txt does not exist"
    with pytest.raises(NotADirectoryError, match=r"DS_A\.txt is a file, not a folder"):
        read_tu(folder / "DS_A.txt")


@pytest.mark.parametrize("name", ["", "  ", "../DS", "sub/DS"])
def test_a_name_that_is_not_a_file_prefix(tmp_path, name):
    folder = write_tu(tmp_path / "ds")
    # before: "" looked for "_A.txt"; "../DS" read the files of another folder
    write_tu(tmp_path, name="DS")
    with pytest.raises(ValueError, match=r"name must be the non-empty prefix DS of DS_A\.txt"):
        read_tu(folder, name=name)


def test_text_beyond_this_machines_memory_is_refused_before_reading(tmp_path, monkeypatch):
    folder = write_tu(tmp_path)
    monkeypatch.setattr(_memory, "memory_limit", lambda: 64)  # a machine of 64 bytes
    # before: the files were read (and on a real machine, a folder of tens of GiB was
    # read into memory until the process was killed)
    with pytest.raises(ValueError, match=r"reading the TU dataset DS .* would need about"):
        read_tu(folder)


def test_graphs_beyond_this_machines_memory_are_refused_before_building(tmp_path, monkeypatch):
    folder = write_tu(tmp_path)
    text_bytes = sum(p.stat().st_size for p in folder.iterdir())
    # enough for the text, not for 2 networkx graphs of 5 nodes and 8 node pairs
    monkeypatch.setattr(_memory, "memory_limit", lambda: 16 * text_bytes)
    with pytest.raises(ValueError, match=r"2 networkx graphs of 5 nodes and 8 node pairs"):
        read_tu(folder)
    monkeypatch.undo()
    graphs, y = read_tu(folder)  # and on this machine it fits
    assert [g.number_of_edges() for g in graphs] == [3, 1] and y.tolist() == [1, -1]
