"""The documentation's "Reproductions" section: one page per registered experiment.

Each page shows what ``kernelkit reproduce NAME`` computed — the headline, every table (the
experiments print the seed document's numbers beside ours in their tables) and the figures
— from a stored run in ``docs/reproductions/results/NAME/`` (its ``results.json`` and PNG
files, committed: rerunning every experiment at every docs build would take hours for the
full versions). Which run it is (quick or full, the seed, the seconds it took, the
kernelkit version) is printed on the page.

Usage::

    python docs/_scripts/reproductions.py                # write the pages (docs/conf.py does)
    python docs/_scripts/reproductions.py --run          # rerun every experiment (quick)
    python docs/_scripts/reproductions.py --run --missing   # only those without a stored run
    python docs/_scripts/reproductions.py --run --full NAME [NAME ...]   # full runs of these
    python docs/_scripts/reproductions.py --check        # exit 1 if a registered experiment
                                                         # has no stored run
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[1]
PAGES = DOCS / "reproductions"
RESULTS = PAGES / "results"


def _cell(value: Any) -> str:
    text = f"{value:.4g}" if isinstance(value, float) else str(value)
    text = text.replace("\n", " ").strip()
    return text.replace("|", "\\|") if text else "\\ "


def _list_table(title: str, spec: dict) -> list[str]:
    columns = [str(c) for c in spec.get("columns", [])]
    rows = spec.get("rows", [])
    if not columns or not rows:
        return []
    out = [f".. list-table:: {title}", "   :header-rows: 1", ""]
    for row in [columns, *rows]:
        cells = [_cell(v) for v in row] + ["\\ "] * (len(columns) - len(row))
        out.append(f"   * - {cells[0]}")
        out.extend(f"     - {c}" for c in cells[1 : len(columns)])
    return [*out, ""]


def _heading(text: str, char: str) -> list[str]:
    return [text, char * len(text), ""]


def page(name: str, title: str, source: str) -> str:
    """The RST of the page of experiment ``name`` from its stored run."""
    folder = RESULTS / name
    data = json.loads((folder / "results.json").read_text())
    meta, res = data["meta"], data["results"]
    run = "full" if not meta["quick"] else "quick"
    lines = [
        f".. _reproduction-{name}:",
        "",
        *_heading(name, "="),
        f"**{title}**",
        "",
        f"Reproduces {source}.",
        "",
        ".. code-block:: bash",
        "",
        f"   kernelkit reproduce {name}{' --quick' if meta['quick'] else ''} --seed "
        f"{meta['random_state']}",
        "",
        f"The numbers below are from a stored {run} run (seed {meta['random_state']}, "
        f"{meta['seconds']:.1f} s, kernelkit {meta.get('version', '?')}); "
        f"``kernelkit reproduce {name}`` recomputes them"
        + (" at the full size" if meta["quick"] else "")
        + ".",
        "",
        ".. admonition:: Headline",
        "",
        f"   {_cell(res.get('headline', ''))}",
        "",
    ]
    for fig in res.get("figures") or []:
        lines += [f".. image:: results/{name}/{fig}", f"   :alt: {name}: {fig}", ""]
    for table_title, spec in (res.get("tables") or {}).items():
        lines += _list_table(_cell(table_title), spec)
    return "\n".join(lines) + "\n"


def write_pages() -> list[str]:
    """Write one page per experiment with a stored run, and the index; return the names
    of registered experiments without a stored run."""
    from kernelkit.experiments import get, names

    PAGES.mkdir(exist_ok=True)
    written, missing = [], []
    for name in names():
        if not (RESULTS / name / "results.json").exists():
            missing.append(name)
            continue
        exp = get(name)
        text = page(name, exp.title, exp.source)
        target = PAGES / f"{name}.rst"
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
        written.append(name)
    index = [
        *_heading("Reproductions", "="),
        "Every table and figure of the seed documents that kernelkit recomputes is a "
        "registered experiment, run by ``kernelkit reproduce NAME`` (``--quick`` for the "
        "small version that ``kernelkit tour`` runs). Each page shows a stored run: its "
        "headline, its tables — with the documents' own numbers beside ours where the "
        "documents give them — and its figures.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
        *[f"   {name}" for name in written],
        "",
    ]
    text = "\n".join(index)
    target = PAGES / "index.rst"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    return missing


def run_experiments(full: set[str], missing_only: bool = False) -> None:
    """Rerun every registered experiment (quick, or full for the names in ``full``; with
    ``missing_only`` only those without a stored run) with seed 0 and store its
    ``results.json`` and figures."""
    import kernelkit
    from kernelkit.experiments import names, run_experiment

    for name in names():
        if missing_only and (RESULTS / name / "results.json").exists():
            continue
        quick = name not in full
        with tempfile.TemporaryDirectory() as tmp:
            run_experiment(name, quick=quick, out=Path(tmp), random_state=0)
            produced = Path(tmp) / name
            data = json.loads((produced / "results.json").read_text())
            data["meta"]["version"] = kernelkit.__version__
            (produced / "results.json").write_text(json.dumps(data, indent=1))
            target = RESULTS / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(produced, target)
        print(f"{name}: {'quick' if quick else 'full'} run stored", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--run", action="store_true", help="rerun the experiments first")
    p.add_argument("--full", nargs="*", default=[], metavar="NAME", help="full runs of these")
    p.add_argument("--missing", action="store_true", help="with --run: only missing runs")
    p.add_argument("--check", action="store_true", help="fail if a stored run is missing")
    args = p.parse_args(argv)
    if args.run:
        run_experiments(set(args.full), missing_only=args.missing)
    missing = write_pages()
    if missing:
        print("no stored run for: " + ", ".join(missing), file=sys.stderr)
        return 1 if args.check else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
