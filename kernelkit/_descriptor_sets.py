"""Sets of descriptors (one ``(n_i, D)`` array per image or document): checked, and
walked in chunks of whole sets, for the Fisher kernel and the Fisher-vector encoder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from kernelkit._validation import check_array

__all__ = ["check_finite_chunk", "check_sets", "chunk_bounds", "segment_sums", "stack_sets"]


def check_sets(
    X: Any, width: int | None = None, name: str = "X", seen: str = "the descriptors seen in fit"
) -> tuple[list[np.ndarray], np.ndarray, int]:
    """The sets of ``X`` as 2-D float arrays of one width, their sizes, and the width ``D``.

    ``width`` is the required ``D`` (``seen`` says where it comes from); otherwise the first
    non-empty set's. An empty set may be given as ``(0, D)``, ``(0, 0)`` or ``(0,)`` and
    comes back as ``(0, D)``. Float arrays of the right shape are passed through as they
    are, without the finiteness check: :func:`check_finite_chunk` does it on the chunks
    actually used. When every set is empty and no width is given, ``D`` is 0.
    """
    if X is None or isinstance(X, (str, bytes, dict)):
        raise TypeError(f"{name} must be a sequence of descriptor arrays, got {type(X).__name__}")
    if isinstance(X, np.ndarray) and X.dtype != object and X.ndim != 3:
        raise ValueError(
            f"{name} must be a sequence of 2-D descriptor arrays (one per set), got one "
            f"{X.ndim}-D array of shape {X.shape}; wrap a single set as [{name}]"
        )
    try:
        sets = list(X)
    except TypeError:
        raise TypeError(
            f"{name} must be a sequence of descriptor arrays, got {type(X).__name__}"
        ) from None
    if not sets:
        raise ValueError(f"{name} is empty; at least one descriptor set is required")
    arrays: list[Any] = []
    for i, item in enumerate(sets):
        item_name = f"{name}[{i}]"
        if (
            isinstance(item, np.ndarray)
            and item.ndim == 2
            and item.dtype in (np.float64, np.float32)
            and item.shape[0] > 0
            and item.shape[1] > 0
        ):
            arr = item  # the common case, checked for NaN chunk by chunk
        elif isinstance(item, (str, bytes)) or item is None:
            raise TypeError(f"{item_name} must be an array of numbers, got {type(item).__name__}")
        elif np.ndim(item) in (1, 2) and np.size(item) == 0 and np.shape(item)[0] == 0:
            shape = np.shape(item)
            if len(shape) == 2 and shape[1] not in (0, width or shape[1]):
                raise ValueError(
                    f"{item_name} is an empty set of width {shape[1]}, but the descriptors "
                    f"have width {width}"
                )
            arrays.append(None)  # an empty set, given its width below
            continue
        else:
            arr = check_array(item, item_name)
        if width is None:
            width, seen = arr.shape[1], item_name
        elif arr.shape[1] != width:
            raise ValueError(
                f"{item_name} has descriptors of width {arr.shape[1]}, but {seen} has width "
                f"{width}; all descriptor arrays must have the same width"
            )
        arrays.append(arr)
    width = width or 0
    empty = np.zeros((0, width))
    out = [empty if a is None else a for a in arrays]
    lengths = np.fromiter((a.shape[0] for a in out), dtype=np.intp, count=len(out))
    return out, lengths, width


def check_finite_chunk(Z: np.ndarray, lengths: np.ndarray, first: int, name: str = "X") -> None:
    """Raise a ValueError naming the set when the stacked descriptors ``Z`` of the sets
    ``first, first + 1, ...`` (sizes ``lengths``) hold NaN or infinity."""
    if np.isfinite(Z).all():
        return
    bad_row = int(np.flatnonzero(~np.isfinite(Z).all(axis=1))[0])
    index = first + int(np.searchsorted(np.cumsum(lengths), bad_row, side="right"))
    raise ValueError(f"{name}[{index}] contains NaN or infinity")


def stack_sets(
    X: Any, width: int | None = None, name: str = "X", seen: str = "the descriptors seen in fit"
) -> tuple[np.ndarray, np.ndarray, int]:
    """All descriptors of the sets in ``X`` stacked in set order (float64, checked finite),
    the set sizes and the width ``D`` (see :func:`check_sets`)."""
    sets, lengths, width = check_sets(X, width, name, seen)
    Z = np.concatenate(sets).astype(np.float64, copy=False)
    check_finite_chunk(Z, lengths, 0, name)
    return Z, lengths, width


def chunk_bounds(lengths: np.ndarray, rows: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive runs of sets with about ``rows`` descriptors in
    all (at least one set each)."""
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    n, start = len(lengths), 0
    while start < n:
        stop = int(np.searchsorted(offsets, offsets[start] + rows, side="right")) - 1
        stop = min(n, max(start + 1, stop))
        yield start, stop
        start = stop


def segment_sums(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Sums of consecutive segments of ``values`` (1-D) of the given lengths (0 for an
    empty segment)."""
    owner = np.repeat(np.arange(len(lengths)), lengths)
    return np.bincount(owner, weights=values, minlength=len(lengths))
