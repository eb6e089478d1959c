"""The translator as a GPT (chapters 13 to 15), as learners meet it: a stable public API.

Every public name of the GPT's package, ``tutorlib.translation.gpt`` (its tokens, batches,
model and decoding), and of the modules that sit above the package's face:
``tutorlib.translation.gpt.modern`` (chapter 15's ``ModernGPT``, ``group_kv_heads``),
``tutorlib.translation.gpt.latent`` (chapter 17's ``LatentGPT``),
``tutorlib.translation.gpt.checkpoints`` (``save_gpt``, ``load_gpt``, ``load_pretrained``,
the commands that made the shipped GPTs) and ``tutorlib.translation.gpt.training``
(``train_gpt``, ``train_modern_gpt``), all but ``modern``'s ``attention`` (its blocks'
builder, too general a name out of its module); ``translate`` takes the shipped GPT when no model
is given (``tutorlib.translation.shipped.gpt_translate``)::

    from tutorlib import gpt

    gpt.translate("the red car")                                  # the shipped subword GPT
    gpt.translate("the red car", gpt.load_pretrained("words"))    # chapter 13's, on words

The package's own face cannot name those three: ``tutorlib.translation.kinds`` imports the
package's model modules (and importing one runs the package's ``__init__``), while the
checkpoints and the loop import ``kinds``. This module sits above all of them, so the
chapters and exercises take every GPT name from here, and tutorlib's own code from the
homes.
"""

from __future__ import annotations

from .translation import gpt as _package
from .translation.gpt import *  # noqa: F403 (the face is the point)
from .translation.gpt import batches as _batches
from .translation.gpt import checkpoints as _checkpoints
from .translation.gpt import latent as _latent
from .translation.gpt import modern as _modern
from .translation.gpt import training as _training
from .translation.gpt.batches import gpt_batcher  # noqa: F401 (each named in __all__ below)
from .translation.gpt.checkpoints import (  # noqa: F401
    PRETRAINED_GPT_COMMAND,
    PRETRAINED_GPT_COMMANDS,
    load_gpt,
    load_pretrained,
    save_gpt,
)
from .translation.gpt.latent import (  # noqa: F401
    LatentGPT,
    LatentGPTConfig,
    build_latent_gpt,
    latent_config,
)
from .translation.gpt.modern import (  # noqa: F401
    ModernGPT,
    ModernGPTConfig,
    build_modern_gpt,
    group_kv_heads,
    modern_config,
)
from .translation.gpt.training import train_gpt, train_modern_gpt  # noqa: F401
from .translation.shipped import gpt_translate as translate  # noqa: F401

__all__ = list(
    dict.fromkeys(
        [
            *_package.__all__,
            *_batches.__all__,
            *(name for name in _modern.__all__ if name != "attention"),
            *_latent.__all__,
            *_checkpoints.__all__,
            *_training.__all__,
            "translate",
        ]
    )
)
