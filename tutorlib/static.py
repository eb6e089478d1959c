"""The explorers' static twins, importable under their old name.

They live in :mod:`tutorlib.explorers.static`, next to the explorers they
serve; this module re-exports them, so that ``from tutorlib.static import
Control`` and ``tutorlib.static.OFFLINE_NOTE`` keep working.
"""

from .explorers.static import KINDS, MAX_STATES, OFFLINE_NOTE, Control, explorer_html, unpack

__all__ = ["Control", "explorer_html", "MAX_STATES", "KINDS", "OFFLINE_NOTE", "unpack"]
