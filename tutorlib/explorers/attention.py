"""Chapters 4 to 6's explorers: one layer's attention weights, by query, by head, under a mask.

=====================  ==========================================  =========
explorer               its pure function                           chapter
=====================  ==========================================  =========
attention_explorer     attention_view(q, k, labels, query=...)     4
head_explorer          head_view(weights, head, labels, query=...) 5
mask_editor            mask_view(n_words, n_pad, causal)           6
=====================  ==========================================  =========

Each view returns the numbers it shows and the HTML that shows them: a query's
weights as bars beside the whole table as a heatmap with its row outlined
(marked ▶ as well), or the mask as a ✓/✕ grid beside the weights it leaves, the
hidden cells marked ✕ as well as hatched.

Derived in chapter 4 (Scaled dot-product attention); chapters 5 and 6 add the others.
"""

from __future__ import annotations

import numpy as np

from ..attention import causal_mask, padding_mask, scaled_dot_product_attention
from ..checks import whole_number
from ..display import (
    as_weights,
    labels_for,
    mask_grid_html,
    side_by_side,
    weight_bars_html,
    weights_heatmap_html,
)
from ..examples import YOUR_CAT
from .controls import Spec, explorer
from .widgets import explorer_box, live_controls

__all__ = [
    "attention_view",
    "attention_explorer",
    "head_view",
    "head_explorer",
    "mask_view",
    "mask_editor",
    "MAX_PADDING",
]


# --- the query a view outlines: by its position, or by its label -----------------------------


def _row_index(query, labels: list[str], what: str = "query") -> int:
    """Resolve ``query`` (a position or a unique label) to a row index."""
    if isinstance(query, str):
        hits = [i for i, label in enumerate(labels) if label == query]
        if not hits:
            raise ValueError(f"{what} {query!r} is not one of the {what} labels {labels}")
        if len(hits) > 1:
            raise ValueError(
                f"{what} {query!r} occurs {len(hits)} times in {labels} (positions {hits}); pass "
                "its position instead"
            )
        return hits[0]
    return whole_number(what, query, 0, len(labels) - 1)


def _option_labels(labels: list[str]) -> list[tuple[str, int]]:
    """Dropdown options: the labels themselves, numbered when some repeat (YOUR CAT ... CAT)."""
    unique = len(set(labels)) == len(labels)
    return [(label if unique else f"{i} {label}", i) for i, label in enumerate(labels)]


# --- chapter 4: pick a query ----------------------------------------------------------


def attention_view(q, k, query_labels, key_labels=None, query=0) -> tuple[np.ndarray, str]:
    """The attention explorer's logic: the weights ``softmax(q kᵀ / √d_k)`` of one chosen query.

    ``q`` is ``(T_q, d_k)``, ``k`` is ``(T_k, d_k)``; ``query`` is a row
    index or a (unique) query label. Returns ``(weights of that query (T_k,),
    html)``: its weights as bars, and the whole ``(T_q, T_k)`` table as a
    heatmap with its row outlined. ``key_labels`` defaults to
    ``query_labels`` (self-attention).

    Derived in chapter 4 (Scaled dot-product attention).
    """
    q, k = np.asarray(q), np.asarray(k)
    for name, arr, letters in (("q", q, "(T_q, d_k)"), ("k", k, "(T_k, d_k)")):
        if arr.ndim != 2:
            raise ValueError(
                f"{name} must be one sentence's {letters} matrix, got shape {arr.shape}"
            )
    _, weights = scaled_dot_product_attention(
        q, k, k
    )  # (T_q, T_k); the values do not change the weights
    rows = labels_for(query_labels, weights.shape[0], "query")
    cols = labels_for(
        key_labels if key_labels is not None else query_labels, weights.shape[1], "key"
    )
    i = _row_index(query, rows)
    bars = weight_bars_html(
        cols, weights[i], title=f'weights of the query "{rows[i]}" (they sum to 1)'
    )
    table = weights_heatmap_html(
        weights, rows, cols, title="all queries (rows) against all keys (columns)", highlight_row=i
    )
    return weights[i], side_by_side(bars, table)


@explorer("chapters/04_scaled_dot_product_attention", query="menu")
def attention_explorer(q, k, query_labels, key_labels=None, query=0):
    """A dropdown of the queries; shows :func:`attention_view` for the chosen one."""
    import ipywidgets as widgets

    labels = [str(x) for x in query_labels]
    first, page = attention_view(q, k, labels, key_labels, query)
    start = _row_index(query, labels)
    specs = [Spec("query", "menu", "query", tuple(_option_labels(labels)), start)]
    live = live_controls(specs)
    dropdown, view = live["query"], widgets.HTML(value=page)

    def redraw(change):
        view.value = attention_view(q, k, labels, key_labels, change["new"])[1]

    dropdown.observe(redraw, names="value")
    box = explorer_box(
        [dropdown, view],
        specs,
        live,
        lambda query: attention_view(q, k, labels, key_labels, query)[1],
        "attention",
    )
    box.query, box.view = dropdown, view
    return box


# --- chapter 5: pick a head -----------------------------------------------------------


def _heads(weights, batch: int) -> np.ndarray:
    """``(H, T_q, T_k)`` from weights of shape ``(H, T_q, T_k)`` or ``(B, H, T_q, T_k)``."""
    w = as_weights(weights)
    if w.ndim == 4:
        batch = whole_number("batch", batch, 0, w.shape[0] - 1)
        w = w[batch]
    elif w.ndim != 3:
        raise ValueError(
            "weights must be a multi-head layer's need_weights output, (B, H, T_q, T_k) or (H, "
            f"T_q, T_k), got shape {w.shape}; for one head's (T_q, T_k) table use attention_view "
            "or weights_heatmap_html"
        )
    return w


def head_view(
    weights, head: int, query_labels, key_labels=None, query=0, batch: int = 0
) -> tuple[np.ndarray, str]:
    """The head explorer's logic: one head's ``(T_q, T_k)`` weights, with one query's row outlined.

    ``weights`` is the second output of ``MultiHeadAttention(...,
    need_weights=True)``, shape ``(B, H, T_q, T_k)`` (``batch`` picks the
    sentence) or ``(H, T_q, T_k)``; a PyTorch tensor is fine. ``head`` is a
    Python index, 0 to H-1 (the HTML calls it "head 1" to "head H").
    Returns ``(that head's weights (T_q, T_k), html)``.

    Derived in chapter 5 (Multi-head attention).
    """
    w = _heads(weights, batch)
    H = w.shape[0]
    head = whole_number(f"head (an index: the layer has {H} heads, 0 to {H - 1})", head, 0, H - 1)
    rows = labels_for(query_labels, w.shape[1], "query")
    cols = labels_for(key_labels if key_labels is not None else query_labels, w.shape[2], "key")
    i = _row_index(query, rows)
    bars = weight_bars_html(
        cols, w[head, i], title=f'head {head + 1} of {H}: weights of the query "{rows[i]}"'
    )
    table = weights_heatmap_html(
        w[head], rows, cols, title=f"head {head + 1} of {H}: every query", highlight_row=i
    )
    return w[head], side_by_side(bars, table)


@explorer("chapters/05_multi_head_attention", head="menu", query="menu")
def head_explorer(weights, query_labels, key_labels=None, head: int = 0, query=0, batch: int = 0):
    """Dropdowns for the head and the query; shows :func:`head_view`."""
    import ipywidgets as widgets

    labels = [str(x) for x in query_labels]
    H = _heads(weights, batch).shape[0]
    page = head_view(weights, head, labels, key_labels, query, batch)[1]
    start = _row_index(query, labels)
    specs = [
        Spec("head", "menu", "head", tuple((f"head {h + 1}", h) for h in range(H)), head),
        Spec("query", "menu", "query", tuple(_option_labels(labels)), start),
    ]
    live = live_controls(specs)
    heads, queries, view = live["head"], live["query"], widgets.HTML(value=page)

    def redraw(_change):
        view.value = head_view(weights, heads.value, labels, key_labels, queries.value, batch)[1]

    heads.observe(redraw, names="value")
    queries.observe(redraw, names="value")
    box = explorer_box(
        [widgets.HBox([heads, queries]), view],
        specs,
        live,
        lambda head, query: head_view(weights, head, labels, key_labels, query, batch)[1],
        "head",
    )
    box.head, box.query, box.view = heads, queries, view
    return box


# --- chapter 6: the mask editor -----------------------------------------------------------

MAX_PADDING = 4


def mask_view(
    n_words: int, n_pad: int, causal: bool, words=None, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, str]:
    """The mask editor's logic: self-attention over ``n_words`` real words and ``n_pad`` padding
    tokens.

    The sentence is the first ``n_words`` of ``words`` (default "YOUR CAT IS A
    LOVELY CAT") followed by ``n_pad`` ``<pad>`` tokens: ``T = n_words +
    n_pad`` positions. Each word has a seeded random 4-wide vector and
    ``<pad>`` the zero vector, as in chapter 6. The mask (True = may attend)
    hides the padding keys, and with ``causal`` also every key after its
    query: ``padding_mask & causal_mask``. Returns ``(mask (T, T),
    weights (T, T), html)``; the HTML shows the mask as a ✓/✕ grid and the
    weights with the hidden cells marked ✕ (their weight is exactly 0).

    Derived in chapter 6 (Masking).
    """
    if isinstance(words, str):
        raise ValueError(
            f"words must be a list of words, got the single string {words!r}; try {words!r}.split()"
        )
    words = list(YOUR_CAT["tokens"]) if words is None else [str(w) for w in words]
    if not words:
        raise ValueError("words is empty: the sentence needs at least one word")
    most = len(words)
    n_words = whole_number(f"n_words (real words, here at most {most})", n_words, 1, most)
    n_pad = whole_number("n_pad (padding tokens)", n_pad, 0)
    if not isinstance(causal, (bool, np.bool_)):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    T = n_words + n_pad
    labels = words[:n_words] + ["<pad>"] * n_pad
    rng = np.random.default_rng(whole_number("seed", seed, 0))
    table = rng.standard_normal(
        (len(words), 4)
    )  # one 4-wide vector per word of the full sentence, D = 4
    x = np.vstack([table[:n_words], np.zeros((n_pad, 4))])  # (T, D); <pad> is the zero vector
    mask = np.broadcast_to(
        padding_mask([n_words], T), (T, T)
    )  # (1, T) -> (T, T): the same keys for every query
    if causal:
        mask = mask & causal_mask(T)  # (T, T) & (T, T)
    mask = np.array(mask)
    _, weights = scaled_dot_product_attention(x, x, x, mask)  # (T, T)
    hidden = int((~mask).sum())
    what = "padding keys" + (" and every key after its query" if causal else "")
    summary = (
        f'<div class="tutorlib-stats" data-summary="the mask hides {hidden} of {T * T} cells" '
        'style="font-family:monospace;margin-bottom:4px">'
        f"T = {T} positions ({n_words} words + {n_pad} &lt;pad&gt;); the mask hides {what}: "
        f"{hidden} of {T * T} cells, each with weight exactly 0; every row still sums to 1</div>"
    )
    grid = mask_grid_html(mask, labels, title="mask: ✓ may attend, ✕ hidden")
    heat = weights_heatmap_html(
        weights, labels, title="attention weights (✕ = hidden, weight 0)", mask=mask
    )
    return mask, weights, summary + side_by_side(grid, heat)


@explorer("chapters/06_masking", n_words="slider", n_pad="slider", causal="checkbox")
def mask_editor(n_words: int = 3, n_pad: int = 2, causal: bool = True, words=None, seed: int = 0):
    """Sliders for the number of words and of padding tokens and a causal on/off switch; shows
    :func:`mask_view`."""
    import ipywidgets as widgets

    page = mask_view(n_words, n_pad, causal, words, seed)[2]
    count = len(YOUR_CAT["tokens"]) if words is None else len(list(words))
    counts, pads = range(1, count + 1), range(max(MAX_PADDING, n_pad) + 1)
    specs = [
        Spec("n_words", "slider", "real words", tuple((str(n), n) for n in counts), n_words),
        Spec("n_pad", "slider", "padding", tuple((str(n), n) for n in pads), n_pad),
        Spec("causal", "checkbox", "causal mask", (("off", False), ("on", True)), bool(causal)),
    ]
    live = live_controls(specs)
    n_words_slider, n_pad_slider, causal_box = live["n_words"], live["n_pad"], live["causal"]
    view = widgets.HTML(value=page)

    def redraw(_change):
        view.value = mask_view(
            n_words_slider.value, n_pad_slider.value, causal_box.value, words, seed
        )[2]

    for control in (n_words_slider, n_pad_slider, causal_box):
        control.observe(redraw, names="value")
    row = widgets.HBox([n_words_slider, n_pad_slider, causal_box])
    box = explorer_box(
        [row, view],
        specs,
        live,
        lambda n_words, n_pad, causal: mask_view(n_words, n_pad, causal, words, seed)[2],
        "mask",
    )
    box.n_words, box.n_pad, box.causal, box.view = n_words_slider, n_pad_slider, causal_box, view
    return box
