"""The translator as a GPT (chapter 13), as learners call it: a stable public API.

Two names stay here for good, and warn about nothing:

- ``translate(sentences, model=None, ...)``  English into Portuguese with chapter 13's GPT (the
  shipped subword GPT when no model is given), unknown words copied
- ``load_pretrained(tokens="bpe")``         a shipped GPT, in eval mode (``"words"``: the one
  on chapter 9's words)

    from tutorlib.gpt import load_pretrained, translate

    translate("the red car")                             # the shipped subword GPT
    translate("the red car", load_pretrained("words"))   # chapter 13's, on words

They live in ``tutorlib.translation.shipped`` and ``tutorlib.translation.gpt.checkpoints``.
The GPT's other names moved to its package, ``tutorlib.translation.gpt``; reading one
here still works but raises a ``DeprecationWarning`` that names that home.
"""

from __future__ import annotations

from ._moved import moved_getattr
from .translation.gpt.checkpoints import load_pretrained
from .translation.shipped import gpt_translate as translate

__all__ = ["translate", "load_pretrained"]

_MOVED = dict.fromkeys(
    [
        "GPTConfig",
        "GPT_PRESETS",
        "PRETRAINED_GPT_PATH",
        "PRETRAINED_GPT_WORDS_PATH",
        "Tokenizer",
        "WordTokenizer",
        "SubwordTokenizer",
        "joint_vocab",
        "splitter",
        "gpt_sequence",
        "GPTBatch",
        "make_gpt_batch",
        "gpt_batch_from",
        "make_gpt_batches",
        "fits_gpt",
        "Block",
        "GPT",
        "build_gpt",
        "gpt_loss",
        "gpt_loss_with_prompt",
        "filter_logits",
        "generate",
        "kv_cache_bytes",
        "cross_attention_pattern",
        "train_gpt",
        "save_gpt",
        "load_gpt",
    ],
    "tutorlib.translation.gpt",
)
_MOVED["PRETRAINED_GPT_COMMAND"] = "tutorlib.translation.gpt.checkpoints"

__getattr__ = moved_getattr(__name__, _MOVED)
