"""Every benchmark of the course in one command: a JSON report, a plot of ratios against goals.

    .venv/bin/python benchmarks/run_all.py [--quick] [--out benchmarks/results]
                                           [--only attention,memory,...]

Groups (``--only`` takes a comma-separated subset): ``attention`` (our
attention and MultiHeadAttention vs PyTorch's, forward and forward +
backward), ``translator`` (training throughput of the shipped and the wide
preset vs torch.nn.Transformer and as a fraction of the fp32 matmul peak;
the shipped preset before/after issue 14; decoding with and without the KV
cache), ``memory`` (tiled vs naive attention, peak memory at T = 4096),
``tokenizer`` (byte-level BPE on the phrasebook: seconds to train 4096
tokens, tokens per sentence against word tokens, the incremental trainer
against a naive recount),
``gpt`` (chapters 13-14: the shipped GPT on BPE tokens on the test split and on
sentences with words never seen in training; its training against the
encoder-decoder's as shares of the fp32 matmul peak), ``serving`` (paged, quantised
and speculative decoding on the shipped GPTs), ``heads`` (the BLEU a head of the
translator costs when ablated; the induction toy's scores and copying),
``chapters`` (seconds per chapter; the book build, skipped with --quick) and
``grading`` (seconds per graded submission). Each figure is a ratio measured
side by side in one run; the functions are those of the scripts beside this
one. ``results.json`` holds, per entry: name, value, unit, goal, direction
(``<=`` or ``>=``), met, and the raw measurements; a group that fails is
recorded as an entry with ``error`` and the run goes on. ``results.png``
draws each ratio as a bar against its goal line. A figure, not a test: the
machine is shared, so read the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(HERE), str(ROOT)):
    if p not in sys.path:
        sys.path.insert(0, p)

GROUPS = (
    "attention",
    "translator",
    "memory",
    "tokenizer",
    "gpt",
    "serving",
    "heads",
    "chapters",
    "grading",
)
# Okabe-Ito, colour-blind safe
OKABE_ITO = {"met": "#009E73", "not met": "#D55E00", "goal": "#000000", "error": "#999999"}


def entry(name: str, value: float, goal: float, direction: str, unit: str = "ratio", **raw) -> dict:
    """One figure; ``met`` is value <= goal or value >= goal, as ``direction`` says."""
    if direction not in ("<=", ">="):
        raise ValueError(f"direction must be '<=' or '>=', not {direction!r}")
    value = float(value)
    met = value <= goal if direction == "<=" else value >= goal
    return {
        "name": name,
        "value": value,
        "unit": unit,
        "goal": float(goal),
        "direction": direction,
        "met": bool(met and math.isfinite(value)),
        "raw": raw,
    }


# --- the groups: each returns a list of entries ---------------------------------------------------


def bench_attention(quick: bool) -> list[dict]:
    import attention_vs_torch as avt
    import mha_vs_torch as mvt

    s = 0.25 if quick else 1.0
    out = []
    r = avt.sdpa_forward(reps=max(5, int(50 * s)))
    out.append(
        entry(
            "attention (NumPy) / F.scaled_dot_product_attention, forward",
            r["ratio"],
            avt.GOAL,
            "<=",
            **r,
        )
    )
    r = avt.mha_forward(reps=max(5, int(40 * s)))
    out.append(
        entry(
            "MultiHeadAttention / nn.MultiheadAttention, forward", r["ratio"], avt.GOAL, "<=", **r
        )
    )
    for B, T, D, H, reps in mvt.SIZES:
        reps = max(5, int(reps * (0.1 if quick else 1.0)))
        for masked in (False, True):
            o, t = mvt.measure(B, T, D, H, reps, masked)
            out.append(
                entry(
                    f"MultiHeadAttention / nn.MultiheadAttention, forward + backward "
                    f"(B={B} T={T} D={D} H={H}, {'padding' if masked else 'no'} mask)",
                    o / t,
                    mvt.GOAL,
                    "<=",
                    shape=[B, T, D, H],
                    masked=masked,
                    reps=reps,
                    ours_median_s=o,
                    torch_median_s=t,
                )
            )
    return out


def bench_translator(quick: bool) -> list[dict]:
    import translator_bench as tb

    out = []
    peak = tb.matmul_peak()
    for preset in ("pretrained", "wide"):
        r = tb.throughput(3 if quick else 30, preset, peak)
        peak = max(peak, r["peak_flops"])
        if preset == "pretrained":  # the name the earlier reports used for the shipped preset
            out.append(
                entry(
                    "Translator / torch.nn.Transformer, training tokens/s",
                    r["ratio"],
                    tb.THROUGHPUT_GOAL,
                    ">=",
                    **r,
                )
            )
            out.append(
                entry(
                    "Translator training, fraction of fp32 matmul peak",
                    r["of_peak"]["ours"],
                    tb.PEAK_GOALS[preset],
                    ">=",
                    of_peak=r["of_peak"],
                    peak_flops=r["peak_flops"],
                    steps=r["steps"],
                )
            )
        else:
            out.append(
                entry(
                    f"Translator / torch.nn.Transformer, training tokens/s, {preset} preset",
                    r["ratio"],
                    tb.THROUGHPUT_GOAL,
                    ">=",
                    **r,
                )
            )
            out.append(
                entry(
                    f"Translator training, fraction of fp32 matmul peak, {preset} preset",
                    r["of_peak"]["ours"],
                    tb.PEAK_GOALS[preset],
                    ">=",
                    of_peak=r["of_peak"],
                    peak_flops=r["peak_flops"],
                    steps=r["steps"],
                )
            )
    r = tb.before_after(2 if quick else 10)
    out.append(
        entry(
            "shipped preset's training tokens/s, after / before issue 14",
            r["speedup"],
            2.0,
            ">=",
            **r,
        )
    )
    r = tb.kv_cache(1 if quick else 5)
    out.append(
        entry(
            "beam search without / with the KV cache",
            r["speedup"] if r["identical"] else 0.0,
            tb.CACHE_GOAL,
            ">=",
            **r,
        )
    )
    return out


def bench_memory(quick: bool) -> list[dict]:
    from tutorlib.efficient import attention_memory

    r = attention_memory(4096, d_k=64, block_size=64)
    return [entry("naive / tiled attention, peak memory at T = 4096", r["ratio"], 10.0, ">=", **r)]


def bench_tokenizer(quick: bool) -> list[dict]:
    import bpe_bench as bb

    r = bb.sizes((256, 1024, 4096) if quick else bb.SIZES, reps=1 if quick else 3)
    last = r["rows"][-1]
    out = [
        entry(
            f"BPE training, {last['vocab_size']} tokens on the phrasebook's training split, "
            f"seconds / {bb.TRAIN_GOAL_S:g} s goal",
            last["train_s"] / bb.TRAIN_GOAL_S,
            1.0,
            "<=",
            seconds=last["train_s"],
            rows=r["rows"],
        ),
        entry(
            f"BPE ({last['vocab_size']} tokens) / word tokens per held-out sentence",
            last["ratio_to_words"],
            bb.WORDS_GOAL,
            "<=",
            **r,
        ),
    ]
    n = bb.naive_vs_incremental(2000 if quick else 5000, 1024)
    out.append(
        entry("BPE training, naive recount / incremental", n["speedup"], bb.SPEEDUP_GOAL, ">=", **n)
    )
    return out


def bench_gpt(quick: bool) -> list[dict]:
    import gpt_bench as gb

    models = gb.load_models()
    q = gb.quality(models, 300 if quick else None)["GPT, BPE"]
    names = gb.unseen_words(models)["GPT, BPE"]
    t = gb.throughput(3 if quick else 20)
    share = t["of_peak"]["GPT, words"] / t["of_peak"]["encoder-decoder"]
    return [
        entry("GPT (BPE) test BLEU / goal", q["bleu"] / gb.BLEU_GOAL, 1.0, ">=", **q),
        entry(
            "GPT (BPE) test exact match / goal", q["exact_match"] / gb.EXACT_GOAL, 1.0, ">=", **q
        ),
        entry(
            "GPT (BPE) sentences with an unseen word, all copied / goal",
            names["share"] / gb.NAMES_GOAL,
            1.0,
            ">=",
            **names,
        ),
        entry(
            "GPT / encoder-decoder, training share of the fp32 matmul peak",
            share,
            0.8,
            ">=",
            **t,
        ),
    ]


def bench_serving(quick: bool) -> list[dict]:
    import serving_bench as sb

    from tutorlib.serving.step import prompts_of
    from tutorlib.translation.gpt.checkpoints import load_gpt, load_pretrained
    from tutorlib.translation.phrasebook import phrasebook

    bpe = load_pretrained()
    pairs = phrasebook("test", names="real")[: 60 if quick else 300]
    prompts, budgets = prompts_of(bpe, [en for en, _ in pairs])
    reference, _ = sb.plain(bpe, prompts, budgets)
    paged = sb.paged_rows(bpe, prompts, budgets, reference)
    train = phrasebook("train", names="real")
    calibration = prompts_of(bpe, [en for en, _ in train[: 50 if quick else 200]])
    refs = [pt for _, pt in pairs]
    quant = sb.quantized_rows(bpe, prompts, budgets, reference, refs, calibration)
    words = load_pretrained("words")
    tiny = load_gpt(sb.ROOT / "tutorlib/pretrained/variants/ch17_draft.pt")
    w_prompts, w_budgets = prompts_of(words, [en for en, _ in phrasebook("test")[:200]])
    spec = sb.speculative_rows("words GPT, ch17_draft", words, tiny, w_prompts, w_budgets, ks=(2,))
    latent = bench_latent(quick)
    return [
        entry("contiguous / paged KV bytes, block 8", paged["contiguous_over_paged_block8"], 2.0,
              ">=", **paged),
        entry("paged decoding = generate (1 = identical)", float(paged["identical"]), 1.0, ">="),
        entry("int8 KV cache, translations identical to float (share)",
              quant["int8 token/token"]["same_as_float"] / 100, 0.95, ">=", **quant),
        entry("speculative = generate (1 = identical)", float(spec[2]["identical"]), 1.0, ">="),
        entry("speculative (k=2) target passes per token", spec[2]["target_passes_per_token"],
              0.9, "<=", **spec[2]),
        *latent,
    ]  # fmt: skip


def bench_latent(quick: bool) -> list[dict]:
    """Chapter 17's multi-head latent attention against MHA and MQA on the shipped variants."""
    import latent_bench as lb

    valid, short, long = lb.splits()
    if quick:
        valid, short, long = valid[:200], short[:200], long[:100]
    r = lb.variant_rows(valid=valid, short=short, long=long)
    mha, mqa = r["MHA (ch15_rope)"], r["MQA (ch17_mqa)"]
    mla = r["MLA Dc=16 Dr=16 (ch17_mla_c16_r16)"]
    return [
        entry("MLA (Dc=16, Dr=16) cache / MHA cache, per token", mla["bytes_per_token"]
              / mha["bytes_per_token"], 0.5, "<=", **mla),
        entry("MLA (Dc=16, Dr=16) test BLEU / MHA's", mla["bleu"] / mha["bleu"], 0.98, ">=",
              **mha),
        entry("MLA (Dc=16, Dr=16) test BLEU / MQA's (the same cache bytes)",
              mla["bleu"] / mqa["bleu"], 1.0, ">=", **mqa),
    ]  # fmt: skip


def bench_heads(quick: bool) -> list[dict]:
    import heads_bench as hb
    import torch

    from tutorlib.debug import heads
    from tutorlib.translation.checkpoints import load_pretrained
    from tutorlib.translation.phrasebook import phrasebook

    n = 40 if quick else 300
    model, _, _ = load_pretrained(device="cpu")
    before = {k: v.clone() for k, v in model.state_dict().items()}
    base, by = hb.costs_table(model, phrasebook("test")[:n], phrasebook("valid")[:n])
    same = all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    worst = max(by.items(), key=lambda kv: kv[1][0])
    toy = heads.train_induction(causal=True)
    c = toy["copying"]
    return [
        entry("translator weights unchanged by ablation (1 = bit-identical)", float(same), 1.0,
              ">=", sentences=n),
        entry("translator: largest BLEU lost to one zero-ablated head (points)", worst[1][0],
              2.0, ">=", unit="BLEU", head=list(worst[0]), base_bleu=base, sentences=n),
        entry("induction toy, seconds to train / 60 s", toy["seconds"] / 60, 1.0, "<=",
              seconds=toy["seconds"]),
        entry("induction toy, best induction score (layer 1)", float(toy["induction"].max()),
              0.6, ">=", previous=toy["previous"].tolist(), induction=toy["induction"].tolist()),
        entry("induction toy, next-token accuracy on the repeated half", c["second_accuracy"],
              0.9, ">=", first_half=c["first_accuracy"]),
    ]  # fmt: skip


def bench_chapters(quick: bool) -> list[dict]:
    import chapter_times as ct

    out = [
        entry(
            f"chapter {name}, seconds / {ct.budget(name):.0f} s budget",
            s / ct.budget(name),
            1.0,
            "<=",
            seconds=s,
        )
        for name, s in ct.chapter_rows()
    ]
    if not quick:
        s = ct.book_build()
        out.append(entry("book build, seconds / 600 s budget", s / 600.0, 1.0, "<=", seconds=s))
    return out


def bench_grading(quick: bool) -> list[dict]:
    import grading_times as gt

    exercise = "ex02_embeddings"
    solution = ROOT / "exercises" / "solutions" / f"{exercise}.ipynb"
    rows = gt.grading_rows(solution, exercise, 2 if quick else 30, 2)
    return [
        entry(
            f"grading ({what}), seconds per submission / 10 s goal",
            s / n / gt.GOAL_S,
            1.0,
            "<=",
            exercise=exercise,
            submissions=n,
            seconds=s,
        )
        for what, n, s in rows
    ]


BENCHES = {
    "attention": bench_attention,
    "translator": bench_translator,
    "memory": bench_memory,
    "tokenizer": bench_tokenizer,
    "gpt": bench_gpt,
    "serving": bench_serving,
    "heads": bench_heads,
    "chapters": bench_chapters,
    "grading": bench_grading,
}


def run(groups=GROUPS, quick: bool = False) -> dict:
    """Run ``groups`` and return the report (a JSON-serialisable dict); a failing group becomes
    an error entry."""
    import torch

    torch.set_num_threads(2)
    report = {
        "date": datetime.date.today().isoformat(),
        "quick": quick,
        "machine": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "groups": list(groups),
        "entries": [],
        "seconds": {},
    }
    for group in groups:
        start = time.perf_counter()
        print(f"== {group}", flush=True)
        try:
            report["entries"].extend(dict(e, group=group) for e in BENCHES[group](quick))
        except Exception as exc:  # record it and go on with the next group
            traceback.print_exc()
            report["entries"].append(
                {
                    "name": group,
                    "group": group,
                    "error": f"{type(exc).__name__}: {exc}",
                    "value": None,
                    "unit": "ratio",
                    "goal": None,
                    "met": False,
                    "raw": {},
                }
            )
        report["seconds"][group] = time.perf_counter() - start
    return report


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, int, str)) or x is None:
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    try:
        return float(x)
    except (TypeError, ValueError):
        return str(x)


def plot(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = report["entries"]
    fig, ax = plt.subplots(figsize=(13, 0.42 * len(entries) + 1.2))
    for i, e in enumerate(entries):
        if e.get("error"):
            ax.text(
                0.01,
                i,
                f"error: {e['error'][:60]}",
                va="center",
                color=OKABE_ITO["error"],
                transform=ax.get_yaxis_transform(),
            )
            continue
        ax.barh(
            i,
            e["value"],
            color=OKABE_ITO["met" if e["met"] else "not met"],
            hatch="" if e["met"] else "//",
            edgecolor="black",
            linewidth=0.5,
        )
        ax.plot([e["goal"]] * 2, [i - 0.45, i + 0.45], color=OKABE_ITO["goal"], linewidth=2)
    ax.set_yticks(range(len(entries)))
    ax.set_yticklabels(
        [
            f"{e['name'][:100]} ({e.get('direction', '')} {e['goal']:g})"
            if e.get("goal") is not None
            else e["name"]
            for e in entries
        ],
        fontsize=7,
    )
    ax.invert_yaxis()
    values = [e["value"] for e in entries if e.get("value")] + [
        e["goal"] for e in entries if e.get("goal")
    ]
    if values and max(values) / min(values) > 50:
        ax.set_xscale("log")
    ax.set_xlabel("ratio (bar); black line: goal; green: met; orange, hatched: not met")
    ax.set_title(f"Benchmarks, {report['date']}{' (quick)' if report['quick'] else ''}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="fewer repetitions, 2 graded copies, no book build"
    )
    parser.add_argument(
        "--out", type=Path, default=HERE / "results", help="folder for results.json and results.png"
    )
    parser.add_argument(
        "--only", default=",".join(GROUPS), help=f"comma-separated groups of {', '.join(GROUPS)}"
    )
    parser.add_argument("--no-plot", action="store_true", help="write the JSON only")
    args = parser.parse_args(argv)
    groups = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in groups if g not in BENCHES]
    if unknown:
        parser.error(f"unknown group(s) {unknown}; choose from {', '.join(GROUPS)}")
    start = time.perf_counter()
    report = run(groups, args.quick)
    report["total_seconds"] = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(_jsonable(report), indent=1) + "\n")
    if not args.no_plot:
        plot(report, args.out / "results.png")
    print(f"\n{'figure':<95} {'value':>9} {'goal':>8}  met")
    for e in report["entries"]:
        if e.get("error"):
            print(f"{e['name']:<95} error: {e['error']}")
        else:
            print(
                f"{e['name']:<95} {e['value']:9.3f} {e['direction']}{e['goal']:7.2f}  "
                f"{'yes' if e['met'] else 'no'}"
            )
    print(
        f"{report['total_seconds']:.0f} s; wrote {args.out / 'results.json'}"
        + ("" if args.no_plot else f" and {args.out / 'results.png'}")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
