"""Where the work runs: no Dask, a ``LocalCluster`` started for the user, or a running cluster.

:func:`dask_client` is the one place kernelkit opens a :class:`dask.distributed.Client`.
Everything that can run on a cluster (the sweeps of :mod:`kernelkit.distributed.sweeps`,
batch Bayesian optimisation) takes a ``client`` argument: ``None`` runs in this process
without Dask, a ``Client`` runs there. The same code runs unchanged on a laptop's
``LocalCluster`` and on a real cluster's scheduler (``Client("tcp://host:8786")``).
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator
from typing import Any

from kernelkit._dask import DASK_HINT

__all__ = ["DEFAULT_TIMEOUT", "dask_client", "import_distributed"]

#: Seconds to wait for a scheduler before giving up with an error.
DEFAULT_TIMEOUT = 10.0


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
        Seconds to wait for the scheduler at ``scheduler`` (or for the local cluster to
        start) before giving up.
    threads_per_worker : int >= 1, default=1
        Threads of each local worker. One suits kernelkit's sweeps, whose tasks use BLAS.

    Yields
    ------
    dask.distributed.Client or None

    Raises
    ------
    ConnectionError
        No scheduler answered at ``scheduler`` within ``timeout`` seconds.
    ValueError
        ``n_workers`` given with a ``scheduler`` (its workers are the cluster's), or
        an address that is not a non-empty string.
    ImportError
        A cluster is asked for and dask.distributed is not installed.

    Examples
    --------
    >>> with dask_client() as client:  # no cluster asked for: no Dask at all
    ...     print(client)
    None
    """
    # imported here: the command line imports this module to build its parser, and
    # kernelkit._validation brings SciPy and scikit-learn
    from kernelkit._validation import check_int, check_positive_scalar

    timeout = check_positive_scalar(timeout, "timeout")
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
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise ValueError(
                "scheduler must be the address of a Dask scheduler such as "
                f"'tcp://host:8786' or a dask.distributed.Client, got {scheduler!r}"
            )
        try:
            client = distributed.Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ConnectionError(
                f"could not reach the Dask scheduler at {scheduler!r} within {timeout:g} s "
                f"({type(exc).__name__}: {exc}); is `dask scheduler` running there?"
            ) from exc
        try:
            yield client
        finally:
            client.close()
        return
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
