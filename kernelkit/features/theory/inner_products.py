"""Exact MSEs of inner products under random projections (Rowland (2018) Ch. 6).

The estimator of ``<x, y>`` is ``<G x, G y> / m`` for a random ``m x d`` matrix ``G``
with ``m = n_components`` rows: i.i.d. Gaussian (Lemma 6.5), Gaussian orthogonal (Thm. 6.6,
corrected) or a subsampled Hadamard–Rademacher product (Thms. 6.7, 6.9-6.11, and an exact
computation for the "first rows" policy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit._validation import check_bool, check_in, check_int
from kernelkit.features.matrices import SUBSAMPLING
from kernelkit.features.theory._common import blocks, check_xy, pair_fraction
from kernelkit.features.walsh_hadamard import fwht, next_power_of_two, pad_to_power_of_two

__all__ = ["mse_hadamard_inner", "mse_iid_inner", "mse_orthogonal_inner"]


def _moments(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """``<x, y>^2`` and ``|x|^2 |y|^2``."""
    return float(x @ y) ** 2, float((x @ x) * (y @ y))


def mse_iid_inner(x: Any, y: Any, n_components: int) -> float:
    """MSE of the JLT inner-product estimator ``<G x, G y> / m`` with i.i.d. Gaussian ``G``.

    Rowland (2018) Lemma 6.5 (eq. 6.8): the estimator is unbiased and, with
    ``m = n_components``,

    ``MSE = (<x, y>^2 + |x|^2 |y|^2) / m``.

    Parameters
    ----------
    x, y : array-like of shape (d,)
        The two vectors.
    n_components : int
        Number of rows of ``G`` (the projection dimension), ``>= 1``; it may exceed ``d``.

    Returns
    -------
    float
        The MSE.

    Examples
    --------
    >>> from kernelkit.features.theory import mse_iid_inner
    >>> mse_iid_inner([1.0, 0.0], [1.0, 0.0], n_components=4)
    0.5
    """
    x, y = check_xy(x, y)
    m = check_int(n_components, "n_components", minimum=1)
    return float(((x @ y) ** 2 + (x @ x) * (y @ y)) / m)


def mse_orthogonal_inner(x: Any, y: Any, n_components: int) -> float:
    """MSE of ``<G_ort x, G_ort y> / m`` with a Gaussian orthogonal matrix ``G_ort``.

    Rowland (2018) Thm. 6.6 **as corrected**: the printed eq. 6.9 does not follow from
    its own proof. From eq. 6.25, ``Cov(R_i, R_j) = -[(d-2) <x,y>^2 + d |x|^2 |y|^2] /
    ((d-1)(d+2))`` for two rows ``i != j`` of one block, hence, for ``m = n_components <=
    d``,

    ``MSE = MSE_base - (m-1) / (m (d-1)) [(d-2)/(d+2) <x,y>^2 + d/(d+2) |x|^2 |y|^2]``

    with ``MSE_base`` from :func:`mse_iid_inner` (Lemma 6.5). (Monte Carlo, ``d = 8``,
    ``m = 4``: simulated 4.709 vs 4.714 corrected vs 4.459 printed.) The corrected form
    holds for every ``d >= 2`` (the thesis states ``d >= 4``).

    For ``m > d``, ``ceil(m/d)`` independent ``d x d`` blocks are stacked (Def. 7.1) and
    the covariance counts only pairs within a block.

    Parameters
    ----------
    x, y : array-like of shape (d,)
        The two vectors.
    n_components : int
        Number of rows, ``>= 1``.

    Returns
    -------
    float
        The MSE.

    Examples
    --------
    >>> from kernelkit.features.theory import mse_orthogonal_inner
    >>> x = [1.0, 0.0, 0.0, 0.0]
    >>> round(mse_orthogonal_inner(x, x, n_components=4), 6)
    0.25
    """
    x, y = check_xy(x, y)
    m = check_int(n_components, "n_components", minimum=1)
    d = x.shape[0]
    ip2, nn = _moments(x, y)
    base = (ip2 + nn) / m
    if d == 1:  # blocks of one row: nothing is coupled
        return base
    cov = -((d - 2) * ip2 + d * nn) / ((d - 1) * (d + 2))
    return base + pair_fraction(m, d) * cov


def _mse_orthogonal_inner_as_printed(x: Any, y: Any, n_components: int) -> float:
    """Rowland (2018) eq. 6.9 exactly as printed (wrong; kept to test that it is)."""
    x, y = check_xy(x, y)
    m = n_components
    d = x.shape[0]
    ip2, nn = _moments(x, y)
    return (ip2 + nn) / m - (m - 1) / (m * (d - 1)) * (ip2 + d / (d + 2) * nn)


def _sd_bracket(ip2: float, nn: float, s4: float, d: int, k: int) -> float:
    """The bracket of Rowland (2018) eq. 6.10 (Thm. 6.7) for ``k`` blocks."""
    geo = sum((-2.0 / d) ** r for r in range(1, k))
    return (ip2 + nn) + geo * (2.0 * ip2 + nn) + (-2.0) ** k / d ** (k - 1) * s4


def _walsh(v: np.ndarray) -> np.ndarray:
    """Unnormalised Walsh–Hadamard transform ``H v`` (Sylvester order), length a power of 2."""
    return fwht(v, normalized=False)


def _xor_form(a: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """``sum_ij a[i xor j] p_i q_j``, through the dyadic convolution theorem."""
    n = a.shape[0]
    corr = _walsh(_walsh(p) * _walsh(q)) / n  # corr[t] = sum_i p_i q_(i xor t)
    return float(a @ corr)


def _mse_first_rows(x: np.ndarray, y: np.ndarray, m: int, k: int) -> float:
    """Exact MSE of ``(d/m) <P S D_k..S D_1 x, P S D_k..S D_1 y>`` when ``P`` keeps the
    first ``m`` rows of the Sylvester Hadamard matrix ``S = H / sqrt(d)``.

    The thesis gives no closed form for this policy (Def. 6.4 (3); §6.3.6 only warns that
    it breaks symmetry). The proof of Prop. 6.15 without the average over ``J`` gives the
    one-block MSE ``sum_(i != j) M_ij^2 (x_i^2 y_j^2 + x_i x_j y_i y_j) (d/m)^2`` with
    ``M = S_P^T S_P``; Prop. 6.16 then adds blocks as ``E_D[MSE(S D x, S D y)]``. Every
    such MSE is a quartic ``sum_ij A_ij x_i^2 y_j^2 + B_ij (x_i y_i)(x_j y_j)``, and the
    Rademacher expectation maps ``(A, B)`` to
    ``A' = (sum A / d^2) 1 1^T + G_B``, ``B' = 2 G_A + G_B + (sum B / d^2)(1 1^T - 2 I)
    - 2 (sum A / d^2) I`` with ``G_W[p, q] = sum_ij W_ij s_ip s_jp s_iq s_jq``. For the
    Sylvester matrix (``H_ir H_jr = H_(i xor j) r``) all these matrices depend on ``i xor
    j`` only, so each step is a Walsh–Hadamard transform: ``O(k d log d)``.
    """
    d = x.shape[0]
    ind = np.zeros(d)
    ind[:m] = 1.0
    mu = _walsh(ind) / d  # M_ij = mu[i xor j]
    a = (d / m) ** 2 * mu * mu
    a[0] = 0.0
    b = a.copy()
    for _ in range(k - 1):
        sa, sb = a.sum() / d, b.sum() / d  # sum(A) / d^2
        ga, gb = _walsh(a) / d, _walsh(b) / d
        a, b = sa + gb, 2.0 * ga + gb + sb
        b[0] -= 2.0 * (sa + sb)
    u = x * y
    return _xor_form(a, x * x, y * y) + _xor_form(b, u, u)


def mse_hadamard_inner(
    x: Any,
    y: Any,
    n_components: int,
    n_blocks: int = 3,
    *,
    subsampling: str = "without_replacement",
    hybrid: bool = False,
) -> float:
    """MSE of the OJLT inner-product estimator with a subsampled Hadamard–Rademacher matrix.

    The estimator is ``(D/m) <P S D_k ... S D_1 x, P S D_k ... S D_1 y>`` (Rowland (2018)
    eq. 6.7) with ``S`` the normalised ``D x D`` Hadamard matrix, ``D = 2**ceil(log2 d)``
    (inputs zero-padded, §6.2), ``k = n_blocks`` independent Rademacher diagonals ``D_i``
    and ``P`` keeping ``m = n_components`` rows. With ``a = <x,y>^2``, ``b = |x|^2 |y|^2``
    and ``c = sum_i x_i^2 y_i^2``:

    * ``"without_replacement"`` (Thm. 6.7, eq. 6.10): ``MSE = (1/m) (D-m)/(D-1) [(a + b)
      + sum_(r=1)^(k-1) (-2/D)^r (2a + b) + (-2)^k / D^(k-1) c]``;
    * ``"with_replacement"`` (Thm. 6.11): the same times ``(D-1)/(D-m)``;
    * ``"first"`` (the first ``m`` rows of the Sylvester-ordered Hadamard matrix,
      ``scipy.linalg.hadamard``): the thesis has no formula; this is computed exactly by
      propagating fourth moments through the blocks (see ``_mse_first_rows``). It depends
      on the coordinates of ``x`` and ``y``, not only on ``a, b, c``.

    ``hybrid=True`` is the S-Hybrid estimator (§6.3.5, eq. 6.11): the last diagonal is
    uniform on the unit circle, or on ``{1, -1, i, -i}`` (Thm. 6.10), and the estimator
    is the real part of the Hermitian product. Its MSE is exactly half (Thm. 6.9); the
    proof (eq. 6.53 vs 6.32) halves the conditional variance for any row selection, so
    this holds for all three policies.

    For ``m > D``, independent blocks are stacked (§7.6), under every policy (as
    :func:`kernelkit.features.matrices.hadamard_rademacher` samples them): ``m = q D + r``
    gives ``MSE = sum_b (m_b / m)^2 MSE_b``; a full block without replacement or of the
    first rows is the whole orthogonal matrix and is exact, so then only the last block
    contributes. With replacement, each block draws its ``m_b`` rows with replacement.

    Parameters
    ----------
    x, y : array-like of shape (d,)
        The two vectors.
    n_components : int
        Number of rows, ``>= 1``.
    n_blocks : int, default=3
        Number of ``S D`` factors (§7.6 uses 3), ``>= 1``; the ``n_blocks`` of
        :class:`~kernelkit.features.RandomProjection`.
    subsampling : {"without_replacement", "with_replacement", "first"}
        How ``P`` picks its rows (see above); default ``"without_replacement"``.
    hybrid : bool, default=False
        The S-Hybrid estimator (see above).

    Returns
    -------
    float
        The MSE.

    Examples
    --------
    With ``n_components = D`` rows and no replacement the product matrix is orthogonal:
    no error.

    >>> from kernelkit.features.theory import mse_hadamard_inner
    >>> mse_hadamard_inner([1.0, 2.0, 0.0, 1.0], [0.5, 0.0, 1.0, 1.0], 4, n_blocks=1)
    0.0
    """
    x, y = check_xy(x, y)
    m = check_int(n_components, "n_components", minimum=1)
    k = check_int(n_blocks, "n_blocks", minimum=1)
    check_in(subsampling, "subsampling", SUBSAMPLING)
    check_bool(hybrid, "hybrid")
    D = next_power_of_two(x.shape[0])
    x, y = pad_to_power_of_two(x), pad_to_power_of_two(y)
    ip2, nn = _moments(x, y)
    s4 = float(np.sum((x * y) ** 2))

    def block_mse(mb: int) -> float:
        if subsampling == "with_replacement":
            return _sd_bracket(ip2, nn, s4, D, k) / mb
        if mb == D:
            return 0.0  # the full orthogonal matrix preserves inner products
        if subsampling == "without_replacement":
            return (D - mb) / ((D - 1) * mb) * _sd_bracket(ip2, nn, s4, D, k)
        return _mse_first_rows(x, y, mb, k)

    sizes = blocks(m, D)
    mse = {mb: block_mse(mb) for mb in set(sizes)}  # at most two block sizes
    total = 0.0
    for mb in sizes:
        total += (mb / m) ** 2 * mse[mb]
    return total / 2.0 if hybrid else total
