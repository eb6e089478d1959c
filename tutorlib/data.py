"""Sentence pairs for the English→Portuguese translator: the code of chapter 9.

Read it top to bottom:

1. **Tokens.** ``tokenize`` lower-cases a sentence and splits it into words,
   with the final ``.``, ``!`` or ``?`` (and commas) as tokens of their own;
   ``detokenize`` glues them back for display.
2. **The phrasebook.** ``phrasebook(split)`` returns ``(english, portuguese)``
   pairs generated from a small grammar of both languages: no download, the
   same pairs on every machine. The grammar is built to need attention:

   - reordering: the adjective follows the noun ("the red car" → "o carro vermelho");
   - agreement: articles, possessives and adjectives take the noun's (or the
     subject's) gender and number ("she is tired" → "ela está cansada",
     "the black cats" → "os gatos pretos");
   - many-to-one and one-to-many: eu and nós are dropped ("I am happy" →
     "sou feliz"), do-support has no Portuguese word ("he does not eat" →
     "ele não come"), "I am hungry" → "estou com fome", and de + o contracts
     ("I like the cat" → "gosto do gato");
   - ser or estar, chosen by the adjective ("é feliz" but "está cansado").

   The test split holds out adjective–noun and verb–object combinations that
   never occur in training, so it measures generalisation, not recall.
3. **The vocabulary.** ``Vocab`` numbers the tokens, with ``<pad>``,
   ``<bos>``, ``<eos>`` and ``<unk>`` as ids 0 to 3.
4. **Batches.** ``make_batches`` pads sentences into tensors and builds the
   masks of chapter 6 (``tutorlib.nn.padding_attention_mask`` and
   ``causal_attention_mask``), with the target shifted right behind ``<bos>``
   for teacher forcing.
5. **Real data.** ``load_tatoeba`` reads the tab-separated Tatoeba/ManyThings
   files (``por.txt``) for learners who want real sentences.

Shape letters (the book's notation page): ``B`` batch, ``S`` source length,
``T`` target length.
"""

from __future__ import annotations

import os
import random
import re
import warnings
from collections import Counter
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Iterable, Sequence

import torch

from .checks import whole_number
from .nn import causal_attention_mask, padding_attention_mask

__all__ = [
    "PAD",
    "BOS",
    "EOS",
    "UNK",
    "SPECIALS",
    "PAD_ID",
    "BOS_ID",
    "EOS_ID",
    "UNK_ID",
    "tokenize",
    "detokenize",
    "is_punctuation",
    "phrasebook",
    "held_out",
    "SPLIT_SIZES",
    "Vocab",
    "Batch",
    "make_batches",
    "load_tatoeba",
]

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)  # ids 0, 1, 2, 3 in every Vocab
# Their ids, the same in every Vocab: defined here once, imported wherever an id is needed.
PAD_ID, BOS_ID, EOS_ID, UNK_ID = (SPECIALS.index(t) for t in (PAD, BOS, EOS, UNK))


# --- tokens ---------------------------------------------------------------------------

# Punctuation split off the start or end of a word as a token of its own.
_PUNCT = ".,!?;:\"()¿¡"
_NO_SPACE_BEFORE = set(".,!?;:)")
_NO_SPACE_AFTER = set("(¿¡")


def tokenize(text: str, lower: bool = True) -> list[str]:
    """Split ``text`` into lower-case word tokens; punctuation becomes its own token.

    ``"She is tired."`` → ``["she", "is", "tired", "."]``. Words split at
    white space; a ``.``, ``!``, ``?`` or ``,`` (and ``;:"()¿¡``) at the start
    or end of a word is split off, while apostrophes and hyphens inside a word
    stay ("don't" is one token). A run of the same mark is one token of that
    mark ("wait..." → ``["wait", "."]``, "no!!" → ``["no", "!"]``): the
    phrasebook writes each mark once, so "..." is an ellipsis, not three
    sentence ends. Curly apostrophes become straight ones, so "don’t" and
    "don't" are the same token. Empty text gives ``[]``. With
    ``lower=False`` the tokens keep the text's capital letters (the same
    tokens otherwise), which is how ``translate`` copies a name as it was typed.

    Used in chapter 9 (Training a translator).
    """
    if not isinstance(text, str):
        raise ValueError(f"tokenize expects a string, got {type(text).__name__}: {text!r}")
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    tokens: list[str] = []
    for word in text.split():
        head: list[str] = []
        while word and word[0] in _PUNCT:
            if not head or head[-1] != word[0]:
                head.append(word[0])
            word = word[1:]
        tail: list[str] = []
        while word and word[-1] in _PUNCT:
            if not tail or tail[-1] != word[-1]:
                tail.append(word[-1])
            word = word[:-1]
        tokens.extend(head)
        if word:
            tokens.append(word.lower() if lower else word)
        tokens.extend(reversed(tail))
    return tokens


def is_punctuation(token: str) -> bool:
    """True for a token ``tokenize`` split off as punctuation (``.`` ``,`` ``!`` ``?`` ...), not a word.

    Used in chapter 9 (Training a translator).
    """
    return len(token) == 1 and token in _PUNCT


def detokenize(tokens: Sequence[str]) -> str:
    """Join tokens into a sentence for display: ``["ela", "está", "cansada", "."]`` → ``"ela está cansada."``.

    No space goes before ``. , ! ? ; : )`` or after ``( ¿ ¡``. For every
    sentence of the phrasebook, ``detokenize(tokenize(s)) == s``.

    Used in chapter 9 (Training a translator).
    """
    if isinstance(tokens, str):
        raise ValueError(f"detokenize expects a list of tokens, got the string {tokens!r}; pass tokenize(text)")
    out = ""
    for tok in tokens:
        if out and tok not in _NO_SPACE_BEFORE and out[-1] not in _NO_SPACE_AFTER:
            out += " "
        out += tok
    return out


# --- the phrasebook's lexicon --------------------------------------------------------------
#
# Nouns fall into classes, and each verb and adjective says which classes it
# takes, so that the grammar writes "the dog eats the apple" but never "the
# dog reads the girl" and never gives a colour to a person.

_PERSON, _ANIMAL, _FOOD, _THING, _PAPER = "person", "animal", "food", "thing", "paper"
_ALL = frozenset({_PERSON, _ANIMAL, _FOOD, _THING, _PAPER})
_ANIMATE = frozenset({_PERSON, _ANIMAL})
_NOT_PERSON = _ALL - {_PERSON}


@dataclass(frozen=True)
class _Noun:
    en: str
    en_pl: str
    pt: str
    pt_pl: str
    gender: str  # "m" or "f", of the Portuguese noun
    cls: str
    possessive: bool = True  # False: never "my"/"your" ("minha mulher" would say "my wife")


def _noun(en, pt, gender, cls, en_pl=None, pt_pl=None, possessive=True) -> _Noun:
    return _Noun(en, en_pl or en + "s", pt, pt_pl or pt + "s", gender, cls, possessive)


_NOUN_LIST = [
    # the core lexicon
    _noun("cat", "gato", "m", _ANIMAL),
    _noun("dog", "cachorro", "m", _ANIMAL),
    _noun("house", "casa", "f", _THING),
    _noun("car", "carro", "m", _THING),
    _noun("book", "livro", "m", _PAPER),
    _noun("apple", "maçã", "f", _FOOD),
    _noun("girl", "menina", "f", _PERSON),
    _noun("boy", "menino", "m", _PERSON),
    _noun("table", "mesa", "f", _THING),
    # more words, for more combinations
    _noun("man", "homem", "m", _PERSON, en_pl="men", pt_pl="homens", possessive=False),
    _noun("woman", "mulher", "f", _PERSON, en_pl="women", pt_pl="mulheres", possessive=False),
    _noun("friend", "amigo", "m", _PERSON),
    _noun("teacher", "professor", "m", _PERSON, pt_pl="professores"),
    _noun("bird", "pássaro", "m", _ANIMAL),
    _noun("horse", "cavalo", "m", _ANIMAL),
    _noun("cow", "vaca", "f", _ANIMAL),
    _noun("cake", "bolo", "m", _FOOD),
    _noun("orange", "laranja", "f", _FOOD),
    _noun("banana", "banana", "f", _FOOD),
    _noun("egg", "ovo", "m", _FOOD),
    _noun("chair", "cadeira", "f", _THING),
    _noun("door", "porta", "f", _THING),
    _noun("window", "janela", "f", _THING),
    _noun("tree", "árvore", "f", _THING),
    _noun("flower", "flor", "f", _THING, pt_pl="flores"),
    _noun("ball", "bola", "f", _THING),
    _noun("shirt", "camisa", "f", _THING),
    _noun("hat", "chapéu", "m", _THING),
    _noun("key", "chave", "f", _THING),
    _noun("box", "caixa", "f", _THING, en_pl="boxes"),
    _noun("boat", "barco", "m", _THING),
    _noun("train", "trem", "m", _THING, pt_pl="trens"),
    _noun("letter", "carta", "f", _PAPER),
    _noun("newspaper", "jornal", "m", _PAPER, pt_pl="jornais"),
    _noun("magazine", "revista", "f", _PAPER),
]
_NOUNS = {n.en: n for n in _NOUN_LIST}


@dataclass(frozen=True)
class _Adjective:
    en: str
    pt: tuple  # (masculine singular, feminine singular, masculine plural, feminine plural)
    copula: str  # "ser" (what something is) or "estar" (the state it is in)
    classes: frozenset  # noun classes it describes
    extra: frozenset = frozenset()  # single nouns outside those classes that it also describes
    attributive: bool = True  # False: only after "be" ("ready": "the car is ready", never "the ready car")

    def takes(self, noun: _Noun) -> bool:
        return noun.cls in self.classes or noun.en in self.extra

    def form(self, gender: str, plural: bool) -> str:
        return self.pt[(gender == "f") + 2 * plural]


def _adj(en, pt, copula, classes, extra=(), attributive=True, pt_pl=None) -> _Adjective:
    """``pt`` is the masculine singular; -o adjectives inflect -a/-os/-as, the others only take a plural."""
    if pt.endswith("o"):
        forms = (pt, pt[:-1] + "a", pt + "s", pt[:-1] + "as")
    else:
        plural = pt_pl or pt + "s"
        forms = (pt, pt, plural, plural)
    return _Adjective(en, forms, copula, frozenset(classes), frozenset(extra), attributive)


_ADJECTIVE_LIST = [
    # ser: what something is
    _adj("happy", "feliz", "ser", _ANIMATE, pt_pl="felizes"),
    _adj("big", "grande", "ser", _ALL),
    _adj("small", "pequeno", "ser", _ALL),
    _adj("new", "novo", "ser", _ALL),
    _adj("old", "velho", "ser", _ALL),
    _adj("red", "vermelho", "ser", {_FOOD, _THING, _PAPER}, extra={"bird"}),
    _adj("black", "preto", "ser", _NOT_PERSON),
    _adj("tall", "alto", "ser", _ANIMATE, extra={"house", "tree", "door", "table", "chair"}),
    _adj("white", "branco", "ser", _NOT_PERSON),
    _adj("green", "verde", "ser", {_FOOD, _THING, _PAPER}, extra={"bird"}),
    _adj("blue", "azul", "ser", {_FOOD, _THING, _PAPER}, extra={"bird"}, pt_pl="azuis"),
    _adj("yellow", "amarelo", "ser", {_FOOD, _THING, _PAPER}, extra={"bird"}),
    _adj("beautiful", "bonito", "ser", _ALL),
    _adj("young", "jovem", "ser", _ANIMATE, pt_pl="jovens"),
    _adj("strong", "forte", "ser", _ANIMATE),
    _adj("fast", "rápido", "ser", {_ANIMAL}, extra={"car", "train", "boat"}),
    _adj("cheap", "barato", "ser", _NOT_PERSON),
    _adj("expensive", "caro", "ser", _NOT_PERSON),
    # estar: the state something is in
    _adj("tired", "cansado", "estar", _ANIMATE),
    _adj("sad", "triste", "estar", _ANIMATE),
    _adj("ready", "pronto", "estar", _ALL, attributive=False),
    _adj("dirty", "sujo", "estar", _NOT_PERSON),
    _adj("clean", "limpo", "estar", _NOT_PERSON),
    _adj("sick", "doente", "estar", _ANIMATE),
    _adj("busy", "ocupado", "estar", {_PERSON}),
    _adj("broken", "quebrado", "estar", (),
         extra={"car", "table", "chair", "door", "window", "ball", "key", "box", "boat", "train"}),
    _adj("wet", "molhado", "estar", {_ANIMAL, _THING, _PAPER}),
]
_ADJECTIVES = {a.en: a for a in _ADJECTIVE_LIST}

# Present tense, by person: "1s" eu, "3s" você/ele/ela, "1p" nós, "3p" eles.
_BE = {
    "ser": {"1s": "sou", "3s": "é", "1p": "somos", "3p": "são"},
    "estar": {"1s": "estou", "3s": "está", "1p": "estamos", "3p": "estão"},
}


@dataclass(frozen=True)
class _Verb:
    en: str
    en_3s: str  # "he sees"
    pt: dict  # person -> present-tense form
    prep: str | None  # "de" for gostar de and precisar de: "gosto do gato"
    subjects: frozenset  # noun classes that can do it
    objects: frozenset  # noun classes it can be done to
    extra: frozenset = frozenset()  # single nouns outside those classes it can be done to
    intransitive: bool = False  # may stand without an object: "he does not eat" -> "ele não come"

    def takes(self, noun: _Noun) -> bool:
        return noun.cls in self.objects or noun.en in self.extra


def _verb(en, en_3s, forms, subjects, objects, prep=None, extra=(), intransitive=False) -> _Verb:
    pt = dict(zip(("1s", "3s", "1p", "3p"), forms.split()))
    return _Verb(en, en_3s, pt, prep, frozenset(subjects), frozenset(objects), frozenset(extra), intransitive)


_VERB_LIST = [
    # the core lexicon
    _verb("see", "sees", "vejo vê vemos veem", _ANIMATE, _ALL),
    _verb("eat", "eats", "como come comemos comem", _ANIMATE, {_FOOD}, intransitive=True),
    _verb("have", "has", "tenho tem temos têm", _ANIMATE, _NOT_PERSON, extra={"friend", "teacher"}),
    _verb("like", "likes", "gosto gosta gostamos gostam", _ANIMATE, _ALL, prep="de"),
    _verb("read", "reads", "leio lê lemos leem", {_PERSON}, {_PAPER}, intransitive=True),
    _verb("want", "wants", "quero quer queremos querem", _ANIMATE, _NOT_PERSON),
    _verb("buy", "buys", "compro compra compramos compram", {_PERSON}, _NOT_PERSON),
    # more verbs
    _verb("need", "needs", "preciso precisa precisamos precisam", _ANIMATE, _NOT_PERSON, prep="de",
          extra={"friend", "teacher"}),
    _verb("sell", "sells", "vendo vende vendemos vendem", {_PERSON}, _NOT_PERSON),
    _verb("wash", "washes", "lavo lava lavamos lavam", {_PERSON}, {_ANIMAL, _FOOD, _THING}),
    _verb("find", "finds", "encontro encontra encontramos encontram", _ANIMATE, _ALL),
    _verb("draw", "draws", "desenho desenha desenhamos desenham", {_PERSON}, _ALL),
]
_VERBS = {v.en: v for v in _VERB_LIST}


@dataclass(frozen=True)
class _Pronoun:
    en: str
    pt: str | None  # None: dropped, the verb's ending says who ("sou feliz")
    person: str  # Portuguese person of the verb
    gender: str  # of the adjectives that agree with it (masculine when English does not say)
    plural: bool
    en_agree: str  # English agreement: "1s" (am), "3s" (is, does, -s), "pl" (are, do)
    en_be: str  # contracted "be": "i'm"


_PRONOUN_LIST = [
    _Pronoun("i", None, "1s", "m", False, "1s", "i'm"),
    _Pronoun("you", "você", "3s", "m", False, "pl", "you're"),
    _Pronoun("he", "ele", "3s", "m", False, "3s", "he's"),
    _Pronoun("she", "ela", "3s", "f", False, "3s", "she's"),
    _Pronoun("we", None, "1p", "m", True, "pl", "we're"),
    _Pronoun("they", "eles", "3p", "m", True, "pl", "they're"),
]
_PRONOUNS = {p.en: p for p in _PRONOUN_LIST}

# Determiners: English word -> Portuguese (masc sg, fem sg, masc pl, fem pl); "a" has no plural.
_DETERMINERS = {
    "the": ("o", "a", "os", "as"),
    "a": ("um", "uma", None, None),
    "my": ("meu", "minha", "meus", "minhas"),
    "your": ("seu", "sua", "seus", "suas"),
}
# After "de" (gostar de, precisar de): de + o/a/os/as contract to do/da/dos/das; de + um/uma
# stay two words ("de um", "de uma": the contracted "dum"/"duma" is European and informal);
# before a possessive, Brazilian usage puts the article back in: "gosto do meu gato".
_DE = {
    "the": ("do", "da", "dos", "das"),
    "a": ("de um", "de uma", None, None),
    "my": ("do meu", "da minha", "dos meus", "das minhas"),
    "your": ("do seu", "da sua", "dos seus", "das suas"),
}


# --- the phrasebook's grammar ----------------------------------------------------------------
#
# A sentence is a plain tuple, its "spec"; rendering a spec in English and in
# Portuguese is all the grammar there is.
#
#   noun phrase   ("np", det, noun, plural, adjective or None)      the red cars
#   pronoun       ("pron", word)                                     she
#   sentence      (kind, subject, negated, question, x)
#
#   kind       x                          English                      Portuguese
#   "np"       None (subject is the NP)   the red car                  o carro vermelho
#   "be"       adjective                  she is (not) tired           ela (não) está cansada
#   "hungry"   None                       i am (not) hungry            (não) estou com fome
#   "verb"     (verb, object NP)          he does not eat the apple    ele não come a maçã
#   "intrans"  verb                       he does not eat              ele não come
#
# A question ("is she tired?", "does he eat the apple?") translates as the
# statement does; only the final "?" marks it, in both languages.


def _np(text: str) -> tuple:
    """Spec of a noun phrase written in English: ``_np("the red cars")``."""
    words = text.split()
    det, noun_word = words[0], words[-1]
    adj = words[1] if len(words) == 3 else None
    det = "a" if det == "an" else det
    for noun in _NOUN_LIST:
        if noun_word in (noun.en, noun.en_pl):
            return ("np", det, noun.en, noun_word == noun.en_pl and noun.en != noun.en_pl, adj)
    raise KeyError(f"no noun {noun_word!r} in the phrasebook's lexicon")


def _subject(text: str) -> tuple:
    return ("pron", text) if text in _PRONOUNS else _np(text)


def _en_np(np: tuple) -> str:
    _, det, noun, plural, adj = np
    n = _NOUNS[noun]
    words = ([adj] if adj else []) + [n.en_pl if plural else n.en]
    if det == "a" and words[0][0] in "aeiou":
        det = "an"
    return " ".join([det] + words)


def _pt_np(np: tuple, prep: str | None = None) -> str:
    _, det, noun, plural, adj = np
    n = _NOUNS[noun]
    i = (n.gender == "f") + 2 * plural
    words = [(_DE if prep == "de" else _DETERMINERS)[det][i], n.pt_pl if plural else n.pt]
    if adj:
        words.append(_ADJECTIVES[adj].form(n.gender, plural))
    return " ".join(words)


def _agreement(subject: tuple):
    """English agreement, Portuguese person, gender and number of a subject."""
    if subject[0] == "pron":
        p = _PRONOUNS[subject[1]]
        return p.en_agree, p.person, p.gender, p.plural
    _, _, noun, plural, _ = subject
    return ("pl" if plural else "3s"), ("3p" if plural else "3s"), _NOUNS[noun].gender, plural


def _render(spec: tuple, contracted: bool = False, mark: str = "") -> tuple[str, str]:
    """``(english, portuguese)`` of a spec; ``contracted`` writes "i'm", "isn't", "don't"; ``mark`` ends both."""
    kind, subject, neg, question, x = spec
    if kind == "np":
        return _en_np(subject) + mark, _pt_np(subject) + mark

    en_agree, person, gender, plural = _agreement(subject)
    is_pron = subject[0] == "pron"
    en_subj = subject[1] if is_pron else _en_np(subject)
    pt_subj = _PRONOUNS[subject[1]].pt if is_pron else _pt_np(subject)
    no = ["não"] if neg else []

    if kind in ("be", "hungry"):
        be = {"1s": "am", "3s": "is", "pl": "are"}[en_agree]
        en_pred = x if kind == "be" else "hungry"
        if question:
            en = f"{be} {en_subj} {en_pred}"
        elif contracted and neg:  # "i'm not", "he isn't", "the cats aren't"
            en = ("i'm not" if en_agree == "1s" else f"{en_subj} {be}n't") + f" {en_pred}"
        elif contracted and is_pron:  # "i'm", "he's"; a noun phrase keeps "is"
            en = f"{_PRONOUNS[subject[1]].en_be} {en_pred}"
        else:
            en = f"{en_subj} {be}{' not' if neg else ''} {en_pred}"
        if kind == "be":
            adj = _ADJECTIVES[x]
            pt_words = no + [_BE[adj.copula][person], adj.form(gender, plural)]
        else:
            pt_words = no + [_BE["estar"][person], "com", "fome"]
    else:
        verb = _VERBS[x[0] if kind == "verb" else x]
        obj_en = " " + _en_np(x[1]) if kind == "verb" else ""
        do = "does" if en_agree == "3s" else "do"
        if question:
            en = f"{do} {en_subj} {verb.en}{obj_en}"
        elif neg:
            not_ = "n't" if contracted else " not"
            en = f"{en_subj} {do}{not_} {verb.en}{obj_en}"
        else:
            en = f"{en_subj} {verb.en_3s if en_agree == '3s' else verb.en}{obj_en}"
        pt_words = no + [verb.pt[person]]
        if kind == "verb":
            pt_words.append(_pt_np(x[1], verb.prep))
    pt = " ".join(([pt_subj] if pt_subj else []) + pt_words)
    return en + mark, pt + mark


def _combinations(spec: tuple) -> set[tuple[str, str, str]]:
    """The ("adjective_noun", adj, noun) and ("verb_object", verb, noun) combinations a spec contains."""
    kind, subject, _, _, x = spec
    out = set()
    if subject[0] == "np" and subject[4]:
        out.add(("adjective_noun", subject[4], subject[2]))
    if kind == "be" and subject[0] == "np":
        out.add(("adjective_noun", x, subject[2]))
    if kind == "verb":
        verb, obj = x
        out.add(("verb_object", verb, obj[2]))
        if obj[4]:
            out.add(("adjective_noun", obj[4], obj[2]))
    return out


# The issue's examples and chapter 9's, always in the training split: with no
# final mark and with "." (questions: "?"). Each is a spec plus "contracted".
_EXAMPLES = [
    (("np", _np("the red car"), False, False, None), False),
    (("be", _subject("she"), False, False, "tired"), False),
    (("np", _np("the black cats"), False, False, None), False),
    (("be", _subject("i"), False, False, "happy"), False),
    (("intrans", _subject("he"), True, False, "eat"), False),
    (("hungry", _subject("i"), False, False, None), False),
    (("verb", _subject("i"), False, False, ("like", _np("the cat"))), False),
    (("verb", _subject("he"), True, False, ("eat", _np("the apple"))), False),
    (("verb", _subject("i"), True, False, ("like", _np("the cat"))), False),
    (("verb", _subject("we"), False, False, ("eat", _np("the apple"))), False),
    (("be", _subject("they"), False, False, "tall"), False),
    (("be", _subject("the black cats"), False, False, "small"), False),
    (("be", _subject("the house"), False, False, "small"), False),
    (("be", _subject("the houses"), False, False, "old"), False),
    (("be", _subject("the tables"), False, False, "red"), False),
    (("be", _subject("the girls"), False, False, "tired"), False),
    (("be", _subject("the boys"), False, False, "sad"), False),
    (("be", _subject("the girl"), False, False, "happy"), False),
    (("be", _subject("the girl"), False, False, "sad"), False),
    (("be", _subject("the car"), False, False, "ready"), False),
    (("hungry", _subject("the dogs"), False, False, None), False),
    (("np", _np("my black cat"), False, False, None), False),
    (("np", _np("your red apples"), False, False, None), False),
    (("np", _np("my house"), False, False, None), False),
    (("np", _np("my books"), False, False, None), False),
    (("np", _np("your table"), False, False, None), False),
    (("np", _np("a big dog"), False, False, None), False),
    (("np", _np("an apple"), False, False, None), False),
    (("np", _np("an old car"), False, False, None), False),
    (("np", _np("a small house"), False, False, None), False),
    *[(("np", _np(f"the {n}"), False, False, None), False)
      for n in ("cats", "dogs", "houses", "cars", "books", "apples", "girls", "boys", "tables")],
    (("verb", _subject("she"), False, False, ("like", _np("the girls"))), False),
    (("verb", _subject("they"), False, False, ("like", _np("my house"))), False),
    (("verb", _subject("we"), False, False, ("need", _np("a book"))), False),
    (("verb", _subject("you"), False, False, ("like", _np("an apple"))), False),
    (("verb", _subject("i"), False, False, ("like", _np("your dogs"))), False),
    (("verb", _subject("they"), False, False, ("have", _np("a car"))), False),
    (("verb", _subject("you"), False, False, ("see", _np("the dog"))), False),
    (("verb", _subject("they"), False, False, ("see", _np("the dogs"))), False),
    (("verb", _subject("she"), False, False, ("read", _np("the book"))), False),
    (("verb", _subject("the girl"), False, False, ("read", _np("the book"))), False),
    (("verb", _subject("the dogs"), True, False, ("eat", _np("the apples"))), False),
    (("verb", _subject("the boy"), False, False, ("have", _np("a red car"))), False),
    (("be", _subject("you"), False, True, "tired"), False),
    (("verb", _subject("she"), False, True, ("like", _np("the cat"))), False),
    (("be", _subject("the car"), False, True, "red"), False),
    (("verb", _subject("he"), True, False, ("eat", _np("the apple"))), True),
]

# The sizes of the splits. The training split holds every sentence of the small
# templates (a pronoun and "be", "be hungry", or eat/read without object) in
# several spellings, the examples above, and sampled sentences up to its size.
SPLIT_SIZES = {"train": 22_000, "valid": 1_000, "test": 1_500}
_SEED = 2024


class _Rng:
    """SplitMix64: a few lines of integer arithmetic, so the phrasebook is the same on every machine and Python."""

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
        return self.next() % n  # bias below 1e-17 for the small n used here

    def uniform(self) -> float:
        return (self.next() >> 11) / float(1 << 53)

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


def _hold_out(rng: _Rng, protected: set) -> dict[str, set]:
    """Choose, for every noun, one adjective and one verb held out for "test" and another for "valid".

    Each is picked among the words that take that noun, preferring the word
    with the smallest share of its nouns held out so far (ties broken by
    ``rng``); a word keeps at least three quarters of its nouns in training
    and a noun at least two of its words, so every word is learnt in many
    combinations. ``protected`` combinations (those of the examples) are never
    held out.
    """
    held = {"test": set(), "valid": set()}
    for kind, words, takes in (
        ("adjective_noun", _ADJECTIVE_LIST, lambda w, n: w.takes(n)),
        ("verb_object", _VERB_LIST, lambda w, n: w.takes(n)),
    ):
        count = Counter()
        takers = {w.en: sum(takes(w, n) for n in _NOUN_LIST) for w in words}
        nouns = list(_NOUN_LIST)
        for i in range(len(nouns) - 1, 0, -1):  # Fisher-Yates shuffle
            j = rng.below(i + 1)
            nouns[i], nouns[j] = nouns[j], nouns[i]
        for noun in nouns:
            candidates = [w.en for w in words if takes(w, noun) and (kind, w.en, noun.en) not in protected]
            for split in ("test", "valid"):
                # A word keeps at least three quarters of its nouns in training (and at least three).
                candidates = [w for w in candidates if count[w] + 1 <= max(1, (takers[w] - 3) // 4)]
                candidates.sort(key=lambda w: (count[w] / takers[w], rng.next()))
                if len(candidates) < 3:  # the noun keeps at least two of its words in training
                    break
                word = candidates.pop(0)
                count[word] += 1
                held[split].add((kind, word, noun.en))
    return held


def _random_np(rng: _Rng, takes) -> tuple:
    """A noun phrase whose noun satisfies ``takes(noun)``: determiner, noun, number, perhaps an adjective."""
    noun = rng.choice([n for n in _NOUN_LIST if takes(n)])
    det = rng.weighted([(4, "the"), (2, "a"), (2, "my"), (2, "your")] if noun.possessive else [(2, "the"), (1, "a")])
    plural = det != "a" and rng.uniform() < 0.4
    adj = None
    if rng.uniform() < 0.5:
        adj = rng.choice([a.en for a in _ADJECTIVE_LIST if a.attributive and a.takes(noun)])
    return ("np", det, noun.en, plural, adj)


def _random_spec(rng: _Rng) -> tuple:
    """One sentence from the larger templates (those with a noun phrase), and its spelling."""
    kind = rng.weighted([
        (10, "np"), (20, "be"), (3, "hungry"), (25, "pron_verb"), (22, "np_verb"), (3, "intrans"),
        (7, "q_be"), (10, "q_verb"),
    ])
    question = kind.startswith("q_")
    neg = not question and kind != "np" and rng.uniform() < 0.3
    if kind == "np":
        spec = ("np", _random_np(rng, lambda n: True), False, False, None)
    elif kind in ("be", "q_be"):
        if question and rng.uniform() < 0.3:
            subject = ("pron", rng.choice(_PRONOUN_LIST).en)
            adj = rng.choice([a.en for a in _ADJECTIVE_LIST if _PERSON in a.classes] + ["hungry"])
        else:
            subject = _random_np(rng, lambda n: True)
            noun = _NOUNS[subject[2]]
            adjs = [a.en for a in _ADJECTIVE_LIST if a.takes(noun) and a.en != subject[4]]
            if noun.cls in _ANIMATE:
                adjs.append("hungry")
            adj = rng.choice(adjs)
        spec = ("hungry", subject, neg, question, None) if adj == "hungry" else ("be", subject, neg, question, adj)
    elif kind == "hungry":
        spec = ("hungry", _random_np(rng, lambda n: n.cls in _ANIMATE), neg, False, None)
    elif kind == "intrans":
        verb = rng.choice([v for v in _VERB_LIST if v.intransitive])
        spec = ("intrans", _random_np(rng, lambda n: n.cls in verb.subjects), neg, False, verb.en)
    else:
        verb = rng.choice(_VERB_LIST)
        if kind == "pron_verb" or (question and rng.uniform() < 0.5):
            subject = ("pron", rng.choice(_PRONOUN_LIST).en)
        else:
            subject = _random_np(rng, lambda n: n.cls in verb.subjects)
        spec = ("verb", subject, neg, question, (verb.en, _random_np(rng, verb.takes)))
    return spec


def _spelling(rng: _Rng, spec: tuple) -> tuple[bool, str]:
    """Contracted or not, and the final mark: mostly ".", often none, sometimes "!" or "?"."""
    contracted = spec[0] != "np" and not spec[3] and rng.uniform() < 0.2
    if spec[3]:
        mark = rng.weighted([(85, "?"), (15, "")])
    else:
        mark = rng.weighted([(50, "."), (30, ""), (10, "!"), (10, "?")])
    return contracted, mark


def _small_templates() -> list[tuple]:
    """Every sentence of the small templates: a pronoun with "be", "be hungry", or eat/read alone."""
    specs = []
    for p in _PRONOUN_LIST:
        subject = ("pron", p.en)
        for neg in (False, True):
            for adj in _ADJECTIVE_LIST:
                if _PERSON in adj.classes:
                    specs.append(("be", subject, neg, False, adj.en))
            specs.append(("hungry", subject, neg, False, None))
            for verb in _VERB_LIST:
                if verb.intransitive:
                    specs.append(("intrans", subject, neg, False, verb.en))
    return specs


@lru_cache(maxsize=1)
def _build() -> tuple[dict, dict]:
    """All three splits, and the held-out combinations of "test" and "valid"."""
    rng = _Rng(_SEED)
    protected = set().union(*(_combinations(spec) for spec, _ in _EXAMPLES))
    held = _hold_out(rng, protected)
    for spec, _ in _EXAMPLES:
        assert not _combinations(spec) & (held["test"] | held["valid"]), spec

    splits = {"train": [], "valid": [], "test": []}
    seen_en: set[str] = set()
    seen_spec: set[tuple] = set()

    def add(split, spec, contracted, mark):
        en, pt = _render(spec, contracted, mark)
        if en not in seen_en:
            seen_en.add(en)
            splits[split].append((en, pt))
        seen_spec.add(spec)

    for spec, contracted in _EXAMPLES:
        for mark in (("?", "") if spec[3] else ("", ".")):
            add("train", spec, contracted, mark)
    for spec in _small_templates():
        for mark in ("", ".", "!", "?"):
            add("train", spec, False, mark)
            add("train", spec, True, mark)  # the same English when nothing contracts: skipped

    # Draw sentences and file each by its combinations: one held out for "test" makes it a test
    # sentence, one held out for "valid" a validation sentence, neither a training sentence.
    for _ in range(50 * sum(SPLIT_SIZES.values())):
        if all(len(splits[s]) >= n for s, n in SPLIT_SIZES.items()):
            return splits, held
        spec = _random_spec(rng)
        contracted, mark = _spelling(rng, spec)
        combos = _combinations(spec)
        in_test, in_valid = bool(combos & held["test"]), bool(combos & held["valid"])
        if spec in seen_spec or (in_test and in_valid):
            continue
        split = "test" if in_test else "valid" if in_valid else "train"
        if len(splits[split]) < SPLIT_SIZES[split]:
            add(split, spec, contracted, mark)
    raise RuntimeError(f"the grammar ran out of new sentences for SPLIT_SIZES={SPLIT_SIZES}: "
                       f"got {({s: len(p) for s, p in splits.items()})}")


def phrasebook(split: str = "train") -> list[tuple[str, str]]:
    """``(english, portuguese)`` sentence pairs of the course's phrasebook, for ``"train"``, ``"valid"`` or ``"test"``.

    The pairs come from a small grammar of English and Portuguese (no
    download) and are the same on every machine and every call: 22,000 for
    training, 1,000 for validation and 1,500 for testing, all different.
    Sentences are lower-case; a final ``.``, ``!`` or ``?`` (or none) is the
    same on both sides::

        ("i am happy.", "sou feliz.")                    eu is dropped
        ("she is tired.", "ela está cansada.")           estar, feminine
        ("the red car", "o carro vermelho")              the adjective moves
        ("he does not eat the apple.", "ele não come a maçã.")
        ("i like the cat.", "gosto do gato.")            de + o = do

    The grammar: subject pronouns (i, you, he, she, we, they → eu, você, ele,
    ela, nós, eles; eu and nós dropped, "you" is você and takes the third
    person, and "you", "i", "we", "they" take masculine adjectives); noun
    phrases (the/a/my/your, at most one adjective, singular or plural: "the
    red cars" → "os carros vermelhos"); sentences "SUBJECT be (not) ADJ",
    "SUBJECT be (not) hungry" (estar com fome), "SUBJECT (do not) VERB
    OBJECT", eat and read without object, noun phrases alone, and questions
    ("are you tired?" → "você está cansado?", "does he eat the apple?" →
    "ele come a maçã?"). Some sentences are written with English contractions
    ("i'm", "isn't", "don't"). de + um/uma stays "de um"/"de uma"; de before
    my/your is "do meu", "da sua" (Brazilian usage). Words only meet where they
    make sense: people eat food and read paper, colours are for animals and
    things, never for people.

    The test split holds out combinations: for most nouns, one adjective and
    one verb (as its object) never occur with that noun in training; the
    sentences that contain them make the test split. The validation split
    does the same with other combinations (``held_out`` lists both). So the
    test measures whether a model *generalises* to "the red shirt" from "the
    red car" and "the old shirt", not whether it remembers.

    Used in chapter 9 (Training a translator).
    """
    if split not in SPLIT_SIZES:
        raise ValueError(f"split must be one of {sorted(SPLIT_SIZES)}, got {split!r}")
    return list(_build()[0][split])


def held_out(split: str = "test") -> dict[str, frozenset[tuple[str, str]]]:
    """The combinations held out of training for ``"test"`` or ``"valid"``, as English words.

    Returns ``{"adjective_noun": {("red", "house"), ...}, "verb_object":
    {("eat", "cake"), ...}}``: no training sentence pairs that adjective with
    that noun (as "the red house" or "the house is red") or has that noun as
    that verb's object; every sentence of ``split`` contains at least one of
    its own combinations and none of the other split's.

    Used in chapter 9 (Training a translator).
    """
    if split not in ("test", "valid"):
        raise ValueError(f"only 'test' and 'valid' hold combinations out, got {split!r}")
    held = _build()[1][split]
    return {
        kind: frozenset((a, b) for k, a, b in held if k == kind) for kind in ("adjective_noun", "verb_object")
    }


# --- the vocabulary -----------------------------------------------------------------------


class Vocab:
    """Numbers for tokens: ``<pad>``, ``<bos>``, ``<eos>``, ``<unk>`` are 0 to 3, then the words.

    Build one from tokenized sentences with ``Vocab.build``; ``encode`` turns
    tokens into ids (an unknown word becomes ``<unk>``, with a warning that
    names it), ``decode`` turns ids back into tokens, and ``to_dict`` /
    ``from_dict`` store it in a checkpoint.

    Used in chapter 9 (Training a translator).
    """

    def __init__(self, tokens: Sequence[str]):
        tokens = list(tokens)
        if tuple(tokens[:4]) != SPECIALS:
            raise ValueError(
                f"a Vocab's first four tokens must be {list(SPECIALS)}, got {tokens[:4]}; "
                "use Vocab.build(token_lists) to put them there"
            )
        index: dict[str, int] = {}
        for i, tok in enumerate(tokens):
            if not isinstance(tok, str) or not tok:
                raise ValueError(f"token {i} must be a non-empty string, got {tok!r}")
            if tok in index:
                raise ValueError(f"token {tok!r} appears twice (ids {index[tok]} and {i}); each token needs one id")
            index[tok] = i
        self._tokens = tokens
        self._index = index

    @classmethod
    def build(cls, token_lists: Iterable[Sequence[str]], min_freq: int = 1) -> "Vocab":
        """The vocabulary of ``token_lists``: the specials, then every token seen ``min_freq`` times or more.

        Tokens are ordered by how often they occur (most frequent first; ties
        alphabetically), so the same data always gives the same ids.

        Used in chapter 9 (Training a translator).
        """
        whole_number("min_freq", min_freq, 1)
        counts: Counter = Counter()
        for i, toks in enumerate(token_lists):
            if isinstance(toks, str):
                raise ValueError(
                    f"token_lists[{i}] is the string {toks!r}, not a list of tokens; "
                    "pass [tokenize(s) for s in sentences]"
                )
            counts.update(toks)
        for special in SPECIALS:
            counts.pop(special, None)
        kept = sorted((t for t, c in counts.items() if c >= min_freq), key=lambda t: (-counts[t], t))
        return cls(list(SPECIALS) + kept)

    def __len__(self) -> int:
        return len(self._tokens)

    def __contains__(self, token) -> bool:
        return token in self._index

    def __eq__(self, other) -> bool:
        return isinstance(other, Vocab) and self._tokens == other._tokens

    def __repr__(self) -> str:
        return f"Vocab({len(self)} tokens: {', '.join(self._tokens[:8])}{', ...' if len(self) > 8 else ''})"

    @property
    def tokens(self) -> list[str]:
        """Every token, in id order."""
        return list(self._tokens)

    pad_id = property(lambda self: PAD_ID, doc="Id of ``<pad>``: 0.")
    bos_id = property(lambda self: BOS_ID, doc="Id of ``<bos>``: 1.")
    eos_id = property(lambda self: EOS_ID, doc="Id of ``<eos>``: 2.")
    unk_id = property(lambda self: UNK_ID, doc="Id of ``<unk>``: 3.")

    def token_to_id(self, token: str) -> int:
        """The id of ``token``; the id of ``<unk>`` (3) when it is not in the vocabulary."""
        return self._index.get(token, UNK_ID)

    def id_to_token(self, i: int) -> str:
        """The token with id ``i``."""
        whole_number("a token id", i)
        if not 0 <= i < len(self._tokens):
            raise ValueError(
                f"token id {i} is out of range for a vocabulary of {len(self)} tokens (ids 0 to {len(self) - 1}); "
                "were these ids made with another vocabulary (the source's instead of the target's)?"
            )
        return self._tokens[i]

    def encode(self, tokens: Sequence[str], add_bos: bool = False, add_eos: bool = False,
               warn_unknown: bool = True) -> list[int]:
        """Ids of ``tokens``, optionally behind ``<bos>`` and before ``<eos>``.

        A token not in the vocabulary becomes ``<unk>``; with ``warn_unknown``
        one warning names every such word of the call.

        Used in chapter 9 (Training a translator).
        """
        if isinstance(tokens, str):
            raise ValueError(f"encode expects a list of tokens, got the string {tokens!r}; pass tokenize(text)")
        ids = [self._index.get(t, UNK_ID) for t in tokens]
        if warn_unknown:
            unknown = [t for t in dict.fromkeys(tokens) if t not in self._index]
            if unknown:
                warnings.warn(
                    f"{len(unknown)} unknown word{'s' if len(unknown) > 1 else ''} mapped to {UNK}: "
                    f"{', '.join(repr(t) for t in unknown)}. The vocabulary ({len(self)} tokens) was built "
                    "from training data without them (or with fewer than min_freq of them)",
                    stacklevel=2,
                )
        return ([BOS_ID] if add_bos else []) + ids + ([EOS_ID] if add_eos else [])

    def decode(self, ids, strip_special: bool = True) -> list[str]:
        """Tokens of ``ids`` (a list, or a 1-D tensor or array), up to the first ``<eos>``.

        With ``strip_special`` (the default) ``<pad>``, ``<bos>`` and the
        ``<eos>`` are left out (``<unk>`` stays: it stands for a word);
        without, they are kept, the ``<eos>`` included.

        Used in chapter 9 (Training a translator).
        """
        if hasattr(ids, "tolist"):
            ids = ids.tolist()
        out = []
        for i in ids:
            if isinstance(i, list):
                raise ValueError("decode takes the ids of one sentence (1-D); for a batch, decode each row")
            tok = self.id_to_token(i)
            if i == EOS_ID:
                if not strip_special:
                    out.append(tok)
                break
            if strip_special and i in (PAD_ID, BOS_ID):
                continue
            out.append(tok)
        return out

    def to_dict(self) -> dict:
        """``{"tokens": [...]}``, JSON-serialisable, for a checkpoint; ``Vocab.from_dict`` reads it back."""
        return {"tokens": list(self._tokens)}

    @classmethod
    def from_dict(cls, d: dict) -> "Vocab":
        """The vocabulary stored by ``to_dict``."""
        if not isinstance(d, dict) or not isinstance(d.get("tokens"), list):
            got = sorted(d) if isinstance(d, dict) else type(d).__name__
            raise ValueError(f"expected a dict with a list under 'tokens' (from Vocab.to_dict), got {got}")
        return cls(d["tokens"])


# --- batches ------------------------------------------------------------------------------


@dataclass
class Batch:
    """Padded tensors of one batch of sentence pairs, and their masks.

    ::

        src           (B, S)        source ids, padded with <pad> (0); no <bos>/<eos>
        tgt_in        (B, T)        <bos> + target: what the decoder reads
        tgt_out       (B, T)        target + <eos>: what it must predict, one step ahead
        src_key_mask  (B, 1, 1, S)  True on real source tokens (padding_attention_mask)
        tgt_mask      (B, 1, T, T)  causal & padding, True = may attend
        num_tgt_tokens              real (non-pad) tokens of tgt_out, to average the loss over

    Masks follow tutorlib's convention: True means "may attend".

    Used in chapter 9 (Training a translator).
    """

    src: torch.Tensor
    tgt_in: torch.Tensor
    tgt_out: torch.Tensor
    src_key_mask: torch.Tensor
    tgt_mask: torch.Tensor
    num_tgt_tokens: int

    def to(self, device) -> "Batch":
        """The same batch with every tensor on ``device``."""
        return Batch(**{
            f.name: (getattr(self, f.name).to(device) if isinstance(getattr(self, f.name), torch.Tensor)
                     else getattr(self, f.name))
            for f in fields(self)
        })

    def __len__(self) -> int:
        return self.src.shape[0]


def _collate(src_ids: list[list[int]], tgt_ids: list[list[int]]) -> Batch:
    B = len(src_ids)
    S = max(len(s) for s in src_ids)
    T = max(len(t) for t in tgt_ids) + 1
    src = torch.full((B, S), PAD_ID, dtype=torch.long)
    tgt_in = torch.full((B, T), PAD_ID, dtype=torch.long)
    tgt_out = torch.full((B, T), PAD_ID, dtype=torch.long)
    for b, (s, t) in enumerate(zip(src_ids, tgt_ids)):
        src[b, : len(s)] = torch.tensor(s)
        tgt_in[b, : len(t) + 1] = torch.tensor([BOS_ID] + t)  # <bos> + target
        tgt_out[b, : len(t) + 1] = torch.tensor(t + [EOS_ID])  # target + <eos>
    src_lengths = torch.tensor([len(s) for s in src_ids])
    tgt_lengths = torch.tensor([len(t) + 1 for t in tgt_ids])
    # (T, T) & (B, 1, 1, T) -> (B, 1, T, T)
    tgt_mask = causal_attention_mask(T) & padding_attention_mask(tgt_lengths, max_len=T)
    return Batch(
        src=src,
        tgt_in=tgt_in,
        tgt_out=tgt_out,
        src_key_mask=padding_attention_mask(src_lengths, max_len=S),  # (B, 1, 1, S)
        tgt_mask=tgt_mask,
        num_tgt_tokens=int(tgt_lengths.sum()),
    )


def make_batches(pairs, src_vocab: Vocab, tgt_vocab: Vocab, batch_size: int, shuffle: bool = True,
                 seed: int = 0, max_len: int | None = None) -> list[Batch]:
    """Tokenize, encode and pad ``(source, target)`` string pairs into ``Batch`` es.

    The source is encoded as it is (``src_vocab.encode(tokenize(s))``, no
    ``<bos>``/``<eos>``); the target twice, shifted by one for teacher forcing:
    ``tgt_in`` = ``<bos>`` + target and ``tgt_out`` = target + ``<eos>``.

    With ``shuffle`` (for training) the pairs are shuffled with ``seed``,
    grouped with pairs of similar length (less padding), cut into batches and
    the batches shuffled again; the same seed gives the same batches. Without
    (for evaluation) the batches follow the order of ``pairs``. Pairs with more
    than ``max_len`` source tokens, or more than ``max_len - 1`` target tokens,
    are left out with a warning. Unknown words become ``<unk>``, with one
    warning naming them all.

    Used in chapter 9 (Training a translator).
    """
    whole_number("batch_size", batch_size, 1)
    if max_len is not None:
        whole_number("max_len", max_len, 2, hint="<bos> or <eos> and one token need two positions")
    if not isinstance(src_vocab, Vocab) or not isinstance(tgt_vocab, Vocab):
        raise ValueError(
            f"src_vocab and tgt_vocab must be Vocab objects, got {type(src_vocab).__name__} and "
            f"{type(tgt_vocab).__name__}"
        )
    pairs = list(pairs)
    if not pairs:
        raise ValueError("pairs is empty: there is nothing to batch")

    encoded, unknown, too_long = [], {}, []
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(s, str) for s in pair)):
            raise ValueError(f"pairs[{i}] must be a (source, target) pair of strings, got {pair!r}")
        src_tok, tgt_tok = tokenize(pair[0]), tokenize(pair[1])
        if not src_tok or not tgt_tok:
            side = "source" if not src_tok else "target"
            raise ValueError(f"pairs[{i}] has an empty {side} ({pair!r}); every pair needs words on both sides")
        if max_len is not None and (len(src_tok) > max_len or len(tgt_tok) + 1 > max_len):
            too_long.append(i)
            continue
        for tok, vocab in ((src_tok, src_vocab), (tgt_tok, tgt_vocab)):
            for t in tok:
                if t not in vocab:
                    unknown[t] = None
        encoded.append((src_vocab.encode(src_tok, warn_unknown=False), tgt_vocab.encode(tgt_tok, warn_unknown=False)))
    if too_long:
        warnings.warn(
            f"{len(too_long)} of {len(pairs)} pairs left out: longer than max_len={max_len} tokens "
            f"(first: pairs[{too_long[0]}] = {pairs[too_long[0]]!r})",
            stacklevel=2,
        )
    if unknown:
        shown = list(unknown)[:20]
        warnings.warn(
            f"{len(unknown)} unknown word{'s' if len(unknown) > 1 else ''} mapped to {UNK}: "
            f"{', '.join(repr(t) for t in shown)}{' ...' if len(unknown) > 20 else ''}. "
            "The vocabularies were built from other data (or with min_freq above their count)",
            stacklevel=2,
        )
    if not encoded:
        raise ValueError(f"every pair is longer than max_len={max_len}: there is nothing to batch")

    order = list(range(len(encoded)))
    if shuffle:
        rng = random.Random(seed)
        rng.shuffle(order)
        # Sort within pools of 50 batches by length, so a batch holds sentences of similar length.
        pool = 50 * batch_size
        order = [
            i for start in range(0, len(order), pool)
            for i in sorted(order[start:start + pool], key=lambda i: (len(encoded[i][0]), len(encoded[i][1])))
        ]
    chunks = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    if shuffle:
        rng.shuffle(chunks)
    return [_collate([encoded[i][0] for i in c], [encoded[i][1] for i in c]) for c in chunks]


# --- real sentence pairs ------------------------------------------------------------------


def load_tatoeba(path, max_pairs: int | None = None) -> list[tuple[str, str]]:
    """``(english, portuguese)`` pairs from a tab-separated Tatoeba/ManyThings file.

    The format of ``por.txt`` in https://www.manythings.org/anki/por-eng.zip:
    one pair a line, ``English<TAB>Portuguese<TAB>attribution``; the
    attribution and any further columns are ignored, and a file of two columns
    is fine too. Lines may end in LF, CRLF or a lone CR (old Mac files). Blank lines are skipped. A line without a tab, or with an
    empty sentence, is an error naming the file and the line. ``max_pairs``
    stops after that many pairs (the file is ordered from short to long).
    The strings are returned as they are; ``tokenize`` lower-cases them.

    Used in chapter 9 (Training a translator).
    """
    if max_pairs is not None:
        whole_number("max_pairs", max_pairs, 1, hint="None reads all pairs")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"no sentence file at {path!r}. Download por-eng.zip from https://www.manythings.org/anki/ "
            "and unzip it: the pairs are in por.txt (or use phrasebook(), which needs no download)"
        )
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path!r} is a folder; give the path of the .txt file inside it (por.txt)")
    pairs = []
    with open(path, "rb") as f:
        # splitlines, not the file's own lines: old Mac files end lines with a lone CR, which iterating a
        # binary file does not see (every line would merge into one)
        for number, raw in enumerate(f.read().splitlines(), start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(
                    f"{path}, line {number}: not UTF-8 text ({e.reason} at byte {e.start}); "
                    "is this the unzipped por.txt?"
                ) from None
            if number == 1:
                line = line.lstrip("\ufeff")
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            columns = line.split("\t")
            if len(columns) < 2:
                raise ValueError(
                    f"{path}, line {number}: expected English<TAB>Portuguese[<TAB>attribution], "
                    f"found no tab in {line[:80]!r}. Is the file tab-separated (not spaces or commas)?"
                )
            en, pt = columns[0].strip(), columns[1].strip()
            if not en or not pt:
                side = "English (column 1)" if not en else "Portuguese (column 2)"
                raise ValueError(f"{path}, line {number}: the {side} sentence is empty in {line[:80]!r}")
            pairs.append((en, pt))
            if max_pairs is not None and len(pairs) >= max_pairs:
                break
    return pairs
