"""tools/grade.py: misconceptions, broken notebooks and cheats each get the grade they deserve.

The corpus is tests/submissions/: exNN/ holds each exercise's misconception (and broken)
submissions, adversarial/ the tricks that must not raise a grade. expected.json gives each one's
points and message substrings. One batch run of tools/grade.py (the instructor's command, on the
whole folder) grades them all; the tests below read its JSON, CSV and table.
"""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions"
EXPECTED = json.loads((CORPUS / "expected.json").read_text())
sys.path.insert(0, str(ROOT / "tools"))
import grade  # noqa: E402

CELL_TIMEOUT = 5   # seconds: the corpus's infinite loops are stopped after this


def corpus_notebooks():
    return sorted(p for p in CORPUS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("grades")
    before = {p: p.stat().st_mtime for p in CORPUS.rglob("*")}
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "grade.py"), str(CORPUS), "--out", str(out), "--jobs", "2",
         "--cell-timeout", str(CELL_TIMEOUT), "--quiet"],
        capture_output=True, text=True, timeout=1800, cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    after = {p: p.stat().st_mtime for p in CORPUS.rglob("*")}
    results = {}
    for f in out.glob("*.json"):
        r = json.loads(f.read_text())
        results[Path(r["submission"]).resolve().relative_to(CORPUS).as_posix()] = r
    return {"out": out, "stdout": run.stdout, "results": results, "before": before, "after": after}


def all_messages(r: dict) -> str:
    parts = r["messages"] + r["integrity"]
    for q in r["questions"].values():
        parts += q["messages"] + [c["message"] for c in q["cases"]]
    return "\n".join(parts)


def test_every_corpus_notebook_has_an_expectation():
    listed = set(EXPECTED)
    for path in corpus_notebooks():
        assert path.relative_to(CORPUS).as_posix() in listed, f"{path.relative_to(CORPUS)} has no entry in expected.json"
    for key in EXPECTED:
        assert (CORPUS / key).is_file(), f"expected.json lists {key}, which does not exist"


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_case_gets_its_points_and_message(batch, case):
    expected = EXPECTED[case]
    r = batch["results"].get(case)
    assert r is not None, f"{case} was not graded"
    assert r["status"] == "graded", r["messages"]
    assert r["of"] == pytest.approx(expected["of"]), f"{case}: out of {r['of']}, expected {expected['of']}"
    messages = all_messages(r)
    assert r["points"] == pytest.approx(expected["points"]), (
        f"{case}: {r['points']} points, expected {expected['points']}\n{messages}")
    for wanted in expected["messages"]:
        assert wanted in messages, f"{case}: no message containing {wanted!r} in\n{messages}"


def test_misconceptions_score_partial_marks():
    """At least two misconception submissions per exercise score more than 0 and less than full marks."""
    by_exercise = {}
    for case, e in EXPECTED.items():
        folder = case.split("/")[0]
        if folder != "adversarial" and not Path(case).name.startswith("broken_") and 0 < e["points"] < e["of"]:
            by_exercise.setdefault(folder, []).append(case)
    masters = sorted(p.stem.split("_")[0] for p in (ROOT / "exercises" / "masters").glob("ex[0-9][0-9]_*.ipynb"))
    for ex in masters:
        assert len(by_exercise.get(ex, [])) >= 2, f"{ex}: fewer than two misconception submissions with partial marks"


def test_adversarial_submissions_never_score_more_than_their_answers():
    """The cheats' answers are wrong (lying_objects has one right shape): nothing they do adds points."""
    for case, e in EXPECTED.items():
        if case.startswith("adversarial/"):
            assert e["points"] <= 1, f"{case}: an adversarial case expected to score {e['points']}"


def test_grading_writes_no_file_into_the_corpus(batch):
    """The write_files case tries to write tests, results and a summary next to itself."""
    new = set(batch["after"]) - set(batch["before"])
    changed = {p for p in batch["before"] if p in batch["after"] and batch["after"][p] != batch["before"][p]}
    assert not new and not changed, f"grading changed the corpus: {sorted(map(str, new | changed))[:5]}"


def test_a_folder_run_writes_json_csv_and_a_table(batch):
    out, results = batch["out"], batch["results"]
    notebooks = corpus_notebooks()
    assert len(results) == len(notebooks)
    assert len(list(out.glob("*.json"))) == len(notebooks)
    for r in results.values():
        assert {"submission", "exercise", "points", "of", "questions", "messages", "integrity", "status"} <= set(r)
        for q in r["questions"].values():
            assert {"points", "of", "messages", "cases"} <= set(q)
    with open(out / "summary.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(notebooks)
    assert {"submission", "exercise", "points", "of", "q1", "q2", "status", "messages"} <= set(rows[0])
    lines = batch["stdout"].splitlines()
    assert lines[0].split()[:2] == ["submission", "q1"] and "total" in lines[0]
    for path in notebooks:
        assert any(line.startswith(path.name) for line in lines), f"{path.name} is not in the printed table"
    assert f"wrote {len(notebooks)} JSON file(s)" in batch["stdout"]


def test_table_and_csv_from_results(tmp_path):
    """The report writers alone: colliding names get their folder, fractions print as 1.50."""
    results = [
        {"submission": "a/ex02_x.ipynb", "exercise": "ex02_embeddings", "status": "graded", "points": 1.5, "of": 3.0,
         "questions": {"q1": {"points": 1.5, "of": 3.0, "messages": ["nope"], "cases": []}}, "messages": [],
         "integrity": [], "seconds": 1.0},
        {"submission": "b/ex02_x.ipynb", "exercise": "ex02_embeddings", "status": "graded", "points": 3.0, "of": 3.0,
         "questions": {"q1": {"points": 3.0, "of": 3.0, "messages": [], "cases": []}}, "messages": [],
         "integrity": ["the notebook changed math.isclose"], "seconds": 1.0},
    ]
    summary, files = grade.write_reports(results, tmp_path)
    assert sorted(f.name for f in files) == ["a__ex02_x.json", "b__ex02_x.json"]
    assert summary.read_text().splitlines()[1].startswith("a/ex02_x.ipynb,ex02_embeddings,1.50,3,1.50,")
    text = grade.table(results)
    assert "1.50/3" in text and "! the notebook changed math.isclose" in text


# --- the screen alone (no kernel): what a cell may not do, and what ordinary code may

LIBS = {"np", "math", "torch", "nn", "F", "tutorlib", "WINDOWS_VECTORS", "os", "sys"}


@pytest.mark.parametrize("source, why", [
    ("np.allclose = lambda *a, **k: True", "changes np.allclose"),
    ("m = np.linalg\nm.norm = abs", "changes m.norm"),
    ("WINDOWS_VECTORS['I'] = (0, 0)", "changes WINDOWS_VECTORS['I']"),
    ("del math.isclose", "changes math.isclose"),
    ("setattr(np, 'allclose', 1)", "uses setattr"),
    ("getattr(np, '__dict__')['allclose'] = 1", "uses getattr"),
    ("vars(np)['allclose'] = 1", "uses vars"),
    ("globals()['np'] = 1", "uses globals"),
    ("exec('np.allclose = 1')", "uses exec"),
    ("np.allclose.__code__ = (lambda: 1).__code__", "uses .__code__"),
    ("(1).__class__.__subclasses__()", "uses .__"),
    ("import sys\nsys.modules['numpy'] = None", "sys.modules"),
    ("import sys\nf = sys._getframe()", "uses ._getframe"),
    ("import sys as s\nm = s.modules", "uses .modules"),
    ("from sys import modules", "imports modules from sys"),
    ("from os import *", "imports * from os"),
    ("import os\nos._exit(0)", "calls os._exit"),
    ("import os\nos.system('ls')", "uses .system"),
    ("import subprocess", "imports subprocess"),
    ("import otter", "imports otter"),
    ("from otter.test_files import test_case", "imports otter.test_files"),
    ("import gc", "imports gc"),
    ("import inspect", "imports inspect"),
    ("import builtins", "imports builtins"),
    ("import threading", "imports threading"),
    ("x = In[-1]", "uses In"),
    ("x = _i3", "reads IPython's history"),
    ("%time x = 1", "uses IPython magics"),
    ("!ls", "uses IPython magics"),
    ("open('/proc/self/cmdline').read()", "refers to '/proc/self/cmdline'"),
    ("def f(:\n    pass", "has a syntax error"),
])
def test_screen_refuses(source, why):
    got = grade.screen(source, set(LIBS))
    assert got is not None and why in got, got


@pytest.mark.parametrize("source", [
    "def cosine_similarity(a, b):\n    a, b = np.asarray(a), np.asarray(b)\n    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))",
    "class Attention(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n        self.w = nn.Linear(d, d)\n    def forward(self, x):\n        return self.w(x)",
    "mask = np.ones((4, 4), dtype=bool)\nmask[2, 3] = False\nscores = np.where(mask, 0.0, -np.inf)",
    "layer = nn.Linear(2, 2)\nwith torch.no_grad():\n    layer.weight[:] = torch.eye(2)\n    layer.bias.zero_()",
    "%matplotlib inline\nimport matplotlib.pyplot as plt",
    "import sys\nsys.exit('done')",
    "import math\nprint(math.sqrt(2), type(3).__name__)",
    "d = {}\nd['a'] = 1\nitems = [x for x in d]",
    "for _ in range(3):\n    pass\n_, b = divmod(7, 2)",
    "n = sum(1 for m in model.modules() if isinstance(m, nn.Linear))",
    "import sys\nprint('warning', file=sys.stderr)\nsys.stdout.flush()",
])
def test_screen_lets_ordinary_code_run(source):
    assert grade.screen(source, set(LIBS)) is None
