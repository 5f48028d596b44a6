"""Declared kernel parameters: one declaration gives the constructor and the hyperparameters.

A kernel class lists its constructor arguments as class attributes made by :func:`parameter`,
in positional order (those of the base classes first)::

    class Matern(Stationary):        # Stationary declares lengthscale and variance
        nu: float = parameter(2.5)   # a structural choice, not fitted

From the declarations, :class:`~kernelkit.kernels.Kernel` builds the class's ``__init__``
(it stores the arguments unchanged, as scikit-learn requires, then calls
``_check_params()``), with a real :class:`inspect.Signature`: the declared parameters,
positional or keyword, then keyword-only ``<name>_bounds`` and ``<name>_prior`` for each
fitted one. The same declarations give ``kernel.hyperparameters``. A subclass that assigns
a plain value to an inherited parameter's name removes the argument and fixes the value
(``Laplace`` sets ``nu = 0.5``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kernelkit.kernels.priors import Prior

__all__ = ["Hyperparameter", "Parameter", "parameter", "DEFAULT_BOUNDS"]

#: Bounds on a fitted hyperparameter's value unless a declaration or the user says otherwise.
DEFAULT_BOUNDS: tuple[float, float] = (1e-5, 1e5)


class _Required:
    """The default of a parameter that must be given."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Parameter:
    """The declaration of one constructor argument of a kernel class (see :func:`parameter`).

    Attributes
    ----------
    default : object, default=REQUIRED
        The argument's default; ``REQUIRED`` when the argument must be given.
    fitted : bool, default=False
        Whether the argument is a fitted hyperparameter.
    ard : bool, default=False
        Whether the hyperparameter may be a 1-D array, one value per input feature.
    bounds : (float, float) or "fixed", default=DEFAULT_BOUNDS
        Default of the ``<name>_bounds`` argument of a fitted hyperparameter.
    """

    default: Any = REQUIRED
    fitted: bool = False
    ard: bool = False
    bounds: Any = DEFAULT_BOUNDS


def parameter(
    default: Any = REQUIRED, *, fitted: bool = False, ard: bool = False, bounds: Any = None
) -> Any:
    """Declare a constructor argument of a kernel class (a class attribute).

    Parameters
    ----------
    default : object, optional
        The argument's default; without one the argument is required.
    fitted : bool, default=False
        A hyperparameter: positive, kept in ``theta`` as its logarithm, with keyword-only
        arguments ``<name>_bounds`` (``(low, high)`` or ``"fixed"``) and ``<name>_prior``
        (a :class:`~kernelkit.kernels.Prior` or ``None``).
    ard : bool, default=False
        A fitted hyperparameter that may be a 1-D array, one value per input feature
        (automatic relevance determination); otherwise it must be a scalar.
    bounds : (float, float) or "fixed", optional
        Default of ``<name>_bounds``; :data:`DEFAULT_BOUNDS` when omitted.

    Returns
    -------
    Parameter
        The declaration (typed ``Any`` so that ``variance: float = parameter(1.0)`` checks).

    Examples
    --------
    >>> from kernelkit.kernels import parameter
    >>> parameter(1.0, fitted=True, ard=True)
    Parameter(default=1.0, fitted=True, ard=True, bounds=(1e-05, 100000.0))
    """
    if not isinstance(fitted, bool) or not isinstance(ard, bool):
        raise TypeError("fitted and ard must be bools")
    if (ard or bounds is not None) and not fitted:
        raise ValueError("ard and bounds apply to fitted parameters only (fitted=True)")
    return Parameter(default, fitted, ard, DEFAULT_BOUNDS if bounds is None else bounds)


@dataclass(frozen=True)
class Hyperparameter:
    """Description of one named hyperparameter of a kernel instance.

    Parameters
    ----------
    name : str
        Attribute name on the kernel (the constructor argument).
    bounds : tuple of float or "fixed"
        Bounds on the *value* (not its log) used by optimisers; ``"fixed"`` removes the
        hyperparameter from ``theta``.
    n_elements : int
        1 for a scalar, d for an ARD vector.
    prior : Prior or None
        A prior on the value, whose log-density is taken for ``theta = log value``
        (elementwise for an ARD vector); see :meth:`Kernel.log_prior`.
    """

    name: str
    bounds: tuple[float, float] | str
    n_elements: int = 1
    prior: Prior | None = None

    @property
    def fixed(self) -> bool:
        """Whether ``bounds`` is ``"fixed"`` (the hyperparameter is not in ``theta``)."""
        return isinstance(self.bounds, str) and self.bounds == "fixed"


def declared_parameters(cls: type) -> dict[str, Parameter]:
    """The parameters declared by ``cls`` and its bases, in positional order.

    A base class's declarations come first; a subclass that declares a name again changes
    it in place, and one that assigns anything else to the name removes it.
    """
    params: dict[str, Parameter] = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            if isinstance(value, Parameter):
                params[name] = value
            elif name in params:
                del params[name]
    return params


def init_signature(cls: type, params: dict[str, Parameter]) -> inspect.Signature:
    """``(self, <params>, *, <name>_bounds, <name>_prior, ...)`` for the declarations."""
    P = inspect.Parameter
    args = [P("self", P.POSITIONAL_OR_KEYWORD)]
    keywords = []
    for name, p in params.items():
        default = P.empty if p.default is REQUIRED else p.default
        args.append(P(name, P.POSITIONAL_OR_KEYWORD, default=default))
        if p.fitted:
            keywords.append(P(f"{name}_bounds", P.KEYWORD_ONLY, default=p.bounds))
            keywords.append(P(f"{name}_prior", P.KEYWORD_ONLY, default=None))
    try:
        return inspect.Signature(args + keywords)
    except ValueError as e:  # a required parameter after one with a default
        raise TypeError(f"{cls.__name__}: invalid parameter declarations: {e}") from None


def make_init(cls: type, signature: inspect.Signature) -> Callable[..., None]:
    """An ``__init__`` that binds its arguments to ``signature``, stores each one unchanged
    as an attribute, and calls ``self._check_params()``."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as e:
            names = list(signature.parameters)[1:]
            raise TypeError(
                f"{type(self).__name__}(): {e}; its arguments are {', '.join(names) or 'none'}"
            ) from None
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            if name != "self":
                setattr(self, name, value)
        self._check_params()

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    __init__.__doc__ = f"Store the arguments of {cls.__name__} unchanged and check them."
    __init__._declared = True  # type: ignore[attr-defined]
    return __init__
