"""RandomMap, the base class of the random maps: one set of shared parameters, one fit and
transform, couplings and their aliases everywhere, and a new map from two hooks."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.features import (
    COUPLING_ALIASES,
    COUPLINGS,
    PROJECTION_COUPLINGS,
    AngularFeatures,
    RandomFourierFeatures,
    RandomMap,
    RandomProjection,
)

MAPS = [RandomFourierFeatures, AngularFeatures, RandomProjection]
SHARED = {
    "n_components": 100,
    "coupling": "iid",
    "n_blocks": 3,
    "random_state": None,
    "n_jobs": None,
}
X = np.random.default_rng(0).standard_normal((6, 20)) + 0.1


class ReLUFeatures(RandomMap):
    """``max(W x, 0) sqrt(2 / m)`` with Gaussian rows: the arc-cosine kernel of order 1
    (Cho and Saul 2009), a map the library does not have, made from the two hooks."""

    _couplings = ("iid",)

    def _fit_random(self, X, directions, rng):
        self.W_ = directions.to_dense()
        self.n_parameter_bytes_ = self.W_.nbytes

    def _transform(self, X):
        out = self._empty_output(X)
        np.maximum(X @ self.W_.T.astype(X.dtype), 0.0, out=out)
        out *= np.sqrt(2.0 / self.n_components_)
        return out

    def _gain(self):
        return float(self.W_.shape[1]) * float(np.abs(self.W_).max())


@pytest.mark.parametrize("cls", MAPS)
def test_every_map_is_a_random_map_with_the_shared_parameters(cls) -> None:
    assert issubclass(cls, RandomMap)
    params = cls().get_params()
    assert {k: params[k] for k in SHARED} == SHARED
    # one fit and one transform: the maps fill in hooks, they do not rewrite the plumbing
    inherited = ["fit", "transform", "_n_features_out"]
    if cls is not RandomProjection:  # it draws other matrices, some of them complex
        inherited += ["_make_random_matrix", "__sklearn_tags__"]
    for method in inherited:
        assert getattr(cls, method) is getattr(RandomMap, method), (cls, method)
    assert AngularFeatures.__init__ is RandomMap.__init__  # nothing of its own to add


def test_the_subclass_constructors_only_add_their_own_parameters() -> None:
    base = list(inspect.signature(RandomMap).parameters)
    own = {RandomFourierFeatures: ["kernel", "features"], RandomProjection: ["eps"]}
    own[RandomProjection] += ["subsampling", "density"]
    for cls, extra in own.items():
        names = list(inspect.signature(cls).parameters)
        assert sorted(names) == sorted(base + extra)
        assert names[0] == "n_components"
        est = cls()
        for name in base:  # stored by RandomMap.__init__
            assert getattr(est, name) == SHARED[name]


@pytest.mark.parametrize(
    "make",
    [
        lambda c: RandomFourierFeatures(40, coupling=c, random_state=0),
        lambda c: RandomFourierFeatures(21, features="cos_bias", coupling=c, random_state=0),
        lambda c: AngularFeatures(24, coupling=c, random_state=0),
        lambda c: RandomProjection(24, coupling=c, random_state=0),
    ],
    ids=["rff", "rff-cos-bias", "angular", "projection"],
)
def test_aliases_orf_and_sorf_are_accepted_everywhere(make) -> None:
    for alias, name in COUPLING_ALIASES.items():
        est = make(alias).fit(X)
        assert est.coupling == alias  # the argument is stored unchanged (scikit-learn)
        assert est.coupling_ == name
        np.testing.assert_array_equal(est.transform(X), make(name).fit(X).transform(X))
        assert clone(est).get_params()["coupling"] == alias


def test_the_coupling_error_lists_the_accepted_values() -> None:
    aliases = r" \(or the aliases 'orf' for 'orthogonal', 'sorf' for 'hadamard'\); got "
    maps = "'iid', 'orthogonal', 'hadamard'"
    projections = "'iid', 'orthogonal', 'hadamard', 'hybrid', 'sparse', 'fjlt'"
    for est, accepted in [
        (RandomFourierFeatures(4, coupling="gaussian"), maps),
        (AngularFeatures(4, coupling="gaussian"), maps),
        (RandomFourierFeatures(4, coupling="sparse"), maps),  # a projection's coupling
        (RandomProjection(4, coupling="gaussian"), projections),
    ]:
        bad = est.coupling
        match = f"coupling must be one of {accepted}{aliases}{bad!r}"
        with pytest.raises(ValueError, match=match):
            est.fit(X)
    assert COUPLINGS == PROJECTION_COUPLINGS[:3]
    with pytest.raises(ValueError, match=re.escape("got 'ORF'")):  # names are exact
        AngularFeatures(4, coupling="ORF").fit(X)


@pytest.mark.parametrize("cls", MAPS)
def test_fit_bookkeeping_is_the_base_class(cls) -> None:
    est = cls(8, random_state=0)
    assert est.fit(X) is est
    assert est.n_features_in_ == 20 and est.n_components_ == 8 and est.coupling_ == "iid"
    prefix = cls.__name__.lower()
    assert list(est.get_feature_names_out()) == [f"{prefix}{i}" for i in range(8)]
    assert est.n_parameter_bytes_ > 0
    # a failed fit leaves an unfitted estimator: nothing is set before the draw succeeds
    fresh = cls(8, n_blocks=0)
    with pytest.raises(ValueError, match="n_blocks must be >= 1"):
        fresh.fit(X)
    assert not hasattr(fresh, "n_components_") and not hasattr(fresh, "n_features_in_")


def test_hadamard_warning_points_at_the_caller() -> None:
    with pytest.warns(UserWarning, match="biased") as record:
        AngularFeatures(4, coupling="hadamard").fit(np.ones((2, 5)))
    assert record[0].filename == __file__


def test_a_new_map_from_the_hooks() -> None:
    # the arc-cosine kernel of order 1: k(x, y) = |x||y| (sin t + (pi - t) cos t) / pi
    Xs = np.random.default_rng(1).standard_normal((3, 5))
    m = 200000
    Z = ReLUFeatures(m, random_state=0).fit_transform(Xs)
    norms = np.linalg.norm(Xs, axis=1)
    cos = np.clip(Xs @ Xs.T / np.outer(norms, norms), -1.0, 1.0)
    t = np.arccos(cos)
    K = np.outer(norms, norms) * (np.sin(t) + (np.pi - t) * cos) / np.pi
    np.testing.assert_allclose(Z @ Z.T, K, atol=0.05 * K.max())
    with pytest.raises(ValueError, match=r"coupling must be one of 'iid'; got 'orf'"):
        ReLUFeatures(4, coupling="orf").fit(Xs)


@parametrize_with_checks([ReLUFeatures(5, random_state=0)])
def test_a_new_map_passes_the_scikit_learn_checks(estimator, check) -> None:
    check(estimator)
