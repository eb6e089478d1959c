"""Every figure has alt text, and every colour is colour-blind safe.

Alt text: a notebook's image output has no alt text of its own; myst-nb takes
it from the cell's metadata, ``{"mystnb": {"image": {"alt": "..."}}}``, and
writes it into ``<img alt="...">`` (without it the built page says only the
image's file name). Each chapter cell that draws a figure must carry one that
says what the figure shows and what to take from it.

Colours: chapters and tutorlib draw with the Okabe-Ito palette
(tutorlib.display.OKABE_ITO) or greys, and colour maps from
tutorlib.display.COLOUR_BLIND_SAFE_CMAPS (cividis by default); no rainbow
(jet, hsv, turbo) or red-green maps, and no plot left to matplotlib's default
colour cycle, whose red and green are hard to tell apart.

The last test reads the built book (``make book``; ``make test`` builds it
first). TUTORLIB_BOOK_HTML points it at a book built elsewhere
(``jupyter-book build . --path-output DIR`` gives DIR/_build/html).
"""

import ast
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import matplotlib
import nbformat
import numpy as np
import pytest

matplotlib.use("Agg")

from tutorlib import display  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))
IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml", "image/gif")
OKABE_ITO = {c.lower() for c in display.OKABE_ITO.values()}
NEUTRAL_NAMES = {"black", "white", "grey", "gray", "k", "w", "none"}
PLOT_CALLS = {
    "plot",
    "scatter",
    "bar",
    "barh",
    "hist",
    "step",
    "fill_between",
    "errorbar",
    "stem",
    "stackplot",
    "pie",
}
IMAGE_CALLS = {"imshow", "pcolormesh", "pcolor", "matshow", "contourf", "contour"}
COLOUR_KEYWORDS = {"color", "c", "colors", "facecolor", "edgecolor"}


def figure_cells(path):
    """(index, cell, number of image outputs) for every code cell of a notebook."""
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            images = sum(1 for out in cell.outputs for t in IMAGE_TYPES if t in out.get("data", {}))
            yield i, cell, images


def alt_of(cell):
    return cell.metadata.get("mystnb", {}).get("image", {}).get("alt")


def describe(path, i, cell):
    return f"{path.name} cell {i} ({cell.source.strip().splitlines()[0][:60]!r})"


# --- alt text ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_has_alt_text(path):
    figures = 0
    for i, cell, images in figure_cells(path):
        where = describe(path, i, cell)
        alt = alt_of(cell)
        if not images:
            assert alt is None, (
                f"{where} has alt text but no image: was the figure moved to another cell?"
            )
            continue
        figures += 1
        assert images == 1, (
            f"{where} draws {images} images; one figure per cell, so its alt text describes it"
        )
        assert isinstance(alt, str) and alt.strip(), (
            f"{where} draws a figure without alt text: add cell metadata "
            '{"mystnb": {"image": {"alt": "..."}}} '
            "saying what it shows and what to take from it"
        )
        assert 60 <= len(alt) <= 450, (
            f"{where}: alt text of {len(alt)} characters; write one or two sentences (60 to 450)"
        )
        assert not re.search(r"\b(TODO|TBD|FIXME|image of|picture of|figure \d)\b", alt, re.I), (
            f"{where}: alt {alt!r}"
        )
        assert not alt.lower().endswith((".png", ".svg")), f"{where}: the alt text is a file name"
    if path.name.startswith(("01_", "02_", "03_", "04_", "05_", "06_", "07_", "08_")):
        assert figures >= 1, f"{path.name} has no figures: were its outputs stripped?"


def test_alt_texts_are_not_copied_between_figures():
    seen = {}
    for path in NOTEBOOKS:
        for i, cell, images in figure_cells(path):
            if images:
                alt = alt_of(cell)
                assert alt not in seen, (
                    f"{describe(path, i, cell)} repeats the alt text of {seen[alt]}"
                )
                seen[alt] = describe(path, i, cell)
    assert len(seen) >= 14, (
        f"chapters 1-8 draw at least 14 figures, found {len(seen)} with alt text"
    )


# --- colours --------------------------------------------------------------------------------


def _parse(source: str, where: str) -> ast.Module:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError as e:
        pytest.fail(f"{where}: cannot parse the code to check its colours: {e}")


def _on_axes(func) -> bool:
    """Whether a call is a plotting method: ``plt.x``, ``ax.x``, ``axes[0].x``, ``ax2.x`` (not
    ``optimizer.step``)."""
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value.value if isinstance(func.value, ast.Subscript) else func.value
    return isinstance(owner, ast.Name) and (owner.id == "plt" or owner.id.startswith("ax"))


def _colour_problems(tree: ast.Module, cmap_variables: bool = False) -> list[str]:
    """What in ``tree`` is not colour-blind safe.

    ``cmap_variables`` lets ``cmap=`` be a variable (inside tutorlib, where
    tutorlib.display checks the value at run time); chapters must name the map.
    """
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if re.fullmatch(r"#[0-9a-fA-F]{6}", text):
                r, g, b = text[1:3], text[3:5], text[5:7]
                if text.lower() not in OKABE_ITO and not (r == g == b):
                    problems.append(
                        f"colour {text} is neither Okabe-Ito ({sorted(OKABE_ITO)}) nor a grey"
                    )
        if not isinstance(node, ast.Call):
            continue
        name = (
            node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        )
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if "cmap" in keywords:
            value = keywords["cmap"]
            named = isinstance(value, ast.Constant) and (
                value.value is None or value.value in display.COLOUR_BLIND_SAFE_CMAPS
            )
            if not named and not (cmap_variables and isinstance(value, ast.Name)):
                problems.append(
                    f"{name}(cmap={ast.unparse(value)}) is not in "
                    "tutorlib.display.COLOUR_BLIND_SAFE_CMAPS"
                )
        for key in COLOUR_KEYWORDS & keywords.keys():
            value = keywords[key]
            values = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            for v in values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    v = v.value
                    if v.lower() not in OKABE_ITO | NEUTRAL_NAMES and not re.fullmatch(
                        r"#([0-9a-fA-F]{2})\1\1", v
                    ):
                        problems.append(f"{name}({key}={v!r}): use an Okabe-Ito colour or a grey")
        plotting = _on_axes(node.func)
        if plotting and name in PLOT_CALLS and not (COLOUR_KEYWORDS & keywords.keys()):
            problems.append(
                f"{name}(...) without color=: matplotlib's default cycle pairs red with green"
            )
        if plotting and name in PLOT_CALLS:
            for arg in node.args:
                if (
                    isinstance(arg, ast.Constant)
                    and isinstance(arg.value, str)
                    and re.search(r"[bgrcmyk]", arg.value)
                ):
                    problems.append(
                        f"{name}(..., {arg.value!r}): a colour letter in the format string"
                    )
        if plotting and name in IMAGE_CALLS and "cmap" not in keywords:
            problems.append(f"{name}(...) without cmap=: name a colour-blind-safe map")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_colours_are_colour_blind_safe(path):
    problems = []
    for i, cell, _ in figure_cells(path):
        for problem in _colour_problems(_parse(cell.source, describe(path, i, cell))):
            problems.append(f"{describe(path, i, cell)}: {problem}")
    assert not problems, "\n".join(problems)


EXPLORER_MODULES = sorted(f"explorers/{p.name}" for p in (ROOT / "tutorlib/explorers").glob("*.py"))


@pytest.mark.parametrize("module", ["display.py", *EXPLORER_MODULES])
def test_tutorlib_colours_are_colour_blind_safe(module):
    source = (ROOT / "tutorlib" / module).read_text()
    problems = _colour_problems(ast.parse(source), cmap_variables=True)
    # inline CSS in the explorers' HTML: every hex colour is Okabe-Ito or a grey
    for colour in re.findall(r"#[0-9a-fA-F]{6}\b", source):
        r, g, b = colour[1:3], colour[3:5], colour[5:7]
        if colour.lower() not in OKABE_ITO and not (r.lower() == g.lower() == b.lower()):
            problems.append(f"CSS colour {colour}")
    assert not problems, "\n".join(problems)


def test_the_colour_audit_catches_unsafe_code():
    """The checker above would fail a chapter that drew with jet, red/green or the default cycle."""
    bad = [
        'ax.imshow(w, cmap="jet")',
        "matrix(w, cmap=my_map)",
        'ax.plot(x, y, color="red")',
        'ax.plot(x, y, "r-", color="#0072B2")',
        "ax.plot(x, y)",
        'ax.scatter(x, y, c="#00ff00")',
        'ax.bar(x, y, color=["#0072B2", "#FF0000"])',
        "ax.pcolormesh(w)",
    ]
    for line in bad:
        assert _colour_problems(ast.parse(line)), f"the audit let {line!r} through"
    good = (
        'ax.imshow(w, cmap="cividis")\nax.plot(x, y, "o-", color="#0072B2")\nax.axhline(0, '
        'color="grey")\n'
    )
    assert _colour_problems(ast.parse(good)) == []


def test_display_refuses_unsafe_colour_maps():
    assert display.DEFAULT_CMAP in display.COLOUR_BLIND_SAFE_CMAPS
    for cmap in ("jet", "rainbow", "RdYlGn", "hsv"):
        with pytest.raises(
            ValueError, match=rf"cmap '{cmap}' is not one of the course's colour-blind-safe maps"
        ):
            display.matrix(np.eye(2), cmap=cmap)
        with pytest.raises(ValueError, match="colour-blind-safe"):
            display.attention_heatmap(np.eye(2), ["a", "b"], ["a", "b"], cmap=cmap)
    assert "background" in display.matrix(np.eye(2), cmap="RdBu")._repr_html_()
    from matplotlib import colormaps

    display.attention_heatmap(np.eye(2), ["a", "b"], ["a", "b"], cmap=colormaps["viridis"])
    with pytest.raises(ValueError, match="'turbo'"):
        display.attention_heatmap(np.eye(2), ["a", "b"], ["a", "b"], cmap=colormaps["turbo"])
    import matplotlib.pyplot as plt

    plt.close("all")


def test_text_on_every_shade_reads_at_wcag_aa_contrast():
    # WCAG 2.1 AA asks 4.5:1 of text. The better of black and white always reaches 4.58:1,
    # so on every colour of every map the course allows, the chosen text colour must too.
    from matplotlib.colors import to_rgb

    assert display.contrast_ratio((0, 0, 0), (1, 1, 1)) == pytest.approx(21.0)
    assert display.relative_luminance((0.5, 0.5, 0.5)) == pytest.approx(
        0.2140, abs=1e-4
    )  # linearised
    poor = []
    for name in sorted(display.COLOUR_BLIND_SAFE_CMAPS):
        for x in np.linspace(0, 1, 257):
            bg, fg = display.shade(float(x), 0.0, 1.0, name)
            ratio = display.contrast_ratio(to_rgb(bg), to_rgb(fg))
            if ratio < 4.5:
                poor.append(f"{name} at {x:.3f}: {fg} on {bg} reads at {ratio:.2f}:1")
    assert not poor, f"{len(poor)} shades with unreadable text, e.g. {poor[:5]}"
    # the tables of the explorers and of matrix() take their text colour from shade()
    cell = re.search(
        r"background:(#[0-9a-f]{6});color:(#[0-9a-f]{6})",
        display.weights_heatmap_html([[0.3, 0.7]], ["q"], ["a", "b"]),
    )
    assert display.contrast_ratio(to_rgb(cell[1]), to_rgb(cell[2])) >= 4.5, cell.group(0)


# --- the built book ---------------------------------------------------------------------------


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs))


@pytest.mark.slow  # reads the built book
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_built_pages_carry_the_alt_text(path):
    built = Path(os.environ.get("TUTORLIB_BOOK_HTML", ROOT / "_build" / "html"))
    page = built / "chapters" / (path.stem + ".html")
    if not page.is_file():
        pytest.fail(
            f"{page} is not built: run `make book` (make test does it first) or set "
            "TUTORLIB_BOOK_HTML"
        )
    parser = _Images()
    parser.feed(page.read_text())
    outputs = [img for img in parser.images if "_images/" in img.get("src", "")]
    expected = [alt_of(cell) for _, cell, images in figure_cells(path) if images]
    assert len(outputs) == len(expected), (
        f"{page.name}: {len(outputs)} figures on the page, {len(expected)} in the notebook"
    )
    for img, alt in zip(outputs, expected):
        assert img.get("alt") == alt, f"{page.name}: {img.get('src')} has alt {img.get('alt')!r}"
