"""A small Sphinx extension for the book's pages (loaded by _config.yml's local_extensions).

- Solution pages leave the Previous/Next reading chain. A reader who clicks
  "Next" at the end of the last exercise should not land on the answers; the
  solution pages stay in the sidebar, and each one's "Previous" leads back to
  its exercise.
- Cells that start with ``# NBVAL_IGNORE_OUTPUT`` tell the tests not to compare
  their output (timings, say); the marker means nothing to a reader, so the
  rendered code leaves that line out. The notebooks keep it.
- Sphinx 7.4 writes an inline script twice when an extension registers it
  after the builder has started (sphinx-doc/sphinx#13402, fixed in Sphinx 8.2;
  Jupyter Book 1 pins Sphinx 7). sphinx-thebe's ``const THEBE_JS_URL = ...`` is
  one: the second copy throws on every page. Each page keeps one copy of each
  script.
- pydata-sphinx-theme loads Font Awesome twice: as webfonts from its CSS, and
  as a 1.4 MB script that redraws every icon as SVG. The webfonts alone draw
  the book's dozen icons, so the script is dropped from every page (it was a
  third of a page's weight on a first visit).
- myst-nb's collapsed cells (the solutions behind "Show the solution to
  question 1") label their ``<summary>`` with ``aria-label="Toggle hidden
  content"``, which replaces the text the reader sees: a screen reader says
  "Toggle hidden content" for every solution, and a voice-control user who
  says "Show the solution to question 1" is not understood (WCAG 2.1 SC 2.5.3,
  axe's label-content-name-mismatch). The summary is drawn here without that
  label, so its visible text is its name.
- The in-page translator (chapter 10, the front page) fetches the shipped model's weights
  from ``_static/web/``: they are exported there from the checkpoint once the HTML is written
  (tools/export_web.py), so no copy of them is committed.
- Sphinx copies the static files (``assets/``: the page's scripts and styles) only when it
  writes a page: after a change to a script alone, ``make book`` said "no targets are out of
  date" and left the old script in ``_build/html`` (a session tested the page's old
  translator.js that way). When a file Sphinx would copy differs from its copy, the front page
  is read and written again, and the copies made with it.
- The EPUB (``make epub``, Sphinx's epub builder with its own plain theme)
  has no launch buttons: sphinx-book-theme's handler would look for the
  repository in a page context that the epub theme does not fill, and fail.
  Nor does it carry MathJax (tools/book_formats.py writes the maths as
  MathML): vendor/static stays out of it.
"""

from __future__ import annotations

import filecmp
import os
import re
from pathlib import Path

from docutils import nodes
from export_web import export_into  # tools/, on the path as this extension is

SOLUTIONS = "exercises/solutions/"
NBVAL_MARKER = re.compile(r"^# NBVAL_[A-Z_]+[^\n]*\n?", re.MULTILINE)


def is_solution(docname: str | None) -> bool:
    return bool(docname) and docname.startswith(SOLUTIONS)


def exercise_of(docname: str) -> str:
    """exercises/solutions/ex04_x -> exercises/ex04_x"""
    return "exercises/" + docname[len(SOLUTIONS) :]


def hide_nbval_markers(app, doctree) -> None:
    for block in list(doctree.findall(nodes.literal_block)):
        text = block.astext()
        if "# NBVAL_" not in text:
            continue
        cleaned = NBVAL_MARKER.sub("", text)
        block.children = [nodes.Text(cleaned)]
        block.rawsource = cleaned


def _link(app, pagename: str, target: str) -> dict:
    title = app.env.titles[target]
    return {
        "link": app.builder.get_relative_uri(pagename, target),
        "title": app.builder.render_partial(title)["title"],
    }


def _step(relations: dict, docname: str, direction: int) -> str | None:
    """The neighbour of ``docname`` in the reading chain, skipping solution pages: the next one
    for ``direction`` > 0, else the previous one. Sphinx's relations are [parent, previous,
    next]."""
    index = 2 if direction > 0 else 1
    seen = set()
    current = relations.get(docname, [None, None, None])[index]
    while current and is_solution(current) and current not in seen:
        seen.add(current)
        current = relations.get(current, [None, None, None])[index]
    return None if is_solution(current) else current


def reading_chain(app, pagename, templatename, context, doctree) -> None:
    relations = app.env.collect_relations()
    if pagename not in relations:
        return
    if is_solution(pagename):
        exercise = exercise_of(pagename)
        context["prev"] = _link(app, pagename, exercise) if exercise in app.env.titles else None
        context["next"] = None
        return
    for key, direction in (("prev", -1), ("next", 1)):
        neighbour = _step(relations, pagename, direction)
        context[key] = _link(app, pagename, neighbour) if neighbour else None


def one_copy_of_each_script(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    unique, seen = [], set()
    for script in scripts:
        attributes = getattr(script, "attributes", {}) or {}
        key = (str(getattr(script, "filename", script) or ""), tuple(sorted(attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


FONTAWESOME_SCRIPT = re.compile(
    r'[ \t]*<script[^>]*src="[^"]*_static/scripts/fontawesome\.js[^"]*"[^>]*></script>\n?'
)


def drop_icon_script(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        lean = FONTAWESOME_SCRIPT.sub("", text)
        if lean != text:
            page.write_text(lean, encoding="utf-8")
    for leftover in (out / "_static" / "scripts").glob("fontawesome.js*"):
        leftover.unlink()


def export_translator(app, exception) -> None:
    """translator.bin and translator.json into _build/html/_static/web (tools/export_web.py)."""
    if exception is not None or app.builder.name != "html":
        return
    export_into(Path(app.outdir) / "_static" / "web")


def visit_hidden_cell(self, node) -> None:
    """myst-nb's visit_HideCellInput (myst_nb/sphinx_.py, 1.x) without the summary's aria-label."""
    from html import escape

    self.body.append(f'<details class="admonition hide {" ".join(node["classes"])}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def label_hidden_cells_by_their_text(app) -> None:
    # At builder-inited every extension has registered its nodes, so this replaces myst-nb's.
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput

    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput))


def epub_without_launch_buttons(app) -> None:
    if app.builder.name == "epub":
        app.config.html_theme_options = {**app.config.html_theme_options, "launch_buttons": {}}
        app.config.html_static_path = [
            p for p in app.config.html_static_path if not p.startswith("vendor")
        ]


def _static_files(source: Path, excluded):
    """``(file, its path under _static)`` for each file Sphinx copies from ``source`` (an entry of
    ``html_static_path``), by Sphinx 7.4's own rules (``copy_asset``): folders walked with
    their links followed, a folder or file that ``excluded`` matches left out with all it
    holds, templates (``*_t``, ``*.jinja``) left out here, as Sphinx renders rather than copies
    them."""
    if source.is_file():
        yield source, source.name
        return
    for root, folders, files in os.walk(source, followlinks=True):
        here = Path(root).relative_to(source).as_posix()
        here = "" if here == "." else here + "/"
        folders[:] = [f for f in folders if not excluded(here + f)]
        for name in files:
            if not excluded(here + name) and not name.lower().endswith(("_t", ".jinja")):
                yield Path(root) / name, here + name


def static_files_changed(app, env, added, changed, removed) -> list[str]:
    """The root page, to be read and written again, when a file Sphinx copies from
    ``html_static_path`` is missing from ``_build/html/_static`` or differs from its copy there
    (Sphinx copies them only when it writes a page); none otherwise."""
    if app.builder.name != "html":  # the EPUB builder writes its own pages (format "html" too)
        return []
    from sphinx.util.matching import Matcher

    excluded = Matcher([*app.config.exclude_patterns, "**/.*"])  # as copy_static_files
    static = Path(app.outdir) / "_static"
    filecmp.clear_cache()  # a file rewritten within one timestamp tick must not look unchanged
    for entry in app.config.html_static_path:
        for path, name in _static_files(Path(app.confdir) / entry, excluded):
            copy = static / name
            if not copy.is_file() or not filecmp.cmp(path, copy, shallow=False):
                return [app.config.root_doc]
    return []


def setup(app):
    app.connect("env-get-outdated", static_files_changed)
    app.connect("builder-inited", label_hidden_cells_by_their_text)
    app.connect("builder-inited", epub_without_launch_buttons)
    app.connect("doctree-read", hide_nbval_markers)
    app.connect("html-page-context", reading_chain)
    app.connect("html-page-context", one_copy_of_each_script, priority=900)
    app.connect("build-finished", drop_icon_script)
    app.connect("build-finished", export_translator)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
