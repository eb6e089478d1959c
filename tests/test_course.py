"""course.yml, the course manifest, and what is written from it (tools/course.py).

Fast: no book build, no kernel. A new chapter is one entry in course.yml plus its files; these
tests hold the promise that nothing else has to be typed by hand.
"""

import copy
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import course  # noqa: E402

DATA = yaml.safe_load((ROOT / "course.yml").read_text())
COURSE = course.load_course()


def test_generated_files_are_in_sync_with_course_yml():
    """`tools/course.py --check` reports nothing to change and no disagreement (nbdev-style)."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "course.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def _copy_of_the_course(tmp_path: Path) -> Path:
    """A repository root in tmp_path: the manifest and the generated files copied, the
    chapters and exercises linked (read only by the check)."""
    for name in ("course.yml", "_toc.yml", "index.md", "README.md"):
        (tmp_path / name).write_text((ROOT / name).read_text())
    for folder in ("chapters", "exercises"):
        (tmp_path / folder).symlink_to(ROOT / folder, target_is_directory=True)
    return tmp_path


@pytest.mark.parametrize("name", ["_toc.yml", "index.md", "README.md"])
def test_check_names_the_file_that_drifted_and_sync_repairs_it(tmp_path, capsys, name):
    root = _copy_of_the_course(tmp_path)
    path = root / name
    original = path.read_text()
    # a chapter edited by hand in the generated part (chapter 3's entry, whichever form it has)
    line = next(line for line in original.splitlines() if "03_softmax" in line)
    path.write_text(original.replace(line, line.replace("03_softmax", "03_softmax_by_hand"), 1))
    assert course.sync(check=True, root=root) == 1
    out = capsys.readouterr().out
    assert f"would change: {name}" in out, out
    assert [n for n in ("_toc.yml", "index.md", "README.md") if f"would change: {n}" in out] == [
        name
    ], out
    assert course.sync(check=False, root=root) == 0
    assert path.read_text() == original
    assert course.sync(check=True, root=root) == 0


def test_hand_written_text_around_the_markers_is_kept(tmp_path):
    root = _copy_of_the_course(tmp_path)
    for name in ("index.md", "README.md"):
        text = (root / name).read_text()
        (root / name).write_text(text.replace("\n", "\nA sentence written by hand.\n", 1))
    assert course.sync(check=False, root=root) == 0
    for name in ("index.md", "README.md"):
        assert (root / name).read_text().count("A sentence written by hand.") == 1, name


def test_a_missing_marker_is_an_error_that_says_which():
    text = (ROOT / "index.md").read_text()
    begin, end = course.MARKERS["index.md"]
    with pytest.raises(course.CourseError, match="index.md: expected one line"):
        course.replace_block("index.md", text.replace(end, ""), ["- x"])


NEXT = len(COURSE.chapters) + 1  # the number a new chapter would take
NEXT_FILE, NEXT_EXERCISE = f"chapters/{NEXT}_new_topic", f"exercises/ex{NEXT}_new_topic"


def _with_next_chapter(data: dict) -> dict:
    data = copy.deepcopy(data)
    data["parts"].append(
        {
            "caption": "A part to come",
            "chapters": [
                {
                    "number": NEXT,
                    "file": NEXT_FILE,
                    "title": "A new topic",
                    "exercise": NEXT_EXERCISE,
                    "explorers": ["head_explorer"],
                    "budget_s": 90,
                }
            ],
        }
    )
    return data


def test_a_new_chapter_is_one_entry():
    """Adding a chapter to course.yml adds it to the contents (its part, Practice, Solutions),
    to index.md's list and README.md's table, to the explorer chapters and the budgets."""
    before, after = COURSE, course.parse_course(_with_next_chapter(DATA))
    toc = yaml.safe_load(course.toc_text(after))
    parts = {p["caption"]: [c["file"] for c in p["chapters"]] for p in toc["parts"]}
    old_parts = {
        p["caption"]: [c["file"] for c in p["chapters"]]
        for p in yaml.safe_load(course.toc_text(before))["parts"]
    }
    assert parts["A part to come"] == [NEXT_FILE]
    assert parts["Practice"] == old_parts["Practice"] + [NEXT_EXERCISE]
    assert parts["Solutions"] == old_parts["Solutions"] + [
        f"exercises/solutions/ex{NEXT}_new_topic"
    ]
    captions = [p["caption"] for p in toc["parts"]]
    assert captions[-4:] == ["A part to come", "Practice", "Solutions", "Reference"], captions

    for name, lines in (("index.md", course.index_lines), ("README.md", course.readme_lines)):
        current = (ROOT / name).read_text()
        old, new = (
            course.replace_block(name, current, lines(before)),
            course.replace_block(name, current, lines(after)),
        )
        assert old == current, f"{name} is not what course.yml makes of it"
        added = [line for line in new.splitlines() if line not in old.splitlines()]
        assert len(added) == 1 and NEXT_FILE in added[0], (name, added)
    assert f"exercise {NEXT} <{NEXT_EXERCISE}>" in course.index_lines(after)[-1]
    assert course.readme_lines(after)[-1].startswith(f"| {NEXT}. A new topic | ")

    assert after.explorer_chapters() == {**before.explorer_chapters(), NEXT_FILE: 1}
    assert after.budgets() == {**before.budgets(), f"{NEXT}_new_topic.ipynb": 90.0}
    assert after.exercises == before.exercises + [f"ex{NEXT}_new_topic"]
    # and the check asks for the files that the entry names
    found = "\n".join(course.problems(after))
    assert f"{NEXT_FILE}.ipynb: listed in course.yml (chapter {NEXT}) but missing" in found


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda d: d["parts"][0]["chapters"].reverse(), f"chapters numbered 1 to {NEXT - 1}"),
        (
            lambda d: d["parts"][0]["chapters"][0].update(file="chapters/02_why_attention"),
            "file chapters/01_topic",
        ),
        (
            lambda d: d["parts"][0]["chapters"][0].update(exercise="exercises/ex02_why"),
            "exercise exercises/ex01_topic",
        ),
        (lambda d: d["parts"][0]["chapters"][0].update(explorer=[]), "a typo"),
        (lambda d: d["parts"][0]["chapters"][0].pop("budget_s"), "'budget_s'] missing"),
        (lambda d: d["parts"][0]["chapters"][0].update(budget_s=0), "budget_s, a number"),
        (lambda d: d["parts"][0]["chapters"][0].update(explorers="head_explorer"), "write []"),
        (lambda d: d["parts"][1].update(caption="Foundations"), "two parts of the contents"),
        (lambda d: d.pop("practice"), "a missing or misspelt key"),
    ],
)
def test_mistakes_in_course_yml_are_refused_with_a_reason(change, says):
    data = copy.deepcopy(DATA)
    change(data)
    with pytest.raises(course.CourseError, match="expected") as error:
        course.parse_course(data)
    assert says in str(error.value)


def _changed(where: int, **fields) -> course.Course:
    data = copy.deepcopy(DATA)
    chapters = [ch for part in data["parts"] for ch in part["chapters"]]
    chapters[where].update(fields)
    return course.parse_course(data)


def test_course_yml_must_agree_with_the_chapters_themselves():
    assert course.problems(COURSE) == []
    found = course.problems(_changed(2, title="Softmax and temperature"))
    assert found == [
        "chapters/03_softmax.ipynb: the first heading is '# 3. Softmax', course.yml "
        "says '# 3. Softmax and temperature' (change one of them)"
    ]
    found = course.problems(_changed(3, explorers=["attention_explorer", "saturation_explorer"]))
    assert len(found) == 1 and "shows the explorers ['saturation_explorer', " in found[0], found
    found = course.problems(_changed(2, exercise="exercises/ex03_temperature"))
    assert any("ex03_softmax.ipynb: an exercise master no chapter" in p for p in found), found
    assert any("ex03_temperature.ipynb: chapter 3's exercise" in p for p in found), found
    data = copy.deepcopy(DATA)
    dropped = data["parts"][-1]["chapters"].pop()  # the last chapter (and its part, if alone)
    if not data["parts"][-1]["chapters"]:
        data["parts"].pop()
    found = course.problems(course.parse_course(data))
    assert f"{dropped['file']}.ipynb: a chapter notebook course.yml does not list" in found[0]


def test_explorers_in_course_yml_are_functions_of_tutorlib_explorers():
    import tutorlib.explorers as explorers

    named = {name for ch in COURSE.chapters for name in ch.explorers}
    assert named, "course.yml lists no explorer at all"
    assert named <= set(explorers.__all__), sorted(named - set(explorers.__all__))
    shown = {n for n in explorers.__all__ if n.endswith(("_explorer", "_editor"))}
    assert shown == named, f"explorers no chapter shows: {sorted(shown - named)}"


def test_tutorlib_docstring_names_every_module():
    """tutorlib/__init__.py's docstring lists the package's modules; none may be left out."""
    import tutorlib

    modules = [
        m.name
        for m in pkgutil.walk_packages(tutorlib.__path__, "tutorlib.")
        if not any(part.startswith("_") for part in m.name.split("."))
    ]
    assert len(modules) >= 10, modules
    missing = [m for m in modules if f"``{m}``" not in tutorlib.__doc__]
    assert not missing, f"modules of tutorlib its docstring does not list: {missing}"


def test_ruff_check_and_format_pass():
    """The contributor's fast loop (`make check`) starts with ruff: the lint rules and the
    formatting of pyproject.toml's [tool.ruff] hold over the whole project."""
    ruff = Path(sys.executable).parent / "ruff"
    assert ruff.is_file(), f"no ruff beside {sys.executable}: pip install -c constraints.txt ruff"
    for args in (["check", "."], ["format", "--check", "."]):
        run = subprocess.run(
            [str(ruff), *args], capture_output=True, text=True, cwd=ROOT, timeout=120
        )
        assert run.returncode == 0, f"ruff {' '.join(args)}:\n" + run.stdout[-3000:] + run.stderr


# The documents a contributor reads, and the places they may name that the repository does not
# hold until a command makes them (gitignored outputs).
DOCS = [
    "README.md",
    "CONTRIBUTING.md",
    "index.md",
    "course.yml",
    "_config.yml",
    "Makefile",
    "exercises/README.md",
    "benchmarks/README.md",
    "assets/course.js",
    "assets/course.css",
]
MADE_BY_COMMANDS = ("vendor/", "_build/", "test-artifacts/", "benchmarks/results", ".venv/")
PATH_IN_TEXT = (
    r"(?<![\w./-])((?:\.ci|\.github|_templates|assets|benchmarks|binder|chapters|"
    r"exercises|tests|tools|tutorlib|vendor)/[\w./*-]*[\w*])"
)


def missing_paths(text: str, root: Path = ROOT) -> list[str]:
    """Repository paths named in ``text`` that exist neither as written nor as a notebook or a
    page (the book names chapters without .ipynb); patterns like chapters/NN_topic are skipped."""
    import re

    found = []
    for path in re.findall(PATH_IN_TEXT, text):
        if re.search(r"NN|exNN|/x\b|_x\b|\.\.\.|\*", path) or path.startswith(MADE_BY_COMMANDS):
            continue
        if not any((root / f"{path}{ext}").exists() for ext in ("", ".ipynb", ".md")):
            found.append(path)
    return found


def test_the_docs_name_only_files_that_exist():
    assert missing_paths("see tools/sync_notebooks.py and chapters/03_softmax") == [
        "tools/sync_notebooks.py"
    ]
    missing = {name: missing_paths((ROOT / name).read_text()) for name in DOCS}
    assert not any(missing.values()), {k: v for k, v in missing.items() if v}


def test_exercises_assign_refuses_a_master_course_yml_does_not_name(monkeypatch):
    """tools/exercises.py takes the Practice and Solutions parts from course.yml: a master that
    no chapter names stops it before any otter assign runs, saying what to add."""
    import exercises

    present = exercises.masters()
    assert [p.stem for p in present] == COURSE.exercises
    extra = ROOT / "exercises" / "masters" / f"ex{NEXT}_new_topic.ipynb"
    monkeypatch.setattr(exercises, "masters", lambda: [*present, extra])
    monkeypatch.setattr(exercises, "generate", lambda path: pytest.fail("otter assign ran"))
    with pytest.raises(SystemExit, match=rf"exercises/masters/ holds \[.*'ex{NEXT}_new_topic'\]"):
        exercises.assign(check=True)


def test_the_manifest_and_the_explorer_registry_agree():
    """course.yml lists each chapter's explorers; tutorlib.explorers.REGISTRY files each explorer
    under a chapter (its @explorer decorator). The browser tests count explorers from the first,
    the library declares them in the second: a chapter given an explorer in one must have it in
    the other."""
    from tutorlib import explorers

    listed = {(name, ch.file) for ch in course.load_course().chapters for name in ch.explorers}
    registered = {(name, entry.chapter) for name, entry in explorers.REGISTRY.items()}
    assert listed == registered, (
        f"in course.yml only: {sorted(listed - registered)}; "
        f"in tutorlib.explorers.REGISTRY only: {sorted(registered - listed)}"
    )
