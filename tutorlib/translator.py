"""An English -> Portuguese translator: the encoder-decoder Transformer of chapters 9 and 10.

One file, read top to bottom: the config, the model (built from the layers
of ``tutorlib.nn``), the KV cache, greedy and beam search, then translating
and evaluating sentences. Training and checkpoints live in
``tutorlib.training``; the data, tokens and vocabularies in ``tutorlib.data``.

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
import warnings
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from .data import BOS, EOS, PAD, SPECIALS, Vocab, detokenize, tokenize
from .nn import Decoder, Encoder, PositionalEncoding, causal_attention_mask, padding_attention_mask

__all__ = [
    "TranslatorConfig",
    "PRESETS",
    "Translator",
    "KVCache",
    "greedy_decode",
    "beam_search",
    "length_penalty_factor",
    "translate",
    "evaluate",
    "load_pretrained",
    "PRETRAINED_PATH",
]

PAD_ID, BOS_ID, EOS_ID = SPECIALS.index(PAD), SPECIALS.index(BOS), SPECIALS.index(EOS)  # the same in every Vocab
PRETRAINED_PATH = Path(__file__).parent / "pretrained" / "translator.pt"


# --- the config -------------------------------------------------------------------


@dataclass
class TranslatorConfig:
    # the model
    src_vocab_size: int = 0  # filled in by train() from the vocabularies it builds
    tgt_vocab_size: int = 0
    d_model: int = 128  # D, the width of every token's vector (512 in the paper)
    num_heads: int = 4  # H; each head is Dh = D // H wide
    d_ff: int = 256  # hidden width of the feed-forward network (2048 in the paper)
    num_encoder_layers: int = 3
    num_decoder_layers: int = 3
    dropout: float = 0.1
    max_len: int = 32  # positions: at most max_len source words, max_len - 1 target words (after BOS)
    norm_first: bool = True  # pre-norm (trains steadily without tuning) instead of the paper's post-norm
    share_embeddings: bool = False  # one vocabulary of both languages and one embedding table for both sides
    tie_output: bool = True  # the output layer reuses the target embedding matrix (the paper, section 3.4)
    # the training (tutorlib.training.train)
    label_smoothing: float = 0.1  # the target puts 1 - 0.1 on the right word and spreads 0.1 over all words
    lr: float = 1e-3  # peak learning rate of AdamW, reached after warmup_steps
    min_lr: float = 1e-5  # after the warmup the learning rate falls to it along a half cosine
    warmup_steps: int = 200  # steps of linear warmup from 0 to lr
    weight_decay: float = 0.01  # AdamW's, on matrices only (not on biases, LayerNorms)
    batch_size: int = 64  # sentence pairs per step, in each process under torchrun
    epochs: int = 10
    grad_clip: float = 1.0  # a gradient with a larger norm is scaled down to it
    seed: int = 0

    def __post_init__(self):
        if self.d_model % self.num_heads:
            raise ValueError(
                f"d_model={self.d_model} is not divisible by num_heads={self.num_heads}: each head gets "
                "d_model // num_heads features"
            )
        if self.max_len < 2:
            raise ValueError(f"max_len={self.max_len} leaves no room for a word next to BOS or EOS; use at least 2")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "TranslatorConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown TranslatorConfig fields {unknown}; known: {sorted(known)}")
        return cls(**d)


# Named configurations for `python -m tutorlib train --preset NAME`.
PRESETS = {
    # chapter 9 in CI: visibly learns in a minute or two on a laptop CPU
    "tiny": TranslatorConfig(d_model=64, num_heads=4, d_ff=128, num_encoder_layers=2, num_decoder_layers=2,
                             dropout=0.0, lr=2e-3, warmup_steps=50, epochs=1, batch_size=64),
    # the shipped checkpoint, tutorlib/pretrained/translator.pt: 1.0 M parameters, 4.2 MB. Its training is tuned
    # for throughput (issue 14): batches of 256 (about 1.4x the tokens/s of 64 on 2 CPU cores), so a peak lr of
    # 2e-3 after 100 warmup steps; no dropout (its random numbers cost time, and the validation loss stays at the
    # training loss: nothing to regularise); 4 epochs, 344 steps on the 22,000 pairs: test BLEU 99.98, exact match
    # 99.9%. 2 epochs already pass the goal (BLEU 97.7, 95.1%): the other 2 are a margin for a larger phrasebook.
    "pretrained": TranslatorConfig(d_model=128, num_heads=4, d_ff=256, num_encoder_layers=3, num_decoder_layers=3,
                                   dropout=0.0, lr=2e-3, warmup_steps=100, epochs=4, batch_size=256),
    # twice as wide, for benchmarks/translator_bench.py: larger matrix products use more of the CPU's peak
    "wide": TranslatorConfig(d_model=256, num_heads=4, d_ff=1024, num_encoder_layers=3, num_decoder_layers=3,
                             dropout=0.0, lr=1e-3, warmup_steps=100, epochs=4, batch_size=256),
}


# --- the model ----------------------------------------------------------------------


class Translator(nn.Module):
    """The encoder-decoder Transformer of "Attention Is All You Need", built from ``tutorlib.nn``.

    ::

        src (B, S) -> embed * sqrt(D) + positions -> Encoder -> memory (B, S, D)
        tgt_in (B, T) -> embed * sqrt(D) + positions -> Decoder(memory) -> Linear -> logits (B, T, V)

    ``tgt_in`` is the target shifted right behind BOS (teacher forcing); the
    logits at position ``t`` predict ``tgt_out[t]``, the target's word ``t``
    (or EOS). ``src_vocab`` and ``tgt_vocab`` ride along (not parameters) so
    that ``translate(sentence, model)`` needs nothing else.

    Derived in chapter 9 (Training a translator).
    """

    def __init__(self, config: TranslatorConfig, src_vocab: Vocab | None = None, tgt_vocab: Vocab | None = None):
        super().__init__()
        if config.src_vocab_size < len(SPECIALS) or config.tgt_vocab_size < len(SPECIALS):
            raise ValueError(
                f"the config has src_vocab_size={config.src_vocab_size}, tgt_vocab_size={config.tgt_vocab_size}: "
                f"set both to the vocabularies' sizes (len(vocab), at least the {len(SPECIALS)} special tokens); "
                "train() does it for you"
            )
        if config.share_embeddings and config.src_vocab_size != config.tgt_vocab_size:
            raise ValueError(
                f"share_embeddings needs one vocabulary for both languages, but src_vocab_size="
                f"{config.src_vocab_size} and tgt_vocab_size={config.tgt_vocab_size}"
            )
        for name, vocab, size in (("src", src_vocab, config.src_vocab_size), ("tgt", tgt_vocab, config.tgt_vocab_size)):
            if vocab is not None and len(vocab) != size:
                raise ValueError(f"{name}_vocab has {len(vocab)} tokens but the config says {name}_vocab_size={size}")
        self.config = config
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab
        c = config
        self.src_embed = nn.Embedding(c.src_vocab_size, c.d_model)
        self.tgt_embed = self.src_embed if c.share_embeddings else nn.Embedding(c.tgt_vocab_size, c.d_model)
        self.pos = PositionalEncoding(c.d_model, c.max_len, dropout=c.dropout)  # sinusoidal, no parameters
        self.encoder = Encoder(c.num_encoder_layers, c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first)
        self.decoder = Decoder(c.num_decoder_layers, c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first)
        self.generator = nn.Linear(c.d_model, c.tgt_vocab_size)  # D -> V scores, the logits
        # Xavier-uniform matrices, as torch.nn.Transformer and the Annotated Transformer start them
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        if c.tie_output:
            self.generator.weight = self.tgt_embed.weight  # (V, D): one matrix to read words in and out

    def encode(self, src: torch.Tensor, src_key_mask: torch.Tensor) -> torch.Tensor:
        """``src (B, S)`` token ids, ``src_key_mask (B, 1, 1, S)`` -> ``memory (B, S, D)``."""
        self._check_length(src.shape[1], "source")
        # (B, S) -> (B, S, D)
        x = self.pos(self.src_embed(src) * math.sqrt(self.config.d_model))
        return self.encoder(x, src_key_mask)

    def decode(self, tgt_in: torch.Tensor, memory: torch.Tensor, src_key_mask: torch.Tensor, tgt_mask=None,
               cache: "KVCache | None" = None) -> torch.Tensor:
        """``tgt_in (B, T)`` -> ``logits (B, T, V)``, reading ``memory (B, S, D)``.

        Without ``cache``, ``tgt_in`` is the whole prefix and ``tgt_mask`` its
        causal (and padding) mask, ``(T, T)`` or ``(B, 1, T, T)``. With a
        ``KVCache``, ``tgt_in`` holds only the newest token(s), at positions
        ``cache.length`` onwards, and the earlier ones are read from the cache
        (``tgt_mask`` None for one new token).
        """
        if cache is None:
            self._check_length(tgt_in.shape[1], "target")
            # (B, T) -> (B, T, D)
            x = self.pos(self.tgt_embed(tgt_in) * math.sqrt(self.config.d_model))
            x = self.decoder(x, memory, tgt_mask, src_key_mask)
        else:
            t, T_new = cache.length, tgt_in.shape[1]
            self._check_length(t + T_new, "target")
            # (B, T_new, D) + (T_new, D): the position vectors of positions t .. t + T_new - 1
            x = self.tgt_embed(tgt_in) * math.sqrt(self.config.d_model) + self.pos.pe[t : t + T_new]
            x = self.decoder.forward_step(self.pos.dropout(x), memory, src_key_mask, cache.layers, tgt_mask)
            cache.length = t + T_new
        # (B, T, D) -> (B, T, V)
        return self.generator(x)

    def forward(self, batch) -> torch.Tensor:
        """Teacher forcing on a ``tutorlib.data.Batch``: ``logits (B, T, V)`` for ``batch.tgt_out``."""
        memory = self.encode(batch.src, batch.src_key_mask)
        return self.decode(batch.tgt_in, memory, batch.src_key_mask, batch.tgt_mask)

    def _check_length(self, n: int, what: str) -> None:
        if n > self.config.max_len:
            raise ValueError(
                f"the {what} has {n} positions but the model was built with max_len={self.config.max_len} "
                "(TranslatorConfig.max_len, BOS or EOS included): shorten the sentence or split it"
            )

    def num_parameters(self) -> int:
        """Parameters counted once (tied matrices are one matrix)."""
        return sum(p.numel() for p in self.parameters())


# --- decoding (chapter 10) -------------------------------------------------------------


@dataclass
class KVCache:
    """The decoder's keys and values of the positions decoded so far, so that each step costs one position.

    ``layers`` gets one dict per decoder layer (``tutorlib.nn.Decoder.forward_step``)
    holding ``self_attn`` keys and values ``(B, H, t, Dh)``, which grow by one
    position per step, and ``cross_attn`` keys and values ``(B, H, S, Dh)`` of
    the encoder output, computed at the first step.

    Derived in chapter 10 (Translating and evaluating).
    """

    length: int = 0  # positions decoded so far, t
    layers: list = field(default_factory=list)

    def reorder(self, rows: torch.Tensor) -> None:
        """Keep row ``rows[i]`` of the self-attention cache as row ``i``: beam search's surviving beams.

        The cross-attention cache is left alone: beams only ever move within
        their own sentence, whose encoder output is the same for all of them.
        """
        for layer in self.layers:
            self_attn = layer["self_attn"]
            # (B*K, H, t, Dh) -> (B*K, H, t, Dh), rows picked from the old beams
            self_attn["k"] = self_attn["k"].index_select(0, rows)
            self_attn["v"] = self_attn["v"].index_select(0, rows)


def _next_log_probs(model: Translator, tokens, memory, src_key_mask, cache: KVCache | None) -> torch.Tensor:
    """``tokens (B, t)`` decoded so far -> log-probabilities of the next token, ``(B, V)``."""
    if cache is None:  # recompute every position, as the slide deck does by hand
        mask = causal_attention_mask(tokens.shape[1], device=tokens.device)  # (t, t)
        logits = model.decode(tokens, memory, src_key_mask, mask)[:, -1]  # (B, t, V) -> (B, V)
    else:  # only the newest position; the others are in the cache
        logits = model.decode(tokens[:, -1:], memory, src_key_mask, cache=cache)[:, -1]  # (B, 1, V) -> (B, V)
    return torch.log_softmax(logits.float(), dim=-1)


def _output_budget(model: Translator, max_len: int | None) -> int:
    """How many tokens to generate at most: ``max_len``, within the model's positions (BOS takes one)."""
    limit = model.config.max_len - 1
    if max_len is None:
        return limit
    if max_len < 1:
        raise ValueError(f"max_len must be at least 1 (the EOS), got {max_len}")
    return min(max_len, limit)


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
def greedy_decode(model: Translator, src: torch.Tensor, src_key_mask: torch.Tensor, max_len: int | None = None,
                  use_cache: bool = True) -> list[list[int]]:
    """Translate a batch by taking the most likely token at every step: ``src (B, S)`` -> B lists of token ids.

    Starts from BOS and feeds each chosen token back in, one position per
    step, until every sentence has written EOS or ``max_len`` tokens (default:
    the model's ``max_len - 1``). The lists hold neither BOS nor EOS. With
    ``use_cache`` the decoder keeps its keys and values (``KVCache``); the
    result is the same as recomputing the whole prefix at every step.

    Derived in chapter 10 (Translating and evaluating).
    """
    model.eval()
    steps = _output_budget(model, max_len)
    memory = model.encode(src, src_key_mask)  # (B, S, D), once
    B = src.shape[0]
    tokens = torch.full((B, 1), BOS_ID, dtype=torch.long, device=src.device)  # (B, 1)
    finished = torch.zeros(B, dtype=torch.bool, device=src.device)
    cache = KVCache() if use_cache else None
    for _ in range(steps):
        next_token = _next_log_probs(model, tokens, memory, src_key_mask, cache).argmax(dim=-1)  # (B,)
        next_token = next_token.masked_fill(finished, PAD_ID)  # a finished sentence only pads
        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t) -> (B, t + 1)
        finished |= next_token == EOS_ID
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
def beam_search(model: Translator, src: torch.Tensor, src_key_mask: torch.Tensor, beam_size: int = 4,
                length_penalty: float = 0.6, max_len: int | None = None, use_cache: bool = True) -> list[list[int]]:
    """Translate a batch keeping the ``beam_size`` best partial translations of each sentence.

    At every step each of the K beams of a sentence is extended by every
    word, and the K best of the ``K x V`` candidates survive, ranked by their
    summed log-probability divided by ``length_penalty_factor(length,
    length_penalty)``. A beam that has written EOS is finished: it stays
    among the candidates with its score frozen, extended only by padding.
    The search ends when all beams of all sentences are finished or after
    ``max_len`` tokens; each sentence's best beam is returned, as token ids
    without BOS or EOS. ``beam_size=1`` is greedy decoding. The B sentences'
    K beams run as one batch of ``B * K`` rows; ``use_cache`` as in
    ``greedy_decode``, with the cache reordered as beams are chosen.

    Derived in chapter 10 (Translating and evaluating).
    """
    if isinstance(beam_size, bool) or not isinstance(beam_size, int) or beam_size < 1:
        raise ValueError(f"beam_size must be a whole number >= 1, got {beam_size!r}")
    model.eval()
    steps = _output_budget(model, max_len)
    B, K, device = src.shape[0], beam_size, src.device
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
    for _ in range(steps):
        log_probs = _next_log_probs(model, tokens, memory, src_key_mask, cache)  # (B*K, V)
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
        finished = finished.gather(1, beam) | (word == EOS_ID)
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


def _vocabs(model: Translator, src_vocab, tgt_vocab) -> tuple[Vocab, Vocab]:
    src_vocab = src_vocab if src_vocab is not None else model.src_vocab
    tgt_vocab = tgt_vocab if tgt_vocab is not None else model.tgt_vocab
    if src_vocab is None or tgt_vocab is None:
        raise ValueError(
            "the model carries no vocabularies (model.src_vocab / model.tgt_vocab): pass src_vocab= and tgt_vocab=, "
            "or use a model from train(), load_checkpoint() or load_pretrained()"
        )
    return src_vocab, tgt_vocab


def translate(sentences, model: Translator | None = None, beam_size: int = 1, *, src_vocab: Vocab | None = None,
              tgt_vocab: Vocab | None = None, length_penalty: float = 0.6, batch_size: int = 64,
              use_cache: bool = True):
    """Translate English sentences into Portuguese: a list of strings -> a list of strings (or one -> one).

    ``model`` defaults to the shipped pretrained one (``load_pretrained``).
    ``beam_size=1`` is greedy decoding, more is beam search. Bad input:

    - unknown words become UNK, with a warning naming them;
    - an empty (or blank) sentence translates to an empty string;
    - a sentence with more tokens than the model's ``max_len`` is a ``ValueError``.

    Derived in chapter 10 (Translating and evaluating).
    """
    single = isinstance(sentences, str)
    if single:
        sentences = [sentences]
    if model is None:
        model, src_vocab, tgt_vocab = load_pretrained()
    src_vocab, tgt_vocab = _vocabs(model, src_vocab, tgt_vocab)
    sources = []  # (index, token ids), encoded as make_batches does: the words alone, no BOS or EOS
    for i, sentence in enumerate(sentences):
        if not isinstance(sentence, str):
            raise ValueError(f"sentences[{i}] is a {type(sentence).__name__}, expected a string")
        words = tokenize(sentence)
        if not words:
            continue
        if len(words) > model.config.max_len:
            raise ValueError(
                f"sentence {i} has {len(words)} tokens, more than the {model.config.max_len} positions the "
                f"model was built for (TranslatorConfig.max_len): shorten or split it: {sentence[:60]!r}"
            )
        sources.append((i, src_vocab.encode(words)))
    out = [""] * len(sentences)
    device = next(model.parameters()).device
    for start in range(0, len(sources), batch_size):
        chunk = sources[start : start + batch_size]
        S = max(len(ids) for _, ids in chunk)
        # (B, S), padded on the right
        src = torch.tensor([ids + [PAD_ID] * (S - len(ids)) for _, ids in chunk], device=device)
        src_key_mask = padding_attention_mask(src != PAD_ID)  # (B, 1, 1, S)
        if beam_size == 1:
            hyps = greedy_decode(model, src, src_key_mask, use_cache=use_cache)
        else:
            hyps = beam_search(model, src, src_key_mask, beam_size, length_penalty, use_cache=use_cache)
        for (i, _), ids in zip(chunk, hyps):
            out[i] = detokenize(tgt_vocab.decode(ids))
    return out[0] if single else out


def evaluate(model: Translator, pairs, beam_size: int = 1, *, src_vocab: Vocab | None = None,
             tgt_vocab: Vocab | None = None, length_penalty: float = 0.6, batch_size: int = 128) -> dict:
    """BLEU, chrF (sacrebleu, 0-100) and exact match (% of sentences) of ``model`` on ``(english, portuguese)`` pairs.

    Returns ``{"bleu", "chrf", "exact_match", "sentences", "hypotheses"}``.
    BLEU counts the n-grams (n = 1..4) the translation shares with the
    reference, with a brevity penalty; chrF compares character n-grams, so it
    gives partial credit for a right stem with a wrong ending (cansado /
    cansada). Exact match compares the token lists (``tokenize``), so case
    and spacing before punctuation do not count.

    Derived in chapter 10 (Translating and evaluating).
    """
    import sacrebleu

    pairs = list(pairs)
    if not pairs:
        raise ValueError("evaluate got no sentence pairs")
    english = [e for e, _ in pairs]
    references = [detokenize(tokenize(p)) for _, p in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unknown words are part of what is measured here
        hypotheses = translate(english, model, beam_size, src_vocab=src_vocab, tgt_vocab=tgt_vocab,
                               length_penalty=length_penalty, batch_size=batch_size)
    exact = sum(tokenize(h) == tokenize(r) for h, r in zip(hypotheses, references))
    return {
        "bleu": sacrebleu.corpus_bleu(hypotheses, [references]).score,
        "chrf": sacrebleu.corpus_chrf(hypotheses, [references]).score,
        "exact_match": 100.0 * exact / len(pairs),
        "sentences": len(pairs),
        "hypotheses": hypotheses,
    }


def load_pretrained(device=None) -> tuple[Translator, Vocab, Vocab]:
    """The translator shipped with tutorlib: ``(model, src_vocab, tgt_vocab)``, in eval mode.

    Read from ``tutorlib/pretrained/translator.pt``; how it was trained, and
    its scores, are in ``tutorlib/pretrained/README.md``.

    Derived in chapter 10 (Translating and evaluating).
    """
    from .training import load_checkpoint

    return load_checkpoint(PRETRAINED_PATH, device=device)
