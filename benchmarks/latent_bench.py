"""Multi-head latent attention (chapter 17) against multi-head and grouped-query attention, on
the course's GPT: quality and cache bytes of the shipped variants, one decoding step at length.

    .venv/bin/python benchmarks/latent_bench.py [--skip-step]

One run (OMP_NUM_THREADS=1, one torch thread):

1. **Equal recipe, the shipped variants**: chapter 15's ``ch15_rope`` (4 heads, each its own
   key and value: 128 numbers cached per token and block), ``ch15_rope_hkv2`` and
   ``ch15_rope_hkv1`` (pooled to 2 and 1 key/value heads, then 200 steps), and chapter 17's,
   each trained from scratch by ``ch15_rope``'s recipe (the preset "tiny", 3 epochs, the short
   training pairs, the same seed): ``ch17_mqa`` (one key/value head, 32 numbers),
   ``ch17_mla_c24`` (latent ``Dc = 24``, RoPE ``Dr = 8``: 32), ``ch17_mla_c16_r16`` (16 + 16 =
   32) and ``ch17_mla_c56`` (56 + 8 = 64). For each: parameters, the numbers cached per token
   per block (and bytes per token of the whole float32 cache, counted on a filled ``KVCache``),
   the validation loss per target token (no label smoothing) on the short validation pairs, and
   test BLEU and exact match on the short test sentences and on those of 9 to 20 English tokens
   (longer than any trained on). With ``--from-scratch`` also GQA ``Hkv = 2`` and MLA ``Dc =
   24, Dr = 16`` trained here by the same recipe (not shipped).
2. **DeepSeek-V2's published shape** (``tutorlib.latent.DEEPSEEK_V2``): the numbers cached per
   token, MLA against the same heads with multi-head, 8-group and multi-query attention.
3. **One decoding step at length** (unless ``--skip-step``): one layer of chapter 15's timing
   (``D = 512``, 8 heads of 64), a batch of 8 whose caches hold 2,048 positions: multi-head
   (``Hkv = 8``), ``Hkv = 2``, and MLA with ``Dc = 4 Dh = 256``, ``Dr = Dh / 2 = 32`` (DeepSeek-V2's
   proportions), plain (keys and values read out of the latent at every step) and absorbed.

A figure, not a test: the machine is shared, so read the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import torch

from tutorlib.latent import DEEPSEEK_V2, MultiHeadLatentAttention, published_latent_cache
from tutorlib.modern import GroupedQueryAttention
from tutorlib.translation.cache import KVCache
from tutorlib.translation.data import tokenize
from tutorlib.translation.evaluation import evaluate
from tutorlib.translation.gpt import gpt_batch_from, gpt_loss, kv_cache_bytes
from tutorlib.translation.gpt.batches import gpt_batcher
from tutorlib.translation.gpt.checkpoints import load_gpt
from tutorlib.translation.phrasebook import phrasebook

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ROOT / "tutorlib/pretrained/variants"
SHORT = 8  # chapter 15's: the models trained on English of up to 8 tokens
NAMES = {
    "MHA (ch15_rope)": "ch15_rope",
    "GQA Hkv=2, pooled (ch15_rope_hkv2)": "ch15_rope_hkv2",
    "MQA, pooled (ch15_rope_hkv1)": "ch15_rope_hkv1",
    "MQA (ch17_mqa)": "ch17_mqa",
    "MLA Dc=24 Dr=8 (ch17_mla_c24)": "ch17_mla_c24",
    "MLA Dc=16 Dr=16 (ch17_mla_c16_r16)": "ch17_mla_c16_r16",
    "MLA Dc=56 Dr=8 (ch17_mla_c56)": "ch17_mla_c56",
}


def row(what: str, value: str) -> None:
    print(f"{what:<34} {value}")


def splits():
    """Chapter 15's pairs: the short validation and test sentences, and the longer test ones."""

    def n(pair):
        return len(tokenize(pair[0]))

    valid = [p for p in phrasebook("valid") if n(p) <= SHORT]
    test = phrasebook("test")
    return valid, [p for p in test if n(p) <= SHORT], [p for p in test if n(p) > SHORT]


@torch.no_grad()
def valid_loss(model, pairs, batch_size: int = 128) -> float:
    """The mean cross-entropy per target token (and ``<eos>``), no label smoothing."""
    model.eval()
    config = replace(model.config, label_smoothing=0.0)
    tok = model.tokenizer
    total = tokens = 0.0
    for batch in gpt_batcher(pairs, model.vocab, model.vocab, batch_size, shuffle=False):
        batch = gpt_batch_from(batch, tok.sep_id, tok.eos_id)
        loss = gpt_loss(model, batch, config)
        total += loss.item() * batch.num_tgt_tokens
        tokens += batch.num_tgt_tokens
    return total / tokens


def cache_per_token(model) -> tuple[int, int]:
    """(numbers cached per token per block, bytes per token of the whole float32 cache), the
    second counted on a filled ``KVCache``."""
    tokens = torch.randint(5, len(model.vocab), (4, 10), generator=torch.Generator().manual_seed(0))
    cache = KVCache()
    with torch.no_grad():
        model.forward_step(tokens, cache)
    per_token = kv_cache_bytes(cache) // (4 * 10)
    return per_token // (4 * model.config.num_layers), per_token


def variant_rows(names=NAMES, valid=None, short=None, long=None, models=None) -> dict:
    """Every shipped variant's parameters, cache, validation loss, BLEU and exact match
    (``models``: label -> a model already in hand, instead of the shipped files)."""
    if valid is None:
        valid, short, long = splits()
    out = {}
    models = models or {label: load_gpt(VARIANTS / f"{name}.pt") for label, name in names.items()}
    for label, model in models.items():
        numbers, per_token = cache_per_token(model)
        s, lg = evaluate(model, short), evaluate(model, long)
        r = out[label] = {
            "parameters": model.num_parameters(),
            "numbers_per_token_per_layer": numbers,
            "bytes_per_token": per_token,
            "valid_loss": valid_loss(model, valid),
            "bleu": s["bleu"],
            "exact": s["exact_match"],
            "bleu_long": lg["bleu"],
            "exact_long": lg["exact_match"],
        }
        row(
            label,
            f"{r['parameters']:,} parameters; {numbers} numbers / token / block "
            f"({per_token:,} B / token, float32); valid loss {r['valid_loss']:.4f}; "
            f"BLEU {r['bleu']:.2f}, exact {r['exact']:.1f} %; 9-20 tokens: BLEU "
            f"{r['bleu_long']:.2f}, exact {r['exact_long']:.1f} %",
        )
    return out


def scratch_rows(kv_heads=(2,), latent=((24, 16),)) -> dict:
    """GQA (and MLA of other shapes) trained from scratch by ``ch15_rope``'s recipe, as the MLA
    variants were, not pooled from it: the same data, epochs, seed and sizes (minutes)."""
    from tutorlib.translation.gpt import GPT_PRESETS, joint_vocab
    from tutorlib.translation.gpt.latent import latent_config
    from tutorlib.translation.gpt.modern import modern_config
    from tutorlib.translation.gpt.training import train_modern_gpt

    def n(pair):
        return len(tokenize(pair[0]))

    train = [p for p in phrasebook("train") if n(p) <= SHORT]
    valid, short, long = splits()
    vocab = joint_vocab(train)
    tiny = replace(GPT_PRESETS["tiny"], epochs=3)
    configs = {
        f"GQA Hkv={kv}, from scratch": modern_config(tiny, num_kv_heads=kv, rope_base=10000.0)
        for kv in kv_heads
    }
    for d_latent, d_rope in latent:
        configs[f"MLA Dc={d_latent} Dr={d_rope}, scratch"] = latent_config(
            tiny, d_latent=d_latent, d_rope=d_rope
        )
    models = {}
    for label, config in configs.items():
        start = time.perf_counter()
        result = train_modern_gpt(config, train, valid, vocab=vocab, progress=False)
        models[label] = result.model.cpu().eval()
        row(f"trained: {label}", f"{time.perf_counter() - start:.0f} s")
    return variant_rows(valid=valid, short=short, long=long, models=models)


def deepseek_rows() -> dict:
    r = published_latent_cache(32768)
    m = DEEPSEEK_V2
    per = {
        "MHA": 2 * m.heads * m.d_head * m.layers,
        "GQA, 8 groups": 2 * 8 * m.d_head * m.layers,
        "MQA": 2 * m.d_head * m.layers,
        "MLA": (m.d_latent + m.d_rope) * m.layers,
    }
    for what, n in per.items():
        row(f"DeepSeek-V2 {what}", f"{n:,} numbers per token ({n / per['MLA']:.2f}x MLA)")
    row("DeepSeek-V2 at 32k tokens, float16", f"MHA {r['multi_head'] / 2**30:.1f} GiB, "
        f"MLA {r['latent'] / 2**30:.2f} GiB")  # fmt: skip
    return per


def step_rows(cached: int = 2048, batch: int = 8, turns: int = 9) -> dict:
    """One decoding step of one layer whose cache holds ``cached`` positions (ms, fastest)."""
    torch.manual_seed(0)
    D, H, Dh = 512, 8, 64
    steps = {}
    for kv in (8, 2):
        layer = GroupedQueryAttention(D, H, kv).eval()
        cache = {"k": torch.randn(batch, kv, cached, Dh), "v": torch.randn(batch, kv, cached, Dh)}
        steps[f"GQA Hkv={kv}"] = (layer, cache, {})
    mla = MultiHeadLatentAttention(D, H, 4 * Dh, Dh // 2).eval()
    latent = {
        "latent": torch.randn(batch, cached, 4 * Dh),
        "k_rope": torch.randn(batch, cached, 32),
    }
    steps["MLA plain"] = (mla, latent, {})
    steps["MLA absorbed"] = (mla, latent, {"absorbed": True})
    x = torch.randn(batch, 1, D)
    times = {name: [] for name in steps}
    for _ in range(turns):  # in turns, so that a busy machine slows them alike
        for name, (layer, cache, kw) in steps.items():
            c = {**cache, "t": cached}
            start = time.perf_counter()
            with torch.no_grad():
                layer.forward_step(x, c, **kw)
            times[name].append(time.perf_counter() - start)
    out = {}
    for name, (_, cache, _) in steps.items():
        held = sum(t.numel() * t.element_size() for t in cache.values())
        out[name] = {"ms": 1000 * min(times[name][1:]), "cache_MiB": held / 2**20}
        row(f"step: {name}", f"cache {held / 2**20:5.1f} MiB, {out[name]['ms']:6.2f} ms")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-step", action="store_true", help="no timing of a decoding step")
    parser.add_argument(
        "--from-scratch",
        action="store_true",
        help="also train GQA Hkv=2 and MLA Dc=24 Dr=16 by ch15_rope's recipe (minutes)",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    variant_rows()
    deepseek_rows()
    if not args.skip_step:
        step_rows()
    if args.from_scratch:
        scratch_rows()


if __name__ == "__main__":
    main()
