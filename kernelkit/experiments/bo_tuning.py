"""Hyperparameter tuning of scikit-learn models on the packaged data: Bayesian
optimisation against random search.

Six tasks, each the minimisation of a deterministic objective: minus the mean 5-fold
cross-validated score of a scikit-learn model whose hyperparameters come from a mixed
space (log-uniform reals, integers, categories), on kernelkit's packaged real data
(:func:`make_task` describes each). Every method gets the same number of evaluations,
the same initial random points where it has that notion, and the same seeds; per run the
best value after each evaluation and the optimiser's own time (wall time minus the time
spent in the objective) are recorded (:class:`Trace`).

The figure of merit is the *normalised score* (:func:`normalised_score`): on each task,
0 is random search's median final best over the seeds and 1 the best value any method
reached on that task in any seed; it is averaged over the seeds and then over the tasks.

The experiment (``kernelkit reproduce bo-tuning``) compares :func:`random_search` with
kernelkit's :func:`~kernelkit.optimize.gp_minimize` (its defaults except
``n_initial_points``): 10 seeds of 40 evaluations, of which 10 initial points, on the six
tasks at full size. The quick version runs 2 seeds of 8 evaluations (4 initial) on
small subsamples. ``benchmarks/bo_tuning.py`` runs the same tasks with the same
functions against scikit-optimize and Optuna (TPE and GP samplers).

The constrained task's constraint is given to kernelkit as ``input_constraints`` (every
proposed point, the initial design's included, is feasible); random search redraws a
point until it is feasible. An infeasible point that a method does ask for is not
evaluated but uses one evaluation of the budget (:class:`Budget`). With the same seed,
random search and kernelkit's random initial design draw the same first points (both
sample the space with ``np.random.RandomState(seed)``), so the two start alike.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._progress import progress
from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.optimize import Categorical, Integer, Real, Space, gp_minimize
from kernelkit.plotting import COLORS, new_figure, save_figure

#: The tasks, in the order of the tables.
TASK_NAMES = (
    "svc-wine",
    "forest-insurance",
    "boosting-cpu-act",
    "kernel-ridge-cpu-act",
    "mlp-mnist",
    "forest-insurance-constrained",
)
#: ``n_estimators * max_depth`` allowed in the constrained forest task.
FOREST_BUDGET = 400
#: Folds of every cross-validation.
N_FOLDS = 5
#: Rows (images for MNIST) of each task's data, full and quick.
SIZES = {
    "svc-wine": (1599, 200),
    "forest-insurance": (1000, 200),
    "boosting-cpu-act": (2000, 200),
    "kernel-ridge-cpu-act": (1000, 200),
    "mlp-mnist": (1000, 200),
    "forest-insurance-constrained": (1000, 200),
}
#: The seed of every subsample, CV split and model: the objectives do not change with the
#: run's seed.
DATA_SEED = 0


# ------------------------------------------------------------------ tasks
@dataclass(frozen=True)
class TuningTask:
    """One tuning problem: a space and a deterministic objective to minimise on it.

    Attributes
    ----------
    name : str
        One of :data:`TASK_NAMES`.
    description : str
        Model, data and score in a few words.
    space : Space
        The hyperparameters, named dimensions of :mod:`kernelkit.optimize.space`.
    objective : callable
        ``objective(x) -> float`` for ``x`` a list with one value per dimension (any
        integer or float types): minus the mean 5-fold CV score.
    constraint : callable or None
        ``constraint(x) -> bool``, a known input constraint every evaluated point must
        satisfy, or ``None``.
    constraint_margin : callable or None
        ``constraint_margin(x) -> float``, at most 0 exactly where ``constraint`` holds
        (for optimisers that model constraint values), or ``None``.
    score : str
        The CV score (``"accuracy"``, ``"roc_auc"``, ``"r2"``).
    n_samples : int
        Rows of the data the CV runs on.
    """

    name: str
    description: str
    space: Space
    objective: Callable[[Sequence[Any]], float]
    constraint: Callable[[Sequence[Any]], bool] | None
    constraint_margin: Callable[[Sequence[Any]], float] | None
    score: str
    n_samples: int


class _CVObjective:
    """Minus the mean CV score of ``build(**params)`` on ``(X, y)`` with fixed folds."""

    def __init__(
        self,
        build: Callable[..., Any],
        names: list[str],
        X: np.ndarray,
        y: np.ndarray,
        cv: Any,
        scoring: str,
    ) -> None:
        self.build, self.names, self.X, self.y, self.scoring = build, names, X, y, scoring
        self.folds = list(cv.split(X, y))

    def __call__(self, x: Sequence[Any]) -> float:
        from sklearn.model_selection import cross_val_score

        params = {k: _plain(v) for k, v in zip(self.names, x, strict=True)}
        with warnings.catch_warnings():  # MLP not converged in max_iter, KRR ill-conditioned
            warnings.simplefilter("ignore")
            scores = cross_val_score(
                self.build(**params), self.X, self.y, cv=self.folds, scoring=self.scoring
            )
        return -float(np.mean(scores))


def _plain(v: Any) -> Any:
    """A NumPy scalar as the Python int, float or str it holds."""
    return v.item() if isinstance(v, np.generic) else v


def _subsample(n_total: int, n: int, y: np.ndarray | None = None) -> np.ndarray:
    """Indices of ``n`` rows (all rows when ``n >= n_total``), stratified by ``y`` if given."""
    if n >= n_total:
        return np.arange(n_total)
    from sklearn.model_selection import train_test_split

    idx, _ = train_test_split(np.arange(n_total), train_size=n, random_state=DATA_SEED, stratify=y)
    return np.sort(idx)


def forest_constraint(x: Sequence[Any]) -> bool:
    """The constrained forest's input constraint: ``n_estimators * max_depth <= 400``.

    Parameters
    ----------
    x : sequence
        A point of the forest space (``n_estimators`` first, ``max_depth`` second).

    Returns
    -------
    bool
        Whether the point is feasible.
    """
    return forest_margin(x) <= 0


def forest_margin(x: Sequence[Any]) -> float:
    """``n_estimators * max_depth - 400``: at most 0 where :func:`forest_constraint` holds.

    Parameters
    ----------
    x : sequence
        A point of the forest space (``n_estimators`` first, ``max_depth`` second).

    Returns
    -------
    float
        The constraint's margin (positive: infeasible).
    """
    return float(int(x[0]) * int(x[1]) - FOREST_BUDGET)


def make_task(name: str, *, quick: bool = False) -> TuningTask:
    """Build one tuning task: load and subsample its data, fix its folds and seeds.

    ``svc-wine``
        ``StandardScaler`` + ``SVC`` (RBF) on the red wines (:func:`load_uci`
        ``"wine"``), classifying quality >= 6 (855 of 1599) against below; ``C`` in
        [1e-2, 1e3] and ``gamma`` in [1e-4, 10], both log-uniform; accuracy.
    ``forest-insurance``
        ``RandomForestClassifier`` on a stratified subsample of COIL 2000 (``"insurance"``,
        1000 rows, 6 % positives): ``n_estimators`` in [10, 100], ``max_depth`` in
        [2, 20], ``min_samples_leaf`` in [1, 20] (integers) and ``criterion`` in {gini,
        entropy}; ROC AUC.
    ``boosting-cpu-act``
        ``HistGradientBoostingRegressor`` (50 iterations) on 2000 rows of cpu_act:
        ``learning_rate`` in [1e-2, 1] and ``l2_regularization`` in [1e-6, 10]
        (log-uniform), ``max_leaf_nodes`` in [4, 64] and ``min_samples_leaf`` in [2, 50]
        (integers); R^2.
    ``kernel-ridge-cpu-act``
        ``StandardScaler`` + scikit-learn's ``KernelRidge`` on 1000 rows of cpu_act, the
        target standardised on each training fold (``TransformedTargetRegressor``):
        ``kernel`` in {rbf, laplacian, polynomial} (degree 3), ``alpha`` in [1e-4, 10]
        and ``gamma`` in [1e-4, 1] (log-uniform); R^2.
    ``mlp-mnist``
        ``MLPClassifier`` (adam, 20 epochs) on 1000 MNIST test images averaged over 2 x 2
        blocks (196 grey levels in [0, 1]): two hidden layers of ``n_units_1`` and
        ``n_units_2`` in [8, 128] (log-uniform integers), ``learning_rate_init`` in
        [1e-4, 1e-1] and ``alpha`` in [1e-6, 1e-1] (log-uniform); accuracy.
    ``forest-insurance-constrained``
        ``forest-insurance`` with the known constraint ``n_estimators * max_depth <=
        400`` (:func:`forest_constraint`; 42 % of the space is feasible).

    Classification folds are ``StratifiedKFold(5, shuffle=True, random_state=0)``,
    regression ones ``KFold`` alike; every model has ``random_state=0``, so the objective
    is a deterministic function of its point. The quick version subsamples 200 rows
    (images) of each set, stratified for classification.

    Parameters
    ----------
    name : str
        One of :data:`TASK_NAMES`.
    quick : bool, default=False
        Small subsamples, for tests and the tour.

    Returns
    -------
    TuningTask
        The space, the objective and (for the constrained task) the constraint.

    Raises
    ------
    ValueError
        ``name`` is not one of :data:`TASK_NAMES`.
    """
    if name not in TASK_NAMES:
        raise ValueError(f"unknown task {name!r}; choose from {', '.join(TASK_NAMES)}")
    from sklearn.model_selection import KFold, StratifiedKFold

    n = SIZES[name][1 if quick else 0]
    stratified = StratifiedKFold(N_FOLDS, shuffle=True, random_state=DATA_SEED)
    plain = KFold(N_FOLDS, shuffle=True, random_state=DATA_SEED)
    builder = _BUILDERS[name.removesuffix("-constrained")]
    space, build, X, y, classify, scoring, description = builder(n)
    cv = stratified if classify else plain
    objective = _CVObjective(build, space.dimension_names, X, y, cv, scoring)
    constraint, margin = None, None
    if name.endswith("-constrained"):
        constraint, margin = forest_constraint, forest_margin
        description += f", n_estimators * max_depth <= {FOREST_BUDGET}"
    return TuningTask(name, description, space, objective, constraint, margin, scoring, len(y))


_Built = tuple[Space, Callable[..., Any], np.ndarray, np.ndarray, bool, str, str]


def _svc_wine(n: int) -> _Built:
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from kernelkit.datasets import load_uci

    table = load_uci("wine")
    y_all = (table.y >= 6).astype(int)
    idx = _subsample(len(y_all), n, y_all)
    space = Space(
        [
            Real(1e-2, 1e3, "log-uniform", name="C"),
            Real(1e-4, 1e1, "log-uniform", name="gamma"),
        ]
    )

    def build(**p: Any) -> Any:
        return make_pipeline(StandardScaler(), SVC(**p))

    return space, build, table.X[idx], y_all[idx], True, "accuracy", "SVC (RBF), red wine"


def _forest_insurance(n: int) -> _Built:
    from sklearn.ensemble import RandomForestClassifier

    from kernelkit.datasets import load_uci

    table = load_uci("insurance")
    y_all = table.y.astype(int)
    idx = _subsample(len(y_all), n, y_all)
    space = Space(
        [
            Integer(10, 100, name="n_estimators"),
            Integer(2, 20, name="max_depth"),
            Integer(1, 20, name="min_samples_leaf"),
            Categorical(["gini", "entropy"], name="criterion"),
        ]
    )

    def build(**p: Any) -> Any:
        return RandomForestClassifier(**p, random_state=DATA_SEED)

    return space, build, table.X[idx], y_all[idx], True, "roc_auc", "random forest, COIL 2000"


def _cpu_act(n: int) -> tuple[np.ndarray, np.ndarray]:
    from kernelkit.datasets import load_uci

    table = load_uci("cpu_act")
    idx = _subsample(len(table.y), n)
    return table.X[idx], table.y[idx]


def _boosting_cpu_act(n: int) -> _Built:
    from sklearn.ensemble import HistGradientBoostingRegressor

    X, y = _cpu_act(n)
    space = Space(
        [
            Real(1e-2, 1.0, "log-uniform", name="learning_rate"),
            Integer(4, 64, name="max_leaf_nodes"),
            Real(1e-6, 1e1, "log-uniform", name="l2_regularization"),
            Integer(2, 50, name="min_samples_leaf"),
        ]
    )

    def build(**p: Any) -> Any:
        return HistGradientBoostingRegressor(
            **p, max_iter=50, early_stopping=False, random_state=DATA_SEED
        )

    return space, build, X, y, False, "r2", "histogram gradient boosting, cpu_act"


def _kernel_ridge_cpu_act(n: int) -> _Built:
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = _cpu_act(n)
    space = Space(
        [
            Categorical(["rbf", "laplacian", "polynomial"], name="kernel"),
            Real(1e-4, 1e1, "log-uniform", name="alpha"),
            Real(1e-4, 1.0, "log-uniform", name="gamma"),
        ]
    )

    def build(**p: Any) -> Any:
        model = make_pipeline(StandardScaler(), KernelRidge(**p, degree=3))
        return TransformedTargetRegressor(regressor=model, transformer=StandardScaler())

    return space, build, X, y, False, "r2", "kernel ridge, cpu_act"


def _mlp_mnist(n: int) -> _Built:
    from sklearn.neural_network import MLPClassifier

    from kernelkit.datasets import load_mnist

    images, labels = load_mnist()
    idx = _subsample(len(labels), n, labels)
    small = images[idx].astype(float).reshape(len(idx), 14, 2, 14, 2).mean(axis=(2, 4))
    X = small.reshape(len(idx), -1) / 255.0
    space = Space(
        [
            Integer(8, 128, "log-uniform", name="n_units_1"),
            Integer(8, 128, "log-uniform", name="n_units_2"),
            Real(1e-4, 1e-1, "log-uniform", name="learning_rate_init"),
            Real(1e-6, 1e-1, "log-uniform", name="alpha"),
        ]
    )

    def build(n_units_1: int, n_units_2: int, **p: Any) -> Any:
        return MLPClassifier(
            hidden_layer_sizes=(n_units_1, n_units_2), max_iter=20, random_state=DATA_SEED, **p
        )

    return space, build, X, labels[idx], True, "accuracy", "MLP, MNIST 14 x 14"


_BUILDERS: dict[str, Callable[[int], _Built]] = {
    "svc-wine": _svc_wine,
    "forest-insurance": _forest_insurance,
    "boosting-cpu-act": _boosting_cpu_act,
    "kernel-ridge-cpu-act": _kernel_ridge_cpu_act,
    "mlp-mnist": _mlp_mnist,
}


# ------------------------------------------------------------------ runs
class Budget:
    """The objective as the methods see it: records each evaluation and its timing.

    A point that violates the task's constraint is not evaluated: it counts as an
    evaluation, is recorded as infeasible (``nan``) and ``penalty`` is returned (this is
    how the methods without input-constraint support see the constraint).

    Parameters
    ----------
    task : TuningTask
        The task whose objective is called.
    penalty : float, default=0.0
        Value returned for an infeasible point: on the constrained forest, minus a ROC
        AUC, 0 is the worst value there is.

    Attributes
    ----------
    values : list of float
        The objective's value at each point asked for (``nan`` where infeasible).
    starts, ends : list of float
        ``time.perf_counter()`` before and after each evaluation.
    """

    def __init__(self, task: TuningTask, penalty: float = 0.0) -> None:
        self.task, self.penalty = task, penalty
        self.values: list[float] = []
        self.starts: list[float] = []
        self.ends: list[float] = []

    def feasible(self, x: Sequence[Any]) -> bool:
        """Whether ``x`` satisfies the task's constraint (``True`` without one).

        Parameters
        ----------
        x : sequence
            A point of the task's space.

        Returns
        -------
        bool
            The constraint's verdict.
        """
        return self.task.constraint is None or bool(self.task.constraint(x))

    def __call__(self, x: Sequence[Any]) -> float:
        self.starts.append(time.perf_counter())
        if self.feasible(x):
            value = float(self.task.objective(x))
            self.values.append(value)
        else:
            value = self.penalty
            self.values.append(float("nan"))
        self.ends.append(time.perf_counter())
        return value


#: ``method(task, objective, n_calls, n_initial_points, random_state)``: minimise
#: ``objective`` (a :class:`Budget`) over ``task.space`` in ``n_calls`` evaluations.
Method = Callable[[TuningTask, Budget, int, int, int], None]


def random_search(
    task: TuningTask, objective: Budget, n_calls: int, n_initial_points: int, random_state: int
) -> None:
    """Uniform random search: ``n_calls`` draws of ``task.space.rvs`` (each dimension
    from its prior), redrawn until feasible under the task's constraint.

    Parameters
    ----------
    task : TuningTask
        The task.
    objective : Budget
        The objective to call.
    n_calls : int
        Evaluations.
    n_initial_points : int
        Unused (every point is random).
    random_state : int
        Seeds the draws.
    """
    rng = np.random.RandomState(random_state)
    for _ in range(n_calls):
        for _ in range(10_000):
            x = task.space.rvs(1, random_state=rng)[0]
            if objective.feasible(x):
                break
        else:
            raise RuntimeError(f"{task.name}: no feasible point in 10000 random draws")
        objective(x)


def kernelkit_minimize(
    task: TuningTask, objective: Budget, n_calls: int, n_initial_points: int, random_state: int
) -> None:
    """kernelkit's :func:`~kernelkit.optimize.gp_minimize` with its defaults except
    ``n_initial_points``; the constraint goes in as ``input_constraints``.

    Parameters
    ----------
    task : TuningTask
        The task.
    objective : Budget
        The objective to call.
    n_calls : int
        Evaluations.
    n_initial_points : int
        Random points before the GP chooses.
    random_state : int
        Seeds the run.
    """
    constraints = None if task.constraint is None else [task.constraint]
    gp_minimize(
        objective,
        task.space,
        n_calls=n_calls,
        n_initial_points=n_initial_points,
        random_state=random_state,
        input_constraints=constraints,
    )


#: The experiment's methods.
METHODS: dict[str, Method] = {"random": random_search, "kernelkit": kernelkit_minimize}


@dataclass(frozen=True)
class Trace:
    """One run of one method on one task.

    Attributes
    ----------
    values : ndarray of shape (n_calls,)
        The objective at each evaluation, ``nan`` where the point was infeasible.
    best : ndarray of shape (n_calls,)
        The best (smallest) feasible value after each evaluation (``inf`` before the
        first feasible one).
    objective_seconds : ndarray of shape (n_calls,)
        Time inside each evaluation.
    overhead_seconds : ndarray of shape (n_calls,)
        The optimiser's time before each evaluation: from the end of the previous one
        (the start of the run for the first) to its start.
    total_seconds : float
        Wall time of the whole run.
    """

    values: np.ndarray
    best: np.ndarray
    objective_seconds: np.ndarray
    overhead_seconds: np.ndarray
    total_seconds: float

    @property
    def overhead_total(self) -> float:
        """The optimiser's time in all: wall time minus the objective's time."""
        return float(self.total_seconds - self.objective_seconds.sum())

    @property
    def n_infeasible(self) -> int:
        """Evaluations asked for at infeasible points."""
        return int(np.isnan(self.values).sum())


def run_method(
    method: Method, task: TuningTask, n_calls: int, n_initial_points: int, random_state: int
) -> Trace:
    """Run ``method`` once on ``task`` and time it.

    Parameters
    ----------
    method : callable
        A :data:`Method`.
    task : TuningTask
        The task.
    n_calls : int
        Evaluations.
    n_initial_points : int
        Random points before the model chooses, for methods with that notion.
    random_state : int
        The run's seed.

    Returns
    -------
    Trace
        Values, best so far, objective and optimiser times.

    Raises
    ------
    RuntimeError
        The method made another number of evaluations than ``n_calls``.
    """
    objective = Budget(task)
    t0 = time.perf_counter()
    method(task, objective, n_calls, n_initial_points, random_state)
    total = time.perf_counter() - t0
    if len(objective.values) != n_calls:
        raise RuntimeError(
            f"{task.name}: the method made {len(objective.values)} evaluations, not {n_calls}"
        )
    values = np.asarray(objective.values)
    starts, ends = np.asarray(objective.starts), np.asarray(objective.ends)
    return Trace(
        values=values,
        best=np.minimum.accumulate(np.where(np.isnan(values), np.inf, values)),
        objective_seconds=ends - starts,
        overhead_seconds=starts - np.concatenate([[t0], ends[:-1]]),
        total_seconds=total,
    )


def compare(
    tasks: Sequence[TuningTask],
    methods: Mapping[str, Method],
    random_states: Sequence[int],
    n_calls: int,
    n_initial_points: int,
    *,
    on_trace: Callable[[str, str, int, Trace], None] | None = None,
) -> dict[str, dict[str, list[Trace]]]:
    """Run every method on every task with every seed, the methods alternating seed by
    seed.

    Parameters
    ----------
    tasks : sequence of TuningTask
        The tasks.
    methods : mapping of str to callable
        Name to :data:`Method`.
    random_states : sequence of int
        One run per seed.
    n_calls : int
        Evaluations per run.
    n_initial_points : int
        Initial random points of the model-based methods.
    on_trace : callable, optional
        ``on_trace(task, method, random_state, trace)`` after each run (for printing).

    Returns
    -------
    dict
        ``{task name: {method name: [Trace per seed]}}``.
    """
    traces: dict[str, dict[str, list[Trace]]] = {t.name: {m: [] for m in methods} for t in tasks}
    jobs = [(t, s, m) for t in tasks for s in random_states for m in methods]
    for task, seed, label in progress(jobs, desc="bo-tuning"):
        trace = run_method(methods[label], task, n_calls, n_initial_points, seed)
        traces[task.name][label].append(trace)
        if on_trace is not None:
            on_trace(task.name, label, seed, trace)
    return traces


# ------------------------------------------------------------------ the figure of merit
def score_scale(
    final_best: Mapping[str, Sequence[float] | np.ndarray], reference: str = "random"
) -> tuple[float, float]:
    """The values that the normalised score maps to 0 and to 1 on one task.

    Parameters
    ----------
    final_best : mapping of str to array-like
        Method name to its final best values (minimised), one per seed.
    reference : str, default="random"
        The method whose median final best is the zero.

    Returns
    -------
    zero : float
        The median of ``final_best[reference]``.
    one : float
        The smallest final best of any method and seed.
    """
    zero = float(np.median(np.asarray(final_best[reference], dtype=float)))
    one = float(min(np.min(np.asarray(v, dtype=float)) for v in final_best.values()))
    return zero, one


def normalised_score(values: Any, zero: float, one: float) -> np.ndarray:
    """``(zero - values) / (zero - one)``: 0 at random search's median, 1 at the best.

    Values are minimised, so a run better than random search's median scores above 0,
    the best run of all scores 1, and a worse one scores below 0. When ``zero == one``
    (random search's median already reaches the best value: no run can beat it) every
    score is 0.

    Parameters
    ----------
    values : array-like
        Best values (minimised): finals, or best-so-far curves.
    zero : float
        The value scored 0 (:func:`score_scale`).
    one : float
        The value scored 1.

    Returns
    -------
    ndarray
        The scores, of the shape of ``values``.

    Examples
    --------
    >>> normalised_score([-0.5, -1.0, -0.75], zero=-0.5, one=-1.0).tolist()
    [0.0, 1.0, 0.5]
    """
    values = np.asarray(values, dtype=float)
    span = zero - one
    if span <= 0:
        return np.zeros_like(values)
    return (zero - values) / span


@dataclass(frozen=True)
class Summary:
    """The comparison in numbers.

    Attributes
    ----------
    scores : dict
        ``{task: {method: ndarray of shape (n_seeds,)}}``: normalised final scores.
    curves : dict
        ``{task: {method: ndarray of shape (n_calls,)}}``: the mean normalised
        best-so-far after each evaluation.
    scale : dict
        ``{task: (zero, one)}``, the objective values behind the scores.
    mean_score : dict
        ``{method: float}``: the mean over the tasks of the mean over the seeds.
    overhead_last : dict
        ``{method: float}``: median over tasks and seeds of the optimiser's time before
        the last evaluation.
    overhead_mean : dict
        ``{method: float}``: median over tasks and seeds of the optimiser's time per
        evaluation (wall minus objective time, divided by ``n_calls``).
    seconds : dict
        ``{method: float}``: total wall time over all runs.
    """

    scores: dict[str, dict[str, np.ndarray]]
    curves: dict[str, dict[str, np.ndarray]]
    scale: dict[str, tuple[float, float]]
    mean_score: dict[str, float]
    overhead_last: dict[str, float]
    overhead_mean: dict[str, float]
    seconds: dict[str, float]


def summarise(
    traces: Mapping[str, Mapping[str, Sequence[Trace]]], reference: str = "random"
) -> Summary:
    """Normalised scores, overheads and times of :func:`compare`'s runs.

    Parameters
    ----------
    traces : mapping
        ``{task: {method: [Trace, ...]}}``; methods with no runs are left out.
    reference : str, default="random"
        The method scored 0 at its median.

    Returns
    -------
    Summary
        The figures of merit.
    """
    scores: dict[str, dict[str, np.ndarray]] = {}
    curves: dict[str, dict[str, np.ndarray]] = {}
    scale: dict[str, tuple[float, float]] = {}
    for task, by_method in traces.items():
        runs = {m: list(ts) for m, ts in by_method.items() if ts}
        zero, one = score_scale({m: [t.best[-1] for t in ts] for m, ts in runs.items()}, reference)
        scale[task] = (zero, one)
        scores[task] = {
            m: normalised_score([t.best[-1] for t in ts], zero, one) for m, ts in runs.items()
        }
        curves[task] = {
            m: normalised_score(np.array([t.best for t in ts]), zero, one).mean(axis=0)
            for m, ts in runs.items()
        }
    methods = [m for m in next(iter(traces.values())) if all(traces[t][m] for t in traces)]
    every = {m: [tr for t in traces for tr in traces[t][m]] for m in methods}
    return Summary(
        scores=scores,
        curves=curves,
        scale=scale,
        mean_score={m: float(np.mean([scores[t][m].mean() for t in traces])) for m in methods},
        overhead_last={
            m: float(np.median([t.overhead_seconds[-1] for t in every[m]])) for m in methods
        },
        overhead_mean={
            m: float(np.median([t.overhead_total / len(t.values) for t in every[m]]))
            for m in methods
        },
        seconds={m: float(sum(t.total_seconds for t in every[m])) for m in methods},
    )


def score_table(summary: Summary) -> dict[str, Any]:
    """The table of mean normalised scores: a row per task, a column per method, then the
    mean over the tasks and the optimisers' overheads.

    Parameters
    ----------
    summary : Summary
        From :func:`summarise`.

    Returns
    -------
    dict
        ``{"columns": [...], "rows": [[...], ...]}`` (the experiments' table format).
    """
    methods = list(summary.mean_score)
    rows: list[list[Any]] = [
        [task, *(_score_cell(summary.scores[task][m].mean()) for m in methods)]
        for task in summary.scores
    ]
    rows.append(["mean over tasks", *(_score_cell(summary.mean_score[m]) for m in methods)])
    rows.append(["overhead, last step (s)", *(f"{summary.overhead_last[m]:.3g}" for m in methods)])
    rows.append(["overhead per step (s)", *(f"{summary.overhead_mean[m]:.3g}" for m in methods)])
    rows.append(["total time (s)", *(f"{summary.seconds[m]:.1f}" for m in methods)])
    return {"columns": ["task", *methods], "rows": rows}


def _score_cell(value: float) -> str:
    return f"{round(float(value), 3) + 0.0:.3f}"  # no "-0.000" for a rounding error


def plot_curves(summary: Summary, path: Path) -> str:
    """One panel per task: the mean normalised best-so-far against the evaluations.

    Parameters
    ----------
    summary : Summary
        From :func:`summarise`.
    path : pathlib.Path
        The PNG to write.

    Returns
    -------
    str
        The file name written.
    """
    tasks = list(summary.curves)
    ncols = min(3, len(tasks))
    nrows = -(-len(tasks) // ncols)
    fig, axes = new_figure(nrows, ncols, width=3.6, height=2.8)
    axes = np.atleast_2d(axes)
    for k, ax in enumerate(axes.ravel()):
        if k >= len(tasks):
            ax.set_visible(False)
            continue
        for j, (label, curve) in enumerate(summary.curves[tasks[k]].items()):
            n = np.arange(1, len(curve) + 1)
            ax.plot(n, np.maximum(curve, -1.0), color=COLORS[j % len(COLORS)], label=label)
        ax.set_title(tasks[k])
        ax.set_xlabel("evaluations")
        ax.set_ylabel("normalised score (clipped at -1)")
        ax.set_ylim(-1.05, 1.05)
    axes.ravel()[0].legend(loc="lower right")
    return save_figure(fig, path)


@register(
    "bo-tuning",
    title="Hyperparameter tuning of scikit-learn models: Bayesian optimisation vs random search",
    source="issue 30 item 6 (BO on real tuning tasks, mixed spaces, a known constraint)",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    run_seeds = seeds(random_state, 2 if quick else 10)
    n_calls, n_initial = (8, 4) if quick else (40, 10)
    tasks = [make_task(name, quick=quick) for name in TASK_NAMES]
    traces = compare(tasks, METHODS, run_seeds, n_calls, n_initial)
    summary = summarise(traces)
    figure = plot_curves(summary, out / "bo_tuning.png")
    methods = list(summary.mean_score)
    head = ", ".join(f"{m} {summary.mean_score[m]:.2f}" for m in methods)
    return {
        "headline": (
            f"mean normalised score over {len(tasks)} tasks ({len(run_seeds)} seeds, "
            f"{n_calls} evaluations; 0 = random search's median, 1 = best found): {head}"
        ),
        "figures": [figure],
        "tables": {
            f"mean normalised score, {len(run_seeds)} seeds, {n_calls} evaluations "
            f"({n_initial} initial)": score_table(summary)
        },
        "seeds": run_seeds,
        "n_calls": n_calls,
        "n_initial_points": n_initial,
        "tasks": {t.name: {"description": t.description, "n_samples": t.n_samples} for t in tasks},
        "mean_score": summary.mean_score,
        "scores": summary.scores,
        "scale": summary.scale,
        "curves": summary.curves,
        "final_best": {
            task: {m: [t.best[-1] for t in ts] for m, ts in by_method.items()}
            for task, by_method in traces.items()
        },
        "n_infeasible": {
            task: {m: sum(t.n_infeasible for t in ts) for m, ts in by_method.items()}
            for task, by_method in traces.items()
        },
        "overhead_last_seconds": summary.overhead_last,
        "overhead_mean_seconds": summary.overhead_mean,
        "seconds": summary.seconds,
    }
