"""Structured random matrices applied through the fast Walsh–Hadamard transform.

:class:`HadamardRademacher` is the subsampled S-Rademacher / S-Hybrid product of Rowland
(2018) Defs. 6.2–6.4 and §6.3.5, stacked for ``m > d``; :class:`FJLT` is Ailon and
Chazelle's ``P H D``. Both store only their random signs (and ``P``'s non-zeros for the
FJLT) and never form a dense ``m x d`` matrix, except in :meth:`to_dense`, for tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from kernelkit._memory import empty_output
from kernelkit._validation import check_array
from kernelkit.features.walsh_hadamard import (
    _block_rows,
    _Plan,
    _plan,
    next_power_of_two,
    resolve_n_jobs,
    run_row_blocks,
    scratch_buffer,
)

__all__ = ["FJLT", "HadamardRademacher"]

#: ``consume(start, stop, col_start, col_stop, values, scratch)`` receives the projections
#: of rows ``start:stop`` onto rows ``col_start:col_stop`` of the matrix.
Consumer = Callable[[int, int, int, int, np.ndarray, dict], None]

# Rowland (2018) Thm 6.10: Unif{1, i, -1, -i} on the last diagonal works as well as Unif(S^1)
_PHASES = np.array([1.0, 1.0j, -1.0, -1.0j])


def _check_input(X: Any, d: int, name: str = "X") -> np.ndarray:
    X = check_array(X, name, n_features=d)
    return np.ascontiguousarray(X)


def _layout_diagonal(v: np.ndarray, plan: _Plan, dtype: np.dtype) -> np.ndarray:
    """A length-``d`` diagonal reshaped to broadcast against the plan's layout."""
    shape = list(plan.factors)
    shape.insert(len(shape) - 1, 1)
    return np.ascontiguousarray(v.reshape(plan.factors), dtype=dtype).reshape(shape)


class HadamardRademacher:
    """Stacked, subsampled products ``P S D_k … S D_1`` (Rowland (2018) Defs. 6.2–6.4).

    ``S = H / sqrt(D)`` is the normalised Hadamard matrix of order ``D``, the power of
    two at or above the input dimension ``d`` (inputs are zero-padded, §6.2); the ``D_i``
    are independent Rademacher diagonals; ``P`` selects rows. For ``m > D`` independent
    blocks are stacked, each contributing ``D`` rows and the last ``m - (l - 1) D`` (as for
    ``G_ort`` in Def. 7.1). With ``hybrid=True`` the last diagonal is uniform on
    ``{±1, ±i}`` (the S-Hybrid matrix of §6.3.5; Thm 6.10) and products are complex.

    Every row has unit norm. Draw one with
    :func:`kernelkit.features.matrices.hadamard_rademacher` (the constructor takes the
    drawn signs); apply it with :meth:`apply`.

    Parameters
    ----------
    signs : ndarray of int8, shape (n_stack, k_real, D)
        The Rademacher diagonals, entries ±1 (``k_real`` per stacked block).
    d : int
        Input dimension.
    n_components : int
        Number ``m`` of rows; ``n_stack = ceil(m / D)``.
    phases : ndarray of int8, shape (n_stack, D), optional
        Exponents ``q`` in {0, 1, 2, 3} of the last, complex diagonal ``i**q`` (the
        S-Hybrid matrix); ``None`` for a real matrix.
    row_index : ndarray of int32, optional
        Kept rows of the blocks ``indexed_from, ..., n_stack - 1``, concatenated: block
        ``b`` has ``D`` entries (the last block ``m - (n_stack - 1) D``). Blocks before
        ``indexed_from`` keep all ``D`` rows in order.
    indexed_from : int, optional
        Default: ``n_stack`` without ``row_index``, else the first block that
        ``row_index`` covers exactly (its length decides).

    Attributes
    ----------
    shape : (int, int)
        ``(m, d)``.
    d_pad : int
        ``D``.
    signs : ndarray of int8, shape (n_stack, k_real, D)
        The Rademacher diagonals (``k_real = n_blocks``, or ``n_blocks - 1`` for hybrid).
    phases : ndarray of int8, shape (n_stack, D), or None
        Exponents ``q`` of the last diagonal ``i**q`` (hybrid only).
    row_index : ndarray of int32
        See above (empty when every block keeps all its rows).
    rows : list of (ndarray of int32 or None)
        Rows of each stacked block that are kept (``None``: all ``D`` in order); built
        on access, one entry per block (for inspection and tests).
    """

    def __init__(
        self,
        signs: np.ndarray,
        d: int,
        n_components: int,
        phases: np.ndarray | None = None,
        *,
        row_index: np.ndarray | None = None,
        indexed_from: int | None = None,
    ):
        self.signs = signs
        self.phases = phases
        self.d = d
        self.d_pad = D = next_power_of_two(d)
        self.m = m = n_components
        self.n_stack = signs.shape[0]
        if self.n_stack != -(-m // D):
            raise ValueError(
                f"signs has {self.n_stack} blocks; n_components={m} rows need {-(-m // D)}"
            )
        self.n_blocks = signs.shape[1] + (phases is not None)
        self.row_index = np.empty(0, np.int32) if row_index is None else row_index
        n_indexed = -(-self.row_index.size // D)
        self.indexed_from = self.n_stack - n_indexed if indexed_from is None else indexed_from
        expected = m - self.indexed_from * D if self.indexed_from < self.n_stack else 0
        if self.row_index.size != expected:
            raise ValueError(
                f"row_index has {self.row_index.size} entries; blocks {self.indexed_from} "
                f"to {self.n_stack - 1} of n_components={m} rows need {expected}"
            )

    def block_rows(self, b: int) -> np.ndarray | None:
        """Kept rows of stacked block ``b`` (``None``: all ``D``, in order).

        Parameters
        ----------
        b : int
            Index of the stacked block, ``0 <= b < n_stack``.

        Returns
        -------
        ndarray of int32 or None
            Indices of the kept rows among the block's ``D``, or ``None`` when it keeps
            all of them in order.
        """
        if b < self.indexed_from:
            return None
        D = self.d_pad
        start = (b - self.indexed_from) * D
        return self.row_index[start : start + min(D, self.m - b * D)]

    @property
    def rows(self) -> list[np.ndarray | None]:
        """Kept rows of each stacked block, as :meth:`block_rows` (built on access)."""
        return [self.block_rows(b) for b in range(self.n_stack)]

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, d)``: the shape of the matrix."""
        return (self.m, self.d)

    @property
    def is_complex(self) -> bool:
        """Whether the matrix is complex (S-Hybrid: the last diagonal has phases)."""
        return self.phases is not None

    @property
    def n_parameter_bytes(self) -> int:
        """Bytes of the stored random parameters: signs, phases and kept row indices."""
        n = self.signs.nbytes + (0 if self.phases is None else self.phases.nbytes)
        return int(n + self.row_index.nbytes)

    def __repr__(self) -> str:
        kind = "hybrid" if self.is_complex else "real"
        return f"HadamardRademacher(m={self.m}, d={self.d}, n_blocks={self.n_blocks}, {kind})"

    # ------------------------------------------------------------------ applying
    def apply(self, X: Any, *, n_jobs: int | None = 1) -> np.ndarray:
        """``X @ M.T`` for ``M`` this ``(m, d)`` matrix, without forming ``M``.

        Parameters
        ----------
        X : array-like of shape (n_samples, d)
            Input rows.
        n_jobs : int or None, default=1
            Threads over blocks of rows (``None``: the BLAS thread count, ``-1``: all
            CPUs).

        Returns
        -------
        ndarray of shape (n_samples, m)
            The projections: float32 for float32 input (complex64 for hybrid), float64
            (complex128) otherwise.
        """
        return self._apply(_check_input(X, self.d), n_jobs)

    def _apply(
        self, X: np.ndarray, n_jobs: int | None, request: str = "HadamardRademacher.apply"
    ) -> np.ndarray:
        """:meth:`apply` on an already validated, C-contiguous float ``X``; ``request``
        names the caller in a memory error."""
        dtype = np.result_type(X.dtype, np.complex64) if self.is_complex else X.dtype
        out = empty_output((X.shape[0], self.m), dtype, request)

        def store(s: int, e: int, c0: int, c1: int, vals: np.ndarray, scratch: dict) -> None:
            out[s:e, c0:c1] = vals

        self.apply_blocks(X, store, n_jobs=n_jobs)
        return out

    def to_dense(self) -> np.ndarray:
        """The dense ``(m, d)`` matrix (for tests: ``O(m d)`` memory).

        Returns
        -------
        ndarray of shape (m, d)
            The matrix, float64 (complex128 for hybrid).
        """
        return self.apply(np.eye(self.d)).T.copy()

    def _diagonals(self, plan: _Plan, dtype: np.dtype) -> list[tuple[list, Any]]:
        out = []
        for b in range(self.n_stack):
            reals = [_layout_diagonal(s, plan, dtype) for s in self.signs[b]]
            phase = None
            if self.phases is not None:
                z = _PHASES[self.phases[b]]
                phase = (
                    _layout_diagonal(z.real, plan, dtype),
                    _layout_diagonal(z.imag, plan, dtype),
                )
            out.append((reals, phase))
        return out

    def apply_blocks(self, X: np.ndarray, consume: Consumer, *, n_jobs: int | None = 1) -> None:
        """Stream the projections of blocks of rows of ``X`` (validated, C-contiguous,
        ``d`` columns) to ``consume``, one stacked block at a time, on ``n_jobs`` threads.

        Each call of ``consume`` gets a ``(rows, cols)`` array it may modify (it is
        overwritten afterwards); all work stays in cache-sized blocks.

        Parameters
        ----------
        X : ndarray of shape (n_samples, d)
            Input rows, float32 or float64, C-contiguous (not checked).
        consume : callable
            Called as ``consume(start, stop, col_start, col_stop, values, scratch)`` with
            the projections ``values`` of rows ``start:stop`` of ``X`` onto rows
            ``col_start:col_stop`` of the matrix, and the calling thread's ``scratch``
            dict.
        n_jobs : int or None, default=1
            Threads over blocks of rows (``None``: the BLAS thread count, ``-1``: all
            CPUs).
        """
        n = X.shape[0]
        if n == 0:
            return
        D, d = self.d_pad, self.d
        dtype = X.dtype
        plan = _plan(D, dtype.str, True)
        diags = self._diagonals(plan, dtype)
        block = _block_rows(D, dtype.itemsize, n)
        cdtype = np.result_type(dtype, np.complex64)

        def work(s: int, e: int, scratch: dict) -> None:
            r = e - s
            size = r * D
            if d < D:
                pad = scratch.get("pad")
                if pad is None:
                    pad = np.zeros((block, D), dtype=dtype)  # the padding stays zero
                    scratch["pad"] = pad
                pad[:r, :d] = X[s:e]
                src = pad[:r]
            else:
                src = X[s:e]
            lay = plan.layout_shape(r)
            bufs = [scratch_buffer(scratch, k, size, dtype)[:size].reshape(lay) for k in "zabc"]
            z0 = plan.to_layout(src, bufs[0])
            vals = scratch_buffer(scratch, "v", size, cdtype if self.is_complex else dtype)
            vals = vals[:size].reshape(r, *plan.factors)
            for b, (reals, phase) in enumerate(diags):
                res = self._chain(plan, z0, reals, phase, bufs[1:], vals)
                c0, c1 = b * D, min((b + 1) * D, self.m)
                res = res.reshape(r, D)
                keep = self.block_rows(b)
                if keep is not None:
                    sel = scratch_buffer(scratch, "w", r * len(keep), res.dtype)
                    res = np.take(res, keep, axis=1, out=sel[: r * len(keep)].reshape(r, -1))
                consume(s, e, c0, c1, res, scratch)

        run_row_blocks(n, block, work, resolve_n_jobs(n_jobs))

    @staticmethod
    def _chain(
        plan: _Plan,
        z0: np.ndarray,
        reals: list[np.ndarray],
        phase: tuple[np.ndarray, np.ndarray] | None,
        bufs: list[np.ndarray],
        vals: np.ndarray,
    ) -> np.ndarray:
        """``S D_k ... S D_1`` applied to the layout block ``z0`` (left intact); the
        result is written to ``vals`` in natural row order and returned."""
        a, b, c = bufs
        v = z0
        if reals:
            np.multiply(z0, reals[0], out=a)
            v, spare = plan.apply(a, b)
            for Dj in reals[1:]:
                v *= Dj
                v, spare = plan.apply(v, spare)
        if phase is None:
            np.copyto(vals, plan.layout_rows(v))
            return vals
        # S-Hybrid last block: S (D_re + i D_im) v = S (D_re v) + i S (D_im v)
        if reals:  # v sits in a or b; c is free
            work, spare_im = c, spare
        else:  # v is z0, which must stay intact
            work, spare_im = a, b
        np.multiply(v, phase[1], out=work)
        im, free = plan.apply(work, spare_im)
        if reals:
            v *= phase[0]
        else:
            v = np.multiply(z0, phase[0], out=c)
        re, _ = plan.apply(v, free)
        np.copyto(vals.real, plan.layout_rows(re))
        np.copyto(vals.imag, plan.layout_rows(im))
        return vals


class FJLT:
    """Fast Johnson–Lindenstrauss transform ``x -> P H D x`` (Ailon and Chazelle 2006).

    ``D``: Rademacher diagonal; ``H``: normalised Hadamard matrix of order ``D`` (input
    zero-padded); ``P``: ``(m, D)`` sparse with independent entries, ``N(0, 1/q)`` with
    probability ``q`` and 0 otherwise (Rowland (2018) §5.3.1; the thesis prints the
    mixture weights the wrong way round, ``q δ_0 + (1 - q) N(0, 1/q)``). Every entry of
    ``P H D`` has mean 0 and variance 1, like a Gaussian JLT matrix.

    Draw one with :func:`kernelkit.features.matrices.fjlt_matrix` (the constructor takes
    the drawn parameters); apply it with :meth:`apply`.

    Parameters
    ----------
    signs : ndarray of int8, shape (D,)
        The Rademacher diagonal ``D``, entries ±1.
    P : scipy.sparse.csr_matrix of shape (m, D)
        The sparse Gaussian matrix ``P``.
    d : int
        Input dimension.
    q : float
        Probability that an entry of ``P`` is non-zero.
    """

    def __init__(self, signs: np.ndarray, P: sp.csr_matrix, d: int, q: float):
        self.signs = signs
        self.P = P
        self.d = d
        self.d_pad = next_power_of_two(d)
        self.q = q
        self.m = P.shape[0]

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, d)``: the shape of the matrix."""
        return (self.m, self.d)

    @property
    def n_parameter_bytes(self) -> int:
        """Bytes of the stored random parameters: the signs and ``P``'s sparse arrays."""
        P = self.P
        return int(self.signs.nbytes + P.data.nbytes + P.indices.nbytes + P.indptr.nbytes)

    def __repr__(self) -> str:
        return f"FJLT(m={self.m}, d={self.d}, q={self.q:.3g})"

    def apply(self, X: Any, *, n_jobs: int | None = 1) -> np.ndarray:
        """``X @ (P H D).T`` without forming ``P H D``: ``H D`` through the FWHT, ``P`` as
        a sparse product, both on cache-sized blocks of rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, d)
            Input rows.
        n_jobs : int or None, default=1
            Threads over blocks of rows (``None``: the BLAS thread count, ``-1``: all
            CPUs).

        Returns
        -------
        ndarray of shape (n_samples, m)
            The projections: float32 for float32 input, float64 otherwise.
        """
        return self._apply(_check_input(X, self.d), n_jobs)

    def _apply(self, X: np.ndarray, n_jobs: int | None, request: str = "FJLT.apply") -> np.ndarray:
        """:meth:`apply` on an already validated, C-contiguous float ``X``; ``request``
        names the caller in a memory error."""
        out = empty_output((X.shape[0], self.m), X.dtype, request)
        P = self.P.astype(X.dtype, copy=False)
        hd = HadamardRademacher(self.signs.reshape(1, 1, -1), self.d, self.d_pad)

        def project(s: int, e: int, c0: int, c1: int, vals: np.ndarray, scratch: dict) -> None:
            out[s:e] = (P @ vals.T).T

        hd.apply_blocks(X, project, n_jobs=n_jobs)
        return out

    def to_dense(self) -> np.ndarray:
        """The dense ``(m, d)`` matrix ``P H D`` (for tests: ``O(m d)`` memory).

        Returns
        -------
        ndarray of shape (m, d)
            The matrix, float64.
        """
        return self.apply(np.eye(self.d)).T.copy()


def chi_norms(rng: np.random.RandomState, dof: float, size: int) -> np.ndarray:
    """Independent ``chi_dof`` draws (norms of standard Gaussian vectors in ``dof`` dims)."""
    return np.sqrt(rng.chisquare(dof, size=size))
