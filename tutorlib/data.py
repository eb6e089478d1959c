"""Deprecated: tokens, vocabularies and batches (chapter 9) live in ``tutorlib.translation.data``.

Every name this module held moved to its home (``_MOVED`` below; the phrasebook's
names to ``tutorlib.translation.phrasebook``); reading one here still works but
raises a ``DeprecationWarning`` that names its home.
"""

from __future__ import annotations

from ._moved import moved_getattr

_DATA = "tutorlib.translation.data"
_MOVED = {
    **dict.fromkeys(
        [
            "PAD",
            "BOS",
            "EOS",
            "UNK",
            "SPECIALS",
            "PAD_ID",
            "BOS_ID",
            "EOS_ID",
            "UNK_ID",
            "tokenize",
            "detokenize",
            "is_punctuation",
            "Vocab",
            "Batch",
            "make_batches",
            "batch_order",
            "fits",
            "load_tatoeba",
        ],
        _DATA,
    ),
    **dict.fromkeys(["phrasebook", "held_out", "SPLIT_SIZES"], "tutorlib.translation.phrasebook"),
}

__getattr__ = moved_getattr(__name__, _MOVED)
