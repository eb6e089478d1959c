"""Byte-level BPE on the phrasebook: training time, encoding speed and tokens per sentence by size.

    .venv/bin/python benchmarks/bpe_bench.py [--sizes 256,512,1024,2048,4096] [--subset 5000]
        [--naive-vocab 1024]

1. **Sizes.** ``tutorlib.tokenizers.BPE.train`` on the phrasebook's training
   split (``phrasebook("train")``, the pairs chapter 9 trains the translator
   on), English and Portuguese sentences together as separate texts: one
   tokenizer for both languages, as the GPT of chapter 13 reads an English
   sentence, ``<sep>`` and its Portuguese translation in one sequence. For
   each vocabulary size (256 is the bytes alone; no special tokens, so the
   sizes are the merges plus 256): seconds to train; encoding throughput
   (characters per second, best of 3) on the held-out sentences (valid and
   test splits, both languages) with a cold cache (a fresh tokenizer) and a
   warm one (the same sentences again); the mean tokens per held-out sentence, and its
   ratio to the translator's word tokens (``tutorlib.translation.data.tokenize``,
   whose vocabulary writes ``<unk>`` for every name it never saw, where BPE
   has no unknown token). Every held-out sentence is checked to round-trip.
   Goals: 4096 tokens trained in at most 10 s on 2 cores; at 4096 tokens, at
   most 1.25 tokens per word token (and nothing unknown).
2. **Incremental against naive.** The incremental trainer against a naive
   one that recounts every pair of the corpus after each merge (the
   step-by-step version of chapter 14, written below), on the first
   ``--subset`` pairs of the training split for 1024 tokens; both must learn
   the same merges. Goal: naive/incremental >= 10x.

A figure, not a test: the machine is shared, so read the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter

from tutorlib.tokenizers import BPE, split_text
from tutorlib.translation.phrasebook import phrasebook

SIZES = (256, 512, 1024, 2048, 4096)
TRAIN_GOAL_S = 10.0  # 4096 tokens on the training split, 2 cores
SPEEDUP_GOAL = 10.0  # naive recount / incremental
WORDS_GOAL = 1.25  # BPE tokens / word tokens per held-out sentence at 4096 tokens


def sentences(split: str, limit: int | None = None) -> list[str]:
    """Both sides of a phrasebook split, each sentence a text of its own."""
    return [s for pair in phrasebook(split)[:limit] for s in pair]


def naive_train(texts, vocab_size: int) -> list[tuple[int, int]]:
    """Merges by recounting every pair after each merge: the same tie rule as BPE.train."""
    chunks = Counter(c for t in texts for c in split_text(t))
    words = {c: list(c.encode("utf-8")) for c in chunks}
    merges = []
    while 256 + len(merges) < vocab_size:
        counts = Counter()
        for c, word in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] += chunks[c]
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        new_id = 256 + len(merges)
        merges.append(best)
        for c, word in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and word[i] == best[0] and word[i + 1] == best[1]:
                    out.append(new_id)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            words[c] = out
    return merges


def sizes(vocab_sizes=SIZES, reps: int = 3) -> dict:
    """Train at each size; time, throughput (best of ``reps``) and tokens per held-out sentence."""
    from tutorlib.translation.data import tokenize  # the translator's word tokens (imports torch)

    train = sentences("train")
    held_out = sentences("valid") + sentences("test")
    chars = sum(len(s) for s in held_out)
    words = statistics.fmean(len(tokenize(s)) for s in held_out)
    rows = []
    print(
        f"{len(train)} training sentences ({len(train) // 2} pairs, both languages), "
        f"{len(held_out)} held-out sentences; word tokens per held-out sentence: {words:.2f}"
    )
    print(
        f"{'vocab':>6} {'train s':>8} {'encode chars/s cold':>20} {'warm':>10} "
        f"{'tokens/sentence':>16} {'/ words':>8}"
    )
    for vocab_size in vocab_sizes:
        start = time.perf_counter()
        bpe = BPE.train(train, vocab_size, special_tokens=())
        train_s = time.perf_counter() - start
        cold, warm = [], []
        for _ in range(reps):
            fresh = BPE(bpe.merges, ())  # the same merges, an empty cache
            for times in (cold, warm):
                start = time.perf_counter()
                encoded = [fresh.encode(s) for s in held_out]
                times.append(time.perf_counter() - start)
        speeds = [chars / min(cold), chars / min(warm)]
        assert all(bpe.decode(ids) == s for ids, s in zip(encoded, held_out))
        per_sentence = statistics.fmean(map(len, encoded))
        row = {
            "vocab_size": bpe.vocab_size,
            "train_s": train_s,
            "encode_chars_per_s_cold": speeds[0],
            "encode_chars_per_s_warm": speeds[1],
            "tokens_per_sentence": per_sentence,
            "ratio_to_words": per_sentence / words,
        }
        rows.append(row)
        print(
            f"{row['vocab_size']:>6} {train_s:>8.2f} {speeds[0]:>20,.0f} {speeds[1]:>10,.0f} "
            f"{per_sentence:>16.2f} {per_sentence / words:>8.2f}"
        )
    return {"rows": rows, "word_tokens_per_sentence": words, "held_out_sentences": len(held_out)}


def naive_vs_incremental(subset: int = 5000, vocab_size: int = 1024) -> dict:
    """Seconds of each trainer on the first ``subset`` pairs; both must learn the same merges."""
    texts = sentences("train", subset)
    start = time.perf_counter()
    ours = BPE.train(texts, vocab_size, special_tokens=()).merges
    incremental_s = time.perf_counter() - start
    start = time.perf_counter()
    naive = naive_train(texts, vocab_size)
    naive_s = time.perf_counter() - start
    assert ours == naive, "the incremental trainer learned other merges than the naive one"
    r = {
        "pairs": subset,
        "vocab_size": vocab_size,
        "incremental_s": incremental_s,
        "naive_s": naive_s,
        "speedup": naive_s / incremental_s,
    }
    print(
        f"naive recount vs incremental, {subset} pairs, {vocab_size} tokens: "
        f"naive {naive_s:.2f} s, "
        f"incremental {incremental_s:.2f} s, {r['speedup']:.1f}x (goal >= {SPEEDUP_GOAL:g}x); "
        "same merges"
    )
    return r


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", default=",".join(map(str, SIZES)), help="vocabulary sizes (default %(default)s)"
    )
    parser.add_argument(
        "--subset", type=int, default=5000, help="pairs for naive vs incremental (default 5000)"
    )
    parser.add_argument(
        "--naive-vocab", type=int, default=1024, help="tokens for naive vs incremental (1024)"
    )
    args = parser.parse_args()
    r = sizes([int(s) for s in args.sizes.split(",")])
    last = r["rows"][-1]
    print(
        f"{last['vocab_size']} tokens trained in {last['train_s']:.2f} s "
        f"(goal <= {TRAIN_GOAL_S:g} s); {last['ratio_to_words']:.2f} tokens per word token "
        f"(goal <= {WORDS_GOAL:g})"
    )
    naive_vs_incremental(args.subset, args.naive_vocab)
    return 0


if __name__ == "__main__":
    sys.exit(main())
