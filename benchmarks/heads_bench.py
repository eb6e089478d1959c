"""What the heads learned, measured in one run (``tutorlib.debug.heads``).

    .venv/bin/python benchmarks/heads_bench.py [--sentences 300] [--no-gpt] [--words]

1. **What removing a head breaks**: the shipped translator's BLEU (greedy) on the first
   ``--sentences`` test sentences with each of its 36 heads switched off alone (3 encoder, 3
   decoder and 3 cross-attention layers, 4 heads each), by zero ablation and by mean ablation
   (each head's mean output over as many validation sentences). Then the same for the shipped
   GPT on BPE (6 blocks x 4 heads; ``--words`` adds the GPT on words).
2. **Where the weights point**: each head's pattern scores on the same sentences,
   teacher-forced (``head_pattern_scores``): previous token, same position, first token,
   punctuation (and a GPT's ``<sep>``/``<eos>``), and for cross-attention the source word
   spelled as the word being written.
3. **Pointing against breaking**: Spearman's rank correlation between a score and the BLEU
   each head costs: over the translator's 12 cross-attention heads, the aligned score; over
   the GPT's 24 heads, the previous-token, same-position and punctuation scores.
4. **Induction heads**: ``train_induction()`` on one thread (seconds, layer 0's
   previous-token and layer 1's induction scores, copying on each half), and the same with
   the causal mask removed (a planted bug).

A figure, not a test: read the ranks and ratios, not the last digits.
"""

from __future__ import annotations

import argparse
import platform
import time

import torch

from tutorlib.debug import heads
from tutorlib.translation.checkpoints import load_pretrained
from tutorlib.translation.data import tokenize
from tutorlib.translation.evaluation import evaluate
from tutorlib.translation.gpt.checkpoints import load_pretrained as load_gpt
from tutorlib.translation.phrasebook import phrasebook


def ranks(values: list[float]) -> torch.Tensor:
    """Ranks from 0, tied values sharing their mean rank."""
    v = torch.tensor(values, dtype=torch.float64)
    r = v.argsort().argsort().double()
    for x in v.unique():
        r[v == x] = r[v == x].mean()
    return r


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation: Pearson's on the ranks."""
    ra, rb = ranks(a), ranks(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return float((ra * rb).sum() / (ra.norm() * rb.norm()))


def costs_table(model, test, valid) -> tuple[float, dict]:
    """Base BLEU and ``{(kind, layer, head): (zero cost, mean cost)}``."""
    base = evaluate(model, test)["bleu"]
    zero = heads.ablation_costs(model, test, how="zero")
    mean = heads.ablation_costs(model, test, how="mean", reference=valid)
    by = {(r["kind"], r["layer"], r["head"]): [r["cost"]] for r in zero}
    for r in mean:
        by[r["kind"], r["layer"], r["head"]].append(r["cost"])
    return base, by


def print_costs(title: str, base: float, by: dict) -> None:
    print(f"\n## {title}: BLEU {base:.2f} with every head; BLEU lost per head (zero / mean)")
    kinds = sorted({k for k, _, _ in by}, key=["encoder", "decoder", "cross", "self"].index)
    for kind in kinds:
        layers = sorted({l for k, l, _ in by if k == kind})
        for layer in layers:
            cells = [
                f"h{h} {by[kind, layer, h][0]:6.2f} / {by[kind, layer, h][1]:6.2f}"
                for h in sorted(h for k, l, h in by if k == kind and l == layer)
            ]
            print(f"{kind:8s} L{layer}  " + "   ".join(cells))
    worst = sorted(by.items(), key=lambda kv: -kv[1][0])[:3]
    print("largest zero-ablation costs: " + ", ".join(f"{k} {v[0]:.2f}" for k, v in worst))


def print_patterns(title: str, rows: list[dict]) -> None:
    print(f"\n## where {title}'s heads look (teacher-forced, mean weight on the keys named)")
    print("kind     layer head  previous  same   first  punct  aligned")
    for r in rows:
        vals = [r[k] for k in ("previous", "same", "first", "punctuation", "aligned")]
        cells = "  ".join("   -  " if v != v else f"{v:6.3f}" for v in vals)
        print(f"{r['kind']:8s}  L{r['layer']}   h{r['head']}   {cells}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--no-gpt", action="store_true", help="skip the GPT on BPE")
    ap.add_argument("--words", action="store_true", help="also the GPT on words")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    n = args.sentences
    test, valid = phrasebook("test")[:n], phrasebook("valid")[:n]
    print(f"# heads_bench: {platform.processor() or platform.machine()}, torch {torch.__version__}")
    print(f"{n} test sentences, mean ablation's reference: {n} validation sentences, 1 thread")

    model, _, _ = load_pretrained(device="cpu")
    before = {k: v.clone() for k, v in model.state_dict().items()}
    t0 = time.perf_counter()
    base, by = costs_table(model, test, valid)
    seconds = time.perf_counter() - t0
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    print_costs("the translator", base, by)
    print(f"({2 * len(by) + 3} evaluations in {seconds:.0f} s; weights bit-identical afterwards)")

    rows = heads.head_pattern_scores(model, test)
    print_patterns("the translator", rows)
    shared = sum(
        any(heads.spelled_alike(v, w) for w in tokenize(p) for v in tokenize(e)) for e, p in test
    )
    print(f"(aligned: the {shared} of {len(test)} sentences with a word spelled alike in both)")
    cross = [r for r in rows if r["kind"] == "cross"]
    aligned = [r["aligned"] for r in cross]
    for i, how in enumerate(("zero", "mean")):
        cost = [by["cross", r["layer"], r["head"]][i] for r in cross]
        rho = spearman(aligned, cost)
        print(f"Spearman(aligned score, {how}-ablation cost) over the 12 cross heads: {rho:+.2f}")

    gpts = [] if args.no_gpt else [("the GPT on BPE", None)]
    gpts += [("the GPT on words", "words")] if args.words else []
    for title, name in gpts:
        gpt = load_gpt() if name is None else load_gpt(name)
        t0 = time.perf_counter()
        base, by = costs_table(gpt, test, valid)
        print_costs(title, base, by)
        print(f"({2 * len(by) + 3} evaluations in {time.perf_counter() - t0:.0f} s)")
        rows = heads.head_pattern_scores(gpt, test)
        print_patterns(title, rows)
        for key in ("previous", "same", "punctuation"):
            for i, how in enumerate(("zero", "mean")):
                cost = [by["self", r["layer"], r["head"]][i] for r in rows]
                rho = spearman([r[key] for r in rows], cost)
                print(
                    f"Spearman({key} score, {how}-ablation cost) over {len(rows)} heads: {rho:+.2f}"
                )

    print("\n## induction heads: a 2-layer attention-only model, 2 heads, one thread")
    for causal in (True, False):
        r = heads.train_induction(causal=causal)
        c = r["copying"]
        print(
            f"causal={causal}: trained {len(r['losses'])} steps in {r['seconds']:.1f} s; "
            f"previous-token (L0) {[round(x, 2) for x in r['previous'].tolist()]}, "
            f"induction (L1) {[round(x, 2) for x in r['induction'].tolist()]}; "
            f"first half loss {c['first_loss']:.2f} (chance {r['chance_loss']:.2f}) "
            f"acc {c['first_accuracy']:.3f}, repeated half loss {c['second_loss']:.3f} "
            f"acc {c['second_accuracy']:.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
