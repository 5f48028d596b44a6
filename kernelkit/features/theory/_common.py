"""Argument checks and block arithmetic shared by the theory modules."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelkit._validation import check_array, check_int, check_positive
from kernelkit.features._radial import RadialSpec, radial_spec


def check_xy(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two 1-D float arrays of the same length."""
    x = check_array(x, "x", ndim=1, dtype=np.float64)
    y = check_array(y, "y", ndim=1, dtype=np.float64)
    if y.shape != x.shape:
        raise ValueError(f"y has length {y.shape[0]}, but x has length {x.shape[0]}")
    return x, y


def check_distance(z: Any) -> np.ndarray:
    """Distances ``|x - y| >= 0`` as a float array."""
    check_positive(z, "z", strict=False)
    return np.asarray(z, dtype=np.float64)


def check_kernel_d(kernel: Any, d: Any) -> tuple[RadialSpec, int]:
    """The radial description of ``kernel`` and the input dimension ``d`` (sinc: ``d <= 3``)."""
    spec = radial_spec(kernel, name="kernel")
    d = check_int(d, "d", minimum=1)
    if spec.family == "sinc" and d > 3:
        raise ValueError(f"the sinc kernel is positive definite only for d <= 3; got d={d}")
    return spec, d


def pair_fraction(n: Any, d: int) -> Any:
    """``(ordered pairs of rows in a common orthogonal block) / n^2`` for ``n`` stacked rows.

    ``(n-1)/n`` for ``n <= d`` (the ``(m-1)/m`` of Rowland (2018) Thm. 6.6 and Prop. 7.15);
    for ``n > d`` the ``ceil(n/d)`` blocks are independent (Def. 7.1), so only pairs within
    a block count. ``n`` may be an integer array.
    """
    q, r = divmod(n, d)
    return (q * d * (d - 1) + r * (r - 1)) / (n * n)


def blocks(n: int, size: int) -> list[int]:
    """Row counts of the stacked blocks: ``n = q size + r`` gives ``q`` full blocks and ``r``."""
    q, r = divmod(n, size)
    return [size] * q + ([r] if r else [])


def scalar_or_array(v: Any) -> Any:
    """A Python float for scalar input, the array otherwise."""
    return float(v) if np.ndim(v) == 0 else v
