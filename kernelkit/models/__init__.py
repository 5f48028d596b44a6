"""Kernel machines: kernel ridge regression, kernel SVM and Gaussian process regression.

All estimators follow scikit-learn (``fit`` / ``predict`` / ``score``, constructor
arguments stored unchanged, learned state in attributes ending in ``_``) and accept any
kernelkit kernel, including kernels on lists of objects, or ``kernel="precomputed"``
where that makes sense. Every Cholesky factorisation goes through
:func:`cholesky_jitter`, which adds escalating jitter with a :class:`NumericalWarning`
before giving up with advice.
"""

from kernelkit.models._linalg import NumericalWarning, cholesky_jitter
from kernelkit.models.gp import GaussianProcessRegressor, NoiseAtBoundWarning
from kernelkit.models.random_features import RandomFeatureGP, RandomFeatureRidge
from kernelkit.models.ridge import KernelRidge
from kernelkit.models.svc import KernelSVC

__all__ = [
    "GaussianProcessRegressor",
    "KernelRidge",
    "KernelSVC",
    "NoiseAtBoundWarning",
    "NumericalWarning",
    "RandomFeatureGP",
    "RandomFeatureRidge",
    "cholesky_jitter",
]
