"""Random matrices for projections and random features (Rowland (2018) Chs. 5–7).

Every sampler has the signature ``f(m, d, random_state=None, **options)`` and returns an
``(m, d)`` matrix: a dense ndarray (:func:`gaussian_matrix`,
:func:`gaussian_orthogonal_matrix`, :func:`haar_rows`), a ``scipy.sparse`` matrix
(:func:`sparse_matrix`), or, for the structured ones, an operator with ``apply(X)``
(``X @ M.T`` in ``O(d log d)`` per row, never forming ``M``), ``to_dense()`` and
``n_parameter_bytes`` (:func:`hadamard_rademacher`, :func:`fjlt_matrix`).
:func:`sample_matrix` picks a sampler by name and :func:`apply_matrix` applies any of them.

None of them is scaled for a projection: entries (Gaussian, sparse, FJLT) have variance
1, ``G_ort`` rows have Gaussian norms, Hadamard–Rademacher rows have unit norm. The
projections in :mod:`kernelkit.features.projection` apply the scalings of §6.3.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.random import sample_without_replacement

from kernelkit._validation import check_in, check_int, check_random_state
from kernelkit.features._structured import FJLT, HadamardRademacher, chi_norms
from kernelkit.features.fwht import (
    _block_rows,
    next_power_of_two,
    resolve_n_jobs,
    run_row_blocks,
)

__all__ = [
    "FJLT",
    "KINDS",
    "SUBSAMPLING",
    "HadamardRademacher",
    "apply_matrix",
    "fjlt_matrix",
    "gaussian_matrix",
    "gaussian_orthogonal_matrix",
    "haar_rows",
    "hadamard_rademacher",
    "sample_matrix",
    "sparse_matrix",
]

KINDS = ("gaussian", "orthogonal", "hadamard", "hybrid", "sparse", "fjlt")
SUBSAMPLING = ("without_replacement", "with_replacement", "first")


def _rademacher(rng: np.random.RandomState, shape: Any) -> np.ndarray:
    """Independent signs ``+-1`` with probability 1/2 each, as int8."""
    return np.where(rng.random_sample(shape) < 0.5, -1, 1).astype(np.int8)


def _check_shape(m: Any, d: Any) -> tuple[int, int]:
    return check_int(m, "m", minimum=1), check_int(d, "d", minimum=1)


def gaussian_matrix(m: int, d: int, random_state: Any = None) -> np.ndarray:
    """I.i.d. ``N(0, 1)`` entries: the JLT matrix ``G`` (Rowland (2018) §5.3.1)."""
    m, d = _check_shape(m, d)
    return check_random_state(random_state).standard_normal((m, d))


def haar_rows(m: int, d: int, random_state: Any = None) -> np.ndarray:
    """``m`` unit rows: ``ceil(m / d)`` independent Haar-random orthogonal ``d x d``
    matrices stacked, bottom rows dropped (Rowland (2018) Defs. 6.1 and 7.1).

    Each block is ``Q`` from the QR factorisation of a Gaussian matrix with the columns
    multiplied by ``sign(diag(R))``, which makes it exactly Haar (Mezzadri 2007).
    """
    m, d = _check_shape(m, d)
    rng = check_random_state(random_state)
    n_full, rest = divmod(m, d)
    blocks = []
    if n_full:
        blocks.append(_haar_columns(rng.standard_normal((n_full, d, d))).reshape(-1, d))
    if rest:  # the first `rest` rows of a Haar matrix: a uniform point of the Stiefel
        # manifold, from the QR factorisation of a d x rest Gaussian (O(d rest^2))
        blocks.append(_haar_columns(rng.standard_normal((1, d, rest)))[0])
    return np.concatenate(blocks) if len(blocks) > 1 else blocks[0]


def _haar_columns(G: np.ndarray) -> np.ndarray:
    """Orthonormal columns of stacked Gaussian ``G`` (n, d, r), Haar-distributed, returned
    as rows: shape (n, r, d)."""
    Q, R = np.linalg.qr(G)
    signs = np.sign(np.diagonal(R, axis1=1, axis2=2))
    signs[signs == 0] = 1.0
    Q *= signs[:, None, :]
    return np.ascontiguousarray(Q.transpose(0, 2, 1))


def gaussian_orthogonal_matrix(m: int, d: int, random_state: Any = None) -> np.ndarray:
    """``G_ort``: Haar-orthogonal rows scaled by independent ``chi_d`` norms, so that each
    row is marginally ``N(0, I_d)`` and rows within a block of ``d`` are orthogonal
    (Rowland (2018) Def. 6.1 and Def. 7.1 for ``m > d``)."""
    m, d = _check_shape(m, d)
    rng = check_random_state(random_state)
    W = haar_rows(m, d, rng)
    W *= chi_norms(rng, d, m)[:, None]
    return W


def sparse_matrix(
    m: int, d: int, random_state: Any = None, *, density: Any = "achlioptas"
) -> sp.csr_matrix:
    """Sparse random signs with unit variance: ``±1/sqrt(s)`` w.p. ``s/2`` each, else 0.

    ``density`` ``s``: ``"achlioptas"`` (1/3: entries ``sqrt(3) {+1, 0, -1}`` w.p.
    1/6, 2/3, 1/6; Achlioptas 2003), ``"li"`` or ``"auto"`` (``1/sqrt(d)``: Li, Hastie and
    Church 2006, scikit-learn's default), or a float in (0, 1]. Sparse JLT of Rowland
    (2018) §5.3.1.
    """
    m, d = _check_shape(m, d)
    s = _density(density, d)
    rng = check_random_state(random_state)
    nnz = rng.binomial(m * d, s)
    pos = sample_without_replacement(m * d, nnz, random_state=rng)
    vals = _rademacher(rng, nnz) / math.sqrt(s)
    A = sp.csr_matrix((vals, (pos // d, pos % d)), shape=(m, d))
    A.sort_indices()
    return A


def _density(density: Any, d: int) -> float:
    if isinstance(density, str):
        check_in(density, "density", ("achlioptas", "li", "auto"))
        return 1.0 / 3.0 if density == "achlioptas" else 1.0 / math.sqrt(d)
    if isinstance(density, bool) or not isinstance(density, (int, float, np.floating)):
        raise TypeError(f"density must be a float in (0, 1] or a name, got {density!r}")
    if not 0.0 < float(density) <= 1.0:
        raise ValueError(f"density must be in (0, 1], got {density!r}")
    return float(density)


def hadamard_rademacher(
    m: int,
    d: int,
    random_state: Any = None,
    *,
    n_blocks: int = 3,
    subsampling: str = "without_replacement",
    hybrid: bool = False,
) -> HadamardRademacher:
    """Stacked subsampled Hadamard–Rademacher matrices ``P S D_k ... S D_1``.

    Parameters
    ----------
    m, d : int
        Rows and input dimension; inputs are zero-padded to ``D = 2**ceil(log2 d)``.
    n_blocks : int, default=3
        ``k``, the number of ``S D`` factors (Rowland (2018) Def. 6.3; §7.6 uses 3).
    subsampling : {"without_replacement", "with_replacement", "first"}
        How each stacked block picks its rows (Def. 6.4): a uniformly random subset
        (the thesis's default), ``D``-sided dice rolls (worse MSE by ``(D-1)/(D-m)``,
        Thm 6.11), or the first rows. Full blocks (``m > D``) keep all ``D`` rows except
        under ``"with_replacement"``.
    hybrid : bool, default=False
        Make the last diagonal uniform on ``{±1, ±i}`` (S-Hybrid, §6.3.5, Thm 6.10).

    Returns
    -------
    HadamardRademacher
        Stores ``n_stack * k * D`` signs (int8) and the kept row indices: ``O(k m)``.
    """
    m, d = _check_shape(m, d)
    n_blocks = check_int(n_blocks, "n_blocks", minimum=1)
    check_in(subsampling, "subsampling", SUBSAMPLING)
    rng = check_random_state(random_state)
    D = next_power_of_two(d)
    n_stack = math.ceil(m / D)
    k_real = n_blocks - 1 if hybrid else n_blocks
    signs = _rademacher(rng, (n_stack, k_real, D))
    phases = rng.randint(0, 4, size=(n_stack, D)).astype(np.int8) if hybrid else None
    rows: list[np.ndarray | None] = []
    for b in range(n_stack):
        c = min(D, m - b * D)
        if subsampling == "with_replacement":
            rows.append(np.sort(rng.randint(0, D, size=c)).astype(np.int32))
        elif c == D:
            rows.append(None)
        elif subsampling == "first":
            rows.append(np.arange(c, dtype=np.int32))
        else:
            rows.append(np.sort(rng.choice(D, c, replace=False)).astype(np.int32))
    return HadamardRademacher(signs, rows, d, phases)


def fjlt_matrix(
    m: int,
    d: int,
    random_state: Any = None,
    *,
    n_points: int | None = None,
    q: float | None = None,
) -> FJLT:
    """FJLT ``P H D`` (Rowland (2018) §5.3.1; Ailon and Chazelle 2006).

    The density of ``P`` is ``q``, by default ``min(log(n_points)**2 / D, 1)`` (the
    ``Θ(log² N / d)`` of the thesis with constant 1, natural log, ``log N >= 1``);
    ``n_points`` defaults to ``D``.
    """
    m, d = _check_shape(m, d)
    rng = check_random_state(random_state)
    D = next_power_of_two(d)
    if q is None:
        n = D if n_points is None else check_int(n_points, "n_points", minimum=1)
        q = min(max(math.log(n), 1.0) ** 2 / D, 1.0)
    else:
        q = _density(q, D)
    signs = _rademacher(rng, D)
    nnz = rng.binomial(m * D, q)
    pos = sample_without_replacement(m * D, nnz, random_state=rng)
    vals = rng.standard_normal(nnz) / math.sqrt(q)
    P = sp.csr_matrix((vals, (pos // D, pos % D)), shape=(m, D))
    P.sort_indices()
    return FJLT(signs, P, d, q)


def _sparse_product(A: sp.csr_matrix, X: np.ndarray, n_jobs: int | None) -> np.ndarray:
    """``X @ A.T`` on cache-sized blocks of rows (3x faster than one big sparse product,
    which streams the whole of ``X`` once per non-zero row of ``A``)."""
    n, d = X.shape
    out = np.empty((n, A.shape[0]), dtype=X.dtype)

    def work(s: int, e: int, scratch: dict) -> None:
        out[s:e] = (A @ X[s:e].T).T

    run_row_blocks(n, _block_rows(d, X.itemsize, n), work, resolve_n_jobs(n_jobs))
    return out


_SAMPLERS: dict[str, Callable[..., Any]] = {
    "gaussian": gaussian_matrix,
    "orthogonal": gaussian_orthogonal_matrix,
    "hadamard": hadamard_rademacher,
    "hybrid": lambda m, d, random_state=None, **kw: hadamard_rademacher(
        m, d, random_state, hybrid=True, **kw
    ),
    "sparse": sparse_matrix,
    "fjlt": fjlt_matrix,
}


def sample_matrix(kind: str, m: int, d: int, random_state: Any = None, **options: Any) -> Any:
    """Draw an ``(m, d)`` random matrix of the named ``kind`` (one of :data:`KINDS`)."""
    check_in(kind, "kind", KINDS)
    return _SAMPLERS[kind](m, d, random_state, **options)


def apply_matrix(A: Any, X: Any, *, n_jobs: int | None = 1) -> np.ndarray:
    """``X @ A.T`` for any matrix returned by the samplers (dense, sparse or structured)."""
    if hasattr(A, "apply"):
        return A.apply(X, n_jobs=n_jobs)
    X = np.asarray(X)
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    if sp.issparse(A):
        return _sparse_product(A.astype(dtype, copy=False), X.astype(dtype, copy=False), n_jobs)
    return X @ A.T.astype(dtype, copy=False)
