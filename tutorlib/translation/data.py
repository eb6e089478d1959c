"""Sentence pairs for the English→Portuguese translator: the code of chapter 9.

``tutorlib.translation.data``, the home of these names (``tutorlib.data`` held them before).

Read it top to bottom:

1. **Tokens.** ``tokenize`` lower-cases a sentence and splits it into words,
   with the final ``.``, ``!`` or ``?`` (and commas) as tokens of their own;
   ``detokenize`` glues them back for display.
2. **The phrasebook.** ``phrasebook(split)`` returns ``(english, portuguese)``
   pairs generated from a small grammar of both languages
   (``tutorlib.translation.phrasebook``, their home): no download, the
   same pairs on every machine, and a test split of held-out combinations
   that measures generalisation.
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

import functools
import os
import random
import sys
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

import torch

from ..checks import whole_number

# The masks are chapter 6's layers: built once in tutorlib.nn, used here downwards (the translation
# stack sits on the course's layers; the layers never import the translation stack).
from ..nn import causal_attention_mask, padding_attention_mask
from .sentences import TITLE_ABBREVIATIONS

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
    "UNK_F",
    "UNK_M",
    "tokenize",
    "detokenize",
    "is_punctuation",
    "Vocab",
    "Batch",
    "make_batches",
    "batch_order",
    "fits",
    "load_tatoeba",
]

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)  # ids 0, 1, 2, 3 in every Vocab
# Their ids, the same in every Vocab: defined here once, imported wherever an id is needed.
PAD_ID, BOS_ID, EOS_ID, UNK_ID = (SPECIALS.index(t) for t in (PAD, BOS, EOS, UNK))
# An unknown first name whose gender the phrasebook's name list knows ("maria": f), in a vocabulary
# built with gendered=True: the last two ids, so that the ids before them are what they were.
UNK_F, UNK_M = "<unk:f>", "<unk:m>"
_GENDERED = {"f": UNK_F, "m": UNK_M}


# --- tokens ---------------------------------------------------------------------------

# Punctuation split off the start or end of a word as a token of its own.
_PUNCT = '.,!?;:"()¿¡'
_NO_SPACE_BEFORE = set(".,!?;:)")
_NO_SPACE_AFTER = set("(¿¡")


_TITLES_WITH_STOP = frozenset(TITLE_ABBREVIATIONS)


def tokenize(text: str, lower: bool = True) -> list[str]:
    """Split ``text`` into lower-case word tokens; punctuation becomes its own token.

    ``"She is tired."`` → ``["she", "is", "tired", "."]``. Words split at
    white space; a ``.``, ``!``, ``?`` or ``,`` (and ``;:"()¿¡``) at the start
    or end of a word is split off, while apostrophes and hyphens inside a word
    stay ("don't" is one token). A run of the same mark is one token of that
    mark ("wait..." → ``["wait", "."]``, "no!!" → ``["no", "!"]``): the
    phrasebook writes each mark once, so "..." is an ellipsis, not three
    sentence ends. Curly apostrophes become straight ones, so "don’t" and
    "don't" are the same token. A title's full stop goes: "Mr." → ``["mr"]``,
    as the phrasebook writes it. Empty text gives ``[]``. With
    ``lower=False`` the tokens keep the text's capital letters (the same
    tokens otherwise), which is how ``translate`` copies a name as it was typed.

    Derived in chapter 9 (Training a translator).
    """
    if not isinstance(text, str):
        raise ValueError(f"tokenize expects a string, got {type(text).__name__}: {text!r}")
    # memoised: training tokenizes the same 46,000 pairs once per epoch and per run
    return list(_tokenize(text, bool(lower)))


@functools.lru_cache(maxsize=1 << 18)
def _tokenize(text: str, lower: bool) -> tuple[str, ...]:
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    tokens: list[str] = []
    for word in text.split():
        if (
            word.lower() in _TITLES_WITH_STOP
        ):  # "Mr." is the title "mr", not "mr" and a sentence end
            word = word[:-1]
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
            # interned: the cache holds each word once, however many sentences use it
            tokens.append(sys.intern(word.lower() if lower else word))
        tokens.extend(reversed(tail))
    return tuple(tokens)


def is_punctuation(token: str) -> bool:
    """True for a token ``tokenize`` split off as punctuation (``.`` ``,`` ``!`` ``?`` ...), not a
    word.

    Derived in chapter 9 (Training a translator).
    """
    return len(token) == 1 and token in _PUNCT


def detokenize(tokens: Sequence[str]) -> str:
    """Join tokens into a sentence for display: ``["ela", "está", "cansada", "."]`` → ``"ela está
    cansada."``.

    No space goes before ``. , ! ? ; : )`` or after ``( ¿ ¡``. For every
    sentence of the phrasebook, ``detokenize(tokenize(s)) == s``.

    Derived in chapter 9 (Training a translator).
    """
    if isinstance(tokens, str):
        raise ValueError(
            f"detokenize expects a list of tokens, got the string {tokens!r}; pass tokenize(text)"
        )
    out = ""
    for tok in tokens:
        if out and tok not in _NO_SPACE_BEFORE and out[-1] not in _NO_SPACE_AFTER:
            out += " "
        out += tok
    return out


# --- the vocabulary -----------------------------------------------------------------------


class Vocab:
    """Numbers for tokens: ``<pad>``, ``<bos>``, ``<eos>``, ``<unk>`` are 0 to 3, then the words.

    Build one from tokenized sentences with ``Vocab.build``; ``encode`` turns
    tokens into ids (an unknown word becomes ``<unk>``, with a warning that
    names it), ``decode`` turns ids back into tokens, and ``to_dict`` /
    ``from_dict`` store it in a checkpoint.

    Derived in chapter 9 (Training a translator).
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
                raise ValueError(
                    f"token {tok!r} appears twice (ids {index[tok]} and {i}); each token needs one "
                    "id"
                )
            index[tok] = i
        self._tokens = tokens
        self._index = index
        # "f" / "m" -> the id of <unk:f> / <unk:m>, when this vocabulary has them
        self._gendered = {g: index[t] for g, t in _GENDERED.items() if t in index}
        self._unknown_ids = frozenset({UNK_ID, *self._gendered.values()})

    @classmethod
    def build(
        cls,
        token_lists: Iterable[Sequence[str]],
        min_freq: int = 1,
        *,
        leave_out: Iterable[str] = (),
        gendered: bool = False,
    ) -> Vocab:
        """The vocabulary of ``token_lists``: the specials, then every token seen ``min_freq`` times
        or more.

        Tokens are ordered by how often they occur (most frequent first; ties
        alphabetically), so the same data always gives the same ids. A token
        of ``leave_out`` is left out however often it comes. With
        ``gendered``, ``<unk:f>`` and ``<unk:m>`` come last: an unknown first
        name of known gender (``phrasebook.world.gender_of``) reads as one of
        them, any other unknown word as ``<unk>``.

        Derived in chapter 9 (Training a translator).
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
        if isinstance(leave_out, str):
            raise ValueError(f"leave_out is a collection of tokens, got the string {leave_out!r}")
        for token in (*SPECIALS, *_GENDERED.values(), *leave_out):
            counts.pop(token, None)
        kept = sorted(
            (t for t, c in counts.items() if c >= min_freq), key=lambda t: (-counts[t], t)
        )
        return cls(list(SPECIALS) + kept + (list(_GENDERED.values()) if gendered else []))

    def __len__(self) -> int:
        return len(self._tokens)

    def __contains__(self, token) -> bool:
        return token in self._index

    def __eq__(self, other) -> bool:
        return isinstance(other, Vocab) and self._tokens == other._tokens

    def __repr__(self) -> str:
        more = ", ..." if len(self) > 8 else ""
        return f"Vocab({len(self)} tokens: {', '.join(self._tokens[:8])}{more})"

    @property
    def tokens(self) -> list[str]:
        """Every token, in id order."""
        return list(self._tokens)

    pad_id = property(lambda self: PAD_ID, doc="Id of ``<pad>``: 0.")
    bos_id = property(lambda self: BOS_ID, doc="Id of ``<bos>``: 1.")
    eos_id = property(lambda self: EOS_ID, doc="Id of ``<eos>``: 2.")
    unk_id = property(lambda self: UNK_ID, doc="Id of ``<unk>``: 3.")

    @property
    def gendered(self) -> bool:
        """Whether an unknown first name of known gender reads as ``<unk:f>`` or ``<unk:m>``."""
        return bool(self._gendered)

    @property
    def unknown_ids(self) -> frozenset[int]:
        """The ids that stand for a word not in the vocabulary: ``<unk>`` (3), and ``<unk:f>`` and
        ``<unk:m>`` in a gendered vocabulary. Chapter 10 copies the source word at each."""
        return self._unknown_ids

    def _unknown(self, token: str) -> int:
        if self._gendered:
            from .phrasebook.world import gender_of  # the phrasebook sits above this module

            return self._gendered.get(gender_of(token), UNK_ID)
        return UNK_ID

    def token_to_id(self, token: str) -> int:
        """The id of ``token``; when it is not in the vocabulary, the id of ``<unk>`` (3), or of
        ``<unk:f>`` / ``<unk:m>`` for a first name of known gender in a gendered vocabulary."""
        i = self._index.get(token)
        return self._unknown(token) if i is None else i

    def id_to_token(self, i: int) -> str:
        """The token with id ``i``."""
        whole_number("a token id", i)
        if not 0 <= i < len(self._tokens):
            raise ValueError(
                f"token id {i} is out of range for a vocabulary of {len(self)} tokens (ids 0 to "
                f"{len(self) - 1}); "
                "were these ids made with another vocabulary (the source's instead of the "
                "target's)?"
            )
        return self._tokens[i]

    def encode(
        self,
        tokens: Sequence[str],
        add_bos: bool = False,
        add_eos: bool = False,
        warn_unknown: bool = True,
    ) -> list[int]:
        """Ids of ``tokens``, optionally behind ``<bos>`` and before ``<eos>``.

        A token not in the vocabulary becomes ``<unk>`` (or ``<unk:f>`` /
        ``<unk:m>``: ``token_to_id``); with ``warn_unknown`` one warning names
        every such word of the call.

        Derived in chapter 9 (Training a translator).
        """
        if isinstance(tokens, str):
            raise ValueError(
                f"encode expects a list of tokens, got the string {tokens!r}; pass tokenize(text)"
            )
        ids = [self.token_to_id(t) for t in tokens]
        if warn_unknown:
            unknown = [t for t in dict.fromkeys(tokens) if t not in self._index]
            if unknown:
                warnings.warn(
                    f"{len(unknown)} unknown word{'s' if len(unknown) > 1 else ''} mapped to "
                    f"{f'{UNK}, {UNK_F} or {UNK_M}' if self._gendered else UNK}: "
                    f"{', '.join(repr(t) for t in unknown)}. The vocabulary ({len(self)} tokens) "
                    "was built "
                    "from training data without them (or with fewer than min_freq of them)",
                    stacklevel=2,
                )
        return ([BOS_ID] if add_bos else []) + ids + ([EOS_ID] if add_eos else [])

    def decode(self, ids, strip_special: bool = True) -> list[str]:
        """Tokens of ``ids`` (a list, or a 1-D tensor or array), up to the first ``<eos>``.

        With ``strip_special`` (the default) ``<pad>``, ``<bos>`` and the
        ``<eos>`` are left out (``<unk>`` stays: it stands for a word);
        without, they are kept, the ``<eos>`` included.

        Derived in chapter 9 (Training a translator).
        """
        if hasattr(ids, "tolist"):
            ids = ids.tolist()
        out = []
        for i in ids:
            if isinstance(i, list):
                raise ValueError(
                    "decode takes the ids of one sentence (1-D); for a batch, decode each row"
                )
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
        """``{"tokens": [...]}``, JSON-serialisable, for a checkpoint; ``Vocab.from_dict`` reads it
        back."""
        return {"tokens": list(self._tokens)}

    @classmethod
    def from_dict(cls, d: dict) -> Vocab:
        """The vocabulary stored by ``to_dict``."""
        if not isinstance(d, dict) or not isinstance(d.get("tokens"), list):
            got = sorted(d) if isinstance(d, dict) else type(d).__name__
            raise ValueError(
                f"expected a dict with a list under 'tokens' (from Vocab.to_dict), got {got}"
            )
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

    Derived in chapter 9 (Training a translator).
    """

    src: torch.Tensor
    tgt_in: torch.Tensor
    tgt_out: torch.Tensor
    src_key_mask: torch.Tensor
    tgt_mask: torch.Tensor
    num_tgt_tokens: int

    def to(self, device) -> Batch:
        """The same batch with every tensor on ``device``."""
        return Batch(
            **{
                f.name: (
                    getattr(self, f.name).to(device)
                    if isinstance(getattr(self, f.name), torch.Tensor)
                    else getattr(self, f.name)
                )
                for f in fields(self)
            }
        )

    def __len__(self) -> int:
        return self.src.shape[0]


def _collate(src_ids: list[list[int]], tgt_ids: list[list[int]]) -> Batch:
    S = max(len(s) for s in src_ids)
    T = max(len(t) for t in tgt_ids) + 1
    # each row padded in Python, then one tensor per field (a tensor per row costs more
    # than the model's step on a small batch)
    src = torch.tensor([s + [PAD_ID] * (S - len(s)) for s in src_ids])
    # <bos> + target, and target + <eos>: the same words shifted by one
    tgt_in = torch.tensor([[BOS_ID] + t + [PAD_ID] * (T - 1 - len(t)) for t in tgt_ids])
    tgt_out = torch.tensor([t + [EOS_ID] + [PAD_ID] * (T - 1 - len(t)) for t in tgt_ids])
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


def fits(src_tokens: Sequence[str], tgt_tokens: Sequence[str], max_len: int) -> bool:
    """Whether a pair fits a model of ``max_len`` positions: the source in ``max_len``, the target
    with its ``<bos>`` (or ``<eos>``) too. ``make_batches``, ``train`` and ``evaluate`` leave out
    the pairs that do not.

    Derived in chapter 9 (Training a translator).
    """
    return len(src_tokens) <= max_len and len(tgt_tokens) + 1 <= max_len


def batch_order(lengths, batch_size: int, shuffle: bool = True, seed: int = 0) -> list[list[int]]:
    """Which items go in which batch: lists of indices into ``lengths`` (one ``(S, T)`` per item).

    Without ``shuffle`` the items keep their order. With it they are shuffled
    with ``seed``, sorted by length within pools of 50 batches (so a batch
    holds items of similar length: less padding), cut into batches, and the
    batches shuffled again; the same seed gives the same batches. What
    ``make_batches`` does with the translator's pairs and
    ``tutorlib.translation.gpt.make_gpt_batches`` (chapter 14) with a GPT's sequences.

    Derived in chapter 9 (Training a translator).
    """
    order = list(range(len(lengths)))
    if shuffle:
        rng = random.Random(seed)
        rng.shuffle(order)
        pool = 50 * batch_size
        order = [
            i
            for start in range(0, len(order), pool)
            for i in sorted(order[start : start + pool], key=lambda i: lengths[i])
        ]
    chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    if shuffle:
        rng.shuffle(chunks)
    return chunks


def _check_pair(i: int, pair) -> None:
    """A ``ValueError`` naming ``pairs[i]`` unless it is a ``(source, target)`` pair of strings."""
    if not (
        isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(s, str) for s in pair)
    ):
        raise ValueError(f"pairs[{i}] must be a (source, target) pair of strings, got {pair!r}")


def make_batches(
    pairs,
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    batch_size: int,
    shuffle: bool = True,
    seed: int = 0,
    max_len: int | None = None,
) -> list[Batch]:
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

    Derived in chapter 9 (Training a translator).
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
        _check_pair(i, pair)
        src_tok, tgt_tok = tokenize(pair[0]), tokenize(pair[1])
        if not src_tok or not tgt_tok:
            side = "source" if not src_tok else "target"
            raise ValueError(
                f"pairs[{i}] has an empty {side} ({pair!r}); every pair needs words on both sides"
            )
        if max_len is not None and not fits(src_tok, tgt_tok, max_len):
            too_long.append(i)
            continue
        for tok, vocab in ((src_tok, src_vocab), (tgt_tok, tgt_vocab)):
            for t in tok:
                if t not in vocab:
                    unknown[t] = None
        encoded.append(
            (
                src_vocab.encode(src_tok, warn_unknown=False),
                tgt_vocab.encode(tgt_tok, warn_unknown=False),
            )
        )
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

    lengths = [(len(s), len(t)) for s, t in encoded]
    chunks = batch_order(lengths, batch_size, shuffle, seed)
    return [_collate([encoded[i][0] for i in c], [encoded[i][1] for i in c]) for c in chunks]


# --- real sentence pairs ------------------------------------------------------------------


def load_tatoeba(path, max_pairs: int | None = None) -> list[tuple[str, str]]:
    """``(english, portuguese)`` pairs from a tab-separated Tatoeba/ManyThings file.

    The format of ``por.txt`` in https://www.manythings.org/anki/por-eng.zip: one pair a line,
    ``English<TAB>Portuguese<TAB>attribution``; the attribution and any further columns are ignored,
    and a file of two columns is fine too. Lines may end in LF, CRLF or a lone CR (old Mac files).
    Blank lines are skipped. A line without a tab, or with an empty sentence, is an error naming the
    file and the line. ``max_pairs`` stops after that many pairs (the file is ordered from short to
    long). The strings are returned as they are; ``tokenize`` lower-cases them.

    Derived in chapter 9 (Training a translator).
    """
    if max_pairs is not None:
        whole_number("max_pairs", max_pairs, 1, hint="None reads all pairs")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"no sentence file at {path!r}. Download por-eng.zip from "
            "https://www.manythings.org/anki/ "
            "and unzip it: the pairs are in por.txt (or use phrasebook(), which needs no download)"
        )
    if os.path.isdir(path):
        raise IsADirectoryError(
            f"{path!r} is a folder; give the path of the .txt file inside it (por.txt)"
        )
    pairs = []
    with open(path, "rb") as f:
        # splitlines, not the file's own lines: old Mac files end lines with a lone CR, which
        # iterating a
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
                    f"found no tab in {line[:80]!r}. Is the file tab-separated (not spaces or "
                    "commas)?"
                )
            en, pt = columns[0].strip(), columns[1].strip()
            if not en or not pt:
                side = "English (column 1)" if not en else "Portuguese (column 2)"
                raise ValueError(
                    f"{path}, line {number}: the {side} sentence is empty in {line[:80]!r}"
                )
            pairs.append((en, pt))
            if max_pairs is not None and len(pairs) >= max_pairs:
                break
    return pairs
