"""The phrasebook: English→Portuguese sentence pairs from a small grammar of both languages.

``phrasebook(split)`` returns ``(english, portuguese)`` pairs: no download,
the same pairs on every machine and every Python, no torch. The grammar is
built to need attention:

- reordering: the adjective follows the noun ("the red car" → "o carro vermelho");
- agreement: articles, numbers, possessives and adjectives take the noun's (or
  the subject's) gender and number ("two houses" → "duas casas", "she is
  tired" → "ela está cansada", and "criança" is feminine whoever the child is);
- many-to-one and one-to-many: eu and nós are dropped ("I am happy" → "sou
  feliz"), do-support and "will" have no Portuguese word of their own ("he
  does not eat" → "ele não come", "she will eat" → "ela vai comer"), "I am
  hungry" → "estou com fome", and prepositions contract with the article
  ("I like the cat" → "gosto do gato", "the cat is in the box" → "o gato está
  na caixa");
- ser or estar, chosen by the adjective ("é feliz" but "está cansado"), and in
  the past the imperfect ("era feliz", "estava cansado");
- copying: names and numbers are written in the translation as they are
  ("maria sees the dog" → "maria vê o cachorro", "I have 3 dogs" → "tenho 3
  cachorros"). Each name and each number is used once in the whole
  phrasebook, so a vocabulary of the words seen twice or more has none of
  them: the model learns to write ``<unk>`` where the source has one, and
  decoding copies the word that cross-attention points at (chapter 10).

The test split holds out adjective–noun and verb–object combinations that
never occur in training, so it measures generalisation, not recall.

A sentence is a *spec*, a named tuple (``Sentence``, ``Compound``, ``Phrase``
and the noun phrases ``NP``, ``Pron``, ``Name``); ``render(spec)`` writes it in
both languages, and that is all the grammar there is.

Six files, one idea each: ``lexicon`` (the word tables), ``grammar`` (specs,
agreement, conjugation, ``render``), ``drawing`` (the seeded generator and the
clauses it draws), ``splits`` (the seeded splits, the held-out combinations),
``world`` (the same sentences
with real names and numbers, ``phrasebook(split, names="real")``) and
``relations`` (a relation before a name, "my friend ana" -> "minha amiga ana",
``phrasebook(split, relations=True)``). The names below are re-exported
here: this package is their public home.

Derived in chapter 9 (Training a translator).
"""

from .grammar import NP, Compound, Name, Phrase, Pron, Sentence, english_words, render
from .splits import SPLIT_SIZES, held_out, phrasebook

__all__ = [
    "phrasebook",
    "held_out",
    "SPLIT_SIZES",
    "english_words",
    "render",
    "NP",
    "Pron",
    "Name",
    "Sentence",
    "Compound",
    "Phrase",
]
