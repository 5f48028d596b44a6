"""Exact MSEs of random Fourier features for isotropic kernels (Rowland (2018) §7.4-7.5).

``n_frequencies`` is the number ``m`` of random frequencies ``w_1..w_m``; with the paired
cos/sin features of eq. 7.2 the feature map has ``n_components = 2 m`` columns. A kernel
argument is an isotropic :class:`~kernelkit.kernels.RBF`, :class:`~kernelkit.kernels.Matern`,
:class:`~kernelkit.kernels.Laplace` or :class:`~kernelkit.kernels.Sinc` object, or a name
that :func:`kernelkit.kernels.resolve_kernel` turns into one (``"rbf"``, ``"matern52"``,
``"sinc"``, ...).

* :func:`mse_rff_iid` (Prop. 7.17 / eq. 7.49) and :func:`mse_rff_orthogonal` (ORF);
* :func:`mse_difference_orf_iid` (Prop. 7.15, by deterministic quadrature) and its
  large-``d`` form :func:`mse_difference_orf_iid_asymptotic` (Thm. 7.9) through the charm
  function :func:`charm` (Def. 7.7);
* :func:`fourier_norm_density`, the law of ``|w|`` (Def. 7.6, Table 7.1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit._validation import check_in, check_int
from kernelkit.features._radial import RadialSpec, radial_spec
from kernelkit.features.fourier import FEATURES
from kernelkit.features.theory._common import (
    check_distance,
    check_kernel_d,
    pair_fraction,
    scalar_or_array,
)
from kernelkit.features.theory._quadrature import bessel_mean, orthogonal_pair_cos

__all__ = [
    "charm",
    "fourier_norm_density",
    "mse_difference_orf_iid",
    "mse_difference_orf_iid_asymptotic",
    "mse_rff_iid",
    "mse_rff_orthogonal",
]


def fourier_norm_density(kernel: Any, d: int) -> Any:
    """The law ``rho_K`` of ``|w|``, ``w`` from the kernel's normalised spectral measure.

    ``rho_K`` scales the rows of orthogonal random features (Rowland (2018) Def. 7.6):

    * Gaussian (lengthscale ``l``): ``chi_d / l`` (``scipy.stats.chi(d, scale=1/l)``);
    * Matérn-``nu``: the norm of a multivariate t with ``2 nu`` degrees of freedom over
      ``l``, density ``\\propto r^(d-1) (1 + r^2 l^2 / (2 nu))^(-nu - d/2)`` (Table 7.1
      with its exponent ``p/2`` corrected to ``d/2``); Laplace is ``nu = 1/2``;
    * sinc (``d <= 3``): :class:`~kernelkit.features.theory.PointMass` at ``1/l`` for
      ``d = 3`` (§7.5.3); for ``d = 2`` and ``1`` its projections, ``sqrt(1 - U^2) / l``
      and ``U / l``.

    Parameters
    ----------
    kernel : Kernel or str
        An isotropic RBF, Matern, Laplace or Sinc kernel, or a name of
        :data:`kernelkit.kernels.KERNEL_NAMES` that resolves to one.
    d : int
        Input dimension, ``d >= 1`` (``d <= 3`` for sinc).

    Returns
    -------
    frozen scipy.stats distribution or PointMass
        With ``pdf`` (not for the point mass), ``cdf``, ``ppf``, ``rvs``, ``mean``.

    Examples
    --------
    >>> from kernelkit.features.theory import fourier_norm_density
    >>> rho = fourier_norm_density("matern52", d=3)
    >>> round(float(rho.cdf(rho.ppf(0.3))), 12)
    0.3
    """
    spec, d = check_kernel_d(kernel, d)
    return spec.fourier_norm(d)


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
    kernel : Kernel or str
        As in :func:`fourier_norm_density`.
    z : float or array-like
        Distances ``|x - y| >= 0`` (not difference vectors).

    Returns
    -------
    float or ndarray (the shape of ``z``)
        ``Psi_K`` at each distance.

    Examples
    --------
    >>> from kernelkit.features.theory import charm
    >>> round(charm("gaussian", 1.0), 6)  # 4 / e
    1.471518
    """
    spec = radial_spec(kernel, name="kernel")
    r = check_distance(z)
    return scalar_or_array(spec.variance**2 * spec.charm(r))


def _feature_variance(spec: RadialSpec, r: np.ndarray, features: str) -> np.ndarray:
    """``variance^2`` times the variance of one normalised feature product: ``Var(cos(w .
    z))`` for ``"cos_sin"`` (eq. 7.49), its random-phase form for ``"cos_bias"``."""
    p1, p2 = spec.phi(r), spec.phi(2.0 * r)
    if features == "cos_sin":
        single = 0.5 * (1.0 + p2) - p1 * p1
    else:
        single = 1.0 + 0.5 * p2 - p1 * p1
    return spec.variance**2 * single


def _orf_difference(spec: RadialSpec, r: np.ndarray, m: int, d: int) -> np.ndarray:
    """``MSE_ort - MSE_iid`` (Rowland (2018) Prop. 7.15 with eq. 7.48's sign)."""
    frac = pair_fraction(m, d)
    if frac == 0.0:
        return np.zeros_like(r)
    T = orthogonal_pair_cos(spec, r, d)
    p = spec.phi(r)
    return spec.variance**2 * frac * (T - p * p)


def _check_orf_args(
    kernel: Any, z: Any, n_frequencies: Any, d: Any
) -> tuple[RadialSpec, np.ndarray, int, int]:
    """The checked arguments of the ORF-vs-IID MSE functions: kernel, distances, m, d."""
    spec, d = check_kernel_d(kernel, d)
    m = check_int(n_frequencies, "n_frequencies", minimum=1)
    return spec, check_distance(z), m, d


def mse_rff_iid(kernel: Any, z: Any, n_frequencies: int, *, features: str = "cos_sin") -> Any:
    """MSE of the i.i.d. random Fourier feature estimator of ``K(x, y)`` at ``|x - y| = z``.

    With ``w_1..w_m`` (``m = n_frequencies``) i.i.d. from the normalised spectral measure
    and ``phi`` the normalised profile (``K = variance * phi``):

    * ``features="cos_sin"``: the paired features of eq. 7.2, whose inner product is
      ``variance (1/m) sum_i cos(w_i . (x - y))`` — the estimator of Prop. 7.17. By eq.
      7.49, ``MSE = variance^2 Var(cos(w . z)) / m`` with ``E[cos^2] = (1 + phi(2z)) / 2``,
      so ``MSE = variance^2 ((1 + phi(2z))/2 - phi(z)^2) / m``;
    * ``features="cos_bias"``: ``sqrt(2 variance / m) cos(w_i . x + b_i)``, ``b_i ~
      U[0, 2 pi)`` (Rahimi and Recht): ``MSE = variance^2 (1 + phi(2z)/2 - phi(z)^2) / m``.

    Parameters
    ----------
    kernel : Kernel or str
        As in :func:`fourier_norm_density`.
    z : float or array-like
        Distances ``|x - y| >= 0``.
    n_frequencies : int
        Number of random frequencies, ``>= 1`` (the feature map's ``n_components`` is
        twice that for ``"cos_sin"``, equal for ``"cos_bias"``).
    features : {"cos_sin", "cos_bias"}, default="cos_sin"
        The feature map (see above).

    Returns
    -------
    float or ndarray (the shape of ``z``)
        The MSE at each distance.

    Examples
    --------
    >>> from kernelkit.features.theory import mse_rff_iid
    >>> round(mse_rff_iid("gaussian", 1.0, n_frequencies=1), 6)  # (1 + e^-2)/2 - e^-1
    0.199788
    """
    spec = radial_spec(kernel, name="kernel")
    r = check_distance(z)
    m = check_int(n_frequencies, "n_frequencies", minimum=1)
    check_in(features, "features", FEATURES)
    return scalar_or_array(_feature_variance(spec, r, features) / m)


def mse_rff_orthogonal(
    kernel: Any, z: Any, n_frequencies: int, d: int, *, features: str = "cos_sin"
) -> Any:
    """MSE of orthogonal random Fourier features (ORF, Rowland (2018) Def. 7.6).

    :func:`mse_rff_iid` plus :func:`mse_difference_orf_iid` (Prop. 7.15); blocks of ``d``
    Haar-orthogonal directions with independent norms from ``rho_K``, stacked when
    ``n_frequencies > d`` (Def. 7.1).

    Parameters
    ----------
    kernel : Kernel or str
        As in :func:`fourier_norm_density`.
    z : float or array-like
        Distances ``|x - y| >= 0``.
    n_frequencies : int
        Number of random frequencies, ``>= 1``.
    d : int
        Input dimension (the orthogonal block size), ``>= 1`` (``<= 3`` for sinc).
    features : {"cos_sin", "cos_bias"}, default="cos_sin"
        The feature map, as in :func:`mse_rff_iid`.

    Returns
    -------
    float or ndarray (the shape of ``z``)
        The MSE at each distance.

    Examples
    --------
    Orthogonal frequencies beat i.i.d. ones for the Gaussian kernel at moderate distances:

    >>> from kernelkit.features.theory import mse_rff_iid, mse_rff_orthogonal
    >>> bool(mse_rff_orthogonal("rbf", 1.0, 8, d=8) < mse_rff_iid("rbf", 1.0, 8))
    True
    """
    spec, r, m, d = _check_orf_args(kernel, z, n_frequencies, d)
    check_in(features, "features", FEATURES)
    iid = _feature_variance(spec, r, features) / m
    return scalar_or_array(iid + _orf_difference(spec, r, m, d))


def mse_difference_orf_iid(kernel: Any, z: Any, n_frequencies: int, d: int) -> Any:
    """``MSE_ort - MSE_iid`` for random Fourier features, by deterministic quadrature.

    Rowland (2018) Prop. 7.15 / eq. 7.48 (the sign of eq. 7.83 is wrong): for
    ``m = n_frequencies <= d``,

    ``MSE_ort - MSE_iid = variance^2 (m-1)/m (E[g(sqrt(R_1^2 + R_2^2) |z|)] -
    E[g(R_1 |z|)]^2)``,

    ``R_1, R_2`` i.i.d. from ``rho_K`` (:func:`fourier_norm_density`), ``g(a) =
    Gamma(d/2) J_(d/2-1)(a) / (a/2)^(d/2-1)``; ``E[g(R |z|)] = phi(|z|)``. Negative values
    mean orthogonal features are better; the thesis plots ``Delta MSE = MSE_iid -
    MSE_ort``. For ``m > d`` the stacked blocks (Def. 7.1) replace ``(m-1)/m`` by the
    block-pair fraction. The result is the same for ``"cos_sin"`` and ``"cos_bias"``
    features (the random phases cancel in the covariance).

    The first expectation is computed without oscillatory integrals (see
    :mod:`kernelkit.features.theory._quadrature`): ``1F1(d; d/2; -t^2/2)`` for the
    Gaussian kernel (``R_1^2 + R_2^2 ~ chi2_(2d)``), a Gauss–Legendre x log-trapezoid rule
    over the Gaussian scale mixture for Matérn kernels (absolute error ~1e-14), and exact
    values for the sinc kernel in ``d = 3``, where the result is eq. 7.21,
    ``(m-1)/m (sin(sqrt(2) t)/(sqrt(2) t) - sin^2 t / t^2)``.

    Parameters
    ----------
    kernel : Kernel or str
        As in :func:`fourier_norm_density`.
    z : float or array-like
        Distances ``|x - y| >= 0``.
    n_frequencies : int
        Number of random frequencies, ``>= 1``.
    d : int
        Input dimension, ``>= 1`` (``<= 3`` for sinc).

    Returns
    -------
    float or ndarray (the shape of ``z``)
        ``MSE_ort - MSE_iid`` at each distance.

    Examples
    --------
    >>> from kernelkit.features.theory import mse_difference_orf_iid
    >>> bool(mse_difference_orf_iid("gaussian", 1.0, n_frequencies=4, d=8) < 0)
    True
    """
    spec, r, m, d = _check_orf_args(kernel, z, n_frequencies, d)
    return scalar_or_array(_orf_difference(spec, r, m, d))


def mse_difference_orf_iid_asymptotic(kernel: Any, z: Any, n_frequencies: int, d: int) -> Any:
    """Large-``d`` approximation of ``MSE_ort - MSE_iid``: ``-(m-1)/m Psi_K(z) / (8 d)``.

    Rowland (2018) Thm. 7.9, eq. 7.18 (``MSE_iid - MSE_ort = (m-1)/m (Psi/(8d) + o(1/d))``
    with ``m = n_frequencies``, here with the sign of :func:`mse_difference_orf_iid`). The
    theorem needs the kernel to be valid in every dimension with a light-tailed spectral
    measure (Gaussian); for Matérn kernels it is only a heuristic (§7.5.3). Stacked blocks
    replace ``(m-1)/m`` by the block-pair fraction.

    Parameters
    ----------
    kernel : Kernel or str
        As in :func:`fourier_norm_density`.
    z : float or array-like
        Distances ``|x - y| >= 0``.
    n_frequencies : int
        Number of random frequencies, ``>= 1``.
    d : int
        Input dimension, ``>= 1`` (``<= 3`` for sinc).

    Returns
    -------
    float or ndarray (the shape of ``z``)
        The approximation of ``MSE_ort - MSE_iid`` at each distance.

    Examples
    --------
    Close to the exact difference in high dimension:

    >>> from kernelkit.features.theory import (
    ...     mse_difference_orf_iid, mse_difference_orf_iid_asymptotic)
    >>> exact = mse_difference_orf_iid("rbf", 1.0, 4, d=512)
    >>> approx = mse_difference_orf_iid_asymptotic("rbf", 1.0, 4, d=512)
    >>> bool(abs(approx / exact - 1) < 0.01)
    True
    """
    spec, r, m, d = _check_orf_args(kernel, z, n_frequencies, d)
    return scalar_or_array(-pair_fraction(m, d) * spec.variance**2 * spec.charm(r) / (8.0 * d))


def _bessel_mean(kernel: Any, z: Any, d: int) -> Any:
    """``E[g(R |z|)]`` (normalised) by the quadrature used for Prop. 7.15; ``= phi(|z|)``."""
    spec, d = check_kernel_d(kernel, d)
    return scalar_or_array(bessel_mean(spec, check_distance(z), d))
