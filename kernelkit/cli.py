"""The ``kernelkit`` command.

Subcommands: ``datasets`` (list, show), ``tour`` (quick run of every experiment with an HTML
report), ``reproduce`` (one experiment, quick or full). Each area adds its own subcommand
through :data:`COMMANDS`. Errors print one line and exit non-zero; ``--debug`` shows the
traceback.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections.abc import Callable, Sequence

import kernelkit
from kernelkit.graphs.cli import _add_graph_classify
from kernelkit.optimize.cli import _add_bayesopt

__all__ = ["main", "COMMANDS"]

DEFAULT_OUT = "kernelkit-report"


class UsageError(Exception):
    """A command used wrongly: reported in one line with exit status 2."""


def _print_table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> None:
    """Aligned columns; a cell with line breaks spans several lines of its row."""
    cells = [[str(c).split("\n") for c in header]] + [[str(c).split("\n") for c in r] for r in rows]
    widths = [max(len(line) for r in cells for line in r[i]) for i in range(len(header))]
    for k, row in enumerate(cells):
        for j in range(max(len(c) for c in row)):
            parts = [c[j] if j < len(c) else "" for c in row]
            print("  ".join(p.ljust(w) for p, w in zip(parts, widths, strict=True)).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))


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
        rows = [
            (d["name"], d["kind"], d["shape"], d["source"])
            for d in map(_as_dict, datasets.catalog())
        ]
        _print_table(rows, ["name", "kind", "shape", "source"])
    else:
        print(datasets.provenance(args.name))
    return 0


def _as_dict(entry: object) -> dict:
    if isinstance(entry, dict):
        return entry
    if hasattr(entry, "_asdict"):
        return entry._asdict()  # type: ignore[no-any-return]
    return vars(entry)


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
        _print_table(rows, ["name", "reproduces", "title"])
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
    _print_table(rows, ["experiment", "headline", "seconds"])
    index = write_report(args.out)
    print(f"\ntotal {time.perf_counter() - t0:.1f} s; report: {index}")
    if failed:
        print(
            f"kernelkit: error: {len(failed)} experiment(s) failed: {', '.join(failed)}",
            file=sys.stderr,
        )
        return 1
    return 0


#: Subcommands: each entry adds its parser (and sets ``handler``) to the subparsers.
COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_datasets,
    _add_tour,
    _add_reproduce,
    _add_graph_classify,
    _add_bayesopt,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelkit",
        description="kernelkit: kernels, Gaussian processes, random features, graph kernels "
        "and graphical models.",
    )
    parser.add_argument("--version", action="version", version=f"kernelkit {kernelkit.__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
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
        print(f"kernelkit: error: {msg}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
