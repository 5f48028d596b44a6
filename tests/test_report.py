"""The HTML report is rebuilt from the results.json files on disk."""

from __future__ import annotations

import json

from kernelkit.report import write_report


def _fake(tmp_path, name, headline, tables=None, figures=()):
    folder = tmp_path / name
    folder.mkdir()
    for fig in figures:
        (folder / fig).write_bytes(b"\x89PNG fake")
    meta = {
        "name": name,
        "title": f"title of {name}",
        "source": "somewhere",
        "quick": True,
        "random_state": 0,
        "seconds": 1.5,
    }
    res = {"headline": headline, "figures": list(figures), "tables": tables or {}, "x": 3.25}
    (folder / "results.json").write_text(json.dumps({"meta": meta, "results": res}))


def test_report_lists_every_experiment_with_figures_and_tables(tmp_path):
    _fake(tmp_path, "a-exp", "accuracy 0.9", figures=["a.png"])
    _fake(
        tmp_path, "b-exp", "rmse <1>", tables={"t": {"columns": ["m", "v"], "rows": [["x", 0.5]]}}
    )
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "results.json").write_text("{not json")
    html = write_report(tmp_path).read_text()
    assert 'href="#a-exp"' in html and 'href="#b-exp"' in html
    assert '<img src="a-exp/a.png"' in html
    assert "<td>x</td><td>0.5</td>" in html
    assert "rmse &lt;1&gt;" in html  # escaped
    assert "broken" not in html
    assert "2 experiments" in html
