"""The translator as a GPT (chapter 13): one stack of causal self-attention reads English and writes
Portuguese.

Chapter 9's translator has two stacks; a decoder-only model ("GPT") has one
and one sequence per pair, ``[English tokens] <sep> [Portuguese tokens] <eos>``.
It shares the translator's data, training loop and checkpoints; its own
parts, one module each, in the translator's seams (read bottom up):

- ``tokens``       ``Tokenizer``, ``WordTokenizer`` (chapter 9's words),
  ``SubwordTokenizer`` (chapter 14's byte-level BPE), ``joint_vocab``, ``splitter``
- ``batches``      the sequence layout, ``GPTBatch`` and its loss mask, ``make_gpt_batch``,
  ``gpt_batch_from``, ``make_gpt_batches``, ``fits_gpt``, ``gpt_batcher``
- ``model``        ``Block``, ``GPT`` (as nanoGPT's ``model.py``, in this course's
  notation), ``build_gpt``, ``gpt_loss``, ``gpt_loss_with_prompt``
- ``modern``       chapter 15's ``ModernGPT`` (RoPE, grouped-query attention), ``ModernGPTConfig``,
  ``modern_config``, ``group_kv_heads`` (imported from there)
- ``decoding``     ``filter_logits``, ``generate`` (greedy and sampling, KV cache),
  ``kv_cache_bytes``, ``cross_attention_pattern``, ``translate`` (of a given model)
- ``checkpoints``  ``save_gpt``, ``load_gpt``, ``load_pretrained`` (the shipped GPTs)
- ``training``     ``train_gpt``, ``train_modern_gpt``: the translator's loop on the GPT's kind

Every public name is importable here, the GPT's public face (``tutorlib.gpt`` keeps
only ``translate`` and ``load_pretrained``, the stable API learners type); ``translate``
here is ``tutorlib.translation.shipped.gpt_translate``: the decoder's, with the
shipped GPT as its default model. The names of the files, the loop and that
default are imported when first asked for (``__getattr__``), as they sit above
``tutorlib.translation.kinds``, which imports the model modules of this package.

Shape letters (the book's notation page): ``B`` batch, ``S`` source length,
``T`` target length, ``L`` the whole sequence's length, ``D`` = ``d_model``,
``H`` heads, ``Dh = D // H``, ``V`` the vocabulary size (one for both
languages). Masks are boolean, True = may attend, as everywhere in tutorlib.
"""

from __future__ import annotations

from ..config import GPT_PRESETS, PRETRAINED_GPT_PATH, PRETRAINED_GPT_WORDS_PATH, GPTConfig
from .batches import (
    GPTBatch,
    fits_gpt,
    gpt_batch_from,
    gpt_sequence,
    make_gpt_batch,
    make_gpt_batches,
)
from .decoding import cross_attention_pattern, filter_logits, generate, kv_cache_bytes
from .model import GPT, Block, build_gpt, gpt_loss, gpt_loss_with_prompt
from .tokens import SubwordTokenizer, Tokenizer, WordTokenizer, joint_vocab, splitter

__all__ = [
    "GPTConfig",
    "GPT_PRESETS",
    "PRETRAINED_GPT_PATH",
    "PRETRAINED_GPT_WORDS_PATH",
    "Tokenizer",
    "WordTokenizer",
    "SubwordTokenizer",
    "joint_vocab",
    "gpt_sequence",
    "GPTBatch",
    "make_gpt_batch",
    "gpt_batch_from",
    "make_gpt_batches",
    "Block",
    "GPT",
    "gpt_loss",
    "gpt_loss_with_prompt",
    "filter_logits",
    "generate",
    "kv_cache_bytes",
    "cross_attention_pattern",
    "translate",
    "build_gpt",
    "fits_gpt",
    "splitter",
    "train_gpt",
    "save_gpt",
    "load_gpt",
    "load_pretrained",
]


def __getattr__(name: str):
    """The names of the layers above the model kinds (the files, the loop, the shipped default),
    imported when first asked for: ``tutorlib.translation.kinds`` and the checkpoints import
    this package's model modules, which must not wait for the layers above them."""
    if name in ("save_gpt", "load_gpt", "load_pretrained", "PRETRAINED_GPT_COMMAND"):
        from . import checkpoints

        value = getattr(checkpoints, name)  # PRETRAINED_GPT_COMMAND: documented, not in __all__
    elif name == "train_gpt":
        from .training import train_gpt as value
    elif name == "translate":
        from ..shipped import gpt_translate as value
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
