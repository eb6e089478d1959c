"""Attention in today's models: the code of chapter 15 ("attention in today's models").

What changed in attention between the 2017 Transformer of chapters 5 to 8 and
the open models learners download today, each piece small enough to read:

- ``apply_rope``: rotary position embeddings (RoPE). Instead of adding a
  position's vector to each token (chapter 8), each pair of features of q and
  k is *turned* by an angle proportional to the position; the dot product of a
  turned query and a turned key then depends only on the offset between them.
- ``GroupedQueryAttention``: groups of query heads share one key/value head,
  so the KV cache of chapter 10 shrinks by ``H / Hkv``. ``Hkv == H`` is the
  multi-head attention of chapter 5, ``Hkv == 1`` multi-query attention.
- ``sliding_window_mask``: each query sees only the last ``window`` keys, a
  mask built from chapter 6's causal mask; its KV cache never holds more than
  ``window`` positions.
- ``kv_cache_bytes`` and ``PUBLISHED_CONFIGS``: what a KV cache costs, for the
  published shapes of a few open models (each number cited).

Shape letters (the book's notation page): ``B`` batch, ``T`` positions (the
queries), ``S`` keys and values where they differ from ``T`` (``T_past`` of a
cache), ``D`` = ``d_model``, ``H`` query heads, ``Hkv`` key/value heads,
``Dh`` = ``D // H`` the width of one head. Masks are boolean with **True =
may attend**, as everywhere in tutorlib.

Derived in chapter 15 (Attention in today's models).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .checks import attention_shapes, dropout_probability, finite_number, head_width, whole_number
from .checks import shape_str as _shape
from .nn import MultiHeadAttention, causal_attention_mask, merge_heads, split_heads

__all__ = [
    "apply_rope",
    "rope_angles",
    "repeat_kv",
    "GroupedQueryAttention",
    "sliding_window_mask",
    "kv_cache_bytes",
    "DTYPE_BYTES",
    "ModelShape",
    "PUBLISHED_CONFIGS",
    "published_kv_cache",
]


# --- rotary position embeddings (RoPE) -----------------------------------------------


def rope_angles(positions, d_head: int, base: float = 10000.0) -> np.ndarray:
    """The angles RoPE turns by, ``(..., T, Dh / 2)``: ``positions[..., t] * base^(-2i/Dh)``.

    Entry ``[..., t, i]`` is the angle of pair ``i`` at position
    ``positions[..., t]``: pair 0 turns by one radian per position, the last
    pair about ``base`` times slower. ``apply_rope`` uses these angles.

    Derived in chapter 15 (Attention in today's models).
    """
    d_head = whole_number("d_head", d_head, 2)
    if d_head % 2:
        raise ValueError(_odd_width(d_head))
    base = _check_base(base)
    pos = _as_positions(positions)
    i = np.arange(d_head // 2, dtype=np.float64)
    # (..., T, 1) * (Dh/2,) -> (..., T, Dh/2)
    return pos[..., None] * base ** (-2.0 * i / d_head)


def apply_rope(x, positions=None, base: float = 10000.0):
    r"""Rotary position embedding: turn each pair of features of ``x`` by its position's angle.

    ``x`` has shape ``(..., T, Dh)`` with an even ``Dh`` (queries or keys,
    usually ``(B, H, T, Dh)`` after ``split_heads``). Pair ``i`` is the
    features ``(2i, 2i + 1)`` and turns at frequency
    :math:`\theta_i = \mathrm{base}^{-2i/D_h}`: at position :math:`p`,

    .. math::
        \begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} =
        \begin{pmatrix}
            \cos p\theta_i & -\sin p\theta_i \\ \sin p\theta_i & \cos p\theta_i
        \end{pmatrix}
        \begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}

    A rotation keeps lengths, and turning q by :math:`m\theta` and k by
    :math:`n\theta` turns their dot product by :math:`(m - n)\theta`: the
    score of a rotated query and key depends only on the offset ``m - n``,
    never on where the pair sits in the sequence.

    ``positions``: None for ``0 .. T-1``; a whole number ``p`` for ``p .. p+T-1``
    (a decoder with ``T_past`` cached positions rotates its new queries and
    keys with ``positions=T_past``); or numbers of shape ``(T,)``, or
    broadcastable to ``x.shape[:-1]`` (``(B, 1, T)`` for ``(B, H, T, Dh)``,
    one row of positions per sequence). The angles are computed in float64
    and the result has ``x``'s dtype. A torch tensor gives a torch tensor on
    its device, anything else a NumPy array.

    Pairs are *interleaved*, ``(x[2i], x[2i+1])``, as in the RoFormer paper
    (Su et al. 2021), in Meta's own Llama code (which turns them as complex
    numbers) and as chapter 8's sinusoidal encodings pair their sines and
    cosines. The GPT-NeoX code, and the Llama code of Hugging Face
    ``transformers``, pair the two *halves* instead, ``(x[i], x[i + Dh/2])``. Both are RoPE and
    both keep the relative-position property, but they turn different pairs
    of features: weights trained with one convention give wrong attention
    under the other unless the rows of ``W_Q`` and ``W_K`` are permuted
    (which is what ``transformers``' Llama conversion script does).

    Derived in chapter 15 (Attention in today's models).
    """
    is_torch = isinstance(x, torch.Tensor)
    if not is_torch:
        x = np.asarray(x)
        if x.dtype == bool or not np.issubdtype(x.dtype, np.number):
            raise ValueError(f"x must be an array of numbers, got dtype {x.dtype}")
        if not np.issubdtype(x.dtype, np.floating):
            x = x.astype(np.float64)
    elif not x.is_floating_point():
        raise ValueError(f"x must be a floating-point tensor, got dtype {x.dtype}")
    if x.ndim < 2:
        raise ValueError(
            f"x must have shape (..., T, Dh), at least 2 dimensions, got shape {_shape(x.shape)}; "
            "for a single vector use x[None, :]"
        )
    T, Dh = x.shape[-2], x.shape[-1]
    if Dh % 2:
        raise ValueError(_odd_width(Dh, x.shape))
    pos = _rope_positions(positions, T, x.shape)
    angle = rope_angles(pos, Dh, base)  # (..., T, Dh/2), float64
    if is_torch:
        angle = torch.from_numpy(angle).to(device=x.device)
        cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
        x1, x2 = x[..., 0::2], x[..., 1::2]  # (..., T, Dh/2) each: the pairs' two features
        # two (..., T, Dh/2) -> (..., T, Dh/2, 2) -> (..., T, Dh), pairs interleaved again
        return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)
    cos, sin = np.cos(angle).astype(x.dtype), np.sin(angle).astype(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]  # (..., T, Dh/2) each
    out = np.stack(np.broadcast_arrays(x1 * cos - x2 * sin, x1 * sin + x2 * cos), axis=-1)
    # (..., T, Dh/2, 2) -> (..., T, Dh)
    return out.reshape(out.shape[:-2] + (Dh,))


def _odd_width(d_head: int, shape=None) -> str:
    of = f" (x {_shape(shape)})" if shape is not None else ""
    return (
        f"RoPE turns features in pairs, so the head width Dh must be even, got Dh={d_head}{of}. "
        "Is the last axis the head width (after split_heads), or did num_heads not divide d_model "
        "into even heads?"
    )


def _check_base(base) -> float:
    base = finite_number("base", base, hint="RoPE's frequencies are base^(-2i/Dh)")
    if base <= 0:
        raise ValueError(
            f"base must be above 0, got {base}: pair i turns at base^(-2i/Dh) (10000 in the "
            "RoFormer paper and Llama 2, 500000 in Llama 3)"
        )
    return base


def _as_positions(positions) -> np.ndarray:
    """Positions as a float64 array of finite numbers (from a list, an array or a tensor)."""
    if isinstance(positions, torch.Tensor):
        positions = positions.detach().cpu().numpy()
    pos = np.asarray(positions)
    if pos.dtype == bool or not np.issubdtype(pos.dtype, np.number):
        raise ValueError(
            f"positions must be numbers (one per token), got dtype {pos.dtype}: {positions!r}"
        )
    if np.issubdtype(pos.dtype, np.complexfloating):
        raise ValueError(f"positions must be real numbers, got dtype {pos.dtype}")
    pos = pos.astype(np.float64)
    if not np.isfinite(pos).all():
        raise ValueError(f"positions must be finite numbers, got {positions!r}")
    return pos


def _rope_positions(positions, T: int, x_shape) -> np.ndarray:
    """``positions`` as float64 numbers broadcastable to ``x.shape[:-1]`` = (..., T)."""
    if positions is None:
        return np.arange(T, dtype=np.float64)
    if isinstance(positions, (int, np.integer)) and not isinstance(positions, bool):
        start = whole_number("positions", positions, 0)
        return np.arange(start, start + T, dtype=np.float64)  # an offset: start .. start+T-1
    pos = _as_positions(positions)
    if pos.ndim == 0 or pos.shape[-1] != T:
        raise ValueError(
            f"positions has shape {_shape(pos.shape)} but x {_shape(x_shape)} has T={T} positions "
            "on its second-to-last axis: give one position per token (shape (T,)), or a whole "
            "number p for the positions p .. p+T-1"
        )
    try:
        fits = np.broadcast_shapes(pos.shape, tuple(x_shape[:-1])) == tuple(x_shape[:-1])
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"positions of shape {_shape(pos.shape)} does not broadcast to x's "
            f"{_shape(x_shape[:-1])} = (..., T). Positions per sequence (B, T) for x "
            "(B, H, T, Dh) need a heads axis: positions[:, None, :]"
        )
    return pos


# --- grouped-query attention ------------------------------------------------------------


def repeat_kv(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """``(B, Hkv, S, Dh) -> (B, H, S, Dh)``: each key/value head repeated for its query heads.

    Query head ``h`` reads key/value head ``h // (H // Hkv)``: heads ``0 ..
    H/Hkv - 1`` share key/value head 0, the next group head 1, and so on. That
    is ``repeat_interleave`` (``kv0, kv0, kv1, kv1``), not ``repeat``
    (``kv0, kv1, kv0, kv1``), which would give each query head another
    group's keys. ``Hkv == H`` returns ``x`` itself.

    Derived in chapter 15 (Attention in today's models).
    """
    num_heads = whole_number("num_heads", num_heads, 1)
    if not isinstance(x, torch.Tensor) or x.ndim != 4:
        got = _shape(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
        raise ValueError(f"repeat_kv expects x of shape (B, Hkv, S, Dh), got {got}")
    num_kv_heads = x.shape[1]
    if num_kv_heads == 0 or num_heads % num_kv_heads:
        raise ValueError(
            f"x has Hkv={num_kv_heads} key/value heads (x {_shape(x.shape)}), which does not "
            f"divide num_heads={num_heads}: each key/value head serves a whole group of "
            "H // Hkv query heads"
        )
    if num_kv_heads == num_heads:
        return x
    # (B, Hkv, S, Dh) -> (B, H, S, Dh): kv head j becomes heads j*G .. j*G + G-1, G = H // Hkv
    return x.repeat_interleave(num_heads // num_kv_heads, dim=1)


class GroupedQueryAttention(nn.Module):
    r"""Grouped-query attention: ``H`` query heads share ``Hkv`` key/value heads, ``H / Hkv`` each.

    ``w_q`` and ``w_o`` are those of ``MultiHeadAttention`` (``D x D``);
    ``w_k`` and ``w_v`` project to ``Hkv * Dh`` features only, one key and one
    value head per group. Query head ``h`` reads key/value head
    ``h // (H // Hkv)`` (``repeat_kv``). ``num_kv_heads == num_heads`` is
    multi-head attention, with the same parameters and outputs as
    ``MultiHeadAttention`` (one state dict loads into either);
    ``num_kv_heads == 1`` is multi-query attention (Shazeer 2019). The
    key/value projections and the KV cache are ``H / Hkv`` times smaller.

    ``forward(query, key, value, mask=None, need_weights=False)``::

        query    (B, T_q, D)
        key      (B, T_k, D)
        value    (B, T_k, D)
        mask     boolean, True = may attend, broadcastable to (B, H, T_q, T_k)
        returns  (output (B, T_q, D), weights (B, H, T_q, T_k) or None)

    the conventions, checks and errors of ``MultiHeadAttention``.

    ``rope_base``: None (default) for no position information here (add it to
    the tokens, as chapter 8 does); a number, e.g. ``10000.0``, to turn the
    queries and keys by ``apply_rope`` after the projections, at positions
    ``0 .. T_q-1`` and ``0 .. T_k-1`` (self-attention).

    ``forward_step(query, cache, mask=None, window=None)`` decodes with a KV
    cache of ``Hkv`` heads (self-attention only); see its docstring.

    Derived in chapter 15 (Attention in today's models).
    """

    # the same input, mask and shape checks as multi-head attention (it reads d_model, num_heads)
    _check_inputs = MultiHeadAttention._check_inputs

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        num_kv_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        rope_base: float | None = None,
    ):
        super().__init__()
        d_model = whole_number("d_model", d_model, 1)
        num_heads = whole_number("num_heads", num_heads, 1)
        num_kv_heads = whole_number("num_kv_heads", num_kv_heads, 1)
        d_head = head_width(d_model, num_heads)  # checked before num_kv_heads, as it always was
        if num_heads % num_kv_heads:
            divisors = [h for h in range(1, num_heads + 1) if num_heads % h == 0]
            raise ValueError(
                f"num_kv_heads={num_kv_heads} does not divide num_heads={num_heads}: each "
                "key/value head serves a group of num_heads // num_kv_heads query heads, so "
                f"num_kv_heads must be one of {divisors}"
            )
        self.d_model = d_model  # D
        self.num_heads = num_heads  # H, query heads
        self.num_kv_heads = num_kv_heads  # Hkv, key/value heads
        self.d_head = d_head  # Dh
        if rope_base is not None:
            rope_base = _check_base(rope_base)
            if self.d_head % 2:
                raise ValueError(_odd_width(self.d_head))
        self.rope_base = rope_base  # None: no RoPE; else apply_rope's base for q and k
        self.dropout = dropout_probability(dropout)
        kv_width = num_kv_heads * self.d_head  # Hkv * Dh
        self.w_q = nn.Linear(d_model, d_model, bias=bias)  # the H query heads side by side
        self.w_k = nn.Linear(d_model, kv_width, bias=bias)  # the Hkv key heads
        self.w_v = nn.Linear(d_model, kv_width, bias=bias)  # the Hkv value heads
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key, value, mask=None, need_weights: bool = False):
        self._check_inputs(query, key, value, mask)
        # (B, T_q, D) -> (B, T_q, D) -> (B, H, T_q, Dh)
        q = split_heads(self.w_q(query), self.num_heads)
        # (B, T_k, D) -> (B, T_k, Hkv * Dh) -> (B, Hkv, T_k, Dh)
        k = split_heads(self.w_k(key), self.num_kv_heads)
        v = split_heads(self.w_v(value), self.num_kv_heads)
        if self.rope_base is not None:
            q = apply_rope(q, base=self.rope_base)  # (B, H, T_q, Dh), positions 0 .. T_q-1
            k = apply_rope(k, base=self.rope_base)  # (B, Hkv, T_k, Dh), positions 0 .. T_k-1
        out, weights = self._attend(q, k, v, mask, need_weights)
        # (B, H, T_q, Dh) -> (B, T_q, D) -> (B, T_q, D)
        return self.w_o(merge_heads(out)), weights

    def _attend(self, q, k, v, mask, need_weights: bool):
        """q ``(B, H, T_q, Dh)``, k and v ``(B, Hkv, T_k, Dh)`` -> ``(B, H, T_q, Dh)``, weights.

        The ``G = H / Hkv`` query heads of a group are stacked as ``G * T_q`` rows of one query
        matrix against their group's keys: every key/value head is read once, never copied to
        ``G`` heads (``repeat_kv`` would write ``G`` copies of the whole cache at every step of
        decoding). Query head ``h`` is row block ``h % G`` of group ``h // G``, the heads
        ``repeat_kv`` pairs; the numbers are those of attention over the repeated heads.
        """
        attention_shapes(q, k, v, heads_axis=-3)  # Hkv must divide H: tutorlib.checks
        B, H, T_q, Dh = q.shape
        Hkv = k.shape[1]
        G = H // Hkv  # query heads per key/value head
        # (B, H, T_q, Dh) -> (B, Hkv, G, T_q, Dh) -> (B, Hkv, G*T_q, Dh): a group's rows together
        q = q.reshape(B, Hkv, G * T_q, Dh)
        if mask is not None:
            mask = _group_mask(mask, H, G, T_q, k.shape[2])  # (B or 1, Hkv or 1, G*T_q, T_k)
        p = self.dropout if self.training else 0.0
        if not need_weights:
            # (B, Hkv, G*T_q, Dh), (B, Hkv, T_k, Dh) x2 -> (B, Hkv, G*T_q, Dh), fused
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
            weights = None
        else:
            # (B, Hkv, G*T_q, Dh) @ (B, Hkv, Dh, T_k) -> (B, Hkv, G*T_q, T_k)
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = F.dropout(torch.softmax(scores, dim=-1), self.dropout, self.training)
            # (B, Hkv, G*T_q, T_k) @ (B, Hkv, T_k, Dh) -> (B, Hkv, G*T_q, Dh)
            out = weights @ v
            weights = weights.reshape(B, H, T_q, -1)  # (B, H, T_q, T_k)
        # (B, Hkv, G*T_q, Dh) -> (B, H, T_q, Dh)
        return out.reshape(B, H, T_q, Dh), weights

    def forward_step(
        self, query: torch.Tensor, cache: dict, mask=None, window: int | None = None
    ) -> torch.Tensor:
        """Self-attention of the newest positions with a cache of ``Hkv`` heads, ``(B, T_new, D)``.

        ``cache`` (a dict, ``{}`` at the first step) keeps ``cache["k"]`` and
        ``cache["v"]``, ``(B, Hkv, T_past, Dh)``: the keys and values *before*
        they are repeated for the query heads, so the cache is ``H / Hkv``
        times smaller than ``MultiHeadAttention``'s. ``cache["t"]`` counts the
        positions seen so far; with ``rope_base`` the new queries and keys are
        turned at positions ``t .. t + T_new - 1``, so the cached keys keep the
        rotation of their own position.

        ``window``: with a sliding window each position sees only itself and
        the ``window - 1`` before it (``sliding_window_mask``); the cache then
        keeps only the last ``window`` keys and values, however long the text
        (Mistral's rolling buffer). ``mask`` (True = may attend) broadcasts to
        ``(B, H, T_new, T_cached)`` and is combined (``&``) with the causal
        order of the new positions and the window; for one new position None
        is right. The numbers are those of ``forward`` over
        the whole prefix with ``causal_attention_mask`` (or
        ``sliding_window_mask``). No shape checks here: this runs once per
        generated token.

        Derived in chapter 15 (Attention in today's models).
        """
        t = cache.get("t", 0)
        T_new = query.shape[1]
        # (B, T_new, D) -> (B, H, T_new, Dh); keys and values (B, Hkv, T_new, Dh)
        q = split_heads(self.w_q(query), self.num_heads)
        k = split_heads(self.w_k(query), self.num_kv_heads)
        v = split_heads(self.w_v(query), self.num_kv_heads)
        if self.rope_base is not None:
            q = apply_rope(q, positions=t, base=self.rope_base)
            k = apply_rope(k, positions=t, base=self.rope_base)
        if "k" in cache:
            # (B, Hkv, T_past, Dh) ++ (B, Hkv, T_new, Dh) -> (B, Hkv, T_past + T_new, Dh)
            k = torch.cat([cache["k"], k], dim=2)
            v = torch.cat([cache["v"], v], dim=2)
        first = t + T_new - k.shape[2]  # the position of the oldest cached key
        if window is not None or T_new > 1:
            # query t+i may see key first+j when it is not later, and within the window
            q_pos = torch.arange(t, t + T_new, device=query.device)[:, None]  # (T_new, 1)
            k_pos = torch.arange(first, t + T_new, device=query.device)[None, :]  # (1, T_k)
            allowed = k_pos <= q_pos  # (T_new, T_k)
            if window is not None:
                window = whole_number("window", window, 1)
                allowed = allowed & (k_pos > q_pos - window)
            mask = allowed if mask is None else mask & allowed
        out, _ = self._attend(q, k, v, mask, need_weights=False)  # (B, H, T_new, Dh)
        if window is not None:
            k, v = k[:, :, -window:], v[:, :, -window:]  # the rolling buffer: at most window
        cache["k"], cache["v"], cache["t"] = k, v, t + T_new
        # (B, H, T_new, Dh) -> (B, T_new, D) -> (B, T_new, D)
        return self.w_o(merge_heads(out))


def _group_mask(mask: torch.Tensor, H: int, G: int, T_q: int, T_k: int) -> torch.Tensor:
    """A mask broadcastable to ``(B, H, T_q, T_k)`` laid out for ``G*T_q`` grouped query rows.

    Returns ``(B or 1, Hkv or 1, G*T_q, T_k)``: a mask with one head axis of 1 is the same for
    every query head, so each group's ``G`` row blocks repeat it (a copy of ``T_q x T_k``
    booleans, not of keys); a mask per head splits its ``H`` heads into ``Hkv`` groups of ``G``.
    """
    mask = mask.reshape((1,) * (4 - mask.dim()) + tuple(mask.shape))  # (b, h, t_q, t_k)
    b, h = mask.shape[:2]
    mask = mask.expand(b, h, T_q, T_k)
    if h == 1:
        # (b, 1, T_q, T_k) -> (b, 1, G, T_q, T_k) -> (b, 1, G*T_q, T_k)
        return mask[:, :, None].expand(b, 1, G, T_q, T_k).reshape(b, 1, G * T_q, T_k)
    # (b, H, T_q, T_k) -> (b, Hkv, G*T_q, T_k): heads h = j*G .. j*G + G-1 are group j
    return mask.reshape(b, H // G, G * T_q, T_k)


# --- sliding windows ----------------------------------------------------------------------


def sliding_window_mask(T: int, window: int, device=None) -> torch.Tensor:
    """``(T, T)`` boolean mask: query ``t`` may attend key ``s`` when ``t - window < s <= t``.

    Each position sees itself and the ``window - 1`` positions before it:
    chapter 6's causal mask with the keys older than the window taken away.
    ``window >= T`` gives the causal mask itself; ``window == 1`` lets each
    position see only itself. Through ``L`` layers information still travels
    up to ``L * (window - 1)`` positions back, one window per layer. It
    combines with a padding mask by ``&``, like ``causal_attention_mask``.

    The mask is a band of width ``window`` below the diagonal, so the work is
    ``T * window`` scores instead of ``T * T / 2``, but only for a kernel that
    skips what the mask hides: chapter 11's tiled attention can skip every
    tile of keys that lies wholly outside the band, as FlashAttention's
    sliding-window kernels do; a dense mask still computes every score.

    Derived in chapter 15 (Attention in today's models); masks in chapter 6.
    """
    T = whole_number("T", T, 1)
    window = whole_number(
        "window", window, 1, hint="the window counts the keys a query sees, itself included"
    )
    causal = causal_attention_mask(T, device=device)  # (T, T): s <= t
    too_old = causal.tril(-window)  # (T, T): s <= t - window, outside the window
    return causal & ~too_old


# --- the KV cache's memory ------------------------------------------------------------------

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "float8": 1}  # bytes per number


def kv_cache_bytes(
    num_layers: int,
    num_kv_heads: int,
    d_head: int,
    seq_len: int,
    batch: int = 1,
    bytes_per_value: float = 2,
) -> int | float:
    """The memory of a KV cache: ``2 * layers * kv_heads * d_head * seq_len * batch * bytes``.

    The ``2`` is one key and one value; every layer keeps ``num_kv_heads``
    of each, ``d_head`` numbers wide, for each of ``seq_len`` positions of
    each of ``batch`` sequences. ``bytes_per_value``: 2 for float16 or
    bfloat16 (the default), 4 for float32, 1 for 8-bit, 0.5 for 4-bit
    (``DTYPE_BYTES``). Returns an ``int`` when the total is whole. A sliding
    window of ``W`` caps ``seq_len`` at ``W``.

    Llama 2 70B at 32k tokens in float16 (80 layers, 8 KV heads of 128):
    ``kv_cache_bytes(80, 8, 128, 32768)`` is 10 GiB; with 64 KV heads (one per
    query head) it would be 80 GiB.

    Derived in chapter 15 (Attention in today's models).
    """
    num_kv_heads = whole_number("num_kv_heads", num_kv_heads, 1)
    d_head = whole_number("d_head", d_head, 1)
    return _cache_bytes(2 * num_kv_heads * d_head, num_layers, seq_len, batch, bytes_per_value)


def _cache_bytes(
    per_position: int, num_layers: int, seq_len: int, batch: int = 1, bytes_per_value: float = 2
) -> int | float:
    """The bytes of any attention cache that keeps ``per_position`` numbers per position and
    layer: ``per_position * layers * seq_len * batch * bytes``, checked, an ``int`` when whole.
    ``kv_cache_bytes`` (``2 * kv_heads * d_head`` per position) and
    ``tutorlib.latent.latent_cache_bytes`` (``d_latent + d_rope``) are this count.

    Derived in chapter 15 (Attention in today's models).
    """
    per_position = whole_number("per_position", per_position, 1)
    num_layers = whole_number("num_layers", num_layers, 1)
    seq_len = whole_number("seq_len", seq_len, 0)
    batch = whole_number("batch", batch, 1)
    bpv = finite_number("bytes_per_value", bytes_per_value, hint="2 for float16, 4 for float32")
    if bpv <= 0:
        raise ValueError(f"bytes_per_value must be above 0, got {bytes_per_value}")
    total = per_position * num_layers * seq_len * batch * bpv
    return int(total) if float(total).is_integer() else total


class ModelShape(NamedTuple):
    """The attention shape of a published model, with where each number comes from."""

    layers: int  # decoder layers, each with its own KV cache
    heads: int  # H, query heads
    kv_heads: int  # Hkv, key/value heads (== heads: multi-head; 1: multi-query)
    d_model: int  # D
    d_head: int  # Dh
    window: int | None  # sliding window W, or None for full causal attention
    context: int  # the context length it was trained for
    source: str  # where the numbers are published


_LLAMA2_CARD = "https://github.com/meta-llama/llama/blob/main/MODEL_CARD.md"

PUBLISHED_CONFIGS: dict[str, ModelShape] = {
    "Llama 2 7B": ModelShape(
        layers=32,
        heads=32,
        kv_heads=32,
        d_model=4096,
        d_head=128,
        window=None,
        context=4096,
        source="config.json of huggingface.co/meta-llama/Llama-2-7b-hf (num_hidden_layers 32, "
        "num_attention_heads 32, num_key_value_heads 32, hidden_size 4096, "
        f"max_position_embeddings 4096); 4k context and no GQA: {_LLAMA2_CARD}",
    ),
    "Llama 2 70B": ModelShape(
        layers=80,
        heads=64,
        kv_heads=8,
        d_model=8192,
        d_head=128,
        window=None,
        context=4096,
        source="config.json of huggingface.co/meta-llama/Llama-2-70b-hf (num_hidden_layers 80, "
        "num_attention_heads 64, num_key_value_heads 8, hidden_size 8192, "
        f"max_position_embeddings 4096); 4k context and GQA: {_LLAMA2_CARD}; Touvron et al. "
        "2023, Llama 2, arXiv:2307.09288, appendix A.2.1",
    ),
    "Mistral 7B": ModelShape(
        layers=32,
        heads=32,
        kv_heads=8,
        d_model=4096,
        d_head=128,
        window=4096,
        context=8192,
        source="Jiang et al. 2023, Mistral 7B, arXiv:2310.06825, Table 1 (dim 4096, n_layers 32, "
        "head_dim 128, n_heads 32, n_kv_heads 8, window_size 4096, context_len 8192); "
        "transformers' MistralConfig defaults agree on the layers, heads, head width and window",
    ),
    "Llama 3 8B": ModelShape(
        layers=32,
        heads=32,
        kv_heads=8,
        d_model=4096,
        d_head=128,
        window=None,
        context=8192,
        source="github.com/meta-llama/llama-models, models/sku_list.py, Meta-Llama-3-8B (dim 4096, "
        "n_layers 32, n_heads 32, n_kv_heads 8); 8k context and GQA: "
        "github.com/meta-llama/llama3/blob/main/MODEL_CARD.md",
    ),
}


def published_kv_cache(
    seq_len: int = 32768, batch: int = 1, bytes_per_value: float = 2
) -> list[dict]:
    """The KV cache of each ``PUBLISHED_CONFIGS`` model at ``seq_len`` tokens, three ways.

    One dict per model: ``model``, its ``shape`` and, in bytes,
    ``multi_head`` (as if every query head had its own key/value head),
    ``published`` (its real ``kv_heads``), ``multi_query`` (one key/value
    head) and ``windowed`` (its real heads with the sliding window capping
    the cached positions; equal to ``published`` without a window). The
    defaults are the chapter's: 32k tokens, one sequence, float16.

    Derived in chapter 15 (Attention in today's models).
    """
    seq_len = whole_number("seq_len", seq_len, 0)
    rows = []
    for name, m in PUBLISHED_CONFIGS.items():

        def size(kv_heads: int, tokens: int = seq_len, m=m) -> int | float:
            return kv_cache_bytes(m.layers, kv_heads, m.d_head, tokens, batch, bytes_per_value)

        cached = seq_len if m.window is None else min(seq_len, m.window)
        rows.append(
            {
                "model": name,
                "shape": m,
                "multi_head": size(m.heads),
                "published": size(m.kv_heads),
                "multi_query": size(1),
                "windowed": size(m.kv_heads, cached),
            }
        )
    return rows
