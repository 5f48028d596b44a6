"""Discrete graphical models: variables with finite domains and log-potential factors.

Rowland (2018), Def. 1.1: a hypergraph ``G = (V, E)``, a finite domain per variable and a
potential ``theta_E`` per hyperedge; ``p(x) = exp(sum_E theta_E(x_E)) / Z``. The *score*
of an assignment is ``sum_E theta_E(x_E)``; MAP inference maximises it and marginal
inference computes ``p(x_i)`` (Def. 1.3).

A :class:`DiscreteModel` holds

* ``cardinalities``: the domain size of each variable (values ``0 .. k - 1``);
* ``factors``: :class:`Factor` objects, each a ``scope`` (distinct variable indices) and a
  ``table`` of log-potentials with one axis per scope variable, in scope order. ``-inf``
  entries are hard constraints (forbidden joint values); NaN is refused;
* ``variables``: a name per variable (the nodes of the graph it came from, or ``0 .. n-1``).

For vectorised algorithms (message passing, LP relaxations), :meth:`DiscreteModel.groups`
stacks the factors of one arity and table shape into arrays: no Python loops over factors
in the hot paths.

Constructors: :func:`ising` (binary pairwise models, Ising fields and couplings on a
networkx graph) and :meth:`DiscreteModel.from_factors` (any arity, any domains).

Examples
--------
A frustrated triangle with spins in ``{0, 1}``: ``score = sum_i h_i x_i + sum_ij J_ij x_i
x_j``.

>>> import networkx as nx
>>> m = ising(nx.cycle_graph(3), fields=0.5, couplings={(0, 1): 1.0, (1, 2): 1.0, (0, 2): -2.0})
>>> m.n_variables, len(m.factors)
(3, 6)
>>> float(m.score([1, 1, 0]))
2.0
>>> m.score([[0, 0, 0], [1, 1, 1]]).tolist()
[0.0, 1.5]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit import _memory

__all__ = ["DiscreteModel", "Factor", "FactorGroup", "ising"]


@dataclass(frozen=True, eq=False)
class Factor:
    """One factor of a :class:`DiscreteModel`.

    Attributes
    ----------
    scope : tuple of int
        The indices of its variables (distinct), in the order of the table's axes.
    table : ndarray of float64
        Log-potentials ``theta_E(x_E)``, shape ``tuple(cardinalities[v] for v in scope)``;
        ``-inf`` forbids a joint value. Read-only.
    """

    scope: tuple[int, ...]
    table: np.ndarray

    @property
    def arity(self) -> int:
        """The number of variables in the scope."""
        return len(self.scope)


@dataclass(frozen=True, eq=False)
class FactorGroup:
    """The factors of one arity and table shape, stacked (see :meth:`DiscreteModel.groups`).

    Attributes
    ----------
    index : ndarray of int, shape (n,)
        Positions of these factors in ``model.factors``.
    scopes : ndarray of int, shape (n, arity)
        Their scopes, one row per factor.
    tables : ndarray of float64, shape (n, ...)
        Their tables, stacked: ``tables[k]`` has the group's common table shape.
    """

    index: np.ndarray
    scopes: np.ndarray
    tables: np.ndarray

    @property
    def arity(self) -> int:
        """The common arity of the factors."""
        return int(self.scopes.shape[1])


class DiscreteModel:
    """A discrete graphical model (Rowland 2018, Def. 1.1).

    Parameters
    ----------
    cardinalities : sequence of int
        Domain size of each variable, each ``>= 1``; a variable takes the values
        ``0 .. cardinality - 1``.
    factors : iterable of Factor or of (scope, table) pairs
        The factors. A scope is a sequence of distinct variable indices (or names, when
        ``variables`` is given); the table's shape must be the scope's cardinalities.
        Several factors may share a scope (their tables add up in the score).
    variables : sequence of hashable, optional
        A name per variable (default ``0 .. n - 1``); names must be distinct.

    Attributes
    ----------
    cardinalities : ndarray of int, shape (n_variables,)
    factors : tuple of Factor
    variables : list
        The names, in index order.

    Raises
    ------
    ValueError
        A cardinality below 1; a scope with repeated or unknown variables; a table whose
        shape does not match the scope's cardinalities; a NaN or ``+inf`` in a table.
    TypeError
        A table that is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> m = DiscreteModel([2, 3], [((0,), [0.0, 1.0]), ((0, 1), np.zeros((2, 3)))])
    >>> m.n_variables, m.cardinalities.tolist(), [f.scope for f in m.factors]
    (2, [2, 3], [(0,), (0, 1)])
    >>> float(m.score([1, 2]))
    1.0
    """

    def __init__(
        self,
        cardinalities: Sequence[int],
        factors: Iterable[Any],
        *,
        variables: Sequence[Hashable] | None = None,
    ) -> None:
        cards = _check_cardinalities(cardinalities)
        names = list(range(cards.shape[0])) if variables is None else list(variables)
        if len(names) != cards.shape[0]:
            raise ValueError(
                f"variables must have one name per variable ({cards.shape[0]}), got {len(names)}"
            )
        position = {name: i for i, name in enumerate(names)}
        if len(position) != len(names):
            raise ValueError("variables must have distinct names")
        self.cardinalities = cards
        self.cardinalities.flags.writeable = False
        self.variables = names
        self._position = position
        self._by_name = variables is not None
        if isinstance(factors, (str, bytes, Mapping)) or not isinstance(factors, Iterable):
            hint = " (DiscreteModel.from_factors takes a mapping)"
            raise TypeError(
                "factors must be an iterable of Factor objects or (scope, table) pairs, got "
                f"{type(factors).__name__}" + (hint if isinstance(factors, Mapping) else "")
            )
        self.factors: tuple[Factor, ...] = tuple(
            self._check_factor(f, k) for k, f in enumerate(factors)
        )
        self._groups: list[FactorGroup] | None = None

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def from_factors(
        cls,
        cardinalities: Sequence[int] | Mapping[Hashable, int],
        factors: Iterable[Any] | Mapping[Any, Any],
    ) -> DiscreteModel:
        """A model from domain sizes and factors given by scope.

        Parameters
        ----------
        cardinalities : sequence of int or mapping name -> int
            Domain sizes; a mapping also names the variables (in its order).
        factors : mapping scope -> table, or iterable of (scope, table)
            Scopes as tuples of variable indices, or of names when ``cardinalities`` is a
            mapping. A single variable may be given without a tuple.

        Returns
        -------
        DiscreteModel

        Examples
        --------
        >>> m = DiscreteModel.from_factors({"a": 2, "b": 2}, {("a", "b"): [[1.0, 0.0], [0.0, 1.0]]})
        >>> m.variables, m.factors[0].scope
        (['a', 'b'], (0, 1))
        """
        if isinstance(cardinalities, Mapping):
            names: list[Hashable] | None = list(cardinalities)
            cards: Any = [cardinalities[n] for n in cardinalities]
        else:
            names, cards = None, cardinalities
        items = list(factors.items()) if isinstance(factors, Mapping) else factors
        return cls(cards, items, variables=names)

    def _check_factor(self, f: Any, k: int) -> Factor:
        if isinstance(f, Factor):
            scope_in, table_in = f.scope, f.table
        else:
            try:
                scope_in, table_in = f
            except (TypeError, ValueError):
                raise TypeError(
                    f"factors[{k}] must be a Factor or a (scope, table) pair, got "
                    f"{type(f).__name__}"
                ) from None
        if isinstance(scope_in, (str, bytes)) or not isinstance(scope_in, Iterable):
            scope_in = (scope_in,)
        if table_in is None:
            raise TypeError(f"factors[{k}]: the table must be an array of numbers, got None")
        scope = []
        for v in scope_in:
            i = self._resolve(v)
            if i is None:
                raise ValueError(
                    f"factors[{k}]: unknown variable {v!r} (the model has "
                    f"{self.cardinalities.shape[0]} variables"
                    + (": use their names)" if self._by_name else ", indices 0..n-1)")
                )
            scope.append(i)
        if len(set(scope)) != len(scope):
            raise ValueError(f"factors[{k}]: the scope {tuple(scope_in)!r} repeats a variable")
        try:
            table = np.array(table_in, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"factors[{k}]: the table must be an array of numbers, got "
                f"{type(table_in).__name__}"
            ) from None
        shape = tuple(int(self.cardinalities[i]) for i in scope)
        if table.shape != shape:
            raise ValueError(
                f"factors[{k}]: the table has shape {table.shape} but its scope "
                f"{tuple(scope_in)!r} has cardinalities {shape}"
            )
        if np.isnan(table).any():
            raise ValueError(f"factors[{k}]: the table contains NaN (use -inf to forbid a value)")
        if np.isposinf(table).any():
            raise ValueError(f"factors[{k}]: the table contains +inf (only -inf is allowed)")
        table.flags.writeable = False
        return Factor(tuple(scope), table)

    def _resolve(self, v: Any) -> int | None:
        if self._by_name:
            try:
                return self._position.get(v)
            except TypeError:
                return None
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            return None
        i = int(v)
        return i if 0 <= i < self.cardinalities.shape[0] else None

    # -- inspection --------------------------------------------------------------------------

    @property
    def n_variables(self) -> int:
        """The number of variables."""
        return int(self.cardinalities.shape[0])

    @property
    def is_binary(self) -> bool:
        """Whether every variable has two values."""
        return bool(np.all(self.cardinalities == 2))

    def index(self, name: Hashable) -> int:
        """The index of the variable called ``name``.

        Parameters
        ----------
        name : hashable
            A variable name, as in ``variables``.

        Returns
        -------
        int
            Its index, in ``0 .. n_variables - 1``.

        Raises
        ------
        KeyError
            If no variable has that name.
        """
        i = self._position.get(name)
        if i is None:
            raise KeyError(f"no variable named {name!r}")
        return i

    def groups(self) -> list[FactorGroup]:
        """The factors grouped by arity and table shape, each group stacked into arrays
        (computed once), in order of first appearance.

        Returns
        -------
        list of FactorGroup
            One group per distinct table shape (the list is cached: do not modify it).
        """
        if self._groups is None:
            by_key: dict[tuple[int, ...], list[int]] = {}
            for k, f in enumerate(self.factors):
                by_key.setdefault(f.table.shape, []).append(k)
            groups = []
            for shape, idx in by_key.items():
                scopes = np.array([self.factors[k].scope for k in idx], dtype=np.int64)
                scopes = scopes.reshape(len(idx), len(shape))
                tables = np.stack([self.factors[k].table for k in idx])
                scopes.flags.writeable = tables.flags.writeable = False
                groups.append(FactorGroup(np.array(idx, dtype=np.int64), scopes, tables))
            self._groups = groups
        return self._groups

    def score(self, x: Any) -> Any:
        """The score ``sum_E theta_E(x_E)`` of one assignment or of a batch.

        Parameters
        ----------
        x : array-like of int, shape (n_variables,) or (n, n_variables)
            Values ``0 .. cardinality - 1`` of every variable.

        Returns
        -------
        float or ndarray of shape (n,)
            ``-inf`` where a hard constraint is violated.

        Raises
        ------
        ValueError
            ``x`` of the wrong shape or outside the domains; a score beyond the float64
            range (entries near ``1e308`` adding up past ``1.8e308``).
        """
        arr = np.asarray(x)
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            if not (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr))):
                raise TypeError(f"x must be an array of integer values, got dtype {arr.dtype}")
            arr = arr.astype(np.int64)
        single = arr.ndim == 1
        X = np.atleast_2d(arr)
        if X.ndim != 2 or X.shape[1] != self.n_variables:
            raise ValueError(
                f"x must have shape ({self.n_variables},) or (n, {self.n_variables}), "
                f"got {arr.shape}"
            )
        if np.any(X < 0) or np.any(X >= self.cardinalities):
            bad = np.argwhere((X < 0) | (X >= self.cardinalities))[0]
            raise ValueError(
                f"x[{', '.join(map(str, bad))}] = {X[tuple(bad)]} is outside the domain "
                f"0..{self.cardinalities[bad[-1]] - 1} of variable {self.variables[bad[-1]]!r}"
            )
        with np.errstate(over="ignore", invalid="ignore"):
            total = self._sum_entries(X, 1.0)
            bad = np.flatnonzero(~np.isfinite(total))
            if bad.size:  # -inf entries, or finite entries near 1e308 whose sum overflowed
                total[bad] = self._sum_entries(X[bad], 2.0**-64) * 2.0**64
        if np.isnan(total).any() or np.isposinf(total).any():
            i = int(np.flatnonzero(np.isnan(total) | np.isposinf(total))[0])
            raise ValueError(
                f"the score of x{'' if single else f'[{i}]'} is beyond the float64 range "
                "(about 1.8e308): the model's log-potentials are too large in magnitude"
            )
        return float(total[0]) if single else total

    def _sum_entries(self, X: np.ndarray, scale: float) -> np.ndarray:
        """``sum_E theta_E(x_E) * scale`` per row of ``X``; with ``scale != 1``, ``-inf``
        wherever an entry is (with ``scale == 1`` the plain sum, NaN where ``-inf`` meets
        an overflow)."""
        total = np.zeros(X.shape[0])
        forbidden = np.zeros(X.shape[0], dtype=bool)
        for g in self.groups():
            vals = X[:, g.scopes]  # (n, n_factors, arity)
            idx = (np.arange(g.scopes.shape[0])[None, :], *np.moveaxis(vals, 2, 0))
            entries = g.tables[idx]
            if scale != 1.0:
                forbidden |= np.isneginf(entries).any(axis=1)
                entries = entries * scale
            total += entries.sum(axis=1)
        return np.where(forbidden, -np.inf, total) if scale != 1.0 else total

    def __repr__(self) -> str:
        arities = sorted({f.arity for f in self.factors})
        return (
            f"DiscreteModel(n_variables={self.n_variables}, n_factors={len(self.factors)}, "
            f"arities={arities}, max_cardinality={int(self.cardinalities.max(initial=0))})"
        )


def _check_model(model: Any, *, binary: bool = False, name: str = "model") -> DiscreteModel:
    """``model`` if it is a :class:`DiscreteModel` (and binary when ``binary``), else a
    TypeError / ValueError naming ``name``: the one argument check of the ``pgm`` modules."""
    if not isinstance(model, DiscreteModel):
        raise TypeError(f"{name} must be a DiscreteModel, got {type(model).__name__}")
    if binary and not model.is_binary:
        raise ValueError(
            f"{name} must be binary (every cardinality 2), got cardinalities "
            f"{model.cardinalities.tolist()}"
        )
    return model


def _variable_index(model: DiscreteModel, v: Any, name: str = "variable") -> int:
    """The index of variable ``v``: a variable name, or an index ``0 .. n_variables - 1``
    when it is not a name; else a ValueError naming ``name``: the one variable look-up of
    the ``pgm`` modules."""
    try:
        if v in model.variables:
            return model.index(v)
    except (TypeError, ValueError):  # an unhashable value or an array is no name
        pass
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        if 0 <= int(v) < model.n_variables:
            return int(v)
    if model.n_variables == 0:
        raise ValueError(f"{name} must be a variable of model, but it has none; got {v!r}")
    names = list(model.variables[:10]) + (["..."] if model.n_variables > 10 else [])
    raise ValueError(
        f"{name} must be a variable name or an index 0..{model.n_variables - 1}, got {v!r} "
        f"(the variables: {names})"
    )


def ising(
    G: Any,
    fields: Any = 0.0,
    couplings: Any = 0.0,
    *,
    spins: str = "01",
) -> DiscreteModel:
    """The Ising model on the nodes of a graph as a binary pairwise :class:`DiscreteModel`.

    With ``spins="01"`` the variables are ``x_i in {0, 1}`` and the score is
    ``sum_i h_i x_i + sum_ij J_ij x_i x_j`` (the lecture notes' Ising model); with
    ``spins="pm1"`` the values ``0, 1`` stand for ``sigma = -1, +1`` and the score is
    ``sum_i h_i sigma_i + sum_ij J_ij sigma_i sigma_j``.

    Parameters
    ----------
    G : networkx.Graph
        The graph; its nodes name the variables (in ``G.nodes`` order), its edges carry
        the couplings. No self-loops.
    fields : float, mapping node -> float or array-like of shape (n_nodes,)
        ``h_i``; a scalar is the same field on every node. Nodes missing from a mapping
        get 0.
    couplings : float, mapping edge -> float or array-like of shape (n_edges,)
        ``J_ij`` (an array in ``G.edges`` order); a scalar is the same coupling on every
        edge. A mapping may give an edge as ``(u, v)`` or ``(v, u)``; edges missing from it
        get 0.
    spins : {"01", "pm1"}, default="01"

    Returns
    -------
    DiscreteModel
        One unary factor per node and one pairwise factor per edge.

    Examples
    --------
    >>> import networkx as nx
    >>> m = ising(nx.path_graph(2), fields=[0.0, 0.0], couplings=1.0, spins="pm1")
    >>> m.score([[0, 0], [0, 1]]).tolist()
    [1.0, -1.0]
    """
    import networkx as nx

    if not isinstance(G, nx.Graph) or G.is_directed() or G.is_multigraph():
        raise TypeError(f"G must be an undirected networkx.Graph, got {type(G).__name__}")
    if spins not in ("01", "pm1"):
        raise ValueError(f"spins must be '01' or 'pm1', got {spins!r}")
    nodes = list(G.nodes)
    edges = list(G.edges)
    loops = [u for u, v in edges if u == v]
    if loops:
        raise ValueError(f"G has a self-loop at node {loops[0]!r}; an Ising model has none")
    h = _per_item(fields, nodes, "fields", lambda key, G=G: key in G)

    def edge_key(key: Any) -> bool:
        return key in edges_set

    edges_set = set(edges)
    edge_values = _edge_mapping(couplings, G) if isinstance(couplings, Mapping) else couplings
    J = _per_item(edge_values, edges, "couplings", edge_key)
    factors: list[tuple[tuple[Any, ...], np.ndarray]] = []
    for node, hi in zip(nodes, h, strict=True):
        factors.append(((node,), np.array([0.0, hi]) if spins == "01" else np.array([-hi, hi])))
    for (u, v), j in zip(edges, J, strict=True):
        table = np.array([[0.0, 0.0], [0.0, j]]) if spins == "01" else np.array([[j, -j], [-j, j]])
        factors.append(((u, v), table))
    return DiscreteModel([2] * len(nodes), factors, variables=nodes)


def _edge_mapping(couplings: Mapping[Any, Any], G: Any) -> dict[Any, Any]:
    """Couplings keyed by the orientation ``G.edges`` lists; an edge given twice (as
    ``(u, v)`` and ``(v, u)``) is an error."""
    canonical = {frozenset(e): e for e in G.edges}
    out: dict[Any, Any] = {}
    for key, value in couplings.items():
        try:
            edge = (
                canonical.get(frozenset(key)) if isinstance(key, tuple) and len(key) == 2 else None
            )
        except TypeError:
            edge = None
        if edge is None:
            raise ValueError(f"couplings: {key!r} is not an edge of G")
        if edge in out:
            raise ValueError(f"couplings: the edge {key!r} is given twice")
        out[edge] = value
    return out


def _per_item(values: Any, items: list[Any], name: str, valid: Any) -> np.ndarray:
    """One float per item from a scalar, a mapping or an array; finite."""
    if isinstance(values, Mapping):
        for key in values:
            if not valid(key):
                raise ValueError(
                    f"{name}: {key!r} is not a {'node' if name == 'fields' else 'edge'} of G"
                )
        arr = np.array([values.get(it, 0.0) for it in items], dtype=np.float64)
    else:
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be a number, a mapping or an array of numbers, got "
                f"{type(values).__name__}"
            ) from None
        if arr.ndim == 0:
            arr = np.full(len(items), float(arr))
        elif arr.shape != (len(items),):
            raise ValueError(f"{name} must have shape ({len(items)},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


#: The largest domain size: products of cardinalities are formed as Python integers, but a
#: single one must be an int64.
_MAX_CARDINALITY = 2**62


#: Memory of one variable of a DiscreteModel (its cardinality, name and index entry), for
#: the up-front check of models with very many variables.
_BYTES_PER_VARIABLE = 200


def _check_variables_memory(n_variables: int, request: str) -> None:
    """Refuse, before anything is built, a model of more variables than could fit in memory."""
    _memory.check_memory(
        _BYTES_PER_VARIABLE * n_variables,
        f"{request} with {n_variables} variables",
        "use fewer variables",
    )


def _check_cardinalities(cardinalities: Any) -> np.ndarray:
    if isinstance(cardinalities, (str, bytes)) or not isinstance(cardinalities, Iterable):
        raise TypeError(
            f"cardinalities must be a sequence of integers, got {type(cardinalities).__name__}"
        )
    values = list(cardinalities) if not isinstance(cardinalities, np.ndarray) else cardinalities
    _check_variables_memory(len(values) if np.ndim(values) else 0, "DiscreteModel")
    for i, c in enumerate(values if not isinstance(values, np.ndarray) else []):
        if isinstance(c, int) and not isinstance(c, bool) and abs(c) > _MAX_CARDINALITY:
            raise ValueError(f"cardinalities[{i}] = {c} is outside 1..{_MAX_CARDINALITY} (2**62)")
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"cardinalities must be one-dimensional, got shape {arr.shape}")
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.number)):
        raise TypeError(f"cardinalities must be integers, got dtype {arr.dtype}")
    if arr.size and np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"cardinalities must be integers, got dtype {arr.dtype}")
    if arr.size and not np.all(np.isfinite(arr)):
        raise TypeError("cardinalities must be integers, got NaN or infinity")
    if arr.size and not np.all(arr == np.round(arr)):
        raise TypeError("cardinalities must be integers")
    if np.any(arr < 1):
        i = int(np.flatnonzero(arr < 1)[0])
        raise ValueError(f"cardinalities must be >= 1, got cardinalities[{i}] = {arr[i]}")
    if np.any(arr > _MAX_CARDINALITY):
        i = int(np.flatnonzero(arr > _MAX_CARDINALITY)[0])
        raise ValueError(
            f"cardinalities[{i}] = {arr[i]} is too large: a domain has at most "
            f"{_MAX_CARDINALITY} (2**62) values"
        )
    return arr.astype(np.int64)
