"""The command line's way onto a cluster: ``--scheduler ADDRESS`` and ``--n-workers N``.

Every subcommand that runs a sweep adds the two options with :func:`add_cluster_arguments`
and opens its client with :func:`cluster_from_args`, which prints the dashboard link. Without
either option the sweep runs in this process, without Dask. The flag is ``--n-workers``
(the API's ``n_workers``, as Dask's ``LocalCluster``), not ``--workers``: in kernelkit's
glossary ``workers`` is a refused name for threads (``n_jobs``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from kernelkit._commands import UsageError
from kernelkit.distributed.client import (
    DEFAULT_TIMEOUT,
    _check_scheduler_address,
    dask_client,
    import_distributed,
)

__all__ = ["add_cluster_arguments", "cluster_from_args"]


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--scheduler`` and ``--n-workers`` (an argument group "scaling out") to
    ``parser``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of a subcommand; modified in place.

    Raises
    ------
    TypeError
        ``parser`` is not an ``argparse.ArgumentParser``.
    """
    if not isinstance(parser, argparse.ArgumentParser):
        raise TypeError(f"parser must be an argparse.ArgumentParser, got {type(parser).__name__}")
    group = parser.add_argument_group(
        "scaling out (Dask; pip install 'kernelkit[dask]')",
        "without these options the work runs in this process",
    )
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786",
    )
    group.add_argument(
        "--n-workers",
        type=int,
        metavar="N",
        help="start a local Dask cluster of N worker processes for this run",
    )


@contextlib.contextmanager
def cluster_from_args(
    args: argparse.Namespace, *, timeout: float = DEFAULT_TIMEOUT, stream: TextIO | None = None
) -> Iterator[Any]:
    """The client asked for by ``args.scheduler`` / ``args.n_workers`` (``None``: neither),
    with the dashboard link printed to ``stream`` (default stdout); closed at the end.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments; ``args.scheduler`` and ``args.n_workers`` are read when present
        (see :func:`add_cluster_arguments`).
    timeout : float, default=10
        Seconds to wait for a scheduler to answer before giving up, as in
        :func:`~kernelkit.distributed.dask_client`.
    stream : file-like, optional
        Where the dashboard link is printed; ``None`` means standard output.

    Yields
    ------
    dask.distributed.Client or None
        The client, or ``None`` when neither option is given (the work runs in this
        process, without Dask).

    Raises
    ------
    kernelkit.cli.UsageError
        Both options given, ``--n-workers`` below 1, or a ``--scheduler`` that is not an
        address (no port, an unknown scheme: exit status 2, before any connection).
    ConnectionError
        No Dask scheduler answered within about ``timeout`` seconds (or what answered is
        not one; see :func:`~kernelkit.distributed.dask_client`).
    TypeError
        ``args`` is not an ``argparse.Namespace``.
    """

    if not isinstance(args, argparse.Namespace):
        raise TypeError(
            "args must be an argparse.Namespace (parsed by a parser given "
            f"add_cluster_arguments), got {type(args).__name__}"
        )
    scheduler, n_workers = getattr(args, "scheduler", None), getattr(args, "n_workers", None)
    if scheduler is not None and n_workers is not None:
        raise UsageError(
            "--scheduler and --n-workers exclude each other: a running cluster brings its "
            "own workers"
        )
    if n_workers is not None and n_workers < 1:
        raise UsageError(f"--n-workers must be at least 1, got {n_workers}")
    if scheduler is not None:
        distributed = import_distributed("--scheduler")
        try:  # a malformed address is misuse, told at once (no connection is tried)
            _check_scheduler_address(scheduler, distributed, "--scheduler")
        except (TypeError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    with dask_client(scheduler, n_workers, timeout=timeout) as client:
        if client is not None:
            out = sys.stdout if stream is None else stream
            where = scheduler if scheduler is not None else f"local cluster, {n_workers} workers"
            print(f"Dask ({where}); dashboard: {client.dashboard_link}", file=out, flush=True)
        yield client
