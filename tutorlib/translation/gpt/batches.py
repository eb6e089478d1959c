"""The GPT's batches (chapter 13): one sequence per pair, ``[src] <sep> [tgt] <eos>``, and the loss
mask.

``gpt_sequence`` lays a pair out; ``GPTBatch`` holds padded sequences shifted
by one with their masks; ``make_gpt_batch`` builds one from ids,
``gpt_batch_from`` from a translator's ``Batch`` (the very same pairs),
``make_gpt_batches`` from text pairs and a tokenizer (chapter 14's BPE).
``fits_gpt`` is the length rule a pair must pass, and ``gpt_batcher`` the
kind's batcher for the training loop (words or BPE, by the vocabulary).

Shape letters: ``B`` batch, ``S`` source length, ``T`` target length, ``L``
the sequence's length.

Derived in chapter 13 (The translator as a GPT).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, fields

import torch

from ...checks import whole_number
from ..config import GPTConfig
from ..data import BOS_ID, EOS_ID, PAD_ID, Batch, _check_pair, batch_order, make_batches
from .tokens import SubwordTokenizer, Tokenizer

__all__ = [
    "gpt_sequence",
    "GPTBatch",
    "make_gpt_batch",
    "gpt_batch_from",
    "make_gpt_batches",
    "fits_gpt",
    "gpt_batcher",
]


def gpt_sequence(
    src_ids: Sequence[int], tgt_ids: Sequence[int], sep_id: int, eos_id: int
) -> list[int]:
    """``[src] <sep> [tgt] <eos>``: one training sequence of the decoder-only translator.

    Derived in chapter 13 (The translator as a GPT).
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

    Derived in chapter 13 (The translator as a GPT).
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

    Derived in chapter 13 (The translator as a GPT).
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
    """The ``GPTBatch`` of a translator's ``Batch`` (``make_batches``): the same pairs, as one
    sequence each.

    What ``gpt_loss`` does to the batches of the translator's training loop,
    so that both models train on the very same batches. Built with tensor
    operations on the batch's device, no Python loop over the rows; the same
    tensors as ``make_gpt_batch`` of the pairs' ids.

    Derived in chapter 13 (The translator as a GPT).
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

    Derived in chapter 14 (From words to tokens: byte-pair encoding).
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
            f"{too_long} pairs left out: their source, <sep> and target are more than "
            f"max_len={max_len} tokens",
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


def fits_gpt(src_tokens: Sequence, tgt_tokens: Sequence, config: GPTConfig) -> bool:
    """Whether a pair fits the GPT: at most ``max_source_len`` source tokens, and the source,
    ``<sep>`` and the target within ``max_len`` positions (``<eos>`` is only predicted, never read).

    Derived in chapter 13 (The translator as a GPT).
    """
    return (
        len(src_tokens) <= config.max_source_len
        and len(src_tokens) + 1 + len(tgt_tokens) <= config.max_len
    )


def gpt_batcher(pairs, src_vocab, tgt_vocab, batch_size, shuffle=True, seed=0, max_len=None):
    """``train``'s ``batcher`` for a GPT: the translator's ``make_batches`` on words (the loss
    turns them into ``GPTBatch`` es), ``make_gpt_batches`` on a ``SubwordTokenizer``'s ids."""
    if not isinstance(src_vocab, SubwordTokenizer):
        return make_batches(
            pairs, src_vocab, tgt_vocab, batch_size, shuffle=shuffle, seed=seed, max_len=max_len
        )
    return make_gpt_batches(
        pairs, src_vocab, batch_size, shuffle=shuffle, seed=seed, max_len=max_len
    )
