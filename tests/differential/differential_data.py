"""Shared by the differential tests: the packaged data, subsampled and standardised, and
the translation of kernelkit's GP set-up to scikit-learn's.

Everything here is deterministic: subsamples and synthetic data come from seeded
``numpy.random.default_rng`` generators.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit.datasets import load_uci
from kernelkit.kernels import RBF, Matern, RationalQuadratic

#: The regression tables of ``kernelkit.datasets.load_uci`` the differential tests use.
UCI_REGRESSION = ("boston", "wine", "cpu_act", "insurance")


@dataclass(frozen=True)
class Regression:
    """A regression problem: standardised inputs, raw targets, and where they came from."""

    name: str
    X: np.ndarray
    y: np.ndarray


def standardise(X: np.ndarray) -> np.ndarray:
    """Columns to mean 0 and standard deviation 1; constant columns are dropped."""
    X = np.asarray(X, dtype=np.float64)
    std = X.std(axis=0)
    keep = std > 0
    return (X[:, keep] - X[:, keep].mean(axis=0)) / std[keep]


def subsample(n_rows: int, n: int | None, random_state: int) -> np.ndarray:
    """Sorted indices of ``n`` rows out of ``n_rows`` drawn without replacement (all rows
    when ``n`` is None or at least ``n_rows``)."""
    if n is None or n >= n_rows:
        return np.arange(n_rows)
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n_rows, size=n, replace=False))


def uci_regression(name: str, n: int | None = None, random_state: int = 0) -> Regression:
    """``n`` rows of a packaged table (all of them for ``None``), inputs standardised on
    those rows (constant columns dropped), targets as packaged."""
    table = load_uci(name)
    idx = subsample(table.X.shape[0], n, random_state)
    return Regression(name, standardise(table.X[idx]), table.y[idx].astype(np.float64))


def synthetic_regression(n: int, d: int, random_state: int = 0) -> Regression:
    """Inputs uniform on ``[-3, 3]^d``; the target is a sum of sines whose frequency falls
    with the feature's index (the last features matter less), plus noise of sd 0.1."""
    rng = np.random.default_rng(random_state)
    X = rng.uniform(-3.0, 3.0, size=(n, d))
    freq = 1.0 / (1.0 + 0.3 * np.arange(d))
    y = np.sin(X * freq).sum(axis=1) + 0.1 * rng.standard_normal(n)
    return Regression(f"synthetic-d{d}", X, y)


# ----------------------------------------------------------------------------- GP kernels
#: kernelkit's default bounds of every stationary hyperparameter and of the GP noise.
KERNEL_BOUNDS = (1e-5, 1e5)
NOISE_BOUNDS = (1e-8, 1e5)
NOISE = 1e-2

#: The kernel families compared: name -> whether the lengthscale is one per feature (ARD).
#: scikit-learn's RationalQuadratic has a single lengthscale, so that one is isotropic.
GP_KERNELS = {"rbf-ard": True, "matern32-ard": True, "matern52-ard": True, "rq": False}


def kernelkit_kernel(name: str, d: int) -> Any:
    """The starting kernel of each family: unit variance and lengthscale(s), shape 1."""
    ls = np.ones(d) if GP_KERNELS[name] else 1.0
    if name == "rbf-ard":
        return RBF(lengthscale=ls)
    if name == "matern32-ard":
        return Matern(lengthscale=ls, nu=1.5)
    if name == "matern52-ard":
        return Matern(lengthscale=ls, nu=2.5)
    if name == "rq":
        return RationalQuadratic(lengthscale=ls, shape=1.0)
    raise ValueError(name)


def sklearn_kernel(kernel: Any, noise: float, noise_bounds: tuple[float, float]) -> Any:
    """scikit-learn's ``ConstantKernel * K + WhiteKernel`` with the same values and bounds
    as kernelkit's ``kernel`` (variance -> constant, lengthscale -> length_scale,
    RationalQuadratic's shape -> alpha) plus the GP's noise."""
    from sklearn.gaussian_process import kernels as sk

    ls = np.asarray(kernel.lengthscale, dtype=float)
    ls = ls.copy() if ls.ndim else float(ls)
    if isinstance(kernel, RationalQuadratic):
        base = sk.RationalQuadratic(
            length_scale=ls,
            alpha=float(kernel.shape),
            length_scale_bounds=kernel.lengthscale_bounds,
            alpha_bounds=kernel.shape_bounds,
        )
    elif isinstance(kernel, Matern):
        base = sk.Matern(
            length_scale=ls, nu=float(kernel.nu), length_scale_bounds=kernel.lengthscale_bounds
        )
    elif isinstance(kernel, RBF):
        base = sk.RBF(length_scale=ls, length_scale_bounds=kernel.lengthscale_bounds)
    else:
        raise TypeError(type(kernel).__name__)
    const = sk.ConstantKernel(float(kernel.variance), constant_value_bounds=kernel.variance_bounds)
    return const * base + sk.WhiteKernel(noise, noise_level_bounds=noise_bounds)


def theta_to_sklearn(names: list[str], sk_kernel: Any) -> np.ndarray:
    """Indices ``p`` with ``theta_sklearn = theta_kernelkit[p]``, from kernelkit's
    ``theta_names_`` (``lengthscale[..]``, ``variance``, ``shape``, ``noise``) to the order
    of ``sk_kernel.theta`` (scikit-learn sorts a kernel's hyperparameters by name, so the
    rational quadratic's ``alpha`` comes before its ``length_scale``)."""
    ours_name = {"constant_value": "variance", "alpha": "shape", "noise_level": "noise"}
    ls = [i for i, n in enumerate(names) if n.startswith("lengthscale")]
    order: list[int] = []
    for hp in sk_kernel.hyperparameters:
        if hp.fixed:
            continue
        leaf = hp.name.rsplit("__", 1)[-1]
        if leaf == "length_scale":
            order += ls
        else:
            order.append(names.index(ours_name[leaf]))
    assert sorted(order) == list(range(len(names))), (names, order)
    return np.array(order)
