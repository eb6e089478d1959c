"""Chapter 16's explorer: where one head looks, and what switching it off does to a translation.

``head_ablation_view`` translates a sentence greedily with the shipped
encoder-decoder translator or the shipped GPT on BPE, then twice more with one
head switched off (``tutorlib.debug.heads.ablate_heads``): its output set to
zero, and replaced by its mean output over reference sentences. Beside the
three translations it draws that head's attention on the sentence, read
teacher-forced on the model's own translation, and the head's pattern scores
on it (``tutorlib.debug.heads.head_pattern_scores``). ``head_ablation_explorer``
puts a text box (a menu of sentences in the book), a menu of every attention
layer of both models and a menu of heads around it.

Derived in chapter 16 (What the heads learned).
"""

from __future__ import annotations

import difflib
import html
import warnings

from ..checks import whole_number
from ..display import weights_heatmap_html
from .controls import Spec, explorer
from .widgets import explorer_box, following_view, live_controls, sentence_spec

__all__ = ["head_ablation_view", "head_ablation_explorer", "HEADS_BOOK_SENTENCES"]

#: The static book's menu of sentences (in a kernel, any sentence): a test sentence whose plural
#: verb turns singular without head 2 of the decoder's first layer ("eles não pinta"), an
#: adjective behind its noun, a full stop, and a number the translator does not know (it copies it).
HEADS_BOOK_SENTENCES = (
    "they don't paint the black coat.",
    "the red car",
    "she is tired.",
    "I have 3 dogs",
)

#: What each attention kind is called in the view.
KIND_NAMES = {
    "encoder": "encoder self-attention",
    "decoder": "decoder self-attention",
    "cross": "cross-attention",
    "self": "self-attention",
}
SCORE_NAMES = (
    ("previous", "the token before"),
    ("same", "its own position"),
    ("first", "the first token"),
    ("punctuation", "punctuation"),  # in a GPT also <sep> and <eos> (head_pattern_scores)
    ("aligned", "the source word spelled alike"),
)


def _is_gpt(model) -> bool:
    from ..debug.heads import attention_kinds

    return attention_kinds(model) == ("self",)


def _checks(model, kind, layer, head) -> tuple[str, int, int]:
    from ..debug.heads import attention_kinds, attention_modules

    kinds = attention_kinds(model)  # its ValueError names a model without heads to switch off
    if kind not in kinds:
        raise ValueError(f"kind must be one of {kinds} for this model, got {kind!r}")
    modules = attention_modules(model, kind)
    L, H = len(modules), modules[0].num_heads
    layer = whole_number(f"layer (an index: this model has {L} {kind} layers, 0 to {L - 1})",
                         layer, 0, L - 1)  # fmt: skip
    head = whole_number(f"head (an index: each layer has {H} heads, 0 to {H - 1})", head, 0, H - 1)
    return kind, layer, head


def _translate(model, sentences: list[str]) -> list[str]:
    """Greedy translations, as chapter 10's ``translate`` and chapter 13's ``tutorlib.gpt``
    write them (unknown words copied); warnings about them are the view's to say."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if _is_gpt(model):
            from ..translation.gpt.decoding import translate

            return translate(list(sentences), model)
        from ..translation.decoding import translate

        return translate(list(sentences), model)


def _ablated(model, sentences, kind, layer, head, means) -> dict:
    """``{"zero": [...], "mean": [...] or None}``: the sentences translated with the head off."""
    from ..debug.heads import ablate_heads

    out = {}
    for how in ("zero", "mean"):
        if how == "mean" and means is None:
            out[how] = None
            continue
        with ablate_heads(model, kind, (layer, head), how, means):
            out[how] = _translate(model, sentences)
    return out


def _read(model, sentence: str) -> dict:
    """The sentence translated by the whole model, every head's attention on it (teacher-forced on
    that translation), the labels of each kind's rows and columns and each head's scores."""
    from ..debug import attention_maps
    from ..debug.heads import attention_modules, head_pattern_scores
    from ..nn import causal_attention_mask
    from ..translation.data import is_punctuation, make_batches, tokenize

    if not isinstance(sentence, str):
        raise ValueError(f"sentence must be a string of English words, got {sentence!r}")
    if not [w for w in tokenize(sentence) if not is_punctuation(w)]:
        raise ValueError(f"{sentence[:60]!r} holds no words: there is nothing to translate")
    (translation,) = _translate(model, [sentence])
    if not tokenize(translation):
        raise ValueError(f"the model wrote nothing for {sentence!r}: no pattern to show")
    pair = (sentence, translation)
    was_training = model.training
    model.eval()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unknown words become <unk>, as the model read them
            if _is_gpt(model):
                from ..translation.gpt.batches import make_gpt_batches

                tok = model.tokenizer
                pair = (tok.normalize(sentence), translation)  # what translate() encodes
                (batch,) = make_gpt_batches([pair], tok, 1, shuffle=False)
                ids = batch.tokens[0].tolist()
                read = ["<sep>" if i == tok.sep_id else tok.decode([i]) for i in ids]
                maps = attention_maps(model, batch.tokens)
                L = len(ids)
                kinds = {"self": ("blocks.{}.self_attn", read, read, causal_attention_mask(L))}
            else:
                src, tgt = tokenize(sentence), tokenize(translation)
                n = model.config.max_len
                if len(src) > n or len(tgt) > n - 1:
                    raise ValueError(
                        f"the sentence or its translation is longer than the model's {n} "
                        "positions: try a shorter sentence"
                    )
                (batch,) = make_batches(
                    [pair], model.src_vocab, model.tgt_vocab, 1, shuffle=False, max_len=n
                )
                maps = attention_maps(model, batch)
                written, reads = [*tgt, "<eos>"], ["<bos>", *tgt]  # tgt_out, tgt_in
                T = len(written)
                kinds = {
                    "encoder": ("encoder.layers.{}.self_attn", src, src, None),
                    "decoder": ("decoder.layers.{}.self_attn", written, reads,
                                causal_attention_mask(T)),
                    "cross": ("decoder.layers.{}.cross_attn", written, src, None),
                }  # fmt: skip
        scores = {(r["kind"], r["layer"], r["head"]): r for r in head_pattern_scores(model, [pair])}
    finally:
        model.train(was_training)
    weights = {}
    for kind, (name, rows, cols, mask) in kinds.items():
        n_layers = len(attention_modules(model, kind))
        # one (H, T_q, T_k) array per layer, the batch's one sentence
        per_layer = [
            maps[name.format(i)][0].detach().float().cpu().numpy() for i in range(n_layers)
        ]
        weights[kind] = (per_layer, rows, cols, None if mask is None else mask.numpy())
    return {"sentence": sentence, "translation": translation, "weights": weights, "scores": scores}


def _changed(before: str, after: str) -> str:
    """``after`` with the words that are not in ``before`` (in order) underlined, escaped."""
    a, b = before.split(), after.split()
    out = []
    for op, _, _, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        words = html.escape(" ".join(b[j1:j2]))
        if op == "equal" or not words:
            out.append(words)
        else:
            out.append(f'<ins style="text-decoration:underline;text-underline-offset:3px">'
                       f"{words}</ins>")  # fmt: skip
    return " ".join(w for w in out if w)


def _page(read: dict, ablated: dict, model_name: str, kind: str, layer: int, head: int, index=0):
    """The HTML of one head on one sentence: the translations, its pattern, its scores."""
    esc = html.escape
    all_layers, rows, cols, mask = read["weights"][kind]
    weights = all_layers[layer][head]  # (T_q, T_k)
    H = all_layers[layer].shape[0]
    unit = "block" if kind == "self" else "layer"
    where = f"{model_name}, {KIND_NAMES[kind]}, {unit} {layer + 1} of {len(all_layers)}, "
    where += f"head {head + 1} of {H}"
    clean = read["translation"]
    lines = [f"English: {esc(read['sentence'].strip())}", f"every head on: <b>{esc(clean)}</b>"]
    said = []
    for how, label in (("zero", "this head zeroed"), ("mean", "this head's mean output instead")):
        got = ablated[how]
        if got is None:
            continue
        text = got[index]
        verdict = "unchanged" if text == clean else "changed: the new words are underlined"
        lines.append(f"{label}: <b>{_changed(clean, text)}</b> ({verdict})")
        said.append(f"{label}: {'unchanged' if text == clean else 'changed'}")
    score = read["scores"][kind, layer, head]
    names = dict(SCORE_NAMES)
    if kind == "self":
        names["punctuation"] = "punctuation, <sep> and <eos>"
    # NaN: the score does not apply to this kind
    parts = [f"{esc(names[key])} {score[key]:.2f}" for key in names if score[key] == score[key]]
    lines.append(
        "its mean weight on " + ", ".join(parts) + " (teacher-forced on the translation above)"
    )
    if kind in ("decoder", "cross"):
        lines.append("rows: the word each step wrote (the last one &lt;eos&gt;)")
    elif kind == "self":
        lines.append("rows and columns: the tokens read, English, &lt;sep&gt; and the Portuguese")
    summary = esc(f"{where}; " + "; ".join(said))  # the screen reader's status line
    top = (
        f'<div class="tutorlib-translation" data-summary="{summary}" style="margin-bottom:6px">'
        + "<br/>".join(lines)
        + "</div>"
    )
    table = weights_heatmap_html(weights, rows, cols, title=where, mask=mask)
    # a box that scrolls sideways on a narrow screen; position:relative keeps the hidden cells'
    # screen-reader text (absolutely positioned) inside it, or a wide masked table would make the
    # whole page scroll sideways on a phone
    scroller = f'<div style="position:relative;max-width:100%;overflow-x:auto">{table}</div>'
    return weights, top + scroller


def head_ablation_view(
    model, sentence: str, kind: str, layer: int = 0, head: int = 0, means: dict | None = None
) -> tuple[dict, str]:
    """The head explorer's logic: one head's pattern on ``sentence`` and the translations with it
    switched off.

    ``model`` is the course's translator (``kind`` ``"encoder"``,
    ``"decoder"`` or ``"cross"``) or a decoder-only GPT (``kind="self"``).
    The sentence is translated greedily three times: by the whole model, with
    head ``head`` of layer ``layer`` zeroed, and with it replaced by its mean
    output ``means`` (``tutorlib.debug.heads.head_means``; left out when
    ``means`` is None). The pattern is the head's attention teacher-forced on
    the whole model's translation, as ``head_pattern_scores`` reads it;
    ``layer`` and ``head`` are Python indices (the HTML counts from 1).

    Returns ``({"translation", "zero", "mean", "weights", "scores"}, html)``:
    ``zero`` and ``mean`` the ablated translations (``mean`` None without
    ``means``), ``weights`` the head's ``(T_q, T_k)`` pattern, ``scores`` its
    row of ``head_pattern_scores`` on this sentence.

    Derived in chapter 16 (What the heads learned).
    """
    kind, layer, head = _checks(model, kind, layer, head)
    read = _read(model, sentence)
    ablated = _ablated(model, [sentence], kind, layer, head, means)
    name = "GPT" if kind == "self" else "translator"
    weights, page = _page(read, ablated, name, kind, layer, head)
    result = {
        "translation": read["translation"],
        "zero": ablated["zero"][0],
        "mean": None if ablated["mean"] is None else ablated["mean"][0],
        "weights": weights,
        "scores": read["scores"][kind, layer, head],
    }
    return result, page


def _layer_options(models: dict) -> tuple[tuple[str, str], ...]:
    """Every attention layer of the models, as ``(label, "model kind layer")`` menu options."""
    from ..debug.heads import attention_kinds, attention_modules

    options = []
    for name, model in models.items():
        for kind in attention_kinds(model):
            for i in range(len(attention_modules(model, kind))):
                unit = "block" if kind == "self" else "layer"
                options.append(
                    (f"{name}: {KIND_NAMES[kind]}, {unit} {i + 1}", f"{name} {kind} {i}")
                )
    return tuple(options)


def _reference_means(model) -> dict:
    from ..debug.heads import head_means
    from ..translation.phrasebook import phrasebook

    return head_means(model, phrasebook("valid")[:200])


@explorer("chapters/16_what_heads_learned", sentence="text", layer="menu", head="menu")
def head_ablation_explorer(
    translator=None,
    gpt=None,
    sentence: str = HEADS_BOOK_SENTENCES[0],
    layer: str = "translator decoder 0",
    head: int = 0,
    *,
    sentences=HEADS_BOOK_SENTENCES,
):
    """A text box for an English sentence, a menu of the attention layers of both models and a
    menu of heads; shows :func:`head_ablation_view`.

    ``translator`` and ``gpt`` default to the shipped translator
    (``tutorlib.translator.load_pretrained``) and the shipped GPT on BPE
    (``tutorlib.gpt.load_pretrained()``). ``layer`` is ``"<model> <kind>
    <index>"``, e.g. ``"translator cross 2"`` or ``"GPT self 0"``. Mean
    ablation uses each head's mean output over the first 200 validation
    sentences. The static twin in the book offers a menu of ``sentences``
    (``sentence`` first) instead of the text box; for each layer and head it
    translates them all in one batch.

    Derived in chapter 16 (What the heads learned).
    """
    import ipywidgets as widgets

    if translator is None:
        from ..translation.checkpoints import load_pretrained

        translator = load_pretrained()[0]
    if gpt is None:
        from ..translation.gpt.checkpoints import load_pretrained as load_gpt

        gpt = load_gpt()
    models = {"translator": translator, "GPT": gpt}
    options = _layer_options(models)
    if layer not in dict((v, k) for k, v in options):
        raise ValueError(f"layer must be one of {[v for _, v in options]}, got {layer!r}")
    H = {model.config.num_heads for model in models.values()}
    if len(H) != 1:
        raise ValueError(f"the two models need the same number of heads per layer, got {H}")
    (H,) = H
    head = whole_number(f"head (an index: each layer has {H} heads, 0 to {H - 1})", head, 0, H - 1)
    means = {name: _reference_means(model) for name, model in models.items()}
    specs = [
        sentence_spec(sentence, sentences),
        Spec("layer", "menu", "attention", options, layer),
        Spec("head", "menu", "head", tuple((f"head {h + 1}", h) for h in range(H)), head),
    ]
    live = live_controls(specs)
    text, layers, heads = live["sentence"], live["layer"], live["head"]

    def split(value):
        name, kind, i = value.split()
        return name, kind, int(i)

    def draw():
        name, kind, i = split(layers.value)
        return head_ablation_view(models[name], text.value, kind, i, heads.value, means[name])[1]

    view = following_view((text, layers, heads), draw)
    menu = [v for _, v in specs[0].options]
    reads, ablations = {}, {}

    def page(sentence, layer, head):  # the twin: each sentence read once, ablations batched
        name, kind, i = split(layer)
        model = models[name]
        if (name, sentence) not in reads:
            reads[name, sentence] = _read(model, sentence)
        if (layer, head) not in ablations:
            ablations[layer, head] = _ablated(model, menu, kind, i, head, means[name])
        return _page(reads[name, sentence], ablations[layer, head], name, kind, i, head,
                     menu.index(sentence))[1]  # fmt: skip

    children = [text, widgets.HBox([layers, heads]), view]
    box = explorer_box(children, specs, live, page, "head_ablation")
    box.sentence, box.layer, box.head, box.view = text, layers, heads, view
    return box
