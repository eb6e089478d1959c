"""Deprecated: the translator's config (chapter 9) lives in ``tutorlib.translation.config``.

Reading ``TranslatorConfig``, ``PRESETS`` or ``PRETRAINED_PATH`` here still works
but raises a ``DeprecationWarning`` that names their home. No torch.
"""

from __future__ import annotations

from ._moved import moved_getattr

_MOVED = dict.fromkeys(
    ["TranslatorConfig", "PRESETS", "PRETRAINED_PATH"], "tutorlib.translation.config"
)

__getattr__ = moved_getattr(__name__, _MOVED)
