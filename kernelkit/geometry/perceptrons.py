"""The perceptron and Vempala's modified perceptron (Vempala 1997, §2.3.2–2.3.3, Thm 5).

Both are binary linear classifiers ``sign(w·x + b)`` in scikit-learn's API. The threshold
``b`` is a weight on a constant coordinate appended to every point (``fit_intercept``, the
thesis's footnote 1 of §2.3). Mistakes are found for all points at once (one matrix–vector
product per update); Python loops run only over updates.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import (
    check_bool,
    check_in,
    check_int,
    check_random_state,
    validate_X,
    validate_X_y,
)
from kernelkit.geometry._norms import unit_rows

__all__ = ["ModifiedPerceptron", "Perceptron"]


def _augment(X: np.ndarray, fit_intercept: bool) -> np.ndarray:
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def _binary_labels(est: Any, y: np.ndarray) -> np.ndarray:
    """Set ``classes_`` and return ``ℓ ∈ {−1, +1}`` (``classes_[1]`` is positive)."""
    check_classification_targets(y)
    if y.shape[0] < 2:
        raise ValueError(
            f"{type(est).__name__} needs at least 2 samples (of 2 classes), got n_samples = "
            f"{y.shape[0]}"
        )
    classes, ell = np.unique(y, return_inverse=True)
    if classes.size > 2:
        raise ValueError(
            f"Only binary classification is supported: y must have exactly 2 classes for "
            f"{type(est).__name__}; got {classes.size}: {classes.tolist()[:10]!r}"
        )
    if classes.size != 2:
        raise ValueError(
            f"y must have exactly 2 classes for {type(est).__name__} (a binary classifier); "
            f"got {classes.size}: {classes.tolist()[:10]!r}"
        )
    est.classes_ = classes
    return 2.0 * ell - 1.0


def _check_sigma(sigma: Any) -> float:
    """``sigma`` must be a real number in (0, 1) (a cosine)."""
    if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real):
        raise TypeError(f"sigma must be a number in (0, 1), got {type(sigma).__name__}")
    if not 0.0 < float(sigma) < 1.0:
        raise ValueError(f"sigma must be in (0, 1) (a cosine), got {sigma!r}")
    return float(sigma)


class _LinearBinary(ClassifierMixin, BaseEstimator):
    """Shared prediction of the two perceptrons: ``coef_``, ``intercept_``, ``classes_``."""

    coef_: np.ndarray
    intercept_: float
    classes_: np.ndarray

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _set_weights(self, w: np.ndarray, fit_intercept: bool) -> None:
        if fit_intercept:
            self.coef_, self.intercept_ = w[:-1].copy(), float(w[-1])
        else:
            self.coef_, self.intercept_ = w.copy(), 0.0

    def decision_function(self, X: Any) -> np.ndarray:
        """``X coef_ + intercept_``: positive for ``classes_[1]``."""
        check_is_fitted(self, "coef_")
        X = validate_X(self, X, reset=False)
        return X @ self.coef_ + self.intercept_

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where the decision function is positive, else ``classes_[0]``."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]


class Perceptron(_LinearBinary):
    """Rosenblatt's perceptron with normalised updates (Vempala (1997) §2.3.2).

    On a mistake ``ℓ(x) w·x ≤ 0`` it updates ``w ← w + ℓ(x) x / |x|``. If some unit ``w*``
    has ``ℓ(x) w*·x̂ ≥ σ`` for every point (margin ``σ``), the algorithm stops after at
    most ``1/σ²`` updates (Block–Novikoff; the bound quoted in §2.3), whatever mistake
    is picked. ``x`` includes the constant coordinate when ``fit_intercept``.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Append a constant coordinate 1 to every point (the threshold).
    max_iter : int, default=1000
        Largest number of updates.
    selection : {"random", "cyclic"}, default="random"
        Which mistake to update on: a uniformly random one (as in the experiments of §2.4)
        or the first one after the last updated point, cycling through the data.
    pocket : bool, default=True
        Return the weights with the fewest training mistakes seen (Gallant's pocket
        algorithm), instead of the last ones; the same on separable data once converged.
        The thesis's §2.4 reports "the best half-space we could find".
    random_state : int, RandomState or None, default=None
        Seeds the random mistake choice.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    classes_ : ndarray of shape (2,)
    n_iter_ : int
        Number of updates made.
    converged_ : bool
        Whether a weight vector with no training mistakes was reached.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.geometry.perceptrons import Perceptron
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> clf = Perceptron(random_state=0).fit(X, ["a", "a", "b", "b"])
    >>> clf.converged_, clf.predict([[4.0, 4.0], [-4.0, -4.0]]).tolist()
    (True, ['a', 'b'])
    """

    def __init__(
        self,
        *,
        fit_intercept: bool = True,
        max_iter: int = 1000,
        selection: str = "random",
        pocket: bool = True,
        random_state: Any = None,
    ):
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.selection = selection
        self.pocket = pocket
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> Perceptron:
        """Run the perceptron on ``(X, y)`` (two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points.
        y : array-like of shape (n_samples,)
            Labels, exactly two classes.

        Returns
        -------
        self : Perceptron
            The fitted estimator.

        Warns
        -----
        ConvergenceWarning
            If ``max_iter`` updates leave training mistakes.
        """
        fit_intercept = check_bool(self.fit_intercept, "fit_intercept")
        max_iter = check_int(self.max_iter, "max_iter", minimum=0)
        check_in(self.selection, "selection", ("random", "cyclic"))
        pocket = check_bool(self.pocket, "pocket")
        rng = check_random_state(self.random_state)
        X, y = validate_X_y(self, X, y, y_numeric=False)
        ell = _binary_labels(self, y)
        Z = _augment(X, fit_intercept)
        U = ell[:, None] * unit_rows(Z)  # ℓ(x) x̂: a mistake is U w <= 0
        w = np.zeros(Z.shape[1])
        best_w, best_err = w.copy(), Z.shape[0] + 1
        last = -1
        n_iter = 0
        converged = False
        while True:
            wrong = np.flatnonzero(U @ w <= 0)
            if pocket and wrong.size < best_err:
                best_w, best_err = w.copy(), wrong.size
            if wrong.size == 0:
                converged = True
                break
            if n_iter >= max_iter:
                break
            if self.selection == "random":
                i = wrong[rng.randint(wrong.size)]
            else:
                after = wrong[wrong > last]
                i = after[0] if after.size else wrong[0]
                last = i
            w = w + U[i]
            n_iter += 1
        if pocket:
            w = best_w
        if not converged:
            warnings.warn(
                f"Perceptron made max_iter={max_iter} updates without separating the "
                "training data (it may not be linearly separable)",
                ConvergenceWarning,
                stacklevel=2,
            )
        self._set_weights(w, fit_intercept)
        self.n_iter_ = n_iter
        self.converged_ = converged
        return self


class ModifiedPerceptron(_LinearBinary):
    """Vempala's modified perceptron (Vempala (1997) §2.3.3, Thm 5).

    1. Start from a random unit vector ``w``.
    2. Halt if every misclassified ``x`` has ``|cos(w, x)| ≤ σ`` (``|w·x̂| ≤ σ|w|``).
    3. Else take the misclassified ``x`` maximising ``|cos(w, x)|`` and set
       ``w ← w − (w·x̂) x̂`` (``w`` becomes orthogonal to ``x``).
    4. After ``⌈(1/σ²) ln n⌉`` updates (``n`` the dimension, constant coordinate
       included) restart from step 1.

    On separable data each update keeps ``w·w*`` non-decreasing and shrinks ``|w|²`` by a
    factor ``≤ 1 − σ²``, so a start with ``w·w* ≥ 1/√n`` halts within the budget; Thm 5:
    ``O((1/σ²) ln n ln(1/δ))`` updates with probability ``1 − δ``. Unlike the perceptron,
    nothing depends on the data's margin: at halt, the points the hypothesis gets wrong
    all lie within angle ``arccos σ`` of its hyperplane. A point with ``w·x = 0`` counts
    as misclassified (with cosine 0).

    Parameters
    ----------
    sigma : float, default=0.1
        The cosine ``σ ∈ (0, 1)`` of the halting rule.
    fit_intercept : bool, default=True
        Append a constant coordinate 1 to every point (the threshold).
    n_restarts : int, default=20
        Largest number of restarts from a new random unit vector (step 4).
    max_iter : int, optional
        Largest total number of updates over all starts; ``None`` means
        ``(n_restarts + 1) ⌈(1/σ²) ln n⌉``.
    random_state : int, RandomState or None, default=None
        Seeds the random starting vectors.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    classes_ : ndarray of shape (2,)
    n_iter_ : int
        Total number of updates, over all starts.
    n_restarts_ : int
        Restarts made.
    converged_ : bool
        Whether the halting rule of step 2 was met (else the last start's ``w`` is kept).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.geometry.perceptrons import ModifiedPerceptron
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> clf = ModifiedPerceptron(sigma=0.1, random_state=0).fit(X, [1, 1, 0, 0])
    >>> clf.converged_
    True
    """

    def __init__(
        self,
        sigma: float = 0.1,
        *,
        fit_intercept: bool = True,
        n_restarts: int = 20,
        max_iter: int | None = None,
        random_state: Any = None,
    ):
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> ModifiedPerceptron:
        """Run the modified perceptron on ``(X, y)`` (two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points.
        y : array-like of shape (n_samples,)
            Labels, exactly two classes.

        Returns
        -------
        self : ModifiedPerceptron
            The fitted estimator.

        Warns
        -----
        ConvergenceWarning
            If the halting rule is not met within the updates and restarts allowed.
        """
        sigma = _check_sigma(self.sigma)
        fit_intercept = check_bool(self.fit_intercept, "fit_intercept")
        n_restarts = check_int(self.n_restarts, "n_restarts", minimum=0)
        max_iter = (
            None if self.max_iter is None else check_int(self.max_iter, "max_iter", minimum=0)
        )
        rng = check_random_state(self.random_state)
        X, y = validate_X_y(self, X, y, y_numeric=False)
        ell = _binary_labels(self, y)
        Z = _augment(X, fit_intercept)
        d = Z.shape[1]
        per_start = max(1, math.ceil(math.log(max(d, 2)) / sigma**2))
        if max_iter is None:
            max_iter = (n_restarts + 1) * per_start
        U = ell[:, None] * unit_rows(Z)  # ℓ x̂; misclassified: U w <= 0
        Xhat = unit_rows(Z)
        n_iter = 0
        restarts = 0
        converged = False
        w = np.zeros(d)
        while True:
            w = np.asarray(rng.standard_normal(d), dtype=float)
            w /= np.linalg.norm(w)
            t = 0
            while True:
                margins = U @ w  # ℓ (w·x̂)
                norm = np.linalg.norm(w)
                # misclassified with |cos| > sigma  <=>  ℓ w·x̂ < -sigma |w|
                bad = margins < -sigma * norm
                if not bad.any():
                    converged = True
                    break
                if t >= per_start or n_iter >= max_iter:
                    break
                i = int(np.argmin(np.where(bad, margins, np.inf)))
                w = w - (Xhat[i] @ w) * Xhat[i]
                t += 1
                n_iter += 1
            if converged or n_iter >= max_iter or restarts >= n_restarts:
                break
            restarts += 1
        if not converged:
            warnings.warn(
                f"ModifiedPerceptron did not halt within {n_iter} updates and "
                f"{restarts} restarts (sigma={sigma}); the data may not be linearly "
                "separable",
                ConvergenceWarning,
                stacklevel=2,
            )
        self._set_weights(w, fit_intercept)
        self.n_iter_ = n_iter
        self.n_restarts_ = restarts
        self.converged_ = converged
        return self
