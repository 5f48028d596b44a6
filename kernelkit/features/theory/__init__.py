"""Closed-form error theory for random projections and random features.

Exact mean squared errors (MSE) of the unbiased kernel / inner-product estimators of
Rowland (2018), *Structure in Machine Learning*, Part II, for i.i.d., orthogonal and
Hadamard–Rademacher couplings, one module per topic:

* :mod:`~kernelkit.features.theory.inner_products` — inner products under random
  projections (Ch. 6): :func:`mse_iid_inner` (Lemma 6.5), :func:`mse_orthogonal_inner`
  (Thm. 6.6, corrected), :func:`mse_hadamard_inner` (Thms. 6.7, 6.9-6.11, and an exact
  computation for the "first rows" policy);
* :mod:`~kernelkit.features.theory.angular` — the angular kernel (§7.3):
  :func:`mse_angular_iid` (Lemma 7.4) and :func:`mse_angular_orthogonal` (an exact 1-D
  integral behind Thm. 7.5);
* :mod:`~kernelkit.features.theory.fourier` — random Fourier features for isotropic
  kernels (§7.4-7.5): :func:`mse_rff_iid`, :func:`mse_rff_orthogonal`,
  :func:`mse_difference_orf_iid` (Prop. 7.15 by quadrature), :func:`charm` (Def. 7.7) and
  :func:`mse_difference_orf_iid_asymptotic` (Thm. 7.9), :func:`fourier_norm_density`
  (Table 7.1);
* :mod:`~kernelkit.features.theory.recommend` — :func:`recommend_features`: how many
  features reach a target MSE.

Conventions. ``n_components`` is the number of random rows of a projection or of sign
features, ``n_frequencies`` the number of random frequencies of Fourier features (whose
feature map has ``n_components = 2 n_frequencies`` cos/sin columns); formulas call either
``m``, as the thesis does. When ``m`` exceeds the block size (``d``, or ``D =
2**ceil(log2 d)`` for Hadamard matrices), independent blocks are stacked and the last one
is truncated (Def. 7.1, §7.6); every orthogonal formula here accounts for it: with ``m = q
d + r``, the number of ordered pairs of coupled rows is ``q d (d-1) + r (r-1)``, which is
``m (m-1)`` for ``m <= d``.

Misprints in the thesis that these functions correct (each checked by Monte Carlo in
``tests/features/test_theory*.py``):

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

from kernelkit.features._radial import PointMass
from kernelkit.features.theory.angular import mse_angular_iid, mse_angular_orthogonal
from kernelkit.features.theory.fourier import (
    charm,
    fourier_norm_density,
    mse_difference_orf_iid,
    mse_difference_orf_iid_asymptotic,
    mse_rff_iid,
    mse_rff_orthogonal,
)
from kernelkit.features.theory.inner_products import (
    mse_hadamard_inner,
    mse_iid_inner,
    mse_orthogonal_inner,
)
from kernelkit.features.theory.recommend import FeatureRecommendation, recommend_features

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
