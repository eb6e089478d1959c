"""The phrasebook with names and numbers from the world: chapter 14's GPT learns to copy them.

The phrasebook's own names are made of a few syllables ("kora", "totini"): a
model that spells names, as the GPT on BPE tokens does, learns to spell those
and little else ("Oluwaseun" came out as "olu", issue 36; the model trained on real names
still writes "oluutn"). ``with_real_names``
gives the same sentences with the name slot filled from real first and family
names of 34 languages (``names.json``, gathered from Faker's person providers
by ``tools/real_names.py``, under Faker's MIT licence: ``names.LICENSE``; accents,
apostrophes, hyphens, names of two words)
and the numbers redrawn with one to six digits. Every other word stays. A
later draw (``RESPELL_DRAW`` on) respells one name in three with the lower-case letters of
Latin-1 and Latin Extended-A (``_respell``), so that a model also reads the letters no
training name has.

Names are split **by name**: each name belongs to one split, so no test or
validation name is ever a training name; and the names that only three
languages have (``HELD_OUT_LANGUAGES``: Finnish, Polish, Yoruba) are in no
training sentence at all, to measure names of a language the model never read
(a name those languages share with others, "Adam", "Anne", may be a training
name). ``gender_of`` says whether Faker lists a first name as female or male
(``genders.json``), for the sentences in which a relation comes before a name
and agrees with it ("minha amiga ana", ``splits.relation_pairs``). No torch.

Derived in chapter 14 (From words to tokens: byte-pair encoding).
"""

from __future__ import annotations

import json
import re
import unicodedata
import zlib
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from .grammar import NOT_NAMES, lexicon_words

__all__ = [
    "HELD_OUT_LANGUAGES",
    "NAMES",
    "real_names",
    "name_split",
    "name_languages",
    "names_of",
    "with_real_names",
    "check_draw",
    "gender_of",
    "guess_gender",
    "name_leaning",
    "name_endings",
    "NameGuess",
]

NAMES = ("made-up", "real")  # what phrasebook(split, names=...) accepts
HELD_OUT_LANGUAGES = ("fi", "pl", "yo")  # in no training sentence: names of unseen languages
_NAMES_FILE = Path(__file__).with_name("names.json")
_GENDERS_FILE = Path(__file__).with_name("genders.json")
_LEANINGS_FILE = Path(__file__).with_name("leanings.json")
_TITLE_WORDS = {"mr", "mrs", "ms", "dr", "senhor", "senhora", "doutor"}
_TOKEN = re.compile(r"[^\s,.!?]+")
_MADE_UP = re.compile(r"[a-z]+")  # the phrasebook's own names: a few syllables, lower case
_MASK = (1 << 64) - 1


def _mix(text: str) -> int:
    """A 64-bit number from ``text``, the same on every machine (a SplitMix64 step on its CRC)."""
    z = (zlib.crc32(text.encode("utf-8")) + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


@lru_cache(maxsize=1)
def real_names() -> dict[str, dict[str, tuple[str, ...]]]:
    """``{language: {"first": names, "family": names}}`` as typed ("Zoë", "O'Brien"): the file
    ``names.json``."""
    data = json.loads(_NAMES_FILE.read_text(encoding="utf-8"))
    return {lang: {kind: tuple(v) for kind, v in kinds.items()} for lang, kinds in data.items()}


@lru_cache(maxsize=1)
def _languages() -> dict[str, frozenset[str]]:
    """Each lower-case name and the languages that have it."""
    found: dict[str, set[str]] = {}
    for lang, kinds in real_names().items():
        for names in kinds.values():
            for name in names:
                found.setdefault(name.lower(), set()).add(lang)
    return {name: frozenset(langs) for name, langs in found.items()}


@lru_cache(maxsize=1)
def _genders() -> dict[str, str]:
    return json.loads(_GENDERS_FILE.read_text(encoding="utf-8"))


def gender_of(name: str) -> str:
    """``"f"`` for a first name that some locale of Faker lists among its female first names and
    none among its male ones, ``"m"`` for the reverse, ``""`` when it is unknown: listed both
    ways ("Andrea": female in most lists, male in the Swiss German and Belgian French ones),
    only by locales whose lists say no gender, or not a first name of ``names.json`` at all
    (``genders.json``, written by ``tools/real_names.py``). Any case; one name, as
    ``names.json`` writes it ("Ana", not "Ana Silva").

    The phrasebook uses it to agree with a name after a relation: "my friend ana" ->
    "minha amiga ana" (``phrasebook(..., relations=True)``).
    """
    if not isinstance(name, str):
        raise ValueError(f"gender_of expects a string, got {type(name).__name__}")
    return _genders().get(unicodedata.normalize("NFC", name.strip()).lower(), "")


# A name the list does not have is guessed from its ending: the longest ending of up to three
# letters that at least five of the list's first names end in (each longer than the ending), if
# three in four of those names or more are of one gender. Of the settings tried (2 to 4 letters,
# 2 to 8 names, a half to nine tenths), the one with the most names right among those that make
# at most one man in ten a woman: cross-validated by language, 90 % of men and 60 % of women
# right, where the masculine alone gets every man and no woman (benchmarks/gender_guess.py).
ENDING_LETTERS, ENDING_NAMES, ENDING_SHARE = 3, 5, 3 / 4


# A name the list has as both genders ("Olga": female in 16 of the languages that list it, male
# in Indonesian) leans to one when at least five languages list it and three in four of them
# give it that gender only (a language that lists it both ways counts for neither): the ending
# rule's thresholds, taken as they are (no list says which gender an ambiguous name has, so
# there is nothing to tune them on).
LEANING_LANGUAGES, LEANING_SHARE = 5, 3 / 4


class NameGuess(NamedTuple):
    """A guess of a name's gender: the ``gender`` ("f", "m" or "" for no guess), ``by`` what:
    ``"ending"``, the name's ``ending``, which ``listed`` first names on the list end in,
    ``agree`` of them of that gender (``guess_gender``); or ``"languages"``, the ``listed``
    languages of Faker whose lists have the name, ``agree`` of them as that gender only
    (``name_leaning``)."""

    gender: str
    ending: str = ""
    agree: int = 0
    listed: int = 0
    by: str = "ending"


def ending_table(genders: dict[str, str]) -> dict[str, tuple[str, int, int]]:
    """``{ending: (gender, agree, listed)}`` for every ending of one to ``ENDING_LETTERS``
    letters that ``listed`` >= ``ENDING_NAMES`` of ``genders``'s names (lower-case name -> "f"
    or "m") end in, each longer than it, ``agree`` of them of the commoner gender; that gender,
    or "" where it has less than ``ENDING_SHARE`` of them. Sorted by ending."""
    counts: dict[str, dict[str, int]] = {}
    for name, gender in genders.items():
        for k in range(1, ENDING_LETTERS + 1):
            if len(name) > k:
                counted = counts.setdefault(name[-k:], {"f": 0, "m": 0})
                counted[gender] += 1
    table = {}
    for ending, counted in sorted(counts.items()):
        listed = counted["f"] + counted["m"]
        if listed >= ENDING_NAMES:
            gender = max("fm", key=counted.__getitem__)
            agree = counted[gender]
            table[ending] = (gender if agree >= ENDING_SHARE * listed else "", agree, listed)
    return table


@lru_cache(maxsize=1)
def name_endings() -> dict[str, tuple[str, int, int]]:
    """``ending_table`` of the list's first names (``genders.json``): what ``guess_gender``
    reads, and what the page carries to guess as it does."""
    return ending_table(_genders())


def guess_gender(name: str, endings: dict | None = None) -> NameGuess:
    """The gender a first name's ending suggests: ``NameGuess("f", "iya", 8, 8)`` for "Priya",
    as all 8 listed first names that end in "iya" are women's; ``NameGuess("")`` when its
    longest ending the list has enough names for is of neither gender (a shorter ending is not
    read instead: when the longer, closer evidence is split, a shorter one's majority would
    hide the doubt), or the name is no longer than any such ending. Any case; the ending table
    ``endings`` (``ending_table``), the list's by default (``name_endings``).

    A guess, not a fact: for a name the list does not have at all (not "Andrea", which it
    lists as both: ``name_leaning`` reads those), where a word model cannot read the
    letters. The translator and the GPT on
    words use its feminine for a capitalised name after "friend" (``copying.guessed_genders``),
    and say so."""
    if not isinstance(name, str):
        raise ValueError(f"guess_gender expects a string, got {type(name).__name__}")
    table = name_endings() if endings is None else endings
    word = unicodedata.normalize("NFC", name.strip()).lower()
    for k in range(min(ENDING_LETTERS, len(word) - 1), 0, -1):
        found = table.get(word[-k:])
        if found is not None:
            gender, agree, listed = found
            return NameGuess(gender, word[-k:], agree, listed) if gender else NameGuess("")
    return NameGuess("")


@lru_cache(maxsize=1)
def _leanings() -> dict[str, list[int]]:
    return json.loads(_LEANINGS_FILE.read_text(encoding="utf-8"))


def name_leaning(name: str) -> NameGuess:
    """The gender a first name the list has as both leans to: ``NameGuess("f", "", 16, 17,
    "languages")`` for "Olga", which 16 of the 17 languages whose lists have it give only to
    women (``leanings.json``, written by ``tools/real_names.py``: for each such name, the
    languages that list it as a woman's only, as a man's only, and both ways, which count for
    neither gender); ``NameGuess("")`` when fewer than ``LEANING_LANGUAGES`` languages list it,
    when fewer than ``LEANING_SHARE`` of them agree ("Kim": 1 women's only, 3 men's only, 4
    both), or when the list has it as one gender or not at all. Any case.

    A guess, as ``guess_gender``'s: the translator and the GPT on words use its feminine for a
    capitalised name after "friend" (``copying.guessed_genders``), and say so."""
    if not isinstance(name, str):
        raise ValueError(f"name_leaning expects a string, got {type(name).__name__}")
    counts = _leanings().get(unicodedata.normalize("NFC", name.strip()).lower())
    if counts is None:
        return NameGuess("")
    women, men, both = counts
    listed = women + men + both
    for gender, agree in (("f", women), ("m", men)):
        if listed >= LEANING_LANGUAGES and agree >= LEANING_SHARE * listed:
            return NameGuess(gender, "", agree, listed, "languages")
    return NameGuess("")


def name_languages(name: str) -> frozenset[str]:
    """The languages of ``names.json`` that have ``name`` (any case); empty for another name."""
    if not isinstance(name, str):
        raise ValueError(f"name_languages expects a string, got {type(name).__name__}")
    return _languages().get(name.lower(), frozenset())


def name_split(name: str) -> str | None:
    """``"train"``, ``"valid"`` or ``"test"``: the one split whose sentences may hold ``name``;
    None for a name that ``names.json`` does not have.

    A name of the held-out languages alone goes to "valid" or "test" (half
    each); any other to "train" (8 in 10), "valid" or "test" (1 in 10
    each), by a hash of its lower case, so that the choice is the same on
    every machine."""
    languages = name_languages(name)
    if not languages:
        return None
    h = _mix("name " + name.lower()) % 10
    if languages <= set(HELD_OUT_LANGUAGES):
        return "test" if h % 2 == 0 else "valid"
    return "test" if h == 0 else "valid" if h == 1 else "train"


def names_of(split: str) -> tuple[str, ...]:
    """The names, as ``names.json`` writes them ("Zoë", "O'Brien"), that sentences of ``split``
    may hold: the split's own (``name_split``), none a word of the grammar ("Rose", "Will").

    Derived in chapter 14 (From words to tokens: byte-pair encoding).
    """
    if split not in ("train", "valid", "test"):
        raise ValueError(f"split must be 'train', 'valid' or 'test', got {split!r}")
    pool = set(_pools(split)["first"]) | set(_pools(split)["family"])
    typed = {n for kinds in real_names().values() for names in kinds.values() for n in names}
    return tuple(sorted(n for n in typed if n.lower() in pool))


@lru_cache(maxsize=1)
def _grammar_words() -> frozenset[str]:
    return frozenset(lexicon_words() | NOT_NAMES)


@lru_cache(maxsize=3)
def _pools(split: str) -> dict[str, tuple[str, ...]]:
    """The lower-case first and family names a sentence of ``split`` may hold: the split's own,
    none of them a word of the grammar ("rose", "will")."""
    words = _grammar_words()  # no name may be one
    pools: dict[str, set[str]] = {"first": set(), "family": set()}
    for kinds in real_names().values():
        for kind, names in kinds.items():
            for name in names:
                low = name.lower()
                if name_split(low) == split and not set(low.replace("-", " ").split()) & words:
                    pools[kind].add(low)
    return {kind: tuple(sorted(names)) for kind, names in pools.items()}


def _number(old: str, salt: str = "", shapes: bool = False) -> str:
    """A number of one to six digits (each length equally often) for the phrasebook's ``old``: 2
    to 9 for one digit, since "1" would need the singular.

    With ``shapes`` (a later draw, ``with_real_names(..., draw=1)``), one number in three of two
    digits or more is round (one or two digits, then zeros: "75000", "300") or holds a run of
    one digit ("4440", "99999"), shapes the first draw gives seldom beyond two digits. A run of
    zeros drawn at the front gives its first place to a 1 ("00" becomes "10")."""
    h = _mix(f"number {salt}{old}")
    digits = 1 + h % 6
    if digits == 1:
        return str(2 + (h >> 8) % 8)
    low = 10 ** (digits - 1)
    shape = (h >> 40) % 6 if shapes else 5
    if shape == 0:  # round: its first one or two digits, then zeros
        lead = 1 + (h >> 8) % min(digits - 1, 2)
        top = 10 ** (lead - 1) + (h >> 16) % (9 * 10 ** (lead - 1))
        return str(top * 10 ** (digits - lead))
    if shape == 1:  # a run of one digit (at least two), the rest drawn
        digit, run = (h >> 8) % 10, 2 + (h >> 12) % (digits - 1)
        start = (h >> 20) % (digits - run + 1)
        number = str(low + (h >> 24) % (9 * low))
        number = number[:start] + str(digit) * run + number[start + run :]
        return number if number[0] != "0" else str(1 + digit % 9) + number[1:]
    return str(low + (h >> 8) % (9 * low))


# For training, each sentence with a name comes COPIES[0] more times with other names, and each
# with a number COPIES[1] more times with other numbers: a model that copies by spelling learns
# from many names (and numbers) more than from many sentences.
COPIES = (3, 6)


# From this draw on, one name in three is respelled (``_respell``): the GPT on BPE reads every
# letter of Latin-1 and Latin Extended-A in a name, not only those of the training languages.
RESPELL_DRAW = 7
_LETTERS = tuple(
    sorted(
        {chr(c) for c in range(ord("a"), ord("z") + 1)}
        | {
            chr(c)
            for c in range(0xDF, 0x180)
            if unicodedata.category(chr(c)) == "Ll"
            and "LATIN" in unicodedata.name(chr(c), "")
            and chr(c).upper().lower() == chr(c)  # not ß, ı, ŉ or ſ: capitals must give it back
        }
    )
)


@lru_cache(maxsize=1)
def _every_name() -> frozenset[str]:
    names = real_names().values()
    return frozenset(n.lower() for kinds in names for some in kinds.values() for n in some)


def _respell(name: str, salt: str) -> str:
    """``name`` with one or two of its letters swapped for letters of ``_LETTERS`` (every
    lower-case Latin letter of ASCII, Latin-1 and Latin Extended-A whose capital gives it back:
    "maria" -> "małia"), one time in three by a hash of ``salt``; ``name`` itself otherwise, or
    when a word the respelling makes is a name of ``names.json`` (of any split: "enzo gabriel"
    must not become "enzi gabriel", "enzi" being a validation name) or a word of the grammar.
    A letter that carries a combining mark ("i̇" of Turkish names) is left alone: swapped, the
    mark would join the new letter into one outside ``_LETTERS``."""
    h = _mix(f"respell {salt}{name}")
    places = [
        i
        for i, c in enumerate(name)
        if c.isalpha() and not (i + 1 < len(name) and unicodedata.combining(name[i + 1]))
    ]
    if h % 3 or not places:
        return name
    letters = list(name)
    for k in range(1 + (h >> 4) % 2):
        place = places[(h >> (8 + 12 * k)) % len(places)]
        letters[place] = _LETTERS[(h >> (14 + 12 * k)) % len(_LETTERS)]
    new = unicodedata.normalize("NFC", "".join(letters))
    made = set(new.replace("-", " ").split()) - set(name.replace("-", " ").split())
    taken = made & _every_name() or made & _grammar_words()
    return name if taken else new


def _swap(
    en: str, pt: str, split: str, salt: str, words, shapes: bool = False, respell: bool = False
) -> tuple[str, str, set[str]]:
    """``(en, pt)`` with real names and redrawn numbers (``_number``'s ``shapes``), and what it
    had: {"name", "number"}; with ``respell``, names respelled by ``_respell``."""
    pools = _pools(split)
    swap: dict[str, str] = {}
    before = ""
    for token in _TOKEN.findall(en):
        if token not in words and token not in swap:
            if token.isdigit():
                swap[token] = _number(token, salt, shapes)
            elif _MADE_UP.fullmatch(token):
                after_name = before in swap and not before.isdigit()
                kind = "family" if before in _TITLE_WORDS or after_name else "first"
                pool = pools[kind]
                swap[token] = pool[_mix(f"{split} {salt}{token}") % len(pool)]
                if respell:
                    swap[token] = _respell(swap[token], f"{split} {salt}{token}")
        before = token
    if not swap:
        return en, pt, set()
    alternatives = "|".join(map(re.escape, swap))
    pattern = re.compile(rf"(?<![^\s,.!?])({alternatives})(?![^\s,.!?])")
    en, pt = (pattern.sub(lambda m: swap[m.group(1)], side) for side in (en, pt))
    return en, pt, {"number" if old.isdigit() else "name" for old in swap}


def check_draw(draw) -> int:
    """``draw`` when it is a draw of the names and numbers (a whole number, 0 or more), else a
    ``ValueError`` that says so."""
    if isinstance(draw, bool) or not isinstance(draw, int) or draw < 0:
        raise ValueError(f"draw must be a whole number >= 0, got {draw!r}")
    return draw


def with_real_names(
    pairs: list[tuple[str, str]], split: str, draw: int = 0
) -> list[tuple[str, str]]:
    """``pairs`` of the phrasebook's ``split`` with its names and numbers from the world: each
    made-up name becomes a real one of ``split``'s (a first name, or a family name after a
    title or another name: "mr kora" -> "mr nakamura"), each number one of one to six digits,
    the same in both languages; every other word stays. For ``"train"``, the sentences with a
    name (or a number) then come ``COPIES`` more times, each time with other names (numbers).

    ``draw`` 0 is the one the splits are measured on; a later draw (1, 2, ...) gives the same
    sentences with other names and numbers of the same split, a third of the numbers of two
    digits or more round or with a run of one digit (``_number``), for training on (the shipped
    GPT's later stages); from ``RESPELL_DRAW`` on, one name in three respelled (``_respell``).

    Derived in chapter 14 (From words to tokens: byte-pair encoding).
    """
    if split not in ("train", "valid", "test"):
        raise ValueError(f"split must be 'train', 'valid' or 'test', got {split!r}")
    check_draw(draw)
    words, shapes, respell = _grammar_words(), draw > 0, draw >= RESPELL_DRAW
    first = f"draw {draw} " if draw else ""  # draw 0 keeps the salts it always had
    out, again = [], []
    for en, pt in pairs:
        new_en, new_pt, had = _swap(en, pt, split, first, words, shapes, respell)
        out.append((new_en, new_pt))
        copies = max([COPIES[0]] * ("name" in had) + [COPIES[1]] * ("number" in had), default=0)
        if split == "train":
            again += [
                _swap(en, pt, split, f"{first}copy {k} ", words, shapes, respell)[:2]
                for k in range(1, copies + 1)
            ]
    return out + again
