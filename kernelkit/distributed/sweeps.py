"""Sweeps of independent tasks: in this process, or one Dask task per item on any cluster.

:func:`map_tasks` is the one loop behind every sweep that can leave the machine (the
learning-curve simulation's graphs, the graph-classification grid): ``client=None`` runs
the tasks here, in order, under the library's progress bar; a
:class:`dask.distributed.Client` runs one task per item on its workers and gathers the
results in the order of the items. The result does not depend on where or when a task
runs, because every task carries its own seed in its item: a worker that dies mid-sweep
costs time, not reproducibility. The scheduler re-runs the tasks it held (and the results
it kept) on the remaining workers; a task is only given up on when more workers died
running it than ``distributed.scheduler.allowed-failures`` (3 by default), and then a
``KilledWorker`` error names its item.
"""

from __future__ import annotations

import contextlib
import functools
import reprlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from kernelkit._progress import progress
from kernelkit._validation import check_bool, check_int
from kernelkit.distributed.client import import_distributed

__all__ = ["DEFAULT_RETRIES", "map_tasks"]

T = TypeVar("T")
R = TypeVar("R")

#: Re-runs of a task that raised: none, since a task's randomness is fixed by its own seed
#: and it would raise again. (A task whose *worker* died is re-run by the scheduler
#: whatever this says, up to ``distributed.scheduler.allowed-failures`` times.)
DEFAULT_RETRIES = 0

_item_repr = reprlib.Repr()
_item_repr.maxstring = 60
_item_repr.maxother = 60
_item_repr.maxlevel = 2


def map_tasks(
    fn: Callable[..., R],
    items: Iterable[T],
    *,
    client: Any = None,
    desc: str = "",
    retries: int = DEFAULT_RETRIES,
    shared: Mapping[str, Any] | None = None,
    show_progress: bool = True,
) -> list[R]:
    """``[fn(item, **shared) for item in items]``, in this process or as Dask tasks.

    Parameters
    ----------
    fn : callable
        ``fn(item, **shared) -> result``. With a client it must be picklable (a module
        function or a ``functools.partial`` of one; lambdas and closures go through
        cloudpickle) and any randomness must come from its item (a seed), so that the
        result is the same wherever and however often the task runs.
    items : iterable
        One task per item (small values: seeds, indices, parameters).
    client : None or dask.distributed.Client, default=None
        ``None``: run the tasks here, one after the other, with kernelkit's progress bar.
        A client (e.g. from :func:`kernelkit.distributed.dask_client`): one Dask task per
        item (``client.map(..., pure=False)``), Dask's progress bar, the results gathered
        in order.
    desc : str, default=""
        What the sweep is, for the progress bar and for error notes.
    retries : int >= 0, default=0
        Re-runs of a task that raised an exception (with a client; see
        :data:`DEFAULT_RETRIES`). Tasks lost with a worker are re-run regardless.
    shared : mapping of str to object, optional
        Keyword arguments of every call (large arrays every task reads). With a client
        they are sent to every worker once, as one object
        (``client.scatter(..., broadcast=True)``), not once per task, and released after
        the sweep.
    show_progress : bool, default=True
        Show a progress bar (Dask's with a client), on stderr and only when stderr is a
        terminal: never in logs, pipes or CI.

    Returns
    -------
    list
        ``fn``'s results in the order of ``items``.

    Raises
    ------
    TypeError
        ``fn`` not callable, ``items`` not iterable, ``desc`` not a string, ``shared``
        not a mapping with string keys, or ``client`` neither ``None`` nor a
        ``dask.distributed.Client``.
    ValueError
        ``retries`` negative.
    Exception
        The first failing task's exception (the first in item order with a client),
        unchanged but for a note naming the sweep, the task's position and its item
        (``exc.__notes__``); a task given up on after its workers died raises Dask's
        ``KilledWorker`` with that note.

    See Also
    --------
    kernelkit.distributed.dask_client : Where the tasks run.

    Notes
    -----
    A worker that dies mid-sweep (killed, out of memory, its machine gone) raises
    nothing here: the scheduler re-runs the tasks it was running, and recomputes the
    results it held, on the other workers (a local cluster's nanny also starts a new
    worker). Since each task's randomness comes from its item, the sweep's result is
    the one an undisturbed run gives. A task is given up on only when more workers died
    running it than ``distributed.scheduler.allowed-failures`` (default 3).

    Examples
    --------
    >>> map_tasks(pow, [1, 2, 3], client=None, shared={"exp": 2})
    [1, 4, 9]
    >>> try:
    ...     map_tasks(int, ["1", "two"], desc="parse")
    ... except ValueError as exc:
    ...     print(exc.__notes__[0])
    in parse: task 2 of 2, item 'two'
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise TypeError(f"items must be an iterable of task inputs, got {type(items).__name__}")
    if not isinstance(desc, str):
        raise TypeError(f"desc must be a str, got {type(desc).__name__}")
    items = list(items)
    retries = check_int(retries, "retries", minimum=0)
    show_progress = check_bool(show_progress, "show_progress")
    shared = _check_shared(shared)
    if client is None:
        return _map_here(fn, items, desc, shared, show_progress)
    distributed = import_distributed("map_tasks with a client")
    if not isinstance(client, distributed.Client):
        raise TypeError(
            "client must be None or a dask.distributed.Client (for an address use "
            "kernelkit.distributed.dask_client(scheduler)), got "
            f"{type(client).__name__}"
        )
    return _map_on_cluster(fn, items, client, desc, retries, shared, show_progress, distributed)


def _check_shared(shared: Any) -> dict[str, Any]:
    if shared is None:
        return {}
    if not isinstance(shared, Mapping) or not all(isinstance(k, str) for k in shared):
        raise TypeError(
            "shared must be a mapping of keyword names (str) to values, got "
            f"{type(shared).__name__}"
        )
    return dict(shared)


def _note(exc: BaseException, desc: str, index: int, n_tasks: int, item: Any) -> None:
    """Add a note naming the task to ``exc``."""
    where = f"in {desc}: " if desc else ""
    exc.add_note(f"{where}task {index + 1} of {n_tasks}, item {_item_repr.repr(item)}")


def _map_here(
    fn: Callable[..., R], items: list[Any], desc: str, shared: dict[str, Any], show: bool
) -> list[R]:
    results = []
    shown = progress(items, desc=desc, total=len(items)) if show else iter(items)
    for index, item in enumerate(shown):
        try:
            results.append(fn(item, **shared))
        except Exception as exc:
            _note(exc, desc, index, len(items), item)
            raise
    return results


def _map_on_cluster(
    fn: Callable[..., R],
    items: list[Any],
    client: Any,
    desc: str,
    retries: int,
    shared: dict[str, Any],
    show: bool,
    distributed: Any,
) -> list[R]:
    from dask.utils import funcname

    if not items:
        return []
    # The shared values travel as one object, scattered to every worker once: a worker
    # that dies takes one copy with it and the others keep theirs (data scattered to one
    # worker only would be lost with it, and scattered data cannot be recomputed).
    released = []
    if shared:
        released = client.scatter([shared], broadcast=True, hash=False)
    futures = client.map(
        functools.partial(_call, fn),
        items,
        released * len(items) if shared else [{}] * len(items),
        key=funcname(fn),
        pure=False,
        retries=retries,
    )
    try:
        if show and sys.stderr.isatty():
            # Dask's bar draws on stdout; on stderr it leaves the command's output clean
            with contextlib.redirect_stdout(sys.stderr):
                distributed.progress(futures, scheduler=client.scheduler.address)
        try:
            return client.gather(futures)
        except Exception:
            failed = [i for i, f in enumerate(futures) if f.status == "error"]
            if not failed:
                raise
        # the first failed task in item order (gather raises whichever it met first)
        index = failed[0]
        exc = futures[index].exception()
        _note(exc, desc, index, len(items), items[index])
        raise exc.with_traceback(futures[index].traceback())
    finally:
        client.cancel([*futures, *released])


def _call(fn: Callable[..., R], item: Any, shared: dict[str, Any]) -> R:
    """One task: ``fn(item, **shared)``."""
    return fn(item, **shared)
