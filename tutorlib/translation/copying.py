"""Which source word an unknown output word copies (chapter 10's copy trick).

A word model writes ``<unk>`` where a word it has not learned belongs (a name, a number), and
the copy trick puts the unknown source word there that the step's attention points at: Luong et
al. (2015)'s unknown-word replacement, with attention as the alignment (Jean et al., 2015). Two
rules on top of the attention: a translation writes each name and number once for each time the
source has it, so a word not copied yet comes first (``copy_position``); and a name of several
words is a run of unknown words, copied whole and in order (``copy_positions``). Used by the
encoder–decoder (``decoding``), the GPT on words (``gpt.decoding``) and, in JavaScript, the
in-page translator (``assets/web/translator.js``). Torch tensors or anything indexable by a
list of positions.

For a name the list of names gives no gender, after a relation whose Portuguese follows the
person ("my friend Priya"), ``guessed_genders`` reads a woman's name from the languages that
list it, for a name the list has as both (``world.name_leaning``: "Olga"), or from its ending,
for one it does not have (``world.guess_gender``: "Priya"); ``with_guessed_genders`` gives a
word model's source ids the guess (``<unk:f>``, as a listed woman's name reads), and
``unknown_gender_notice`` says what the translation did: the guess (*minha amiga Priya*), or the
masculine Portuguese writes for a person of unknown gender. ``listed_genders`` finds the names
of known gender after such a relation, which the GPT on BPE, reading letters, is held to
(``gpt.decoding._agreeing``).

Derived in chapter 10 (Translating and evaluating).
"""

from __future__ import annotations

import re
import unicodedata

from .phrasebook.lexicon import NOUN, RELATION_FEMININE
from .phrasebook.world import NameGuess, gender_of, guess_gender, name_languages, name_leaning

__all__ = [
    "copy_position",
    "copy_positions",
    "guessed_genders",
    "with_guessed_genders",
    "listed_genders",
    "unknown_gender_notice",
    "UNKNOWN_GENDER",
]

# The relations whose Portuguese follows the person's gender ("friend": amigo or amiga), each with
# the masculine that Portuguese writes for a person whose gender is unknown, and their plurals
# ("friends": amigos), for the first name after one.
UNKNOWN_GENDER = {
    **{relation: NOUN[relation].pt for relation in RELATION_FEMININE},
    **{NOUN[relation].en_pl: NOUN[relation].pt_pl for relation in RELATION_FEMININE},
}
# what may stand between a relation and the name: a comma, the title "Dr" (in Portuguese
# doutor or doutora, or Dr copied as typed); after a comma, the name (of one word) must be
# closed by a comma, a full stop, "!", "?", ";" or the sentence's end
_SKIP_SOURCE = frozenset({",", "dr"})
_SKIP_OUTPUT = frozenset({",", "dr", "doutor", "doutora"})
_CLOSING = frozenset({",", ".", "!", "?", ";"})
_JOINS = re.compile(r"['\u2019-]")  # inside a name: "O'Neil", "Jean-Pierre"
_POSSESSIVE = re.compile(r"['\u2019][sS]$")


def copy_position(weights, unknown_at, copied=(), own_kind=()) -> int:
    """The source position an output ``<unk>`` copies: of the unknown source words
    (``unknown_at``), the one its attention row ``weights`` (one weight per source position)
    weighs most, among those not ``copied`` yet first.

    A name or a number is written once in a translation for each time the source has it, so a
    second ``<unk>`` whose attention still points at the name it just copied takes the word
    left over ("Kalani has 7 cats": *Kalani tem 7 gatos*, not *Kalani tem Kalani gatos*).
    ``own_kind``: the positions of the output's own kind (a GPT's one table, where an output
    ``<unk:f>`` copies a source ``<unk:f>``), preferred within each of the two groups: an
    uncopied word of another kind comes before a copied one of its own. When every unknown word
    is copied already (the model wrote more ``<unk>`` than the source has unknown words), the
    strongest of its own kind is copied again, or of all when it has none."""
    if not unknown_at:
        raise ValueError("copy_position needs at least one unknown source position, got none")
    copied, own_kind = set(copied), set(own_kind)
    fresh = [j for j in unknown_at if j not in copied]
    for pool in (
        [j for j in fresh if j in own_kind],
        fresh,
        [j for j in unknown_at if j in own_kind],
        unknown_at,
    ):
        if pool:
            # the row's weights on the pool's positions only -> the strongest of them
            return pool[int(weights[pool].argmax())]
    raise AssertionError("unreachable: unknown_at is not empty")


def copy_positions(weights, unknown_out, unknown_at, own_kind=None) -> dict[int, int]:
    """``{output step: source position}`` for every step that wrote an unknown word.

    ``weights``: the attention rows, one per output step (T, S); ``unknown_out``: for each step,
    whether it wrote ``<unk>`` (or ``<unk:f>``, ``<unk:m>``); ``unknown_at``: the source
    positions of unknown words; ``own_kind(t)``: the source positions of step t's own kind
    (a GPT's one table), or None. A name of several words ("pedro miguel", "anthony ó
    tuathlainn") is a run of unknown words in the source and, in the translation, a run of
    ``<unk>``; so, step by step:
    - a ``<unk>`` right after a copied one takes the next source word when that word is
      unknown and not copied yet, or when every unknown word is copied already (a name the
      model writes twice comes twice whole);
    - otherwise a run of ``L`` ``<unk>`` starting here takes ``L`` adjacent unknown source
      words not copied yet, the window whose weights, row by row, add up most (a model that
      reads "miguel" most at the run's first step still writes *pedro miguel*, and the
      unknown word before a name, "my colleague Ana Silva", is not taken for its first word);
    - any other ``<unk>`` (alone, or a run longer than every such window) takes
      ``copy_position``'s choice: the strongest unknown word of those not copied yet.
    """
    unknown = set(unknown_at)
    copied: dict[int, int] = {}
    previous = None  # the source position copied at the step before
    for t, is_unknown in enumerate(unknown_out):
        if not is_unknown:
            previous = None
            continue
        if t in copied:  # placed by a run's window
            previous = copied[t]
            continue
        taken = set(copied.values())
        if (
            previous is not None
            and previous + 1 in unknown
            and (previous + 1 not in taken or unknown <= taken)
        ):
            j = previous + 1  # the next word of a name of several words
        else:
            length = 1
            while t + length < len(unknown_out) and unknown_out[t + length]:
                length += 1
            starts = [
                s
                for s in unknown_at
                if all(s + k in unknown and s + k not in taken for k in range(length))
            ]
            if length > 1 and starts:
                scores = [sum(float(weights[t + k][s + k]) for k in range(length)) for s in starts]
                s = starts[max(range(len(starts)), key=scores.__getitem__)]  # the first best
                for k in range(1, length):
                    copied[t + k] = s + k
                j = s
            else:
                kind = own_kind(t) if own_kind is not None else ()
                j = copy_position(weights[t], unknown_at, taken, kind)
        copied[t] = previous = j
    return dict(sorted(copied.items()))


def _after_relation(source_words, j: int) -> tuple[str, str, int] | None:
    """``(name, relation, its position)`` when the word at ``j`` is a word of letters (an
    apostrophe or hyphen inside: "O'Neil"; a final "'s" left out) that follows a relation of
    ``UNKNOWN_GENDER`` (any case), a comma or "Dr" between allowed; after a comma, only a name
    that a comma, a mark or the end closes ("my friend, Priya, is"; not "the doctor, Priya
    was": a new clause). None otherwise."""
    name = unicodedata.normalize("NFC", _POSSESSIVE.sub("", source_words[j]))
    at = _before_at(source_words, j, _SKIP_SOURCE)
    relation = source_words[at].lower() if at >= 0 else ""
    is_name = all(part.isalpha() for part in _JOINS.split(name))
    if relation not in UNKNOWN_GENDER or not is_name:
        return None
    if name.lower() in _SKIP_SOURCE:  # "my friend Dr": the title itself
        return None
    closed = j + 1 == len(source_words) or source_words[j + 1] in _CLOSING
    if "," in source_words[at + 1 : j] and not closed:
        return None
    return name, relation, at


def _unlisted_after_relation(source_words, j: int) -> tuple[str, str, int] | None:
    """``_after_relation``'s answer for a word the list gives no gender; None otherwise."""
    found = _after_relation(source_words, j)
    return None if found is None or gender_of(found[0]) else found


def _one_person_after_relation(source_words, j: int) -> tuple[str, str] | None:
    """``(name, relation)`` of ``_after_relation``'s answer when the relation names one person
    and takes the person's gender (``RELATION_FEMININE``: "friend", not "friends" nor "sister")
    and no title stands between ("my friend Dr Ana"); None otherwise. Where both the guesses
    and the list's genders apply."""
    found = _after_relation(source_words, j)
    if found is None:
        return None
    name, relation, at = found
    if relation not in RELATION_FEMININE or "dr" in (w.lower() for w in source_words[at:j]):
        return None
    return name, relation


def listed_genders(source_words) -> dict[int, tuple[str, str]]:
    """``{position: (gender, relation)}`` (gender "f" or "m", the relation in lower case) for
    each word of ``source_words`` (a sentence's words as typed) that the list of names gives a
    gender (``world.gender_of``) and that follows a relation of one person whose Portuguese
    follows the person ("friend": *amigo* or *amiga*), no title between: what the translation's
    relation must agree with. "my teacher Thandiwe"
    -> ``{2: ("f", "teacher")}``; "my friends Ana" and "my friend Dr Ana" -> ``{}``.

    A word model reads the gender in its input (``<unk:f>``); a GPT on BPE reads only letters,
    and ``gpt.decoding.translate`` holds its output to these genders."""
    genders = {}
    for j in range(len(source_words)):
        found = _one_person_after_relation(source_words, j)
        if found is not None and gender_of(found[0]):
            genders[j] = (gender_of(found[0]), found[1])
    return genders


def guessed_genders(source_words, unknown_at) -> dict[int, NameGuess]:
    """``{position: guess}`` for each word of ``unknown_at`` (the positions a word model reads
    as unknown) that ``unknown_gender_notice`` would speak of and that is guessed a woman's
    name: by the languages that list it, for a name the list has as both
    (``world.name_leaning``: "Olga", 16 of 17); by its ending, for a name the list does not
    have at all (``world.guess_gender``: "Priya"). Only when the word is typed with a capital
    ("my friend really likes" guesses nothing), follows a relation of one person ("friend",
    not "friends": a plural is masculine as soon as one of them is a man) and no title stands
    between ("my friend Dr Priya": a title's name is a plain ``<unk>``, as the translator
    learned it). A name the list has only as a family name, or as both without a lean
    ("Kim"), keeps the masculine.

    Only the feminine: a name of unknown gender takes the masculine already, which a guess of
    "m" would only repeat, through an input (``<unk:m>``) the model learned from listed names
    alone."""
    guesses = {}
    for j in unknown_at:
        found = _one_person_after_relation(source_words, j)
        if found is None or gender_of(found[0]) or not source_words[j][:1].isupper():
            continue
        name = found[0]
        guess = name_leaning(name) if name_languages(name) else guess_gender(name)
        if guess.gender == "f":
            guesses[j] = guess
    return guesses


def with_guessed_genders(source_words, ids: list[int], vocab) -> list[int]:
    """``ids`` (a word model's source ids for ``source_words``), each name of
    ``guessed_genders`` read as ``<unk:f>``, as a woman's first name on the list reads
    (``data.Vocab.token_to_id``); ``ids`` as they are for a vocabulary that is not gendered.
    The model then writes the relation in the feminine: "My friend Priya is tired." -> *minha
    amiga Priya está cansada.*"""
    if not vocab.gendered:
        return list(ids)
    unknown_at = [j for j, i in enumerate(ids) if i in vocab.unknown_ids]
    out = list(ids)
    for j in guessed_genders(source_words, unknown_at):
        out[j] = vocab.token_to_id("<unk:f>")
    return out


def unknown_gender_notice(source_words, unknown_at, output_words, copied) -> str:
    """``""``, or what a learner must know when a word the course's list of names gives no
    gender follows "friend", "teacher", "neighbor", "student" or "doctor" (or their plurals)
    and the translation writes that relation right before a copy of it: in the feminine that
    the name's languages or ending suggested (``guessed_genders``), in the masculine though they
    suggested the feminine, or in the masculine, which Portuguese writes for a person of unknown
    gender.

    A word model reads a name the list lacks as a plain ``<unk>`` (a first name of known gender
    is ``<unk:f>`` or ``<unk:m>``), and it learned the masculine for a person of unknown gender:
    "My friend Oluwaseun" -> *meu amigo Oluwaseun*, right for a man and wrong for a woman,
    with nothing in the text to say so; "My friend Priya", read as a woman's name from its
    ending, -> *minha amiga Priya*, a guess. ``source_words``: the sentence's words as typed;
    ``unknown_at``: the positions of its words read as unknown; ``output_words``: the
    translation's words (what stands at a copied position does not matter); ``copied``:
    {output position: the source position it copies}.

    Said only for a word ``_unlisted_after_relation`` finds: of letters, of no listed gender
    (after a title a name of known gender is a plain ``<unk>`` too: "my friend Dr Maria" says
    nothing), after the relation in the source and the relation's form right before a copy in
    the translation, a comma or "Dr" between them allowed on either side. A word of letters
    need not be a name: "my friend here" names "here", which the list gives no gender either.
    """
    said = []
    guesses = guessed_genders(source_words, unknown_at)
    for j in unknown_at:
        found = _unlisted_after_relation(source_words, j)
        if found is None:
            continue
        name, relation, _ = found
        masculine, feminine = UNKNOWN_GENDER[relation], RELATION_FEMININE.get(relation)
        copies = [t for t, s in copied.items() if s == j]
        before = {_before(output_words, t, _SKIP_OUTPUT).lower() for t in copies}
        start = f'the course\'s list of names gives no gender for "{name}": "{relation}" before it'
        guess = guesses.get(j)
        if guess is not None and (feminine in before or masculine in before):
            if guess.by == "languages":
                source = "the languages that list it"
                evidence = f"{_share(guess)} give it only to women"
            else:
                source = "the name's ending"
                evidence = (
                    f'{_share(guess)} first names on the list that end in "{guess.ending}" are '
                    "women's"
                )
            if feminine in before:
                said.append(
                    f"{start} is written in the feminine ({feminine}), a guess from {source}: "
                    f"{evidence}"
                )
            else:
                said.append(
                    f"{start} is written in the masculine ({masculine}), though {source} "
                    f"suggest{'' if guess.by == 'languages' else 's'} a woman: {evidence}"
                )
        elif masculine in before:
            said.append(
                f"{start} is written in the masculine ({masculine}), as Portuguese does when "
                "the gender is unknown"
            )
    return "; ".join(dict.fromkeys(said))


def _share(guess: NameGuess) -> str:
    """ "all 8" or "34 of the 39": how many of the names with the guess's ending agree."""
    return (
        f"all {guess.listed}"
        if guess.agree == guess.listed
        else (f"{guess.agree} of the {guess.listed}")
    )


def _before_at(words, at: int, skip) -> int:
    """The position of the word before position ``at``, past any words of ``skip`` (any case);
    -1 for none."""
    at -= 1
    while at >= 0 and words[at].lower() in skip:
        at -= 1
    return at


def _before(words, at: int, skip) -> str:
    """The word before position ``at``, past any words of ``skip`` (any case); "" for none."""
    at = _before_at(words, at, skip)
    return words[at] if at >= 0 else ""
