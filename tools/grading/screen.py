"""Which cells of a submitted notebook run: all its code, but for a short list of exceptions.

With the kernel in an operating-system sandbox and every check made outside it, nothing a cell
does can raise its grade, so the grader no longer refuses code for what it uses (``exec``,
``getattr``, ``import operator``, ``from math import *``, cell magics such as ``%%time``: all
run). What is still not run, each listed in exercises/README.md and named in the report:

1. the course's two setup cells (they install packages and write the public tests; the grader
   brings its own tests and needs neither), recognised by their first line;
2. cells that are only ``grader.check(...)`` calls (otter's public checks, which the grader's
   own tests replace);
3. a cell that is not Python (a syntax error): the report gives its line; the other cells run;
4. ``%matplotlib`` lines (a display setting; figures are not graded).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

# How the course's two setup cells of an exercise notebook start, written here only: the install
# cell (tools/notebooks.py's install templates, chapters' and exercises' alike, start with
# INSTALL_MARKER) and the cell that writes the public tests (tools/exercises.py builds its template
# from SETUP_MARKER). The grader never runs a cell that starts with either.
INSTALL_MARKER = "# Colab, Binder or a fresh Jupyter: install"
SETUP_MARKER = "# Check your answers in place:"
SETUP_MARKERS = (INSTALL_MARKER, SETUP_MARKER)
MAX_NOTEBOOK = 64 << 20  # bytes: a bigger file is not read
CHECK_CELL = re.compile(r"(grader\.(check|check_all|export)\([^()]*\)\s*;?\s*)+")


@dataclass
class Cell:
    number: int  # 1-based position in the notebook (markdown cells count)
    source: str  # what the kernel runs
    first_line: str

    def label(self) -> str:
        return f'cell {self.number} ("{self.first_line[:50]}")'


def interactive_python(source: str) -> str:
    """The Python a notebook cell runs (IPython's magics and shell escapes turned into calls)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def why_not_run(source: str) -> str | None:
    """Why this cell cannot run (None if it can): only when it is not Python."""
    try:
        ast.parse(interactive_python(source))
    except SyntaxError as e:
        return f"has a syntax error (line {e.lineno}: {e.msg})"
    except Exception as e:  # IPython could not transform it
        return f"could not be read as Python ({type(e).__name__}: {e})"
    return None


def without_matplotlib_magic(source: str) -> str:
    return "\n".join(
        line for line in source.splitlines() if not line.lstrip().startswith("%matplotlib")
    )


class NotANotebook(Exception):
    """A submission that is not a notebook the grader reads (its message quotes nothing of it)."""


def why_unreadable(e: Exception) -> str:
    """Why a submission could not be read, without a word of its content: the errors of json
    and nbformat quote the file (a private file behind a link would be copied into the report)."""
    import json

    if isinstance(e, NotANotebook):
        return str(e)
    if isinstance(e, UnicodeDecodeError):
        return "it is not text (UTF-8)"
    if isinstance(e, json.JSONDecodeError):
        return f"it is not JSON (line {e.lineno}, column {e.colno})"
    if isinstance(e, OSError):
        return f"it cannot be opened ({e.strerror or type(e).__name__})"
    name = type(e).__name__
    if name == "NotJSONError" or isinstance(e, ValueError) and "JSON" in str(e)[:200]:
        return "it is not JSON (a notebook is a JSON file)"
    return f"it is not a notebook in nbformat 4 ({name})"


def notebook_cells(path: Path) -> tuple[list[Cell], list[str], str | None]:
    """The code cells to run, the problems found while reading them, and the notebook's
    assignment name (from its otter metadata, if any)."""
    import nbformat

    if not path.is_file() or path.is_symlink():
        raise NotANotebook("it is not a regular file")
    if path.stat().st_size > MAX_NOTEBOOK:
        raise NotANotebook(f"it is larger than {MAX_NOTEBOOK >> 20} MB")
    nb = nbformat.read(path, as_version=4)
    if not isinstance(nb.get("cells"), list):
        raise NotANotebook("it has no list of cells")
    name = (nb.metadata.get("otter") or {}).get("assignment_name")
    cells, problems = [], []
    for i, c in enumerate(nb.cells, start=1):
        if c.get("cell_type") != "code":
            continue
        src = c.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        stripped = src.strip()
        if not stripped or stripped.startswith(SETUP_MARKERS) or CHECK_CELL.fullmatch(stripped):
            continue
        first = next((line.strip() for line in src.splitlines() if line.strip()), "")
        cell = Cell(i, without_matplotlib_magic(src), first)
        why = why_not_run(cell.source)
        if why is None:
            cells.append(cell)
        else:
            problems.append(f"{cell.label()} {why}: it was not run")
    return cells, problems, name if isinstance(name, str) else None
