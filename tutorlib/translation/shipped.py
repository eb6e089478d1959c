"""The shipped models as defaults: translating without naming a model.

The decoders (``tutorlib.translation.decoding`` for the translator,
``tutorlib.translation.gpt.decoding`` for the GPT) decode the model they are
given: they sit below the checkpoints, which read models through their kinds,
which name the decoders. The convenience of ``translate("the red car")``,
which reads the shipped model, is supplied here, above both; these are the
functions ``tutorlib.translator`` and ``tutorlib.gpt`` (``tutorlib.translation.gpt``)
give learners, each the decoder's own with ``model`` defaulting to the shipped
one (``load_pretrained``).

Derived in chapters 10 (Translating and evaluating) and 13 (The translator as a GPT).
"""

from __future__ import annotations

import functools

from . import decoding
from .checkpoints import load_pretrained
from .gpt import decoding as gpt_decoding
from .gpt.checkpoints import load_pretrained as load_pretrained_gpt

__all__ = ["translate", "translate_sentences", "translate_with_alignment", "gpt_translate"]


@functools.wraps(decoding.translate)
def translate(sentences, model=None, *args, **kwargs):
    return decoding.translate(sentences, _translator(model), *args, **kwargs)


@functools.wraps(decoding.translate_sentences)
def translate_sentences(sentences, model=None, *args, **kwargs):
    return decoding.translate_sentences(sentences, _translator(model), *args, **kwargs)


@functools.wraps(decoding.translate_with_alignment)
def translate_with_alignment(sentence, model=None, *args, **kwargs):
    return decoding.translate_with_alignment(sentence, _translator(model), *args, **kwargs)


@functools.wraps(gpt_decoding.translate)
def gpt_translate(sentences, model=None, **kwargs):
    return gpt_decoding.translate(
        sentences, load_pretrained_gpt() if model is None else model, **kwargs
    )


def _translator(model):
    """``model``, or the shipped translator when it is None (its vocabularies ride with it)."""
    return load_pretrained()[0] if model is None else model
