"""Moved to ``tutorlib.translation.data``; these names stay importable here.

Tokens, vocabularies, batches and the Tatoeba loader, and the phrasebook
(``tutorlib.translation.phrasebook``) re-exported, as before.

Used in chapter 9 (Training a translator).
"""

from .translation.data import (  # noqa: F401 (re-exported)
    BOS,
    BOS_ID,
    EOS,
    EOS_ID,
    PAD,
    PAD_ID,
    SPECIALS,
    SPLIT_SIZES,
    UNK,
    UNK_ID,
    Batch,
    Vocab,
    detokenize,
    fits,
    held_out,
    is_punctuation,
    load_tatoeba,
    make_batches,
    phrasebook,
    tokenize,
)

__all__ = [
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
    "phrasebook",
    "held_out",
    "SPLIT_SIZES",
    "Vocab",
    "Batch",
    "make_batches",
    "fits",
    "load_tatoeba",
]
