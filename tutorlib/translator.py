"""The English -> Portuguese translator of chapters 9 and 10: moved to ``tutorlib.translation``.

These names stay importable here, as the chapters, exercises and tests
import them. Where each one lives now:

- ``tutorlib.translation.config``       ``TranslatorConfig``, ``PRESETS``, ``PRETRAINED_PATH``
- ``tutorlib.translation.model``        ``Translator``
- ``tutorlib.translation.cache``        ``KVCache``
- ``tutorlib.translation.decoding``     ``output_budget``, ``greedy_decode``,
  ``beam_search``, ``length_penalty_factor``, ``model_vocabs``, ``Translation``,
  ``cross_attention``, ``cross_attention_maps``
- ``tutorlib.translation.shipped``      ``translate``, ``translate_sentences``,
  ``translate_with_alignment``: the decoder's, with the shipped translator as the default model
- ``tutorlib.translation.evaluation``   ``evaluate``
- ``tutorlib.translation.checkpoints``  ``load_pretrained``, ``load_checkpoint``, ``save_model``,
  ``read_checkpoint``, ``CheckpointError``, ``pick_device``
- ``tutorlib.translation.data``         the special tokens' ids (``PAD_ID``, ``BOS_ID``, ...)

    >>> from tutorlib.translator import load_pretrained, translate
    >>> model, src_vocab, tgt_vocab = load_pretrained()
    >>> translate("the red car", model)
    'o carro vermelho'
"""

from __future__ import annotations

from .translation.cache import KVCache
from .translation.checkpoints import (  # noqa: F401 (re-exported; the private names as they were)
    CHECKPOINT_NAME,
    FORMAT,
    FORMAT_VERSION,
    MODEL_NAME,
    CheckpointError,
    load_checkpoint,
    load_pretrained,
    pick_device,
    read_checkpoint,
    save_model,
)
from .translation.checkpoints import atomic_save as _atomic_save  # noqa: F401
from .translation.checkpoints import model_from_state as _model_from_state  # noqa: F401
from .translation.checkpoints import model_state as _model_state  # noqa: F401
from .translation.config import PRESETS, PRETRAINED_PATH, TranslatorConfig
from .translation.data import BOS_ID, EOS_ID, PAD_ID, SPECIALS, UNK_ID, Vocab  # noqa: F401
from .translation.decoding import (  # noqa: F401 (re-exported; the private names as they were)
    ALIGN_LAYER,
    MAX_RUN,
    NO_REPEAT_NGRAM,
    Translation,
    _budgets,
    _repetition_mask,
    beam_search,
    cross_attention,
    cross_attention_maps,
    greedy_decode,
    length_penalty_factor,
    model_vocabs,
    output_budget,
)
from .translation.decoding import model_vocabs as _vocabs  # noqa: F401
from .translation.evaluation import evaluate
from .translation.model import Translator
from .translation.shipped import translate, translate_sentences, translate_with_alignment

__all__ = [
    "TranslatorConfig",
    "PRESETS",
    "Translator",
    "KVCache",
    "greedy_decode",
    "beam_search",
    "length_penalty_factor",
    "translate",
    "translate_sentences",
    "translate_with_alignment",
    "Translation",
    "cross_attention",
    "cross_attention_maps",
    "ALIGN_LAYER",
    "MAX_RUN",
    "NO_REPEAT_NGRAM",
    "evaluate",
    "load_pretrained",
    "PRETRAINED_PATH",
    "CheckpointError",
    "pick_device",
    "save_model",
    "read_checkpoint",
    "load_checkpoint",
    "CHECKPOINT_NAME",
    "MODEL_NAME",
    "output_budget",
    "model_vocabs",
]
