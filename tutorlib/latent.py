"""Multi-head latent attention (MLA): the code of chapter 17 ("attention at serving scale").

Grouped-query attention (chapter 15, ``tutorlib.modern``) shrinks the KV cache
by giving fewer heads their own keys and values. DeepSeek-V2 (DeepSeek-AI
2024, "DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts
Language Model", section 2.1) keeps one key and one value per query head but
caches neither: each token is compressed to one short **latent** vector, and
every head's key and value are read back out of it by two up-projections.

- ``MultiHeadLatentAttention``: the layer. ``x -> c_KV`` (``Dc`` numbers per
  token), ``c_KV -> H`` keys and ``H`` values of ``Dh``; positions enter
  through a *decoupled* RoPE part, a per-head query of ``Dr`` features and
  ONE RoPE key of ``Dr`` features per token, shared by all heads. The cache
  holds ``c_KV`` and that key: ``Dc + Dr`` numbers per token per layer.
  ``forward_step`` decodes with that cache, plainly or in the *absorbed*
  form (``W_UK`` folded into the query, ``W_UV`` after the weighted sum).
- ``latent_cache_bytes``: the cache's memory, the counterpart of
  ``tutorlib.modern.kv_cache_bytes``.
- ``LatentShape``, ``DEEPSEEK_V2``, ``published_latent_cache``: the published
  shape of DeepSeek-V2's attention and its cache against multi-head,
  grouped-query and multi-query caches of the same heads.

Why the RoPE part is separate: RoPE turns each key by its position, after the
projection. A key read out of the latent, ``W_UK c_KV``, turned by its
position is ``R(pos) W_UK c_KV``, and the absorbed form needs ``W_UK`` to sit
next to the query, which the rotation between them forbids (``q^T R(m - n)
W_UK`` depends on the offset, one matrix per pair of positions). So the
latent part carries no position, and a small extra query/key pair carries it.

Shape letters (the book's notation page): ``B`` batch, ``T`` positions (the
queries), ``S`` the keys where they differ from ``T``, ``D`` = ``d_model``,
``H`` heads, ``Dh`` = ``D // H`` the width of one head's no-position query,
key and value, ``Dc`` = ``d_latent`` the latent's width, ``Dr`` = ``d_rope``
the width of the RoPE query of a head and of the one shared RoPE key. Masks
are boolean with **True = may attend**, as everywhere in tutorlib.

Derived in chapter 17 (Attention at serving scale).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from .checks import dropout_probability, head_width, whole_number
from .modern import _cache_bytes, _check_base, apply_rope, kv_cache_bytes
from .nn import MultiHeadAttention, merge_heads, split_heads

__all__ = [
    "MultiHeadLatentAttention",
    "latent_cache_bytes",
    "LatentShape",
    "DEEPSEEK_V2",
    "published_latent_cache",
]


def _rope_width(d_rope) -> int:
    d_rope = whole_number(
        "d_rope", d_rope, 2, hint="the decoupled RoPE query and key need at least one pair"
    )
    if d_rope % 2:
        raise ValueError(
            f"d_rope must be even, got {d_rope}: RoPE turns features in pairs, so the decoupled "
            "RoPE query of each head and the shared RoPE key are d_rope = 2, 4, 6... wide"
        )
    return d_rope


class MultiHeadLatentAttention(nn.Module):
    r"""Multi-head latent attention: keys and values from one cached latent, RoPE kept apart.

    For each token ``x`` (``D`` numbers) of the keys' side::

        c_KV = W_DKV x                    (Dc)       the latent, cached
        k_R  = RoPE(W_KR x)               (Dr)       one RoPE key, shared by the heads, cached
        k_h  = [W_UK,h c_KV ; k_R]        (Dh + Dr)  head h's key
        v_h  = W_UV,h c_KV                (Dh)       head h's value

    and for each query token::

        q_h  = [W_Q,h x ; RoPE(W_QR,h x)] (Dh + Dr)

    Head ``h`` scores ``q_h . k_h / sqrt(Dh + Dr)``, takes the softmax and the
    weighted sum of its values; ``W_O`` mixes the heads, as in
    ``MultiHeadAttention``. ``W_UK`` and ``W_UV`` (``Dc -> H * Dh``, no bias)
    are the up-projections; ``W_DKV`` (``D -> Dc``) the down-projection. A
    decoder caches ``c_KV`` and ``k_R``: ``Dc + Dr`` numbers per token per
    layer, where multi-head attention caches ``2 * H * Dh``.

    The queries are not compressed here: DeepSeek-V2 also sends them through
    a latent of their own, to save training memory, not cache (DeepSeek-V2-Lite
    does not), and RMS-normalises the latent; both are left out.

    ``forward(query, key, value, mask=None, need_weights=False)``: the
    conventions of ``MultiHeadAttention``; keys and values come from one
    latent of the same tokens, so ``value`` must be ``key`` itself. RoPE turns
    the queries at positions ``0 .. T-1`` and the keys at ``0 .. S-1``.

    ``forward_step(query, cache, mask=None, absorbed=False)`` decodes with the
    latent cache (self-attention); see its docstring.

    Derived in chapter 17 (Attention at serving scale).
    """

    _check_inputs = MultiHeadAttention._check_inputs  # its shapes, mask and errors

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_latent: int,
        d_rope: int,
        dropout: float = 0.0,
        bias: bool = True,
        rope_base: float = 10000.0,
    ):
        super().__init__()
        d_model = whole_number("d_model", d_model, 1)
        num_heads = whole_number("num_heads", num_heads, 1)
        self.d_head = head_width(d_model, num_heads)  # Dh
        self.d_latent = whole_number(
            "d_latent",
            d_latent,
            1,
            hint="the latent c_KV is what the cache keeps of each token, at least one number",
        )  # Dc
        self.d_rope = _rope_width(d_rope)  # Dr
        self.d_model, self.num_heads = d_model, num_heads  # D, H
        self.rope_base = _check_base(rope_base)
        self.dropout = dropout_probability(dropout)
        H, Dh, Dc, Dr = num_heads, self.d_head, self.d_latent, self.d_rope
        self.w_q = nn.Linear(d_model, H * Dh, bias=bias)  # the no-position queries
        self.w_qr = nn.Linear(d_model, H * Dr, bias=bias)  # the RoPE queries, one per head
        self.w_dkv = nn.Linear(d_model, Dc, bias=bias)  # down: x -> c_KV
        self.w_kr = nn.Linear(d_model, Dr, bias=bias)  # the one RoPE key of a token
        self.w_uk = nn.Linear(Dc, H * Dh, bias=False)  # up: c_KV -> H keys
        self.w_uv = nn.Linear(Dc, H * Dh, bias=False)  # up: c_KV -> H values
        self.w_o = nn.Linear(H * Dh, d_model, bias=bias)

    # --- the parts --------------------------------------------------------------------------

    def latent(self, x: torch.Tensor, start: int = 0):
        """What the cache keeps of tokens ``x (B, S, D)`` at positions ``start ..``:
        ``c_KV (B, S, Dc)`` and the RoPE key ``k_R (B, S, Dr)``, turned at its position."""
        # (B, S, D) -> (B, S, Dr): one key per token for all heads, turned by its position
        k_rope = apply_rope(self.w_kr(x), positions=start, base=self.rope_base)
        return self.w_dkv(x), k_rope  # (B, S, Dc), (B, S, Dr)

    def queries(self, x: torch.Tensor, start: int = 0):
        """``x (B, T, D)`` -> the no-position queries ``(B, H, T, Dh)`` and the RoPE queries
        ``(B, H, T, Dr)``, turned at positions ``start .. start + T - 1``."""
        q = split_heads(self.w_q(x), self.num_heads)  # (B, H, T, Dh)
        q_rope = split_heads(self.w_qr(x), self.num_heads)  # (B, H, T, Dr)
        return q, apply_rope(q_rope, positions=start, base=self.rope_base)

    def keys_values(self, c_kv: torch.Tensor, k_rope: torch.Tensor):
        """The heads' keys ``(B, H, S, Dh + Dr)`` and values ``(B, H, S, Dh)`` read out of the
        latent ``c_KV (B, S, Dc)`` and the shared RoPE key ``k_R (B, S, Dr)``."""
        k = split_heads(self.w_uk(c_kv), self.num_heads)  # (B, S, Dc) -> (B, H, S, Dh)
        v = split_heads(self.w_uv(c_kv), self.num_heads)  # (B, S, Dc) -> (B, H, S, Dh)
        B, H, S, _ = k.shape
        # (B, S, Dr) -> (B, 1, S, Dr) -> (B, H, S, Dr): the same RoPE key for every head
        shared = k_rope[:, None].expand(B, H, S, self.d_rope)
        return torch.cat([k, shared], dim=-1), v  # (B, H, S, Dh + Dr), (B, H, S, Dh)

    # --- attention ----------------------------------------------------------------------------

    def forward(self, query, key, value, mask=None, need_weights: bool = False):
        self._check_inputs(query, key, value, mask)
        if value is not key:
            raise ValueError(
                "multi-head latent attention reads keys and values out of one latent of the same "
                "tokens: pass the same tensor as key and value (self-attention: x, x, x)"
            )
        q, q_rope = self.queries(query)  # (B, H, T, Dh), (B, H, T, Dr)
        k, v = self.keys_values(*self.latent(key))  # (B, H, S, Dh + Dr), (B, H, S, Dh)
        q = torch.cat([q, q_rope], dim=-1)  # (B, H, T, Dh + Dr)
        out, weights = self._attend(q, k, v, mask, need_weights)
        # (B, H, T, Dh) -> (B, T, H * Dh) -> (B, T, D)
        return self.w_o(merge_heads(out)), weights

    def _attend(self, q, k, v, mask, need_weights: bool):
        """q ``(B, H, T, Dh + Dr)``, k ``(B, H, S, Dh + Dr)``, v ``(B, H, S, Dh)``:
        softmax(q k^T / sqrt(Dh + Dr)) v ``(B, H, T, Dh)``, and the weights or None."""
        p = self.dropout if self.training else 0.0
        if not need_weights:
            # the same, fused; its scale is 1 / sqrt(q's width), sqrt(Dh + Dr)
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p), None
        # (B, H, T, Dh + Dr) @ (B, H, Dh + Dr, S) -> (B, H, T, S)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head + self.d_rope)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = F.dropout(torch.softmax(scores, dim=-1), p, self.training)
        return weights @ v, weights  # (B, H, T, S) @ (B, H, S, Dh) -> (B, H, T, Dh)

    def forward_step(
        self, query: torch.Tensor, cache: dict, mask=None, absorbed: bool = False
    ) -> torch.Tensor:
        """Self-attention of the newest positions with the latent cache, ``(B, T_new, D)``.

        ``cache`` (a dict, ``{}`` at the first step) keeps ``cache["latent"]``,
        ``c_KV (B, T_past, Dc)``, and ``cache["k_rope"]``, ``(B, T_past, Dr)``,
        the shared RoPE keys turned at their own positions: ``Dc + Dr``
        numbers per token, never the heads' keys and values. ``cache["t"]``
        counts the positions seen so far; the new queries and RoPE keys are
        turned at ``t .. t + T_new - 1``. ``mask`` (True = may attend)
        broadcasts to ``(B, H, T_new, T_cached)`` and is combined (``&``) with
        the causal order of the new positions; for one new position None is
        right.

        ``absorbed=False`` reads every head's keys and values out of the whole
        cached latent at each step (``W_UK c``, ``W_UV c`` for all ``T``
        positions). ``absorbed=True`` does the same arithmetic in another
        order, as DeepSeek-V2 serves it: head ``h``'s score of the latent part
        is ``q_h . (W_UK,h c) = (W_UK,h^T q_h) . c``, so the query is taken
        into the latent's space once (``Dc`` numbers per head) and scored
        against the cached latents themselves; likewise the weighted sum of
        ``W_UV,h c`` is ``W_UV,h`` times the weighted sum of the latents. No
        key or value of ``Dh`` is ever made. The numbers are those of
        ``forward`` over the whole prefix under ``causal_attention_mask``, in
        either form (up to rounding). No shape checks here: this runs once per
        generated token.

        Derived in chapter 17 (Attention at serving scale).
        """
        t = cache.get("t", 0)
        T_new = query.shape[1]
        q, q_rope = self.queries(query, start=t)  # (B, H, T_new, Dh), (B, H, T_new, Dr)
        c_kv, k_rope = self.latent(query, start=t)  # (B, T_new, Dc), (B, T_new, Dr)
        if "latent" in cache:
            # (B, T_past, Dc) ++ (B, T_new, Dc) -> (B, T, Dc); the RoPE keys likewise
            c_kv = torch.cat([cache["latent"], c_kv], dim=1)
            k_rope = torch.cat([cache["k_rope"], k_rope], dim=1)
        T = c_kv.shape[1]
        if T_new > 1:
            # new query i may read cached key j when j <= (T - T_new) + i: (T_new, T)
            allowed = torch.ones(T_new, T, dtype=torch.bool, device=query.device)
            allowed = allowed.tril(T - T_new)
            mask = allowed if mask is None else mask & allowed
        if absorbed:
            out = self._absorbed(q, q_rope, c_kv, k_rope, mask)
        else:
            k, v = self.keys_values(c_kv, k_rope)  # (B, H, T, Dh + Dr), (B, H, T, Dh)
            out, _ = self._attend(torch.cat([q, q_rope], dim=-1), k, v, mask, False)
        cache["latent"], cache["k_rope"], cache["t"] = c_kv, k_rope, t + T_new
        # (B, H, T_new, Dh) -> (B, T_new, H * Dh) -> (B, T_new, D)
        return self.w_o(merge_heads(out))

    def _absorbed(self, q, q_rope, c_kv, k_rope, mask) -> torch.Tensor:
        """Attention straight on the cache: ``W_UK`` folded into the queries, ``W_UV`` applied
        after the weighted sum of the latents. Returns ``(B, H, T_new, Dh)``."""
        H, Dh, Dc = self.num_heads, self.d_head, self.d_latent
        w_uk = self.w_uk.weight.reshape(H, Dh, Dc)  # (H * Dh, Dc) -> (H, Dh, Dc)
        w_uv = self.w_uv.weight.reshape(H, Dh, Dc)
        B, _, T_new, _ = q.shape
        # (B, H, T_new, Dh) . (H, Dh, Dc) -> (B, H, T_new, Dc): each head's query in latent space
        q_latent = torch.einsum("bhtd,hdc->bhtc", q, w_uk)
        # the H heads' rows stacked, against the one latent of each position (as
        # GroupedQueryAttention stacks a group's heads): (B, H*T_new, Dc) @ (B, Dc, T)
        scores = q_latent.reshape(B, H * T_new, Dc) @ c_kv.transpose(1, 2)
        # plus the RoPE part: (B, H*T_new, Dr) @ (B, Dr, T) -> (B, H*T_new, T)
        scores = scores + q_rope.reshape(B, H * T_new, self.d_rope) @ k_rope.transpose(1, 2)
        scores = scores.reshape(B, H, T_new, -1) / math.sqrt(Dh + self.d_rope)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)  # eval only: decoding has no dropout
        # (B, H*T_new, T) @ (B, T, Dc) -> (B, H, T_new, Dc): the weighted sum of the latents
        mixed = (weights.reshape(B, H * T_new, -1) @ c_kv).reshape(B, H, T_new, Dc)
        # (B, H, T_new, Dc) . (H, Dh, Dc) -> (B, H, T_new, Dh): W_UV after the sum
        return torch.einsum("bhtc,hdc->bhtd", mixed, w_uv)

    def cache_numbers_per_token(self) -> int:
        """What one layer caches of one token: ``Dc + Dr`` numbers."""
        return self.d_latent + self.d_rope


# --- the cache's memory -----------------------------------------------------------------------


def latent_cache_bytes(
    num_layers: int,
    d_latent: int,
    d_rope: int,
    seq_len: int,
    batch: int = 1,
    bytes_per_value: float = 2,
) -> int | float:
    """The memory of an MLA cache: ``layers * (d_latent + d_rope) * seq_len * batch * bytes``.

    Each layer keeps, for each of ``seq_len`` positions of each of ``batch``
    sequences, the latent ``c_KV`` (``d_latent`` numbers) and the one shared
    RoPE key (``d_rope``). There is no ``2`` and no head count: one latent
    serves every head's key and value. ``bytes_per_value`` as in
    ``tutorlib.modern.kv_cache_bytes`` (2 for float16, the default; 4 for
    float32). Returns an ``int`` when the total is whole.

    DeepSeek-V2 (60 layers, ``d_latent=512``, ``d_rope=64``) at 32k tokens in
    float16: ``latent_cache_bytes(60, 512, 64, 32768)`` is 2.1 GiB, where 128
    heads of 128 with multi-head attention would need 120 GiB.

    Derived in chapter 17 (Attention at serving scale).
    """
    d_latent = whole_number("d_latent", d_latent, 1)
    d_rope = whole_number("d_rope", d_rope, 0)
    return _cache_bytes(d_latent + d_rope, num_layers, seq_len, batch, bytes_per_value)


class LatentShape(NamedTuple):
    """The attention shape of a published MLA model, with where each number comes from."""

    layers: int  # decoder layers, each with its own cache
    heads: int  # H, query heads (each with its own key and value, read from the latent)
    d_model: int  # D
    d_head: int  # Dh, the no-position part of a query and key, and a value
    d_latent: int  # Dc, the cached latent c_KV
    d_rope: int  # Dr, the decoupled RoPE query per head and the one shared RoPE key
    source: str  # where the numbers are published


DEEPSEEK_V2 = LatentShape(
    layers=60,
    heads=128,
    d_model=5120,
    d_head=128,
    d_latent=512,
    d_rope=64,
    source="DeepSeek-AI 2024, DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts "
    "Language Model, arXiv:2405.04434, section 3.1.2 (60 layers, hidden dimension 5120, n_h = "
    "128 heads of d_h = 128, KV compression d_c = 512 = 4 d_h, decoupled RoPE d_h^R = 64 = d_h / "
    "2) and Table 1 (KV cache per token: MHA 2 n_h d_h l, GQA 2 n_g d_h l, MQA 2 d_h l, MLA "
    "(d_c + d_h^R) l, about 9/2 d_h l); config.json of huggingface.co/deepseek-ai/DeepSeek-V2 "
    "(num_hidden_layers 60, hidden_size 5120, num_attention_heads 128, qk_nope_head_dim 128, "
    "v_head_dim 128, kv_lora_rank 512, qk_rope_head_dim 64)",
)


def published_latent_cache(
    seq_len: int = 32768, batch: int = 1, bytes_per_value: float = 2, shape: LatentShape = None
) -> dict:
    """DeepSeek-V2's cache at ``seq_len`` tokens, against caches of the same heads without MLA.

    Returns a dict of bytes: ``multi_head`` (``H`` keys and values of ``Dh``
    per token per layer), ``grouped_8`` (8 key/value heads, as Llama 2 70B),
    ``multi_query`` (one), ``latent`` (``Dc + Dr`` numbers), and the numbers
    cached per token per layer as ``per_token_multi_head``, ``per_token_latent``.
    The defaults are chapter 15's: 32k tokens, one sequence, float16.

    Derived in chapter 17 (Attention at serving scale).
    """
    m = DEEPSEEK_V2 if shape is None else shape
    if not isinstance(m, LatentShape):
        raise ValueError(f"shape must be a LatentShape, got {type(m).__name__}")

    def kv(heads: int) -> int | float:
        return kv_cache_bytes(m.layers, heads, m.d_head, seq_len, batch, bytes_per_value)

    return {
        "multi_head": kv(m.heads),
        "grouped_8": kv(8),
        "multi_query": kv(1),
        "latent": latent_cache_bytes(
            m.layers, m.d_latent, m.d_rope, seq_len, batch, bytes_per_value
        ),
        "per_token_multi_head": 2 * m.heads * m.d_head,
        "per_token_latent": m.d_latent + m.d_rope,
    }
