"""Label vocabularies: raw labels -> integer codes learned in ``fit``, reused in ``transform``.

``fit`` numbers the distinct labels ``0..K-1`` (in sorted order when the labels can be
sorted, else in order of first appearance). ``transform`` maps known labels to the same
codes and gives every unseen label a fresh code ``K, K+1, ...`` (equal labels, equal
codes), so that unseen labels still count in a graph's own norm but match nothing fitted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Vocabulary", "combine_codes", "fit_codes", "transform_codes"]


@dataclass
class Vocabulary:
    """The distinct labels seen in ``fit``: ``values[k]`` has code ``k``."""

    values: np.ndarray
    sortable: bool
    _index: dict[Any, int] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def index(self) -> dict[Any, int]:
        if self._index is None:
            self._index = {v: k for k, v in enumerate(self.values.tolist())}
        return self._index


def fit_codes(raw: np.ndarray) -> tuple[Vocabulary, np.ndarray]:
    """Learn a vocabulary from ``raw`` labels and return it with their codes."""
    raw = np.asarray(raw)
    if raw.dtype != object:
        values, codes = np.unique(raw, return_inverse=True)
        return Vocabulary(values, True), codes.reshape(-1).astype(np.int64)
    index: dict[Any, int] = {}
    codes = np.fromiter((index.setdefault(x, len(index)) for x in raw), np.int64, len(raw))
    values = np.empty(len(index), dtype=object)
    values[:] = list(index)
    return Vocabulary(values, False, index), codes


def transform_codes(vocab: Vocabulary, raw: np.ndarray) -> np.ndarray:
    """Codes of ``raw`` in ``vocab``; unseen labels get fresh codes from ``len(vocab)`` on."""
    raw = np.asarray(raw)
    n_known = len(vocab)
    if vocab.sortable and raw.dtype != object and _comparable(vocab.values, raw):
        if n_known:
            pos = np.minimum(np.searchsorted(vocab.values, raw), n_known - 1)
            known = vocab.values[pos] == raw
        else:
            pos = np.zeros(len(raw), dtype=np.int64)
            known = np.zeros(len(raw), dtype=bool)
        codes = pos.astype(np.int64)
        if not known.all():
            _, fresh = np.unique(raw[~known], return_inverse=True)
            codes[~known] = n_known + fresh.reshape(-1)
        return codes
    index = vocab.index
    unseen: dict[Any, int] = {}
    return np.fromiter(
        (
            index[x] if x in index else unseen.setdefault(x, n_known + len(unseen))
            for x in raw.tolist()
        ),
        np.int64,
        len(raw),
    )


def _comparable(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether NumPy compares the two arrays' labels as Python would (numbers vs strings)."""
    numeric = "biuf"
    return (a.dtype.kind in numeric and b.dtype.kind in numeric) or (
        a.dtype.kind == "U" and b.dtype.kind == "U"
    )


def combine_codes(columns: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """One int64 key per row of several code columns (mixed radix), stable across calls.

    Column ``j`` holds codes from a vocabulary of ``sizes[j]`` fitted values, plus possibly
    fresh codes ``>= sizes[j]`` for unseen values. Rows of fitted codes only get the key
    ``sum_j c_j * prod_{k>j} sizes[k]`` (the same in ``fit`` and ``transform``); rows with a
    fresh code get keys above all of those, equal rows equal keys.
    """
    n = len(columns[0]) if columns else 0
    radix = [max(int(s), 1) for s in sizes]
    base = 1
    for r in radix:
        base *= r
    if base >= 2**62:
        raise ValueError("too many distinct labels to combine into 64-bit keys")
    key = np.zeros(n, dtype=np.int64)
    for c, r in zip(columns, radix, strict=True):
        key = key * r + np.minimum(c, r - 1)
    fresh = np.zeros(n, dtype=bool)
    for c, s in zip(columns, sizes, strict=True):
        fresh |= c >= s
    if fresh.any():
        wide = [int(c.max()) + 1 if len(c) else 1 for c in columns]
        span = 1
        for w in wide:
            span *= w
        if base + span >= 2**62:
            raise ValueError("too many distinct labels to combine into 64-bit keys")
        alt = np.zeros(int(fresh.sum()), dtype=np.int64)
        for c, w in zip(columns, wide, strict=True):
            alt = alt * w + c[fresh]
        key[fresh] = base + alt
    return key
