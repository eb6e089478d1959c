"""The whole book as one PDF and one EPUB, for reading offline, on paper or an e-reader.

    # _build/pdf/attention-step-by-step.pdf (make pdf)
    .venv/bin/python tools/book_formats.py pdf
    # _build/epub/attention-step-by-step.epub (make epub)
    .venv/bin/python tools/book_formats.py epub

PDF: Jupyter Book's one-page build (``--builder singlehtml``: every page of
_toc.yml in its order) is opened in Debian's Chromium (Playwright, as the
browser tests do) and printed with Chromium's own PDF writer. No TeX: the
LaTeX route (``--builder pdflatex``) needs a TeX installation of about 1 GB,
and it typesets notebooks' HTML outputs (the tables, the explorers) poorly or
not at all, while Chromium prints exactly what the online book shows,
MathJax included, in well under a minute. Before printing, the page gets a
title page, a table of contents and a page break before every chapter; the
book's print styles (assets/course.css) wrap code at the margin and show each
explorer in its starting state with a line saying where it moves. The PDF is
printed twice: the first print tells on which page each chapter starts
(``pdftotext``, Debian's poppler-utils), the second writes those numbers into
the contents. It carries bookmarks (the outline) and tags for screen readers.

EPUB: Sphinx's own epub builder (``--builder custom --custom-builder epub``),
which keeps _toc.yml's order and makes the reader's table of contents and
cover page. An e-reader runs no scripts, so MathJax cannot typeset there:
every formula is turned into MathML (EPUB 3's maths, which e-readers and
screen readers read) by the book's own vendored MathJax, run once in
Chromium (``MathJax.tex2mml``), and the scripts are taken out of the pages.
The explorers show their starting state and the line saying where they move.
"""

from __future__ import annotations

import argparse
import functools
import html
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import zipfile
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
NAME = "attention-step-by-step"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
# Where GitHub Pages publishes the book (publish.yml): https://OWNER.github.io/REPO/
_OWNER, _REPO = CONFIG["repository"]["url"].removeprefix("https://github.com/").split("/")[:2]
ONLINE = f"https://{_OWNER}.github.io/{_REPO}/"


def toc_pages(toc: dict = TOC) -> list[tuple[str | None, str]]:
    """(part caption or None, docname) for every page of _toc.yml, in reading order."""
    pages = [(None, toc["root"])]
    for part in toc.get("parts", []):
        pages += [(part.get("caption"), ch["file"]) for ch in part["chapters"]]
    return pages


def jupyter_book(builder: list[str], out: Path, source: Path = ROOT) -> None:
    """Build the book from `source` with a builder, warnings as errors, into `out`/_build/..."""
    cmd = [
        str(Path(sys.executable).parent / "jupyter-book"),
        "build",
        str(source),
        *builder,
        "--path-output",
        str(out),
        "--warningiserror",
        "--keep-going",
    ]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
        raise SystemExit(f"`{' '.join(cmd)}` failed (exit {run.returncode})")


# --- PDF ------------------------------------------------------------------------------------

# Run in the one-page build before printing: a title page, the contents (page numbers filled in
# by the second print), a page break before each document, and nothing of the site's chrome.
PREPARE = """([title, author, date, online, pages, numbers]) => {
  const main = document.querySelector("main #main-content, main") ;
  const article = document.querySelector("article.bd-article") || main;
  const esc = (s) => { const d = document.createElement("div"); d.textContent = s; return \
d.innerHTML; };
  // collapsed solutions print open (the book's beforeprint handler does this for Ctrl+P; a
  // closed <details> prints as an empty box even when CSS shows its content)
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  const titles = [];
  let lastPart = null, rows = "";
  pages.forEach(([part, doc], i) => {
    const anchor = document.getElementById("document-" + doc);
    // the one-page build writes each document's title one level down (h2); the root's stays h1
    const h = doc === pages[0][1] ? article.querySelector("section h1")
      : anchor && anchor.nextElementSibling && anchor.nextElementSibling.querySelector("h1, h2");
    const text = h ? h.textContent.replace(/#$/, "").trim() : doc;
    titles.push(text);
    if (anchor) anchor.classList.add("tl-print-start");
    if (part && part !== lastPart) { rows += `<li class="tl-toc-part">${esc(part)}</li>`; \
lastPart = part; }
    const target = doc === pages[0][1] ? "tl-front" : "document-" + doc;
    rows += `<li><a href="#${target}"><span>${esc(text)}</span><span \
class="tl-toc-page">${numbers[i] || "000"}</span></a></li>`;
  });
  const front = document.createElement("section");
  front.id = "tl-front-matter";
  front.innerHTML = `<div class="tl-title-page"><p class="tl-book-title" role="heading" \
aria-level="1">${esc(title)}</p>
      <p class="tl-book-sub">A course on attention, from the dot product to a translator you \
train</p>
      <p class="tl-book-author">${esc(author)}</p><p class="tl-book-date">${esc(date)}</p>
      <p class="tl-book-online">Read online, with explorers that move: ${esc(online)}</p></div>
    <nav class="tl-toc" aria-label="Contents"><h2>Contents</h2><ol>${rows}</ol></nav>
    <span id="tl-front"></span>`;
  article.prepend(front);
  return titles;
}"""

PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm 20mm 16mm; }
@media print {
  #jb-print-docs-body, .bd-header-article, .bd-sidebar-primary, .bd-sidebar-secondary, \
.prev-next-area, footer,
  .bd-footer, .bd-footer-article, .header-article-items, #pst-skip-link, .search-button-field,
  .dropdown-download-buttons, .headerlink { display: none !important; }
  .bd-main .bd-content .bd-article-container { max-width: none !important; padding: 0 !important; }
  .bd-page-width { max-width: none !important; }
  body { font-size: 10.5pt; }
  .tl-print-start { display: block; break-before: page; }
  .tl-title-page { height: 240mm; display: flex; flex-direction: column; justify-content: center;
                   text-align: center; break-after: page; }
  .tl-book-title { font-size: 34pt; margin-bottom: 8mm; }
  .tl-book-sub { font-size: 15pt; }
  .tl-book-author, .tl-book-date { font-size: 12pt; margin-top: 6mm; }
  .tl-book-online { font-size: 10pt; margin-top: 30mm; }
  /* the book starts on the page after the contents (a break-after would leave the front-only
     print, which counts the front pages, with a blank page at its end) */
  #tl-front-matter + * { break-before: page; }
  .tl-toc ol { list-style: none; padding: 0; }
  .tl-toc li { margin: 1.2mm 0; }
  .tl-toc li.tl-toc-part { font-weight: bold; margin-top: 4mm; }
  .tl-toc a { display: flex; justify-content: space-between; gap: 4mm; color: inherit; \
text-decoration: none; }
  .tl-toc a span:first-child { flex: 1; border-bottom: 1px dotted #999; }
  figure, img, table, .tutorlib-static-explorer { break-inside: avoid; }
  h1, h2, h3 { break-after: avoid; }
  div.cell div.highlight pre { font-size: 8pt; }
  html.tl-front-only #tl-front-matter ~ * { display: none !important; }
  div.cell details.hide > summary { display: none !important; }
}
"""

FOOTER = (
    '<div style="font-size:8pt;width:100%;padding:0 16mm;display:flex;'
    "justify-content:space-between;"
    'color:#444"><span>{title}</span><span><span class="pageNumber"></span> / '
    '<span class="totalPages"></span></span></div>'
)

WAIT = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  await Promise.all([...document.images].map((img) => img.complete ? null :
    new Promise((r) => { img.addEventListener("load", r); img.addEventListener("error", r); })));
  await document.fonts.ready;
}"""


def _serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


def _normalise(text: str) -> str:
    """Letters and digits only: a title the PDF wraps (at a space or a hyphen) still matches."""
    return re.sub(r"[\W_]+", "", text.lower())


def pdf_pages(pdf: Path) -> int:
    """How many pages a PDF has (pdfinfo, Debian's poppler-utils)."""
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M)[1])


def start_pages(pdf: Path, titles: list[str], skip: int) -> list[int]:
    """The page (1-based) on which each title first appears, in order, after the first `skip`
    pages."""
    if shutil.which("pdftotext") is None:
        raise SystemExit("pdftotext (Debian: poppler-utils) is needed to number the contents")
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = [_normalise(p) for p in text.split("\f")]
    found, at = [], skip
    for title in titles:
        key = _normalise(title)[:40]
        # each document starts on a new page, its title at the top (elsewhere it is a mention)
        page = next((i for i in range(at, len(pages)) if key in pages[i][: len(key) + 60]), None)
        if page is None:
            raise SystemExit(f"the PDF has no page with the title {title!r} after page {at + 1}")
        found.append(page + 1)
        at = page
    return found


def print_pdf(html_dir: Path, out: Path, pages=None) -> dict:
    """Print the one-page build in `html_dir` to `out`; returns facts (pages, titles, starts)."""
    from playwright.sync_api import sync_playwright

    pages = pages or toc_pages()
    server, base = _serve(html_dir)
    title = CONFIG["title"]
    facts: dict = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM,
                args=[
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
                ],
            )
            page = browser.new_page(viewport={"width": 1000, "height": 1400})
            page.set_default_timeout(120_000)
            page.goto(base + "index.html", wait_until="load")
            page.evaluate(WAIT)
            page.add_style_tag(content=PRINT_CSS)
            page.emulate_media(media="print")
            date = time.strftime("%B %Y")
            numbers: list = []
            footer = FOOTER.format(title=html.escape(title))
            options = dict(
                format="A4",
                print_background=True,
                display_header_footer=True,
                header_template="<span></span>",
                footer_template=footer,
                outline=True,
                tagged=True,
                margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"},
            )
            out.parent.mkdir(parents=True, exist_ok=True)
            # 0: the title page and contents alone, to count their pages (the contents name every
            # title, so the search for where each document starts begins after them);
            # 1: the book with placeholder page numbers; 2: the book with the numbers pass 1 found.
            front = 0
            for attempt in range(3):
                page.evaluate(
                    "() => { const f = document.getElementById('tl-front-matter'); if (f) "
                    "f.remove(); }"
                )
                page.evaluate(
                    "(on) => document.documentElement.classList.toggle('tl-front-only', on)",
                    attempt == 0,
                )
                titles = page.evaluate(
                    PREPARE,
                    [
                        title,
                        CONFIG.get("author", ""),
                        date,
                        ONLINE,
                        [list(x) for x in pages],
                        numbers,
                    ],
                )
                page.evaluate(WAIT)
                page.pdf(path=str(out), **options)
                if attempt == 0:
                    front = pdf_pages(out)
                elif attempt == 1:
                    numbers = [front + 1] + start_pages(out, titles[1:], skip=front)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    facts.update(titles=titles, starts=numbers, front=front, pages=pdf_pages(out))
    return facts


def publish(out: Path) -> None:
    """A copy next to the HTML book, when there is one, so the site serves it (index.md links
    it)."""
    site = BUILD / "html"
    if out.is_relative_to(BUILD) and (site / "index.html").is_file():
        shutil.copy2(out, site / out.name)


def build_pdf(
    out: Path = BUILD / "pdf" / f"{NAME}.pdf", source: Path = ROOT, work: Path = ROOT
) -> dict:
    """Build the one-page book of `source` under `work`/_build and print it to `out`; returns
    facts."""
    start = time.perf_counter()
    jupyter_book(["--builder", "singlehtml"], work, source)
    facts = print_pdf(
        work / "_build" / "singlehtml",
        out,
        toc_pages(yaml.safe_load((source / "_toc.yml").read_text())),
    )
    publish(out)
    print(
        f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} "
        f"({out.stat().st_size / 1e6:.1f} MB, {len(facts['titles'])} documents, "
        f"{time.perf_counter() - start:.0f} s)"
    )
    return facts


# --- EPUB ---------------------------------------------------------------------------------------


MATH = re.compile(r'<(span|div) class="math notranslate nohighlight">(.*?)</\1>', re.S)
SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>\s*", re.S)
# myst-nb's collapsed cells (the solutions): open on paper and in the EPUB, where a reader may not
# open a <details>, and a <summary> may not hold the <p> titles myst-nb puts in it.
HIDDEN_CELL = re.compile(
    r'<details class="admonition hide ([^"]*)">\s*<summary[^>]*>\s*'
    r'<p class="collapsed admonition-title">(.*?)</p>\s*'
    r'<p class="expanded admonition-title">.*?</p>\s*'
    r"</summary>(.*?)</details>",
    re.S,
)
STYLESHEET = re.compile(r'<link rel="stylesheet"[^>]*href="([^"]+)"[^>]*/>\s*')
SVG_DOCTYPE = re.compile(r"<!DOCTYPE svg[^\[>]*(\[.*?\])?\s*>\s*", re.S)


def _tex(source: str) -> tuple[str, bool]:
    """The TeX of a math element's text (HTML-escaped, with \\( \\) or \\[ \\] or $$ around it) and
    display."""
    text = html.unescape(source).strip()
    for left, right, display in ((r"\(", r"\)", False), (r"\[", r"\]", True), ("$$", "$$", True)):
        if text.startswith(left) and text.endswith(right):
            return text[len(left) : -len(right)], display
    return text, True  # amsmath environments (\begin{align} ...) stand alone


def _resolve(folder: str, href: str) -> str:
    """The zip path of `href` written in a page in `folder`."""
    parts = []
    for part in (folder + href.split("?")[0]).split("/"):
        if part == "..":
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def mathml_epub(epub: Path) -> dict:
    """Rewrite `epub` in place: TeX -> MathML, no scripts; the manifest says which pages hold
    MathML."""
    from playwright.sync_api import sync_playwright

    with zipfile.ZipFile(epub) as z:
        files = {info.filename: z.read(info.filename) for info in z.infolist()}
    pages = {
        name: data.decode() for name, data in files.items() if name.endswith((".xhtml", ".html"))
    }
    found = {name: MATH.findall(text) for name, text in pages.items()}
    sources = sorted({m[1] for ms in found.values() for m in ms})
    mathjax = ROOT / "vendor" / "static" / "mathjax" / "tex-chtml.js"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        page = browser.new_page()
        page.set_content("<html><body></body></html>")
        page.evaluate("() => { window.MathJax = {startup: {typeset: false}}; }")
        page.add_script_tag(path=str(mathjax))
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
        converted = page.evaluate(
            """(items) => items.map(([tex, display]) => {
            try { return MathJax.tex2mml(tex, {display}); } catch (e) { return null; } })""",
            [list(_tex(src)) for src in sources],
        )
        browser.close()
    mathml = dict(zip(sources, converted))
    failed = [src[:60] for src, mml in mathml.items() if mml is None or "merror" in mml]
    if failed:
        raise SystemExit(f"MathJax could not convert {len(failed)} formulas, e.g. {failed[:3]}")
    with_math, with_forms = set(), set()
    for name, text in pages.items():

        def swap(m):
            mml = mathml[m[2]]
            if "xmlns=" not in mml.split(">", 1)[0]:
                mml = mml.replace("<math", '<math xmlns="http://www.w3.org/1998/Math/MathML"', 1)
            return f'<{m[1]} class="math">{mml}</{m[1]}>'

        new = MATH.sub(swap, text)
        if new != text:
            with_math.add(name)
        new = HIDDEN_CELL.sub(
            lambda m: (
                f'<div class="admonition hide {m[1]}"><p class="admonition-title">{m[2]}</p>'
                f"{m[3]}</div>"
            ),
            SCRIPT.sub("", new),
        )
        folder = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
        new = STYLESHEET.sub(lambda m: m[0] if _resolve(folder, m[1]) in files else "", new)
        # the front page's links to the PDF and EPUB lead to the published files
        new = re.sub(rf'href="({NAME}\.(?:pdf|epub))"', lambda m: f'href="{ONLINE}{m[1]}"', new)
        if "<form" in new:
            with_forms.add(name)
        files[name] = new.encode()
    for name in [n for n in files if n.endswith(".svg")]:
        # matplotlib's SVG 1.1 DOCTYPE names external DTDs, and an image it draws twice has one id
        # twice
        svg = SVG_DOCTYPE.sub("", files[name].decode(), count=1)
        seen: dict[str, int] = {}

        def unique(m):
            seen[m[1]] = seen.get(m[1], 0) + 1
            return m[0] if seen[m[1]] == 1 else f'id="{m[1]}-{seen[m[1]]}"'

        files[name] = re.sub(r'\bid="([^"]+)"', unique, svg).encode()
    # An e-reader shows an XHTML page that is not well-formed as an error, or not at all.
    import xml.etree.ElementTree as ET

    broken = []
    for name in pages:
        try:
            ET.fromstring(files[name])
        except ET.ParseError as err:
            broken.append(f"{name}: {err}")
    if broken:
        raise SystemExit(
            "pages of the EPUB that are not well-formed XHTML (raw HTML in an output?):\n"
            + "\n".join(broken)
        )
    opf = next(n for n in files if n.endswith(".opf"))
    manifest = files[opf].decode()
    base = opf.rsplit("/", 1)[0] + "/" if "/" in opf else ""

    def mark(m):
        href = base + m[1]
        item = m[0]
        # EPUB 3 asks pages with MathML, and with forms (the explorers' controls), to say so
        props = " ".join(
            p for p, pages in (("mathml", with_math), ("scripted", with_forms)) if href in pages
        )
        if props and "properties=" not in item:
            item = item.replace(" href=", f' properties="{props}" href=', 1)
        return item

    files[opf] = re.sub(r'<item [^>]*href="([^"]+)"[^>]*/>', mark, manifest).encode()
    tmp = epub.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w") as z:
        z.writestr(
            zipfile.ZipInfo("mimetype"), files.pop("mimetype"), compress_type=zipfile.ZIP_STORED
        )
        for name, data in files.items():
            z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    tmp.replace(epub)
    return {"formulas": len(sources), "pages_with_math": len(with_math)}


def build_epub(
    out: Path = BUILD / "epub" / f"{NAME}.epub", source: Path = ROOT, work: Path = ROOT
) -> dict:
    """Build the EPUB of `source` under `work`/_build into `out`, maths as MathML; returns facts."""
    start = time.perf_counter()
    shutil.rmtree(
        work / "_build" / "epub", ignore_errors=True
    )  # its manifest lists what the folder holds
    jupyter_book(["--builder", "custom", "--custom-builder", "epub"], work, source)
    made = sorted((work / "_build" / "epub").glob("*.epub"))
    if len(made) != 1:
        raise SystemExit(f"the epub builder made {len(made)} files: {made}")
    out.parent.mkdir(parents=True, exist_ok=True)
    if made[0] != out:
        made[0].replace(out)
    facts = mathml_epub(out)
    publish(out)
    with zipfile.ZipFile(out) as z:
        bad = z.testzip()
        if bad:
            raise SystemExit(f"{out}: {bad} is damaged")
    print(
        f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} "
        f"({out.stat().st_size / 1e6:.1f} MB, {facts['formulas']} formulas as MathML, "
        f"{time.perf_counter() - start:.0f} s)"
    )
    return facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("format", choices=["pdf", "epub"])
    args = parser.parse_args(argv)
    (build_pdf if args.format == "pdf" else build_epub)()
    return 0


if __name__ == "__main__":
    sys.exit(main())
