"""Hyperparameter search by Bayesian optimisation: scikit-optimize's ``BayesSearchCV``.

:class:`BayesSearchCV` is a scikit-learn search (a ``BaseSearchCV`` whose ``_run_search``
asks an :class:`~kernelkit.optimize.Optimizer` for the candidates), so ``cv_results_``,
``best_params_``, ``best_estimator_``, refitting and the delegated ``predict`` /
``score`` are scikit-learn's own. The names, arguments and defaults follow
scikit-optimize's ``skopt.BayesSearchCV`` (archived in 2024) so that code written for it
runs with the import changed; the differences are listed in the class's Notes.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import numbers
import re
import threading
import warnings
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
import sklearn.model_selection._search as sklearn_search
from scipy.stats import rankdata
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection._search import BaseSearchCV
from sklearn.utils._param_validation import Interval

from kernelkit._validation import check_int, check_random_state
from kernelkit.optimize.callbacks import check_callback, run_callbacks
from kernelkit.optimize.minimize import Optimizer
from kernelkit.optimize.space import PRIORS, Dimension, Space

__all__ = ["BayesSearchCV"]

#: Points of the initial design of each subspace, at most (fewer when its ``n_iter`` is
#: smaller): scikit-optimize's ``Optimizer`` default.
DEFAULT_N_INITIAL_POINTS = 10
#: ``optimizer_kwargs`` keys the search sets itself.
_SET_BY_SEARCH = {
    "dimensions": "the dimensions come from search_spaces",
    "random_state": "give BayesSearchCV's random_state (each subspace's optimizer is seeded "
    "from it)",
}
#: A third item of a ``(low, high, ...)`` tuple that was meant as a prior, misspelt.
_PRIOR_LIKE = re.compile(r"^(log|uniform|log.?uniform|loguniform)$", re.IGNORECASE)


# ------------------------------------------------------------------ search spaces
def _check_subspace(subspace: Any, where: str) -> Space:
    """``subspace`` (a dict ``{param_name: dimension}``) as a :class:`Space` whose
    dimensions are named by the parameters, in sorted order (as scikit-optimize orders
    them); a clear error naming ``where`` otherwise."""
    if not isinstance(subspace, dict):
        raise TypeError(
            f"{where} must be a dict {{parameter name: dimension}}, got "
            f"{type(subspace).__name__} {subspace!r}"
        )
    if not subspace:
        raise ValueError(f"{where} is empty; give at least one parameter to search")
    for name in subspace:
        if not isinstance(name, str) or not name:
            raise TypeError(f"{where} has the key {name!r}; parameter names must be non-empty str")
    for name, spec in subspace.items():
        if isinstance(spec, Dimension) or isinstance(spec, (str, bytes)):
            continue
        items = list(spec) if isinstance(spec, (tuple, list)) else []
        if (
            len(items) >= 3
            and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in items[:2])
            and isinstance(items[2], str)
            and items[2] not in PRIORS
            and _PRIOR_LIKE.match(items[2])
        ):
            raise ValueError(
                f"{where}[{name!r}] = {spec!r}: unknown prior {items[2]!r}; expected one of "
                f"{', '.join(repr(p) for p in PRIORS)} (to search these values as categories, "
                "pass Categorical([...]))"
            )
    try:
        return Space({name: subspace[name] for name in sorted(subspace)})
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where}: {exc}") from None


def _subspaces(search_spaces: Any, n_iter: int) -> list[tuple[Space, int]]:
    """``(space, n_iter)`` of each subspace of ``search_spaces``: a dict, or a list of
    dicts and ``(dict, n_iter)`` tuples; a clear error naming ``search_spaces``
    otherwise."""
    if isinstance(search_spaces, dict):
        return [(_check_subspace(search_spaces, "search_spaces"), n_iter)]
    if not isinstance(search_spaces, list):
        raise TypeError(
            "search_spaces must be a dict {parameter name: dimension} or a list of such dicts "
            f"and (dict, n_iter) tuples, got {type(search_spaces).__name__}"
        )
    if not search_spaces:
        raise ValueError("search_spaces is an empty list; give at least one search space")
    found = []
    for i, item in enumerate(search_spaces):
        where = f"search_spaces[{i}]"
        if isinstance(item, tuple):
            if len(item) != 2:
                raise ValueError(
                    f"{where} must be a dict or a (dict, n_iter) tuple, got a tuple of "
                    f"{len(item)} items"
                )
            space = _check_subspace(item[0], f"{where}[0]")
            found.append((space, check_int(item[1], f"{where}[1] (its n_iter)", minimum=1)))
        elif isinstance(item, dict):
            found.append((_check_subspace(item, where), n_iter))
        else:
            raise TypeError(
                f"{where} must be a dict or a (dict, n_iter) tuple, got {type(item).__name__}"
            )
    return found


def _check_parameter_names(estimator: Any, subspaces: list[tuple[Space, int]]) -> None:
    """A ValueError naming the first searched parameter that ``estimator`` does not have.

    ``a__b`` is also accepted when ``a`` is searched in the same subspace (its
    categories are estimators, whose parameters cannot be known in advance)."""
    valid = set(estimator.get_params(deep=True))
    for i, (space, _) in enumerate(subspaces):
        names = set(space.dimension_names)
        for name in space.dimension_names:
            parts = name.split("__")
            searched_parent = any("__".join(parts[:k]) in names for k in range(1, len(parts)))
            if name not in valid and not searched_parent:
                where = "search_spaces" if len(subspaces) == 1 else f"search_spaces[{i}]"
                close = sorted(p for p in valid if p.split("__")[-1] == parts[-1])
                hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
                raise ValueError(
                    f"{where} searches the parameter {name!r}, which "
                    f"{type(estimator).__name__} does not have{hint} (see "
                    "estimator.get_params().keys())"
                )


def _check_optimizer_kwargs(optimizer_kwargs: Any) -> dict[str, Any]:
    """``optimizer_kwargs`` as a new dict of :class:`Optimizer` arguments, or a clear error."""
    if optimizer_kwargs is None:
        return {}
    if not isinstance(optimizer_kwargs, dict):
        raise TypeError(
            f"optimizer_kwargs must be a dict or None, got {type(optimizer_kwargs).__name__}"
        )
    accepted = set(inspect.signature(Optimizer).parameters)
    for key in optimizer_kwargs:
        if key in _SET_BY_SEARCH:
            raise ValueError(f"optimizer_kwargs must not hold {key!r}: {_SET_BY_SEARCH[key]}")
        if key not in accepted - set(_SET_BY_SEARCH):
            raise ValueError(
                f"optimizer_kwargs has the key {key!r}, which Optimizer does not take; "
                f"expected some of {', '.join(sorted(accepted - set(_SET_BY_SEARCH)))}"
            )
    return dict(optimizer_kwargs)


def _score_names(scoring: Any) -> list[str] | None:
    """The metric names of a multimetric ``scoring`` (list, tuple or dict); ``None`` for a
    single metric or a callable (whose names are known only after the first fits)."""
    if isinstance(scoring, dict):
        return list(scoring)
    if isinstance(scoring, (list, tuple)):
        return list(scoring)
    return None


# ------------------------------------------------------------------ failed batches
class _Failures(threading.local):
    """The fits of the search running in this thread: how many, how many failed."""

    def __init__(self) -> None:
        self.active = False
        self.fits = 0
        self.failed = 0
        self.first_error: str | None = None


_FAILURES = _Failures()


def _tolerant(check: Any) -> Any:
    """scikit-learn's check of the fits of one ``evaluate_candidates`` call, changed to
    warn (not raise) when every fit of the batch failed, while a :class:`BayesSearchCV`
    runs in this thread: one candidate failing on every fold is then a failed
    evaluation, not the end of the search (scikit-learn raises because a grid search
    whose every fit fails is misconfigured; here the whole search is judged at its
    end). The fits are counted for that judgement."""
    if getattr(check, "_kernelkit_tolerant", False):
        return check

    @functools.wraps(check)
    def tolerant(results: Any, error_score: Any) -> Any:
        if not _FAILURES.active:
            return check(results, error_score)
        errors = [r["fit_error"] for r in results if r["fit_error"] is not None]
        _FAILURES.fits += len(results)
        _FAILURES.failed += len(errors)
        if errors and _FAILURES.first_error is None:
            _FAILURES.first_error = errors[0]
        if results and len(errors) == len(results):
            warnings.warn(
                f"all {len(results)} fits of this batch of candidates failed; their score "
                f"is error_score={error_score}. The first error:\n{errors[0]}",
                FitFailedWarning,
                stacklevel=2,
            )
            return None
        return check(results, error_score)

    tolerant._kernelkit_tolerant = True  # type: ignore[attr-defined]
    return tolerant


@contextlib.contextmanager
def _tolerating_failed_batches() -> Iterator[_Failures]:
    """A context in which a batch whose every fit fails is a warning, and the counts of
    :data:`_FAILURES` start from zero (scikit-learn's check is replaced once, and acts
    as before outside such a context and in other threads)."""
    name = "_warn_or_raise_about_fit_failures"
    if hasattr(sklearn_search, name):
        setattr(sklearn_search, name, _tolerant(getattr(sklearn_search, name)))
    outer = dict(vars(_FAILURES))  # a search run inside one of this search's fits
    vars(_FAILURES).update(active=True, fits=0, failed=0, first_error=None)
    try:
        yield _FAILURES
    finally:
        vars(_FAILURES).update(outer)


# ------------------------------------------------------------------ Dask
def _check_client(client: Any) -> Any:
    """``client`` when it is ``None`` or a ``dask.distributed.Client``; a TypeError
    naming ``client`` otherwise."""
    if client is None:
        return None
    from kernelkit.distributed import import_distributed

    distributed = import_distributed("BayesSearchCV(client=...)")
    if not isinstance(client, distributed.Client):
        raise TypeError(
            f"client must be None or a dask.distributed.Client, got {type(client).__name__}"
        )
    return client


@functools.cache
def _client_backend_class() -> type:
    """joblib's Dask backend, changed to hand every task to the cluster: joblib runs the
    tasks in the calling process when the backend reports a single slot, which the plain
    backend does for a cluster of one thread."""
    from joblib._dask import DaskDistributedBackend

    class ClientBackend(DaskDistributedBackend):  # type: ignore[misc, valid-type]
        def effective_n_jobs(self, n_jobs: Any) -> int:
            return max(2, int(super().effective_n_jobs(n_jobs)))

    return ClientBackend


def _on_client(client: Any) -> Any:
    """A context in which scikit-learn's ``Parallel`` runs its tasks on ``client``."""
    import joblib

    return joblib.parallel_config(backend=_client_backend_class()(client=client))


# ------------------------------------------------------------------ the search
class BayesSearchCV(BaseSearchCV):
    """Hyperparameter search by Bayesian optimisation with cross-validation.

    scikit-optimize's ``BayesSearchCV`` on kernelkit's Bayesian optimiser: a
    scikit-learn search (like ``RandomizedSearchCV``) whose candidates are proposed by an
    :class:`~kernelkit.optimize.Optimizer` (a GP surrogate and an acquisition function)
    from the cross-validated scores of the candidates before them. Every attribute and
    method of a scikit-learn search (``cv_results_``, ``best_params_``,
    ``best_estimator_``, ``predict``, ``score``, ...) is scikit-learn's.

    Parameters
    ----------
    estimator : estimator object
        A scikit-learn estimator (a ``Pipeline`` included), cloned for every fit; it
        needs a ``score`` method unless ``scoring`` is given.
    search_spaces : dict or list
        ``{parameter name: dimension}``, the dimensions :class:`~kernelkit.optimize.Real`,
        :class:`~kernelkit.optimize.Integer`, :class:`~kernelkit.optimize.Categorical` or
        scikit-optimize's shorthands (``(low, high)`` of ints an ``Integer``, with a
        float a ``Real``; ``(low, high, "log-uniform")``; a list of other values a
        ``Categorical``). Parameter names are the estimator's (``svc__C`` for a
        ``Pipeline`` step). A list of such dicts, or of ``(dict, n_iter)`` tuples,
        searches each subspace in turn, each with an optimiser of its own, for its
        ``n_iter`` (or this search's ``n_iter``) candidates.
    optimizer_kwargs : dict, optional
        Arguments of each subspace's :class:`~kernelkit.optimize.Optimizer`, such as
        ``{"n_initial_points": 5, "acq_func": "EI"}``; not ``dimensions`` nor
        ``random_state``, which the search sets. The defaults are the ``Optimizer``'s,
        except ``n_initial_points``: ``min(10, n_iter)`` random candidates of each
        subspace before the GP chooses.
    n_iter : int, default=50
        Candidates evaluated in each subspace not given its own; each costs ``cv``
        fits.
    scoring : str, callable, list, tuple or dict, optional
        As in scikit-learn's searches; ``None`` is the estimator's ``score``. With
        several metrics, ``refit`` names the one the optimiser maximises.
    fit_params : dict, optional
        Arguments of the estimator's ``fit``, as if given to :meth:`fit` (those given
        there win).
    n_jobs : int, optional
        Fits run at once (joblib; ``None`` is one, ``-1`` all CPUs). Not used with
        ``client``.
    n_points : int, default=1
        Candidates asked of the optimiser at once and cross-validated together (a
        batch, chosen by the constant liar), so that ``n_points * cv`` fits can run in
        parallel.
    refit : bool, str or callable, default=True
        Refit the best candidate on the whole data (scikit-learn's meaning). With
        several metrics, the name of the one to optimise and refit by.
    cv : int, cross-validation generator or iterable, optional
        As in scikit-learn (``None``: 5-fold, stratified for classifiers).
    verbose : int, default=0
        Verbosity of scikit-learn's fits.
    pre_dispatch : int or str, default="2*n_jobs"
        As in scikit-learn.
    random_state : int, RandomState, Generator or None, default=None
        Seeds each subspace's optimiser: the same int gives the same candidates (with
        a deterministic estimator and ``cv``).
    error_score : "raise" or float, default="raise"
        The score of a failed fit (scikit-learn's meaning). ``np.nan`` makes a failed
        candidate a failed evaluation, which the optimiser records and avoids; the
        search fails only when every fit of it failed (with a callable ``scoring``,
        when every fit of a batch failed, as in scikit-learn).
    return_train_score : bool, default=False
        Also score the training folds (ranked as ``rank_train_*``, as scikit-optimize
        does).
    client : dask.distributed.Client, optional
        Run the cross-validation fits on this Dask cluster (joblib's Dask backend on
        this client): as many at a time as its workers have threads. Needs the
        ``dask`` extra.

    Attributes
    ----------
    cv_results_ : dict of numpy (masked) ndarrays
        scikit-learn's table of every candidate, in the order evaluated
        (``params``, ``mean_test_score``, ``rank_test_score``, ``param_<name>``, ...).
    best_estimator_ : estimator
        The best candidate refitted on the whole data (with ``refit``).
    best_score_ : float
        Its mean cross-validated score (not with a callable ``refit``).
    best_params_ : dict
        Its parameters.
    best_index_ : int
        Its row of ``cv_results_``.
    scorer_ : callable or dict
        The scorer(s) used.
    n_splits_ : int
        Number of cross-validation splits.
    refit_time_ : float
        Seconds refitting the best candidate took.
    multimetric_ : bool
        Whether several metrics were scored.
    optimizer_results_ : list of OptimizationResult
        One per subspace: its candidates (``x_iters``, in the subspace's sorted
        parameter order), their negated scores (``func_vals``; ``nan`` for failed
        fits) and the best (``x``, ``fun``).
    classes_ : ndarray
        The classes of a classifier's ``best_estimator_``.
    n_features_in_ : int
        Number of features seen by ``best_estimator_``.
    feature_names_in_ : ndarray of str
        Feature names seen in fit, when ``X`` had them.

    See Also
    --------
    kernelkit.optimize.Optimizer : The ask-and-tell optimiser used for each subspace.
    sklearn.model_selection.RandomizedSearchCV : Random candidates.
    sklearn.model_selection.GridSearchCV : Every candidate of a grid.

    Notes
    -----
    The interface is scikit-optimize's ``skopt.BayesSearchCV`` (Head et al.,
    scikit-optimize 0.10, archived in 2024). What differs:

    - the optimiser is kernelkit's :class:`~kernelkit.optimize.Optimizer` (a GP; its
      ``"gp_hedge"`` is EI); ``optimizer_kwargs`` may not set ``dimensions`` or
      ``random_state``, and ``n_initial_points`` defaults to ``min(10, n_iter)``;
    - the arguments after ``search_spaces`` are keyword-only, and ``iid`` (removed
      from scikit-learn) is not accepted; ``n_jobs`` defaults to ``None``;
    - the search spaces and the parameter names are checked by :meth:`fit`, before any
      fit runs (scikit-optimize checks the spaces when the search is built, and a
      misspelt parameter only when the first fit fails); a ``(low, high, prior)``
      tuple with a misspelt prior is an error, not three categories;
    - a callable ``refit`` is accepted with a single metric, and ``fit_params`` is
      passed to the fits (scikit-optimize stores it and ignores it);
    - a failed fit with ``error_score=np.nan`` is recorded in the optimiser's result
      (``nan``, with its reason in ``errors``), and a candidate failing on every fold
      is a warning, not the end of the search (scikit-optimize stops with
      scikit-learn's "All the fits failed" as soon as one candidate of ``n_points=1``
      fails);
    - ``client`` is new. A fitted search pickles without its client (a connection
      cannot be stored): it comes back as ``None``. ``clone`` keeps the same client.

    The splits are made again for every batch: give ``cv`` a fixed ``random_state``
    when it shuffles, so that every candidate is scored on the same folds.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.svm import SVC
    >>> from kernelkit.optimize import Real
    >>> from kernelkit.optimize import BayesSearchCV
    >>> X, y = load_iris(return_X_y=True)
    >>> search = BayesSearchCV(
    ...     SVC(),
    ...     {"C": Real(1e-2, 1e3, prior="log-uniform"), "gamma": (1e-4, 1e1, "log-uniform")},
    ...     n_iter=8,
    ...     cv=3,
    ...     random_state=0,
    ... )
    >>> search = search.fit(X, y)
    >>> len(search.cv_results_["params"]), sorted(search.best_params_)
    (8, ['C', 'gamma'])
    >>> bool(search.best_score_ > 0.9), search.score(X, y) > 0.9
    (True, True)
    >>> len(search.optimizer_results_[0].x_iters), search.total_iterations
    (8, 8)
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseSearchCV._parameter_constraints,
        "search_spaces": [dict, list],
        "optimizer_kwargs": [dict, None],
        "n_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "fit_params": [dict, None],
        "n_points": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": "no_validation",  # kernelkit's check_random_state, in fit
        "client": "no_validation",  # a dask.distributed.Client, checked in fit
    }

    def __init__(
        self,
        estimator: Any,
        search_spaces: Any,
        *,
        optimizer_kwargs: dict[str, Any] | None = None,
        n_iter: int = 50,
        scoring: Any = None,
        fit_params: dict[str, Any] | None = None,
        n_jobs: int | None = None,
        n_points: int = 1,
        refit: Any = True,
        cv: Any = None,
        verbose: int = 0,
        pre_dispatch: Any = "2*n_jobs",
        random_state: Any = None,
        error_score: Any = "raise",
        return_train_score: bool = False,
        client: Any = None,
    ) -> None:
        super().__init__(
            estimator=estimator,
            scoring=scoring,
            n_jobs=n_jobs,
            refit=refit,
            cv=cv,
            verbose=verbose,
            pre_dispatch=pre_dispatch,
            error_score=error_score,
            return_train_score=return_train_score,
        )
        self.search_spaces = search_spaces
        self.optimizer_kwargs = optimizer_kwargs
        self.n_iter = n_iter
        self.fit_params = fit_params
        self.n_points = n_points
        self.random_state = random_state
        self.client = client

    @property
    def total_iterations(self) -> int:
        """Candidates the search evaluates over all its subspaces (fewer when a
        callback stops one early).

        Returns
        -------
        int
            The sum of each subspace's ``n_iter``.
        """
        return sum(n for _, n in _subspaces(self.search_spaces, self.n_iter))

    # -- fit
    def fit(
        self, X: Any, y: Any = None, *, groups: Any = None, callback: Any = None, **fit_params: Any
    ) -> BayesSearchCV:
        """Search: evaluate the optimiser's candidates by cross-validation, then refit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (whatever the estimator takes).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), optional
            Targets; ``None`` for unsupervised estimators.
        groups : array-like of shape (n_samples,), optional
            Group labels for a group splitter ``cv``.
        callback : callable or list of callables, optional
            ``callback(result)`` after each batch of a subspace, with the subspace's
            :class:`~kernelkit.optimize.OptimizationResult` so far; a callback that
            returns ``True`` ends that subspace (the search goes on with the next).
            The stoppers of :mod:`kernelkit.optimize.callbacks` work here.
        **fit_params : dict
            Arguments of the estimator's ``fit`` (and the scorer's, through
            scikit-learn's routing).

        Returns
        -------
        self : BayesSearchCV
            The fitted search.

        Raises
        ------
        ValueError
            An empty search space, a parameter the estimator does not have, a bad
            dimension or ``optimizer_kwargs``, ``n_iter`` or ``n_points`` below 1, or
            several metrics without ``refit`` naming one; all before any fit runs.
        TypeError
            ``search_spaces`` not a dict or list, or ``client`` not a Dask ``Client``.
        """
        self._validate_params()
        random_state = check_random_state(self.random_state)
        subspaces = _subspaces(self.search_spaces, self.n_iter)
        kwargs = _check_optimizer_kwargs(self.optimizer_kwargs)
        names = _score_names(self.scoring)
        if names is not None and not (isinstance(self.refit, str) and self.refit in names):
            raise ValueError(
                f"with several metrics ({', '.join(map(repr, names))}), refit must name the "
                f"one the optimiser maximises (and the best candidate is refitted by), got "
                f"refit={self.refit!r}"
            )
        _check_parameter_names(self.estimator, subspaces)
        client = _check_client(self.client)
        callbacks = check_callback(callback)
        seeds = random_state.randint(0, 2**31 - 1, size=len(subspaces))
        optimizers = []
        for (space, n_iter), seed in zip(subspaces, seeds, strict=True):
            options = {"n_initial_points": min(DEFAULT_N_INITIAL_POINTS, n_iter), **kwargs}
            optimizers.append(Optimizer(space, random_state=int(seed), **options))

        self._plan = [
            (optimizer, n_iter)
            for optimizer, (_, n_iter) in zip(optimizers, subspaces, strict=True)
        ]
        self._callbacks = callbacks
        params = {**(self.fit_params or {}), **fit_params}
        if groups is not None:
            params["groups"] = groups
        tolerate = self.error_score != "raise" and not callable(self.scoring)
        try:
            with contextlib.ExitStack() as stack:
                if tolerate:
                    self._failures: _Failures | None = stack.enter_context(
                        _tolerating_failed_batches()
                    )
                else:
                    self._failures = None
                if client is not None:
                    stack.enter_context(_on_client(client))
                super().fit(X, y, **params)
        finally:
            del self._plan, self._callbacks, self._failures
        if self.return_train_score:
            self._rank_train_scores()
        return self

    def _run_search(self, evaluate_candidates: Any) -> None:
        """Ask each subspace's optimiser for candidates, ``n_points`` at a time, and tell
        it their negated mean test scores (scikit-learn's hook for a custom search)."""
        results = []
        key = None
        for optimizer, n_iter in self._plan:
            left = n_iter
            while left > 0:
                points = optimizer.ask(n_points=min(self.n_points, left))
                table = evaluate_candidates([optimizer.space.to_dict(p) for p in points])
                key = key or self._objective_key(table)
                scores = np.asarray(table[key][-len(points) :], dtype=float)
                for point, score in zip(points, scores, strict=True):
                    optimizer.tell(point, -float(score))
                left -= len(points)
                if self._callbacks and run_callbacks(self._callbacks, optimizer.get_result()):
                    break
            results.append(optimizer.get_result())
        self.optimizer_results_ = results
        failures = self._failures
        if failures is not None and failures.fits and failures.failed == failures.fits:
            raise ValueError(
                f"all the {failures.fits} fits of the search failed, so no candidate has a "
                "score; the estimator is probably misconfigured (error_score='raise' shows "
                f"the first failure as it happens). The first error:\n{failures.first_error}"
            )

    def _objective_key(self, table: dict[str, Any]) -> str:
        """The ``cv_results_`` column the optimiser maximises: the one metric's mean test
        score, or with several (a callable ``scoring`` returning a dict), ``refit``'s."""
        names = [k[len("mean_test_") :] for k in table if k.startswith("mean_test_")]
        if len(names) == 1:
            return f"mean_test_{names[0]}"
        if isinstance(self.refit, str) and self.refit in names:
            return f"mean_test_{self.refit}"
        raise ValueError(
            f"scoring returned several metrics ({', '.join(map(repr, names))}); refit must "
            f"name the one the optimiser maximises, got refit={self.refit!r}"
        )

    def _rank_train_scores(self) -> None:
        """Add ``rank_train_<metric>`` to ``cv_results_`` (1 is best, failed last), as
        scikit-optimize does."""
        results = self.cv_results_
        for key in [k for k in results if k.startswith("mean_train_")]:
            scores = np.asarray(results[key], dtype=float)
            scores = np.where(np.isnan(scores), -np.inf, scores)
            name = key[len("mean_train_") :]
            results[f"rank_train_{name}"] = rankdata(-scores, method="min").astype(np.int32)

    # -- scikit-learn's properties, documented here (theirs link scikit-learn's glossary)
    @property
    def n_features_in_(self) -> int:
        """Number of features seen by ``best_estimator_`` (with ``refit``)."""
        return int(super().n_features_in_)

    @property
    def classes_(self) -> np.ndarray:
        """The classes of a classifier's ``best_estimator_`` (with ``refit``)."""
        return super().classes_  # type: ignore[no-any-return]

    # -- a live client is shared by clones and left out of pickles
    def __sklearn_clone__(self) -> BayesSearchCV:
        """An unfitted copy with the same parameters (cloned) and the same ``client``
        (a connection cannot be copied)."""
        params = self.get_params(deep=False)
        client = params.pop("client")
        from sklearn.base import clone

        new = type(self)(**{k: clone(v, safe=False) for k, v in params.items()}, client=client)
        for attr in ("_metadata_request", "_sklearn_output_config"):
            if attr in self.__dict__:
                setattr(new, attr, copy.deepcopy(self.__dict__[attr]))
        return new

    def __getstate__(self) -> dict[str, Any]:
        """The state to pickle, with ``client`` set to ``None``."""
        state = dict(super().__getstate__())
        state["client"] = None
        return state
