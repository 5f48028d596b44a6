"""Kernel objects on vectors, sets and precomputed collections, and their algebra.

Every kernel is callable, ``k(X, Y=None) -> (n, m) ndarray``, has ``k.diag(X)``, keeps its
hyperparameters positive through ``theta`` (their logarithms), and provides gradients
with respect to ``theta`` (``k.gradient(X)``, ``k.gradient_dot(X, W)``). Kernels combine
with ``+``, ``*``, a non-negative constant factor, ``**``, :func:`poly`, :func:`exp` and
:func:`compose`. Two 1-D vectors give the number ``k(x, y)``, so a kernel is a valid
scikit-learn kernel callable (``KernelRidge(kernel=RBF())``, ``Nystroem``, ``SVC``); kernels
compare equal when their parameters are, and their values are finite for finite inputs.

Each hyperparameter ``x`` has constructor arguments ``x_bounds`` and ``x_prior`` (a
:class:`Prior`: :class:`GammaPrior`, :class:`LogNormalPrior` or one's own); ``k.log_prior()``
gives the log-density of the priors and its gradient in ``theta``, for MAP fitting. A new
kernel subclasses :class:`Kernel` and declares its arguments with :func:`parameter` (see
the example there).

For large ``n``, :func:`gram` gives the Gram matrix as a lazy dask array computed by
blocks of rows, and :func:`kernel_operator` gives ``K + noise I`` as a SciPy
``LinearOperator`` that never forms ``K`` (both in :mod:`kernelkit.kernels.blockwise`,
imported on first use, PEP 562).
"""

from kernelkit._lazy import lazy_exports
from kernelkit.kernels.base import Constant, Hyperparameter, Kernel, compose, exp, poly
from kernelkit.kernels.fisher import DiagonalGaussianMixture, FisherKernel, FisherModel
from kernelkit.kernels.heuristics import median_heuristic
from kernelkit.kernels.names import KERNEL_NAMES, resolve_kernel
from kernelkit.kernels.parameters import parameter
from kernelkit.kernels.priors import GammaPrior, LogNormalPrior, Prior
from kernelkit.kernels.sets import Intersection, Precomputed
from kernelkit.kernels.simple import Angular, Linear, Polynomial, White
from kernelkit.kernels.stationary import RBF, Laplace, Matern, RationalQuadratic, Sinc, Stationary

__all__ = [
    "KERNEL_NAMES",
    "RBF",
    "Angular",
    "Constant",
    "DiagonalGaussianMixture",
    "FisherKernel",
    "FisherModel",
    "GammaPrior",
    "Hyperparameter",
    "Intersection",
    "Kernel",
    "Laplace",
    "Linear",
    "LogNormalPrior",
    "Matern",
    "Polynomial",
    "Precomputed",
    "Prior",
    "RationalQuadratic",
    "Sinc",
    "Stationary",
    "White",
    "compose",
    "exp",
    "gram",
    "kernel_operator",
    "median_heuristic",
    "parameter",
    "poly",
    "resolve_kernel",
]

# the blockwise Gram matrix and operator are imported on first use (PEP 562)
_, __getattr__, __dir__ = lazy_exports(__name__, {"blockwise": ["gram", "kernel_operator"]})
