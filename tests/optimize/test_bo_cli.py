"""The ``kernelkit bayesopt`` subcommand.

``test_bayesopt_through_kernelkit_main`` goes through ``kernelkit.cli.main``, which finds
:func:`kernelkit.optimize.cli.register`; the other tests build a parser around it directly.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from kernelkit.cli import UsageError, main
from kernelkit.optimize import acquisition_names, function_names
from kernelkit.optimize.cli import ACQUISITIONS, register


def _parse(argv):
    parser = argparse.ArgumentParser(prog="kernelkit")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_bayesopt_1d_writes_convergence_and_step_figures(tmp_path, capsys):
    args = _parse(
        [
            "bayesopt",
            "--function",
            "forrester",
            "--n-calls",
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
            "--n-calls",
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
    out = capsys.readouterr().out
    assert "branin: 6 evaluations (5 initial design, 1 model-guided), acquisition pi, seed 3" in out
    assert [p.name for p in tmp_path.iterdir()] == ["convergence.png"]


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--function", "nope"], "unknown test function 'nope'"),
        (["--acquisition", "nope"], "unknown acquisition 'nope'"),
        (["--n-calls", "-2"], "--n-calls must be >= 1"),
        (["--n-calls", "0"], r"--n-calls must be >= 1 \(evaluations in total"),
        (["--initial", "0"], "--initial must be >= 1"),
    ],
)
def test_bayesopt_bad_arguments(argv, match, tmp_path):
    args = _parse(["bayesopt", "--out", str(tmp_path), *argv])
    with pytest.raises(UsageError, match=match):
        args.handler(args)
    assert not any(tmp_path.iterdir())  # refused before anything ran


def test_the_old_iterations_flag_is_gone(capsys):
    # the glossary: objective evaluations of Bayesian optimisation are n_calls (--n-calls)
    with pytest.raises(SystemExit):
        _parse(["bayesopt", "--iterations", "7"])
    assert "unrecognized arguments: --iterations" in capsys.readouterr().err
    assert _parse(["bayesopt", "--n-calls", "7"]).n_calls == 7


def test_fewer_calls_than_the_initial_design_says_what_ran(tmp_path, capsys):
    # it printed "3 evaluations (5 initial)": 3 evaluations ran, all from the design
    args = _parse(["bayesopt", "--function", "branin", "--n-calls", "3", "--out", str(tmp_path)])
    assert args.handler(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0] == "branin: 3 evaluations (3 initial design, 0 model-guided), acquisition ei, seed 0"
    )
    assert out[1].startswith("note: the initial design has 5 points, so no evaluation was guided")
    assert "--n-calls > 5" in out[1]


def test_printed_counts_are_those_of_run(tmp_path, capsys):
    from kernelkit.optimize import BayesianOptimizer, get_function

    f = get_function("forrester")
    res = BayesianOptimizer(f, f.bounds, n_initial=4, random_state=2).run(7)
    n_model = res.source.count("acquisition") + res.source.count("greedy")
    assert (res.source.count("initial"), n_model) == (4, 3)
    argv = ["--function", "forrester", "--n-calls", "7", "--initial", "4", "--seed", "2"]
    args = _parse(["bayesopt", *argv, "--out", str(tmp_path)])
    assert args.handler(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("forrester: 7 evaluations (4 initial design, 3 model-guided),")
    assert not any(line.startswith("note:") for line in out)
    assert f"best f = {res.y_best:.10g}" in out[2]


def test_n_calls_zero_is_refused_by_the_command(tmp_path, capsys):
    # it exited 0 and printed x = [nan, nan]
    code = main(["bayesopt", "--n-calls", "0", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""  # a usage error, exit status 2 as argparse's own
    assert err.startswith("kernelkit: error: --n-calls must be >= 1") and err.count("\n") == 1
    assert not any(tmp_path.iterdir())


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
        "import sys, argparse; from kernelkit.optimize.cli import register; "
        "register(argparse.ArgumentParser().add_subparsers()); "
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
            "--n-calls",
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
    assert code == 2 and err.startswith("kernelkit: error: unknown test function 'nope'")
