"""Monotone transforms of the observed values before the surrogate sees them.

A GP surrogate assumes values that look like a draw from a Gaussian process. Tuning
objectives rarely do: a validation R^2 lies near 0.97 for most good settings and at
-300 or -10^5 for a few bad ones (a polynomial kernel with a large ``gamma``). Standardised,
such values leave every good point within ``10^-6`` of the others, and the fitted GP sees
a flat surface with spikes. A monotone increasing map of the values keeps the order of
the points, so the best point and the improvement-based acquisitions' incumbents stay
the same, while the surrogate models something it can resolve:

* ``"power"``: the values are standardised and then Yeo-Johnson transformed (Yeo &
  Johnson 2000, *A new family of power transformations to improve normality or
  symmetry*, Biometrika 87(4)), its ``lambda`` the maximum-likelihood one
  (:func:`scipy.stats.yeojohnson_normmax`) within ``[-4, 6]``, as in HEBO (Cowen-Rivers
  et al. 2022, *HEBO: pushing the limits of sample-efficient hyperparameter
  optimisation*, JAIR 74), built for the skewed, heteroscedastic values of tuning tasks;
* ``"rank"``: the Gaussian copula of Salinas, Shen & Perrone (2020, *A quantile-based
  approach for hyperparameter transfer learning*, ICML): the ``i``-th smallest of ``n``
  values goes to ``Phi^-1((i - 1/2) / n)`` (ties share their mean rank). It discards the
  magnitudes altogether;
* ``"none"``: the values themselves.

Between observed values the inverse of ``"rank"`` interpolates linearly in the normal
scores, and beyond them it extends the line through the two outermost values; the
inverse of ``"power"`` is exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.stats

__all__ = ["OUTPUT_TRANSFORMS", "OutputTransform", "fit_output_transform"]

#: The transforms :func:`fit_output_transform` offers.
OUTPUT_TRANSFORMS = ("power", "rank", "none")
#: The range of the Yeo-Johnson exponent (the identity is 1).
_LAMBDA_RANGE = (-4.0, 6.0)


def _yeo_johnson(x: np.ndarray, lmbda: float) -> np.ndarray:
    """The Yeo-Johnson transform of ``x`` (scipy's, vectorised, for any ``lmbda``)."""
    return np.asarray(scipy.stats.yeojohnson(np.asarray(x, dtype=float), lmbda=lmbda))


def _yeo_johnson_inverse(z: np.ndarray, lmbda: float) -> np.ndarray:
    """The inverse of :func:`_yeo_johnson`, where it exists; clipped to the range of the
    map (a value beyond the transform's supremum maps to the largest finite float)."""
    z = np.asarray(z, dtype=float)
    x = np.empty_like(z)
    pos = z >= 0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if abs(lmbda) < 1e-12:
            x[pos] = np.expm1(z[pos])
        else:
            base = 1.0 + lmbda * z[pos]
            x[pos] = np.where(base > 0, np.power(np.maximum(base, 0), 1.0 / lmbda) - 1.0, np.inf)
        if abs(lmbda - 2.0) < 1e-12:
            x[~pos] = -np.expm1(-z[~pos])
        else:
            base = 1.0 - (2.0 - lmbda) * z[~pos]
            x[~pos] = np.where(
                base > 0, 1.0 - np.power(np.maximum(base, 0), 1.0 / (2.0 - lmbda)), -np.inf
            )
    big = np.finfo(float).max
    return np.clip(np.nan_to_num(x, nan=0.0, posinf=big, neginf=-big), -big, big)


@dataclass(frozen=True)
class OutputTransform:
    """A fitted monotone increasing map of the observed values (module docstring).

    Attributes
    ----------
    method : {"power", "rank", "none"}
        Which transform.
    location, scale : float
        ``"power"``: the mean and standard deviation that standardise the values before
        the Yeo-Johnson map. ``0`` and ``1`` otherwise.
    lmbda : float
        ``"power"``: the Yeo-Johnson exponent. ``1`` (the identity) otherwise.
    knots : ndarray of shape (k,)
        ``"rank"``: the distinct observed values, increasing; empty otherwise.
    scores : ndarray of shape (k,)
        ``"rank"``: their normal scores, increasing; empty otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.array([0.97, 0.96, -300.0, 0.95])
    >>> t = fit_output_transform(g, "rank")
    >>> t.transform(g).round(3).tolist()
    [1.15, 0.319, -1.15, -0.319]
    >>> bool(np.allclose(t.inverse(t.transform(g)), g))
    True
    """

    method: str
    location: float = 0.0
    scale: float = 1.0
    lmbda: float = 1.0
    knots: np.ndarray = field(default_factory=lambda: np.empty(0))
    scores: np.ndarray = field(default_factory=lambda: np.empty(0))

    def transform(self, g: np.ndarray) -> np.ndarray:
        """The transformed values of ``g`` (any values, observed or not).

        Parameters
        ----------
        g : array-like
            Values on the objective's (maximised) scale.

        Returns
        -------
        ndarray
            Same shape, increasing in ``g``.
        """
        g = np.asarray(g, dtype=float)
        if self.method == "power":
            return _yeo_johnson((g - self.location) / self.scale, self.lmbda)
        if self.method == "rank":
            return self._line(g, self.knots, self.scores)
        return g.copy()

    def inverse(self, z: np.ndarray) -> np.ndarray:
        """The values whose transform is ``z``: the inverse map.

        Parameters
        ----------
        z : array-like
            Transformed values.

        Returns
        -------
        ndarray
            Same shape, on the objective's scale.
        """
        z = np.asarray(z, dtype=float)
        if self.method == "power":
            return self.location + self.scale * _yeo_johnson_inverse(z, self.lmbda)
        if self.method == "rank":
            return self._line(z, self.scores, self.knots)
        return z.copy()

    def log_jacobian(self, g: np.ndarray) -> float:
        """``sum_i log T'(g_i)``, the log density change of the map at the values ``g``.

        The marginal likelihood of the values themselves is that of their transform plus
        this term (the change of variables of a warped GP, Snelson, Rasmussen &
        Ghahramani 2004), which makes likelihoods of different transforms comparable.

        Parameters
        ----------
        g : array-like of shape (n,)
            Values on the objective's scale.

        Returns
        -------
        float
            The sum; 0 for ``"none"``.

        Raises
        ------
        ValueError
            For ``"rank"``, a step function of the data with no density.
        """
        g = np.asarray(g, dtype=float)
        if self.method == "none":
            return 0.0
        if self.method == "rank":
            raise ValueError("the rank transform has no Jacobian: it is a step function")
        x = (g - self.location) / self.scale
        # d/dx YJ = (1 + x)^(lambda - 1) for x >= 0 and (1 - x)^(1 - lambda) for x < 0
        terms = (self.lmbda - 1.0) * np.sign(x) * np.log1p(np.abs(x))
        return float(terms.sum() - g.size * np.log(self.scale))

    @staticmethod
    def _line(t: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Piecewise-linear interpolation through ``(xs, ys)`` (two knots or more),
        extended by the end lines."""
        out = np.interp(t, xs, ys)
        lo, hi = t < xs[0], t > xs[-1]
        slope_lo = (ys[1] - ys[0]) / (xs[1] - xs[0])
        slope_hi = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
        out[lo] = ys[0] + slope_lo * (t[lo] - xs[0])
        out[hi] = ys[-1] + slope_hi * (t[hi] - xs[-1])
        return out


def fit_output_transform(g: np.ndarray, method: str) -> OutputTransform:
    """Fit the monotone transform ``method`` to the observed values ``g``.

    Parameters
    ----------
    g : array of shape (n,)
        Finite observed values, ``n >= 1``.
    method : {"power", "rank", "none"}
        The transform (module docstring).

    Returns
    -------
    OutputTransform
        The fitted map. With fewer than two distinct values every method is the identity.

    Examples
    --------
    >>> import numpy as np
    >>> t = fit_output_transform(np.array([1.0, 2.0, 4.0, 1000.0]), "power")
    >>> bool(t.lmbda < 1)  # the long upper tail is pulled in
    True
    """
    g = np.asarray(g, dtype=float)
    if g.ndim != 1 or g.size == 0 or not np.all(np.isfinite(g)):
        raise ValueError(f"g must be a non-empty 1-D array of finite values, got shape {g.shape}")
    if method not in OUTPUT_TRANSFORMS:
        raise ValueError(f"method must be one of {OUTPUT_TRANSFORMS}, got {method!r}")
    distinct = np.unique(g)
    if method == "none" or distinct.size < 2:
        return OutputTransform("none")
    if method == "power":
        # the mean and standard deviation, the latter through the largest deviation so
        # that neither 1e-300-sized values underflow nor 1e300-sized ones overflow
        location = float(np.mean(g / 2.0) * 2.0)
        centred = g - location
        largest = float(np.max(np.abs(centred)))
        scale = largest * float(np.std(centred / largest))
        if not (np.isfinite(scale) and scale > 0):
            return OutputTransform("none")
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            lmbda = float(scipy.stats.yeojohnson_normmax(centred / scale))
        if not np.isfinite(lmbda):
            lmbda = 1.0
        # Few distinct values (one outlier among 29 ties, say) let the exponent run off
        # (to +-13 there), where the map flattens to within rounding of its limit and
        # cannot be inverted: it is clipped to _LAMBDA_RANGE.
        lmbda = float(np.clip(lmbda, *_LAMBDA_RANGE))
        return OutputTransform("power", location, scale, lmbda)
    # ranks, ties sharing their mean rank: the scores of the distinct values
    ranks = scipy.stats.rankdata(g)
    scores = scipy.stats.norm.ppf((ranks - 0.5) / g.size)
    order = np.argsort(g, kind="stable")
    knots, first = np.unique(g[order], return_index=True)
    return OutputTransform("rank", knots=knots, scores=scores[order][first])
