"""tutorlib.debug.heads: head ablation on the shipped models, pattern scores on hand-built
patterns whose answers are known, and induction heads grown on a toy model."""

import copy

import pytest
import torch

from tutorlib.debug import attention_maps, heads
from tutorlib.translation.checkpoints import load_pretrained
from tutorlib.translation.data import EOS_ID, tokenize
from tutorlib.translation.decoding import cross_attention_maps
from tutorlib.translation.gpt.checkpoints import load_pretrained as load_gpt

PAIRS = [
    ("the red car", "o carro vermelho"),
    ("she is tired.", "ela está cansada."),
    ("1748 boring parks are good", "1748 parques chatos são bons"),
    ("a king has your small rabbits!", "um rei tem seus coelhos pequenos!"),
]

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def translator():
    model, _, _ = load_pretrained(device="cpu")
    return model.eval()


@pytest.fixture(scope="module")
def batch(translator):
    b, kept = heads._teacher_batch(translator, PAIRS)  # '1748' is unknown: <unk>, quietly
    assert kept == PAIRS
    return b


@torch.no_grad()
def _w_o_input(model, kind, layer, batch):
    """What one layer's W^O reads, (B, T_q, D), and the logits. Hooks run in the order they were
    registered, so inside an ablation this one sees the ablated input."""
    seen = {}
    module = heads.attention_modules(model, kind)[layer]
    handle = module.w_o.register_forward_pre_hook(lambda m, a: seen.update(x=a[0].clone()))
    try:
        logits = model(batch)
    finally:
        handle.remove()
    return seen["x"], logits


def _state(model):
    return {k: v.clone() for k, v in model.state_dict().items()}


# --- ablation ----------------------------------------------------------------------------------


def test_kinds_and_modules(translator):
    assert heads.attention_kinds(translator) == ("encoder", "decoder", "cross")
    assert len(heads.attention_modules(translator, "cross")) == 3
    assert heads.attention_kinds(heads.AttentionOnly(10)) == ("self",)
    with pytest.raises(ValueError, match="attention kinds"):
        heads.attention_modules(translator, "self")
    with pytest.raises(ValueError, match="neither"):
        heads.attention_kinds(torch.nn.Linear(2, 2))


@pytest.mark.parametrize("kind", ["encoder", "decoder", "cross"])
def test_zero_ablation_touches_only_that_head(translator, batch, kind):
    """In the ablated layer W^O reads the other heads' outputs unchanged and zeros for the one."""
    before = _state(translator)
    clean, clean_logits = _w_o_input(translator, kind, 1, batch)
    with heads.ablate_heads(translator, kind, (1, 2)):
        ablated, ablated_logits = _w_o_input(translator, kind, 1, batch)
    B, T, D = clean.shape
    clean, ablated = clean.view(B, T, 4, D // 4), ablated.view(B, T, 4, D // 4)
    assert torch.equal(ablated[:, :, 2], torch.zeros_like(ablated[:, :, 2]))
    for h in (0, 1, 3):
        assert torch.equal(ablated[:, :, h], clean[:, :, h])
    assert not torch.allclose(ablated_logits, clean_logits)  # the head mattered somewhere
    after = translator.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)  # weights bit-identical
    with torch.no_grad():  # and the hook is gone
        assert torch.equal(translator(batch), clean_logits)


def test_all_heads_of_a_layer_equal_a_silent_sublayer(translator, batch):
    """Zeroing every head of a layer leaves only W^O's bias: the sublayer adds a constant."""
    module = heads.attention_modules(translator, "cross")[0]

    def only_bias(m, args, out):
        return torch.zeros_like(out[0]) + m.w_o.bias, out[1]

    with torch.no_grad():
        with heads.ablate_heads(translator, "cross", [(0, h) for h in range(4)]):
            ablated = translator(batch)
        handle = module.register_forward_hook(only_bias)
        try:
            silent = translator(batch)
        finally:
            handle.remove()
    torch.testing.assert_close(ablated, silent)


def test_mean_ablation_writes_the_reference_mean(translator, batch):
    means = heads.head_means(translator, PAIRS)
    assert tuple(means["encoder"].shape) == (3, 4, 32)
    assert set(means) == {"encoder", "decoder", "cross"}
    with heads.ablate_heads(translator, "decoder", (2, 0), "mean", means):
        x, _ = _w_o_input(translator, "decoder", 2, batch)
    B, T, D = x.shape
    x = x.view(B, T, 4, D // 4)[:, :, 0]  # (B, T, Dh)
    torch.testing.assert_close(x, means["decoder"][2, 0].expand_as(x))


def test_head_means_leave_out_padding(translator):
    """Two sentences' mean is the token-weighted mean of each alone: padding counts for nothing."""
    short, long = PAIRS[0], PAIRS[3]
    n_short, n_long = 3, 7  # source words; "!" is a token
    alone = [heads.head_means(translator, [p])["encoder"] for p in (short, long)]
    both = heads.head_means(translator, [short, long])["encoder"]
    by_hand = (n_short * alone[0] + n_long * alone[1]) / (n_short + n_long)
    torch.testing.assert_close(both, by_hand, rtol=1e-4, atol=1e-5)


def test_ablation_errors(translator):
    with pytest.raises(ValueError, match="how must be one of"):
        with heads.ablate_heads(translator, "cross", (0, 0), how="random"):
            pass
    with pytest.raises(ValueError, match="head must be an int from 0 to 3"):
        with heads.ablate_heads(translator, "cross", (0, 4)):
            pass
    with pytest.raises(ValueError, match="layer must be an int from 0 to 2"):
        with heads.ablate_heads(translator, "encoder", [(0, 1), (3, 0)]):
            pass
    with pytest.raises(ValueError, match="needs means"):
        with heads.ablate_heads(translator, "cross", (0, 0), how="mean"):
            pass
    with pytest.raises(ValueError, match=r"\(layer, head\) pair"):
        with heads.ablate_heads(translator, "cross", [0]):
            pass
    with pytest.raises(ValueError, match="layer must be an int"):
        with heads.ablate_heads(translator, "cross", (True, 0)):
            pass
    with pytest.raises(ValueError, match="how must be one of"):
        heads.ablation_costs(translator, PAIRS, how="half")
    with pytest.raises(ValueError, match="attention kinds"):
        heads.ablation_costs(translator, PAIRS, kinds=["self"])


def test_ablation_costs_rank_heads(translator):
    pairs = PAIRS[2:]
    rows = heads.ablation_costs(translator, pairs, kinds=["cross"])
    assert len(rows) == 12
    assert [r["cost"] for r in rows] == sorted((r["cost"] for r in rows), reverse=True)
    assert {(r["layer"], r["head"]) for r in rows} == {(i, h) for i in range(3) for h in range(4)}


def test_ablation_on_the_shipped_gpt():
    """The GPT's heads meet in one W^O too: mean ablation moves its logits, then leaves no trace."""
    gpt = load_gpt()
    means = heads.head_means(gpt, PAIRS[:2])
    assert tuple(means["self"].shape) == (6, 4, 32)
    tokens = torch.tensor([gpt.tokenizer.encode("the red car")])
    before = _state(gpt)
    with torch.no_grad():
        clean = gpt(tokens)
        with heads.ablate_heads(gpt, "self", [(5, 0), (5, 3)], "mean", means):
            ablated = gpt(tokens)
        assert torch.equal(gpt(tokens), clean)
    assert not torch.allclose(clean, ablated)
    assert all(torch.equal(before[k], v) for k, v in gpt.state_dict().items())


def test_ablation_on_a_toy():
    model = heads.AttentionOnly(12, d_model=16, num_heads=2)
    tokens = heads.repeated_tokens(3, 4, 12, torch.Generator().manual_seed(0))
    before = copy.deepcopy(model.state_dict())
    with torch.no_grad():
        clean = model(tokens)
        with heads.ablate_heads(model, "self", (1, 1)):
            ablated = model(tokens)
    assert not torch.allclose(clean, ablated)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


# --- pattern scores ------------------------------------------------------------------------------


def test_pattern_scores_on_hand_built_heads():
    """Head 0 looks one back, head 1 at itself, head 2 uniformly (causal), head 3 at position 0."""
    L = 5
    w = torch.zeros(1, 4, L, L)
    for q in range(L):
        w[0, 0, q, max(q - 1, 0)] = 1.0
        w[0, 1, q, q] = 1.0
        w[0, 2, q, : q + 1] = 1.0 / (q + 1)
        w[0, 3, q, 0] = 1.0
    targets = heads._position_targets(L, L, 1)
    mask = torch.ones(1, L, dtype=torch.bool)
    s = heads.pattern_scores(w, mask, targets)
    torch.testing.assert_close(s["previous"][:2], torch.tensor([1.0, 0.0], dtype=torch.float64))
    # uniform: 1/(q+1) on q-1 for q = 1..4
    uniform_prev = sum(1 / (q + 1) for q in range(1, L)) / (L - 1)
    assert s["previous"][2].item() == pytest.approx(uniform_prev)
    assert s["same"].tolist() == pytest.approx(
        [0.2, 1.0, sum(1 / (q + 1) for q in range(L)) / L, 0.2]
    )
    assert s["first"][3].item() == 1.0
    # a masked query is not counted
    mask[0, 0] = False
    assert heads.pattern_scores(w, mask, targets)["same"][0].item() == 0.0


def test_pattern_scores_errors():
    w = torch.full((1, 2, 3, 3), 1 / 3)
    with pytest.raises(ValueError, match=r"query_mask must be \(B, T_q\)"):
        heads.pattern_scores(w, torch.ones(3, dtype=torch.bool), {})
    with pytest.raises(ValueError, match="targets"):
        heads.pattern_scores(w, torch.ones(1, 3, dtype=torch.bool), {"x": torch.ones(3, 3)})
    none = heads.pattern_scores(
        w, torch.ones(1, 3, dtype=torch.bool), {"x": torch.zeros(1, 3, 3, dtype=torch.bool)}
    )
    assert torch.isnan(none["x"]).all()


@pytest.mark.filterwarnings("ignore:1 unknown word mapped")  # 1748 is <unk>, as it should be
def test_aligned_score_reads_the_copied_word(translator):
    """In "1748 boring parks are good" only 1748 is spelled alike in both languages: a cross head's
    aligned score is the weight step 0 (which writes 1748) puts on source word 0."""
    english, portuguese = PAIRS[2]
    rows = heads.head_pattern_scores(translator, [PAIRS[2]])
    src = torch.tensor([translator.src_vocab.encode(tokenize(english))])  # (1, S)
    hyp = translator.tgt_vocab.encode(tokenize(portuguese)) + [EOS_ID]
    maps = cross_attention_maps(translator, src, torch.ones(1, 1, 1, src.shape[1], dtype=bool), hyp)
    for r in rows:
        if r["kind"] == "cross":
            assert r["aligned"] == pytest.approx(maps[r["layer"], r["head"], 0, 0].item(), abs=1e-5)
        else:
            assert r["aligned"] != r["aligned"]  # NaN: no alignment inside one language
    # no word spelled alike: nothing to score
    none = heads.head_pattern_scores(translator, PAIRS[:2])
    assert all(r["aligned"] != r["aligned"] for r in none)


def test_spelled_alike_leaves_out_the_words_the_languages_spell_alike_for_different_things(
    translator,
):
    """English "a" is Portuguese *um*/*uma*, Portuguese *a* is "the": "she has a cat" written as
    "a gata" would count the article as a copy. Numbers, names and "pizza" are one word in both."""
    assert heads.false_friends() == {"a", "do"}
    for same in ("1748", "maria", "pizza", "hotel"):
        assert heads.spelled_alike(same, same), same
    for other in (("a", "a"), ("do", "do"), (".", "."), ("", ""), ("cat", "gato")):
        assert not heads.spelled_alike(*other), other
    # an "a" on both sides and no other shared word: nothing to score (NaN), not the article
    pair = ("a cat sees the box", "a gata vê a caixa")  # not a phrasebook sentence: spelling only
    rows = heads.head_pattern_scores(translator, [pair])
    assert all(r["aligned"] != r["aligned"] for r in rows if r["kind"] == "cross")


def test_decoder_punctuation_counts_only_marks_already_written(translator):
    """ "ela está cansada.": the decoder reads <bos> ela está cansada . and only the last step (the
    one that writes <eos>) can see the full stop: the score is that step's weight on it."""
    rows = heads.head_pattern_scores(translator, [PAIRS[1]])
    batch, _ = heads._teacher_batch(translator, [PAIRS[1]])
    maps = attention_maps(translator, batch)
    for r in rows:
        if r["kind"] == "decoder":
            w = maps[f"decoder.layers.{r['layer']}.self_attn"][0, r["head"]]  # (T, T)
            assert r["punctuation"] == pytest.approx(w[4, 4].item(), abs=1e-6)


def test_head_pattern_scores_on_the_translator(translator):
    rows = heads.head_pattern_scores(translator, PAIRS)
    assert len(rows) == 36
    cross = [r for r in rows if r["kind"] == "cross"]
    # only the number 1748 is spelled alike in both languages: its row exists, the scores are shares
    assert all(0.0 <= r["aligned"] <= 1.0 for r in cross)
    assert all(r["previous"] != r["previous"] for r in cross)  # NaN: no "previous" across sentences
    assert all(0.0 <= r["previous"] <= 1.0 for r in rows if r["kind"] != "cross")


def test_head_pattern_scores_on_the_gpt():
    """On one sentence without padding a GPT head's scores are plain means of its own weights."""
    gpt = load_gpt()
    rows = heads.head_pattern_scores(gpt, [PAIRS[1]])
    assert len(rows) == 24 and {r["kind"] for r in rows} == {"self"}
    tok = gpt.tokenizer
    tokens = torch.tensor([tok.encode(PAIRS[1][0]) + [tok.sep_id] + tok.encode(PAIRS[1][1])])
    with torch.no_grad():
        _, weights = gpt(tokens, need_weights=True)  # one (1, H, L, L) per block
    ends = [
        i for i, t in enumerate(tokens[0].tolist()) if t == tok.sep_id or tok.decode([t]) == "."
    ]
    assert len(ends) == 3  # "she is tired." <sep> "ela está cansada."
    for r in rows:
        w = weights[r["layer"]][0, r["head"]]  # (L, L)
        assert r["previous"] == pytest.approx(w.diagonal(-1).mean().item(), abs=1e-5)
        assert r["same"] == pytest.approx(w.diagonal().mean().item(), abs=1e-5)
        rows_with_end = [q for q in range(len(w)) if q >= ends[0]]
        by_hand = sum(w[q, ends].sum().item() for q in rows_with_end) / len(rows_with_end)
        assert r["punctuation"] == pytest.approx(by_hand, abs=1e-5)
        assert r["aligned"] != r["aligned"]


# --- induction heads -----------------------------------------------------------------------------


def _induction_pattern(half: int, H: int = 2) -> torch.Tensor:
    """Head 0 a perfect previous-token head, head 1 a perfect induction head, (1, H, L, L)."""
    L = 2 * half
    w = torch.zeros(1, H, L, L)
    w[0, :, 0, 0] = 1.0
    for q in range(1, L):
        w[0, 0, q, q - 1] = 1.0
        w[0, 1, q, q - half + 1 if q >= half else q] = 1.0
    return w


def test_scores_on_hand_built_induction_pattern():
    half = 6
    w = _induction_pattern(half)
    assert heads.previous_token_scores(w).tolist() == [1.0, 0.0]
    assert heads.induction_scores(w, half).tolist() == [0.0, 1.0]


def test_scores_reject_a_uniform_pattern():
    half = 8
    L = 2 * half
    w = torch.tril(torch.ones(L, L))
    w = (w / w.sum(dim=-1, keepdim=True)).expand(1, 2, L, L)
    assert heads.induction_scores(w, half).max() < 0.1
    assert heads.previous_token_scores(w).max() < 0.25
    with pytest.raises(ValueError, match="repeated half of 5"):
        heads.induction_scores(w, 5)
    with pytest.raises(ValueError, match=r"\(B, H, L, L\)"):
        heads.previous_token_scores(w[0])
    with pytest.raises(ValueError, match="queries must be positions"):
        heads.previous_token_scores(w, queries=[0])


def test_copying_scores_of_a_perfect_copier():
    half, V = 5, 7

    class Copier(torch.nn.Module):
        def forward(self, tokens):  # predicts token t + 1 - half for t >= half; 0 before
            L = tokens.shape[1]
            logits = torch.zeros(*tokens.shape, V)
            for t in range(half, L - 1):
                logits[:, t].scatter_(1, tokens[:, t + 1 - half, None], 10.0)
            return logits

    tokens = heads.repeated_tokens(50, half, V, torch.Generator().manual_seed(0))
    s = heads.copying_scores(Copier(), tokens, half)
    assert s["second_accuracy"] == 1.0
    assert s["second_loss"] < 1e-3
    assert s["first_accuracy"] < 0.5


def test_repeated_tokens():
    t = heads.repeated_tokens(3, 4, 9, torch.Generator().manual_seed(0))
    assert t.shape == (3, 8)
    assert torch.equal(t[:, :4], t[:, 4:])
    with pytest.raises(ValueError, match="half >= 2"):
        heads.repeated_tokens(3, 1, 9)


@pytest.mark.slow  # two trainings of about 5 s each on one core
def test_training_grows_a_previous_token_and_an_induction_head():
    good = heads.train_induction()
    assert good["seconds"] < 60
    assert good["previous"].max() > 0.6  # layer 0: one head reads the token before
    assert good["induction"].max() > 0.6  # layer 1: one head reads what followed last time
    assert good["copying"]["second_accuracy"] > 0.9
    assert good["copying"]["first_accuracy"] < 0.1  # the first half stays unpredictable
    # planted bug: no causal mask. The model reads the answer directly; no previous-token head
    # forms, and it "predicts" the random first half, which no honest model can
    leaky = heads.train_induction(causal=False)
    assert leaky["previous"].max() < 0.2
    assert leaky["copying"]["first_accuracy"] > 0.9


def test_measuring_leaves_the_mode_as_it_was(translator):
    """The scores run in eval mode (no dropout) and hand the model back as they found it."""
    translator.train()
    try:
        heads.head_means(translator, PAIRS[:1])
        heads.head_pattern_scores(translator, PAIRS[:1])
        assert translator.training
    finally:
        translator.eval()
    heads.head_means(translator, PAIRS[:1])
    assert not translator.training
