"""Forward time of our attention against PyTorch's, side by side in one run.

    .venv/bin/python benchmarks/attention_vs_torch.py [--reps 50]

1. ``tutorlib.attention.scaled_dot_product_attention`` (NumPy, chapter 4)
   against ``torch.nn.functional.scaled_dot_product_attention`` on the same
   float64 ``(B, H, T, d_k)`` inputs, no mask. NumPy has no autograd, so this
   row is forward only; the backward of our attention is timed through
   ``MultiHeadAttention`` in ``mha_vs_torch.py``.
2. ``tutorlib.nn.MultiHeadAttention`` against ``torch.nn.MultiheadAttention``
   (same weights, ``need_weights=False``), forward only under ``no_grad``.

Repetitions alternate between the two (and which goes first); medians and the
ratio ours/torch are printed. Goal ours/torch <= 1.05. CPU, 2 threads. A
figure, not a test: read the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

from tutorlib.attention import scaled_dot_product_attention
from tutorlib.nn import MultiHeadAttention

GOAL = 1.05


def interleaved(ours, theirs, reps: int, warmup: int = 3) -> tuple[list[float], list[float]]:
    """Seconds of ``reps`` calls of each, alternating which goes first."""
    for _ in range(warmup):
        ours(), theirs()
    times = ([], [])
    for rep in range(reps):
        pair = [(ours, times[0]), (theirs, times[1])]
        for call, out in pair if rep % 2 == 0 else pair[::-1]:
            start = time.perf_counter()
            call()
            out.append(time.perf_counter() - start)
    return times


def sdpa_forward(B=8, H=4, T=64, d_k=32, reps=50) -> dict:
    """NumPy attention vs F.scaled_dot_product_attention, float64, forward."""
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((B, H, T, d_k)) for _ in range(3))
    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
    ours_out = scaled_dot_product_attention(q, k, v)[0]
    assert np.allclose(ours_out, F.scaled_dot_product_attention(tq, tk, tv).numpy(), atol=1e-10)
    ours_s, torch_s = interleaved(
        lambda: scaled_dot_product_attention(q, k, v),
        lambda: F.scaled_dot_product_attention(tq, tk, tv),
        reps,
    )
    o, t = statistics.median(ours_s), statistics.median(torch_s)
    return {
        "shape": [B, H, T, d_k],
        "reps": reps,
        "ours_s": ours_s,
        "torch_s": torch_s,
        "ours_median_s": o,
        "torch_median_s": t,
        "ratio": o / t,
    }


def mha_forward(B=32, T=64, D=256, H=8, reps=40) -> dict:
    """tutorlib.nn.MultiHeadAttention vs torch.nn.MultiheadAttention, float32, forward under
    no_grad."""
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(D, H, batch_first=True)
    ours = MultiHeadAttention.from_torch(theirs)
    x = torch.randn(B, T, D)
    with torch.no_grad():
        assert torch.allclose(ours(x, x, x)[0], theirs(x, x, x, need_weights=False)[0], atol=1e-5)

        ours_s, torch_s = interleaved(
            lambda: ours(x, x, x), lambda: theirs(x, x, x, need_weights=False), reps
        )
    o, t = statistics.median(ours_s), statistics.median(torch_s)
    return {
        "shape": [B, T, D, H],
        "reps": reps,
        "ours_s": ours_s,
        "torch_s": torch_s,
        "ours_median_s": o,
        "torch_median_s": t,
        "ratio": o / t,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=50, help="interleaved repetitions (default 50)")
    args = parser.parse_args()
    torch.set_num_threads(2)
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, CPU; forward only; median "
        "of interleaved repetitions"
    )
    for label, result in (
        (
            "attention (NumPy) vs F.scaled_dot_product_attention, float64",
            sdpa_forward(reps=args.reps),
        ),
        ("MultiHeadAttention vs nn.MultiheadAttention, float32", mha_forward(reps=args.reps)),
    ):
        verdict = "met" if result["ratio"] <= GOAL else "NOT met"
        print(
            f"{label} {tuple(result['shape'])}: ours {result['ours_median_s'] * 1e3:.3f} ms, torch "
            f"{result['torch_median_s'] * 1e3:.3f} ms, ours/torch {result['ratio']:.3f}; goal <= "
            f"{GOAL}: {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
