"""Moved to ``tutorlib.translation.phrasebook``; these names stay importable here.

The phrasebook is now three files, one idea each: ``lexicon`` (the word
tables), ``grammar`` (specs, agreement, conjugation, ``render``) and
``splits`` (drawing sentences, the seeded splits, the held-out
combinations). This module re-exports what chapters, exercises and tests
import from ``tutorlib.phrasebook``. No torch.

Derived in chapter 9 (Training a translator).
"""

from __future__ import annotations

from .translation.phrasebook.grammar import (  # noqa: F401 (re-exported)
    NP,
    Compound,
    Name,
    Phrase,
    Pron,
    Sentence,
    Subject,
    agreement,
    combinations,
    en_np,
    english_words,
    pt_np,
    render,
)
from .translation.phrasebook.lexicon import (  # noqa: F401 (re-exported)
    ADJECTIVE,
    ADJECTIVES,
    ALL,
    ANIMAL,
    ANIMATE,
    BE,
    CONTAINERS,
    CONTRACT,
    DETERMINERS,
    DRINK,
    FOOD,
    GO,
    NOT_PERSON,
    NOUN,
    NOUNS,
    NUMBERS,
    OBJECTS,
    PAPER,
    PERSON,
    PERSONS,
    PHRASES,
    PLACE,
    PRONOUN,
    PRONOUNS,
    THING,
    TIMES,
    VERB,
    VERBS,
    WITH,
    Adjective,
    Noun,
    Pronoun,
    Verb,
)
from .translation.phrasebook.splits import (  # noqa: F401 (re-exported; the private two: tests)
    _EXAMPLES,
    SPLIT_SIZES,
    _small_templates,
    held_out,
    phrasebook,
)

__all__ = [
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
]
