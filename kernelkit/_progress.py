"""Progress bars for long work: shown on a terminal, silent otherwise (logs, CI, pipes)."""

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
