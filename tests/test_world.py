"""tutorlib.translation.phrasebook.world: the phrasebook with real names and numbers (issue 36).

Chapter 14's GPT is trained on ``phrasebook("train", names="real")`` and its claims about
held-out names rest on what these tests check: no test or validation name is in a training
sentence, the held-out languages are in none, every word that is not a name or a number is
the made-up phrasebook's own, and numbers have one to six digits.
"""

import re
from collections import Counter

import pytest

from tutorlib.translation.phrasebook import phrasebook, world
from tutorlib.translation.phrasebook.grammar import NOT_NAMES, lexicon_words

TOKEN = re.compile(r"[^\s,.!?]+")
# the grammar's words, and the forms it writes that its word list lacks ("don't", "são")
WORDS = lexicon_words() | NOT_NAMES
WORDS |= {
    t
    for split in ("train", "valid", "test")
    for pair in phrasebook(split)
    for side in pair
    for t in TOKEN.findall(side)
    if t not in WORDS and not re.fullmatch(r"[a-z]+|\d+", t)
}


def _copied(word: str) -> bool:
    return bool(re.fullmatch(r"[a-z]+|\d+", word)) and word not in WORDS


def _slots(made_up: str, real: str) -> list[tuple[str, str]] | None:
    """``[(made-up name or number, what the real sentence has there)]``: ``real`` matched
    against ``made_up`` with each run of copied words (names, numbers) as a gap; None when
    the other words differ."""
    pieces = re.split(r"([\s,.!?]+)", made_up)  # word, separator, word, ...
    pattern, olds, i = "", [], 0
    while i < len(pieces):
        if i % 2 == 0 and _copied(pieces[i]):
            run = [pieces[i]]
            while i + 2 < len(pieces) and pieces[i + 1] == " " and _copied(pieces[i + 2]):
                run.append(pieces[i + 2])
                i += 2
            olds.append(" ".join(run))
            pattern += r"([^\s,.!?]+(?: [^\s,.!?]+)*?)"
        else:
            pattern += re.escape(pieces[i])
        i += 1
    match = re.fullmatch(pattern, real)
    return None if match is None else list(zip(olds, match.groups()))


def _is_names(text: str, split: str) -> bool:
    """Whether ``text`` is one or more names of ``split``'s pools, one after another."""
    pool = set(world._pools(split)["first"]) | set(world._pools(split)["family"])
    words = text.split()
    ok = [True] + [False] * len(words)
    for end in range(1, len(words) + 1):
        ok[end] = any(ok[s] and " ".join(words[s:end]) in pool for s in range(max(0, end - 2), end))
    return ok[-1]


@pytest.fixture(scope="module")
def real():
    return {split: phrasebook(split, names="real") for split in ("train", "valid", "test")}


def test_the_same_sentences_with_other_names_and_numbers(real):
    """Every word but the names and numbers is the made-up phrasebook's own, in order; each
    made-up name became names of the sentence's own split, the same in both languages."""
    for split in ("train", "valid", "test"):
        made_up = phrasebook(split)
        for (en0, pt0), (en1, pt1) in zip(made_up, real[split]):
            slots_en, slots_pt = _slots(en0, en1), _slots(pt0, pt1)
            assert slots_en is not None and slots_pt is not None, (en0, en1, pt0, pt1)
            # a word the grammar's list lacks ("sou") is a gap too, filled with itself
            slots_en, slots_pt = (
                [(o, n) for o, n in slots if o != n] for slots in (slots_en, slots_pt)
            )
            assert sorted(new for _, new in slots_en) == sorted(new for _, new in slots_pt)
            for old, new in slots_en:
                if old.isdigit():
                    assert new.isdigit() and 1 <= len(new) <= 6, (en1, old, new)
                else:
                    assert _is_names(new, split), (split, en1, old, new)


def test_no_held_out_name_is_a_training_name():
    """A name split by sentence, not by name, would put test names into training and make
    chapter 14's "held-out names" a measure of recall; the held-out languages are in no
    training sentence at all."""
    pools = {
        split: set().union(*world._pools(split).values()) for split in ("train", "valid", "test")
    }
    assert all(len(p) > 500 for p in pools.values()), {k: len(p) for k, p in pools.items()}
    assert not pools["train"] & pools["test"] and not pools["train"] & pools["valid"]
    assert not pools["valid"] & pools["test"]
    held = set(world.HELD_OUT_LANGUAGES)
    assert not [n for n in pools["train"] if world.name_languages(n) <= held]
    in_held = {lang for n in pools["test"] for lang in world.name_languages(n) if lang in held}
    assert in_held == held
    assert sum(world.name_languages(n) <= held for n in pools["test"]) > 200


def test_training_copies_each_sentence_with_a_name_or_number_with_others(real):
    made_up, train = phrasebook("train"), real["train"]
    with_copied = sum(bool(_slots(e, e)) for e, _ in made_up)
    extra = train[len(made_up) :]
    assert with_copied * world.COPIES[0] <= len(extra) <= with_copied * world.COPIES[1]
    assert len(set(extra)) > 0.95 * len(extra)  # other names, not the same sentence again
    assert len(real["test"]) == len(phrasebook("test"))


def test_numbers_have_one_to_six_digits_and_never_one(real):
    numbers = [
        t for en, _ in real["train"] for t in TOKEN.findall(en) if t.isdigit() and t not in WORDS
    ]
    lengths = Counter(map(len, numbers))
    assert set(lengths) == {1, 2, 3, 4, 5, 6}, lengths
    assert min(lengths.values()) > 0.1 * len(numbers), lengths  # each length about a sixth
    assert "1" not in numbers  # "1 dogs" would be wrong: the grammar's numbers are plural


def test_names_have_accents_apostrophes_hyphens_and_two_words(real):
    english = " ".join(en for en, _ in real["train"])
    assert re.search(r"[à-ÿāăąćčďđēęěğīıłńňőœřśşšţťūůűźżžə]", english)
    assert re.search(r"\b[^\W\d_]+'[^\W\d_]+\b", english)  # o'brien
    assert re.search(r"\b[^\W\d_]+-[^\W\d_]+\b", english)  # jean-pierre


def test_name_split_is_one_split_per_name_whatever_the_case():
    assert world.name_split("Zoë") == world.name_split("zoë") == world.name_split("ZOË")
    assert world.name_split("Oluwaseun-not-a-name") is None
    assert {
        world.name_split(n)
        for kinds in world.real_names().values()
        for names in kinds.values()
        for n in names
    } == {"train", "valid", "test"}


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match=r"names must be one of \('made-up', 'real'\), got 'fake'"):
        phrasebook("train", names="fake")
    with pytest.raises(ValueError, match="split must be"):
        world.with_real_names([("hello", "olá")], "training")
    with pytest.raises(ValueError, match="expects a string, got int"):
        world.name_languages(3)


def test_the_gpt_gives_typed_names_their_capitals_back_whole():
    """Capitals come back for a name with an apostrophe, a hyphen or a combining mark: a word
    pattern of letters alone left "o'brien" and "ana-maria" in lower case."""
    from tutorlib.translation.gpt.decoding import _with_names

    typed = ["Mr", "O'Brien", "and", "Ana-Maria", "met", "İdrisli", "."]
    text = "o senhor o'brien e ana-maria conheceram " + "İdrisli".lower() + "."
    assert _with_names(typed, text) == "o senhor O'Brien e Ana-Maria conheceram İdrisli."


def test_a_later_draw_has_other_names_and_rounder_numbers_of_the_same_split(real):
    """``draw=1`` (the shipped GPT's second stage): the same sentences, names of the same split
    (no test name in training), other names than draw 0, and numbers a third of which are
    round or hold a run of one digit, the shapes the first model miscounted ("75000")."""
    again = phrasebook("train", names="real", draw=1)
    assert len(again) == len(real["train"])
    assert phrasebook("train", names="real", draw=0) == real["train"]  # draw 0 is unchanged
    made_up = phrasebook("train")
    changed = 0
    for (en0, _), (en1, pt1), (en2, pt2) in zip(made_up, real["train"], again):
        slots = _slots(en0, en2)
        assert slots is not None, (en0, en2)
        changed += en1 != en2
        for old, new in slots:
            if old != new and not old.isdigit():
                assert _is_names(new, "train"), (en2, old, new)
    assert changed > 0.9 * sum(bool(_slots(e, e)) for e, _ in made_up)

    def numbers(pairs):
        return [t for en, _ in pairs for t in TOKEN.findall(en) if t.isdigit() and t not in WORDS]

    def shaped(n):
        return len(n) > 1 and bool(re.fullmatch(r"\d{1,2}0+|\d*(\d)\1\d*", n))

    first, later = numbers(real["train"]), numbers(again)
    assert set(map(len, later)) == {1, 2, 3, 4, 5, 6} and "1" not in later
    assert not [n for n in later if n.startswith("0")]
    share = {name: sum(map(shaped, ns)) / len(ns) for name, ns in (("0", first), ("1", later))}
    assert share["1"] > share["0"] + 0.15, share  # more round numbers and runs of a digit


def test_a_draw_is_a_whole_number_and_needs_real_names():
    for bad in (-1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="draw must be a whole number"):
            phrasebook("train", names="real", draw=bad)
    with pytest.raises(ValueError, match="needs names='real'"):
        phrasebook("train", draw=1)


def test_from_the_respell_draw_a_third_of_the_names_are_respelled(real, monkeypatch):
    """``draw=RESPELL_DRAW`` (the GPT on BPE's eighth stage): the names of the same sentences,
    about one in three (every call of ``_respell``, the copies included) with one or two letters
    swapped for letters of ``_LETTERS`` (every lower-case Latin letter of ASCII, Latin-1 and
    Latin Extended-A whose capital gives it back: "ł", which no training name has, among them);
    no word a respelling makes is a name of names.json (of any split) or of the grammar, so no
    validation or test name is in a training sentence of the draw; an earlier draw respells
    nothing."""
    draw = world.RESPELL_DRAW
    letters = set(world._LETTERS)
    assert {"ł", "ő", "ğ", "ñ", "ø", "a"} <= letters and not {"ß", "ı", "ſ", "ŉ", "A"} & letters
    calls = []
    respell = world._respell

    def recorded(name, salt):
        calls.append((name, respell(name, salt)))
        return calls[-1][1]

    monkeypatch.setattr(world, "_respell", recorded)
    before = phrasebook("train", names="real", draw=draw - 1)
    assert calls == []  # an earlier draw respells nothing
    again = phrasebook("train", names="real", draw=draw)
    assert len(again) == len(real["train"]) and len(calls) > 30_000

    def words(text):
        return set(text.replace("-", " ").split())

    changed = [(old, new) for old, new in calls if old != new]
    assert 0.28 < len(changed) / len(calls) < 0.38, (len(changed), len(calls))
    every = world._every_name()
    for old, new in changed:
        swapped = [(a, b) for a, b in zip(old, new) if a != b]
        assert len(new) == len(old) and 1 <= len(swapped) <= 2, (old, new)
        assert {b for _, b in swapped} <= letters, (old, new)
        assert not (words(new) - words(old)) & (every | WORDS), (old, new)
    written = {b for old, new in changed for a, b in zip(old, new) if a != b}
    assert "ł" in written and len(written) > 100  # nearly every letter of _LETTERS written
    # a validation or test name of one word is in the draw's training sentences only as a word
    # of a two-word training name ("maria cecília"), as in the draw before: none is respelled in
    held = {n.lower() for split in ("valid", "test") for n in world.names_of(split)}
    one_word = {n for n in held if " " not in n}

    def found(pairs):
        return {t for en, _ in pairs for t in TOKEN.findall(en) if t in one_word}

    assert found(again) <= found(before), sorted(found(again) - found(before))
    assert phrasebook("train", names="real", draw=draw) == again  # the same on every call
    assert before != again
