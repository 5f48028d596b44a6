"""GP regression on UCI data: duplicate records and the fitted noise."""

from __future__ import annotations

import numpy as np

from kernelkit.datasets import load_uci
from kernelkit.experiments.gp_uci import _fit_one, _unique_records


def test_unique_records_keeps_first_of_each_in_order():
    X = np.array([[1.0, 2.0], [0.0, 0.0], [1.0, 2.0], [1.0, 2.0], [3.0, 1.0]])
    y = np.array([5.0, 1.0, 5.0, 6.0, 2.0])  # row 2 duplicates row 0; row 3 differs in y
    Xu, yu = _unique_records(X, y)
    np.testing.assert_array_equal(Xu, X[[0, 1, 3, 4]])
    np.testing.assert_array_equal(yu, y[[0, 1, 3, 4]])


def test_wine_duplicates_dropped_and_noise_stays_away_from_zero():
    wine = load_uci("wine")
    X, y = wine.X, wine.y
    Xu, yu = _unique_records(X, y)
    assert (len(X), len(Xu)) == (1599, 1359)
    # With the 240 duplicate records left in, ML-II drives the noise to its lower bound.
    r = _fit_one(Xu[:400], yu[:400], "RBF", seed=0, restarts=0)
    assert 0.2 < r["noise"] < 1.0  # wine quality is noisy: about half the standardised variance
