"""What keeps a decoder finite (chapter 10): the length budget and the repetition guard.

A decoder that loops would write until its positions run out. Two rules,
shared by every decoder of the stack (the translator's ``greedy_decode`` and
``beam_search``, the GPT's ``generate``), stop it: a translation of ``S``
source tokens gets at most ``2 S + 5`` tokens (``output_budget``), and no
token may come a third time in a row nor a 4-gram twice (``repetition_mask``,
applied by ``guard``). Torch only; below the models and the decoders.

Derived in chapter 10 (Translating and evaluating).
"""

from __future__ import annotations

import torch

from ..checks import whole_number
from .data import EOS_ID

__all__ = [
    "MAX_RUN",
    "NO_REPEAT_NGRAM",
    "output_budget",
    "repetition_mask",
    "guard",
    "source_continuations",
    "check_guard",
]

# The repetition guard of greedy_decode and beam_search: no token chosen a third time in a row, and
# no 4-gram
# twice in one translation. The phrasebook never repeats a 4-gram within a sentence, so a repeat is
# a loop.
MAX_RUN = 2
NO_REPEAT_NGRAM = 4


def output_budget(source_length, model_max_len: int, max_len: int | None = None):
    """The most words a translation of ``source_length`` source words may have: ``2 S + 5``, capped.

    A translation twice as long as its source plus five is never right in
    the phrasebook (Portuguese is at most a few words longer than English),
    so a decoder that gets there is looping. The model's positions
    (``model_max_len - 1`` after BOS, ``model_max_len`` being
    ``TranslatorConfig.max_len``) and ``max_len`` (the caller's, a whole
    number >= 1) cap it further. ``source_length`` is an int (returns an
    int) or a tensor of them, ``(B,)`` (returns a tensor of the same shape).
    ``greedy_decode`` and ``beam_search`` stop a sentence when it has written
    this many words (it counts as ended, as if by EOS).

    Derived in chapter 10 (Translating and evaluating).
    """
    limit = model_max_len - 1
    if max_len is not None:
        limit = min(
            limit, whole_number("max_len", max_len, 1, hint="the most words a translation may have")
        )
    if torch.is_tensor(source_length):
        return (2 * source_length + 5).clamp(max=limit)
    return min(2 * source_length + 5, limit)


def repetition_mask(
    tokens: torch.Tensor,
    V: int,
    max_run: int | None,
    no_repeat_ngram: int | None,
    eos_id: int = EOS_ID,
) -> torch.Tensor:
    """``tokens (R, t)`` (BOS first) -> ``(R, V)`` booleans, True where the next token would repeat
    too much.

    Banned: the token that would make ``max_run + 1`` of the same in a row,
    and every token that would complete an ``no_repeat_ngram``-gram already
    in the hypothesis. ``eos_id`` (EOS) is never banned, so every row keeps a
    way to end. The first column may hold any start token (chapter 13's GPT
    puts its separator there).
    """
    words = tokens[:, 1:]  # (R, n): without BOS
    R, n = words.shape
    banned = torch.zeros(
        R, V + 1, dtype=torch.bool, device=tokens.device
    )  # column V: "nothing banned"
    if max_run and n >= max_run:
        tail = words[:, -max_run:]  # (R, max_run)
        same = (tail == tail[:, :1]).all(dim=1)  # (R,): the last max_run tokens are one token
        banned[torch.arange(R, device=tokens.device), torch.where(same, tail[:, 0], V)] = True
    if no_repeat_ngram and n >= no_repeat_ngram:
        k = no_repeat_ngram - 1
        # (R, n) -> (R, n - k, k): every k tokens that some token followed
        windows = words.unfold(1, k, 1)[:, : n - k]
        hit = (windows == words[:, None, -k:]).all(
            dim=-1
        )  # (R, n - k): the same k tokens as the newest ones
        banned.scatter_(1, torch.where(hit, words[:, k:], V), True)  # ban what followed them then
    banned = banned[:, :V]
    banned[:, eos_id] = False
    return banned


def guard(
    log_probs: torch.Tensor,
    tokens: torch.Tensor,
    max_run,
    no_repeat_ngram,
    eos_id: int = EOS_ID,
    source: torch.Tensor | None = None,
) -> torch.Tensor:
    """``log_probs (R, V)`` with the continuations ``repetition_mask`` bans set to ``-inf``.

    ``source (R, S)``, for a model whose source and translation share one
    vocabulary (chapter 14's GPT on BPE tokens), lets through a repeat the
    source itself holds (``source_continuations``): "100000" is one token
    "1" and five "0", a run the guard would cut at two, and a copy, not a loop.
    """
    if not max_run and not no_repeat_ngram:
        return log_probs
    banned = repetition_mask(tokens, log_probs.shape[-1], max_run, no_repeat_ngram, eos_id)
    if source is not None:
        context = max(max_run or 1, (no_repeat_ngram or 2) - 1)
        banned &= ~source_continuations(tokens[:, 1:], source, log_probs.shape[-1], context)
    return log_probs.masked_fill(banned, float("-inf"))


def source_continuations(
    written: torch.Tensor, source: torch.Tensor, V: int, context: int
) -> torch.Tensor:
    """``(R, V)`` booleans: True for a token that, after the last ``context`` tokens of
    ``written (R, n)`` (fewer if fewer are written), continues a stretch of ``source (R, S)``:
    the next token of a copy.

    Derived in chapter 14 (From words to tokens: byte-pair encoding).
    """
    R, n = written.shape
    allowed = torch.zeros(R, V + 1, dtype=torch.bool, device=written.device)  # column V: none
    j = min(context, n)
    if j == 0 or source.shape[1] <= j:
        return allowed[:, :V]
    windows = source.unfold(1, j + 1, 1)  # (R, S - j, j + 1): every j + 1 source tokens
    match = (windows[:, :, :j] == written[:, None, n - j :]).all(dim=-1)  # (R, S - j)
    allowed.scatter_(1, torch.where(match, windows[:, :, j], V), True)
    return allowed[:, :V]


def check_guard(max_run, no_repeat_ngram) -> None:
    if max_run is not None:
        whole_number("max_run", max_run, 1, hint="None lets a token repeat without limit")
    if no_repeat_ngram is not None:
        whole_number("no_repeat_ngram", no_repeat_ngram, 2, hint="None lets n-grams repeat")
