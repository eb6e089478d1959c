"""Moved to ``tutorlib.translation.data``; these names stay importable here.

Tokens, vocabularies, batches and the Tatoeba loader, and the phrasebook
(``tutorlib.translation.phrasebook``) re-exported, as before.

Derived in chapter 9 (Training a translator).
"""

from .translation import data as _moved
from .translation.data import *  # noqa: F403 (re-exported: every public name of the new home)

__all__ = list(_moved.__all__)
