"""``kernelkit graph-classify`` on MUTAG with few folds."""

from __future__ import annotations

import argparse
import re

import pytest

from kernelkit import cli
from kernelkit.graphs.cli import register


def run(capsys, *argv):
    """``kernelkit graph-classify ARGV`` through ``kernelkit.cli.main``."""
    code = cli.main(["graph-classify", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_register_adds_graph_classify_to_any_subparsers():
    parser = argparse.ArgumentParser(prog="kernelkit")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["graph-classify", "--kernel", "vertex", "--folds", "2"])
    assert args.command == "graph-classify" and args.kernel == "vertex" and args.n_iter is None
    assert callable(args.handler)


def test_graph_classify_is_found_by_the_kernelkit_command():
    assert "kernelkit.graphs.cli" in cli.area_cli_modules()
    help_text = cli.build_parser().format_help()
    assert "graph-classify" in help_text


def test_graph_classify_mutag_wl(capsys):
    code, out, _ = run(
        capsys,
        "--dataset",
        "MUTAG",
        "--kernel",
        "wl",
        "--n-iter",
        "2",
        "--folds",
        "3",
        "--C",
        "1",
        "10",
    )
    assert code == 0
    assert "MUTAG: 188 graphs" in out
    assert "n_iter in 0..2" in out
    assert re.search(r"fold  1: test accuracy .* \(n_iter=\d C=", out), out
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
    # before: --iterations ignored silently for the vertex kernel; now a usage error (exit 2)
    code, out, err = run(capsys, "--kernel", "vertex", "--n-iter", "3", "--folds", "2")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "--n-iter applies to the WL kernels (wl, wl-final) only" in err


def test_graph_classify_has_no_iterations_alias(capsys):
    # the glossary: the depth is --n-iter only
    with pytest.raises(SystemExit) as exc:
        run(capsys, "--kernel", "wl", "--iterations", "2")
    assert exc.value.code == 2
    assert "unrecognized arguments: --iterations" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["graph-classify", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--n-iter N_ITER" in help_text and "n_iter in 0..N_ITER" in help_text
    assert "--iterations" not in help_text and " h " not in help_text


def test_graph_classify_says_what_it_timed_and_how_it_selected(capsys):
    code, out, _ = run(
        capsys, "--kernel", "wl", "--n-iter", "1", "--folds", "2", "--inner-folds", "2"
    )
    assert code == 0
    assert "selection by inner stratified 2-fold CV of each training fold: n_iter in 0..1" in out
    last = out.strip().splitlines()[-1]
    # before: "(kernel 0.0 s, total 0.1 s)"; now each part in units that show its size
    assert re.search(
        rf"\(loading {_DURATION}, kernel matrices \(n_iter = 0\.\.1\) {_DURATION}, "
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
        (["--n-iter", "-1"], "--n-iter must be >= 0, got -1"),
        (["--folds", "1"], "--folds"),
        (["--C", "0"], "--C"),
        (["--C", "nan"], "--C"),
        (["--inner-folds", "0"], "--inner-folds"),
        (["--folds", "70"], "more than the smallest class of MUTAG"),
    ],
)
def test_graph_classify_bad_numbers_are_usage_errors(capsys, argv, message):
    # exit status 2, as argparse's own errors and the built-in commands' usage errors
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err
    assert err.startswith("kernelkit: error:") and len(err.strip().splitlines()) == 1


def test_graph_classify_unknown_kernel(capsys):
    with pytest.raises(SystemExit):
        run(capsys, "--kernel", "random-walk")


def test_kernel_names_match_the_classifier():
    from kernelkit.graphs import classify
    from kernelkit.graphs.cli import KERNELS

    assert KERNELS == classify.KERNELS


def test_the_command_line_starts_without_the_heavy_imports():
    # every `kernelkit` call discovers and builds all subparsers: no networkx / SciPy /
    # scikit-learn then
    import subprocess
    import sys

    code = (
        "import sys; from kernelkit.cli import build_parser; p = build_parser(); "
        "assert 'graph-classify' in p.format_help(); "
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
