"""Test functions: documented minima at the minimisers, nothing lower nearby or anywhere."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from kernelkit.optimize import function_names, get_function

NAMES = function_names()


def test_registry_has_the_required_functions():
    for name in (
        "forrester",
        "gramacy-lee",
        "branin",
        "six-hump-camel",
        "hartmann3",
        "hartmann6",
        "ackley5",
    ):
        assert name in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_minimum_attained_at_every_minimizer(name):
    f = get_function(name)
    assert f.bounds.shape == (f.dim, 2) and f.minimizers.shape[1] == f.dim
    values = f(f.minimizers)
    np.testing.assert_allclose(values, f.minimum, rtol=0, atol=1e-9)
    lo, hi = f.bounds[:, 0], f.bounds[:, 1]
    assert np.all((f.minimizers >= lo) & (f.minimizers <= hi))


@pytest.mark.parametrize("name", NAMES)
def test_nothing_lower_on_a_dense_random_sample(name):
    f = get_function(name)
    rng = np.random.RandomState(0)
    lo, hi = f.bounds[:, 0], f.bounds[:, 1]
    X = lo + rng.uniform(size=(200_000, f.dim)) * (hi - lo)
    assert f(X).min() >= f.minimum - 1e-12
    # local polish from the best samples cannot go below the minimum either
    for x0 in X[np.argsort(f(X))[:5]]:
        res = minimize(lambda x: f(x), x0, method="L-BFGS-B", bounds=f.bounds)
        assert res.fun >= f.minimum - 1e-9


@pytest.mark.parametrize("name", NAMES)
def test_vectorised_over_rows(name):
    f = get_function(name)
    X = f.bounds[:, 0] + np.random.RandomState(1).uniform(size=(7, f.dim)) * np.ptp(
        f.bounds, axis=1
    )
    rows = np.array([f(x) for x in X])
    np.testing.assert_allclose(f(X), rows)
    assert isinstance(f(X[0]), float)


def test_wrong_point_dimension():
    with pytest.raises(ValueError, match="branin takes points with 2 coordinates"):
        get_function("branin")(np.zeros(3))


def test_unknown_function_name():
    with pytest.raises(ValueError, match=r"unknown test function 'rosenbrok'.*branin"):
        get_function("rosenbrok")
    assert get_function("Six_Hump_Camel").name == "six-hump-camel"
