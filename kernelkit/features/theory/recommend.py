"""How many random Fourier features reach a target MSE (from Rowland (2018) Prop. 7.15/7.17)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._validation import check_array, check_in, check_positive
from kernelkit.features.fourier import FEATURES
from kernelkit.features.theory._common import check_distance, check_kernel_d, pair_fraction
from kernelkit.features.theory._quadrature import orthogonal_pair_cos
from kernelkit.features.theory.fourier import _feature_variance
from kernelkit.kernels import median_heuristic

__all__ = ["FeatureRecommendation", "recommend_features"]


@dataclass(frozen=True)
class FeatureRecommendation:
    """Numbers of random frequencies reaching a target pointwise MSE at distance ``z``.

    Attributes
    ----------
    n_frequencies_iid, n_frequencies_orthogonal : int
        Smallest number ``m`` of frequencies such that every ``m' >= m`` has MSE
        ``<= target_mse`` at ``z``, for i.i.d. and for orthogonal (ORF) frequencies.
    saving : float
        ``1 - n_frequencies_orthogonal / n_frequencies_iid`` (negative where orthogonal
        features need more).
    z : float
        The distance used.
    mse_iid, mse_orthogonal : float
        The MSEs at ``n_frequencies_iid`` and ``n_frequencies_orthogonal``.
    n_components_iid, n_components_orthogonal : int
        The matching output widths of the feature map (the ``n_components`` of
        :class:`~kernelkit.features.RandomFourierFeatures`): twice the number of
        frequencies for ``"cos_sin"`` features, equal to it for ``"cos_bias"``.
    """

    n_frequencies_iid: int
    n_frequencies_orthogonal: int
    saving: float
    z: float
    mse_iid: float
    mse_orthogonal: float
    n_components_iid: int
    n_components_orthogonal: int


def _last_violation(v: float, c: float, d: int, target: float, hi: int) -> int:
    """Largest ``m < hi`` with ``(v + c m frac(m)) / m > target`` (0 if none), ``frac`` the
    block-pair fraction in dimension ``d``; scanned downward in chunks."""
    chunk = 1 << 20
    top = hi
    while top > 1:
        lo = max(1, top - chunk)
        ms = np.arange(lo, top, dtype=np.int64)
        mse = (v + c * ms * pair_fraction(ms, d)) / ms
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

    For the estimator of :func:`~kernelkit.features.theory.mse_rff_iid` /
    :func:`~kernelkit.features.theory.mse_rff_orthogonal` at one distance ``z``, returns
    the smallest number of frequencies ``m`` such that the pointwise MSE is
    ``<= target_mse`` for **every** ``m' >= m`` (the orthogonal MSE need not decrease
    monotonically across stacked-block boundaries, Def. 7.1), the matching feature widths
    ``n_components``, and the relative saving of orthogonal features.

    What it guarantees: the exact MSE (i.i.d.: Prop. 7.17's closed form; orthogonal: Prop.
    7.15 by quadrature, absolute error ~1e-14) at that single distance, for the kernel as
    given (absolute, i.e. including ``variance^2``). It does not bound errors at other
    distances, the Gram-matrix error, or accuracy downstream; SORF (Hadamard) features
    have no closed form and are not covered.

    Parameters
    ----------
    kernel : Kernel or str
        As in :func:`~kernelkit.features.theory.fourier_norm_density`.
    d : int
        Input dimension (the orthogonal block size).
    target_mse : float
        Target pointwise MSE, ``> 0``.
    z : float, optional
        The distance ``|x - y|``. If omitted: the median pairwise distance of ``X`` when
        given (:func:`kernelkit.kernels.median_heuristic`), else the kernel's lengthscale
        (the median distance when the lengthscale was set by the median trick, §7.6).
    X : array-like of shape (n_samples, d), optional
        Data for the median distance.
    features : {"cos_sin", "cos_bias"}
        The feature map, as in :func:`~kernelkit.features.theory.mse_rff_iid`; default
        ``"cos_sin"``.

    Returns
    -------
    FeatureRecommendation
        The numbers of frequencies, the feature widths, their MSEs and the saving.

    Raises
    ------
    ValueError
        If ``z`` is not a single distance.

    Examples
    --------
    >>> from kernelkit.features.theory import recommend_features
    >>> rec = recommend_features("gaussian", d=16, target_mse=1e-3, z=1.0)
    >>> rec.n_frequencies_orthogonal < rec.n_frequencies_iid
    True
    >>> rec.n_components_orthogonal == 2 * rec.n_frequencies_orthogonal  # cos and sin
    True
    """
    spec, d = check_kernel_d(kernel, d)
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
    z = float(check_distance(z))
    r = np.asarray(z)
    v = float(_feature_variance(spec, r, features))
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
    mse_ort = (v + c * m_ort * pair_fraction(m_ort, d)) / m_ort
    width = 2 if features == "cos_sin" else 1
    return FeatureRecommendation(
        n_frequencies_iid=int(m_iid),
        n_frequencies_orthogonal=int(m_ort),
        saving=1.0 - m_ort / m_iid,
        z=z,
        mse_iid=v / m_iid,
        mse_orthogonal=float(mse_ort),
        n_components_iid=width * int(m_iid),
        n_components_orthogonal=width * int(m_ort),
    )
