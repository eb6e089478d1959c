"""Exercise 12's graded bug hunt: a translator's attention with one bug planted per learner.

``broken_component(learner_id)`` hands a learner the attention function of a translator,
``attention(q, k, v, key_lengths, causal=False)`` (masked scaled dot-product attention,
returning ``(output, weights)``), with one bug from ``BUGS`` planted in it. The learner finds
the bug with ``tutorlib.debug``'s checks (chapter 12), names it and writes the fixed function;
the grader recomputes the bug from the learner id and checks the fix on fresh inputs against
a reference of its own.

The rule, so that an instructor can check it by hand::

    h = int(hashlib.sha256(learner_id.strip().encode("utf-8")).hexdigest(), 16)
    bug = BUGS[h % len(BUGS)]

Every component this module hands out is broken, and the module holds only those: each of the
six is written out whole with its bug, and no right line is kept apart from them, so nothing here
rebuilds a correct attention to hand in instead of a fix (the tests hold the one-line repairs).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

__all__ = ["BUGS", "BUG_DESCRIPTIONS", "Component", "broken_component"]

BUGS = (
    "mask_polarity",
    "padding_axis",
    "softmax_axis",
    "missing_scale",
    "target_leak",
    "causal_transposed",
)

BUG_DESCRIPTIONS = {
    "mask_polarity": "the mask hides the positions it should let through, and the reverse",
    "padding_axis": "the padding mask hides queries (rows), not keys (columns)",
    "softmax_axis": "the softmax normalises over the wrong axis",
    "missing_scale": "the scores are not divided by sqrt(d_k)",
    "target_leak": "each position also reads the next one, the word it must predict",
    "causal_transposed": "the causal mask lets each position see the later ones",
}

# The six components as handed out, each written out whole with its bug in place (issue 32,
# fault 10: the module used to keep the right lines apart, and rebuilt the right attention
# from them). A bug hunt hands out evidence; the fix is the learner's.
_SOURCES = {
    "mask_polarity": '''\
def attention(q, k, v, key_lengths, causal=False):
    """Masked scaled dot-product attention: returns (output, weights).

    q (B, T_q, d), k and v (B, T_k, d). In sequence b the keys at or after
    key_lengths[b] are padding. causal=True (self-attention, T_q == T_k) also hides
    the keys after each query. output (B, T_q, d), weights (B, T_q, T_k).
    """
    T_q, T_k, d_k = q.shape[1], k.shape[1], q.shape[-1]
    keep = torch.arange(T_k)[None, :] < key_lengths[:, None]  # (B, T_k): True on words
    mask = keep[:, None, :]  # True = may attend
    if causal:
        causal_mask = torch.ones(T_q, T_k, dtype=torch.bool).tril()
        mask = mask & causal_mask[None, :, :]  # (B, T_q, T_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    scores = scores.masked_fill(mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
''',
    "padding_axis": '''\
def attention(q, k, v, key_lengths, causal=False):
    """Masked scaled dot-product attention: returns (output, weights).

    q (B, T_q, d), k and v (B, T_k, d). In sequence b the keys at or after
    key_lengths[b] are padding. causal=True (self-attention, T_q == T_k) also hides
    the keys after each query. output (B, T_q, d), weights (B, T_q, T_k).
    """
    T_q, T_k, d_k = q.shape[1], k.shape[1], q.shape[-1]
    keep = torch.arange(T_k)[None, :] < key_lengths[:, None]  # (B, T_k): True on words
    mask = keep[:, :, None]  # True = may attend
    if causal:
        causal_mask = torch.ones(T_q, T_k, dtype=torch.bool).tril()
        mask = mask & causal_mask[None, :, :]  # (B, T_q, T_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
''',
    "softmax_axis": '''\
def attention(q, k, v, key_lengths, causal=False):
    """Masked scaled dot-product attention: returns (output, weights).

    q (B, T_q, d), k and v (B, T_k, d). In sequence b the keys at or after
    key_lengths[b] are padding. causal=True (self-attention, T_q == T_k) also hides
    the keys after each query. output (B, T_q, d), weights (B, T_q, T_k).
    """
    T_q, T_k, d_k = q.shape[1], k.shape[1], q.shape[-1]
    keep = torch.arange(T_k)[None, :] < key_lengths[:, None]  # (B, T_k): True on words
    mask = keep[:, None, :]  # True = may attend
    if causal:
        causal_mask = torch.ones(T_q, T_k, dtype=torch.bool).tril()
        mask = mask & causal_mask[None, :, :]  # (B, T_q, T_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=1)
    return weights @ v, weights
''',
    "missing_scale": '''\
def attention(q, k, v, key_lengths, causal=False):
    """Masked scaled dot-product attention: returns (output, weights).

    q (B, T_q, d), k and v (B, T_k, d). In sequence b the keys at or after
    key_lengths[b] are padding. causal=True (self-attention, T_q == T_k) also hides
    the keys after each query. output (B, T_q, d), weights (B, T_q, T_k).
    """
    T_q, T_k, d_k = q.shape[1], k.shape[1], q.shape[-1]
    keep = torch.arange(T_k)[None, :] < key_lengths[:, None]  # (B, T_k): True on words
    mask = keep[:, None, :]  # True = may attend
    if causal:
        causal_mask = torch.ones(T_q, T_k, dtype=torch.bool).tril()
        mask = mask & causal_mask[None, :, :]  # (B, T_q, T_k)
    scores = q @ k.transpose(-2, -1)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
''',
    "target_leak": '''\
def attention(q, k, v, key_lengths, causal=False):
    """Masked scaled dot-product attention: returns (output, weights).

    q (B, T_q, d), k and v (B, T_k, d). In sequence b the keys at or after
    key_lengths[b] are padding. causal=True (self-attention, T_q == T_k) also hides
    the keys after each query. output (B, T_q, d), weights (B, T_q, T_k).
    """
    T_q, T_k, d_k = q.shape[1], k.shape[1], q.shape[-1]
    keep = torch.arange(T_k)[None, :] < key_lengths[:, None]  # (B, T_k): True on words
    mask = keep[:, None, :]  # True = may attend
    if causal:
        causal_mask = torch.ones(T_q, T_k, dtype=torch.bool).tril(1)
        mask = mask & causal_mask[None, :, :]  # (B, T_q, T_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
''',
    "causal_transposed": '''\
def attention(q, k, v, key_lengths, causal=False):
    """Masked scaled dot-product attention: returns (output, weights).

    q (B, T_q, d), k and v (B, T_k, d). In sequence b the keys at or after
    key_lengths[b] are padding. causal=True (self-attention, T_q == T_k) also hides
    the keys after each query. output (B, T_q, d), weights (B, T_q, T_k).
    """
    T_q, T_k, d_k = q.shape[1], k.shape[1], q.shape[-1]
    keep = torch.arange(T_k)[None, :] < key_lengths[:, None]  # (B, T_k): True on words
    mask = keep[:, None, :]  # True = may attend
    if causal:
        causal_mask = torch.ones(T_q, T_k, dtype=torch.bool).triu()
        mask = mask & causal_mask[None, :, :]  # (B, T_q, T_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
''',
}


@dataclass(frozen=True)
class Component:
    """A learner's broken attention: its source (``print(component)``) and the function."""

    learner_id: str
    source: str
    attention: Callable = field(repr=False)

    def __str__(self) -> str:
        return self.source


def _rule(learner_id) -> str:
    """The bug planted for ``learner_id``: the documented rule."""
    if not isinstance(learner_id, str) or not learner_id.strip():
        raise ValueError(
            f"learner_id must be a non-empty string (your student number, or the id "
            f"your instructor gave you), got {learner_id!r}: write it in the cell"
        )
    h = int(hashlib.sha256(learner_id.strip().encode("utf-8")).hexdigest(), 16)
    return BUGS[h % len(BUGS)]


def broken_component(learner_id: str) -> Component:
    """The attention function with the bug that ``learner_id`` gets planted in it.

    ``print(component)`` shows the source to read and copy; ``component.attention`` runs it,
    for ``tutorlib.debug``'s checks. Introduced in exercise 12.
    """
    source = _SOURCES[_rule(learner_id)]
    namespace = {"torch": torch, "math": math}
    exec(compile(source, f"<component of {learner_id.strip()!r}>", "exec"), namespace)
    return Component(learner_id.strip(), source, namespace["attention"])
