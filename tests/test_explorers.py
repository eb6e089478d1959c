"""tutorlib.explorers: each explorer's pure function against tutorlib.attention, and its widget
wrapper.

The pure functions are checked for the numbers they show (against
tutorlib.attention / tutorlib.experiments, or against properties a wrong
program would break) and for their errors on bad input. The wrappers are
checked by moving their controls, as a learner would, and comparing the
output widget with what the pure function gives for the new values.
"""

import html
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch

from tutorlib import display, explorers
from tutorlib.attention import causal_mask, padding_mask, scaled_dot_product_attention, softmax
from tutorlib.examples import QUICK_BROWN_FOX, THIS_IS_BOOK, YOUR_CAT
from tutorlib.experiments import softmax_jacobian
from tutorlib.modern import PUBLISHED_CONFIGS, kv_cache_bytes
from tutorlib.nn import MultiHeadAttention, split_heads

FOX = QUICK_BROWN_FOX


def cell_numbers(page: str, table_class: str) -> list[float]:
    """The numbers written in the <td> cells of the first table of ``table_class`` (✕ cells give
    nan)."""
    table = re.search(rf'<table class="{table_class}".*?</table>', page, re.S).group(0)
    cells = [re.sub(r"<[^>]+>", "", text) for text in re.findall(r"<td[^>]*>(.*?)</td>", table)]
    # a hidden cell shows ✕ and says "hidden" to a screen reader
    return [float("nan") if text in ("✕", "✕hidden") else float(text) for text in cells]


def bar_numbers(page: str) -> list[float]:
    """The weights written next to the bars of weight_bars_html."""
    assert page.count('class="tutorlib-bars"') == 1
    return [float(x) for x in re.findall(r'font-family:monospace">([0-9.]+)</span>', page)]


# --- the HTML pieces ---------------------------------------------------------------------


def test_weights_heatmap_writes_every_weight_and_outlines_one_row():
    w = softmax(np.array([[0.0, 1.0, 2.0], [0.5, -1.0, 0.2]]))
    page = display.weights_heatmap_html(w, ["sou", "feliz"], ["I", "am", "happy"], highlight_row=1)
    np.testing.assert_allclose(cell_numbers(page, "tutorlib-heatmap"), np.round(w, 2).ravel())
    assert page.count("▶") == 1 and "▶ feliz" in page
    assert page.count("outline:3px solid #D55E00") == 1
    colours = re.findall(r"background:(#[0-9a-f]{6})", page)
    assert len(set(colours)) == 6, "each distinct weight gets its own cividis shade"


def test_weights_heatmap_marks_hidden_cells_instead_of_a_number():
    w = np.array([[1.0, 0.0], [0.4, 0.6]])
    mask = np.array([[True, False], [True, True]])
    page = display.weights_heatmap_html(w, ["a", "b"], mask=mask)
    numbers = cell_numbers(page, "tutorlib-heatmap")
    np.testing.assert_array_equal(np.isnan(numbers), [False, True, False, False])
    np.testing.assert_allclose(np.array(numbers)[[0, 2, 3]], [1.0, 0.4, 0.6])
    assert page.count('title="hidden by the mask') == 1


def test_html_pieces_reject_bad_input():
    with pytest.raises(ValueError, match=r"one \(T_q, T_k\) table, got shape \(2, 2, 2\)"):
        display.weights_heatmap_html(np.zeros((2, 2, 2)), ["a", "b"])
    with pytest.raises(ValueError, match="mask must be boolean of the weights' shape"):
        display.weights_heatmap_html(np.eye(2), ["a", "b"], mask=np.ones((2, 3), dtype=bool))
    with pytest.raises(ValueError, match="highlight_row must be from 0 to 1, got 2"):
        display.weights_heatmap_html(np.eye(2), ["a", "b"], highlight_row=2)
    with pytest.raises(ValueError, match="the table has 2 queries but 3 labels"):
        display.weights_heatmap_html(np.eye(2), ["a", "b", "c"])
    with pytest.raises(ValueError, match="NaN"):
        display.weights_heatmap_html(np.full((2, 2), np.nan), ["a", "b"])
    with pytest.raises(ValueError, match="2-D boolean array"):
        display.mask_grid_html(np.eye(2), ["a", "b"])


# --- chapter 4: the saturation slider -------------------------------------------------------


def test_saturation_view_is_a_softmax_whose_unscaled_form_is_sharper_by_sqrt_d_k():
    for d_k in (1, 12, 64, 512):
        scaled, _ = explorers.saturation_view(d_k, True)
        raw, _ = explorers.saturation_view(d_k, False)
        assert scaled.shape == (8,) and np.isclose(scaled.sum(), 1.0) and np.isclose(raw.sum(), 1.0)
        # log-weights are the scores up to a constant, so unscaled = softmax(sqrt(d_k) *
        # log(scaled))
        np.testing.assert_allclose(raw, softmax(np.sqrt(d_k) * np.log(scaled)), atol=1e-9)
    one_scaled, _ = explorers.saturation_view(1, True)
    np.testing.assert_allclose(one_scaled, explorers.saturation_view(1, False)[0])  # sqrt(1) = 1


def test_saturation_view_widens_the_same_vectors():
    """d_k uses the first d_k features of one fixed seeded query and keys (documented), so it is
    reproducible."""
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(512), rng.standard_normal((8, 512))
    weights, _ = explorers.saturation_view(48, True)
    np.testing.assert_allclose(weights, softmax(k[:, :48] @ q[:48] / np.sqrt(48)))
    other_seed, _ = explorers.saturation_view(48, True, seed=1)
    assert not np.allclose(weights, other_seed)


def test_saturation_view_shows_saturation_and_the_vanishing_gradient():
    raw, page_raw = explorers.saturation_view(512, False)
    scaled, page_scaled = explorers.saturation_view(512, True)
    assert raw.max() > 0.99 and scaled.max() < 0.9
    jacobian_raw = np.linalg.norm(softmax_jacobian(raw))
    jacobian_scaled = np.linalg.norm(softmax_jacobian(scaled))
    assert jacobian_raw < 0.01 < 0.2 < jacobian_scaled
    for weights, page, grad in (
        (raw, page_raw, jacobian_raw),
        (scaled, page_scaled, jacobian_scaled),
    ):
        assert bar_numbers(page) == [float(f"{w:.3f}") for w in weights]
        assert f"largest weight: {weights.max():.3f}" in page
        assert f"‖: {grad:.3f}" in page
    assert "√512" in page_scaled and "not scaled" in page_raw


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"d_k": 0}, r"d_k must be from 1 to 512, got 0"),
        ({"d_k": 513}, r"d_k must be from 1 to 512, got 513"),
        ({"d_k": 2.5}, r"d_k must be a whole number, got 2.5"),
        ({"d_k": True}, r"d_k must be a whole number, got True"),
        (
            {"d_k": 8, "scaled": "yes"},
            r"scaled must be True \(divide by sqrt\(d_k\)\) or False, got 'yes'",
        ),
        ({"d_k": 8, "n_keys": 1}, r"n_keys must be at least 2, got 1"),
    ],
)
def test_saturation_view_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        explorers.saturation_view(**kwargs)


def test_saturation_explorer_redraws_for_the_slider_and_the_toggle():
    box = explorers.saturation_explorer(d_k=64, scaled=True)
    assert tuple(box.d_k.options) == explorers.D_K_STEPS and box.d_k.value == 64
    assert box.view.value == explorers.saturation_view(64, True)[1]
    box.d_k.value = 512
    assert box.view.value == explorers.saturation_view(512, True)[1]
    box.scaled.value = False
    assert box.view.value == explorers.saturation_view(512, False)[1]
    box.d_k.value = 2
    assert box.view.value == explorers.saturation_view(2, False)[1]
    with pytest.raises(ValueError, match="one of its steps"):
        explorers.saturation_explorer(d_k=5)


# --- chapter 4: pick a query ------------------------------------------------------------------


def test_attention_view_gives_the_row_of_scaled_dot_product_attention():
    _, expected = scaled_dot_product_attention(FOX["q"], FOX["k"], FOX["v"])  # (T_q, T_k)
    for i, word in enumerate(FOX["tokens"]):
        by_label, page = explorers.attention_view(FOX["q"], FOX["k"], FOX["tokens"], query=word)
        by_index, _ = explorers.attention_view(FOX["q"], FOX["k"], FOX["tokens"], query=i)
        np.testing.assert_allclose(by_label, expected[i])
        np.testing.assert_allclose(by_index, expected[i])
        assert bar_numbers(page) == [float(f"{w:.3f}") for w in expected[i]]
        np.testing.assert_allclose(
            cell_numbers(page, "tutorlib-heatmap"), np.round(expected, 2).ravel()
        )
        assert page.count("▶") == 1 and f"▶ {word}</th>" in page
    # chapter 4's hand computation for "quick"
    quick, _ = explorers.attention_view(FOX["q"], FOX["k"], FOX["tokens"], query="quick")
    np.testing.assert_allclose(quick, [0.098, 0.133, 0.182, 0.248, 0.339], atol=5e-4)


def test_attention_view_cross_attention_labels():
    q = np.array([[1.3, 0.8], [-0.9, 0.9]])  # (T_q, d_k) = (2, 2)
    k = np.array([[1.0, 0.5], [1.5, 1.0], [-1.0, 1.0]])  # (T_k, d_k) = (3, 2)
    weights, page = explorers.attention_view(
        q, k, ["sou", "feliz"], ["I", "am", "happy"], query="feliz"
    )
    np.testing.assert_allclose(weights, scaled_dot_product_attention(q, k, k)[1][1])
    assert '<th scope="col" style="padding:2px 8px">happy</th>' in page


def test_attention_view_rejects_bad_input():
    args = (FOX["q"], FOX["k"], FOX["tokens"])
    with pytest.raises(ValueError, match=r"query 'dog' is not one of the query labels"):
        explorers.attention_view(*args, query="dog")
    with pytest.raises(ValueError, match=r"query must be from 0 to 4, got 5"):
        explorers.attention_view(*args, query=5)
    with pytest.raises(ValueError, match=r"'CAT' occurs 2 times .* pass its position"):
        x = np.eye(6)
        explorers.attention_view(x, x, YOUR_CAT["tokens"], query="CAT")
    with pytest.raises(ValueError, match=r"the table has 5 queries but 3 labels"):
        explorers.attention_view(FOX["q"], FOX["k"], ["The", "quick", "brown"])
    with pytest.raises(ValueError, match=r"q has d_k=2 but k has d_k=3"):
        explorers.attention_view(
            FOX["q"], THIS_IS_BOOK["x"] @ THIS_IS_BOOK["w_k"], FOX["tokens"], ["a", "b", "c"]
        )
    with pytest.raises(
        ValueError, match=r"q must be one sentence's \(T_q, d_k\) matrix, got shape \(2,\)"
    ):
        explorers.attention_view(FOX["q"][0], FOX["k"], ["x"])
    with pytest.raises(ValueError, match="single string"):
        explorers.attention_view(*args[:2], "The quick brown fox jumps")


def test_attention_explorer_redraws_for_the_chosen_query():
    box = explorers.attention_explorer(FOX["q"], FOX["k"], FOX["tokens"], query="quick")
    assert box.query.value == 1
    assert box.view.value == explorers.attention_view(FOX["q"], FOX["k"], FOX["tokens"], query=1)[1]
    box.query.value = 4
    assert (
        box.view.value
        == explorers.attention_view(FOX["q"], FOX["k"], FOX["tokens"], query="jumps")[1]
    )
    # repeated words are numbered in the menu, so each can be picked
    x = np.eye(6)
    labels = [
        label for label, _ in explorers.attention_explorer(x, x, YOUR_CAT["tokens"]).query.options
    ]
    assert labels == ["0 YOUR", "1 CAT", "2 IS", "3 A", "4 LOVELY", "5 CAT"]


# --- chapter 5: pick a head ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def mha_weights():
    """A seeded 4-head layer on a batch of 2 sentences of 5 tokens: x (B, T, D), weights (B, H, T,
    T)."""
    torch.manual_seed(0)
    layer = MultiHeadAttention(d_model=8, num_heads=4).double().eval()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    with torch.no_grad():
        _, w = layer(x, x, x, need_weights=True)
    return layer, x, w


def test_head_view_is_that_heads_scaled_dot_product_attention(mha_weights):
    layer, x, w = mha_weights
    labels = ["a", "b", "c", "d", "e"]
    with torch.no_grad():
        q = split_heads(layer.w_q(x), 4).numpy()  # (B, T, D) -> (B, H, T, Dh)
        k = split_heads(layer.w_k(x), 4).numpy()
    for batch in (0, 1):
        for head in range(4):
            expected = scaled_dot_product_attention(q[batch, head], k[batch, head], k[batch, head])[
                1
            ]  # (T, T)
            shown, page = explorers.head_view(w, head, labels, query="c", batch=batch)
            np.testing.assert_allclose(shown, expected, atol=1e-12)
            assert f"head {head + 1} of 4" in page and "▶ c</th>" in page
            assert bar_numbers(page) == [float(f"{v:.3f}") for v in expected[2]]
            np.testing.assert_allclose(
                cell_numbers(page, "tutorlib-heatmap"), np.round(expected, 2).ravel()
            )
    three_d, _ = explorers.head_view(w[1].numpy(), 2, labels)  # (H, T, T) works too
    np.testing.assert_allclose(three_d, w[1, 2].numpy())


def test_head_view_rejects_bad_input(mha_weights):
    _, _, w = mha_weights
    labels = list("abcde")
    with pytest.raises(
        ValueError, match=r"the layer has 4 heads, 0 to 3\) must be from 0 to 3, got 4"
    ):
        explorers.head_view(w, 4, labels)
    with pytest.raises(ValueError, match=r"must be from 0 to 3, got -1"):
        explorers.head_view(w, -1, labels)
    with pytest.raises(ValueError, match=r"batch must be from 0 to 1, got 2"):
        explorers.head_view(w, 0, labels, batch=2)
    with pytest.raises(
        ValueError, match=r"\(B, H, T_q, T_k\) or \(H, T_q, T_k\), got shape \(5, 5\)"
    ):
        explorers.head_view(w[0, 0], 0, labels)
    with pytest.raises(ValueError, match=r"the table has 5 queries but 4 labels"):
        explorers.head_view(w, 0, labels[:4])
    with pytest.raises(ValueError, match="weights must be numbers"):
        explorers.head_view(np.ones((2, 5, 5), dtype=bool), 0, labels)


def test_head_explorer_redraws_for_head_and_query(mha_weights):
    _, _, w = mha_weights
    labels = list("abcde")
    box = explorers.head_explorer(w, labels, query=1, batch=1)
    assert [label for label, _ in box.head.options] == ["head 1", "head 2", "head 3", "head 4"]
    assert box.view.value == explorers.head_view(w, 0, labels, query=1, batch=1)[1]
    box.head.value = 3
    assert box.view.value == explorers.head_view(w, 3, labels, query=1, batch=1)[1]
    box.query.value = 4
    assert box.view.value == explorers.head_view(w, 3, labels, query="e", batch=1)[1]


# --- chapter 6: the mask editor -------------------------------------------------------------


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n_words, n_pad", [(1, 0), (3, 2), (6, 0), (4, 4)])
def test_mask_view_is_padding_and_causal_mask(n_words, n_pad, causal):
    mask, weights, page = explorers.mask_view(n_words, n_pad, causal)
    T = n_words + n_pad
    expected = padding_mask([n_words], T)[:, None, :][0] & (
        causal_mask(T) if causal else True
    )  # (1, T) & (T, T)
    np.testing.assert_array_equal(mask, np.broadcast_to(expected, (T, T)))
    assert np.all(weights[~mask] == 0.0), "a hidden key gets weight exactly 0"
    assert np.all(weights[mask] > 0.0)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    # the documented vectors: seeded 4-wide words, <pad> = 0
    x = np.vstack(
        [np.random.default_rng(0).standard_normal((6, 4))[:n_words], np.zeros((n_pad, 4))]
    )
    np.testing.assert_allclose(weights, scaled_dot_product_attention(x, x, x, mask)[1])
    hidden = int((~mask).sum())
    assert len(re.findall(r'<td[^>]*title="hidden', page)) == 2 * hidden, (
        "hidden cells marked in the grid and the weights"
    )
    assert len(
        re.findall(r'<td[^>]*title="may attend"><span aria-hidden="true">✓</span>', page)
    ) == int(mask.sum())
    assert f"{hidden} of {T * T} cells" in page
    labels = re.findall(r"<tbody>.*?</tbody>", page, re.S)[0]  # the mask grid's rows
    labels = re.findall(
        r'<tr><th scope="row" style="padding:2px 8px;text-align:left">([^<]*)</th>', labels
    )
    assert labels == list(YOUR_CAT["tokens"][:n_words]) + ["&lt;pad&gt;"] * n_pad


def test_mask_view_padding_does_not_change_the_real_words_weights():
    """The lesson of the padding mask, which a mask that forgot the padding keys would fail."""
    for causal in (False, True):
        _, plain, _ = explorers.mask_view(4, 0, causal)
        for n_pad in (1, 3):
            _, padded, _ = explorers.mask_view(4, n_pad, causal)
            np.testing.assert_allclose(padded[:4, :4], plain)
    # and causality: a word's row does not depend on the words after it
    _, short, _ = explorers.mask_view(3, 0, True)
    _, long, _ = explorers.mask_view(6, 0, True)
    np.testing.assert_allclose(long[:3, :3], short)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((0, 2, True), {}, r"n_words \(real words, here at most 6\) must be from 1 to 6, got 0"),
        ((7, 0, True), {}, r"must be from 1 to 6, got 7"),
        ((3, -1, True), {}, r"n_pad \(padding tokens\) must be at least 0, got -1"),
        ((3, 1.5, True), {}, r"n_pad \(padding tokens\) must be a whole number, got 1.5"),
        ((3, 1, "yes"), {}, r"causal must be True or False, got 'yes'"),
        ((2, 1, True), {"words": "I am happy"}, r"single string 'I am happy'"),
        ((1, 1, True), {"words": []}, r"words is empty"),
    ],
)
def test_mask_view_rejects_bad_input(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        explorers.mask_view(*args, **kwargs)


def test_mask_editor_redraws_for_every_control():
    box = explorers.mask_editor(n_words=3, n_pad=2, causal=True)
    assert box.view.value == explorers.mask_view(3, 2, True)[2]
    box.causal.value = False
    assert box.view.value == explorers.mask_view(3, 2, False)[2]
    box.n_pad.value = 0
    assert box.view.value == explorers.mask_view(3, 0, False)[2]
    box.n_words.value = 6
    assert box.view.value == explorers.mask_view(6, 0, False)[2]
    assert box.n_words.max == 6, "the slider cannot ask for more words than the sentence has"
    words = ["I", "am", "happy"]
    box = explorers.mask_editor(n_words=2, n_pad=1, words=words)
    box.n_words.value = 3
    assert box.n_words.max == 3 and box.view.value == explorers.mask_view(3, 1, True, words)[2]


# --- chapter 15: the KV-cache calculator ------------------------------------------------------


@pytest.mark.parametrize("name", list(PUBLISHED_CONFIGS))
def test_kv_cache_calculator_view_is_kv_cache_bytes_of_the_published_shape(name):
    """Each row is kv_cache_bytes of the model's layers and head width: a calculator that took
    d_model for d_head, forgot the factor 2, or ignored the batch or the dtype fails."""
    m = PUBLISHED_CONFIGS[name]
    sizes, page = explorers.kv_cache_calculator_view(name, 4, 8192, "float32", 8)
    assert sizes["multi-head"] == kv_cache_bytes(m.layers, m.heads, m.d_head, 8192, 8, 4)
    assert sizes["multi-query"] == kv_cache_bytes(m.layers, 1, m.d_head, 8192, 8, 4)
    assert sizes["grouped"] == kv_cache_bytes(m.layers, 4, m.d_head, 8192, 8, 4)
    assert sizes["multi-head"] == sizes["grouped"] * m.heads // 4 == sizes["multi-query"] * m.heads
    assert f"{name} (published: {m.kv_heads} KV heads" in html.unescape(page)
    assert explorers.format_bytes(sizes["grouped"]) in page
    windowed = [k for k in sizes if "window" in k]
    if m.window is None:
        assert windowed == []
    else:  # the rolling buffer: the cache holds the window, not the context
        assert sizes[windowed[0]] == kv_cache_bytes(m.layers, 4, m.d_head, m.window, 8, 4)


def test_kv_cache_calculator_view_of_llama_2_70b_at_32k_tokens():
    """The number the chapter quotes: 10 GiB with its 8 KV heads, 80 GiB with 64."""
    sizes, page = explorers.kv_cache_calculator_view("Llama 2 70B", 8, 32768)
    assert sizes["grouped"] == 10 * 2**30 and sizes["multi-head"] == 80 * 2**30
    assert 'data-summary="grouped (8 KV heads): 10 GiB"' in page


@pytest.mark.parametrize(
    "args, message",
    [
        (("GPT-5", 8, 4096), "model must be one of"),
        (("Llama 2 7B", 3, 4096), "does not divide"),
        (("Llama 2 7B", 8, 4096, "int3"), "dtype must be one of"),
        (("Llama 2 7B", 8, 0), "context"),
    ],
)
def test_kv_cache_calculator_view_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        explorers.kv_cache_calculator_view(*args)


def test_kv_cache_explorer_redraws_for_every_control():
    box = explorers.kv_cache_explorer()
    assert box.view.value == explorers.kv_cache_calculator_view("Llama 2 70B", 8, 32768)[1]
    box.model.value = "Mistral 7B"
    box.kv_heads.value = 1
    box.context.value = 131072
    box.dtype.value = "float32"
    box.batch.value = 64
    expected = explorers.kv_cache_calculator_view("Mistral 7B", 1, 131072, "float32", 64)[1]
    assert box.view.value == expected
    with pytest.raises(ValueError, match="kv_heads"):
        explorers.kv_cache_explorer(kv_heads=3)  # not among the choices


# --- chapter 17: the paged KV cache ------------------------------------------------------------

PAGED = {"prompt_lengths": [6, 9, 4, 12], "lengths": [13, 20, 9, 25], "max_len": 64,
         "position_bytes": 6144, "labels": ["she is tired", "a", "b", "c"]}  # fmt: skip


def test_paged_cache_view_shows_the_tables_and_the_bytes_of_both_caches():
    """The tables are block_tables', every block written once in the pool with its sequence, and
    the bytes cache_account's: a view that counted a half-used block as half, or reserved the
    longest sequence instead of max_len, fails."""
    from tutorlib.serving.paged import block_tables, cache_account

    found, page = explorers.paged_cache_view(**{**PAGED, "block_size": 8})
    assert found["tables"] == block_tables(PAGED["prompt_lengths"], PAGED["lengths"], 8)
    assert found["account"] == cache_account(PAGED["lengths"], 64, 8, 6144)
    a = found["account"]
    assert a.paged_bytes == (2 + 3 + 2 + 4) * 8 * 6144 and a.contiguous_bytes == 4 * 64 * 6144
    table = re.search(r'<table class="tutorlib-paged-cache".*?</table>', page, re.S).group(0)
    rows = re.findall(r"<tr><th scope=\"row\"[^>]*>(.*?)</th>(.*?)</tr>", table)
    assert [r[0] for r in rows] == ["1. she is tired", "2. a", "3. b", "4. c"]
    for (_, cells), n, t in zip(rows, PAGED["lengths"], found["tables"]):
        texts = re.findall(r"<td[^>]*>(.*?)</td>", cells)
        assert texts == [str(n), " ".join(map(str, t)), str(len(t)), str(8 * len(t) - n),
                         str(64 - n)]  # fmt: skip
    pool = re.findall(r'aria-label="block (\d+): (.*?)"', page)
    blocks = {b for t in found["tables"] for b in t}
    assert [int(k) for k, _ in pool] == sorted(blocks)  # each block once, in order
    used = [int(u) for _, said in pool for u in re.findall(r"\((\d+) of 8\)", said)]
    assert sum(used) == sum(PAGED["lengths"])  # every position in one block of its sequence
    assert len(used) == sum(len(t) for t in found["tables"]) > len(blocks)  # and reused
    # a block held again is written "first → next → ...", in the order they finished
    finish = [n - p for n, p in zip(PAGED["lengths"], PAGED["prompt_lengths"])]
    shared = [
        [int(i) - 1 for i in b.split(" → ")] for b in re.findall(r"<b>([^<]*→[^<]*)</b>", page)
    ]
    assert shared and all([finish[i] for i in held] == sorted(finish[i] for i in held)
                          for held in shared)  # fmt: skip
    assert explorers.format_bytes(a.paged_bytes) in page and f"{a.paged_waste:.1%}" in page
    assert 'data-summary="blocks of 8: paged' in page


@pytest.mark.parametrize(
    "change, message",
    [({"block_size": 0}, "block_size"), ({"labels": ["a"]}, "one label per sequence"),
     ({"max_len": 20}, "max_len=20"), ({"lengths": [3, 9, 4, 12]}, "its prompt has 6")],
)  # fmt: skip
def test_paged_cache_view_rejects_bad_input(change, message):
    with pytest.raises(ValueError, match=message):
        explorers.paged_cache_view(**{**PAGED, "block_size": 8, **change})


def test_paged_cache_explorer_redraws_for_every_control():
    box = explorers.paged_cache_explorer(**PAGED, block_size=4, sequences=3)

    def view(b, n):
        cut = {k: (v[:n] if isinstance(v, list) else v) for k, v in PAGED.items()}
        return explorers.paged_cache_view(**cut, block_size=b)[1]

    assert box.view.value == view(4, 3)
    box.block_size.value = 32
    box.sequences.value = 4
    assert box.view.value == view(32, 4)
    with pytest.raises(ValueError, match="block_size"):
        explorers.paged_cache_explorer(**PAGED, block_size=3)  # not among the choices


# --- chapter 10: the translator explorer ----------------------------------------------------


@pytest.fixture(scope="module")
def pretrained():
    from tutorlib.translation.checkpoints import load_pretrained

    model, src_vocab, tgt_vocab = load_pretrained(device="cpu")
    return model


def recorded_cross_attention(model, run):
    """Each decoder layer's cross-attention weights (H, T, S), recomputed from the inputs its last
    forward() got.

    A hook keeps the (query, key) each layer's cross_attn module was called
    with; the weights are then rebuilt by hand, softmax(q kᵀ / √Dh) per head
    from its w_q and w_k, independently of need_weights.
    """
    seen, hooks = {}, []
    for i, layer in enumerate(model.decoder.layers):
        hooks.append(
            layer.cross_attn.register_forward_hook(
                lambda module, args, out, i=i: seen.__setitem__(
                    i, (args[0].detach(), args[1].detach())
                )
            )
        )
    try:
        result = run()
    finally:
        for h in hooks:
            h.remove()
    weights = []
    for i, layer in enumerate(model.decoder.layers):
        attn = layer.cross_attn
        query, key = seen[i]
        with torch.no_grad():
            q = split_heads(attn.w_q(query), attn.num_heads)  # (1, T, D) -> (1, H, T, Dh)
            k = split_heads(attn.w_k(key), attn.num_heads)  # (1, S, D) -> (1, H, S, Dh)
            scores = (
                q @ k.transpose(-2, -1) / attn.d_head**0.5
            )  # (1, H, T, Dh) @ (1, H, Dh, S) -> (1, H, T, S)
        weights.append(torch.softmax(scores, dim=-1)[0].numpy())
    return result, weights


@pytest.mark.parametrize(
    "sentence", ["the red car", "She is tired.", "I like the cat", "the black cats"]
)
@pytest.mark.parametrize("beam_size", [1, 4])
def test_translator_view_translates_as_translate_does(pretrained, sentence, beam_size):
    from tutorlib.translation.shipped import translate

    translation, weights, page = explorers.translator_view(pretrained, sentence, beam_size)
    assert translation == translate(sentence, pretrained, beam_size)
    assert f"<b>{translation}</b>" in page
    assert ("greedy" in page) == (beam_size == 1) and ("4 beams" in page) == (beam_size == 4)


def test_translator_view_weights_are_that_layers_cross_attention(pretrained):
    from tutorlib.translation.data import tokenize

    sentence = "the tall girl is tired"
    (translation, _, _), by_hand = recorded_cross_attention(
        pretrained, lambda: explorers.translator_view(pretrained, sentence)
    )
    rows = tokenize(translation) + ["<eos>"]
    H = pretrained.config.num_heads
    for layer in range(pretrained.config.num_decoder_layers):
        assert by_hand[layer].shape == (H, len(rows), 5)
        for head in list(range(H)) + [None]:
            _, weights, page = explorers.translator_view(pretrained, sentence, 1, layer, head)
            expected = (
                by_hand[layer].mean(axis=0) if head is None else by_hand[layer][head]
            )  # (T, S)
            np.testing.assert_allclose(weights, expected, atol=1e-5)
            np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-5)
            np.testing.assert_allclose(
                cell_numbers(page, "tutorlib-heatmap"), np.round(weights, 2).ravel(), atol=0.0101
            )
            which = "mean of the heads" if head is None else f"head {head + 1} of {H}"
            assert f"decoder layer {layer + 1} of 3, {which}" in page
    header = re.findall(
        r'<th scope="(?:col|row)" style="padding:2px 8px;text-align:left">([^<]*)</th>', page
    )[1:]
    assert header == [html.escape(r) for r in rows]


def test_translator_view_shows_the_reordering_of_the_red_car(pretrained):
    """In the last layer each Portuguese word looks at its English word: carro at car, vermelho at
    red (they cross)."""
    translation, weights, _ = explorers.translator_view(pretrained, "the red car", 1, 2, None)
    assert translation == "o carro vermelho"
    assert weights.argmax(axis=1)[:3].tolist() == [
        0,
        2,
        1,
    ]  # o -> the, carro -> car, vermelho -> red


def test_translator_view_names_unknown_words_and_copies_them_as_translate_does(pretrained):
    """The page names an unknown word (no warning: the explorer shows it), and a name comes out as
    translate() writes it, in the translation and in the row it labels, its row peaking at the
    name."""
    import warnings

    from tutorlib.translation.shipped import translate

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        translation, weights, page = explorers.translator_view(pretrained, "the purple car")
    assert "not in the vocabulary, read as &lt;unk&gt;: purple" in page
    assert weights.shape[1] == 3
    sentence = "Maria likes the black cats"
    translation, weights, page = explorers.translator_view(pretrained, sentence, 1, 2, None)
    assert (
        translation
        == translate(sentence, pretrained, on_notice=lambda i, m: None)
        == "Maria gosta dos gatos pretos"
    )
    header = re.findall(
        r'<th scope="(?:col|row)" style="padding:2px 8px;text-align:left">([^<]*)</th>', page
    )[1:]
    assert header[0] == "Maria" and int(weights[0].argmax()) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (("",), r"the sentence is empty"),
        (("   ",), r"the sentence is empty"),
        ((["the", "car"],), r"sentence must be a string of English words, got list"),
        (("the red car", 0), r"beam_size \(1 = greedy\) must be at least 1, got 0"),
        (("the red car", True), r"beam_size \(1 = greedy\) must be a whole number, got True"),
        (
            ("the red car", 1, 3),
            r"layer \(an index: the decoder has 3 layers, 0 to 2\) must be from 0 to 2, got 3",
        ),
        (
            ("the red car", 1, 0, 4),
            r"each layer has 4 heads, 0 to 3; None for their mean\) must be from 0 to 3, got 4",
        ),
        (("the red car", 1, 0, "mean"), r"must be a whole number, got 'mean'"),
        (
            (" ".join(["the red car"] * 11),),
            r"it has 33 tokens, more than the 32 positions the model was built for",
        ),
    ],
)
def test_translator_view_rejects_bad_input(pretrained, args, message):
    with pytest.raises(ValueError, match=message):
        explorers.translator_view(pretrained, *args)


def test_translator_view_needs_vocabularies(pretrained):
    import copy

    bare = copy.copy(pretrained)
    bare.src_vocab = bare.tgt_vocab = None
    with pytest.raises(ValueError, match="carries no vocabularies"):
        explorers.translator_view(bare, "the red car")
    translation, _, _ = explorers.translator_view(
        bare, "the red car", src_vocab=pretrained.src_vocab, tgt_vocab=pretrained.tgt_vocab
    )
    assert translation == "o carro vermelho"


@pytest.mark.slow  # every state of chapter 10's explorer (over a minute)
def test_translator_explorer_redraws_for_every_control(pretrained):
    import warnings

    box = explorers.translator_explorer(pretrained, "the red car")
    assert [label for label, _ in box.decoding.options] == ["greedy", "beam 4"]
    assert [label for label, _ in box.layer.options] == ["layer 1", "layer 2", "layer 3"]
    assert [label for label, _ in box.head.options] == [
        "head 1",
        "head 2",
        "head 3",
        "head 4",
        "mean of the heads",
    ]
    assert box.view.value == explorers.translator_view(pretrained, "the red car")[2]
    box.sentence.value = "she is tired"
    assert box.view.value == explorers.translator_view(pretrained, "she is tired")[2]
    box.decoding.value = 4
    assert box.view.value == explorers.translator_view(pretrained, "she is tired", 4)[2]
    box.layer.value = 2
    assert box.view.value == explorers.translator_view(pretrained, "she is tired", 4, 2, 0)[2]
    box.head.value = -1
    assert box.view.value == explorers.translator_view(pretrained, "she is tired", 4, 2, None)[2]
    box.head.value = 3
    assert box.view.value == explorers.translator_view(pretrained, "she is tired", 4, 2, 3)[2]
    # bad input shows its message instead of raising inside the widget's callback; unknown words do
    # not warn
    box.sentence.value = ""
    assert "tutorlib-error" in box.view.value and "the sentence is empty" in box.view.value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        box.sentence.value = "the purple car"
    assert "not in the vocabulary, read as &lt;unk&gt;: purple" in box.view.value
    start = explorers.translator_explorer(
        pretrained, "the black cats", beam_size=4, layer=1, head=None
    )
    assert start.head.value == -1 and start.decoding.value == 4 and start.layer.value == 1
    assert (
        start.view.value == explorers.translator_view(pretrained, "the black cats", 4, 1, None)[2]
    )
    assert [
        label
        for label, _ in explorers.translator_explorer(pretrained, beam_size=2).decoding.options
    ][-1] == "beam 2"


# --- chapter 13: the GPT's attention explorer ------------------------------------------------


@pytest.fixture(scope="module")
def gpt_words():
    from tutorlib.translation.gpt.checkpoints import load_pretrained

    return load_pretrained("words", device="cpu")


def recorded_self_attention(model, tokens):
    """Each block's self-attention weights (H, L, L), rebuilt by hand from the inputs its attention
    module got: softmax(q kᵀ / √Dh) per head from its w_q and w_k, under the causal mask."""
    seen, hooks = {}, []
    for i, block in enumerate(model.blocks):
        hooks.append(
            block.self_attn.register_forward_hook(
                lambda module, args, out, i=i: seen.__setitem__(i, args[0].detach())
            )
        )
    try:
        with torch.no_grad():
            model(tokens)
    finally:
        for h in hooks:
            h.remove()
    weights = []
    for i, block in enumerate(model.blocks):
        attn, x = block.self_attn, seen[i]
        with torch.no_grad():
            q = split_heads(attn.w_q(x), attn.num_heads)  # (1, L, D) -> (1, H, L, Dh)
            k = split_heads(attn.w_k(x), attn.num_heads)  # (1, L, D) -> (1, H, L, Dh)
            # (1, H, L, Dh) @ (1, H, Dh, L) -> (1, H, L, L)
            scores = q @ k.transpose(-2, -1) / attn.d_head**0.5
        L = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(L, L, dtype=torch.bool).tril(), float("-inf"))
        weights.append(torch.softmax(scores, dim=-1)[0].numpy())
    return weights


@pytest.mark.parametrize(
    "sentence", ["the black cats", "She is tired.", "Maria likes the black cats"]
)
def test_gpt_attention_view_translates_as_translate_does(gpt_words, sentence):
    from tutorlib.translation.gpt.decoding import translate

    translation, _, page = explorers.gpt_attention_view(gpt_words, sentence)
    assert translation == translate(sentence, gpt_words)
    assert f"<b>{html.escape(translation)}</b>" in page
    assert 'data-summary="Portuguese: ' in page and "block 1 of 6, mean of the heads" in page


def test_gpt_attention_view_shows_each_blocks_self_attention(gpt_words):
    """The whole-sequence table is the block's causal self-attention over [English] <sep>
    [Portuguese], recomputed from the attention's inputs; the cross table is its rows from <sep> on
    over the English columns, with 1 - their sum beside them."""
    from tutorlib.translation.data import BOS_ID, EOS_ID, tokenize

    sentence = "the red car"
    translation, _, _ = explorers.gpt_attention_view(gpt_words, sentence)
    vocab = gpt_words.vocab
    src = vocab.encode(tokenize(sentence))
    tgt = vocab.encode(tokenize(translation))
    read = torch.tensor([[*src, BOS_ID, *tgt]])  # (1, L): <eos> is written, never read
    by_hand = recorded_self_attention(gpt_words, read)
    S, L, H = len(src), read.shape[1], gpt_words.config.num_heads
    labels = [*tokenize(sentence), "<sep>", *tokenize(translation)]
    for block in (0, 1, 5):
        for head in (0, 3, None):
            _, weights, page = explorers.gpt_attention_view(
                gpt_words, sentence, "sequence", block, head
            )
            expected = by_hand[block].mean(axis=0) if head is None else by_hand[block][head]
            np.testing.assert_allclose(weights, expected, atol=1e-5)  # (L, L)
            shown = np.array(cell_numbers(page, "tutorlib-heatmap")).reshape(L, L)
            hidden = ~np.tril(np.ones((L, L), dtype=bool))
            assert np.isnan(shown[hidden]).all() and not np.isnan(shown[~hidden]).any()
            np.testing.assert_allclose(shown[~hidden], np.round(weights[~hidden], 2), atol=0.0101)
            _, cross, page = explorers.gpt_attention_view(gpt_words, sentence, "cross", block, head)
            T = len(tgt) + 1  # the rows: the words written and <eos>
            assert cross.shape == (T, S + 1)
            np.testing.assert_allclose(cross[:, :S], expected[S : S + T, :S], atol=1e-5)
            np.testing.assert_allclose(cross.sum(axis=1), 1.0, atol=1e-5)
            which = "mean of the heads" if head is None else f"head {head + 1} of {H}"
            assert f"block {block + 1} of 6, {which}" in page
            rows = re.findall(
                r'<th scope="row" style="padding:2px 8px;text-align:left">([^<]*)</th>', page
            )
            assert rows == [html.escape(t) for t in [*tokenize(translation), "<eos>"]]
    assert labels[S] == "<sep>" and vocab.tokens[BOS_ID] == "<bos>" and EOS_ID not in tgt


def test_gpt_attention_view_shows_the_reordering_of_the_red_car(gpt_words):
    """In block 3 carro reads "car" and vermelho reads "red" (the heads' mean): the words cross.
    (Block 2 did in the GPT on words shipped before the relation sentences; in this one its
    carro reads the full stop most.)"""
    translation, cross, _ = explorers.gpt_attention_view(gpt_words, "the red car", "cross", 2)
    assert translation == "o carro vermelho"
    # rows o, carro, vermelho, <eos>; columns the, red, car, then the rest
    assert cross[1].argmax() == 2 and cross[1, 2] > 0.6
    assert cross[2].argmax() == 1 and cross[2, 1] > 0.9


@pytest.mark.parametrize(
    "args, message",
    [
        (("", "cross"), "holds no words"),
        (("the red car", "both"), "show must be 'cross'"),
        (("the red car", "cross", 6), "the model has 6 blocks, 0 to 5"),
        (("the red car", "cross", 0, 4), "each block has 4 heads, 0 to 3"),
        ((" ".join(["cat"] * 40),), "at most 31"),
        (("der Hund schläft",), "none of its words"),
    ],
)
def test_gpt_attention_view_rejects_bad_input(gpt_words, args, message):
    with pytest.raises(ValueError, match=message):
        explorers.gpt_attention_view(gpt_words, *args)


def test_gpt_attention_view_needs_a_gpt(pretrained):
    with pytest.raises(ValueError, match="shows a tutorlib.translation.gpt.GPT, got Translator"):
        explorers.gpt_attention_view(pretrained, "the red car")


@pytest.mark.slow  # runs the shipped GPT once per control it turns (about 10 s)
def test_gpt_attention_explorer_redraws_for_every_control(gpt_words):
    view = explorers.gpt_attention_view
    box = explorers.gpt_attention_explorer(gpt_words, "the red car", sentences=["i am happy"])
    assert [label for label, _ in box.show.options] == [
        "Portuguese reads English",
        "the whole sequence",
    ]
    assert [label for label, _ in box.block.options] == [f"block {i}" for i in range(1, 7)]
    assert [label for label, _ in box.head.options][-1] == "mean of the heads"
    assert box.view.value == view(gpt_words, "the red car")[2]
    box.sentence.value = "she is tired"
    assert box.view.value == view(gpt_words, "she is tired")[2]
    box.show.value = "sequence"
    assert box.view.value == view(gpt_words, "she is tired", "sequence")[2]
    box.block.value = 3
    assert box.view.value == view(gpt_words, "she is tired", "sequence", 3)[2]
    box.head.value = 2
    assert box.view.value == view(gpt_words, "she is tired", "sequence", 3, 2)[2]
    box.sentence.value = ""
    assert "tutorlib-error" in box.view.value and "holds no words" in box.view.value
    start = explorers.gpt_attention_explorer(gpt_words, "the black cats", "sequence", 2, 1)
    assert (start.show.value, start.block.value, start.head.value) == ("sequence", 2, 1)
    assert start.view.value == view(gpt_words, "the black cats", "sequence", 2, 1)[2]
    # the twin's menu: the starting sentence, then the book's, each once
    assert [v for _, v in box.static_controls[0].options] == ["the red car", "i am happy"]
    with pytest.raises(ValueError, match="single string"):
        explorers.gpt_attention_explorer(gpt_words, sentences="the red car")


# --- chapter 16: one head's pattern and what switching it off does ---------------------------


@pytest.fixture(scope="module")
def gpt_bpe():
    from tutorlib.translation.gpt.checkpoints import load_pretrained

    return load_pretrained(device="cpu")


@pytest.fixture(scope="module")
def translator_means(pretrained):
    from tutorlib.debug import heads
    from tutorlib.translation.phrasebook import phrasebook

    return heads.head_means(pretrained, phrasebook("valid")[:50])


HEADS_ENGLISH = "they don't paint the black coat."  # head 2 of decoder layer 1 matters here


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_head_ablation_view_translates_with_and_without_the_head(pretrained, translator_means):
    """The three translations are translate()'s: the whole model's, and inside ablate_heads with
    zeros and with the means; the words that changed are underlined and said to have changed."""
    from tutorlib.debug import heads
    from tutorlib.translation.decoding import translate

    result, page = explorers.head_ablation_view(
        pretrained, HEADS_ENGLISH, "decoder", 0, 1, translator_means
    )
    assert result["translation"] == translate(HEADS_ENGLISH, pretrained)
    with heads.ablate_heads(pretrained, "decoder", (0, 1)):
        assert result["zero"] == translate(HEADS_ENGLISH, pretrained)
    with heads.ablate_heads(pretrained, "decoder", (0, 1), "mean", translator_means):
        assert result["mean"] == translate(HEADS_ENGLISH, pretrained)
    assert result["zero"] != result["translation"]  # this head matters on this sentence
    assert "this head zeroed: <b>" in page and "(changed: the new words are underlined)" in page
    assert "<ins " in page  # underlined, not only coloured
    assert "translator, decoder self-attention, layer 1 of 3, head 2 of 4" in page
    # a head that changes nothing says so; without means there is no mean line
    result, page = explorers.head_ablation_view(pretrained, "the red car", "cross", 2, 1)
    assert result["zero"] == result["translation"] and result["mean"] is None
    assert "(unchanged)" in page and "<ins " not in page and "mean output instead" not in page


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "kind, layer, head", [("encoder", 0, 1), ("decoder", 2, 3), ("cross", 1, 0)]
)
def test_head_ablation_view_shows_that_heads_weights_and_scores(pretrained, kind, layer, head):
    """The table is the head's attention teacher-forced on the translation (attention_maps), every
    weight written to 2 decimals, the decoder's hidden cells marked; the scores are
    head_pattern_scores' row for that head."""
    from tutorlib.debug import attention_maps, heads
    from tutorlib.translation.data import make_batches, tokenize

    sentence = "she is tired."
    result, page = explorers.head_ablation_view(pretrained, sentence, kind, layer, head)
    pair = (sentence, result["translation"])
    (batch,) = make_batches([pair], pretrained.src_vocab, pretrained.tgt_vocab, 1, shuffle=False)
    name = {"encoder": "encoder.layers.{}.self_attn", "decoder": "decoder.layers.{}.self_attn",
            "cross": "decoder.layers.{}.cross_attn"}[kind].format(layer)  # fmt: skip
    with torch.no_grad():
        expected = attention_maps(pretrained.eval(), batch)[name][0, head].numpy()
    np.testing.assert_allclose(result["weights"], expected, atol=1e-6)
    shown = np.array(cell_numbers(page, "tutorlib-heatmap")).reshape(expected.shape)
    visible = ~np.isnan(shown)
    if kind == "decoder":
        assert (visible == np.tril(np.ones(expected.shape, dtype=bool))).all()
    else:
        assert visible.all()
    np.testing.assert_allclose(shown[visible], np.round(expected[visible], 2), atol=0.0101)
    rows = heads.head_pattern_scores(pretrained, [pair])
    row = next(r for r in rows if (r["kind"], r["layer"], r["head"]) == (kind, layer, head))
    assert result["scores"] == pytest.approx(row, nan_ok=True)
    assert f"the token before {row['previous']:.2f}" in page or kind == "cross"
    if kind != "encoder":
        labels = re.findall(
            r'<th scope="row" style="padding:2px 8px;text-align:left">([^<]*)</th>', page
        )
        assert labels == [*tokenize(result["translation"]), "&lt;eos&gt;"]


def test_head_ablation_view_of_the_gpt(gpt_bpe):
    from tutorlib.debug import heads
    from tutorlib.translation.gpt.decoding import translate

    result, page = explorers.head_ablation_view(gpt_bpe, "Maria likes the black cats", "self", 0, 1)
    assert result["translation"] == translate("Maria likes the black cats", gpt_bpe)
    with heads.ablate_heads(gpt_bpe, "self", (0, 1)):
        assert result["zero"] == translate("Maria likes the black cats", gpt_bpe)
    L = result["weights"].shape[0]
    np.testing.assert_allclose(result["weights"].sum(axis=1), 1.0, atol=1e-5)
    assert np.allclose(np.triu(result["weights"], 1), 0.0)  # causal: nothing after the query
    assert "&lt;sep&gt;" in page and "GPT, self-attention, block 1 of 6, head 2 of 4" in page
    assert len(cell_numbers(page, "tutorlib-heatmap")) == L * L


@pytest.mark.parametrize(
    "args, message",
    [
        (("the red car", "self"), "kind must be one of"),
        (("the red car", "cross", 3), "3 cross layers, 0 to 2"),
        (("the red car", "encoder", 0, 4), "4 heads, 0 to 3"),
        ((" . ", "encoder"), "holds no words"),
        ((["the red car"], "encoder"), "sentence must be a string"),
    ],
)
def test_head_ablation_view_rejects_bad_input(pretrained, args, message):
    with pytest.raises(ValueError, match=message):
        explorers.head_ablation_view(pretrained, *args)


def test_head_ablation_view_needs_a_model_with_heads():
    with pytest.raises(ValueError, match="no heads to name"):
        explorers.head_ablation_view(torch.nn.Linear(2, 2), "the red car", "self")


@pytest.mark.slow  # builds the twin: 240 states, every layer and head of both models (about 6 s)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_head_ablation_explorer_redraws_and_its_twin_agrees(pretrained, gpt_bpe):
    from tutorlib.explorers.heads import _reference_means

    view = explorers.head_ablation_view
    box = explorers.head_ablation_explorer(pretrained, gpt_bpe, "the red car")
    means = {"translator": _reference_means(pretrained), "GPT": _reference_means(gpt_bpe)}
    labels = [label for label, _ in box.layer.options]
    assert len(labels) == 15 and labels[0] == "translator: encoder self-attention, layer 1"
    assert labels[-1] == "GPT: self-attention, block 6"
    assert (
        box.view.value == view(pretrained, "the red car", "decoder", 0, 0, means["translator"])[1]
    )
    box.sentence.value = "she is tired."
    assert (
        box.view.value == view(pretrained, "she is tired.", "decoder", 0, 0, means["translator"])[1]
    )
    box.layer.value = "GPT self 2"
    assert box.view.value == view(gpt_bpe, "she is tired.", "self", 2, 0, means["GPT"])[1]
    box.head.value = 3
    assert box.view.value == view(gpt_bpe, "she is tired.", "self", 2, 3, means["GPT"])[1]
    box.sentence.value = ""
    assert "tutorlib-error" in box.view.value and "holds no words" in box.view.value
    # the twin translates the menu in one batch per head: the pages are the view's, one by one
    for sentence in explorers.HEADS_BOOK_SENTENCES:
        for layer, model, kind, i, head in [
            ("translator cross 1", pretrained, "cross", 1, 2),
            ("GPT self 0", gpt_bpe, "self", 0, 1),
        ]:
            name = layer.split()[0]
            expected = view(model, sentence, kind, i, head, means[name])[1]
            assert box.static_view(sentence=sentence, layer=layer, head=head) == expected
    with pytest.raises(ValueError, match="layer must be one of"):
        explorers.head_ablation_explorer(pretrained, gpt_bpe, layer="translator cross 3")


# --- the registry, and each explorer's controls declared once ----------------------------------

ROOT = Path(__file__).resolve().parent.parent
PUBLIC_EXPLORERS = sorted(
    n for n in explorers.__all__ if n.endswith("_explorer") or n == "mask_editor"
)


def _chapter_code(notebook: Path) -> str:
    cells = nbformat.read(notebook, as_version=4).cells
    return "\n".join(c.source for c in cells if c.cell_type == "code")


def test_the_registry_holds_every_explorer_with_the_chapter_that_shows_it():
    assert sorted(explorers.REGISTRY) == PUBLIC_EXPLORERS and len(PUBLIC_EXPLORERS) == 10
    for name, entry in explorers.REGISTRY.items():
        assert entry.name == name and entry.function is getattr(explorers, name)
        code = _chapter_code(ROOT / f"{entry.chapter}.ipynb")
        assert f"{name}(" in code, f"{entry.chapter} shows no {name}"
    # and no chapter shows an explorer the registry files under another chapter
    for notebook in sorted((ROOT / "chapters").glob("*.ipynb")):
        code = _chapter_code(notebook)
        for name in PUBLIC_EXPLORERS:
            if re.search(rf"\b{name}\(", code):
                chapter = explorers.REGISTRY[name].chapter
                assert chapter == f"chapters/{notebook.stem}", (name, notebook.name)


def _built(name, request):
    """Each explorer, built as a chapter builds it, with starts other than the defaults."""
    if name == "head_explorer":
        w = request.getfixturevalue("mha_weights")[2]
        return explorers.head_explorer(w, list("abcde"), head=2, query=1, batch=1)
    if name == "translator_explorer":
        model = request.getfixturevalue("pretrained")
        return explorers.translator_explorer(model, "she is tired", beam_size=4, layer=1, head=None)
    if name == "gpt_attention_explorer":
        model = request.getfixturevalue("gpt_words")
        return explorers.gpt_attention_explorer(model, "i am happy", "sequence", block=2, head=1)
    if name == "head_ablation_explorer":
        model, gpt = request.getfixturevalue("pretrained"), request.getfixturevalue("gpt_bpe")
        return explorers.head_ablation_explorer(model, gpt, "she is tired.", "GPT self 1", head=2)
    q, k, tokens = FOX["q"], FOX["k"], FOX["tokens"]
    return {
        "temperature_explorer": lambda: explorers.temperature_explorer([2.0, 1.0], ["a", "b"], 0.5),
        "saturation_explorer": lambda: explorers.saturation_explorer(d_k=8, scaled=False),
        "attention_explorer": lambda: explorers.attention_explorer(q, k, tokens, query=2),
        "mask_editor": lambda: explorers.mask_editor(n_words=2, n_pad=1, causal=False),
        "kv_cache_explorer": lambda: explorers.kv_cache_explorer(
            "Mistral 7B", kv_heads=4, context=4096, dtype="float32", batch=8
        ),
        "paged_cache_explorer": lambda: explorers.paged_cache_explorer(
            **PAGED, block_size=16, sequences=3
        ),
    }[name]()


def _live_choices(widget) -> tuple[list | None, object]:
    """The values a live ipywidgets control offers (None for free text) and its current value."""
    import ipywidgets as widgets

    if isinstance(widget, widgets.Checkbox):
        return [False, True], widget.value
    if isinstance(widget, widgets.IntSlider):
        return list(range(widget.min, widget.max + 1, widget.step)), widget.value
    if isinstance(widget, widgets.FloatSlider):
        n = round((widget.max - widget.min) / widget.step)
        return [round(widget.min + i * widget.step, 10) for i in range(n + 1)], widget.value
    if isinstance(widget, widgets.Text):
        return None, widget.value
    return [o[1] if isinstance(o, tuple) else o for o in widget.options], widget.value


@pytest.mark.parametrize(
    "name",
    [
        # chapters 13's and 16's explorers run shipped models for every state of their twins
        # (about 8 s and 6 s)
        pytest.param(n, marks=pytest.mark.slow)
        if n in ("gpt_attention_explorer", "head_ablation_explorer")
        else n
        for n in PUBLIC_EXPLORERS
    ],
)
def test_live_and_static_controls_come_from_one_declaration(name, request):
    box = _built(name, request)
    entry = explorers.REGISTRY[name]
    assert [(s.name, s.kind) for s in box.specs] == list(entry.controls)
    names = [n for n, _ in entry.controls]
    assert [c.name for c in box.static_controls] == list(box.control_widgets) == names
    for spec, control in zip(box.specs, box.static_controls):
        widget = box.control_widgets[spec.name]
        values, start = _live_choices(widget)
        assert control.label == widget.description == spec.label, spec.name
        assert control.value == start == spec.value, f"{name}: {spec.name} starts apart"
        if values is None:  # a text box live, the menu of the book's sentences in the twin
            assert spec.kind == "text" and control.kind == "menu" and control.options[0][1] == start
        else:
            offered = [v for _, v in control.options]
            if all(isinstance(v, str) for v in offered):  # names (chapters 13, 15)
                assert values == offered, f"{name}: {spec.name}"
            else:
                np.testing.assert_allclose(values, offered, err_msg=f"{name}: {spec.name}")
            assert control.kind == spec.kind


# --- what an explorer is built from: the public helpers of explorers/widgets.py ---------------


def test_an_explorer_built_from_the_public_widgets_answers_live_and_in_the_book():
    """The minimal explorer of widgets.py's docstring: specs, live controls, a view redrawn on
    every move (input the view refuses shows its message), and a box that carries the static
    twin of every state."""
    from tutorlib.explorers.controls import Spec
    from tutorlib.explorers.static import explorer_html
    from tutorlib.explorers.widgets import explorer_box, following_view, live_controls

    def page(temperature):
        return explorers.temperature_view([2.0, 1.0], ["a", "b"], temperature)[1]

    def draw():
        if live["temperature"].value > 1.5:
            raise ValueError("too hot for this test")
        return page(live["temperature"].value)

    options = (("0.5", 0.5), ("1", 1.0), ("2", 2.0))
    specs = [Spec("temperature", "slider", "temperature", options, 1.0)]
    live = live_controls(specs)
    view = following_view(live.values(), draw)
    box = explorer_box([live["temperature"], view], specs, live, page, "temperature")
    assert view.value == page(1.0) and box.control_widgets == live
    live["temperature"].value = 0.5
    assert view.value == page(0.5)
    live["temperature"].value = 2.0
    assert "tutorlib-error" in view.value and "too hot for this test" in view.value
    assert box.static_html == explorer_html(box.static_controls, page, "temperature")
    assert box._repr_mimebundle_()["text/html"] == box.static_html


def test_the_explorer_modules_share_only_public_names_and_never_import_their_package():
    """Each module of tutorlib/explorers/ imports from tutorlib only names without a leading
    underscore, and none imports the package itself (its __init__ imports them: a circle; write
    ``from .static import ...``, not ``from . import static``), not even inside a function; none
    is over 800 lines."""
    import ast

    problems = []
    for path in sorted((ROOT / "tutorlib" / "explorers").glob("*.py")):
        source = path.read_text()
        if len(source.splitlines()) > 800:
            problems.append(f"{path.name}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            names = [a.name for a in node.names]
            if node.level == 1 and node.module is None and path.name != "__init__.py":
                problems.append(f"{path.name}:{node.lineno}: from . import {names} (the package)")
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private:
                problems.append(f"{path.name}:{node.lineno} imports private {private}")
    assert not problems, "\n".join(problems)
