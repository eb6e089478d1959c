"""Scoring a translator (chapter 10): BLEU, chrF and exact match on sentence pairs.

``evaluate`` is its home (``tutorlib.translator`` held it before).
"""

from __future__ import annotations

from .data import Vocab, detokenize, tokenize
from .decoding import translate_sentences
from .kinds import check_beam_size, kind_of
from .model import Translator

__all__ = ["evaluate"]


def evaluate(
    model: Translator,
    pairs,
    beam_size: int = 1,
    *,
    src_vocab: Vocab | None = None,
    tgt_vocab: Vocab | None = None,
    length_penalty: float = 0.6,
    batch_size: int = 128,
) -> dict:
    """BLEU, chrF (sacrebleu, 0-100) and exact match (% of sentences) of ``model`` on ``(english,
    portuguese)`` pairs.

    Returns ``{"bleu", "chrf", "exact_match", "sentences", "hypotheses", "pairs", "skipped"}``.
    BLEU counts the n-grams (n = 1..4) the translation shares with the
    reference, with a brevity penalty; chrF compares character n-grams, so it
    gives partial credit for a right stem with a wrong ending (cansado /
    cansada). Exact match compares the token lists (``tokenize``), so case
    and spacing before punctuation do not count. Pairs longer than the
    model's ``max_len`` are skipped, as training skips them (``skipped``
    counts them; ``pairs`` are the ones scored, in the order of
    ``hypotheses``); a sentence that cannot be translated scores as an
    empty translation. No word is read as a typo (``translate_sentences``'s
    ``typos=False``): the pairs are the model's own kind of text.

    Chapter 13's ``GPT`` (any decoder-only kind, ``tutorlib.translation.kinds``)
    is scored the same way, decoded by its kind's ``translate`` (greedy;
    ``beam_size`` must be 1), skipping the pairs that do not fit its positions
    (``fits_gpt``).

    Derived in chapter 10 (Translating and evaluating).
    """
    import sacrebleu

    pairs = list(pairs)
    if not pairs:
        raise ValueError("evaluate got no sentence pairs")
    n = model.config.max_len
    kind = kind_of(model)  # its fit rule and its decoding
    check_beam_size(kind, beam_size)
    kept = [(e, p) for e, p in pairs if kind.fits(model, e, p)]
    if not kept:
        raise ValueError(
            f"all {len(pairs)} pairs are longer than the model's max_len={n}: nothing to score"
        )
    english = [e for e, _ in kept]
    references = [detokenize(tokenize(p)) for _, p in kept]
    if kind.decoder_only:
        hypotheses = kind.translate(
            english,
            model,
            batch_size=batch_size,
            skip_errors=True,
            typos=False,
            on_notice=lambda i, message: None,  # scored, not told: BLEU counts a lost name
        )
    else:
        results = translate_sentences(
            english,
            model,
            beam_size,
            src_vocab=src_vocab,
            tgt_vocab=tgt_vocab,
            length_penalty=length_penalty,
            batch_size=batch_size,
            typos=False,  # the phrasebook has no typos; its lower-case names would read as some
        )
        hypotheses = [r.text for r in results]
    exact = sum(tokenize(h) == tokenize(r) for h, r in zip(hypotheses, references))
    return {
        "bleu": sacrebleu.corpus_bleu(hypotheses, [references]).score,
        "chrf": sacrebleu.corpus_chrf(hypotheses, [references]).score,
        "exact_match": 100.0 * exact / len(kept),
        "sentences": len(kept),
        "hypotheses": hypotheses,
        "pairs": kept,
        "skipped": len(pairs) - len(kept),
    }
