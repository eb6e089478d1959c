"""The deprecated short modules' one mechanism: a moved name warns, names its home, resolves.

``tutorlib.translator`` (beyond its stable names), ``.training``, ``.data``,
``.phrasebook``, ``.config``, ``.static`` and ``.modern_gpt`` each hold a table of their
old names and the module each now lives in, and a module-level ``__getattr__`` made here:
an old name still resolves to the very object of its home (a copy would drift), with a
``DeprecationWarning`` that points at the line that asked for it; any other name raises
``AttributeError`` as usual.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping


def moved_getattr(module: str, moved: Mapping[str, str]) -> Callable[[str], object]:
    """The ``__getattr__`` of the deprecated module ``module``: ``moved`` maps each old name
    to the module that is now its home."""

    def __getattr__(name: str) -> object:
        home = moved.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(
            f"{module}.{name} moved to {home}.{name}; import it from there",
            DeprecationWarning,
            stacklevel=2,  # the line that imported or read the old name
        )
        return getattr(importlib.import_module(home), name)

    return __getattr__
