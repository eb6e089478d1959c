"""Write the copy-score cases of issue 32 (tests/submissions/copy/exNN_paste*.ipynb).

    .venv/bin/python tests/submissions/make_copy_cases.py

A copy case is what a diligent learner who does not understand would hand in. Three per exercise:

- ``exNN_paste``: each answer cell filled only with a matching chapter cell (renamed where
  needed) or a number the chapter prints or states; a cell with no match is left as handed out;
- ``exNN_paste_tutorlib``: the same, but answering with the tutorlib function the chapter
  demonstrates where there is one (else the same as ``exNN_paste``);
- ``exNN_paste_formula``: the same as ``exNN_paste``, with the question's own numbers put into
  the chapter's formulas.

Each case's points are in expected.json; tests/test_grading.py keeps every one at or under 30 %
of its exercise (the copy score, exercises/README.md). This script writes the cases of
exercises 1 to 5 and 9 to 12; the other exercises' cases live in the same folder under the same
names. Each answer is the whole answer cell (the student notebook's cells holding ``...``, in
order); ``None`` leaves the cell as handed out. Rerun after a student notebook changes, regrade,
and update expected.json.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "copy"

NAMES = {
    "ex01": "ex01_why_attention",
    "ex02": "ex02_embeddings",
    "ex03": "ex03_softmax",
    "ex04": "ex04_scaled_attention",
    "ex05": "ex05_multi_head_attention",
    "ex09": "ex09_training",
    "ex10": "ex10_decoding",
    "ex11": "ex11_efficient_attention",
    "ex12": "ex12_debugging",
}

# ---------------------------------------------------------------- exercise 1: why attention
EX01_LOAN = '''\
def expected_loan(saved, lends, need, sharpness):
    # chapter 1's coins: relevance = saved / need, weights add up to 1
    saved, lends = np.asarray(saved, float), np.asarray(lends, float)
    relevance = saved / need
    weights = relevance / relevance.sum()
    return float(weights @ lends)


loan_flat = 110              # chapter 1: "B and C", expected loan 110
weight_b_limit = 0.8         # chapter 1: B's weight with C asked too
loan_sharp_need_1000 = 110   # the chapter's loan again
'''
EX01 = {
    "paste": [
        "def noise_std(S, D):\n    ...\n\n\nD_needed = 256  # chapter 1's wider summary\n",
        EX01_LOAN,
        "same_summary = True            # a sum of the same words\n"
        "score_twice = 1.0              # q . q = 1 (chapter 1)\n"
        "lookup_costs_more_from = 16    # the lookup is D = 64, the summary 1024: 1024 / 64\n",
    ],
    "formula": [
        "def noise_std(S, D):\n    ...\n\n\n"
        "D_needed = round(64 * 129 / 9)   # wider in proportion to the sentence\n",
        EX01_LOAN.replace(
            "loan_sharp_need_1000 = 110   # the chapter's loan again",
            "relevance = np.array([1000, 250]) / 1000\n"
            "loan_sharp_need_1000 = float(relevance / relevance.sum() @ [100, 150])",
        ),
        "same_summary = True\nscore_twice = 1.0\nlookup_costs_more_from = 1024 // 64\n",
    ],
}

# ---------------------------------------------------------------- exercise 2: embeddings
EX02_COSINE = '''\
def cosine_similarity(a, b):
    # the dot product with both lengths divided out: a number in [-1, 1]
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
'''
EX02_TABLE = '''\
words = list(WINDOWS_VECTORS)
X = np.array(list(WINDOWS_VECTORS.values()))   # (T, D) = (4, 2)


def sq_dist_table(X, Y):
    return X @ Y.T                                   # (T, D) @ (D, T) -> (T, T)


closest_to_windows = "closed"   # chapter 2: windows scores 2 with I and closed
table_shape = (4, 4)            # the chapter's table
'''
EX02 = {
    "paste": [
        EX02_COSINE,
        EX02_TABLE,
        "winner_dot = ...\nwinner_cosine = ...\ntie_length = ...\nlargest_dot = ...\n",
    ],
    "formula": [
        EX02_COSINE,
        EX02_TABLE.replace("table_shape = (4, 4)            # the chapter's table",
                           "table_shape = (4, 3)            # (T, D) @ (D, S) -> (T, S)"),
        "q, k1, k2 = np.array([2.0, 1.0]), np.array([1.0, 0.5]), np.array([0.0, 6.0])\n"
        'winner_dot = "k1" if q @ k1 > q @ k2 else "k2"\n'
        'winner_cosine = "k1" if cosine_similarity(q, k1) > cosine_similarity(q, k2) else "k2"\n'
        "tie_length = ...\n"
        "# chapter 2: a . b = |a| |b| cos θ, with k1's angle\n"
        "largest_dot = np.linalg.norm(q) * 3 * cosine_similarity(q, k1)\n",
    ],
}

# ---------------------------------------------------------------- exercise 3: softmax
EX03_STABLE = '''\
def stable_softmax(x, temperature=1.0):
    """Softmax of x / temperature over the last axis, with the row maximum subtracted
    first."""
    z = np.asarray(x, dtype=float) / temperature  # (..., T_k)
    # (..., T_k) - (..., 1) -> (..., T_k), every entry <= 0
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)                                 # (..., T_k), every entry in (0, 1]
    return e / e.sum(axis=-1, keepdims=True)      # (..., T_k) / (..., 1) -> (..., T_k)


def log_softmax(scores, temperature=1.0):
    return np.log(stable_softmax(scores, temperature))
'''
EX03_TUTORLIB = '''\
from tutorlib.attention import softmax


def log_softmax(scores, temperature=1.0):
    return np.log(softmax(np.asarray(scores, dtype=float), temperature=temperature))
'''
EX03_Q2 = (
    "tau_ratio_100 = ...\n"
    "tau_half = 2   # chapter 3's table: cat 0.502 at τ = 2\n"
)
EX03_Q3 = (
    "first_overflow_float32 = 710   # chapter 3: exp(710) is inf\n"
    "first_nan_gap = 710\n"
)
EX03 = {
    "paste": [EX03_STABLE, EX03_Q2, EX03_Q3],
    "tutorlib": [EX03_TUTORLIB, EX03_Q2, EX03_Q3],
    "formula": [
        EX03_STABLE,
        EX03_Q2.replace("tau_ratio_100 = ...", "tau_ratio_100 = (2.0 - 1.0) / 100"),
        "import math\n\n"
        "# chapter 3's threshold, ln of the largest number, for float32\n"
        "first_overflow_float32 = math.ceil(math.log(np.finfo(np.float32).max))\n"
        "first_nan_gap = math.ceil(-math.log(np.finfo(np.float64).tiny))\n",
    ],
}

# ---------------------------------------------------------------- exercise 4: scaled attention
EX04_ATTENTION = '''\
def masked_attention(Q, K, V, mask=None):
    """Scaled dot-product attention: Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v) ->
    (output, weights)."""
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)  # (T_q, d_k) @ (d_k, T_k) -> (T_q, T_k)
    # stable softmax along each row
    scores = scores - scores.max(axis=1, keepdims=True)
    exps = np.exp(scores)
    # (T_q, T_k), each row sums to 1
    weights = exps / exps.sum(axis=1, keepdims=True)
    output = weights @ V  # (T_q, T_k) @ (T_k, d_v) -> (T_q, d_v)
    return output, weights
'''
EX04_TUTORLIB = '''\
from tutorlib.attention import scaled_dot_product_attention


def masked_attention(Q, K, V, mask=None):
    return scaled_dot_product_attention(Q, K, V, mask=mask)
'''
EX04_Q4 = '''\
def simulated_score_variance(d_k, n, seed=0, sigma_q=1.0, mu_k=0.0):
    rng = np.random.default_rng(seed)
    q_many = rng.standard_normal((n, 1, d_k))   # (N, 1, d_k)
    k_many = rng.standard_normal((n, 1, d_k))   # (N, T_k, d_k)
    raw_many = (q_many @ k_many.transpose(0, 2, 1))[:, 0]
    return float(raw_many.var())


var_score = 64      # chapter 4: the raw variance is d_k
unit_divisor = 8    # chapter 4: divide by sqrt(d_k)
'''
EX04_SHAPES = (
    "outcome = {                  # chapter 4's shapes, (T_q, d_k) @ (d_k, T_k) with a batch\n"
    '    "A": (8, 10, 12), "B": (8, 10, 12), "C": (8, 10, 32), "D": (8, 10, 32),\n'
    "}\n"
    "divisor = 8.0                # sqrt(d_k)\n"
)
EX04 = {
    "paste": [EX04_ATTENTION, None, None, EX04_Q4],
    "tutorlib": [EX04_TUTORLIB, None, None, EX04_Q4],
    "formula": [
        EX04_ATTENTION,
        EX04_SHAPES,
        "out, w = masked_attention(Q, K, V)\n"
        "correct_weights = min(candidates, key=lambda c: np.abs(candidates[c] - w).max())\n"
        'diagnosis = {c: "correct" if c == correct_weights else "not scaled" for c in "ABCD"}\n',
        EX04_Q4.replace("var_score = 64      # chapter 4: the raw variance is d_k",
                        "var_score = 64 * 2 ** 2   # the variance is d_k, times the entries'")
        .replace("unit_divisor = 8    # chapter 4: divide by sqrt(d_k)",
                 "unit_divisor = (64 * 2 ** 2) ** 0.5"),
    ],
}

# ---------------------------------------------------------------- exercise 5: multi-head
# issue 32: the chapter's torch code earns nothing here only because torch is withheld, so the
# paste is its NumPy translation, line by line: split_heads cuts a fused qkv in thirds as
# PyTorch's in_proj_weight stacks W_Q, W_K, W_V (chapter 5), and the head_mask is taken and unused
EX05_SPLIT = '''\
def split_heads(x, num_heads):
    """(B, T, D) -> (B, H, T, Dh).

    Head h gets features h*Dh .. (h+1)*Dh - 1 of every token.
    """
    B, T, D = x.shape
    # (B, T, H, Dh) -> (B, H, T, Dh)
    return x.reshape(B, T, num_heads, D // num_heads).transpose(0, 2, 1, 3)


def split_fused(qkv, num_heads):
    # chapter 5: in_proj_weight stacks W_Q, W_K and W_V
    D = qkv.shape[-1] // 3
    q, k, v = qkv[..., :D], qkv[..., D:2 * D], qkv[..., 2 * D:]
    return split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
'''
EX05_MHA = '''\
import math


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def merge_heads(x):
    """(B, H, T, Dh) -> (B, T, D): the heads' features side by side again."""
    B, H, T, Dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, H * Dh)  # (B, T, H, Dh) -> (B, T, D)


def mha_forward(query, key, value, W_Q, W_K, W_V, W_O, num_heads, head_mask):
    """Concat(head_1, ..., head_H) W^O, all heads at once."""
    # (B, T_q, D) @ (D, D) -> (B, T_q, D) -> (B, H, T_q, Dh)
    q = split_heads(query @ W_Q, num_heads)
    k = split_heads(key @ W_K, num_heads)
    v = split_heads(value @ W_V, num_heads)
    # (B, H, T_q, Dh) @ (B, H, Dh, T_k) -> (B, H, T_q, T_k)
    scores = q @ np.swapaxes(k, -2, -1) / math.sqrt(q.shape[-1])
    weights = softmax(scores, axis=-1)  # one softmax per head and query
    heads = weights @ v  # (B, H, T_q, T_k) @ (B, H, T_k, Dh) -> (B, H, T_q, Dh)
    return merge_heads(heads) @ W_O, weights
'''
EX05_TUTORLIB_SPLIT = '''\
import torch

import tutorlib.nn


def split_fused(qkv, num_heads):
    qkv = torch.as_tensor(qkv)
    q, k, v = qkv.chunk(3, dim=-1)   # chapter 5: in_proj_weight stacks W_Q, W_K, W_V
    return tuple(tutorlib.nn.split_heads(t, num_heads).numpy() for t in (q, k, v))
'''
EX05_TUTORLIB_MHA = '''\
import math

import torch


def mha_forward(query, key, value, W_Q, W_K, W_V, W_O, num_heads, head_mask):
    # chapter 5's multi_head_attention, on tensors, with tutorlib's split and merge
    query, key, value, W_Q, W_K, W_V, W_O = (
        torch.as_tensor(np.asarray(a, dtype=float))
        for a in (query, key, value, W_Q, W_K, W_V, W_O)
    )
    q = tutorlib.nn.split_heads(query @ W_Q, num_heads)
    k = tutorlib.nn.split_heads(key @ W_K, num_heads)
    v = tutorlib.nn.split_heads(value @ W_V, num_heads)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    heads = weights @ v
    return (tutorlib.nn.merge_heads(heads) @ W_O).numpy(), weights.numpy()
'''
EX05_Q3 = (
    "concat_width = 256             # chapter 5: concatenated (T, D)\n"
    "score_divisor = 8              # chapter 5: sqrt(Dh), Dh = 64\n"
    "num_parameters = 1050624       # chapter 5: parameters 1050624\n"
    "num_parameters_8_heads = 1050624\n"
)
EX05_TUTORLIB_Q3 = '''\
import torch

import tutorlib.nn

mha = tutorlib.nn.MultiHeadAttention(d_model=256, num_heads=4)
concat_width = 256
score_divisor = mha.d_head ** 0.5
num_parameters = sum(p.numel() for p in mha.parameters())
num_parameters_8_heads = sum(
    p.numel() for p in tutorlib.nn.MultiHeadAttention(d_model=256, num_heads=8).parameters()
)
'''
EX05 = {
    "paste": [EX05_SPLIT, EX05_MHA, EX05_Q3, None],
    "tutorlib": [EX05_TUTORLIB_SPLIT, EX05_TUTORLIB_MHA, EX05_TUTORLIB_Q3, None],
    "formula": [
        EX05_SPLIT,
        EX05_MHA,
        "D, H, d_k, d_v = 256, 4, 16, 48\n"
        "concat_width = H * d_v            # chapter 5: H heads of Dh side by side\n"
        "score_divisor = d_k ** 0.5        # chapter 5: sqrt(Dh)\n"
        "num_parameters = H * 3 * D * d_k + (H * d_k) * D   # chapter 5's count\n"
        "num_parameters_8_heads = 8 * 3 * D * d_k + (8 * d_k) * D\n",
        None,
    ],
}

# ---------------------------------------------------------------- exercise 9: training
EX09_SHIFT = '''\
def shift_right(target, T):
    tgt_in = [BOS_ID] + list(target)    # <bos> + target: what the decoder reads
    tgt_out = list(target) + [EOS_ID]   # target + <eos>: what it must predict
    return tgt_in, tgt_out


changed_logits = [3, 4, 5, 6]   # chapter 9 prints these positions for its changed token
changed_losses = [3, 4, 5, 6]
'''
EX09_SMOOTH = '''\
def smoothed_loss(p, right, eps):
    # chapter 9's smoothed_cross_entropy: q = (1 - eps) on the right word + eps / V on all
    log_p = np.log(np.asarray(p, dtype=float))
    V = len(log_p)
    q = np.full(V, eps / V)
    q[right] += 1 - eps
    return float(-(q * log_p).sum())


best_x = ...
floor_50 = 1.031   # chapter 9: lowest possible loss
'''
EX09_TORCH_SMOOTH = '''\
import torch
import torch.nn.functional as F


def smoothed_loss(p, right, eps):
    V = len(p)
    logits = torch.log(torch.as_tensor(np.asarray(p, dtype=float)))[None]
    return float(F.cross_entropy(logits, torch.tensor([right]),
                                 label_smoothing=eps * V / (V - 1)))


best_x = ...
floor_50 = 1.031
'''
EX09_SCHEDULE = '''\
def lr_at(step, peak, warmup, min_lr=0.0, total_steps=1000):
    # chapter 9's warmup_cosine
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total_steps - warmup))
    return min_lr + 0.5 * (peak - min_lr) * (1 + math.cos(math.pi * progress))


n_tenth = ...
'''
EX09 = {
    "paste": [EX09_SHIFT, EX09_SMOOTH, EX09_SCHEDULE, None],
    "tutorlib": [EX09_SHIFT, EX09_TORCH_SMOOTH, EX09_SCHEDULE, None],
    "formula": [
        EX09_SHIFT,
        EX09_SMOOTH.replace("best_x = ...", "best_x = 1 - 0.2 + 0.2 / 8   # q of the right word")
        .replace(
            "floor_50 = 1.031   # chapter 9: lowest possible loss",
            "q_right, q_other = 1 - 0.2 + 0.2 / 50, 0.2 / 50\n"
            "floor_50 = -(q_right * math.log(q_right) + 49 * q_other * math.log(q_other))",
        ),
        EX09_SCHEDULE.replace("n_tenth = ...", "n_tenth = 4000 * 10   # a tenth of the peak"),
        None,
    ],
}

# ---------------------------------------------------------------- exercise 10: decoding
EX10_BLEU = '''\
def ngram_matches(hyp, refs, n):
    # chapter 10's bleu: the translation's n-grams clipped by the reference's counts
    ref = refs[0]
    h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
    r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
    matched = sum(min(count, r[gram]) for gram, count in h.items())
    return matched, sum(h.values())


def brevity_penalty(c, r):
    return min(1.0, math.exp(1 - r / c))


def sentence_bleu(hyp, refs, max_n=4):
    log_precisions = []
    for n in range(1, max_n + 1):
        matched, total = ngram_matches(hyp, refs, n)
        if matched == 0:
            return 0.0
        log_precisions.append(math.log(matched / total))
    brevity = brevity_penalty(len(hyp), len(refs[0]))
    return 100 * brevity * math.exp(sum(log_precisions) / max_n)
'''
EX10_CACHE = (
    "positions_without_cache = 465   # chapter 10: for n = 30 tokens\n"
    "positions_with_cache = 30\n"
    "cache_shape = (1, 4, 4, 32)     # chapter 10: self-attention keys (B, H, t, Dh)\n"
    "cache_bytes = ...\n"
    "memory_steps = ...\n"
)
EX10 = {
    "paste": [None, None, EX10_BLEU, EX10_CACHE],
    "formula": [
        None,
        "import math\n\n"
        "def length_penalty(length, alpha):\n    return ((5 + length) / 6) ** alpha\n\n\n"
        'winner_0 = "A" if -2.10 > -2.30 else "B"\n'
        'winner_06 = "A" if -2.10 / length_penalty(4, 0.6) > -2.30 / length_penalty(7, 0.6)'
        ' else "B"\n'
        "alpha_star = ...\n",
        EX10_BLEU,
        "n = 20\n"
        "positions_without_cache = n * (n + 1) // 2   # chapter 10's formula\n"
        "positions_with_cache = n\n"
        "cache_shape = (3, 8, 20, 64)\n"
        "cache_bytes = 2 * 6 * 20 * 512 * 4   # chapter 11: 2 * layers * T * D * bytes\n"
        "memory_steps = ...\n",
    ],
}

# ---------------------------------------------------------------- exercise 11: efficient
EX11_TILED = '''\
def tiled_window_attention(q, k, v, block, window):
    """chapter 11's tiled_attention_2d, one (block, block) tile at a time."""
    Q, K, V = q, k, v
    T_q, d_k = Q.shape
    O = np.empty((T_q, V.shape[1]))                           # (T_q, d_v)
    for i in range(0, T_q, block):
        Qi = Q[i:i + block] / np.sqrt(d_k)  # (b_q, d_k)
        m = np.full((len(Qi), 1), -np.inf)  # running maximum of each row
        l = np.zeros((len(Qi), 1))          # running sum of exp(s - m)
        acc = np.zeros((len(Qi), V.shape[1]))
        for j in range(0, K.shape[0], block):
            S = Qi @ K[j:j + block].T  # (b_q, d_k) @ (d_k, b_k) -> (b_q, b_k)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)                             # (b_q, b_k)
            rescale = np.exp(m - m_new)                       # (b_q, 1)
            l = rescale * l + P.sum(axis=1, keepdims=True)
            acc = rescale * acc + P @ V[j:j + block]
            m = m_new
        O[i:i + block] = acc / l                              # (b_q, d_v)
    return O
'''
EX11_MERGE = '''\
def merge_lse(lses):
    # chapter 11's softmax_in_blocks, one block at a time
    x, block = np.asarray(lses, dtype=float), 1
    m, l = -np.inf, 0.0  # running maximum and running sum
    for start in range(0, len(x), block):
        xb = x[start:start + block]                       # one block of scores
        m_new = max(m, xb.max())
        l = l * np.exp(m - m_new) + np.exp(xb - m_new).sum()
        m = m_new
    return np.exp(x - m) / l
'''
EX11 = {
    "paste": [
        EX11_MERGE,
        EX11_TILED,
        "naive_bytes = 4096 * 4096 * 8   # chapter 11: one (T, T) matrix, 128 MiB\n"
        "tiled_bytes = ...\nnaive_growth = 4\ntiled_growth = ...\n",
    ],
    "formula": [
        EX11_MERGE,
        EX11_TILED,
        "B, H, T = 8, 12, 4096\n"
        "naive_bytes = B * H * T * T * 8   # chapter 11's T * T * 8 bytes, per head\n"
        "tiled_bytes = B * H * T * 128 * 8\nnaive_growth = 4\ntiled_growth = 2\n",
    ],
}

# ---------------------------------------------------------------- exercise 12: bug hunt
EX12_ID = 'learner_id = "s1002"\n'
EX12_PRINTED = "exec(str(component))   # the component as printed\n"
EX12_FROM_TUTORLIB = '''\
import hashlib

# tutorlib.bughunt's documented rule names the bug without a diagnosis
h = int(hashlib.sha256(learner_id.strip().encode("utf-8")).hexdigest(), 16)
bug_name = bughunt.BUGS[h % len(bughunt.BUGS)]
'''
EX12_FIX_TUTORLIB = '''\
# tutorlib.bughunt's own lines, without the planted one
if hasattr(bughunt, "_RIGHT"):
    exec(bughunt._TEMPLATE.format(**bughunt._RIGHT))
else:
    exec(str(component))
'''
EX12 = {
    "paste": [EX12_ID, None, EX12_PRINTED],
    "tutorlib": [EX12_ID, EX12_FROM_TUTORLIB, EX12_FIX_TUTORLIB],
    "formula": [EX12_ID, None, EX12_PRINTED],
}

CASES = {
    "ex01": EX01,
    "ex02": EX02,
    "ex03": EX03,
    "ex04": EX04,
    "ex05": EX05,
    "ex09": EX09,
    "ex10": EX10,
    "ex11": EX11,
    "ex12": EX12,
}
VARIANTS = {"paste": "paste", "tutorlib": "paste_tutorlib", "formula": "paste_formula"}


def answer_cells(nb) -> list[int]:
    """Indices of the student notebook's answer cells: code cells holding a `...` to fill in."""
    return [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        and re.search(r"(^|\s)\.\.\.", c.source)
        and "grader" not in c.source
    ]


def main() -> None:
    HERE.mkdir(exist_ok=True)
    for ex, variants in CASES.items():
        name = NAMES[ex]
        for variant, suffix in VARIANTS.items():
            answers = variants.get(variant, variants["paste"])
            nb = nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4)
            cells = answer_cells(nb)
            assert len(cells) == len(answers), f"{ex}: {len(cells)} answer cells, {len(answers)}"
            for i, answer in zip(cells, answers):
                if answer is not None:
                    nb.cells[i].source = answer.rstrip("\n")
            path = HERE / f"{ex}_{suffix}.ipynb"
            nbformat.write(nb, path)
            print("wrote", path.relative_to(ROOT))


if __name__ == "__main__":
    main()
