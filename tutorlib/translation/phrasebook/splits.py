"""The phrasebook's sentences: drawn with a seeded generator, filed into train, valid and test.

``phrasebook(split)`` returns the ``(english, portuguese)`` pairs and
``held_out(split)`` the adjective-noun and verb-object combinations kept out
of training, so that the test split measures generalisation, not recall.
The sentences come from ``drawing``'s generator, SplitMix64 in a few lines of
integer arithmetic: the same pairs on every machine and every Python.
``relation_pairs`` adds sentences with a relation before a name (``relations``).
No torch.

Derived in chapter 9 (Training a translator).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from . import world
from .drawing import (
    _SEED,
    _SYLLABLES,
    _Copied,
    _random_clause,
    _random_np,
    _random_spec,
    _Rng,
    _spelling,
    _tense,
)
from .grammar import (
    NOT_NAMES,
    NP,
    Compound,
    Name,
    Phrase,
    Pron,
    Reply,
    Sentence,
    Subject,
    combinations,
    render,
)
from .lexicon import (
    ADJECTIVES,
    NOUNS,
    PERSON,
    PHRASES,
    PRONOUN,
    PRONOUNS,
    REPLIES,
    REPLY_PHRASES,
    TIMES,
    VERBS,
    WITH,
)
from .relations import draw_relations
from .world import NAMES, check_draw, with_real_names

_SAID_TO = (
    20  # each fixed expression is also said to 20 people ("hello, maria"): they are short and few
)
# Training: 40,000 drawn sentences and the fixed expressions (_DRAWN), then the templates of
# _add_extras up to 46,000 in all.
_DRAWN = {"train": 40_000 + _SAID_TO * len(PHRASES), "valid": 1_000, "test": 1_500}
SPLIT_SIZES = {"train": 46_000, "valid": 1_000, "test": 1_500}


def _hold_out(rng: _Rng, protected: set) -> dict[str, set]:
    """Choose, for every noun, one adjective and one verb held out for "test" and another for
    "valid".

    Each is picked among the words that take that noun, preferring the word
    with the smallest share of its nouns held out so far (ties broken by
    ``rng``); a word keeps at least three quarters of its nouns in training
    and a noun at least two of its words, so every word is learnt in many
    combinations. ``protected`` combinations (those of the examples) are never
    held out.
    """
    held = {"test": set(), "valid": set()}
    for kind, words in (
        ("adjective_noun", [a for a in ADJECTIVES if a.attributive]),
        ("verb_object", [v for v in VERBS if v.objects or v.extra]),
    ):
        count = Counter()
        takers = {w.en: sum(w.takes(n) for n in NOUNS) for w in words}
        nouns = list(NOUNS)
        for i in range(len(nouns) - 1, 0, -1):  # Fisher-Yates shuffle
            j = rng.below(i + 1)
            nouns[i], nouns[j] = nouns[j], nouns[i]
        for noun in nouns:
            candidates = [
                w.en for w in words if w.takes(noun) and (kind, w.en, noun.en) not in protected
            ]
            for split in ("test", "valid"):
                # A word keeps at least three quarters of its nouns in training (and at least
                # three).
                candidates = [w for w in candidates if count[w] + 1 <= max(1, (takers[w] - 3) // 4)]
                candidates.sort(key=lambda w: (count[w] / takers[w], rng.next()))
                if len(candidates) < 3:  # the noun keeps at least two of its words in training
                    break
                word = candidates.pop(0)
                count[word] += 1
                held[split].add((kind, word, noun.en))
    return held


def _np(text: str) -> NP:
    """A noun phrase written in English: ``_np("the red cars")``."""
    words = text.split()
    det, noun_word = words[0], words[-1]
    adj = words[1] if len(words) == 3 else None
    det = "a" if det == "an" else det
    for noun in NOUNS:
        if noun_word in (noun.en, noun.en_pl):
            return NP(det, noun.en, noun_word == noun.en_pl and noun.en != noun.en_pl, adj)
    raise KeyError(f"no noun {noun_word!r} in the phrasebook's lexicon")


def _subject(text: str) -> Subject:
    return Pron(text) if text in PRONOUN else _np(text)


def _s(kind, subject, x=None, neg=False, question=False, tense="present", time=None) -> Sentence:
    return Sentence(
        kind,
        _subject(subject) if isinstance(subject, str) else subject,
        neg,
        question,
        x,
        tense,
        time,
    )


# The examples of the course's text, always in the training split: with no final mark and with
# "." (questions: "?"). Each is a spec plus "contracted".
_EXAMPLES = [
    (_s("np", "the red car"), False),
    (_s("be", "she", "tired"), False),
    (_s("np", "the black cats"), False),
    (_s("be", "i", "happy"), False),
    (_s("intrans", "he", "eat", neg=True), False),
    (_s("with", "i", "hungry"), False),
    (_s("verb", "i", ("like", _np("the cat"))), False),
    (_s("verb", "i", ("eat", _np("the apple"))), False),
    (_s("verb", "we", ("eat", _np("the apple"))), False),
    (_s("verb", "he", ("eat", _np("the apple")), neg=True), False),
    (_s("verb", "i", ("like", _np("the cat")), neg=True), False),
    (_s("be", "the black cats", "small"), False),
    (_s("be", "they", "tall"), False),
    (_s("be", "the house", "small"), False),
    (_s("be", "the houses", "old"), False),
    (_s("be", "the tables", "red"), False),
    (_s("be", "the girls", "tired"), False),
    (_s("be", "the boys", "sad"), False),
    (_s("be", "the girl", "happy"), False),
    (_s("be", "the girl", "sad"), False),
    (_s("be", "the car", "ready"), False),
    (_s("with", "the dogs", "hungry"), False),
    (_s("np", "my black cat"), False),
    (_s("np", "your red apples"), False),
    (_s("np", "my house"), False),
    (_s("np", "my books"), False),
    (_s("np", "your table"), False),
    (_s("np", "a big dog"), False),
    (_s("np", "an apple"), False),
    (_s("np", "an old car"), False),
    (_s("np", "a small house"), False),
    *[
        (_s("np", f"the {n}"), False)
        for n in ("cats", "dogs", "houses", "cars", "books", "apples", "girls", "boys", "tables")
    ],
    (_s("verb", "she", ("like", _np("the girls"))), False),
    (_s("verb", "they", ("like", _np("my house"))), False),
    (_s("verb", "we", ("need", _np("a book"))), False),
    (_s("verb", "you", ("like", _np("an apple"))), False),
    (_s("verb", "i", ("like", _np("your dogs"))), False),
    (_s("verb", "they", ("have", _np("a car"))), False),
    (_s("verb", "you", ("see", _np("the dog"))), False),
    (_s("verb", "they", ("see", _np("the dogs"))), False),
    (_s("verb", "she", ("read", _np("the book"))), False),
    (_s("verb", "the girl", ("read", _np("the book"))), False),
    (_s("verb", "the dogs", ("eat", _np("the apples")), neg=True), False),
    (_s("verb", "the boy", ("have", _np("a red car"))), False),
    (_s("be", "you", "tired", question=True), False),
    (_s("verb", "she", ("like", _np("the cat")), question=True), False),
    (_s("be", "the car", "red", question=True), False),
    (_s("verb", "he", ("eat", _np("the apple")), neg=True), True),
    # the new shapes
    (_s("verb", "i", ("have", _np("two dogs"))), False),
    (_s("np", "two houses"), False),
    (_s("loc", "the cat", _np("the box")), False),
    (_s("verb", "she", ("go", _np("the school"))), False),
    (_s("verb", "she", ("eat", _np("the apple")), tense="future"), False),
    (_s("verb", "she", ("eat", _np("the apple")), tense="past"), False),
    (_s("be", "she", "tired", tense="past"), False),
    (_s("where", "the cat", question=True), False),
    (_s("what", "she", "want", question=True), False),
    (_s("verb", "i", ("love", _np("the city"))), False),
    (_s("verb", "we", ("live", _np("the city"))), False),
    (Compound(_s("be", "she", "tired"), "and", _s("with", "he", "hungry")), False),
]


def _small_templates() -> list[Sentence]:
    """Every sentence of the small templates: a pronoun with "be", "be hungry" and the like, or a
    verb alone."""
    specs = []
    for p in PRONOUNS:
        subject = Pron(p.en)
        for neg in (False, True):
            for adj in ADJECTIVES:
                if PERSON in adj.classes:
                    specs.append(Sentence("be", subject, neg, False, adj.en))
            for w in WITH:
                specs.append(Sentence("with", subject, neg, False, w))
            for verb in VERBS:
                if verb.intransitive and PERSON in verb.subjects:
                    specs.append(Sentence("intrans", subject, neg, False, verb.en))
    return specs


@lru_cache(maxsize=1)
def _build() -> tuple[dict, dict]:
    """All three splits, and the held-out combinations of "test" and "valid"."""
    rng = _Rng(_SEED)
    protected = set().union(*(combinations(spec) for spec, _ in _EXAMPLES))
    held = _hold_out(rng, protected)
    for spec, _ in _EXAMPLES:
        assert not combinations(spec) & (held["test"] | held["valid"]), spec
    copied = _Copied(rng)

    splits = {"train": [], "valid": [], "test": []}
    seen_en: set[str] = set()
    seen_spec: set = set()

    def add(split, spec, contracted, mark):
        en, pt = render(spec, contracted, mark)
        if en not in seen_en:
            seen_en.add(en)
            splits[split].append((en, pt))
        seen_spec.add(spec)

    # The fixed expressions, alone and said to someone. Their names are four syllables long, from a
    # generator of their own, so that the sentences drawn below are the same as without them.
    said_to = _Rng(_SEED + 1)
    for en, pt in PHRASES:
        marks = ("?", "") if en.startswith(("how", "what")) else ("", ".", "!")
        for mark in marks:
            add("train", Phrase(en, pt), False, mark)
        for _ in range(_SAID_TO):
            name = Name(
                copied._fresh(lambda: "".join(said_to.choice(_SYLLABLES) for _ in range(4)))
            )
            add("train", Phrase(en, pt, name), False, said_to.choice(marks))
    for spec, contracted in _EXAMPLES:
        for mark in ("?", "") if getattr(spec, "question", False) else ("", "."):
            add("train", spec, contracted, mark)
    for spec in _small_templates():
        for mark in ("", ".", "!", "?"):
            add("train", spec, False, mark)
            add("train", spec, True, mark)  # the same English when nothing contracts: skipped

    # Draw sentences and file each by its combinations: one held out for "test" makes it a test
    # sentence, one held out for "valid" a validation sentence, neither a training sentence.
    for _ in range(50 * sum(_DRAWN.values())):
        if all(len(splits[s]) >= n for s, n in _DRAWN.items()):
            _add_extras(splits["train"], add, held, copied)
            return splits, held
        spec = _random_spec(rng, copied)
        contracted, mark = _spelling(rng, spec)
        combos = combinations(spec)
        in_test, in_valid = bool(combos & held["test"]), bool(combos & held["valid"])
        if spec in seen_spec or (in_test and in_valid):
            continue
        split = "test" if in_test else "valid" if in_valid else "train"
        if len(splits[split]) < _DRAWN[split]:
            add(split, spec, contracted, mark)
    raise RuntimeError(
        f"the grammar ran out of new sentences for {_DRAWN}: "
        f"got { ({s: len(p) for s, p in splits.items()}) }"
    )


# The templates added to training after the drawn sentences (issue 23). Each has a generator of its
# own, so the drawn sentences, and with them the test and validation splits, stay what they were.
_EXTRA_SEED = _SEED + 2
_SAID_TO_AGAIN = 30  # each fixed expression said to this many more people
_TABLE_PAST_FIRST = 4  # sentences of each verb in the past with "i" and with "we" (one otherwise)


def _conjugation_table(rng: _Rng, held: dict, copied: _Copied) -> list:
    """Every verb with every pronoun in every tense it has, each with an object it takes.

    The drawn sentences give a pronoun subject a third of the time, and "i"
    and "we" each a sixth of that; in the past only "i" writes the first
    person's preterite ("gostei", "vi") and only "we" the plural's
    ("quisemos"), so that the drawn sentences hold about four of each
    such form, some none: the model answered "i liked" with "gosto" (issue
    23). The table gives every verb, pronoun and tense at least one sentence,
    and four to "i" and "we" in the past.
    """
    held_any = held["test"] | held["valid"]
    specs = []
    for verb in VERBS:
        tenses = (
            ["present"] + (["past"] if verb.en_past else []) + (["future"] if verb.future else [])
        )
        for p in PRONOUNS:
            if PERSON not in verb.subjects:
                break
            for tense in tenses:
                first = tense == "past" and p.en in ("i", "we")
                for k in range(_TABLE_PAST_FIRST if first else 1):
                    neg = (
                        k == 3
                    )  # three affirmative ("i liked"), then one negated ("i did not like")
                    if not (verb.objects or verb.extra) or (verb.intransitive and rng.chance(0.3)):
                        if not verb.intransitive:
                            continue
                        specs.append(Sentence("intrans", Pron(p.en), neg, False, verb.en, tense))
                        continue
                    for _attempt in range(20):
                        obj = _random_np(rng, ("object", verb.en), verb.takes, copied, False)
                        if verb.prep == "em":
                            obj = obj._replace(
                                plural=False,
                                det="the" if obj.det not in ("the", "a", "my", "your") else obj.det,
                            )
                        spec = Sentence("verb", Pron(p.en), neg, False, (verb.en, obj), tense)
                        if not combinations(spec) & held_any:
                            specs.append(spec)
                            break
    return specs


def _one_with_names(rng: _Rng, copied: _Copied):
    """A clause with a name of several words ("ana silva", "mr smith"), or a name and then a
    time."""
    if rng.chance(0.3):  # a name as object, then a time: "we visited helena yesterday"
        verb = rng.choice([v for v in VERBS if v.names and PERSON in v.subjects and v.en_past])
        tense = _tense(rng, verb)
        time = rng.choice([t for t, (_, tenses) in TIMES.items() if tense in tenses])
        obj = copied.full_name() if rng.chance(0.5) else copied.name()
        subject = Pron(rng.choice(PRONOUNS).en)
        return Sentence("verb", subject, rng.chance(0.2), False, (verb.en, obj), tense, time)
    while True:  # a full name as subject (or object) of any clause of the grammar
        clause = _random_clause(rng, _FullNames(copied), rng.weighted(_CLAUSE_KINDS))
        x = clause.x if isinstance(clause.x, tuple) else (clause.x,)
        if any(isinstance(np, Name) for np in (clause.subject, *x)):
            return clause


class _FullNames:
    """A ``_Copied`` whose names are full names: what ``_random_clause`` asks of it."""

    def __init__(self, copied: _Copied):
        self.copied = copied

    def name(self) -> Name:
        return self.copied.full_name()

    def number(self) -> str:
        return self.copied.number()


_CLAUSE_KINDS = [(3, "be"), (1, "with"), (1, "loc"), (4, "verb"), (2, "intrans")]


def _one_reply(rng: _Rng, copied: _Copied) -> Reply:
    """ "no, ..." or "yes, ..." before a clause, or before a fixed expression ("no, thank you")."""
    word = rng.choice(list(REPLIES))
    if rng.chance(0.15):
        en = rng.choice(REPLY_PHRASES[word])
        return Reply(word, Phrase(en, dict(PHRASES)[en]))
    return Reply(word, _random_clause(rng, copied, rng.weighted(_CLAUSE_KINDS)))


def _one_comma(rng: _Rng, copied: _Copied) -> Compound:
    """Two clauses joined by a comma alone: "i am tired, she is happy" (no "mas" in the
    Portuguese)."""
    clauses = [_random_clause(rng, copied, rng.weighted(_CLAUSE_KINDS)) for _ in range(2)]
    clauses = [c._replace(time=None) if len(render(c)[0].split()) > 7 else c for c in clauses]
    return Compound(clauses[0], ",", clauses[1])


def _add_extras(train: list, add, held: dict, copied: _Copied) -> None:
    """Add the conjugation table and the fixed expressions said to more people to training, then
    names of several words, "no, ..." / "yes, ..."
    and comma-joined clauses (3 : 3 : 2) until the split holds ``SPLIT_SIZES["train"]`` pairs."""
    rng = _Rng(_EXTRA_SEED)
    extra = _Copied(rng)
    extra.used, extra.words = copied.used, copied.words | NOT_NAMES  # a name is handed out once
    held_any = held["test"] | held["valid"]
    for spec in _conjugation_table(rng, held, extra):
        add("train", spec, *_spelling(rng, spec))
    # The fixed expressions, said to _SAID_TO_AGAIN more people: the templates above dilute them,
    # and a model trained without these wrote "what is your name" as "o que seu nome é".
    for en, pt in PHRASES:
        marks = ("?", "") if en.startswith(("how", "what")) else ("", ".", "!")
        for _ in range(_SAID_TO_AGAIN):
            add("train", Phrase(en, pt, extra.name()), False, rng.choice(marks))
    makers = {"names": _one_with_names, "replies": _one_reply, "commas": _one_comma}
    while len(train) < SPLIT_SIZES["train"]:
        spec = makers[rng.weighted([(3, "names"), (3, "replies"), (2, "commas")])](rng, extra)
        if not combinations(spec) & held_any:
            add("train", spec, *_spelling(rng, spec))


def phrasebook(
    split: str = "train", names: str = "made-up", draw: int = 0, relations: bool = False
) -> list[tuple[str, str]]:
    """``(english, portuguese)`` sentence pairs of the course's phrasebook, for ``"train"``,
    ``"valid"`` or ``"test"``.

    The pairs come from a grammar of English and Portuguese (no download) and
    are the same on every machine and every call: 46,000 for training (40,000
    drawn, the fixed expressions alone and said to someone: "hello, maria",
    and the templates of issue 23: every verb with every pronoun in every
    tense, names of several words, "no, ..." and clauses joined by a comma),
    1,000 for validation and 1,500 for testing, all different. Sentences are
    lower-case; a final ``.``, ``!`` or ``?`` (or none) is the same on both
    sides::

        ("i am happy.", "sou feliz.")                    eu is dropped
        ("she is tired.", "ela está cansada.")           estar, feminine
        ("the red car", "o carro vermelho")              the adjective moves
        ("he does not eat the apple.", "ele não come a maçã.")
        ("i like the cat.", "gosto do gato.")            de + o = do
        ("the cat is in the box.", "o gato está na caixa.")     em + a = na
        ("she will eat the apple.", "ela vai comer a maçã.")    ir + infinitive
        ("i have 3 dogs.", "tenho 3 cachorros.")          the number is copied

    The grammar: subject pronouns (i, you, he, she, we, they → eu, você, ele,
    ela, nós, eles; eu and nós dropped); noun phrases (the/a/my/your, number
    words and digits, at most one adjective, singular or plural; mass nouns
    such as water alone); names; present, past and future; "be" with an
    adjective (ser or estar), with hungry/thirsty/afraid/sleepy (estar com),
    with a place (estar em); a verb with or without an object; yes/no
    questions, "where" and "what" questions; two clauses joined by "and",
    "but" or a comma alone; "no, ..." and "yes, ..." before a sentence; names
    of several words and titles ("mr smith" → "o senhor smith"); "my name is
    ..."; times (today, yesterday, tomorrow, ...); and a
    few fixed expressions (hello, thank you, ...). Words only meet where they
    make sense: people eat food and read paper, colours are for animals and
    things, never for people.

    The training split comes in order: the fixed expressions first, then the
    text's examples and the small templates, then the drawn sentences, then
    the conjugation table and the other templates of issue 23; for a sample,
    take pairs spread over it, not its first ones.

    The test split holds out combinations: for most nouns, one adjective and
    one verb (as its object) never occur with that noun in training; the
    sentences that contain them make the test split. The validation split
    does the same with other combinations (``held_out`` lists both).

    ``names="real"`` gives the same sentences with names and numbers from the
    world (``world.with_real_names``: real names of 34 languages, split by
    name, and numbers of one to six digits), on which chapter 14's GPT is
    trained; ``draw`` (1, 2, ...) gives them with another draw of the split's names and numbers
    (``with_real_names``).

    ``relations=True`` adds, after them, the split's ``relation_pairs``: a
    relation before a name, "my friend ana is tired." -> "minha amiga ana está
    cansada." (issue 36), with the same ``names`` and ``draw``.

    Derived in chapter 9 (Training a translator).
    """
    if not isinstance(relations, bool):
        raise ValueError(f"relations must be True or False, got {relations!r}")
    pairs = _phrasebook(split, names, draw)
    return pairs + list(relation_pairs(split, names, draw)) if relations else pairs


def _check(split, names, draw) -> None:
    """A ``ValueError`` that says what was expected, for a split, names or draw that is not one."""
    if split not in SPLIT_SIZES:
        raise ValueError(f"split must be one of {sorted(SPLIT_SIZES)}, got {split!r}")
    if names not in NAMES:
        raise ValueError(f"names must be one of {NAMES}, got {names!r}")
    check_draw(draw)
    if draw and names != "real":
        raise ValueError(
            f"draw={draw} draws real names and numbers again: it needs names='real', got "
            f"names={names!r}"
        )


def _phrasebook(split: str, names: str, draw: int) -> list[tuple[str, str]]:
    _check(split, names, draw)
    if names == "real":
        return list(_worldly(split, draw))
    return list(_build()[0][split])


@lru_cache(maxsize=4)
def _worldly(split: str, draw: int) -> tuple[tuple[str, str], ...]:
    return tuple(with_real_names(_build()[0][split], split, draw))


def relation_pairs(
    split: str, names: str = "made-up", draw: int = 0
) -> tuple[tuple[str, str], ...]:
    """``RELATION_SIZES[split]`` pairs in which a relation comes before a name: "my friend ana is
    tired." -> "minha amiga ana está cansada.", "i like your brother tom." -> "gosto do seu
    irmão tom." (``relations.draw_relations``).

    Each is a clause of the grammar (be, with, a place, a verb, where, what;
    about a third of them questions) with such a name as subject or object,
    and none of the other splits' held-out combinations. With
    ``names="made-up"`` the names are new made-up ones, each in one relation
    sentence of one split and in no sentence of the phrasebook; they have no
    known gender, so a relation that changes with gender takes the masculine
    ("meu amigo kora"). With ``names="real"`` they are the split's own real
    first names of known gender (``world.gender_of``; no test name is a
    training name), and the relation and everything that agrees with it take
    that gender ("minha amiga ana está cansada"); "sister" and the other
    relations of one gender take only names of it. ``draw`` gives other
    sentences, names and numbers (as ``with_real_names`` does, a third of the
    numbers of two digits or more round or with a run of one digit).
    ``phrasebook(..., relations=True)`` adds them to a split.
    """
    _check(split, names, draw)  # the same three splits as RELATION_SIZES's
    return _relations(names, draw)[split]


@lru_cache(maxsize=4)
def _relations(names: str, draw: int) -> dict[str, tuple[tuple[str, str], ...]]:
    return draw_relations(names, draw, *_build())


def held_out(split: str = "test") -> dict[str, frozenset[tuple[str, str]]]:
    """The combinations held out of training for ``"test"`` or ``"valid"``, as English words.

    Returns ``{"adjective_noun": {("red", "house"), ...}, "verb_object":
    {("eat", "cake"), ...}}``: no training sentence pairs that adjective with
    that noun (as "the red house" or "the house is red") or has that noun as
    that verb's object; every sentence of ``split`` contains at least one of
    its own combinations and none of the other split's.

    Derived in chapter 9 (Training a translator).
    """
    if split not in ("test", "valid"):
        raise ValueError(f"only 'test' and 'valid' hold combinations out, got {split!r}")
    held = _build()[1][split]
    return {
        kind: frozenset((a, b) for k, a, b in held if k == kind)
        for kind in ("adjective_noun", "verb_object")
    }


@lru_cache(maxsize=2)
def name_words(language: str) -> frozenset[str]:
    """The lower-case words of every first and family name of ``names.json`` ("ana", "o'brien";
    "van" and "berg" of "van den berg") that the phrasebook's made-up training sentences write
    fewer than twice in ``language`` ("en" or "pt"; "da" of "Ana da Silva" is Portuguese's "da";
    a made-up name, written once, may be a real one):
    the words a vocabulary built with ``gendered=True`` leaves out (``copied_words``), so that a
    real name is always unknown and copied, and its gender read (``gender_of``), however often
    the training data has it."""
    if language not in ("en", "pt"):
        raise ValueError(f"language must be 'en' or 'pt', got {language!r}")
    side = ("en", "pt").index(language)
    words = {word for name in world._languages() for word in name.replace("\u2019", "'").split()}
    # a word the sentences write more than once is the grammar's; a made-up name is written once,
    # and may be a real one too ("mila")
    counts = Counter(w for pair in phrasebook("train") for w in world._TOKEN.findall(pair[side]))
    return frozenset(w for w in words if counts[w] < 2)


def copied_words(tokens, language: str) -> set[str]:
    """The words of ``tokens`` (of ``language``, "en" or "pt") a translator copies rather than
    learns: real names (``name_words``) and numbers ("7", "4,521"). A draw of real names and
    numbers uses each many times, so min_freq alone would make them words of a vocabulary."""
    names = name_words(language)
    return {t for t in tokens if t in names or t[:1].isdigit()}


def copied_words_of(english, portuguese) -> tuple[set[str], set[str]]:
    """``copied_words`` of tokenized sentences of each language: what a gendered vocabulary of
    each leaves out (``build_vocabs``, ``joint_vocab``)."""
    return (
        copied_words((t for s in english for t in s), "en"),
        copied_words((t for s in portuguese for t in s), "pt"),
    )
