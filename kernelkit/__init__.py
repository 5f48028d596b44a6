"""kernelkit: structured machine learning.

Kernels and kernel machines, Gaussian processes and Bayesian optimisation, random features
and projections, kernels on and between graphs, GP learning curves on random graphs,
discrete graphical models with LP relaxations, and geometric tools.
"""

__version__ = "0.1.0"
