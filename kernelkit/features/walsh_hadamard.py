"""Fast Walsh–Hadamard transform (FWHT) along the last axis, vectorised over rows.

``fwht(X)`` computes ``X @ H`` for the Sylvester Hadamard matrix ``H`` of order ``d``
(Rowland (2018) eq. 6.2; ``H`` is symmetric, so this is ``H x`` for every row ``x``),
either unnormalised (entries ±1) or normalised (``H / sqrt(d)``, orthonormal and its own
inverse). ``d`` must be a power of two; :func:`pad_to_power_of_two` pads with zeros.

How it is fast
--------------
``H_d = H_{f_1} ⊗ ... ⊗ H_{f_t}`` with small factors ``f_j`` (at most 16), so instead of
``log2 d`` butterfly passes each stage applies one small dense Hadamard matrix along one
axis of the row viewed as an ``f_1 x ... x f_t`` tensor — a matrix product with a tiny
inner dimension, i.e. ``log2 f_j`` butterfly passes fused into one BLAS call. The block of
rows being transformed sits in the layout ``(f_1, ..., f_{t-1}, rows, f_t)`` so that every
stage is one large, contiguous GEMM (or a few) writing into a preallocated buffer, and
blocks of rows small enough to stay in cache (about 256 KiB) go through all stages before
the next block is loaded. Blocks can be spread over threads (the GEMMs and ufuncs release
the GIL; BLAS is held to one thread meanwhile). See ``benchmarks/random_features.py``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from kernelkit._threads import one_blas_thread, resolve_n_jobs
from kernelkit._validation import check_int, check_n_jobs

__all__ = [
    "fwht",
    "hadamard_matrix",
    "is_power_of_two",
    "next_power_of_two",
    "pad_to_power_of_two",
]

#: Largest Kronecker factor is ``2 ** _MAX_FACTOR_BITS`` (tuned: 16 beats 8 and 32 for
#: d = 1024 and 4096 on the reference machine; see the module docstring).
_MAX_FACTOR_BITS = 4
#: Target size in bytes of one block of rows (per buffer); two buffers are live.
_BLOCK_BYTES = 256 * 1024
_FLOAT_TYPES = (np.float32, np.float64)
_COMPLEX_TYPES = (np.complex64, np.complex128)


def is_power_of_two(d: int) -> bool:
    """Whether the integer ``d >= 1`` is a power of two.

    Parameters
    ----------
    d : int
        The integer to test.

    Returns
    -------
    bool
        True if ``d`` is a power of two (False for ``d < 1``).
    """
    return d >= 1 and (d & (d - 1)) == 0


def next_power_of_two(d: int) -> int:
    """Smallest power of two ``>= d`` for an integer ``d >= 1`` (Python or NumPy).

    Parameters
    ----------
    d : int
        A positive integer.

    Returns
    -------
    int
        The power of two.

    Examples
    --------
    >>> next_power_of_two(5), next_power_of_two(np.int64(1024))
    (8, 1024)
    """
    d = check_int(d, "d", minimum=1)
    return 1 << (d - 1).bit_length()


def pad_to_power_of_two(X: Any) -> np.ndarray:
    """Zero-pad the last axis of ``X`` to the next power of two (Rowland (2018) §6.2).

    Padding does not change inner products or norms, so every Hadamard-based map may pad
    its input first.

    Parameters
    ----------
    X : array-like of shape (..., d)
        At least one-dimensional, with ``d >= 1``.

    Returns
    -------
    ndarray of shape (..., D)
        ``X`` itself (as an array, no copy) when ``d`` is already a power of two, else a
        new array of the same dtype with zeros appended; ``D = next_power_of_two(d)``.

    Raises
    ------
    ValueError
        If ``X`` is a scalar or its last axis is empty.
    """
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"X must be an array of numbers, got {type(X).__name__}")
    X = np.asarray(X)
    if X.ndim == 0:
        raise ValueError("X must be at least 1-dimensional")
    d = X.shape[-1]
    if d == 0:
        raise ValueError("X has a last axis of length 0; there is nothing to pad")
    D = next_power_of_two(d)
    if D == d:
        return X
    out = np.zeros((*X.shape[:-1], D), dtype=X.dtype)
    out[..., :d] = X
    return out


def hadamard_matrix(d: int, *, normalized: bool = True, dtype: Any = np.float64) -> np.ndarray:
    """Dense Sylvester Hadamard matrix of order ``d`` (eq. 6.2), for tests and tiny ``d``.

    Parameters
    ----------
    d : int
        The order, a power of two.
    normalized : bool, default=True
        Divide by ``sqrt(d)`` (an orthogonal matrix) instead of the ±1 matrix.
    dtype : dtype, default=np.float64
        The dtype of the result.

    Returns
    -------
    ndarray of shape (d, d)
        The matrix ``H``.

    Raises
    ------
    ValueError
        If ``d`` is not a power of two.
    """
    if not is_power_of_two(d):
        raise ValueError(f"d must be a power of two, got {d}")
    H = np.ones((1, 1), dtype=dtype)
    while H.shape[0] < d:
        H = np.block([[H, H], [H, -H]])
    if normalized:
        H = H / np.sqrt(d)
    return H.astype(dtype, copy=False)


# ---------------------------------------------------------------------------- the plan
@functools.lru_cache(maxsize=64)
def _factor_bits(log2d: int) -> tuple[int, ...]:
    """Split ``log2 d`` into as few parts of at most ``_MAX_FACTOR_BITS`` as possible,
    as even as possible, largest last (the last axis is the cheapest GEMM)."""
    if log2d == 0:
        return (0,)
    t = -(-log2d // _MAX_FACTOR_BITS)
    base, extra = divmod(log2d, t)
    return tuple([base] * (t - extra) + [base + 1] * extra)


class _Plan:
    """Kronecker factors and stage matrices of ``H_d`` for one dtype and scaling."""

    def __init__(self, d: int, dtype: np.dtype, scale: float):
        self.d = d
        self.dtype = np.dtype(dtype)
        self.factors = tuple(1 << b for b in _factor_bits(d.bit_length() - 1))
        mats = [hadamard_matrix(f, normalized=False, dtype=self.dtype) for f in self.factors]
        mats[0] = (mats[0] * scale).astype(self.dtype)  # fold the scale into one stage
        self.mats = mats
        t = len(self.factors)
        # row block r sits at axis t-1: layout (f_1, ..., f_{t-1}, r, f_t)
        self.perm = (*range(1, t), 0, t)
        self.inv_perm = tuple(int(i) for i in np.argsort(self.perm))

    @property
    def single(self) -> bool:
        return len(self.factors) == 1

    def layout_shape(self, r: int) -> tuple[int, ...]:
        return (*self.factors[:-1], r, self.factors[-1])

    def to_layout(self, xb: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Copy rows ``xb`` (r, d) into ``out`` in layout order; returns the layout view."""
        r = xb.shape[0]
        z = out[: r * self.d].reshape(self.layout_shape(r))
        np.copyto(z, xb.reshape(r, *self.factors).transpose(self.perm))
        return z

    def layout_rows(self, z: np.ndarray) -> np.ndarray:
        """View of a layout array as rows ``(r, f_1, ..., f_t)`` (strided, no copy)."""
        return z.transpose(self.inv_perm)

    def apply(self, z: np.ndarray, buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply ``H`` to the layout array ``z``, using ``buf`` (same size or larger) as
        scratch; returns ``(result, spare)``: one of them is ``z``, the other a view of
        ``buf`` in the layout shape."""
        shape = z.shape
        size = z.size
        src, dst = z, buf.reshape(-1)[:size].reshape(shape)
        t = len(self.factors)
        for j, (f, H) in enumerate(zip(self.factors, self.mats, strict=True)):
            if j == t - 1:
                np.matmul(src.reshape(-1, f), H, out=dst.reshape(-1, f))
            else:
                p = math.prod(self.factors[:j])
                q = size // (p * f)
                a, b = src.reshape(p, f, q), dst.reshape(p, f, q)
                if p == 1:
                    np.matmul(H, a[0], out=b[0])
                else:
                    np.matmul(H, a, out=b)
            src, dst = dst, src
        return src, dst


@functools.lru_cache(maxsize=64)
def _plan(d: int, dtype: str, normalized: bool) -> _Plan:
    return _Plan(d, np.dtype(dtype), 1.0 / math.sqrt(d) if normalized else 1.0)


def _block_rows(d: int, itemsize: int, n: int) -> int:
    return max(1, min(n, _BLOCK_BYTES // (d * itemsize)))


# ---------------------------------------------------------------------------- threading
def run_row_blocks(
    n: int, block: int, work: Callable[[int, int, dict], None], n_jobs: int = 1
) -> None:
    """Call ``work(start, stop, scratch)`` on consecutive row blocks, on ``n_jobs`` threads.

    Each thread gets its own ``scratch`` dict (for preallocated buffers) and takes the
    next block when it finishes one (so a thread slowed by other load does not hold up
    the rest); BLAS is held to one thread while the workers run. The workers run under
    the caller's NumPy floating-point error settings (``np.errstate``), as the caller's
    own thread does.
    """
    starts = range(0, n, block)
    n_jobs = max(1, min(n_jobs, len(starts)))
    with one_blas_thread():
        if n_jobs == 1:
            scratch: dict = {}
            for s in starts:
                work(s, min(s + block, n), scratch)
            return
        queue = iter(starts)  # next() on a range iterator is atomic under the GIL
        errors = np.geterr()  # thread-local: hand the caller's settings to the workers

        def run() -> None:
            local: dict = {}
            with np.errstate(**errors):
                for s in queue:
                    work(s, min(s + block, n), local)

        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            for fut in [pool.submit(run) for _ in range(n_jobs)]:
                fut.result()


def scratch_buffer(scratch: dict, key: str, size: int, dtype: np.dtype) -> np.ndarray:
    """A reusable 1-D buffer of at least ``size`` elements from a worker's ``scratch``."""
    buf = scratch.get(key)
    if buf is None or buf.size < size or buf.dtype != dtype:
        buf = np.empty(size, dtype=dtype)
        scratch[key] = buf
    return buf


# ---------------------------------------------------------------------------- public API
def _check_fwht_input(x: Any, inplace: bool) -> np.ndarray:
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"x must be an array of numbers, got {type(x).__name__}")
    arr = x if isinstance(x, np.ndarray) else np.asarray(x)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"x must be an array of numbers, got dtype {arr.dtype}")
    if arr.ndim not in (1, 2):
        raise ValueError(f"x must be 1- or 2-dimensional, got shape {arr.shape}")
    d = arr.shape[-1]
    if not is_power_of_two(d):
        raise ValueError(
            f"x has a last axis of length {d}, which is not a power of two; pad it first "
            "with kernelkit.features.walsh_hadamard.pad_to_power_of_two(x)"
        )
    if inplace:
        if not isinstance(x, np.ndarray) or x.dtype not in (*_FLOAT_TYPES, *_COMPLEX_TYPES):
            raise TypeError(
                "inplace=True needs a float32, float64, complex64 or complex128 ndarray, "
                f"got {type(x).__name__} of dtype {arr.dtype}"
            )
        if not x.flags.writeable:
            raise ValueError("inplace=True needs a writeable array")
        return x
    if arr.dtype not in (*_FLOAT_TYPES, *_COMPLEX_TYPES):
        arr = arr.astype(np.complex128 if np.iscomplexobj(arr) else np.float64)
    return arr


def fwht(x: Any, *, normalized: bool = True, inplace: bool = False, n_jobs: int | None = 1) -> Any:
    """Walsh–Hadamard transform of every row: ``x @ H`` with ``H`` of order ``d``.

    Parameters
    ----------
    x : array-like of shape (d,) or (n, d)
        ``d`` must be a power of two (see :func:`pad_to_power_of_two`). float32 and
        float64 are kept; complex64/complex128 are transformed as real and imaginary
        parts; anything else numeric is converted to float64. Finite: NaN and infinity
        are refused.
    normalized : bool, default=True
        Use ``H / sqrt(d)`` (orthonormal, so ``fwht(fwht(x)) == x``) instead of the
        ±1 matrix.
    inplace : bool, default=False
        Overwrite ``x`` (which must then be a writeable float or complex ndarray) and
        return it.
    n_jobs : int or None, default=1
        Threads over blocks of rows: a positive integer, ``-1`` (all CPUs) or ``None``
        (the BLAS thread count), as for the random maps.

    Returns
    -------
    ndarray
        ``x @ H``, of the shape of ``x`` (and its dtype, for float and complex input).

    Raises
    ------
    ValueError
        ``x`` holds NaN or infinity, is not 1- or 2-dimensional, or its last axis is not
        a power of two; ``n_jobs`` is 0 or below -1.
    OverflowError
        An entry of ``x @ H`` itself lies beyond the largest float of ``x``'s dtype (at
        most ``d max|x|``, or ``sqrt(d) max|x|`` normalised); ``x`` is left unchanged.
    TypeError
        ``x`` is not numeric; ``n_jobs`` is not an integer.

    Notes
    -----
    Rowland (2018) eq. 6.2 and §6.3.6 (Fig. 6.1: ``H`` as a Kronecker product of 2x2
    blocks). Cost ``O(d log d)`` per row up to the small dense factors (see the module
    docstring). Every entry of every stage is at most ``d max|x|`` (``sqrt(d) max|x|``
    normalised) in size; when that bound is near the top of the dtype's range, or
    ``max|x|`` is near the bottom (subnormal), the input is first scaled by a power of
    two (exactly) and the result scaled back, so that intermediate sums neither overflow
    nor lose bits to underflow.

    Examples
    --------
    >>> import numpy as np
    >>> fwht(np.array([1.0, 0.0, 0.0, 0.0]), normalized=False)
    array([1., 1., 1., 1.])
    >>> fwht(np.array([1.0, 2.0]))
    array([ 2.12132034, -0.70710678])
    >>> fwht(np.array([1e308, 1e308]))  # the unscaled sum 2e308 would overflow
    array([1.41421356e+308, 0.00000000e+000])
    """
    arr = _check_fwht_input(x, inplace)
    n_jobs = check_n_jobs(n_jobs)
    X = arr.reshape(1, -1) if arr.ndim == 1 else arr
    out = arr if inplace else np.empty_like(arr)
    Y = out.reshape(1, -1) if out.ndim == 1 else out
    if X.size == 0:
        return out
    if np.iscomplexobj(X):
        shifts = [_scaling_shift(part, normalized) for part in (X.real, X.imag)]
        re = _fwht_part(X.real, normalized, n_jobs, shifts[0])
        im = _fwht_part(X.imag, normalized, n_jobs, shifts[1])
        Y.real, Y.imag = re, im
        return out
    shift = _scaling_shift(X, normalized)
    if shift:
        Y[...] = _fwht_part(X, normalized, n_jobs, shift)
        return out
    if not X.flags.c_contiguous:
        X = np.ascontiguousarray(X)
    _fwht_rows(X, Y, normalized, n_jobs)
    return out


def _scaling_shift(X: np.ndarray, normalized: bool) -> int:
    """The power of two ``e`` by which to divide ``X`` before the transform (0: none):
    the exponent of ``max|X|`` when ``d max|X|`` (``sqrt(d) max|X|`` normalised), the
    bound on every intermediate entry, is within a factor 4 of the dtype's largest
    float, or when ``max|X|`` is so small that the scaled first stage would be
    subnormal. Refuses NaN and infinity (``ValueError`` naming ``x``)."""
    m = max(float(X.max()), -float(X.min()))  # NaN propagates through max / min
    if not math.isfinite(m):
        raise ValueError("x contains NaN or infinity; fwht needs finite input")
    if m == 0.0:
        return 0
    info = np.finfo(X.dtype)
    d = X.shape[-1]
    growth = float(d) if not normalized else math.sqrt(d)
    small = float(info.tiny) * 2.0 ** (info.nmant + 2) * math.sqrt(d)
    if growth * m <= float(info.max) / 4.0 and m >= small:
        return 0
    return math.frexp(m)[1]


def _fwht_part(X: np.ndarray, normalized: bool, n_jobs: int | None, shift: int) -> np.ndarray:
    """``X @ H`` for a real ``X`` in a new C-contiguous array, computed on ``X 2^-shift``
    (exact: a power of two) and scaled back; ``OverflowError`` when the result itself
    is beyond the dtype's range."""
    Z = np.ascontiguousarray(np.ldexp(X, -shift) if shift else X, dtype=X.dtype)
    if Z is X or np.shares_memory(Z, X):
        Z = Z.copy()
    _fwht_rows(Z, Z, normalized, n_jobs)
    if shift > 0:
        top = max(float(Z.max()), -float(Z.min()))
        if top > math.ldexp(float(np.finfo(X.dtype).max), -shift):
            kind = "normalised" if normalized else "unnormalised"
            log10 = math.log10(top) + shift * math.log10(2.0)
            size = f"{10 ** (log10 % 1):.3g}e+{math.floor(log10)}"
            raise OverflowError(
                f"the {kind} Walsh–Hadamard transform of x has an entry of about {size}, "
                f"beyond the largest {X.dtype} ({float(np.finfo(X.dtype).max):.3g}); "
                "scale x down first"
            )
    if shift:
        np.ldexp(Z, shift, out=Z)
    return Z


def _fwht_rows(X: np.ndarray, Y: np.ndarray, normalized: bool, n_jobs: int | None) -> None:
    """``Y[:] = X @ H`` for real C-contiguous ``X`` (``Y`` may be ``X``)."""
    n, d = X.shape
    if n == 0:
        return
    plan = _plan(d, X.dtype.str, normalized)
    if plan.single:
        H = plan.mats[0]
        block = _block_rows(d, X.itemsize, n)

        def work_small(s: int, e: int, scratch: dict) -> None:
            tmp = scratch_buffer(scratch, "a", (e - s) * d, X.dtype)[: (e - s) * d]
            np.matmul(X[s:e], H, out=tmp.reshape(e - s, d))
            Y[s:e] = tmp.reshape(e - s, d)

        run_row_blocks(n, block, work_small, resolve_n_jobs(n_jobs))
        return
    block = _block_rows(d, X.itemsize, n)

    def work(s: int, e: int, scratch: dict) -> None:
        size = (e - s) * d
        a = scratch_buffer(scratch, "a", size, X.dtype)
        b = scratch_buffer(scratch, "b", size, X.dtype)
        z = plan.to_layout(X[s:e], a)
        res, _ = plan.apply(z, b)
        np.copyto(Y[s:e].reshape(e - s, *plan.factors), plan.layout_rows(res))

    run_row_blocks(n, block, work, resolve_n_jobs(n_jobs))
