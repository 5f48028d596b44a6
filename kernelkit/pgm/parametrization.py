"""Parametrisations of binary models: even (pure-potential) and moment bases; random models.

A binary potential ``theta_U : {0, 1}^U -> R`` (one factor table) can be written in two
other bases of the ``2^|U|``-dimensional space of such functions:

* the **even basis** (Rowland 2018, Defs. 2.8-2.9, Props. 2.10-2.11): the even indicators
  ``e_W(x) = 1[#ones in x_W is even]`` for ``W subset U``, with ``e_{} = 1`` the constant.
  Pure ``k``-potentials are (up to a constant) exactly the even ``k``-potentials
  ``a e_W``, ``|W| = k`` (Prop. 2.10), and uprooting acts simply on them (Lemma 2.12);
* the **moment basis** (the potentials dual to the minimal representation, eq. 1.21): the
  monomials ``m_W(x) = prod_{i in W} x_i``, so that ``theta`` is a multilinear polynomial
  and the expected score is linear in the moments ``E[prod_{i in W} X_i]``.

:func:`to_even_basis` and :func:`to_moment_basis` expand every factor of a binary
:class:`~kernelkit.pgm.model.DiscreteModel` and add up the coefficients of equal subsets
(one entry per distinct subset of variable indices, sorted); the constant part (the
coefficient of the empty set) is kept apart in :attr:`BasisExpansion.constant`, so the
score is preserved *exactly*, not only up to the normalising constant.
:func:`from_even_basis` and :func:`from_moment_basis` build a model back, one factor per
subset.

Writing ``s_i = (-1)^{x_i}`` and ``chi_W = prod_{i in W} s_i`` (so ``e_W = (1 + chi_W) / 2``),
the Walsh-Hadamard expansion ``theta = sum_W c_W chi_W`` gives the even coefficients
``a_W = 2 c_W`` (``W`` non-empty) and ``a_{} = 2 mean(theta) - theta(0)``. The moment
coefficients are the Moebius transform ``b_W = sum_{T subset W} (-1)^{|W - T|} theta(1_T)``.

:func:`random_model` draws even potentials on given hyperedges with coefficients
``Unif[-W_k, W_k]`` per arity ``k`` (the thesis's experiments, §2.5 and App. 2.B), and
:func:`complete_hypergraph_scopes` / :func:`toroidal_grid_scopes` give its two structures.

Examples
--------
>>> import numpy as np
>>> from kernelkit.pgm.model import DiscreteModel
>>> m = DiscreteModel([2, 2], [((0, 1), [[1.0, 0.0], [0.0, 1.0]])])
>>> b = to_even_basis(m)
>>> b.coefficients, b.constant
({(0, 1): 1.0}, 0.0)
>>> m2 = from_even_basis(b.coefficients, 2, constant=b.constant)
>>> bool(np.allclose(m2.score([[0, 0], [0, 1]]), m.score([[0, 0], [0, 1]])))
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit import _memory
from kernelkit._validation import check_int, check_random_state
from kernelkit.pgm.model import DiscreteModel, _check_model, _check_variables_memory

__all__ = [
    "THESIS_SCALES",
    "BasisExpansion",
    "complete_hypergraph_scopes",
    "from_even_basis",
    "from_moment_basis",
    "random_model",
    "to_even_basis",
    "to_moment_basis",
    "toroidal_grid_scopes",
]

#: The thesis's default scales (App. 2.B): pure 2- and 4-potentials ``Unif[-8, 8]``,
#: no 1- or 3-potentials.
THESIS_SCALES: dict[int, float] = {1: 0.0, 2: 8.0, 3: 0.0, 4: 8.0}

_BASES = ("even", "moment")


@dataclass(frozen=True)
class BasisExpansion:
    """The coefficients of a binary model in the even or the moment basis.

    Attributes
    ----------
    basis : {"even", "moment"}
        ``"even"``: ``score(x) = constant + sum_U a_U 1[#ones in x_U even]``;
        ``"moment"``: ``score(x) = constant + sum_U b_U prod_{i in U} x_i``.
    coefficients : dict
        Non-empty subsets ``U`` (sorted tuples of variable indices) to their coefficient;
        subsets whose coefficient is 0 are left out. Ordered by size, then
        lexicographically.
    constant : float
        The coefficient of the empty set.
    n_variables : int
        The number of (binary) variables.
    """

    basis: str
    coefficients: dict[tuple[int, ...], float]
    constant: float
    n_variables: int

    def score(self, x: Any) -> Any:
        """The score of one assignment or of a batch (as :meth:`DiscreteModel.score`).

        Parameters
        ----------
        x : array-like of int, shape (n_variables,) or (n, n_variables)
            Values 0 or 1 of every variable.

        Returns
        -------
        float or ndarray of shape (n,)
            The score of each assignment.

        Examples
        --------
        >>> from kernelkit.pgm.model import DiscreteModel
        >>> m = DiscreteModel([2], [((0,), [0.0, 2.0])])
        >>> to_moment_basis(m).score([[0], [1]]).tolist()
        [0.0, 2.0]
        """
        return self.to_model().score(x)

    def to_model(self) -> DiscreteModel:
        """The model with one factor per subset (:func:`from_even_basis` or
        :func:`from_moment_basis`).

        Returns
        -------
        DiscreteModel
            A binary model on ``n_variables`` variables with this score.
        """
        build = from_even_basis if self.basis == "even" else from_moment_basis
        return build(self.coefficients, self.n_variables, constant=self.constant)


# -- the per-arity matrices -----------------------------------------------------------------


def _assignments(k: int) -> np.ndarray:
    """All of ``{0, 1}^k`` as rows, in the C order of a ``(2,) * k`` table."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    return np.indices((2,) * k).reshape(k, -1).T.astype(np.int64)


def _even_matrix(k: int) -> np.ndarray:
    """``E[x, W] = 1[|W cap ones(x)| even]`` (rows: assignments, columns: subsets as masks)."""
    bits = _assignments(k)
    return ((bits @ bits.T) % 2 == 0).astype(np.float64)


def _even_inverse(k: int) -> np.ndarray:
    """``A`` with ``a = A @ theta_flat``: ``a_W = 2^{1-k} sum_x chi_W(x) theta(x)`` for
    non-empty ``W`` and ``a_{} = 2 mean(theta) - theta(0)``."""
    bits = _assignments(k)
    chi = 1.0 - 2.0 * ((bits @ bits.T) % 2)  # chi[W, x] = (-1)^{|W cap ones(x)|}
    inv = chi * 2.0 ** (1 - k)
    inv[0] = 2.0 ** (1 - k)
    inv[0, 0] -= 1.0
    return inv


def _moment_matrix(k: int) -> np.ndarray:
    """``M[x, W] = 1[W subset ones(x)]``."""
    bits = _assignments(k)
    return (bits @ bits.T == bits.sum(axis=1)[None, :]).astype(np.float64)


def _moment_inverse(k: int) -> np.ndarray:
    """The Moebius inverse: ``M^{-1}[W, x] = (-1)^{|W| - |x|} 1[x subset W]``."""
    bits = _assignments(k)
    size = bits.sum(axis=1)
    subset = bits @ bits.T == size[None, :]  # [W, x]: x subset W
    return np.where(subset, (-1.0) ** (size[:, None] - size[None, :]), 0.0)


def _check_binary(model: Any, name: str = "model") -> DiscreteModel:
    return _check_model(model, binary=True, name=name)


def _expand(model: DiscreteModel, basis: str, tol: Any) -> BasisExpansion:
    _check_binary(model)
    if tol is None:
        sizes = [np.abs(f.table[np.isfinite(f.table)]).max(initial=0.0) for f in model.factors]
        tol = 1e-13 * float(max(sizes, default=0.0))
    tol = _check_tol(tol)
    inverse = _even_inverse if basis == "even" else _moment_inverse
    constant = 0.0
    by_size: dict[int, tuple[list[np.ndarray], list[np.ndarray]]] = {}
    for g in model.groups():
        k = g.arity
        flat = g.tables.reshape(g.tables.shape[0], -1)
        if not np.all(np.isfinite(flat)):
            bad = int(g.index[np.flatnonzero(~np.all(np.isfinite(flat), axis=1))[0]])
            raise ValueError(
                f"model.factors[{bad}] has -inf entries; a basis expansion needs finite tables"
            )
        with np.errstate(over="ignore", invalid="ignore"):
            coef = flat @ inverse(k).T  # (n_factors, 2^k), columns: subsets as masks
        if not np.all(np.isfinite(coef)):  # entries near 1e308: a power of two first
            scale = 2.0 ** -(int(np.frexp(np.abs(flat).max())[1]) + k)
            with np.errstate(over="ignore"):
                coef = ((flat * scale) @ inverse(k).T) / scale
            _check_finite_coefficients(coef, g.index, basis)
        masks = _assignments(k).astype(bool)
        with np.errstate(over="ignore", invalid="ignore"):
            constant += float(coef[:, 0].sum())
        for w in range(1, 2**k):
            subs = np.sort(g.scopes[:, masks[w]], axis=1)
            lists = by_size.setdefault(subs.shape[1], ([], []))
            lists[0].append(subs)
            lists[1].append(coef[:, w])
    coefficients: dict[tuple[int, ...], float] = {}
    for size in sorted(by_size):
        subs = np.concatenate(by_size[size][0])
        vals = np.concatenate(by_size[size][1])
        uniq, inv = np.unique(subs, axis=0, return_inverse=True)
        with np.errstate(over="ignore", invalid="ignore"):
            sums = np.bincount(inv.ravel(), weights=vals, minlength=uniq.shape[0])
        if not np.all(np.isfinite(sums)):
            subset = tuple(uniq[np.flatnonzero(~np.isfinite(sums))[0]].tolist())
            raise ValueError(
                f"model: the {basis}-basis coefficient of the subset {subset}, summed over the "
                "factors, is beyond the float64 range (log-potentials near 1e308): scale "
                "the tables down"
            )
        keep = np.abs(sums) > tol
        coefficients.update(zip(map(tuple, uniq[keep].tolist()), sums[keep].tolist(), strict=True))
    if not np.isfinite(constant):
        raise ValueError(
            f"model: the constant of the {basis}-basis expansion is beyond the float64 range "
            "(log-potentials near 1e308): scale the tables down"
        )
    return BasisExpansion(basis, coefficients, constant, model.n_variables)


def _check_finite_coefficients(coef: np.ndarray, index: np.ndarray, basis: str) -> None:
    """A clear error for a factor whose basis coefficients overflow float64."""
    bad = ~np.all(np.isfinite(coef), axis=1)
    if bad.any():
        k = int(index[np.flatnonzero(bad)[0]])
        raise ValueError(
            f"model.factors[{k}]: its {basis}-basis coefficients are beyond the float64 "
            "range (differences of log-potentials near 1e308): scale the tables down"
        )


def to_even_basis(model: DiscreteModel, *, tol: float | None = None) -> BasisExpansion:
    """The coefficients of a binary model in the even basis (Props. 2.10-2.11).

    ``score(x) = constant + sum_U a_U 1[#ones in x_U is even]``, over the non-empty
    subsets ``U`` of the factors' scopes; ``a_U`` is the coefficient of the pure
    ``|U|``-potential on ``U`` (Def. 2.9), summed over the factors whose scope contains
    ``U``.

    Parameters
    ----------
    model : DiscreteModel
        A binary model with finite tables.
    tol : float, optional
        Coefficients with ``|a_U| <= tol`` are left out. Default: ``1e-13`` times the
        largest ``|entry|`` of the tables, which drops the rounding residue of the
        transform (an even potential's table gives back exactly its one coefficient);
        ``tol=0`` keeps every non-zero.

    Returns
    -------
    BasisExpansion
        With ``basis="even"``.

    Raises
    ------
    ValueError
        A non-binary model or a ``-inf`` entry; a coefficient beyond the float64 range
        (differences of log-potentials near ``1e308``).

    Examples
    --------
    The Ising edge ``J x_i x_j`` is ``J/2`` on the edge's even potential, ``-J/2`` on each
    endpoint's and a constant ``J/2``:

    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> b = to_even_basis(ising(nx.path_graph(2), couplings=4.0))
    >>> b.coefficients, b.constant
    ({(0,): -2.0, (1,): -2.0, (0, 1): 2.0}, 2.0)
    """
    return _expand(model, "even", tol)


def to_moment_basis(model: DiscreteModel, *, tol: float | None = None) -> BasisExpansion:
    """The coefficients of a binary model in the moment (monomial) basis (eq. 1.21).

    ``score(x) = constant + sum_U b_U prod_{i in U} x_i``, so that the expected score under
    any distribution is ``constant + sum_U b_U E[prod_{i in U} X_i]``: linear in the
    moments of the minimal representation (eq. 1.21).

    Parameters
    ----------
    model : DiscreteModel
        A binary model with finite tables.
    tol : float, optional
        As in :func:`to_even_basis`.

    Returns
    -------
    BasisExpansion
        With ``basis="moment"``.

    Examples
    --------
    >>> from kernelkit.pgm.model import DiscreteModel
    >>> m = DiscreteModel([2, 2], [((0, 1), [[1.0, 2.0], [3.0, 5.0]])])
    >>> b = to_moment_basis(m)
    >>> b.constant, b.coefficients
    (1.0, {(0,): 2.0, (1,): 1.0, (0, 1): 1.0})
    """
    return _expand(model, "moment", tol)


def _check_tol(tol: Any) -> float:
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)):
        raise TypeError(f"tol must be a number, got {type(tol).__name__}")
    if not 0 <= tol < np.inf:
        raise ValueError(f"tol must be finite and >= 0, got {tol}")
    return float(tol)


def _check_subsets(
    coefficients: Any, n_variables: int | None
) -> tuple[list[tuple[int, ...]], np.ndarray, int]:
    if isinstance(coefficients, BasisExpansion):
        raise TypeError("pass coefficients=expansion.coefficients (or use expansion.to_model())")
    if not isinstance(coefficients, Mapping):
        raise TypeError(
            f"coefficients must be a mapping subset -> float, got {type(coefficients).__name__}"
        )
    subsets: list[tuple[int, ...]] = []
    for key in coefficients:
        sub = (key,) if not isinstance(key, Iterable) else tuple(key)
        if not sub:
            raise ValueError("coefficients: the empty subset is the constant; pass constant=")
        for v in sub:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"coefficients: subset {key!r} must hold variable indices")
            if v < 0 or (n_variables is not None and v >= n_variables):
                raise ValueError(
                    f"coefficients: subset {key!r} has an unknown variable {v} (indices "
                    f"0..{'n_variables-1' if n_variables is None else n_variables - 1})"
                )
        if len(set(sub)) != len(sub):
            raise ValueError(f"coefficients: subset {key!r} repeats a variable")
        subsets.append(tuple(sorted(int(v) for v in sub)))
    if len(set(subsets)) != len(subsets):
        raise ValueError("coefficients: a subset is given twice (in two orders)")
    try:
        values = np.array([coefficients[k] for k in coefficients], dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("coefficients must map subsets to numbers") from None
    if not np.all(np.isfinite(values)):
        raise ValueError("coefficients must be finite")
    n = max((max(s) + 1 for s in subsets), default=0) if n_variables is None else n_variables
    return subsets, values, n


def _from_basis(coefficients: Any, n_variables: Any, constant: Any, matrix: Any) -> DiscreteModel:
    n_checked = None if n_variables is None else check_int(n_variables, "n_variables", minimum=0)
    subsets, values, n = _check_subsets(coefficients, n_checked)
    try:
        const = float(constant)
    except (TypeError, ValueError):
        raise TypeError(f"constant must be a number, got {type(constant).__name__}") from None
    if not np.isfinite(const):
        raise ValueError(f"constant must be finite, got {const}")
    _check_variables_memory(n, "from_even_basis / from_moment_basis")
    order = sorted(range(len(subsets)), key=lambda j: (len(subsets[j]), subsets[j]))
    basis_tables = {k: matrix(k)[:, -1].reshape((2,) * k) for k in {len(s) for s in subsets}}
    factors = [(subsets[j], values[j] * basis_tables[len(subsets[j])]) for j in order]
    if const != 0.0:
        with np.errstate(over="ignore"):
            folded = factors[0][1] + const if factors else None
        if folded is not None and np.all(np.isfinite(folded)):
            factors[0] = (factors[0][0], folded)
        elif folded is not None:  # folding would overflow (near 1e308): a constant factor
            factors.append(((), np.array(const)))
        elif n > 0:
            factors.append(((0,), np.full(2, const)))
        else:
            factors.append(((), np.array(const)))
    return DiscreteModel([2] * n, factors)


def from_even_basis(
    coefficients: Mapping[Any, float],
    n_variables: int | None = None,
    *,
    constant: float = 0.0,
) -> DiscreteModel:
    """A binary model from even-basis coefficients: one factor ``a_U 1[#ones in x_U even]``
    per subset ``U`` (Def. 2.9).

    Parameters
    ----------
    coefficients : mapping subset -> float
        Non-empty subsets (tuples of distinct variable indices, any order; an int for a
        single variable) to their coefficient ``a_U``.
    n_variables : int, optional
        Default: one more than the largest index used.
    constant : float, default=0.0
        Added to every entry of the first factor (a unary factor on variable 0 when there
        is none), so that the score is ``constant + sum_U a_U e_U(x)`` exactly.

    Returns
    -------
    DiscreteModel
        Factors in order of subset size, then lexicographically, scopes sorted.

    Examples
    --------
    >>> m = from_even_basis({(0, 1): 1.5, (2,): -1.0}, 3)
    >>> [f.scope for f in m.factors], m.factors[1].table.tolist()
    ([(2,), (0, 1)], [[1.5, 0.0], [0.0, 1.5]])
    """
    return _from_basis(coefficients, n_variables, constant, _even_matrix)


def from_moment_basis(
    coefficients: Mapping[Any, float],
    n_variables: int | None = None,
    *,
    constant: float = 0.0,
) -> DiscreteModel:
    """A binary model from moment-basis coefficients: one factor ``b_U prod_{i in U} x_i``
    per subset ``U``.

    Parameters
    ----------
    coefficients : mapping subset -> float
        Non-empty subsets (tuples of distinct variable indices, any order; an int for a
        single variable) to their coefficient ``b_U``.
    n_variables : int, optional
        Default: one more than the largest index used.
    constant : float, default=0.0
        Added to every entry of the first factor, as in :func:`from_even_basis`.

    Returns
    -------
    DiscreteModel
        Factors in order of subset size, then lexicographically, scopes sorted.

    Examples
    --------
    >>> m = from_moment_basis({(0, 1): 2.0}, constant=1.0)
    >>> m.score([[0, 0], [1, 1]]).tolist()
    [1.0, 3.0]
    """
    return _from_basis(coefficients, n_variables, constant, _moment_matrix)


# -- random models ----------------------------------------------------------------------------


def random_model(
    hyperedges: Sequence[Sequence[int]],
    scales: Mapping[int, float],
    random_state: Any = None,
    *,
    n_variables: int | None = None,
) -> DiscreteModel:
    """A binary model of pure potentials with random coefficients (§2.5, App. 2.B).

    Each hyperedge ``U`` gets the even potential ``a_U 1[#ones in x_U even]`` with
    ``a_U ~ Unif[-W_k, W_k]``, ``k = |U|``, ``W_k = scales[k]``. Hyperedges whose arity has
    scale 0 or no entry in ``scales`` get no factor. One uniform draw is made per
    hyperedge, whatever the scales, so that changing one arity's scale leaves the other
    coefficients unchanged for the same ``random_state``.

    Parameters
    ----------
    hyperedges : sequence of sequences of int
        The scopes (distinct variable indices each), e.g. from
        :func:`complete_hypergraph_scopes` or :func:`toroidal_grid_scopes`.
    scales : mapping int -> float
        ``W_max`` per arity, each ``>= 0``; :data:`THESIS_SCALES` are the thesis's defaults.
    random_state : None, int or RandomState
        Seed of the coefficients.
    n_variables : int, optional
        Default: one more than the largest index used.

    Returns
    -------
    DiscreteModel
        One factor per hyperedge with a non-zero scale, in the given order.

    Examples
    --------
    >>> m = random_model(complete_hypergraph_scopes(8), THESIS_SCALES, random_state=0)
    >>> m.n_variables, len(m.factors), sorted({f.arity for f in m.factors})
    (8, 98, [2, 4])
    """
    if not isinstance(scales, Mapping):
        raise TypeError(f"scales must be a mapping arity -> W_max, got {type(scales).__name__}")
    w: dict[int, float] = {}
    for k, v in scales.items():
        k = check_int(k, "scales (arity)", minimum=1)
        try:
            w[k] = float(v)
        except (TypeError, ValueError):
            raise TypeError(f"scales[{k}] must be a number, got {type(v).__name__}") from None
        if not 0 <= w[k] < np.inf:
            raise ValueError(f"scales[{k}] must be finite and >= 0, got {v!r}")
    if isinstance(hyperedges, (str, bytes)) or not isinstance(hyperedges, Iterable):
        raise TypeError(
            "hyperedges must be a sequence of sequences of variable indices, got "
            f"{type(hyperedges).__name__}"
        )
    scopes: list[tuple[int, ...]] = []
    for j, e in enumerate(hyperedges):
        if isinstance(e, (str, bytes)) or not isinstance(e, Iterable):
            raise TypeError(f"hyperedges[{j}] must be a sequence of variable indices")
        scope = tuple(e)
        for v in scope:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"hyperedges[{j}] = {scope!r}: variables are indices >= 0")
        if not scope:
            raise ValueError(f"hyperedges[{j}] is empty")
        scopes.append(tuple(int(v) for v in scope))
    n_used = max((max(s) + 1 for s in scopes), default=0)
    if n_variables is None:
        n = n_used
    else:
        n = check_int(n_variables, "n_variables", minimum=0)
        if n < n_used:
            raise ValueError(f"n_variables={n} but the hyperedges use index {n_used - 1}")
    _check_variables_memory(n, "random_model")
    rs = check_random_state(random_state)
    draws = rs.uniform(-1.0, 1.0, size=len(scopes))
    tables = {k: _even_matrix(k)[:, -1].reshape((2,) * k) for k in {len(s) for s in scopes}}
    factors = [
        (s, u * w[len(s)] * tables[len(s)])
        for s, u in zip(scopes, draws, strict=True)
        if w.get(len(s), 0.0) > 0
    ]
    return DiscreteModel([2] * n, factors)


def complete_hypergraph_scopes(n: int, max_arity: int = 4) -> list[tuple[int, ...]]:
    """Every subset of ``{0, …, n-1}`` of size ``1`` to ``max_arity`` (the thesis's ``K_8``
    experiments use ``n = 8``, ``max_arity = 4``), by size then lexicographically.

    Parameters
    ----------
    n : int
        Number of vertices, ``>= 0``.
    max_arity : int, default=4
        Largest subset size, ``>= 1``.

    Returns
    -------
    list of tuple of int
        The subsets, each sorted.

    Examples
    --------
    >>> complete_hypergraph_scopes(3, max_arity=2)
    [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]
    >>> len(complete_hypergraph_scopes(8))
    162
    """
    n = check_int(n, "n", minimum=0)
    max_arity = check_int(max_arity, "max_arity", minimum=1)
    count = sum(math.comb(n, k) for k in range(1, min(max_arity, n) + 1))
    _memory.check_memory(
        count * (_BYTES_PER_TUPLE + 8 * min(max_arity, n)),
        f"complete_hypergraph_scopes(n={n}, max_arity={max_arity}): {count} subsets",
        "use a smaller n or max_arity",
    )
    return [s for k in range(1, max_arity + 1) for s in itertools.combinations(range(n), k)]


#: Memory of one scope tuple in a list (the tuple, its slot; its small ints are shared).
_BYTES_PER_TUPLE = 72


def toroidal_grid_scopes(L: int) -> list[tuple[int, ...]]:
    """The hyperedges of the thesis's ``L x L`` toroidal grid models (App. 2.B).

    Vertex ``(r, c)`` is ``r * L + c``. In order: one unary per vertex; one pair per grid
    edge (right and down neighbours, wrapping around); one triple per "L-shaped" connected
    subgraph of size 3 (a corner and two perpendicular neighbours: four per vertex); one
    4-set per 4-cycle (unit square, one per vertex as its top-left corner). Each scope is
    sorted. ``L >= 3`` so that the scopes are distinct.

    Parameters
    ----------
    L : int
        Side of the grid, ``>= 3``.

    Returns
    -------
    list of tuple of int
        ``L^2 + 2 L^2 + 4 L^2 + L^2`` scopes.

    Examples
    --------
    >>> scopes = toroidal_grid_scopes(5)
    >>> len(scopes), len(set(scopes)), [len(s) for s in scopes[::40]]
    (200, 200, [1, 2, 3, 3, 3])
    """
    L = check_int(L, "L", minimum=3)
    _memory.check_memory(
        8 * L * L * (_BYTES_PER_TUPLE + 32 + 4 * 8),
        f"toroidal_grid_scopes(L={L}): {8 * L * L} scopes",
        "use a smaller L",
    )
    r, c = np.divmod(np.arange(L * L), L)

    def at(dr: int, dc: int) -> np.ndarray:
        return ((r + dr) % L) * L + (c + dc) % L

    v = np.arange(L * L)
    right, down, left, up = at(0, 1), at(1, 0), at(0, -1), at(-1, 0)
    blocks = [
        v[:, None],
        np.stack([v, right], axis=1),
        np.stack([v, down], axis=1),
        *(
            np.stack([v, a, b], axis=1)
            for a, b in ((right, down), (down, left), (left, up), (up, right))
        ),
        np.stack([v, right, down, at(1, 1)], axis=1),
    ]
    return [tuple(row) for b in blocks for row in np.sort(b, axis=1).tolist()]
