"""Random matrices for projections and random features (Rowland (2018) Chs. 5–7).

Every sampler has the signature ``f(n_components, d, random_state=None, **options)`` and
returns an ``(m, d)`` matrix, ``m = n_components``: a dense ndarray (:func:`gaussian_matrix`,
:func:`gaussian_orthogonal_matrix`, :func:`haar_rows`), a ``scipy.sparse`` matrix
(:func:`sparse_matrix`), or, for the structured ones, an operator with ``apply(X)``
(``X @ M.T`` in ``O(d log d)`` per row, never forming ``M``), ``to_dense()`` and
``n_parameter_bytes`` (:func:`hadamard_rademacher`, :func:`fjlt_matrix`).
:func:`sample_matrix` picks a sampler by its coupling (:data:`PROJECTION_COUPLINGS`) and
:func:`apply_matrix` applies any of them.

The coupling is the joint law of the rows: ``"iid"`` (independent Gaussian rows),
``"orthogonal"`` (``G_ort``, orthogonal within blocks of ``d``), ``"hadamard"`` (stacked
Hadamard–Rademacher products), and for projections also ``"hybrid"``, ``"sparse"`` and
``"fjlt"``. The random feature maps use :data:`COUPLINGS`; every estimator taking a
``coupling`` resolves it with :func:`resolve_coupling`, which also accepts the literature's
names ``"orf"`` (orthogonal random features) and ``"sorf"`` (structured orthogonal random
features) for ``"orthogonal"`` and ``"hadamard"`` (:data:`COUPLING_ALIASES`).

None of them is scaled for a projection: entries (Gaussian, sparse, FJLT) have variance
1, ``G_ort`` rows have Gaussian norms, Hadamard–Rademacher rows have unit norm. The
projections in :mod:`kernelkit.features.projection` apply the scalings of §6.3.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.random import sample_without_replacement

from kernelkit._memory import check_memory, empty_output
from kernelkit._validation import check_array, check_in, check_int, check_random_state
from kernelkit.features._structured import FJLT, HadamardRademacher, chi_norms
from kernelkit.features.walsh_hadamard import (
    _block_rows,
    next_power_of_two,
    resolve_n_jobs,
    run_row_blocks,
)

__all__ = [
    "COUPLINGS",
    "COUPLING_ALIASES",
    "FJLT",
    "PROJECTION_COUPLINGS",
    "SUBSAMPLING",
    "HadamardRademacher",
    "apply_matrix",
    "check_projections_finite",
    "fjlt_matrix",
    "gaussian_matrix",
    "gaussian_orthogonal_matrix",
    "haar_rows",
    "hadamard_rademacher",
    "matrix_gain",
    "resolve_coupling",
    "sample_matrix",
    "sparse_matrix",
]

#: Couplings of random directions, for the random feature maps (Rowland (2018) Ch. 7).
COUPLINGS = ("iid", "orthogonal", "hadamard")
#: Couplings of random projections (Rowland (2018) Chs. 5–6): the above and three more.
PROJECTION_COUPLINGS = (*COUPLINGS, "hybrid", "sparse", "fjlt")
#: The literature's names: ORF and SORF (Yu et al. 2016; Rowland (2018) Defs. 7.6, §7.6).
COUPLING_ALIASES: Mapping[str, str] = MappingProxyType({"orf": "orthogonal", "sorf": "hadamard"})
SUBSAMPLING = ("without_replacement", "with_replacement", "first")


def resolve_coupling(
    coupling: Any, accepted: tuple[str, ...] = COUPLINGS, name: str = "coupling"
) -> str:
    """The coupling named by ``coupling``: one of ``accepted``, or an alias of one.

    Parameters
    ----------
    coupling : str
        A coupling, or an alias from :data:`COUPLING_ALIASES`.
    accepted : tuple of str, default=COUPLINGS
        The couplings allowed here; an alias counts only if its coupling is among them.
    name : str, default="coupling"
        The argument name used in the error message.

    Returns
    -------
    str
        The coupling, one of ``accepted``.

    Raises
    ------
    ValueError
        If ``coupling`` is neither one of ``accepted`` nor an alias of one.

    Examples
    --------
    >>> resolve_coupling("sorf")
    'hadamard'
    >>> resolve_coupling("gaussian")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: coupling must be one of 'iid', 'orthogonal', 'hadamard' (or the aliases ...
    """
    aliases = {a: c for a, c in COUPLING_ALIASES.items() if c in accepted}
    if isinstance(coupling, str):
        if coupling in accepted:
            return coupling
        if coupling in aliases:
            return aliases[coupling]
    listed = ", ".join(map(repr, accepted))
    if aliases:
        listed += " (or the aliases " + ", ".join(f"{a!r} for {c!r}" for a, c in aliases.items())
        listed += ")"
    raise ValueError(f"{name} must be one of {listed}; got {coupling!r}")


#: Random numbers are drawn in chunks of this many (the temporaries stay at a few MiB
#: whatever the size of the matrix; the random stream is that of one big draw).
_CHUNK = 1 << 20


def _rademacher(rng: np.random.RandomState, shape: Any) -> np.ndarray:
    """Independent signs ``+-1`` with probability 1/2 each, as int8."""
    out = np.empty(shape, dtype=np.int8)
    flat = out.reshape(-1)
    for s in range(0, flat.size, _CHUNK):
        e = min(s + _CHUNK, flat.size)
        chunk = flat[s:e]
        np.less(rng.random_sample(e - s), 0.5, out=chunk.view(np.bool_))  # 1 where u < 1/2
        chunk *= -2
        chunk += 1
    return out


def _randint8(rng: np.random.RandomState, high: int, shape: Any) -> np.ndarray:
    """``rng.randint(0, high, shape)`` (``high <= 128``) stored as int8, drawn in chunks."""
    out = np.empty(shape, dtype=np.int8)
    flat = out.reshape(-1)
    for s in range(0, flat.size, _CHUNK):
        e = min(s + _CHUNK, flat.size)
        flat[s:e] = rng.randint(0, high, size=e - s)
    return out


def _check_shape(n_components: Any, d: Any) -> tuple[int, int]:
    return check_int(n_components, "n_components", minimum=1), check_int(d, "d", minimum=1)


def _check_dense_size(name: str, m: int, d: int, copies: int = 1) -> None:
    """Refuse up front an ``(m, d)`` float64 matrix (``copies`` of it live at the peak)
    that cannot fit in memory."""
    check_memory(
        copies * 8 * m * d,
        f"{name}(n_components={m}, d={d}) ({m} x {d} float64)",
        "ask for fewer rows (n_components)",
    )


def gaussian_matrix(n_components: int, d: int, random_state: Any = None) -> np.ndarray:
    """I.i.d. ``N(0, 1)`` entries: the JLT matrix ``G`` (Rowland (2018) §5.3.1).

    Parameters
    ----------
    n_components : int
        Number ``m`` of rows.
    d : int
        Input dimension (number of columns).
    random_state : int, RandomState or None, default=None
        Seeds the draw.

    Returns
    -------
    ndarray of float64, shape (n_components, d)
        The matrix.
    """
    m, d = _check_shape(n_components, d)
    _check_dense_size("gaussian_matrix", m, d)
    return check_random_state(random_state).standard_normal((m, d))


def haar_rows(n_components: int, d: int, random_state: Any = None) -> np.ndarray:
    """``m = n_components`` unit rows: ``ceil(m / d)`` independent Haar-random orthogonal
    ``d x d`` matrices stacked, bottom rows dropped (Rowland (2018) Defs. 6.1 and 7.1).

    Each block is ``Q`` from the QR factorisation of a Gaussian matrix with the columns
    multiplied by ``sign(diag(R))``, which makes it exactly Haar (Mezzadri 2007).

    Parameters
    ----------
    n_components : int
        Number ``m`` of rows.
    d : int
        Input dimension (number of columns).
    random_state : int, RandomState or None, default=None
        Seeds the draw.

    Returns
    -------
    ndarray of float64, shape (n_components, d)
        The rows, orthonormal within each block of ``d``.
    """
    m, d = _check_shape(n_components, d)
    _check_dense_size("haar_rows", m, d, _HAAR_COPIES)
    return _haar_rows(m, d, check_random_state(random_state))


#: Peak number of (m, d) float64 arrays live while sampling Haar rows: the Gaussian
#: blocks, Q and R of their QR factorisation, and the transposed result.
_HAAR_COPIES = 4


def _haar_rows(m: int, d: int, rng: np.random.RandomState) -> np.ndarray:
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


def gaussian_orthogonal_matrix(n_components: int, d: int, random_state: Any = None) -> np.ndarray:
    """``G_ort``: Haar-orthogonal rows scaled by independent ``chi_d`` norms, so that each
    row is marginally ``N(0, I_d)`` and rows within a block of ``d`` are orthogonal
    (Rowland (2018) Def. 6.1 and Def. 7.1 for ``m > d``).

    Parameters
    ----------
    n_components : int
        Number ``m`` of rows.
    d : int
        Input dimension (number of columns).
    random_state : int, RandomState or None, default=None
        Seeds the draw.

    Returns
    -------
    ndarray of float64, shape (n_components, d)
        The matrix ``G_ort``.
    """
    m, d = _check_shape(n_components, d)
    _check_dense_size("gaussian_orthogonal_matrix", m, d, _HAAR_COPIES)
    rng = check_random_state(random_state)
    W = _haar_rows(m, d, rng)
    W *= chi_norms(rng, d, m)[:, None]
    return W


def sparse_matrix(
    n_components: int, d: int, random_state: Any = None, *, density: Any = "achlioptas"
) -> sp.csr_matrix:
    """Sparse random signs with unit variance: ``±1/sqrt(s)`` w.p. ``s/2`` each, else 0.

    ``density`` ``s``: ``"achlioptas"`` (1/3: entries ``sqrt(3) {+1, 0, -1}`` w.p.
    1/6, 2/3, 1/6; Achlioptas 2003), ``"li"`` or ``"auto"`` (``1/sqrt(d)``: Li, Hastie and
    Church 2006, scikit-learn's default), or a float in [1/d, 1]. Sparse JLT of Rowland
    (2018) §5.3.1.

    A float below ``1/d`` is refused: it gives fewer than one expected non-zero per row,
    so most rows would be all zero and most outputs of the projection exactly 0 (at
    ``density=1e-9`` a whole ``(100, 1000)`` matrix is zero with probability 0.9999).
    The named densities are used as published (``"achlioptas"``'s 1/3 is below ``1/d``
    only for ``d <= 2``).

    Parameters
    ----------
    n_components : int
        Number ``m`` of rows.
    d : int
        Input dimension (number of columns).
    random_state : int, RandomState or None, default=None
        Seeds the draw.
    density : {"achlioptas", "li", "auto"} or float, default="achlioptas"
        The probability ``s`` that an entry is non-zero (see above).

    Returns
    -------
    scipy.sparse.csr_matrix of float64, shape (n_components, d)
        The matrix, with sorted indices.

    Raises
    ------
    ValueError
        If ``density`` is an unknown name or a float outside ``[1/d, 1]``.
    TypeError
        If ``density`` is neither a name nor a number.
    """
    m, d = _check_shape(n_components, d)
    s = _density(density, d)
    _check_sparse_size(f"sparse_matrix(n_components={m}, d={d})", m, d, s)
    rng = check_random_state(random_state)
    nnz = rng.binomial(m * d, s)
    pos = sample_without_replacement(m * d, nnz, random_state=rng)
    vals = _rademacher(rng, nnz) / math.sqrt(s)
    A = sp.csr_matrix((vals, (pos // d, pos % d)), shape=(m, d))
    A.sort_indices()
    return A


def _density(density: Any, d: int, name: str = "density") -> float:
    """The density of non-zeros of a matrix with ``d`` columns: a name, or a float in
    ``[1/d, 1]`` (at least one expected non-zero per row)."""
    if isinstance(density, str):
        check_in(density, name, ("achlioptas", "li", "auto"))
        return 1.0 / 3.0 if density == "achlioptas" else 1.0 / math.sqrt(d)
    if isinstance(density, bool) or not isinstance(density, (int, float, np.floating)):
        raise TypeError(f"{name} must be a float in (0, 1] or a name, got {density!r}")
    if not 0.0 < float(density) <= 1.0:
        raise ValueError(f"{name} must be in (0, 1], got {density!r}")
    s = float(density)
    if s * d < 1.0 - 1e-9:
        raise ValueError(
            f"{name}={density!r} gives {s * d:.3g} expected non-zeros per row of a matrix "
            f"with {d} columns: most rows would be all zero and most outputs exactly 0; "
            f"use {name} >= 1/{d} = {1.0 / d:.3g}, or 'auto'"
        )
    return s


#: Bytes per non-zero while sampling a sparse matrix: positions, values, signs, row and
#: column indices, the CSR arrays.
_SPARSE_BYTES_PER_NONZERO = 48


def _check_sparse_size(request: str, m: int, d: int, s: float) -> None:
    """Refuse up front an ``(m, d)`` sparse matrix of density ``s`` that cannot fit."""
    # scikit-learn's sample_without_replacement permutes all m d positions (int64) for
    # fractions of 1% and more
    pool = 8 * m * d if s >= 0.01 else 0
    check_memory(
        int(_SPARSE_BYTES_PER_NONZERO * s * m * d) + pool,
        f"{request} with density {s:.3g}",
        "ask for fewer rows (n_components)",
    )


def hadamard_rademacher(
    n_components: int,
    d: int,
    random_state: Any = None,
    *,
    n_blocks: int = 3,
    subsampling: str = "without_replacement",
    hybrid: bool = False,
) -> HadamardRademacher:
    """Stacked subsampled Hadamard–Rademacher matrices ``P S D_k … S D_1``.

    Parameters
    ----------
    n_components, d : int
        Rows ``m`` and input dimension; inputs are zero-padded to ``D = 2**ceil(log2 d)``.
    random_state : int, RandomState or None, default=None
        Seeds the draw.
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
    m, d = _check_shape(n_components, d)
    n_blocks = check_int(n_blocks, "n_blocks", minimum=1)
    check_in(subsampling, "subsampling", SUBSAMPLING)
    D = next_power_of_two(d)
    n_stack = -(-m // D)
    last = m - (n_stack - 1) * D  # rows of the last block (D when it is full)
    k_real = n_blocks - 1 if hybrid else n_blocks
    n_index = m if subsampling == "with_replacement" else (last if last < D else 0)
    check_memory(
        n_stack * D * (k_real + hybrid) + 4 * n_index,
        f"hadamard_rademacher(n_components={m}, d={d}, n_blocks={n_blocks}) ({n_stack} "
        f"stacked blocks of {n_blocks} diagonals of {D} signs)",
        "ask for fewer rows (n_components)",
    )
    rng = check_random_state(random_state)
    signs = _rademacher(rng, (n_stack, k_real, D))
    phases = _randint8(rng, 4, (n_stack, D)) if hybrid else None
    if subsampling == "with_replacement":  # every block: D-sided dice rolls, sorted
        row_index = np.empty(m, dtype=np.int32)
        per = max(1, _CHUNK // D)  # blocks per chunk of draws
        for b0 in range(0, n_stack, per):
            s, e = b0 * D, min((b0 + per) * D, m)
            draws = rng.randint(0, D, size=e - s)
            n_full = (e - s) // D
            draws[: n_full * D].reshape(n_full, D).sort(axis=1)
            draws[n_full * D :].sort()
            row_index[s:e] = draws
        return HadamardRademacher(signs, d, m, phases, row_index=row_index, indexed_from=0)
    if last == D:  # every block is full: all rows kept
        return HadamardRademacher(signs, d, m, phases)
    if subsampling == "first":
        tail = np.arange(last, dtype=np.int32)
    else:
        tail = np.sort(rng.choice(D, last, replace=False)).astype(np.int32)
    return HadamardRademacher(signs, d, m, phases, row_index=tail, indexed_from=n_stack - 1)


def fjlt_matrix(
    n_components: int,
    d: int,
    random_state: Any = None,
    *,
    n_points: int | None = None,
    q: float | None = None,
) -> FJLT:
    """FJLT ``P H D`` (Rowland (2018) §5.3.1; Ailon and Chazelle 2006).

    The density of ``P`` is ``q``, by default ``min(log(n_points)**2 / D, 1)`` (the
    ``Θ(log² N / d)`` of the thesis with constant 1, natural log, ``log N >= 1``);
    ``n_points`` defaults to ``D``. A ``q`` below ``1/D`` is refused, as a ``density``
    below ``1/d`` in :func:`sparse_matrix` (most outputs would be exactly 0).

    Parameters
    ----------
    n_components : int
        Number ``m`` of rows.
    d : int
        Input dimension (number of columns).
    random_state : int, RandomState or None, default=None
        Seeds the draw.
    n_points : int, optional
        ``N``, the number of points to be projected, for the default ``q``.
    q : float, optional
        The density of ``P``, in ``[1/D, 1]``.

    Returns
    -------
    FJLT
        Stores ``D`` signs (int8) and the non-zeros of ``P``.

    Raises
    ------
    ValueError
        If ``q`` is outside ``[1/D, 1]``.
    """
    m, d = _check_shape(n_components, d)
    rng = check_random_state(random_state)
    D = next_power_of_two(d)
    if q is None:
        n = D if n_points is None else check_int(n_points, "n_points", minimum=1)
        q = min(max(math.log(n), 1.0) ** 2 / D, 1.0)
    else:
        q = _density(q, D, "q")
    _check_sparse_size(f"fjlt_matrix(n_components={m}, d={d}) (P of shape ({m}, {D}))", m, D, q)
    signs = _rademacher(rng, D)
    nnz = rng.binomial(m * D, q)
    pos = sample_without_replacement(m * D, nnz, random_state=rng)
    vals = rng.standard_normal(nnz) / math.sqrt(q)
    P = sp.csr_matrix((vals, (pos // D, pos % D)), shape=(m, D))
    P.sort_indices()
    return FJLT(signs, P, d, q)


def _sparse_product(
    A: sp.csr_matrix, X: np.ndarray, n_jobs: int | None, out: np.ndarray
) -> np.ndarray:
    """``X @ A.T`` into ``out`` on cache-sized blocks of rows (3x faster than one big
    sparse product, which streams the whole of ``X`` once per non-zero row of ``A``)."""
    n, d = X.shape

    def work(s: int, e: int, scratch: dict) -> None:
        out[s:e] = (A @ X[s:e].T).T

    run_row_blocks(n, _block_rows(d, X.itemsize, n), work, resolve_n_jobs(n_jobs))
    return out


_SAMPLERS: dict[str, Callable[..., Any]] = {
    "iid": gaussian_matrix,
    "orthogonal": gaussian_orthogonal_matrix,
    "hadamard": hadamard_rademacher,
    "hybrid": lambda m, d, random_state=None, **kw: hadamard_rademacher(
        m, d, random_state, hybrid=True, **kw
    ),
    "sparse": sparse_matrix,
    "fjlt": fjlt_matrix,
}


def sample_matrix(
    coupling: str, n_components: int, d: int, random_state: Any = None, **options: Any
) -> Any:
    """Draw an ``(n_components, d)`` random matrix with rows coupled by ``coupling`` (one
    of :data:`PROJECTION_COUPLINGS`, or an alias of :data:`COUPLING_ALIASES`); ``options``
    go to its sampler.

    Parameters
    ----------
    coupling : str
        One of :data:`PROJECTION_COUPLINGS`, or an alias.
    n_components : int
        Number ``m`` of rows.
    d : int
        Input dimension (number of columns).
    random_state : int, RandomState or None, default=None
        Seeds the draw.
    **options
        Keyword arguments of the sampler, e.g. ``n_blocks`` for ``"hadamard"`` or
        ``density`` for ``"sparse"``.

    Returns
    -------
    ndarray, scipy.sparse.csr_matrix, HadamardRademacher or FJLT
        What the sampler of ``coupling`` returns (see the module documentation).
    """
    coupling = resolve_coupling(coupling, PROJECTION_COUPLINGS)
    return _SAMPLERS[coupling](n_components, d, random_state, **options)


def apply_matrix(A: Any, X: Any, *, n_jobs: int | None = 1) -> np.ndarray:
    """``X @ A.T`` for any ``(m, d)`` matrix returned by the samplers (dense, sparse or
    structured); ``X`` must have shape ``(n_samples, d)``. float32 stays float32.

    Parameters
    ----------
    A : ndarray, scipy.sparse matrix, HadamardRademacher or FJLT
        An ``(m, d)`` matrix from the samplers.
    X : array-like of shape (n_samples, d)
        Input rows (may be empty).
    n_jobs : int or None, default=1
        Threads over blocks of rows for the sparse and structured matrices (``None``: the
        BLAS thread count, ``-1``: all CPUs); dense matrices use BLAS.

    Returns
    -------
    ndarray of shape (n_samples, m)
        The projections, float32 for float32 ``X``, else float64 (complex for the hybrid
        coupling).

    Raises
    ------
    TypeError
        If ``A`` is not a two-dimensional matrix.
    ValueError
        If ``X`` does not have ``d`` columns, or the projections overflow float64.
    """
    shape = getattr(A, "shape", None)
    if shape is None or len(shape) != 2:
        raise TypeError(
            "A must be an (m, d) matrix from the samplers of kernelkit.features.matrices, "
            f"got {type(A).__name__}"
        )
    X = np.ascontiguousarray(check_array(X, "X", allow_empty=True))
    if X.shape[1] != shape[1]:
        raise ValueError(
            f"X has shape {X.shape}, but A has shape {tuple(shape)}: X @ A.T needs X of "
            f"shape (n_samples, {shape[1]})"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is checked next
        out = _apply(A, X, n_jobs)
    check_projections_finite(X, matrix_gain(A), out, "apply_matrix")
    return out


#: Projections bounded by this stay finite in every partial sum (float64 ends at 1.8e308).
_FINITE_BOUND = 1e300


def matrix_gain(A: Any) -> float:
    """A bound on ``|(A x)_i| / max_j |x_j|`` (partial sums included) for any matrix of
    :mod:`kernelkit.features.matrices`: ``d max|A|`` for dense and sparse matrices, ``D``
    for Hadamard-Rademacher rows (unit norm), ``D^2 max|P|`` for the FJLT ``P H D``.

    Parameters
    ----------
    A : ndarray, scipy.sparse matrix, HadamardRademacher or FJLT
        An ``(m, d)`` matrix from the samplers.

    Returns
    -------
    float
        The bound.
    """
    if isinstance(A, np.ndarray):
        return float(A.shape[1]) * float(np.max(np.abs(A), initial=0.0))
    if hasattr(A, "P"):  # FJLT: |H D x| <= D max|x| per coordinate, then P sums D of them
        return float(A.d_pad) ** 2 * float(np.max(np.abs(A.P.data), initial=0.0))
    if hasattr(A, "d_pad"):  # Hadamard-Rademacher (also the complex hybrid)
        return float(A.d_pad)
    return float(A.shape[1]) * float(np.max(np.abs(A.data), initial=0.0))  # scipy sparse


def check_projections_finite(
    X: np.ndarray, gain: float, out: np.ndarray, request: str, advice: str = ""
) -> None:
    """Raise ``ValueError`` if ``out``, computed from ``X`` through projections bounded by
    ``gain * max|X|``, overflowed float64. The output is scanned only when the bound says
    an overflow is possible, so ordinary inputs cost two reductions over ``X``.

    Parameters
    ----------
    X : ndarray
        The input of the projections.
    gain : float
        A bound on ``|projection| / max|X|``, e.g. from :func:`matrix_gain`.
    out : ndarray
        The projections computed from ``X``.
    request : str
        What was asked for, at the start of the error message.
    advice : str, default=""
        Appended to the error message's advice.

    Raises
    ------
    ValueError
        If ``out`` has non-finite entries and the bound allows an overflow.
    """
    if X.size == 0:
        return
    x_max = max(-float(X.min()), float(X.max()))
    if x_max * gain < _FINITE_BOUND or np.isfinite(out).all():
        return
    raise ValueError(
        f"{request}: X has entries up to {x_max:.3g} in absolute value, and its projections "
        f"(|w . x| up to about {gain:.3g} times that) overflow float64; rescale X (e.g. "
        f"standardise its columns){advice}"
    )


def _apply(A: Any, X: np.ndarray, n_jobs: int | None, request: str = "apply_matrix") -> np.ndarray:
    """:func:`apply_matrix` for a validated, C-contiguous float ``X`` of the right width;
    ``request`` names the caller in a memory error."""
    if hasattr(A, "_apply"):
        return A._apply(X, n_jobs, request)
    if sp.issparse(A):
        out = empty_output((X.shape[0], A.shape[0]), X.dtype, request)
        return _sparse_product(A.astype(X.dtype, copy=False), X, n_jobs, out)
    out = empty_output((X.shape[0], A.shape[0]), X.dtype, request)
    return np.matmul(X, A.T.astype(X.dtype, copy=False), out=out)
