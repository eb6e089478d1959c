"""tutorlib.nn.MultiHeadAttention against torch.nn.MultiheadAttention: forward + backward time, side
by side.

    .venv/bin/python benchmarks/mha_vs_torch.py [--reps-scale 1.0]

Both modules hold the same weights (``MultiHeadAttention.from_torch``) and run
self-attention on the same float32 batch on the CPU with 2 threads, with no
mask and with a padding mask (ours ``(B, 1, 1, S)`` True = may attend, torch's
``key_padding_mask`` its negation). PyTorch is called with
``need_weights=False`` so that both take the fused
``scaled_dot_product_attention`` path; with its default ``need_weights=True``
it computes the weights explicitly and is slower. The repetitions alternate
between the two (and which goes first), so a busy moment of the shared
machine hits both alike; the table shows median times and their ratio.
The goal is ours/torch <= 1.05. A figure, not a test: read the ratios, not
the digits.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch

from tutorlib.nn import MultiHeadAttention

GOAL = 1.05
# (B, T, D, H, repetitions): a paper-like width, and a small one where per-call Python overhead
# shows
SIZES = [(32, 64, 256, 8, 40), (4, 16, 64, 4, 400)]


def forward_backward(module, x, call):
    x.grad = None
    module.zero_grad(set_to_none=True)
    start = time.perf_counter()
    out = call(x)
    out.sum().backward()
    return time.perf_counter() - start


def measure(B, T, D, H, reps, masked):
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(D, H, batch_first=True)
    ours = MultiHeadAttention.from_torch(theirs)
    x = torch.randn(B, T, D, requires_grad=True)
    lengths = torch.randint(T // 2, T + 1, (B,))
    ignore = torch.arange(T)[None, :] >= lengths[:, None]  # (B, S), torch: True = ignore this key
    kpm = ignore if masked else None
    mask = ~ignore[:, None, None, :] if masked else None  # (B, 1, 1, S), ours: True = may attend

    def run_ours(x):
        return ours(x, x, x, mask=mask)[0]

    def run_theirs(x):
        return theirs(x, x, x, key_padding_mask=kpm, need_weights=False)[0]

    with torch.no_grad():
        assert torch.allclose(run_ours(x), run_theirs(x), atol=1e-5), "the two modules disagree"
    for _ in range(3):  # warm-up: allocator, kernels, autograd graph code paths
        forward_backward(ours, x, run_ours)
        forward_backward(theirs, x, run_theirs)
    ours_s, theirs_s = [], []
    for rep in range(reps):
        pair = [(ours, run_ours, ours_s), (theirs, run_theirs, theirs_s)]
        for module, call, times in pair if rep % 2 == 0 else pair[::-1]:
            times.append(forward_backward(module, x, call))
    return statistics.median(ours_s), statistics.median(theirs_s)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--reps-scale", type=float, default=1.0, help="multiply the repetitions (default 1)"
    )
    args = parser.parse_args()
    torch.set_num_threads(2)
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, float32, CPU; forward + "
        "backward, self-attention; median of interleaved repetitions"
    )
    header = (
        f"{'B':>3} {'T':>4} {'D':>4} {'H':>2}  {'mask':<7} {'reps':>5}  {'ours ms':>8}  "
        f"{'torch ms':>8}  {'ours/torch':>10}"
    )
    print(header)
    print("-" * len(header))
    worst = 0.0
    for B, T, D, H, reps in SIZES:
        reps = max(5, int(reps * args.reps_scale))
        for masked in (False, True):
            ours_t, theirs_t = measure(B, T, D, H, reps, masked)
            ratio = ours_t / theirs_t
            worst = max(worst, ratio)
            print(
                f"{B:>3} {T:>4} {D:>4} {H:>2}  {'padding' if masked else 'none':<7} {reps:>5}  "
                f"{ours_t * 1e3:8.3f}  {theirs_t * 1e3:8.3f}  {ratio:10.3f}"
            )
    verdict = "met" if worst <= GOAL else "NOT met"
    print(f"goal: ours/torch <= {GOAL:.2f} in every row; worst {worst:.3f}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
