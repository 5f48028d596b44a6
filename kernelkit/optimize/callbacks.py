"""Callbacks of an optimisation loop: early stopping, checkpoints, saving and loading.

A callback is any callable ``callback(result)``, called with the
:class:`~kernelkit.optimize.OptimizationResult` so far after each evaluation (after each
round of a batch run); returning ``True`` asks the loop to stop. The stoppers and the
checkpoint saver here have the names, arguments and stopping rules of
scikit-optimize's ``skopt.callbacks`` (version 0.10), so code written for it keeps
working with the import changed; the implementation is kernelkit's own.

:func:`check_callback` and :func:`run_callbacks` are what a loop uses to accept
``callback=`` (``None``, one callable or a list of them) and to ask every callback
whether to stop.

:func:`dump` and :func:`load` store a result with :mod:`joblib` (scikit-optimize's
``skopt.dump`` and ``skopt.load``): the result, its search space and its fitted
surrogates, and by default the optimiser with its objective. Files are pickles: load
only files you trust.
"""

from __future__ import annotations

import copy
import gzip
import inspect
import os
import pickle
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._validation import check_int, check_positive_scalar
from kernelkit.optimize.bayesopt import OptimizationResult
from kernelkit.optimize.space import Categorical

__all__ = [
    "CheckpointSaver",
    "DeadlineStopper",
    "DeltaXStopper",
    "DeltaYStopper",
    "EarlyStopper",
    "check_callback",
    "dump",
    "load",
    "point_distance",
    "run_callbacks",
]


# ------------------------------------------------------------------ the loop's helpers
def check_callback(callback: Any) -> list[Callable[[Any], Any]]:
    """The callbacks of ``callback=`` as a list.

    Parameters
    ----------
    callback : callable, list of callables or None
        What a user passed as ``callback``: nothing, one callable, or a list (or tuple)
        of them.

    Returns
    -------
    list of callables
        ``[]`` for ``None``, ``[callback]`` for one callable, a new list otherwise.

    Raises
    ------
    TypeError
        ``callback`` is none of these, or an item of the list is not callable.

    Examples
    --------
    >>> check_callback(None)
    []
    >>> len(check_callback([DeltaYStopper(0.1), print]))
    2
    >>> check_callback("stop")
    Traceback (most recent call last):
    ...
    TypeError: callback must be None, a callable or a list of callables, got str 'stop'
    """
    if callback is None:
        return []
    if callable(callback):
        return [callback]
    if isinstance(callback, (list, tuple)):
        for i, c in enumerate(callback):
            if not callable(c):
                raise TypeError(f"callback[{i}] must be callable, got {type(c).__name__} {c!r}")
        return list(callback)
    raise TypeError(
        "callback must be None, a callable or a list of callables, got "
        f"{type(callback).__name__} {callback!r}"
    )


def run_callbacks(callbacks: Any, result: Any) -> bool:
    """Call every callback with ``result``; whether any of them asks to stop.

    Every callback is called, in order, even after one has asked to stop (so that a
    :class:`CheckpointSaver` after a stopper still saves the last state), as
    scikit-optimize's loop does.

    Parameters
    ----------
    callbacks : callable, list of callables or None
        As :func:`check_callback` accepts them.
    result : OptimizationResult
        The result so far.

    Returns
    -------
    bool
        ``True`` if a callback returned a true value (``None`` and ``False`` mean
        "go on").

    Raises
    ------
    TypeError
        ``callbacks`` is not accepted by :func:`check_callback`.

    Examples
    --------
    >>> from kernelkit.optimize import BayesianOptimizer
    >>> opt = BayesianOptimizer(None, [(0.0, 1.0)])
    >>> opt.tell([0.5], 1.0)
    >>> run_callbacks([lambda res: None, lambda res: res.n_calls >= 1], opt.result())
    True
    """
    stop = False
    for callback in check_callback(callbacks):
        if callback(result):
            stop = True
    return stop


# ------------------------------------------------------------------ stoppers
class EarlyStopper:
    """Base of the stoppers: ``stopper(result)`` is ``self._criterion(result)``.

    A new stopper fills in ``_criterion(result) -> bool`` (the hook scikit-optimize's
    ``EarlyStopper`` subclasses fill in, so those subclasses port unchanged).

    Examples
    --------
    >>> class AfterTen(EarlyStopper):
    ...     def _criterion(self, result):
    ...         return result.n_calls >= 10
    >>> isinstance(AfterTen(), EarlyStopper)
    True
    """

    def __call__(self, result: Any) -> bool:
        """Whether to stop, given the result so far.

        Parameters
        ----------
        result : OptimizationResult
            The result so far.

        Returns
        -------
        bool
            ``True`` to stop.
        """
        return bool(self._criterion(result))

    def _criterion(self, result: Any) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must define _criterion(result)")


def _finite_values(result: Any) -> np.ndarray:
    """The successful values of ``result``, best first (lowest, or highest with
    ``maximize``)."""
    y = np.asarray(result.func_vals, dtype=float)
    y = y[np.isfinite(y)]
    return -np.sort(-y) if getattr(result, "maximize", False) else np.sort(y)


class DeltaYStopper(EarlyStopper):
    """Stop once the ``n_best`` best values lie within ``delta`` of each other.

    After each evaluation the successful values are sorted from the best; the stopper
    asks to stop when the ``n_best``-th best is less than ``delta`` from the best,
    ``|y_(n_best) - y_(1)| < delta`` (strictly, as scikit-optimize's ``DeltaYStopper``),
    i.e. when the last improvements have become smaller than ``delta``. Failed
    evaluations (``nan``) do not count; with ``maximize`` the best are the largest.

    Parameters
    ----------
    delta : float > 0
        The spread, in units of the objective, below which to stop.
    n_best : int >= 2, default=5
        How many of the best values must lie within ``delta``.

    Raises
    ------
    ValueError
        ``delta <= 0`` or not finite, ``n_best < 2``.
    TypeError
        ``delta`` not a number, ``n_best`` not an integer.

    Examples
    --------
    >>> from kernelkit.optimize import BayesianOptimizer
    >>> opt = BayesianOptimizer(None, [(0.0, 1.0)])
    >>> stop = DeltaYStopper(0.1, n_best=3)
    >>> for x, y in [(0.1, 3.0), (0.2, 1.0), (0.3, 1.05)]:
    ...     opt.tell([x], y)
    >>> stop(opt.result())  # best three: 1.0, 1.05, 3.0
    False
    >>> opt.tell([0.4], 1.02)
    >>> stop(opt.result())  # best three: 1.0, 1.02, 1.05
    True
    """

    def __init__(self, delta: float, n_best: int = 5) -> None:
        self.delta = check_positive_scalar(delta, "delta")
        self.n_best = check_int(n_best, "n_best", minimum=2)

    def _criterion(self, result: Any) -> bool:
        y = _finite_values(result)
        if y.size < self.n_best:
            return False
        return bool(abs(y[self.n_best - 1] - y[0]) < self.delta)

    def __repr__(self) -> str:
        return f"DeltaYStopper(delta={self.delta!r}, n_best={self.n_best})"


def point_distance(space: Any, a: Any, b: Any) -> float:
    """The distance between two points of a space, as scikit-optimize measures it.

    The sum over the dimensions of ``|a_j - b_j|`` for a ``Real`` or ``Integer`` (in the
    dimension's own units) and of ``0`` (same category) or ``1`` for a ``Categorical``
    (``skopt.space.Space.distance``).

    Parameters
    ----------
    space : Space or None
        The search space; ``None``: every coordinate numeric.
    a, b : sequence
        Two points, one value per dimension.

    Returns
    -------
    float
        The distance.

    Examples
    --------
    >>> from kernelkit.optimize import Space
    >>> point_distance(Space([(0.0, 1.0), (1, 9), ["a", "b"]]), [0.25, 3, "a"], [0.5, 1, "b"])
    3.25
    """
    if space is None:
        return float(np.sum(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))))
    total = 0.0
    for dim, u, v in zip(space.dimensions, a, b, strict=True):
        if isinstance(dim, Categorical):
            total += 0.0 if np.array_equal(dim.transform([u]), dim.transform([v])) else 1.0
        else:
            total += abs(float(u) - float(v))
    return total


class DeltaXStopper(EarlyStopper):
    """Stop once the last two evaluated points are closer than ``delta``.

    The distance is scikit-optimize's (:func:`point_distance`): the sum of the absolute
    differences of the coordinates in their own units, a differing category counting
    1. The stopper asks to stop when it is less than ``delta`` (strictly, as
    scikit-optimize's ``DeltaXStopper``): the search has settled on a point.

    Parameters
    ----------
    delta : float > 0
        The distance below which to stop.

    Raises
    ------
    ValueError
        ``delta <= 0`` or not finite.
    TypeError
        ``delta`` not a number.

    Examples
    --------
    >>> from kernelkit.optimize import BayesianOptimizer
    >>> opt = BayesianOptimizer(None, [(0.0, 1.0), (0.0, 1.0)])
    >>> opt.tell([0.2, 0.2], 1.0)
    >>> opt.tell([0.5, 0.5], 0.5)
    >>> DeltaXStopper(0.01)(opt.result())
    False
    >>> opt.tell([0.501, 0.502], 0.4)  # 0.001 + 0.002 from the previous point
    >>> DeltaXStopper(0.01)(opt.result())
    True
    """

    def __init__(self, delta: float) -> None:
        self.delta = check_positive_scalar(delta, "delta")

    def _criterion(self, result: Any) -> bool:
        points = result.x_iters
        if len(points) < 2:
            return False
        space = getattr(result, "space", None)
        return point_distance(space, points[-2], points[-1]) < self.delta

    def __repr__(self) -> str:
        return f"DeltaXStopper(delta={self.delta!r})"


class DeadlineStopper(EarlyStopper):
    """Stop before a budget of wall-clock time runs out.

    Time is measured as scikit-optimize's ``DeadlineStopper`` measures it: on the wall
    clock, by the stopper itself, from its creation to its first call and then between
    consecutive calls (``iter_time``). So it counts everything the loop spends, fitting
    the surrogate and searching the acquisition included, not only the evaluations, and
    the clock starts when the stopper is made: make it just before the run. (The
    result's per-evaluation ``time`` is not used: it leaves out the time between a
    ``tell`` and the next ``ask``, and is ``nan`` for points told unasked.)

    The stopper asks to stop when the time left, ``total_time - sum(iter_time)``, is at
    most the longest iteration so far, ``max(iter_time)``: the expected cost of one
    more iteration, pessimistically.

    Parameters
    ----------
    total_time : float > 0
        The budget, in seconds.

    Attributes
    ----------
    iter_time : list of float
        The seconds before each call (the first: since the stopper was made).

    Raises
    ------
    ValueError
        ``total_time <= 0`` or not finite.
    TypeError
        ``total_time`` not a number.

    Examples
    --------
    >>> from kernelkit.optimize import BayesianOptimizer, get_function
    >>> f = get_function("forrester")
    >>> opt = BayesianOptimizer(f, random_state=0)
    >>> deadline = DeadlineStopper(total_time=60.0)
    >>> for _ in range(3):
    ...     x = opt.ask()
    ...     opt.tell(x, f(x))
    ...     if deadline(opt.result()):
    ...         break
    >>> len(deadline.iter_time)  # three fast evaluations: no stop
    3
    """

    def __init__(self, total_time: float) -> None:
        self.total_time = check_positive_scalar(total_time, "total_time")
        self.iter_time: list[float] = []
        self._last = time.monotonic()

    def _criterion(self, result: Any) -> bool:
        now = time.monotonic()
        self.iter_time.append(now - self._last)
        self._last = now
        if not len(result.x_iters):
            return False
        left = self.total_time - float(np.sum(self.iter_time))
        return left <= max(self.iter_time)

    def __repr__(self) -> str:
        return f"DeadlineStopper(total_time={self.total_time!r})"


# ------------------------------------------------------------------ saving and loading
def _check_path(path: Any, name: str) -> Path:
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(path).__name__}")
    path = Path(path)
    if str(path) in ("", "."):
        raise ValueError(f"{name} must name a file, got {str(path)!r}")
    return path


def _joblib() -> Any:
    """The joblib module, or ``None`` when it is not installed."""
    try:
        import joblib
    except ImportError:  # pragma: no cover - joblib comes with scikit-learn
        return None
    return joblib


def _without_objective(result: OptimizationResult) -> OptimizationResult:
    """A copy of ``result`` whose optimiser (itself a shallow copy) has no objective;
    ``result`` and its optimiser are left as they are."""
    optimizer = result._optimizer
    if optimizer is None or getattr(optimizer, "objective", None) is None:
        return result
    clone = copy.copy(optimizer)
    clone.objective = None
    return replace(result, _optimizer=clone)


def dump(result: Any, filename: Any, store_objective: bool = True, **kwargs: Any) -> None:
    """Store an optimisation result in a file (scikit-optimize's ``skopt.dump``).

    The file holds the whole result: the history, the search space, the fitted
    surrogates (``models``) and the optimiser that made it, which keeps the objective.
    It is written with ``joblib.dump`` (compressed by the file's extension, ``.gz``,
    ``.z``, ``.bz2``, ``.xz`` or ``.lzma``, or by ``compress=``) to a temporary file
    beside ``filename`` that then replaces it, so an interrupted dump never leaves a
    half-written checkpoint. Without joblib, a pickle, gzip-compressed for ``.gz``.

    Parameters
    ----------
    result : OptimizationResult
        The result to store.
    filename : str or os.PathLike
        The file to write (replaced if it exists).
    store_objective : bool, default=True
        Store the objective with the optimiser. ``False`` stores a copy of the result
        whose optimiser has ``objective = None`` (for an objective that cannot be
        pickled: a lambda, a local function, an object holding a connection); the
        result passed in is not changed.
    **kwargs
        Passed to ``joblib.dump`` (e.g. ``compress=3``).

    Raises
    ------
    TypeError
        ``result`` is not an ``OptimizationResult``, ``filename`` is not a path, or the
        result cannot be pickled (the message suggests ``store_objective=False``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kernelkit.optimize import BayesianOptimizer, get_function
    >>> res = BayesianOptimizer(get_function("forrester"), random_state=0).run(8)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "result.pkl.gz"
    >>> dump(res, path, store_objective=False)
    >>> loaded = load(path)
    >>> loaded.x_iters == res.x_iters, loaded.fun == res.fun
    (True, True)
    >>> loaded._optimizer.objective is None, res._optimizer.objective is not None
    (True, True)
    """
    if not isinstance(result, OptimizationResult):
        raise TypeError(
            f"result must be an OptimizationResult (from BayesianOptimizer.run or "
            f".result()), got {type(result).__name__}"
        )
    path = _check_path(filename, "filename")
    if not isinstance(store_objective, (bool, np.bool_)):
        raise TypeError(f"store_objective must be a bool, got {type(store_objective).__name__}")
    if not store_objective:
        result = _without_objective(result)
    # same extension, so that joblib picks the same compression
    joblib = _joblib()
    allowed = set()
    if joblib is not None:
        allowed = set(inspect.signature(joblib.dump).parameters) - {"value", "filename"}
    for key in kwargs:
        if key not in allowed:
            raise TypeError(
                f"dump got an unexpected keyword argument {key!r}; the keywords passed on "
                f"to joblib.dump are {', '.join(sorted(allowed)) or 'none (no joblib)'}"
            )
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.partial{path.suffix}")
    try:
        if joblib is not None:
            joblib.dump(result, tmp, **kwargs)
        else:
            opener: Any = gzip.open if path.suffix == ".gz" else open
            with opener(tmp, "wb") as fh:
                pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        tmp.unlink(missing_ok=True)
        hint = (
            "; if the objective is what cannot be pickled (a lambda, a local function, an "
            "object holding a lock, file or connection), pass store_objective=False"
            if store_objective
            else ""
        )
        raise TypeError(
            f"the result could not be pickled: {type(exc).__name__}: {exc}{hint}"
        ) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def load(filename: Any, **kwargs: Any) -> OptimizationResult:
    """Read back a result stored by :func:`dump` (scikit-optimize's ``skopt.load``).

    The files are pickles: loading one runs code it names, so load only files you
    trust.

    Parameters
    ----------
    filename : str or os.PathLike
        The file :func:`dump` wrote.
    **kwargs
        Passed to ``joblib.load`` (e.g. ``mmap_mode``).

    Returns
    -------
    OptimizationResult
        The stored result: ``x``, ``fun``, ``x_iters``, ``func_vals``, its ``space`` and
        ``models`` as they were (its optimiser's ``objective`` is ``None`` if it was
        dumped with ``store_objective=False``).

    Raises
    ------
    FileNotFoundError
        No file ``filename``.
    TypeError
        ``filename`` is not a path, or the file holds something else than an
        ``OptimizationResult``.

    Examples
    --------
    See :func:`dump`.
    """
    path = _check_path(filename, "filename")
    if not path.is_file():
        raise FileNotFoundError(f"filename {str(path)!r} is not a file")
    joblib = _joblib()
    if joblib is not None:
        obj = joblib.load(path, **kwargs)
    else:
        with path.open("rb") as fh:
            gzipped = fh.read(2) == b"\x1f\x8b"
        opener: Any = gzip.open if gzipped else open
        with opener(path, "rb") as fh:
            obj = pickle.load(fh)
    if not isinstance(obj, OptimizationResult):
        raise TypeError(
            f"filename {str(path)!r} holds a {type(obj).__name__}, not an OptimizationResult"
        )
    return obj


class CheckpointSaver:
    """A callback that stores the result after every call (scikit-optimize's
    ``CheckpointSaver``).

    Each call writes the result with :func:`dump` (never asking to stop); an interrupted
    run can then be inspected, or resumed by telling a new optimiser the stored points:
    ``for x, y in zip(res.x_iters, res.func_vals): opt.tell(x, y)``.

    Parameters
    ----------
    checkpoint_path : str or os.PathLike
        The file to write (replaced at every call).
    **dump_options
        Passed to :func:`dump`, e.g. ``store_objective=False`` or ``compress=3``.

    Raises
    ------
    TypeError
        ``checkpoint_path`` is not a path.
    ValueError
        ``checkpoint_path`` is empty.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from kernelkit.optimize import BayesianOptimizer, get_function
    >>> f = get_function("forrester")
    >>> saver = CheckpointSaver(pathlib.Path(tempfile.mkdtemp()) / "run.pkl")
    >>> opt = BayesianOptimizer(f, random_state=0)
    >>> for _ in range(4):
    ...     x = opt.ask()
    ...     opt.tell(x, f(x))
    ...     saver(opt.result())
    >>> load(saver.checkpoint_path).n_calls
    4
    """

    def __init__(self, checkpoint_path: Any, **dump_options: Any) -> None:
        self.checkpoint_path = _check_path(checkpoint_path, "checkpoint_path")
        self.dump_options = dump_options

    def __call__(self, result: Any) -> None:
        """Store ``result`` (and return ``None``: never asks to stop).

        Parameters
        ----------
        result : OptimizationResult
            The result so far.
        """
        dump(result, self.checkpoint_path, **self.dump_options)

    def load(self) -> dict[str, Any]:
        """The stored run as keyword arguments that resume it (scikit-optimize's
        ``CheckpointSaver.load``): ``gp_minimize(f, space, **saver.load())``.

        Returns
        -------
        dict
            ``{}`` while there is no checkpoint file; otherwise ``x0`` (the evaluated
            points), ``y0`` (their values) and ``base_estimator`` (the last surrogate's
            fitted kernel, or ``None`` before any surrogate was fitted).
        """
        if not self.checkpoint_path.is_file():
            return {}
        result = load(self.checkpoint_path)
        gp = getattr(result.models[-1], "gp", None) if result.models else None
        return {
            "x0": result.x_iters,
            "y0": result.func_vals,
            "base_estimator": getattr(gp, "kernel_", None),
        }

    def __repr__(self) -> str:
        return f"CheckpointSaver({str(self.checkpoint_path)!r})"
