"""xi schedules: constant, exponential decay, user callables, and their errors."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.optimize import (
    CallableSchedule,
    ConstantSchedule,
    ExponentialDecaySchedule,
    Schedule,
    as_schedule,
)


def test_constant():
    s = ConstantSchedule(0.05)
    assert [s(t) for t in (0, 1, 100)] == [0.05, 0.05, 0.05]


def test_exponential_decay_endpoints_and_monotone():
    s = ExponentialDecaySchedule(start=1.0, end=0.01, n_steps=11)
    values = np.array([s(t) for t in range(15)])
    assert values[0] == pytest.approx(1.0)
    assert values[10] == pytest.approx(0.01)
    assert np.all(values[11:] == 0.01)
    assert np.all(np.diff(values[:11]) < 0)
    # geometric: constant ratio
    ratios = values[1:11] / values[:10]
    np.testing.assert_allclose(ratios, ratios[0])
    assert ratios[0] == pytest.approx(0.01 ** (1 / 10))


def test_exponential_decay_to_zero():
    s = ExponentialDecaySchedule(start=0.5, end=0.0, n_steps=5)
    values = [s(t) for t in range(7)]
    assert values[0] == 0.5
    # geometric towards start * 1e-3 (reached at step n_steps - 1) ...
    assert values[3] == pytest.approx(0.5 * 1e-3 ** (3 / 4))
    assert values[4:] == [0.0, 0.0, 0.0]  # ... where it is exactly 0


def test_one_step_decay_is_the_end_value():
    assert ExponentialDecaySchedule(1.0, 0.1, n_steps=1)(0) == 0.1


def test_callable_schedule_and_as_schedule():
    s = as_schedule(lambda t: 1.0 / (1 + t))
    assert isinstance(s, CallableSchedule)
    assert [s(t) for t in range(3)] == [1.0, 0.5, pytest.approx(1 / 3)]
    assert isinstance(as_schedule(0.2), ConstantSchedule)
    d = ExponentialDecaySchedule()
    assert as_schedule(d) is d
    assert isinstance(d, Schedule)


def test_callable_returning_bad_values():
    s = as_schedule(lambda t: -1.0)
    with pytest.raises(ValueError, match=r"xi\(0\) must be finite and >= 0"):
        s(0)
    with pytest.raises(TypeError, match=r"xi\(0\) must be a number"):
        as_schedule(lambda t: "big")(0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"start": 0.0}, "start must be > 0"),
        ({"start": 0.1, "end": 1.0}, "end must be <= start"),
        ({"n_steps": 0}, "n_steps must be an integer >= 1"),
        ({"start": -1.0}, "start must be finite and >= 0"),
    ],
)
def test_decay_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ExponentialDecaySchedule(**kwargs)


def test_bad_step_and_bad_xi():
    with pytest.raises(ValueError, match="step must be an integer >= 0"):
        ConstantSchedule(0.1)(-1)
    with pytest.raises(TypeError, match="xi must be a number >= 0, a Schedule or a callable"):
        as_schedule("0.1")
    with pytest.raises(ValueError, match="xi must be finite and >= 0"):
        as_schedule(-0.5)
