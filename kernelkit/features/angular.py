"""Sign random features for the angular kernel (Rowland (2018) §7.3)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import check_in, check_int, check_random_state
from kernelkit.features._coupling import COUPLINGS, Directions, check_input, check_n_jobs

__all__ = ["AngularFeatures"]


class AngularFeatures(TransformerMixin, BaseEstimator):
    """``z(x) = sign(W x) / sqrt(m)``, so that ``<z(x), z(y)>`` estimates the angular
    kernel ``1 - (2/pi) angle(x, y)`` (:class:`kernelkit.kernels.Angular`).

    Each term ``sign(w . x) sign(w . y)`` has expectation ``1 - 2 theta / pi`` for any
    rotation-invariant ``w`` (eqs. 5.10–5.11), so only the directions of the rows of ``W``
    matter: i.i.d. Gaussian rows (eq. 7.8; MSE ``4 theta (pi - theta) / (m pi^2)``,
    Lemma 7.4), Haar-orthogonal rows (Def. 7.3; strictly smaller MSE, Thm 7.5), or rows
    of stacked Hadamard–Rademacher matrices (the structured variant of §7.6; inputs
    zero-padded to a power of two; not exactly unbiased, as the directions are not
    uniform on the sphere).

    Parameters
    ----------
    n_components : int, default=100
        Number ``m`` of features.
    coupling : {"iid", "orthogonal", "hadamard"}, default="iid"
    n_blocks : int, default=3
        ``S D`` factors for ``coupling="hadamard"``.
    random_state : int, RandomState or None
    n_jobs : int or None, default=None
        Threads for ``transform`` (``None``: as many as BLAS uses).

    Attributes
    ----------
    n_features_in_ : int
    directions_ : object
        The sampled directions (dense ``W`` or Hadamard–Rademacher signs).
    n_parameter_bytes_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Angular
    >>> X = np.random.RandomState(0).randn(4, 6)
    >>> Z = AngularFeatures(20000, coupling="orthogonal", random_state=0).fit_transform(X)
    >>> bool(np.abs(Z @ Z.T - Angular()(X)).max() < 0.03)
    True
    """

    def __init__(
        self,
        n_components: int = 100,
        *,
        coupling: str = "iid",
        n_blocks: int = 3,
        random_state: Any = None,
        n_jobs: int | None = None,
    ):
        self.n_components = n_components
        self.coupling = coupling
        self.n_blocks = n_blocks
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X: Any, y: Any = None) -> AngularFeatures:
        """Draw the ``n_components`` directions for ``X.shape[1]`` input features."""
        m = check_int(self.n_components, "n_components", minimum=1)
        check_in(self.coupling, "coupling", COUPLINGS)
        check_int(self.n_blocks, "n_blocks", minimum=1)
        check_n_jobs(self.n_jobs)
        X = check_input(X, "X")
        rng = check_random_state(self.random_state)
        self.directions_ = Directions(self.coupling, m, X.shape[1], rng, n_blocks=self.n_blocks)
        self.n_features_in_ = X.shape[1]
        self.n_parameter_bytes_ = self.directions_.n_parameter_bytes
        return self

    def transform(self, X: Any) -> np.ndarray:
        """``sign(X W^T) / sqrt(m)``, shape ``(n_samples, n_components)``.

        A zero row (where the angular kernel is undefined) maps to zero features."""
        check_is_fitted(self, "n_features_in_")
        X = check_input(X, "X", n_features=self.n_features_in_)
        m = self.directions_.m
        out = np.empty((X.shape[0], m), dtype=X.dtype)
        scale = 1.0 / math.sqrt(m)

        def consume(s: int, e: int, c0: int, c1: int, th: np.ndarray, sc: dict) -> None:
            block = out[s:e, c0:c1]
            np.sign(th, out=block)
            block *= scale

        self.directions_.project_blocks(X, consume, self.n_jobs)
        return out

    def get_directions(self) -> np.ndarray:
        """The dense ``(n_components, n_features_in_)`` matrix ``W`` (for tests)."""
        check_is_fitted(self, "n_features_in_")
        return self.directions_.to_dense()
