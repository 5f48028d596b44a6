"""One call for a UAI competition task: ``PR``, ``MAR``, ``MAP`` or ``MMAP`` with evidence,
exact when the model's induced width fits, else the best anytime answer with its bounds.

:func:`solve` conditions the model on the evidence
(:func:`kernelkit.pgm.uai_answers.apply_evidence`), then

* tries exact variable elimination (:mod:`kernelkit.pgm.exact`) under the memory limit
  (the least of the machine's memory, the process's ``RLIMIT_AS`` and ``memory_limit``;
  :mod:`kernelkit._memory`). A model too wide for it is refused up front, in no time;
* otherwise answers from bounds (:mod:`kernelkit.pgm.bounds`):

  - ``PR``: a weighted mini-bucket upper bound on ``log Z`` (Liu & Ihler 2011) and a lower
    bound (mean field, deterministic, and importance sampling through the mini-bucket
    proposal, which holds with the stated confidence); the answer is the sampling
    estimate of ``log Z`` kept within the bounds;
  - ``MAR``: loopy belief propagation (:func:`kernelkit.pgm.loopy_bp`, automatic
    schedule) when it converges, else mean field, each saying which;
  - ``MAP``: the mini-bucket and LP relaxation upper bounds and the best feasible
    assignment decoded from them and from max-product BP (the lower bound);
  - ``MMAP``: the query variables' assignment of highest marginal probability, by
    enumeration of the query space when it is small and exact ``log Z`` fits, else by
    coordinate ascent from the MAP assignment (a lower bound), with ``log Z`` of the
    evidence as an upper bound.

Every answer carries how it was obtained (``exact``, ``method``, ``message``) and, when not
exact, its bounds and their gap. The UAI result file is
:meth:`Solution.answer` written by :func:`kernelkit.pgm.uai_answers.write_answer`.

Examples
--------
>>> import networkx as nx
>>> from kernelkit.pgm.model import ising
>>> m = ising(nx.cycle_graph(4), fields=0.3, couplings=0.5)
>>> s = solve(m, "PR", evidence={0: 1})
>>> s.exact, round(s.log_partition, 6) == round(float(s.lower), 6) == round(float(s.upper), 6)
(True, True)
>>> s = solve(m, "MAP")
>>> s.assignment.tolist(), s.exact
([1, 1, 1, 1], True)
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernelkit import _memory
from kernelkit._validation import check_positive_scalar, check_random_state
from kernelkit.pgm._guards import InfeasibleModelError
from kernelkit.pgm.model import DiscreteModel, _check_model
from kernelkit.pgm.uai_answers import TASKS

__all__ = ["Solution", "solve"]

#: ``MMAP`` enumerates the query space up to this many assignments.
MMAP_ENUMERATION_LIMIT = 4096
#: Seconds given to the anytime methods (bounds, sampling) when ``time_limit`` is None.
ANYTIME_SECONDS = 60.0


@dataclass(frozen=True, eq=False)
class Solution:
    """The answer of :func:`solve` to one task.

    Attributes
    ----------
    task : str
        ``"PR"``, ``"MAR"``, ``"MAP"`` or ``"MMAP"``.
    exact : bool
        Whether the answer is exact (variable elimination ran); else it is the best
        anytime answer, and ``lower`` / ``upper`` say how far it can be off.
    method : str
        How the answer was obtained, e.g. ``"variable elimination"``, ``"weighted
        mini-bucket (i-bound 12) + importance sampling"``, ``"loopy BP"``.
    log_partition : float or None
        ``PR``: ``log Z`` of the model with the evidence (natural log; ``-inf`` when the
        evidence or the hard constraints forbid every assignment). With a Bayesian
        network this is ``log P(evidence)``.
    marginals : list of ndarray or None
        ``MAR``: one array per variable of the model (observed variables one-hot).
    assignment : ndarray of int or None
        ``MAP``: one value per variable of the model (observed variables at their
        evidence). ``MMAP``: one value per query variable, in the order of ``query``.
    query : tuple of int or None
        ``MMAP``: the query variables.
    score : float or None
        ``MAP``: ``model.score(assignment)`` (the log of the unnormalised probability).
        ``MMAP``: the log of the query assignment's unnormalised marginal (``log`` of the
        sum over the other variables).
    lower, upper : float
        Bounds on ``log Z`` (``PR``) or on the best score (``MAP``, ``MMAP``); equal to the
        answer when exact; ``-inf`` / ``inf`` where none is known (``MAR``).
    confidence : float
        The probability with which ``lower`` holds: 1 for deterministic bounds, ``1 -
        delta`` for the importance-sampling bound.
    evidence : dict
        The evidence the answer is conditioned on (variable index to value).
    message : str
        What the caller should know (why not exact, what did not converge).
    seconds : float
        Wall time of :func:`solve`.
    """

    task: str
    exact: bool
    method: str
    log_partition: float | None = None
    marginals: list[np.ndarray] | None = None
    assignment: np.ndarray | None = None
    query: tuple[int, ...] | None = None
    score: float | None = None
    lower: float = -math.inf
    upper: float = math.inf
    confidence: float = 1.0
    evidence: dict[int, int] = field(default_factory=dict)
    message: str = ""
    seconds: float = 0.0

    @property
    def gap(self) -> float:
        """``upper - lower`` (natural log); 0 when exact, ``inf`` without bounds."""
        if self.exact:
            return 0.0
        if math.isinf(self.lower) and math.isinf(self.upper) and self.lower == self.upper:
            return 0.0
        return float(self.upper - self.lower)

    @property
    def log10_gap(self) -> float:
        """The gap in ``log10`` units (as the UAI competition reports ``PR``)."""
        return self.gap / math.log(10.0)

    def answer(self) -> Any:
        """The UAI result of this solution, for :func:`kernelkit.pgm.write_answer`.

        Returns
        -------
        UAIAnswer
            ``PR``: ``log10 Z``; ``MAR``: the marginals; ``MAP``: the assignment;
            ``MMAP``: the query variables' values.
        """
        from kernelkit.pgm.uai_answers import UAIAnswer

        if self.task == "PR":
            assert self.log_partition is not None
            return UAIAnswer(task="PR", log10_partition=self.log_partition / math.log(10.0))
        if self.task == "MAR":
            return UAIAnswer(task="MAR", marginals=self.marginals)
        if self.task == "MAP":
            return UAIAnswer(task="MAP", assignment=self.assignment)
        assert self.query is not None and self.assignment is not None
        return UAIAnswer(
            task="MMAP",
            query={int(v): int(x) for v, x in zip(self.query, self.assignment, strict=True)},
        )


def _check_limit(value: Any, name: str) -> float | None:
    return None if value is None else check_positive_scalar(value, name)


class _Clock:
    def __init__(self, limit: float | None) -> None:
        self.start = time.perf_counter()
        self.limit = limit

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float | None:
        return None if self.limit is None else max(self.limit - self.elapsed(), 0.0)

    def budget(self) -> float:
        """Seconds for an anytime method: what is left (at least a millisecond: its first
        pass always runs), or :data:`ANYTIME_SECONDS` without a limit."""
        left = self.left()
        return ANYTIME_SECONDS if left is None else max(left, 1e-3)


def solve(
    model: DiscreteModel,
    task: str,
    *,
    evidence: dict[int, int] | None = None,
    query: Any = None,
    time_limit: float | None = None,
    memory_limit: float | None = None,
    random_state: Any = None,
) -> Solution:
    """Answer a UAI task on ``model``: exact when it fits, else anytime with bounds.

    Parameters
    ----------
    model : DiscreteModel
        The model (e.g. from :func:`kernelkit.pgm.read_uai`).
    task : {"PR", "MAR", "MAP", "MMAP"}
        ``log Z`` (the probability of the evidence), all single-variable marginals, the
        most probable assignment, or the marginal MAP of the ``query`` variables.
    evidence : dict, optional
        Observed values, variable index to value
        (:func:`kernelkit.pgm.uai_answers.read_evidence` reads a ``.evid`` file).
    query : sequence of int, optional
        ``MMAP`` only (required there): the variables to maximise over; the others
        (except the observed ones) are summed out.
    time_limit : float, optional
        Seconds for the anytime methods (bounds, sampling, search; default
        :data:`ANYTIME_SECONDS` for the bounds, no limit for the ``MMAP`` search). Exact
        inference is not interrupted: it runs when its tables fit in memory.
    memory_limit : float, optional
        Bytes the inference may use (on top of the machine's and the process's limits).
    random_state : int, Generator or None
        Seeds the importance sampling of the ``PR`` lower bound and the ``MMAP`` search.

    Returns
    -------
    Solution
        The answer, whether it is exact, its bounds and how it was obtained.

    Raises
    ------
    ValueError
        An unknown ``task``; evidence on unknown variables or with out-of-range values;
        a ``time_limit`` or ``memory_limit`` that is not a positive finite number;
        ``MMAP`` without ``query``, or a query naming an unknown or observed variable.
    TypeError
        ``model`` is not a DiscreteModel.
    """
    _check_model(model, binary=False)
    if not isinstance(task, str) or task.upper() not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    task = task.upper()
    limit_s = _check_limit(time_limit, "time_limit")
    limit_b = _check_limit(memory_limit, "memory_limit")
    rng = check_random_state(random_state)
    clock = _Clock(limit_s)

    from kernelkit.pgm.uai_answers import apply_evidence

    conditioned = apply_evidence(model, dict(evidence or {}))
    query_t = _check_query(model, conditioned, query, task)
    cap = _memory.memory_cap(limit_b) if limit_b is not None else contextlib.nullcontext()
    with cap:
        if task == "PR":
            out = _solve_pr(conditioned, clock, rng)
        elif task == "MAR":
            out = _solve_mar(conditioned)
        elif task == "MAP":
            out = _solve_map(conditioned, clock)
        else:
            out = _solve_mmap(conditioned, query_t, clock, rng)
    return Solution(
        task=task,
        evidence=dict(conditioned.observed),
        seconds=clock.elapsed(),
        **out,
    )


def _check_query(model: DiscreteModel, conditioned: Any, query: Any, task: str) -> tuple[int, ...]:
    if task != "MMAP":
        if query is not None:
            raise ValueError(f"query is for task 'MMAP' only, got task {task!r}")
        return ()
    if query is None:
        raise ValueError("task 'MMAP' needs query (the variables to maximise over)")
    try:
        items = [int(v) for v in query]
    except (TypeError, ValueError):
        raise TypeError(f"query must be a sequence of variable indices, got {query!r}") from None
    for v in items:
        if not 0 <= v < model.n_variables:
            raise ValueError(f"query names variable {v}, not in 0..{model.n_variables - 1}")
        if v in conditioned.observed:
            raise ValueError(f"query names variable {v}, which the evidence observes")
    if len(set(items)) != len(items):
        raise ValueError(f"query names a variable twice: {items}")
    return tuple(items)


# -- PR ----------------------------------------------------------------------------------------


def _solve_pr(conditioned: Any, clock: _Clock, rng: np.random.RandomState) -> dict[str, Any]:
    from kernelkit.pgm.exact import exact_log_partition

    work = conditioned.model
    try:
        log_z = float(exact_log_partition(work))
    except _memory.MemoryLimitError as exc:
        reason = _first_clause(str(exc))
    else:
        return dict(
            exact=True,
            method="variable elimination",
            log_partition=log_z,
            lower=log_z,
            upper=log_z,
        )
    from kernelkit.pgm.bounds import log_partition_bounds

    b = log_partition_bounds(work, time_limit=clock.budget(), random_state=rng)
    estimate = b.estimate if b.estimate is not None else 0.5 * (b.lower + b.upper)
    estimate = float(min(max(estimate, b.lower), b.upper))
    return dict(
        exact=bool(b.exact),
        method=f"{_words(b.upper_method)} (upper) + {_words(b.lower_method)} (lower)",
        log_partition=estimate,
        lower=float(b.lower),
        upper=float(b.upper),
        confidence=float(b.confidence),
        message=f"not exact: {reason}",
    )


def _words(method: str) -> str:
    """``"weighted_mini_bucket"`` -> ``"weighted mini bucket"``."""
    return method.replace("_", " ")


def _first_clause(message: str) -> str:
    """The memory guard's refusal in short: ``"variable elimination would need about 32
    MiB of memory, more than the memory cap allows (16 MiB)"`` (the full text names the
    ordering and its largest clique)."""
    head = message.split(";")[0]
    at = head.find("would need")
    return "variable elimination " + head[at:] if at >= 0 else head


def _try_exact(compute: Any, work: DiscreteModel) -> tuple[Any, str, dict[str, Any] | None]:
    """``compute(work)`` by variable elimination: ``(result, "", None)`` when it ran;
    ``(None, reason, None)`` when the memory guard refused it (the caller turns to
    bounds); ``(None, "", answer)`` when every assignment is forbidden (the exact, empty
    answer)."""
    try:
        return compute(work), "", None
    except InfeasibleModelError as exc:
        return None, "", dict(exact=True, method="variable elimination", message=str(exc))
    except _memory.MemoryLimitError as exc:
        return None, _first_clause(str(exc)), None


# -- MAR ---------------------------------------------------------------------------------------


def _solve_mar(conditioned: Any) -> dict[str, Any]:
    from kernelkit.pgm.exact import exact_marginals

    work = conditioned.model
    res, reason, empty = _try_exact(exact_marginals, work)
    if empty is not None:
        return empty
    if res is not None:
        return dict(
            exact=True,
            method="variable elimination",
            marginals=conditioned.to_original_marginals(res.marginals),
            log_partition=float(res.log_partition),
        )
    from kernelkit.pgm.belief_propagation import loopy_bp

    bp = loopy_bp(work)
    if bp.converged:
        return dict(
            exact=False,
            method="loopy BP",
            marginals=conditioned.to_original_marginals(bp.marginals),
            message=f"not exact: {reason}; loopy BP converged ({bp.n_iter} iterations)",
        )
    from kernelkit.pgm.variational import mean_field

    mf = mean_field(work)
    return dict(
        exact=False,
        method="mean field",
        marginals=conditioned.to_original_marginals(mf.marginals),
        message=(
            f"not exact: {reason}; loopy BP failed ({bp.reason}), so mean-field marginals "
            f"({'converged' if mf.converged else 'not converged'})"
        ),
    )


# -- MAP ---------------------------------------------------------------------------------------


def _solve_map(conditioned: Any, clock: _Clock) -> dict[str, Any]:
    from kernelkit.pgm.exact import exact_map

    work = conditioned.model
    res, reason, empty = _try_exact(exact_map, work)
    if empty is not None:
        return empty
    if res is not None:
        score = float(res.score)
        return dict(
            exact=True,
            method="variable elimination",
            assignment=conditioned.to_original_assignment(res.assignment),
            score=score,
            lower=score,
            upper=score,
        )
    from kernelkit.pgm.belief_propagation import loopy_bp
    from kernelkit.pgm.bounds import map_bounds

    b = map_bounds(work, time_limit=clock.budget())
    best, best_score, how = b.assignment, float(b.lower), _words(b.lower_method)
    bp = loopy_bp(work, mode="max")
    if bp.assignment is not None and bp.score is not None and bp.score > best_score:
        best, best_score, how = bp.assignment, float(bp.score), "max-product BP"
    if best is None or best_score == -math.inf:
        return dict(
            exact=False,
            method=f"{_words(b.upper_method)} (upper)",
            upper=float(b.upper),
            message=f"not exact: {reason}; no feasible assignment found",
        )
    upper = max(float(b.upper), best_score)
    return dict(
        # the LP's value carries HiGHS's tolerance: equal to that, the bounds certify it
        exact=upper - best_score <= 1e-9 * max(1.0, abs(best_score)),
        method=f"{_words(b.upper_method)} (upper) + {how} (lower)",
        assignment=conditioned.to_original_assignment(np.asarray(best)),
        score=best_score,
        lower=best_score,
        upper=upper,
        message=f"not exact: {reason}",
    )


# -- MMAP --------------------------------------------------------------------------------------


def _solve_mmap(
    conditioned: Any, query: tuple[int, ...], clock: _Clock, rng: np.random.RandomState
) -> dict[str, Any]:
    from kernelkit.pgm.exact import exact_log_partition

    work = conditioned.model
    position = {int(v): i for i, v in enumerate(conditioned.free)}
    local = [position[v] for v in query]  # the query's positions in the work model
    cards = [int(work.cardinalities[i]) for i in local]

    def value(values: tuple[int, ...]) -> float:
        from kernelkit.pgm.uai_answers import apply_evidence

        sub = apply_evidence(work, dict(zip(local, values, strict=True)))
        return float(exact_log_partition(sub.model))

    try:
        upper = float(exact_log_partition(work))
    except _memory.MemoryLimitError as exc:
        raise _memory.MemoryLimitError(
            f"MMAP needs exact log Z of the model with evidence and its query assignments; {exc}"
        ) from None
    if upper == -math.inf:
        return dict(
            exact=True,
            method="variable elimination",
            query=query,
            message="every assignment is forbidden (log Z = -inf): no MMAP assignment",
        )
    size = math.prod(cards)
    if size <= MMAP_ENUMERATION_LIMIT:
        best, best_value, complete = None, -math.inf, True
        for values in itertools.product(*(range(c) for c in cards)):
            if clock.left() == 0.0:
                complete = False
                break
            v = value(values)
            if v > best_value:
                best, best_value = values, v
        if best is not None:
            return dict(
                exact=complete,
                method="enumeration of the query space, exact log Z for each",
                assignment=np.asarray(best, dtype=np.int64),
                query=query,
                score=best_value,
                lower=best_value,
                upper=best_value if complete else upper,
                message="" if complete else "time limit reached before the query space was done",
            )
    # coordinate ascent from the MAP assignment's query values (a lower bound)
    from kernelkit.pgm.belief_propagation import loopy_bp

    bp = loopy_bp(work, mode="max")
    start = (
        [int(bp.assignment[i]) for i in local]
        if bp.assignment is not None
        else [int(rng.randint(c)) for c in cards]
    )
    current, current_value = list(start), value(tuple(start))
    improved = True
    while improved and clock.left() != 0.0:
        improved = False
        for j in rng.permutation(len(local)):
            for x in range(cards[j]):
                if x == current[j]:
                    continue
                trial = list(current)
                trial[j] = x
                v = value(tuple(trial))
                if v > current_value:
                    current, current_value, improved = trial, v, True
    return dict(
        exact=False,
        method="coordinate ascent over the query variables, exact log Z for each",
        assignment=np.asarray(current, dtype=np.int64),
        query=query,
        score=current_value,
        lower=current_value,
        upper=upper,
        message=(
            f"the query space has {size} assignments (enumerated up to "
            f"{MMAP_ENUMERATION_LIMIT}): a local optimum, with log Z of the evidence as the "
            "upper bound"
        ),
    )
