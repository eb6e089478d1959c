"""Decoding with grouped-query attention: the time of one step against Hkv at long caches.

    .venv/bin/python benchmarks/gqa_decode.py [--quick]

A decoder writes one token at a time, and every step reads the whole KV cache of every layer.
With Hkv key/value heads that cache is H / Hkv times smaller; GQA is faster only if the step
reads it as it is, without first copying each key/value head to its G = H / Hkv query heads.
Three rows, each measured side by side in one run, on one ``GroupedQueryAttention`` layer of
the size of chapter 15's figures (D = 512, H = 8, Dh = 64), a batch of 8 sequences, float32:

1. **Hkv against the step time**, ``tutorlib.modern.GroupedQueryAttention.forward_step`` (the
   grouped layout: the G query heads of a group are rows of one query matrix), for Hkv = 8, 4,
   2, 1 at cache lengths of 256, 1,024 and 4,096 positions. Ratio: time(Hkv = 1) / time(Hkv = 8)
   at the longest cache; goal < 1 (sharing heads makes decoding faster, as GQA promises).
2. **Grouped against repeated**: the same step with the keys and values repeated to H heads
   (``repeat_kv``, as the layer did before), at Hkv = 1. Ratio grouped / repeated; goal < 1.
3. **The cache's growth**: ``torch.cat`` of the cache and the new position at every step (the
   layer's way: the code a reader can follow) against a preallocated buffer written in place,
   over a whole decode of 64 positions (the course's sentences) and of 4,096, at Hkv = 2. Ratio
   cat / buffer: what the simpler code costs at each length.

A figure, not a test: the machine is shared, so read the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

from tutorlib.modern import GroupedQueryAttention, repeat_kv
from tutorlib.nn import merge_heads, split_heads

D, H, B = 512, 8, 8


def _median_seconds(fn, reps: int) -> float:
    fn()  # warm up
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _layer(kv_heads: int) -> GroupedQueryAttention:
    torch.manual_seed(0)
    return GroupedQueryAttention(D, H, kv_heads).eval()


def _filled_cache(layer: GroupedQueryAttention, length: int) -> dict:
    dh = D // H
    k = torch.randn(B, layer.num_kv_heads, length, dh)  # (B, Hkv, T, Dh)
    return {"k": k, "v": torch.randn_like(k), "t": length}


def step_seconds(kv_heads: int, length: int, reps: int) -> float:
    """One decoding step of the layer as it is (grouped), the cache ``length`` long."""
    layer, x = _layer(kv_heads), torch.randn(B, 1, D)
    cache = _filled_cache(layer, length)

    def step():
        c = dict(cache)  # the same length every repetition
        with torch.no_grad():
            layer.forward_step(x, c)

    return _median_seconds(step, reps)


def repeated_step_seconds(kv_heads: int, length: int, reps: int) -> float:
    """The same step with the cache repeated to every query head first (repeat_kv)."""
    layer, x = _layer(kv_heads), torch.randn(B, 1, D)
    cache = _filled_cache(layer, length)

    def step():
        with torch.no_grad():
            q = split_heads(layer.w_q(x), H)  # (B, H, 1, Dh)
            k = split_heads(layer.w_k(x), kv_heads)  # (B, Hkv, 1, Dh)
            v = split_heads(layer.w_v(x), kv_heads)
            k = torch.cat([cache["k"], k], dim=2)  # (B, Hkv, T+1, Dh)
            v = torch.cat([cache["v"], v], dim=2)
            # (B, Hkv, T+1, Dh) -> (B, H, T+1, Dh): G copies of the cache
            k, v = repeat_kv(k, H), repeat_kv(v, H)
            out = F.scaled_dot_product_attention(q, k, v)  # (B, H, 1, Dh)
            layer.w_o(merge_heads(out))

    return _median_seconds(step, reps)


def growth_seconds(kv_heads: int, length: int, preallocated: bool) -> float:
    """Seconds to append ``length`` positions one by one: torch.cat, or a buffer written into."""
    dh = D // H
    new = torch.randn(B, kv_heads, 1, dh)
    start = time.perf_counter()
    if preallocated:
        buffer = torch.empty(B, kv_heads, length, dh)
        for t in range(length):
            buffer[:, :, t : t + 1] = new  # (B, Hkv, 1, Dh) into place t
            buffer[:, :, : t + 1].sum()  # the step reads the cache so far
    else:
        cache = new
        for _ in range(length - 1):
            cache = torch.cat([cache, new], dim=2)  # a new (B, Hkv, t+1, Dh) every step
            cache.sum()
    return time.perf_counter() - start


def main(quick: bool = False) -> list[dict]:
    torch.set_num_threads(2)
    reps = 5 if quick else 20
    lengths = (256, 1024) if quick else (256, 1024, 4096)
    rows = []
    print(f"one layer, D={D}, H={H}, batch {B}, float32; ms per decoding step (median)")
    print("cache  " + "  ".join(f"Hkv={h}" for h in (8, 4, 2, 1)) + "   repeated Hkv=1")
    for length in lengths:
        times = {h: step_seconds(h, length, reps) for h in (8, 4, 2, 1)}
        repeated = repeated_step_seconds(1, length, reps)
        print(
            f"{length:5d}  "
            + "  ".join(f"{times[h] * 1e3:5.2f}" for h in (8, 4, 2, 1))
            + f"   {repeated * 1e3:5.2f}"
        )
        rows.append({"length": length, "seconds": times, "repeated_hkv1": repeated})
    last = rows[-1]
    share = last["seconds"][1] / last["seconds"][8]
    grouped = last["seconds"][1] / last["repeated_hkv1"]
    print(
        f"at {last['length']} positions: Hkv=1 / Hkv=8 = {share:.2f} (goal < 1); "
        f"grouped / repeated at Hkv=1 = {grouped:.2f} (goal < 1)"
    )
    growth = {}
    for n in (64, lengths[-1]):  # the course's sentences, and a long context
        reps_n = 20 if n <= 64 else 1
        cat = min(growth_seconds(2, n, preallocated=False) for _ in range(reps_n))
        buf = min(growth_seconds(2, n, preallocated=True) for _ in range(reps_n))
        growth[n] = {"cat_s": cat, "buffer_s": buf}
        print(
            f"growing a cache to {n} positions, Hkv=2: torch.cat {cat * 1e3:.1f} ms, "
            f"preallocated buffer {buf * 1e3:.1f} ms, ratio {cat / buf:.2f}"
        )
    n = lengths[-1]
    cat, buf = growth[n]["cat_s"], growth[n]["buffer_s"]
    return [
        {
            "name": "gqa decode step, Hkv=1 / Hkv=8",
            "value": share,
            "goal": 1.0,
            "direction": "<=",
            "raw": rows,
        },
        {
            "name": "gqa decode step, grouped / repeated (Hkv=1)",
            "value": grouped,
            "goal": 1.0,
            "direction": "<=",
        },
        {
            "name": "kv cache growth, torch.cat / preallocated",
            "value": cat / buf,
            "goal": None,
            "direction": None,
            "raw": growth,
        },
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and lengths")
    main(parser.parse_args().quick)
