"""Deprecated: the phrasebook (chapter 9) lives in ``tutorlib.translation.phrasebook``.

That package is three files, one idea each: ``lexicon`` (the word tables),
``grammar`` (specs, agreement, conjugation, ``render``) and ``splits`` (drawing
sentences, the seeded splits, the held-out combinations); its ``__init__`` is
its public face. Every name this module held moved there (``_MOVED`` below);
reading one here still works but raises a ``DeprecationWarning`` that names its
home. No torch.
"""

from __future__ import annotations

from ._moved import moved_getattr

_MOVED = {
    **dict.fromkeys(
        [
            "phrasebook",
            "held_out",
            "SPLIT_SIZES",
            "english_words",
            "render",
            "NP",
            "Pron",
            "Name",
            "Sentence",
            "Compound",
            "Phrase",
        ],
        "tutorlib.translation.phrasebook",
    ),
    **dict.fromkeys(
        ["Subject", "agreement", "combinations", "en_np", "pt_np"],
        "tutorlib.translation.phrasebook.grammar",
    ),
    **dict.fromkeys(
        [
            "ADJECTIVE",
            "ADJECTIVES",
            "ALL",
            "ANIMAL",
            "ANIMATE",
            "BE",
            "CONTAINERS",
            "CONTRACT",
            "DETERMINERS",
            "DRINK",
            "FOOD",
            "GO",
            "NOT_PERSON",
            "NOUN",
            "NOUNS",
            "NUMBERS",
            "OBJECTS",
            "PAPER",
            "PERSON",
            "PERSONS",
            "PHRASES",
            "PLACE",
            "PRONOUN",
            "PRONOUNS",
            "THING",
            "TIMES",
            "VERB",
            "VERBS",
            "WITH",
            "Adjective",
            "Noun",
            "Pronoun",
            "Verb",
        ],
        "tutorlib.translation.phrasebook.lexicon",
    ),
}

__getattr__ = moved_getattr(__name__, _MOVED)
