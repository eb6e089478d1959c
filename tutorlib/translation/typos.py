"""A typo one edit from a word the models know, read as that word: "the techer" -> "the teacher".

The models learned the phrasebook's English and nothing else, so a typed word
outside it is copied into the translation as if it were a name ("o techer
escreve um poema"). ``read_typos`` reads such a word as the one phrasebook word
it is one keystroke away from, and says so in a notice ("read 'techer' as
'teacher'"), delivered as every other notice of ``translate`` is. The rule is
data (``typo_words``, ``not_typos``) and a few lines of comparison, so that the
book's JavaScript explorer can run the same one. No torch (the command line
imports it before torch).

Derived in chapter 10 (Translating and evaluating).
"""

from __future__ import annotations

import functools
import re

from .common_english import COMMON_ENGLISH
from .phrasebook.grammar import english_words, portuguese_words
from .phrasebook.lexicon import TITLES

__all__ = ["read_typos", "typo_words", "not_typos", "one_edit", "SHORTEST_TYPO"]

# Words of fewer letters than this are never read as typos: "ot" is one edit from "to", "on",
# "at", "hot", "not" and more; the ties would refuse it anyway, and a guess would be a coin toss.
SHORTEST_TYPO = 3

# A word as the rule sees it: ASCII letters alone, with the marks before and after it ('"', '(',
# '.', ','...). Anything else in a white-space separated piece (a digit, a hyphen, an apostrophe,
# "@", "/", an accented letter) leaves the piece as typed: "dog's" is no typo of "dogs".
_PIECE = re.compile(r"^([^\w'\u2019]*)([A-Za-z]+)([^\w'\u2019]*)$")


@functools.lru_cache(maxsize=1)
def typo_words() -> tuple[str, ...]:
    """The words a typo may be read as: the phrasebook's English words (``english_words``)
    made of letters alone (no ","), sorted.

    This list, ``not_typos()`` and ``one_edit`` are all ``read_typos`` needs: what a mirror
    of the rule in another language would copy.

    Derived in chapter 10 (Translating and evaluating).
    """
    return tuple(sorted(w for w in english_words() if w.isalpha()))


@functools.lru_cache(maxsize=1)
def not_typos() -> tuple[str, ...]:
    """The words of letters that are never read as typos although the models do not know them,
    sorted: common English words one edit from a phrasebook word ("word", "many", "wife":
    ``tutorlib.translation.common_english``) and the phrasebook's Portuguese words
    (``portuguese_words``, which a Portuguese word in an English sentence should stay).

    Derived in chapter 10 (Translating and evaluating).
    """
    words = COMMON_ENGLISH | {w for w in portuguese_words() if w.isalpha()}
    return tuple(sorted(words - set(typo_words())))  # "a", "banana": English words already


@functools.lru_cache(maxsize=1)
def _known() -> frozenset:
    """Every word that is never a typo: the models' English, and ``not_typos()``."""
    return frozenset(typo_words()) | frozenset(not_typos())


def one_edit(typed: str, word: str) -> str | None:
    """``"swap"`` when ``word`` is ``typed`` with two adjacent letters swapped ("teh", "the"),
    ``"edit"`` when it is ``typed`` with one letter inserted, deleted or replaced, else None
    (the same word, or further apart): the optimal-string-alignment (Damerau) distance 1.

    Derived in chapter 10 (Translating and evaluating).
    """
    if typed == word:
        return None
    n, m = len(typed), len(word)
    if n == m:
        diff = [i for i in range(n) if typed[i] != word[i]]
        if len(diff) == 1:
            return "edit"
        i = diff[0]
        swapped = typed[i] == word[i + 1] and typed[i + 1] == word[i]
        return "swap" if len(diff) == 2 and diff[1] == i + 1 and swapped else None
    if abs(n - m) != 1:
        return None
    short, long_ = (typed, word) if n < m else (word, typed)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return "edit" if short[i:] == long_[i + 1 :] else None


def _reading(word: str) -> tuple[str | None, list[str]]:
    """``(the phrasebook word a lower-case typo reads as, or None; the words it was one edit
    from)``."""
    near = [(w, kind) for w in typo_words() if (kind := one_edit(word, w))]
    if len(near) == 1:
        return near[0][0], []
    swaps = [w for w, kind in near if kind == "swap"]
    if len(swaps) == 1:
        return swaps[0], []
    return None, [w for w, _ in near]


def read_typos(sentence: str) -> tuple[str, list[str]]:
    """``"The techer writes a poem."`` -> ``("The teacher writes a poem.", ["read 'techer' as
    'teacher'"])``: one sentence with each typo replaced by the word it reads as, and a notice
    for each correction (or each refused guess).

    The rule, exactly (the data: ``typo_words()`` and ``not_typos()``):

    1. The sentence is cut at white space; a piece is a word when it is ASCII letters alone,
       with only marks before and after it. A piece with a digit, a hyphen, an apostrophe
       ("dog's", "don't": English the phrasebook lacks, not typos), an accented letter, "@"
       or "/" is never touched.
    2. A word is a typo candidate when it is all lower case, it is in neither
       ``typo_words()`` nor ``not_typos()`` (common English words such as "word" and
       "many", and the phrasebook's Portuguese words), it has at least
       ``SHORTEST_TYPO`` (3) letters, and it does not follow a title ("mr", "mrs", "ms",
       "dr": the word after one is a name). A word with a capital letter is a name ("Maria",
       "Kwame", "O'Brien"), kept as typed, even the sentence's first word: there the capital
       cannot tell a name from a word, and the names learners use most are one edit from a
       phrasebook word ("Mark" from "park", "Rose" from "lose", "Sofia" from "sofa", "Sue"
       from "use", "Zoe" from "zoo"). Reading a name as a word would change the sentence
       silently ("Sofa is kind"); a typo left as typed is copied into the translation, where
       the learner sees it, with the translator's notice. So "Teh cat" stays, "teh cat" is
       read.
    3. Its readings are the words of ``typo_words()`` one edit away (``one_edit``: one
       letter inserted, deleted or replaced, or two adjacent letters swapped). One reading:
       the word is replaced by it, the marks around it kept, and the notice says
       ``read 'techer' as 'teacher'``. Several: when exactly one of them is a swap, that
       one is taken (a swap is the commonest typo: "teh" is one edit from "tea", "ten" and
       "the", but swapped only from "the"); else nothing is guessed and the notice says
       ``'bak' could be 'bad', 'bag' or 'bank': left as typed``. None: left as typed, silently
       (a name or a word the models never learned; the translator says so as before).

    Run it after the language check (``not_english``): it never turns Portuguese words into
    English ones (they are no candidates), and a Portuguese sentence is refused before it.

    Derived in chapter 10 (Translating and evaluating).
    """
    known = _known()
    pieces = re.split(r"(\s+)", sentence)
    notices: list[str] = []
    after_title = False
    for k, piece in enumerate(pieces):
        if not re.search(r"\w", piece):
            continue  # white space, or marks alone
        match = _PIECE.match(piece)
        word = match.group(2) if match else ""
        lower, follows_title, after_title = word.lower(), after_title, word.lower() in TITLES
        if not word.islower() or lower in known or len(word) < SHORTEST_TYPO or follows_title:
            continue
        reading, near = _reading(lower)
        if reading is None:
            if near:
                listed = ", ".join(f"'{w}'" for w in near[:-1]) + f" or '{near[-1]}'"
                notices.append(f"'{word}' could be {listed}: left as typed")
            continue
        pieces[k] = match.group(1) + reading + match.group(3)
        notices.append(f"read '{word}' as '{reading}'")
    return "".join(pieces), notices
