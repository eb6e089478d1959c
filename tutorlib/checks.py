"""Argument checks shared by every tutorlib module, so that each error reads the same way.

``whole_number(name, value, minimum)`` is the one place that knows a whole
number is an ``int`` (or a NumPy integer) but not a ``bool``: ``True`` is an
``int`` in Python, and ``beam_size=True`` is a slip, not a beam of one.
Torch-free, so the command line can check its options before importing torch.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

__all__ = ["whole_number", "finite_number"]


def whole_number(name: str, value, minimum: int | None = None, maximum: int | None = None, *, hint: str = "") -> int:
    """``value`` as an ``int``, or a ``ValueError`` saying what was expected, what came, and ``hint`` (the likely cause).

    ``whole_number("beam_size", 0, 1)`` raises "beam_size must be at least 1,
    got 0"; ``whole_number("batch_size", 2.5, 1)`` raises "batch_size must be
    a whole number, got 2.5 (float)".
    """
    cause = f": {hint}" if hint else ""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be a whole number, got {value!r} ({type(value).__name__}){cause}")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        if minimum is not None and maximum is not None:
            span = f"from {minimum} to {maximum}"
        elif minimum is not None:
            span = f"at least {minimum}"
        else:
            span = f"at most {maximum}"
        raise ValueError(f"{name} must be {span}, got {value}{cause}")
    return value


def finite_number(name: str, value, *, hint: str = "") -> float:
    """``value`` as a finite ``float`` (not NaN, not infinite, not a bool), or a ``ValueError`` saying what came."""
    cause = f": {hint}" if hint else ""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number, got {value!r} ({type(value).__name__}){cause}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}{cause}")
    return float(value)
