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
    compile(source, "install-cell", "exec")


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
