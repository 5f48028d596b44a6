"""The public face of kernelkit.features.theory: layout, argument names, results, bad input.

The MSE formulas themselves are checked against Monte Carlo in ``test_theory.py``; this file
checks the package re-exports, the glossary names of the arguments (``n_components`` for
projections and sign features, ``n_frequencies`` for Fourier features, ``n_blocks`` for
Hadamard factors) in their positional order, the recommender and the error messages.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import itertools

import numpy as np
import pytest

from kernelkit.features import theory as th
from kernelkit.kernels import RBF, Angular, Laplace, Matern, RationalQuadratic, Sinc

MODULES = ["inner_products", "angular", "fourier", "recommend"]

# positional order of every public function (experiments call them positionally)
SIGNATURES = {
    "mse_iid_inner": ["x", "y", "n_components"],
    "mse_orthogonal_inner": ["x", "y", "n_components"],
    "mse_hadamard_inner": ["x", "y", "n_components", "n_blocks", "subsampling", "hybrid"],
    "mse_angular_iid": ["theta", "n_components"],
    "mse_angular_orthogonal": ["theta", "n_components", "d"],
    "fourier_norm_density": ["kernel", "d"],
    "charm": ["kernel", "z"],
    "mse_rff_iid": ["kernel", "z", "n_frequencies", "features"],
    "mse_rff_orthogonal": ["kernel", "z", "n_frequencies", "d", "features"],
    "mse_difference_orf_iid": ["kernel", "z", "n_frequencies", "d"],
    "mse_difference_orf_iid_asymptotic": ["kernel", "z", "n_frequencies", "d"],
    "recommend_features": ["kernel", "d", "target_mse", "z", "X", "features"],
}


# ---------------------------------------------------------------------- layout
def test_package_reexports_every_module_name():
    exported = set(th.__all__)
    for name in MODULES:
        module = importlib.import_module(f"kernelkit.features.theory.{name}")
        assert set(module.__all__) <= exported, name
        for public in module.__all__:
            assert getattr(th, public) is getattr(module, public)
    assert exported == set(SIGNATURES) | {"FeatureRecommendation", "PointMass"}


def test_old_module_is_gone():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("kernelkit.features._quadrature")


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_argument_names_and_order(name):
    params = inspect.signature(getattr(th, name)).parameters
    assert list(params) == SIGNATURES[name]
    assert "m" not in params and "k" not in params


def test_keyword_and_positional_calls_agree():
    x, y = np.array([1.0, 2.0, -1.0]), np.array([0.5, 0.0, 2.0])
    assert th.mse_iid_inner(x, y, n_components=5) == th.mse_iid_inner(x, y, 5)
    assert th.mse_orthogonal_inner(x, y, n_components=2) == th.mse_orthogonal_inner(x, y, 2)
    assert th.mse_hadamard_inner(x, y, n_components=3, n_blocks=2) == th.mse_hadamard_inner(
        x, y, 3, 2
    )
    assert th.mse_angular_orthogonal(1.0, n_components=3, d=4) == th.mse_angular_orthogonal(
        1.0, 3, 4
    )
    assert th.mse_rff_iid("rbf", 1.0, n_frequencies=3) == th.mse_rff_iid("rbf", 1.0, 3)
    assert th.mse_rff_orthogonal("rbf", 1.0, n_frequencies=3, d=4) == th.mse_rff_orthogonal(
        "rbf", 1.0, 3, 4
    )


@pytest.mark.parametrize(
    ("name", "kernel"),
    [
        ("rbf", RBF()),
        ("gaussian", RBF()),
        ("laplace", Laplace()),
        ("matern12", Matern(nu=0.5)),
        ("matern32", Matern(nu=1.5)),
        ("matern52", Matern(nu=2.5)),
        ("Matern-5/2", Matern(nu=2.5)),
        ("sinc", Sinc()),
    ],
)
def test_kernel_names_resolve_like_objects(name, kernel):
    z = np.array([0.0, 0.4, 1.3])
    assert np.array_equal(th.charm(name, z), th.charm(kernel, z))
    assert np.array_equal(
        th.mse_rff_orthogonal(name, z, 5, 3), th.mse_rff_orthogonal(kernel, z, 5, 3)
    )
    assert th.fourier_norm_density(name, 2).cdf(0.7) == th.fourier_norm_density(kernel, 2).cdf(0.7)


def test_hadamard_n_blocks_matches_the_closed_form():
    # Thm 6.7 with D = 4, m = 2, k = n_blocks = 2: (1/m)(D-m)/(D-1) [(a+b) - 2/D (2a+b) + 4/D c]
    x, y = np.array([1.0, 2.0, 0.0, -1.0]), np.array([0.5, -1.0, 3.0, 1.0])
    a, b, c = (x @ y) ** 2, (x @ x) * (y @ y), np.sum((x * y) ** 2)
    expected = 0.5 * 2 / 3 * ((a + b) - 0.5 * (2 * a + b) + c)
    assert th.mse_hadamard_inner(x, y, 2, n_blocks=2) == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------------- recommend_features
def test_recommendation_is_a_frozen_dataclass():
    rec = th.recommend_features("rbf", 4, 1e-2, z=1.0)
    assert dataclasses.is_dataclass(rec)
    assert [f.name for f in dataclasses.fields(rec)] == [
        "n_frequencies_iid",
        "n_frequencies_orthogonal",
        "saving",
        "z",
        "mse_iid",
        "mse_orthogonal",
        "n_components_iid",
        "n_components_orthogonal",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.n_frequencies_iid = 3  # type: ignore[misc]


@pytest.mark.parametrize(("features", "width"), [("cos_sin", 2), ("cos_bias", 1)])
def test_recommendation_widths(features, width):
    rec = th.recommend_features(Matern(nu=1.5), 5, 2e-3, z=0.8, features=features)
    assert rec.n_components_iid == width * rec.n_frequencies_iid
    assert rec.n_components_orthogonal == width * rec.n_frequencies_orthogonal
    assert rec.mse_iid == th.mse_rff_iid(
        Matern(nu=1.5), 0.8, rec.n_frequencies_iid, features=features
    )


def test_recommend_features_consistent_and_monotone():
    k = Matern(nu=2.5, lengthscale=1.5, variance=2.0)
    targets = (1e-2, 3e-3, 1e-3, 3e-4)
    recs = [th.recommend_features(k, 6, t, z=1.0) for t in targets]
    assert all(
        a.n_frequencies_iid <= b.n_frequencies_iid
        and a.n_frequencies_orthogonal <= b.n_frequencies_orthogonal
        for a, b in itertools.pairwise(recs)
    )
    for rec, t in zip(recs, targets, strict=True):
        n_iid, n_ort = rec.n_frequencies_iid, rec.n_frequencies_orthogonal
        assert th.mse_rff_iid(k, 1.0, n_iid) <= t < th.mse_rff_iid(k, 1.0, n_iid - 1)
        ns = range(n_ort, n_ort + 13)
        assert all(th.mse_rff_orthogonal(k, 1.0, n, 6) <= t * (1 + 1e-12) for n in ns)
        assert th.mse_rff_orthogonal(k, 1.0, n_ort - 1, 6) > t
        assert rec.mse_orthogonal == pytest.approx(th.mse_rff_orthogonal(k, 1.0, n_ort, 6))
        assert rec.saving == pytest.approx(1 - n_ort / n_iid)
        assert n_ort < n_iid


def test_recommend_features_distance_defaults():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 3))
    from kernelkit.kernels import median_heuristic

    assert th.recommend_features("rbf", 3, 1e-2, X=X).z == pytest.approx(median_heuristic(X))
    assert th.recommend_features(RBF(lengthscale=2.5), 3, 1e-2).z == 2.5
    rec = th.recommend_features("sinc", 3, 1e-3, z=0.0)
    assert rec.n_frequencies_iid == rec.n_frequencies_orthogonal == 1


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("call", "exc", "word"),
    [
        (lambda: th.mse_iid_inner([1, 2], [1, 2], 0), ValueError, "n_components"),
        (lambda: th.mse_iid_inner([1, 2], [1, 2], 2.5), TypeError, "n_components"),
        (lambda: th.mse_orthogonal_inner([1, 2], [1, 2], 0), ValueError, "n_components"),
        (lambda: th.mse_orthogonal_inner([1, 2], [1, 2, 3], 2), ValueError, "y"),
        (lambda: th.mse_orthogonal_inner([[1, 2]], [[1, 2]], 2), ValueError, "x"),
        (lambda: th.mse_hadamard_inner([1, 2], [1, 2], 0), ValueError, "n_components"),
        (lambda: th.mse_hadamard_inner([1, 2], [1, 2], 2, 0), ValueError, "n_blocks"),
        (
            lambda: th.mse_hadamard_inner([1, 2], [1, 2], 2, subsampling="last"),
            ValueError,
            "subsampling",
        ),
        (lambda: th.mse_hadamard_inner([1, 2], [1, 2], 2, hybrid="yes"), TypeError, "hybrid"),
        (lambda: th.mse_angular_iid(4.0, 2), ValueError, "theta"),
        (lambda: th.mse_angular_iid(-0.1, 2), ValueError, "theta"),
        (lambda: th.mse_angular_iid(1.0, 0), ValueError, "n_components"),
        (lambda: th.mse_angular_orthogonal(1.0, 1.5, 3), TypeError, "n_components"),
        (lambda: th.mse_angular_orthogonal(1.0, 2, 0), ValueError, "d"),
        (lambda: th.charm("cauchy", 1.0), ValueError, "kernel"),
        (lambda: th.charm(3.0, 1.0), TypeError, "kernel"),
        (lambda: th.charm(Angular(), 1.0), TypeError, "kernel"),
        (lambda: th.charm(RationalQuadratic(), 1.0), TypeError, "kernel"),
        (lambda: th.charm(RBF() + RBF(), 1.0), TypeError, "kernel"),
        (lambda: th.charm(RBF(lengthscale=[1.0, 2.0]), 1.0), ValueError, "kernel"),
        (lambda: th.charm("rbf", -1.0), ValueError, "z"),
        (lambda: th.mse_rff_iid("rbf", 1.0, 0), ValueError, "n_frequencies"),
        (lambda: th.mse_rff_orthogonal("rbf", 1.0, 0, 3), ValueError, "n_frequencies"),
        (lambda: th.mse_rff_iid("rbf", 1.0, 2, features="sin"), ValueError, "features"),
        (lambda: th.mse_difference_orf_iid("rbf", 1.0, 2, 0), ValueError, "d"),
        (lambda: th.mse_difference_orf_iid("sinc", 1.0, 2, 4), ValueError, "d"),
        (lambda: th.mse_difference_orf_iid_asymptotic("rbf", 1.0, 2.0, 3), TypeError, "n_freq"),
        (lambda: th.fourier_norm_density("rbf", 1.5), TypeError, "d"),
        (lambda: th.recommend_features("rbf", 3, 0.0), ValueError, "target_mse"),
        (lambda: th.recommend_features("rbf", 3, 1e-2, z=[1.0, 2.0]), ValueError, "z"),
        (lambda: th.recommend_features("rbf", 3, 1e-2, X=np.ones((4, 2))), ValueError, "X"),
        (lambda: th.recommend_features("rbf", 3, 1e-2, features="x"), ValueError, "features"),
    ],
)
def test_bad_input(call, exc, word):
    with pytest.raises(exc, match=word):
        call()
