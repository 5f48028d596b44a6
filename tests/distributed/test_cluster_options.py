"""``--scheduler`` / ``--n-workers`` on the sweep commands, and an unreachable scheduler
reported (not waited for forever)."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("dask.distributed")

from kernelkit import cli
from kernelkit.distributed import dask_client, options

TINY_CURVE = [
    "learning-curve",
    "--method",
    "simulation",
    "--n-vertices",
    "30",
    "--n-graphs",
    "2",
    "--n-datasets",
    "2",
    "--nus",
    "0.5",
    "2",
]


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_unreachable_scheduler_is_a_connection_error_not_a_hang():
    t0 = time.perf_counter()
    with pytest.raises(ConnectionError) as info:
        with dask_client("tcp://127.0.0.1:9", timeout=2):
            pass  # pragma: no cover - never reached
    assert time.perf_counter() - t0 < 30  # generous: the point is that it returns
    message = str(info.value)
    assert "could not reach the Dask scheduler at 'tcp://127.0.0.1:9' within 2 s" in message
    assert "dask scheduler" in message


@pytest.mark.parametrize("command", [TINY_CURVE, ["graph-classify", "--folds", "2"]])
def test_both_options_exit_2(capsys, tmp_path, command):
    code, out, err = run(capsys, *command, "--scheduler", "tcp://127.0.0.1:9", "--n-workers", "2")
    assert code == 2 and out == ""
    assert "--scheduler and --n-workers exclude each other" in err


@pytest.mark.parametrize("command", [TINY_CURVE, ["graph-classify", "--folds", "2"]])
def test_no_workers_exit_2(capsys, command):
    code, out, err = run(capsys, *command, "--n-workers", "0")
    assert code == 2 and out == ""
    assert "--n-workers must be at least 1, got 0" in err


def test_cluster_options_need_the_simulation(capsys):
    code, _, err = run(capsys, "learning-curve", "--method", "cavity", "--n-workers", "2")
    assert code == 2
    assert "apply to --method simulation only" in err


def test_unreachable_scheduler_from_the_command_line(capsys, monkeypatch):
    real = options.dask_client  # with a timeout of 2 s, not 10

    monkeypatch.setattr(options, "dask_client", lambda *a, **kw: real(*a, **{**kw, "timeout": 2}))
    code, _, err = run(capsys, *TINY_CURVE, "--scheduler", "tcp://127.0.0.1:9")
    assert code == 1
    assert "could not reach the Dask scheduler" in err


def test_learning_curve_on_a_local_cluster_prints_the_dashboard(capsys, tmp_path):
    out_png = ["--out", str(tmp_path / "lc.png")]
    code, here, _ = run(capsys, *TINY_CURVE, *out_png)
    assert code == 0
    code, there, err = run(capsys, *TINY_CURVE, *out_png, "--n-workers", "2")
    assert code == 0, err
    assert "Dask (local cluster, 2 workers); dashboard: http" in there

    def table(out):
        lines = out.splitlines()
        rule = next(i for i, line in enumerate(lines) if line.startswith("---"))
        return lines[rule - 1 : rule + 3]

    assert table(there) == table(here)  # the same numbers, computed on the cluster
