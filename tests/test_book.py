"""The built book (make book, which make test runs first) has every page, with working launch links.

These read _build/html as the build left it; tests/test_browser.py opens every
page in a real browser. The build itself ran with -W, so it had no warnings.
"""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
pytestmark = (
    pytest.mark.slow
)  # reads the built book (make test builds it first; make check does not)
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
PAGES = [TOC["root"]] + [ch["file"] for part in TOC["parts"] for ch in part["chapters"]]
NOTEBOOK_PAGES = [p for p in PAGES if (ROOT / f"{p}.ipynb").is_file()]
CHAPTER_PAGES = [
    p for p in NOTEBOOK_PAGES if p.startswith("chapters/")
]  # exercises have no outputs or math


@pytest.fixture(scope="module")
def built():
    if not (HTML / "index.html").is_file():
        pytest.fail("the book is not built: run `make book` (make test does it first)")
    return HTML


@pytest.mark.parametrize("page", PAGES)
def test_every_page_is_built(built, page):
    html = (built / f"{page}.html").read_text()
    assert "Attention, step by step" in html
    assert "Traceback (most recent call last)" not in html
    assert not re.search(r'class="[^"]*\berror\b[^"]*"', html), "an error box on the page"


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_launch_links_point_at_this_notebook(built, page):
    html = (built / f"{page}.html").read_text()
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    colab = f"https://colab.research.google.com/github/{repo}/blob/main/{page}.ipynb"
    binder = f"https://mybinder.org/v2/gh/{repo}/main?urlpath=tree/{page}.ipynb"
    assert colab in html, f"no Colab link to {page}.ipynb"
    assert binder in html, f"no Binder link to {page}.ipynb"


@pytest.mark.parametrize("page", CHAPTER_PAGES)
def test_chapter_pages_show_their_outputs_and_math(built, page):
    html = (built / f"{page}.html").read_text()
    assert "cell_output" in html, (
        "no cell outputs rendered: were the notebooks committed without outputs?"
    )
    assert "install-tutorlib" not in html and "TUTORLIB_SOURCE" not in html, (
        "the install cell should be hidden"
    )
    assert re.search(r"\\\(|\\\[|\$\$|math notranslate", html), "no math on the page"


def test_plots_are_in_the_built_site(built):
    images = list(
        (built / "_images").glob("*.svg")
    )  # the chapters draw SVG (tools/notebooks.py's first cell)
    assert len(images) >= 20, (
        f"expected the chapters' SVG figures in _build/html/_images, found {len(images)}"
    )
