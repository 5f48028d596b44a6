"""Learning a half-space under random classification noise (Vempala 1997, §2.3.4–2.3.5, Thm 3).

Each stage of :class:`NoisyHalfspaceLearner`:

1. removes outliers (:func:`~kernelkit.geometry.outliers.remove_outliers`) keeping at
   least half the stage's points (``beta`` is doubled until it does);
2. projects onto the span ``L`` of the survivors and whitens them (``E[z zᵀ] = I``);
3. runs the modified perceptron with ``σ = 1/√(2βn)`` (``n = dim L``) in its
   statistical-query form (§2.3.5): the update direction is the mean
   ``μ = E[ℓ x̂ | ℓ cos(w, x) ≤ −σ]`` instead of one point, with the label-dependent part
   of each average divided by ``1 − 2η`` — the standard correction that makes the
   estimates unbiased under random classification noise of rate ``η``
   (Kearns 1993; Aslam & Decatur);
4. outputs the "thick hyperplane" hypothesis: predict ``sign(w·z)`` where ``x ∈ L`` and
   ``|cos(w, z)| ≥ σ``, abstain elsewhere.

The learner then recurses on the points abstained on (boosting, §2.3.4), giving a
decision list of (region, half-space) stages; points abstained on by every stage get a
default label (the majority label of the points left at the end).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import (
    check_bool,
    check_int,
    check_random_state,
    validate_X,
    validate_X_y,
)
from kernelkit.geometry._norms import row_norms, unit_rows
from kernelkit.geometry.outliers import remove_outliers
from kernelkit.geometry.perceptrons import _augment, _binary_labels, _check_sigma

__all__ = ["HalfspaceStage", "NoisyHalfspaceLearner"]


@dataclass(frozen=True)
class HalfspaceStage:
    """One entry of the decision list: a region and the half-space used inside it.

    A point ``x`` (with the constant coordinate appended when ``fit_intercept``) is in
    the region when it lies in the span ``L`` (``basis`` spans it; ``None`` means the
    whole space) and ``|cos(w, z)| ≥ sigma`` for ``z = x W``; there the stage predicts
    ``sign(w·z)``.

    Attributes
    ----------
    whitening : ndarray of shape (n_dims, rank)
        ``W``, the whitening map of the stage's survivors (``OutlierRemovalResult``).
    basis : ndarray of shape (n_dims, rank) or None
        Orthonormal basis of ``L`` (``None`` when ``L`` is everything).
    w : ndarray of shape (rank,)
        The modified perceptron's weights in whitened coordinates.
    sigma : float
        The abstention cosine, ``1/√(2 β n)`` unless given.
    beta : float
        The outlier ratio used (after doubling).
    n_points, n_kept, n_classified : int
        Points reaching the stage, kept by outlier removal, and classified by it.
    converged : bool
        Whether the modified perceptron met its halting rule.
    n_iter : int
        Its updates, over all starts.
    """

    whitening: np.ndarray
    basis: np.ndarray | None
    w: np.ndarray
    sigma: float
    beta: float
    n_points: int
    n_kept: int
    n_classified: int
    converged: bool
    n_iter: int

    def region(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Boolean mask of the rows of ``Z`` the stage classifies, and their signs ``±1``.

        Parameters
        ----------
        Z : ndarray of shape (n_points, n_dims)
            Points, with the constant coordinate appended when ``fit_intercept``.

        Returns
        -------
        inside : ndarray of bool, shape (n_points,)
            Whether each point lies in the stage's region.
        signs : ndarray of float, shape (n_points,)
            ``sign(w·z)`` as ``±1.0`` for every point (meaningful where ``inside``).
        """
        V = Z @ self.whitening
        cos = unit_rows(V) @ self.w / np.linalg.norm(self.w)
        inside = np.abs(cos) >= self.sigma
        if self.basis is not None:
            resid = Z - (Z @ self.basis) @ self.basis.T
            scale = row_norms(Z)
            inside &= row_norms(resid) <= 1e-8 * np.maximum(scale, 1e-300)
        return inside, np.where(cos > 0, 1.0, -1.0)


def _sq_modified_perceptron(
    V: np.ndarray,
    ell: np.ndarray,
    sigma: float,
    noise_rate: float,
    tol: float,
    n_restarts: int,
    rng: np.random.RandomState,
) -> tuple[np.ndarray, bool, int]:
    """The modified perceptron in statistical-query form (§2.3.5), noise-corrected.

    Estimates, over the points, the clean mass ``P[ℓ cos(w, x) ≤ −σ]`` and the mean
    ``μ = E[ℓ x̂ ; ℓ cos(w, x) ≤ −σ]`` from ``1{ℓc ≤ −σ} = 1{|c| ≥ σ}(1 − ℓ sgn c)/2``,
    dividing the label-odd averages by ``1 − 2η``. Halts when the mass is at most
    ``tol`` times ``P[|c| ≥ σ]``; else updates ``w ← w − (w·μ̂)μ̂``; restarts after
    ``⌈8 ln n / σ²⌉`` updates (the budget of the relaxed conditions (2.10)–(2.11)).
    Returns the best weights seen (smallest error ratio), whether it halted, and updates.
    """
    m, d = V.shape
    Xhat = unit_rows(V)
    LX = ell[:, None] * Xhat
    scale = 1.0 / (1.0 - 2.0 * noise_rate)
    per_start = max(1, math.ceil(8.0 * math.log(max(d, 2)) / sigma**2))
    best_w: np.ndarray = np.ones(d) / math.sqrt(d)
    best_ratio = math.inf
    n_iter = 0
    for _ in range(n_restarts + 1):
        w = np.asarray(rng.standard_normal(d), dtype=float)
        w /= np.linalg.norm(w)
        for _t in range(per_start + 1):
            cos = Xhat @ w / np.linalg.norm(w)
            conf = np.abs(cos) >= sigma
            p_conf = float(conf.mean())
            sgn = np.sign(cos)
            err = 0.5 * (p_conf - scale * float(np.mean(conf * ell * sgn)))
            ratio = err / p_conf if p_conf > 0 else math.inf
            if ratio < best_ratio:
                best_w, best_ratio = w.copy(), ratio
            if ratio <= tol:
                return w, True, n_iter
            mu = 0.5 * (scale * (conf @ LX) - (conf * sgn) @ Xhat) / m
            norm_mu = np.linalg.norm(mu)
            if norm_mu == 0 or w @ mu >= 0 or _t == per_start:
                break
            mu /= norm_mu
            w_next = w - (w @ mu) * mu
            if np.linalg.norm(w_next) <= 1e-12 * np.linalg.norm(w):
                break  # μ parallel to w (e.g. one dimension): no direction left
            w = w_next
            n_iter += 1
    return best_w, False, n_iter


class NoisyHalfspaceLearner(ClassifierMixin, BaseEstimator):
    """Half-spaces under random classification noise: outlier removal, whitening,
    modified perceptron, thick-hyperplane abstention and boosting (Vempala (1997)
    §2.3.4–2.3.5, Thm 3).

    See the module docstring for the stages. The fitted decision list ``stages_`` is
    applied in order: the first stage whose region contains ``x`` predicts; points in no
    region get ``default_class_``.

    Parameters
    ----------
    beta : float, optional
        Outlier ratio of the first try in each stage (doubled until at least half the
        stage's points are kept); ``None`` means twice the rank of the stage's data.
        Must be at least that rank (see :func:`~kernelkit.geometry.outliers.remove_outliers`).
    sigma : float, optional
        Abstention cosine in ``(0, 1)``; ``None`` means the thesis's ``1/√(2βn)``.
    noise_rate : float, default=0.0
        An assumed classification-noise rate ``η ∈ [0, 1/2)`` for the noise correction.
    tol : float, default=0.02
        The modified perceptron halts when the estimated fraction of mistakes among the
        points it classifies is at most ``tol``.
    max_stages : int, default=10
        Largest length of the decision list.
    min_samples : int, default=10
        A stage is fitted only on at least this many remaining points.
    fit_intercept : bool, default=True
        Append a constant coordinate 1 (non-homogeneous half-spaces).
    n_restarts : int, default=5
        Restarts of the modified perceptron in each stage.
    random_state : int, RandomState or None, default=None
        Seed of the modified perceptron's random starts.

    Attributes
    ----------
    stages_ : list of HalfspaceStage
        The decision list.
    default_class_ : label
        Prediction for points abstained on by every stage.
    classes_ : ndarray of shape (2,)
    n_iter_ : int
        Modified-perceptron updates over all stages.
    converged_ : bool
        Whether every stage's modified perceptron halted.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.geometry.halfspaces import NoisyHalfspaceLearner
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(400, 3)
    >>> y = (X @ [1.0, -2.0, 0.5] > 0.3).astype(int)
    >>> clf = NoisyHalfspaceLearner(random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    def __init__(
        self,
        *,
        beta: float | None = None,
        sigma: float | None = None,
        noise_rate: float = 0.0,
        tol: float = 0.02,
        max_stages: int = 10,
        min_samples: int = 10,
        fit_intercept: bool = True,
        n_restarts: int = 5,
        random_state: Any = None,
    ):
        self.beta = beta
        self.sigma = sigma
        self.noise_rate = noise_rate
        self.tol = tol
        self.max_stages = max_stages
        self.min_samples = min_samples
        self.fit_intercept = fit_intercept
        self.n_restarts = n_restarts
        self.random_state = random_state

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_params(self) -> None:
        if self.beta is not None and (
            isinstance(self.beta, bool) or not isinstance(self.beta, numbers.Real)
        ):
            raise TypeError(f"beta must be a number or None, got {type(self.beta).__name__}")
        if self.beta is not None and not (np.isfinite(self.beta) and self.beta > 0):
            raise ValueError(f"beta must be a finite number > 0 or None, got {self.beta!r}")
        if self.sigma is not None:
            _check_sigma(self.sigma)
        for name in ("noise_rate", "tol"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"{name} must be a number, got {type(v).__name__}")
        if not 0.0 <= self.noise_rate < 0.5:
            raise ValueError(f"noise_rate must be in [0, 0.5), got {self.noise_rate!r}")
        if not 0.0 <= self.tol < 1.0:
            raise ValueError(f"tol must be in [0, 1), got {self.tol!r}")
        check_int(self.max_stages, "max_stages", minimum=1)
        check_int(self.min_samples, "min_samples", minimum=2)
        check_bool(self.fit_intercept, "fit_intercept")
        check_int(self.n_restarts, "n_restarts", minimum=0)

    def _stage(
        self, Z: np.ndarray, ell: np.ndarray, rng: np.random.RandomState
    ) -> HalfspaceStage | None:
        m = Z.shape[0]
        rank = int(np.linalg.matrix_rank(Z))
        if rank == 0:
            return None
        beta = float(self.beta) if self.beta is not None else 2.0 * rank
        beta = max(beta, float(rank))
        while True:
            res = remove_outliers(Z, beta)
            if 2 * res.kept.size >= m:
                break
            beta *= 2.0
        W = res.whitening
        n = res.rank
        sigma = float(self.sigma) if self.sigma is not None else 1.0 / math.sqrt(2.0 * beta * n)
        w, converged, n_iter = _sq_modified_perceptron(
            Z[res.kept] @ W,
            ell[res.kept],
            sigma,
            float(self.noise_rate),
            float(self.tol),
            int(self.n_restarts),
            rng,
        )
        basis = None if n == Z.shape[1] else np.linalg.qr(W)[0]
        stage = HalfspaceStage(
            W, basis, w, sigma, beta, m, int(res.kept.size), 0, converged, n_iter
        )
        inside, _ = stage.region(Z)
        return HalfspaceStage(
            W, basis, w, sigma, beta, m, int(res.kept.size), int(inside.sum()), converged, n_iter
        )

    def fit(self, X: Any, y: Any) -> NoisyHalfspaceLearner:
        """Fit the decision list on ``(X, y)`` (two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points.
        y : array-like of shape (n_samples,)
            Labels, exactly two classes.

        Returns
        -------
        self : NoisyHalfspaceLearner
            The fitted estimator.
        """
        self._check_params()
        rng = check_random_state(self.random_state)
        X, y = validate_X_y(self, X, y, y_numeric=False)
        ell = _binary_labels(self, y)
        Z = _augment(X, bool(self.fit_intercept))
        left = np.arange(Z.shape[0])
        stages: list[HalfspaceStage] = []
        while len(stages) < self.max_stages and left.size >= self.min_samples:
            if np.unique(ell[left]).size < 2:
                break
            stage = self._stage(Z[left], ell[left], rng)
            if stage is None or stage.n_classified == 0:
                break
            stages.append(stage)
            inside, _ = stage.region(Z[left])
            left = left[~inside]
        rest = ell[left] if left.size else ell
        self.default_class_ = self.classes_[int(rest.mean() > 0)]
        self.stages_ = stages
        self.n_iter_ = int(sum(s.n_iter for s in stages))
        self.converged_ = all(s.converged for s in stages)
        return self

    def apply(self, X: Any) -> np.ndarray:
        """Index of the stage that classifies each point (``-1``: the default label).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to classify.

        Returns
        -------
        ndarray of int, shape (n_samples,)
            Index into ``stages_`` of the first stage whose region contains each point,
            ``-1`` where none does.
        """
        return self._decide(X)[0]

    def _decide(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        check_is_fitted(self, "stages_")
        X = validate_X(self, X, reset=False)
        Z = _augment(X, bool(self.fit_intercept))
        which = np.full(Z.shape[0], -1)
        sign = np.where(self.default_class_ == self.classes_[1], 1.0, -1.0) * np.ones(Z.shape[0])
        for k, stage in enumerate(self.stages_):
            open_ = np.flatnonzero(which < 0)
            if open_.size == 0:
                break
            inside, s = stage.region(Z[open_])
            which[open_[inside]] = k
            sign[open_[inside]] = s[inside]
        return which, sign

    def predict(self, X: Any) -> np.ndarray:
        """The label of the first stage whose region contains each point, else the default.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to classify.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels, from ``classes_``.
        """
        check_is_fitted(self, "stages_")
        _, sign = self._decide(X)
        return self.classes_[(sign > 0).astype(int)]
