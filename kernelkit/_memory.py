"""Up-front memory checks: refuse, with the estimate in the message, a request that could
never fit in this machine's memory instead of running for minutes and then failing (or
being killed) deep inside NumPy.

One helper, :func:`check_memory`, used by every random matrix and feature map
(:mod:`kernelkit.features`) and by the random-feature models (:mod:`kernelkit.models`)
before they allocate anything whose size grows with ``n_components * n_features`` or with
``n_samples * n_components``.
"""

from __future__ import annotations

import functools
import math
import os
from typing import Any

import numpy as np

__all__ = ["check_memory", "empty_output", "format_bytes", "memory_limit"]

#: Used when the physical memory cannot be read (no ``os.sysconf``, as on Windows): a
#: generous cap, so that only requests far beyond any workstation are refused.
FALLBACK_LIMIT = 256 * 2**30
_CGROUP_FILES = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


@functools.cache
def memory_limit() -> int:
    """Bytes of memory this process can ever have: the physical memory (``os.sysconf``),
    or a container's (cgroup) limit where that is lower; :data:`FALLBACK_LIMIT` when the
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


def format_bytes(n_bytes: int) -> str:
    """``n_bytes`` in binary units with three significant digits (``"3.73 GiB"``)."""
    value = float(n_bytes)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{int(value)} bytes" if unit == "bytes" else f"{value:.3g} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def check_memory(n_bytes: int, request: str, advice: str = "") -> None:
    """Raise ``ValueError`` if ``n_bytes`` exceeds :func:`memory_limit`.

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
        raise ValueError(
            f"{request} would need about {format_bytes(n_bytes)} of memory, more than this "
            f"machine has ({format_bytes(limit)}){tail}"
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
