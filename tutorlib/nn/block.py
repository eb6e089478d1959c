"""Positions, the feed-forward network and the encoder and decoder layers and stacks
(chapter 8), built on :mod:`tutorlib.nn.attention`.

The shape letters and the mask convention are those of :mod:`tutorlib.nn`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..checks import dropout_probability, whole_number
from ..checks import shape_str as _shape
from .attention import MultiHeadAttention, check_tokens

__all__ = [
    "sinusoidal_positional_encoding",
    "PositionalEncoding",
    "FeedForward",
    "EncoderLayer",
    "DecoderLayer",
    "Encoder",
    "Decoder",
]


# --- positions, feed-forward and the Transformer block (chapter 8) ---------------------


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    r"""The paper's fixed positional encodings, ``(max_len, D)``.

    .. math::
        PE_{p,\,2i} = \sin\!\left(p / 10000^{2i/D}\right), \qquad
        PE_{p,\,2i+1} = \cos\!\left(p / 10000^{2i/D}\right)

    Even features hold sines and odd features cosines, interleaved as in the
    paper; the pair ``(2i, 2i+1)`` turns at one frequency, from one turn per
    ``2 pi`` positions (``i = 0``) to one per ``10000 * 2 pi``. Computed in
    float64 and returned in the default dtype. (An odd ``d_model`` ends with
    one sine and no cosine.)

    Derived in chapter 8 (Positional encoding and the Transformer block).
    """
    max_len = whole_number("max_len", max_len, 1)
    d_model = whole_number("d_model", d_model, 1)
    position = torch.arange(max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # 2i = 0, 2, 4, ...
    # (max_len, 1) / (ceil(D/2),) -> (max_len, ceil(D/2))
    angle = position / 10000.0 ** (two_i / d_model)
    pe = torch.empty(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe.to(torch.get_default_dtype())


class PositionalEncoding(nn.Module):
    """Adds a position's vector to each token: ``x + PE[:T]``, then dropout.

    ``kind="sinusoidal"`` uses the paper's fixed encodings (a buffer ``pe``,
    no parameters); ``kind="learned"`` learns one vector per position (a
    parameter ``pe`` of shape ``(max_len, D)``, like GPT and BERT), which
    cannot go beyond the ``max_len`` positions seen in training. The paper
    also multiplies the token embeddings by ``sqrt(d_model)`` before adding;
    that belongs to the embedding, not here.

    ``forward(x (B, T, D)) -> (B, T, D)``; ``T`` may not exceed ``max_len``.

    Derived in chapter 8 (Positional encoding and the Transformer block).
    """

    def __init__(
        self, d_model: int, max_len: int = 512, kind: str = "sinusoidal", dropout: float = 0.0
    ):
        super().__init__()
        self.d_model = whole_number("d_model", d_model, 1)
        self.max_len = whole_number("max_len", max_len, 1)
        self.kind = kind
        if kind == "sinusoidal":
            self.register_buffer(
                "pe", sinusoidal_positional_encoding(max_len, d_model), persistent=False
            )
        elif kind == "learned":
            self.pe = nn.Parameter(torch.randn(max_len, d_model) * 0.02)
        else:
            raise ValueError(f'kind must be "sinusoidal" or "learned", got {kind!r}')
        self.dropout = nn.Dropout(dropout_probability(dropout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tokens(x, self.d_model, "x")
        T = x.shape[1]
        if T > self.max_len:
            raise ValueError(
                f"the input has T={T} positions (x {_shape(x.shape)}) but this PositionalEncoding "
                f"has max_len={self.max_len} position vectors: build it with max_len >= {T}, or "
                "shorten the input"
            )
        # (B, T, D) + (T, D) -> (B, T, D)
        return self.dropout(x + self.pe[:T])


class FeedForward(nn.Module):
    r"""The position-wise feed-forward network: the same two-layer MLP for every token.

    .. math:: \operatorname{FFN}(x) = \max(0,\, x W_1 + b_1)\, W_2 + b_2

    ``d_ff`` is the hidden width (2048 = 4 x 512 in the paper). Order:
    ``linear1 -> ReLU -> dropout -> linear2``, as in
    ``torch.nn.TransformerEncoderLayer``. ``forward(x (B, T, D)) -> (B, T, D)``.

    Derived in chapter 8 (Positional encoding and the Transformer block).
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        self.d_model = whole_number("d_model", d_model, 1)
        self.linear1 = nn.Linear(d_model, whole_number("d_ff", d_ff, 1))
        self.dropout = nn.Dropout(dropout_probability(dropout))
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tokens(x, self.d_model, "x")
        # (B, T, D) -> (B, T, d_ff) -> (B, T, D)
        return self.linear2(self.dropout(F.relu(self.linear1(x))))


class EncoderLayer(nn.Module):
    """One encoder layer: self-attention, then feed-forward, each with a residual and a LayerNorm.

    Post-norm, as in the paper (default)::

        x = norm1(x + dropout1(self_attn(x, x, x, mask)))
        x = norm2(x + dropout2(feed_forward(x)))

    Pre-norm (``norm_first=True``; steadier for deep stacks, used by most
    modern models)::

        x = x + dropout1(self_attn(norm1(x), ..., mask))
        x = x + dropout2(feed_forward(norm2(x)))

    ``forward(x (B, S, D), mask=None, need_weights=False)`` returns ``(B, S, D)``,
    or ``(output, weights (B, H, S, S))`` with ``need_weights``. ``mask`` is
    usually ``padding_attention_mask(lengths)``, ``(B, 1, 1, S)``.
    ``EncoderLayer.from_torch(m)`` copies a
    ``torch.nn.TransformerEncoderLayer(batch_first=True, activation="relu")``.

    Derived in chapter 8 (Positional encoding and the Transformer block).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
    ):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)  # on each sublayer's output, before the residual sum
        self.dropout2 = nn.Dropout(dropout)
        self.norm_first = bool(norm_first)  # False: post-norm (the paper); True: pre-norm

    def forward(self, x: torch.Tensor, mask=None, need_weights: bool = False):
        if self.norm_first:
            h = self.norm1(x)
            h, weights = self.self_attn(h, h, h, mask=mask, need_weights=need_weights)
            x = x + self.dropout1(h)
            x = x + self.dropout2(self.feed_forward(self.norm2(x)))
        else:
            h, weights = self.self_attn(x, x, x, mask=mask, need_weights=need_weights)
            x = self.norm1(x + self.dropout1(h))
            x = self.norm2(x + self.dropout2(self.feed_forward(x)))
        return (x, weights) if need_weights else x

    @classmethod
    def from_torch(cls, m: nn.TransformerEncoderLayer) -> EncoderLayer:
        """An ``EncoderLayer`` with the weights of
        ``torch.nn.TransformerEncoderLayer(batch_first=True)``.

        ``activation`` must be ReLU; ``norm_first`` is taken over. The copy is
        in ``m``'s dtype, device and train/eval mode.

        Derived in chapter 8 (Positional encoding and the Transformer block).
        """
        _check_torch_layer(m, nn.TransformerEncoderLayer)
        attn = m.self_attn
        layer = cls(
            attn.embed_dim, attn.num_heads, m.linear1.out_features, m.dropout.p, m.norm_first
        )
        layer = layer.to(device=m.linear1.weight.device, dtype=m.linear1.weight.dtype)
        layer.self_attn = MultiHeadAttention.from_torch(attn)
        _copy_feed_forward(layer.feed_forward, m)
        _copy_norms((layer.norm1, layer.norm2), (m.norm1, m.norm2))
        return layer.train(m.training)


class DecoderLayer(nn.Module):
    """One decoder layer: masked self-attention, cross-attention, feed-forward; each with
    residual + LayerNorm.

    Post-norm, as in the paper (default)::

        x = norm1(x + dropout1(self_attn(x, x, x, tgt_mask)))
        x = norm2(x + dropout2(cross_attn(x, memory, memory, memory_mask)))
        x = norm3(x + dropout3(feed_forward(x)))

    Pre-norm (``norm_first=True``) normalises each sublayer's input instead:
    ``x = x + dropout1(self_attn(norm1(x), ...))`` and so on.

    The queries of the cross-attention come from the decoder (``x``), its keys
    and values from the encoder's output ``memory`` (chapter 7, Cross-attention).
    ``forward(x (B, T, D), memory (B, S, D), tgt_mask=None, memory_mask=None,
    need_weights=False)`` returns ``(B, T, D)``, or with ``need_weights``
    ``(output, self_weights (B, H, T, T), cross_weights (B, H, T, S))``.
    ``tgt_mask`` is usually ``causal_attention_mask(T)`` (``& padding_attention_mask``
    of the target lengths), ``memory_mask`` the source's
    ``padding_attention_mask``, ``(B, 1, 1, S)``.
    ``DecoderLayer.from_torch(m)`` copies a
    ``torch.nn.TransformerDecoderLayer(batch_first=True, activation="relu")``.

    Derived in chapter 8 (Positional encoding and the Transformer block).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
    ):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)
        self.norm_first = bool(norm_first)  # False: post-norm (the paper); True: pre-norm

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        tgt_mask=None,
        memory_mask=None,
        need_weights: bool = False,
    ):
        if self.norm_first:
            h = self.norm1(x)
            h, self_weights = self.self_attn(h, h, h, mask=tgt_mask, need_weights=need_weights)
            x = x + self.dropout1(h)
            h, cross_weights = self.cross_attn(
                self.norm2(x), memory, memory, mask=memory_mask, need_weights=need_weights
            )
            x = x + self.dropout2(h)
            x = x + self.dropout3(self.feed_forward(self.norm3(x)))
        else:
            h, self_weights = self.self_attn(x, x, x, mask=tgt_mask, need_weights=need_weights)
            x = self.norm1(x + self.dropout1(h))
            h, cross_weights = self.cross_attn(
                x, memory, memory, mask=memory_mask, need_weights=need_weights
            )
            x = self.norm2(x + self.dropout2(h))
            x = self.norm3(x + self.dropout3(self.feed_forward(x)))
        return (x, self_weights, cross_weights) if need_weights else x

    def forward_step(
        self, x: torch.Tensor, memory: torch.Tensor, memory_mask, cache: dict, tgt_mask=None
    ) -> torch.Tensor:
        """``forward`` for the newest positions only, with a KV cache:
        ``x (B, T_new, D) -> (B, T_new, D)``.

        ``cache`` (a dict, empty at the first step) holds the self-attention's
        keys and values of the earlier positions and the cross-attention's of
        ``memory`` (``MultiHeadAttention.forward_step``). Each sublayer is the
        one of ``forward``; only the self-attention reads the past from the
        cache instead of from ``x``. ``tgt_mask``: None for one new position.

        Derived in chapter 10 (Translating and evaluating).
        """
        self_cache = cache.setdefault("self_attn", {})
        cross_cache = cache.setdefault("cross_attn", {})
        if self.norm_first:
            x = x + self.dropout1(
                self.self_attn.forward_step(self.norm1(x), self_cache, mask=tgt_mask)
            )
            x = x + self.dropout2(
                self.cross_attn.forward_step(self.norm2(x), cross_cache, memory, memory_mask)
            )
            x = x + self.dropout3(self.feed_forward(self.norm3(x)))
        else:
            x = self.norm1(
                x + self.dropout1(self.self_attn.forward_step(x, self_cache, mask=tgt_mask))
            )
            x = self.norm2(
                x + self.dropout2(self.cross_attn.forward_step(x, cross_cache, memory, memory_mask))
            )
            x = self.norm3(x + self.dropout3(self.feed_forward(x)))
        return x

    @classmethod
    def from_torch(cls, m: nn.TransformerDecoderLayer) -> DecoderLayer:
        """A ``DecoderLayer`` with the weights of
        ``torch.nn.TransformerDecoderLayer(batch_first=True)``.

        PyTorch's ``multihead_attn`` becomes ``cross_attn``. ``activation``
        must be ReLU; ``norm_first`` is taken over. The copy is in ``m``'s
        dtype, device and train/eval mode.

        Derived in chapter 8 (Positional encoding and the Transformer block).
        """
        _check_torch_layer(m, nn.TransformerDecoderLayer)
        attn = m.self_attn
        layer = cls(
            attn.embed_dim, attn.num_heads, m.linear1.out_features, m.dropout.p, m.norm_first
        )
        layer = layer.to(device=m.linear1.weight.device, dtype=m.linear1.weight.dtype)
        layer.self_attn = MultiHeadAttention.from_torch(attn)
        layer.cross_attn = MultiHeadAttention.from_torch(m.multihead_attn)
        _copy_feed_forward(layer.feed_forward, m)
        _copy_norms((layer.norm1, layer.norm2, layer.norm3), (m.norm1, m.norm2, m.norm3))
        return layer.train(m.training)


def _check_torch_layer(m, kind) -> None:
    if not isinstance(m, kind):
        raise ValueError(f"from_torch expects a torch.nn.{kind.__name__}, got {type(m).__name__}")
    if not m.self_attn.batch_first:
        raise ValueError(
            f"the torch.nn.{kind.__name__} has batch_first=False: it reads (T, B, D) tensors, "
            "ours reads (B, T, D). Build it with batch_first=True"
        )
    if not (m.activation is F.relu or isinstance(m.activation, nn.ReLU)):
        raise ValueError(
            f"the torch.nn.{kind.__name__} uses activation "
            f"{getattr(m.activation, '__name__', m.activation)!r}, "
            'but FeedForward uses ReLU as in the paper: build it with activation="relu"'
        )
    if m.linear1.bias is None or m.norm1.bias is None:
        raise ValueError(
            f"the torch.nn.{kind.__name__} has bias=False; ours has biases in every Linear and "
            "LayerNorm"
        )


def _copy_feed_forward(ff: FeedForward, m) -> None:
    with torch.no_grad():
        for ours, theirs in ((ff.linear1, m.linear1), (ff.linear2, m.linear2)):
            ours.weight.copy_(theirs.weight)
            ours.bias.copy_(theirs.bias)


def _copy_norms(ours, theirs) -> None:
    with torch.no_grad():
        for a, b in zip(ours, theirs):
            a.weight.copy_(b.weight)
            a.bias.copy_(b.bias)
            a.eps = b.eps


class Encoder(nn.Module):
    """A stack of ``num_layers`` encoder layers (the paper: 6 layers, D=512, H=8, d_ff=2048).

    With ``norm_first`` a final LayerNorm (``norm``) follows the last layer:
    in pre-norm the residual stream is never normalised after the last
    sublayer, so the stack does it once at the end. In post-norm ``norm`` is
    None (each layer already ends with one).

    ``forward(x (B, S, D), mask=None, need_weights=False)`` returns ``(B, S, D)``,
    or ``(output, [weights (B, H, S, S) of each layer])`` with ``need_weights``.

    Derived in chapter 8 (Positional encoding and the Transformer block).
    """

    def __init__(
        self,
        num_layers: int,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
    ):
        super().__init__()
        num_layers = whole_number("num_layers", num_layers, 1)
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model) if norm_first else None

    def forward(self, x: torch.Tensor, mask=None, need_weights: bool = False):
        all_weights = []
        for layer in self.layers:
            if need_weights:
                x, weights = layer(x, mask, need_weights=True)
                all_weights.append(weights)
            else:
                x = layer(x, mask)
        if self.norm is not None:
            x = self.norm(x)
        return (x, all_weights) if need_weights else x


class Decoder(nn.Module):
    """A stack of ``num_layers`` decoder layers, each reading the same encoder output ``memory``.

    With ``norm_first`` a final LayerNorm (``norm``) follows the last layer,
    as in ``Encoder``.

    ``forward(x (B, T, D), memory (B, S, D), tgt_mask=None, memory_mask=None,
    need_weights=False)`` returns ``(B, T, D)``, or with ``need_weights``
    ``(output, [self_weights (B, H, T, T)], [cross_weights (B, H, T, S)])``, one
    entry per layer.

    Derived in chapter 8 (Positional encoding and the Transformer block).
    """

    def __init__(
        self,
        num_layers: int,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
    ):
        super().__init__()
        num_layers = whole_number("num_layers", num_layers, 1)
        self.layers = nn.ModuleList(
            DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model) if norm_first else None

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        tgt_mask=None,
        memory_mask=None,
        need_weights: bool = False,
    ):
        self_weights, cross_weights = [], []
        for layer in self.layers:
            if need_weights:
                x, s, c = layer(x, memory, tgt_mask, memory_mask, need_weights=True)
                self_weights.append(s)
                cross_weights.append(c)
            else:
                x = layer(x, memory, tgt_mask, memory_mask)
        if self.norm is not None:
            x = self.norm(x)
        return (x, self_weights, cross_weights) if need_weights else x

    def forward_step(
        self, x: torch.Tensor, memory: torch.Tensor, memory_mask, cache: list, tgt_mask=None
    ) -> torch.Tensor:
        """``forward`` for the newest positions only, with a KV cache:
        ``x (B, T_new, D) -> (B, T_new, D)``.

        ``cache`` is a list, empty at the first step, that receives one dict
        per layer (``DecoderLayer.forward_step``); pass the same list at every
        step of one decoding.

        Derived in chapter 10 (Translating and evaluating).
        """
        if not cache:
            cache.extend({} for _ in self.layers)
        for layer, layer_cache in zip(self.layers, cache):
            x = layer.forward_step(x, memory, memory_mask, layer_cache, tgt_mask)
        if self.norm is not None:
            x = self.norm(x)
        return x
