"""Where the work runs: no Dask, a ``LocalCluster`` started for the user, or a running cluster.

:func:`dask_client` is the one place kernelkit opens a :class:`dask.distributed.Client`.
Everything that can run on a cluster (the sweeps of :mod:`kernelkit.distributed.sweeps`,
batch Bayesian optimisation) takes a ``client`` argument: ``None`` runs in this process
without Dask, a ``Client`` runs there. The same code runs unchanged on a laptop's
``LocalCluster`` and on a real cluster's scheduler (``Client("tcp://host:8786")``).

Before a ``Client`` is opened on an address, kernelkit asks whoever listens there who it is
(Dask's own comm handshake and the ``identity`` call, on an event loop of its own, under
one deadline): ``dask.distributed.Client`` itself waits without limit for a service that
accepts the connection but never greets (an ``http.server``, the dashboard's port), reads
the first 8 bytes of an HTTP answer as a frame length (``MemoryError: Unable to allocate
3.07 EiB``), and leaves a half-started client whose ``__del__`` hangs at exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import numbers
import re
import threading
from collections.abc import Iterator
from typing import Any

from kernelkit._dask import DASK_HINT

__all__ = ["DEFAULT_TIMEOUT", "dask_client", "import_distributed"]

#: Seconds to wait for a scheduler before giving up with an error.
DEFAULT_TIMEOUT = 10.0
#: The longest ``timeout`` that can be waited for (``threading.TIMEOUT_MAX``, about 292
#: years on Linux): a longer one is an error, not an overflow deep inside.
_MAX_TIMEOUT = threading.TIMEOUT_MAX
#: A local worker process needs at least this much memory (a bare Dask worker is about
#: 60 MiB, before any task imports NumPy or SciPy): ``n_workers`` beyond the machine's
#: memory at this rate are refused before any process starts.
_WORKER_BYTES = 64 * 2**20
#: Address schemes whose services are asked who they are before a client is opened; the
#: others (``tls``, ``ucx``, ``inproc``) go straight to ``dask.distributed.Client``,
#: whose security settings the question could not reproduce.
_PROBED_SCHEMES = ("tcp", "ws")
#: Seconds beyond ``timeout`` that the question waits, so that Dask's own connection
#: deadline (which says that nothing could be reached) comes first when nothing accepts.
_GRACE = 1.0
#: How an address is written, for error messages.
_ADDRESS_EXAMPLE = "'tcp://10.0.0.5:8786' (or '10.0.0.5:8786')"


def import_distributed(what: str) -> Any:
    """``dask.distributed``, or an ImportError saying that ``what`` needs it.

    Parameters
    ----------
    what : str
        What needs Dask, named in the error message (e.g. ``"dask_client"``).

    Returns
    -------
    module
        The ``dask.distributed`` module.

    Raises
    ------
    ImportError
        If dask.distributed is not installed.
    """
    try:
        import dask.distributed as distributed
    except ImportError as exc:  # pragma: no cover - exercised with Dask hidden
        raise ImportError(
            f"{what} needs dask.distributed, which is not installed; {DASK_HINT}"
        ) from exc
    return distributed


@contextlib.contextmanager
def dask_client(
    scheduler: Any = None,
    n_workers: int | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    threads_per_worker: int = 1,
) -> Iterator[Any]:
    """A Dask client for a block of work, closed (with its cluster) at the end of the block.

    Parameters
    ----------
    scheduler : None, str or dask.distributed.Client
        ``None``: no running cluster (see ``n_workers``). A string: the address of a
        running scheduler (``"tcp://10.0.0.5:8786"``, or ``"host:port"``). A ``Client``:
        used as it is and left open.
    n_workers : int >= 1, optional
        Only without ``scheduler``: start a ``LocalCluster`` of this many worker
        processes (``threads_per_worker`` threads each) for the block. ``None`` with no
        ``scheduler`` yields ``None``: the work runs in this process, without Dask.
    timeout : float > 0, default=10
        Seconds to wait for the scheduler at ``scheduler`` (or for the client to connect
        to the local cluster) before giving up; at most ``threading.TIMEOUT_MAX``.
    threads_per_worker : int >= 1, default=1
        Threads of each local worker. One suits kernelkit's sweeps, whose tasks use BLAS.

    Yields
    ------
    dask.distributed.Client or None

    Raises
    ------
    ConnectionError
        No Dask scheduler answered at ``scheduler`` within about ``timeout`` seconds:
        nothing could be reached there, or what answered is not a Dask scheduler (a web
        server such as the dashboard's port, another protocol, a Dask worker). The
        message names the address and what answered.
    ValueError
        ``n_workers`` given with a ``scheduler`` (its workers are the cluster's), an
        address that is not one (no port, a port outside 1..65535, an unknown scheme),
        ``timeout`` not in (0, ``threading.TIMEOUT_MAX``], or more local workers than
        this machine's memory can hold.
    TypeError
        ``scheduler`` neither ``None``, a string nor a ``Client``; ``n_workers`` not an
        integer.
    ImportError
        A cluster is asked for and dask.distributed is not installed.

    Notes
    -----
    Before opening a ``Client`` on a ``tcp://`` or ``ws://`` address, kernelkit connects
    once with Dask's own protocol and asks the service for its identity, under a deadline
    of ``timeout`` seconds (and one more): ``dask.distributed.Client`` alone waits without
    limit for a service that accepts connections but never greets, and reads an HTTP
    answer as an exabyte-sized frame. ``tls://``, ``ucx://`` and ``inproc://`` addresses
    go straight to the ``Client`` (whose security settings the question would need).

    Examples
    --------
    >>> with dask_client() as client:  # no cluster asked for: no Dask at all
    ...     print(client)
    None
    """
    # imported here: the command line imports this module to build its parser, and
    # kernelkit._validation brings SciPy and scikit-learn
    from kernelkit._memory import check_memory
    from kernelkit._validation import check_int

    timeout = _check_timeout(timeout)
    threads_per_worker = check_int(threads_per_worker, "threads_per_worker", minimum=1)
    if n_workers is not None:
        if isinstance(n_workers, bool) or not isinstance(n_workers, numbers.Integral):
            raise TypeError(f"n_workers must be an int or None, got {type(n_workers).__name__}")
        n_workers = check_int(n_workers, "n_workers", minimum=1)
    if scheduler is None and n_workers is None:
        yield None
        return
    if scheduler is not None and n_workers is not None:
        raise ValueError(
            "give either scheduler (a running cluster, whose workers are its own) or "
            f"n_workers (a local cluster), not both; got scheduler={scheduler!r}, "
            f"n_workers={n_workers}"
        )
    distributed = import_distributed("running on a Dask cluster")
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if scheduler is not None:
        address, scheme = _check_scheduler_address(scheduler, distributed)
        if scheme in _PROBED_SCHEMES:
            _ask_who_answers(address, timeout, distributed)
        client = _open_client(address, timeout, distributed)
        try:
            yield client
        finally:
            client.close()
        return
    assert n_workers is not None  # no scheduler: a local cluster of n_workers
    check_memory(
        n_workers * _WORKER_BYTES,
        f"dask_client(n_workers={n_workers}): {n_workers} worker processes of at least "
        f"{_WORKER_BYTES // 2**20} MiB each",
        "ask for fewer workers (one per core is the usual choice)",
    )
    cluster = distributed.LocalCluster(
        n_workers=n_workers,
        threads_per_worker=threads_per_worker,
        processes=True,
        dashboard_address=":0",
    )
    try:
        client = distributed.Client(cluster, timeout=timeout, set_as_default=False)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def _check_timeout(timeout: Any) -> float:
    """``timeout`` as a float in (0, :data:`_MAX_TIMEOUT`]; a ValueError naming it otherwise."""
    from kernelkit._validation import check_positive_scalar

    timeout = check_positive_scalar(timeout, "timeout")
    if timeout > _MAX_TIMEOUT:
        raise ValueError(
            f"timeout must be at most {_MAX_TIMEOUT:.4g} s (threading.TIMEOUT_MAX), got {timeout:g}"
        )
    return timeout


def _check_scheduler_address(
    scheduler: Any, distributed: Any, name: str = "scheduler"
) -> tuple[str, str]:
    """``(address, scheme)`` of the scheduler address ``scheduler``, checked without
    connecting; a TypeError or ValueError naming ``name`` when it is not an address.

    Parameters
    ----------
    scheduler : object
        What was given as the address of a scheduler.
    distributed : module
        ``dask.distributed`` (from :func:`import_distributed`).
    name : str, default="scheduler"
        The argument's name in messages (``"--scheduler"`` on the command line).

    Returns
    -------
    address : str
        ``scheduler`` with its scheme (Dask's default, ``tcp``, when it has none).
    scheme : str
        ``"tcp"``, ``"tls"``, ``"ws"``, ``"inproc"``, ...

    Raises
    ------
    TypeError
        ``scheduler`` is not a string.
    ValueError
        An empty string, an unknown scheme, a network address without a port or with a
        port outside 1..65535.
    """
    if not isinstance(scheduler, str):
        raise TypeError(
            f"{name} must be None, an address such as {_ADDRESS_EXAMPLE} or a "
            f"dask.distributed.Client, got {type(scheduler).__name__}"
        )

    def refuse(reason: str) -> ValueError:
        return ValueError(
            f"{name} must be the address of a Dask scheduler such as {_ADDRESS_EXAMPLE}, "
            f"got {scheduler!r} ({reason})"
        )

    if not scheduler.strip():
        raise refuse("an empty address")
    comm = distributed.comm  # dask.distributed's comm layer (parse, backends)
    try:
        scheme, location = comm.parse_address(scheduler)
        backend = comm.registry.get_backend(scheme)
    except (TypeError, ValueError) as exc:
        raise refuse(str(exc)) from None
    try:
        _, port = backend.get_address_host_port(location)
    except NotImplementedError:  # not a network address: inproc://, ...
        port = None
    except (TypeError, ValueError) as exc:
        raise refuse(str(exc)) from None
    if port is not None and not 1 <= port <= 65535:
        raise refuse(f"port {port} is outside 1..65535")
    return comm.unparse_address(scheme, location), scheme


def _ask_who_answers(address: str, timeout: float, distributed: Any) -> None:
    """Return when a Dask scheduler answers at ``address`` within about ``timeout``
    seconds; raise ConnectionError (naming the address and what answered) otherwise.

    The question runs on an event loop of its own, in a thread of its own (the caller
    may be inside a running loop, as in a notebook), and everything it opened is closed
    before it returns: it leaves no client, loop or thread behind.
    """
    outcome: dict[str, Any] = {}

    def ask() -> None:
        try:
            outcome["reply"] = asyncio.run(_identity(address, timeout, distributed))
        except BaseException as exc:  # handed to the calling thread
            outcome["error"] = exc

    thread = threading.Thread(target=ask, name="kernelkit-dask-probe", daemon=True)
    thread.start()
    thread.join(min(timeout + _GRACE + 5.0, _MAX_TIMEOUT))
    error = outcome.get("error")
    if thread.is_alive() or isinstance(error, TimeoutError):
        raise ConnectionError(
            f"no Dask scheduler answered at {address!r} within {timeout:g} s: something "
            "accepted the connection but did not answer as a Dask scheduler (is this the "
            "dashboard's web port, or another service? a scheduler listens on 8786 unless "
            "told otherwise)"
        ) from error
    if error is not None:
        if isinstance(error, distributed.comm.CommClosedError):
            what = (
                "the service there closed the connection without answering as a Dask "
                f"scheduler ({_describe(error)})"
            )
        elif isinstance(error, OSError):  # Dask's connect gave up: nothing reachable
            last = error.__cause__  # Dask's last failed attempt: refused, unreachable, ...
            tried = f"; the last attempt: {_describe(last)}" if last is not None else ""
            raise ConnectionError(
                f"could not reach the Dask scheduler at {address!r} within {timeout:g} s "
                f"({_describe(error)}{tried}); is `dask scheduler` running there?"
            ) from error
        elif isinstance(error, Exception):  # a frame length of exabytes, bad msgpack, ...
            what = (
                "the service there answered with something other than Dask's protocol "
                f"({_describe(error)})"
            )
        else:  # KeyboardInterrupt, SystemExit in the thread
            raise error
        raise ConnectionError(
            f"no Dask scheduler answered at {address!r} within {timeout:g} s: {what}"
        ) from error
    reply = outcome["reply"]
    kind = reply.get("type") if isinstance(reply, dict) else None
    if not isinstance(kind, str) or kind in ("Worker", "Nanny"):
        who = f"a Dask {kind.lower()}" if kind in ("Worker", "Nanny") else "a Dask server"
        raise ConnectionError(
            f"no Dask scheduler answered at {address!r} within {timeout:g} s: {who} "
            "answered there, not a scheduler (a worker's or a nanny's address? give the "
            "scheduler's, as printed by `dask scheduler`)"
        )


async def _identity(address: str, timeout: float, distributed: Any) -> Any:
    """The reply of the service at ``address`` to Dask's ``identity`` call, after Dask's
    comm handshake, all within ``timeout`` (+ :data:`_GRACE`) seconds. Nothing it receives
    is unpickled (``deserialize=False``)."""

    async def ask() -> Any:
        connection_args = distributed.Security().get_connection_args("client")
        comm = await distributed.comm.connect(
            address, timeout=timeout, deserialize=False, **connection_args
        )
        try:
            # n_workers=0: a scheduler's reply without its workers (a worker or nanny
            # refuses the argument, and answers with an error)
            await comm.write({"op": "identity", "n_workers": 0, "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    return await asyncio.wait_for(ask(), timeout + _GRACE)


def _open_client(address: str, timeout: float, distributed: Any) -> Any:
    """``distributed.Client(address)``; on failure the half-started client is closed
    (with its event loop) and the error raised as a ConnectionError naming the address."""
    try:
        return distributed.Client(address, timeout=timeout, set_as_default=False)
    except BaseException as exc:
        _close_unstarted_client(exc, distributed)
        if not isinstance(exc, Exception):
            raise
        if isinstance(exc, (OSError, TimeoutError)):
            raise ConnectionError(
                f"could not reach the Dask scheduler at {address!r} within {timeout:g} s "
                f"({_describe(exc)}); is `dask scheduler` running there?"
            ) from exc
        raise ConnectionError(
            f"could not connect to the Dask scheduler at {address!r} ({_describe(exc)})"
        ) from exc


def _close_unstarted_client(exc: BaseException, distributed: Any) -> None:
    """Close the ``Client`` whose constructor raised ``exc``.

    A constructor that fails leaves its event loop running in a thread of its own (and,
    unless it failed with an OSError, the client open), and then ``Client.__del__``
    waits at interpreter exit for a loop that is gone and prints ``Exception ignored ...
    TimeoutError``. The client is found in the traceback (the ``self`` of its
    ``__init__``)."""
    tb = exc.__traceback__
    while tb is not None:
        client = tb.tb_frame.f_locals.get("self")
        if isinstance(client, distributed.Client):
            with contextlib.suppress(Exception):
                client.close(timeout=5)
            # close() leaves the loop running when the client never got past connecting
            runner = getattr(client, "_loop_runner", None)
            with contextlib.suppress(Exception):
                if runner is not None:
                    runner.stop()
            return
        tb = tb.tb_next


def _describe(exc: BaseException) -> str:
    """``"TypeName: message"``, the message cut to one line of at most 200 characters."""
    # Dask's comm errors start with the object that raised them: "in <TCPConnector ...>: "
    text = re.sub(r"^in <[^>]*>: ", "", " ".join(str(exc).split()))
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
