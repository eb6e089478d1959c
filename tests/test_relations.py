"""A relation before a name (issue 36): "my friend ana is tired." -> "minha amiga ana está
cansada.". The grammar's agreement, the names' genders, and ``relation_pairs``, the sentences
``phrasebook(..., relations=True)`` adds."""

from __future__ import annotations

import json
import re

import pytest

from tutorlib.translation.phrasebook import Name, Pron, Sentence, phrasebook, render, world
from tutorlib.translation.phrasebook.grammar import NP, english_words, lexicon_words
from tutorlib.translation.phrasebook.lexicon import NOUN, RELATION_FEMININE, RELATIONS
from tutorlib.translation.phrasebook.relations import RELATION_SIZES
from tutorlib.translation.phrasebook.splits import held_out, relation_pairs


def rel(relation: str, word: str, gender: str = "") -> Name:
    owner, noun = relation.split()
    return Name(word, relation=noun, owner=owner, gender=gender)


@pytest.mark.parametrize(
    ("spec", "mark", "english", "portuguese"),
    [
        (
            Sentence("be", rel("my friend", "ana", "f"), x="tired"),
            ".",
            "my friend ana is tired.",
            "minha amiga ana está cansada.",
        ),
        (
            Sentence("be", rel("my friend", "tomás", "m"), x="tired", tense="past"),
            ".",
            "my friend tomás was tired.",
            "meu amigo tomás estava cansado.",
        ),
        # a name of unknown gender takes the masculine, as "dr" does
        (
            Sentence("be", rel("your teacher", "oluwaseun"), x="busy"),
            "",
            "your teacher oluwaseun is busy",
            "seu professor oluwaseun está ocupado",
        ),
        # a relation of one gender gives its own to the name and to what agrees with it
        (
            Sentence("be", rel("my sister", "zoë"), x="happy", negated=True),
            "!",
            "my sister zoë is not happy!",
            "minha irmã zoë não é feliz!",
        ),
        # after a preposition the article comes back and contracts: de + a = da
        (
            Sentence("verb", Pron("i"), x=("like", rel("your sister", "ingrid", "f"))),
            ".",
            "i like your sister ingrid.",
            "gosto da sua irmã ingrid.",
        ),
        (
            Sentence("verb", Pron("we"), x=("like", rel("my neighbor", "kwame", "m"))),
            ".",
            "we like my neighbor kwame.",
            "gostamos do meu vizinho kwame.",
        ),
        (
            Sentence("where", rel("my doctor", "priya", "f"), question=True),
            "?",
            "where is my doctor priya?",
            "onde está minha médica priya?",
        ),
        (
            Sentence("what", rel("your student", "ana silva", "f"), question=True, x="want"),
            "?",
            "what does your student ana silva want?",
            "o que sua aluna ana silva quer?",
        ),
        (
            Sentence(
                "verb",
                rel("my friend", "oluwaseun", "m"),
                x=("buy", NP("3", "chair", True, "red")),
                tense="past",
                time="yesterday",
            ),
            ".",
            "my friend oluwaseun bought 3 red chairs yesterday.",
            "meu amigo oluwaseun comprou 3 cadeiras vermelhas ontem.",
        ),
    ],
)
def test_a_relation_keeps_the_name_and_agrees_with_its_gender(spec, mark, english, portuguese):
    assert render(spec, mark=mark) == (english, portuguese)


def test_a_name_alone_and_a_title_render_as_before():
    """The new fields change nothing for a name without a relation: its gender, even given,
    shows in nothing (the grammar gives a name alone only invariable adjectives)."""
    for name in (Name("ana"), Name("ana", gender="f"), Name("smith", "mrs")):
        assert render(Sentence("verb", Pron("i"), x=("see", name))) == (
            f"i see {render(Sentence('np', name))[0]}",
            f"vejo {render(Sentence('np', name))[1]}",
        )
    assert render(Sentence("np", Name("ana", gender="f"))) == ("ana", "ana")
    assert render(Sentence("np", Name("smith", "mrs"))) == ("mrs smith", "a senhora smith")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (rel("my sister", "john", "m"), "a sister is female, the name is male"),
        (rel("my father", "ana", "f"), "a father is male, the name is female"),
        (Name("ana", relation="cousin", owner="my"), "a relation is one of"),
        (Name("ana", relation="friend", owner="the"), "with owner 'my' or 'your', got 'the'"),
        (rel("my friend", "ana", "x"), "gender is 'f', 'm' or '' \\(unknown\\), got 'x'"),
    ],
)
def test_a_relation_that_cannot_be_says_why(name, message):
    with pytest.raises(ValueError, match=message):
        render(Sentence("be", name, x="tired"))


def test_every_relation_has_a_masculine_and_a_feminine_or_a_gender_of_its_own():
    for relation in RELATIONS:
        noun = NOUN[relation]
        if relation in RELATION_FEMININE:
            assert noun.gender == "m" and RELATION_FEMININE[relation] != noun.pt
        assert noun.possessive, relation  # "my ..." must be said of it
    assert set(RELATION_FEMININE.values()) <= lexicon_words()


def test_names_genders_come_from_the_names_file():
    genders = json.loads((world._GENDERS_FILE).read_text(encoding="utf-8"))
    first = {n.lower() for kinds in world.real_names().values() for n in kinds["first"]}
    assert set(genders) <= first and set(genders.values()) == {"f", "m"}
    assert len(genders) > 0.9 * len(first)
    assert world.gender_of("Maria") == world.gender_of("MARIA") == "f"
    assert world.gender_of("Kwame") == "m"
    assert world.gender_of("Andrea") == ""  # female in some languages, male in others
    assert world.gender_of("Zzyzx") == ""  # no first name of the file
    with pytest.raises(ValueError, match="expects a string, got int"):
        world.gender_of(3)


@pytest.fixture(scope="module")
def real():
    return {split: relation_pairs(split, "real") for split in RELATION_SIZES}


def test_relation_pairs_are_new_sentences_each_with_a_relation_before_a_name(real):
    for names in ("made-up", "real"):
        for split, size in RELATION_SIZES.items():
            pairs = real[split] if names == "real" else relation_pairs(split, names)
            english = [en for en, _ in pairs]
            assert len(pairs) == size and len(set(english)) == size
            ours = {en.rstrip(".!?") for en, _ in phrasebook(split, names=names)}
            assert not [en for en in english if en.rstrip(".!?") in ours]
            assert all(re.search(rf"\b(my|your) ({'|'.join(RELATIONS)}) ", en) for en in english)
    assert phrasebook("test", relations=True) == phrasebook("test") + list(relation_pairs("test"))
    assert phrasebook("valid", names="real", draw=0, relations=True)[-1] == real["valid"][-1]


_AFTER_RELATION = re.compile(rf"\b(my|your) ({'|'.join(RELATIONS)}) (?=([^,.!?]+))")
WORDS = lexicon_words() | english_words()  # "won't" is no name


def _named(en: str, pool=None) -> list[tuple[str, str, str]]:
    """``[(owner, relation, name)]`` for each relation before a name in ``en`` ("your mother
    needs ..." is a noun phrase: no name follows). With ``pool``, the name is the longest one
    of the pool that the words after the relation start with (first names may have two
    words), and a word after a relation that is neither the grammar's nor a pool name fails."""
    found = []
    for owner, relation, rest in _AFTER_RELATION.findall(en):
        words = rest.split()
        if words[0] in WORDS:
            continue
        if pool is None:
            found.append((owner, relation, words[0]))
            continue
        name = next((" ".join(words[:k]) for k in (2, 1) if " ".join(words[:k]) in pool), None)
        assert name is not None, f"{en!r}: {rest!r} starts with no name of the split"
        found.append((owner, relation, name))
    return found


def test_made_up_names_are_new_and_of_no_known_gender():
    """Made-up names say nothing of a gender, so "friend" and the like take the masculine."""
    used = {w for split in RELATION_SIZES for en, _ in phrasebook(split) for w in en.split()}
    for split in RELATION_SIZES:
        pairs = relation_pairs(split)
        assert not any(f" {f} " in f" {pt} " for _, pt in pairs for f in RELATION_FEMININE.values())
        named = [(en, name) for en, _ in pairs for _, _, name in _named(en)]
        assert len(named) >= len(pairs)
        for en, name in named:
            assert name not in used, (en, name)


def test_real_names_are_the_splits_own_and_the_portuguese_agrees_with_their_gender(real):
    """No test or validation name in a training sentence, and the relation's Portuguese is of
    the name's gender (``gender_of``), the masculine when it is unknown; a relation of one
    gender meets no name of the other."""
    pt_of = {r: (NOUN[r].pt, RELATION_FEMININE.get(r, NOUN[r].pt)) for r in RELATIONS}
    checked = 0
    for split, pairs in real.items():
        pools = set(world._pools(split)["first"])
        for en, pt in pairs:
            for owner, relation, first in _named(en, pools):
                gender = world.gender_of(first)
                fixed = "" if relation in RELATION_FEMININE else NOUN[relation].gender
                assert not (fixed and gender and gender != fixed), (en, gender)
                said = pt_of[relation][(fixed or gender or "m") == "f"]
                assert re.search(rf"\b{said} {re.escape(first)}\b", pt), (en, pt, said)
                checked += 1
    assert checked >= sum(RELATION_SIZES.values())
    women = sum(" amiga " in f" {pt} " or " professora " in f" {pt} " for _, pt in real["test"])
    assert women > 0.1 * RELATION_SIZES["test"]  # the feminine is there to be learned


def test_relation_pairs_keep_the_other_splits_combinations_out(real):
    """No held-out adjective-noun pair of another split ("the red house", "the house is red")
    in a sentence; the generator checks the verb-object pairs the same way."""
    for split, other in (("train", "test"), ("train", "valid"), ("test", "valid")):
        held = held_out(other)
        for en, _ in real[split]:
            words = set(re.findall(r"[a-z]+", en))
            for adj, noun in held["adjective_noun"]:
                assert not (
                    re.search(rf"\b{adj} {noun}s?\b", en)
                    or re.search(rf"\bthe {noun}s? (is|are|was|were) {adj}\b", en)
                ), (split, en, adj, noun)
            assert words  # a sentence, not an empty string


def test_a_later_draw_gives_other_sentences_and_names_of_the_same_split(real):
    again = relation_pairs("train", "real", 1)
    assert len(again) == RELATION_SIZES["train"] and set(again) != set(real["train"])
    pools = set(world._pools("train")["first"])
    assert sum(len(_named(en, pools)) for en, _ in again) >= len(again)


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match="relations must be True or False, got 'yes'"):
        phrasebook("train", relations="yes")
    with pytest.raises(ValueError, match="split must be one of"):
        relation_pairs("training")
    with pytest.raises(ValueError, match="names must be one of"):
        relation_pairs("train", "fake")
    with pytest.raises(ValueError, match="draw=1 needs names='real'"):
        relation_pairs("train", "made-up", 1)
    with pytest.raises(ValueError, match="draw must be a whole number"):
        relation_pairs("train", "real", -1)


def test_names_bench_relation_cases_use_unseen_names_of_known_gender():
    """``benchmarks/names_bench.py``'s relation group: test names only, each of known gender,
    the relation and name it checks written in the expected Portuguese, of that gender."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "names_bench.py"
    spec = importlib.util.spec_from_file_location("names_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cases = bench.relation_cases()
    assert len(cases) > 400
    feminine = set(RELATION_FEMININE.values()) | {"mãe", "irmã", "filha"}
    for en, pt, said in cases:
        owner, relation, name = said.split(" ", 2)
        assert said in pt and name in en and world.name_split(name) == "test", (en, said)
        assert (relation in feminine) == (world.gender_of(name) == "f"), (en, said)
        assert owner in ("meu", "minha", "seu", "sua")
