"""The kinds of model the translation stack trains, saves, loads, scores and runs: one list.

A checkpoint names its model's kind (``"translator"``, ``"gpt"``,
``"modern_gpt"``, ``"latent_gpt"``; a file without one holds a translator). Each ``ModelKind``
says, once, what the rest of the stack needs to know of a kind:

- ``config``, ``presets``: its configuration class and the named ones the
  command line offers (``--model NAME --preset ...``), read from
  ``config.COMMAND_LINE_KINDS`` (torch-free, for ``--help``); a kind without
  presets (``modern_gpt``) is not on the command line;
- ``model``, ``build``: the class that reads its checkpoints and the builder
  that sizes a config to the vocabularies (``train``'s ``build_model``);
- ``loss``, ``batcher``: ``train``'s ``batch_loss`` and ``batcher``;
- ``translate``: its translate function (``evaluate`` and the command line);
- ``fits``: whether a pair fits the model's positions (``evaluate`` skips
  those that do not, as training leaves them out);
- ``decoder_only``: decoded greedily or by sampling, never by beam search.

``kind_of`` decides the kind of a model, a config or a checkpoint's name,
once per load or run: ``checkpoints`` reads and writes through it, ``training``
takes its builder, loss and batcher from it, ``evaluation`` and ``cli`` their
decoding. It sits above the models and their decoders and below the
checkpoints (config -> data, tokens -> cache -> models -> decoding -> kinds ->
checkpoints -> training -> evaluation -> cli).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .config import COMMAND_LINE_KINDS
from .data import fits, make_batches, tokenize
from .decoding import translate as translator_translate
from .gpt.batches import fits_gpt, gpt_batcher
from .gpt.decoding import translate as gpt_translate
from .gpt.latent import LatentGPT, LatentGPTConfig, build_latent_gpt
from .gpt.model import GPT, build_gpt, gpt_loss
from .gpt.modern import ModernGPT, ModernGPTConfig, build_modern_gpt
from .gpt.tokens import splitter
from .model import Translator, build_translator, translator_loss

__all__ = ["ModelKind", "KINDS", "kind_of", "check_beam_size"]


@dataclass(frozen=True)
class ModelKind:
    """One kind of model: what training, checkpoints, scoring and the command line need of it."""

    name: str  # what a checkpoint stores under "kind"
    config: type  # its configuration class
    model: type  # the class that reads its checkpoints
    build: Callable  # build(config, src_vocab, tgt_vocab) -> a fresh model sized to them
    loss: Callable  # loss(model, batch, config) -> the loss of one batch
    batcher: Callable  # batcher(pairs, src_vocab, tgt_vocab, batch_size, shuffle=, seed=, max_len=)
    translate: Callable  # translate(sentences, model, ...) -> texts
    fits: Callable  # fits(model, english, portuguese) -> bool: within the model's positions
    decoder_only: bool = False  # one stack, greedy or sampled: no beam search
    presets: dict = field(default_factory=dict)  # the named configs the command line offers


def _translator_fits(model, english: str, portuguese: str) -> bool:
    return fits(tokenize(english), tokenize(portuguese), model.config.max_len)


def _gpt_fits(model, english: str, portuguese: str) -> bool:
    split = splitter(model.vocab)  # words, or chapter 14's BPE tokens
    return fits_gpt(split(english), split(portuguese), model.config)


_TRANSLATOR_CONFIG, _TRANSLATOR_PRESETS = COMMAND_LINE_KINDS["translator"]
_GPT_CONFIG, _GPT_PRESETS = COMMAND_LINE_KINDS["gpt"]
_GPT_PARTS = dict(
    loss=gpt_loss,
    batcher=gpt_batcher,
    translate=gpt_translate,
    fits=_gpt_fits,
    decoder_only=True,
)

KINDS = {
    kind.name: kind
    for kind in (
        # chapter 9's encoder-decoder
        ModelKind(
            "translator",
            _TRANSLATOR_CONFIG,
            Translator,
            build_translator,
            loss=translator_loss,
            batcher=make_batches,
            translate=translator_translate,
            fits=_translator_fits,
            presets=_TRANSLATOR_PRESETS,
        ),
        # chapter 13's decoder-only translator, on words or chapter 14's BPE
        ModelKind("gpt", _GPT_CONFIG, GPT, build_gpt, presets=_GPT_PRESETS, **_GPT_PARTS),
        # chapter 15's: RoPE and grouped-query attention in chapter 13's GPT
        ModelKind("modern_gpt", ModernGPTConfig, ModernGPT, build_modern_gpt, **_GPT_PARTS),
        # chapter 17's: multi-head latent attention in chapter 15's GPT
        ModelKind("latent_gpt", LatentGPTConfig, LatentGPT, build_latent_gpt, **_GPT_PARTS),
    )
}


def kind_of(what) -> ModelKind:
    """The ``ModelKind`` of a kind's name, a model or a config (its exact class: a
    ``ModernGPTConfig`` is a ``GPTConfig`` too, but of the kind ``"modern_gpt"``)."""
    if isinstance(what, str):
        if what not in KINDS:
            raise ValueError(f"no model kind {what!r}; the kinds: {sorted(KINDS)}")
        return KINDS[what]
    for kind in KINDS.values():
        if type(what) in (kind.model, kind.config):
            return kind
    named = getattr(what, "kind", None)  # a model class names its kind (GPT.kind = "gpt")
    if isinstance(named, str) and named in KINDS:
        return KINDS[named]
    for kind in reversed(KINDS.values()):  # a subclass (an experiment's): its nearest kind
        if isinstance(what, (kind.model, kind.config)):
            return kind
    raise ValueError(
        f"{type(what).__name__} is no model or config of a known kind ({sorted(KINDS)})"
    )


def check_beam_size(kind: ModelKind, beam_size: int, option: str = "beam_size") -> None:
    """The one rule "a decoder-only model has no beam search": ``beam_size`` must be 1 for it."""
    if kind.decoder_only and beam_size != 1:
        raise ValueError(
            f"{option}={beam_size}: the GPT decodes greedily or samples (a temperature), it has "
            f"no beam search; leave {option} at 1"
        )
