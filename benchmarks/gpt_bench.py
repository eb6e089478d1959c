"""The decoder-only translator beside the encoder-decoder, side by side in one run (chapters 13-14).

    .venv/bin/python benchmarks/gpt_bench.py [--steps 20] [--sentences 1500] [--decode 256]

1. **Quality** on the phrasebook's test split, greedy: the shipped encoder-decoder
   (``tutorlib/pretrained/translator.pt``), the GPT on chapter 9's words (``gpt_words.pt``,
   the same words, batches and schedule, 0.3 % fewer parameters) and the GPT on chapter 14's
   BPE tokens (``gpt.pt``). BLEU, chrF, exact match. Goal for the shipped GPT (BPE): BLEU >= 95
   and exact match >= 90 %.
2. **Words never seen in training** (the test sentences holding a name or a number that no
   training sentence has): the share of those sentences whose translation holds every such
   word as typed. The encoder-decoder and the GPT on words copy an ``<unk>`` from the source
   word it read most (chapter 10's trick); the GPT on BPE spells the word out with no copy
   mechanism. Goal for the GPT on BPE: >= 90 %.
3. **Training tokens/s** on the same batches (the translator's ``make_batches`` of the
   training split; the GPT reads each as ``gpt_batch_from`` lays it out) from fresh models of
   the shipped presets, the steps interleaved, as ``train`` runs them (fused AdamW, foreach
   clipping). Both count the same target tokens; the GPT also runs its prompt and padding
   through all six blocks. Each step's FLOPs counted by ``FlopCounterMode`` (untimed), as a
   share of this machine's fp32 matmul peak measured between the steps.
4. **Decoding** the first ``--decode`` test sentences greedily with the KV cache, batches of
   64, repetitions interleaved: sentences per second.
5. **KV-cache memory** per sentence, float32: the encoder-decoder caches its 3 decoder
   layers' self-attention keys and values (``T`` positions) and cross-attention ones (``S``
   positions); the GPT caches ``S + 1 + T`` positions in each of its 6 blocks. Computed from
   the shapes for every test sentence and checked against a real cache of each model.

CPU, float32, 2 threads. A figure, not a test: the machine is shared, so read the ratios, not
the digits.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from translator_bench import PeakProbe, matmul_peak  # noqa: E402 (benchmarks/ beside us)

from tutorlib.translation import decoding  # noqa: E402
from tutorlib.translation.cache import KVCache  # noqa: E402
from tutorlib.translation.checkpoints import load_pretrained as load_translator  # noqa: E402
from tutorlib.translation.config import GPT_PRESETS, PRESETS  # noqa: E402
from tutorlib.translation.data import make_batches, tokenize  # noqa: E402
from tutorlib.translation.decoding import translate_sentences  # noqa: E402
from tutorlib.translation.evaluation import evaluate  # noqa: E402
from tutorlib.translation.gpt import (  # noqa: E402
    build_gpt,
    gpt_loss,
    joint_vocab,
    kv_cache_bytes,
)
from tutorlib.translation.gpt.checkpoints import load_pretrained  # noqa: E402
from tutorlib.translation.gpt.decoding import translate  # noqa: E402
from tutorlib.translation.model import build_translator, translator_loss  # noqa: E402
from tutorlib.translation.phrasebook import phrasebook  # noqa: E402
from tutorlib.translation.training import build_vocabs, make_optimizer  # noqa: E402

BLEU_GOAL, EXACT_GOAL, NAMES_GOAL = 95.0, 90.0, 90.0


def load_models(bpe: bool = True) -> dict:
    """The shipped models by name: the encoder-decoder, the GPT on words and (``bpe``) on BPE."""
    translator, _, _ = load_translator(device="cpu")
    models = {"encoder-decoder": translator, "GPT, words": load_pretrained("words")}
    if bpe:
        models["GPT, BPE"] = load_pretrained()
    return models


def _translate(model, english: list[str]) -> list[str]:
    # the phrasebook's own sentences: read as typed (its lower-case names are no typos)
    if getattr(model, "kind", "translator") == "gpt":
        return translate(  # scored here: a lost name's notice is not what this measures
            english,
            model,
            batch_size=64,
            skip_errors=True,
            typos=False,
            on_notice=lambda i, message: None,
        )
    return [r.text for r in translate_sentences(english, model, batch_size=64, typos=False)]


# --- 1 and 2: quality, and the words never seen in training --------------------------------------


def quality(models: dict, limit: int | None = None) -> dict:
    test = phrasebook("test")[:limit]
    print(f"1. the test split, greedy ({len(test)} sentences)")
    print(f"   {'model':<18}{'params':>11}{'BLEU':>8}{'chrF':>8}{'exact':>8}")
    rows = {}
    for name, model in models.items():
        r = evaluate(model, test)
        rows[name] = {k: r[k] for k in ("bleu", "chrf", "exact_match", "sentences", "skipped")}
        rows[name]["parameters"] = model.num_parameters()
        print(
            f"   {name:<18}{model.num_parameters():>11,}{r['bleu']:>8.2f}{r['chrf']:>8.2f}"
            f"{r['exact_match']:>7.1f}%"
        )
    bpe = rows["GPT, BPE"]
    met = bpe["bleu"] >= BLEU_GOAL and bpe["exact_match"] >= EXACT_GOAL
    print(
        f"   GPT on BPE: goal BLEU >= {BLEU_GOAL:g} and exact >= {EXACT_GOAL:g} %: "
        + ("met" if met else "NOT met")
    )
    return rows


def unseen_words(models: dict) -> dict:
    """The test sentences with a word that no training sentence has, and how often each model
    writes every such word (a name, a number) into its translation."""
    seen = {w for e, _ in phrasebook("train") for w in tokenize(e)}
    cases = []
    for e, p in phrasebook("test"):
        new = [w for w in tokenize(e) if w not in seen]
        if new:
            cases.append((e, p, new))
    english = [e for e, _, _ in cases]
    print(f"2. the {len(cases)} test sentences with a word never seen in training (names, numbers)")
    rows = {}
    for name, model in models.items():
        out = _translate(model, english)
        copied = sum(all(w in tokenize(h) for w in new) for h, (_, _, new) in zip(out, cases))
        exact = sum(tokenize(h) == tokenize(p) for h, (_, p, _) in zip(out, cases))
        rows[name] = {
            "sentences": len(cases),
            "copied": copied,
            "exact": exact,
            "share": 100.0 * copied / len(cases),
        }
        print(
            f"   {name:<18} every new word in the translation: {copied:>4} of {len(cases)} "
            f"({100.0 * copied / len(cases):.1f} %); whole translation right: {exact}"
        )
    share = rows["GPT, BPE"]["share"]
    print(
        f"   GPT on BPE (no copy mechanism): goal >= {NAMES_GOAL:g} %: "
        + ("met" if share >= NAMES_GOAL else "NOT met")
    )
    return rows


# --- 3. training throughput -----------------------------------------------------------------------


def _counted_flops(model, batch, loss_fn, config) -> float:
    from torch.utils.flop_counter import FlopCounterMode

    model.train()
    with FlopCounterMode(display=False) as counter:
        loss_fn(model, batch, config).backward()
    model.zero_grad(set_to_none=True)
    return float(counter.get_total_flops())


def throughput(steps: int) -> dict:
    pairs = phrasebook("train")
    src_vocab, tgt_vocab = build_vocabs(pairs)
    vocab = joint_vocab(pairs)
    torch.manual_seed(0)
    models = {
        "encoder-decoder": build_translator(PRESETS["pretrained"], src_vocab, tgt_vocab),
        "GPT, words": build_gpt(GPT_PRESETS["words"], vocab, vocab),
    }
    losses = {"encoder-decoder": translator_loss, "GPT, words": gpt_loss}
    c = PRESETS["pretrained"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batches = {
            "encoder-decoder": make_batches(pairs, src_vocab, tgt_vocab, c.batch_size, seed=0),
            "GPT, words": make_batches(pairs, vocab, vocab, c.batch_size, seed=0),
        }
    optimizers = {k: make_optimizer(m, m.config) for k, m in models.items()}
    print(
        f"3. training, the shipped presets from scratch, batches of {c.batch_size} pairs, "
        f"{steps} steps each, interleaved"
    )

    def one_step(name, batch) -> float:
        model, opt = models[name], optimizers[name]
        model.train()
        start = time.perf_counter()
        loss = losses[name](model, batch, model.config)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), model.config.grad_clip, foreach=True)
        opt.step()
        return time.perf_counter() - start

    probe = PeakProbe()
    for i in range(3):  # warm-up
        for name in models:
            one_step(name, batches[name][i])
    seconds = {k: [] for k in models}
    flops = {k: [] for k in models}
    tokens = []
    for i in range(3, 3 + steps):
        order = list(models) if i % 2 else list(models)[::-1]
        for name in order:
            batch = batches[name][i]
            flops[name].append(
                _counted_flops(models[name], batch, losses[name], models[name].config)
            )
            seconds[name].append(one_step(name, batch))
            probe()
        tokens.append(batches["GPT, words"][i].num_tgt_tokens)
        # the same pairs in both: the two vocabularies encode the same sentences
        assert batches["encoder-decoder"][i].num_tgt_tokens == tokens[-1]
    peak = max(probe.best, matmul_peak())
    rate = {k: statistics.median(n / t for n, t in zip(tokens, v)) for k, v in seconds.items()}
    achieved = {
        k: statistics.median(f / t for f, t in zip(flops[k], v)) for k, v in seconds.items()
    }
    ratio = statistics.median(
        g / t for t, g in zip(seconds["encoder-decoder"], seconds["GPT, words"])
    )
    print(f"   {'model':<18}{'target tok/s':>13}{'GFLOP/step':>12}{'GFLOP/s':>9}{'of peak':>9}")
    for name in models:
        print(
            f"   {name:<18}{rate[name]:>13,.0f}{statistics.median(flops[name]) / 1e9:>12.2f}"
            f"{achieved[name] / 1e9:>9.1f}{achieved[name] / peak:>9.1%}"
        )
    print(
        f"   GPT step time / encoder-decoder step time = {ratio:.2f} (median of paired steps); "
        f"fp32 matmul peak {peak / 1e9:.1f} GFLOP/s"
    )
    return {
        "steps": steps,
        "tokens_per_s": rate,
        "flops_per_step": {k: statistics.median(v) for k, v in flops.items()},
        "of_peak": {k: a / peak for k, a in achieved.items()},
        "gpt_over_translator_step_time": ratio,
        "peak_flops": peak,
    }


# --- 4. decoding speed ----------------------------------------------------------------------------


def decoding_speed(models: dict, n: int, reps: int = 3) -> dict:
    english = [e for e, _ in phrasebook("test")[:n]]
    for model in models.values():  # warm-up
        _translate(model, english[:64])
    seconds = {k: [] for k in models}
    for r in range(reps):
        for name in list(models) if r % 2 == 0 else list(models)[::-1]:
            start = time.perf_counter()
            _translate(models[name], english)
            seconds[name].append(time.perf_counter() - start)
    rate = {k: len(english) / statistics.median(v) for k, v in seconds.items()}
    print(f"4. greedy decoding with the KV cache, {len(english)} test sentences, batches of 64")
    for name, r in rate.items():
        print(f"   {name:<18}{r:>8.0f} sentences/s")
    return {"sentences": len(english), "sentences_per_s": rate}


# --- 5. the KV cache ------------------------------------------------------------------------------


def cache_formulas(translator, gpt, S: int, T: int) -> tuple[int, int]:
    """Bytes (float32) of each model's KV cache after writing ``T`` tokens for ``S`` source tokens.

    The encoder-decoder: per decoder layer, keys and values of the ``T`` positions it read
    (``<bos>`` and the words before the last) and of the ``S`` encoder outputs. The GPT: per
    block, keys and values of the ``S + 1`` prompt positions and the ``T - 1`` written ones it
    read (the last token written is never read).
    """
    tc, gc = translator.config, gpt.config
    enc_dec = 2 * tc.num_decoder_layers * tc.d_model * (T + S) * 4
    dec_only = 2 * gc.num_layers * gc.d_model * (S + 1 + T - 1) * 4
    return enc_dec, dec_only


def kv_cache(models: dict) -> dict:
    translator, gpt = models["encoder-decoder"], models["GPT, words"]
    # check the formulas on one sentence against the caches the decoders really fill
    english = "the sad sons did not follow the beautiful birds."
    caches = []

    @dataclasses.dataclass
    class Kept(KVCache):  # a KVCache that keeps a hold of itself
        def __post_init__(self):
            caches.append(self)

    real, S = {}, len(tokenize(english))
    gpt_module = sys.modules[translate.__module__]
    for i, (name, module) in enumerate((("encoder-decoder", decoding), ("GPT, words", gpt_module))):
        caches.clear()
        original = module.KVCache
        module.KVCache = Kept
        try:
            out = _translate(models[name], [english])[0]
        finally:
            module.KVCache = original
        real[name] = kv_cache_bytes(caches[-1])
        T = len(tokenize(out)) + 1  # the written words and <eos>
        formula = cache_formulas(translator, gpt, S, T)[i]
        assert real[name] == formula, (name, real[name], formula, S, T)
    sizes = {"encoder-decoder": [], "GPT, words": []}
    for e, p in phrasebook("test"):
        a, b = cache_formulas(translator, gpt, len(tokenize(e)), len(tokenize(p)) + 1)
        sizes["encoder-decoder"].append(a)
        sizes["GPT, words"].append(b)
    mean = {k: statistics.mean(v) for k, v in sizes.items()}
    print(
        "5. KV cache per sentence, float32 (checked on one sentence against the real caches: "
        f"{real['encoder-decoder']:,} and {real['GPT, words']:,} bytes)"
    )
    for name, m in mean.items():
        print(f"   {name:<18}{m / 1024:>8.1f} KiB on average over the test split")
    print(f"   GPT / encoder-decoder = {mean['GPT, words'] / mean['encoder-decoder']:.2f}")
    return {"mean_bytes": mean, "checked_on_one_sentence": real}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="training steps per model")
    parser.add_argument("--sentences", type=int, default=None, help="test sentences to score")
    parser.add_argument("--decode", type=int, default=256, help="test sentences to time")
    args = parser.parse_args()
    torch.set_num_threads(2)
    models = load_models()
    quality(models, args.sentences)
    unseen_words(models)
    throughput(args.steps)
    decoding_speed(models, args.decode)
    kv_cache(models)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
