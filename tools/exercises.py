"""Generate the graded exercises from their master notebooks (otter-grader's assignment format).

    python tools/exercises.py assign            regenerate everything below from exercises/masters/
    python tools/exercises.py assign --check    fail (exit 1) if regenerating would change anything
    python tools/exercises.py autograder PRIVATE_MASTERS --out PRIVATE_ZIPS
                                             only the autograder zips of an instructor's own masters

For every master ``exercises/masters/exNN_topic.ipynb`` it runs ``otter assign`` in a temporary
folder and writes, deterministically (same master, same bytes):

- ``exercises/exNN_topic.ipynb``             the student notebook: solutions and hidden tests
                                             removed; its first cell installs tutorlib and
                                             otter-grader when missing, its second writes the public
                                             tests (embedded in the cell, so it works in Colab where
                                             only the .ipynb is opened) and creates ``grader``, so
                                             ``grader.check("q1")`` works in place, offline; a note
                                             after the intro says that checking needs a kernel
                                             (Colab, Binder links)
- ``exercises/autograder/exNN_topic.zip``   the autograder bundle: every test, hidden ones included,
                                            and otter_config.json; ``tools/grade.py`` and ``otter
                                            run -a`` grade with it (no Docker)
- ``exercises/solutions/exNN_topic.ipynb``  the worked solutions for the book: tests and otter
                                            removed, executed (outputs stored), each solution cell
                                            collapsed behind "Show the solution to question N" and
                                            followed by the master's **Why.** cell for that question

and checks that the masters present are the exercises course.yml names. _toc.yml's "Practice" and
"Solutions" parts list them; tools/course.py writes the file from course.yml (assign rewrites it
the same way, and --check fails if it has drifted). exercises/README.md describes the master format.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import difflib
import io
import logging
import os
import posixpath
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import course  # noqa: E402  (course.yml: which exercises there are, and _toc.yml)
import notebooks as nbtools  # noqa: E402  (the install cells and repository address)
from grading.screen import SETUP_MARKER  # noqa: E402  (the setup cell's first line)

EXERCISES = ROOT / "exercises"
MASTERS = EXERCISES / "masters"
AUTOGRADER = EXERCISES / "autograder"
SOLUTIONS = EXERCISES / "solutions"
TOC = ROOT / "_toc.yml"
NAME_RE = re.compile(r"^ex\d\d_[a-z0-9_]+$")

OTTER_VERSION = "7.0.0"  # the version of constraints.txt; the install cell pins the same

# What tools/exercises.py decides for every master, whatever its ASSIGNMENT CONFIG says: the course
# writes its own setup cells, tests go to files (embedded into the setup cell, bundled in the zip),
# no PDFs, no Gradescope export cell. A master sets only `name` (and, if it wants OK-format
# doctests instead of test functions, `tests: {ok_format: true}`).
FORCED_CONFIG = {
    "init_cell": False,
    "check_all_cell": False,
    "export_cell": False,
    "run_tests": False,  # tests/test_exercises.py grades every solution with tools/grade.py instead
    "solutions_pdf": False,
    "template_pdf": False,
    "runs_on": "default",
}

INSTALL_TAG = nbtools.INSTALL_TAG
SETUP_TAG = "otter-setup"
# Each setup cell starts with INSTALL_MARKER or SETUP_MARKER (their home: tools/grading/screen.py):
# tools/grade.py skips cells that start with them (the grader brings its own tests and needs no
# install), so a learner's copy of them never runs there.

# Every line of the generated notebooks fits the book's code column (88 characters).
LINE_WIDTH = 88

SETUP_TEMPLATE = (
    SETUP_MARKER
    + """ run this cell once, then grader.check("q1") and so on.
# It writes this exercise's public tests to a temporary folder and points otter-grader
# at them (offline, also in Colab). The instructor grades with more tests, hidden ones.
import os, tempfile
import otter

PUBLIC_TESTS = {{
{tests}
}}
tests_dir = os.path.join(tempfile.gettempdir(), "attention-exercises",
                         "{name}")
os.makedirs(tests_dir, exist_ok=True)
for file_name, text in PUBLIC_TESTS.items():
    with open(os.path.join(tests_dir, file_name), "w", encoding="utf-8") as f:
        f.write(text)
grader = otter.Notebook(tests_dir=tests_dir)"""
)

# The student page's note, after the title: grader.check needs a live kernel, and where to get one.
PRACTICE_NOTE = """\
> **Checking your answers needs a running notebook.** Each `grader.check("q1")` cell runs
> this exercise's tests in a live Python kernel, so it does nothing on the book's page:
> open the notebook in [Colab]({colab}) or [Binder]({binder}), or download it and open
> it in Jupyter. Run its first two code cells once (the book hides them): they install
> `tutorlib` and `otter-grader` if they are missing and load the public tests into
> `grader`."""

SOLUTIONS_NOTE = """\
```{{note}}
Worked solutions of [{title}]({student}). Each solution is collapsed: try the exercise first,
then click a cell to open it.
```"""

# A master's markdown cell that starts with this is the reasoning of the solution just above it:
# left out of the student notebook, shown on the solutions page right after that solution.
WHY_PREFIX = "**Why.**"
SOLUTION_TAG = "otter_assign_solution_cell"  # otter assign's tag on the solution code cells

ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def masters() -> list[Path]:
    return sorted(p for p in MASTERS.glob("ex[0-9][0-9]_*.ipynb") if NAME_RE.match(p.stem))


def install_cell_source() -> str:
    """The exercises' install cell (its template and tag live in tools/notebooks.py)."""
    return nbtools.install_cell_source(otter=OTTER_VERSION)


def _string_literals(text: str, indent: str, width: int = LINE_WIDTH) -> list[str]:
    """``text`` as adjacent Python string literals, one per line, each line at most ``width``
    characters: a long line of a test is cut between words (or anywhere, if one word is too
    long)."""
    room = width - len(indent)
    pieces, chunk = [], ""
    for word in re.findall(r"\S+\s*|\s+", text):
        if len(repr(chunk + word)) <= room:
            chunk += word
            continue
        if chunk:
            pieces.append(chunk)
            chunk = ""
        for ch in word:
            if chunk and len(repr(chunk + ch)) > room:
                pieces.append(chunk)
                chunk = ""
            chunk += ch
    if chunk or not pieces:
        pieces.append(chunk)
    return [f"{indent}{piece!r}" for piece in pieces]


def setup_cell_source(name: str, public_tests: dict[str, str]) -> str:
    entries = []
    for file_name in sorted(public_tests):
        lines = public_tests[file_name].splitlines(keepends=True)
        body = "\n".join(lit for line in lines for lit in _string_literals(line, " " * 8))
        entries.append(f"    {file_name!r}: (\n{body}\n    ),")
    return SETUP_TEMPLATE.format(tests="\n".join(entries), name=name)


def launch_links(name: str) -> dict[str, str]:
    """Colab and Binder addresses of the student notebook ``exercises/<name>.ipynb``, from the
    repository and launch_buttons sections of _config.yml, built as the page's own launch
    buttons build them (sphinx-book-theme), so a page never offers two Binder addresses."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repo = config["repository"]
    branch = repo.get("branch", "main")
    owner_repo = re.sub(r"^https?://github\.com/", "", repo["url"].rstrip("/")).removesuffix(".git")
    buttons = config.get("launch_buttons") or {}
    colab = buttons.get("colab_url", "https://colab.research.google.com").rstrip("/")
    binder = buttons.get("binderhub_url", "https://mybinder.org").rstrip("/")
    interface = {"classic": "tree", "jupyterlab": "lab/tree"}[
        buttons.get("notebook_interface", "classic")
    ]
    path = f"exercises/{name}.ipynb"
    return {
        "colab": f"{colab}/github/{owner_repo}/blob/{branch}/{path}",
        "binder": f"{binder}/v2/gh/{owner_repo}/{branch}?urlpath={interface}/{path}",
    }


# ---------------------------------------------------------------------------------------------
# masters


def test_cells(nb) -> list[tuple[str, object]]:
    """(question name, cell) for every code cell between '# BEGIN TESTS' and '# END TESTS'."""
    found, question, inside = [], None, False
    for cell in nb.cells:
        first = cell.source.strip().splitlines()[0].strip().upper() if cell.source.strip() else ""
        if cell.cell_type == "raw" and re.match(r"#\s+BEGIN\s+QUESTION", first):
            body = cell.source.split("\n", 1)[1] if "\n" in cell.source else ""
            question = (yaml.safe_load(body) or {}).get("name")
        elif cell.cell_type == "raw" and re.match(r"#\s+BEGIN\s+TESTS", first):
            inside = True
        elif cell.cell_type == "raw" and re.match(r"#\s+END\s+TESTS", first):
            inside = False
        elif inside and cell.cell_type == "code":
            found.append((question, cell))
    return found


def _test_body(cell) -> list:
    """The statements of a test cell, without its '# BEGIN TEST CONFIG' docstring."""
    source = re.sub(
        r'(?s)^\s*(?:.\s*=\s*)?"""?\s*#\s*BEGIN\s+TEST\s+CONFIG.*?"""?\s*#\s*END\s+TEST\s+CONFIG[^\n]*\n',
        "",
        cell.source,
        flags=re.I,
    )
    return ast.parse(source).body


def infer_ok_format(nb) -> bool:
    """otter's test format when a master does not say: exception-based when every test cell is one
    function definition (otter calls it with arguments from the notebook), else OK format (each cell
    runs as a doctest in the notebook, so it must call what it defines)."""
    cells = test_cells(nb)
    lone = [
        len(b) == 1 and isinstance(b[0], ast.FunctionDef) for b in (_test_body(c) for _, c in cells)
    ]
    return not (cells and all(lone))


def check_tests(nb, where: str, ok_format: bool) -> None:
    """Refuse the two silent ways an otter test never runs."""
    seen: dict[str, set] = {}
    for question, cell in test_cells(nb):
        body = _test_body(cell)
        defined = [n.name for n in body if isinstance(n, ast.FunctionDef)]
        called = {
            n.func.id
            for n in ast.walk(ast.Module(body=body, type_ignores=[]))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        if ok_format:
            for name in defined:
                if name not in called:
                    raise SystemExit(
                        f"{where}, {question}: the test cell defines {name}() but never calls it; "
                        "with OK-format tests each cell runs as a doctest, so it would always "
                        "pass. Call it, or make every test cell one function and set tests: "
                        "ok_format: false"
                    )
        else:
            names = seen.setdefault(question, set())
            for name in defined:
                if name in names:
                    raise SystemExit(
                        f"{where}, {question}: two test functions are named {name}(); otter would "
                        "keep only the last. Give each test function its own name"
                    )
                names.add(name)


def is_why_cell(cell) -> bool:
    return cell.cell_type == "markdown" and cell.source.lstrip().startswith(WHY_PREFIX)


def why_cells(nb) -> dict[str, list]:
    """{question name: its **Why.** markdown cells}, in the master's order."""
    found, question = {}, None
    for cell in nb.cells:
        first = cell.source.strip().splitlines()[0].strip().upper() if cell.source.strip() else ""
        if cell.cell_type == "raw" and re.match(r"#\s+BEGIN\s+QUESTION", first):
            body = cell.source.split("\n", 1)[1] if "\n" in cell.source else ""
            question = (yaml.safe_load(body) or {}).get("name")
        elif is_why_cell(cell):
            if question is None:
                raise SystemExit(f"a {WHY_PREFIX} cell outside a question: {cell.source[:60]!r}")
            found.setdefault(question, []).append(copy.deepcopy(cell))
    return found


def is_config_cell(cell) -> bool:
    return (
        cell.cell_type == "raw"
        and re.match(r"#\s+assignment\s+config\s*", cell.source, re.I) is not None
    )


def is_install_cell(cell) -> bool:
    """A master's own copy of the chapters' install cell (the generated notebooks get ours)."""
    return cell.cell_type == "code" and 'find_spec("tutorlib")' in cell.source


def prepared_master(path: Path) -> tuple[nbformat.NotebookNode, dict]:
    """The master with the course's forced configuration and without its own install cell."""
    nb = nbformat.read(path, as_version=4)
    configs = [c for c in nb.cells if is_config_cell(c)]
    if len(configs) != 1:
        raise SystemExit(
            f"{path.name}: expected one raw '# ASSIGNMENT CONFIG' cell, found {len(configs)}"
        )
    config = (
        yaml.safe_load(configs[0].source.split("\n", 1)[1] if "\n" in configs[0].source else "")
        or {}
    )
    if config.get("name") != path.stem:
        raise SystemExit(
            f"{path.name}: the ASSIGNMENT CONFIG name is {config.get('name')!r}, expected "
            f"{path.stem!r}"
        )
    config.update(FORCED_CONFIG)
    tests = dict(config.get("tests") or {})
    tests["files"] = True
    if "ok_format" not in tests:
        tests["ok_format"] = infer_ok_format(nb)
    check_tests(nb, path.name, tests["ok_format"])
    config["tests"] = tests
    generate = config.get("generate")
    config["generate"] = dict(generate) if isinstance(generate, dict) else {}
    config["generate"]["pdf"] = False
    configs[0].source = "# ASSIGNMENT CONFIG\n" + yaml.safe_dump(config, sort_keys=True)
    nb.cells = [c for c in nb.cells if not is_install_cell(c) and not is_why_cell(c)]
    return nb, config


@contextlib.contextmanager
def _quiet():
    """otter assign logs and prints a summary; keep the tool's own output to what changed."""
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        logging.disable(previous)


def run_otter_assign(path: Path, work: Path) -> Path:
    """Run otter assign on the prepared master in ``work``; return its result folder."""
    from otter.assign import main as otter_assign

    nb, _ = prepared_master(path)
    master = work / path.name
    nbformat.write(nb, master)
    result = work / "dist"
    with _quiet():
        otter_assign(str(master), str(result), no_pdfs=True, no_run_tests=True)
    return result


# ---------------------------------------------------------------------------------------------
# outputs


def _clean(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """Deterministic notebook: no outputs, counts or timings, cell ids from the position, course
    kernel."""
    nb = nbformat.from_dict(copy.deepcopy(nb))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{name.replace('_', '-')}-{i:02d}"
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata = nbformat.from_dict(
        {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            **({"otter": {"assignment_name": name}} if "otter" in nb.metadata else {}),
        }
    )
    nb.nbformat, nb.nbformat_minor = 4, 5
    return nb


def _setup_cells(name: str, public_tests: dict[str, str]) -> list:
    install = nbformat.v4.new_code_cell(install_cell_source())
    install.metadata["tags"] = [INSTALL_TAG, "remove-cell"]
    setup = nbformat.v4.new_code_cell(setup_cell_source(name, public_tests))
    setup.metadata["tags"] = [SETUP_TAG, "remove-cell"]
    return [install, setup]


def _is_check_cell(cell) -> bool:
    return (
        cell.cell_type == "code"
        and re.fullmatch(r"\s*(grader\.check\([^)]*\)\s*)+", cell.source) is not None
    )


def practice_note_cell(name: str):
    return nbformat.v4.new_markdown_cell(PRACTICE_NOTE.format(**launch_links(name)))


def student_notebook(result: Path, name: str) -> str:
    nb = nbformat.read(result / "student" / f"{name}.ipynb", as_version=4)
    public = {p.name: p.read_text() for p in sorted((result / "student" / "tests").glob("*.py"))}
    cells = list(nb.cells)
    # the note goes right after the title (and intro) cell, before the first grader.check
    title = next(
        (i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("# ")),
        -1,
    )
    cells.insert(title + 1, practice_note_cell(name))
    nb.cells = _setup_cells(name, public) + cells
    nb.metadata["otter"] = {"assignment_name": name}
    return nbformat.writes(_clean(nb, name)) + "\n"


def _relink(markdown: str) -> str:
    """Rewrite relative links of a page in exercises/ for the same page in exercises/solutions/."""

    def fix(m: re.Match) -> str:
        target = m.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", target):
            return m.group(0)
        return (
            f"{m.group(1)}("
            f"{posixpath.relpath(posixpath.join('exercises', target), 'exercises/solutions')})"
        )

    return re.sub(r"(\]\s*)\(([^)\s]+)\)", fix, markdown)


SOLUTION_MARKER = re.compile(r"^\s*#\s*(BEGIN|END)\s+SOLUTION(\s+NO\s+PROMPT)?\s*$", re.I)


def solution_code(source: str) -> str:
    """A solution cell as a reader wants it: no otter markers, and no `x = ...` prompt line where
    a 'NO PROMPT' solution block assigns x."""
    lines = source.splitlines()
    answered, inside = set(), False
    for line in lines:
        m = SOLUTION_MARKER.match(line)
        if m:
            inside = m.group(1).upper() == "BEGIN" and bool(m.group(2))
        elif inside:
            a = re.match(r"\s*([A-Za-z_]\w*)\s*=", line)
            if a:
                answered.add(a.group(1))
    kept = []
    for line in lines:
        if SOLUTION_MARKER.match(line):
            continue
        p = re.match(r"\s*([A-Za-z_]\w*)\s*=\s*\.\.\.\s*(#.*)?$", line)
        if p and p.group(1) in answered:
            continue
        kept.append(line)
    return "\n".join(kept).strip("\n")


def question_label(question: str) -> str:
    m = re.fullmatch(r"q(\d+)", question or "")
    return f"question {m.group(1)}" if m else (question or "this question")


def solution_questions(cells: list) -> dict[int, str]:
    """{index of a solution code cell: its question}: the question of the grader.check cell after
    it."""
    found, question = {}, None
    for i in reversed(range(len(cells))):
        cell = cells[i]
        if _is_check_cell(cell):
            question = re.search(r'grader\.check\("([^"]+)"\)', cell.source).group(1)
        elif cell.cell_type == "code" and SOLUTION_TAG in cell.metadata.get("tags", []):
            found[i] = question
    return found


def solutions_notebook(result: Path, name: str, whys: dict[str, list] | None = None) -> str:
    nb = nbformat.read(result / "autograder" / f"{name}.ipynb", as_version=4)
    whys = whys or {}
    questions = solution_questions(nb.cells)
    last = {q: i for i, q in sorted(questions.items())}  # the last solution cell of each question
    parts = {q: sum(1 for x in questions.values() if x == q) for q in set(questions.values())}
    seen: dict[str, int] = {}
    cells = []
    title = name
    for i, cell in enumerate(nb.cells):
        if _is_check_cell(cell):
            continue
        if cell.cell_type == "markdown":
            cell.source = _relink(cell.source)
            if cell.source.startswith("# ") and title == name:
                first, _, rest = cell.source.partition("\n")
                title = first[2:].strip()
                heading = re.sub(r"^Exercise\b", "Solutions to exercise", title)
                if heading == title:
                    heading = f"Solutions: {title}"
                cell.source = (
                    f"# {heading}\n\n"
                    + SOLUTIONS_NOTE.format(title=title, student=f"../{name}.ipynb")
                    + (f"\n{rest}" if rest.strip() else "")
                )
        if cell.cell_type == "code":
            cell.source = solution_code(cell.source)
            tags = [t for t in cell.metadata.get("tags", []) if not t.startswith("otter_")]
            if i in questions:
                # a solution: collapsed, with a label that names its question
                q = questions[i]
                seen[q] = seen.get(q, 0) + 1
                what = f"the solution to {question_label(q)}"
                if parts[q] > 1:
                    what += f" (part {seen[q]} of {parts[q]})"
                tags.append("hide-input")
                cell.metadata["mystnb"] = {
                    "code_prompt_show": f"Show {what}",
                    "code_prompt_hide": f"Hide {what}",
                }
            if tags:
                cell.metadata["tags"] = tags
            else:
                cell.metadata.pop("tags", None)
        for key in ("deletable", "editable"):
            cell.metadata.pop(key, None)
        cells.append(cell)
        if i in questions and last[questions[i]] == i:
            cells.extend(nbformat.from_dict(copy.deepcopy(w)) for w in whys.get(questions[i], []))
    install = nbformat.v4.new_code_cell(install_cell_source())
    install.metadata["tags"] = [INSTALL_TAG, "remove-cell"]
    nb.cells = [install] + cells
    nb.metadata.pop("otter", None)
    nb = execute_solutions(_clean(nb, name))
    return nbformat.writes(nb) + "\n"


def execute_solutions(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Run the solutions top to bottom in a fresh kernel, in an empty folder, and keep the outputs,
    so the page shows what each solution prints. The install cell is not run (the course's
    environment has what it installs). Deterministic: the masters seed what is random and print
    rounded values; no timings are recorded."""
    from nbclient import NotebookClient

    runnable = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and INSTALL_TAG not in c.metadata.get("tags", [])
    ]
    run = nbformat.from_dict(copy.deepcopy(nb))
    run.cells = [run.cells[i] for i in runnable]
    with tempfile.TemporaryDirectory(prefix="solutions-") as tmp:
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        client = NotebookClient(
            run,
            timeout=300,
            kernel_name="python3",
            record_timing=False,
            resources={"metadata": {"path": tmp}},
        )
        client.execute(env=env, stderr=subprocess.DEVNULL)  # not its start-up warnings
    for i, cell in zip(runnable, run.cells):
        nb.cells[i].outputs = _merged_streams(cell.outputs)
        nb.cells[i].execution_count = cell.execution_count
        nb.cells[i].metadata.pop("execution", None)
    return nb


def _merged_streams(outputs: list) -> list:
    """Consecutive stdout (or stderr) outputs as one: how the kernel splits a cell's printing
    depends on timing, so the file would differ from run to run."""
    merged = []
    for out in outputs:
        if (
            out.output_type == "stream"
            and merged
            and merged[-1].output_type == "stream"
            and merged[-1].name == out.name
        ):
            merged[-1].text += out.text
        else:
            merged.append(out)
    return merged


def autograder_zip(result: Path, name: str) -> bytes:
    """The bundle otter run needs (otter_config.json and tests/), zipped with sorted entries and
    fixed dates.

    otter assign's zip also carries Gradescope's container setup (setup.sh, environment.yml,
    run_autograder); the course grades without containers, so they are left out."""
    zips = sorted((result / "autograder").glob(f"{name}-autograder_*.zip"))
    if len(zips) != 1:
        raise SystemExit(f"{name}: otter assign wrote {len(zips)} autograder zips")
    with zipfile.ZipFile(zips[0]) as zf:
        entries = {
            n: zf.read(n)
            for n in zf.namelist()
            if n == "otter_config.json" or n.startswith(("tests/", "files/"))
        }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
        for entry in sorted(entries):
            info = zipfile.ZipInfo(entry, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            out.writestr(info, entries[entry])
    return buf.getvalue()


def generate(path: Path) -> dict[Path, bytes]:
    """Every file generated from one master, as {path: bytes}."""
    name = path.stem
    whys = why_cells(nbformat.read(path, as_version=4))
    with tempfile.TemporaryDirectory(prefix=f"assign-{name}-") as tmp:
        result = run_otter_assign(path, Path(tmp))
        return {
            EXERCISES / f"{name}.ipynb": student_notebook(result, name).encode(),
            AUTOGRADER / f"{name}.zip": autograder_zip(result, name),
            SOLUTIONS / f"{name}.ipynb": solutions_notebook(result, name, whys).encode(),
        }


# ---------------------------------------------------------------------------------------------


def assign(check: bool, only: list[str] | None = None) -> int:
    paths = masters()
    if only:
        paths = [p for p in paths if p.stem in only or p.name in only]
    if not paths and not only:
        print("no masters in exercises/masters/")
    manifest = None
    if not only:
        # the masters present must be the exercises course.yml names: _toc.yml's Practice and
        # Solutions parts list those (before any otter assign runs, so a mismatch fails at once)
        manifest = course.load_course()
        present = sorted(p.stem for p in paths)
        if sorted(manifest.exercises) != present:
            raise SystemExit(
                f"course.yml names the exercises {sorted(manifest.exercises)}, exercises/masters/ "
                f"holds {present}: give each master's chapter in course.yml its `exercise:` "
                "(or remove the master), then run tools/course.py sync"
            )
    wanted: dict[Path, bytes] = {}
    for path in paths:
        wanted.update(generate(path))
    if manifest is not None:
        # generated files whose master is gone
        names = {p.stem for p in paths}
        for folder, ext in ((EXERCISES, ".ipynb"), (AUTOGRADER, ".zip"), (SOLUTIONS, ".ipynb")):
            for stale in folder.glob(f"ex[0-9][0-9]_*{ext}"):
                if stale.stem not in names:
                    wanted[stale] = b""
        # _toc.yml as tools/course.py writes it (one generator: course.toc_text)
        wanted[TOC] = course.toc_text(manifest).encode()

    changed = []
    for target, data in wanted.items():
        old = target.read_bytes() if target.exists() else None
        if data == b"" and old is not None:
            changed.append((target, old, data))
        elif data != b"" and old != data:
            changed.append((target, old, data))
    for target, old, data in changed:
        rel = target.relative_to(ROOT)
        if check:
            print(f"would change: {rel}")
            if target.suffix in (".ipynb", ".yml") and old is not None:
                diff = difflib.unified_diff(
                    old.decode().splitlines(), data.decode().splitlines(), lineterm="", n=1
                )
                print("\n".join(list(diff)[:40]))
        elif data == b"":
            target.unlink()
            print(f"removed: {rel} (its master is gone)")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            print(f"wrote: {rel}")
    if check and changed:
        print("run: python tools/exercises.py assign", file=sys.stderr)
        return 1
    if not changed:
        print(f"up to date: {len(paths)} exercise(s)")
    return 0


def private_autograders(masters_dir: Path, out: Path) -> int:
    """Autograder zips from an instructor's private masters (same format as exercises/masters/),
    written to ``out`` only: nothing of the repository changes. Grade with them:
    ``tools/grade.py SUBMISSIONS --autograder OUT``."""
    paths = sorted(p for p in masters_dir.glob("ex[0-9][0-9]_*.ipynb") if NAME_RE.match(p.stem))
    if not paths:
        raise SystemExit(f"no masters exNN_topic.ipynb in {masters_dir}")
    out.mkdir(parents=True, exist_ok=True)
    for path in paths:
        with tempfile.TemporaryDirectory(prefix=f"assign-{path.stem}-") as tmp:
            result = run_otter_assign(path, Path(tmp))
            (out / f"{path.stem}.zip").write_bytes(autograder_zip(result, path.stem))
        print(f"wrote: {out / path.stem}.zip")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "assign", help="regenerate student notebooks, autograder zips, solutions and _toc.yml"
    )
    p.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if anything would change"
    )
    p.add_argument(
        "names",
        nargs="*",
        help="only these exercises (e.g. ex02_embeddings); default: every master",
    )
    p = sub.add_parser(
        "autograder", help="autograder zips from a private folder of masters, into --out only"
    )
    p.add_argument("masters", type=Path, help="a folder of private masters exNN_topic.ipynb")
    p.add_argument(
        "--out", type=Path, required=True, help="where to write exNN_topic.zip (keep it private)"
    )
    args = parser.parse_args(argv)
    if args.command == "autograder":
        return private_autograders(args.masters.resolve(), args.out.resolve())
    os.chdir(ROOT)
    return assign(args.check, args.names or None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
