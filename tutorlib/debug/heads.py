"""What the heads learned: switch heads off, score where they look, and grow induction heads.

Three questions about a trained model's attention heads, each answered by
measurement rather than by looking at one heat map:

- **What does removing a head break?** ``ablate_heads`` switches heads off
  while a ``with`` block runs, without touching the weights: ``"zero"`` sets
  the head's output to 0 before :math:`W^O` mixes the heads, ``"mean"``
  replaces it by its average over a reference batch (``head_means``).
  ``ablation_costs`` measures the BLEU each head costs.
- **Where do its weights point?** ``pattern_scores`` averages a head's weight
  on chosen keys (the previous token, itself, the first token, punctuation,
  the aligned source word); ``head_pattern_scores`` does it for every head
  of the translator or a GPT.
- **Can we watch a head learn a job?** ``AttentionOnly`` is a two-layer,
  attention-only Transformer; ``train_induction`` trains it on random tokens
  whose second half repeats the first. It learns to copy by pairing a
  previous-token head in layer 0 with an induction head in layer 1 (Olsson et
  al., 2022), which ``previous_token_scores`` and ``induction_scores`` find.

Attention kinds: a translator has ``"encoder"`` (the encoder's
self-attention), ``"decoder"`` (the decoder's masked self-attention) and
``"cross"``; a decoder-only model (the GPTs, ``AttentionOnly``) has
``"self"``. Shape letters as everywhere in tutorlib: ``B`` batch, ``H``
heads, ``T_q`` queries, ``T_k`` keys, ``D`` width, ``Dh = D // H``.

Derived in chapter 16 (What the heads learned).
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from contextlib import contextmanager

import torch
import torch.nn.functional as F
from torch import nn

from ..nn import MultiHeadAttention, causal_attention_mask
from ..translation.data import PAD_ID, is_punctuation, make_batches, tokenize
from ..translation.evaluation import evaluate
from ..translation.gpt.batches import make_gpt_batches
from ..translation.phrasebook.grammar import english_words, portuguese_words
from ..translation.phrasebook.lexicon import NOUNS
from .attention_weights import attention_maps

__all__ = [
    "attention_kinds",
    "attention_modules",
    "head_means",
    "ablate_heads",
    "ablation_costs",
    "pattern_scores",
    "head_pattern_scores",
    "spelled_alike",
    "false_friends",
    "AttentionOnly",
    "repeated_tokens",
    "train_induction",
    "previous_token_scores",
    "induction_scores",
    "copying_scores",
]

HOWS = ("zero", "mean")


# --- which attentions a model has ----------------------------------------------------------------


def attention_kinds(model: nn.Module) -> tuple[str, ...]:
    """The attention kinds of ``model``: ``("encoder", "decoder", "cross")`` for an
    encoder-decoder translator, ``("self",)`` for a model whose ``blocks`` each hold a
    ``self_attn`` (the GPTs, ``AttentionOnly``)."""
    if hasattr(model, "encoder") and hasattr(model, "decoder"):
        return ("encoder", "decoder", "cross")
    blocks = getattr(model, "blocks", None)
    if blocks is not None and all(hasattr(b, "self_attn") for b in blocks):
        return ("self",)
    raise ValueError(
        f"{type(model).__name__} is neither the course's translator (encoder and decoder) nor a "
        "stack of blocks with self_attn (a GPT, AttentionOnly): no heads to name"
    )


def attention_modules(model: nn.Module, kind: str) -> list[MultiHeadAttention]:
    """The ``MultiHeadAttention`` of each layer of ``kind``, first layer first."""
    kinds = attention_kinds(model)
    if kind not in kinds:
        raise ValueError(f"{type(model).__name__} has attention kinds {kinds}, got kind={kind!r}")
    if kind == "self":
        modules = [b.self_attn for b in model.blocks]
    elif kind == "encoder":
        modules = [layer.self_attn for layer in model.encoder.layers]
    elif kind == "decoder":
        modules = [layer.self_attn for layer in model.decoder.layers]
    else:
        modules = [layer.cross_attn for layer in model.decoder.layers]
    if not all(isinstance(m, MultiHeadAttention) for m in modules):
        raise ValueError(
            f"the {kind} attention of {type(model).__name__} is not tutorlib's MultiHeadAttention, "
            "whose heads meet in one place (w_o) where they can be switched off"
        )
    return modules


def _check_heads(heads, num_layers: int, num_heads: int) -> list[tuple[int, int]]:
    """``(layer, head)`` or a list of them -> a checked list of pairs."""
    if isinstance(heads, tuple) and len(heads) == 2 and all(isinstance(i, int) for i in heads):
        heads = [heads]
    checked = []
    for pair in heads:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise ValueError(f"a head is named by a (layer, head) pair of ints, got {pair!r}")
        layer, head = pair
        if isinstance(layer, bool) or not (isinstance(layer, int) and 0 <= layer < num_layers):
            raise ValueError(
                f"layer must be an int from 0 to {num_layers - 1} (the model has {num_layers} "
                f"layers of this kind), got {layer!r}"
            )
        if isinstance(head, bool) or not (isinstance(head, int) and 0 <= head < num_heads):
            raise ValueError(
                f"head must be an int from 0 to {num_heads - 1} (each layer has {num_heads} "
                f"heads), got {head!r}"
            )
        checked.append((layer, head))
    return checked


# --- switching heads off --------------------------------------------------------------------------


def _teacher_batch(model: nn.Module, pairs: list) -> tuple:
    """One ``Batch`` of all ``pairs`` in order, and the pairs it kept (``make_batches`` leaves out
    those longer than the model's positions). Unknown words become ``<unk>`` quietly: the test
    sentences' numbers and names are unknown by design."""
    n = model.config.max_len
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        (batch,) = make_batches(
            pairs, model.src_vocab, model.tgt_vocab, len(pairs), shuffle=False, max_len=n
        )
    kept = [(e, p) for e, p in pairs if len(tokenize(e)) <= n and len(tokenize(p)) <= n - 1]
    return batch, kept


def _gpt_batch(model: nn.Module, pairs: list):
    """One ``GPTBatch`` of all ``pairs`` in order, in the model's own tokens."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        (batch,) = make_gpt_batches(
            pairs, model.tokenizer, len(pairs), shuffle=False, max_len=model.config.max_len
        )
    return batch


@contextmanager
def _evaluating(model: nn.Module):
    """``model`` in eval mode (no dropout) for the block, then back in the mode it was in."""
    was_training = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was_training)


def _reference_run(model: nn.Module, pairs) -> dict:
    """Run ``model`` on ``pairs`` (teacher forcing) and return each kind's query mask ``(B, T_q)``,
    True on real tokens, the padding left out."""
    pairs = list(pairs)
    if not pairs:
        raise ValueError("the reference needs at least one (english, portuguese) pair, got none")
    if attention_kinds(model) == ("self",):
        batch = _gpt_batch(model, pairs)
        with _evaluating(model):
            model(batch.tokens)
        return {"self": batch.real_mask}
    batch, _ = _teacher_batch(model, pairs)
    with _evaluating(model):
        model(batch)
    real_tgt = batch.tgt_in != PAD_ID  # (B, T): the decoder's queries
    return {"encoder": batch.src != PAD_ID, "decoder": real_tgt, "cross": real_tgt}


@torch.no_grad()
def head_means(model: nn.Module, pairs) -> dict:
    """Each head's mean output over the real tokens of ``pairs``: ``{kind: (L, H, Dh)}``.

    The output of a head is what it hands to :math:`W^O`, one ``Dh``-wide
    vector per query. Mean ablation puts this average in place of the head's
    output: the layer still receives a typical vector, but one that no longer
    depends on the sentence. ``pairs`` are ``(english, portuguese)`` strings,
    run teacher-forced in one batch.
    """
    seen, handles = {}, []
    for kind in attention_kinds(model):
        for i, m in enumerate(attention_modules(model, kind)):

            def grab(module, args, kind=kind, i=i):
                seen[kind, i] = args[0].detach()  # (B, T_q, D), the heads side by side

            handles.append(m.w_o.register_forward_pre_hook(grab))
    try:
        masks = _reference_run(model, pairs)
    finally:
        for h in handles:
            h.remove()
    means = {}
    for kind, mask in masks.items():
        rows = []
        for i, m in enumerate(attention_modules(model, kind)):
            x = seen[kind, i][mask]  # (N, D): the real queries only
            # (N, D) -> (N, H, Dh) -> (H, Dh)
            rows.append(x.view(-1, m.num_heads, m.d_head).mean(dim=0))
        means[kind] = torch.stack(rows)  # (L, H, Dh)
    return means


@contextmanager
def ablate_heads(model: nn.Module, kind: str, heads, how: str = "zero", means: dict | None = None):
    """Switch off ``heads`` (a ``(layer, head)`` pair or a list of them) of ``model``'s ``kind``
    attention while the ``with`` block runs.

    ::

        with ablate_heads(model, "cross", (2, 1)):
            print(translate("the red car", model))

    A hook on each layer's :math:`W^O` rewrites its input, the heads' outputs
    side by side ``(B, T_q, H * Dh)``, before the projection mixes them:
    ``how="zero"`` writes zeros into the head's ``Dh`` columns, ``how="mean"``
    its mean output ``means[kind][layer, head]`` (``head_means``). W^O's
    bias is still added: zeroing every head of a layer leaves the sublayer
    adding that bias alone. The weights are never edited, and the hooks are
    removed when the block ends, even on an error. The same hook serves
    teacher forcing and step-by-step decoding with a KV cache, since both end
    in ``w_o``.
    """
    if how not in HOWS:
        raise ValueError(f"how must be one of {HOWS}, got {how!r}")
    modules = attention_modules(model, kind)
    H, Dh = modules[0].num_heads, modules[0].d_head
    chosen = _check_heads(heads, len(modules), H)
    if how == "mean":
        expected = (len(modules), H, Dh)
        if means is None or kind not in means or tuple(means[kind].shape) != expected:
            got = None if means is None else {k: tuple(v.shape) for k, v in means.items()}
            raise ValueError(
                f"mean ablation needs means[{kind!r}] of shape {expected} (L, H, Dh), got {got}: "
                "compute them with head_means(model, reference_pairs)"
            )
    by_layer: dict[int, list[int]] = {}
    for layer, head in chosen:
        by_layer.setdefault(layer, []).append(head)
    handles = []

    def make_hook(layer: int, heads_here: list[int]):
        def hook(module, args):
            x = args[0]
            B, T, D = x.shape
            x = x.clone().view(B, T, H, Dh)  # (B, T_q, D) -> (B, T_q, H, Dh)
            for h in heads_here:
                x[:, :, h] = 0.0 if how == "zero" else means[kind][layer, h].to(x)
            return (x.view(B, T, D), *args[1:])

        return hook

    try:
        for layer, heads_here in by_layer.items():
            hook = make_hook(layer, heads_here)
            handles.append(modules[layer].w_o.register_forward_pre_hook(hook))
        yield model
    finally:
        for h in handles:
            h.remove()


def ablation_costs(
    model: nn.Module,
    pairs,
    kinds=None,
    how: str = "zero",
    reference=None,
    batch_size: int = 128,
) -> list[dict]:
    """The BLEU lost when each head alone is switched off: one row per head, largest cost first.

    Each row is ``{"kind", "layer", "head", "bleu", "cost"}``, ``cost`` the
    BLEU of the whole model minus the BLEU with that head ablated (greedy
    decoding, ``tutorlib.translation.evaluation.evaluate``). ``kinds``:
    all of the model's attention kinds by default. For ``how="mean"`` the
    means come from ``reference`` pairs (default: ``pairs`` themselves).
    """
    if how not in HOWS:
        raise ValueError(f"how must be one of {HOWS}, got {how!r}")
    pairs = list(pairs)
    kinds = attention_kinds(model) if kinds is None else tuple(kinds)
    for kind in kinds:
        attention_modules(model, kind)  # an unknown kind fails here, before any decoding
    means = head_means(model, pairs if reference is None else reference) if how == "mean" else None
    base = evaluate(model, pairs, batch_size=batch_size)["bleu"]
    rows = []
    for kind in kinds:
        modules = attention_modules(model, kind)
        for layer in range(len(modules)):
            for head in range(modules[layer].num_heads):
                with ablate_heads(model, kind, (layer, head), how, means):
                    bleu = evaluate(model, pairs, batch_size=batch_size)["bleu"]
                rows.append(
                    {"kind": kind, "layer": layer, "head": head, "bleu": bleu, "cost": base - bleu}
                )
    return sorted(rows, key=lambda r: -r["cost"])


# --- where the weights point ---------------------------------------------------------------------


def pattern_scores(weights: torch.Tensor, query_mask: torch.Tensor, targets: dict) -> dict:
    """Each head's average weight on the keys a pattern names: ``{name: (H,)}``.

    ``weights (B, H, T_q, T_k)`` are one layer's attention weights,
    ``query_mask (B, T_q)`` True on the queries to count, and each
    ``targets[name] (B, T_q, T_k)`` True on the keys that pattern names for
    each query (the previous token, the aligned word...). For head ``h`` the
    score is the weight a query puts on its named keys, summed, then averaged
    over the counted queries that name at least one key: 1 means the head
    looks nowhere else, and a uniform head scores the share of keys named.
    A pattern that names no key for any counted query scores NaN.
    """
    if not isinstance(weights, torch.Tensor) or weights.ndim != 4:
        got = tuple(weights.shape) if isinstance(weights, torch.Tensor) else type(weights).__name__
        raise ValueError(f"weights must be one layer's (B, H, T_q, T_k), got {got}")
    B, H, T_q, T_k = weights.shape
    if tuple(query_mask.shape) != (B, T_q):
        raise ValueError(f"query_mask must be (B, T_q) = {(B, T_q)}, got {tuple(query_mask.shape)}")
    scores = {}
    for name, target in targets.items():
        if tuple(target.shape) != (B, T_q, T_k):
            raise ValueError(
                f"targets[{name!r}] must be (B, T_q, T_k) = {(B, T_q, T_k)}, "
                f"got {tuple(target.shape)}"
            )
        rows = query_mask.bool() & target.bool().any(dim=-1)  # (B, T_q): queries that count
        # (B, H, T_q, T_k) * (B, 1, T_q, T_k) -> (B, H, T_q): the weight on the named keys
        on_target = (weights.double() * target[:, None].double()).sum(dim=-1)
        n = rows.sum()
        if n == 0:
            scores[name] = torch.full((H,), float("nan"), dtype=torch.float64)
        else:
            # (B, H, T_q) -> (H, B, T_q) -> (H, N) -> (H,)
            scores[name] = on_target.transpose(0, 1)[:, rows].sum(dim=-1) / n
    return scores


def _position_targets(T_q: int, T_k: int, B: int) -> dict:
    q = torch.arange(T_q)[:, None]  # (T_q, 1)
    k = torch.arange(T_k)[None, :]  # (1, T_k)
    return {
        "previous": (k == q - 1).expand(B, T_q, T_k),
        "same": (k == q).expand(B, T_q, T_k),
        "first": (k == 0).expand(B, T_q, T_k),
    }


def spelled_alike(source_word: str, written_word: str) -> bool:
    """Whether the word being written (Portuguese) is the English source word, known from the
    spelling alone: a number, a name, or a noun both languages write alike ("pizza", "hotel").

    The alignment ``head_pattern_scores`` needs no dictionary for. Not a punctuation mark, and
    not a word both languages spell alike for different things: "a" (the English article *a*,
    the Portuguese *the*) and "do" (the English auxiliary, the Portuguese *of the*) are the
    phrasebook's two (``false_friends``). Lower case, as ``tokenize`` writes them."""
    return (
        source_word == written_word
        and source_word != ""
        and not is_punctuation(source_word)
        and source_word not in false_friends()
    )


@functools.cache
def false_friends() -> frozenset[str]:
    """The words both languages of the phrasebook write that are not one word in both: every
    word its English and its Portuguese share, but the nouns whose Portuguese is spelled as
    the English ("pizza", "pizzas", "hospital")."""
    alike = {en for n in NOUNS for en, pt in ((n.en, n.pt), (n.en_pl, n.pt_pl)) if en and en == pt}
    shared = english_words() & portuguese_words()
    return frozenset(w for w in shared - alike if not is_punctuation(w))


def _translator_patterns(model: nn.Module, pairs: list) -> dict:
    """``{kind: (maps name, query mask (B, T_q), targets)}`` of a translator on ``pairs``."""
    batch, kept = _teacher_batch(model, pairs)
    maps = attention_maps(model, batch)
    B, S = batch.src.shape
    T = batch.tgt_in.shape[1]
    src_words = [tokenize(e) + [""] * (S - len(tokenize(e))) for e, _ in kept]
    tgt_words = [tokenize(p) + [""] * (T - len(tokenize(p))) for _, p in kept]
    src_punct = torch.tensor([[is_punctuation(w) for w in row] for row in src_words])  # (B, S)
    # the decoder's keys are <bos> + the target words
    tgt_punct = torch.tensor([[False] + [is_punctuation(w) for w in row[:-1]] for row in tgt_words])
    # (B, T, S): the source words spelled as the word written at step t (tgt_out[t])
    aligned = torch.tensor(
        [
            [[spelled_alike(s, w) for s in srow] for w in trow]
            for srow, trow in zip(src_words, tgt_words)
        ]
    )
    q_src, q_tgt = batch.src != PAD_ID, batch.tgt_in != PAD_ID
    setups = {}
    for kind, name, qmask, T_k, punct in (
        ("encoder", "encoder.layers.{}.self_attn", q_src, S, src_punct),
        ("decoder", "decoder.layers.{}.self_attn", q_tgt, T, tgt_punct),
        ("cross", "decoder.layers.{}.cross_attn", q_tgt, S, src_punct),
    ):
        targets = _position_targets(qmask.shape[1], T_k, B)
        if kind == "cross":  # positions of two different sentences: no "previous" or "same"
            targets.pop("previous"), targets.pop("same")
            targets["aligned"] = aligned
        targets["punctuation"] = punct[:, None, :].expand(B, qmask.shape[1], T_k)
        if kind == "decoder":  # only the marks already written (the causal mask's keys)
            targets["punctuation"] = targets["punctuation"] & causal_attention_mask(T)
        setups[kind] = (maps, name, qmask, targets)
    return setups


def _gpt_patterns(model: nn.Module, pairs: list) -> dict:
    """``{"self": (maps, name, query mask (B, L), targets)}`` of a decoder-only model."""
    tok = model.tokenizer
    batch = _gpt_batch(model, pairs)
    maps = attention_maps(model, batch.tokens)
    B, L = batch.tokens.shape
    ends = {tok.sep_id, tok.eos_id}
    punct = (
        torch.tensor(
            [
                [i in ends or is_punctuation(tok.decode([i]).strip()) for i in row]
                for row in batch.tokens.tolist()
            ]
        )
        & batch.real_mask
    )  # (B, L)
    targets = _position_targets(L, L, B)
    # (B, 1, L) & (L, L) -> (B, L, L): only the marks a query can see, so that a query with none
    # before it is not counted as looking away from them
    targets["punctuation"] = punct[:, None, :] & causal_attention_mask(L)
    return {"self": (maps, "blocks.{}.self_attn", batch.real_mask, targets)}


@torch.no_grad()
def head_pattern_scores(model: nn.Module, pairs) -> list[dict]:
    """Where each head looks on ``pairs``, teacher-forced: one row per head of the translator or a
    GPT.

    Each row is ``{"kind", "layer", "head", "previous", "same", "first",
    "punctuation", "aligned"}``, each score from ``pattern_scores`` over the
    real tokens:

    - ``previous``, ``same``: the key one position back, and the query's own
      position (self-attention only; NaN for ``"cross"``);
    - ``first``: the first source word (encoder, cross; a GPT's first token)
      or ``<bos>`` (decoder);
    - ``punctuation``: keys that are punctuation marks (``.`` ``,`` ``!``
      ``?``), and in a GPT also its end markers ``<sep>`` and ``<eos>``;
    - ``aligned`` (cross only): the source words spelled exactly as the word
      the query writes, a known alignment that needs no dictionary (numbers,
      names, nouns both languages share; not "a" or "do", ``spelled_alike``);
      NaN elsewhere.
    """
    pairs = list(pairs)
    if not pairs:
        raise ValueError("head_pattern_scores needs at least one (english, portuguese) pair")
    with _evaluating(model):
        if attention_kinds(model) == ("self",):
            setups = _gpt_patterns(model, pairs)
        else:
            setups = _translator_patterns(model, pairs)
    rows = []
    for kind, (maps, name, qmask, targets) in setups.items():
        for layer in range(len(attention_modules(model, kind))):
            s = pattern_scores(maps[name.format(layer)].cpu(), qmask, targets)
            for head in range(len(s["first"])):
                row = {"kind": kind, "layer": layer, "head": head}
                for key in ("previous", "same", "first", "punctuation", "aligned"):
                    row[key] = float(s[key][head]) if key in s else float("nan")
                rows.append(row)
    return rows


# --- induction heads on a toy model ------------------------------------------------------------


class _AttentionBlock(nn.Module):
    """A LayerNorm, then ``MultiHeadAttention``, added to the residual stream; no feed-forward."""

    def __init__(self, d_model: int, num_heads: int):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.self_attn = MultiHeadAttention(d_model, num_heads)

    def forward(self, x, mask, need_weights: bool = False):
        h, w = self.self_attn(*(self.norm(x),) * 3, mask=mask, need_weights=need_weights)
        return x + h, w


class AttentionOnly(nn.Module):
    """A Transformer with attention and nothing else: embeddings, learned positions, ``num_layers``
    pre-norm attention blocks under a causal mask, a norm and the logits.

    ::

        tokens (B, L) -> embed + positions -> [x + attn(norm(x))] x N -> norm -> logits (B, L, V)

    Without feed-forward layers, whatever the model computes beyond token
    statistics must be done by heads reading each other's outputs through the
    residual stream, which is what makes its heads easy to read.
    ``causal=False`` drops the mask, a planted bug: every position may read
    the token it is asked to predict.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 64,
        num_heads: int = 2,
        num_layers: int = 2,
        max_len: int = 64,
        causal: bool = True,
    ):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len, d_model)  # learned positions, one vector per position
        self.blocks = nn.ModuleList(_AttentionBlock(d_model, num_heads) for _ in range(num_layers))
        self.norm = nn.LayerNorm(d_model)
        self.generator = nn.Linear(d_model, vocab_size)  # D -> V
        self.causal = causal

    def forward(self, tokens: torch.Tensor, need_weights: bool = False):
        """``tokens (B, L)`` -> ``logits (B, L, V)``; with ``need_weights`` also each layer's
        ``(B, H, L, L)``."""
        L = tokens.shape[1]
        # (B, L, D) + (L, D) -> (B, L, D)
        x = self.embed(tokens) + self.pos.weight[:L]
        mask = causal_attention_mask(L, device=tokens.device) if self.causal else None
        weights = []
        for block in self.blocks:
            x, w = block(x, mask, need_weights)
            weights.append(w)
        logits = self.generator(self.norm(x))
        return (logits, weights) if need_weights else logits


def repeated_tokens(batch: int, half: int, vocab_size: int, generator=None) -> torch.Tensor:
    """``(batch, 2 * half)`` random token ids whose second half repeats the first.

    The first half cannot be predicted (each token is drawn uniformly); the
    second can, by a model that finds where the current token came before
    and copies the token that followed it.
    """
    if half < 2 or vocab_size < 2:
        raise ValueError(f"need half >= 2 and vocab_size >= 2, got half={half}, {vocab_size=}")
    first = torch.randint(vocab_size, (batch, half), generator=generator)
    return torch.cat([first, first], dim=1)  # (B, half) -> (B, 2 * half)


def _check_pattern(weights: torch.Tensor, what: str) -> torch.Tensor:
    if (
        not isinstance(weights, torch.Tensor)
        or weights.ndim != 4
        or weights.shape[-1] != weights.shape[-2]
    ):
        got = tuple(weights.shape) if isinstance(weights, torch.Tensor) else type(weights).__name__
        raise ValueError(f"{what} needs one layer's self-attention (B, H, L, L), got {got}")
    return weights.detach().double()


def previous_token_scores(weights: torch.Tensor, queries=None) -> torch.Tensor:
    """Each head's mean weight on the position just before the query: ``(H,)``, 1 for a perfect
    previous-token head, ``1 / (t + 1)`` at query ``t`` for a uniform causal one.

    ``weights (B, H, L, L)``, one layer's self-attention; ``queries`` the query
    positions to average over (default all but position 0, which has no
    previous token).
    """
    w = _check_pattern(weights, "previous_token_scores")
    L = w.shape[-1]
    queries = list(range(1, L)) if queries is None else list(queries)
    if not queries or not all(isinstance(q, int) and 1 <= q < L for q in queries):
        raise ValueError(f"queries must be positions from 1 to {L - 1}, got {queries!r}")
    # (B, H, L, L) -> (B, H, L - 1): entry t is the weight of query t + 1 on key t
    prev = w.diagonal(offset=-1, dim1=-2, dim2=-1)
    return prev[..., [q - 1 for q in queries]].mean(dim=(0, 2))  # (B, H, Q) -> (H,)


def induction_scores(weights: torch.Tensor, half: int) -> torch.Tensor:
    """Each head's mean weight, from a token's second occurrence, on the token that followed its
    first: ``(H,)``.

    On ``repeated_tokens`` of length ``2 * half``, query ``q`` in the second
    half holds the token first seen at ``q - half``; an induction head looks at
    ``q - half + 1``, the token that came next then (and will come next now).
    A perfect induction head scores 1, a uniform causal head about
    ``1 / (1.5 * half)``.
    """
    w = _check_pattern(weights, "induction_scores")
    L = w.shape[-1]
    if L != 2 * half:
        raise ValueError(
            f"the weights cover {L} positions, but sequences with a repeated half of {half} "
            f"have {2 * half}: pass the half the sequences were made with"
        )
    # (B, H, L, L) -> (B, H, half): entry i is the weight of query half + i on key i + 1
    return w.diagonal(offset=-(half - 1), dim1=-2, dim2=-1)[..., 1:].mean(dim=(0, 2))


@torch.no_grad()
def copying_scores(model: nn.Module, tokens: torch.Tensor, half: int) -> dict:
    """Next-token loss (nats) and accuracy on each half of ``repeated_tokens``.

    ``{"first_loss", "first_accuracy", "second_loss", "second_accuracy"}``: in
    the first half the best a model can do is chance (``ln V`` and ``1 / V``);
    in the second every token after the first is a copy, and in-context
    copying shows as a loss near 0 and an accuracy near 1. The prediction
    that crosses the halves (the first token of the repeat) is counted in
    neither.
    """
    with _evaluating(model):
        logits = model(tokens)[:, :-1]  # (B, L - 1, V): position t predicts token t + 1
    targets = tokens[:, 1:]
    loss = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (B, L - 1)
    right = (logits.argmax(dim=-1) == targets).double()
    first, second = slice(0, half - 1), slice(half, 2 * half - 1)
    return {
        "first_loss": float(loss[:, first].mean()),
        "first_accuracy": float(right[:, first].mean()),
        "second_loss": float(loss[:, second].mean()),
        "second_accuracy": float(right[:, second].mean()),
    }


def train_induction(
    vocab_size: int = 48,
    half: int = 12,
    steps: int = 600,
    batch_size: int = 64,
    lr: float = 3e-3,
    seed: int = 0,
    causal: bool = True,
    num_heads: int = 2,
    d_model: int = 64,
) -> dict:
    """Train ``AttentionOnly`` on ``repeated_tokens`` and measure what its heads learned.

    Each step draws its sequences' half length from ``half // 2`` to ``half``,
    so the repeat starts at no fixed position. The loss is taken at every
    position, the unpredictable first half included: nothing tells the model
    that the second half repeats the first.

    Returns ``{"model", "seconds", "losses", "previous", "induction",
    "copying", "chance_loss"}``, measured on 256 fresh sequences of length
    ``2 * half``: ``induction`` is layer 1's ``induction_scores``,
    ``previous`` layer 0's ``previous_token_scores`` over the first half's
    queries. Those are the positions an induction head reads as keys, so the
    ones whose vectors must carry the token before them; in the second half
    nothing reads it, and the trained previous-token head looks elsewhere
    there. ``copying`` is ``copying_scores`` on the same sequences. Each
    score is ``(H,)``, one number per head.
    """
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    model = AttentionOnly(vocab_size, d_model, num_heads, max_len=2 * half, causal=causal)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    losses, start = [], time.perf_counter()
    model.train()
    for _ in range(steps):
        # a new length each step: the repeat starts at no fixed position, so no head can find
        # the earlier occurrence by its position alone; it has to match tokens
        h = int(torch.randint(half // 2, half + 1, (), generator=g))
        tokens = repeated_tokens(batch_size, h, vocab_size, g)
        logits = model(tokens)[:, :-1]  # (B, L - 1, V)
        loss = F.cross_entropy(logits.reshape(-1, vocab_size), tokens[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    tokens = repeated_tokens(256, half, vocab_size, g)
    model.eval()
    with torch.no_grad():
        _, weights = model(tokens, need_weights=True)
    return {
        "model": model,
        "seconds": seconds,
        "losses": losses,
        "previous": previous_token_scores(weights[0], queries=range(1, half)),
        "induction": induction_scores(weights[1], half),
        "copying": copying_scores(model, tokens, half),
        "chance_loss": math.log(vocab_size),
    }
