"""The ``kernelkit bayesopt`` subcommand.

``test_bayesopt_through_kernelkit_main`` needs ``_add_bayesopt`` wired into
``kernelkit.cli.COMMANDS``; the other tests build a parser around it directly.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from kernelkit.cli import main
from kernelkit.optimize import acquisition_names, function_names
from kernelkit.optimize.cli import ACQUISITIONS, _add_bayesopt


def _parse(argv):
    parser = argparse.ArgumentParser(prog="kernelkit")
    _add_bayesopt(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_bayesopt_1d_writes_convergence_and_step_figures(tmp_path, capsys):
    args = _parse(
        [
            "bayesopt",
            "--function",
            "forrester",
            "--iterations",
            "7",
            "--initial",
            "4",
            "--out",
            str(tmp_path),
            "--xi",
            "0.01",
        ]
    )
    assert args.handler(args) == 0
    out = capsys.readouterr().out
    assert "best x = [" in out and "regret" in out
    assert (tmp_path / "convergence.png").exists()
    assert sorted(p.name for p in tmp_path.glob("step_*.png")) == [
        "step_004.png",
        "step_005.png",
        "step_006.png",
    ]


def test_bayesopt_2d_no_refit(tmp_path, capsys):
    args = _parse(
        [
            "bayesopt",
            "--function",
            "branin",
            "--iterations",
            "6",
            "--no-refit",
            "--acquisition",
            "pi",
            "--seed",
            "3",
            "--out",
            str(tmp_path),
        ]
    )
    assert args.handler(args) == 0
    assert "branin: 6 evaluations (5 initial), acquisition pi, seed 3" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["convergence.png"]


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--function", "nope"], "unknown test function 'nope'"),
        (["--acquisition", "nope"], "unknown acquisition 'nope'"),
        (["--iterations", "-2"], "--iterations must be >= 0"),
        (["--initial", "0"], "--initial must be >= 1"),
    ],
)
def test_bayesopt_bad_arguments(argv, match, tmp_path):
    args = _parse(["bayesopt", "--out", str(tmp_path), *argv])
    with pytest.raises(ValueError, match=match):
        args.handler(args)


def test_help_lists_every_function_and_acquisition(capsys):
    with pytest.raises(SystemExit):
        _parse(["bayesopt", "--help"])
    out = "".join(capsys.readouterr().out.split())  # argparse wraps lines at hyphens
    for name in function_names():
        assert name in out
    assert set(ACQUISITIONS) == set(acquisition_names())


def test_building_the_parser_is_cheap():
    # the subcommand is added for every `kernelkit` call: no SciPy / scikit-learn import
    code = (
        "import sys, argparse; from kernelkit.optimize.cli import _add_bayesopt; "
        "_add_bayesopt(argparse.ArgumentParser().add_subparsers()); "
        "print('sklearn' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_bayesopt_through_kernelkit_main(tmp_path, capsys):
    code = main(
        [
            "bayesopt",
            "--function",
            "forrester",
            "--iterations",
            "6",
            "--initial",
            "5",
            "--out",
            str(tmp_path),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "forrester: 6 evaluations" in out
    code = main(["bayesopt", "--function", "nope", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("kernelkit: error: unknown test function 'nope'")
