"""Up-front memory checks: refuse, with the estimate in the message, a request that could
never fit in the memory this process may use instead of running for minutes and then
failing (or being killed) deep inside NumPy.

One helper, :func:`check_memory`, used by every random matrix and feature map
(:mod:`kernelkit.features`), the random-feature models (:mod:`kernelkit.models`), exact
inference (:mod:`kernelkit.pgm.exact`) and the rest, before they allocate anything whose
size grows with the problem.

The limit (:func:`memory_limit`) is the least of

* the machine's physical memory;
* a container's (cgroup v1 or v2) memory limit;
* what is left of the process's address-space limit (``RLIMIT_AS``, as set by
  ``ulimit -v`` or a competition harness): the soft limit less the address space the
  process already maps;
* a cap set by the caller with :func:`memory_cap` (``kernelkit pgm solve
  --memory-limit``).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "MemoryLimitError",
    "check_memory",
    "empty_output",
    "format_bytes",
    "memory_cap",
    "memory_limit",
]

#: Used when the physical memory cannot be read (no ``os.sysconf``, as on Windows): a
#: generous cap, so that only requests far beyond any workstation are refused.
FALLBACK_LIMIT = 256 * 2**30
_CGROUP_FILES = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
_CAP: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "kernelkit_memory_cap", default=None
)


class MemoryLimitError(ValueError):
    """A request refused up front by :func:`check_memory` because it would not fit (a
    ``ValueError``, so that callers that catch bad input catch it too; callers with a
    cheaper fallback, such as bounds instead of exact inference, catch this class)."""


@functools.cache
def machine_memory() -> int:
    """Bytes of memory of this machine: the physical memory (``os.sysconf``), or a
    container's (cgroup) limit where that is lower; :data:`FALLBACK_LIMIT` when the
    physical memory cannot be read. Read once per process (it does not fluctuate with
    load, unlike the available memory, so the same request gets the same answer)."""
    try:
        total = int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return FALLBACK_LIMIT
    if total <= 0:
        return FALLBACK_LIMIT
    for path in _CGROUP_FILES:
        try:
            with open(path) as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            total = int(text)
    return total


def address_space_left() -> int | None:
    """Bytes the process may still map under its soft ``RLIMIT_AS``, or None without one
    (no limit, or no ``resource`` module, as on Windows). The mapped size is read from
    ``/proc/self/statm``; where that cannot be read the whole limit is returned."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ValueError, OSError):  # pragma: no cover - platform without RLIMIT_AS
        return None
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    used = 0
    try:
        with open("/proc/self/statm") as fh:
            used = int(fh.read().split()[0]) * int(os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    return max(int(soft) - used, 0)


def _limits() -> list[tuple[int, str]]:
    """The limits in force, each with its description for error messages."""
    found = [(machine_memory(), "this machine has")]
    left = address_space_left()
    if left is not None:
        found.append((left, "the process's address-space limit (RLIMIT_AS) leaves"))
    cap = _CAP.get()
    if cap is not None:
        found.append((cap, "the memory cap allows"))
    return found


def memory_limit() -> int:
    """Bytes of memory a request may use: the least of the machine's memory
    (:func:`machine_memory`), what the address-space limit leaves
    (:func:`address_space_left`) and the cap of an enclosing :func:`memory_cap`."""
    return min(limit for limit, _ in _limits())


@contextlib.contextmanager
def memory_cap(n_bytes: int | float) -> Iterator[None]:
    """Refuse, inside the ``with`` block, any request above ``n_bytes`` (on top of the
    machine's and the process's own limits).

    Parameters
    ----------
    n_bytes : int or float
        The cap in bytes, positive and finite.

    Raises
    ------
    ValueError
        ``n_bytes`` is not a positive finite number.

    Examples
    --------
    >>> with memory_cap(2**30):
    ...     memory_limit() <= 2**30
    True
    """
    if isinstance(n_bytes, bool) or not isinstance(n_bytes, (int, float, np.integer, np.floating)):
        raise TypeError(f"n_bytes must be a number of bytes, got {type(n_bytes).__name__}")
    if not (math.isfinite(n_bytes) and n_bytes > 0):
        raise ValueError(f"n_bytes must be a positive finite number of bytes, got {n_bytes!r}")
    outer = _CAP.get()
    cap = int(n_bytes) if outer is None else min(outer, int(n_bytes))
    token = _CAP.set(max(cap, 1))
    try:
        yield
    finally:
        _CAP.reset(token)


def format_bytes(n_bytes: int) -> str:
    """``n_bytes`` in binary units with three significant digits (``"3.73 GiB"``)."""
    value = float(n_bytes)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{int(value)} bytes" if unit == "bytes" else f"{value:.3g} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def check_memory(n_bytes: int, request: str, advice: str = "") -> None:
    """Raise :class:`MemoryLimitError` (a ``ValueError``) if ``n_bytes`` exceeds
    :func:`memory_limit`.

    Parameters
    ----------
    n_bytes : int
        Estimated peak memory of the request (a Python int: exact for any size).
    request : str
        What was asked, with its sizes, e.g. ``"hadamard_rademacher(m=10**9, d=4)"``.
    advice : str, optional
        What to change (appended to the message).
    """
    limit = memory_limit()
    if n_bytes > limit:
        tail = f"; {advice}" if advice else ""
        # name the limit that binds (the machine's, the address space's or the cap's)
        binding = min(_limits())  # (memory_limit may be patched to something else in tests)
        where = binding[1] if binding[0] == limit else "this machine has"
        raise MemoryLimitError(
            f"{request} would need about {format_bytes(n_bytes)} of memory, more than "
            f"{where} ({format_bytes(limit)}){tail}"
        )


def empty_output(shape: tuple[int, ...], dtype: Any, request: str) -> np.ndarray:
    """``np.empty(shape, dtype)`` after :func:`check_memory` on its size; ``request``
    names the caller (``"RandomProjection.transform"``)."""
    dtype = np.dtype(dtype)
    check_memory(
        math.prod(shape) * dtype.itemsize,
        f"{request}: an output of shape {tuple(shape)} ({dtype.name})",
        "transform fewer samples at a time, or ask for fewer components",
    )
    return np.empty(shape, dtype=dtype)
