"""The GPT's tokens (chapters 13 and 14): what it needs of a tokenizer, words or byte-level BPE.

``Tokenizer`` is the interface; ``WordTokenizer`` wraps chapter 9's word
``Vocab``, ``SubwordTokenizer`` chapter 14's byte-level BPE (nothing unknown).
``joint_vocab`` builds the one word vocabulary of both languages; ``splitter``
says how a text is cut into the tokens a length check counts. Below the model:
the model reads ids only.

Derived in chapters 13 (The translator as a GPT) and 14 (From words to tokens: byte-pair encoding).
"""

from __future__ import annotations

from typing import Protocol

from ...tokenizers import BPE
from ..data import (
    BOS_ID,
    EOS_ID,
    PAD_ID,
    SPECIALS,
    UNK_ID,
    Vocab,
    detokenize,
    tokenize,
)
from ..phrasebook.splits import copied_words_of

__all__ = ["Tokenizer", "WordTokenizer", "SubwordTokenizer", "joint_vocab", "splitter"]


class Tokenizer(Protocol):
    """What the GPT needs of a tokenizer: text to ids and back, and three special ids.

    ``WordTokenizer`` (chapter 9's word ``Vocab``) satisfies it; a subword
    tokenizer (chapter 14's BPE) does too. The model reads ids only.
    """

    pad_id: int  # fills a batch's rows after their end; never read by a real position
    sep_id: int  # between the source and the target: "now the translation"
    eos_id: int  # ends the target

    def __len__(self) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids) -> str: ...


class WordTokenizer:
    """Chapter 9's word ``Vocab`` as a ``Tokenizer``: ``tokenize`` then ``Vocab.encode``, and back.

    ``<bos>`` serves as ``<sep>``: in the translator it already means "the
    Portuguese starts here". ``pieces(text)`` gives the tokens as typed
    (capital letters kept), one per id, for copying unknown words.

    Derived in chapter 13 (The translator as a GPT).
    """

    pad_id, sep_id, eos_id, unk_id = PAD_ID, BOS_ID, EOS_ID, UNK_ID

    def __init__(self, vocab: Vocab):
        if not isinstance(vocab, Vocab):
            raise ValueError(f"WordTokenizer wraps a Vocab, got {type(vocab).__name__}")
        self.vocab = vocab

    def __len__(self) -> int:
        return len(self.vocab)

    def pieces(self, text: str) -> list[str]:
        return tokenize(text, lower=False)

    def encode(self, text: str) -> list[int]:
        return self.vocab.encode(tokenize(text), warn_unknown=False)

    def decode(self, ids) -> str:
        return detokenize(self.vocab.decode(ids))


class SubwordTokenizer:
    """Chapter 14's byte-level BPE as a ``Tokenizer``: any text to ids and back, nothing unknown.

    It holds a ``tutorlib.tokenizers.BPE`` whose special tokens are
    ``<pad>``, ``<sep>`` and ``<eos>`` (ids after the bytes and the merges).
    ``encode`` is the BPE's (a ``"<sep>"`` typed in a text stays text), so
    ``decode(encode(s)) == s`` for every string; ``decode`` leaves the
    special tokens out. ``normalize`` writes a learner's sentence as the
    phrasebook does (lower case, one space between words, marks attached)
    before a model trained on the phrasebook reads it. ``to_dict`` /
    ``from_dict`` store it in a checkpoint, as ``Vocab``'s do.

    Derived in chapter 14 (From words to tokens: byte-pair encoding).
    """

    SPECIALS = ("<pad>", "<sep>", "<eos>")

    def __init__(self, bpe: BPE):
        if not isinstance(bpe, BPE):
            raise ValueError(
                f"SubwordTokenizer wraps a tutorlib.tokenizers.BPE, got {type(bpe).__name__}; "
                "train one with SubwordTokenizer.train(texts, vocab_size)"
            )
        if bpe.special_tokens != self.SPECIALS:
            raise ValueError(
                f"the GPT's BPE needs the special tokens {list(self.SPECIALS)}, got "
                f"{list(bpe.special_tokens)}: train it with "
                "special_tokens=SubwordTokenizer.SPECIALS"
            )
        self.bpe = bpe
        ids = bpe.special_ids
        self.pad_id, self.sep_id, self.eos_id = (ids[t] for t in self.SPECIALS)

    @classmethod
    def train(cls, texts, vocab_size: int) -> SubwordTokenizer:
        """A BPE of ``vocab_size`` tokens (the 256 bytes, the merges, 3 specials) learned from
        ``texts``."""
        return cls(BPE.train(texts, vocab_size, special_tokens=cls.SPECIALS))

    def __len__(self) -> int:
        return self.bpe.vocab_size

    def __eq__(self, other) -> bool:
        return isinstance(other, SubwordTokenizer) and self.bpe.merges == other.bpe.merges

    def __repr__(self) -> str:
        return f"SubwordTokenizer({self.bpe!r})"

    @staticmethod
    def normalize(text: str) -> str:
        """``"Suvotu caught  seven keys ."`` -> ``"suvotu caught seven keys."``: the phrasebook's
        spelling."""
        return detokenize(tokenize(text))

    def encode(self, text: str) -> list[int]:
        return self.bpe.encode(text)

    def decode(self, ids) -> str:
        ids = [int(i) for i in ids]
        return self.bpe.decode([i for i in ids if i < self.pad_id])  # specials come last

    def to_dict(self) -> dict:
        """``{"type": "bpe", "merges": [...], "special_tokens": [...]}``, for a checkpoint."""
        return {
            "type": "bpe",
            "merges": [list(m) for m in self.bpe.merges],
            "special_tokens": list(self.SPECIALS),
        }

    @classmethod
    def from_dict(cls, d: dict) -> SubwordTokenizer:
        if not isinstance(d, dict) or d.get("type") != "bpe" or "merges" not in d:
            got = sorted(d) if isinstance(d, dict) else type(d).__name__
            raise ValueError(
                "expected a dict with type 'bpe' and its merges (SubwordTokenizer.to_dict), got "
                f"{got}"
            )
        return cls(BPE(d["merges"], d.get("special_tokens", cls.SPECIALS)))


def joint_vocab(pairs, min_freq: int = 2, *, gendered: bool = False) -> Vocab:
    """One vocabulary of both languages: the English words and the Portuguese words, each counted in
    its language.

    Counting the two languages together would keep every name (seen once
    in the English and once in the Portuguese of its pair: twice); each
    language alone leaves it out, as the translator's vocabularies do
    (``build_vocabs``), so that unseen names are ``<unk>`` in both models.
    ``gendered`` is ``build_vocabs``'s: real names' words and numbers left out,
    ``<unk:f>`` and ``<unk:m>`` added.

    Derived in chapter 13 (The translator as a GPT).
    """
    pairs = list(pairs)
    english, portuguese = [tokenize(e) for e, _ in pairs], [tokenize(p) for _, p in pairs]
    en_out, pt_out = copied_words_of(english, portuguese) if gendered else (set(), set())
    english = Vocab.build(english, min_freq=min_freq, leave_out=en_out)
    portuguese = Vocab.build(portuguese, min_freq=min_freq, leave_out=pt_out)
    n = len(SPECIALS)
    # a word of both languages ("a", ".") counts twice and comes first; then by frequency rank
    return Vocab.build([english.tokens[n:], portuguese.tokens[n:]], gendered=gendered)


def splitter(vocab):
    """How a pair's texts are cut into the tokens ``fits_gpt`` counts: chapter 9's words
    (``tokenize``) for a ``Vocab``, the BPE's ids for a ``SubwordTokenizer``.

    Derived in chapter 14 (From words to tokens: byte-pair encoding).
    """
    return vocab.encode if isinstance(vocab, SubwordTokenizer) else tokenize
