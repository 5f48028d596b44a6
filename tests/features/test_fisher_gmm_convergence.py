"""The Fisher vector encoder's mixture is scikit-learn's GaussianMixture: what kernelkit
wraps must not hide that EM stopped before converging (issue 28 §1, "check only what we
wrap")."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

import kernelkit.features.fisher as fisher_module
from kernelkit.features import FisherVectorEncoder


def _sets(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((30, 3)) + rng.integers(0, 4) for _ in range(12)]


def test_an_unconverged_mixture_is_reported_not_swallowed(monkeypatch) -> None:
    # one EM step cannot converge: scikit-learn's warning reaches the user through fit,
    # and the fitted mixture says so
    def one_step(**kw):
        return GaussianMixture(max_iter=1, **kw)

    monkeypatch.setattr(fisher_module, "GaussianMixture", one_step)
    enc = FisherVectorEncoder(n_components=3, random_state=0)
    with pytest.warns(ConvergenceWarning):
        enc.fit(_sets())
    assert not enc.gmm_.converged_


def test_the_default_mixture_converges_and_its_vectors_are_finite() -> None:
    enc = FisherVectorEncoder(n_components=3, random_state=0).fit(_sets())
    assert enc.gmm_.converged_
    V = enc.transform(_sets(1))
    assert np.all(np.isfinite(V))
    np.testing.assert_allclose(np.linalg.norm(V, axis=1), 1.0, rtol=1e-10)  # l2_normalize


def test_descriptors_whose_squares_overflow_are_refused_naming_x() -> None:
    # scikit-learn's EM squares deviations: descriptors of 1e300 overflowed inside NumPy
    sets = [1e300 * s for s in _sets()]
    with pytest.raises(ValueError, match=r"X holds descriptor values up to .*e\+300"):
        FisherVectorEncoder(n_components=2, random_state=0).fit(sets)
