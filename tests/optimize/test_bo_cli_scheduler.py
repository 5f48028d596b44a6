"""``kernelkit bayesopt --scheduler ...`` when no Dask scheduler is there (issue 28 §3):
one line of error and an exit within the documented timeout, run as a user runs it (a
fresh interpreter: what happens at its exit counts)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

import pytest

pytest.importorskip("dask.distributed")

from kernelkit.distributed import DEFAULT_TIMEOUT

#: Generous: the documented timeout, the interpreter's start and Dask's import on a slow,
#: loaded machine. A run still going after this long is taken for a hang.
DEADLINE = DEFAULT_TIMEOUT + 110.0


def bayesopt(tmp_path, *argv):
    command = [sys.executable, "-m", "kernelkit", "bayesopt", "--n-calls", "3"]
    command += ["--out", str(tmp_path / "out"), *argv]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=DEADLINE)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"kernelkit bayesopt still running after {DEADLINE:g} s: {exc}")


def test_a_malformed_scheduler_is_one_line_and_exit_2(tmp_path):
    out = bayesopt(tmp_path, "--scheduler", "nonsense")
    # before: the line, then ~20 s of waiting and "Exception ignored in: <function
    # Client.__del__ ...> ... TimeoutError: timed out after 20 s." (exit status 1)
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("kernelkit: error: --scheduler must be the address of a Dask")
    assert "'nonsense' (missing port number" in lines[0]
    assert not (tmp_path / "out").exists()


@pytest.fixture
def silent_service():
    """A loopback port that accepts connections and never says a word."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.05)
    stop, held = threading.Event(), []

    def accept():
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        server.close()
        for conn in held:
            conn.close()


def test_a_service_that_never_answers_is_one_line_and_exit_1(tmp_path, silent_service):
    out = bayesopt(tmp_path, "--scheduler", silent_service)
    # before: a hang (Dask waits for the service's greeting without limit)
    assert out.returncode == 1, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(
        f"kernelkit: error: no Dask scheduler answered at '{silent_service}'"
    )
    assert f"within {DEFAULT_TIMEOUT:g} s" in lines[0]
