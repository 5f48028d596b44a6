"""The ``kernelkit`` command: help, datasets, reproduce, tour, and error handling."""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap

import pytest

from kernelkit import __version__, cli
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


def _subcommands(parser):
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_subcommands_in_a_stable_order():
    # the built-in ones first, then each area's, areas in alphabetical order
    assert cli.area_cli_modules() == sorted(cli.area_cli_modules())
    assert {"kernelkit.graphs.cli", "kernelkit.optimize.cli"} <= set(cli.area_cli_modules())
    names = _subcommands(cli.build_parser())
    assert names[:3] == ["datasets", "tour", "reproduce"]
    assert names.index("graph-classify") < names.index("bayesopt")
    assert names == _subcommands(cli.build_parser())


@pytest.fixture
def fake_area(tmp_path, monkeypatch):
    """A package ``kernelkit.toyarea`` (on a temporary path) whose ``cli`` module has a
    public ``register``: found without any change to ``kernelkit/cli.py``."""
    import kernelkit

    folder = tmp_path / "toyarea"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "cli.py").write_text(
        textwrap.dedent(
            """
            def register(subparsers):
                p = subparsers.add_parser("toy-command", help="a command of a fake area")
                p.add_argument("--times", type=int, default=1)
                p.set_defaults(handler=_run)


            def _run(args):
                from kernelkit.cli import UsageError

                if args.times < 1:
                    raise UsageError(f"--times must be >= 1, got {args.times}")
                if args.times > 99:
                    exc = ValueError("too many")
                    exc.add_note("in toy: task 3 of 5, item 7")
                    raise exc
                print("toy " * args.times)
                return 0
            """
        )
    )
    monkeypatch.setattr(kernelkit, "__path__", [*kernelkit.__path__, str(tmp_path)])
    yield folder
    for name in ("kernelkit.toyarea.cli", "kernelkit.toyarea"):
        sys.modules.pop(name, None)
    if hasattr(kernelkit, "toyarea"):
        delattr(kernelkit, "toyarea")


def test_an_area_cli_module_with_register_is_discovered(fake_area, capsys):
    assert cli.area_cli_modules()[-1] == "kernelkit.toyarea.cli"
    assert _subcommands(cli.build_parser())[-1] == "toy-command"
    code, out, _ = run(capsys, "toy-command", "--times", "2")
    assert code == 0 and out.split() == ["toy", "toy"]
    # an area raises the public UsageError: one line, exit status 2
    code, _, err = run(capsys, "toy-command", "--times", "0")
    assert code == 2 and err.strip() == "kernelkit: error: --times must be >= 1, got 0"
    # other errors: one line, exit status 1, with the notes that name a sweep's task
    code, _, err = run(capsys, "toy-command", "--times", "100")
    assert code == 1 and err.strip() == "kernelkit: error: too many (in toy: task 3 of 5, item 7)"


def test_an_area_cli_module_without_register_is_an_error(fake_area):
    (fake_area / "cli.py").write_text("def _add_toy(subparsers):\n    pass\n")
    with pytest.raises(TypeError, match=r"kernelkit.toyarea.cli defines no register\(subparsers\)"):
        cli.build_parser()


def test_discovery_imports_only_areas_with_a_cli_module(fake_area):
    (fake_area / "cli.py").unlink()
    assert "kernelkit.toyarea.cli" not in cli.area_cli_modules()
    cli.build_parser()
    assert "kernelkit.toyarea" not in sys.modules


def test_usage_error_is_public_and_cli_names_no_area():
    import inspect
    import re

    assert "UsageError" in cli.__all__ and issubclass(cli.UsageError, Exception)
    source = inspect.getsource(cli)
    assert not re.search(r"kernelkit\.\w+\.cli|_add_graph|_add_bayesopt", source)


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
    code, _, err = run(capsys, "datasets", "show", "no-such-data")
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


@pytest.fixture
def toy_experiment():
    """A registered experiment that draws a figure in milliseconds (the real experiments
    have their own tests)."""
    from kernelkit import experiments
    from kernelkit.plotting import new_figure, save_figure

    experiments.names()
    saved = dict(experiments._REGISTRY)

    @experiments.register("toy", title="A toy", source="nowhere")
    def run(quick, out, random_state):
        fig, ax = new_figure()
        ax.plot([0, 1], [random_state, 1])
        return {"headline": f"toy quick={quick}", "figures": [save_figure(fig, out / "t.png")]}

    @experiments.register("toy-broken", title="Broken", source="nowhere")
    def broken(quick, out, random_state):
        raise RuntimeError("boom")

    yield
    experiments._REGISTRY.clear()
    experiments._REGISTRY.update(saved)


def test_tour_writes_report_with_a_figure(tmp_path, capsys, toy_experiment):
    code, out, _ = run(capsys, "tour", "--only", "toy", "--out", str(tmp_path))
    assert code == 0
    assert "toy quick=True" in out
    index = (tmp_path / "index.html").read_text()
    assert '<img src="toy/t.png"' in index
    assert (tmp_path / "toy" / "t.png").stat().st_size > 1000
    assert (tmp_path / "toy" / "results.json").exists()


def test_tour_reports_a_failing_experiment_and_goes_on(tmp_path, capsys, toy_experiment):
    code, out, err = run(capsys, "tour", "--only", "toy-broken", "toy", "--out", str(tmp_path))
    assert code == 1
    assert "FAILED: RuntimeError: boom" in out
    assert "toy quick=True" in out  # the next experiment still ran
    assert "1 experiment(s) failed: toy-broken" in err


def test_reproduce_writes_results_and_report(tmp_path, capsys, toy_experiment):
    code, out, _ = run(capsys, "reproduce", "toy", "--out", str(tmp_path), "--seed", "3")
    assert code == 0
    assert "toy quick=False" in out
    assert (tmp_path / "index.html").exists()


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


def test_tour_table_wraps_a_long_headline_without_cutting_it(tmp_path, capsys):
    from kernelkit import experiments

    experiments.names()
    saved = dict(experiments._REGISTRY)
    words = [f"number{i}={i / 7:.6f}" for i in range(25)]

    @experiments.register("toy-long", title="Long", source="nowhere")
    def run(quick, out, random_state):
        return {"headline": " ".join(words)}

    try:
        code, out, _ = run_cli(capsys, "tour", "--only", "toy-long", "--out", str(tmp_path))
    finally:
        experiments._REGISTRY.clear()
        experiments._REGISTRY.update(saved)
    assert code == 0 and "…" not in out
    table = out.split("seconds", 1)[1].split("total", 1)[0]
    assert all(w in table for w in words)  # every number is printed, in order
    assert " ".join(table.split()).find(" ".join(words[:3])) >= 0
    rule, first, *continued = [line for line in table.splitlines() if line.strip()]
    assert rule.startswith("---") and first.startswith("toy-long") and continued
    column = first.index(words[0])
    for line in continued:  # continuation lines: blank name column, text in the headline's
        assert line[:column].strip() == "" and line[column] != " "
        assert len(line) <= column + 72


run_cli = run
