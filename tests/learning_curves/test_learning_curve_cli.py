"""``kernelkit learning-curve`` with tiny settings."""

from __future__ import annotations

import argparse
import functools
import math

import numpy as np
import pytest

from kernelkit import cli
from kernelkit.learning_curves.cli import register

TINY = [
    "--n-vertices",
    "60",
    "--n-graphs",
    "2",
    "--n-datasets",
    "2",
    "--population",
    "200",
    "--nus",
    "0.1",
    "1",
]


def run(capsys, tmp_path, *argv):
    """``kernelkit learning-curve TINY ARGV --out tmp_path/lc.png``."""
    code = cli.main(["learning-curve", *TINY, "--out", str(tmp_path / "lc.png"), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def table(out):
    """Header and rows (cells split on two or more spaces) of the printed table."""
    lines = out.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("---"))
    header = lines[rule - 1].split()
    rows = []
    for line in lines[rule + 1 :]:
        if not line or not line.lstrip()[0].isdigit():
            break
        rows.append(line.split())
    return header, rows


def numbers(row):
    """The floats of a row, ``±`` and its standard error kept as numbers too."""
    return [float(c) for c in row if c != "±"]


def test_register_adds_learning_curve_to_any_subparsers():
    parser = argparse.ArgumentParser(prog="kernelkit")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["learning-curve", "--graph", "er", "--degree", "3"])
    assert args.command == "learning-curve" and args.graph == "er" and args.degree == 3.0
    assert args.method == "cavity,simulation,eigen" and args.normalize == "global"
    assert callable(args.handler)


def test_learning_curve_is_found_by_the_kernelkit_command():
    assert "kernelkit.learning_curves.cli" in cli.area_cli_modules()
    assert "learning-curve" in cli.build_parser().format_help()


def test_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["learning-curve", "-h"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for opt in (
        "--graph",
        "--degree",
        "--exponent",
        "--lambda-m",
        "--a",
        "--p",
        "--noise",
        "--normalize",
        "--nus",
        "--method",
        "--n-vertices",
        "--n-graphs",
        "--n-datasets",
        "--population",
        "--out",
        "--seed",
        "--n-jobs",
    ):
        assert opt in out


def test_all_methods_on_regular_graphs(capsys, tmp_path):
    code, out, _ = run(capsys, tmp_path, "--method", "cavity,simulation,eigen")
    assert code == 0
    assert out.splitlines()[0].startswith("learning curve: random 3-regular graphs")
    assert "a=2, p=10, global normalisation; noise 0.01" in out
    header, rows = table(out)
    assert header[0] == "nu" and "cavity" in header and "simulation" in header
    assert "(graph)" in header and "(tree)" in header  # both eigenvalue approximations
    assert len(rows) == 2
    for row in rows:
        values = numbers(row)
        assert len(values) == 6  # nu, cavity, simulation ± stderr, eigen graph, eigen tree
        assert all(math.isfinite(v) for v in values)
        assert all(0 < v <= 1 for v in values[1:])
    # the error falls with nu in every column
    assert all(a > b for a, b in zip(numbers(rows[0])[1:], numbers(rows[1])[1:], strict=True))
    assert "time: cavity" in out and "simulation" in out.splitlines()[-2]
    assert f"plot written to {tmp_path / 'lc.png'}" in out
    assert (tmp_path / "lc.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("argv", "columns"),
    [
        (["--method", "simulation"], 3),  # nu, eps, stderr
        (["--method", "eigen", "--graph", "er"], 2),  # no tree spectrum off regular graphs
        (["--method", "cavity", "--graph", "er", "--normalize", "local"], 2),
        (["--method", "eigen", "--normalize", "local"], 2),  # tree column: global only
        (["--method", "simulation", "--graph", "power-law", "--a", "3"], 3),
    ],
)
def test_each_method_alone(capsys, tmp_path, argv, columns):
    code, out, _ = run(capsys, tmp_path, *argv)
    assert code == 0, out
    _, rows = table(out)
    assert len(rows) == 2
    for row in rows:
        values = numbers(row)
        assert len(values) == columns and all(math.isfinite(v) for v in values)
    assert (tmp_path / "lc.png").exists()


def test_simulation_column_equals_simulate(capsys, tmp_path):
    from kernelkit.graphs import random_regular_graph, random_walk_kernel
    from kernelkit.learning_curves import simulate

    code, out, _ = run(capsys, tmp_path, "--method", "simulation", "--seed", "7")
    assert code == 0
    _, rows = table(out)
    printed = np.array([numbers(r)[1:] for r in rows])  # (eps, stderr) per nu
    curve = simulate(
        functools.partial(random_regular_graph, 3, 60),
        functools.partial(random_walk_kernel, a=2.0, p=10, normalize="global"),
        0.01,
        [0.1, 1.0],
        n_graphs=2,
        n_datasets=2,
        random_state=7,
    )
    np.testing.assert_allclose(printed[:, 0], curve.epsilon, rtol=1e-4)
    np.testing.assert_allclose(printed[:, 1], curve.stderr, rtol=0.06)


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--a", "1"], "--a"),
        (["--a", "0.5"], "--a"),
        (["--p", "-1"], "--p"),
        (["--noise", "0"], "--noise"),
        (["--noise", "-0.1"], "--noise"),
        (["--nus", "-1", "1"], "--nus"),
        (["--method", "cavity,replica"], "--method"),
        (["--method", ""], "--method"),
        (["--degree", "2.5"], "--degree"),
        (["--degree", "0"], "--degree"),
        (["--degree", "3", "--n-vertices", "61"], "--degree"),  # V d odd
        (["--degree", "80"], "--degree"),  # d >= V
        (["--graph", "er", "--degree", "0"], "--degree"),
        (["--graph", "power-law", "--exponent", "1"], "--exponent"),
        (["--graph", "power-law", "--lambda-m", "0"], "--lambda-m"),
        (["--n-vertices", "1"], "--n-vertices"),
        (["--n-graphs", "0"], "--n-graphs"),
        (["--n-datasets", "0"], "--n-datasets"),
        (["--population", "1"], "--population"),
        (["--n-jobs", "0"], "--n-jobs"),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(capsys, tmp_path, argv, flag):
    code, _, err = run(capsys, tmp_path, *argv)
    assert code == 2
    assert err.startswith("kernelkit: error: ") and flag in err
    assert not (tmp_path / "lc.png").exists()


def test_unknown_graph_is_refused_by_argparse(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["learning-curve", "--graph", "tree"])
    assert exc.value.code == 2
    assert "--graph" in capsys.readouterr().err
