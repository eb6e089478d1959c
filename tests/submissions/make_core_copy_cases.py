"""Write the copy-score cases of exercises 6, 7, 8, 13, 14, 15 and 16 (issue 32) into copy/.

    .venv/bin/python tests/submissions/make_core_copy_cases.py [ex16 ...]

Each case is the exercise's student notebook handed in by a diligent learner who does not
understand, three ways:

- ``exNN_paste``: each answer cell filled only with the chapter cell that matches it (renamed
  where the question's name differs), or with a number the chapter prints or states;
- ``exNN_paste_tutorlib``: the answer is the tutorlib function the chapter demonstrates, where
  one exists (else as in ``paste``);
- ``exNN_paste_formula``: the question's own numbers put into the chapter's formulas.

An answer cell the chapter has nothing for is left as the student notebook has it (a function
instead of a source changes the student's cell, for a question whose cell holds code to keep). Their points
are in expected.json; the goal of issue 32 is at most 30 % of each exercise's points.
Rerun this after one of these exercises changes, then grade copy/ and check expected.json.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from make_copy_cases import answer_cells  # the same answer cells as exercises 1-5, 9-12

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NAMES = {
    "ex06": "ex06_masking",
    "ex07": "ex07_cross_attention",
    "ex08": "ex08_transformer_block",
    "ex13": "ex13_decoder_only",
    "ex14": "ex14_tokenization",
    "ex15": "ex15_modern_attention",
    "ex16": "ex16_heads",
}

# --- exercise 15: chapter 15's rotate_pairs (cell 4), repeat_kv_heads (cell 12), window_mask
# (cell 23), and the numbers of its cache table

EX15_ROPE = '''def rope_halves(x, start=0, base=10000.0):
    # chapter 15's rotate_pairs, its positions start .. start + T - 1
    x = np.asarray(x, dtype=float)
    positions = range(start, start + len(x))
    T, Dh = x.shape
    theta = base ** (-np.arange(0, Dh, 2) / Dh)  # (Dh/2,): one frequency per pair
    angle = np.asarray(positions, dtype=float)[:, None] * theta
    cos, sin = np.cos(angle), np.sin(angle)
    first, second = x[:, 0::2], x[:, 1::2]  # (T, Dh/2) each: the pairs' two features
    out = np.empty_like(x, dtype=float)
    out[:, 0::2] = first * cos - second * sin
    out[:, 1::2] = first * sin + second * cos
    return out


def rope_score(q, k, m, n, base=10000.0):
    # chapter 15's cell 6: rotate_pairs(q, [m]) @ rotate_pairs(k, [n]).T
    q, k = np.asarray(q, dtype=float)[None], np.asarray(k, dtype=float)[None]
    return float((rope_halves(q, m, base) @ rope_halves(k, n, base).T)[0, 0])
'''

EX15_REPEAT = '''import torch


def pool_kv_heads(w, num_kv_heads):
    # chapter 15's repeat_kv_heads, the nearest cell, on (1, H, D, Dh)
    kv = torch.as_tensor(np.asarray(w, dtype=float))[None]
    B, Hkv, S, Dh = kv.shape
    G = num_kv_heads // Hkv
    return kv[:, :, None].expand(B, Hkv, G, S, Dh).reshape(B, num_kv_heads, S, Dh)[0].numpy()


heads_reading_kv3 = [0, 0, 1, 1]  # what the chapter prints for repeat_kv_heads'''

EX15_WINDOW = '''import torch

from tutorlib.nn import causal_attention_mask


def sink_window_mask(T, window, sinks):
    # chapter 15's window_mask
    causal = causal_attention_mask(T)  # s <= t
    too_old = causal.tril(-window)  # s <= t - window
    return (causal & ~too_old).numpy()
'''

EX15_CACHE_PASTE = '''cache_bytes = 4 * 2**30  # Mistral 7B at 32k tokens, own key/value heads (the chapter's table)
largest_batch = 64  # the chapter's batch of prompts
largest_batch_windowed = 64'''

EX15_CACHE_FORMULA = '''# the chapter's formula, 2 x layers x Hkv x Dh x T x batch x bytes, on the question's numbers
layers, D, H, Hkv, T, B = 48, 5120, 40, 8, 16384, 4
cache_bytes = 2 * layers * Hkv * (D // H) * T * B * 2
largest_batch = B
largest_batch_windowed = B'''

EX15_TUTORLIB = [
    '''from tutorlib.modern import apply_rope


def rope_halves(x, start=0, base=10000.0):
    return apply_rope(np.asarray(x, dtype=float), positions=start, base=base)


def rope_score(q, k, m, n, base=10000.0):
    q_turned = apply_rope(np.asarray(q, dtype=float)[None], positions=m, base=base)
    k_turned = apply_rope(np.asarray(k, dtype=float)[None], positions=n, base=base)
    return float((q_turned @ k_turned.T)[0, 0])
''',
    '''from tutorlib.gpt import group_kv_heads


def pool_kv_heads(w, num_kv_heads):
    return group_kv_heads(w, num_kv_heads)


heads_reading_kv3 = [0, 0, 1, 1]''',
    '''from tutorlib.modern import sliding_window_mask


def sink_window_mask(T, window, sinks):
    return sliding_window_mask(T, window).numpy()
''',
    '''from tutorlib.modern import kv_cache_bytes

cache_bytes = kv_cache_bytes(48, 8, 128, 16384, batch=4, bytes_per_value=2)
largest_batch = 4
largest_batch_windowed = 4''',
]

# --- exercise 6: chapter 6's make_causal_mask (cell 33), make_padding_mask (cell 22) with the
# query axis of cell 28, both masks of cell 44, np.where(..., -inf) and softmax (cells 8, 10), and
# the slide's numbers printed by cell 40

EX06_MASKS = '''def look_ahead_mask(n, offset=0):
    # chapter 6's make_causal_mask
    positions = np.arange(n)
    return positions[None, :] <= positions[:, None]   # (1, T) <= (T, 1) -> (T, T)


def key_mask(lengths, max_len=None):
    # chapter 6's make_padding_mask, with cell 28's query axis
    lengths = np.asarray(lengths)
    if max_len is None:
        max_len = int(lengths.max())
    positions = np.arange(max_len)
    return (positions[None, :] < lengths[:, None])[:, None, :]  # (B, 1, T)
'''

EX06_BOTH = '''def decoder_mask(lengths):
    # chapter 6's cell 44: causal_mask(T5) & pad_mask[:, None, :]
    T = int(np.max(lengths))
    return look_ahead_mask(T) & key_mask(lengths)


true_cells = ...  # a whole number: the True entries of decoder_mask([4, 7, 2])'''

EX06_WHERE = '''from tutorlib.attention import softmax


def mask_weights(weights, mask):
    # chapter 6's cells 8 and 10: forbidden scores -> -inf, then the softmax
    return softmax(np.where(mask, weights, -np.inf), axis=-1)


masked_row = ...  # three numbers'''

EX06_SLIDE = '''leaked_a = 12   # the future cells the slide leaves open (chapter 6, cell 40)
missing_a = 3   # the cells it hides
leaked_b = 12
missing_b = 3'''

EX06_TUTORLIB = [
    '''from tutorlib.attention import causal_mask, padding_mask


def look_ahead_mask(n, offset=0):
    return causal_mask(n)


def key_mask(lengths, max_len=None):
    return padding_mask(lengths, max_len=max_len)[:, None, :]
''',
    '''from tutorlib.attention import causal_mask, padding_mask


def decoder_mask(lengths):
    return causal_mask(int(np.max(lengths))) & padding_mask(lengths)[:, None, :]


true_cells = ...  # a whole number: the True entries of decoder_mask([4, 7, 2])''',
    EX06_WHERE,
    EX06_SLIDE,
]

EX06_FORMULAS = [
    EX06_MASKS,
    EX06_BOTH.replace("true_cells = ...  # a whole number: the True entries of decoder_mask([4, 7, 2])",
                      "true_cells = 3 * 7 * (7 + 1) // 2  # B causal triangles of T (T + 1) / 2 cells"),
    EX06_WHERE.replace("masked_row = ...  # three numbers",
                       "masked_row = list(softmax(np.array([-np.inf, 0.3, 0.2])))"),
    '''n = 3
leaked_a = leaked_b = n * (n - 1) // 2   # cells above the diagonal
missing_a = missing_b = n * (n + 1) // 2  # cells on and below it''',
]

# --- exercise 7: chapter 7's projected cross-attention (cells 25, 26), the weight it names the
# smallest, and the shape (B, T, D) of a cross-attention output; the slips and the failing calls
# are in no chapter cell

EX07_STEP = '''from tutorlib.attention import scaled_dot_product_attention


def coverage(x_target, x_source, w_q, w_k):
    # chapter 7's cells 25 and 26
    Q_p = x_target @ w_q                        # (T, D) @ (D, d_k) -> (T, d_k)
    K_p = x_source @ w_k                        # (S, D) @ (D, d_k) -> (S, d_k)
    V_p = x_source                              # no W_V here
    out_p, weights_p = scaled_dot_product_attention(Q_p, K_p, V_p)   # (T, d_v), (T, S)
    return weights_p


least_read = "happy"  # the smallest weight of "sou" (chapter 7, cell 13)'''

EX07_TUTORLIB_STEP = '''from tutorlib.attention import scaled_dot_product_attention


def coverage(x_target, x_source, w_q, w_k):
    return scaled_dot_product_attention(x_target @ w_q, x_source @ w_k, x_source)[1]


least_read = "happy"'''

EX07_FORMULA_CALLS = '''fails = ...            # a set of letters
runs_but_wrong = ...   # one letter
shape_of_wrong = (2, 5, 32)  # the output's (B, T, D)'''

# --- exercise 14: chapter 14's train_bpe (cell 21) and encode (cell 27) without split_text, which
# the grader withholds with tutorlib.tokenizers, and its decode (cell 27); tutorlib's BPE is
# withheld; no chapter cell counts merges by hand

EX14_TRAIN = '''def more_merges(texts, merges, num_new):
    # chapter 14's train_bpe, each text a chunk of its own
    def merge(ids, pair, new_id):
        out, i = [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return tuple(out)

    chunks = Counter(tuple(text.encode("utf-8")) for text in texts)
    new = []
    while len(new) < num_new:
        counts = Counter()
        for ids, n in chunks.items():
            for pair in zip(ids, ids[1:]):
                counts[pair] += n
        if not counts:
            break
        best = min(counts, key=lambda pair: (-counts[pair], pair))
        new_id = 256 + len(new)
        new.append(best)
        merged = Counter()
        for ids, n in chunks.items():
            merged[merge(ids, best, new_id)] += n
        chunks = merged
    return new
'''

EX14_ENCODE = '''def encode(text, merges):
    # chapter 14's encode, the text one chunk
    def merge(ids, pair, new_id):
        out, i = [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return tuple(out)

    rank = {tuple(pair): r for r, pair in enumerate(merges)}
    word = tuple(text.encode("utf-8"))
    while len(word) > 1:
        pair = min(zip(word, word[1:]), key=lambda p: rank.get(p, len(rank)))
        if pair not in rank:
            break
        word = merge(word, pair, 256 + rank[pair])
    return list(word)
'''

EX14_DECODE = '''def stream_decode(ids, merges):
    # chapter 14's decode
    vocab = [bytes([b]) for b in range(256)]
    for a, b in merges:
        vocab.append(vocab[a] + vocab[b])
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
'''

EX14_TUTORLIB = [
    None,
    '''from tutorlib.tokenizers import BPE


def more_merges(texts, merges, num_new):
    return BPE.train(texts, 256 + num_new, special_tokens=()).merges
''',
    '''from tutorlib.tokenizers import BPE


def encode(text, merges):
    return BPE(merges, special_tokens=()).encode(text)
''',
    '''from tutorlib.tokenizers import BPE


def stream_decode(ids, merges):
    return BPE(merges, special_tokens=()).decode(ids)
''',
]

# --- exercise 8: chapter 8's positional_encoding (cell 9) where a dot product is asked, its
# post-norm layer step by step with feed_forward.linear1 and .linear2 (cell 36) where a parallel
# block is asked, the shuffles its cells print (cells 4, 21, and its prose), and the rotation
# angle k * omega_i of cell 19

EX08_PE = '''def positional_encoding(max_len, d_model):
    # chapter 8's cell 9
    p = torch.arange(max_len, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = p / 10000 ** (two_i / d_model)
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, :d_model // 2])
    return pe


def offset_dot(offsets, d_model, base=10000.0):
    return positional_encoding(len(offsets), d_model)


self_dot = 64  # D_pe of chapter 8's cell 19'''

EX08_LAYER = '''def parallel_layer_forward(x, self_attn, norm, feed_forward, mask=None):
    # chapter 8's cell 36, step by step
    h, w = self_attn(x, x, x, mask=mask)
    x1 = norm(x + h)
    hidden = torch.relu(feed_forward.linear1(x1))
    f = feed_forward.linear2(hidden)
    return norm(x1 + f)
'''

EX08_SHUFFLES = '''shuffle_answer = "b"    # chapter 8, cell 4: output of the shuffle = shuffled output
layer_answer = "b"
causal_answer = "c"
positions_answer = "c"  # chapter 8, cell 21'''

def EX08_ANGLE(cell: str) -> str:  # noqa: N802 (a case's answer, named like the others)
    """The student's cell of q4, its angle from chapter 8's omega_i = 1 / 10000^(2i/D)."""
    return cell.replace("angle = ...", "angle = 5 / 10000 ** (2 * 1 / 8)", 1)


EX08_TUTORLIB = [
    '''from tutorlib.nn import sinusoidal_positional_encoding


def offset_dot(offsets, d_model, base=10000.0):
    return sinusoidal_positional_encoding(len(offsets), d_model)


self_dot = 64''',
    '''from tutorlib.nn import EncoderLayer


def parallel_layer_forward(x, self_attn, norm, feed_forward, mask=None):
    layer = EncoderLayer(x.shape[-1], self_attn.num_heads, 4 * x.shape[-1]).double().eval()
    return layer(x, mask)
''',
    EX08_SHUFFLES,
    None,
]

# --- exercise 13: chapter 13's batch padded on the right (tutorlib.gpt.make_gpt_batch), the GPT's
# causal mask, its loss (cross_entropy over the counted targets, ignore_index), its "exactly
# twice" and its cache formula layers x 2 x (S + T) x D

EX13_BATCH = '''def left_padded_batch(pairs, pad_id, sep_id, eos_id):
    # chapter 13's make_gpt_batch: each row's tokens from the left, padding on the right
    seqs = [list(s) + [sep_id] + list(t) + [eos_id] for s, t in pairs]
    L, B = max(len(q) for q in seqs) - 1, len(seqs)
    tokens = torch.full((B, L), pad_id, dtype=torch.long)
    targets = torch.full((B, L), pad_id, dtype=torch.long)
    loss_mask = torch.zeros(B, L, dtype=torch.bool)
    real_mask = torch.zeros(B, L, dtype=torch.bool)
    for b, (q, (s, _)) in enumerate(zip(seqs, pairs)):
        n = len(q) - 1
        tokens[b, :n] = torch.tensor(q[:-1])
        targets[b, :n] = torch.tensor(q[1:])
        loss_mask[b, len(s):n] = True
        real_mask[b, :n] = True
    positions = torch.arange(L).expand(B, L) * real_mask
    return tokens, targets, loss_mask, positions
'''

EX13_MASK = '''from tutorlib.nn import causal_attention_mask


def row_mask(row, sep_id, pad_id, prefix=False):
    # the GPT's mask in chapter 13
    return causal_attention_mask(len(row)).numpy()


leaks = ...  # a set of letters, like {"X", "Y"}'''

EX13_LOSS = '''def masked_loss(logits, targets, loss_mask):
    # chapter 13's gpt_loss: the uncounted targets set to -100, which cross_entropy leaves out
    targets = targets.masked_fill(~loss_mask, -100)
    V = logits.shape[-1]
    return float(torch.nn.functional.cross_entropy(
        logits.reshape(-1, V), targets.reshape(-1), ignore_index=-100))


loss_targets_only = ...  # a number
loss_with_prompt = ...   # a number'''

EX13_CACHE = '''ed_cache_bytes = ...   # a whole number
gpt_cache_bytes = ...  # a whole number
ed_growth = ...        # a whole number
gpt_over_ed = 2.0      # "the GPT's cache is exactly twice the translator's" (chapter 13)'''

EX13_TUTORLIB = [
    '''from tutorlib.gpt import make_gpt_batch


def left_padded_batch(pairs, pad_id, sep_id, eos_id):
    batch = make_gpt_batch([s for s, _ in pairs], [t for _, t in pairs], pad_id, sep_id, eos_id)
    B, L = batch.tokens.shape
    positions = torch.arange(L).expand(B, L) * batch.real_mask
    return batch.tokens, batch.targets, batch.loss_mask, positions
''',
    EX13_MASK,
    EX13_LOSS,
    EX13_CACHE,
]

EX13_FORMULAS = [
    EX13_BATCH,
    EX13_MASK,
    EX13_LOSS.replace("loss_targets_only = ...  # a number\nloss_with_prompt = ...   # a number",
                      "S, T = 6, 7\n"
                      "loss_targets_only = -math.log(0.8)   # -ln p of the counted tokens\n"
                      "loss_with_prompt = (T * -math.log(0.8) + S * -math.log(0.05)) / (S + T)"),
    '''# chapter 13: layers x 2 x (S + T) x D numbers, here x B sentences x 2 bytes
layers, B, S, T, D = 12, 8, 30, 41, 512
ed_cache_bytes = layers * 2 * (T + S) * D * B * 2
gpt_cache_bytes = layers * 2 * (S + T) * D * B * 2
ed_growth = layers * 2 * D * B * 2
gpt_over_ed = gpt_cache_bytes / ed_cache_bytes''',
]

# --- exercise 16: chapter 16's hook (tutorlib.debug.heads.ablate_heads: the head's columns of
# W^O's input rewritten), its induction_scores (the fixed layout, half = L // 2), and the numbers
# it prints (chance, 1/48), the letter whose sentence it states (B)

EX16_HOOK = '''def ablate_from_output(y, heads, w_o, head, num_heads, mean=None):
    # chapter 16's hook on W^O's input: the head's Dh columns rewritten
    x = np.array(heads, dtype=float)
    B, T, D = x.shape
    Dh = D // num_heads
    x = x.reshape(B, T, num_heads, Dh)  # (B, T_q, D) -> (B, T_q, H, Dh)
    x[:, :, head] = 0.0 if mean is None else mean
    return x.reshape(B, T, D)
'''

EX16_INDUCTION = '''def induction_score(weights, tokens):
    # chapter 16's induction_scores: query q reads key q - half + 1
    w = np.asarray(weights, dtype=float)
    L = w.shape[-1]
    half = L // 2
    # (B, H, L, L) -> (B, H, half): the weight of query half + i on key i + 1
    return np.diagonal(w, offset=-(half - 1), axis1=-2, axis2=-1)[..., 1:].mean(axis=(0, 2))
'''

EX16_TABLE = '''conclusions = ["B"]  # chapter 16: "with any one of them gone the others still do it"'''

EX16_PREDICT_PASTE = '''copied = [None, "mat", "ran"]  # the text's next tokens
keys_from_7 = [0, 4]  # the earlier "the"s
generating_accuracy = 1 / 48  # chance, as chapter 16 prints it'''

EX16_PREDICT_FORMULA = '''copied = [None, "mat", "ran"]
keys_from_7 = [0, 4]
generating_accuracy = 1 / 32  # chance, 1 / V, with the question's V'''

EX16_TUTORLIB = [
    '''import torch

from tutorlib.debug.heads import AttentionOnly, ablate_heads


def ablate_from_output(y, heads, w_o, head, num_heads, mean=None):
    # ablate_heads needs a model: a one-layer AttentionOnly given this W^O, its hook run on
    # the heads' outputs
    x = torch.as_tensor(np.asarray(heads, dtype=float))
    B, T, D = x.shape
    model = AttentionOnly(2, d_model=D, num_heads=num_heads, num_layers=1).double()
    attn = model.blocks[0].self_attn
    with torch.no_grad():
        attn.w_o.weight.copy_(torch.as_tensor(np.asarray(w_o, dtype=float)))
        attn.w_o.bias.zero_()
    means = None
    if mean is not None:
        means = {"self": torch.zeros(1, num_heads, D // num_heads, dtype=torch.float64)}
        means["self"][0, head] = torch.as_tensor(np.asarray(mean, dtype=float))
    how = "zero" if mean is None else "mean"
    with torch.no_grad(), ablate_heads(model, "self", (0, head), how, means):
        return attn.w_o(x).numpy()
''',
    EX16_TABLE,
    '''import torch

from tutorlib.debug.heads import induction_scores


def induction_score(weights, tokens):
    w = torch.as_tensor(np.asarray(weights, dtype=float))
    return induction_scores(w, w.shape[-1] // 2).numpy()
''',
    EX16_PREDICT_PASTE,
]

CASES = {
    "ex06": {
        "paste": [EX06_MASKS, EX06_BOTH, EX06_WHERE, EX06_SLIDE],
        "paste_tutorlib": EX06_TUTORLIB,
        "paste_formula": EX06_FORMULAS,
    },
    "ex07": {
        "paste": [EX07_STEP, None, None],
        "paste_tutorlib": [EX07_TUTORLIB_STEP, None, None],
        "paste_formula": [EX07_STEP, None, EX07_FORMULA_CALLS],
    },
    "ex08": {
        "paste": [EX08_PE, EX08_LAYER, EX08_SHUFFLES, None],
        "paste_tutorlib": EX08_TUTORLIB,
        "paste_formula": [EX08_PE, EX08_LAYER, EX08_SHUFFLES, EX08_ANGLE],
    },
    "ex13": {
        "paste": [EX13_BATCH, EX13_MASK, EX13_LOSS, EX13_CACHE],
        "paste_tutorlib": EX13_TUTORLIB,
        "paste_formula": EX13_FORMULAS,
    },
    "ex14": {
        "paste": [None, EX14_TRAIN, EX14_ENCODE, EX14_DECODE],
        "paste_tutorlib": EX14_TUTORLIB,
        "paste_formula": [None, EX14_TRAIN, EX14_ENCODE, EX14_DECODE],
    },
    "ex15": {
        "paste": [EX15_ROPE, EX15_REPEAT, EX15_WINDOW, EX15_CACHE_PASTE],
        "paste_tutorlib": EX15_TUTORLIB,
        "paste_formula": [EX15_ROPE, EX15_REPEAT, EX15_WINDOW, EX15_CACHE_FORMULA],
    },
    "ex16": {
        "paste": [EX16_HOOK, EX16_TABLE, EX16_INDUCTION, EX16_PREDICT_PASTE],
        "paste_tutorlib": EX16_TUTORLIB,
        "paste_formula": [EX16_HOOK, EX16_TABLE, EX16_INDUCTION, EX16_PREDICT_FORMULA],
    },
}


def main(only: list[str]) -> None:
    for ex, variants in CASES.items():
        if only and ex not in only:
            continue
        for variant, answers in variants.items():
            nb = nbformat.read(ROOT / "exercises" / f"{NAMES[ex]}.ipynb", as_version=4)
            cells = answer_cells(nb)
            assert len(cells) == len(answers), f"{ex}: {len(cells)} answer cells, {len(answers)}"
            for i, answer in zip(cells, answers):
                if callable(answer):  # a change of the student's own cell
                    nb.cells[i].source = answer(nb.cells[i].source)
                elif answer is not None:
                    nb.cells[i].source = answer
            path = HERE / "copy" / f"{ex}_{variant}.ipynb"
            path.parent.mkdir(exist_ok=True)
            nbformat.write(nb, path)
            print("wrote", path.relative_to(ROOT))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
