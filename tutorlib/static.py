"""Deprecated: the explorers' static twins live in ``tutorlib.explorers.static``.

Reading one of their names here (``Control``, ``OFFLINE_NOTE``, ...) still works
but raises a ``DeprecationWarning`` that names their home.
"""

from __future__ import annotations

from ._moved import moved_getattr

_MOVED = dict.fromkeys(
    ["Control", "explorer_html", "MAX_STATES", "KINDS", "OFFLINE_NOTE", "unpack"],
    "tutorlib.explorers.static",
)

__getattr__ = moved_getattr(__name__, _MOVED)
