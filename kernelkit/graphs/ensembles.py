"""Random graph ensembles and degree distributions (Urry & Sollich 2013, Sections 3.2-3.3).

The learning curves of Urry & Sollich (2013) are averages over random graphs drawn from an
ensemble defined by its degree distribution ``p(d)``: random ``d``-regular graphs
(``p(d') = δ_{dd'}``), Erdős–Rényi graphs (Poisson degrees) and the *generalised random
graph* of Britton, Deijfen & Martin-Löf (2006), whose degrees are mixed Poisson with a
shifted Pareto law of the means, ``p(λ) = α λ_m^α / λ^{α+1}`` for ``λ >= λ_m`` (the
paper's "power law" graphs, ``α = 2.5``, ``λ_m = 2``).

:class:`DegreeDistribution` is the one description of ``p(d)`` shared by the graph
generators here and by the cavity (population dynamics) solver, which needs the degree
law itself and the *edge-biased* law ``d p(d) / d̄`` of the vertex at the end of a random
edge (Urry & Sollich 2013, Eq. 35).

==============================  ==========================================================
``DegreeDistribution``          finite pmf over ``0..k_max``; ``regular``, ``poisson``,
                                ``pareto_mixed_poisson``, ``from_pmf``; ``sample``,
                                ``sample_edge_biased``, ``moment``
``random_regular_graph``        uniform random ``d``-regular graph (networkx)
``erdos_renyi_graph``           ``G(V, λ / (V - 1))`` (networkx)
``generalized_random_graph``    Britton et al. (2006) with Pareto weights (vectorised)
``configuration_graph``         configuration model, collapsed to a simple graph
==============================  ==========================================================

Every generator returns a simple undirected ``networkx.Graph`` on nodes ``0..V-1`` and takes
``random_state`` (``None``, an int, a ``RandomState`` or a ``Generator``): the same integer
gives the same graph. A graph whose networkx form could not fit in memory (about 800
bytes per vertex and 600 per expected edge, peak, measured) is refused up front with a
``ValueError`` saying how much it would need, as are draws and pmfs beyond memory.

References
----------
P. Urry and P. Sollich. Random walk kernels and learning curves for Gaussian process
regression on random graphs. JMLR 14:1801–1835, 2013.

T. Britton, M. Deijfen and A. Martin-Löf. Generating simple random graphs with prescribed
degree distribution. J. Stat. Phys. 124(6):1377–1397, 2006.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np
from scipy import special, stats

from kernelkit._memory import check_memory
from kernelkit._validation import (
    check_array,
    check_int,
    check_nonnegative_number,
    check_positive_scalar,
    check_random_state,
)

__all__ = [
    "DegreeDistribution",
    "configuration_graph",
    "erdos_renyi_graph",
    "generalized_random_graph",
    "random_regular_graph",
]

#: Default probability mass beyond ``k_max`` that an infinite-support law may drop.
DEFAULT_TAIL_TOL = 1e-12
#: Largest ``k_max`` a truncated law may need (a pmf of 80 MB); beyond it, raise.
MAX_DEGREE = 10**7
#: How far a user pmf may be from summing to one.
_SUM_TOL = 1e-9
#: Pair probabilities evaluated at once by the generalised random graph (memory bound).
_BLOCK_PAIRS = 2**20
#: Peak bytes per vertex and per edge of a generator's networkx result, including the
#: copy into a plain ``networkx.Graph`` and the generator's own lists (measured with
#: tracemalloc on networkx 3: 550-720 bytes per vertex, 200-510 per edge).
_BYTES_PER_VERTEX = 800
_BYTES_PER_EDGE = 600


# ------------------------------------------------------------------ degree distributions
@dataclass(frozen=True, eq=False)
class DegreeDistribution:
    """A degree distribution ``p(d)`` on ``d = 0, 1, ..., k_max``.

    The one description of a graph ensemble's degree law shared by the graph generators
    and the cavity solver (Urry & Sollich 2013, Section 4.1). Laws with infinite support
    (Poisson, mixed Poisson) are truncated at the smallest ``k_max`` whose tail mass
    ``P(D > k_max)`` is at most ``tail_tol`` (default ``1e-12``) and renormalised; the
    dropped mass is kept in :attr:`tail_mass`.

    Parameters
    ----------
    pmf : array-like of shape (k_max + 1,)
        ``pmf[d]`` is the probability of degree ``d``: finite, non-negative and summing to
        one within ``1e-9`` (it is stored as given, never renormalised).
    tail_mass : float, default 0.0
        Probability of degrees above ``k_max`` in the law this pmf truncates (0 for a
        finite law).

    Attributes
    ----------
    pmf : ndarray of float64, shape (k_max + 1,)
        Read-only copy of the probabilities.
    tail_mass : float
        See above.

    See Also
    --------
    configuration_graph : Graphs whose degrees are drawn from a ``DegreeDistribution``.

    Notes
    -----
    The edge-biased law ``q(d) = d p(d) / d̄`` (:attr:`edge_biased_pmf`) is the degree of
    the vertex reached by following a uniformly random edge; ``q(d + 1)`` is the law of its
    *excess degree* ``d``, the number of further neighbours, which drives the cavity
    recursion (Urry & Sollich 2013, Eq. 35). Truncation affects it more than ``p``: for a
    power-law tail ``p(d) ~ d^{-α-1}`` the dropped edge-biased mass is of order
    ``(α / (α - 1)) k_max tail_mass / d̄``.

    Examples
    --------
    >>> from kernelkit.graphs.ensembles import DegreeDistribution
    >>> p = DegreeDistribution.from_pmf([0.25, 0.25, 0.5])
    >>> p.mean
    1.25
    >>> p.edge_biased_pmf
    array([0. , 0.2, 0.8])
    >>> p.sample(5, random_state=0)
    array([2, 2, 2, 2, 1])
    >>> DegreeDistribution.poisson(3.0)
    DegreeDistribution(k_max=22, mean=3, tail_mass=2.1e-13)
    """

    pmf: np.ndarray
    tail_mass: float = field(default=0.0)

    def __post_init__(self) -> None:
        pmf = check_array(self.pmf, "pmf", ndim=1, dtype=np.float64).astype(np.float64)
        if np.any(pmf < 0):
            d = int(np.flatnonzero(pmf < 0)[0])
            raise ValueError(f"pmf must be non-negative, got pmf[{d}] = {pmf[d]!r}")
        total = math.fsum(pmf.tolist())
        if abs(total - 1.0) > _SUM_TOL:
            raise ValueError(
                f"pmf must sum to 1 (within {_SUM_TOL:g}), got sum {total!r}; it is never "
                "renormalised for you"
            )
        tail = check_nonnegative_number(self.tail_mass, "tail_mass")
        if tail >= 1.0:
            raise ValueError(f"tail_mass must be in [0, 1), got {tail!r}")
        pmf.setflags(write=False)
        object.__setattr__(self, "pmf", pmf)
        object.__setattr__(self, "tail_mass", tail)

    def __repr__(self) -> str:
        return (
            f"DegreeDistribution(k_max={self.k_max}, mean={self.mean:.6g}, "
            f"tail_mass={self.tail_mass:.2g})"
        )

    # -------------------------------------------------------------- constructors
    @classmethod
    def from_pmf(cls, pmf: Any) -> DegreeDistribution:
        """The law with ``p(d) = pmf[d]``, checked: 1-D, finite, ``>= 0``, sums to one.

        Parameters
        ----------
        pmf : array-like of shape (k_max + 1,)
            Probabilities of degrees ``0..k_max``. A pmf that does not sum to one within
            ``1e-9`` is a ``ValueError`` (it is not renormalised silently).

        Returns
        -------
        DegreeDistribution

        Examples
        --------
        >>> from kernelkit.graphs.ensembles import DegreeDistribution
        >>> DegreeDistribution.from_pmf([0.0, 0.5, 0.5]).support
        array([1, 2])
        """
        return cls(pmf)

    @classmethod
    def regular(cls, d: int) -> DegreeDistribution:
        """Every vertex has degree ``d``: ``p(d') = δ_{dd'}`` (random regular graphs).

        Parameters
        ----------
        d : int
            The degree, ``>= 0``.

        Returns
        -------
        DegreeDistribution
            The point mass at ``d`` (``k_max = d``).

        Examples
        --------
        >>> from kernelkit.graphs.ensembles import DegreeDistribution
        >>> DegreeDistribution.regular(3).pmf
        array([0., 0., 0., 1.])
        """
        d = check_int(d, "d", minimum=0)
        check_memory(24 * (d + 1), f"DegreeDistribution.regular(d={d}): a pmf of d + 1 entries")
        pmf = np.zeros(d + 1)
        pmf[d] = 1.0
        return cls(pmf)

    @classmethod
    def poisson(cls, mean: float, *, tail_tol: float = DEFAULT_TAIL_TOL) -> DegreeDistribution:
        """Poisson degrees ``p(d) = λ^d e^{-λ} / d!`` (Erdős–Rényi graphs in the large-V limit).

        Parameters
        ----------
        mean : float
            ``λ >= 0``, the mean degree.
        tail_tol : float, default 1e-12
            Largest probability ``P(D > k_max)`` dropped by the truncation.

        Examples
        --------
        >>> from kernelkit.graphs.ensembles import DegreeDistribution
        >>> p = DegreeDistribution.poisson(3.0)
        >>> round(p.mean, 9), p.tail_mass <= 1e-12
        (3.0, True)
        """
        mean = check_nonnegative_number(mean, "mean")
        tail_tol = _check_tail_tol(tail_tol)
        if mean == 0.0:
            return cls(np.ones(1))
        if mean > MAX_DEGREE:  # k_max > mean: beyond the limit whatever tail_tol is
            raise ValueError(
                f"mean must be at most MAX_DEGREE = {MAX_DEGREE} (the pmf is held up to a "
                f"k_max above the mean), got {mean!r}"
            )
        guess = float(stats.poisson.isf(tail_tol, mean))  # NaN where SciPy gives up
        k_max = int(guess) if math.isfinite(guess) else math.ceil(mean)
        k_max = _smallest_degree(lambda k: float(stats.poisson.sf(k, mean)), tail_tol, k_max)
        _check_k_max(k_max, "mean")
        pmf = stats.poisson.pmf(np.arange(k_max + 1), mean)
        return cls(pmf / math.fsum(pmf.tolist()), float(stats.poisson.sf(k_max, mean)))

    @classmethod
    def pareto_mixed_poisson(
        cls, exponent: float, lambda_m: float, *, tail_tol: float = DEFAULT_TAIL_TOL
    ) -> DegreeDistribution:
        """Mixed Poisson degrees with shifted-Pareto means (Britton et al. 2006).

        ``p(d) = ∫ Poisson(d; λ) p(λ) dλ`` with ``p(λ) = α λ_m^α / λ^{α+1}`` for
        ``λ >= λ_m`` (Urry & Sollich 2013, Section 3.2: ``α = 2.5``, ``λ_m = 2``), the
        large-V degree law of :func:`generalized_random_graph`. In closed form

        ``p(d) = α λ_m^α Γ(d - α, λ_m) / d!``

        with the upper incomplete gamma function, evaluated as ``gammaincc · gamma`` in logs
        for ``d > α`` and, where ``d - α <= 0``, by its continued fraction (``λ_m >= 1``) or
        the recurrence ``Γ(s, x) = (Γ(s + 1, x) - x^s e^{-x}) / s`` from ``Γ(0, x) = E_1(x)``
        (``λ_m < 1``); relative accuracy about ``1e-12`` (checked against quadrature). The
        dropped tail is exact too: ``P(D > k) = P(k + 1, λ_m) + λ_m^α Γ(k + 1 - α, λ_m) / k!``
        (``P`` the regularised lower incomplete gamma function).

        Parameters
        ----------
        exponent : float
            The Pareto exponent ``α > 1`` (a finite mean degree ``α λ_m / (α - 1)``). The
            tail is ``p(d) ~ α λ_m^α d^{-α-1}``.
        lambda_m : float
            The lower cutoff ``λ_m > 0`` of the Poisson means.
        tail_tol : float, default 1e-12
            Largest probability ``P(D > k_max)`` dropped by the truncation. The tail is
            heavy, so ``k_max ≈ λ_m tail_tol^{-1/α}``: 126193 for ``α = 2.5``,
            ``λ_m = 2``. A law that would need ``k_max > 10**7`` is refused (ask for a
            larger ``tail_tol``).

        Examples
        --------
        >>> from kernelkit.graphs.ensembles import DegreeDistribution
        >>> p = DegreeDistribution.pareto_mixed_poisson(2.5, 2.0)
        >>> p.k_max, round(p.mean, 5)  # α λ_m / (α - 1) = 3.33333
        (126193, 3.33333)
        >>> p.pmf[:4].round(4)
        array([0.0684, 0.1673, 0.2128, 0.1901])
        """
        alpha = check_positive_scalar(exponent, "exponent")
        if alpha <= 1.0:
            raise ValueError(
                f"exponent must be > 1 (a finite mean degree), got {exponent!r}; the paper uses 2.5"
            )
        lam = check_positive_scalar(lambda_m, "lambda_m")
        tail_tol = _check_tail_tol(tail_tol)
        # P(D > k) ≈ P(λ > k) = (λ_m / k)^α for the heavy tail, and at least the Poisson(λ_m)
        # tail (D dominates it): grow the guess until it is enough, then take the smallest.
        heavy = lam * tail_tol ** (-1.0 / alpha)  # may be far beyond MAX_DEGREE, or inf
        if not heavy <= MAX_DEGREE:
            _check_k_max(MAX_DEGREE + 1, "exponent, lambda_m and tail_tol")
        light = float(stats.poisson.isf(tail_tol, lam))  # NaN where SciPy gives up
        k_max = max(math.ceil(heavy), int(light) if math.isfinite(light) else math.ceil(lam))
        while _pareto_mixed_poisson_tail(np.array([k_max]), alpha, lam)[0] > tail_tol:
            _check_k_max(k_max, "exponent")
            k_max = math.ceil(1.25 * k_max) + 1
        _check_k_max(k_max, "exponent")
        tails = _pareto_mixed_poisson_tail(np.arange(k_max + 1), alpha, lam)  # decreasing
        k_max = int(np.argmax(tails <= tail_tol))
        pmf = np.exp(_pareto_mixed_poisson_log_pmf(np.arange(k_max + 1), alpha, lam))
        return cls(pmf / math.fsum(pmf.tolist()), float(tails[k_max]))

    # -------------------------------------------------------------- properties
    @property
    def k_max(self) -> int:
        """The largest degree held (``len(pmf) - 1``)."""
        return self.pmf.shape[0] - 1

    @property
    def support(self) -> np.ndarray:
        """The degrees with positive probability."""
        return np.flatnonzero(self.pmf > 0)

    @property
    def mean(self) -> float:
        """The mean degree ``d̄ = Σ d p(d)``."""
        return self.moment(1)

    def moment(self, order: int) -> float:
        """The raw moment ``Σ_d d^order p(d)`` (of the truncated law).

        Parameters
        ----------
        order : int
            The order of the moment, ``>= 0``.

        Returns
        -------
        float
            ``Σ_d d^order p(d)`` over ``d = 0..k_max``.

        Examples
        --------
        >>> from kernelkit.graphs.ensembles import DegreeDistribution
        >>> DegreeDistribution.regular(3).moment(2)
        9.0
        """
        order = check_int(order, "order", minimum=0)
        if order == 0 or self.k_max <= 1 or order * math.log(self.k_max) < 700.0:
            degrees = np.arange(self.k_max + 1, dtype=np.float64)
            return float(math.fsum((degrees**order * self.pmf).tolist()))
        # k_max^order beyond the float range: the sum in logs, sum_d exp(order log d + log p)
        d = self.support[self.support > 0]
        if d.size == 0:
            return 0.0
        logs = float(order) * np.log(d.astype(np.float64)) + np.log(self.pmf[d])
        top = float(logs.max())
        log_moment = top + math.log(math.fsum(np.exp(logs - top).tolist()))
        if log_moment > math.log(np.finfo(np.float64).max):
            raise OverflowError(
                f"the moment of order {order} of this law is about "
                f"1e{log_moment / math.log(10.0):.0f}, beyond the float64 range; ask for a "
                "lower order"
            )
        return math.exp(log_moment)

    @property
    def edge_biased_pmf(self) -> np.ndarray:
        """``q(d) = d p(d) / d̄``: the degree at the end of a uniformly random edge.

        ``edge_biased_pmf[1:]`` is the law of the excess degree ``d - 1``. A law with mean
        zero (no edges) raises ``ValueError``.
        """
        q = self._edge_biased.copy()
        q.setflags(write=False)
        return q

    # -------------------------------------------------------------- sampling
    def sample(self, size: int | tuple[int, ...], random_state: Any = None) -> np.ndarray:
        """Degrees drawn i.i.d. from ``p(d)``.

        Parameters
        ----------
        size : int or tuple of int
            Output shape.
        random_state : None, int, RandomState or Generator
            Source of randomness.

        Returns
        -------
        ndarray of int64 with shape ``size``
            The sampled degrees, in ``0..k_max``.

        Examples
        --------
        >>> from kernelkit.graphs.ensembles import DegreeDistribution
        >>> DegreeDistribution.poisson(3.0).sample((2, 3), random_state=1)
        array([[2, 4, 0],
               [2, 1, 1]])
        """
        size = _check_size(size, "DegreeDistribution.sample")
        return _inverse_cdf(self._cdf, size, check_random_state(random_state))

    def sample_edge_biased(
        self, size: int | tuple[int, ...], random_state: Any = None
    ) -> np.ndarray:
        """Degrees drawn i.i.d. from the edge-biased law ``d p(d) / d̄``.

        What the cavity population update draws (Urry & Sollich 2013, Eq. 35): the degree
        of the vertex at the end of a random edge (subtract one for its excess degree).

        Parameters
        ----------
        size : int or tuple of int
            Output shape.
        random_state : None, int, RandomState or Generator
            Source of randomness.

        Returns
        -------
        ndarray of int64 with shape ``size``
            The sampled degrees, in ``1..k_max``.

        Raises
        ------
        ValueError
            The law has mean 0 (no edges), so it has no edge-biased law.

        Examples
        --------
        >>> from kernelkit.graphs.ensembles import DegreeDistribution
        >>> p = DegreeDistribution.from_pmf([0.5, 0.0, 0.5])
        >>> p.sample_edge_biased(4, random_state=0)
        array([2, 2, 2, 2])
        """
        size = _check_size(size, "DegreeDistribution.sample_edge_biased")
        return _inverse_cdf(self._edge_cdf, size, check_random_state(random_state))

    @cached_property
    def _edge_biased(self) -> np.ndarray:
        mean = self.mean
        if mean == 0.0:
            raise ValueError(
                "the degree distribution has mean 0 (no edges), so it has no edge-biased law"
            )
        return np.arange(self.k_max + 1) * self.pmf / mean

    @cached_property
    def _cdf(self) -> np.ndarray:
        return np.cumsum(self.pmf)

    @cached_property
    def _edge_cdf(self) -> np.ndarray:
        return np.cumsum(self._edge_biased)


def _inverse_cdf(cdf: np.ndarray, size: Any, rng: np.random.RandomState) -> np.ndarray:
    """Draws ``d`` with ``P(d) ∝ cdf[d] - cdf[d - 1]`` (``cdf`` need not end exactly at 1)."""
    u = rng.random_sample(size) * cdf[-1]
    out = np.searchsorted(cdf, u, side="right")
    return np.minimum(out, cdf.shape[0] - 1).astype(np.int64)


def _check_size(size: Any, request: str) -> int | tuple[int, ...]:
    """``size`` checked, and its draws within memory (about 32 bytes each: the uniforms,
    the indices and their int64 copy)."""
    if isinstance(size, tuple):
        size = tuple(check_int(s, "size", minimum=0) for s in size)
        n = math.prod(size)
    else:
        size = n = check_int(size, "size", minimum=0)
    check_memory(32 * n, f"{request}(size={size!r}): {n} draws", "draw fewer at a time")
    return size


def _check_graph_memory(request: str, n_vertices: int, n_edges: float, extra: int = 0) -> None:
    """Refuse a graph whose networkx form (:data:`_BYTES_PER_VERTEX`,
    :data:`_BYTES_PER_EDGE`) could not fit in memory; ``n_edges`` is its expected edge
    count."""
    n_bytes = _BYTES_PER_VERTEX * n_vertices + int(_BYTES_PER_EDGE * n_edges) + extra
    check_memory(
        n_bytes,
        f"{request}: a networkx graph with {n_vertices} vertices and about {n_edges:.3g} edges",
        "ask for fewer vertices (networkx holds a few hundred bytes per vertex and edge)",
    )


def _check_tail_tol(tail_tol: Any) -> float:
    tol = check_positive_scalar(tail_tol, "tail_tol")
    if tol >= 1.0:
        raise ValueError(f"tail_tol must be in (0, 1), got {tail_tol!r}")
    return tol


def _smallest_degree(tail: Any, tail_tol: float, guess: int) -> int:
    """The smallest ``k >= 0`` with ``tail(k) <= tail_tol`` for a decreasing ``tail``,
    from a guess: doubling up from it, then bisection (``O(log k)`` evaluations, with
    :func:`_check_k_max` on the way up)."""
    lo, hi = -1, max(guess, 0)  # tail(lo) > tol is assumed for lo = -1
    while tail(hi) > tail_tol:
        _check_k_max(hi, "mean")
        lo, hi = hi, 2 * hi + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if tail(mid) <= tail_tol:
            hi = mid
        else:
            lo = mid
    return hi


def _check_k_max(k_max: int, name: str) -> None:
    if k_max > MAX_DEGREE:
        raise ValueError(
            f"this {name} needs k_max > {MAX_DEGREE} to keep the tail mass below tail_tol; "
            "pass a larger tail_tol"
        )


def _pareto_mixed_poisson_log_pmf(k: np.ndarray, alpha: float, x: float) -> np.ndarray:
    """``log p(k)``, ``p(k) = α x^α Γ(k - α, x) / k!`` (Pareto-mixed Poisson, ``x = λ_m``)."""
    return (
        math.log(alpha)
        + alpha * math.log(x)
        + _log_upper_gamma(k - alpha, x)
        - special.gammaln(k + 1)
    )


def _pareto_mixed_poisson_tail(k: np.ndarray, alpha: float, x: float) -> np.ndarray:
    """``P(D > k)`` for the Pareto-mixed Poisson law, in closed form.

    ``P(D > k) = E[P(Gamma(k + 1) <= Λ)] = P(Gamma(k + 1) <= x) + x^α E[G^{-α}; G > x]`` with
    ``G ~ Gamma(k + 1)`` (exchange the two integrals), that is
    ``gammainc(k + 1, x) + x^α Γ(k + 1 - α, x) / k!``.
    """
    with np.errstate(under="ignore"):
        return special.gammainc(k + 1, x) + np.exp(
            alpha * math.log(x) + _log_upper_gamma(k + 1 - alpha, x) - special.gammaln(k + 1)
        )


def _log_upper_gamma(s: np.ndarray, x: float) -> np.ndarray:
    """``log Γ(s, x)`` for real ``s`` (any sign) and ``x > 0``.

    ``s > 0``: ``gammaincc(s, x) Γ(s)`` in logs (``-inf`` where it underflows). ``s <= 0``:
    through ``R(s) = Γ(s, x) e^x x^{-s}`` (Tricomi's ``U(1, 1 + s, x)``), by the continued
    fraction of Γ(s, x) (Numerical Recipes ``gcf``, modified Lentz) for ``x >= 1``, and for
    ``x < 1`` by the downward recurrence ``R(t) = (x R(t + 1) - 1) / t`` (from
    ``Γ(t + 1, x) = t Γ(t, x) + x^t e^{-x}``), stable there, from ``t`` in ``[0, 1)`` with
    ``Γ(0, x) = E_1(x)``.
    """
    s = np.asarray(s, dtype=np.float64)
    out = np.empty(s.shape)
    high = s > 0
    with np.errstate(divide="ignore"):
        out[high] = np.log(special.gammaincc(s[high], x)) + special.gammaln(s[high])
    low = s[~high]
    if low.size:
        r = _scaled_upper_gamma_cf(low, x) if x >= 1.0 else _scaled_upper_gamma_rec(low, x)
        out[~high] = np.log(r) + low * math.log(x) - x
    return out


def _scaled_upper_gamma_cf(s: np.ndarray, x: float) -> np.ndarray:
    """``Γ(s, x) e^x x^{-s}`` by its continued fraction (all ``s <= 0``, ``x >= 1``)."""
    tiny = 1e-300
    b = x + 1.0 - s
    c = np.full(s.shape, 1.0 / tiny)
    d = 1.0 / b
    h = d.copy()
    for i in range(1, 100_000):  # about 250 terms at x = 1, 15 at x = 40
        an = -i * (i - s)
        b = b + 2.0
        d = an * d + b
        d[np.abs(d) < tiny] = tiny
        c = b + an / c
        c[np.abs(c) < tiny] = tiny
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) < 1e-16):
            break
    return h


def _scaled_upper_gamma_rec(s: np.ndarray, x: float) -> np.ndarray:
    """``Γ(s, x) e^x x^{-s}`` by downward recurrence (all ``s <= 0``, ``x < 1``)."""
    out = np.empty(s.shape)
    for i, target in enumerate(s.tolist()):  # at most ceil(α) values of ceil(α) steps
        t = target - math.floor(target)  # in [0, 1)
        if t == 0.0:
            r = special.exp1(x) * math.exp(x)
        else:
            r = special.gammaincc(t, x) * special.gamma(t) * math.exp(x) * x ** (-t)
        while t > target + 0.5:
            t -= 1.0
            r = (x * r - 1.0) / t
        out[i] = r
    return out


# ------------------------------------------------------------------ graph generators
def random_regular_graph(d: int, n_vertices: int, *, random_state: Any = None) -> nx.Graph:
    """A uniformly random simple ``d``-regular graph on ``n_vertices`` vertices.

    Wraps :func:`networkx.random_regular_graph` (Steger & Wormald's algorithm). The paper's
    first ensemble (Urry & Sollich 2013, ``d = 3``).

    Parameters
    ----------
    d : int
        The degree, ``0 <= d < n_vertices``; ``n_vertices * d`` must be even.
    n_vertices : int
        Number of vertices ``V >= 1``.
    random_state : None, int, RandomState or Generator
        Source of randomness.

    Returns
    -------
    networkx.Graph
        Nodes ``0..V-1``.

    Examples
    --------
    >>> from kernelkit.graphs.ensembles import random_regular_graph
    >>> G = random_regular_graph(3, 10, random_state=0)
    >>> sorted({deg for _, deg in G.degree()}), G.number_of_edges()
    ([3], 15)
    """
    d = check_int(d, "d", minimum=0)
    n = check_int(n_vertices, "n_vertices", minimum=1)
    if d >= n:
        raise ValueError(f"d must be < n_vertices = {n} for a simple graph, got d = {d}")
    if (n * d) % 2:
        raise ValueError(f"n_vertices * d must be even, got n_vertices = {n}, d = {d}")
    _check_graph_memory(f"random_regular_graph(d={d}, n_vertices={n})", n, n * d / 2)
    rng = check_random_state(random_state)
    return nx.Graph(nx.random_regular_graph(d, n, seed=rng))


def erdos_renyi_graph(n_vertices: int, mean_degree: float, *, random_state: Any = None) -> nx.Graph:
    """An Erdős–Rényi graph ``G(V, p)`` with expected degree ``λ = p (V - 1)``.

    Each of the ``V (V - 1) / 2`` edges is present independently with probability
    ``p = mean_degree / (V - 1)``; degrees are Binomial, Poisson(λ) as ``V → ∞`` (Urry &
    Sollich 2013 use ``λ = 3``). Wraps :func:`networkx.fast_gnp_random_graph` (expected
    time ``O(V + E)``).

    Parameters
    ----------
    n_vertices : int
        Number of vertices ``V >= 1``.
    mean_degree : float
        ``λ`` with ``0 <= λ <= V - 1``.
    random_state : None, int, RandomState or Generator
        Source of randomness.

    Returns
    -------
    networkx.Graph
        Nodes ``0..V-1``.

    Examples
    --------
    >>> from kernelkit.graphs.ensembles import erdos_renyi_graph
    >>> G = erdos_renyi_graph(1000, 3.0, random_state=0)
    >>> round(2 * G.number_of_edges() / 1000, 1)
    2.9
    """
    n = check_int(n_vertices, "n_vertices", minimum=1)
    lam = check_nonnegative_number(mean_degree, "mean_degree")
    if lam > n - 1:
        raise ValueError(f"mean_degree must be <= n_vertices - 1 = {n - 1}, got {mean_degree!r}")
    _check_graph_memory(f"erdos_renyi_graph(n_vertices={n}, mean_degree={lam!r})", n, n * lam / 2)
    p = lam / (n - 1) if n > 1 else 0.0
    rng = check_random_state(random_state)
    if 0.0 < p < 2.0**-40:
        # networkx's skipping sampler divides by log(1 - p): 0 for p below 2^-53 (a
        # ZeroDivisionError), inexact near it; for such p the edges are so few that they
        # are drawn directly: Binomial(V (V - 1) / 2, p) of them, distinct uniform pairs
        return _sparse_gnp(n, p, rng)
    return nx.Graph(nx.fast_gnp_random_graph(n, p, seed=rng))


def _sparse_gnp(n: int, p: float, rng: np.random.RandomState) -> nx.Graph:
    """``G(n, p)`` for a tiny ``p``: ``Binomial(n (n - 1) / 2, p)`` edges, drawn as
    distinct uniformly random pairs (rejection of repeats; the expected count is below
    ``n^2 2^-40``, so repeats are rare)."""
    n_pairs = n * (n - 1) // 2
    m = int(rng.binomial(n_pairs, p)) if n_pairs < 2**62 else int(rng.poisson(n_pairs * p))
    G = nx.empty_graph(n)
    while G.number_of_edges() < m:
        i, j = (int(v) for v in rng.randint(0, n, size=2))
        if i != j:
            G.add_edge(min(i, j), max(i, j))
    return G


def generalized_random_graph(
    n_vertices: int, exponent: float, lambda_m: float, *, random_state: Any = None
) -> nx.Graph:
    """The generalised random graph of Britton et al. (2006) with Pareto weights.

    Vertex ``i`` gets an i.i.d. weight ``w_i`` from the shifted Pareto density
    ``p(w) = α λ_m^α / w^{α+1}`` (``w >= λ_m``) and each edge ``{i, j}`` is present
    independently with probability ``w_i w_j / (L + w_i w_j)``, ``L = Σ_k w_k``. As
    ``V → ∞`` the degree of vertex ``i`` is Poisson(``w_i``), so the degree law tends to
    :meth:`DegreeDistribution.pareto_mixed_poisson` (the "power law" graphs of Urry &
    Sollich 2013 use ``α = 2.5``, ``λ_m = 2``).

    All ``V (V - 1) / 2`` pairs are sampled, vectorised over blocks of rows of the upper
    triangle (``O(V^2)`` time, bounded memory; about a second for ``V = 10000``). The random
    stream does not depend on the block size.

    Parameters
    ----------
    n_vertices : int
        Number of vertices ``V >= 1``.
    exponent : float
        The Pareto exponent ``α > 1``.
    lambda_m : float
        The smallest weight ``λ_m > 0``.
    random_state : None, int, RandomState or Generator
        Source of randomness.

    Returns
    -------
    networkx.Graph
        Nodes ``0..V-1``, each with its weight as node attribute ``"weight"``.

    Examples
    --------
    >>> from kernelkit.graphs.ensembles import generalized_random_graph
    >>> G = generalized_random_graph(2000, 2.5, 2.0, random_state=0)
    >>> G.number_of_nodes(), min(w for _, w in G.nodes(data="weight")) >= 2.0
    (2000, True)
    >>> round(2 * G.number_of_edges() / 2000, 1)  # near α λ_m / (α - 1) = 3.33
    3.4
    """
    n = check_int(n_vertices, "n_vertices", minimum=1)
    alpha = check_positive_scalar(exponent, "exponent")
    if alpha <= 1.0:
        raise ValueError(f"exponent must be > 1 (a finite mean weight), got {exponent!r}")
    lam = check_positive_scalar(lambda_m, "lambda_m")
    # 1 - U >= 2^-53, so every weight is at most λ_m 2^(53/α): finite, or refused
    top = math.log(lam) + 53.0 * math.log(2.0) / alpha
    if top >= math.log(np.finfo(np.float64).max):
        raise ValueError(
            f"lambda_m = {lambda_m!r} with exponent = {exponent!r} can give weights "
            f"λ_m 2^(53/α) beyond the float range; lambda_m must be below "
            f"{np.finfo(np.float64).max / 2.0 ** (53.0 / alpha):.3g}"
        )
    mean_degree = alpha * lam / (alpha - 1.0)  # E[w], the large-V mean degree
    _check_graph_memory(
        f"generalized_random_graph(n_vertices={n}, ...)",
        n,
        min(n * (n - 1) / 2, n * mean_degree / 2),
        extra=64 * _BLOCK_PAIRS + 8 * n,
    )
    rng = check_random_state(random_state)
    # Inverse CDF of the Pareto law: P(w > t) = (λ_m / t)^α; 1 - U lies in (0, 1].
    weights = lam * (1.0 - rng.random_sample(n)) ** (-1.0 / alpha)
    rows, cols = _weighted_pair_edges(weights, rng)
    G = nx.empty_graph(n)
    G.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
    nx.set_node_attributes(G, dict(enumerate(weights.tolist())), "weight")
    return G


def _weighted_pair_edges(
    weights: np.ndarray, rng: np.random.RandomState, block_pairs: int = _BLOCK_PAIRS
) -> tuple[np.ndarray, np.ndarray]:
    """Edges ``i < j`` kept with probability ``w_i w_j / (L + w_i w_j)`` (Britton et al.).

    One uniform per pair, drawn in row-major order of the upper triangle, so the result
    depends on ``rng`` only, not on ``block_pairs``.
    """
    n = weights.shape[0]
    # w_i w_j / (L + w_i w_j) as written while the products and the sum stay far inside
    # the float range; else, with the weights scaled by 2^-k (exact; k the exponent of
    # the largest), as 1 / (1 + L / (w_i w_j)), L / (w_i w_j) = 2^-k (L' / w'_i) / w'_j,
    # which neither over- nor underflows on the way (L' >= w'_i, and all weights lie
    # within a factor 2^53 of each other): the same probabilities, without inf / inf
    top = float(weights.max()) if n else 0.0
    direct = top < 2.0**450 and n * top < 2.0**1000
    if direct:
        total = float(weights.sum())
    else:
        shift = math.frexp(top)[1]
        scaled = np.ldexp(weights, -shift)
        total = float(scaled.sum())
    rows_out, cols_out = [], []
    start = 0
    while start < n - 1:
        # rows start..stop-1 against columns start..n-1: at most ~block_pairs entries
        stop = min(n - 1, start + max(1, block_pairs // (n - start)))
        rows = np.arange(start, stop)
        cols = np.arange(start, n)
        upper = cols[None, :] > rows[:, None]
        if direct:
            prod = weights[start:stop, None] * weights[None, start:]
            prob = (prod / (total + prod))[upper]  # row-major: row i, then columns i+1..n-1
        else:
            with np.errstate(under="ignore"):
                ratio = np.ldexp((total / scaled[start:stop, None]) / scaled[None, start:], -shift)
            prob = (1.0 / (1.0 + ratio))[upper]
        keep = rng.random_sample(prob.shape[0]) < prob
        r, c = np.nonzero(upper)
        rows_out.append(r[keep] + start)
        cols_out.append(c[keep] + start)
        start = stop
    if not rows_out:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(rows_out), np.concatenate(cols_out)


def configuration_graph(
    degrees: DegreeDistribution | Any,
    n_vertices: int | None = None,
    *,
    random_state: Any = None,
) -> nx.Graph:
    """A configuration-model graph, made simple, from a degree law or a degree sequence.

    Degrees are drawn i.i.d. from ``degrees`` (a :class:`DegreeDistribution`) for
    ``n_vertices`` vertices, or taken from a given sequence; stubs are paired uniformly at
    random (:func:`networkx.configuration_model`); then parallel edges are collapsed into
    one and self-loops removed. The result is a simple graph whose degrees are at most the
    drawn ones, and equal to them for all but a vanishing fraction of vertices when the
    degree law has a finite second moment (Urry & Sollich 2013 pick graphs uniformly with
    a given degree distribution, Section 3.3).

    Parameters
    ----------
    degrees : DegreeDistribution or array-like of int
        The degree law, or a degree sequence (non-negative integers with an even sum; a
        pmf is not accepted here: wrap it with :meth:`DegreeDistribution.from_pmf`).
    n_vertices : int, optional
        Number of vertices (required with a ``DegreeDistribution``; with a sequence it must
        be omitted or equal its length). When the ``n_vertices`` drawn degrees have an odd
        sum, one uniformly chosen vertex has its degree redrawn from ``p(d)`` conditioned on
        the opposite parity (the same as redrawing it until the sum is even); a law whose
        degrees all share one parity with an odd ``n_vertices * d`` raises ``ValueError``.
    random_state : None, int, RandomState or Generator
        Source of randomness.

    Returns
    -------
    networkx.Graph
        Nodes ``0..V-1``.

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.graphs.ensembles import DegreeDistribution, configuration_graph
    >>> G = configuration_graph(DegreeDistribution.poisson(3.0), 500, random_state=0)
    >>> G.number_of_nodes(), nx.number_of_selfloops(G)
    (500, 0)
    >>> H = configuration_graph([1, 1, 2, 2], random_state=0)
    >>> sorted(d for _, d in H.degree()) <= [1, 1, 2, 2]
    True
    """
    rng = check_random_state(random_state)
    if isinstance(degrees, DegreeDistribution):
        if n_vertices is None:
            raise ValueError("n_vertices is required when degrees is a DegreeDistribution")
        n = check_int(n_vertices, "n_vertices", minimum=1)
        # the multigraph and its simple copy, and the drawn degrees
        _check_graph_memory(
            f"configuration_graph(n_vertices={n})", n, n * degrees.mean, extra=40 * n
        )
        seq = _even_degree_sequence(degrees, n, rng)
    else:
        seq = _check_degree_sequence(degrees)
        if n_vertices is not None and check_int(n_vertices, "n_vertices") != seq.shape[0]:
            raise ValueError(
                f"n_vertices = {n_vertices} does not match the length {seq.shape[0]} of the "
                "degree sequence; omit n_vertices with a sequence"
            )
        stubs = sum(int(x) for x in seq.tolist())
        _check_graph_memory(
            f"configuration_graph(a degree sequence of {seq.shape[0]} vertices and {stubs} stubs)",
            int(seq.shape[0]),
            float(stubs),  # edges of the multigraph and of its simple copy
        )
    multigraph = nx.configuration_model(seq.tolist(), seed=rng)
    G = nx.Graph(multigraph)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return G


def _even_degree_sequence(
    dist: DegreeDistribution, n: int, rng: np.random.RandomState
) -> np.ndarray:
    seq = dist.sample(n, rng)
    if int(seq.sum()) % 2 == 0:
        return seq
    vertex = int(rng.randint(n))
    flipped = dist.pmf.copy()
    flipped[int(seq[vertex]) % 2 :: 2] = 0.0  # keep the other parity only
    if not flipped.any():
        parity = "even" if seq[vertex] % 2 == 0 else "odd"
        raise ValueError(
            f"every degree of this distribution is {parity}, so n_vertices = {n} gives an odd "
            "degree sum; choose an even n_vertices"
        )
    seq[vertex] = _inverse_cdf(np.cumsum(flipped), None, rng)
    return seq


def _check_degree_sequence(degrees: Any) -> np.ndarray:
    if isinstance(degrees, (str, bytes)) or degrees is None:
        raise TypeError(
            "degrees must be a DegreeDistribution or a sequence of non-negative integers, "
            f"got {type(degrees).__name__}"
        )
    arr = np.asarray(degrees)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(
            "degrees must be a DegreeDistribution or a sequence of non-negative integers, "
            f"got an array of {arr.dtype}"
        )
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"degrees must be a non-empty 1-D degree sequence, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ValueError(
            "degrees must hold non-negative integers (a degree sequence; for a pmf use "
            "DegreeDistribution.from_pmf)"
        )
    if arr.size and float(arr.max()) >= 2.0**53:
        raise ValueError(
            f"degrees must be below 2**53 (a degree is a count of stubs), got {arr.max()!r}"
        )
    seq = arr.astype(np.int64)
    if int(seq.sum()) % 2:
        raise ValueError(f"the degree sequence must have an even sum, got {int(seq.sum())}")
    return seq
