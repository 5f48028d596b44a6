"""Hit-and-run, randomised rounding, multiphase volume and lattice counts (Vempala 1997 Ch. 5).

Every Monte Carlo test is seeded (so deterministic) and states its tolerance: a chi-square
test at significance 0.001, or a bound of 4 standard errors.
"""

from __future__ import annotations

import math
from math import comb

import numpy as np
import pytest
from scipy import stats
from scipy.spatial import ConvexHull, HalfspaceIntersection

from kernelkit.geometry.lattice import (
    LatticeCount,
    count_lattice_points,
    enlarge_polytope,
    estimate_volume,
    hit_and_run,
    randomised_rounding,
    sample_lattice_points,
)
from kernelkit.geometry.polytopes import (
    Polytope,
    contingency_table_polytope,
    enumerate_lattice_points,
    simplex_polytope,
)

ALPHA = 1e-3  # significance of the chi-square tests


def exact_volume(P: Polytope) -> float:
    """Volume by Qhull (vertices from the half-space intersection), for small n."""
    centre = P.interior_point()
    vertices = HalfspaceIntersection(np.hstack([P.A, -P.b[:, None]]), centre).intersections
    return float(ConvexHull(vertices).volume)


def box(lo, hi) -> Polytope:
    n = len(lo)
    return Polytope(np.vstack([np.eye(n), -np.eye(n)]), np.r_[hi, -np.asarray(lo, float)])


# ---------------------------------------------------------------- randomised rounding


def test_randomised_rounding_is_unbiased():
    """E[X(p)] = p (Vempala 1997 §5.2): 200 000 roundings, mean within 4 standard errors."""
    p = np.array([-1.7, 0.0, 0.25, 0.5, 2.9, 3.0, 10.123])
    k = 200_000
    X = randomised_rounding(np.tile(p, (k, 1)), random_state=0)
    frac = p - np.floor(p)
    assert set(np.unique(X - np.floor(p))) <= {0.0, 1.0}
    se = np.sqrt(frac * (1 - frac) / k)
    assert np.all(np.abs(X.mean(axis=0) - p) <= 4 * se + 1e-12)
    np.testing.assert_array_equal(X[:, [1, 5]], np.tile([0.0, 3.0], (k, 1)))  # integers stay


def test_randomised_rounding_bad_input_and_seed():
    with pytest.raises(ValueError, match="NaN or infinity"):
        randomised_rounding([np.nan])
    with pytest.raises(ValueError, match="non-empty 1-D or 2-D"):
        randomised_rounding(np.zeros((2, 2, 2)))
    a = randomised_rounding(np.linspace(0, 5, 50), random_state=3)
    np.testing.assert_array_equal(a, randomised_rounding(np.linspace(0, 5, 50), random_state=3))


# ---------------------------------------------------------------- hit-and-run


def test_hit_and_run_uniform_on_triangle_chi_square():
    """Independent chains on {x, y >= 0, x + y <= 1}; 4 x 4 grid cells, areas known exactly."""
    P = simplex_polytope(2, 1.0)
    X = hit_and_run(P, 8000, n_steps=40, random_state=0)
    assert P.contains(X).all()
    k = 4
    i, j = np.minimum((X * k).astype(int), k - 1).T
    counts = np.zeros((k, k))
    np.add.at(counts, (i, j), 1)
    # cells below the anti-diagonal are whole (1/k^2), on it half, above it empty
    area = (
        np.array(
            [
                [1.0 if a + b < k - 1 else 0.5 if a + b == k - 1 else 0.0 for b in range(k)]
                for a in range(k)
            ]
        )
        / k**2
    )
    mask = area > 0
    assert counts[~mask].sum() == 0
    expected = area[mask] / area.sum() * len(X)
    assert stats.chisquare(counts[mask], expected).pvalue > ALPHA


def test_hit_and_run_uniform_on_square_chi_square():
    P = box([0.0, 0.0], [1.0, 3.0])
    X = hit_and_run(P, 6000, n_steps=40, start=[0.1, 0.1], random_state=1)
    cells = np.floor(X * [3, 1]).astype(int)  # 3 x 3 cells of equal area
    counts = np.bincount(cells[:, 0] * 3 + cells[:, 1], minlength=9)
    assert stats.chisquare(counts).pvalue > ALPHA


def test_hit_and_run_checks_input_and_is_reproducible():
    P = simplex_polytope(3, 2.0)
    a = hit_and_run(P, 50, random_state=7)
    np.testing.assert_array_equal(a, hit_and_run(P, 50, random_state=7))
    with pytest.raises(ValueError, match="start must lie inside"):
        hit_and_run(P, 5, start=[3.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"start must have shape \(3,\)"):
        hit_and_run(P, 5, start=[0.1, 0.1])
    with pytest.raises(TypeError, match="polytope must be a Polytope"):
        hit_and_run(np.eye(3), 5)
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        hit_and_run(P, 0)
    with pytest.raises(ValueError, match="unbounded"):
        hit_and_run(Polytope([[-1.0, 0.0], [0.0, -1.0]], [0.0, 0.0]), 5)


# ---------------------------------------------------------------- volume


@pytest.mark.parametrize(
    ("P", "exact"),
    [
        (box([0.0, 0.0, 0.0], [2.0, 3.0, 1.0]), 6.0),
        (simplex_polytope(4, 3.0), 3.0**4 / 24),
        (box([-1.0], [4.0]), 5.0),
    ],
)
def test_volume_of_box_and_simplex(P, exact):
    res = estimate_volume(P, n_chains=2000, random_state=0)
    assert abs(res.estimate - exact) <= 4 * res.stderr + 1e-9 * exact  # 1-D: exact
    assert abs(res.estimate / exact - 1) < 0.05
    assert res.n_phases >= 1 and res.n_samples > 0


def test_volume_of_enlarged_contingency_polytope_vs_qhull():
    Pp = enlarge_polytope(contingency_table_polytope([5, 6, 7], [6, 6, 6]))
    exact = exact_volume(Pp)
    res = estimate_volume(Pp, n_chains=2000, random_state=2)
    assert abs(res.estimate - exact) <= 4 * res.stderr
    assert abs(res.estimate / exact - 1) < 0.05


# ---------------------------------------------------------------- enlargement, Thm 14, Lemma 11


def test_enlargement_formula():
    P = Polytope([[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0]], [4.0, 0.0, 0.0])
    grow = 1.5 + math.sqrt(2 * math.log(3))
    Pt = enlarge_polytope(P, 1.5, cap=False)  # r defaults to m = 3
    np.testing.assert_allclose(Pt.b, P.b + grow * np.array([math.sqrt(2), 1, 1]))
    Pc = enlarge_polytope(P, 1.5)  # capped at |A_i|_1
    np.testing.assert_allclose(Pc.b, P.b + np.array([2.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="c must be finite and > 0"):
        enlarge_polytope(P, 0.0)
    with pytest.raises(ValueError, match="r must be >= 1"):
        enlarge_polytope(P, 1.0, r=0)
    with pytest.raises(TypeError, match="cap must be a bool"):
        enlarge_polytope(P, 1.0, cap=1)


def _uniform_in(P: Polytope, k: int, rng: np.random.RandomState) -> np.ndarray:
    """Exactly uniform points of a 2-D polytope by rejection from its bounding box."""
    lo, hi = P.bounding_box()
    out = []
    while sum(len(o) for o in out) < k:
        X = lo + rng.random_sample((4 * k, len(lo))) * (hi - lo)
        out.append(X[P.contains(X)])
    return np.vstack(out)[:k]


@pytest.mark.parametrize("cap", [False, True])
def test_theorem_14_bounds_per_lattice_point(cap):
    """(1 - 2e^{-c^2})/vol(P') <= Pr(X(p) = x) <= 1/vol(P') for every x in P ∩ Z^2.

    p is exactly uniform in P' (ε = 0); each frequency is checked within 4 binomial standard
    errors. With the cap the cube C(x, 1) lies in P' and the probability is exactly
    1/vol(P') (both sides checked).
    """
    c = 1.2
    P = Polytope([[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0]], [6.0, 0.0, 0.0])
    Pp = enlarge_polytope(P, c, r=1, cap=cap)
    vol = exact_volume(Pp)
    k = 250_000
    rng = np.random.RandomState(0)
    Z = randomised_rounding(_uniform_in(Pp, k, rng), rng)
    lattice = enumerate_lattice_points(P)
    for x in lattice:
        freq = np.mean(np.all(Z == x, axis=1))
        se = math.sqrt(freq * (1 - freq) / k)
        lower = (1 - 2 * math.exp(-(c**2))) / vol
        assert lower - 4 * se <= freq <= 1 / vol + 4 * se
        if cap:
            assert abs(freq - 1 / vol) <= 4 * se
    # acceptance x vol(P') estimates the count (exactly unbiased with the cap)
    acc = np.mean(P.contains(Z))
    assert abs(acc * vol - len(lattice)) <= 4 * vol * math.sqrt(acc * (1 - acc) / k)


@pytest.mark.parametrize(
    "P",
    [
        box([-31.0, -31.0], [31.0, 31.0]),
        Polytope([[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0]], [45.0, 31.0, 31.0]),
    ],
)
def test_lemma_11_acceptance_at_least_one_32nd(P):
    """b_i >= 8 n sqrt(log(r/ε)) |A_i| (ε = 0.1, r = m), c = sqrt(ln(4/ε)), thesis's P'."""
    eps, n, r = 0.1, P.n_dims, P.n_constraints
    assert np.all(P.b >= 8 * n * math.sqrt(math.log(r / eps)) * np.linalg.norm(P.A, axis=1))
    res = count_lattice_points(
        P, c=math.sqrt(math.log(4 / eps)), cap=False, n_chains=400, random_state=0
    )
    assert res.acceptance_rate >= 1 / 32


# ---------------------------------------------------------------- counting


@pytest.mark.parametrize(
    "P",
    [
        simplex_polytope(2, 10),
        simplex_polytope(3, 8),
        contingency_table_polytope([8, 9, 10], [9, 9, 9]),
        contingency_table_polytope([10, 10], [5, 5, 5, 5]),
    ],
)
def test_count_within_its_bound_of_exact_enumeration(P):
    exact = len(enumerate_lattice_points(P))
    res = count_lattice_points(P, n_chains=1000, random_state=0)
    assert isinstance(res, LatticeCount)
    assert abs(res.estimate - exact) <= 4 * res.stderr
    assert abs(res.estimate / exact - 1) <= 0.10
    lo, hi = res.confidence_interval(0.999)
    assert lo <= exact <= hi
    assert res.estimate == pytest.approx(res.acceptance_rate * res.volume)
    assert res.n_samples == 1000 * 5 * res.n_phases


def test_stderr_is_honest_over_seeds():
    """Coverage of the 95 % interval over 20 seeds: at least 16 (binomial(20, .95) >= 16 w.p.
    0.997); and the z-scores are not far more spread than N(0, 1)."""
    P = simplex_polytope(3, 6)
    exact = comb(9, 3)
    z, covered = [], 0
    for seed in range(20):
        res = count_lattice_points(P, n_chains=300, random_state=seed)
        lo, hi = res.confidence_interval(0.95)
        covered += lo <= exact <= hi
        z.append((res.estimate - exact) / res.stderr)
    assert covered >= 16
    assert np.std(z) < 1.6


def test_count_accepts_matrix_and_vector():
    P = simplex_polytope(2, 5)
    a = count_lattice_points(P.A, P.b, n_chains=200, random_state=4)
    b = count_lattice_points(P, n_chains=200, random_state=4)
    assert a.estimate == b.estimate and a.stderr == b.stderr  # same seed, same numbers
    c = count_lattice_points(P, n_chains=200, random_state=5)
    assert c.estimate != a.estimate


def test_count_bad_input():
    P = simplex_polytope(2, 5)
    with pytest.raises(ValueError, match="b must be None when A is a Polytope"):
        count_lattice_points(P, P.b)
    with pytest.raises(ValueError, match="b is required"):
        count_lattice_points(P.A)
    with pytest.raises(ValueError, match="n_chains must be >= 20"):
        count_lattice_points(P, n_chains=10)
    with pytest.raises(ValueError, match="n_groups must be >= 2"):
        count_lattice_points(P, n_groups=1)
    with pytest.raises(ValueError, match="c must be finite and > 0"):
        count_lattice_points(P, c=-1.0)
    with pytest.raises(ValueError, match="is empty"):
        count_lattice_points([[1.0], [-1.0]], [0.0, -1.0])
    with pytest.raises(ValueError, match="unbounded"):
        count_lattice_points([[-1.0, 0.0], [0.0, -1.0]], [0.0, 0.0])
    with pytest.raises(ValueError, match="b must have one entry per row of A"):
        count_lattice_points(np.eye(2), [1.0])
    flat = Polytope([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]], [0.0, 0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="not full-dimensional"):
        estimate_volume(flat)


# ---------------------------------------------------------------- rejection sampler


def test_rejection_sampler_uniform_on_lattice_points():
    P = simplex_polytope(2, 3)  # 10 lattice points
    res = sample_lattice_points(P, 5000, random_state=0)
    assert res.points.shape == (5000, 2)
    assert P.contains(res.points).all()
    assert np.all(res.points == np.round(res.points))
    _, counts = np.unique(res.points, axis=0, return_counts=True)
    assert len(counts) == comb(5, 2)
    assert stats.chisquare(counts).pvalue > ALPHA
    assert 0 < res.acceptance_rate <= 1 and res.n_proposals >= 5000
    again = sample_lattice_points(P, 5000, random_state=0)
    np.testing.assert_array_equal(res.points, again.points)


def test_rejection_sampler_gives_up_with_a_clear_error():
    with pytest.raises(ValueError, match="max_proposals=10"):
        sample_lattice_points(simplex_polytope(3, 2), 1000, max_proposals=10)
