"""kernelkit.kernels.compose: a feature map that returns the wrong thing is named.

``k(phi(x), phi(y))`` needs one row of ``phi(X)`` per object of ``X``. A ``phi`` that drops
or adds rows gave a Gram matrix of the wrong shape, silently; every other wrong output
(1-D, not numbers, NaN) must be an error that names ``phi`` and says what it returned.
"""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.kernels import RBF, Linear, compose
from kernelkit.kernels.sets import Intersection

X = np.random.RandomState(0).standard_normal((5, 2))
ROWS = r"phi must return one row per object of X \(5 rows\); it returned 4 rows"


def _drop_last(Z):
    return Z[:-1]


@pytest.mark.parametrize(
    "call",
    [
        lambda k: k(X),
        lambda k: k(X, X[:3]),
        lambda k: k.diag(X),
        lambda k: k.gradient(X),
        lambda k: k.gradient_dot(X, np.ones((5, 5))),
        lambda k: k.gram_and_gradient(X),
    ],
    ids=["gram", "cross-gram", "diag", "gradient", "gradient_dot", "gram_and_gradient"],
)
def test_phi_dropping_rows_is_named(call) -> None:
    with pytest.raises(ValueError, match=ROWS):
        call(compose(RBF(), _drop_last))


def test_phi_dropping_rows_of_y_only_names_y() -> None:
    def phi(Z):  # right for 5 objects, one row short otherwise
        return Z if len(Z) == 5 else Z[:-1]

    k = compose(RBF(), phi)
    msg = r"phi must return one row per object of Y \(3 rows\); it returned 2 rows"
    with pytest.raises(ValueError, match=msg):
        k(X, X[:3])


def test_phi_adding_rows_is_named() -> None:
    with pytest.raises(ValueError, match=r"it returned 10 rows \(shape \(10, 2\)\)"):
        compose(Linear(), lambda Z: np.vstack([Z, Z]))(X)


def test_phi_returning_one_dimensional_output_is_named() -> None:
    msg = r"phi must return a 2-D array .*; it returned shape \(5,\) .*reshape\(-1, 1\)"
    with pytest.raises(ValueError, match=msg):
        compose(RBF(), lambda Z: Z[:, 0])(X)
    with pytest.raises(ValueError, match=r"it returned shape \(5, 2, 1\)"):
        compose(RBF(), lambda Z: Z[:, :, None])(X)


@pytest.mark.parametrize(
    ("phi", "got"),
    [(lambda Z: None, "NoneType"), (lambda Z: "abc", "str"), (lambda Z: 3.0, "float")],
    ids=["None", "str", "scalar"],
)
def test_phi_returning_no_array_is_a_type_error(phi, got) -> None:
    with pytest.raises(TypeError, match=f"phi must return a 2-D array of numbers.*got {got}"):
        compose(RBF(), phi)(X)


def test_phi_returning_non_numbers_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="phi\\(X\\) must be an array of numbers"):
        compose(RBF(), lambda Z: [["a", "b"]] * len(Z))(X)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_phi_returning_non_finite_values_says_where(bad) -> None:
    def phi(Z):
        out = np.array(Z, dtype=float)
        out[3, 1] = bad
        return out

    with pytest.raises(ValueError, match=rf"phi returned {bad} in row 3, column 1"):
        compose(RBF(), phi)(X)


def test_inputs_phi_cannot_count_are_refused() -> None:
    k = compose(RBF(), lambda Z: Z)
    with pytest.raises(TypeError, match="X must be an array or a list of the objects"):
        k(None)
    with pytest.raises(TypeError, match="Y must be an array or a list of the objects"):
        k(X, 7)


def test_phi_onto_objects_must_keep_their_number() -> None:
    words = ["ab", "bc", "cd"]
    good = compose(Intersection(), lambda ws: [set(w) for w in ws])
    assert good(words).shape == (3, 3)
    bad = compose(Intersection(), lambda ws: [set(w) for w in ws][:-1])
    with pytest.raises(ValueError, match=r"one item per object of X \(3 items\); it returned 2"):
        bad(words)


def test_a_correct_phi_is_unchanged() -> None:
    k = compose(RBF(0.7), np.tanh)
    np.testing.assert_array_equal(k(X), RBF(0.7)(np.tanh(X)))
    np.testing.assert_array_equal(k(X, X[:2]), RBF(0.7)(np.tanh(X), np.tanh(X[:2])))
