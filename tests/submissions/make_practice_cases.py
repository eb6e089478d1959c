"""Write the misconception submissions of exercises 1, 6, 7, 9, 10, 11, 13, 14, 15 and 16, and of the question 4s of
exercises 4 and 8, all of exercise 5's, and exercise 12's bug hunt (tests/submissions/exNN/; the older cases there come from elsewhere).
A case named "honest/..." or "adversarial/..." goes to that folder instead (exercise 13's).

    .venv/bin/python tests/submissions/make_practice_cases.py [ex16 ...]

Each case is the exercise's student notebook with its answer cells filled in as a learner would
hand it in: the master's solution with one or two usual mistakes swapped in (each replacement
must apply, or the script stops). Their expected grades and messages are in expected.json, which
tests/test_grading.py checks. Rerun this after one of these exercises changes, then check
expected.json.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

NAMES = {"ex01": "ex01_why_attention", "ex02": "ex02_embeddings", "ex03": "ex03_softmax", "ex04": "ex04_scaled_attention",
         "ex06": "ex06_masking", "ex07": "ex07_cross_attention",
         "ex05": "ex05_multi_head_attention", "ex08": "ex08_transformer_block", "ex09": "ex09_training", "ex10": "ex10_decoding", "ex11": "ex11_efficient_attention",
         "ex12": "ex12_debugging", "ex13": "ex13_decoder_only", "ex14": "ex14_tokenization",
         "ex15": "ex15_modern_attention", "ex16": "ex16_heads"}

# exercise 5's q2 solution, pieces of it that the cases below replace
EX05_SPLIT = "        return x.reshape(B, T, num_heads, D // num_heads).transpose(0, 2, 1, 3)"
EX05_MERGE = "heads.transpose(0, 2, 1, 3).reshape(B, T_q, H * Dh)"
EX05_MASK = "    weights = weights * np.asarray(head_mask, dtype=float)[:, None, None]\n"
EX05_Q2_BODY = EX05_MASK + """    heads = weights @ v                         # (B, H, T_q, Dh)
    B, H, T_q, Dh = heads.shape
    # (B, H, T_q, Dh) -> (B, T_q, H, Dh) -> (B, T_q, D); then @ (D, D)
    return heads.transpose(0, 2, 1, 3).reshape(B, T_q, H * Dh) @ W_O, weights"""
EX05_Q2_LOOP = """    v = v.astype(np.float32)
    Dh = v.shape[-1]
    output, tables = 0, []
    for h in range(num_heads):
        # head h's (B, T_q, Dh) output meets its Dh rows of W_O: (B, T_q, D)
        output = output + head_mask[h] * (weights[:, h] @ v[:, h]) @ W_O[h * Dh:(h + 1) * Dh]
        tables.append(head_mask[h] * weights[:, h])
    return output, np.stack(tables, axis=1)"""

# case name -> {question: [(old, new), ...]}: the right answer with these replacements
CASES = {
    "ex01": {
        "ex01_variance_not_std": {"q1": [
            ("return math.sqrt((S - 1) / D)", "return (S - 1) / D"),
            ("D_needed = 64 * (129 - 1) // (9 - 1)", "D_needed = 64 * 129 // 9")]},
        "ex01_need_matters": {"q2": [("loan_sharp_need_1000 = 1750 / 17",
                                      "loan_sharp_need_1000 = (4 * 100 + 0.25 * 150) / 4.25 / 2")],
                              "q3": [("same_summary = False", "same_summary = True")]},
        # issue 27, point 6: the chapter's rule and the chapter's numbers, pasted, lose points
        "ex01_chapter_numbers": {
            "q2": [("    sharpened = relevance ** sharpness\n", "    sharpened = relevance   # chapter 1's cell\n"),
                   ("loan_flat = 125", "loan_flat = 110"), ("weight_b_limit = 1.0", "weight_b_limit = 0.8"),
                   ("loan_sharp_need_1000 = 1750 / 17", "loan_sharp_need_1000 = 110")],
            "q3": [("same_summary = False", "same_summary = True"), ("score_twice = 2.0", "score_twice = 1.0"),
                   ("lookup_costs_more_from = 17", "lookup_costs_more_from = 16")]},
    },
    # issue 32, the scan: tests that compared below float32's resolution (1e-9, 1e-12); each of
    # these honest float32 answers lost points before
    "ex02": {"honest/ex02_float32": {
        "q1": [("    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)",
                "    a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)")],
        "q2": [("    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)",
                "    X, Y = np.asarray(X, dtype=np.float32), np.asarray(Y, dtype=np.float32)")]}},
    # issue 32: exercise 3 asks for a stable log-softmax, temperatures found backwards, and where
    # float32 overflows and float64 underflows
    "ex03": {
        "ex03_log_of_weights": {"q1": [
            ("    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))",
             "    return np.log(np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True))")]},
        "ex03_no_max_subtraction": {"q1": [
            ("    z = z - z.max(axis=-1, keepdims=True)\n", "")]},
        "ex03_wrong_axis": {"q1": [
            ("    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))",
             "    return z - np.log(np.exp(z).sum(axis=0, keepdims=True))")]},
        "ex03_temperature_multiplied": {"q1": [
            ("z = np.asarray(scores, dtype=float) / temperature", "z = np.asarray(scores, dtype=float) * temperature")]},
        "ex03_overflow_not_underflow": {
            "q2": [("tau_half = (lo + hi) / 2", "tau_half = 2   # chapter 3's table: cat 0.502")],
            "q3": [("    print(first_overflow_float32,", "    first_nan_gap = 710   # where exp overflows\n"
                    "    print(first_overflow_float32,")]},
        # question 1 answered by torch.log_softmax, withheld: the cell runs, the calls fail
        "adversarial/ex03_calls_torch_log_softmax": {"q1": [
            ("    z = np.asarray(scores, dtype=float) / temperature   # (..., T_k)\n",
             "    import torch\n\n"
             "    t = torch.as_tensor(np.asarray(scores, dtype=float)) / temperature\n"
             "    return torch.log_softmax(t, dim=-1).numpy()\n"
             "    z = np.asarray(scores, dtype=float) / temperature   # (..., T_k)\n")]},
        # an honest alternative: NumPy's logaddexp in float32
        "honest/ex03_logaddexp_float32": {"q1": [
            ("    z = np.asarray(scores, dtype=float) / temperature   # (..., T_k)\n"
             "    # (..., T_k) - (..., 1): every exponent <= 0, nothing overflows\n"
             "    z = z - z.max(axis=-1, keepdims=True)\n"
             "    # the log of the sum, never of a weight: at least one term is e^0 = 1, so no log(0)\n"
             "    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))",
             "    z = np.asarray(scores, dtype=np.float32) / np.float32(temperature)\n"
             "    return z - np.logaddexp.reduce(z, axis=-1, keepdims=True)")]},
    },
    "ex04": {
        "ex04_variance_per_entry": {"q4": [
            ("scores = np.sum(q * k, axis=1)", "scores = q * k"),
            ("var_score = 64 * 2**2 * (1 + 1**2)   # 512", "var_score = 64   # chapter 4: d_k")]},
        # issue 32: the keys' mean left out of the simulation and of the derivation
        "ex04_mean_ignored": {"q4": [
            ("    k = mu_k + rng.standard_normal((n, d_k))", "    k = rng.standard_normal((n, d_k))"),
            ("var_score = 64 * 2**2 * (1 + 1**2)   # 512", "var_score = 64 * 2**2   # 256")]},
    },
    "ex05": {
        "ex05_patterns_swapped": {"q4": [('"A": "previous"', '"A": "self"'), ('"D": "self"', '"D": "previous"')]},
        # issue 32: q1 cuts heads from a fused projection ordered head by head, q2 switches heads
        # off; these four cases were first written by hand for the old q1 and q2
        "ex05_reshape_without_transpose": {
            "q1": [("qkv.reshape(B, T, num_heads, 3, Dh)", "qkv.reshape(B, num_heads, T, 3, Dh)"),
                   ("per_head.transpose(3, 0, 2, 1, 4)", "per_head.transpose(3, 0, 1, 2, 4)")],
            "q2": [(EX05_SPLIT, "        return x.reshape(B, num_heads, T, D // num_heads)"),
                   (EX05_MERGE, "heads.reshape(B, T_q, H * Dh)")]},
        "ex05_strided_heads": {
            "q1": [("qkv.reshape(B, T, num_heads, 3, Dh)", "qkv.reshape(B, T, num_heads, Dh, 3)"),
                   ("per_head.transpose(3, 0, 2, 1, 4)", "per_head.transpose(4, 0, 2, 1, 3)")],
            "q2": [(EX05_SPLIT, "        return x.reshape(B, T, D // num_heads, num_heads).transpose(0, 3, 1, 2)"),
                   (EX05_MERGE, "heads.transpose(0, 2, 3, 1).reshape(B, T_q, H * Dh)")]},
        "ex05_forgot_w_o": {
            "q2": [("@ W_O, weights", ", weights")],
            "q3": [(" + (H * d_v * D + D)", "")]},
        "ex05_scaled_by_sqrt_d_model": {
            "q2": [("np.sqrt(q.shape[-1])", "np.sqrt(query.shape[-1])")],
            "q3": [("score_divisor = d_k ** 0.5", "score_divisor = (D / 4) ** 0.5")]},
        # PyTorch's in_proj layout (chapter 5): q | k | v in thirds, not head by head
        "ex05_qkv_in_thirds": {"q1": [
            ("qkv.reshape(B, T, num_heads, 3, Dh)", "qkv.reshape(B, T, 3, num_heads, Dh)"),
            ("per_head.transpose(3, 0, 2, 1, 4)", "per_head.transpose(2, 0, 3, 1, 4)")]},
        # the mask where it does not scale head h alone: on the scores, after W_O, on the inputs
        "ex05_mask_on_scores": {"q2": [
            (EX05_MASK, ""),
            ("    weights = np.exp(scores - scores.max",
             "    scores = scores * np.asarray(head_mask, dtype=float)[:, None, None]\n"
             "    weights = np.exp(scores - scores.max")]},
        "ex05_mask_after_w_o": {"q2": [
            (EX05_MASK, ""),
            ("@ W_O, weights",
             "@ W_O * np.repeat(head_mask, Dh), weights * head_mask[:, None, None]")]},
        "ex05_mask_on_inputs": {"q2": [
            (EX05_MASK, ""),
            ("    q, k, v = split(query @ W_Q)",
             "    per_feature = np.repeat(head_mask, query.shape[-1] // num_heads)   # (D,)\n"
             "    query, key, value = query * per_feature, key * per_feature, value * per_feature\n"
             "    q, k, v = split(query @ W_Q)")]},
        # the mask applied twice, to the weights and to the heads' outputs: head h scaled by m_h ** 2
        "ex05_mask_applied_twice": {"q2": [(
            "    heads = weights @ v                         # (B, H, T_q, Dh)\n",
            "    # (B, H, T_q, Dh), each head's output scaled by its mask as well\n"
            "    heads = (weights @ v) * np.asarray(head_mask, dtype=float)[:, None, None]\n")]},
        # no check of the width: H heads of F / H features, each sliced in three, return arrays
        # of the wrong widths where 3 H does not divide F (NumPy raises nothing there)
        "ex05_width_unchecked": {"q1": [
            ("    if F % (3 * num_heads):\n"
             "        raise ValueError(f\"{F} features are not {num_heads} heads of q, k and v\")\n"
             "    Dh = F // (3 * num_heads)\n", ""),
            ("    # (B, T, 3D) -> (B, T, H, 3, Dh): head h's block of 3 Dh holds its q, k, v\n"
             "    per_head = qkv.reshape(B, T, num_heads, 3, Dh)\n", ""),
            ("    # (B, T, H, 3, Dh) -> (3, B, H, T, Dh): q, k, v first, heads before tokens\n"
             "    q, k, v = per_head.transpose(3, 0, 2, 1, 4)\n    return q, k, v",
             "    # (B, T, 3D) -> (B, H, T, 3 Dh): H heads, each then cut in three\n"
             "    heads = qkv.reshape(B, T, num_heads, -1).transpose(0, 2, 1, 3)\n"
             "    Dh = heads.shape[-1] // 3\n"
             "    return heads[..., :Dh], heads[..., Dh:2 * Dh], heads[..., 2 * Dh:]")]},
        # honest: q, k and v returned stacked, one (3, B, H, T, Dh) array, which unpacks as q, k, v
        "honest/ex05_stacked_qkv": {"q1": [(
            "    q, k, v = per_head.transpose(3, 0, 2, 1, 4)\n    return q, k, v",
            "    return per_head.transpose(3, 0, 2, 1, 4)   # (3, B, H, T, Dh): q, k, v stacked")]},
        # an honest alternative: chapter 5's split into H heads of 3 Dh, each cut in three; a
        # loop over heads, each written into the output through its rows of W_O; float32
        "honest/ex05_cut_heads_rows_of_w_o": {
            "q1": [("    per_head = qkv.reshape(B, T, num_heads, 3, Dh)\n", ""),
                   ("    q, k, v = per_head.transpose(3, 0, 2, 1, 4)\n    return q, k, v",
                    "    # H heads of width 3 Dh, as chapter 5 splits, then each head cut in three\n"
                    "    heads = qkv.reshape(B, T, num_heads, 3 * Dh).transpose(0, 2, 1, 3)\n"
                    "    return heads[..., :Dh], heads[..., Dh:2 * Dh], heads[..., 2 * Dh:]")],
            "q2": [(EX05_Q2_BODY, EX05_Q2_LOOP)]},
    },
    "ex08": {
        # issue 32: exercise 8's q1 and q2 reworked; these cases, first written by hand, come
        # from the master since
        "ex08_exponent_i_over_d": {"q1": [(
            "omega = base ** (-np.arange(0, d_model, 2) / d_model)",
            "omega = base ** (-np.arange(d_model // 2) / d_model)   # i / D")]},
        "ex08_cosine_similarity": {"q1": [
            ("return np.cos(k * omega).sum(axis=1)", "return np.cos(k * omega).mean(axis=1)"),
            ("self_dot = 32.0", "self_dot = 1.0")]},
        "ex08_sequential_block": {"q2": [(
            "    return x + self_attn(h, h, h, mask=mask)[0] + feed_forward(h)",
            "    x = x + self_attn(h, h, h, mask=mask)[0]   # chapter 8's pre-norm order\n"
            "    return x + feed_forward(norm(x))")]},
        "ex08_positions_equivariant": {"q3": [
            ('positions_answer = "c"', 'positions_answer = "b"')]},
        # issue 32, fault 9: the feed-forward network through its linear1 and linear2, as
        # chapter 8's cell calls them: full marks
        "honest/ex08_chapter_linears": {
            "q1": [("    k = np.asarray(offsets, dtype=np.float64)[:, None]        # (n, 1)\n",
                    "    # two rows of chapter 8's table in float32, positions 0 and k, and their dot\n"
                    "    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)\n"
                    "    out = []\n"
                    "    for k in offsets:\n"
                    "        p = torch.tensor([[0.0], [float(k)]])              # (2, 1)\n"
                    "        angle = p / base ** (two_i / d_model)               # (2, D/2)\n"
                    "        pe = torch.stack([torch.sin(angle), torch.cos(angle)], dim=-1)\n"
                    "        pe = pe.reshape(2, d_model)                         # interleaved\n"
                    "        out.append(float(pe[0] @ pe[1]))\n"
                    "    return out\n"
                    "    k = np.asarray(offsets, dtype=np.float64)[:, None]        # (n, 1)\n")],
            "q2": [(
            "    return x + self_attn(h, h, h, mask=mask)[0] + feed_forward(h)",
            "    hidden = torch.relu(feed_forward.linear1(h))   # (B, S, D) -> (B, S, d_ff)\n"
            "    return x + self_attn(h, h, h, mask=mask)[0] + feed_forward.linear2(hidden)")]},
        "ex08_order_breaks_rotation": {"q4": [
            ('breaks = ["c", "d"]', 'breaks = ["b", "d"]'),
            ("angle = 5 * omega(8)[1]", "angle = 5 * 10000 ** (-1 / 8)")]},
    },
    "ex09": {
        "ex09_eos_in_tgt_in": {"q1": [
            ("tgt_in = [BOS_ID] + list(target)\n", "tgt_in = [BOS_ID] + list(target) + [EOS_ID]\n"),
            ("pad = [PAD_ID] * (T - len(tgt_in))\n    return tgt_in + pad, tgt_out + pad",
             "return (tgt_in + [PAD_ID] * (T - len(tgt_in)),\n"
             "            tgt_out + [PAD_ID] * (T - len(tgt_out)))"),
            ("changed_logits = [6, 7, 8]", "changed_logits = [5, 6, 7, 8]"),
            ("changed_losses = [5, 6, 7]", "changed_losses = [6, 7, 8]")]},
        # issue 32: chapter 9's printed example (T = 7, position 3 of tgt_in), pasted
        "ex09_chapter_positions": {"q1": [
            ("changed_logits = [6, 7, 8]", "changed_logits = [3, 4, 5, 6]   # chapter 9"),
            ("changed_losses = [5, 6, 7]", "changed_losses = [3, 4, 5, 6]")]},
        "ex09_certain_is_best": {"q2": [
            ("best_x = 1 - 0.2", "best_x = 1.0"),
            ("floor_50 = float(-(q * np.log(q)).sum())", "floor_50 = 0.0")]},
        # issue 27, point 6: chapter 9's convention and its printed 0.92, pasted
        "ex09_chapter_smoothing": {"q2": [
            ("q = np.full(V, eps / (V - 1))    # eps spread over the V - 1 wrong words ...\n"
             "    q[right] = 1 - eps               # ... and 1 - eps on the right one",
             "q = np.full(V, eps / V)          # chapter 9: eps over all V words\n"
             "    q[right] += 1 - eps"),
            ("best_x = 1 - 0.2", "best_x = 0.92"), ("floor_50 = float(-(q * np.log(q)).sum())", "floor_50 = 0.778")]},
        "ex09_decay_as_one_over_n": {"q3": [
            ("return peak * min(n / warmup, math.sqrt(warmup / n))", "return peak * min(n / warmup, warmup / n)"),
            ("n_tenth = 4000 * 10 ** 2", "n_tenth = 4000 * 10")],
            "q4": [('"A": 2,', '"A": 1,'), ('"C": 1,', '"C": 2,')]},
        # issue 32, fault 6: the schedule computed in float32 keeps full marks (the tests
        # compared with rel_tol=1e-9, below float32's resolution)
        "honest/ex09_float32": {"q3": [
            ("    n = step + 1\n    return peak * min(n / warmup, math.sqrt(warmup / n))",
             "    n = np.float32(step + 1)\n"
             "    w = np.float32(warmup)\n"
             "    return np.float32(peak) * np.minimum(n / w, np.sqrt(w / n))   # float32")]},
        # issue 32, fault 7: PyTorch's label smoothing rescaled to this convention; torch is
        # withheld when ex09 is graded, so the cell does not run and q2 scores 0
        "adversarial/ex09_calls_torch_cross_entropy": {"q2": [
            ("    p = np.asarray(p, dtype=float)\n"
             "    V = len(p)\n"
             "    q = np.full(V, eps / (V - 1))    # eps spread over the V - 1 wrong words ...\n"
             "    q[right] = 1 - eps               # ... and 1 - eps on the right one\n"
             "    return float(-(q * np.log(p)).sum())",
             "    import torch\n"
             "    import torch.nn.functional as F\n"
             "    V = len(p)\n"
             "    log_p = torch.log(torch.as_tensor(np.asarray(p, dtype=float)))[None]\n"
             "    return float(F.cross_entropy(log_p, torch.tensor([right]),\n"
             "                                 label_smoothing=eps * V / (V - 1)))")]},
        # issue 27, point 6: chapter 9's warmup_cosine pasted as the schedule
        "ex09_chapter_schedule": {"q3": [
            ("def lr_at(step, peak, warmup):", "def lr_at(step, peak, warmup, min_lr=1e-5, total=1000):"),
            ("    n = step + 1\n    return peak * min(n / warmup, math.sqrt(warmup / n))",
             "    if step < warmup:\n        return peak * (step + 1) / warmup\n"
             "    progress = min(1.0, (step - warmup) / max(1, total - warmup))\n"
             "    return min_lr + 0.5 * (peak - min_lr) * (1 + math.cos(math.pi * progress))")]},
    },
    "ex10": {
        "ex10_word_scores_only": {"q1": [
            ("candidates = beam_scores[:, None] + log_probs", "candidates = log_probs")],
            "q2": [('winner_0, winner_06 = "A", "B"', 'winner_0, winner_06 = "A", "A"')]},
        "ex10_unclipped_bleu": {"q3": [
            ("matches = sum(min(count, r[g]) for g, count in h.items())",
             "matches = sum(count for g, count in h.items() if g in r)"),
            ("return 1.0 if c > r else math.exp(1 - r / c)", "return 1.0 if c > r else math.exp(1 - c / r)")]},
        # issue 27, point 7: feedback that diagnoses these, instead of stating the answer
        "ex10_distinct_ngrams": {"q3": [
            ("return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))",
             "return Counter(set(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)))")]},
        "ex10_hardcoded_example": {"q1": [(
            "def beam_step(beam_scores, log_probs, K):\n",
            "def beam_step(beam_scores, log_probs, K):\n"
            "    return [0, 1], [1, 0], [-0.3, -1.1]   # the question's example, by hand\n\n\n"
            "def worked(beam_scores, log_probs, K):\n")]},
        "ex10_worst_first": {"q1": [
            ('best = np.argsort(-flat, kind="stable")[:K]', 'best = np.argsort(-flat, kind="stable")[:K][::-1]')]},
        "ex10_cache_every_position": {"q4": [
            ("positions_without_cache = sum(range(1, 21))", "positions_without_cache = 20 * 20"),
            ("cache_shape = (3, 8, 20, 64)", "cache_shape = (3, 20, 8, 64)")],
            "q2": [("alpha_star = math.log(2.30 / 2.10) / math.log(12 / 9)",
                    "alpha_star = math.log(2.30 / 2.10) / math.log(7 / 4)")]},
        # issue 27, point 6: chapter 10's one-reference bleu, and the chapter's cache numbers
        "ex10_first_reference_only": {"q3": [
            ("    h, r = grams(hyp), Counter()\n    for ref in refs:\n"
             "        r |= grams(ref)              # | keeps the larger count of each n-gram\n",
             "    h, r = grams(hyp), grams(refs[0])   # chapter 10's bleu: one reference\n"),
            ("    r = min((len(ref) for ref in refs), key=lambda length: (abs(length - c), length))",
             "    r = len(refs[0])")]},
        "ex10_chapter_cache": {"q4": [
            ("positions_without_cache = sum(range(1, 21))", "positions_without_cache = 78"),
            ("positions_with_cache = 20", "positions_with_cache = 12"),
            ("cache_shape = (3, 8, 20, 64)", "cache_shape = (1, 4, 12, 32)"),
            ("cache_bytes = 2 * 6 * 3 * 8 * 20 * 64 * 4", "cache_bytes = 2 * 1 * 4 * 12 * 32 * 4")]},
    },
    "ex11": {
        "ex11_logs_added": {"q1": [
            ("return m + math.log(sum(math.exp(x - m) for x in lses))", "return sum(lses)")]},
        "ex11_acc_not_rescaled": {"q2": [
            ("acc = acc * scale[:, None] + p @ vb", "acc = acc + p @ vb")]},
        "ex11_hardcoded_example": {"q1": [(
            "def merge_lse(lses):\n",
            "def merge_lse(lses):\n"
            "    return math.log(1 + math.e + math.exp(2))   # the question's example, by hand\n\n\n"
            "def worked(lses):\n")]},
        "ex11_rescale_wrong_way": {"q2": [
            ("scale = np.exp(m - safe)", "scale = np.exp(safe - m)")]},
        "ex11_no_empty_guard": {"q2": [
            ("safe = np.where(m_new == -np.inf, 0.0, m_new)", "safe = m_new")]},
        "ex11_counts_not_bytes": {"q3": [
            ("naive_bytes = B * H * T * T * 4", "naive_bytes = B * H * T * T"),
            ("tiled_bytes = B * H * T * 128 * 4", "tiled_bytes = B * H * 128 * 128 * 4")]},
        # issue 27, point 6: chapter 11's merge of (m, l) states and its causal mask, pasted
        "ex11_chapter_merge": {"q1": [(
            "def merge_lse(lses):\n",
            "def merge_lse(a, b):\n"
            "    (m_a, l_a), (m_b, l_b) = a, b   # chapter 11's merge_softmax_states\n"
            "    m = max(m_a, m_b)\n"
            "    if m == -math.inf:\n"
            "        return -math.inf, 0.0\n"
            "    return m, l_a * math.exp(m_a - m) + l_b * math.exp(m_b - m)\n\n\n"
            "def worked(lses):\n")]},
        "ex11_causal_not_window": {"q2": [
            ("s = np.where((cols <= rows) & (cols > rows - window), s, -np.inf)",
             "s = np.where(cols <= rows, s, -np.inf)   # chapter 11's causal mask")]},
    },
}

# issue 25: exercise 15's misconceptions, and the chapter's code pasted where it does not fit
CASES["ex15"] = {
    "ex15_key_only_rotated": {"q1": [(
        "q_turned = rope_halves(np.asarray(q, dtype=float)[None], start=m, base=base)[0]",
        "q_turned = np.asarray(q, dtype=float)   # only the key carries a position")]},
    "ex15_tiled_heads": {"q2": [(
        "return w.reshape(num_kv_heads, G, D, Dh).mean(axis=1)  # (Hkv, D, Dh)",
        "return w.reshape(G, num_kv_heads, D, Dh).mean(axis=0)  # heads j, j + Hkv, ..."),
        ("heads_reading_kv3 = [12, 13, 14, 15]", "heads_reading_kv3 = [3, 11, 19, 27]")]},
    "ex15_window_off_by_one": {"q3": [(
        "return (s <= t) & ((s > t - window) | (s < sinks))",
        "return (s <= t) & ((s >= t - window) | (s < sinks))  # i - W .. i")]},
    "ex15_no_factor_two": {"q4": [
        ("per_sequence = 2 * layers * Hkv * Dh * T * 2", "per_sequence = layers * Hkv * Dh * T * 2"),
        ("(2 * layers * Hkv * Dh * 4096 * 2)", "(layers * Hkv * Dh * 4096 * 2)")]},
    # issue 32: the sinks visible to queries before them, and the window joined with "and"
    "ex15_sinks_not_causal": {"q3": [(
        "return (s <= t) & ((s > t - window) | (s < sinks))",
        "return ((s <= t) & (s > t - window)) | (s < sinks)")]},
    "ex15_summed_heads": {"q2": [(
        "return w.reshape(num_kv_heads, G, D, Dh).mean(axis=1)  # (Hkv, D, Dh)",
        "return w.reshape(num_kv_heads, G, D, Dh).sum(axis=1)  # (Hkv, D, Dh)")],
        "q4": [("largest_batch = 40 * 2**30 // per_sequence", "largest_batch = 14  # 40 / 3, rounded")]},
    # issue 32, fault 4: F.scaled_dot_product_attention(..., enable_gqa=True) got full marks on
    # the old q2 (grouped attention); q2 now asks for pooling, which no library exports, so the
    # library earns nothing; the honest torch line (the prediction) keeps its points
    "adversarial/ex15_sdpa_enable_gqa": {"q2": [(
        "def pool_kv_heads(w, num_kv_heads):\n",
        "import torch\n"
        "import torch.nn.functional as F\n\n\n"
        "def grouped_attention(q, k, v, mask=None):  # the old question, by the library\n"
        "    q, k, v = (torch.as_tensor(a)[None] for a in (q, k, v))\n"
        "    m = None if mask is None else torch.as_tensor(mask)\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True)[0].numpy()\n\n\n"
        "def pool_kv_heads(w, num_kv_heads):\n"
        "    w = torch.as_tensor(w)  # enable_gqa repeats heads: it pools none, so keep one a group\n"
        "    return w[:: w.shape[0] // num_kv_heads].numpy()\n\n\n"
        "def unused(w, num_kv_heads):\n"),
        ("heads_reading_kv3 = [12, 13, 14, 15]",
         "heads_reading_kv3 = torch.arange(32).reshape(8, 4)[3].tolist()")]},
    # chapter 15's side-by-side pairs and its window without sinks, pasted
    "ex15_chapter_copy": {
        "q1": [("first, second = x[:, :h], x[:, h:]  # (T, h) each: pair i is (x[i], x[i + h])\n"
                "    turned = [first * cos - second * sin, first * sin + second * cos]\n"
                "    return np.concatenate(turned, axis=1)  # (T, Dh)",
                "first, second = x[:, 0::2], x[:, 1::2]  # the chapter's side-by-side pairs\n"
                "    out = np.empty_like(x)\n"
                "    out[:, 0::2] = first * cos - second * sin\n"
                "    out[:, 1::2] = first * sin + second * cos\n"
                "    return out")],
        "q3": [("return (s <= t) & ((s > t - window) | (s < sinks))",
                "return (s <= t) & (s > t - window)  # chapter 15's window")]},
}

# issue 38: exercise 16's misconceptions (a head ablated from the layer's output, a table of
# pattern scores and costs, an induction score from the tokens, what gets copied)
_EX16_TERM = "return y + (new - heads[..., cols]) @ w_o[:, cols].T"
_EX16_NAMED = "named = x[:, :, None] == before[:, None, :]"
_EX16_MEAN = "return on_named.transpose(1, 0, 2)[:, counted].mean(axis=-1)  # (H, N) -> (H,)"
CASES["ex16"] = {
    # mean ablation done as zero ablation; the noise read as a difference
    "ex16_zero_not_mean": {
        "q1": [("new = np.zeros(Dh) if mean is None else np.asarray(mean, dtype=float)",
                "new = np.zeros(Dh)  # the head switched off")],
        "q2": [('conclusions = ["B", "C", "D"]', 'conclusions = ["B", "C", "D", "E"]')]},
    # W^O run again on the rewritten heads: its bias, which y holds, is lost
    "ex16_rerun_without_bias": {"q1": [(_EX16_TERM,
        "rewritten = heads.copy()\n"
        "    rewritten[..., cols] = new  # the chapter's hook\n"
        "    return rewritten @ w_o.T")]},
    # nn.Linear's weight read as (in, out): the head's rows instead of its columns
    "ex16_rows_of_wo": {"q1": [(_EX16_TERM, "return y + (new - heads[..., cols]) @ w_o[cols, :]")]},
    # the earlier occurrence itself (a duplicate-token head), in q3 and in q4
    "ex16_duplicate_token": {
        "q3": [("before = x[:, :-1]  # (B, L - 1): the token before key k = 1 .. L - 1",
                "before = x[:, :-1]  # keys 0 .. L - 2, the earlier occurrences themselves"),
               ("named &= np.arange(1, L)[None, :] <= np.arange(L)[:, None]  # k <= t",
                "named &= np.arange(L - 1)[None, :] < np.arange(L)[:, None]  # k < t"),
               ("on_named = (w[..., 1:] * named[:, None]).sum(axis=-1)",
                "on_named = (w[..., :-1] * named[:, None]).sum(axis=-1)")],
        "q4": [("keys_from_7 = [1, 5]", "keys_from_7 = [0, 4]")]},
    # every query counted, those with nothing to name as 0; one-at-a-time costs read as the
    # heads' joint cost
    "ex16_all_queries_counted": {
        "q3": [(_EX16_MEAN, "return on_named.mean(axis=(0, 2))  # every query")],
        "q2": [('conclusions = ["B", "C", "D"]', 'conclusions = ["A", "C", "D"]')]},
    # each sequence's mean, then their mean
    "ex16_per_sequence_mean": {"q3": [(_EX16_MEAN,
        "rows = [on_named[b][:, counted[b]].mean(axis=-1) for b in range(B) if counted[b].any()]\n"
        "    return np.mean(rows, axis=0)")]},
    # the text's next token for the head's copy, and the mask-free model's 1.000 kept
    "ex16_mask_free_reads": {"q4": [('copied = [None, "cat", "sat"]', 'copied = [None, "mat", "ran"]'),
                                     ("generating_accuracy = 1 / 32", "generating_accuracy = 1.0")]},
    # the chapter's aligned score read as the head's importance
    "ex16_score_is_cost": {"q2": [('conclusions = ["B", "C", "D"]', 'conclusions = ["B", "F"]')]},
    # cheat: wrong answers behind objects that equal (or contain) anything, and the kernel's
    # comparisons patched; only the public type and shape checks the wrong answers pass score
    "adversarial/ex16_lying_answers": {
        "q1": [(_EX16_TERM,
                "class Same(np.ndarray):\n"
                "        def __eq__(self, other):\n"
                "            return np.ones(np.shape(self), dtype=bool)\n"
                "    np.allclose = np.array_equal = lambda *a, **k: True\n"
                "    return np.array(y).view(Same)  # y unchanged")],
        "q2": [('conclusions = ["B", "C", "D"]',
                "class Everything(list):\n"
                "    def __contains__(self, item):\n"
                "        return True\n\n\n"
                "conclusions = Everything()")],
        "q3": [(_EX16_MEAN, "math.isclose = lambda *a, **k: True\n"
                "    return np.zeros(H)")],
        "q4": [('copied = [None, "cat", "sat"]',
                "class Anything(list):\n"
                "    def __eq__(self, other):\n"
                "        return True\n\n\n"
                "copied = Anything([None, None, None])"),
               ("keys_from_7 = [1, 5]", "keys_from_7 = Anything()"),
               ("generating_accuracy = 1 / 32",
                "class Equal(float):\n"
                "    def __eq__(self, other):\n"
                "        return True\n\n\n"
                "generating_accuracy = Equal(0.0)")]},
    # honest: loops in plain Python for q3, the chapter's rewrite with the bias recovered for q1
    "honest/ex16_loops_and_bias": {
        "q1": [(_EX16_TERM,
                "bias = y - heads @ w_o.T  # (B, T, D): the bias, wherever it is added\n"
                "    rewritten = heads.copy()\n"
                "    rewritten[..., cols] = new  # the chapter's hook on W^O's input\n"
                "    return rewritten @ w_o.T + bias")],
        "q3": [(_EX16_NAMED,
                "w = w.tolist()\n"
                "    totals, count = [0.0] * H, 0\n"
                "    for b in range(B):\n"
                "        for t in range(L):\n"
                "            keys = [k for k in range(1, t + 1) if x[b][k - 1] == x[b][t]]\n"
                "            if keys:\n"
                "                count += 1\n"
                "                for h in range(H):\n"
                "                    totals[h] += sum(w[b][h][t][k] for k in keys)\n"
                "    if count == 0:\n"
                "        return [math.nan] * H\n"
                "    return [s / count for s in totals]\n"
                "    named = x[:, :, None] == before[:, None, :]")]},
}

# issue 32: exercise 6 reworked (masks with a cache, weights masked after the fact, two wrong
# cache masks diagnosed); its cases, first written by hand, come from the master since
_EX06_CAUSAL = "return keys[None, :] <= queries[:, None]"
CASES["ex06"] = {
    "ex06_ignores_offset": {"q1": [("queries = offset + np.arange(n)", "queries = np.arange(n)"),
                                   ("keys = np.arange(offset + n)", "keys = np.arange(n)")]},
    "ex06_inverted_padding": {"q1": [("real = np.arange(max_len)[None, :] < lengths[:, None]",
                                      "real = np.arange(max_len)[None, :] >= lengths[:, None]")]},
    "ex06_strict_causal": {"q1": [(_EX06_CAUSAL, "return keys[None, :] < queries[:, None]")]},
    "ex06_transposed_causal": {"q1": [(_EX06_CAUSAL, "return keys[None, :] >= queries[:, None]")]},
    # the hidden weights zeroed and left there; the padding queries counted as seeing nothing
    "ex06_zeroed_not_renormalised": {
        "q2": [("true_cells = (1 + 2 + 3 + 4 + 4 + 4 + 4) + (1 + 2 + 3 + 4 + 5 + 6 + 7) + (1 + 2 * 6)",
                "true_cells = (1 + 2 + 3 + 4) + (1 + 2 + 3 + 4 + 5 + 6 + 7) + (1 + 2)")],
        "q3": [("return kept / kept.sum(axis=-1, keepdims=True)", "return kept"),
               ("masked_row = [0.0, 0.6, 0.4]", "masked_row = [0.0, 0.3, 0.2]")]},
    # chapter 6's np.where(mask, ..., -inf) and softmax, applied to the weights
    "ex06_softmax_of_weights": {"q3": [(
        "kept = np.where(mask, weights, 0.0)\n    return kept / kept.sum(axis=-1, keepdims=True)",
        "return softmax(np.where(mask, weights, -np.inf), axis=-1)")]},
    # honest: loops, the weights renormalised in place in float32, the counts by hand
    "honest/ex06_loops_in_place": {
        "q2": [("true_cells = (1 + 2 + 3 + 4 + 4 + 4 + 4) + (1 + 2 + 3 + 4 + 5 + 6 + 7) + (1 + 2 * 6)",
                "true_cells = sum(min(i + 1, n) for n in (4, 7, 2) for i in range(7))")],
        "q3": [("kept = np.where(mask, weights, 0.0)\n    return kept / kept.sum(axis=-1, keepdims=True)",
                "w = np.array(weights, dtype=np.float32)   # a copy, changed in place\n"
                "    w *= np.broadcast_to(mask, w.shape)\n"
                "    w /= w.sum(axis=-1, keepdims=True)\n"
                "    return w")],
        "q4": [("leaked_a, missing_a = int((mask_a & ~right).sum()), int((right & ~mask_a).sum())",
                "leaked_a, missing_a = 0, 5 + 5 + 5   # rows see 1, 2, 3 of their 6, 7, 8 keys"),
               ("leaked_b, missing_b = int((mask_b & ~right).sum()), int((right & ~mask_b).sum())",
                "leaked_b, missing_b = 2 + 1 + 0, 5 + 6 + 7")]},
    # the cells each wrong mask allows, not those it gets wrong; its own position called a leak
    "ex06_cache_masks_miscounted": {"q4": [(
        "leaked_a, missing_a = int((mask_a & ~right).sum()), int((right & ~mask_a).sum())",
        "leaked_a, missing_a = 0, int(mask_a.sum())"),
        ("leaked_b, missing_b = int((mask_b & ~right).sum()), int((right & ~mask_b).sum())",
         "leaked_b, missing_b = int(mask_b.sum()), int((right & ~mask_b).sum())")]},
}

# issue 32: exercise 7 reworked (coverage, the slips behind three tables, calls that fail); its
# cases, first written by hand, come from the master since
_EX07_SLIPS = 'slips = {"a": "no_scaling", "c": "softmax_over_queries", "d": "divided_by_d_k"}'
CASES["ex07"] = {
    "ex07_no_scaling": {
        "q1": [("scores = q @ k.T / np.sqrt(k.shape[-1])", "scores = q @ k.T")],
        "q2": [(_EX07_SLIPS, 'slips = {"a": "divided_by_d_k", "c": "softmax_over_queries", "d": "no_scaling"}')]},
    "ex07_source_rows": {
        "q1": [("return weights.sum(axis=0)", "return weights.sum(axis=1)")],
        "q3": [("shape_of_wrong = (2, 7, 32)", "shape_of_wrong = (2, 5, 32)")]},
    "ex07_swapped_queries": {
        "q1": [("q = x_target @ w_q", "q = x_source @ w_q"), ("k = x_source @ w_k", "k = x_target @ w_k")],
        "q3": [('fails = {"c", "d", "e"}', 'fails = {"b", "c", "d", "e"}'),
               ('runs_but_wrong = "b"', 'runs_but_wrong = "a"')]},
    "ex07_softmax_over_queries": {
        "q1": [("weights = softmax(scores, axis=-1)", "weights = softmax(scores, axis=0)")],
        "q2": [(_EX07_SLIPS, 'slips = {"a": "no_scaling", "c": "queries_from_source", "d": "divided_by_d_k"}')]},
    # honest: loops over the target words in float32, a list of letters
    "honest/ex07_loops_float32": {
        "q1": [("    q = x_target @ w_q", "    x_target = np.asarray(x_target, dtype=np.float32)\n"
                "    x_source = np.asarray(x_source, dtype=np.float32)\n"
                "    total = np.zeros(len(x_source), dtype=np.float32)\n"
                "    for x in x_target:                       # one target word at a time\n"
                "        s = (x @ w_q) @ (x_source @ w_k).T / np.sqrt(w_k.shape[1])\n"
                "        e = np.exp(s - s.max())\n"
                "        total += e / e.sum()\n"
                "    return total\n"
                "    q = x_target @ w_q")],
        "q3": [('fails = {"c", "d", "e"}', 'fails = ["e", "d", "c"]')]},
}

# exercise 12's bug hunt: the answer cells are the learner id, the bug's name and the fix
CASES["ex12"] = {
    # honest: another id gets another bug, and the grader recomputes it
    "ex12_right_fix_other_bug": {"q1": [('learner_id = "s1002"', 'learner_id = "s1013"')],
                                 "q2": [('bug_name = "mask_polarity"', 'bug_name = "softmax_axis"')]},
    "ex12_wrong_diagnosis": {
        "q1": [('learner_id = "s1002"', 'learner_id = "s1004"')],
        "q2": [('bug_name = "mask_polarity"', 'bug_name = "softmax_axis"')],
        "q3": [("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", "scores = q @ k.transpose(-2, -1)")]},
    "ex12_names_bug_of_another_id": {"q2": [('bug_name = "mask_polarity"', 'bug_name = "softmax_axis"')]},
    "ex12_empty_id": {"q1": [('learner_id = "s1002"', 'learner_id = ""')]},
    # issue 32, fault 3: the id changed in a later cell (s1004's bug is another): graded as the
    # id written in question 1's cell, s1002, whose bug is named and fixed, and the report says so
    "ex12_id_changed_later": {"q3": [("def fixed_self_attention(",
                                      'learner_id = "s1004"   # changed after the id cell\n\n\n'
                                      "def fixed_self_attention(")]},
    # cheat: the name from the documented rule, and another id's component instead of a fix (every
    # component is broken somewhere the hidden tests look)
    "ex12_other_ids_component": {
        "q2": [('bug_name = "mask_polarity"', "bug_name = bughunt._rule(learner_id)")],
        "q3": [("def attention(q, k, v, key_lengths, causal=False):\n",
                'attention = bughunt.broken_component("s1009").attention\n\n\n'
                "def worked(q, k, v, key_lengths, causal=False):\n"),
               ("return attention(x, x, x, lengths, causal=causal)[0]",
                "return worked(x, x, x, lengths, causal=causal)[0]")]},
}
# issue 32, the scan: exercises 10 and 11 compared at 1e-9 and 1e-12, below float32's resolution
CASES["ex10"]["honest/ex10_float32"] = {"q3": [
    ("return 1.0 if c > r else math.exp(1 - r / c)",
     "return 1.0 if c > r else float(np.exp(np.float32(1 - r / c)))   # float32")]}
CASES["ex11"]["honest/ex11_float32"] = {"q1": [
    ("return m + math.log(sum(math.exp(x - m) for x in lses))",
     "x = np.array(lses, dtype=np.float32)   # float32\n"
     "    return float(np.float32(m) + np.log(np.exp(x - np.float32(m)).sum()))")]}
# the same cheat with a component of each other bug (s1009's is target_leak): each hidden test
# also checks causal self-attention with padding, where every bug shows, so each scores 0 of 6
for _bug, _lid in (("causal_transposed", "s1000"), ("padding_axis", "s1001"), ("mask_polarity", "s1002"),
                   ("missing_scale", "s1004"), ("softmax_axis", "s1013")):
    CASES["ex12"][f"ex12_component_{_bug}"] = {
        q: [(old, new.replace('"s1009"', f'"{_lid}"')) for old, new in edits]
        for q, edits in CASES["ex12"]["ex12_other_ids_component"].items()}

# exercise 14: byte-pair encoding (issue 24's misconceptions: pairs counted across two texts,
# merges applied out of order), the chapter's code pasted, and an answer written for the example
CASES["ex14"] = {
    "ex14_pairs_across_texts": {"q2": [
        ('words = [cut(tuple(text.encode("utf-8"))) for text in texts]',
         'words = [cut(tuple("".join(texts).encode("utf-8")))]   # all the texts as one')]},
    "ex14_ties_first_seen": {
        "q1": [('first_merges = ["ug", "hug", "bug"]', 'first_merges = ["ug", "hug", "pug"]'),
               ('pugs_tokens = ["p", "ug", "s"]', 'pugs_tokens = ["pug", "s"]')],
        "q2": [("best = min(counts, key=lambda pair: (-counts[pair], pair))",
                "best = counts.most_common(1)[0][0]")]},
    "ex14_merges_by_text_frequency": {"q3": [
        ("pair = min(pairs, key=rank.get)  # the merge learned first",
         "pair = Counter(pairs).most_common(1)[0][0]  # the most frequent pair of this chunk")]},
    "ex14_merges_last_first": {"q3": [
        ("pair = min(pairs, key=rank.get)  # the merge learned first",
         "pair = max(pairs, key=rank.get)  # the newest merge: the biggest token")]},
    "ex14_decode_each_token": {"q4": [
        ("        waiting += vocab[i]\n        n = whole(waiting)\n"
         '        shown.append(waiting[:n].decode("utf-8", errors="replace"))\n'
         "        waiting = waiting[n:]\n",
         '        shown.append(vocab[i].decode("utf-8", errors="replace"))  # token by token\n')]},
    # chapter 14's train_bpe (no old merges, ids from 256, up to a vocabulary size) and its
    # decode, which reads a whole sequence
    "ex14_chapter_code": {
        "q2": [("    words = [cut(tuple(text.encode(\"utf-8\"))) for text in texts]",
                "    words = [tuple(text.encode(\"utf-8\")) for text in texts]   # chapter 14's"),
               ("while len(new) < num_new:", "while 256 + len(new) < num_new:"),
               ("new_id = 256 + len(merges) + len(new)", "new_id = 256 + len(new)")],
        "q4": [("def stream_decode(ids, merges):\n",
                "def stream_decode(ids, merges):   # chapter 14's decode\n"
                "    vocab = [bytes([b]) for b in range(256)]\n"
                "    for a, b in merges:\n"
                "        vocab.append(vocab[a] + vocab[b])\n"
                '    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")\n\n\n'
                "def worked(ids, merges):\n")]},
    "ex14_hardcoded_example": {"q3": [(
        "def encode(text, merges):\n",
        "def encode(text, merges):\n"
        "    return [257, 49, 50]   # the question's example, by hand\n\n\n"
        "def worked(text, merges):\n")]},
    # issue 32: the old merges ignored (new ids after them), and the digits merged like letters
    "ex14_old_merges_not_applied": {"q2": [(
        '    words = [cut(tuple(text.encode("utf-8"))) for text in texts]',
        '    words = [tuple(text.encode("utf-8")) for text in texts]   # raw bytes')]},
    "ex14_digits_merged": {"q3": [(
        "        if ch in \"0123456789\":", "        if False:   # digits like any other character")]},
    # issue 32, fault 2: each merge applied once, to its first occurrence, in learned order (the
    # message for it could never fire: its reference looked again after each replacement)
    "ex14_first_occurrence_once": {"q3": [(
        "        while len(ids) > 1:\n",
        "        for r, pair in enumerate(merges):   # each merge once, first occurrence only\n"
        "            for i in range(len(ids) - 1):\n"
        "                if (ids[i], ids[i + 1]) == tuple(pair):\n"
        "                    ids = ids[:i] + [256 + r] + ids[i + 2:]\n"
        "                    break\n"
        "        while False:\n")]},
    # honest: the old merges applied merge by merge over every text (the same cut), a regular
    # expression for the chunks
    "honest/ex14_regex_chunks": {"q3": [(
        "    chunks, run = [], \"\"\n"
        "    for ch in text:\n"
        "        if ch in \"0123456789\":\n"
        "            chunks += [run, ch] if run else [ch]\n"
        "            run = \"\"\n"
        "        else:\n"
        "            run += ch\n"
        "    if run:\n"
        "        chunks.append(run)\n",
        "    import re\n\n"
        "    chunks = re.findall(r\"[0-9]|[^0-9]+\", text)   # a digit, or a run of others\n")]},
}

# exercise 13: the usual mistakes of a decoder-only translator's layout, mask, loss and cache
_Q1_MASK = "loss_mask[b, start + len(src):] = True"
_Q2_CAUSAL = "mask = (j <= i) & real[None, :]"
_Q3_MEAN = "return float(nll[counted].sum() / counted.sum())"
_Q3_PROMPT = ("loss_with_prompt = (T * -math.log(0.8) - math.log(0.5)\n"
              "                    + S * -math.log(0.05)) / (S + T + 1)")
_Q3_TARGETS = "loss_targets_only = (T * -math.log(0.8) - math.log(0.5)) / (T + 1)"
CASES["ex13"] = {
    # the prompt predicted too: the loss mask of every real position
    "ex13_prompt_in_loss": {"q1": [(_Q1_MASK, "loss_mask[b, start:] = True")]},
    # nothing shifted: each position scored on the token it reads, and the first English token
    # counted as a prediction
    "ex13_targets_not_shifted": {
        "q1": [("targets[b, start:] = seq[1:]", "targets[b, start:] = seq[:-1]")],
        "q3": [(_Q3_PROMPT,
                "loss_with_prompt = (T * -math.log(0.8) - math.log(0.5) + (S + 1) * -math.log(0.05))"
                " / (S + T + 2)")]},
    # <eos> left out of the loss (the last column predicts it in every left-padded row)
    "ex13_eos_not_in_loss": {
        "q1": [(_Q1_MASK, "loss_mask[b, start + len(src):L - 1] = True")],
        "q3": [(_Q3_PROMPT,
                "loss_with_prompt = (T * -math.log(0.8) + S * -math.log(0.05)) / (S + T)"),
               (_Q3_TARGETS, "loss_targets_only = -math.log(0.8)   # the Portuguese tokens only")]},
    # the causal mask off by one, both ways
    "ex13_diagonal_excluded": {"q2": [(_Q2_CAUSAL, "mask = (j < i) & real[None, :]")]},
    "ex13_one_future_visible": {"q2": [(_Q2_CAUSAL, "mask = (j <= i + 1) & real[None, :]"),
                                       ('leaks = {"B", "D", "E"}', 'leaks = {"D", "E"}')]},
    # padding (and prompt) counted in the mean, and each row weighing the same
    "ex13_padding_in_mean": {"q3": [(_Q3_MEAN, "return float((nll * counted).mean())")]},
    "ex13_rows_weigh_the_same": {"q3": [(_Q3_MEAN,
        "return float(((nll * counted).sum(1) / counted.sum(1)).mean())")]},
    # the encoder's layers given a cache, and the GPT's prompt without <sep>
    "ex13_encoder_cached": {"q4": [
        ("ed_cache_bytes = 2 * per_position", "ed_cache_bytes = 12 * per_position"),
        ("ed_growth = 2 * per_position", "ed_growth = 12 * per_position")]},
    # issue 32: chapter 13's "exactly twice", taken for these unequal halves
    "ex13_chapter_factor_two": {"q4": [
        ("gpt_over_ed = gpt_cache_bytes / ed_cache_bytes", "gpt_over_ed = 2.0  # chapter 13")]},
    # issue 32, fault 5: predictions rounded as the question allows (three decimals; 0.282 is
    # 3.8e-4 away from 0.281894 in relative terms, which rel_tol=1e-4 refused)
    "honest/ex13_rounded_predictions": {"q3": [
        (_Q3_TARGETS, "loss_targets_only = 0.282"),
        (_Q3_PROMPT, "loss_with_prompt = 1.445")]},
    "ex13_prompt_without_sep": {"q4": [("(S + 1 + n)", "(S + n)")]},
    # the chapter's code pasted: tutorlib's right-padded batch, and its plain causal mask
    "ex13_chapter_right_padding": {"q1": [(
        "def left_padded_batch(pairs, pad_id, sep_id, eos_id):\n",
        "def left_padded_batch(pairs, pad_id, sep_id, eos_id):\n"
        "    from tutorlib.gpt import make_gpt_batch   # chapter 13's batch\n"
        "    batch = make_gpt_batch([s for s, _ in pairs], [t for _, t in pairs],\n"
        "                           pad_id, sep_id, eos_id)\n"
        "    B, L = batch.tokens.shape\n"
        "    positions = torch.arange(L).expand(B, L) * batch.real_mask\n"
        "    return batch.tokens, batch.targets, batch.loss_mask, positions\n\n\n"
        "def worked(pairs, pad_id, sep_id, eos_id):\n")]},
    "ex13_chapter_causal_mask": {"q2": [(
        "def row_mask(row, sep_id, pad_id, prefix=False):\n",
        "def row_mask(row, sep_id, pad_id, prefix=False):\n"
        "    from tutorlib.nn import causal_attention_mask   # the GPT's mask in chapter 13\n"
        "    return causal_attention_mask(len(row))\n\n\n"
        "def worked(row, sep_id, pad_id, prefix=False):\n")]},
    # honest: torch and Python lists for q1, loops for q2, F.cross_entropy in float32 for q3
    "honest/ex13_torch_loops_float32": {
        "q1": [("    seqs = [list(src) + [sep_id] + list(tgt) + [eos_id] for src, tgt in pairs]\n",
                "    rows = []\n"
                "    for src, tgt in pairs:\n"
                "        seq = [*src, sep_id, *tgt, eos_id]\n"
                "        counted = [False] * len(src) + [True] * (len(tgt) + 1)\n"
                "        rows.append((seq[:-1], seq[1:], counted))\n"
                "    L = max(len(r[0]) for r in rows)\n"
                "    pad = lambda xs, fill: [fill] * (L - len(xs)) + list(xs)\n"
                "    return (torch.tensor([pad(r[0], pad_id) for r in rows]),\n"
                "            torch.tensor([pad(r[1], pad_id) for r in rows]),\n"
                "            torch.tensor([pad(r[2], False) for r in rows]),\n"
                "            torch.tensor([pad(list(range(len(r[0]))), 0) for r in rows]))\n"
                "    seqs = [list(src) + [sep_id] + list(tgt) + [eos_id]"
                " for src, tgt in pairs]\n")],
        "q2": [("    row = np.asarray(row)\n",
                "    row = list(row)\n"
                "    sep = row.index(sep_id)\n"
                "    return [[row[j] != pad_id and (j <= i or (prefix and i <= sep and j <= sep))\n"
                "             for j in range(len(row))] for i in range(len(row))]\n"
                "    row = np.asarray(row)\n")],
        "q3": [("    logits = torch.as_tensor(logits, dtype=torch.float64)\n",
                "    keep = torch.as_tensor(loss_mask).bool()\n"
                "    x = torch.as_tensor(logits).float()[keep]       # (N, V) counted rows only\n"
                "    y = torch.as_tensor(targets)[keep]\n"
                "    return torch.nn.functional.cross_entropy(x, y).item()\n"
                "    logits = torch.as_tensor(logits, dtype=torch.float64)\n"),
               (_Q3_TARGETS,
                "loss_targets_only = float((7 * -np.log(np.float32(0.8)) - np.log(np.float32(0.5))) / 8)")],
        "q4": [("ed_cache_bytes = 2 * per_position * ((1 + n) + S)",
                "ed_cache_bytes = 2 * (2 * B * 8 * 64 * (n + 1) + 2 * B * 8 * 64 * S) * 2")]},
    # cheat: wrong answers dressed as objects that equal anything, and patched comparisons in the
    # kernel; only q4 (right) and the shape checks the wrong answers pass may score
    "adversarial/ex13_lying_answers": {
        "q1": [("    return tokens, targets, loss_mask, positions\n",
                "    class Always(np.ndarray):\n"
                "        def __eq__(self, other):\n"
                "            return np.ones(self.shape, dtype=bool)\n"
                "    np.array_equal = lambda *a, **k: True      # in the kernel only\n"
                "    return tuple(np.zeros((B, L), dtype=int).view(Always) for _ in range(4))\n"
                "    return tokens, targets, loss_mask, positions\n")],
        "q2": [("    return mask\n",
                "    return np.ones((L, L), dtype=bool)       # every key, every query\n"
                "    return mask\n"),
               ('leaks = {"B", "D", "E"}',
                "class AnySet(set):\n"
                "    def __eq__(self, other):\n"
                "        return True\n\n"
                "    def __contains__(self, item):\n"
                "        return True\n\n\n"
                "leaks = AnySet()")],
        "q3": [(_Q3_MEAN,
                "class Equal(float):\n"
                "        def __eq__(self, other):\n"
                "            return True\n"
                "    math.isclose = lambda *a, **k: True\n"
                "    return Equal(0.0)"),
               (_Q3_TARGETS,
                "class Close(float):\n"
                "    def __eq__(self, other):\n"
                "        return True\n\n\n"
                "loss_targets_only = Close(1.0)"),
               (_Q3_PROMPT, "loss_with_prompt = Close(2.0)")]},
}

MARKER = re.compile(r"^\s*# (BEGIN|END) SOLUTION( NO PROMPT)?\s*$")


def right_answers(name: str) -> list[str]:
    """The master's solution cells, in question order, with the otter markers removed."""
    master = nbformat.read(ROOT / "exercises" / "masters" / f"{name}.ipynb", as_version=4)
    answers, inside = [], False
    for cell in master.cells:
        text = cell.source.strip()
        if cell.cell_type == "raw" and text.startswith("# BEGIN SOLUTION"):
            inside = True
        elif cell.cell_type == "raw" and text.startswith("# END SOLUTION"):
            inside = False
        elif inside and cell.cell_type == "code":
            answers.append("\n".join(l for l in cell.source.splitlines() if not MARKER.match(l)))
    return answers


def answer_cells(nb) -> list[int]:
    """Indices of the student notebook's answer cells: code cells holding a `...` to fill in."""
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and re.search(r"(^|\s)\.\.\.", c.source)
            and "grader" not in c.source]


def main(only: list[str]) -> None:
    for ex, cases in CASES.items():
        if only and ex not in only:
            continue
        name = NAMES[ex]
        answers = right_answers(name)
        student = nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4)
        cells = answer_cells(student)
        assert len(cells) == len(answers), f"{name}: {len(cells)} answer cells, {len(answers)} solutions"
        for case, edits in cases.items():
            nb = nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4)
            for q, (i, answer) in enumerate(zip(cells, answers), start=1):
                for old, new in edits.get(f"q{q}", []):
                    assert old in answer, f"{case}: {old!r} is not in the solution of q{q}"
                    answer = answer.replace(old, new)
                nb.cells[i].source = answer
            folder, _, case = case.rpartition("/")
            path = HERE / (folder or ex) / f"{case}.ipynb"
            path.parent.mkdir(exist_ok=True)
            nbformat.write(nb, path)
            print("wrote", path.relative_to(ROOT))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
