"""Chapter 13's explorer: where the decoder-only translator reads the English.

A GPT translator (``tutorlib.translation.gpt``) has no cross-attention: the Portuguese
positions read the English ones inside the one causal self-attention of each
block. ``gpt_attention_view`` translates a sentence with ``tutorlib.gpt.translate``
and shows one block's self-attention (one head, or the heads' mean) in one of
two ways: the whole sequence ``[English] <sep> [Portuguese]`` (lower-triangular,
the causal mask's cells marked ✕), or the block a translator's cross-attention
would hold, the rows of the steps that wrote the Portuguese words over the
English columns (``tutorlib.translation.gpt.cross_attention_pattern``), with a last column
for what each row gave to ``<sep>`` and the Portuguese before it.
``gpt_attention_explorer`` puts a text box (a menu of sentences in the book),
the two views and menus for the block and the head around it.

Derived in chapter 13 (The translator as a GPT).
"""

from __future__ import annotations

import html

import numpy as np

from ..checks import whole_number
from ..display import side_by_side, weights_heatmap_html
from .controls import Spec, explorer
from .widgets import (
    explorer_box,
    following_view,
    head_index,
    head_spec,
    live_controls,
    sentence_spec,
)

__all__ = ["gpt_attention_view", "gpt_attention_explorer", "GPT_BOOK_SENTENCES"]

#: The two ways the view draws a block's weights: (the explorer's label, the view's value).
SHOWS = (("Portuguese reads English", "cross"), ("the whole sequence", "sequence"))

#: The static book's menu of sentences (in a kernel, any sentence): adjectives that move behind
#: their noun, agreement, negation, a question, a place, and a name the model does not know.
GPT_BOOK_SENTENCES = (
    "the black cats",
    "the red car",
    "she is tired",
    "i am happy",
    "he does not eat the apples",
    "do you like the black cats ?",
    "the cat is in the box",
    "Maria likes the black cats",
)

REST = "<sep> + Portuguese"  # the cross view's last column: what a row gave to the rest


def _decode(model, sentence: str) -> dict:
    """Translate ``sentence`` and collect what the view shows of it, every block and head at once.

    Returns a dict: ``words`` (the English tokens), ``translation`` (the text
    ``tutorlib.gpt.translate`` writes, unknown words copied), ``read`` (the
    tokens the last pass reads: ``[English] <sep> [Portuguese]``), ``rows``
    (the tokens written, and ``<eos>`` when it was written), ``ended``,
    ``weights`` (every block's self-attention, ``(N, H, L, L)``) and ``cross``
    (``cross_attention_pattern``, ``(N, H, T, S)``).
    """
    import torch

    from ..translation.data import is_punctuation, tokenize
    from ..translation.gpt import SubwordTokenizer, cross_attention_pattern, generate
    from ..translation.gpt.decoding import translate
    from ..translation.guards import output_budget
    from ..translation.sentences import split_sentences

    if isinstance(sentence, str):  # what translate() would take apart or leave out, said here
        if not [w for w in tokenize(sentence) if not is_punctuation(w)]:
            raise ValueError(f"{sentence[:60]!r} holds no words: there is nothing to translate")
        if len(split_sentences(sentence)) > 1:
            raise ValueError(
                f"{sentence[:60]!r} holds several sentences; the explorer shows one pass of the "
                "model over one sentence: type one at a time"
            )
    translation = translate(sentence, model)  # its ValueError names what is wrong with the input
    tok = model.tokenizer
    if isinstance(tok, SubwordTokenizer):  # chapter 14's BPE: the pieces it reads, as translate
        src = tok.encode(tok.normalize(sentence))
        words = [tok.decode([i]) for i in src]
    else:  # chapter 9's words
        words = tokenize(sentence)
        src = tok.encode(sentence)
    S = len(src)
    device = next(model.parameters()).device
    prompt = torch.tensor([[*src, tok.sep_id]], device=device)  # (1, S + 1)
    # the budget translate() gives a sentence of S tokens
    budget = output_budget(S, model.config.max_len - S)
    hyp = generate(model, prompt, budget)[0]  # the written ids, without <eos>
    ended = len(hyp) < budget
    tgt = hyp + ([tok.eos_id] if ended else [])
    read = torch.tensor([[*src, tok.sep_id, *tgt[:-1]]], device=device)  # (1, L), L = S + T
    with torch.no_grad():
        _, weights = model(read, need_weights=True)  # N x (1, H, L, L)
    return {
        "words": words,
        "translation": translation,
        "read": [*words, "<sep>", *(_piece(tok, i) for i in tgt[:-1])],
        "rows": [_piece(tok, i) for i in hyp] + (["<eos>"] if ended else []),
        "ended": ended,
        "weights": torch.cat(weights).float().cpu().numpy(),  # (N, H, L, L)
        "cross": cross_attention_pattern(model, src, tgt).numpy(),  # (N, H, T, S)
    }


def _piece(tok, i: int) -> str:
    """One token's text: a word of the ``Vocab`` (``<unk>`` included), or a BPE piece."""
    return tok.vocab.id_to_token(i) if hasattr(tok, "vocab") else tok.decode([i])


def _checks(model, show, block, head) -> tuple[str, int, int | None]:
    c = model.config
    if show not in dict(SHOWS).values():
        raise ValueError(
            f"show must be 'cross' (the Portuguese rows over the English columns) or 'sequence' "
            f"(the whole sequence), got {show!r}"
        )
    N, H = c.num_layers, c.num_heads
    block = whole_number(
        f"block (an index: the model has {N} blocks, 0 to {N - 1})", block, 0, N - 1
    )
    return show, block, head_index(head, H, "block")


def _page(decoded: dict, sentence: str, show: str, block: int, head, config):
    """One block's (and head's, or the heads' mean) weights of a decoded sentence, and its HTML."""
    pick = (lambda w: w.mean(axis=0)) if head is None else (lambda w: w[head])  # (H, ...) -> ...
    words, rows = decoded["words"], decoded["rows"]
    S = len(words)
    which = "mean of the heads" if head is None else f"head {head + 1} of {config.num_heads}"
    where = f"block {block + 1} of {config.num_layers}, {which}"
    if show == "cross":
        cross = pick(decoded["cross"][block])  # (T, S)
        rest = 1.0 - cross.sum(axis=1, keepdims=True)  # (T, 1): <sep> and the Portuguese before
        weights = np.concatenate([cross, np.clip(rest, 0.0, 1.0)], axis=1)  # (T, S + 1)
        english = float(cross.sum(axis=1).mean())
        title = f"the Portuguese rows over the English columns, {where}"
        table = weights_heatmap_html(weights, rows, [*words, REST], title=title)
        note = (
            "rows: the word each step wrote (the last one &lt;eos&gt;); columns: the English "
            "words, then what the row gave to &lt;sep&gt; and the Portuguese before it. On "
            f"average a row puts {english:.2f} of its weight on the English."
        )
    else:
        weights = pick(decoded["weights"][block])  # (L, L)
        read = decoded["read"]
        L = len(read)
        causal = np.tril(np.ones((L, L), dtype=bool))  # (L, L): position i reads 0 .. i
        title = f"self-attention over the whole sequence, {where}"
        table = weights_heatmap_html(weights, read, read, title=title, mask=causal)
        note = (
            f"rows and columns: the {L} positions read, the {S} English words, &lt;sep&gt; and "
            "the Portuguese written before the last step; each row predicts the next token. The "
            f"rows from &lt;sep&gt; on, in the first {S} columns, are the Portuguese reading the "
            "English."
        )
    esc = html.escape
    lines = [
        f"English: {esc(sentence.strip())}",
        f"Portuguese (greedy): <b>{esc(decoded['translation'])}</b>",
        note,
    ]
    if not decoded["ended"]:
        lines.append(
            "no &lt;eos&gt; within the tokens allowed (twice the English words plus 5, at most the "
            f"positions the prompt leaves of {config.max_len}): the translation is cut off"
        )
    said = esc(f"Portuguese: {decoded['translation']}; {where}")  # the screen reader's status line
    head_html = (
        f'<div class="tutorlib-translation" data-summary="{said}" style="margin-bottom:6px">'
        + "<br/>".join(lines)
        + "</div>"
    )
    return weights, head_html + side_by_side(table)


def gpt_attention_view(
    model, sentence: str, show: str = "cross", block: int = 0, head=None
) -> tuple[str, np.ndarray, str]:
    """The GPT attention explorer's logic: translate ``sentence``, show one block's attention.

    ``model`` is a ``tutorlib.translation.gpt.GPT`` with its vocabulary. The sentence is
    translated greedily by ``tutorlib.gpt.translate`` (its errors, for an
    empty, too long or foreign sentence, are raised as they are); then the
    model reads ``[English] <sep> [Portuguese]`` once more with
    ``need_weights=True``. ``show="cross"`` draws ``cross_attention_pattern``'s
    block ``(T, S)``, the rows of the steps that wrote each Portuguese token
    (the last one ``<eos>``) over the English columns, and one more column,
    ``1 -`` the row's sum: what it gave to ``<sep>`` and the Portuguese.
    ``show="sequence"`` draws the whole ``(L, L)`` table, ``L = S + T``, with
    the cells the causal mask hides marked. ``block`` and ``head`` are Python
    indices (the HTML counts from 1); ``head=None`` averages the heads.

    Returns ``(translation, weights, html)``.

    Derived in chapter 13 (The translator as a GPT).
    """
    from ..translation.gpt import GPT

    if not isinstance(model, GPT):
        raise ValueError(
            "gpt_attention_view shows a tutorlib.translation.gpt.GPT, got "
            f"{type(model).__name__}; the encoder-decoder translator has translator_view"
        )
    show, block, head = _checks(model, show, block, head)
    decoded = _decode(model, sentence)
    weights, page = _page(decoded, sentence, show, block, head, model.config)
    return decoded["translation"], weights, page


@explorer("chapters/13_decoder_only", sentence="text", show="buttons", block="menu", head="menu")
def gpt_attention_explorer(
    model=None,
    sentence: str = "the black cats",
    show: str = "cross",
    block: int = 0,
    head=None,
    *,
    sentences=GPT_BOOK_SENTENCES,
):
    """A text box for an English sentence, the two views, block and head menus; shows
    :func:`gpt_attention_view`.

    ``model`` defaults to the shipped GPT on words
    (``tutorlib.gpt.load_pretrained("words")``). A sentence the view refuses
    shows its error message instead of the table. The static twin in the book
    offers a menu of ``sentences`` (``sentence`` first) instead of the text box,
    each translated once.

    Derived in chapter 13 (The translator as a GPT).
    """
    import ipywidgets as widgets

    if model is None:
        from ..translation.gpt.checkpoints import load_pretrained

        model = load_pretrained("words")
    c = model.config
    N = c.num_layers
    show, block, head = _checks(model, show, block, head)
    specs = [
        sentence_spec(sentence, sentences),  # a text box; in the twin, a menu of sentences
        Spec("show", "buttons", "show", SHOWS, show),
        Spec("block", "menu", "block", tuple((f"block {i + 1}", i) for i in range(N)), block),
        head_spec(c.num_heads, head),
    ]
    live = live_controls(specs)
    text, shows, blocks, heads = live["sentence"], live["show"], live["block"], live["head"]

    def draw():
        head = None if heads.value == -1 else heads.value
        return gpt_attention_view(model, text.value, shows.value, blocks.value, head)[2]

    view = following_view((text, shows, blocks, heads), draw)
    decoded = {}

    def page(sentence, show, block, head):  # the twin: each sentence translated once
        if sentence not in decoded:
            decoded[sentence] = _decode(model, sentence)
        return _page(decoded[sentence], sentence, show, block, None if head == -1 else head, c)[1]

    children = [text, shows, widgets.HBox([blocks, heads]), view]
    box = explorer_box(children, specs, live, page, "gpt_attention")
    box.sentence, box.show, box.block, box.head, box.view = text, shows, blocks, heads, view
    return box
