"""scikit-learn conformance of the transformers: every estimator check, feature names,
pandas output, and pipeline / grid-search / clone / pickle round trips."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.features import (
    PROJECTION_COUPLINGS,
    AngularFeatures,
    RandomFourierFeatures,
    RandomProjection,
)
from kernelkit.kernels import RBF, Matern

# the checks fit on 1-5 features, where Hadamard couplings warn that they are biased
pytestmark = pytest.mark.filterwarnings("ignore:coupling='hadamard' with:UserWarning")

ESTIMATORS = [
    *(RandomFourierFeatures(20, coupling=c, random_state=0) for c in ("iid", "orthogonal")),
    RandomFourierFeatures(16, coupling="hadamard", kernel="laplace", random_state=0),
    RandomFourierFeatures(12, kernel="matern", features="cos_bias", random_state=0),
    RandomFourierFeatures(8, kernel=RBF(2.0, variance=0.5), coupling="sorf", random_state=0),
    RandomFourierFeatures(9, kernel=Matern(0.5, nu=1.5), features="cos_bias", coupling="orf"),
    # an odd cos/sin width: pairs and one random-phase column (some of scikit-learn's
    # checks set n_components=1, the random-phase column alone, on every estimator here)
    RandomFourierFeatures(7, kernel="matern52", coupling="orthogonal", random_state=0),
    *(AngularFeatures(16, coupling=c, random_state=0) for c in ("iid", "orthogonal", "hadamard")),
    *(RandomProjection(6, coupling=c, random_state=0) for c in PROJECTION_COUPLINGS),
]


def _expected_failures(estimator) -> dict[str, str]:
    if isinstance(estimator, AngularFeatures):
        return {
            "check_estimators_dtypes": "its integer data has all-zero rows, where the angular "
            "kernel is undefined: rejected by design, as kernels.Angular does",
        }
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_estimator_checks(estimator, check) -> None:
    check(estimator)


def test_hybrid_declares_that_it_preserves_no_dtype() -> None:
    # complex features from real input (Rowland (2018) eq. 6.11) are the design of the
    # S-Hybrid kind, declared through the tag, so the dtype check does not apply to it
    tags = RandomProjection(coupling="hybrid").__sklearn_tags__()
    assert tags.transformer_tags.preserves_dtype == []
    for coupling in ("iid", "hadamard"):
        tags = RandomProjection(coupling=coupling).__sklearn_tags__()
        assert tags.transformer_tags.preserves_dtype == ["float64", "float32"]
    X = np.random.default_rng(0).standard_normal((5, 8))
    hybrid = RandomProjection(4, coupling="hybrid", random_state=0)
    assert hybrid.fit_transform(X).dtype == complex
    F32 = hybrid.fit_transform(X.astype(np.float32))
    assert F32.dtype == np.complex64


# ---------------------------------------------------------------------------- feature names
X = np.random.default_rng(1).standard_normal((12, 5)) + 0.1


@pytest.mark.parametrize(
    ("est", "width", "prefix"),
    [
        (RandomFourierFeatures(14, random_state=0), 14, "randomfourierfeatures"),
        (RandomFourierFeatures(7, features="cos_bias", random_state=0), 7, "randomfourierfeatures"),
        (AngularFeatures(6, random_state=0), 6, "angularfeatures"),
        (RandomProjection(3, coupling="hadamard", random_state=0), 3, "randomprojection"),
        # jl_min_dim(12, 0.9) = 8 log(12) / 0.81 + 1 = 25 of 40 features
        (RandomProjection("auto", eps=0.9, random_state=0), 25, "randomprojection"),
    ],
    ids=["rff-cos-sin", "rff-cos-bias", "angular", "projection", "projection-auto"],
)
def test_get_feature_names_out_matches_the_output_width(est, width, prefix) -> None:
    Z = est.fit_transform(np.hstack([X] * 8))
    names = est.get_feature_names_out()
    assert Z.shape[1] == width == len(names)
    assert list(names) == [f"{prefix}{i}" for i in range(width)]


@pytest.mark.parametrize(
    "est",
    [
        RandomFourierFeatures(4, random_state=0),
        AngularFeatures(4, random_state=0),
        RandomProjection(3, random_state=0),
    ],
    ids=["rff", "angular", "projection"],
)
def test_pandas_input_and_output(est) -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(X, columns=list("abcde"))
    est.set_output(transform="pandas")
    out = est.fit_transform(df)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(est.get_feature_names_out())
    np.testing.assert_array_equal(est.feature_names_in_, list("abcde"))
    np.testing.assert_array_equal(
        out.to_numpy(), clone(est).set_output(transform="default").fit(X).transform(X)
    )
    with pytest.raises(ValueError, match="feature names"):
        est.transform(df[list("edcba")])


# ---------------------------------------------------------------------------- round trips
ROUND_TRIP = [
    RandomFourierFeatures(16, coupling="hadamard", kernel="matern", random_state=3),
    RandomFourierFeatures(16, coupling="orthogonal", features="cos_bias", random_state=3),
    AngularFeatures(16, coupling="hadamard", random_state=3),
    *(RandomProjection(8, coupling=c, random_state=3) for c in PROJECTION_COUPLINGS),
]
IDS = ["rff-hadamard", "rff-orthogonal", "angular"]
IDS += [f"projection-{c}" for c in PROJECTION_COUPLINGS]
X20 = np.random.default_rng(2).standard_normal((30, 20))


@pytest.mark.parametrize("est", ROUND_TRIP, ids=IDS)
def test_clone_and_pickle_give_identical_output(est) -> None:
    Z = clone(est).fit(X20).transform(X20)
    np.testing.assert_array_equal(clone(est).fit(X20).transform(X20), Z)
    fitted = clone(est).fit(X20)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.transform(X20), Z)
    np.testing.assert_array_equal(fitted.transform(X20), Z)  # pickling changed nothing


@pytest.mark.parametrize("est", ROUND_TRIP[:3] + ROUND_TRIP[3:5], ids=IDS[:5])
def test_pipeline_and_grid_search(est) -> None:
    rng = np.random.default_rng(4)
    X = rng.standard_normal((40, 20))
    y = np.sin(X[:, 0]) + X[:, 1]
    pipe = make_pipeline(clone(est), Ridge(alpha=1e-2)).fit(X, y)
    expected = (
        Ridge(alpha=1e-2)
        .fit(clone(est).fit_transform(X), y)
        .predict(clone(est).fit(X).transform(X[:5]))
    )
    np.testing.assert_allclose(pipe.predict(X[:5]), expected, rtol=1e-12, atol=1e-12)
    step = pipe.steps[0][0]
    search = GridSearchCV(
        make_pipeline(clone(est), Ridge()),
        {f"{step}__random_state": [0, 1], "ridge__alpha": [1e-2, 1.0]},
        cv=3,
    ).fit(X, y)
    best = search.best_estimator_
    refit = make_pipeline(clone(est), Ridge()).set_params(**search.best_params_).fit(X, y)
    np.testing.assert_array_equal(best.predict(X), refit.predict(X))
