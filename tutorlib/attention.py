"""Attention in NumPy: the code that chapters 3, 4 and 6 derive.

Shape letters (the book's notation page): ``B`` batch, ``T_q`` queries,
``T_k`` keys, ``d_k`` query/key width, ``d_v`` value width. Any number of
leading batch dimensions ``...`` is allowed wherever it is written.

Masks are boolean and **True means "may attend"**, the convention of
``torch.nn.functional.scaled_dot_product_attention``. (PyTorch's
``nn.MultiheadAttention(key_padding_mask=...)`` uses the opposite; chapter 6
has a table of the conventions.)
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from .checks import attention_shapes, whole_number
from .checks import shape_str as _shape_str

__all__ = ["softmax", "scaled_dot_product_attention", "causal_mask", "padding_mask"]


def _as_float_array(x, name: str) -> np.ndarray:
    """Return ``x`` as a floating-point array (float64 unless it already is floating)."""
    arr = np.asarray(x)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.number)):
        raise ValueError(f"{name} must be an array of numbers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError(f"{name} must be real, got dtype {arr.dtype}")
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    return arr


def softmax(x, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    r"""Numerically stable softmax along ``axis``.

    .. math:: \operatorname{softmax}(x)_i = \frac{e^{x_i / \tau}}{\sum_j e^{x_j / \tau}}

    The maximum along ``axis`` is subtracted before exponentiating. That
    changes nothing mathematically (the factor :math:`e^{-m}` cancels) but
    keeps every exponent :math:`\le 0`, so scores of 1e4 give finite results.

    ``temperature`` :math:`\tau` sharpens (:math:`\tau < 1`) or flattens
    (:math:`\tau > 1`) the distribution; it must be a finite number above 0.
    Entries of ``-inf`` get weight 0 (that is how a mask hides a key), but a
    slice whose entries are *all* ``-inf`` has nothing to normalise and is an
    error.

    Derived in chapter 3 (Softmax).
    """
    if isinstance(temperature, bool) or not isinstance(temperature, Real):
        raise ValueError(f"temperature must be a number above 0, got {temperature!r}")
    if not math.isfinite(temperature) or temperature <= 0:
        raise ValueError(
            f"temperature must be a finite number above 0, got {temperature}: "
            "0 divides by zero (softmax only approaches argmax as the temperature falls towards 0) "
            "and below 0 it ranks the scores backwards"
        )
    x = _as_float_array(x, "x")
    if x.ndim == 0:
        raise ValueError("softmax needs at least one dimension to normalise over, got a scalar")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of range for an array of shape {x.shape}")
    if np.isnan(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(x))[0])
        raise ValueError(f"x contains NaN (first at index {where}); softmax of NaN is undefined")
    if np.isposinf(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isposinf(x))[0])
        raise ValueError(f"x contains +inf (first at index {where}); softmax of +inf is undefined")
    if x.shape[axis] == 0:
        raise ValueError(f"softmax over an empty axis (shape {x.shape}, axis {axis}) is undefined")
    all_masked = np.isneginf(x).all(axis=axis)
    if all_masked.any():
        where = tuple(int(i) for i in np.argwhere(all_masked)[0])
        raise ValueError(
            f"every entry is -inf along axis {axis} in the slice at index {where} (of the other "
            "axes): there is nothing to normalise"
        )
    z = x / temperature
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def scaled_dot_product_attention(q, k, v, mask=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Scaled dot-product attention: returns ``(output, weights)``.

    .. math::

        \operatorname{Attention}(Q, K, V)
        = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V

    Shapes::

        q        (..., T_q, d_k)   one row per query
        k        (..., T_k, d_k)   one row per key
        v        (..., T_k, d_v)   one value per key
        mask     broadcastable to (..., T_q, T_k), boolean, True = may attend
        weights  (..., T_q, T_k)   each row sums to 1
        output   (..., T_q, d_v)

    The leading ``...`` of ``q``, ``k`` and ``v`` broadcast against each other.
    A query whose keys are all masked has nothing to attend to; that is an
    error naming the row rather than a silent row of NaN.

    Derived in chapter 4 (Scaled dot-product attention); masks in chapter 6.
    """
    q = _as_float_array(q, "q")
    k = _as_float_array(k, "k")
    v = _as_float_array(v, "v")
    batch = attention_shapes(q, k, v)  # the shape rules and their errors: tutorlib.checks

    d_k = q.shape[-1]
    # (..., T_q, d_k) @ (..., d_k, T_k) -> (..., T_q, T_k)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    scores = np.broadcast_to(scores, batch + scores.shape[-2:])

    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != bool:
            raise ValueError(
                f"mask must be boolean with True = may attend, got dtype {mask.dtype}. If you have "
                "1/0 use mask == 1; if you have an additive mask of 0/-inf use mask == 0"
            )
        try:
            fits = np.broadcast_shapes(mask.shape, scores.shape) == scores.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"mask of shape {_shape_str(mask.shape)} does not broadcast to the scores' shape "
                f"{_shape_str(scores.shape)} = (..., T_q, T_k). A padding mask of shape (B, T_k) "
                "needs a query axis: mask[:, None, :]"
            )
        mask = np.broadcast_to(mask, scores.shape)
        empty = ~mask.any(axis=-1)
        if empty.any():
            where = tuple(int(i) for i in np.argwhere(empty)[0])
            raise ValueError(
                f"query row {where[-1]} (index {where} of the (..., T_q) axes) has every key "
                "masked, so it has nothing to attend to and its softmax would be NaN. Is that "
                "query itself padding, or is the mask transposed?"
            )
        scores = np.where(mask, scores, -np.inf)

    weights = softmax(scores, axis=-1)
    # (..., T_q, T_k) @ (..., T_k, d_v) -> (..., T_q, d_v)
    output = weights @ v
    return output, weights


def causal_mask(n: int) -> np.ndarray:
    """``(n, n)`` boolean mask, True on and below the diagonal.

    Row ``i`` is query position ``i``; it may attend to key positions
    ``0..i`` and to none after it. This is the mask of a decoder's
    self-attention.

    Derived in chapter 6 (Masking).
    """
    n = whole_number("n", n, 1)
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(lengths, max_len: int | None = None) -> np.ndarray:
    """``(B, max_len)`` boolean mask, True on real tokens and False on padding.

    ``lengths[b]`` is the number of real tokens of sequence ``b``; the rest of
    its ``max_len`` positions are padding. ``max_len`` defaults to the longest
    length. To use it as a key mask in attention give it a query axis:
    ``padding_mask(lengths)[:, None, :]`` has shape ``(B, 1, T_k)``.

    Derived in chapter 6 (Masking).
    """
    arr = np.asarray(lengths)
    if arr.ndim != 1:
        raise ValueError(
            f"lengths must be 1-D (one length per sequence), got shape {_shape_str(arr.shape)}"
        )
    if arr.size == 0:
        raise ValueError("lengths is empty: there are no sequences to mask")
    if not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(f"lengths must be whole numbers, got {lengths!r}")
    if (arr < 0).any():
        b = int(np.argmax(arr < 0))
        raise ValueError(
            f"lengths[{b}]={arr[b]} is negative; a length counts tokens, so it is at least 0"
        )
    if max_len is None:
        max_len = int(arr.max())
        if max_len == 0:
            raise ValueError(
                "every length is 0: give max_len explicitly to build an all-padding mask"
            )
    max_len = whole_number("max_len", max_len, 1)
    if (arr > max_len).any():
        b = int(np.argmax(arr > max_len))
        raise ValueError(f"lengths[{b}]={arr[b]} exceeds max_len={max_len}")
    # (1, max_len) < (B, 1) -> (B, max_len)
    return np.arange(max_len)[None, :] < arr[:, None]
