"""The translator as the book's page runs it: its weights in half precision and its rules as data.

The online book translates in the reader's browser (``assets/web/``, chapter 10's
live translator): a small JavaScript module runs the same encoder-decoder on
the same weights, and another reads a sentence as ``translate`` reads it. So
that there is one specification and not two copies that drift, everything the
page needs is written from here, at build time (``tools/export_web.py``, which
the book's build runs):

- ``web_weights(model)``: every parameter once (the tied output matrix is the
  target embedding), rounded to float16: 1.23 M parameters, 2.5 MB;
- ``rounded_model(model)``: a copy of the model holding exactly those rounded
  weights (as float32), which is what the parity tests decode with in Python;
- ``web_rules(model)``: the vocabularies and the input path's constants (the
  punctuation, the titles, the sentence-splitting patterns, the length budget,
  the repetition guard, the length penalty), read from the modules that define
  them, never retyped;
- ``export(out_dir)``: ``translator.bin`` (the weights) and
  ``translator.json`` (the rest), which the page fetches on first use.

Why float16 and not int8: both fit the page's 3 MB budget, and float16 moves
each weight by at most 1 part in 2048, so the page agrees with the shipped
model on its outputs (benchmarks/README.md gives the measured agreement and
BLEU); int8 with a scale per row halves the transfer but changes outputs the
chapter prints.

Derived in chapter 10 (Translating and evaluating).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import torch

from . import copying, data, guards, sentences, typos
from .checkpoints import load_pretrained
from .decoding import ALIGN_LAYER, REPEATED_WORD
from .phrasebook.lexicon import RELATION_FEMININE, TITLES

__all__ = [
    "WEB_FORMAT",
    "web_weights",
    "rounded_model",
    "load_web_translator",
    "web_rules",
    "export",
]

WEB_FORMAT = "tutorlib-web-translator/1"  # what translator.json says it is
# Python's white space (str.isspace, the last at U+3000), which differs from JavaScript's \s in a
# few characters: what str.split() and str.strip() cut at, and what \s matches in a pattern
WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
LENGTH_PENALTY = 0.6  # the command line's --length-penalty default (GNMT's alpha)
BEAM_SIZE = 4  # the page's "beam" choice


def web_weights(model) -> dict[str, np.ndarray]:
    """Every parameter of ``model`` once, in float16, by name (a tied matrix under its first
    name: the translator's output layer is ``tgt_embed.weight``)."""
    out = {}
    for name, p in model.named_parameters():  # named_parameters lists a tied tensor once
        half = p.detach().cpu().to(torch.float16).numpy()
        if not np.isfinite(half).all():
            raise ValueError(
                f"{name} does not fit in float16 (largest |weight| {p.abs().max():.4g}, float16 "
                "holds up to 65504): the page cannot carry this model"
            )
        out[name] = half
    return out


def rounded_model(model):
    """A copy of ``model`` whose weights are its float16 ``web_weights`` (as float32): what the
    page computes with, for Python to decode the same numbers."""
    twin = copy.deepcopy(model)
    with torch.no_grad():
        for p in twin.parameters():
            p.copy_(p.to(torch.float16).to(p.dtype))
    return twin.eval()


def load_web_translator():
    """The shipped translator with the page's rounded weights (``rounded_model``)."""
    return rounded_model(load_pretrained()[0])


def _palette() -> list[list[str]]:
    """The heatmap's 256 colours, ``[background, text]``: the cividis map the course's tables use
    (``tutorlib.display.shade``); value ``x`` in [0, 1] takes entry ``min(floor(256 x), 255)``,
    as matplotlib picks it."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    from ..display import DEFAULT_CMAP, text_colour

    cmap = colormaps[DEFAULT_CMAP]
    return [[to_hex(cmap(i)[:3]), text_colour(cmap(i))] for i in range(cmap.N)]


def web_rules(model) -> dict:
    """Everything but the weights that the page needs to translate as ``translate`` does: the
    model's shape, its vocabularies, and the input path's constants, taken from their modules."""
    c = model.config
    src_vocab, tgt_vocab = model.src_vocab, model.tgt_vocab
    if src_vocab is None or tgt_vocab is None:
        raise ValueError("the model carries no vocabularies: export a model from load_pretrained()")
    return {
        "format": WEB_FORMAT,
        "config": {
            "d_model": c.d_model,
            "num_heads": c.num_heads,
            "d_ff": c.d_ff,
            "num_encoder_layers": c.num_encoder_layers,
            "num_decoder_layers": c.num_decoder_layers,
            "max_len": c.max_len,
            "norm_first": c.norm_first,
            "tie_output": c.tie_output,
            "share_embeddings": c.share_embeddings,
            "layer_norm_eps": model.encoder.layers[0].norm1.eps,
        },
        "vocab": {"src": src_vocab.tokens, "tgt": tgt_vocab.tokens},
        # a gendered source vocabulary reads an unknown first name's gender (Vocab.token_to_id):
        # the page needs the name list's genders (world.gender_of); none for another vocabulary
        "genders": _genders() if src_vocab.gendered else {},
        # and, after "friend", reads a woman's name the list lacks from its ending, and one it
        # has as both from the languages that list it (copying.guessed_genders, world.
        # name_endings, world.name_leaning), and says so (unknown_gender_notice): each
        # relation's masculine (plurals too) and feminine, the table of endings, the names the
        # list has as both that lean to women, with their counts, and the other names the list
        # has (with no gender) that the table would read as women's, which keep no guess
        "relations": dict(copying.UNKNOWN_GENDER) if src_vocab.gendered else {},
        "feminine": dict(RELATION_FEMININE) if src_vocab.gendered else {},
        "endings": _endings() if src_vocab.gendered else {},
        "leanings": _leaning_feminine() if src_vocab.gendered else {},
        "listed": _listed_feminine() if src_vocab.gendered else [],
        "specials": {
            "pad": data.PAD_ID,
            "bos": data.BOS_ID,
            "eos": data.EOS_ID,
            "unk": data.UNK_ID,
        },
        "tokens": {
            # data.py: punctuation split off a word, and how detokenize glues it back
            "punctuation": data._PUNCT,
            "no_space_before": "".join(sorted(data._NO_SPACE_BEFORE)),
            "no_space_after": "".join(sorted(data._NO_SPACE_AFTER)),
            "curly_apostrophes": ["\u2019", "\u2018"],
            "title_abbreviations": list(sentences.TITLE_ABBREVIATIONS),
            "whitespace": WHITESPACE,
        },
        "sentences": {
            # sentences.py's patterns, for JavaScript's RegExp with the "u" flag: Python's letter
            # class spelled in Unicode categories; the page reads \s as WHITESPACE
            "sentence_end": _js_pattern(sentences._SENTENCE_END.pattern),
            "glued_end": _js_pattern(sentences._GLUED_END.pattern),
            "address_marks": ["@", "/", "www."],
        },
        "source": {
            "titles": sorted(TITLES),  # the word after a title is a name (decoding._prepare)
            "repeated_word": REPEATED_WORD,
        },
        "typos": {
            # typos.read_typos: the words a typo may be read as, those never read as typos, the
            # shortest typo, and what a word is (_PIECE, ported by hand: it uses \w)
            "words": list(typos.typo_words()),
            "not_typos": list(typos.not_typos()),
            "shortest": typos.SHORTEST_TYPO,
            "piece": _port(typos._PIECE.pattern, TYPO_PIECE),
            "word_char": r"[\p{L}\p{N}_]",  # Python's \w: a letter, a number or "_"
        },
        "decoding": {
            "budget": {"per_source_word": 2, "plus": 5},  # guards.output_budget: 2 S + 5
            "max_run": guards.MAX_RUN,
            "no_repeat_ngram": guards.NO_REPEAT_NGRAM,
            "length_penalty": LENGTH_PENALTY,
            "beam_size": BEAM_SIZE,
            "align_layer": ALIGN_LAYER,
        },
        "display": {"palette": _palette()},
    }


def _endings() -> dict[str, list]:
    from .phrasebook.world import name_endings  # {ending: (gender or "", agree, listed)}

    return {ending: list(row) for ending, row in name_endings().items()}


def _leaning_feminine() -> dict[str, list[int]]:
    """{name: [agree, listed]} for the names of names.json (lower case) that the list has as
    both and that lean to women (world.name_leaning): the page's copy of the guess."""
    from .phrasebook.world import _languages, name_leaning

    leanings = {n: name_leaning(n) for n in sorted(_languages())}
    return {n: [g.agree, g.listed] for n, g in leanings.items() if g.gender == "f"}


def _listed_feminine() -> list[str]:
    """The other names of names.json (lower case) with no gender on the list that its ending
    table reads as women's: copying.guessed_genders reads a name the list has only by its
    languages (world.name_leaning), never by its ending, and the page needs only these of them
    to do the same."""
    from .phrasebook.world import _languages, gender_of, guess_gender, name_leaning

    return sorted(
        n
        for n in _languages()
        if not gender_of(n) and guess_gender(n).gender == "f" and name_leaning(n).gender != "f"
    )


def _genders() -> dict[str, str]:
    from .phrasebook.world import _genders as genders  # {lower-case first name: "f" or "m"}

    return dict(sorted(genders().items()))


# Python's [^\W\d_]: a word character that is no digit nor "_", that is a letter or a number
# that is not a decimal digit (Unicode's L, Nl and No)
_JS_LETTER = r"[^\W\d_]"
_JS_LETTER_CLASS = r"[\p{L}\p{Nl}\p{No}]"


# typos._PIECE for JavaScript: Python's \w is a letter, a number or "_" there.
TYPO_PIECE = (
    r"^([^\w'\u2019]*)([A-Za-z]+)([^\w'\u2019]*)$",
    r"^([^\p{L}\p{N}_'\u2019]*)([A-Za-z]+)([^\p{L}\p{N}_'\u2019]*)$",
)


def _port(pattern: str, ported: tuple[str, str]) -> str:
    """The JavaScript spelling of ``pattern``, ported by hand as ``ported = (python, js)``: a
    change of the Python pattern is an error here until the port is redone."""
    if pattern != ported[0]:
        raise ValueError(
            f"the pattern {pattern!r} changed (ported: {ported[0]!r}): port it to JavaScript in "
            "tutorlib.translation.web and check the page's parity tests"
        )
    return ported[1]


def _js_pattern(pattern: str) -> str:
    """A pattern of sentences.py for JavaScript: Python's letter class in Unicode's categories; any
    other construct the two engines might read differently is refused, so a new rule is ported
    on purpose."""
    js = pattern.replace(_JS_LETTER, _JS_LETTER_CLASS)
    for construct in (r"\w", r"\W", r"\d", r"\b", "(?P", "(?i", "(?x"):
        if construct in js:
            raise ValueError(
                f"the pattern {pattern!r} uses {construct}, which Python and JavaScript read "
                "differently: port it to web_rules by hand"
            )
    return js


def export(out_dir, model=None) -> dict:
    """Write ``translator.bin`` (float16 weights, little-endian, one after another) and
    ``translator.json`` (``web_rules`` and where each weight lies) into ``out_dir``; returns
    the sizes in bytes."""
    if model is None:
        model = load_pretrained()[0]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    weights = web_weights(model)
    layout, offset, chunks = [], 0, []
    for name, w in weights.items():
        layout.append({"name": name, "shape": list(w.shape), "offset": offset})
        offset += w.size
        chunks.append(w.astype("<f2").tobytes())
    blob = b"".join(chunks)
    rules = web_rules(model) | {"weights": {"file": "translator.bin", "tensors": layout}}
    text = json.dumps(rules, ensure_ascii=False, separators=(",", ":")) + "\n"
    (out / "translator.bin").write_bytes(blob)
    (out / "translator.json").write_text(text, encoding="utf-8")
    return {"translator.bin": len(blob), "translator.json": len(text.encode("utf-8"))}
