"""tutorlib.gpt (chapter 13): the decoder-only translator, its layout, loss, cache, decoding, guards
and files.
"""

from __future__ import annotations

import dataclasses
import warnings

import pytest
import torch
from torch.testing import assert_close

from tutorlib.debug import check_causality
from tutorlib.translation import gpt as gpt_module
from tutorlib.translation.cache import KVCache
from tutorlib.translation.checkpoints import CheckpointError, load_checkpoint, save_model
from tutorlib.translation.cli import main
from tutorlib.translation.config import GPT_PRESETS, PRESETS, GPTConfig
from tutorlib.translation.copying import listed_genders
from tutorlib.translation.data import (
    BOS_ID,
    EOS_ID,
    PAD_ID,
    UNK_F,
    UNK_ID,
    UNK_M,
    Vocab,
    make_batches,
    tokenize,
)
from tutorlib.translation.evaluation import evaluate
from tutorlib.translation.gpt import (
    GPT,
    WordTokenizer,
    build_gpt,
    cross_attention_pattern,
    filter_logits,
    generate,
    gpt_batch_from,
    gpt_loss,
    gpt_loss_with_prompt,
    gpt_sequence,
    joint_vocab,
    kv_cache_bytes,
    make_gpt_batch,
)

# where load_pretrained finds its paths, and where translate finds its helpers
from tutorlib.translation.gpt import checkpoints as gpt_files
from tutorlib.translation.gpt import decoding as gpt_decoding
from tutorlib.translation.gpt.checkpoints import load_gpt, save_gpt
from tutorlib.translation.gpt.training import train_gpt
from tutorlib.translation.guards import output_budget
from tutorlib.translation.model import Translator, build_translator
from tutorlib.translation.phrasebook import phrasebook
from tutorlib.translation.shipped import gpt_translate as translate
from tutorlib.translation.shipped import translate as translator_translate
from tutorlib.translation.shipped import translate_sentences as translator_translate_sentences
from tutorlib.translation.training import build_vocabs

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py

SMALL = GPTConfig(
    d_model=32, num_heads=4, d_ff=64, num_layers=2, dropout=0.0, max_len=48, label_smoothing=0.0
)


@pytest.fixture(scope="module")
def pairs():
    """About 50 phrasebook pairs spread over the training split (its first ones are all fixed
    phrases).
    """
    train = phrasebook("train")
    return train[:: len(train) // 50][:50]


@pytest.fixture(scope="module")
def vocab(pairs):
    return joint_vocab(pairs, min_freq=1)


@pytest.fixture(scope="module")
def model(vocab):
    torch.manual_seed(0)
    return build_gpt(SMALL, vocab, vocab).eval()


def ids_of(vocab, text):
    return vocab.encode(tokenize(text), warn_unknown=False)


# --- the names and the sizes ----------------------------------------------------------------------


def test_the_words_preset_matches_the_translators_parameter_count():
    """Built on the phrasebook's vocabularies, the GPT preset and the translator's shipped preset
    differ by less than 1 % in parameters: the chapter's comparison is at the same size."""
    train = phrasebook("train")
    src, tgt = build_vocabs(train)
    translator = build_translator(PRESETS["pretrained"], src, tgt).num_parameters()
    joint = joint_vocab(train)
    gpt = build_gpt(GPT_PRESETS["words"], joint, joint)
    assert abs(gpt.num_parameters() - translator) / translator < 0.01, (
        gpt.num_parameters(),
        translator,
    )
    # the counts the preset's comment quotes
    assert (translator, len(joint), gpt.num_parameters()) == (1_230_354, 1_818, 1_227_034)
    # one table for both languages, tied to the output layer: no name seen once per language in it
    assert gpt.generator.weight is gpt.embed.weight
    assert len(joint) == len(set(src.tokens) | set(tgt.tokens))


def test_config_checks_and_round_trip():
    with pytest.raises(ValueError, match="not divisible"):
        GPTConfig(d_model=30, num_heads=4)
    with pytest.raises(ValueError, match="max_len=3"):
        GPTConfig(max_len=3)
    c = GPTConfig(max_len=64)
    assert c.max_source_len == 31 and c.share_embeddings
    assert GPTConfig.from_dict(c.to_dict()) == c
    with pytest.raises(ValueError, match="unknown GPTConfig fields"):
        GPTConfig.from_dict({**c.to_dict(), "num_encoder_layers": 3})


def test_gpt_refuses_two_vocabularies_and_a_wrong_size(vocab):
    other = joint_vocab(phrasebook("valid")[:30], min_freq=1)
    with pytest.raises(ValueError, match="one vocabulary"):
        GPT(SMALL.__class__(**{**SMALL.to_dict(), "vocab_size": len(vocab)}), vocab, other)
    with pytest.raises(ValueError, match="vocab_size=0"):
        GPT(SMALL)
    with pytest.raises(ValueError, match="GPTConfig"):
        GPT(PRESETS["tiny"])


# --- the layout and the loss mask --------------------------------------------------------------


def test_the_sequence_is_source_sep_target_eos():
    assert gpt_sequence([7, 8], [9], sep_id=1, eos_id=2) == [7, 8, 1, 9, 2]


def test_the_loss_mask_is_true_exactly_on_the_target_and_eos():
    # source [7, 8, 9], target [10, 11]: sequence 7 8 9 <sep> 10 11 <eos>; the second row is shorter
    b = make_gpt_batch([[7, 8, 9], [7]], [[10, 11], [12]], PAD_ID, BOS_ID, EOS_ID)
    assert b.tokens.tolist() == [[7, 8, 9, BOS_ID, 10, 11], [7, BOS_ID, 12, PAD_ID, PAD_ID, PAD_ID]]
    assert b.targets.tolist() == [
        [8, 9, BOS_ID, 10, 11, EOS_ID],
        [BOS_ID, 12, EOS_ID, PAD_ID, PAD_ID, PAD_ID],
    ]
    # True where the target is 10, 11, <eos> (row 0) and 12, <eos> (row 1): never the prompt,
    # never padding
    assert b.loss_mask.tolist() == [
        [False, False, False, True, True, True],
        [False, True, True, False, False, False],
    ]
    assert b.targets[b.loss_mask].tolist() == [10, 11, EOS_ID, 12, EOS_ID]
    assert b.real_mask.tolist() == [[True] * 6, [True, True, True, False, False, False]]
    assert b.num_tgt_tokens == 5 and b.src_lengths.tolist() == [3, 1]


def test_a_translators_batch_becomes_the_same_gpt_batch(pairs, vocab):
    """gpt_batch_from (tensor operations on a make_batches Batch) equals make_gpt_batch of the
    pairs' ids.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = make_batches(pairs[:16], vocab, vocab, 16, shuffle=False)[0]
    ours = gpt_batch_from(batch)
    expected = make_gpt_batch(
        [ids_of(vocab, e) for e, _ in pairs[:16]],
        [ids_of(vocab, p) for _, p in pairs[:16]],
        PAD_ID,
        BOS_ID,
        EOS_ID,
    )
    for name in ("tokens", "targets", "loss_mask", "real_mask", "src_lengths"):
        assert torch.equal(getattr(ours, name), getattr(expected, name)), name
    assert ours.num_tgt_tokens == expected.num_tgt_tokens == batch.num_tgt_tokens


def test_the_loss_ignores_the_prompts_logits_and_counts_the_targets():
    torch.manual_seed(0)
    b = make_gpt_batch([[4, 5, 6], [4]], [[7, 8], [9, 10, 11]], PAD_ID, BOS_ID, EOS_ID)
    V = 12
    logits = torch.randn(2, b.tokens.shape[1], V)
    loss = gpt_loss(lambda tokens: logits, b, SMALL)
    # the mean cross-entropy over the loss mask's positions, computed by hand
    by_hand = (
        -torch.log_softmax(logits, -1)[b.loss_mask]
        .gather(1, b.targets[b.loss_mask][:, None])
        .mean()
    )
    assert_close(loss, by_hand)
    outside = logits.clone()
    outside[~b.loss_mask] += 5 * torch.randn_like(
        outside[~b.loss_mask]
    )  # prompt and padding positions
    assert_close(gpt_loss(lambda tokens: outside, b, SMALL), loss)
    inside = logits.clone()
    inside[b.loss_mask] += torch.randn_like(inside[b.loss_mask])
    assert not torch.allclose(gpt_loss(lambda tokens: inside, b, SMALL), loss)
    # over the prompt too: the prompt's logits now count, the padding's still not
    with_prompt = gpt_loss_with_prompt(lambda tokens: logits, b, SMALL)
    prompt_changed = logits.clone()
    prompt_changed[0, 0] += 5 * torch.randn(V)
    assert not torch.allclose(
        gpt_loss_with_prompt(lambda tokens: prompt_changed, b, SMALL), with_prompt
    )
    padding_changed = logits.clone()
    padding_changed[~b.real_mask] += 5.0
    assert_close(gpt_loss_with_prompt(lambda tokens: padding_changed, b, SMALL), with_prompt)


# --- the model: causal, cached --------------------------------------------------------------------


def test_the_stack_is_causal(model):
    torch.manual_seed(0)
    x = torch.randn(2, 9, SMALL.d_model)
    with torch.no_grad():
        report = check_causality(lambda v: model.stack(v), x)
    assert report, report
    # and on tokens: a later token changes no earlier logits, but its own position's
    tokens = torch.randint(4, len(model.vocab), (1, 10))
    changed = tokens.clone()
    changed[0, 6] = (changed[0, 6] + 1 - 4) % (len(model.vocab) - 4) + 4
    with torch.no_grad():
        a, b = model(tokens), model(changed)
    assert_close(a[:, :6], b[:, :6])
    assert not torch.allclose(a[:, 6], b[:, 6])


def test_the_kv_cache_gives_the_logits_of_full_recomputation(model):
    torch.manual_seed(1)
    tokens = torch.randint(4, len(model.vocab), (3, 12))
    with torch.no_grad():
        full = model(tokens)  # (B, L, V)
        cache = KVCache()
        first = model.forward_step(tokens[:, :5], cache)  # the prompt at once
        steps = [model.forward_step(tokens[:, t : t + 1], cache) for t in range(5, 12)]
    assert_close(torch.cat([first, *steps], dim=1), full, atol=1e-5, rtol=1e-5)
    assert cache.length == 12
    # 2 (keys, values) x blocks x (B, H, L, Dh) float32 numbers
    assert kv_cache_bytes(cache) == 2 * SMALL.num_layers * 3 * 12 * SMALL.d_model * 4


def test_positions_past_max_len_are_refused(model):
    with pytest.raises(ValueError, match="max_len=48"):
        model(torch.zeros(1, 49, dtype=torch.long))
    cache = KVCache()
    with torch.no_grad():
        model.forward_step(torch.zeros(1, 48, dtype=torch.long), cache)
        with pytest.raises(ValueError, match="49 positions"):
            model.forward_step(torch.zeros(1, 1, dtype=torch.long), cache)


def test_cross_attention_pattern_is_the_target_rows_and_source_columns(model, vocab):
    src, tgt = ids_of(vocab, "i am thin."), ids_of(vocab, "sou magro.") + [EOS_ID]
    pattern = cross_attention_pattern(model, src, tgt)
    S, T = len(src), len(tgt)
    assert pattern.shape == (SMALL.num_layers, SMALL.num_heads, T, S)
    with torch.no_grad():
        _, weights = model(torch.tensor([src + [BOS_ID] + tgt[:-1]]), need_weights=True)
    assert_close(pattern[-1], weights[-1][0, :, S : S + T, :S])
    assert (pattern.sum(-1) <= 1 + 1e-6).all()  # the rest went to <sep> and the Portuguese before


# --- decoding and translating ---------------------------------------------------------------------


def test_generate_with_and_without_cache_and_sampling_rules(model, vocab):
    prompts = torch.tensor(
        [ids_of(vocab, "you are thin") + [BOS_ID], ids_of(vocab, "she is tired") + [BOS_ID]]
    )
    greedy = generate(model, prompts, 10)
    assert generate(model, prompts, 10, use_cache=False) == greedy
    # top-k 1 is greedy, whatever the temperature
    g = torch.Generator().manual_seed(0)
    assert generate(model, prompts, 10, temperature=0.7, top_k=1, generator=g) == greedy
    # a seed repeats its draws; another seed draws otherwise (an untrained model's flat
    # distribution)
    draws = [
        generate(model, prompts, 10, temperature=2.0, generator=torch.Generator().manual_seed(s))
        for s in (3, 3, 4)
    ]
    assert draws[0] == draws[1] and draws[0] != draws[2]
    for row in greedy + draws[0]:
        assert len(row) <= 10  # the budget
        assert all(row[i] != row[i + 1] or row[i] != row[i + 2] for i in range(len(row) - 2)), row
    with pytest.raises(ValueError, match="give a temperature"):
        generate(model, prompts, 10, top_k=3)
    # each row its own budget
    short, long = generate(model, prompts, torch.tensor([2, 9]), max_run=None, no_repeat_ngram=None)
    assert len(short) <= 2 and len(long) <= 9


def test_filter_logits_follows_chapter_10():
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    kept = lambda z: torch.isfinite(z)[0].tolist()  # noqa: E731
    assert kept(filter_logits(logits, top_k=2)) == [True, True, False, False]
    assert kept(filter_logits(logits, top_p=0.8)) == [
        True,
        True,
        False,
        False,
    ]  # 0.5 + 0.3 reaches 0.8
    assert kept(filter_logits(logits, top_p=0.81)) == [True, True, True, False]
    assert kept(filter_logits(logits, top_p=0.1)) == [
        True,
        False,
        False,
        False,
    ]  # the best always stays
    assert_close(filter_logits(logits, temperature=0.5), logits / 0.5)
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="temperature"):
            filter_logits(logits, temperature=bad)
    with pytest.raises(ValueError, match="top_p"):
        filter_logits(logits, top_p=1.5)
    with pytest.raises(ValueError, match="top_k"):
        filter_logits(logits, top_k=0)


def test_translate_guards_and_errors(model):
    assert isinstance(translate("you are thin", model), str)
    assert len(translate(["you are thin", "she is tired!"], model)) == 2
    with pytest.raises(ValueError, match=r"sentences\[1\] is a int"):
        translate(["you are thin", 3], model)
    # nothing to translate is an empty translation, as the translator gives (issue 36): one
    # blank line in a list no longer stops the others
    assert translate(["   ", "?!", "you are thin"], model)[:2] == ["", ""]
    assert translate("", model) == ""
    long = " ".join(["thin"] * 24)
    with pytest.raises(
        ValueError, match=r"24 tokens.*max_len=48.*at most 23 \(GPTConfig.max_source_len\)"
    ):
        translate(long, model)
    with pytest.raises(ValueError, match="none of its words"):
        translate("der Hund schläft", model)
    with pytest.raises(ValueError, match="sentences is None"):
        translate(None, model)
    with pytest.raises(ValueError, match="needs a GPT"):
        translate("you are thin", build_translator(PRESETS["tiny"], model.vocab, model.vocab))
    assert translate(["you are thin", 3, "  "], model, skip_errors=True)[1:] == ["", ""]


def test_a_translation_stays_within_its_budget(model, vocab):
    """An untrained model rarely writes <eos>: its translations stop at 2 S + 5 tokens, or where the
    positions end.
    """
    word = next(t for t in vocab.tokens[4:] if t.isalpha())  # a word the model knows
    for sentence in (word, "you are thin", " ".join([word] * 23)):
        S = len(tokenize(sentence))
        out = translate(sentence, model, no_repeat_ngram=None, max_run=None)
        assert len(tokenize(out)) <= output_budget(S, SMALL.max_len - S)
        assert len(tokenize(out)) <= SMALL.max_len - S - 1
    assert len(tokenize(translate("you are thin", model, max_len=2))) <= 2


def test_load_pretrained_says_how_to_make_a_missing_checkpoint(monkeypatch, tmp_path):
    monkeypatch.setattr(gpt_files, "PRETRAINED_GPT_PATH", tmp_path / "gpt.pt")
    monkeypatch.setattr(gpt_files, "PRETRAINED_GPT_WORDS_PATH", tmp_path / "gpt_words.pt")
    with pytest.raises(
        FileNotFoundError, match="GPT translator is missing.*train --model gpt --preset pretrained"
    ):
        gpt_files.load_pretrained()
    with pytest.raises(FileNotFoundError, match="train --model gpt --preset words"):
        gpt_files.load_pretrained("words")
    with pytest.raises(FileNotFoundError, match="is missing"):
        translate("you are thin")
    with pytest.raises(ValueError, match="tokens must be one of \\['bpe', 'words'\\].*'word'"):
        gpt_files.load_pretrained("word")


# --- training through the translator's loop, and the files ----------------------------------------


@pytest.fixture(scope="module")
def trained(pairs, vocab):
    """A tiny GPT trained for 200 steps on ~50 pairs: it learns them by heart (about 10 s on one
    core).
    """
    config = GPTConfig(
        d_model=64, num_heads=4, d_ff=128, num_layers=2, dropout=0.0, max_len=48, lr=3e-3,
        warmup_steps=20, epochs=100, batch_size=25, label_smoothing=0.0,
    )  # fmt: skip
    return train_gpt(config, pairs, pairs[:10], vocab=vocab, progress=False, log=lambda *a: None)


def test_a_tiny_gpt_learns_its_pairs_by_heart(trained, pairs):
    assert trained.history["train"]["step"][-1] == 200
    assert trained.history["train"]["loss"][-1] < 0.05
    english = [e for e, _ in pairs]
    assert translate(english, trained.model) == [tokenize_join(p) for _, p in pairs]
    # the cache changes nothing but the speed
    assert translate(english[:10], trained.model, use_cache=False) == [
        tokenize_join(p) for _, p in pairs[:10]
    ]


def tokenize_join(text):
    from tutorlib.translation.data import detokenize

    return detokenize(tokenize(text))


def test_an_unknown_word_is_copied_where_the_model_writes_unk(trained, pairs, monkeypatch):
    """Where the model writes <unk>, the unknown source word (as typed) that the <unk>'s step read
    most.
    """
    model = trained.model
    typed = tokenize("Zorbatrix and Quillon are", lower=False)
    src = model.vocab.encode([t.lower() for t in typed], warn_unknown=False)
    assert src.count(UNK_ID) == 2
    hyp = model.vocab.encode(tokenize("você é"), warn_unknown=False) + [UNK_ID]
    weights = cross_attention_pattern(model, src, hyp)[-1].mean(dim=0)  # (T, S)
    read_most = typed[[0, 2][int(weights[-1, [0, 2]].argmax())]]
    text = gpt_decoding._with_copies(model, typed, src, hyp)
    assert text.split()[-1] == read_most and "<unk>" not in text
    # the choice follows the pattern: a pattern that reads the second unknown word copies it
    for j in (0, 2):
        crafted = torch.zeros(SMALL.num_layers, SMALL.num_heads, len(hyp), len(src))
        crafted[:, :, -1, j] = 0.9

        def fake_pattern(m, s, h, crafted=crafted):
            return crafted

        monkeypatch.setattr(gpt_decoding, "cross_attention_pattern", fake_pattern)
        assert gpt_decoding._with_copies(model, typed, src, hyp).split()[-1] == typed[j]
    # nothing unknown in the source: an output <unk> is dropped, not written
    known = ids_of(model.vocab, pairs[0][0])
    assert "<unk>" not in gpt_decoding._with_copies(model, tokenize(pairs[0][0]), known, hyp)


def test_save_and_load_round_trip(trained, tmp_path, vocab):
    model = trained.model
    path = save_gpt(model, tmp_path / "gpt.pt", note="test")
    loaded = load_gpt(path)
    assert isinstance(loaded, GPT) and not loaded.training
    assert loaded.config == model.config and loaded.vocab == model.vocab
    tokens = torch.tensor([ids_of(vocab, "you are thin") + [BOS_ID]])
    with torch.no_grad():
        assert_close(loaded(tokens), model(tokens), atol=0, rtol=0)
    assert loaded.generator.weight is loaded.embed.weight  # still tied after loading
    # the translator's own loader reads it too, and says which kind it holds
    assert isinstance(load_checkpoint(path)[0], GPT)
    translator = build_translator(PRESETS["tiny"], vocab, vocab)
    save_model(translator, tmp_path / "translator.pt")
    with pytest.raises(CheckpointError, match="holds a Translator, not a GPT"):
        load_gpt(tmp_path / "translator.pt")
    assert isinstance(load_checkpoint(tmp_path / "translator.pt")[0], Translator)
    with pytest.raises(ValueError, match="saves a GPT"):
        save_gpt(translator, tmp_path / "x.pt")


def test_a_missing_gpt_checkpoint_names_the_gpt_and_where_it_looked(tmp_path, monkeypatch):
    """It said "no translator checkpoint" (issue 36, item 8)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as info:
        load_gpt("runs/gpt.pt")
    message = str(info.value)
    assert message.startswith(f"no GPT checkpoint at runs/gpt.pt ({tmp_path / 'runs/gpt.pt'})")
    assert "translator.pt" in message and "--model gpt" in message


@pytest.mark.parametrize("cut", [100, 0.5])
def test_a_truncated_gpt_checkpoint_says_truncated_and_how_to_remake_it(trained, tmp_path, cut):
    """torch's own message was quoted cut mid-sentence ("... your checkpoint file is")."""
    path = save_gpt(trained.model, tmp_path / "gpt.pt")
    data = path.read_bytes()
    path.write_bytes(data[: cut if isinstance(cut, int) else int(len(data) * cut)])
    with pytest.raises(CheckpointError) as info:
        load_gpt(path)
    message = str(info.value)
    assert f"{path} cannot be read as a checkpoint: it is truncated" in message, message
    assert "python -m tutorlib train" in message and "miniz" not in message


def test_an_empty_gpt_checkpoint_says_the_file_is_empty(tmp_path):
    """It said "(EOFError: )"."""
    (tmp_path / "gpt.pt").write_bytes(b"")
    with pytest.raises(CheckpointError) as info:
        load_gpt(tmp_path / "gpt.pt")
    assert "the file is empty (0 bytes)" in str(info.value) and "EOFError" not in str(info.value)


def test_the_translators_translate_says_a_gpt_has_its_own(model):
    """It raised a bare TypeError from inside the tokenizer (or an AttributeError)."""
    for call in (translator_translate, translator_translate_sentences):
        with pytest.raises(ValueError, match=r"got a GPT: .*tutorlib\.gpt\.translate"):
            call("the cat", model)


def test_a_tuple_from_load_pretrained_says_to_pass_the_model_alone(model):
    """``translate(text, load_pretrained())`` passes the translator's (model, src_vocab,
    tgt_vocab): both decoders said only "got a tuple"."""
    triple = (build_translator(PRESETS["tiny"], model.vocab, model.vocab), model.vocab, model.vocab)
    with pytest.raises(ValueError) as info:
        translator_translate("the cat", triple)
    message = str(info.value)
    assert "got a tuple of 3 (Translator, Vocab, Vocab)" in message, message
    assert "pass the model alone, its first item" in message, message
    with pytest.raises(ValueError) as info:  # its first item would not do either: not said
        translate("the cat", triple)
    message = str(info.value)
    assert "got a tuple of 3 (Translator, Vocab, Vocab);" in message, message
    assert "pass the model alone" not in message, message
    assert "translates with tutorlib.translator.translate" in message, message
    for call in (translator_translate, translate):  # a path where its model was meant
        with pytest.raises(ValueError, match=r"got a str \('runs/a.pt', a file name\?\): load"):
            call("the cat", "runs/a.pt")
    with pytest.raises(ValueError) as info:  # anything else names its type alone
        translator_translate("the cat", 3)
    assert str(info.value).endswith("got an int")


def test_training_resumes_to_the_same_weights(pairs, vocab, tmp_path):
    """train()'s checkpoints hold a GPT too: stopped at step 3 and resumed, it ends where an
    uninterrupted run does.
    """
    config = GPTConfig(
        d_model=16, num_heads=2, d_ff=32, num_layers=1, dropout=0.1, max_len=48,
        epochs=2, batch_size=16,
    )  # fmt: skip
    quiet = dict(vocab=vocab, progress=False, log=lambda *a: None)
    straight = train_gpt(config, pairs, pairs[:8], **quiet)
    train_gpt(config, pairs, pairs[:8], tmp_path, max_steps=3, **quiet)
    resumed = train_gpt(None, pairs, pairs[:8], tmp_path, resume=True, **quiet)
    for (name, a), b in zip(
        straight.model.state_dict().items(), resumed.model.state_dict().values()
    ):
        assert torch.equal(a, b), name
    assert resumed.history["train"]["loss"] == straight.history["train"]["loss"]
    other = GPTConfig(**{**config.to_dict(), "d_ff": 48})
    with pytest.raises(CheckpointError, match="another config"):
        train_gpt(other, pairs, pairs[:8], tmp_path, resume=True, **quiet)


def test_train_gpt_refuses_pairs_that_do_not_fit(pairs):
    with pytest.raises(ValueError, match="do not fit max_len=8"):
        train_gpt(GPTConfig(max_len=8), pairs, pairs[:5], progress=False)
    with pytest.raises(ValueError, match="needs a GPTConfig"):
        train_gpt(PRESETS["tiny"], pairs, pairs[:5], progress=False)


def test_prompt_loss_trains_on_more_tokens(pairs, vocab):
    """With the prompt in the loss the same steps average over more positions: a different run."""
    config = GPTConfig(
        d_model=16, num_heads=2, d_ff=32, num_layers=1, dropout=0.0, epochs=1, batch_size=25
    )
    quiet = dict(vocab=vocab, progress=False, log=lambda *a: None)
    a = train_gpt(config, pairs, pairs[:5], **quiet).history["train"]["loss"]
    b = train_gpt(config, pairs, pairs[:5], prompt_loss=True, **quiet).history["train"]["loss"]
    assert a != b


def test_word_tokenizer_is_the_interface(vocab, pairs):
    tok = WordTokenizer(vocab)
    assert (tok.pad_id, tok.sep_id, tok.eos_id) == (PAD_ID, BOS_ID, EOS_ID)
    english = next(e for e, _ in pairs if UNK_ID not in ids_of(vocab, e))
    assert tok.decode(tok.encode(english.upper())) == tokenize_join(english)
    assert tok.pieces("You are Zé.") == ["You", "are", "Zé", "."]
    assert len(tok) == len(vocab)
    with pytest.raises(ValueError, match="wraps a Vocab"):
        WordTokenizer(["a"])


# --- the command line -----------------------------------------------------------------------------


def test_cli_translates_with_a_gpt_checkpoint(trained, tmp_path, capsys, monkeypatch):
    path = save_gpt(trained.model, tmp_path / "gpt.pt")
    english, portuguese = phrasebook("train")[:: len(phrasebook("train")) // 50][1]
    assert main(["translate", "--model", "gpt", "--checkpoint", str(path), english]) == 0
    assert capsys.readouterr().out.strip() == tokenize_join(portuguese)
    # the file's kind decides; a wrong --model is named
    assert (
        main(["translate", "--checkpoint", str(path), "--temperature", "1", "--seed", "2", english])
        == 0
    )
    capsys.readouterr()
    assert main(["translate", "--model", "translator", "--checkpoint", str(path), english]) == 1
    assert "holds a gpt model, not a translator" in capsys.readouterr().err
    assert main(["translate", "--checkpoint", str(path), " ".join(["thin"] * 30)]) == 1
    assert "at most 23" in capsys.readouterr().err
    assert main(["translate", "--checkpoint", str(path), "--top-k", "3", english]) == 1
    assert "give --temperature too" in capsys.readouterr().err
    monkeypatch.setattr(gpt_files, "PRETRAINED_GPT_PATH", tmp_path / "missing.pt")
    assert main(["translate", "--model", "gpt", english]) == 1
    assert "the shipped GPT translator is missing" in capsys.readouterr().err


def test_cli_init_goes_on_training_a_model_from_its_file(trained, tmp_path, capsys):
    """``train --init FILE`` (the shipped GPT's second stage): the file's weights, tokens and
    shape, a fresh schedule from the command line's options; the first loss is the trained
    model's, not a new one's."""
    import json

    path = save_gpt(trained.model, tmp_path / "gpt.pt")
    out = tmp_path / "again"
    options = ["--train-pairs", "50", "--batch-size", "25", "--no-eval", "--no-progress"]
    args = ["train", "--model", "gpt", "--init", str(path), "--epochs", "1", "--lr", "1e-4"]
    assert main([*args, "--warmup-steps", "0", "--out", str(out), *options]) == 0
    capsys.readouterr()
    first = json.loads((out / "history.json").read_text())["train"]["loss"][0]
    assert first < 1.0, first  # it knows its 50 pairs by heart; a fresh GPT starts near 5
    again = load_gpt(out)
    assert again.config.epochs == 1 and again.config.lr == 1e-4
    assert dataclasses.replace(
        again.config, epochs=100, lr=3e-3, warmup_steps=20, batch_size=25
    ) == (trained.model.config)
    assert again.vocab.to_dict() == trained.model.vocab.to_dict()
    before, after = trained.model.state_dict(), again.state_dict()
    assert any(not torch.equal(before[k], after[k].to(before[k].device)) for k in before)
    # what it refuses, before any training, in one line each
    cases = [
        (["--preset", "words"], "leave out --preset words"),
        (["--d-model", "32"], "--d-model: --init"),
        (["--bpe-vocab-size", "512"], "--bpe-vocab-size: --init"),
        (["--resume"], "--resume goes on with OUT's own"),
        (["--num-encoder-layers", "2"], "--num-encoder-layers: not an option of the gpt's"),
    ]
    for extra, message in cases:
        assert main([*args, "--out", str(tmp_path / "x"), *extra, *options]) == 1, extra
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (extra, err)
    assert main(["train", "--init", str(path), "--out", str(tmp_path / "x"), *options]) == 1
    assert "holds a gpt model, not a translator: give --model gpt" in capsys.readouterr().err
    assert main(["train", "--model", "gpt", "--draw", "1", "--out", str(tmp_path / "x")]) == 1
    assert "give --names real with it" in capsys.readouterr().err
    data = tmp_path / "pairs.tsv"
    data.write_text("I run.\tEu corro.\n")
    assert main(["train", "--names", "real", "--draw", "1", "--data", str(data)]) == 1
    assert "and no --data" in capsys.readouterr().err
    assert main(["train", "--model", "gpt", "--relations", "--data", str(data)]) == 1
    assert "--relations adds the phrasebook's sentences" in capsys.readouterr().err


def test_the_shipped_gpts_commands_parse_and_chain(monkeypatch):
    """Each stage of ``PRETRAINED_GPT_COMMANDS`` is a command the CLI accepts, each later stage
    starts from the one before it (``--init`` its ``--out``) on a new draw, and the file copied
    into the package is the last stage's."""
    import shlex

    from tutorlib.translation import cli

    seen = []
    monkeypatch.setattr(cli, "cmd_train", lambda args: seen.append(args) or 0)
    for kind, command in gpt_files.PRETRAINED_GPT_COMMANDS.items():
        seen.clear()
        *stages, copy = command.split(" && ")
        for stage in stages:
            words = shlex.split(stage)
            assert words[:3] == ["python", "-m", "tutorlib"], stage
            assert cli.main(words[3:]) == 0, stage
        assert [a.model for a in seen] == ["gpt"] * len(seen)
        for before, after in zip(seen, seen[1:]):
            assert after.init == f"{before.out}/translator.pt" and after.draw > before.draw
        # the GPT on BPE adds the relation sentences from its stage on RELATION_DRAW; the GPT on
        # words has them in its one stage (a gendered vocabulary: cli._gendered_vocabs)
        assert [a.relations for a in seen] == [
            kind == "words" or (a.draw or 0) >= gpt_files.RELATION_DRAW for a in seen
        ]
        assert copy == f"cp {seen[-1].out}/translator.pt tutorlib/pretrained/" + (
            "gpt.pt" if kind == "bpe" else "gpt_words.pt"
        )
    assert len(seen) == 1 and seen[0].preset == "words"  # the words GPT: one stage


def test_cli_draw_changes_the_training_pairs_only():
    """``--draw`` trains on another draw of the names; validation and test stay the ones every
    model is measured on."""
    import argparse

    from tutorlib.translation import cli

    args = argparse.Namespace(data=None, names="real", draw=1)
    assert cli._pairs(args, "train") == phrasebook("train", names="real", draw=1)
    assert cli._pairs(args, "train") != phrasebook("train", names="real")
    for split in ("valid", "test"):
        assert cli._pairs(args, split) == phrasebook(split, names="real")
    # --relations adds the sentences with a relation before a name to training alone
    args = argparse.Namespace(data=None, names="real", draw=1, relations=True)
    assert cli._pairs(args, "train") == phrasebook("train", names="real", draw=1, relations=True)
    assert len(cli._pairs(args, "train")) > len(phrasebook("train", names="real", draw=1))
    for split in ("valid", "test"):
        assert cli._pairs(args, split) == phrasebook(split, names="real")


def test_relations_give_a_word_model_names_with_a_gender(monkeypatch):
    """``--relations`` with made-up names adds the relations before real names too (a made-up
    name says no gender), and a word model gets a gendered vocabulary with no real name in it
    (``build_vocabs(..., gendered=True)``): a real name seen twice would otherwise be a word,
    and an unseen one an ``<unk>`` whose gender the model cannot read. A GPT on BPE reads
    letters: its vocabulary is its own."""
    import argparse

    from tutorlib.translation import cli
    from tutorlib.translation.phrasebook.splits import name_words, relation_pairs

    args = argparse.Namespace(data=None, names=None, draw=0, relations=True)
    pairs = cli._pairs(args, "train")
    assert pairs == phrasebook("train", relations=True) + list(relation_pairs("train", "real"))
    assert cli._pairs(args, "valid") == phrasebook("valid")
    for model, config, want in [
        (None, PRESETS["pretrained"], "src_vocab"),
        ("gpt", GPT_PRESETS["words"], "vocab"),
    ]:
        got = cli._gendered_vocabs(argparse.Namespace(model=model), config, pairs)
        vocab = got[want]
        # no name word of both languages: the joint table has Portuguese words that are
        # English names ("ela" is "she")
        assert vocab.gendered and not set(vocab.tokens) & name_words("en") & name_words("pt")
        assert not any(t[0].isdigit() for t in vocab.tokens), "a number is copied, not a word"
        with pytest.warns(UserWarning, match="mapped to <unk>, <unk:f> or <unk:m>: 'maria'"):
            assert vocab.encode(["maria", "kwame"]) == [len(vocab) - 2, len(vocab) - 1]
        assert "amiga" in got.get("tgt_vocab", vocab), "the feminine relations are words"
        assert "friend" in vocab and "ana" not in got.get("tgt_vocab", vocab)
        # the phrasebook's own words stay, though names have them ("Ana da Silva")
        assert "da" in got.get("tgt_vocab", vocab) and "da" not in got.get("src_vocab", {"x"})
        plain = build_vocabs(phrasebook("train"))[0] if model is None else None
        if plain is not None:  # the source: the plain one's words and the two gendered unknowns
            assert set(vocab.tokens) == set(plain.tokens) | {UNK_F, UNK_M}
            assert vocab.tokens[-2:] == [UNK_F, UNK_M]
    bpe = GPT_PRESETS["pretrained"]
    assert cli._gendered_vocabs(argparse.Namespace(model="gpt"), bpe, pairs) == {}


def test_a_gendered_unknown_copies_a_source_word_of_its_kind(monkeypatch):
    """In the GPT's one table an output ``<unk:m>`` copies a source ``<unk:m>`` and an
    ``<unk>`` a source ``<unk>``, even where the attention points the other way ("Lena and
    Tomas": "Lena" is of no known gender, "Tomas" a man's name); with no source word of its kind
    it falls back on every unknown word. A copy that ignores the kinds writes "Lena" twice."""
    from types import SimpleNamespace

    from tutorlib.translation.gpt.tokens import WordTokenizer

    vocab = Vocab.build([["and", "are", "tired", ".", "e", "está", "cansado"]], gendered=True)
    f, m = len(vocab) - 2, len(vocab) - 1
    model = SimpleNamespace(tokenizer=WordTokenizer(vocab), vocab=vocab)
    typed = ["Lena", "and", "Tomas", "are", "tired", "."]
    src = vocab.encode([t.lower() for t in typed], warn_unknown=False)
    assert src[0] == UNK_ID and src[2] == m
    hyp = [UNK_ID, m, vocab.token_to_id("está")]
    # every output step attends to "Lena" most: the kinds alone must tell the names apart
    weights = torch.zeros(1, 1, len(hyp), len(src))
    weights[..., 0] = 1.0
    monkeypatch.setattr(gpt_decoding, "cross_attention_pattern", lambda *a: weights)
    assert gpt_decoding._with_copies(model, typed, src, hyp) == "Lena Tomas está"
    # an <unk:f> with no woman's name in the source takes the strongest unknown word
    assert gpt_decoding._with_copies(model, typed, src, [f]) == "Lena"
    # two outputs of one kind: the second takes the word not copied yet ("Lena Tomas", not
    # "Lena Lena"), though both steps attend to "Lena" most
    assert gpt_decoding._with_copies(model, typed, src, [UNK_ID, UNK_ID]) == "Lena Tomas"


def test_the_gpt_copies_a_name_of_two_words_in_order(monkeypatch):
    """A run of two <unk> for "Pedro Miguel" whose first step reads "Miguel" most: the GPT on
    words wrote *Miguel Pedro* before its copy took names whole (copying.copy_positions)."""
    from types import SimpleNamespace

    from tutorlib.translation.gpt.tokens import WordTokenizer

    vocab = Vocab.build([["is", "tired", ".", "está", "cansado"]], gendered=True)
    model = SimpleNamespace(tokenizer=WordTokenizer(vocab), vocab=vocab)
    typed = ["Pedro", "Miguel", "is", "tired", "."]
    src = vocab.encode([t.lower() for t in typed], warn_unknown=False)
    hyp = [src[0], src[1], vocab.token_to_id("está")]
    assert hyp[0] in vocab.unknown_ids and hyp[1] in vocab.unknown_ids
    weights = torch.zeros(1, 1, len(hyp), len(src))
    weights[0, 0, 0, 1], weights[0, 0, 1, 0] = 1.0, 1.0  # each step reads the other word most
    monkeypatch.setattr(gpt_decoding, "cross_attention_pattern", lambda *a: weights)
    assert gpt_decoding._with_copies(model, typed, src, hyp) == "Pedro Miguel está"


def test_the_resume_hint_repeats_relations(monkeypatch):
    """A run with ``--relations`` interrupted goes on with them: the checkpoint does not hold
    which pairs it trained on."""
    from tutorlib.translation import cli

    seen = []
    monkeypatch.setattr(cli, "cmd_train", lambda args: seen.append(args) or 0)
    base = ["train", "--model", "gpt", "--names", "real", "--out", "runs/x"]
    assert cli.main([*base, "--draw", "3", "--relations"]) == 0
    assert cli._resume_command(seen[-1]).endswith("--names real --draw 3 --relations")
    assert cli.main(base) == 0
    assert "--relations" not in cli._resume_command(seen[-1])


def test_cli_options_belong_to_their_model(capsys):
    assert main(["translate", "--temperature", "0.5", "I am happy"]) == 1
    assert "sampling is an option of the GPT" in capsys.readouterr().err
    assert main(["train", "--num-layers", "3"]) == 1
    assert "--num-layers: not an option of the translator" in capsys.readouterr().err
    assert main(["train", "--model", "gpt", "--num-encoder-layers", "2"]) == 1
    assert "not an option of the gpt" in capsys.readouterr().err
    assert main(["train", "--model", "gpt", "--preset", "wide"]) == 1
    assert "not a preset of the gpt" in capsys.readouterr().err


# --- the GPT on chapter 14's BPE tokens ----------------------------------------------------------


@pytest.fixture(scope="module")
def subword(pairs):
    return gpt_module.SubwordTokenizer.train([t for pair in pairs for t in pair], 300)


def test_subword_tokenizer_round_trips_any_text_and_hides_its_specials(subword):
    for text in ["suvotu caught 6761 keys.", "Zoë's café 🙂", "<sep> typed by a learner", ""]:
        ids = subword.encode(text)
        assert subword.decode(ids) == text
        assert subword.sep_id not in ids  # a typed "<sep>" stays text
    ids = subword.encode("you are thin")
    assert subword.decode([*ids, subword.sep_id, *ids, subword.eos_id, subword.pad_id]) == (
        "you are thinyou are thin"
    )
    assert len(subword) == 300 and {subword.pad_id, subword.sep_id, subword.eos_id} == {
        297,
        298,
        299,
    }
    assert subword.normalize("  Suvotu caught  seven keys .") == "suvotu caught seven keys."
    with pytest.raises(ValueError, match="wraps a tutorlib.tokenizers.BPE, got Vocab"):
        gpt_module.SubwordTokenizer(joint_vocab(phrasebook("train")[:20], min_freq=1))
    from tutorlib.tokenizers import BPE

    with pytest.raises(ValueError, match="needs the special tokens"):
        gpt_module.SubwordTokenizer(BPE.train(["a b"], 260))


def test_subword_tokenizer_is_stored_and_read_back_by_the_checkpoints(subword):
    from tutorlib.translation.checkpoints import vocab_from_dict

    d = subword.to_dict()
    assert d["type"] == "bpe"
    back = vocab_from_dict(d)
    assert isinstance(back, gpt_module.SubwordTokenizer) and back == subword
    assert back.encode("you are thin") == subword.encode("you are thin")
    assert vocab_from_dict({"tokens": ["<pad>", "<bos>", "<eos>", "<unk>", "a"]}) == (
        Vocab(["<pad>", "<bos>", "<eos>", "<unk>", "a"])
    )
    with pytest.raises(ValueError, match="type 'bpe' and its merges"):
        gpt_module.SubwordTokenizer.from_dict({"type": "bpe"})


def test_make_gpt_batches_lays_out_the_tokenizers_ids(pairs, subword):
    batches = gpt_module.make_gpt_batches(pairs, subword, 8, shuffle=True, seed=3)
    again = gpt_module.make_gpt_batches(pairs, subword, 8, shuffle=True, seed=3)
    assert all(torch.equal(a.tokens, b.tokens) for a, b in zip(batches, again))
    assert sum(len(b) for b in batches) == len(pairs)
    by_source = {tuple(subword.encode(e)): subword.encode(p) for e, p in pairs}
    seen = 0
    for b in batches:
        for row in range(len(b)):
            S = int(b.src_lengths[row])
            src = b.tokens[row, :S].tolist()
            tgt = by_source[tuple(src)]
            n = S + 1 + len(tgt)  # positions read: the source, <sep>, the target
            assert b.tokens[row, S] == subword.sep_id
            assert b.tokens[row, S + 1 : n].tolist() == tgt
            assert b.targets[row, n - 1] == subword.eos_id
            assert b.loss_mask[row].nonzero().flatten().tolist() == list(range(S, n))
            assert (b.tokens[row, n:] == subword.pad_id).all()
            seen += 1
    assert seen == len(pairs)
    unshuffled = gpt_module.make_gpt_batches(pairs[:5], subword, 2, shuffle=False)
    first = subword.encode(pairs[0][0])
    assert unshuffled[0].tokens[0, : len(first)].tolist() == first
    lengths = sorted(len(subword.encode(e)) + 1 + len(subword.encode(p)) for e, p in pairs)
    middle = lengths[len(lengths) // 2]
    with pytest.warns(UserWarning, match=f"left out.*max_len={middle}"):
        kept = gpt_module.make_gpt_batches(pairs, subword, 8, max_len=middle)
    assert sum(len(b) for b in kept) == sum(n <= middle for n in lengths)
    assert all(b.tokens.shape[1] <= middle for b in kept)  # <eos> is predicted, never read
    with pytest.raises(ValueError, match=r"pairs\[1\] must be a \(source, target\) pair"):
        gpt_module.make_gpt_batches([pairs[0], ("only one",)], subword, 8)


@pytest.mark.slow  # trains a GPT on BPE tokens until it knows its pairs (about 8 s)
def test_a_gpt_on_bpe_tokens_learns_its_pairs_and_spells_names_back(pairs, subword, tmp_path):
    """train_gpt with bpe_vocab_size trains its SubwordTokenizer and batches; the files keep it."""
    config = GPTConfig(
        d_model=64, num_heads=4, d_ff=128, num_layers=2, dropout=0.0, max_len=128, lr=3e-3,
        warmup_steps=20, epochs=100, batch_size=25, label_smoothing=0.0, bpe_vocab_size=300,
    )  # fmt: skip
    result = train_gpt(config, pairs, pairs[:10], tmp_path, progress=False, log=lambda *a: None)
    model = result.model
    assert model.vocab == subword  # trained on both sides of the pairs, as the fixture's
    assert result.history["train"]["loss"][-1] < 0.05
    english = [e for e, _ in pairs[:20]]
    assert translate(english, model) == [p for _, p in pairs[:20]]
    loaded = load_gpt(tmp_path)
    assert isinstance(loaded.vocab, gpt_module.SubwordTokenizer)
    assert translate(english[:5], loaded) == [p for _, p in pairs[:5]]
    with pytest.raises(ValueError, match="BPE tokens long.*at most 63"):
        translate(" ".join(["strawberries"] * 30), model)


def test_typed_capitals_come_back_on_names_only():
    typed = tokenize("Ana and The Doctor see Suvotu. I do.", lower=False)
    text = gpt_decoding._with_names(typed, "ana e o médico veem suvotu. a ana faz.")
    assert text == "Ana e o médico veem Suvotu. a Ana faz."
    assert gpt_decoding._with_names(tokenize("A cat", lower=False), "a gata") == "a gata"


def test_bpe_vocab_size_below_the_bytes_is_refused():
    with pytest.raises(ValueError, match="bpe_vocab_size=100: a byte-level BPE needs at least 259"):
        GPTConfig(bpe_vocab_size=100)


# --- the shipped GPTs ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped_words():
    return gpt_files.load_pretrained("words")


@pytest.fixture(scope="module")
def shipped_bpe():
    return gpt_files.load_pretrained()


def test_the_words_gpt_guesses_a_name_the_list_lacks_and_says_so(shipped_words, shipped_bpe):
    """As the translator does (copying.guessed_genders, unknown_gender_notice): "Priya" is not
    on the list, its ending reads as a woman's, the words GPT reads it as <unk:f> and writes
    *minha amiga Priya*, and says it guessed; "Oluwaseun" has no guess, stays a plain <unk>
    and takes the masculine, said; "Maria" reads as <unk:f>, nothing said. The GPT on BPE
    reads the name's letters and says nothing of it."""
    sentences = [
        "My friend Priya is tired.",
        "My friend Oluwaseun is tired.",
        "My friend Maria is tired.",
    ]
    for model in (shipped_words, shipped_bpe):
        notices = []
        got = translate(sentences, model, on_notice=lambda i, m, kept=notices: kept.append((i, m)))
        said = {i: m for i, m in notices if "gives no gender" in m}
        if model is shipped_bpe:
            assert said == {}, notices
            continue
        assert got[0].startswith("minha amiga Priya") and got[1].startswith("meu amigo Oluwa")
        assert sorted(said) == [0, 1], notices
        assert "(amiga), a guess from the name's ending" in said[0]
        assert "(amigo), as Portuguese does when the gender is unknown" in said[1]


def test_the_names_a_relation_must_agree_with_are_those_the_list_knows():
    """copying.listed_genders: a listed first name after a relation of one person whose
    Portuguese follows the person, a comma between allowed; not after a plural, a title, a
    relation of its own gender ("sister"), nor a name the list gives no gender."""
    assert listed_genders("i saw my teacher Thandiwe .".split()) == {4: ("f", "teacher")}
    assert listed_genders("My FRIEND kwame and my doctor , Ana , are".split()) == {
        2: ("m", "friend"),
        7: ("f", "doctor"),
    }
    for text in ("my friends Ana", "my friend Dr Ana", "my sister Ana", "my friend Priya"):
        assert listed_genders(text.split()) == {}, text


def test_a_relation_written_in_the_other_gender_is_found_at_its_first_word():
    """gpt.decoding._disagreement: where a translation's relation before a listed name first
    goes against the name's gender (the article, the possessive or the noun), and that word in
    the list's gender; the name looked for right after the relation's noun (not an earlier
    "thandiwe", nor the verb "vi" for a woman named Vi), a final "'s" left out; nothing when it
    agrees or the name is not written as typed."""
    typed = "i like my teacher Thandiwe .".split()
    wanted = {4: ("f", "teacher")}
    cases = {
        "gosto do meu professor thandiwe.": (4, 6, "da"),
        "vi meu professor thandiwe.": (4, 3, "minha"),
        "vi minha professor thandiwe.": (4, 9, "professora"),
        "thandiwe viu meu professor thandiwe.": (4, 13, "minha"),
        "vi meu professor thandiwe's gato.": (4, 3, "minha"),
        "vi minha professora thandiwe.": None,
        "vi meu professor thandie.": None,  # misspelled: not looked for
        "vi meu gato thandiwe.": None,  # no relation before it
    }
    for text, want in cases.items():
        assert gpt_decoding._disagreement(text, typed, wanted, set()) == want, text
    assert gpt_decoding._disagreement("vi meu professor thandiwe.", typed, wanted, {4}) is None
    typed, men = "i saw my friend Kwame .".split(), {4: ("m", "friend")}
    found = gpt_decoding._disagreement("vi minha amiga kwame.", typed, men, set())
    assert found == (4, 3, "meu")
    typed = "i saw my friend Vi .".split()
    assert listed_genders(typed) == {4: ("f", "friend")}  # a name of the list, a verb too
    found = gpt_decoding._disagreement("vi meu amigo vi.", typed, listed_genders(typed), set())
    assert found == (4, 3, "minha")


def test_the_bpe_gpt_writes_a_relation_in_the_gender_the_list_gives(shipped_bpe, monkeypatch):
    """The GPT on BPE reads "Thandiwe" (a woman's name on the list) as a man's from its
    letters; translate holds it to the list, and genders=False leaves its own reading."""
    sentence = "i saw my teacher Thandiwe."
    assert translate(sentence, shipped_bpe, genders=False) == "vi meu professor Thandiwe."
    assert translate(sentence, shipped_bpe) == "vi minha professora Thandiwe."
    assert translate("My friend Maria is tired.", shipped_bpe) == "minha amiga Maria está cansada."
    # two names, each held; a budget that leaves no room for a rewrite keeps the translation
    # (outside the grammar: two relations joined by "and"; the model loses "Kwame", and says so)
    two = "I saw my teacher Thandiwe and my friend Kwame."
    out = translate(two, shipped_bpe, on_notice=lambda i, message: None)
    assert out.startswith("vi minha professora Thandiwe e meu amigo"), out
    typed, src, _ = gpt_decoding._check_sentence(0, sentence, shipped_bpe)
    hyp = shipped_bpe.tokenizer.encode("vi meu professor thandiwe.")
    written = shipped_bpe.tokenizer.encode("vi minha")  # 2 tokens
    assert gpt_decoding._agreeing(shipped_bpe, typed, src, hyp, len(written)) == hyp
    again = gpt_decoding._agreeing(shipped_bpe, typed, src, hyp, len(written) + 1)
    assert again[:-1] == written and len(again) == len(written) + 1  # within its budget
    # sampled: a rewrite draws from a generator of its own, seeded by the call's seed and the
    # sentence's index, so that the other sentences' draws do not depend on it (top_k=1: the
    # greedy words, drawn)
    calls = []

    def spy(model, prompts, budget, **how):
        calls.append((prompts.shape[1], how["generator"]))
        return real(model, prompts, budget, **how)

    real = gpt_decoding.generate
    monkeypatch.setattr(gpt_decoding, "generate", spy)
    drawn = translate(["the cat.", sentence], shipped_bpe, temperature=1.0, top_k=1, seed=5)
    assert drawn[1] == "vi minha professora Thandiwe."
    assert len(calls) == 3 and calls[2][0] > calls[1][0]  # the cat, Thandiwe, the rewrite
    assert calls[0][1] is calls[1][1] and calls[2][1] is not calls[1][1]
    assert calls[2][1].initial_seed() == 5 + 1 + 1


def test_the_shipped_gpts_are_small_and_read_their_tokens(shipped_words, shipped_bpe):
    for path in (gpt_module.PRETRAINED_GPT_PATH, gpt_module.PRETRAINED_GPT_WORDS_PATH):
        assert path.stat().st_size <= 5 * 2**20, path  # as the translator's
    # chapter 13's 1,818 words, the five the relations add (amiga...) and <unk:f>, <unk:m>
    assert isinstance(shipped_words.vocab, Vocab) and len(shipped_words.vocab) == 1825
    assert shipped_words.vocab.gendered
    assert shipped_words.config == dataclasses.replace(GPT_PRESETS["words"], vocab_size=1825)
    # the preset's shape; the training settings of the last stage of its command (--init)
    last = dict(epochs=5, lr=2.5e-4, warmup_steps=50, seed=gpt_files.BPE_LATER_DRAWS[-1])
    last_stage = gpt_files.PRETRAINED_GPT_COMMANDS["bpe"].split(" && ")[-2]
    assert all(f"--{k.replace('_', '-')} {v}" in last_stage
               for k, v in {**last, "lr": gpt_files.BPE_LAST_LR}.items())  # fmt: skip
    assert shipped_bpe.config == dataclasses.replace(
        GPT_PRESETS["pretrained"], vocab_size=2048, **last
    )
    assert isinstance(shipped_bpe.vocab, gpt_module.SubwordTokenizer)
    assert len(shipped_bpe.vocab) == shipped_bpe.config.bpe_vocab_size == 2048
    assert not shipped_bpe.training and not shipped_words.training


@pytest.mark.parametrize(
    "english, portuguese",
    [
        ("I am happy", "sou feliz"),
        ("she is tired.", "ela está cansada."),
        ("the black cats", "os gatos pretos"),
        ("he does not eat.", "ele não come."),
    ],
)
def test_the_shipped_gpts_translate_the_core_sentences(
    shipped_words, shipped_bpe, english, portuguese
):
    assert translate(english, shipped_words) == portuguese
    assert translate(english, shipped_bpe) == portuguese


def test_the_shipped_bpe_gpt_spells_out_names_it_never_saw(shipped_bpe, shipped_words):
    """No <unk> and no copy trick: the name's pieces are written out, and its capitals come back
    (names made of syllables like the phrasebook's: chapter 14 shows where it stops)."""
    for english, name in [
        ("Kalani is happy.", "Kalani"),
        ("did mizana clean two small rooms yesterday?", "mizana"),
        ("the cat does not touch 7029 busy teachers", "7029"),
    ]:
        out = translate(english, shipped_bpe)
        assert name in out.split() or name + "." in out.split(), (english, out)
    # the words model writes <unk> for it; only the copy trick puts it back
    src = shipped_words.tokenizer.encode("kalani is happy.")
    assert UNK_ID in src


def test_cli_translates_with_the_shipped_gpt(capsys):
    assert main(["translate", "--model", "gpt", "Zoë is happy."]) == 0
    assert capsys.readouterr().out.strip() == "Zoë é feliz."


def test_translate_takes_a_text_sentence_by_sentence_as_the_translator_does(model):
    # "Thank you. Goodbye." kept only its first sentence, and "tired.she" lost half the line
    # (issue 36): each sentence is translated alone and the translations joined
    one, two = "you are thin.", "she is tired!"
    apart = translate([one, two], model)
    assert translate(f"{one} {two}", model) == " ".join(apart)
    assert translate(f"{one}{two}", model) == " ".join(apart)  # no space after the full stop
    assert translate([f"{one} {two}", one], model) == [" ".join(apart), apart[0]]
    # an error in one sentence of a text is the text's, naming the text's index
    with pytest.raises(ValueError, match=r"sentences\[1\]"):
        translate([one, f"{two} {' '.join(['thin'] * 40)}."], model)
    assert translate([one, f"{two} {' '.join(['thin'] * 40)}."], model, skip_errors=True)[1] == ""


@pytest.mark.parametrize(
    "sentence, message",
    [
        ("Привет, как дела?", "none of its words are English words the model learned"),
        ("🙂 🙂", "none of its words are English words the model learned"),
        ("a casa é grande", "looks Portuguese, not English: 4 of its 4 words"),
        ("eu gosto do gato.", "looks Portuguese, not English"),
    ],
)
def test_a_gpt_refuses_what_is_not_english_as_the_translator_does(sentence, message, model):
    # a GPT on BPE tokens has a token for any text, and one on words a vocabulary of both
    # languages: without this, each wrote fluent nonsense for these (issue 36)
    from tutorlib.translation.gpt import decoding as gpt_decoding

    words = [w.lower() for w in tokenize(sentence, lower=False)]
    with pytest.raises(ValueError, match=message):
        gpt_decoding._check_language(0, words)
    gpt_decoding._check_language(0, tokenize("Oluwaseun was hungry."))  # a name and English
    gpt_decoding._check_language(0, tokenize("a girl sees a dog"))  # "a" is both: English
    with pytest.raises(ValueError, match="looks Portuguese"):  # translate() asks it too
        translate(["the red car", "a casa é grande"], model)


def test_the_guard_lets_through_a_repeat_the_source_holds(shipped_bpe):
    """A run of one token is a loop to the repetition guard, unless the source has it: the BPE
    GPT reads "250000" as " 2", "50" and three "0", and a guard blind to the source cut the
    copy at two ("25000")."""
    from tutorlib.translation.guards import guard, source_continuations

    written = torch.tensor([[4, 5, 0, 0]])  # <sep> 4, then 5 0 0 written
    allowed = source_continuations(written[:, 1:], torch.tensor([[9, 5, 0, 0, 0, 7]]), 10, 3)
    assert allowed[0].nonzero().flatten().tolist() == [0]  # "5 0 0" then "0": a copy
    shorter = source_continuations(written[:, 1:], torch.tensor([[9, 5, 0, 0, 7]]), 10, 3)
    assert shorter[0].nonzero().flatten().tolist() == [7]  # the source's run ends there
    log_probs = torch.zeros(1, 10)
    banned = guard(log_probs, written, 2, 4, eos_id=1) == float("-inf")
    assert banned[0, 0]  # without the source, a third "0" is a loop
    kept = guard(log_probs, written, 2, 4, 1, torch.tensor([[9, 5, 0, 0, 0, 7]])) > float("-inf")
    assert kept[0, 0]
    out = translate("i bought 250000 pears.", shipped_bpe)
    assert out == "comprei 250000 peras.", out


def test_a_name_or_number_the_translation_lost_is_said():
    """The GPT spells names and numbers, and can lose them ("Oluwaseun" -> *oluu*); what the
    translation does not hold whole is named, as the translator names what it drops."""
    missing = gpt_decoding._missing_copies
    typed = ["Hello", ",", "Oluwaseun", "!", "I", "have", "75000", "pears", "."]
    assert missing(typed, "olá, oluu! tenho 7500 peras.") == ["Oluwaseun", "75000"]
    assert missing(typed, "olá, Oluwaseun! tenho 75000 peras.") == []
    assert missing(typed, "olá, oluwaseun! tenho 750000 peras.") == ["75000"]  # whole only
    # phrasebook words typed with a capital ("Hello", "I", "Mr"), and its contractions, are no
    # names; a name typed in lower case is one, a possessive's name is checked without its 's
    assert missing(["Mr", "O'Brien", "is", "Happy"], "o senhor O'Brien é feliz") == []
    assert missing(["I'm", "tired", ".", "Don't", "go", "!"], "estou cansado. não vá!") == []
    assert missing(["i", "visited", "oluwaseun"], "visitei oluuou") == ["oluwaseun"]
    assert missing(["Kalani's", "dog"], "o cachorro de kalani") == []
    assert missing(["I", "have", "75,000", "and", "3.5"], "tenho 7500y e 355") == ["75,000", "3.5"]


def test_the_gpt_says_when_a_name_is_lost_and_evaluate_stays_quiet(shipped_bpe, monkeypatch):
    said = []

    def tell(i, message):
        said.append((i, message))

    english = "Kalani has 4521 strawberries."
    out = translate(english, shipped_bpe, on_notice=tell)
    assert out == "Kalani tem 4521 morangos." and said == []
    real = gpt_decoding._translation  # (text, gender notice)
    monkeypatch.setattr(  # a model that drops the name and cuts the number short
        gpt_decoding,
        "_translation",
        lambda *a: (real(*a)[0].replace("Kalani", "kal").replace("4521", "452"), real(*a)[1]),
    )
    out = translate([english, "I am happy."], shipped_bpe, on_notice=tell)
    assert out == ["kal tem 452 morangos.", "sou feliz."]
    assert said == [(0, '"Kalani", "4521" are not in the translation: the model may have '
                        "misspelled, dropped or replaced them")]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # evaluate scores the loss; it does not warn
        scores = evaluate(shipped_bpe, [(english, "Kalani tem 4521 morangos.")])
    assert scores["exact_match"] == 0.0
