"""Attention at serving scale (issue 38): the paged cache's bytes, the quantised cache's bytes
and quality, speculative decoding's acceptance and passes, on the shipped GPTs.

    .venv/bin/python benchmarks/serving_bench.py [--sentences 300] [--draft-steps 400]

One row per claim, all measured in one run (OMP_NUM_THREADS=1, one torch thread):

1. **Paged against contiguous**: for the test sentences decoded by the BPE GPT (mixed lengths:
   the prompt and the translation), the bytes a cache reserving ``max_len`` positions per
   sequence holds against blocks of 4, 8 and 16 positions, with each one's waste; and whether
   ``paged_generate`` (a pool of a quarter of the sentences' longest need, 32 at once) wrote
   exactly ``generate``'s tokens, and how many blocks it handed out against the pool's size.
2. **Quantised cache**: the channel ranges of keys and values (largest channel / median, per
   head, mean of the blocks), then int8 and int4 with per-token or per-channel (calibrated on
   200 training sentences) scales: bytes against float32, test-split BLEU and exact match
   against the float cache's, and the share of translations identical to the float cache's.
3. **Speculative decoding**, greedy: the words GPT with chapter 13's shipped tiny variant as
   its draft (the same vocabulary), and the BPE GPT with a draft of ``GPT_PRESETS["tiny"]``'s
   shape trained here on its tokenizer for ``--draft-steps`` steps (no shipped variant reads
   BPE tokens); k = 2 and 4: acceptance rate (accepted / proposed), target passes per token,
   whether the tokens equal ``generate``'s, and the wall-clock time against ``generate``, both
   one sentence at a time (the baseline before and after); and the time of one pass of each
   model, which bounds what fewer target passes can buy.

A figure, not a test: the machine is shared, so read the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from pathlib import Path

import sacrebleu
import torch

from tutorlib.serving.paged import cache_account, paged_generate
from tutorlib.serving.quantized import calibrate, channel_ranges, quantized_generate
from tutorlib.serving.speculative import speculative_generate, truncate
from tutorlib.serving.step import bytes_per_position, prompts_of
from tutorlib.translation.cache import KVCache
from tutorlib.translation.config import GPT_PRESETS
from tutorlib.translation.data import tokenize
from tutorlib.translation.gpt import generate
from tutorlib.translation.gpt.checkpoints import load_gpt, load_pretrained
from tutorlib.translation.gpt.training import train_gpt
from tutorlib.translation.phrasebook import phrasebook

ROOT = Path(__file__).resolve().parents[1]


def row(what: str, value: str) -> None:
    print(f"{what:<64} {value}")


def plain(model, prompts, budgets):
    """``generate``'s tokens, one sentence at a time, and the seconds it took."""
    start = time.perf_counter()
    out = [generate(model, torch.tensor([p]), n)[0] for p, n in zip(prompts, budgets)]
    return out, time.perf_counter() - start


def scores(model, outs, references) -> tuple[float, float]:
    """BLEU and exact match (%) of token-id translations against reference strings."""
    tok = model.tokenizer
    hyps = [
        tok.decode(ids)
        if hasattr(tok, "normalize")
        else " ".join(model.vocab.id_to_token(i) for i in ids)
        for ids in outs
    ]
    bleu = sacrebleu.corpus_bleu(hyps, [references]).score
    exact = 100 * sum(tokenize(h) == tokenize(r) for h, r in zip(hyps, references)) / len(hyps)
    return bleu, exact


def paged_rows(model, prompts, budgets, reference) -> dict:
    print("\n1. paged against contiguous (BPE GPT, test sentences with real names)")
    lengths = [len(p) + len(o) for p, o in zip(prompts, reference)]  # positions each holds
    per_position = bytes_per_position(model)
    mean = sum(lengths) / len(lengths)
    row(
        "sequences; positions min / mean / max",
        f"{len(lengths)}; {min(lengths)} / {mean:.1f} / {max(lengths)} "
        f"(max_len {model.config.max_len})",
    )
    for block in (4, 8, 16):
        a = cache_account(lengths, model.config.max_len, block, per_position)
        row(
            f"block {block}: contiguous / paged bytes (waste each)",
            f"{a.contiguous_bytes:,} / {a.paged_bytes:,} = "
            f"{a.contiguous_bytes / a.paged_bytes:.2f}x"
            f" ({a.contiguous_waste:.0%} / {a.paged_waste:.1%})",
        )
    need = sum(-(-(len(p) + n - 1) // 8) for p, n in zip(prompts, budgets))
    start = time.perf_counter()
    out, stats = paged_generate(
        model, prompts, budgets, block_size=8, num_blocks=need // 4, max_batch=32
    )
    seconds = time.perf_counter() - start
    row("paged_generate (block 8, 32 at once) = generate's tokens", str(out == reference))
    row(
        "blocks handed out / pool / peak held / preemptions",
        f"{stats['blocks_taken']} / {stats['num_blocks']} / {stats['peak_blocks']} / "
        f"{stats['preempted']}",
    )
    row("paged (32 at once) seconds", f"{seconds:.2f}")
    a = cache_account(lengths, model.config.max_len, 8, per_position)
    return {
        "contiguous_over_paged_block8": a.contiguous_bytes / a.paged_bytes,
        "identical": out == reference,
        **stats,
    }


def quantized_rows(model, prompts, budgets, reference, references, calibration) -> dict:
    print("\n2. quantised KV cache (BPE GPT)")
    ranges = channel_ranges(model, *[x[:50] for x in calibration])
    for name in ("keys", "values"):
        per_block = [r[f"{name}_max_over_median"] for r in ranges]
        row(
            f"{name}: largest channel / median channel, per block",
            " ".join(f"{x:.2f}" for x in per_block),
        )
    bleu, exact = scores(model, reference, references)
    row("float32 cache: BLEU / exact match", f"{bleu:.2f} / {exact:.1f} %")
    found = {}
    for bits in (8, 4):
        scales = calibrate(model, *calibration, bits=bits)
        for keys, values in (("token", "token"), ("channel", "token"), ("channel", "channel")):
            out, stats = quantized_generate(
                model, prompts, budgets, bits=bits, keys=keys, values=values, scales=scales
            )
            bleu, exact = scores(model, out, references)
            same = 100 * sum(a == b for a, b in zip(out, reference)) / len(out)
            found[f"int{bits} {keys}/{values}"] = {
                "bytes_over_float": stats["bytes"] / stats["float_bytes"],
                "bleu": bleu,
                "exact": exact,
                "same_as_float": same,
            }
            row(
                f"int{bits}, keys per {keys}, values per {values}: bytes / float32",
                f"{stats['bytes'] / stats['float_bytes']:.3f}; BLEU {bleu:.2f}, exact "
                f"{exact:.1f} %, same as float {same:.1f} %",
            )
    return found


def pass_seconds(model, prompt, reps: int = 200) -> float:
    """Median seconds of one ``forward_step`` of one new token after ``prompt`` (batch 1)."""
    cache = KVCache()
    model.forward_step(torch.tensor([prompt]), cache)
    token, times = torch.tensor([[prompt[-1]]]), []
    with torch.no_grad():
        for _ in range(reps):
            start = time.perf_counter()
            model.forward_step(token, cache)
            times.append(time.perf_counter() - start)
            truncate(cache, len(prompt))
    return statistics.median(times)


def speculative_rows(name, target, draft, prompts, budgets, ks=(2, 4)) -> dict:
    print(f"\n3. speculative decoding: {name}")
    t_draft, t_target = pass_seconds(draft, prompts[0]), pass_seconds(target, prompts[0])
    row(
        "one pass of one token, batch 1: draft / target ms",
        f"{1000 * t_draft:.2f} / {1000 * t_target:.2f} = {t_draft / t_target:.2f}",
    )
    reference, seconds = plain(target, prompts, budgets)
    row("target alone: target passes per token", "1.00")
    found = {}
    for k in ks:
        start = time.perf_counter()
        out, c = speculative_generate(target, draft, prompts, budgets, k=k)
        spec_seconds = time.perf_counter() - start
        _, again = plain(target, prompts, budgets)  # the baseline again, after, for the noise
        row(
            f"k={k}: = generate's tokens; acceptance; target passes / token",
            f"{out == reference}; {c['accepted'] / c['proposed']:.1%}; "
            f"{c['target_passes'] / c['tokens']:.2f}",
        )
        row(
            f"k={k}: seconds speculative / generate (before, after)",
            f"{spec_seconds:.2f} / ({seconds:.2f}, {again:.2f}) = "
            f"{spec_seconds / ((seconds + again) / 2):.2f}x",
        )
        found[k] = {
            "identical": out == reference,
            "acceptance": c["accepted"] / c["proposed"],
            "target_passes_per_token": c["target_passes"] / c["tokens"],
            "seconds_over_generate": spec_seconds / ((seconds + again) / 2),
        }
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=300)
    parser.add_argument("--draft-steps", type=int, default=400)
    args = parser.parse_args()
    torch.set_num_threads(1)
    bpe = load_pretrained()
    pairs = phrasebook("test", names="real")[: args.sentences]
    references = [pt for _, pt in pairs]
    prompts, budgets = prompts_of(bpe, [en for en, _ in pairs])
    reference, _ = plain(bpe, prompts, budgets)
    paged_rows(bpe, prompts, budgets, reference)
    train = phrasebook("train", names="real")
    calibration = prompts_of(bpe, [en for en, _ in train[:200]])
    quantized_rows(bpe, prompts, budgets, reference, references, calibration)

    words = load_pretrained("words")
    tiny = load_gpt(ROOT / "tutorlib/pretrained/variants/ch17_draft.pt")  # its tokens
    w_prompts, w_budgets = prompts_of(words, [en for en, _ in phrasebook("test")[:200]])
    speculative_rows("words GPT, draft ch17_draft (shipped)", words, tiny, w_prompts, w_budgets)

    start = time.perf_counter()
    config = replace(GPT_PRESETS["tiny"], max_len=bpe.config.max_len, bpe_vocab_size=0)
    draft = train_gpt(
        config,
        train,
        phrasebook("valid", names="real")[:200],
        vocab=bpe.vocab,
        max_steps=args.draft_steps,
        progress=False,
    ).model.eval()
    row(
        f"\nBPE draft: {draft.num_parameters():,} parameters, trained {args.draft_steps} steps",
        f"{time.perf_counter() - start:.0f} s",
    )
    speculative_rows("BPE GPT, draft trained above", bpe, draft, prompts[:200], budgets[:200])


if __name__ == "__main__":
    main()
