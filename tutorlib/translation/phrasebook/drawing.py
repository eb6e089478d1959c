"""Drawing the phrasebook's sentences: a seeded generator, noun phrases, subjects and clauses of
every kind the grammar has, and how each is spelled (contracted or not, its final mark).

``splits`` files what this draws into train, valid and test; ``relations`` draws the
sentences with a relation before a name with the same clauses. The generator is SplitMix64
in a few lines of integer arithmetic: the same sentences on every machine and every Python.
No torch.
"""

from __future__ import annotations

from .grammar import (
    NP,
    Compound,
    Name,
    Pron,
    Sentence,
    Subject,
    lexicon_words,
    render,
)
from .lexicon import (
    ADJECTIVE,
    ADJECTIVES,
    ANIMATE,
    CONTAINERS,
    NOUN,
    NOUNS,
    NUMBERS,
    PERSON,
    PLACE,
    PRONOUNS,
    TIMES,
    TITLES,
    VERBS,
    WITH,
    Noun,
    Verb,
)


class _Rng:
    """SplitMix64: a few lines of integer arithmetic, so the phrasebook is the same on every machine
    and Python."""

    _MASK = (1 << 64) - 1

    def __init__(self, seed: int):
        self.state = seed & self._MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self._MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self._MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self._MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return self.next() % n  # bias below 1e-15 for the small n used here

    def uniform(self) -> float:
        return (self.next() >> 11) / float(1 << 53)

    def chance(self, p: float) -> bool:
        return self.uniform() < p

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def weighted(self, options):
        """``options`` is a list of (weight, value)."""
        r = self.uniform() * sum(w for w, _ in options)
        for w, value in options:
            r -= w
            if r < 0:
                return value
        return options[-1][1]


_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"] + ["an", "el", "or", "is", "ul"]


class _Copied:
    """Names and numbers, each handed out once in the whole phrasebook (so no vocabulary keeps
    one)."""

    def __init__(self, rng: _Rng):
        self.rng = rng
        self.used: set[str] = set()
        self.words = lexicon_words()

    def _fresh(self, make) -> str:
        while True:
            word = make()
            if word not in self.used and word not in self.words:
                self.used.add(word)
                return word

    def name(self) -> Name:
        return Name(
            self._fresh(
                lambda: "".join(self.rng.choice(_SYLLABLES) for _ in range(2 + self.rng.below(2)))
            )
        )

    def full_name(self) -> Name:
        """Two words ("kora bale"), or a title and one or two words ("mrs kora", "dr kora bale")."""
        first = self.name().word
        if self.rng.chance(0.4):
            title = self.rng.choice(list(TITLES))
            return Name(first if self.rng.chance(0.6) else f"{first} {self.name().word}", title)
        return Name(f"{first} {self.name().word}")

    def number(self) -> str:
        return self._fresh(lambda: str(2 + self.rng.below(9998)))


# The phrasebook's seed; each of its generators starts from it plus a number of its own.
_SEED = 2024
_TENSES = [(6, "present"), (2, "past"), (2, "future")]

_CACHE: dict = {}


def _nouns(key, takes) -> list[Noun]:
    """The nouns that satisfy ``takes``, listed once per ``key`` (the grammar asks the same
    questions often)."""
    if key not in _CACHE:
        _CACHE[key] = [n for n in NOUNS if takes(n)]
    return _CACHE[key]


def _adjectives_of(noun: Noun) -> list[str]:
    key = ("adjectives", noun.en)
    if key not in _CACHE:
        _CACHE[key] = [a.en for a in ADJECTIVES if a.attributive and a.takes(noun)]
    return _CACHE[key]


def _random_np(rng: _Rng, key, takes, copied: _Copied, numbers: bool = True) -> NP:
    """A noun phrase whose noun satisfies ``takes(noun)``: determiner, noun, number, perhaps an
    adjective."""
    noun = rng.choice(_nouns(key, takes))
    if noun.en_pl is None:  # mass noun: the water, my tea, or water alone
        det = rng.weighted([(4, "the"), (2, "my"), (2, "your"), (3, "")])
        plural = False
    else:
        options = (
            [(4, "the"), (2, "a"), (2, "my"), (2, "your")]
            if noun.possessive
            else [(3, "the"), (2, "a")]
        )
        if numbers:
            options += [(1.2, "number"), (0.4, "digits")]
        det = rng.weighted(options)
        if det == "number":
            det = rng.choice(list(NUMBERS))
        elif det == "digits":
            det = copied.number()
        plural = det not in ("a", "the", "my", "your") or (det != "a" and rng.chance(0.4))
    adj = None
    fitting = _adjectives_of(noun)
    if det and fitting and rng.chance(0.45):
        adj = rng.choice(fitting)
    return NP(det, noun.en, plural, adj)


def _random_subject(
    rng: _Rng, key, takes, copied: _Copied, person: bool = True, name: bool = True
) -> Subject:
    r = rng.uniform()
    if person and r < 0.35:
        return Pron(rng.choice(PRONOUNS).en)
    if name and r < 0.45:
        return copied.name()
    return _random_np(rng, key, takes, copied)


def _tense(rng: _Rng, verb: Verb | None = None) -> str:
    tense = rng.weighted(_TENSES)
    if verb is not None and (
        (tense == "past" and not verb.en_past) or (tense == "future" and not verb.future)
    ):
        return "present"
    return tense


def _time(rng: _Rng, tense: str) -> str | None:
    if not rng.chance(0.15):
        return None
    return rng.choice([t for t, (_, tenses) in TIMES.items() if tense in tenses])


def _random_clause(rng: _Rng, copied: _Copied, kind: str, question: bool = False) -> Sentence:
    neg = not question and rng.chance(0.3)
    if kind == "be":
        subject = _random_subject(rng, "all", lambda n: True, copied)
        if isinstance(subject, NP):
            noun = NOUN[subject.noun]
            adjs = [a.en for a in ADJECTIVES if a.takes(noun) and a.en != subject.adj]
        else:  # a pronoun or a name: what a person can be; a name, only what does not show
            # gender, unless a relation gives it one ("my friend ana is tired")
            adjs = [
                a.en
                for a in ADJECTIVES
                if PERSON in a.classes
                and (isinstance(subject, Pron) or a.invariable or subject.relation)
            ]
        adj, tense = rng.choice(adjs), _tense(rng)
        time = (
            _time(rng, tense) if ADJECTIVE[adj].copula == "estar" else None
        )  # "is tired today", not "is tall"
        return Sentence("be", subject, neg, question, adj, tense, time)
    if kind == "with":
        subject = _random_subject(rng, "animate", lambda n: n.cls in ANIMATE, copied)
        tense = _tense(rng)
        return Sentence(
            "with", subject, neg, question, rng.choice(list(WITH)), tense, _time(rng, tense)
        )
    if kind == "loc":
        subject = _random_subject(rng, "movable", lambda n: n.cls != PLACE, copied)
        where = _random_np(
            rng, "where", lambda n: n.cls == PLACE or n.en in CONTAINERS, copied, numbers=False
        )._replace(plural=False)  # in one place at a time
        tense = _tense(rng)
        return Sentence("loc", subject, neg, question, where, tense, _time(rng, tense))
    if kind == "where":
        subject = _random_subject(rng, "movable", lambda n: n.cls != PLACE, copied)
        return Sentence(
            "where",
            subject,
            False,
            True,
            None,
            rng.weighted([(3, "present"), (1, "past"), (1, "future")]),
        )
    if kind == "what":
        verb = rng.choice([v for v in VERBS if v.prep is None and (v.objects or v.extra)])
        subject = _random_subject(rng, ("does", verb.en), lambda n: n.cls in verb.subjects, copied)
        return Sentence("what", subject, False, True, verb.en, _tense(rng, verb))
    if kind == "intrans":
        verb = rng.choice([v for v in VERBS if v.intransitive])
        subject = _random_subject(
            rng,
            ("does", verb.en),
            lambda n: n.cls in verb.subjects,
            copied,
            person=PERSON in verb.subjects,
        )
        tense = _tense(rng, verb)
        return Sentence("intrans", subject, neg, question, verb.en, tense, _time(rng, tense))
    # "verb": a pronoun, a name or a noun phrase does something to a noun phrase or a name
    verb = rng.choice([v for v in VERBS if v.objects or v.extra])
    subject = _random_subject(
        rng,
        ("does", verb.en),
        lambda n: n.cls in verb.subjects,
        copied,
        person=PERSON in verb.subjects,
        name=PERSON in verb.subjects,
    )
    obj = (
        copied.name()
        if verb.names and rng.chance(0.15)
        else _random_np(rng, ("object", verb.en), verb.takes, copied)
    )
    if verb.prep == "em":  # one place at a time: "she lives in the city"
        obj = obj._replace(
            plural=False, det="the" if obj.det not in ("the", "a", "my", "your") else obj.det
        )
    tense = _tense(rng, verb)
    return Sentence("verb", subject, neg, question, (verb.en, obj), tense, _time(rng, tense))


def _random_spec(rng: _Rng, copied: _Copied):
    """One sentence of the larger templates."""
    kind = rng.weighted(
        [
            (8, "np"),
            (16, "be"),
            (4, "with"),
            (6, "loc"),
            (34, "verb"),
            (6, "intrans"),
            (5, "q_be"),
            (8, "q_verb"),
            (3, "where"),
            (4, "what"),
            (1, "name"),
            (8, "compound"),
        ]
    )
    if kind == "np":
        return Sentence("np", _random_np(rng, "all", lambda n: True, copied))
    if kind == "name":
        return Sentence("name", Pron(rng.choice(["i", "you"])), x=copied.name())
    if kind == "compound":
        clauses = [
            _random_clause(
                rng,
                copied,
                rng.weighted([(3, "be"), (1, "with"), (1, "loc"), (4, "verb"), (2, "intrans")]),
            )
            for _ in range(2)
        ]
        clauses = [c._replace(time=None) if len(render(c)[0].split()) > 7 else c for c in clauses]
        return Compound(clauses[0], rng.weighted([(3, "and"), (1, "but")]), clauses[1])
    if kind.startswith("q_"):
        return _random_clause(rng, copied, kind[2:], question=True)
    return _random_clause(rng, copied, kind)


def _spelling(rng: _Rng, spec) -> tuple[bool, str]:
    """Contracted or not, and the final mark: mostly ".", often none, sometimes "!" or "?"."""
    question = isinstance(spec, Sentence) and spec.question
    contracted = not question and rng.chance(0.2)
    if question:
        mark = rng.weighted([(85, "?"), (15, "")])
    else:
        mark = rng.weighted([(50, "."), (30, ""), (10, "!"), (10, "?")])
    return contracted, mark
