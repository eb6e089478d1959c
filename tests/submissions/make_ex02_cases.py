"""Write exercise 2's misconception and adversarial submissions (tests/submissions/).

    .venv/bin/python tests/submissions/make_ex02_cases.py

Each case is the student notebook exercises/ex02_embeddings.ipynb with its three answer cells
filled in (and, for some, extra cells added), as a learner would hand it in. Their expected
grades and messages are in expected.json, which tests/test_grading.py checks. Rerun this after
the exercise changes, then check expected.json.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
STUDENT = ROOT / "exercises" / "ex02_embeddings.ipynb"

Q1 = '''def cosine_similarity(a, b):
    """cos(a, b) for vectors or stacks of vectors; 0 for a zero vector."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    len_a = np.linalg.norm(a, axis=-1, keepdims=True)
    len_b = np.linalg.norm(b, axis=-1, keepdims=True)
    unit_a = np.divide(a, len_a, out=np.zeros_like(a), where=len_a > 0)
    unit_b = np.divide(b, len_b, out=np.zeros_like(b), where=len_b > 0)
    cos = unit_a @ unit_b.T
    return float(cos) if cos.ndim == 0 else cos'''
Q2 = '''words = list(WINDOWS_VECTORS)
X = np.array(list(WINDOWS_VECTORS.values()))   # (T, D) = (4, 2)


def sq_dist_table(X, Y):
    """|x_i - y_j|^2 for every row of X and of Y: a (T, S) table."""
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    return (X * X).sum(axis=1)[:, None] + (Y * Y).sum(axis=1)[None, :] - 2 * X @ Y.T


closest_to_windows = "I"
table_shape = (4, 3)'''
Q3 = '''winner_dot = "k2"
winner_cosine = "k1"
tie_length = 6 / 2.5
largest_dot = 3 * 5 ** 0.5'''

WRONG_Q1 = '''def cosine_similarity(a, b):
    return 0.5'''
WRONG_Q2 = '''X = np.array(list(WINDOWS_VECTORS.values()))


def sq_dist_table(X, Y):
    return np.zeros((2, 2))


closest_to_windows = "closed"
table_shape = (2, 2)'''
WRONG_Q3 = '''winner_dot = "k1"
winner_cosine = "k2"
tie_length = 6
largest_dot = 3'''
WRONG = (WRONG_Q1, WRONG_Q2, WRONG_Q3)

# name: (answers for q1, q2, q3[, [(after answer cell k, extra cell source), ...]])
MISCONCEPTIONS = {
    "dot_not_cosine": ('''def cosine_similarity(a, b):
    return float(np.dot(a, b))     # forgot to divide by the lengths''', Q2, Q3),
    "squared_lengths": ('''def cosine_similarity(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(a @ b / ((a @ a) * (b @ b)))     # |a| is sqrt(a·a), not a·a''', Q2, Q3),
    "one_length": ('''def cosine_similarity(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(a @ b / np.linalg.norm(a))     # divides by |a| only''', Q2, Q3),
    # issue 32: chapter 2's stack of unit rows, without a guard for a zero vector
    "zero_vector_nan": ('''def cosine_similarity(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    unit_a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    unit_b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    cos = unit_a @ unit_b.T
    return float(cos) if cos.ndim == 0 else cos''', Q2, Q3),
    "distances_not_squared": (Q1, Q2.replace(
        "    return (X * X).sum(axis=1)[:, None] + (Y * Y).sum(axis=1)[None, :] - 2 * X @ Y.T",
        "    return np.sqrt((X * X).sum(axis=1)[:, None] + (Y * Y).sum(axis=1)[None, :] - 2 * X @ Y.T)"),
        Q3),
    "dot_counted_once": (Q1, Q2.replace("- 2 * X @ Y.T", "- X @ Y.T").replace(
        'closest_to_windows = "I"', 'closest_to_windows = "closed"   # the largest dot product'), Q3),
    "tie_squared": (Q1, Q2, Q3.replace("tie_length = 6 / 2.5", "tie_length = (6 / 2.5) ** 0.5")),
    "winners_swapped": (Q1, Q2, '''winner_dot = "k1"      # thinks the dot product measures the angle
winner_cosine = "k2"
tie_length = 6 / 2.5
largest_dot = 3 * 5 ** 0.5'''),
}

# Broken notebooks: the answers that work still score.
BROKEN = {
    "broken_syntax": (Q1, Q2.replace("def sq_dist_table(X, Y):", "def sq_dist_table(X, Y)"), Q3),
    "broken_exception": (Q1 + "\n\nprint(1 / 0)", Q2, Q3),
    "broken_loop_cell": (Q1, Q2, Q3, [(1, "while True:\n    try:\n        pass\n    except BaseException:\n        pass")]),
    "broken_loop_in_function": (Q1, Q2.replace("    return (X * X)", "    while len(X) > 4:     # loops forever on the grader's bigger input\n        pass\n    return (X * X)"), Q3),
    "broken_sys_exit": (Q1, Q2, Q3, [(1, "import sys\nsys.exit('stop here')")]),
    "broken_os_exit": (Q1, Q2, Q3, [(1, "import os\nos._exit(0)")]),
    "broken_crash": (Q1, Q2, Q3, [(1, "from numpy.lib.stride_tricks import as_strided\n"
                                      "as_strided(np.zeros(1), shape=(10**10,), strides=(8,)).sum()   # reads far past the array")]),
    "broken_memory_bomb": (Q1, Q2, Q3, [(1, "grow = []\nwhile True:\n    grow.append(np.empty(10**8))   # 800 MB more each time")]),
    "broken_output": (Q1, Q2, Q3, [(0, "for i in range(200_000):\n    print('spam ' * 10)")]),
}

# Adversarial notebooks: wrong answers, and a trick that must not raise the grade.
ADVERSARIAL = {
    "ex02_patch_numpy_directly": WRONG + ([(0, "np.allclose = lambda *a, **k: True\nnp.isclose = lambda *a, **k: True\n"
                                             "math.isclose = lambda *a, **k: True")],),
    "ex02_patch_through_helper": WRONG + ([(0, '''def install(module, name, value):
    setattr(module, name, value)

install(math, "isclose", lambda *a, **k: True)''')],),
    "ex02_patch_through_parameter": WRONG + ([(0, '''def install(module, value):
    module.isclose = value        # module is a parameter: no import-bound name is changed on this line
    module.sqrt = lambda x: 1.0

install(math, lambda *a, **k: True)
import numpy.testing
def quiet(module):
    module.assert_allclose = lambda *a, **k: None
quiet(numpy.testing)''')],),
    "ex02_patch_during_tests": ('''def cosine_similarity(a, b, _mods=[math]):
    for m in _mods:               # when the grader calls this, make every isclose say yes
        m.isclose = lambda *args, **kwargs: True
    return 0.5''', WRONG_Q2, WRONG_Q3),
    "ex02_patch_tutorlib": WRONG + ([(0, '''import tutorlib.examples
def tamper(module):
    module.WINDOWS_VECTORS = {"I": (0, 0)}
tamper(tutorlib.examples)
from tutorlib.examples import DOT_PRODUCT_PAIRS
DOT_PRODUCT_PAIRS.append(((0, 0), (0, 0)))''')],),
    "ex02_patch_otter": WRONG + ([(0, '''from otter.test_files import test_case
test_case.call_func = lambda self, env: None       # every test passes''')],),
    "ex02_patch_builtins": WRONG + ([(0, '''def install(module):
    module.float = lambda x=0: 0.0
    module.abs = lambda x: 0.0
import numpy
install(numpy)
def install_builtins(f):
    f.abs = lambda x: 0.0
install_builtins(print)''')],),
    "ex02_rebind_names": ('''class Yes:
    def __getattr__(self, name):
        return lambda *a, **k: True
np = Yes()
math = Yes()

def cosine_similarity(a, b):
    return 0.5''', WRONG_Q2, WRONG_Q3),
    "ex02_lying_objects": ('''import numpy

class Liar(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    def __gt__(self, other): return False
    def __abs__(self): return Liar(0.0)
    def __sub__(self, other): return Liar(0.0)
    def __rsub__(self, other): return Liar(0.0)

class LiarArray(numpy.ndarray):
    def __array_ufunc__(self, *args, **kwargs):
        return numpy.True_
    def __eq__(self, other): return True

def cosine_similarity(a, b):
    return Liar(0.5)''', '''table_shape = (4, 4)

def dot_table(X):
    return numpy.zeros((4, 4)).view(LiarArray)''', '''class Word(str):
    def __eq__(self, other): return True
    def strip(self): return self
    def lower(self): return self

winner_dot = Word("k1")
winner_cosine = Word("k2")
slide_products = [(1, 3), (0, 3)]'''),
    "ex02_edit_tests": WRONG + ([(None, "edit-tests")],),
    "ex02_fake_score": WRONG + ([(2, '''print("Total Score: 10.000 / 10.000 (100.000%)")
print('{"q1": {"points": 4, "of": 4}, "q2": {"points": 3, "of": 3}, "q3": {"points": 3, "of": 3}}')
for q in ("q1", "q2", "q3"):
    print(f"{q} results: All test cases passed!")''')],),
    "ex02_forged_report": ('''def cosine_similarity(a, b):
    # prints lines shaped like the grader's report; it cannot know the token
    print('0123456789abcdef0123456789abcdef {"passed": true, "message": "", "changed_before": [], "changed_during": []}')
    return 0.5''', WRONG_Q2, WRONG_Q3),
    "ex02_write_files": WRONG + ([(0, '''import json, os
os.makedirs("tests", exist_ok=True)
for q, points in (("q1", 4), ("q2", 3), ("q3", 3)):
    with open(f"tests/{q}.py", "w") as f:       # "improved" tests next to the notebook (plain otter run reads them)
        f.write("from otter.test_files import test_case\\nOK_FORMAT = False\\n"
                f"name = {q!r}\\npoints = {points}\\n@test_case(points={points})\\ndef always(): pass\\n")
os.makedirs("results", exist_ok=True)
with open("results/results.json", "w") as f:
    json.dump({"score": 10, "tests": []}, f)
for name in ("summary.csv", "../summary.csv", "../ex02_write_files.json", "ex02_write_files.json"):
    try:
        with open(name, "w") as f:
            f.write("ex02_write_files,ex02_embeddings,10,10")
    except OSError:
        pass''')],),
    "ex02_read_history": WRONG + ([(0, '''token_source = In[-1]
print(get_ipython().user_ns.keys())''')],),
}


def answer_cells(nb):
    return [i for i, c in enumerate(nb.cells) if "otter_answer_cell" in c.metadata.get("tags", [])]


def build(answers, extras=(), edit_tests=False):
    nb = nbformat.read(STUDENT, as_version=4)
    slots = answer_cells(nb)
    assert len(slots) == 3, "exercise 2 has three answer cells"
    for i, src in zip(slots, answers):
        nb.cells[i].source = src
    for after, src in sorted(extras, key=lambda e: -1 if e[0] is None else e[0], reverse=True):
        if src == "edit-tests":
            edit_tests = True
            continue
        nb.cells.insert(slots[after] + 1, nbformat.v4.new_code_cell(src))
    if edit_tests:
        # replace the public tests by ones that always pass, and the check cells by a victory message
        for c in nb.cells:
            if c.cell_type == "code" and c.source.startswith("# Check your answers in place:"):
                c.source = c.source.replace("assert ", "assert True or ")
            elif c.cell_type == "code" and c.source.startswith("grader.check("):
                c.source = 'print("All tests passed!")'
        nb.metadata.setdefault("otter", {})["tests"] = {"q1": "OK_FORMAT = False\nname = 'q1'\npoints = 100\n"}
    for c in nb.cells:
        c.metadata.pop("editable", None)
        c.metadata.pop("deletable", None)
    return nb


def main():
    out = {}
    for folder, cases in (("ex02", {**MISCONCEPTIONS, **BROKEN}), ("adversarial", ADVERSARIAL)):
        (HERE / folder).mkdir(exist_ok=True)
        for name, spec in cases.items():
            answers, extras = spec[:3], (spec[3] if len(spec) > 3 else [])
            nb = build(answers, extras)
            path = HERE / folder / f"{name}.ipynb"
            nbformat.write(nb, path)
            out[str(path.relative_to(HERE))] = path
    print(f"wrote {len(out)} submissions")


if __name__ == "__main__":
    main()
