"""Rerooting for approximate inference: Rowland (2018) §2.5 and App. 2.B, Figs 2.3-2.6.

Two model families of binary pure (even) potentials (§2.5.2): the complete hypergraph
``K_8`` (a pure ``k``-potential on every subset of size 1-4,
:func:`~kernelkit.pgm.parametrization.complete_hypergraph_scopes`) and the ``5 x 5``
toroidal grid (1-potential per vertex, 2-potential per edge, 3-potentials on the
"L-shaped" triples, 4-potentials on the 4-cycles,
:func:`~kernelkit.pgm.parametrization.toroidal_grid_scopes`). Coefficients are drawn by
:func:`~kernelkit.pgm.parametrization.random_model`: by default pure 2- and
4-potentials ``Unif[-8, 8]``, 1- and 3-potentials 0
(:data:`~kernelkit.pgm.parametrization.THESIS_SCALES`); each sweep replaces one class ``k``
by ``Unif[-W_max, W_max]``. A run draws one model per ``W_max`` from the same seed, so the
other classes' coefficients are the same along a sweep (paired curves).

Each model is solved by

* exact inference (junction tree: :func:`~kernelkit.pgm.exact.exact_log_partition`,
  :func:`~kernelkit.pgm.exact.exact_map`; the pure-potential marginals below by one
  tilted exact ``log Z`` per potential);
* the HAK double-loop minimiser of the Bethe free energy
  (:func:`~kernelkit.pgm.belief_propagation.double_loop`, libDAI's
  ``[doubleloop=1, clusters=BETHE, init=UNIFORM, tol=1e-9, maxiter=10000]``) for ``log Z``
  and marginals, and max-product loopy BP
  (:func:`~kernelkit.pgm.belief_propagation.loopy_bp`, ``mode="max"``) for MAP,

applied to the original model ``M``, the uprooted ``M+`` and every rerooting ``M_i``
(:func:`~kernelkit.pgm.transforms.reroot`), results mapped back by
:class:`~kernelkit.pgm.transforms.Rerooting`. Compared (the thesis's legend): original,
uprooted, *worst* and *best* rerooting — chosen **by the log Z error, in hindsight, in every
plot** ("even in plots for other inference tasks", §2.5) — and the rerootings chosen by the
``K`` and ``G`` heuristics (eq. 2.19) and by ``maxtW`` (eq. 2.17, App. 2.B.5). The pool of
best / worst is every vertex of ``M+``: the variables of ``M`` and the root, whose rerooting
``M_0 = M`` is the original model, so ``best <= original, K, G, maxtW <= worst`` for the
``log Z`` error on every model. The heuristics keep ``M`` when the root scores best (as
:func:`~kernelkit.pgm.transforms.auto_reroot`).

Metrics (per model): ``|log Z_est - log Z|`` (Fig. 2.3); MAP score error
``score(x_MAP) - score(x_BP)`` (Fig. 2.5); the ell_1 error of the marginals "in the minimal
representation corresponding to pure k-potentials" (Fig. 2.6): for each pure potential ``E``
of ``M`` the probability ``q_E = P(#ones in x_E is even)`` — its mean parameter — read
from the double-loop belief of the factor that carries ``E`` in the transformed model
(``E``, ``E + root`` for odd ``|E|``, minus the clamped vertex; Lemmas 2.12-2.13 make these
the same event), and the error ``sum_E |q_E_est - q_E|``; the seconds of the double-loop
call (Fig. 2.4). (The singleton marginals are not used: with only even-order potentials they
are exactly 1/2 and ``M+`` has no factor joining a variable with its root.)

Settings and deviations, all recorded in the results' ``settings``. The double-loop runs
as libDAI's ``HAK``: at most ``max_inner_iter = 5`` inner passes per outer iteration
(libDAI's ``doDoubleLoop`` sets 5), ``max_iter = 10000`` outer iterations, stopping when no
variable or factor belief changes by more than ``tol`` (max-norm, probabilities). The
full run uses ``tol = 1e-6`` instead of the thesis's ``1e-9``: on the hardest setting
(``K_8``, pure 2-potentials ``W_max = 16``, 20 runs, two rerootings) ``1e-9`` took 120 s
per rerooting and 20 runs with 2 of 20 runs stopped at ``max_iter``, ``1e-6`` took 7 s with
all converged, and the median ``|log Z error|`` moved by 0.003 (88.833 vs 88.836; on the
5 x 5 grid 42.399 vs 42.400), far below the differences between methods. Max-product BP
runs a parallel (flooding) schedule with ``max_iter = 1000`` (libDAI: sequential
``SEQFIX``, ``maxiter=10000``). Runs that do not converge are counted, not dropped. The
full run sweeps ``W_max`` over 1, 4 and 16 only (the thesis plots a finer grid), on two
processes (``n_jobs``). The quick run evaluates only the original, the uprooted model and
the rerootings chosen by a heuristic on some run (``n_extra_reroots = 0`` random further
rerootings), so its best / worst are over those alone; it uses ``tol = 1e-6``,
``max_iter = 100`` and ``max_inner_iter = 1`` (double-loop) and ``max_iter = 200``
(max-product), and sweeps one class per family at two ``W_max`` on three runs.

Measured (the full run, seed 0, 2026-11-25: 71 min on two processes; rerun 2026-11-27 on a
clean clone: 65 min, the same medians; 8880 double-loop solves, all converged; max-product
converged in 72-82% of the ``K_8`` solves and 10-15% of the grid's). Median
``|log Z error|`` over all runs: original 52.3, uprooted 55, K 44.9, G 44.9, maxtW 43.9,
best 43.9, worst 54.4. Of the thesis's findings, these hold: K and G close to the best
rerooting for ``log Z`` (22 and 23 of 24 cells within 1.25x),
often helping (13/24 cells at least 10% better than the original) and never hurting the
MAP score; stronger 1-potentials shrink the gain and stronger 2-potentials grow it, on
both families. These do not: "never hurt materially" fails in one ``log Z`` cell (``K_8``,
1-potentials ``W_max = 16``: original 72, K 81, G 83); the relative gain *shrinks* with
stronger 3- and 4-potentials (the errors of every method grow faster than the gain);
rerooting does not improve the pure-potential marginals (0/24 cells), and K beats maxtW in
18/24 ``log Z`` cells but G in only 10/24.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._progress import progress
from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.pgm.belief_propagation import double_loop_batch, loopy_bp
from kernelkit.pgm.exact import exact_log_partition, exact_map
from kernelkit.pgm.model import DiscreteModel
from kernelkit.pgm.parametrization import (
    THESIS_SCALES,
    complete_hypergraph_scopes,
    random_model,
    toroidal_grid_scopes,
)
from kernelkit.pgm.transforms import Rerooting, reroot, reroot_scores, uproot
from kernelkit.plotting import COLORS, new_figure, save_figure

#: Compared transformations, in table and legend order.
METHODS = ("original", "uprooted", "worst", "best", "K", "G", "maxtW")
#: Recorded metrics: name -> (figure file, y label, thesis figure).
METRICS: dict[str, tuple[str, str, str]] = {
    "log_z": ("rerooting_log_z.png", "|error| in log Z", "Fig. 2.3"),
    "map": ("rerooting_map.png", "error in MAP score", "Fig. 2.5"),
    "marginals": ("rerooting_marginals.png", "l1 error of pure-potential marginals", "Fig. 2.6"),
    "seconds": ("rerooting_time.png", "double-loop time (s)", "Fig. 2.4"),
}
HEURISTIC_NAMES = ("K", "G", "maxtW")
FAMILIES = ("K8", "grid5x5")

QUICK: dict[str, Any] = {
    "sweeps": {"K8": [2], "grid5x5": [4]},
    "w_values": [1.0, 16.0],
    "n_runs": 3,
    "n_extra_reroots": 0,
    "tol": 1e-6,
    "max_iter": 100,
    "max_inner_iter": 1,
    "map_max_iter": 200,
    "n_jobs": 1,
}
FULL: dict[str, Any] = {
    "sweeps": {"K8": [1, 2, 3, 4], "grid5x5": [1, 2, 3, 4]},
    "w_values": [1.0, 4.0, 16.0],
    "n_runs": 20,
    "n_extra_reroots": None,
    "tol": 1e-6,
    "max_iter": 10000,
    "max_inner_iter": 5,
    "map_max_iter": 1000,
    "n_jobs": 2,
}
#: Max-product tolerance (libDAI's).
MAP_TOL = 1e-9


def family_scopes(family: str) -> list[tuple[int, ...]]:
    """The hyperedges of a family: ``"K8"`` or ``"grid5x5"`` (§2.5.2).

    Examples
    --------
    >>> len(family_scopes("K8")), len(family_scopes("grid5x5"))
    (162, 200)
    """
    if family == "K8":
        return complete_hypergraph_scopes(8)
    if family == "grid5x5":
        return toroidal_grid_scopes(5)
    raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")


def _even_mask(k: int) -> np.ndarray:
    """``1[#ones even]`` as a ``(2,) * k`` table."""
    bits = np.indices((2,) * k).sum(axis=0)
    return (bits % 2 == 0).astype(np.float64)


def exact_parities(model: DiscreteModel) -> np.ndarray:
    """``q_E = P(#ones in x_E even)`` for the scope ``E`` of every factor, exactly.

    Tilting ``E``'s potential by ``log 2 * 1[#ones in x_E even]`` multiplies ``Z`` by
    ``1 + q_E``, so ``q_E = expm1(log Z_tilted - log Z)`` (one junction-tree call each).

    Examples
    --------
    A pure 2-potential ``a 1[x_0 = x_1]`` makes ``q = e^a / (1 + e^a)``:

    >>> from kernelkit.pgm.parametrization import from_even_basis
    >>> q = exact_parities(from_even_basis({(0, 1): 2.0}))
    >>> bool(np.isclose(q[0], np.exp(2) / (1 + np.exp(2))))
    True
    """
    log_z = exact_log_partition(model)
    cards = model.cardinalities.tolist()
    out = np.empty(len(model.factors))
    for j, f in enumerate(model.factors):
        factors = [(g.scope, g.table) for g in model.factors]
        factors[j] = (f.scope, f.table + math.log(2.0) * _even_mask(f.arity))
        out[j] = math.expm1(exact_log_partition(DiscreteModel(cards, factors)) - log_z)
    return out


def _image_scope(scope: tuple[int, ...], r: Rerooting) -> tuple[int, ...]:
    """The scope of the factor carrying the pure potential on ``scope`` (of ``M``) in
    ``r.model`` (Lemmas 2.12-2.13): ``E``, plus the root for odd ``|E|``, minus the
    clamped vertex, in ``r.model``'s indices."""
    if r.root is None:
        return tuple(sorted(scope))
    plus = [*scope, r.original.n_variables] if len(scope) % 2 else list(scope)
    if r.vertex is None:
        return tuple(sorted(plus))
    i = r.vertex
    return tuple(sorted(v - (v > i) for v in plus if v != i))


def approximate_parities(r: Rerooting, factor_marginals: list[np.ndarray]) -> np.ndarray:
    """The estimate of ``q_E`` for every factor of ``r.original`` from the factor beliefs
    of ``r.model`` (one per factor of ``r.model``, in order)."""
    where = {f.scope: j for j, f in enumerate(r.model.factors)}
    out = np.empty(len(r.original.factors))
    for j, f in enumerate(r.original.factors):
        image = _image_scope(f.scope, r)
        if image not in where:
            raise ValueError(f"no factor of the transformed model carries the potential {f.scope}")
        belief = factor_marginals[where[image]]
        out[j] = float((belief * _even_mask(len(image))).sum())
    return out


def evaluate_models(
    models: list[DiscreteModel],
    *,
    vertices: list[int] | None = None,
    tol: float = 1e-9,
    max_iter: int = 10000,
    max_inner_iter: int = 5,
    map_max_iter: int = 1000,
) -> list[dict[str, Any]]:
    """Every compared transformation of binary models of one hypergraph: errors, times,
    convergence.

    The models must share their factor scopes (the runs of one setting), so each
    transformation's double-loop runs once for all of them
    (:func:`~kernelkit.pgm.belief_propagation.double_loop_batch`; each model's iterates are
    its own).

    Parameters
    ----------
    models : list of DiscreteModel
        Binary, finite tables, one pure potential per factor (as from ``random_model``),
        the same scopes in the same order.
    vertices : list of int, optional
        The rerootings to evaluate, as vertices of ``M+`` (``n`` is the root: ``M``
        itself); the root and every heuristic's choice on every model are always added.
        Default: all.
    tol, max_iter, max_inner_iter : float, int, int
        Of the double-loop.
    map_max_iter : int
        Of max-product BP.

    Returns
    -------
    list of dict
        Per model: ``"per_vertex"``: for each evaluated vertex of ``M+`` (sorted) the
        metrics and the convergence flags; ``"uprooted"`` likewise; ``"choice"``: the
        vertex chosen by each heuristic and the best / worst (by the log Z error);
        ``"methods"``: ``METHODS`` -> metric -> value; ``"exact"``. ``"seconds"`` is the
        double-loop time of the batch divided by the number of models.

    Examples
    --------
    On two variables every rerooting is a tree, where the double-loop is exact:

    >>> from kernelkit.pgm.parametrization import random_model
    >>> m = random_model([(0,), (1,), (0, 1)], {1: 2.0, 2: 3.0}, random_state=1)
    >>> [res] = evaluate_models([m])
    >>> sorted(res["per_vertex"]), bool(res["methods"]["best"]["log_z"] < 1e-8)
    ([0, 1, 2], True)
    """
    n = models[0].n_variables
    log_z = [exact_log_partition(m) for m in models]
    map_score = [exact_map(m).score for m in models]
    q = [exact_parities(m) for m in models]
    choices: list[dict[str, int]] = []
    for m in models:
        choice: dict[str, int] = {}
        for h in HEURISTIC_NAMES:
            s = reroot_scores(m, h)
            choice[h] = n if s[n] >= s.max() else int(np.argmax(s))
        choices.append(choice)
    pool = set(range(n + 1)) if vertices is None else set(vertices)
    pool |= {n, *(c[h] for c in choices for h in HEURISTIC_NAMES)}

    def solve(rs: list[Rerooting]) -> list[dict[str, Any]]:
        t0 = time.perf_counter()
        dls = double_loop_batch(
            [r.model for r in rs], tol=tol, max_iter=max_iter, max_inner_iter=max_inner_iter
        )
        seconds = (time.perf_counter() - t0) / len(rs)
        out = []
        for i, (r, dl) in enumerate(zip(rs, dls, strict=True)):
            mp = loopy_bp(  # the schedule and decoding of the published numbers
                r.model,
                mode="max",
                schedule="parallel",
                decode="argmax",
                max_iter=map_max_iter,
                tol=MAP_TOL,
            )
            assert dl.log_partition is not None and mp.assignment is not None
            x = r.to_original_assignment(mp.assignment)
            q_est = approximate_parities(r, dl.factor_marginals)
            out.append(
                {
                    "log_z": abs(r.to_original_log_partition(dl.log_partition) - log_z[i]),
                    "map": float(map_score[i] - models[i].score(x)),
                    "marginals": float(np.abs(q_est - q[i]).sum()),
                    "seconds": seconds,
                    "dl_converged": bool(dl.converged),
                    "dl_n_iter": int(dl.n_iter),
                    "map_converged": bool(mp.converged),
                }
            )
        return out

    per_vertex: list[dict[int, dict[str, Any]]] = [{} for _ in models]
    for v in sorted(pool):
        rs = [Rerooting(m, m, None, None) if v == n else reroot(m, v) for m in models]
        for i, rec in enumerate(solve(rs)):
            per_vertex[i][v] = rec
    ups = solve([uproot(m) for m in models])
    metrics = ("log_z", "map", "marginals", "seconds")
    results = []
    for i in range(len(models)):
        pv, choice = per_vertex[i], choices[i]
        errs = {v: pv[v]["log_z"] for v in pv}
        choice["best"] = min(errs, key=lambda v: errs[v])
        choice["worst"] = max(errs, key=lambda v: errs[v])
        methods: dict[str, dict[str, float]] = {
            "original": {mt: pv[n][mt] for mt in metrics},
            "uprooted": {mt: ups[i][mt] for mt in metrics},
        }
        for name in ("worst", "best", *HEURISTIC_NAMES):
            methods[name] = {mt: pv[choice[name]][mt] for mt in metrics}
        results.append(
            {
                "per_vertex": pv,
                "uprooted": ups[i],
                "choice": choice,
                "methods": {k: methods[k] for k in METHODS},
                "exact": {"log_z": log_z[i], "map": map_score[i]},
            }
        )
    return results


def _sweep(family: str, k: int, settings: dict[str, Any], seed: int) -> dict[str, Any]:
    """One family and swept class: ``n_runs`` runs at every ``W_max``."""
    scopes = family_scopes(family)
    w_values = settings["w_values"]
    n_runs = settings["n_runs"]
    n = max(max(s) for s in scopes) + 1
    run_seeds = seeds(seed, n_runs)
    values = {m: {mt: np.zeros((len(w_values), n_runs)) for mt in METRICS} for m in METHODS}
    choices: list[list[dict[str, int]]] = []
    counts = {"dl_not_converged": 0, "map_not_converged": 0, "solves": 0}
    vertices = None
    if settings["n_extra_reroots"] is not None:
        rs = np.random.RandomState(seed)
        vertices = rs.choice(n, settings["n_extra_reroots"], replace=False).tolist()
    for a, w in enumerate(w_values):
        models = [
            random_model(scopes, {**THESIS_SCALES, k: float(w)}, random_state=s) for s in run_seeds
        ]
        results = evaluate_models(
            models,
            vertices=vertices,
            tol=settings["tol"],
            max_iter=settings["max_iter"],
            max_inner_iter=settings["max_inner_iter"],
            map_max_iter=settings["map_max_iter"],
        )
        for b, res in enumerate(results):
            for m in METHODS:
                for mt in METRICS:
                    values[m][mt][a, b] = res["methods"][m][mt]
            for rec in [*res["per_vertex"].values(), res["uprooted"]]:
                counts["solves"] += 1
                counts["dl_not_converged"] += not rec["dl_converged"]
                counts["map_not_converged"] += not rec["map_converged"]
        choices.append([res["choice"] for res in results])
    return {"family": family, "k": k, "values": values, "choices": choices, "counts": counts}


def _stats(x: np.ndarray) -> dict[str, list[float]]:
    q25, med, q75 = np.percentile(x, [25, 50, 75], axis=-1)
    return {"median": med.tolist(), "q25": q25.tolist(), "q75": q75.tolist()}


def _label(sweep: dict[str, Any]) -> str:
    return f"{sweep['family']}, pure {sweep['k']}-potentials ~ Unif[-W, W]"


def _figure(sweeps: list[dict[str, Any]], metric: str, w_values: list[float], out: Path) -> str:
    fname, ylabel, thesis = METRICS[metric]
    fig, axes = new_figure(1, len(sweeps), width=4.4, height=3.4)
    axes = np.atleast_2d(axes)
    for ax, sw in zip(axes[0], sweeps, strict=True):
        for j, (colour, m) in enumerate(zip(COLORS, METHODS, strict=False)):
            st = _stats(sw["values"][m][metric])
            # a small horizontal shift per method keeps coinciding curves visible
            xs = np.asarray(w_values) * 2.0 ** (0.05 * (j - 3))
            ax.plot(
                xs,
                st["median"],
                marker="osv^DPX"[j],
                linestyle="-" if j < 4 else "--",
                color=colour,
                label=m,
                alpha=0.85,
            )
            ax.fill_between(xs, st["q25"], st["q75"], color=colour, alpha=0.08)
        ax.set_xscale("log", base=2)
        ax.set_yscale(
            "symlog" if metric == "map" else "log",
            **({"linthresh": 1e-3} if metric == "map" else {}),
        )
        if metric == "map":  # the error is >= 0; a zero error sits on the axis
            ax.set_ylim(bottom=0.0)
        ax.set_xlabel("W_max")
        ax.set_ylabel(ylabel)
        ax.set_title(_label(sw), fontsize=9)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"{thesis} (median, quartile band; best/worst by the log Z error)")
    return save_figure(fig, out / fname)


def _findings(sweeps: list[dict[str, Any]]) -> tuple[list[list[str]], dict[str, Any]]:
    """The thesis's statements (§2.5.3) checked on the medians over runs, per ``W_max``."""
    rows: list[list[str]] = []
    facts: dict[str, Any] = {}
    for metric in ("log_z", "map", "marginals"):
        cells = [(sw, a) for sw in sweeps for a in range(len(sw["values"]["K"][metric]))]

        def med(sw: dict[str, Any], m: str, a: int, metric: str = metric) -> float:
            return float(np.median(sw["values"][m][metric][a]))

        for h in ("K", "G"):
            hurt = [med(sw, h, a) <= 1.1 * med(sw, "original", a) + 1e-6 for sw, a in cells]
            helps = [med(sw, h, a) <= 0.9 * med(sw, "original", a) for sw, a in cells]
            close = [med(sw, h, a) <= 1.25 * med(sw, "best", a) + 1e-6 for sw, a in cells]
            vs_maxtw = [med(sw, h, a) <= med(sw, "maxtW", a) + 1e-9 for sw, a in cells]
            facts[f"{metric}/{h}"] = {
                "not_worse_than_original_x1.1": sum(hurt),
                "better_than_original_x0.9": sum(helps),
                "within_1.25_x_best": sum(close),
                "at_most_maxtW": sum(vs_maxtw),
                "cells": len(cells),
            }
            c = len(cells)
            rows.append(
                [
                    f"{h} never hurts materially ({metric})",
                    f"median <= 1.1 x original's in {sum(hurt)}/{c} (sweep, W_max) cells",
                    "yes" if all(hurt) else "no",
                ]
            )
            rows.append(
                [
                    f"{h} often helps ({metric})",
                    f"median <= 0.9 x original's in {sum(helps)}/{c} cells",
                    "yes" if 3 * sum(helps) >= c else "no",
                ]
            )
            rows.append(
                [
                    f"{h} close to the best rerooting ({metric})",
                    f"median <= 1.25 x best's in {sum(close)}/{c} cells",
                    "yes" if 4 * sum(close) >= 3 * c else "no",
                ]
            )
            rows.append(
                [
                    f"{h} slightly better than maxtW ({metric})",
                    f"median <= maxtW's in {sum(vs_maxtw)}/{c} cells",
                    "yes" if 2 * sum(vs_maxtw) >= c else "no",
                ]
            )
    for sw in sweeps:
        x = sw["values"]
        gain = [
            1.0
            - np.median(x["best"]["log_z"][a]) / max(np.median(x["original"]["log_z"][a]), 1e-12)
            for a in range(x["best"]["log_z"].shape[0])
        ]
        facts[f"gain/{sw['family']}/{sw['k']}"] = gain
        if sw["k"] == 1:
            statement, ok = "strong 1-potentials reduce the benefit", gain[-1] < gain[0]
        else:
            statement = f"strong {sw['k']}-potentials increase the benefit"
            ok = gain[-1] > gain[0]
        rows.append(
            [
                f"{statement} ({sw['family']}, log Z)",
                "relative gain of the best rerooting 1 - med(best)/med(original) from "
                f"smallest to largest W_max: {gain[0]:.2f} -> {gain[-1]:.2f}",
                "yes" if ok else "no",
            ]
        )
    return rows, facts


def _tables(
    sweeps: list[dict[str, Any]], w_values: list[float], findings: list[list[str]]
) -> dict[str, Any]:
    tables: dict[str, Any] = {}
    for metric, (_, ylabel, thesis) in METRICS.items():
        rows = []
        for sw in sweeps:
            for a, w in enumerate(w_values):
                rows.append(
                    [sw["family"], sw["k"], w]
                    + [f"{np.median(sw['values'][m][metric][a]):.3g}" for m in METHODS]
                )
        tables[f"{thesis}: median {ylabel} over runs"] = {
            "columns": ["family", "swept k", "W_max", *METHODS],
            "rows": rows,
        }
    conv = [
        [
            sw["family"],
            sw["k"],
            sw["counts"]["solves"],
            sw["counts"]["dl_not_converged"],
            sw["counts"]["map_not_converged"],
        ]
        for sw in sweeps
    ]
    tables["Convergence (counts over every evaluated transformation)"] = {
        "columns": [
            "family",
            "swept k",
            "solves",
            "double-loop not converged",
            "max-product not converged",
        ],
        "rows": conv,
    }
    tables["Thesis findings (§2.5.3) checked on these runs"] = {
        "columns": ["statement", "numbers used", "holds"],
        "rows": findings,
    }
    return tables


@register(
    "rowland-rerooting",
    title="Rerooting for approximate inference: log Z, MAP, marginals, timings (K8, 5x5 grid)",
    source="Rowland (2018) §2.5, App. 2.B, Figs 2.3-2.6",
)
def run(quick: bool, out: Path, random_state: Any) -> dict:
    return run_with(QUICK if quick else FULL, out, int(random_state))


def run_with(settings: dict[str, Any], out: Path, random_state: int) -> dict:
    """The experiment with explicit settings (keys as :data:`QUICK`); ``run`` uses
    :data:`QUICK` or :data:`FULL`."""
    out = Path(out)
    w_values = settings["w_values"]
    jobs = [(f, k) for f in FAMILIES for k in settings["sweeps"][f]]
    job_seeds = seeds(int(random_state), len(jobs))
    t0 = time.perf_counter()
    tasks = list(zip(jobs, job_seeds, strict=True))
    n_jobs = int(settings.get("n_jobs", 1))
    if n_jobs > 1:  # one process per sweep; each sweep is seeded, so the order is immaterial
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=n_jobs, mp_context=ctx) as pool:
            # the grid's sweeps (the longest) first
            futures = {
                i: pool.submit(_sweep, *tasks[i][0], settings, tasks[i][1])
                for i in sorted(range(len(tasks)), key=lambda i: tasks[i][0][0] != "grid5x5")
            }
            sweeps = [futures[i].result() for i in progress(range(len(tasks)), desc="rerooting")]
    else:
        sweeps = [_sweep(f, k, settings, s) for (f, k), s in progress(tasks, desc="rerooting")]
    elapsed = time.perf_counter() - t0
    findings, facts = _findings(sweeps)
    figures = [_figure(sweeps, metric, w_values, out) for metric in METRICS]
    logz = {
        m: float(np.median(np.concatenate([sw["values"][m]["log_z"].ravel() for sw in sweeps])))
        for m in METHODS
    }
    solves = sum(sw["counts"]["solves"] for sw in sweeps)
    not_conv = sum(sw["counts"]["dl_not_converged"] for sw in sweeps)
    headline = (
        f"median |log Z error| over all runs: original {logz['original']:.3g}, uprooted "
        f"{logz['uprooted']:.3g}, K {logz['K']:.3g}, G {logz['G']:.3g}, maxtW "
        f"{logz['maxtW']:.3g}, best {logz['best']:.3g}, worst {logz['worst']:.3g}; "
        f"double-loop converged in {solves - not_conv}/{solves} solves"
    )
    return {
        "headline": headline,
        "figures": figures,
        "tables": _tables(sweeps, w_values, findings),
        "findings": findings,
        "facts": facts,
        "sweeps": [
            {
                "family": sw["family"],
                "k": sw["k"],
                "w_values": w_values,
                "values": {m: {mt: sw["values"][m][mt] for mt in METRICS} for m in METHODS},
                "summary": {
                    m: {mt: _stats(sw["values"][m][mt]) for mt in METRICS} for m in METHODS
                },
                "choices": sw["choices"],
                "counts": sw["counts"],
            }
            for sw in sweeps
        ],
        "seconds": elapsed,
        "settings": {
            **settings,
            "scales_default": THESIS_SCALES,
            "double_loop": f"tol={settings['tol']}, max_iter={settings['max_iter']}, "
            f"max_inner_iter={settings['max_inner_iter']}",
            "max_product": f"loopy_bp(mode='max', schedule='parallel', decode='argmax', "
            f"max_iter={settings['map_max_iter']}, tol={MAP_TOL})",
            "best_worst": "by the log Z error, over the evaluated vertices of M+ (root = M)",
            "marginal_error": "sum over the pure potentials E of |P(#ones in x_E even) error|",
        },
    }
