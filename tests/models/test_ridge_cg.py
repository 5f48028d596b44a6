"""KernelRidge's matrix-free solver: preconditioned CG on a KernelOperator (or on the given
Gram matrix) gives the Cholesky solution, reports its iterations and convergence, and
"auto" chooses between the two by size."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

import kernelkit._memory as memory
import kernelkit.models._common as common
import kernelkit.models.ridge as ridge
from kernelkit.kernels import RBF, Intersection, Laplace, Linear, Matern, RationalQuadratic
from kernelkit.linalg.preconditioners import Nystrom, PivotedCholesky, pivoted_cholesky
from kernelkit.models import KernelRidge

rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, size=(400, 3))
Y = np.column_stack([np.sin(2 * X[:, 0]), X[:, 1] * X[:, 2]]) + 0.05 * rng.standard_normal((400, 2))
X_TEST = rng.uniform(-2, 2, size=(60, 3))

KERNELS = [
    RBF(lengthscale=0.7),
    Matern(lengthscale=1.0, nu=1.5),
    Laplace(lengthscale=2.0),
    RationalQuadratic(lengthscale=1.0),
    Linear(),
]


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: type(k).__name__)
@pytest.mark.parametrize("alpha", [1e-2, 1.0])
def test_cg_equals_cholesky_on_multi_output_targets(kernel, alpha) -> None:
    exact = KernelRidge(kernel, alpha=alpha, solver="cholesky").fit(X, Y)
    cg = KernelRidge(kernel, alpha=alpha, solver="cg").fit(X, Y)
    assert cg.solver_ == "cg" and exact.solver_ == "cholesky"
    assert cg.converged_ and cg.n_iter_ >= 1
    assert cg.dual_coef_.shape == (400, 2)
    # the default tol=1e-6 bounds the training predictions' error by 1e-6 |y|
    assert _relative(cg.predict(X), exact.predict(X)) < 2e-6
    assert _relative(cg.predict(X_TEST), exact.predict(X_TEST)) < 1e-5
    assert _relative(cg.dual_coef_, exact.dual_coef_) < 1e-4


def test_training_predictions_error_is_bounded_by_tol_times_y() -> None:
    exact = KernelRidge(RBF(0.5), alpha=1e-3).fit(X, Y[:, 0])
    for tol in [1e-3, 1e-5, 1e-8]:
        cg = KernelRidge(RBF(0.5), alpha=1e-3, solver="cg", tol=tol).fit(X, Y[:, 0])
        err = np.linalg.norm(cg.predict(X) - exact.predict(X))
        assert err <= 1.01 * tol * np.linalg.norm(Y[:, 0]) + 1e-12


def test_one_dimensional_targets_keep_their_shape() -> None:
    cg = KernelRidge(RBF(), alpha=0.1, solver="cg").fit(X, Y[:, 0])
    assert cg.dual_coef_.shape == (400,)
    assert cg.predict(X_TEST).shape == (60,)


def test_precomputed_gram_matrix_is_the_operator_and_is_never_factorised(monkeypatch) -> None:
    K = RBF(0.7)(X)
    exact = KernelRidge("precomputed", alpha=0.05).fit(K, Y)

    def refuse(*args, **kwargs):
        raise AssertionError("the Gram matrix was factorised")

    monkeypatch.setattr(ridge, "cholesky_jitter", refuse)
    cg = KernelRidge("precomputed", alpha=0.05, solver="cg").fit(K, Y)
    assert cg.solver_ == "cg" and cg.converged_
    assert _relative(cg.dual_coef_, exact.dual_coef_) < 1e-4
    Kt = RBF(0.7)(X_TEST, X)
    assert _relative(cg.predict(Kt), exact.predict(Kt)) < 1e-5
    plain = KernelRidge("precomputed", alpha=0.05, solver="cg", preconditioner=None).fit(K, Y)
    assert plain.n_iter_ > cg.n_iter_  # the pivoted Cholesky preconditioner helps
    assert _relative(plain.dual_coef_, exact.dual_coef_) < 1e-4


def test_the_pivoted_cholesky_of_a_given_matrix_matches_the_kernel_one() -> None:
    """The precomputed path factors the matrix with the same function as PivotedCholesky."""
    K = RBF(0.7)(X)
    L = pivoted_cholesky(np.diag(K).copy(), lambda p: K[p].copy(), 30)[0]
    ref = PivotedCholesky(rank=30).fit(RBF(0.7), X, noise=1.0).factor_
    np.testing.assert_allclose(L @ L.T, ref @ ref.T, atol=1e-10)
    K50 = RBF(0.3)(X[:50])
    full = pivoted_cholesky(np.diag(K50).copy(), lambda p: K50[p].copy(), 100)[0]
    assert full.shape[1] <= 50  # stops at round-off
    np.testing.assert_allclose(full @ full.T, K50, atol=1e-10)


@pytest.mark.parametrize(
    "preconditioner",
    [None, PivotedCholesky(rank=20), Nystrom(rank=60, random_state=0)],
    ids=["none", "pivoted", "nystrom"],
)
def test_any_preconditioner_gives_the_same_solution(preconditioner) -> None:
    exact = KernelRidge(RBF(), alpha=0.1).fit(X, Y)
    cg = KernelRidge(RBF(), alpha=0.1, solver="cg", preconditioner=preconditioner).fit(X, Y)
    assert _relative(cg.predict(X_TEST), exact.predict(X_TEST)) < 1e-5
    if preconditioner is None:
        assert cg.preconditioner_ is None
    else:
        assert not hasattr(preconditioner, "factor_")  # a copy was fitted
        assert cg.preconditioner_.noise_ == 0.1  # with the ridge penalty as its noise


def test_default_preconditioner_cuts_the_iterations() -> None:
    pre = KernelRidge(RBF(), alpha=1e-3, solver="cg").fit(X, Y)
    plain = KernelRidge(RBF(), alpha=1e-3, solver="cg", preconditioner=None).fit(X, Y)
    assert pre.n_iter_ < plain.n_iter_ / 3
    assert pre.preconditioner_.rank_ == 100


def test_non_convergence_warns_and_is_reported() -> None:
    with pytest.warns(ConvergenceWarning, match="did not reach the relative residual"):
        model = KernelRidge(RBF(), alpha=1e-4, solver="cg", max_iter=2, preconditioner=None).fit(
            X, Y
        )
    assert model.converged_ is False and model.n_iter_ == 2


def test_cholesky_reports_one_direct_step() -> None:
    model = KernelRidge(RBF(), alpha=0.1).fit(X, Y)
    assert model.solver_ == "cholesky" and model.n_iter_ == 1 and model.converged_
    primal = KernelRidge(feature_map=lambda A: A, alpha=0.1).fit(X, Y)
    assert primal.solver_ == "cholesky" and primal.n_iter_ == 1


def test_auto_chooses_by_size_and_memory(monkeypatch) -> None:
    model = KernelRidge(RBF())
    assert model._resolve_solver(RBF(), 10_000) == "cholesky"
    assert model._resolve_solver(RBF(), 10_001) == "cg"
    assert model._resolve_solver("precomputed", 10**6) == "cg"
    assert model._resolve_solver(Intersection(), 10**6) == "cholesky"  # CG takes vectors
    assert KernelRidge(RBF(), solver="cholesky")._resolve_solver(RBF(), 10**6) == "cholesky"
    monkeypatch.setattr(ridge, "memory_limit", lambda: 2 * 8 * 100 * 100 - 1)
    assert model._resolve_solver(RBF(), 100) == "cg"  # two 100 x 100 matrices do not fit
    assert KernelRidge(RBF()).fit(X[:100], Y[:100]).solver_ == "cg"


def test_predictions_are_made_by_blocks_of_rows(monkeypatch) -> None:
    model = KernelRidge(RBF(), alpha=0.1, solver="cg").fit(X, Y)
    whole = model.predict(X_TEST)
    monkeypatch.setattr(common, "PREDICT_BLOCK_BYTES", 8 * 400 * 7)  # 7 rows at a time
    rows: list[int] = []
    original = RBF.__call__

    def spy(self, A, B=None):
        rows.append(len(A))
        return original(self, A, B)

    monkeypatch.setattr(RBF, "__call__", spy)
    np.testing.assert_allclose(model.predict(X_TEST), whole, rtol=1e-12, atol=1e-14)
    assert max(rows) == 7 and sum(rows) == 60
    # no n_test x n_train matrix is held, so none is refused by the memory guard
    monkeypatch.setattr(memory, "memory_limit", lambda: 8 * 60 * 400 - 1)
    np.testing.assert_allclose(model.predict(X_TEST), whole, rtol=1e-12, atol=1e-14)


def test_grid_search_over_alpha_with_cg_equals_cholesky() -> None:
    grid = {"alpha": [0.01, 0.1, 1.0]}
    cg = GridSearchCV(KernelRidge(RBF(), solver="cg"), grid, cv=3).fit(X[:150], Y[:150, 0])
    ch = GridSearchCV(KernelRidge(RBF()), grid, cv=3).fit(X[:150], Y[:150, 0])
    assert cg.best_params_ == ch.best_params_
    np.testing.assert_allclose(
        cg.cv_results_["mean_test_score"], ch.cv_results_["mean_test_score"], rtol=1e-5
    )


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"solver": "lu"}, ValueError, "solver must be one of"),
        ({"solver": "cg", "tol": 0.0}, ValueError, r"tol must be in \(0, 1\)"),
        ({"solver": "cg", "tol": 1.0}, ValueError, r"tol must be in \(0, 1\)"),
        ({"solver": "cg", "tol": "small"}, TypeError, "tol must be a number"),
        ({"solver": "cg", "max_iter": 0}, ValueError, "max_iter must be >= 1"),
        ({"solver": "cg", "max_iter": 2.5}, TypeError, "max_iter must be an integer"),
        ({"solver": "cg", "preconditioner": "jacobi"}, TypeError, "preconditioner must be"),
        ({"solver": "cg", "preconditioner": 3}, TypeError, "preconditioner must be"),
    ],
)
def test_bad_solver_parameters_are_named(params, error, match) -> None:
    with pytest.raises(error, match=match):
        KernelRidge(RBF(), **params).fit(X[:20], Y[:20])


def test_cg_refuses_what_it_cannot_solve() -> None:
    sets = [{1, 2}, {2, 3}, {3, 4}, {1, 4}]
    with pytest.raises(TypeError, match="solver='cg' needs a kernel on vectors"):
        KernelRidge(Intersection(), solver="cg").fit(sets, [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="solver='cg' solves the dual"):
        KernelRidge(feature_map=lambda A: A, solver="cg").fit(X[:20], Y[:20])
    K = RBF()(X[:20])
    with pytest.raises(ValueError, match="preconditioner must be 'auto' or None"):
        KernelRidge("precomputed", solver="cg", preconditioner=PivotedCholesky()).fit(K, Y[:20])


def test_the_cholesky_solver_keeps_the_gram_memory_guard() -> None:
    model = KernelRidge(RBF(), solver="cholesky")
    with pytest.raises(ValueError, match=r"fit on 1000000 samples.*would need about"):
        model.fit(np.zeros((10**6, 1)), np.zeros(10**6))


@pytest.mark.slow
def test_auto_runs_cg_beyond_ten_thousand_samples() -> None:
    r = np.random.default_rng(1)
    Xb = r.uniform(-3, 3, size=(10_001, 1))
    yb = np.sin(Xb[:, 0]) + 0.1 * r.standard_normal(10_001)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        auto = KernelRidge(RBF(), alpha=1.0).fit(Xb, yb)
    assert auto.solver_ == "cg" and auto.converged_
    exact = KernelRidge(RBF(), alpha=1.0, solver="cholesky").fit(Xb, yb)
    grid = np.linspace(-3, 3, 50)[:, None]
    assert _relative(auto.predict(grid), exact.predict(grid)) < 1e-5
