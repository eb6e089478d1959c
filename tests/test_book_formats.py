"""`make pdf` and `make epub` (tools/book_formats.py), checked on a small book so CI stays quick.

The small book is this one cut to four pages in _toc.yml order: a front page
with Portuguese accents, chapter 3 (maths, a figure, an explorer, code), the
solutions of exercise 3 (code folded away on screen) and the notation page. It is built and printed
exactly as `make pdf` and `make epub` build the whole book (about 20 s each); then the files are
read back as a reader's program would: pdftotext and pdffonts for the PDF, the zip and its XHTML for
the EPUB (and epubcheck, where it is installed). Every figure of the book is SVG, so the PDF draws
them as vectors.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import book_formats  # noqa: E402

sys.path.pop(0)

from tutorlib.explorers.static import OFFLINE_NOTE  # noqa: E402

pytestmark = pytest.mark.slow  # builds a small book, prints it in Chromium, runs epubcheck

PAGES = ["index", "chapters/03_softmax", "exercises/solutions/ex03_softmax", "chapters/notation"]
ACCENTS = "Tradução: não está, irmã, maçã."


@pytest.fixture(scope="module")
def small_book(tmp_path_factory) -> Path:
    missing = [tool for tool in ("pdftotext", "pdfinfo", "pdffonts") if shutil.which(tool) is None]
    if missing or not Path(book_formats.CHROMIUM).is_file():
        pytest.fail(
            "make system-deps installs what these tests need (missing: "
            f"{missing or book_formats.CHROMIUM})"
        )
    if not (ROOT / "vendor" / "static" / "mathjax" / "tex-chtml.js").is_file():
        pytest.fail("vendor/static has no MathJax: run `make vendor`")
    src = tmp_path_factory.mktemp("small-book")
    for name in ("assets", "vendor", "tools", "_templates", "chapters", "exercises", "tutorlib"):
        (src / name).symlink_to(ROOT / name)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    # the chapter links to chapter 4 and its exercise, which the small book leaves out
    config["sphinx"]["config"]["suppress_warnings"] = ["myst.xref_missing"]
    (src / "_config.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    (src / "_toc.yml").write_text(
        yaml.safe_dump(
            {
                "format": "jb-book",
                "root": "index",
                "parts": [
                    {"caption": "Foundations", "chapters": [{"file": "chapters/03_softmax"}]},
                    {
                        "caption": "Solutions",
                        "chapters": [{"file": "exercises/solutions/ex03_softmax"}],
                    },
                    {"caption": "Reference", "chapters": [{"file": "chapters/notation"}]},
                ],
            }
        )
    )
    (src / "index.md").write_text(f"# Attention, step by step\n\nA small edition. {ACCENTS}\n")
    return src


@pytest.fixture(scope="module")
def pdf(small_book) -> tuple[Path, dict, list[str]]:
    out = small_book / "out" / "small.pdf"
    facts = book_formats.build_pdf(out, source=small_book, work=small_book)
    text = subprocess.run(
        ["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True
    ).stdout
    return out, facts, text.split("\f")


def test_pdf_has_a_title_page_contents_with_page_numbers_and_every_page_in_order(pdf):
    out, facts, pages = pdf
    assert book_formats.pdf_pages(out) == facts["pages"] >= 6, facts
    assert "Attention, step by step" in pages[0] and "Contents" not in pages[0], (
        "page 1 is the title page"
    )
    contents = pages[1]
    assert "Contents" in contents
    titles = facts["titles"]
    assert (
        titles[1].endswith("Softmax") and "exercise 3" in titles[2] and titles[3] == "Notation"
    ), titles
    starts = facts["starts"]
    assert starts == sorted(starts) and len(set(starts)) == len(starts), (
        f"documents out of order: {starts}"
    )
    for title, start in zip(titles, starts):
        # the contents give each title with its page, and that page opens with the title
        assert re.search(re.escape(title) + r"[ .]*" + str(start) + r"\s*$", contents, re.M), (
            title,
            start,
            contents,
        )
        assert book_formats._normalise(title) in book_formats._normalise(pages[start - 1])[:120], (
            title,
            start,
        )
    # every page carries its number out of the total in the footer
    total = facts["pages"]
    numbered = [
        i + 1 for i, p in enumerate(pages[:total]) if re.search(rf"\b{i + 1} / {total}\b", p)
    ]
    assert numbered == list(range(1, total + 1)), (
        f"pages without 'N / {total}': {set(range(1, total + 1)) - set(numbered)}"
    )


def test_pdf_sets_maths_figures_accents_and_the_explorers_note(pdf):
    out, _, pages = pdf
    text = "\n".join(pages)
    assert "não está, irmã, maçã" in text, "Portuguese accents lost"
    for raw in (r"\frac", "$$", r"\(", r"\begin{"):
        assert raw not in text, f"untypeset TeX in the PDF: {raw}"
    assert re.search(r"softmax\s*\(", text, re.I)
    # the chapter's figures are SVG, drawn as vectors (no raster image to list): their numbered
    # captions and the words matplotlib wrote in them are in the text
    assert re.search(r"Figure \d+", text), "no figure caption in the PDF"
    assert "temperature" in text.lower()
    assert re.sub(r"\s+", " ", OFFLINE_NOTE)[:40] in re.sub(r"\s+", " ", text), (
        "the explorer's note is missing"
    )
    fonts = subprocess.run(["pdffonts", str(out)], capture_output=True, text=True).stdout
    assert "Mono" in fonts, "code is not set in a monospace font"


@pytest.fixture(scope="module")
def epub(small_book) -> tuple[Path, dict]:
    out = small_book / "out" / "small.epub"
    facts = book_formats.build_epub(out, source=small_book, work=small_book)
    return out, facts


def test_epub_is_a_valid_book_with_every_page_in_order_and_maths_as_mathml(epub):
    out, facts = epub
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        assert names[0] == "mimetype" and z.read("mimetype") == b"application/epub+zip"
        assert z.getinfo("mimetype").compress_type == zipfile.ZIP_STORED
        opf_name = next(n for n in names if n.endswith(".opf"))
        opf = z.read(opf_name).decode()
        spine = re.findall(r'<itemref idref="([^"]+)"', opf)
        items = [
            dict(re.findall(r'(\w+)="([^"]*)"', item)) for item in re.findall(r"<item [^>]*>", opf)
        ]
        hrefs = {item["id"]: item["href"] for item in items}
        order = [hrefs.get(i, "").removesuffix(".xhtml") for i in spine]
        found = [p for p in order if p in PAGES]
        assert found == PAGES, f"spine {order}"
        pages = {n: z.read(n).decode() for n in names if n.endswith(".xhtml")}
    for name, text in pages.items():
        ET.fromstring(text)  # well-formed XHTML, or an e-reader shows nothing
        assert "<script" not in text, f"{name} carries a script an e-reader will not run"
    softmax = pages["chapters/03_softmax.xhtml"]
    assert facts["formulas"] > 20 and softmax.count("<math") > 20
    assert r"\(" not in softmax and r"\frac" not in re.sub(
        r"<annotation.*?</annotation>", "", softmax, flags=re.S
    )
    assert re.search(r'properties="[^"]*mathml', opf), (
        "pages with MathML must say so in the manifest"
    )
    assert "<img" in softmax and OFFLINE_NOTE[:40] in softmax
    assert "não está, irmã, maçã" in pages["index.xhtml"]
    # Debian's epubcheck is an executable jar; run it with java where binfmt does not
    jar = Path("/usr/share/java/epubcheck.jar")
    command = (
        ["java", "-jar", str(jar)]
        if jar.is_file() and shutil.which("java")
        else (["epubcheck"] if shutil.which("epubcheck") else None)
    )
    if command:
        check = subprocess.run([*command, str(out)], capture_output=True, text=True)
        # RSC-012: links into chapter 4 and the exercises, which the small book leaves out
        problems = [
            line
            for line in (check.stdout + check.stderr).splitlines()
            if line.startswith(("ERROR", "FATAL", "WARNING"))
            and not line.startswith("ERROR(RSC-012)")
        ]
        assert not problems, "\n".join(problems[:20])
        assert "Messages:" in check.stdout + check.stderr, "epubcheck did not run"


def test_pdf_prints_collapsed_solutions_open(pdf):
    # the solutions fold their code away (a <details>); on paper it must be there, not an empty box
    import nbformat

    nb = nbformat.read(ROOT / "exercises" / "solutions" / "ex03_softmax.ipynb", as_version=4)
    hidden = [
        c
        for c in nb.cells
        if c.cell_type == "code" and {"hide-input", "hide-cell"} & set(c.metadata.get("tags", []))
    ]
    assert hidden, "the solutions fold no code away: pick another page for this test"
    text = re.sub(r"\s+", " ", "\n".join(pdf[2]))
    for cell in hidden:
        line = next(line for line in cell.source.splitlines() if len(line.strip()) > 20)
        assert re.sub(r"\s+", " ", line.strip())[:30] in text, (
            f"folded code missing on paper: {line!r}"
        )
