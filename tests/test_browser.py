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
- its Colab and Binder links open this page's notebook, and its previous/next
  links lead to its neighbours in _toc.yml's reading chain (solution pages are
  not in it; each one leads back to its exercise);
- every figure is shown at 0.9 or more of its natural width (1366 px window);
- at 390 px (a phone) nothing makes the page scroll sideways;
- the search page finds "softmax" in chapter 3;
- axe-core (vendored, tools/vendor_assets.py) finds no serious or critical
  violation of the WCAG 2.0/2.1 A and AA rules, at 1366 px and at 390 px.

Then, with a real hand on the controls:
- every explorer of the static book answers: each control is moved to two
  values or more, and the view must equal what tutorlib's pure view returns
  for that state, computed here in the test;
- the visible sidebar and contents toggles open the chapter list and the page
  contents, at 390 px and at 1366 px;
- by keyboard alone: Tab reaches each control of every explorer, with a
  visible focus ring; an arrow key (Space for a box) moves it, and the status
  line a screen reader hears says the new value and the result, briefly.

A full-page screenshot of each page is kept in test-artifacts/screenshots/
(1366 px) and test-artifacts/screenshots/390/ (the phone).
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
from urllib.parse import urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import course  # noqa: E402  (course.yml)

HTML = ROOT / "_build" / "html"
pytestmark = pytest.mark.slow  # the built book in headless Chromium (make test, not make check)
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
PAGES = [TOC["root"]] + [ch["file"] for part in TOC["parts"] for ch in part["chapters"]]
NOTEBOOK_PAGES = [p for p in PAGES if (ROOT / f"{p}.ipynb").is_file()]
SEARCH = "search.html?q=softmax"
AXE = ROOT / "vendor" / "tests" / "axe-core" / "axe.min.js"  # tools/vendor_assets.py puts it there
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AXE_FAILS = {"serious", "critical"}  # impacts that fail a page (minor and moderate are reported)
TARGETS = [f"{p}.html" for p in PAGES] + [SEARCH]

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Every host but the test server resolves to nothing: a page that reaches for a CDN
    # fails here at once (and is reported), instead of waiting on, or using, the network.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
TIMEOUT_MS = 20_000
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}

# Known, harmless messages, each named exactly; anything else fails the page.
ALLOWED_PAGE_ERRORS: set[str] = set()  # tools/book_pages.py removes the THEBE script's second copy
ALLOWED_CONSOLE_ERRORS = {
    # pydata-sphinx-theme on a first visit (nothing in localStorage yet); it then picks "auto".
    "Got invalid theme mode: . Resetting to auto.",
}
# Chromium asks every site for /favicon.ico on its own; the book declares no icon, so that one 404s.
ALLOWED_MISSING = {"/favicon.ico"}

MATH_MARKERS = (r"\(", r"\)", r"\[", r"\]", "$$", r"\begin{", r"\frac")
TRACEBACK = "Traceback (most recent call last)"

# Waits until what the page renders after `load` is done: MathJax's first typeset, the
# static explorers (unpacked, controls live), the search results, images, fonts.
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
  if (document.querySelector(".math") && window.MathJax && MathJax.startup && \
MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  // The static explorers (assets/course.js) say when their views are unpacked and controls live.
  await until(() => [...document.querySelectorAll(".tutorlib-static-explorer")].every((e) => \
e.dataset.ready));
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
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height \
> 0; };
  const main = document.querySelector("main") || document.body;
  const prose = main.cloneNode(true);
  prose.querySelectorAll("pre, code, script, style, textarea, mjx-container, .highlight, ul.search")
    .forEach((el) => el.remove());
  const link = (sel) => { const a = document.querySelector(sel); return a ? a.href : null; };
  return {
    title: document.title,
    h1: (document.querySelector("main h1") || {}).textContent || "",
    math: document.querySelectorAll("main .math").length,
    untypeset: [...document.querySelectorAll("main .math")].filter((m) => \
!m.querySelector("mjx-container"))
      .map((m) => m.textContent.slice(0, 80)),
    mjx: document.querySelectorAll("mjx-container").length,
    merror: [...document.querySelectorAll("mjx-merror")].map((e) => e.textContent.slice(0, 80)),
    prose: prose.textContent,
    images: [...document.images].map((img) => ({src: img.currentSrc || img.src, ok: img.complete \
&& img.naturalWidth > 0,
      natural: img.naturalWidth, shown: img.getBoundingClientRect().width,
      inMain: !!img.closest("main .cell_output, main figure")})),
    // code blocks on show whose lines do not fit their box (the longest line of each)
    codeOverflow: [...document.querySelectorAll("main pre")]
      .filter((p) => p.clientWidth > 0 && p.scrollWidth > p.clientWidth + 1)
      .map((p) => p.textContent.split("\\n").reduce((a, b) => (a.length >= b.length ? a : \
b)).slice(0, 70)),
    scrollWidth: document.documentElement.scrollWidth,
    explorers: [...document.querySelectorAll(".tutorlib-static-explorer")].map((e) => \
e.dataset.explorer),
    explorersReady: document.querySelectorAll(".tutorlib-static-explorer[data-ready]").length,
    outputs: [...document.querySelectorAll(".cell_output")].map((o) => o.innerText),
    errorOutputs: document.querySelectorAll(".cell_output .traceback, .cell_output \
.output.error").length,
    widgetViews: \
document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
    colab: [...document.querySelectorAll('a[href*="colab.research.google.com"]')].map((a) => \
a.href),
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
    console_errors: list[str] = field(
        default_factory=list
    )  # console.error and uncaught exceptions, not allowed
    allowed: list[str] = field(default_factory=list)  # the allowed ones that did occur
    failed: list[str] = field(default_factory=list)  # requests that failed or got HTTP >= 400
    requests: list[str] = field(default_factory=list)
    pending: set = field(default_factory=set)  # requests not finished yet
    facts: dict = field(default_factory=dict)
    screenshot: Path | None = None
    axe: list = field(
        default_factory=list
    )  # axe-core's violations: {id, impact, help, nodes: [...]}
    load_s: float = 0.0  # navigation until everything is rendered
    checks_s: float = 0.0  # reading the facts and taking the screenshot

    @property
    def off_host(self) -> list[str]:
        return [
            u
            for u in self.requests
            if urlsplit(u).scheme not in ("data", "blob", "about")
            and urlsplit(u).hostname != "127.0.0.1"
        ]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the tests report what matters
        pass


class BookBrowser:
    """Serve a built site on 127.0.0.1 and open its pages in headless Chromium (a context
    manager)."""

    def __init__(
        self,
        html: Path = HTML,
        screenshots: Path | None = SCREENSHOTS,
        viewport: dict = DESKTOP,
        axe: bool = False,
    ):
        self.html, self.screenshots, self.viewport = html, screenshots, viewport
        self.axe = axe  # run axe-core on every page visited (Visit.axe)

    def __enter__(self) -> BookBrowser:
        if not (self.html / "index.html").is_file():
            raise RuntimeError(
                f"the book is not built ({self.html}/index.html is missing): run `make book`"
            )
        if not Path(CHROMIUM).is_file():
            raise RuntimeError(
                f"Chromium not found at {CHROMIUM}: `make system-deps` installs Debian's "
                "chromium (apt-get install chromium), or set CHROMIUM=/path/to/chromium"
            )
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as err:
            raise RuntimeError(
                "the browser tests need the `playwright` package (a dev extra): "
                "`.venv/bin/pip install -c constraints.txt playwright`"
            ) from err
        handler = functools.partial(_QuietHandler, directory=str(self.html))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_port}/"
        self.playwright = sync_playwright().start()
        try:
            self.browser = self.playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS
            )
            self.context = self.browser.new_context(viewport=self.viewport)
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
            if msg.text in ALLOWED_CONSOLE_ERRORS or (
                msg.text.startswith("Failed to load resource") and where in ALLOWED_MISSING
            ):
                visit.allowed.append(msg.text)
            else:
                visit.console_errors.append(
                    f"console.error: {msg.text} ({msg.location.get('url', '')})"
                )

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
        page.on(
            "response",
            lambda r: (
                r.status >= 400
                and urlsplit(r.url).path not in ALLOWED_MISSING
                and visit.failed.append(f"{r.url}: HTTP {r.status}")
            ),
        )

    def visit(self, target: str, context=None, screenshots: Path | None = None) -> Visit:
        """Open `target` (a path relative to the site root), wait until it is rendered, read it,
        screenshot it.

        ``context`` (a browser context, e.g. a phone-sized one) and ``screenshots`` default to the
        book's.
        """
        visit = Visit(target, url=self.base + target)
        screenshots = screenshots if context is not None else self.screenshots
        page = (context or self.context).new_page()
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
            if self.axe:
                visit.axe = run_axe(page)
            if screenshots is not None:
                screenshots.mkdir(parents=True, exist_ok=True)
                name = re.sub(r"[^A-Za-z0-9_.-]+", "_", target.split("?")[0].removesuffix(".html"))
                visit.screenshot = (
                    screenshots / f"{name}.jpg"
                )  # JPEG: a third of PNG's time on long pages
                page.screenshot(path=str(visit.screenshot), full_page=True, type="jpeg", quality=80)
            visit.checks_s = time.perf_counter() - start
        finally:
            page.close()
        return visit


def run_axe(page) -> list[dict]:
    """axe-core's WCAG 2.0/2.1 A and AA violations on the page as it is now, one dict per rule."""
    if not AXE.is_file():
        raise RuntimeError(
            f"{AXE} is missing: run `make vendor` (tools/vendor_assets.py fetches axe-core)"
        )
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async (tags) => {
      const result = await axe.run(document, {runOnly: {type: "tag", values: tags}, resultTypes: \
["violations"]});
      return result.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map((n) => ({target: n.target.join(" "), html: n.html.slice(0, 160),
                                    summary: n.failureSummary}))}));
    }""",
        AXE_TAGS,
    )


def _page_html(target: str) -> str:
    return (HTML / target.split("?")[0]).read_text()


def _explorer_targets() -> list[str]:
    if not HTML.is_dir():
        return []
    return [
        t
        for t in TARGETS
        if (HTML / t.split("?")[0]).is_file() and "tutorlib-static-explorer" in _page_html(t)
    ]


@pytest.fixture(scope="module")
def book():
    try:
        with BookBrowser(axe=True) as browser:
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
        assert any("/_images/" in img["src"] for img in images), (
            f"{target} has figures, none reached the browser"
        )
    broken = [img["src"] for img in images if not img["ok"]]
    assert not broken, f"{target}: images that did not load: {broken}"


@pytest.mark.parametrize("target", TARGETS)
def test_no_output_shows_a_traceback(visits, target):
    facts = visits(target).facts
    assert facts["errorOutputs"] == 0, f"{target}: an error output is rendered"
    shown = [o[:300] for o in facts["outputs"] if TRACEBACK in o]
    assert not shown, f"{target}: outputs with a traceback: {shown}"


# every chapter with an explorer, and how many: course.yml's explorers (tools/course.py checks
# them against the explorer calls in each chapter's cells)
EXPLORER_CHAPTERS = course.load_course().explorer_chapters()


def test_every_explorer_chapter_has_its_static_explorers():
    found = {
        t.removesuffix(".html"): _page_html(t).count('class="tutorlib-static-explorer"')
        for t in _explorer_targets()
    }
    assert found == EXPLORER_CHAPTERS, f"static explorers per page: {found}"


@pytest.mark.parametrize("target", TARGETS)
def test_no_frozen_widget_is_left(visits, target):
    facts = visits(target).facts
    assert facts["widgetViews"] == 0, (
        f"{target} still renders a widget snapshot whose controls do nothing"
    )
    assert facts["explorersReady"] == len(facts["explorers"]), (
        f"{target}: {facts['explorersReady']} of {len(facts['explorers'])} explorers came alive"
    )


@pytest.mark.parametrize("target", TARGETS)
def test_code_is_not_cut_off_on_a_desktop(visits, target):
    cut = visits(target).facts["codeOverflow"]
    assert not cut, (
        f"{target}: code blocks wider than their box at {DESKTOP['width']} px, longest lines: {cut}"
    )


@pytest.mark.parametrize("target", TARGETS)
def test_figures_are_not_shrunk(visits, target):
    small = [
        f"{img['src'].rsplit('/', 1)[-1]}: {img['shown']:.0f} of {img['natural']} px"
        for img in visits(target).facts["images"]
        if img["inMain"] and img["natural"] > 0 and img["shown"] < 0.9 * img["natural"]
    ]
    assert not small, (
        f"{target}: figures shown below 0.9 of their size at {DESKTOP['width']} px: {small}"
    )


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_launch_links_open_this_notebook(visits, page):
    facts = visits(f"{page}.html").facts
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    branch = CONFIG["repository"].get("branch", "main")
    colab = f"https://colab.research.google.com/github/{repo}/blob/{branch}/{page}.ipynb"
    binder = f"https://mybinder.org/v2/gh/{repo}/{branch}?urlpath=tree/{page}.ipynb"
    assert facts["colab"] and set(facts["colab"]) == {colab}, facts["colab"]
    assert facts["binder"] and set(facts["binder"]) == {binder}, facts["binder"]


CHAIN = [p for p in PAGES if not p.startswith("exercises/solutions/")]  # the reading order


@pytest.mark.parametrize("page", PAGES)
def test_previous_and_next_links_follow_the_reading_chain(visits, book, page):
    facts = visits(f"{page}.html").facts
    if page in CHAIN:
        index = CHAIN.index(page)
        expected_prev = book.base + f"{CHAIN[index - 1]}.html" if index > 0 else None
        expected_next = book.base + f"{CHAIN[index + 1]}.html" if index + 1 < len(CHAIN) else None
    else:  # a solution page: back to its exercise, and no way on into the next answers
        expected_prev = book.base + page.replace("exercises/solutions/", "exercises/") + ".html"
        expected_next = None
    assert facts["prev"] == expected_prev, (
        f"{page}: previous is {facts['prev']}, expected {expected_prev}"
    )
    assert facts["next"] == expected_next, (
        f"{page}: next is {facts['next']}, expected {expected_next}"
    )


def test_walking_the_book_by_next_and_previous_reaches_every_chapter_and_exercise(book):
    # Link following only: JavaScript off, so each step costs a page load, not a MathJax typeset
    # (what the scripts do on each page is the other tests' business).
    context = book.browser.new_context(java_script_enabled=False)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(book.base + f"{CHAIN[0]}.html")
        walk = [CHAIN[0]]
        for link, order in (("a.right-next", CHAIN[1:]), ("a.left-prev", CHAIN[-2::-1])):
            for expected in order:
                with page.expect_navigation(wait_until="domcontentloaded") as navigation:
                    page.click(link)
                here = urlsplit(page.url).path.lstrip("/").removesuffix(".html")
                assert here == expected, (
                    f"{link} from {walk[-1]} led to {here}, expected {expected}"
                )
                assert navigation.value.status == 200, f"{expected}: HTTP {navigation.value.status}"
                assert page.locator("main h1").first.inner_text().strip(), (
                    f"{expected} has no title"
                )
                walk.append(here)
        assert walk == CHAIN + CHAIN[-2::-1]
        assert any(p.startswith("exercises/solutions/") for p in PAGES) and not any(
            p.startswith("exercises/solutions/") for p in walk
        )
    finally:
        context.close()


def test_search_finds_softmax_in_chapter_3(visits):
    facts = visits(SEARCH).facts
    assert facts["results"], f"no result for 'softmax' ({facts['summary']!r})"
    paths = {urlsplit(href).path for href in facts["results"]}
    assert "/chapters/03_softmax.html" in paths, (
        f"chapter 3 is not among the results: {sorted(paths)}"
    )


def test_built_site_serves_the_pinned_assets():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import vendor_assets
    finally:
        sys.path.pop(0)
    problems = vendor_assets.check(HTML / "_static")
    assert not problems, "\n".join(problems)
    chapter = _page_html("chapters/03_softmax.html")
    assert "_static/mathjax/tex-chtml.js" in chapter and "_static/course.js" in chapter
    assert "embed.js" not in chapter, "the book needs no widget library: explorers are static twins"
    assert "fontawesome.js" not in chapter, (
        "the 1.4 MB icon script is dropped (tools/book_pages.py)"
    )
    assert not re.search(r'<script[^>]+src="https?://', chapter), (
        "a script is still loaded from another host"
    )


def test_icons_are_drawn_by_the_webfonts(book):
    page = book.context.new_page()
    try:
        page.goto(book.base + "chapters/06_masking.html", wait_until="load")
        page.evaluate("document.fonts.ready")
        icons = page.evaluate("""() => [...document.querySelectorAll(".bd-header-article \
i[class*='fa']")]
          .filter((i) => i.getClientRects().length)
          .map((i) => { const s = getComputedStyle(i, "::before");
            return {cls: i.className, glyph: s.content, font: s.fontFamily, width: \
i.getBoundingClientRect().width}; })""")
        assert len(icons) >= 4, icons
        blank = [
            i
            for i in icons
            if i["glyph"] in ("none", "normal", '""')
            or "Font Awesome" not in i["font"]
            or i["width"] < 8
        ]
        assert not blank, f"icons without a glyph: {blank}"
        loaded = page.evaluate("""() => [...document.fonts].filter((f) => f.status === "loaded")
          .map((f) => f.family)""")
        assert any("Font Awesome" in f for f in loaded), f"no icon font loaded: {loaded}"
    finally:
        page.close()


# --- the phone ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def phone(book):
    """A 390 px window (an iPhone's width) on the same book; its screenshots go to
    screenshots/390/."""
    context = book.browser.new_context(viewport=PHONE)
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


@pytest.fixture(scope="module")
def phone_visits(book, phone):
    """target -> Visit in the 390 px window, each page opened once."""
    cache: dict[str, Visit | Exception] = {}

    def get(target: str) -> Visit:
        if target not in cache:
            try:
                cache[target] = book.visit(target, context=phone, screenshots=SCREENSHOTS / "390")
            except Exception as err:
                cache[target] = err
        if isinstance(cache[target], Exception):
            raise AssertionError(
                f"{target} could not be opened at {PHONE['width']} px: {cache[target]}"
            )
        return cache[target]

    return get


@pytest.mark.parametrize("target", TARGETS)
def test_no_page_scrolls_sideways_on_a_phone(phone_visits, target):
    v = phone_visits(target)
    assert v.status == 200 and not v.console_errors, (v.status, v.console_errors)
    assert v.facts["scrollWidth"] <= PHONE["width"], (
        f"{target} is {v.facts['scrollWidth']} px wide in a {PHONE['width']} px window: "
        "something does not wrap or scroll in its own box"
    )


# --- WCAG 2.1 AA (axe-core) -----------------------------------------------------------------

AXE_REPORTS = ROOT / "test-artifacts" / "axe"


@pytest.mark.parametrize("width", [DESKTOP["width"], PHONE["width"]], ids=["1366px", "390px"])
@pytest.mark.parametrize("target", TARGETS)
def test_axe_finds_no_serious_violation(visits, phone_visits, target, width):
    import json

    v = visits(target) if width == DESKTOP["width"] else phone_visits(target)
    report = (
        AXE_REPORTS
        / str(width)
        / (re.sub(r"[^A-Za-z0-9_.-]+", "_", target.split("?")[0]) + ".json")
    )
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps(v.axe, indent=1, ensure_ascii=False))
    failing = [rule for rule in v.axe if rule["impact"] in AXE_FAILS]
    assert not failing, f"{target} at {width} px: " + "; ".join(
        f"{rule['id']} ({rule['impact']}, {len(rule['nodes'])} elements: {rule['help']}), first: "
        f"{rule['nodes'][0]['target']} {rule['nodes'][0]['html']!r}"
        for rule in failing
    )


# --- the sidebars ------------------------------------------------------------------------------

NAV_PAGE = "chapters/06_masking.html"


def _visible(page, selector: str) -> bool:
    return page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].some((e) => {
      const r = e.getBoundingClientRect(), s = getComputedStyle(e);
      return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && r.right > 0 && r.left < \
innerWidth;
    })""",
        selector,
    )


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1366px"])
def test_the_sidebar_toggle_shows_the_chapter_list(book, viewport):
    context = book.browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.goto(book.base + NAV_PAGE, wait_until="load")
        chapter_link = 'a.reference.internal[href$="05_multi_head_attention.html"]'
        toggle = page.locator(".primary-toggle:visible")
        assert toggle.count() == 1, (
            f"{toggle.count()} visible sidebar toggles at {viewport['width']} px"
        )
        if viewport is PHONE:
            assert not _visible(page, chapter_link), (
                "the chapter list is open before the toggle is clicked"
            )
            toggle.click()
            page.wait_for_timeout(300)
            assert _visible(page, f"#pst-primary-sidebar-modal[open] {chapter_link}"), (
                "clicking the sidebar toggle on a phone does not open the chapter list"
            )
            page.keyboard.press("Escape")
            page.wait_for_timeout(300)
            assert not _visible(page, chapter_link), "Escape does not close the chapter list"
        else:
            assert _visible(page, chapter_link), "the chapter list is not shown on a wide screen"
            toggle.click()
            page.wait_for_timeout(300)
            assert not _visible(page, chapter_link), "the toggle does not hide the chapter list"
            toggle.click()
            page.wait_for_timeout(300)
            assert _visible(page, chapter_link), "the toggle does not bring the chapter list back"
    finally:
        context.close()


def test_the_contents_toggle_shows_the_page_contents_on_a_phone(book):
    context = book.browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(book.base + NAV_PAGE, wait_until="load")
        section = "#pst-page-toc-nav a.nav-link"
        assert not _visible(page, section)
        page.locator(".secondary-toggle:visible").first.click()
        page.wait_for_timeout(300)
        assert _visible(page, f"#pst-secondary-sidebar-modal[open] {section}"), (
            "the contents toggle does not open the page's sections on a phone"
        )
    finally:
        context.close()


# --- the explorers, moved by hand -----------------------------------------------------------------

NORMALISE = (
    '(html) => { const t = document.createElement("template"); t.innerHTML = html; '
    "return t.innerHTML; }"
)
# The view as tutorlib drew it: without the attributes assets/course.js adds to a box that
# scrolls sideways (a tab stop, so that the keyboard reaches it), which depend on the page's width.
VIEW_HTML = (
    "(view) => { const c = view.cloneNode(true); "
    'c.querySelectorAll("[data-tl-scroller]").forEach((b) => '
    '["tabindex", "role", "aria-label", "data-tl-scroller"].forEach((a) => b.removeAttribute(a))); '
    "return c.innerHTML; }"
)


# The chapters whose explorers show a shipped model, under the name their cells give it: the model
# is loaded here and only the explorer cells run (not the chapter's training and measurements).
SHIPPED = {
    "chapters/10_": "from tutorlib.translator import load_pretrained\nmodel = load_pretrained()[0]",
    "chapters/13_": "import tutorlib.gpt\ngpt_words = tutorlib.gpt.load_pretrained('words')",
    "chapters/16_": (
        "from tutorlib.translator import load_pretrained\ntranslator = load_pretrained()[0]\n"
        "import tutorlib.gpt\ngpt = tutorlib.gpt.load_pretrained()"
    ),
}


def _explorer_boxes(chapter: str) -> list:
    """The chapter's explorers, made again here from tutorlib: its code cells run up to its last
    explorer (chapters 10, 13 and 16 show shipped models, loaded directly: SHIPPED, and only their
    explorer cells run). Each box has ``trained`` set when its cell carries that tag: it shows a
    model trained in the chapter, whose last digits differ from the page's on another CPU
    (CONTRIBUTING.md)."""
    import ast

    import matplotlib
    import nbformat

    # Draw nowhere, in this process only: an MPLBACKEND variable would reach the kernels
    # that nbval starts later in the same run, and their figures would vanish.
    matplotlib.use("Agg")
    nb = nbformat.read(ROOT / f"{chapter}.ipynb", as_version=4)
    code = [
        c
        for c in nb.cells
        if c.cell_type == "code" and "install-tutorlib" not in c.metadata.get("tags", [])
    ]
    cells = [(c.source, "trained" in c.metadata.get("tags", [])) for c in code]
    calls = ("_explorer(", "mask_editor(")
    last = max(i for i, (src, _) in enumerate(cells) if any(k in src for k in calls))
    namespace: dict = {}
    shipped = next((code for start, code in SHIPPED.items() if chapter.startswith(start)), None)
    if shipped is not None:
        exec(shipped, namespace)
        cells = [(src, t) for src, t in cells[: last + 1] if any(k in src for k in calls)]
    else:
        cells = cells[: last + 1]
    boxes = []
    for src, trained in cells:
        src = "\n".join(
            line for line in src.splitlines() if not line.lstrip().startswith(("%", "!"))
        )
        tree = ast.parse(src)
        tail = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, chapter, "exec"), namespace)
        if tail is not None:
            value = eval(compile(ast.Expression(tail.value), chapter, "eval"), namespace)
            if hasattr(value, "static_view"):
                value.trained = trained
                boxes.append(value)
    import matplotlib.pyplot as plt

    plt.close("all")
    return boxes


NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _same_view(shown: str, expected: str, trained: bool) -> bool:
    """The page shows the expected view: the same HTML, or, for a model trained in the chapter, the
    same HTML but for numbers within 0.02 + 3% of each other (weights printed to 2 decimals, and the
    colours drawn from them, move in the last digit on another CPU)."""
    if shown == expected or not trained:
        return shown == expected
    a, b = NUMBER.split(shown), NUMBER.split(expected)
    if a != b:  # the text between the numbers differs
        return False
    return all(
        abs(float(x) - float(y)) <= 0.02 + 0.03 * abs(float(y))
        for x, y in zip(NUMBER.findall(shown), NUMBER.findall(expected))
    )


def test_same_view_forgives_last_digits_of_trained_models_only():
    assert _same_view(
        '<td style="background: rgb(200, 10, 3)">0.98</td>',
        '<td style="background: rgb(203, 10, 3)">0.97</td>',
        trained=True,
    )
    assert not _same_view("<td>0.98</td>", "<td>0.97</td>", trained=False)
    assert not _same_view("<td>0.98</td>", "<td>0.02</td>", trained=True)  # another head's row
    assert not _same_view("<td>head 1 0.98</td>", "<td>head 2 0.98</td>", trained=True)


def _set_control(root, i: int, control, index: int) -> None:
    element = root.locator(f'[data-control="{i}"]')
    if control.kind == "slider":
        element.fill(str(index))
    elif control.kind == "menu":
        element.select_option(value=str(index))
    elif control.kind == "buttons":
        element.locator(f'input[value="{index}"]').check()
    else:
        element.set_checked(bool(index))


def _ready_explorers(page, book, chapter: str):
    """Open the chapter's page and wait until course.js has unpacked every static explorer."""
    page.goto(book.base + f"{chapter}.html", wait_until="load")
    page.wait_for_function(
        """() => [...document.querySelectorAll(".tutorlib-static-explorer")]
                              .every((e) => e.dataset.ready)""",
        timeout=TIMEOUT_MS,
    )
    return page.locator(".tutorlib-static-explorer")


@pytest.mark.parametrize("chapter", sorted(EXPLORER_CHAPTERS))
def test_static_explorers_show_what_tutorlib_computes(book, chapter):
    boxes = _explorer_boxes(chapter)
    assert len(boxes) == EXPLORER_CHAPTERS[chapter], (
        f"{chapter}: found {len(boxes)} explorers in its cells"
    )
    page = book.context.new_page()
    try:
        roots = _ready_explorers(page, book, chapter)
        assert roots.count() == len(boxes)
        for n, box in enumerate(boxes):
            root = roots.nth(n)
            view = root.locator(".tutorlib-view")
            state = {c.name: c.value for c in box.static_controls}
            shown = view.evaluate(VIEW_HTML)
            assert _same_view(
                shown, page.evaluate(NORMALISE, box.static_view(**state)), box.trained
            ), f"{chapter}: starting view differs"
            moves = 0
            for i, control in enumerate(box.static_controls):
                n_options = len(control.options)
                targets = [j for j in (n_options - 1, 0, n_options // 2) if j != control.start]
                targets = list(dict.fromkeys(targets))[:2] + (
                    [control.start] if n_options == 2 else []
                )
                for j in targets:
                    _set_control(root, i, control, j)
                    state[control.name] = control.options[j][1]
                    expected = page.evaluate(NORMALISE, box.static_view(**state))
                    now = view.evaluate(VIEW_HTML)
                    assert _same_view(now, expected, box.trained), (
                        f"{chapter}, explorer {n + 1}: after setting {control.name} to "
                        f"{control.options[j][0]!r} the page shows something else than tutorlib's "
                        f"view for {state}"
                    )
                    if expected != shown:
                        moves += 1
                    shown = now
                    if control.kind == "slider":
                        readout = root.locator(f'[data-control="{i}"] ~ output').inner_text()
                        assert readout == control.options[j][0], (readout, control.options[j][0])
            assert moves >= len(box.static_controls), (
                f"{chapter}: the explorer's view hardly changes ({moves} moves)"
            )
    finally:
        page.close()


# Every state of every static explorer on the page, control by control (each through all its
# values, the others where they are), and the widest the document grew: a table that fits in the
# starting state may not in another (the screen-reader text of masked cells once escaped its
# scroll box, issue 38).
WIDEST_STATES = """async () => {
  const next = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const out = [];
  const roots = [...document.querySelectorAll(".tutorlib-static-explorer")];
  for (const [n, root] of roots.entries()) {
    for (const el of root.querySelectorAll("[data-control]")) {
      const inputs = el.matches("input, select") ? [el] : [...el.querySelectorAll("input")];
      const states = [];
      for (const input of inputs) {
        if (input.tagName === "SELECT") {
          for (const o of input.options) states.push([input, "value", o.value]);
        } else if (input.type === "range") {
          for (let v = +input.min; v <= +input.max; v += +(input.step || 1))
            states.push([input, "value", String(v)]);
        } else if (input.type === "checkbox") {
          states.push([input, "checked", !input.checked], [input, "checked", input.checked]);
        } else if (input.type === "radio") {
          states.push([input, "checked", true]);
        }
      }
      for (const [input, key, value] of states) {
        input[key] = value;
        input.dispatchEvent(new Event("input", {bubbles: true}));
        input.dispatchEvent(new Event("change", {bubbles: true}));
        await next();
        const width = document.documentElement.scrollWidth;
        if (width > innerWidth)
          out.push(`explorer ${n + 1}, control ${el.dataset.control} = ${value}: ${width} px`);
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("chapter", sorted(EXPLORER_CHAPTERS))
def test_no_explorer_state_makes_a_phone_page_scroll_sideways(book, chapter):
    context = book.browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        _ready_explorers(page, book, chapter)
        wide = page.evaluate(WIDEST_STATES)
        assert not wide, (
            f"{chapter} at {PHONE['width']} px scrolls sideways in these states:\n"
            + "\n".join(wide[:10])
        )
    finally:
        context.close()


# --- dark mode ---------------------------------------------------------------------------------

CONTRAST = """() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : \
((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return [...document.querySelectorAll(".cell_output .text_html caption, .cell_output .text_html \
th")]
    .filter((el) => el.textContent.trim())
    .map((el) => {
      const a = lum(rgb(getComputedStyle(el).color).slice(0, 3)), b = lum(background(el));
      return {text: el.textContent.trim().slice(0, 40), ratio: (Math.max(a, b) + 0.05) / \
(Math.min(a, b) + 0.05)};
    });
}"""


@pytest.mark.parametrize("target", ["chapters/03_softmax.html", "chapters/06_masking.html"])
def test_table_titles_and_labels_are_readable_in_dark_mode(book, target):
    context = book.browser.new_context(viewport=DESKTOP, color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(book.base + target, wait_until="load")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        cells = page.evaluate(CONTRAST)
        assert cells, f"{target}: no table title or label found"
        poor = [c for c in cells if c["ratio"] < 4.5]
        assert not poor, f"{target}: table text below 4.5:1 contrast in dark mode: {poor[:5]}"
    finally:
        context.close()


# --- print --------------------------------------------------------------------------------------


def test_solutions_print_open_and_code_wraps_on_paper(book):
    page = book.context.new_page()
    try:
        page.goto(book.base + "exercises/solutions/ex03_softmax.html", wait_until="load")
        shown = (
            "() => [...document.querySelectorAll('details.hide div.highlight pre')].map((p) "
            "=> p.checkVisibility())"
        )
        on_screen = page.evaluate(shown)
        assert on_screen and not any(on_screen), "solutions should start collapsed on screen"
        page.emulate_media(media="print")
        assert all(page.evaluate(shown)), "a printed solution page must show every solution"
        wrap = page.evaluate(
            "getComputedStyle(document.querySelector('div.highlight pre')).whiteSpace"
        )
        assert wrap == "pre-wrap", f"printed code must wrap at the margin, white-space is {wrap!r}"
    finally:
        page.close()


# --- the explorers by keyboard and screen reader --------------------------------------------------

FOCUSED = """() => { const el = document.activeElement, s = getComputedStyle(el);
  const control = el.closest("[data-control]");
  return {control: control ? Number(control.dataset.control) : null,
          explorer: \
[...document.querySelectorAll(".tutorlib-static-explorer")].indexOf(el.closest(".tutorlib-static-explorer")),
          outline: s.outlineStyle, width: parseFloat(s.outlineWidth), visible: \
el.matches(":focus-visible")}; }"""


def _key_for(kind: str, at_end: bool) -> str:
    """The key that changes a control of this kind: arrows for sliders, menus and radio buttons,
    Space for a box."""
    if kind == "checkbox":
        return "Space"
    if kind == "menu":
        return "ArrowUp" if at_end else "ArrowDown"
    return "ArrowLeft" if at_end else "ArrowRight"


@pytest.mark.parametrize("chapter", sorted(EXPLORER_CHAPTERS))
def test_explorers_work_by_keyboard_and_announce_their_change(book, chapter):
    page = book.context.new_page()
    try:
        roots = _ready_explorers(page, book, chapter)
        for n in range(roots.count()):
            root = roots.nth(n)
            controls = root.locator("[data-control]")
            # Tab from the top of the page until the explorer's first control has the focus
            if n == 0:
                page.locator("body").focus()
            for _ in range(400):
                page.keyboard.press("Tab")
                now = page.evaluate(FOCUSED)
                if now["explorer"] == n and now["control"] == 0:
                    break
            else:
                pytest.fail(
                    f"{chapter}, explorer {n + 1}: 400 presses of Tab never reach its first control"
                )
            for i in range(controls.count()):
                if i:
                    page.keyboard.press("Tab")
                now = page.evaluate(FOCUSED)
                assert (now["explorer"], now["control"]) == (n, i), (
                    f"{chapter}, explorer {n + 1}: Tab leads to {now}, not to control {i + 1}"
                )
                assert now["visible"] and now["outline"] != "none" and now["width"] >= 2, (
                    f"{chapter}, explorer {n + 1}, control {i + 1}: no visible focus ring ({now})"
                )
                control = controls.nth(i)
                kind = (
                    "buttons"
                    if control.evaluate("e => e.tagName") == "FIELDSET"
                    else control.evaluate(
                        "e => e.type === 'select-one' ? 'menu' : e.type === 'range' ? 'slider' : "
                        "e.type"
                    )
                )
                before = control.evaluate("""e => e.tagName === "FIELDSET" ? \
e.querySelector("input:checked").value
                                             : e.type === "checkbox" ? String(e.checked) : \
e.value""")
                at_end = control.evaluate("""e => e.tagName === "FIELDSET" ? \
!e.querySelector("label:last-child input:not(:checked)")
                                             : e.type === "range" ? e.value === e.max
                                             : e.tagName === "SELECT" ? e.selectedIndex === \
e.options.length - 1 : false""")
                page.keyboard.press(_key_for(kind, at_end))
                after = control.evaluate("""e => e.tagName === "FIELDSET" ? \
e.querySelector("input:checked").value
                                            : e.type === "checkbox" ? String(e.checked) : \
e.value""")
                assert after != before, (
                    f"{chapter}, explorer {n + 1}: {_key_for(kind, at_end)} does not move control "
                    f"{i + 1}"
                )
                label = control.get_attribute("data-label")
                said = root.locator(".tutorlib-announce").inner_text()
                assert said.startswith(f"{label}: "), (
                    f"{chapter}: the status line says {said!r} after moving {label!r}"
                )
                assert 20 <= len(said) <= 200, (
                    f"{chapter}: the status line should be brief and say the result: {said!r}"
                )
                assert page.evaluate(FOCUSED)["control"] == i, "the focus left the control it moved"
            # the view's numbers are a table with headers, not a picture of one
            tables = root.locator(".tutorlib-view table")
            if tables.count():
                assert (
                    root.get_by_role("columnheader").count() > 0
                    and root.get_by_role("rowheader").count() > 0
                )
            assert root.locator(".tutorlib-announce").get_attribute("aria-live") == "polite"
            assert root.locator(".tutorlib-view").get_attribute("aria-live") is None, (
                "the whole view is read at every step"
            )
    finally:
        page.close()
