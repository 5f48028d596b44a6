"""scikit-learn's estimator checks on the geometry classifiers."""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.geometry.halfspaces import NoisyHalfspaceLearner
from kernelkit.geometry.perceptrons import ModifiedPerceptron, Perceptron

ESTIMATORS = [
    Perceptron(random_state=0),
    Perceptron(selection="cyclic", fit_intercept=False, random_state=0),
    ModifiedPerceptron(random_state=0),
    NoisyHalfspaceLearner(random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_estimator_checks(estimator, check) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)
