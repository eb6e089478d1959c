"""The live translator in the built book (assets/web/live.js): a reader's hands on it, in Chromium.

Chapter 10 and the front page hold a text box that translates in the browser. Here, at 1366 px
and at 390 px, by keyboard alone: Tab reaches the box, a sentence is typed, Enter translates it,
and the page must show Python's translation of it (``translate`` on the page's own rounded
weights, and the shipped model's too), the notices the command line prints, and a cross-
attention table whose rows sum to 1; the status line (a polite live region) says the result;
the decoding radio buttons and the layer menu move by arrow keys; axe-core finds no serious or
critical violation with the result on show. A page that is never used fetches no weights, and a
page without JavaScript still shows chapter 10's static explorer.

The server and the browser are tests/test_browser.py's (BookBrowser); screenshots go to
test-artifacts/screenshots/live/.
"""

from __future__ import annotations

import re
import warnings
from urllib.parse import urlsplit

import numpy as np
import pytest
from test_browser import (
    ALLOWED_CONSOLE_ERRORS,
    ALLOWED_MISSING,
    AXE_FAILS,
    DESKTOP,
    HTML,
    PHONE,
    SCREENSHOTS,
    TIMEOUT_MS,
    BookBrowser,
)
from test_browser import run_axe as _run_axe
from test_web_translator import python_lines

from tutorlib.display import shade
from tutorlib.explorers import translator_view
from tutorlib.translation.checkpoints import load_pretrained
from tutorlib.translation.web import rounded_model

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("one_thread")]

CHAPTER = "chapters/10_translating_and_evaluating.html"
FRONT = "index.html"
SENTENCE = "My friend Oluwaseun bought 3 red chairs yesterday."
SHOTS = SCREENSHOTS / "live"
# Time the worker may take for the first translation (fetch 2.5 MB from 127.0.0.1, read, decode)
READY_MS = 15_000

READ = """(n) => {
  const box = document.querySelectorAll(".tutorlib-live-translator")[n];
  const table = box.querySelector("table");
  return {
    state: box.dataset.state,
    translation: (box.querySelector(".tutorlib-live-translation b") || {}).textContent,
    messages: [...box.querySelectorAll(".tutorlib-live-messages li")].map((li) => li.textContent),
    status: box.querySelector("[role=status]").textContent,
    caption: table ? table.querySelector("caption").textContent : null,
    title: (box.querySelector(".tutorlib-live-title") || {}).textContent,
    columns: table ? [...table.querySelectorAll("thead th")].slice(1).map((th) => th.textContent)
      : [],
    rows: table ? [...table.querySelectorAll("tbody tr")].map((tr) => ({
      label: tr.querySelector("th").textContent,
      cells: [...tr.querySelectorAll("td")].map((td) => Number(td.textContent)),
      colours: [...tr.querySelectorAll("td")].map((td) => td.style.backgroundColor) })) : [],
    focusRing: getComputedStyle(document.activeElement).outlineStyle,
    active: document.activeElement.id || document.activeElement.tagName,
    scrollWidth: document.documentElement.scrollWidth,
    firstMs: Number(box.dataset.firstMs), ms: Number(box.dataset.ms),
  };
}"""


def _rgb(hex_colour: str) -> str:
    """``"#00204c"`` as the page's style reads it back: ``"rgb(0, 32, 76)"``."""
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def python_says(model, line: str, beam: int) -> tuple[str, list[str]]:
    """The command line's stdout and stderr lines (without "argument 1: ") for ``line``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        said = python_lines(model, [line], beam)[0]
    return said["text"], said["messages"]


@pytest.fixture(scope="module")
def models():
    shipped = load_pretrained()[0]
    return shipped, rounded_model(shipped)


@pytest.fixture(scope="module")
def book():
    if not (HTML / "_static" / "web" / "translator.bin").is_file():
        pytest.fail("_build/html/_static/web/translator.bin is missing: build the book (make book)")
    try:
        with BookBrowser(screenshots=None) as browser:
            yield browser
    except RuntimeError as err:
        pytest.fail(str(err))


def _open(book, target, viewport, requests=None, javascript=True):
    context = book.browser.new_context(viewport=viewport, java_script_enabled=javascript)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("console", lambda msg: _is_error(msg) and errors.append(msg.text))
    if requests is not None:
        page.on("request", lambda r: requests.append(r.url))
    page.goto(book.base + target, wait_until="load")
    if javascript:
        page.wait_for_function(
            "() => [...document.querySelectorAll('.tutorlib-live-translator')]"
            ".every((b) => b.dataset.ready)"
        )
    return context, page, errors


def _is_error(msg) -> bool:
    """A console error that test_browser.py does not allow either (its two known ones)."""
    where = urlsplit(msg.location.get("url", "")).path
    return msg.type == "error" and not (
        msg.text in ALLOWED_CONSOLE_ERRORS
        or (msg.text.startswith("Failed to load resource") and where in ALLOWED_MISSING)
    )


def _tab_to_box(page, n: int = 0) -> None:
    """Focus what comes just before the n-th box, then Tab: the keyboard's way in."""
    page.evaluate(
        """(n) => { const box = document.querySelectorAll(".tutorlib-live-translator")[n];
        const before = document.createElement("span"); before.tabIndex = -1;
        box.before(before); before.focus(); }""",
        n,
    )
    page.keyboard.press("Tab")


def _translate(page, sentence: str, n: int = 0) -> dict:
    page.keyboard.press("Control+A")
    page.keyboard.type(sentence)
    page.keyboard.press("Enter")
    page.wait_for_function(
        """([n, s]) => { const box = document.querySelectorAll(".tutorlib-live-translator")[n];
        return box.dataset.state === "error" || (box.dataset.state === "done" &&
          box.querySelector("input[type=text]").value === s && box.dataset.shown === s); }""",
        arg=[n, sentence],
        timeout=READY_MS,
    )
    return page.evaluate(READ, n)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1366", "390"])
def test_chapter_10_translates_a_typed_sentence_by_keyboard(book, models, viewport):
    """Catches: a box the keyboard cannot reach, a translation that differs from Python's, a
    heatmap that is not the typed sentence's (columns) or not attention (rows summing to 1), a
    silent live region, radio buttons or menus that do not move, and a page made wider than a
    phone."""
    shipped, rounded = models
    context, page, errors = _open(book, CHAPTER, viewport)
    try:
        _tab_to_box(page)
        assert page.evaluate("document.activeElement.type") == "text"
        seen = _translate(page, SENTENCE)
        assert seen["state"] == "done", seen
        want, notices = python_says(rounded, SENTENCE, 1)
        assert seen["translation"] == want == python_says(shipped, SENTENCE, 1)[0]
        assert seen["messages"] == notices
        assert want in seen["status"] and notices[0] in seen["status"]
        assert seen["columns"] == [
            "my",
            "friend",
            "oluwaseun",
            "bought",
            "3",
            "red",
            "chairs",
            "yesterday",
            ".",
        ]
        assert seen["rows"][-1]["label"] == "<eos>"
        for row in seen["rows"]:
            assert abs(sum(row["cells"]) - 1) <= 0.01 * len(row["cells"]), row
        # the numbers of chapter 10's own view (layer 1, the heads' mean), to the 2 decimals shown
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, weights, _ = translator_view(rounded, SENTENCE, 1, 0, None)
        shown = np.array([row["cells"] for row in seen["rows"]])
        assert shown.shape == weights.shape and np.abs(shown - weights).max() <= 0.0051
        # each cell coloured as Python colours the number it prints (display.shown)
        for row in seen["rows"]:
            want = [_rgb(shade(cell, 0.0, shown.max())[0]) for cell in row["cells"]]
            assert row["colours"] == want, row
        assert seen["title"] == "cross-attention, decoder layer 1 of 3, mean of the heads"
        assert seen["scrollWidth"] <= viewport["width"], "the page scrolls sideways"
        name = f"chapter10-{viewport['width']}"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator(".tutorlib-live-translator").first.screenshot(path=str(SHOTS / f"{name}.png"))
        # Tab to the decoding buttons, arrow to beam search: the page decodes with 4 beams
        page.keyboard.press("Tab")  # the Translate button
        page.keyboard.press("Tab")  # the checked radio button
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            """() => { const b = document.querySelector(".tutorlib-live-translator");
            return b.dataset.state === "done" &&
              b.querySelector(".tutorlib-live-translation").textContent.includes("4 beams"); }""",
            timeout=READY_MS,
        )
        beam = page.evaluate(READ, 0)
        assert beam["translation"] == python_says(rounded, SENTENCE, 4)[0]
        # the layer menu by keyboard: layer 3 of 3
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.tagName") != "SELECT":
            page.keyboard.press("Tab")  # past the sentence menu when it shows
        page.keyboard.press("End")
        page.keyboard.press("Enter")
        assert "layer 3 of 3" in page.evaluate(READ, 0)["caption"]
        violations = [v for v in _run_axe(page) if v["impact"] in AXE_FAILS]
        assert not violations, violations
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize(
    "line",
    [
        "I am happy. She is tired!",
        "a casa é grande",
        "Привет мир",
        " ".join(["the red car"] * 12),
        "Mr. Brown likes the black cats.",
        "The techer writes a poem.",  # the typo step (tutorlib.translation.typos)
    ],
)
def test_front_page_says_what_the_command_line_says(book, models, line):
    """Two sentences, the refusals (Portuguese, another script, too long) and a title's name, on
    the front page: the page's text and messages are the command line's."""
    _, rounded = models
    context, page, errors = _open(book, FRONT, DESKTOP)
    try:
        _tab_to_box(page)
        seen = _translate(page, line)
        want, messages = python_says(rounded, line, 1)
        assert (seen["translation"], seen["messages"]) == (want or "—", messages)
        assert not errors, errors
    finally:
        context.close()


def test_weights_are_fetched_only_when_used(book):
    """A reader who only reads the front page fetches no weights; the first focus of the box
    fetches them. Catches a page that makes every visitor pay 2.5 MB."""
    requests: list[str] = []
    context, page, _ = _open(book, FRONT, PHONE, requests)
    try:
        page.wait_for_timeout(300)
        assert not [u for u in requests if re.search(r"translator\.(bin|json)$", u)]
        _tab_to_box(page)
        page.wait_for_function(
            "() => document.querySelector('.tutorlib-live-translator [role=status]')"
            ".textContent.includes('ready')",
            timeout=READY_MS,
        )
        assert [u for u in requests if u.endswith("translator.bin")]
        page.screenshot(path=str(SHOTS / "front-390.png"), full_page=False)
    finally:
        context.close()


def test_without_javascript_the_static_explorer_remains(book):
    """No script: chapter 10 still shows the fourteen-sentence explorer in its starting state, and
    the live box says what it needs instead of standing empty."""
    context, page, _ = _open(book, CHAPTER, DESKTOP, javascript=False)
    try:
        static = page.locator(".tutorlib-static-explorer[data-explorer='translator'] table")
        assert static.count() == 1 and "os" in static.inner_text()
        assert "needs JavaScript" in page.locator(".tutorlib-live-translator").inner_text()
    finally:
        context.close()
