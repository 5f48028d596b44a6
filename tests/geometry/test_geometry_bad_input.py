"""kernelkit.geometry: polytopes and data of extreme magnitude, sizes beyond memory.

The house rule: finite input of any magnitude gives a finite, correct result or a clear
error naming the argument. Named after the area (not ``test_bad_input.py``): the test
folders are not packages, and two test modules of one name in different folders cannot be
collected in one run.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from kernelkit.geometry import (
    HalfspaceIntersectionClassifier,
    ModifiedPerceptron,
    NoisyHalfspaceLearner,
    Perceptron,
    Polytope,
    contingency_table_polytope,
    count_lattice_points,
    enlarge_polytope,
    enumerate_lattice_points,
    estimate_volume,
    generate_corpus,
    hit_and_run,
    sample_lattice_points,
    simplex_polytope,
)

SQUARE = np.vstack([np.eye(2), -np.eye(2)])


def _box(half_width):
    """The square [-h, h]^2 as {x : A x <= b}."""
    return Polytope(SQUARE, [half_width] * 4)


def _tiny_box():
    """The square [-1e-300, 1e-300]^2 written with rows of norm 1e300."""
    return Polytope(SQUARE * 1e300, [1.0] * 4)


# ---------------------------------------------------------------- linear programs


def test_a_huge_box_is_bounded():
    """HiGHS reads 1e20 and beyond as infinite: the box was called unbounded."""
    P = _box(1e300)
    assert not P.is_empty() and P.is_bounded()
    lo, hi = P.bounding_box()
    np.testing.assert_allclose(hi, [1e300, 1e300], rtol=1e-9)
    np.testing.assert_allclose(lo, [-1e300, -1e300], rtol=1e-9)
    centre, radius = P.chebyshev_ball()
    assert radius == pytest.approx(1e300, rel=1e-9) and np.all(np.abs(centre) <= 1e291)


def test_a_tiny_box_is_not_empty():
    """Rows of norm 1e300: the feasibility LP called the box empty."""
    P = _tiny_box()
    assert not P.is_empty()
    lo, hi = P.bounding_box()
    np.testing.assert_allclose(hi, [1e-300, 1e-300], rtol=1e-9)
    np.testing.assert_allclose(lo, -hi, rtol=1e-9)
    assert P.chebyshev_ball()[1] == pytest.approx(1e-300, rel=1e-9)


def test_a_zero_row_is_a_constraint_on_b():
    assert Polytope(np.vstack([SQUARE, [[0.0, 0.0]]]), [1, 1, 1, 1, -1.0]).is_empty()
    P = Polytope(np.vstack([SQUARE, [[0.0, 0.0]]]), [1, 1, 1, 1, 0.0])
    assert not P.is_empty() and P.chebyshev_ball()[1] == pytest.approx(1.0)


# ---------------------------------------------------------------- samplers and counters


def test_hit_and_run_on_a_huge_simplex_is_the_scaled_simplex():
    """Uniform on s * simplex is s * uniform on the simplex (mean 1/3 per coordinate)."""
    S = simplex_polytope(2, 1.0)
    P = Polytope(S.A, S.b * 1e300)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        X = hit_and_run(P, 4000, random_state=0)
    assert np.isfinite(X).all() and P.contains(X).all()
    # standard error of a mean of uniform simplex coordinates: sqrt(1/18 / 4000) = 0.004
    np.testing.assert_allclose(X.mean(axis=0) / 1e300, [1 / 3, 1 / 3], atol=0.02)


def test_hit_and_run_in_a_tiny_box():
    P = _tiny_box()
    X = hit_and_run(P, 500, random_state=0)
    assert P.contains(X).all() and np.abs(X).max() > 1e-301  # spread over the box


def test_volume_of_a_scaled_box_scales_and_beyond_float64_is_named():
    """vol([-2^200, 2^200]^2) = 2^402 (the box was "unbounded"). [-1e300, 1e300]^2 has
    volume 4e600: no float64, a ValueError (it was overflow warnings)."""
    res = estimate_volume(_box(2.0**200), n_chains=200, random_state=0)
    assert abs(res.estimate / 2.0**402 - 1.0) < 4 * res.stderr / 2.0**402
    with pytest.raises(ValueError, match=r"volume of the polytope is about 10\^600.6, outside"):
        estimate_volume(_box(1e300), n_chains=40, random_state=0)
    with pytest.raises(ValueError, match=r"about 10\^-599.4, outside the float64 range"):
        estimate_volume(_tiny_box(), n_chains=40, random_state=0)
    with pytest.raises(ValueError, match="volume of the enlarged polytope is about 10"):
        count_lattice_points(_box(1e300), n_chains=40, random_state=0)


def test_lattice_points_of_a_tiny_box_are_the_origin():
    """[-1e-300, 1e-300]^2 holds one lattice point; enlarging it overflowed (|A_i|^2)."""
    P = _tiny_box()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        grown = enlarge_polytope(P)
        res = count_lattice_points(P, n_chains=400, random_state=0)
        sample = sample_lattice_points(P, 20, random_state=0)
    assert np.isfinite(grown.b).all()
    lo, hi = res.confidence_interval()
    assert lo <= 1.0 <= hi
    assert np.all(sample.points == 0.0)
    assert enumerate_lattice_points(P).tolist() == [[0.0, 0.0]]


def test_enumerating_a_huge_box_is_refused_without_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match=r"would hold 2e\+300 partial points"):
            enumerate_lattice_points(_box(1e300))


def test_lift_names_its_argument():
    with pytest.raises(TypeError, match="X must be an array of numbers, got NoneType"):
        _box(1.0).lift(None)
    with pytest.raises(TypeError, match="X must be an array of numbers, got str"):
        _box(1.0).lift("ab")
    assert _box(1.0).lift([[0.5, 0.25]]).tolist() == [[0.5, 0.25]]


def test_margins_beyond_exact_floats_are_refused():
    """Integers above 2**53 are not float64s: 10**20 was a TypeError about dtype object,
    1e20 a silently wrapped int64."""
    with pytest.raises(ValueError, match=r"row_sums must hold integers up to 2\*\*53"):
        contingency_table_polytope([10**20, 1], [10**20, 1])
    with pytest.raises(ValueError, match=r"row_sums must hold integers up to 2\*\*53"):
        contingency_table_polytope([1e20, 1.0], [1e20, 1.0])


def test_sizes_beyond_memory_are_refused_up_front():
    with pytest.raises(ValueError, match=r"hit_and_run\(n_samples=1000000000000\).*more than"):
        hit_and_run(_box(1.0), 10**12)
    with pytest.raises(ValueError, match=r"generate_corpus\(n_documents=1000000000.*more than"):
        generate_corpus(10**9, 10**9, 10, random_state=0)


# ---------------------------------------------------------------- classifiers


@pytest.fixture(scope="module")
def separable():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((60, 3))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Perceptron(fit_intercept=False, random_state=0),
        lambda: ModifiedPerceptron(fit_intercept=False, random_state=0),
        lambda: NoisyHalfspaceLearner(fit_intercept=False, random_state=0),
        lambda: HalfspaceIntersectionClassifier(random_state=0),
        lambda: HalfspaceIntersectionClassifier(fit_intercept=True, random_state=0),
    ],
    ids=["perceptron", "modified", "noisy", "intersection", "intersection-intercept"],
)
@pytest.mark.parametrize("scale", [2.0**1000, 2.0**-1000], ids=["2^1000", "2^-1000"])
def test_classifiers_do_not_depend_on_the_scale_of_x(separable, make, scale):
    """Normalising rows squared their entries: at 1e300 the norms overflowed and every
    row became 0 (training accuracy 0.4 to 0.8 instead of 1); at 1e-300 they vanished.
    Without an intercept these classifiers see only directions, so a power-of-two scale
    changes nothing."""
    X, y = separable
    ref = make().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        est = make().fit(X * scale, y)
        pred = est.predict(X * scale)
    np.testing.assert_array_equal(pred, ref.predict(X))
