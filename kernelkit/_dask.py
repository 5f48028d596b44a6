"""The one door to Dask: recognising dask arrays without importing Dask, a clear error when
Dask is missing, the checks every blockwise computation makes of its inputs, and the two
blockwise computations the estimators need: a NumPy function mapped over row blocks
(:func:`map_row_blocks`: ``transform``, ``predict``) and per-block statistics summed in a
tree (:func:`sum_row_blocks`: ``Phi^T Phi`` and ``Phi^T y`` for a ridge fit).

Dask is an optional dependency (the ``dask`` extra). Modules outside the Dask integration
never import it: they ask :func:`is_dask_array` (which looks only at modules already
imported, so it costs nothing and imports nothing) and hand dask inputs to the functions
that need Dask, which import it through :func:`import_dask`.
"""

from __future__ import annotations

import copy
import functools
import operator
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "DASK_HINT",
    "check_aligned_rows",
    "check_row_chunked",
    "import_dask",
    "is_dask_array",
    "map_row_blocks",
    "shipping_copy",
    "sum_row_blocks",
]

#: How to get Dask, for error messages.
DASK_HINT = "install it with: pip install 'kernelkit[dask]'"


def is_dask_array(x: Any) -> bool:
    """Whether ``x`` is a ``dask.array.Array``; never imports Dask (an object cannot be a
    dask array unless ``dask.array`` has been imported)."""
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(x, module.Array)


def import_dask(what: str) -> Any:
    """``dask.array``, or an ImportError saying that ``what`` needs Dask and how to get it."""
    try:
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - exercised with Dask hidden
        raise ImportError(f"{what} needs Dask, which is not installed; {DASK_HINT}") from exc
    return da


def check_row_chunked(X: Any, name: str = "X", *, ndim: int = 2) -> Any:
    """``X`` itself when it is a dask array of ``ndim`` dimensions chunked along rows only;
    a ValueError naming ``name`` otherwise (with the ``rechunk`` call that fixes it).

    A blockwise map ``x -> f(x)`` needs every block to hold whole rows: a block holding
    some of the columns cannot be transformed on its own.
    """
    if X.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional dask array, got shape {X.shape}")
    if any(c != c for chunks in X.chunks for c in chunks):  # NaN: unknown chunk sizes
        raise ValueError(f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first")
    if ndim == 2 and len(X.chunks[1]) != 1:
        raise ValueError(
            f"{name} is chunked along its features ({len(X.chunks[1])} column chunks of "
            f"sizes {list(X.chunks[1])}); blockwise maps need whole rows in every chunk: "
            f"use {name}.rechunk({{1: -1}})"
        )
    return X


def check_aligned_rows(X: Any, y: Any, names: tuple[str, str] = ("X", "y")) -> None:
    """A ValueError unless the dask arrays ``X`` and ``y`` have the same number of rows cut
    into the same row chunks (so that block ``i`` of one pairs with block ``i`` of the
    other)."""
    a, b = names
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"{a} has {X.shape[0]} rows but {b} has {y.shape[0]}")
    if X.chunks[0] != y.chunks[0]:
        raise ValueError(
            f"the row chunks of {a} {list(X.chunks[0])[:6]}{'...' if len(X.chunks[0]) > 6 else ''}"
            f" and {b} {list(y.chunks[0])[:6]}{'...' if len(y.chunks[0]) > 6 else ''} differ; "
            f"rechunk one like the other: {b} = {b}.rechunk({{0: {a}.chunks[0]}})"
        )


# ---------------------------------------------------------------------- blockwise paths
def shipping_copy(estimator: Any) -> Any:
    """A fitted ``estimator`` to ship to the workers: itself, or, when it was fitted on a
    DataFrame, a shallow copy (the same fitted arrays, nothing copied) without
    ``feature_names_in_``, whose check (and its warning) is made once on the client, not
    once per block of plain arrays."""
    if "feature_names_in_" not in getattr(estimator, "__dict__", {}):
        return estimator
    light = copy.copy(estimator)
    del light.feature_names_in_
    return light


def _once(dask: Any, obj: Any) -> Any:
    """``obj`` as one node of the task graph (a ``Delayed`` with a content key) that every
    block task depends on: pickled and sent to the workers once, not once per task."""
    return dask.delayed(obj, pure=True, traverse=False)


def map_row_blocks(
    func: Callable[..., Any],
    X: Any,
    *args: Any,
    n_columns: int | None,
    dtype: Any,
    what: str = "this blockwise map",
) -> Any:
    """``func(block, *args)`` on every row block of the dask array ``X``, as a dask array
    with ``X``'s row chunks: ``n_columns`` columns, or one dimension when ``n_columns``
    is ``None``.

    ``func`` takes and returns plain NumPy arrays. Each of ``args`` (a fitted estimator,
    say) enters the task graph once, as a single key every block task depends on
    (:func:`dask.delayed` with ``pure=True``): its parameters are sent to a worker once,
    not pickled into each of the tasks. ``X`` is checked with :func:`check_row_chunked`.
    """
    import_dask(what)
    import dask

    check_row_chunked(X)
    shipped = [_once(dask, a) for a in args]
    shape = (0,) if n_columns is None else (0, int(n_columns))
    meta = np.empty(shape, dtype=dtype)
    mapped = functools.partial(_on_rows, func=func, empty=meta)
    if n_columns is None:
        chunks: tuple[Any, ...] = (X.chunks[0],)
        return X.map_blocks(mapped, *shipped, chunks=chunks, drop_axis=1, dtype=dtype, meta=meta)
    chunks = (X.chunks[0], (int(n_columns),))
    return X.map_blocks(mapped, *shipped, chunks=chunks, dtype=dtype, meta=meta)


def _on_rows(block: Any, *args: Any, func: Callable[..., Any], empty: np.ndarray) -> Any:
    """``func(block, *args)``; an empty block (a dask array may have chunks of no rows)
    gives the empty result without calling ``func``, which may refuse empty input."""
    if block.shape[0] == 0:
        return empty
    return func(block, *args)


def _add_statistics(*parts: tuple[Any, ...]) -> tuple[Any, ...]:
    """The element-wise sum of tuples of statistics (arrays and numbers)."""
    return tuple(functools.reduce(operator.add, values) for values in zip(*parts, strict=True))


def sum_row_blocks(
    func: Callable[..., tuple[Any, ...]],
    arrays: Sequence[Any],
    *args: Any,
    names: Sequence[str] = ("X", "y"),
    split_every: int = 8,
    what: str = "this blockwise reduction",
) -> tuple[Any, ...]:
    """``sum_i func(A_i, B_i, ..., *args)`` over the row blocks ``i`` of the dask arrays
    ``arrays`` (named ``names`` in errors; chunked along rows only, with the same row
    chunks: :func:`check_row_chunked`, :func:`check_aligned_rows`), computed.

    ``func`` maps NumPy blocks to a tuple of statistics (arrays, numbers) that add up over
    blocks, ``Phi^T Phi`` and ``Phi^T y`` say. The sums run as a tree, ``split_every``
    partial results per node, so that neither the client nor any worker holds more than
    ``split_every`` of them at once; ``args`` enter the graph once each, as in
    :func:`map_row_blocks`. The computation runs on the current scheduler (a
    ``dask.distributed.Client``, when one is active).
    """
    import_dask(what)
    import dask

    if not arrays:
        raise ValueError("sum_row_blocks needs at least one dask array")
    for a, name in zip(arrays, names, strict=False):
        check_row_chunked(a, name, ndim=a.ndim)
    for a, name in zip(arrays[1:], names[1:], strict=False):
        check_aligned_rows(arrays[0], a, (names[0], name))
    shipped = [_once(dask, a) for a in args]
    block_func = dask.delayed(func, pure=True)
    columns = [a.to_delayed().reshape(-1) for a in arrays]  # one per row block
    rows = arrays[0].chunks[0]
    parts = [
        block_func(*blocks, *shipped)
        for size, *blocks in zip(rows, *columns, strict=True)
        if size  # an empty chunk adds nothing (and func may refuse empty input)
    ]
    if not parts:
        raise ValueError(
            f"{names[0]} is empty (shape {arrays[0].shape}); at least one sample is required"
        )
    add = dask.delayed(_add_statistics, pure=True)
    while len(parts) > 1:
        parts = [add(*parts[i : i + split_every]) for i in range(0, len(parts), split_every)]
    (total,) = dask.compute(parts[0])
    return tuple(total)
