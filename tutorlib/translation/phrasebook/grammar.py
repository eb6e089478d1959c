"""The phrasebook's grammar: a sentence as a *spec*; ``render(spec)`` writes it in both languages.

A spec is a named tuple (``Sentence``, ``Compound``, ``Phrase`` and the noun
phrases ``NP``, ``Pron``, ``Name``). Rendering does the agreement (gender and
number of articles, adjectives, possessives), the conjugation, ser or estar,
do-support, dropped subjects and contractions (de + o = do). The words come
from ``tutorlib.translation.phrasebook.lexicon``. No torch.

Derived in chapter 9 (Training a translator).
"""

from __future__ import annotations

from typing import NamedTuple, Union

from .lexicon import (
    ADJECTIVE,
    ADJECTIVES,
    BE,
    CONTRACT,
    DETERMINERS,
    GO,
    NOUN,
    NOUNS,
    NUMBERS,
    PERSONS,
    PHRASES,
    PRONOUN,
    RELATION_FEMININE,
    RELATIONS,
    REPLIES,
    TIMES,
    TITLES,
    VERB,
    VERBS,
    WITH,
    relation_gender,
)

# --- specs -----------------------------------------------------------------------------------


class NP(NamedTuple):
    """A noun phrase: "the red cars", "two houses", "water"."""

    det: str  # "the", "a", "my", "your", a number word, digits ("3") or "" (a mass noun alone)
    noun: str
    plural: bool
    adj: str | None = None


class Pron(NamedTuple):
    """A subject pronoun: "she"."""

    word: str


class Name(NamedTuple):
    """A name, copied into the translation as it is: "maria", "ana silva" (several words), "mr
    smith", "my friend ana".

    ``word`` may hold several words (a first and a last name), all copied;
    ``title`` is one of ``TITLES`` ("mr", "mrs", "ms", "dr"), translated with
    its article: "mr smith" -> "o senhor smith", "i like mr smith" -> "gosto
    do senhor smith".

    ``relation``, one of ``RELATIONS``, comes before the name with its
    ``owner`` ("my" or "your"): "my friend ana" -> "minha amiga ana", "i
    like your sister ana" -> "gosto da sua irmã ana". ``gender`` ("f", "m" or
    "" when unknown) is the name's: with a relation it decides the
    relation's Portuguese ("amiga", "amigo") and what agrees with the name
    ("minha amiga ana está cansada"); a name of unknown gender takes the
    masculine, as "dr" does. Without a relation the gender is not used.
    """

    word: str
    title: str = ""
    relation: str = ""
    owner: str = ""
    gender: str = ""


def _name_gender(name: Name) -> str:
    """The gender the Portuguese gives ``name``: its relation's own ("sister": "f"), else the
    name's, else the masculine; a title's ("mrs": "f"); "" for a name alone, whose gender
    shows in nothing. A relation with a title, an owner without a relation or a gender that is
    not "f", "m" or "" is an error that says so."""
    if name.gender not in ("", "f", "m"):
        raise ValueError(f"a name's gender is 'f', 'm' or '' (unknown), got {name.gender!r}")
    if not name.relation:
        if name.owner:
            raise ValueError(f"owner {name.owner!r} without a relation: give relation= too")
        if name.title:  # "mrs smith": the title says the gender
            return "f" if TITLES[name.title][0] == "a" else "m"
        return ""
    if name.title:
        raise ValueError(
            f"a name has a relation or a title, not both: got {name.relation!r} and {name.title!r}"
        )
    if name.owner not in ("my", "your"):
        raise ValueError(f"a relation's owner is 'my' or 'your', got {name.owner!r}")
    fixed = relation_gender(name.relation)
    if fixed and name.gender and name.gender != fixed:
        raise ValueError(
            f"{name.owner} {name.relation} {name.word}: a {name.relation} is "
            f"{'female' if fixed == 'f' else 'male'}, the name is "
            f"{'female' if name.gender == 'f' else 'male'}"
        )
    return fixed or name.gender or "m"


Subject = Union[NP, Pron, Name]


class Sentence(NamedTuple):
    """One clause. ``kind`` and ``x``:

    ========  =====================  ===========================  ============================
    kind      x                      English                      Portuguese
    ========  =====================  ===========================  ============================
    "np"      None (subject only)    the red car                  o carro vermelho
    "be"      adjective              she is (not) tired           ela (não) está cansada
    "with"    adjective of ``WITH``  i am hungry                  estou com fome
    "loc"     NP (a place)           the cat is in the box        o gato está na caixa
    "verb"    (verb, object)         he does not eat the apple    ele não come a maçã
    "intrans" verb                   he does not eat              ele não come
    "where"   None                   where is the cat?            onde está o gato?
    "what"    verb                   what does she want?          o que ela quer?
    "name"    Name                   my name is maria             meu nome é maria
    ========  =====================  ===========================  ============================

    A yes/no question ("is she tired?", "does he eat the apple?") translates
    as the statement does; only the final "?" marks it, in both languages.
    """

    kind: str
    subject: Subject | None
    negated: bool = False
    question: bool = False
    x: object = None
    tense: str = "present"  # "present", "past" or "future"
    time: str | None = None  # a key of TIMES, written at the end


class Compound(NamedTuple):
    """Two statements joined: "she is tired and he is hungry", "i am tired, but you are happy",
    or by a comma alone: "i am tired, she is happy" -> "estou cansado, ela está feliz"."""

    first: Sentence
    conj: str  # "and", "but" or ","
    second: Sentence


class Reply(NamedTuple):
    """An answer word before a sentence or a fixed expression: "no, i am not tired" -> "não, não
    estou cansado".

    ``word`` is a key of ``REPLIES`` ("no", "yes"); ``body`` a ``Sentence``
    or a ``Phrase`` ("no, thank you" -> "não, obrigado").
    """

    word: str
    body: object


class Phrase(NamedTuple):
    """A fixed expression of ``PHRASES``, perhaps said to someone: "good morning, maria"."""

    en: str
    pt: str
    to: Name | None = None


# --- rendering -------------------------------------------------------------------------------


def en_np(np: Subject) -> str:
    if isinstance(np, Pron):
        return np.word
    if isinstance(np, Name):
        before = [np.owner, np.relation] if np.relation else [np.title] if np.title else []
        return " ".join([*before, np.word])
    n = NOUN[np.noun]
    words = ([np.adj] if np.adj else []) + [n.en_pl if np.plural else n.en]
    det = np.det
    if det == "a" and words[0][0] in "aeiou":
        det = "an"
    return " ".join(([det] if det else []) + words)


def pt_np(np: Subject, prep: str | None = None) -> str:
    """The Portuguese of a noun phrase, behind ``prep`` ("de", "em", "para") if given, contracted
    where it must."""
    if isinstance(np, Name):
        if np.relation:  # "minha amiga ana", "da minha amiga ana", "para meu irmão tom"
            female = _name_gender(np) == "f"
            noun = NOUN[np.relation].pt
            if female:
                noun = RELATION_FEMININE.get(np.relation, noun)  # "irmã" is feminine already
            det = DETERMINERS[np.owner][female]
            if prep in CONTRACT:  # the article comes back and contracts, as in "do meu gato"
                det = f"{CONTRACT[prep][DETERMINERS['the'][female]]} {det}"
            elif prep:
                det = f"{prep} {det}"
            return f"{det} {noun} {np.word}"
        if not np.title:
            return f"{prep} {np.word}" if prep else np.word
        article, title = TITLES[np.title]  # "o senhor": the article contracts, "do senhor"
        if prep in CONTRACT:
            article = CONTRACT[prep][article]
        elif prep:
            article = f"{prep} {article}"
        return f"{article} {title} {np.word}"
    n = NOUN[np.noun]
    g = n.gender == "f"
    if np.det in NUMBERS:
        det = NUMBERS[np.det][g]
    elif np.det.isdigit():
        det = np.det
    else:
        det = DETERMINERS[np.det][g + 2 * np.plural]
        if np.det in (
            "my",
            "your",
        ):  # the article comes back after a preposition: "do meu", "na sua"
            det = f"{DETERMINERS['the'][g + 2 * np.plural]} {det}" if prep in CONTRACT else det
    if prep in CONTRACT and det.split(" ")[0] in CONTRACT[prep]:
        first, *rest = det.split(" ")
        det = " ".join([CONTRACT[prep][first], *rest])
    elif prep:
        det = f"{prep} {det}" if det else prep
    words = ([det] if det else []) + [n.pt_pl if np.plural else n.pt]
    if np.adj:
        words.append(ADJECTIVE[np.adj].form(n.gender, np.plural))
    return " ".join(words)


def agreement(subject: Subject) -> tuple[str, str, str, bool]:
    """English agreement, Portuguese person, gender and number of a subject."""
    if isinstance(subject, Pron):
        p = PRONOUN[subject.word]
        return p.en_agree, p.person, p.gender, p.plural
    if isinstance(subject, Name):  # a relation's or a title's gender; a name alone: unknown
        return "3s", "3s", _name_gender(subject) or "m", False  # (only invariable adjectives)
    return (
        ("pl" if subject.plural else "3s"),
        ("3p" if subject.plural else "3s"),
        NOUN[subject.noun].gender,
        subject.plural,
    )


def _subjects(subject: Subject) -> tuple[str, str | None]:
    """English and Portuguese subject; the Portuguese is None when it is dropped (eu, nós)."""
    if isinstance(subject, Pron):
        return subject.word, PRONOUN[subject.word].pt
    return en_np(subject), pt_np(subject)


def _en_be(tense: str, agree: str) -> str:
    if tense == "past":
        return "was" if agree in ("1s", "3s") else "were"
    return {"1s": "am", "3s": "is", "pl": "are"}[agree]


def _clause(s: Sentence, contracted: bool) -> tuple[str, str]:
    """English and Portuguese of one clause, without the final mark."""
    if s.kind == "np":
        return en_np(s.subject), pt_np(s.subject)
    if s.kind == "name":  # Pron("i"): "my name is", Pron("you"): "your name is"
        owner = {"i": "my", "you": "your"}[s.subject.word]
        return f"{owner} name is {s.x.word}", f"{DETERMINERS[owner][0]} nome é {s.x.word}"
    agree, person, gender, plural = agreement(s.subject)
    en_subj, pt_subj = _subjects(s.subject)
    no = ["não"] if s.negated else []
    tense = s.tense

    if s.kind in ("be", "with", "loc", "where"):
        if s.kind == "be":
            adj = ADJECTIVE[s.x]
            en_pred, copula, pt_pred = s.x, adj.copula, adj.form(gender, plural)
        elif s.kind == "with":
            en_pred, copula, pt_pred = s.x, "estar", f"com {WITH[s.x]}"
        elif s.kind == "loc":
            en_pred, copula, pt_pred = (
                f"{NOUN[s.x.noun].en_in} {en_np(s.x)}",
                "estar",
                pt_np(s.x, "em"),
            )
        else:
            en_pred, copula, pt_pred = "", "estar", ""
        if tense == "future":
            be_pt = [GO.split()[PERSONS.index(person)], copula]
            will = "won't" if contracted and s.negated else "will not" if s.negated else "will"
            if s.kind == "where":
                en = f"where will {en_subj} be"
            elif s.question:
                en = f"will {en_subj} be {en_pred}"
            else:
                en = f"{en_subj} {will} be {en_pred}"
        else:
            be_pt = [BE[(copula, tense)].split()[PERSONS.index(person)]]
            be = _en_be(tense, agree)
            if s.kind == "where":
                en = f"where {be} {en_subj}"
            elif s.question:
                en = f"{be} {en_subj} {en_pred}"
            elif contracted and s.negated:  # "i'm not", "he isn't", "they weren't"
                en = ("i'm not" if be == "am" else f"{en_subj} {be}n't") + f" {en_pred}"
            elif (
                contracted and isinstance(s.subject, Pron) and tense == "present"
            ):  # "i'm"; a noun keeps "is"
                en = f"{PRONOUN[s.subject.word].en_be} {en_pred}"
            else:
                en = f"{en_subj} {be}{' not' if s.negated else ''} {en_pred}"
        if s.kind == "where":  # "onde está o gato?", but "onde você está?" and "onde estou?"
            pt_words = ["onde"] + (
                (be_pt + [pt_subj])
                if isinstance(s.subject, NP | Name)
                else ([pt_subj] if pt_subj else []) + be_pt
            )
            return en.strip(), " ".join(pt_words)
        pt_words = no + be_pt + [pt_pred]
    else:
        verb = VERB[s.x[0] if s.kind == "verb" else s.x]
        obj = s.x[1] if s.kind == "verb" else None
        obj_en = ""
        if obj is not None:
            obj_en = (
                " "
                + ("to " if verb.en == "go" else "in " if verb.prep == "em" else "")
                + en_np(obj)
            )
        do = {"past": "did", "future": "will"}.get(tense, "does" if agree == "3s" else "do")
        if s.kind == "what":
            en = f"what {do} {en_subj} {verb.en}"
        elif s.question:
            en = f"{do} {en_subj} {verb.en}{obj_en}"
        elif s.negated:
            not_ = ("won't" if tense == "future" else f"{do}n't") if contracted else f"{do} not"
            en = f"{en_subj} {not_} {verb.en}{obj_en}"
        elif tense == "future":
            en = f"{en_subj} will {verb.en}{obj_en}"
        elif tense == "past":
            en = f"{en_subj} {verb.en_past}{obj_en}"
        else:
            en = f"{en_subj} {verb.en_3s if agree == '3s' else verb.en}{obj_en}"
        i = PERSONS.index(person)
        if tense == "future":
            v_pt = [GO.split()[i], verb.inf]
        else:
            v_pt = [(verb.past if tense == "past" else verb.present)[person]]
        pt_words = no + v_pt
        if obj is not None:
            pt_words.append(pt_np(obj, verb.prep))
        if s.kind == "what":
            pt_words = ["o", "que"] + ([pt_subj] if pt_subj else []) + pt_words
            return en, " ".join(pt_words)
    pt = " ".join(([pt_subj] if pt_subj else []) + pt_words)
    if s.time:
        en, pt = f"{en} {s.time}", f"{pt} {TIMES[s.time][0]}"
    return en, pt


def render(spec, contracted: bool = False, mark: str = "") -> tuple[str, str]:
    """``(english, portuguese)`` of a spec; ``contracted`` writes "i'm", "isn't", "don't"; ``mark``
    ends both."""
    if isinstance(spec, Phrase):
        to = f", {spec.to.word}" if spec.to else ""
        return spec.en + to + mark, spec.pt + to + mark
    if isinstance(spec, Reply):
        en, pt = render(spec.body, contracted)
        return f"{spec.word}, {en}{mark}", f"{REPLIES[spec.word]}, {pt}{mark}"
    if isinstance(spec, Compound):
        a_en, a_pt = _clause(spec.first, contracted)
        b_en, b_pt = _clause(spec.second, contracted)
        en_conj, pt_conj = {
            "and": (" and ", " e "),
            "but": (", but ", ", mas "),
            ",": (", ", ", "),  # two clauses joined by a comma alone: no conjunction in either
        }[spec.conj]
        return a_en + en_conj + b_en + mark, a_pt + pt_conj + b_pt + mark
    en, pt = _clause(spec, contracted)
    return en + mark, pt + mark


def combinations(spec) -> set[tuple[str, str, str]]:
    """The ("adjective_noun", adj, noun) and ("verb_object", verb, noun) combinations a spec
    contains."""
    if isinstance(spec, Phrase):
        return set()
    if isinstance(spec, Reply):
        return combinations(spec.body)
    if isinstance(spec, Compound):
        return combinations(spec.first) | combinations(spec.second)
    out = set()
    nps = [np for np in (spec.subject, spec.x) if isinstance(np, NP)]
    if spec.kind == "verb" and isinstance(spec.x[1], NP):
        nps.append(spec.x[1])
        out.add(("verb_object", spec.x[0], spec.x[1].noun))
    for np in nps:
        if np.adj:
            out.add(("adjective_noun", np.adj, np.noun))
    if spec.kind == "be" and isinstance(spec.subject, NP):
        out.add(("adjective_noun", spec.x, spec.subject.noun))
    return out


# The name with which ``_all_shapes`` lists the forms around a name ("mr x"): no word of either
# language, so ``_words_of`` and ``lexicon_words`` leave it out.
STAND_IN = "x"


def english_words() -> set[str]:
    """Every English word the grammar can write (names and numbers in digits aside)."""
    return _words_of(0)


def portuguese_words() -> set[str]:
    """Every Portuguese word the grammar can write (names and numbers in digits aside)."""
    return _words_of(1)


def lexicon_words() -> set[str]:
    """Every word the grammar writes, in both languages: no name may be one of them."""
    words = set()
    for shapes in _all_shapes():
        for spec in shapes:
            for side in render(spec):
                words.update(side.replace(",", " ").split())
    for n in NOUNS:
        words.update(w for w in (n.en, n.en_pl, n.pt, n.pt_pl) if w)
    for a in ADJECTIVES:
        words.update((a.en, *a.pt))
    for v in VERBS:
        words.update(
            w for w in (v.en, v.en_3s, v.en_past, v.inf, *v.present.values(), *v.past.values()) if w
        )
    return words - {STAND_IN}


# Words no name may be besides the lexicon's: contracted forms the phrasebook never writes.
NOT_NAMES = frozenset({"dum", "duma", "num", "numa"})


def _words_of(side: int) -> set[str]:
    words = set()
    for spec in _all_shapes():
        for tense_spec in spec:
            for contracted in (False, True):  # "i am", "does not" and "i'm", "doesn't"
                words.update(render(tense_spec, contracted)[side].replace(",", " ,").split())
    return words - {STAND_IN}


def _all_shapes():
    """A few specs of every word and form, for ``english_words``."""
    for n in NOUNS:
        yield [Sentence("np", NP("the", n.en, False))] + (
            [Sentence("np", NP("two", n.en, True))] if n.en_pl else []
        )
    for a in ADJECTIVES:
        yield [
            Sentence("be", Pron("he"), True, False, a.en, t) for t in ("present", "past", "future")
        ]
    for w in WITH:
        yield [Sentence("with", Pron("i"), False, False, w)]
    for v in VERBS:
        kind, x = (
            ("intrans", v.en)
            if v.intransitive or not (v.objects or v.extra)
            else ("verb", (v.en, NP("the", next(n.en for n in NOUNS if v.takes(n)), False)))
        )
        tenses = ["present"] + (["past"] if v.en_past else []) + (["future"] if v.future else [])
        yield [
            Sentence(kind, Pron(p), neg, False, x, t)
            for t in tenses
            for p in ("he", "i")
            for neg in (False, True)
        ]
    for word in NUMBERS:
        yield [Sentence("np", NP(word, "cat", True))]
    for time in TIMES:
        yield [Sentence("intrans", Pron("i"), False, False, "run", TIMES[time][1][0], time)]
    yield [Phrase(en, pt) for en, pt in PHRASES]
    yield [Reply(word, Phrase("thank you", "obrigado")) for word in REPLIES]
    yield [Sentence("np", Name(STAND_IN, title)) for title in TITLES]
    yield [
        Sentence("np", Name(STAND_IN, relation=r, owner=o, gender=g))
        for r in RELATIONS
        for o in ("my", "your")
        for g in ("f", "m")
        if relation_gender(r) in ("", g)
    ]
    yield [
        Sentence("where", Pron("you")),
        Sentence("what", Pron("she"), x="want"),
        Sentence("name", Pron("i"), x=Name(STAND_IN)),
        Sentence("name", Pron("you"), x=Name(STAND_IN)),
        Sentence("np", NP("a", "apple", False)),
        Sentence("np", NP("a", "cat", False)),  # "a" itself ("an apple" writes "an")
        Sentence("loc", Pron("i"), x=NP("the", "beach", False)),
        Sentence("loc", Pron("i"), x=NP("the", "farm", False)),
        Sentence("be", Pron("i"), True, False, "tired", "present"),
    ]
    yield [
        Compound(
            Sentence("intrans", Pron("i"), x="run"), c, Sentence("intrans", Pron("i"), x="run")
        )
        for c in ("and", "but")
    ]
    yield [Sentence("be", Pron(p), False, False, "tired") for p in PRONOUN] + [
        Sentence("be", Pron(p), True, False, "tired", t)
        for p in PRONOUN
        for t in ("present", "past")
    ]
