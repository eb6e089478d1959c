"""tutorlib.debug: each check flags its planted bug and passes healthy models (no false alarm).

Healthy models: the shipped translator (tutorlib) and a seeded torch.nn.Transformer, so that the
checks are known to work on a model that is not the course's own. Every input is seeded.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from tutorlib import debug
from tutorlib.nn import (
    causal_attention_mask,
    padding_attention_mask,
    sinusoidal_positional_encoding,
)
from tutorlib.translation.checkpoints import load_pretrained
from tutorlib.translation.config import TranslatorConfig
from tutorlib.translation.data import make_batches
from tutorlib.translation.model import Translator, translation_loss

PAIRS = [
    ("the red car", "o carro vermelho"),
    ("she is tired.", "ela está cansada."),
    ("i like the cat.", "gosto do gato."),
    ("he does not eat the apple.", "ele não come a maçã."),
]
LENGTHS = torch.tensor([5, 3, 4, 2])

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def translator():
    torch.manual_seed(0)
    model, src_vocab, tgt_vocab = load_pretrained(device="cpu")
    return model.eval(), src_vocab, tgt_vocab


@pytest.fixture(scope="module")
def torch_transformer():
    torch.manual_seed(0)
    return nn.Transformer(
        d_model=32,
        nhead=4,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=64,
        dropout=0.1,
        batch_first=True,
    ).eval()


@pytest.fixture(scope="module")
def batch(translator):
    _, src_vocab, tgt_vocab = translator
    return make_batches(PAIRS, src_vocab, tgt_vocab, 4, shuffle=False)[0]


def with_dropout(model, p=0.1):
    """A copy of ``model`` with dropout p: the shipped model is trained without, but a model in
    training mode with dropout is what these checks must catch."""
    import copy

    out = copy.deepcopy(model)
    dropouts = [m for m in out.modules() if isinstance(m, nn.Dropout)]
    assert dropouts, "the translator has no dropout modules to switch on"
    for m in dropouts:
        m.p = p
    return out


def seeded(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def memory_of(model, batch):
    with torch.no_grad():
        return model.encode(batch.src, batch.src_key_mask)


# --- the report ------------------------------------------------------------------------------


def test_report_truth_and_text():
    healthy = debug.Report("check_x", summary="all fine")
    assert bool(healthy) and healthy.healthy and str(healthy) == "check_x: healthy. all fine"
    sick = debug.Report("check_x", problems=["position 0 reads position 1"], cause="no causal mask")
    assert not sick and not sick.healthy
    assert str(sick) == "check_x: FAILED. position 0 reads position 1. Likely cause: no causal mask"
    many = debug.Report("check_x", problems=[f"p{i}" for i in range(6)])
    assert "and 2 more" in str(many)


# --- causality ---------------------------------------------------------------------------------


def test_causality_passes_the_translators_decoder_and_flags_a_missing_mask(translator, batch):
    model = translator[0]
    memory = memory_of(model, batch)
    T = batch.tgt_in.shape[1]
    x = seeded(4, T, model.config.d_model)
    healthy = debug.check_causality(
        lambda x: model.decoder(x, memory, batch.tgt_mask, batch.src_key_mask), x
    )
    assert healthy, str(healthy)
    assert healthy.details["leaks"] == [] and healthy.details["reads"].diagonal().all()
    leak = debug.check_causality(
        lambda x: model.decoder(
            x, memory, padding_attention_mask(batch.tgt_in != 0), batch.src_key_mask
        ),
        x,
    )
    assert not leak
    assert "position 0 reads position 1" in str(leak) and "no causal mask" in str(leak)
    assert len(leak.details["leaks"]) == T * (T - 1) // 2


def test_causality_names_a_transposed_mask(translator, batch):
    model = translator[0]
    memory = memory_of(model, batch)
    x = seeded(4, 6, model.config.d_model)
    wrong = causal_attention_mask(6).T.contiguous()
    report = debug.check_causality(lambda x: model.decoder(x, memory, wrong, batch.src_key_mask), x)
    assert not report and "transposed or inverted" in report.cause


def test_causality_on_torch_transformer(torch_transformer):
    x, memory = seeded(3, 6, 32), seeded(3, 5, 32, seed=1)
    causal = nn.Transformer.generate_square_subsequent_mask(6)
    decoder = torch_transformer.decoder
    assert debug.check_causality(lambda x: decoder(x, memory, tgt_mask=causal), x)
    assert debug.check_causality(
        lambda x: decoder(x, memory, tgt_mask=causal, tgt_is_causal=True), x
    )
    assert not debug.check_causality(lambda x: decoder(x, memory), x)


def test_causality_reports_dropout_and_nan(translator, batch, torch_transformer):
    model = with_dropout(translator[0])
    memory = memory_of(model, batch)
    x = seeded(4, 5, model.config.d_model)
    model.train()
    try:
        report = debug.check_causality(
            lambda x: model.decoder(x, memory, None, batch.src_key_mask), x
        )
    finally:
        model.eval()
    assert not report and "dropout" in report.cause
    # a boolean "True = hide" mask given where True = attend: the first row hides every key -> NaN
    inverted = ~causal_attention_mask(5)

    def attention(x, mask=inverted):  # written for True = attend, given True = hide
        scores = (x @ x.transpose(1, 2)).masked_fill(~mask, float("-inf"))  # (B, T, T)
        return torch.softmax(scores, dim=-1) @ x

    nan = debug.check_causality(attention, seeded(2, 5, 8))
    assert not nan and "NaN" in str(nan) and "polarity" in nan.cause


def test_causality_refuses_token_ids():
    with pytest.raises(ValueError, match=r"float tensor of shape \(B, T, D\).*not token ids"):
        debug.check_causality(lambda x: x, torch.zeros(2, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="batch_first"):
        debug.check_causality(lambda x: x.transpose(0, 1), seeded(2, 3, 4))


# --- padding ---------------------------------------------------------------------------------


def test_padding_passes_the_translators_encoder_and_flags_a_missing_mask(translator):
    model = translator[0]
    x = seeded(4, 5, model.config.d_model)
    mask = padding_attention_mask(LENGTHS)
    healthy = debug.check_padding(lambda x: model.encoder(x, mask), x, LENGTHS)
    assert healthy, str(healthy)
    report = debug.check_padding(lambda x: model.encoder(x, None), x, LENGTHS)
    assert not report
    assert "sequence 1 (length 3)" in str(report) and "padding mask" in report.cause
    assert not report.details["moved"][0].any()  # sequence 0 has no padding: nothing of it can move


def test_padding_on_torch_transformer(torch_transformer):
    encoder = torch_transformer.encoder
    x = seeded(4, 5, 32)
    pad = ~padding_attention_mask(LENGTHS)[:, 0, 0]  # (B, S): True = padding, PyTorch's convention
    assert debug.check_padding(lambda x: encoder(x, src_key_padding_mask=pad), x, LENGTHS)
    assert not debug.check_padding(lambda x: encoder(x), x, LENGTHS)
    inverted = debug.check_padding(lambda x: encoder(x, src_key_padding_mask=~pad), x, LENGTHS)
    assert not inverted and "NaN" in str(inverted)


def test_padding_errors():
    with pytest.raises(ValueError, match="one entry per sequence"):
        debug.check_padding(lambda x: x, seeded(2, 3, 4), [3])
    with pytest.raises(ValueError, match="leave no padding"):
        debug.check_padding(lambda x: x, seeded(2, 3, 4), [3, 3])
    with pytest.raises(ValueError, match="between 1 and T=3"):
        debug.check_padding(lambda x: x, seeded(2, 3, 4), [0, 3])


# --- mask conventions --------------------------------------------------------------------------


def test_mask_conventions():
    attend = padding_attention_mask(LENGTHS)
    report = debug.check_mask_convention(attend)
    assert report and report.details["convention"] == "attend"
    assert (
        report.details["fits"]["tutorlib"]
        and not report.details["fits"]["nn.MultiheadAttention key_padding_mask"]
    )
    hide = debug.check_mask_convention(~attend)
    assert not hide and hide.details["convention"] == "hide" and "~mask" in hide.cause
    assert debug.check_mask_convention(~attend[:, 0, 0], expected="key_padding_mask")
    assert debug.check_mask_convention(causal_attention_mask(5)).details["convention"] == "attend"
    assert debug.check_mask_convention(~causal_attention_mask(5), expected="nn.MultiheadAttention")
    additive = debug.check_mask_convention(nn.Transformer.generate_square_subsequent_mask(5))
    assert (
        additive.details["convention"] == "additive"
        and not additive
        and "mask == 0" in additive.cause
    )
    assert debug.check_mask_convention(
        nn.Transformer.generate_square_subsequent_mask(5), expected="sdpa"
    )
    ones = debug.check_mask_convention(attend[:, 0, 0].float())
    assert ones.details["convention"] == "multiplicative" and "mask == 1" in ones.cause


def test_mask_on_the_wrong_axis_and_undetermined_masks():
    real = padding_attention_mask(LENGTHS)[:, 0, 0]  # (B, S)
    wrong = debug.check_mask_convention(real[:, None, :, None])
    assert not wrong and "wrong axis" in wrong.cause and "mask[:, None, None, :]" in wrong.cause
    everything = debug.check_mask_convention(torch.ones(3, 4, dtype=torch.bool))
    assert not everything and "every entry is True" in str(everything)
    with pytest.raises(ValueError, match="expected must be one of"):
        debug.check_mask_convention(real, expected="keras")


# --- determinism and positions -----------------------------------------------------------------


def test_determinism(translator, torch_transformer):
    model = with_dropout(translator[0])
    x = seeded(2, 4, model.config.d_model)
    assert debug.check_determinism(lambda x: model.encoder(x), x)
    model.train()
    try:
        report = debug.check_determinism(lambda x: model.encoder(x), x)
    finally:
        model.eval()
    assert not report and "model.eval()" in report.cause and "training mode" in str(report)
    assert debug.check_determinism(torch_transformer.encoder, seeded(2, 4, 32))


def test_positions(translator, torch_transformer):
    model = translator[0]
    ids = torch.tensor([[5, 9, 12, 7], [8, 6, 20, 11]])
    scale = math.sqrt(model.config.d_model)
    healthy = debug.check_positions(
        lambda ids: model.encoder(model.pos(model.src_embed(ids) * scale)), ids
    )
    assert healthy, str(healthy)
    bag = debug.check_positions(
        lambda ids: model.encoder(model.src_embed(ids) * scale), ids, swap=(1, 3)
    )
    assert not bag and "positional encodings are not added" in bag.cause
    # torch.nn.Transformer adds no positions of its own: without them it is a bag of vectors
    x = seeded(2, 5, 32)
    assert not debug.check_positions(torch_transformer.encoder, x)
    pe = sinusoidal_positional_encoding(5, 32)
    assert debug.check_positions(lambda x: torch_transformer.encoder(x + pe), x)
    with pytest.raises(ValueError, match="two different positions"):
        debug.check_positions(torch_transformer.encoder, x, swap=(2, 2))


# --- teacher forcing and the loss --------------------------------------------------------------


def test_shift(batch):
    assert debug.check_shift(batch), str(debug.check_shift(batch))
    assert debug.check_shift((batch.tgt_in, batch.tgt_out))
    same = debug.check_shift((batch.tgt_out, batch.tgt_out))
    assert not same and "not shifted" in same.cause
    wrong_way = debug.check_shift((batch.tgt_out, batch.tgt_in))
    assert not wrong_way and "row 0" in str(wrong_way)
    no_eos = batch.tgt_out.masked_fill(batch.tgt_out == 2, 0)
    report = debug.check_shift((batch.tgt_in, no_eos))
    assert not report and "EOS" in report.cause
    with pytest.raises(ValueError, match="tgt_in and tgt_out"):
        debug.check_shift(object())


def test_loss_padding(batch):
    V = int(batch.tgt_out.max()) + 1
    logits = seeded(*batch.tgt_out.shape, V)
    assert debug.check_loss_padding(translation_loss, logits, batch.tgt_out)
    assert debug.check_loss_padding(
        lambda lg, t: translation_loss(lg, t, 0.1), logits, batch.tgt_out
    )
    counted = debug.check_loss_padding(
        lambda lg, t: F.cross_entropy(lg.reshape(-1, V), t.reshape(-1)), logits, batch.tgt_out
    )
    assert not counted and "ignore_index=0" in counted.cause
    with pytest.raises(ValueError, match="no padding"):
        debug.check_loss_padding(translation_loss, logits, batch.tgt_out.clamp(min=1))


# --- training ----------------------------------------------------------------------------------


def tiny_translator(src_vocab, tgt_vocab):
    torch.manual_seed(0)
    config = TranslatorConfig(
        src_vocab_size=len(src_vocab),
        tgt_vocab_size=len(tgt_vocab),
        d_model=32,
        num_heads=4,
        d_ff=64,
        num_encoder_layers=1,
        num_decoder_layers=1,
        dropout=0.1,
    )
    return Translator(config, src_vocab, tgt_vocab)


def test_overfit_one_batch(translator, batch):
    model = tiny_translator(*translator[1:])
    before = [p.detach().clone() for p in model.parameters()]
    report = debug.overfit_one_batch(model, batch, steps=60, lr=1e-2)
    assert report, str(report)
    assert report.details["losses"][-1] < 0.1 < report.details["losses"][0]
    assert all(torch.equal(a, p) for a, p in zip(before, model.parameters())), (
        "the model itself was trained"
    )
    # the same run against a target half its final loss: the loss must go below the target, not near
    # it
    strict = debug.overfit_one_batch(
        model, batch, steps=60, lr=1e-2, target=report.details["losses"][-1] / 2
    )
    assert not strict and "only fell" in str(strict)

    # the source mask negated: every query of a sentence without padding has nothing to attend to
    def inverted(m, b):
        memory = m.encoder(m.pos(m.src_embed(b.src)), ~b.src_key_mask)
        return F.cross_entropy(
            m.decode(b.tgt_in, memory, ~b.src_key_mask, b.tgt_mask).flatten(0, 1),
            b.tgt_out.flatten(),
            ignore_index=0,
        )

    with pytest.raises(
        ValueError, match="every key masked"
    ):  # tutorlib's layers refuse it outright
        debug.overfit_one_batch(model, batch, inverted, steps=2)
    stuck = debug.overfit_one_batch(model, batch, steps=20, lr=1e-6)
    assert not stuck and "only fell" in str(stuck) and "gradient_norms" in stuck.cause
    diverged = debug.overfit_one_batch(
        model, batch, lambda m, b: m(b).sum() * float("nan"), steps=3
    )
    assert not diverged and "nan" in str(diverged) and len(diverged.details["losses"]) == 1


def test_overfit_one_batch_on_torch_transformer():
    torch.manual_seed(0)
    transformer = nn.Transformer(
        d_model=16,
        nhead=2,
        num_encoder_layers=1,
        num_decoder_layers=1,
        dim_feedforward=32,
        dropout=0.1,
        batch_first=True,
    ).eval()
    src, tgt = seeded(4, 5, 16), seeded(4, 6, 16, seed=1)
    model = nn.ModuleDict({"t": transformer, "head": nn.Linear(16, 7)})
    labels = torch.randint(0, 7, (4, 6), generator=torch.Generator().manual_seed(2))
    causal = nn.Transformer.generate_square_subsequent_mask(6)

    def loss_fn(m, b):
        return F.cross_entropy(
            m["head"](m["t"](b[0], b[1], tgt_mask=causal)).flatten(0, 1), b[2].flatten()
        )

    report = debug.overfit_one_batch(model, (src, tgt, labels), loss_fn, steps=100, lr=1e-2)
    assert report, str(report)
    assert transformer.training is False, "the check trained a copy, not the model"


def test_gradient_norms(translator, batch, torch_transformer):
    model = tiny_translator(*translator[1:])
    with pytest.raises(ValueError, match="no trainable parameters"):
        debug.gradient_norms(nn.Linear(2, 2).requires_grad_(False))
    before = debug.gradient_norms(model)
    assert not before and "loss.backward()" in before.cause
    translation_loss(model(batch), batch.tgt_out).backward()
    healthy = debug.gradient_norms(model)
    assert healthy, str(healthy)
    assert set(healthy.details["heads"]) >= {
        "encoder.layers.0.self_attn",
        "decoder.layers.0.cross_attn",
    }
    assert len(healthy.details["heads"]["encoder.layers.0.self_attn"]) == 4
    exploding = debug.gradient_norms(model, explode=1e-3)
    assert not exploding and "exploding" in str(exploding) and "clip" in exploding.cause
    model.encoder.layers[0].feed_forward.linear1.weight.grad[0, 0] = float("nan")
    nan = debug.gradient_norms(model)
    assert not nan and "NaN or inf gradients in ['encoder.layers.0.feed_forward.linear1']" in str(
        nan
    )
    assert "learning rate" in nan.cause
    # a layer that never reached the loss, and one whose gradient is exactly zero
    model.zero_grad()
    translation_loss(model(batch), batch.tgt_out).backward()
    model.encoder.layers[0].feed_forward.linear2.weight.grad.zero_()
    model.encoder.layers[0].feed_forward.linear2.bias.grad.zero_()
    model.decoder.norm.weight.grad = None
    dead = debug.gradient_norms(model)
    assert not dead and "no gradient at all for ['decoder.norm.weight']" in str(dead)
    assert "exactly zero in ['encoder.layers.0.feed_forward.linear2']" in str(dead)
    # torch.nn.Transformer: healthy after one backward pass
    torch_transformer.zero_grad()
    torch_transformer(seeded(2, 5, 32), seeded(2, 4, 32, seed=1)).pow(2).mean().backward()
    assert debug.gradient_norms(torch_transformer)
    torch_transformer.zero_grad()


# --- attention ----------------------------------------------------------------------------------


def test_attention_entropy_on_healthy_models(translator, batch, torch_transformer):
    model = translator[0]
    report = debug.attention_entropy(model, batch)
    assert report, str(report)
    assert len(report.details["heads"]) == 9  # 3 encoder self, 3 decoder self, 3 cross
    assert all(len(heads) == 4 for heads in report.details["heads"].values())
    maps = debug.attention_maps(
        torch_transformer,
        seeded(2, 5, 32),
        seeded(2, 4, 32, seed=1),
        tgt_mask=nn.Transformer.generate_square_subsequent_mask(4),
    )
    assert set(maps) == {
        "encoder.layers.0.self_attn",
        "encoder.layers.1.self_attn",
        "decoder.layers.0.self_attn",
        "decoder.layers.0.multihead_attn",
        "decoder.layers.1.self_attn",
        "decoder.layers.1.multihead_attn",
    }
    assert maps["decoder.layers.0.self_attn"].shape == (2, 4, 4, 4)
    assert (
        maps["decoder.layers.0.self_attn"][0, 0].triu(1).abs().max() == 0
    )  # the causal mask was applied
    assert debug.attention_entropy(maps)
    with pytest.raises(ValueError, match="holds no tutorlib MultiHeadAttention"):
        debug.attention_maps(nn.Linear(3, 3), torch.zeros(1, 3))


def test_attention_entropy_flags_saturated_and_uniform_heads():
    scores = seeded(2, 2, 5, 5)
    saturated = torch.softmax(scores * 1000, dim=-1)  # no 1/sqrt(d_k): one key takes everything
    report = debug.attention_entropy([saturated])
    assert (
        not report
        and "layer 0 head 0 is saturated" in str(report)
        and "head 1 is saturated" in str(report)
        and "sqrt(d_k)" in report.cause
    )
    uniform = torch.softmax(scores / 1000, dim=-1)  # divided by far too much
    report = debug.attention_entropy({"encoder": uniform})
    assert (
        not report and "encoder head 1 is nearly uniform" in str(report) and "d_k" in report.cause
    )
    assert debug.attention_entropy(torch.softmax(scores, dim=-1))


# --- BLEU ----------------------------------------------------------------------------------------


HYPS = [
    "o carro vermelho",
    "ela está cansada.",
    "gosto do gato.",
    "ele não come maçã.",
    "o gato preto",
]
REFS = [
    "o carro vermelho",
    "ela está cansada.",
    "gosto do gato.",
    "ele não come a maçã.",
    "os gatos pretos",
]


def test_bleu():
    import sacrebleu

    corpus = sacrebleu.corpus_bleu(HYPS, [REFS]).score
    assert debug.check_bleu(corpus, HYPS, REFS)
    mean = sum(sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(HYPS, REFS)) / len(HYPS)
    report = debug.check_bleu(mean, HYPS, REFS)
    assert not report and "mean of sentence BLEUs" in report.cause and "corpus" in report.cause
    fraction = debug.check_bleu(corpus / 100, HYPS, REFS)
    assert not fraction and "0-1 scale" in fraction.cause
    assert "matches none" in debug.check_bleu(12.3, HYPS, REFS).cause
    with pytest.raises(ValueError, match="one reference"):
        debug.check_bleu(1.0, HYPS, REFS[:2])
    with pytest.raises(ValueError, match="not token lists"):
        debug.check_bleu(1.0, [h.split() for h in HYPS], REFS)
