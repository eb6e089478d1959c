"""Seconds to execute each chapter notebook, and to build the book, side by side.

    .venv/bin/python benchmarks/chapter_times.py [--build] [NOTEBOOK ...]

Each chapter runs top to bottom in a fresh kernel (as nbval does in the tests),
outputs discarded (name NOTEBOOKs to time only those). Each chapter's budget on
2 CPU cores is its budget_s in course.yml: 60 s for every chapter (issue 33);
the last column is the time as a fraction of that budget. This is a figure, not a test:
the machine is shared, so read the ratios, not the digits.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import course  # noqa: E402  (course.yml)

BUDGET_S = 60.0  # anything course.yml gives no budget (a notebook it does not list)
COURSE = course.load_course()
BUDGETS_S = COURSE.budgets()  # {NN_topic.ipynb: seconds}, each chapter's budget_s


def budget(name: str) -> float:
    """Seconds a chapter may take on 2 CPU cores."""
    return BUDGETS_S.get(name, BUDGET_S)


def run_notebook(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def chapter_rows(paths=None) -> list[tuple[str, float]]:
    """(notebook name, seconds) for each chapter of course.yml (or each of ``paths``), each run in
    a fresh kernel."""
    if paths:
        paths = [Path(p).resolve() for p in paths]
    else:  # course.yml's chapters, in reading order
        paths = [ROOT / f"{ch.file}.ipynb" for ch in COURSE.chapters]
    return [(path.name, run_notebook(path)) for path in paths]


def book_build() -> float:
    """Seconds to build the book with -W into a temporary folder."""
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run(
            [
                str(Path(sys.executable).parent / "jupyter-book"),
                "build",
                str(ROOT),
                "--path-output",
                out,
                "--warningiserror",
                "--keep-going",
                "--quiet",
            ],
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--build", action="store_true", help="also time a full book build (into a temporary folder)"
    )
    parser.add_argument("notebooks", nargs="*", help="time only these chapter notebooks")
    args = parser.parse_args()
    rows = chapter_rows(args.notebooks) + (
        [("book build (all pages)", book_build())] if args.build else []
    )
    width = max(len(name) for name, _ in rows)
    print(f"{'what':<{width}}  {'seconds':>8}  {'budget s':>8}  {'of budget':>9}")
    for name, seconds in rows:
        print(
            f"{name:<{width}}  {seconds:8.1f}  {budget(name):8.0f}  {seconds / budget(name):9.2f}"
        )
    worst_name, worst = max(
        ((n, s / budget(n)) for n, s in rows if n.endswith(".ipynb")), key=lambda r: r[1]
    )
    print(f"closest to its budget: {worst_name}, {worst:.2f} of it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
