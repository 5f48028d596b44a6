"""Closed-form error theory for random projections and random features.

Exact mean squared errors (MSE) of the unbiased kernel / inner-product estimators of
Rowland (2018), *Structure in Machine Learning*, Part II, for i.i.d., orthogonal and
Hadamard–Rademacher couplings:

* inner products under random projections (Ch. 6): :func:`mse_iid_inner` (Lemma 6.5),
  :func:`mse_orthogonal_inner` (Thm. 6.6, corrected), :func:`mse_hadamard_inner`
  (Thms. 6.7, 6.9-6.11, and an exact computation for the "first m rows" policy);
* the angular kernel (§7.3): :func:`mse_angular_iid` (Lemma 7.4) and
  :func:`mse_angular_orthogonal` (an exact 1-D integral behind Thm. 7.5);
* random Fourier features for isotropic kernels (§7.4-7.5): :func:`mse_rff_iid`,
  :func:`mse_rff_orthogonal`, :func:`mse_difference_orf_iid` (Prop. 7.15 by quadrature),
  :func:`charm` (Def. 7.7) and :func:`mse_difference_orf_iid_asymptotic` (Thm. 7.9),
  :func:`fourier_norm_density` (Table 7.1);
* :func:`recommend_features`: how many features reach a target MSE.

Conventions. ``m`` is the number of random directions (rows of the random matrix). When
``m`` exceeds the block size (``d``, or ``D = 2**ceil(log2 d)`` for Hadamard matrices),
independent blocks are stacked and the last one is truncated (Def. 7.1, §7.6); every
orthogonal formula here accounts for it: with ``m = q d + r``, the number of ordered
pairs of coupled rows is ``q d (d-1) + r (r-1)``, which is ``m (m-1)`` for ``m <= d``.

Misprints in the thesis that these functions correct (each checked by Monte Carlo in
``tests/features/test_theory.py``):

* Thm. 6.6 / eq. 6.9 should read ``MSE_ort = MSE_base - (m-1)/(m(d-1)) [(d-2)/(d+2)
  <x,y>^2 + d/(d+2) |x|^2 |y|^2]`` (from the proof's eq. 6.25; eq. 6.26 also has ``+``
  for ``-``).
* Eq. 7.83 has the opposite sign to eq. 7.48; eq. 7.48 (``MSE_ort - MSE_iid = (m-1)/m
  (T - phi^2)``) is right.
* Table 7.1's Matérn density exponent ``-nu - p/2`` should read ``-nu - d/2``.
* Eq. 7.21 (sinc kernel) is Prop. 7.15 with ``m = d = 3``: its factor 2/3 is
  ``(m-1)/m``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._validation import check_array, check_bool, check_in, check_int, check_positive
from kernelkit.features._quadrature import (
    angular_pair_covariance,
    bessel_mean,
    orthogonal_pair_cos,
)
from kernelkit.features._radial import PointMass, RadialSpec, radial_spec
from kernelkit.features.fourier import FEATURES
from kernelkit.features.fwht import fwht, next_power_of_two, pad_to_power_of_two
from kernelkit.features.matrices import SUBSAMPLING
from kernelkit.kernels.heuristics import median_heuristic

__all__ = [
    "FeatureRecommendation",
    "PointMass",
    "charm",
    "fourier_norm_density",
    "mse_angular_iid",
    "mse_angular_orthogonal",
    "mse_difference_orf_iid",
    "mse_difference_orf_iid_asymptotic",
    "mse_hadamard_inner",
    "mse_iid_inner",
    "mse_orthogonal_inner",
    "mse_rff_iid",
    "mse_rff_orthogonal",
    "recommend_features",
]


# ---------------------------------------------------------------------- shared helpers
def _check_xy(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    x = check_array(x, "x", ndim=1, dtype=np.float64)
    y = check_array(y, "y", ndim=1, dtype=np.float64)
    if y.shape != x.shape:
        raise ValueError(f"y has length {y.shape[0]}, but x has length {x.shape[0]}")
    return x, y


def _pair_fraction(m: Any, d: int) -> Any:
    """``(ordered pairs of rows in a common orthogonal block) / m^2`` for stacked blocks.

    ``(m-1)/m`` for ``m <= d`` (the ``(m-1)/m`` of Thm. 6.6 and Prop. 7.15); for ``m > d``
    the ``ceil(m/d)`` blocks are independent (Def. 7.1), so only pairs within a block count.
    ``m`` may be an integer array.
    """
    q, r = divmod(m, d)
    return (q * d * (d - 1) + r * (r - 1)) / (m * m)


def _blocks(m: int, size: int) -> list[int]:
    """Row counts of the stacked blocks: ``m = q size + r`` gives ``q`` full blocks and ``r``."""
    q, r = divmod(m, size)
    return [size] * q + ([r] if r else [])


def _check_distance(z: Any) -> np.ndarray:
    check_positive(z, "z", strict=False)
    return np.asarray(z, dtype=np.float64)


def _out(v: np.ndarray) -> Any:
    """A Python float for scalar input, the array otherwise."""
    return float(v) if np.ndim(v) == 0 else v


# ---------------------------------------------------------------------- Chapter 6
def mse_iid_inner(x: Any, y: Any, m: int) -> float:
    """MSE of the JLT inner-product estimator ``<G x, G y> / m`` with i.i.d. Gaussian ``G``.

    Rowland (2018) Lemma 6.5 (eq. 6.8): the estimator is unbiased and

    ``MSE = (<x, y>^2 + |x|^2 |y|^2) / m``.

    Parameters
    ----------
    x, y : array-like of shape (d,)
    m : int
        Number of rows of ``G`` (projection dimension), ``m >= 1``; any ``m`` is allowed.

    Returns
    -------
    float

    Examples
    --------
    >>> mse_iid_inner([1.0, 0.0], [1.0, 0.0], m=4)
    0.5
    """
    x, y = _check_xy(x, y)
    m = check_int(m, "m", minimum=1)
    return float(((x @ y) ** 2 + (x @ x) * (y @ y)) / m)


def mse_orthogonal_inner(x: Any, y: Any, m: int) -> float:
    """MSE of ``<G_ort x, G_ort y> / m`` with a Gaussian orthogonal matrix ``G_ort``.

    Rowland (2018) Thm. 6.6 **as corrected**: the printed eq. 6.9 does not follow from
    its own proof. From eq. 6.25, ``Cov(R_i, R_j) = -[(d-2) <x,y>^2 + d |x|^2 |y|^2] /
    ((d-1)(d+2))`` for two rows ``i != j`` of one block, hence, for ``m <= d``,

    ``MSE = MSE_base - (m-1) / (m (d-1)) [(d-2)/(d+2) <x,y>^2 + d/(d+2) |x|^2 |y|^2]``

    with ``MSE_base`` from :func:`mse_iid_inner` (Lemma 6.5). (Monte Carlo, ``d = 8``,
    ``m = 4``: simulated 4.709 vs 4.714 corrected vs 4.459 printed.) The corrected form
    holds for every ``d >= 2`` (the thesis states ``d >= 4``).

    For ``m > d``, ``ceil(m/d)`` independent ``d x d`` blocks are stacked (Def. 7.1) and
    the covariance counts only pairs within a block.

    Parameters
    ----------
    x, y : array-like of shape (d,)
    m : int
        Number of rows, ``m >= 1``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(mse_orthogonal_inner([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], m=4), 6)
    0.25
    """
    x, y = _check_xy(x, y)
    m = check_int(m, "m", minimum=1)
    d = x.shape[0]
    ip2, nn = float(x @ y) ** 2, float((x @ x) * (y @ y))
    base = (ip2 + nn) / m
    if d == 1:  # blocks of one row: nothing is coupled
        return base
    cov = -((d - 2) * ip2 + d * nn) / ((d - 1) * (d + 2))
    return base + _pair_fraction(m, d) * cov


def _mse_orthogonal_inner_as_printed(x: Any, y: Any, m: int) -> float:
    """Rowland (2018) eq. 6.9 exactly as printed (wrong; kept to test that it is)."""
    x, y = _check_xy(x, y)
    d = x.shape[0]
    ip2, nn = float(x @ y) ** 2, float((x @ x) * (y @ y))
    return (ip2 + nn) / m - (m - 1) / (m * (d - 1)) * (ip2 + d / (d + 2) * nn)


def _sd_bracket(ip2: float, nn: float, s4: float, d: int, k: int) -> float:
    """The bracket of Rowland (2018) eq. 6.10 (Thm. 6.7)."""
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
    m: int,
    k: int = 3,
    *,
    subsampling: str = "without_replacement",
    hybrid: bool = False,
) -> float:
    """MSE of the OJLT inner-product estimator with a subsampled Hadamard–Rademacher matrix.

    The estimator is ``(D/m) <P S D_k ... S D_1 x, P S D_k ... S D_1 y>`` (Rowland (2018)
    eq. 6.7) with ``S`` the normalised ``D x D`` Hadamard matrix, ``D = 2**ceil(log2 d)``
    (inputs zero-padded, §6.2), independent Rademacher diagonals ``D_i`` and ``P`` keeping
    ``m`` rows. With ``a = <x,y>^2``, ``b = |x|^2 |y|^2`` and ``c = sum_i x_i^2 y_i^2``:

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
    m : int
        Number of rows, ``m >= 1``.
    k : int, default=3
        Number of ``S D`` blocks (§7.6 uses 3), ``k >= 1``.
    subsampling : {"without_replacement", "with_replacement", "first"}
    hybrid : bool, default=False

    Returns
    -------
    float

    Examples
    --------
    With ``m = D`` rows and no replacement the product matrix is orthogonal: no error.

    >>> mse_hadamard_inner([1.0, 2.0, 0.0, 1.0], [0.5, 0.0, 1.0, 1.0], m=4, k=1)
    0.0
    """
    x, y = _check_xy(x, y)
    m = check_int(m, "m", minimum=1)
    k = check_int(k, "k", minimum=1)
    check_in(subsampling, "subsampling", SUBSAMPLING)
    check_bool(hybrid, "hybrid")
    D = next_power_of_two(x.shape[0])
    x, y = pad_to_power_of_two(x), pad_to_power_of_two(y)
    ip2, nn, s4 = float(x @ y) ** 2, float((x @ x) * (y @ y)), float(np.sum((x * y) ** 2))

    def block_mse(mb: int) -> float:
        if subsampling == "with_replacement":
            return _sd_bracket(ip2, nn, s4, D, k) / mb
        if mb == D:
            return 0.0  # the full orthogonal matrix preserves inner products
        if subsampling == "without_replacement":
            return (D - mb) / ((D - 1) * mb) * _sd_bracket(ip2, nn, s4, D, k)
        return _mse_first_rows(x, y, mb, k)

    mse = {mb: block_mse(mb) for mb in set(_blocks(m, D))}  # at most two block sizes
    total = 0.0
    for mb in _blocks(m, D):
        total += (mb / m) ** 2 * mse[mb]
    return total / 2.0 if hybrid else total


# ---------------------------------------------------------------------- angular kernel
def _check_theta(theta: Any) -> np.ndarray:
    check_positive(theta, "theta", strict=False)
    th = np.asarray(theta, dtype=np.float64)
    if np.any(th > np.pi):
        raise ValueError(f"theta must be an angle in [0, pi], got {theta!r}")
    return th


def mse_angular_iid(theta: Any, m: int) -> Any:
    """MSE of the angular-kernel estimator ``<sign(G x), sign(G y)> / m``, i.i.d. ``G``.

    Rowland (2018) Lemma 7.4: ``MSE = 4 theta (pi - theta) / (m pi^2)`` with ``theta`` the
    angle between ``x`` and ``y``; the kernel is ``1 - 2 theta / pi`` (eq. 7.5).

    Parameters
    ----------
    theta : float or array-like, in ``[0, pi]``
    m : int
        Number of features, ``m >= 1``.

    Returns
    -------
    float or ndarray (the shape of ``theta``)

    Examples
    --------
    >>> mse_angular_iid(np.pi / 2, m=1)
    1.0
    """
    th = _check_theta(theta)
    m = check_int(m, "m", minimum=1)
    return _out(4.0 * th * (np.pi - th) / (m * np.pi**2))


def mse_angular_orthogonal(theta: Any, m: int, d: int) -> Any:
    """MSE of the orthogonal angular estimator ``<sign(G_ort x), sign(G_ort y)> / m``.

    Rowland (2018) Thm. 7.5 shows it is strictly below :func:`mse_angular_iid` unless
    ``theta`` is 0 or ``pi``, without a formula. Completing the proof of Prop. 7.16
    (integrating eq. 7.45 by parts in ``sin phi``) gives the covariance of two sign
    features of one orthogonal block exactly,

    ``Cov = (4/pi^2) int_0^1 a^(d-2) log(1 - (1 - a^2) sin^2 theta) / (1 - a^2) da``

    (``= -4 theta^2 / pi^2`` for ``d = 2`` and acute ``theta``), so for ``m <= d``

    ``MSE_ort = 4 theta (pi - theta) / (m pi^2) + (m-1)/m Cov``,

    with the block-pair fraction replacing ``(m-1)/m`` when ``m > d`` (Def. 7.1). The
    integral is evaluated by adaptive quadrature to ``1e-12``.

    Parameters
    ----------
    theta : float or array-like, in ``[0, pi]``
    m : int
        Number of features, ``m >= 1``.
    d : int
        Input dimension, ``d >= 1``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    Two perpendicular sign features in the plane: error ``q (1 - q)``, ``q = 2 theta/pi``.

    >>> round(mse_angular_orthogonal(np.pi / 4, m=2, d=2), 12)
    0.25
    """
    th = _check_theta(theta)
    m = check_int(m, "m", minimum=1)
    d = check_int(d, "d", minimum=1)
    iid = 4.0 * th * (np.pi - th) / (m * np.pi**2)
    frac = _pair_fraction(m, d)
    if frac == 0.0:
        return _out(iid)
    return _out(iid + frac * angular_pair_covariance(th, d))


# ---------------------------------------------------------------------- Chapter 7: RFF
def fourier_norm_density(kernel: Any, d: int) -> Any:
    """The law ``rho_K`` of ``|w|``, ``w`` from the kernel's normalised spectral measure.

    ``rho_K`` scales the rows of orthogonal random features (Rowland (2018) Def. 7.6):

    * Gaussian (lengthscale ``l``): ``chi_d / l`` (``scipy.stats.chi(d, scale=1/l)``);
    * Matérn-``nu``: the norm of a multivariate t with ``2 nu`` degrees of freedom over
      ``l``, density ``\\propto r^(d-1) (1 + r^2 l^2 / (2 nu))^(-nu - d/2)`` (Table 7.1
      with its exponent ``p/2`` corrected to ``d/2``); Laplace is ``nu = 1/2``;
    * sinc (``d <= 3``): :class:`PointMass` at ``1/l`` for ``d = 3`` (§7.5.3); for
      ``d = 2`` and ``1`` its projections, ``sqrt(1 - U^2) / l`` and ``U / l``.

    Parameters
    ----------
    kernel : RBF, Matern, Laplace or Sinc kernel, or a name (``"rbf"``, ``"gaussian"``,
        ``"laplace"``, ``"matern12"``, ``"matern32"``, ``"matern52"``, ``"sinc"``)
    d : int
        Input dimension, ``d >= 1`` (``d <= 3`` for sinc).

    Returns
    -------
    frozen scipy.stats distribution or PointMass
        With ``pdf`` (not for the point mass), ``cdf``, ``ppf``, ``rvs``, ``mean``.

    Examples
    --------
    >>> rho = fourier_norm_density("matern52", d=3)
    >>> round(float(rho.cdf(rho.ppf(0.3))), 12)
    0.3
    """
    spec, d = _check_kernel_d(kernel, d)
    return spec.fourier_norm(d)


def _check_kernel_d(kernel: Any, d: int) -> tuple[RadialSpec, int]:
    spec = radial_spec(kernel)
    d = check_int(d, "d", minimum=1)
    if spec.family == "sinc" and d > 3:
        raise ValueError(f"the sinc kernel is positive definite only for d <= 3; got d={d}")
    return spec, d


def _check_orf_args(kernel: Any, z: Any, m: int, d: int) -> tuple[RadialSpec, np.ndarray, int, int]:
    """The checked arguments of the ORF-vs-IID MSE functions: kernel, distances, m, d."""
    spec, d = _check_kernel_d(kernel, d)
    return spec, _check_distance(z), check_int(m, "m", minimum=1), d


def charm(kernel: Any, z: Any) -> Any:
    """The charm function ``Psi_K(z) = |z|^2 (phi^2)''(|z|) - |z| (phi^2)'(|z|)``.

    Rowland (2018) Def. 7.7, for ``K(x, y) = phi(|x - y|)`` (``phi`` includes the
    variance, so ``Psi`` scales with ``variance^2``). Closed forms, with ``t = |z| / l``:

    * Gaussian: ``Psi = 4 t^4 exp(-t^2)`` (Cor. 7.10 for ``l = 1``);
    * Matérn-``nu`` with ``u = sqrt(2 nu) t``, ``c = 2^(1-nu) / Gamma(nu)``: from
      ``(u^nu K_nu)' = -u^nu K_(nu-1)`` and ``K_mu' = -K_(mu-1) - (mu/u) K_mu``,
      ``Psi = 2 c^2 u^(2 nu + 2) (K_(nu-1)(u)^2 + K_nu(u) K_(nu-2)(u))``; e.g.
      ``(4u^2 + 2u) e^(-2u)`` for Laplace and ``(4u^4 + 2u^3) e^(-2u)`` for Matérn-3/2;
    * sinc: by direct differentiation of ``sin^2 t / t^2``.

    ``Psi >= 0`` for kernels positive definite in every dimension (Thm. 7.11); the sinc
    kernel's charm changes sign.

    Parameters
    ----------
    kernel : RBF, Matern, Laplace or Sinc kernel, or a name (see
        :func:`fourier_norm_density`)
    z : float or array-like
        Distances ``|x - y| >= 0`` (not difference vectors).

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(charm("gaussian", 1.0), 6)  # 4 / e
    1.471518
    """
    spec = radial_spec(kernel)
    r = _check_distance(z)
    return _out(spec.variance**2 * spec.charm(r))


def mse_rff_iid(kernel: Any, z: Any, m: int, *, features: str = "cos_sin") -> Any:
    """MSE of the i.i.d. random Fourier feature estimator of ``K(x, y)`` at ``|x - y| = z``.

    With ``w_1..w_m`` i.i.d. from the normalised spectral measure and ``phi`` the
    normalised profile (``K = variance * phi``):

    * ``features="cos_sin"``: the paired features of eq. 7.2, whose inner product is
      ``variance (1/m) sum_i cos(w_i . (x - y))`` — the estimator of Prop. 7.17. By eq.
      7.49, ``MSE = variance^2 Var(cos(w . z)) / m`` with ``E[cos^2] = (1 + phi(2z)) / 2``,
      so ``MSE = variance^2 ((1 + phi(2z))/2 - phi(z)^2) / m``;
    * ``features="cos_bias"``: ``sqrt(2 variance / m) cos(w_i . x + b_i)``, ``b_i ~
      U[0, 2 pi)`` (Rahimi and Recht): ``MSE = variance^2 (1 + phi(2z)/2 - phi(z)^2) / m``.

    Parameters
    ----------
    kernel : RBF, Matern, Laplace or Sinc kernel, or a name
    z : float or array-like
        Distances ``|x - y| >= 0``.
    m : int
        Number of random frequencies (``2m`` real features for ``"cos_sin"``).
    features : {"cos_sin", "cos_bias"}

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(mse_rff_iid("gaussian", 1.0, m=1), 6)  # (1 + e^-2)/2 - e^-1
    0.199788
    """
    spec = radial_spec(kernel)
    r = _check_distance(z)
    m = check_int(m, "m", minimum=1)
    check_in(features, "features", FEATURES)
    return _out(spec.variance**2 * _single_variance(spec, r, features) / m)


def _single_variance(spec: RadialSpec, r: np.ndarray, features: str) -> np.ndarray:
    """Variance of one normalised feature product (``Var(cos(w . z))`` or its bias form)."""
    p1, p2 = spec.phi(r), spec.phi(2.0 * r)
    if features == "cos_sin":
        return 0.5 * (1.0 + p2) - p1 * p1
    return 1.0 + 0.5 * p2 - p1 * p1


def mse_difference_orf_iid(kernel: Any, z: Any, m: int, d: int) -> Any:
    """``MSE_ort - MSE_iid`` for random Fourier features, by deterministic quadrature.

    Rowland (2018) Prop. 7.15 / eq. 7.48 (the sign of eq. 7.83 is wrong): for ``m <= d``,

    ``MSE_ort - MSE_iid = variance^2 (m-1)/m (E[g(sqrt(R_1^2 + R_2^2) |z|)] -
    E[g(R_1 |z|)]^2)``,

    ``R_1, R_2`` i.i.d. from ``rho_K`` (:func:`fourier_norm_density`), ``g(a) =
    Gamma(d/2) J_(d/2-1)(a) / (a/2)^(d/2-1)``; ``E[g(R |z|)] = phi(|z|)``. Negative values
    mean orthogonal features are better; the thesis plots ``Delta MSE = MSE_iid -
    MSE_ort``. For ``m > d`` the stacked blocks (Def. 7.1) replace ``(m-1)/m`` by the
    block-pair fraction. The result is the same for ``"cos_sin"`` and ``"cos_bias"``
    features (the random phases cancel in the covariance).

    The first expectation is computed without oscillatory integrals (see
    :mod:`kernelkit.features._quadrature`): ``1F1(d; d/2; -t^2/2)`` for the Gaussian
    kernel (``R_1^2 + R_2^2 ~ chi2_(2d)``), a Gauss–Legendre x log-trapezoid rule over
    the Gaussian scale mixture for Matérn kernels (absolute error ~1e-14), and exact
    values for the sinc kernel in ``d = 3``, where the result is eq. 7.21,
    ``(m-1)/m (sin(sqrt(2) t)/(sqrt(2) t) - sin^2 t / t^2)``.

    Parameters
    ----------
    kernel : RBF, Matern, Laplace or Sinc kernel, or a name
    z : float or array-like
        Distances ``|x - y| >= 0``.
    m : int
        Number of random frequencies, ``m >= 1``.
    d : int
        Input dimension, ``d >= 1`` (``d <= 3`` for sinc).

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> mse_difference_orf_iid("gaussian", 1.0, m=4, d=8) < 0
    True
    """
    spec, r, m, d = _check_orf_args(kernel, z, m, d)
    return _out(_orf_difference(spec, r, m, d))


def _orf_difference(spec: RadialSpec, r: np.ndarray, m: int, d: int) -> np.ndarray:
    frac = _pair_fraction(m, d)
    if frac == 0.0:
        return np.zeros_like(r)
    T = orthogonal_pair_cos(spec, r, d)
    p = spec.phi(r)
    return spec.variance**2 * frac * (T - p * p)


def mse_rff_orthogonal(kernel: Any, z: Any, m: int, d: int, *, features: str = "cos_sin") -> Any:
    """MSE of orthogonal random Fourier features (ORF, Rowland (2018) Def. 7.6).

    :func:`mse_rff_iid` plus :func:`mse_difference_orf_iid` (Prop. 7.15); blocks of ``d``
    Haar-orthogonal directions with independent norms from ``rho_K``, stacked when
    ``m > d`` (Def. 7.1).

    Parameters
    ----------
    kernel : RBF, Matern, Laplace or Sinc kernel, or a name
    z : float or array-like
        Distances ``|x - y| >= 0``.
    m : int
    d : int
    features : {"cos_sin", "cos_bias"}

    Returns
    -------
    float or ndarray
    """
    spec, r, m, d = _check_orf_args(kernel, z, m, d)
    check_in(features, "features", FEATURES)
    iid = spec.variance**2 * _single_variance(spec, r, features) / m
    return _out(iid + _orf_difference(spec, r, m, d))


def mse_difference_orf_iid_asymptotic(kernel: Any, z: Any, m: int, d: int) -> Any:
    """Large-``d`` approximation of ``MSE_ort - MSE_iid``: ``-(m-1)/m Psi_K(z) / (8 d)``.

    Rowland (2018) Thm. 7.9, eq. 7.18 (``MSE_iid - MSE_ort = (m-1)/m (Psi/(8d) + o(1/d))``,
    here with the sign of :func:`mse_difference_orf_iid`). The theorem needs the kernel
    to be valid in every dimension with a light-tailed spectral measure (Gaussian);
    for Matérn kernels it is only a heuristic (§7.5.3). Stacked blocks replace
    ``(m-1)/m`` by the block-pair fraction.

    Parameters
    ----------
    kernel : RBF, Matern, Laplace or Sinc kernel, or a name
    z : float or array-like
    m : int
    d : int

    Returns
    -------
    float or ndarray
    """
    spec, r, m, d = _check_orf_args(kernel, z, m, d)
    return _out(-_pair_fraction(m, d) * spec.variance**2 * spec.charm(r) / (8.0 * d))


def _bessel_mean(kernel: Any, z: Any, d: int) -> Any:
    """``E[g(R |z|)]`` (normalised) by the quadrature used for Prop. 7.15; ``= phi(|z|)``."""
    spec, d = _check_kernel_d(kernel, d)
    return _out(bessel_mean(spec, _check_distance(z), d))


# ---------------------------------------------------------------------- recommendation
@dataclass(frozen=True)
class FeatureRecommendation:
    """Numbers of random frequencies reaching a target pointwise MSE at distance ``z``.

    Attributes
    ----------
    m_iid, m_orthogonal : int
        Smallest ``m`` such that every ``m' >= m`` has MSE ``<= target_mse`` at ``z``,
        for i.i.d. and for orthogonal (ORF) frequencies.
    saving : float
        ``1 - m_orthogonal / m_iid`` (negative where orthogonal features need more).
    z : float
        The distance used.
    mse_iid, mse_orthogonal : float
        The MSEs at ``m_iid`` and ``m_orthogonal``.
    """

    m_iid: int
    m_orthogonal: int
    saving: float
    z: float
    mse_iid: float
    mse_orthogonal: float


def _last_violation(v: float, c: float, d: int, target: float, hi: int) -> int:
    """Largest ``m < hi`` with ``(v + c m frac(m)) / m > target`` (0 if none), ``frac`` the
    :func:`_pair_fraction` in dimension ``d``; scanned downward in chunks."""
    chunk = 1 << 20
    top = hi
    while top > 1:
        lo = max(1, top - chunk)
        ms = np.arange(lo, top, dtype=np.int64)
        mse = (v + c * ms * _pair_fraction(ms, d)) / ms
        bad = np.nonzero(mse > target)[0]
        if bad.size:
            return int(ms[bad[-1]])
        top = lo
    return 0


def recommend_features(
    kernel: Any,
    d: int,
    target_mse: float,
    *,
    z: float | None = None,
    X: Any = None,
    features: str = "cos_sin",
) -> FeatureRecommendation:
    """Smallest numbers of i.i.d. and orthogonal random frequencies for a target MSE.

    For the estimator of :func:`mse_rff_iid` / :func:`mse_rff_orthogonal` at one distance
    ``z``, returns the smallest ``m`` such that the pointwise MSE is ``<= target_mse`` for
    **every** ``m' >= m`` (the orthogonal MSE need not decrease monotonically across
    stacked-block boundaries, Def. 7.1), and the relative saving of orthogonal features.

    What it guarantees: the exact MSE (i.i.d.: Prop. 7.17's closed form; orthogonal: Prop.
    7.15 by quadrature, absolute error ~1e-14) at that single distance, for the kernel as
    given (absolute, i.e. including ``variance^2``). It does not bound errors at other
    distances, the Gram-matrix error, or accuracy downstream; SORF (Hadamard) features
    have no closed form and are not covered.

    Parameters
    ----------
    kernel : RBF, Matern, Laplace or Sinc kernel, or a name
    d : int
        Input dimension (the orthogonal block size).
    target_mse : float
        Target pointwise MSE, ``> 0``.
    z : float, optional
        The distance ``|x - y|``. If omitted: the median pairwise distance of ``X`` when
        given (:func:`kernelkit.kernels.median_heuristic`), else the kernel's lengthscale
        (the median distance when the lengthscale was set by the median trick, §7.6).
    X : array-like of shape (n, d), optional
        Data for the median distance.
    features : {"cos_sin", "cos_bias"}

    Returns
    -------
    FeatureRecommendation

    Examples
    --------
    >>> rec = recommend_features("gaussian", d=16, target_mse=1e-3, z=1.0)
    >>> rec.m_orthogonal < rec.m_iid
    True
    """
    spec, d = _check_kernel_d(kernel, d)
    check_positive(target_mse, "target_mse")
    target = float(target_mse)
    check_in(features, "features", FEATURES)
    if z is not None and np.ndim(z) != 0:
        raise ValueError(f"z must be a single distance, got an array of shape {np.shape(z)}")
    if z is None:
        if X is not None:
            Xa = check_array(X, "X", n_features=d)
            z = median_heuristic(Xa)
        else:
            z = spec.lengthscale
    z = float(_check_distance(z))
    r = np.asarray(z)
    v = float(spec.variance**2 * _single_variance(spec, r, features))
    c = 0.0
    if d > 1:
        T = orthogonal_pair_cos(spec, r, d)
        c = float(spec.variance**2 * (T - spec.phi(r) ** 2))
    m_iid = max(1, math.ceil(v / target))
    while m_iid > 1 and v / (m_iid - 1) <= target:  # guard against rounding in the ceil
        m_iid -= 1

    # every m >= hi meets the target: MSE_ort(m) <= (v + (d-1) max(c, 0)) / m
    hi = max(1, math.ceil((v + (d - 1) * max(c, 0.0)) / target))
    m_ort = _last_violation(v, c, d, target, hi + 1) + 1
    mse_ort = (v + c * m_ort * _pair_fraction(m_ort, d)) / m_ort
    return FeatureRecommendation(
        m_iid=int(m_iid),
        m_orthogonal=int(m_ort),
        saving=1.0 - m_ort / m_iid,
        z=z,
        mse_iid=v / m_iid,
        mse_orthogonal=float(mse_ort),
    )
