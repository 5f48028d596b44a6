"""Sets of descriptors (one ``(n_i, D)`` array per image or document), stacked for
vectorised work: shared by the Fisher kernel and the Fisher-vector encoder."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit._validation import check_array

__all__ = ["stack_sets", "segment_sums"]


def stack_sets(
    X: Any, width: int | None = None, name: str = "X", seen: str = "the descriptors seen in fit"
) -> tuple[np.ndarray, np.ndarray, int]:
    """All descriptors of the sets in ``X`` stacked in set order (float64), the set sizes
    and the descriptor width ``D``.

    ``width`` is the required ``D`` (``seen`` says where it comes from); otherwise the first
    non-empty set's. An empty set may be given as ``(0, D)``, ``(0, 0)`` or ``(0,)``. When
    every set is empty and no width is given, the stack is ``(0, 0)`` and ``D`` is 0.
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
    arrays: list[np.ndarray | None] = []
    for i, item in enumerate(sets):
        item_name = f"{name}[{i}]"
        if isinstance(item, (str, bytes)) or item is None:
            raise TypeError(f"{item_name} must be an array of numbers, got {type(item).__name__}")
        if np.ndim(item) in (1, 2) and np.size(item) == 0 and np.shape(item)[0] == 0:
            shape = np.shape(item)
            if len(shape) == 2 and shape[1] not in (0, width or shape[1]):
                raise ValueError(
                    f"{item_name} is an empty set of width {shape[1]}, but the descriptors "
                    f"have width {width}"
                )
            arrays.append(None)  # an empty set
            continue
        arr = check_array(item, item_name)
        if width is None:
            width, seen = arr.shape[1], item_name
        elif arr.shape[1] != width:
            raise ValueError(
                f"{item_name} has descriptors of width {arr.shape[1]}, but {seen} has width "
                f"{width}; all descriptor arrays must have the same width"
            )
        arrays.append(arr)
    lengths = np.array([0 if a is None else a.shape[0] for a in arrays], dtype=np.intp)
    full = [a for a in arrays if a is not None]
    if width is None:  # every set is empty
        return np.zeros((0, 0)), lengths, 0
    Z = np.concatenate(full).astype(np.float64, copy=False) if full else np.zeros((0, width))
    return Z, lengths, width


def segment_sums(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Sums of consecutive segments of ``values`` (1-D) of the given lengths (0 for an
    empty segment)."""
    owner = np.repeat(np.arange(len(lengths)), lengths)
    return np.bincount(owner, weights=values, minlength=len(lengths))
