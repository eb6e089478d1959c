"""Chapter 15's explorer: the memory of the KV cache, multi-head, grouped and multi-query.

``kv_cache_view`` computes the cache of any shape; ``kv_cache_calculator_view``
shows it for the published models' shapes (``tutorlib.modern.PUBLISHED_CONFIGS``)
and ``kv_cache_explorer`` puts menus and sliders for the model, its key/value
heads, the context, the numbers' type and the batch around it.

Derived in chapter 15 (Attention in today's models).
"""

from __future__ import annotations

import functools
import html

from ..checks import whole_number
from ..display import BAR_COLOUR
from .controls import Spec, explorer
from .widgets import explorer_box, live_controls

__all__ = [
    "format_bytes",
    "kv_cache_view",
    "kv_cache_calculator_view",
    "kv_cache_explorer",
    "KV_HEADS_CHOICES",
    "CONTEXT_CHOICES",
    "DTYPE_CHOICES",
    "BATCH_CHOICES",
]


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
