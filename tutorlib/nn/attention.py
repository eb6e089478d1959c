"""Heads (chapter 5), masks (chapter 6) and cross-attention (chapter 7): a
``MultiHeadAttention`` whose keys and values may come from another sequence.

The shape letters and the mask convention are those of :mod:`tutorlib.nn`.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ..checks import attention_shapes, dropout_probability, head_width, token_shape, whole_number
from ..checks import shape_str as _shape

__all__ = [
    "check_tokens",
    "split_heads",
    "merge_heads",
    "MultiHeadAttention",
    "padding_attention_mask",
    "causal_attention_mask",
]


def check_tokens(x, d_model: int, name: str, letters: str = "(B, T, D)") -> None:
    """``x`` must be a ``(B, T, D)`` tensor with ``D == d_model``; shapes only, so it costs
    nothing."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(
            f"{name} must be a torch tensor of shape {letters}, got {type(x).__name__}"
        )
    token_shape(name, x.shape, d_model, letters)


# --- heads (chapter 5) ------------------------------------------------------------


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """``(B, T, D) -> (B, H, T, Dh)``: give each of the ``H`` heads its own ``Dh = D // H``
    features.

    Head ``h`` gets features ``h * Dh`` up to ``(h + 1) * Dh`` of every token.
    Nothing is copied: it is a view of the same numbers, ordered so that the
    heads become a batch dimension and one batched matrix product serves them
    all. ``merge_heads`` undoes it.

    Derived in chapter 5 (Multi-head attention).
    """
    num_heads = whole_number("num_heads", num_heads, 1)
    if not isinstance(x, torch.Tensor) or x.ndim != 3:
        got = _shape(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
        raise ValueError(f"split_heads expects x of shape (B, T, D), got {got}")
    B, T, D = x.shape
    d_head = head_width(D, num_heads, name="D", context=f"(x {_shape(x.shape)})")
    # (B, T, D) -> (B, T, H, Dh) -> (B, H, T, Dh)
    return x.view(B, T, num_heads, d_head).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """``(B, H, T, Dh) -> (B, T, D)``: lay the heads' outputs side by side again (``D = H * Dh``).

    This is the "Concat" of the paper's ``Concat(head_1, ..., head_H) W^O``
    and the inverse of ``split_heads``: ``merge_heads(split_heads(x, H))``
    equals ``x``.

    Derived in chapter 5 (Multi-head attention).
    """
    if not isinstance(x, torch.Tensor) or x.ndim != 4:
        got = _shape(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
        raise ValueError(
            f"merge_heads expects x of shape (B, H, T, Dh), got {got}; did you already merge it?"
        )
    B, H, T, Dh = x.shape
    # (B, H, T, Dh) -> (B, T, H, Dh) -> (B, T, D)
    return x.transpose(1, 2).reshape(B, T, H * Dh)


class MultiHeadAttention(nn.Module):
    r"""Multi-head attention: ``H`` scaled dot-product attentions side by side, then a projection.

    .. math::
        \operatorname{MultiHead}(Q, K, V)
        = \operatorname{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_H)\, W^O,
        \quad \mathrm{head}_i = \operatorname{Attention}(Q W_i^Q, K W_i^K, V W_i^V)

    ``d_model`` (``D``) is the width of every token's vector, ``num_heads``
    (``H``) the number of heads; each head works on ``d_head = D // H``
    features, so all heads together cost about as much as one head of width
    ``D``. ``w_q``, ``w_k``, ``w_v`` hold the ``H`` heads' projections side by
    side (one ``D x D`` matrix each); ``w_o`` is :math:`W^O`.

    ``forward(query, key, value, mask=None, need_weights=False)``::

        query    (B, T_q, D)
        key      (B, T_k, D)
        value    (B, T_k, D)
        mask     boolean, True = may attend, broadcastable to (B, H, T_q, T_k)
        returns  (output (B, T_q, D), weights (B, H, T_q, T_k) or None)

    Self-attention passes the same tensor three times; cross-attention
    (chapter 7) takes ``query`` from the decoder and ``key`` = ``value`` from
    the encoder's output, so ``T_q`` and ``T_k`` may differ.

    Without ``need_weights`` the attention runs in
    ``F.scaled_dot_product_attention`` (fused, fast). With it, the weights
    :math:`\operatorname{softmax}(QK^\top / \sqrt{d_h})` are computed
    explicitly and returned per head; in training they are the weights after
    dropout, the ones actually used (as PyTorch returns them).

    ``MultiHeadAttention.from_torch(m)`` copies the weights of a
    ``torch.nn.MultiheadAttention(batch_first=True)``.

    Derived in chapter 5 (Multi-head attention); masks in chapter 6;
    cross-attention in chapter 7 (Cross-attention).
    """

    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        d_model = whole_number("d_model", d_model, 1)
        num_heads = whole_number("num_heads", num_heads, 1)
        self.d_model = d_model  # D, the width of every token's vector
        self.num_heads = num_heads  # H
        self.d_head = head_width(d_model, num_heads)  # Dh, the width of one head
        # dropout on the attention weights, in training only
        self.dropout = dropout_probability(dropout)
        self.w_q = nn.Linear(d_model, d_model, bias=bias)  # the H heads' W_i^Q side by side
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)  # W^O, mixes the heads' outputs

    def forward(self, query, key, value, mask=None, need_weights: bool = False):
        self._check_inputs(query, key, value, mask)
        # (B, T_q, D) -> (B, T_q, D) -> (B, H, T_q, Dh); keys and values likewise with T_k
        q = split_heads(self.w_q(query), self.num_heads)
        k = split_heads(self.w_k(key), self.num_heads)
        v = split_heads(self.w_v(value), self.num_heads)
        if need_weights:
            # (B, H, T_q, Dh) @ (B, H, Dh, T_k) -> (B, H, T_q, T_k)
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = F.dropout(torch.softmax(scores, dim=-1), self.dropout, self.training)
            # (B, H, T_q, T_k) @ (B, H, T_k, Dh) -> (B, H, T_q, Dh)
            out = weights @ v
        else:
            weights = None
            # the same softmax(q k^T / sqrt(Dh)) v, fused:
            # (B, H, T_q, Dh), (B, H, T_k, Dh) x2 -> (B, H, T_q, Dh)
            out = F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, dropout_p=self.dropout if self.training else 0.0
            )
        # (B, H, T_q, Dh) -> (B, T_q, D) -> (B, T_q, D)
        return self.w_o(merge_heads(out)), weights

    def forward_step(
        self, query: torch.Tensor, cache: dict, memory=None, mask=None
    ) -> torch.Tensor:
        """Attention while decoding one step at a time, with a KV cache:
        ``(B, T_new, D) -> (B, T_new, D)``.

        A decoder that writes one token per step would recompute the keys and
        values of every earlier position at every step. They never change (a
        position only attends to earlier ones), so ``cache``, a dict, keeps them:

        - self-attention (``memory`` None): the new positions' keys and values
          are appended to ``cache["k"]`` and ``cache["v"]``, ``(B, H, T_past, Dh)``,
          and the queries attend to all ``T_past + T_new`` positions;
        - cross-attention (``memory`` the encoder output ``(B, S, D)``): its keys
          and values are projected at the first step and reused at every other.

        The numbers are those of ``forward`` over the whole prefix with a causal
        mask. ``mask`` broadcasts to ``(B, H, T_new, T_k)``; for one new position
        in self-attention None is right (it may see every earlier position),
        in cross-attention it is the source's padding mask. Start with
        ``cache = {}``; no shape checks here, this runs once per generated token.

        Derived in chapter 10 (Translating and evaluating).
        """
        # (B, T_new, D) -> (B, H, T_new, Dh)
        q = split_heads(self.w_q(query), self.num_heads)
        if memory is None:
            # the new positions' keys and values, (B, H, T_new, Dh), after the cached ones
            k = split_heads(self.w_k(query), self.num_heads)
            v = split_heads(self.w_v(query), self.num_heads)
            if "k" in cache:
                # (B, H, T_past, Dh) ++ (B, H, T_new, Dh) -> (B, H, T_past + T_new, Dh)
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
        elif "k" in cache:
            k, v = cache["k"], cache["v"]
        else:
            # (B, S, D) -> (B, H, S, Dh), once per sentence
            k = cache["k"] = split_heads(self.w_k(memory), self.num_heads)
            v = cache["v"] = split_heads(self.w_v(memory), self.num_heads)
        # (B, H, T_new, Dh), (B, H, T_k, Dh) x2 -> (B, H, T_new, Dh)
        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, dropout_p=self.dropout if self.training else 0.0
        )
        # (B, H, T_new, Dh) -> (B, T_new, D) -> (B, T_new, D)
        return self.w_o(merge_heads(out))

    def _check_inputs(self, query, key, value, mask) -> None:
        """Shapes and the mask, checked before any arithmetic; only shape arithmetic and one
        ``any`` over the mask."""
        for name, x, letters in (
            ("query", query, "(B, T_q, D)"),
            ("key", key, "(B, T_k, D)"),
            ("value", value, "(B, T_k, D)"),
        ):
            if not isinstance(x, torch.Tensor):
                got = type(x).__name__
                raise ValueError(f"{name} must be a torch tensor of shape {letters}, got {got}")
        # the shape rules and their errors: tutorlib.checks, shared with chapter 4's attention
        attention_shapes(query, key, value, names=("query", "key", "value"), d_model=self.d_model)
        B, T_q, T_k = query.shape[0], query.shape[1], key.shape[1]
        if mask is None:
            return
        if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
            got = mask.dtype if isinstance(mask, torch.Tensor) else type(mask).__name__
            raise ValueError(
                f"mask must be a boolean tensor with True = may attend, got {got}. If you have "
                "1/0 use mask == 1; an additive mask of 0/-inf: mask == 0; PyTorch's "
                "key_padding_mask (True = ignore): ~key_padding_mask[:, None, None, :]"
            )
        expected = (B, self.num_heads, T_q, T_k)
        if mask.ndim > 4 or any(
            m != 1 and m != e for m, e in zip(reversed(mask.shape), reversed(expected))
        ):
            raise ValueError(
                f"mask of shape {_shape(mask.shape)} does not broadcast to {_shape(expected)} "
                "= (B, H, T_q, T_k). A padding mask of shape (B, T_k) needs "
                "mask[:, None, None, :] (padding_attention_mask does it); a (T_q, T_k) causal "
                "mask broadcasts as it is"
            )
        rows = mask.any(dim=-1) if mask.ndim else mask  # broadcastable to (B, H, T_q)
        if not rows.all():
            where = ", ".join(str(int(i)) for i in torch.nonzero(~rows)[0])
            raise ValueError(
                f"a query row has every key masked: mask[{where}{', ' if where else ''}:] is "
                f"all False (mask {_shape(mask.shape)}, scores (B, H, T_q, T_k) = "
                f"{_shape(expected)}). That query has nothing to attend to and its softmax would "
                "be NaN. Is a whole sequence padding (length 0), or is the mask transposed or "
                "negated?"
            )

    @classmethod
    def from_torch(cls, m: nn.MultiheadAttention) -> MultiHeadAttention:
        """A ``MultiHeadAttention`` with the weights of
        ``torch.nn.MultiheadAttention(batch_first=True)``.

        PyTorch packs the three input projections into one ``in_proj_weight``
        of shape ``(3D, D)``: rows ``0..D-1`` are ``W^Q``, then ``W^K``, then
        ``W^V`` (and ``in_proj_bias`` likewise). The copy gives the same
        output as ``m`` when the masks are translated: our
        ``mask = ~key_padding_mask[:, None, None, :]`` and ``mask = ~attn_mask``
        for a boolean ``attn_mask``. The copy is in ``m``'s dtype, device and
        train/eval mode.

        Derived in chapter 5 (Multi-head attention).
        """
        if not isinstance(m, nn.MultiheadAttention):
            raise ValueError(
                f"from_torch expects a torch.nn.MultiheadAttention, got {type(m).__name__}"
            )
        if not m.batch_first:
            raise ValueError(
                "the torch.nn.MultiheadAttention has batch_first=False: it reads (T, B, D) "
                "tensors, ours reads (B, T, D). Build it with batch_first=True"
            )
        if not m._qkv_same_embed_dim:
            raise ValueError(
                f"the torch.nn.MultiheadAttention has kdim={m.kdim}, vdim={m.vdim} but "
                f"embed_dim={m.embed_dim}: ours projects keys and values from D-wide vectors, so "
                "kdim and vdim must equal embed_dim"
            )
        if m.bias_k is not None or m.add_zero_attn:
            raise ValueError(
                "the torch.nn.MultiheadAttention has add_bias_kv=True or add_zero_attn=True: "
                "these add an extra key that ours does not have"
            )
        weight = m.in_proj_weight
        new = cls(m.embed_dim, m.num_heads, dropout=m.dropout, bias=m.in_proj_bias is not None)
        new = new.to(device=weight.device, dtype=weight.dtype)
        with torch.no_grad():
            # (3D, D) -> three (D, D): W^Q, W^K, W^V in this order
            for linear, w in zip((new.w_q, new.w_k, new.w_v), weight.chunk(3)):
                linear.weight.copy_(w)
            if m.in_proj_bias is not None:
                for linear, b in zip((new.w_q, new.w_k, new.w_v), m.in_proj_bias.chunk(3)):
                    linear.bias.copy_(b)
                new.w_o.bias.copy_(m.out_proj.bias)
            new.w_o.weight.copy_(m.out_proj.weight)
        return new.train(m.training)


# --- masks (chapter 6) -----------------------------------------------------------


def padding_attention_mask(lengths_or_bool, max_len: int | None = None) -> torch.Tensor:
    """``(B, 1, 1, S)`` key mask: True on real tokens, False on padding.

    Give either the lengths, ``(B,)`` whole numbers (``max_len`` defaults to
    the longest), or a ``(B, S)`` boolean tensor with True on real tokens
    (Hugging Face's ``attention_mask == 1``; *not* PyTorch's
    ``key_padding_mask``, which is the negation). The two added axes let it
    broadcast over the heads and the queries of ``(B, H, T, S)`` scores.

    Derived in chapter 6 (Masking).
    """
    x = torch.as_tensor(lengths_or_bool)
    if x.dtype == torch.bool:
        if x.ndim != 2:
            raise ValueError(
                "a boolean padding mask must have shape (B, S) with True on real tokens, got "
                f"shape {_shape(x.shape)}"
            )
        if max_len is not None and max_len != x.shape[1]:
            raise ValueError(f"max_len={max_len} but the boolean mask has S={x.shape[1]} positions")
        real = x
    elif not x.is_floating_point() and not x.is_complex():
        if x.ndim != 1:
            raise ValueError(
                f"lengths must be 1-D (one length per sequence), got shape {_shape(x.shape)}"
            )
        if x.numel() == 0:
            raise ValueError("lengths is empty: there are no sequences to mask")
        if (x < 0).any():
            b = int(torch.nonzero(x < 0)[0])
            raise ValueError(
                f"lengths[{b}]={int(x[b])} is negative; a length counts tokens, so it is at least 0"
            )
        longest = int(x.max())
        max_len = longest if max_len is None else whole_number("max_len", max_len, 1)
        if longest > max_len:
            b = int(torch.nonzero(x > max_len)[0])
            raise ValueError(f"lengths[{b}]={int(x[b])} exceeds max_len={max_len}")
        if max_len == 0:
            raise ValueError("every length is 0: there is no token to attend to")
        # (1, S) < (B, 1) -> (B, S)
        real = torch.arange(max_len, device=x.device)[None, :] < x[:, None]
    else:
        raise ValueError(
            "expected (B,) integer lengths or a (B, S) boolean mask (True = real token), got "
            f"dtype {x.dtype} of shape {_shape(x.shape)}. Lengths of dtype float: use "
            "lengths.long()"
        )
    # (B, S) -> (B, 1, 1, S)
    return real[:, None, None, :]


def causal_attention_mask(T: int, device=None) -> torch.Tensor:
    """``(T, T)`` boolean mask, True on and below the diagonal.

    Query position ``t`` may attend to key positions ``0..t`` and to none
    after it: the mask of a decoder's self-attention. It broadcasts against
    ``(B, H, T, T)`` as it is, and combines with a padding mask by ``&``:
    ``causal_attention_mask(T) & padding_attention_mask(lengths)`` has shape
    ``(B, 1, T, T)``.

    Derived in chapter 6 (Masking).
    """
    T = whole_number("T", T, 1)
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()
