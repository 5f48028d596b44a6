"""Search spaces: dimensions, shorthands, the surrogate map and its inverse, sampling, errors."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.stats import chisquare

from kernelkit.optimize.space import Categorical, Dimension, Integer, Real, Space

EPS = np.finfo(float).eps
#: Significance of the goodness-of-fit tests (fixed seeds: each runs one fixed draw).
ALPHA = 1e-3
METHODS = ["random", "sobol", "lhs", "halton"]


# ------------------------------------------------------------------ strategies
@st.composite
def reals(draw: Any) -> Real:
    if draw(st.booleans()):
        low = draw(st.floats(-1e6, 1e6))
        return Real(low, low + draw(st.floats(1e-6, 1e6)))
    low = draw(st.floats(1e-6, 1e3))
    return Real(low, low * draw(st.floats(1.01, 1e6)), "log-uniform")


@st.composite
def integers(draw: Any) -> Integer:
    prior = draw(st.sampled_from(["uniform", "log-uniform"]))
    low = draw(st.integers(1 if prior == "log-uniform" else -(10**6), 10**6))
    return Integer(low, low + draw(st.integers(1, 10**6)), prior)


def _bool_apart(value: Any) -> tuple[bool, Any]:
    return (isinstance(value, bool), value)


CATEGORY = st.one_of(st.text(max_size=3), st.integers(-3, 3), st.none(), st.booleans())
categoricals = st.lists(CATEGORY, min_size=1, max_size=5, unique_by=_bool_apart).map(Categorical)
spaces = st.lists(st.one_of(reals(), integers(), categoricals), min_size=1, max_size=4).map(Space)


def values_of(dim: Dimension) -> st.SearchStrategy[Any]:
    if isinstance(dim, Real):
        return st.floats(*dim.bounds)
    if isinstance(dim, Integer):
        return st.integers(*dim.bounds)
    return st.sampled_from(dim.bounds)


@st.composite
def space_and_points(draw: Any) -> tuple[Space, list[list[Any]]]:
    space = draw(spaces)
    point = st.tuples(*(values_of(d) for d in space)).map(list)
    return space, draw(st.lists(point, min_size=1, max_size=5))


def assert_same_value(dim: Dimension, got: Any, want: Any) -> None:
    """``got`` is ``want`` for integers and categories, and within float rounding for reals
    (a coordinate in [0, 1] cannot tell apart all the floats of a wide interval)."""
    if isinstance(dim, Integer):
        assert type(got) is int and got == want
    elif isinstance(dim, Categorical):
        assert _bool_apart(got) == _bool_apart(want)
    else:
        assert type(got) is float
        low, high = dim.bounds
        if dim.prior == "uniform":
            tol = 8 * EPS * max(abs(low), abs(high))
        else:
            tol = 16 * EPS * (1 + max(abs(math.log(low)), abs(math.log(high)))) * abs(want)
        assert abs(got - want) <= tol, (got, want, tol)


# ------------------------------------------------------------------ the surrogate map
@settings(max_examples=60, deadline=None)
@given(space_and_points())
# the low end of a log-uniform Real: NumPy's log of it may be an ulp below math.log's
@example((Space([Real(1.05, 2.1, "log-uniform")]), [[1.05]]))
def test_transform_then_inverse_gives_the_points_back(case: tuple[Space, list[list[Any]]]):
    space, points = case
    Z = space.transform(points)
    assert Z.shape == (len(points), space.transformed_n_dims)
    assert np.all((Z >= 0) & (Z <= 1))
    back = space.inverse_transform(Z)
    for p, q in zip(points, back, strict=True):
        assert q in space
        for dim, got, want in zip(space, q, p, strict=True):
            assert_same_value(dim, got, want)
    Z_back = space.transform(back)
    for j, dim in enumerate(space):
        block = slice(*_block(space, j))
        if isinstance(dim, Real):  # the resolution of x, in units of the coordinate
            low, high = dim.bounds
            if dim.prior == "uniform":
                tol = 8 * EPS * max(abs(low), abs(high)) / (high - low)
            else:
                logs = abs(math.log(low)), abs(math.log(high))
                tol = 16 * EPS * (1 + max(logs)) / math.log(high / low)
            np.testing.assert_allclose(Z_back[:, block], Z[:, block], rtol=0, atol=tol)
        else:
            np.testing.assert_array_equal(Z_back[:, block], Z[:, block])


def _block(space: Space, j: int) -> tuple[int, int]:
    start = sum(d.transformed_size for d in space.dimensions[:j])
    return start, start + space.dimensions[j].transformed_size


@settings(max_examples=40, deadline=None)
@given(st.integers(-(2**40), 2**40), st.integers(1, 2**40))
def test_integers_round_trip_exactly_up_to_the_largest_bounds(j: int, k: int):
    wide = Integer(-(2**40), 2**40)
    assert wide.inverse_transform(wide.transform([j])).tolist() == [j]
    log = Integer(1, 2**40, "log-uniform")
    assert log.inverse_transform(log.transform([k])).tolist() == [k]


def test_endpoints_round_trip_exactly():
    for dim in (Real(-3.7, 1e5), Real(1e-9, 7.3, "log-uniform"), Real(0.1, 0.7)):
        low, high = dim.bounds
        np.testing.assert_array_equal(dim.transform([low, high]).ravel(), [0.0, 1.0])
        assert dim.inverse_transform([0.0, 1.0]).tolist() == [low, high]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_point_of_the_cube_maps_back_to_a_valid_point(data: st.DataObject):
    space = data.draw(spaces)
    n = data.draw(st.integers(1, 6))
    Z = data.draw(hnp.arrays(float, (n, space.transformed_n_dims), elements=st.floats(-0.5, 1.5)))
    points = space.inverse_transform(Z)
    assert len(points) == n
    for point in points:
        assert point in space
        for dim, value in zip(space, point, strict=True):
            if isinstance(dim, Integer):
                assert type(value) is int
            elif isinstance(dim, Real):
                assert type(value) is float


@pytest.mark.parametrize("prior", ["uniform", "log-uniform"])
def test_integers_round_to_the_nearest_integer_in_the_original_space(prior: str):
    """The coordinate of ``j + 1/2`` (mapped as the Notes say) is the edge between ``j``
    and ``j + 1``; under "log-uniform" that is not the edge of rounding in the logarithm
    (the geometric mean ``sqrt(j (j + 1))``), so the test tells the two rules apart."""
    low, high = 1, 12
    dim = Integer(low, high, prior)
    lo, hi = low - 0.5, high + 0.5
    f = np.log if prior == "log-uniform" else (lambda x: x)

    def coordinate(x: float) -> float:
        return float((f(x) - f(lo)) / (f(hi) - f(lo)))

    for j in range(low, high):
        edge = coordinate(j + 0.5)
        assert dim.inverse_transform([edge - 1e-9, edge + 1e-9]).tolist() == [j, j + 1]
        middle = coordinate(math.sqrt(j * (j + 1)) + 0.01)  # above the log edge, below j + 1/2
        if prior == "log-uniform":
            assert dim.inverse_transform([middle]).tolist() == [j]
    assert dim.inverse_transform([0.0, 1.0]).tolist() == [low, high]


def test_categorical_is_one_hot_read_back_by_its_largest_coordinate():
    two = Categorical(["no", "yes"])
    assert two.transformed_size == 2  # two categories are one-hot too
    np.testing.assert_array_equal(two.transform(["yes", "no"]), [[0, 1], [1, 0]])
    three = Categorical([None, True, 1])  # True and 1 are different categories
    np.testing.assert_array_equal(three.transform([1, True, None]), np.eye(3)[[2, 1, 0]])
    assert three.inverse_transform([[0.1, 0.5, 0.4], [0.3, 0.3, 0.3], [-1, -1, 9]]) == [
        True,
        None,  # ties go to the first category
        1,
    ]
    assert Categorical(["only"]).inverse_transform([0.2]) == ["only"]


def test_real_and_integer_maps():
    np.testing.assert_allclose(Real(-1, 3).transform([-1, 0, 3]).ravel(), [0, 0.25, 1])
    np.testing.assert_allclose(
        Real(1e-2, 1e2, "log-uniform").transform([1e-2, 1, 1e2]).ravel(), [0, 0.5, 1]
    )
    # each integer is the middle of its cell: low at 1/(2n), high at 1 - 1/(2n)
    np.testing.assert_allclose(Integer(0, 4).transform([0, 2, 4]).ravel(), [0.1, 0.5, 0.9])
    assert Integer(0, 4).transform(np.array([0.0, 4.0])).ravel().tolist() == [0.1, 0.9]


# ------------------------------------------------------------------ sampling
def mixed_space() -> Space:
    return Space(
        {
            "lr": Real(1e-4, 1.0, "log-uniform"),
            "x": (-2.0, 2.0),
            "depth": Integer(1, 6),
            "n": Integer(2, 500, "log-uniform"),
            "kernel": ["rbf", "matern", None, True],
        }
    )


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [7, 64])
def test_sampled_points_are_valid_with_the_right_types(method: str, n: int):
    space = mixed_space()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # n = 7 is not a power of two: Sobol stays quiet
        points = space.sample(n, method, random_state=3)
    assert len(points) == n
    for point in points:
        assert point in space
        lr, x, depth, n_est, kernel = point
        assert type(lr) is float and type(x) is float
        assert type(depth) is int and type(n_est) is int
        assert any(_bool_apart(kernel) == _bool_apart(c) for c in space.bounds[4])


def test_dimension_rvs_types():
    assert Real(0, 1).rvs(5, random_state=0).dtype == np.float64
    ints = Integer(-3, 3, name="i").rvs(50, random_state=0)
    assert ints.dtype == np.int64 and set(ints.tolist()) <= set(range(-3, 4))
    assert all(isinstance(v, np.integer) for v in ints)
    cats = Categorical(["a", None, False]).rvs(30, random_state=0)
    assert isinstance(cats, list) and {_bool_apart(c) for c in cats} == {
        (False, "a"),
        (False, None),
        (True, False),
    }


def test_latin_hypercube_stratifies_integers_and_categories():
    space = Space([Integer(1, 4), ["a", "b"], (0.0, 1.0)])
    points = space.sample(8, "lhs", random_state=5)
    assert sorted(p[0] for p in points) == [1, 1, 2, 2, 3, 3, 4, 4]
    assert sorted(p[1] for p in points) == ["a"] * 4 + ["b"] * 4
    assert sorted(int(p[2] * 8) for p in points) == list(range(8))


@pytest.mark.parametrize("method", METHODS)
def test_same_random_state_same_points(method: str):
    space = mixed_space()
    first = space.sample(20, method, random_state=11)
    assert space.sample(20, method, random_state=11) == first
    assert space.sample(20, method, random_state=12) != first
    rs_a, rs_b = np.random.RandomState(4), np.random.RandomState(4)
    assert space.sample(9, method, rs_a) == space.sample(9, method, rs_b)


def test_rvs_is_reproducible():
    space = mixed_space()
    assert space.rvs(10, random_state=0) == space.rvs(10, random_state=0)
    assert space.rvs(10, random_state=0) == space.sample(10, "random", random_state=0)
    for dim in space:
        a, b = dim.rvs(10, random_state=1), dim.rvs(10, random_state=1)
        assert list(a) == list(b)


def log_bin_counts(x: np.ndarray, low: float, high: float, n_bins: int) -> np.ndarray:
    edges = np.linspace(np.log(low), np.log(high), n_bins + 1)
    return np.histogram(np.log(x), bins=edges)[0]


def test_log_uniform_reals_are_uniform_in_the_logarithm():
    """Chi-square against equal counts in 12 bins of equal log-width (a fixed draw,
    significance ALPHA); the uniform prior, tested the same way, is rejected."""
    dim = Real(1e-3, 1e3, "log-uniform")
    x = dim.rvs(12_000, random_state=0)
    assert chisquare(log_bin_counts(x, 1e-3, 1e3, 12)).pvalue > ALPHA
    y = Real(1e-3, 1e3).rvs(12_000, random_state=0)
    assert chisquare(log_bin_counts(y, 1e-3, 1e3, 12)).pvalue < 1e-12
    # the same law through the Space front door, and in a Sobol design
    z = np.array(Space([dim]).rvs(12_000, random_state=1))[:, 0]
    assert chisquare(log_bin_counts(z, 1e-3, 1e3, 12)).pvalue > ALPHA
    s = np.array(Space([dim]).sample(4096, "sobol", random_state=1))[:, 0]
    np.testing.assert_allclose(log_bin_counts(s, 1e-3, 1e3, 8), 512, atol=2)


def cell_mass(low: int, high: int) -> np.ndarray:
    """The documented log-uniform law of an Integer: log((j + 1/2)/(j - 1/2)), normalised."""
    j = np.arange(low, high + 1)
    return np.log((j + 0.5) / (j - 0.5)) / np.log((high + 0.5) / (low - 0.5))


def test_log_uniform_integers_give_each_integer_the_mass_of_its_cell():
    low, high, n = 1, 16, 20_000
    k = Integer(low, high, "log-uniform").rvs(n, random_state=0)
    counts = np.bincount(k - low, minlength=high - low + 1)
    mass = cell_mass(low, high)
    np.testing.assert_allclose(mass.sum(), 1.0)
    assert chisquare(counts, n * mass).pvalue > ALPHA
    # another plausible rule, log-uniform on [low, high + 1) then floor, is rejected
    j = np.arange(low, high + 1)
    floor_rule = np.log((j + 1) / j) / np.log((high + 1) / low)
    assert chisquare(counts, n * floor_rule).pvalue < 1e-12


def test_uniform_integers_give_the_end_points_a_full_share():
    low, high, n = -2, 5, 16_000
    k = np.array(Space([Integer(low, high)]).rvs(n, random_state=2))[:, 0]
    counts = np.bincount(k - low, minlength=high - low + 1)
    assert chisquare(counts).pvalue > ALPHA
    sobol = np.array(Space([Integer(low, high)]).sample(1024, "sobol", random_state=2))[:, 0]
    assert np.bincount(sobol - low).tolist() == [128] * 8


# ------------------------------------------------------------------ the Space front door
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ((0, 5), Integer(0, 5)),
        ([np.int64(1), 9], Integer(1, 9)),
        ((0, 5.0), Real(0, 5)),
        ((1e-3, 1.0, "log-uniform"), Real(1e-3, 1, "log-uniform")),
        ((1, 100, "log-uniform"), Integer(1, 100, "log-uniform")),
        ((1, 100, "uniform"), Integer(1, 100)),
        (["a", "b"], Categorical(["a", "b"])),
        ((True, False), Categorical([True, False])),
        ([1, 2, 3], Categorical([1, 2, 3])),
        ((1, 2, "auto"), Categorical([1, 2, "auto"])),
        ([None], Categorical([None])),
        (Real(0, 1, name="w"), Real(0, 1, name="w")),
    ],
)
def test_shorthands(spec: Any, expected: Dimension):
    assert Space([spec]).dimensions == [expected]


def test_a_bounds_array_is_all_real_but_a_list_of_int_pairs_is_integer():
    bounds = [(0, 1), (-5, 5)]
    space = Space(np.asarray(bounds))
    assert space.is_real and space.dimensions == [Real(0, 1), Real(-5, 5)]
    assert space.bounds == [(0.0, 1.0), (-5.0, 5.0)]
    assert Space(bounds).dimensions == [Integer(0, 1), Integer(-5, 5)]
    assert not Space(bounds).is_real


def test_names_dict_and_description():
    space = Space({"C": Real(1e-2, 1e2, "log-uniform"), "k": ["a", "b", "c"], "d": (1, 3)})
    assert space.dimension_names == ["C", "k", "d"]
    assert [d.name for d in space] == ["C", "k", "d"]
    assert space.n_dims == 3 and space.transformed_n_dims == 5
    assert space.transformed_bounds == [(0.0, 1.0)] * 5
    assert space.bounds == [(0.01, 100.0), ("a", "b", "c"), (1, 3)]
    assert space.to_dict([1, "b", 2.0]) == {"C": 1.0, "k": "b", "d": 2}
    assert type(space.to_dict([1, "b", 2.0])["d"]) is int
    assert Space({"C": Real(1, 2, name="C")}).dimension_names == ["C"]
    unnamed = Space([Real(0, 1), Real(0, 1, name="b"), (0, 1)])
    assert unnamed.dimension_names == ["x0", "b", "x2"]
    assert Space(unnamed) == unnamed


def test_equality_hash_and_repr():
    dims = [
        Real(0.5, 2, "log-uniform", name="a"),
        Integer(-1, 4),
        Categorical([None, True, 1, "s"], name="c"),
    ]
    namespace = {"Real": Real, "Integer": Integer, "Categorical": Categorical, "Space": Space}
    for dim in dims:
        assert eval(repr(dim), namespace) == dim
    assert Real(0, 1) != Real(0, 1, name="a") and Real(0, 1) != Integer(0, 1)
    assert Categorical([1, 2]) != Categorical([True, 2]) and Categorical([1, 2]) == Categorical(
        [1.0, 2]
    )
    assert len({Real(0, 1), Real(0.0, 1.0), Integer(0, 1)}) == 2
    space = Space(dims)
    assert eval(repr(space), namespace) == space and hash(space) == hash(Space(dims))
    assert space != Space(dims[:2])


def test_membership():
    assert 3 in Integer(0, 5) and 3.0 in Integer(0, 5) and np.int8(3) in Integer(0, 5)
    assert 3.5 not in Integer(0, 5) and True not in Integer(0, 5) and "3" not in Integer(0, 5)
    assert 1 in Real(0, 1) and 0.0 in Real(0, 1) and float("nan") not in Real(0, 1)
    assert False not in Real(0, 1) and 1.5 not in Real(0, 1)
    cats = Categorical(["a", 1])
    assert "a" in cats and 1.0 in cats and np.int64(1) in cats
    assert True not in cats and [1] not in cats and "b" not in cats
    space = Space([(0, 5), ["a", "b"]])
    assert [1, "a"] in space and (1, "b") in space and np.array([1, "a"], dtype=object) in space
    assert [1] not in space and [9, "a"] not in space and "1a" not in space and 5 not in space


def test_transform_accepts_arrays_and_empty_input():
    space = Space([(0, 4), (0.0, 1.0)])
    Z = space.transform(np.array([[2, 0.5], [4, 1.0]]))
    np.testing.assert_allclose(Z, [[0.5, 0.5], [0.9, 1.0]])
    assert space.transform([]).shape == (0, 2)
    assert space.inverse_transform(np.empty((0, 2))) == []


# ------------------------------------------------------------------ bad input
ERRORS: list[tuple[Any, type[Exception], str]] = [
    # dimensions
    (lambda: Real(1, 1), ValueError, r"low must be < high.*low=1, high=1"),
    (lambda: Real(2, 1), ValueError, r"low must be < high"),
    (lambda: Real(0, np.inf), ValueError, r"high must be finite"),
    (lambda: Real(np.nan, 1), ValueError, r"low must be finite"),
    (lambda: Real(-1e308, 1e308), ValueError, r"high - low overflows"),
    (lambda: Real(0, 1, "log-uniform"), ValueError, r"low must be > 0 for prior='log-uniform'"),
    (lambda: Real(-2, 1, "log-uniform"), ValueError, r"low must be > 0"),
    (lambda: Real(0, 1, "normal"), ValueError, r"prior must be one of 'uniform', 'log-uniform'"),
    (lambda: Real(0, 1, 10), TypeError, r"prior must be a str"),
    (lambda: Real("0", 1), TypeError, r"low must be a real number"),
    (lambda: Real(0, True), TypeError, r"high must be a real number"),
    (lambda: Real(0, 1, name=3), TypeError, r"name must be a str"),
    (lambda: Real(0, 1, name=""), ValueError, r"name must be a non-empty string"),
    (lambda: Integer(3, 3), ValueError, r"low must be < high.*low=3, high=3"),
    (lambda: Integer(1.5, 3), ValueError, r"low must be a whole number"),
    (lambda: Integer(0, np.inf), ValueError, r"high must be a whole number"),
    (lambda: Integer("1", 3), TypeError, r"low must be an integer"),
    (lambda: Integer(0, 2**41), ValueError, r"high must be at most 2\*\*40"),
    (lambda: Integer(0, 9, "log-uniform"), ValueError, r"low must be > 0 for prior='log-uniform'"),
    (lambda: Integer(1, 9, "loguniform"), ValueError, r"prior must be one of"),
    (lambda: Categorical([]), ValueError, r"categories must hold at least one"),
    (lambda: Categorical(["a", "b", "a"]), ValueError, r"categories\[2\] = 'a' repeats.*\[0\]"),
    (lambda: Categorical([1, 1.0]), ValueError, r"categories must be distinct"),
    (lambda: Categorical(["a", float("nan")]), ValueError, r"categories\[1\] is NaN"),
    (lambda: Categorical("abc"), TypeError, r"categories must be a sequence"),
    (lambda: Categorical(3), TypeError, r"categories must be a sequence"),
    (lambda: Categorical([["x"]]), TypeError, r"categories\[0\] must be hashable"),
    # spaces
    (lambda: Space([]), ValueError, r"dimensions must hold at least one"),
    (lambda: Space("ab"), TypeError, r"dimensions must be a list of dimensions"),
    (lambda: Space(None), TypeError, r"dimensions must be a list"),
    (lambda: Space([3]), TypeError, r"dimensions\[0\] must be a Real, Integer or Categorical"),
    (lambda: Space([(0, 1), (5, 1)]), ValueError, r"dimensions\[1\] = \(5, 1\), read as Integer"),
    (lambda: Space([(0.0, 1.0, "log-uniform")]), ValueError, r"dimensions\[0\].*low must be > 0"),
    (lambda: Space([[]]), ValueError, r"dimensions\[0\] = \[\], read as Categorical"),
    (lambda: Space([("a", "a")]), ValueError, r"dimensions\[0\].*categories must be distinct"),
    (lambda: Space({"a": Real(0, 1, name="b")}), ValueError, r"dimensions\['a'\] is named 'b'"),
    (lambda: Space({1: Real(0, 1)}), TypeError, r"keys\) of dimensions must be non-empty str"),
    (lambda: Space([Real(0, 1, name="x1"), (0, 1)]), ValueError, r"both named 'x1'"),
    (lambda: Space(np.zeros((2, 3))), ValueError, r"bounds of shape \(d, 2\).*\(2, 3\)"),
    (lambda: Space(np.array([[1.0, 0.0]])), ValueError, r"dimensions\[0\].*low must be < high"),
]

SPACE = Space({"lr": Real(1e-3, 1, "log-uniform"), "depth": (1, 8), "kernel": ["rbf", "mat"]})

POINT_ERRORS: list[tuple[Any, type[Exception], str]] = [
    (lambda: SPACE.validate([0.1, 3]), ValueError, r"point has 2 values.*3 dimensions"),
    (lambda: SPACE.validate([0.1, 3, "rbf", 1]), ValueError, r"point has 4 values"),
    (
        lambda: SPACE.validate([2.0, 3, "rbf"]),
        ValueError,
        r"point\[0\] \(dimension 'lr'\) must be a number in \[0.001, 1.0\], got 2.0",
    ),
    (lambda: SPACE.validate([0.1, 9, "rbf"]), ValueError, r"'depth'\) must be an integer in"),
    (lambda: SPACE.validate([0.1, 2.5, "rbf"]), ValueError, r"'depth'\) must be an integer"),
    (lambda: SPACE.validate([0.1, "3", "rbf"]), TypeError, r"'depth'\) must be an integer"),
    (lambda: SPACE.validate([None, 3, "rbf"]), TypeError, r"'lr'\) must be a number"),
    (lambda: SPACE.validate([0.1, 3, "lin"]), ValueError, r"'kernel'\) must be one of 'rbf'"),
    (lambda: SPACE.validate(0.1), TypeError, r"point must be a sequence of 3 values"),
    (lambda: SPACE.validate("abc"), TypeError, r"point must be a sequence"),
    (lambda: SPACE.to_dict([0.1, 3]), ValueError, r"point has 2 values"),
    (
        lambda: SPACE.transform([[0.1, 3, "rbf"], [0.1, 0, "rbf"]]),
        ValueError,
        r"points\[1\]\[1\] \(dimension 'depth'\) must be an integer in \[1, 8\], got 0",
    ),
    (lambda: SPACE.transform([0.1, 3, "rbf"]), TypeError, r"points\[0\].*pass \[point\]"),
    (lambda: SPACE.transform([[0.1, 3]]), ValueError, r"points\[0\] has 2 values"),
    (lambda: SPACE.transform(np.zeros((2, 2))), ValueError, r"points must have shape \(n, 3\)"),
    (lambda: SPACE.transform(5), TypeError, r"points must be a sequence"),
    (lambda: SPACE.inverse_transform(np.zeros((2, 3))), ValueError, r"Z has 3 features.*4"),
    (lambda: SPACE.inverse_transform(np.zeros(4)), ValueError, r"Z must be 2-dimensional"),
    (lambda: SPACE.inverse_transform([[np.nan] * 4]), ValueError, r"Z contains NaN"),
    (lambda: SPACE.sample(4, "grid"), ValueError, r"method must be one of 'random', 'sobol'"),
    (lambda: SPACE.sample(0), ValueError, r"n_samples must be >= 1"),
    (lambda: SPACE.rvs(2.5), TypeError, r"n_samples must be an integer"),
    (lambda: SPACE.rvs(2, random_state="x"), TypeError, r"random_state must be"),
    (lambda: Real(0, 1).transform([0.5, 2]), ValueError, r"values\[1\] must be a number in"),
    (lambda: Real(0, 1).transform(np.array([0.5, np.nan])), ValueError, r"values\[1\]"),
    (lambda: Integer(0, 3).transform(np.array([1.5])), ValueError, r"values\[0\] must be an int"),
    (lambda: Real(0, 1).transform(0.5), TypeError, r"values must be a sequence"),
    (lambda: Categorical(["a"]).transform("a"), TypeError, r"not a single str; wrap it"),
    (lambda: Real(0, 1).transform(np.zeros((2, 2))), ValueError, r"values must be 1-dim"),
    (lambda: Categorical(["a", "b"]).transform(["c"]), ValueError, r"values\[0\] must be one of"),
    (lambda: Categorical(["a", "b"]).inverse_transform([0.3]), ValueError, r"shape \(n, 2\)"),
    (lambda: Real(0, 1).inverse_transform([[0.1, 0.2]]), ValueError, r"Z must have shape \(n, 1"),
    (lambda: Real(0, 1).inverse_transform([np.inf]), ValueError, r"Z contains NaN or infinity"),
    (lambda: Integer(0, 3).rvs(0), ValueError, r"n_samples must be >= 1"),
]


@pytest.mark.parametrize(("make", "error", "match"), ERRORS + POINT_ERRORS)
def test_bad_input_is_named(make: Any, error: type[Exception], match: str):
    with pytest.raises(error, match=match):
        make()
