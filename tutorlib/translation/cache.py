"""The KV cache: the keys and values of the positions decoded so far (chapter 10).

It sits below every model of the stack: the translator's decoder
(``tutorlib.nn.Decoder.forward_step``), chapter 13's ``GPT.forward_step`` and
chapter 15's grouped-query blocks fill it, and the decoders
(``tutorlib.translation.decoding``, ``tutorlib.translation.gpt.decoding``)
create it. It needs torch and nothing of the stack. This module is its one home.

Shape letters (the book's notation page): ``B`` batch, ``K`` beams, ``H`` heads,
``t`` positions decoded so far, ``S`` source length, ``Dh`` the width of one head.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

__all__ = ["KVCache"]


@dataclass
class KVCache:
    """The decoder's keys and values of the positions decoded so far: each step costs one position.

    ``layers`` gets one dict per decoder layer (``tutorlib.nn.Decoder.forward_step``)
    holding ``self_attn`` keys and values ``(B, H, t, Dh)``, which grow by one
    position per step, and ``cross_attn`` keys and values ``(B, H, S, Dh)`` of
    the encoder output, computed at the first step.

    Derived in chapter 10 (Translating and evaluating).
    """

    length: int = 0  # positions decoded so far, t
    layers: list = field(default_factory=list)

    def reorder(self, rows: torch.Tensor) -> None:
        """Keep row ``rows[i]`` of the self-attention cache as row ``i``: the surviving beams.

        The cross-attention cache is left alone: beams only ever move within
        their own sentence, whose encoder output is the same for all of them.
        """
        for layer in self.layers:
            self_attn = layer["self_attn"]
            # (B*K, H, t, Dh) -> (B*K, H, t, Dh), rows picked from the old beams
            self_attn["k"] = self_attn["k"].index_select(0, rows)
            self_attn["v"] = self_attn["v"].index_select(0, rows)
