"""Matplotlib helpers shared by the experiments and the report.

All figures go through :func:`new_figure` and :func:`save_figure`, so that they share one
look, use the non-interactive Agg backend (no display needed) and are written as PNG.

matplotlib is optional (``pip install "kernelkit[plot]"``, as scikit-learn's plotting
extra): it is imported on the first figure, and without it drawing one raises an
``ImportError`` that says how to install it; the rest of the library does not need it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

__all__ = ["COLORS", "new_figure", "pyplot", "save_figure"]

#: A colour-blind-safe cycle (Okabe & Ito), used for methods in a fixed order.
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

_STYLE: dict[str, Any] = {
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "font.size": 9,
    "legend.fontsize": 8,
    "legend.frameon": False,
}


@functools.cache
def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend, styled (imported and set up once); a
    clear ImportError when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError(
            "drawing figures needs matplotlib, which is not installed; install it with "
            "pip install 'kernelkit[plot]' (or pip install matplotlib)"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.rcsetup import cycler

    # the stubs type rcParams keys as a Literal of known names; ours are among them
    matplotlib.rcParams.update({**_STYLE, "axes.prop_cycle": cycler(color=COLORS)})  # type: ignore[dict-item]
    return plt


def new_figure(
    nrows: int = 1, ncols: int = 1, *, width: float = 4.2, height: float = 3.2, **kw: Any
) -> tuple[Any, Any]:
    """A figure with ``nrows x ncols`` axes, each about ``width x height`` inches.

    Parameters
    ----------
    nrows, ncols : int, default=1
        The grid of axes.
    width : float, default=4.2
        Width of each axes' share of the figure, in inches.
    height : float, default=3.2
        Height of each axes' share of the figure, in inches.
    **kw
        Passed on to ``matplotlib.pyplot.subplots`` (e.g. ``sharex=True``).

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure.
    axes : matplotlib.axes.Axes or ndarray of Axes
        A single axes (1 x 1), or the 2-D array of axes of shape ``(nrows, ncols)``.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    """
    fig, axes = pyplot().subplots(
        nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kw
    )
    return fig, (axes[0, 0] if nrows == ncols == 1 else axes)


def save_figure(fig: Any, path: str | Path) -> str:
    """Write ``fig`` as PNG to ``path``, close it, and return the file name.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure; laid out tightly before saving.
    path : str or pathlib.Path
        Where to write it; missing parent folders are created.

    Returns
    -------
    str
        The file name of ``path`` (without its folder).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, format="png")
    pyplot().close(fig)
    return path.name
