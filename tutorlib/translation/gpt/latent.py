"""Chapter 15's GPT with multi-head latent attention in every block (chapter 17).

``LatentGPT`` is chapter 15's ``ModernGPT`` (``tutorlib.translation.gpt.modern``)
whose blocks attend with ``tutorlib.latent.MultiHeadLatentAttention``: every
head keeps its own key and value, read out of a latent of ``Dc`` numbers per
token, and positions enter through the decoupled RoPE part (``Dr`` numbers).
Everything else is chapter 13's and 15's: the embeddings, the feed-forward
networks, the loss, greedy decoding with a ``KVCache`` (whose block dicts now
hold ``latent`` and ``k_rope``), BLEU, the checkpoints (kind ``"latent_gpt"``)
and the training loop (``train_modern_gpt``).

- ``LatentGPTConfig``: ``ModernGPTConfig`` and two fields, ``d_latent`` (Dc) and
  ``d_rope`` (Dr); RoPE is required (``rope_base``), and there are no
  key/value heads to group (``num_kv_heads`` stays None).
- ``latent_config``: one with the sizes and training of a base config.
- ``LatentGPT``, ``build_latent_gpt``: the model, and one sized to a vocabulary.

Shape letters as in ``tutorlib.latent``: ``D`` = ``d_model``, ``H`` heads,
``Dh`` the width of one head, ``Dc`` the latent, ``Dr`` the RoPE part.

Derived in chapter 17 (Attention at serving scale).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...checks import whole_number
from ...latent import MultiHeadLatentAttention, _rope_width
from ..config import GPT_PRESETS, GPTConfig
from .modern import ModernGPT, ModernGPTConfig

__all__ = ["LatentGPTConfig", "LatentGPT", "latent_config", "build_latent_gpt"]


@dataclass
class LatentGPTConfig(ModernGPTConfig):
    """``ModernGPTConfig`` with multi-head latent attention: ``d_latent`` (Dc), ``d_rope`` (Dr).

    Derived in chapter 17 (Attention at serving scale).
    """

    d_latent: int = 32  # Dc, the latent c_KV each block caches per token
    d_rope: int = 8  # Dr, the decoupled RoPE query of a head and the shared RoPE key

    def __post_init__(self):
        super().__post_init__()
        whole_number("d_latent", self.d_latent, 1, hint="the latent the cache keeps per token")
        _rope_width(self.d_rope)
        if self.rope_base is None:
            raise ValueError(
                "multi-head latent attention carries positions in its decoupled RoPE part: "
                "give rope_base (10000.0, as chapter 15's RoPE models)"
            )
        if self.num_kv_heads is not None:
            raise ValueError(
                f"num_kv_heads={self.num_kv_heads}: with latent attention every head reads its "
                "own key and value out of the latent; leave num_kv_heads None"
            )

    def cache_numbers_per_token(self) -> int:
        """What one block caches of one token: ``d_latent + d_rope`` numbers."""
        return self.d_latent + self.d_rope


def latent_config(
    base: GPTConfig | None = None, d_latent: int = 32, d_rope: int = 8, rope_base=10000.0
) -> LatentGPTConfig:
    """A ``LatentGPTConfig`` with the sizes and training of ``base`` (``GPT_PRESETS["tiny"]``).

    Derived in chapter 17 (Attention at serving scale).
    """
    base = GPT_PRESETS["tiny"] if base is None else base
    if not isinstance(base, GPTConfig):
        raise ValueError(f"base must be a GPTConfig, got {type(base).__name__}")
    own = ("num_kv_heads", "rope_base", "d_latent", "d_rope")
    sizes = {k: v for k, v in base.to_dict().items() if k not in own}
    return LatentGPTConfig(**sizes, rope_base=rope_base, d_latent=d_latent, d_rope=d_rope)


class LatentGPT(ModernGPT):
    """Chapter 15's GPT whose blocks attend with ``MultiHeadLatentAttention``.

    ``config`` is a ``LatentGPTConfig``. ``forward_step`` (and so
    ``generate``, ``translate``, ``evaluate``) fills a ``KVCache`` whose block
    dicts hold ``latent (B, t, Dc)`` and ``k_rope (B, t, Dr)``;
    ``tutorlib.translation.gpt.decoding.kv_cache_bytes`` counts them. Saved
    and loaded as kind ``"latent_gpt"``.

    Derived in chapter 17 (Attention at serving scale).
    """

    kind = "latent_gpt"

    def __init__(self, config: LatentGPTConfig, src_vocab=None, tgt_vocab=None):
        if not isinstance(config, LatentGPTConfig):
            raise ValueError(
                f"LatentGPT needs a LatentGPTConfig, got {type(config).__name__}: "
                "latent_config(base, d_latent=..., d_rope=...) makes one"
            )
        super().__init__(config, src_vocab, tgt_vocab)

    @staticmethod
    def attention(config: LatentGPTConfig) -> MultiHeadLatentAttention:
        """One block's self-attention: ``H`` heads, a latent of ``Dc``, a RoPE part of ``Dr``."""
        c = config
        return MultiHeadLatentAttention(
            c.d_model, c.num_heads, c.d_latent, c.d_rope, c.dropout, rope_base=c.rope_base
        )


def build_latent_gpt(config: LatentGPTConfig, src_vocab, tgt_vocab) -> LatentGPT:
    """``train``'s ``build_model`` for a ``LatentGPT``: the config sized to the vocabulary.

    Derived in chapter 17 (Attention at serving scale).
    """
    return LatentGPT(replace(config, vocab_size=len(src_vocab)), src_vocab, tgt_vocab)
