"""Multi-head attention and the Transformer block in PyTorch: the code of chapters 5 to 8.

Read it top to bottom: ``tutorlib.nn.attention`` holds the heads (chapter 5),
masks (chapter 6) and cross-attention (chapter 7: a ``MultiHeadAttention``
whose keys and values come from another sequence); ``tutorlib.nn.block`` the
positions, the feed-forward network and the encoder and decoder layers
(chapter 8). Import their names from here.

Shape letters (the book's notation page): ``B`` batch, ``T`` target length
(the queries), ``S`` source length (the keys and values of cross-attention),
``D`` = ``d_model`` the model width, ``H`` = ``num_heads``, ``Dh`` = ``D // H``
the width of one head. Every tensor is batch-first: ``(B, T, D)``.

Masks are boolean and **True means "may attend"**, broadcastable to
``(B, H, T_q, T_k)``: the convention of ``tutorlib.attention`` and of
``torch.nn.functional.scaled_dot_product_attention``. PyTorch's
``nn.MultiheadAttention`` uses the opposite for ``key_padding_mask`` and for a
boolean ``attn_mask`` (True = may *not* attend); negate them with ``~``.
"""

from .attention import (
    MultiHeadAttention,
    causal_attention_mask,
    merge_heads,
    padding_attention_mask,
    split_heads,
)
from .block import (
    Decoder,
    DecoderLayer,
    Encoder,
    EncoderLayer,
    FeedForward,
    PositionalEncoding,
    sinusoidal_positional_encoding,
)

__all__ = [
    "split_heads",
    "merge_heads",
    "MultiHeadAttention",
    "padding_attention_mask",
    "causal_attention_mask",
    "sinusoidal_positional_encoding",
    "PositionalEncoding",
    "FeedForward",
    "EncoderLayer",
    "DecoderLayer",
    "Encoder",
    "Decoder",
]
