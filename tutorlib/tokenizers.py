"""Byte-level byte-pair encoding (BPE): text to token ids and back, with no unknown token.

A word vocabulary (chapter 9) has no id for a word it never saw: it writes
``<unk>``, and chapter 10 had to copy names through attention to get them
back. A byte-level BPE starts from the 256 byte values instead, so every text
has an encoding (names, accents, emoji, typos), and learns *merges*: the most
frequent pair of adjacent tokens in the training texts becomes a new token,
again and again, until the vocabulary has the size asked for. Frequent words
end up as one token, rare ones as a few pieces, and nothing is unknown.

How a text becomes tokens, in three steps:

1. **Pre-split** the text into *chunks* (``split_text``): a run of letters, a
   run of digits, or a run of other marks, each with the one space before it,
   and runs of white space; GPT-2's idea, written with Python's ``re``. The
   chunks concatenate back to the text. Merges never cross a chunk, so a
   token never spans two words ("dog." is ``" dog"`` and ``"."``), and the
   vocabulary holds words and pieces of words, not pieces of phrases.
2. **Bytes**: each chunk is encoded as UTF-8; byte ``b`` is token ``b``.
3. **Merges** in the order they were learned: the pair of adjacent tokens with
   the lowest rank (the earliest merge) is replaced by its token, until no
   adjacent pair has a merge. ``decode`` joins the tokens' bytes.

Training (``BPE.train``) counts each distinct chunk once, weighted by how often
it occurs, so a pair is never counted across the boundary of two texts or two
chunks. It keeps the count of every pair and, for each pair, the set of
chunks that contain it; a merge rewrites only those chunks and updates the
counts of the pairs they lose and gain, instead of recounting every pair of
the corpus after each merge. The most frequent pair is chosen with a heap;
**ties are broken by the smallest pair of ids** (``(a, b)`` before ``(a, c)``
when ``b < c``), so the merges depend only on the multiset of texts, not on
their order or on the machine.

The id layout::

    0 ... 255                  the bytes (token b is the byte b)
    256 ... 256 + M - 1        the merges, in the order learned (merge i is token 256 + i)
    256 + M ... vocab_size - 1  the special tokens, in the order given

``vocab_size`` counts all three. The special tokens (by default ``<pad>``,
``<bos>``, ``<eos>`` and ``<sep>``, the separator between an English sentence
and its Portuguese translation for the GPT of chapter 13) are never produced
from text unless ``encode`` is asked to (``allowed_special``): otherwise the
text "<sep>" is five bytes' worth of ordinary tokens.

Derived in chapter 14 (From words to tokens: byte-pair encoding).
"""

from __future__ import annotations

import heapq
import json
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from operator import index
from pathlib import Path

from .checks import whole_number

__all__ = [
    "BPE",
    "split_text",
    "merge_pair",
    "SPLIT_PATTERN",
    "DEFAULT_SPECIALS",
    "FORMAT",
    "FORMAT_VERSION",
]

# --- 1. the pre-split -----------------------------------------------------------------------

# Letters (any alphabet), digits, or other marks, each run with the one space before it; then
# white space. GPT-2's pattern without its English contractions ('s 't 're ...): those would
# split Portuguese words too. `\s+(?!\S)` leaves the last space of a run to the word after it.
# Every character is white space, a letter, a digit, `_` or another mark, so the chunks always
# concatenate back to the text.
SPLIT_PATTERN = r" ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"
_SPLIT = re.compile(SPLIT_PATTERN)

DEFAULT_SPECIALS = ("<pad>", "<bos>", "<eos>", "<sep>")
FORMAT = "tutorlib.tokenizers.BPE"  # the "format" field of a saved file
FORMAT_VERSION = 1


def split_text(text: str) -> list[str]:
    """The chunks BPE works on: ``"I have 3 dogs."`` → ``["I", " have", " 3", " dogs", "."]``.

    ``"".join(split_text(text)) == text`` for every string.

    Derived in chapter 14 (From words to tokens: byte-pair encoding).
    """
    _check_text(text)
    return _SPLIT.findall(text)


def _check_text(text, where: str = "text") -> None:
    if isinstance(text, (bytes, bytearray)):
        raise TypeError(
            f"{where} must be a str, got {type(text).__name__} {bytes(text[:20])!r}: BPE encodes "
            "text itself into UTF-8 bytes; decode the bytes first (data.decode('utf-8'))"
        )
    if not isinstance(text, str):
        raise TypeError(f"{where} must be a str, got {type(text).__name__}: {text!r:.60}")


def _to_bytes(text: str) -> bytes:
    # surrogatepass: a str holding a lone surrogate (from a bad decode) still round-trips
    return text.encode("utf-8", "surrogatepass")


# --- 2. training: merges from pair counts kept up to date ------------------------------------


def _pairs(word: Sequence[int]) -> Counter:
    """How often each adjacent pair occurs in one chunk: (5, 6, 5, 6) → {(5, 6): 2, (6, 5): 1}."""
    return Counter(zip(word, word[1:]))


def merge_pair(word: Sequence[int], pair: tuple[int, int], new_id: int) -> tuple[int, ...]:
    """``word`` with each occurrence of ``pair``, left to right, replaced by ``new_id``.

    ``merge_pair((1, 1, 1), (1, 1), 9) == (9, 1)``: occurrences do not overlap.
    """
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def _learn_merges(chunk_counts: dict[str, int], n_merges: int) -> list[tuple[int, int]]:
    """Up to ``n_merges`` merges of the chunks (each counted ``chunk_counts[chunk]`` times)."""
    words = [tuple(_to_bytes(chunk)) for chunk in chunk_counts]  # each chunk as its tokens
    freqs = list(chunk_counts.values())
    counts: Counter = Counter()  # pair -> occurrences in the corpus (weighted by freqs)
    where: dict[tuple[int, int], set[int]] = {}  # pair -> the chunks (indices) that contain it
    for i, word in enumerate(words):
        for pair, n in _pairs(word).items():
            counts[pair] += n * freqs[i]
            where.setdefault(pair, set()).add(i)
    # A max-heap of (-count, pair): the smallest entry is the most frequent pair, then the
    # smallest pair of ids. A count that changes pushes a new entry; an entry whose count is no
    # longer the pair's count is stale and skipped when it comes up (lazy deletion).
    heap = [(-n, pair) for pair, n in counts.items()]
    heapq.heapify(heap)
    merges: list[tuple[int, int]] = []
    while len(merges) < n_merges and heap:
        neg, pair = heapq.heappop(heap)
        if counts.get(pair, 0) != -neg:
            continue  # stale
        new_id = 256 + len(merges)
        merges.append(pair)
        changed = set()
        for i in sorted(where.pop(pair)):
            old = _pairs(words[i])
            words[i] = merge_pair(words[i], pair, new_id)
            new = _pairs(words[i])
            for p in old.keys() | new.keys():
                delta = (new[p] - old[p]) * freqs[i]
                if delta:
                    counts[p] += delta
                    changed.add(p)
                if p not in new and p != pair:  # the merged pair's entry is gone already
                    where[p].discard(i)
                elif p not in old:
                    where.setdefault(p, set()).add(i)
        for p in changed:
            if counts[p] > 0:
                heapq.heappush(heap, (-counts[p], p))
            else:
                del counts[p]
                where.pop(p, None)
    return merges


# --- 3. the tokenizer ----------------------------------------------------------------------


class BPE:
    """A byte-level BPE tokenizer: ``BPE.train(texts, vocab_size)``, ``encode``, ``decode``.

    >>> bpe = BPE.train(["low lower lowest"] * 10, vocab_size=264)
    >>> bpe
    BPE(vocab_size=264: 256 bytes, 4 merges, special tokens ['<pad>', '<bos>', '<eos>', '<sep>'])
    >>> [bpe.token_bytes(i) for i in bpe.merges[0]], bpe.token_bytes(256 + 3)
    ([b'l', b'o'], b' lowe')
    >>> [bpe.token_bytes(i) for i in bpe.encode("slowest")]
    [b's', b'low', b'e', b's', b't']
    >>> bpe.decode(bpe.encode("slowest")) == "slowest"
    True

    Build one with ``BPE.train`` or ``BPE.load``; ``BPE(merges, special_tokens)``
    rebuilds one from its merges (pairs of ids, merge ``i`` making token
    ``256 + i``). Derived in chapter 14 (From words to tokens: byte-pair encoding).
    """

    _CACHE_SIZE = 100_000  # chunks whose encoding is remembered; the cache is emptied when full

    def __init__(
        self,
        merges: Iterable[Sequence[int]] = (),
        special_tokens: Iterable[str] = DEFAULT_SPECIALS,
    ):
        self._merges: list[tuple[int, int]] = []
        self._bytes: list[bytes] = [bytes([b]) for b in range(256)]  # token id -> its bytes
        for rank, pair in enumerate(merges):
            pair = tuple(pair)
            n = 256 + rank
            if len(pair) != 2 or not all(
                isinstance(t, int) and not isinstance(t, bool) and 0 <= t < n for t in pair
            ):
                raise ValueError(
                    f"merge {rank} must be a pair of token ids below {n} (the 256 bytes and the "
                    f"{rank} merges before it), got {pair!r}"
                )
            self._merges.append(pair)
            self._bytes.append(self._bytes[pair[0]] + self._bytes[pair[1]])
        self._ranks = {pair: rank for rank, pair in enumerate(self._merges)}
        self._specials = _check_specials(special_tokens)
        first = 256 + len(self._merges)
        self._special_ids = {s: first + i for i, s in enumerate(self._specials)}
        self._cache: dict[str, tuple[int, ...]] = {}

    # -- training

    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        vocab_size: int,
        *,
        special_tokens: Iterable[str] = DEFAULT_SPECIALS,
    ) -> BPE:
        """Learn ``vocab_size - 256 - len(special_tokens)`` merges from ``texts``.

        ``texts`` is an iterable of strings (sentences, documents); each is
        pre-split into chunks and no pair is counted across two texts or two
        chunks. The most frequent pair is merged first, ties going to the
        smallest pair of ids, so the result does not depend on the order of
        ``texts``. When the texts run out of pairs (every chunk is one token)
        before ``vocab_size`` is reached, a ``UserWarning`` says so and the
        tokenizer is smaller than asked.
        """
        specials = _check_specials(special_tokens)
        vocab_size = whole_number("vocab_size", vocab_size)
        smallest = 256 + len(specials)
        if vocab_size < smallest:
            raise ValueError(
                f"vocab_size must be at least {smallest} (the 256 byte values, which every "
                f"byte-level vocabulary holds, plus {len(specials)} special tokens "
                f"{list(specials)}), got {vocab_size}"
            )
        if isinstance(texts, (str, bytes, bytearray)):
            raise TypeError(
                f"texts must be an iterable of strings (a list of sentences), got one "
                f"{type(texts).__name__}: {texts!r:.60}; pass [text]"
            )
        try:
            iterator = iter(texts)
        except TypeError:
            raise TypeError(
                f"texts must be an iterable of strings, got {type(texts).__name__}"
            ) from None
        chunk_counts: Counter = Counter()
        for i, text in enumerate(iterator):
            _check_text(text, where=f"texts[{i}]")
            chunk_counts.update(_SPLIT.findall(text))
        wanted = vocab_size - smallest
        merges = _learn_merges(chunk_counts, wanted)
        if len(merges) < wanted:
            warnings.warn(
                f"asked for vocab_size={vocab_size}, but the texts allow only {len(merges)} "
                f"merges of the {wanted} needed (every chunk is already one token): the "
                f"tokenizer has {smallest + len(merges)} tokens. Train on more text or ask "
                "for a smaller vocabulary.",
                UserWarning,
                stacklevel=2,
            )
        return cls(merges, specials)

    # -- what it holds

    @property
    def vocab_size(self) -> int:
        """The number of token ids: 256 bytes + the merges + the special tokens."""
        return 256 + len(self._merges) + len(self._specials)

    @property
    def merges(self) -> list[tuple[int, int]]:
        """The merges in the order learned.

        ``merges[i]`` is the pair that makes token ``256 + i``.
        """
        return list(self._merges)

    @property
    def special_tokens(self) -> tuple[str, ...]:
        return self._specials

    @property
    def special_ids(self) -> dict[str, int]:
        """Each special token's id: ``bpe.special_ids["<sep>"]``."""
        return dict(self._special_ids)

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token, to show it: a merge's bytes may be part of a UTF-8 character."""
        token_id = self._check_id(token_id)
        if token_id < len(self._bytes):
            return self._bytes[token_id]
        return self._specials[token_id - len(self._bytes)].encode("utf-8")

    def __repr__(self) -> str:
        return (
            f"BPE(vocab_size={self.vocab_size}: 256 bytes, {len(self._merges)} merges, "
            f"special tokens {list(self._specials)})"
        )

    # -- encoding and decoding

    def encode(self, text: str, *, allowed_special: Iterable[str] | str = ()) -> list[int]:
        """The token ids of ``text``.

        A special token in the text is encoded as its own id only when it is in
        ``allowed_special`` (or ``allowed_special="all"``); otherwise it is
        ordinary text, so a user's "<eos>" cannot end a sequence.
        """
        _check_text(text)
        allowed = self._allowed(allowed_special)
        if not allowed:
            return self._encode_ordinary(text)
        # the longest first, so that "<sep2>" wins over "<sep>" when both are special
        alternatives = "|".join(map(re.escape, sorted(allowed, key=len, reverse=True)))
        ids: list[int] = []
        for i, part in enumerate(re.split(f"({alternatives})", text)):
            if i % 2:  # a captured special token
                ids.append(self._special_ids[part])
            else:
                ids.extend(self._encode_ordinary(part))
        return ids

    def _encode_ordinary(self, text: str) -> list[int]:
        ids: list[int] = []
        for chunk in _SPLIT.findall(text):
            cached = self._cache.get(chunk)
            if cached is None:
                if len(self._cache) >= self._CACHE_SIZE:
                    self._cache.clear()
                cached = self._cache[chunk] = self._encode_chunk(chunk)
            ids.extend(cached)
        return ids

    def _encode_chunk(self, chunk: str) -> tuple[int, ...]:
        word = tuple(_to_bytes(chunk))
        while len(word) > 1:
            # the pair learned first among those present; merges apply in the order learned
            pair = min(zip(word, word[1:]), key=lambda p: self._ranks.get(p, len(self._ranks)))
            if pair not in self._ranks:
                break
            word = merge_pair(word, pair, 256 + self._ranks[pair])
        return word

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``: their bytes joined and read as UTF-8.

        ``decode(encode(s)) == s`` for every string. A sequence that stops in
        the middle of a character (a prefix of an encoding, or a single token
        of a multi-byte character) decodes with U+FFFD (�) for the partial
        character, as ``bytes.decode(errors="replace")`` does.
        """
        if isinstance(ids, (str, bytes, bytearray)):
            raise TypeError(
                f"ids must be a sequence of token ids (ints), got {type(ids).__name__} {ids!r:.60}"
            )
        data = b"".join(self.token_bytes(i) for i in ids)
        try:
            return data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return data.decode("utf-8", "replace")

    # -- checks

    def _check_id(self, token_id) -> int:
        if isinstance(token_id, bool):
            raise TypeError(f"a token id must be an int, got the bool {token_id}")
        try:
            i = index(token_id)  # ints, NumPy and torch integers
        except TypeError:
            raise TypeError(
                f"a token id must be an int in [0, {self.vocab_size}), got "
                f"{type(token_id).__name__} {token_id!r:.40}"
            ) from None
        if not 0 <= i < self.vocab_size:
            raise ValueError(
                f"token id {i} is out of range: this tokenizer has ids 0 to "
                f"{self.vocab_size - 1} (vocab_size={self.vocab_size}). Were the ids made by "
                "another tokenizer, or by a model with a larger vocabulary?"
            )
        return i

    def _allowed(self, allowed_special) -> set[str]:
        if isinstance(allowed_special, str):
            if allowed_special != "all":
                raise ValueError(
                    f'allowed_special must be "all" or a collection of special tokens, got the '
                    f"string {allowed_special!r}; for one token write ({allowed_special!r},)"
                )
            return set(self._specials)
        allowed = set(allowed_special)
        unknown = allowed - set(self._specials)
        if unknown:
            raise ValueError(
                f"allowed_special holds {sorted(unknown)}, which are not special tokens of this "
                f"tokenizer; its special tokens are {list(self._specials)}"
            )
        return allowed

    # -- saving and loading

    def save(self, path) -> Path:
        """Write the tokenizer as JSON (format, version, split pattern, merges, special tokens)."""
        path = Path(path)
        data = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "split_pattern": SPLIT_PATTERN,
            "merges": [list(p) for p in self._merges],
            "special_tokens": list(self._specials),
        }
        path.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path) -> BPE:
        """Read a tokenizer written by ``save``; a ``ValueError`` says what a wrong file lacks."""
        path = Path(path)
        expected = (
            f"expected a JSON object written by BPE.save, with format {FORMAT!r}, "
            f"version {FORMAT_VERSION}, merges and special_tokens"
        )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path} is not a BPE tokenizer file: {exc}; {expected}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"{path} is not a BPE tokenizer file (format {got!r}); {expected}")
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"{path} is a BPE file of version {data.get('version')!r}, but this tutorlib reads "
                f"version {FORMAT_VERSION}; save it again with the tutorlib that trained it"
            )
        if data.get("split_pattern") != SPLIT_PATTERN:
            raise ValueError(
                f"{path} was trained with the pre-split pattern {data.get('split_pattern')!r}, "
                f"but this tutorlib splits with {SPLIT_PATTERN!r}: its merges would not fit"
            )
        missing = [k for k in ("merges", "special_tokens") if not isinstance(data.get(k), list)]
        if missing:
            raise ValueError(f"{path} has no list {' or '.join(missing)}; {expected}")
        try:
            return cls(data["merges"], data["special_tokens"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path} is corrupt: {exc}") from None


def _check_specials(special_tokens) -> tuple[str, ...]:
    if isinstance(special_tokens, str):
        raise TypeError(
            f"special_tokens must be a collection of strings, got the string "
            f"{special_tokens!r}; for one token write ({special_tokens!r},)"
        )
    specials = tuple(special_tokens)
    for s in specials:
        if not isinstance(s, str) or not s:
            raise TypeError(f"each special token must be a non-empty str, got {s!r}")
    repeated = sorted({s for s in specials if specials.count(s) > 1})
    if repeated:
        raise ValueError(f"special tokens must be distinct, got {repeated} more than once")
    return specials
