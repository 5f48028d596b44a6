"""``dask_client`` against addresses where no Dask scheduler answers (issue 28 §3).

Small TCP services of the test's own on loopback ports stand in for what a new user meets:
an ``http.server`` (or the dashboard's port by mistake) that never answers Dask's greeting,
one that answers with HTTP, one that sends garbage bytes, one that closes at once, and a
port where nothing listens. Each must give a ``ConnectionError`` naming the address within
about ``timeout`` seconds, leave no client, thread or event loop behind, and print nothing
when the interpreter exits.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

pytest.importorskip("dask.distributed")

from kernelkit.distributed import add_cluster_arguments, cluster_from_args, dask_client

#: Every call below is expected to end within about its ``timeout`` (2 s); a run that has
#: not ended after this many seconds is taken for a hang (generous: the machine is slow).
DEADLINE = 90.0

HTTP_REPLY = (
    b"HTTP/1.0 400 Bad Request\r\nServer: SimpleHTTP/0.6\r\nContent-Type: text/html\r\n"
    b"\r\n<html><body>Bad request syntax</body></html>\r\n"
)
GARBAGE = bytes(range(255, 191, -1))  # 64 bytes: a first "frame length" of ~2**64


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass  # the service's own log is not what the tests look at


class FakeService:
    """A TCP service on a free loopback port that is not a Dask scheduler.

    ``behaviour``: ``"silent"`` accepts and never answers, ``"http"`` reads the request
    and answers with an HTTP error (as a web server does), ``"garbage"`` sends bytes that
    are no protocol at all, ``"close"`` accepts and closes at once, ``"http.server"`` is
    Python's own ``http.server``, and ``"nothing"`` is a port bound but not listening
    (connections are refused).
    """

    def __init__(self, behaviour: str):
        self.behaviour = behaviour
        self._stop = threading.Event()
        self._connections: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._httpd: http.server.ThreadingHTTPServer | None = None
        if behaviour == "http.server":
            self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
            self._httpd.daemon_threads = True
            self.port = self._httpd.server_address[1]
            self._start(self._httpd.serve_forever, 0.05)
            return
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        if behaviour != "nothing":
            self._sock.listen(8)
            self._sock.settimeout(0.05)
            self._start(self._accept)

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def _start(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._connections.append(conn)
            self._start(self._answer, conn)

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        with contextlib.suppress(OSError):
            if self.behaviour == "close":
                conn.close()
            elif self.behaviour == "http":
                conn.recv(65536)
                conn.sendall(HTTP_REPLY)
                conn.close()
            elif self.behaviour == "garbage":
                conn.sendall(GARBAGE)
            # "silent": keep the connection open and say nothing

    def close(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        else:
            self._sock.close()
        for conn in self._connections:
            with contextlib.suppress(OSError):
                conn.close()
        for thread in self._threads:
            thread.join(5)


@contextlib.contextmanager
def fake_service(behaviour: str):
    service = FakeService(behaviour)
    try:
        yield service
    finally:
        service.close()


def call_with_deadline(func, deadline: float = DEADLINE):
    """``func()`` in a daemon thread: (its exception or None, seconds); a test failure
    when it has not returned after ``deadline`` seconds (a hang)."""
    outcome: dict = {}

    def target():
        t0 = time.monotonic()
        try:
            func()
        except BaseException as exc:  # reported to the test
            outcome["error"] = exc
        outcome["seconds"] = time.monotonic() - t0

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(deadline)
    if thread.is_alive():
        pytest.fail(f"still running after {deadline:g} s: a hang")
    return outcome.get("error"), outcome["seconds"]


def connect(address: str, timeout: float = 2) -> None:
    with dask_client(address, timeout=timeout):
        pass  # pragma: no cover - never reached: no scheduler answers


def event_loop_threads() -> int:
    """Dask runs each client's event loop in a thread of this name."""
    return sum(t.name == "IO loop" and t.is_alive() for t in threading.enumerate())


# What each message says after the address (the reason), by behaviour: one of these.
NO_ANSWER = "did not answer as a Dask scheduler"
NOT_DASK = "answered with something other than Dask's protocol"
REASONS = {
    "silent": (NO_ANSWER,),
    # http.server waits for a line: it answers (400) only if Dask's greeting holds a
    # newline byte (it holds the Python version: 3.10 is b"\x0a"), or once it is closed
    "http.server": (NO_ANSWER, NOT_DASK),
    "http": (NOT_DASK,),
    "garbage": (NOT_DASK,),
    "close": ("closed the connection", "could not reach"),  # depends on timing
    "nothing": ("could not reach the Dask scheduler",),
}


@pytest.mark.parametrize("behaviour", list(REASONS))
def test_no_scheduler_there_is_a_connection_error_within_the_timeout(behaviour):
    loops_before = event_loop_threads()
    with fake_service(behaviour) as service:
        error, _ = call_with_deadline(lambda: connect(service.address))
    # before: "silent" and "http.server" hung for good; "http" raised MemoryError (a
    # 3 EiB frame) and "garbage" ValueError, each leaving a half-started client behind
    assert isinstance(error, ConnectionError), repr(error)
    message = str(error)
    assert repr(service.address) in message and "Dask scheduler" in message, message
    assert any(reason in message for reason in REASONS[behaviour]), message
    assert "within 2 s" in message, message
    # nothing left running: no client's event loop, no probe
    time.sleep(0.2)
    assert event_loop_threads() <= loops_before
    assert not [t for t in threading.enumerate() if t.name.startswith("kernelkit-dask")]


SCRIPT = textwrap.dedent(
    """
    import importlib.util, sys, time
    spec = importlib.util.spec_from_file_location("cases", sys.argv[1])
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    from kernelkit.distributed import dask_client

    for case in sys.argv[2:]:
        scheme, _, behaviour = case.rpartition("+")
        with cases.fake_service(behaviour) as service:
            address = service.address.replace("tcp://", f"{scheme or 'tcp'}://")
            t0 = time.monotonic()
            try:
                with dask_client(address, timeout=2):
                    print(case, "connected")
            except Exception as exc:
                seconds = time.monotonic() - t0
                print(case, type(exc).__name__, f"{seconds:.1f}", flush=True)
    """
)


def test_nothing_is_left_to_complain_or_hang_at_interpreter_exit():
    """All the cases in one fresh interpreter: one ConnectionError line each, and an
    exit with nothing on stderr (before: it hung on the silent service, and the
    half-started clients printed ``Exception ignored in: Client.__del__ ...
    TimeoutError`` at exit)."""
    behaviours = ["http", "garbage", "close", "nothing", "silent", "http.server", "tls+nothing"]
    try:
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, __file__, *behaviours],
            capture_output=True,
            text=True,
            timeout=DEADLINE + 30 * len(behaviours),
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the interpreter hung: {exc}")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [[b, "ConnectionError"] for b in behaviours]
    assert "Exception ignored" not in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert out.stderr == ""


def test_a_client_that_fails_to_start_is_closed():
    """A ``tls://`` address goes straight to ``dask.distributed.Client`` (the question
    before it would need the TLS settings); without them the client fails to start, and
    is closed with its event loop (before: a TypeError, and a half-started client that
    printed ``Exception ignored ... TimeoutError`` at exit)."""
    loops_before = event_loop_threads()
    with fake_service("nothing") as service:
        address = service.address.replace("tcp://", "tls://")
        error, _ = call_with_deadline(lambda: connect(address))
    assert isinstance(error, ConnectionError), repr(error)
    assert f"could not connect to the Dask scheduler at {address!r}" in str(error)
    assert "TLS" in str(error)  # Dask's own reason
    time.sleep(0.2)
    assert event_loop_threads() <= loops_before


# ------------------------------------------------------------------ a real Dask cluster


@pytest.fixture(scope="module")
def cluster():
    """An in-process cluster on TCP: a scheduler and one worker with real addresses."""
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=":0"
    ) as cluster:
        yield cluster


def test_a_running_scheduler_still_connects(cluster):
    from kernelkit.distributed import map_tasks

    loops_before = event_loop_threads()
    with dask_client(cluster.scheduler_address, timeout=10) as client:
        assert client.scheduler.address == cluster.scheduler_address
        assert map_tasks(abs, [-1, 2], client=client) == [1, 2]
    assert client.status == "closed"
    time.sleep(0.2)
    assert event_loop_threads() <= loops_before


def test_a_worker_address_is_not_a_scheduler(cluster):
    (worker,) = cluster.scheduler.workers
    assert worker.startswith("tcp://")
    loops_before = event_loop_threads()
    error, _ = call_with_deadline(lambda: connect(worker, timeout=5))
    # before: TypeError "Worker.identity() got an unexpected keyword argument" and a
    # half-started client that complained at exit
    assert isinstance(error, ConnectionError), repr(error)
    assert repr(worker) in str(error) and "not a scheduler" in str(error)
    time.sleep(0.2)
    assert event_loop_threads() <= loops_before


def test_the_dashboard_port_by_mistake(cluster):
    dashboard = cluster.dashboard_link.split("://", 1)[1].split("/", 1)[0]
    error, _ = call_with_deadline(lambda: connect(f"tcp://{dashboard}"))
    # before: hung (the dashboard's web server waits for an HTTP request line)
    assert isinstance(error, ConnectionError), repr(error)
    assert "did not answer as a Dask scheduler" in str(error)


# ------------------------------------------------------------------ the arguments


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("nonsense", "missing port number"),
        ("tcp://127.0.0.1", "missing port number"),
        ("tcp://127.0.0.1:http", "invalid literal"),
        ("tcp://127.0.0.1:99999", "port 99999 is outside 1..65535"),
        ("tcp://127.0.0.1:0", "port 0 is outside 1..65535"),
        ("carrier-pigeon://loft:1", "unknown address scheme"),
    ],
)
def test_a_malformed_address_is_a_value_error_at_once(address, reason):
    loops_before = event_loop_threads()
    error, _ = call_with_deadline(lambda: connect(address))
    # before: "nonsense" left a half-started client that hung ~20 s at exit; a bad port
    # was an OverflowError or a wait for the whole timeout
    assert isinstance(error, ValueError), repr(error)
    assert str(error).startswith("scheduler must be the address of a Dask scheduler")
    assert repr(address) in str(error) and reason in str(error)
    time.sleep(0.2)
    assert event_loop_threads() <= loops_before


@pytest.mark.parametrize("bad", [b"tcp://127.0.0.1:8786", 8786, 3.5, ["tcp://a:1"]])
def test_a_scheduler_of_the_wrong_type_is_a_type_error(bad):
    with pytest.raises(TypeError, match="scheduler must be None, an address"):
        connect(bad)


@pytest.mark.parametrize("timeout", [1e300, 1e12])
def test_a_timeout_beyond_what_can_be_waited_for(timeout):
    with fake_service("nothing") as service:
        error, _ = call_with_deadline(lambda: connect(service.address, timeout=timeout))
    # before: Dask retried the refused connection for ~1e300 s: a hang
    assert isinstance(error, ValueError), repr(error)
    assert "timeout must be at most" in str(error)


def test_more_local_workers_than_memory_allows(monkeypatch):
    """Refused up front, before a single process starts (the cluster is a fake that
    records being asked for)."""
    import dask.distributed

    started = []

    def fake_cluster(*args, **kwargs):  # pragma: no cover - must not be reached
        started.append(kwargs)
        raise RuntimeError("a LocalCluster was started")

    monkeypatch.setattr(dask.distributed, "LocalCluster", fake_cluster)
    with pytest.raises(
        ValueError, match=r"dask_client\(n_workers=100000\): .* would need about .* more than"
    ):
        with dask_client(n_workers=100_000):
            pass  # pragma: no cover
    assert started == []


def test_cluster_options_of_the_wrong_type():
    with pytest.raises(TypeError, match=r"parser must be an argparse\.ArgumentParser"):
        add_cluster_arguments(None)
    with pytest.raises(TypeError, match=r"args must be an argparse\.Namespace"):
        with cluster_from_args(None):
            pass  # pragma: no cover
    with pytest.raises(TypeError, match=r"args must be an argparse\.Namespace"):
        with cluster_from_args({"scheduler": "tcp://127.0.0.1:8786"}):
            pass  # pragma: no cover


def test_a_malformed_scheduler_option_is_a_usage_error():
    from kernelkit.cli import UsageError

    parser = argparse.ArgumentParser()
    add_cluster_arguments(parser)
    args = parser.parse_args(["--scheduler", "nonsense"])
    with pytest.raises(UsageError, match=r"--scheduler must be the address of a Dask scheduler"):
        with cluster_from_args(args):
            pass  # pragma: no cover
