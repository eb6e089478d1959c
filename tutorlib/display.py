"""Pictures of the numbers: labelled matrices, attention heatmaps, word-vector plots.

Every chapter shows its tables with :func:`matrix`, which reads like the
spreadsheet of the course's cross-attention video: row and column labels,
rounded values and a colour scale. The colour maps are colour-blind safe
(``cividis`` by default, ``RdBu`` only for signed data): :func:`matrix` and
:func:`attention_heatmap` refuse any map outside
:data:`COLOUR_BLIND_SAFE_CMAPS`, and lines and points use the Okabe-Ito
palette (:data:`OKABE_ITO`).

Introduced in chapter 2 (Embeddings and dot products) and used throughout.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = [
    "LabelledMatrix",
    "matrix",
    "attention_heatmap",
    "plot_word_vectors",
    "OKABE_ITO",
    "COLOUR_BLIND_SAFE_CMAPS",
    "DEFAULT_CMAP",
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
    for name in ("cividis", "viridis", "plasma", "inferno", "magma", "RdBu", "PuOr", "BrBG", "PRGn", "Greys", "Blues")
    for suffix in ("", "_r")
)


def _check_cmap(cmap) -> None:
    """Raise if ``cmap`` (a name or a matplotlib Colormap) is not in :data:`COLOUR_BLIND_SAFE_CMAPS`."""
    name = cmap if isinstance(cmap, str) else getattr(cmap, "name", repr(cmap))
    if name not in COLOUR_BLIND_SAFE_CMAPS:
        raise ValueError(
            f"cmap {name!r} is not one of the course's colour-blind-safe maps ({', '.join(sorted(COLOUR_BLIND_SAFE_CMAPS))}): "
            "a rainbow or red-green map hides differences from readers with colour-vision deficiency. "
            f"Use {DEFAULT_CMAP!r} (the default), or 'RdBu' for signed data"
        )


def _labels(labels, n: int, axis: str) -> list[str]:
    if labels is None:
        return [str(i) for i in range(n)]
    labels = [str(x) for x in labels]
    if len(labels) != n:
        raise ValueError(f"{axis} labels: the matrix has {n} {axis}s but {len(labels)} labels were given ({labels})")
    return labels


class LabelledMatrix:
    """A 2-D array with row and column labels that displays as a coloured table.

    In a notebook it renders as HTML (values rounded to ``decimals``, each
    cell shaded by its value); ``print`` gives the same table as text.
    ``row_sums=True`` adds a Σ column, as the spreadsheet does for softmax rows.
    ``cmap=None`` turns the shading off (for tables that mix units, where one
    colour scale would mislead).
    """

    def __init__(self, values, rows=None, cols=None, title=None, decimals=3, cmap=DEFAULT_CMAP, row_sums=False):
        arr = np.asarray(values, dtype=float)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2:
            raise ValueError(f"matrix() shows 2-D arrays, got shape {arr.shape}; pick one slice, e.g. x[0]")
        if cmap is not None:
            _check_cmap(cmap)
        self.values = arr
        self.rows = _labels(rows, arr.shape[0], "row")
        self.cols = _labels(cols, arr.shape[1], "column")
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
        from matplotlib import colormaps
        from matplotlib.colors import to_hex

        if self.cmap is None:
            return [[("#ffffff", "#000000")] * self.values.shape[1] for _ in self.values]
        cmap = colormaps[self.cmap]
        finite = self.values[np.isfinite(self.values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        span = hi - lo if hi > lo else 1.0
        out = []
        for row in self.values:
            cells = []
            for x in row:
                if not np.isfinite(x):
                    cells.append(("#ffffff", "#000000"))
                    continue
                r, g, b, _ = cmap((x - lo) / span)
                luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
                cells.append((to_hex((r, g, b)), "#000000" if luminance > 0.5 else "#ffffff"))
            out.append(cells)
        return out

    def _repr_html_(self) -> str:
        esc = html.escape
        colours = self._colours()
        parts = ['<table class="tutorlib-matrix" style="border-collapse:collapse;font-family:monospace;text-align:right">']
        if self.title:
            parts.append(f'<caption style="caption-side:top;text-align:left;font-weight:bold">{esc(self.title)}</caption>')
        head = "".join(f'<th style="padding:2px 8px">{esc(c)}</th>' for c in self.cols)
        if self.row_sums:
            head += '<th style="padding:2px 8px">Σ</th>'
        parts.append(f'<thead><tr><th></th>{head}</tr></thead><tbody>')
        for label, row, cols in zip(self.rows, self.values, colours):
            cells = "".join(
                f'<td style="padding:2px 8px;background:{bg};color:{fg}">{self._fmt(x)}</td>'
                for x, (bg, fg) in zip(row, cols)
            )
            if self.row_sums:
                cells += f'<td style="padding:2px 8px;font-weight:bold">{self._fmt(np.sum(row))}</td>'
            parts.append(f'<tr><th style="padding:2px 8px;text-align:left">{esc(label)}</th>{cells}</tr>')
        parts.append("</tbody></table>")
        return "".join(parts)

    def __repr__(self) -> str:
        cols = self.cols + (["Σ"] if self.row_sums else [])
        body = [[self._fmt(x) for x in row] + ([self._fmt(np.sum(row))] if self.row_sums else []) for row in self.values]
        width = max([len(c) for c in cols] + [len(x) for r in body for x in r])
        lead = max(len(r) for r in self.rows)
        lines = [self.title] if self.title else []
        lines.append(" " * lead + "  " + "  ".join(c.rjust(width) for c in cols))
        for label, row in zip(self.rows, body):
            lines.append(label.ljust(lead) + "  " + "  ".join(x.rjust(width) for x in row))
        return "\n".join(lines)


def matrix(values, rows=None, cols=None, title=None, decimals=3, cmap=DEFAULT_CMAP, row_sums=False) -> LabelledMatrix:
    """Show ``values`` as a labelled, colour-scaled table (see :class:`LabelledMatrix`)."""
    return LabelledMatrix(values, rows, cols, title=title, decimals=decimals, cmap=cmap, row_sums=row_sums)


def attention_heatmap(weights, query_labels, key_labels, ax=None, title=None, annotate=True, decimals=2, cmap=DEFAULT_CMAP):
    """Draw attention weights ``(T_q, T_k)`` as a heatmap: queries down, keys across.

    Returns the matplotlib ``Axes``. Values are written in the cells when
    ``annotate`` is true. Masked weights (exactly 0) stay visible as 0.
    """
    import matplotlib.pyplot as plt

    _check_cmap(cmap)
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2:
        raise ValueError(f"attention_heatmap draws one (T_q, T_k) matrix, got shape {w.shape}; pick one head or batch item")
    q_labels = _labels(query_labels, w.shape[0], "row")
    k_labels = _labels(key_labels, w.shape[1], "column")
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
                r, g, b, _ = image.cmap(norm(w[i, j]))
                colour = "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 else "white"
                ax.text(j, i, f"{w[i, j]:.{decimals}f}", ha="center", va="center", color=colour, fontsize=9)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax


# Colour-blind-safe pair (Okabe-Ito blue and vermillion), then more of the same palette.
_GROUP_COLOURS = [OKABE_ITO[c] for c in ("blue", "vermillion", "green", "reddish purple", "orange", "sky blue")]
_GROUP_MARKERS = ["o", "s", "^", "D", "v", "P"]


def plot_word_vectors(groups: Mapping[str, Mapping[str, Sequence[float]]], ax=None, title=None, arrows=True, moved=None):
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
        colour, marker = _GROUP_COLOURS[g % len(_GROUP_COLOURS)], _GROUP_MARKERS[g % len(_GROUP_MARKERS)]
        for n, (word, vec) in enumerate(words.items()):
            vec = np.asarray(vec, dtype=float)
            if vec.shape != (2,):
                raise ValueError(f"plot_word_vectors draws 2-D vectors; {word!r} has shape {vec.shape}")
            points.append(vec)
            if arrows:
                ax.annotate("", xy=vec, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=colour, alpha=0.5))
            ax.scatter(*vec, color=colour, marker=marker, s=60, label=group if n == 0 else None, zorder=3)
            ax.annotate(word, vec, textcoords="offset points", xytext=(6, 6), color=colour, fontsize=11)
    for word, new in (moved or {}).items():
        new = np.asarray(new, dtype=float)
        old = next((np.asarray(words[word], dtype=float) for words in groups.values() if word in words), None)
        if old is None:
            raise ValueError(f"moved names {word!r}, which is in none of the groups")
        points.append(new)
        ax.annotate("", xy=new, xytext=old, arrowprops=dict(arrowstyle="->", color="black", lw=1.5, ls="--"))
        ax.scatter(*new, color="black", marker="*", s=120, zorder=4)
        ax.annotate(f"{word} (after)", new, textcoords="offset points", xytext=(6, -14), fontsize=11)
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
