"""BayesSearchCV: scikit-optimize's search on scikit-learn's BaseSearchCV."""

from __future__ import annotations

import pickle
import warnings
from typing import ClassVar

import numpy as np
import pytest
from scipy.stats import loguniform
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import (
    KFold,
    RandomizedSearchCV,
    StratifiedKFold,
    cross_val_score,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from kernelkit.optimize import Categorical, Integer, Real
from kernelkit.optimize.bayes_search import BayesSearchCV

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
CV3 = StratifiedKFold(3)
SVC_SPACE = {
    "C": Real(1e-2, 1e3, prior="log-uniform"),
    "gamma": (1e-4, 1e1, "log-uniform"),
    "kernel": ["rbf", "poly"],
    "degree": (2, 4),
}


class Bowl(ClassifierMixin, BaseEstimator):
    """A classifier whose score is a known function of its parameters (no learning):
    best at ``a = 10``, ``b = 3``, ``c = "good"``; ``c = "fail"`` makes ``fit`` fail.
    Every fit is counted in ``Bowl.fits`` (and where it ran in ``Bowl.where``)."""

    fits = 0
    where: ClassVar[list[str]] = []

    def __init__(self, a: float = 1.0, b: int = 0, c: str = "good") -> None:
        self.a = a
        self.b = b
        self.c = c

    def fit(self, X, y, sample_weight=None):
        type(self).fits += 1
        try:
            from distributed import get_worker

            get_worker()
            type(self).where.append("worker")
        except (ImportError, ValueError):
            type(self).where.append("here")
        if self.c == "fail":
            raise RuntimeError("c='fail' cannot be fitted")
        self.classes_ = np.unique(y)
        self.sample_weight_ = sample_weight
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])

    def score(self, X, y=None, sample_weight=None):
        penalty = 0.0 if self.c == "good" else 0.5
        return -((np.log10(self.a) - 1.0) ** 2) - 0.1 * (self.b - 3) ** 2 - penalty


BOWL_SPACE = {"a": Real(1e-2, 1e4, prior="log-uniform"), "b": Integer(0, 6), "c": ["good", "bad"]}
X_SMALL, Y_SMALL = X_IRIS[::5], Y_IRIS[::5]  # 30 samples, 3 classes


def bowl_search(**kwargs) -> BayesSearchCV:
    options = {"search_spaces": BOWL_SPACE, "n_iter": 6, "cv": 3, "random_state": 0, "n_jobs": 1}
    return BayesSearchCV(Bowl(), **{**options, **kwargs})


# ------------------------------------------------------------------ the results
def test_best_agrees_with_cross_val_score_and_params_have_their_types() -> None:
    search = BayesSearchCV(SVC(), SVC_SPACE, n_iter=10, cv=CV3, random_state=0, n_jobs=1)
    search.fit(X_IRIS, Y_IRIS)
    params = search.cv_results_["params"]
    assert len(params) == 10 == search.total_iterations
    for p in params:
        assert set(p) == {"C", "gamma", "kernel", "degree"}
        assert type(p["C"]) is float and 1e-2 <= p["C"] <= 1e3
        assert type(p["gamma"]) is float and 1e-4 <= p["gamma"] <= 1e1
        assert type(p["degree"]) is int and 2 <= p["degree"] <= 4
        assert p["kernel"] in ("rbf", "poly")
    scores = cross_val_score(SVC(**search.best_params_), X_IRIS, Y_IRIS, cv=CV3)
    assert search.best_score_ == scores.mean()  # exactly: the same folds and fits
    means = search.cv_results_["mean_test_score"]
    assert search.best_score_ == means.max() == means[search.best_index_]
    assert search.best_params_ == params[search.best_index_]
    assert search.best_estimator_.get_params()["C"] == search.best_params_["C"]
    assert search.n_splits_ == 3 and search.refit_time_ >= 0
    assert search.predict(X_IRIS[:5]).shape == (5,)
    assert search.score(X_IRIS, Y_IRIS) == search.best_estimator_.score(X_IRIS, Y_IRIS)
    assert search.decision_function(X_IRIS[:2]).shape == (2, 3)
    # the optimiser saw the same candidates (sorted names) and the negated scores
    (result,) = search.optimizer_results_
    assert result.space.dimension_names == ["C", "degree", "gamma", "kernel"]
    assert [result.space.to_dict(x) for x in result.x_iters] == params
    np.testing.assert_array_equal(result.func_vals, -means)
    assert result.fun == -search.best_score_


def test_beats_random_search_on_wine() -> None:
    """Over 3 seeds, 15 candidates of the GP beat the median random candidate each time
    and, on average, the best of 15 random candidates (unscaled wine: a narrow gamma)."""
    X, y = load_wine(return_X_y=True)
    best_bo, best_random, median_random = [], [], []
    for seed in range(3):
        bo = BayesSearchCV(
            SVC(),
            {"C": (1e-3, 1e3, "log-uniform"), "gamma": (1e-6, 1e1, "log-uniform")},
            n_iter=15,
            cv=CV3,
            random_state=seed,
        ).fit(X, y)
        rs = RandomizedSearchCV(
            SVC(),
            {"C": loguniform(1e-3, 1e3), "gamma": loguniform(1e-6, 1e1)},
            n_iter=15,
            cv=CV3,
            random_state=seed,
        ).fit(X, y)
        scores = rs.cv_results_["mean_test_score"]
        best_bo.append(bo.best_score_)
        best_random.append(scores.max())
        median_random.append(np.median(scores))
    assert all(b > m for b, m in zip(best_bo, median_random, strict=True)), (
        best_bo,
        median_random,
    )
    assert np.mean(best_bo) >= np.mean(best_random), (best_bo, best_random)


def test_the_optimiser_finds_the_known_optimum() -> None:
    search = bowl_search(n_iter=20, optimizer_kwargs={"n_initial_points": 6, "acq_func": "EI"})
    search.fit(X_SMALL, Y_SMALL)
    # 20 random candidates get this close with a probability of about 7%
    assert search.best_params_["c"] == "good" and search.best_params_["b"] == 3
    assert abs(np.log10(search.best_params_["a"]) - 1.0) < 0.15
    assert search.best_score_ > -0.05


def test_same_random_state_same_candidates() -> None:
    first = bowl_search().fit(X_SMALL, Y_SMALL).cv_results_["params"]
    again = bowl_search().fit(X_SMALL, Y_SMALL).cv_results_["params"]
    other = bowl_search(random_state=1).fit(X_SMALL, Y_SMALL).cv_results_["params"]
    assert first == again
    assert first != other


# ------------------------------------------------------------------ scikit-learn citizenship
def test_pipeline_clone_and_pickle() -> None:
    pipe = Pipeline([("scale", StandardScaler()), ("svc", SVC())])
    space = {"svc__C": (1e-2, 1e2, "log-uniform"), "svc__kernel": ["rbf", "linear"]}
    search = BayesSearchCV(pipe, space, n_iter=5, cv=3, random_state=0)
    twin = clone(search)
    assert twin.get_params()["search_spaces"] == space and twin.n_iter == 5
    search.fit(X_IRIS, Y_IRIS)
    assert set(search.best_params_) == {"svc__C", "svc__kernel"}
    assert search.best_estimator_.named_steps["svc"].C == search.best_params_["svc__C"]
    loaded = pickle.loads(pickle.dumps(search))
    np.testing.assert_array_equal(loaded.predict(X_IRIS), search.predict(X_IRIS))
    assert loaded.cv_results_["params"] == search.cv_results_["params"]
    assert loaded.optimizer_results_[0].x_iters == search.optimizer_results_[0].x_iters
    assert clone(search).get_params(deep=False).keys() == search.get_params(deep=False).keys()
    with pytest.raises(
        ValueError, match="'C', which Pipeline does not have; did you mean 'svc__C'"
    ):
        BayesSearchCV(pipe, {"C": (1.0, 2.0)}, n_iter=2).fit(X_IRIS, Y_IRIS)


def test_multimetric_scoring_optimises_and_refits_by_the_named_metric() -> None:
    scoring = {"acc": "accuracy", "bal": "balanced_accuracy"}
    search = BayesSearchCV(
        SVC(), {"C": (1e-3, 1e2, "log-uniform")}, n_iter=5, cv=CV3, scoring=scoring, refit="bal"
    )
    search.fit(X_IRIS, Y_IRIS)
    bal = search.cv_results_["mean_test_bal"]
    np.testing.assert_array_equal(search.optimizer_results_[0].func_vals, -bal)
    assert search.best_score_ == bal.max() and search.multimetric_
    assert set(search.scorer_) == {"acc", "bal"}


@pytest.mark.parametrize("refit", [True, False, lambda results: 0])
def test_multimetric_scoring_needs_refit_to_name_a_metric(refit) -> None:
    Bowl.fits = 0
    search = bowl_search(scoring={"acc": "accuracy", "bal": "balanced_accuracy"}, refit=refit)
    with pytest.raises(ValueError, match="refit must name"):
        search.fit(X_SMALL, Y_SMALL)
    assert Bowl.fits == 0


def test_callable_refit_chooses_the_best_index() -> None:
    search = bowl_search(refit=lambda results: int(np.argmin(results["mean_test_score"])))
    search.fit(X_SMALL, Y_SMALL)
    worst = int(np.argmin(search.cv_results_["mean_test_score"]))
    assert search.best_index_ == worst
    assert search.best_params_ == search.cv_results_["params"][worst]
    assert not hasattr(search, "best_score_")


def test_subspaces_are_searched_in_turn_with_their_own_n_iter() -> None:
    spaces = [
        ({"a": Real(1e-2, 1e4, prior="log-uniform")}, 3),
        {"b": (0, 6), "c": Categorical(["good", "bad"])},
    ]
    search = bowl_search(search_spaces=spaces, n_iter=4)
    assert search.total_iterations == 7
    search.fit(X_SMALL, Y_SMALL)
    params = search.cv_results_["params"]
    assert len(params) == 7
    assert all(set(p) == {"a"} for p in params[:3])
    assert all(set(p) == {"b", "c"} for p in params[3:])
    first, second = search.optimizer_results_
    assert len(first.x_iters) == 3 and len(second.x_iters) == 4


def test_n_points_asks_distinct_batches() -> None:
    search = bowl_search(n_iter=7, n_points=3, optimizer_kwargs={"n_initial_points": 2})
    search.fit(X_SMALL, Y_SMALL)
    params = search.cv_results_["params"]
    assert len(params) == 7
    (result,) = search.optimizer_results_
    _, sizes = np.unique(result.rounds, return_counts=True)
    assert sizes.tolist() == [3, 3, 1]  # each batch one evaluate_candidates call
    for start in (0, 3):
        batch = [tuple(sorted(p.items())) for p in params[start : start + 3]]
        assert len(set(batch)) == 3


def test_failed_fits_are_failed_evaluations_with_error_score_nan() -> None:
    space = {"a": Real(1e-2, 1e4, prior="log-uniform"), "c": ["good", "fail"]}
    search = bowl_search(
        search_spaces=space, n_iter=8, error_score=np.nan, optimizer_kwargs={"n_initial_points": 6}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitFailedWarning)
        warnings.simplefilter("ignore", UserWarning)  # "some test scores are non-finite"
        search.fit(X_SMALL, Y_SMALL)
    params = search.cv_results_["params"]
    failed = np.array([p["c"] == "fail" for p in params])
    assert failed.any() and not failed.all()
    means = search.cv_results_["mean_test_score"]
    np.testing.assert_array_equal(np.isnan(means), failed)
    (result,) = search.optimizer_results_
    np.testing.assert_array_equal(np.isnan(result.func_vals), failed)
    assert [e is not None for e in result.errors] == failed.tolist()
    assert search.best_params_["c"] == "good"
    with pytest.raises(RuntimeError, match="cannot be fitted"):  # error_score="raise"
        bowl_search(search_spaces={"c": ["fail"]}, n_iter=1).fit(X_SMALL, Y_SMALL)


@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
def test_a_search_whose_every_fit_fails_is_an_error() -> None:
    search = bowl_search(search_spaces={"c": ["fail"]}, n_iter=2, error_score=np.nan)
    with (
        pytest.warns(FitFailedWarning, match="all 3 fits of this batch"),
        pytest.raises(ValueError, match="all the 6 fits of the search failed"),
    ):
        search.fit(X_SMALL, Y_SMALL)


def test_fit_params_from_the_constructor_and_from_fit_reach_the_estimator() -> None:
    weights = np.linspace(1.0, 2.0, len(Y_SMALL))
    search = bowl_search(n_iter=2, fit_params={"sample_weight": weights})
    search.fit(X_SMALL, Y_SMALL)
    np.testing.assert_array_equal(search.best_estimator_.sample_weight_, weights)
    search.fit(X_SMALL, Y_SMALL, sample_weight=2 * weights)  # fit's own win
    np.testing.assert_array_equal(search.best_estimator_.sample_weight_, 2 * weights)


def test_callback_ends_a_subspace_and_train_scores_are_ranked() -> None:
    calls = []

    def stop_after_two(result) -> bool:
        calls.append(len(result.x_iters))
        return len(result.x_iters) >= 2

    search = bowl_search(n_iter=6, return_train_score=True)
    search.fit(X_SMALL, Y_SMALL, callback=stop_after_two)
    assert calls == [1, 2] and len(search.cv_results_["params"]) == 2
    ranks = search.cv_results_["rank_train_score"]
    assert sorted(ranks.tolist()) in ([1, 2], [1, 1])


def test_n_jobs_2_gives_the_same_results() -> None:
    one = bowl_search(n_iter=4).fit(X_SMALL, Y_SMALL).cv_results_
    two = bowl_search(n_iter=4, n_jobs=2).fit(X_SMALL, Y_SMALL).cv_results_
    assert one["params"] == two["params"]
    np.testing.assert_array_equal(one["mean_test_score"], two["mean_test_score"])


def test_random_splitter_and_groups_are_passed_on() -> None:
    groups = np.arange(len(Y_SMALL)) % 3
    from sklearn.model_selection import GroupKFold

    search = bowl_search(n_iter=2, cv=GroupKFold(3)).fit(X_SMALL, Y_SMALL, groups=groups)
    assert search.n_splits_ == 3
    search = bowl_search(n_iter=2, cv=KFold(2, shuffle=True, random_state=0))
    assert search.fit(X_SMALL, Y_SMALL).n_splits_ == 2


# ------------------------------------------------------------------ Dask
def test_client_runs_the_fits_on_the_cluster() -> None:
    distributed = pytest.importorskip("distributed")
    expected = bowl_search(n_iter=3).fit(X_SMALL, Y_SMALL).cv_results_
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        Bowl.where = []
        search = bowl_search(n_iter=3, n_jobs=None, client=client)
        search.fit(X_SMALL, Y_SMALL)
        assert Bowl.where.count("worker") == 3 * 3  # the CV fits
        assert Bowl.where[-1] == "here"  # the refit
        assert search.cv_results_["params"] == expected["params"]
        np.testing.assert_array_equal(
            search.cv_results_["mean_test_score"], expected["mean_test_score"]
        )
        assert clone(search).client is client
        assert pickle.loads(pickle.dumps(search)).client is None


def test_client_must_be_a_dask_client() -> None:
    Bowl.fits = 0
    with pytest.raises(TypeError, match=r"client must be None or a dask\.distributed\.Client"):
        bowl_search(client="tcp://127.0.0.1:8786").fit(X_SMALL, Y_SMALL)
    assert Bowl.fits == 0


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"search_spaces": {}}, ValueError, "search_spaces is empty"),
        ({"search_spaces": []}, ValueError, "search_spaces is an empty list"),
        ({"search_spaces": [{"a": (1.0, 2.0)}, {}]}, ValueError, r"search_spaces\[1\] is empty"),
        ({"search_spaces": {"d": (0, 3)}}, ValueError, "parameter 'd', which Bowl does not"),
        ({"search_spaces": [{"b": (0, 3)}, ({"e": [1]}, 2)]}, ValueError, "'e', which Bowl"),
        ({"n_iter": 0}, ValueError, "'n_iter' parameter"),
        ({"n_points": 0}, ValueError, "'n_points' parameter"),
        ({"search_spaces": "a"}, ValueError, "'search_spaces' parameter"),
        ({"search_spaces": {"a": "log-uniform"}}, TypeError, r"search_spaces: dimensions\['a'\]"),
        ({"search_spaces": {"a": (1e-3, 1e3, "log_uniform")}}, ValueError, "unknown prior"),
        ({"search_spaces": {"a": (5.0, 1.0)}}, ValueError, r"dimensions\['a'\]"),
        ({"search_spaces": [({"a": (1.0, 2.0)}, 0)]}, ValueError, r"search_spaces\[0\]\[1\]"),
        ({"search_spaces": [({"a": (1.0, 2.0)},)]}, ValueError, "a tuple of 1 items"),
        ({"search_spaces": [3]}, TypeError, r"search_spaces\[0\] must be a dict"),
        ({"optimizer_kwargs": {"random_state": 1}}, ValueError, "must not hold 'random_state'"),
        ({"optimizer_kwargs": {"n_initial": 1}}, ValueError, "key 'n_initial'"),
        ({"optimizer_kwargs": {"acq_func": "EIPS"}}, ValueError, "acq_func"),
        ({"random_state": "seed"}, TypeError, "random_state"),
    ],
)
def test_bad_input_is_refused_before_any_fit(kwargs, error, match) -> None:
    Bowl.fits = 0
    with pytest.raises(error, match=match):
        bowl_search(**kwargs).fit(X_SMALL, Y_SMALL)
    assert Bowl.fits == 0


def test_a_parameter_of_a_searched_estimator_is_accepted() -> None:
    pipe = Pipeline([("clf", Bowl())])
    space = {"clf": Categorical([Bowl(c="good"), Bowl(c="bad")]), "clf__a": (1.0, 100.0)}
    search = BayesSearchCV(pipe, space, n_iter=3, cv=3, random_state=0)
    assert len(search.fit(X_SMALL, Y_SMALL).cv_results_["params"]) == 3


def test_cv_results_have_grid_search_keys() -> None:
    """The same columns as GridSearchCV's on the same estimator, parameters and cv (with
    train scores too)."""
    from sklearn.model_selection import GridSearchCV

    space = {"C": Real(1e-1, 1e1, "log-uniform"), "kernel": Categorical(["rbf", "linear"])}
    search = BayesSearchCV(
        SVC(), space, n_iter=4, cv=CV3, random_state=0, return_train_score=True
    ).fit(X_IRIS, Y_IRIS)
    grid = GridSearchCV(
        SVC(), {"C": [0.1, 1.0], "kernel": ["rbf", "linear"]}, cv=CV3, return_train_score=True
    ).fit(X_IRIS, Y_IRIS)
    extra = set(search.cv_results_) - set(grid.cv_results_)
    assert set(grid.cv_results_) <= set(search.cv_results_)
    assert extra <= {"rank_train_score"}  # scikit-optimize's addition
