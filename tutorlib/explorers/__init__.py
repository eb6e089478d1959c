"""Interactive explorers for Jupyter, Colab and Binder.

Each explorer is two parts: a pure function, its *view*, that computes what is
shown (tested without a browser), and a thin ipywidgets wrapper that calls it
whenever a control moves. The wrapper also carries the explorer's static twin
(:mod:`tutorlib.explorers.static`): the same view worked out for every state of
the controls, which the published book shows and switches without a kernel.
Both sets of controls are built from one declaration, a list of
:class:`~tutorlib.explorers.controls.Spec`, and :data:`REGISTRY` names each
explorer's chapter and controls (:mod:`tutorlib.explorers.controls`).

=====================  ==========================================  =========
explorer               its pure function                           chapter
=====================  ==========================================  =========
temperature_explorer   temperature_view(scores, labels, τ)         3
saturation_explorer    saturation_view(d_k, scaled)                4
attention_explorer     attention_view(q, k, labels, query=...)     4
head_explorer          head_view(weights, head, labels, query=...) 5
mask_editor            mask_view(n_words, n_pad, causal)           6
translator_explorer    translator_view(model, sentence, ...)       10
gpt_attention_explorer gpt_attention_view(model, sentence, ...)    13
kv_cache_explorer      kv_cache_calculator_view(model, ...)        15
=====================  ==========================================  =========

Every view returns the numbers it shows and the HTML that shows them. The
HTML uses the course's colour-blind-safe colours (Okabe-Ito blue for bars,
cividis for heatmaps) and never relies on colour alone: every weight is
written out, the selected row is marked with ▶ as well as outlined, and hidden
cells carry ✕ as well as a hatched background.

``kv_cache_view(layers, heads, kv_heads, d_head, context, ...)`` computes the KV cache of any
shape; the calculator of chapter 15 shows it for the published shapes.

Chapter 13's explorer lives in :mod:`tutorlib.explorers.decoder_only`; its names are
offered here with the others.

Introduced in chapter 3 (Softmax); chapters 4 to 6, 10, 13 and 15 add the others.
"""

from __future__ import annotations

import functools
import html

import numpy as np

from ..attention import causal_mask, padding_mask, scaled_dot_product_attention, softmax
from ..checks import whole_number
from ..display import (
    BAR_COLOUR,
    as_weights,
    labels_for,
    mask_grid_html,
    side_by_side,
    weight_bars_html,
    weights_heatmap_html,
)
from ..examples import YOUR_CAT
from ..experiments import softmax_jacobian
from .controls import REGISTRY, Spec, explorer
from .widgets import (
    explorer_box,
    following_view,
    head_index,
    head_spec,
    live_controls,
    sentence_spec,
)

__all__ = [
    "temperature_view",
    "temperature_explorer",
    "saturation_view",
    "saturation_explorer",
    "attention_view",
    "attention_explorer",
    "head_view",
    "head_explorer",
    "mask_view",
    "mask_editor",
    "translator_view",
    "translator_explorer",
    "gpt_attention_view",
    "gpt_attention_explorer",
    "kv_cache_view",
    "kv_cache_calculator_view",
    "kv_cache_explorer",
    "format_bytes",
    "D_K_STEPS",
    "REGISTRY",
    "Spec",
]

#: The widths the d_k slider steps through: roughly doubling, 1 to 512 (the paper's d_model).
D_K_STEPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
MAX_D_K = D_K_STEPS[-1]


# --- checks ------------------------------------------------------------------------


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


# --- chapter 3: temperature ------------------------------------------------------------


def temperature_view(scores, labels, temperature: float) -> tuple[np.ndarray, str]:
    """The temperature explorer's logic: softmax weights at ``temperature`` and their bars as
    HTML."""
    weights = softmax(np.asarray(scores, dtype=float), temperature=temperature)
    return weights, weight_bars_html(labels, weights, title=f"softmax(scores / {temperature:g})")


def temperature_steps(minimum: float = 0.1, maximum: float = 5.0) -> np.ndarray:
    """The temperatures the slider stops at: ``minimum`` to ``maximum`` in steps of 0.1, rounded."""
    if not 0 < minimum < maximum:
        raise ValueError(
            f"the slider needs 0 < minimum < maximum, got minimum={minimum!r}, maximum={maximum!r}"
        )
    return np.round(np.arange(minimum, maximum + 1e-9, 0.1), 10)


@explorer("chapters/03_softmax", temperature="slider")
def temperature_explorer(
    scores, labels, temperature: float = 1.0, minimum: float = 0.1, maximum: float = 5.0
):
    """A slider for the softmax temperature over ``scores``, with the weights drawn as bars."""
    import ipywidgets as widgets

    page = temperature_view(scores, labels, temperature)[1]
    steps = temperature_steps(minimum, maximum)
    if not np.isclose(steps, temperature).any():
        raise ValueError(
            f"the slider moves in steps of 0.1 from {minimum:g} to {maximum:g}; "
            f"temperature={temperature!r} is not one of them"
        )
    start = float(steps[np.isclose(steps, temperature)][0])
    options = tuple((f"{t:g}", float(t)) for t in steps)
    specs = [Spec("temperature", "slider", "temperature", options, start)]
    live = live_controls(specs)
    slider, bars = live["temperature"], widgets.HTML(value=page)

    def redraw(change):
        bars.value = temperature_view(scores, labels, change["new"])[1]

    slider.observe(redraw, names="value")
    box = explorer_box(
        [slider, bars],
        specs,
        live,
        lambda temperature: temperature_view(scores, labels, temperature)[1],
        "temperature",
    )
    box.slider, box.bars = slider, bars  # handles for tests and for curious learners
    return box


# --- chapter 4: the sqrt(d_k) saturation slider ------------------------------------------


def _saturation_vectors(n_keys: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One query and ``n_keys`` keys, MAX_D_K wide, entries from N(0, 1); a width d_k uses the first
    d_k features."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(MAX_D_K)  # (MAX_D_K,)
    k = rng.standard_normal((n_keys, MAX_D_K))  # (n_keys, MAX_D_K)
    return q, k


def saturation_view(
    d_k: int, scaled: bool = True, n_keys: int = 8, seed: int = 0
) -> tuple[np.ndarray, str]:
    r"""The saturation slider's logic: one seeded query against ``n_keys`` seeded keys of width
    ``d_k``.

    Scores are :math:`q \cdot k_j`, divided by :math:`\sqrt{d_k}` when
    ``scaled``; the weights are their softmax. The query and keys are the
    first ``d_k`` features of fixed 512-wide random vectors, so moving the
    slider widens the *same* vectors. Returns ``(weights (n_keys,), html)``;
    the HTML shows the weights as bars with the scores' spread, the largest
    weight and the size (Frobenius norm) of the softmax Jacobian
    (:func:`tutorlib.experiments.softmax_jacobian`): how far the weights can
    still move when the scores do. It is one factor of the gradient that
    training works with, not the gradient itself (chapter 4 adds the keys').

    Derived in chapter 4 (Scaled dot-product attention).
    """
    d_k = whole_number("d_k", d_k, 1, MAX_D_K)
    n_keys = whole_number("n_keys", n_keys, 2)
    if not isinstance(scaled, (bool, np.bool_)):
        raise ValueError(f"scaled must be True (divide by sqrt(d_k)) or False, got {scaled!r}")
    q, k = _saturation_vectors(n_keys, whole_number("seed", seed, 0))
    scores = k[:, :d_k] @ q[:d_k]  # (n_keys, d_k) @ (d_k,) -> (n_keys,)
    if scaled:
        scores = scores / np.sqrt(d_k)
    weights = softmax(scores)
    jacobian = float(np.linalg.norm(softmax_jacobian(weights)))
    formula = f"softmax(q·k / √{d_k})" if scaled else "softmax(q·k), not scaled"
    bars = weight_bars_html(
        [f"key {j + 1}" for j in range(n_keys)], weights, title=f"{formula}, d_k = {d_k}"
    )
    stats = (
        '<div class="tutorlib-stats" style="font-family:monospace;margin-top:4px">'
        f"spread of the scores (std): {scores.std():.2f}<br/>"
        f"largest weight: {weights.max():.3f} (uniform would be {1 / n_keys:.3f})<br/>"
        f"softmax Jacobian size ‖diag(p) − p pᵀ‖: {jacobian:.3f}</div>"
    )
    return weights, bars + stats


@explorer("chapters/04_scaled_dot_product_attention", d_k="slider", scaled="buttons")
def saturation_explorer(d_k: int = 64, scaled: bool = True, n_keys: int = 8, seed: int = 0):
    """A slider over d_k (1 to 512) and a scaled/unscaled toggle, showing
    :func:`saturation_view`."""
    import ipywidgets as widgets

    d_k = whole_number("d_k", d_k, 1, MAX_D_K)
    if d_k not in D_K_STEPS:
        raise ValueError(f"the slider starts on one of its steps {D_K_STEPS}, got d_k={d_k}")
    specs = [
        Spec("d_k", "slider", "d_k", tuple((str(d), d) for d in D_K_STEPS), d_k),
        Spec(
            "scaled",
            "buttons",
            "scores",
            (("scaled: ÷ √d_k", True), ("unscaled", False)),
            bool(scaled),
        ),
    ]
    live = live_controls(specs)
    slider, toggle = live["d_k"], live["scaled"]
    view = widgets.HTML(value=saturation_view(d_k, scaled, n_keys, seed)[1])

    def redraw(_change):
        view.value = saturation_view(slider.value, toggle.value, n_keys, seed)[1]

    slider.observe(redraw, names="value")
    toggle.observe(redraw, names="value")
    box = explorer_box(
        [widgets.HBox([slider, toggle]), view],
        specs,
        live,
        lambda d_k, scaled: saturation_view(d_k, scaled, n_keys, seed)[1],
        "saturation",
    )
    box.d_k, box.scaled, box.view = slider, toggle, view
    return box


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


# --- chapter 10: the translator explorer ----------------------------------------------------


def _decode_with_attention(
    model, sentence: str, beam_size: int, src_vocab, tgt_vocab, length_penalty: float
):
    """Translate ``sentence`` and return what the view shows of it, for every layer and head at
    once.

    Returns ``(words, translation, rows, unknown, ended, cross)``: the English
    tokens, the Portuguese text, the row labels (the written tokens and the
    ``<eos>``), the unknown English words, whether ``<eos>`` was written, and
    the cross-attention of every decoder layer, ``(L, H, T, S)``.
    """
    import torch

    from ..nn import padding_attention_mask
    from ..translation.data import UNK_ID, tokenize
    from ..translation.decoding import (
        EOS_ID,
        PAD_ID,
        cross_attention_maps,
        output_budget,
        translate_sentences,
    )

    if not isinstance(sentence, str):
        raise ValueError(
            f"sentence must be a string of English words, got {type(sentence).__name__}: "
            f"{sentence!r}"
        )
    words = tokenize(sentence)
    if not words:
        raise ValueError("the sentence is empty: type some English words, e.g. 'the red car'")
    c = model.config
    unknown = [w for w in dict.fromkeys(words) if w not in src_vocab]
    # translate() itself, so that the view copies unknown words exactly as it does
    result = translate_sentences(
        [sentence],
        model,
        beam_size,
        src_vocab=src_vocab,
        tgt_vocab=tgt_vocab,
        length_penalty=length_penalty,
    )[0]
    if result.error:
        raise ValueError(result.error)
    src_ids = src_vocab.encode(words, warn_unknown=False)
    device = next(model.parameters()).device
    src = torch.tensor([src_ids], device=device)  # (1, S)
    src_key_mask = padding_attention_mask(src != PAD_ID)  # (1, 1, 1, S)
    # the written ids: a copied word was <unk> when the model wrote it
    ids = [
        UNK_ID if t in result.copied else tgt_vocab.token_to_id(tok)
        for t, tok in enumerate(result.output_tokens)
    ]
    translation = result.text
    # the words greedy_decode and beam_search allow it: their own rule, not a copy of it
    budget = output_budget(len(src_ids), c.max_len)
    ended = len(ids) < budget  # False when the decoding used up its budget before writing <eos>
    rows = list(result.output_tokens) + (["<eos>"] if ended else [])
    # (L, H, T, S), one row per written word and the <eos> when there is one
    cross = as_weights(
        cross_attention_maps(model, src, src_key_mask, ids + ([EOS_ID] if ended else []))
    )
    return words, translation, rows, unknown, ended, cross


def _translator_html(
    decoded, sentence: str, beam_size: int, layer: int, head, config
) -> tuple[np.ndarray, str]:
    """One layer's (and head's, or the heads' mean) cross-attention of a decoded sentence, and its
    HTML."""
    words, translation, rows, unknown, ended, cross = decoded
    weights = cross[layer].mean(axis=0) if head is None else cross[layer, head]  # (T, S)
    esc = html.escape
    how = "greedy" if beam_size == 1 else f"beam search, {beam_size} beams"
    which = "mean of the heads" if head is None else f"head {head + 1} of {config.num_heads}"
    lines = [
        f"English: {esc(sentence.strip())}",
        f"Portuguese ({how}): <b>{esc(translation)}</b>",
        "rows: the word each step wrote (the last one &lt;eos&gt;); columns: the English words",
    ]
    if unknown:
        lines.append(
            f"not in the vocabulary, read as &lt;unk&gt;: {esc(', '.join(unknown))} (where the "
            "model writes &lt;unk&gt;, the unknown word it attends to most is copied)"
        )
    if not ended:
        lines.append(
            f"no &lt;eos&gt; within the {len(rows)} words allowed (twice the English words plus 5, "
            f"at most the model's {config.max_len - 1} output positions): the translation is cut "
            "off"
        )
    said = esc(
        f"Portuguese: {translation}; "
        f"{'head ' + str(head + 1) if head is not None else 'mean of the heads'}, layer {layer + 1}"
    )  # the screen reader's status line (tutorlib/explorers/static.py)
    head_html = (
        f'<div class="tutorlib-translation" data-summary="{said}" style="margin-bottom:6px">'
        + "<br/>".join(lines)
        + "</div>"
    )
    title = f"cross-attention, decoder layer {layer + 1} of {config.num_decoder_layers}, {which}"
    table = weights_heatmap_html(weights, rows, words, title=title)
    return weights, head_html + side_by_side(table)


def _translator_checks(model, beam_size, layer, head) -> tuple[int, int, int | None]:
    c = model.config
    beam_size = whole_number("beam_size (1 = greedy)", beam_size, 1)
    L, H = c.num_decoder_layers, c.num_heads
    layer = whole_number(
        f"layer (an index: the decoder has {L} layers, 0 to {L - 1})", layer, 0, L - 1
    )
    return beam_size, layer, head_index(head, H, "layer")


def translator_view(
    model,
    sentence: str,
    beam_size: int = 1,
    layer: int = 0,
    head=0,
    *,
    src_vocab=None,
    tgt_vocab=None,
    length_penalty: float = 0.6,
) -> tuple[str, np.ndarray, str]:
    """The translator explorer's logic: translate ``sentence`` and show one decoder layer's
    cross-attention.

    ``model`` is a ``tutorlib.translator.Translator`` (its vocabularies ride
    along, or pass ``src_vocab`` and ``tgt_vocab``). The sentence is translated
    as ``tutorlib.translator.translate`` does it: greedy for ``beam_size=1``,
    beam search (with ``length_penalty``) for more. Then the decoder is run
    once more on its own translation, ``<bos>`` + the written tokens, with
    ``need_weights=True``; row ``t`` of the cross-attention is the step that
    wrote token ``t`` (the last row the step that wrote ``<eos>``), so these are
    the weights the decoding used. ``layer`` and ``head`` are Python indices
    (the HTML counts from 1); ``head=None`` averages the layer's heads.

    Returns ``(translation, weights (T, S), html)``: ``T`` rows, one per written
    token and the ``<eos>``, ``S`` columns, one per English token. Unknown
    English words are read as ``<unk>``, with a warning naming them (the HTML
    names them too); an empty sentence, or one longer than the model's
    ``max_len``, is a ``ValueError``.

    Derived in chapter 10 (Translating and evaluating).
    """
    from ..translation.decoding import model_vocabs  # torch: imported when a translator is shown

    src_vocab, tgt_vocab = model_vocabs(model, src_vocab, tgt_vocab)
    beam_size, layer, head = _translator_checks(model, beam_size, layer, head)
    decoded = _decode_with_attention(
        model, sentence, beam_size, src_vocab, tgt_vocab, length_penalty
    )
    weights, page = _translator_html(decoded, sentence, beam_size, layer, head, model.config)
    return decoded[1], weights, page


#: The static book's menu of sentences for the translator explorer (in a kernel, any sentence):
#: adjectives that move after their noun, agreement in gender and number, negation with
#: do-support, dropped subjects, estar com, contractions of de and em, the future, a question,
#: and a number and a name the model does not know, copied where cross-attention points.
BOOK_SENTENCES = (
    "the red car",
    "the black cats",
    "she is tired",
    "i am happy",
    "i am hungry",
    "he does not eat the apples",
    "i like the cat",
    "my friend is sick",
    "do you like the black cats ?",
    "the cat is in the box",
    "she will eat the apple",
    "where is my friend ?",
    "I have 3 dogs",
    "Maria likes the black cats",
)


@explorer(
    "chapters/10_translating_and_evaluating",
    sentence="text",
    beam_size="buttons",
    layer="menu",
    head="menu",
)
def translator_explorer(
    model=None,
    sentence: str = "the red car",
    beam_size: int = 1,
    layer: int = 0,
    head=0,
    *,
    src_vocab=None,
    tgt_vocab=None,
    sentences=BOOK_SENTENCES,
):
    """A text box for an English sentence, greedy / beam toggle, layer and head menus; shows
    :func:`translator_view`.

    ``model`` defaults to the shipped pretrained translator
    (``tutorlib.translator.load_pretrained``). A sentence the view refuses
    (empty, too long) shows its error message instead of the table; unknown
    words are named in the output rather than as a warning. The static twin
    in the book offers a menu of ``sentences`` (``sentence`` first) instead of
    the text box, each decoded once, greedy and with 4 beams.
    """
    import warnings

    import ipywidgets as widgets

    if model is None:
        from ..translator import load_pretrained

        model, src_vocab, tgt_vocab = load_pretrained()
    from ..translation.decoding import model_vocabs  # torch: imported when a translator is shown

    src_vocab, tgt_vocab = model_vocabs(model, src_vocab, tgt_vocab)
    c = model.config
    beam_size = whole_number("beam_size (1 = greedy)", beam_size, 1)
    choices = [("greedy", 1), ("beam 4", 4)]  # the HTML spells out "beam search, 4 beams"
    if beam_size not in (1, 4):
        choices.append((f"beam {beam_size}", beam_size))
    specs = [
        sentence_spec(sentence, sentences),
        Spec("beam_size", "buttons", "decoding", tuple(choices), beam_size),
        Spec(
            "layer",
            "menu",
            "layer",
            tuple((f"layer {i + 1}", i) for i in range(c.num_decoder_layers)),
            layer,
        ),
        head_spec(c.num_heads, head),
    ]
    live = live_controls(specs)
    text, decoding, layers, heads = live["sentence"], live["beam_size"], live["layer"], live["head"]

    def draw():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the HTML names unknown words
            return translator_view(
                model,
                text.value,
                decoding.value,
                layers.value,
                None if heads.value == -1 else heads.value,
                src_vocab=src_vocab,
                tgt_vocab=tgt_vocab,
            )[2]

    view = following_view((text, decoding, layers, heads), draw)
    page = _translator_twin(model, src_vocab, tgt_vocab)
    children = [text, decoding, widgets.HBox([layers, heads]), view]
    box = explorer_box(children, specs, live, page, "translator")
    box.sentence, box.decoding, box.layer, box.head, box.view = text, decoding, layers, heads, view
    return box


def _translator_twin(model, src_vocab, tgt_vocab):
    """The translator explorer's static view: each (sentence, decoding) of the menu decoded once."""
    import warnings

    c = model.config
    decoded = {}

    def page(sentence, beam_size, layer, head):
        if (sentence, beam_size) not in decoded:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the HTML names unknown words
                decoded[sentence, beam_size] = _decode_with_attention(
                    model, sentence, beam_size, src_vocab, tgt_vocab, 0.6
                )
        return _translator_html(
            decoded[sentence, beam_size],
            sentence,
            beam_size,
            layer,
            None if head == -1 else head,
            c,
        )[1]

    return page


# --- chapter 15: the KV cache's memory --------------------------------------------------------


def format_bytes(n: float) -> str:
    """A byte count in binary units, three significant digits.

    ``10.0 GiB``, ``512 MiB``, ``4 B``.
    """
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.3g} B"


def kv_cache_view(
    layers: int,
    heads: int,
    kv_heads: int,
    d_head: int,
    context: int,
    dtype: str = "float16",
    batch: int = 1,
    window: int | None = None,
    title: str = "",
) -> tuple[dict, str]:
    """The KV-cache calculator's logic: the cache of one model shape.

    Multi-head vs grouped vs multi-query.

    ``kv_cache_bytes(layers, Hkv, d_head, tokens, batch, bytes)`` for
    ``Hkv = heads`` (multi-head), ``kv_heads`` (grouped, the shape's own) and
    1 (multi-query), with ``tokens = context``, or ``min(context, window)``
    for a sliding window. ``dtype`` is a key of
    :data:`tutorlib.modern.DTYPE_BYTES`. Returns ``({row: bytes}, html)``: an
    HTML table with one row per variant, its KV heads, cached tokens, memory,
    and a bar as long as its share of the multi-head cache; the grouped row's
    memory is the ``data-summary`` a screen reader hears. The presets of the
    future explorer are :data:`tutorlib.modern.PUBLISHED_CONFIGS`.

    Derived in chapter 15 (Attention in today's models).
    """
    from ..modern import DTYPE_BYTES, kv_cache_bytes

    heads = whole_number("heads", heads, 1)
    kv_heads = whole_number("kv_heads", kv_heads, 1, heads)
    if heads % kv_heads:
        raise ValueError(
            f"kv_heads={kv_heads} does not divide heads={heads}: each key/value head serves a "
            "whole group of query heads"
        )
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"dtype must be one of {sorted(DTYPE_BYTES)}, got {dtype!r}")
    context = whole_number("context", context, 1)
    tokens = context if window is None else min(context, whole_number("window", window, 1))
    size = functools.partial(
        kv_cache_bytes, layers, d_head=d_head, batch=batch, bytes_per_value=DTYPE_BYTES[dtype]
    )
    rows = [
        ("multi-head", heads, context),
        ("grouped" if 1 < kv_heads < heads else "the shape's own", kv_heads, context),
        ("multi-query", 1, context),
    ]
    if window is not None:
        rows.append((f"{rows[1][0]}, window {window}", kv_heads, tokens))
    sizes = {name: size(num_kv_heads=h, seq_len=t) for name, h, t in rows}
    full = sizes["multi-head"]
    esc = html.escape
    cell = "padding:2px 8px;text-align:right"
    parts = [
        '<table class="tutorlib-kv-cache" style="border-collapse:collapse;font-family:monospace">',
        '<caption style="caption-side:top;text-align:left;font-weight:bold">'
        f"{esc(title + ': ' if title else '')}KV cache of {layers} layers, {heads} query heads "
        f"of {d_head}, {context} tokens, batch {batch}, {esc(dtype)}</caption>",
        '<thead><tr><th scope="col" style="padding:2px 8px;text-align:left">attention</th>'
        f'<th scope="col" style="{cell}">KV heads</th>'
        f'<th scope="col" style="{cell}">tokens cached</th>'
        f'<th scope="col" style="{cell}">memory</th><th scope="col" style="padding:2px 8px">'
        "share of multi-head</th></tr></thead><tbody>",
    ]
    for name, h, t in rows:
        share = sizes[name] / full
        parts.append(
            f'<tr><th scope="row" style="padding:2px 8px;text-align:left">{esc(name)}</th>'
            f'<td style="{cell}">{h}</td><td style="{cell}">{t}</td>'
            f'<td style="{cell}">{format_bytes(sizes[name])}</td>'
            f'<td style="padding:2px 8px"><span style="display:inline-block;height:1em;'
            f'width:{200 * share:.1f}px;background:{BAR_COLOUR};vertical-align:middle"></span> '
            f"{share:.1%}</td></tr>"
        )
    parts.append("</tbody></table>")
    own = rows[1][0]
    summary = f"{own} ({kv_heads} KV heads): {format_bytes(sizes[own])}"
    return sizes, f'<div data-summary="{esc(summary)}">{"".join(parts)}</div>'


#: The calculator's choices: key/value heads (each divides every preset's query heads), context
#: lengths, numbers' types and batch sizes.
KV_HEADS_CHOICES = (1, 2, 4, 8, 16, 32)
CONTEXT_CHOICES = (1024, 4096, 8192, 32768, 131072)
DTYPE_CHOICES = ("float32", "bfloat16", "float16", "float8")
BATCH_CHOICES = (1, 8, 64)


def kv_cache_calculator_view(
    model: str, kv_heads: int, context: int, dtype: str = "float16", batch: int = 1
) -> tuple[dict, str]:
    """:func:`kv_cache_view` of a published model's shape (``tutorlib.modern.PUBLISHED_CONFIGS``)
    with ``kv_heads`` key/value heads: what the KV-cache calculator shows.

    The title names the model and its published key/value heads (and window);
    the shape's layers, query heads, head width and window are the model's.

    Derived in chapter 15 (Attention in today's models).
    """
    from ..modern import PUBLISHED_CONFIGS

    if model not in PUBLISHED_CONFIGS:
        raise ValueError(f"model must be one of {list(PUBLISHED_CONFIGS)}, got {model!r}")
    m = PUBLISHED_CONFIGS[model]
    window = "" if m.window is None else f", window {m.window}"
    title = f"{model} (published: {m.kv_heads} KV heads{window})"
    return kv_cache_view(
        m.layers, m.heads, kv_heads, m.d_head, context, dtype, batch, m.window, title
    )


@explorer(
    "chapters/15_modern_attention",
    model="menu",
    kv_heads="menu",
    context="slider",
    dtype="buttons",
    batch="slider",
)
def kv_cache_explorer(
    model: str = "Llama 2 70B",
    kv_heads: int = 8,
    context: int = 32768,
    dtype: str = "float16",
    batch: int = 1,
):
    """The KV-cache memory calculator: a published model's shape (the presets), its key/value
    heads, the context, the numbers' type and the batch; shows :func:`kv_cache_calculator_view`.

    Derived in chapter 15 (Attention in today's models).
    """
    import ipywidgets as widgets

    from ..modern import PUBLISHED_CONFIGS

    def kv_label(h: int) -> str:
        return f"{h} (multi-query)" if h == 1 else str(h)

    specs = [
        Spec("model", "menu", "model", tuple((n, n) for n in PUBLISHED_CONFIGS), model),
        Spec(
            "kv_heads",
            "menu",
            "KV heads",
            tuple((kv_label(h), h) for h in KV_HEADS_CHOICES),
            kv_heads,
        ),
        Spec(
            "context",
            "slider",
            "context (tokens)",
            tuple((f"{n // 1024}k", n) for n in CONTEXT_CHOICES),
            context,
        ),
        Spec("dtype", "buttons", "numbers", tuple((d, d) for d in DTYPE_CHOICES), dtype),
        Spec("batch", "slider", "batch", tuple((str(n), n) for n in BATCH_CHOICES), batch),
    ]
    live = live_controls(specs)

    def page(model, kv_heads, context, dtype, batch):
        return kv_cache_calculator_view(model, kv_heads, context, dtype, batch)[1]

    view = widgets.HTML(value=page(model, kv_heads, context, dtype, batch))

    def redraw(_change):
        view.value = page(**{name: w.value for name, w in live.items()})

    for control in live.values():
        control.observe(redraw, names="value")
    children = [
        widgets.HBox([live["model"], live["kv_heads"]]),
        live["context"],
        live["dtype"],
        live["batch"],
        view,
    ]
    box = explorer_box(children, specs, live, page, "kv-cache")
    box.view = view
    for name, control in live.items():
        setattr(box, name, control)
    return box


# --- chapter 13: the GPT's attention (its own module; registered when this package loads) ------

from .decoder_only import gpt_attention_explorer, gpt_attention_view  # noqa: E402
