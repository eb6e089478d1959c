"""A typo one edit from a word the models know is read as that word, with a notice (issue 36,
item 4): ``tutorlib.translation.typos.read_typos``, in the input path of all three models."""

from __future__ import annotations

import warnings

import pytest

from tutorlib.translation.cli import main
from tutorlib.translation.gpt.checkpoints import load_pretrained as load_gpt
from tutorlib.translation.phrasebook.grammar import portuguese_words
from tutorlib.translation.shipped import gpt_translate, translate
from tutorlib.translation.typos import not_typos, one_edit, read_typos, typo_words

# Real names of many languages, capitalised as their owners write them.
NAMES = (
    "Maria Oluwaseun Kwame Nguyen Zoe Mark Rose Sue Tia Ben Sam Tom Kate Amy Dan Max Ian Bill "
    "Ted Ken Ray Pat Ann Fay Lee Li Ana Carla Paula Bella Karen Helen Peter Mario Hana Yuki "
    "Chen Wei Aiko Priya Ravi Arjun Fatima Omar Ali Leila Sina Ngozi Chidi Amara Tariq Olga "
    "Ivan Sven Lars Ingrid Pedro Jose Diego Lucia Sofia Marco Luca Giulia Anouk Bram Finn Mia"
).split()


def notices_of(translate, sentences, *args, **kwargs) -> tuple[list, list]:
    said = []
    out = translate(sentences, *args, on_notice=lambda i, m: said.append((i, m)), **kwargs)
    return out, said


@pytest.mark.parametrize(
    "typed, meant, word",
    [
        ("The techer writes a poem.", "The teacher writes a poem.", "techer"),
        ("My sistr is kind.", "My sister is kind.", "sistr"),
        ("teh cat is red", "the cat is red", "teh"),  # a swap: "tea" and "ten" are one edit too
        ("I see hte dog.", "I see the dog.", "hte"),
        ("please,  the  techer!", "please,  the  teacher!", "techer!"),  # marks and spaces kept
    ],
)
def test_a_typo_is_read_as_the_one_word_it_is_one_edit_from(typed, meant, word):
    reading = meant.split()[typed.split().index(word)].strip(".!")
    assert read_typos(typed) == (meant, [f"read '{word.strip('!')}' as '{reading}'"])


def test_one_edit_tells_a_swap_from_the_other_edits():
    assert one_edit("teh", "the") == "swap"
    assert [one_edit("techer", "teacher"), one_edit("sisterr", "sister")] == ["edit", "edit"]
    assert one_edit("cat", "cot") == "edit"
    assert one_edit("the", "the") is None  # no edit
    assert one_edit("tcae", "cake") is None  # two edits
    assert one_edit("ab", "ba") == "swap" and one_edit("abc", "cba") is None


@pytest.mark.parametrize("name", NAMES)
def test_a_name_stays_a_name(name):
    """Capitalised, it is a name, whatever word it is one edit from ("Mark", "park"; "Sofia",
    "sofa"), mid-sentence or first; after a title, even in lower case."""
    for sentence in (f"I like {name}.", f"{name} is kind.", f"i see mr {name.lower()}"):
        assert read_typos(sentence) == (sentence, [])


def test_a_capitalised_word_mid_sentence_is_a_name_even_one_edit_from_a_word():
    assert read_typos("I see Techer and Sistr.") == ("I see Techer and Sistr.", [])
    assert read_typos("Teh cat is red.") == ("Teh cat is red.", [])  # first: a name all the same
    assert read_typos("THE CATT IS RED") == ("THE CATT IS RED", [])


def test_a_tie_is_refused_and_said():
    assert read_typos("the bak is red") == (
        "the bak is red",
        ["'bak' could be 'bad', 'bag' or 'bank': left as typed"],
    )
    assert read_typos("i am tird") == (
        "i am tird",
        ["'tird' could be 'bird' or 'tired': left as typed"],
    )


def test_every_lexicon_word_reads_as_itself():
    """No word the models know is ever "corrected", lower case or capitalised, first or not; nor
    is a Portuguese word of the phrasebook, or a common English word it lacks ("this", "word",
    "many", "wife", which would read as "thin", "work", "man", "wine")."""
    words = typo_words()
    assert len(words) > 600 and "teacher" in words and "x" not in words and "," not in words
    assert {"this", "word", "many", "wife", "sou"} - set(not_typos()) == {"sou"}
    for word in [*words, *portuguese_words(), *not_typos()]:
        for sentence in (word, word.capitalize(), f"the {word} x", f"I {word.capitalize()}"):
            assert read_typos(sentence) == (sentence, []), sentence
    assert not set(not_typos()) & set(words)
    assert read_typos("i love my wife") == ("i love my wife", [])


@pytest.mark.parametrize(
    "sentence",
    [
        "I bought 250000 pears.",
        "teh3 cat",  # a digit: not a word
        "well-knwn",  # a hyphen
        "mail maria@exmple.com now",
        "a casa é grande",
        "ot is",  # two letters: too short to guess
        "",
        "   ",
        "?!",
    ],
)
def test_numbers_addresses_short_words_and_portuguese_are_left_alone(sentence):
    assert read_typos(sentence) == (sentence, [])


def test_spacing_marks_and_curly_apostrophes_are_kept():
    assert read_typos("  the  techer,  “teh”  dog’s dogg's ") == (
        "  the  teacher,  “the”  dog’s dogg's ",  # an apostrophe: no typo
        ["read 'techer' as 'teacher'", "read 'teh' as 'the'"],
    )


# --- all three models read typos through it -------------------------------------------------


@pytest.fixture(scope="module")
def models():
    return {"words": load_gpt("words")}


def test_the_translator_translates_what_was_meant_and_says_so():
    for beam in (1, 4):
        out, said = notices_of(
            translate, ["The techer writes a poem.", "My sistr is kind."], beam_size=beam
        )
        assert out == ["o professor escreve um poema.", "minha irmã é gentil."]
        assert said == [(0, "read 'techer' as 'teacher'"), (1, "read 'sistr' as 'sister'")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        translate("teh cat is red.")
    assert [(str(w.message), w.filename) for w in caught] == [
        ("sentence 0 ('teh cat is red.'): read 'teh' as 'the'", __file__)
    ]


def test_the_gpts_read_typos_as_the_translator_does(models):
    out, said = notices_of(gpt_translate, ["The techer writes a poem.", "Maria is kind."])
    assert said == [(0, "read 'techer' as 'teacher'")] and "techer" not in out[0]
    out, said = notices_of(gpt_translate, "The techer writes a poem.", models["words"])
    assert (out, said) == ("o professor escreve um poema.", [(0, "read 'techer' as 'teacher'")])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gpt_translate("I see the techer. Thank you.", models["words"])
    assert [(str(w.message), w.filename) for w in caught] == [
        (
            "sentence 0 ('I see the techer. Thank you.'): sentence 1: read 'techer' as 'teacher'",
            __file__,
        )
    ]


def test_portuguese_is_still_refused_by_every_model(models):
    for call in (translate, gpt_translate, lambda s: gpt_translate(s, models["words"])):
        with pytest.raises(ValueError, match="looks Portuguese"):
            call("a casa é grande")


@pytest.mark.parametrize("kind", [[], ["--model", "gpt"]])
def test_the_command_line_prints_the_notice(kind, capsys):

    assert main(["translate", *kind, "I see the techer."]) == 0
    out, err = capsys.readouterr()
    assert "professor" in out and "argument 1: read 'techer' as 'teacher'" in err
