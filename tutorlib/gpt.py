"""The translator as a GPT (chapter 13): ``tutorlib.gpt`` is the short name of
``tutorlib.translation.gpt``.

The decoder-only model lives in the translation stack because it shares
the translator's data, training loop and checkpoints; this module gives it
the name the chapters use. Every public name of
``tutorlib.translation.gpt`` is importable here::

    from tutorlib.gpt import GPT, GPTConfig, train_gpt, translate
"""

from __future__ import annotations

from .translation import gpt as _gpt
from .translation.gpt import *  # noqa: F403 (the re-export is the point)
from .translation.gpt.checkpoints import (  # noqa: F401 (PRETRAINED_GPT_COMMAND: not in __all__)
    PRETRAINED_GPT_COMMAND,
    load_gpt,
    load_pretrained,
    save_gpt,
)
from .translation.gpt.training import train_gpt
from .translation.shipped import gpt_translate as translate

__all__ = list(_gpt.__all__) + [
    "translate",
    "train_gpt",
    "save_gpt",
    "load_gpt",
    "load_pretrained",
]
