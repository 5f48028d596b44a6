"""The built site as a reader sees it: its links resolve, and pages work in a browser.

The site is the one ``tests/conftest.py``'s ``built_site`` fixture builds once per test run.

* Links, without a browser: Sphinx's ``linkcheck`` builder with external links ignored
  (offline, only internal links can be checked) reports no broken link, and a crawl of
  every HTML page finds that each relative ``href``/``src`` names an existing file of the
  site and each ``#fragment`` an ``id`` of the page it points to.
* In headless Chromium, driven by Playwright, over ``http://127.0.0.1``: the home page, an
  API page, a gallery example and a search log no console error, raise no page error,
  fail no request, get no HTTP error and ask no other host for anything; the search finds
  the ``GaussianProcessRegressor`` page; and from the home page a newcomer reaches a
  working example (its figure drawn) of every area of ``examples/`` in two clicks. Each
  page's full-page screenshot goes to ``$KERNELKIT_SCREENSHOTS`` if set (else the test's
  ``tmp_path``). These tests skip, saying why, without Playwright (the ``test`` extra) or
  without a Chromium (``.ci/run`` installs Debian's).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

GP_PAGE = "api/generated/kernelkit.models.GaussianProcessRegressor.html"
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root, in a container
    "--disable-gpu",
    "--disable-dev-shm-usage",  # a container's /dev/shm is small
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def html(built_site: tuple[int, str, Path]) -> Path:
    """The built site's folder (a warning fails ``tests/test_docs.py``, not these tests:
    the pages are written all the same with ``--keep-going``)."""
    status, output, folder = built_site
    assert (folder / "index.html").is_file(), f"the site did not build ({status}):\n{output}"
    return folder


# -- Links ----------------------------------------------------------------------------------

_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, mailto:, javascript:, data:, ...


class _Page(HTMLParser):
    """The ``id``\\ s (and ``<a name>``\\ s) of a page, and the URLs it links to or loads."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in ("href", "src", "action"):
                self.urls.append(value.strip())
            elif name == "srcset":
                self.urls += [c.strip().split()[0] for c in value.split(",") if c.strip()]


def _broken_links(html: Path) -> list[str]:
    """``page: url (why)`` for each relative URL of each page of ``html`` that names no file
    of the site, or an ``id`` that its page lacks."""
    pages: dict[Path, _Page] = {}
    for path in sorted(html.rglob("*.html")):
        if path.relative_to(html).parts[0] == "_static":  # the theme's Jinja macros, say
            continue
        parsed = _Page()
        parsed.feed(path.read_text(encoding="utf-8"))
        pages[path.resolve()] = parsed
    site = html.resolve()
    broken = []
    for path, parsed in pages.items():
        for url in parsed.urls:
            if not url or url.startswith("//") or _SCHEME.match(url):
                continue  # external (or a script): not checked offline
            parts = urlsplit(url)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(site)}: {url}"
            if not target.is_relative_to(site) or not target.is_file():
                broken.append(f"{where} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where} (no such id)")
    return broken


def test_every_relative_link_resolves(html: Path) -> None:
    broken = _broken_links(html)
    assert not broken, f"{len(broken)} broken links:\n  " + "\n  ".join(broken[:50])


def test_linkcheck_finds_no_broken_internal_link(html: Path, tmp_path: Path) -> None:
    """Sphinx's own link checker, on the built copy of the sources: it reuses the html
    build's doctrees (a copy of them), so it neither rereads every page nor reruns the
    gallery. External links are ignored: the test runs offline."""
    doctrees = tmp_path / "doctrees"
    shutil.copytree(html / ".doctrees", doctrees)
    out = tmp_path / "linkcheck"
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-q",
        "-b",
        "linkcheck",
        "-d",
        str(doctrees),
        "-D",
        "linkcheck_ignore=https?://",
        str(html.parent / "docs"),
        str(out),
    ]
    run = subprocess.run(command, capture_output=True, text=True, cwd=html.parent, check=False)
    report = out / "output.json"
    assert report.is_file(), f"linkcheck failed ({run.returncode}):\n{run.stdout}{run.stderr}"
    rows = [json.loads(line) for line in report.read_text().splitlines() if line.strip()]
    broken = [f"{r['filename']}:{r['lineno']}: {r['uri']} {r['info']}" for r in rows]
    broken = [b for b, r in zip(broken, rows, strict=True) if r["status"] == "broken"]
    assert not broken, "broken links:\n  " + "\n  ".join(broken)
    checked = [r["uri"] for r in rows if re.match(r"https?://", r["uri"])]
    assert all(r["status"] == "ignored" for r in rows if r["uri"] in checked)  # offline
    assert run.returncode == 0, f"linkcheck failed ({run.returncode}):\n{run.stderr}"


# -- In a browser ---------------------------------------------------------------------------


class _Server:
    """The site over ``http://127.0.0.1:PORT/``, in a thread; it notes each HTTP error it
    answers (a browser's own requests, such as ``/favicon.ico``, reach no Playwright
    event)."""

    def __init__(self, folder: Path) -> None:
        self.errors: list[str] = []
        errors = self.errors

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
                if isinstance(code, int) and code >= 400:  # an HTTPStatus is an int
                    errors.append(f"HTTP {int(code)}: {self.path}")

        handler = functools.partial(Handler, directory=str(folder))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's, or any ``chromium`` on ``PATH``), through Playwright."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the browser tests need Playwright (the test extra)"
    )
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.skip("the browser tests need Chromium on PATH (apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def server(html: Path) -> Iterator[_Server]:
    served = _Server(html)
    yield served
    served.close()


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    """Where the screenshots go: ``$KERNELKIT_SCREENSHOTS`` if set, else ``tmp_path``."""
    folder = Path(os.environ.get("KERNELKIT_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextmanager
def _visit(browser: Any, server: _Server, path: str) -> Iterator[tuple[Any, list[str]]]:
    """``(page, problems)``: ``path`` of the site opened in a fresh context (a first visit:
    no stored theme mode, no cache), with what went wrong while it loaded and while the
    ``with`` block used it. Requests to any other host are refused and noted."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    errors_before = len(server.errors)

    def route(route: Any) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            problems.append(f"request to another host: {route.request.url}")
            route.abort()

    def console(message: Any) -> None:
        if message.type == "error":
            problems.append(f"console error: {message.text} ({message.location})")

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", console)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on(
        "requestfailed",
        lambda request: problems.append(f"failed request: {request.url} ({request.failure})"),
    )
    try:
        page.goto(server.url + path, wait_until="load")
        page.wait_for_load_state("networkidle")
        yield page, problems
    finally:
        context.close()
    problems += server.errors[errors_before:]  # HTTP errors, the browser's own requests too


_BROKEN_IMAGES = "[...document.images].filter(i => !(i.complete && i.naturalWidth > 0))"
_EMPTY_STYLESHEETS = "[...document.styleSheets].filter(s => !s.cssRules.length)"


_ICON_STATUS = """async () => {
    const icon = document.querySelector('link[rel~="icon"]');
    return icon ? (await fetch(icon.href)).status : null;
}"""


#: The theme's columns: none may be wider than its box (it would scroll sideways, hiding
#: the end of its content; a code block's own scrolling does not count).
_COLUMNS = ".bd-article-container, .bd-sidebar-primary, .bd-sidebar-secondary"
_OVERFLOWING = f"""() => [...document.querySelectorAll("{_COLUMNS}")]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => `${{e.className}}: ${{e.scrollWidth}} > ${{e.clientWidth}} px`)"""


def _check_rendered(page: Any) -> None:
    """Every image drawn, every stylesheet loaded (the theme's CSS included), no column
    wider than its box, and the page names an icon that loads: without one the browser
    asks for ``/favicon.ico``, a 404 on most hosts (and one that it may ask for too late
    for ``_visit`` to see)."""
    broken = page.evaluate(f"{_BROKEN_IMAGES}.map(i => i.src)")
    assert not broken, f"{page.url}: images not drawn: {broken}"
    empty = page.evaluate(f"{_EMPTY_STYLESHEETS}.map(s => s.href)")
    assert not empty, f"{page.url}: stylesheets without rules: {empty}"
    assert page.evaluate("document.styleSheets.length") > 0
    overflowing = page.evaluate(_OVERFLOWING)
    assert not overflowing, f"{page.url}: columns that scroll sideways: {overflowing}"
    assert page.evaluate(_ICON_STATUS) == 200, f"{page.url}: no icon, or it does not load"


def _search_results(page: Any) -> list[str]:
    """The result links of the search page, once Sphinx's search has finished."""
    page.wait_for_function(
        "() => (document.querySelector('#search-results .search-summary') || {})"
        ".innerText?.startsWith('Search finished')",
        timeout=30_000,
    )
    return page.eval_on_selector_all(
        "#search-results ul.search li a", "links => links.map(a => a.getAttribute('href'))"
    )


#: The pages a reader opens: name (of the screenshot) -> (path, what shows once it is ready).
PAGES = {
    "home": ("index.html", "main h1"),
    "api_GaussianProcessRegressor": (GP_PAGE, "dl.py.class"),
    "example_plot_gp_regression": (
        "auto_examples/kernels/plot_gp_regression.html",
        "img.sphx-glr-single-img",
    ),
    "search_gaussian": ("search.html?q=gaussian", "#search-results"),
}


@pytest.mark.parametrize("name", list(PAGES))
def test_page_works_in_a_browser(
    browser: Any, server: _Server, screenshots: Path, name: str
) -> None:
    path, ready = PAGES[name]
    with _visit(browser, server, path) as (page, problems):
        page.wait_for_selector(ready, state="visible")
        if name.startswith("search"):
            results = _search_results(page)
            assert any(r.split("#")[0].endswith(GP_PAGE) for r in results), results
        _check_rendered(page)
        if name.startswith("api"):  # the theme laid the page out: navigation beside it
            assert page.locator(".bd-sidebar-primary").is_visible()
        page.screenshot(path=str(screenshots / f"{name}.png"), full_page=True)
    assert not problems, f"{path}:\n  " + "\n  ".join(problems)


def test_an_example_of_every_area_two_clicks_from_home(
    browser: Any, server: _Server, html: Path
) -> None:
    """Home -> the Examples gallery (the navigation bar) -> an example of each area (a
    sub-gallery: a folder of ``examples/``); each example page shows its figure."""
    areas = sorted(readme.parent.name for readme in EXAMPLES.glob("*/README.rst"))
    assert areas
    with _visit(browser, server, "index.html") as (page, problems):
        page.locator(".bd-header").get_by_role("link", name="Examples", exact=True).first.click()
        page.wait_for_url("**/auto_examples/index.html")
        _check_rendered(page)  # the thumbnails
        hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    assert not problems, "the home page or the gallery:\n  " + "\n  ".join(problems)
    gallery = server.url + "auto_examples/"
    linked: dict[str, set[str]] = {area: set() for area in areas}
    for href in hrefs:
        match = re.fullmatch(re.escape(gallery) + r"(\w+)/(plot_\w+\.html)", href.split("#")[0])
        if match and match.group(1) in linked:
            linked[match.group(1)].add(f"auto_examples/{match.group(1)}/{match.group(2)}")
    missing = [area for area, pages in linked.items() if not pages]
    assert not missing, f"the gallery links to no example of {missing}"
    for path in sorted(set().union(*linked.values())):
        with _visit(browser, server, path) as (page, problems):
            figures = page.locator("img.sphx-glr-single-img, img.sphx-glr-multi-img")
            assert figures.count() > 0, f"{path} shows no figure"
            _check_rendered(page)
        assert not problems, f"{path}:\n  " + "\n  ".join(problems)
