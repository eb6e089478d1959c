"""Chapter 13's GPT with chapter 15's attention: RoPE and grouped-query attention in every block.

The GPT of chapter 13 (``tutorlib.translation.gpt.model``) is built so that a
later chapter can swap its parts: positions enter in one method
(``GPT.add_positions``) and each block's self-attention is one module
(``block.self_attn``). ``ModernGPT`` swaps both and keeps everything else: the
embeddings, the feed-forward networks and norms, the loss (``gpt_loss``),
greedy decoding with a KV cache (``generate``, ``translate``), BLEU
(``evaluate``), the checkpoints (kind ``"modern_gpt"``) and the training loop
(``train_modern_gpt``, in ``tutorlib.translation.gpt.training``).

- ``ModernGPTConfig``: ``GPTConfig`` and two fields, ``num_kv_heads`` (Hkv) and
  ``rope_base`` (None: chapter 8's sinusoids).
- ``ModernGPT``: the model; with ``Hkv == H`` and no RoPE it *is* chapter 13's
  GPT (the same state dict, the same logits). ``build_modern_gpt`` makes one
  sized to a vocabulary.
- ``group_kv_heads``: a trained model's key/value heads mean-pooled into fewer
  (Ainslie et al. 2023), the start of a short further training.

This module is their home (``tutorlib.modern_gpt`` held them before).
``tutorlib.modern``, a layer of the course, imports nothing of the translator.

Shape letters as in ``tutorlib.modern``: ``D`` = ``d_model``, ``H`` query heads,
``Hkv`` key/value heads, ``G = H / Hkv`` query heads per key/value head,
``Dh`` the width of one head.

Derived in chapter 15 (Attention in today's models).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import torch
from torch import nn

from ...checks import whole_number
from ...modern import GroupedQueryAttention, _check_base, _odd_width
from ..config import GPT_PRESETS, GPTConfig
from .model import GPT

__all__ = [
    "ModernGPTConfig",
    "ModernGPT",
    "modern_config",
    "build_modern_gpt",
    "attention",
    "group_kv_heads",
]


@dataclass
class ModernGPTConfig(GPTConfig):
    """``GPTConfig`` and chapter 15's two choices; the defaults are chapter 13's GPT.

    Derived in chapter 15 (Attention in today's models).
    """

    num_kv_heads: int | None = None  # Hkv; None: one per query head (multi-head)
    rope_base: float | None = None  # None: chapter 8's sinusoids; a number: RoPE's base

    def __post_init__(self):
        super().__post_init__()
        if self.num_kv_heads is not None:
            kv = whole_number("num_kv_heads", self.num_kv_heads, 1, self.num_heads)
            if self.num_heads % kv:
                raise ValueError(
                    f"num_kv_heads={kv} does not divide num_heads={self.num_heads}: each "
                    "key/value head serves a whole group of query heads"
                )
        if self.rope_base is not None:
            _check_base(self.rope_base)
            if (self.d_model // self.num_heads) % 2:
                raise ValueError(_odd_width(self.d_model // self.num_heads))

    @property
    def kv_heads(self) -> int:
        """Hkv as a number: ``num_kv_heads``, or ``num_heads`` when it is None."""
        return self.num_heads if self.num_kv_heads is None else self.num_kv_heads


def attention(config: ModernGPTConfig) -> GroupedQueryAttention:
    """One block's self-attention as ``config`` describes it: ``H`` query heads, ``Hkv``
    key/value heads, RoPE or none. The one place a ``ModernGPT``'s attention is built.

    Derived in chapter 15 (Attention in today's models).
    """
    c = config
    return GroupedQueryAttention(
        c.d_model, c.num_heads, c.kv_heads, c.dropout, rope_base=c.rope_base
    )


def modern_config(
    base: GPTConfig | None = None, num_kv_heads: int | None = None, rope_base=None
) -> ModernGPTConfig:
    """A ``ModernGPTConfig`` with the sizes and training of ``base`` (``GPT_PRESETS["tiny"]``).

    Derived in chapter 15 (Attention in today's models).
    """
    base = GPT_PRESETS["tiny"] if base is None else base
    if not isinstance(base, GPTConfig):
        raise ValueError(f"base must be a GPTConfig, got {type(base).__name__}")
    sizes = {k: v for k, v in base.to_dict().items() if k not in ("num_kv_heads", "rope_base")}
    return ModernGPTConfig(**sizes, num_kv_heads=num_kv_heads, rope_base=rope_base)


class ModernGPT(GPT):
    """Chapter 13's GPT whose blocks attend with ``GroupedQueryAttention``, with RoPE or sinusoids.

    ``config`` is a ``ModernGPTConfig``. With ``rope_base`` each block turns
    its queries and keys (``apply_rope``) and ``add_positions`` adds nothing
    to the tokens; without, the tokens get chapter 8's sinusoids as in
    chapter 13. ``tutorlib.translation.gpt.generate`` decodes it with its KV cache:
    ``Block.forward_step`` calls ``GroupedQueryAttention.forward_step``, whose
    cache holds ``Hkv`` heads per block and turns the new queries and keys at
    their positions. ``save_model`` writes it as chapter 13's file with
    ``kind="modern_gpt"`` (its config with ``num_kv_heads`` and ``rope_base``),
    and ``load_checkpoint`` builds it back.

    Derived in chapter 15 (Attention in today's models).
    """

    kind = "modern_gpt"  # what a checkpoint records, so that load_checkpoint builds a ModernGPT

    def __init__(self, config: ModernGPTConfig, src_vocab=None, tgt_vocab=None):
        if not isinstance(config, ModernGPTConfig):
            raise ValueError(
                f"ModernGPT needs a ModernGPTConfig, got {type(config).__name__}: "
                "modern_config(base, num_kv_heads=..., rope_base=...) makes one"
            )
        super().__init__(config, src_vocab, tgt_vocab)
        c = config
        for block in self.blocks:  # the same Xavier-uniform matrices as GPT's own heads
            attn = self.attention(c)
            for p in attn.parameters():
                if p.dim() > 1:
                    nn.init.xavier_uniform_(p)
            block.self_attn = attn

    @staticmethod
    def attention(config: ModernGPTConfig) -> nn.Module:
        """One block's self-attention: ``attention(config)``; a subclass swaps it
        (chapter 17's ``LatentGPT``)."""
        return attention(config)

    def add_positions(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        """Chapter 13's sinusoids added to ``x (B, T, D)``, or with RoPE nothing (then dropout).

        With RoPE the positions enter inside every attention, where the
        queries and keys are turned; ``forward_step``'s cache counts them.
        """
        if self.config.rope_base is None:
            return super().add_positions(x, start)
        return self.pos.dropout(x)


def build_modern_gpt(config: ModernGPTConfig, src_vocab, tgt_vocab) -> ModernGPT:
    """``train``'s ``build_model`` for a ``ModernGPT``: the config sized to the (one)
    vocabulary, then a fresh model.

    Derived in chapter 15 (Attention in today's models).
    """
    return ModernGPT(replace(config, vocab_size=len(src_vocab)), src_vocab, tgt_vocab)


@torch.no_grad()
def group_kv_heads(model: ModernGPT, num_kv_heads: int) -> ModernGPT:
    """A copy of ``model`` with ``num_kv_heads`` key/value heads, each the mean of its group's.

    The recipe of Ainslie et al. (2023, "GQA: Training Generalized
    Multi-Query Transformer Models from Multi-Head Checkpoints", section
    2.1): the key projection (and the value projection) of each group of
    ``G = Hkv_old / num_kv_heads`` heads becomes the mean of the group's
    projections, weights and biases; queries, outputs and the rest are
    copied. Query head ``h`` keeps reading the group that held its own head
    (``repeat_kv``'s order). The pooled model is a starting point: a short
    further training (``train_modern_gpt(None, ..., model=pooled)``) lets the
    query heads adapt to the keys they now share.

    Derived in chapter 15 (Attention in today's models).
    """
    if not isinstance(model, ModernGPT):
        raise ValueError(f"group_kv_heads pools a ModernGPT, got {type(model).__name__}")
    if not isinstance(model.blocks[0].self_attn, GroupedQueryAttention):
        raise ValueError(
            f"group_kv_heads pools key/value heads, but {type(model).__name__}'s blocks attend "
            f"with {type(model.blocks[0].self_attn).__name__}, which has none to pool"
        )
    c = model.config
    have = c.kv_heads
    num_kv_heads = whole_number("num_kv_heads", num_kv_heads, 1, have)
    if have % num_kv_heads:
        raise ValueError(
            f"the model has {have} key/value heads, which {num_kv_heads} groups cannot share "
            "evenly: pool into a divisor of it"
        )
    pooled = copy.deepcopy(model)
    pooled.config = replace(c, num_kv_heads=num_kv_heads)
    G, Dh = have // num_kv_heads, c.d_model // c.num_heads
    for block in pooled.blocks:
        old = block.self_attn
        new = attention(pooled.config).to(old.w_q.weight)
        new.w_q.load_state_dict(old.w_q.state_dict())
        new.w_o.load_state_dict(old.w_o.state_dict())
        for name in ("w_k", "w_v"):
            before, after = getattr(old, name), getattr(new, name)
            # (Hkv_old * Dh, D) -> (Hkv, G, Dh, D) -> mean over G -> (Hkv * Dh, D)
            w = before.weight.reshape(num_kv_heads, G, Dh, c.d_model).mean(dim=1)
            after.weight.copy_(w.reshape(num_kv_heads * Dh, c.d_model))
            if before.bias is not None:
                # (Hkv_old * Dh,) -> (Hkv, G, Dh) -> mean over G -> (Hkv * Dh,)
                after.bias.copy_(before.bias.reshape(num_kv_heads, G, Dh).mean(dim=1).flatten())
        new.train(old.training)
        block.self_attn = new
    return pooled
