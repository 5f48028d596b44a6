"""The HTML report: one page showing every experiment's figures, tables and numbers.

The page is built from the ``results.json`` files that :func:`run_experiment` writes, so
it can be rebuilt at any time from what is on disk (``kernelkit tour`` and
``kernelkit reproduce`` both call :func:`write_report`).
"""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kernelkit

__all__ = ["write_report"]

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
h1 { margin-bottom: 0.2em; } .sub { color: #666; margin-top: 0; }
section { border-top: 1px solid #ddd; padding: 1em 0; }
.headline { font-size: 1.1em; background: #f3f6fa; padding: 0.4em 0.7em; border-radius: 4px; }
.meta { color: #666; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.3em 0; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 0.8em; }
"""


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape(str(v))


def _table(spec: dict) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in spec.get("columns", []))
    rows = "".join(
        "<tr>" + "".join(f"<td>{_fmt(v)}</td>" for v in row) + "</tr>"
        for row in spec.get("rows", [])
    )
    return f"<table><tr>{head}</tr>{rows}</table>"


def _section(folder: Path, data: dict) -> str:
    meta, res = data["meta"], data["results"]
    name = html.escape(meta["name"])
    parts = [
        f'<section id="{name}"><h2>{html.escape(meta["title"])}</h2>',
        f'<p class="meta"><code>kernelkit reproduce {name}</code> · reproduces '
        f"{html.escape(meta['source'])} · {'quick' if meta['quick'] else 'full'} run · "
        f"{meta['seconds']:.1f} s</p>",
        f'<p class="headline">{html.escape(str(res["headline"]))}</p>',
    ]
    for title, spec in (res.get("tables") or {}).items():
        parts.append(f"<h3>{html.escape(title)}</h3>{_table(spec)}")
    for fig in res.get("figures") or []:
        rel = f"{folder.name}/{fig}"
        parts.append(f'<img src="{html.escape(rel)}" alt="{html.escape(fig)}">')
    rest = {k: v for k, v in res.items() if k not in ("headline", "figures", "tables")}
    if rest:
        parts.append(
            "<details><summary>all numbers</summary><pre>"
            + html.escape(json.dumps(rest, indent=1))
            + "</pre></details>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def write_report(out: str | Path) -> Path:
    """Write ``out/index.html`` for every ``out/*/results.json`` and return its path.

    Parameters
    ----------
    out : str or pathlib.Path
        The output folder of the experiments, one subfolder per experiment; created if
        missing. Unreadable results (e.g. half-written by an interrupted run) are skipped.

    Returns
    -------
    pathlib.Path
        The path of the written ``index.html``.
    """
    out = Path(out)
    found = []
    for path in sorted(out.glob("*/results.json")):
        try:
            found.append((path.parent, json.loads(path.read_text())))
        except (OSError, json.JSONDecodeError):
            continue  # a half-written result from an interrupted run
    rows = "".join(
        f'<tr><td><a href="#{html.escape(d["meta"]["name"])}">{html.escape(d["meta"]["name"])}'
        f"</a></td><td>{html.escape(str(d['results']['headline']))}</td>"
        f"<td>{d['meta']['seconds']:.1f}</td></tr>"
        for _, d in found
    )
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = "\n".join(_section(folder, d) for folder, d in found)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kernelkit report</title>
<style>{_CSS}</style></head><body>
<h1>kernelkit report</h1>
<p class="sub">kernelkit {kernelkit.__version__} · {stamp} · {len(found)} experiments</p>
<table><tr><th>experiment</th><th>headline</th><th>seconds</th></tr>{rows}</table>
{body}
</body></html>
"""
    index = out / "index.html"
    out.mkdir(parents=True, exist_ok=True)
    index.write_text(page)
    return index
