"""A paged KV cache: keys and values in fixed-size blocks of one shared pool (Kwon et al. 2023,
PagedAttention).

Chapter 10's ``KVCache`` gives each sequence one contiguous tensor that grows as it writes. A
server decoding many sentences at once cannot grow tensors in place, so the simple way is to
reserve, for every sequence, room for the longest it may become (``max_len`` positions). Most
sentences stop long before: the reserved room they never use is lost to every other sequence.

Paging does what an operating system does with memory. The pool is cut into blocks of
``block_size`` positions; a sequence gets a block when it needs one, and its *block table*
lists its blocks in order. Position ``p`` of a sequence lives in block ``table[p //
block_size]`` at slot ``p % block_size``. Attention reads a sequence's keys by gathering its
blocks through its table; a finished sequence gives its blocks back and the next one reuses
them. What is wasted is only the unused end of each sequence's last block.

``CacheAccount`` and ``cache_account`` count the bytes of both ways; ``BlockPool`` is the
pool, ``PagedKVCache`` the tables over it, ``paged_generate`` decodes a batch of prompts of
different lengths through it, admitting new ones as finished ones free their blocks.
``block_tables`` works out, without a model, the tables that decoding hands a batch: what
chapter 17's explorer draws.

Derived in chapter 17 (Attention at serving scale).

Shape letters: ``R`` rows decoded together, ``T`` positions fed at this step, ``N`` blocks of
the model (layers), ``M`` blocks of the pool, ``b`` positions per block, ``n`` blocks in a
table, ``H`` heads, ``Dh`` the width of one head, ``V`` the vocabulary size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from ..checks import whole_number
from ..translation.gpt import GPT
from ..translation.guards import MAX_RUN, NO_REPEAT_NGRAM, check_guard
from .step import bytes_per_position, check_prompts, check_served, embed, greedy, model_step

__all__ = [
    "CacheAccount",
    "cache_account",
    "block_tables",
    "BlockPool",
    "PagedKVCache",
    "paged_generate",
]


@dataclass(frozen=True)
class CacheAccount:
    """The bytes a batch of sequences costs in the cache, reserved contiguously or paged."""

    sequences: int
    used_bytes: int  # the positions the sequences really hold
    contiguous_bytes: int  # every sequence reserved at max_len positions
    paged_bytes: int  # the blocks the sequences hold, whole blocks counted

    @property
    def contiguous_waste(self) -> float:
        """The share of the contiguous reservation no position uses."""
        return 1 - self.used_bytes / self.contiguous_bytes

    @property
    def paged_waste(self) -> float:
        """The share of the paged blocks no position uses: the ends of the last blocks."""
        return 1 - self.used_bytes / self.paged_bytes


def cache_account(lengths, max_len: int, block_size: int, position_bytes: int) -> CacheAccount:
    """The bytes of sequences of ``lengths`` positions: used, reserved at ``max_len`` each, and
    held as blocks of ``block_size`` positions (``ceil(length / block_size)`` blocks each).
    ``position_bytes`` is one position's keys and values over every layer
    (``bytes_per_position``)."""
    lengths = [whole_number("lengths[i]", n, 1) for n in lengths]
    max_len = whole_number("max_len", max_len, 1)
    block_size = whole_number("block_size", block_size, 1, hint="positions per block")
    if not lengths:
        raise ValueError("cache_account needs at least one sequence length, got none")
    if max(lengths) > max_len:
        raise ValueError(
            f"a sequence has {max(lengths)} positions but max_len={max_len}: a contiguous cache "
            "reserves max_len, so no sequence may be longer"
        )
    blocks = sum(math.ceil(n / block_size) for n in lengths)
    return CacheAccount(
        sequences=len(lengths),
        used_bytes=sum(lengths) * position_bytes,
        contiguous_bytes=len(lengths) * max_len * position_bytes,
        paged_bytes=blocks * block_size * position_bytes,
    )


def block_tables(prompt_lengths, lengths, block_size: int) -> list[list[int]]:
    """The block table each sequence holds when it finishes, as ``paged_generate`` hands them out
    when the whole batch decodes at once from a pool large enough for all: sequence ``i`` reads
    its ``prompt_lengths[i]`` positions in one pass (in batch order), then every running sequence
    adds one position a step until it holds ``lengths[i]``; a finished one gives its blocks back
    and the next block taken is the last one given back. Block ids count from 0. Pure Python,
    no model: the same tables as ``paged_generate(...)[1]["tables"]`` (the tests compare them).

    Derived in chapter 17 (Attention at serving scale).
    """
    block_size = whole_number("block_size", block_size, 1, hint="positions per block")
    prompts = [whole_number("prompt_lengths[i]", n, 1) for n in prompt_lengths]
    lengths = [whole_number("lengths[i]", n, 1) for n in lengths]
    if len(prompts) != len(lengths) or not lengths:
        raise ValueError(
            f"expected one prompt length per sequence length, at least one, got {len(prompts)} "
            f"and {len(lengths)}"
        )
    short = [i for i, (p, n) in enumerate(zip(prompts, lengths)) if n < p]
    if short:
        raise ValueError(
            f"sequence {short[0]} holds {lengths[short[0]]} positions but its prompt has "
            f"{prompts[short[0]]}: a sequence holds at least its prompt"
        )
    free = list(range(sum(math.ceil(n / block_size) for n in lengths) - 1, -1, -1))
    tables: list[list[int]] = [[] for _ in lengths]
    held = [0] * len(lengths)
    final: list = [None] * len(lengths)

    def reserve(i: int, T: int) -> None:
        while len(tables[i]) * block_size < held[i] + T:
            tables[i].append(free.pop())
        held[i] += T

    for i, p in enumerate(prompts):
        reserve(i, p)
    running = list(range(len(lengths)))
    while running:
        for i in [i for i in running if held[i] >= lengths[i]]:  # finished: blocks go back
            running.remove(i)
            final[i] = list(tables[i])
            free.extend(tables[i])
        for i in running:
            reserve(i, 1)
    return final


class BlockPool:
    """``num_blocks`` blocks of ``block_size`` positions, keys and values of every layer:
    ``k`` and ``v`` are ``(N, M, H, b, Dh)``. ``take`` hands out a free block, ``give_back``
    returns one; a block given back is the next one taken."""

    def __init__(self, model: GPT, num_blocks: int, block_size: int = 16, dtype=torch.float32):
        check_served(model)
        self.num_blocks = whole_number("num_blocks", num_blocks, 1, hint="blocks in the pool")
        self.block_size = whole_number("block_size", block_size, 1, hint="positions per block")
        c = model.config
        shape = (c.num_layers, num_blocks, c.num_heads, block_size, c.d_model // c.num_heads)
        device = next(model.parameters()).device
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.position_bytes = bytes_per_position(model, self.k.element_size())
        self._free = list(range(num_blocks - 1, -1, -1))  # pop() gives block 0 first

    @property
    def free_blocks(self) -> int:
        return len(self._free)

    def take(self) -> int:
        if not self._free:
            raise ValueError(
                f"the pool's {self.num_blocks} blocks of {self.block_size} positions are all held: "
                "give it more blocks (num_blocks), or decode fewer sequences at once (max_batch)"
            )
        return self._free.pop()

    def give_back(self, block: int) -> None:
        self._free.append(block)


class PagedKVCache:
    """One block table per sequence over a shared ``BlockPool``.

    ``add(seq)`` starts an empty sequence, ``reserve(seq, T)`` makes room for ``T`` more
    positions (taking blocks as the table needs them), ``free(seq)`` gives its blocks back.
    ``attention(seqs, T)`` is the ``attend`` of ``tutorlib.serving.step.model_step`` for rows
    ``seqs`` that each feed ``T`` new positions: it writes their keys and values into their
    blocks and reads every earlier one back through the tables.
    """

    def __init__(self, pool: BlockPool):
        self.pool = pool
        self.tables: dict = {}  # seq -> its blocks, in order
        self.lengths: dict = {}  # seq -> positions stored

    def add(self, seq) -> None:
        if seq in self.tables:
            raise ValueError(f"sequence {seq!r} is already in the cache: free it first")
        self.tables[seq], self.lengths[seq] = [], 0

    def reserve(self, seq, T: int) -> None:
        table, b = self.tables[seq], self.pool.block_size
        while len(table) * b < self.lengths[seq] + T:
            table.append(self.pool.take())

    def needs_block(self, seq) -> bool:
        """Whether one more position of ``seq`` needs a new block: its last one is full."""
        return len(self.tables[seq]) * self.pool.block_size <= self.lengths[seq]

    def free(self, seq) -> None:
        for block in self.tables.pop(seq):
            self.pool.give_back(block)
        del self.lengths[seq]

    def held_bytes(self) -> int:
        """The bytes of the blocks the sequences hold now."""
        blocks = sum(len(t) for t in self.tables.values())
        return blocks * self.pool.block_size * self.pool.position_bytes

    def attention(self, seqs: list, T: int):
        """``attend(layer, q, k, v)`` for rows ``seqs`` feeding ``T`` positions each, after their
        ``lengths``; call ``advance(seqs, T)`` once the step is done."""
        b, device = self.pool.block_size, self.pool.k.device
        starts = [self.lengths[s] for s in seqs]
        for s in seqs:
            self.reserve(s, T)
        # where each new position goes: the block its table names and the slot in it, row by row
        where = [(s, divmod(start + j, b)) for s, start in zip(seqs, starts) for j in range(T)]
        blocks = torch.tensor([self.tables[s][i] for s, (i, _) in where], device=device)
        slots = torch.tensor([slot for _, (_, slot) in where], device=device)  # (R * T,)
        # the tables, padded to the longest with block 0 (its positions are masked out): (R, n)
        n = max(len(self.tables[s]) for s in seqs)
        padded = [self.tables[s] + [0] * (n - len(self.tables[s])) for s in seqs]
        tables = torch.tensor(padded, device=device)
        # (R, 1, T, n * b): new position j of row r reads the positions up to start_r + j
        cols = torch.arange(n * b, device=device)
        last = torch.tensor(starts, device=device)[:, None] + torch.arange(T, device=device)
        mask = (cols <= last[:, :, None])[:, None]
        R = len(seqs)

        def attend(layer: int, q, k, v):
            k_pool, v_pool = self.pool.k[layer], self.pool.v[layer]  # (M, H, b, Dh) each
            # (R, H, T, Dh) -> (R * T, H, Dh) into (block, :, slot)
            k_pool[blocks, :, slots] = k.transpose(1, 2).reshape(R * T, *k.shape[1::2])
            v_pool[blocks, :, slots] = v.transpose(1, 2).reshape(R * T, *v.shape[1::2])
            # (R, n) through the pool -> (R, n, H, b, Dh) -> (R, H, n, b, Dh) -> (R, H, n * b, Dh)
            keys = k_pool[tables].transpose(1, 2).flatten(2, 3)
            values = v_pool[tables].transpose(1, 2).flatten(2, 3)
            # (R, H, T, Dh), (R, H, n * b, Dh) x2 -> (R, H, T, Dh)
            return F.scaled_dot_product_attention(q, keys, values, attn_mask=mask)

        return attend

    def advance(self, seqs: list, T: int) -> None:
        for s in seqs:
            self.lengths[s] += T


@torch.no_grad()
def paged_generate(
    model: GPT,
    prompts,
    budget,
    *,
    block_size: int = 16,
    num_blocks: int | None = None,
    max_batch: int | None = None,
    max_run: int | None = MAX_RUN,
    no_repeat_ngram: int | None = NO_REPEAT_NGRAM,
) -> tuple[list[list[int]], dict]:
    """Greedy decoding of ``prompts`` (lists of ids, each ``[src] <sep>``, of any lengths)
    through a ``PagedKVCache``: ``(each prompt's new tokens without <eos>, what the pool did)``.

    The tokens are ``generate``'s (greedy, the same repetition guard), whatever the mix of
    lengths. At most ``max_batch`` sequences decode together (all by default); a waiting one is
    admitted when the pool has blocks for it, as running ones finish and give theirs back. When
    the running ones need more blocks than are free, the last admitted is preempted: its blocks
    go back and it waits, to read its prompt and its words again when admitted. ``budget`` is an
    int or one per prompt (``output_budget``). ``num_blocks`` defaults to what every sequence
    at its longest would hold. The dict says ``blocks_taken`` (blocks handed out in all),
    ``peak_blocks`` (held at once), ``num_blocks``, ``block_size``, ``preempted`` and
    ``tables`` (the block table each sequence held when it finished).

    Derived in chapter 17 (Attention at serving scale).
    """
    check_served(model)
    check_guard(max_run, no_repeat_ngram)
    prompts, budgets = check_prompts(model, prompts, budget)
    b = whole_number("block_size", block_size, 1, hint="positions per block")
    longest = [math.ceil((len(p) + n - 1) / b) for p, n in zip(prompts, budgets)]
    pool = BlockPool(model, num_blocks or sum(longest), b)
    cache = PagedKVCache(pool)
    max_batch = whole_number("max_batch", max_batch or len(prompts), 1)
    eos = model.tokenizer.eos_id
    guard_args = (max_run, no_repeat_ngram, eos)
    written = [[p[-1]] for p in prompts]  # <sep>, then what each row writes
    waiting, running = list(range(len(prompts))), []
    taken, peak = 0, 0
    preempted = 0
    tables: list = [None] * len(prompts)  # the table each held when it finished
    while waiting or running:
        while waiting and len(running) < max_batch:  # admit: read all it has in one pass
            i = waiting[0]
            fed = prompts[i] + written[i][1:]  # the prompt, and what it wrote before a preemption
            if pool.free_blocks < math.ceil((len(fed) + 1) / b):
                if running:
                    break  # it waits for blocks to come back
                raise ValueError(
                    f"a sequence of {len(fed) + 1} positions does not fit the pool's "
                    f"{pool.num_blocks} blocks of {b}: give it more blocks (num_blocks)"
                )
            waiting.pop(0)
            cache.add(i)
            before = pool.free_blocks
            tokens = torch.tensor([fed], device=pool.k.device)  # (1, P + written)
            x = model_step(model, embed(model, tokens, [0]), cache.attention([i], len(fed)))
            cache.advance([i], len(fed))
            taken += before - pool.free_blocks
            running.append(i)
            written[i].append(greedy(x[:, -1], [written[i]], [prompts[i][:-1]], guard_args)[0])
        done = [i for i in running if written[i][-1] == eos or len(written[i]) > budgets[i]]
        for i in done:  # its blocks go back to the pool for the next one waiting
            running.remove(i)
            tables[i] = list(cache.tables[i])
            cache.free(i)
        peak = max(peak, pool.num_blocks - pool.free_blocks)
        if done or not running:
            continue
        # no block for every row that needs one: the last admitted gives its blocks back and
        # waits; when admitted again it reads its prompt and its words anew (preemption by
        # recomputation)
        while sum(cache.needs_block(i) for i in running) > pool.free_blocks:
            victim = running.pop()
            cache.free(victim)
            waiting.insert(0, victim)
            preempted += 1
        # one new position for every running row, each at its own length
        before = pool.free_blocks
        tokens = torch.tensor([[written[i][-1]] for i in running], device=pool.k.device)  # (R, 1)
        starts = [cache.lengths[i] for i in running]
        logits = model_step(model, embed(model, tokens, starts), cache.attention(running, 1))
        cache.advance(running, 1)
        taken += before - pool.free_blocks
        peak = max(peak, pool.num_blocks - pool.free_blocks)
        rows = [written[i] for i in running]
        chosen = greedy(logits[:, -1], rows, [prompts[i][:-1] for i in running], guard_args)
        for i, token in zip(running, chosen):
            written[i].append(token)
    out = [[t for t in w[1:] if t != eos] for w in written]
    stats = {"blocks_taken": taken, "peak_blocks": peak, "num_blocks": pool.num_blocks,
             "block_size": b, "preempted": preempted, "tables": tables}  # fmt: skip
    return out, stats
