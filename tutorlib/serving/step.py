"""One step of the course's GPT with its keys and values kept somewhere else than a ``KVCache``.

``GPT.forward_step`` appends each block's new keys and values to a ``KVCache`` of contiguous
tensors. A server keeps them elsewhere: in the blocks of a shared pool (``paged``), rounded to
8 or 4 bits (``quantized``). Everything else in a step is the GPT's own: its embedding, its
positions, each block's norms, projections and feed-forward, its final norm and logits. This
module runs those parts and asks an ``attend(layer, q, k, v)`` function for the attention,
so that each kind of cache is only its ``attend``. ``greedy`` is ``generate``'s greedy choice
with the translator's repetition guard, for rows of different lengths.

Shape letters (the book's notation page): ``R`` rows (sequences decoded together), ``T``
positions fed at this step, ``D`` = ``d_model``, ``H`` heads, ``Dh = D // H``, ``N`` blocks,
``V`` the vocabulary size.

Derived in chapter 17 (Attention at serving scale).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..nn import MultiHeadAttention, merge_heads, split_heads
from ..translation.data import tokenize
from ..translation.gpt import GPT, Block, SubwordTokenizer
from ..translation.guards import guard, output_budget

__all__ = [
    "check_served",
    "prompts_of",
    "check_prompts",
    "bytes_per_position",
    "embed",
    "model_step",
    "greedy",
]


def check_served(model) -> None:
    """A ``ValueError`` unless ``model`` is chapter 13's GPT: its blocks are ``Block`` s with
    chapter 5's heads, which is what this package's steps re-run.

    Chapter 15's ``ModernGPT`` rotates its keys (RoPE) and groups its heads inside its own
    attention, so its cache would hold other numbers than the ones computed here.
    """
    plain = [type(b) is Block and type(b.self_attn) is MultiHeadAttention for b in model.blocks]
    if not isinstance(model, GPT) or not all(plain):
        kind = type(model).__name__
        raise ValueError(
            f"tutorlib.serving serves chapter 13's GPT (plain Blocks and sinusoids), got {kind}: "
            "load one with tutorlib.translation.gpt.checkpoints.load_pretrained()"
        )
    if model.training:
        model.eval()  # no dropout while serving


def prompts_of(model: GPT, sentences) -> tuple[list[list[int]], list[int]]:
    """Each English sentence's prompt ``[src] <sep>`` as ids, and its budget (``output_budget``,
    the positions the prompt leaves): what ``tutorlib.translation.gpt.decoding.translate`` hands
    ``generate``, without its checks, typo reading and splitting (use phrasebook sentences)."""
    tok = model.tokenizer
    prompts = []
    for sentence in sentences:
        if isinstance(tok, SubwordTokenizer):
            ids = tok.encode(tok.normalize(sentence))
        else:
            ids = model.vocab.encode([w.lower() for w in tokenize(sentence)], warn_unknown=False)
        prompts.append([*ids, tok.sep_id])
    c = model.config
    budgets = [int(output_budget(len(p) - 1, c.max_len - len(p) + 1, None)) for p in prompts]
    return prompts, budgets


def check_prompts(model: GPT, prompts, budget) -> tuple[list[list[int]], list[int]]:
    """``prompts`` as lists of ids and ``budget`` as one int per prompt, checked: a
    ``ValueError`` says what was expected and what came."""
    if isinstance(prompts, torch.Tensor):
        prompts = prompts.tolist()
    prompts = [[int(i) for i in p] for p in prompts]
    if not prompts or not all(prompts):
        raise ValueError(
            "expected prompts of token ids, each [src] <sep> (prompts_of makes them), got "
            f"{'no prompt' if not prompts else 'an empty prompt'}"
        )
    budgets = [budget] * len(prompts) if isinstance(budget, int) else list(budget)
    if len(budgets) != len(prompts):
        raise ValueError(
            f"{len(prompts)} prompt{'s' * (len(prompts) != 1)} but {len(budgets)} budgets: give "
            "one per prompt"
        )
    for i, (p, n) in enumerate(zip(prompts, budgets)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(
                f"budget {i} must be a whole number of tokens, at least 1, got {n!r} "
                "(output_budget gives the translator's)"
            )
        model._check_length(len(p) + n - 1)  # the last token written is never read
    return prompts, budgets


def bytes_per_position(model: GPT, element_size: int = 4) -> int:
    """The bytes one position of one sequence costs in the cache: a key and a value per block,
    ``2 x N x H x Dh`` numbers of ``element_size`` bytes (4 for float32)."""
    c = model.config
    return 2 * c.num_layers * c.d_model * element_size  # H x Dh = D


def embed(model: GPT, tokens: torch.Tensor, starts: list[int]) -> torch.Tensor:
    """``tokens (R, T)``, row ``r`` at positions ``starts[r]`` on -> ``(R, T, D)``: the GPT's
    embedding times sqrt(D) and its position step, row by row (the rows may stand at different
    positions)."""
    x = model.embed(tokens) * math.sqrt(model.config.d_model)  # (R, T) -> (R, T, D)
    return torch.cat([model.add_positions(x[r : r + 1], start=s) for r, s in enumerate(starts)])


Attend = Callable[[int, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


def _self_attention(block: Block, layer: int, x: torch.Tensor, attend: Attend) -> torch.Tensor:
    heads = block.self_attn
    # (R, T, D) -> (R, H, T, Dh), each
    q = split_heads(heads.w_q(x), heads.num_heads)
    k = split_heads(heads.w_k(x), heads.num_heads)
    v = split_heads(heads.w_v(x), heads.num_heads)
    out = attend(layer, q, k, v)  # (R, H, T, Dh): the cache stores k, v and reads them back
    return heads.w_o(merge_heads(out))  # (R, H, T, Dh) -> (R, T, D) -> (R, T, D)


@torch.no_grad()
def model_step(model: GPT, x: torch.Tensor, attend: Attend) -> torch.Tensor:
    """The GPT's blocks, norm and logits on embedded positions ``x (R, T, D)`` -> ``(R, T, V)``,
    with ``attend(layer, q, k, v)`` as the attention of block ``layer``: it stores the new keys
    and values ``(R, H, T, Dh)``, reads them back with the earlier ones and returns ``(R, H, T,
    Dh)``. ``Block.forward_step`` in eval mode, with the cache taken out."""
    for layer, block in enumerate(model.blocks):
        if block.norm_first:
            x = x + _self_attention(block, layer, block.norm1(x), attend)
            x = x + block.feed_forward(block.norm2(x))
        else:
            x = block.norm1(x + _self_attention(block, layer, x, attend))
            x = block.norm2(x + block.feed_forward(x))
    if model.norm is not None:
        x = model.norm(x)
    return model.generator(x)  # (R, T, D) -> (R, T, V)


def greedy(
    logits: torch.Tensor, written: list[list[int]], sources: list[list[int]], guard_args: tuple
) -> list[int]:
    """``generate``'s greedy choice for each row of ``logits (R, V)``: the most probable token
    once the repetition guard has banned its loops. ``written[r]`` is ``<sep>`` and the tokens
    row ``r`` wrote, ``sources[r]`` its source ids, ``guard_args`` ``(max_run, no_repeat_ngram,
    eos_id)``."""
    log_probs = torch.log_softmax(logits.float(), dim=-1)  # (R, V)
    chosen = []
    for r, row in enumerate(log_probs):
        tokens = torch.tensor([written[r]], device=logits.device)  # (1, 1 + n)
        source = torch.tensor([sources[r]], device=logits.device)  # (1, S)
        row = guard(row[None], tokens, *guard_args, source=source)  # (1, V)
        chosen.append(int(row.argmax()))
    return chosen
