"""Kernel objects: hyperparameters in log space, gradients, and the closure algebra.

A kernel is a callable ``k(X, Y=None) -> ndarray`` of shape ``(len(X), len(Y))`` with
``k.diag(X)``. Hyperparameters are ordinary constructor arguments (``lengthscale``,
``variance``, ...). The free ones are exposed together as ``theta``, the vector of their
logarithms, so that optimisers work on an unconstrained scale and values stay positive
(as in GPyTorch and GPflow). Gradients are taken with respect to ``theta``. Each kernel
class declares its arguments once (:func:`~kernelkit.kernels.parameter`), which gives its
constructor and its hyperparameters; priors on the hyperparameters
(:mod:`kernelkit.kernels.priors`) add ``k.log_prior(theta)`` for MAP fitting.

Two gradient routes are offered:

* ``k.gradient(X)`` returns the full tensor ``dK/dtheta`` of shape ``(n, n, p)``;
* ``k.gradient_dot(X, W)`` returns ``sum_ij W_ij dK_ij/dtheta_p`` for each ``p`` without
  forming that tensor. This is what marginal-likelihood fitting needs
  (``d log p / d theta = 1/2 tr((a a^T - K^-1) dK/dtheta)``), and stationary kernels
  compute it with a few matrix products. ``k.gradient_dot(X, W, Y)`` does the same for a
  rectangular block ``k(X, Y)``, so that a matrix-free fit can sum it over row blocks
  without ever holding the ``n x n`` matrix.

Kernels combine by the closure rules of Bishop (2006) eqs. 6.13-6.22, which the assignment
seed lists as its Lemma 1: ``k1 + k2``, ``k1 * k2``, ``c * k`` for a constant ``c >= 0``,
``k ** n`` and ``poly(k, coefs)`` with non-negative coefficients, ``exp(k)``, and
``compose(k, phi)`` for a kernel on a feature map. The constant kernel lives here too,
since ``k + c`` builds one.

Values and gradients are finite for finite inputs and hyperparameters. A kernel knows a
bound on its values (``variance`` for a stationary kernel); where that bound is beyond the
float64 range (dot products of inputs near 1e200, ``exp`` of a large kernel) the result is
checked, and an overflow is a ``ValueError`` that names the inputs, never an ``inf`` or a
NaN. Kernels compare equal when their types and parameters are equal (arrays by value), so
``k == k.clone()``; their hash is that of their type (see ``Kernel.__hash__``).
"""

from __future__ import annotations

import copy
import inspect
import math
import numbers
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from kernelkit._memory import check_memory, memory_limit
from kernelkit._validation import check_array, check_noise_bounds, check_positive
from kernelkit.kernels.parameters import (
    Hyperparameter,
    Parameter,
    declared_parameters,
    init_signature,
    make_init,
    parameter,
)
from kernelkit.kernels.priors import Prior

#: Largest float64; a kernel whose value bound is below it cannot overflow.
_FMAX = float(np.finfo(np.float64).max)

__all__ = [
    "Hyperparameter",
    "Kernel",
    "Constant",
    "Sum",
    "Product",
    "Scaled",
    "PolynomialOf",
    "ExponentialOf",
    "Composed",
    "poly",
    "exp",
    "compose",
]


class Kernel:
    """Base class of every kernelkit kernel; subclassing it is the way to add a kernel.

    A kernel class declares its constructor arguments once, as class attributes made by
    :func:`~kernelkit.kernels.parameter`, in positional order (those of its base classes
    first). From them the class gets

    * its ``__init__``, which stores the arguments unchanged and calls ``_check_params()``,
      with a real signature: the declared parameters, then keyword-only ``<name>_bounds``
      and ``<name>_prior`` for each fitted hyperparameter ``<name>``;
    * ``hyperparameters``, the fitted ones as :class:`Hyperparameter` objects in ``theta``
      order (positive; scalars unless declared ``ard=True``),

    so ``get_params``, ``set_params``, ``clone``, scikit-learn's ``clone`` and pickling work
    for every subclass. A subclass that assigns a plain value to an inherited parameter's
    name removes the argument and fixes the value (:class:`~kernelkit.kernels.Laplace` is
    a Matérn kernel with ``nu = 0.5``). A class that writes its own ``__init__`` keeps it.

    Subclasses implement ``_gram(X, Y)`` and ``_diag(X)`` on validated inputs and, when
    they have fitted hyperparameters, ``_gradient_dot(X, W)``, ``_gradient(X)`` or both
    (each has a default in terms of the other), and ``_gradient_dot_cross(X, Y, W)`` for
    the contraction on a cross block ``k(X, Y)`` (no default: matrix-free fitting sums it
    over blocks, so it must not form a tensor); ``_check_params()`` extends the checks of
    the arguments (calling ``super()._check_params()``). A stationary kernel needs only its
    profile (see :class:`~kernelkit.kernels.Stationary`). Non-vector kernels set
    ``requires_vector_input = False`` and receive the raw list of objects.

    Examples
    --------
    The gamma-exponential kernel ``variance * exp(-r^power)`` (positive definite for
    ``0 < power <= 2``), with a structural parameter besides the stationary ones:

    >>> import inspect
    >>> import numpy as np
    >>> from kernelkit.kernels import Stationary, parameter
    >>> class GammaExponential(Stationary):
    ...     power: float = parameter(1.0)
    ...
    ...     def _check_params(self):
    ...         if not 0 < self.power <= 2:
    ...             raise ValueError(f"power must be in (0, 2], got {self.power!r}")
    ...         super()._check_params()
    ...
    ...     def _f(self, s):  # the profile, as a function of s = r^2
    ...         return np.exp(-(s ** (self.power / 2)))
    >>> list(inspect.signature(GammaExponential).parameters)[:4]
    ['lengthscale', 'variance', 'power', 'lengthscale_bounds']
    >>> k = GammaExponential(2.0, power=0.5, variance_bounds="fixed")
    >>> k
    GammaExponential(lengthscale=2, variance=1, power=0.5, variance_bounds='fixed')
    >>> k.theta_names
    ['lengthscale']
    >>> float(k(np.zeros((1, 1)), np.full((1, 1), 8.0))[0, 0])  # exp(-(8 / 2) ** 0.5)
    0.1353352832366127
    >>> k.clone() == k == GammaExponential(**k.get_params())
    True
    """

    requires_vector_input: bool = True
    #: takes whatever the kernels it is combined with take (Constant, White)
    _any_objects: bool = False
    #: the declared constructor arguments, in positional order (see :func:`parameter`)
    _parameters: ClassVar[dict[str, Parameter]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Build ``__init__`` and collect ``_parameters`` from the declarations."""
        super().__init_subclass__(**kwargs)
        inherited = cls._parameters
        cls._parameters = declared_parameters(cls)
        declares = any(isinstance(v, Parameter) or n in inherited for n, v in vars(cls).items())
        init = cls.__init__
        if "__init__" not in vars(cls) and (
            declares or init is object.__init__ or getattr(init, "_declared", False)
        ):
            signature = init_signature(cls, cls._parameters)
            cls.__init__ = make_init(cls, signature)  # type: ignore[method-assign]

    if TYPE_CHECKING:  # for type checkers: the real __init__ comes from the declarations

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    # ------------------------------------------------------------------ comparison
    def __eq__(self, other: object) -> bool:
        """Same type and equal parameters (arrays compared by value, sub-kernels by ``==``)."""
        if not isinstance(other, Kernel):
            return NotImplemented
        if type(self) is not type(other):
            return False
        a, b = self.get_params(deep=False), other.get_params(deep=False)
        return a.keys() == b.keys() and all(_same_param(a[k], b[k]) for k in a)

    def __hash__(self) -> int:
        """The hash of the kernel's type, consistent with ``==`` whatever the parameters.

        Kernels are mutable (``theta``, ``set_params``) and compare by value, so a hash of
        the parameters would change under a kernel stored in a set. scikit-learn's GP
        kernels are unhashable instead, but scikit-learn's ``pairwise_kernels`` (behind
        ``KernelRidge(kernel=k)`` and ``Nystroem(kernel=k)``) looks a callable up in a dict
        of kernel names, which needs a hash; equal kernels share their type, so this one
        keeps ``a == b => hash(a) == hash(b)`` at the price of slow sets of many kernels.
        """
        return hash(type(self))

    # ------------------------------------------------------------------ parameters
    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor arguments as a dict (scikit-learn convention).

        Parameters
        ----------
        deep : bool, default=True
            Also list the arguments of sub-kernels, as ``k1__lengthscale``.

        Returns
        -------
        dict
            Argument name to value.
        """
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if isinstance(value, Kernel):
                    for sub, v in value.get_params(deep=True).items():
                        params[f"{name}__{sub}"] = v
        return params

    def set_params(self, **params: Any) -> Kernel:
        """Set constructor arguments in place; nested ones as ``k1__lengthscale``.

        Parameters
        ----------
        **params
            Argument names (as :meth:`get_params` lists them) and their new values.

        Returns
        -------
        Kernel
            This kernel.

        Raises
        ------
        ValueError
            If a name is not an argument of this kernel or of its sub-kernels, or a new
            value fails the kernel's checks.
        """
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            head, sep, tail = key.partition("__")
            # a nested key must go through a sub-kernel; a plain key must be a parameter
            if not (isinstance(valid.get(head), Kernel) if sep else key in valid):
                raise ValueError(
                    f"invalid parameter {key!r} for {type(self).__name__}; "
                    f"valid parameters: {sorted(valid)}"
                )
            if sep:
                nested.setdefault(head, {})[tail] = value
            else:
                setattr(self, key, value)
        for head, sub in nested.items():
            getattr(self, head).set_params(**sub)
        self._check_params()
        return self

    def clone(self) -> Kernel:
        """A deep copy of this kernel (equal to it, sharing nothing).

        Returns
        -------
        Kernel
            The copy.
        """
        return copy.deepcopy(self)

    def _check_params(self) -> None:
        """Validate hyperparameter values; subclasses extend (called from __init__)."""
        fitted = [n for n, p in self._parameters.items() if p.fitted]
        for name in fitted:  # also where a value turns a hyperparameter off (coef0 = 0)
            _check_prior(getattr(self, f"{name}_prior"), f"{name}_prior")
        for hp in self.hyperparameters:
            value = getattr(self, hp.name)
            _check_number(value, hp.name)
            check_positive(value, hp.name)
            declared = self._parameters.get(hp.name)
            if declared is not None and declared.ard and np.ndim(value) > 1:
                raise ValueError(
                    f"{hp.name} must be a scalar or a 1-D array (one per feature), got an "
                    f"array of shape {np.shape(value)}"
                )
            if declared is not None and not declared.ard and np.ndim(value) != 0:
                raise ValueError(
                    f"{hp.name} must be a scalar, got an array of shape {np.shape(value)}"
                )
            if not hp.fixed:
                check_noise_bounds(hp.bounds, f"{hp.name}_bounds")
            _check_prior(hp.prior, f"{hp.name}_prior")

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        """The fitted hyperparameters declared by the class, in ``theta`` order."""
        return [
            Hyperparameter(
                name,
                getattr(self, f"{name}_bounds"),
                _size(getattr(self, name)),
                getattr(self, f"{name}_prior"),
            )
            for name, p in self._parameters.items()
            if p.fitted
        ]

    @property
    def free_hyperparameters(self) -> list[Hyperparameter]:
        """The hyperparameters that are not fixed: those in ``theta``, in its order."""
        return [hp for hp in self.hyperparameters if not hp.fixed]

    @property
    def n_dims(self) -> int:
        """Length of ``theta``."""
        return sum(self._n_elements(hp) for hp in self.free_hyperparameters)

    def _n_elements(self, hp: Hyperparameter) -> int:
        return int(np.size(getattr(self, hp.name)))

    @property
    def theta(self) -> np.ndarray:
        """Log of the free hyperparameter values, flattened, in declaration order."""
        return _concat(
            [
                np.log(np.atleast_1d(np.asarray(getattr(self, hp.name), dtype=float)))
                for hp in self.free_hyperparameters
            ]
        )

    @theta.setter
    def theta(self, theta: np.ndarray) -> None:
        theta = _theta_vector(theta, self.n_dims)
        if not np.all(np.isfinite(theta)):
            raise ValueError("theta must be finite")
        with np.errstate(over="ignore", under="ignore"):
            values = np.exp(theta)
        i = 0
        for hp in self.free_hyperparameters:  # check all before setting any
            n = self._n_elements(hp)
            if not np.all((values[i : i + n] > 0) & np.isfinite(values[i : i + n])):
                raise ValueError(
                    f"theta[{i}:{i + n}] = {theta[i : i + n]} puts {hp.name} = exp(theta) "
                    "outside the float64 range (|theta| must stay below ~709)"
                )
            i += n
        i = 0
        for hp in self.free_hyperparameters:
            n = self._n_elements(hp)
            value = values[i : i + n].copy()
            old = getattr(self, hp.name)
            setattr(self, hp.name, value if np.ndim(old) > 0 else float(value[0]))
            i += n

    @property
    def bounds(self) -> np.ndarray:
        """Log-space bounds of ``theta``, shape ``(n_dims, 2)``."""
        rows = []
        for hp in self.free_hyperparameters:
            rows += [np.log(hp.bounds)] * self._n_elements(hp)  # type: ignore[arg-type]
        return np.array(rows).reshape(-1, 2)

    @property
    def theta_names(self) -> list[str]:
        """One name per entry of ``theta`` (``lengthscale[2]`` for ARD entries)."""
        names = []
        for hp in self.free_hyperparameters:
            n = self._n_elements(hp)
            value = getattr(self, hp.name)
            if np.ndim(value) == 0:
                names.append(hp.name)
            else:
                names += [f"{hp.name}[{i}]" for i in range(n)]
        return names

    def _priors(self) -> list[tuple[int, Prior | None]]:
        """``(number of theta entries, prior)`` for each free hyperparameter, in theta order."""
        return [(self._n_elements(hp), hp.prior) for hp in self.free_hyperparameters]

    @property
    def has_priors(self) -> bool:
        """Whether some free hyperparameter has a prior (``log_prior`` is not always 0)."""
        return any(prior is not None for _, prior in self._priors())

    def log_prior(self, theta: Any = None) -> tuple[float, np.ndarray]:
        """Log-density of the priors at ``theta`` and its gradient with respect to ``theta``.

        The sum, over the free hyperparameters that have a prior, of the prior's
        log-density of their logarithms (elementwise for an ARD vector); fixed
        hyperparameters are not in ``theta`` and do not count. Added to a log marginal
        likelihood it gives the MAP objective.

        Parameters
        ----------
        theta : array-like of shape (n_dims,), optional
            Where to evaluate; the kernel's own ``theta`` when omitted.

        Returns
        -------
        value : float
            0.0 when no hyperparameter has a prior.
        gradient : ndarray of shape (n_dims,)
            0 in the entries without a prior.

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF, GammaPrior
        >>> k = RBF(lengthscale=0.5, lengthscale_prior=GammaPrior(3.0, 6.0))
        >>> value, grad = k.log_prior()
        >>> grad  # the lengthscale sits at the mode; the variance has no prior
        array([0., 0.])
        """
        n = self.n_dims
        t = self.theta if theta is None else _theta_vector(theta, n)
        value = 0.0
        grad = np.zeros(n)
        i = 0
        for size, prior in self._priors():
            if prior is not None:
                v, g = prior.log_density(t[i : i + size])
                value += float(np.sum(v))
                grad[i : i + size] = g
            i += size
        return value, grad

    def with_theta(self, theta: np.ndarray) -> Kernel:
        """A copy of this kernel with ``theta`` set.

        Parameters
        ----------
        theta : array-like of shape (n_dims,)
            Log of the free hyperparameter values.

        Returns
        -------
        Kernel
            The copy; this kernel is unchanged.
        """
        k = self.clone()
        k.theta = theta
        return k

    # ------------------------------------------------------------------ evaluation
    def _check_input(self, X: Any, name: str = "X") -> Any:
        if self.requires_vector_input:
            return check_array(X, name)
        if isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
            raise TypeError(f"{name} must be a list of objects, got {type(X).__name__}")
        if len(X) == 0:
            raise ValueError(f"{name} is empty; at least one object is required")
        return X

    def _check_pair(self, X: Any, Y: Any) -> tuple[Any, Any]:
        X = self._check_input(X, "X")
        Y = X if Y is None else self._check_input(Y, "Y")
        if self.requires_vector_input and X.shape[1] != Y.shape[1]:
            raise ValueError(
                f"X and Y have different numbers of features ({X.shape[1]} and {Y.shape[1]})"
            )
        if self.requires_vector_input:
            self._check_n_features(X.shape[1])
        return X, Y

    def _check_n_features(self, d: int) -> None:
        """Hook for kernels whose hyperparameters fix the input dimension (ARD)."""

    def __call__(self, X: Any, Y: Any = None) -> Any:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` when omitted).

        Two 1-D vectors ``x`` and ``y`` give the number ``k(x, y)``, the convention of
        scikit-learn's kernel callables (``pairwise_kernels`` passes pairs of rows), so a
        kernel works as ``KernelRidge(kernel=k)`` or ``Nystroem(kernel=k)``. A 1-D ``X``
        alone is an error.
        """
        if Y is not None and self.requires_vector_input and _is_row(X) and _is_row(Y):
            x = np.reshape(np.asarray(X), (1, -1))
            K = self(x) if Y is X else self(x, np.reshape(np.asarray(Y), (1, -1)))
            return float(K[0, 0])
        X, Y = self._check_pair(X, Y)
        self._check_size(X, Y, 2, "Gram matrix")  # the matrix and a distance-sized temporary
        return self._checked(lambda: self._gram(X, Y), X, Y, "values", always=False)

    def _check_size(self, X: Any, Y: Any, per_entry: int, what: str) -> None:
        """Refuse up front (the memory guard's "would need about X" message) a result of
        ``per_entry`` float64 numbers per pair of ``X`` and ``Y`` beyond the machine's
        memory; the message is only formatted when it is needed."""
        n, m = len(X), len(Y)
        n_bytes = 8 * per_entry * n * m
        if n_bytes > memory_limit():
            check_memory(
                n_bytes,
                f"the {what} of {self!r} on {n} x {m} inputs",
                "use kernelkit.kernels.kernel_operator (products with K, never forming it) "
                "or kernelkit.kernels.gram (blockwise, onto disk or a dask array)",
            )

    def diag(self, X: Any) -> np.ndarray:
        """``k(X[i], X[i])`` for each ``i``, without forming the Gram matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or list of objects
            Inputs (a list of objects for kernels with ``requires_vector_input = False``).

        Returns
        -------
        ndarray of shape (n_samples,)
            The diagonal of ``k(X)``.
        """
        X = self._check_pair(X, None)[0]  # same checks as k(X), e.g. ARD size
        return self._checked(lambda: self._diag(X), X, X, "values")

    def gradient(self, X: Any) -> np.ndarray:
        """``dK/dtheta`` on ``X``, shape ``(n, n, n_dims)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or list of objects
            Inputs (a list of objects for kernels with ``requires_vector_input = False``).

        Returns
        -------
        ndarray of shape (n_samples, n_samples, n_dims)
            ``[i, j, p]`` is ``dK_ij / dtheta_p``.
        """
        X = self._check_pair(X, None)[0]
        self._check_size(X, X, self.n_dims + 1, "gradient tensor")
        return self._checked(lambda: self._gradient(X), X, X, "gradients")

    def gradient_dot(self, X: Any, W: Any, Y: Any = None) -> np.ndarray:
        """``sum_ij W_ij dK_ij/dtheta_p`` for each ``p``, shape ``(n_dims,)``.

        ``K`` is ``k(X)`` or, with ``Y``, the cross block ``k(X, Y)`` exactly as
        ``k(X, Y)`` computes it: a :class:`~kernelkit.kernels.White` term adds nothing
        there, since its noise is on the diagonal of ``k(X)`` only. Summing the square
        contraction over the diagonal blocks ``X[R]`` and the cross contraction over the
        others gives the contraction over all of ``X`` without forming ``k(X)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or list of objects
            Inputs (a list of objects for kernels with ``requires_vector_input = False``).
        W : array-like of shape (n_samples, n_samples) or (n_samples, n_samples_Y)
            The weights, one per entry of ``K``.
        Y : array-like of shape (n_samples_Y, n_features) or list of objects, optional
            The second inputs of a cross block; ``K = k(X)`` when omitted.

        Returns
        -------
        ndarray of shape (n_dims,)
            The contraction, without forming the tensor of :meth:`gradient`, in the order
            of ``theta``.

        Raises
        ------
        NotImplementedError
            If ``Y`` is given and the kernel does not provide gradients on cross blocks.

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> rng = np.random.default_rng(0)
        >>> X, W = rng.standard_normal((6, 2)), rng.standard_normal((6, 6))
        >>> W = W + W.T
        >>> k = RBF([1.0, 2.0])
        >>> blocks = [slice(0, 4), slice(4, 6)]
        >>> total = sum(k.gradient_dot(X[r], W[r, r]) for r in blocks) + sum(
        ...     k.gradient_dot(X[r], W[r, c], X[c]) for r in blocks for c in blocks if r != c
        ... )
        >>> bool(np.allclose(total, k.gradient_dot(X, W)))
        True
        """
        if Y is None:
            X = self._check_pair(X, None)[0]
            n = len(X)
            W = check_array(W, "W", dtype=np.float64)
            if W.shape != (n, n):
                raise ValueError(f"W must have shape ({n}, {n}), got {W.shape}")
            return self._checked(lambda: self._gradient_dot(X, W), X, X, "gradients")
        X, Y = self._check_pair(X, Y)
        n, m = len(X), len(Y)
        W = check_array(W, "W", dtype=np.float64)
        if W.shape != (n, m):
            raise ValueError(
                f"W must have shape ({n}, {m}), one weight per pair of X ({n} samples) and "
                f"Y ({m} samples); got {W.shape}"
            )
        # the block's profile, distances and weighted copies, as for gram_and_gradient
        self._check_size(X, Y, 4, "gradient contraction")
        return self._checked(lambda: self._gradient_dot_cross(X, Y, W), X, Y, "gradients")

    # ------------------------------------------------------------------ overflow
    def _bound(self, X: Any, Y: Any) -> float:
        """An upper bound on ``|k(x, y)|`` over the inputs (``inf`` when unknown)."""
        return math.inf

    def _checked(
        self, compute: Callable[[], Any], X: Any, Y: Any, what: str, *, always: bool = True
    ) -> Any:
        """``compute()``, which must come out finite, or a ValueError naming the inputs.

        Overflow is allowed while computing and detected in the result. For the values of a
        kernel bounded below the float64 range (``always=False``), which cannot overflow,
        the O(n m) check is skipped and any floating-point warning is left to surface.
        """
        if not always:
            with np.errstate(over="ignore", invalid="ignore"):
                bounded = self._bound(X, Y) < _FMAX  # False for NaN
            if bounded:
                return compute()
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = compute()
        if not np.all(np.isfinite(out)):
            raise ValueError(self._overflow_message(X, Y, what))
        return out

    def _overflow_message(self, X: Any, Y: Any, what: str) -> str:
        sizes = []
        for name, A in (("X", X), ("Y", Y)) if Y is not X else (("X", X),):
            if isinstance(A, np.ndarray) and A.dtype.kind == "f" and A.size:
                sizes.append(f"|{name}| up to {float(np.max(np.abs(A))):.3g}")
        where = f" ({', '.join(sizes)})" if sizes else ""
        inputs = "X" if Y is X else "X and Y"
        return (
            f"the kernel {what} of {self!r} overflow float64 for these inputs{where}; "
            f"rescale {inputs} (or the hyperparameters)"
        )

    def gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """``k(X)`` and a function ``W -> gradient_dot(X, W)`` that reuses its work.

        Marginal-likelihood fitting needs the Gram matrix first and the contraction with
        a ``W`` that depends on it second; this avoids recomputing distances and
        profiles for the second step. The returned ``K`` may be modified by the caller.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or list of objects
            Inputs (a list of objects for kernels with ``requires_vector_input = False``).

        Returns
        -------
        K : ndarray of shape (n_samples, n_samples)
            The Gram matrix ``k(X)``.
        gradient_dot : callable
            ``W -> gradient_dot(X, W)`` for ``W`` of shape ``(n_samples, n_samples)``,
            returning an ndarray of shape ``(n_dims,)``.
        """
        X = self._check_pair(X, None)[0]
        self._check_size(X, X, 3, "Gram matrix (with its gradient's work)")
        parts: list[Any] = []

        def gram() -> np.ndarray:
            parts[:] = self._gram_and_gradient(X)
            return parts[0]

        K = self._checked(gram, X, X, "values", always=False)
        contract = parts[1]

        def checked_contract(W: np.ndarray) -> np.ndarray:
            return self._checked(lambda: contract(W), X, X, "gradients")

        return K, checked_contract

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        return self._gram(X, X), lambda W: self._gradient_dot(X, W)

    def _gradient_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> np.ndarray:
        """``sum_ij W_ij d k(X_i, Y_j) / dtheta`` on validated inputs (``Y is X`` is the
        square block ``k(X)``, as in ``_gram``)."""
        if self.n_dims == 0:  # nothing to differentiate
            return np.empty(0)
        raise NotImplementedError(
            f"{type(self).__name__} does not provide gradients on a cross block k(X, Y) "
            "(gradient_dot with Y); it provides gradient_dot(X, W) on k(X) only"
        )

    def _gram_and_gradient_cross(
        self, X: Any, Y: Any
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """``_gram(X, Y)`` and ``W -> _gradient_dot_cross(X, Y, W)``, sharing their work
        where a kernel can (products, polynomials and exponentials of kernels use it)."""
        return self._gram(X, Y), lambda W: self._gradient_dot_cross(X, Y, W)

    def input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        """``d k(X[a], Y[b]) / d X[a]``, shape ``(n, m, d)``.

        The derivative with respect to the first argument, as acquisition functions need
        for gradient-based search (``Y`` the training inputs, ``X`` the candidates).

        Parameters
        ----------
        X : array-like of shape (n, d)
            The points the derivative is taken at.
        Y : array-like of shape (m, d)
            The second arguments.

        Returns
        -------
        ndarray of shape (n, m, d)
            ``[a, b, :]`` is the gradient of ``k(X[a], Y[b])`` with respect to ``X[a]``.

        Raises
        ------
        NotImplementedError
            If the kernel does not provide input gradients.
        """
        X, Y = self._check_pair(X, Y)
        d = X.shape[1] if isinstance(X, np.ndarray) and X.ndim == 2 else 1
        self._check_size(X, Y, d + 1, "input gradients")
        return self._checked(lambda: self._input_gradient(X, Y), X, Y, "input gradients")

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not provide input gradients")

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        raise NotImplementedError

    def _diag(self, X: Any) -> np.ndarray:
        n = len(X)
        out = np.empty(n)
        for i in range(n):  # generic fallback; vector kernels override
            out[i] = self._gram(X[i : i + 1], X[i : i + 1])[0, 0]
        return out

    def _gradient(self, X: Any) -> np.ndarray:
        if self.n_dims == 0:
            return np.zeros((len(X), len(X), 0))
        raise NotImplementedError(f"{type(self).__name__} does not provide gradients")

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        G = self._gradient(X)
        return np.einsum("ij,ijp->p", W, G)

    @property
    def is_stationary(self) -> bool:
        """Whether ``k(x, y)`` depends on ``x - y`` only (False unless a subclass says so)."""
        return False

    # ------------------------------------------------------------------ algebra
    def __add__(self, other: Any) -> Kernel:
        if isinstance(other, Kernel):
            return Sum(self, other)
        if _is_nonneg_number(other):
            return Sum(self, Constant(float(other), value_bounds="fixed")) if other else self
        _reject_bad_number(other, "kernel + c")
        return NotImplemented

    __radd__ = __add__

    def __mul__(self, other: Any) -> Kernel:
        if isinstance(other, Kernel):
            return Product(self, other)
        if _is_nonneg_number(other):
            return Scaled(self, float(other))
        _reject_bad_number(other, "c * kernel")
        return NotImplemented

    __rmul__ = __mul__

    def __pow__(self, n: Any) -> Kernel:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"kernel ** n needs an integer n >= 0, got {n!r}")
        coefs = np.zeros(int(n) + 1)
        coefs[-1] = 1.0
        return PolynomialOf(self, coefs)

    def __repr__(self) -> str:
        args = ", ".join(
            f"{k}={_short(v)}"
            for k, v in self.get_params(deep=False).items()
            if not (k.endswith("_bounds") or k.endswith("_prior"))
            or (k.endswith("_bounds") and isinstance(v, str) and v == "fixed")
            or (k.endswith("_prior") and v is not None)
        )
        return f"{type(self).__name__}({args})"


def _is_row(v: Any) -> bool:
    """A 1-D vector of numbers (an ndarray, or a list or tuple of real numbers)."""
    if isinstance(v, np.ndarray):
        return v.ndim == 1
    return (
        isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(e, numbers.Real) for e in v)
    )


def _same_param(x: Any, y: Any) -> bool:
    """Equality of two constructor arguments: kernels by ``==``, arrays by value."""
    if isinstance(x, Kernel) or isinstance(y, Kernel):
        return isinstance(x, Kernel) and isinstance(y, Kernel) and x == y
    if isinstance(x, (str, bytes)) or isinstance(y, (str, bytes)):
        return type(x) is type(y) and x == y
    if callable(x) or callable(y):  # a feature map: the same function
        return x is y
    if isinstance(x, (np.ndarray, list, tuple)) or isinstance(y, (np.ndarray, list, tuple)):
        try:
            ax, ay = np.asarray(x), np.asarray(y)
        except (TypeError, ValueError):
            return False
        if ax.dtype == object or ay.dtype == object:
            return ax.shape == ay.shape and all(
                _same_param(a, b) for a, b in zip(ax.flat, ay.flat, strict=True)
            )
        return ax.shape == ay.shape and bool(np.array_equal(ax, ay))
    try:
        return bool(x == y)
    except (TypeError, ValueError):
        return False


def _theta_vector(theta: Any, n: int) -> np.ndarray:
    """``theta`` as a float vector of length ``n`` (a ValueError otherwise)."""
    t = np.asarray(theta, dtype=float).ravel()
    if t.shape[0] != n:
        raise ValueError(f"theta has length {t.shape[0]}, expected {n}")
    return t


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0)


def _check_prior(prior: Any, name: str) -> None:
    if prior is not None and not isinstance(prior, Prior):
        raise TypeError(
            f"{name} must be None or a Prior (GammaPrior, LogNormalPrior, ...), "
            f"got {type(prior).__name__}"
        )


def _size(value: Any) -> int:
    """The number of entries of a hyperparameter value (1 where it is not an array yet)."""
    try:
        return int(np.size(value))
    except (TypeError, ValueError):  # ragged: _check_params says so
        return 1


def _check_number(value: Any, name: str) -> None:
    """A hyperparameter given as a string (``"1.5"``) is a TypeError, not parsed."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a number, got str {value!r}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return  # ragged: check_positive says so
    if arr.dtype.kind in "SU" or (
        arr.dtype == object and any(isinstance(e, (str, bytes)) for e in arr.flat)
    ):
        raise TypeError(f"{name} must be a number (or an array of numbers), got {value!r}")


def _short(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, precision=4, separator=", ")
    if isinstance(v, float):
        return f"{v:.4g}"
    return repr(v)


def _reject_bad_number(x: Any, what: str) -> None:
    """A real number that is negative or not finite would break positive definiteness."""
    if isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool):
        raise ValueError(f"{what} needs a finite constant c >= 0, got {x!r}")


def _is_nonneg_number(x: Any) -> bool:
    return (
        isinstance(x, (int, float, np.integer, np.floating))
        and not isinstance(x, bool)
        and math.isfinite(float(x))
        and float(x) >= 0
    )


def _numeric_like(x: Any) -> bool:
    """A real number, or a list / tuple / array of numeric-like items (a vector, nested)."""
    if isinstance(x, numbers.Real):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "biuf" or (x.dtype == object and all(map(_numeric_like, x.flat)))
    return isinstance(x, (list, tuple)) and all(_numeric_like(e) for e in x)


def _check_objects(X: Any, name: str) -> Any:
    """The inputs of a kernel that takes any objects (only their number matters).

    Numbers are still numbers: an array (or nested list) of numbers must be rectangular and
    finite, as for any vector kernel. A list whose items are not all numeric (sets, graphs,
    strings, ...) is a list of objects and is accepted as it is; a bare string is not a list.
    """
    if isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
        raise TypeError(
            f"{name} must be an array of numbers or a list of objects, got {type(X).__name__}"
        )
    if len(X) == 0:
        raise ValueError(f"{name} is empty; at least one object is required")
    if isinstance(X, (list, tuple, np.ndarray)) and not _numeric_like(X):
        return X  # a list of objects
    if not isinstance(X, (list, tuple, np.ndarray)) and not hasattr(X, "__array__"):
        return X  # some other container of objects
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        if isinstance(X, (list, tuple)):
            lengths = sorted({len(x) if isinstance(x, (list, tuple, np.ndarray)) else 1 for x in X})
            raise ValueError(
                f"{name} is a ragged nested list of numbers (rows of lengths "
                f"{', '.join(map(str, lengths))}); vectors must all have the same length"
            ) from None
        return X  # an array-like of objects (a pandas column of sets, say)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    return X


class _Level(Kernel):
    """A kernel that is one hyperparameter times a fixed pattern of 0s and 1s, whatever
    the inputs: only their number matters (:class:`Constant` and ``White``).

    Accepts any inputs (vectors or lists of objects). Numeric input is still checked: it
    must be finite and rectangular (not a ragged nested list). Subclasses declare the one
    hyperparameter and give ``_gram`` and ``_pattern_dot(W)``, the sum of ``W`` over the
    pattern.
    """

    requires_vector_input = False
    _any_objects = True

    def _level(self) -> float:
        return float(getattr(self, next(iter(self._parameters))))

    def _pattern_dot(self, W: np.ndarray) -> float:
        raise NotImplementedError

    def _pattern_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> float:
        """The sum of ``W`` over the pattern of ``k(X, Y)`` (``Y is X``: of ``k(X)``)."""
        raise NotImplementedError

    @property
    def is_stationary(self) -> bool:
        return True

    def _check_input(self, X: Any, name: str = "X") -> Any:
        return _check_objects(X, name)

    def _bound(self, X: Any, Y: Any) -> float:
        return self._level()

    def _diag(self, X: Any) -> np.ndarray:
        return np.full(len(X), self._level())

    def _gradient(self, X: Any) -> np.ndarray:
        if self.n_dims == 0:
            return np.zeros((len(X), len(X), 0))
        return self._gram(X, X)[:, :, None]  # K is proportional to the level

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        if self.n_dims == 0:
            return np.empty(0)
        return np.array([self._level() * self._pattern_dot(W)])

    def _gradient_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> np.ndarray:
        if self.n_dims == 0:
            return np.empty(0)
        return np.array([self._level() * self._pattern_dot_cross(X, Y, W)])

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        # the value does not vary with a candidate x
        X = np.asarray(X)
        return np.zeros((len(X), len(Y), X.shape[1] if X.ndim == 2 else 1))


class Constant(_Level):
    """``k(x, y) = value`` for all inputs: a learnable bias (offset) term.

    It lives beside :class:`Kernel` because ``k + c`` for a number ``c`` is
    ``k + Constant(c, value_bounds="fixed")``. Inputs are checked as described in
    ``_Level``.

    Parameters
    ----------
    value : float, default=1.0
        The constant, ``> 0``.
    value_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
        Bounds on ``value`` when hyperparameters are fitted; ``"fixed"`` excludes it from
        ``theta``.
    value_prior : Prior or None, default=None
        A prior on ``value``; see :meth:`Kernel.log_prior`.

    Examples
    --------
    >>> from kernelkit.kernels import RBF, Constant
    >>> (RBF() + 2.0).k2 == Constant(2.0, value_bounds="fixed")
    True
    """

    value: float = parameter(1.0, fitted=True)

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        return np.full((len(X), len(Y)), self._level())

    def _pattern_dot(self, W: np.ndarray) -> float:
        return float(W.sum())

    def _pattern_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> float:
        return float(W.sum())


class _Combination(Kernel):
    """A kernel built from child kernels; ``theta`` is the children's, concatenated."""

    def _children(self) -> list[Kernel]:
        raise NotImplementedError

    @property
    def requires_vector_input(self) -> bool:  # type: ignore[override]
        return any(k.requires_vector_input for k in self._children())

    @property
    def _any_objects(self) -> bool:  # type: ignore[override]
        return all(k._any_objects for k in self._children())

    def _check_params(self) -> None:
        for k in self._children():
            if not isinstance(k, Kernel):
                raise TypeError(f"expected a Kernel, got {type(k).__name__}")

    @property
    def is_stationary(self) -> bool:
        return all(k.is_stationary for k in self._children())

    @property
    def n_dims(self) -> int:
        return sum(k.n_dims for k in self._children())

    @property
    def theta(self) -> np.ndarray:
        return _concat([k.theta for k in self._children()])

    @theta.setter
    def theta(self, theta: np.ndarray) -> None:
        theta = _theta_vector(theta, self.n_dims)
        i = 0
        for k in self._children():
            k.theta = theta[i : i + k.n_dims]
            i += k.n_dims

    def _priors(self) -> list[tuple[int, Prior | None]]:
        return [p for k in self._children() for p in k._priors()]

    @property
    def bounds(self) -> np.ndarray:
        parts = [k.bounds for k in self._children()]
        return np.vstack(parts) if parts else np.empty((0, 2))

    @property
    def theta_names(self) -> list[str]:
        names = []
        for label, k in zip(self._child_labels(), self._children(), strict=True):
            names += [f"{label}__{n}" for n in k.theta_names]
        return names

    def _child_labels(self) -> list[str]:
        return [n for n in self._param_names() if isinstance(getattr(self, n), Kernel)]

    def _check_input(self, X: Any, name: str = "X") -> Any:
        if self.requires_vector_input:
            X = super()._check_input(X, name)
        children = self._children()
        # a Constant or White takes whatever the kernels beside it take (lists of
        # lists as sets, say), so it checks its input only when nothing else does
        others = any(not k._any_objects for k in children)
        for k in children:  # each child's own checks (zero vectors, index ranges, ...)
            if not (k._any_objects and others):
                k._check_input(X, name)
        return X

    def _check_n_features(self, d: int) -> None:
        for k in self._children():
            if k.requires_vector_input:
                k._check_n_features(d)


class _Binary(_Combination):
    """A combination of two kernels ``k1`` and ``k2`` by an elementwise operation."""

    k1: Kernel = parameter()
    k2: Kernel = parameter()
    #: the operation (``np.add`` or ``np.multiply``) and its symbol in ``repr``
    _op: ClassVar[np.ufunc]
    _symbol: ClassVar[str]

    def _children(self) -> list[Kernel]:
        return [self.k1, self.k2]

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        K = self.k1._gram(X, Y)
        return self._op(K, self.k2._gram(X, Y), out=K)  # in place: no third matrix

    def _diag(self, X: Any) -> np.ndarray:
        return self._op(self.k1._diag(X), self.k2._diag(X))

    def _bound(self, X: Any, Y: Any) -> float:
        with np.errstate(over="ignore", invalid="ignore"):
            return float(self._op(self.k1._bound(X, Y), self.k2._bound(X, Y)))

    def __repr__(self) -> str:
        return f"({self.k1!r} {self._symbol} {self.k2!r})"


class _Unary(_Combination):
    """A kernel built from one kernel, ``kernel``."""

    kernel: Kernel = parameter()

    def _children(self) -> list[Kernel]:
        return [self.kernel]


class Sum(_Binary):
    """``k1(x, y) + k2(x, y)`` (Bishop eq. 6.17).

    Built by ``k1 + k2``; ``theta`` is ``k1``'s followed by ``k2``'s.

    Parameters
    ----------
    k1, k2 : Kernel
        The kernels added.
    """

    _op = np.add
    _symbol = "+"

    def _gradient(self, X: Any) -> np.ndarray:
        return np.concatenate([self.k1._gradient(X), self.k2._gradient(X)], axis=2)

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return np.concatenate([self.k1._gradient_dot(X, W), self.k2._gradient_dot(X, W)])

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K1, c1 = self.k1._gram_and_gradient(X)
        K2, c2 = self.k2._gram_and_gradient(X)
        return K1 + K2, lambda W: np.concatenate([c1(W), c2(W)])

    def _gradient_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [self.k1._gradient_dot_cross(X, Y, W), self.k2._gradient_dot_cross(X, Y, W)]
        )

    def _gram_and_gradient_cross(
        self, X: Any, Y: Any
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K1, c1 = self.k1._gram_and_gradient_cross(X, Y)
        K2, c2 = self.k2._gram_and_gradient_cross(X, Y)
        return K1 + K2, lambda W: np.concatenate([c1(W), c2(W)])

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        return self.k1._input_gradient(X, Y) + self.k2._input_gradient(X, Y)


class Product(_Binary):
    """``k1(x, y) * k2(x, y)`` (Bishop eq. 6.18).

    Built by ``k1 * k2``; ``theta`` is ``k1``'s followed by ``k2``'s.

    Parameters
    ----------
    k1, k2 : Kernel
        The kernels multiplied.
    """

    _op = np.multiply
    _symbol = "*"

    def _gradient(self, X: Any) -> np.ndarray:
        K1, K2 = self.k1._gram(X, X), self.k2._gram(X, X)
        return np.concatenate(
            [self.k1._gradient(X) * K2[:, :, None], self.k2._gradient(X) * K1[:, :, None]],
            axis=2,
        )

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient(X)[1](W)  # one Gram matrix per child

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        # d(K1 K2) = dK1 K2 + K1 dK2, so contract each child with W weighted by the other.
        K1, c1 = self.k1._gram_and_gradient(X)
        K2, c2 = self.k2._gram_and_gradient(X)
        return K1 * K2, lambda W: np.concatenate([c1(W * K2), c2(W * K1)])

    def _gradient_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient_cross(X, Y)[1](W)  # one block per child

    def _gram_and_gradient_cross(
        self, X: Any, Y: Any
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K1, c1 = self.k1._gram_and_gradient_cross(X, Y)
        K2, c2 = self.k2._gram_and_gradient_cross(X, Y)
        return K1 * K2, lambda W: np.concatenate([c1(W * K2), c2(W * K1)])

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        K1, K2 = self.k1._gram(X, Y), self.k2._gram(X, Y)
        return (
            self.k1._input_gradient(X, Y) * K2[:, :, None]
            + self.k2._input_gradient(X, Y) * K1[:, :, None]
        )


class Scaled(_Unary):
    """``c * k(x, y)`` for a fixed constant ``c >= 0`` (Bishop eq. 6.13).

    The constant is not a hyperparameter; a learnable amplitude is the ``variance`` of a
    stationary kernel, or a product with :class:`~kernelkit.kernels.Constant`. Built by
    ``c * k``.

    Parameters
    ----------
    kernel : Kernel
        The kernel ``k``.
    scale : float
        The constant ``c >= 0``.
    """

    scale: float = parameter()

    def _check_params(self) -> None:
        super()._check_params()
        check_positive(self.scale, "scale", strict=False)

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        K = self.kernel._gram(X, Y)
        K *= self.scale
        return K

    def _diag(self, X: Any) -> np.ndarray:
        return self.scale * self.kernel._diag(X)

    def _gradient(self, X: Any) -> np.ndarray:
        return self.scale * self.kernel._gradient(X)

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self.kernel._gradient_dot(X, self.scale * W)

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K, c = self.kernel._gram_and_gradient(X)
        return self.scale * K, lambda W: c(self.scale * W)

    def _gradient_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> np.ndarray:
        return self.kernel._gradient_dot_cross(X, Y, self.scale * W)

    def _gram_and_gradient_cross(
        self, X: Any, Y: Any
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K, c = self.kernel._gram_and_gradient_cross(X, Y)
        return self.scale * K, lambda W: c(self.scale * W)

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        return self.scale * self.kernel._input_gradient(X, Y)

    def _bound(self, X: Any, Y: Any) -> float:
        return float(self.scale) * self.kernel._bound(X, Y)

    def __repr__(self) -> str:
        return f"{self.scale:.4g} * {self.kernel!r}"


class PolynomialOf(_Unary):
    """``q(k(x, y)) = sum_i c_i k(x, y)^i`` with ``c_i >= 0`` (Bishop eq. 6.15).

    Built by :func:`poly` or ``k ** n``.

    Parameters
    ----------
    kernel : Kernel
        The kernel ``k``.
    coefs : sequence of float or ndarray
        The coefficients ``c_0, c_1, ...``, non-negative, at least one.
    """

    coefs: Sequence[float] | np.ndarray = parameter()

    def _check_params(self) -> None:
        super()._check_params()
        c = np.asarray(self.coefs, dtype=float)
        if c.ndim != 1 or c.size == 0:
            raise ValueError("coefs must be a non-empty 1-D sequence of numbers")
        check_positive(c, "coefs", strict=False)

    def _q(self, K: np.ndarray, derivative: bool = False) -> np.ndarray:
        c = np.asarray(self.coefs, dtype=float)
        if derivative:
            c = c[1:] * np.arange(1, c.size)
            if c.size == 0:
                return np.zeros_like(K)
        out = np.full_like(K, c[-1])
        for ci in c[-2::-1]:  # Horner over the (few) coefficients
            out *= K
            out += ci
        return out

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        return self._q(self.kernel._gram(X, Y))

    def _diag(self, X: Any) -> np.ndarray:
        return self._q(self.kernel._diag(X))

    def _gradient(self, X: Any) -> np.ndarray:
        dq = self._q(self.kernel._gram(X, X), derivative=True)
        return self.kernel._gradient(X) * dq[:, :, None]

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient(X)[1](W)

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K, c = self.kernel._gram_and_gradient(X)
        dq = self._q(K, derivative=True)
        return self._q(K), lambda W: c(W * dq)

    def _gradient_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient_cross(X, Y)[1](W)

    def _gram_and_gradient_cross(
        self, X: Any, Y: Any
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K, c = self.kernel._gram_and_gradient_cross(X, Y)
        dq = self._q(K, derivative=True)
        return self._q(K), lambda W: c(W * dq)

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        dq = self._q(self.kernel._gram(X, Y), derivative=True)
        return self.kernel._input_gradient(X, Y) * dq[:, :, None]

    def _bound(self, X: Any, Y: Any) -> float:
        b = np.float64(self.kernel._bound(X, Y))
        c = np.asarray(self.coefs, dtype=float)
        return float(np.sum(c * b ** np.arange(c.size)))  # overflows to inf

    def __repr__(self) -> str:
        return f"poly({self.kernel!r}, {[float(c) for c in self.coefs]})"


class ExponentialOf(_Unary):
    """``exp(k(x, y))`` (Bishop eq. 6.16). Built by :func:`exp`.

    Parameters
    ----------
    kernel : Kernel
        The kernel ``k``.
    """

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        return np.exp(self.kernel._gram(X, Y))

    def _diag(self, X: Any) -> np.ndarray:
        return np.exp(self.kernel._diag(X))

    def _gradient(self, X: Any) -> np.ndarray:
        return self.kernel._gradient(X) * self._gram(X, X)[:, :, None]

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient(X)[1](W)

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K, c = self.kernel._gram_and_gradient(X)
        E = np.exp(K)
        return E.copy(), lambda W: c(W * E)

    def _gradient_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> np.ndarray:
        return self._gram_and_gradient_cross(X, Y)[1](W)

    def _gram_and_gradient_cross(
        self, X: Any, Y: Any
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        K, c = self.kernel._gram_and_gradient_cross(X, Y)
        E = np.exp(K)
        return E.copy(), lambda W: c(W * E)

    def _input_gradient(self, X: Any, Y: Any) -> np.ndarray:
        return self.kernel._input_gradient(X, Y) * self._gram(X, Y)[:, :, None]

    def _bound(self, X: Any, Y: Any) -> float:
        b = self.kernel._bound(X, Y)
        return math.exp(b) if b < 710.0 else math.inf

    def __repr__(self) -> str:
        return f"exp({self.kernel!r})"


class Composed(_Unary):
    """``k(phi(x), phi(y))``: a kernel on a feature map (Bishop eq. 6.19).

    ``phi`` maps whatever the user holds (a 2-D array, or a list of objects) to a 2-D
    array that ``kernel`` accepts. Built by :func:`compose`.

    Parameters
    ----------
    kernel : Kernel
        The kernel ``k``.
    phi : callable
        The feature map, applied to the whole input ``X`` at once.
    """

    phi: Callable[[Any], Any] = parameter()

    def _check_params(self) -> None:
        super()._check_params()
        if not callable(self.phi):
            raise TypeError(f"phi must be callable, got {type(self.phi).__name__}")

    @property
    def requires_vector_input(self) -> bool:  # type: ignore[override]
        """False: the inputs are whatever ``phi`` accepts."""
        return False

    @property
    def is_stationary(self) -> bool:  # phi need not preserve differences
        """False: ``phi`` need not preserve differences."""
        return False

    def _map(self, X: Any, name: str = "X") -> Any:
        """``phi(X)``, checked: one row (or object) per object of ``X``, numbers, finite."""
        n = len(X)
        Z = self.phi(X)
        expected = f"one row per object of {name} ({n} rows)"
        if not self.kernel.requires_vector_input:  # phi maps to objects (sets, say)
            Z = self.kernel._check_input(Z, "phi(X)")
            if len(Z) != n:
                raise ValueError(
                    f"phi must return one item per object of {name} ({n} items); it "
                    f"returned {len(Z)} for the {n} objects of {name}"
                )
            return Z
        try:
            shape = None if isinstance(Z, (str, bytes)) else np.shape(Z)
        except ValueError:  # ragged nested lists: check_array below says so
            shape = (n, 0)
        if Z is None or shape is None or shape == ():
            raise TypeError(
                f"phi must return a 2-D array of numbers with {expected}, got {type(Z).__name__}"
            )
        if len(shape) != 2:
            hint = " (return Z.reshape(-1, 1) for one feature per object)" * (len(shape) == 1)
            raise ValueError(
                f"phi must return a 2-D array with {expected}, shape ({n}, n_features); "
                f"it returned shape {shape} for {name}{hint}"
            )
        if shape[0] != n:
            raise ValueError(
                f"phi must return {expected}; it returned {shape[0]} rows (shape {shape}) "
                f"for the {n} objects of {name}"
            )
        Z = check_array(Z, "phi(X)", finite=False, allow_empty=True)
        if not np.isfinite(Z).all():
            i, j = (int(v) for v in np.argwhere(~np.isfinite(Z))[0])
            raise ValueError(
                f"phi(X) contains NaN or infinity: for the objects of {name}, phi returned "
                f"{Z[i, j]} in row {i}, column {j}; phi must map every object to finite numbers"
            )
        Z = self.kernel._check_input(Z, "phi(X)")  # the kernel's own checks
        self.kernel._check_n_features(Z.shape[1])
        return Z

    def _check_input(self, X: Any, name: str = "X") -> Any:
        # X is whatever phi accepts (a sized collection); the kernel checks phi(X) in _map
        if X is None or isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
            raise TypeError(
                f"{name} must be an array or a list of the objects phi maps, got {type(X).__name__}"
            )
        if len(X) == 0:
            raise ValueError(f"{name} is empty; at least one sample is required")
        return X

    def _check_pair(self, X: Any, Y: Any) -> tuple[Any, Any]:
        X = self._check_input(X, "X")
        return X, (X if Y is None else self._check_input(Y, "Y"))

    def _mapped_pair(self, X: Any, Y: Any) -> tuple[Any, Any]:
        """``phi(X)`` and ``phi(Y)`` (the same object for ``Y is X``), checked as a pair."""
        ZX = self._map(X, "X")
        ZY = ZX if Y is X else self._map(Y, "Y")
        return self.kernel._check_pair(ZX, ZY)

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        return self.kernel._gram(*self._mapped_pair(X, Y))

    def _diag(self, X: Any) -> np.ndarray:
        return self.kernel._diag(self._map(X))

    def _gradient(self, X: Any) -> np.ndarray:
        return self.kernel._gradient(self._map(X))

    def _gradient_dot(self, X: Any, W: np.ndarray) -> np.ndarray:
        return self.kernel._gradient_dot(self._map(X), W)

    def _gram_and_gradient(self, X: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        return self.kernel._gram_and_gradient(self._map(X))

    def _gradient_dot_cross(self, X: Any, Y: Any, W: np.ndarray) -> np.ndarray:
        return self.kernel._gradient_dot_cross(*self._mapped_pair(X, Y), W)

    def _gram_and_gradient_cross(
        self, X: Any, Y: Any
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        return self.kernel._gram_and_gradient_cross(*self._mapped_pair(X, Y))

    def __repr__(self) -> str:
        name = getattr(self.phi, "__name__", type(self.phi).__name__)
        return f"compose({self.kernel!r}, {name})"


def poly(kernel: Kernel, coefs: Sequence[float] | np.ndarray) -> Kernel:
    """``sum_i coefs[i] * k^i`` for non-negative ``coefs`` (Bishop eq. 6.15).

    Parameters
    ----------
    kernel : Kernel
        The kernel ``k``.
    coefs : sequence of float or ndarray
        The coefficients, from the constant term up; non-negative, at least one.

    Returns
    -------
    PolynomialOf
        The kernel ``q(k)``.
    """
    return PolynomialOf(kernel, coefs)


def exp(kernel: Kernel) -> Kernel:
    """``exp(k)`` (Bishop eq. 6.16).

    Parameters
    ----------
    kernel : Kernel
        The kernel ``k``.

    Returns
    -------
    ExponentialOf
        The kernel ``exp(k)``.
    """
    return ExponentialOf(kernel)


def compose(kernel: Kernel, phi: Callable[[Any], Any]) -> Kernel:
    """``k(phi(x), phi(y))`` (Bishop eq. 6.19).

    Parameters
    ----------
    kernel : Kernel
        The kernel ``k``.
    phi : callable
        The feature map, applied to the whole input ``X`` at once: it maps what the user
        holds to inputs of ``kernel``.

    Returns
    -------
    Composed
        The kernel on ``phi``.
    """
    return Composed(kernel, phi)
