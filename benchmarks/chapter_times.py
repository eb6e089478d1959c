"""Seconds to execute each chapter notebook, and to build the book, side by side.

    .venv/bin/python benchmarks/chapter_times.py [--build]

Each chapter runs top to bottom in a fresh kernel (as nbval does in the tests),
outputs discarded. The goal is under 60 s a chapter on 2 CPU cores; the last
column is the time as a fraction of that budget. This is a figure, not a test:
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
BUDGET_S = 60.0


def run_notebook(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def chapter_rows() -> list[tuple[str, float]]:
    """(notebook name, seconds) for each chapter, each run in a fresh kernel."""
    return [(path.name, run_notebook(path)) for path in sorted((ROOT / "chapters").glob("*.ipynb"))]


def book_build() -> float:
    """Seconds to build the book with -W into a temporary folder."""
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", str(ROOT), "--path-output", out,
                        "--warningiserror", "--keep-going", "--quiet"], check=True, capture_output=True)
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="also time a full book build (into a temporary folder)")
    args = parser.parse_args()
    rows = chapter_rows() + ([("book build (all pages)", book_build())] if args.build else [])
    width = max(len(name) for name, _ in rows)
    print(f"{'what':<{width}}  {'seconds':>8}  {'of 60 s budget':>14}")
    for name, seconds in rows:
        print(f"{name:<{width}}  {seconds:8.1f}  {seconds / BUDGET_S:14.2f}")
    worst = max(s for n, s in rows if n.endswith(".ipynb"))
    print(f"slowest chapter: {worst:.1f} s = {worst / BUDGET_S:.2f} of the budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
