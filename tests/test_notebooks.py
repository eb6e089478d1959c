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
        assert any((ROOT / (f + ext)).is_file() for ext in (".ipynb", ".md")), f"_toc.yml lists {f}, which does not exist"


def test_first_cells_are_in_sync_with_config():
    """`tools/notebooks.py check` must report nothing to change (nbdev-style drift check)."""
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "notebooks.py"), "check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_install_cell_installs_from_the_configured_repository():
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    source = nbtools.install_cell_source()
    assert f"git+{url}" in source and "TUTORLIB_SOURCE" in source
    from IPython.core.inputtransformer2 import TransformerManager

    compile(TransformerManager().transform_cell(source), "install-cell", "exec")  # it holds %config lines
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
            assert out.get("name") != "stderr", f"a committed output has stderr text: {out.get('text', '')[:200]}"
    titles = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("# ")]
    assert len(titles) == 1, f"one '# ' title per chapter, found {titles}"


CODE_COLUMN = 88  # characters: the width of the book's code column at 1366 px


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_lines_fit_the_code_column(path):
    """Past 88 characters a line is cut off in the book (the hidden part is usually the shape comment)."""
    nb = nbformat.read(path, as_version=4)
    long = [f"cell {i}: {line[:60]}... ({len(line)} characters)"
            for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and nbtools.INSTALL_TAG not in
            cell.metadata.get("tags", []) for line in cell.source.splitlines() if len(line) > CODE_COLUMN]
    assert not long, f"{len(long)} code lines longer than {CODE_COLUMN} characters:\n" + "\n".join(long)


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
    assert f"../exercises/solutions/{name}.ipynb" in last.source, "the last cell does not link to the solutions"
