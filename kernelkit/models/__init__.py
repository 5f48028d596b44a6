"""Kernel machines: kernel ridge regression, kernel SVM, Gaussian process regression, and
FALKON (Nyström kernel ridge and classification for large ``n``).

All estimators follow scikit-learn (``fit`` / ``predict`` / ``score``, constructor
arguments stored unchanged, learned state in attributes ending in ``_``) and accept any
kernelkit kernel, including kernels on lists of objects, or ``kernel="precomputed"``
where that makes sense. Every Cholesky factorisation goes through
:func:`cholesky_jitter`, which adds escalating jitter with a :class:`NumericalWarning`
before giving up with advice (:func:`jittered_cholesky` also returns the jitter).
"""

from kernelkit.linalg.cholesky import (
    JitteredCholesky,
    NumericalWarning,
    cholesky_jitter,
    jittered_cholesky,
)
from kernelkit.models.falkon import FalkonClassifier, FalkonRegressor
from kernelkit.models.gp import GaussianProcessRegressor, NoiseAtBoundWarning
from kernelkit.models.random_features import RandomFeatureGP, RandomFeatureRidge
from kernelkit.models.ridge import KernelRidge
from kernelkit.models.svc import KernelSVC

__all__ = [
    "FalkonClassifier",
    "FalkonRegressor",
    "GaussianProcessRegressor",
    "JitteredCholesky",
    "KernelRidge",
    "KernelSVC",
    "NoiseAtBoundWarning",
    "NumericalWarning",
    "RandomFeatureGP",
    "RandomFeatureRidge",
    "cholesky_jitter",
    "jittered_cholesky",
]
