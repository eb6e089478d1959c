"""A text into its sentences: the one rule ``translate`` and ``python -m tutorlib translate`` share.

The model was trained on one sentence at a time, so a text of several is
split first and each sentence translated alone. No torch (the command line
imports it before torch).

Derived in chapter 10 (Translating and evaluating).
"""

from __future__ import annotations

import re
import sys
import warnings

__all__ = [
    "split_sentences",
    "split_texts",
    "not_english",
    "as_sentences",
    "tell",
    "TITLE_ABBREVIATIONS",
]

# A title written with a full stop ends no sentence: "Mr. Smith is happy." is one sentence.
TITLE_ABBREVIATIONS = ("mr.", "mrs.", "ms.", "dr.")

# A sentence ends at . ! or ? (a run of them, "?!" or "..."), followed by white space.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# ... or glued to the next word, as typing often leaves it: "i am tired.she is happy." A word
# of two letters or more, the mark, then a letter: "3.5", "e.g." and "U.S." stay whole.
_GLUED_END = re.compile(r"(?<=[^\W\d_]{2}[.!?])(?=[^\W\d_])")


def split_sentences(text: str) -> list[str]:
    """``"I am happy. She is tired!"`` -> ``["I am happy.", "She is tired!"]``: the sentences of a
    text.

    A sentence ends at ``.``, ``!`` or ``?`` followed by white space, except
    after a title ("Mr.", "Mrs.", "Ms.", "Dr."); a line break ends one too.
    A mark glued to the next word ends one as well when a word of two letters
    or more comes before it ("I am tired.She is happy." is two sentences;
    "3.5", "e.g." and "U.S." are not cut), except inside a web or e-mail
    address (a word with ``@``, ``/`` or ``www.``). Blank text gives ``[]``.

    Derived in chapter 10 (Translating and evaluating).
    """
    if not isinstance(text, str):
        raise ValueError(
            f"split_sentences expects a string, got {type(text).__name__}: {text!r:.60}"
        )
    text = " ".join(_unglued(word) for word in text.strip().split(" "))
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if not piece:
            continue
        if sentences and sentences[-1].split()[-1].lower() in TITLE_ABBREVIATIONS:
            sentences[-1] = f"{sentences[-1]} {piece}"  # "Mr." and the name after it stay together
        else:
            sentences.append(piece)
    return sentences


def split_texts(texts: list) -> tuple[list[tuple[int, object]], list[range]]:
    """``(pieces, owners)``: every text cut into its sentences, for a model that translates one
    sentence at a time. ``pieces[k]`` is ``(the text's index, one sentence)``; ``owners[i]``
    the range of ``pieces`` that text ``i`` became (one piece for a text of one sentence, a
    blank one, or a non-string, which the model's own checks then refuse). The translator and
    the GPT both translate the pieces and join each text's translations."""
    pieces, owners = [], []
    for i, text in enumerate(texts):
        split = split_sentences(text) if isinstance(text, str) else []
        owners.append(range(len(pieces), len(pieces) + max(1, len(split))))
        pieces += [(i, piece) for piece in split] if len(split) > 1 else [(i, text)]
    return pieces, owners


def not_english(real: list[str], english, portuguese, vocabulary: str, reader: str) -> str:
    """Why a sentence of the words ``real`` (punctuation left out) is not English to a model, or
    ``""``: none of its words is in ``english``, or more of them are in ``portuguese`` than in
    ``english`` (a few words are both, "a", "no": "a casa é grande" is Portuguese whatever its
    "a" says). ``vocabulary`` says what ``english`` is, ``reader`` who reads: the translator
    and the GPTs refuse with the same rule and the same words."""
    known = [w for w in real if w in english]
    if not known:
        return (
            f"none of its words are {vocabulary} ({', '.join(real[:5])}"
            f"{' ...' if len(real) > 5 else ''}): is it English? The model would only make up words"
        )
    foreign = [w for w in real if w in portuguese]
    if len(foreign) > len(known):
        return (
            f"it looks Portuguese, not English: {len(foreign)} of its {len(real)} words are "
            f"Portuguese words {reader} writes ({', '.join(foreign[:5])}), only "
            f"{len(known)} English ({', '.join(known[:5])}). {reader.capitalize()} reads English"
        )
    return ""


def _unglued(word: str) -> str:
    """``"tired.she"`` -> ``"tired. she"``: a space after each sentence mark glued to a word."""
    if "@" in word or "/" in word or "www." in word.lower():
        return word
    return _GLUED_END.sub(" ", word)


def as_sentences(sentences) -> tuple[list, bool]:
    """``(the sentences as a list, whether one string was given)``: what every ``translate``
    accepts, a string or an iterable of them, checked once for all of them (the translator's
    and the GPT's). None, bytes and what cannot be iterated are a ``ValueError``; the items
    themselves are checked by the model's own rules."""
    if sentences is None:
        raise ValueError("sentences is None: give a string, or a list (any iterable) of strings")
    single = isinstance(sentences, str)
    if single:
        sentences = [sentences]
    if isinstance(sentences, bytes) or not hasattr(sentences, "__iter__"):
        raise ValueError(
            f"sentences must be a string or an iterable of strings, got {type(sentences).__name__}"
        )
    return list(sentences), single


def tell(i: int, source: str, notice: str, on_notice=None) -> None:
    """Say one text's notice the way every ``translate`` says them (the translator's and the
    GPT's): ``on_notice(i, notice)`` when given, else a ``warnings.warn`` naming the text,
    ``"sentence 0 ('The techer writes a poem.'): read 'techer' as 'teacher'"``, at the line
    outside tutorlib's translation package that asked for the translation."""
    if on_notice is not None:
        on_notice(i, notice)
        return
    frame, level = sys._getframe(0), 1  # this frame, then its callers until one outside
    while frame is not None and frame.f_globals.get("__name__", "").startswith(
        "tutorlib.translation"
    ):
        frame, level = frame.f_back, level + 1
    warnings.warn(f"sentence {i} ({source[:40]!r}): {notice}", stacklevel=level)
