"""The batch: which exercise each submission is, and one checker process per submission.

Each submission is graded by its own checker process (``checker.main``, started as
``tools/grade.py --worker``), under a wall-time limit; ``--jobs`` of them run at once. Each
checker's kernels run as a user of their own (``sandbox.kernel_uid``), so one submission's
processes never count against another's limit.
"""

from __future__ import annotations

import json
import os
import re
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


def exercise_of(path: Path, forced: str | None, autograder: Path = AUTOGRADER) -> tuple[str | None, Path | None]:
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
        meta = json.loads(path.read_text()).get("metadata", {}).get("otter", {}).get("assignment_name")
    except Exception:
        meta = None
    if isinstance(meta, str) and re.fullmatch(r"ex\d\d_\w+", meta):
        return zip_for(meta)
    return None, None


def find_submissions(paths: list[str]) -> list[Path]:
    found = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
        elif p.is_file():
            found.append(p)
        else:
            raise SystemExit(f"no such file or folder: {p}")
    return found


def grade_one(path: Path, opts) -> dict:
    started = time.monotonic()
    exercise, zip_path = exercise_of(path, opts.exercise, Path(opts.autograder))
    base = {"submission": str(path), "exercise": exercise}
    if zip_path is None:
        return {**base, "status": "error", "points": 0.0, "of": 0.0, "questions": {}, "integrity": [],
                "messages": [f"cannot tell which exercise this is (looked for exNN_*.zip in {opts.autograder}): "
                             "name it exNN_..., put it in a folder exNN, or pass --exercise"], "seconds": 0.0}
    result, notes = None, []
    with tempfile.TemporaryDirectory(prefix="grade-batch-") as tmp:
        result_file = Path(tmp) / "result.json"
        cmd = [sys.executable, str(GRADE), "--worker", "--zip", str(Path(zip_path).resolve()),
               "--submission", str(path.resolve()), "--result", str(result_file),
               "--cell-timeout", str(opts.cell_timeout), "--memory", str(opts.memory)]
        if opts.no_sandbox:
            cmd.append("--no-sandbox")
        log = Path(tmp) / "worker.log"
        with open(log, "wb") as fh:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT,
                                    cwd=tmp, start_new_session=True)
            try:
                rc = proc.wait(timeout=opts.timeout)
                why = None if rc == 0 else f"the grading process failed (exit status {rc})"
            except subprocess.TimeoutExpired:
                why = f"grading took longer than {opts.timeout:g} s"
            try:
                os.killpg(proc.pid, signal.SIGKILL)   # the checker and the kernel it started
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
        if why is None and result_file.is_file():
            result = json.loads(result_file.read_text())
        else:
            tail = log.read_bytes()[-2000:].decode(errors="replace").strip().splitlines()
            notes.append(f"{why}: {tail[-1] if tail else 'no output'}")
    if result is None:
        result = {"status": "error", "questions": {}, "messages": [], "integrity": []}
    result["messages"] = notes + result["messages"]
    questions = result["questions"]
    points = round(sum(q["points"] for q in questions.values()), 6)
    of = round(sum(q["of"] for q in questions.values()), 6)
    return {**base, "status": result["status"], "points": points, "of": of, "questions": questions,
            "messages": result["messages"], "integrity": result["integrity"],
            "seconds": round(time.monotonic() - started, 2)}


def grade_all(paths: list[str], opts) -> list[dict]:
    subs = find_submissions(paths)
    if not subs:
        raise SystemExit("no .ipynb submissions found")
    jobs = max(1, opts.jobs)
    results = [None] * len(subs)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(grade_one, s, opts): i for i, s in enumerate(subs)}
        for fut, i in futures.items():
            results[i] = fut.result()
            if not opts.quiet:
                r = results[i]
                print(f"graded {subs[i]}: {r['points']:g}/{r['of']:g} in {r['seconds']:.1f} s", file=sys.stderr)
    return results
