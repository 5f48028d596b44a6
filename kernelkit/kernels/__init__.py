"""Kernel objects on vectors, sets and precomputed collections, and their algebra.

Every kernel is callable, ``k(X, Y=None) -> (n, m) ndarray``, has ``k.diag(X)``, keeps its
hyperparameters positive through ``theta`` (their logarithms), and provides gradients
with respect to ``theta`` (``k.gradient(X)``, ``k.gradient_dot(X, W)``). Kernels combine
with ``+``, ``*``, a non-negative constant factor, ``**``, :func:`poly`, :func:`exp` and
:func:`compose`. Two 1-D vectors give the number ``k(x, y)``, so a kernel is a valid
scikit-learn kernel callable (``KernelRidge(kernel=RBF())``, ``Nystroem``, ``SVC``); kernels
compare equal when their parameters are, and their values are finite for finite inputs.
"""

from kernelkit.kernels.base import Hyperparameter, Kernel, compose, exp, poly
from kernelkit.kernels.heuristics import median_heuristic
from kernelkit.kernels.names import KERNEL_NAMES, resolve_kernel
from kernelkit.kernels.sets import Intersection, Precomputed
from kernelkit.kernels.simple import Angular, Constant, Linear, Polynomial, White
from kernelkit.kernels.stationary import RBF, Laplace, Matern, RationalQuadratic, Sinc, Stationary

__all__ = [
    "KERNEL_NAMES",
    "RBF",
    "Angular",
    "Constant",
    "Hyperparameter",
    "Intersection",
    "Kernel",
    "Laplace",
    "Linear",
    "Matern",
    "Polynomial",
    "Precomputed",
    "RationalQuadratic",
    "Sinc",
    "Stationary",
    "White",
    "compose",
    "exp",
    "median_heuristic",
    "poly",
    "resolve_kernel",
]
