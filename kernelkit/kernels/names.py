"""Kernels by name: the one table of short names accepted wherever a kernel is expected.

Every ``kernel=`` argument in kernelkit takes a :class:`~kernelkit.kernels.Kernel` object;
where a short name is convenient (``RandomFourierFeatures(kernel="matern32")``,
``RandomFeatureRidge(kernel="angular")``) the name goes through :func:`resolve_kernel`,
which builds the kernel with unit lengthscale and variance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from kernelkit.kernels.base import Kernel
from kernelkit.kernels.simple import Angular, Linear
from kernelkit.kernels.stationary import RBF, Laplace, Matern, RationalQuadratic, Sinc

__all__ = ["KERNEL_NAMES", "resolve_kernel"]

#: Short name -> factory of the kernel with unit lengthscale and variance. Names are
#: matched case-insensitively, ignoring ``-``, ``_``, ``/`` and spaces (``"Matern-5/2"``).
KERNEL_NAMES: Mapping[str, Callable[[], Kernel]] = MappingProxyType(
    {
        "rbf": RBF,
        "gaussian": RBF,
        "laplace": Laplace,
        "matern12": Laplace,
        "matern32": lambda: Matern(nu=1.5),
        "matern52": lambda: Matern(nu=2.5),
        "matern": lambda: Matern(nu=2.5),
        "rationalquadratic": RationalQuadratic,
        "rq": RationalQuadratic,
        "sinc": Sinc,
        "angular": Angular,
        "linear": Linear,
    }
)


def _key(name: str) -> str:
    return "".join(c for c in name.lower() if c not in "-_/ ")


def resolve_kernel(
    kernel: Any,
    *,
    name: str = "kernel",
    types: tuple[type[Kernel], ...] | None = None,
) -> Kernel:
    """The kernel object for ``kernel``: a :class:`Kernel` as it is, or one built by name.

    Parameters
    ----------
    kernel : Kernel or str
        A kernel object, or a name of :data:`KERNEL_NAMES` (``"rbf"``, ``"matern32"``,
        ``"laplace"``, ``"angular"``, ...), built with unit lengthscale and variance.
    name : str, default="kernel"
        The argument's name, for error messages.
    types : tuple of Kernel subclasses, optional
        The kernels the caller can use; anything else is a ``TypeError`` (for a kernel
        object) or ``ValueError`` (for a name) that lists them.

    Returns
    -------
    Kernel
        ``kernel`` itself, or a new kernel for a name.

    Examples
    --------
    >>> from kernelkit.kernels import resolve_kernel
    >>> resolve_kernel("matern32")
    Matern(lengthscale=1, variance=1, nu=1.5)
    >>> resolve_kernel("Matern-5/2").nu
    2.5
    """
    if isinstance(kernel, str):
        factory = KERNEL_NAMES.get(_key(kernel))
        built = factory() if factory is not None else None
        if built is None or (types is not None and not isinstance(built, types)):
            raise ValueError(
                f"{name} must be a Kernel object or one of {_accepted(types)}; got {kernel!r}"
            )
        return built
    if not isinstance(kernel, Kernel):
        raise TypeError(
            f"{name} must be a kernelkit Kernel object or one of {_accepted(types)}; "
            f"got {type(kernel).__name__}"
        )
    if types is not None and not isinstance(kernel, types):
        kinds = ", ".join(t.__name__ for t in types)
        raise TypeError(
            f"{name} must be a {kinds} kernel object or one of {_accepted(types)}; "
            f"got {type(kernel).__name__}"
        )
    return kernel


def _accepted(types: tuple[type[Kernel], ...] | None) -> str:
    """The names valid for ``types``, quoted and comma-separated."""
    names = [n for n, f in KERNEL_NAMES.items() if types is None or isinstance(f(), types)]
    return ", ".join(map(repr, names))
