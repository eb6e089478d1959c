"""The batch: which exercise each submission is, and one checker process per submission.

``--jobs`` checker processes (``checker.main``, started as ``tools/grade.py --worker``) grade the
submissions, each one after the other under a wall-time limit; each submission gets a fresh
kernel in the sandbox. Each checker's kernels run as a user of their own
(``sandbox.kernel_uid``), so one submission's processes never count against another's limit.
"""

from __future__ import annotations

import json
import os
import queue
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AUTOGRADER = ROOT / "exercises" / "autograder"
GRADE = ROOT / "tools" / "grade.py"


def exercise_of(
    path: Path, forced: str | None, autograder: Path = AUTOGRADER
) -> tuple[str | None, Path | None]:
    """(exercise name, autograder zip) for a submission, or (None, None). The exercise comes from
    ``forced`` (exNN, exNN_topic or a zip), else the file name, a parent folder, the metadata."""

    def zip_for(prefix: str):
        found = sorted(autograder.glob(f"{prefix}*.zip"))
        return (found[0].stem, found[0]) if len(found) == 1 else (None, None)

    if forced:
        if forced.endswith(".zip") and Path(forced).is_file():
            return Path(forced).stem, Path(forced)
        return zip_for(forced if "_" in forced else forced + "_")
    m = re.match(r"(ex\d\d)_", path.name)
    if m:
        return zip_for(m.group(1) + "_")
    for parent in path.resolve().parents:
        m = re.match(r"(ex\d\d)(_|$)", parent.name)
        if m:
            return zip_for(m.group(1) + "_")
    try:
        meta = (
            json.loads(path.read_text()).get("metadata", {}).get("otter", {}).get("assignment_name")
        )
    except Exception:
        meta = None
    if isinstance(meta, str) and re.fullmatch(r"ex\d\d_\w+", meta):
        return zip_for(meta)
    return None, None


def find_submissions(paths: list[str]) -> list[Path]:
    """The notebooks to grade: the files named, and the .ipynb files under the folders named.
    Symbolic links among them are listed too (``grade_one`` refuses them); folders reached
    through a symbolic link are not entered."""
    found = []
    for p in map(Path, paths):
        if p.is_dir() and not p.is_symlink():
            found += sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
            found += sorted(
                q for q in p.rglob("*") if q.is_symlink() and q.is_dir() and q.suffix != ".ipynb"
            )
        elif p.is_file() or p.is_symlink():
            found.append(p)
        else:
            raise SystemExit(f"no such file or folder: {p}")
    return found


def symbolic_link(path: Path, roots=()) -> Path | None:
    """The symbolic link on the way to ``path`` (the file itself, or a folder between it and
    the folder named on the command line), or None. A submission that is a link could point at
    the worked solutions or at any file of the grading machine: it is refused, never read."""
    if path.is_symlink():
        return path
    roots = {Path(r) for r in roots}
    between = []
    for q in path.parents:
        if q in roots:
            return next((b for b in between if b.is_symlink()), None)
        between.append(q)
    return None


class Checker:
    """A checker process (``checker.main``) that grades submissions one after the other: numpy,
    torch and otter's classes are imported once per process, not once per submission. One that
    fails or overruns a submission's time is killed (with the kernel it started) and replaced."""

    def __init__(self, opts, folder: Path):
        cmd = [
            sys.executable,
            str(GRADE),
            "--worker",
            "--cell-timeout",
            str(opts.cell_timeout),
            "--memory",
            str(opts.memory),
            "--timeout",
            str(opts.timeout),
            "--checker-memory",
            str(opts.checker_memory),
        ] + (["--no-sandbox"] if opts.no_sandbox else [])
        self.log_path = folder / f"checker-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            cwd=folder,
            start_new_session=True,
        )

    def grade(
        self, zip_path: Path, submission: Path, result_file: Path, timeout: float
    ) -> str | None:
        """None when the result is in ``result_file``, else why not."""
        job = {
            "zip": str(zip_path.resolve()),
            "submission": str(submission.resolve()),
            "result": str(result_file),
        }
        try:
            self.proc.stdin.write((json.dumps(job) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return "the grading process had stopped"
        deadline = time.monotonic() + timeout
        fd, got = self.proc.stdout.fileno(), b""
        while not got.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return f"grading took longer than {timeout:g} s"
            chunk = os.read(fd, 4096)
            if not chunk:
                return f"the grading process failed (exit status {self.proc.wait()})"
            got += chunk
        return None if got.strip() == b"done" else f"the grading process answered {got[:80]!r}"

    def tail(self) -> str:
        self.log.flush()
        lines = self.log_path.read_bytes()[-2000:].decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the checker and the kernel it started
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        self.log.close()


def grade_one(path: Path, opts, checkers: queue.Queue, folder: Path) -> dict:
    started = time.monotonic()
    link = symbolic_link(path, getattr(opts, "paths", ()))
    if link is not None:
        what = (
            "is a symbolic link"
            if link == path
            else f"is reached through a symbolic link ({link.name})"
        )
        return {
            "submission": str(path),
            "exercise": None,
            "status": "refused",
            "points": 0.0,
            "of": 0.0,
            "questions": {},
            "integrity": [f"the submission {what}: refused, not read"],
            "messages": [
                f"refused: the submission {what} (an archive unpacked with its links?). "
                "The grader reads only regular files: hand in the .ipynb file itself"
            ],
            "seconds": 0.0,
        }
    exercise, zip_path = exercise_of(path, opts.exercise, Path(opts.autograder))
    base = {"submission": str(path), "exercise": exercise}
    if zip_path is None:
        return {
            **base,
            "status": "error",
            "points": 0.0,
            "of": 0.0,
            "questions": {},
            "integrity": [],
            "messages": [
                f"cannot tell which exercise this is (looked for exNN_*.zip in {opts.autograder}): "
                "name it exNN_..., put it in a folder exNN, or pass --exercise"
            ],
            "seconds": 0.0,
        }
    result, notes = None, []
    checker = checkers.get() or Checker(opts, folder)
    result_file = folder / f"result-{time.monotonic_ns()}.json"
    try:
        why = checker.grade(Path(zip_path), path, result_file, opts.timeout)
        if why is None and result_file.is_file():
            result = json.loads(result_file.read_text())
        else:
            notes.append(f"{why}: {checker.tail()}")
            checker.close()
            checker = None
    finally:
        checkers.put(checker)
        result_file.unlink(missing_ok=True)
    if result is None:
        result = {"status": "error", "questions": {}, "messages": [], "integrity": []}
    result["messages"] = notes + result["messages"]
    questions = result["questions"]
    points = round(sum(q["points"] for q in questions.values()), 6)
    of = round(sum(q["of"] for q in questions.values()), 6)
    return {
        **base,
        "status": result["status"],
        "points": points,
        "of": of,
        "questions": questions,
        "messages": result["messages"],
        "integrity": result["integrity"],
        "seconds": round(time.monotonic() - started, 2),
        # exercise 12: the learner id the notebook was graded as (checker.PINNED)
        **({"graded_as": result["graded_as"]} if result.get("graded_as") else {}),
    }


def grade_all(paths: list[str], opts) -> list[dict]:
    subs = find_submissions(paths)
    if not subs:
        raise SystemExit("no .ipynb submissions found")
    jobs = max(1, opts.jobs)
    checkers: queue.Queue = queue.Queue()
    for _ in range(jobs):
        checkers.put(None)  # started when first needed
    results = [None] * len(subs)
    with (
        tempfile.TemporaryDirectory(prefix="grade-batch-") as tmp,
        ThreadPoolExecutor(max_workers=jobs) as pool,
    ):
        try:
            futures = {
                pool.submit(grade_one, s, opts, checkers, Path(tmp)): i for i, s in enumerate(subs)
            }
            for fut, i in futures.items():
                results[i] = fut.result()
                if not opts.quiet:
                    r = results[i]
                    print(
                        f"graded {subs[i]}: {r['points']:g}/{r['of']:g} in {r['seconds']:.1f} s",
                        file=sys.stderr,
                    )
        finally:
            pool.shutdown(wait=True)
            while not checkers.empty():
                c = checkers.get()
                if c is not None:
                    c.close()
    return results
