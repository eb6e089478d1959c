"""Chapter 13's GPT with chapter 15's attention: RoPE and grouped-query attention in every block.

The chapter's name for ``tutorlib.translation.gpt.modern`` (the model:
``ModernGPTConfig``, ``ModernGPT``, ``modern_config``, ``group_kv_heads``) and
``tutorlib.translation.gpt.training.train_modern_gpt`` (chapter 9's loop on
it). A ``ModernGPT`` is a model kind of the translation stack
(``"modern_gpt"``, ``tutorlib.translation.kinds``): ``save_model`` writes it
and ``load_checkpoint`` builds it back, as chapter 13's GPT.

Derived in chapter 15 (Attention in today's models).
"""

from __future__ import annotations

from .translation.gpt.modern import ModernGPT, ModernGPTConfig, group_kv_heads, modern_config
from .translation.gpt.training import train_modern_gpt

__all__ = ["ModernGPTConfig", "ModernGPT", "modern_config", "train_modern_gpt", "group_kv_heads"]
