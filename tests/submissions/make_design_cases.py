"""Write the corpus cases of issue 11: a cheat per root cause, and honest alternatives.

    .venv/bin/python tests/submissions/make_design_cases.py

adversarial/ gets one submission per way the old grader was beaten (exercise 2's cases are its
student notebook with wrong answers to q1 and q2, the right answer to q3 (3 points), and the
trick; exercise 8's keeps its right q1 and q3). Each must score what its honest parts earn.
honest/ gets correct answers written another way (in place, einsum, loops, float32, the
standard library, a cell magic): each must keep full marks. Their expected grades are in
expected.json, which tests/test_grading.py checks. Rerun this after an exercise changes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from make_ex02_cases import Q1, Q2, Q3, WRONG_Q1, WRONG_Q2, build  # noqa: E402

# --- exercise 2: wrong q1 and q2, right q3 (3 of 10 points), and a trick after the answers

GRADER_VIA_GETATTR = '''# look for the grader's objects by name and through dunders reached with strings
import gc, sys
main = sys.modules["__main__"]
names = getattr(main, "__" + "dict__")
for name, value in list(names.items()):
    if name.startswith("_grader") or hasattr(value, "run_case"):
        setattr(value, "run_case", lambda *a, **k: None)
for module in list(sys.modules.values()):
    if getattr(module, "__name__", "").startswith("otter"):
        for cls_name in ("ExceptionTestFile", "OKTestFile", "test_case", "TestFile"):
            cls = getattr(module, cls_name, None)
            if cls is not None:
                setattr(cls, "call_func", lambda self, env: None)     # every test "passes"
                setattr(cls, "passed_all", True)
for obj in gc.get_objects():
    if type(obj).__name__ in ("TestCaseResult", "ExceptionTestFile", "GradingResults"):
        setattr(obj, "passed", True)
builtins = getattr(getattr(main, "__" + "builtins__"), "__" + "dict__", None) or {}
math_dict = getattr(__import__("math"), "__" + "dict__")
math_dict["isclose"] = lambda *a, **k: True'''

TAPPED_STREAM = '''# rewrite whatever the kernel writes: failed results into passed ones
import os, sys
for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
    real = stream.write
    stream.write = lambda s, real=real: real(str(s).replace("false", "true").replace("False", "True"))
real_write = os.write
def write(fd, data, real_write=real_write):
    return real_write(fd, bytes(data).replace(b"false", b"true").replace(b"0.5", b"1.0"))
os.write = write


def cosine_similarity(a, b):
    for fd in range(3, 32):      # forge replies on every descriptor the kernel may talk on
        try:
            real_write(fd, b'{"re": 1, "value": 1.0}\\n{"passed": true, "points": 4}\\n')
        except OSError:
            pass
    return 0.5'''

SHADOW_LIBRARY = '''# files named like libraries in the working folder and /tmp, for a restarted kernel to import
import os
for folder in (".", "/tmp", os.path.expanduser("~")):
    for package in ("numpy", "tutorlib", "otter", "torch"):
        os.makedirs(os.path.join(folder, package), exist_ok=True)
        with open(os.path.join(folder, package, "__init__.py"), "w") as f:
            f.write("allclose = isclose = lambda *a, **k: True\\n")
    for module in ("math.py", "json.py", "sitecustomize.py"):
        with open(os.path.join(folder, module), "w") as f:
            f.write("isclose = lambda *a, **k: True\\n")'''
CRASH = "import os\nos._exit(0)      # the grader restarts the kernel: will it import the files above?"

VENV_SITECUSTOMIZE = '''# code that every later kernel would run: sitecustomize and a .pth in the virtualenv
import os, site, sys
targets = site.getsitepackages() + [sys.prefix]
for folder in targets:
    with open(os.path.join(folder, "sitecustomize.py"), "w") as f:
        f.write("import math\\nmath.isclose = lambda *a, **k: True\\n")
    with open(os.path.join(folder, "zz_grader.pth"), "w") as f:
        f.write("import math; math.isclose = lambda *a, **k: True\\n")'''

SELF_UNDOING_PATCH = '''import math


def cosine_similarity(a, b):
    """Make math.isclose say yes for one call, then put it back (a check before and after
    each test sees nothing)."""
    real = math.isclose
    def once(*args, **kwargs):
        math.isclose = real
        return True
    math.isclose = once
    np.allclose = lambda *args, **kwargs: True
    return 0.5'''

SURVIVOR = '''# a process that leaves the kernel's session, and as many more as it can start
import os
if os.fork() == 0:
    os.setsid()
    os.execv("/bin/sleep", ["sleep", "7777.25"])     # outlive the grader?
children = []
for _ in range(100_000):      # posix_spawn: quick, so the process limit is met within seconds
    children.append(os.posix_spawn("/bin/sleep", ["sleep", "7777.25"], {}))'''

THREAD_VIA_MODULE = '''# a thread started through another module's attribute, patching while the tests run
import logging
import math


def keep_patching():
    while True:
        math.isclose = lambda *a, **k: True
        np.allclose = lambda *a, **k: True


logging.threading.Thread(target=keep_patching, daemon=True).start()'''

EX02_ADVERSARIAL = {
    "ex02_grader_via_getattr": (WRONG_Q1, WRONG_Q2, Q3, [(2, GRADER_VIA_GETATTR)]),
    "ex02_tapped_stream": (TAPPED_STREAM, WRONG_Q2, Q3),
    "ex02_shadow_library": (WRONG_Q1, WRONG_Q2, Q3, [(2, CRASH), (2, SHADOW_LIBRARY)]),
    "ex02_venv_sitecustomize": (WRONG_Q1, WRONG_Q2, Q3, [(2, VENV_SITECUSTOMIZE)]),
    "ex02_self_undoing_patch": (SELF_UNDOING_PATCH, WRONG_Q2, Q3),
    "ex02_fork_setsid_survivor": (WRONG_Q1, WRONG_Q2, Q3, [(2, SURVIVOR)]),
    "ex02_thread_via_module": (WRONG_Q1, WRONG_Q2, Q3, [(2, THREAD_VIA_MODULE)]),
}

# --- exercise 2, honest: loops, the standard library, a star import, a cell magic (10 points)

LOOPS_Q1 = '''from math import *
import operator


def cosine_similarity(a, b):
    """cos(a, b) with loops and the standard library only, for vectors or stacks."""
    def one(x, y):
        lengths = sqrt(sum(v * v for v in x)) * sqrt(sum(w * w for w in y))
        return sum(map(operator.mul, x, y)) / lengths if lengths else 0.0

    def rows(z):
        z = [list(map(float, r)) if hasattr(r, "__len__") else float(r) for r in z]
        return (z, False) if isinstance(z[0], list) else ([z], True)

    (A, a_one), (B, b_one) = rows(a), rows(b)
    table = [[one(x, y) for y in B] for x in A]
    if a_one and b_one:
        return table[0][0]
    if a_one:
        return np.array(table[0])
    return np.array([r[0] for r in table]) if b_one else np.array(table)'''
LOOPS_Q2 = '''%%time
import operator
words = list(WINDOWS_VECTORS)
X = np.array(list(WINDOWS_VECTORS.values()))   # (T, D) = (4, 2)


def sq_dist_table(X, Y):
    """Squared distances with loops: x.x + y.y - 2 x.y for every pair of rows."""
    dot = lambda r, s: sum(map(operator.mul, r, s))
    return [[dot(r, r) + dot(s, s) - 2 * dot(r, s) for s in map(list, Y)] for r in map(list, X)]


closest_to_windows = "I"
table_shape = (4, 3)'''

EX02_HONEST = {"ex02_loops_stdlib_magic": (LOOPS_Q1, LOOPS_Q2, Q3)}

# --- from the worked solutions: (old, new) replacements in their code cells

EX08_CHEAT = '''def parallel_layer_forward(x, self_attn, norm, feed_forward, mask=None):
    """Zero what the test hands over, in place, so that its reference (computed after) is 0."""
    with torch.no_grad():
        x.zero_()
        for module in (self_attn, norm, feed_forward):
            try:
                for p in module.parameters():
                    p.zero_()
            except Exception:
                pass
            try:
                module.weight.zero_()
            except Exception:
                pass
    return torch.zeros_like(x)'''
EX08_SOLUTION_Q2 = '''def parallel_layer_forward(x, self_attn, norm, feed_forward, mask=None):
    """Self-attention and feed-forward side by side, on one normalised copy of x."""
    h = norm(x)                                   # (B, S, D): read by both sublayers
    return x + self_attn(h, h, h, mask=mask)[0] + feed_forward(h)'''
EX08_IN_PLACE = '''def parallel_layer_forward(x, self_attn, norm, feed_forward, mask=None):
    """The same layer, adding the sublayers' outputs in place (x += ...): x is the caller's."""
    h = norm(x)
    x += self_attn(h, h, h, mask=mask)[0]
    x += feed_forward(h)
    return x'''

EX04_SOLUTION = '''    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)        # (..., T_q, d_k) @ (..., d_k, T_k) -> (..., T_q, T_k)'''
EX04_EINSUM = '''    scores = np.einsum("...qd,...kd->...qk", Q, K) / np.sqrt(d_k)   # (..., T_q, T_k), with einsum'''
EX04_SOLUTION_OUT = '''    return weights @ V, weights                               # (..., T_q, T_k) @ (..., T_k, d_v) -> (..., T_q, d_v)'''
EX04_EINSUM_OUT = '''    return np.einsum("...qk,...kv->...qv", weights, V), weights'''

EX05_SOLUTION_Q3 = '''score_divisor = d_k ** 0.5     # 4.0: each head's q·k sums over its d_k features'''
EX05_OPERATOR_Q3 = '''import operator
score_divisor = operator.pow(d_k, 0.5)'''
EX05_SOLUTION_HEADS = '''    heads = weights @ v                         # (B, H, T_q, Dh)'''
EX05_LOOP_HEADS = '''    heads = np.stack([weights[:, h] @ v[:, h] for h in range(num_heads)], axis=1)   # a loop over heads'''
EX05_SOLUTION_PROJ = '''    q, k, v = split(query @ W_Q), split(key @ W_K), split(value @ W_V)'''
EX05_FLOAT32_PROJ = '''    query = np.asarray(query, dtype=np.float32)             # float32 is precise enough here
    q, k, v = split(query @ W_Q.astype(np.float32)), split(key @ W_K), split(value @ W_V)'''

# exercise 14, right another way: ties by sorting, the merges applied one after another in the
# order learned (the same tokens: a merge only makes pairs of later merges), and Python's
# incremental UTF-8 decoder
EX14_SOLUTION_TIE = "best = min(counts, key=lambda pair: (-counts[pair], pair))"
EX14_SORTED_TIE = "best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]"
EX14_SOLUTION_ENCODE = """    out = []
    for chunk in chunks:
        ids = list(chunk.encode("utf-8"))
        while len(ids) > 1:
            pairs = [p for p in zip(ids, ids[1:]) if p in rank]
            if not pairs:
                break
            pair = min(pairs, key=rank.get)  # the merge learned first
            new_id, merged, i = 256 + rank[pair], [], 0
            while i < len(ids):
                if tuple(ids[i:i + 2]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(ids[i])
                    i += 1
            ids = merged
        out += ids
    return out"""
EX14_SEQUENTIAL_ENCODE = """    out = []
    for chunk in chunks:
        ids = list(chunk.encode("utf-8"))
        for new_id, (a, b) in enumerate(merges, start=256):   # in the order learned
            i = 0
            while i < len(ids) - 1:
                if ids[i] == a and ids[i + 1] == b:
                    ids[i:i + 2] = [new_id]
                i += 1
        out += ids
    return out"""
EX14_SOLUTION_STREAM = """    shown, waiting = [], b""
    for i in ids:
        waiting += vocab[i]
        n = whole(waiting)
        shown.append(waiting[:n].decode("utf-8", errors="replace"))
        waiting = waiting[n:]
    return shown"""
EX14_CODECS_STREAM = """    import codecs

    reader = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return [reader.decode(vocab[i]) for i in ids]"""

FROM_SOLUTIONS = {
    # name: (exercise, folder, [(old, new), ...])
    "ex08_mutate_inputs": ("ex08_transformer_block", "adversarial", [(EX08_SOLUTION_Q2, EX08_CHEAT)]),
    "ex08_in_place_residual": ("ex08_transformer_block", "honest", [(EX08_SOLUTION_Q2, EX08_IN_PLACE)]),
    "ex04_einsum": ("ex04_scaled_attention", "honest", [(EX04_SOLUTION, EX04_EINSUM), (EX04_SOLUTION_OUT, EX04_EINSUM_OUT)]),
    "ex14_sorted_sequential_codecs": ("ex14_tokenization", "honest",
                                      [(EX14_SOLUTION_TIE, EX14_SORTED_TIE),
                                       (EX14_SOLUTION_ENCODE, EX14_SEQUENTIAL_ENCODE),
                                       (EX14_SOLUTION_STREAM, EX14_CODECS_STREAM)]),
    "ex05_loop_operator_float32": ("ex05_multi_head_attention", "honest",
                                   [(EX05_SOLUTION_Q3, EX05_OPERATOR_Q3), (EX05_SOLUTION_HEADS, EX05_LOOP_HEADS),
                                    (EX05_SOLUTION_PROJ, EX05_FLOAT32_PROJ)]),
}


def from_solution(exercise: str, replacements: list[tuple[str, str]]):
    nb = nbformat.read(ROOT / "exercises" / "solutions" / f"{exercise}.ipynb", as_version=4)
    for old, new in replacements:
        cells = [c for c in nb.cells if c.cell_type == "code" and old in c.source]
        assert len(cells) == 1, f"{exercise}: {old[:60]!r} is in {len(cells)} cells, expected 1"
        cells[0].source = cells[0].source.replace(old, new)
    return nb


def main():
    written = []
    for folder, cases in (("adversarial", EX02_ADVERSARIAL), ("honest", EX02_HONEST)):
        for name, spec in cases.items():
            nb = build(spec[:3], spec[3] if len(spec) > 3 else [])
            written.append((HERE / folder / f"{name}.ipynb", nb))
    for name, (exercise, folder, replacements) in FROM_SOLUTIONS.items():
        written.append((HERE / folder / f"{name}.ipynb", from_solution(exercise, replacements)))
    for path, nb in written:
        path.parent.mkdir(exist_ok=True)
        nbformat.write(nb, path)
    print(f"wrote {len(written)} submissions")


if __name__ == "__main__":
    main()
