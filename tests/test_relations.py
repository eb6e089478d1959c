"""A relation before a name (issue 36): "my friend ana is tired." -> "minha amiga ana está
cansada.". The grammar's agreement, the names' genders, and ``relation_pairs``, the sentences
``phrasebook(..., relations=True)`` adds."""

from __future__ import annotations

import json
import re

import pytest

from tutorlib.translation.phrasebook import Name, Pron, Sentence, phrasebook, render, world
from tutorlib.translation.phrasebook.grammar import NP, combinations, english_words, lexicon_words
from tutorlib.translation.phrasebook.lexicon import (
    NOUN,
    RELATION_FEMININE,
    RELATIONS,
    relation_gender,
)
from tutorlib.translation.phrasebook.relations import RELATION_SIZES, draw_specs
from tutorlib.translation.phrasebook.splits import _build, relation_pairs


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
    shows in nothing (the grammar gives a name alone only invariable adjectives, and any other
    takes the masculine, as before)."""
    for name in (Name("ana"), Name("ana", gender="f"), Name("smith", "mrs")):
        assert render(Sentence("verb", Pron("i"), x=("see", name))) == (
            f"i see {render(Sentence('np', name))[0]}",
            f"vejo {render(Sentence('np', name))[1]}",
        )
    assert render(Sentence("np", Name("ana", gender="f"))) == ("ana", "ana")
    assert render(Sentence("be", Name("ana", gender="f"), x="tall")) == (
        "ana is tall",
        "ana é alto",
    )
    assert render(Sentence("np", Name("smith", "mrs"))) == ("mrs smith", "a senhora smith")
    assert render(Sentence("be", Name("smith", "mrs"), x="tall"))[1] == "a senhora smith é alta"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (rel("my sister", "john", "m"), "a sister is female, the name is male"),
        (rel("my father", "ana", "f"), "a father is male, the name is female"),
        (Name("ana", relation="cousin", owner="my"), "a relation is one of"),
        (Name("ana", relation="friend", owner="the"), "owner is 'my' or 'your', got 'the'"),
        (rel("my friend", "ana", "x"), "gender is 'f', 'm' or '' \\(unknown\\), got 'x'"),
        (Name("ana", gender="x"), "gender is 'f', 'm' or '' \\(unknown\\), got 'x'"),
        (Name("smith", "mrs", relation="friend", owner="my"), "a relation or a title, not both"),
        (Name("ana", owner="my"), "owner 'my' without a relation"),
    ],
)
def test_a_relation_that_cannot_be_says_why(name, message):
    with pytest.raises(ValueError, match=message):
        render(Sentence("be", name, x="tired"))


def test_every_relation_has_a_masculine_and_a_feminine_or_a_gender_of_its_own():
    """A relation that changes with the person is a masculine noun whose feminine is its
    masculine with the final -o made -a, or -a added ("professor", "professora"); the others
    have a gender of their own, and "my ..." can be said of every one."""
    for relation in RELATIONS:
        noun = NOUN[relation]
        assert noun.possessive, relation
        if relation in RELATION_FEMININE:
            stem = noun.pt[:-1] if noun.pt.endswith("o") else noun.pt
            assert noun.gender == "m" and RELATION_FEMININE[relation] == stem + "a", relation
            assert relation_gender(relation) == ""
        else:
            assert relation_gender(relation) == noun.gender
    with pytest.raises(ValueError, match="a relation is one of"):
        relation_gender("cousin")


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
            assert all(_named(en) for en in english), "a sentence with no name after a relation"
    assert phrasebook("test", relations=True) == phrasebook("test") + list(relation_pairs("test"))
    assert phrasebook("valid", names="real", relations=True) == (
        phrasebook("valid", names="real") + list(real["valid"])
    )


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
    """Made-up names say nothing of a gender, so "friend" and the like take the masculine; each
    is in one relation sentence of one split and in no sentence of the phrasebook (a word
    vocabulary keeps no name, as chapter 10's copy trick needs)."""
    words = world._TOKEN.findall  # "kora." holds the name "kora"
    used = {w for split in RELATION_SIZES for en, _ in phrasebook(split) for w in words(en)}
    seen: set[str] = set()
    for split in RELATION_SIZES:
        pairs = relation_pairs(split)
        assert not any(f" {f} " in f" {pt} " for _, pt in pairs for f in RELATION_FEMININE.values())
        named = [(en, name) for en, _ in pairs for _, _, name in _named(en)]
        assert len(named) >= len(pairs)
        for en, name in named:
            assert name not in used and name not in seen, (split, en, name)
            seen.add(name)


def test_real_names_are_the_splits_own_and_the_portuguese_agrees_with_their_gender(real):
    """No test or validation name in a training sentence, every name of known gender
    (``gender_of``), the relation's Portuguese of that gender; a relation of one gender meets
    no name of the other."""
    pt_of = {r: (NOUN[r].pt, RELATION_FEMININE.get(r, NOUN[r].pt)) for r in RELATIONS}
    checked = 0
    for split, pairs in real.items():
        pools = set(world._pools(split)["first"])
        for en, pt in pairs:
            for owner, relation, first in _named(en, pools):
                gender = world.gender_of(first)
                fixed = "" if relation in RELATION_FEMININE else NOUN[relation].gender
                assert gender and (not fixed or gender == fixed), (en, gender)
                said = pt_of[relation][(fixed or gender or "m") == "f"]
                assert re.search(rf"\b{said} {re.escape(first)}\b", pt), (en, pt, said)
                checked += 1
    assert checked >= sum(RELATION_SIZES.values())
    women = sum(" amiga " in f" {pt} " or " professora " in f" {pt} " for _, pt in real["test"])
    assert women > 0.1 * RELATION_SIZES["test"]  # the feminine is there to be learned


def test_relation_clauses_keep_the_other_splits_combinations_out():
    """No clause of a split holds a combination another split holds out (adjective-noun or
    verb-object, ``held_out``), and no clause names the same mother or father twice."""
    splits, held = _build()
    specs = draw_specs("real", 0, splits, held)
    held_by = {"test": held["test"], "valid": held["valid"]}
    for split, clauses in specs.items():
        others = set().union(*(h for s, h in held_by.items() if s != split))
        assert len(clauses) == RELATION_SIZES[split]
        for spec, _, _ in clauses:
            assert not combinations(spec) & others, (split, render(spec))
            x = spec.x[1] if spec.kind == "verb" else spec.x
            assert (
                not (
                    isinstance(x, Name)
                    and x.relation in ("mother", "father")
                    and (x.owner, x.relation) == (spec.subject.owner, spec.subject.relation)
                )
                if isinstance(spec.subject, Name)
                else True
            )


def test_one_mother_is_not_named_twice_in_a_clause():
    from tutorlib.translation.phrasebook.relations import _has_relation

    def sees(a, b):
        return Sentence("verb", rel(a, "ana", "f"), x=("see", rel(b, "eva", "f")))

    assert not _has_relation(sees("my mother", "my mother"))
    assert _has_relation(sees("my mother", "your mother"))
    assert _has_relation(sees("my sister", "my sister"))  # two sisters may be
    assert not _has_relation(Sentence("be", Name("ana"), x="tall"))


def test_a_later_draw_gives_other_sentences_and_names_of_the_same_split(real):
    again = relation_pairs("train", "real", 1)
    assert len(again) == RELATION_SIZES["train"]
    pools = set(world._pools("train")["first"])
    later = {n for en, _ in again for _, _, n in _named(en, pools)}  # fails on another's name
    assert len(later) > 0.8 * len({n for n in pools if world.gender_of(n)})
    assert sum(a[0] == b[0] for a, b in zip(real["train"], again)) < 0.01 * len(again)


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match="relations must be True or False, got 'yes'"):
        phrasebook("train", relations="yes")
    with pytest.raises(ValueError, match="split must be one of"):
        relation_pairs("training")
    with pytest.raises(ValueError, match="names must be one of"):
        relation_pairs("train", "fake")
    with pytest.raises(ValueError, match="draw=1 draws real names .* needs names='real'"):
        relation_pairs("train", "made-up", 1)
    with pytest.raises(ValueError, match="draw must be a whole number"):
        relation_pairs("test", "real", True)  # not the cached draw 1
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
