"""Seconds to grade one submission, and a folder of 30, with the instructor's command.

    .venv/bin/python benchmarks/grading_times.py [--exercise ex02_embeddings ...] [--copies 30]
        [--jobs 2]

Runs `tools/grade.py` as an instructor would (a fresh checker process per submission, and its
kernel in the bubblewrap sandbox, with their time and memory limits) on each exercise's worked
solutions: once on one copy, then on a folder of N copies with --jobs parallel graders. Prints
seconds per submission (wall time of the batch / N) next to the figures of the grader before the
sandbox (issue 11: 2.1 s for ex02, 3.7 s for ex08, one submission) and the aim of 5 s. Also
prints the load average: a figure, not a test; the machine is shared, so read the ratios, not
the digits.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_S = 10.0  # the course's goal per submission on 2 cores (benchmarks/run_all.py)
AIM_S = 5.0  # issue 11's aim with the sandbox
BEFORE_SANDBOX_S = {
    "ex02_embeddings": 2.1,
    "ex08_transformer_block": 3.7,
}  # one submission, old grader


def grade(paths: list[Path], out: Path, jobs: int) -> float:
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "grade.py"),
            *map(str, paths),
            "--out",
            str(out),
            "--jobs",
            str(jobs),
            "--quiet",
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    return time.perf_counter() - start


def grading_rows(
    solution: Path, exercise: str, copies: int, jobs: int
) -> list[tuple[str, int, float]]:
    """(what, submissions, seconds): one copy of ``solution`` graded alone, then a folder of
    ``copies``."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        one = tmp / "one" / f"{exercise}.ipynb"
        one.parent.mkdir()
        shutil.copy(solution, one)
        seconds = grade([one], tmp / "out-one", 1)
        rows.append(("one submission", 1, seconds))
        folder = tmp / "folder"
        folder.mkdir()
        for i in range(copies):
            shutil.copy(solution, folder / f"{exercise}_student{i:02d}.ipynb")
        seconds = grade([folder], tmp / "out-folder", jobs)
        rows.append((f"a folder of {copies} (--jobs {jobs})", copies, seconds))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--exercise",
        nargs="+",
        default=["ex02_embeddings", "ex08_transformer_block"],
        help="whose solutions to grade (default ex02_embeddings ex08_transformer_block)",
    )
    parser.add_argument(
        "--copies", type=int, default=30, help="submissions in the folder (default 30)"
    )
    parser.add_argument(
        "--jobs", type=int, default=2, help="parallel graders (default 2, the course's 2 cores)"
    )
    args = parser.parse_args()
    print(
        f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} "
        "cores"
    )
    print(
        f"{'exercise':<24}  {'what':<28}  {'seconds':>8}  {'per submission':>14}  "
        f"{'before sandbox':>14}  {'of 5 s aim':>10}"
    )
    for exercise in args.exercise:
        solution = ROOT / "exercises" / "solutions" / f"{exercise}.ipynb"
        if not solution.is_file():
            print(f"no such exercise: {solution}", file=sys.stderr)
            return 2
        for what, n, seconds in grading_rows(solution, exercise, args.copies, args.jobs):
            before = BEFORE_SANDBOX_S.get(exercise) if n == 1 else None
            print(
                f"{exercise:<24}  {what:<28}  {seconds:8.1f}  {seconds / n:14.2f}  "
                f"{(f'{before:.1f}' if before else '-'):>14}  {seconds / n / AIM_S:10.2f}"
            )
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
