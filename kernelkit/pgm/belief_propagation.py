"""Belief propagation on the factor graph of a :class:`~kernelkit.pgm.model.DiscreteModel`.

Two algorithms for the Bethe approximation (Yedidia et al. 2001; Rowland 2018, §2.5):

* :func:`loopy_bp`: loopy belief propagation (Pearl 1988), sum-product (approximate
  marginals and the Bethe estimate of ``log Z``) or max-product (approximate MAP), in the
  log domain, with damping, on a parallel ("flooding") or a sequential schedule (the
  factors coloured so that no two of a colour share a variable, one colour class at a
  time, as libDAI's ``SEQFIX`` updates one edge at a time). Exact on trees.
* :func:`double_loop`: a convergent minimiser of the Bethe free energy, the double-loop
  algorithm of Heskes, Albers and Kappen (2003) ("HAK") with Bethe clusters.

**Why double-loop and not TRW.** Rowland (2018, §2.5.2) estimated ``log Z`` and marginals
with libDAI's ``HAK`` method, ``[doubleloop=1, clusters=BETHE, init=UNIFORM, tol=1e-9,
maxiter=10000]``; tree-reweighted BP is listed as *not in the thesis*. We follow the
thesis: the double-loop algorithm finds a stationary point of the *same* Bethe free energy
as loopy BP (so where loopy BP converges, both agree), but converges where loopy BP
oscillates. TRW would minimise a different (convex, upper-bounding) free energy and would
not reproduce the thesis's numbers.

The Bethe free energy (unary factors absorbed into their variable, ``n_v`` the number of
factors of arity >= 2 on ``v``) is

``F(b) = -sum_f <theta_f>_{b_f} - sum_v <theta_v>_{b_v} - sum_f H(b_f) + sum_v (n_v - 1) H(b_v)``

over the local polytope. The last term is concave. Like libDAI's ``HAK`` (negative
counting numbers set to zero), the outer loop bounds it by its tangent at the current
beliefs ``b_v^old``: ``H(b_v) <= -<log b_v^old>_{b_v}``; the bound is tight at
``b^old``, so each outer step cannot increase ``F`` when the inner problem is solved. The
inner problem, ``-sum_f <theta~_f> - sum_f H(b_f)`` with
``theta~_f = theta_f + sum_{v in f} (theta_v + (n_v - 1) log b_v^old) / n_v``, is convex;
we solve it by exact block-coordinate ascent on its dual, one block per variable (every
factor marginal on ``v`` is set to the geometric mean of the factor-to-variable messages),
updating an independent set of variables (a colour class of the interaction graph) at a
time. A fixed point of the outer loop (``b_v = b_v^old``) is a stationary point of the
Bethe free energy.

Examples
--------
On a tree, BP is exact:

>>> import networkx as nx
>>> from kernelkit.pgm.model import ising
>>> m = ising(nx.path_graph(3), fields=[0.2, -0.1, 0.3], couplings=0.8)
>>> r = loopy_bp(m)
>>> r.converged, round(r.log_partition, 6)
(True, 2.928083)
>>> round(double_loop(m).log_partition, 6)
2.928083
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._validation import check_in, check_int
from kernelkit.pgm._guards import (
    check_per_variable_memory,
    feasible_domains,
    finite_sum,
    forbidden_error,
)
from kernelkit.pgm.exact import _logsumexp as _logsumexp_axes
from kernelkit.pgm.model import DiscreteModel, _check_model

__all__ = ["BeliefPropagationResult", "double_loop", "double_loop_batch", "loopy_bp"]


@dataclass(frozen=True, eq=False)
class BeliefPropagationResult:
    """The result of :func:`loopy_bp` or :func:`double_loop`.

    Attributes
    ----------
    marginals : list of ndarray
        One array per variable, of its cardinality: the beliefs ``b_v`` (approximate
        marginals, summing to 1); for ``mode="max"`` the max-marginals, normalised to
        sum to 1.
    factor_marginals : list of ndarray
        One array per factor of ``model.factors``, of the factor's table shape: the
        factor beliefs ``b_f`` (max-marginals for ``mode="max"``), normalised to sum to 1.
    log_partition : float or None
        The Bethe estimate of ``log Z`` (``-F_Bethe`` at the final beliefs); NaN when
        that is not finite (then ``converged`` is False); None for ``mode="max"``. (A
        model whose hard constraints are found to forbid every assignment raises a
        ValueError instead, as the exact methods do.)
    assignment : ndarray of int or None
        ``mode="max"``: the decoded assignment (see :func:`loopy_bp`, ``decode``; a MAP
        on a tree); None otherwise.
    score : float or None
        ``model.score(assignment)`` when ``assignment`` is given.
    converged : bool
        Whether the result is an answer: the largest message (or belief) change fell
        below ``tol``, and nothing in ``reason`` says otherwise (contradicting messages,
        a non-finite Bethe free energy or belief, a decoded assignment of score
        ``-inf``).
    n_iter : int
        The number of (outer) iterations run.
    reason : str
        Empty when ``converged``; otherwise why not, in words: ``"did not converge in
        1000 iterations (largest change 0.031, ...)"``, ``"the messages contradict each
        other ..."``, ``"the Bethe free energy is not finite"``, ... (several joined by
        ``"; "``).
    schedule_used : str or None
        :func:`loopy_bp`: the schedule of the last iterations (``"parallel"``,
        ``"sequential"`` or ``"residual"``; ``schedule="auto"`` starts with
        ``"parallel"``); None for :func:`double_loop`.
    damping_used : float or None
        :func:`loopy_bp`: the damping of the last iterations; None for
        :func:`double_loop`.
    """

    marginals: list[np.ndarray]
    factor_marginals: list[np.ndarray]
    log_partition: float | None
    assignment: np.ndarray | None
    score: float | None
    converged: bool
    n_iter: int
    reason: str = ""
    schedule_used: str | None = None
    damping_used: float | None = None


# -- shared helpers (also used by kernelkit.pgm.variational and kernelkit.pgm.sampling) --------


def _logsumexp(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """``log sum exp`` along one ``axis`` (:func:`kernelkit.pgm.exact._logsumexp`: all
    ``-inf`` gives ``-inf``, no warning, no NaN). Entries more than ``1.8e308`` below the
    row's maximum (log-potentials of magnitude near ``1e308``) overflow to ``-inf`` when
    shifted: their ``exp`` is 0 either way, so that overflow is silenced."""
    with np.errstate(over="ignore"):
        return _logsumexp_axes(a, (axis % a.ndim,))


def _normalise_rows(a: np.ndarray, mode: str) -> np.ndarray:
    """Shift each row (last axis) so that its logsumexp (``"sum"``) or max (``"max"``) is 0;
    an all ``-inf`` row is left as it is. (An entry that overflows to ``-inf`` in the
    shift was more than ``1.8e308`` below the row's top: probability 0 either way.)"""
    c = _logsumexp(a) if mode == "sum" else a.max(axis=-1)
    c = np.where(np.isfinite(c), c, 0.0)
    with np.errstate(over="ignore"):
        if mode == "sum" and c.size and np.abs(c).max() > _LARGE_LOG:
            # |log Z_row| so large that log(sum exp(a - max)) <= log K is lost in rounding
            # c (1e308 + log 2 == 1e308): shift by the row maximum first, exactly
            top = a.max(axis=-1)
            top = np.where(np.isfinite(top), top, 0.0)
            b = a - top[..., None]
            lse = _logsumexp(b)
            return b - np.where(np.isfinite(lse), lse, 0.0)[..., None]
        return a - c[..., None]


#: Rows whose log-normaliser exceeds this are normalised in two steps (max, then
#: logsumexp), where rounding the normaliser would lose ``log K``: at 1e6 a float's spacing
#: is 1.2e-10.
_LARGE_LOG = 1e6


def _reduce_except(B: np.ndarray, p: int, mode: str) -> np.ndarray:
    """Reduce ``B`` of shape ``(n, c_0, ..., c_{k-1})`` over every table axis except ``p``:
    shape ``(n, c_p)``."""
    n, cp = B.shape[0], B.shape[p + 1]
    B = np.moveaxis(B, p + 1, 1).reshape(n, cp, -1)
    return _logsumexp(B) if mode == "sum" else B.max(axis=-1)


def _expand(a: np.ndarray, q: int, k: int) -> np.ndarray:
    """View ``a`` of shape ``(n, c_q)`` as broadcastable against ``(n, c_0, ..., c_{k-1})``."""
    shape = [a.shape[0]] + [1] * k
    shape[q + 1] = a.shape[1]
    return a.reshape(shape)


class _FactorGraph:
    """Index arrays of a model's factor graph: for every FactorGroup and scope position ``p``
    the flat positions ``v * K + x`` (``K`` the largest cardinality) of its edges' values,
    all edges concatenated into one flat message vector."""

    def __init__(self, model: DiscreteModel, groups: list[Any] | None = None) -> None:
        self.model = model
        self.n = model.n_variables
        self.cards = model.cardinalities
        self.K = int(self.cards.max(initial=1))
        self.valid = np.arange(self.K)[None, :] < self.cards[:, None]  # (n, K)
        self.groups = list(model.groups()) if groups is None else groups
        self.slices: list[list[slice]] = []
        self.shapes: list[list[tuple[int, int]]] = []
        flat: list[np.ndarray] = []
        offset = 0
        for g in self.groups:
            sl, sh = [], []
            for p in range(g.arity):
                cp = g.tables.shape[p + 1]
                idx = g.scopes[:, p][:, None] * self.K + np.arange(cp)[None, :]
                flat.append(idx.ravel())
                sl.append(slice(offset, offset + idx.size))
                sh.append(idx.shape)
                offset += idx.size
            self.slices.append(sl)
            self.shapes.append(sh)
        self.flat_index = np.concatenate(flat) if flat else np.zeros(0, dtype=np.int64)
        self.n_edges_values = offset

    def view(self, vec: np.ndarray, g: int, p: int) -> np.ndarray:
        """The ``(n_g, c_p)`` block of an edge vector."""
        return vec[self.slices[g][p]].reshape(self.shapes[g][p])

    def gather(self, per_var: np.ndarray) -> np.ndarray:
        """An ``(n, K)`` per-variable array read at every edge value: an edge vector."""
        return per_var.ravel()[self.flat_index]

    def scatter_sum(self, vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-variable sums of an edge vector of log-values, ``-inf`` kept apart: the sum of
        the finite parts and the number of ``-inf`` terms, each ``(n, K)``."""
        neg = np.isneginf(vec)
        finite = np.where(neg, 0.0, vec)
        size = self.n * self.K
        s = np.bincount(self.flat_index, weights=finite, minlength=size).reshape(self.n, self.K)
        c = np.bincount(self.flat_index, weights=neg, minlength=size).reshape(self.n, self.K)
        return s, c

    def per_var_log(self, s: np.ndarray, c: np.ndarray) -> np.ndarray:
        """``(n, K)`` log-values from finite sums and ``-inf`` counts; padding is ``-inf``."""
        out = np.where(c > 0, -np.inf, s)
        return np.where(self.valid, out, -np.inf)

    def leave_one_out(self, vec: np.ndarray, s: np.ndarray, c: np.ndarray) -> np.ndarray:
        """For each edge, the per-variable sum of ``vec`` minus the edge's own term (exact
        with ``-inf`` terms)."""
        neg = np.isneginf(vec)
        finite = np.where(neg, 0.0, vec)
        rest = self.gather(s) - finite
        others_inf = self.gather(c) - neg > 0.5
        return np.where(others_inf, -np.inf, rest)

    def marginals(self, logb: np.ndarray) -> list[np.ndarray]:
        """Normalised per-variable marginals from ``(n, K)`` log-beliefs."""
        probs = np.exp(_normalise_rows(logb, "sum"))
        return [probs[v, : self.cards[v]] for v in range(self.n)]

    def factor_list(self, per_group: list[np.ndarray]) -> list[np.ndarray]:
        """Per-group stacked arrays as a list in ``model.factors`` order."""
        out: list[Any] = [None] * len(self.model.factors)
        for g, arr in zip(self.groups, per_group, strict=True):
            for i, a in zip(g.index.tolist(), arr, strict=True):
                out[i] = a
        return out


def _interaction_colouring(model: DiscreteModel) -> list[np.ndarray]:
    """Colour classes (arrays of variable indices) of the graph joining variables that share
    a factor: no two variables of one class share a factor. Two classes on a bipartite graph
    (checkerboard on a grid), a greedy colouring otherwise."""
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(model.n_variables))
    for g in model.groups():
        k = g.arity
        for a in range(k):
            for b in range(a + 1, k):
                G.add_edges_from(zip(g.scopes[:, a].tolist(), g.scopes[:, b].tolist(), strict=True))
    if nx.is_bipartite(G):
        colour = nx.bipartite.color(G)
    else:
        colour = nx.greedy_color(G, strategy="largest_first")
    labels = np.array([colour[v] for v in range(model.n_variables)], dtype=np.int64)
    return [np.flatnonzero(labels == c) for c in np.unique(labels)]


def _factor_colouring(model: DiscreteModel) -> np.ndarray:
    """A colour per factor of ``model.factors`` such that no two factors of arity >= 2 of
    one colour share a variable: a greedy colouring (networkx ``greedy_color``,
    ``"largest_first"``) of the factor-intersection graph; ``-1`` for unary factors (their
    messages never change). Colours are ``0, 1, ...``; deterministic."""
    import networkx as nx
    import scipy.sparse as sp

    F = len(model.factors)
    colour = np.full(F, -1, dtype=np.int64)
    rows, cols = [], []
    for g in model.groups():
        if g.arity >= 2:
            rows.append(np.repeat(g.index, g.arity))
            cols.append(g.scopes.ravel())
    if not rows:
        return colour
    r, c = np.concatenate(rows), np.concatenate(cols)
    big = np.unique(r)
    A = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(F, model.n_variables))
    M = sp.triu(A @ A.T, k=1).tocoo()  # factors sharing at least one variable
    G = nx.Graph()
    G.add_nodes_from(big.tolist())
    G.add_edges_from(zip(M.row.tolist(), M.col.tolist(), strict=True))
    col = nx.greedy_color(G, strategy="largest_first")
    colour[big] = [col[f] for f in big.tolist()]
    return colour


def _factor_messages(tables: np.ndarray, inc: list[np.ndarray], mode: str) -> list[np.ndarray]:
    """The normalised factor-to-variable log-messages of stacked factors ``tables`` of
    shape ``(n, c_0, ..., c_{k-1})``, one ``(n, c_p)`` array per scope position ``p``, from
    the incoming variable-to-factor log-messages ``inc`` (one ``(n, c_q)`` per position)."""
    k = tables.ndim - 1
    if k == 1:
        return [_normalise_rows(tables, mode)]
    out = []
    for p in range(k):
        B = tables
        for q in range(k):
            if q != p:
                B = B + _expand(inc[q], q, k)
        out.append(_normalise_rows(_reduce_except(B, p, mode), mode))
    return out


def _check_tol(tol: Any) -> float:
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)):
        raise TypeError(f"tol must be a number, got {type(tol).__name__}")
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be finite and >= 0, got {tol}")
    return float(tol)


def _max_change(new: np.ndarray, old: np.ndarray) -> float:
    """Largest ``|new - old|``; equal entries (both ``-inf`` included) count as 0."""
    if new.size == 0:
        return 0.0
    with np.errstate(invalid="ignore"):
        d = np.where(new == old, 0.0, np.abs(new - old))
    return float(d.max())


# -- loopy BP ---------------------------------------------------------------------------------

#: ``schedule="auto"``: (schedule, damping, iterations) of its stages, each run until it
#: converges, stalls (after ``_AUTO_MIN`` iterations) or has run its iterations; the last
#: until ``max_iter``. The damping is at least the caller's.
_AUTO_STAGES = (
    ("parallel", 0.0, 200, True),
    ("sequential", 0.5, 800, False),
    ("residual", 0.3, 0, False),
)
_AUTO_MIN = 30
#: A residual step updates the factors whose residual is at least this share of the
#: largest residual among the factors sharing a variable with them.
_RESIDUAL_SHARE = 0.7
#: A stage is stalled (oscillating) when its smallest change over the last
#: ``_STALL_WINDOW`` iterations is no smaller than over the ``2 * _STALL_WINDOW`` before.
_STALL_WINDOW = 10

_SCHEDULES = ("auto", "parallel", "sequential", "residual")


def loopy_bp(
    model: DiscreteModel,
    *,
    mode: str = "sum",
    schedule: str = "auto",
    damping: float = 0.0,
    max_iter: int = 1000,
    tol: float = 1e-8,
    decode: str = "sequential",
) -> BeliefPropagationResult:
    """Loopy belief propagation, sum-product or max-product, in the log domain.

    With ``m_{f->v}`` the factor-to-variable and ``m_{v->f}`` the variable-to-factor
    log-messages::

        m_{v->f}(x_v) = sum_{g ∋ v, g != f} m_{g->v}(x_v)
        m_{f->v}(x_v) = logsumexp (or max) over x_{f \\ v} of
                        theta_f(x_f) + sum_{u in f, u != v} m_{u->f}(x_u)

    each normalised (logsumexp or max 0). Vectorised over the factors of each
    :class:`~kernelkit.pgm.model.FactorGroup`. Four schedules, all with the same fixed
    points:

    * ``"parallel"`` (flooding): every message is updated at once per iteration, from the
      previous iteration's messages.
    * ``"sequential"``: the factors of arity >= 2 are coloured so that no two factors of
      one colour share a variable (a greedy colouring of the factor-intersection graph);
      an iteration (sweep) updates the colour classes one after another, the messages out
      of one class at once, from the newest messages. The updates of factors that share
      no variable commute, so a sweep equals updating one factor (or one edge) at a time
      in colour order, newest messages used at once: a fixed sequential order like
      libDAI's ``SEQFIX`` (the schedule of Rowland 2018, §2.5.2, with its own order).
      On frustrated loopy models it converges more often than flooding (max-product on
      rerooted ``5 x 5`` toroidal grids of Rowland 2018, §2.5.2, 1000 iterations: 15-40 %
      of runs against 5-15 %) and its max-product assignments score far higher, but a
      sweep costs one pass per colour class.
    * ``"residual"``: residual belief propagation (Elidan, McGraw and Koller 2006), which
      updates first the messages whose update would change them most (their
      *residual*). Vectorised: an iteration computes every factor's new messages and
      applies those of the factors whose residual (the largest change of their messages)
      is the largest, or at least 0.7 times the largest, among the factors sharing a
      variable with them: the local maxima share no variable, so for them this is RBP's
      one-at-a-time updates, largest residual first. An iteration costs one of flooding
      and updates fewer messages; it converges on some models where the other schedules
      do not, given iterations.
    * ``"auto"`` (the default): flooding, with damping ``damping``, as long as it
      converges; when it stalls (after 30 iterations, its smallest change over the last
      10 no smaller than over the 20 before: oscillation) or after 200 iterations, the
      sequential schedule with damping ``max(damping, 0.5)`` for up to 800 sweeps, then
      residual BP with damping ``max(damping, 0.3)``, each from the messages reached,
      all within ``max_iter`` iterations. Where flooding converges first the result is
      exactly that of ``"parallel"``; ``schedule_used`` and ``damping_used`` of the
      result say which stage it ended in. On ``10 x 10`` Ising grids with fields
      ``U(-1, 1)`` and couplings ``U(-2, 2)`` (``benchmarks/bp_grids.py``, 1000
      iterations) it converged on 9 of 20 models, flooding on 1, the sequential schedule
      on 3 (on 10 with damping 0.5, which takes twice as long as flooding where the
      couplings are weak; there ``"auto"`` is flooding). (:func:`double_loop` minimises
      the same Bethe free energy and converges on 18 of those 20 models in 1000 outer
      iterations, in about as much time.)

    With damping ``d`` the new factor-to-variable messages are ``(1 - d) m_new + d m_old``
    (in the log domain), which does not change the fixed points. ``-inf`` table entries
    (hard constraints) are handled exactly: the zeros of the messages are then those of
    arc consistency on the factor graph. Around loops of hard constraints the finite
    entries of a message can grow without bound (the same evidence counted again and
    again: the beliefs tend to point masses); they are held above ``-1e300 / (k d + 2)``
    (``k`` the largest arity, ``d`` the most factors on a variable), so that they never
    overflow into zeros that no hard constraint implies (which made loopy BP report
    feasible models as "every assignment is forbidden").

    **When the answer is not an answer.** ``converged`` is False, and ``reason`` says
    why, when the messages did not converge within ``max_iter`` iterations; when they
    *contradict* each other (every value of some variable, or factor, ruled out by its
    messages to within ``e^{-(2 B + 64)}``, ``B`` the sum over the factors of the range
    of their finite entries plus the sum of the ``log`` cardinalities, which bounds
    ``-log`` of every message ratio on a tree: evidence and hard constraints pulling
    both ways around loops, where the Bethe estimate used to come out as ``1e160``);
    when the beliefs or the Bethe free energy are not finite (``log_partition`` is then
    NaN); and, for ``mode="max"``, when the decoded assignment has score ``-inf``. The
    Bethe ``log Z`` is ``-F_Bethe`` at the beliefs (Yedidia, Freeman and Weiss 2005),
    ``sum_f (<theta_f>_{b_f} + H(b_f)) - sum_v (d_v - 1) H(b_v)`` with ``d_v`` the
    number of factors on ``v``, entries of belief 0 contributing 0 to the energy and the
    entropy: a sum of bounded terms, equal to the message-based estimate at a fixed
    point.

    **Max-product decoding.** ``decode="sequential"`` visits the variables in breadth-
    first order over the factor graph, from the most decided variable (the largest gap
    between its two best max-marginals), and gives each the value maximising its
    max-marginal *conditioned on the values already chosen*: every factor with an
    assigned variable contributes its max-marginal restricted to those values (``-inf``
    on values its hard constraints forbid with them) instead of its message; ties go to
    the smaller value. Ties are so broken consistently (an equality or parity chain of
    tied max-marginals decodes to a feasible assignment, where the per-variable argmax
    violates the constraints), and on a tree with converged messages the result is a
    MAP assignment even with ties. A variable left no value of finite score sends the
    search back to the previous variable's next value (depth-first, at most
    ``1000 + 20 n`` variables visited), so that on small models a feasible assignment
    is found whenever one exists. The per-variable argmax (``decode="argmax"``, the only
    decoding before) is also scored, and returned instead where it scores higher.

    Parameters
    ----------
    model : DiscreteModel
        The model; ``-inf`` entries (hard constraints) are allowed.
    mode : {"sum", "max"}, default="sum"
        Sum-product (marginals, Bethe ``log Z``) or max-product (max-marginals, MAP).
    schedule : {"auto", "parallel", "sequential", "residual"}, default="auto"
        The message-update schedule (above). (Before, the default was ``"parallel"``.)
    damping : float in [0, 1), default=0.0
        The weight ``d`` of the old factor-to-variable message (above).
    max_iter : int >= 0, default=1000
        Iterations: rounds of all messages (``"parallel"``, ``"residual"``: each computes
        every message), sweeps over all colour classes (``"sequential"``), or all
        stages of ``"auto"`` together.
    tol : float >= 0, default=1e-8
        Stop when no log-message changes (or, for ``"residual"``, would change) by more
        than ``tol`` in an iteration.
    decode : {"sequential", "argmax"}, default="sequential"
        ``mode="max"``: how the assignment is read off the max-marginals (above).
        (Before, the only decoding was ``"argmax"``.)

    Returns
    -------
    BeliefPropagationResult
        ``log_partition`` is the Bethe estimate ``-F_Bethe(b)`` at the final beliefs
        (exact on a tree), NaN when not finite; ``assignment`` the decoded assignment for
        ``mode="max"`` (a MAP on a tree); ``reason``, ``schedule_used`` and
        ``damping_used`` as above.

    Raises
    ------
    ValueError
        ``mode`` not "sum" or "max", ``schedule`` not one of the four, ``decode`` not
        "sequential" or "argmax", ``damping`` outside ``[0, 1)``, ``max_iter < 0``,
        ``tol < 0``; a model whose ``-inf`` entries forbid every assignment (as the exact
        methods: found by arc consistency before the messages are passed, or by the
        messages, when every value of a variable has belief 0: the zeros of the messages
        are those of arc consistency on the factor graph, never a rounding); a model
        whose per-variable arrays could never fit in memory; a Bethe ``log Z`` beyond the
        float64 range (log-potentials near ``1e308``).
    TypeError
        ``model`` not a DiscreteModel; non-numeric ``damping`` or ``tol``.

    See Also
    --------
    double_loop : A convergent minimiser of the same Bethe free energy.

    Notes
    -----
    J. S. Yedidia, W. T. Freeman and Y. Weiss (2005), "Constructing free-energy
    approximations and generalized belief propagation algorithms", IEEE Trans. Inf.
    Theory 51(7) (the Bethe free energy and its stationary points); G. Elidan, I. McGraw
    and D. Koller (2006), "Residual belief propagation: informed scheduling for
    asynchronous message passing", UAI.

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> m = ising(nx.path_graph(3), fields=[0.5, -1.0, 0.5], couplings=[2.0, -1.0])
    >>> r = loopy_bp(m, mode="max")
    >>> r.assignment.tolist(), r.score, r.converged, r.reason
    ([1, 1, 0], 1.5, True, '')
    >>> [p.round(3).tolist() for p in loopy_bp(m).marginals][0]
    [0.219, 0.781]

    The sequential schedule reaches the same fixed point; on a path of 6 variables in
    fewer iterations (each sweep passes messages along several edges):

    >>> m = ising(nx.path_graph(6), fields=0.3, couplings=1.0)
    >>> par, seq = loopy_bp(m, tol=1e-12), loopy_bp(m, schedule="sequential", tol=1e-12)
    >>> par.n_iter, seq.n_iter, bool(abs(seq.log_partition - par.log_partition) < 1e-12)
    (6, 4, True)
    >>> par.schedule_used, par.damping_used
    ('parallel', 0.0)

    On a strongly coupled grid flooding oscillates; ``"auto"`` switches to the damped
    sequential schedule, which converges:

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> G = nx.grid_2d_graph(4, 4)
    >>> grid = ising(G, fields=rng.uniform(-1, 1, 16), couplings=rng.uniform(-2, 2, 24),
    ...              spins="pm1")
    >>> flood = loopy_bp(grid, schedule="parallel")
    >>> flood.converged, flood.reason.split(" (")[0]
    (False, 'did not converge in 1000 iterations')
    >>> auto = loopy_bp(grid)
    >>> auto.converged, auto.schedule_used, auto.damping_used
    (True, 'sequential', 0.5)

    A chain of inequalities with tied max-marginals: the per-variable argmax breaks the
    ties independently (and is not an answer); the sequential decoding does not:

    >>> from kernelkit.pgm.model import DiscreteModel
    >>> neq = [[-np.inf, 0.0], [0.0, -np.inf]]  # x_u != x_v
    >>> chain = DiscreteModel([2, 2, 2], [((0, 1), neq), ((1, 2), neq)])
    >>> loopy_bp(chain, mode="max", decode="argmax").score
    -inf
    >>> r = loopy_bp(chain, mode="max")
    >>> r.assignment.tolist(), r.score, r.converged
    ([0, 1, 0], 0.0, True)
    """
    model = _check_model(model)
    mode = check_in(mode, "mode", ("sum", "max"))
    schedule = check_in(schedule, "schedule", _SCHEDULES)
    decode = check_in(decode, "decode", ("sequential", "argmax"))
    if isinstance(damping, bool) or not isinstance(damping, (int, float, np.integer, np.floating)):
        raise TypeError(f"damping must be a number in [0, 1), got {type(damping).__name__}")
    if not 0.0 <= damping < 1.0:
        raise ValueError(f"damping must be in [0, 1), got {damping}")
    damping = float(damping)
    max_iter = check_int(max_iter, "max_iter", minimum=0)
    tol = _check_tol(tol)
    what = "marginals" if mode == "sum" else "MAP assignment"
    check_per_variable_memory(model, "loopy_bp", 6)
    feasible_domains(model, what)  # raises when the hard constraints forbid everything

    msgs = _Messages(model, mode)
    # Messages are normalised (their logsumexp or max is 0), so every sum below is at most
    # a table entry: overflow can only reach -inf, an entry more than 1.8e308 below its
    # row's top, of probability 0 either way (log-potentials near 1e308).
    with np.errstate(over="ignore"):
        run = _iterate(msgs, schedule, damping, max_iter, tol)
        return _loopy_result(msgs, run, what, decode)


@dataclass(frozen=True)
class _Run:
    """The final state of the message passing of :func:`loopy_bp`."""

    f2v: np.ndarray
    converged: bool
    n_iter: int
    schedule: str
    damping: float
    delta: float  # the last iteration's largest change
    stalled: bool  # whether the changes had stopped shrinking
    stages: tuple[str, ...]  # the schedules run, with their damping, in words


class _Messages:
    """The factor-to-variable log-messages of loopy BP on one model, as one flat vector
    (:class:`_FactorGraph`), and their updates: flooding, sequential (colour classes) and
    residual steps. ``floor`` and ``contradiction``: those of :func:`_message_floor`
    (None for a model without ``-inf`` entries, whose messages are bounded by the
    tables' ranges: a factor's normalised message is at least minus its range)."""

    def __init__(self, model: DiscreteModel, mode: str) -> None:
        self.model = model
        self.mode = mode
        self.fg = fg = _FactorGraph(model)
        self.f2v0 = np.zeros(fg.n_edges_values)
        for gi, g in enumerate(fg.groups):  # a unary factor's message is its (normalised) table
            if g.arity == 1:
                self.f2v0[fg.slices[gi][0]] = _normalise_rows(g.tables, mode).ravel()
        self.big = [gi for gi, g in enumerate(fg.groups) if g.arity >= 2]
        self.n_big = sum(fg.groups[gi].tables.shape[0] for gi in self.big)
        self.floor, self.contradiction = _message_floor(model, fg)
        self._plan: list[Any] | None = None
        self._edge_factor_cache: np.ndarray | None = None

    def clamp(self, a: np.ndarray) -> np.ndarray:
        """``a`` with its finite entries below ``-floor`` raised to ``-floor``."""
        if self.floor is None:
            return a
        return np.where((a < -self.floor) & (a > -np.inf), -self.floor, a)

    def v2f(self, f2v: np.ndarray) -> np.ndarray:
        """The normalised variable-to-factor messages of every edge."""
        fg = self.fg
        s, c = fg.scatter_sum(f2v)
        v2f = fg.leave_one_out(f2v, s, c)
        for gi, g in enumerate(fg.groups):
            for p in range(g.arity):
                sl = fg.slices[gi][p]
                v2f[sl] = _normalise_rows(v2f[sl].reshape(fg.shapes[gi][p]), self.mode).ravel()
        return v2f

    def candidates(self, f2v: np.ndarray, damping: float) -> np.ndarray:
        """Every factor's new (damped) messages, from the messages ``f2v``."""
        fg = self.fg
        v2f = self.v2f(f2v)
        new = np.empty_like(f2v)
        for gi, g in enumerate(fg.groups):
            inc = [fg.view(v2f, gi, q) for q in range(g.arity)]
            for p, out in enumerate(_factor_messages(g.tables, inc, self.mode)):
                new[fg.slices[gi][p]] = out.ravel()
        if damping > 0.0:
            new = (1.0 - damping) * new + damping * f2v
        return self.clamp(new)

    def parallel(self, f2v: np.ndarray, damping: float) -> tuple[np.ndarray, float]:
        """One flooding iteration and its largest change."""
        new = self.candidates(f2v, damping)
        return new, _max_change(new, f2v)

    def residual(self, f2v: np.ndarray, damping: float) -> tuple[np.ndarray, float]:
        """One residual step (Elidan et al. 2006, vectorised): every factor's new messages
        are computed, and applied for the factors whose residual (the largest change of
        their messages) is at least ``_RESIDUAL_SHARE`` times the largest among the
        factors sharing a variable with them; returns the largest residual. (With share 1
        those factors would share no variable, and applying their updates at once would
        equal RBP's one-at-a-time updates, largest residual first; 0.7 lets near-maxima
        go too, about three times fewer iterations on easy models.)"""
        new = self.candidates(f2v, damping)
        if self.n_big == 0:
            return new, _max_change(new, f2v)
        fg = self.fg
        with np.errstate(invalid="ignore"):
            d = np.where(new == f2v, 0.0, np.abs(new - f2v))
        res = np.empty(self.n_big)
        top = np.zeros(fg.n)  # per variable, the largest residual of its factors
        at = 0
        for gi in self.big:
            g = fg.groups[gi]
            n_g = g.tables.shape[0]
            r = np.zeros(n_g)
            for p in range(g.arity):
                r = np.maximum(r, fg.view(d, gi, p).max(axis=1))
            res[at : at + n_g] = r
            np.maximum.at(top, g.scopes.ravel(), np.repeat(r, g.arity))
            at += n_g
        chosen = np.zeros(self.n_big + 1, dtype=bool)  # the last: unary factors, never updated
        at = 0
        for gi in self.big:
            g = fg.groups[gi]
            n_g = g.tables.shape[0]
            r = res[at : at + n_g]
            chosen[at : at + n_g] = (r > 0) & (r >= _RESIDUAL_SHARE * top[g.scopes].max(axis=1))
            at += n_g
        out = np.where(chosen[self._edge_factor()], new, f2v)
        return out, float(res.max())

    def _edge_factor(self) -> np.ndarray:
        """For every edge value, the index of its factor among the factors of arity >= 2
        (in group order); ``n_big`` for unary factors."""
        if self._edge_factor_cache is None:
            fg = self.fg
            out = np.full(fg.n_edges_values, self.n_big, dtype=np.int64)
            at = 0
            for gi in self.big:
                n_g = fg.groups[gi].tables.shape[0]
                for p in range(fg.groups[gi].arity):
                    cp = fg.shapes[gi][p][1]
                    out[fg.slices[gi][p]] = np.repeat(np.arange(at, at + n_g), cp)
                at += n_g
            self._edge_factor_cache = out
        return self._edge_factor_cache

    def _sequential_plan(self) -> list[Any]:
        """Per colour: the flat positions ``e`` in ``f2v`` of all its messages (one
        array), the variable values they sit on, and per group of arity >= 2 with factors
        of this colour their tables and, per scope position, the block of ``e``
        ``(rows, c_p)``."""
        if self._plan is not None:
            return self._plan
        fg = self.fg
        plan = []
        colour = _factor_colouring(self.model)
        for col in range(int(colour.max(initial=-1)) + 1):
            parts, flat, offset = [], [], 0
            for gi, g in enumerate(fg.groups):
                rows = np.flatnonzero(colour[g.index] == col)
                if g.arity < 2 or rows.size == 0:
                    continue
                blocks = []
                for p in range(g.arity):
                    cp = fg.shapes[gi][p][1]
                    start = fg.slices[gi][p].start
                    flat.append((start + rows[:, None] * cp + np.arange(cp)[None, :]).ravel())
                    blocks.append((slice(offset, offset + rows.size * cp), (rows.size, cp)))
                    offset += rows.size * cp
                parts.append((g.tables[rows], blocks))
            e = np.concatenate(flat)
            plan.append((e, fg.flat_index[e], parts))
        self._plan = plan
        return plan

    def sequential(self, f2v: np.ndarray, damping: float) -> tuple[np.ndarray, float]:
        """One sweep over the colour classes and its largest change."""
        fg, mode = self.fg, self.mode
        start = f2v
        f2v = f2v.copy()
        for e, at, parts in self._sequential_plan():
            s, c = fg.scatter_sum(f2v)
            old = f2v[e]  # the leave-one-out sums of fg.leave_one_out, at ``e``
            neg = np.isneginf(old)
            rest = s.ravel()[at] - np.where(neg, 0.0, old)
            v2f = np.where(c.ravel()[at] - neg > 0.5, -np.inf, rest)
            new = np.empty_like(old)
            for tables, blocks in parts:
                inc = [_normalise_rows(v2f[sl].reshape(shape), mode) for sl, shape in blocks]
                for (sl, _), out in zip(blocks, _factor_messages(tables, inc, mode), strict=True):
                    new[sl] = out.ravel()
            if damping > 0.0:
                new = (1.0 - damping) * new + damping * old
            f2v[e] = self.clamp(new)  # one colour shares no variable: its updates commute
        return f2v, _max_change(f2v, start)  # every message is updated once per sweep


def _message_floor(model: DiscreteModel, fg: _FactorGraph) -> tuple[float | None, float | None]:
    """``(floor, contradiction)`` for a model with ``-inf`` entries, else ``(None, None)``.

    ``floor``: finite log-messages are held at ``-floor`` or above, ``floor = 1e300 /
    (k d + 2)`` with ``k`` the largest arity and ``d`` the largest number of factors on a
    variable, so that no sum of messages formed by BP overflows into a spurious ``-inf``
    (None when some finite table entry exceeds ``1e299`` in magnitude: log-potentials
    near ``1e308``, where entries far below their row's top overflow to ``-inf`` on
    purpose, probability 0 either way).

    ``contradiction``: ``2 B + 64``, with ``B`` the sum over the factors of the range of
    their finite entries plus the sum of the ``log`` cardinalities. ``B`` bounds ``-m``
    for every finite normalised message ``m`` of a tree (the log of a ratio of two
    partition functions of a subtree, each between ``e^{min score}`` and ``K^n e^{max
    score}``), and ``-max_x b(x)`` for every unnormalised belief ``b`` there; a belief
    whose top is below ``-contradiction`` comes from messages that contradict each
    other. None when ``B`` is not finite."""
    groups = fg.groups
    if not any(np.isneginf(g.tables).any() for g in groups):
        return None, None
    bound = float(np.log(fg.cards).sum()) if fg.n else 0.0
    largest = 0.0
    degree = np.zeros(fg.n, dtype=np.int64)
    arity = 1
    with np.errstate(over="ignore", invalid="ignore"):
        for g in groups:
            t = g.tables.reshape(g.tables.shape[0], -1)
            fin = np.isfinite(t)
            hi = np.where(fin, t, -np.inf).max(axis=1, initial=-np.inf)
            lo = np.where(fin, t, np.inf).min(axis=1, initial=np.inf)
            ok = np.isfinite(hi)
            bound += float(np.sum(hi[ok] - lo[ok]))
            largest = max(largest, float(np.abs(np.where(fin, t, 0.0)).max(initial=0.0)))
            degree += np.bincount(g.scopes.ravel(), minlength=fg.n)
            arity = max(arity, g.arity)
    if largest > 1e299:
        return None, None
    floor = 1e300 / (arity * int(degree.max(initial=0)) + 2)
    contradiction = 2.0 * bound + 64.0
    return floor, (contradiction if np.isfinite(contradiction) else None)


def _iterate(msgs: _Messages, schedule: str, damping: float, max_iter: int, tol: float) -> _Run:
    """Pass messages on ``schedule`` until they change by at most ``tol`` or ``max_iter``
    iterations have run (``"auto"``: the stages of ``_AUTO_STAGES`` in turn, each left
    when it stalls or has run its share of iterations)."""
    steps = {"parallel": msgs.parallel, "sequential": msgs.sequential, "residual": msgs.residual}
    if schedule == "auto":
        stages = [(s, max(damping, d), n, w) for s, d, n, w in _AUTO_STAGES]
    else:
        stages = [(schedule, damping, max_iter, False)]
    stage = 0
    current, d, budget, watch = stages[0]
    f2v = msgs.f2v0
    converged = max_iter == 0 and msgs.fg.n_edges_values == 0
    deltas: list[float] = []
    delta = float("nan")
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (n_iter is reported)
        f2v, delta = steps[current](f2v, d)
        if delta <= tol:
            converged = True
            break
        deltas.append(delta)
        last = stage == len(stages) - 1
        stalled = watch and len(deltas) >= _AUTO_MIN and _stalled(deltas)
        if not last and (len(deltas) >= budget or stalled):
            stage += 1
            current, d, budget, watch = stages[stage]
            deltas = []
    words = tuple(
        f"{_STAGE_WORDS[s]} with damping {dd:g}" if dd > 0 else _STAGE_WORDS[s]
        for s, dd, _, _ in stages[: stage + 1]
    )
    return _Run(f2v, converged, n_iter, current, d, delta, _stalled(deltas), words)


_STAGE_WORDS = {
    "parallel": "flooding",
    "sequential": "the sequential schedule",
    "residual": "residual BP",
}


def _stalled(deltas: list[float]) -> bool:
    """Whether the smallest change of the last ``_STALL_WINDOW`` iterations is no smaller
    than that of the ``2 * _STALL_WINDOW`` before (oscillation, or divergence); a NaN
    change counts as stalled."""
    w = _STALL_WINDOW
    if len(deltas) < 3 * w:
        return False
    recent, before = min(deltas[-w:]), min(deltas[-3 * w : -w])
    return bool(np.isnan(recent) or np.isnan(before) or recent >= before)


def _loopy_result(msgs: _Messages, run: _Run, what: str, decode: str) -> BeliefPropagationResult:
    """Beliefs, the Bethe ``log Z`` or the decoded assignment, and the verdict."""
    model, fg, mode = msgs.model, msgs.fg, msgs.mode
    f2v = run.f2v
    reasons = []
    if not run.converged:
        how = f"largest change {run.delta:.3g}"
        if msgs.contradiction is not None and run.delta > msgs.contradiction:
            how += ": the messages grow without bound, evidence counted again and again"
        elif run.stalled:
            how += ", no longer shrinking: the messages oscillate"
        if len(run.stages) > 1:
            how += "; " + ", then ".join(run.stages)
        if run.n_iter == 0:
            reasons.append("did not converge in 0 iterations (max_iter=0)")
        else:
            reasons.append(f"did not converge in {run.n_iter} iterations ({how})")
    s, c = fg.scatter_sum(f2v)
    logb = fg.per_var_log(s, c)
    _check_beliefs(model, fg, logb, c, "loopy_bp", what)
    v2f = msgs.v2f(f2v)
    totals = []  # per group: theta_f + sum_v m_{v->f}, the unnormalised factor beliefs
    for gi, g in enumerate(fg.groups):
        B = g.tables
        for q in range(g.arity):
            B = B + _expand(fg.view(v2f, gi, q), q, g.arity)
        totals.append(B)
    if msgs.contradiction is not None and _contradict(fg, logb, totals, msgs.contradiction):
        reasons.append(
            "the messages contradict each other (every value of some variable or factor "
            "is ruled out by one of them): the beliefs are not reliable"
        )
    factor_logs = [_normalise_rows(B.reshape(B.shape[0], -1), "sum") for B in totals]
    marginals = fg.marginals(logb)
    factor_marginals = fg.factor_list(
        [np.exp(b).reshape(B.shape) for b, B in zip(factor_logs, totals, strict=True)]
    )
    if not all(np.isfinite(p).all() for p in (*marginals, *factor_marginals)):
        reasons.append("the beliefs are not finite (the arithmetic overflowed)")
    log_z: float | None = None
    assignment = score = None
    if mode == "sum":
        log_z = _bethe_log_partition(fg, logb, factor_logs)
        if not np.isfinite(log_z):
            reasons.append("the Bethe free energy is not finite")
            log_z = float("nan")
    else:
        assignment = _decode(msgs, f2v, v2f, logb, totals, decode)
        score = float(model.score(assignment))
        if score == -np.inf:
            reasons.append(
                "the decoded assignment violates a hard constraint (score -inf): no "
                "feasible assignment was found"
            )
    return BeliefPropagationResult(
        marginals,
        factor_marginals,
        log_z,
        assignment,
        score,
        not reasons,
        run.n_iter,
        "; ".join(reasons),
        run.schedule,
        run.damping,
    )


def _contradict(fg: _FactorGraph, logb: np.ndarray, totals: list[np.ndarray], limit: float) -> bool:
    """Whether some unnormalised belief has its top below ``-limit``: a variable's sum of
    normalised messages, or a factor's ``theta_f + sum_v m_{v->f}`` less its table's
    largest finite entry."""
    if fg.n and np.any(logb.max(axis=1) < -limit):
        return True
    for g, B in zip(fg.groups, totals, strict=True):
        if g.arity == 0 or B.shape[0] == 0:
            continue
        flat = B.reshape(B.shape[0], -1)
        t = g.tables.reshape(flat.shape)
        top = np.where(np.isfinite(t), t, -np.inf).max(axis=1)
        if np.any(flat.max(axis=1) - top < -limit):
            return True
    return False


def _bethe_log_partition(
    fg: _FactorGraph, logb: np.ndarray, factor_logs: list[np.ndarray]
) -> float:
    """``-F_Bethe`` at the beliefs (Yedidia, Freeman and Weiss 2005):
    ``sum_f (<theta_f>_{b_f} + H(b_f)) - sum_v (d_v - 1) H(b_v)``, ``d_v`` the number of
    factors of arity >= 1 on ``v``; entries of belief 0 contribute 0 (``0 log 0 = 0``,
    ``0 * -inf = 0``). Beyond the float64 range: the ValueError of :func:`finite_sum`."""
    terms: list[tuple[float, np.ndarray]] = []
    d_v = np.zeros(fg.n)
    with np.errstate(invalid="ignore", over="ignore"):
        for g, logbf in zip(fg.groups, factor_logs, strict=True):
            if g.arity == 0:  # a constant: belief 1, and its value adds to log Z
                terms.append((1.0, g.tables))
                continue
            d_v += np.bincount(g.scopes.ravel(), minlength=fg.n)
            bf = np.exp(logbf)
            t = g.tables.reshape(logbf.shape)
            terms.append((1.0, np.where(bf > 0, bf * (t - logbf), 0.0)))
        lb = _normalise_rows(logb, "sum")
        pb = np.exp(lb)
        ent = -np.where(pb > 0, pb * lb, 0.0).sum(axis=1) if fg.n else np.zeros(0)
    terms.append((1.0, (1.0 - d_v) * ent))
    return finite_sum(terms, "loopy_bp: the Bethe estimate of log Z")


def _decode(
    msgs: _Messages,
    f2v: np.ndarray,
    v2f: np.ndarray,
    logb: np.ndarray,
    totals: list[np.ndarray],
    decode: str,
) -> np.ndarray:
    """The max-product assignment: the per-variable argmax (``"argmax"``), or the
    sequential decoding of :func:`loopy_bp` (or the argmax where it scores higher)."""
    model, fg = msgs.model, msgs.fg
    argmax = np.argmax(logb, axis=1).astype(np.int64)
    if decode == "argmax" or fg.n == 0:
        return argmax
    x = _sequential_decode(msgs, f2v, v2f, logb, totals)
    if float(model.score(argmax)) > float(model.score(x)):
        return argmax
    return x


def _decode_order(fg: _FactorGraph, logb: np.ndarray) -> np.ndarray:
    """The variables in breadth-first order over the factor graph (variables joined when
    they share a factor), each connected component from its most decided variable (the
    largest gap between its two best max-marginals), the neighbours of a variable taken
    most decided first; the components interleaved, level by level."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    n = fg.n
    srt = np.sort(logb, axis=1)
    top = srt[:, -1]
    second = srt[:, -2] if fg.K > 1 else np.full(n, -np.inf)
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isneginf(second), np.inf, top - second)
    by_rank = np.argsort(-gap, kind="stable")  # by_rank[r]: the variable of rank r
    rank = np.empty(n, dtype=np.int64)
    rank[by_rank] = np.arange(n)
    rows, cols = [], []
    for g in fg.groups:
        for a in range(g.arity):
            for b in range(a + 1, g.arity):
                rows.append(rank[g.scopes[:, a]])
                cols.append(rank[g.scopes[:, b]])
    one = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    two = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    A = coo_matrix((np.ones(one.size), (one, two)), shape=(n, n)).tocsr()
    _, label = connected_components(A, directed=False)
    roots = np.full(int(label.max()) + 1, n, dtype=np.int64)
    np.minimum.at(roots, label, np.arange(n))  # the best-ranked variable of each
    # both directions of every edge, and a virtual vertex n with an edge to every root:
    # one breadth-first search from n covers every component
    src = np.concatenate([one, two, np.full(roots.size, n)])
    dst = np.concatenate([two, one, roots])
    A = coo_matrix((np.ones(src.size), (src, dst)), shape=(n + 1, n + 1)).tocsr()
    A.sum_duplicates()
    A.sort_indices()  # neighbours visited by rank
    order = breadth_first_order(A, n, directed=True, return_predecessors=False)
    return by_rank[order[1:]]


def _sequential_decode(
    msgs: _Messages,
    f2v: np.ndarray,
    v2f: np.ndarray,
    logb: np.ndarray,
    totals: list[np.ndarray],
) -> np.ndarray:
    """Each variable in :func:`_decode_order` takes the value maximising its max-marginal
    conditioned on the values chosen before: the sum of the messages of the factors with
    no assigned variable and, for each factor with one, ``max`` over its unassigned
    variables of ``theta_f + sum_u m_{u->f}`` at the assigned values, less ``m_{v->f}``
    (the factor's message as if its assigned variables were clamped); ties go to the
    smaller value. Values of score ``-inf`` (ruled out by the hard constraints together
    with the values chosen, or by the messages' zeros, which no feasible assignment
    uses) are never chosen: a variable left none sends the search back (depth-first, at
    most :func:`_decode_nodes` visits). When the search fails, the variables it leaves
    undecided take their argmax."""
    fg = msgs.fg
    n = fg.n
    # the edges of every variable: (group, row, position), CSR by variable
    var, grp, row, pos = [], [], [], []
    for gi in msgs.big:
        g = fg.groups[gi]
        n_g = g.scopes.shape[0]
        for p in range(g.arity):
            var.append(g.scopes[:, p])
            grp.append(np.full(n_g, gi))
            row.append(np.arange(n_g))
            pos.append(np.full(n_g, p))
    if var:
        v_all = np.concatenate(var)
        order = np.argsort(v_all, kind="stable")
        edges = np.stack([np.concatenate(a)[order] for a in (grp, row, pos)], axis=1).tolist()
        ptr = np.searchsorted(v_all[order], np.arange(n + 1)).tolist()
    else:
        edges, ptr = [], [0] * (n + 1)
    # the messages of unary factors, per variable
    unary = np.where(fg.valid, 0.0, -np.inf)
    for gi, g in enumerate(fg.groups):
        if g.arity == 1:
            block = fg.view(f2v, gi, 0)
            at = (g.scopes[:, 0][:, None], np.arange(block.shape[1])[None, :])
            np.add.at(unary, at, block)
    x = np.full(n, -1, dtype=np.int64)
    scopes = [g.scopes for g in fg.groups]

    def conditioned(v: int) -> np.ndarray:
        score = unary[v].copy()
        for gi, j, p in edges[ptr[v] : ptr[v + 1]]:
            vals = x[scopes[gi][j]]
            cp = fg.shapes[gi][p][1]
            if not (vals >= 0).any():
                score[:cp] += fg.view(f2v, gi, p)[j]
                continue
            B = totals[gi][j][tuple(int(a) if a >= 0 else slice(None) for a in vals)]
            here = int(np.sum(vals[:p] < 0))  # v's axis among the unassigned ones
            others = tuple(a for a in range(B.ndim) if a != here)
            best = B.max(axis=others) if others else B
            own = fg.view(v2f, gi, p)[j]
            with np.errstate(invalid="ignore"):
                score[:cp] += np.where(np.isneginf(own), -np.inf, best - own)
        return score

    # depth-first: each variable's values of finite conditioned score, best first; a
    # variable left none sends the search back to the previous one (chronological
    # backtracking, at most ``_decode_nodes(n)`` variables visited)
    order = _decode_order(fg, logb).tolist()
    left: list[list[int]] = []  # per depth, the values not yet tried
    i, visits, limit = 0, 0, _decode_nodes(n)
    while i < n:
        v = order[i]
        if len(left) == i:
            s = conditioned(v)
            left.append([int(a) for a in np.argsort(-s, kind="stable") if s[a] > -np.inf])
            visits += 1
        if left[i]:
            x[v] = left[i].pop(0)
            i += 1
            continue
        left.pop()
        x[v] = -1
        if i == 0 or visits >= limit:
            break  # no feasible assignment found: the argmax where undecided
        i -= 1
    return np.where(x >= 0, x, np.argmax(logb, axis=1))


def _decode_nodes(n: int) -> int:
    """The most variables the sequential decoding visits (backtracking included)."""
    return 1000 + 20 * n


def _check_beliefs(
    model: DiscreteModel,
    fg: _FactorGraph,
    logb: np.ndarray,
    c: np.ndarray | None,
    method: str,
    what: str,
) -> None:
    """Raise when some variable's belief is zero for every value: the messages say that the
    hard constraints leave it no value (``c``, the ``-inf`` counts, positive at each of its
    values; without ``c``, whenever the model has ``-inf`` entries), or its finite messages
    overflowed."""
    dead = np.flatnonzero(np.all(np.isneginf(logb), axis=1))
    if dead.size == 0:
        return
    v = int(dead[0])
    name = model.variables[v]
    if c is None:
        forbidden = any(np.isneginf(g.tables).any() for g in model.groups())
    else:
        forbidden = bool(np.all(c[v, : fg.cards[v]] > 0))
    if forbidden:
        raise forbidden_error(
            model, what, f"{method} found no value of positive probability for variable {name!r}"
        )
    raise ValueError(
        f"{method}: the messages to variable {name!r} add up beyond the float64 range: the "
        "log-potentials of model are too large in magnitude (about 1e308); scale them down"
    )


# -- double-loop (HAK) ------------------------------------------------------------------------


def double_loop(
    model: DiscreteModel,
    *,
    max_iter: int = 10000,
    tol: float = 1e-9,
    max_inner_iter: int = 5,
) -> BeliefPropagationResult:
    """Minimise the Bethe free energy by the double-loop algorithm (HAK, Bethe clusters).

    The thesis's marginal-inference method (Rowland 2018, §2.5.2: libDAI ``HAK`` with
    ``doubleloop=1, clusters=BETHE, init=UNIFORM, tol=1e-9, maxiter=10000``, the defaults
    here). Outer loop: linearise the concave part ``sum_v (n_v - 1) H(b_v)`` of the Bethe
    free energy at the current beliefs; inner loop: solve the resulting convex problem by
    block-coordinate ascent on its dual, a colour class of variables at a time (see the
    module docstring). Its fixed points are the Bethe free energy's stationary points, the
    fixed points of loopy sum-product BP; unlike :func:`loopy_bp` it does not oscillate.
    :func:`double_loop_batch` runs many models of one factor graph together.

    Parameters
    ----------
    model : DiscreteModel
        The model.
    max_iter : int >= 0, default=10000
        Outer iterations.
    tol : float >= 0, default=1e-9
        Stop when no variable or factor belief (a probability) changes by more than
        ``tol`` in an outer step, libDAI's criterion (max-norm distance of the beliefs);
        the inner loop stops early when no variable belief changes by more than ``tol``
        in a sweep.
    max_inner_iter : int >= 1, default=5
        Sweeps of the inner loop per outer iteration (warm-started): libDAI's ``HAK``
        caps its inner loop at 5 passes (``doDoubleLoop``). The outer loop's fixed points
        do not depend on it; more sweeps solve each convex inner problem more closely
        (then each outer step cannot increase the Bethe free energy).

    Returns
    -------
    BeliefPropagationResult
        ``marginals``, ``factor_marginals``, ``log_partition = -F_Bethe(b)`` (exact on a
        tree), ``converged``, ``n_iter`` (outer iterations); ``assignment`` and ``score``
        are None.

    Raises
    ------
    ValueError
        ``max_iter < 0``, ``max_inner_iter < 1``, ``tol < 0``; a model whose ``-inf``
        entries forbid every assignment (as :func:`loopy_bp`); a model whose
        per-variable arrays could never fit in memory.

    Examples
    --------
    A frustrated 4-cycle with strong couplings:

    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> m = ising(nx.cycle_graph(4), fields=0.1, couplings=[2.0, 2.0, 2.0, -2.0], spins="pm1")
    >>> r = double_loop(m)
    >>> r.converged, abs(r.log_partition - loopy_bp(m).log_partition) < 1e-6
    (True, True)
    """
    model = _check_model(model)
    max_iter, tol, max_inner_iter = _check_double_loop_args(max_iter, tol, max_inner_iter)
    check_per_variable_memory(model, "double_loop", 8)
    feasible_domains(model, "marginals")  # raises when the hard constraints forbid everything
    return _double_loop_checked([model], max_iter, tol, max_inner_iter)[0]


def double_loop_batch(
    models: Any,
    *,
    max_iter: int = 10000,
    tol: float = 1e-9,
    max_inner_iter: int = 5,
) -> list[BeliefPropagationResult]:
    """:func:`double_loop` on several models of one factor graph at once.

    The models must have the same cardinalities and the same factor scopes in the same
    order (their tables differ: e.g. the runs of an experiment on one graph). Every array
    of the algorithm gains a leading axis over the models, so one sweep costs about as
    many NumPy calls as for a single model: on small models, where the calls dominate,
    ``B`` models take little longer than one. Each model follows its own iterates and
    stops at its own convergence (it is then set aside), so its result is that of
    ``double_loop(model, ...)`` up to floating-point rounding.

    Parameters
    ----------
    models : sequence of DiscreteModel
        At least one; one factor graph.
    max_iter : int >= 0, default=10000
        As :func:`double_loop`.
    tol : float >= 0, default=1e-9
        As :func:`double_loop`.
    max_inner_iter : int >= 1, default=5
        As :func:`double_loop`.

    Returns
    -------
    list of BeliefPropagationResult
        One per model, in order.

    Raises
    ------
    ValueError
        ``models`` empty or not of one factor graph; arguments as :func:`double_loop`;
        a model whose ``-inf`` entries forbid every assignment (the message names it).
    TypeError
        An element of ``models`` that is not a DiscreteModel.

    Examples
    --------
    >>> import networkx as nx
    >>> from kernelkit.pgm.model import ising
    >>> G = nx.cycle_graph(5)
    >>> ms = [ising(G, fields=0.1 * s, couplings=1.5, spins="pm1") for s in range(3)]
    >>> rs = double_loop_batch(ms)
    >>> [bool(abs(r.log_partition - double_loop(m).log_partition) < 1e-9)
    ...  for r, m in zip(rs, ms)]
    [True, True, True]
    """
    if isinstance(models, DiscreteModel) or not hasattr(models, "__len__"):
        raise TypeError(f"models must be a sequence of DiscreteModel, got {type(models).__name__}")
    models = [_check_model(m, name=f"models[{i}]") for i, m in enumerate(models)]
    if not models:
        raise ValueError("models must contain at least one DiscreteModel")
    ref = models[0]
    for i, m in enumerate(models[1:], start=1):
        same = (
            np.array_equal(m.cardinalities, ref.cardinalities)
            and len(m.factors) == len(ref.factors)
            and all(f.scope == g.scope for f, g in zip(m.factors, ref.factors, strict=True))
        )
        if not same:
            raise ValueError(
                "models must share one factor graph (the same cardinalities and factor "
                f"scopes, in the same order); models[{i}] differs from models[0]"
            )
    max_iter, tol, max_inner_iter = _check_double_loop_args(max_iter, tol, max_inner_iter)
    check_per_variable_memory(ref, "double_loop_batch", 8 * len(models))
    for i, m in enumerate(models):
        try:
            feasible_domains(m, "marginals")
        except ValueError as err:
            raise ValueError(f"models[{i}]: {err}") from None
    return _double_loop_checked(models, max_iter, tol, max_inner_iter)


def _overflow_error(method: str) -> ValueError:
    return ValueError(
        f"{method}: the arithmetic overflowed float64 (NaN): the log-potentials of model "
        "are too large in magnitude (near 1e308); scale them down"
    )


def _double_loop_checked(
    models: list[DiscreteModel], max_iter: int, tol: float, max_inner_iter: int
) -> list[BeliefPropagationResult]:
    """:func:`_double_loop_run` with overflow to ``-inf`` silenced (with log-potentials near
    ``1e308`` an entry far below its row's top: probability 0 either way) and a clear error
    should anything turn NaN."""
    with np.errstate(over="ignore", invalid="ignore"):  # a NaN is caught below
        results = _double_loop_run(models, max_iter, tol, max_inner_iter)
    for r in results:
        finite = [np.isfinite(p).all() for p in (*r.marginals, *r.factor_marginals)]
        if not all(finite) or r.log_partition is None or np.isnan(r.log_partition):
            raise _overflow_error("double_loop")
    return results


def _check_double_loop_args(max_iter: Any, tol: Any, max_inner_iter: Any) -> tuple[int, float, int]:
    return (
        check_int(max_iter, "max_iter", minimum=0),
        _check_tol(tol),
        check_int(max_inner_iter, "max_inner_iter", minimum=1),
    )


def _row_max_change(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Per row (first axis) the largest ``|new - old|``; equal entries count as 0."""
    new, old = new.reshape(new.shape[0], -1), old.reshape(old.shape[0], -1)
    if new.shape[1] == 0:
        return np.zeros(new.shape[0])
    with np.errstate(invalid="ignore"):
        d = np.where(new == old, 0.0, np.abs(new - old))
    return d.max(axis=1)


def _double_loop_run(
    models: list[DiscreteModel], max_iter: int, tol: float, max_inner_iter: int
) -> list[BeliefPropagationResult]:
    """The double loop on models of one factor graph, a leading batch axis on every array
    (factor tables folded as ``(batch * n_factors, *shape)``)."""
    ref = models[0]
    n_models = len(models)
    n = ref.n_variables
    groups_of = [m.groups() for m in models]
    all_groups = groups_of[0]
    big_at = [i for i, g in enumerate(all_groups) if g.arity >= 2]
    big = [all_groups[i] for i in big_at]
    fg = _FactorGraph(ref, big)
    K, E = fg.K, fg.n_edges_values
    nK = n * K
    # unary potentials per variable (padded -inf), per model
    theta_v = np.broadcast_to(np.where(fg.valid, 0.0, -np.inf), (n_models, n, K)).copy()
    for i, g in enumerate(all_groups):
        if g.arity == 1:
            T = np.stack([gs[i].tables for gs in groups_of])  # (B, n_g, c)
            idx = (g.scopes[:, 0][:, None] * K + np.arange(T.shape[2])[None, :]).ravel()
            flat = (np.arange(n_models)[:, None] * nK + idx[None, :]).ravel()
            neg = np.isneginf(T).ravel()
            s = np.bincount(flat, weights=np.where(neg, 0.0, T.ravel()), minlength=n_models * nK)
            c = np.bincount(flat, weights=neg, minlength=n_models * nK)
            theta_v = theta_v + np.where(c > 0, -np.inf, s).reshape(n_models, n, K)
    n_v = np.zeros(n)
    for g in big:
        n_v += np.bincount(g.scopes.ravel(), minlength=n)
    has = n_v > 0
    n_safe = np.where(has, n_v, 1.0)
    classes = [cl[has[cl]] for cl in _interaction_colouring(ref)]
    classes = [cl for cl in classes if cl.size]
    in_class = []
    for cl in classes:
        mask = np.zeros(n, dtype=bool)
        mask[cl] = True
        in_class.append(np.repeat(mask, K)[fg.flat_index])
    batch_index = np.arange(n_models)[:, None] * nK + fg.flat_index[None, :]
    n_rows = [g.scopes.shape[0] for g in big]
    shapes = [g.tables.shape[1:] for g in big]

    def view(vec: np.ndarray, gi: int, p: int) -> np.ndarray:  # (b * n_g, c_p)
        return vec[:, fg.slices[gi][p]].reshape(-1, fg.shapes[gi][p][1])

    def gather(per_var: np.ndarray) -> np.ndarray:  # (b, n, K) -> (b, E)
        return per_var.reshape(per_var.shape[0], nK)[:, fg.flat_index]

    def scatter_sum(vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        b = vec.shape[0]
        neg = np.isneginf(vec)
        idx = batch_index[:b].ravel()
        s = np.bincount(idx, weights=np.where(neg, 0.0, vec).ravel(), minlength=b * nK)
        c = np.bincount(idx, weights=neg.ravel(), minlength=b * nK)
        return s.reshape(b, n, K), c.reshape(b, n, K)

    # With finite tables every message stays finite, and the messages out of a factor
    # whose variables share one cardinality c come from one array: the factor's total
    # T + sum_q lambda_q, read at ``picks[p, x]`` (the entries with x_p = x), log-sum-exp'd,
    # minus lambda_p. Otherwise one reduction per scope position, -inf handled exactly.
    finite = all(np.isfinite(g.tables).all() for g in all_groups)
    picks: list[np.ndarray | None] = []
    for g in big:
        shape = g.tables.shape[1:]
        if finite and len(set(shape)) == 1:
            grid = np.indices(shape).reshape(len(shape), -1)  # (k, c^k)
            picks.append(
                np.stack(
                    [
                        [np.flatnonzero(grid[p] == x) for x in range(shape[0])]
                        for p in range(len(shape))
                    ]
                )
            )  # (k, c, c^(k-1))
        else:
            picks.append(None)

    def messages(tilde: list[np.ndarray], lam: np.ndarray) -> np.ndarray:
        out = np.empty_like(lam)
        b = lam.shape[0]
        for gi, g in enumerate(big):
            k = g.arity
            inc = [view(lam, gi, q) for q in range(k)]
            pick = picks[gi]
            if pick is not None:
                total = tilde[gi]
                for q in range(k):
                    total = total + _expand(inc[q], q, k)
                at = total.reshape(total.shape[0], -1)[:, pick]  # (rows, k, c, c^(k-1))
                top = at.max(axis=-1)
                lse = np.log(np.exp(at - top[..., None]).sum(axis=-1)) + top
                msg = _normalise_rows(lse - np.stack(inc, axis=1), "sum")
                for p in range(k):
                    out[:, fg.slices[gi][p]] = msg[:, p].reshape(b, -1)
                continue
            for p in range(k):
                B = tilde[gi]
                for q in range(k):
                    if q != p:
                        B = B + _expand(inc[q], q, k)
                msg = _normalise_rows(_reduce_except(B, p, "sum"), "sum")
                out[:, fg.slices[gi][p]] = msg.reshape(b, -1)
        return out

    def make_tilde(tables: list[np.ndarray], theta: np.ndarray, logb: np.ndarray) -> list:
        # theta~_f = theta_f + sum_{v in f} (theta_v + (n_v - 1) log b_v^old) / n_v
        with np.errstate(invalid="ignore"):  # 0 * -inf where n_v = 1
            lin = np.where((n_v > 1.0)[:, None], (n_v - 1.0)[:, None] * logb, 0.0)
        extra = (theta + lin) / n_safe[:, None]
        extra_e = gather(np.where(fg.valid, extra, -np.inf))
        out = []
        for gi, g in enumerate(big):
            T = tables[gi]
            for p in range(g.arity):
                T = T + _expand(view(extra_e, gi, p), p, g.arity)
            out.append(T)
        return out

    # state of the models still running (rows ``active`` of the batch)
    tables = [
        np.stack([gs[i].tables for gs in groups_of]).reshape(-1, *shapes[j])
        for j, i in enumerate(big_at)
    ]
    theta = theta_v
    logb = np.broadcast_to(
        _normalise_rows(np.where(fg.valid, 0.0, -np.inf), "sum"), (n_models, n, K)
    ).copy()  # init=UNIFORM
    lam = np.zeros((n_models, E))
    active = np.arange(n_models)
    final_logb = logb.copy()
    final_lam = lam.copy()
    final_tilde: list[list[np.ndarray]] = [[] for _ in range(n_models)]
    converged = np.zeros(n_models, dtype=bool)
    n_iters = np.zeros(n_models, dtype=np.int64)

    def take(arrs: list[np.ndarray], rows: np.ndarray, b: int) -> list[np.ndarray]:
        return [
            a.reshape(b, n_rows[gi], *shapes[gi])[rows].reshape(-1, *shapes[gi])
            for gi, a in enumerate(arrs)
        ]

    def set_aside(rows: np.ndarray, tilde: list[np.ndarray]) -> None:
        b = lam.shape[0]
        ids = active[rows]
        final_logb[ids] = logb[rows]
        final_lam[ids] = lam[rows]
        split = [t.reshape(b, n_rows[gi], *shapes[gi])[rows] for gi, t in enumerate(tilde)]
        for j, i in enumerate(ids.tolist()):
            final_tilde[i] = [s[j] for s in split]

    def factor_beliefs(tilde: list[np.ndarray], lam: np.ndarray) -> np.ndarray:
        """``(b, entries)``: the inner problem's factor beliefs, all factors of arity >= 2
        side by side, as probabilities."""
        b = lam.shape[0]
        parts = [np.zeros((b, 0))]
        for gi, g in enumerate(big):
            B = tilde[gi]
            for q in range(g.arity):
                B = B + _expand(view(lam, gi, q), q, g.arity)
            parts.append(np.exp(_normalise_rows(B.reshape(B.shape[0], -1), "sum")).reshape(b, -1))
        return np.concatenate(parts, axis=1)

    tilde = make_tilde(tables, theta, logb)  # the final state's when max_iter = 0
    old_pb, old_fb = np.exp(logb), factor_beliefs(tilde, lam)
    for it in range(1, max_iter + 1):
        tilde = make_tilde(tables, theta, logb)
        new_logb = logb
        b = lam.shape[0]
        inner_done = np.zeros(b, dtype=bool)
        for _ in range(max_inner_iter):
            before = new_logb
            live = ~inner_done
            for mask in in_class:
                m = messages(tilde, lam)
                s, c = scatter_sum(m)
                mean = np.where(c > 0, -np.inf, s / n_safe[:, None])
                mean = _normalise_rows(np.where(fg.valid, mean, -np.inf), "sum")
                target = gather(mean)
                with np.errstate(invalid="ignore"):
                    upd = np.where(np.isneginf(target), -np.inf, target - m)
                lam = np.where(mask[None, :] & live[:, None], upd, lam)
                new_logb = np.where(has[None, :, None] & live[:, None, None], mean, new_logb)
            inner_done |= _row_max_change(np.exp(new_logb), np.exp(before)) <= tol
            if inner_done.all():
                break
        logb = new_logb
        pb, fb = np.exp(logb), factor_beliefs(tilde, lam)
        delta = np.maximum(_row_max_change(pb, old_pb), _row_max_change(fb, old_fb))
        if np.isnan(delta).any():
            raise _overflow_error("double_loop")
        old_pb, old_fb = pb, fb
        n_iters[active] = it
        done = delta <= tol
        if done.any():
            rows = np.flatnonzero(done)
            converged[active[rows]] = True
            set_aside(rows, tilde)
            keep = np.flatnonzero(~done)
            tables = take(tables, keep, b)
            theta, logb, lam, active = theta[keep], logb[keep], lam[keep], active[keep]
            old_pb, old_fb = old_pb[keep], old_fb[keep]
            if active.size == 0:
                break
    if active.size:  # max_iter reached (or max_iter = 0)
        set_aside(np.arange(active.size), tilde)

    fg_all = _FactorGraph(ref)
    return [
        _double_loop_result(
            models[i],
            fg,
            fg_all,
            theta_v[i],
            n_v,
            final_logb[i],
            final_lam[i],
            final_tilde[i],
            bool(converged[i]),
            int(n_iters[i]),
        )
        for i in range(n_models)
    ]


def _double_loop_result(
    model: DiscreteModel,
    fg: _FactorGraph,
    fg_all: _FactorGraph,
    theta_v: np.ndarray,
    n_v: np.ndarray,
    logb: np.ndarray,
    lam: np.ndarray,
    tilde: list[np.ndarray],
    converged: bool,
    n_iter: int,
) -> BeliefPropagationResult:
    """Beliefs and the Bethe estimate of one model from the double loop's final state."""
    has = n_v > 0
    # isolated variables: b_v proportional to exp(theta_v)
    logb = np.where(has[:, None], logb, _normalise_rows(theta_v, "sum"))
    # factor beliefs of the inner solution, b_f ∝ exp(theta~_f + sum_v lambda_fv), and the
    # Bethe free energy at (b_f, b_v)
    pv = np.exp(logb)
    with np.errstate(invalid="ignore"):
        ent_v = -np.where(pv > 0, pv * logb, 0.0).sum(axis=1)
        energy_v = np.where(pv > 0, pv * theta_v, 0.0).sum(axis=1)
    terms = [(1.0, energy_v), (1.0, (1.0 - n_v) * ent_v)]  # the Bethe log Z, term by term
    all_groups = model.groups()
    big = [g for g in all_groups if g.arity >= 2]
    big_marg: list[np.ndarray] = []
    for gi, g in enumerate(big):
        k = g.arity
        B = tilde[gi]
        for q in range(k):
            B = B + _expand(fg.view(lam, gi, q), q, k)
        flat = B.reshape(B.shape[0], -1)
        logbf = _normalise_rows(flat, "sum")
        bf = np.exp(logbf)
        tab = g.tables.reshape(flat.shape)
        with np.errstate(invalid="ignore"):
            terms.append((1.0, np.where(bf > 0, bf * (tab - logbf), 0.0)))
        big_marg.append(bf.reshape(B.shape))
    per_group: list[np.ndarray] = []
    big_iter = iter(big_marg)
    for g in all_groups:
        if g.arity == 0:  # a constant: belief 1, and its value adds to log Z
            per_group.append(np.ones(g.tables.shape[0]))
            terms.append((1.0, g.tables))
        elif g.arity == 1:
            per_group.append(pv[g.scopes[:, 0], : g.tables.shape[1]])
        else:
            per_group.append(next(big_iter))
    _check_beliefs(model, fg_all, logb, None, "double_loop", "marginals")
    log_z = finite_sum(terms, "double_loop: the Bethe estimate of log Z")
    reason = "" if converged else f"did not converge in {n_iter} outer iterations"
    return BeliefPropagationResult(
        fg.marginals(logb),
        fg_all.factor_list(per_group),
        log_z,
        None,
        None,
        converged,
        n_iter,
        reason,
    )


def _ising_parameters(model: DiscreteModel) -> tuple[np.ndarray, Any] | None:
    """For a binary model with factors of arity <= 2 and finite tables, the fields ``h`` and
    the symmetric sparse coupling matrix ``J`` of its score in ``{0, 1}`` variables,
    ``score(x) = const + h @ x + x @ J @ x / 2`` (the notes' Ising parametrisation);
    None for any other model, and for a model without variables or whose ``h`` and ``J``
    could overflow (``|h_i| + sum_j |J_ij|`` beyond ``1e300``: log-potentials near
    ``1e308``), which the general paths handle."""
    import scipy.sparse as sp

    if model.n_variables == 0 or not model.is_binary:
        return None
    if any(g.arity > 2 for g in model.groups()):
        return None
    if any(not np.all(np.isfinite(g.tables)) for g in model.groups()):
        return None
    if any(np.abs(g.tables).max(initial=0.0) > _ISING_MAX for g in model.groups()):
        return None
    n = model.n_variables
    h = np.zeros(n)
    rows, cols, vals = [], [], []
    for g in model.groups():
        t = g.tables
        if g.arity == 0:  # a constant: no field, no coupling
            continue
        if g.arity == 1:
            h += np.bincount(g.scopes[:, 0], weights=t[:, 1] - t[:, 0], minlength=n)
        else:
            s, u = g.scopes[:, 0], g.scopes[:, 1]
            h += np.bincount(s, weights=t[:, 1, 0] - t[:, 0, 0], minlength=n)
            h += np.bincount(u, weights=t[:, 0, 1] - t[:, 0, 0], minlength=n)
            j = t[:, 1, 1] - t[:, 1, 0] - t[:, 0, 1] + t[:, 0, 0]
            rows += [s, u]
            cols += [u, s]
            vals += [j, j]
    if rows:
        J = sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
        )
    else:
        J = sp.csr_matrix((n, n))
    bound = np.abs(h) + np.asarray(abs(J).sum(axis=1)).ravel()
    if not np.all(bound <= _ISING_MAX):
        return None
    return h, J


#: The largest ``|h_i| + sum_j |J_ij|`` (and table entry) of the Ising fast paths: their
#: logits ``h_i + (J x)_i`` then cannot overflow.
_ISING_MAX = 1e300
