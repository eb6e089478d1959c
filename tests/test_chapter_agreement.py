"""A chapter's own derivation and tutorlib's version agree on seeded inputs.

The cells tagged ``derivation`` in a chapter notebook are executed here, in a
fresh namespace, and the function they define is compared with the package
function the chapter hands over to ("this is now tutorlib.x.y").
"""

from pathlib import Path

import nbformat
import numpy as np
import pytest
from torch.testing import assert_close

from tutorlib.attention import scaled_dot_product_attention, softmax

CHAPTERS = Path(__file__).resolve().parent.parent / "chapters"


def derivations(notebook: str) -> dict:
    nb = nbformat.read(CHAPTERS / notebook, as_version=4)
    cells = [
        c for c in nb.cells if c.cell_type == "code" and "derivation" in c.metadata.get("tags", [])
    ]
    assert cells, f"{notebook} has no cell tagged 'derivation'"
    namespace: dict = {}
    for cell in cells:
        exec(compile(cell.source, f"{notebook}[derivation]", "exec"), namespace)
    return namespace


def test_chapter_3_softmax_agrees_with_tutorlib():
    stable_softmax = derivations("03_softmax.ipynb")["stable_softmax"]
    rng = np.random.default_rng(0)
    for shape in [(5,), (3, 4), (2, 3, 6)]:
        x = rng.standard_normal(shape) * 10
        for t in (0.5, 1.0, 3.0):
            assert_close(
                stable_softmax(x, temperature=t), softmax(x, temperature=t), rtol=1e-12, atol=1e-12
            )
    huge = np.array([[1e4, -1e4, 0.0]])
    assert_close(stable_softmax(huge), softmax(huge), rtol=0, atol=1e-12)


def test_chapter_3_softmax_jacobian_agrees_with_tutorlib_experiments():
    from tutorlib.experiments import softmax_jacobian

    ns = derivations("03_softmax.ipynb")
    rng = np.random.default_rng(0)
    for n, spread in [(2, 1.0), (3, 1.0), (6, 3.0), (10, 20.0)]:
        p = ns["stable_softmax"](rng.standard_normal(n) * spread)
        assert_close(ns["softmax_jacobian"](p), softmax_jacobian(p), rtol=1e-12, atol=1e-12)
    # and both are the derivative: a central difference of the softmax, column by column
    x = np.array([2.0, 1.0, 0.1])
    eps = 1e-6
    numeric = np.stack(
        [(softmax(x + eps * e) - softmax(x - eps * e)) / (2 * eps) for e in np.eye(3)], axis=1
    )
    assert_close(ns["softmax_jacobian"](softmax(x)), numeric, rtol=0, atol=1e-8)


def test_chapter_4_attention_agrees_with_tutorlib():
    attention = derivations("04_scaled_dot_product_attention.ipynb")["attention"]
    rng = np.random.default_rng(0)
    for t_q, t_k, d_k, d_v in [(1, 5, 2, 2), (3, 3, 5, 3), (4, 7, 8, 2)]:
        q, k, v = (
            rng.standard_normal((t_q, d_k)),
            rng.standard_normal((t_k, d_k)),
            rng.standard_normal((t_k, d_v)),
        )
        out, weights = attention(q, k, v)
        ref_out, ref_weights = scaled_dot_product_attention(q, k, v)
        assert_close(np.asarray(weights), ref_weights, rtol=1e-12, atol=1e-12)
        assert_close(np.asarray(out), ref_out, rtol=1e-12, atol=1e-12)


def test_chapter_6_masks_and_masked_attention_agree_with_tutorlib():
    from tutorlib.attention import causal_mask, padding_mask

    ns = derivations("06_masking.ipynb")
    for n in (1, 4, 7):
        np.testing.assert_array_equal(ns["make_causal_mask"](n), causal_mask(n))
    for lengths, max_len in (([3, 5], None), ([1, 2, 2], 4)):
        np.testing.assert_array_equal(
            ns["make_padding_mask"](lengths, max_len), padding_mask(lengths, max_len)
        )
    rng = np.random.default_rng(0)
    q, k, v = (
        rng.standard_normal((2, 5, 4)),
        rng.standard_normal((2, 5, 4)),
        rng.standard_normal((2, 5, 3)),
    )
    mask = causal_mask(5)[None] & padding_mask([5, 3])[:, None, :]  # (B, T, T), no row fully masked
    out, weights = ns["masked_attention"](q, k, v, mask)
    ref_out, ref_weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert_close(np.asarray(weights), ref_weights, rtol=1e-12, atol=1e-12)
    assert_close(np.asarray(out), ref_out, rtol=1e-12, atol=1e-12)


def test_chapter_5_heads_agree_with_tutorlib_nn():
    import torch

    from tutorlib.nn import MultiHeadAttention, merge_heads, split_heads

    ns = derivations("05_multi_head_attention.ipynb")
    torch.manual_seed(0)
    x = torch.randn(2, 6, 12, dtype=torch.float64)
    assert_close(ns["split_heads"](x, 3), split_heads(x, 3))
    assert_close(ns["merge_heads"](split_heads(x, 3)), merge_heads(split_heads(x, 3)))
    for t_q, t_k, d, h in [(6, 6, 12, 3), (4, 7, 16, 4)]:
        mha = MultiHeadAttention(d, h, bias=False).double().eval()
        q, kv = (
            torch.randn(2, t_q, d, dtype=torch.float64),
            torch.randn(2, t_k, d, dtype=torch.float64),
        )
        # nn.Linear computes x @ weight.T, so the chapter's (D, D) matrices are the transposed
        # weights
        ws = [lin.weight.detach().T for lin in (mha.w_q, mha.w_k, mha.w_v, mha.w_o)]
        out, weights = ns["multi_head_attention"](q, kv, kv, *ws, h)
        ref_out, ref_weights = mha(q, kv, kv, need_weights=True)
        assert_close(out, ref_out.detach(), rtol=1e-10, atol=1e-10)
        assert_close(weights, ref_weights.detach(), rtol=1e-10, atol=1e-10)


def test_chapter_8_positional_encoding_agrees_with_tutorlib_nn():
    import torch

    from tutorlib.nn import sinusoidal_positional_encoding

    positional_encoding = derivations("08_transformer_block.ipynb")["positional_encoding"]
    for max_len, d_model in [(1, 1), (5, 16), (64, 64), (50, 7)]:
        ours = torch.as_tensor(positional_encoding(max_len, d_model)).float()
        assert_close(ours, sinusoidal_positional_encoding(max_len, d_model), rtol=1e-6, atol=1e-6)


@pytest.mark.slow  # runs chapter 10's decoding cells (over a minute)
def test_chapter_10_greedy_and_beam_translate_agree_with_tutorlib_translator():
    import torch

    from tutorlib.nn import padding_attention_mask
    from tutorlib.translation.checkpoints import load_pretrained
    from tutorlib.translation.data import PAD_ID, tokenize
    from tutorlib.translation.decoding import beam_search, greedy_decode

    ns = derivations("10_translating_and_evaluating.ipynb")
    model, src_vocab, _ = load_pretrained(device="cpu")
    # in the phrasebook, and outside it; greedy and beam search disagree on the validation
    # split's "... but the dirty wolf is beautiful" (greedy: "está sujo", beam: "é bonito")
    sentences = [
        "I am happy.",
        "the red car",
        "you buy my fast cows",
        "she is tired",
        "tall women do not need my car.",
        "you do not live in my restaurant, but the dirty wolf is beautiful",
        "the beautiful women do not see tired cats.",
    ]
    ids = [src_vocab.encode(tokenize(s)) for s in sentences]
    width = max(map(len, ids))
    batch = torch.tensor([s + [PAD_ID] * (width - len(s)) for s in ids])  # (B, S)
    mask = padding_attention_mask(batch != PAD_ID)  # (B, 1, 1, S)
    with torch.no_grad():
        assert [ns["greedy_translate"](model, s) for s in ids] == greedy_decode(model, batch, mask)
        for beam_size, alpha in [(4, 0.6), (4, 0.0), (4, 1.0), (2, 0.6)]:
            ours = [ns["beam_translate"](model, s, beam_size=beam_size, alpha=alpha) for s in ids]
            theirs = beam_search(model, batch, mask, beam_size=beam_size, length_penalty=alpha)
            assert ours == theirs, (beam_size, alpha)
    # the test can fail: greedy and beam search write different translations here
    assert greedy_decode(model, batch, mask) != beam_search(model, batch, mask, beam_size=4)


def test_chapter_9_loss_and_schedule_agree_with_tutorlib_training():
    import dataclasses

    import torch

    from tutorlib.translation.config import PRESETS
    from tutorlib.translation.model import translation_loss
    from tutorlib.translation.training import learning_rate

    ns = derivations("09_training_a_translator.ipynb")
    torch.manual_seed(0)
    logits = torch.randn(3, 5, 11, dtype=torch.float64)
    targets = torch.randint(1, 11, (3, 5))
    targets[0, 3:] = 0  # padding
    for eps in (0.0, 0.1, 0.3):
        assert_close(
            ns["smoothed_cross_entropy"](logits, targets, eps=eps),
            translation_loss(logits, targets, label_smoothing=eps),
            rtol=1e-10,
            atol=1e-10,
        )
    config = dataclasses.replace(PRESETS["tiny"], warmup_steps=10, lr=1e-3)
    for step in (0, 5, 9, 10, 40, 99, 150):
        expected = learning_rate(step, config, total_steps=100)
        ours = ns["warmup_cosine"](step, config.lr, config.min_lr, config.warmup_steps, 100)
        assert abs(ours - expected) < 1e-15, (step, ours, expected)


def test_chapter_12_zoo_attention_agrees_with_tutorlib():
    """The bug zoo's attention, with its right scale, is tutorlib's MultiHeadAttention spelled
    out."""
    import torch

    from tutorlib.nn import MultiHeadAttention, causal_attention_mask, padding_attention_mask

    ZooAttention = derivations("12_debugging.ipynb")["ZooAttention"]
    torch.manual_seed(0)
    reference = MultiHeadAttention(32, 4).eval()
    zoo = ZooAttention(32, 4).eval()
    zoo.load_state_dict(reference.state_dict())
    q, kv = torch.randn(2, 5, 32), torch.randn(2, 7, 32)
    for query, key, mask in [
        (q, q, causal_attention_mask(5)),
        (q, kv, padding_attention_mask([7, 4])),
        (q, q, None),
    ]:
        ours, weights = zoo(query, key, key, mask=mask, need_weights=True)
        theirs, ref_weights = reference(query, key, key, mask=mask, need_weights=True)
        assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
        assert_close(weights, ref_weights, rtol=1e-5, atol=1e-6)
    zoo.scale = "d_k"  # a planted bug must make a difference the test would see
    assert not torch.allclose(zoo(q, q, q)[0], reference(q, q, q)[0], atol=1e-3)


def test_chapter_14_bpe_agrees_with_tutorlib_tokenizers():
    """Chapter 14's step-by-step BPE (a recount per merge) learns the merges of
    tutorlib.tokenizers.BPE.train, ties and all, and encodes and decodes as BPE does."""
    from tutorlib.tokenizers import BPE, merge_pair
    from tutorlib.translation.phrasebook import phrasebook

    ns = derivations("14_tokenization.ipynb")
    pairs = phrasebook("train")[::40]  # spread over the split: every kind of sentence
    texts = [s for pair in pairs for s in pair] + [
        "Zoë's café, naïve 🎉🎉 ok",
        "東京は晴れ、東京は雨",
        "tabs\tand\nnew lines  x",
        "aaaa aaa aa",  # overlapping occurrences of one pair
    ]
    held = ["Ünïcødé 👩‍👩‍👧 x", "helo teh cat", "", "mipi não vai estar no escritório"]
    for vocab_size in (256, 257, 300, 600):
        merges = ns["train_bpe"](texts, vocab_size)
        bpe = BPE.train(texts, vocab_size, special_tokens=())
        assert merges == bpe.merges, vocab_size
        for text in texts[:60] + held:
            ids = ns["encode"](text, merges)
            assert ids == bpe.encode(text), (vocab_size, text)
            assert ns["decode"](ids, merges) == bpe.decode(ids) == text
    # the tie rule: three pairs occur twice each, and the smallest pair of ids wins
    # (a first-seen rule would take "ba" here)
    assert ns["train_bpe"](["ba", "ba", "ab", "ab", "xy", "xy"], 257) == [(97, 98)]
    assert BPE.train(["ba", "ba", "ab", "ab", "xy", "xy"], 257, special_tokens=()).merges == [
        (97, 98)
    ]
    # a stop before the vocabulary is full, when every chunk is one token
    assert ns["train_bpe"](["ab", "ab"], 300) == [(97, 98)]
    # a pair is never counted across two texts: "ab" + "ba" glued would count (b, b)
    assert (98, 98) not in ns["train_bpe"](["ab", "ba", "ab", "ba"], 260)
    for word, pair in [
        ((1, 1, 1), (1, 1)),
        ((5, 6, 5, 6, 5), (5, 6)),
        ((), (1, 2)),
        ((7,), (7, 7)),
    ]:
        assert ns["merge"](word, pair, 9) == merge_pair(word, pair, 9), (word, pair)
    # a partial character decodes as U+FFFD in both
    ids = ns["encode"]("é", [])
    assert ns["decode"](ids[:1], []) == BPE().decode(ids[:1]) == "\ufffd"


def test_chapter_15_rope_heads_and_window_agree_with_tutorlib_modern():
    """rotate_pairs is apply_rope for one head (any positions and base), repeat_kv_heads is
    repeat_kv (the order of the groups included), window_mask is sliding_window_mask."""
    import torch

    from tutorlib.modern import apply_rope, repeat_kv, sliding_window_mask

    ns = derivations("15_modern_attention.ipynb")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 10))
    for positions, base in [(range(7), 10000.0), ([3, 9, 0, 1, 40, 2, 5], 100.0)]:
        ours = ns["rotate_pairs"](x, list(positions), base=base)
        assert_close(ours, apply_rope(x, positions=np.asarray(positions), base=base), **TIGHT)
    kv = torch.randn(2, 3, 5, 4, generator=torch.Generator().manual_seed(0))
    for heads in (3, 6, 12):
        assert torch.equal(ns["repeat_kv_heads"](kv, heads), repeat_kv(kv, heads))
    for T, window in [(6, 1), (6, 3), (9, 4), (5, 5), (4, 10)]:
        assert torch.equal(ns["window_mask"](T, window), sliding_window_mask(T, window))


TIGHT = dict(rtol=1e-12, atol=1e-12)


def test_chapter_17_slot_of_finds_where_the_paged_cache_wrote_each_key():
    """slot_of(table, p, b) names the block and slot where PagedKVCache wrote position p's key:
    another sequence took the first blocks, so the table is not 0, 1, 2 and an address that
    ignored it (or swapped block and slot) reads another position's key."""
    import torch

    from tutorlib.serving.paged import BlockPool, PagedKVCache
    from tutorlib.serving.step import embed, model_step
    from tutorlib.translation.gpt.checkpoints import load_pretrained

    slot_of = derivations("17_serving.ipynb")["slot_of"]
    model = load_pretrained()
    cache = PagedKVCache(BlockPool(model, num_blocks=8, block_size=4))
    cache.add("other")
    cache.reserve("other", 5)  # blocks 0 and 1
    cache.add("x")
    tokens = torch.tensor([[5, 6, 7, 8, 9, 10, 11, 12, 13, 3]])  # (1, T)
    attend, written = cache.attention(["x"], 10), []

    def spy(layer, q, k, v):
        written.append(k)  # (1, H, T, Dh)
        return attend(layer, q, k, v)

    model_step(model, embed(model, tokens, [0]), spy)
    table = cache.tables["x"]
    assert table == [2, 3, 4]
    for layer, k in enumerate(written):
        for p in range(10):
            block, slot = slot_of(table, p, 4)
            # the pool's (M, H, b, Dh) at (block, :, slot) is position p's (H, Dh)
            assert torch.equal(cache.pool.k[layer][block, :, slot], k[0, :, p])
