"""The translator of chapters 9 and 10, as learners call it: a stable public API.

Four names stay here for good, and warn about nothing:

- ``translate(sentences, model=None, ...)``  English into Portuguese (the shipped
  translator when no model is given), unknown words copied through cross-attention
- ``translate_sentences``                    the same for a list of sentences
- ``translate_with_alignment``               a translation with the source word each output
  word attended to most
- ``load_pretrained()``                      the shipped model and its two vocabularies

    >>> from tutorlib.translator import load_pretrained, translate
    >>> model, src_vocab, tgt_vocab = load_pretrained()
    >>> translate("the red car", model)
    'o carro vermelho'

They live in ``tutorlib.translation.shipped`` and ``tutorlib.translation.checkpoints``.
Every other name this module used to re-export moved to the translation stack
(``tutorlib.translation``); reading it here still works but raises a
``DeprecationWarning`` that names its home (``_MOVED`` below).
"""

from __future__ import annotations

from ._moved import moved_getattr
from .translation.checkpoints import load_pretrained
from .translation.shipped import translate, translate_sentences, translate_with_alignment

__all__ = ["translate", "translate_sentences", "translate_with_alignment", "load_pretrained"]

_CHECKPOINTS = "tutorlib.translation.checkpoints"
_DECODING = "tutorlib.translation.decoding"
_DATA = "tutorlib.translation.data"
_MOVED = {
    "TranslatorConfig": "tutorlib.translation.config",
    "PRESETS": "tutorlib.translation.config",
    "PRETRAINED_PATH": "tutorlib.translation.config",
    "Translator": "tutorlib.translation.model",
    "KVCache": "tutorlib.translation.cache",
    "output_budget": "tutorlib.translation.guards",
    "MAX_RUN": "tutorlib.translation.guards",
    "NO_REPEAT_NGRAM": "tutorlib.translation.guards",
    "greedy_decode": _DECODING,
    "beam_search": _DECODING,
    "length_penalty_factor": _DECODING,
    "model_vocabs": _DECODING,
    "Translation": _DECODING,
    "cross_attention": _DECODING,
    "cross_attention_maps": _DECODING,
    "ALIGN_LAYER": _DECODING,
    "evaluate": "tutorlib.translation.evaluation",
    "load_checkpoint": _CHECKPOINTS,
    "save_model": _CHECKPOINTS,
    "read_checkpoint": _CHECKPOINTS,
    "CheckpointError": _CHECKPOINTS,
    "pick_device": _CHECKPOINTS,
    "CHECKPOINT_NAME": _CHECKPOINTS,
    "MODEL_NAME": _CHECKPOINTS,
    "FORMAT": _CHECKPOINTS,
    "FORMAT_VERSION": _CHECKPOINTS,
    "PAD_ID": _DATA,
    "BOS_ID": _DATA,
    "EOS_ID": _DATA,
    "UNK_ID": _DATA,
    "SPECIALS": _DATA,
    "Vocab": _DATA,
}

__getattr__ = moved_getattr(__name__, _MOVED)
