"""Kernel ridge regression, in the dual (any kernel) or the primal (explicit features).

The dual system ``(K + alpha I) a = y`` is solved either by one Cholesky factorisation
(``O(n^2)`` memory, ``O(n^3)`` time) or matrix-free by preconditioned conjugate gradients
on a :class:`~kernelkit.linalg.KernelOperator` (``O(n * block)`` memory, ``O(n^2 d)`` time
per iteration), for ``n`` beyond what a factorisation can hold.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted

from kernelkit._memory import memory_limit
from kernelkit._threads import one_blas_thread
from kernelkit._validation import (
    check_fraction,
    check_in,
    check_int,
    check_positive_scalar,
    validate_X,
)
from kernelkit.kernels import Kernel
from kernelkit.linalg.cholesky import cholesky_jitter
from kernelkit.linalg.krylov import mbcg
from kernelkit.linalg.operator import KernelOperator
from kernelkit.linalg.preconditioners import PivotedCholesky, Preconditioner, pivoted_cholesky
from kernelkit.models._common import (
    apply_feature_map,
    check_gram_memory,
    check_objects,
    is_precomputed,
    kernel_dot_by_blocks,
    n_objects,
    resolve_estimator_kernel,
    ridge_on_features,
    validate_targets,
    validate_test_input,
    validate_training_data,
)

__all__ = ["KernelRidge"]

#: The ``solver`` options.
SOLVERS = ("auto", "cholesky", "cg")
#: Most samples that ``solver="auto"`` factorises (when two n x n matrices fit in memory).
AUTO_CHOLESKY_MAX_SAMPLES = 10_000
#: Rank of the default (``preconditioner="auto"``) pivoted Cholesky preconditioner.
PRECONDITIONER_RANK = 100


class KernelRidge(RegressorMixin, BaseEstimator):
    """Kernel ridge regression: ``alpha = (K + alpha I)^-1 y``, ``f(x) = k(x, X) alpha``.

    The dual solution of ``min_w sum_i (y_i - w . phi(x_i))^2 + alpha |w|^2`` (lecture
    notes §"Kernel ridge regression"; Rowland (2018) eq. 5.4), solved by one Cholesky
    factorisation of ``K + alpha I``. The regularisation convention is scikit-learn's,
    so ``alpha`` means the same as in :class:`sklearn.kernel_ridge.KernelRidge`; there
    is no intercept.

    With ``feature_map`` the same problem is solved for the weights of the explicit
    features, ``w = (Phi^T Phi + alpha I)^-1 Phi^T y`` (Rowland (2018) eq. 5.5), in
    ``O(n m^2)`` time for ``m`` features instead of ``O(n^3)`` — the point of random
    features (with more features than samples, through the ``n x n`` dual system).

    **Solvers** (dual mode). ``"cholesky"`` factorises ``K + alpha I``. ``"cg"`` never forms
    ``K``: it solves ``(K + alpha I) a = y`` by preconditioned conjugate gradients
    (:func:`~kernelkit.linalg.mbcg`, all columns of a multi-output ``y`` in one batched
    solve) on a :class:`~kernelkit.linalg.KernelOperator`, whose products evaluate ``K``
    by square blocks: ``O(n * block)`` memory and ``O(n^2 d)`` time per iteration. With
    ``kernel="precomputed"`` the given matrix is the operator (``K @ V``), never
    factorised. ``"auto"`` factorises up to 10000 samples when two ``n x n`` float64
    matrices fit in this machine's memory, and runs CG otherwise (always Cholesky for
    kernels on lists of objects, which CG does not take). Predictions are computed by
    blocks of test rows, ``O(block * n)`` memory, whatever the solver.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default=None
        The kernel; ``None`` means ``RBF()``, a name (``"rbf"``, ``"matern52"``, ...) is
        resolved by :func:`kernelkit.kernels.resolve_kernel`. With ``"precomputed"``,
        ``X`` in ``fit`` is the training Gram matrix and in ``predict`` the matrix
        ``K(X_test, X_train)``.
        Kernels on objects (``requires_vector_input = False``, e.g.
        :class:`~kernelkit.kernels.Intersection`) take lists of objects as ``X``.
    alpha : float, default=1.0
        Ridge regularisation ``> 0`` (scikit-learn's ``alpha``; the GP noise variance).
    feature_map : callable or transformer, optional
        Switches to the primal solution. Either an object with ``fit_transform`` (a copy
        is fitted in ``fit``, then its ``transform`` is used), an object with
        ``transform`` (used as is), or a callable ``X -> Phi``. ``kernel`` must be left
        at ``None`` then.
    solver : {"auto", "cholesky", "cg"}, default="auto"
        How the dual system is solved (see above). ``"cg"`` needs a kernel on vectors or
        ``"precomputed"``; the primal mode (``feature_map``) always factorises.
    tol : float, default=1e-6
        Relative residual ``|y - (K + alpha I) a| / |y|`` at which CG stops, in ``(0, 1)``.
        Since ``K (K + alpha I)^-1`` has norm below 1, the training predictions ``K a``
        then differ from the exact ones by at most ``tol * |y|``: with the default, the
        predictions match the Cholesky solution to about ``1e-6`` relative on
        well-conditioned problems (the dual coefficients to ``tol`` times the condition
        number of ``K + alpha I``). Unused by ``"cholesky"``.
    max_iter : int, default=1000
        Most CG iterations (each one pass over ``K``), ``>= 1``. CG that stops short of
        ``tol`` warns (``ConvergenceWarning``) and leaves ``converged_ = False``.
    preconditioner : "auto", None or Preconditioner, default="auto"
        Preconditioner of CG. ``"auto"``: a rank-100 pivoted Cholesky factor of ``K``
        plus ``alpha I`` (:class:`~kernelkit.linalg.preconditioners.PivotedCholesky`;
        for ``"precomputed"``, the same greedy factorisation of the given matrix);
        ``None``: none; an unfitted
        :class:`~kernelkit.linalg.preconditioners.Preconditioner` (``PivotedCholesky(rank=
        300)``, ``Nystrom(...)``, ...): a copy is fitted with ``noise=alpha`` (kernels on
        vectors only). Unused by ``"cholesky"``.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        ``(K + alpha I)^-1 y`` (dual mode).
    coef_ : ndarray of shape (n_features_out,) or (n_features_out, n_targets)
        Primal weights ``w`` (primal mode).
    X_fit_ : array or list
        Training inputs (dual mode; the Gram matrix for ``"precomputed"``).
    kernel_ : Kernel or "precomputed"
        The kernel used (dual mode).
    solver_ : {"cholesky", "cg"}
        The solver used (``"cholesky"`` in primal mode).
    n_iter_ : int
        CG iterations run (1 for a Cholesky solve: one direct step).
    converged_ : bool
        Whether CG reached ``tol`` on every column (``True`` for a Cholesky solve).
    preconditioner_ : Preconditioner or None
        The fitted preconditioner of CG (``solver_ == "cg"`` only).
    feature_map_ : object
        The fitted feature map (primal mode).
    n_features_in_ : int
        Number of input features, for array input (the number of training samples for
        ``"precomputed"``).
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    GaussianProcessRegressor : The same mean with ``alpha`` = noise variance, plus
        variances and fitted hyperparameters.
    FalkonRegressor : Nyström kernel ridge for large ``n`` (``O(n sqrt(n))`` time).

    Notes
    -----
    Conjugate gradients with a pivoted Cholesky preconditioner, and their batched form
    for several right-hand sides: Gardner, Pleiss, Bindel, Weinberger & Wilson (2018),
    *GPyTorch: Blackbox matrix-matrix Gaussian process inference with GPU acceleration*,
    NeurIPS, Algorithm 2 and §4.2; Harbrecht, Peters & Schneider (2012) for the pivoted
    Cholesky factor.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.models import KernelRidge
    >>> X = np.linspace(0, 1, 20)[:, None]
    >>> y = np.sin(6 * X[:, 0])
    >>> model = KernelRidge(RBF(lengthscale=0.2), alpha=1e-3).fit(X, y)
    >>> bool(abs(model.predict([[0.5]])[0] - np.sin(3.0)) < 0.01)
    True
    >>> cg = KernelRidge(RBF(lengthscale=0.2), alpha=1e-3, solver="cg").fit(X, y)
    >>> cg.converged_, bool(np.allclose(cg.predict(X), model.predict(X), rtol=1e-5))
    (True, True)
    """

    def __init__(
        self,
        kernel: Any = None,
        *,
        alpha: float = 1.0,
        feature_map: Any = None,
        solver: str = "auto",
        tol: float = 1e-6,
        max_iter: int = 1000,
        preconditioner: Any = "auto",
    ):
        self.kernel = kernel
        self.alpha = alpha
        self.feature_map = feature_map
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.preconditioner = preconditioner

    # ------------------------------------------------------------------ fitting
    def _check_alpha(self) -> float:
        return check_positive_scalar(self.alpha, "alpha")

    def _check_solver_params(self) -> None:
        check_in(self.solver, "solver", SOLVERS)
        check_fraction(self.tol, "tol")
        check_int(self.max_iter, "max_iter", minimum=1)
        pre = self.preconditioner
        if pre is None or (isinstance(pre, str) and pre == "auto"):
            return
        if isinstance(pre, str) or not (hasattr(pre, "fit") and hasattr(pre, "solve")):
            raise TypeError(
                "preconditioner must be 'auto', None or an unfitted Preconditioner of "
                "kernelkit.linalg.preconditioners (PivotedCholesky, Nystrom, ...), got "
                f"{pre!r}"
            )

    def _resolve_solver(self, kernel: Kernel | str, n: int) -> str:
        """``"cholesky"`` or ``"cg"`` for ``n`` samples (``solver="auto"``: class docstring)."""
        vectors = is_precomputed(kernel) or getattr(kernel, "requires_vector_input", False)
        if self.solver == "cg":
            if not vectors:
                raise TypeError(
                    f"solver='cg' needs a kernel on vectors or kernel='precomputed'; {kernel!r} "
                    "takes lists of objects: use solver='cholesky' (or 'auto')"
                )
            return "cg"
        if self.solver == "cholesky" or not vectors:
            return "cholesky"
        fits = 2 * 8 * n * n <= memory_limit()
        return "cholesky" if n <= AUTO_CHOLESKY_MAX_SAMPLES and fits else "cg"

    def fit(self, X: Any, y: Any) -> KernelRidge:
        """Solve for the dual (or, with ``feature_map``, primal) coefficients.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), list of objects, or Gram matrix
            Training inputs of the kind ``kernel`` takes (see the class docstring).
        y : array of shape (n_samples,) or (n_samples, n_targets)
            Targets; predictions have the same number of dimensions.

        Returns
        -------
        self : KernelRidge
            The fitted estimator.
        """
        alpha = self._check_alpha()
        self._check_solver_params()
        for attr in ("preconditioner_",):
            self.__dict__.pop(attr, None)
        if self.feature_map is not None:
            return self._fit_primal(X, y, alpha)
        for attr in ("coef_", "feature_map_"):
            self.__dict__.pop(attr, None)
        kernel = resolve_estimator_kernel(self.kernel)
        # the n x n memory check waits for the choice of solver (CG holds no n x n matrix)
        X, y = validate_training_data(self, X, y, kernel, multi_output=True, gram_copies=0)
        n = n_objects(X)
        solver = self._resolve_solver(kernel, n)
        if solver == "cg":
            # thin products (blocks of K times a few columns, rank-100 factors): one BLAS
            # thread is as fast alone and much faster when other processes hold the cores
            with one_blas_thread():
                self._fit_cg(kernel, X, y, alpha)
        else:
            if isinstance(kernel, Kernel):
                check_gram_memory(self, n, n, copies=2, what=f"fit on {n} samples")
            K = kernel(X) if isinstance(kernel, Kernel) else np.array(X, dtype=np.float64)
            K[np.diag_indices_from(K)] += alpha
            L = cholesky_jitter(K, name="K + alpha*I")
            self.dual_coef_ = scipy.linalg.cho_solve((L, True), y, check_finite=False)
            self.n_iter_ = 1
            self.converged_ = True
        self.solver_ = solver
        self.kernel_ = kernel
        self.X_fit_ = X
        return self

    def _fit_cg(self, kernel: Kernel | str, X: np.ndarray, y: np.ndarray, alpha: float) -> None:
        """``dual_coef_`` by preconditioned CG on ``K + alpha I`` (all columns at once)."""
        pre: Any = self.preconditioner
        auto = isinstance(pre, str)
        if isinstance(kernel, Kernel):
            op = KernelOperator(kernel, X, noise=alpha)
            matmat = op.matmat
            if auto:
                pre = PivotedCholesky(rank=PRECONDITIONER_RANK)
            if pre is not None:
                pre = clone(pre).fit(kernel, X, alpha)
        else:  # precomputed: the given matrix is the operator
            K = X

            def matmat(V: np.ndarray) -> np.ndarray:
                out = K @ V
                out += alpha * V
                return out

            if pre is not None and not auto:
                raise ValueError(
                    "with kernel='precomputed', preconditioner must be 'auto' or None: a "
                    f"Preconditioner is fitted on a kernel and inputs, got {pre!r}"
                )
            if auto:
                diag = np.diagonal(K).astype(np.float64)
                if np.any(diag < 0):
                    raise ValueError(
                        "the precomputed Gram matrix X has negative diagonal entries (down "
                        f"to {float(diag.min()):.3g}); a Gram matrix's diagonal is >= 0"
                    )
                L = pivoted_cholesky(
                    diag, lambda p: np.array(K[p], dtype=np.float64), PRECONDITIONER_RANK
                )[0]
                pre = Preconditioner.from_factor(L, alpha)
        res = mbcg(
            matmat,
            y,
            preconditioner=pre,
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            name="K + alpha*I",
        )
        self.dual_coef_ = res.solution
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.preconditioner_ = pre

    def _fit_primal(self, X: Any, y: Any, alpha: float) -> KernelRidge:
        fm = self.feature_map
        if self.kernel is not None:
            raise ValueError(
                "give either kernel (dual mode) or feature_map (primal mode), not both"
            )
        if not (callable(fm) or hasattr(fm, "transform") or hasattr(fm, "fit_transform")):
            raise TypeError(
                "feature_map must be callable or have a transform / fit_transform method, "
                f"got {type(fm).__name__}"
            )
        if self.solver == "cg":
            raise ValueError(
                "solver='cg' solves the dual system K + alpha*I; with feature_map the primal "
                "system is factorised: leave solver at 'auto' or 'cholesky'"
            )
        for attr in ("dual_coef_", "X_fit_", "kernel_"):
            self.__dict__.pop(attr, None)
        X = self._primal_input(X, reset=True)
        if hasattr(fm, "fit_transform"):
            fm = clone(fm, safe=False)
        Phi = apply_feature_map(fm, X, fit=True)
        y = validate_targets(self, y, n_objects(X), multi_output=True)
        self.coef_ = ridge_on_features(Phi, y, alpha, "Phi^T Phi + alpha*I").coef
        self.feature_map_ = fm
        self.solver_ = "cholesky"
        self.n_iter_ = 1
        self.converged_ = True
        return self

    def _primal_input(self, X: Any, *, reset: bool) -> Any:
        """Arrays are validated (feature counts, names); anything else is handed to the
        feature map as it is."""
        if isinstance(X, np.ndarray) or hasattr(X, "iloc"):  # an array or a DataFrame
            return validate_X(self, X, reset=reset, dtype=np.float64)
        if reset:
            self.__dict__.pop("n_features_in_", None)
            self.__dict__.pop("feature_names_in_", None)
        return check_objects(X)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = is_precomputed(self.kernel)
        tags.target_tags.multi_output = True
        return tags

    # ------------------------------------------------------------------ prediction
    def predict(self, X: Any) -> np.ndarray:
        """Predictions ``K(X, X_fit) dual_coef_`` (or ``Phi(X) coef_`` in primal mode).

        Parameters
        ----------
        X : array of shape (n_samples, n_features), list of objects, or Gram matrix
            Test inputs of the kind seen in ``fit`` (for ``"precomputed"``, the matrix
            ``K(X_test, X_train)``).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
            The predictions, with the number of dimensions of ``y`` in ``fit``.
        """
        if hasattr(self, "coef_"):
            X = self._primal_input(X, reset=False)
            Phi = apply_feature_map(self.feature_map_, X, fit=False)
            if Phi.shape[1] != self.coef_.shape[0]:
                raise ValueError(
                    f"feature_map(X) has {Phi.shape[1]} features, but {self.coef_.shape[0]} "
                    "were seen in fit"
                )
            return Phi @ self.coef_
        check_is_fitted(self, "dual_coef_")
        kernel = self.kernel_
        # by blocks of test rows: no n_test x n_train matrix is held (cross_copies=0)
        X = validate_test_input(self, X, kernel, n_objects(self.X_fit_), cross_copies=0)
        if not isinstance(kernel, Kernel):  # precomputed: X is K(X_test, X_train)
            return X @ self.dual_coef_
        return kernel_dot_by_blocks(kernel, X, self.X_fit_, self.dual_coef_)
