"""Deprecated: training the translator (chapter 9) lives in the translation stack.

Every name this module held moved to its home (``_MOVED`` below: the loop in
``tutorlib.translation.training``, the losses in ``tutorlib.translation.model``,
``TrainState`` in ``tutorlib.translation.state``, the files in
``tutorlib.translation.checkpoints``); reading one here still works but raises a
``DeprecationWarning`` that names its home.
"""

from __future__ import annotations

from ._moved import moved_getattr

_CHECKPOINTS = "tutorlib.translation.checkpoints"
_TRAINING = "tutorlib.translation.training"
_MOVED = {
    "TrainResult": _TRAINING,
    "TOO_LONG_SHARE": _TRAINING,
    "build_vocabs": _TRAINING,
    "learning_rate": _TRAINING,
    "make_optimizer": _TRAINING,
    "plot_history": _TRAINING,
    "train": _TRAINING,
    "TrainState": "tutorlib.translation.state",
    "translation_loss": "tutorlib.translation.model",
    "translator_loss": "tutorlib.translation.model",
    "Translator": "tutorlib.translation.model",
    "TranslatorConfig": "tutorlib.translation.config",
    "CheckpointError": _CHECKPOINTS,
    "CHECKPOINT_NAME": _CHECKPOINTS,
    "MODEL_NAME": _CHECKPOINTS,
    "load_checkpoint": _CHECKPOINTS,
    "pick_device": _CHECKPOINTS,
    "read_checkpoint": _CHECKPOINTS,
    "save_model": _CHECKPOINTS,
}

__getattr__ = moved_getattr(__name__, _MOVED)
