"""The UCI regression sets with fixed splits: shapes, splits, standardisation, bad input."""

import dataclasses
import gzip
import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import kernelkit.datasets as kd
from kernelkit.datasets import (
    UCI_REGRESSION_DATASETS,
    RegressionSplit,
    _files,
    load_dataset,
    load_uci_regression,
    provenance,
)

DATA = Path(kd.__file__).parent / "data"
# name -> (n, d) of the uci_datasets README
SHAPES = {
    "pol": (15000, 26),
    "elevators": (16599, 18),
    "bike": (17379, 17),
    "protein": (45730, 9),
    "keggdirected": (48827, 20),
}


@pytest.fixture(scope="module")
def raw():
    """name -> (table, boolean test mask) parsed independently of the loader."""
    out = {}
    for name in SHAPES:
        folder = DATA / "uci_regression" / name
        table = np.loadtxt(folder / "data.csv.gz", delimiter=",")
        codes = np.loadtxt(folder / "test_mask.csv.gz", delimiter=",", dtype=np.int64)
        assert set(np.unique(codes)) <= {0, 1}
        out[name] = table, codes.astype(bool)
    return out


def test_the_five_names():
    assert UCI_REGRESSION_DATASETS == ("pol", "elevators", "bike", "protein", "keggdirected")
    assert kd.UCI_REGRESSION_DATASETS is UCI_REGRESSION_DATASETS


@pytest.mark.parametrize("name", list(SHAPES))
def test_shapes_and_split_sizes(name, raw):
    n, d = SHAPES[name]
    table, mask = raw[name]
    assert table.shape == (n, d + 1) and mask.shape == (n, 10)
    for split in (0, 9):
        data = load_uci_regression(name, split=split)
        assert isinstance(data, RegressionSplit)
        assert (data.name, data.split) == (name, split)
        n_train, n_test = len(data.X_train), len(data.X_test)
        assert data.X_train.shape == (n_train, d) and data.X_test.shape == (n_test, d)
        assert data.y_train.shape == (n_train,) and data.y_test.shape == (n_test,)
        for a in (data.X_train, data.y_train, data.X_test, data.y_test):
            assert a.dtype == np.float64 and a.flags.writeable
        assert n_train + n_test == n
        assert abs(n_test - n / 10) <= 1  # 10 % test rows


@pytest.mark.parametrize("name", list(SHAPES))
def test_split_s_tests_on_column_s_of_the_mask(name, raw):
    table, mask = raw[name]
    for split in (0, 4, 9):
        data = load_uci_regression(name, split=split)
        test = mask[:, split]
        # the rows of each part, in file order: train and test are complementary row sets
        np.testing.assert_array_equal(data.X_test, table[test, :-1])
        np.testing.assert_array_equal(data.y_test, table[test, -1])
        np.testing.assert_array_equal(data.X_train, table[~test, :-1])
        np.testing.assert_array_equal(data.y_train, table[~test, -1])
        # standardize=False: identity transform
        assert np.array_equal(data.x_mean, np.zeros(SHAPES[name][1]))
        assert np.array_equal(data.x_std, np.ones(SHAPES[name][1]))
        assert (data.y_mean, data.y_std) == (0.0, 1.0)


@pytest.mark.parametrize("name", list(SHAPES))
def test_the_ten_test_parts_partition_the_rows(name, raw):
    _, mask = raw[name]
    assert (mask.sum(axis=1) == 1).all()  # checked on the data, not assumed
    y_tests = [load_uci_regression(name, split=s).y_test for s in range(10)]
    y_all = np.sort(raw[name][0][:, -1])
    np.testing.assert_array_equal(np.sort(np.concatenate(y_tests)), y_all)


@pytest.mark.parametrize("name", list(SHAPES))
def test_standardize_uses_the_training_part(name, raw):
    table, mask = raw[name]
    split = 3
    test = mask[:, split]
    X_train, y_train = table[~test, :-1], table[~test, -1]
    data = load_uci_regression(name, split=split, standardize=True)
    np.testing.assert_allclose(data.x_mean, X_train.mean(axis=0), rtol=1e-12, atol=0)
    np.testing.assert_allclose(data.x_std, X_train.std(axis=0), rtol=1e-12)
    assert data.y_mean == pytest.approx(y_train.mean(), rel=1e-12)
    assert data.y_std == pytest.approx(y_train.std(), rel=1e-12)
    assert isinstance(data.y_mean, float) and isinstance(data.y_std, float)
    np.testing.assert_allclose(data.X_train.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(data.X_train.std(axis=0), 1.0, rtol=1e-10)
    assert abs(data.y_train.mean()) < 1e-10 and data.y_train.std() == pytest.approx(1.0)
    # the stored numbers map both parts back to the raw values
    scale = np.abs(table).max()
    np.testing.assert_allclose(
        data.y_test * data.y_std + data.y_mean, table[test, -1], atol=1e-13 * scale
    )
    np.testing.assert_allclose(
        data.X_test * data.x_std + data.x_mean, table[test, :-1], rtol=1e-12, atol=1e-13 * scale
    )
    np.testing.assert_allclose(
        data.y_train * data.y_std + data.y_mean, y_train, rtol=1e-12, atol=1e-13 * scale
    )


def test_a_column_constant_on_the_training_rows_stays_finite():
    # keggdirected's 8th input is -2.048e-05 on every row but one, a test row of split 2
    data = load_uci_regression("keggdirected", split=2, standardize=True)
    assert data.x_std[7] == 1.0 and data.x_mean[7] == -2.048e-05
    assert (data.X_train[:, 7] == 0.0).all()
    assert np.isfinite(data.X_test).all() and data.X_test[:, 7].max() == pytest.approx(1.0)
    # in the other splits the column varies a little and is standardised as usual
    other = load_uci_regression("keggdirected", split=0, standardize=True)
    assert other.x_std[7] < 0.01 and np.isfinite(other.X_train).all()


def test_results_are_frozen_fresh_copies():
    first = load_uci_regression("pol", split=1)
    assert dataclasses.is_dataclass(first) and not isinstance(first, tuple)
    assert [f.name for f in dataclasses.fields(first)] == [
        "X_train",
        "y_train",
        "X_test",
        "y_test",
        "name",
        "split",
        "x_mean",
        "x_std",
        "y_mean",
        "y_std",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.split = 2
    kept = first.X_train.copy()
    first.X_train[:] = 0.0
    first.y_test[:] = 0.0
    again = load_uci_regression("pol", split=1)
    np.testing.assert_array_equal(again.X_train, kept)
    assert again.y_test.any()


def test_names_in_any_case_and_integer_types():
    data = load_uci_regression("KEGGdirected", split=np.int64(3), standardize=np.bool_(False))
    assert data.name == "keggdirected" and data.split == 3 and type(data.split) is int


@pytest.mark.parametrize("bad", [None, 3, b"pol", ["pol"]])
def test_a_name_that_is_not_a_string(bad):
    with pytest.raises(TypeError, match="name must be a str, one of pol, elevators, bike"):
        load_uci_regression(bad)


@pytest.mark.parametrize("bad", ["boston", "", "kegg", "pol "])
def test_an_unknown_name_lists_the_five(bad):
    with pytest.raises(
        ValueError, match="choose one of pol, elevators, bike, protein, keggdirected"
    ):
        load_uci_regression(bad)


@pytest.mark.parametrize("bad", [-1, 10, 100])
def test_a_split_out_of_range(bad):
    with pytest.raises(ValueError, match=f"split must be an integer from 0 to 9, got {bad}"):
        load_uci_regression("pol", split=bad)


@pytest.mark.parametrize("bad", [1.0, True, np.bool_(True), "0", None, np.float64(2)])
def test_a_split_that_is_not_an_integer(bad):
    with pytest.raises(TypeError, match="split must be an integer from 0 to 9"):
        load_uci_regression("pol", split=bad)


@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0])
def test_standardize_must_be_a_bool(bad):
    with pytest.raises(TypeError, match="standardize must be a bool"):
        load_uci_regression("pol", standardize=bad)


def test_split_and_standardize_are_keyword_only():
    with pytest.raises(TypeError):
        load_uci_regression("pol", 1)


def test_catalog_and_provenance():
    names = [d.name for d in kd.catalog()]
    assert all(name in names for name in SHAPES)
    data = load_dataset("Protein")
    assert isinstance(data, RegressionSplit) and data.split == 0
    text = provenance("keggdirected")
    assert "load_uci_regression('keggdirected')" in text
    assert "treforevans/uci_datasets @ f0737523712fe66a1640e4b980b927e8490b58eb" in text
    assert "MIT" in text and "sha256" in text
    assert "uci_regression/keggdirected/data.csv.gz" in text


# ---------------------------------------------------------------- a copy of the files


@pytest.fixture
def pol_copy(tmp_path, monkeypatch):
    """A copy of SHA256SUMS and uci_regression/pol that the loader reads instead."""
    root = tmp_path / "data"
    (root / "uci_regression").mkdir(parents=True)
    shutil.copy(DATA / "SHA256SUMS", root)
    shutil.copytree(DATA / "uci_regression" / "pol", root / "uci_regression" / "pol")
    monkeypatch.setattr(_files, "_data_root", lambda: root)
    return root


def _replace(root, rel, data):
    """Write ``data`` (gzipped) to ``rel`` and record its checksum in SHA256SUMS."""
    payload = gzip.compress(data)
    (root / rel).write_bytes(payload)
    sums = root / "SHA256SUMS"
    lines = [ln for ln in sums.read_text().splitlines() if not ln.endswith("  " + rel)]
    lines.append(f"{hashlib.sha256(payload).hexdigest()}  {rel}")
    sums.write_text("\n".join(lines) + "\n")


def test_a_corrupt_copy_is_caught_even_after_a_load(pol_copy):
    assert load_uci_regression("pol").X_train.shape == (13500, 26)
    path = pol_copy / "uci_regression" / "pol" / "data.csv.gz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))  # same size: the mtime tells
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    with pytest.raises(ValueError, match=r"checksum mismatch for uci_regression/pol/data\.csv\.gz"):
        load_uci_regression("pol")


def test_a_missing_file_is_named(pol_copy):
    (pol_copy / "uci_regression" / "pol" / "test_mask.csv.gz").unlink()
    with pytest.raises(FileNotFoundError, match=r"uci_regression/pol/test_mask\.csv\.gz"):
        load_uci_regression("pol", split=2)


def _pol_rows(n):
    row = ",".join(["1.5"] * 27)
    return "\n".join([row] * n) + "\n"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (_pol_rows(3) + "1,2,x" + ",0" * 24 + "\n", r"data\.csv\.gz, line 4: 'x' is not a number"),
        (_pol_rows(3) + "1,2\n", r"data\.csv\.gz, line 4: expected 27 values, found 2"),
        (_pol_rows(2) + "nan" + ",1" * 26 + "\n", r"data\.csv\.gz, line 3: missing"),
        (_pol_rows(14999), r"data\.csv\.gz: expected 15000 rows, found 14999"),
        ("\n", r"data\.csv\.gz has no data rows"),
    ],
)
def test_a_damaged_table_names_the_file_and_line(pol_copy, text, match):
    _replace(pol_copy, "uci_regression/pol/data.csv.gz", text.encode())
    with pytest.raises(ValueError, match=match):
        load_uci_regression("pol")


@pytest.mark.parametrize(
    ("rows", "match"),
    [
        (["0,0,0,0,0,0,0,0,0,2"] * 15000, "only 0 and 1"),
        (["0,0,0,0,0,0,0,0,0,0"] * 15000, "both training and test rows"),
        (["1,0,0,0,0,0,0,0,0,0"] * 14999, r"test_mask\.csv\.gz: expected 15000 rows"),
    ],
)
def test_a_damaged_mask_is_refused(pol_copy, rows, match):
    _replace(pol_copy, "uci_regression/pol/test_mask.csv.gz", ("\n".join(rows) + "\n").encode())
    with pytest.raises(ValueError, match=match):
        load_uci_regression("pol")


def test_a_file_that_is_not_gzip(pol_copy):
    rel = "uci_regression/pol/data.csv.gz"
    payload = b"1,2,3\n"
    (pol_copy / rel).write_bytes(payload)
    sums = pol_copy / "SHA256SUMS"
    text = sums.read_text().replace(
        hashlib.sha256((DATA / rel).read_bytes()).hexdigest(), hashlib.sha256(payload).hexdigest()
    )
    sums.write_text(text)
    with pytest.raises(ValueError, match=r"data\.csv\.gz is not a readable gzip file"):
        load_uci_regression("pol")
