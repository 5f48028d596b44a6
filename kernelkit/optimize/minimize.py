"""scikit-optimize's front door on kernelkit's Bayesian optimiser: :func:`gp_minimize` and
:class:`Optimizer` (``ask`` / ``tell``).

The names, arguments and defaults follow scikit-optimize's ``skopt.gp_minimize`` and
``skopt.Optimizer`` (archived in 2024), so that code written for it runs with the import
changed. Underneath is :class:`~kernelkit.optimize.BayesianOptimizer`: the spaces of
:mod:`kernelkit.optimize.space`, kernelkit's GP, and the acquisition search of
:mod:`kernelkit.optimize.mixed_search` on integer and categorical dimensions. The result
is an :class:`~kernelkit.optimize.OptimizationResult`, which has scikit-optimize's
``x``, ``fun``, ``x_iters``, ``func_vals``, ``space`` and ``models``.

What differs from scikit-optimize (see the docs' scikit-optimize page):

- ``acq_func="gp_hedge"`` (its default) is kernelkit's EI with greedy steps: one
  acquisition, measured at or below the regret of the hedge (benchmarks/RESULTS.md);
  ``"EIps"`` and ``"PIps"`` are not offered.
- ``xi`` and a float ``noise`` are on the scale of the standardised values (the
  surrogate standardises the observed values), not of the objective.
- ``acq_optimizer`` and ``n_jobs`` are accepted and ignored: the acquisition is searched
  by candidates and L-BFGS-B on the real coordinates, in this process.
- ``base_estimator`` may be ``None``, ``"GP"`` or a kernelkit kernel on the space's cube;
  scikit-optimize's forests and boosted trees are not offered.
- A failing evaluation (an exception, NaN) is recorded in the result's ``errors`` and the
  run goes on, where scikit-optimize stops with the exception.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
from typing import Any

import numpy as np

from kernelkit._validation import check_in, check_int
from kernelkit.kernels import Kernel
from kernelkit.optimize.acquisition import (
    ExpectedImprovement,
    ProbabilityOfImprovement,
    UpperConfidenceBound,
)
from kernelkit.optimize.bayesopt import BayesianOptimizer, OptimizationResult, _evaluate
from kernelkit.optimize.callbacks import check_callback, run_callbacks
from kernelkit.optimize.space import Space

__all__ = ["Optimizer", "gp_minimize"]

#: scikit-optimize's ``acq_func`` names kernelkit takes.
ACQ_FUNCS = ("gp_hedge", "EI", "PI", "LCB", "qNEI", "qLogNEI")
#: scikit-optimize's ``initial_point_generator`` names kernelkit takes.
INITIAL_POINT_GENERATORS = ("random", "sobol", "lhs", "halton")
#: ``Optimizer.ask`` batch strategies: the constant liar with the minimum, mean or maximum.
STRATEGIES = {"cl_min": "min", "cl_mean": "mean", "cl_max": "max"}


def _acquisition(acq_func: str, xi: float, kappa: float) -> Any:
    """kernelkit's acquisition for scikit-optimize's ``acq_func``."""
    if acq_func in ("EIps", "PIps"):
        raise ValueError(
            f"acq_func={acq_func!r} (per second) is not offered; use 'EI', 'PI', 'LCB', "
            "'gp_hedge', 'qNEI' or 'qLogNEI'"
        )
    check_in(acq_func, "acq_func", ACQ_FUNCS)
    if acq_func in ("gp_hedge", "EI"):
        return ExpectedImprovement(xi=xi)
    if acq_func == "PI":
        return ProbabilityOfImprovement(xi=xi)
    if acq_func == "LCB":  # minimising f: the LCB of f is the UCB of -f
        return UpperConfidenceBound(kappa)
    return acq_func.lower()


def _noise(noise: Any) -> tuple[float, Any]:
    """``(noise, noise_bounds)`` for scikit-optimize's ``noise``."""
    if isinstance(noise, str):
        check_in(noise, "noise", ("gaussian",))
        return 1e-4, (1e-12, 1.0)
    if (
        not isinstance(noise, numbers.Real)
        or isinstance(noise, bool)
        or not math.isfinite(float(noise))
        or noise < 0
    ):
        raise ValueError(
            f"noise must be 'gaussian' (fitted) or a variance >= 0 (fixed, on the scale of "
            f"the standardised values), got {noise!r}"
        )
    return max(float(noise), 1e-10), "fixed"


class Optimizer:
    """Ask for points, tell their values: scikit-optimize's ``Optimizer``.

    Parameters
    ----------
    dimensions : list or dict
        The search space, read as scikit-optimize reads it (:class:`Space`): ``(low,
        high)`` of ints is an ``Integer``, with a float a ``Real``; ``(low, high,
        "log-uniform")``; a list of other values a ``Categorical``; or the dimension
        objects.
    base_estimator : None, "GP" or Kernel, default=None
        The surrogate: kernelkit's GP with its default kernel (ARD Matérn 5/2 on the
        cube), or with this kernel.
    n_random_starts : int, optional
        The old name of ``n_initial_points`` in scikit-optimize; overrides it when
        given.
    n_initial_points : int, default=10
        Points of the initial design before the model chooses (``0``: none).
    initial_point_generator : {"random", "sobol", "lhs", "halton"}, default="random"
        The initial design: uniform draws, or a scrambled Sobol, Latin hypercube or
        scrambled Halton design of the space.
    n_jobs : int, default=1
        Accepted for compatibility; the search runs in this process.
    acq_func : {"gp_hedge", "EI", "PI", "LCB", "qNEI", "qLogNEI"}, default="gp_hedge"
        ``"gp_hedge"`` and ``"EI"`` are EI (with kernelkit's greedy steps), ``"LCB"`` the
        lower confidence bound with ``kappa``, ``"qNEI"`` / ``"qLogNEI"`` noisy EI of
        whole batches.
    acq_optimizer : str, default="auto"
        Accepted for compatibility.
    random_state : int, RandomState or None
        Seeds the design, the surrogate's restarts and the searches.
    model_queue_size : int or None, default=None
        Keep only the last this many models in the result (all by default).
    space_constraint : callable, optional
        ``space_constraint(x) -> bool``: only such points are proposed (an input
        constraint; see ``input_constraints``).
    acq_func_kwargs : dict, optional
        ``xi`` (default 0.01) and ``kappa`` (default 1.96).
    acq_optimizer_kwargs : dict, optional
        ``n_points`` (candidates, default 10000, capped at 4096) and
        ``n_restarts_optimizer`` (default 5).
    avoid_duplicates : bool, default=True
        Accepted for compatibility: a point with integer or categorical values is never
        proposed twice, and a batch's points are always distinct.
    noise : "gaussian" or float, default="gaussian"
        Fitted observation noise, or a fixed variance (standardised scale).
    input_constraints : LinearConstraint, callable or list, optional
        More known constraints (:class:`~kernelkit.optimize.BayesianOptimizer`).
    n_outcome_constraints : int, default=0
        Black-box constraints returned with each value (``tell(x, (value, [c...]))``).
    output_transform : {"auto", "power", "rank", "none"}, default="auto"
        The map of the values before the GP models them
        (:class:`~kernelkit.optimize.BayesianOptimizer`; scikit-optimize has none).

    Attributes
    ----------
    space : Space
    Xi : list of lists
        The points told so far.
    yi : list
        Their values.
    models : list
        The surrogate of each model round (:class:`~kernelkit.optimize.surrogate.ObjectiveModel`).

    Examples
    --------
    >>> from kernelkit.optimize import Optimizer
    >>> opt = Optimizer([(-2.0, 2.0), (0, 5), ["a", "b"]], n_initial_points=4, random_state=0)
    >>> for _ in range(12):
    ...     x = opt.ask()
    ...     res = opt.tell(x, (x[0] - 0.5) ** 2 + abs(x[1] - 2) + (x[2] == "b"))
    >>> len(res.x_iters), res.x[1:]
    (12, [2, 'a'])
    >>> len(opt.ask(n_points=3))  # a batch, by the constant liar
    3
    """

    def __init__(
        self,
        dimensions: Any,
        base_estimator: Any = None,
        n_random_starts: int | None = None,
        n_initial_points: int = 10,
        initial_point_generator: str = "random",
        n_jobs: int = 1,
        acq_func: str = "gp_hedge",
        acq_optimizer: str = "auto",
        random_state: Any = None,
        model_queue_size: int | None = None,
        space_constraint: Any = None,
        acq_func_kwargs: dict[str, Any] | None = None,
        acq_optimizer_kwargs: dict[str, Any] | None = None,
        avoid_duplicates: bool = True,
        *,
        noise: Any = "gaussian",
        input_constraints: Any = None,
        n_outcome_constraints: int = 0,
        output_transform: str = "auto",
    ) -> None:
        self.space = dimensions if isinstance(dimensions, Space) else Space(dimensions)
        if base_estimator is not None and not (
            isinstance(base_estimator, Kernel)
            or (isinstance(base_estimator, str) and base_estimator.upper() == "GP")
        ):
            raise ValueError(
                "base_estimator must be None, 'GP' or a kernelkit Kernel on the space's "
                f"cube; scikit-optimize's forests and trees are not offered, got "
                f"{base_estimator!r}"
            )
        if n_random_starts is not None:  # scikit-optimize's old name
            n_initial_points = n_random_starts
        self.n_initial_points = check_int(n_initial_points, "n_initial_points", minimum=0)
        check_in(initial_point_generator, "initial_point_generator", INITIAL_POINT_GENERATORS)
        acq_func_kwargs = dict(acq_func_kwargs or {})
        acq_optimizer_kwargs = dict(acq_optimizer_kwargs or {})
        xi = float(acq_func_kwargs.pop("xi", 0.01))
        kappa = float(acq_func_kwargs.pop("kappa", 1.96))
        n_points = check_int(acq_optimizer_kwargs.pop("n_points", 10000), "n_points", minimum=1)
        n_restarts = check_int(
            acq_optimizer_kwargs.pop("n_restarts_optimizer", 5), "n_restarts_optimizer", minimum=0
        )
        self.model_queue_size = (
            None
            if model_queue_size is None
            else check_int(model_queue_size, "model_queue_size", minimum=1)
        )
        constraints = [] if input_constraints is None else input_constraints
        if not isinstance(constraints, (list, tuple)):
            constraints = [constraints]
        if space_constraint is not None:
            if not callable(space_constraint):
                raise TypeError(
                    "space_constraint must be a callable x -> bool, got "
                    f"{type(space_constraint).__name__}"
                )
            constraints = [*constraints, space_constraint]
        acquisition = _acquisition(acq_func, xi, kappa)
        noise_value, noise_bounds = _noise(noise)
        self.acq_func = acq_func
        self._bo = BayesianOptimizer(
            None,
            self.space,
            kernel=base_estimator if isinstance(base_estimator, Kernel) else None,
            acquisition=acquisition,
            n_initial=self.n_initial_points,
            initial_design=initial_point_generator,
            noise=noise_value,
            noise_bounds=noise_bounds,
            n_candidates=min(n_points, 4096),
            n_starts=n_restarts,
            input_constraints=constraints or None,
            n_outcome_constraints=n_outcome_constraints,
            output_transform=output_transform,
            batch_strategy="constant_liar",
            random_state=random_state,
        )

    # -- history
    @property
    def Xi(self) -> list[list[Any]]:
        """The points told so far."""
        return self._bo.result().x_iters

    @property
    def yi(self) -> list[Any]:
        """Their values."""
        return self._bo.result().func_vals.tolist()

    @property
    def models(self) -> list[Any]:
        """The surrogate of each model round (the last ``model_queue_size``)."""
        return self.get_result().models

    # -- ask / tell
    def ask(self, n_points: int | None = None, strategy: str = "cl_min") -> Any:
        """The next point, or ``n_points`` points to evaluate together.

        Parameters
        ----------
        n_points : int, optional
            A batch of this many distinct points.
        strategy : {"cl_min", "cl_mean", "cl_max"}, default="cl_min"
            The batch's constant liar: each chosen point is given the minimum, mean or
            maximum of the values so far while the next is chosen (ignored by qNEI,
            which chooses the batch jointly).

        Returns
        -------
        list or list of lists
            One point (a list of values), or ``n_points`` of them.
        """
        self._bo.lie = STRATEGIES[check_in(strategy, "strategy", tuple(STRATEGIES))]
        return self._bo.ask(n_points)

    def tell(self, x: Any, y: Any, fit: bool = True) -> OptimizationResult:
        """Record values: one point and its value, or lists of both.

        Parameters
        ----------
        x : list or list of lists
            A point, or several.
        y : float or list of floats
            Its value, or theirs (pairs ``(value, constraint values)`` with outcome
            constraints; ``nan`` or ``None`` for a failed evaluation).
        fit : bool, default=True
            Accepted for compatibility: the model is fitted at the next ``ask``.

        Returns
        -------
        OptimizationResult
            The history so far.
        """
        if _is_list_of_points(x, self.space):
            ys = list(y) if isinstance(y, (list, tuple, np.ndarray)) else None
            if ys is None or len(ys) != len(x):
                raise ValueError(
                    f"tell got {len(x)} points, so y must hold {len(x)} values, got {y!r}"
                )
            for xi, yi in zip(x, ys, strict=True):
                self._bo.tell(list(xi), yi)
        else:
            self._bo.tell(x, y)
        return self.get_result()

    def run(self, func: Any, n_iter: int = 1) -> OptimizationResult:
        """``n_iter`` rounds of ask, evaluate ``func`` and tell.

        Parameters
        ----------
        func : callable
            The objective, ``func(x)`` for ``x`` a list of values.
        n_iter : int, default=1
            Evaluations to make.

        Returns
        -------
        OptimizationResult
            The history so far.
        """
        for _ in range(check_int(n_iter, "n_iter", minimum=0)):
            x = self.ask()
            y, error = _evaluate(func, x, self._bo.n_outcome_constraints)
            self._bo.tell(x, y, error=error)
        return self.get_result()

    def get_result(self) -> OptimizationResult:
        """The history so far.

        Returns
        -------
        OptimizationResult
            Every told point, with ``models`` cut to the last ``model_queue_size``.
        """
        res = self._bo.result()
        if self.model_queue_size is not None and len(res.models) > self.model_queue_size:
            res = dataclasses.replace(res, models=res.models[-self.model_queue_size :])
        return res


def _is_list_of_points(x: Any, space: Space) -> bool:
    """Whether ``x`` is a list of points rather than one point of ``space``."""
    if isinstance(x, np.ndarray):
        return x.ndim == 2
    return (
        isinstance(x, (list, tuple))
        and len(x) > 0
        and all(isinstance(p, (list, tuple, np.ndarray)) for p in x)
        and not (space.n_dims == len(x) and x in space)
    )


def gp_minimize(
    func: Any,
    dimensions: Any,
    base_estimator: Any = None,
    n_calls: int = 100,
    n_random_starts: int | None = None,
    n_initial_points: int = 10,
    initial_point_generator: str = "random",
    acq_func: str = "gp_hedge",
    acq_optimizer: str = "auto",
    x0: Any = None,
    y0: Any = None,
    random_state: Any = None,
    verbose: bool = False,
    callback: Any = None,
    n_points: int = 10000,
    n_restarts_optimizer: int = 5,
    xi: float = 0.01,
    kappa: float = 1.96,
    noise: Any = "gaussian",
    n_jobs: int = 1,
    model_queue_size: int | None = None,
    space_constraint: Any = None,
    *,
    input_constraints: Any = None,
    n_outcome_constraints: int = 0,
    output_transform: str = "auto",
) -> OptimizationResult:
    """Minimise ``func`` over ``dimensions`` by Bayesian optimisation with a GP:
    scikit-optimize's ``gp_minimize``.

    ``x0`` (with ``y0``: told; without: evaluated first, counted in ``n_calls``), then
    ``n_initial_points`` points of the initial design, then points chosen by the
    acquisition on the GP fitted to everything so far, ``n_calls`` evaluations in all.

    Parameters
    ----------
    func : callable
        ``func(x) -> float`` for ``x`` a list with one value per dimension (with
        ``n_outcome_constraints``, ``(value, [c_1, ...])``, feasible where every
        ``c_j <= 0``).
    dimensions : list or dict
        The space, read as scikit-optimize reads it (:class:`Optimizer`).
    base_estimator : None, "GP" or Kernel, default=None
        The surrogate's kernel (:class:`Optimizer`).
    n_calls : int, default=100
        Evaluations of ``func``, ``x0``'s included.
    n_random_starts : int, optional
        The old name of ``n_initial_points`` in scikit-optimize.
    n_initial_points : int, default=10
        Points of the initial design.
    initial_point_generator : {"random", "sobol", "lhs", "halton"}, default="random"
        The initial design.
    acq_func : {"gp_hedge", "EI", "PI", "LCB", "qNEI", "qLogNEI"}, default="gp_hedge"
        The acquisition (:class:`Optimizer`).
    acq_optimizer : str, default="auto"
        Accepted for compatibility.
    x0 : list or list of lists, optional
        Points to start from.
    y0 : float or list, optional
        Their values, if known.
    random_state : int, RandomState or None
        Seeds the whole run.
    verbose : bool, default=False
        Print each evaluation's value and time.
    callback : callable or list of callables, optional
        ``callback(result)`` after each evaluation; ``True`` stops the run
        (:mod:`kernelkit.optimize.callbacks`).
    n_points : int, default=10000
        Candidates of the acquisition search (at most 4096 are scored).
    n_restarts_optimizer : int, default=5
        Local searches from the best candidates.
    xi : float, default=0.01
        EI's and PI's margin (standardised scale).
    kappa : float, default=1.96
        LCB's multiple of the standard deviation.
    noise : "gaussian" or float, default="gaussian"
        Fitted observation noise, or a fixed variance (standardised scale).
    n_jobs : int, default=1
        Accepted for compatibility.
    model_queue_size : int or None, default=None
        Keep only the last this many models.
    space_constraint : callable, optional
        ``space_constraint(x) -> bool``: only such points are proposed.
    input_constraints : LinearConstraint, callable or list, optional
        More known constraints (:class:`~kernelkit.optimize.BayesianOptimizer`).
    n_outcome_constraints : int, default=0
        Black-box constraints returned with each value.
    output_transform : {"auto", "power", "rank", "none"}, default="auto"
        The map of the values before the GP models them
        (:class:`~kernelkit.optimize.BayesianOptimizer`; scikit-optimize has none).

    Returns
    -------
    OptimizationResult
        With ``x``, ``fun``, ``x_iters``, ``func_vals``, ``space`` and ``models``.

    Raises
    ------
    ValueError
        ``n_calls`` smaller than the evaluations ``x0`` and the initial design need,
        ``y0`` of another length than ``x0``, or a bad option (named).

    Examples
    --------
    >>> from kernelkit.optimize import gp_minimize
    >>> def f(x):
    ...     return (x[0] - 0.3) ** 2 + (x[1] - 3) ** 2 + (x[2] != "b")
    >>> res = gp_minimize(f, [(-1.0, 1.0), (0, 6), ["a", "b", "c"]], n_calls=20,
    ...                   n_initial_points=6, random_state=0)
    >>> res.x[1:], bool(res.fun < 0.05), len(res.func_vals)
    ([3, 'b'], True, 20)
    """
    n_calls = check_int(n_calls, "n_calls", minimum=0)
    if not callable(func):
        raise TypeError(f"func must be callable, got {type(func).__name__}")
    callbacks = check_callback(callback)
    opt = Optimizer(
        dimensions,
        base_estimator=base_estimator,
        n_random_starts=n_random_starts,
        n_initial_points=n_initial_points,
        initial_point_generator=initial_point_generator,
        n_jobs=n_jobs,
        acq_func=acq_func,
        acq_optimizer=acq_optimizer,
        random_state=random_state,
        model_queue_size=model_queue_size,
        space_constraint=space_constraint,
        acq_func_kwargs={"xi": xi, "kappa": kappa},
        acq_optimizer_kwargs={"n_points": n_points, "n_restarts_optimizer": n_restarts_optimizer},
        noise=noise,
        input_constraints=input_constraints,
        n_outcome_constraints=n_outcome_constraints,
        output_transform=output_transform,
    )
    points = _initial_list(x0, opt.space)
    values = (
        None if y0 is None else (list(y0) if isinstance(y0, (list, tuple, np.ndarray)) else [y0])
    )
    if values is not None and len(values) != len(points):
        raise ValueError(f"y0 must hold one value per point of x0 ({len(points)}), got {y0!r}")
    needed = opt.n_initial_points + (len(points) if values is None else 0)
    if n_calls < needed:
        raise ValueError(
            f"n_calls={n_calls} is fewer than the {needed} evaluations that x0 and "
            f"n_initial_points need; raise n_calls"
        )
    if values is not None:
        opt.tell(points, values)
        points = []
    # the optimiser keeps the objective, so that a checkpoint's result can go on:
    # load(path).optimizer.run(n) makes the points an uninterrupted run would
    opt._bo.objective = func
    k = opt._bo.n_outcome_constraints
    for i in range(n_calls):
        t0 = time.perf_counter()
        x = points[i] if i < len(points) else opt.ask()
        y, error = _evaluate(func, x, k)
        opt._bo.tell(x, y, error=error)
        res = opt.get_result()
        if verbose:
            print(
                f"Iteration No: {i + 1} ended. Function value: {res.func_vals[-1]:.4g}, "
                f"best so far: {np.nanmin(res.func_vals):.4g}, "
                f"{time.perf_counter() - t0:.3f} s"
            )
        if callbacks and run_callbacks(callbacks, res):
            break
    return opt.get_result()


def _initial_list(x0: Any, space: Space) -> list[list[Any]]:
    """``x0`` as a list of points (a single point becomes a list of one)."""
    if x0 is None:
        return []
    if isinstance(x0, np.ndarray):
        x0 = x0.tolist()
    if not isinstance(x0, (list, tuple)) or len(x0) == 0:
        raise ValueError(f"x0 must be a point or a list of points, got {x0!r}")
    if all(isinstance(p, (list, tuple)) for p in x0):
        points = [list(p) for p in x0]
    else:
        points = [list(x0)]
    for i, p in enumerate(points):
        try:
            space.validate(p)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"x0[{i}]: {exc}") from None
    return points
