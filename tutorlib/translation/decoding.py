"""Decoding a trained translator (chapter 10): greedy and beam search, the KV cache, translating.

Read top to bottom: ``greedy_decode`` and ``beam_search`` (with ``KVCache``, from
``tutorlib.translation.cache``, and the length budget and the repetition guard that keep a looping
decoder finite, from ``tutorlib.translation.guards``); then translating sentences, where an unknown
word the model writes as ``<unk>`` is copied from the source word its cross-attention points at. The
functions here decode the model they are given; ``tutorlib.translator``'s ``translate``,
``translate_sentences`` and ``translate_with_alignment`` (from ``tutorlib.translation.shipped``)
default to the shipped one.

Shape letters (the book's notation page): ``B`` batch, ``S`` source length,
``T`` target length, ``D`` = ``d_model``, ``H`` heads, ``Dh = D // H``,
``V`` the target vocabulary size, ``K`` the beam size. Masks are boolean,
True = may attend, as everywhere in tutorlib.

    >>> from tutorlib.translator import load_pretrained, translate
    >>> model, src_vocab, tgt_vocab = load_pretrained()
    >>> translate("the red car", model)
    'o carro vermelho'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ..checks import a_or_an, finite_number, model_hint, whole_number
from ..nn import causal_attention_mask, padding_attention_mask
from .cache import KVCache
from .copying import copy_positions, unknown_gender_notice, with_guessed_genders
from .data import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocab, detokenize, is_punctuation, tokenize
from .guards import (
    MAX_RUN,
    NO_REPEAT_NGRAM,
    check_guard,
    guard,
    output_budget,
)
from .model import Translator
from .phrasebook.lexicon import TITLES
from .sentences import as_sentences, not_english, split_texts, tell
from .typos import read_typos

__all__ = [
    "greedy_decode",
    "beam_search",
    "length_penalty_factor",
    "model_vocabs",
    "translate",
    "translate_sentences",
    "translate_with_alignment",
    "Translation",
    "cross_attention",
    "cross_attention_maps",
    "ALIGN_LAYER",
]


# --- decoding (chapter 10) -------------------------------------------------------------

# The length budget and the repetition guard are every decoder's: tutorlib.translation.guards.

# These functions decode the model they are given: this module sits below the checkpoints, so the
# shipped model is supplied above it (tutorlib.translation.shipped, what tutorlib.translator gives).
NO_MODEL = (
    "no model given: pass one (tutorlib.translator.load_pretrained() reads the shipped "
    "translator), "
    "or call tutorlib.translator.translate, which defaults to it"
)


def _next_log_probs(
    model: Translator, tokens, memory, src_key_mask, cache: KVCache | None
) -> torch.Tensor:
    """``tokens (B, t)`` decoded so far -> log-probabilities of the next token, ``(B, V)``."""
    if cache is None:  # recompute every position, as the slide deck does by hand
        mask = causal_attention_mask(tokens.shape[1], device=tokens.device)  # (t, t)
        logits = model.decode(tokens, memory, src_key_mask, mask)[:, -1]  # (B, t, V) -> (B, V)
    else:  # only the newest position; the others are in the cache
        logits = model.decode(tokens[:, -1:], memory, src_key_mask, cache=cache)[
            :, -1
        ]  # (B, 1, V) -> (B, V)
    return torch.log_softmax(logits.float(), dim=-1)


def _budgets(model: Translator, src_key_mask: torch.Tensor, max_len: int | None) -> torch.Tensor:
    """How many words each sentence may write, ``(B,)``: the ``output_budget`` of its source."""
    # (B, 1, 1, S) -> (B,): real source tokens
    S = src_key_mask.reshape(src_key_mask.shape[0], -1).sum(dim=1)
    return output_budget(S, model.config.max_len, max_len)


def _strip(row: list[int]) -> list[int]:
    """Token ids after BOS up to (without) the first EOS, padding dropped."""
    out = []
    for i in row:
        if i == EOS_ID:
            break
        if i != PAD_ID:
            out.append(i)
    return out


@torch.no_grad()
def greedy_decode(
    model: Translator,
    src: torch.Tensor,
    src_key_mask: torch.Tensor,
    max_len: int | None = None,
    use_cache: bool = True,
    *,
    max_run: int | None = MAX_RUN,
    no_repeat_ngram: int | None = NO_REPEAT_NGRAM,
) -> list[list[int]]:
    """Translate a batch by taking the most likely token at every step: ``src (B, S)`` -> B lists of
    token ids.

    Starts from BOS and feeds each chosen token back in, one position per
    step, until every sentence has written EOS or its budget of words: ``2 S
    + 5`` for a source of ``S`` words, at most ``max_len`` and the model's
    ``max_len - 1`` positions (a sentence that reaches it is ended as if by
    EOS). The lists hold neither BOS nor EOS. With ``use_cache`` the decoder
    keeps its keys and values (``KVCache``); the result is the same as
    recomputing the whole prefix at every step.

    The repetition guard: no token a ``max_run + 1``-th time in a row, and no
    ``no_repeat_ngram``-gram twice in a sentence (the phrasebook never
    repeats a 4-gram within a sentence, so a repeat is a decoder stuck in a
    loop); ``None`` switches either off. On a sentence that never triggers it
    the result is the same as without it.

    Derived in chapter 10 (Translating and evaluating).
    """
    check_guard(max_run, no_repeat_ngram)
    model.eval()
    budget = _budgets(model, src_key_mask, max_len)  # (B,)
    memory = model.encode(src, src_key_mask)  # (B, S, D), once
    B = src.shape[0]
    tokens = torch.full((B, 1), BOS_ID, dtype=torch.long, device=src.device)  # (B, 1)
    finished = torch.zeros(B, dtype=torch.bool, device=src.device)
    cache = KVCache() if use_cache else None
    for step in range(int(budget.max())):
        log_probs = _next_log_probs(model, tokens, memory, src_key_mask, cache)  # (B, V)
        next_token = guard(log_probs, tokens, max_run, no_repeat_ngram).argmax(dim=-1)  # (B,)
        next_token = next_token.masked_fill(finished, PAD_ID)  # a finished sentence only pads
        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t) -> (B, t + 1)
        finished |= (next_token == EOS_ID) | (step + 1 >= budget)  # EOS, or the budget is spent
        if finished.all():
            break
    return [_strip(row) for row in tokens[:, 1:].tolist()]


def length_penalty_factor(length: torch.Tensor, alpha: float) -> torch.Tensor:
    r"""GNMT's length penalty :math:`((5 + |Y|) / 6)^\alpha`; beam scores are divided by it.

    A sum of log-probabilities only falls as a sentence grows, so without it
    (``alpha = 0``) beam search prefers short translations; ``alpha = 1``
    is close to ranking by the mean log-probability per token.

    Derived in chapter 10 (Translating and evaluating).
    """
    return ((5.0 + length) / 6.0) ** alpha


@torch.no_grad()
def beam_search(
    model: Translator,
    src: torch.Tensor,
    src_key_mask: torch.Tensor,
    beam_size: int = 4,
    length_penalty: float = 0.6,
    max_len: int | None = None,
    use_cache: bool = True,
    *,
    max_run: int | None = MAX_RUN,
    no_repeat_ngram: int | None = NO_REPEAT_NGRAM,
) -> list[list[int]]:
    """Translate a batch keeping the ``beam_size`` best partial translations of each sentence.

    At every step each of the K beams of a sentence is extended by every
    word, and the K best of the ``K x V`` candidates survive, ranked by their
    summed log-probability divided by ``length_penalty_factor(length,
    length_penalty)``. A beam that has written EOS is finished: it stays
    among the candidates with its score frozen, extended only by padding.
    A beam that has written its sentence's budget of words (``greedy_decode``:
    ``2 S + 5``, at most ``max_len``) is finished too. The search ends when
    all beams of all sentences are finished; each sentence's best beam is
    returned, as token ids without BOS or EOS. ``beam_size=1`` is greedy
    decoding. The B sentences' K beams run as one batch of ``B * K`` rows;
    ``use_cache``, ``max_run`` and ``no_repeat_ngram`` as in
    ``greedy_decode``, with the cache reordered as beams are chosen.

    Derived in chapter 10 (Translating and evaluating).
    """
    K = whole_number("beam_size", beam_size, 1, hint="1 is greedy decoding")
    length_penalty = finite_number(
        "length_penalty", length_penalty, hint="GNMT's alpha, usually 0 to 1"
    )
    check_guard(max_run, no_repeat_ngram)
    model.eval()
    budget = _budgets(model, src_key_mask, max_len)  # (B,)
    B, device = src.shape[0], src.device
    V = model.config.tgt_vocab_size
    if K > V:
        raise ValueError(f"beam_size={K} is larger than the target vocabulary ({V} tokens)")
    # every sentence's encoder output, once, then K copies: (B, S, D) -> (B*K, S, D)
    memory = model.encode(src, src_key_mask).repeat_interleave(K, dim=0)
    src_key_mask = src_key_mask.repeat_interleave(K, dim=0)  # (B*K, 1, 1, S)
    tokens = torch.full((B * K, 1), BOS_ID, dtype=torch.long, device=device)  # (B*K, t)
    score = torch.full((B, K), float("-inf"), device=device)  # summed log-probabilities
    score[:, 0] = 0.0  # one live beam to start with, else the K beams would be K copies of it
    length = torch.zeros(B, K, device=device)  # tokens written, EOS included
    finished = torch.zeros(B, K, dtype=torch.bool, device=device)
    only_pad = torch.full((V,), float("-inf"), device=device)
    only_pad[PAD_ID] = 0.0  # a finished beam's only continuation, at no cost
    first_row = torch.arange(B, device=device)[:, None] * K  # (B, 1): row of each sentence's beam 0
    cache = KVCache() if use_cache else None
    for _ in range(int(budget.max())):
        log_probs = _next_log_probs(model, tokens, memory, src_key_mask, cache)  # (B*K, V)
        log_probs = guard(log_probs, tokens, max_run, no_repeat_ngram)
        # (B*K, 1) chooses between (V,) and (B*K, V): a finished beam may only pad
        log_probs = torch.where(finished.view(B * K, 1), only_pad, log_probs)
        # (B, K, 1) + (B, K, V) -> (B, K, V): the score of every beam extended by every word
        candidate = score[:, :, None] + log_probs.view(B, K, V)
        candidate_length = (length + ~finished)[:, :, None]  # (B, K, 1)
        ranked = candidate / length_penalty_factor(candidate_length, length_penalty)  # (B, K, V)
        # (B, K*V) -> the K best candidates of each sentence: (B, K)
        best = ranked.view(B, K * V).topk(K, dim=1).indices
        beam, word = best // V, best % V  # which beam each survivor extends, by which word: (B, K)
        # the survivors' scores, lengths and states, all (B, K)
        score = candidate.view(B, K * V).gather(1, best)  # (B, K*V) -> (B, K)
        length = candidate_length.view(B, K).gather(1, beam)  # (B, K) -> (B, K), picked by beam
        # (B, K) | (B, K) | (B, K) >= (B, 1): EOS written, or the sentence's budget of words spent
        finished = finished.gather(1, beam) | (word == EOS_ID) | (length >= budget[:, None])
        rows = (first_row + beam).view(B * K)  # (B*K,): the surviving beams' rows
        tokens = torch.cat([tokens[rows], word.view(B * K, 1)], dim=1)  # (B*K, t) -> (B*K, t + 1)
        if cache is not None:
            cache.reorder(rows)
        if finished.all():
            break
    final = score / length_penalty_factor(length.clamp(min=1), length_penalty)  # (B, K)
    chosen = (first_row[:, 0] + final.argmax(dim=1)).tolist()  # (B,) rows
    rows = tokens[:, 1:].tolist()
    return [_strip(rows[r]) for r in chosen]


# --- translating and evaluating -----------------------------------------------------------

# The decoder layer whose cross-attention aligns an output <unk> with a source word (an index into
# model.decoder.layers): the last one, whose queries are closest to the word being written.
ALIGN_LAYER = -1


def model_vocabs(
    model, src_vocab: Vocab | None = None, tgt_vocab: Vocab | None = None
) -> tuple[Vocab, Vocab]:
    """``(src_vocab, tgt_vocab)``: each one given, else the model's own (``model.src_vocab``...).

    A model from ``train``, ``load_checkpoint`` or ``load_pretrained`` carries
    both; one that carries neither (an attribute missing or None) and no
    vocabulary given is a ``ValueError`` saying what to pass.

    Derived in chapter 10 (Translating and evaluating).
    """
    src_vocab = src_vocab if src_vocab is not None else getattr(model, "src_vocab", None)
    tgt_vocab = tgt_vocab if tgt_vocab is not None else getattr(model, "tgt_vocab", None)
    if src_vocab is None or tgt_vocab is None:
        raise ValueError(
            "the model carries no vocabularies (model.src_vocab / model.tgt_vocab): pass "
            "src_vocab= and tgt_vocab=, or use a model from train(), load_checkpoint() or "
            "load_pretrained()"
        )
    return src_vocab, tgt_vocab


@torch.no_grad()
def cross_attention(
    model: Translator,
    src: torch.Tensor,
    src_key_mask: torch.Tensor,
    hyp_ids,
    layer: int = ALIGN_LAYER,
) -> torch.Tensor:
    """Where the decoder looked while writing ``hyp_ids``: cross-attention weights ``(T, S)``,
    averaged over heads.

    ``src (1, S)`` (or ``(S,)``) is one source sentence, ``hyp_ids`` its
    translation's T token ids (no BOS, no EOS). The decoder reads BOS +
    ``hyp_ids[:-1]`` once, teacher-forced, and row ``t`` is the attention of
    the query that wrote token ``t`` over the S source positions, from
    decoder layer ``layer`` (default ``ALIGN_LAYER``, the last), its H heads
    averaged. Each row sums to 1 over the real (unpadded) source tokens.

    Derived in chapter 10 (Translating and evaluating).
    """
    if src.dim() == 1:
        src = src[None]  # (S,) -> (1, S)
    if src.dim() != 2 or src.shape[0] != 1:
        raise ValueError(
            "cross_attention takes one sentence, src of shape (1, S) or (S,), got "
            f"{tuple(src.shape)}"
        )
    n_layers = len(model.decoder.layers)
    layer = whole_number(
        "layer", layer, -n_layers, n_layers - 1, hint=f"the decoder has {n_layers} layers"
    )
    hyp_ids = [int(i) for i in (hyp_ids.tolist() if hasattr(hyp_ids, "tolist") else hyp_ids)]
    S = src.shape[1]
    if not hyp_ids:
        return torch.zeros(0, S)
    # (L, H, T, S) -> (H, T, S) -> (T, S): the heads' mean
    return cross_attention_maps(model, src, src_key_mask, hyp_ids)[layer].mean(dim=0)


@torch.no_grad()
def cross_attention_maps(
    model: Translator, src: torch.Tensor, src_key_mask: torch.Tensor, hyp_ids
) -> torch.Tensor:
    """Every decoder layer's and head's cross-attention while writing ``hyp_ids``: ``(L, H, T, S)``,
    on the CPU.

    The one teacher-forced pass behind ``cross_attention`` (which averages
    one layer's heads) and the translator explorer (which shows them all):
    the decoder reads BOS + ``hyp_ids[:-1]``, so row ``t`` is the step that
    wrote ``hyp_ids[t]``; end ``hyp_ids`` with EOS to see the step that ended.

    Derived in chapter 10 (Translating and evaluating).
    """
    hyp_ids = [int(i) for i in (hyp_ids.tolist() if hasattr(hyp_ids, "tolist") else hyp_ids)]
    model.eval()
    device = src.device
    tgt_in = torch.tensor([[BOS_ID] + hyp_ids[:-1]], device=device)  # (1, T): what the decoder read
    T = tgt_in.shape[1]
    memory = model.encode(src, src_key_mask)  # (1, S, D)
    model._check_length(T, "target")
    x = model.pos(model.tgt_embed(tgt_in) * math.sqrt(model.config.d_model))  # (1, T) -> (1, T, D)
    _, _, cross = model.decoder(
        x, memory, causal_attention_mask(T, device=device), src_key_mask, need_weights=True
    )  # one (1, H, T, S) per layer
    return torch.cat(cross).float().cpu()  # L x (1, H, T, S) -> (L, H, T, S)


@dataclass
class Translation:
    """One sentence's translation, with what ``translate`` did on the way (``translate_sentences``
    returns them).

    Derived in chapter 10 (Translating and evaluating).
    """

    source: str  # the sentence as given
    text: str = ""  # the translation ("" for an empty sentence, or when error is set)
    source_tokens: list = field(
        default_factory=list
    )  # the source's tokens, as typed (capital letters kept)
    output_tokens: list = field(
        default_factory=list
    )  # the translation's tokens, copied words in place of <unk>
    copied: dict = field(
        default_factory=dict
    )  # output position -> the source position its word was copied from
    weights: torch.Tensor | None = (
        None  # (T, S) cross_attention of output_tokens over source_tokens, when computed
    )
    notice: str | None = (
        None  # plain words: what happened to unknown words, or why the translation is empty
    )
    error: str | None = None  # why there is no translation (too long, no known word)
    parts: list = field(
        default_factory=list
    )  # a text of several sentences: each one's Translation (split_sentences); else []


def _add_notice(result: Translation, text: str) -> None:
    result.notice = f"{result.notice}; {text}" if result.notice else text


# A word this many times in a row is no sentence of the phrasebook ("the the the"): said in a
# notice.
REPEATED_WORD = 3


def _prepare(
    i: int,
    sentence,
    model: Translator,
    src_vocab: Vocab,
    tgt_vocab: Vocab | None = None,
    typos: bool = True,
) -> tuple[Translation, list[int] | None]:
    """Check and encode one sentence: ``(Translation, source ids)``; ids None when there is nothing
    to decode."""
    if not isinstance(sentence, str):
        raise ValueError(
            f"sentences[{i}] is a {type(sentence).__name__} ({sentence!r:.60}), expected a string "
            "of "
            "English words"
        )
    result = Translation(sentence, source_tokens=tokenize(sentence, lower=False))
    words = [t.lower() for t in result.source_tokens]
    if not words:
        return result, None
    if all(is_punctuation(w) for w in words):
        result.notice = "it holds only punctuation, no words: nothing to translate"
        return result, None
    if len(words) > model.config.max_len:
        result.error = (
            f"it has {len(words)} tokens, more than the {model.config.max_len} positions the model "
            "was "
            f"built for (TranslatorConfig.max_len): shorten or split it: {sentence[:60]!r}"
        )
        return result, None
    real = [w for w in words if not is_punctuation(w)]
    problem = not_english(
        real,
        src_vocab,
        () if tgt_vocab is None else tgt_vocab,
        "in the translator's English vocabulary",
        "the translator",
    )
    if problem:
        result.error = problem
        return result, None
    corrected, typos = read_typos(sentence) if typos else (sentence, [])  # after the check
    if typos:
        result.source_tokens = tokenize(corrected, lower=False)  # one word for one: same length
        words = [t.lower() for t in result.source_tokens]
        real = [w for w in words if not is_punctuation(w)]
        _add_notice(result, "; ".join(typos))
    run, longest, word = 1, 1, real[0]
    for a, b in zip(real, real[1:]):
        run = run + 1 if a == b else 1
        if run > longest:
            longest, word = run, b
    if longest >= REPEATED_WORD:
        _add_notice(
            result,
            f'"{word}" comes {longest} times in a row, which no sentence the translator learned '
            "does: its translation is a guess",
        )
    ids = src_vocab.encode(words, warn_unknown=False)
    # A title's name is a name even when it is also an English word ("Mr Brown", "Dr Rose"): the
    # word after the title, and the capitalised words after that, are read as unknown and copied.
    for j in range(1, len(words)):
        if words[j - 1] in TITLES or (
            ids[j - 1] in src_vocab.unknown_ids
            and j >= 2
            and words[j - 2] in TITLES
            and result.source_tokens[j][:1].isupper()
        ):
            ids[j] = UNK_ID
    # a name the list gives no gender after "friend": its ending's guess ("Priya": <unk:f>)
    return result, with_guessed_genders(result.source_tokens, ids, src_vocab)


def _copy_unknown(
    result: Translation,
    model: Translator,
    src_ids: list[int],
    hyp: list[int],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    device,
    with_weights: bool,
) -> None:
    """Fill ``result`` from the hypothesis: each output ``<unk>`` becomes an unknown source word,
    the one it attends to most of those not copied yet.

    Luong et al. (2015)'s unknown-word replacement, with attention as the
    alignment: the model writes ``<unk>`` where a word it has not learned
    belongs, and the cross-attention row of that ``<unk>``, restricted to
    the source positions that hold unknown words, points at which one; a
    word not copied yet comes first (``copy_position``). A name of several
    words ("ana silva") is one ``<unk>`` per word, in order: a run of
    ``<unk>`` copies the run of adjacent unknown source words its attention
    reads most, then the next word after each copy (``copy_positions``), so
    the name comes whole and in order. In a gendered
    vocabulary (``Vocab.unknown_ids``) ``<unk:f>`` and ``<unk:m>`` are unknown words too.
    """
    # source positions of unknown words: <unk>, or <unk:f> / <unk:m> for a name of known gender
    unknown_at = [j for j, i in enumerate(src_ids) if i in src_vocab.unknown_ids]
    unk = tgt_vocab.unknown_ids  # what the model writes for a word to copy
    weights = None
    if with_weights or (unk.intersection(hyp) and unknown_at):
        src = torch.tensor([src_ids], device=device)  # (1, S)
        weights = cross_attention(model, src, padding_attention_mask(src != PAD_ID), hyp)  # (T, S)
    if unknown_at:
        result.copied.update(copy_positions(weights, [i in unk for i in hyp], unknown_at))
    tokens, dropped = [], 0
    for t, i in enumerate(hyp):
        if t in result.copied:
            tokens.append(result.source_tokens[result.copied[t]])
        else:
            dropped += i in unk
            tokens.append(tgt_vocab.id_to_token(i))
    result.output_tokens, result.weights = tokens, weights
    # the text leaves out what is not a word, as Vocab.decode does: <pad> and <bos> (a broken model
    # writes them),
    # and an <unk> with nothing to copy
    result.text = detokenize(
        [
            tok
            for t, tok in enumerate(tokens)
            if hyp[t] not in (PAD_ID, BOS_ID) and (hyp[t] not in unk or t in result.copied)
        ]
    )
    said = []
    copied_from = set(result.copied.values())
    for j in unknown_at:
        word = result.source_tokens[j]
        said.append(f'"{word}" copied as is' if j in copied_from else f'"{word}" dropped')
    if said:
        _add_notice(
            result,
            f"{'these words are' if len(said) > 1 else 'this word is'} not in the translator's "
            f"vocabulary: {'; '.join(dict.fromkeys(said))}",
        )
    if src_vocab.gendered:  # a name the list gives no gender after "friend": a guess, said
        gender = unknown_gender_notice(result.source_tokens, unknown_at, tokens, result.copied)
        if gender:
            _add_notice(result, gender)
    if dropped:
        extra = (
            f"the model wrote {dropped} unknown word{'s' if dropped > 1 else ''} (<unk>) but the "
            "sentence has "
            "no unknown word to copy: dropped"
        )
        _add_notice(result, extra)


def translate_sentences(
    sentences,
    model: Translator | None = None,
    beam_size: int = 1,
    *,
    src_vocab: Vocab | None = None,
    tgt_vocab: Vocab | None = None,
    length_penalty: float = 0.6,
    batch_size: int = 64,
    use_cache: bool = True,
    max_len: int | None = None,
    with_weights: bool = False,
    typos: bool = True,
) -> list[Translation]:
    """Translate English sentences, one ``Translation`` per sentence; a sentence that cannot be
    translated gets ``error`` set instead of stopping the others.

    Arguments as in ``translate``; ``typos=False`` reads every word as typed
    (``evaluate`` does: the phrasebook has no typos, and its lower-case names
    would be read as some: "rina" as "ring"); ``with_weights`` also keeps every
    translation's ``cross_attention`` (else it is computed only to copy
    unknown words). A string of several sentences ("I am happy. She is
    tired.") is split as ``split_sentences`` splits it (the command line
    does the same), each sentence translated alone: its ``Translation``
    joins theirs, holds each in ``parts`` and says each one's notice and
    error, numbered; its ``weights`` are None.

    Derived in chapter 10 (Translating and evaluating).
    """
    sentences, _ = as_sentences(sentences)
    beam_size = whole_number("beam_size", beam_size, 1, hint="1 is greedy decoding")
    batch_size = whole_number("batch_size", batch_size, 1, hint="sentences decoded together")
    length_penalty = finite_number(
        "length_penalty", length_penalty, hint="GNMT's alpha, usually 0 to 1"
    )
    if max_len is not None:
        whole_number("max_len", max_len, 1, hint="the most words a translation may have")
    if model is None:
        raise ValueError(NO_MODEL)
    if not (isinstance(model, torch.nn.Module) and hasattr(model, "encode")):
        # a GPT, or no model at all (a str has .encode too): no encoder to read with
        gpt = hasattr(type(model), "tokenizer")  # a property: on the class, never run
        raise ValueError(
            "tutorlib.translator.translate needs the encoder-decoder translator (a Translator), "
            f"got {a_or_an(type(model).__name__)}{model_hint(model, torch.nn.Module)}"
            + (": a GPT translates with tutorlib.gpt.translate(sentences, model)" * gpt)
        )
    src_vocab, tgt_vocab = model_vocabs(model, src_vocab, tgt_vocab)
    # Each text into its sentences: pieces[k] = (index of the text it came from, sentence).
    pieces, owners = split_texts(sentences)
    results, sources = (
        [],
        [],
    )  # sources: (piece, token ids) to decode, the words alone (no BOS or EOS)
    for k, (i, sentence) in enumerate(pieces):
        result, ids = _prepare(i, sentence, model, src_vocab, tgt_vocab, typos)
        results.append(result)
        if ids is not None:
            sources.append((k, ids))
    device = next(model.parameters()).device
    for start in range(0, len(sources), batch_size):
        chunk = sources[start : start + batch_size]
        S = max(len(ids) for _, ids in chunk)
        # (B, S), padded on the right
        src = torch.tensor([ids + [PAD_ID] * (S - len(ids)) for _, ids in chunk], device=device)
        src_key_mask = padding_attention_mask(src != PAD_ID)  # (B, 1, 1, S)
        if beam_size == 1:
            hyps = greedy_decode(model, src, src_key_mask, max_len, use_cache=use_cache)
        else:
            hyps = beam_search(
                model, src, src_key_mask, beam_size, length_penalty, max_len, use_cache=use_cache
            )
        for (i, ids), hyp in zip(chunk, hyps):
            _copy_unknown(results[i], model, ids, hyp, src_vocab, tgt_vocab, device, with_weights)
            budget = output_budget(len(ids), model.config.max_len, max_len)
            if max_len is not None and budget == max_len < output_budget(
                len(ids), model.config.max_len
            ):
                # the caller's max_len cut it (the 2 S + 5 budget alone only stops a looping
                # decoder)
                _add_notice(
                    results[i],
                    f"the translation stopped at max_len={max_len} "
                    f"word{'s' if max_len > 1 else ''}: "
                    "it may be cut short",
                )
    return [
        _joined(sentences[i], [results[k] for k in owner]) if len(owner) > 1 else results[owner[0]]
        for i, owner in enumerate(owners)
    ]


def _joined(text: str, parts: list[Translation]) -> Translation:
    """One ``Translation`` of a text from those of its sentences: texts and tokens joined, each
    notice and error said with its sentence's number."""
    out = Translation(text, parts=parts)
    for number, part in enumerate(parts, start=1):
        offset_src, offset_out = len(out.source_tokens), len(out.output_tokens)
        out.source_tokens += part.source_tokens
        out.output_tokens += part.output_tokens
        out.copied.update({t + offset_out: j + offset_src for t, j in part.copied.items()})
        if part.notice:
            _add_notice(out, f"sentence {number}: {part.notice}")
        if part.error:
            out.error = f"{out.error}; " if out.error else ""
            out.error += f"sentence {number} ({part.source[:40]!r}): {part.error}"
    out.text = "" if out.error else " ".join(p.text for p in parts if p.text)
    return out


def translate(
    sentences,
    model: Translator | None = None,
    beam_size: int = 1,
    *,
    src_vocab: Vocab | None = None,
    tgt_vocab: Vocab | None = None,
    length_penalty: float = 0.6,
    batch_size: int = 64,
    use_cache: bool = True,
    max_len: int | None = None,
    on_notice=None,
    typos: bool = True,
):
    """Translate English sentences into Portuguese: an iterable of strings -> a list of strings (or
    one -> one).

    ``model`` is the translator to use (``tutorlib.translator.translate``
    defaults to the shipped one, ``load_pretrained``).
    ``beam_size=1`` is greedy decoding, more is beam search; ``max_len``
    caps every translation's words (each gets at most ``2 S + 5`` for ``S``
    source words anyway). Bad input:

    - an unknown word (a name, a number) is read as ``<unk>``; where the model
      writes ``<unk>``, the source word its cross-attention points at is
      copied as typed (``translate_with_alignment`` shows how). What
      happened to each unknown word is said in plain words, one notice per
      sentence, to ``on_notice(index, message)`` (default: ``warnings.warn``);
    - a typo one edit from a word the model knows ("the techer") is read as that word
      (``read_typos``), with a notice ("read 'techer' as 'teacher'"); a capitalised word
      stays a name; ``typos=False`` reads every word as typed (the phrasebook's own
      sentences, whose names are lower case: "kove" is a name there, not "love");
    - a string of several sentences ("I am happy. She is tired.") is split
      as the command line splits it (``split_sentences``), each sentence
      translated alone and the translations joined with a space: no part is
      left out;
    - an empty (or blank) sentence translates to an empty string, and one of
      punctuation alone to an empty string with a notice; a word three times
      in a row ("the the the") and a translation that ``max_len`` stopped
      are said in a notice;
    - a sentence longer than the model's ``max_len``, with no known word
      (German typed in), or with more Portuguese words than English ones
      ("a casa é grande"), is a ``ValueError`` naming it
      (``translate_sentences`` translates the others anyway).

    Derived in chapter 10 (Translating and evaluating).
    """
    single = isinstance(sentences, str)
    results = translate_sentences(
        sentences,
        model,
        beam_size,
        src_vocab=src_vocab,
        tgt_vocab=tgt_vocab,
        length_penalty=length_penalty,
        batch_size=batch_size,
        use_cache=use_cache,
        max_len=max_len,
        typos=typos,
    )
    for i, result in enumerate(results):
        if result.error:
            raise ValueError(f"sentence {i} cannot be translated: {result.error}")
    for i, result in enumerate(results):
        if result.notice:
            tell(i, result.source, result.notice, on_notice)
    texts = [r.text for r in results]
    return texts[0] if single else texts


def translate_with_alignment(
    sentence: str,
    model: Translator | None = None,
    beam_size: int = 1,
    *,
    src_vocab: Vocab | None = None,
    tgt_vocab: Vocab | None = None,
    length_penalty: float = 0.6,
    max_len: int | None = None,
) -> Translation:
    """Translate one sentence and keep its alignment: a ``Translation`` with ``source_tokens``,
    ``output_tokens``, ``weights`` (the ``(T, S)`` cross-attention of ``ALIGN_LAYER``, heads
    averaged) and ``copied`` (output position -> source position of each unknown word copied in
    place of ``<unk>``).

    The heatmap of ``weights`` is the alignment: a copied word is the one
    with the largest weight in its row among the source's unknown words. A
    sentence that cannot be translated is a ``ValueError``.

    Derived in chapter 10 (Translating and evaluating).
    """
    if not isinstance(sentence, str):
        raise ValueError(
            f"sentence must be a string of English words, got {type(sentence).__name__}"
        )
    result = translate_sentences(
        [sentence],
        model,
        beam_size,
        src_vocab=src_vocab,
        tgt_vocab=tgt_vocab,
        length_penalty=length_penalty,
        max_len=max_len,
        with_weights=True,
    )[0]
    if result.parts:
        raise ValueError(
            f"{sentence[:60]!r} holds {len(result.parts)} sentences; translate_with_alignment "
            "aligns "
            "one: split it with split_sentences and align each"
        )
    if result.error:
        raise ValueError(f"{sentence[:60]!r} cannot be translated: {result.error}")
    return result
