"""tutorlib.nn: multi-head attention, masks, positional encodings and the Transformer layers.

The reference is PyTorch itself (torch.nn.MultiheadAttention, TransformerEncoderLayer,
TransformerDecoderLayer) with the same weights, in float64, and tutorlib.attention (NumPy)
head by head. Each test names, in its docstring or assert message, the wrong program it catches.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch.testing import assert_close

from tutorlib.attention import scaled_dot_product_attention
from tutorlib.nn import (
    Decoder,
    DecoderLayer,
    Encoder,
    EncoderLayer,
    FeedForward,
    MultiHeadAttention,
    PositionalEncoding,
    causal_attention_mask,
    merge_heads,
    padding_attention_mask,
    sinusoidal_positional_encoding,
    split_heads,
)

F64 = torch.float64
EXACT = dict(rtol=0, atol=1e-6)  # "equal to PyTorch within 1e-6" in float64
TIGHT = dict(rtol=0, atol=1e-12)  # "unchanged": masked or future tokens change nothing at all


def randomize(module: nn.Module, seed: int = 0) -> nn.Module:
    """Random values in every parameter: PyTorch starts biases at 0 and LayerNorms at (1, 0),
    so a copy that drops a bias or swaps two norms would otherwise still agree."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) * 0.5)
    return module


def randn(*shape, seed=0, dtype=F64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def torch_mha(d_model=12, num_heads=3, bias=True, seed=0):
    m = nn.MultiheadAttention(d_model, num_heads, bias=bias, batch_first=True, dtype=F64)
    return randomize(m, seed).eval()


def ignore_from_lengths(lengths, S):
    """PyTorch's key_padding_mask: True = IGNORE this key (the negation of ours)."""
    return torch.arange(S)[None, :] >= torch.as_tensor(lengths)[:, None]


# --- heads ---------------------------------------------------------------------------


def test_split_heads_gives_head_h_the_features_of_slice_h():
    """Head h must see features h*Dh..(h+1)*Dh-1; a view(B, T, Dh, H) or a missing transpose
    fails."""
    x = torch.arange(2 * 3 * 8, dtype=F64).reshape(2, 3, 8)  # (B, T, D)
    s = split_heads(x, 4)
    assert s.shape == (2, 4, 3, 2)  # (B, H, T, Dh)
    for h in range(4):
        assert torch.equal(s[:, h], x[..., 2 * h : 2 * h + 2]), f"head {h}"
    assert s.data_ptr() == x.data_ptr(), "split_heads should be a view, not a copy"
    assert torch.equal(merge_heads(s), x)


def test_merge_heads_is_the_inverse_of_split_heads_on_noncontiguous_input():
    x = randn(2, 5, 6).transpose(0, 1).contiguous().transpose(0, 1)  # strides not of a fresh tensor
    assert torch.equal(merge_heads(split_heads(x, 3)), x)


def test_a_loop_over_heads_equals_the_batched_reshape():
    """Each head is tutorlib.attention (NumPy) on its own Dh-wide slice of the projections; then
    concatenate and apply W^O. Catches interleaved head slices, scaling by sqrt(D) instead of
    sqrt(Dh), and a mask applied to the wrong axis."""
    torch.manual_seed(0)
    B, T, S, D, H = 2, 4, 6, 12, 3
    Dh = D // H
    mha = randomize(MultiHeadAttention(D, H).double())
    x, memory = randn(B, T, D, seed=1), randn(B, S, D, seed=2)
    mask = padding_attention_mask([6, 3])  # (B, 1, 1, S)
    with torch.no_grad():
        q, k, v = mha.w_q(x).numpy(), mha.w_k(memory).numpy(), mha.w_v(memory).numpy()
        heads, head_weights = [], []
        for h in range(H):
            cols = slice(h * Dh, (h + 1) * Dh)
            # (B, T, Dh), (B, S, Dh), (B, S, Dh), mask (B, 1, S) -> (B, T, Dh), (B, T, S)
            out_h, w_h = scaled_dot_product_attention(
                q[..., cols], k[..., cols], v[..., cols], mask=mask[:, 0].numpy()
            )
            heads.append(out_h)
            head_weights.append(w_h)
        expected = mha.w_o(
            torch.from_numpy(np.concatenate(heads, axis=-1))
        )  # H x (B, T, Dh) -> (B, T, D)
        fast, _ = mha(x, memory, memory, mask=mask)
        slow, weights = mha(x, memory, memory, mask=mask, need_weights=True)
    assert_close(fast, expected, rtol=0, atol=1e-10)
    assert_close(slow, expected, rtol=0, atol=1e-10)
    for h in range(H):
        assert_close(weights[:, h], torch.from_numpy(head_weights[h]), rtol=0, atol=1e-12)


# --- MultiHeadAttention against torch.nn.MultiheadAttention --------------------------

CASES = [
    ("self", ""),
    ("self", "padding"),
    ("self", "causal"),
    ("self", "causal+padding"),
    ("cross", ""),
    ("cross", "padding"),
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kind, masks", CASES)
def test_from_torch_matches_torch_multihead_attention(kind, masks, bias):
    """Same output and per-head weights as torch.nn.MultiheadAttention, float64, within 1e-6.
    Catches a wrong slice of in_proj_weight (order q, k, v), a dropped bias, and a mask that is not
    the negation of PyTorch's (key_padding_mask and bool attn_mask there mean True = NOT
    allowed)."""
    B, T, D, H = 3, 5, 12, 3
    S = 7 if kind == "cross" else T
    theirs = torch_mha(D, H, bias=bias)
    ours = MultiHeadAttention.from_torch(theirs)
    x = randn(B, T, D, seed=1)
    memory = randn(B, S, D, seed=2) if kind == "cross" else x
    kwargs, mask = {}, None
    if "padding" in masks:
        lengths = [S, 2, S - 1]
        kwargs["key_padding_mask"] = ignore_from_lengths(lengths, S)  # (B, S), True = ignore
        mask = ~kwargs["key_padding_mask"][:, None, None, :]  # (B, 1, 1, S), True = may attend
        assert torch.equal(mask, padding_attention_mask(lengths))
    if "causal" in masks:
        kwargs["attn_mask"] = torch.ones(T, T, dtype=torch.bool).triu(1)  # True = NOT allowed
        mask = ~kwargs["attn_mask"] if mask is None else mask & ~kwargs["attn_mask"]
    expected, expected_weights = theirs(
        x, memory, memory, need_weights=True, average_attn_weights=False, **kwargs
    )
    fast, none = ours(x, memory, memory, mask=mask)
    slow, weights = ours(x, memory, memory, mask=mask, need_weights=True)
    assert none is None, "without need_weights the weights are not computed"
    assert fast.shape == (B, T, D) and weights.shape == (B, H, T, S)
    assert_close(fast, expected, **EXACT)
    assert_close(slow, expected, **EXACT)
    assert_close(weights, expected_weights, **EXACT)


def test_from_torch_keeps_dtype_dropout_and_mode():
    theirs = nn.MultiheadAttention(8, 2, dropout=0.25, batch_first=True)  # float32, training mode
    ours = MultiHeadAttention.from_torch(theirs)
    assert ours.w_q.weight.dtype == torch.float32 and ours.training and ours.dropout == 0.25
    assert (ours.d_model, ours.num_heads, ours.d_head) == (8, 2, 4)
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())
    assert not MultiHeadAttention.from_torch(theirs.eval()).training
    # the copy owns its weights: changing it leaves the original alone
    with torch.no_grad():
        ours.w_q.weight.zero_()
    assert theirs.in_proj_weight[:8].abs().sum() > 0


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: nn.MultiheadAttention(8, 2),
            r"batch_first=False: it reads \(T, B, D\).*batch_first=True",
        ),
        (
            lambda: nn.MultiheadAttention(8, 2, batch_first=True, kdim=4, vdim=4),
            r"kdim=4, vdim=4 but embed_dim=8",
        ),
        (
            lambda: nn.MultiheadAttention(8, 2, batch_first=True, add_bias_kv=True),
            r"add_bias_kv=True",
        ),
        (lambda: nn.Linear(8, 8), r"expects a torch.nn.MultiheadAttention, got Linear"),
    ],
)
def test_from_torch_rejects_what_it_cannot_copy(make, message):
    with pytest.raises(ValueError, match=message):
        MultiHeadAttention.from_torch(make())


def test_dropout_acts_in_training_only():
    """Two calls in training differ (dropout on the weights); in eval they are identical."""
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2, dropout=0.5).double()
    x = randn(2, 6, 8)
    assert not torch.equal(mha(x, x, x)[0], mha(x, x, x)[0])
    _, w = mha(x, x, x, need_weights=True)
    assert (w == 0).any(), "dropout should zero some weights in training"
    mha.eval()
    assert torch.equal(mha(x, x, x)[0], mha(x, x, x)[0])
    assert_close(
        mha(x, x, x, need_weights=True)[1].sum(-1), torch.ones(2, 2, 6, dtype=F64), **TIGHT
    )


# --- masks ----------------------------------------------------------------------------


def test_mask_helpers():
    m = padding_attention_mask([3, 1], max_len=4)
    assert m.shape == (2, 1, 1, 4) and m.dtype == torch.bool
    assert m[:, 0, 0].tolist() == [[True, True, True, False], [True, False, False, False]]
    assert torch.equal(padding_attention_mask(torch.tensor([3, 1])), m[..., :3])
    real = torch.tensor([[True, True, False], [True, False, False]])
    assert torch.equal(padding_attention_mask(real), real[:, None, None, :])
    c = causal_attention_mask(4)
    assert c.dtype == torch.bool and c.shape == (4, 4)
    assert c.tolist() == [[j <= i for j in range(4)] for i in range(4)], (
        "True on and below the diagonal"
    )
    assert (causal_attention_mask(3) & padding_attention_mask([3, 2])).shape == (2, 1, 3, 3)


D_H = st.sampled_from([(4, 1), (8, 2), (12, 3)])


@settings(max_examples=40, deadline=None)
@given(
    B=st.integers(1, 3),
    T=st.integers(1, 5),
    S=st.integers(1, 6),
    d_h=D_H,
    need_weights=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
    data=st.data(),
)
def test_a_masked_key_never_affects_the_output(B, T, S, d_h, need_weights, seed, data):
    """Changing the key and the value of a padded position changes no output; its weight is 0."""
    D, H = d_h
    torch.manual_seed(seed)
    mha = MultiHeadAttention(D, H).double()
    lengths = data.draw(st.lists(st.integers(1, S), min_size=B, max_size=B))
    mask = padding_attention_mask(lengths, S)  # (B, 1, 1, S)
    x, key, value = (
        randn(B, T, D, seed=seed),
        randn(B, S, D, seed=seed + 1),
        randn(B, S, D, seed=seed + 2),
    )
    hidden = ~mask[:, 0, 0]  # (B, S), True on padding
    key2, value2 = key.clone(), value.clone()
    key2[hidden] = randn(int(hidden.sum()), D, seed=seed + 3) * 100
    value2[hidden] = randn(int(hidden.sum()), D, seed=seed + 4) * 100
    with torch.no_grad():
        out, w = mha(x, key, value, mask=mask, need_weights=need_weights)
        out2, _ = mha(x, key2, value2, mask=mask, need_weights=need_weights)
        assert_close(out2, out, **TIGHT)
        if need_weights:
            assert (w.masked_select(~mask) == 0).all()
        if hidden.any():  # not vacuous: without the mask the same change does show
            unmasked, _ = mha(x, key2, value2)
            assert (unmasked - mha(x, key, value)[0]).abs().max() > 1e-6


@settings(max_examples=40, deadline=None)
@given(
    T=st.integers(2, 7),
    d_h=D_H,
    need_weights=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
    data=st.data(),
)
def test_causal_attention_never_sees_the_future(T, d_h, need_weights, seed, data):
    """With the causal mask, changing tokens after t changes no output at positions <= t."""
    D, H = d_h
    t = data.draw(st.integers(0, T - 2))
    torch.manual_seed(seed)
    mha = MultiHeadAttention(D, H).double()
    x = randn(2, T, D, seed=seed)
    x2 = x.clone()
    x2[:, t + 1 :] = randn(2, T - t - 1, D, seed=seed + 1) * 10
    causal = causal_attention_mask(T)
    with torch.no_grad():
        out, _ = mha(x, x, x, mask=causal, need_weights=need_weights)
        out2, _ = mha(x2, x2, x2, mask=causal, need_weights=need_weights)
        assert_close(out2[:, : t + 1], out[:, : t + 1], **TIGHT)
        leak = (mha(x2, x2, x2)[0] - mha(x, x, x)[0])[:, : t + 1].abs().max()
        assert leak > 1e-6, (
            "without the mask the future does leak, so the check above is not vacuous"
        )


@settings(max_examples=30, deadline=None)
@given(
    T=st.integers(2, 6),
    S=st.integers(1, 5),
    norm_first=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
    data=st.data(),
)
def test_decoder_layer_never_sees_the_future(T, S, norm_first, seed, data):
    """The decoder's masked self-attention: changing target tokens after t changes no output at <= t
    (the cross-attention and the feed-forward must not mix positions either)."""
    t = data.draw(st.integers(0, T - 2))
    torch.manual_seed(seed)
    layer = DecoderLayer(8, 2, 16, norm_first=norm_first).double()
    x, memory = randn(2, T, 8, seed=seed), randn(2, S, 8, seed=seed + 1)
    x2 = x.clone()
    x2[:, t + 1 :] = randn(2, T - t - 1, 8, seed=seed + 2) * 10
    with torch.no_grad():
        out = layer(x, memory, tgt_mask=causal_attention_mask(T))
        out2 = layer(x2, memory, tgt_mask=causal_attention_mask(T))
    assert_close(out2[:, : t + 1], out[:, : t + 1], rtol=0, atol=1e-10)


# --- encoder and decoder layers against PyTorch -----------------------------------------


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_torch(norm_first):
    """Post-norm and pre-norm, with a padding mask and with causal & padding. Catches swapped norms,
    a post-norm written as pre-norm, a FeedForward in the wrong order, a residual left out."""
    theirs = nn.TransformerEncoderLayer(
        12, 3, 20, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=F64
    )
    theirs = randomize(theirs, seed=3).eval()
    ours = EncoderLayer.from_torch(theirs)
    assert ours.norm_first == norm_first and not ours.training
    B, S = 3, 6
    lengths = [6, 4, 2]
    x = randn(B, S, 12, seed=4)
    pad = ignore_from_lengths(lengths, S)
    expected = theirs(x, src_key_padding_mask=pad)
    assert_close(ours(x, mask=padding_attention_mask(lengths)), expected, **EXACT)
    future = torch.ones(S, S, dtype=torch.bool).triu(1)
    expected = theirs(x, src_mask=future, src_key_padding_mask=pad)
    out, weights = ours(
        x, mask=causal_attention_mask(S) & padding_attention_mask(lengths), need_weights=True
    )
    assert_close(out, expected, **EXACT)
    assert weights.shape == (B, 3, S, S)
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_torch(norm_first):
    """Causal & padding on the target, padding on the source; the cross-attention's queries come
    from the decoder and its keys from memory (swapping them changes the shapes and the numbers)."""
    theirs = nn.TransformerDecoderLayer(
        12, 3, 20, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=F64
    )
    theirs = randomize(theirs, seed=5).eval()
    ours = DecoderLayer.from_torch(theirs)
    B, T, S = 3, 5, 7
    tgt_lengths, src_lengths = [5, 3, 1], [7, 2, 5]
    x, memory = randn(B, T, 12, seed=6), randn(B, S, 12, seed=7)
    expected = theirs(
        x,
        memory,
        tgt_mask=torch.ones(T, T, dtype=torch.bool).triu(1),
        tgt_key_padding_mask=ignore_from_lengths(tgt_lengths, T),
        memory_key_padding_mask=ignore_from_lengths(src_lengths, S),
    )
    tgt_mask = causal_attention_mask(T) & padding_attention_mask(tgt_lengths)  # (B, 1, T, T)
    memory_mask = padding_attention_mask(src_lengths)  # (B, 1, 1, S)
    assert_close(ours(x, memory, tgt_mask, memory_mask), expected, **EXACT)
    out, self_w, cross_w = ours(x, memory, tgt_mask, memory_mask, need_weights=True)
    assert_close(out, expected, **EXACT)
    assert self_w.shape == (B, 3, T, T) and cross_w.shape == (B, 3, T, S)
    assert (cross_w[1, :, :, 2:] == 0).all(), "source 1 has 2 real tokens: no weight on its padding"
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())


@pytest.mark.parametrize("norm_first", [False, True])
def test_stacks_match_torch_encoder_and_decoder(norm_first):
    """Encoder/Decoder = their layers in order, plus a final LayerNorm exactly when norm_first."""
    kw = dict(dropout=0.0, batch_first=True, norm_first=norm_first, dtype=F64)
    final = (lambda: nn.LayerNorm(12, dtype=F64)) if norm_first else (lambda: None)
    t_enc = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(12, 3, 20, **kw), 2, norm=final(), enable_nested_tensor=False
    )
    t_dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(12, 3, 20, **kw), 2, norm=final())
    randomize(t_enc, seed=8).eval()
    randomize(t_dec, seed=9).eval()
    enc = Encoder(2, 12, 3, 20, norm_first=norm_first).double().eval()
    dec = Decoder(2, 12, 3, 20, norm_first=norm_first).double().eval()
    assert (enc.norm is None) == (dec.norm is None) == (not norm_first)
    enc.layers = nn.ModuleList(EncoderLayer.from_torch(m) for m in t_enc.layers)
    dec.layers = nn.ModuleList(DecoderLayer.from_torch(m) for m in t_dec.layers)
    if norm_first:
        enc.norm.load_state_dict(t_enc.norm.state_dict())
        dec.norm.load_state_dict(t_dec.norm.state_dict())
    src, tgt = randn(2, 6, 12, seed=10), randn(2, 4, 12, seed=11)
    src_pad = ignore_from_lengths([6, 3], 6)
    memory = t_enc(src, src_key_padding_mask=src_pad)
    ours_memory, enc_weights = enc(src, mask=~src_pad[:, None, None, :], need_weights=True)
    assert_close(ours_memory, memory, **EXACT)
    expected = t_dec(
        tgt,
        memory,
        tgt_mask=torch.ones(4, 4, dtype=torch.bool).triu(1),
        memory_key_padding_mask=src_pad,
    )
    out = dec(tgt, memory, causal_attention_mask(4), ~src_pad[:, None, None, :])
    assert_close(out, expected, **EXACT)
    out, self_ws, cross_ws = dec(
        tgt, memory, causal_attention_mask(4), ~src_pad[:, None, None, :], need_weights=True
    )
    assert_close(out, expected, **EXACT)
    assert len(enc_weights) == len(self_ws) == len(cross_ws) == 2 and cross_ws[0].shape == (
        2,
        3,
        4,
        6,
    )


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: nn.TransformerEncoderLayer(8, 2, 16),
            r"TransformerEncoderLayer has batch_first=False",
        ),
        (
            lambda: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation="gelu"),
            r"activation 'gelu'.*ReLU",
        ),
        (lambda: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, bias=False), r"bias=False"),
        (
            lambda: nn.TransformerDecoderLayer(8, 2, 16, batch_first=True),
            r"expects a torch.nn.TransformerEncoderLayer",
        ),
    ],
)
def test_encoder_layer_from_torch_errors(make, message):
    with pytest.raises(ValueError, match=message):
        EncoderLayer.from_torch(make())


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: nn.TransformerDecoderLayer(8, 2, 16),
            r"TransformerDecoderLayer has batch_first=False",
        ),
        (
            lambda: nn.TransformerDecoderLayer(8, 2, 16, batch_first=True, activation="gelu"),
            r"activation 'gelu'",
        ),
    ],
)
def test_decoder_layer_from_torch_errors(make, message):
    with pytest.raises(ValueError, match=message):
        DecoderLayer.from_torch(make())


def test_feed_forward_is_linear_relu_linear_per_token():
    torch.manual_seed(0)
    ff = FeedForward(4, 6).double()
    x = randn(2, 3, 4)
    expected = (
        torch.relu(x @ ff.linear1.weight.T + ff.linear1.bias) @ ff.linear2.weight.T
        + ff.linear2.bias
    )
    assert_close(ff(x), expected, **TIGHT)
    assert_close(
        ff(x[:, 1:2]), ff(x)[:, 1:2], **TIGHT
    )  # position-wise: a token alone gives the same


# --- positional encoding ------------------------------------------------------------------


def test_sinusoidal_encoding_follows_the_formula():
    pe = sinusoidal_positional_encoding(50, 16)
    assert pe.shape == (50, 16) and pe.dtype == torch.get_default_dtype()
    for p in (0, 1, 7, 49):
        for i in range(8):
            angle = p / 10000 ** (2 * i / 16)
            assert math.isclose(pe[p, 2 * i], math.sin(angle), abs_tol=1e-6), (p, 2 * i)
            assert math.isclose(pe[p, 2 * i + 1], math.cos(angle), abs_tol=1e-6), (p, 2 * i + 1)


def test_sinusoidal_encoding_is_interleaved_not_concatenated():
    """Even features sin, odd features cos: [sin, cos, sin, cos, ...], not [sin ... sin, cos ...
    cos]."""
    pe = sinusoidal_positional_encoding(4, 8)
    assert pe[0].tolist() == [0.0, 1.0] * 4
    assert math.isclose(pe[1, 0], math.sin(1.0), abs_tol=1e-7)
    assert math.isclose(
        pe[1, 1], math.cos(1.0), abs_tol=1e-7
    )  # concatenated would put sin(1e-1) here
    assert math.isclose(pe[1, 2], math.sin(1 / 10), abs_tol=1e-7)  # 10000^(2/8) = 10
    odd = sinusoidal_positional_encoding(3, 5)
    assert odd.shape == (3, 5) and math.isclose(
        odd[2, 4], math.sin(2 / 10000 ** (4 / 5)), abs_tol=1e-7
    )


def test_positional_encoding_adds_the_table():
    pos = PositionalEncoding(8, max_len=10).double()
    assert list(pos.parameters()) == [], "the sinusoidal table is fixed, not trained"
    x = randn(2, 6, 8)
    assert_close(pos(x), x + sinusoidal_positional_encoding(10, 8).double()[:6], rtol=0, atol=1e-7)
    assert pos.pe.dtype == F64


def test_learned_positional_encoding_is_trained():
    torch.manual_seed(0)
    pos = PositionalEncoding(8, max_len=10, kind="learned")
    params = list(pos.parameters())
    assert len(params) == 1 and params[0].shape == (10, 8) and params[0].requires_grad
    x = torch.randn(2, 6, 8)
    assert_close(pos(x), x + params[0][:6])
    pos(x).square().sum().backward()
    assert params[0].grad[:6].abs().sum() > 0 and (params[0].grad[6:] == 0).all()


# --- errors ---------------------------------------------------------------------------------

_MHA = MultiHeadAttention(8, 2)
_X = torch.zeros(2, 3, 8)
_KV = torch.zeros(2, 5, 8)


def _attend(query=_X, key=_KV, value=_KV, mask=None):
    return lambda: _MHA(query, key, value, mask=mask)


def _fully_masked():
    mask = torch.ones(2, 1, 3, 5, dtype=torch.bool)
    mask[1, 0, 2] = False
    return mask


ERRORS = [
    (
        lambda: MultiHeadAttention(10, 3),
        r"d_model=10 is not divisible by num_heads=3: each head gets d_model // num_heads features",
    ),
    (lambda: MultiHeadAttention(8, 0), r"num_heads must be at least 1, got 0"),
    (lambda: MultiHeadAttention(8.0, 2), r"d_model must be a whole number, got 8.0"),
    (
        lambda: MultiHeadAttention(8, 2, dropout=1.5),
        r"dropout is a probability between 0 and 1, got 1.5",
    ),
    (
        _attend(query=torch.zeros(2, 3, 6)),
        r"query has 6 features per token \(shape \(2, 3, 6\)\) but the module expects d_model=8",
    ),
    (
        _attend(key=torch.zeros(2, 5, 4), value=torch.zeros(2, 5, 4)),
        r"key has 4 features per token",
    ),
    (
        _attend(query=torch.zeros(3, 8)),
        r"query must have shape \(B, T_q, D\).*got shape \(3, 8\).*query\[None\]",
    ),
    (
        _attend(value=torch.zeros(2, 4, 8)),
        r"key has T_k=5 positions but value has 4 \(key \(2, 5, 8\), value \(2, 4, 8\)\)",
    ),
    (
        _attend(key=torch.zeros(3, 5, 8), value=torch.zeros(3, 5, 8)),
        r"same batch size B, got query \(2, 3, 8\), key \(3, 5, 8\)",
    ),
    (
        _attend(mask=torch.ones(2, 1, 1, 5)),
        r"mask must be a boolean tensor with True = may attend, got torch.float32",
    ),
    (
        _attend(mask=torch.ones(2, 5, dtype=torch.bool)),
        r"mask of shape \(2, 5\) does not broadcast to \(2, 2, 3, 5\) = \(B, H, T_q, T_k\)"
        r".*\[:, None, None, :\]",
    ),
    (
        _attend(mask=torch.ones(5, 3, dtype=torch.bool)),
        r"mask of shape \(5, 3\) does not broadcast",
    ),
    (_attend(mask=_fully_masked()), r"every key masked: mask\[1, 0, 2, :\] is all False"),
    (
        _attend(mask=padding_attention_mask(torch.tensor([5, 0]), 5)),
        r"mask\[1, 0, 0, :\] is all False.*length 0",
    ),
    (lambda: split_heads(torch.zeros(2, 3, 10), 4), r"D=10 is not divisible by num_heads=4"),
    (
        lambda: split_heads(torch.zeros(3, 10), 2),
        r"split_heads expects x of shape \(B, T, D\), got \(3, 10\)",
    ),
    (
        lambda: merge_heads(torch.zeros(2, 3, 8)),
        r"merge_heads expects x of shape \(B, H, T, Dh\), got \(2, 3, 8\)",
    ),
    (lambda: padding_attention_mask([2, 7], max_len=5), r"lengths\[1\]=7 exceeds max_len=5"),
    (lambda: padding_attention_mask([2, -1]), r"lengths\[1\]=-1 is negative"),
    (
        lambda: padding_attention_mask(torch.tensor([2.0, 1.0])),
        r"got dtype torch.float32 of shape \(2,\).*long\(\)",
    ),
    (
        lambda: padding_attention_mask(torch.ones(2, 1, 3, dtype=torch.bool)),
        r"boolean padding mask must have shape \(B, S\).*got shape \(2, 1, 3\)",
    ),
    (lambda: padding_attention_mask([[1, 2]]), r"lengths must be 1-D .* got shape \(1, 2\)"),
    (lambda: causal_attention_mask(0), r"T must be at least 1, got 0"),
    (lambda: sinusoidal_positional_encoding(0, 4), r"max_len must be at least 1, got 0"),
    (
        lambda: PositionalEncoding(8, kind="rotary"),
        r'kind must be "sinusoidal" or "learned", got \'rotary\'',
    ),
    (
        lambda: PositionalEncoding(8, max_len=5)(torch.zeros(1, 7, 8)),
        r"T=7 positions \(x \(1, 7, 8\)\) but this PositionalEncoding has max_len=5.*max_len >= 7",
    ),
    (
        lambda: PositionalEncoding(8)(torch.zeros(1, 7, 6)),
        r"x has 6 features per token .* d_model=8",
    ),
    (lambda: FeedForward(8, 16)(torch.zeros(2, 3, 4)), r"x has 4 features per token .* d_model=8"),
    (lambda: Encoder(0, 8, 2, 16), r"num_layers must be at least 1, got 0"),
]


@pytest.mark.parametrize("call, message", ERRORS)
def test_errors_name_the_numbers_and_shapes(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- gradients and dtypes ---------------------------------------------------------------------


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_gradients_reach_every_parameter(dtype, norm_first):
    """A whole encoder-decoder, with dropout, masks and learned positions, in float32 and float64:
    the output keeps the dtype and every parameter receives a finite, non-zero gradient."""
    torch.manual_seed(0)
    pos = PositionalEncoding(8, max_len=16, kind="learned", dropout=0.1)
    enc = Encoder(2, 8, 2, 16, dropout=0.1, norm_first=norm_first)
    dec = Decoder(2, 8, 2, 16, dropout=0.1, norm_first=norm_first)
    modules = nn.ModuleList([pos, enc, dec]).to(dtype)
    src = torch.randn(2, 5, 8, dtype=dtype, requires_grad=True)
    tgt = torch.randn(2, 4, 8, dtype=dtype)
    src_mask = padding_attention_mask([5, 3])
    memory = enc(pos(src), mask=src_mask)
    out = dec(pos(tgt), memory, tgt_mask=causal_attention_mask(4), memory_mask=src_mask)
    assert out.shape == (2, 4, 8) and out.dtype == dtype
    (
        out * torch.randn_like(out)
    ).sum().backward()  # a plain sum of a LayerNorm output has gradient ~0
    for name, p in modules.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0, name
    assert src.grad is not None and src.grad[1, 3:].abs().sum() == 0, (
        "padded source tokens must get no gradient"
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_multi_head_attention_gradients_in_both_paths(dtype):
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2).to(dtype)
    x = torch.randn(2, 4, 8, dtype=dtype, requires_grad=True)
    grads = []
    for need_weights in (False, True):
        x.grad = None
        out, _ = mha(x, x, x, mask=causal_attention_mask(4), need_weights=need_weights)
        assert out.dtype == dtype
        (out * torch.arange(out.numel(), dtype=dtype).reshape(out.shape).sin()).sum().backward()
        grads.append(x.grad.clone())
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == torch.float32 else dict(rtol=0, atol=1e-10)
    assert_close(grads[0], grads[1], **tol)  # the fused and the explicit path are the same function
