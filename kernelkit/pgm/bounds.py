"""Certified bounds on ``log Z`` and on the MAP score, for models too wide for exact inference.

Exact inference (:mod:`kernelkit.pgm.exact`) costs tables exponential in the induced width
and is refused beyond the memory. The bounds here cost tables of at most ``i_bound + 1``
variables, whatever the width, and tighten as ``i_bound`` grows; with ``i_bound`` at the
induced width of the ordering they are exact.

* :func:`log_partition_bounds`: an **upper bound** on ``log Z`` by weighted mini-bucket
  elimination (Liu & Ihler 2011, "Bounding the partition function using Hölder's
  inequality"), and a **lower bound** from naive mean field (deterministic) and from
  importance sampling with the weighted mini-bucket proposal (Liu, Fisher & Ihler 2015,
  "Probabilistic variational bounds for graphical models"), which holds with a stated
  probability.
* :func:`map_bounds`: an **upper bound** on the MAP score by mini-bucket elimination
  (Dechter & Rish 2003, "Mini-buckets: a general scheme for bounded inference") and the
  local-polytope LP relaxation (:func:`~kernelkit.pgm.relaxations.lp_relaxation`), and a
  **lower bound**: the score of the best assignment decoded from either.

**The i-bound.** Elimination follows :func:`~kernelkit.pgm.exact.elimination_order`
(greedy min-fill, or the model's own order when better). The bucket of a variable ``v``
(the factors and messages whose earliest variable is ``v``) is split greedily into
mini-buckets whose scopes hold ``v`` and at most ``i_bound`` other variables, so that no
table has more than ``i_bound + 1`` variables (a factor of more variables gets a
mini-bucket of its own) and no message more than ``i_bound``. With ``i_bound`` at least
the ordering's induced width no bucket is split and both bounds are exact.

**Hard constraints** (``-inf`` log-potentials) are handled exactly. The values that
generalised arc consistency rules out are forbidden first by unary factors (the same
scores and ``Z``; tighter bounds), and a model that arc consistency finds infeasible gets
``-inf`` bounds at once. Mini-bucket tables keep their ``-inf`` entries, and the upper
bounds are ``-inf`` whenever a mini-bucket pass finds no feasible value; the lower
bounds are ``-inf`` when no feasible assignment is found (then, unless some upper bound
is ``-inf`` too, feasibility is undecided: deciding it is NP-hard in general).

Examples
--------
>>> import networkx as nx
>>> from kernelkit.pgm import exact_log_partition, exact_map, ising
>>> m = ising(nx.grid_2d_graph(6, 6), fields=0.3, couplings=1.0, spins="pm1")
>>> b = log_partition_bounds(m, i_bound=3, random_state=0)
>>> bool(b.lower <= exact_log_partition(m) <= b.upper), b.exact
(True, False)
>>> r = map_bounds(m, i_bound=3)
>>> bool(r.lower <= exact_map(m).score <= r.upper), r.lower == m.score(r.assignment)
(True, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit import _memory
from kernelkit._validation import (
    check_bool,
    check_fraction,
    check_int,
    check_positive_scalar,
    check_random_state,
)
from kernelkit.pgm import _mini_bucket as mb
from kernelkit.pgm._guards import feasible_domains, sum_limit, sum_scale_exponent
from kernelkit.pgm.exact import elimination_order
from kernelkit.pgm.model import DiscreteModel, _check_model
from kernelkit.pgm.relaxations import LPSolverError, lp_relaxation
from kernelkit.pgm.variational import mean_field

__all__ = ["LogPartitionBounds", "MAPBounds", "log_partition_bounds", "map_bounds"]

#: Share of ``time_limit`` spent raising the i-bound; the rest goes to the lower bounds
#: (mean field and sampling for ``log Z``, the LP relaxation for MAP).
_UPPER_SHARE = 0.5
#: The LP optimum comes from HiGHS, which works to feasibility tolerances near 1e-7: it is
#: raised by ``_LP_SLACK * (1 + sum_E max |theta_E|)`` before it is used as a bound.
_LP_SLACK = 1e-7


def _gap(lower: float, upper: float) -> float:
    """``upper - lower``; 0 when both are ``-inf`` (a model with no feasible assignment)."""
    if upper == lower:
        return 0.0
    return upper - lower


@dataclass(frozen=True, eq=False)
class LogPartitionBounds:
    """Bounds on ``log Z`` (see :func:`log_partition_bounds`); natural logarithms.

    Attributes
    ----------
    lower : float
        A lower bound on ``log Z``; it holds with probability at least ``confidence``
        (1.0: always). ``-inf`` when every assignment is forbidden, or when no lower bound
        was found.
    upper : float
        An upper bound on ``log Z`` (always holds); ``-inf`` certifies that every
        assignment is forbidden.
    lower_method : str
        Where ``lower`` comes from: ``"exact"`` (``lower == upper == log Z``),
        ``"mean_field"``, ``"importance_sampling"``, or ``"none"`` (no finite bound found).
    upper_method : str
        ``"weighted_mini_bucket"``, or ``"arc_consistency"`` when arc consistency alone
        shows that every assignment is forbidden.
    confidence : float
        The probability with which ``lower`` holds: ``1 - delta`` when it comes from
        importance sampling, else 1.0.
    i_bound : int
        The i-bound of the mini-bucket pass that gave ``upper`` (0 when arc consistency
        settled it).
    exact : bool
        Whether no bucket had to be split (``i_bound`` reached the induced width of the
        ordering): then ``lower == upper == log Z``.
    estimate : float
        ``log Z_hat``, the log of the importance sampling estimate of ``Z`` (unbiased for
        ``Z``; not a bound); ``log Z`` when ``exact``.
    mean_field_bound : float or None
        The mean-field lower bound (``-inf`` when mean field found no distribution
        avoiding the forbidden values); None when not computed (``exact``).
    sampling_bound : float or None
        The importance sampling lower bound, holding with probability ``>= 1 - delta``
        (``delta = 1 -`` the ``confidence`` argument); None when no sample was drawn
        (``exact``).
    sampling_inequality : str or None
        How ``sampling_bound`` follows from the samples: ``"markov"`` (``estimate +
        log(delta)``) or ``"empirical_bernstein"`` (see :func:`log_partition_bounds`);
        None when no sample was drawn.
    n_samples : int
        The samples behind ``sampling_bound`` and ``estimate`` (0 when ``exact``; a pilot
        of ``n_samples // 10`` more chose the inequality).
    time : float
        Seconds spent.
    """

    lower: float
    upper: float
    lower_method: str
    upper_method: str
    confidence: float
    i_bound: int
    exact: bool
    estimate: float
    mean_field_bound: float | None
    sampling_bound: float | None
    sampling_inequality: str | None
    n_samples: int
    time: float

    @property
    def gap(self) -> float:
        """``upper - lower`` in nats (0 when both are ``-inf``)."""
        return _gap(self.lower, self.upper)

    @property
    def log10_gap(self) -> float:
        """The gap in decimal orders of magnitude of ``Z``: ``gap / ln 10``."""
        return self.gap / math.log(10.0)


@dataclass(frozen=True, eq=False)
class MAPBounds:
    """Bounds on the MAP score ``max_x score(x)`` (see :func:`map_bounds`).

    Attributes
    ----------
    lower : float
        The score of ``assignment``; ``-inf`` when no assignment of finite score was found.
    upper : float
        An upper bound on the MAP score; ``-inf`` certifies that every assignment is
        forbidden.
    assignment : ndarray of int or None
        The best assignment found (``model.score(assignment) == lower``); None when none of
        finite score was found.
    lower_method : str
        Where ``assignment`` comes from (before local search): ``"mini_bucket_decoding"``,
        ``"lp_rounding"``, or ``"none"`` (no feasible assignment found).
    upper_method : str
        ``"mini_bucket"`` or ``"lp_relaxation"``: which bound was the lower; or
        ``"arc_consistency"`` when arc consistency alone shows that every assignment is
        forbidden.
    i_bound : int
        The i-bound of the mini-bucket pass that gave the best mini-bucket bound (0 when
        arc consistency settled it).
    exact : bool
        Whether ``lower == upper``: ``assignment`` is then a MAP assignment.
    time : float
        Seconds spent.
    """

    lower: float
    upper: float
    assignment: np.ndarray | None
    lower_method: str
    upper_method: str
    i_bound: int
    exact: bool
    time: float

    @property
    def gap(self) -> float:
        """``upper - lower`` (0 when both are ``-inf``)."""
        return _gap(self.lower, self.upper)


# -- shared set-up ----------------------------------------------------------------------------


def _check_magnitude(model: DiscreteModel, request: str) -> None:
    """Refuse log-potentials whose sums could overflow (entries near ``1e308``)."""
    if sum_scale_exponent(model):
        raise ValueError(
            f"{request}: the model has log-potentials of magnitude up to "
            f"{sum_limit(len(model.factors)):.3g} or more, whose sums could overflow float64; "
            "scale them down"
        )


def _pruned(model: DiscreteModel) -> DiscreteModel | None:
    """The model with the values that arc consistency rules out forbidden by unary
    factors (the same scores, the same ``Z``: tighter bounds on models with hard
    constraints); None when arc consistency finds that every assignment is forbidden."""
    try:
        D = feasible_domains(model, "bounds")
    except ValueError:
        return None
    if D is None:
        return model
    cards = model.cardinalities
    valid = np.arange(D.shape[1])[None, :] < cards[:, None]
    pruned = np.flatnonzero((valid & ~D).any(axis=1))
    if pruned.size == 0:
        return model
    extra = [((int(v),), np.where(D[v, : cards[v]], 0.0, -np.inf)) for v in pruned]
    return DiscreteModel(cards.tolist(), [*model.factors, *extra])


def _top_plan(
    model: DiscreteModel,
    order: np.ndarray,
    width: int,
    i_bound: int | None,
    memory_limit: int | None,
    request: str,
) -> mb.Plan:
    """The plan of the largest i-bound to use: ``i_bound`` (at most the induced width,
    refused when over the memory), or the largest fitting ``memory_limit``."""
    limit = _memory.memory_limit() if memory_limit is None else memory_limit
    top_i = max(width, 1)
    if i_bound is not None:
        plan = mb.make_plan(model, order, min(i_bound, top_i))
        mb.check_plan_memory(plan, limit, request)
        return plan
    found = mb.fitting_plan(model, order, top_i, limit)
    if found is None:
        smallest = mb.make_plan(model, order, 1)
        raise ValueError(
            f"{request}: even i_bound=1 would need about "
            f"{_memory.format_bytes(smallest.peak_bytes)} of memory (the largest factor "
            f"table has {smallest.max_table} entries), more than memory_limit "
            f"({_memory.format_bytes(limit)})"
        )
    return found


def _rounds(
    model: DiscreteModel,
    order: np.ndarray,
    top: mb.Plan,
    deadline: float | None,
    evaluate: Callable[[mb.Plan], tuple[float, bool]],
) -> None:
    """Evaluate ``top`` alone, or (with a ``deadline``) a rising sequence of i-bounds up
    to ``top``'s while the next pass, predicted from the last one's time per table entry,
    ends before the deadline; ``evaluate(plan) -> (seconds, stop)``. The sequence starts
    at the largest i-bound whose tables hold at most ``_CHEAP`` entries (or four times
    those of ``i_bound = 1``): below that a pass costs about the same whatever the
    i-bound (Python work per bucket), and its bound is looser."""
    if deadline is None:
        evaluate(top)
        return
    plan = mb.make_plan(model, order, 1)
    cheap = max(4 * plan.total_table, _CHEAP)
    for i in range(2, top.i_bound + 1):
        bigger = top if i == top.i_bound else mb.make_plan(model, order, i)
        if bigger.total_table > cheap:
            break
        plan = bigger
    seconds, stop = evaluate(plan)
    while not stop and plan.i_bound < top.i_bound:
        previous = plan
        i = plan.i_bound + 1
        plan = top if i == top.i_bound else mb.make_plan(model, order, i)
        if plan.buckets == previous.buckets:
            continue
        ratio = plan.total_table / max(previous.total_table, 1)
        if time.perf_counter() + seconds * max(ratio, 1.0) > deadline:
            break
        seconds, stop = evaluate(plan)


#: Assignments decoded from each max pass (the greedy one and random ones).
_CANDIDATES = 100

#: Mini-bucket tables of this many entries in all cost little more than the Python work
#: of a pass (see :func:`_rounds`).
_CHEAP = 2**16


def _check_arguments(
    i_bound: Any, memory_limit: Any, time_limit: Any, n_iter: Any
) -> tuple[int | None, int | None, float | None, int]:
    if i_bound is not None:
        i_bound = check_int(i_bound, "i_bound", minimum=1)
    if memory_limit is not None:
        memory_limit = check_int(memory_limit, "memory_limit", minimum=1)
    if time_limit is not None:
        time_limit = check_positive_scalar(time_limit, "time_limit")
    n_iter = check_int(n_iter, "n_iter", minimum=0)
    return i_bound, memory_limit, time_limit, n_iter


def _logsumexp(x: np.ndarray) -> float:
    """``log sum exp`` of a 1-d array; ``-inf`` when empty or all ``-inf``."""
    if x.size == 0:
        return -math.inf
    m = float(x.max())
    if m == -math.inf:
        return m
    return m + math.log(float(np.exp(x - m).sum()))


# -- log Z ------------------------------------------------------------------------------------


def log_partition_bounds(
    model: DiscreteModel,
    *,
    i_bound: int | None = None,
    memory_limit: int | None = None,
    n_samples: int = 1000,
    confidence: float = 0.95,
    n_iter: int = 10,
    time_limit: float | None = None,
    random_state: Any = None,
) -> LogPartitionBounds:
    """Lower and upper bounds on ``log Z`` for models of any induced width.

    **Upper bound**: weighted mini-bucket elimination (Liu & Ihler 2011): each bucket is
    split into mini-buckets of at most ``i_bound + 1`` variables, which eliminate their
    variable by the power sum ``(sum_x f^(1 / w_r))^(w_r)`` with weights ``w_r > 0``,
    ``sum_r w_r = 1`` (Hölder's inequality). The bound holds for any weights and any cost
    shifts between the mini-buckets of a bucket (adding up to zero); ``n_iter`` passes
    tune them: the first from uniform weights with moment matching on local beliefs, each
    later one by moment matching on the beliefs of the pass before and a gradient step on
    the weights, kept only when it lowers the bound.

    **Lower bound**: the larger of

    * the mean-field bound ``E_q[score] + H(q)`` (:func:`~kernelkit.pgm.variational.
      mean_field`; deterministic), and
    * importance sampling from the weighted mini-bucket proposal (Liu, Fisher & Ihler
      2015): ``N`` assignments drawn at once by ancestral sampling in reverse elimination
      order, with weights ``w = exp(score(x)) / q(x)``; their mean ``Z_hat`` is unbiased
      for ``Z``, so by Markov's inequality ``P(Z_hat >= Z / delta) <= delta``: ``log
      Z_hat + log delta`` is a lower bound on ``log Z`` with probability at least ``1 -
      delta``, ``delta = 1 - confidence``. The weights also lie in ``[0, U]``, ``U =
      exp(upper)``, so the empirical Bernstein inequality (Maurer & Pontil 2009) gives
      ``Z >= Z_hat - sqrt(2 V log(2 / delta) / N) - 7 U log(2 / delta) / (3 (N - 1))``
      with probability ``>= 1 - delta`` (``V`` the weights' sample variance), far tighter
      when ``U / Z`` is small. One of the two is used, chosen from a separate pilot
      sample (``n_samples // 10`` draws, not used in the bound, so that the confidence
      holds): the Bernstein bound when, at the ratio ``U / Z`` the pilot suggests, it
      would lose less than Markov's ``log(1 / delta)`` even at the largest variance the
      ratio allows.

    The result says which one ``lower`` is and with what probability it holds.

    Parameters
    ----------
    model : DiscreteModel
        The model; ``-inf`` entries (hard constraints) are allowed.
    i_bound : int >= 1, optional
        The most variables of a mini-bucket besides the one it eliminates (tables of at
        most ``i_bound + 1`` variables). Values above the induced width of the ordering
        are lowered to it (the bounds are then exact). Default: the largest i-bound whose
        tables fit in ``memory_limit`` (which can be slow on wide models: pass
        ``time_limit`` or an ``i_bound`` there).
    memory_limit : int >= 1, optional
        Bytes the passes may take, estimated before anything is allocated: every
        mini-bucket table three times (the best pass's tables, kept for sampling, the
        current pass's and the backward pass's) and four times the largest; default the
        machine's memory (:func:`kernelkit._memory.memory_limit`). An ``i_bound`` that
        does not fit is refused.
    n_samples : int >= 1, default=1000
        Samples of the proposal (with ``time_limit``: per batch, and batches are drawn
        until the time is up).
    confidence : float in (0, 1), default=0.95
        ``1 - delta``: the probability with which the sampling bound holds.
    n_iter : int >= 0, default=10
        Passes of weighted mini-bucket elimination tuning the weights and cost shifts
        (0: one pass with uniform weights and no shifts; each pass costs about three plain
        ones).
    time_limit : float > 0, optional
        Seconds to aim for (anytime mode): the i-bound is raised one at a time towards
        ``i_bound`` (or the memory's largest), from the largest whose tables are tiny,
        while the next pass is predicted to end within half the time; the best bound is
        kept, and its proposal is then sampled in batches of ``n_samples`` until the time
        is up. The first pass and the first batch always run (so the time can be
        exceeded), and mean field is not interrupted. The number of samples depends only
        on the clock, not on their weights, so the estimate stays unbiased.
    random_state : None, int, RandomState or Generator
        Seed of the sampling.

    Returns
    -------
    LogPartitionBounds
        ``lower``, ``upper``, ``gap`` (and ``log10_gap``), where they come from,
        ``confidence``, ``i_bound``, ``exact``, ``estimate``, ``n_samples``, ``time``.

    Raises
    ------
    ValueError
        ``i_bound``, ``n_samples`` or ``memory_limit`` below 1, ``n_iter`` below 0,
        ``time_limit`` not positive, ``confidence`` outside ``(0, 1)``; an ``i_bound``
        whose tables exceed ``memory_limit`` (or no i-bound fitting it); log-potentials
        whose sums could overflow float64 (magnitudes near ``1e308``).
    TypeError
        ``model`` not a DiscreteModel; non-integer ``i_bound``, ``n_samples``,
        ``memory_limit`` or ``n_iter``.

    See Also
    --------
    map_bounds : The same machinery with max elimination.
    kernelkit.pgm.exact.exact_log_partition : Exact, within the memory.

    Notes
    -----
    Every sampled weight is at most ``exp(upper)`` of the proposal's own pass (Liu, Fisher
    & Ihler 2015, by the arithmetic-geometric mean inequality), which keeps the estimate's
    variance finite however heavy-tailed the model. Both bounds are computed in float64:
    they hold up to rounding (relative ``1e-12``-ish).

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm import brute_force_log_partition, ising
    >>> m = ising(nx.grid_2d_graph(4, 4), fields=0.5, couplings=1.5, spins="pm1")
    >>> b = log_partition_bounds(m, i_bound=2, random_state=0)
    >>> bool(b.lower <= brute_force_log_partition(m) <= b.upper), b.confidence in (0.95, 1.0)
    (True, True)
    >>> e = log_partition_bounds(m, i_bound=4)
    >>> e.exact, e.gap, bool(abs(e.upper - brute_force_log_partition(m)) < 1e-9)
    (True, 0.0, True)
    """
    start = time.perf_counter()
    model = _check_model(model)
    i_bound, memory_limit, time_limit, n_iter = _check_arguments(
        i_bound, memory_limit, time_limit, n_iter
    )
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    confidence = check_fraction(confidence, "confidence")
    rng = check_random_state(random_state)
    request = "log_partition_bounds"
    _check_magnitude(model, request)
    work = _pruned(model)
    if work is None:  # arc consistency: every assignment is forbidden
        inf = -math.inf
        seconds = time.perf_counter() - start
        return LogPartitionBounds(
            inf, inf, "exact", "arc_consistency", 1.0, 0, True, inf, None, None, None, 0, seconds
        )
    model = work
    chosen = elimination_order(model)
    top = _top_plan(model, chosen.order, chosen.induced_width, i_bound, memory_limit, request)
    deadline = None if time_limit is None else start + time_limit
    best: list[tuple[mb.Plan, mb.Pass]] = []

    def evaluate(plan: mb.Plan) -> tuple[float, bool]:
        res = mb.run(model, plan, "sum", n_iter)
        if not best or res.bound <= best[0][1].bound:
            best[:] = [(plan, res)]
        return res.seconds, not plan.split or res.bound == -math.inf

    upper_deadline = None if time_limit is None else start + _UPPER_SHARE * time_limit
    _rounds(model, chosen.order, top, upper_deadline, evaluate)
    plan, res = best[0]
    upper = res.bound
    if not plan.split or upper == -math.inf:  # exact (or certainly infeasible)
        return LogPartitionBounds(
            upper,
            upper,
            "exact",
            "weighted_mini_bucket",
            1.0,
            plan.i_bound,
            True,
            upper,
            None,
            None,
            None,
            0,
            time.perf_counter() - start,
        )
    mf_bound = _mean_field_bound(model)
    delta = 1.0 - confidence
    # Chosen before the samples of the bound are drawn (so that the stated confidence
    # holds), from a pilot sample: the empirical Bernstein bound when, at the ratio
    # U / Z ~ exp(upper - log Z_pilot) and the largest variance U Z it allows, it would
    # lose less of Z than Markov's factor delta.
    X, log_q = mb.sample(plan, res, _pilot_size(n_samples), rng)
    pilot = _logsumexp(model.score(X) - log_q) - math.log(X.shape[0])
    inequality = "markov"
    if _bernstein_loss(upper - max(pilot, mf_bound), n_samples, delta) < 1.0 - delta:
        inequality = "empirical_bernstein"
    total, s1, s2, drawn = -math.inf, 0.0, 0.0, 0
    while True:
        t0 = time.perf_counter()
        X, log_q = mb.sample(plan, res, n_samples, rng)
        log_w = model.score(X) - log_q
        total = float(np.logaddexp(total, _logsumexp(log_w)))
        scaled = np.minimum(np.exp(log_w - upper), 1.0)  # w / U in [0, 1]
        s1 += float(scaled.sum())
        s2 += float((scaled * scaled).sum())
        drawn += n_samples
        now = time.perf_counter()
        if deadline is None or now + (now - t0) > deadline:
            break
    estimate = total - math.log(drawn)
    if inequality == "markov":  # P(Z_hat >= Z / delta) <= delta
        sampling = estimate + math.log(delta)
    else:
        sampling = upper + _bernstein_lower(s1, s2, drawn, delta)
    if mf_bound >= sampling:
        lower, method, conf = mf_bound, "mean_field", 1.0
    else:
        lower, method, conf = sampling, "importance_sampling", confidence
    if lower == -math.inf:
        method, conf = "none", 1.0
    return LogPartitionBounds(
        min(lower, upper),  # (the two can only cross by rounding)
        upper,
        method,
        "weighted_mini_bucket",
        conf,
        plan.i_bound,
        False,
        estimate,
        mf_bound,
        sampling,
        inequality,
        drawn,
        time.perf_counter() - start,
    )


def _pilot_size(n_samples: int) -> int:
    """The samples drawn to choose the inequality (not used in the bound)."""
    return max(2, n_samples // 10)


def _bernstein_loss(log_ratio: float, n: int, delta: float) -> float:
    """The worst-case share of ``Z`` that the empirical Bernstein bound takes off with
    ``n`` samples when ``U / Z <= exp(log_ratio)`` (its sample variance is then at most
    ``U Z``); ``inf`` when ``n < 2`` or the ratio is unknown."""
    if n < 2 or not log_ratio < 700.0:
        return math.inf
    r = math.exp(max(log_ratio, 0.0))
    t = math.log(2.0 / delta)
    return math.sqrt(2.0 * r * t / n) + 7.0 * r * t / (3.0 * (n - 1))


def _bernstein_lower(s1: float, s2: float, n: int, delta: float) -> float:
    """``log`` of the empirical Bernstein lower bound on the mean of ``[0, 1]`` variables
    (Maurer & Pontil 2009, Thm 4; Liu, Fisher & Ihler 2015, Sec. 4) from their sum ``s1``
    and sum of squares ``s2``; it holds with probability ``>= 1 - delta``. ``-inf`` when
    the bound is not positive."""
    mean = s1 / n
    var = max(s2 - s1 * mean, 0.0) / (n - 1)
    t = math.log(2.0 / delta)
    value = mean - math.sqrt(2.0 * var * t / n) - 7.0 * t / (3.0 * (n - 1))
    return math.log(value) if value > 0 else -math.inf


def _mean_field_bound(model: DiscreteModel) -> float:
    """The mean-field lower bound on ``log Z``; ``-inf`` when mean field finds no product
    distribution avoiding the forbidden values."""
    try:
        return float(mean_field(model).lower_bound)
    except ValueError:
        return -math.inf


# -- MAP --------------------------------------------------------------------------------------


def map_bounds(
    model: DiscreteModel,
    *,
    i_bound: int | None = None,
    use_lp: bool = True,
    memory_limit: int | None = None,
    moment_matching: bool = True,
    time_limit: float | None = None,
    random_state: Any = None,
) -> MAPBounds:
    """Lower and upper bounds on the MAP score ``max_x score(x)``, with an assignment.

    **Upper bound**: the smaller of mini-bucket elimination with max (Dechter & Rish
    2003; ``max_v sum_r f_r <= sum_r max_v f_r``; the mini-buckets of a bucket are first
    max-marginal matched, which keeps the bound valid) and, with ``use_lp``, the optimum
    of the local-polytope LP relaxation (:func:`~kernelkit.pgm.relaxations.lp_relaxation`,
    ``"L2"``), raised by a small slack for the solver's tolerance.

    **Lower bound**: the score of the best assignment found: decoded from the
    mini-bucket tables in reverse elimination order (each variable takes the value
    maximising its bucket given the values chosen so far; and 99 more candidates that
    draw each value with probability ``∝ exp(bucket total)``, which find feasible
    assignments of tightly constrained models more often), and the LP's pseudomarginals
    rounded (each variable's most likely value), each then improved by iterated
    conditional modes (variables that share no factor move together to their best value
    given the others, while the score rises). An assignment of score ``-inf`` is never
    reported.

    Parameters
    ----------
    model : DiscreteModel
        The model; ``-inf`` entries (hard constraints) are allowed.
    i_bound : int >= 1, optional
        The most variables of a mini-bucket besides the one it eliminates (as in
        :func:`log_partition_bounds`); default the largest fitting ``memory_limit``.
    use_lp : bool, default=True
        Also solve the LP relaxation (skipped when it is too large for
        ``MAX_LP_SIZE``, when the mini-bucket bound is already tight, or when
        ``time_limit`` has passed).
    memory_limit : int >= 1, optional
        Bytes the passes may take (estimated as in :func:`log_partition_bounds`);
        default the machine's memory.
    moment_matching : bool, default=True
        Max-marginal matching of the split buckets (cost shifts adding up to zero: the
        bound stays valid; Flerova, Ihler, Dechter & Otten 2011); False: plain mini-bucket
        elimination.
    time_limit : float > 0, optional
        Seconds to aim for: the i-bound is raised while the next pass is predicted to end
        within half the time, keeping the best bounds (the first pass always runs).
    random_state : None, int, RandomState or Generator
        Seed of the decoded candidates beyond the greedy one.

    Returns
    -------
    MAPBounds
        ``lower``, ``upper``, ``gap``, ``assignment``, the methods, ``i_bound``,
        ``exact``, ``time``.

    Raises
    ------
    ValueError
        ``i_bound`` or ``memory_limit`` below 1, ``time_limit`` not positive; an
        ``i_bound`` whose tables exceed ``memory_limit``; log-potentials whose sums could
        overflow float64.
    TypeError
        ``model`` not a DiscreteModel; non-integer ``i_bound`` or ``memory_limit``;
        ``use_lp`` or ``moment_matching`` not a bool.

    See Also
    --------
    log_partition_bounds : The same machinery with (weighted) sums.
    kernelkit.pgm.exact.exact_map : Exact, within the memory.

    Notes
    -----
    HiGHS solves the LP to feasibility tolerances near ``1e-7``, so its optimum is raised
    by ``1e-7 (1 + sum_E max |theta_E|)`` (the largest finite entry of each factor)
    before it bounds the MAP score; a tight LP therefore leaves a gap of about that size.
    The mini-bucket bound is exact arithmetic up to float64 rounding.

    Examples
    --------
    A frustrated triangle: mini-buckets of two variables bound the MAP score from above;
    the LP (tighter here) and the decoded assignment close the gap to 0.45.

    >>> import networkx as nx
    >>> from kernelkit.pgm import ising
    >>> m = ising(nx.cycle_graph(3), fields=[1.0, 1.1, 1.2], couplings=-2.0)
    >>> r = map_bounds(m, i_bound=1)
    >>> round(r.lower, 4), round(r.upper, 4), r.upper_method, r.assignment.tolist()
    (1.2, 1.65, 'lp_relaxation', [0, 0, 1])
    >>> map_bounds(m, i_bound=2).exact
    True
    """
    start = time.perf_counter()
    model = _check_model(model)
    i_bound, memory_limit, time_limit, _ = _check_arguments(i_bound, memory_limit, time_limit, 0)
    use_lp = check_bool(use_lp, "use_lp")
    moment_matching = check_bool(moment_matching, "moment_matching")
    rng = check_random_state(random_state)
    request = "map_bounds"
    _check_magnitude(model, request)
    work = _pruned(model)
    if work is None:  # arc consistency: every assignment is forbidden
        inf = -math.inf
        seconds = time.perf_counter() - start
        return MAPBounds(inf, inf, None, "none", "arc_consistency", 0, True, seconds)
    original, model = model, work
    chosen = elimination_order(model)
    top = _top_plan(model, chosen.order, chosen.induced_width, i_bound, memory_limit, request)
    deadline = None if time_limit is None else start + time_limit
    state: dict[str, Any] = {"upper": math.inf, "lower": -math.inf, "x": None, "i": top.i_bound}

    def evaluate(plan: mb.Plan) -> tuple[float, bool]:
        res = mb.run(model, plan, "max", int(moment_matching))
        X = mb.decode(plan, res, _CANDIDATES, rng)
        scores = model.score(X)
        x = mb.improve(model, X[int(np.argmax(scores))])
        s = float(model.score(x))
        if s > state["lower"]:
            state["lower"], state["x"] = s, x
        bound = res.bound
        if not plan.split and scores[0] > -math.inf:  # exact: X[0] is a MAP assignment
            bound = s  # (the same value, without the rounding of another sum)
        if bound < state["upper"]:
            state["upper"], state["i"] = bound, plan.i_bound
        return res.seconds, not plan.split or res.bound == -math.inf

    upper_deadline = None if time_limit is None else start + _UPPER_SHARE * time_limit
    _rounds(model, chosen.order, top, upper_deadline, evaluate)
    upper, lower, x = state["upper"], state["lower"], state["x"]
    upper_method, lower_method = "mini_bucket", "mini_bucket_decoding"
    on_time = deadline is None or time.perf_counter() < deadline
    if use_lp and upper > lower and model.n_variables and on_time:
        lp = _lp_bound(model)
        if lp is not None:
            value, lp_x = lp
            if value < upper and (value > -math.inf or lower == -math.inf):
                upper, upper_method = value, "lp_relaxation"
            if lp_x is not None:
                lp_x = mb.improve(model, lp_x)
                s = float(model.score(lp_x))
                if s > lower:
                    lower, x, lower_method = s, lp_x, "lp_rounding"
    if lower == -math.inf:
        x, lower_method = None, "none"
    else:
        lower = float(original.score(x))  # (the pruned model may round its sum otherwise)
        upper = max(upper, lower)  # (the two can only cross by rounding)
        x.flags.writeable = False
    return MAPBounds(
        lower,
        upper,
        x,
        lower_method,
        upper_method,
        state["i"],
        lower == upper,
        time.perf_counter() - start,
    )


def _lp_bound(model: DiscreteModel) -> tuple[float, np.ndarray | None] | None:
    """The L2 relaxation's optimum plus the solver slack, and its pseudomarginals rounded;
    ``(-inf, None)`` when HiGHS finds the relaxation infeasible (then so is the model);
    None when the LP is too large or not solved."""
    try:
        res = lp_relaxation(model, "L2")
    except LPSolverError as err:
        return (-math.inf, None) if err.status == 2 else None
    except ValueError:  # over MAX_LP_SIZE
        return None
    scale = 1.0
    for g in model.groups():
        t = g.tables.reshape(g.tables.shape[0], -1)
        finite = np.where(np.isfinite(t), np.abs(t), 0.0)
        scale += float(finite.max(axis=1, initial=0.0).sum())
    value = res.value + _LP_SLACK * scale
    x = np.array([int(np.argmax(p)) for p in res.pseudomarginals], dtype=np.int64)
    return value, x
