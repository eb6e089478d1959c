"""A quantised KV cache: keys and values kept as 8-bit or 4-bit integers with their scales.

A float32 key costs 4 bytes a number. Rounded to one of 255 levels (int8) or 15 (int4) of a
*scale*, it costs 1 byte or half of one, plus the scale, shared by a group of numbers. The
group decides the error: one large number in a group stretches its scale and every small one
in it rounds to few levels. Two groupings:

- **per token**: one scale per position and head, over its ``Dh`` channels. It follows each
  new position as it comes, but a channel that is always large sets every token's scale.
- **per channel**: one scale per channel and head, over the positions. A channel that is
  always large gets its own scale and leaves the others their precision. The positions are
  not all known when the first ones are stored, so the scales here are measured once on
  calibration sentences (``calibrate``) and fixed; a later number beyond them is clipped. (This
  calibrated variant is the course's; KIVI, Liu et al. 2024, needs no calibration: it quantises
  keys per channel in groups of positions as they arrive and keeps the newest in full precision.)

Keys of large trained models often have a few channels much larger than the rest, values
less so; that is the case for keys per channel. ``channel_ranges`` measures it on a model:
on the shipped GPT (1.26 M parameters) the channels are alike, keys and values both (the
largest channel of every head is under 2.5 times the median one), and the fixed per-channel scales
clip what calibration did not see. So the default here is per token for both;
``benchmarks/serving_bench.py`` compares every choice and ``benchmarks/README.md`` has the
numbers.

``quantize`` and ``dequantize`` round and restore, ``QuantizedKVCache`` holds the integers
and scales and is the ``attend`` of ``tutorlib.serving.step.model_step``, ``quantized_generate``
decodes greedily through it.

Shape letters: ``B`` batch, ``H`` heads, ``t`` positions stored, ``T`` positions fed at this
step, ``Dh`` the width of one head, ``N`` blocks of the model (layers).

Derived in chapter 17 (Attention at serving scale).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..translation.gpt import GPT, generate
from ..translation.guards import MAX_RUN, NO_REPEAT_NGRAM, check_guard
from .step import check_prompts, check_served, embed, greedy, model_step

__all__ = [
    "LEVELS",
    "quantize",
    "dequantize",
    "channel_ranges",
    "calibrate",
    "QuantizedKVCache",
    "quantized_generate",
]

LEVELS = {8: 127, 4: 7}  # bits -> the largest integer of a symmetric grid, -q .. q


def _check_bits(bits) -> int:
    if bits not in LEVELS:
        raise ValueError(f"bits must be 8 or 4 (int8 or int4 numbers), got {bits!r}")
    return bits


def quantize(x: torch.Tensor, bits: int, scale: torch.Tensor) -> torch.Tensor:
    """``x`` as integers of ``bits`` bits: ``round(x / scale)``, clipped to ``-q .. q``, in an
    int8 tensor (two int4 numbers would share a byte; here each keeps one, and ``stored_bytes``
    counts them as packed). ``scale`` broadcasts to ``x``."""
    q = LEVELS[_check_bits(bits)]
    return (x / scale).round().clamp(-q, q).to(torch.int8)


def dequantize(codes: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """The numbers the integers stand for: ``codes * scale``, in ``scale``'s float type."""
    return codes.to(scale.dtype) * scale


def token_scale(x: torch.Tensor, bits: int) -> torch.Tensor:
    """One scale per position and head: ``(B, H, T, Dh)`` -> ``(B, H, T, 1)``, the largest
    magnitude over the channels mapped to the largest integer."""
    return x.abs().amax(dim=-1, keepdim=True).clamp_min(1e-8) / LEVELS[_check_bits(bits)]


@torch.no_grad()
def _keys_and_values(model: GPT, prompts, budgets) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Each block's keys and values ``(H, positions, Dh)`` over the prompts and their greedy
    translations (float32, the plain ``generate``): what a cache would store."""
    found = [([], []) for _ in model.blocks]
    device = next(model.parameters()).device
    for prompt, n in zip(prompts, budgets):
        written = generate(model, torch.tensor([prompt], device=device), n)[0]
        tokens = torch.tensor([prompt + written], device=device)  # (1, L)
        L = tokens.shape[1]
        causal = torch.ones(L, L, dtype=torch.bool, device=device).tril()

        def attend(layer, q, k, v, causal=causal):
            found[layer][0].append(k[0])  # (H, L, Dh)
            found[layer][1].append(v[0])
            return F.scaled_dot_product_attention(q, k, v, attn_mask=causal)

        model_step(model, embed(model, tokens, [0]), attend)
    return [(torch.cat(ks, dim=1), torch.cat(vs, dim=1)) for ks, vs in found]


def channel_ranges(model: GPT, prompts, budgets) -> list[dict]:
    """How unequal the channels of each block's keys and values are: per block, the largest
    magnitude of each channel ``(H, Dh)`` over the sentences' positions, for keys and values,
    and its ratio max / median over the channels of a head (averaged over heads): about 1 for
    channels alike, large for a few outlier channels."""
    check_served(model)
    out = []
    for k, v in _keys_and_values(model, prompts, budgets):
        row = {}
        for name, x in (("keys", k), ("values", v)):
            peak = x.abs().amax(dim=1)  # (H, t, Dh) -> (H, Dh)
            row[name] = peak
            row[f"{name}_max_over_median"] = float(
                (peak.amax(dim=1) / peak.median(dim=1).values).mean()
            )
        out.append(row)
    return out


def calibrate(model: GPT, prompts, budgets, bits: int = 8) -> list[tuple]:
    """Per-channel scales of each block's keys and values, ``(H, 1, Dh)`` each, measured on
    calibration sentences (their prompts and greedy translations): each channel's largest
    magnitude mapped to the largest integer. Measure them on the training split, not on the
    sentences you score."""
    check_served(model)
    q = LEVELS[_check_bits(bits)]
    return [
        (k.abs().amax(dim=1, keepdim=True).clamp_min(1e-8) / q,
         v.abs().amax(dim=1, keepdim=True).clamp_min(1e-8) / q)
        for k, v in _keys_and_values(model, prompts, budgets)
    ]  # fmt: skip


AXES = ("token", "channel")


class QuantizedKVCache:
    """The keys and values of a batch of sequences as ``bits``-bit integers and their scales.

    ``keys`` and ``values`` say how each is grouped: ``"token"`` (a scale per position and head,
    computed as it is stored) or ``"channel"`` (a scale per channel and head, fixed:
    ``scales``, one ``(key, value)`` pair of ``(H, 1, Dh)`` per block from ``calibrate``).
    ``attention(T)`` is the ``attend`` of ``model_step`` for ``T`` new positions of every row:
    it rounds their keys and values, stores them and attends to the stored ones read back.
    """

    def __init__(self, bits: int = 8, keys: str = "token", values: str = "token", scales=None):
        self.bits = _check_bits(bits)
        for name, axis in (("keys", keys), ("values", values)):
            if axis not in AXES:
                raise ValueError(f"{name} must be 'token' or 'channel' (the scales' grouping), "
                                 f"got {axis!r}")  # fmt: skip
        if "channel" in (keys, values) and scales is None:
            raise ValueError(
                "per-channel scales are fixed before decoding: pass scales=calibrate(model, "
                "prompts, budgets, bits) measured on training sentences"
            )
        self.axes, self.scales = (keys, values), scales
        self.layers: dict = {}  # block -> {"k": codes (B, H, t, Dh), "k_scale": (B, H, t, 1), ...}
        self.length = 0  # positions stored, t

    def _store(self, layer: int, part: int, x: torch.Tensor) -> torch.Tensor:
        """Round ``x (B, H, T, Dh)``, append it, return every stored position dequantised."""
        name, stored = "kv"[part], self.layers.setdefault(layer, {})
        if self.axes[part] == "token":
            new_scale = token_scale(x, self.bits)  # (B, H, T, 1)
            scale = new_scale
            if name in stored:  # (B, H, t, 1) ++ (B, H, T, 1) along the positions
                scale = torch.cat([stored[f"{name}_scale"], new_scale], dim=2)
            stored[f"{name}_scale"] = scale
        else:  # (H, 1, Dh), the same for every position
            new_scale = scale = self.scales[layer][part].to(x.dtype)
        codes = quantize(x, self.bits, new_scale)
        if name in stored:  # (B, H, t, Dh) ++ (B, H, T, Dh) -> (B, H, t + T, Dh)
            codes = torch.cat([stored[name], codes], dim=2)
        stored[name] = codes
        return dequantize(codes, scale)

    def attention(self, T: int):
        t = self.length
        mask = None  # one new position reads every stored one; a prompt reads causally
        if T > 1:
            mask = torch.ones(T, t + T, dtype=torch.bool).tril(diagonal=t)

        def attend(layer, q, k, v):
            keys, values = self._store(layer, 0, k), self._store(layer, 1, v)
            # (B, H, T, Dh), (B, H, t + T, Dh) x2 -> (B, H, T, Dh)
            return F.scaled_dot_product_attention(q, keys, values, attn_mask=mask)

        return attend

    def advance(self, T: int) -> None:
        self.length += T

    def stored_bytes(self) -> int:
        """The bytes the cache holds: the integers at ``bits / 8`` bytes each (int4 counted as
        packed two to a byte), the per-token scales, the per-channel scales once."""
        total = 0
        for layer, stored in self.layers.items():
            for part, name in enumerate("kv"):
                total += stored[name].numel() * self.bits // 8
                if self.axes[part] == "token":
                    scale = stored[f"{name}_scale"]
                else:
                    scale = self.scales[layer][part]
                total += scale.numel() * scale.element_size()
        return total

    def float_bytes(self) -> int:
        """The bytes the same positions cost in a float32 ``KVCache``."""
        return sum(stored[n].numel() * 4 for stored in self.layers.values() for n in "kv")


@torch.no_grad()
def quantized_generate(
    model: GPT,
    prompts,
    budgets,
    *,
    bits: int = 8,
    keys: str = "token",
    values: str = "token",
    scales=None,
    max_run: int | None = MAX_RUN,
    no_repeat_ngram: int | None = NO_REPEAT_NGRAM,
) -> tuple[list[list[int]], dict]:
    """``generate``'s greedy decoding with a ``QuantizedKVCache``: ``(each prompt's new tokens
    without <eos>, {"bytes": held, "float_bytes": a float32 cache's})`` summed over the groups.

    Prompts of one length are decoded together, as ``translate`` does; ``budgets`` one per
    prompt. The model's own arithmetic stays float32; only what the cache stores is rounded.
    """
    check_served(model)
    check_guard(max_run, no_repeat_ngram)
    prompts, budgets = check_prompts(model, prompts, budgets)
    eos, pad = model.tokenizer.eos_id, model.tokenizer.pad_id
    guard_args = (max_run, no_repeat_ngram, eos)
    device = next(model.parameters()).device
    by_length: dict = {}
    for i, p in enumerate(prompts):
        by_length.setdefault((len(p), budgets[i]), []).append(i)
    out, held, as_float = [None] * len(prompts), 0, 0
    for (P, n), rows in by_length.items():
        cache = QuantizedKVCache(bits, keys, values, scales)
        written = [[prompts[i][-1]] for i in rows]  # <sep>, then the tokens written
        sources = [prompts[i][:-1] for i in rows]
        tokens = torch.tensor([prompts[i] for i in rows], device=device)  # (B, P)
        for step in range(n):
            starts = [cache.length] * len(rows)
            logits = model_step(
                model, embed(model, tokens, starts), cache.attention(tokens.shape[1])
            )
            cache.advance(tokens.shape[1])
            chosen = greedy(logits[:, -1], written, sources, guard_args)
            for r, token in enumerate(chosen):  # a finished row only pads, as in generate
                written[r].append(pad if eos in written[r][1:] else token)
            if all(eos in w[1:] for w in written) or step + 1 == n:
                break
            tokens = torch.tensor([[w[-1]] for w in written], device=device)  # (B, 1)
        for i, w in zip(rows, written):
            ids = []
            for token in w[1 : n + 1]:
                if token == eos:
                    break
                ids.append(token)
            out[i] = ids
        held, as_float = held + cache.stored_bytes(), as_float + cache.float_bytes()
    return out, {"bytes": held, "float_bytes": as_float}
