"""Speculative decoding, greedy (Leviathan et al. 2023; Chen et al. 2023): a small draft GPT
guesses, the big one checks several guesses in one pass.

Writing one token costs the target model one forward pass, however few positions that pass
reads: at a server's small batches the pass is bound by reading the weights, not by the
arithmetic. So let a cheap *draft* model, sharing the target's tokenizer, propose ``k`` tokens
one by one; then run the target once over those ``k`` positions (its KV cache holds the rest).
Its logits at every position say what it would have written there itself. Keep the longest
prefix of the proposal where the two agree, then the target's own token at the first
disagreement (or after the last guess): between 1 and ``k + 1`` tokens for one target pass.
The target's cache has the rejected guesses' keys and values at its end; cutting it back to
the kept length (``truncate``) is all the rollback there is.

The guarantee does not depend on the draft: every kept token is the one the target itself
chooses after the same prefix, so the output is the target's greedy output, token for token,
for *any* draft. A good draft only makes it cheaper: more tokens per target pass.

Shape letters: ``B`` batch, ``H`` heads, ``t`` positions cached, ``Dh`` the width of one head,
``V`` the vocabulary size.

Derived in chapter 17 (Attention at serving scale).
"""

from __future__ import annotations

import torch

from ..checks import whole_number
from ..translation.cache import KVCache
from ..translation.gpt import GPT
from ..translation.guards import MAX_RUN, NO_REPEAT_NGRAM, check_guard
from .step import check_prompts, check_served, greedy

__all__ = ["truncate", "speculative_generate"]


def truncate(cache: KVCache, length: int) -> None:
    """Cut a GPT's ``KVCache`` back to its first ``length`` positions: the rollback after a
    rejected guess. Every block's keys and values ``(B, H, t, Dh)`` keep ``t = length``."""
    if not 0 <= length <= cache.length:
        raise ValueError(f"a cache of {cache.length} positions cannot be cut to {length}")
    for layer in cache.layers:
        self_attn = layer["self_attn"]
        # (B, H, t, Dh) -> (B, H, length, Dh)
        self_attn["k"] = self_attn["k"][:, :, :length]
        self_attn["v"] = self_attn["v"][:, :, :length]
    cache.length = length


def _check_pair(target: GPT, draft: GPT) -> None:
    check_served(target)
    check_served(draft)
    t_vocab, d_vocab = target.tokenizer, draft.tokenizer
    if len(target.vocab) != len(draft.vocab) or target.vocab != draft.vocab:
        raise ValueError(
            f"the draft's vocabulary ({type(d_vocab).__name__}, {len(draft.vocab)} tokens) is not "
            f"the target's ({type(t_vocab).__name__}, {len(target.vocab)} tokens): a draft "
            "proposes token ids, so both must read and write the same tokens"
        )


@torch.no_grad()
def speculative_generate(
    target: GPT,
    draft: GPT,
    prompts,
    budget,
    *,
    k: int = 4,
    max_run: int | None = MAX_RUN,
    no_repeat_ngram: int | None = NO_REPEAT_NGRAM,
) -> tuple[list[list[int]], dict]:
    """``generate``'s greedy tokens of ``target`` for ``prompts`` (each ``[src] <sep>``, as
    lists of ids or a ``(B, P)`` tensor), with ``draft`` proposing ``k`` tokens per target pass:
    ``(each prompt's new tokens without <eos>, counts)``.

    ``budget`` is an int or one per prompt. Each sentence is decoded alone (the kept lengths
    differ from row to row). The counts: ``target_passes`` and ``draft_passes`` (forward passes,
    the prompt's included), ``proposed`` and ``accepted`` (draft tokens), ``tokens`` (written,
    ``<eos>`` included).
    """
    _check_pair(target, draft)
    check_guard(max_run, no_repeat_ngram)
    k = whole_number("k", k, 1, hint="tokens the draft proposes per target pass")
    prompts, budgets = check_prompts(target, prompts, budget)
    eos = target.tokenizer.eos_id
    guard_args = (max_run, no_repeat_ngram, eos)
    device = next(target.parameters()).device
    counts = dict(target_passes=0, draft_passes=0, proposed=0, accepted=0, tokens=0)
    out = []
    for prompt, n in zip(prompts, budgets):
        source, written = prompt[:-1], [prompt[-1]]  # <sep>, then the tokens kept
        t_cache, d_cache = KVCache(), KVCache()
        while len(written) - 1 < n and written[-1] != eos:
            sequence = source + written
            guesses = []  # the draft's, one pass each, its cache catching up first
            for _ in range(min(k, n - (len(written) - 1) - 1)):
                feed = (sequence + guesses)[d_cache.length :]
                logits = draft.forward_step(torch.tensor([feed], device=device), d_cache)
                guesses += greedy(logits[:, -1], [written + guesses], [source], guard_args)
                counts["draft_passes"] += 1
                if guesses[-1] == eos:
                    break
            # one target pass over what its cache lacks: the last kept token and the guesses
            feed = (sequence + guesses)[t_cache.length :]
            logits = target.forward_step(torch.tensor([feed], device=device), t_cache)[0]
            counts["target_passes"] += 1
            # (len(feed), V): the last len(guesses) + 1 rows choose after each guess
            checks = logits[len(feed) - len(guesses) - 1 :]
            for j in range(len(guesses) + 1):
                choice = greedy(checks[j : j + 1], [written], [source], guard_args)[0]
                written.append(choice)
                agrees = j < len(guesses) and choice == guesses[j]
                counts["accepted"] += agrees
                if not agrees or choice == eos:
                    break
            counts["proposed"] += len(guesses)
            kept = len(source) + len(written) - 1  # positions both caches may keep
            truncate(t_cache, min(t_cache.length, kept))
            truncate(d_cache, min(d_cache.length, kept))
        counts["tokens"] += len(written) - 1
        out.append([t for t in written[1:] if t != eos])
    return out, counts
