"""Label vocabularies: raw labels -> integer codes learned in ``fit``, reused in ``transform``.

``fit`` numbers the distinct labels ``0..K-1`` (in sorted order when the labels can be
sorted, else in order of first appearance). ``transform`` maps known labels to the same
codes and gives every unseen label a fresh code ``K, K+1, ...`` (equal labels, equal
codes), so that unseen labels still count in a graph's own norm but match nothing fitted.

Label identity
--------------
Two labels are the same label exactly when Python's ``==`` says so (as for dict keys),
with one exception: every NaN is one label (``float("nan")`` objects, ``np.nan``, NumPy
float NaNs, any value not equal to itself). So ``1``, ``1.0``, ``True`` and
``np.int64(1)`` are one label, ``"1"`` is another, and ``2**53 + 1`` differs from
``2**53`` (and from ``float(2**53 + 1)``, which is ``2**53``). Numeric and string label
arrays are coded with NumPy where NumPy compares them exactly (same dtype, or a common
dtype that holds both sides exactly); every other case goes through a dict of the Python
values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "NAN_LABEL",
    "Vocabulary",
    "combine_codes",
    "fit_codes",
    "label_keys",
    "split_key",
    "transform_codes",
]

#: Integers of at most this magnitude are exact in float64 (and only they are sure to be).
_FLOAT_EXACT = 2.0**53


class _NaNLabel:
    """The dict key of every NaN label: all instances are equal (also after pickling)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _NaNLabel)

    def __hash__(self) -> int:
        return 0x6E616E  # any constant

    def __repr__(self) -> str:
        return "nan"


#: The key that stands for every NaN label in dict lookups.
NAN_LABEL = _NaNLabel()


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
        """Label key (see :func:`label_keys`) -> code."""
        if self._index is None:
            self._index = {v: k for k, v in enumerate(label_keys(self.values))}
        return self._index


def label_keys(raw: np.ndarray) -> list[Any]:
    """The Python values of ``raw`` as dict keys: every NaN replaced by :data:`NAN_LABEL`."""
    keys = raw.tolist()
    if raw.dtype.kind in "fc":
        nan = np.flatnonzero(np.isnan(raw))
    elif raw.dtype == object:
        nan = np.flatnonzero(_not_self_equal(raw))
    else:
        return keys  # type: ignore[no-any-return]
    for i in nan.tolist():
        keys[i] = NAN_LABEL
    return keys  # type: ignore[no-any-return]


def _not_self_equal(raw: np.ndarray) -> np.ndarray:
    """``x != x`` for every element of an object array (True exactly for the NaN-likes)."""
    try:
        out = np.asarray(raw != raw, dtype=bool)
        if out.shape == raw.shape:
            return out
    except (TypeError, ValueError):
        pass
    return np.array([_is_nan_like(x) for x in raw.tolist()], dtype=bool)


def _is_nan_like(x: Any) -> bool:
    try:
        return bool(x != x)
    except (TypeError, ValueError):  # a comparison that raises is not a NaN
        return False


def fit_codes(raw: np.ndarray) -> tuple[Vocabulary, np.ndarray]:
    """Learn a vocabulary from ``raw`` labels and return it with their codes.

    Numeric and string arrays are coded by ``np.unique`` (all NaNs one value); object
    arrays by a dict of their values (all NaNs one key), in order of first appearance.
    """
    raw = np.asarray(raw)
    if raw.dtype != object:
        values, codes = np.unique(raw, return_inverse=True)  # equal_nan: one NaN
        return Vocabulary(values, True), codes.reshape(-1).astype(np.int64)
    index: dict[Any, int] = {}
    keys = label_keys(raw)
    codes = np.fromiter((index.setdefault(x, len(index)) for x in keys), np.int64, len(raw))
    _, first = np.unique(codes, return_index=True)  # codes count up in order of appearance
    return Vocabulary(raw[first], False, index), codes


def transform_codes(vocab: Vocabulary, raw: np.ndarray) -> np.ndarray:
    """Codes of ``raw`` in ``vocab``; unseen labels get fresh codes from ``len(vocab)`` on."""
    raw = np.asarray(raw)
    n_known = len(vocab)
    common = _common_dtype(vocab.values, raw) if vocab.sortable else None
    if common is not None:
        values, raw = vocab.values.astype(common, copy=False), raw.astype(common, copy=False)
        if n_known:
            pos = np.minimum(np.searchsorted(values, raw), n_known - 1)
            found = values[pos]
            known = found == raw
            if common.kind == "f":  # NaN sorts last, and is one label
                known |= np.isnan(found) & np.isnan(raw)
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
            for x in label_keys(raw)
        ),
        np.int64,
        len(raw),
    )


def _common_dtype(a: np.ndarray, b: np.ndarray) -> np.dtype | None:
    """A dtype that holds the values of both arrays exactly, so that NumPy compares them as
    Python compares the values; ``None`` when there is none (then a dict is used)."""
    ka, kb = a.dtype.kind, b.dtype.kind
    if a.dtype == b.dtype and ka in "biufU":
        return a.dtype
    if ka == "U" and kb == "U":
        return np.result_type(a.dtype, b.dtype)
    ints = "biu"
    if ka in ints and kb in ints:
        t = np.result_type(a.dtype, b.dtype)
        if t.kind in ints:
            return t
        # int64 against uint64 (NumPy would go to float64): one of the two must fit
        if _fits(a, np.int64) and _fits(b, np.int64):
            return np.dtype(np.int64)
        if _fits(a, np.uint64) and _fits(b, np.uint64):
            return np.dtype(np.uint64)
        return None
    if ka in ints + "f" and kb in ints + "f":
        for arr in (a, b):
            if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
                return None  # long double: float64 would round it
            if arr.dtype.kind in "iu" and len(arr):
                if max(-int(arr.min()), int(arr.max())) >= _FLOAT_EXACT:
                    return None  # an integer that float64 may not hold
        return np.dtype(np.float64)
    return None


def _fits(arr: np.ndarray, dtype: type) -> bool:
    if not len(arr):
        return True
    info = np.iinfo(dtype)
    return bool(int(arr.min()) >= info.min and int(arr.max()) <= info.max)


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


def split_key(key: int, sizes: list[int]) -> tuple[int, ...]:
    """The fitted codes of one key of :func:`combine_codes` (inverse for fitted rows)."""
    out = []
    for r in reversed([max(int(s), 1) for s in sizes]):
        key, c = divmod(int(key), r)
        out.append(c)
    return tuple(reversed(out))
