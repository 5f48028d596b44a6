"""Schedules for the exploration parameter xi of PI and EI (assignment Q2.7).

The improvement ``I(x) = max{0, f(x) - f(x+) - xi}`` (assignment eq. 2.10) only rewards
points that beat the incumbent by at least ``xi``: a large ``xi`` explores, a small one
exploits. The seed notes that a fixed ``xi`` often stalls on multi-modal objectives and
suggests starting exploratory and decaying ``xi``. A schedule maps the step ``t``
(0 for the first point chosen by the acquisition, after the initial design) to ``xi_t``.

Anything accepted as ``xi`` by :class:`~kernelkit.optimize.BayesianOptimizer` goes
through :func:`as_schedule`: a number (constant), a :class:`Schedule`, or a plain
callable ``xi(step) -> float``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from kernelkit._validation import check_nonnegative_number

__all__ = [
    "Schedule",
    "ConstantSchedule",
    "ExponentialDecaySchedule",
    "CallableSchedule",
    "as_schedule",
]


class Schedule:
    """Base class: ``schedule(step) -> xi`` for ``step = 0, 1, 2, ...``."""

    def __call__(self, step: int) -> float:
        if isinstance(step, bool) or not isinstance(step, numbers.Integral) or step < 0:
            raise ValueError(f"step must be an integer >= 0, got {step!r}")
        return self._value(int(step))

    def _value(self, step: int) -> float:
        raise NotImplementedError


class ConstantSchedule(Schedule):
    """``xi_t = value`` for every step.

    Parameters
    ----------
    value : float
        The constant ``xi >= 0``.
    """

    def __init__(self, value: float):
        self.value = check_nonnegative_number(value, "xi")

    def _value(self, step: int) -> float:
        return self.value

    def __repr__(self) -> str:
        return f"ConstantSchedule({self.value:g})"


class ExponentialDecaySchedule(Schedule):
    """Geometric decay from an exploratory ``start`` to an exploitative ``end``.

    ``xi_t = start * (end / start) ** (t / (n_steps - 1))`` for ``t < n_steps`` and
    ``end`` afterwards, so ``xi_0 = start`` and ``xi_{n_steps-1} = end``. With
    ``end = 0`` the geometric decay aims at ``start * 1e-3`` instead, and ``xi`` is
    exactly 0 from step ``n_steps - 1`` on.

    Parameters
    ----------
    start : float, default=1.0
        ``xi`` at the first acquisition step (``> 0``).
    end : float, default=0.01
        ``xi`` from step ``n_steps - 1`` on (``0 <= end <= start``).
    n_steps : int, default=20
        Length of the decay (``>= 1``; ``1`` means ``end`` at once).

    Examples
    --------
    >>> s = ExponentialDecaySchedule(1.0, 0.01, 3)
    >>> [round(s(t), 6) for t in range(4)]
    [1.0, 0.1, 0.01, 0.01]
    """

    def __init__(self, start: float = 1.0, end: float = 0.01, n_steps: int = 20):
        self.start = check_nonnegative_number(start, "start")
        self.end = check_nonnegative_number(end, "end")
        if isinstance(n_steps, bool) or not isinstance(n_steps, numbers.Integral) or n_steps < 1:
            raise ValueError(f"n_steps must be an integer >= 1, got {n_steps!r}")
        if self.start <= 0:
            raise ValueError(f"start must be > 0, got {start!r}")
        if self.end > self.start:
            raise ValueError(f"end must be <= start (a decay), got start={start!r}, end={end!r}")
        self.n_steps: int = int(n_steps)

    def _value(self, step: int) -> float:
        if step >= self.n_steps - 1:
            return self.end
        floor = self.end if self.end > 0 else self.start * 1e-3
        return self.start * (floor / self.start) ** (step / (self.n_steps - 1))

    def __repr__(self) -> str:
        return (
            f"ExponentialDecaySchedule(start={self.start:g}, end={self.end:g}, "
            f"n_steps={self.n_steps})"
        )


class CallableSchedule(Schedule):
    """Wrap a user function ``xi(step) -> float``; its values are checked (finite, >= 0).

    Parameters
    ----------
    fn : callable
        ``fn(step) -> float`` for ``step = 0, 1, 2, ...``.
    """

    def __init__(self, fn: Callable[[int], float]):
        if not callable(fn):
            raise TypeError(f"xi must be a number or a callable, got {type(fn).__name__}")
        self.fn = fn

    def _value(self, step: int) -> float:
        return check_nonnegative_number(self.fn(step), f"xi({step})")

    def __repr__(self) -> str:
        return f"CallableSchedule({getattr(self.fn, '__name__', repr(self.fn))})"


def as_schedule(xi: Any) -> Schedule:
    """A :class:`Schedule` from a number, a schedule or a callable ``xi(step)``.

    Parameters
    ----------
    xi : float, Schedule or callable
        A number ``>= 0`` (a :class:`ConstantSchedule`), a schedule (returned as is) or a
        function ``xi(step) -> float`` (a :class:`CallableSchedule`).

    Returns
    -------
    Schedule
        The schedule of ``xi``.

    Raises
    ------
    TypeError
        ``xi`` is none of these (a bool included).

    Examples
    --------
    >>> as_schedule(0.1)(5)
    0.1
    """
    if isinstance(xi, Schedule):
        return xi
    if isinstance(xi, numbers.Real) and not isinstance(xi, bool):
        return ConstantSchedule(float(xi))
    if callable(xi):
        return CallableSchedule(xi)
    raise TypeError(
        f"xi must be a number >= 0, a Schedule or a callable xi(step), got {type(xi).__name__}"
    )
