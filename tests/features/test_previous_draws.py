"""The random maps draw what they drew before issue 12 (the API change).

``data/pre_issue_12_features.json`` holds features computed by kernelkit 0.1.0 before
``RandomFourierFeatures`` took a kernel object and an output width and ``RandomProjection``
took ``coupling`` instead of ``kind``: for each case ``RandomFourierFeatures(7, kernel=name,
nu=..., lengthscale=..., variance=..., random_state=3)`` (7 frequencies),
``AngularFeatures(9, coupling=c, random_state=5)`` and ``RandomProjection(20, kind=k,
random_state=7)`` (6 for ``"hybrid"``), on the stored ``X`` and ``X16``. The same
``random_state`` and number of frequencies must give the same features.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kernelkit.features import AngularFeatures, RandomFourierFeatures, RandomProjection
from kernelkit.kernels import RBF, Laplace, Matern

# the reference has Hadamard couplings on 5 features, where they warn that they are biased
pytestmark = pytest.mark.filterwarnings("ignore:coupling='hadamard' with:UserWarning")

DATA = json.loads((Path(__file__).parent / "data" / "pre_issue_12_features.json").read_text())
X, X16 = np.array(DATA["X"]), np.array(DATA["X16"])
#: the couplings' names before issue 12
COUPLING_OF_KIND = {"gaussian": "iid"}


def _kernel(params: dict):
    """The kernel object of the former ``kernel``, ``nu``, ``lengthscale``, ``variance``."""
    name = params.pop("kernel")
    hyper = {k: params.pop(k) for k in ("lengthscale", "variance") if k in params}
    if name == "rbf":
        return RBF(**hyper)
    if name == "laplace":
        return Laplace(**hyper)
    return Matern(**hyper, nu=params.pop("nu", 2.5))


@pytest.mark.parametrize("case", sorted(DATA["rff"]))
def test_random_fourier_features_unchanged(case) -> None:
    params = dict(DATA["rff"][case]["params"])
    kernel = _kernel(params)
    m = DATA["n_frequencies"]
    width = m if params.get("features") == "cos_bias" else 2 * m
    rff = RandomFourierFeatures(width, kernel=kernel, random_state=3, **params).fit(X)
    assert rff.n_frequencies_ == m
    expected = np.array(DATA["rff"][case]["Z"])
    np.testing.assert_allclose(rff.transform(X), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("coupling", sorted(DATA["angular"]))
def test_angular_features_unchanged(coupling) -> None:
    Z = AngularFeatures(9, coupling=coupling, random_state=5).fit_transform(X)
    np.testing.assert_array_equal(Z, np.array(DATA["angular"][coupling]))


@pytest.mark.parametrize("kind", sorted(DATA["projection"]))
def test_projections_unchanged(kind) -> None:
    case = DATA["projection"][kind]
    coupling = COUPLING_OF_KIND.get(kind, kind)
    width = 6 if kind == "hybrid" else 20
    proj = RandomProjection(width, coupling=coupling, random_state=7, **case["params"])
    F = proj.fit_transform(X16)
    if kind == "hybrid":
        expected = np.array(case["F_real"]) + 1j * np.array(case["F_imag"])
    else:
        expected = np.array(case["F"])
    np.testing.assert_allclose(F, expected, rtol=1e-12, atol=1e-14)


def test_the_reference_is_not_trivially_matched() -> None:
    # another seed, or n_components = 7 frequencies read as the old half-width, gives other
    # features: the checks above can fail
    Z = np.array(DATA["rff"]["rbf-iid"]["Z"])
    assert not np.allclose(RandomFourierFeatures(14, random_state=4).fit_transform(X), Z)
    half = RandomFourierFeatures(8, random_state=3).fit_transform(X)  # 4 frequencies
    assert half.shape != Z.shape
