"""The large-``p`` master curve of GP learning curves on random 3-regular graphs (Urry &
Sollich 2013, Fig. 4).

The random walk kernel (eq. 2) with ``a = 2``, globally normalised, noise ``sigma^2 =
0.1``; learning curves against the rescaled number of examples ``x = nu p^(3/2)``, on
``x in [1e-2, 1e3]``.

**Left**: the eigenvalue approximation (eq. 18) on the large-``V`` spectrum of random
3-regular graphs (the Kesten-McKay law, eqs. 20-21:
:func:`kernelkit.learning_curves.regular_tree_approximation`) for ``p in {50, 100, 200,
500, 1000, 1500}``, and the master curve it tends to for large ``p`` (eqs. 22-26:
:func:`kernelkit.learning_curves.master_curve`, a function of ``x`` alone). The paper
says the collapse is fast in the initial part and slower in the tail; we measure the
largest relative distance ``|epsilon_p - epsilon_master| / epsilon_master`` separately
on the initial part ``x <= 10`` (where the master curve is above 0.8) and on the tail
``x >= 100`` (below 0.21), its decay exponent in ``p``, the smallest ``p`` of the figure
within 5 % of the master curve in each part, and the largest ``x`` up to which each
curve stays within 5 %.

**Right**: simulated learning curves (:func:`kernelkit.learning_curves.simulate`) on
random 3-regular graphs of ``V = 500`` vertices for ``p in {5, 10, 15, 20}``, on one
grid of ``x`` shared by every ``p`` (``nu = x / p^(3/2)``) so that the curves are
compared at equal ``x`` without interpolation; every ``p`` uses the same random graphs
(one seed). We report the spread ``max_p epsilon / min_p epsilon`` at fixed ``x``, and
where each curve crosses ``epsilon = 0.9, 0.5, 0.1`` (log-log interpolation): the
spread of the crossing points in ``x`` and in ``nu``, and the effective exponent ``s``
of ``nu_cross ~ p^(-s)`` (a collapse against ``nu p^(3/2)`` is ``s = 3/2``, spread 1 in
``x`` and ``(20/5)^(3/2) = 8`` in ``nu``). The same is computed for the eigenvalue
approximation at these ``p`` (dotted in the figure) and, between successive ``p``, for
the left panel's curves, where ``s`` climbs towards 3/2. Sizes of the right panel come
from :func:`kernelkit.experiments._urry.run_sizes` (quick: ``V = 250``, 4 graphs x 4 data
sets, 16 values of ``x``; full: ``V = 500``, 10 x 10, 26 values).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from kernelkit.experiments import register
from kernelkit.experiments._common import seeds
from kernelkit.experiments._urry import DEGREE, A, ensemble, run_sizes, walk_kernel
from kernelkit.learning_curves import master_curve, regular_tree_approximation, simulate
from kernelkit.plotting import new_figure, pyplot, save_figure

NOISE = 0.1
#: ``p`` of the eigenvalue approximation (left) and of the simulations (right).
P_EIGEN = (50, 100, 200, 500, 1000, 1500)
P_SIM = (5, 10, 15, 20)
#: The range of ``x = nu p^(3/2)``; the initial part and the tail of the curves.
X_RANGE = (1e-2, 1e3)
INITIAL_MAX = 10.0
TAIL_MIN = 100.0
#: "Within 5 %" of the master curve.
CLOSE = 0.05
#: Error levels at which the curves' crossing points are compared (the master curve
#: crosses them at x = 4.7, 34 and 201).
LEVELS = (0.9, 0.5, 0.1)
#: The level of the headline's effective exponents.
MAIN_LEVEL = 0.5
#: A collapse: crossing points of ``p = 5..20`` within this factor of each other.
COLLAPSED = 1.25


def _grids(quick: bool) -> tuple[np.ndarray, np.ndarray]:
    """The ``x`` grids of the eigenvalue approximation and of the simulations."""
    lo, hi = np.log10(X_RANGE)
    if quick:
        return np.logspace(lo, hi, 26), np.logspace(lo, hi, 16)
    return np.logspace(lo, hi, 51), np.logspace(lo, hi, 26)


def _master(x: np.ndarray) -> np.ndarray:
    """The master curve (eq. 26) against ``x = nu p^(3/2)``: it depends on ``nu`` and ``p``
    only through ``nu p^(3/2)``, so ``p = 1`` with ``nu = x`` gives it."""
    return master_curve(x, NOISE, d=DEGREE, a=A, p=1)


def _slope(p: np.ndarray, y: np.ndarray) -> float:
    """The exponent ``s`` of a power law ``y ~ p^s`` fitted in log-log."""
    return float(np.polyfit(np.log(p), np.log(y), 1)[0])


def _crossing(x: np.ndarray, eps: np.ndarray, level: float) -> float:
    """The ``x`` where ``eps`` first falls below ``level`` (log-log interpolation; NaN if
    it never does on the grid)."""
    below = np.flatnonzero(eps < level)
    if below.size == 0 or below[0] == 0:
        return math.nan
    k = int(below[0])
    lx, le = np.log(x[k - 1 : k + 1]), np.log(eps[k - 1 : k + 1])
    t = (math.log(level) - le[0]) / (le[1] - le[0])
    return float(np.exp(lx[0] + t * (lx[1] - lx[0])))


def _crossings(x: np.ndarray, curves: np.ndarray, ps: tuple[int, ...]) -> dict:
    """Per level: the crossing ``x`` and ``nu = x / p^(3/2)`` of each curve, their spreads
    (max / min), the local effective exponents ``s`` of ``nu_cross ~ p^(-s)`` between
    successive ``p`` and the fitted one (``s = 3/2`` is the master curve's collapse)."""
    p_arr = np.asarray(ps, dtype=float)
    out = {}
    for level in LEVELS:
        xs = np.array([_crossing(x, e, level) for e in curves])
        nus = xs / p_arr**1.5
        out[level] = {
            "x": xs,
            "nu": nus,
            "spread_x": float(np.max(xs) / np.min(xs)),
            "spread_nu": float(np.max(nus) / np.min(nus)),
            "local_exponent": -np.diff(np.log(nus)) / np.diff(np.log(p_arr)),
            "exponent": -_slope(p_arr, nus),
        }
    return out


def _close_up_to(x: np.ndarray, rel: np.ndarray) -> float:
    """The largest ``x`` of the grid up to which ``rel`` stays below :data:`CLOSE`."""
    far = np.flatnonzero(rel >= CLOSE)
    if far.size == 0:
        return float(x[-1])
    return float(x[far[0] - 1]) if far[0] > 0 else 0.0


def _smallest_close(ps: tuple[int, ...], dist: np.ndarray) -> int | None:
    """The smallest ``p`` from which on every distance is below :data:`CLOSE`."""
    ok = dist < CLOSE
    for k in range(len(ps)):
        if ok[k:].all():
            return int(ps[k])
    return None


# -- left: the eigenvalue approximation and the master curve -----------------------------


def _eigen_panel(x: np.ndarray) -> dict:
    master = _master(x)
    eps = np.array([regular_tree_approximation(DEGREE, A, p, NOISE, x / p**1.5) for p in P_EIGEN])
    rel = np.abs(eps - master) / master
    initial, tail = x <= INITIAL_MAX, x >= TAIL_MIN
    d_init, d_tail = rel[:, initial].max(axis=1), rel[:, tail].max(axis=1)
    ps = np.asarray(P_EIGEN, dtype=float)
    return {
        "x": x,
        "master": master,
        "epsilon": eps,
        "relative_distance": rel,
        "max_distance_initial": d_init,
        "max_distance_tail": d_tail,
        "exponent_initial": _slope(ps, d_init),
        "exponent_tail": _slope(ps, d_tail),
        "p_within_5pc_initial": _smallest_close(P_EIGEN, d_init),
        "p_within_5pc_tail": _smallest_close(P_EIGEN, d_tail),
        "decreasing_initial": bool(np.all(np.diff(d_init) < 0)),
        "decreasing_tail": bool(np.all(np.diff(d_tail) < 0)),
        "within_5pc_up_to_x": np.array([_close_up_to(x, r) for r in rel]),
        "crossings": _crossings(x, eps, P_EIGEN),
        "master_crossings": {level: _crossing(x, master, level) for level in LEVELS},
    }


# -- right: simulations ------------------------------------------------------------------


def _simulation_panel(quick: bool, x: np.ndarray, random_state: int) -> dict:
    sizes = run_sizes(quick)
    sampler = ensemble("regular").sampler(sizes.n_vertices)
    (seed,) = seeds(random_state, 1)  # the same graphs for every p
    eps, se = [], []
    for p in P_SIM:
        curve = simulate(
            sampler,
            walk_kernel("global", a=A, p=p),
            NOISE,
            x / p**1.5,
            n_graphs=sizes.n_graphs,
            n_datasets=sizes.n_datasets,
            random_state=seed,
        )
        eps.append(curve.epsilon)
        se.append(curve.stderr)
    E = np.array(eps)
    eigen = np.array([regular_tree_approximation(DEGREE, A, p, NOISE, x / p**1.5) for p in P_SIM])
    spread = E.max(axis=0) / E.min(axis=0)
    initial, tail = x <= INITIAL_MAX, x >= TAIL_MIN
    master = _master(x)
    log_distance = np.abs(np.log(E / master)).max(axis=1)  # to the master curve, per p
    return {
        "x": x,
        "epsilon": E,
        "stderr": np.array(se),
        "eigenvalue_approximation": eigen,
        "eigen_vs_simulation_max_relative": float(np.max(np.abs(eigen - E) / E)),
        "master": master,
        "max_log_distance_to_master": log_distance,
        "spread": spread,
        "max_spread_initial": float(spread[initial].max()),
        "max_spread_tail": float(spread[tail].max()),
        "crossings": _crossings(x, E, P_SIM),
        "eigen_crossings": _crossings(x, eigen, P_SIM),
        "n_vertices": sizes.n_vertices,
        "n_graphs": sizes.n_graphs,
        "n_datasets": sizes.n_datasets,
    }


def _findings(left: dict, right: dict) -> list[list[str]]:
    init_below_tail = bool(np.all(left["max_distance_initial"] < left["max_distance_tail"]))
    big_p = float(left["crossings"][MAIN_LEVEL]["local_exponent"][-1])
    sim, eig = right["crossings"][MAIN_LEVEL], right["eigen_crossings"][MAIN_LEVEL]
    to_master = right["max_log_distance_to_master"]

    def yn(flag: bool) -> str:
        return "yes" if flag else "no"

    return [
        [
            "left: eigenvalue curves approach the master curve as p grows",
            "max relative distance decreasing in p (initial part; tail)",
            f"{yn(left['decreasing_initial'])}; {yn(left['decreasing_tail'])}",
            yn(left["decreasing_initial"] and left["decreasing_tail"]),
        ],
        [
            "left: collapse fast in the initial part, slower in the tail",
            "distance initial < tail at every p; decay exponents in p (initial, tail)",
            f"{yn(init_below_tail)}; {left['exponent_initial']:.2f}, {left['exponent_tail']:.2f}",
            yn(init_below_tail and left["exponent_initial"] < left["exponent_tail"]),
        ],
        [
            "left: the curves scale as nu p^(3/2) for large p (eq. 26)",
            f"effective exponent at epsilon = {MAIN_LEVEL:g}, p = {P_EIGEN[-2]} -> "
            f"{P_EIGEN[-1]} (within 0.1 of 1.5)",
            f"{big_p:.3f}",
            yn(abs(big_p - 1.5) < 0.1),
        ],
        [
            "right: rescaled simulations move towards the master curve as p grows",
            "max over x of |log(epsilon / master)| decreasing in p",
            ", ".join(f"{v:.2f}" for v in to_master),
            yn(bool(np.all(np.diff(to_master) < 0))),
        ],
        [
            f"right: rescaled simulations for p = {P_SIM[0]}..{P_SIM[-1]} already on one curve",
            f"spread of x = nu p^(3/2) at epsilon = {MAIN_LEVEL:g} below {COLLAPSED} "
            f"(spread of nu; fitted exponent, 1.5 for a collapse)",
            f"{sim['spread_x']:.2f} ({sim['spread_nu']:.2f}; {sim['exponent']:.2f})",
            yn(sim["spread_x"] < COLLAPSED),
        ],
        [
            "right: the simulations scale as the eigenvalue approximation does",
            f"fitted exponent at epsilon = {MAIN_LEVEL:g}: simulation vs eigenvalue "
            "approximation at the same p (within 0.1)",
            f"{sim['exponent']:.2f} vs {eig['exponent']:.2f}",
            yn(abs(sim["exponent"] - eig["exponent"]) < 0.1),
        ],
    ]


# -- figure and tables -------------------------------------------------------------------


def _figure(left: dict, right: dict, out: Path) -> str:
    fig, axes = new_figure(1, 2, width=4.6, height=3.6)
    ax_l, ax_r = axes[0, 0], axes[0, 1]
    cmap = pyplot().get_cmap("viridis")
    shades = cmap(np.linspace(0.0, 0.85, len(P_EIGEN)))
    for k, p in enumerate(P_EIGEN):
        ax_l.plot(left["x"], left["epsilon"][k], color=shades[k], label=f"p = {p}")
    ax_l.plot(left["x"], left["master"], "k--", lw=1.2, label="master curve (eq. 26)")
    ax_l.axvspan(X_RANGE[0], INITIAL_MAX, color="0.96", zorder=0, label="initial part")
    ax_l.axvspan(TAIL_MIN, X_RANGE[1], color="0.9", zorder=0, label="tail")
    ax_l.set(title=f"eigenvalue approximation, V = inf (sigma^2 = {NOISE:g})")
    shades = cmap(np.linspace(0.0, 0.85, len(P_SIM)))
    for k, p in enumerate(P_SIM):
        ax_r.errorbar(
            right["x"],
            right["epsilon"][k],
            yerr=2 * right["stderr"][k],
            fmt="o-",
            ms=2.5,
            lw=0.9,
            capsize=1.5,
            color=shades[k],
            label=f"p = {p} (simulation)",
        )
        ax_r.plot(right["x"], right["eigenvalue_approximation"][k], ":", color=shades[k], lw=0.9)
    ax_r.plot([], [], "k:", lw=0.9, label="eigenvalue approx. (V = inf)")
    ax_r.plot(right["x"], right["master"], "k--", lw=1.2, label="master curve (eq. 26)")
    ax_r.set(
        title=f"simulation, random 3-regular graphs, V = {right['n_vertices']} "
        f"({right['n_graphs']} x {right['n_datasets']})"
    )
    for ax in (ax_l, ax_r):
        ax.set(xscale="log", yscale="log", xlabel="nu p^(3/2)", ylabel="epsilon", ylim=(5e-4, 1.5))
        ax.legend(fontsize=6, loc="lower left")
    fig.suptitle(
        f"Urry & Sollich (2013) Fig. 4: learning curves against nu p^(3/2), a = {A:g}, "
        "global normalisation"
    )
    return save_figure(fig, out / "urry_fig4.png")


def _tables(left: dict, right: dict, findings: list[list[str]]) -> dict:
    main = left["crossings"][MAIN_LEVEL]
    eig_rows = [
        [
            str(p),
            f"{left['max_distance_initial'][k]:.2e}",
            f"{left['max_distance_tail'][k]:.3f}",
            f"{left['within_5pc_up_to_x'][k]:.3g}",
            f"{main['x'][k]:.3g}",
            "–" if k == 0 else f"{main['local_exponent'][k - 1]:.3f}",
        ]
        for k, p in enumerate(P_EIGEN)
    ]
    eig_rows.append(
        [
            "master curve (eq. 26)",
            "0",
            "0",
            "–",
            f"{left['master_crossings'][MAIN_LEVEL]:.3g}",
            "1.5",
        ]
    )
    eig_rows.append(
        [
            "power-law exponent in p",
            f"{left['exponent_initial']:.2f}",
            f"{left['exponent_tail']:.2f}",
            "–",
            "–",
            "–",
        ]
    )
    eig_rows.append(
        [
            f"smallest p within {CLOSE:.0%}",
            str(left["p_within_5pc_initial"]),
            str(left["p_within_5pc_tail"]),
            "–",
            "–",
            "–",
        ]
    )
    x = right["x"]
    shown = [int(np.argmin(np.abs(np.log(x / v)))) for v in (0.1, 1.0, 10.0, 100.0, 1000.0)]
    sim_rows = [
        [f"p = {p}"]
        + [f"{right['epsilon'][k, j]:.4g} ± {right['stderr'][k, j]:.1g}" for j in shown]
        for k, p in enumerate(P_SIM)
    ]
    sim_rows.append(["spread max/min"] + [f"{right['spread'][j]:.3f}" for j in shown])
    sim_rows.append(["master curve (eq. 26)"] + [f"{right['master'][j]:.4g}" for j in shown])
    cross_rows = []
    for level in LEVELS:
        for source, c in (
            ("simulation", right["crossings"][level]),
            ("eigenvalue approx.", right["eigen_crossings"][level]),
        ):
            cross_rows.append(
                [f"{level:g}", source]
                + [f"{v:.3g}" for v in c["x"]]
                + [
                    f"{left['master_crossings'][level]:.3g}",
                    f"{c['spread_x']:.2f}",
                    f"{c['spread_nu']:.2f}",
                    f"{c['exponent']:.2f}",
                ]
            )
    return {
        "Left: the eigenvalue approximation against the master curve": {
            "columns": [
                "p",
                f"max rel. distance, initial part (x <= {INITIAL_MAX:g})",
                f"max rel. distance, tail (x >= {TAIL_MIN:g})",
                f"within {CLOSE:.0%} up to x",
                f"x at epsilon = {MAIN_LEVEL:g}",
                "effective exponent from the previous p",
            ],
            "rows": eig_rows,
        },
        "Right: simulated epsilon at fixed x = nu p^(3/2)": {
            "columns": ["curve"] + [f"x = {x[j]:.3g}" for j in shown],
            "rows": sim_rows,
        },
        "Right: where the curves for p = 5..20 cross epsilon = level": {
            "columns": ["level", "curves"]
            + [f"x, p = {p}" for p in P_SIM]
            + ["x, master curve", "spread of x", "spread of nu", "fitted exponent (1.5)"],
            "rows": cross_rows,
        },
        "Paper's findings (Sec. 3.4, Fig. 4) checked on these numbers": {
            "columns": ["finding", "checked as", "value", "reproduced"],
            "rows": findings,
        },
    }


@register(
    "urry-fig4",
    title="Master curve of learning curves on random 3-regular graphs (nu p^(3/2) scaling)",
    source="Urry & Sollich (2013) Fig. 4, eqs. 18, 20-26",
)
def run(quick: bool, out: Path, random_state: int) -> dict:
    x_eigen, x_sim = _grids(quick)
    left = _eigen_panel(x_eigen)
    right = _simulation_panel(quick, x_sim, random_state)
    findings = _findings(left, right)
    sim = right["crossings"][MAIN_LEVEL]
    headline = (
        f"eigenvalue approx. vs master curve, max rel. distance p = {P_EIGEN[0]} -> "
        f"{P_EIGEN[-1]}: initial part {left['max_distance_initial'][0]:.3f} -> "
        f"{left['max_distance_initial'][-1]:.4f} (~p^{left['exponent_initial']:.2f}), tail "
        f"{left['max_distance_tail'][0]:.2f} -> {left['max_distance_tail'][-1]:.3f} "
        f"(~p^{left['exponent_tail']:.2f}); simulations p = 5..20 (V = {right['n_vertices']}): "
        f"crossings of epsilon = {MAIN_LEVEL:g} spread x{sim['spread_x']:.2f} in nu p^(3/2) "
        f"(x{sim['spread_nu']:.2f} in nu; effective exponent {sim['exponent']:.2f}, not 1.5); "
        f"findings reproduced: {sum(row[-1] == 'yes' for row in findings)}/{len(findings)}"
    )
    return {
        "headline": headline,
        "figures": [_figure(left, right, out)],
        "tables": _tables(left, right, findings),
        "eigen": {**left, "p": P_EIGEN},
        "simulation": {**right, "p": P_SIM},
        "findings": findings,
        "noise": NOISE,
        "a": A,
    }
