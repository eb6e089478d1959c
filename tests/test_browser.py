"""The built book as a learner's browser shows it: every page, offline, in headless Chromium.

A thread-based http.server serves _build/html on 127.0.0.1 (a free port), and
Playwright drives Debian's Chromium (`make system-deps` installs it). Every page
of _toc.yml, and the search page, is opened once; then each test asserts one
thing about it:

- it loads with no console error, no uncaught exception and no failed request;
- it asks nothing of any host but 127.0.0.1 (no CDN: MathJax and the widget
  scripts are served by the site, see tools/vendor_assets.py). Chromium is told
  that every other host does not exist, so a stray request fails at once;
- its math is typeset by MathJax (every math element holds an mjx-container,
  no MathJax error, no raw \\( or $$ left in the text);
- every image has loaded; no output shows a traceback;
- its widgets are rendered (chapter 3's slider is visible);
- its Colab and Binder links open this page's notebook, and its previous/next
  links lead to its neighbours in _toc.yml (and they load);
- the search page finds "softmax" in chapter 3.

A full-page screenshot of each page is kept in test-artifacts/screenshots/.
benchmarks/book_times.py reuses BookBrowser to time each page.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
PAGES = [TOC["root"]] + [ch["file"] for part in TOC["parts"] for ch in part["chapters"]]
NOTEBOOK_PAGES = [p for p in PAGES if (ROOT / f"{p}.ipynb").is_file()]
SEARCH = "search.html?q=softmax"
TARGETS = [f"{p}.html" for p in PAGES] + [SEARCH]

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    # Every host but the test server resolves to nothing: a page that reaches for a CDN
    # fails here at once (and is reported), instead of waiting on, or using, the network.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
TIMEOUT_MS = 20_000

# Known, harmless messages, each named exactly; anything else fails the page.
ALLOWED_PAGE_ERRORS = {
    # Sphinx 7.4 writes inline scripts that an extension registers after the builder starts twice
    # (sphinx-doc/sphinx#13402, fixed in Sphinx 8.2; jupyter-book 1 pins Sphinx 7). sphinx-thebe's
    # `const THEBE_JS_URL = ...` is one: the first copy runs, the second throws on the redeclaration.
    # Nothing is lost (the book has no Thebe button, and the values are the same).
    "Identifier 'THEBE_JS_URL' has already been declared",
}
ALLOWED_CONSOLE_ERRORS = {
    # pydata-sphinx-theme on a first visit (nothing in localStorage yet); it then picks "auto".
    "Got invalid theme mode: . Resetting to auto.",
}
# Chromium asks every site for /favicon.ico on its own; the book declares no icon, so that one 404s.
ALLOWED_MISSING = {"/favicon.ico"}

MATH_MARKERS = (r"\(", r"\)", r"\[", r"\]", "$$", r"\begin{", r"\frac")
TRACEBACK = "Traceback (most recent call last)"

# Waits until what the page renders after `load` is done: MathJax's first typeset, the
# widgets (each view script gets its rendered widget), the search results, images, fonts.
WAIT_FOR_RENDERING = """async (timeoutMs) => {
  const deadline = Date.now() + timeoutMs;
  const until = async (ok) => {
    while (!ok()) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 25));
    }
    return true;
  };
  // After `load` the deferred MathJax script has run, or never will (then the math stays raw).
  if (document.querySelector(".math") && window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  await until(() => views.every((s) => s.parentElement.querySelector(".widget-subarea .jupyter-widgets")));
  if (document.getElementById("search-results") && new URLSearchParams(location.search).get("q")) {
    await until(() => {
      const summary = document.querySelector("#search-results .search-summary");
      return summary && summary.textContent.trim() !== "";
    });
  }
  await Promise.all([...document.images].map((img) => img.complete ? null :
    new Promise((r) => { img.addEventListener("load", r); img.addEventListener("error", r); })));
  await document.fonts.ready;
}"""

# Everything the tests assert, read from the rendered page in one call.
FACTS = """() => {
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const main = document.querySelector("main") || document.body;
  const prose = main.cloneNode(true);
  prose.querySelectorAll("pre, code, script, style, textarea, mjx-container, .highlight, ul.search")
    .forEach((el) => el.remove());
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  const state = document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]');
  const link = (sel) => { const a = document.querySelector(sel); return a ? a.href : null; };
  return {
    title: document.title,
    h1: (document.querySelector("main h1") || {}).textContent || "",
    math: document.querySelectorAll("main .math").length,
    untypeset: [...document.querySelectorAll("main .math")].filter((m) => !m.querySelector("mjx-container"))
      .map((m) => m.textContent.slice(0, 80)),
    mjx: document.querySelectorAll("mjx-container").length,
    merror: [...document.querySelectorAll("mjx-merror")].map((e) => e.textContent.slice(0, 80)),
    prose: prose.textContent,
    images: [...document.images].map((img) => ({src: img.currentSrc || img.src, ok: img.complete && img.naturalWidth > 0})),
    outputs: [...document.querySelectorAll(".cell_output")].map((o) => o.innerText),
    errorOutputs: document.querySelectorAll(".cell_output .traceback, .cell_output .output.error").length,
    widgetViews: views.length,
    widgetsRendered: views.filter((s) => {
      const w = s.parentElement.querySelector(".widget-subarea .jupyter-widgets");
      return w && visible(w);
    }).length,
    widgetModels: state ? Object.values(JSON.parse(state.textContent).state).map((m) => m.model_name) : [],
    sliders: [...document.querySelectorAll(".widget-slider")].filter((s) => visible(s) && s.querySelector('[role="slider"], input[type="range"]')).length,
    widgetErrors: [...document.querySelectorAll(".jupyter-widgets")].filter((w) => /Error displaying widget/.test(w.textContent)).length,
    colab: [...document.querySelectorAll('a[href*="colab.research.google.com"]')].map((a) => a.href),
    binder: [...document.querySelectorAll('a[href*="mybinder.org"]')].map((a) => a.href),
    prev: link("a.left-prev"),
    next: link("a.right-next"),
    results: [...document.querySelectorAll("#search-results ul.search li a")].map((a) => a.href),
    summary: (document.querySelector("#search-results .search-summary") || {}).textContent || "",
  };
}"""


@dataclass
class Visit:
    """One page as the browser showed it."""

    target: str
    url: str = ""
    status: int | None = None
    console_errors: list[str] = field(default_factory=list)  # console.error and uncaught exceptions, not allowed
    allowed: list[str] = field(default_factory=list)         # the allowed ones that did occur
    failed: list[str] = field(default_factory=list)          # requests that failed or got HTTP >= 400
    requests: list[str] = field(default_factory=list)
    pending: set = field(default_factory=set)                # requests not finished yet
    facts: dict = field(default_factory=dict)
    screenshot: Path | None = None
    load_s: float = 0.0    # navigation until everything is rendered
    checks_s: float = 0.0  # reading the facts and taking the screenshot

    @property
    def off_host(self) -> list[str]:
        return [u for u in self.requests
                if urlsplit(u).scheme not in ("data", "blob", "about") and urlsplit(u).hostname != "127.0.0.1"]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the tests report what matters
        pass


class BookBrowser:
    """Serve a built site on 127.0.0.1 and open its pages in headless Chromium (a context manager)."""

    def __init__(self, html: Path = HTML, screenshots: Path | None = SCREENSHOTS):
        self.html, self.screenshots = html, screenshots

    def __enter__(self) -> "BookBrowser":
        if not (self.html / "index.html").is_file():
            raise RuntimeError(f"the book is not built ({self.html}/index.html is missing): run `make book`")
        if not Path(CHROMIUM).is_file():
            raise RuntimeError(f"Chromium not found at {CHROMIUM}: `make system-deps` installs Debian's "
                               "chromium (apt-get install chromium), or set CHROMIUM=/path/to/chromium")
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as err:
            raise RuntimeError("the browser tests need the `playwright` package (a dev extra): "
                               "`.venv/bin/pip install -c constraints.txt playwright`") from err
        handler = functools.partial(_QuietHandler, directory=str(self.html))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_port}/"
        self.playwright = sync_playwright().start()
        try:
            self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            self.context = self.browser.new_context(viewport={"width": 1280, "height": 900})
            self.context.set_default_timeout(TIMEOUT_MS)
        except Exception:
            self.__exit__(*sys.exc_info())
            raise
        if self.screenshots is not None:
            self.screenshots.mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(self, *exc) -> None:
        for close in (lambda: self.browser.close(), lambda: self.playwright.stop()):
            try:
                close()
            except Exception:
                pass
        self.server.shutdown()
        self.server.server_close()

    def _watch(self, page, visit: Visit) -> None:
        def on_console(msg):
            if msg.type != "error":
                return
            where = urlsplit(msg.location.get("url", "")).path
            if msg.text in ALLOWED_CONSOLE_ERRORS or (msg.text.startswith("Failed to load resource") and where in ALLOWED_MISSING):
                visit.allowed.append(msg.text)
            else:
                visit.console_errors.append(f"console.error: {msg.text} ({msg.location.get('url', '')})")

        def on_page_error(err):
            text = getattr(err, "message", None) or str(err)
            (visit.allowed if text in ALLOWED_PAGE_ERRORS else visit.console_errors).append(text)

        page.on("console", on_console)
        page.on("pageerror", on_page_error)
        def on_request(request):
            visit.requests.append(request.url)
            visit.pending.add(request)

        def on_request_failed(request):
            visit.pending.discard(request)
            visit.failed.append(f"{request.url}: {request.failure}")

        page.on("request", on_request)
        page.on("requestfinished", lambda r: visit.pending.discard(r))
        page.on("requestfailed", on_request_failed)
        page.on("response", lambda r: r.status >= 400 and urlsplit(r.url).path not in ALLOWED_MISSING
                and visit.failed.append(f"{r.url}: HTTP {r.status}"))

    def visit(self, target: str) -> Visit:
        """Open `target` (a path relative to the site root), wait until it is rendered, read it, screenshot it."""
        visit = Visit(target, url=self.base + target)
        page = self.context.new_page()
        try:
            self._watch(page, visit)
            start = time.perf_counter()
            response = page.goto(visit.url, wait_until="load")
            visit.status = response.status if response else None
            page.evaluate(WAIT_FOR_RENDERING, TIMEOUT_MS)
            # Requests still running (the search page fetches its results' summaries) would be
            # cut off, and reported as failed, when the page closes: let them finish first.
            deadline = time.perf_counter() + TIMEOUT_MS / 1000
            while visit.pending and time.perf_counter() < deadline:
                page.wait_for_timeout(25)
            visit.load_s = time.perf_counter() - start
            start = time.perf_counter()
            visit.facts = page.evaluate(FACTS)
            if self.screenshots is not None:
                name = re.sub(r"[^A-Za-z0-9_.-]+", "_", target.split("?")[0].removesuffix(".html"))
                visit.screenshot = self.screenshots / f"{name}.jpg"  # JPEG: a third of PNG's time on long pages
                page.screenshot(path=str(visit.screenshot), full_page=True, type="jpeg", quality=80)
            visit.checks_s = time.perf_counter() - start
        finally:
            page.close()
        return visit


def _page_html(target: str) -> str:
    return (HTML / target.split("?")[0]).read_text()


def _widget_targets() -> list[str]:
    if not HTML.is_dir():
        return []
    return [t for t in TARGETS if (HTML / t.split("?")[0]).is_file()
            and "application/vnd.jupyter.widget-view+json" in _page_html(t)]


@pytest.fixture(scope="module")
def book():
    try:
        with BookBrowser() as browser:
            yield browser
    except RuntimeError as err:
        pytest.fail(str(err))


@pytest.fixture(scope="module")
def visits(book):
    """target -> Visit, each page opened once for all the tests about it."""
    cache: dict[str, Visit | Exception] = {}

    def get(target: str) -> Visit:
        if target not in cache:
            try:
                cache[target] = book.visit(target)
            except Exception as err:  # a page that times out fails its tests, not the others
                cache[target] = err
        if isinstance(cache[target], Exception):
            raise AssertionError(f"{target} could not be opened: {cache[target]}")
        return cache[target]

    return get


@pytest.mark.parametrize("target", TARGETS)
def test_page_loads_without_errors(visits, target):
    v = visits(target)
    assert v.status == 200, f"{target}: HTTP {v.status}"
    assert not v.console_errors, f"{target}: errors in the console: {v.console_errors}"
    assert not v.failed, f"{target}: failed requests: {v.failed}"
    assert "Attention, step by step" in v.facts["title"], v.facts["title"]
    assert v.screenshot is not None and v.screenshot.stat().st_size > 0


@pytest.mark.parametrize("target", TARGETS)
def test_page_asks_nothing_of_other_hosts(visits, target):
    v = visits(target)
    assert v.requests, "no request recorded: the recorder is broken"
    assert not v.off_host, f"{target} reached beyond 127.0.0.1 (a CDN?): {v.off_host}"


@pytest.mark.parametrize("target", TARGETS)
def test_math_is_typeset(visits, target):
    facts = visits(target).facts
    if target.startswith("chapters/") and target.removesuffix(".html") in NOTEBOOK_PAGES:
        assert facts["math"] > 0, f"{target} is a chapter but has no math element"
    assert not facts["untypeset"], f"{target}: math MathJax did not typeset: {facts['untypeset']}"
    assert facts["mjx"] >= facts["math"], (facts["mjx"], facts["math"])
    assert not facts["merror"], f"{target}: MathJax errors: {facts['merror']}"
    raw = sorted({m for m in MATH_MARKERS if m in facts["prose"]})
    assert not raw, f"{target}: raw TeX left in the text: {raw}"


@pytest.mark.parametrize("target", TARGETS)
def test_images_load(visits, target):
    images = visits(target).facts["images"]
    if "_images/" in _page_html(target):
        assert any("/_images/" in img["src"] for img in images), f"{target} has figures, none reached the browser"
    broken = [img["src"] for img in images if not img["ok"]]
    assert not broken, f"{target}: images that did not load: {broken}"


@pytest.mark.parametrize("target", TARGETS)
def test_no_output_shows_a_traceback(visits, target):
    facts = visits(target).facts
    assert facts["errorOutputs"] == 0, f"{target}: an error output is rendered"
    shown = [o[:300] for o in facts["outputs"] if TRACEBACK in o]
    assert not shown, f"{target}: outputs with a traceback: {shown}"


def test_chapter_3_has_widgets():
    assert "chapters/03_softmax.html" in _widget_targets(), "chapter 3's temperature slider is not in the built page"


@pytest.mark.parametrize("target", _widget_targets())
def test_widgets_are_rendered(visits, target):
    facts = visits(target).facts
    assert facts["widgetViews"] > 0
    assert facts["widgetsRendered"] == facts["widgetViews"], (
        f"{target}: {facts['widgetsRendered']} of {facts['widgetViews']} widgets rendered and visible")
    assert facts["widgetErrors"] == 0, f"{target}: 'Error displaying widget'"
    if any(name.endswith("SliderModel") for name in facts["widgetModels"]):
        assert facts["sliders"] > 0, f"{target}: the page has a slider model, but no visible slider"


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_launch_links_open_this_notebook(visits, page):
    facts = visits(f"{page}.html").facts
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    branch = CONFIG["repository"].get("branch", "main")
    colab = f"https://colab.research.google.com/github/{repo}/blob/{branch}/{page}.ipynb"
    binder = f"https://mybinder.org/v2/gh/{repo}/{branch}?urlpath=tree/{page}.ipynb"
    assert facts["colab"] and set(facts["colab"]) == {colab}, facts["colab"]
    assert facts["binder"] and set(facts["binder"]) == {binder}, facts["binder"]


@pytest.mark.parametrize("index", range(len(PAGES)), ids=PAGES)
def test_previous_and_next_links_follow_the_toc(visits, book, index):
    facts = visits(f"{PAGES[index]}.html").facts
    expected_prev = book.base + f"{PAGES[index - 1]}.html" if index > 0 else None
    expected_next = book.base + f"{PAGES[index + 1]}.html" if index + 1 < len(PAGES) else None
    assert facts["prev"] == expected_prev, f"{PAGES[index]}: previous is {facts['prev']}, expected {expected_prev}"
    assert facts["next"] == expected_next, f"{PAGES[index]}: next is {facts['next']}, expected {expected_next}"


def test_walking_the_book_by_next_and_previous_reaches_every_page(book):
    # Link following only: JavaScript off, so each step costs a page load, not a MathJax typeset
    # (what the scripts do on each page is the other tests' business).
    context = book.browser.new_context(java_script_enabled=False)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(book.base + f"{PAGES[0]}.html")
        walk = [PAGES[0]]
        for link, order in (("a.right-next", PAGES[1:]), ("a.left-prev", PAGES[-2::-1])):
            for expected in order:
                with page.expect_navigation(wait_until="domcontentloaded") as navigation:
                    page.click(link)
                here = urlsplit(page.url).path.lstrip("/").removesuffix(".html")
                assert here == expected, f"{link} from {walk[-1]} led to {here}, expected {expected}"
                assert navigation.value.status == 200, f"{expected}: HTTP {navigation.value.status}"
                assert page.locator("main h1").first.inner_text().strip(), f"{expected} has no title"
                walk.append(here)
        assert walk == PAGES + PAGES[-2::-1]
    finally:
        context.close()


def test_search_finds_softmax_in_chapter_3(visits):
    facts = visits(SEARCH).facts
    assert facts["results"], f"no result for 'softmax' ({facts['summary']!r})"
    paths = {urlsplit(href).path for href in facts["results"]}
    assert "/chapters/03_softmax.html" in paths, f"chapter 3 is not among the results: {sorted(paths)}"


def test_built_site_serves_the_pinned_assets():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import vendor_assets
    finally:
        sys.path.pop(0)
    problems = vendor_assets.check(HTML / "_static")
    assert not problems, "\n".join(problems)
    chapter = _page_html("chapters/03_softmax.html")
    assert "_static/mathjax/tex-chtml.js" in chapter and "_static/jupyter-widgets/embed.js" in chapter
    assert not re.search(r'<script[^>]+src="https?://', chapter), "a script is still loaded from another host"

