"""tutorlib.latent: multi-head latent attention (MLA), its cache, and chapter 17's LatentGPT.

References: the heads' keys and values written out from the latent by hand, the whole-prefix
forward under the causal mask (for the cached and absorbed steps), numbers computed by hand
(DeepSeek-V2's cache). Each test names, in its docstring or assert message, the wrong program
it catches.
"""

from dataclasses import replace

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from tutorlib.latent import (
    DEEPSEEK_V2,
    MultiHeadLatentAttention,
    latent_cache_bytes,
    published_latent_cache,
)
from tutorlib.modern import apply_rope, kv_cache_bytes
from tutorlib.nn import causal_attention_mask

F64 = torch.float64
EXACT = dict(rtol=0, atol=1e-10)


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=F64)


def randomize(module: nn.Module, seed: int = 0) -> nn.Module:
    """Random values everywhere (biases included), so a dropped bias cannot go unnoticed."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) * 0.5)
    return module


def mla(d_model=16, heads=4, d_latent=6, d_rope=4, seed=0, **kw):
    layer = MultiHeadLatentAttention(d_model, heads, d_latent, d_rope, **kw)
    return randomize(layer.double(), seed).eval()


# --- the layer --------------------------------------------------------------------------------


def test_keys_and_values_are_read_out_of_the_latent_with_one_shared_rope_key():
    """Head h's key is [W_UK,h c_KV ; RoPE(W_KR x)], its value W_UV,h c_KV, its query
    [W_Q,h x ; RoPE(W_QR,h x)], and the scores are scaled by sqrt(Dh + Dr): a loop over heads
    written from the paper's equations. A RoPE key per head, the scale sqrt(Dh), or keys
    taken from x instead of the latent all fail it."""
    layer = mla()
    x = randn(2, 5, 16)
    out, weights = layer(x, x, x, causal_attention_mask(5), need_weights=True)
    c = x @ layer.w_dkv.weight.T + layer.w_dkv.bias  # (B, S, Dc)
    k_rope = apply_rope(x @ layer.w_kr.weight.T + layer.w_kr.bias)  # (B, S, Dr)
    heads = []
    for h in range(4):
        rows = slice(4 * h, 4 * h + 4)  # Dh = 4
        rope_rows = slice(4 * h, 4 * h + 4)  # Dr = 4
        q = x @ layer.w_q.weight[rows].T + layer.w_q.bias[rows]
        q_r = apply_rope(x @ layer.w_qr.weight[rope_rows].T + layer.w_qr.bias[rope_rows])
        k = c @ layer.w_uk.weight[rows].T
        v = c @ layer.w_uv.weight[rows].T
        scores = (q @ k.transpose(1, 2) + q_r @ k_rope.transpose(1, 2)) / (4 + 4) ** 0.5
        scores = scores.masked_fill(~causal_attention_mask(5), float("-inf"))
        w = torch.softmax(scores, dim=-1)
        assert_close(weights[:, h], w, **EXACT, msg=f"head {h}'s weights")
        heads.append(w @ v)
    expected = layer.w_o(torch.cat(heads, dim=-1))
    assert_close(out, expected, **EXACT)
    fused, none = layer(x, x, x, causal_attention_mask(5))
    assert none is None
    assert_close(fused, out, **EXACT, msg="the fused path and the written-out path differ")


@pytest.mark.parametrize("absorbed", [False, True])
@pytest.mark.parametrize("first", [1, 3, 7])
def test_cached_steps_equal_forward_over_the_prefix(absorbed, first):
    """A prompt of `first` positions, then one position per step, plain or absorbed: the
    outputs are the whole sequence's under the causal mask. A cache that forgets the RoPE
    key, turns new keys at position 0, or an absorbed form that transposes W_UK per head
    wrongly, fails it."""
    layer = mla()
    x = randn(2, 9, 16, seed=1)
    full, _ = layer(x, x, x, causal_attention_mask(9))
    cache = {}
    steps = [layer.forward_step(x[:, :first], cache, absorbed=absorbed)]
    for t in range(first, 9):
        steps.append(layer.forward_step(x[:, t : t + 1], cache, absorbed=absorbed))
    assert_close(torch.cat(steps, dim=1), full, **EXACT)
    assert cache["t"] == 9
    assert tuple(cache["latent"].shape) == (2, 9, 6) and tuple(cache["k_rope"].shape) == (2, 9, 4)
    assert set(cache) == {"latent", "k_rope", "t"}, "the cache holds the latent and k_R only"


def test_absorbed_and_plain_steps_agree_on_a_long_cache():
    """W_UK folded into the query and W_UV applied after the weighted sum of latents is the
    same arithmetic as reading keys and values out of the latent: one step over 40 cached
    positions, both ways, with a padding-like mask."""
    layer = mla(d_model=24, heads=3, d_latent=5, d_rope=2, seed=3)
    x = randn(3, 41, 24, seed=4)
    plain, absorbed = {}, {}
    layer.forward_step(x[:, :40], plain)
    layer.forward_step(x[:, :40], absorbed, absorbed=True)
    mask = torch.ones(3, 1, 1, 41, dtype=torch.bool)
    mask[1, ..., :7] = False  # sequence 1 hides its first 7 positions
    a = layer.forward_step(x[:, 40:], plain, mask=mask)
    b = layer.forward_step(x[:, 40:], absorbed, mask=mask, absorbed=True)
    assert_close(a, b, **EXACT)
    assert_close(plain["latent"], absorbed["latent"], **EXACT)


def test_causal_mask_keeps_later_tokens_out():
    """Changing the last three tokens leaves the outputs of the first six unchanged, in the
    forward pass and in a prefill step; a step that builds no causal mask for T_new > 1 fails
    the second."""
    layer = mla()
    x = randn(1, 9, 16, seed=5)
    y = x.clone()
    y[:, 6:] = randn(1, 3, 16, seed=6)
    mask = causal_attention_mask(9)
    assert_close(layer(x, x, x, mask)[0][:, :6], layer(y, y, y, mask)[0][:, :6], **EXACT)
    a, b = layer.forward_step(x, {}), layer.forward_step(y, {})
    assert_close(a[:, :6], b[:, :6], **EXACT)
    assert not torch.allclose(a[:, 6:], b[:, 6:])


def test_rope_turns_only_the_decoupled_part():
    """With the RoPE query and key zeroed, a repeated token scores every earlier copy alike
    (uniform weights): the latent part carries no position. RoPE applied to the latent's keys
    (or the no-position queries) makes the weights depend on the offset and fails it."""
    layer = mla(seed=7)
    with torch.no_grad():
        for p in (layer.w_qr.weight, layer.w_qr.bias, layer.w_kr.weight, layer.w_kr.bias):
            p.zero_()
    x = randn(1, 1, 16, seed=8).expand(1, 8, 16)  # one token, eight times
    _, weights = layer(x, x, x, causal_attention_mask(8), need_weights=True)
    uniform = causal_attention_mask(8).double() / torch.arange(1, 9, dtype=F64)[:, None]
    assert_close(weights[0], uniform.expand(4, 8, 8), **EXACT)


def test_shifting_every_position_leaves_the_outputs_unchanged():
    """RoPE makes a score depend on the offset only: the same tokens decoded at positions 11 ..
    18 (a cache whose counter starts at 11) give the outputs of positions 0 .. 7. Queries and
    keys turned at different starts fail it, and so does a decoupled part left unturned in
    one of them; with the RoPE part zeroed the outputs of a repeated token cannot tell
    positions apart at all (previous test)."""
    layer = mla(seed=9)
    x = randn(2, 8, 16, seed=10)
    at_zero = layer.forward_step(x, {})
    at_eleven = layer.forward_step(x, {"t": 11})
    assert_close(at_eleven, at_zero, **EXACT)
    # and the RoPE part does carry the order: reversing the tokens changes the last output
    flipped = layer.forward_step(x.flip(1), {})
    assert not torch.allclose(flipped[:, -1], at_zero[:, -1])


def test_the_cache_is_dc_plus_dr_numbers_per_token_per_layer():
    """What forward_step keeps: B * T * (Dc + Dr) numbers, whatever H and Dh; multi-head
    attention of the same heads keeps 2 * H * Dh per token."""
    layer = mla(d_model=32, heads=8, d_latent=10, d_rope=6)
    cache = {}
    layer.forward_step(randn(3, 7, 32), cache)
    held = sum(t.numel() for t in (cache["latent"], cache["k_rope"]))
    assert held == 3 * 7 * (10 + 6) == 3 * 7 * layer.cache_numbers_per_token()
    bytes_held = sum(t.numel() * t.element_size() for t in (cache["latent"], cache["k_rope"]))
    assert bytes_held == latent_cache_bytes(1, 10, 6, 7, batch=3, bytes_per_value=8)
    assert kv_cache_bytes(1, 8, 4, 7, batch=3, bytes_per_value=8) == 3 * 7 * 2 * 8 * 4 * 8


def test_latent_cache_bytes_by_hand_and_deepseek_v2():
    """(Dc + Dr) * layers * tokens * batch * bytes; DeepSeek-V2's (512 + 64) * 60 = 34,560
    numbers per token against multi-head attention's 2 * 128 * 128 * 60 = 1,966,080 (Table 1
    of the paper: MLA's cache is about 9/2 d_h l)."""
    assert latent_cache_bytes(2, 10, 4, 5) == 2 * 14 * 5 * 2
    assert latent_cache_bytes(2, 10, 4, 5, batch=3, bytes_per_value=0.5) == 2 * 14 * 5 * 3 // 2
    assert latent_cache_bytes(2, 10, 4, 3, bytes_per_value=0.5) == 42  # 42.0 -> int
    assert latent_cache_bytes(1, 1, 1, 1, bytes_per_value=0.25) == 0.5
    m = DEEPSEEK_V2
    assert (m.layers, m.heads, m.d_head, m.d_latent, m.d_rope) == (60, 128, 128, 512, 64)
    assert m.d_model == m.heads * 40 and m.d_latent == 4 * m.d_head and m.d_rope * 2 == m.d_head
    for cited in ("2405.04434", "kv_lora_rank 512", "qk_rope_head_dim 64", "Table 1"):
        assert cited in m.source
    per_token = latent_cache_bytes(m.layers, m.d_latent, m.d_rope, 1, bytes_per_value=1)
    assert per_token == 34_560 == 9 * m.d_head * m.layers // 2
    assert kv_cache_bytes(m.layers, m.heads, m.d_head, 1, bytes_per_value=1) == 1_966_080
    rows = published_latent_cache(32768)
    assert rows["latent"] == 34_560 * 32768 * 2
    assert rows["multi_head"] == 1_966_080 * 32768 * 2 == 120 * 2**30
    assert rows["multi_head"] / rows["latent"] == pytest.approx(56.9, abs=0.05)
    assert rows["multi_query"] < rows["latent"] < rows["grouped_8"]
    assert (rows["per_token_multi_head"], rows["per_token_latent"]) == (32768, 576)


@pytest.mark.parametrize(
    "args, message",
    [
        ((16, 4, 6, 3), r"d_rope must be even, got 3"),
        ((16, 4, 6, 0), r"d_rope must be at least 2, got 0"),
        ((16, 4, 0, 4), r"d_latent must be at least 1, got 0: the latent c_KV"),
        ((16, 4, -2, 4), r"d_latent must be at least 1, got -2"),
        ((16, 4, 2.5, 4), r"d_latent must be a whole number, got 2.5"),
        ((16, 3, 6, 4), r"d_model=16 is not divisible by num_heads=3"),
    ],
)
def test_bad_shapes_are_refused_with_what_was_expected(args, message):
    with pytest.raises(ValueError, match=message):
        MultiHeadLatentAttention(*args)


def test_bad_inputs_are_refused():
    layer = mla()
    x = randn(2, 5, 16)
    with pytest.raises(ValueError, match="pass the same tensor as key and value"):
        layer(x, x, x.clone())
    with pytest.raises(ValueError, match="key"):
        layer(x, randn(2, 5, 12), randn(2, 5, 12))
    with pytest.raises(ValueError, match="bytes_per_value must be above 0"):
        latent_cache_bytes(1, 4, 2, 3, bytes_per_value=0)
    with pytest.raises(ValueError, match="shape must be a LatentShape"):
        published_latent_cache(shape=(60, 128))
    with pytest.raises(ValueError, match="base must be above 0"):
        MultiHeadLatentAttention(16, 4, 6, 4, rope_base=-1.0)


# --- chapter 17's LatentGPT -------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_vocab():
    from tutorlib.translation.gpt import joint_vocab
    from tutorlib.translation.phrasebook import phrasebook

    return joint_vocab(phrasebook("train")[:200])


def small_latent_gpt(vocab, seed=0, d_latent=6, d_rope=2):
    from tutorlib.translation.gpt import GPTConfig
    from tutorlib.translation.gpt.latent import LatentGPT, latent_config

    base = GPTConfig(d_model=16, num_heads=4, d_ff=32, num_layers=2, dropout=0.0, max_len=24)
    config = replace(latent_config(base, d_latent, d_rope), vocab_size=len(vocab))
    torch.manual_seed(seed)
    return randomize(LatentGPT(config, vocab, vocab).double(), seed).eval()


def test_latent_gpt_cache_equals_recomputation_and_counts_its_bytes(small_vocab):
    """The GPT's KVCache steps give the logits of the whole sequence; the cache it fills is
    latent_cache_bytes' size (Dc + Dr per token per block), which chapter 13's kv_cache_bytes
    counts."""
    from tutorlib.translation.cache import KVCache
    from tutorlib.translation.gpt.decoding import kv_cache_bytes as held_bytes

    model = small_latent_gpt(small_vocab)
    tokens = torch.randint(5, len(small_vocab), (3, 11), generator=torch.Generator().manual_seed(0))
    full = model(tokens)
    cache = KVCache()
    steps = [model.forward_step(tokens[:, :4], cache)]
    steps += [model.forward_step(tokens[:, t : t + 1], cache) for t in range(4, 11)]
    assert_close(torch.cat(steps, dim=1), full, **EXACT)
    assert held_bytes(cache) == latent_cache_bytes(2, 6, 2, 11, batch=3, bytes_per_value=8)
    assert all(set(layer["self_attn"]) == {"latent", "k_rope", "t"} for layer in cache.layers)


def test_latent_gpt_saves_loads_and_translates(small_vocab, tmp_path):
    """A checkpoint of kind "latent_gpt" builds a LatentGPT back with the same logits, and
    chapter 13's translate decodes it."""
    from tutorlib.translation.checkpoints import load_checkpoint, read_checkpoint, save_model
    from tutorlib.translation.gpt.decoding import translate
    from tutorlib.translation.gpt.latent import LatentGPT
    from tutorlib.translation.kinds import kind_of

    model = small_latent_gpt(small_vocab).float()
    assert kind_of(model).name == kind_of(model.config).name == "latent_gpt"
    path = save_model(model, tmp_path / "mla.pt")
    assert read_checkpoint(path)["kind"] == "latent_gpt"
    loaded = load_checkpoint(path, "cpu")[0]
    assert type(loaded) is LatentGPT and loaded.config == model.config
    tokens = torch.randint(5, len(small_vocab), (2, 7), generator=torch.Generator().manual_seed(1))
    assert torch.equal(loaded(tokens), model(tokens))
    from tutorlib.translation.phrasebook import phrasebook

    assert len(translate([phrasebook("train")[0][0]], model)) == 1


def test_latent_gpt_config_refuses_what_cannot_be_built(small_vocab):
    from tutorlib.translation.gpt import GPTConfig
    from tutorlib.translation.gpt.latent import LatentGPT, LatentGPTConfig
    from tutorlib.translation.gpt.modern import group_kv_heads, modern_config

    with pytest.raises(ValueError, match="give rope_base"):
        LatentGPTConfig(d_model=16, num_heads=4, rope_base=None)
    with pytest.raises(ValueError, match="leave num_kv_heads None"):
        LatentGPTConfig(d_model=16, num_heads=4, rope_base=1e4, num_kv_heads=2)
    with pytest.raises(ValueError, match="d_rope must be even, got 5"):
        LatentGPTConfig(d_model=16, num_heads=4, rope_base=1e4, d_rope=5)
    with pytest.raises(ValueError, match="d_latent must be at least 1, got 0"):
        LatentGPTConfig(d_model=16, num_heads=4, rope_base=1e4, d_latent=0)
    with pytest.raises(ValueError, match="LatentGPT needs a LatentGPTConfig"):
        LatentGPT(modern_config(GPTConfig(d_model=16, num_heads=4), rope_base=1e4))
    with pytest.raises(ValueError, match="which has none to pool"):
        group_kv_heads(small_latent_gpt(small_vocab), 2)


SHIPPED = {"ch17_mla_c24": (24, 8), "ch17_mla_c56": (56, 8), "ch17_mla_c16_r16": (16, 16)}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_the_shipped_latent_variants_hold_chapter_17s_recipe(name):
    """Each file loads as a LatentGPT whose recipe is chapter 15's RoPE model's (the preset
    "tiny", three epochs, the short training pairs) with only the attention changed."""
    from tutorlib.translation.checkpoints import VARIANTS_DIR, read_checkpoint
    from tutorlib.translation.gpt import GPT_PRESETS
    from tutorlib.translation.gpt.latent import LatentGPT, latent_config
    from tutorlib.translation.gpt.modern import modern_config

    state = read_checkpoint(VARIANTS_DIR / f"{name}.pt")
    recipe, rope = state["meta"]["recipe"], read_checkpoint(VARIANTS_DIR / "ch15_rope.pt")
    tiny = replace(GPT_PRESETS["tiny"], epochs=3)
    d_latent, d_rope = SHIPPED[name]
    assert recipe["config"] == latent_config(tiny, d_latent=d_latent, d_rope=d_rope).to_dict()
    assert recipe["pairs"] == rope["meta"]["recipe"]["pairs"]
    same = {k: v for k, v in recipe["config"].items() if k not in ("d_latent", "d_rope")}
    assert same == modern_config(tiny, rope_base=10000.0).to_dict()
    assert same == rope["meta"]["recipe"]["config"]
    from tutorlib.translation.checkpoints import model_from_state

    model = model_from_state(state, torch.device("cpu"))
    assert type(model) is LatentGPT and model.config.cache_numbers_per_token() == d_latent + d_rope


def test_the_shipped_multi_query_variant_is_ch15_ropes_recipe_with_one_kv_head():
    """ch17_mqa, chapter 17's reference at a quarter of the cache: ch15_rope's recipe with
    num_kv_heads=1, trained from scratch (not pooled, unlike ch15_rope_hkv1)."""
    from tutorlib.translation.checkpoints import VARIANTS_DIR, read_checkpoint
    from tutorlib.translation.gpt import GPT_PRESETS
    from tutorlib.translation.gpt.modern import modern_config

    recipe = read_checkpoint(VARIANTS_DIR / "ch17_mqa.pt")["meta"]["recipe"]
    rope = read_checkpoint(VARIANTS_DIR / "ch15_rope.pt")["meta"]["recipe"]
    tiny = replace(GPT_PRESETS["tiny"], epochs=3)
    assert recipe == {**rope, "config": modern_config(tiny, 1, 10000.0).to_dict()}
    assert {k: v for k, v in recipe["config"].items() if k != "num_kv_heads"} == {
        k: v for k, v in rope["config"].items() if k != "num_kv_heads"
    }
