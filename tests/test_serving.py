"""tutorlib.serving (issue 38, attention at serving scale): the paged KV cache, the quantised
KV cache and speculative decoding on the shipped GPTs, held to the plain decoder's tokens
(``generate`` with chapter 10's ``KVCache``): the paged cache and speculative decoding exactly,
on prompts of mixed lengths and with a draft that never trained; int8 and int4 on all but a
few sentences."""

from __future__ import annotations

import pytest
import torch

from tutorlib.serving import quantized
from tutorlib.serving.paged import (
    BlockPool,
    PagedKVCache,
    block_tables,
    cache_account,
    paged_generate,
)
from tutorlib.serving.quantized import (
    QuantizedKVCache,
    calibrate,
    dequantize,
    quantize,
    quantized_generate,
    token_scale,
)
from tutorlib.serving.speculative import speculative_generate, truncate
from tutorlib.serving.step import bytes_per_position, prompts_of
from tutorlib.translation.cache import KVCache
from tutorlib.translation.config import GPTConfig
from tutorlib.translation.gpt import GPT, generate
from tutorlib.translation.gpt.checkpoints import load_gpt, load_pretrained
from tutorlib.translation.phrasebook import phrasebook

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py

TINY = GPTConfig(d_model=32, num_heads=2, d_ff=64, num_layers=2, dropout=0.0, max_len=64)


@pytest.fixture(scope="module")
def bpe_gpt():
    return load_pretrained()


@pytest.fixture(scope="module")
def words_gpt():
    return load_pretrained("words")


@pytest.fixture(scope="module")
def bpe_batch(bpe_gpt):
    """14 test sentences with real names, of 6 to 21 BPE tokens: prompts of mixed lengths."""
    pairs = phrasebook("test", names="real")[:14]
    return prompts_of(bpe_gpt, [en for en, _ in pairs])


def reference(model, prompts, budgets):
    """``generate``'s greedy tokens, each sentence alone with the plain ``KVCache``."""
    return [generate(model, torch.tensor([p]), n)[0] for p, n in zip(prompts, budgets)]


def random_draft(target, seed=0):
    """A small GPT on the target's vocabulary that never saw a sentence: a bad draft."""
    torch.manual_seed(seed)
    config = GPTConfig(**{**TINY.__dict__, "vocab_size": len(target.vocab)})
    return GPT(config, target.vocab, target.vocab).eval()


# --- the paged cache ------------------------------------------------------------------------------


def test_the_batch_mixes_lengths(bpe_batch):
    prompts, _ = bpe_batch
    assert len({len(p) for p in prompts}) >= 6


def test_paged_decoding_writes_the_plain_caches_tokens(bpe_gpt, bpe_batch):
    prompts, budgets = bpe_batch
    out, stats = paged_generate(bpe_gpt, prompts, budgets, block_size=4, max_batch=5)
    assert out == reference(bpe_gpt, prompts, budgets)
    # more blocks were handed out than the pool has: finished sequences' blocks were reused
    assert stats["peak_blocks"] < stats["num_blocks"]


def test_paged_decoding_of_the_whole_batch_at_once(bpe_gpt, bpe_batch):
    prompts, budgets = bpe_batch
    out, _ = paged_generate(bpe_gpt, prompts[:6], budgets[:6], block_size=16)
    assert out == reference(bpe_gpt, prompts[:6], budgets[:6])


def test_a_small_pool_is_reused_and_still_decodes_right(bpe_gpt, bpe_batch):
    prompts, budgets = bpe_batch
    out, stats = paged_generate(bpe_gpt, prompts, budgets, block_size=8, num_blocks=12, max_batch=2)
    assert out == reference(bpe_gpt, prompts, budgets)
    assert stats["blocks_taken"] > stats["num_blocks"] == 12


def test_a_freed_sequences_blocks_go_to_the_next_one(bpe_gpt):
    cache = PagedKVCache(BlockPool(bpe_gpt, num_blocks=6, block_size=4))
    cache.add("a")
    cache.reserve("a", 9)  # 9 positions: 3 blocks
    cache.add("b")
    cache.reserve("b", 4)
    held = list(cache.tables["a"])
    assert len(held) == 3 and cache.pool.free_blocks == 2
    assert cache.held_bytes() == 4 * 4 * bytes_per_position(bpe_gpt)  # 4 blocks of 4 positions
    cache.free("a")
    cache.add("c")
    cache.reserve("c", 12)
    assert sorted(cache.tables["c"]) == sorted(held)
    with pytest.raises(ValueError, match="blocks of 4 positions are all held"):
        cache.reserve("c", 21)  # 6 blocks: 3 more, and 2 are free


def held_positions(prompts, budgets, outputs):
    """The positions each sequence holds when it finishes: its prompt and every token it wrote
    but the last (``<eos>``, or the last of its budget, is never read)."""
    return [len(p) + min(len(o), n - 1) for p, n, o in zip(prompts, budgets, outputs)]


@pytest.mark.parametrize("block_size", [1, 4, 16])
def test_block_tables_are_the_tables_paged_decoding_hands_out(bpe_gpt, bpe_batch, block_size):
    """The pure-Python tables (chapter 17's explorer draws them) against paged_generate's own,
    the whole batch at once: finished sequences' blocks are reused by the ones still running."""
    prompts, budgets = bpe_batch
    out, stats = paged_generate(bpe_gpt, prompts, budgets, block_size=block_size)
    lengths = held_positions(prompts, budgets, out)
    tables = block_tables([len(p) for p in prompts], lengths, block_size)
    assert tables == stats["tables"]
    assert [len(t) for t in tables] == [-(-n // block_size) for n in lengths]
    every = [b for t in tables for b in t]
    assert len(set(every)) < len(every)  # a block held by two sequences, one after the other


def test_block_tables_interleave_sequences_that_grow_together():
    # two prompts of 3 positions, blocks of 2: each prompt takes 2 blocks, then they grow
    assert block_tables([3, 3], [6, 5], 2) == [[0, 1, 4], [2, 3, 5]]
    # the first finishes at once: its blocks go back, last given back first taken
    assert block_tables([2, 2], [2, 6], 2) == [[0], [1, 0, 2]]
    with pytest.raises(ValueError, match="its prompt has 4"):
        block_tables([4], [3], 2)
    with pytest.raises(ValueError, match="one prompt length per sequence length"):
        block_tables([4, 2], [5], 2)


def test_the_accounting_of_contiguous_and_paged_bytes():
    account = cache_account([5, 17, 8], max_len=32, block_size=8, position_bytes=10)
    assert account.used_bytes == 300
    assert account.contiguous_bytes == 3 * 32 * 10
    assert account.paged_bytes == (1 + 3 + 1) * 8 * 10
    assert account.paged_waste == pytest.approx(1 - 300 / 400)
    assert account.contiguous_waste == pytest.approx(1 - 300 / 960)


def test_a_position_costs_a_key_and_a_value_per_block(bpe_gpt):
    c = bpe_gpt.config
    assert bytes_per_position(bpe_gpt) == 2 * c.num_layers * c.d_model * 4


@pytest.mark.parametrize(
    "lengths, message",
    [([], "at least one"), ([40], "max_len=32"), ([0], "lengths")],
)
def test_the_accounting_refuses_bad_lengths(lengths, message):
    with pytest.raises(ValueError, match=message):
        cache_account(lengths, max_len=32, block_size=8, position_bytes=1)


def test_paged_decoding_refuses_a_modern_gpt():
    modern = load_gpt("tutorlib/pretrained/variants/ch15_rope.pt")
    with pytest.raises(ValueError, match="serves chapter 13's GPT"):
        paged_generate(modern, [[4, 5, 3]], 4)


# --- speculative decoding -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def words_batch(words_gpt):
    return prompts_of(words_gpt, [en for en, _ in phrasebook("test")[:12]])


def test_speculative_decoding_writes_the_targets_tokens(words_gpt, words_batch):
    """Chapter 17's shipped draft reads the words GPT's vocabulary: a real draft."""
    draft = load_gpt("tutorlib/pretrained/variants/ch17_draft.pt")
    prompts, budgets = words_batch
    out, counts = speculative_generate(words_gpt, draft, prompts, budgets, k=4)
    assert out == reference(words_gpt, prompts, budgets)
    assert counts["accepted"] > 0
    assert counts["target_passes"] < counts["tokens"]  # fewer target passes than tokens


@pytest.mark.parametrize("k", [1, 3, 6])
def test_any_draft_gives_the_targets_tokens(bpe_gpt, bpe_batch, k):
    """A draft that never trained proposes nonsense: still the target's tokens, one per pass."""
    prompts, budgets = bpe_batch
    out, counts = speculative_generate(bpe_gpt, random_draft(bpe_gpt), prompts, budgets, k=k)
    assert out == reference(bpe_gpt, prompts, budgets)
    assert counts["target_passes"] >= counts["tokens"] - counts["accepted"]


def test_the_target_as_its_own_draft_accepts_every_guess(words_gpt, words_batch):
    prompts, budgets = words_batch
    out, counts = speculative_generate(words_gpt, words_gpt, prompts, budgets, k=3)
    assert out == reference(words_gpt, prompts, budgets)
    assert counts["accepted"] == counts["proposed"] > 0


def test_a_draft_on_another_vocabulary_is_refused(bpe_gpt, words_gpt):
    with pytest.raises(ValueError, match="is not the target's"):
        speculative_generate(bpe_gpt, words_gpt, [[4, 3]], 4)


def test_truncate_keeps_the_first_positions(words_gpt):
    cache = KVCache()
    tokens = torch.tensor([[5, 6, 7, 8, 3]])
    words_gpt.forward_step(tokens, cache)
    truncate(cache, 3)
    short = KVCache()
    words_gpt.forward_step(tokens[:, :3], short)
    assert cache.length == 3
    for a, b in zip(cache.layers, short.layers):
        torch.testing.assert_close(a["self_attn"]["k"], b["self_attn"]["k"])
        torch.testing.assert_close(a["self_attn"]["v"], b["self_attn"]["v"])
    with pytest.raises(ValueError, match="cannot be cut"):
        truncate(cache, 4)


# --- the quantised cache --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bpe_reference(bpe_gpt, bpe_batch):
    return reference(bpe_gpt, *bpe_batch)


@pytest.mark.parametrize("bits, q", [(8, 127), (4, 7)])
def test_a_token_scale_rounds_each_position_to_half_a_step(bits, q):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 8)  # (B, H, T, Dh)
    x[..., 0] *= 20  # an outlier channel
    scale = token_scale(x, bits)
    assert scale.shape == (2, 3, 5, 1)  # one per position and head, over the channels
    codes = quantize(x, bits, scale)
    assert codes.dtype == torch.int8 and int(codes.abs().max()) == q
    assert (dequantize(codes, scale) - x).abs().le(scale / 2 + 1e-6).all()


def test_a_channel_scale_keeps_the_small_channels_precision():
    """With one channel 20 times the others, a scale per token rounds the others coarsely: a
    scale per channel makes their error at least two times smaller (about four, here)."""
    torch.manual_seed(0)
    x = torch.randn(1, 1, 64, 8)
    x[..., 0] *= 20
    per_token = dequantize(quantize(x, 4, s := token_scale(x, 4)), s)
    per_channel = dequantize(quantize(x, 4, c := x.abs().amax(dim=2, keepdim=True) / 7), c)
    small = (slice(None), slice(None), slice(None), slice(1, None))
    assert (per_channel - x)[small].abs().mean() < 0.5 * (per_token - x)[small].abs().mean()


def test_int8_decoding_agrees_with_the_float_cache(bpe_gpt, bpe_batch, bpe_reference):
    out, stats = quantized_generate(bpe_gpt, *bpe_batch, bits=8)
    agree = sum(a == b for a, b in zip(out, bpe_reference))
    assert agree >= len(out) - 2, f"{agree} of {len(out)}"
    Dh = bpe_gpt.config.d_model // bpe_gpt.config.num_heads
    # one byte a number and a float32 scale per Dh numbers, against four bytes a number
    assert stats["bytes"] == pytest.approx(stats["float_bytes"] * (1 + 4 / Dh) / 4)


def test_int4_decoding_mostly_agrees_in_half_the_bytes(bpe_gpt, bpe_batch, bpe_reference):
    out, stats = quantized_generate(bpe_gpt, *bpe_batch, bits=4)
    assert sum(a == b for a, b in zip(out, bpe_reference)) >= len(out) - 4
    Dh = bpe_gpt.config.d_model // bpe_gpt.config.num_heads
    assert stats["bytes"] == pytest.approx(stats["float_bytes"] * (0.5 + 4 / Dh) / 4)


def test_a_scale_without_its_levels_fails_the_agreement(
    bpe_gpt, bpe_batch, bpe_reference, monkeypatch
):
    """A planted bug: the scale maps the largest number to 1, not to 127, so int8 keeps three
    levels. The agreement test above must catch it."""
    monkeypatch.setattr(quantized, "token_scale", lambda x, bits: x.abs().amax(-1, keepdim=True))
    out, _ = quantized_generate(bpe_gpt, *bpe_batch, bits=8)
    assert sum(a == b for a, b in zip(out, bpe_reference)) < len(out) - 2


def test_per_channel_scales_from_calibration(bpe_gpt, bpe_batch, bpe_reference):
    train = [en for en, _ in phrasebook("train", names="real")[:12]]
    scales = calibrate(bpe_gpt, *prompts_of(bpe_gpt, train), bits=8)
    H, Dh = bpe_gpt.config.num_heads, bpe_gpt.config.d_model // bpe_gpt.config.num_heads
    assert len(scales) == bpe_gpt.config.num_layers and scales[0][0].shape == (H, 1, Dh)
    out, _ = quantized_generate(bpe_gpt, *bpe_batch, keys="channel", scales=scales)
    assert sum(a == b for a, b in zip(out, bpe_reference)) >= len(out) - 2


@pytest.mark.parametrize(
    "kwargs, message",
    [({"bits": 16}, "bits must be 8 or 4"), ({"keys": "head"}, "keys must be 'token'"),
     ({"values": "channel"}, "per-channel scales are fixed")],
)  # fmt: skip
def test_the_quantised_cache_refuses_bad_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        QuantizedKVCache(**kwargs)


def test_a_pool_too_small_for_all_preempts_and_still_decodes_right(bpe_gpt, bpe_batch):
    """14 blocks of four positions for five sequences at once: some must wait and come back."""
    prompts, budgets = bpe_batch
    out, stats = paged_generate(bpe_gpt, prompts, budgets, block_size=4, num_blocks=14, max_batch=5)
    assert stats["preempted"] > 0
    assert out == reference(bpe_gpt, prompts, budgets)
    with pytest.raises(ValueError, match="does not fit the pool's 2 blocks"):
        paged_generate(bpe_gpt, prompts[:1], budgets[:1], block_size=4, num_blocks=2)


@pytest.mark.parametrize(
    "prompts, budget, message",
    [
        ([], 4, "got no prompt"),
        ([[5, 3], []], 4, "got an empty prompt"),
        ([[5, 3]], [4, 4], "1 prompt but 2 budgets"),
        ([[5, 3]], 0, "budget 0 must be a whole number of tokens, at least 1, got 0"),
        ([[5, 3]], 80, "max_len=64"),
    ],
)
@pytest.mark.parametrize("decode", ["paged", "quantized", "speculative"])
def test_bad_prompts_and_budgets_are_refused(words_gpt, prompts, budget, message, decode):
    run = {
        "paged": lambda: paged_generate(words_gpt, prompts, budget),
        "quantized": lambda: quantized_generate(words_gpt, prompts, budget),
        "speculative": lambda: speculative_generate(words_gpt, words_gpt, prompts, budget),
    }[decode]
    with pytest.raises(ValueError, match=message):
        run()
