"""The translator's figures, side by side in one run: the shipped model, training throughput, the KV cache.

    .venv/bin/python benchmarks/translator_bench.py [--steps 30] [--skip-model]

1. **The shipped checkpoint** (``tutorlib/pretrained/translator.pt``): size,
   and BLEU, chrF and exact match on the phrasebook's test split, greedy and
   beam 4 (goal: BLEU >= 95 and exact match >= 90%). Its training command
   and time are read from the checkpoint (written when it was trained).
2. **Training throughput**: target tokens per second of ``Translator``
   against an equivalent ``torch.nn.Transformer`` model (the same sizes,
   embeddings, tied output layer and sinusoidal positions; the same weights,
   checked by comparing their logits; the same batches, loss, AdamW and
   gradient clipping), steps alternating between the two. Goal: ours/torch
   >= 0.95. Also as a fraction of this machine's fp32 matmul peak, measured
   here with large ``torch.mm`` products (model FLOPs counted on the padded
   batches: 2 per multiply-add, backward twice the forward).
3. **Beam search (beam 4) with and without the KV cache** on outputs of 30
   tokens (EOS is forbidden, so every sentence runs the full 30 steps),
   interleaved repetitions. Goal: with/without >= 2x faster.

CPU, float32, 2 threads. A figure, not a test: the machine is shared, so read
the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings

import torch
from torch import nn

from tutorlib.data import PAD, SPECIALS, make_batches, phrasebook
from tutorlib.nn import DecoderLayer, EncoderLayer
from tutorlib.training import build_vocabs, read_checkpoint, translation_loss
from tutorlib.translator import (
    EOS_ID,
    PRESETS,
    PRETRAINED_PATH,
    Translator,
    beam_search,
    evaluate,
    load_pretrained,
)

THROUGHPUT_GOAL, CACHE_GOAL = 0.95, 2.0
PAD_ID = SPECIALS.index(PAD)


# --- 1. the shipped checkpoint -----------------------------------------------------------


def shipped_model() -> None:
    print("1. the shipped checkpoint")
    if not PRETRAINED_PATH.exists():
        print(f"   {PRETRAINED_PATH} is missing: train it with python -m tutorlib train --preset pretrained "
              "--out tutorlib/pretrained")
        return
    state = read_checkpoint(PRETRAINED_PATH)
    meta = state.get("meta", {})
    model, _, _ = load_pretrained(device="cpu")
    size = PRETRAINED_PATH.stat().st_size
    print(f"   {PRETRAINED_PATH.name}: {size / 2**20:.2f} MiB ({size / 1e6:.2f} MB), {model.num_parameters():,} "
          f"parameters (goal <= 5 MB)")
    if meta:
        print(f"   trained by `{meta.get('command')}`: train() took {meta.get('train_seconds')} s when it was made "
              f"(goal: the command <= 300 s on 2 CPU cores)")
    test = phrasebook("test")
    for beam in (1, 4):
        start = time.perf_counter()
        s = evaluate(model, test, beam_size=beam)
        seconds = time.perf_counter() - start
        ok = "met" if s["bleu"] >= 95 and s["exact_match"] >= 90 else "NOT met"
        print(f"   test split ({s['sentences']} held-out sentences), {'greedy' if beam == 1 else f'beam {beam}'}: "
              f"BLEU {s['bleu']:.2f}, chrF {s['chrf']:.2f}, exact match {s['exact_match']:.1f}% "
              f"({seconds:.1f} s); goal BLEU >= 95 and exact match >= 90%: {ok}")


# --- 2. training throughput ---------------------------------------------------------------


class TorchTranslator(nn.Module):
    """The same translator on ``torch.nn.Transformer``: our embeddings and positions, PyTorch's layers."""

    def __init__(self, config):
        super().__init__()
        c = config
        self.config = c
        self.src_embed = nn.Embedding(c.src_vocab_size, c.d_model)
        self.tgt_embed = nn.Embedding(c.tgt_vocab_size, c.d_model)
        self.register_buffer("pe", Translator(c).pos.pe.clone(), persistent=False)
        self.transformer = nn.Transformer(c.d_model, c.num_heads, c.num_encoder_layers, c.num_decoder_layers,
                                          c.d_ff, c.dropout, batch_first=True, norm_first=c.norm_first)
        self.generator = nn.Linear(c.d_model, c.tgt_vocab_size)
        self.generator.weight = self.tgt_embed.weight
        self.drop_src, self.drop_tgt = nn.Dropout(c.dropout), nn.Dropout(c.dropout)

    def forward(self, batch):
        scale = self.config.d_model ** 0.5
        S, T = batch.src.shape[1], batch.tgt_in.shape[1]
        src = self.drop_src(self.src_embed(batch.src) * scale + self.pe[:S])
        tgt = self.drop_tgt(self.tgt_embed(batch.tgt_in) * scale + self.pe[:T])
        src_pad = ~batch.src_key_mask[:, 0, 0, :]  # PyTorch: True = ignore
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)  # PyTorch: True = may not attend
        out = self.transformer(src, tgt, tgt_mask=causal, src_key_padding_mask=src_pad,
                               tgt_key_padding_mask=batch.tgt_in == PAD_ID, memory_key_padding_mask=src_pad)
        return self.generator(out)


def ours_from_torch(theirs: TorchTranslator) -> Translator:
    """A ``Translator`` with ``theirs``'s weights, through chapter 8's ``from_torch``."""
    ours = Translator(theirs.config)
    with torch.no_grad():
        ours.src_embed.weight.copy_(theirs.src_embed.weight)
        ours.tgt_embed.weight.copy_(theirs.tgt_embed.weight)
        ours.generator.bias.copy_(theirs.generator.bias)
        t = theirs.transformer
        for i, layer in enumerate(t.encoder.layers):
            ours.encoder.layers[i] = EncoderLayer.from_torch(layer)
        for i, layer in enumerate(t.decoder.layers):
            ours.decoder.layers[i] = DecoderLayer.from_torch(layer)
        for mine, theirs_norm in ((ours.encoder.norm, t.encoder.norm), (ours.decoder.norm, t.decoder.norm)):
            mine.weight.copy_(theirs_norm.weight)
            mine.bias.copy_(theirs_norm.bias)
    return ours


def matmul_peak(n: int = 1024, reps: int = 20) -> float:
    """FLOP/s of the best of ``reps`` ``(n, n) @ (n, n)`` float32 products."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    for _ in range(3):
        a @ b
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * n**3 / best


def step_flops(c, B: int, S: int, T: int) -> float:
    """Forward + backward FLOPs of one training step on a padded (B, S) -> (B, T) batch (3x the forward)."""
    D, F = c.d_model, c.d_ff
    enc = c.num_encoder_layers * B * S * (2 * 4 * D * D + 2 * 2 * D * F + 2 * 2 * S * D)
    dec = c.num_decoder_layers * (
        B * T * (2 * 4 * D * D + 2 * 2 * D * D + 2 * 2 * D * F + 2 * 2 * T * D + 2 * 2 * S * D)  # self, q/o, ffn
        + B * S * 2 * 2 * D * D  # cross-attention keys and values of the memory
    )
    out = B * T * 2 * D * c.tgt_vocab_size
    return 3.0 * (enc + dec + out)


def throughput(steps: int) -> dict:
    print("2. training throughput (pretrained preset, batch 64, dropout on, AdamW, label smoothing, clipping)")
    pairs = phrasebook("train")
    src_vocab, tgt_vocab = build_vocabs(pairs)
    c = PRESETS["pretrained"]
    from dataclasses import replace

    c = replace(c, src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab))
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "enable_nested_tensor is True, but ... norm_first was True"
        theirs = TorchTranslator(c)
    ours = ours_from_torch(theirs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batches = make_batches(pairs, src_vocab, tgt_vocab, c.batch_size, seed=0, max_len=c.max_len)
    probe = batches[0]
    ours.eval(), theirs.eval()
    with torch.no_grad():
        gap = (ours(probe) - theirs(probe)).abs().max().item()
    print(f"   same weights, same logits: max |ours - torch| = {gap:.1e} (eval mode)")
    assert gap < 1e-4, "the two models are not equivalent"
    models = {"ours": ours, "torch": theirs}
    optimizers = {k: torch.optim.AdamW(m.parameters(), lr=c.lr, betas=(0.9, 0.98), eps=1e-9,
                                       weight_decay=c.weight_decay) for k, m in models.items()}
    seconds = {k: [] for k in models}
    tokens, flops = [], []

    def one_step(name, batch):
        model, opt = models[name], optimizers[name]
        model.train()
        start = time.perf_counter()
        loss = translation_loss(model(batch), batch.tgt_out, c.label_smoothing)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), c.grad_clip)
        opt.step()
        return time.perf_counter() - start

    for batch in batches[:5]:  # warm-up
        for name in models:
            one_step(name, batch)
    for i, batch in enumerate(batches[5 : 5 + steps]):
        order = list(models) if i % 2 == 0 else list(models)[::-1]
        for name in order:
            seconds[name].append(one_step(name, batch))
        tokens.append(batch.num_tgt_tokens)
        flops.append(step_flops(c, *batch.src.shape, batch.tgt_in.shape[1]))
    peak = matmul_peak()
    rate = {k: sum(tokens) / sum(v) for k, v in seconds.items()}
    ratio = rate["ours"] / rate["torch"]
    print(f"   {steps} steps each, interleaved; {sum(tokens) / steps:.0f} target tokens per step")
    print(f"   {'model':<28}{'tokens/s':>10}{'ms/step':>9}{'GFLOP/s':>9}{'of peak':>9}")
    for name, label in (("ours", "tutorlib Translator"), ("torch", "torch.nn.Transformer")):
        achieved = sum(flops) / sum(seconds[name])
        print(f"   {label:<28}{rate[name]:>10,.0f}{1e3 * statistics.median(seconds[name]):>9.1f}"
              f"{achieved / 1e9:>9.1f}{achieved / peak:>9.1%}")
    print(f"   fp32 matmul peak here: {peak / 1e9:.1f} GFLOP/s (1024 x 1024 x 1024, {torch.get_num_threads()} threads)")
    verdict = "met" if ratio >= THROUGHPUT_GOAL else "NOT met"
    print(f"   ours/torch = {ratio:.3f}; goal >= {THROUGHPUT_GOAL}: {verdict}")
    return {"steps": steps, "seconds": seconds, "tokens": tokens, "flops": flops, "peak_flops": peak,
            "tokens_per_s": rate, "ratio": ratio,
            "of_peak": {k: sum(flops) / sum(v) / peak for k, v in seconds.items()}}


# --- 3. the KV cache ------------------------------------------------------------------------


def kv_cache(reps: int) -> dict:
    print("3. beam search (beam 4) with and without the KV cache, outputs of 30 tokens")
    if PRETRAINED_PATH.exists():
        model, src_vocab, tgt_vocab = load_pretrained(device="cpu")
        what = "the shipped model"
    else:
        pairs = phrasebook("train")
        src_vocab, tgt_vocab = build_vocabs(pairs)
        from dataclasses import replace

        model = Translator(replace(PRESETS["pretrained"], src_vocab_size=len(src_vocab),
                                   tgt_vocab_size=len(tgt_vocab)), src_vocab, tgt_vocab).eval()
        what = "an untrained model of the pretrained preset"

    def no_eos(module, inputs, logits):  # every sentence runs all 30 steps
        logits[..., EOS_ID] = float("-inf")
        return logits

    hook = model.generator.register_forward_hook(no_eos)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = make_batches(phrasebook("test")[:32], src_vocab, tgt_vocab, 32, shuffle=False)[0]
    out = {}
    times = {True: [], False: []}
    for rep in range(reps + 1):
        for use_cache in ((True, False) if rep % 2 == 0 else (False, True)):
            start = time.perf_counter()
            out[use_cache] = beam_search(model, batch.src, batch.src_key_mask, 4, max_len=30, use_cache=use_cache)
            if rep > 0:  # the first round warms up
                times[use_cache].append(time.perf_counter() - start)
    hook.remove()
    assert all(len(ids) == 30 for ids in out[True]), "every output has 30 tokens"
    same = out[True] == out[False]
    with_s, without_s = statistics.median(times[True]), statistics.median(times[False])
    speedup = without_s / with_s
    print(f"   {what}, 32 test sentences x 4 beams, 30 tokens each, median of {reps} interleaved runs")
    print(f"   with the cache {with_s * 1e3:.0f} ms, without {without_s * 1e3:.0f} ms: {speedup:.2f}x faster; "
          f"identical output: {same}")
    verdict = "met" if speedup >= CACHE_GOAL and same else "NOT met"
    print(f"   goal >= {CACHE_GOAL:.0f}x with identical output: {verdict}")
    return {"reps": reps, "model": what, "with_cache_s": times[True], "without_cache_s": times[False],
            "speedup": speedup, "identical": same}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30, help="training steps per model (default 30)")
    parser.add_argument("--reps", type=int, default=5, help="beam-search runs with and without the cache (default 5)")
    parser.add_argument("--skip-model", action="store_true", help="skip evaluating the shipped checkpoint")
    args = parser.parse_args()
    torch.set_num_threads(2)
    print(f"torch {torch.__version__}, CPU, float32, {torch.get_num_threads()} threads")
    if not args.skip_model:
        shipped_model()
    throughput(args.steps)
    kv_cache(args.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
