"""A whole cavity learning curve by population dynamics, against the 30 s target of issue 14.

``kernelkit.learning_curves.cavity(degree_distribution, a=2, p=10, noise=0.01, nus,
normalize=..., population=2000, random_state=0)`` with its default ``sweeps`` and
``n_jobs``, 20 values of ``nu`` log-spaced from 0.01 to 10 (``--quick``: 5 values and a
population of 500), for four settings: Erdos-Renyi graphs of mean degree 3
(``DegreeDistribution.poisson(3.0)``) and random 3-regular graphs
(``DegreeDistribution.regular(3)``), each with global and local normalisation (Urry &
Sollich 2013, Sec. 4, Figs. 3-5).

There is no peer library: the paper's authors used research code only, and no package
implements the cavity method for GP learning curves. The figure of merit is the wall time
of a whole curve against the issue's target of 30 s on 2 cores; the RESULT line gives
``ratio = 30 / worst time`` (above 1 meets the target) with ``peer_s=30``, the target, in the
peer's place.

Sanity check (untimed): for each setting, ``epsilon`` at five of the ``nu`` next to an exact
simulation (``learning_curves.simulate``) on graphs of V = 500 vertices (``--quick``: 200)
drawn from the same ensemble, 4 graphs x 4 data sets, with its standard error. The cavity
method is the large-V limit, so the two agree up to finite-size effects and the noise of
the simulation (a few standard errors; Figs. 3-5 show agreement at V = 500). The
``SingularKernelWarning`` of ``simulate`` on ER graphs (small tree components make the
``a = 2`` kernel singular; the simulation is exact regardless) is silenced there.

Each setting is warmed up once on two values of ``nu`` with a population of 200, then the
settings run in turn, ``--repeats`` times (default 1: a run is many seconds), and the median
per setting is reported with the load average before the timed runs (the machine is
shared). The last line is ``RESULT cavity ratio=<30 / worst> ours_s=<worst> peer_s=30 ...``.

Usage: ``python benchmarks/cavity.py [--quick] [--repeats R]``.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import alternate, parser, peak_rss_mb, result_line

from kernelkit.graphs import random_walk_kernel
from kernelkit.graphs.ensembles import (
    DegreeDistribution,
    erdos_renyi_graph,
    random_regular_graph,
)
from kernelkit.learning_curves import cavity, simulate

A, P, NOISE = 2.0, 10, 0.01
TARGET_S = 30.0  # issue 14: a whole curve in under 30 s on 2 cores


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeats=1)
    args = p.parse_args()
    nus = np.logspace(-2, 1, 5 if args.quick else 20)
    population = 500 if args.quick else 2000
    n_vertices = 200 if args.quick else 500
    settings = {
        f"{name} {normalize}": (law, ensemble, normalize)
        for name, law, ensemble in [
            (
                "ER(3)",
                DegreeDistribution.poisson(3.0),
                lambda V, **kw: erdos_renyi_graph(V, 3.0, **kw),
            ),
            (
                "3-regular",
                DegreeDistribution.regular(3),
                functools.partial(random_regular_graph, 3),
            ),
        ]
        for normalize in ("global", "local")
    }

    def run(
        law: DegreeDistribution, normalize: str, nus: np.ndarray = nus, population: int = population
    ):
        return cavity(
            law, A, P, NOISE, nus, normalize=normalize, population=population, random_state=0
        )

    for law, _, normalize in settings.values():  # warm-up: imports, code paths, thread pools
        run(law, normalize, nus[[0, -1]], 200)
    load = os.getloadavg()[0]
    times, out = alternate(
        {
            key: functools.partial(run, law, normalize)
            for key, (law, _, normalize) in settings.items()
        },
        args.repeats,
    )

    print(
        f"cavity: a={A:g}, p={P}, sigma^2={NOISE:g}, {nus.size} nu in [{nus[0]:g}, {nus[-1]:g}], "
        f"population {population}, default sweeps and n_jobs"
    )
    print(f"load average before the timed runs: {load:.2f} on {os.cpu_count()} cores")
    print(
        f"{'setting':>17} {'time_s':>8} {'target_s':>8} {'converged':>9} (median of {args.repeats})"
    )
    for key, t in times.items():
        r = out[key]
        print(
            f"{key:>17} {t:>8.2f} {TARGET_S:>8.0f} {int(r.converged.sum()):>5}/{r.converged.size}"
        )

    # Sanity check against an exact simulation at finite V (untimed).
    picks = np.unique(np.linspace(0, nus.size - 1, 5).round().astype(int))
    print(f"sanity check: epsilon, cavity vs simulate (V={n_vertices}, 4 graphs x 4 data sets)")
    print(f"{'setting':>17} {'nu':>7} {'cavity':>9} {'simulate':>9} {'sim_se':>8} {'z':>6}")
    worst_z = 0.0
    for key, (_, ensemble, normalize) in settings.items():
        kernel = functools.partial(random_walk_kernel, a=A, p=P, normalize=normalize)
        with warnings.catch_warnings():
            # ER graphs have small tree (bipartite) components, where the a = 2 kernel is
            # singular; simulate handles that exactly and warns, as it should.
            warnings.filterwarnings("ignore", message=".*kernel with a=2 is singular")
            curve = simulate(
                functools.partial(ensemble, n_vertices),
                kernel,
                NOISE,
                nus[picks],
                n_graphs=4,
                n_datasets=4,
                random_state=0,
            )
        for j, k in enumerate(picks):
            cav, sim, se = out[key].epsilon[k], curve.epsilon[j], curve.stderr[j]
            z = (cav - sim) / se if se > 0 else 0.0
            worst_z = max(worst_z, abs(z))
            print(f"{key:>17} {nus[k]:>7.3g} {cav:>9.4g} {sim:>9.4g} {se:>8.2g} {z:>6.1f}")

    worst_key = max(times, key=times.__getitem__)
    worst = times[worst_key]
    print(f"worst: {worst_key}, {worst:.2f} s against the {TARGET_S:.0f} s target")
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    print(
        result_line(
            "cavity",
            TARGET_S / worst,
            worst,
            TARGET_S,
            target_s=TARGET_S,
            peer="none",
            worst_setting=worst_key.replace(" ", "_").replace("(3)", "3"),
            **{
                k.replace(" ", "_").replace("(3)", "3") + "_s": round(t, 2)
                for k, t in times.items()
            },
            max_abs_z_vs_simulate=round(worst_z, 1),
            population=population,
            n_nus=nus.size,
        )
    )


if __name__ == "__main__":
    main()
