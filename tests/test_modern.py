"""tutorlib.modern: RoPE, grouped-query attention, sliding windows, the KV cache's size.

References: MultiHeadAttention with the same state dict (grouped-query attention with as many
key/value heads as query heads *is* multi-head attention), a head-by-head loop with
tutorlib.attention (NumPy), the rotation written out pair by pair, numbers computed by hand.
Each test names, in its docstring or assert message, the wrong program it catches.
"""

import math

import numpy as np
import pytest
import torch
from torch import nn
from torch.testing import assert_close

from tutorlib import debug, modern
from tutorlib.attention import scaled_dot_product_attention
from tutorlib.modern import (
    PUBLISHED_CONFIGS,
    GroupedQueryAttention,
    apply_rope,
    kv_cache_bytes,
    published_kv_cache,
    repeat_kv,
    rope_angles,
    sliding_window_mask,
)
from tutorlib.nn import MultiHeadAttention, causal_attention_mask, padding_attention_mask

F64 = torch.float64
EXACT = dict(rtol=0, atol=1e-10)
GiB = 2**30


def randn(*shape, seed=0, dtype=F64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def randomize(module: nn.Module, seed: int = 0) -> nn.Module:
    """Random values everywhere (biases included), so a dropped bias cannot go unnoticed."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) * 0.5)
    return module


def gqa(d_model=16, heads=4, kv_heads=2, seed=0, **kw):
    return randomize(GroupedQueryAttention(d_model, heads, kv_heads, **kw).double(), seed).eval()


# --- RoPE -----------------------------------------------------------------------------------


def test_rope_score_depends_only_on_the_offset():
    """q·k after turning q to m and k to n equals the same at (m + c, n + c), for several c.

    A rotation by the key's absolute position only (q left alone), or angles not
    proportional to the position, breaks it."""
    Dh = 16
    q, k = randn(1, Dh, seed=1), randn(1, Dh, seed=2)
    for m, n in [(0, 0), (3, 1), (1, 7), (20, 5)]:
        ref = (apply_rope(q, [m]) * apply_rope(k, [n])).sum()
        for c in (1, 5, 100, 1000):
            got = (apply_rope(q, [m + c]) * apply_rope(k, [n + c])).sum()
            assert_close(got, ref, rtol=0, atol=1e-9, msg=f"(m, n)=({m}, {n}) shifted by {c}")
    # and it does depend on the offset: the identity or a constant turn would not
    near = (apply_rope(q, [3]) * apply_rope(k, [1])).sum()
    far = (apply_rope(q, [9]) * apply_rope(k, [1])).sum()
    assert abs(float(near - far)) > 1e-3


def test_rope_relative_property_for_whole_score_matrices():
    """The (T, T) scores of a sequence at positions 0..T-1 equal those at 50..50+T-1."""
    q, k = randn(2, 3, 6, 8, seed=3), randn(2, 3, 6, 8, seed=4)
    scores = apply_rope(q) @ apply_rope(k).transpose(-2, -1)
    shifted = apply_rope(q, 50) @ apply_rope(k, 50).transpose(-2, -1)
    assert_close(shifted, scores, rtol=0, atol=1e-9)


def test_rope_keeps_norms_and_position_zero_is_identity():
    x = randn(2, 5, 10, seed=5)
    turned = apply_rope(x, positions=[0, 1, 2, 30, 4000])
    assert_close(turned.norm(dim=-1), x.norm(dim=-1), **EXACT)  # a scaling would not
    # the pairs' lengths too: a rotation mixing features of two pairs would change them
    pairs = lambda t: t[..., 0::2] ** 2 + t[..., 1::2] ** 2  # noqa: E731
    assert_close(pairs(turned), pairs(x), **EXACT)
    assert_close(apply_rope(x[:, :1], positions=[0]), x[:, :1], rtol=0, atol=0)
    assert not torch.allclose(turned[:, 1:], x[:, 1:])


def test_rope_pair_i_turns_at_base_to_the_minus_2i_over_dh():
    """Pair i of a unit (1, 0) at position p turns to (cos pθ_i, sin pθ_i), θ_i = base^(-2i/Dh).

    Interleaved pairs (2i, 2i+1): the halves convention (i, i + Dh/2) fails here."""
    Dh, base, p, i = 8, 100.0, 3, 2
    x = torch.zeros(1, Dh, dtype=F64)
    x[0, 2 * i] = 1.0
    out = apply_rope(x, [p], base=base)[0]
    theta = base ** (-2 * i / Dh)
    expected = torch.zeros(Dh, dtype=F64)
    expected[2 * i], expected[2 * i + 1] = math.cos(p * theta), math.sin(p * theta)
    assert_close(out, expected, **EXACT)
    # every pair: the angle read back from the rotated (1, 0) vectors
    ones = torch.zeros(Dh // 2, Dh, dtype=F64)
    ones[torch.arange(Dh // 2), 2 * torch.arange(Dh // 2)] = 1.0
    turned = apply_rope(ones[:, None, :], [p], base=base)[:, 0]  # (Dh/2, Dh)
    angles = torch.atan2(turned[range(Dh // 2), 1::2].diagonal(), turned[:, 0::2].diagonal())
    assert_close(angles, torch.tensor(rope_angles([p], Dh, base)[0]), **EXACT)
    assert_close(angles[0], torch.tensor(float(p), dtype=F64), **EXACT)  # pair 0: 1 rad/position


def test_rope_numpy_and_torch_agree_and_keep_dtype():
    x = randn(2, 4, 6, seed=6)
    assert_close(torch.from_numpy(apply_rope(x.numpy(), [1, 2, 3, 4])), apply_rope(x, [1, 2, 3, 4]))
    assert isinstance(apply_rope(x.numpy()), np.ndarray)
    assert apply_rope(x.float()).dtype == torch.float32
    assert apply_rope(np.ones((3, 4), dtype=np.float32)).dtype == np.float32
    assert apply_rope([[1, 2], [3, 4]]).dtype == np.float64


def test_rope_positions_forms():
    """None, an offset, a list, a tensor and per-sequence rows (B, 1, T) mean what they say."""
    x = randn(2, 3, 4, 6, seed=7)  # (B, H, T, Dh)
    assert_close(apply_rope(x), apply_rope(x, [0, 1, 2, 3]), rtol=0, atol=0)
    assert_close(apply_rope(x, 5), apply_rope(x, torch.arange(5, 9)), rtol=0, atol=0)
    rows = torch.tensor([[0, 1, 2, 3], [7, 8, 9, 10]])[:, None, :]  # (B, 1, T)
    got = apply_rope(x, rows)
    assert_close(got[0], apply_rope(x[0], [0, 1, 2, 3]), rtol=0, atol=0)
    assert_close(got[1], apply_rope(x[1], 7), rtol=0, atol=0)
    # one new token of a decoder at position 9: the same as row 9 of the whole sequence
    long = randn(1, 10, 6, seed=8)
    assert_close(apply_rope(long[:, 9:], 9), apply_rope(long)[:, 9:], rtol=0, atol=0)


def test_rope_errors():
    with pytest.raises(ValueError, match=r"Dh must be even, got Dh=5"):
        apply_rope(torch.zeros(3, 5))
    with pytest.raises(ValueError, match=r"positions has shape \(3,\) but x .* has T=4"):
        apply_rope(torch.zeros(4, 6), [0, 1, 2])
    with pytest.raises(ValueError, match=r"does not broadcast .* positions\[:, None, :\]"):
        apply_rope(torch.zeros(2, 3, 4, 6), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="base must be a finite number"):
        apply_rope(torch.zeros(4, 6), base=float("inf"))
    with pytest.raises(ValueError, match="base must be a finite number"):
        apply_rope(torch.zeros(4, 6), base=float("nan"))
    with pytest.raises(ValueError, match="base must be above 0"):
        apply_rope(torch.zeros(4, 6), base=0)
    with pytest.raises(ValueError, match="positions must be finite"):
        apply_rope(torch.zeros(2, 6), [0, float("nan")])
    with pytest.raises(ValueError, match="positions must be at least 0"):
        apply_rope(torch.zeros(2, 6), -1)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        apply_rope(torch.zeros(6))
    with pytest.raises(ValueError, match="floating-point"):
        apply_rope(torch.zeros(2, 6, dtype=torch.long))


# --- grouped-query attention ------------------------------------------------------------------


def test_repeat_kv_gives_head_h_the_kv_head_h_over_group():
    """Head h reads kv head h // (H // Hkv): (kv0, kv0, kv1, kv1), not (kv0, kv1, kv0, kv1)."""
    kv = randn(2, 2, 3, 4, seed=9)
    out = repeat_kv(kv, 6)
    assert out.shape == (2, 6, 3, 4)
    for h in range(6):
        assert torch.equal(out[:, h], kv[:, h // 3]), f"head {h}"
    assert repeat_kv(kv, 2) is kv
    with pytest.raises(ValueError, match="Hkv=2 .* does not divide num_heads=5"):
        repeat_kv(kv, 5)


def test_gqa_with_as_many_kv_heads_is_multi_head_attention():
    """Hkv == H: the same state dict loads into MultiHeadAttention and gives the same outputs,
    weights included, with and without masks."""
    ours = gqa(16, 4, 4, seed=10)
    mha = MultiHeadAttention(16, 4).double().eval()
    mha.load_state_dict(ours.state_dict())
    x, mem = randn(3, 5, 16, seed=11), randn(3, 7, 16, seed=12)
    pad = padding_attention_mask([5, 3, 1])
    masks = [None, causal_attention_mask(5) & pad, sliding_window_mask(5, 2)]
    for mask in masks:
        for need in (False, True):
            a, wa = ours(x, x, x, mask=mask, need_weights=need)
            b, wb = mha(x, x, x, mask=mask, need_weights=need)
            assert_close(a, b, **EXACT)
            if need:
                assert_close(wa, wb, **EXACT)
            else:
                assert wa is None and wb is None
    src = padding_attention_mask([7, 2, 4])
    assert_close(ours(x, mem, mem, src)[0], mha(x, mem, mem, src)[0], **EXACT)  # cross-attention


def loop_reference(m: GroupedQueryAttention, query, key, value, mask=None):
    """Grouped-query attention written head by head with tutorlib.attention (NumPy)."""
    H, Hkv, Dh = m.num_heads, m.num_kv_heads, m.d_head
    q = m.w_q(query).detach().numpy()
    k = m.w_k(key).detach().numpy()
    v = m.w_v(value).detach().numpy()
    B, T = q.shape[:2]
    mask = None if mask is None else np.broadcast_to(mask.numpy(), (B, H, T, key.shape[1]))
    heads, weights = [], []
    for h in range(H):
        g = h // (H // Hkv)  # the key/value head of query head h
        qh = q[..., h * Dh : (h + 1) * Dh]
        kh, vh = k[..., g * Dh : (g + 1) * Dh], v[..., g * Dh : (g + 1) * Dh]
        out, w = scaled_dot_product_attention(qh, kh, vh, None if mask is None else mask[:, h])
        heads.append(out)
        weights.append(w)
    concat = torch.from_numpy(np.concatenate(heads, axis=-1))
    return m.w_o(concat), torch.from_numpy(np.stack(weights, axis=1))


@pytest.mark.parametrize("heads, kv_heads", [(4, 2), (6, 3), (6, 2), (4, 1), (6, 1)])
def test_gqa_equals_a_head_by_head_loop(heads, kv_heads):
    """Fewer kv heads (and multi-query, Hkv = 1): each query head reads its group's kv head."""
    m = gqa(12 * heads // 2, heads, kv_heads, seed=heads + kv_heads)
    D = m.d_model
    x = randn(2, 5, D, seed=13)
    mask = causal_attention_mask(5) & padding_attention_mask([5, 3])
    for need in (False, True):
        out, w = m(x, x, x, mask=mask, need_weights=need)
        ref_out, ref_w = loop_reference(m, x, x, x, mask)
        assert_close(out, ref_out, **EXACT)
        if need:
            assert_close(w, ref_w, **EXACT)
            assert w.shape == (2, heads, 5, 5)


@pytest.mark.parametrize("mask_shape", ["TT", "B1TT", "BHTT", "B11T", "1HTT"])
def test_gqa_groups_heads_for_masks_of_every_broadcast_shape(mask_shape):
    """A mask the same for every head, one per head, or one per key only: the grouped rows of
    _attend meet the mask of their own query head (the loop reads mask[:, h])."""
    B, H, Hkv, T = 2, 6, 2, 5
    m = gqa(12 * H // 2, H, Hkv, seed=21)
    x = randn(B, T, m.d_model, seed=22)
    gen = torch.Generator().manual_seed(23)
    shape = {
        "TT": (T, T),
        "B1TT": (B, 1, T, T),
        "BHTT": (B, H, T, T),
        "B11T": (B, 1, 1, T),
        "1HTT": (1, H, T, T),
    }[mask_shape]
    mask = torch.rand(shape, generator=gen) < 0.7
    mask[..., 0] = True  # no row left without a key
    for need in (False, True):
        out, w = m(x, x, x, mask=mask, need_weights=need)
        ref_out, ref_w = loop_reference(m, x, x, x, mask.expand(B, H, T, T))
        assert_close(out, ref_out, **EXACT)
        if need:
            assert_close(w, ref_w, **EXACT)


def test_gqa_reads_each_kv_head_once_without_copying_it(monkeypatch):
    """The grouped layout never repeats keys or values to the query heads (the point of GQA:
    less memory read per step), and gives the numbers of the repeated form."""
    m = gqa(24, 4, 1, seed=24)
    x = randn(1, 7, 24, seed=25)
    repeated_out = loop_reference(m, x, x, x, causal_attention_mask(7).expand(1, 4, 7, 7))[0]

    def refuse(*args, **kwargs):
        raise AssertionError("the keys or values were repeated to every query head")

    monkeypatch.setattr(modern, "repeat_kv", refuse)
    monkeypatch.setattr(torch.Tensor, "repeat_interleave", refuse)
    monkeypatch.setattr(torch.Tensor, "repeat", refuse)
    out, _ = m(x, x, x, causal_attention_mask(7))
    assert_close(out, repeated_out, **EXACT)
    cache = {}
    with torch.no_grad():
        steps = [m.forward_step(x[:, t : t + 1], cache) for t in range(7)]
    assert_close(torch.cat(steps, dim=1), repeated_out, **EXACT)


def test_gqa_parameters_shrink_by_the_group_size():
    full, grouped, single = (GroupedQueryAttention(64, 8, h) for h in (8, 2, 1))
    for name in ("w_k", "w_v"):
        n = {m.num_kv_heads: getattr(m, name).weight.numel() for m in (full, grouped, single)}
        assert n == {8: 64 * 64, 2: 64 * 64 // 4, 1: 64 * 64 // 8}, name
        assert getattr(grouped, name).bias.shape == (2 * 8,)
    assert grouped.w_q.weight.shape == grouped.w_o.weight.shape == (64, 64)


def test_gqa_masks_hide_what_they_should():
    """No leak from later positions (causal) nor from outside the window; padding is ignored."""
    m = gqa(16, 4, 2, seed=14)
    x = randn(2, 6, 16, seed=15)
    causal = debug.check_causality(lambda x: m(x, x, x, causal_attention_mask(6))[0], x)
    assert causal, str(causal)
    assert not debug.check_causality(lambda x: m(x, x, x)[0], x)  # the check can fail
    window = debug.check_causality(lambda x: m(x, x, x, sliding_window_mask(6, 2))[0], x)
    reads = window.details["reads"]
    assert reads.equal(sliding_window_mask(6, 2)), reads  # reads exactly the window
    # padding: changing the padded keys of sequence 1 changes nothing
    pad = padding_attention_mask([6, 3])
    changed = x.clone()
    changed[1, 3:] += 5.0
    assert_close(m(changed, changed, changed, pad)[0][1, :3], m(x, x, x, pad)[0][1, :3], **EXACT)
    # the weights of masked keys are exactly 0
    both = sliding_window_mask(6, 4) & pad  # (2, 1, 6, 6); window 3 would leave row 5 empty
    _, w = m(x, x, x, both, need_weights=True)
    assert (w[~both.expand_as(w)] == 0).all() and (w[both.expand_as(w)] > 0).all()


def test_gqa_errors():
    with pytest.raises(
        ValueError, match=r"num_kv_heads=3 does not divide num_heads=4.*\[1, 2, 4\]"
    ):
        GroupedQueryAttention(16, 4, 3)
    with pytest.raises(ValueError, match="num_kv_heads must be at least 1"):
        GroupedQueryAttention(16, 4, 0)
    with pytest.raises(ValueError, match="not divisible by num_heads"):
        GroupedQueryAttention(18, 4, 2)
    with pytest.raises(ValueError, match="Dh must be even"):
        GroupedQueryAttention(12, 4, 2, rope_base=10000.0)  # Dh = 3
    m = GroupedQueryAttention(16, 4, 2)
    x = torch.zeros(2, 3, 16)
    with pytest.raises(ValueError, match=r"does not broadcast to \(2, 4, 3, 3\)"):
        m(x, x, x, mask=torch.ones(2, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="boolean"):
        m(x, x, x, mask=torch.ones(3, 3))
    with pytest.raises(ValueError, match="d_model=16"):
        m(torch.zeros(2, 3, 8), x, x)


def test_gqa_with_rope_turns_q_and_k_by_position():
    """rope_base: the same as projecting, turning q and k with apply_rope, and attending."""
    m = gqa(16, 4, 2, seed=16, rope_base=10000.0)
    x = randn(2, 5, 16, seed=17)
    plain = gqa(16, 4, 2, seed=16)
    mask = causal_attention_mask(5)
    q = apply_rope(m.w_q(x).view(2, 5, 4, 4).transpose(1, 2))
    k = apply_rope(m.w_k(x).view(2, 5, 2, 4).transpose(1, 2))
    v = m.w_v(x).view(2, 5, 2, 4).transpose(1, 2)
    out, _ = m._attend(q, k, v, mask, need_weights=False)
    expected = m.w_o(out.transpose(1, 2).reshape(2, 5, 16))
    assert_close(m(x, x, x, mask)[0], expected, **EXACT)
    assert not torch.allclose(m(x, x, x, mask)[0], plain(x, x, x, mask)[0])


@pytest.mark.parametrize("rope_base", [None, 10000.0])
@pytest.mark.parametrize("window", [None, 3])
def test_forward_step_equals_forward_over_the_prefix(rope_base, window):
    """Decoding one token at a time with a cache of Hkv heads gives forward's numbers; the cache
    holds Hkv heads (not H), and with a window never more than `window` positions."""
    m = gqa(16, 4, 2, seed=18, rope_base=rope_base)
    T = 7
    x = randn(2, T, 16, seed=19)
    mask = causal_attention_mask(T) if window is None else sliding_window_mask(T, window)
    full = m(x, x, x, mask)[0]
    cache = {}
    steps = []
    for t in range(T):
        steps.append(m.forward_step(x[:, t : t + 1], cache, window=window))
        held = min(t + 1, window or T)
        assert cache["k"].shape == (2, 2, held, 4) and cache["t"] == t + 1
    assert_close(torch.cat(steps, dim=1), full, **EXACT)
    # a prompt of 4 positions at once, then one at a time
    cache = {}
    first = m.forward_step(x[:, :4], cache, window=window)
    rest = [m.forward_step(x[:, t : t + 1], cache, window=window) for t in range(4, T)]
    assert_close(torch.cat([first, *rest], dim=1), full, **EXACT)


# --- sliding windows --------------------------------------------------------------------------


@pytest.mark.parametrize("T, window", [(1, 1), (5, 1), (5, 2), (6, 3), (8, 7), (4, 4), (4, 9)])
def test_sliding_window_mask_formula(T, window):
    """True exactly where t - window < s <= t: an off-by-one window (t - window <= s) fails."""
    mask = sliding_window_mask(T, window)
    assert mask.shape == (T, T) and mask.dtype == torch.bool
    for t in range(T):
        for s in range(T):
            assert bool(mask[t, s]) == (t - window < s <= t), (t, s)
    assert (mask.sum(dim=-1) == torch.clamp(torch.arange(T) + 1, max=window)).all()
    if window >= T:
        assert mask.equal(causal_attention_mask(T))


def test_sliding_window_mask_errors():
    with pytest.raises(ValueError, match="window must be at least 1"):
        sliding_window_mask(4, 0)
    with pytest.raises(ValueError, match="window must be a whole number"):
        sliding_window_mask(4, 2.5)


# --- the KV cache's size ----------------------------------------------------------------------


def test_kv_cache_bytes_by_hand():
    # Llama 2 70B, 32k tokens, float16: 2 * 80 * 8 * 128 * 32768 * 2 bytes = 10 GiB
    assert kv_cache_bytes(80, 8, 128, 32768) == 2 * 80 * 8 * 128 * 32768 * 2 == 10 * GiB
    assert kv_cache_bytes(80, 64, 128, 32768) == 80 * GiB  # as multi-head attention
    assert kv_cache_bytes(80, 8, 128, 32768, batch=4, bytes_per_value=4) == 80 * GiB
    assert kv_cache_bytes(1, 1, 1, 1) == 4  # one key and one value of 2 bytes
    assert kv_cache_bytes(1, 1, 1, 3, bytes_per_value=0.5) == 3
    assert kv_cache_bytes(1, 1, 1, 1, bytes_per_value=0.5) == 1
    assert kv_cache_bytes(2, 2, 2, 0) == 0
    assert isinstance(kv_cache_bytes(80, 8, 128, 32768), int)


def test_kv_cache_bytes_errors():
    with pytest.raises(ValueError, match="num_kv_heads must be at least 1"):
        kv_cache_bytes(32, 0, 128, 10)
    with pytest.raises(ValueError, match="num_layers must be a whole number"):
        kv_cache_bytes(2.0, 8, 128, 10)
    with pytest.raises(ValueError, match="bytes_per_value must be above 0"):
        kv_cache_bytes(32, 8, 128, 10, bytes_per_value=0)
    with pytest.raises(ValueError, match="bytes_per_value must be a finite number"):
        kv_cache_bytes(32, 8, 128, 10, bytes_per_value=float("inf"))


def test_published_configs_are_consistent_and_cited():
    for name, m in PUBLISHED_CONFIGS.items():
        assert m.d_model == m.heads * m.d_head, name
        assert m.heads % m.kv_heads == 0, name
        assert m.source and (
            "arXiv" in m.source or "github.com" in m.source or "hugging" in m.source
        )


def test_published_kv_cache_at_32k_tokens():
    rows = {r["model"]: r for r in published_kv_cache()}
    assert set(rows) == set(PUBLISHED_CONFIGS)
    in_gib = {
        n: {k: v / GiB for k, v in r.items() if k not in ("model", "shape")}
        for n, r in rows.items()
    }
    assert in_gib["Llama 2 7B"] == dict(multi_head=16, published=16, multi_query=0.5, windowed=16)
    assert in_gib["Llama 2 70B"] == dict(multi_head=80, published=10, multi_query=1.25, windowed=10)
    assert in_gib["Mistral 7B"] == dict(multi_head=16, published=4, multi_query=0.5, windowed=0.5)
    assert in_gib["Llama 3 8B"] == dict(multi_head=16, published=4, multi_query=0.5, windowed=4)
    short = {r["model"]: r for r in published_kv_cache(seq_len=1000)}
    assert short["Mistral 7B"]["windowed"] == short["Mistral 7B"]["published"]  # under the window


# --- where the names live ---------------------------------------------------------------------


def test_chapter_15_names_have_one_home():
    """RoPE, grouped-query attention, sliding windows and the KV cache's size live in
    tutorlib.modern alone: tutorlib.nn (chapters 5 to 8) no longer re-exports them, so the two
    modules do not import each other (modern builds on nn, never the reverse)."""
    import tutorlib.nn

    for name in (
        "apply_rope",
        "GroupedQueryAttention",
        "repeat_kv",
        "sliding_window_mask",
        "kv_cache_bytes",
    ):
        assert name in modern.__all__
        assert not hasattr(tutorlib.nn, name) and name not in tutorlib.nn.__all__
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        tutorlib.nn.nothing  # noqa: B018


# --- the future explorer's view ---------------------------------------------------------------


def test_kv_cache_view_shows_kv_cache_bytes_for_each_variant():
    """The view's numbers are kv_cache_bytes' (Mistral 7B at 32k, float16); its HTML is
    well-formed XML (for the EPUB) with every memory written out and a data-summary."""
    import xml.etree.ElementTree as ET

    from tutorlib.explorers import format_bytes, kv_cache_view

    m = PUBLISHED_CONFIGS["Mistral 7B"]
    sizes, page = kv_cache_view(m.layers, m.heads, m.kv_heads, m.d_head, 32768, window=m.window)
    assert sizes == {
        "multi-head": kv_cache_bytes(32, 32, 128, 32768),
        "grouped": kv_cache_bytes(32, 8, 128, 32768),
        "multi-query": kv_cache_bytes(32, 1, 128, 32768),
        "grouped, window 4096": kv_cache_bytes(32, 8, 128, 4096),
    }
    root = ET.fromstring(page)
    assert root.get("data-summary") == "grouped (8 KV heads): 4 GiB"
    text = "".join(root.itertext())
    for expected in ("16 GiB", "4 GiB", "512 MiB", "25.0%", "3.1%"):
        assert expected in text, expected
    _, fp32 = kv_cache_view(80, 64, 8, 128, 32768, dtype="float32", batch=2)
    assert "40 GiB" in "".join(ET.fromstring(fp32).itertext())  # 10 GiB * 2 bytes more * batch 2
    assert [format_bytes(n) for n in (4, 2048, 3 * 2**29, 10 * GiB)] == [
        "4 B",
        "2 KiB",
        "1.5 GiB",
        "10 GiB",
    ]
    with pytest.raises(ValueError, match="kv_heads=3 does not divide heads=8"):
        kv_cache_view(2, 8, 3, 64, 100)
    with pytest.raises(ValueError, match="dtype must be one of"):
        kv_cache_view(2, 8, 2, 64, 100, dtype="int3")


# --- chapter 13's GPT with RoPE and grouped-query attention (tutorlib.modern_gpt) ---------------


@pytest.fixture(scope="module")
def small_vocab():
    from tutorlib.translation.gpt import joint_vocab
    from tutorlib.translation.phrasebook import phrasebook

    return joint_vocab(phrasebook("train")[:200])


def small_config(vocab, **kw):
    from dataclasses import replace

    from tutorlib.translation.gpt import GPTConfig
    from tutorlib.translation.gpt.modern import modern_config

    base = GPTConfig(d_model=16, num_heads=4, d_ff=32, num_layers=2, dropout=0.0, max_len=24)
    return replace(modern_config(base, **kw), vocab_size=len(vocab))


def modern_gpt(vocab, seed=0, **kw):
    from tutorlib.translation.gpt.modern import ModernGPT

    torch.manual_seed(seed)
    return randomize(ModernGPT(small_config(vocab, **kw), vocab, vocab).double(), seed).eval()


def test_modern_gpt_with_every_head_its_own_kv_and_no_rope_is_chapter_13s_gpt(small_vocab):
    """The same state dict loads into both and gives the same logits, through forward and through
    the KV cache: a ModernGPT that dropped the sinusoids, renamed a projection or scaled the
    scores differently fails."""
    from tutorlib.translation.cache import KVCache
    from tutorlib.translation.gpt import GPT, GPTConfig

    modern = modern_gpt(small_vocab)
    plain = {k: v for k, v in modern.config.to_dict().items() if k in GPTConfig().to_dict()}
    gpt = GPT(GPTConfig(**plain), small_vocab, small_vocab).double().eval()
    gpt.load_state_dict(modern.state_dict())
    tokens = torch.randint(5, len(small_vocab), (3, 10), generator=torch.Generator().manual_seed(1))
    assert_close(modern(tokens), gpt(tokens), **EXACT)
    a, b = KVCache(), KVCache()
    assert_close(modern.forward_step(tokens[:, :6], a), gpt.forward_step(tokens[:, :6], b), **EXACT)
    assert_close(
        modern.forward_step(tokens[:, 6:7], a), gpt.forward_step(tokens[:, 6:7], b), **EXACT
    )


@pytest.mark.parametrize("kv_heads", [4, 2, 1])
@pytest.mark.parametrize("rope_base", [None, 10000.0])
def test_modern_gpt_cache_equals_recomputation(small_vocab, kv_heads, rope_base):
    """A prompt, then one token at a time, through tutorlib.gpt's Block.forward_step: the logits of
    the whole sequence at once. A cache that rotated the new key at position 0 instead of its own,
    or repeated the heads in another order than forward, fails; the cache holds Hkv heads."""
    from tutorlib.translation.cache import KVCache

    model = modern_gpt(small_vocab, num_kv_heads=kv_heads, rope_base=rope_base)
    tokens = torch.randint(5, len(small_vocab), (2, 12), generator=torch.Generator().manual_seed(2))
    full = model(tokens)
    cache = KVCache()
    steps = [model.forward_step(tokens[:, :5], cache)]
    steps += [model.forward_step(tokens[:, t : t + 1], cache) for t in range(5, 12)]
    assert_close(torch.cat(steps, dim=1), full, rtol=0, atol=1e-9)
    assert cache.layers[0]["self_attn"]["k"].shape == (2, kv_heads, 12, 4)


def test_modern_gpt_with_rope_reads_positions_inside_attention_only(small_vocab):
    """With RoPE nothing is added to the tokens (add_positions is the identity in eval mode), yet
    the model still tells positions apart: the logits of a token differ by where it stands. A RoPE
    model that kept the sinusoids too, or turned nothing, fails."""
    model = modern_gpt(small_vocab, num_kv_heads=2, rope_base=10000.0)
    x = randn(2, 5, 16, seed=3)
    assert torch.equal(model.add_positions(x, start=7), x)
    sinusoids = modern_gpt(small_vocab, num_kv_heads=2)
    assert not torch.equal(sinusoids.add_positions(x, start=7), x)
    a, b = 11, 12
    # the same two tokens in both orders: the last position's logits must differ
    first = model(torch.tensor([[a, b, a]]))[0, -1]
    second = model(torch.tensor([[b, a, a]]))[0, -1]
    assert (first - second).abs().max() > 1e-3
    turned = model.blocks[0].self_attn
    assert turned.rope_base == 10000.0 and turned.num_kv_heads == 2


def test_modern_gpt_generates_the_same_with_and_without_the_cache(small_vocab):
    from tutorlib.translation.gpt import generate

    model = modern_gpt(small_vocab, num_kv_heads=1, rope_base=10000.0).float()
    prompts = torch.tensor([[11, 12, 13, 2], [14, 15, 16, 2]])
    kw = dict(max_run=None, no_repeat_ngram=None)
    assert generate(model, prompts, 8, **kw) == generate(model, prompts, 8, use_cache=False, **kw)


def test_group_kv_heads_is_the_mean_of_each_group_in_repeat_kv_order(small_vocab):
    """Pooling 4 heads into 2: the new head j is the mean of old heads 2j and 2j+1 (query heads 0
    and 1 read head 0). When the heads of a group are equal the pooled model computes exactly what
    the original did; pooling heads 0 and 2 together (tile's order) would not."""
    from tutorlib.translation.gpt.modern import group_kv_heads

    model = modern_gpt(small_vocab, rope_base=10000.0)
    attn = model.blocks[1].self_attn
    pooled = group_kv_heads(model, 2)
    new = pooled.blocks[1].self_attn
    assert pooled.config.num_kv_heads == 2 and new.w_k.weight.shape == (8, 16)
    # (4 * Dh, D) -> (2, 2, Dh, D), the mean of each group
    expected = attn.w_k.weight.reshape(2, 2, 4, 16).mean(dim=1).reshape(8, 16)
    assert_close(new.w_k.weight, expected, **EXACT)
    assert_close(new.w_v.bias, attn.w_v.bias.reshape(2, 2, 4).mean(dim=1).flatten(), **EXACT)
    assert_close(new.w_q.weight, attn.w_q.weight, **EXACT)
    assert model.config.num_kv_heads is None, "the original is left as it was"
    # equal heads within each group: pooling changes nothing
    with torch.no_grad():
        for block in model.blocks:
            for lin in (block.self_attn.w_k, block.self_attn.w_v):
                w = lin.weight.reshape(2, 2, 4, 16)
                lin.weight.copy_(w[:, :1].expand(2, 2, 4, 16).reshape(16, 16))
                b = lin.bias.reshape(2, 2, 4)
                lin.bias.copy_(b[:, :1].expand(2, 2, 4).reshape(16))
    tokens = torch.randint(5, len(small_vocab), (2, 9), generator=torch.Generator().manual_seed(4))
    assert_close(group_kv_heads(model, 2)(tokens), model(tokens), rtol=0, atol=1e-9)
    assert_close(group_kv_heads(model, 4)(tokens), model(tokens), **EXACT)
    assert group_kv_heads(group_kv_heads(model, 2), 1).config.num_kv_heads == 1
    with pytest.raises(ValueError, match="cannot share"):
        group_kv_heads(model, 3)


def test_modern_gpt_config_and_model_refuse_what_cannot_be_built(small_vocab):
    from tutorlib.translation.gpt import GPTConfig
    from tutorlib.translation.gpt.modern import ModernGPT, group_kv_heads, modern_config

    with pytest.raises(ValueError, match="num_kv_heads=3 does not divide num_heads=4"):
        modern_config(num_kv_heads=3)
    with pytest.raises(ValueError, match="must be even"):
        modern_config(GPTConfig(d_model=12, num_heads=4), rope_base=10000.0)
    with pytest.raises(ValueError, match="needs a ModernGPTConfig"):
        ModernGPT(GPTConfig(vocab_size=len(small_vocab)), small_vocab, small_vocab)
    with pytest.raises(ValueError, match="pools a ModernGPT"):
        group_kv_heads(torch.nn.Linear(2, 2), 1)


@pytest.mark.slow  # trains a ModernGPT, pools its heads and trains on (about 13 s)
def test_train_modern_gpt_trains_and_goes_on_training_a_pooled_model(small_vocab):
    """chapter 9's loop with chapter 13's loss: the loss falls; with model= the very object handed
    in is trained further (a loop that built a fresh model would lose the pooled weights)."""
    from dataclasses import replace

    from tutorlib.translation.gpt.modern import group_kv_heads
    from tutorlib.translation.gpt.training import train_modern_gpt
    from tutorlib.translation.phrasebook import phrasebook

    pairs = phrasebook("train")[:200]
    config = replace(small_config(small_vocab, rope_base=10000.0), lr=3e-3, warmup_steps=2)
    config = replace(config, batch_size=16, epochs=3)
    quiet = dict(progress=False, log=lambda *a: None)
    result = train_modern_gpt(config, pairs, pairs[:20], vocab=small_vocab, **quiet)
    losses = result.history["train"]["loss"]
    assert np.mean(losses[-5:]) < 0.8 * np.mean(losses[:5])
    pooled = group_kv_heads(result.model, 1)
    again = train_modern_gpt(None, pairs, pairs[:20], model=pooled, max_steps=3, **quiet)
    assert again.model is pooled and len(again.history["train"]["loss"]) == 3
    slower = replace(pooled.config, lr=1e-4)
    train_modern_gpt(slower, pairs, pairs[:20], model=pooled, max_steps=1, **quiet)
    assert pooled.config.lr == 1e-4, "the training settings of the config given"
    with pytest.raises(ValueError, match="config.num_kv_heads=None but the model has 1"):
        train_modern_gpt(config, pairs, pairs, model=pooled)


@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_chapter_13s_cache_bytes_count_a_grouped_cache(small_vocab, kv_heads):
    """tutorlib.gpt.kv_cache_bytes reads a ModernGPT's cache too (its rolling window keeps a
    position counter beside the tensors) and agrees with kv_cache_bytes' formula."""
    from tutorlib.translation.cache import KVCache
    from tutorlib.translation.gpt import kv_cache_bytes as cache_bytes

    model = modern_gpt(small_vocab, num_kv_heads=kv_heads)
    cache = KVCache()
    tokens = torch.randint(5, len(small_vocab), (3, 7), generator=torch.Generator().manual_seed(2))
    model.forward_step(tokens, cache)
    c = model.config
    per_value = 8  # float64 (the helper's .double())
    assert cache_bytes(cache) == kv_cache_bytes(
        c.num_layers, kv_heads, c.d_model // c.num_heads, 7, batch=3, bytes_per_value=per_value
    )


# --- the chapters' shipped variants -------------------------------------------------------


def test_shipped_or_trained_reads_a_copy_only_when_its_recipe_matches(
    small_vocab, tmp_path, monkeypatch
):
    """A file made by the same recipe is read back (same weights); another recipe trains; with
    TUTORLIB_REQUIRE_SHIPPED=1 (the tests) a stale or missing file is an error naming the key
    that differs; TUTORLIB_SAVE_VARIANTS=1 writes what was trained with its recipe."""
    from dataclasses import replace

    from tutorlib.translation import checkpoints
    from tutorlib.translation.gpt.modern import ModernGPT, modern_config

    monkeypatch.setattr(checkpoints, "VARIANTS_DIR", tmp_path)
    for var in ("TUTORLIB_RETRAIN", "TUTORLIB_SAVE_VARIANTS", "TUTORLIB_REQUIRE_SHIPPED"):
        monkeypatch.delenv(var, raising=False)
    config = replace(modern_config(num_kv_heads=2, rope_base=10000.0), vocab_size=len(small_vocab))
    trained = []

    def train():
        torch.manual_seed(len(trained))
        trained.append(ModernGPT(config, small_vocab, small_vocab))
        return trained[-1]

    recipe = {"config": config.to_dict(), "steps": (1, 2)}
    model, how = checkpoints.shipped_or_trained("probe", recipe, train)
    assert how == "trained" and not (tmp_path / "probe.pt").exists()  # nothing saved unasked
    monkeypatch.setenv("TUTORLIB_SAVE_VARIANTS", "1")
    model, how = checkpoints.shipped_or_trained("probe", recipe, train)
    assert how == "trained" and (tmp_path / "probe.pt").is_file()
    again, how = checkpoints.shipped_or_trained("probe", recipe, train)
    assert how == "shipped" and len(trained) == 2  # read, not trained: tuples stored as lists
    assert type(again) is ModernGPT and again.config.num_kv_heads == 2
    for (name, a), b in zip(model.state_dict().items(), again.state_dict().values()):
        assert torch.equal(a, b), name
    _, how = checkpoints.shipped_or_trained("probe", recipe, train, retrain=True)
    assert how == "trained" and len(trained) == 3
    monkeypatch.delenv("TUTORLIB_SAVE_VARIANTS")
    monkeypatch.setenv("TUTORLIB_REQUIRE_SHIPPED", "1")
    with pytest.raises(RuntimeError, match=r"another recipe \(it differs in \['steps'\]\)"):
        checkpoints.shipped_or_trained("probe", {**recipe, "steps": 3}, train)
    with pytest.raises(RuntimeError, match="there is no .*other.pt"):
        checkpoints.shipped_or_trained("other", recipe, train)
    with pytest.raises(ValueError, match="name must be letters"):
        checkpoints.shipped_or_trained("../probe", recipe, train)
    assert len(trained) == 3


def test_the_shipped_variants_load_and_ship_with_the_package():
    """Every file in tutorlib/pretrained/variants/ loads, has its recipe, and is package data."""
    import tomllib

    from tutorlib.translation.checkpoints import VARIANTS_DIR, load_checkpoint, read_checkpoint

    files = sorted(VARIANTS_DIR.glob("*.pt"))
    assert {f.stem for f in files} >= {
        "ch13_tiny",
        "ch13_tiny_with_prompt",
        "ch15_sinusoids",
        "ch15_rope",
        "ch15_rope_hkv2",
        "ch15_rope_hkv1",
        "ch17_draft",
    }
    for f in files:
        assert isinstance(read_checkpoint(f)["meta"]["recipe"], dict), f
        load_checkpoint(f, "cpu")
    data = tomllib.loads((VARIANTS_DIR.parents[2] / "pyproject.toml").read_text())
    assert "pretrained/variants/*.pt" in data["tool"]["setuptools"]["package-data"]["tutorlib"]
