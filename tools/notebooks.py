"""Keep the chapter notebooks in the shape the course promises.

    python tools/notebooks.py sync [NOTEBOOK ...]     rewrite each first cell from _config.yml
    python tools/notebooks.py check [NOTEBOOK ...]    fail if sync would change anything
    python tools/notebooks.py execute NOTEBOOK ...    run top to bottom, store outputs, sync

Without NOTEBOOK arguments, sync and check take every chapters/*.ipynb.

The first cell of every notebook installs tutorlib when it is missing (Colab,
a fresh Binder, any Jupyter), from the repository address in _config.yml, the
one place it is written. TUTORLIB_SOURCE overrides the address, e.g. with a
local checkout: TUTORLIB_SOURCE=/path/to/checkout.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
# The tag of every notebook's install cell (chapters, exercises, solutions), which the book hides.
INSTALL_TAG = "install-tutorlib"

INSTALL_TEMPLATE = """\
# Colab, Binder or a fresh Jupyter: install the course's helper package if it is missing.
# Set TUTORLIB_SOURCE to install from elsewhere, e.g. a local checkout of the course.
import importlib, importlib.util, os, subprocess, sys
if importlib.util.find_spec("tutorlib") is None:
    source = os.environ.get("TUTORLIB_SOURCE", "tutorlib @ git+{url}")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", source], check=True)
    importlib.invalidate_caches()
# Figures as SVG: sharp on any screen and at any zoom, with their words kept as text.
%config InlineBackend.figure_formats = ["svg"]
%config InlineBackend.print_figure_kwargs = {{"bbox_inches": "tight", "metadata": {{"Date": None}}}}
import matplotlib as mpl
mpl.rcParams.update({{"svg.fonttype": "none", "svg.hashsalt": "attention", "font.size": 11}})"""

# The exercises' install cell (student and solution notebooks, tools/exercises.py): tutorlib and
# the otter-grader version the course pins. tools/grading/screen.py skips a cell that starts with
# its first line.
EXERCISE_INSTALL_TEMPLATE = """\
# Colab, Binder or a fresh Jupyter: install tutorlib and otter-grader if missing.
# Set TUTORLIB_SOURCE to install tutorlib from elsewhere (e.g. a local checkout).
import importlib, importlib.util, os, subprocess, sys
REPOSITORY = "git+{url}"
missing = []
if importlib.util.find_spec("tutorlib") is None:
    missing.append(os.environ.get("TUTORLIB_SOURCE", f"tutorlib @ {{REPOSITORY}}"))
if importlib.util.find_spec("otter") is None:
    missing.append("otter-grader=={otter}")
if missing:
    pip = [sys.executable, "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, *missing], check=True)
    importlib.invalidate_caches()"""


def repository_url() -> str:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    return config["repository"]["url"].rstrip("/")


def install_cell_source(otter: str | None = None) -> str:
    """The first cell of a chapter, or, given the otter-grader version to pin, of an exercise."""
    if otter is None:
        return INSTALL_TEMPLATE.format(url=repository_url())
    return EXERCISE_INSTALL_TEMPLATE.format(url=repository_url(), otter=otter)


def chapter_notebooks() -> list[Path]:
    return sorted((ROOT / "chapters").glob("*.ipynb"))


def synced(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return a copy of ``nb`` whose first cell is the install cell and whose metadata is the
    course's."""
    nb = nbformat.from_dict(copy.deepcopy(nb))
    source = install_cell_source()
    first = nb.cells[0] if nb.cells else None
    if (
        first is not None
        and first.cell_type == "code"
        and INSTALL_TAG in first.metadata.get("tags", [])
    ):
        if first.source != source:
            first.source = source
    else:
        first = nbformat.v4.new_code_cell(source)
        nb.cells.insert(0, first)
    first.metadata["tags"] = [INSTALL_TAG, "remove-cell"]  # the rendered book does not show it
    first.outputs = []
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    nb.metadata.setdefault("language_info", {"name": "python"})
    nb.metadata.pop("colab", None)
    # No widget state: the book shows each explorer's static twin
    # (tutorlib/explorers/static.py), and a live kernel makes its own widgets.
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    return nb


def sync(paths: list[Path], check: bool) -> int:
    changed = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        new = synced(nb)
        if nbformat.writes(new) != nbformat.writes(nb):
            changed.append(path)
            if not check:
                nbformat.write(new, path)
    verb = "would change" if check else "changed"
    for path in changed:
        print(f"{verb}: {path.relative_to(ROOT)}")
    if check and changed:
        print("run: python tools/notebooks.py sync", file=sys.stderr)
        return 1
    return 0


def execute(paths: list[Path]) -> int:
    from nbclient import NotebookClient

    for path in paths:
        nb = synced(nbformat.read(path, as_version=4))
        client = NotebookClient(
            nb,
            timeout=600,
            kernel_name="python3",
            record_timing=False,
            store_widget_state=False,
            resources={"metadata": {"path": str(path.parent)}},
        )
        client.execute()
        nbformat.write(synced(nb), path)
        print(f"executed: {path.relative_to(ROOT)}")
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"sync", "check", "execute"}:
        print(__doc__, file=sys.stderr)
        return 2
    command, names = argv[0], argv[1:]
    paths = [Path(n).resolve() for n in names] or (
        chapter_notebooks() if command != "execute" else []
    )
    missing = [p for p in paths if not p.is_file()]
    if missing:
        print(f"no such notebook: {', '.join(str(p) for p in missing)}", file=sys.stderr)
        return 2
    if command == "execute":
        if not paths:
            print("execute needs at least one notebook", file=sys.stderr)
            return 2
        return execute(paths)
    return sync(paths, check=command == "check")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
