"""Deprecated: chapter 15's GPT (RoPE and grouped-query attention in every block) lives in
``tutorlib.translation.gpt.modern``.

The model (``ModernGPTConfig``, ``ModernGPT``, ``modern_config``, ``group_kv_heads``)
is in ``tutorlib.translation.gpt.modern``, its training (``train_modern_gpt``) in
``tutorlib.translation.gpt.training``. Reading one of them here still works but
raises a ``DeprecationWarning`` that names its home.
"""

from __future__ import annotations

from ._moved import moved_getattr

_MOVED = {
    **dict.fromkeys(
        ["ModernGPTConfig", "ModernGPT", "modern_config", "group_kv_heads"],
        "tutorlib.translation.gpt.modern",
    ),
    "train_modern_gpt": "tutorlib.translation.gpt.training",
}

__getattr__ = moved_getattr(__name__, _MOVED)
