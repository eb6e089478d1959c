"""tutorlib.data: tokens, vocabulary, batches and the Tatoeba loader (the grammar:
test_phrasebook.py).

Each test names, in its docstring or assert message, the wrong program it catches.
"""

import json
import warnings
from pathlib import Path

import pytest
import torch

import tutorlib.translation.data as data
from tutorlib.translation.data import (
    BOS,
    EOS,
    PAD,
    SPECIALS,
    UNK,
    Batch,
    Vocab,
    detokenize,
    load_tatoeba,
    make_batches,
    tokenize,
)
from tutorlib.translation.phrasebook import phrasebook

ROOT = Path(__file__).resolve().parents[1]
SPLITS = ("train", "valid", "test")


@pytest.fixture(scope="module")
def splits():
    return {s: phrasebook(s) for s in SPLITS}


# --- tokens ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("She is tired.", ["she", "is", "tired", "."]),
        ("  I  AM happy!  ", ["i", "am", "happy", "!"]),
        ("Are you tired?", ["are", "you", "tired", "?"]),
        ("Don’t stop, Tom.", ["don't", "stop", ",", "tom", "."]),
        (
            '"Wait..."',
            ['"', "wait", ".", '"'],
        ),  # a run of one mark is one token: "..." never becomes "...."
        ("No!!! Really?!", ["no", "!", "really", "?", "!"]),
        ("...", ["."]),
        ("well-known", ["well-known"]),
        ("", []),
        ("   ", []),
    ],
)
def test_tokenize(text, tokens):
    assert tokenize(text) == tokens


def test_tokenize_is_case_insensitive():
    assert tokenize("I Like THE Cat.") == tokenize("i like the cat.")


def test_tokenize_can_keep_the_capitals():
    """lower=False must split exactly as lower=True does (else a copied name lands at the wrong
    position)."""
    text = "Maria met “Tom” in São Paulo... Don’t!"
    assert tokenize(text, lower=False) == [
        "Maria",
        "met",
        "“Tom”",
        "in",
        "São",
        "Paulo",
        ".",
        "Don't",
        "!",
    ]
    assert [t.lower() for t in tokenize(text, lower=False)] == tokenize(text)


def test_detokenize():
    assert detokenize(["ela", "está", "cansada", "."]) == "ela está cansada."
    assert detokenize(["sim", ",", "(", "claro", ")", "!"]) == "sim, (claro)!"
    assert detokenize([]) == ""


def test_tokenize_detokenize_round_trip(splits):
    """Every sentence of the phrasebook survives tokenize then detokenize unchanged, both
    languages."""
    for s in SPLITS:
        for en, pt in splits[s]:
            assert detokenize(tokenize(en)) == en and detokenize(tokenize(pt)) == pt, (en, pt)


def test_tokenize_rejects_non_strings():
    with pytest.raises(ValueError, match="tokenize expects a string, got list"):
        tokenize(["a"])
    with pytest.raises(ValueError, match="pass tokenize"):
        detokenize("ela está")


# --- vocabulary -----------------------------------------------------------------------------------


def test_vocab_specials_and_order():
    v = Vocab.build([["b", "a", "b"], ["c", "b", "a"], [PAD]])
    assert v.tokens == [PAD, BOS, EOS, UNK, "b", "a", "c"], (
        "specials first, then by frequency, ties alphabetically"
    )
    assert (v.pad_id, v.bos_id, v.eos_id, v.unk_id) == (0, 1, 2, 3)
    assert [v.token_to_id(t) for t in SPECIALS] == [0, 1, 2, 3]
    assert len(v) == 7 and "a" in v and "z" not in v
    assert v.token_to_id("zebra") == 3
    assert Vocab.build([["a", "a", "b"]], min_freq=2).tokens == list(SPECIALS) + ["a"]


def test_vocab_encode_decode_round_trip(splits):
    v = Vocab.build(tokenize(pt) for _, pt in splits["train"])
    known = [tokenize(pt) for _, pt in splits["test"][:300] if all(t in v for t in tokenize(pt))]
    assert len(known) > 200, "most test sentences have no name or number"
    for toks in known:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ids = v.encode(toks, add_bos=True, add_eos=True)
        assert ids[0] == v.bos_id and ids[-1] == v.eos_id and v.unk_id not in ids
        assert v.decode(ids) == toks
        assert v.decode(torch.tensor(ids + [0, 0])) == toks, (
            "a tensor with padding decodes the same"
        )


def test_vocab_decode_stops_at_eos():
    v = Vocab.build([["sou", "feliz"]])
    ids = [1, v.token_to_id("sou"), 3, 2, v.token_to_id("feliz"), 0]
    assert v.decode(ids) == ["sou", UNK]
    assert v.decode(ids, strip_special=False) == [BOS, "sou", UNK, EOS]


def test_vocab_unknown_words_warn_once_naming_them():
    v = Vocab.build([["i", "am", "happy"]])
    with pytest.warns(
        UserWarning, match=r"2 unknown words mapped to <unk>: 'zebra', 'xylo'"
    ) as record:
        ids = v.encode(["i", "zebra", "am", "xylo", "zebra"])
    assert len(record) == 1, "one warning per call, not one per word"
    assert ids == [v.token_to_id("i"), 3, v.token_to_id("am"), 3, 3]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert v.encode(["zebra"], warn_unknown=False) == [3]


def test_a_gendered_vocab_reads_an_unknown_first_name_s_gender():
    """``gendered=True`` (issue 36): the two gendered unknowns come last, so the other ids stay;
    an unknown first name of known gender reads as one of them, any other unknown word (a family
    name, a name listed both ways, a typo) as ``<unk>``; a known word stays itself, even one
    that is also a name ("ana" here). A vocabulary that maps every unknown word to ``<unk>``, or
    reads the gender of a word it knows, fails."""
    plain = Vocab.build([["my", "friend", "is", "ana"]])
    v = Vocab.build([["my", "friend", "is", "ana"]], gendered=True)
    assert v.tokens == plain.tokens + [data.UNK_F, data.UNK_M]
    f, m = len(plain), len(plain) + 1
    assert v.gendered and not plain.gendered
    assert v.unknown_ids == {3, f, m} and plain.unknown_ids == {3}
    words = ["my", "friend", "Maria", "kwame", "silva", "andrea", "ana", "frend"]
    assert v.encode(words, warn_unknown=False)[2:] == [f, m, 3, 3, v.token_to_id("ana"), 3]
    assert plain.encode(words, warn_unknown=False)[2:6] == [3, 3, 3, 3]
    assert v.token_to_id("MARIA") == f and v.token_to_id("ana") == plain.token_to_id("ana")
    assert Vocab.from_dict(v.to_dict()).unknown_ids == v.unknown_ids
    # the training data's own <unk:f> is not a word of it; leave_out drops words however often
    built = Vocab.build([["a", data.UNK_F, "maria", "maria"]], leave_out={"maria"})
    assert built.tokens == list(SPECIALS) + ["a"]
    with pytest.raises(ValueError, match="leave_out is a collection of tokens"):
        Vocab.build([["a"]], leave_out="maria")


def test_vocab_to_dict_from_dict_round_trip(splits):
    v = Vocab.build(tokenize(en) for en, _ in splits["train"])
    d = json.loads(json.dumps(v.to_dict()))
    w = Vocab.from_dict(d)
    assert w == v and w.tokens == v.tokens
    assert all(w.token_to_id(t) == i for i, t in enumerate(v.tokens))


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: Vocab(["a", "b"]),
            r"first four tokens must be \['<pad>', '<bos>', '<eos>', '<unk>'\]",
        ),
        (lambda: Vocab(list(SPECIALS) + ["a", "a"]), r"token 'a' appears twice \(ids 4 and 5\)"),
        (
            lambda: Vocab.from_dict({"words": []}),
            r"expected a dict with a list under 'tokens'.*got \['words'\]",
        ),
        (lambda: Vocab.build(["i am"]), r"token_lists\[0\] is the string 'i am'"),
        (lambda: Vocab.build([["a"]], min_freq=0), "min_freq must be at least 1, got 0"),
        (lambda: Vocab.build([["a"]]).encode("a b"), "pass tokenize"),
        (
            lambda: Vocab.build([["a"]]).id_to_token(5),
            r"token id 5 is out of range for a vocabulary of 5 tokens",
        ),
        (lambda: Vocab.build([["a"]]).decode([[1, 4]]), "one sentence"),
    ],
)
def test_vocab_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- batches --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def vocabs(splits):
    src = Vocab.build(tokenize(en) for en, _ in splits["train"])
    tgt = Vocab.build(tokenize(pt) for _, pt in splits["train"])
    return src, tgt


def test_make_batches_shapes_shift_and_masks(splits, vocabs):
    """Teacher forcing: tgt_in = <bos> + target and tgt_out = target + <eos>, shifted by one;
    masks True on real tokens and causal; num_tgt_tokens counts tgt_out's real tokens.

    Catches a missing shift, <eos> in tgt_in, <bos> in tgt_out, masks inverted or off by one.
    """
    src_v, tgt_v = vocabs
    pairs = splits["valid"][:101]
    batches = make_batches(pairs, src_v, tgt_v, batch_size=16, shuffle=False)
    assert [len(b) for b in batches] == [16] * 6 + [5]
    for k, b in enumerate(batches):
        B, S = b.src.shape
        T = b.tgt_in.shape[1]
        assert (
            b.tgt_out.shape == (B, T)
            and b.src_key_mask.shape == (B, 1, 1, S)
            and b.tgt_mask.shape == (B, 1, T, T)
        )
        assert b.src.dtype == b.tgt_in.dtype == b.tgt_out.dtype == torch.long
        assert b.src_key_mask.dtype == b.tgt_mask.dtype == torch.bool
        for r in range(B):
            en, pt = pairs[16 * k + r]
            s, t = src_v.encode(tokenize(en)), tgt_v.encode(tokenize(pt))
            n = len(t)
            assert b.src[r, : len(s)].tolist() == s and (b.src[r, len(s) :] == 0).all()
            assert b.src_key_mask[r, 0, 0].tolist() == [True] * len(s) + [False] * (S - len(s))
            assert b.tgt_in[r, : n + 1].tolist() == [1] + t, "tgt_in starts with <bos>"
            assert b.tgt_out[r, : n + 1].tolist() == t + [2], "tgt_out ends with <eos>"
            assert (b.tgt_in[r, n + 1 :] == 0).all() and (b.tgt_out[r, n + 1 :] == 0).all()
            assert b.tgt_in[r, 1 : n + 1].tolist() == b.tgt_out[r, :n].tolist(), "shifted by one"
            expected = torch.ones(T, T, dtype=torch.bool).tril()
            expected[:, n + 1 :] = False
            assert torch.equal(b.tgt_mask[r, 0], expected), "causal and padding"
        expected_tokens = sum(
            len(tokenize(pt)) + 1 for _, pt in pairs[16 * k : 16 * k + B]
        )  # target + <eos>
        assert b.num_tgt_tokens == int((b.tgt_out != 0).sum()) == expected_tokens


def test_make_batches_shuffle_is_seeded_and_complete(splits, vocabs):
    src_v, tgt_v = vocabs
    pairs = splits["train"][:1000]
    a = make_batches(pairs, src_v, tgt_v, batch_size=32, seed=1)
    b = make_batches(pairs, src_v, tgt_v, batch_size=32, seed=1)
    c = make_batches(pairs, src_v, tgt_v, batch_size=32, seed=2)
    assert all(
        torch.equal(x.src, y.src) and torch.equal(x.tgt_out, y.tgt_out) for x, y in zip(a, b)
    )
    assert [x.src.tolist() for x in a] != [x.src.tolist() for x in c], "another seed, another order"
    seen = sorted(
        (src_v.decode(x.src[r]), tgt_v.decode(x.tgt_out[r])) for x in a for r in range(len(x))
    )
    assert seen == sorted((tokenize(en), tokenize(pt)) for en, pt in pairs), (
        "every pair exactly once"
    )
    padding = sum(int((x.src == 0).sum()) for x in a)
    unsorted = sum(
        int((x.src == 0).sum())
        for x in make_batches(pairs, src_v, tgt_v, batch_size=32, shuffle=False)
    )
    assert padding < unsorted / 2, "batches of similar length pad less"


def test_make_batches_unknown_words_max_len_and_device(vocabs):
    src_v, tgt_v = vocabs
    pairs = [
        ("i like the zebra.", "gosto da zebra."),
        ("i am happy.", "sou feliz."),
        ("the red car is not new.", "o carro vermelho não é novo."),
    ]
    with pytest.warns(UserWarning, match=r"1 unknown word mapped to <unk>: 'zebra'\. "):
        batches = make_batches(pairs[:2], src_v, tgt_v, batch_size=4, shuffle=False)
    assert batches[0].src[0].tolist().count(3) == 1
    with pytest.warns(UserWarning, match=r"1 of 3 pairs left out: longer than max_len=6"):
        batches = make_batches(
            pairs[1:] + [("he eats.", "ele come.")], src_v, tgt_v, batch_size=4, max_len=6
        )
    assert sum(len(b) for b in batches) == 2
    moved = batches[0].to("cpu")
    assert isinstance(moved, Batch) and moved.num_tgt_tokens == batches[0].num_tgt_tokens


@pytest.mark.parametrize(
    "pairs, kwargs, message",
    [
        ([], {}, "pairs is empty"),
        ([("i am happy", "")], {}, r"pairs\[0\] has an empty target"),
        ([("i am happy",)], {}, r"pairs\[0\] must be a \(source, target\) pair of strings"),
        ([("i am happy", "sou feliz")], {"batch_size": 0}, "batch_size must be at least 1, got 0"),
        ([("i am happy", "sou feliz")], {"max_len": 1}, "max_len must be at least 2, got 1"),
    ],
)
def test_make_batches_errors(vocabs, pairs, kwargs, message):
    src_v, tgt_v = vocabs
    with pytest.raises(ValueError, match=message):
        make_batches(pairs, src_v, tgt_v, **{"batch_size": 2, **kwargs})


# --- Tatoeba --------------------------------------------------------------------------------------


def _write(tmp_path, text, name="por.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def test_load_tatoeba_columns(tmp_path):
    attribution = "CC-BY 2.0 (France) Attribution: tatoeba.org #2 (CK) & #3 (alexmarcelo)"
    three = _write(
        tmp_path, f"\ufeffGo.\tVai.\t{attribution}\nI'm happy.\tEstou feliz.\t{attribution}\r\n\n"
    )
    assert load_tatoeba(three) == [("Go.", "Vai."), ("I'm happy.", "Estou feliz.")]
    two = _write(tmp_path, "Hi.\tOi.\nRun!\tCorra!\n", "two.txt")
    assert load_tatoeba(str(two)) == [("Hi.", "Oi."), ("Run!", "Corra!")]
    extra = _write(tmp_path, "Hi.\tOi.\tattr\tmore\tcolumns\n", "extra.txt")
    assert load_tatoeba(extra) == [("Hi.", "Oi.")]
    many = _write(tmp_path, "".join(f"s{i}\tp{i}\tx\n" for i in range(10)), "many.txt")
    assert load_tatoeba(many, max_pairs=3) == [("s0", "p0"), ("s1", "p1"), ("s2", "p2")]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "Go.\tVai.\tattr\n\nI am here. Estou aqui.\n",
            r"por\.txt, line 3: expected English<TAB>Portuguese.*found no tab",
        ),
        ("Go.\t\tattr\n", r"por\.txt, line 1: the Portuguese \(column 2\) sentence is empty"),
        (b"Go.\tVai.\n\xff\xfe\tx\n", r"por\.txt, line 2: not UTF-8"),
    ],
)
def test_load_tatoeba_malformed_lines(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(ValueError, match=message):
        load_tatoeba(path)


def test_load_tatoeba_missing_file_and_bad_arguments(tmp_path):
    with pytest.raises(
        FileNotFoundError, match=r"no sentence file at '.*nowhere\.txt'.*manythings\.org/anki"
    ):
        load_tatoeba(tmp_path / "nowhere.txt")
    with pytest.raises(IsADirectoryError, match="is a folder"):
        load_tatoeba(tmp_path)
    with pytest.raises(ValueError, match="max_pairs must be at least 1"):
        load_tatoeba(_write(tmp_path, "a\tb\n"), max_pairs=0)


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_load_tatoeba_reads_every_line_ending(tmp_path, ending):
    """Old Mac files end lines with a lone CR; reading them by LF would merge every pair into one
    line."""
    text = ending.join(["I run.\tEu corro.\tCC-BY", "", "Stop!\tPare!"]) + ending
    path = tmp_path / "pairs.txt"
    path.write_bytes(text.encode("utf-8"))
    assert load_tatoeba(path) == [("I run.", "Eu corro."), ("Stop!", "Pare!")]


def test_docstrings_name_the_chapter():
    for name in data.__all__:
        obj = getattr(data, name)
        if callable(obj):
            assert (
                (obj.__doc__ or "")
                .strip()
                .endswith("Derived in chapter 9 (Training a translator).")
            ), name


def test_tokenize_is_memoised_but_hands_out_a_fresh_list():
    # training tokenizes the same pairs every epoch, so tokenize keeps what it made; a
    # caller that edits its list must not change what the next call returns
    first = tokenize("Mr. Smith doesn't eat the red apples!")
    first.append("<eos>")
    first[0] = "changed"
    again = tokenize("Mr. Smith doesn't eat the red apples!")
    assert again == ["mr", "smith", "doesn't", "eat", "the", "red", "apples", "!"]
    assert again is not tokenize("Mr. Smith doesn't eat the red apples!")
    assert tokenize("Mr. Smith", lower=False) == ["Mr", "Smith"]  # lower is part of the key


def test_collate_pads_every_row_to_the_longest():
    from tutorlib.translation.data import BOS_ID, EOS_ID, PAD_ID, _collate

    batch = _collate([[5, 6, 7], [8]], [[9], [10, 11, 12]])
    assert batch.src.tolist() == [[5, 6, 7], [8, PAD_ID, PAD_ID]]
    assert batch.tgt_in.tolist() == [[BOS_ID, 9, PAD_ID, PAD_ID], [BOS_ID, 10, 11, 12]]
    assert batch.tgt_out.tolist() == [[9, EOS_ID, PAD_ID, PAD_ID], [10, 11, 12, EOS_ID]]
    assert batch.src.dtype == batch.tgt_in.dtype == torch.long
    assert batch.num_tgt_tokens == 2 + 4
