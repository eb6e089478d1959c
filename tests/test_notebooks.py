"""The chapter notebooks are in the shape the course promises (see CONTRIBUTING.md)."""

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import notebooks as nbtools  # noqa: E402

TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
TOC_FILES = [ch["file"] for part in TOC["parts"] for ch in part["chapters"]]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


def test_every_chapter_notebook_is_in_the_table_of_contents():
    assert NOTEBOOKS, "no chapter notebooks found"
    listed = {f + ".ipynb" for f in TOC_FILES}
    for path in NOTEBOOKS:
        assert str(path.relative_to(ROOT)) in listed, f"{path.name} is not in _toc.yml"
    for f in TOC_FILES:
        assert any((ROOT / (f + ext)).is_file() for ext in (".ipynb", ".md")), (
            f"_toc.yml lists {f}, which does not exist"
        )


def test_first_cells_are_in_sync_with_config():
    """`tools/notebooks.py check` must report nothing to change (nbdev-style drift check)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "notebooks.py"), "check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_install_cell_installs_from_the_configured_repository():
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    source = nbtools.install_cell_source()
    assert f"git+{url}" in source and "TUTORLIB_SOURCE" in source
    from IPython.core.inputtransformer2 import TransformerManager

    compile(
        TransformerManager().transform_cell(source), "install-cell", "exec"
    )  # it holds %config lines
    assert 'figure_formats = ["svg"]' in source, "the book's figures are SVG (sharp on any screen)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_executed_and_clean(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    first = nb.cells[0]
    assert first.cell_type == "code" and nbtools.INSTALL_TAG in first.metadata.get("tags", [])
    code = [c for c in nb.cells[1:] if c.cell_type == "code" and c.source.strip()]
    assert code, "a chapter without code"
    counts = [c.execution_count for c in code]
    assert None not in counts, "some cells were never run: run the notebook top to bottom"
    assert counts == sorted(counts), "execution counts out of order: run the notebook top to bottom"
    for c in code:
        for out in c.outputs:
            assert out.output_type != "error", f"a committed output is an error: {out.get('ename')}"
            text = out.get("text", "") + json.dumps(out.get("data", {}))
            assert "Traceback" not in text, "a committed output shows a traceback"
            assert out.get("name") != "stderr", (
                f"a committed output has stderr text: {out.get('text', '')[:200]}"
            )
    titles = [
        c.source.splitlines()[0]
        for c in nb.cells
        if c.cell_type == "markdown" and c.source.startswith("# ")
    ]
    assert len(titles) == 1, f"one '# ' title per chapter, found {titles}"


CODE_COLUMN = 88  # characters: the width of the book's code column at 1366 px


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_lines_fit_the_code_column(path):
    """Past 88 characters a line is cut off in the book (the hidden part is usually the shape
    comment)."""
    nb = nbformat.read(path, as_version=4)
    long = [
        f"cell {i}: {line[:60]}... ({len(line)} characters)"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and nbtools.INSTALL_TAG not in cell.metadata.get("tags", [])
        for line in cell.source.splitlines()
        if len(line) > CODE_COLUMN
    ]
    assert not long, f"{len(long)} code lines longer than {CODE_COLUMN} characters:\n" + "\n".join(
        long
    )


EXERCISES = {f.split("/")[-1][:4]: f for f in TOC_FILES if f.startswith("exercises/ex")}


WITH_EXERCISE = [p for p in NOTEBOOKS if f"ex{p.name[:2]}" in EXERCISES]


def test_chapters_with_exercises_are_found():
    assert len(WITH_EXERCISE) == len(EXERCISES) >= 7, (WITH_EXERCISE, EXERCISES)


@pytest.mark.parametrize("path", WITH_EXERCISE, ids=lambda p: p.name)
def test_a_chapter_with_an_exercise_ends_by_linking_to_it(path):
    """Practice one click away: the chapter's last cell links to its exercise and its solutions."""
    exercise = EXERCISES[f"ex{path.name[:2]}"]
    nb = nbformat.read(path, as_version=4)
    last = nb.cells[-1]
    name = exercise.split("/")[-1]
    assert last.cell_type == "markdown", "the chapter should end with its Practice section"
    assert f"../exercises/{name}.ipynb" in last.source, f"the last cell does not link to {exercise}"
    assert f"../exercises/solutions/{name}.ipynb" in last.source, (
        "the last cell does not link to the solutions"
    )


# --- outputs that hold on every CPU (CONTRIBUTING.md; the tags are read by ../conftest.py) -----


def _project_conftest():
    """The root conftest.py (tests/conftest.py shadows its module name)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("project_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


UNCOMPARED_TAGS = _project_conftest().UNCOMPARED_TAGS


def _code_without_magics(source: str) -> str:
    return "\n".join(
        line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))
    )


def _asserts(source: str) -> int:
    import ast

    return sum(
        isinstance(node, ast.Assert) for node in ast.walk(ast.parse(_code_without_magics(source)))
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_trained_cell_asserts_its_claim(path):
    """A ``trained`` cell's digits are not compared, so the cell itself must check what the prose
    says of it, with a margin that holds on every CPU: without an assert, a broken training would
    pass."""
    nb = nbformat.read(path, as_version=4)
    silent = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        and {"trained", "versioned"} & set(c.metadata.get("tags", []))
        and not _asserts(c.source)
    ]
    assert not silent, f"cells {silent} are tagged 'trained' or 'versioned' but assert nothing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_left_uncompared_say_why(path):
    """Only the two documented tags take a cell out of nbval's comparison; a bare
    NBVAL_IGNORE_OUTPUT comment or nbval tag would hide a cell without saying why (and shows as
    noise in the book)."""
    nb = nbformat.read(path, as_version=4)
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code":
            continue
        tags = set(c.metadata.get("tags", []))
        assert "NBVAL_IGNORE_OUTPUT" not in c.source and "NBVAL_SKIP" not in c.source, (
            f"cell {i}: use the tag 'trained' or 'measured' instead of an nbval comment"
        )
        assert not {t for t in tags if t.startswith("nbval-")}, (
            f"cell {i}: use the tag 'trained' or 'measured' instead of nbval's own tags"
        )
        assert len(tags & set(UNCOMPARED_TAGS)) <= 1, f"cell {i}: one reason is enough"


PIN_VARIABLES = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")


def test_nothing_pins_the_cpu_kernels():
    """A pinned kernel set would make the committed outputs hold on one kind of CPU only, and hide
    that from the tests. Only tools/kernels.py names the variable: it runs nbval under each kernel
    set."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    if not tracked:  # not a git checkout: every file under the root
        tracked = [
            str(p.relative_to(ROOT))
            for p in ROOT.rglob("*")
            if p.is_file() and ".venv" not in p.parts
        ]
    allowed = {"tools/kernels.py", "tests/test_notebooks.py", "CONTRIBUTING.md", "README.md"}
    pins = []
    for name in tracked:
        path = ROOT / name
        if name in allowed or path.suffix in {".pt", ".zip", ".png", ".xlsx"} or not path.is_file():
            continue
        text = path.read_text(errors="ignore")
        pins += [f"{name}: {v}" for v in PIN_VARIABLES if v in text]
    assert not pins, f"these files set or name a CPU kernel pin: {pins}"


def test_tools_kernels_runs_every_kernel_set_of_the_cpu():
    import kernels

    assert kernels.kernel_sets("avx512") == ["default", "avx2", "avx512"]
    assert kernels.kernel_sets("avx2") == ["default", "avx2"]
    assert kernels.kernel_sets("default") == ["default"]
    assert kernels.kernel_sets("sve256") == ["default", "sve256"]
    assert kernels.native_capability() in {"default", "avx2", "avx512", "sve256", "zvector", "vsx"}


@pytest.mark.parametrize(
    "tag, outcome",
    [("trained", "passed"), ("measured", "passed"), ("versioned", "passed"), (None, "failed")],
)
def test_the_tags_take_a_cell_out_of_nbvals_comparison(pytester, tag, outcome):
    """The tags work through conftest.py's hook: a cell whose committed output is wrong passes nbval
    when it is tagged, and fails when it is not (the proof that an untagged cell is still
    compared)."""
    cell = nbformat.v4.new_code_cell(
        "print(1 + 1)",
        execution_count=1,
        outputs=[nbformat.v4.new_output("stream", name="stdout", text="3\n")],
    )
    if tag:
        cell.metadata["tags"] = [tag]
    nb = nbformat.v4.new_notebook(cells=[cell])
    nbformat.write(nb, pytester.path / "probe.ipynb")
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    result = pytester.runpytest_subprocess(
        "--nbval", "--nbval-current-env", "-p", "no:cacheprovider", "probe.ipynb"
    )
    result.assert_outcomes(**{outcome: 1})


def test_a_failing_assert_in_a_trained_cell_still_fails_nbval(pytester):
    cell = nbformat.v4.new_code_cell(
        "final_loss = 0.5\nassert final_loss < 0.1, final_loss",
        execution_count=1,
        metadata={"tags": ["trained"]},
    )
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), pytester.path / "probe.ipynb")
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    result = pytester.runpytest_subprocess(
        "--nbval", "--nbval-current-env", "-p", "no:cacheprovider", "probe.ipynb"
    )
    result.assert_outcomes(failed=1)


def _run_probe(pytester, source):
    cell = nbformat.v4.new_code_cell(source, execution_count=1, metadata={"tags": ["measured"]})
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), pytester.path / "probe.ipynb")
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    return pytester.runpytest_subprocess(
        "--nbval", "--nbval-current-env", "-p", "no:cacheprovider", "probe.ipynb"
    )


@pytest.mark.slow  # a kernel per probe
def test_a_cell_that_sends_too_many_messages_fails_before_a_slow_machine_loses_them(pytester):
    """A display redrawn 400 times is still read whole here, but conftest.py fails it: on a
    machine a few times slower a clock-driven bar would send several times as many."""
    result = _run_probe(
        pytester,
        "from IPython.display import Pretty, display\n"
        "handle = display(Pretty('0'), display_id=True)\n"
        "for i in range(400):\n"
        "    handle.update(Pretty(str(i)))",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*kernel messages, more than 250*"])


@pytest.mark.slow  # a kernel per probe
def test_a_progress_line_sends_as_many_messages_on_a_slow_machine(pytester):
    """tutorlib.display.Progress over 100,000 steps, with a clock that runs 1,000 times slower than
    the real one (every step "takes" a second): 25 redraws and the last, in one display."""
    result = _run_probe(
        pytester,
        "import time\n"
        "from tutorlib.display import Progress\n"
        "real = time.perf_counter\n"
        "time.perf_counter = lambda: 1000 * real()\n"
        "bar = Progress(100_000, desc='slow')\n"
        "for step in range(100_000):\n"
        "    bar.update(loss=f'{step:.3f}')\n"
        "bar.close()\n"
        "assert bar.redrawn == 26, bar.redrawn",
    )
    result.assert_outcomes(passed=1)
