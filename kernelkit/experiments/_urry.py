"""Settings and helpers shared by the Urry & Sollich (2013) reproductions (``urry-fig*``).

The paper's settings (Sec. 3-5): the random walk kernel with ``a = 2``, ``p = 10``;
noise levels ``sigma^2 in {1e-1, 1e-2, 1e-3, 1e-4}``; graphs of ``V = 500`` vertices;
three ensembles: random 3-regular graphs, Erdos-Renyi graphs with mean degree 3 and
generalised random graphs (Britton et al. 2006) whose Poisson means follow a shifted
Pareto law with exponent 2.5 and cutoff ``lambda_m = 2``.

A run's sizes (vertices, graphs, data sets, cavity population, ``nu`` grid) come from
:func:`budget`: the paper's in a full run, smaller in the quick one (the tour).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit.graphs import (
    DegreeDistribution,
    erdos_renyi_graph,
    generalized_random_graph,
    random_regular_graph,
    random_walk_kernel,
)
from kernelkit.plotting import COLORS

#: The random walk kernel's parameters throughout the paper's learning curves.
A = 2.0
P = 10
#: The noise levels of Figs. 3, 5, 7 and 8.
NOISES = (1e-1, 1e-2, 1e-3, 1e-4)
#: Random regular graphs' degree; Erdos-Renyi mean degree; power-law exponent and cutoff.
DEGREE = 3
MEAN_DEGREE = 3.0
EXPONENT = 2.5
LAMBDA_M = 2.0


@dataclass(frozen=True)
class Ensemble:
    """A random graph ensemble of the paper: its sampler and its degree law.

    Attributes
    ----------
    key : str
        ``"regular"``, ``"er"`` or ``"power-law"``.
    label : str
        For legends and tables.
    degrees : DegreeDistribution
        The degree law ``p(d)`` (for the cavity method).
    """

    key: str
    label: str
    degrees: DegreeDistribution

    def sampler(self, n_vertices: int) -> Callable[..., Any]:
        """``sampler(random_state=seed) -> networkx.Graph`` on ``n_vertices`` vertices (the
        ``ensemble`` argument of :func:`kernelkit.learning_curves.simulate`)."""
        if self.key == "regular":
            return functools.partial(random_regular_graph, DEGREE, n_vertices)
        if self.key == "er":
            return functools.partial(erdos_renyi_graph, n_vertices, MEAN_DEGREE)
        return functools.partial(generalized_random_graph, n_vertices, EXPONENT, LAMBDA_M)


def ensemble(key: str) -> Ensemble:
    """The ensemble ``"regular"``, ``"er"`` or ``"power-law"``."""
    if key == "regular":
        return Ensemble(key, f"random {DEGREE}-regular", DegreeDistribution.regular(DEGREE))
    if key == "er":
        return Ensemble(
            key, f"Erdos-Renyi, mean degree {MEAN_DEGREE:g}", DegreeDistribution.poisson(3.0)
        )
    if key == "power-law":
        return Ensemble(
            key,
            f"power law, exponent {EXPONENT:g}, cutoff {LAMBDA_M:g}",
            DegreeDistribution.pareto_mixed_poisson(EXPONENT, LAMBDA_M),
        )
    raise ValueError(f"unknown ensemble {key!r}; expected 'regular', 'er' or 'power-law'")


def walk_kernel(normalize: str, *, a: float = A, p: int = P) -> Callable[[Any], np.ndarray]:
    """``kernel(G) -> C``: the dense random walk kernel (Urry & Sollich 2013, eq. 2) with
    the given normalisation (the ``kernel`` argument of ``simulate``)."""
    return functools.partial(random_walk_kernel, a=a, p=p, normalize=normalize)


@dataclass(frozen=True)
class Budget:
    """The sizes of a run (see :func:`budget`).

    Attributes
    ----------
    n_vertices : int
        Vertices of each simulated graph.
    n_graphs, n_datasets : int
        Graphs per simulated curve, and data sets per graph and ``nu``.
    population : int
        Population of the cavity method.
    sweeps : int
        Cavity sweeps per ``nu``.
    nus : ndarray
        The ``nu`` grid of learning curves, log-spaced on ``[1e-2, 1e1]`` (Fig. 3).
    """

    n_vertices: int
    n_graphs: int
    n_datasets: int
    population: int
    sweeps: int
    nus: np.ndarray


def budget(quick: bool) -> Budget:
    """The paper's sizes (full run: ``V = 500``, 10 graphs x 10 data sets, population 2000,
    16 ``nu`` values) or a quick run's (``V = 250``, 4 x 4, population 400, 7 values)."""
    if quick:
        return Budget(250, 4, 4, 400, 12, np.logspace(-2, 1, 7))
    return Budget(500, 10, 10, 2000, 16, np.logspace(-2, 1, 16))


def noise_label(noise: float) -> str:
    """``"1e-02"`` style labels for noise levels."""
    return f"{noise:.0e}"


def plot_curves(
    ax: Any,
    nus: np.ndarray,
    curves: Sequence[tuple[str, np.ndarray, np.ndarray | None, str]],
    *,
    color: str | None = None,
) -> None:
    """Learning curves on log-log axes: ``(label, epsilon, stderr or None, linestyle)``;
    curves with a standard error get error bars."""
    for k, (label, eps, err, style) in enumerate(curves):
        c = color if color is not None else COLORS[k % len(COLORS)]
        if err is None:
            ax.plot(nus, eps, linestyle=style, color=c, label=label)
        else:
            ax.errorbar(
                nus,
                eps,
                yerr=err,
                linestyle=style,
                color=c,
                marker="o",
                ms=2.5,
                capsize=2,
                label=label,
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nu = N / V")
    ax.set_ylabel("epsilon")


def within_tolerance(
    value: np.ndarray, reference: np.ndarray, stderr: np.ndarray, *, relative: float = 0.05
) -> np.ndarray:
    """``|value - reference| <= 3 stderr + relative * |reference|`` elementwise: the spec's
    agreement test of a theory against a simulation with standard error ``stderr``."""
    value, reference, stderr = (np.asarray(x, dtype=float) for x in (value, reference, stderr))
    return np.abs(value - reference) <= 3.0 * stderr + relative * np.abs(reference)
