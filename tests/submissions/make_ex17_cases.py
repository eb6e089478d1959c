"""Write exercise 17's corpus cases: misconceptions (ex17/), an honest alternative (honest/), a
cheat (adversarial/) and the three copy cases (copy/).

    .venv/bin/python tests/submissions/make_ex17_cases.py

A misconception or honest case is the student notebook with the master's solution filled in and
one or two usual mistakes (or another honest way) swapped in: each replacement must apply, or the
script stops (as in make_practice_cases.py). A copy case fills the answer cells with what chapter
17 shows (make_core_copy_cases.py explains the three ways). Their points and messages are in
expected.json; tests/test_grading.py grades them. Rerun after the master or the chapter changes,
regrade, and check expected.json. Kept apart from make_practice_cases.py so that exercises 16 and
17, written at the same time, do not edit the same script.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from make_practice_cases import answer_cells, right_answers

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NAME = "ex17_serving"

_Q1_OWN = "    shared = list(range(prompt_len // block_size))  # the blocks the prompt fills\n"
_Q2_ZERO = "    zero = np.round(-lo / scale)\n"
_Q3_BONUS = "        if j == len(draft) or choice != draft[j]:\n"
_Q3_RATE = "acceptance_rate = sum(alpha**j for j in range(1, k + 1)) / k"
_Q4_SHARED = "shared = 3000 // 16  # the blocks the prompt fills, stored once"
_Q4_MLA = "mla_blocks = budget // (16 * 32 * (512 + 64) * 2)"

# case name -> {question: [(old, new), ...]}: the right answer with these replacements
CASES = {
    # the prompt's last, partly full block shared as well (no copy on write), in q1 and in q4
    "ex17_partial_block_shared": {
        "q1": [
            (
                _Q1_OWN,
                "    shared = list(range(math.ceil(prompt_len / block_size)))  # every prompt block\n",
            )
        ],
        "q4": [(_Q4_SHARED, "shared = math.ceil(3000 / 16)  # every block of the prompt")],
    },
    # chapter 17's symmetric grid, fitted per group: no zero point
    "ex17_symmetric_grid": {
        "q2": [
            (
                "    flat = hi == lo  # nothing to round: the group keeps its numbers\n",
                "    q = 2 ** (bits - 1) - 1   # chapter 17's grid, -q .. q\n"
                "    peak = np.abs(groups).max(axis=-1, keepdims=True)\n"
                "    return (np.clip(np.round(groups / (peak / q)), -q, q) * (peak / q)).reshape(R, C)\n"
                "    flat = hi == lo  # nothing to round: the group keeps its numbers\n",
            )
        ]
    },
    # the zero point left as lo itself (a float offset), and its byte left out of the count
    "ex17_float_zero_point": {
        "q2": [
            (
                "    codes = np.clip(np.round(groups / scale) + zero, 0, top)\n"
                "    restored = np.where(flat, groups, (codes - zero) * scale)\n",
                "    codes = np.clip(np.round((groups - lo) / scale), 0, top)\n"
                "    restored = np.where(flat, groups, lo + codes * scale)\n",
            ),
            ("bytes_per_number = 4 / 8 + (2 + 1) / 32", "bytes_per_number = 4 / 8 + 2 / 32"),
        ]
    },
    # no bonus token when every guess is accepted
    "ex17_no_bonus_token": {
        "q3": [
            (
                _Q3_BONUS,
                "        if j == len(draft):\n"
                "            emitted.pop()  # (no bonus: the draft proposed only k)\n"
                "            break\n"
                "        if choice != draft[j]:\n",
            )
        ]
    },
    # the guesses after a disagreement accepted too, and the rate taken for alpha
    "ex17_accepts_after_mismatch": {
        "q3": [
            (_Q3_BONUS, "        if j == len(draft):\n"),
            (
                "        accepted += 1  # the guess was right: the key fed for it is the text's\n",
                "        accepted += choice == draft[j]\n",
            ),
            (_Q3_RATE, "acceptance_rate = alpha"),
        ]
    },
    # the rejected guesses' keys kept in the cache
    "ex17_keeps_rejected_keys": {
        "q3": [
            (
                "    return emitted, cached + 1 + accepted",
                "    return emitted, cached + len(draft) + 1",
            )
        ]
    },
    # MLA counted with a factor 2, as if the latent were a key and a value
    "ex17_mla_factor_two": {
        "q4": [(_Q4_MLA, "mla_blocks = budget // (16 * 2 * 32 * (512 + 64) * 2)")]
    },
    # honest: a pool with reference counts, float32 loops over the groups, a while loop, floats
    "honest/ex17_refcounts_float32_loops": {
        "q1": [
            (
                _Q1_OWN,
                "    free = iter(range(10**9))  # the pool hands out blocks in order\n"
                "    refs = {}  # block -> tables holding it\n"
                "    prompt_blocks = [next(free) for _ in range(prompt_len // block_size)]\n"
                "    out = []\n"
                "    for n in new_lengths:\n"
                "        table = list(prompt_blocks)\n"
                "        while len(table) * block_size < prompt_len + n:\n"
                "            table.append(next(free))\n"
                "        for b in table:\n"
                "            refs[b] = refs.get(b, 0) + 1\n"
                "        out.append(table)\n"
                "    return out\n" + _Q1_OWN,
            )
        ],
        "q2": [
            (
                "    x = np.asarray(x, dtype=float)\n",
                "    x = np.asarray(x, dtype=np.float32)\n"
                "    out = np.empty_like(x)\n"
                "    for r in range(x.shape[0]):\n"
                "        for j in range(0, x.shape[1], group_size):\n"
                "            g = x[r, j:j + group_size]\n"
                "            lo, hi = g.min(), g.max()\n"
                "            if lo == hi:\n"
                "                out[r, j:j + group_size] = g\n"
                "                continue\n"
                "            s = (hi - lo) / np.float32(2**bits - 1)\n"
                "            z = np.round(-lo / s)\n"
                "            c = np.clip(np.round(g / s) + z, 0, 2**bits - 1)\n"
                "            out[r, j:j + group_size] = (c - z) * s\n"
                "    return out\n",
            ),
            (
                "bytes_per_number = 4 / 8 + (2 + 1) / 32",
                "bytes_per_number = (4 * 32 + 16 + 8) / 8 / 32",
            ),
        ],
        "q3": [
            (
                "    emitted, accepted = [], 0\n",
                "    n = 0\n"
                "    while n < len(draft) and draft[n] == target[n] and (n == 0 or draft[n - 1] != eos):\n"
                "        n += 1\n"
                "    if n and draft[n - 1] == eos:\n"
                "        return list(draft[:n]), cached + 1 + n\n"
                "    return list(draft[:n]) + [target[n]], cached + 1 + n\n"
                "    emitted, accepted = [], 0\n",
            ),
            (_Q3_RATE, "acceptance_rate = (0.8 + 0.64 + 0.512 + 0.4096) / 4"),
        ],
        "q4": [
            (
                "shared_users = (blocks - shared) // (longest - shared)",
                "shared_users = int((blocks - shared) / (longest - shared))",
            )
        ],
    },
    # cheat: wrong answers dressed as objects that equal anything, and comparisons patched in the
    # kernel; only the public shape and type checks that the wrong answers pass may score (1 of 12)
    "adversarial/ex17_lying_answers": {
        "q1": """class Same(list):
    def __eq__(self, other):
        return True


def shared_prompt_tables(prompt_len, new_lengths, block_size):
    # every sequence its own blocks, dressed as a list equal to anything
    taken, tables = 0, Same()
    for n in new_lengths:
        blocks = math.ceil((prompt_len + n) / block_size)
        tables.append(Same(range(taken, taken + blocks)))
        taken += blocks
    return tables
""",
        "q2": """class Equal(float):
    def __eq__(self, other):
        return True


np.allclose = lambda *a, **k: True  # in the kernel only
np.isclose = lambda *a, **k: True
math.isclose = lambda *a, **k: True


def fake_quantize(x, bits, group_size):
    return np.asarray(x, dtype=float)  # nothing rounded


bytes_per_number = Equal(0.0)
""",
        "q3": """class Always(int):
    def __eq__(self, other):
        return True


def verify(draft, target, cached, eos=None):
    return [], Always(0)


acceptance_rate = Equal(0.0)
""",
        "q4": """contiguous_users = Always(0)
paged_users = Always(0)
shared_users = Always(0)
mla_shared_users = Always(0)
""",
    },
}

# --- the copy cases (issue 32): what pasting chapter 17 earns. The chapter gives every sequence
# blocks of its own (paged_generate, block_tables), rounds on a symmetric grid with a scale per
# token (token_scale, quantize, dequantize), checks guesses in speculative_generate's loop and
# counts users with kv_cache_bytes and cache_account; it measures an acceptance rate but derives
# none, and shares no prompt.

COPY_TABLES = """def shared_prompt_tables(prompt_len, new_lengths, block_size):
    # chapter 17: a sequence takes a block when its last one is full; its table lists its blocks
    tables, taken = [], 0
    for n in new_lengths:
        blocks = -(-(prompt_len + n) // block_size)  # ceil, as the chapter's cell
        tables.append(list(range(taken, taken + blocks)))
        taken += blocks
    return tables
"""

COPY_TABLES_TUTORLIB = """from tutorlib.serving.paged import block_tables


def shared_prompt_tables(prompt_len, new_lengths, block_size):
    # the tables paged_generate hands out (chapter 17's explorer)
    return block_tables([prompt_len] * len(new_lengths),
                        [prompt_len + n for n in new_lengths], block_size)
"""

COPY_QUANTIZE = """import torch

from tutorlib.serving.quantized import dequantize, quantize, token_scale


def fake_quantize(x, bits, group_size):
    # chapter 17's cell: a scale per token (the row), max |x| / q, then round and restore
    key = torch.as_tensor(np.asarray(x, dtype=float))[None, None]  # (1, 1, R, C)
    scale = token_scale(key, bits=bits)
    return dequantize(quantize(key, bits, scale), scale)[0, 0].numpy()


bytes_per_number = {bytes_per_number}
"""

COPY_VERIFY = """def verify(draft, target, cached, eos=None):
    # speculative_generate's check (chapter 17): the agreeing prefix, then the target's token
    written = []
    for j in range(len(draft) + 1):
        choice = target[j]
        written.append(choice)
        agrees = j < len(draft) and choice == draft[j]
        if not agrees or choice == eos:
            break
    kept = cached + len(written)  # its len(source) + len(written) - 1: the text but its last
    return written, kept


acceptance_rate = {acceptance_rate}
"""

COPY_USERS_PASTE = """contiguous_users = {contiguous}  # chapter 17's table: Llama 3 8B, 4k, contiguous
paged_users = {paged}  # the same row, paged
shared_users = {paged}  # the chapter shares no blocks
mla_shared_users = {mla}
"""

COPY_USERS_FORMULA = """from tutorlib.modern import kv_cache_bytes
from tutorlib.serving.paged import cache_account

per_position = kv_cache_bytes(32, 8, 128, 1)  # chapter 17's cell: one token, 16 bits
budget = 40 * 2**30
contiguous_users = budget // (8192 * per_position)
a = cache_account([4000], 8192, 16, per_position)
paged_users = int(budget // a.paged_bytes)
shared_users = paged_users  # the chapter shares no blocks
mla_shared_users = int(budget // (4000 * 32 * (512 + 64) * 2))  # a latent and a RoPE key
"""

CHAPTER_NUMBERS = {  # what chapter 17 prints or states (its cells as merged on main)
    "bytes_per_number": "0.5 + 4 / 32  # the chapter's int4: half a byte, a 4-byte scale per 32",
    "bytes_per_number_formula": "0.5 + 2 / 32  # the chapter's 0.5 + 4/32, a float16 scale",
    "acceptance_rate": "0.41  # the chapter's measured rate at k = 4",
    "acceptance_rate_formula": "0.8  # the share of guesses that agree",
    "contiguous": 149,  # the chapter's Llama 3 8B (this question's shape) at 4k
    "paged": 482,
    "mla": 0,
}

COPY = {
    "paste": [
        COPY_TABLES,
        COPY_QUANTIZE.format(bytes_per_number=CHAPTER_NUMBERS["bytes_per_number"]),
        COPY_VERIFY.format(acceptance_rate=CHAPTER_NUMBERS["acceptance_rate"]),
        COPY_USERS_PASTE.format(**CHAPTER_NUMBERS),
    ],
    "paste_tutorlib": [
        COPY_TABLES_TUTORLIB,
        COPY_QUANTIZE.format(bytes_per_number=CHAPTER_NUMBERS["bytes_per_number"]),
        COPY_VERIFY.format(acceptance_rate=CHAPTER_NUMBERS["acceptance_rate"]),
        COPY_USERS_FORMULA,
    ],
    "paste_formula": [
        COPY_TABLES,
        COPY_QUANTIZE.format(bytes_per_number=CHAPTER_NUMBERS["bytes_per_number_formula"]),
        COPY_VERIFY.format(acceptance_rate=CHAPTER_NUMBERS["acceptance_rate_formula"]),
        COPY_USERS_FORMULA,
    ],
}


def write_copy_cases() -> None:
    for variant, answers in COPY.items():
        nb = nbformat.read(ROOT / "exercises" / f"{NAME}.ipynb", as_version=4)
        cells = answer_cells(nb)
        assert len(cells) == len(answers), f"{variant}: {len(cells)} cells, {len(answers)}"
        for i, answer in zip(cells, answers):
            nb.cells[i].source = answer.rstrip("\n")
        path = HERE / "copy" / f"ex17_{variant}.ipynb"
        nbformat.write(nb, path)
        print("wrote", path.relative_to(ROOT))


def main() -> None:
    answers = right_answers(NAME)
    student = nbformat.read(ROOT / "exercises" / f"{NAME}.ipynb", as_version=4)
    cells = answer_cells(student)
    assert len(cells) == len(answers), (
        f"{NAME}: {len(cells)} answer cells, {len(answers)} solutions"
    )
    for case, edits in CASES.items():
        nb = nbformat.read(ROOT / "exercises" / f"{NAME}.ipynb", as_version=4)
        for q, (i, answer) in enumerate(zip(cells, answers), start=1):
            edit = edits.get(f"q{q}", [])
            if isinstance(edit, str):  # the whole answer replaced
                answer, edit = edit, []
            for old, new in edit:
                assert old in answer, f"{case}: {old!r} is not in the solution of q{q}"
                answer = answer.replace(old, new, 1)
            nb.cells[i].source = answer
        folder, _, case = case.rpartition("/")
        path = HERE / (folder or "ex17") / f"{case}.ipynb"
        path.parent.mkdir(exist_ok=True)
        nbformat.write(nb, path)
        print("wrote", path.relative_to(ROOT))


if __name__ == "__main__":
    main()
    write_copy_cases()
