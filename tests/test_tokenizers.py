"""tutorlib.tokenizers: byte-level BPE (chapter 14).

The incremental trainer is held to a naive one written here (recount every pair after each merge,
the same tie rule) on random corpora; encode is held to the trainer's own segmentation of its
training chunks; round trips run on any text hypothesis can write.
"""

from __future__ import annotations

import doctest
import json
import random
import warnings
from collections import Counter

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tutorlib.tokenizers
from tutorlib.tokenizers import BPE, DEFAULT_SPECIALS, FORMAT, split_text

CORPUS = [
    "the red car is in the box.",
    "o carro vermelho está na caixa.",
    "I have 3 dogs, said Maria!",
    "tenho 3 cachorros, disse maria!",
    "she is tired; ela está cansada.",
    "naïve café, crème brûlée: déjà vu 😀 🇵🇹",
    "   spaces\tand\nnew lines  ",
    "ünïcödé, 東京, Ελληνικά, русский",
] * 5


@pytest.fixture(scope="module")
def bpe():
    return BPE.train(CORPUS, vocab_size=400)


# --- the naive trainer: recount every pair after each merge ----------------------------------


def naive_train(texts, n_merges):
    """Merges and the final segmentation of each chunk, recounting all pairs after each merge."""
    chunks = Counter(c for t in texts for c in split_text(t))
    words = {c: list(c.encode("utf-8")) for c in chunks}
    merges = []
    for k in range(n_merges):
        counts = Counter()
        for c, word in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] += chunks[c]
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))  # most frequent, then smallest ids
        merges.append(best)
        for c, word in words.items():
            out, i = [], 0
            while i < len(word):
                if word[i : i + 2] == list(best):
                    out.append(256 + k)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            words[c] = out
    return merges, words


def quiet_train(texts, vocab_size, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # too few pairs for vocab_size
        return BPE.train(texts, vocab_size, **kw)


small_corpora = st.lists(st.text(alphabet="ab é.,1 \n😀", max_size=25), max_size=12)


@settings(max_examples=60, deadline=None)
@given(texts=small_corpora, n_merges=st.integers(0, 40))
def test_incremental_trainer_learns_the_naive_trainers_merges(texts, n_merges):
    expected, _ = naive_train(texts, n_merges)
    bpe = quiet_train(texts, 256 + n_merges, special_tokens=())
    assert bpe.merges == expected
    assert bpe.vocab_size == 256 + len(expected)


@settings(max_examples=40, deadline=None)
@given(texts=small_corpora, n_merges=st.integers(0, 40))
def test_encode_reproduces_the_training_segmentation(texts, n_merges):
    # merges applied in another order than learned (say, the most frequent pair first) break this
    _, words = naive_train(texts, n_merges)
    bpe = quiet_train(texts, 256 + n_merges, special_tokens=())
    for chunk, word in words.items():
        assert bpe.encode(chunk) == word, chunk


def test_merges_apply_in_the_order_learned():
    # "ab" (4 times) merges before "ba" (3 times); "aba" is then "ab" + "a", never "a" + "ba"
    bpe = BPE.train(["ab"] * 3 + ["ba"] * 2 + ["aba"], 258, special_tokens=())
    assert bpe.merges == [(97, 98), (98, 97)]
    assert bpe.encode("aba") == [256, 97]
    assert bpe.encode("bab") == [98, 256]  # "ab" first, though "ba" comes first in the text


def test_phrasebook_sized_corpus_matches_the_naive_trainer():
    from tutorlib.translation.phrasebook import phrasebook

    texts = [s for pair in phrasebook("valid")[:200] for s in pair]
    expected, words = naive_train(texts, 80)
    bpe = BPE.train(texts, 256 + 80, special_tokens=())
    assert bpe.merges == expected
    assert all(bpe.encode(c) == w for c, w in words.items())


# --- round trips --------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(
        st.characters(exclude_categories=()) | st.characters(categories=["Cs"]), max_size=60
    )
)
def test_decode_encode_round_trips_any_text(bpe, text):
    # any code point, lone surrogates (category Cs, from a bad decode) more often than by chance
    assert "".join(split_text(text)) == text
    ids = bpe.encode(text)
    assert all(isinstance(i, int) and 0 <= i < 256 + len(bpe.merges) for i in ids)
    assert bpe.decode(ids) == text


@pytest.mark.parametrize(
    "text", ["", " ", "Zé Ñoño 😀👩‍👩‍👧 ok", "hte cra is in teh bxo", "\ud800 lone", "<sep><eos>"]
)
def test_round_trip_examples(bpe, text):
    assert bpe.decode(bpe.encode(text)) == text


def test_empty_text_is_no_tokens(bpe):
    assert bpe.encode("") == [] and bpe.decode([]) == ""


def test_merges_shorten_the_training_text(bpe):
    text = "o carro vermelho está na caixa."
    ids = bpe.encode(text)
    assert len(ids) < len(text.encode("utf-8")) / 3  # frequent words became single tokens
    assert bpe.decode(ids) == text


def test_a_partial_character_decodes_to_the_replacement_character(bpe):
    one, two = "é".encode()
    assert bpe.decode([one]) == "\ufffd"
    assert bpe.decode([ord("a"), one, two]) == "aé"


def test_numpy_and_torch_ids_decode(bpe):
    ids = bpe.encode("the red car")
    assert bpe.decode(np.array(ids)) == bpe.decode(torch.tensor(ids)) == "the red car"


# --- the id layout ------------------------------------------------------------------------


def test_id_layout_bytes_merges_specials(bpe):
    assert bpe.vocab_size == 400 == 256 + len(bpe.merges) + len(DEFAULT_SPECIALS)
    assert [bpe.token_bytes(b) for b in (0, 104, 255)] == [b"\x00", b"h", b"\xff"]
    for i, (a, b) in enumerate(bpe.merges):
        assert a < 256 + i and b < 256 + i  # a merge uses only tokens made before it
        assert bpe.token_bytes(256 + i) == bpe.token_bytes(a) + bpe.token_bytes(b)
    first = 256 + len(bpe.merges)
    assert bpe.special_ids == {s: first + i for i, s in enumerate(DEFAULT_SPECIALS)}
    assert bpe.token_bytes(bpe.vocab_size - 1) == b"<sep>"


def test_specials_are_encoded_only_when_allowed(bpe):
    sep, eos = bpe.special_ids["<sep>"], bpe.special_ids["<eos>"]
    text = "the car<sep>o carro<eos>"
    plain = bpe.encode(text)
    assert sep not in plain and eos not in plain and bpe.decode(plain) == text
    only_sep = bpe.encode(text, allowed_special={"<sep>"})
    assert only_sep.count(sep) == 1 and eos not in only_sep
    assert only_sep[: only_sep.index(sep)] == bpe.encode("the car")
    everything = bpe.encode(text, allowed_special="all")
    assert everything == bpe.encode("the car") + [sep] + bpe.encode("o carro") + [eos]
    assert bpe.decode(everything) == text


def test_ties_go_to_the_smallest_pair():
    # "ab" and "cd" occur equally often: (97, 98) is the smaller pair, so it merges first
    bpe = BPE.train(["cd", "ab"] * 3, 258, special_tokens=())
    assert bpe.merges == [(97, 98), (99, 100)]


# --- determinism and boundaries ------------------------------------------------------------


def test_training_twice_or_shuffled_gives_the_same_merges():
    first = BPE.train(CORPUS, 380).merges
    assert BPE.train(CORPUS, 380).merges == first
    for seed in range(3):
        shuffled = CORPUS[:]
        random.Random(seed).shuffle(shuffled)
        assert BPE.train(iter(shuffled), 380).merges == first  # any iterable, any order


def test_no_pair_is_counted_across_two_texts():
    # "a" then "b" would make "ab" 200 times if the texts were joined; "xy" occurs once
    texts = ["a", "b"] * 100 + ["xy"]
    with pytest.warns(UserWarning, match="allow only 1 merges"):
        bpe = BPE.train(texts, 300, special_tokens=())
    assert bpe.merges == [(ord("x"), ord("y"))]


def test_no_pair_is_counted_across_two_chunks():
    with pytest.warns(UserWarning, match="vocab_size=300"):
        bpe = BPE.train(["dog. dog."] * 50, 300, special_tokens=())
    tokens = [bpe.token_bytes(256 + i) for i in range(len(bpe.merges))]
    assert b" dog" in tokens and b"dog" in tokens
    assert not any(b"." in t and len(t) > 1 for t in tokens)  # "." stays alone
    assert tokens == [b"do", b"dog", b" dog"]  # and then no pair is left


# --- errors --------------------------------------------------------------------------------


def test_vocab_size_must_hold_the_bytes_and_the_specials():
    with pytest.raises(ValueError, match=r"at least 260 \(the 256 byte values.*got 259"):
        BPE.train(CORPUS, 259)
    with pytest.raises(ValueError, match="at least 256.*got 255"):
        BPE.train(CORPUS, 255, special_tokens=())
    with pytest.raises(ValueError, match="whole number, got 300.5"):
        BPE.train(CORPUS, 300.5)
    assert BPE.train(CORPUS, 256, special_tokens=()).merges == []


def test_wrong_texts_are_type_errors():
    with pytest.raises(TypeError, match="one str.*pass \\[text\\]"):
        BPE.train("the car", 300)
    with pytest.raises(TypeError, match="iterable of strings, got int"):
        BPE.train(5, 300)
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str, got bytes.*decode"):
        BPE.train(["ok", b"bytes"], 300)
    with pytest.raises(TypeError, match=r"texts\[0\] must be a str, got NoneType"):
        BPE.train([None], 300)


def test_bytes_for_text_says_decode_first(bpe):
    with pytest.raises(TypeError, match="must be a str, got bytes.*decode the bytes first"):
        bpe.encode(b"the car")
    with pytest.raises(TypeError, match="must be a str, got int"):
        bpe.encode(3)


def test_ids_out_of_range_or_not_ints(bpe):
    with pytest.raises(ValueError, match=r"token id 400 is out of range.*0 to 399"):
        bpe.decode([1, 400])
    with pytest.raises(ValueError, match="token id -1 is out of range"):
        bpe.decode([-1])
    with pytest.raises(TypeError, match="must be an int in \\[0, 400\\), got float 1.0"):
        bpe.decode([1.0])
    with pytest.raises(TypeError, match="got the bool True"):
        bpe.decode([True])
    with pytest.raises(TypeError, match="sequence of token ids"):
        bpe.decode("abc")
    with pytest.raises(ValueError, match="out of range"):
        bpe.token_bytes(10_000)


def test_special_token_arguments(bpe):
    with pytest.raises(ValueError, match=r"\['<mask>'\].*not special tokens.*<pad>"):
        bpe.encode("x", allowed_special={"<mask>"})
    with pytest.raises(ValueError, match='"all" or a collection'):
        bpe.encode("x", allowed_special="<sep>")
    with pytest.raises(ValueError, match="distinct.*<pad>"):
        BPE.train(CORPUS, 300, special_tokens=("<pad>", "<pad>"))
    with pytest.raises(TypeError, match="collection of strings, got the string"):
        BPE.train(CORPUS, 300, special_tokens="<pad>")


def test_too_few_pairs_warns_and_gives_a_smaller_vocabulary():
    with pytest.warns(UserWarning, match=r"vocab_size=1000.*allow only \d+ merges.*has \d+ tokens"):
        bpe = BPE.train(["abc abc"], 1000)
    assert bpe.vocab_size < 1000 and bpe.decode(bpe.encode("abc abc")) == "abc abc"


# --- saving and loading ----------------------------------------------------------------------


def test_save_load_round_trip(bpe, tmp_path):
    path = bpe.save(tmp_path / "bpe.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and data["version"] == 1
    loaded = BPE.load(path)
    assert loaded.merges == bpe.merges and loaded.special_ids == bpe.special_ids
    text = "naïve café <sep> 😀"
    assert loaded.encode(text, allowed_special="all") == bpe.encode(text, allowed_special="all")


@pytest.mark.parametrize(
    "content, message",
    [
        ("not json", "is not a BPE tokenizer file: Expecting value"),
        ("[1, 2]", "not a BPE tokenizer file \\(format 'list'\\).*written by BPE.save"),
        ('{"format": "gpt2"}', "format 'gpt2'"),
        (f'{{"format": "{FORMAT}", "version": 7}}', "version 7, but this tutorlib reads version 1"),
    ],
)
def test_load_rejects_wrong_files(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        BPE.load(path)


def test_load_rejects_corrupt_merges(bpe, tmp_path):
    path = bpe.save(tmp_path / "bpe.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["merges"][0] = [97, 300]  # token 300 does not exist before merge 0
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"corrupt: merge 0 must be a pair of token ids below 256"):
        BPE.load(path)
    del data["merges"]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="has no list merges"):
        BPE.load(path)


def test_the_docstring_examples_hold():
    assert doctest.testmod(tutorlib.tokenizers, raise_on_error=False).failed == 0
