"""Random directions coupled i.i.d., orthogonally (G_ort) or through Hadamard–Rademacher
matrices, and streaming ``x -> W x`` in cache-sized blocks for the feature maps."""

from __future__ import annotations

import warnings

import numpy as np

from kernelkit._memory import check_memory
from kernelkit.features._structured import Consumer, HadamardRademacher
from kernelkit.features.matrices import (
    COUPLINGS,
    gaussian_matrix,
    haar_rows,
    hadamard_rademacher,
)
from kernelkit.features.walsh_hadamard import (
    next_power_of_two,
    resolve_n_jobs,
    run_row_blocks,
    scratch_buffer,
)

__all__ = ["Directions"]

#: Below this padded dimension Hadamard directions are strongly biased (kernel errors of
#: 0.03-0.4 at d = 4..8 with k = 3; <= 0.01 from d = 9, padded to 16).
_MIN_HADAMARD_DIM = 16
#: Dense couplings: bytes of one block of projections from one GEMM, and of the slices
#: of it handed to the non-linearity.
_DENSE_GEMM_BYTES = 16 * 1024 * 1024
_DENSE_BLOCK_BYTES = 256 * 1024


#: Peak bytes per direction beyond the directions themselves: the per-row scales (norms,
#: scale-mixture factors and their product) the feature maps draw alongside.
_ROW_SCALE_BYTES = 32


def directions_nbytes(coupling: str, m: int, d: int, n_blocks: int) -> int:
    """Estimated peak memory of drawing :class:`Directions` (``m`` rows in ``R^d``)."""
    if coupling == "hadamard":
        D = next_power_of_two(d)
        params = -(-m // D) * D * n_blocks  # int8 signs, ceil(m / D) blocks
    else:  # float64 W; the orthogonal rows go through a batched QR (about 4 copies)
        params = 8 * m * d * (4 if coupling == "orthogonal" else 1)
    return params + _ROW_SCALE_BYTES * m


class Directions:
    """``m`` random rows ``w_i`` in ``R^d``, optionally with per-row scales ``r_i``.

    ``coupling="iid"``: rows of a Gaussian matrix (norms ``chi_d``); ``"orthogonal"``:
    unit Haar rows, independent blocks of ``d`` (Rowland (2018) Def. 7.1);
    ``"hadamard"``: unit rows of stacked Hadamard–Rademacher matrices with ``n_blocks``
    factors, zero-padded to ``D`` (§7.6, SORF). ``scales`` multiplies row ``i``.

    A request that cannot fit in memory (:func:`directions_nbytes`) is refused before
    anything is drawn, with ``request`` (what the feature map was asked for) in the message.
    """

    def __init__(
        self,
        coupling: str,
        m: int,
        d: int,
        rng: np.random.RandomState,
        *,
        n_blocks: int = 3,
        request: str = "Directions",
    ):
        assert coupling in COUPLINGS, coupling  # resolved by the feature map
        check_memory(
            directions_nbytes(coupling, m, d, n_blocks),
            request,
            "ask for fewer components"
            + ("" if coupling == "hadamard" else ", or use coupling='hadamard' (O(m) memory)"),
        )
        self.coupling = coupling
        self.m, self.d = m, d
        self.scales: np.ndarray | None = None
        self.column_scales: np.ndarray | None = None
        self.W: np.ndarray | None = None
        self.matrix: HadamardRademacher | None = None
        if coupling == "iid":
            self.W = gaussian_matrix(m, d, rng)
        elif coupling == "orthogonal":
            self.W = haar_rows(m, d, rng)
        else:
            self.matrix = hadamard_rademacher(m, d, rng, n_blocks=n_blocks)
            if self.matrix.d_pad < _MIN_HADAMARD_DIM:
                warnings.warn(
                    f"coupling='hadamard' with {d} input features (padded to "
                    f"{self.matrix.d_pad}) gives visibly biased kernel estimates (Hadamard "
                    "directions in few dimensions are far from uniform on the sphere); "
                    "use coupling='orthogonal' below 9 features",
                    UserWarning,
                    stacklevel=4,  # Directions <- _make_random_matrix <- fit <- caller
                )

    @property
    def dim(self) -> int:
        """Dimension the rows live in (``D`` for the Hadamard coupling, else ``d``)."""
        return self.matrix.d_pad if self.matrix is not None else self.d

    def rescale(self, scales: np.ndarray | None, column_scales: np.ndarray | None) -> None:
        """Multiply row ``i`` by ``scales[i]`` and column ``j`` by ``column_scales[j]``
        (folded into dense rows; kept as ``O(m + d)`` numbers for the Hadamard rows)."""
        if self.W is not None:
            if scales is not None:
                self.W *= scales[:, None]
            if column_scales is not None:
                self.W *= column_scales[None, :]
        else:
            self.scales, self.column_scales = scales, column_scales

    def gain(self) -> float:
        """A bound on ``|w_i . x| / max_j |x_j|`` over the rows, partial sums included:
        ``d max|W|`` for dense rows; for Hadamard rows (unit norm, partial sums of the
        transform at most ``D max|x|``) ``D`` times the largest row and column scales."""
        if self.W is not None:
            return float(self.d) * float(np.max(np.abs(self.W), initial=0.0))
        s = 1.0 if self.scales is None else float(np.max(np.abs(self.scales)))
        c = 1.0 if self.column_scales is None else float(np.max(np.abs(self.column_scales)))
        return float(self.dim) * s * c

    @property
    def n_parameter_bytes(self) -> int:
        if self.W is not None:
            return int(self.W.nbytes)
        assert self.matrix is not None
        extra = sum(a.nbytes for a in (self.scales, self.column_scales) if a is not None)
        return int(self.matrix.n_parameter_bytes + extra)

    def to_dense(self) -> np.ndarray:
        """The ``(m, d)`` matrix ``W`` (``O(m d)`` memory, for tests)."""
        if self.W is not None:
            return self.W.copy()
        assert self.matrix is not None
        W = self.matrix.to_dense()
        if self.scales is not None:
            W *= self.scales[:, None]
        if self.column_scales is not None:
            W *= self.column_scales[None, :]
        return W

    def project_blocks(self, X: np.ndarray, consume: Consumer, n_jobs: int | None) -> None:
        """Call ``consume(start, stop, c0, c1, X[start:stop] @ W[c0:c1].T, scratch)`` over
        cache-sized blocks (``X`` validated, C-contiguous); the block may be modified."""
        threads = resolve_n_jobs(n_jobs)
        if self.matrix is not None:
            if self.column_scales is not None:
                X = X * self.column_scales.astype(X.dtype)
            if self.scales is None:
                self.matrix.apply_blocks(X, consume, n_jobs=threads)
                return
            scales = self.scales.astype(X.dtype)

            def scaled(s: int, e: int, c0: int, c1: int, vals: np.ndarray, sc: dict) -> None:
                vals *= scales[c0:c1]
                consume(s, e, c0, c1, vals, sc)

            self.matrix.apply_blocks(X, scaled, n_jobs=threads)
            return
        assert self.W is not None
        WT = np.ascontiguousarray(self.W.T, dtype=X.dtype)
        n, m = X.shape[0], self.m
        # GEMMs on tall row blocks (W is read once per block), the non-linearity on
        # cache-sized slices of the result
        block = max(1, min(n, _DENSE_GEMM_BYTES // (m * X.itemsize)))
        sub = max(1, _DENSE_BLOCK_BYTES // (m * X.itemsize))

        def work(s: int, e: int, scratch: dict) -> None:
            buf = scratch_buffer(scratch, "theta", (e - s) * m, X.dtype)
            theta = np.matmul(X[s:e], WT, out=buf[: (e - s) * m].reshape(e - s, m))
            for a in range(s, e, sub):
                b = min(a + sub, e)
                consume(a, b, 0, m, theta[a - s : b - s], scratch)

        run_row_blocks(n, block, work, threads)
