"""Bayesian optimisation with a GP surrogate (assignment Algorithm 3, Q2.5-2.8).

Convention: :class:`BayesianOptimizer` **minimises** ``objective`` by default
(``maximize=True`` for the seed's maximisation). Internally it always maximises
``g = -f`` (or ``g = f``), so the acquisitions are exactly the seed's formulas
(eqs. 2.11, 2.15-2.17) applied to the GP posterior of ``g``.

Inputs are scaled to the unit cube ``[0, 1]^d``, where the kernel's lengthscale bounds
mean the same thing for every problem; outputs are standardised (``normalize_y``), so
``xi`` is measured in standard deviations of the observed values and the defaults
(0.2 for PI, 0.05 for EI, the seed's) do not depend on the objective's units.

Batches (``ask(n)``, ``run(batch_size=q)``) are chosen one point at a time by a fantasy
rule of Ginsbourger, Le Riche & Carraro (2010), "Kriging is well-suited to parallelize
optimization": each chosen point is given a made-up value (the kriging believer's
posterior mean, or the constant liar's lie) and the next one is chosen with the surrogate
conditioned on it, its hyperparameters unchanged.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import qmc
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from threadpoolctl import threadpool_limits

from kernelkit._memory import check_memory
from kernelkit._progress import progress
from kernelkit._validation import (
    check_array,
    check_bool,
    check_bounds,
    check_in,
    check_int,
    check_noise_bounds,
    check_positive,
    check_random_state,
)
from kernelkit.kernels import Kernel, Prior
from kernelkit.models import GaussianProcessRegressor, NumericalWarning
from kernelkit.optimize.acquisition import (
    Acquisition,
    ImprovementAcquisition,
    UpperConfidenceBound,
    get_acquisition,
    noisy_incumbent,
)
from kernelkit.optimize.constraints import (
    check_input_constraints,
    input_feasible,
    log_probability_of_feasibility,
)
from kernelkit.optimize.mixed_search import maximize_on_space, snap
from kernelkit.optimize.output_transform import (
    OUTPUT_TRANSFORMS,
    OutputTransform,
    fit_output_transform,
)
from kernelkit.optimize.schedules import Schedule, as_schedule
from kernelkit.optimize.search import (
    _SOBOL_MAX_DIMS,
    _near_rows,
    maximize_acquisition,
    sobol_points,
)
from kernelkit.optimize.space import Dimension, Space
from kernelkit.optimize.surrogate import ObjectiveModel, default_kernel, posterior

__all__ = ["AcquisitionStep", "BayesianOptimizer", "OptimizationResult"]

_INITIAL_DESIGNS = ("sobol", "lhs", "halton", "random")
#: Distinct values below which output_transform="auto" keeps the values as they are.
_MIN_POWER_VALUES = 5
_BATCH_STRATEGIES = ("kriging_believer", "constant_liar")
_LIES: dict[str, Callable[[np.ndarray], Any]] = {"min": np.min, "mean": np.mean, "max": np.max}
#: Perturbation scales (unit cube) of the extra search candidates around the incumbent.
_LOCAL_SCALES = (1e-3, 1e-2, 1e-1)
_LOCAL_PER_SCALE = 10


def _real_number(y: Any, name: str) -> float:
    """``y`` as a float if it is one real number, or a clear error naming ``name``.

    Accepted: ``int``, ``float``, NumPy integer and floating scalars, and 0-d or
    one-element arrays of them (what ``objective(x)`` written with NumPy returns). NaN and
    infinity are returned as they are, for the caller to record as failed evaluations.
    Strings (even ``"1.5"``), bools, complex numbers and several numbers are not numbers
    here.
    """
    if isinstance(y, (str, bytes, bool, np.bool_)) or y is None:
        raise TypeError(f"{name} must be a real number, got {type(y).__name__} {y!r}")
    try:
        arr = np.asarray(y)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {type(y).__name__}") from None
    if arr.dtype == object and arr.size == 1:
        item = arr.reshape(()).item()
        if isinstance(item, numbers.Real) and not isinstance(item, (bool, np.bool_)):
            arr = np.asarray(float(item))
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        what = f"{type(y).__name__} {y!r}" if arr.ndim == 0 else f"an array of dtype {arr.dtype}"
        raise TypeError(f"{name} must be a real number, got {what}")
    if arr.size != 1:
        raise ValueError(f"{name} must be one real number, got an array of shape {arr.shape}")
    return float(arr.reshape(()))


def _check_box(bounds: np.ndarray) -> None:
    """A box the optimiser can map to the unit cube: every width ``high - low`` finite
    (two finite ends of opposite signs near 1.8e308 are not), and no more dimensions
    than the Sobol sequences of the design and the search cover."""
    with np.errstate(over="ignore"):
        width = bounds[:, 1] - bounds[:, 0]
    bad = np.flatnonzero(~np.isfinite(width))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"bounds of dimension {i}, ({bounds[i, 0]:g}, {bounds[i, 1]:g}), are wider than "
            "the float64 range (high - low overflows); rescale that coordinate"
        )
    if bounds.shape[0] > _SOBOL_MAX_DIMS:
        raise ValueError(
            f"bounds has {bounds.shape[0]} dimensions; the Sobol points of the search cover "
            f"at most {_SOBOL_MAX_DIMS}"
        )


def _repeats(u: np.ndarray, U: np.ndarray) -> bool:
    """Whether ``u`` is within ``_DUPLICATE`` (max-norm, unit cube) of a row of ``U``."""
    return bool(_near_rows(u[None], U)[0])


def _outcome(raw: Any, n_constraints: int) -> tuple[float, np.ndarray]:
    """What the objective returned as ``(value, constraint values)``: a real number when
    ``n_constraints == 0``, else a pair ``(value, [c_1, ..., c_k])`` (a TypeError or
    ValueError otherwise). Non-finite values are returned as they are."""
    if n_constraints == 0:
        return _real_number(raw, "the objective's value"), np.empty(0)
    if not (isinstance(raw, (tuple, list)) and len(raw) == 2):
        raise TypeError(
            f"with n_outcome_constraints={n_constraints} the objective must return a pair "
            f"(value, constraint_values), got {type(raw).__name__} {raw!r}"
        )
    value = _real_number(raw[0], "the objective's value")
    try:
        c = np.asarray(raw[1], dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(
            f"the constraint values must be {n_constraints} real numbers, got {raw[1]!r}"
        ) from None
    if c.shape != (n_constraints,):
        raise ValueError(
            f"the objective returned {c.size} constraint value(s), expected "
            f"n_outcome_constraints={n_constraints}"
        )
    return value, c


def _evaluate(objective: Any, x: Any, n_constraints: int = 0) -> tuple[Any, str | None]:
    """``objective(x)`` as a float (a pair ``(float, constraint values)`` with
    ``n_constraints``), or ``nan`` and why it failed (runs on Dask workers too)."""
    try:
        raw = objective(x.copy())  # a copy: the recorded point is the one evaluated
    except Exception as exc:  # a failed evaluation is data, not the end of the run
        return math.nan, f"{type(exc).__name__}: {exc}"
    try:
        value, c = _outcome(raw, n_constraints)  # "1.5" is a failure
    except (TypeError, ValueError) as exc:
        return math.nan, str(exc)
    if not (math.isfinite(value) and np.isfinite(c).all()):
        return math.nan, f"objective returned {raw!r}"
    return (value if n_constraints == 0 else (value, c)), None


def _evaluator(objective: Any, client: Any, n_constraints: int = 0) -> Callable[[Any], list]:
    """A function evaluating the rows of ``X``: here, one after another, or as one Dask
    task each on ``client``'s cluster."""
    if client is None:
        return lambda X: [_evaluate(objective, x, n_constraints) for x in X]
    from kernelkit.distributed.client import import_distributed

    distributed = import_distributed("run(client=...)")
    if not isinstance(client, distributed.Client):
        raise TypeError(
            f"client must be a dask.distributed.Client or None, got {type(client).__name__}"
        )

    def on_cluster(X: np.ndarray) -> list:
        try:
            futures = [client.submit(_evaluate, objective, x, n_constraints, pure=False) for x in X]
        except Exception as exc:  # what Dask raises when it cannot pickle the objective
            raise TypeError(
                "the objective could not be sent to the Dask workers; with a client it must "
                f"be picklable (a function or an object without locks, files or "
                f"connections): {type(exc).__name__}: {exc}"
            ) from exc
        return client.gather(futures)

    return on_cluster


def _space_from(bounds: Any) -> Space | None:
    """``bounds`` as a :class:`Space` when it is one, a dict of dimensions, or a list with
    a :class:`Dimension` in it; ``None`` for a box of ``(low, high)`` pairs."""
    if isinstance(bounds, Space):
        return bounds
    if isinstance(bounds, dict) or (
        isinstance(bounds, (list, tuple)) and any(isinstance(b, Dimension) for b in bounds)
    ):
        return Space(bounds)
    return None


_ACQ_QNEI = {"qnei": False, "qlognei": True}


def _copy_point(x: Any) -> Any:
    """A copy of a point (an array or a list), for a callable that might change it."""
    return x.copy() if hasattr(x, "copy") else list(x)


def _set_lengthscale_prior(kernel: Kernel, prior: Prior) -> None:
    """Give every lengthscale of ``kernel`` (of its parts, for a composite) ``prior``."""
    keys = [
        key
        for key in kernel.get_params(deep=True)
        if key == "lengthscale_prior" or key.endswith("__lengthscale_prior")
    ]
    if not keys:
        raise ValueError(
            f"lengthscale_prior needs a kernel with a lengthscale; {kernel!r} has none "
            "(leave lengthscale_prior=None, or give the kernel its own priors)"
        )
    kernel.set_params(**dict.fromkeys(keys, prior))


@dataclass(frozen=True)
class OptimizationResult:
    """The outcome and full history of a Bayesian optimisation run.

    Returned by :meth:`BayesianOptimizer.run` and :meth:`BayesianOptimizer.result`.

    Attributes
    ----------
    x_best : ndarray of shape (d,)
        The best evaluated point (lowest value, or highest with ``maximize``). Read before
        any evaluation succeeded (nothing told yet, or every evaluation failed), it raises
        scikit-learn's ``NotFittedError`` (a ``ValueError``) saying so, as ``y_best`` does.
    y_best : float
        Its objective value.
    X : ndarray of shape (n, d)
        Every evaluated point, in order.
    y : ndarray of shape (n,)
        Their values (``nan`` where the evaluation failed).
    errors : list of (str or None)
        Why each evaluation failed (exception or non-finite value), ``None`` if it did not.
    acquisition : ndarray of shape (n,)
        The acquisition value (normalised scale) at each point chosen by the acquisition;
        ``nan`` for the initial design and for points told without being asked.
    xi : ndarray of shape (n,)
        ``xi`` used to choose each point (``nan`` where none was used).
    time : ndarray of shape (n,)
        Seconds from the ``ask`` that proposed each point to its ``tell`` (in ``run``:
        proposing plus evaluating); ``nan`` for points told without being asked.
    source : list of str
        How each point was chosen: ``"initial"`` (design), ``"acquisition"``,
        ``"greedy"`` (posterior-mean step, see ``exploit_every``), ``"random"`` (no
        successful evaluation to model yet, or the acquisition's choice repeated a point)
        or ``"told"`` (given to ``tell`` unasked).
    rounds : ndarray of int, shape (n,)
        The round each point belongs to: the points proposed by one :meth:`ask
        <BayesianOptimizer.ask>` (one round of :meth:`run <BayesianOptimizer.run>`,
        evaluated together) share it; rounds count from 0 over the asks that proposed
        new points. ``-1`` for points told without being asked.
    n_initial : int
        Size of the initial design.
    maximize : bool, default=False
        Whether the objective was maximised.
    space : Space or None, default=None
        The search space; for a box, its uniform :class:`~kernelkit.optimize.Real`
        dimensions. ``space.transform`` maps points to the cube the ``models`` work on.
    models : list of ObjectiveModel, default=[]
        The surrogate fitted at each round the model chose points in, oldest first, each
        predicting the objective itself on the space's cube
        (:class:`~kernelkit.optimize.surrogate.ObjectiveModel`).
    constraint_values : ndarray of shape (n, k) or None, default=None
        The outcome constraints' values at each point (feasible where all are ``<= 0``;
        ``nan`` where the evaluation failed); ``None`` without outcome constraints. The
        best point is then the best feasible one.

    Notes
    -----
    scikit-optimize's names are properties here, so code reading a ``gp_minimize``
    result runs unchanged: ``x`` and ``fun`` (the best point as a list and its value),
    ``x_iters`` (every point, a list of lists) and ``func_vals`` (their values).
    """

    X: np.ndarray
    y: np.ndarray
    errors: list[str | None]
    acquisition: np.ndarray
    xi: np.ndarray
    time: np.ndarray
    source: list[str]
    rounds: np.ndarray
    n_initial: int
    maximize: bool = False
    space: Any = None
    models: list[Any] = field(default_factory=list)
    constraint_values: np.ndarray | None = None
    _optimizer: Any = field(default=None, repr=False, compare=False)

    @property
    def optimizer(self) -> Any:
        """The :class:`BayesianOptimizer` this result came from (``None`` for a result
        made otherwise). After :func:`~kernelkit.optimize.load` of a checkpoint, its
        ``run`` continues the run exactly where it stopped: the same points as an
        uninterrupted run."""
        return self._optimizer

    # -- scikit-optimize's names
    @property
    def x(self) -> list[Any]:
        """``x_best`` as a list (scikit-optimize's ``res.x``)."""
        return list(self.X[self._best_index()].tolist())

    @property
    def fun(self) -> float:
        """``y_best`` (scikit-optimize's ``res.fun``)."""
        return self.y_best

    @property
    def x_iters(self) -> list[list[Any]]:
        """Every evaluated point as a list, in order (scikit-optimize's ``res.x_iters``)."""
        return [list(row) for row in self.X.tolist()]

    @property
    def func_vals(self) -> np.ndarray:
        """Every value, in order (scikit-optimize's ``res.func_vals``; ``y``)."""
        return self.y.copy()

    @property
    def x_best(self) -> np.ndarray:
        """The best evaluated point, shape ``(d,)`` (a copy).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            (a ``ValueError``) Before any evaluation succeeded.
        """
        return self.X[self._best_index()].copy()

    @property
    def y_best(self) -> float:
        """The objective's value at ``x_best``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            (a ``ValueError``) Before any evaluation succeeded.
        """
        return float(self.y[self._best_index()])

    @property
    def feasible(self) -> np.ndarray:
        """Which evaluations succeeded and met every outcome constraint."""
        ok = np.isfinite(self.y)
        if self.constraint_values is not None:
            ok &= np.all(self.constraint_values <= 0.0, axis=1)
        return ok

    def _best_index(self) -> int:
        ok = self.feasible
        if self.constraint_values is not None and np.isfinite(self.y).any() and not ok.any():
            raise NotFittedError(
                "x_best and y_best are undefined: no evaluation so far met every outcome "
                "constraint (see constraint_values)"
            )
        if not ok.any():
            if self.y.size == 0:
                why = "no point has been told yet: tell() an evaluation (or run()) first"
            else:
                why = (
                    f"all {self.y.size} evaluations failed (first error: {self.errors[0]}); "
                    "there is no best point yet"
                )
            raise NotFittedError(f"x_best and y_best are undefined: {why}")
        y = np.where(ok, self.y, np.nan)
        return int(np.nanargmax(y) if self.maximize else np.nanargmin(y))

    @property
    def n_calls(self) -> int:
        """Number of evaluations of the objective recorded (failed ones included)."""
        return int(self.y.shape[0])

    @property
    def n_rounds(self) -> int:
        """Wall-clock rounds: the distinct ``rounds``, each point told unasked a round of
        its own (``n_calls`` for a sequential run)."""
        asked = self.rounds[self.rounds >= 0]
        return int(np.unique(asked).size + np.count_nonzero(self.rounds < 0))

    @property
    def n_failed(self) -> int:
        """Number of failed evaluations (those with an ``errors`` entry)."""
        return sum(e is not None for e in self.errors)

    @property
    def best_so_far(self) -> np.ndarray:
        """Best value among the first ``i + 1`` evaluations (``nan`` before any success)."""
        sign = -1.0 if self.maximize else 1.0
        v = np.where(np.isfinite(self.y), sign * self.y, np.inf)
        best = np.minimum.accumulate(v) if v.size else v
        return np.where(np.isfinite(best), sign * best, np.nan)

    def regret(self, optimum: float) -> np.ndarray:
        """Simple regret ``|best so far - optimum|`` after each evaluation.

        Parameters
        ----------
        optimum : float
            The known optimal value of the objective.

        Returns
        -------
        ndarray of shape (n,)
            The regret after each evaluation (``nan`` before the first success).

        Raises
        ------
        ValueError
            ``optimum`` is not finite.
        TypeError
            ``optimum`` is not a real number.
        """
        optimum = _real_number(optimum, "optimum")
        if not math.isfinite(optimum):
            raise ValueError(f"optimum must be a finite number, got {optimum!r}")
        return np.abs(self.best_so_far - optimum)

    def plot(self, step: int | None = None, **kw: Any) -> Any:
        """The seed's per-step figure (1-D problems); see :meth:`BayesianOptimizer.plot`.

        Parameters
        ----------
        step : int or None, default=None
            An evaluation chosen by the acquisition; ``None``: the last one.
        **kw
            Passed to :func:`kernelkit.optimize.plots.plot_step`.

        Returns
        -------
        matplotlib Figure
            The figure.

        Raises
        ------
        ValueError
            The result has no optimiser attached (it was not made by
            :meth:`BayesianOptimizer.result`).
        """
        if self._optimizer is None:
            raise ValueError("this result has no optimizer attached to redraw its steps")
        return self._optimizer.plot(step, **kw)

    def plot_convergence(self, ax: Any = None, *, minimum: float | None = None) -> Any:
        """Best value (or regret, if ``minimum`` is known) against evaluations.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Draw into these axes instead of a new figure.
        minimum : float, optional
            The known optimum: plot the simple regret on a log scale instead.

        Returns
        -------
        matplotlib Figure
            The figure, from :func:`kernelkit.optimize.plots.plot_convergence`.
        """
        from kernelkit.optimize.plots import plot_convergence

        return plot_convergence(self, ax=ax, minimum=minimum)


@dataclass(frozen=True)
class AcquisitionStep:
    """What one acquisition step saw and chose: enough to redraw its surrogate.

    :meth:`BayesianOptimizer.step_surrogate` returns it with the surrogate refitted on
    ``X`` and ``g`` with the stored hyperparameters.

    Attributes
    ----------
    n_data : int
        Evaluations made before this step (the index of the point it chose, in a
        sequential run).
    X : ndarray of shape (n_data + n_fantasies, d)
        Training inputs, scaled to the unit cube: the evaluated points, then the
        pending points of a batch.
    g : ndarray of shape (n_data + n_fantasies,)
        Training targets: the maximised ``g`` (``-f``, or ``f`` with ``maximize``),
        failed evaluations imputed with the worst value, mapped by ``output_transform``,
        then the fantasy values of the pending points (see ``batch_strategy``).
    kernel : Kernel
        The surrogate's fitted kernel.
    noise : float
        The surrogate's fitted noise variance (normalised scale).
    acquisition : Acquisition
        The acquisition maximised (with the step's ``xi``); ``UpperConfidenceBound(0)``
        on a greedy step.
    best : float
        The incumbent (assignment eq. 2.17), on the normalised scale.
    x_next : ndarray of shape (d,)
        The chosen point, in the unit cube.
    greedy : bool, default=False
        Whether the step maximised the posterior mean (see ``exploit_every``).
    n_fantasies : int, default=0
        Pending points (asked, not yet told) that the step conditioned on with fantasy
        values: 0 in a sequential run.
    output_transform : OutputTransform, default=OutputTransform("none")
        The map of ``g`` to the surrogate's targets at this step (``output_transform``
        of :class:`BayesianOptimizer`); ``g`` above is already mapped.
    """

    n_data: int
    X: np.ndarray
    g: np.ndarray
    kernel: Kernel
    noise: float
    acquisition: Acquisition
    best: float
    x_next: np.ndarray
    greedy: bool = False
    n_fantasies: int = 0
    output_transform: OutputTransform = field(default_factory=lambda: OutputTransform("none"))


@dataclass
class _Pending:
    u: np.ndarray  # unit cube
    x: np.ndarray  # original domain
    acquisition: float
    xi: float
    t_start: float
    step: AcquisitionStep | None
    source: str
    round: int


class BayesianOptimizer:
    """Bayesian optimisation of a black-box function in a box (assignment Algorithm 3).

    At step ``t``: fit the GP surrogate to ``D_{1:t-1}``, choose
    ``x_t = argmax_x u(x | D_{1:t-1})`` by multi-start L-BFGS-B
    (:func:`~kernelkit.optimize.maximize_acquisition`), evaluate ``y_t = f(x_t)``,
    augment the data. The first ``n_initial`` points come from a space-filling design.

    Parameters
    ----------
    objective : callable or None
        ``objective(x) -> float`` for ``x`` of shape ``(d,)``, in the original domain; it
        gets a copy of the point, so changing its argument in place changes nothing
        recorded. The value must be a real number: a float or int, a NumPy scalar, or a
        0-d or one-element array of one. Exceptions, NaN, infinities and anything that is
        not a real number (a string such as ``"1.5"``, a bool, several values) are
        recorded in the history as failed evaluations, with the reason, and the run goes
        on (:meth:`run` raises if every evaluation failed). ``None`` for pure
        :meth:`ask` / :meth:`tell` use.
    bounds : array of shape (d, 2), Space, dict or list of dimensions, optional
        Box ``[low, high]`` per dimension, or a search space: a
        :class:`~kernelkit.optimize.Space`, a dict ``{name: dimension}``, or a list with
        :class:`~kernelkit.optimize.Real`, :class:`~kernelkit.optimize.Integer` or
        :class:`~kernelkit.optimize.Categorical` dimensions in it (a list of plain
        ``(low, high)`` pairs stays a box of reals; wrap it in ``Space(...)`` for
        scikit-optimize's reading, where a pair of ints is an ``Integer``). With a space,
        points are lists of its values (ints and categories themselves), the objective
        gets such a list, and the surrogate works on the space's cube (log coordinates
        for log-uniform dimensions, integer cells, one-hot categories). With integer or
        categorical dimensions the acquisition is maximised over points of the space
        (:func:`~kernelkit.optimize.mixed_search.maximize_on_space`): no point is ever
        scored off its grid, and no point is proposed twice. May be omitted when
        ``objective`` is a :class:`~kernelkit.optimize.functions.TestFunction`.
    kernel : Kernel, optional
        GP prior covariance on the unit cube; a fresh copy is used per optimiser.
        Default: ARD Matérn ``nu = 5/2`` (:func:`~kernelkit.optimize.default_kernel`),
        lengthscales in ``[1e-2, 1e1]``.
    acquisition : str or Acquisition, default="ei"
        ``"ei"``, ``"pi"``, ``"logei"``, ``"logpi"``, ``"ucb"`` or an instance. EI and PI
        are maximised through their logarithms (the same maximiser, no underflow).
        ``"qnei"`` or ``"qlognei"``: noisy expected improvement of the whole batch by
        quasi-Monte Carlo over the joint posterior (Letham et al. 2019; Ament et al.
        2023; :func:`~kernelkit.optimize.suggest_noisy_batch`), for noisy objectives and
        batches: each ask chooses its new points together, from ``n_candidates``
        points of the space, instead of by ``batch_strategy``'s fantasies (pending
        points of an earlier ask are only kept out of the candidates).
    xi : float, Schedule or callable, optional
        Exploration margin of PI / EI in standard deviations of the observed values
        (``normalize_y``; in objective units otherwise), constant or a schedule
        ``xi(step)`` with ``step`` counting the model-based steps from 0. Default: the
        ``xi`` of an :class:`Acquisition` instance passed as ``acquisition``, and 0 for
        a name. (The seed's defaults, 0.2 for PI and 0.05 for EI, are the classes'
        defaults; on the normalised scale they keep EI from refining an optimum below
        about 5% of the spread of the values: median Branin regret 1e-4 against 4e-6
        with ``xi = 0``, which still explores through EI's ``sigma phi(Z)`` term.)
    n_initial : int, optional
        Size of the initial design; default ``max(5, d + 1)``. ``0``: none (the first
        points are then random until one is told).
    initial_design : {"sobol", "lhs", "halton", "random"}, default="sobol"
        Scrambled Sobol points, a Latin hypercube, scrambled Halton points, or uniform
        points.
    noise : float, default=1e-4
        Starting observation-noise variance (normalised scale).
    noise_bounds : (float, float) or "fixed", default=(1e-12, 1.0)
        Bounds of the fitted noise variance (normalised scale). The noise standard
        deviation limits how finely the surrogate resolves values near the optimum, so
        the floor is low (``1e-6`` of the spread of the values; ``1e-6`` as variance
        gave 30x larger median Branin regret); where ``K + noise I`` is then not
        numerically positive definite the likelihood is ``-inf`` and the fit backs off.
    refit_hyperparameters : bool, default=True
        Re-maximise the marginal likelihood at every step by
        :meth:`GaussianProcessRegressor.fit` (warm-started from the previous fit, plus
        ``n_restarts`` log-uniform random starts within the bounds). ``False`` fits once,
        on the initial design, and keeps those hyperparameters (assignment Q2.8).
    normalize_y : bool, default=True
        Standardise the observed values for the surrogate, so that ``xi`` and the noise
        are on that scale.
    output_transform : {"auto", "power", "rank", "none"}, default="auto"
        A monotone increasing map of the observed values before the surrogate models
        them (:mod:`kernelkit.optimize.output_transform`): ``"power"``, standardised
        then Yeo-Johnson with the maximum-likelihood exponent (as HEBO does);
        ``"rank"``, the normal scores of the ranks (a Gaussian copula); ``"none"``, the
        values themselves. ``"auto"``, from five distinct values on, fits the surrogate
        to the values and to their Yeo-Johnson transform at every refit and keeps the
        one whose marginal likelihood *of the values* (the transform's log Jacobian
        added, one nat taken off for its fitted exponent) is larger. Tuning scores
        need it: on the kernel-ridge task of ``benchmarks/bo_tuning.py`` (R^2 between
        0.975 and -10^5) the mean best R^2 over 10 seeds was 0.9728 with ``"none"``,
        0.9747 with ``"power"``, 0.9738 with ``"rank"`` and 0.9747 with ``"auto"``
        (Branin's and Hartmann-6's regret did not change significantly, paired over 50
        seeds; benchmarks/RESULTS.md). The map keeps the order of the points, so the
        best point is the same; EI and its ``xi`` act on the transformed scale.
    maximize : bool, default=False
        Maximise instead of minimise.
    n_restarts : int, default=2
        Extra random starts of each hyperparameter fit.
    n_candidates : int, default=2048
        Candidates scored before the local acquisition searches.
    n_starts : int, default=5
        L-BFGS-B runs per acquisition search.
    exploit_every : int or None, default=5
        Every ``exploit_every``-th model-based step evaluates the maximiser of the
        posterior mean instead of the acquisition's (a greedy step, recorded with source
        ``"greedy"``; if that point has been evaluated already, the acquisition is used
        instead); ``None`` uses the acquisition at every step, as in the seed's
        Algorithm 3. Interleaving greedy steps is what lets EI settle on an optimum to
        high precision when several basins look equally promising (De Ath et al. 2021,
        "Greed is good: exploration and exploitation trade-offs in Bayesian
        optimisation"). Measured median regret without / with: Branin, 30 evaluations,
        10 seeds, 8.5e-5 / 3.7e-6; Hartmann-6, 60 evaluations, 30 seeds, 8.9e-4 / 3.5e-4.
    lengthscale_prior : Prior or None, default=None
        A prior given to every lengthscale of the kernel (its ``lengthscale_prior``), e.g.
        ``GammaPrior(3.0, 6.0)`` (BoTorch's classic prior: mean 0.5, mode 1/3 of the unit
        cube), which makes each hyperparameter fit a maximum a posteriori estimate (see
        :class:`~kernelkit.models.GaussianProcessRegressor`). With few points in several
        dimensions maximum likelihood often sends a lengthscale to its upper bound,
        declaring a dimension irrelevant; the prior makes that cost evidence. ``None``
        leaves the kernel's own priors (none for the default kernel: maximum likelihood).
        Off by default: it costs precision on Branin (median regret over 10 seeds 6.2e-4
        against 4.5e-6 without) and did not keep Hartmann-6 out of its local minimum more
        often (12/30 runs against 13/30, measured with the surrogate fit it replaced).
    batch_strategy : {"kriging_believer", "constant_liar"}, default="kriging_believer"
        How :meth:`ask` with ``n`` chooses a batch (Ginsbourger et al. 2010): one point at
        a time, each chosen point given a fantasy value and the next chosen with the
        surrogate conditioned on it, with the hyperparameters fitted to the evaluated data
        (not re-optimised). The kriging believer's fantasy is the surrogate's posterior
        mean at the point; the constant liar's is ``lie``. Pending points (asked, not yet
        told) are conditioned on the same way when a later ask proposes new ones.
    lie : {"min", "mean", "max"}, default="min"
        The constant liar's value: the minimum, mean or maximum of the successfully
        observed values of the objective. When minimising, ``"min"`` is the optimistic
        lie (each fantasy as good as the best value so far) and ``"max"`` the pessimistic
        one, which spreads a batch the most; with ``maximize`` the roles swap. Unused by
        the kriging believer.
    input_constraints : LinearConstraint, callable or list of them, optional
        Known constraints on the inputs, which every proposed point satisfies: a
        :class:`scipy.optimize.LinearConstraint` ``lb <= A x <= ub`` on the point's
        values (spaces without categorical dimensions), or a predicate
        ``feasible(x) -> bool``. Design points are drawn from the space and kept when
        feasible; the acquisition is maximised over feasible points only.
    n_outcome_constraints : int, default=0
        Black-box constraints evaluated with the objective: ``objective(x)`` then returns
        ``(value, [c_1, ..., c_k])``, and ``x`` is feasible when every ``c_j <= 0``. Each
        constraint is modelled by its own GP, and the acquisition (EI or PI, on the log
        scale) is multiplied by the probability of feasibility ``prod_j P(c_j(x) <= 0)``
        (constrained EI, Gardner et al. 2014), the incumbent being the best feasible
        point; until one is found the probability of feasibility alone is maximised.
        Greedy steps (``exploit_every``) are skipped. :meth:`tell` takes the same pair.
    random_state : int, RandomState or None
        Seeds the design, the restarts and the searches: the same seed gives the same
        trajectory, through :meth:`run` or through :meth:`ask` / :meth:`tell`.

    Attributes
    ----------
    bounds_ : ndarray of shape (d, 2) or None
        The box (of an all-real space, its ``(low, high)``); ``None`` for a space with
        integer or categorical dimensions.
    space_ : Space
        The search space (a box's uniform :class:`~kernelkit.optimize.Real` dimensions).
    gp_ : GaussianProcessRegressor
        The latest surrogate (on the unit cube, modelling ``g`` mapped by
        ``output_transform_``), once fitted.
    output_transform_ : OutputTransform
        The map of the latest surrogate, once fitted (with ``"auto"``, the one chosen).

    Examples
    --------
    >>> from kernelkit.optimize import BayesianOptimizer, get_function
    >>> f = get_function("forrester")
    >>> opt = BayesianOptimizer(f, f.bounds, n_initial=4, random_state=0)
    >>> res = opt.run(12)
    >>> bool(res.y_best - f.minimum < 1e-2)
    True

    Ask / tell, for objectives evaluated outside Python:

    >>> opt = BayesianOptimizer(None, [(0.0, 1.0)], n_initial=3, random_state=0)
    >>> for _ in range(5):
    ...     x = opt.ask()
    ...     opt.tell(x, float(f(x)))
    >>> opt.result().n_calls
    5

    A batch of four points to evaluate together (on four machines, say), told in any
    order:

    >>> opt = BayesianOptimizer(f, n_initial=4, random_state=0)
    >>> X = opt.ask(4)
    >>> X.shape
    (4, 1)
    >>> for x in X[::-1]:
    ...     opt.tell(x, f(x))
    >>> res = opt.run(8, batch_size=4)  # two more rounds of four evaluations
    >>> res.n_calls, res.n_rounds
    (12, 3)
    >>> res.rounds.tolist()
    [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    """

    def __init__(
        self,
        objective: Any,
        bounds: Any = None,
        *,
        kernel: Kernel | None = None,
        acquisition: Any = "ei",
        xi: Any = None,
        n_initial: int | None = None,
        initial_design: str = "sobol",
        noise: float = 1e-4,
        noise_bounds: Any = (1e-12, 1.0),
        refit_hyperparameters: bool = True,
        normalize_y: bool = True,
        output_transform: str = "auto",
        maximize: bool = False,
        n_restarts: int = 2,
        n_candidates: int = 2048,
        n_starts: int = 5,
        exploit_every: int | None = 5,
        lengthscale_prior: Prior | None = None,
        batch_strategy: str = "kriging_believer",
        lie: str = "min",
        input_constraints: Any = None,
        n_outcome_constraints: int = 0,
        random_state: Any = None,
    ):
        if objective is not None and not callable(objective):
            raise TypeError(f"objective must be callable or None, got {type(objective).__name__}")
        obj_dim = getattr(objective, "dim", None)
        if bounds is None:
            if getattr(objective, "bounds", None) is None:
                raise ValueError("bounds are required unless the objective defines them")
            bounds = objective.bounds
        self.objective = objective
        space = _space_from(bounds)
        # _typed: points are lists of the space's values, mapped by its transforms (a box
        # keeps its arrays and affine map); _discrete: integer or categorical dimensions
        self._typed = space is not None
        self.bounds_: np.ndarray | None
        if space is None:
            box = check_bounds(bounds, obj_dim if isinstance(obj_dim, int) else None)
            _check_box(box)
            space = Space(box)
            self.bounds_ = box
        else:
            self.bounds_ = (
                np.array([dim.bounds[:2] for dim in space], dtype=float) if space.is_real else None
            )
            _check_box(np.tile([0.0, 1.0], (space.transformed_n_dims, 1)))
        self.space_ = space
        self._discrete = not space.is_real
        self.input_constraints = check_input_constraints(input_constraints, space)
        self.n_outcome_constraints = check_int(
            n_outcome_constraints, "n_outcome_constraints", minimum=0
        )
        # the acquisition search over the space's points (snapped), not the whole cube
        self._space_search = self._discrete or bool(self.input_constraints)
        d = space.transformed_n_dims
        if kernel is not None and not isinstance(kernel, Kernel):
            raise TypeError(f"kernel must be a kernelkit Kernel, got {type(kernel).__name__}")
        self.kernel = kernel
        key = (
            acquisition.lower().replace("-", "").replace("_", "")
            if isinstance(acquisition, str)
            else None
        )
        self._qnei_log: bool | None = _ACQ_QNEI.get(key) if key else None
        self.acquisition = (
            acquisition.lower() if self._qnei_log is not None else get_acquisition(acquisition)
        )
        if self._qnei_log is not None and self.n_outcome_constraints:
            raise ValueError(
                "acquisition='qnei' / 'qlognei' does not take outcome constraints; use "
                "'ei' or 'logei' (constrained EI) with n_outcome_constraints"
            )
        if self.n_outcome_constraints and isinstance(self.acquisition, UpperConfidenceBound):
            raise ValueError(
                "outcome constraints enter the acquisition as a probability of feasibility "
                "multiplying an improvement (constrained EI, Gardner et al. 2014); use "
                "acquisition 'ei', 'pi', 'logei' or 'logpi', not 'ucb'"
            )
        if xi is not None and not isinstance(self.acquisition, ImprovementAcquisition):
            raise ValueError(
                f"xi applies to the improvement-based acquisitions (ei, pi, logei, logpi), "
                f"not to {type(self.acquisition).__name__}"
            )
        self.xi = xi
        self._schedule: Schedule | None = None
        if isinstance(self.acquisition, ImprovementAcquisition):
            if xi is None:
                xi = self.acquisition.xi if isinstance(acquisition, Acquisition) else 0.0
            self._schedule = as_schedule(xi)
        self.n_initial = (
            max(5, space.n_dims + 1)
            if n_initial is None
            else check_int(n_initial, "n_initial", minimum=0)
        )
        self.initial_design = check_in(initial_design, "initial_design", _INITIAL_DESIGNS)
        check_positive(noise, "noise")
        self.noise = float(noise)
        self.noise_bounds = check_noise_bounds(noise_bounds)
        self.refit_hyperparameters = check_bool(refit_hyperparameters, "refit_hyperparameters")
        self.normalize_y = check_bool(normalize_y, "normalize_y")
        self.output_transform = check_in(
            output_transform, "output_transform", ("auto", *OUTPUT_TRANSFORMS)
        )
        self.maximize = check_bool(maximize, "maximize")
        self.n_restarts = check_int(n_restarts, "n_restarts", minimum=0)
        self.n_candidates = check_int(n_candidates, "n_candidates", minimum=1)
        # the candidates of one search, and the initial design, are (n, d) arrays
        check_memory(
            4 * 8 * self.n_candidates * d,
            f"BayesianOptimizer(n_candidates={self.n_candidates}) in {d} dimensions",
            "lower n_candidates",
        )
        check_memory(
            2 * 8 * self.n_initial * d,
            f"BayesianOptimizer(n_initial={self.n_initial}) in {d} dimensions",
            "lower n_initial",
        )
        self.n_starts = check_int(n_starts, "n_starts", minimum=0)
        self.exploit_every = (
            None if exploit_every is None else check_int(exploit_every, "exploit_every", minimum=1)
        )
        if lengthscale_prior is not None and not isinstance(lengthscale_prior, Prior):
            raise TypeError(
                "lengthscale_prior must be None or a kernelkit.kernels.Prior (e.g. "
                f"GammaPrior(3.0, 6.0)), got {type(lengthscale_prior).__name__}"
            )
        self.lengthscale_prior = lengthscale_prior
        self.batch_strategy = check_in(batch_strategy, "batch_strategy", _BATCH_STRATEGIES)
        self.lie = check_in(lie, "lie", tuple(_LIES))
        self.random_state = random_state
        self._rng = check_random_state(random_state)
        self._kernel0 = (default_kernel(d) if kernel is None else kernel).clone()
        self._kernel0(np.zeros((1, d)))  # an ARD kernel of the wrong size fails here
        if lengthscale_prior is not None:
            _set_lengthscale_prior(self._kernel0, lengthscale_prior)
        # history
        self._U: list[np.ndarray] = []
        self._X: list[np.ndarray] = []
        self._y: list[float] = []
        self._errors: list[str | None] = []
        self._c: list[np.ndarray] = []  # outcome constraint values (nan: failed)
        self._constraint_gps: list[GaussianProcessRegressor] = []
        self._acq: list[float] = []
        self._xis: list[float] = []
        self._time: list[float] = []
        self._sources: list[str] = []
        self._rounds: list[int] = []
        self._steps: dict[int, AcquisitionStep] = {}
        self._design: list[np.ndarray] | None = None
        self._pending: list[_Pending] = []  # asked, not yet told: oldest first
        self._n_rounds = 0  # asks that proposed new points
        self._n_acq_steps = 0
        self.gp_: GaussianProcessRegressor | None = None
        self.output_transform_ = OutputTransform("none")
        self._warm: dict[str, tuple[Kernel, float]] = {}  # last fit of each transform
        self._models: list[ObjectiveModel] = []  # the surrogate of each model round
        self._analytic_gradient = True  # False for kernels without input gradients

    # ------------------------------------------------------------------ geometry
    @property
    def n_dims(self) -> int:
        """The number of dimensions ``d`` of the box or the space."""
        return int(self.space_.n_dims)

    @property
    def _cube_dims(self) -> int:
        """Coordinates of the surrogate's cube (a categorical has one per category)."""
        return int(self.space_.transformed_n_dims)

    def _box(self) -> tuple[np.ndarray, np.ndarray]:
        """The low and high ends of the box (a box or an all-real space only)."""
        assert self.bounds_ is not None
        return self.bounds_[:, 0], self.bounds_[:, 1]

    def _to_unit(self, x: Any) -> np.ndarray:
        if self._typed:
            return self.space_.transform([x])[0]
        lo, hi = self._box()
        return np.clip((x - lo) / (hi - lo), 0.0, 1.0)

    def _from_unit(self, u: np.ndarray) -> Any:
        if self._typed:
            return self.space_.inverse_transform(u[None])[0]
        lo, hi = self._box()
        return np.clip(lo + u * (hi - lo), lo, hi)

    def _feasible(self, Z: np.ndarray) -> np.ndarray:
        """Whether the points of the cube rows ``Z`` satisfy the input constraints."""
        if not self.input_constraints or Z.shape[0] == 0:
            return np.ones(Z.shape[0], dtype=bool)
        # a box maps all rows at once (its _from_unit broadcasts); a space lists its points
        points = self.space_.inverse_transform(Z) if self._typed else self._from_unit(Z)
        return input_feasible(self.input_constraints, points)

    def _space_points(self, n: int, method: str) -> np.ndarray:
        """``n`` snapped cube points of a design of the space (``"random"``, ``"sobol"``
        or ``"lhs"``) satisfying the input constraints, by rejection (a clear error when
        a thousand tries find too few)."""
        if not self.input_constraints:
            return self.space_.transform(self.space_.sample(n, method, self._rng))
        kept = np.empty((0, self._cube_dims))
        tries = 0
        while kept.shape[0] < n:
            if tries == 1000:
                raise ValueError(
                    f"input_constraints: {kept.shape[0]} of {n} design points found feasible "
                    f"in {tries} draws of {max(n, 64)} points; the feasible region is too "
                    "small to sample, or empty"
                )
            Z = self.space_.transform(self.space_.sample(max(n, 64), method, self._rng))
            kept = np.vstack([kept, Z[self._feasible(Z)]])
            tries += 1
        return kept[:n]

    def _random_unit(self) -> np.ndarray:
        """A uniform random point of the cube, or of the space (feasible) when typed or
        constrained."""
        if self._typed or self.input_constraints:
            return self._space_points(1, "random")[0]
        return self._rng.uniform(size=self._cube_dims)

    def _initial_points(self) -> list[np.ndarray]:
        n, d = self.n_initial, self._cube_dims
        if n == 0:
            return []
        if self._typed or self.input_constraints or self.initial_design == "halton":
            return list(self._space_points(n, self.initial_design))
        if self.initial_design == "sobol":
            U = sobol_points(n, d, self._rng)
        elif self.initial_design == "lhs":
            U = qmc.LatinHypercube(d, seed=self._rng.randint(2**31 - 1)).random(n)
        else:
            U = self._rng.uniform(size=(n, d))
        return list(U)

    # ------------------------------------------------------------------ surrogate
    def _training_data(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit inputs, targets g (failures imputed with the worst g) and the success mask."""
        U = np.asarray(self._U)
        y = np.asarray(self._y, dtype=float)
        ok = np.isfinite(y)
        g = y if self.maximize else -y
        g = np.where(ok, g, np.min(g[ok]))
        return U, g, ok

    def _fit(self, U: np.ndarray, g: np.ndarray) -> tuple[GaussianProcessRegressor, np.ndarray]:
        """The surrogate of ``g`` and its targets (``g`` through ``output_transform_``)."""
        if self.gp_ is not None and not self.refit_hyperparameters:
            # Q2.8: keep the hyperparameters and the transform method of the initial-design fit
            t = fit_output_transform(g, self.output_transform_.method)
            z = t.transform(g)
            gp = self._fixed_gp(self.gp_.kernel_, self.gp_.noise_)
            self._fit_quietly(gp, U, z)
            self.gp_, self.output_transform_ = gp, t
            return gp, z
        methods: tuple[str, ...] = (self.output_transform,)
        if self.output_transform == "auto":
            # Yeo-Johnson's exponent is not estimable from a handful of values
            methods = ("none", "power") if np.unique(g).size >= _MIN_POWER_VALUES else ("none",)
        best: tuple[float, GaussianProcessRegressor, OutputTransform, np.ndarray] | None = None
        for method in methods:
            t = fit_output_transform(g, method)
            if best is not None and t.method != method:
                continue  # "power" of fewer than two distinct values: the identity again
            z = t.transform(g)
            # warm start from the previous fit of this map, plus n_restarts random starts
            kernel, noise = self._warm.get(t.method, (self._kernel0, self.noise))
            lo_hi = self.noise_bounds
            if not (isinstance(lo_hi, str) and lo_hi == "fixed"):
                noise = float(np.clip(noise, *lo_hi))
            gp = GaussianProcessRegressor(
                kernel,
                noise=noise,
                noise_bounds=self.noise_bounds,
                normalize_y=self.normalize_y,
                n_restarts=self.n_restarts,
                random_state=self._rng.randint(2**31 - 1),
            )
            self._fit_quietly(gp, U, z)
            self._warm[t.method] = (gp.kernel_, gp.noise_)
            if len(methods) > 1:
                # the log likelihood of g itself: that of z, back through the
                # standardisation and the map (change of variables), less one nat per
                # fitted parameter of the map (Akaike's penalty)
                evidence = (
                    gp.log_marginal_likelihood_value_
                    - g.size * math.log(float(gp.y_train_std_))
                    + t.log_jacobian(g)
                    - (t.method == "power")
                )
            else:
                evidence = 0.0
            if best is None or evidence > best[0]:
                best = (evidence, gp, t, z)
        assert best is not None
        _, gp, t, z = best
        self.gp_, self.output_transform_ = gp, t
        return gp, z

    @staticmethod
    def _fit_quietly(gp: GaussianProcessRegressor, U: np.ndarray, z: np.ndarray) -> None:
        with warnings.catch_warnings():
            # hyperparameters at their bounds (the noise at its floor on noise-free
            # objectives) and jitter are routine here
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", NumericalWarning)
            gp.fit(U, z)

    # ------------------------------------------------------------------ ask / tell
    def ask(self, n: int | None = None) -> np.ndarray:
        """The next point to evaluate, or the next ``n`` points to evaluate together.

        Asked points stay pending until told: asking again before telling returns the
        same points. ``ask(n)`` returns the ``n`` oldest pending points, proposing new
        ones (one new round) only when fewer than ``n`` are pending: first the next
        points of the initial design, then points chosen by the acquisition with the
        pending ones as fantasies (see ``batch_strategy``). They never repeat a pending or
        an evaluated point: should the acquisition's search end on one (within ``1e-8``
        of the box's width), a uniform random point, of source ``"random"``, takes its
        place. ``ask()`` is the sequential step: the oldest pending point, or one new
        point from the evaluated data, without that replacement (a sequential search
        ends on an evaluated point rarely, and evaluating it again can be what a noisy
        objective needs). Telling a point that is not pending (the asked one rounded,
        say) releases every pending point: the next ask proposes afresh, with the told
        point in the data.

        Parameters
        ----------
        n : int >= 1, optional
            Batch size. Without it, one point.

        Returns
        -------
        ndarray of shape (d,), or (n, d) with ``n``
            In the original domain.

        Examples
        --------
        >>> from kernelkit.optimize import BayesianOptimizer, get_function
        >>> f = get_function("branin")
        >>> opt = BayesianOptimizer(f, n_initial=3, random_state=0)
        >>> opt.ask(4).shape  # three design points and one chosen by the model
        (4, 2)
        >>> bool((opt.ask(4) == opt.ask(4)).all())  # pending until told
        True
        >>> opt.ask().shape  # the oldest pending point
        (2,)
        """
        if n is not None and (
            isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral)
        ):
            raise TypeError(
                f"n must be None (one point) or an integer >= 1 (a batch), got {type(n).__name__}"
            )
        k = 1 if n is None else int(n)
        if k < 1:
            raise ValueError(f"n must be >= 1 (the number of points in the batch), got {k}")
        if len(self._pending) < k:
            self._propose(k - len(self._pending), time.perf_counter(), distinct=n is not None)
        if n is None:
            return _copy_point(self._pending[0].x)
        if self._typed:
            return [list(p.x) for p in self._pending[:k]]
        return np.array([p.x for p in self._pending[:k]])

    def _propose(self, m: int, t0: float, *, distinct: bool) -> None:
        """Add ``m`` new pending points, one round: design points first, then the model's
        (``distinct``: never one already evaluated or pending)."""
        if self._design is None:
            self._design = self._initial_points()
        r = self._n_rounds
        self._n_rounds += 1
        for i in range(m):
            if self._design:
                self._add_pending(self._design.pop(0), t0, r, "initial")
            elif not any(np.isfinite(self._y)):  # nothing to model yet
                self._add_pending(self._random_unit(), t0, r, "random")
            else:
                # Every matrix here is small: multi-threaded BLAS only adds wake-up latency
                # (measured 7x slower on 2 busy cores), so hold it to one thread.
                with threadpool_limits(limits=1, user_api="blas"):
                    self._suggest(m - i, t0, r, distinct)
                return

    def _add_pending(
        self,
        u: np.ndarray,
        t0: float,
        r: int,
        source: str,
        acq_value: float = math.nan,
        xi: float = math.nan,
        step: AcquisitionStep | None = None,
    ) -> None:
        self._pending.append(_Pending(u, self._from_unit(u), acq_value, xi, t0, step, source, r))

    def _fixed_gp(self, kernel: Kernel, noise: float) -> GaussianProcessRegressor:
        """A surrogate with these hyperparameters, used as they are (not refitted)."""
        return GaussianProcessRegressor(
            kernel, noise=noise, noise_bounds="fixed", normalize_y=self.normalize_y, optimizer=None
        )

    def _suggest(self, m: int, t0: float, r: int, distinct: bool) -> None:
        """Choose ``m`` points by the acquisition, each conditioned on the pending ones."""
        U, g, ok = self._training_data()
        gp, g = self._fit(U, g)  # the hyperparameters: fitted to the evaluated data only
        self._models.append(
            ObjectiveModel(gp, 1.0 if self.maximize else -1.0, self.output_transform_)
        )
        if self.n_outcome_constraints:
            self._fit_constraints(U)
        if self._qnei_log is not None:
            self._suggest_noisy(gp, U, ok, m, t0, r)
            return
        for _ in range(m):
            gp_f, U_f, g_f, ok_f = self._with_fantasies(gp, U, g, ok)
            u, source, acq_value, xi, step = self._choose(gp_f, U_f, g_f, ok_f, distinct)
            self._add_pending(u, t0, r, source, acq_value, xi, step)

    def _fit_constraints(self, U: np.ndarray) -> None:
        """One GP per outcome constraint on the evaluations that returned values, warm
        started from the previous round's."""
        C = np.asarray(self._c, dtype=float).reshape(len(self._c), self.n_outcome_constraints)
        rows = np.isfinite(C).all(axis=1)
        previous = self._constraint_gps
        self._constraint_gps = []
        if not rows.any():
            return
        for j in range(self.n_outcome_constraints):
            old = previous[j] if j < len(previous) else None
            gp = GaussianProcessRegressor(
                self._kernel0 if old is None else old.kernel_,
                noise=self.noise if old is None else float(np.clip(old.noise_, 1e-12, 1.0)),
                noise_bounds=self.noise_bounds,
                normalize_y=True,
                n_restarts=self.n_restarts,
                random_state=self._rng.randint(2**31 - 1),
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                warnings.simplefilter("ignore", NumericalWarning)
                gp.fit(U[rows], C[rows, j])
            self._constraint_gps.append(gp)

    def _log_feasibility(self, X: np.ndarray) -> np.ndarray:
        """``sum_j log P(c_j(x) <= 0)`` under the constraints' GPs."""
        return log_probability_of_feasibility(self._constraint_gps, X)

    def _observed_feasible(self) -> np.ndarray:
        """Which evaluations met every outcome constraint (all, without constraints)."""
        if not self.n_outcome_constraints:
            return np.ones(len(self._y), dtype=bool)
        C = np.asarray(self._c, dtype=float).reshape(len(self._c), self.n_outcome_constraints)
        return np.all(C <= 0.0, axis=1)

    def _candidates(self, n: int, exclude: np.ndarray) -> np.ndarray:
        """``n`` distinct points of the cube (of the space, snapped and feasible, when
        typed or constrained) that repeat no row of ``exclude``."""
        if self._typed or self.input_constraints:
            C = self._space_points(n, "sobol")
        else:
            C = sobol_points(n, self._cube_dims, self._rng)
        C = np.unique(C, axis=0)
        return C[~_near_rows(C, exclude)]

    def _suggest_noisy(
        self,
        gp: GaussianProcessRegressor,
        U: np.ndarray,
        ok: np.ndarray,
        m: int,
        t0: float,
        r: int,
    ) -> None:
        """``m`` points by noisy expected improvement of the batch (qNEI or qLogNEI,
        :func:`~kernelkit.optimize.suggest_noisy_batch`): scored jointly by quasi-Monte
        Carlo over the posterior, never repeating an evaluated or pending point."""
        from kernelkit.optimize.noisy_ei import suggest_noisy_batch

        taken = np.vstack([U, *[p.u[None] for p in self._pending]])
        C = self._candidates(self.n_candidates, taken)
        if C.shape[0] < m:
            raise ValueError(
                f"acquisition={self.acquisition!r} found {C.shape[0]} point(s) of the space "
                f"not yet evaluated nor pending among {self.n_candidates} candidates, fewer "
                f"than the {m} asked for; ask for fewer, or raise n_candidates"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NumericalWarning)
            batch = suggest_noisy_batch(
                gp,
                C,
                m,
                X_baseline=U[ok],
                log=bool(self._qnei_log),
                n_starts=0 if self._space_search else 2,
                maximize=True,  # gp models g, which is maximised
                random_state=self._rng.randint(2**31 - 1),
            )
        for u, v in zip(batch.X, batch.values, strict=True):
            self._add_pending(u, t0, r, "acquisition", float(v))

    def _with_fantasies(
        self, gp: GaussianProcessRegressor, U: np.ndarray, g: np.ndarray, ok: np.ndarray
    ) -> tuple[GaussianProcessRegressor, np.ndarray, np.ndarray, np.ndarray]:
        """The surrogate conditioned on the pending points' fantasy values, its
        hyperparameters those of ``gp`` (Ginsbourger et al. 2010)."""
        if not self._pending:
            return gp, U, g, ok
        U_p = np.array([p.u for p in self._pending])
        if self.batch_strategy == "kriging_believer":
            # Conditioning on an observation equal to the posterior mean leaves the mean
            # unchanged (hyperparameters fixed), so the mean given the evaluated data is the
            # believer's value of each pending point, whether the fantasies are added one
            # at a time, as Ginsbourger et al. do, or together.
            g_p = posterior(gp, U_p).mean
        else:
            lie = float(_LIES[self.lie](np.asarray(self._y)[ok]))
            g_lie = self.output_transform_.transform(np.array([lie if self.maximize else -lie]))
            g_p = np.full(U_p.shape[0], float(g_lie[0]))
        U_f, g_f = np.vstack([U, U_p]), np.concatenate([g, g_p])
        gp_f = self._fixed_gp(gp.kernel_, gp.noise_)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NumericalWarning)
            gp_f.fit(U_f, g_f)
        return gp_f, U_f, g_f, np.concatenate([ok, np.ones(U_p.shape[0], dtype=bool)])

    def _choose(
        self,
        gp: GaussianProcessRegressor,
        U: np.ndarray,
        g: np.ndarray,
        ok: np.ndarray,
        distinct: bool,
    ) -> tuple[np.ndarray, str, float, float, AcquisitionStep | None]:
        """Maximise the acquisition of ``gp`` (trained on ``U``, ``g``): the point, its
        source, acquisition value, ``xi`` and step. With ``distinct``, a maximiser that
        repeats a row of ``U`` is replaced by a uniform random point."""
        # incumbent (eq. 2.17): best posterior mean among successfully sampled points
        # (and, with outcome constraints, feasible ones)
        constrained = self.n_outcome_constraints > 0
        n_obs = len(self._y)
        among = ok.copy()
        if constrained:
            among[:n_obs] &= self._observed_feasible()
            among[n_obs:] = False  # fantasies are not known to be feasible
        if among.any():
            best, i_inc = noisy_incumbent(gp, normalized=True, among=among)
        else:  # no feasible point yet: maximise the probability of feasibility alone
            best = math.nan
            i_inc = int(np.argmax(self._log_feasibility(U[:n_obs]))) if n_obs else 0
        if self._analytic_gradient:
            try:
                gp.kernel_.input_gradient(U[:1], U[:1])
            except NotImplementedError:  # L-BFGS-B falls back to finite differences
                self._analytic_gradient = False
        t = self._n_acq_steps
        self._n_acq_steps += 1
        # a point is proposed at most once in a space with integers or categories
        exclude = U if (distinct or self._discrete) else None
        greedy = bool(self.exploit_every and (t + 1) % self.exploit_every == 0)
        greedy = greedy and not constrained
        acq, xi = self.acquisition, math.nan
        u: np.ndarray | None = None
        if greedy:  # pure exploitation: the posterior mean (UCB with beta = 0)
            u = self._search(gp, UpperConfidenceBound(0.0), best, U[i_inc], exclude, False)
            # the mean peaks at a point already evaluated (or pending): nothing to learn there
            greedy = u is not None and not _repeats(u, U)
            if greedy:
                acq = UpperConfidenceBound(0.0)
        if not greedy:
            if self._schedule is not None:
                xi = self._schedule(t)
                assert isinstance(acq, ImprovementAcquisition)  # xi has a schedule
                acq = acq.with_xi(xi)
            u = self._search(gp, acq, best, U[i_inc], exclude, constrained)
            known_bad = U[:n_obs][~self._observed_feasible()] if constrained else U[:0]
            if u is None or (distinct and _repeats(u, U)) or _repeats(u, known_bad):
                # nothing new to propose, or a point already found infeasible
                return self._random_unit(), "random", math.nan, math.nan, None
        assert u is not None
        p = posterior(gp, u[None, :], normalized=True)
        acq_value = float(acq(p.mean, p.std, best)[0]) if math.isfinite(best) else math.nan
        step = AcquisitionStep(
            n_obs,
            U,
            g,
            gp.kernel_,
            gp.noise_,
            acq,
            best,
            u,
            greedy,
            U.shape[0] - n_obs,
            self.output_transform_,
        )
        return u, "greedy" if greedy else "acquisition", acq_value, xi, step

    def _search(
        self,
        gp: GaussianProcessRegressor,
        acq: Acquisition,
        best: float,
        u_inc: np.ndarray,
        exclude: np.ndarray | None = None,
        constrained: bool = False,
    ) -> np.ndarray | None:
        """Maximise ``acq`` (through ``acq.for_search()``) over the unit cube, or over the
        space's feasible points (``None`` if there is none that ``exclude`` leaves).

        With ``constrained`` the log probability of feasibility is added to the (log)
        acquisition, or maximised alone while ``best`` is ``nan`` (no feasible point)."""
        search = acq.for_search()
        feasible_only = constrained and not math.isfinite(best)

        def value(X: np.ndarray) -> np.ndarray:
            if feasible_only:
                return self._log_feasibility(X)
            p = posterior(gp, X, normalized=True)
            v = search(p.mean, p.std, best)
            return v + self._log_feasibility(X) if constrained else v

        def value_and_gradient(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            p = posterior(gp, X, return_gradient=True, normalized=True)
            return search.value_and_gradient(p.mean, p.std, best, p.mean_grad, p.std_grad)

        analytic = self._analytic_gradient and not constrained
        D = self._cube_dims
        scales = np.repeat(_LOCAL_SCALES, _LOCAL_PER_SCALE)[:, None]
        # the incumbent and perturbations of it: where the next improvement most often is
        extra = u_inc + scales * self._rng.standard_normal((scales.shape[0], D))
        if self._space_search:

            def allowed(Z: np.ndarray) -> np.ndarray:
                keep = self._feasible(Z)
                if exclude is not None and exclude.shape[0]:
                    keep &= ~_near_rows(Z, exclude)
                return keep

            z, v = maximize_on_space(
                value,
                value_and_gradient if analytic else None,
                self.space_,
                allowed=allowed,
                n_candidates=self.n_candidates,
                n_starts=self.n_starts,
                extra=np.clip(np.vstack([u_inc, extra]), 0.0, 1.0),
                random_state=self._rng,
            )
            return z if np.isfinite(v) else None
        u, _ = maximize_acquisition(
            value,
            value_and_gradient if analytic else None,
            np.tile([0.0, 1.0], (D, 1)),
            n_candidates=self.n_candidates,
            n_starts=self.n_starts,
            extra=np.vstack([u_inc, extra]),
            random_state=self._rng,
        )
        if self._typed:  # log-uniform reals: the same point after the round trip
            u = snap(self.space_, u[None])[0]
        return u

    def tell(self, x: Any, y: Any, *, error: str | None = None) -> None:
        """Record the value ``y`` of the objective at ``x`` (original domain).

        ``x`` is recorded as given. If it is a point :meth:`ask` returned (any pending
        point of a batch, in any order), the history keeps how that point was chosen and
        in which round; any other point (the asked one rounded to a grid, say, or an
        evaluation made elsewhere) is recorded with source ``"told"`` and round ``-1``
        and releases every pending point, so the next :meth:`ask` proposes new ones from
        all the data (scikit-optimize's behaviour).

        ``y`` must be a real number (see ``objective``); it may be ``None`` or
        non-finite for a failed evaluation (give the reason as ``error``); failures are
        kept in the history and, for the surrogate, imputed with the worst value seen so
        that the search moves away from them.

        Parameters
        ----------
        x : array-like of shape (d,) or (1, d)
            The evaluated point, in the original domain, inside ``bounds_``.
        y : float or None
            Its value; ``None``, NaN or an infinity for a failed evaluation.
        error : str or None, default=None
            Why the evaluation failed (recorded in the result's ``errors``).

        Raises
        ------
        ValueError
            If ``x`` is not a finite point of the box.
        TypeError
            If ``y`` is not a real number or ``None``.
        """
        if self._typed:
            x = self._check_space_point(x)
        else:
            x = self._check_box_point(x)
        k = self.n_outcome_constraints
        c = np.full(k, math.nan)
        if y is None:
            value = math.nan
        elif k and not isinstance(y, (tuple, list)):  # only a failure may come without c
            value = _real_number(y, "y")
            if math.isfinite(value):
                raise TypeError(
                    f"with n_outcome_constraints={k}, y must be a pair (value, "
                    f"constraint_values), or None or nan for a failed evaluation; got {y!r}"
                )
        elif k:
            value, c = _outcome(y, k)
        else:
            value = _real_number(y, "y")
        if not (math.isfinite(value) and np.isfinite(c).all()):
            value = math.nan
            c = np.full(k, math.nan)
            error = error or f"objective returned {y!r}"
        u_told = self._to_unit(x)
        asked = next((j for j, p in enumerate(self._pending) if self._same(x, u_told, p)), None)
        if asked is not None:
            # an asked point: keep its exact unit-cube coordinates (same trajectory as run)
            p = self._pending.pop(asked)
            u, x, source, r = p.u, p.x, p.source, p.round
            acq_value, xi, t = p.acquisition, p.xi, time.perf_counter() - p.t_start
            if p.step is not None:
                self._steps[len(self._y)] = p.step
        else:  # not an asked point: record it as itself and release the asked ones
            self._pending = []
            u, acq_value, xi, t = u_told, math.nan, math.nan, math.nan
            source, r = "told", -1
        self._U.append(u)
        self._sources.append(source)
        self._rounds.append(r)
        self._X.append(_copy_point(x))
        self._y.append(value)
        self._c.append(c)
        self._errors.append(error)
        self._acq.append(acq_value)
        self._xis.append(xi)
        self._time.append(t)

    def _same(self, x: Any, u: np.ndarray, pending: _Pending) -> bool:
        """Whether the told point ``x`` (cube point ``u``) is the pending one: equal up to
        ``1e-12`` of the box's width, or with the same cube point in a space."""
        if self._typed:
            return bool(np.allclose(u, self._to_unit(pending.x), rtol=0.0, atol=1e-12))
        lo, hi = self._box()
        atol = 1e-12 * float(np.max(hi - lo))
        return bool(np.allclose(x, pending.x, rtol=0.0, atol=atol))

    def _check_space_point(self, x: Any) -> list[Any]:
        """``x`` as a list of the space's values, or a clear error naming the dimension."""
        if isinstance(x, np.ndarray):
            x = x.tolist()
        if not isinstance(x, (list, tuple)):
            raise TypeError(
                f"x must be a point of the space (a list of {self.n_dims} values), got "
                f"{type(x).__name__}"
            )
        self.space_.validate(list(x))
        return list(x)

    def _check_box_point(self, x: Any) -> np.ndarray:
        """``x`` as a float point of the box, or a clear error."""
        d = self.n_dims
        if x is None or isinstance(x, (str, bytes)):
            raise TypeError(f"x must be a point with {d} coordinate(s), got {type(x).__name__}")
        x = check_array(x, "x", ndim=None, dtype=np.float64, allow_empty=True, finite=False)
        if x.ndim == 2 and x.shape[0] == 1:
            x = x[0]
        if x.ndim != 1 or x.shape[0] != d:
            raise ValueError(
                f"x must be a point with {d} coordinate(s) (shape ({d},)), got shape {x.shape}"
            )
        if not np.isfinite(x).all():
            raise ValueError("x must be finite")
        lo, hi = self._box()
        tol = 1e-9 * (hi - lo)
        out = np.flatnonzero((x < lo - tol) | (x > hi + tol))
        if out.size:
            i = int(out[0])
            raise ValueError(
                f"x is outside bounds: coordinate {i} is {x[i]:g}, not in [{lo[i]:g}, {hi[i]:g}]"
            )
        return x

    # ------------------------------------------------------------------ loop
    def run(
        self,
        n_calls: int,
        *,
        batch_size: int = 1,
        client: Any = None,
        progress_bar: bool = False,
    ) -> OptimizationResult:
        """Make ``n_calls`` more evaluations of the objective and return the result.

        The points of the initial design count among them, as ``n_calls`` counts them in
        scikit-optimize's ``gp_minimize``: ``run(30)`` on a fresh optimiser with
        ``n_initial=5`` makes 5 design evaluations and 25 model-guided ones.

        Parameters
        ----------
        n_calls : int >= 0
            Evaluations to make, exactly (the last round is smaller when ``batch_size``
            does not divide it).
        batch_size : int >= 1, default=1
            Evaluations per round: each round asks for a batch of this many points
            (``ask(batch_size)``, see ``batch_strategy``), evaluates them together and
            tells all of them before the next. ``1`` is sequential Bayesian optimisation.
            The result's ``rounds`` records the round of each evaluation.
        client : dask.distributed.Client, optional
            Evaluate each round's points concurrently on this Dask cluster (one task per
            point; the model is fitted here). The objective is sent to the workers, so it
            must be picklable by cloudpickle, as Dask pickles it: a function, a
            :class:`~kernelkit.optimize.functions.TestFunction` or a closure over
            picklable data, not an object holding a lock, an open file or a connection;
            failures inside it are recorded as in this process. The workers import what
            the objective needs. Without a client the points are evaluated in this
            process, one after another. The trajectory is the same either way for a
            deterministic objective: the choice of points never runs on the workers.
        progress_bar : bool, default=False
            A progress bar over the rounds (quiet when not on a terminal).

        Returns
        -------
        OptimizationResult
            The whole history, this run's evaluations last.

        Raises
        ------
        RuntimeError
            If every evaluation so far has failed.
        TypeError
            If ``client`` is not a ``dask.distributed.Client``.

        Examples
        --------
        >>> from kernelkit.optimize import BayesianOptimizer, get_function
        >>> f = get_function("branin")
        >>> res = BayesianOptimizer(f, random_state=0).run(13, batch_size=4)
        >>> res.n_calls, res.n_rounds
        (13, 4)
        >>> res.rounds.tolist()
        [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3]
        """
        if self.objective is None:
            raise ValueError("run needs an objective; with objective=None use ask() and tell()")
        check_int(n_calls, "n_calls", minimum=0)
        batch_size = check_int(batch_size, "batch_size", minimum=1)
        evaluate = _evaluator(self.objective, client, self.n_outcome_constraints)
        sizes: Any = [batch_size] * (n_calls // batch_size)
        if n_calls % batch_size:
            sizes.append(n_calls % batch_size)
        if progress_bar:
            sizes = progress(sizes, desc="bayesopt", total=len(sizes))
        for q in sizes:
            # batch_size=1 is the sequential step, ask() (which, unlike ask(n), may
            # propose an evaluated point again)
            X = [self.ask()] if batch_size == 1 else self.ask(q)
            for x, (y, error) in zip(X, evaluate(X), strict=True):
                self.tell(x, y, error=error)
        if self._y and not any(np.isfinite(self._y)):
            raise RuntimeError(
                f"all {len(self._y)} evaluations of the objective failed; first error: "
                f"{self._errors[0]}"
            )
        return self.result()

    def result(self) -> OptimizationResult:
        """The history so far as an :class:`OptimizationResult`.

        Returns
        -------
        OptimizationResult
            Every evaluation told so far. Its ``x_best`` and ``y_best`` raise
            scikit-learn's ``NotFittedError`` (a ``ValueError``) until an evaluation has
            succeeded: there is no best point before the first told value (this is what
            an optimiser without objective gives before any :meth:`tell`), nor while every
            evaluation has failed; ``X``, ``y`` and ``errors`` are always there.

        Examples
        --------
        >>> from kernelkit.optimize import BayesianOptimizer
        >>> opt = BayesianOptimizer(None, [(0.0, 1.0)])
        >>> opt.result().n_calls
        0
        >>> try:
        ...     opt.result().x_best
        ... except ValueError as exc:
        ...     print(type(exc).__name__, str(exc)[-37:])
        NotFittedError tell() an evaluation (or run()) first
        >>> opt.tell([0.25], 1.5)
        >>> opt.result().x_best, opt.result().y_best
        (array([0.25]), 1.5)
        """
        y = np.asarray(self._y, dtype=float)
        if self._discrete:  # the values themselves: ints and categories
            X = np.empty((len(self._X), self.n_dims), dtype=object)
            for i, x in enumerate(self._X):
                X[i, :] = x
        else:
            X = np.asarray(self._X, dtype=float).reshape(-1, self.n_dims)
        k = self.n_outcome_constraints
        return OptimizationResult(
            X=X,
            y=y,
            errors=list(self._errors),
            acquisition=np.asarray(self._acq, dtype=float),
            xi=np.asarray(self._xis, dtype=float),
            time=np.asarray(self._time, dtype=float),
            source=list(self._sources),
            rounds=np.asarray(self._rounds, dtype=int),
            n_initial=self.n_initial,
            maximize=self.maximize,
            space=self.space_,
            models=list(self._models),
            constraint_values=np.asarray(self._c, dtype=float).reshape(len(self._c), k)
            if k
            else None,
            _optimizer=self,
        )

    # ------------------------------------------------------------------ figures
    @property
    def acquisition_steps(self) -> list[int]:
        """Indices of the evaluations chosen by the acquisition (valid ``plot`` steps)."""
        return sorted(self._steps)

    def step_surrogate(self, step: int) -> tuple[GaussianProcessRegressor, AcquisitionStep]:
        """The surrogate behind evaluation ``step`` and what that step saw and chose.

        Parameters
        ----------
        step : int
            An evaluation chosen by the acquisition (one of :attr:`acquisition_steps`).

        Returns
        -------
        gp : GaussianProcessRegressor
            Refitted on the step's data with its stored hyperparameters (not re-optimised).
        step : AcquisitionStep
            What the step saw and chose.

        Raises
        ------
        ValueError
            ``step`` was not chosen by the acquisition.
        """
        if not self._steps:
            raise ValueError("no acquisition step yet: the initial design is still running")
        if step not in self._steps:
            raise ValueError(
                f"step {step} was not chosen by the acquisition; acquisition steps are "
                f"{min(self._steps)}..{max(self._steps)}"
            )
        s = self._steps[step]
        gp = self._fixed_gp(s.kernel, s.noise)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NumericalWarning)
            gp.fit(s.X, s.g)
        return gp, s

    def plot(self, step: int | None = None, **kw: Any) -> Any:
        """The seed's Figure 3 for 1-D problems at evaluation ``step`` (default: the last).

        Objective (for test functions, or with ``show_objective=True``), surrogate mean
        with a ``± sigma`` band, the points evaluated so far, and the acquisition below
        with the chosen next point marked.

        Parameters
        ----------
        step : int or None, default=None
            An evaluation chosen by the acquisition; ``None``: the last one.
        **kw
            Passed to :func:`kernelkit.optimize.plots.plot_step` (``show_objective``,
            ``n_grid``, ``axes``).

        Returns
        -------
        matplotlib Figure
            The figure.

        Raises
        ------
        ValueError
            No acquisition step yet, a ``step`` not chosen by the acquisition, or a
            problem that is not one-dimensional.
        """
        from kernelkit.optimize.plots import plot_step

        if step is None:
            if not self._steps:
                raise ValueError("no acquisition step yet: the initial design is still running")
            step = max(self._steps)
        return plot_step(self, step, **kw)
