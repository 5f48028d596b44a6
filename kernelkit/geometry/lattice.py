"""Sampling and counting lattice points of polytopes (Vempala 1997, Ch. 5, Thms 13–15).

The thesis's algorithm for ``P = {x : Ax <= b}``: enlarge every facet,
``b'_i = b_i + (c + sqrt(2 log r)) |A_i|`` (``P'``); draw ``p`` nearly uniformly from ``P'``;
round each coordinate up with probability equal to its fractional part (``X(p)``,
``E[X(p)] = p``); accept if ``X(p)`` lies in ``P``. By Thm 14 every lattice point ``x`` of
``P`` is returned with probability between ``(1 - 2e^{-c^2} - ε)/vol(P')`` and
``1/vol(P')``, so ``|P ∩ Z^n| ≈ acceptance rate × vol(P')``.

The thesis leaves the convex-body sampler to the literature; here it is hit-and-run
(:func:`hit_and_run`, many independent chains at once), and ``vol(P')`` comes from the
standard multiphase Monte Carlo method (:func:`estimate_volume`: concentric balls around
the Chebyshev centre, a telescoping product of volume ratios each estimated by hit-and-run,
Dyer–Frieze–Kannan / Lovász–Vempala style). Standard errors are delete-a-group jackknife
estimates over independent groups of chains, so they include the correlation of
successive hit-and-run states and of the phases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats
from scipy.special import gammaln

from kernelkit._memory import check_memory
from kernelkit._validation import check_array, check_bool, check_int, check_random_state
from kernelkit.geometry._norms import row_norms
from kernelkit.geometry.polytopes import TOL, Polytope

__all__ = [
    "LatticeCount",
    "LatticeSample",
    "VolumeEstimate",
    "count_lattice_points",
    "enlarge_polytope",
    "estimate_volume",
    "hit_and_run",
    "randomised_rounding",
    "sample_lattice_points",
]


def _check_polytope(polytope: Any, name: str = "polytope") -> Polytope:
    if not isinstance(polytope, Polytope):
        raise TypeError(f"{name} must be a Polytope, got {type(polytope).__name__}")
    return polytope


def _as_polytope(A: Any, b: Any) -> Polytope:
    if isinstance(A, Polytope):
        if b is not None:
            raise ValueError("b must be None when A is a Polytope (it holds its own b)")
        return A
    if b is None:
        raise ValueError("b is required when A is a matrix (or pass a Polytope as A)")
    return Polytope(A, b)


#: Polytopes whose row norms and scale lie within ``[1 / _SAFE, _SAFE]`` are walked as
#: they are (their numbers unchanged); beyond, squares of slacks and norms overflow or
#: underflow, and the walk runs in the scaled form of :meth:`Polytope._scaled`.
_SAFE = 2.0**100


def _working_form(P: Polytope) -> tuple[Polytope, float]:
    """``(Q, s)`` with ``P = s Q``: ``P`` itself (``s = 1``) unless its numbers are
    extreme, else ``Q`` with unit rows and right-hand sides near 1 (the same polytope,
    scaled by the power of two ``1 / s``), in which slacks, norms and their squares stay
    in range."""
    A, b, scale, _ = P._scaled
    norms = row_norms(P.A)
    norms = norms[norms > 0]
    ordinary = 1 / _SAFE <= scale <= _SAFE and bool(np.all((norms >= 1 / _SAFE) & (norms <= _SAFE)))
    if ordinary:
        return P, 1.0
    return Polytope(A, b), scale


def _check_log_size(log_value: float, what: str) -> None:
    """Refuse a volume (or count) ``exp(log_value)`` outside the float64 range."""
    if not math.log(np.finfo(np.float64).tiny) < log_value < math.log(np.finfo(np.float64).max):
        raise ValueError(
            f"the {what} is about 10^{log_value / math.log(10):.1f}, outside the float64 "
            "range; rescale the polytope (the volume scales by s^n when x is scaled by s)"
        )


def _check_steps(n_steps: int | None, n: int) -> int:
    if n_steps is None:
        return 10 * n + 20
    return check_int(n_steps, "n_steps", minimum=1)


def _generator(random_state: Any) -> np.random.Generator:
    """A fast ``Generator`` driven by ``random_state`` (same seed, same numbers)."""
    return np.random.default_rng(check_random_state(random_state).randint(0, 2**32 - 1))


def _unit_directions(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    D = rng.standard_normal((k, n))
    D /= np.sqrt(np.einsum("ij,ij->i", D, D))[:, None]
    return D


def _ball_interval(
    beta: np.ndarray, sq: np.ndarray, radius: float
) -> tuple[np.ndarray, np.ndarray]:
    """``t`` with ``|Y + t D| <= radius`` given ``beta = D.Y``, ``sq = |Y|^2`` (unit ``D``).

    An empty intersection comes back as ``lo > hi``.
    """
    disc = beta**2 - (sq - radius**2)
    root = np.sqrt(np.maximum(disc, 0.0))
    lo, hi = -beta - root, -beta + root
    empty = disc < 0
    lo[empty], hi[empty] = 0.0, -1.0
    return lo, hi


class _Walk:
    """Hit-and-run chains (rows of ``Y``) in ``{A y <= bc} ∩ {|y| <= radius}``.

    Coordinates are centred (``y = x - centre``, ``bc = b - A centre``) so that the balls
    of the multiphase method are centred at 0; the slacks ``bc - A y`` and ``|y|^2`` are
    updated along each step instead of recomputed.
    """

    def __init__(self, A: np.ndarray, bc: np.ndarray, Y: np.ndarray, rng: np.random.Generator):
        self.A, self.bc, self.Y, self.rng = A, bc, Y, rng
        self.refresh()

    def refresh(self) -> None:
        self.slack = np.maximum(self.bc - self.Y @ self.A.T, 0.0)
        self.sq = np.einsum("ij,ij->i", self.Y, self.Y)

    def step(self, radius: float = np.inf, inner: float | None = None) -> np.ndarray | None:
        """Move every chain once; with ``inner``, return the fraction of each chord inside
        the ball of radius ``inner`` (the conditional probability of landing there)."""
        Y, rng = self.Y, self.rng
        D = _unit_directions(rng, Y.shape[0], Y.shape[1])
        AD = D @ self.A.T
        # slack >= 0, so 1/max_i(A_i d / slack_i) and 1/min_i(...) are the chord's ends
        q = AD / np.maximum(self.slack, 1e-300)
        t_hi = 1.0 / q.max(axis=1)
        t_lo = 1.0 / q.min(axis=1)
        if not (np.all(t_hi >= 0) and np.all(t_lo <= 0)):
            raise ValueError("the polytope is unbounded: a hit-and-run chord is infinite")
        beta = np.einsum("ij,ij->i", D, Y)
        if np.isfinite(radius):
            b_lo, b_hi = _ball_interval(beta, self.sq, radius)
            t_lo = np.maximum(t_lo, np.minimum(b_lo, 0.0))
            t_hi = np.minimum(t_hi, np.maximum(b_hi, 0.0))
        frac = None
        if inner is not None:
            i_lo, i_hi = _ball_interval(beta, self.sq, inner)
            overlap = np.maximum(np.minimum(i_hi, t_hi) - np.maximum(i_lo, t_lo), 0.0)
            width = t_hi - t_lo
            frac = np.where(width > 0, overlap / np.where(width > 0, width, 1.0), 1.0)
        t = t_lo + rng.random(Y.shape[0]) * (t_hi - t_lo)
        Y += t[:, None] * D
        self.slack = np.maximum(self.slack - t[:, None] * AD, 0.0)
        self.sq = self.sq + 2.0 * t * beta + t**2
        return frac


def hit_and_run(
    polytope: Polytope,
    n_samples: int,
    *,
    n_steps: int | None = None,
    start: Any = None,
    random_state: Any = None,
) -> np.ndarray:
    """Nearly uniform points of a bounded polytope by hit-and-run, one chain per point.

    Each of ``n_samples`` independent chains starts at ``start`` (default: the Chebyshev
    centre) and takes ``n_steps`` steps: a uniformly random direction, the chord of the
    polytope through the current point along it (from ``Ax <= b``), and a uniform point
    on the chord. Hit-and-run leaves the uniform distribution invariant and converges to
    it from any interior start (Smith 1984; Lovász–Vempala for the mixing time), so the
    returned points are independent and uniform in the limit ``n_steps -> inf``. All
    chains move at once (one matrix product per step).

    Parameters
    ----------
    polytope : Polytope
        Bounded, non-empty, full-dimensional.
    n_samples : int
        Number of chains (= points returned).
    n_steps : int, optional
        Steps per chain; default ``10 n + 20``.
    start : array-like of shape (n,), optional
        A point inside the polytope; default :meth:`Polytope.interior_point`.
    random_state : None, int or RandomState
        Seed of the directions and of the points on the chords.

    Returns
    -------
    ndarray of shape (n_samples, n)
        The last state of each chain.

    Raises
    ------
    ValueError
        If ``start`` has the wrong shape or lies outside the polytope.

    Examples
    --------
    >>> from kernelkit.geometry.lattice import hit_and_run
    >>> from kernelkit.geometry.polytopes import simplex_polytope
    >>> X = hit_and_run(simplex_polytope(2, 1.0), 1000, random_state=0)
    >>> bool(simplex_polytope(2, 1.0).contains(X).all()), X.mean(axis=0).round(1).tolist()
    (True, [0.3, 0.3])
    """
    P = _check_polytope(polytope)
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    n_steps = _check_steps(n_steps, P.n_dims)
    # the chains (n_samples, n), their slacks and the step's products (n_samples, m)
    check_memory(
        8 * n_samples * (3 * P.n_dims + 3 * P.n_constraints),
        f"hit_and_run(n_samples={n_samples}) in {P.n_dims} dimensions with "
        f"{P.n_constraints} constraints",
        "ask for fewer samples at a time",
    )
    rng = _generator(random_state)
    if start is None:
        x0 = P.interior_point()
    else:
        x0 = check_array(start, "start", ndim=1, n_features=None)
        if x0.shape != (P.n_dims,):
            raise ValueError(f"start must have shape ({P.n_dims},), got {x0.shape}")
        P.check()
        if not P.contains(x0):
            raise ValueError("start must lie inside the polytope (A @ start <= b)")
    Q, scale = _working_form(P)  # P = scale * Q
    q0 = x0 / scale
    walk = _Walk(Q.A, Q.b - Q.A @ q0, np.zeros((n_samples, P.n_dims)), rng)
    for _ in range(n_steps):
        walk.step()
    return (walk.Y + q0) * scale


def randomised_rounding(points: Any, random_state: Any = None) -> np.ndarray:
    """Round each coordinate up with probability equal to its fractional part.

    Vempala (1997) §5.2: ``X(p)_i = floor(p_i) + 1`` with probability ``p_i - floor(p_i)``,
    else ``floor(p_i)``, independently over coordinates (Raghavan–Thompson rounding), so
    ``E[X(p)] = p``.

    Parameters
    ----------
    points : array-like of shape (k, n) or (n,)
        Finite points to round.
    random_state : None, int, RandomState or Generator
        Seed of the coin flips.

    Returns
    -------
    ndarray of float64, shape of ``points``
        The rounded points (integer-valued floats).

    Raises
    ------
    ValueError
        If ``points`` is empty, not 1-D or 2-D, or not finite.

    Examples
    --------
    >>> from kernelkit.geometry.lattice import randomised_rounding
    >>> randomised_rounding([[0.0, 2.0, -1.0]], random_state=0).tolist()
    [[0.0, 2.0, -1.0]]
    >>> float(randomised_rounding([0.25] * 100_000, random_state=0).mean().round(2))
    0.25
    """
    P = np.asarray(points, dtype=np.float64)
    if P.ndim not in (1, 2) or P.size == 0:
        raise ValueError(f"points must be a non-empty 1-D or 2-D array, got shape {P.shape}")
    if not np.all(np.isfinite(P)):
        raise ValueError("points contains NaN or infinity")
    rng = (
        random_state if isinstance(random_state, np.random.Generator) else _generator(random_state)
    )
    base = np.floor(P)
    return base + (rng.random(P.shape) < P - base)


def enlarge_polytope(
    polytope: Polytope, c: float = 2.0, *, r: int | None = None, cap: bool = True
) -> Polytope:
    """The enlarged polytope ``P'`` of Vempala (1997) §5.2.

    ``b'_i = b_i + (c + sqrt(2 ln r)) |A_i|`` with ``|A_i|`` the Euclidean norm of row ``i``
    and ``r`` the largest number of facets meeting a cube ``C(x, 1)`` around a lattice point.

    Parameters
    ----------
    polytope : Polytope
        The polytope ``P``.
    c : float, default 2.0
        The thesis's ``c > 0``; Thm 14's lower bound loses ``2 e^{-c^2}``.
    r : int, optional
        Default ``m`` (the number of rows), an upper bound on the thesis's ``r``; a larger
        ``r`` only enlarges ``P'``.
    cap : bool, default True
        Cap the enlargement at ``|A_i|_1``, i.e. use
        ``b'_i = b_i + min((c + sqrt(2 ln r)) |A_i|, |A_i|_1)``. At ``|A_i|_1`` the cube
        ``C(x, 1)`` of every ``x in P`` already lies on the inner side of facet ``i`` of
        ``P'``, which is all the proof of Thm 14 uses that row for, so the cap keeps both
        bounds of Thm 14 and raises the acceptance rate. When it binds on every row,
        ``Pr(X(p) = x) = 1/vol(P')`` exactly for uniform ``p`` and the count estimator is
        unbiased. ``cap=False`` is the thesis's formula.

    Returns
    -------
    Polytope
        ``P'``, with the rows ``A`` of ``P`` and the enlarged right-hand side.

    Notes
    -----
    The proof bounds ``Pr(A_i Y >= b'_i - b_i)`` for ``Y`` with iid tent densities
    ``1 - |t|`` on ``[-1, 1]`` by Azuma's inequality. With increments bounded by
    ``|A_ij|`` Azuma gives ``e^{-c^2/2}/r``; the stated ``2e^{-c^2}/r`` follows from the
    tent law's sharper sub-Gaussian constant (variance proxy ``1/6``: the tent is the sum
    of two uniforms on ``[-1/2, 1/2]``, each with moment generating function
    ``sinh(s/2)/(s/2) <= e^{s^2/24}``), which gives ``e^{-3 c^2}/r``.

    Examples
    --------
    >>> from kernelkit.geometry.lattice import enlarge_polytope
    >>> from kernelkit.geometry.polytopes import simplex_polytope
    >>> enlarge_polytope(simplex_polytope(2, 4)).b.tolist()  # capped at |A_i|_1
    [1.0, 1.0, 6.0]
    >>> enlarge_polytope(simplex_polytope(2, 4), 1.0, r=1, cap=False).b.round(3).tolist()
    [1.0, 1.0, 5.414]
    """
    P = _check_polytope(polytope)
    if isinstance(c, bool) or not isinstance(c, (int, float, np.floating, np.integer)):
        raise TypeError(f"c must be a number, got {type(c).__name__}")
    if not (np.isfinite(c) and c > 0):
        raise ValueError(f"c must be finite and > 0, got {c!r}")
    r = P.n_constraints if r is None else check_int(r, "r", minimum=1)
    cap = check_bool(cap, "cap")
    grow = (float(c) + math.sqrt(2.0 * math.log(r))) * row_norms(P.A)
    if cap:
        with np.errstate(over="ignore"):  # |A_i|_1 beyond float64: the norm term binds
            grow = np.minimum(grow, np.abs(P.A).sum(axis=1))
    return Polytope(P.A, P.b + grow)


@dataclass(frozen=True)
class _Phases:
    """Per-chain statistics of one multiphase run (the unit of the jackknife is a chain)."""

    log_ball_volume: float
    ratio_sums: np.ndarray  # (K, n_chains): mean Rao–Blackwellised inner fractions
    accepted: np.ndarray  # (n_chains,): accepted roundings
    n_round: int  # roundings per chain
    n_phases: int


def _log_unit_ball(n: int) -> float:
    return 0.5 * n * math.log(math.pi) - float(gammaln(0.5 * n + 1.0))


def _dikin_rounding(body: Polytope, max_iter: int = 50) -> tuple[np.ndarray, np.ndarray, float]:
    """An affine map ``x = shift + T y`` that makes ``body`` round (``log |det T|`` too).

    ``shift`` is the analytic centre (minimiser of ``-sum log(b - Ax)``, by damped Newton
    from the Chebyshev centre) and ``T = L^{-T}`` for the barrier Hessian
    ``H = A^T diag(s^{-2}) A = L L^T`` there: the Dikin ellipsoid ``{y : |y| <= 1}`` lies
    in the body, which lies in ``|y| <= m`` (Nesterov–Nemirovski). Hit-and-run mixes and
    the multiphase schedule shortens in the rounded coordinates.
    """
    centre, rho = body.chebyshev_ball()
    if rho <= 0:
        raise ValueError(
            "the polytope is not full-dimensional (its largest inscribed ball has radius "
            "0); eliminate equality constraints first (see the builders in "
            "kernelkit.geometry.polytopes)"
        )
    A, b = body.A, body.b
    x = centre.copy()
    for _ in range(max_iter):
        s = b - A @ x
        g = A.T @ (1.0 / s)
        H = (A / s[:, None] ** 2).T @ A
        dx = -np.linalg.solve(H, g)
        decrement = float(-g @ dx)
        Adx = A @ dx
        t = 1.0
        with np.errstate(divide="ignore"):
            limit = np.min(np.where(Adx > 0, s / Adx, np.inf))
        t = min(1.0, 0.99 * limit)
        x = x + t * dx
        if decrement < 1e-12:
            break
    s = b - A @ x
    H = (A / s[:, None] ** 2).T @ A
    L = np.linalg.cholesky(H)
    T = np.linalg.inv(L).T
    return x, T, -float(np.sum(np.log(np.diag(L))))


def _multiphase(
    body: Polytope,
    target: Polytope | None,
    n_chains: int,
    n_steps: int,
    burn_in: int,
    rng: np.random.Generator,
) -> _Phases:
    """Chains through balls ``B_0 ⊂ B_1 ⊂ ... ⊃ body``, radii growing by ``2^{1/n}``.

    ``K_k = body ∩ B_k``; ``K_0 = B_0`` is the Chebyshev ball (inside the body) and the
    last ``K_K`` is the body. ``vol(body) = vol(B_0) / prod_k vol(K_{k-1})/vol(K_k)`` and
    each ratio (``>= 1/2``) is the mean, over chains run in ``K_k``, of the fraction of
    their chords inside ``B_{k-1}`` (``ratio_sums`` holds each chain's mean). Chains carry
    over from phase to phase (a warm start: uniform on ``K_{k-1}`` is within a factor 2
    of uniform on ``K_k``); each phase burns in ``burn_in`` steps and records ``n_steps``
    (the last ``K n_steps``). The walk runs in the coordinates of
    :func:`_dikin_rounding`. With ``target`` set, every recorded point of the last phase
    is rounded (:func:`randomised_rounding`) and checked against ``target``.
    """
    n = body.n_dims
    body, scale = _working_form(body)  # the walk runs in body / scale
    shift, T, log_det = _dikin_rounding(body)
    rounded = Polytope(body.A @ T, body.b - body.A @ shift)
    centre, rho = rounded.chebyshev_ball()
    lo, hi = rounded.bounding_box()
    far = float(np.linalg.norm(np.maximum(np.abs(lo - centre), np.abs(hi - centre))))
    n_phases = max(math.ceil(n * math.log2(max(far / rho, 1.0))), 1)
    radii = rho * 2.0 ** (np.arange(n_phases + 1) / n)
    # uniform start in B_0, centred coordinates
    Y = _unit_directions(rng, n_chains, n) * (rho * rng.random((n_chains, 1)) ** (1 / n))
    walk = _Walk(rounded.A, rounded.b - rounded.A @ centre, Y, rng)
    ratio_sums = np.zeros((n_phases, n_chains))
    accepted = np.zeros(n_chains)
    if target is not None:
        t_A, t_b = target.A, target.b + TOL * (1.0 + np.abs(target.b))
    for k in range(1, n_phases + 1):
        last = k == n_phases
        radius = np.inf if last else float(radii[k])
        walk.refresh()
        for _ in range(burn_in):
            walk.step(radius)
        # the last phase runs in P' itself: its points also feed the acceptance rate, so it
        # records as many steps as all phases together
        for _ in range(n_steps * n_phases if last else n_steps):
            frac = walk.step(radius, inner=float(radii[k - 1]))
            assert frac is not None
            ratio_sums[k - 1] += frac / (n_steps * n_phases if last else n_steps)
            if last and target is not None:
                Z = randomised_rounding((shift + (walk.Y + centre) @ T.T) * scale, rng)
                accepted += np.all(Z @ t_A.T <= t_b, axis=1)
    return _Phases(
        log_ball_volume=_log_unit_ball(n) + n * math.log(rho) + log_det + n * math.log(scale),
        ratio_sums=ratio_sums,
        accepted=accepted,
        n_round=n_steps * n_phases if target is not None else 0,
        n_phases=n_phases,
    )


def _group_sums(values: np.ndarray, n_groups: int) -> np.ndarray:
    """Sum the last axis of ``values`` over ``n_groups`` contiguous groups of chains."""
    groups = np.array_split(np.arange(values.shape[-1]), n_groups)
    return np.stack([values[..., g].sum(axis=-1) for g in groups], axis=-1)


def _jackknife(
    log_estimate: Any, totals: tuple[np.ndarray, ...], n_groups: int
) -> tuple[float, float]:
    """Estimate and delete-a-group jackknife standard error of ``exp(log_estimate(*sums))``.

    ``totals`` are per-group sums (last axis: group); ``log_estimate`` maps full sums (the
    group axis summed) and chain counts to a log-estimate.
    """
    full = [t.sum(axis=-1) for t in totals]
    est = math.exp(log_estimate(*full))
    leave = np.array(
        [
            math.exp(log_estimate(*[f - t[..., g] for f, t in zip(full, totals, strict=True)]))
            for g in range(n_groups)
        ]
    )
    var = (n_groups - 1) / n_groups * np.sum((leave - leave.mean()) ** 2)
    return est, float(math.sqrt(var))


@dataclass(frozen=True)
class VolumeEstimate:
    """Result of :func:`estimate_volume`.

    Attributes
    ----------
    estimate : float
        Estimated volume.
    stderr : float
        Jackknife standard error (over groups of independent chains).
    n_phases : int
        Number of ratios in the telescoping product.
    n_samples : int
        Hit-and-run points recorded (chains × recorded steps × phases).
    """

    estimate: float
    stderr: float
    n_phases: int
    n_samples: int


def _check_sizes(
    n_chains: int, n_groups: int, n_steps: int, burn_in: int | None, n: int
) -> tuple[int, int, int, int]:
    n_groups = check_int(n_groups, "n_groups", minimum=2)
    n_chains = check_int(n_chains, "n_chains", minimum=n_groups)
    n_steps = check_int(n_steps, "n_steps", minimum=1)
    burn_in = 3 * n + 5 if burn_in is None else check_int(burn_in, "burn_in", minimum=0)
    return n_chains, n_groups, n_steps, burn_in


def estimate_volume(
    polytope: Polytope,
    *,
    n_chains: int = 1000,
    n_steps: int = 5,
    burn_in: int | None = None,
    n_groups: int = 20,
    random_state: Any = None,
) -> VolumeEstimate:
    """Volume of a full-dimensional polytope by the multiphase Monte Carlo method.

    Balls ``B_k`` about the Chebyshev centre with radii ``ρ 2^{k/n}``, from the inscribed
    radius ``ρ`` until they hold the polytope (``K = ceil(n log2(R/ρ))`` phases, ``R`` from
    the LP bounding box); ``vol(P) = vol(B_0) prod_k vol(P ∩ B_{k-1}) / vol(P ∩ B_k)``, each
    ratio estimated by hit-and-run chains in ``P ∩ B_k`` (the Dyer–Frieze–Kannan scheme
    used by Vempala (1997) Ch. 5 for ``vol(P')``). The ratio estimates use the fraction of
    each chord inside the smaller ball (Rao–Blackwellised). The standard error is a
    delete-a-group jackknife over ``n_groups`` groups of independent chains.

    Parameters
    ----------
    polytope : Polytope
        Bounded, non-empty, full-dimensional.
    n_chains : int, default 1000
        Independent chains (each runs through all phases).
    n_steps : int, default 5
        Recorded steps per chain and phase.
    burn_in : int, optional
        Steps per chain and phase before recording (default ``3 n + 5``). The chains
        enter each phase uniform on the previous, smaller body, which over-weights the
        inner ball until they mix; too short a burn-in biases the volume low.
    n_groups : int, default 20
        Groups of chains for the jackknife (at least 2, at most ``n_chains``).
    random_state : None, int or RandomState
        Seed of the chains.

    Returns
    -------
    VolumeEstimate
        The estimate, its standard error and the sample sizes.

    Examples
    --------
    >>> from kernelkit.geometry.lattice import estimate_volume
    >>> from kernelkit.geometry.polytopes import simplex_polytope
    >>> res = estimate_volume(simplex_polytope(3, 3.0), random_state=0)  # exact 4.5
    >>> abs(res.estimate - 4.5) < 4 * res.stderr
    True
    """
    P = _check_polytope(polytope)
    n_chains, n_groups, n_steps, burn_in = _check_sizes(
        n_chains, n_groups, n_steps, burn_in, P.n_dims
    )
    rng = _generator(random_state)
    ph = _multiphase(P, None, n_chains, n_steps, burn_in, rng)
    sums = _group_sums(ph.ratio_sums, n_groups)
    sizes = _group_sums(np.ones(n_chains), n_groups)

    def log_vol(ratio: np.ndarray, size: Any) -> float:
        return ph.log_ball_volume - float(np.sum(np.log(ratio / size)))

    _check_log_size(log_vol(sums.sum(axis=-1), sizes.sum()), "volume of the polytope")
    est, se = _jackknife(log_vol, (sums, sizes), n_groups)
    return VolumeEstimate(est, se, ph.n_phases, n_chains * n_steps * (2 * ph.n_phases - 1))


@dataclass(frozen=True)
class LatticeCount:
    """Result of :func:`count_lattice_points`.

    Attributes
    ----------
    estimate : float
        Estimated ``|P ∩ Z^n|`` = ``acceptance_rate × volume``.
    stderr : float
        Jackknife standard error of ``estimate`` (volume and acceptance jointly).
    acceptance_rate : float
        Fraction of rounded points of ``P'`` that fell in ``P``.
    volume : float
        Estimated ``vol(P')``.
    volume_stderr : float
        Jackknife standard error of ``volume``.
    n_samples : int
        Rounded points (the denominator of ``acceptance_rate``).
    n_phases : int
        Phases of the volume estimate.
    enlarged : Polytope
        ``P'``.
    """

    estimate: float
    stderr: float
    acceptance_rate: float
    volume: float
    volume_stderr: float
    n_samples: int
    n_phases: int
    enlarged: Polytope

    def confidence_interval(self, level: float = 0.95, n_groups: int = 20) -> tuple[float, float]:
        """``estimate ± t_{level} × stderr`` (Student t with ``n_groups - 1`` degrees).

        Parameters
        ----------
        level : float, default 0.95
            Confidence level, in ``(0, 1)``.
        n_groups : int, default 20
            The ``n_groups`` of the jackknife that gave ``stderr``.

        Returns
        -------
        lower, upper : float
            The ends of the interval.
        """
        q = float(stats.t.ppf(0.5 + level / 2, n_groups - 1))
        return self.estimate - q * self.stderr, self.estimate + q * self.stderr


def count_lattice_points(
    A: Any,
    b: Any = None,
    *,
    c: float = 2.0,
    r: int | None = None,
    cap: bool = True,
    n_chains: int = 1000,
    n_steps: int = 5,
    burn_in: int | None = None,
    n_groups: int = 20,
    random_state: Any = None,
) -> LatticeCount:
    """Estimate ``|P ∩ Z^n|`` for ``P = {Ax <= b}`` by rounding uniform points of ``P'``.

    Vempala (1997) §5.2: with ``P'`` from :func:`enlarge_polytope`, ``p`` uniform in ``P'``
    and ``X(p)`` its randomised rounding, ``Pr(X(p) = x) ∈ [(1 - 2e^{-c^2})/vol(P'),
    1/vol(P')]`` for every lattice point ``x`` of ``P`` (Thm 14), so
    ``acceptance × vol(P')`` estimates the count with relative bias at most ``2e^{-c^2}``
    (and none when the cap binds on every row; see :func:`enlarge_polytope`). ``vol(P')``
    comes from the multiphase method of :func:`estimate_volume` and the acceptance rate
    from rounding the hit-and-run points of its last phase (uniform in ``P'``), so both use
    the same independent chains and one jackknife over groups of chains gives the standard
    error of the product.

    Parameters
    ----------
    A : array-like of shape (m, n), or Polytope
        The constraint matrix of ``P``, or ``P`` itself.
    b : array-like of shape (m,), optional
        Omitted when ``A`` is a :class:`Polytope`.
    c : float, default 2.0
        The enlargement, as in :func:`enlarge_polytope`.
    r : int, optional
        As in :func:`enlarge_polytope`.
    cap : bool, default True
        As in :func:`enlarge_polytope`.
    n_chains : int, default 1000
        As in :func:`estimate_volume`.
    n_steps : int, default 5
        As in :func:`estimate_volume`; ``n_chains × n_steps × n_phases`` points are
        rounded.
    burn_in : int, optional
        As in :func:`estimate_volume`.
    n_groups : int, default 20
        As in :func:`estimate_volume`.
    random_state : None, int or RandomState
        As in :func:`estimate_volume`.

    Returns
    -------
    LatticeCount
        The count estimate with its standard error, the acceptance rate and ``vol(P')``.

    Examples
    --------
    >>> from kernelkit.geometry.lattice import count_lattice_points
    >>> from kernelkit.geometry.polytopes import simplex_polytope
    >>> res = count_lattice_points(simplex_polytope(3, 6), random_state=0)  # C(9, 3) = 84
    >>> lo, hi = res.confidence_interval()
    >>> bool(lo <= 84 <= hi), abs(res.estimate / 84 - 1) < 0.1
    (True, True)
    """
    P = _as_polytope(A, b)
    n_chains, n_groups, n_steps, burn_in = _check_sizes(
        n_chains, n_groups, n_steps, burn_in, P.n_dims
    )
    rng = _generator(random_state)
    P.check()
    Pp = enlarge_polytope(P, c, r=r, cap=cap)
    ph = _multiphase(Pp, P, n_chains, n_steps, burn_in, rng)
    sums = _group_sums(ph.ratio_sums, n_groups)
    acc = _group_sums(ph.accepted, n_groups)
    sizes = _group_sums(np.ones(n_chains), n_groups)

    def log_vol(ratio: np.ndarray, size: Any) -> float:
        return ph.log_ball_volume - float(np.sum(np.log(ratio / size)))

    def log_count(ratio: np.ndarray, accepted: Any, size: Any) -> float:
        if accepted <= 0:
            return -np.inf
        return log_vol(ratio, size) + math.log(accepted / (size * ph.n_round))

    _check_log_size(log_vol(sums.sum(axis=-1), sizes.sum()), "volume of the enlarged polytope")
    est, se = _jackknife(log_count, (sums, acc, sizes), n_groups)
    vol, vol_se = _jackknife(log_vol, (sums, sizes), n_groups)
    n_samples = n_chains * ph.n_round
    rate = float(ph.accepted.sum() / n_samples)
    if rate == 0.0:
        # nothing accepted: the rule of three bounds the count at 95 %
        est, se = 0.0, 3.0 * vol / n_samples
    return LatticeCount(
        estimate=est,
        stderr=se,
        acceptance_rate=rate,
        volume=vol,
        volume_stderr=vol_se,
        n_samples=n_samples,
        n_phases=ph.n_phases,
        enlarged=Pp,
    )


@dataclass(frozen=True)
class LatticeSample:
    """Result of :func:`sample_lattice_points`.

    Attributes
    ----------
    points : ndarray of shape (n_samples, n)
        Accepted lattice points of ``P``.
    n_proposals : int
        Rounded points of ``P'`` drawn.
    acceptance_rate : float
        ``n_samples / n_proposals``.
    """

    points: np.ndarray
    n_proposals: int
    acceptance_rate: float


def sample_lattice_points(
    polytope: Polytope,
    n_samples: int,
    *,
    c: float = 2.0,
    r: int | None = None,
    cap: bool = True,
    n_steps: int | None = None,
    max_proposals: int = 10**7,
    random_state: Any = None,
) -> LatticeSample:
    """Nearly uniform lattice points of ``P`` by the rejection sampler of Vempala (1997) §5.2.

    Each proposal is an independent hit-and-run chain of ``n_steps`` steps in ``P'`` from
    its Chebyshev centre, rounded by :func:`randomised_rounding`; it is kept if it lies in
    ``P``. By Thm 14 every lattice point of ``P`` has probability within a factor
    ``1 - 2e^{-c^2} - ε`` of the others (ε: the sampler's distance to uniform).

    Parameters
    ----------
    polytope : Polytope
        The polytope ``P``.
    n_samples : int
        Points to return.
    c : float, default 2.0
        The enlargement, as in :func:`enlarge_polytope`.
    r : int, optional
        As in :func:`enlarge_polytope`.
    cap : bool, default True
        As in :func:`enlarge_polytope`.
    n_steps : int, optional
        Hit-and-run steps per proposal; default ``10 n + 20``.
    max_proposals : int, default 10**7
        Give up (``ValueError``) after this many proposals.
    random_state : None, int or RandomState
        Seed of the chains and of the rounding.

    Returns
    -------
    LatticeSample
        The ``n_samples`` accepted points and the number of proposals.

    Raises
    ------
    ValueError
        If fewer than ``n_samples`` points are accepted within ``max_proposals`` proposals.

    Examples
    --------
    >>> from kernelkit.geometry.lattice import sample_lattice_points
    >>> from kernelkit.geometry.polytopes import simplex_polytope
    >>> res = sample_lattice_points(simplex_polytope(2, 2), 600, random_state=0)
    >>> res.points.shape, len({tuple(p) for p in res.points.tolist()})  # all 6 points seen
    ((600, 2), 6)
    """
    P = _check_polytope(polytope)
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    max_proposals = check_int(max_proposals, "max_proposals", minimum=1)
    n_steps = _check_steps(n_steps, P.n_dims)
    rng = _generator(random_state)
    P.check()
    Pp = enlarge_polytope(P, c, r=r, cap=cap)
    start = Pp.interior_point()
    kept: list[np.ndarray] = []
    n_kept, n_prop, rate = 0, 0, 0.5
    while n_kept < n_samples:
        if n_prop >= max_proposals:
            raise ValueError(
                f"only {n_kept} of {n_samples} points accepted after {n_prop} proposals "
                f"(max_proposals={max_proposals}, acceptance {n_kept / n_prop:.3g})"
            )
        batch = int(min(max(1.2 * (n_samples - n_kept) / rate, 256), max_proposals - n_prop))
        X = hit_and_run(Pp, batch, n_steps=n_steps, start=start, random_state=rng)
        Z = randomised_rounding(X, rng)
        ok = Z[P.contains(Z)]
        kept.append(ok)
        n_kept += len(ok)
        n_prop += batch
        rate = max(n_kept / n_prop, 1e-3)
    points = np.vstack(kept)[:n_samples]
    return LatticeSample(points, n_prop, n_kept / n_prop)
