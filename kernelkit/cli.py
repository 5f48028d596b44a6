"""The ``kernelkit`` command.

Built-in subcommands: ``datasets`` (list, show), ``tour`` (quick run of every experiment
with an HTML report), ``reproduce`` (one experiment, quick or full). Each area adds its own
subcommands from a module ``kernelkit/<area>/cli.py`` that defines a public
``register(subparsers)``: :func:`area_cli_modules` finds these modules the way
:mod:`kernelkit.experiments` finds experiments (``pkgutil`` over kernelkit's subpackages), so
a new area never edits this file. ``register`` adds its parsers with ``add_parser`` and sets
``handler`` (a function of the parsed arguments returning the exit status) through
``set_defaults``; it must stay cheap (no SciPy, scikit-learn or networkx at import or
registration: import them inside the handler).

Errors print one line and exit non-zero: :class:`UsageError` (a command used wrongly) exits
with status 2, as argparse's own errors do, anything else with 1; ``--debug`` shows the
traceback. :class:`UsageError` and :func:`print_table` live on the ground floor, in
:mod:`kernelkit._commands`, from which every area's ``cli.py`` imports them (and this module
re-exports them): no area reaches up into this module.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import kernelkit
from kernelkit._commands import UsageError, print_table

__all__ = [
    "BUILTIN_COMMANDS",
    "UsageError",
    "area_cli_modules",
    "build_parser",
    "main",
    "print_table",
]

DEFAULT_OUT = "kernelkit-report"


def _wrap(text: str, width: int = 72) -> str:
    """``text`` broken into lines of at most ``width`` characters, nothing left out."""
    return "\n".join(textwrap.wrap(text, width, break_long_words=False)) or text


# ---------------------------------------------------------------- datasets
def _add_datasets(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("datasets", help="list the packaged datasets or show one's provenance")
    dsub = p.add_subparsers(dest="action", metavar="{list,show}")
    dsub.required = True
    dsub.add_parser("list", help="table of datasets (name, kind, shape, source)")
    show = dsub.add_parser("show", help="provenance of one dataset")
    show.add_argument("name")
    p.set_defaults(handler=_cmd_datasets)


def _cmd_datasets(args: argparse.Namespace) -> int:
    from kernelkit import datasets

    if args.action == "list":
        rows = [(d.name, d.kind, d.shape, d.source) for d in datasets.catalog()]
        print_table(rows, ["name", "kind", "shape", "source"])
    else:
        print(datasets.provenance(args.name))
    return 0


# ---------------------------------------------------------------- experiments
def _add_reproduce(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reproduce", help="reproduce one table or figure of the seed documents")
    p.add_argument("name", nargs="?", help="experiment name (see --list)")
    p.add_argument("--list", action="store_true", help="list the registered experiments")
    p.add_argument("--quick", action="store_true", help="the quick version (as in the tour)")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.set_defaults(handler=_cmd_reproduce)


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from kernelkit import experiments
    from kernelkit.report import write_report

    if args.list:
        rows = [
            (n, experiments.get(n).source, experiments.get(n).title) for n in experiments.names()
        ]
        print_table(rows, ["name", "reproduces", "title"])
        return 0
    if not args.name:
        raise UsageError("reproduce needs an experiment NAME or --list")
    res = experiments.run_experiment(
        args.name, quick=args.quick, out=args.out, random_state=args.seed
    )
    index = write_report(args.out)
    print(f"{res.name}: {res.headline}  ({res.seconds:.1f} s)")
    print(f"results: {res.out / 'results.json'}   report: {index}")
    return 0


def _add_tour(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tour", help="quick run of every experiment, with an HTML report")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these experiments")
    p.set_defaults(handler=_cmd_tour)


def _cmd_tour(args: argparse.Namespace) -> int:
    from kernelkit import experiments
    from kernelkit.report import write_report

    selected = args.only or experiments.names()
    for name in selected:
        experiments.get(name)  # fail early on a typo
    print(f"kernelkit {kernelkit.__version__} tour: {len(selected)} experiments (quick versions)")
    rows, failed = [], []
    t0 = time.perf_counter()
    for name in selected:
        print(f"  running {name} ...", flush=True)
        try:
            res = experiments.run_experiment(name, quick=True, out=args.out, random_state=args.seed)
            rows.append((name, _wrap(res.headline), f"{res.seconds:.1f}"))
        except Exception as exc:  # one broken experiment must not hide the others
            if args.debug:
                raise
            failed.append(name)
            rows.append((name, _wrap(f"FAILED: {type(exc).__name__}: {exc}"), "-"))
    print()
    print_table(rows, ["experiment", "headline", "seconds"])
    index = write_report(args.out)
    print(f"\ntotal {time.perf_counter() - t0:.1f} s; report: {index}")
    if failed:
        print(
            f"kernelkit: error: {len(failed)} experiment(s) failed: {', '.join(failed)}",
            file=sys.stderr,
        )
        return 1
    return 0


#: The subcommands of this module; each entry adds its parser (and sets ``handler``).
BUILTIN_COMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (
    _add_datasets,
    _add_tour,
    _add_reproduce,
)


def area_cli_modules() -> list[str]:
    """Names of the modules ``kernelkit.<area>.cli``, areas in alphabetical order.

    Found on disk, without importing the areas: only the packages that have a ``cli``
    module are imported (by :func:`build_parser`), so ``kernelkit --help`` does not load
    what the other areas need.
    """
    found = []
    for area in pkgutil.iter_modules(kernelkit.__path__):
        if not area.ispkg or area.name.startswith("_"):
            continue
        folder = Path(getattr(area.module_finder, "path", "")) / area.name
        if any(m.name == "cli" for m in pkgutil.iter_modules([str(folder)])):
            found.append(f"{kernelkit.__name__}.{area.name}.cli")
    return sorted(found)


def _area_register(module_name: str) -> Callable[[argparse._SubParsersAction], None]:
    """The public ``register(subparsers)`` of an area's ``cli`` module."""
    module = importlib.import_module(module_name)
    register = getattr(module, "register", None)
    if not callable(register):
        raise TypeError(
            f"{module_name} defines no register(subparsers) function; every "
            "kernelkit/<area>/cli.py must define one to add its subcommands"
        )
    return register  # type: ignore[no-any-return]


def build_parser() -> argparse.ArgumentParser:
    """The ``kernelkit`` parser: the built-in subcommands, then every area's, by area name."""
    parser = argparse.ArgumentParser(
        prog="kernelkit",
        description="kernelkit: kernels, Gaussian processes, random features, graph kernels "
        "and graphical models.",
    )
    parser.add_argument("--version", action="version", version=f"kernelkit {kernelkit.__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in BUILTIN_COMMANDS:
        add(sub)
    for module_name in area_cli_modules():
        _area_register(module_name)(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        print("kernelkit: interrupted", file=sys.stderr)
        return 130
    except UsageError as exc:
        print(f"kernelkit: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        if args.debug:
            raise
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        # a sweep's failing task is named in a note (kernelkit.distributed.map_tasks)
        notes = "".join(f" ({note})" for note in getattr(exc, "__notes__", ()))
        print(f"kernelkit: error: {msg}{notes}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
