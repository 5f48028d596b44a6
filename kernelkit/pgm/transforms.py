"""Model transformations: clamping, flipping, uprooting and rerooting (Rowland 2018, Ch. 1-2).

* :func:`clamp` (Def. 2.1): fix ``X_i = a``; the model over the other variables has
  ``score_clamped(x) = score(x, x_i = a)`` exactly (constant factors are folded into
  another factor).
* :func:`flip` (Def. 1.16): relabel ``0 <-> 1`` for a set of binary variables.
* :func:`uproot` (Def. 2.2): add a variable ``X_0`` (the *root*), placed **last** (index
  ``n``); every scope gains the root and ``theta+(x_E, 0) = theta(x_E)``,
  ``theta+(x_E, 1) = theta(x_bar_E)``. Then ``score(x) = score+(x, 0) = score+(x_bar, 1)``
  (Prop. 2.3) and ``Z+ = 2 Z`` (Prop. 2.5).
* :func:`reroot` (Def. 2.6): uproot, then clamp ``X_i = 0``; ``Z_i = Z`` (Prop. 2.7).

Both return a :class:`Rerooting` that maps log-partition functions, assignments and
marginals back to the original model (Props. 2.5, 2.7). With ``method="even"`` (the
default) the uprooted model is built from the even basis (Lemma 2.12): an even
``k``-potential keeps its scope for even ``k`` and gains the root for odd ``k``, so factors
grow in arity only where needed; ``method="table"`` applies Def. 2.2 to every table (and
accepts ``-inf`` entries).

Rerooting heuristics (§2.5.1) score each vertex of ``M+`` (root last) from the even-basis
coefficients of ``M+``: :func:`reroot_scores` with ``"maxtW"`` (eq. 2.17), ``"K"``,
``"G"`` (eq. 2.19), ``"K6"``, ``"G6"`` (eq. 2.20); :func:`auto_reroot` reroots at the best
vertex (not at all when the root scores best).

Examples
--------
>>> import numpy as np
>>> import networkx as nx
>>> from kernelkit.pgm.model import ising
>>> m = ising(nx.cycle_graph(3), fields=0.5, couplings=-1.0)
>>> r = reroot(m, 1)
>>> r.model.variables
[0, 2, 3]
>>> x = np.array([[1, 1, 0], [0, 1, 1]])
>>> bool(np.allclose(r.model.score(r.from_original_assignment(x)), m.score(x)))
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._validation import check_in
from kernelkit.pgm.model import DiscreteModel, _check_model, _variable_index
from kernelkit.pgm.parametrization import from_even_basis, to_even_basis

__all__ = [
    "HEURISTICS",
    "Rerooting",
    "auto_reroot",
    "clamp",
    "flip",
    "reroot",
    "reroot_scores",
    "uproot",
]

#: Rerooting heuristics as ``{arity: (c_k, t_k)}`` of eq. 2.18: vertex ``i`` of ``M+``
#: scores ``sum_{E ni i} c_|E| tanh|t_|E| a_E|`` over the even potentials of ``M+``.
#: ``"G6"`` (eq. 2.20) has no tanh: ``sum_{E ni i, |E| = 4} |a_E|``.
HEURISTICS: dict[str, dict[int, tuple[float, float]]] = {
    "maxtW": {2: (1.0, 0.5)},
    "K": {2: (1.0, 0.051), 4: (0.091, 1.482)},
    "G": {2: (1.0, 0.019539), 4: (0.3788, 0.033997)},
    "K6": {2: (1.0, 0.2), 4: (1.0 / 3.0, 1.2), 6: (0.2, 3.0)},
    "G6": {4: (1.0, 1.0)},
}

_METHODS = ("even", "table")


def _build(
    cards: list[int], factors: list[tuple[tuple[int, ...], np.ndarray]], names: list[Any]
) -> DiscreteModel:
    """A model from index scopes; keeps ``names`` (default names stay implicit)."""
    if names == list(range(len(names))):
        return DiscreteModel(cards, factors)
    named = [(tuple(names[i] for i in scope), table) for scope, table in factors]
    return DiscreteModel(cards, named, variables=names)


def clamp(model: DiscreteModel, variable: Any, value: int) -> DiscreteModel:
    """The model ``M|_{X_i = a}`` over the other variables (Def. 2.1, eq. 2.1).

    Parameters
    ----------
    model : DiscreteModel
        The model to clamp.
    variable : hashable
        A name from ``model.variables`` (an index for unnamed models).
    value : int
        In ``0 .. cardinality - 1``.

    Returns
    -------
    DiscreteModel
        The other variables, in order and with their names; every factor loses the clamped
        axis. A factor left with no variable is added to another factor (a 0-arity factor
        only when no variable is left), so ``score_clamped(x) = score(x, x_i = a)`` exactly
        and the clamped partition function is ``sum_x exp(score(x, x_i = a))``.

    Examples
    --------
    >>> from kernelkit.pgm.model import DiscreteModel
    >>> m = DiscreteModel([2, 3], [((0,), [0.0, 1.0]), ((0, 1), [[0, 1, 2], [3, 4, 5]])])
    >>> c = clamp(m, 0, 1)
    >>> c.variables, c.score([[0], [2]]).tolist()
    ([1], [4.0, 6.0])
    """
    model = _check_model(model, binary=False)
    i = _variable_index(model, variable, "variable")
    card = int(model.cardinalities[i])
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"value must be an integer, got {type(value).__name__}")
    if not 0 <= value < card:
        raise ValueError(
            f"value={value} is outside the domain 0..{card - 1} of variable {variable!r}"
        )
    keep = [v for v in range(model.n_variables) if v != i]
    new_index = {v: j for j, v in enumerate(keep)}
    factors: list[tuple[tuple[int, ...], np.ndarray]] = []
    constants = []
    for f in model.factors:
        if i in f.scope:
            axis = f.scope.index(i)
            table = np.take(f.table, int(value), axis=axis)
            scope = tuple(new_index[v] for v in f.scope if v != i)
        else:
            table, scope = f.table, tuple(new_index[v] for v in f.scope)
        if scope:
            factors.append((scope, table))
        else:
            constants.append(float(table))
    constant = _constant_sum(constants)
    if constant != 0.0:
        with np.errstate(over="ignore"):
            folded = factors[0][1] + constant if factors else None
        if folded is not None and not np.isposinf(folded).any():
            factors[0] = (factors[0][0], folded)
        elif keep and folded is None:
            factors.append(((0,), np.full(int(model.cardinalities[keep[0]]), constant)))
        else:  # no variable left, or folding would overflow (entries near 1e308)
            factors.append(((), np.array(constant)))
    cards = [int(model.cardinalities[v]) for v in keep]
    return _build(cards, factors, [model.variables[v] for v in keep])


def _constant_sum(values: list[float]) -> float:
    """The sum of the constant factors left by clamping: ``-inf`` if one is, a clear error
    if it is beyond the float64 range."""
    if any(v == -np.inf for v in values):
        return -np.inf
    total = float(sum(values))
    if not np.isfinite(total):  # a partial sum overflowed: add in units of 2**64
        total = float(sum(v * 2.0**-64 for v in values)) * 2.0**64
    if not np.isfinite(total):
        raise ValueError(
            "the clamped factors add up to a constant beyond the float64 range (about "
            "1.8e308): the log-potentials of model are too large in magnitude"
        )
    return total


def flip(model: DiscreteModel, variables: Any) -> DiscreteModel:
    """The model with the binary variables ``A`` relabelled ``0 <-> 1`` (Def. 1.16, eq. 1.16).

    ``theta_bar_E(x_E) = theta_E(x_{E - A}, x_bar_{E cap A})``, so ``score_flipped(x) =
    score(x_bar^(A))`` (Def. 1.17) and the partition function is unchanged.

    Parameters
    ----------
    model : DiscreteModel
        Binary.
    variables : iterable of hashable
        Names from ``model.variables`` (indices for unnamed models).

    Returns
    -------
    DiscreteModel
        Same scopes and factor order.

    Examples
    --------
    >>> from kernelkit.pgm.model import DiscreteModel
    >>> m = DiscreteModel([2, 2], [((0, 1), [[0.0, 1.0], [2.0, 3.0]])])
    >>> flip(m, [0]).factors[0].table.tolist()
    [[2.0, 3.0], [0.0, 1.0]]
    """
    model = _check_model(model, binary=True)
    if isinstance(variables, (str, bytes)) or not hasattr(variables, "__iter__"):
        raise TypeError(f"variables must be an iterable of variable names, got {variables!r}")
    flipped = np.zeros(model.n_variables, dtype=bool)
    for v in variables:
        flipped[_variable_index(model, v, "variables")] = True
    tables: list[np.ndarray] = [f.table for f in model.factors]
    for g in model.groups():
        new = g.tables.copy()
        for j in range(g.arity):
            rows = flipped[g.scopes[:, j]]
            new[rows] = np.flip(new[rows], axis=j + 1)
        for k, t in zip(g.index.tolist(), new, strict=True):
            tables[k] = t
    factors = [(f.scope, t) for f, t in zip(model.factors, tables, strict=True)]
    return _build(model.cardinalities.tolist(), factors, list(model.variables))


@dataclass(frozen=True)
class Rerooting:
    """A transformed model (uprooted, rerooted, or unchanged) and the maps back.

    Attributes
    ----------
    model : DiscreteModel
        ``M+`` (uprooted), ``M_i`` (rerooted at ``i``) or ``M`` itself (when
        :func:`auto_reroot` keeps the root).
    original : DiscreteModel
        ``M``.
    vertex : int or None
        The index in ``M`` of the clamped variable ``i``; None for ``M+`` and for ``M``.
    root : int or None
        The index in ``model`` of the root ``X_0`` (its last variable); None when
        ``model`` is ``M``.
    """

    model: DiscreteModel
    original: DiscreteModel
    vertex: int | None
    root: int | None

    @property
    def kind(self) -> str:
        """``"uprooted"``, ``"rerooted"`` or ``"original"``."""
        if self.root is None:
            return "original"
        return "uprooted" if self.vertex is None else "rerooted"

    def _keep(self) -> np.ndarray:
        n = self.original.n_variables
        return np.array([v for v in range(n) if v != self.vertex], dtype=np.int64)

    def to_original_log_partition(self, log_z: float) -> float:
        """``log Z`` of ``M`` from that of ``model``: ``Z+ = 2 Z`` (Prop. 2.5), ``Z_i = Z``
        (Prop. 2.7).

        Parameters
        ----------
        log_z : float
            ``log Z`` of ``model`` (exact or approximate).

        Returns
        -------
        float
            ``log_z - log 2`` for an uprooting, else ``log_z``.
        """
        if isinstance(log_z, (bool, np.bool_)) or not isinstance(log_z, (int, float, np.number)):
            raise TypeError(f"log_z must be a number, got {type(log_z).__name__}")
        return float(log_z) - (math.log(2.0) if self.kind == "uprooted" else 0.0)

    def _assignments(self, x: Any, n: int, name: str) -> tuple[np.ndarray, bool]:
        X = np.asarray(x)
        if not np.issubdtype(X.dtype, np.integer) or X.dtype == bool:
            raise TypeError(f"{name} must be an array of integers, got dtype {X.dtype}")
        single = X.ndim == 1
        X = np.atleast_2d(X)
        if X.ndim != 2 or X.shape[1] != n:
            raise ValueError(f"{name} must have shape ({n},) or (m, {n}), got {np.shape(x)}")
        if np.any((X != 0) & (X != 1)):
            raise ValueError(f"{name} must hold 0/1 values")
        return X.astype(np.int64), single

    def to_original_assignment(self, x: Any) -> np.ndarray:
        """An assignment of ``M`` with the same score as ``x`` in ``model`` (Props. 2.3, 2.7):
        the body is flipped when the root is 1, and a clamped ``X_i`` takes the root's value.
        Maps a MAP assignment of ``model`` to one of ``M`` (Props. 2.5, 2.7).

        Parameters
        ----------
        x : array-like of int, shape (model.n_variables,) or (m, model.n_variables)
            One or ``m`` 0/1 assignments of ``model``.

        Returns
        -------
        ndarray of int, shape (n,) or (m, n)
            The assignments of ``M`` (``n = original.n_variables``).
        """
        X, single = self._assignments(x, self.model.n_variables, "x")
        if self.root is None:
            out = X.copy()
        else:
            r = X[:, self.root]
            body = np.delete(X, self.root, axis=1) ^ r[:, None]
            out = np.empty((X.shape[0], self.original.n_variables), dtype=np.int64)
            out[:, self._keep()] = body
            if self.vertex is not None:
                out[:, self.vertex] = r
        return out[0] if single else out

    def from_original_assignment(self, x: Any) -> np.ndarray:
        """The assignment of ``model`` with the same score as ``x`` in ``M`` (for ``M+``, the
        one with root 0; the other is its complement).

        Parameters
        ----------
        x : array-like of int, shape (n,) or (m, n)
            One or ``m`` 0/1 assignments of ``M`` (``n = original.n_variables``).

        Returns
        -------
        ndarray of int, shape (model.n_variables,) or (m, model.n_variables)
            The assignments of ``model``.
        """
        X, single = self._assignments(x, self.original.n_variables, "x")
        if self.root is None:
            out = X.copy()
        else:
            r = X[:, self.vertex] if self.vertex is not None else np.zeros(len(X), np.int64)
            out = np.concatenate([X[:, self._keep()] ^ r[:, None], r[:, None]], axis=1)
        return out[0] if single else out

    def to_original_marginal(self, scope: Any, table: Any) -> tuple[tuple[int, ...], np.ndarray]:
        """The marginal of ``M`` matching a joint marginal of ``model`` (eqs. 2.6, 2.10, 2.11).

        Parameters
        ----------
        scope : sequence of int
            Indices of variables of ``model``, including the root (unless ``model`` is
            ``M``).
        table : array-like, shape (2,) * len(scope)
            Their joint marginal ``p(x_scope)`` in ``model``.

        Returns
        -------
        scope : tuple of int
            Indices in ``M``: the non-root variables of ``scope``, then the clamped
            variable ``i`` for a rerooting.
        table : ndarray
            ``p(x_scope)`` in ``M``: ``p(x_U) = p+(x_U, 0) + p+(x_bar_U, 1)`` (uprooted);
            ``p(x_U, x_i = 0) = p_i(x_U, x_0 = 0)``, ``p(x_U, x_i = 1) = p_i(x_bar_U,
            x_0 = 1)`` (rerooted).
        """
        if isinstance(scope, (str, bytes)) or not hasattr(scope, "__iter__"):
            raise TypeError(f"scope must be a sequence of variable indices, got {scope!r}")
        try:
            sc = [int(v) for v in scope]
            T = np.asarray(table, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                "scope must hold variable indices and table must be an array of numbers, "
                f"got {scope!r} and {type(table).__name__}"
            ) from None
        if any(not 0 <= v < self.model.n_variables for v in sc) or len(set(sc)) != len(sc):
            raise ValueError(f"scope must hold distinct variable indices of model, got {scope!r}")
        if T.shape != (2,) * len(sc):
            raise ValueError(f"table must have shape {(2,) * len(sc)}, got {T.shape}")
        if self.root is None:
            return tuple(sc), T.copy()
        if self.root not in sc:
            raise ValueError(f"scope must contain the root (index {self.root})")
        axis = sc.index(self.root)
        rest = [v for v in sc if v != self.root]
        keep = self._keep()
        orig = tuple(int(keep[v]) for v in rest)
        t0 = np.take(T, 0, axis=axis)
        t1 = np.flip(np.take(T, 1, axis=axis))  # x_bar_U
        if self.vertex is None:
            return orig, t0 + t1
        return (*orig, self.vertex), np.stack([t0, t1], axis=-1)

    def to_original_marginals(self, marginals: Any) -> np.ndarray:
        """The singleton marginals of ``M``.

        Parameters
        ----------
        marginals : array-like
            With a root: shape ``(model.n_variables, 2, 2)``, ``marginals[v, a, b] =
            p(x_root = a, x_v = b)`` in ``model`` (the root's own row is
            ``diag(p(x_root))``; only its row sums are used). Without a root (``kind ==
            "original"``): the singleton marginals, shape ``(n, 2)``, returned as they are.

        Returns
        -------
        ndarray, shape (n, 2)
            ``p(x_v = b)`` in ``M``: ``p+(0, b) + p+(1, 1 - b)`` (eq. 2.6, 2.10), and for a
            rerooting ``p(x_i = a) = p_i(x_0 = a)`` (eq. 2.11).

        Examples
        --------
        >>> from kernelkit.pgm.model import DiscreteModel
        >>> r = uproot(DiscreteModel([2], [((0,), [0.0, 0.0])]))
        >>> r.to_original_marginals([[[0.25, 0.25], [0.25, 0.25]], [[0.5, 0], [0, 0.5]]])
        array([[0.5, 0.5]])
        """
        P = np.asarray(marginals, dtype=np.float64)
        n_model = self.model.n_variables
        if self.root is None:
            if P.shape != (n_model, 2):
                raise ValueError(f"marginals must have shape ({n_model}, 2), got {P.shape}")
            return P.copy()
        if P.shape != (n_model, 2, 2):
            raise ValueError(f"marginals must have shape ({n_model}, 2, 2), got {P.shape}")
        body = np.delete(P, self.root, axis=0)
        out = np.empty((self.original.n_variables, 2))
        out[self._keep()] = body[:, 0, :] + body[:, 1, ::-1]
        if self.vertex is not None:
            out[self.vertex] = P[self.root].sum(axis=1)
        return out

    def marginals_from_beliefs(
        self, marginals: Sequence[Any], factor_marginals: Sequence[Any]
    ) -> np.ndarray:
        """The singleton marginals of ``M`` from approximate beliefs of ``model``.

        Each variable's joint with the root is read from the belief of a factor whose
        scope holds both (marginalised onto the pair), and mapped back by
        :meth:`to_original_marginals` (eqs. 2.6, 2.10-2.11). This is how marginals of a
        rerooted model are compared with those of the original (Rowland 2018, §2.5.2).

        Parameters
        ----------
        marginals : sequence of array-like
            Beliefs of the variables of ``model`` (e.g. ``loopy_bp(model).marginals``).
        factor_marginals : sequence of array-like
            Beliefs of the factors of ``model``, one per factor, in ``model.factors``
            order (e.g. ``loopy_bp(model).factor_marginals``).

        Returns
        -------
        ndarray, shape (n, 2)
            ``p(x_v = b)`` in ``M``, as in :meth:`to_original_marginals` (for ``kind ==
            "original"``, the ``marginals`` stacked as they are).

        Raises
        ------
        ValueError
            A variable shares no factor with the root (its joint with the root is not
            among the beliefs).
        """
        for name, value in (("marginals", marginals), ("factor_marginals", factor_marginals)):
            if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
                raise TypeError(
                    f"{name} must be a sequence of arrays (e.g. loopy_bp(model).{name}), "
                    f"got {type(value).__name__}"
                )
        if self.root is None:
            return np.array([np.asarray(m, dtype=np.float64) for m in marginals])
        work, root = self.model, self.root
        if len(factor_marginals) != len(work.factors):
            raise ValueError(
                f"factor_marginals must have one belief per factor ({len(work.factors)}), "
                f"got {len(factor_marginals)}"
            )
        pairs = np.full((work.n_variables, 2, 2), np.nan)  # p(x_root = a, x_v = b)
        pairs[root] = np.diag(np.asarray(marginals[root], dtype=np.float64))
        for f, belief in zip(work.factors, factor_marginals, strict=True):
            if root not in f.scope:
                continue
            r_axis = f.scope.index(root)
            for v_axis, v in enumerate(f.scope):
                if v == root or not np.isnan(pairs[v, 0, 0]):
                    continue
                other = tuple(k for k in range(len(f.scope)) if k not in (r_axis, v_axis))
                joint = np.asarray(belief, dtype=np.float64).sum(axis=other)
                pairs[v] = joint if r_axis < v_axis else joint.T
        missing = [work.variables[v] for v in range(work.n_variables) if np.isnan(pairs[v, 0, 0])]
        if missing:
            raise ValueError(
                "no factor of the transformed model joins the root with the variables "
                f"{missing[:5]}{' ...' if len(missing) > 5 else ''}: their marginals cannot "
                "be mapped back from factor beliefs"
            )
        return self.to_original_marginals(pairs)


def _root_name(model: DiscreteModel) -> Any:
    n = model.n_variables
    if model.variables == list(range(n)):
        return n
    name = "root"
    while name in model.variables:
        name = "_" + name
    return name


def uproot(model: DiscreteModel, *, method: str = "even") -> Rerooting:
    """The uprooted model ``M+`` (Def. 2.2), with the root ``X_0`` as its **last** variable.

    Parameters
    ----------
    model : DiscreteModel
        Binary.
    method : {"even", "table"}, default="even"
        ``"even"``: through the even basis (Lemma 2.12): one factor per even potential of
        ``M+`` (odd ones gain the root), the constant folded into the first factor; needs
        finite tables. ``"table"``: Def. 2.2 on every factor (every scope gains the root).

    Returns
    -------
    Rerooting
        ``kind == "uprooted"``. The root is named ``n`` for an unnamed model, else
        ``"root"``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.pgm.model import DiscreteModel
    >>> m = DiscreteModel([2, 2], [((0, 1), [[0.0, 1.0], [2.0, 5.0]])])
    >>> mp = uproot(m, method="table").model
    >>> mp.variables, mp.factors[0].scope
    ([0, 1, 2], (0, 1, 2))
    >>> float(mp.score([1, 0, 0])), float(mp.score([0, 1, 1]))
    (2.0, 2.0)
    """
    model = _check_model(model, binary=True)
    check_in(method, "method", _METHODS)
    n = model.n_variables
    names = [*model.variables, _root_name(model)]
    if method == "table":
        factors = []
        for f in model.factors:
            table = np.stack([f.table, np.flip(f.table)], axis=-1)
            factors.append(((*f.scope, n), table))
        plus = _build([2] * (n + 1), factors, names)
    else:
        basis = to_even_basis(model)
        coefs = {(u if len(u) % 2 == 0 else (*u, n)): a for u, a in basis.coefficients.items()}
        built = from_even_basis(coefs, n + 1, constant=basis.constant)
        plus = _build([2] * (n + 1), [(f.scope, f.table) for f in built.factors], names)
    return Rerooting(plus, model, None, n)


def reroot(model: DiscreteModel, variable: Any, *, method: str = "even") -> Rerooting:
    """The rerooted model ``M_i = M+|_{X_i = 0}`` (Def. 2.6).

    Parameters
    ----------
    model : DiscreteModel
        Binary.
    variable : hashable
        The name of ``X_i`` in ``model``.
    method : {"even", "table"}, default="even"
        How to uproot (see :func:`uproot`).

    Returns
    -------
    Rerooting
        ``kind == "rerooted"``: ``model`` has the variables of ``M`` but ``X_i``, in order,
        then the root (last). ``Z_i = Z`` (Prop. 2.7).

    Examples
    --------
    >>> from kernelkit.pgm.model import DiscreteModel
    >>> m = DiscreteModel([2, 2], [((0,), [0.0, 3.0]), ((0, 1), [[1.0, 0.0], [0.0, 1.0]])])
    >>> r = reroot(m, 0)
    >>> r.model.variables, r.root, r.vertex
    ([1, 2], 1, 0)
    >>> r.to_original_assignment([[0, 1], [1, 1]]).tolist()
    [[1, 1], [1, 0]]
    """
    model = _check_model(model, binary=True)
    i = _variable_index(model, variable, "variable")
    up = uproot(model, method=method)
    rerooted = clamp(up.model, up.model.variables[i], 0)
    return Rerooting(rerooted, model, i, model.n_variables - 1)


def reroot_scores(model: DiscreteModel, heuristic: Any = "K") -> np.ndarray:
    """Rerooting heuristic scores for every vertex of ``M+`` (§2.5.1).

    Vertex ``i`` scores ``sum_{E ni i} c_|E| tanh|t_|E| a_E|`` over the even potentials of
    ``M+`` (eq. 2.18), with ``a_E`` the even-basis coefficient (Def. 2.9) summed over the
    factors on ``E``; ``E`` of odd size in ``M`` gain the root in ``M+`` (Lemma 2.12).

    Parameters
    ----------
    model : DiscreteModel
        Binary, finite tables.
    heuristic : str or mapping, default="K"
        A name from :data:`HEURISTICS`: ``"maxtW"`` (eq. 2.17, ``tanh|W_ij / 4|`` with
        ``W_ij = 2 a_ij`` as in eq. 2.12), ``"K"``, ``"G"`` (eq. 2.19), ``"K6"``, ``"G6"``
        (eq. 2.20); or a mapping ``arity -> (c, t)``.

    Returns
    -------
    ndarray, shape (n + 1,)
        One score per vertex of ``M+``: the variables of ``M`` in order, then the root
        (the thesis's vertex 0).

    Examples
    --------
    >>> from kernelkit.pgm.parametrization import from_even_basis
    >>> m = from_even_basis({(0, 1): 2.0, (1, 2): -4.0, (0,): 1.0})
    >>> reroot_scores(m, "maxtW").round(4).tolist()
    [1.2237, 1.7256, 0.964, 0.4621]
    """
    model = _check_model(model, binary=True)
    if isinstance(heuristic, str):
        weights = HEURISTICS[check_in(heuristic, "heuristic", list(HEURISTICS))]
        plain = heuristic == "G6"
    elif isinstance(heuristic, dict):
        weights, plain = heuristic, False
    else:
        raise TypeError(f"heuristic must be a name or a mapping, got {type(heuristic).__name__}")
    n = model.n_variables
    basis = to_even_basis(model)
    scores = np.zeros(n + 1)
    subsets = [u if len(u) % 2 == 0 else (*u, n) for u in basis.coefficients]
    values = np.fromiter(basis.coefficients.values(), dtype=np.float64, count=len(subsets))
    sizes = np.array([len(u) for u in subsets], dtype=np.int64)
    for k, (c, t) in weights.items():
        rows = np.flatnonzero(sizes == k)
        if rows.size == 0:
            continue
        members = np.array([subsets[j] for j in rows], dtype=np.int64)
        a = np.abs(t * values[rows])
        contrib = c * (a if plain else np.tanh(a))
        np.add.at(scores, members.ravel(), np.repeat(contrib, k))
    return scores


def auto_reroot(model: DiscreteModel, heuristic: Any = "K", *, method: str = "even") -> Rerooting:
    """Reroot at the vertex of ``M+`` with the best heuristic score (§2.5.1).

    Parameters
    ----------
    model : DiscreteModel
        Binary, finite tables.
    heuristic : str or mapping, default="K"
        See :func:`reroot_scores`.
    method : {"even", "table"}, default="even"
        See :func:`uproot`.

    Returns
    -------
    Rerooting
        Rerooted at the best original variable; ``kind == "original"`` (``model`` is ``M``,
        identity maps) when the root scores best, ties included (eq. 2.18 maximised at
        ``i = 0``: rerooting is unlikely to help).

    Examples
    --------
    >>> from kernelkit.pgm.parametrization import from_even_basis
    >>> m = from_even_basis({(0, 1): 2.0, (1, 2): -4.0, (0,): 1.0})
    >>> r = auto_reroot(m, "maxtW")
    >>> r.kind, r.vertex
    ('rerooted', 1)
    """
    scores = reroot_scores(model, heuristic)
    n = model.n_variables
    if scores[n] >= scores.max():
        return Rerooting(model, model, None, None)
    return reroot(model, model.variables[int(np.argmax(scores))], method=method)
