"""Progress bars for long work: shown on a terminal, silent otherwise (logs, CI, pipes);
and the one format of a duration in the command-line output."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")


def progress(
    iterable: Iterable[T], desc: str = "", total: int | None = None, **kw: Any
) -> Iterator[T]:
    """Wrap ``iterable`` in a tqdm bar that disables itself when stderr is not a terminal."""
    return iter(tqdm(iterable, desc=desc, total=total, disable=None, leave=False, **kw))


def format_seconds(t: float) -> str:
    """A duration with the digits that matter (never "0.0 s" for a few milliseconds)."""
    if t >= 1:
        return f"{t:.1f} s"
    if t >= 0.01:
        return f"{1000 * t:.0f} ms"
    return f"{1000 * t:.2f} ms"
