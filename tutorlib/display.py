"""Pictures of the numbers: labelled matrices, attention heatmaps, word-vector plots.

Every chapter shows its tables with :func:`matrix`, which reads like the
spreadsheet of the course's cross-attention video: row and column labels,
rounded values and a colour scale. The colour maps are colour-blind safe
(``cividis`` by default, ``RdBu`` only for signed data): :func:`matrix` and
:func:`attention_heatmap` refuse any map outside
:data:`COLOUR_BLIND_SAFE_CMAPS`, and lines and points use the Okabe-Ito
palette (:data:`OKABE_ITO`).

Derived in chapter 2 (Embeddings and dot products) and used throughout.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np

from .checks import whole_number

__all__ = [
    "LabelledMatrix",
    "matrix",
    "attention_heatmap",
    "plot_word_vectors",
    "OKABE_ITO",
    "COLOUR_BLIND_SAFE_CMAPS",
    "DEFAULT_CMAP",
    "labels_for",
    "text_colour",
    "relative_luminance",
    "contrast_ratio",
    "shade",
    "weight_bars_html",
    "weights_heatmap_html",
    "mask_grid_html",
    "side_by_side",
    "as_weights",
    "Progress",
]

DEFAULT_CMAP = "cividis"

#: The Okabe-Ito palette (Okabe and Ito, "Color Universal Design", 2002): eight
#: colours that stay distinct for the common colour-vision deficiencies.
OKABE_ITO = {
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "green": "#009E73",
    "reddish purple": "#CC79A7",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "yellow": "#F0E442",
    "black": "#000000",
}

#: Colour maps the course uses: perceptually uniform sequential maps that read
#: the same with red-green colour blindness (cividis was designed for it), and
#: the ColorBrewer diverging maps marked colour-blind safe, for signed data.
#: Rainbow maps (jet, rainbow, hsv, turbo, Spectral) and red-green ones (RdYlGn) are out.
COLOUR_BLIND_SAFE_CMAPS = frozenset(
    name + suffix
    for name in (
        "cividis",
        "viridis",
        "plasma",
        "inferno",
        "magma",
        "RdBu",
        "PuOr",
        "BrBG",
        "PRGn",
        "Greys",
        "Blues",
    )
    for suffix in ("", "_r")
)


def _check_cmap(cmap) -> None:
    """Raise if ``cmap`` (a name or a matplotlib Colormap) is not in
    :data:`COLOUR_BLIND_SAFE_CMAPS`."""
    name = cmap if isinstance(cmap, str) else getattr(cmap, "name", repr(cmap))
    if name not in COLOUR_BLIND_SAFE_CMAPS:
        raise ValueError(
            f"cmap {name!r} is not one of the course's colour-blind-safe maps "
            f"({', '.join(sorted(COLOUR_BLIND_SAFE_CMAPS))}): a rainbow or red-green map hides "
            f"differences from readers with colour-vision deficiency. Use {DEFAULT_CMAP!r} (the "
            "default), or 'RdBu' for signed data"
        )


def labels_for(labels, n: int, what: str) -> list[str]:
    """``n`` text labels for the rows (or columns) of a table: ``labels`` as strings, or 0..n-1 when
    None.

    ``what`` names them in errors ("row", "query", "key", ...). A single string
    is refused (it would be read letter by letter), and so is a count that does
    not match the table.
    """
    if labels is None:
        return [str(i) for i in range(n)]
    if isinstance(labels, str):
        raise ValueError(
            f"{what} labels must be a list of {n} strings, got the single string {labels!r}; "
            f"try {labels!r}.split()"
        )
    labels = [str(x) for x in labels]
    if len(labels) != n:
        plural = {"query": "queries"}.get(what, what + "s")
        raise ValueError(
            f"{what} labels: the table has {n} {plural} but {len(labels)} labels were given "
            f"({labels})"
        )
    return labels


def relative_luminance(rgb) -> float:
    """WCAG 2.1's relative luminance of an sRGB colour ``rgb`` (0-1 floats): 0 for black, 1 for
    white.

    Each channel is linearised first (the sRGB curve); a plain weighted sum of
    the stored channels overrates mid-tones, which is how white text once
    ended up on cells too light for it.
    """

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(float(c)) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b) -> float:
    """WCAG 2.1's contrast ratio of two colours (0-1 floats), from 1 (none) to 21 (black on
    white)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def text_colour(rgb) -> str:
    """Black or white, whichever has the higher WCAG contrast on the background colour ``rgb`` (0-1
    floats).

    The rule every table and heatmap of the course uses. The better of the
    two is always at least 4.58:1, above the 4.5:1 that WCAG 2.1 AA asks of
    text, whatever the background.
    """
    on_black = contrast_ratio(rgb, (0.0, 0.0, 0.0))
    on_white = contrast_ratio(rgb, (1.0, 1.0, 1.0))
    return "#000000" if on_black >= on_white else "#ffffff"


def shown(x: float, decimals: int) -> float:
    """``x`` as a table prints it with ``decimals`` places: what its colour is made from, so that
    a cell's colour changes only where its printed number does (another CPU's last bits of a
    weight would otherwise move a colour across a step of the map, and a stored output with it).
    """
    return float(f"{x:.{decimals}f}")


def shade(x: float, lo: float, hi: float, cmap: str = DEFAULT_CMAP) -> tuple[str, str]:
    """Background and text colour of the value ``x`` on ``cmap`` scaled from ``lo`` to ``hi``."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    span = hi - lo if hi > lo else 1.0
    rgba = colormaps[cmap](min(max((x - lo) / span, 0.0), 1.0))
    return to_hex(rgba[:3]), text_colour(rgba)


class LabelledMatrix:
    """A 2-D array with row and column labels that displays as a coloured table.

    In a notebook it renders as HTML (values rounded to ``decimals``, each
    cell shaded by its value); ``print`` gives the same table as text.
    ``row_sums=True`` adds a Σ column, as the spreadsheet does for softmax rows.
    ``cmap=None`` turns the shading off (for tables that mix units, where one
    colour scale would mislead).
    """

    def __init__(
        self,
        values,
        rows=None,
        cols=None,
        title=None,
        decimals=3,
        cmap=DEFAULT_CMAP,
        row_sums=False,
    ):
        arr = np.asarray(values, dtype=float)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2:
            raise ValueError(
                f"matrix() shows 2-D arrays, got shape {arr.shape}; pick one slice, e.g. x[0]"
            )
        if cmap is not None:
            _check_cmap(cmap)
        self.values = arr
        self.rows = labels_for(rows, arr.shape[0], "row")
        self.cols = labels_for(cols, arr.shape[1], "column")
        self.title = title
        self.decimals = int(decimals)
        self.cmap = cmap
        self.row_sums = bool(row_sums)

    def _fmt(self, x: float) -> str:
        if np.isneginf(x):
            return "-inf"
        if np.isposinf(x):
            return "inf"
        text = f"{x:.{self.decimals}f}"
        # -0.000 reads as a mistake to a learner
        return text[1:] if text.startswith("-") and float(text) == 0 else text

    def _colours(self) -> list[list[tuple[str, str]]]:
        plain = ("#ffffff", "#000000")
        if self.cmap is None:
            return [[plain] * self.values.shape[1] for _ in self.values]
        finite = self.values[np.isfinite(self.values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        d = self.decimals  # each colour from the number as printed (``shown``)
        lo, hi = shown(lo, d), shown(hi, d)
        return [
            [shade(shown(x, d), lo, hi, self.cmap) if np.isfinite(x) else plain for x in row]
            for row in self.values
        ]

    def _repr_html_(self) -> str:
        esc = html.escape
        colours = self._colours()
        parts = [
            '<table class="tutorlib-matrix" style="border-collapse:collapse;font-family:monospace;'
            'text-align:right">'
        ]
        if self.title:
            parts.append(
                '<caption style="caption-side:top;text-align:left;'
                f'font-weight:bold">{esc(self.title)}</caption>'
            )
        head = "".join(f'<th scope="col" style="padding:2px 8px">{esc(c)}</th>' for c in self.cols)
        if self.row_sums:
            head += '<th scope="col" style="padding:2px 8px">Σ</th>'
        parts.append(f"<thead><tr><th></th>{head}</tr></thead><tbody>")
        for label, row, cols in zip(self.rows, self.values, colours):
            cells = "".join(
                f'<td style="padding:2px 8px;background:{bg};color:{fg}">{self._fmt(x)}</td>'
                for x, (bg, fg) in zip(row, cols)
            )
            if self.row_sums:
                cells += (
                    f'<td style="padding:2px 8px;font-weight:bold">{self._fmt(np.sum(row))}</td>'
                )
            parts.append(
                f'<tr><th scope="row" style="padding:2px 8px;text-align:left">{esc(label)}'
                f"</th>{cells}</tr>"
            )
        parts.append("</tbody></table>")
        return "".join(parts)

    def __repr__(self) -> str:
        cols = self.cols + (["Σ"] if self.row_sums else [])
        body = [
            [self._fmt(x) for x in row] + ([self._fmt(np.sum(row))] if self.row_sums else [])
            for row in self.values
        ]
        width = max([len(c) for c in cols] + [len(x) for r in body for x in r])
        lead = max(len(r) for r in self.rows)
        lines = [self.title] if self.title else []
        lines.append(" " * lead + "  " + "  ".join(c.rjust(width) for c in cols))
        for label, row in zip(self.rows, body):
            lines.append(label.ljust(lead) + "  " + "  ".join(x.rjust(width) for x in row))
        return "\n".join(lines)


def matrix(
    values, rows=None, cols=None, title=None, decimals=3, cmap=DEFAULT_CMAP, row_sums=False
) -> LabelledMatrix:
    """Show ``values`` as a labelled, colour-scaled table (see :class:`LabelledMatrix`)."""
    return LabelledMatrix(
        values, rows, cols, title=title, decimals=decimals, cmap=cmap, row_sums=row_sums
    )


def attention_heatmap(
    weights,
    query_labels,
    key_labels,
    ax=None,
    title=None,
    annotate=True,
    decimals=2,
    cmap=DEFAULT_CMAP,
):
    """Draw attention weights ``(T_q, T_k)`` as a heatmap: queries down, keys across.

    Returns the matplotlib ``Axes``. Values are written in the cells when
    ``annotate`` is true. Masked weights (exactly 0) stay visible as 0.
    """
    import matplotlib.pyplot as plt

    _check_cmap(cmap)
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2:
        raise ValueError(
            f"attention_heatmap draws one (T_q, T_k) matrix, got shape {w.shape}; pick one head or "
            "batch item"
        )
    q_labels = labels_for(query_labels, w.shape[0], "row")
    k_labels = labels_for(key_labels, w.shape[1], "column")
    if ax is None:
        _, ax = plt.subplots(figsize=(0.8 * w.shape[1] + 2.2, 0.6 * w.shape[0] + 1.4))
    image = ax.imshow(w, cmap=cmap, vmin=0.0, vmax=max(1e-12, float(np.nanmax(w))))
    ax.set_xticks(range(w.shape[1]), k_labels, rotation=45, ha="right")
    ax.set_yticks(range(w.shape[0]), q_labels)
    ax.set_xlabel("keys (attended to)")
    ax.set_ylabel("queries (attending)")
    if title:
        ax.set_title(title)
    if annotate:
        norm = image.norm
        for i in range(w.shape[0]):
            for j in range(w.shape[1]):
                colour = text_colour(image.cmap(norm(w[i, j])))
                ax.text(
                    j,
                    i,
                    f"{w[i, j]:.{decimals}f}",
                    ha="center",
                    va="center",
                    color=colour,
                    fontsize=10,
                )
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax


# Colour-blind-safe pair (Okabe-Ito blue and vermillion), then more of the same palette.
_GROUP_COLOURS = [
    OKABE_ITO[c] for c in ("blue", "vermillion", "green", "reddish purple", "orange", "sky blue")
]
_GROUP_MARKERS = ["o", "s", "^", "D", "v", "P"]


def plot_word_vectors(
    groups: Mapping[str, Mapping[str, Sequence[float]]],
    ax=None,
    title=None,
    arrows=True,
    moved=None,
):
    """Plot 2-D word vectors, one colour and marker per group (e.g. per language).

    ``groups`` maps a group name to ``{word: (x, y)}``. ``moved`` optionally
    maps a word to its new position; an arrow is drawn from old to new (used
    for what attention does to a query). Returns the matplotlib ``Axes``.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 5))
    points = []
    for g, (group, words) in enumerate(groups.items()):
        colour, marker = (
            _GROUP_COLOURS[g % len(_GROUP_COLOURS)],
            _GROUP_MARKERS[g % len(_GROUP_MARKERS)],
        )
        for n, (word, vec) in enumerate(words.items()):
            vec = np.asarray(vec, dtype=float)
            if vec.shape != (2,):
                raise ValueError(
                    f"plot_word_vectors draws 2-D vectors; {word!r} has shape {vec.shape}"
                )
            points.append(vec)
            if arrows:
                ax.annotate(
                    "",
                    xy=vec,
                    xytext=(0, 0),
                    arrowprops=dict(arrowstyle="->", color=colour, alpha=0.5),
                )
            ax.scatter(
                *vec, color=colour, marker=marker, s=60, label=group if n == 0 else None, zorder=3
            )
            ax.annotate(
                word, vec, textcoords="offset points", xytext=(6, 6), color=colour, fontsize=11
            )
    for word, new in (moved or {}).items():
        new = np.asarray(new, dtype=float)
        old = next(
            (np.asarray(words[word], dtype=float) for words in groups.values() if word in words),
            None,
        )
        if old is None:
            raise ValueError(f"moved names {word!r}, which is in none of the groups")
        points.append(new)
        ax.annotate(
            "", xy=new, xytext=old, arrowprops=dict(arrowstyle="->", color="black", lw=1.5, ls="--")
        )
        ax.scatter(*new, color="black", marker="*", s=120, zorder=4)
        ax.annotate(
            f"{word} (after)", new, textcoords="offset points", xytext=(6, -14), fontsize=11
        )
    pts = np.array(points + [np.zeros(2)])
    pad = 0.3
    ax.set_xlim(pts[:, 0].min() - pad, pts[:, 0].max() + pad + 0.4)
    ax.set_ylim(pts[:, 1].min() - pad, pts[:, 1].max() + pad)
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    if title:
        ax.set_title(title)
    return ax


# --- HTML for the explorers: bars, heatmap tables, mask grids -------------------------------
# Used by tutorlib.explorers (in a live kernel) and by their static twins in the book
# (tutorlib.explorers.static). Styles are inline so that the same HTML reads the same in Jupyter,
# Colab and the book. Colour is never the only cue: every weight is written out, the chosen
# row is marked with ▶ as well as outlined, and hidden cells carry ✕ on a hatched background.

BAR_COLOUR = OKABE_ITO["blue"]
HIGHLIGHT_COLOUR = OKABE_ITO["vermillion"]  # outlines the selected row
ALLOWED_COLOUR = OKABE_ITO["sky blue"]  # mask cells that may attend
_HIDDEN_STYLE = (
    "background:repeating-linear-gradient(45deg,#ffffff 0 3px,#d9d9d9 3px 6px);color:#000000"
)
_CELL = "padding:2px 8px;border:1px solid #ffffff"
# Text for screen readers only (a mark like ✕ is read as "multiplication x"), inline like every
# style here.
_SR_ONLY = (
    "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap"
)


def _mark(symbol: str, spoken: str) -> str:
    """A mark drawn for the eye and a word said to a screen reader."""
    return f'<span aria-hidden="true">{symbol}</span><span style="{_SR_ONLY}">{spoken}</span>'


_BAR_PX = 300  # a weight of 1 is this wide


def as_weights(weights) -> np.ndarray:
    """A NumPy copy of attention weights from NumPy or PyTorch (detached, on the CPU)."""
    if hasattr(weights, "detach"):
        weights = weights.detach().cpu().numpy()
    arr = np.asarray(weights)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"weights must be numbers, got dtype {arr.dtype}")
    return arr.astype(float)


def weight_bars_html(labels, weights, title: str = "") -> str:
    """HTML of one horizontal bar per label, as wide as its weight (0 to 1), the weight written
    beside it."""
    labels = [str(x) for x in labels]
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (len(labels),):
        raise ValueError(
            f"need one weight per label: {len(labels)} labels but weights of shape {weights.shape}"
        )
    rows = []
    for label, w in zip(labels, weights):
        rows.append(
            '<div style="display:flex;align-items:center;gap:6px;margin:2px 0">'
            f'<span style="width:7em;text-align:right">{html.escape(label)}</span>'
            f'<span style="display:inline-block;height:1em;width:{_BAR_PX * w:.1f}px;'
            "max-width:50vw;"
            f'background:{BAR_COLOUR}"></span>'
            f'<span style="font-family:monospace">{w:.3f}</span></div>'
        )
    head = f"<div><b>{html.escape(title)}</b></div>" if title else ""
    # what a screen reader's status line says of this view (tutorlib/explorers/static.py): the
    # largest weight
    top = int(np.argmax(weights)) if len(labels) else None
    summary = (
        f"{title + ': ' if title else ''}largest weight {weights[top]:.3f} on {labels[top]}"
        if top is not None
        else title
    )
    return (
        '<div class="tutorlib-bars" '
        f'data-summary="{html.escape(summary)}">{head}{"".join(rows)}</div>'
    )


def _table_start(css_class: str, align: str, title: str, cols) -> list[str]:
    """The opening of a query-by-key HTML table: caption (if any) and the header row of key
    labels."""
    esc = html.escape
    parts = [
        f'<table class="{css_class}" style="border-collapse:collapse;font-family:monospace;'
        f'text-align:{align}">'
    ]
    if title:
        parts.append(
            f'<caption style="caption-side:top;text-align:left;font-weight:bold">{esc(title)}'
            "</caption>"
        )
    head = "".join(f'<th scope="col" style="padding:2px 8px">{esc(c)}</th>' for c in cols)
    parts.append(
        '<thead><tr><th scope="col" style="padding:2px 8px;text-align:left">query ↓ key →</th>'
        f"{head}</tr></thead><tbody>"
    )
    return parts


def weights_heatmap_html(
    weights,
    query_labels,
    key_labels=None,
    title: str = "",
    highlight_row=None,
    mask=None,
    decimals: int = 2,
) -> str:
    """An attention-weight table ``(T_q, T_k)`` as HTML: queries down, keys across, cividis from 0
    to the largest weight.

    ``highlight_row`` (an index) is outlined in vermillion and marked ▶.
    ``mask`` (boolean, True = may attend, the course's convention) marks the
    cells it hides with ✕ on a hatched background instead of a number.
    """
    w = as_weights(weights)
    if w.ndim != 2:
        raise ValueError(
            f"weights_heatmap_html draws one (T_q, T_k) table, got shape {w.shape}; pick one head "
            "or batch item"
        )
    rows = labels_for(query_labels, w.shape[0], "query")
    cols = labels_for(key_labels if key_labels is not None else query_labels, w.shape[1], "key")
    if mask is None:
        visible = np.ones(w.shape, dtype=bool)
    else:
        visible = np.asarray(mask)
        if visible.dtype != bool or visible.shape != w.shape:
            raise ValueError(
                f"mask must be boolean of the weights' shape {w.shape} (True = may attend), got "
                f"dtype {visible.dtype} and shape {visible.shape}"
            )
    if highlight_row is not None:
        whole_number("highlight_row", highlight_row, 0, w.shape[0] - 1, hint="a row index")
    if np.isnan(w[visible]).any():
        raise ValueError(
            "weights contain NaN: a query row with every key masked has no weights to show"
        )
    top = float(w[visible].max()) if visible.any() else 1.0
    esc = html.escape
    parts = _table_start("tutorlib-heatmap", "right", title, cols)
    for i, label in enumerate(rows):
        chosen = i == highlight_row
        style = (
            f' style="outline:3px solid {HIGHLIGHT_COLOUR};outline-offset:-2px"' if chosen else ""
        )
        mark = "▶ " if chosen else ""
        cells = []
        for j in range(w.shape[1]):
            if not visible[i, j]:
                cells.append(
                    f'<td style="{_CELL};{_HIDDEN_STYLE}" title="hidden by the mask: weight '
                    'exactly 0">'
                    f"{_mark('✕', 'hidden')}</td>"
                )
            else:
                bg, fg = shade(shown(w[i, j], decimals), 0.0, shown(top, decimals))
                cells.append(
                    f'<td style="{_CELL};background:{bg};color:{fg}">{w[i, j]:.{decimals}f}</td>'
                )
        parts.append(
            f'<tr class="{"selected" if chosen else ""}"{style}><th scope="row" style="padding:2px '
            '8px;text-align:left">'
            f"{mark}{esc(label)}</th>{''.join(cells)}</tr>"
        )
    parts.append("</tbody></table>")
    return "".join(parts)


def mask_grid_html(mask, query_labels, key_labels=None, title: str = "") -> str:
    """A boolean mask ``(T_q, T_k)`` as an HTML grid: ✓ where a query may attend, ✕ (hatched) where
    the mask hides the key."""
    m = np.asarray(mask)
    if m.dtype != bool or m.ndim != 2:
        raise ValueError(
            f"mask must be a 2-D boolean array (True = may attend), got dtype {m.dtype} and shape "
            f"{m.shape}"
        )
    rows = labels_for(query_labels, m.shape[0], "query")
    cols = labels_for(key_labels if key_labels is not None else query_labels, m.shape[1], "key")
    esc = html.escape
    parts = _table_start("tutorlib-mask", "center", title, cols)
    for i, label in enumerate(rows):
        cells = "".join(
            f'<td style="{_CELL};background:{ALLOWED_COLOUR};color:#000000" title="may attend">'
            f"{_mark('✓', 'may attend')}</td>"
            if m[i, j]
            else f'<td style="{_CELL};{_HIDDEN_STYLE}" title="hidden">{_mark("✕", "hidden")}</td>'
            for j in range(m.shape[1])
        )
        parts.append(
            f'<tr><th scope="row" style="padding:2px 8px;text-align:left">{esc(label)}</th>{cells}'
            "</tr>"
        )
    parts.append("</tbody></table>")
    return "".join(parts)


def side_by_side(*blocks: str) -> str:
    """HTML blocks next to each other, wrapping onto new lines on a narrow screen."""
    cells = "".join(
        f'<div style="margin:0 2em 1em 0;max-width:100%;overflow-x:auto">{b}</div>' for b in blocks
    )
    return f'<div style="display:flex;flex-wrap:wrap;align-items:flex-start">{cells}</div>'


class Progress:
    """A progress line for a loop of ``total`` steps, redrawn after each ``1/redraws`` of them.

    In a notebook the line (tqdm's format: steps, elapsed, rate, and ``postfix``) is one display
    redrawn in place, so the saved notebook and the book keep its last state; in a terminal it is
    a tqdm bar. It redraws per share of the steps, never per tick of the clock: a bar redrawn ten
    times a second sends a slow machine's notebook more messages than the kernel's output channel
    keeps, and the last ones (the cell's end among them) are lost. So a loop sends at most
    ``redraws + 2`` messages whatever the machine's speed (the test: ``conftest.py``).

    ``update(**postfix)`` counts one step and records the values shown after the count
    (``loss=1.234``); ``close()`` draws the last state. Used by the training loop of chapter 9.
    """

    def __init__(
        self,
        total: int,
        *,
        initial: int = 0,
        desc: str = "",
        unit: str = "step",
        redraws: int = 25,
        disable: bool = False,
    ):
        total = whole_number("total", total, 1)
        initial = whole_number("initial", initial, 0, total)
        redraws = whole_number("redraws", redraws, 1)
        self.total, self.n, self.desc, self.unit = total, initial, desc, unit
        self.every = -(-total // redraws)  # steps between redraws, rounded up
        self.next_draw = initial + self.every
        self.postfix: dict = {}
        self.redrawn = 0  # how many times the line was drawn (tests count them)
        self.disabled = disable
        self._handle = self._bar = None
        if disable:
            return
        import time

        self._clock, self._start = time.perf_counter, time.perf_counter()
        if _in_notebook():
            from IPython.display import Pretty, display

            self._pretty = Pretty
            self._handle = display(Pretty(self.line()), display_id=True)
        else:
            from tqdm.std import tqdm

            # miniters: tqdm redraws only after that many steps; maxinterval=inf stops its
            # monitor thread from forcing a redraw per second after a slow stretch
            self._bar = tqdm(
                total=total,
                initial=initial,
                desc=desc or None,
                unit=unit,
                miniters=self.every,
                mininterval=0,
                maxinterval=float("inf"),
                dynamic_ncols=True,
            )
        self.redrawn = 1

    def line(self) -> str:
        """The progress line as tqdm writes it (elapsed time and rate from this machine's clock)."""
        from tqdm.std import tqdm

        elapsed = self._clock() - self._start if not self.disabled else 0.0
        postfix = ", ".join(f"{k}={v}" for k, v in self.postfix.items()) or None
        return tqdm.format_meter(
            self.n,
            self.total,
            elapsed,
            ncols=100,
            prefix=self.desc,
            unit=self.unit,
            postfix=postfix,
        )

    def update(self, **postfix) -> None:
        """One step done; ``postfix`` replaces the values shown after the count."""
        self.n += 1
        self.postfix = postfix
        if self.disabled:
            return
        if self._bar is not None:
            self._bar.set_postfix(postfix, refresh=False)
            self._bar.update()
        if self.n >= self.next_draw:
            self.next_draw = self.n + self.every
            self._draw()

    def _draw(self) -> None:
        self.redrawn += 1
        if self._handle is not None:
            self._handle.update(self._pretty(self.line()))
        # tqdm redraws itself in update(), every `miniters` steps: counted here all the same

    def close(self) -> None:
        """Draw the last state (if the last redraw did not already) and stop."""
        if self.disabled:
            return
        if self.next_draw - self.every != self.n:
            self._draw()
        if self._bar is not None:
            self._bar.close()
        self.disabled = True


def _in_notebook() -> bool:
    """True in a Jupyter kernel (where a display can be redrawn in place), not in a terminal."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
