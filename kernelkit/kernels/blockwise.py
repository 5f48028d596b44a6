"""Gram matrices and kernel-matrix products by blocks of rows, for ``n`` beyond one
machine's memory (or beyond one machine).

* :func:`gram` — the Gram matrix ``k(X, Y)`` as a lazy dask array: block ``(i, j)`` is
  ``k(X_i, Y_j)`` on the NumPy row blocks ``X_i`` and ``Y_j``. The kernel enters the task
  graph once, as one key that every block depends on, so a distributed scheduler ships it
  to each worker once rather than pickling it into every task. For ``Y = X`` only the
  blocks on and above the diagonal are computed; the others are their transposes. A
  product ``gram(k, X) @ v`` stays lazy and is computed block by block: its largest
  array is one block, never the ``(n, n)`` matrix.
* :func:`kernel_operator` — ``K + noise I`` as a symmetric SciPy ``LinearOperator`` on a
  NumPy ``X``, for conjugate gradients (``scipy.sparse.linalg.cg``), Lanczos
  (``eigsh``) and Nyström-type methods: each product forms one ``block_size`` square
  block of ``K`` at a time (each block above the diagonal serving its transpose too),
  ``O(block_size^2)`` memory instead of ``O(n^2)``, and ``O(n^2 d)`` work.

Both take kernels on vectors (and the constant and white-noise kernels, with them or on
their own); a kernel on lists of objects (sets, graphs, descriptor sets) is refused.
Diagonal blocks are evaluated as ``k(X_i)``, so a :class:`~kernelkit.kernels.White` term
puts its noise on the diagonal exactly as in ``k(X)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse.linalg import LinearOperator

from kernelkit._dask import check_row_chunked, import_dask, is_dask_array
from kernelkit._memory import check_memory
from kernelkit._threads import map_on_blas_threads
from kernelkit._validation import check_array, check_int, check_nonnegative_number
from kernelkit.kernels.base import Kernel
from kernelkit.kernels.names import resolve_kernel

__all__ = ["gram", "kernel_operator"]

#: Rows (and columns) of the square blocks of ``K`` in :func:`kernel_operator` (and
#: :class:`kernelkit.linalg.KernelOperator`) when ``block_size=None``: 2 MB of float64,
#: one tile of the distance computation, so a block stays in cache from its distances to
#: its products. Measured on 2 cores (n = 40 000, d = 5), a pass took 1.3 s with 512,
#: 1.6 s with 1024, 2.0 s with 2048 and 2.8 s with 256 (one column; 2.6, 3.2, 3.4 and
#: 4.0 s with 41), and the gradient contraction 2.3, 3.3, 4.9 and 4.8 s, while the blocks
#: in flight (about two per thread) fall from 130 MB at 2048 to 8 MB.
OPERATOR_BLOCK_ROWS = 512


def gram(kernel: Any, X: Any, Y: Any = None, *, chunks: int | str = "auto") -> Any:
    """The Gram matrix ``kernel(X, Y)`` as a lazy dask array computed block by block.

    Block ``(i, j)`` is ``kernel(X_i, Y_j)`` on the NumPy row blocks ``X_i`` of ``X`` and
    ``Y_j`` of ``Y``, so its chunks are the row chunks of ``X`` by those of ``Y``. The
    kernel (a copy taken now: later changes to ``kernel`` do not reach the graph) is one
    key of the graph, which every block task depends on. With ``Y`` omitted (or ``X``
    itself) the blocks below the diagonal are the transposes of those above, computed
    once, and diagonal blocks are ``kernel(X_i)``.

    ``gram(kernel, X) @ v`` is a lazy matrix product evaluated block by block: it computes
    ``K v`` without ever holding more than one block of ``K`` per task, which is how to
    multiply by the kernel matrix of a dask ``X`` (see :func:`kernel_operator` for a NumPy
    ``X``).

    Parameters
    ----------
    kernel : Kernel or str
        A kernel on vectors, or a name of :data:`~kernelkit.kernels.KERNEL_NAMES`
        (through :func:`~kernelkit.kernels.resolve_kernel`).
    X : array-like of shape (n, d) or dask array
        A NumPy (or array-like) input is checked now and cut into row blocks by
        ``chunks``; a dask array must be chunked along its rows only, and keeps its row
        chunks (its values are checked, finite and numeric, when the blocks are computed).
    Y : array-like of shape (m, d) or dask array, optional
        As ``X``; ``X`` when omitted.
    chunks : int or "auto", default="auto"
        Rows per block for the NumPy inputs (the last block may be smaller). ``"auto"``
        lets Dask pick row blocks so that one block of the Gram matrix is about its
        ``array.chunk-size`` setting (128 MiB by default: 4096 x 4096 in float64).

    Returns
    -------
    dask.array.Array of shape (n, m)
        The Gram matrix, float64 (float32 when the inputs are float32), chunked
        ``(row chunks of X, row chunks of Y)``; call ``.compute()`` for the NumPy matrix.

    Raises
    ------
    ImportError
        If Dask is not installed.
    TypeError
        If ``kernel`` is a kernel on lists of objects, or an input is not numeric.
    ValueError
        If a dask input is chunked along its features, ``X`` and ``Y`` have different
        numbers of features, ``chunks`` is not a positive integer or ``"auto"``, or one
        block would not fit in this machine's memory.

    See Also
    --------
    kernel_operator : ``(K + noise I) v`` for a NumPy ``X`` without forming ``K``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, gram
    >>> X = np.random.default_rng(0).standard_normal((10, 3))
    >>> K = gram(RBF(lengthscale=2.0), X, chunks=4)
    >>> K.chunks
    ((4, 4, 2), (4, 4, 2))
    >>> bool(np.allclose(K.compute(), RBF(lengthscale=2.0)(X)))
    True
    >>> Kv = K @ np.ones(10)  # lazy, block by block
    >>> bool(np.allclose(Kv.compute(), RBF(lengthscale=2.0)(X).sum(axis=1)))
    True
    """
    kernel = _vector_kernel(kernel, "gram")
    chunks = _check_chunks(chunks)
    da = import_dask("kernelkit.kernels.gram")
    import dask
    from dask.array.core import normalize_chunks
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    same = Y is None or Y is X
    X = _block_input(X, "X")
    Y = X if same else _block_input(Y, "Y")
    d = X.shape[1]
    if Y.shape[1] != d:
        raise ValueError(f"X and Y have different numbers of features ({d} and {Y.shape[1]})")
    kernel._check_n_features(d)  # a wrong ARD size fails now, not in a worker
    dtype = np.result_type(_value_dtype(X.dtype), _value_dtype(Y.dtype))

    def rows(A: Any) -> Any:
        return A.chunks[0] if is_dask_array(A) else chunks

    x_rows, y_rows = normalize_chunks(
        (rows(X), rows(X) if same else rows(Y)), shape=(len(X), len(Y)), dtype=dtype
    )
    if same:
        y_rows = x_rows
    check_memory(
        max(x_rows) * max(y_rows) * dtype.itemsize,
        f"gram: a block of shape ({max(x_rows)}, {max(y_rows)}) ({dtype.name})",
        "use smaller chunks (rechunk a dask input along its rows)",
    )
    X = X if is_dask_array(X) else da.from_array(X, chunks=(x_rows, -1))
    Y = X if same else Y if is_dask_array(Y) else da.from_array(Y, chunks=(y_rows, -1))

    k = dask.delayed(kernel.clone(), pure=True)  # one key, shared by every block
    name = "gram-" + tokenize(k.key, X.name, Y.name, same, dtype)
    tasks: dict[Any, Any] = {}
    for i in range(len(x_rows)):
        for j in range(len(y_rows)):
            if same and j < i:
                tasks[name, i, j] = (np.transpose, (name, j, i))
            elif same and j == i:
                tasks[name, i, j] = (_block, k.key, (X.name, i, 0), None, dtype)
            else:
                tasks[name, i, j] = (_block, k.key, (X.name, i, 0), (Y.name, j, 0), dtype)
    graph = HighLevelGraph.from_collections(name, tasks, dependencies=[X, Y, k])
    return da.Array(graph, name, chunks=(x_rows, y_rows), dtype=dtype)


def kernel_operator(
    kernel: Any, X: Any, *, noise: float = 0.0, block_size: int | None = None
) -> LinearOperator:
    """``K + noise I``, with ``K = kernel(X)``, as a symmetric ``LinearOperator`` that
    never forms ``K``.

    Each product ``(K + noise I) V`` (``V`` a vector or an ``(n, k)`` matrix) runs over
    square blocks ``K_ij`` of ``block_size`` rows and columns, computed by the kernel once
    for ``i <= j`` (a block above the diagonal serves ``K_ji = K_ij^T`` too) and dropped
    after use, so memory is ``O(block_size^2)`` besides ``V`` and work ``O(n^2 d / 2)``
    kernel evaluations per product. The operator is symmetric (``rmatvec`` is
    ``matvec``), which is what ``scipy.sparse.linalg.cg`` and ``eigsh`` need for a
    positive (semi-)definite kernel.

    Parameters
    ----------
    kernel : Kernel or str
        A kernel on vectors, or a name of :data:`~kernelkit.kernels.KERNEL_NAMES`.
    X : array-like of shape (n, d)
        The inputs, a NumPy array (for a dask ``X`` use ``gram(kernel, X) @ v``, which
        is lazy and computed block by block).
    noise : float, default=0.0
        Added to the diagonal (the GP noise variance, or a ridge), ``>= 0``.
    block_size : int or None, default=None
        Rows (and columns) of ``K`` per block; ``None`` picks
        :data:`OPERATOR_BLOCK_ROWS` (512: 2 MB per block).

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (n, n), float64
        The operator ``V -> (K + noise I) V``.

    Raises
    ------
    TypeError
        If ``kernel`` is a kernel on lists of objects, ``X`` is a dask array or not
        numeric, or ``noise`` or ``block_size`` is not a number.
    ValueError
        If ``X`` is not a finite 2-D array, ``noise < 0``, ``block_size < 1``, or one
        block would not fit in this machine's memory.

    See Also
    --------
    gram : The Gram matrix as a lazy dask array.

    Examples
    --------
    Solve ``(K + 0.1 I) a = y`` by conjugate gradients, without the ``(n, n)`` matrix:

    >>> import numpy as np
    >>> from scipy.sparse.linalg import cg
    >>> from kernelkit.kernels import RBF, kernel_operator
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.standard_normal((200, 2)), rng.standard_normal(200)
    >>> A = kernel_operator(RBF(), X, noise=0.1, block_size=64)
    >>> A.shape
    (200, 200)
    >>> a, info = cg(A, y, rtol=1e-10)
    >>> info
    0
    >>> bool(np.allclose(a, np.linalg.solve(RBF()(X) + 0.1 * np.eye(200), y)))
    True
    """
    kernel = _vector_kernel(kernel, "kernel_operator")
    if is_dask_array(X):
        raise TypeError(
            "kernel_operator takes a NumPy X, got a dask array; for a dask X use "
            "gram(kernel, X) @ v, a lazy product computed block by block"
        )
    X = check_array(X, "X")
    kernel._check_n_features(X.shape[1])
    noise = check_nonnegative_number(noise, "noise")
    n = len(X)
    if block_size is None:
        rows = OPERATOR_BLOCK_ROWS
    else:
        rows = check_int(block_size, "block_size", minimum=1)
    rows = min(rows, n)
    check_memory(
        rows * rows * 8,
        f"kernel_operator: a block of shape ({rows}, {rows}) (float64)",
        "pass a smaller block_size",
    )

    def apply(V: np.ndarray) -> np.ndarray:
        return noisy_block_product(kernel, X, V, rows, noise)

    return LinearOperator(
        (n, n), matvec=apply, rmatvec=apply, matmat=apply, rmatmat=apply, dtype=np.float64
    )


def symmetric_block_product(kernel: Kernel, X: np.ndarray, V: np.ndarray, rows: int) -> np.ndarray:
    """``kernel(X) @ V`` by square blocks of ``rows`` rows, each evaluated once.

    ``K`` is symmetric, so the block ``K_ij = kernel(X_i, X_j)`` above the diagonal serves
    both ``K_ij V_j`` and ``K_ji V_i = K_ij^T V_i``: half the kernel evaluations of a pass
    by row blocks. Diagonal blocks are ``kernel(X_i)`` (a White term's noise). The blocks
    are shared out among threads (one per BLAS thread, each block evaluated and multiplied
    on one), and their products added in a fixed order, so the result does not depend on
    the thread count. Memory is about two blocks per thread besides ``V`` and the result.
    """
    n = len(X)
    out = np.zeros(V.shape, dtype=np.result_type(V.dtype, np.float64))
    starts = range(0, n, rows)
    pairs = [(i, j) for i in starts for j in starts if j >= i]

    def block(ij: tuple[int, int]) -> tuple[np.ndarray, np.ndarray | None]:
        i, j = ij
        si, sj = slice(i, min(i + rows, n)), slice(j, min(j + rows, n))
        if i == j:
            return kernel(X[si]) @ V[si], None
        Kij = kernel(X[si], X[sj])
        return Kij @ V[sj], Kij.T @ V[si]

    products = map_on_blas_threads(block, pairs)
    for (i, j), (upper, lower) in zip(pairs, products, strict=True):
        out[i : i + rows] += upper
        if lower is not None:
            out[j : j + rows] += lower
    return out


def add_scaled(out: np.ndarray, V: np.ndarray, a: float) -> None:
    """``out += a * V`` in place, eight columns at a time: the temporary is ``(n, 8)``,
    not the size of ``V``."""
    if V.ndim == 1:
        out += a * V
        return
    for j in range(0, V.shape[1], 8):
        out[:, j : j + 8] += a * V[:, j : j + 8]


def noisy_block_product(
    kernel: Kernel, X: np.ndarray, V: Any, rows: int, noise: float
) -> np.ndarray:
    """``(kernel(X) + noise I) V`` by :func:`symmetric_block_product`, with ``V`` and the
    result checked finite (a ValueError naming the cause, never a NaN)."""
    V = np.asarray(V, dtype=np.float64)
    if not np.isfinite(V).all():
        raise ValueError("the vector multiplied by the kernel operator contains NaN or inf")
    with np.errstate(over="ignore", invalid="ignore"):  # refused below, with the cause
        out = symmetric_block_product(kernel, X, V, rows)
        if noise:
            add_scaled(out, V, noise)
    if not np.isfinite(out).all():
        raise ValueError(
            "the product of the kernel operator with this vector overflows float64 "
            f"(|v| up to {float(np.max(np.abs(V))):.3g}); rescale the vector"
        )
    return out


def _vector_kernel(kernel: Any, caller: str) -> Kernel:
    """The resolved ``kernel``, or a TypeError if it takes lists of objects."""
    kernel = resolve_kernel(kernel)
    if not (kernel.requires_vector_input or kernel._any_objects):
        raise TypeError(
            f"{caller} needs a kernel on vectors (rows of a numeric array), got {kernel!r}, "
            "a kernel on lists of objects; call the kernel on the list instead"
        )
    return kernel


def _check_chunks(chunks: Any) -> int | str:
    if isinstance(chunks, str):
        if chunks != "auto":
            raise ValueError(f"chunks must be a positive integer or 'auto', got {chunks!r}")
        return chunks
    return check_int(chunks, "chunks", minimum=1)


def _block_input(A: Any, name: str) -> Any:
    """A dask array checked for row chunking and a numeric dtype, or a checked ndarray."""
    if not is_dask_array(A):
        return check_array(A, name)
    check_row_chunked(A, name)
    if A.dtype.kind == "c":
        raise TypeError(f"{name} must be real-valued, got a complex dask array")
    if A.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be an array of numbers, got a dask array of {A.dtype}")
    if A.shape[0] == 0:
        raise ValueError(f"{name} is empty (shape {A.shape}); at least one sample is required")
    if A.shape[1] == 0:
        raise ValueError(f"{name} has no features (shape {A.shape})")
    return A


def _value_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of kernel values on inputs of ``dtype`` (as :func:`check_array` converts)."""
    dtype = np.dtype(dtype)
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)


def _block(kernel: Kernel, A: np.ndarray, B: np.ndarray | None, dtype: np.dtype) -> np.ndarray:
    """One block of the Gram matrix: ``kernel(A, B)`` (``kernel(A)`` on the diagonal).

    Dask names blocks by their contents, so equal blocks of a separate ``Y`` arrive as one
    object; a view keeps ``kernel(A, B)`` from taking them for ``kernel(A)`` (a White term
    adds its noise only to the latter, as ``k(X, Y)`` for a ``Y`` that is not ``X``).
    """
    if B is A:
        B = B[:]
    K = kernel(A) if B is None else kernel(A, B)
    return np.asarray(K, dtype=dtype)
