"""The GPT (chapter 13): one stack of causal self-attention reads English and writes Portuguese.

Chapter 9's translator has two stacks: an encoder reads the English, a
decoder writes the Portuguese and reads the encoder through cross-attention.
A decoder-only model ("GPT") has one stack and one sequence per pair::

    [English tokens] <sep> [Portuguese tokens] <eos>

Each block is chapter 8's decoder layer without its cross-attention, which
is chapter 8's encoder layer given chapter 6's causal mask; the heads are
chapter 5's ``MultiHeadAttention``. The Portuguese positions read the
English ones inside the same self-attention.

Read top to bottom, as nanoGPT's ``model.py``: the block (``Block``, with
its KV-cache step), the model (``GPT``: embeddings, the position step
``GPT.add_positions``, the blocks under the causal mask, the norm and the
logits; ``forward_step`` with a ``KVCache``), then what training needs of it:
``build_gpt`` and the loss, taken on the Portuguese tokens and ``<eos>`` only
(``gpt_loss``; ``gpt_loss_with_prompt`` shows what goes wrong without it).

Shape letters (the book's notation page): ``B`` batch, ``L`` the whole
sequence's length, ``D`` = ``d_model``, ``H`` heads, ``Dh = D // H``, ``V`` the
vocabulary size (one for both languages). Masks are boolean, True = may
attend, as everywhere in tutorlib.

Derived in chapter 13 (The translator as a GPT).
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch
import torch.nn.functional as F
from torch import nn

from ...nn import EncoderLayer, PositionalEncoding, causal_attention_mask
from ..cache import KVCache
from ..config import GPTConfig
from ..data import SPECIALS, Batch, Vocab
from .batches import gpt_batch_from
from .tokens import SubwordTokenizer, Tokenizer, WordTokenizer

__all__ = ["Block", "GPT", "build_gpt", "gpt_loss", "gpt_loss_with_prompt"]


class Block(EncoderLayer):
    """One GPT block: masked self-attention, then feed-forward, each with a residual and a
    LayerNorm.

    Chapter 8's decoder layer without its cross-attention has exactly the
    sublayers, residuals and norms of chapter 8's encoder layer, so it *is*
    ``tutorlib.nn.EncoderLayer``; what makes it a decoder is the causal mask
    ``GPT.forward`` gives it. ``forward_step`` adds the KV cache (chapter 10's
    ``DecoderLayer.forward_step`` without the cross-attention): ``cache`` is a
    dict whose ``"self_attn"`` holds the keys and values of the positions
    before, ``(B, H, t, Dh)``; ``mask`` is None for one new position, else
    ``(T_new, t + T_new)``.

    Derived in chapter 13 (The translator as a GPT).
    """

    def forward_step(self, x: torch.Tensor, cache: dict, mask=None) -> torch.Tensor:
        attn_cache = cache.setdefault("self_attn", {})
        if self.norm_first:
            x = x + self.dropout1(self.self_attn.forward_step(self.norm1(x), attn_cache, mask=mask))
            x = x + self.dropout2(self.feed_forward(self.norm2(x)))
        else:
            x = self.norm1(x + self.dropout1(self.self_attn.forward_step(x, attn_cache, mask=mask)))
            x = self.norm2(x + self.dropout2(self.feed_forward(x)))
        return x


class GPT(nn.Module):
    """The decoder-only translator: embeddings and positions, ``num_layers`` causal ``Block`` s, a
    norm, logits.

    ::

        tokens (B, L) -> embed * sqrt(D) + positions -> Block x N (causal) -> norm
                      -> Linear -> logits (B, L, V)

    The logits at position ``i`` predict token ``i + 1``. One vocabulary
    serves both languages, so ``src_vocab`` and ``tgt_vocab`` are the same
    ``Vocab`` (both names kept so that the translator's checkpoints and
    training loop serve the GPT unchanged). With ``tie_output`` the output
    layer reads with the embedding matrix (the translator does the same);
    positions are chapter 8's sinusoids, added in ``add_positions``, the one
    place a later chapter swaps them for another scheme.

    Derived in chapter 13 (The translator as a GPT).
    """

    kind = "gpt"  # what a checkpoint records, so that load_checkpoint builds a GPT
    decoder_only = True  # how it is decoded and scored (ModernGPT, another kind, is one too)

    def __init__(
        self, config: GPTConfig, src_vocab: Vocab | None = None, tgt_vocab: Vocab | None = None
    ):
        super().__init__()
        if not isinstance(config, GPTConfig):
            raise ValueError(f"GPT needs a GPTConfig, got {type(config).__name__}")
        if config.vocab_size < len(SPECIALS):
            raise ValueError(
                f"the config has vocab_size={config.vocab_size}: set it to the vocabulary's size "
                f"(len(vocab), at least the {len(SPECIALS)} special tokens); train_gpt does it for "
                "you"
            )
        if src_vocab is not None and tgt_vocab is not None and src_vocab != tgt_vocab:
            raise ValueError(
                "a GPT reads both languages with one vocabulary, but src_vocab and tgt_vocab "
                "differ: "
                "build one with joint_vocab(pairs) and pass it as both"
            )
        vocab = src_vocab if src_vocab is not None else tgt_vocab
        if vocab is not None and len(vocab) != config.vocab_size:
            raise ValueError(
                f"the vocabulary has {len(vocab)} tokens but the config says "
                f"vocab_size={config.vocab_size}"
            )
        self.config, self.vocab = config, vocab
        c = config
        self.embed = nn.Embedding(c.vocab_size, c.d_model)
        # chapter 8's sinusoids, no parameters
        self.pos = PositionalEncoding(c.d_model, c.max_len, dropout=c.dropout)
        self.blocks = nn.ModuleList(
            Block(c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first)
            for _ in range(c.num_layers)
        )
        # pre-norm: the residual stream is normalised once after the last block
        self.norm = nn.LayerNorm(c.d_model) if c.norm_first else None
        self.generator = nn.Linear(c.d_model, c.vocab_size)  # D -> V scores, the logits
        for p in self.parameters():  # Xavier-uniform matrices, as the translator
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        if c.tie_output:
            self.generator.weight = self.embed.weight  # (V, D): one matrix reads tokens in and out

    src_vocab = property(
        lambda self: self.vocab, doc="The one vocabulary (as the translator names it)."
    )
    tgt_vocab = property(
        lambda self: self.vocab, doc="The one vocabulary (as the translator names it)."
    )

    @property
    def tokenizer(self) -> Tokenizer:
        """The model's ``Tokenizer``: its word vocabulary as a ``WordTokenizer``, or its
        ``SubwordTokenizer``."""
        if self.vocab is None:
            raise ValueError(
                "this GPT carries no vocabulary: build it with GPT(config, vocab, vocab), or use "
                "one "
                "from train_gpt(), load_gpt() or load_pretrained()"
            )
        if isinstance(self.vocab, SubwordTokenizer):
            return self.vocab
        return WordTokenizer(self.vocab)

    def add_positions(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        """The position step: ``x (B, T, D)`` of positions ``start .. start + T - 1`` -> ``(B, T,
        D)``.

        Chapter 8's sinusoids, added (then dropout). The only place the model
        learns where a token stands; override it to try another scheme.
        """
        # (B, T, D) + (T, D) -> (B, T, D)
        return self.pos.dropout(x + self.pos.pe[start : start + x.shape[1]])

    def _check_length(self, n: int) -> None:
        if n > self.config.max_len:
            raise ValueError(
                f"the sequence has {n} positions but the model was built with "
                f"max_len={self.config.max_len} "
                "(GPTConfig.max_len: the source, <sep> and the translation together): shorten it"
            )

    def forward(self, tokens: torch.Tensor, need_weights: bool = False):
        """``tokens (B, L)`` -> ``logits (B, L, V)``; with ``need_weights`` also each block's ``(B,
        H, L, L)``."""
        if not isinstance(tokens, torch.Tensor) or tokens.dim() != 2:
            got = tuple(tokens.shape) if isinstance(tokens, torch.Tensor) else type(tokens).__name__
            raise ValueError(f"GPT reads token ids of shape (B, L), got {got}")
        self._check_length(tokens.shape[1])
        # (B, L) -> (B, L, D)
        x = self.add_positions(self.embed(tokens) * math.sqrt(self.config.d_model))
        return self.stack(x, need_weights)

    def stack(self, x: torch.Tensor, need_weights: bool = False):
        """The blocks under the causal mask, the final norm and the output layer: ``x (B, L, D)`` ->
        logits.

        ``x`` holds the embedded tokens with their positions; ``forward`` is
        ``stack(add_positions(embed(tokens) * sqrt(D)))``. Separate so that a
        check can feed it vectors (``tutorlib.debug.check_causality``).
        """
        mask = causal_attention_mask(x.shape[1], device=x.device)  # (L, L): position i reads 0 .. i
        weights = []
        for block in self.blocks:
            if need_weights:
                x, w = block(x, mask, need_weights=True)
                weights.append(w)
            else:
                x = block(x, mask)
        if self.norm is not None:
            x = self.norm(x)
        logits = self.generator(x)  # (B, L, D) -> (B, L, V)
        return (logits, weights) if need_weights else logits

    def forward_step(self, tokens: torch.Tensor, cache: KVCache) -> torch.Tensor:
        """The newest ``tokens (B, T_new)``, at positions ``cache.length`` on -> ``logits (B, T_new,
        V)``.

        The first call may hand in a whole prompt (``T_new`` > 1, causal
        within it); later ones one token each. The keys and values of the
        positions before are read from ``cache`` (chapter 10's ``KVCache``,
        one dict per block) and the new ones appended.
        """
        t, T_new = cache.length, tokens.shape[1]
        self._check_length(t + T_new)
        if not cache.layers:
            cache.layers.extend({} for _ in self.blocks)
        # None for one new position (it reads every earlier one); else (T_new, t + T_new), causal
        mask = None
        if T_new > 1:
            mask = torch.ones(T_new, t + T_new, dtype=torch.bool, device=tokens.device).tril(
                diagonal=t
            )
        x = self.add_positions(self.embed(tokens) * math.sqrt(self.config.d_model), start=t)
        for block, layer_cache in zip(self.blocks, cache.layers):
            x = block.forward_step(x, layer_cache, mask)
        if self.norm is not None:
            x = self.norm(x)
        cache.length = t + T_new
        return self.generator(x)

    def num_parameters(self) -> int:
        """Parameters counted once (tied matrices are one matrix)."""
        return sum(p.numel() for p in self.parameters())


# --- what the training loop needs of it: a fresh model, the loss on the translation only ---------


def build_gpt(config: GPTConfig, src_vocab: Vocab, tgt_vocab: Vocab) -> GPT:
    """``train``'s ``build_model`` for a GPT: the config sized to the (one) vocabulary, then a fresh
    ``GPT``.

    Derived in chapter 13 (The translator as a GPT).
    """
    return GPT(replace(config, vocab_size=len(src_vocab)), src_vocab, tgt_vocab)


def gpt_loss(model: GPT, batch, config: GPTConfig, *, prompt_loss: bool = False) -> torch.Tensor:
    """Mean cross-entropy of the target tokens and ``<eos>``, with label smoothing; the prompt is
    not predicted.

    ``batch`` is a ``GPTBatch`` or a translator's ``Batch`` (converted by
    ``gpt_batch_from``), so that ``train(..., batch_loss=gpt_loss)`` runs the
    translator's loop on the translator's batches. The English is given at
    translation time: predicting it would spend the model's capacity on
    modelling English sentences, and the loss would mix that easier, longer
    part with the translation. With ``prompt_loss`` every real position
    counts (chapter 13's demonstration of what goes wrong).

    Derived in chapter 13 (The translator as a GPT).
    """
    if isinstance(batch, Batch):
        tok = model.tokenizer if getattr(model, "vocab", None) is not None else WordTokenizer
        batch = gpt_batch_from(batch, tok.sep_id, tok.eos_id)
    logits = model(batch.tokens)  # (B, L, V)
    counted = batch.real_mask if prompt_loss else batch.loss_mask  # (B, L)
    targets = batch.targets.masked_fill(~counted, -100)  # -100: cross_entropy leaves it out
    V = logits.shape[-1]
    # (B, L, V) -> (B*L, V) against (B*L,)
    return F.cross_entropy(
        logits.reshape(-1, V),
        targets.reshape(-1),
        ignore_index=-100,
        label_smoothing=config.label_smoothing,
    )


def gpt_loss_with_prompt(model: GPT, batch, config: GPTConfig) -> torch.Tensor:
    """``gpt_loss`` over the prompt too: the loss of a plain language model, for chapter 13's
    comparison.

    Derived in chapter 13 (The translator as a GPT).
    """
    return gpt_loss(model, batch, config, prompt_loss=True)
