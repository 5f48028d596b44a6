"""Matplotlib helpers shared by the experiments and the report.

All figures go through :func:`new_figure` and :func:`save_figure`, so that they share one
look, use the non-interactive Agg backend (no display needed) and are written as PNG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.rcsetup import cycler

__all__ = ["new_figure", "save_figure", "COLORS"]

#: A colour-blind-safe cycle (Okabe & Ito), used for methods in a fixed order.
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

_STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": cycler(color=COLORS),
    "font.size": 9,
    "legend.fontsize": 8,
    "legend.frameon": False,
}


def new_figure(
    nrows: int = 1, ncols: int = 1, *, width: float = 4.2, height: float = 3.2, **kw: Any
) -> tuple[Any, Any]:
    """A figure with ``nrows x ncols`` axes, each about ``width x height`` inches.

    Returns the figure and a single axes (1 x 1) or the 2-D array of axes.
    """
    # the stub types rcParams keys as a Literal of known names; _STYLE's keys are among them
    matplotlib.rcParams.update(_STYLE)  # type: ignore[arg-type]
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kw
    )
    return fig, (axes[0, 0] if nrows == ncols == 1 else axes)


def save_figure(fig: Any, path: str | Path) -> str:
    """Write ``fig`` as PNG to ``path``, close it, and return the file name."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
    return path.name
