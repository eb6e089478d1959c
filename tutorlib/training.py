"""Training the translator (chapter 9): moved to ``tutorlib.translation.training``.

These names stay importable here, as the chapters, exercises and tests
import them; the checkpoint names come from
``tutorlib.translation.checkpoints``, as they did through this module.
"""

from __future__ import annotations

from .translation.checkpoints import (  # noqa: F401 (re-exported)
    CHECKPOINT_NAME,
    MODEL_NAME,
    CheckpointError,
    load_checkpoint,
    pick_device,
    read_checkpoint,
    save_model,
)
from .translation.checkpoints import atomic_save as _atomic_save  # noqa: F401 (their names before)
from .translation.checkpoints import model_from_state as _model_from_state  # noqa: F401
from .translation.checkpoints import model_state as _model_state  # noqa: F401
from .translation.config import TranslatorConfig  # noqa: F401
from .translation.model import Translator  # noqa: F401
from .translation.training import (  # noqa: F401 (re-exported)
    TOO_LONG_SHARE,
    TrainResult,
    TrainState,
    build_vocabs,
    learning_rate,
    make_optimizer,
    plot_history,
    train,
    translation_loss,
    translator_loss,
)

__all__ = [
    "CheckpointError",
    "TrainResult",
    "pick_device",
    "translation_loss",
    "learning_rate",
    "build_vocabs",
    "make_optimizer",
    "train",
    "save_model",
    "load_checkpoint",
    "read_checkpoint",
    "plot_history",
    "CHECKPOINT_NAME",
    "MODEL_NAME",
]
