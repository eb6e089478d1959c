"""tutorlib.attention: softmax, scaled dot-product attention and masks.

Each test names, in its docstring or assert message, the wrong program it catches.
"""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tutorlib.attention import causal_mask, padding_mask, scaled_dot_product_attention, softmax
from tutorlib.checks import attention_shapes

finite = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False, allow_infinity=False)
shapes = st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple)


# --- softmax -----------------------------------------------------------------


def test_softmax_seed_numbers():
    """The slide deck's numbers: (1, 0.71) -> 0.57/0.43 and (1, -1) -> 0.88/0.12."""
    np.testing.assert_allclose(softmax([1.0, 0.71]), [0.5720, 0.4280], atol=5e-4)
    np.testing.assert_allclose(softmax([1.0, -1.0]), [0.8808, 0.1192], atol=5e-4)


def test_softmax_is_stable_for_huge_scores():
    """A naive exp/sum overflows to inf/inf = NaN here."""
    out = softmax(np.array([[1e4, -1e4, 0.0], [1e4, 1e4, -1e4]]))
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, [[1, 0, 0], [0.5, 0.5, 0]], atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, shapes, elements=finite))
def test_softmax_rows_sum_to_one(x):
    p = softmax(x)
    assert (p >= 0).all() and np.isfinite(p).all()
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, shapes, elements=st.floats(-100, 100)), st.floats(-1e3, 1e3))
def test_softmax_unchanged_by_a_constant_per_row(x, c):
    """Adding the same constant to every score of a row cannot change its weights."""
    shift = np.full(x.shape[:-1] + (1,), c)
    np.testing.assert_allclose(softmax(x + shift), softmax(x), rtol=1e-9, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(1, 4), st.integers(1, 5)), elements=st.floats(-50, 50)
    ),
    st.floats(0.05, 20),
)
def test_softmax_temperature_is_division_of_scores(x, t):
    np.testing.assert_allclose(softmax(x, temperature=t), softmax(x / t), rtol=1e-9, atol=1e-12)


def test_softmax_temperature_sharpens_and_flattens():
    x = np.array([2.0, 1.0, 0.1])
    cold, warm, hot = softmax(x, temperature=0.25), softmax(x), softmax(x, temperature=100.0)
    assert cold[0] > warm[0] > hot[0], "lower temperature must put more weight on the largest score"
    np.testing.assert_allclose(hot, 1 / 3, atol=0.01)


def test_softmax_axis():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(softmax(x, axis=0).sum(axis=0), 1.0)
    np.testing.assert_allclose(softmax(x, axis=0), softmax(x.T).T)


def test_softmax_keeps_float32():
    assert softmax(np.ones(3, dtype=np.float32)).dtype == np.float32
    assert softmax([1, 2, 3]).dtype == np.float64


def test_softmax_gives_masked_entries_zero_weight():
    np.testing.assert_allclose(softmax([0.0, -np.inf, 0.0]), [0.5, 0.0, 0.5])


@pytest.mark.parametrize("t", [0, 0.0, -1.0, float("nan"), float("inf"), "1", None, True])
def test_softmax_rejects_bad_temperature(t):
    with pytest.raises(ValueError, match="temperature"):
        softmax([1.0, 2.0], temperature=t)


@pytest.mark.parametrize(
    "x, message",
    [
        ([np.nan, 1.0], "NaN"),
        ([np.inf, 1.0], r"\+inf"),
        ([[0.0, 1.0], [-np.inf, -np.inf]], r"-inf along axis -1 in the slice at index \(1,\)"),
        (3.0, "scalar"),
        (np.zeros((2, 0)), "empty"),
        (["a", "b"], "numbers"),
    ],
)
def test_softmax_errors(x, message):
    with pytest.raises(ValueError, match=message):
        softmax(x)


def test_softmax_rejects_axis_out_of_range():
    with pytest.raises(ValueError, match=r"axis 2 is out of range for an array of shape \(3,\)"):
        softmax([1.0, 2.0, 3.0], axis=2)


def test_softmax_does_not_modify_its_input():
    x = np.array([3.0, 1.0, 2.0])
    softmax(x, temperature=2.0)
    np.testing.assert_array_equal(x, [3.0, 1.0, 2.0])


# --- scaled dot-product attention --------------------------------------------


def test_attention_quick_brown_fox_by_hand():
    """The seed's query for "quick" against the five keys, computed term by term."""
    from tutorlib.examples import QUICK_BROWN_FOX as ex

    q, k, v = ex["q"][1:2], ex["k"], ex["v"]
    raw = [0.5 * a + 0.6 * b for a, b in k]
    np.testing.assert_allclose(raw, [0.16, 0.60, 1.04, 1.48, 1.92])
    e = [math.exp(s / math.sqrt(2)) for s in raw]
    w = [x / sum(e) for x in e]
    out, weights = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(weights[0], w, rtol=1e-12)
    np.testing.assert_allclose(out[0], np.array(w) @ v, rtol=1e-12)


def test_attention_is_scaled_by_sqrt_dk_not_dk():
    """Scores must be divided by sqrt(d_k): one key pair distinguishes sqrt(d_k), d_k, d_k**2 and
    1."""
    q = np.array([[1.0, 1.0, 1.0, 1.0]])
    k = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    _, w = scaled_dot_product_attention(q, k, np.eye(2))
    # raw scores 4 and 0, d_k = 4: scaled by sqrt(4) -> 2 and 0
    np.testing.assert_allclose(w[0, 0], math.exp(2) / (math.exp(2) + 1), rtol=1e-12)


def _random_case(rng, batch, t_q, t_k, d_k, d_v):
    return (
        rng.standard_normal(batch + (t_q, d_k)),
        rng.standard_normal(batch + (t_k, d_k)),
        rng.standard_normal(batch + (t_k, d_v)),
    )


@settings(max_examples=60, deadline=None)
@given(
    batch=st.lists(st.integers(1, 3), max_size=2).map(tuple),
    t_q=st.integers(1, 6),
    t_k=st.integers(1, 6),
    d_k=st.integers(1, 8),
    d_v=st.integers(1, 5),
    masked=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_attention_matches_torch(batch, t_q, t_k, d_k, d_v, masked, seed):
    """Same output as torch.nn.functional.scaled_dot_product_attention within 1e-6 (float64)."""
    rng = np.random.default_rng(seed)
    q, k, v = _random_case(rng, batch, t_q, t_k, d_k, d_v)
    mask = None
    if masked:
        mask = rng.random(batch + (t_q, t_k)) < 0.6
        mask[..., rng.integers(t_k)] = True  # every query keeps at least one key
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    expected = F.scaled_dot_product_attention(
        torch.from_numpy(q),
        torch.from_numpy(k),
        torch.from_numpy(v),
        attn_mask=None if mask is None else torch.from_numpy(mask),
    ).numpy()
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-6)
    assert out.shape == batch + (t_q, d_v) and weights.shape == batch + (t_q, t_k)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-12)


def test_attention_matches_torch_causal():
    rng = np.random.default_rng(0)
    q, k, v = _random_case(rng, (2, 3), 7, 7, 4, 5)
    out, _ = scaled_dot_product_attention(q, k, v, mask=causal_mask(7))
    expected = F.scaled_dot_product_attention(
        *map(torch.from_numpy, (q, k, v)), is_causal=True
    ).numpy()
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(t_k=st.integers(2, 7), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_a_masked_key_never_affects_the_output(t_k, seed, data):
    """Changing the key and the value of a masked position must change nothing."""
    rng = np.random.default_rng(seed)
    q, k, v = _random_case(rng, (2,), 3, t_k, 4, 3)
    hidden = data.draw(st.integers(0, t_k - 1))
    mask = np.ones((3, t_k), dtype=bool)
    mask[:, hidden] = False
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    k2, v2 = k.copy(), v.copy()
    k2[..., hidden, :] = rng.standard_normal(4) * 100
    v2[..., hidden, :] = rng.standard_normal(3) * 100
    out2, _ = scaled_dot_product_attention(q, k2, v2, mask=mask)
    np.testing.assert_array_equal(weights[..., hidden], 0.0)
    np.testing.assert_allclose(out2, out, rtol=0, atol=1e-12)


def test_attention_broadcasts_batch_dimensions_and_padding_masks():
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 4, 3))  # (B, T_q, d_k)
    k = rng.standard_normal((2, 5, 3))  # (B, T_k, d_k)
    v = rng.standard_normal((1, 5, 2))  # shared values broadcast over B
    mask = padding_mask([5, 3])[:, None, :]  # (B, 1, T_k)
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert out.shape == (2, 4, 2)
    np.testing.assert_array_equal(weights[1, :, 3:], 0.0)
    for b in range(2):
        np.testing.assert_allclose(
            out[b], scaled_dot_product_attention(q[b], k[b], v[0], mask[b])[0]
        )


def test_attention_accepts_integer_inputs():
    out, w = scaled_dot_product_attention([[1, 0]], [[1, 0], [0, 1]], [[1, 2], [3, 4]])
    assert out.dtype == np.float64 and w.shape == (1, 2)


@pytest.mark.parametrize(
    "shapes, message",
    [
        (
            ((3, 4), (5, 3), (5, 2)),
            r"q has d_k=4 but k has d_k=3 \(q \(3, 4\), k \(5, 3\)\).*same width",
        ),
        (((3, 4), (5, 4), (6, 2)), r"k has T_k=5 keys but v has 6 values"),
        (
            ((4,), (5, 4), (5, 2)),
            r"q must have at least 2 dimensions \(\.\.\., T_q, d_k\), got shape \(4,\)",
        ),
        (((3, 4), (4,), (5, 2)), r"k must have at least 2 dimensions"),
        (
            ((2, 3, 4), (3, 5, 4), (3, 5, 2)),
            r"leading \(batch\) dimensions .* do not broadcast: \(2,\), \(3,\)",
        ),
        (((3, 0), (5, 0), (5, 2)), r"d_k must be at least 1"),
        (((3, 4), (0, 4), (0, 2)), r"no keys"),
    ],
)
def test_attention_shape_errors_name_both_shapes(shapes, message):
    q, k, v = (np.zeros(s) for s in shapes)
    with pytest.raises(ValueError, match=message):
        scaled_dot_product_attention(q, k, v)


def test_attention_rejects_non_boolean_masks():
    q = k = v = np.zeros((2, 2))
    with pytest.raises(
        ValueError, match=r"mask must be boolean with True = may attend, got dtype int64"
    ):
        scaled_dot_product_attention(q, k, v, mask=np.ones((2, 2), dtype=np.int64))


def test_attention_rejects_a_mask_that_does_not_broadcast():
    q, k, v = np.zeros((2, 5, 4)), np.zeros((2, 5, 4)), np.zeros((2, 5, 4))
    with pytest.raises(
        ValueError,
        match=r"mask of shape \(2, 5\) does not broadcast to the scores' shape \(2, 5, 5\)",
    ):
        scaled_dot_product_attention(q, k, v, mask=padding_mask([5, 3]))
    with pytest.raises(ValueError, match=r"mask of shape \(3, 3\)"):
        scaled_dot_product_attention(q, k, v, mask=causal_mask(3))


def test_attention_names_the_fully_masked_row():
    """A query with no visible key must be an error naming it, not a row of NaN."""
    q, k, v = np.zeros((2, 3, 2)), np.zeros((2, 4, 2)), np.zeros((2, 4, 2))
    mask = np.ones((2, 3, 4), dtype=bool)
    mask[1, 2] = False
    with pytest.raises(
        ValueError,
        match=r"query row 2 \(index \(1, 2\) of the \(\.\.\., T_q\) axes\) has every key masked",
    ):
        scaled_dot_product_attention(q, k, v, mask=mask)


def test_attention_leaves_inputs_untouched():
    rng = np.random.default_rng(3)
    q, k, v = _random_case(rng, (), 2, 3, 2, 2)
    copies = [a.copy() for a in (q, k, v)]
    mask = np.array([[True, False, True], [True, True, False]])
    scaled_dot_product_attention(q, k, v, mask=mask)
    for a, b in zip((q, k, v), copies):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(mask, [[True, False, True], [True, True, False]])


# --- masks ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 5])
def test_causal_mask_hides_exactly_the_future(n):
    m = causal_mask(n)
    assert m.shape == (n, n) and m.dtype == bool
    for i in range(n):
        for j in range(n):
            assert m[i, j] == (j <= i), f"row {i} column {j}"


def test_causal_mask_agrees_with_torch_is_causal():
    rng = np.random.default_rng(5)
    q, k, v = _random_case(rng, (), 6, 6, 3, 3)
    torch_out = F.scaled_dot_product_attention(
        *map(torch.from_numpy, (q, k, v)), is_causal=True
    ).numpy()
    np.testing.assert_allclose(
        scaled_dot_product_attention(q, k, v, causal_mask(6))[0], torch_out, atol=1e-12
    )


@pytest.mark.parametrize("n", [0, -1, 2.5, "3", True, None])
def test_causal_mask_rejects_bad_sizes(n):
    with pytest.raises(ValueError, match="n must be"):
        causal_mask(n)


def test_padding_mask():
    m = padding_mask([2, 0, 3], 4)
    np.testing.assert_array_equal(m, [[1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 0]])
    assert m.dtype == bool
    np.testing.assert_array_equal(padding_mask(np.array([1, 3])), [[1, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(padding_mask([2.0, 1.0]), [[1, 1], [1, 0]])


@pytest.mark.parametrize(
    "lengths, max_len, message",
    [
        ([2, 7], 5, r"lengths\[1\]=7 exceeds max_len=5"),
        ([2, -1], 5, r"lengths\[1\]=-1 is negative"),
        ([[1, 2]], 3, r"lengths must be 1-D"),
        ([], 3, r"lengths is empty"),
        ([1.5], 3, r"whole numbers"),
        ([0, 0], None, r"every length is 0"),
        ([1], 0, r"max_len must be at least 1"),
    ],
)
def test_padding_mask_errors(lengths, max_len, message):
    with pytest.raises(ValueError, match=message):
        padding_mask(lengths, max_len)


# --- the shape rules, one home for NumPy and torch (tutorlib.checks) -----------------------------


@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 4), (5, 3), (5, 2)),
        ((3, 4), (5, 4), (6, 2)),
        ((4,), (5, 4), (5, 2)),
        ((2, 3, 4), (3, 5, 4), (3, 5, 2)),
        ((3, 0), (5, 0), (5, 2)),
        ((3, 4), (0, 4), (0, 2)),
    ],
)
def test_attention_shapes_say_the_same_for_torch_tensors(shapes):
    """One rule for both: torch tensors of these shapes get the NumPy function's exact message."""
    with pytest.raises(ValueError) as numpy_error:
        scaled_dot_product_attention(*(np.zeros(s) for s in shapes))
    with pytest.raises(ValueError) as torch_error:
        attention_shapes(*(torch.zeros(s) for s in shapes))
    assert str(torch_error.value) == str(numpy_error.value)


def test_attention_shapes_return_the_broadcast_batch_shape():
    q, k, v = np.zeros((2, 1, 3, 4)), np.zeros((1, 5, 6, 4)), np.zeros((6, 2))
    assert attention_shapes(q, k, v) == np.broadcast_shapes((2, 1), (1, 5), ()) == (2, 5)


def test_attention_shapes_of_grouped_heads():
    """With heads_axis, keys and values may have fewer heads than the queries, dividing them."""
    # (B, H, T, d_k): 8 query heads, 2 key/value heads
    q, kv = np.zeros((2, 8, 3, 4)), np.zeros((2, 2, 5, 4))
    assert attention_shapes(q, kv, kv, heads_axis=-3) == (2, 8)
    with pytest.raises(ValueError, match="do not broadcast"):
        attention_shapes(q, kv, kv)  # without the heads axis, 8 and 2 heads are a plain mismatch
    odd = np.zeros((2, 3, 5, 4))
    with pytest.raises(ValueError, match=r"one that divides q's 8 .* got 3 and 3 on axis -3"):
        attention_shapes(q, odd, odd, heads_axis=-3)
    with pytest.raises(ValueError, match=r"got 2 and 3 on axis -3"):
        attention_shapes(q, kv, odd, heads_axis=-3)
    with pytest.raises(ValueError, match=r"do not broadcast"):
        attention_shapes(q, np.zeros((3, 2, 5, 4)), np.zeros((3, 2, 5, 4)), heads_axis=-3)
    with pytest.raises(ValueError, match=r"heads_axis must be .* at most -3"):
        attention_shapes(q, kv, kv, heads_axis=-2)


def test_head_width_is_the_one_rule_of_the_heads():
    """Every layer that splits D into heads (split_heads, MultiHeadAttention, the grouped-query
    layer) says the same thing when they do not divide it: one home, tutorlib.checks.head_width."""
    from tutorlib.checks import dropout_probability, head_width
    from tutorlib.modern import GroupedQueryAttention
    from tutorlib.nn import MultiHeadAttention, split_heads

    assert head_width(12, 3) == 4
    message = (
        "d_model=10 is not divisible by num_heads=3: each head gets d_model // num_heads "
        "features, so num_heads must divide d_model (here one of [1, 2, 5, 10])"
    )
    for build in (lambda: MultiHeadAttention(10, 3), lambda: GroupedQueryAttention(10, 3, 1)):
        with pytest.raises(ValueError) as caught:
            build()
        assert str(caught.value) == message
    with pytest.raises(
        ValueError, match=r"^D=10 is not divisible by num_heads=3 \(x \(2, 5, 10\)\): "
    ):
        split_heads(torch.zeros(2, 5, 10), 3)
    assert dropout_probability(0) == 0.0
    for p in (True, -0.1, 1.5, "0.1"):
        with pytest.raises(ValueError, match="dropout is a probability between 0 and 1"):
            dropout_probability(p)
