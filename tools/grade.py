"""Grade exercise submissions: one notebook, or a folder of them, without Docker.

    python tools/grade.py SUBMISSION.ipynb|FOLDER ... [--out DIR] [--jobs N] [--autograder DIR]

Each submission is graded against the tests of its exercise's autograder zip
(exercises/autograder/exNN_*.zip, the bundle ``otter assign`` writes and ``otter run -a`` reads;
``--autograder DIR`` reads them from a private folder instead). The exercise comes from the file
name (``exNN_...ipynb``), else from a parent folder named ``exNN...``, else from the notebook's
otter metadata; ``--exercise`` overrides all three. Writes ``DIR/<name>.json`` per submission
(points per question, the feedback of every failed test, what went wrong in the notebook) and
``DIR/summary.csv``, and prints a table. Default DIR: ``grades/`` in the current folder.

How a submission is graded (exercises/README.md has the full story; tools/grading/ the code):

1. Its code cells run in a fresh IPython kernel inside a bubblewrap sandbox: read-only system and
   virtualenv, a private scratch folder, no network, a private process namespace, limits on
   memory, file size and processes. A cell that raises is reported and the next one runs; one
   that hangs or kills the kernel is skipped (the kernel restarts and replays the cells before it).
2. The tests run in a separate checker process that never runs a line of the submission: the
   learner's functions are called through the pipe on fresh copies of the test's inputs, and only
   data comes back. The checker computes every reference, comparison and score itself.

Without bubblewrap (``apt-get install bubblewrap``) it refuses to run unless ``--no-sandbox`` is
given, and says what that loses.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grading import batch, checker, reports, sandbox  # noqa: E402

CELL_TIMEOUT = 20  # seconds per notebook cell, and per test case
SUBMISSION_TIMEOUT = 300  # seconds for one whole submission (all cells, restarts and tests)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        return checker.main(argv)
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("paths", nargs="+", help="submitted notebooks (.ipynb) and folders of them")
    p.add_argument(
        "--out", default="grades", help="folder for <name>.json and summary.csv (default: grades)"
    )
    p.add_argument(
        "--exercise", help="grade every submission as this exercise (exNN, exNN_topic or a zip)"
    )
    p.add_argument(
        "--autograder",
        default=str(batch.AUTOGRADER),
        help="folder of autograder zips, e.g. built from private masters (default: "
        "exercises/autograder)",
    )
    p.add_argument(
        "--jobs", type=int, default=min(2, os.cpu_count() or 1), help="submissions graded at once"
    )
    p.add_argument(
        "--timeout", type=float, default=SUBMISSION_TIMEOUT, help="seconds for one submission"
    )
    p.add_argument(
        "--cell-timeout", type=float, default=CELL_TIMEOUT, help="seconds for one cell or test"
    )
    p.add_argument(
        "--memory",
        type=int,
        default=sandbox.Limits.memory_mb,
        help="address-space limit of the submission's kernel in MB",
    )
    p.add_argument(
        "--checker-memory",
        type=int,
        default=checker.CHECKER_MEMORY_MB,
        help="address-space limit in MB of the process that runs the tests and reads the kernel's "
        "replies",
    )
    p.add_argument(
        "--no-sandbox",
        action="store_true",
        help="grade without bubblewrap (see what that loses in exercises/README.md)",
    )
    p.add_argument("--quiet", action="store_true", help="print only the table")
    opts = p.parse_args(argv)
    if not Path(opts.autograder).is_dir():
        p.error(f"--autograder {opts.autograder}: no such folder (expected a folder of exNN_*.zip)")
    if opts.no_sandbox:
        print(f"warning: --no-sandbox: {sandbox.LOST_WITHOUT_SANDBOX}", file=sys.stderr)
    elif sandbox.bwrap() is None:
        print(
            "tools/grade.py runs each submission in a bubblewrap sandbox, and bwrap is missing or "
            "does not work here: install it (Debian/Ubuntu: apt-get install bubblewrap; `make "
            "test` does), or pass --no-sandbox to grade without it, knowing that "
            f"{sandbox.LOST_WITHOUT_SANDBOX}.",
            file=sys.stderr,
        )
        return 2
    results = batch.grade_all(opts.paths, opts)
    summary, _ = reports.write_reports(results, Path(opts.out))
    print(reports.table(results))
    print(f"\nwrote {len(results)} JSON file(s) and {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
