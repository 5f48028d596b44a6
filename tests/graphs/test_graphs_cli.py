"""``kernelkit graph-classify`` on MUTAG with few folds."""

from __future__ import annotations

import argparse
import re

import pytest

from kernelkit import cli
from kernelkit.graphs.cli import _add_graph_classify


def run(capsys, *argv):
    """Through ``kernelkit.cli.main`` once wired into COMMANDS, else a bare parser."""
    if _add_graph_classify in cli.COMMANDS:
        code = cli.main(["graph-classify", *argv])
    else:
        parser = argparse.ArgumentParser(prog="kernelkit")
        _add_graph_classify(parser.add_subparsers())
        args = parser.parse_args(["graph-classify", *argv])
        try:
            code = args.handler(args)
        except ValueError as exc:
            print(f"kernelkit: error: {exc}", file=__import__("sys").stderr)
            code = 1
    out, err = capsys.readouterr()
    return code, out, err


def test_graph_classify_mutag_wl(capsys):
    code, out, _ = run(
        capsys,
        "--dataset",
        "MUTAG",
        "--kernel",
        "wl",
        "--iterations",
        "2",
        "--folds",
        "3",
        "--C",
        "1",
        "10",
    )
    assert code == 0
    assert "MUTAG: 188 graphs" in out
    assert "h in 0..2" in out
    assert out.count("fold ") == 3
    last = out.strip().splitlines()[-1]
    assert last.startswith("accuracy ") and "±" in last and "over 3 folds" in last
    acc = float(last.split()[1])
    assert 70 < acc <= 100


def test_graph_classify_tu_folder_and_base_kernel(capsys):
    from kernelkit.datasets import _files

    folder = _files.data_path("tu/MUTAG/MUTAG_A.txt").parent
    code, out, _ = run(
        capsys, "--dataset", str(folder), "--kernel", "vertex", "--folds", "2", "--C", "1"
    )
    assert code == 0
    assert "MUTAG: 188 graphs" in out and "kernel vertex" in out


_DURATION = r"\d+(\.\d+)? (ms|s)"


def test_graph_classify_flag_that_does_not_apply_is_refused(capsys):
    # before: --iterations ignored silently for the vertex kernel
    for flag in ("--iterations", "--n-iter"):
        code, out, err = run(capsys, "--kernel", "vertex", flag, "3", "--folds", "2")
        assert code == 1 and out == ""
        assert len(err.strip().splitlines()) == 1
        assert "--n-iter/--iterations applies to the WL kernels (wl, wl-final) only" in err


def test_graph_classify_says_what_it_timed_and_how_it_selected(capsys):
    code, out, _ = run(
        capsys, "--kernel", "wl", "--n-iter", "1", "--folds", "2", "--inner-folds", "2"
    )
    assert code == 0
    assert "selection by inner stratified 2-fold CV of each training fold: h in 0..1" in out
    last = out.strip().splitlines()[-1]
    # before: "(kernel 0.0 s, total 0.1 s)"; now each part in units that show its size
    assert re.search(
        rf"\(loading {_DURATION}, kernel matrices \(h = 0\.\.1\) {_DURATION}, "
        rf"nested CV {_DURATION}\)$",
        last,
    ), last
    assert "0.0 s" not in last


def _unlabelled_mutag(tmp_path):
    from kernelkit.datasets import _files

    src = _files.data_path("tu/MUTAG/MUTAG_A.txt").parent
    folder = tmp_path / "PLAIN"
    folder.mkdir()
    for role in ("A", "graph_indicator", "graph_labels"):
        (folder / f"PLAIN_{role}.txt").write_bytes((src / f"MUTAG_{role}.txt").read_bytes())
    return folder


def test_graph_classify_on_a_folder_without_labels_says_it_uses_degrees(capsys, tmp_path):
    folder = _unlabelled_mutag(tmp_path)
    code, out, _ = run(capsys, "--dataset", str(folder), "--kernel", "edge", "--folds", "2")
    assert code == 0
    first = out.splitlines()[0]
    assert "PLAIN: 188 graphs" in first
    assert "node degrees (the dataset has no node labels)" in first
    assert "edge types: pairs of endpoint labels (the dataset has no edge labels)" in first
    assert ", kernel matrix " in out.strip().splitlines()[-1]


def test_graph_classify_unknown_dataset(capsys, tmp_path):
    code, _, err = run(capsys, "--dataset", str(tmp_path / "nope"), "--folds", "2")
    assert code == 1
    assert "neither a packaged TU dataset" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--iterations", "-1"], "--iterations"),
        (["--folds", "1"], "--folds"),
        (["--C", "0"], "--C"),
        (["--C", "nan"], "--C"),
        (["--inner-folds", "0"], "--inner-folds"),
        (["--folds", "70"], "more than the smallest class of MUTAG"),
    ],
)
def test_graph_classify_bad_numbers(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 1 and message in err


def test_graph_classify_unknown_kernel(capsys):
    with pytest.raises(SystemExit):
        run(capsys, "--kernel", "random-walk")


def test_kernel_names_match_the_classifier():
    from kernelkit.graphs import classify
    from kernelkit.graphs.cli import KERNELS

    assert KERNELS == classify.KERNELS


def test_the_command_line_starts_without_the_heavy_imports():
    # every `kernelkit` call builds all subparsers: no networkx / SciPy / scikit-learn then
    import subprocess
    import sys

    code = (
        "import sys; from kernelkit.cli import main; "
        "print(*(m in sys.modules for m in ('networkx', 'scipy', 'sklearn')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


def test_lazy_package_exports_resolve_and_reject_unknown_names():
    import kernelkit.graphs as graphs

    assert graphs.wl_kernel is __import__("kernelkit.graphs.features").graphs.features.wl_kernel
    assert set(graphs.__all__) <= set(dir(graphs))
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        graphs.nope  # noqa: B018
