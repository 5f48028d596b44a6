"""Checksum verification of packaged files, on a temporary copy of the data folder."""

import gzip
import hashlib
import os
import shutil
import struct
from pathlib import Path

import pytest

import kernelkit.datasets as kd
from kernelkit.datasets import _files, load_exp, load_mnist, load_tu, load_uci

DATA = Path(kd.__file__).parent / "data"


def test_sha256sums_cover_every_data_file():
    listed = {line.split("  ", 1)[1] for line in (DATA / "SHA256SUMS").read_text().splitlines()}
    on_disk = {p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if p.is_file()}
    assert listed == on_disk - {"SHA256SUMS", "PROVENANCE.md", ".gitattributes"}
    for rel in listed:  # the README of every upstream folder is kept and listed
        assert (DATA / rel).stat().st_size > 0
    assert {
        "tu/MUTAG/README.txt",
        "boston_housing/housing.names",
        "computer_hardware/machine.names",
        "coil2000/TicDataDescr.txt",
        "wine_quality_red/winequality.names",
    } <= listed


def test_packaged_files_match_their_checksums():
    for line in (DATA / "SHA256SUMS").read_text().splitlines():
        digest, rel = line.split("  ", 1)
        assert hashlib.sha256((DATA / rel).read_bytes()).hexdigest() == digest, rel


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A copy of SHA256SUMS, tu/MUTAG and exp/ that the loaders read instead of the package."""
    root = tmp_path / "data"
    root.mkdir()
    shutil.copy(DATA / "SHA256SUMS", root)
    for folder in ("tu/MUTAG", "exp", "boston_housing"):
        shutil.copytree(DATA / folder, root / folder)
    monkeypatch.setattr(_files, "_data_root", lambda: root)
    return root


def test_copy_loads(data_copy):
    graphs, y = load_tu("MUTAG")
    assert len(graphs) == 188 and len(y) == 188


def test_corrupt_file_raises_mismatch_naming_it(data_copy):
    path = data_copy / "tu" / "MUTAG" / "MUTAG_A.txt"
    data = bytearray(path.read_bytes())
    data[0:1] = b"3"  # same size, different content
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"checksum mismatch for tu/MUTAG/MUTAG_A\.txt"):
        load_tu("MUTAG")


def test_missing_file_raises_file_not_found_naming_it(data_copy):
    (data_copy / "tu" / "MUTAG" / "MUTAG_edge_labels.txt").unlink()
    with pytest.raises(FileNotFoundError, match=r"tu/MUTAG/MUTAG_edge_labels\.txt"):
        load_tu("MUTAG")
    (data_copy / "exp" / "GRAPHSAT.txt").unlink()
    with pytest.raises(FileNotFoundError, match=r"exp/GRAPHSAT\.txt"):
        load_exp()


def test_missing_checksum_list(data_copy):
    (data_copy / "SHA256SUMS").unlink()
    with pytest.raises(FileNotFoundError, match="SHA256SUMS"):
        load_uci("boston")


def test_unlisted_file_is_rejected(data_copy):
    sums = data_copy / "SHA256SUMS"
    kept = [ln for ln in sums.read_text().splitlines() if "housing.data" not in ln]
    sums.write_text("\n".join(kept) + "\n")
    with pytest.raises(ValueError, match=r"no checksum recorded for boston_housing/housing\.data"):
        load_uci("boston")


def test_each_file_is_hashed_once_per_process(data_copy, monkeypatch):
    calls = []
    real = _files._sha256
    monkeypatch.setattr(_files, "_sha256", lambda path: calls.append(path.name) or real(path))
    load_tu("MUTAG")
    load_tu("MUTAG")
    load_uci("boston")
    load_uci("boston")
    assert sorted(calls) == sorted(
        [
            "MUTAG_A.txt",
            "MUTAG_graph_indicator.txt",
            "MUTAG_graph_labels.txt",
            "MUTAG_node_labels.txt",
            "MUTAG_edge_labels.txt",
            "housing.data",
        ]
    )


def test_file_changed_after_verification_is_caught(data_copy):
    load_uci("boston")
    path = data_copy / "boston_housing" / "housing.data"
    data = path.read_bytes()
    path.write_bytes(data.replace(b"24.00", b"25.00", 1))
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    with pytest.raises(ValueError, match=r"checksum mismatch for boston_housing/housing\.data"):
        load_uci("boston")


def _fake_mnist(root, magic, n=3):
    """Write tiny IDX files and list them in SHA256SUMS so that only their content is wrong."""
    (root / "mnist").mkdir()
    images = struct.pack(">IIII", magic, n, 28, 28) + bytes(n * 28 * 28)
    labels = struct.pack(">II", 2049, n) + bytes(range(n))
    lines = []
    for name, raw in (("t10k-images-idx3-ubyte.gz", images), ("t10k-labels-idx1-ubyte.gz", labels)):
        (root / "mnist" / name).write_bytes(gzip.compress(raw))
        digest = hashlib.sha256((root / "mnist" / name).read_bytes()).hexdigest()
        lines.append(f"{digest}  mnist/{name}")
    (root / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def test_mnist_reader_on_small_files(data_copy):
    _fake_mnist(data_copy, 2051)
    images, labels = load_mnist()
    assert images.shape == (3, 28, 28) and labels.tolist() == [0, 1, 2]


def test_mnist_bad_magic_number(data_copy):
    _fake_mnist(data_copy, 2049)
    with pytest.raises(ValueError, match=r"t10k-images-idx3-ubyte\.gz: bad IDX magic number 2049"):
        load_mnist()
