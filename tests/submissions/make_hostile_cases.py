"""Write the corpus cases of issue 27: replies that attack the checker, and links.

    .venv/bin/python tests/submissions/make_hostile_cases.py

The grader's checker never runs a submission's code, but it reads what the kernel sends. These
submissions replace the kernel's own encoder (``grading.kernel`` is importable in the sandbox) so
that a reply asks the checker for 16 GiB, 8 TiB, or a set of integers that all hash alike. Each
is exercise 2's student notebook with wrong answers to q1 and q2, the right answer to q3, and the
trick; each must score what its honest parts earn, as a ``ProtocolError`` (or a timeout) on the
questions it attacks, never a grader error. Beside them:

- honest/ex11_keeps_a_big_array: the worked solutions of exercise 11 and a 768 MiB array kept
  from measuring (full marks, and fast: the kernel measures a name before encoding it);
- adversarial/ex01_link_to_solution and ex01_link_to_private: symbolic links (to the worked
  solutions, to a file of the machine), refused without being read;
- adversarial/ex01_not_a_notebook: a text file named .ipynb, whose content no report quotes;
- honest/ex01_float32: exercise 1's worked solutions computed in float32, which the tests'
  tolerances (above float32's resolution, not 1e-9) must accept;
- adversarial/ex10_calls_sacrebleu, ex11_calls_tutorlib_efficient and
  ex14_calls_tutorlib_tokenizers: the worked solutions with
  the answer to build replaced by a call of the library that exports it, which the grader
  withholds in that exercise (exercises/README.md, "What a question may call"): the cell that
  imports it does not run, and its question scores what the rest of the notebook earns.

Their expected grades are in expected.json, which tests/test_grading.py checks.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from make_design_cases import from_solution  # noqa: E402
from make_ex02_cases import Q3, WRONG_Q2, build  # noqa: E402
from make_practice_cases import answer_cells, right_answers  # noqa: E402

# The learner's function returns an Answer; the patched encoder turns it into the forged value.
FORGE = '''# replace the kernel's encoder: the reply to a call of cosine_similarity is forged
from grading import kernel

real_encode = kernel.KernelLink.encode


class Answer:
    pass


def encode(self, x):
    if isinstance(x, Answer):
        return FORGED
    return real_encode(self, x)


kernel.KernelLink.encode = encode


def cosine_similarity(a, b):
    return Answer()'''

HUGE_SHAPE = '''# 8 TiB of float64 in a 90-byte reply
FORGED = {"$tensor": {"dtype": "<f8", "shape": [1 << 20, 1 << 20], "data": ""}}\n\n''' + FORGE

COLLIDING_SET = '''# integers that all hash to 0: building the set is quadratic (30k take 5 s)
FORGED = {"$set": [k * (2 ** 61 - 1) for k in range(1, 60_000)]}\n\n''' + FORGE

HUGE_DTYPE_NAMES = '''# issue 27's attack: every names reply carries an 80-byte array description that the old
# checker zero-filled 2 GiB a string for (here 8 of them)
from grading import kernel

real_names = kernel.Kernel.names


def names(self, link):
    out = real_names(self, link)
    out["junk"] = {"$array": {"dtype": "<U536870911", "shape": [8], "items": ["a"] * 8}}
    return out


kernel.Kernel.names = names'''

WRONG_Q1 = '''def cosine_similarity(a, b):
    return 0.5'''

EX02_HOSTILE = {
    "ex02_forged_huge_dtype": (WRONG_Q1, WRONG_Q2, Q3, [(2, HUGE_DTYPE_NAMES)]),
    "ex02_forged_huge_shape": (HUGE_SHAPE, WRONG_Q2, Q3),
    "ex02_forged_colliding_set": (COLLIDING_SET, WRONG_Q2, Q3),
}

BIG_ARRAY = '''# kept from timing the tiled attention on a long sequence: 768 MiB of float32
timing_buffer = np.zeros((768 << 20) // 4, dtype=np.float32)
timing_buffer[:: 1 << 16] = 1.0      # touched: real memory, not only reserved'''

EX01_FLOAT32 = [
    ("    return math.sqrt((S - 1) / D)   # S - 1 independent terms of variance 1 / D",
     "    return np.sqrt(np.float32(S - 1) / np.float32(D))   # float32: about 7 digits"),
    ("    relevance = np.asarray(saved, dtype=float) / need",
     "    relevance = np.asarray(saved, dtype=np.float32) / np.float32(need)"),
    ("    return float(weights @ np.asarray(lends, dtype=float))",
     "    return weights @ np.asarray(lends, dtype=np.float32)   # a float32 scalar"),
]

# (exercise, {question: [(old, new), ...]}): the worked solution, calling what it should build
CALLS_WITHHELD = {
    "ex10_calls_sacrebleu": ("ex10_decoding", {"q3": [(
        "def sentence_bleu(hyp, refs):\n",
        "import sacrebleu\n\n\ndef sentence_bleu(hyp, refs):\n"
        "    return sacrebleu.sentence_bleu(' '.join(hyp), [' '.join(r) for r in refs]).score\n\n\n"
        "def unused(hyp, refs):\n")]}),
    "ex11_calls_tutorlib_efficient": ("ex11_efficient_attention", {
        "q1": [("def merge_lse(lses):\n",
                "from tutorlib import efficient\n\n\ndef merge_lse(lses):\n"
                "    m, l = efficient.softmax_state(np.asarray(lses))\n"
                "    return float(m + np.log(l))\n\n\n"
                "def unused(lses):\n")],
        "q2": [("def tiled_window_attention(q, k, v, block, window):\n",
                "from tutorlib.efficient import tiled_attention as chapter_version\n\n\n"
                "def tiled_window_attention(q, k, v, block, window):\n"
                "    return chapter_version(q, k, v, block, causal=True)\n\n\n"
                "def unused(q, k, v, block, window):\n")]}),
    "ex14_calls_tutorlib_tokenizers": ("ex14_tokenization", {
        "q2": [("def more_merges(texts, merges, num_new):\n",
                "from tutorlib.tokenizers import BPE\n\n\ndef more_merges(texts, merges, num_new):\n"
                "    return BPE.train(texts, 256 + num_new, special_tokens=()).merges\n\n\n"
                "def unused(texts, merges, num_new):\n")],
        "q3": [("def encode(text, merges):\n",
                "from tutorlib.tokenizers import BPE\n\n\ndef encode(text, merges):\n"
                "    return BPE(merges, special_tokens=()).encode(text)\n\n\n"
                "def unused(text, merges):\n")],
        "q4": [("def stream_decode(ids, merges):\n",
                "from tutorlib.tokenizers import BPE\n\n\ndef stream_decode(ids, merges):\n"
                "    bpe = BPE(merges, special_tokens=())\n"
                "    return [bpe.decode([i]) for i in ids]\n\n\n"
                "def unused(ids, merges):\n")]}),
    "ex15_calls_tutorlib_modern": ("ex15_modern_attention", {
        "q1": [("def rope_halves(x, start=0, base=10000.0):\n",
                "from tutorlib.modern import apply_rope\n\n\n"
                "def rope_halves(x, start=0, base=10000.0):\n"
                "    return apply_rope(np.asarray(x, dtype=float), positions=start, base=base)\n\n\n"
                "def unused(x, start=0, base=10000.0):\n")],
        "q2": [("def pool_kv_heads(w, num_kv_heads):\n",
                "from tutorlib.gpt import group_kv_heads\n\n\n"
                "def pool_kv_heads(w, num_kv_heads):\n"
                "    return group_kv_heads(w, num_kv_heads)\n\n\n"
                "def unused(w, num_kv_heads):\n")],
        "q3": [("def sink_window_mask(T, window, sinks):\n",
                "from tutorlib.modern import sliding_window_mask\n\n\n"
                "def sink_window_mask(T, window, sinks):\n"
                "    return sliding_window_mask(T, window).numpy()\n\n\n"
                "def unused(T, window, sinks):\n")]}),
}

# issue 25: exercise 15 answered another way, RoPE as complex numbers in float32, heads by a
# loop, the mask by loops
EX15_OTHER_WAY = [
    ("""    x = np.asarray(x, dtype=float)
    T, Dh = x.shape
    h = Dh // 2""",
     """    x = np.asarray(x, dtype=np.float32)   # float32, as a model would
    T, Dh = x.shape
    h = Dh // 2
    z = x[:, :h] + 1j * x[:, h:]          # each pair (x[i], x[i + h]) as one complex number
    pos = np.arange(start, start + T)[:, None]
    z = z * np.exp(1j * pos * base ** (-np.arange(h) * 2 / Dh))
    return np.concatenate([z.real, z.imag], axis=1).astype(np.float32)"""),
    ("    return w.reshape(num_kv_heads, G, D, Dh).mean(axis=1)  # (Hkv, D, Dh)",
     "    return np.stack([sum(w[j * G + g] for g in range(G)) / G\n"
     "                     for j in range(num_kv_heads)])"),
    ("""    t = np.arange(T)[:, None]  # (T, 1) queries
    s = np.arange(T)[None, :]  # (1, T) keys""",
     """    mask = np.zeros((T, T), dtype=bool)
    for t in range(T):
        mask[t, max(0, t - window + 1) : t + 1] = True
        mask[t, : min(sinks, t + 1)] = True
    return mask"""),
]

# issue 32, fault 1: an honest answer in float32 (NumPy) keeps full marks
EX15_FLOAT32 = [
    ("    x = np.asarray(x, dtype=float)\n    T, Dh = x.shape\n    h = Dh // 2",
     "    x = np.asarray(x, dtype=np.float32)\n    T, Dh = x.shape\n    h = Dh // 2"),
    ("theta = base ** (-np.arange(0, Dh, 2) / Dh)  # (h,)",
     "theta = np.float32(base) ** (-np.arange(0, Dh, 2, dtype=np.float32) / Dh)  # (h,)"),
    ("angle = np.arange(start, start + T)[:, None] * theta",
     "angle = np.arange(start, start + T, dtype=np.float32)[:, None] * theta"),
    ("q_turned = rope_halves(np.asarray(q, dtype=float)[None], start=m, base=base)[0]",
     "q_turned = rope_halves(np.asarray(q, dtype=np.float32)[None], start=m, base=base)[0]"),
    ("k_turned = rope_halves(np.asarray(k, dtype=float)[None], start=n, base=base)[0]",
     "k_turned = rope_halves(np.asarray(k, dtype=np.float32)[None], start=n, base=base)[0]"),
    ("    w = np.asarray(w, dtype=float)\n", "    w = np.asarray(w, dtype=np.float32)\n"),
]


def with_calls(exercise: str, edits: dict):
    """The student notebook with the worked solutions filled in, ``edits`` applied."""
    nb = nbformat.read(ROOT / "exercises" / f"{exercise}.ipynb", as_version=4)
    for q, (i, answer) in enumerate(zip(answer_cells(nb), right_answers(exercise)), start=1):
        for old, new in edits.get(f"q{q}", []):
            assert old in answer, f"{exercise}: {old!r} is not in the solution of q{q}"
            answer = answer.replace(old, new)
        nb.cells[i].source = answer
    return nb


PRIVATE = "private-grading-notes.txt"
SECRET = "SECRET-ON-THE-GRADING-MACHINE: the hidden tests' answers are 0.6 and k2\n"
NOT_A_NOTEBOOK = "SECRET-IN-A-TEXT-FILE: this is not JSON, and no report may quote it\n"


def main():
    written = []
    for name, spec in EX02_HOSTILE.items():
        nb = build(spec[:3], spec[3] if len(spec) > 3 else [])
        written.append(HERE / "adversarial" / f"{name}.ipynb")
        nbformat.write(nb, written[-1])
    nb = from_solution("ex11_efficient_attention", [])
    nb.cells.append(nbformat.v4.new_code_cell(BIG_ARRAY))
    written.append(HERE / "honest" / "ex11_keeps_a_big_array.ipynb")
    nbformat.write(nb, written[-1])
    written.append(HERE / "honest" / "ex15_complex_numbers_and_loops.ipynb")
    nbformat.write(from_solution("ex15_modern_attention", EX15_OTHER_WAY), written[-1])
    written.append(HERE / "honest" / "ex15_float32.ipynb")
    nbformat.write(from_solution("ex15_modern_attention", EX15_FLOAT32), written[-1])
    written.append(HERE / "honest" / "ex01_float32.ipynb")
    nbformat.write(from_solution("ex01_why_attention", EX01_FLOAT32), written[-1])
    for name, (exercise, edits) in CALLS_WITHHELD.items():
        written.append(HERE / "adversarial" / f"{name}.ipynb")
        nbformat.write(with_calls(exercise, edits), written[-1])
    # links, relative so that the corpus works wherever the repository is
    (HERE / PRIVATE).write_text(SECRET)            # stands for a file of the grading machine
    for name, target in (("ex01_link_to_solution", "../../../exercises/solutions/ex01_why_attention.ipynb"),
                         ("ex01_link_to_private", f"../{PRIVATE}")):
        link = HERE / "adversarial" / f"{name}.ipynb"
        link.unlink(missing_ok=True)
        os.symlink(target, link)
        assert link.resolve().is_file(), f"{link} points at nothing"
        written.append(link)
    written.append(HERE / "adversarial" / "ex01_not_a_notebook.ipynb")
    written[-1].write_text(NOT_A_NOTEBOOK)
    print(f"wrote {len(written)} submissions")


if __name__ == "__main__":
    main()
