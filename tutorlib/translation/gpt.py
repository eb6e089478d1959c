"""The translator as a GPT (chapter 13): one stack of causal self-attention reads English and writes Portuguese.

Chapter 9's translator has two stacks: an encoder reads the English, a
decoder writes the Portuguese and reads the encoder through cross-attention.
A decoder-only model ("GPT") has one stack and one sequence per pair::

    [English tokens] <sep> [Portuguese tokens] <eos>

Each block is chapter 8's decoder layer without its cross-attention, which
is chapter 8's encoder layer given chapter 6's causal mask; the heads are
chapter 5's ``MultiHeadAttention``. The Portuguese positions read the
English ones inside the same self-attention (``cross_attention_pattern``
draws that block of the weights). The loss is taken on the Portuguese
tokens and ``<eos>`` only: the prompt is given, not predicted
(``gpt_loss``; ``gpt_loss_with_prompt`` shows what goes wrong without it).

The tokens are chapter 9's words (``WordTokenizer``) or chapter 14's
byte-level BPE (``SubwordTokenizer``, ``GPTConfig.bpe_vocab_size``), which
has no unknown word: the shipped GPT (``load_pretrained()``) reads BPE and
spells names out; chapter 13's comparison uses ``load_pretrained("words")``.

Read top to bottom: the tokenizer interface and the sequence layout; the
model (``GPT``, ``Block``, the position step in ``GPT.add_positions``); the
loss; decoding with a KV cache (greedy, and chapter 10's sampling); translating
sentences with the translator's guards; training through the translator's
loop (``train_gpt``); checkpoints (the translator's files, ``kind="gpt"``).

Shape letters (the book's notation page): ``B`` batch, ``S`` source length,
``T`` target length, ``L`` the whole sequence's length, ``D`` = ``d_model``,
``H`` heads, ``Dh = D // H``, ``V`` the vocabulary size (one for both
languages). Masks are boolean, True = may attend, as everywhere in tutorlib.

``tutorlib.gpt`` re-exports every name.
"""

from __future__ import annotations

import functools
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Protocol

import torch
import torch.nn.functional as F
from torch import nn

from ..checks import finite_number, whole_number
from ..nn import EncoderLayer, PositionalEncoding, causal_attention_mask
from ..tokenizers import BPE
from .checkpoints import CheckpointError, load_checkpoint, read_checkpoint, save_model
from .config import GPT_PRESETS, PRETRAINED_GPT_PATH, PRETRAINED_GPT_WORDS_PATH, GPTConfig
from .data import (
    BOS_ID,
    EOS_ID,
    PAD_ID,
    SPECIALS,
    UNK_ID,
    Batch,
    Vocab,
    _check_pair,
    batch_order,
    detokenize,
    is_punctuation,
    make_batches,
    tokenize,
)
from .decoding import MAX_RUN, NO_REPEAT_NGRAM, KVCache, _check_guard, _guard, output_budget

__all__ = [
    "GPTConfig",
    "GPT_PRESETS",
    "PRETRAINED_GPT_PATH",
    "PRETRAINED_GPT_WORDS_PATH",
    "Tokenizer",
    "WordTokenizer",
    "SubwordTokenizer",
    "joint_vocab",
    "gpt_sequence",
    "GPTBatch",
    "make_gpt_batch",
    "gpt_batch_from",
    "make_gpt_batches",
    "Block",
    "GPT",
    "gpt_loss",
    "gpt_loss_with_prompt",
    "filter_logits",
    "generate",
    "kv_cache_bytes",
    "cross_attention_pattern",
    "translate",
    "build_gpt",
    "fits_gpt",
    "splitter",
    "train_gpt",
    "save_gpt",
    "load_gpt",
    "load_pretrained",
]


# --- tokens in, tokens out -------------------------------------------------------------------


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

    Derived in chapter 13 (the translator as a GPT).
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

    Derived in chapter 14 (from words to tokens: byte-pair encoding).
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
                f"{list(bpe.special_tokens)}: train it with special_tokens=SubwordTokenizer.SPECIALS"
            )
        self.bpe = bpe
        ids = bpe.special_ids
        self.pad_id, self.sep_id, self.eos_id = (ids[t] for t in self.SPECIALS)

    @classmethod
    def train(cls, texts, vocab_size: int) -> SubwordTokenizer:
        """A BPE of ``vocab_size`` tokens (the 256 bytes, the merges, 3 specials) learned from ``texts``."""
        return cls(BPE.train(texts, vocab_size, special_tokens=cls.SPECIALS))

    def __len__(self) -> int:
        return self.bpe.vocab_size

    def __eq__(self, other) -> bool:
        return isinstance(other, SubwordTokenizer) and self.bpe.merges == other.bpe.merges

    def __repr__(self) -> str:
        return f"SubwordTokenizer({self.bpe!r})"

    @staticmethod
    def normalize(text: str) -> str:
        """``"Suvotu caught  seven keys ."`` -> ``"suvotu caught seven keys."``: the phrasebook's spelling."""
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
                f"expected a dict with type 'bpe' and its merges (SubwordTokenizer.to_dict), got {got}"
            )
        return cls(BPE(d["merges"], d.get("special_tokens", cls.SPECIALS)))


def joint_vocab(pairs, min_freq: int = 2) -> Vocab:
    """One vocabulary of both languages: the English words and the Portuguese words, each counted in its language.

    Counting the two languages together would keep every name (seen once
    in the English and once in the Portuguese of its pair: twice); each
    language alone leaves it out, as the translator's vocabularies do
    (``build_vocabs``), so that unseen names are ``<unk>`` in both models.

    Derived in chapter 13 (the translator as a GPT).
    """
    pairs = list(pairs)
    english = Vocab.build([tokenize(e) for e, _ in pairs], min_freq=min_freq)
    portuguese = Vocab.build([tokenize(p) for _, p in pairs], min_freq=min_freq)
    n = len(SPECIALS)
    # a word of both languages ("a", ".") counts twice and comes first; then by frequency rank
    return Vocab.build([english.tokens[n:], portuguese.tokens[n:]])


# --- the sequence layout -----------------------------------------------------------------------


def gpt_sequence(
    src_ids: Sequence[int], tgt_ids: Sequence[int], sep_id: int, eos_id: int
) -> list[int]:
    """``[src] <sep> [tgt] <eos>``: one training sequence of the decoder-only translator.

    Derived in chapter 13 (the translator as a GPT).
    """
    return [*src_ids, sep_id, *tgt_ids, eos_id]


@dataclass
class GPTBatch:
    """Padded sequences of one batch, shifted by one for next-token prediction, and the loss mask.

    ::

        tokens      (B, L)  what the model reads: [src] <sep> [tgt], padded
        targets     (B, L)  the token after each position: [src][1:] <sep> [tgt] <eos>, padded
        loss_mask   (B, L)  True where targets is a target token or <eos>: the positions from
                            <sep> on, up to the last real one. False on the prompt and padding
        real_mask   (B, L)  True on every real position (prompt and target), False on padding
        src_lengths (B,)    S of each row: the prompt is positions 0 .. S (its <sep> included)
        num_tgt_tokens      the loss mask's True count (target tokens + <eos>)

    Derived in chapter 13 (the translator as a GPT).
    """

    tokens: torch.Tensor
    targets: torch.Tensor
    loss_mask: torch.Tensor
    real_mask: torch.Tensor
    src_lengths: torch.Tensor
    num_tgt_tokens: int

    def to(self, device) -> GPTBatch:
        return GPTBatch(
            **{
                f.name: getattr(self, f.name).to(device)
                if isinstance(getattr(self, f.name), torch.Tensor)
                else getattr(self, f.name)
                for f in fields(self)
            }
        )

    def __len__(self) -> int:
        return self.tokens.shape[0]


def make_gpt_batch(src_rows, tgt_rows, pad_id: int, sep_id: int, eos_id: int) -> GPTBatch:
    """A ``GPTBatch`` from lists of source ids and target ids (without ``<sep>`` or ``<eos>``).

    Derived in chapter 13 (the translator as a GPT).
    """
    seqs = [gpt_sequence(s, t, sep_id, eos_id) for s, t in zip(src_rows, tgt_rows)]
    if not seqs:
        raise ValueError("make_gpt_batch got no rows")
    L = max(len(q) for q in seqs) - 1
    B = len(seqs)
    tokens = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros(B, L, dtype=torch.bool)
    real_mask = torch.zeros(B, L, dtype=torch.bool)
    for b, (q, s) in enumerate(zip(seqs, src_rows)):
        n = len(q) - 1  # positions read; the last token (<eos>) is only predicted
        tokens[b, :n] = torch.tensor(q[:-1])
        targets[b, :n] = torch.tensor(q[1:])
        loss_mask[b, len(s) : n] = True  # from <sep> (which predicts the first target token) on
        real_mask[b, :n] = True
    return GPTBatch(
        tokens,
        targets,
        loss_mask,
        real_mask,
        torch.tensor([len(s) for s in src_rows]),
        int(loss_mask.sum()),
    )


def gpt_batch_from(batch: Batch, sep_id: int = BOS_ID, eos_id: int = EOS_ID) -> GPTBatch:
    """The ``GPTBatch`` of a translator's ``Batch`` (``make_batches``): the same pairs, as one sequence each.

    What ``gpt_loss`` does to the batches of the translator's training loop,
    so that both models train on the very same batches. Built with tensor
    operations on the batch's device, no Python loop over the rows; the same
    tensors as ``make_gpt_batch`` of the pairs' ids.

    Derived in chapter 13 (the translator as a GPT).
    """
    src, tgt_out = batch.src, batch.tgt_out  # (B, S) source; (B, T) target + <eos>, padded
    B, S = src.shape
    T = tgt_out.shape[1]
    s_len = batch.src_key_mask.reshape(B, S).sum(dim=1)  # (B,) real source tokens
    t_len = (tgt_out != PAD_ID).sum(dim=1)  # (B,) target tokens + <eos>
    N = int((s_len + 1 + t_len).max())  # the longest sequence, <sep> and <eos> included
    p = torch.arange(N, device=src.device)[None, :]  # (1, N) positions
    s_, t_ = s_len[:, None], t_len[:, None]  # (B, 1)
    # (B, N): the source at p < S_b, <sep> at S_b, the target and <eos> after it, padding beyond
    from_src = src.gather(1, p.clamp(max=S - 1).expand(B, N))
    from_tgt = tgt_out.gather(1, (p - s_ - 1).clamp(0, T - 1))
    seq = torch.where(p < s_, from_src, torch.where(p == s_, sep_id, from_tgt))
    seq = seq.masked_fill(p > s_ + t_, PAD_ID)
    if eos_id != EOS_ID:  # another tokenizer's <eos>: put it where the Vocab's stands
        seq = seq.masked_fill((p == s_ + t_) & (seq == EOS_ID), eos_id)
    q = p[:, :-1]  # (1, L) positions read, L = N - 1
    real = q < s_ + t_  # (B, L): <eos> is predicted, never read
    loss_mask = real & (q >= s_)  # (B, L): from <sep> to the position that predicts <eos>
    return GPTBatch(
        seq[:, :-1].masked_fill(~real, PAD_ID),
        seq[:, 1:],
        loss_mask,
        real,
        s_len,
        int(loss_mask.sum()),
    )


def make_gpt_batches(
    pairs,
    tokenizer: Tokenizer,
    batch_size: int,
    shuffle: bool = True,
    seed: int = 0,
    max_len: int | None = None,
) -> list[GPTBatch]:
    """``(source, target)`` string pairs as ``GPTBatch`` es of ``tokenizer``'s ids.

    Each text is encoded whole by the tokenizer (chapter 14's BPE reads the
    sentence as it is written); the pairs are grouped by length and shuffled
    as the translator's (``batch_order``: the same seed, the same batches).
    A pair whose source, ``<sep>`` and target do not fit ``max_len`` positions
    is left out with a warning. ``train``'s ``batcher`` for a GPT on BPE
    tokens (``train_gpt`` passes it).

    Derived in chapter 14 (from words to tokens: byte-pair encoding).
    """
    whole_number("batch_size", batch_size, 1)
    encoded, too_long = [], 0
    for i, pair in enumerate(pairs):
        _check_pair(i, pair)  # the translator's rule for a pair
        src, tgt = tokenizer.encode(pair[0]), tokenizer.encode(pair[1])
        if not src or not tgt:
            raise ValueError(f"pairs[{i}] has an empty side ({pair!r:.80}); both need text")
        if max_len is not None and len(src) + 1 + len(tgt) > max_len:
            too_long += 1
            continue
        encoded.append((src, tgt))
    if too_long:
        warnings.warn(
            f"{too_long} pairs left out: their source, <sep> and target are more than max_len={max_len} tokens",
            stacklevel=2,
        )
    if not encoded:
        raise ValueError("no pair to batch (none given, or none fits max_len)")
    chunks = batch_order([(len(s), len(t)) for s, t in encoded], batch_size, shuffle, seed)
    return [
        make_gpt_batch(
            [encoded[i][0] for i in c],
            [encoded[i][1] for i in c],
            tokenizer.pad_id,
            tokenizer.sep_id,
            tokenizer.eos_id,
        )
        for c in chunks
    ]


# --- the model ------------------------------------------------------------------------------------


class Block(EncoderLayer):
    """One GPT block: masked self-attention, then feed-forward, each with a residual and a LayerNorm.

    Chapter 8's decoder layer without its cross-attention has exactly the
    sublayers, residuals and norms of chapter 8's encoder layer, so it *is*
    ``tutorlib.nn.EncoderLayer``; what makes it a decoder is the causal mask
    ``GPT.forward`` gives it. ``forward_step`` adds the KV cache (chapter 10's
    ``DecoderLayer.forward_step`` without the cross-attention): ``cache`` is a
    dict whose ``"self_attn"`` holds the keys and values of the positions
    before, ``(B, H, t, Dh)``; ``mask`` is None for one new position, else
    ``(T_new, t + T_new)``.

    Derived in chapter 13 (the translator as a GPT).
    """

    def forward_step(self, x: torch.Tensor, cache: dict, mask=None) -> torch.Tensor:
        attn_cache = cache.setdefault("self_attn", {})
        if self.norm_first:
            x = x + self.dropout1(self.self_attn.forward_step(self.norm1(x), attn_cache, mask=mask))
            x = x + self.dropout2(self.feed_forward(self.norm2(x)))
        else:
            x = self.norm1(x + self.dropout1(self.self_attn.forward_step(x, attn_cache, mask=mask)))
            x = self.norm2(x + self.dropout2(self.feed_forward(x)))
        return x


class GPT(nn.Module):
    """The decoder-only translator: embeddings and positions, ``num_layers`` causal ``Block`` s, a norm, logits.

    ::

        tokens (B, L) -> embed * sqrt(D) + positions -> Block x N (causal) -> norm -> Linear -> logits (B, L, V)

    The logits at position ``i`` predict token ``i + 1``. One vocabulary
    serves both languages, so ``src_vocab`` and ``tgt_vocab`` are the same
    ``Vocab`` (both names kept so that the translator's checkpoints and
    training loop serve the GPT unchanged). With ``tie_output`` the output
    layer reads with the embedding matrix (the translator does the same);
    positions are chapter 8's sinusoids, added in ``add_positions``, the one
    place a later chapter swaps them for another scheme.

    Derived in chapter 13 (the translator as a GPT).
    """

    kind = "gpt"  # what a checkpoint records, so that load_checkpoint builds a GPT
    decoder_only = True  # how it is decoded and scored (ModernGPT, another kind, is one too)

    def __init__(
        self, config: GPTConfig, src_vocab: Vocab | None = None, tgt_vocab: Vocab | None = None
    ):
        super().__init__()
        if not isinstance(config, GPTConfig):
            raise ValueError(f"GPT needs a GPTConfig, got {type(config).__name__}")
        if config.vocab_size < len(SPECIALS):
            raise ValueError(
                f"the config has vocab_size={config.vocab_size}: set it to the vocabulary's size "
                f"(len(vocab), at least the {len(SPECIALS)} special tokens); train_gpt does it for you"
            )
        if src_vocab is not None and tgt_vocab is not None and src_vocab != tgt_vocab:
            raise ValueError(
                "a GPT reads both languages with one vocabulary, but src_vocab and tgt_vocab differ: "
                "build one with joint_vocab(pairs) and pass it as both"
            )
        vocab = src_vocab if src_vocab is not None else tgt_vocab
        if vocab is not None and len(vocab) != config.vocab_size:
            raise ValueError(
                f"the vocabulary has {len(vocab)} tokens but the config says vocab_size={config.vocab_size}"
            )
        self.config, self.vocab = config, vocab
        c = config
        self.embed = nn.Embedding(c.vocab_size, c.d_model)
        # chapter 8's sinusoids, no parameters
        self.pos = PositionalEncoding(c.d_model, c.max_len, dropout=c.dropout)
        self.blocks = nn.ModuleList(
            Block(c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first)
            for _ in range(c.num_layers)
        )
        # pre-norm: the residual stream is normalised once after the last block
        self.norm = nn.LayerNorm(c.d_model) if c.norm_first else None
        self.generator = nn.Linear(c.d_model, c.vocab_size)  # D -> V scores, the logits
        for p in self.parameters():  # Xavier-uniform matrices, as the translator
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        if c.tie_output:
            self.generator.weight = self.embed.weight  # (V, D): one matrix reads tokens in and out

    src_vocab = property(
        lambda self: self.vocab, doc="The one vocabulary (as the translator names it)."
    )
    tgt_vocab = property(
        lambda self: self.vocab, doc="The one vocabulary (as the translator names it)."
    )

    @property
    def tokenizer(self) -> Tokenizer:
        """The model's ``Tokenizer``: its word vocabulary as a ``WordTokenizer``, or its ``SubwordTokenizer``."""
        if self.vocab is None:
            raise ValueError(
                "this GPT carries no vocabulary: build it with GPT(config, vocab, vocab), or use one "
                "from train_gpt(), load_gpt() or load_pretrained()"
            )
        if isinstance(self.vocab, SubwordTokenizer):
            return self.vocab
        return WordTokenizer(self.vocab)

    def add_positions(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        """The position step: ``x (B, T, D)`` of positions ``start .. start + T - 1`` -> ``(B, T, D)``.

        Chapter 8's sinusoids, added (then dropout). The only place the model
        learns where a token stands; override it to try another scheme.
        """
        # (B, T, D) + (T, D) -> (B, T, D)
        return self.pos.dropout(x + self.pos.pe[start : start + x.shape[1]])

    def _check_length(self, n: int) -> None:
        if n > self.config.max_len:
            raise ValueError(
                f"the sequence has {n} positions but the model was built with max_len={self.config.max_len} "
                "(GPTConfig.max_len: the source, <sep> and the translation together): shorten it"
            )

    def forward(self, tokens: torch.Tensor, need_weights: bool = False):
        """``tokens (B, L)`` -> ``logits (B, L, V)``; with ``need_weights`` also each block's ``(B, H, L, L)``."""
        if not isinstance(tokens, torch.Tensor) or tokens.dim() != 2:
            got = tuple(tokens.shape) if isinstance(tokens, torch.Tensor) else type(tokens).__name__
            raise ValueError(f"GPT reads token ids of shape (B, L), got {got}")
        self._check_length(tokens.shape[1])
        # (B, L) -> (B, L, D)
        x = self.add_positions(self.embed(tokens) * math.sqrt(self.config.d_model))
        return self.stack(x, need_weights)

    def stack(self, x: torch.Tensor, need_weights: bool = False):
        """The blocks under the causal mask, the final norm and the output layer: ``x (B, L, D)`` -> logits.

        ``x`` holds the embedded tokens with their positions; ``forward`` is
        ``stack(add_positions(embed(tokens) * sqrt(D)))``. Separate so that a
        check can feed it vectors (``tutorlib.debug.check_causality``).
        """
        mask = causal_attention_mask(x.shape[1], device=x.device)  # (L, L): position i reads 0 .. i
        weights = []
        for block in self.blocks:
            if need_weights:
                x, w = block(x, mask, need_weights=True)
                weights.append(w)
            else:
                x = block(x, mask)
        if self.norm is not None:
            x = self.norm(x)
        logits = self.generator(x)  # (B, L, D) -> (B, L, V)
        return (logits, weights) if need_weights else logits

    def forward_step(self, tokens: torch.Tensor, cache: KVCache) -> torch.Tensor:
        """The newest ``tokens (B, T_new)``, at positions ``cache.length`` on -> ``logits (B, T_new, V)``.

        The first call may hand in a whole prompt (``T_new`` > 1, causal
        within it); later ones one token each. The keys and values of the
        positions before are read from ``cache`` (chapter 10's ``KVCache``,
        one dict per block) and the new ones appended.
        """
        t, T_new = cache.length, tokens.shape[1]
        self._check_length(t + T_new)
        if not cache.layers:
            cache.layers.extend({} for _ in self.blocks)
        # None for one new position (it reads every earlier one); else (T_new, t + T_new), causal
        mask = None
        if T_new > 1:
            mask = torch.ones(T_new, t + T_new, dtype=torch.bool, device=tokens.device).tril(
                diagonal=t
            )
        x = self.add_positions(self.embed(tokens) * math.sqrt(self.config.d_model), start=t)
        for block, layer_cache in zip(self.blocks, cache.layers):
            x = block.forward_step(x, layer_cache, mask)
        if self.norm is not None:
            x = self.norm(x)
        cache.length = t + T_new
        return self.generator(x)

    def num_parameters(self) -> int:
        """Parameters counted once (tied matrices are one matrix)."""
        return sum(p.numel() for p in self.parameters())


# --- the loss: on the translation only -------------------------------------------------------------


def gpt_loss(model: GPT, batch, config: GPTConfig, *, prompt_loss: bool = False) -> torch.Tensor:
    """Mean cross-entropy of the target tokens and ``<eos>``, with label smoothing; the prompt is not predicted.

    ``batch`` is a ``GPTBatch`` or a translator's ``Batch`` (converted by
    ``gpt_batch_from``), so that ``train(..., batch_loss=gpt_loss)`` runs the
    translator's loop on the translator's batches. The English is given at
    translation time: predicting it would spend the model's capacity on
    modelling English sentences, and the loss would mix that easier, longer
    part with the translation. With ``prompt_loss`` every real position
    counts (chapter 13's demonstration of what goes wrong).

    Derived in chapter 13 (the translator as a GPT).
    """
    if isinstance(batch, Batch):
        tok = model.tokenizer if getattr(model, "vocab", None) is not None else WordTokenizer
        batch = gpt_batch_from(batch, tok.sep_id, tok.eos_id)
    logits = model(batch.tokens)  # (B, L, V)
    counted = batch.real_mask if prompt_loss else batch.loss_mask  # (B, L)
    targets = batch.targets.masked_fill(~counted, -100)  # -100: cross_entropy leaves it out
    V = logits.shape[-1]
    # (B, L, V) -> (B*L, V) against (B*L,)
    return F.cross_entropy(
        logits.reshape(-1, V),
        targets.reshape(-1),
        ignore_index=-100,
        label_smoothing=config.label_smoothing,
    )


def gpt_loss_with_prompt(model: GPT, batch, config: GPTConfig) -> torch.Tensor:
    """``gpt_loss`` over the prompt too: the loss of a plain language model, for chapter 13's comparison.

    Derived in chapter 13 (the translator as a GPT).
    """
    return gpt_loss(model, batch, config, prompt_loss=True)


# --- decoding: greedy and sampling, with a KV cache ---------------------------------------------------


def filter_logits(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> torch.Tensor:
    """``logits (R, V)`` divided by ``temperature``, with the tokens outside top-k and top-p set to ``-inf``.

    Chapter 10's rules: top-k keeps the ``k`` largest; top-p keeps the fewest
    most probable tokens whose probabilities reach ``p``. The most probable
    token always stays, so a row never loses every token.

    Derived in chapter 10 (Translating and evaluating); batched for chapter 13.
    """
    temperature = finite_number(
        "temperature", temperature, hint="above 0; 1 leaves the distribution as it is"
    )
    if temperature <= 0:
        raise ValueError(
            f"temperature must be above 0, got {temperature}: 0 would divide by zero "
            "(use greedy decoding, temperature=None, for the limit)"
        )
    z = logits / temperature
    if top_k is not None:
        k = min(whole_number("top_k", top_k, 1, hint="None keeps every token"), z.shape[-1])
        kth = z.topk(k, dim=-1).values[:, -1:]  # (R, 1): the k-th largest of each row
        z = z.masked_fill(z < kth, float("-inf"))
    if top_p is not None:
        top_p = finite_number("top_p", top_p, hint="a probability in (0, 1]")
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be a probability in (0, 1], got {top_p}")
        p_sorted, order = torch.softmax(z, dim=-1).sort(dim=-1, descending=True)  # (R, V) each
        # (R, V): the tokens after the ones that already reach p, in sorted order
        drop_sorted = p_sorted.cumsum(dim=-1) - p_sorted >= top_p
        # (R, V) back in vocabulary order
        drop = torch.zeros_like(drop_sorted).scatter(1, order, drop_sorted)
        z = z.masked_fill(drop, float("-inf"))
    return z


@torch.no_grad()
def generate(
    model: GPT,
    prompts: torch.Tensor,
    budget,
    *,
    temperature: float | None = None,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    use_cache: bool = True,
    max_run: int | None = MAX_RUN,
    no_repeat_ngram: int | None = NO_REPEAT_NGRAM,
) -> list[list[int]]:
    """Continue ``prompts (B, P)`` (each ``[src] <sep>``, all of one length P) until ``<eos>`` or ``budget`` tokens.

    ``temperature=None`` is greedy decoding; a number samples (with
    ``top_k``, ``top_p``) from ``generator`` (seed it: the same seed, the
    same draws). With ``use_cache`` the prompt is read once and every later
    step reads one position (a ``KVCache``); without, every step recomputes
    the whole sequence; the tokens are the same. ``budget`` is an int or
    ``(B,)``: the most tokens a row may write (``output_budget``). The
    translator's repetition guard (``max_run``, ``no_repeat_ngram``) acts
    before the choice. Returns each row's new tokens without ``<eos>``.

    Derived in chapter 13 (the translator as a GPT).
    """
    _check_guard(max_run, no_repeat_ngram)
    if temperature is None and (top_k is not None or top_p is not None):
        raise ValueError(
            "top_k and top_p shape sampling: give a temperature (1.0 leaves it as it is)"
        )
    model.eval()
    tok = model.tokenizer if model.vocab is not None else WordTokenizer
    B, P = prompts.shape
    device = prompts.device
    budget = torch.as_tensor(budget, device=device).expand(B)  # (B,)
    if int(budget.max()) < 1:
        raise ValueError(f"the budget leaves no token to write (budget {budget.tolist()})")
    model._check_length(P + int(budget.max()) - 1)  # the last token written is never read
    tokens = prompts  # (B, P + n): the prompt and what is written so far
    finished = torch.zeros(B, dtype=torch.bool, device=device)
    cache = KVCache() if use_cache else None
    for step in range(int(budget.max())):
        if cache is None:
            logits = model(tokens)[:, -1]  # (B, P + n, V) -> (B, V)
        else:  # the prompt at once, then one new position per step
            logits = model.forward_step(tokens if step == 0 else tokens[:, -1:], cache)[:, -1]
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (B, V)
        # the guard reads <sep> and what follows it, as the translator's reads <bos> and its words
        log_probs = _guard(log_probs, tokens[:, P - 1 :], max_run, no_repeat_ngram, tok.eos_id)
        if temperature is None:
            next_token = log_probs.argmax(dim=-1)  # (B,)
        else:
            probs = torch.softmax(filter_logits(log_probs, temperature, top_k, top_p), dim=-1)
            next_token = torch.multinomial(probs, 1, generator=generator)[:, 0]  # (B, V) -> (B,)
        next_token = next_token.masked_fill(finished, tok.pad_id)  # a finished row only pads
        tokens = torch.cat([tokens, next_token[:, None]], dim=1)
        finished |= (next_token == tok.eos_id) | (step + 1 >= budget)
        if finished.all():
            break
    out = []
    for row in tokens[:, P:].tolist():
        ids = []
        for i in row:
            if i == tok.eos_id:
                break
            if i != tok.pad_id:
                ids.append(i)
        out.append(ids)
    return out


def kv_cache_bytes(cache: KVCache) -> int:
    """The memory a ``KVCache`` holds: every block's keys and values, ``2 x N x (B, H, t, Dh)`` numbers.

    Derived in chapter 13 (the translator as a GPT).
    """
    return sum(
        t.numel() * t.element_size()
        for layer in cache.layers
        for part in layer.values()
        for t in part.values()
        if isinstance(t, torch.Tensor)  # a rolling window's position counter is no memory here
    )


@torch.no_grad()
def cross_attention_pattern(model: GPT, src_ids, tgt_ids) -> torch.Tensor:
    """Cross-attention recovered from self-attention: ``(N, H, T, S)``, how each target step read the source.

    One pass over ``[src] <sep> [tgt]``; in every block's weights ``(H, L, L)``
    the rows of the positions that wrote the target tokens (``<sep>`` wrote
    ``tgt[0]``, position ``S + t`` wrote ``tgt[t]``) and the columns of the
    source: the block a translator's cross-attention would hold. A row sums
    to at most 1: the rest of its weight went to ``<sep>`` and to the
    Portuguese written before. End ``tgt_ids`` with ``<eos>`` to see the
    step that ended.

    Derived in chapter 13 (the translator as a GPT).
    """
    src_ids = [int(i) for i in src_ids]
    tgt_ids = [int(i) for i in tgt_ids]
    S, T = len(src_ids), len(tgt_ids)
    if not S or not T:
        raise ValueError(f"cross_attention_pattern needs source and target ids, got S={S}, T={T}")
    model.eval()
    device = next(model.parameters()).device
    sep = model.tokenizer.sep_id if model.vocab is not None else BOS_ID
    tokens = torch.tensor([[*src_ids, sep, *tgt_ids[:-1]]], device=device)  # (1, S + T)
    _, weights = model(tokens, need_weights=True)  # N x (1, H, S + T, S + T)
    # (N, H, L, L) -> rows S .. S + T - 1 (the target's writers), columns 0 .. S - 1 (the source)
    return torch.cat(weights)[:, :, S : S + T, :S].float().cpu()


# --- translating sentences --------------------------------------------------------------------------


def _check_sentence(i: int, sentence, model: GPT) -> tuple[list[str], list[int]]:
    """``(the tokens as typed, their ids)`` of one source sentence; a ``ValueError`` says why it cannot be."""
    if not isinstance(sentence, str):
        raise ValueError(
            f"sentences[{i}] is a {type(sentence).__name__} ({sentence!r:.60}), expected a string of "
            "English words"
        )
    typed = tokenize(sentence, lower=False)
    words = [t.lower() for t in typed]
    if not words or all(is_punctuation(w) for w in words):
        raise ValueError(
            f"sentences[{i}] ({sentence[:60]!r}) holds no words: there is nothing to translate"
        )
    limit = model.config.max_source_len
    tok = model.tokenizer
    if isinstance(tok, SubwordTokenizer):  # nothing is unknown: every text has its tokens
        ids = tok.encode(tok.normalize(sentence))
        if len(ids) > limit:
            raise ValueError(
                f"sentences[{i}] is {len(ids)} BPE tokens long; the prompt (the source and <sep>) and "
                f"the translation share the model's max_len={model.config.max_len} positions, so a "
                f"source may have at most {limit} (GPTConfig.max_source_len): shorten or split it: "
                f"{sentence[:60]!r}"
            )
        return typed, ids
    if len(words) > limit:
        raise ValueError(
            f"sentences[{i}] has {len(words)} tokens; the prompt (the source and <sep>) and the translation "
            f"share the model's max_len={model.config.max_len} positions, so a source may have at most "
            f"{limit} (GPTConfig.max_source_len): shorten or split it: {sentence[:60]!r}"
        )
    vocab = model.vocab
    real = [w for w in words if not is_punctuation(w)]
    if not any(w in vocab for w in real):
        raise ValueError(
            f"sentences[{i}]: none of its words are in the model's vocabulary ({', '.join(real[:5])}"
            f"{' ...' if len(real) > 5 else ''}): is it English? The model would only make up words"
        )
    return typed, vocab.encode(words, warn_unknown=False)


@functools.lru_cache(maxsize=1)
def _phrasebook_words() -> frozenset:
    from .phrasebook.grammar import english_words

    return frozenset(english_words())


def _with_names(typed: list[str], text: str) -> str:
    """``text`` with the capitals of the names typed in the source: a typed word with a capital whose
    lower case is no word of the phrasebook ("Ana", not "The" or "I") is written as it was typed."""
    known = _phrasebook_words()
    names = {t.lower(): t for t in typed if t != t.lower() and t.lower() not in known}
    if not names:
        return text
    return re.sub(r"[^\W_]+", lambda m: names.get(m.group(0), m.group(0)), text)


def _with_copies(model: GPT, typed: list[str], src: list[int], hyp: list[int]) -> str:
    """The translation's text; an output ``<unk>`` becomes the unknown source word its step read most.

    Chapter 10's copy of unknown words, with the cross-attention pattern
    (last block, heads averaged) as the alignment. A GPT on BPE tokens has no
    ``<unk>``: it spells names out itself, in the lower case of its training
    text, and the names get their typed capitals back (``_with_names``).
    """
    tok = model.tokenizer
    if isinstance(tok, SubwordTokenizer):
        return _with_names(typed, tok.decode(hyp))
    unknown_at = [j for j, i in enumerate(src) if i == UNK_ID]
    weights = None
    if UNK_ID in hyp and unknown_at:
        weights = cross_attention_pattern(model, src, hyp)[-1].mean(dim=0)  # (H, T, S) -> (T, S)
    words = []
    for t, i in enumerate(hyp):
        if i == UNK_ID:
            if unknown_at:
                words.append(typed[unknown_at[int(weights[t, unknown_at].argmax())]])
        elif i not in (PAD_ID, BOS_ID):
            words.append(model.vocab.id_to_token(i))
    return detokenize(words)


def translate(
    sentences,
    model: GPT | None = None,
    *,
    temperature: float | None = None,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int = 0,
    max_len: int | None = None,
    batch_size: int = 64,
    use_cache: bool = True,
    max_run: int | None = MAX_RUN,
    no_repeat_ngram: int | None = NO_REPEAT_NGRAM,
    skip_errors: bool = False,
):
    """Translate English sentences with a GPT: a list of strings -> a list of strings (one string -> one).

    ``model`` defaults to the shipped GPT (``load_pretrained``). Greedy by
    default; a ``temperature`` (with ``top_k``, ``top_p``) samples, seeded by
    ``seed``. Each translation has at most ``2 S + 5`` tokens for ``S``
    source tokens (``output_budget``), capped by ``max_len`` and by the
    positions the prompt leaves; the repetition guard is the translator's.
    Sentences of one length are decoded together (no padding inside a
    prompt). An unknown word the model writes as ``<unk>`` is copied from
    the source word it read most. A non-string, an empty sentence, one
    longer than ``GPTConfig.max_source_len`` or one without a known word is a
    ``ValueError`` naming it; with ``skip_errors`` such a sentence translates
    to ``""`` and the others go on (``evaluate`` scores it as empty).

    Derived in chapter 13 (the translator as a GPT).
    """
    if sentences is None:
        raise ValueError("sentences is None: give a string, or a list (any iterable) of strings")
    single = isinstance(sentences, str)
    if single:
        sentences = [sentences]
    if isinstance(sentences, bytes) or not hasattr(sentences, "__iter__"):
        raise ValueError(
            f"sentences must be a string or an iterable of strings, got {type(sentences).__name__}"
        )
    sentences = list(sentences)
    batch_size = whole_number("batch_size", batch_size, 1, hint="sentences decoded together")
    seed = whole_number("seed", seed, 0)
    if max_len is not None:
        whole_number("max_len", max_len, 1, hint="the most tokens a translation may have")
    if model is None:
        model = load_pretrained()
    if not isinstance(model, GPT):
        raise ValueError(
            f"tutorlib.gpt.translate needs a GPT, got {type(model).__name__}; the encoder-decoder "
            "translator has its own, tutorlib.translator.translate"
        )
    if model.vocab is None:
        model.tokenizer  # noqa: B018 (raises the error that says what to pass)
    checked = []
    for i, sentence in enumerate(sentences):
        try:
            checked.append(_check_sentence(i, sentence, model))
        except ValueError:
            if not skip_errors:
                raise
            checked.append(None)
    sep = model.tokenizer.sep_id
    device = next(model.parameters()).device
    generator = None
    if temperature is not None:  # one seeded generator for the whole call
        generator = torch.Generator(device=device).manual_seed(seed)
    by_length: dict[int, list[int]] = {}
    for i, item in enumerate(checked):
        if item is not None:
            by_length.setdefault(len(item[1]), []).append(i)
    texts = [""] * len(sentences)
    for S in sorted(by_length):
        budget = output_budget(
            S, model.config.max_len - S, max_len
        )  # what the prompt's S + 1 leave
        rows = by_length[S]
        for start in range(0, len(rows), batch_size):
            chunk = rows[start : start + batch_size]
            prompts = torch.tensor(
                [checked[i][1] + [sep] for i in chunk], device=device
            )  # (B, S + 1)
            hyps = generate(
                model,
                prompts,
                budget,
                temperature=temperature,
                top_k=top_k,
                top_p=top_p,
                generator=generator,
                use_cache=use_cache,
                max_run=max_run,
                no_repeat_ngram=no_repeat_ngram,
            )
            for i, hyp in zip(chunk, hyps):
                texts[i] = _with_copies(model, checked[i][0], checked[i][1], hyp)
    return texts[0] if single else texts


# --- training: the translator's loop, the GPT's model and loss ----------------------------------------


def build_gpt(config: GPTConfig, src_vocab: Vocab, tgt_vocab: Vocab) -> GPT:
    """``train``'s ``build_model`` for a GPT: the config sized to the (one) vocabulary, then a fresh ``GPT``.

    Derived in chapter 13 (the translator as a GPT).
    """
    return GPT(replace(config, vocab_size=len(src_vocab)), src_vocab, tgt_vocab)


def splitter(vocab):
    """How a pair's texts are cut into the tokens ``fits_gpt`` counts: chapter 9's words
    (``tokenize``) for a ``Vocab``, the BPE's ids for a ``SubwordTokenizer``.

    Derived in chapter 14 (from words to tokens: byte-pair encoding).
    """
    return vocab.encode if isinstance(vocab, SubwordTokenizer) else tokenize


def fits_gpt(src_tokens: Sequence, tgt_tokens: Sequence, config: GPTConfig) -> bool:
    """Whether a pair fits the GPT: at most ``max_source_len`` source tokens, and the source, ``<sep>`` and the
    target within ``max_len`` positions (``<eos>`` is only predicted, never read).

    Derived in chapter 13 (the translator as a GPT).
    """
    return (
        len(src_tokens) <= config.max_source_len
        and len(src_tokens) + 1 + len(tgt_tokens) <= config.max_len
    )


def train_gpt(
    config: GPTConfig | None,
    train_pairs,
    valid_pairs,
    out_dir=None,
    *,
    vocab: Vocab | None = None,
    prompt_loss: bool = False,
    build_model=build_gpt,
    **train_options,
):
    """Train a ``GPT`` translator with the translator's loop; returns its ``TrainResult``.

    ``tutorlib.translation.training.train`` with ``build_model=build_gpt``
    and ``batch_loss=gpt_loss`` (``gpt_loss_with_prompt`` with
    ``prompt_loss``): the same batches, schedule, progress bar, checkpoints,
    resuming and Ctrl-C. The vocabulary is ``joint_vocab(train_pairs)``
    unless given; with ``config.bpe_vocab_size`` it is a ``SubwordTokenizer``
    of that size trained on both sides of the training pairs, and the batches
    are ``make_gpt_batches`` of its ids (chapter 14). ``build_model``
    makes another GPT of the config and vocabulary (chapter 15's variants). Pairs that do not fit (``fits_gpt``) are left out; more
    than 1 % of the training pairs is an error. ``train_options`` are
    ``train``'s (``max_steps``, ``progress``, ``resume``, ``device``...).

    Derived in chapter 13 (the translator as a GPT).
    """
    from .training import TOO_LONG_SHARE, train  # the loop imports the model stack; only here

    if config is None:
        if not train_options.get("resume") or out_dir is None:
            raise ValueError("config is None: give a GPTConfig (or resume=True and out_dir)")
        config = read_checkpoint(out_dir)["config"]
    if not isinstance(config, GPTConfig):
        raise ValueError(f"train_gpt needs a GPTConfig, got {type(config).__name__}")
    train_pairs, valid_pairs = list(train_pairs), list(valid_pairs)
    if vocab is None and train_options.get("resume"):
        vocab = read_checkpoint(out_dir)["src_vocab"]  # the run's own tokens
    if vocab is None and config.bpe_vocab_size:
        vocab = SubwordTokenizer.train(
            [t for pair in train_pairs for t in pair], config.bpe_vocab_size
        )
    split = splitter(vocab)
    batcher = _bpe_batcher if isinstance(vocab, SubwordTokenizer) else make_batches
    kept = [(e, p) for e, p in train_pairs if fits_gpt(split(e), split(p), config)]
    if len(train_pairs) - len(kept) > TOO_LONG_SHARE * len(train_pairs):
        raise ValueError(
            f"{len(train_pairs) - len(kept)} of {len(train_pairs)} training pairs do not fit max_len="
            f"{config.max_len} positions (source, <sep> and target) and would be left out; raise max_len"
        )
    valid_pairs = [(e, p) for e, p in valid_pairs if fits_gpt(split(e), split(p), config)]
    vocab = vocab if vocab is not None else joint_vocab(kept)
    return train(
        config,
        kept,
        valid_pairs,
        out_dir,
        src_vocab=vocab,
        tgt_vocab=vocab,
        build_model=build_model,
        batch_loss=gpt_loss_with_prompt if prompt_loss else gpt_loss,
        batcher=batcher,
        **train_options,
    )


def _bpe_batcher(pairs, src_vocab, tgt_vocab, batch_size, shuffle=True, seed=0, max_len=None):
    """``train``'s ``batcher`` for a GPT on BPE tokens: ``make_gpt_batches`` with its one tokenizer."""
    return make_gpt_batches(
        pairs, src_vocab, batch_size, shuffle=shuffle, seed=seed, max_len=max_len
    )


# --- checkpoints: the translator's files, kind "gpt" ----------------------------------------------------


def save_gpt(model: GPT, path, **meta):
    """Write ``model``'s weights, config and vocabulary to ``path`` (``save_model``'s file, ``kind="gpt"``).

    Derived in chapter 13 (the translator as a GPT).
    """
    if not isinstance(model, GPT):
        raise ValueError(f"save_gpt saves a GPT, got {type(model).__name__}")
    return save_model(model, path, **meta)


def load_gpt(path, device=None) -> GPT:
    """The GPT stored at ``path`` (a file from ``save_gpt`` or ``train_gpt``, or its folder), in eval mode.

    Derived in chapter 13 (the translator as a GPT).
    """
    model, _, _ = load_checkpoint(path, device=device)
    if not isinstance(model, GPT):
        raise CheckpointError(
            f"{path} holds a {type(model).__name__}, not a GPT: load it with "
            "tutorlib.translator.load_checkpoint"
        )
    return model


# How the shipped GPTs are made: the commands, and where their files go. "pretrained" reads BPE
# tokens (chapter 14); "words" reads chapter 9's words (chapter 13's comparison).
PRETRAINED_GPT_COMMANDS = {
    kind: f"python -m tutorlib train --model gpt --preset {preset} --out runs/{name} && "
    f"cp runs/{name}/translator.pt tutorlib/pretrained/{path.name}"
    for kind, preset, name, path in (
        ("bpe", "pretrained", "gpt", PRETRAINED_GPT_PATH),
        ("words", "words", "gpt_words", PRETRAINED_GPT_WORDS_PATH),
    )
}
PRETRAINED_GPT_COMMAND = PRETRAINED_GPT_COMMANDS["bpe"]


def load_pretrained(tokens: str = "bpe", device=None) -> GPT:
    """A GPT translator shipped with tutorlib, in eval mode.

    ``tokens="bpe"`` (the default): ``tutorlib/pretrained/gpt.pt``, on chapter
    14's byte-level BPE, which spells out names and numbers it never saw.
    ``tokens="words"``: ``tutorlib/pretrained/gpt_words.pt``, on chapter 9's
    words, the one chapter 13 compares with the encoder-decoder (same words,
    same batches, the same number of parameters within 0.3 %).
    ``PRETRAINED_GPT_COMMANDS`` holds the command that made each.

    Derived in chapter 13 (the translator as a GPT).
    """
    if tokens not in PRETRAINED_GPT_COMMANDS:
        raise ValueError(
            f"tokens must be one of {sorted(PRETRAINED_GPT_COMMANDS)} (the shipped GPTs), got {tokens!r}"
        )
    path = PRETRAINED_GPT_PATH if tokens == "bpe" else PRETRAINED_GPT_WORDS_PATH
    if not path.is_file():
        raise FileNotFoundError(
            f"the shipped GPT translator is missing ({path} does not exist). Make it with "
            f"`{PRETRAINED_GPT_COMMANDS[tokens]}`; meanwhile pass a GPT from train_gpt or "
            "load_gpt(PATH) (on the command line: --checkpoint PATH)"
        )
    return load_gpt(path, device=device)
