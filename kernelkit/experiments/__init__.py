"""Reproductions of the seed documents' tables and figures, registered by name.

Each experiment is a plain function ``run(quick: bool, out: Path, random_state: int) -> dict``
in a module of this package, registered with :func:`register`. The seed is always an
integer in ``[0, 2**32 - 1]`` (checked by :func:`run_experiment`), so an experiment's results
are reproducible from the seed recorded in its ``results.json``. The command line
(``kernelkit reproduce NAME``, ``kernelkit tour``), the tests and the HTML report all call
the same function through :func:`run_experiment`.

The returned dict is written to ``out/results.json``. Keys with a meaning:

``headline``
    One short line with the experiment's main figure (shown in the tour's summary).
``figures``
    File names of PNG figures written into ``out``.
``tables``
    ``{title: {"columns": [...], "rows": [[...], ...]}}``, rendered as HTML tables.

Anything else (numbers, settings) is kept in the JSON and shown in the report.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernelkit._validation import check_seed

__all__ = ["Experiment", "register", "get", "names", "run_experiment", "ExperimentResult"]

RunFn = Callable[[bool, Path, int], dict]


@dataclass(frozen=True)
class Experiment:
    """A registered reproduction.

    Attributes
    ----------
    name : str
        The registry name (``kernelkit reproduce NAME``).
    title : str
        A one-line title, shown in the tour and the report.
    source : str
        Which seed table, figure or question it reproduces.
    run : callable
        ``run(quick, out, random_state) -> dict``, the experiment itself (see the module
        notes for the returned dict).
    """

    name: str
    title: str
    source: str  # which seed table / figure / question it reproduces
    run: RunFn


_REGISTRY: dict[str, Experiment] = {}
_LOADED = False


def register(name: str, *, title: str, source: str) -> Callable[[RunFn], RunFn]:
    """Decorator registering ``run(quick, out, random_state)`` under ``name``.

    Parameters
    ----------
    name : str
        The registry name.
    title : str
        A one-line title of the experiment.
    source : str
        Which seed table, figure or question it reproduces.

    Returns
    -------
    callable
        The decorator: it registers a function as an :class:`Experiment` and returns the
        function unchanged. Registering a second function under a taken ``name`` raises
        ``ValueError``.
    """

    def deco(fn: RunFn) -> RunFn:
        if name in _REGISTRY and _REGISTRY[name].run is not fn:
            raise ValueError(f"experiment {name!r} is registered twice")
        _REGISTRY[name] = Experiment(name=name, title=title, source=source, run=fn)
        return fn

    return deco


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")
    _LOADED = True


def names() -> list[str]:
    """Registered experiment names, sorted.

    Returns
    -------
    list of str
        The registered names (the experiment modules of this package are imported on the
        first call).
    """
    _load_all()
    return sorted(_REGISTRY)


def get(name: str) -> Experiment:
    """The experiment registered as ``name`` (a ``ValueError`` lists the valid names).

    Parameters
    ----------
    name : str
        A name of :func:`names`.

    Returns
    -------
    Experiment
        Its registry entry.

    Raises
    ------
    ValueError
        ``name`` is not registered; the message lists the registered names.
    """
    _load_all()
    if name not in _REGISTRY:
        raise ValueError(f"unknown experiment {name!r}; available: {', '.join(names())}")
    return _REGISTRY[name]


@dataclass
class ExperimentResult:
    """What :func:`run_experiment` returns.

    Attributes
    ----------
    name : str
        The experiment's registry name.
    title : str
        Its title.
    headline : str
        The one-line main figure (``results["headline"]``).
    seconds : float
        Wall-clock time of the run, in seconds.
    out : pathlib.Path
        The folder written (``out/name``), holding ``results.json`` and any figures.
    results : dict
        The experiment's results as written to ``results.json`` (arrays as lists, NumPy
        scalars as Python numbers, non-finite floats as strings).
    """

    name: str
    title: str
    headline: str
    seconds: float
    out: Path
    results: dict


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return str(obj)
    if isinstance(obj, Path):
        return str(obj)
    return obj


def run_experiment(
    name: str, *, quick: bool, out: str | Path, random_state: int = 0
) -> ExperimentResult:
    """Run experiment ``name`` into ``out/name/`` and write its ``results.json``.

    Parameters
    ----------
    name : str
        A registered experiment (:func:`names`).
    quick : bool
        A reduced run (smaller sizes, fewer repeats) for the tests and the tour;
        ``False``: the full run.
    out : str or pathlib.Path
        The parent folder; the experiment writes into ``out/name/`` (created).
    random_state : int, default=0
        The seed, an integer in ``[0, 2**32 - 1]``: it is recorded with the results, so
        that they can be recomputed from it.

    Returns
    -------
    ExperimentResult
        The name, title, headline, run time, folder and JSON-safe results.

    Raises
    ------
    TypeError
        ``random_state`` is not an integer; the experiment returned no dict with a
        ``"headline"``.
    ValueError
        ``random_state`` is out of range; ``name`` is not registered.
    """
    random_state = check_seed(random_state)
    exp = get(name)
    folder = Path(out) / name
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results = exp.run(quick, folder, random_state)
    seconds = time.perf_counter() - t0
    if not isinstance(results, dict) or "headline" not in results:
        raise TypeError(f"experiment {name!r} must return a dict with a 'headline'")
    results = _jsonable(results)
    meta = {
        "name": name,
        "title": exp.title,
        "source": exp.source,
        "quick": quick,
        "random_state": random_state,
        "seconds": round(seconds, 3),
    }
    with open(folder / "results.json", "w") as fh:
        json.dump({"meta": meta, "results": results}, fh, indent=2)
    return ExperimentResult(name, exp.title, results["headline"], seconds, folder, results)
