"""scikit-optimize's figures of a search space: where a run evaluated, and what its
surrogate learned.

:func:`plot_evaluations` and :func:`plot_objective` draw the lower-triangular matrices of
``skopt.plots`` (same names, arguments and defaults, scikit-optimize 0.10) for an
:class:`~kernelkit.optimize.OptimizationResult` over any
:class:`~kernelkit.optimize.Space`: real, integer and categorical dimensions, the
categories as tick labels, log-uniform dimensions on log axes. The implementation is
kernelkit's own; the figures are made by :func:`kernelkit.plotting.new_figure` and
returned (scikit-optimize returns the array of axes: they are ``fig.axes``).

The partial dependence they draw (Friedman 2001, "Greedy function approximation: a
gradient boosting machine", section 8.2) is the surrogate's prediction with one or two
dimensions set to grid values and the others averaged over sample points,

    PD_i(v) = (1 / n) sum_s m(z_s with dimension i set to v),

computed on the surrogate's cube (``space.transform``) by
:func:`partial_dependence_1d` and :func:`partial_dependence_2d`, which return the grid
and the values as :class:`PartialDependence1D` and :class:`PartialDependence2D`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import minimize

from kernelkit._validation import (
    check_array,
    check_bool,
    check_in,
    check_int,
    check_nonnegative_number,
    check_positive_scalar,
    check_random_state,
)
from kernelkit.optimize.bayesopt import OptimizationResult
from kernelkit.optimize.space import Categorical, Dimension, Integer, Space
from kernelkit.plotting import new_figure

__all__ = [
    "PartialDependence1D",
    "PartialDependence2D",
    "partial_dependence_1d",
    "partial_dependence_2d",
    "plot_evaluations",
    "plot_objective",
]

#: Rows predicted at once (grid values times samples) in a partial dependence.
_CHUNK_ROWS = 2**16
#: The reference points scikit-optimize's ``plot_objective`` can average over or mark.
_REFERENCES = ("result", "expected_minimum", "expected_minimum_random")
#: Random points of "expected_minimum_random" by default: 10 ** n_dims, at most this many.
_MAX_RANDOM_SEARCH = 100_000


# ------------------------------------------------------------------ partial dependence
@dataclass(frozen=True)
class PartialDependence1D:
    """The partial dependence of a model on one dimension, as
    :func:`partial_dependence_1d` returns it.

    Unpacks as scikit-optimize's pair ``xi, yi = partial_dependence_1d(...)``
    (``positions``, ``mean``).

    Attributes
    ----------
    dimension : int
        The dimension ``i``.
    grid : list
        The dimension's values where the dependence was computed: floats, ints or
        categories.
    positions : ndarray of shape (n_grid,)
        Where they are drawn: the values themselves, a category's index in
        ``categories``.
    mean : ndarray of shape (n_grid,)
        The model's prediction with dimension ``i`` set to each grid value, averaged
        over the samples.
    """

    dimension: int
    grid: list[Any]
    positions: np.ndarray
    mean: np.ndarray

    def __iter__(self) -> Any:
        return iter((self.positions, self.mean))


@dataclass(frozen=True)
class PartialDependence2D:
    """The partial dependence of a model on two dimensions, as
    :func:`partial_dependence_2d` returns it.

    Unpacks as scikit-optimize's triple ``xi, yi, zi = partial_dependence_2d(...)``
    (``positions_j``, ``positions_i``, ``mean``: dimension ``j`` along x, ``i`` along y).

    Attributes
    ----------
    dimensions : tuple of (int, int)
        The dimensions ``(i, j)``.
    grid_i, grid_j : list
        Their values where the dependence was computed.
    positions_i, positions_j : ndarray
        Where they are drawn (a category's index for a ``Categorical``).
    mean : ndarray of shape (len(grid_i), len(grid_j))
        ``mean[a, b]``: the model's prediction with dimension ``i`` set to
        ``grid_i[a]`` and ``j`` to ``grid_j[b]``, averaged over the samples.
    """

    dimensions: tuple[int, int]
    grid_i: list[Any]
    grid_j: list[Any]
    positions_i: np.ndarray
    positions_j: np.ndarray
    mean: np.ndarray

    def __iter__(self) -> Any:
        return iter((self.positions_j, self.positions_i, self.mean))


def dimension_grid(dim: Dimension, n_points: int) -> tuple[list[Any], np.ndarray]:
    """At most ``n_points`` values spread over a dimension, and where they are drawn.

    A uniform ``Real``: evenly spaced, both ends included; a log-uniform one: evenly
    spaced in the logarithm. An ``Integer``: every integer when there are at most
    ``n_points``, otherwise evenly spaced ones (in the logarithm for log-uniform),
    rounded, without repeats. A ``Categorical``: every category when there are at most
    ``n_points``, otherwise evenly spaced ones in order (scikit-optimize's choice).

    Parameters
    ----------
    dim : Real, Integer or Categorical
        The dimension.
    n_points : int >= 1
        The most values.

    Returns
    -------
    values : list
        The values: floats, ints or categories.
    positions : ndarray of shape (len(values),)
        The values as floats, a category's index for a ``Categorical``.

    Examples
    --------
    >>> from kernelkit.optimize import Integer, Real
    >>> dimension_grid(Integer(1, 4), 10)[0]
    [1, 2, 3, 4]
    >>> dimension_grid(Real(1.0, 100.0, "log-uniform"), 3)[0]
    [1.0, 10.0, 100.0]
    """
    check_int(n_points, "n_points", minimum=1)
    if isinstance(dim, Categorical):
        k = len(dim.categories)
        idx = np.unique(np.rint(np.linspace(0, k - 1, min(k, n_points))).astype(int))
        return [dim.categories[a] for a in idx], idx.astype(float)
    low, high = dim.bounds
    log = dim.prior == "log-uniform"
    if isinstance(dim, Integer):
        if high - low + 1 <= n_points:
            ints = np.arange(low, high + 1, dtype=np.int64)
        else:
            spread = np.geomspace if log else np.linspace
            ints = np.unique(np.rint(spread(low, high, n_points)).astype(np.int64))
        return [int(v) for v in ints], ints.astype(float)
    if n_points == 1:
        v = np.array([float(np.sqrt(low * high)) if log else 0.5 * (low + high)])
    else:
        v = np.geomspace(low, high, n_points) if log else np.linspace(low, high, n_points)
        v = np.clip(v, low, high)
        v[0], v[-1] = low, high
    return [float(x) for x in v], v


def _check_space(space: Any) -> Space:
    if not isinstance(space, Space):
        raise TypeError(
            f"space must be a kernelkit.optimize.Space (e.g. result.space), got "
            f"{type(space).__name__}"
        )
    return space


def _check_model(model: Any) -> Any:
    if not callable(getattr(model, "predict", None)):
        raise TypeError(
            f"model must have a predict(Z) method (e.g. result.models[-1]), got "
            f"{type(model).__name__}"
        )
    return model


def _check_dim(i: Any, name: str, space: Space) -> int:
    i = check_int(i, name, minimum=0)
    if i >= space.n_dims:
        raise ValueError(
            f"{name} must be a dimension index in [0, {space.n_dims - 1}], got {i} "
            f"(the space has {space.n_dims} dimensions)"
        )
    return i


def _check_samples(samples: Any, space: Space) -> np.ndarray:
    return check_array(samples, "samples", n_features=space.transformed_n_dims)


def _block(space: Space, i: int) -> slice:
    """The columns of dimension ``i`` in the surrogate's cube."""
    start = sum(d.transformed_size for d in space.dimensions[:i])
    return slice(start, start + space.dimensions[i].transformed_size)


def _averages(
    model: Any, samples: np.ndarray, columns: slice, T: np.ndarray, fixed: Any = None
) -> np.ndarray:
    """For each row ``t`` of ``T``: the mean over the samples of the model's prediction
    with ``columns`` set to ``t`` (and ``fixed = (columns, row)`` set too)."""
    n = samples.shape[0]
    base = samples.copy()
    if fixed is not None:
        base[:, fixed[0]] = fixed[1]
    out = np.empty(T.shape[0])
    step = max(1, _CHUNK_ROWS // n)
    for a in range(0, T.shape[0], step):
        block = T[a : a + step]
        Z = np.repeat(base[None], block.shape[0], axis=0)
        Z[:, :, columns] = block[:, None, :]
        pred = np.asarray(model.predict(Z.reshape(-1, base.shape[1])), dtype=float)
        if pred.size != Z.shape[0] * n:
            raise ValueError(
                f"model.predict returned {pred.size} values for {Z.shape[0] * n} points"
            )
        out[a : a + block.shape[0]] = pred.reshape(block.shape[0], n).mean(axis=1)
    return out


def partial_dependence_1d(
    space: Space, model: Any, i: int, samples: Any, n_points: int = 40
) -> PartialDependence1D:
    """The partial dependence of ``model`` on dimension ``i`` of ``space``.

    For each value ``v`` of the grid of :func:`dimension_grid`, the model's prediction
    at every sample with dimension ``i`` set to ``v``, averaged over the samples (the
    other dimensions averaged out); scikit-optimize's ``partial_dependence_1D``.

    Parameters
    ----------
    space : Space
        The search space.
    model : object with ``predict(Z)``
        A model on the space's cube, such as ``result.models[-1]``.
    i : int
        The dimension.
    samples : array-like of shape (n_samples, space.transformed_n_dims)
        The points to average over, on the cube: ``space.transform(points)``.
    n_points : int >= 1, default=40
        The most grid values (fewer for a short ``Integer`` range or few categories).

    Returns
    -------
    PartialDependence1D
        The grid, where it is drawn, and the averages.

    Raises
    ------
    ValueError
        ``i`` outside the space, ``samples`` of the wrong width, ``n_points < 1``.
    TypeError
        ``space`` not a Space, ``model`` without ``predict``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.optimize import Integer, Real, Space
    >>> class SumOfCoordinates:
    ...     def predict(self, Z):
    ...         return np.asarray(Z).sum(axis=1)
    >>> space = Space([Real(0.0, 1.0), Integer(0, 2)])
    >>> samples = space.transform([[0.0, 0], [1.0, 2]])
    >>> pd = partial_dependence_1d(space, SumOfCoordinates(), 1, samples)
    >>> pd.grid, pd.mean.round(3).tolist()  # 0.5 (first coordinate averaged) + z(j)
    ([0, 1, 2], [0.667, 1.0, 1.333])
    """
    space = _check_space(space)
    model = _check_model(model)
    i = _check_dim(i, "i", space)
    samples = _check_samples(samples, space)
    n_points = check_int(n_points, "n_points", minimum=1)
    dim = space.dimensions[i]
    grid, positions = dimension_grid(dim, n_points)
    mean = _averages(model, samples, _block(space, i), dim.transform(grid))
    return PartialDependence1D(i, grid, positions, mean)


def partial_dependence_2d(
    space: Space, model: Any, i: int, j: int, samples: Any, n_points: int = 40
) -> PartialDependence2D:
    """The partial dependence of ``model`` on dimensions ``i`` and ``j`` of ``space``.

    For each pair of grid values (:func:`dimension_grid`), the model's prediction at
    every sample with dimensions ``i`` and ``j`` set to them, averaged over the samples;
    scikit-optimize's ``partial_dependence_2D``.

    Parameters
    ----------
    space : Space
        The search space.
    model : object with ``predict(Z)``
        A model on the space's cube, such as ``result.models[-1]``.
    i, j : int
        Two different dimensions (``i`` along the rows of ``mean``, drawn along y).
    samples : array-like of shape (n_samples, space.transformed_n_dims)
        The points to average over, on the cube: ``space.transform(points)``.
    n_points : int >= 1, default=40
        The most grid values per dimension.

    Returns
    -------
    PartialDependence2D
        The grids, where they are drawn, and the averages.

    Raises
    ------
    ValueError
        ``i`` or ``j`` outside the space or ``i == j``, ``samples`` of the wrong width,
        ``n_points < 1``.
    TypeError
        ``space`` not a Space, ``model`` without ``predict``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.optimize import Categorical, Real, Space
    >>> class Product:
    ...     def predict(self, Z):
    ...         return Z[:, 0] * Z[:, 2]  # x times the one-hot coordinate of "b"
    >>> space = Space([Real(0.0, 1.0), Categorical(["a", "b"])])
    >>> samples = space.transform([[0.5, "a"]])
    >>> pd = partial_dependence_2d(space, Product(), 0, 1, samples, n_points=3)
    >>> pd.grid_j, pd.mean.tolist()
    (['a', 'b'], [[0.0, 0.0], [0.0, 0.5], [0.0, 1.0]])
    """
    space = _check_space(space)
    model = _check_model(model)
    i = _check_dim(i, "i", space)
    j = _check_dim(j, "j", space)
    if i == j:
        raise ValueError(f"i and j must be two different dimensions, got i = j = {i}")
    samples = _check_samples(samples, space)
    n_points = check_int(n_points, "n_points", minimum=1)
    dim_i, dim_j = space.dimensions[i], space.dimensions[j]
    grid_i, pos_i = dimension_grid(dim_i, n_points)
    grid_j, pos_j = dimension_grid(dim_j, n_points)
    T_i, T_j = dim_i.transform(grid_i), dim_j.transform(grid_j)
    cols_i, cols_j = _block(space, i), _block(space, j)
    mean = np.stack([_averages(model, samples, cols_j, T_j, (cols_i, t)) for t in T_i])
    return PartialDependence2D((i, j), grid_i, grid_j, pos_i, pos_j, mean)


#: scikit-optimize's spellings, so that its imports work unchanged.
partial_dependence_1D = partial_dependence_1d
partial_dependence_2D = partial_dependence_2d


# ------------------------------------------------------------------ shared checks
def _check_result(result: Any, need_model: bool) -> Space:
    if not isinstance(result, OptimizationResult):
        raise TypeError(
            f"result must be an OptimizationResult (from BayesianOptimizer.run or "
            f".result()), got {type(result).__name__}"
        )
    if not isinstance(result.space, Space):
        raise ValueError("result has no search space (result.space is None)")
    if result.n_calls == 0:
        raise ValueError("result has no evaluations yet: nothing to plot")
    if need_model and not result.models:
        raise ValueError(
            "result has no fitted surrogate (result.models is empty): plot_objective needs "
            "a run that went past its initial design"
        )
    return result.space


def _plot_dims(space: Space, plot_dims: Any) -> list[int]:
    """The indices of the dimensions to draw (scikit-optimize's ``plot_dims``)."""
    names = space.dimension_names
    if plot_dims is None:
        dims = [
            k
            for k, d in enumerate(space.dimensions)
            if not (isinstance(d, Categorical) and len(d.categories) == 1)
        ]
        if not dims:
            raise ValueError("every dimension of result.space is constant: nothing to plot")
        return dims
    if isinstance(plot_dims, (str, bytes)) or not isinstance(plot_dims, (Sequence, np.ndarray)):
        raise TypeError(
            f"plot_dims must be a list of dimension names or indices, got "
            f"{type(plot_dims).__name__} {plot_dims!r}"
        )
    if len(plot_dims) == 0:
        raise ValueError("plot_dims must name at least one dimension, got none")
    dims = []
    for k, p in enumerate(plot_dims):
        if isinstance(p, str):
            if p not in names:
                raise ValueError(
                    f"plot_dims[{k}] = {p!r} is not a dimension of the space; its names are "
                    f"{', '.join(names)}"
                )
            dims.append(names.index(p))
        elif isinstance(p, numbers.Integral) and not isinstance(p, (bool, np.bool_)):
            if not 0 <= int(p) < space.n_dims:
                raise ValueError(
                    f"plot_dims[{k}] = {p} is not a dimension index in [0, {space.n_dims - 1}]"
                )
            dims.append(int(p))
        else:
            raise TypeError(
                f"plot_dims[{k}] must be a dimension name (str) or index (int), got "
                f"{type(p).__name__} {p!r}"
            )
    if len(set(dims)) != len(dims):
        raise ValueError(f"plot_dims names a dimension twice: {list(plot_dims)!r}")
    return dims


def _labels(space: Space, dims: list[int], dimensions: Any) -> list[str]:
    if dimensions is None:
        return [space.dimension_names[k] for k in dims]
    if isinstance(dimensions, (str, bytes)) or not isinstance(dimensions, Sequence):
        raise TypeError(f"dimensions must be a list of labels, got {type(dimensions).__name__}")
    if len(dimensions) != len(dims):
        raise ValueError(
            f"dimensions must give one label per plotted dimension ({len(dims)}), got "
            f"{len(dimensions)}"
        )
    return [str(label) for label in dimensions]


def _positions(space: Space, points: list[list[Any]]) -> np.ndarray:
    """Points as numbers to draw, shape ``(n, n_dims)``: a category's index for a
    ``Categorical``, the value otherwise."""
    P = np.empty((len(points), space.n_dims))
    for k, dim in enumerate(space.dimensions):
        column = [p[k] for p in points]
        if isinstance(dim, Categorical):
            P[:, k] = np.argmax(dim.transform(column), axis=1)
        else:
            P[:, k] = np.asarray(column, dtype=float)
    return P


def _grid_axes(n: int, size: float, wspace: float, hspace: float, ax: Any) -> tuple[Any, Any]:
    """A figure with an ``n x n`` grid of axes (inside ``ax`` when given)."""
    if ax is None:
        fig, axes = new_figure(n, n, width=size, height=size)
        fig.subplots_adjust(wspace=wspace, hspace=hspace)
        return fig, np.asarray(axes, dtype=object).reshape(n, n)
    fig = ax.figure
    grid = ax.get_subplotspec().subgridspec(n, n, wspace=wspace, hspace=hspace)
    ax.set_axis_off()
    axes = np.empty((n, n), dtype=object)
    for a in range(n):
        for b in range(n):
            axes[a, b] = fig.add_subplot(grid[a, b])
    return fig, axes


def _format_axis(ax: Any, dim: Dimension, which: str) -> None:
    """Limits, scale and ticks of one axis ("x" or "y") for a dimension."""
    from matplotlib import ticker

    axis = ax.xaxis if which == "x" else ax.yaxis
    set_lim = ax.set_xlim if which == "x" else ax.set_ylim
    set_scale = ax.set_xscale if which == "x" else ax.set_yscale
    if isinstance(dim, Categorical):
        k = len(dim.categories)
        axis.set_major_locator(ticker.FixedLocator(list(range(k))))
        axis.set_major_formatter(ticker.FixedFormatter([str(c) for c in dim.categories]))
        set_lim(-0.5, k - 0.5)
        return
    low, high = dim.bounds
    pad = 0.5 if isinstance(dim, Integer) else 0.0
    if dim.prior == "log-uniform":
        set_scale("log")
    else:
        axis.set_major_locator(
            ticker.MaxNLocator(4, integer=isinstance(dim, Integer), prune="both")
        )
    set_lim(low - pad, high + pad)


def _format_matrix(
    axes: Any, space: Space, dims: list[int], labels: list[str], diag_label: str
) -> None:
    """scikit-optimize's layout: the upper triangle hidden, the diagonal's y-axis on the
    right (shared limits) and its x label on top, the lower triangle labelled on the left
    column and the bottom row only."""
    n = len(dims)
    lows, highs = zip(*(axes[a, a].get_ylim() for a in range(n)), strict=True)
    for a in range(n):
        for b in range(n):
            ax = axes[a, b]
            if b > a:
                ax.set_axis_off()
                continue
            dim_a, dim_b = space.dimensions[dims[a]], space.dimensions[dims[b]]
            _format_axis(ax, dim_b, "x")
            if a == b:
                ax.set_ylim(min(lows), max(highs))
                ax.yaxis.tick_right()
                ax.yaxis.set_label_position("right")
                ax.set_ylabel(diag_label)
                ax.xaxis.tick_top()
                ax.xaxis.set_label_position("top")
                ax.set_xlabel(labels[b])
                continue
            _format_axis(ax, dim_a, "y")
            if b == 0:
                ax.set_ylabel(labels[a])
            else:
                ax.tick_params(labelleft=False)
            if a == n - 1:
                ax.set_xlabel(labels[b])
                ax.tick_params(axis="x", labelrotation=45)
            else:
                ax.tick_params(labelbottom=False)


def _check_spacing(size: Any, wspace: Any, hspace: Any) -> tuple[float, float, float]:
    size = check_positive_scalar(size, "size")
    wspace = check_nonnegative_number(wspace, "wspace")
    hspace = check_nonnegative_number(hspace, "hspace")
    return size, wspace, hspace


# ------------------------------------------------------------------ plot_evaluations
def _bin_edges(dim: Dimension, bins: int) -> np.ndarray:
    if isinstance(dim, Categorical):
        return np.arange(len(dim.categories) + 1) - 0.5
    low, high = dim.bounds
    log = dim.prior == "log-uniform"
    if isinstance(dim, Integer):
        if high - low + 1 <= bins:
            return np.arange(low, high + 2) - 0.5
        low, high = low - 0.5, high + 0.5
    return np.geomspace(low, high, bins + 1) if log else np.linspace(low, high, bins + 1)


def plot_evaluations(
    result: Any,
    bins: int = 20,
    dimensions: Any = None,
    plot_dims: Any = None,
    size: float = 2,
    wspace: float = 0.35,
    hspace: float = 0.35,
    cmap: Any = "viridis",
    ax: Any = None,
) -> Any:
    """Where a run evaluated: scikit-optimize's ``plot_evaluations``.

    A lower-triangular matrix of axes over the plotted dimensions: on the diagonal a
    histogram of each dimension's evaluated values, below it the evaluated points of
    each pair of dimensions, coloured by their order (``cmap``, earliest darkest), the
    best point as a red star. Categories are drawn at their index and labelled by name,
    integers get integer ticks (one bin per integer when they fit in ``bins``),
    log-uniform dimensions log axes with log-spaced bins.

    Parameters
    ----------
    result : OptimizationResult
        A run with its ``space``.
    bins : int >= 1, default=20
        Histogram bins of a ``Real`` dimension (and of a long ``Integer`` range).
    dimensions : list of str, optional
        Axis labels, one per plotted dimension; default the dimension names.
    plot_dims : list of str or int, optional
        The dimensions to draw, by name or index; default every dimension that is not
        constant (a ``Categorical`` of one category).
    size : float, default=2
        Width and height of each axes, in inches.
    wspace, hspace : float, default=0.35
        Space between the axes, as a fraction of their width and height.
    cmap : str or Colormap, default="viridis"
        Colours of the points by order.
    ax : matplotlib Axes, optional
        Draw the matrix inside these axes instead of a new figure.

    Returns
    -------
    matplotlib Figure
        The figure; the matrix's ``n x n`` axes are in ``fig.axes`` (row by row; the
        upper triangle hidden).

    Raises
    ------
    ValueError
        A result without space or evaluations, a bad ``plot_dims`` or ``dimensions``,
        ``bins < 1``.
    TypeError
        ``result`` not an ``OptimizationResult``, arguments of the wrong type.

    Examples
    --------
    >>> from kernelkit.optimize import BayesianOptimizer, get_function
    >>> res = BayesianOptimizer(get_function("branin"), random_state=0).run(8)
    >>> fig = plot_evaluations(res, bins=5)
    >>> len(fig.axes), sum(ax.axison for ax in fig.axes)
    (4, 3)
    """
    space = _check_result(result, need_model=False)
    bins = check_int(bins, "bins", minimum=1)
    dims = _plot_dims(space, plot_dims)
    labels = _labels(space, dims, dimensions)
    size, wspace, hspace = _check_spacing(size, wspace, hspace)
    P = _positions(space, result.x_iters)
    best = _positions(space, [result.x])[0]
    order = np.arange(P.shape[0])
    n = len(dims)
    fig, axes = _grid_axes(n, size, wspace, hspace, ax)
    for a in range(n):
        for b in range(a + 1):
            ka, kb = dims[a], dims[b]
            if a == b:
                axes[a, a].hist(P[:, ka], bins=_bin_edges(space.dimensions[ka], bins))
            else:
                axes[a, b].scatter(
                    P[:, kb], P[:, ka], c=order, s=40, lw=0.0, cmap=cmap, clip_on=False
                )
                axes[a, b].scatter(
                    best[kb], best[ka], c="r", s=100, lw=0.0, marker="*", clip_on=False
                )
    _format_matrix(axes, space, dims, labels, "number of samples")
    return fig


# ------------------------------------------------------------------ plot_objective
def _point(space: Space, value: Any, name: str) -> list[Any]:
    """A point of ``space`` given as a list (for ``minimum`` or ``sample_source``)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    try:
        space.validate(value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}, a point of the space: {exc}") from None
    return list(value)


def _best_of_model(
    result: Any, model: Any, n_search: int | None, rng: np.random.RandomState, local: bool
) -> list[Any]:
    """The point where ``model`` predicts the best value (lowest; highest with
    ``maximize``): scikit-optimize's ``expected_minimum`` (``local``: L-BFGS-B on the
    cube from the best evaluated point and ``n_search`` random starts, for spaces of
    reals only) or ``expected_minimum_random_sampling`` (the best of ``n_search``
    random points)."""
    space = result.space
    sign = -1.0 if result.maximize else 1.0
    if not (local and space.is_real):
        if n_search is None:
            n_search = _MAX_RANDOM_SEARCH if local else min(10**space.n_dims, _MAX_RANDOM_SEARCH)
        points = space.rvs(n_search, random_state=rng)
        values = sign * np.asarray(model.predict(space.transform(points)), dtype=float)
        return list(points[int(np.argmin(values))])
    n_search = 20 if n_search is None else n_search
    d = space.transformed_n_dims
    starts = np.vstack([space.transform([result.x]), rng.uniform(size=(n_search, d))])

    def value(z: np.ndarray) -> float:
        return sign * float(np.asarray(model.predict(z[None, :]), dtype=float)[0])

    best_z, best_value = starts[0], np.inf
    for z0 in starts:
        fit = minimize(value, z0, method="L-BFGS-B", bounds=[(0.0, 1.0)] * d)
        if fit.fun < best_value:
            best_z, best_value = fit.x, float(fit.fun)
    return space.inverse_transform(best_z[None, :])[0]


def _reference(
    result: Any,
    model: Any,
    which: Any,
    name: str,
    n_search: int | None,
    rng: np.random.RandomState,
) -> list[Any]:
    """The point named by ``minimum`` or ``sample_source`` (other than "random")."""
    if isinstance(which, str):
        check_in(which, name, _REFERENCES + (("random",) if name == "sample_source" else ()))
        if which == "result":
            return list(result.x)
        return _best_of_model(result, model, n_search, rng, which == "expected_minimum")
    if isinstance(which, (Sequence, np.ndarray)) and not isinstance(which, bytes):
        return _point(result.space, which, name)
    raise TypeError(
        f"{name} must be one of {', '.join(map(repr, _REFERENCES))} or a point (list of "
        f"values), got {type(which).__name__}"
    )


def plot_objective(
    result: Any,
    levels: Any = 10,
    n_points: int = 40,
    n_samples: int = 250,
    size: float = 2,
    wspace: float = 0.35,
    hspace: float = 0.35,
    zscale: str = "linear",
    dimensions: Any = None,
    sample_source: Any = "random",
    minimum: Any = "result",
    n_minimum_search: int | None = None,
    plot_dims: Any = None,
    show_points: bool = True,
    cmap: Any = "viridis_r",
    ax: Any = None,
    *,
    random_state: Any = None,
) -> Any:
    """What the surrogate learned: scikit-optimize's ``plot_objective``.

    A lower-triangular matrix of axes over the plotted dimensions, drawn from the last
    surrogate ``result.models[-1]``: on the diagonal the partial dependence on each
    dimension (:func:`partial_dependence_1d`), below it filled contours of the partial
    dependence on each pair (:func:`partial_dependence_2d`), with the evaluated points
    (black dots) and the reference point ``minimum`` (a red star; a dashed red line on
    the diagonal). These are estimates of a model of the objective, averaged over the
    other dimensions: with few evaluations, or far from them, they can be far from the
    objective itself.

    Parameters
    ----------
    result : OptimizationResult
        A run with its ``space`` and at least one fitted surrogate.
    levels : int or array-like, default=10
        Contour levels, passed to ``contourf``.
    n_points : int >= 2, default=40
        The most grid values per dimension (:func:`dimension_grid`).
    n_samples : int >= 1, default=250
        Random points of the space the dependence is averaged over (``sample_source=
        "random"``).
    size : float, default=2
        Width and height of each axes, in inches.
    wspace, hspace : float, default=0.35
        Space between the axes, as a fraction of their width and height.
    zscale : {"linear", "log"}, default="linear"
        Spacing of the contour levels ("log" needs a positive dependence).
    dimensions : list of str, optional
        Axis labels, one per plotted dimension; default the dimension names.
    sample_source : str or list, default="random"
        What the other dimensions are averaged over: ``"random"``, ``n_samples`` random
        points of the space (a partial dependence); or one point, so that the curves are
        slices of the surrogate through it: ``"result"`` (the best evaluated point),
        ``"expected_minimum"``, ``"expected_minimum_random"`` (see ``minimum``) or a
        point given as a list of values.
    minimum : str or list, default="result"
        The point marked: ``"result"``, the best evaluated point (``result.x``);
        ``"expected_minimum"``, the surrogate's best point found by L-BFGS-B on the
        cube from ``result.x`` and ``n_minimum_search`` (default 20) random starts (in a
        space with integer or categorical dimensions: the best of ``n_minimum_search``,
        default 100000, random points, as scikit-optimize does for categories);
        ``"expected_minimum_random"``, the best of ``n_minimum_search`` random points
        (default ``10 ** n_dims``, at most 100000); or a point given as a list.
        With ``maximize`` the best is the surrogate's highest value.
    n_minimum_search : int >= 1, optional
        Starts or random points of the ``"expected_minimum*"`` searches.
    plot_dims : list of str or int, optional
        The dimensions to draw, by name or index; default every dimension that is not
        constant (a ``Categorical`` of one category).
    show_points : bool, default=True
        Draw the evaluated points on the contours.
    cmap : str or Colormap, default="viridis_r"
        Colours of the contours.
    ax : matplotlib Axes, optional
        Draw the matrix inside these axes instead of a new figure.
    random_state : int, RandomState or None, default=None
        Seeds the random samples and searches (keyword only).

    Returns
    -------
    matplotlib Figure
        The figure; the matrix's ``n x n`` axes are in ``fig.axes`` (row by row; the
        upper triangle hidden).

    Raises
    ------
    ValueError
        A result without space, evaluations or surrogate; an unknown ``zscale``,
        ``sample_source`` or ``minimum``; a point outside the space; ``zscale="log"``
        with a dependence that is not positive; a constant dimension in ``plot_dims``;
        bad ``plot_dims`` or ``dimensions``.
    TypeError
        ``result`` not an ``OptimizationResult``, arguments of the wrong type.

    Examples
    --------
    >>> from kernelkit.optimize import BayesianOptimizer, get_function
    >>> res = BayesianOptimizer(get_function("branin"), random_state=0).run(10)
    >>> fig = plot_objective(res, n_points=8, n_samples=20, random_state=0)
    >>> len(fig.axes), sum(ax.axison for ax in fig.axes)
    (4, 3)
    """
    space = _check_result(result, need_model=True)
    n_points = check_int(n_points, "n_points", minimum=2)  # contours need two values
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    if n_minimum_search is not None:
        n_minimum_search = check_int(n_minimum_search, "n_minimum_search", minimum=1)
    check_in(zscale, "zscale", ("linear", "log"))
    show_points = check_bool(show_points, "show_points")
    size, wspace, hspace = _check_spacing(size, wspace, hspace)
    dims = _plot_dims(space, plot_dims)
    for k in dims:
        d = space.dimensions[k]
        if isinstance(d, Categorical) and len(d.categories) == 1:
            raise ValueError(
                f"plot_dims includes dimension {space.dimension_names[k]!r}, which has one "
                "category: its partial dependence is one value, nothing to draw"
            )
    labels = _labels(space, dims, dimensions)
    rng = check_random_state(random_state)
    model = result.models[-1]
    marked = _reference(result, model, minimum, "minimum", n_minimum_search, rng)
    if isinstance(sample_source, str) and sample_source == "random":
        samples = space.transform(space.rvs(n_samples, random_state=rng))
    else:
        source = _reference(result, model, sample_source, "sample_source", n_minimum_search, rng)
        samples = space.transform([source])

    n = len(dims)
    singles = [partial_dependence_1d(space, model, k, samples, n_points) for k in dims]
    pairs = {
        (a, b): partial_dependence_2d(space, model, dims[a], dims[b], samples, n_points)
        for a in range(n)
        for b in range(a)
    }
    locator = None
    if zscale == "log":
        low = min([p.mean.min() for p in pairs.values()], default=np.inf)
        if low <= 0:
            raise ValueError(
                f"zscale='log' needs a positive partial dependence; it goes down to {low:.3g} "
                "(use zscale='linear')"
            )
        from matplotlib import ticker

        locator = ticker.LogLocator()

    P = _positions(space, result.x_iters)
    star = _positions(space, [marked])[0]
    fig, axes = _grid_axes(n, size, wspace, hspace, ax)
    for a in range(n):
        pd1 = singles[a]
        style = "o-" if isinstance(space.dimensions[dims[a]], Categorical) else "-"
        axes[a, a].plot(pd1.positions, pd1.mean, style)
        axes[a, a].axvline(star[dims[a]], ls="--", color="r", lw=1.0)
        for b in range(a):
            ka, kb = dims[a], dims[b]
            pd2 = pairs[(a, b)]
            axes[a, b].contourf(
                pd2.positions_j, pd2.positions_i, pd2.mean, levels, locator=locator, cmap=cmap
            )
            if show_points:
                axes[a, b].scatter(P[:, kb], P[:, ka], c="k", s=10, lw=0.0, clip_on=False)
            axes[a, b].scatter(star[kb], star[ka], c="r", s=100, lw=0.0, marker="*", clip_on=False)
    _format_matrix(axes, space, dims, labels, "partial dependence")
    return fig
