"""Moved to ``tutorlib.translation.config``; these names stay importable here (torch-free).

Derived in chapter 9 (Training a translator).
"""

from .translation.config import PRESETS, PRETRAINED_PATH, TranslatorConfig

__all__ = ["TranslatorConfig", "PRESETS", "PRETRAINED_PATH"]
