"""tutorlib.efficient: the online softmax, tiled attention and its peak memory.

Each test names, in its docstring or assert message, the wrong program it catches.
Memory is measured with tracemalloc (bytes requested, the same on every run);
nothing here is timed.
"""

import tracemalloc
from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tutorlib.attention import causal_mask, scaled_dot_product_attention, softmax
from tutorlib.efficient import (
    attention_memory,
    merge_softmax_states,
    online_softmax,
    peak_memory,
    softmax_state,
    tiled_attention,
)

CHAPTER = Path(__file__).resolve().parent.parent / "chapters" / "11_efficient_attention.ipynb"


def reference(q, k, v, causal):
    """The naive attention of chapters 4 and 6, with the causal mask tril(ones(T_q, T_k))."""
    mask = np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool)) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)[0]


# --- online softmax -----------------------------------------------------------------


rows = arrays(
    np.float64,
    st.tuples(st.integers(1, 3), st.integers(1, 40)),
    elements=st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False),
)


@settings(max_examples=150, deadline=None)
@given(rows, st.integers(1, 45))
def test_online_softmax_equals_softmax(x, block):
    """Forgetting to rescale the running sum when the maximum grows gives wrong weights; scores of
    1e4 overflow a version that exponentiates without subtracting the maximum."""
    np.testing.assert_allclose(online_softmax(x, block), softmax(x), rtol=1e-12, atol=1e-15)


def test_online_softmax_with_masked_entries_and_a_masked_first_block():
    """A first block that is all -inf has the state (-inf, 0); merging it must not produce NaN."""
    x = np.array([[-np.inf, -np.inf, -np.inf, 1.0, 2.0, -np.inf, 0.5]])
    for block in (1, 2, 3, 7):
        out = online_softmax(x, block)
        np.testing.assert_allclose(out, softmax(x), rtol=1e-12, atol=0)
        assert (out[x == -np.inf] == 0).all()


def test_softmax_state_of_a_block():
    x = np.array([1.0, 3.0, 2.0])
    m, l = softmax_state(x)
    assert m == 3.0
    np.testing.assert_allclose(l, np.exp(-2) + 1 + np.exp(-1), rtol=1e-15)
    np.testing.assert_allclose(np.exp(x - m) / l, softmax(x), rtol=1e-15)
    m, l = softmax_state(np.full(4, -np.inf))
    assert m == -np.inf and l == 0.0, "an all-masked block is the neutral state (-inf, 0)"


@settings(max_examples=150, deadline=None)
@given(arrays(np.float64, st.integers(3, 30), elements=st.floats(-500, 500)), st.data())
def test_merge_rule_is_associative_and_matches_the_whole(x, data):
    """Merging the states of the pieces of a row, grouped any way, gives the state of the whole row.
    A merge that adds the sums without rescaling by exp(m_a - m) fails this."""
    a, b = sorted(
        data.draw(st.lists(st.integers(1, len(x) - 1), min_size=2, max_size=2, unique=True))
    )
    s1, s2, s3 = softmax_state(x[:a]), softmax_state(x[a:b]), softmax_state(x[b:])
    left = merge_softmax_states(merge_softmax_states(s1, s2), s3)
    right = merge_softmax_states(s1, merge_softmax_states(s2, s3))
    whole = softmax_state(x)
    for m, l in (left, right, merge_softmax_states(s3, merge_softmax_states(s2, s1))):
        assert m == whole[0], "the merged maximum is the maximum of the whole row"
        np.testing.assert_allclose(l, whole[1], rtol=1e-12)


def test_merge_with_the_empty_state_changes_nothing():
    state = softmax_state(np.array([[0.5, -2.0], [7.0, 1.0]]))
    empty = (np.full(2, -np.inf), np.zeros(2))
    for merged in (merge_softmax_states(state, empty), merge_softmax_states(empty, state)):
        np.testing.assert_array_equal(merged[0], state[0])
        np.testing.assert_allclose(merged[1], state[1], rtol=1e-15)
    m, l = merge_softmax_states(empty, empty)
    assert (m == -np.inf).all() and (l == 0).all() and not np.isnan(l).any()


# --- tiled attention equals the reference ----------------------------------------------------


@st.composite
def attention_inputs(draw):
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    t_q, t_k = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    d_k, d_v = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(
        st.sampled_from([0.1, 1.0, 10.0])
    )  # 10: peaked weights, where a missing rescale shows most
    q = rng.standard_normal(batch + (t_q, d_k)) * scale
    k = rng.standard_normal(batch + (t_k, d_k)) * scale
    v = rng.standard_normal(batch + (t_k, d_v))
    block = draw(st.integers(1, 30) | st.tuples(st.integers(1, 30), st.integers(1, 30)))
    return q, k, v, block


@settings(max_examples=200, deadline=None)
@given(attention_inputs(), st.booleans())
def test_tiled_attention_equals_the_reference(inputs, causal):
    """Within 1e-6 in float64, for block sizes that do and do not divide T_q and T_k (and exceed
    them)."""
    q, k, v, block = inputs
    out = tiled_attention(q, k, v, block_size=block, causal=causal)
    assert out.shape == q.shape[:-1] + v.shape[-1:]
    np.testing.assert_allclose(out, reference(q, k, v, causal), rtol=0, atol=1e-6)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("block", [1, 4, 5, 12, 13, 100, (3, 8), (8, 3)])
def test_tiled_attention_dividing_and_non_dividing_blocks(block, causal):
    """T = 12: blocks 4 and 12 divide it, 5 and 13 leave a short last tile (an off-by-one in the
    last tile drops or repeats keys), 1 is one key at a time, (3, 8) and (8, 3) are rectangular
    tiles."""
    rng = np.random.default_rng(0)
    q, k, v = (
        rng.standard_normal((2, 12, 4)) * 3,
        rng.standard_normal((2, 12, 4)) * 3,
        rng.standard_normal((2, 12, 5)),
    )
    np.testing.assert_allclose(
        tiled_attention(q, k, v, block, causal), reference(q, k, v, causal), rtol=0, atol=1e-6
    )


def test_tiled_attention_causal_is_the_causal_mask_of_chapter_6():
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((9, 3)) for _ in range(3))
    expected = scaled_dot_product_attention(q, k, v, causal_mask(9))[0]
    np.testing.assert_allclose(
        tiled_attention(q, k, v, 4, causal=True), expected, rtol=0, atol=1e-12
    )
    assert np.abs(tiled_attention(q, k, v, 4) - expected).max() > 1e-3, (
        "causal=True must change the result"
    )


@pytest.mark.parametrize("t_q, t_k", [(5, 5), (7, 4), (3, 8)])
def test_tiled_attention_equals_pytorch(t_q, t_k):
    """Same convention as F.scaled_dot_product_attention(is_causal=True) when T_q != T_k (top-left
    aligned)."""
    rng = np.random.default_rng(2)
    q, k, v = (
        rng.standard_normal((2, 3, t_q, 4)),
        rng.standard_normal((2, 3, t_k, 4)),
        rng.standard_normal((2, 3, t_k, 6)),
    )
    for causal in (False, True):
        theirs = F.scaled_dot_product_attention(
            *map(torch.from_numpy, (q, k, v)), is_causal=causal
        ).numpy()
        np.testing.assert_allclose(tiled_attention(q, k, v, 3, causal), theirs, rtol=0, atol=1e-6)


def test_tiled_attention_broadcasts_batch_dimensions_and_keeps_float32():
    rng = np.random.default_rng(3)
    q, k, v = (
        rng.standard_normal((2, 1, 6, 4)),
        rng.standard_normal((1, 3, 7, 4)),
        rng.standard_normal((7, 2)),
    )
    out = tiled_attention(q, k, v, 3)
    assert out.shape == (2, 3, 6, 2)
    np.testing.assert_allclose(out, reference(q, k, v, False), rtol=0, atol=1e-6)
    out32 = tiled_attention(q.astype(np.float32), k.astype(np.float32), v.astype(np.float32), 3)
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, out, rtol=0, atol=1e-5)


def test_tiled_attention_is_stable_for_huge_scores():
    """Scores of about 1e4: exponentiating without the running maximum overflows to inf/inf =
    NaN."""
    q = np.array([[100.0, 0.0], [0.0, 100.0]])
    k = np.array([[100.0, 0.0], [0.0, 100.0], [-100.0, 0.0]])
    v = np.array([[1.0], [2.0], [3.0]])
    out = tiled_attention(q, k, v, 1)
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, [[1.0], [2.0]], atol=1e-12)


# --- peak memory --------------------------------------------------------------------------------


def test_peak_memory_sees_numpy_arrays_and_leaves_tracemalloc_as_it_was():
    """A measurement that missed NumPy's buffers (as RSS-free Python-only tracing would) reports
    ~0."""
    n = 1_000_000
    measured = peak_memory(np.ones, n)
    assert 8 * n <= measured < 8 * n + 100_000
    assert not tracemalloc.is_tracing(), "peak_memory started tracemalloc and must stop it"
    tracemalloc.start()
    try:
        assert 8 * n <= peak_memory(lambda: np.ones(n).sum()) < 8 * n + 100_000
        assert tracemalloc.is_tracing(), "peak_memory must not stop a trace someone else started"
    finally:
        tracemalloc.stop()


def test_tiled_attention_uses_far_less_memory_than_naive():
    """At T = 2048 (measured, not timed): the naive attention holds (T, T) scores and weights, the
    tiled one only (block, block) tiles. A 'tiled' version that builds the full score matrix fails
    both bounds."""
    T = 2048
    result = attention_memory(T, d_k=64, block_size=64)
    one_matrix = T * T * 8  # one (T, T) float64 matrix: 32 MiB
    assert result["naive_bytes"] >= 2 * one_matrix, (
        "naive attention keeps at least scores and weights"
    )
    assert result["tiled_bytes"] < result["naive_bytes"] / 4
    assert result["tiled_bytes"] < one_matrix / 4, (
        "the tiled version must never hold a (T, T) matrix"
    )
    assert result["ratio"] == result["naive_bytes"] / result["tiled_bytes"]


def test_tiled_memory_grows_linearly_and_naive_quadratically():
    small, large = (
        attention_memory(512, d_k=16, block_size=64),
        attention_memory(1024, d_k=16, block_size=64),
    )
    assert 3.5 < large["naive_bytes"] / small["naive_bytes"] < 4.5, (
        "doubling T quadruples the naive memory"
    )
    assert large["tiled_bytes"] / small["tiled_bytes"] < 2.5, (
        "doubling T at most doubles the tiled memory"
    )


# --- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "q_shape, k_shape, v_shape, words",
    [
        ((4, 3), (5, 2), (5, 2), "d_k"),
        ((4, 3), (5, 3), (6, 2), "T_k"),
        ((3,), (5, 3), (5, 2), "at least 2 dimensions"),
        ((4, 3), (0, 3), (0, 2), "no keys"),
        ((2, 4, 3), (3, 5, 3), (3, 5, 2), "do not broadcast"),
    ],
)
def test_tiled_attention_shape_errors_are_those_of_chapter_4(q_shape, k_shape, v_shape, words):
    """Each error says what was expected and what came, in the words of
    scaled_dot_product_attention."""
    q, k, v = np.ones(q_shape), np.ones(k_shape), np.ones(v_shape)
    with pytest.raises(ValueError, match=words) as ours:
        tiled_attention(q, k, v)
    with pytest.raises(ValueError) as theirs:
        scaled_dot_product_attention(q, k, v)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "block, words",
    [
        (0, "at least 1"),
        (-4, "at least 1"),
        (2.5, "whole number"),
        (True, "whole number"),
        ("8", "whole number"),
        ((4, 0), "block_k"),
        ((4,), "pair"),
        ((1, 2, 3), "pair"),
    ],
)
def test_tiled_attention_block_size_errors(block, words):
    q = np.ones((4, 3))
    with pytest.raises(ValueError, match=words):
        tiled_attention(q, q, q, block_size=block)


def test_tiled_attention_other_errors():
    q = np.ones((4, 3))
    with pytest.raises(ValueError, match="causal must be True or False"):
        tiled_attention(q, q, q, causal="yes")
    with pytest.raises(ValueError, match="array of numbers"):
        tiled_attention(np.array([["a", "b"]]), q, q)


def test_online_softmax_errors():
    with pytest.raises(ValueError, match="block_size must be at least 1"):
        online_softmax([1.0, 2.0], 0)
    with pytest.raises(ValueError, match="NaN"):
        online_softmax([1.0, np.nan], 1)
    with pytest.raises(ValueError, match="empty"):
        online_softmax(np.ones((2, 0)), 1)
    with pytest.raises(ValueError, match="every entry is -inf"):
        online_softmax([[0.0, 1.0], [-np.inf, -np.inf]], 1)
    with pytest.raises(ValueError, match="non-empty"):
        softmax_state(np.ones((3, 0)))
    with pytest.raises(ValueError, match="expects a function"):
        peak_memory(np.ones(3))


# --- the chapter's own derivation -----------------------------------------------------------------


def test_chapter_11_derivations_agree_with_tutorlib():
    """The cells tagged 'derivation' in chapter 11 compute what tutorlib.efficient computes."""
    nb = nbformat.read(CHAPTER, as_version=4)
    namespace: dict = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and "derivation" in cell.metadata.get("tags", []):
            exec(
                compile(cell.source, "11_efficient_attention.ipynb[derivation]", "exec"), namespace
            )
    rng = np.random.default_rng(0)
    x = rng.standard_normal(23) * 5
    for block in (1, 4, 23, 50):
        np.testing.assert_allclose(
            namespace["softmax_in_blocks"](x, block), online_softmax(x, block), rtol=1e-12
        )
    for t_q, t_k, block in [(8, 8, 4), (7, 10, 3), (5, 5, 16)]:
        q, k, v = (
            rng.standard_normal((t_q, 4)),
            rng.standard_normal((t_k, 4)),
            rng.standard_normal((t_k, 3)),
        )
        np.testing.assert_allclose(
            namespace["tiled_attention_2d"](q, k, v, block),
            tiled_attention(q, k, v, block),
            rtol=0,
            atol=1e-12,
        )
