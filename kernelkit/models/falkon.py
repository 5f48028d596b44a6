"""FALKON: Nyström kernel ridge regression and classification for large ``n``.

The model is kernel ridge restricted to ``M`` Nyström centres ``c_1..c_M`` drawn from the
training inputs, ``f(x) = sum_j a_j k(x, c_j)``, fitted by minimising

    ``(1/n) sum_i l(y_i, f(x_i)) + (alpha / 2) |f|_H^2``

with the squared loss ``l = (y - f)^2 / 2`` (FALKON, Rudi, Carratino & Rosasco 2017) or the
logistic loss ``l = log(1 + exp(-y f))`` (Meanti, Carratino, Rosasco & Rudi 2020). For the
squared loss the minimiser solves the ``M x M`` system

    ``(K_nM^T K_nM + alpha n K_MM) a = K_nM^T y``

which conjugate gradients solve in a few iterations with the FALKON preconditioner
``B = T^-1 A^-1`` (``T = chol(K_MM)``, ``A = chol(T T^T / M + alpha I)``, Algorithm 1 of
the paper): ``B^T H B`` is close to the identity whenever the centres cover the data.
Each iteration multiplies by ``K_nM`` and ``K_nM^T`` block of rows by block of rows, so
the fit takes ``O(n M t + M^3)`` time and ``O(M^2)`` memory besides ``O(n)`` vectors. The
kernel values of ``K_nM`` are kept between iterations while they take at most 1 GiB (and an
eighth of the machine's memory); beyond that each iteration evaluates them again, one block
of about 32 MiB at a time.

With ``M = n`` centres (all the training points) the model is exact kernel ridge
regression: ``K (K + alpha n I) a = K y``, i.e. :class:`KernelRidge` with penalty
``alpha * n``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
import scipy.special
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from kernelkit._memory import check_memory, memory_limit
from kernelkit._validation import (
    check_fraction,
    check_in,
    check_int,
    check_positive_scalar,
    check_random_state,
)
from kernelkit.kernels import Kernel
from kernelkit.linalg.cholesky import cholesky_jitter
from kernelkit.linalg.krylov import CGResult, mbcg
from kernelkit.linalg.preconditioners import select_centres
from kernelkit.models._common import (
    kernel_dot_by_blocks,
    resolve_estimator_kernel,
    validate_test_input,
    validate_training_data,
)
from kernelkit.models._threads import LapackThreads

__all__ = ["FalkonClassifier", "FalkonRegressor", "default_n_centres"]

#: How the Nyström centres are drawn.
CENTRES = ("uniform", "leverage")
#: The losses of :class:`FalkonClassifier`.
LOSSES = ("squared", "logistic")
#: Largest number of centres chosen by ``n_centres=None``.
MAX_DEFAULT_CENTRES = 5000
#: Bytes of one block of rows of ``K_nM`` (about 32 MiB).
_BLOCK_BYTES = 32 * 2**20
#: ``K_nM`` is kept between CG iterations when it takes at most this many bytes.
_CACHE_BYTES = 2**30
#: Newton steps of the logistic loss at the final penalty, at most.
_FINAL_NEWTON_STEPS = 10
#: Factor between successive penalties of the logistic loss's Newton steps.
_PENALTY_STEP = 10.0
#: Relative CG tolerance of the Newton steps before the final penalty.
_INTERMEDIATE_TOL = 1e-2
_EPS = float(np.finfo(np.float64).eps)


def default_n_centres(n_samples: int) -> int:
    """The number of centres that ``n_centres=None`` gives ``n_samples`` training points:
    ``ceil(sqrt(n) log n)``, the order of uniform centres with which FALKON reaches the
    optimal statistical rate (Rudi et al. 2017, §4, there with ``alpha = 1 / sqrt(n)``),
    with constant 1; at least ``min(n, 100)`` (every point below 100 samples: exact kernel
    ridge) and at most :data:`MAX_DEFAULT_CENTRES`.

    Parameters
    ----------
    n_samples : int
        Number of training points, ``>= 1``.

    Returns
    -------
    int
        The number of centres, between 1 and ``n_samples``.

    Examples
    --------
    >>> from kernelkit.models.falkon import default_n_centres
    >>> default_n_centres(50), default_n_centres(10_000), default_n_centres(10**7)
    (50, 922, 5000)
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    m = math.ceil(math.sqrt(n) * math.log(n))
    return min(n, max(m, 100), MAX_DEFAULT_CENTRES)


# ---------------------------------------------------------------------- K_nM by blocks
class _CrossBlocks:
    """``K_nM = kernel(X, C)`` as products computed one block of rows at a time; the
    blocks are kept between products when all of them take at most ``_CACHE_BYTES``."""

    def __init__(self, kernel: Kernel, X: np.ndarray, C: np.ndarray):
        n, m = X.shape[0], C.shape[0]
        rows = max(1, _BLOCK_BYTES // (8 * m))
        self.kernel, self.X, self.C = kernel, X, C
        self.slices = [slice(i, min(i + rows, n)) for i in range(0, n, rows)]
        self.cache: list[np.ndarray] | None = None
        if 8 * n * m <= min(_CACHE_BYTES, memory_limit() // 8):
            self.cache = [self._evaluate(s) for s in self.slices]

    def _evaluate(self, s: slice) -> np.ndarray:
        return np.asarray(self.kernel(self.X[s], self.C), dtype=np.float64)

    def _blocks(self) -> Iterator[tuple[slice, np.ndarray]]:
        for i, s in enumerate(self.slices):
            yield s, (self.cache[i] if self.cache is not None else self._evaluate(s))

    def dot(self, V: np.ndarray) -> np.ndarray:
        """``K_nM V`` for ``V`` of shape ``(M, k)``."""
        out = np.empty((self.X.shape[0], V.shape[1]))
        for s, Kb in self._blocks():
            out[s] = Kb @ V
        return out

    def tdot(self, U: np.ndarray) -> np.ndarray:
        """``K_nM^T U`` for ``U`` of shape ``(n, k)``."""
        out = np.zeros((self.C.shape[0], U.shape[1]))
        for s, Kb in self._blocks():
            out += Kb.T @ U[s]
        return out

    def gram_dot(self, V: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
        """``K_nM^T diag(weights) K_nM V`` in one pass over the blocks."""
        out = np.zeros_like(V)
        for s, Kb in self._blocks():
            KV = Kb @ V
            if weights is not None:
                KV *= weights[s, None]
            out += Kb.T @ KV
        return out


# ---------------------------------------------------------------------- the solver
@dataclass(frozen=True)
class _FalkonSolve:
    """One preconditioned CG solve of a FALKON system (:func:`_falkon_solve`).

    Attributes
    ----------
    coef : ndarray of shape (M, k)
        The solution ``a`` of ``(K_nM^T D K_nM / n + penalty K_MM) a = rhs``.
    cg : CGResult
        The conjugate-gradient solve of the preconditioned system ``B^T H B b = B^T rhs``.
    """

    coef: np.ndarray
    cg: CGResult


def _cholesky_kmm(Kmm: np.ndarray, threads: LapackThreads) -> np.ndarray:
    """Upper ``T`` with ``T^T T = K_MM + delta I``, ``delta = M eps mean(diag K_MM)`` (the
    jitter of Rudi et al. (2017) Alg. 1); more jitter, with a warning, if that fails."""
    m = Kmm.shape[0]
    scale = float(np.mean(np.diagonal(Kmm)))
    G = Kmm.copy()
    G[np.diag_indices_from(G)] += m * _EPS * max(scale, _EPS)
    with threads.lapack():
        try:
            return scipy.linalg.cholesky(G, lower=False, check_finite=False)
        except np.linalg.LinAlgError:
            return cholesky_jitter(G, name="K_MM (the centres' Gram matrix)").T


def _falkon_factor(
    T: np.ndarray, penalty: float, weights: np.ndarray | None, threads: LapackThreads
) -> np.ndarray:
    """Upper ``A`` with ``A^T A = T D T^T / M + penalty I``, ``D = diag(weights)`` (the
    second derivatives of the loss at the centres; the identity for the squared loss)."""
    m = T.shape[0]
    TD = T if weights is None else T * np.sqrt(weights)[None, :]
    with threads.lapack():
        G = TD @ TD.T
        G /= m
        G[np.diag_indices_from(G)] += penalty
        return cholesky_jitter(G, name="T T^T / M + alpha I").T


def _falkon_solve(
    blocks: _CrossBlocks,
    T: np.ndarray,
    rhs: np.ndarray,
    penalty: float,
    *,
    weights: np.ndarray | None = None,
    centre_weights: np.ndarray | None = None,
    threads: LapackThreads,
    tol: float,
    max_iter: int,
    warn: bool = True,
) -> _FalkonSolve:
    """Solve ``H a = rhs`` with ``H = K_nM^T D K_nM / n + penalty T^T T`` by CG on the
    FALKON-preconditioned system (Rudi et al. (2017) Alg. 1): ``B = T^-1 A^-1`` with
    ``A^T A = T D_M T^T / M + penalty I``, all columns of ``rhs`` in one batched solve."""
    n = blocks.X.shape[0]
    A = _falkon_factor(T, penalty, centre_weights, threads)
    solve = scipy.linalg.solve_triangular

    def matmat(U: np.ndarray) -> np.ndarray:
        AU = solve(A, U, check_finite=False)
        V = solve(T, AU, check_finite=False)
        W = solve(T, blocks.gram_dot(V, weights) / n, trans="T", check_finite=False)
        W += penalty * AU  # T^-T (penalty T^T T) T^-1 A^-1 U
        return solve(A, W, trans="T", check_finite=False)

    b = solve(A, solve(T, rhs, trans="T", check_finite=False), trans="T", check_finite=False)
    res = mbcg(
        matmat,
        b,
        tol=tol,
        max_iter=max_iter,
        warn=warn,
        name="the preconditioned FALKON system",
    )
    coef = solve(T, solve(A, res.solution, check_finite=False), check_finite=False)
    return _FalkonSolve(coef, res)


# ---------------------------------------------------------------------- logistic loss
@dataclass(frozen=True)
class _NewtonFit:
    """The logistic loss's Newton iterations (:func:`_logistic_newton`)."""

    coef: np.ndarray
    n_iter: int
    n_newton_steps: np.ndarray
    penalties: np.ndarray
    converged: bool


def _logistic_penalties(scale: float, alpha: float) -> np.ndarray:
    """``scale, scale / 10, ...`` while above ``2 alpha``, then ``alpha`` (so the last step
    down is by a factor between 2 and 20)."""
    values = []
    penalty = max(scale, alpha)
    while penalty > 2.0 * alpha:
        values.append(penalty)
        penalty /= _PENALTY_STEP
    values.append(alpha)
    return np.array(values)


def _logistic_newton(
    blocks: _CrossBlocks,
    T: np.ndarray,
    Y: np.ndarray,
    alpha: float,
    centre_indices: np.ndarray,
    *,
    threads: LapackThreads,
    tol: float,
    max_iter: int,
) -> _NewtonFit:
    """Minimise ``(1/n) sum_i log(1 + exp(-y_i f_i)) + (alpha / 2) a^T K_MM a`` for each
    column of the ``+-1`` targets ``Y``: one Newton step at each penalty of
    :func:`_logistic_penalties` (Marteau-Ferey, Bach & Rudi 2019), then Newton steps at
    ``alpha`` until half the squared Newton decrement is at most ``tol``."""
    scale = float(np.sum(T * T)) / T.shape[0]  # mean(diag(K_MM)) = trace(T^T T) / M
    penalties = _logistic_penalties(scale, alpha)
    schedule = list(penalties[:-1]) + [alpha] * _FINAL_NEWTON_STEPS
    coef = np.zeros((T.shape[0], Y.shape[1]))
    steps = np.zeros(Y.shape[1], dtype=int)
    n_iter, converged = 0, True
    for c in range(Y.shape[1]):
        y = Y[:, c]
        a, f = np.zeros(T.shape[0]), np.zeros(Y.shape[0])
        done = False
        for penalty in schedule:
            final = penalty == alpha
            a, f, decrement, res = _newton_step(
                blocks,
                T,
                y,
                a,
                f,
                penalty,
                centre_indices,
                threads=threads,
                tol=tol if final else max(tol, _INTERMEDIATE_TOL),
                max_iter=max_iter,
            )
            steps[c] += 1
            n_iter += res.n_iter
            if final and decrement <= tol:
                done = True
                break
        converged &= done
        coef[:, c] = a
    return _NewtonFit(coef, n_iter, steps, penalties, bool(converged))


def _newton_step(
    blocks: _CrossBlocks,
    T: np.ndarray,
    y: np.ndarray,
    a: np.ndarray,
    f: np.ndarray,
    penalty: float,
    centre_indices: np.ndarray,
    *,
    threads: LapackThreads,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray, float, CGResult]:
    """One Newton step from ``a`` (``f = K_nM a``), damped by backtracking until the
    objective decreases enough (Armijo); returns the new ``a`` and ``f``, half the squared
    Newton decrement ``-grad . d / 2`` and the CG solve of the Newton system."""
    n = y.size
    s = scipy.special.expit(-y * f)  # sigma(-y f)
    g = -y * s  # d loss / d f
    w = s * (1.0 - s)  # d^2 loss / d f^2
    Ta = T @ a
    grad = blocks.tdot(g[:, None])[:, 0] / n + penalty * (T.T @ Ta)
    sol = _falkon_solve(
        blocks,
        T,
        -grad[:, None],
        penalty,
        weights=w,
        centre_weights=w[centre_indices],
        threads=threads,
        tol=tol,
        max_iter=max_iter,
        warn=False,
    )
    d = sol.coef[:, 0]
    Kd = blocks.dot(d[:, None])[:, 0]
    Td = T @ d
    slope = float(grad @ d)  # < 0: a descent direction

    def objective(t: float) -> float:
        z = Ta + t * Td
        loss = float(np.mean(np.logaddexp(0.0, -y * (f + t * Kd))))
        return loss + 0.5 * penalty * float(z @ z)

    t, base = 1.0, objective(0.0)
    while objective(t) > base + 1e-4 * t * slope and t > 1e-8:
        t *= 0.5
    return a + t * d, f + t * Kd, -0.5 * slope, sol.cg


# ---------------------------------------------------------------------- the estimators
class _Falkon(BaseEstimator):
    """What the FALKON regressor and classifier share: parameters, centres, prediction."""

    kernel: Any
    alpha: float
    n_centres: int | None
    centres: str
    tol: float
    max_iter: int
    random_state: Any

    def _check_params(self) -> float:
        alpha = check_positive_scalar(self.alpha, "alpha")
        if self.n_centres is not None:
            check_int(self.n_centres, "n_centres", minimum=1)
        check_in(self.centres, "centres", CENTRES)
        check_fraction(self.tol, "tol")
        check_int(self.max_iter, "max_iter", minimum=1)
        check_random_state(self.random_state)
        return alpha

    def _resolve_kernel(self) -> Kernel:
        kernel = resolve_estimator_kernel(self.kernel, precomputed=False)
        assert isinstance(kernel, Kernel)
        if not kernel.requires_vector_input:
            raise TypeError(
                f"{type(self).__name__} needs a kernel on vectors (rows of a numeric array), "
                f"got {kernel!r}, a kernel on lists of objects; use KernelRidge or KernelSVC"
            )
        return kernel

    def _n_centres(self, n: int) -> int:
        return default_n_centres(n) if self.n_centres is None else min(int(self.n_centres), n)

    def _setup(
        self, kernel: Kernel, X: np.ndarray, alpha: float, threads: LapackThreads
    ) -> tuple[_CrossBlocks, np.ndarray]:
        """Draw the centres; return ``K_nM`` by blocks and ``T`` (``T^T T = K_MM``)."""
        n = X.shape[0]
        m = self._n_centres(n)
        rows = max(1, _BLOCK_BYTES // (8 * m))
        check_memory(
            8 * (3 * m * m + 2 * rows * m + 4 * n),
            f"{type(self).__name__}.fit with {m} centres (3 float64 matrices of {m} x {m})",
            "ask for fewer n_centres",
        )
        rng = check_random_state(self.random_state)
        # FALKON's ridge alpha is per sample: the leverage scores' ridge is alpha * n
        idx = select_centres(
            kernel, X, m, centres=self.centres, noise=alpha * X.shape[0], random_state=rng
        )[0]
        C = X[idx]
        T = _cholesky_kmm(np.asarray(kernel(C), dtype=np.float64), threads)
        self.centre_indices_ = idx
        self.centres_ = C
        self.n_centres_ = m
        self.kernel_ = kernel
        return _CrossBlocks(kernel, X, C), T

    def _decision(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "dual_coef_")
        X = validate_test_input(self, X, self.kernel_, self.n_centres_, cross_copies=0)
        return kernel_dot_by_blocks(self.kernel_, X, self.centres_, self.dual_coef_)


_PARAMETERS_DOC = """kernel : Kernel or str, default=None
        A kernel on vectors; ``None`` means ``RBF()``, a name (``"rbf"``, ``"matern52"``,
        ...) is resolved by :func:`kernelkit.kernels.resolve_kernel`.
    alpha : float, default=1e-6
        The penalty ``lambda > 0`` of the paper, per sample: the objective is ``(1/n)
        sum_i l(y_i, f(x_i)) + (alpha / 2) |f|^2``. With all points as centres the squared
        loss gives :class:`KernelRidge` with ``alpha_KRR = alpha * n``.
    n_centres : int or None, default=None
        Number ``M`` of Nyström centres, ``>= 1``; more than ``n`` is clipped to ``n``
        (every training point: exact kernel ridge). ``None``: ``ceil(sqrt(n) log n)``
        (the order of Rudi et al. 2017, §4), at least ``min(n, 100)`` and at most 5000
        (:func:`~kernelkit.models.falkon.default_n_centres`): 2120 for ``n = 40000``.
    centres : {"uniform", "leverage"}, default="uniform"
        How the centres are drawn from the training inputs: uniformly without
        replacement, or with probabilities proportional to approximate ridge leverage
        scores at ``alpha`` computed from a uniform sketch of ``M`` points (Rudi,
        Calandriello, Carratino & Rosasco 2018; twice the kernel evaluations of the
        draw).
    tol : float, default=1e-4
        Relative residual of the preconditioned system at which CG stops, in ``(0, 1)``
        (for the logistic loss, also the Newton stopping rule: class docstring). The
        default leaves an optimisation error far below the statistical one: on
        40000 x 9 synthetic regressions the test error equals the fully converged
        solution's to 3 digits (``1e-3`` already to 0.2%), and the predictions are within
        about ``tol`` (relative) of the exact Nyström solution. A smaller ``tol`` costs
        a few iterations per factor of 10.
    max_iter : int, default=200
        Most CG iterations of a solve (each one pass over ``K_nM``), ``>= 1``. A solve
        that stops short of ``tol`` warns (``ConvergenceWarning``) and leaves
        ``converged_ = False``.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the draw of the centres; the same value gives the same model."""

_ATTRIBUTES_DOC = """centres_ : ndarray of shape (``n_centres_``, n_features)
        The Nyström centres.
    centre_indices_ : ndarray of int of shape (``n_centres_``,)
        Their indices into the training inputs.
    n_centres_ : int
        ``M``, the number of centres used.
    kernel_ : Kernel
        The kernel used.
    n_iter_ : int
        CG iterations run (summed over all solves: one for the squared loss, one per
        Newton step for the logistic loss).
    converged_ : bool
        Whether CG reached ``tol`` (squared loss) or Newton's method its stopping rule
        (logistic loss).
    n_features_in_ : int
        Number of input features.
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame with string column names."""


class FalkonRegressor(RegressorMixin, _Falkon):
    """FALKON: kernel ridge regression on ``M`` Nyström centres, solved by preconditioned
    conjugate gradients in ``O(n M t)`` time and ``O(M^2)`` memory besides ``O(n)``.

    Minimises ``(1/n) sum_i (y_i - f(x_i))^2 / 2 + (alpha / 2) |f|_H^2`` over ``f(x) = sum_j
    a_j k(x, c_j)``: the coefficients solve ``(K_nM^T K_nM + alpha n K_MM) a = K_nM^T y``,
    which CG solves with the FALKON preconditioner (module docstring), every column of a
    multi-output ``y`` in one batched solve. ``K_nM`` is only ever multiplied one block of
    rows at a time. There is no intercept (as in :class:`KernelRidge`).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    dual_coef_ : ndarray of shape (``n_centres_``,) or (``n_centres_``, n_targets)
        The coefficients ``a``: ``f(x) = kernel(x, centres_) @ dual_coef_``.
    {attributes}

    See Also
    --------
    KernelRidge : The exact solution (``solver="cg"`` for large ``n``); equal to this
        model with ``n_centres = n`` and ``alpha_KRR = alpha * n``.
    FalkonClassifier : The same solver for classification.

    Notes
    -----
    A. Rudi, L. Carratino and L. Rosasco (2017), *FALKON: An optimal large scale kernel
    method*, NeurIPS, Algorithm 1 (the preconditioner, with the jitter ``M eps`` on
    ``K_MM``); G. Meanti, L. Carratino, L. Rosasco and A. Rudi (2020), *Kernel methods
    through the roof: handling billions of points efficiently*, NeurIPS. The centres'
    Cholesky factors cost ``O(M^3)``; each CG iteration costs ``O(n M d)`` kernel
    evaluations (none when ``K_nM`` fits in 1 GiB: it is then kept).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.models import FalkonRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(2000, 1))
    >>> y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(2000)
    >>> model = FalkonRegressor(RBF(lengthscale=0.5), n_centres=100, random_state=0).fit(X, y)
    >>> model.n_centres_, model.converged_
    (100, True)
    >>> bool(np.max(np.abs(model.predict([[0.0], [1.0]]) - np.sin([0.0, 2.0]))) < 0.05)
    True
    """

    def __init__(
        self,
        kernel: Any = None,
        *,
        alpha: float = 1e-6,
        n_centres: int | None = None,
        centres: str = "uniform",
        tol: float = 1e-4,
        max_iter: int = 200,
        random_state: Any = None,
    ):
        self.kernel = kernel
        self.alpha = alpha
        self.n_centres = n_centres
        self.centres = centres
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> FalkonRegressor:
        """Draw the centres and solve for their coefficients.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Targets; predictions have the same number of dimensions.

        Returns
        -------
        self : FalkonRegressor
            The fitted estimator.
        """
        alpha = self._check_params()
        kernel = self._resolve_kernel()
        X, y = validate_training_data(self, X, y, kernel, multi_output=True, gram_copies=0)
        Y = y[:, None] if y.ndim == 1 else y
        with LapackThreads(self._n_centres(X.shape[0])) as threads:
            blocks, T = self._setup(kernel, X, alpha, threads)
            rhs = blocks.tdot(Y) / X.shape[0]
            sol = _falkon_solve(
                blocks, T, rhs, alpha, threads=threads, tol=float(self.tol), max_iter=self.max_iter
            )
        self.dual_coef_ = sol.coef[:, 0] if y.ndim == 1 else sol.coef
        self.n_iter_ = sol.cg.n_iter
        self.converged_ = sol.cg.converged
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Predictions ``kernel(X, centres_) @ dual_coef_``, by blocks of rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test inputs.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
            The predictions, with the number of dimensions of ``y`` in ``fit``.
        """
        return self._decision(X)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class FalkonClassifier(ClassifierMixin, _Falkon):
    """FALKON for classification: one-vs-rest Nyström kernel machines with the squared or
    the logistic loss, solved by FALKON-preconditioned conjugate gradients.

    Each class ``c`` gets a function ``f_c(x) = sum_j a_jc k(x, c_j)`` on the same ``M``
    centres, fitted to the targets ``+1`` (class ``c``) and ``-1`` (the rest); a binary
    problem has one function, positive for ``classes_[1]``. The prediction is the class
    with the largest ``f_c``.

    * ``loss="squared"``: kernel ridge on the ``+-1`` targets (least-squares
      classification); every class's column is solved in one batched CG solve, exactly
      as :class:`FalkonRegressor` solves a multi-output ``y``.
    * ``loss="logistic"``: ``(1/n) sum_i log(1 + exp(-y_i f(x_i))) + (alpha / 2) |f|^2``
      by Newton's method, each Newton system ``(K_nM^T D K_nM / n + lambda K_MM) d =
      -gradient`` (``D`` the loss's second derivatives) solved by the same preconditioned
      CG, with ``D`` at the centres in the preconditioner (``A = chol(T D_M T^T / M +
      lambda I)``). As in Meanti et al. (2020), following Marteau-Ferey, Bach & Rudi
      (2019), the penalty decreases along the Newton steps: one step at each of
      ``lambda = s, s / 10, s / 100, ...`` (``s`` the mean kernel variance at the
      centres) while above ``2 alpha``, each solved to a relative residual of ``1e-2``,
      then up to 10 steps at ``alpha`` solved to ``tol``, until half the squared Newton
      decrement (the predicted decrease of the objective, an average loss) is at most
      ``tol``. Every step is damped by backtracking if it does not decrease the
      objective enough (Armijo). The classes are solved one after the other (their
      Newton systems differ). The fitted function is scikit-learn's
      ``LogisticRegression(C=1 / (alpha n), fit_intercept=False)`` on the Nyström
      features ``K_nM T^-1`` (``T^T T = K_MM``). :meth:`predict_proba` gives the sigmoids
      of the decision values, normalised over the classes for more than two.

    Parameters
    ----------
    {parameters}
    loss : {{"squared", "logistic"}}, default="squared"
        The loss (see above).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    dual_coef_ : ndarray of shape (``n_centres_``,) or (``n_centres_``, n_classes)
        The coefficients of the decision functions (one column per class for more than
        two classes; one column, for ``classes_[1]``, for two).
    {attributes}
    n_newton_steps_ : ndarray of int of shape (n_functions,)
        Newton steps of each decision function (``loss="logistic"`` only).
    penalties_ : ndarray of shape (n_penalties,)
        The decreasing penalties of the Newton steps, ``alpha`` last (``loss="logistic"``
        only).

    See Also
    --------
    KernelSVC : The exact kernel SVM, for moderate ``n``.
    FalkonRegressor : The same solver for regression.

    Notes
    -----
    A. Rudi, L. Carratino and L. Rosasco (2017), *FALKON: An optimal large scale kernel
    method*, NeurIPS, Algorithm 1; G. Meanti, L. Carratino, L. Rosasco and A. Rudi (2020),
    *Kernel methods through the roof: handling billions of points efficiently*, NeurIPS
    (the logistic loss, ``LogisticFalkon``); U. Marteau-Ferey, F. Bach and A. Rudi (2019),
    *Globally convergent Newton methods for ill-conditioned generalized self-concordant
    losses*, NeurIPS (the decreasing penalties).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import FalkonClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((600, 2))
    >>> y = np.where(np.hypot(X[:, 0], X[:, 1]) < 1.0, "in", "out")
    >>> clf = FalkonClassifier(loss="logistic", alpha=1e-4, random_state=0).fit(X, y)
    >>> clf.predict([[0.0, 0.1], [2.0, 2.0]]).tolist()
    ['in', 'out']
    >>> clf.predict_proba([[0.0, 0.1]]).round(1).tolist()
    [[1.0, 0.0]]
    """

    def __init__(
        self,
        kernel: Any = None,
        *,
        alpha: float = 1e-6,
        n_centres: int | None = None,
        centres: str = "uniform",
        tol: float = 1e-4,
        max_iter: int = 200,
        random_state: Any = None,
        loss: str = "squared",
    ):
        self.kernel = kernel
        self.alpha = alpha
        self.n_centres = n_centres
        self.centres = centres
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.loss = loss

    def fit(self, X: Any, y: Any) -> FalkonClassifier:
        """Draw the centres and fit one decision function per class (one for two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Class labels (numbers or strings); a column vector is raveled with a
            ``DataConversionWarning``.

        Returns
        -------
        self : FalkonClassifier
            The fitted estimator.
        """
        alpha = self._check_params()
        check_in(self.loss, "loss", LOSSES)
        kernel = self._resolve_kernel()
        X, y = validate_training_data(
            self, X, y, kernel, multi_output=False, y_numeric=False, gram_copies=0
        )
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"y has one class ({classes[0]!r}); a classifier needs at least 2 classes"
            )
        columns = [1] if classes.size == 2 else list(range(classes.size))
        Y = np.column_stack([np.where(codes == c, 1.0, -1.0) for c in columns])
        for attr in ("n_newton_steps_", "penalties_"):
            self.__dict__.pop(attr, None)
        tol, max_iter = float(self.tol), int(self.max_iter)
        with LapackThreads(self._n_centres(X.shape[0])) as threads:
            blocks, T = self._setup(kernel, X, alpha, threads)
            if self.loss == "squared":
                rhs = blocks.tdot(Y) / X.shape[0]
                sol = _falkon_solve(
                    blocks, T, rhs, alpha, threads=threads, tol=tol, max_iter=max_iter
                )
                coef, self.n_iter_, self.converged_ = sol.coef, sol.cg.n_iter, sol.cg.converged
            else:
                fit = _logistic_newton(
                    blocks,
                    T,
                    Y,
                    alpha,
                    self.centre_indices_,
                    threads=threads,
                    tol=tol,
                    max_iter=max_iter,
                )
                coef, self.n_iter_, self.converged_ = fit.coef, fit.n_iter, fit.converged
                self.n_newton_steps_ = fit.n_newton_steps
                self.penalties_ = fit.penalties
                if not fit.converged:
                    warnings.warn(
                        "FalkonClassifier(loss='logistic'): Newton's method did not reach half "
                        f"a squared Newton decrement of {tol:.3g} within "
                        f"{_FINAL_NEWTON_STEPS} steps at the final penalty alpha; raise "
                        "max_iter or alpha, or use more centres",
                        ConvergenceWarning,
                        stacklevel=2,
                    )
        self.classes_ = classes
        self.dual_coef_ = coef[:, 0] if classes.size == 2 else coef
        return self

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X: Any) -> np.ndarray:
        """Decision values ``f_c(x)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test inputs.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            One value per sample for two classes (positive means ``classes_[1]``), one
            per class otherwise.
        """
        return self._decision(X)

    def predict(self, X: Any) -> np.ndarray:
        """The class with the largest decision value.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted class labels.
        """
        f = self.decision_function(X)
        if f.ndim == 1:
            return self.classes_[(f > 0).astype(int)]
        return self.classes_[np.argmax(f, axis=1)]

    def _has_proba(self) -> bool:
        return self.loss == "logistic"

    @available_if(_has_proba)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities: ``sigmoid(f)`` (``loss="logistic"`` only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test inputs.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``[1 - sigmoid(f), sigmoid(f)]`` for two classes; the one-vs-rest sigmoids
            normalised to sum to 1 otherwise (as scikit-learn's one-vs-rest logistic
            regression).
        """
        check_is_fitted(self, "dual_coef_")
        if not hasattr(self, "n_newton_steps_"):
            raise AttributeError(
                "predict_proba needs a fit with loss='logistic'; this model was fitted with "
                "the squared loss: fit it again"
            )
        p = scipy.special.expit(self.decision_function(X))
        if p.ndim == 1:
            return np.column_stack([1.0 - p, p])
        p /= p.sum(axis=1, keepdims=True)
        return p

    @available_if(_has_proba)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Logarithms of :meth:`predict_proba` (``loss="logistic"`` only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test inputs.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The log-probabilities.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


for _cls in (FalkonRegressor, FalkonClassifier):
    _cls.__doc__ = (_cls.__doc__ or "").format(
        parameters=_PARAMETERS_DOC, attributes=_ATTRIBUTES_DOC
    )
del _cls
