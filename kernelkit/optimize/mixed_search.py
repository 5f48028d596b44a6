"""Acquisition search on a search space with integer and categorical dimensions, or with
known constraints on the inputs.

The surrogate works on the space's cube (:meth:`Space.transform
<kernelkit.optimize.Space.transform>`), where an integer is one coordinate and a
category a one-hot block. Maximising an acquisition over the whole cube and rounding the
result afterwards evaluates the surrogate where no point of the space lies, and two
optima can round to the same point. Here every point scored is a point of the space:

1. candidates: a Sobol design of the space (:meth:`Space.sample`) and the caller's
   extra points, each *snapped* (``transform(inverse_transform(z))``), so an integer
   coordinate sits at its cell's centre and a one-hot block has a single 1;
2. points that are not allowed (infeasible, or a repeat of a point the caller
   excludes) are dropped before scoring;
3. local moves from the best few, repeated while they improve: every integer one step
   up or down, every other category of each categorical, and Gaussian moves of the real
   coordinates;
4. the real coordinates of the best point are refined by L-BFGS-B with the others held
   (:func:`~kernelkit.optimize.maximize_acquisition` on the real coordinates).

The result is the best allowed point seen, always a snapped point of the space.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kernelkit._validation import check_int, check_random_state
from kernelkit.optimize.search import maximize_acquisition
from kernelkit.optimize.space import Categorical, Integer, Space

__all__ = ["maximize_on_space", "snap"]

#: Standard deviations (in cube coordinates) of the Gaussian moves of real coordinates.
_REAL_STEPS = (0.01, 0.1)
#: Rounds of local moves at most.
_MAX_ROUNDS = 8


def snap(space: Space, Z: np.ndarray) -> np.ndarray:
    """Cube points moved to the points of ``space`` they stand for:
    ``transform(inverse_transform(Z))``.

    Parameters
    ----------
    space : Space
        The search space.
    Z : ndarray of shape (m, transformed_n_dims)
        Points of its cube.

    Returns
    -------
    ndarray of shape (m, transformed_n_dims)
        The cube points of the space's points they stand for.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.optimize import Categorical, Integer, Space
    >>> space = Space([Integer(0, 3), Categorical(["a", "b"])])
    >>> snap(space, np.array([[0.3, 0.2, 0.7]])).tolist()
    [[0.375, 0.0, 1.0]]
    """
    if Z.shape[0] == 0:
        return Z.copy()
    return space.transform(space.inverse_transform(Z))


def _real_columns(space: Space) -> np.ndarray:
    """The cube columns of the real dimensions."""
    cols: list[int] = []
    start = 0
    for dim in space.dimensions:
        if not isinstance(dim, (Integer, Categorical)):
            cols.append(start)
        start += dim.transformed_size
    return np.asarray(cols, dtype=int)


def _neighbours(space: Space, Z: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
    """Snapped points one move away from each row of ``Z``: an integer one step up or
    down, another category, or a Gaussian move of one real coordinate."""
    moves: list[list[Any]] = []
    points = space.inverse_transform(Z)
    for point in points:
        for j, dim in enumerate(space.dimensions):
            if isinstance(dim, Integer):
                for step in (-1, 1):
                    v = point[j] + step
                    if dim.low <= v <= dim.high:
                        moves.append([*point[:j], v, *point[j + 1 :]])
            elif isinstance(dim, Categorical):
                for c in dim.categories:
                    if c != point[j]:
                        moves.append([*point[:j], c, *point[j + 1 :]])
    out = [space.transform(moves)] if moves else []
    reals = _real_columns(space)
    if reals.size:
        for scale in _REAL_STEPS:
            W = np.repeat(Z, reals.size, axis=0)
            rows = np.arange(W.shape[0])
            W[rows, np.tile(reals, Z.shape[0])] += scale * rng.standard_normal(W.shape[0])
            out.append(snap(space, np.clip(W, 0.0, 1.0)))
    return np.vstack(out) if out else np.empty((0, Z.shape[1]))


def maximize_on_space(
    value: Callable[[np.ndarray], np.ndarray],
    value_and_gradient: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None,
    space: Space,
    *,
    allowed: Callable[[np.ndarray], np.ndarray] | None = None,
    n_candidates: int = 2048,
    n_starts: int = 5,
    extra: Any = None,
    random_state: Any = None,
) -> tuple[np.ndarray, float]:
    """Maximise an acquisition over the points of ``space`` (see the module's text).

    Parameters
    ----------
    value : callable
        ``value(Z) -> (m,)`` on rows of the space's cube.
    value_and_gradient : callable or None
        ``value_and_gradient(Z) -> ((m,), (m, D))``, for the refinement of the real
        coordinates; ``None``: finite differences.
    space : Space
        The search space.
    allowed : callable, optional
        ``allowed(Z) -> (m,) bool`` on snapped rows: which may be proposed (feasible,
        not a repeat). All by default.
    n_candidates : int, default=2048
        Points of the Sobol design of the space scored first.
    n_starts : int, default=5
        Best distinct points that local moves start from.
    extra : array-like of shape (k, D), optional
        More candidates (snapped), e.g. the incumbent.
    random_state : int, RandomState or None
        Seeds the design and the moves.

    Returns
    -------
    z : ndarray of shape (D,)
        The best allowed point found, snapped; ``None`` when no candidate is allowed.
    value : float
        Its acquisition (``-inf`` when none is allowed).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.optimize import Integer, Real, Space
    >>> space = Space([Integer(0, 10), Real(0.0, 1.0)])
    >>> target = space.transform([[7, 0.25]])[0]
    >>> def value(Z):
    ...     return -np.sum((Z - target) ** 2, axis=1)
    >>> z, v = maximize_on_space(value, None, space, n_candidates=64, random_state=0)
    >>> x = space.inverse_transform(z[None])[0]
    >>> x[0], round(x[1], 4)
    (7, 0.25)
    """
    check_int(n_candidates, "n_candidates", minimum=1)
    check_int(n_starts, "n_starts", minimum=0)
    rng = check_random_state(random_state)
    D = space.transformed_n_dims
    parts = [space.transform(space.sample(n_candidates, "sobol", rng))]
    if extra is not None:
        parts.append(snap(space, np.clip(np.atleast_2d(np.asarray(extra, float)), 0.0, 1.0)))
    seen = np.unique(np.vstack(parts), axis=0)

    def score(Z: np.ndarray) -> np.ndarray:
        v = np.full(Z.shape[0], -np.inf)
        ok = np.ones(Z.shape[0], bool) if allowed is None else np.asarray(allowed(Z), bool)
        if ok.any():
            got = np.asarray(value(Z[ok]), dtype=float)
            v[ok] = np.where(np.isnan(got), -np.inf, got)
        return v

    scores = score(seen)
    for _ in range(_MAX_ROUNDS):
        best = float(np.max(scores))
        if not np.isfinite(best) or n_starts == 0:
            break
        order = np.argsort(-scores, kind="stable")[:n_starts]
        top = seen[order[np.isfinite(scores[order])]]
        N = _neighbours(space, top, rng)
        if N.shape[0]:
            N = np.unique(N, axis=0)
            new = ~_rows_in(N, seen)
            N = N[new]
        if N.shape[0] == 0:
            break
        seen = np.vstack([seen, N])
        scores = np.concatenate([scores, score(N)])
        if float(np.max(scores)) <= best:
            break
    i = int(np.argmax(scores))
    if not np.isfinite(scores[i]):
        return seen[i], -np.inf
    z, v = seen[i].copy(), float(scores[i])
    reals = _real_columns(space)
    if reals.size and n_starts:
        z, v = _refine_reals(value, value_and_gradient, space, z, v, reals, allowed, rng)
    assert z.shape == (D,)
    return z, v


def _refine_reals(
    value: Callable[[np.ndarray], np.ndarray],
    value_and_gradient: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None,
    space: Space,
    z: np.ndarray,
    v: float,
    reals: np.ndarray,
    allowed: Callable[[np.ndarray], np.ndarray] | None,
    rng: np.random.RandomState,
) -> tuple[np.ndarray, float]:
    """L-BFGS-B on the real coordinates of ``z``, the others held; the result is kept
    when it is allowed and better."""

    def embed(R: np.ndarray) -> np.ndarray:
        Z = np.repeat(z[None], R.shape[0], axis=0)
        Z[:, reals] = R
        return Z

    def sub_value(R: np.ndarray) -> np.ndarray:
        return value(embed(R))

    sub_vg = None
    if value_and_gradient is not None:
        vg = value_and_gradient

        def sub_vg(R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            val, grad = vg(embed(R))
            return val, grad[:, reals]

    r, rv = maximize_acquisition(
        sub_value,
        sub_vg,
        np.tile([0.0, 1.0], (reals.size, 1)),
        n_candidates=16,
        n_starts=1,
        extra=z[reals],
        random_state=rng,
    )
    cand = snap(space, embed(r[None]))
    if rv > v and (allowed is None or bool(np.asarray(allowed(cand))[0])):
        return cand[0], float(value(cand)[0])
    return z, v


def _rows_in(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Whether each row of ``A`` equals a row of ``B`` (exactly: both are snapped)."""
    if B.shape[0] == 0:
        return np.zeros(A.shape[0], bool)
    b = {row.tobytes() for row in np.ascontiguousarray(B)}
    return np.array([row.tobytes() in b for row in np.ascontiguousarray(A)], dtype=bool)
