"""Attention at serving scale: the course's GPT decoding many sentences for many users.

- ``step``         one GPT step whose keys and values live outside a ``KVCache``: the shared
  machinery (``model_step``, ``greedy``, ``bytes_per_position``)
- ``paged``        a paged KV cache (``BlockPool``, ``PagedKVCache``, ``paged_generate``) and the
  bytes of contiguous against paged reservation (``cache_account``)
- ``quantized``    a KV cache of int8 or int4 keys and values with per-token or per-channel
  scales (``QuantizedKVCache``, ``quantized_generate``, ``calibrate``, ``channel_ranges``)
- ``speculative``  greedy speculative decoding: a draft GPT proposes, the target verifies in one
  pass and its ``KVCache`` is cut back on rejection (``speculative_generate``, ``truncate``)

Derived in chapter 17 (Attention at serving scale).
"""

from __future__ import annotations

from .paged import BlockPool, CacheAccount, PagedKVCache, cache_account, paged_generate
from .quantized import (
    QuantizedKVCache,
    calibrate,
    channel_ranges,
    dequantize,
    quantize,
    quantized_generate,
)
from .speculative import speculative_generate, truncate
from .step import bytes_per_position

__all__ = [
    "bytes_per_position",
    "CacheAccount",
    "cache_account",
    "BlockPool",
    "PagedKVCache",
    "paged_generate",
    "quantize",
    "dequantize",
    "channel_ranges",
    "calibrate",
    "QuantizedKVCache",
    "quantized_generate",
    "truncate",
    "speculative_generate",
]
