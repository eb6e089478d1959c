"""tools/book_pages.py's hook that writes the front page again when a static file changed: Sphinx
copies assets/ into _build/html/_static only when it writes a page, so a change to a script
alone left the old script in the book (`make book` said "no targets are out of date")."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book_pages  # noqa: E402

sys.path.pop(0)


def _app(tmp_path: Path, fmt: str = "html"):
    return SimpleNamespace(
        builder=SimpleNamespace(name=fmt),
        outdir=str(tmp_path / "out"),
        confdir=str(tmp_path),
        config=SimpleNamespace(
            html_static_path=["assets"], root_doc="index", exclude_patterns=["tests/*"]
        ),
    )


def test_a_changed_or_missing_static_file_writes_the_front_page_again(tmp_path):
    (tmp_path / "assets" / "web").mkdir(parents=True)
    (tmp_path / "out" / "_static" / "web").mkdir(parents=True)
    script = tmp_path / "assets" / "web" / "live.js"
    copy = tmp_path / "out" / "_static" / "web" / "live.js"
    app = _app(tmp_path)

    def outdated():
        return book_pages.static_files_changed(app, None, set(), set(), set())

    script.write_text("export const a = 1;\n")
    assert outdated() == ["index"]  # no copy yet
    copy.write_text("export const a = 1;\n")
    # what Sphinx does not copy: hidden files and folders, excluded paths, templates
    (tmp_path / "assets" / ".hidden").write_text("never copied")
    (tmp_path / "assets" / "web" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "assets" / "web" / ".ipynb_checkpoints" / "live-checkpoint.js").write_text("x")
    (tmp_path / "assets" / "tests").mkdir()
    (tmp_path / "assets" / "tests" / "x.js").write_text("x")
    (tmp_path / "assets" / "page.css_t").write_text("{{ x }}")
    assert outdated() == []  # the same bytes, and nothing else to copy: no rewrite every build
    script.write_text("export const a = 2;\n")  # same size, other content
    assert outdated() == ["index"]
    script.write_text("export const a = 1;\n")
    assert outdated() == []
    (tmp_path / "assets" / "web" / "nested").mkdir()
    (tmp_path / "assets" / "web" / "nested" / "new.js").write_text("x")
    assert outdated() == ["index"]  # a new file in a folder
    assert book_pages.static_files_changed(_app(tmp_path, "epub"), None, set(), set(), set()) == []
