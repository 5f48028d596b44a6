"""``K + noise I`` as blockwise products that never form ``K``, with what the Krylov
estimators need besides the product: cross products with new inputs, the diagonal, rows
for preconditioners, and the contraction of the hyperparameter gradient with a low-rank
weight (``sum_ij (A B^T)_ij dK_ij/dtheta``, for the gradient of a stochastic marginal
likelihood).

Every pass over the matrix costs ``O(n^2 d)`` kernel evaluations, which dominate the time
of an exact GP at large ``n``; :attr:`KernelOperator.n_passes` counts them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit._memory import check_memory
from kernelkit._threads import map_on_blas_threads
from kernelkit._validation import check_array, check_int, check_nonnegative_number
from kernelkit.kernels import Kernel, resolve_kernel
from kernelkit.kernels.blockwise import OPERATOR_BLOCK_ROWS, noisy_block_product

__all__ = ["KernelOperator"]


class KernelOperator:
    """``K + noise I`` with ``K = kernel(X)``, by square blocks of ``K`` computed on demand.

    Parameters
    ----------
    kernel : Kernel or str
        A kernel on vectors.
    X : array-like of shape (n, d)
        The inputs.
    noise : float, default=0.0
        Added to the diagonal, ``>= 0``.
    block_size : int, optional
        Rows and columns of a block; by default
        :data:`~kernelkit.kernels.blockwise.OPERATOR_BLOCK_ROWS` (512, 2 MB of float64,
        the fastest measured).

    Attributes
    ----------
    kernel : Kernel
    X : ndarray of shape (n, d)
    noise : float
    block_size : int
    n_passes : int
        Products with ``K`` made so far (each ``O(n^2 d)``; a product with many columns
        counts once), including the passes of :meth:`gradient_dot`.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.linalg import KernelOperator
    >>> X = np.random.default_rng(0).standard_normal((300, 2))
    >>> A = KernelOperator(RBF(), X, noise=0.1, block_size=128)
    >>> V = np.ones((300, 2))
    >>> bool(np.allclose(A @ V, (RBF()(X) + 0.1 * np.eye(300)) @ V))
    True
    >>> A.n_passes
    1
    """

    def __init__(
        self, kernel: Any, X: Any, noise: float = 0.0, *, block_size: int | None = None
    ) -> None:
        kernel = resolve_kernel(kernel)
        if not (isinstance(kernel, Kernel) and kernel.requires_vector_input):
            raise TypeError(
                f"KernelOperator needs a kernel on vectors (rows of a numeric array), got "
                f"{kernel!r}"
            )
        X = check_array(X, "X")
        kernel._check_n_features(X.shape[1])
        self.kernel = kernel
        self.X = X
        self.noise = check_nonnegative_number(noise, "noise")
        n = len(X)
        if block_size is None:
            rows = OPERATOR_BLOCK_ROWS
        else:
            rows = check_int(block_size, "block_size", minimum=1)
        self.block_size = min(rows, n)
        check_memory(
            self.block_size**2 * 8 * 2,
            f"KernelOperator: blocks of shape ({self.block_size}, {self.block_size})",
            "pass a smaller block_size",
        )
        self.n_passes = 0

    @property
    def shape(self) -> tuple[int, int]:
        """``(n, n)``."""
        n = len(self.X)
        return (n, n)

    def _blocks(self) -> list[slice]:
        n, b = len(self.X), self.block_size
        return [slice(i, min(i + b, n)) for i in range(0, n, b)]

    def matmat(self, V: Any) -> np.ndarray:
        """``(K + noise I) V``, one pass over the blocks of ``K``.

        Parameters
        ----------
        V : array-like of shape (n,) or (n, k)
            Finite.

        Returns
        -------
        ndarray of the shape of ``V``
            The product.
        """
        V = np.asarray(V, dtype=np.float64)
        if V.shape[0] != len(self.X):
            raise ValueError(f"V must have {len(self.X)} rows, got shape {V.shape}")
        self.n_passes += 1
        return noisy_block_product(self.kernel, self.X, V, self.block_size, self.noise)

    __matmul__ = matmat

    def cross(self, Xnew: Any, V: Any) -> np.ndarray:
        """``kernel(Xnew, X) @ V``, by blocks.

        Parameters
        ----------
        Xnew : array-like of shape (m, d)
            New inputs.
        V : array-like of shape (n,) or (n, k)
            Weights of the training inputs.

        Returns
        -------
        ndarray of shape (m,) or (m, k)
            The product.
        """
        Xnew = check_array(Xnew, "X")
        V = np.asarray(V, dtype=np.float64)
        m = len(Xnew)
        b = self.block_size
        rows = [slice(i, min(i + b, m)) for i in range(0, m, b)]

        def block(si: slice) -> np.ndarray:
            part = np.zeros((si.stop - si.start, *V.shape[1:]))
            for sj in self._blocks():
                part += self.kernel(Xnew[si], self.X[sj]) @ V[sj]
            return part

        return np.concatenate([np.zeros((0, *V.shape[1:])), *map_on_blas_threads(block, rows)])

    def rows(self, index: Any) -> np.ndarray:
        """The rows ``index`` of ``K`` (without the noise): ``kernel(X[index], X)``.

        Parameters
        ----------
        index : array-like of int
            Row numbers.

        Returns
        -------
        ndarray of shape (len(index), n)
            The rows.
        """
        index = np.asarray(index, dtype=int)
        check_memory(index.size * len(self.X) * 8, f"KernelOperator.rows: {index.size} rows of K")
        Xi = self.X[index]
        return np.asarray(self.kernel(Xi, self.X), dtype=np.float64)

    def diag(self) -> np.ndarray:
        """The diagonal of ``K + noise I``.

        Returns
        -------
        ndarray of shape (n,)
            ``k(x_i, x_i) + noise``.
        """
        return np.asarray(self.kernel.diag(self.X), dtype=np.float64) + self.noise

    def gradient_dot(self, A: Any, B: Any) -> np.ndarray:
        """``sum_ij (A B^T)_ij dK_ij / dtheta_p`` for each free hyperparameter ``p`` of the
        kernel (the order of ``kernel.theta``), with ``A`` and ``B`` of shape ``(n, r)``.

        One pass over the blocks of ``K`` (counted in :attr:`n_passes`): the diagonal
        blocks through the kernel's square contraction, each block above the diagonal
        through its cross contraction with weight ``W_ij + W_ji^T``. The weight
        ``A B^T`` is formed one block at a time.

        Parameters
        ----------
        A, B : array-like of shape (n, r)
            The factors of the weight ``A B^T``.

        Returns
        -------
        ndarray of shape (n_dims,)
            The contraction for each free hyperparameter.
        """
        A = np.asarray(A, dtype=np.float64)
        B = np.asarray(B, dtype=np.float64)
        A = A[:, None] if A.ndim == 1 else A
        B = B[:, None] if B.ndim == 1 else B
        n = len(self.X)
        if A.shape[0] != n or B.shape != A.shape:
            raise ValueError(
                f"A and B must have the same shape (n, r) with n = {n}, got {A.shape} and {B.shape}"
            )
        self.n_passes += 1
        blocks = self._blocks()
        pairs = [(si, sj) for a, si in enumerate(blocks) for sj in blocks[a:]]

        def block(pair: tuple[slice, slice]) -> np.ndarray:
            si, sj = pair
            if si == sj:
                return np.asarray(self.kernel.gradient_dot(self.X[si], A[si] @ B[si].T))
            W = A[si] @ B[sj].T
            W += B[si] @ A[sj].T  # (W_ji)^T = (A_j B_i^T)^T
            return np.asarray(self.kernel.gradient_dot(self.X[si], W, self.X[sj]))

        out = np.zeros(self.kernel.n_dims)
        for part in map_on_blas_threads(block, pairs):
            out += part
        return out
