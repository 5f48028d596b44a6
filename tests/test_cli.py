"""The ``kernelkit`` command: help, datasets, reproduce, tour, and error handling."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kernelkit import __version__
from kernelkit.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_help_lists_subcommands(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for cmd in ("datasets", "tour", "reproduce"):
        assert cmd in out


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_no_command_prints_help_and_fails(capsys):
    code, out, _ = run(capsys)
    assert code == 2
    assert "usage" in out


def test_datasets_list(capsys):
    code, out, _ = run(capsys, "datasets", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["name", "kind", "shape", "source"]
    for name in ("MUTAG", "NCI1", "NCI109", "EXP", "mnist", "wine", "classic3"):
        assert any(line.split()[0].lower() == name.lower() for line in lines[2:]), name


def test_datasets_show(capsys):
    code, out, _ = run(capsys, "datasets", "show", "MUTAG")
    assert code == 0
    assert "graph2vec" in out  # the repository the files were copied from


def test_datasets_show_unknown_fails_with_one_line(capsys):
    code, out, err = run(capsys, "datasets", "show", "no-such-data")
    assert code == 1
    assert err.startswith("kernelkit: error:")
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_reproduce_list(capsys):
    code, out, _ = run(capsys, "reproduce", "--list")
    assert code == 0
    assert "krr-wine" in out


def test_reproduce_unknown_experiment(capsys):
    code, _, err = run(capsys, "reproduce", "no-such-experiment")
    assert code == 1
    assert "unknown experiment 'no-such-experiment'" in err
    assert "krr-wine" in err  # the message lists what exists


def test_reproduce_without_name_is_a_usage_error(capsys):
    code, _, err = run(capsys, "reproduce")
    assert code == 2
    assert "NAME or --list" in err


def test_debug_shows_the_traceback():
    with pytest.raises(ValueError, match="unknown experiment"):
        main(["--debug", "reproduce", "no-such-experiment"])


def test_tour_writes_report_with_a_figure(tmp_path, capsys):
    code, out, _ = run(capsys, "tour", "--only", "krr-wine", "--out", str(tmp_path))
    assert code == 0
    assert "krr-wine" in out and "test RMSE" in out
    index = (tmp_path / "index.html").read_text()
    assert '<img src="krr-wine/krr_wine.png"' in index
    assert (tmp_path / "krr-wine" / "krr_wine.png").stat().st_size > 1000
    assert (tmp_path / "krr-wine" / "results.json").exists()


def test_tour_unknown_experiment_fails(capsys, tmp_path):
    code, _, err = run(capsys, "tour", "--only", "nope", "--out", str(tmp_path))
    assert code == 1
    assert "unknown experiment" in err


def test_entry_point_runs_as_module():
    proc = subprocess.run(
        [sys.executable, "-m", "kernelkit", "reproduce", "no-such-experiment"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("kernelkit: error:")
    assert "Traceback" not in proc.stderr
