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
  ``modern_config``, ``group_kv_heads``
- ``latent``       chapter 17's ``LatentGPT`` (multi-head latent attention), ``LatentGPTConfig``,
  ``latent_config``
- ``decoding``     ``filter_logits``, ``generate`` (greedy and sampling, KV cache),
  ``kv_cache_bytes``, ``cross_attention_pattern``, ``translate`` (of a given model)
- ``checkpoints``  ``save_gpt``, ``load_gpt``, ``load_pretrained`` (the shipped GPTs)
- ``training``     ``train_gpt``, ``train_modern_gpt``: the translator's loop on the GPT's kind

This package's face imports only its lower modules (tokens, batches, model,
decoding, and the config): ``tutorlib.translation.kinds`` imports the model modules,
and importing one runs this ``__init__`` first, so it must not reach above them.
Import ``modern``, ``latent``, the files (``checkpoints``) and the loop (``training``) from their
modules. ``tutorlib.gpt`` names all of them for learners, with the shipped GPT as
``translate``'s default model.

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
    "build_gpt",
    "fits_gpt",
    "splitter",
]
