"""The exercises: generated files in sync with their masters, solutions full marks, blanks zero.

Generic over exercises/masters/: a new master joins every test here by itself.
"""

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from grading.screen import INSTALL_MARKER, SETUP_MARKER  # noqa: E402  (setup cells' first lines)

import exercises as ex  # noqa: E402

MASTERS = ex.masters()
NAMES = [p.stem for p in MASTERS]


def test_there_are_masters():
    assert MASTERS, "no exercises/masters/exNN_*.ipynb"


@pytest.mark.slow  # otter assign and a kernel for each exercise
def test_generated_files_are_in_sync_with_the_masters():
    """`tools/exercises.py assign --check` must report nothing to change (nbdev-style drift check),
    _toc.yml included."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "exercises.py"), "assign", "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_table_of_contents_lists_every_exercise_and_solution():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    parts = {p.get("caption"): [c["file"] for c in p["chapters"]] for p in toc["parts"]}
    assert parts.get("Practice") == [f"exercises/{n}" for n in NAMES]
    assert parts.get("Solutions") == [f"exercises/solutions/{n}" for n in NAMES]
    captions = [p.get("caption") for p in toc["parts"]]
    assert captions.index("Practice") + 1 == captions.index("Solutions")


def test_the_book_builds_the_student_and_solution_pages_only():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    excluded = config["exclude_patterns"]
    assert "exercises/*" not in excluded
    assert {"exercises/masters/*", "exercises/autograder/*", "exercises/README.md"} <= set(excluded)


@pytest.mark.parametrize("name", NAMES)
def test_student_notebook_checks_answers_in_place(name):
    nb = nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    install, setup = nb.cells[0], nb.cells[1]
    assert install.source == ex.install_cell_source() and "remove-cell" in install.metadata["tags"]
    assert "otter-grader==" in install.source and "TUTORLIB_SOURCE" in install.source
    assert (
        setup.source.startswith(SETUP_MARKER)
        and "grader = otter.Notebook(tests_dir=tests_dir)" in setup.source
    )
    # the public tests ride in the setup cell (Colab opens only the .ipynb); hidden ones stay in the
    # zip
    with zipfile.ZipFile(ROOT / "exercises" / "autograder" / f"{name}.zip") as zf:
        tests = {n: zf.read(n).decode() for n in zf.namelist() if n.startswith("tests/")}
        assert sorted(zf.namelist()) == sorted(["otter_config.json", *tests])
    hidden = [n for n, text in tests.items() if "hidden=True" in text or "'hidden': True" in text]
    assert "hidden=True" not in setup.source and "'hidden': True" not in setup.source
    assert hidden, f"{name} has no hidden tests"
    questions = re.findall(r"'(q\d+)\.py'", setup.source)
    checks = re.findall(
        r'grader\.check\("(q\d+)"\)', "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    )
    assert questions and sorted(set(checks)) == sorted(questions), (
        "a grader.check cell per question"
    )
    assert 2 <= len(questions) <= 4, "2-4 questions per exercise"
    for c in nb.cells:
        assert "BEGIN SOLUTION" not in c.source and "BEGIN TESTS" not in c.source
        assert not c.source.startswith("**Why.**"), "the reasoning is for the solutions page only"
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None


@pytest.mark.parametrize("name", NAMES)
def test_student_page_says_checking_needs_a_kernel(name):
    """On the book's page the setup cells are hidden and grader.check cannot run: one note, after
    the title and before the first check, says so, says what the hidden cells do, and links to
    this notebook in Colab and Binder (repository and branch from _config.yml)."""
    nb = nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4)
    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    owner_repo = repo["url"].rstrip("/").removeprefix("https://github.com/")
    branch = repo["branch"]
    colab = (
        f"https://colab.research.google.com/github/{owner_repo}/blob/{branch}"
        f"/exercises/{name}.ipynb"
    )
    # the same Binder address as the page's launch button (tests/test_browser.py wants one)
    binder = f"https://mybinder.org/v2/gh/{owner_repo}/{branch}?urlpath=tree/exercises/{name}.ipynb"
    notes = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and colab in c.source]
    assert len(notes) == 1, f"one note with the Colab link {colab}, found {len(notes)}"
    note = nb.cells[notes[0]]
    assert f"({colab})" in note.source and f"({binder})" in note.source
    assert "remove-cell" not in note.metadata.get("tags", []) and "hide" not in str(note.metadata)
    for words in ("grader.check", "Colab", "Binder", "Jupyter", "kernel", "install", "grader`"):
        assert words in note.source, f"the note does not say {words!r}"
    title = next(
        i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("# ")
    )
    first_check = next(
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and c.source.startswith("grader.check(")
    )
    assert (
        "remove-cell" in nb.cells[0].metadata["tags"]
        and "remove-cell" in nb.cells[1].metadata["tags"]
    )
    assert title < notes[0] < first_check


def master_questions(name: str) -> list[str]:
    """The question names of a master, in order, read from its raw '# BEGIN QUESTION' cells."""
    nb = nbformat.read(ROOT / "exercises" / "masters" / f"{name}.ipynb", as_version=4)
    found = []
    for c in nb.cells:
        if c.cell_type == "raw" and re.match(r"#\s+BEGIN\s+QUESTION", c.source, re.I):
            found.append(yaml.safe_load(c.source.split("\n", 1)[1])["name"])
    return found


def question_number(q: str) -> str:
    return re.fullmatch(r"q(\d+)", q).group(1)


@pytest.mark.parametrize("name", NAMES)
def test_solutions_page_is_collapsed_and_clean(name):
    nb = nbformat.read(ROOT / "exercises" / "solutions" / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert "install-tutorlib" in code[0].metadata["tags"]
    for c in code[1:]:
        assert (
            "grader" not in c.source
            and "BEGIN SOLUTION" not in c.source
            and "otter" not in c.source
        )
    titles = [
        c.source.splitlines()[0]
        for c in nb.cells
        if c.cell_type == "markdown" and c.source.startswith("# ")
    ]
    assert len(titles) == 1 and "olution" in titles[0]
    assert "try the exercise first" in nb.cells[1].source


@pytest.mark.parametrize("name", NAMES)
def test_solutions_page_shows_outputs_reasoning_and_labels(name):
    """Every question has its solution collapsed behind "Show the solution to question N" (myst-nb's
    per-cell code_prompt_show/hide), its outputs stored (the page shows what it prints), and a
    **Why.** cell right after it; nothing else on the page is labelled as a solution."""
    nb = nbformat.read(ROOT / "exercises" / "solutions" / f"{name}.ipynb", as_version=4)
    questions = master_questions(name)
    assert questions
    labelled = {}
    for i, c in enumerate(nb.cells):
        prompts = c.metadata.get("mystnb", {})
        if c.cell_type == "code" and "code_prompt_show" in prompts:
            m = re.fullmatch(
                r"Show the solution to question (\d+)( \(part \d+ of \d+\))?",
                prompts["code_prompt_show"],
            )
            assert m, prompts
            assert prompts["code_prompt_hide"] == "Hide" + prompts["code_prompt_show"][4:]
            assert "hide-input" in c.metadata.get("tags", []), "solutions are collapsed on the page"
            labelled.setdefault(m.group(1), []).append(i)
    assert sorted(labelled) == sorted(question_number(q) for q in questions), (
        "one labelled solution per question"
    )
    for number, cells in labelled.items():
        for i in cells:
            outputs = nb.cells[i].outputs
            assert outputs, f"the solution to question {number} shows no output: print a check"
            assert not [o for o in outputs if o.output_type == "error"], f"question {number} raised"
            assert not [o for o in outputs if o.get("name") == "stderr"], (
                f"question {number} wrote to stderr (warnings vary from run to run)"
            )
        after = nb.cells[cells[-1] + 1]
        assert after.cell_type == "markdown" and after.source.startswith("**Why.**"), (
            f"no **Why.** cell right after the solution to question {number}"
        )
        assert len(after.source.split()) >= 12, "the reasoning is a sentence or two, not a word"
    whys = [c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("**Why.**")]
    assert len(whys) == len(questions)
    # executed in order, with no timings
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code" and c.outputs]
    assert counts == sorted(counts)
    assert all("execution" not in c.metadata for c in nb.cells)


def notebook_code_lines():
    for path in sorted((ROOT / "exercises").glob("ex[0-9][0-9]_*.ipynb")) + sorted(
        (ROOT / "exercises" / "solutions").glob("ex[0-9][0-9]_*.ipynb")
    ):
        nb = nbformat.read(path, as_version=4)
        for i, c in enumerate(nb.cells):
            if c.cell_type == "code":
                for n, line in enumerate(c.source.splitlines(), 1):
                    yield path.relative_to(ROOT).as_posix(), i, n, line


def test_code_lines_fit_the_book_code_column():
    """No code line of a student notebook or a solutions page is wider than 88 characters, the
    book's code column (hidden setup cells too: Colab shows them). Shape comments go on their own
    line when they do not fit."""
    assert any(True for _ in notebook_code_lines())
    wide = [
        f"{path} cell {i} line {n} ({len(line)} characters): {line[:60]}..."
        for path, i, n, line in notebook_code_lines()
        if len(line) > 88
    ]
    assert not wide, "\n".join(wide)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """tools/grade.py on every solutions notebook and every untouched student notebook, in one
    batch."""
    out = tmp_path_factory.mktemp("grades")
    paths = [ROOT / "exercises" / "solutions" / f"{n}.ipynb" for n in NAMES]
    paths += [ROOT / "exercises" / f"{n}.ipynb" for n in NAMES]
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "grade.py"),
            *map(str, paths),
            "--out",
            str(out),
            "--jobs",
            "2",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    results = {}
    for f in out.glob("*.json"):
        r = json.loads(f.read_text())
        results[Path(r["submission"]).resolve().relative_to(ROOT).as_posix()] = r
    return results


@pytest.mark.slow  # grades every exercise in the bwrap sandbox
@pytest.mark.parametrize("name", NAMES)
def test_solutions_score_full_marks(graded, name):
    r = graded[f"exercises/solutions/{name}.ipynb"]
    detail = json.dumps(
        {
            "messages": r["messages"],
            "integrity": r["integrity"],
            "questions": {q: v["messages"] for q, v in r["questions"].items()},
        },
        indent=1,
    )
    assert r["status"] == "graded" and r["of"] > 0, detail
    assert r["points"] == pytest.approx(r["of"]), detail
    assert not r["integrity"] and not r["messages"], detail


@pytest.mark.slow  # grades every exercise in the bwrap sandbox
@pytest.mark.parametrize("name", NAMES)
def test_untouched_student_notebook_scores_zero(graded, name):
    r = graded[f"exercises/{name}.ipynb"]
    assert r["status"] == "graded", r["messages"]
    assert r["points"] == 0 and r["of"] > 0, {q: v["messages"] for q, v in r["questions"].items()}
    assert not r["integrity"], r["integrity"]
    assert not any("grader error" in m for m in r["messages"]), r["messages"]
    for q in r["questions"].values():  # every failed test says something a learner can act on
        assert q["messages"] and all(m for m in q["messages"])


@pytest.mark.slow  # a kernel per exercise
@pytest.mark.parametrize("name", NAMES)
def test_grader_check_runs_offline_in_the_student_notebook(name, tmp_path):
    """Run the untouched student notebook top to bottom in a fresh kernel, in an empty folder (like
    Colab, where only the .ipynb is there): every grader.check cell reports on its question."""
    from nbclient import NotebookClient

    nb = nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4)
    NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if cell.source.startswith(("grader.check(", INSTALL_MARKER, SETUP_MARKER)):
            assert not errors, f"{cell.source[:40]!r} raised {errors[0].ename}: {errors[0].evalue}"
        if cell.source.startswith("grader.check("):
            q = re.search(r'grader\.check\("(q\d+)"\)', cell.source).group(1)
            text = json.dumps(
                [o.get("data", {}) for o in cell.outputs]
                + [o.get("text", "") for o in cell.outputs]
            )
            assert f"{q} results" in text, f"grader.check({q!r}) showed no results: {text[:300]}"
            assert "Test case failed" in text, f"the blank answer to {q} passed a public test"
