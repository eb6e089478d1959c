"""Chapter 17's explorer: a batch's KV cache in blocks, against one reservation per sequence.

``paged_cache_view`` draws, for sequences of known lengths, the block table each one holds
(``tutorlib.serving.paged.block_tables``: the tables ``paged_generate`` hands out), the pool's
blocks with the sequence that holds each, and the bytes of paging against reserving
``max_len`` positions per sequence (``tutorlib.serving.paged.cache_account``).
``paged_cache_explorer`` puts sliders for the block size and the number of sequences around it.

Derived in chapter 17 (Attention at serving scale).
"""

from __future__ import annotations

import html

from ..checks import whole_number
from ..display import BAR_COLOUR
from .controls import Spec, explorer
from .kv_cache import format_bytes
from .widgets import explorer_box, following_view, live_controls

__all__ = ["BLOCK_CHOICES", "paged_cache_view", "paged_cache_explorer"]

#: The block sizes the explorer offers, in positions.
BLOCK_CHOICES = (1, 2, 4, 8, 16, 32)

_CELL = "padding:2px 8px;text-align:right"
_LEFT = "padding:2px 8px;text-align:left"


def _bar(share: float, text: str) -> str:
    """A bar as long as ``share`` of 160 px, its number written beside it (colour never alone)."""
    return (
        f'<span style="display:inline-block;height:0.9em;width:{160 * share:.1f}px;'
        f'background:{BAR_COLOUR};vertical-align:middle"></span> {text}'
    )


def paged_cache_view(
    prompt_lengths,
    lengths,
    block_size: int,
    max_len: int,
    position_bytes: int,
    labels=None,
) -> tuple[dict, str]:
    """A batch's paged KV cache: ``({"tables", "account"}, html)``.

    ``lengths[i]`` positions of sequence ``i`` are cached when it finishes, ``prompt_lengths[i]``
    of them read in one pass first; ``block_size`` positions per block; a contiguous cache
    reserves ``max_len`` positions per sequence; one position costs ``position_bytes``
    (``tutorlib.serving.step.bytes_per_position``). ``labels`` name the sequences (their
    sentences, say). The page: one row per sequence with its positions, its block table, its
    blocks and the positions its last block leaves unused; the pool's blocks in order, each
    with the number of the sequence that holds it and how full it is; and the bytes used,
    paged and reserved. The ``data-summary`` a screen reader hears compares the two caches.

    Derived in chapter 17 (Attention at serving scale).
    """
    from ..serving.paged import block_tables, cache_account

    prompt_lengths, lengths = list(prompt_lengths), list(lengths)
    position_bytes = whole_number("position_bytes", position_bytes, 1)
    tables = block_tables(prompt_lengths, lengths, block_size)
    account = cache_account(lengths, max_len, block_size, position_bytes)
    labels = [f"sequence {i + 1}" for i in range(len(lengths))] if labels is None else labels
    if len(labels) != len(lengths):
        raise ValueError(f"expected one label per sequence ({len(lengths)}), got {len(labels)}")
    esc, b = html.escape, block_size
    parts = [
        '<table class="tutorlib-paged-cache" style="border-collapse:collapse;'
        'font-family:monospace">',
        '<caption style="caption-side:top;text-align:left;font-weight:bold">'
        f"{len(lengths)} sequences in blocks of {b} positions (max_len {max_len})</caption>",
        f'<thead><tr><th scope="col" style="{_LEFT}">sequence</th>'
        f'<th scope="col" style="{_CELL}">positions</th>'
        f'<th scope="col" style="{_LEFT}">block table</th>'
        f'<th scope="col" style="{_CELL}">blocks</th>'
        f'<th scope="col" style="{_CELL}">unused in last block</th>'
        f'<th scope="col" style="{_CELL}">unused of max_len</th></tr></thead><tbody>',
    ]
    holders: dict = {}  # block -> [(sequence, positions it used)], in the order they held it
    for i, (label, n, table) in enumerate(zip(labels, lengths, tables)):
        for j, block in enumerate(table):
            holders.setdefault(block, []).append((i, min(b, n - j * b)))
        parts.append(
            f'<tr><th scope="row" style="{_LEFT}">{i + 1}. {esc(str(label))}</th>'
            f'<td style="{_CELL}">{n}</td>'
            f'<td style="{_LEFT}">{" ".join(map(str, table))}</td>'
            f'<td style="{_CELL}">{len(table)}</td>'
            f'<td style="{_CELL}">{len(table) * b - n}</td>'
            f'<td style="{_CELL}">{max_len - n}</td></tr>'
        )
    parts.append("</tbody></table>")
    # the pool: block k, the sequences that held it (their numbers, written) and how full the
    # last one left it; a block given back by a finished sequence is held again by another
    pool = []
    for k in sorted(holders):
        # in the order they held it: one that finishes sooner (fewer steps after its prompt)
        # gives the block back before the next takes it
        holders[k].sort(key=lambda held: lengths[held[0]] - prompt_lengths[held[0]])
        said = ", then ".join(f"sequence {i + 1} ({used} of {b})" for i, used in holders[k])
        fill = 100 * holders[k][-1][1] / b
        pool.append(
            f'<li aria-label="block {k}: {said}" style="display:inline-block;min-width:3.2em;'
            "margin:1px;padding:0 2px;border:1px solid currentColor;text-align:center;"
            f"background:linear-gradient(to top,{BAR_COLOUR}55 {fill:.0f}%,transparent "
            f'{fill:.0f}%)"><span style="font-size:70%">{k}</span><br/>'
            f"<b>{' → '.join(str(i + 1) for i, _ in holders[k])}</b></li>"
        )
    parts.append(
        '<p style="margin:0.6em 0 0.2em">The pool: each box is a block, its number above and the '
        "sequences that held it below (3 → 5: sequence 3 finished and gave it back, sequence 5 "
        "took it); the shading is the share of it the last one used.</p>"
        f'<ol class="tutorlib-pool" style="list-style:none;padding:0;margin:0;'
        f'font-family:monospace">{"".join(pool)}</ol>'
    )
    a = account
    rows = [
        ("used by the positions", a.used_bytes, ""),
        ("paged: whole blocks", a.paged_bytes, f"{a.paged_waste:.1%} unused"),
        (f"contiguous: {max_len} positions each", a.contiguous_bytes,
         f"{a.contiguous_waste:.1%} unused"),
    ]  # fmt: skip
    parts.append(
        '<table class="tutorlib-paged-bytes" style="border-collapse:collapse;margin-top:0.6em;'
        'font-family:monospace"><caption style="caption-side:top;text-align:left;'
        'font-weight:bold">Bytes of keys and values</caption>'
        f'<thead><tr><th scope="col" style="{_LEFT}">cache</th>'
        f'<th scope="col" style="{_CELL}">bytes</th><th scope="col" style="{_LEFT}">'
        "share of contiguous</th></tr></thead><tbody>"
    )
    for name, size, note in rows:
        share = size / a.contiguous_bytes
        parts.append(
            f'<tr><th scope="row" style="{_LEFT}">{esc(name)}</th>'
            f'<td style="{_CELL}">{format_bytes(size)}</td>'
            f'<td style="{_LEFT}">{_bar(share, f"{share:.1%}")}'
            f"{esc('; ' + note) if note else ''}</td></tr>"
        )
    parts.append("</tbody></table>")
    summary = (
        f"blocks of {b}: paged {format_bytes(a.paged_bytes)} ({a.paged_waste:.0%} unused), "
        f"contiguous {format_bytes(a.contiguous_bytes)} ({a.contiguous_waste:.0%} unused)"
    )
    page = f'<div data-summary="{esc(summary)}">{"".join(parts)}</div>'
    return {"tables": tables, "account": account}, page


@explorer("chapters/17_serving", block_size="slider", sequences="slider")
def paged_cache_explorer(
    prompt_lengths,
    lengths,
    max_len: int,
    position_bytes: int,
    labels=None,
    block_size: int = 8,
    sequences: int = 6,
):
    """The paged KV cache of a batch: sliders for the block size (``BLOCK_CHOICES``) and the
    number of sequences (the first ``sequences`` of the batch, from 2); shows
    :func:`paged_cache_view`.

    Derived in chapter 17 (Attention at serving scale).
    """
    prompt_lengths, lengths = list(prompt_lengths), list(lengths)
    labels = [f"sequence {i + 1}" for i in range(len(lengths))] if labels is None else list(labels)
    count = whole_number("len(lengths)", len(lengths), 2, 12, hint="sequences in the batch")
    specs = [
        Spec("block_size", "slider", "block size", tuple((str(n), n) for n in BLOCK_CHOICES),
             block_size),
        Spec("sequences", "slider", "sequences", tuple((str(n), n) for n in range(2, count + 1)),
             sequences),
    ]  # fmt: skip
    live = live_controls(specs)

    def page(block_size, sequences):
        return paged_cache_view(
            prompt_lengths[:sequences],
            lengths[:sequences],
            block_size,
            max_len,
            position_bytes,
            labels[:sequences],
        )[1]

    view = following_view(live.values(), lambda: page(**{n: w.value for n, w in live.items()}))
    box = explorer_box([*live.values(), view], specs, live, page, "paged-cache")
    box.view = view
    for name, control in live.items():
        setattr(box, name, control)
    return box
