"""The translator as a GPT (chapter 13), as learners meet it: a stable public API.

Every public name of the GPT's package, ``tutorlib.translation.gpt`` (its tokens, batches,
model and decoding), and of the two modules above it, ``tutorlib.translation.gpt.checkpoints``
(``save_gpt``, ``load_gpt``, ``load_pretrained``) and ``tutorlib.translation.gpt.training``
(``train_gpt``), with ``translate`` taking the shipped GPT when no model is given
(``tutorlib.translation.shipped.gpt_translate``)::

    from tutorlib import gpt

    gpt.translate("the red car")                                  # the shipped subword GPT
    gpt.translate("the red car", gpt.load_pretrained("words"))    # chapter 13's, on words

The package's own face cannot name the checkpoints and the loop: they sit above
``tutorlib.translation.kinds``, which imports the package's model modules (and importing
one runs the package's ``__init__``). This module sits above all of them, so the chapters
and exercises take every GPT name from here, and tutorlib's own code from the homes.
"""

from __future__ import annotations

from .translation import gpt as _package
from .translation.gpt import *  # noqa: F403 (the face is the point)
from .translation.gpt.checkpoints import (  # noqa: F401 (PRETRAINED_GPT_COMMAND: not in __all__)
    PRETRAINED_GPT_COMMAND,
    load_gpt,
    load_pretrained,
    save_gpt,
)
from .translation.gpt.training import train_gpt
from .translation.shipped import gpt_translate as translate

__all__ = list(_package.__all__) + [
    "translate",
    "train_gpt",
    "save_gpt",
    "load_gpt",
    "load_pretrained",
]
