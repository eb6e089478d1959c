"""Chapter 10's explorer: where the encoder-decoder translator's cross-attention looks.

``translator_view`` translates a sentence as ``tutorlib.translation.decoding``
does it (greedy or beam search, unknown words copied) and shows one decoder
layer's cross-attention (one head, or the heads' mean): the rows are the steps
that wrote the Portuguese words (the last one ``<eos>``), the columns the
English words. ``translator_explorer`` puts a text box (a menu of sentences in
the book), a greedy / beam toggle and menus for the layer and the head around
it. Chapter 13's decoder-only translator has its own,
:mod:`tutorlib.explorers.decoder_only`.

Derived in chapter 10 (Translating and evaluating).
"""

from __future__ import annotations

import html

import numpy as np

from ..checks import whole_number
from ..display import as_weights, side_by_side, weights_heatmap_html
from .controls import Spec, explorer
from .widgets import (
    explorer_box,
    following_view,
    head_index,
    head_spec,
    live_controls,
    sentence_spec,
)

__all__ = ["translator_view", "translator_explorer", "BOOK_SENTENCES"]


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
    from ..translation.data import EOS_ID, PAD_ID, UNK_ID, tokenize
    from ..translation.decoding import cross_attention_maps, translate_sentences
    from ..translation.guards import output_budget

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
            "model writes &lt;unk&gt;, the unknown word it attends to most is copied, a word "
            "not copied yet first)"
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

    ``model`` is a ``tutorlib.translation.model.Translator`` (its vocabularies ride
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
        from ..translation.checkpoints import load_pretrained

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
