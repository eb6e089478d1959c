"""Argument checks shared by every tutorlib module, so that each error reads the same way.

``whole_number(name, value, minimum)`` is the one place that knows a whole
number is an ``int`` (or a NumPy integer) but not a ``bool``: ``True`` is an
``int`` in Python, and ``beam_size=True`` is a slip, not a beam of one.

``head_width(d_model, num_heads)`` is the one place that knows the heads must
divide the model's width, and ``dropout_probability(p)`` that a dropout rate is
a probability.

``attention_shapes(q, k, v)`` is the one place that knows the shape rules of
attention's inputs (queries and keys of one width, one value per key, batch
dimensions that broadcast), for NumPy arrays and torch tensors alike: it reads
only ``.shape``. ``scaled_dot_product_attention`` (chapter 4),
``tiled_attention`` (chapter 11) and ``MultiHeadAttention`` (chapter 5) call it.

Torch-free and NumPy-free, so the command line can check its options before
importing torch.
"""

from __future__ import annotations

import math
import os
from numbers import Integral, Real

__all__ = [
    "whole_number",
    "finite_number",
    "dropout_probability",
    "head_width",
    "shape_str",
    "model_hint",
    "a_or_an",
    "token_shape",
    "attention_shapes",
]


def whole_number(
    name: str, value, minimum: int | None = None, maximum: int | None = None, *, hint: str = ""
) -> int:
    """``value`` as an ``int``, or a ``ValueError`` saying what was expected, what came, and
    ``hint`` (the likely cause).

    ``whole_number("beam_size", 0, 1)`` raises "beam_size must be at least 1,
    got 0"; ``whole_number("batch_size", 2.5, 1)`` raises "batch_size must be
    a whole number, got 2.5 (float)".
    """
    cause = f": {hint}" if hint else ""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(
            f"{name} must be a whole number, got {value!r} ({type(value).__name__}){cause}"
        )
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


def model_hint(value, wanted: type | None = None) -> str:
    """What to pass instead, when a decoder that wants one model gets a tuple, a list or a file
    name; ``""`` for anything else.

    The translator's ``load_pretrained()`` and ``load_checkpoint()`` return ``(model,
    src_vocab, tgt_vocab)``: ``translate(text, load_pretrained())`` is a slip whose error should
    say " of 3 (Translator, Vocab, Vocab): ... pass the model alone"; so is a checkpoint's path
    where its model was meant. With ``wanted`` (the class the decoder reads), a tuple whose first
    item is not one is only described: passing that item alone would not help.
    """
    if isinstance(value, (str, os.PathLike)):
        return (
            f" ({str(value)!r}, a file name?): load the model first, model, _, _ = "
            "tutorlib.translation.checkpoints.load_checkpoint(path) for the translator, model = "
            "tutorlib.gpt.load_gpt(path) for a GPT"
        )
    if not isinstance(value, (tuple, list)):
        return ""
    kinds = ", ".join(type(item).__name__ for item in value[:4]) + ", ..." * (len(value) > 4)
    if wanted is not None and not (value and isinstance(value[0], wanted)):
        return f" of {len(value)} ({kinds})"
    return (
        f" of {len(value)} ({kinds}): the translator's load_pretrained() and load_checkpoint() "
        "return (model, src_vocab, tgt_vocab); pass the model alone, its first item "
        "(model, _, _ = load_pretrained())"
    )


def a_or_an(word: str) -> str:
    """``word`` behind its article: "a tuple", "an int"."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def head_width(d_model: int, num_heads: int, *, name: str = "d_model", context: str = "") -> int:
    """The width of one head, ``d_model // num_heads``, or a ``ValueError`` when the heads do
    not divide the model's width evenly (each head gets ``d_model // num_heads`` features).

    The one home of this rule: the attention layers (chapter 5), the grouped-query layer
    (chapter 15) and the model configurations all call it. ``name`` is how the caller spells
    the width (``"D"`` for a tensor's last dimension); ``context`` is added after it, as in
    ``"(x (2, 5, 6))"``.
    """
    if d_model % num_heads:
        divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
        where = f" {context}" if context else ""
        raise ValueError(
            f"{name}={d_model} is not divisible by num_heads={num_heads}{where}: each head gets "
            f"{name} // num_heads features, so num_heads must divide {name} "
            f"(here one of {divisors})"
        )
    return d_model // num_heads


def finite_number(name: str, value, *, hint: str = "") -> float:
    """``value`` as a finite ``float`` (not NaN, not infinite, not a bool), or a ``ValueError``
    saying what came."""
    cause = f": {hint}" if hint else ""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number, got {value!r} ({type(value).__name__}){cause}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}{cause}")
    return float(value)


def dropout_probability(p) -> float:
    """``p`` as a ``float`` between 0 and 1 (a dropout rate), or a ``ValueError`` saying what came.

    The attention layers (chapter 5), the feed-forward network and positional encoding
    (chapter 8) and the grouped-query layer (chapter 15) all call it.
    """
    if isinstance(p, bool) or not isinstance(p, Real) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout is a probability between 0 and 1, got {p!r}")
    return float(p)


# --- shapes ----------------------------------------------------------------------------------


def shape_str(shape) -> str:
    """A shape as Python writes a tuple, ``(3, 4)`` or ``(4,)``, for every error of tutorlib."""
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _broadcast(*shapes) -> tuple[int, ...] | None:
    """The shape ``shapes`` broadcast to (NumPy's and torch's rule), or None when they do not."""
    ndim = max(len(s) for s in shapes)
    out = []
    for axis in range(-ndim, 0):
        sizes = {int(s[axis]) for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def token_shape(name: str, shape, d_model: int, letters: str = "(B, T, D)") -> None:
    """``shape`` must be ``(B, T, D)`` with ``D == d_model``: token sequences for a module."""
    if len(shape) != 3:
        hint = f"; for a single sequence use {name}[None]" if len(shape) == 2 else ""
        raise ValueError(
            f"{name} must have shape {letters} = (batch, length, d_model), "
            f"got shape {shape_str(shape)}{hint}"
        )
    if shape[-1] != d_model:
        raise ValueError(
            f"{name} has {shape[-1]} features per token (shape {shape_str(shape)}) but the "
            f"module expects d_model={d_model}. Was the module built with another d_model, or is "
            "the input (B, D, T) instead of (B, T, D)?"
        )


def attention_shapes(
    q, k, v, *, names=("q", "k", "v"), d_model: int | None = None, heads_axis: int | None = None
) -> tuple[int, ...]:
    """Check the shapes of attention's queries, keys and values; return their batch shape.

    Reads only ``.shape``, so NumPy arrays and torch tensors are checked alike.
    With ``d_model=None`` (attention itself, after the projections)::

        q  (..., T_q, d_k)   k  (..., T_k, d_k)   v  (..., T_k, d_v)

    q and k must have one width ``d_k >= 1``, k and v one length ``T_k >= 1``,
    and the leading ``...`` must broadcast; the broadcast ``...`` is returned.
    With ``d_model`` (a module's inputs, before the projections) each is a
    batch of token sequences ``(B, T, D)`` with ``D == d_model``
    (:func:`token_shape`), all with the same ``B``; ``(B,)`` is returned.

    ``heads_axis`` (a negative axis among the leading ones, e.g. -3 for
    ``(B, H, T, d_k)``) lets k and v have fewer heads than q, as long as they
    divide q's (grouped-query attention); the returned shape has q's heads.
    ``names`` name the three in the messages. Each error says what was
    expected, what came and the likely cause.

    Derived in chapter 4 (Scaled dot-product attention); chapter 5 checks a
    module's inputs with ``d_model``.
    """
    (qn, kn, vn), shapes = names, (tuple(q.shape), tuple(k.shape), tuple(v.shape))
    qs, ks, vs = shapes
    if d_model is not None:
        for name, shape, length in zip(names, shapes, ("T_q", "T_k", "T_k")):
            token_shape(name, shape, d_model, f"(B, {length}, D)")
        if not qs[0] == ks[0] == vs[0]:
            raise ValueError(
                f"{qn}, {kn} and {vn} must have the same batch size B, got {qn} {shape_str(qs)}, "
                f"{kn} {shape_str(ks)}, {vn} {shape_str(vs)}"
            )
        unit, values = "positions", ""
    else:
        layouts = ("(..., T_q, d_k)", "(..., T_k, d_k)", "(..., T_k, d_v)")
        for name, shape, letters in zip(names, shapes, layouts):
            if len(shape) < 2:
                raise ValueError(
                    f"{name} must have at least 2 dimensions {letters}, got shape "
                    f"{shape_str(shape)}; for a single vector use {name}[None, :]"
                )
        if qs[-1] != ks[-1]:
            raise ValueError(
                f"{qn} has d_k={qs[-1]} but {kn} has d_k={ks[-1]} "
                f"({qn} {shape_str(qs)}, {kn} {shape_str(ks)}): queries and keys are compared by "
                "a dot product, so they need the same width. Did you project both with the same "
                "width?"
            )
        if qs[-1] == 0:
            raise ValueError(f"d_k must be at least 1, got {qn} of shape {shape_str(qs)}")
        unit, values = "keys", " values"
    if ks[-2] != vs[-2]:
        raise ValueError(
            f"{kn} has T_k={ks[-2]} {unit} but {vn} has {vs[-2]}{values} ({kn} {shape_str(ks)}, "
            f"{vn} {shape_str(vs)}): every key needs exactly one value. Did you pass the keys "
            "of one sentence with the values of another? (In cross-attention both come from the "
            "encoder.)"
        )
    if d_model is not None:
        return (qs[0],)
    if ks[-2] == 0:
        raise ValueError(f"there are no keys to attend to: {kn} has shape {shape_str(ks)}")
    leading = [s[:-2] for s in shapes]
    if heads_axis is not None:
        leading = _grouped_heads(names, shapes, heads_axis)
    batch = _broadcast(*leading)
    if batch is None:
        raise ValueError(
            f"the leading (batch) dimensions of {qn} {shape_str(qs)}, {kn} {shape_str(ks)} and "
            f"{vn} {shape_str(vs)} do not broadcast: {shape_str(leading[0])}, "
            f"{shape_str(leading[1])} and {shape_str(leading[2])}"
        )
    if heads_axis is not None:
        at = len(batch) + heads_axis + 3  # where the heads axis sits among the leading dimensions
        batch = batch[:at] + (qs[heads_axis],) + batch[at:]
    return batch


def _grouped_heads(names, shapes, axis: int) -> list[tuple[int, ...]]:
    """Check the heads axis of grouped-query attention; the leading dimensions without it."""
    if not -len(min(shapes, key=len)) <= axis <= -3:
        raise ValueError(
            f"heads_axis must be a negative axis before the last two (T, d), at most -3, that "
            f"{', '.join(names)} all have; got {axis} for shapes "
            f"{', '.join(map(shape_str, shapes))}"
        )
    (qn, kn, vn), (qs, ks, vs) = names, shapes
    if ks[axis] != vs[axis] or ks[axis] == 0 or qs[axis] % ks[axis]:
        raise ValueError(
            f"{kn} and {vn} need the same number of heads, one that divides {qn}'s {qs[axis]} "
            f"(each key/value head serves a group of query heads), got {ks[axis]} and {vs[axis]} "
            f"on axis {axis} ({qn} {shape_str(qs)}, {kn} {shape_str(ks)}, {vn} {shape_str(vs)})"
        )
    return [s[:axis] + s[axis + 1 : -2] for s in shapes]
