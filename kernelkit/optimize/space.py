"""Search spaces for Bayesian optimisation: real, integer and categorical dimensions.

A :class:`Space` is a list of dimensions, each a :class:`Real` or :class:`Integer`
interval (uniform or log-uniform) or a :class:`Categorical` set. The names and the
shorthands follow scikit-optimize's ``skopt.space``, so that code written for it runs
with an import changed; the implementation is kernelkit's own.

Every dimension has two coordinates:

- the *original* space, where the objective is evaluated: floats for a ``Real``, ints
  for an ``Integer``, the category objects themselves for a ``Categorical``;
- the *surrogate* space ``[0, 1]^k`` the GP works in (``transform`` and
  ``inverse_transform``). A ``Real`` is one coordinate, affine in ``x`` (``prior=
  "uniform"``) or in ``log x`` (``"log-uniform"``). An ``Integer`` is one coordinate too:
  each integer ``j`` owns the cell ``[j - 1/2, j + 1/2)``, so ``[low - 1/2, high + 1/2]``
  is mapped onto ``[0, 1]`` (affinely, or affinely in the logarithm), and a surrogate
  coordinate maps back to the nearest integer. A ``Categorical`` of ``k`` categories is
  one-hot, ``k`` coordinates (also for two categories), read back by the largest one.

``inverse_transform`` accepts any point of the cube (values outside it are clipped), so
an acquisition maximised over the cube always gives a valid point. Integers and
categories survive ``transform`` then ``inverse_transform`` exactly; reals up to
floating-point rounding (the endpoints exactly).

Random draws (``rvs``) follow each dimension's prior: uniform in the surrogate
coordinate, so that a log-uniform ``Integer`` gives ``j`` the probability
``log((j + 1/2) / (j - 1/2)) / log((high + 1/2) / (low - 1/2))``. :meth:`Space.sample`
also draws quasi-random designs (Sobol, Halton, Latin hypercube) from
:mod:`scipy.stats.qmc` with the same map.
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from scipy.stats import qmc

from kernelkit._validation import check_array, check_in, check_int, check_random_state
from kernelkit.optimize.search import sobol_points

__all__ = ["Categorical", "Dimension", "Integer", "Real", "Space"]

#: The priors of a ``Real`` or ``Integer`` dimension.
PRIORS = ("uniform", "log-uniform")
#: The designs of :meth:`Space.sample`.
SAMPLING_METHODS = ("random", "sobol", "lhs", "halton")
#: Largest magnitude of an ``Integer`` bound: far enough inside float64's exact integers
#: (2**53) that every integer survives the trip through the surrogate coordinate, the
#: logarithm of a log-uniform one included.
_INT_LIMIT = 2**40

_Where = Callable[[int], str]


# ------------------------------------------------------------------ small checks
def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def _check_name(name: Any) -> str | None:
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"name must be a str or None, got {type(name).__name__}")
    if not name:
        raise ValueError("name must be a non-empty string (or None)")
    return name


def _check_prior(prior: Any) -> str:
    if not isinstance(prior, str):
        raise TypeError(f"prior must be a str, 'uniform' or 'log-uniform', got {prior!r}")
    return str(check_in(prior, "prior", PRIORS))


def _values(values: Any, arg: str) -> list[Any] | np.ndarray:
    """``values`` as a list, or a 1-D ndarray as it is; a clear error otherwise."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{arg} must be 1-dimensional, got shape {values.shape}")
        return values
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{arg} must be a sequence of values, not a single str; wrap it: [value]")
    try:
        return list(values)
    except TypeError:
        raise TypeError(
            f"{arg} must be a sequence of values, got {type(values).__name__}"
        ) from None


def _category_key(value: Any) -> tuple[bool, Any]:
    """Categories compare as Python values, except that a bool is never equal to a number
    (``True`` and ``1`` are two categories)."""
    return (isinstance(value, (bool, np.bool_)), value)


# ------------------------------------------------------------------ dimensions
class Dimension:
    """One coordinate of a :class:`Space`: the base of :class:`Real`, :class:`Integer` and
    :class:`Categorical`.

    Dimensions are immutable and compare equal when they have the same type, bounds or
    categories, prior and name.

    Examples
    --------
    >>> isinstance(Real(0, 1), Dimension)
    True
    """

    _name: str | None
    _prior: str
    _size: int

    # -- hooks filled in by the subclasses
    def _check(self, value: Any, where: str) -> Any:
        """``value`` in its canonical type (float, int, the category), or raise."""
        raise NotImplementedError

    def _transform(self, values: Any, where: _Where) -> np.ndarray:
        raise NotImplementedError

    def _from_block(self, Z: np.ndarray) -> Any:
        """Values from surrogate coordinates ``Z`` of shape ``(n, size)``, inside [0, 1]."""
        raise NotImplementedError

    def _from_unit(self, u: np.ndarray) -> Any:
        """Values from one uniform coordinate per value, ``u`` in [0, 1]: the prior's law."""
        raise NotImplementedError

    def _key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _repr_args(self) -> str:
        raise NotImplementedError

    # -- the public interface
    @property
    def name(self) -> str | None:
        """The dimension's name, or ``None``."""
        return self._name

    @property
    def bounds(self) -> tuple[Any, ...]:
        """``(low, high)`` of a ``Real`` or ``Integer``; the categories of a ``Categorical``."""
        raise NotImplementedError

    @property
    def prior(self) -> str:
        """``"uniform"`` or ``"log-uniform"`` (a ``Categorical`` is uniform)."""
        return self._prior

    @property
    def transformed_size(self) -> int:
        """Number of surrogate coordinates: 1, or the number of categories."""
        return self._size

    def rvs(self, n_samples: int = 1, random_state: Any = None) -> Any:
        """Random values drawn from the dimension's prior.

        Parameters
        ----------
        n_samples : int, default=1
            Number of values, at least 1.
        random_state : int, RandomState, Generator or None, default=None
            Seeds the draw.

        Returns
        -------
        ndarray of shape (n_samples,) or list
            Floats for a ``Real``, ints for an ``Integer`` (NumPy arrays); a list of
            categories for a ``Categorical``.

        Examples
        --------
        >>> Integer(1, 6).rvs(5, random_state=0).tolist()
        [4, 5, 4, 4, 3]
        """
        check_int(n_samples, "n_samples", minimum=1)
        rng = check_random_state(random_state)
        return self._from_unit(rng.uniform(size=n_samples))

    def transform(self, values: Any) -> np.ndarray:
        """Values of the dimension to surrogate coordinates in ``[0, 1]``.

        Parameters
        ----------
        values : sequence
            Values of the dimension (each must belong to it).

        Returns
        -------
        ndarray of shape (n, transformed_size)
            The surrogate coordinates.

        Raises
        ------
        ValueError
            A value outside the dimension (naming its index and what was expected).
        TypeError
            A value of the wrong type, or ``values`` not a sequence.

        Examples
        --------
        >>> Real(0, 10).transform([0, 2.5, 10]).ravel().tolist()
        [0.0, 0.25, 1.0]
        """
        return self._transform(values, lambda i: f"values[{i}]")

    def inverse_transform(self, Z: Any) -> Any:
        """Surrogate coordinates back to values of the dimension.

        Coordinates are clipped to ``[0, 1]``; an ``Integer`` is rounded to the nearest
        integer, a ``Categorical`` takes its largest coordinate (the first on ties).

        Parameters
        ----------
        Z : array-like of shape (n, transformed_size)
            Surrogate coordinates; shape ``(n,)`` too when ``transformed_size`` is 1.

        Returns
        -------
        ndarray of shape (n,) or list
            As :meth:`rvs` returns them.

        Examples
        --------
        >>> Integer(0, 4).inverse_transform([0.0, 0.5, 0.69, 1.2]).tolist()
        [0, 2, 3, 4]
        """
        Z = check_array(Z, "Z", ndim=None, allow_empty=True)
        if Z.ndim == 1 and self._size == 1:
            Z = Z[:, None]
        if Z.ndim != 2 or Z.shape[1] != self._size:
            raise ValueError(
                f"Z must have shape (n, {self._size}) (one row of {self._size} surrogate "
                f"coordinates per value), got shape {Z.shape}"
            )
        return self._from_block(np.clip(Z, 0.0, 1.0))

    def __contains__(self, value: Any) -> bool:
        try:
            self._check(value, "value")
        except (TypeError, ValueError):
            return False
        return True

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Dimension)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __repr__(self) -> str:
        name = "" if self._name is None else f", name={self._name!r}"
        return f"{type(self).__name__}({self._repr_args()}{name})"

    def _renamed(self, name: str) -> Dimension:
        other = copy.copy(self)
        other._name = name
        return other


class _Interval(Dimension):
    """A ``Real`` or ``Integer``: an interval ``[lo, hi]`` of the real line (the relaxed
    one for integers) mapped onto ``[0, 1]``, affinely in ``x`` or in ``log x``."""

    _low: Any
    _high: Any
    _lo: float  # the ends of the mapped interval, logarithms where log-uniform
    _hi: float

    def _finish(self, prior: Any, name: Any, low: Any, lo: float, hi: float) -> None:
        """Check ``prior`` (``low`` as given, for the message) and ``name``, and map the
        interval ``[lo, hi]`` onto ``[0, 1]``."""
        self._prior = _check_prior(prior)
        if self._prior == "log-uniform" and self._low <= 0:
            raise ValueError(
                f"low must be > 0 for prior='log-uniform' (the logarithm of the bounds is "
                f"taken), got low={low!r}"
            )
        self._name = _check_name(name)
        self._size = 1
        self._set_map(lo, hi)

    def _set_map(self, lo: float, hi: float) -> None:
        self._log = self._prior == "log-uniform"
        self._lo, self._hi = (math.log(lo), math.log(hi)) if self._log else (lo, hi)

    def _unit(self, x: np.ndarray) -> np.ndarray:
        t = np.log(x) if self._log else x
        # x is within [low, high]; NumPy's vectorised log may differ by an ulp from the
        # math.log of the ends, which would put an end a hair outside the cube
        return np.clip((t - self._lo) / (self._hi - self._lo), 0.0, 1.0)

    def _relaxed(self, z: np.ndarray) -> np.ndarray:
        # from the nearer end, so that both ends are exact and the error is relative to the
        # distance from that end (1 - z is exact for z >= 1/2)
        width = self._hi - self._lo
        t = np.where(z <= 0.5, self._lo + z * width, self._hi - (1.0 - z) * width)
        return np.exp(t) if self._log else t

    def _ok(self, x: np.ndarray) -> np.ndarray:
        return np.isfinite(x) & (x >= self._low) & (x <= self._high)

    def _transform(self, values: Any, where: _Where) -> np.ndarray:
        items = _values(values, "values")
        x = None
        if isinstance(items, np.ndarray) and items.dtype.kind in "iuf":
            x = items.astype(float)
        if x is None or not self._ok(x).all():  # one by one: check, or say what is wrong
            x = np.array([self._check(v, where(i)) for i, v in enumerate(items)], dtype=float)
        return self._unit(x).reshape(-1, 1)

    def _from_unit(self, u: np.ndarray) -> np.ndarray:
        return self._from_block(np.clip(u, 0.0, 1.0).reshape(-1, 1))

    def _key(self) -> tuple[Any, ...]:
        return (self._low, self._high, self._prior, self._name)

    def _repr_args(self) -> str:
        return f"low={self._low!r}, high={self._high!r}, prior={self._prior!r}"

    @property
    def bounds(self) -> tuple[Any, ...]:
        """``(low, high)``, both included."""
        return (self._low, self._high)

    @property
    def low(self) -> Any:
        """The lower bound (included)."""
        return self._low

    @property
    def high(self) -> Any:
        """The upper bound (included)."""
        return self._high


class Real(_Interval):
    """A real interval ``[low, high]``, uniform or log-uniform.

    Parameters
    ----------
    low, high : float
        The bounds, both included: finite numbers with ``low < high`` (and ``low > 0``
        for ``"log-uniform"``).
    prior : {"uniform", "log-uniform"}, default="uniform"
        The law of :meth:`~Dimension.rvs`, and the scale of the surrogate coordinate:
        ``(x - low) / (high - low)``, or the same in ``log x``.
    name : str, optional
        The dimension's name (keyword only).

    Raises
    ------
    ValueError
        Bounds not finite, ``low >= high``, ``high - low`` beyond the float64 range,
        ``low <= 0`` with ``"log-uniform"``, or an unknown ``prior``.
    TypeError
        A bound that is not a number, a ``prior`` or ``name`` that is not a str.

    See Also
    --------
    Integer : An integer range, uniform or log-uniform.
    Categorical : A finite set of categories.
    Space : A list of dimensions.

    Examples
    --------
    >>> lr = Real(1e-4, 1e-1, "log-uniform", name="learning_rate")
    >>> lr
    Real(low=0.0001, high=0.1, prior='log-uniform', name='learning_rate')
    >>> lr.transform([1e-4, 1e-2, 1e-1]).ravel().round(6).tolist()
    [0.0, 0.666667, 1.0]
    >>> 0.5 in lr
    False
    """

    def __init__(
        self, low: float, high: float, prior: str = "uniform", *, name: str | None = None
    ) -> None:
        for arg, value in (("low", low), ("high", high)):
            if not _is_number(value):
                raise TypeError(f"{arg} must be a real number, got {value!r}")
            if not math.isfinite(float(value)):
                raise ValueError(f"{arg} must be finite, got {value!r}")
        self._low, self._high = float(low), float(high)
        if not self._low < self._high:
            raise ValueError(f"low must be < high, got low={low!r}, high={high!r}")
        if not math.isfinite(self._high - self._low):
            raise ValueError(
                f"high - low overflows float64 for low={low!r}, high={high!r}; "
                "rescale the dimension"
            )
        self._finish(prior, name, low, self._low, self._high)

    def _expected(self) -> str:
        return f"a number in [{self._low!r}, {self._high!r}]"

    def _check(self, value: Any, where: str) -> float:
        if not _is_number(value):
            raise TypeError(f"{where} must be {self._expected()}, got {value!r}")
        x = float(value)
        if not (math.isfinite(x) and self._low <= x <= self._high):
            raise ValueError(f"{where} must be {self._expected()}, got {value!r}")
        return x

    def _from_block(self, Z: np.ndarray) -> np.ndarray:
        z = Z[:, 0]
        x = np.clip(self._relaxed(z), self._low, self._high)
        return np.where(z <= 0.0, self._low, np.where(z >= 1.0, self._high, x))


class Integer(_Interval):
    """An integer range ``low, low + 1, ..., high``, uniform or log-uniform.

    Parameters
    ----------
    low, high : int
        The bounds, both included: integers (a float with a whole value is accepted)
        with ``low < high``, at most ``2**40`` in magnitude (so that every integer
        survives the trip through a float64 coordinate exactly), and ``low > 0`` for
        ``"log-uniform"``.
    prior : {"uniform", "log-uniform"}, default="uniform"
        The law of :meth:`~Dimension.rvs` (see Notes).
    name : str, optional
        The dimension's name (keyword only).

    Raises
    ------
    ValueError
        Bounds not whole or not finite or too large, ``low >= high``, ``low <= 0`` with
        ``"log-uniform"``, or an unknown ``prior``.
    TypeError
        A bound that is not a number, a ``prior`` or ``name`` that is not a str.

    See Also
    --------
    Real : A real interval, uniform or log-uniform.
    Categorical : A finite set of categories.
    Space : A list of dimensions.

    Notes
    -----
    Each integer ``j`` owns the cell ``[j - 1/2, j + 1/2)`` of the real line, and the
    relaxed interval ``[low - 1/2, high + 1/2]`` is mapped onto the surrogate coordinate
    ``[0, 1]``, affinely (``"uniform"``) or affinely in the logarithm
    (``"log-uniform"``). A coordinate maps back to the nearest integer, so a uniform
    coordinate gives each integer the width of its cell: ``1 / (high - low + 1)``, or
    under ``"log-uniform"``

    .. math:: P(j) = \\frac{\\log\\big((j + 1/2) / (j - 1/2)\\big)}
              {\\log\\big((high + 1/2) / (low - 1/2)\\big)}.

    Examples
    --------
    >>> n = Integer(1, 1000, "log-uniform", name="n_estimators")
    >>> n.transform([1, 1000]).ravel().round(4).tolist()
    [0.0912, 0.9999]
    >>> n.inverse_transform([0.0, 0.5, 1.0]).tolist()
    [1, 22, 1000]
    >>> 2.5 in n, 3 in n, 3.0 in n
    (False, True, True)
    """

    def __init__(
        self, low: int, high: int, prior: str = "uniform", *, name: str | None = None
    ) -> None:
        self._low, self._high = (
            self._check_bound(v, arg) for arg, v in (("low", low), ("high", high))
        )
        if not self._low < self._high:
            raise ValueError(f"low must be < high, got low={low!r}, high={high!r}")
        self._finish(prior, name, low, self._low - 0.5, self._high + 0.5)

    @staticmethod
    def _check_bound(value: Any, arg: str) -> int:
        if not _is_number(value):
            raise TypeError(f"{arg} must be an integer, got {value!r}")
        if not isinstance(value, numbers.Integral):
            x = float(value)
            if not (math.isfinite(x) and x.is_integer()):
                raise ValueError(f"{arg} must be a whole number, got {value!r}")
        if abs(value) > _INT_LIMIT:
            raise ValueError(f"{arg} must be at most 2**40 in magnitude, got {value!r}")
        return int(value)

    def _expected(self) -> str:
        return f"an integer in [{self._low}, {self._high}]"

    def _ok(self, x: np.ndarray) -> np.ndarray:
        return super()._ok(x) & (x == np.rint(x))

    def _check(self, value: Any, where: str) -> int:
        if not _is_number(value):
            raise TypeError(f"{where} must be {self._expected()}, got {value!r}")
        if isinstance(value, numbers.Integral):
            ok = self._low <= value <= self._high
        else:
            x = float(value)
            ok = math.isfinite(x) and x.is_integer() and self._low <= x <= self._high
        if not ok:
            raise ValueError(f"{where} must be {self._expected()}, got {value!r}")
        return int(value)

    def _from_block(self, Z: np.ndarray) -> np.ndarray:
        y = np.rint(self._relaxed(Z[:, 0]))  # the nearest integer, in the original space
        return np.clip(y, self._low, self._high).astype(np.int64)


class Categorical(Dimension):
    """A finite set of categories, one-hot in the surrogate space.

    Parameters
    ----------
    categories : sequence of hashable
        The categories, in order: strings, numbers, ``None``, bools, tuples, ...; at
        least one, all distinct. Categories compare as Python values (``1`` and ``1.0``
        are the same), except that a bool never equals a number.
    name : str, optional
        The dimension's name (keyword only).

    Raises
    ------
    ValueError
        No categories, a repeated category, or a NaN category (which equals nothing).
    TypeError
        ``categories`` not a sequence (a str is refused), an unhashable category, or a
        ``name`` that is not a str.

    See Also
    --------
    Real : A real interval, uniform or log-uniform.
    Integer : An integer range, uniform or log-uniform.
    Space : A list of dimensions.

    Notes
    -----
    The surrogate coordinates are one-hot, ``k`` of them for ``k`` categories, two
    included (so the surrogate sees every pair of categories at the same distance);
    :meth:`~Dimension.inverse_transform` takes the largest coordinate.

    Examples
    --------
    >>> kernel = Categorical(["rbf", "matern", None], name="kernel")
    >>> kernel.transform(["matern", None]).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    >>> kernel.inverse_transform([[0.2, 0.7, 0.1]])
    ['matern']
    >>> "linear" in kernel
    False
    """

    def __init__(self, categories: Any, *, name: str | None = None) -> None:
        if isinstance(categories, (str, bytes)) or not isinstance(
            categories, (Sequence, np.ndarray)
        ):
            raise TypeError(
                "categories must be a sequence (list or tuple) of categories, got "
                f"{type(categories).__name__} {categories!r}"
            )
        cats = tuple(categories)
        if not cats:
            raise ValueError("categories must hold at least one category, got none")
        lookup: dict[tuple[bool, Any], int] = {}
        for i, c in enumerate(cats):
            try:
                hash(c)
            except TypeError:
                raise TypeError(
                    f"categories[{i}] must be hashable, got {type(c).__name__} {c!r}"
                ) from None
            if isinstance(c, (float, np.floating)) and math.isnan(c):
                raise ValueError(f"categories[{i}] is NaN, which equals no value")
            key = _category_key(c)
            if key in lookup:
                raise ValueError(
                    f"categories must be distinct; categories[{i}] = {c!r} repeats "
                    f"categories[{lookup[key]}]"
                )
            lookup[key] = i
        self._categories = cats
        self._lookup = lookup
        self._name = _check_name(name)
        self._prior = "uniform"
        self._size = len(cats)

    @property
    def categories(self) -> tuple[Any, ...]:
        """The categories, in the order given."""
        return self._categories

    @property
    def bounds(self) -> tuple[Any, ...]:
        """The categories (as scikit-optimize's ``bounds`` of a categorical dimension)."""
        return self._categories

    def _index(self, value: Any, where: str) -> int:
        try:
            i = self._lookup.get(_category_key(value))
        except TypeError:  # unhashable
            i = None
        if i is None:
            shown = ", ".join(repr(c) for c in self._categories[:10])
            more = ", ..." if len(self._categories) > 10 else ""
            raise ValueError(f"{where} must be one of {shown}{more}; got {value!r}")
        return i

    def _check(self, value: Any, where: str) -> Any:
        return self._categories[self._index(value, where)]

    def _transform(self, values: Any, where: _Where) -> np.ndarray:
        items = _values(values, "values")
        idx = np.array([self._index(v, where(i)) for i, v in enumerate(items)], dtype=np.intp)
        Z = np.zeros((idx.size, self._size))
        Z[np.arange(idx.size), idx] = 1.0
        return Z

    def _from_block(self, Z: np.ndarray) -> list[Any]:
        return [self._categories[i] for i in np.argmax(Z, axis=1)]

    def _from_unit(self, u: np.ndarray) -> list[Any]:
        idx = np.minimum((np.asarray(u) * self._size).astype(np.intp), self._size - 1)
        return [self._categories[i] for i in idx]

    def _key(self) -> tuple[Any, ...]:
        return (tuple(_category_key(c) for c in self._categories), self._name)

    def _repr_args(self) -> str:
        return f"categories={self._categories!r}"


# ------------------------------------------------------------------ shorthands
def _dimension_from(spec: Any, where: str) -> Dimension:
    """A dimension from a :class:`Dimension` or one of scikit-optimize's shorthands."""
    if isinstance(spec, Dimension):
        return spec
    if isinstance(spec, (str, bytes)) or not isinstance(spec, (Sequence, np.ndarray)):
        raise TypeError(
            f"{where} must be a Real, Integer or Categorical, a (low, high) or "
            f"(low, high, prior) tuple, or a list of categories; got "
            f"{type(spec).__name__} {spec!r}"
        )
    items = list(spec)
    numeric = len(items) in (2, 3) and all(_is_number(x) for x in items[:2])
    if numeric and (len(items) == 2 or items[2] in PRIORS):
        integer = all(isinstance(x, numbers.Integral) for x in items[:2])
        kind = Integer if integer else Real
        try:
            return kind(*items)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{where} = {spec!r}, read as {kind.__name__}: {exc}") from None
    try:
        return Categorical(items)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where} = {spec!r}, read as Categorical: {exc}") from None


def _dimensions_from(dimensions: Any) -> list[Dimension]:
    if isinstance(dimensions, Space):
        return list(dimensions.dimensions)
    if isinstance(dimensions, dict):
        dims = []
        for key, spec in dimensions.items():
            if not isinstance(key, str) or not key:
                raise TypeError(
                    f"the names (keys) of dimensions must be non-empty str, got {key!r}"
                )
            dim = _dimension_from(spec, f"dimensions[{key!r}]")
            if dim.name is not None and dim.name != key:
                raise ValueError(
                    f"dimensions[{key!r}] is named {dim.name!r}; a dimension given in a dict "
                    "takes its key as its name (drop its name or make them agree)"
                )
            dims.append(dim if dim.name == key else dim._renamed(key))
        return dims
    if isinstance(dimensions, np.ndarray) and dimensions.dtype.kind in "iuf":
        if dimensions.ndim != 2 or dimensions.shape[1] != 2:
            raise ValueError(
                "dimensions given as an array must be bounds of shape (d, 2), one (low, high) "
                f"pair per Real dimension, got shape {dimensions.shape}"
            )
        return [
            _dimension_from((float(lo), float(hi)), f"dimensions[{i}]")
            for i, (lo, hi) in enumerate(dimensions)
        ]
    if isinstance(dimensions, (str, bytes)) or not isinstance(dimensions, (Sequence, np.ndarray)):
        raise TypeError(
            "dimensions must be a list of dimensions, a dict {name: dimension} or a bounds "
            f"array of shape (d, 2), got {type(dimensions).__name__}"
        )
    return [_dimension_from(spec, f"dimensions[{i}]") for i, spec in enumerate(dimensions)]


# ------------------------------------------------------------------ the space
class Space:
    """A search space: a list of dimensions, with maps to and from the surrogate's cube.

    Parameters
    ----------
    dimensions : list, dict or ndarray of shape (d, 2)
        The dimensions, one of:

        - a list whose items are :class:`Real`, :class:`Integer` or :class:`Categorical`
          objects, or scikit-optimize's shorthands: ``(low, high)`` of two ints is an
          ``Integer``, with a float among them a ``Real``; ``(low, high, prior)`` the
          same with ``prior`` ``"uniform"`` or ``"log-uniform"``; any other list or
          tuple (three or more values, strings, bools, ``None``, a single value) is a
          ``Categorical``;
        - a dict ``{name: dimension}`` of the same, named by its keys;
        - a numeric array of bounds, shape ``(d, 2)``, as :class:`BayesianOptimizer`
          takes: every dimension a uniform ``Real``.

        So ``[(0, 1)]`` is an ``Integer`` dimension, while ``[(0.0, 1.0)]`` and
        ``np.array([(0, 1)])`` are ``Real`` ones.

    Raises
    ------
    ValueError
        No dimensions, two dimensions with the same name, a dict key that disagrees with
        its dimension's name, or a bad dimension (the message names it).
    TypeError
        Something that is not a dimension nor a shorthand for one.

    See Also
    --------
    Real : A real interval, uniform or log-uniform.
    Integer : An integer range, uniform or log-uniform.
    Categorical : A finite set of categories.

    Examples
    --------
    >>> space = Space([(1e-4, 1e-1, "log-uniform"), (1, 8), ["rbf", "matern"]])
    >>> space.dimension_names, space.n_dims, space.transformed_n_dims
    (['x0', 'x1', 'x2'], 3, 4)
    >>> points = space.rvs(2, random_state=0)
    >>> [type(v).__name__ for v in points[0]]
    ['float', 'int', 'str']
    >>> Z = space.transform([[0.01, 3, "matern"]])
    >>> Z.round(3).tolist()
    [[0.667, 0.312, 0.0, 1.0]]
    >>> x = space.inverse_transform(Z)[0]  # reals come back up to rounding
    >>> round(x[0], 12), x[1:]
    (0.01, [3, 'matern'])
    >>> [0.01, 9, "rbf"] in space
    False
    >>> space.to_dict([0.01, 3, "matern"])
    {'x0': 0.01, 'x1': 3, 'x2': 'matern'}
    """

    def __init__(self, dimensions: Any) -> None:
        dims = _dimensions_from(dimensions)
        if not dims:
            raise ValueError("dimensions must hold at least one dimension, got none")
        names = [d.name if d.name is not None else f"x{i}" for i, d in enumerate(dims)]
        seen: dict[str, int] = {}
        for i, n in enumerate(names):
            if n in seen:
                raise ValueError(
                    f"dimension names must be distinct; dimensions[{i}] and "
                    f"dimensions[{seen[n]}] are both named {n!r} (unnamed dimensions are "
                    "called x0, x1, ... by their position)"
                )
            seen[n] = i
        self._dimensions = tuple(dims)
        self._names = tuple(names)
        sizes = [d.transformed_size for d in dims]
        self._offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist()

    # -- description
    @property
    def dimensions(self) -> list[Dimension]:
        """The dimensions, in order (a new list)."""
        return list(self._dimensions)

    @property
    def dimension_names(self) -> list[str]:
        """The names of the dimensions; ``x0, x1, ...`` (by position) for unnamed ones."""
        return list(self._names)

    @property
    def n_dims(self) -> int:
        """Number of dimensions."""
        return len(self._dimensions)

    @property
    def transformed_n_dims(self) -> int:
        """Number of surrogate coordinates (a ``Categorical`` has one per category)."""
        return int(self._offsets[-1])

    @property
    def is_real(self) -> bool:
        """Whether every dimension is a ``Real``."""
        return all(isinstance(d, Real) for d in self._dimensions)

    @property
    def bounds(self) -> list[tuple[Any, ...]]:
        """Each dimension's ``bounds``: ``(low, high)``, or the categories."""
        return [d.bounds for d in self._dimensions]

    @property
    def transformed_bounds(self) -> list[tuple[float, float]]:
        """``(0.0, 1.0)`` for each surrogate coordinate."""
        return [(0.0, 1.0)] * self.transformed_n_dims

    # -- points
    def _where(self, j: int, prefix: str) -> str:
        return f"{prefix}[{j}] (dimension {self._names[j]!r})"

    def _cell_where(self, j: int) -> _Where:
        return lambda i: self._where(j, f"points[{i}]")

    def _point(self, point: Any, where: str) -> Sequence[Any] | np.ndarray:
        """``point`` as a sequence of ``n_dims`` values (not yet checked), or raise."""
        if isinstance(point, (str, bytes)) or not isinstance(point, (Sequence, np.ndarray)):
            hint = "; pass [point] for a single point" if where.startswith("points[") else ""
            raise TypeError(
                f"{where} must be a sequence of {self.n_dims} values, one per dimension "
                f"({', '.join(self._names)}), got {type(point).__name__} {point!r}{hint}"
            )
        if isinstance(point, np.ndarray) and point.ndim != 1:
            raise ValueError(f"{where} must be 1-dimensional, got shape {point.shape}")
        if len(point) != self.n_dims:
            raise ValueError(
                f"{where} has {len(point)} values, but the space has {self.n_dims} "
                f"dimensions ({', '.join(self._names)})"
            )
        return point

    def validate(self, point: Any) -> None:
        """Check that ``point`` belongs to the space, or say why not.

        Parameters
        ----------
        point : sequence
            One value per dimension.

        Raises
        ------
        ValueError
            The wrong number of values, or a value outside its dimension (the message
            names the dimension and what it expected).
        TypeError
            ``point`` is not a sequence, or a value has the wrong type.

        Examples
        --------
        >>> Space([Integer(1, 8, name="depth")]).validate([9])
        Traceback (most recent call last):
        ...
        ValueError: point[0] (dimension 'depth') must be an integer in [1, 8], got 9
        """
        self._values_of(point)

    def _values_of(self, point: Any) -> list[Any]:
        point = self._point(point, "point")
        return [
            d._check(v, self._where(j, "point"))
            for j, (d, v) in enumerate(zip(self._dimensions, point, strict=True))
        ]

    def __contains__(self, point: Any) -> bool:
        try:
            self._values_of(point)
        except (TypeError, ValueError):
            return False
        return True

    def to_dict(self, point: Any) -> dict[str, Any]:
        """A point as ``{name: value}``, its values checked (and as the dimensions hold them:
        ``3.0`` of an ``Integer`` becomes ``3``).

        Parameters
        ----------
        point : sequence
            One value per dimension.

        Returns
        -------
        dict
            ``dimension_names`` to the values.

        Raises
        ------
        ValueError, TypeError
            As :meth:`validate`.
        """
        return dict(zip(self._names, self._values_of(point), strict=True))

    # -- the surrogate space
    def transform(self, points: Any) -> np.ndarray:
        """Points to the surrogate's cube ``[0, 1]^transformed_n_dims``.

        Parameters
        ----------
        points : list of sequences, or array of shape (n, n_dims)
            The points, each with one value per dimension (a list of one point for a
            single point).

        Returns
        -------
        ndarray of shape (n, transformed_n_dims)
            The dimensions' surrogate coordinates side by side, in order.

        Raises
        ------
        ValueError, TypeError
            A point of the wrong length or with a value outside its dimension (the
            message names the point and the dimension).
        """
        if isinstance(points, np.ndarray) and points.dtype.kind != "O":
            if points.ndim != 2 or points.shape[1] != self.n_dims:
                raise ValueError(
                    f"points must have shape (n, {self.n_dims}), one row per point, got "
                    f"shape {points.shape}; for a single point pass [point]"
                )
            columns: list[Any] = [points[:, j] for j in range(self.n_dims)]
            n = points.shape[0]
        else:
            items = list(points) if isinstance(points, np.ndarray) else _values(points, "points")
            rows = [self._point(p, f"points[{i}]") for i, p in enumerate(items)]
            columns = [[r[j] for r in rows] for j in range(self.n_dims)]
            n = len(rows)
        blocks = [
            d._transform(col, self._cell_where(j))
            for j, (d, col) in enumerate(zip(self._dimensions, columns, strict=True))
        ]
        return np.hstack(blocks) if n else np.empty((0, self.transformed_n_dims))

    def inverse_transform(self, Z: Any) -> list[list[Any]]:
        """Points of the surrogate's cube back to points of the space.

        Coordinates are clipped to ``[0, 1]``, so every row gives a valid point: the
        nearest integer for an ``Integer``, the largest coordinate's category for a
        ``Categorical``.

        Parameters
        ----------
        Z : array-like of shape (n, transformed_n_dims)
            Surrogate coordinates, one row per point.

        Returns
        -------
        list of lists
            ``n`` points, their values Python floats, ints and the categories.
        """
        Z = check_array(Z, "Z", ndim=2, n_features=self.transformed_n_dims, allow_empty=True)
        Z = np.clip(Z, 0.0, 1.0)
        o = self._offsets
        columns = [_as_python(d._from_block(Z[:, o[j] : o[j + 1]])) for j, d in enumerate(self)]
        return [list(row) for row in zip(*columns, strict=True)]

    # -- sampling
    def rvs(self, n_samples: int = 1, random_state: Any = None) -> list[list[Any]]:
        """Random points, each dimension drawn independently from its prior.

        Parameters
        ----------
        n_samples : int, default=1
            Number of points, at least 1.
        random_state : int, RandomState, Generator or None, default=None
            Seeds the draw.

        Returns
        -------
        list of lists
            ``n_samples`` points: Python floats, ints and the categories.
        """
        return self.sample(n_samples, "random", random_state)

    def sample(
        self, n_samples: int, method: str = "random", random_state: Any = None
    ) -> list[list[Any]]:
        """A random or quasi-random design of points.

        A design of ``n_samples`` points in ``[0, 1)^n_dims``, one coordinate per
        dimension, is mapped to the space as :meth:`rvs` maps uniform draws (through the
        dimension's prior; a ``Categorical`` takes category ``floor(u k)``), so the
        stratification of a Latin hypercube or a Sobol design carries over to every
        dimension, categories included.

        Parameters
        ----------
        n_samples : int
            Number of points, at least 1.
        method : {"random", "sobol", "lhs", "halton"}, default="random"
            Independent uniform draws; a scrambled Sobol sequence (the first
            ``n_samples`` points of a power-of-two run, as
            :func:`~kernelkit.optimize.search.sobol_points`); a Latin hypercube; a
            scrambled Halton sequence (:mod:`scipy.stats.qmc`).
        random_state : int, RandomState, Generator or None, default=None
            Seeds the draw or the scrambling.

        Returns
        -------
        list of lists
            ``n_samples`` points: Python floats, ints and the categories.

        Raises
        ------
        ValueError
            An unknown ``method``, or ``n_samples < 1``.

        Examples
        --------
        >>> space = Space({"C": Real(1e-3, 1e3, "log-uniform"), "degree": Integer(1, 4)})
        >>> design = space.sample(8, "lhs", random_state=0)
        >>> sorted(p[1] for p in design)
        [1, 1, 2, 2, 3, 3, 4, 4]
        """
        check_int(n_samples, "n_samples", minimum=1)
        check_in(method, "method", SAMPLING_METHODS)
        rng = check_random_state(random_state)
        d = self.n_dims
        if method == "random":
            U = rng.uniform(size=(n_samples, d))
        elif method == "sobol":
            U = sobol_points(n_samples, d, rng)
        elif method == "lhs":
            U = qmc.LatinHypercube(d, seed=rng.randint(2**31 - 1)).random(n_samples)
        else:
            U = qmc.Halton(d, scramble=True, seed=rng.randint(2**31 - 1)).random(n_samples)
        columns = [_as_python(dim._from_unit(U[:, j])) for j, dim in enumerate(self)]
        return [list(row) for row in zip(*columns, strict=True)]

    # -- containers
    def __iter__(self) -> Iterator[Dimension]:
        return iter(self._dimensions)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Space):
            return NotImplemented
        return self._dimensions == other._dimensions

    def __hash__(self) -> int:
        return hash(self._dimensions)

    def __repr__(self) -> str:
        return f"Space([{', '.join(repr(d) for d in self._dimensions)}])"


def _as_python(values: Any) -> list[Any]:
    """NumPy values as Python floats and ints; a list of categories as it is."""
    return values.tolist() if isinstance(values, np.ndarray) else list(values)
