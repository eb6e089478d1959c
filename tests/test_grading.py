"""tools/grade.py: misconceptions, broken notebooks and cheats each get the grade they deserve.

The corpus is tests/submissions/: exNN/ holds each exercise's misconception (and broken)
submissions, adversarial/ the tricks that must not raise a grade, honest/ correct answers written
another way that must keep full marks. expected.json gives each one's
points and message substrings. One batch run of tools/grade.py (the instructor's command, on the
whole folder) grades them all; the tests below read its JSON, CSV and table.
"""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions"
EXPECTED = json.loads((CORPUS / "expected.json").read_text())
sys.path.insert(0, str(ROOT / "tools"))
import course  # noqa: E402  (course.yml)
from grading import reports, screen  # noqa: E402

CELL_TIMEOUT = 5  # seconds: the corpus's infinite loops are stopped after this
# issue 11's cheats on exercise 2: wrong q1 and q2, the right q3 (3 points), and a trick
NEW_EX02_CASES = {
    f"adversarial/ex02_{n}.ipynb"
    for n in (
        "grader_via_getattr",
        "tapped_stream",
        "shadow_library",
        "venv_sitecustomize",
        "self_undoing_patch",
        "fork_setsid_survivor",
        "thread_via_module",
        "forged_huge_dtype",
        "forged_huge_shape",
        "forged_colliding_set",
    )
}


def venv_files() -> list[str]:
    """Every file of the virtualenv (not Python's byte-code caches)."""
    return sorted(str(p) for p in Path(sys.prefix).rglob("*") if "__pycache__" not in p.parts)


def corpus_notebooks():
    return sorted(p for p in CORPUS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


# issue 27's symbolic links and text file: what they point at, or hold, never reaches a report
NOT_QUOTED = {
    "adversarial/ex01_link_to_private.ipynb": "SECRET-ON-THE-GRADING-MACHINE",
    "adversarial/ex01_link_to_solution.ipynb": "math.sqrt((S - 1) / D)",
    "adversarial/ex01_not_a_notebook.ipynb": "SECRET-IN-A-TEXT-FILE",
}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("grades")
    before = {p: p.stat().st_mtime for p in CORPUS.rglob("*")}
    venv_before = venv_files()
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "grade.py"),
            str(CORPUS),
            "--out",
            str(out),
            "--jobs",
            "2",
            "--cell-timeout",
            str(CELL_TIMEOUT),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    after = {p: p.stat().st_mtime for p in CORPUS.rglob("*")}
    results = {}
    for f in out.glob("*.json"):
        r = json.loads(f.read_text())
        results[Path(os.path.abspath(r["submission"])).relative_to(CORPUS).as_posix()] = (
            r  # links not followed
        )
    return {
        "out": out,
        "stdout": run.stdout,
        "results": results,
        "before": before,
        "after": after,
        "venv_before": venv_before,
        "venv_after": venv_files(),
    }


def all_messages(r: dict) -> str:
    parts = r["messages"] + r["integrity"]
    for q in r["questions"].values():
        parts += q["messages"] + [c["message"] for c in q["cases"]]
    return "\n".join(parts)


def test_every_corpus_notebook_has_an_expectation():
    listed = set(EXPECTED)
    for path in corpus_notebooks():
        assert path.relative_to(CORPUS).as_posix() in listed, (
            f"{path.relative_to(CORPUS)} has no entry in expected.json"
        )
    for key in EXPECTED:
        assert (CORPUS / key).is_file(), f"expected.json lists {key}, which does not exist"


@pytest.mark.slow  # grades the corpus in the bwrap sandbox
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_case_gets_its_points_and_message(batch, case):
    expected = EXPECTED[case]
    r = batch["results"].get(case)
    assert r is not None, f"{case} was not graded"
    assert r["status"] == expected.get("status", "graded"), r["messages"]
    assert r["of"] == pytest.approx(expected["of"]), (
        f"{case}: out of {r['of']}, expected {expected['of']}"
    )
    messages = all_messages(r)
    assert r["points"] == pytest.approx(expected["points"]), (
        f"{case}: {r['points']} points, expected {expected['points']}\n{messages}"
    )
    for wanted in expected["messages"]:
        assert wanted in messages, f"{case}: no message containing {wanted!r} in\n{messages}"


@pytest.mark.slow  # grades the corpus in the bwrap sandbox
@pytest.mark.parametrize("case", sorted(NOT_QUOTED))
def test_no_report_quotes_a_file_that_is_not_a_notebook(batch, case):
    """A link to a private file, a link to the worked solutions and a text file named .ipynb:
    no word of what they hold is in the JSON report, the summary or the printed table."""
    name = Path(case).name
    rows = [
        line
        for line in (batch["out"] / "summary.csv").read_text().splitlines()
        + batch["stdout"].splitlines()
        if name in line
    ]
    text = json.dumps(batch["results"][case]) + "\n".join(rows)
    assert rows, f"{case} is neither in summary.csv nor in the table"
    assert NOT_QUOTED[case] not in text
    if case.startswith("adversarial/ex01_link"):
        assert batch["results"][case]["points"] == 0 and not batch["results"][case]["questions"]


@pytest.mark.slow  # grades the corpus in the bwrap sandbox
def test_the_checker_survives_every_hostile_reply(batch):
    """Issue 27: replies asking for 16 GiB, 8 TiB or a quadratic set cost their questions and
    are listed under integrity; the submission is graded, never 'grader error'."""
    for name in ("forged_huge_dtype", "forged_huge_shape", "forged_colliding_set"):
        r = batch["results"][f"adversarial/ex02_{name}.ipynb"]
        assert r["status"] == "graded" and r["integrity"], (name, r["messages"])
        assert not any("grader error" in m for m in r["messages"]), r["messages"]
    big = batch["results"]["honest/ex11_keeps_a_big_array.ipynb"]
    assert big["points"] == big["of"] and big["seconds"] < 30, big["seconds"]


def test_misconceptions_score_partial_marks():
    """At least two misconception submissions per exercise score more than 0 and less than full
    marks."""
    by_exercise = {}
    for case, e in EXPECTED.items():
        folder = case.split("/")[0]
        if (
            folder != "adversarial"
            and not Path(case).name.startswith("broken_")
            and 0 < e["points"] < e["of"]
        ):
            by_exercise.setdefault(folder, []).append(case)
    masters = sorted(
        p.stem.split("_")[0] for p in (ROOT / "exercises" / "masters").glob("ex[0-9][0-9]_*.ipynb")
    )
    for ex in masters:
        assert len(by_exercise.get(ex, [])) >= 2, (
            f"{ex}: fewer than two misconception submissions with partial marks"
        )


def test_adversarial_submissions_never_score_more_than_their_honest_parts():
    """The cheats' answers are wrong but for their honest parts (exercise 2's new cases answer q3
    right: 3 points; ex08_mutate_inputs answers q1, q3 and q4 right and q2's public shape test:
    7.25; lying_objects, against the reworked exercise 2, nothing): nothing they do adds points."""
    honest_parts = {
        "adversarial/ex02_lying_objects.ipynb": 0,
        # issue 32: q1, q3 and q4 right, and q2's public shape test (0.25 of its 3)
        "adversarial/ex08_mutate_inputs.ipynb": 7.25,
        # issue 27: calls of a withheld module; the rest of the worked solutions is right
        "adversarial/ex10_calls_sacrebleu.ipynb": 9,
        "adversarial/ex11_calls_tutorlib_efficient.ipynb": 2,
        "adversarial/ex14_calls_tutorlib_tokenizers.ipynb": 2,  # q1, answered by hand
        # wrong q1-q3 behind objects that equal anything and kernel-side patches of
        # np.array_equal and math.isclose: the three public shape/type checks (0.25 each since
        # issue 32) and the right q4
        "adversarial/ex13_lying_answers.ipynb": 5.75,
        # issue 25: questions 1 to 3 call tutorlib.modern; question 4's numbers are right
        "adversarial/ex15_calls_tutorlib_modern.ipynb": 3,
        # issue 32: q1 calls torch.log_softmax, withheld (so does q2's search, which calls q1)
        "adversarial/ex03_calls_torch_log_softmax.ipynb": 3.5,
        # issue 32, fault 7: q2's smoothed_loss calls torch, withheld; the rest is right
        "adversarial/ex09_calls_torch_cross_entropy.ipynb": 8.5,
        # issue 32, fault 4: the library's enable_gqa for the old question, one head kept a group
        # for the pooling; q1, q3, q4 right, and q2's shape check and torch-made prediction
        "adversarial/ex15_sdpa_enable_gqa.ipynb": 9.625,
        # issue 38: wrong answers behind objects that equal or contain anything, comparisons
        # patched in the kernel; the public type and shape checks (0.25 each) and q3's honest
        # NaN for a batch with no repeated token (0.5)
        "adversarial/ex16_lying_answers.ipynb": 1.5,
        # wrong answers behind objects that equal anything and patched comparisons: the four
        # public shape and type checks (0.25 each)
        "adversarial/ex17_lying_answers.ipynb": 1,
    }
    for case, e in EXPECTED.items():
        if case.startswith("adversarial/"):
            most = honest_parts.get(case, 3 if case in NEW_EX02_CASES else 0)
            assert e["points"] <= most, (
                f"{case}: an adversarial case expected to score {e['points']}"
            )


# --- issue 32: the copy score. tests/submissions/copy/ holds, for every exercise of course.yml,
# what pasting the chapter earns: exNN_paste (chapter cells and printed numbers where a name or an
# answer matches), exNN_paste_tutorlib (the tutorlib function the chapter demonstrates) and
# exNN_paste_formula (the question's numbers in the chapter's formulas). Each must stay at or
# under COPY_GOAL of its exercise's points (exercises/README.md's table).
COPY_GOAL = 0.30
COPY_VARIANTS = ("paste", "paste_tutorlib", "paste_formula")
COURSE_EXERCISES = [name[:4] for name in course.load_course().exercises]
# copy cases still over the goal while their exercise's rework is under way (issue 32): each
# is an expected failure, and strict, so that the rework that brings it under must remove it
ABOVE_GOAL: set[str] = set()
COPY_CASES = [
    pytest.param(case, marks=pytest.mark.xfail(strict=True, reason="over the goal: issue 32"))
    if case in ABOVE_GOAL
    else case
    for case in (f"copy/{ex}_{v}.ipynb" for ex in COURSE_EXERCISES for v in COPY_VARIANTS)
]


@pytest.mark.parametrize("ex", COURSE_EXERCISES)
def test_every_exercise_has_its_three_copy_cases(ex):
    """Every exercise of course.yml, a new one included, has its three copy cases and their
    expected points."""
    for variant in COPY_VARIANTS:
        case = f"copy/{ex}_{variant}.ipynb"
        assert (CORPUS / case).is_file(), f"{ex} has no copy case {case} (issue 32)"
        assert case in EXPECTED, f"{case} has no entry in expected.json"


@pytest.mark.parametrize("case", COPY_CASES)
def test_copy_scores_stay_under_the_goal(case):
    """What expected.json records for a copy case is at most 30 % of the exercise."""
    e = EXPECTED.get(case)
    assert e is not None, f"{case} has no entry in expected.json"
    assert e["points"] <= COPY_GOAL * e["of"] + 1e-9, (
        f"{case}: pasting the chapter earns {e['points']} of {e['of']} points, over {COPY_GOAL:.0%}"
    )


@pytest.mark.slow  # grades the corpus in the bwrap sandbox
@pytest.mark.parametrize("case", COPY_CASES)
def test_copy_scores_measured_under_the_goal(batch, case):
    """The copy score as tools/grade.py measures it, not only as expected.json says."""
    r = batch["results"].get(case)
    assert r is not None, f"{case} was not graded"
    assert r["status"] == "graded", r["messages"]
    assert r["points"] <= COPY_GOAL * r["of"] + 1e-9, (
        f"{case}: pasting the chapter earns {r['points']} of {r['of']} points, "
        f"over {COPY_GOAL:.0%}\n{all_messages(r)}"
    )


def test_honest_alternatives_keep_full_marks():
    """In-place updates, einsum, loops, float32, the standard library, a cell magic: full marks."""
    honest = [case for case in EXPECTED if case.startswith("honest/")]
    assert len(honest) >= 4
    for case in honest:
        assert EXPECTED[case]["points"] == EXPECTED[case]["of"] > 0, case


@pytest.mark.slow  # grades the corpus in the bwrap sandbox
def test_exercise_12_reports_the_learner_id_it_graded(batch):
    """Issue 32, fault 3: the report says which learner id it graded (JSON, CSV and table), and
    it is the id written in question 1's cell, not the one a later cell changed it to."""
    case = "ex12/ex12_id_changed_later.ipynb"
    assert batch["results"][case]["graded_as"] == {"learner_id": "s1002"}
    with open(batch["out"] / "summary.csv", newline="") as fh:
        row = next(r for r in csv.DictReader(fh) if r["submission"].endswith(case))
    assert row["graded_as"] == "learner_id='s1002'"
    line = next(x for x in batch["stdout"].splitlines() if x.startswith(Path(case).name))
    assert "[learner_id 's1002']" in line


@pytest.mark.slow  # grades the corpus in the bwrap sandbox
def test_grading_writes_no_file_into_the_corpus(batch):
    """The write_files case tries to write tests, results and a summary next to itself."""
    new = set(batch["after"]) - set(batch["before"])
    changed = {
        p
        for p in batch["before"]
        if p in batch["after"] and batch["after"][p] != batch["before"][p]
    }
    assert not new and not changed, (
        f"grading changed the corpus: {sorted(map(str, new | changed))[:5]}"
    )


@pytest.mark.slow  # grades the corpus in the bwrap sandbox
def test_a_folder_run_writes_json_csv_and_a_table(batch):
    out, results = batch["out"], batch["results"]
    notebooks = corpus_notebooks()
    assert len(results) == len(notebooks)
    assert len(list(out.glob("*.json"))) == len(notebooks)
    for r in results.values():
        assert {
            "submission",
            "exercise",
            "points",
            "of",
            "questions",
            "messages",
            "integrity",
            "status",
        } <= set(r)
        for q in r["questions"].values():
            assert {"points", "of", "messages", "cases"} <= set(q)
    with open(out / "summary.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(notebooks)
    assert {"submission", "exercise", "points", "of", "q1", "q2", "status", "messages"} <= set(
        rows[0]
    )
    lines = batch["stdout"].splitlines()
    assert lines[0].split()[:2] == ["submission", "q1"] and "total" in lines[0]
    for path in notebooks:
        assert any(line.startswith(path.name) for line in lines), (
            f"{path.name} is not in the printed table"
        )
    assert f"wrote {len(notebooks)} JSON file(s)" in batch["stdout"]


def test_table_and_csv_from_results(tmp_path):
    """The report writers alone: colliding names get their folder, fractions print as 1.50."""
    results = [
        {
            "submission": "a/ex02_x.ipynb",
            "exercise": "ex02_embeddings",
            "status": "graded",
            "points": 1.5,
            "of": 3.0,
            "questions": {"q1": {"points": 1.5, "of": 3.0, "messages": ["nope"], "cases": []}},
            "messages": [],
            "integrity": [],
            "seconds": 1.0,
        },
        {
            "submission": "b/ex02_x.ipynb",
            "exercise": "ex02_embeddings",
            "status": "graded",
            "points": 3.0,
            "of": 3.0,
            "questions": {"q1": {"points": 3.0, "of": 3.0, "messages": [], "cases": []}},
            "messages": [],
            "integrity": ["the notebook changed math.isclose"],
            "seconds": 1.0,
        },
    ]
    summary, files = reports.write_reports(results, tmp_path)
    assert sorted(f.name for f in files) == ["a__ex02_x.json", "b__ex02_x.json"]
    assert (
        summary.read_text()
        .splitlines()[1]
        .startswith("a/ex02_x.ipynb,ex02_embeddings,1.50,3,1.50,")
    )
    text = reports.table(results)
    assert "1.50/3" in text and "! the notebook changed math.isclose" in text


# --- the screen alone (no kernel): it refuses only what is not Python


@pytest.mark.parametrize(
    "source, why",
    [
        ("def f(:\n    pass", "has a syntax error (line 1"),
        ("x = (1,\n", "has a syntax error"),
    ],
)
def test_screen_refuses_only_what_is_not_python(source, why):
    got = screen.why_not_run(source)
    assert got is not None and why in got, got


@pytest.mark.parametrize(
    "source",
    [
        "import operator\nn = operator.mul(4, 256)",
        "from math import *\nx = sqrt(2)",
        "%%time\nx = 1",
        "%time x = 1",
        "%matplotlib inline\nimport matplotlib.pyplot as plt",
        "import sys\nsys.exit('done')",
        "getattr(np, 'allclose')\nexec('x = 1')\nprint(globals().keys())",
        "import threading, subprocess, inspect, gc",
        "np.allclose = lambda *a, **k: True",
    ],
)
def test_screen_lets_any_python_run(source):
    """Honest code is never refused for what it uses, and cheats need not be: they run in the
    sandbox, and the tests run elsewhere."""
    assert screen.why_not_run(source) is None


# --- what the sandbox leaves behind: nothing


@pytest.mark.slow  # grades the corpus in the bwrap sandbox
def test_nothing_is_written_into_the_virtualenv(batch):
    """adversarial/ex02_venv_sitecustomize writes sitecustomize.py and a .pth into every
    site-packages it finds: the virtualenv is read-only in the sandbox."""
    new = set(batch["venv_after"]) - set(batch["venv_before"])
    assert not new, sorted(new)[:5]


@pytest.mark.slow  # grades the corpus in the bwrap sandbox
def test_no_process_outlives_its_submission(batch):
    """adversarial/ex02_fork_setsid_survivor starts `sleep 7777.25` in a session of its own
    (and as many more as the process limit allows): all die with its kernel."""
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "sleep 7777.25" not in ps
